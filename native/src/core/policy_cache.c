/* The calibration cache (docs/policy.md, "Calibration cache") and this machine's profile: the
 * machine's identity and cache path, the one reader and the one writer of the file (Python
 * reads it through ozblas_policy_cache_read, so the C library and the Python policy agree),
 * and the local profile method auto uses (the cache, else the built-in estimate). */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "policy_internal.h"

/* ---- this machine's identity and the cache path ------------------------------------------ */

static void host_identity(char *out, size_t len)
{
    char model[160] = "";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) && strncmp(line, "Model", 5) &&
                strncmp(line, "Hardware", 8))
                continue;
            char *v = strchr(line, ':');
            if (!v)
                continue;
            for (v++; *v == ' ' || *v == '\t'; v++)
                ;
            v[strcspn(v, "\r\n")] = 0;
            oz_copy_str(model, sizeof model, v);
            break;
        }
        fclose(f);
    }
    if (!model[0]) {
        struct utsname u;
        oz_copy_str(model, sizeof model, uname(&u) == 0 ? u.machine : "unknown CPU");
    }
    int cpus = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        cpus = CPU_COUNT(&set);
    if (cpus <= 0)
        cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(out, len, "%s, %d CPU%s", model, cpus, cpus == 1 ? "" : "s");
}

static uint32_t fnv1a(const char *s, uint32_t h)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void slug(const char *s, char *out, size_t len)
{
    size_t j = 0;
    int dash = 1;
    for (; *s && j + 1 < len && j < 40; s++) {
        if (isalnum((unsigned char)*s)) {
            out[j++] = (char)tolower((unsigned char)*s);
            dash = 0;
        } else if (!dash) {
            out[j++] = '-';
            dash = 1;
        }
    }
    while (j && out[j - 1] == '-')
        j--;
    out[j] = 0;
}

ozblas_status ozblas_policy_machine(ozblas_machine_id *id, char *path, size_t path_len)
{
    if (!id)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    memset(id, 0, sizeof *id);
    oz_copy_str(id->version, sizeof id->version, ozblas_version());
    oz_copy_str(id->device, sizeof id->device, "none");
    oz_copy_str(id->driver, sizeof id->driver, "none");
    ozblas_options opt;
    if (ozblas_options_from_env(&opt, NULL, 0) != OZBLAS_OK)
        ozblas_options_init(&opt);
    char name[128];
    int drv = 0;
    if (opt.executor != OZBLAS_EXECUTOR_CPU &&
        oz_gpu_identity(ozblas_device_for(&opt), name, sizeof name, &drv)) {
        oz_copy_str(id->device, sizeof id->device, name);
        snprintf(id->driver, sizeof id->driver, "%d.%d", drv / 1000, (drv % 1000) / 10);
    }
    host_identity(id->host, sizeof id->host);
    if (!path || !path_len)
        return OZBLAS_OK;
    path[0] = 0;
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char dir[1024];
    if (xdg && xdg[0] == '/') /* the XDG spec: a relative path is invalid, ignore it */
        snprintf(dir, sizeof dir, "%s/ozblas", xdg);
    else if (home && *home)
        snprintf(dir, sizeof dir, "%s/.cache/ozblas", home);
    else
        return OZBLAS_OK;
    char sl[48];
    slug(strcmp(id->device, "none") ? id->device : "cpu", sl, sizeof sl);
    uint32_t h = fnv1a(id->device, fnv1a("\n", fnv1a(id->host, 2166136261u)));
    if ((size_t)snprintf(path, path_len, "%s/%s-%08x.txt", dir, sl[0] ? sl : "machine", h) >= path_len)
        path[0] = 0;
    return OZBLAS_OK;
}

/* ---- the cache file ------------------------------------------------------------------- */

/* The keys in the order written; identity keys are strings, the rest rates. dev: a device
 * key, required (and written) only when the device is not "none". */
typedef struct {
    const char *key;
    int kind; /* 0 string, 1 rate (positive), 2 rate of an engine the device may lack (0: none) */
    int dev;
    size_t off;
} cache_key;

#define RATE(f, d) {#f, 1, d, offsetof(ozblas_profile, f)}
#define ENGINE_RATE(f) {#f, 2, 1, offsetof(ozblas_profile, f)}
static const cache_key KEYS[] = {
    {"format", 0, 0, 0},  {"ozblas_version", 0, 0, 0}, {"device", 0, 0, 0},
    {"driver", 0, 0, 0},  {"host", 0, 0, 0},           {"date", 0, 0, 0},
    RATE(host_dgemm, 0),  RATE(host_zgemm, 0),         RATE(cpu_int_gemm, 0),
    RATE(cpu_pass_bw, 0), RATE(cpu_call_s, 0),         RATE(dev_dgemm, 1),
    RATE(dev_zgemm, 1),   RATE(dev_int8, 1),           RATE(dev_mem_bw, 1),
    RATE(h2d_bw, 1),      RATE(d2h_bw, 1),             RATE(h2d_pinned_bw, 1),
    RATE(d2h_pinned_bw, 1), RATE(dev_call_s, 1),       RATE(dev_emu_call_s, 1),
    ENGINE_RATE(dev_fp4),   {"end", 0, 0, 0},
};
#undef RATE
#undef ENGINE_RATE
#define N_KEYS ((int)(sizeof KEYS / sizeof KEYS[0]))
#define CACHE_FORMAT "2" /* 2: dev_fp4 added */
#define CACHE_MAX_BYTES 16384

/* The value an identity key must have for this machine; NULL for the other keys. */
static const char *id_value(const ozblas_machine_id *id, const char *k)
{
    return !strcmp(k, "format")           ? CACHE_FORMAT
           : !strcmp(k, "ozblas_version") ? id->version
           : !strcmp(k, "device")         ? id->device
           : !strcmp(k, "driver")         ? id->driver
           : !strcmp(k, "host")           ? id->host
                                          : NULL;
}

static ozblas_status fail(char *why, size_t len, const char *fmt, const char *a, const char *b)
{
    if (why && len)
        snprintf(why, len, fmt, a, b);
    return OZBLAS_ERR_INVALID_ARGUMENT;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        *--e = 0;
    return s;
}

/* The key = value lines of buf (blank lines and # comments skipped) into vals, seen[i] set
 * for each key found, *last the index of the last one (-1: none); an unknown key, one twice,
 * or one after the end line is an error. */
static ozblas_status parse_lines(char *buf, char vals[][256], int *seen, int *last, char *why,
                                 size_t why_len)
{
    *last = -1;
    for (char *line = buf, *next; *line; line = next) {
        next = strchr(line, '\n');
        *next++ = 0;
        char *l = trim(line);
        if (!*l || *l == '#')
            continue;
        char *eq = strchr(l, '=');
        if (!eq)
            return fail(why, why_len, "line \"%.60s\" is not key = value%s", l, "");
        *eq = 0;
        char *key = trim(l), *val = trim(eq + 1);
        int i = 0;
        while (i < N_KEYS && strcmp(KEYS[i].key, key))
            i++;
        if (i == N_KEYS)
            return fail(why, why_len, "unknown key \"%.60s\"%s", key, "");
        if (seen[i])
            return fail(why, why_len, "key \"%s\" appears twice%s", key, "");
        if (*last >= 0 && !strcmp(KEYS[*last].key, "end"))
            return fail(why, why_len, "key \"%s\" after the end line%s", key, "");
        seen[i] = 1;
        *last = i;
        oz_copy_str(vals[i], sizeof vals[i], val);
    }
    return OZBLAS_OK;
}

ozblas_status ozblas_policy_cache_read(const char *path, const ozblas_machine_id *id,
                                       ozblas_profile *out, char *why, size_t why_len)
{
    if (!path || !*path || !id || !out)
        return fail(why, why_len, "no cache path%s%s", "", "");
    /* Non-blocking, and only a regular file: a FIFO or a device there must not hang the
     * first call of a process (O_NONBLOCK does nothing to the read of a regular file). */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return fail(why, why_len, "cannot be read (%s)%s", strerror(errno), "");
    struct stat sb = {0};
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return fail(why, why_len, "is not a regular file (%s)%s",
                    S_ISDIR(sb.st_mode) ? "a directory" : S_ISFIFO(sb.st_mode) ? "a FIFO"
                                                                                : "not a file",
                    "");
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return fail(why, why_len, "cannot be read (%s)%s", strerror(errno), "");
    }
    char *buf = malloc(CACHE_MAX_BYTES + 1);
    if (!buf) {
        fclose(f);
        return OZBLAS_ERR_ALLOCATION;
    }
    size_t len = fread(buf, 1, CACHE_MAX_BYTES + 1, f);
    fclose(f);
    ozblas_status st = OZBLAS_OK;
    if (len > CACHE_MAX_BYTES) {
        st = fail(why, why_len, "larger than %s bytes%s", "16384", "");
        goto done;
    }
    buf[len] = 0;
    if (len == 0 || buf[len - 1] != '\n' || memchr(buf, 0, len)) {
        st = fail(why, why_len, "truncated (the last line is incomplete)%s%s", "", "");
        goto done;
    }
    char vals[N_KEYS][256];
    int seen[N_KEYS], last;
    memset(seen, 0, sizeof seen);
    if ((st = parse_lines(buf, vals, seen, &last, why, why_len)) != OZBLAS_OK)
        goto done;
    if (last < 0 || strcmp(KEYS[last].key, "end") || strcmp(vals[last], "ok")) {
        st = fail(why, why_len, "truncated (no final \"end = ok\" line)%s%s", "", "");
        goto done;
    }
    /* Whose cache it is first (a stale file says so), then the rates. */
    int has_dev = 0;
    for (int i = 0; i < N_KEYS; i++) {
        const char *k = KEYS[i].key;
        const char *want = id_value(id, k);
        if (!want)
            continue;
        if (!seen[i]) {
            st = fail(why, why_len, "the key \"%s\" is missing%s", k, "");
            goto done;
        }
        if (strcmp(vals[i], want)) {
            char msg[512];
            snprintf(msg, sizeof msg, "stale: %s is \"%.150s\", this machine's is \"%.150s\"", k,
                     vals[i], want);
            st = fail(why, why_len, "%s%s", msg, "");
            goto done;
        }
        if (!strcmp(k, "device"))
            has_dev = strcmp(vals[i], "none") != 0;
    }
    ozblas_profile p;
    memset(&p, 0, sizeof p);
    for (int i = 0; i < N_KEYS; i++) {
        const char *k = KEYS[i].key, *v = vals[i];
        if (KEYS[i].dev && !has_dev)
            continue;
        if (!seen[i]) {
            st = fail(why, why_len, "the key \"%s\" is missing%s", k, "");
            goto done;
        }
        if (KEYS[i].kind == 0)
            continue;
        char *end;
        errno = 0;
        double x = strtod(v, &end);
        if (end == v || *end || errno || !isfinite(x) || x < 0 || (x == 0 && KEYS[i].kind == 1)) {
            st = fail(why, why_len, KEYS[i].kind == 1 ? "%s = \"%.60s\" is not a positive number"
                                                      : "%s = \"%.60s\" is not a number >= 0",
                      k, v);
            goto done;
        }
        *(double *)((char *)&p + KEYS[i].off) = x;
    }
    oz_copy_str(p.name, sizeof p.name, "local");
    snprintf(p.description, sizeof p.description, "this machine (%.100s)",
             has_dev ? id->device : "host only");
    for (int i = 0; i < N_KEYS; i++)
        if (!strcmp(KEYS[i].key, "date"))
            snprintf(p.source, sizeof p.source, "measured by ozblas calibrate on %.40s (%.180s)",
                     vals[i], path);
    oz_copy_str(p.host_name, sizeof p.host_name, id->host);
    p.has_device = has_dev;
    p.calibrated = 1;
    *out = p;
done:
    free(buf);
    return st;
}

static int mkdirs(const char *file)
{
    char d[1024];
    oz_copy_str(d, sizeof d, file);
    for (char *s = d + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(d, 0755) != 0 && errno != EEXIST)
            return 0;
        *s = '/';
    }
    return 1;
}

ozblas_status ozblas_policy_cache_write(const char *path, const ozblas_machine_id *id,
                                        const ozblas_profile *p, char *why, size_t why_len)
{
    if (!path || !*path || !id || !p)
        return fail(why, why_len, "no cache path%s%s", "", "");
    int has_dev = strcmp(id->device, "none") != 0;
    for (int i = 0; i < N_KEYS; i++) {
        if (KEYS[i].kind == 0 || (KEYS[i].dev && !has_dev))
            continue;
        double x = *(const double *)((const char *)p + KEYS[i].off);
        if (!isfinite(x) || x < 0 || (x == 0 && KEYS[i].kind == 1))
            return fail(why, why_len, "%s is not a positive number%s", KEYS[i].key,
                        KEYS[i].kind == 2 ? " or 0" : "");
    }
    if (!mkdirs(path))
        return fail(why, why_len, "cannot create the directory of %s (%s)", path, strerror(errno));
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
    /* A fresh regular file (never a FIFO or a link left there), replaced atomically below. */
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NONBLOCK | O_CLOEXEC, 0644);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return fail(why, why_len, "cannot write %s (%s)", tmp, strerror(e));
    }
    char date[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    fprintf(f, "# ozblas calibration cache: written by `ozblas calibrate`, read by libozblas\n"
               "# (ozblas documentation: policy.md, \"Calibration cache\"). Rates in FLOP/s, OP/s\n"
               "# or B/s; times in s.\n");
    for (int i = 0; i < N_KEYS; i++) {
        const char *k = KEYS[i].key;
        if (KEYS[i].kind != 0) {
            if (!KEYS[i].dev || has_dev)
                fprintf(f, "%s = %.6e\n", k, *(const double *)((const char *)p + KEYS[i].off));
            continue;
        }
        const char *v = id_value(id, k);
        if (!v)
            v = !strcmp(k, "date") ? date : "ok";
        fprintf(f, "%s = %s\n", k, v);
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return fail(why, why_len, "cannot write %s (%s)", path, strerror(e));
    }
    return OZBLAS_OK;
}

/* ---- the local profile ------------------------------------------------------------------ */

static pthread_mutex_t L_lock = PTHREAD_MUTEX_INITIALIZER;
static int L_loaded, L_state, L_warned;
static ozblas_profile L_prof;
static char L_note[3072];

/* Reads the cache once; the estimate when there is none or it is bad. Caller holds L_lock. */
static void local_load(void)
{
    ozblas_machine_id id;
    char path[1024], why[512];
    ozblas_policy_machine(&id, path, sizeof path);
    const char *dev = strcmp(id.device, "none") ? id.device : NULL;
    char est[512];
    ozblas_profile p;
    ozblas_policy_estimate_profile(dev, &p, est, sizeof est);
    if (!path[0]) {
        L_state = 0;
        snprintf(L_note, sizeof L_note, "not calibrated (no cache directory: HOME unset); %s", est);
    } else if (access(path, F_OK) != 0) {
        L_state = 0;
        snprintf(L_note, sizeof L_note, "not calibrated (no %s; run `ozblas calibrate`); %s",
                 path, est);
    } else if (ozblas_policy_cache_read(path, &id, &p, why, sizeof why) != OZBLAS_OK) {
        L_state = -1; /* p is still the estimate: a failed read leaves it untouched */
        snprintf(L_note, sizeof L_note,
                 "calibration cache %s ignored: %s; until `ozblas calibrate` rebuilds it, %s",
                 path, why, est);
    } else {
        L_state = 1;
        snprintf(L_note, sizeof L_note, "calibrated: %s", p.source);
    }
    L_prof = p;
    L_loaded = 1;
}

int ozblas_policy_local(ozblas_profile *out, char *note, size_t note_len)
{
    pthread_mutex_lock(&L_lock);
    if (!L_loaded)
        local_load();
    int s = L_state;
    if (out)
        *out = L_prof;
    if (note && note_len)
        snprintf(note, note_len, "%s", L_note);
    pthread_mutex_unlock(&L_lock);
    return s;
}

int oz_policy_local_dispatch(ozblas_profile *out)
{
    pthread_mutex_lock(&L_lock);
    if (!L_loaded)
        local_load();
    int s = L_state;
    *out = L_prof;
    /* A bad cache is said once per process, where the user's calls are decided. */
    if (s < 0 && !L_warned) {
        L_warned = 1;
        fprintf(stderr, "ozblas: %s\n", L_note);
    }
    pthread_mutex_unlock(&L_lock);
    return s;
}

void ozblas_policy_set_local(const ozblas_profile *p)
{
    pthread_mutex_lock(&L_lock);
    if (p) {
        L_prof = *p;
        L_state = p->calibrated ? 1 : 0;
        snprintf(L_note, sizeof L_note, "set by ozblas_policy_set_local: profile %s", p->name);
        L_loaded = 1;
    } else {
        L_loaded = 0;
        L_warned = 0;
    }
    pthread_mutex_unlock(&L_lock);
}
