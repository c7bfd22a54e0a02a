/* The one place where OZBLAS_* variables are parsed and validated. Python (ozblas/config.py)
 * asks this parser through the binding (ozblas_config_parse) for values, messages and the
 * accepted-values text, so `ozblas run`, the preloaded shim, activate() and ozblas.matmul
 * cannot disagree.
 *
 * One table row per variable: its kind, bounds or tokens, the text telling the user what
 * is accepted, its default, its meaning and the field it fills. A new variable is one row
 * (plus, for a new kind of value, one case in parse_value). Values are exact: tokens in
 * lower case, integers of ASCII digits only, no surrounding spaces; an empty value means
 * unset. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oz_internal.h"
#include "../shim/shim_names.h"

/* The kinds (ozblas_setting_kind): TOKEN, one of tokens (value: its index, the C enum's
 * value); INT, lo..hi in ASCII digits or a token of tokens meaning 0 ("auto"); SWITCH, 0
 * or 1; DEVICE, a token of tokens or "cuda:N" with N in lo..hi; PATH, a path (text) or a
 * token of tokens ("-"); ROUTINES, a list of routines (parse_routines). */
enum {
    K_TOKEN = OZBLAS_SETTING_TOKEN,
    K_INT = OZBLAS_SETTING_INT,
    K_SWITCH = OZBLAS_SETTING_SWITCH,
    K_DEVICE = OZBLAS_SETTING_DEVICE,
    K_PATH = OZBLAS_SETTING_PATH,
    K_ROUTINES = OZBLAS_SETTING_ROUTINES
};

typedef enum { T_NONE, T_OPTIONS, T_SHIM } oz_target; /* the struct a row fills */
typedef enum { F_INT, F_I64, F_STR, F_ROUTINES } oz_field;

typedef struct {
    ozblas_variable v;
    int absolute;       /* K_PATH: made absolute where parsed (the process may chdir later) */
    oz_target target;
    oz_field field;
    size_t offset, offset2, offset3; /* the field(s); offset2: K_DEVICE's ordinal, offset3
                                        its device list */
} oz_var;

#define OPT(f) T_OPTIONS, F_INT, offsetof(ozblas_options, f)
#define SHIM(f, type) T_SHIM, type, offsetof(oz_shim_env, f)

static const oz_var vars[] = {
    {{"OZBLAS_METHOD", "method", K_TOKEN, "auto native ozaki1 ozaki2", 0, 0,
      "auto, native, ozaki1, ozaki2", "auto",
      "how products are computed; auto = the policy's fastest candidate per call"},
     0, OPT(method), 0},
    {{"OZBLAS_MODULI", "moduli", K_INT, "auto", 2, OZ2_MAX_MODULI,
      "auto or an integer from 2 to 49 (engine int8) or to 28 (engine fp4)", "auto",
      "Ozaki II moduli count (more = more accurate); auto = the fewest whose error bound for "
      "the call's inputs is DGEMM-level"},
     0, OPT(moduli), 0},
    {{"OZBLAS_SCALING", "scaling", K_TOKEN, "accurate fast", 0, 0,
      "accurate, fast", "accurate", "Ozaki II scaling bound"},
     0, OPT(scaling), 0},
    {{"OZBLAS_ENGINE", "engine", K_TOKEN, "int8 fp4", 0, 0,
      "int8, fp4", "int8",
      "unit of the exact integer products: INT8, or FP4 E2M1 base-13 limbs (Ozaki I and II; "
      "an exact model on the CPU executor, cuBLASLt on Blackwell GPUs that pass a probe)"},
     0, OPT(engine), 0},
    {{"OZBLAS_SLICES", "slices", K_INT, "auto", 2, OZ1_MAX_SLICES,
      "auto or an integer from 2 to 40", "auto",
      "Ozaki I slice count (more = more accurate); auto = the fewest whose error bound for "
      "the call's inputs is DGEMM-level"},
     0, OPT(slices), 0},
    {{"OZBLAS_OZAKI1_VARIANT", "variant", K_TOKEN, "bitmask rn ef hybrid", 0, 0,
      "bitmask, rn, ef, hybrid", "hybrid",
      "Ozaki I slicing and accumulation"},
     0, OPT(ozaki1_variant), 0},
    {{"OZBLAS_ACCURACY", "accuracy", K_TOKEN, "dgemm correct", 0, 0,
      "dgemm, correct", "dgemm",
      "what a product promises: dgemm = DGEMM-level accuracy; correct = every entry the exact "
      "product rounded once (then alpha, beta as BLAS applies them)"},
     0, OPT(accuracy), 0},
    {{"OZBLAS_DEVICE", "device", K_DEVICE, "auto cpu cuda", 0, OZ_MAX_DEVICE,
      "auto, cpu, cuda, cuda:N (N from 0 to 1023), cuda:all, cuda:N,M,... (a list of distinct "
      "devices from 0 to 63)", "auto",
      "executor (cuda:N picks the GPU; auto: the GPU of the launcher's local rank; cuda:all "
      "or a list spreads each product over those GPUs as tiles of C)"},
     0, OPT(executor), offsetof(ozblas_options, device), offsetof(ozblas_options, devices)},
    {{"OZBLAS_NUM_THREADS", "threads", K_INT, NULL, 0, OZ_MAX_THREADS,
      "0 (all cores) or an integer from 1 to 4096", "0",
      "CPU executor threads (threadpoolctl's limit caps them)"},
     0, OPT(threads), 0},
    {{"OZBLAS_MIN_SIZE", "min_size", K_INT, NULL, 0, (int64_t)1 << 40,
      "0 (route everything) or a positive integer up to 2^40", "256",
      "preload shim: route a call only when min(m, n, k) >= this"},
     0, SHIM(min_size, F_I64), 0},
    {{"OZBLAS_DISABLE", "disable", K_SWITCH, NULL, 0, 1,
      "0, 1", "0", "preload shim: 1 passes every call to the real BLAS"},
     0, SHIM(disable, F_INT), 0},
    {{"OZBLAS_TRACE", "trace", K_PATH, "-", 0, 0,
      "- (stderr) or a file path of at most 1023 bytes once made absolute", "",
      "preload shim: one line per call (routine, sizes, route, method, time, reason); "
      "%r in the path is the launcher's rank, or the process id"},
     1, SHIM(trace, F_STR), 0},
    {{"OZBLAS_SUMMARY", "summary", K_SWITCH, NULL, 0, 1,
      "0, 1", "0",
      "preload shim: 1 prints the call counts per routine and route at exit (to "
      "OZBLAS_SUMMARY_FILE)"},
     0, SHIM(summary, F_INT), 0},
    {{"OZBLAS_SUMMARY_FILE", "summary_file", K_PATH, "-", 0, 0,
      "- (stderr) or a file path of at most 1023 bytes once made absolute", "",
      "preload shim: where OZBLAS_SUMMARY=1 writes (appends) the summary; unset = stderr; "
      "%r in the path is the launcher's rank, or the process id"},
     1, SHIM(summary_file, F_STR), 0},
    {{"OZBLAS_LAPACK_NB", "lapack_nb", K_INT, NULL, 1, (int64_t)1 << 20,
      "a positive integer up to 2^20 (block size)", "",
      "LAPACK layer: block size of the blocked drivers; unset = 256 on the CPU executor, 1024 "
      "on the CUDA executor"},
     0, SHIM(lapack_nb, F_I64), 0},
    {{"OZBLAS_ROUTINES", "routines", K_ROUTINES, NULL, 0, 0,
      "a comma-separated list of routines (`ozblas info --json` lists them): dgesdd, gesdd (both "
      "precisions; sy/he, or/un alike: syevd is dsyevd and zheevd) or a family (syev*); -name "
      "leaves them native, names without - route only those", "",
      "preload shim, activation, ozblas.lapack: the routines routed; unset = all (e.g. "
      "-gesdd,-gesvd leaves those native; gemm,potrf routes only those)"},
     0, SHIM(native_routines, F_ROUTINES), 0},
    {{"OZBLAS_CUBLAS_LIB", "cublas_lib", K_PATH, NULL, 0, 0,
      "a library path or name of at most 1023 bytes", "",
      "cuBLAS library for the CUDA executor, tried before the usual places"},
     0, T_NONE, F_STR, 0, 0},
    {{"OZBLAS_CUDA_VERBOSE", "cuda_verbose", K_SWITCH, NULL, 0, 1,
      "0, 1", "0", "1 names each failing CUDA or cuBLAS call on stderr"},
     0, T_NONE, F_INT, 0, 0},
    {{"OZBLAS_ACTIVATE", "activate", K_SWITCH, NULL, 0, 1,
      "0, 1", "0", "1 activates in-process routing at interpreter start"},
     0, T_NONE, F_INT, 0, 0},
};
#define N_VARS ((int)(sizeof vars / sizeof vars[0]))
_Static_assert(sizeof(((oz_shim_env *)0)->trace) == sizeof(((ozblas_setting *)0)->text) &&
                   sizeof(((oz_shim_env *)0)->summary_file) ==
                       sizeof(((ozblas_setting *)0)->text),
               "a path setting fills the shim's trace and summary_file fields");

#define OZ_ROUTINE_B(r, e) #r,
#define OZ_ROUTINE_L(r, e, shape) #r,
static const char *const routine_names[] = {OZ_SHIM_ALL_ROUTINES(OZ_ROUTINE_B, OZ_ROUTINE_L)};
#define N_ROUTINES ((int)(sizeof routine_names / sizeof routine_names[0]))
_Static_assert(N_ROUTINES <= OZ_ROUTINE_BITS, "OZBLAS_ROUTINES has a bit per routine");

int ozblas_routine_count(void) { return N_ROUTINES; }

const char *ozblas_routine_name(int i)
{
    return i >= 0 && i < N_ROUTINES ? routine_names[i] : NULL;
}

int ozblas_config_count(void) { return N_VARS; }

const ozblas_variable *ozblas_config_variable(int i)
{
    return i >= 0 && i < N_VARS ? &vars[i].v : NULL;
}

static const oz_var *find(const char *name)
{
    for (int i = 0; name && i < N_VARS; i++)
        if (!strcmp(vars[i].v.name, name))
            return &vars[i];
    return NULL;
}

/* The index of s among the space-separated tokens, -1 if none. */
static int token_index(const char *tokens, const char *s)
{
    size_t n = strlen(s);
    int i = 0;
    for (const char *t = tokens; t && *t; i++) {
        size_t len = strcspn(t, " ");
        if (len == n && !memcmp(t, s, n))
            return i;
        t += len;
        t += *t == ' ';
    }
    return -1;
}

/* ASCII digits only (no sign, space or other script's digits), at most 18 of them. */
static int parse_digits(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    int64_t v = 0;
    size_t n = strlen(s);
    if (n == 0 || n > 18)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = 10 * v + (s[i] - '0');
    }
    if (v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

/* The value quoted for a message: printable ASCII as it is, every other byte (controls,
 * bytes of UTF-8 or not) as \xNN, so that any value gives one readable line; long values
 * are cut with "...". qlen >= 16. */
static void quote(const char *s, char *q, size_t qlen)
{
    size_t j = 0;
    const unsigned char *p = (const unsigned char *)s;
    q[j++] = '\'';
    for (; *p && j + 9 < qlen; p++) {
        if (*p >= 0x20 && *p < 0x7f && *p != '\'' && *p != '\\')
            q[j++] = (char)*p;
        else
            j += (size_t)snprintf(q + j, qlen - j, "\\x%02x", *p);
    }
    snprintf(q + j, qlen - j, *p ? "...'" : "'");
}

static ozblas_status bad(const oz_var *d, const char *label, const char *value, const char *why,
                         char *err, size_t len)
{
    if (err && len) {
        char q[160];
        quote(value, q, sizeof q);
        snprintf(err, len, "%s=%s is not valid%s; accepted: %s", label, q, why, d->v.accepted);
    }
    return OZBLAS_ERR_INVALID_ARGUMENT;
}

/* cuda:N,M,...: distinct ordinals up to OZ_MAX_DEVICE_LIST, comma-separated; the first
 * listed is the device, all of them the list. */
static ozblas_status parse_device_list(const oz_var *d, const char *label, const char *value,
                                       ozblas_setting *s, char *err, size_t err_len)
{
    const char *p = value + 5;
    int first = 1;
    s->value = OZBLAS_EXECUTOR_CUDA;
    s->devices = 0;
    for (;;) {
        char num[24];
        size_t len = strcspn(p, ",");
        int64_t dev;
        if (len >= sizeof num)
            return bad(d, label, value, "", err, err_len);
        memcpy(num, p, len);
        num[len] = 0;
        if (!parse_digits(num, 0, OZ_MAX_DEVICE_LIST, &dev))
            return bad(d, label, value, " (a list names devices 0 to 63)", err, err_len);
        if (s->devices & (1ULL << dev))
            return bad(d, label, value, " (a device listed twice)", err, err_len);
        s->devices |= 1ULL << dev;
        if (first)
            s->device = dev;
        first = 0;
        if (!p[len])
            break;
        p += len + 1;
    }
    return OZBLAS_OK;
}

/* LAPACK spells one operation sy (real) and he (complex Hermitian), or (real orthogonal) and
 * un (unitary): op (a name without its prefix) with the other spelling, into out (16 bytes);
 * 0 when op has none. */
static int twin(const char *op, char *out)
{
    static const char *const pairs[][2] = {{"sy", "he"}, {"he", "sy"}, {"or", "un"}, {"un", "or"}};
    for (int i = 0; i < 4; i++)
        if (!strncmp(op, pairs[i][0], 2) && strlen(op) < 16) {
            snprintf(out, 16, "%s%s", pairs[i][1], op + 2);
            return 1;
        }
    return 0;
}

/* name matches pat (len bytes; a trailing * matches any rest) */
static int name_matches(const char *name, const char *pat, size_t len)
{
    if (len && pat[len - 1] == '*')
        return !strncmp(name, pat, len - 1);
    return strlen(name) == len && !memcmp(name, pat, len);
}

/* Whether pat names routine (with its prefix, as given; or without it, in either spelling). */
static int routine_matches(const char *routine, const char *pat, size_t len)
{
    char other[16];
    return name_matches(routine, pat, len) || name_matches(routine + 1, pat, len) ||
           (twin(routine + 1, other) && name_matches(other, pat, len));
}

/* OZBLAS_ROUTINES: items separated by commas, each [-]name or [-]family* (lower-case letters
 * and digits). Names without - route only what they name (none given: every routine), then
 * the -names are left native. An item that names no routine is refused. */
static ozblas_status parse_routines(const oz_var *d, const char *label, const char *value,
                                    ozblas_setting *s, char *err, size_t err_len)
{
    uint64_t in[2] = {0, 0}, out[2] = {0, 0};
    int includes = 0;
    for (const char *p = value;; p++) {
        size_t len = strcspn(p, ",");
        int minus = *p == '-';
        const char *pat = p + minus;
        size_t plen = len - (size_t)minus, ok = plen > 0;
        for (size_t i = 0; ok && i < plen; i++)
            ok = (pat[i] >= 'a' && pat[i] <= 'z') || (pat[i] >= '0' && pat[i] <= '9') ||
                 (pat[i] == '*' && i == plen - 1);
        int hits = 0;
        for (int r = 0; ok && r < N_ROUTINES; r++)
            if (routine_matches(routine_names[r], pat, plen)) {
                (minus ? out : in)[r / 64] |= 1ULL << (r % 64);
                hits++;
            }
        if (!hits) { /* the item quoted as values are (at most 32 bytes of it) */
            char item[33], q[48], why[96];
            snprintf(item, sizeof item, "%.*s", (int)(len < 32 ? len : 32), p);
            quote(item, q, sizeof q);
            snprintf(why, sizeof why, !len ? " (an empty item)" : ok ? " (%s names no routine)"
                                                                 : " (%s is not a name)", q);
            return bad(d, label, value, why, err, err_len);
        }
        includes |= !minus;
        if (!p[len])
            break;
        p += len;
    }
    for (int w = 0; w < 2; w++) {
        uint64_t all = N_ROUTINES >= 64 * (w + 1) ? UINT64_MAX
                       : N_ROUTINES > 64 * w      ? (1ULL << (N_ROUTINES - 64 * w)) - 1
                                                  : 0;
        s->native_routines[w] = ((includes ? all & ~in[w] : 0) | out[w]) & all;
    }
    return OZBLAS_OK;
}

static ozblas_status parse_value(const oz_var *d, const char *value, const char *label,
                                 ozblas_setting *out, char *err, size_t err_len)
{
    ozblas_setting s;
    memset(&s, 0, sizeof s);
    int t = d->v.tokens ? token_index(d->v.tokens, value) : -1;
    switch (d->v.kind) {
    case K_TOKEN:
        if (t < 0)
            return bad(d, label, value, "", err, err_len);
        s.value = t;
        break;
    case K_INT:
    case K_SWITCH:
        if (t < 0 && !parse_digits(value, d->v.lo, d->v.hi, &s.value))
            return bad(d, label, value, "", err, err_len);
        break;
    case K_DEVICE:
        if (t >= 0)
            s.value = t;
        else if (!strncmp(value, "cuda:", 5) && parse_digits(value + 5, d->v.lo, d->v.hi, &s.device))
            s.value = OZBLAS_EXECUTOR_CUDA;
        else if (!strcmp(value, "cuda:all")) {
            s.value = OZBLAS_EXECUTOR_CUDA;
            s.devices = UINT64_MAX;
        } else if (!strncmp(value, "cuda:", 5) && strchr(value, ',')) {
            if (parse_device_list(d, label, value, &s, err, err_len) != OZBLAS_OK)
                return OZBLAS_ERR_INVALID_ARGUMENT;
        } else
            return bad(d, label, value, "", err, err_len);
        break;
    case K_ROUTINES:
        if (parse_routines(d, label, value, &s, err, err_len) != OZBLAS_OK)
            return OZBLAS_ERR_INVALID_ARGUMENT;
        break;
    case K_PATH: {
        size_t n = strlen(value), cwd_len = 0;
        char cwd[4096];
        if (t < 0 && d->absolute && value[0] != '/') {
            if (!getcwd(cwd, sizeof cwd))
                return bad(d, label, value, " (relative, in a working directory that cannot be "
                           "named)", err, err_len);
            cwd_len = strlen(cwd) + 1;
        }
        if (cwd_len + n >= sizeof s.text) {
            char why[96];
            snprintf(why, sizeof why, " (%zu bytes%s)", cwd_len + n, cwd_len ? " once made absolute" : "");
            return bad(d, label, value, why, err, err_len);
        }
        if (cwd_len)
            snprintf(s.text, sizeof s.text, "%s/%s", strcmp(cwd, "/") ? cwd : "", value);
        else
            memcpy(s.text, value, n + 1);
        break;
    }
    }
    if (d->v.kind != K_PATH)
        snprintf(s.text, sizeof s.text, "%s", value);
    *out = s;
    return OZBLAS_OK;
}

ozblas_status ozblas_config_parse(const char *name, const char *value, size_t value_len,
                                  const char *label, ozblas_setting *out, char *err,
                                  size_t err_len)
{
    const oz_var *d = find(name);
    if (!d || !out) {
        if (err && err_len)
            snprintf(err, err_len, "%s is not an ozblas setting", name ? name : "(null)");
        return OZBLAS_ERR_INVALID_ARGUMENT;
    }
    if (!value || !value_len) { /* unset: the default (an empty default: no value at all) */
        memset(out, 0, sizeof *out);
        return *d->v.default_value ? parse_value(d, d->v.default_value, name, out, NULL, 0)
                                   : OZBLAS_OK;
    }
    char buf[4096]; /* a NUL-terminated copy: value need not end at value_len */
    size_t n = value_len < sizeof buf ? value_len : sizeof buf - 1;
    memcpy(buf, value, n);
    buf[n] = 0;
    if (memchr(value, 0, value_len))
        return bad(d, label ? label : name, buf, " (it holds a NUL byte)", err, err_len);
    if (value_len >= sizeof buf)
        return bad(d, label ? label : name, buf, " (too long)", err, err_len);
    return parse_value(d, buf, label ? label : name, out, err, err_len);
}

/* The count of space-separated tokens. */
static int token_count(const char *tokens)
{
    int n = 0;
    for (const char *t = tokens; t && *t; n++) {
        t += strcspn(t, " ");
        t += *t == ' ';
    }
    return n;
}

int oz_options_valid(const ozblas_options *opt)
{
    for (int i = 0; i < N_VARS; i++) {
        const oz_var *d = &vars[i];
        if (d->target != T_OPTIONS)
            continue;
        const int v = *(const int *)((const char *)opt + d->offset);
        int ok;
        if (d->v.kind == K_TOKEN || d->v.kind == K_DEVICE) /* a token's index */
            ok = v >= 0 && v < token_count(d->v.tokens);
        else /* K_INT: in lo..hi, or 0 for a token ("auto") */
            ok = (d->v.tokens && v == 0) || (v >= d->v.lo && v <= d->v.hi);
        if (ok && d->v.kind == K_DEVICE) { /* cuda:N's ordinal */
            const int dev = *(const int *)((const char *)opt + d->offset2);
            ok = dev >= d->v.lo && dev <= d->v.hi;
        }
        if (!ok)
            return 0;
    }
    /* a field of the C API that no variable sets */
    return opt->target >= OZBLAS_TARGET_ENTRYWISE && opt->target <= OZBLAS_TARGET_NORMWISE;
}

/* Fills target's struct (dst, size bytes): zeros, then each of its rows' default, then with
 * env the environment's value where the variable is set. dst is written only on success;
 * on a bad value the message names it. */
static ozblas_status fill(oz_target target, void *dst, size_t size, int env, char *err,
                          size_t err_len)
{
    union {
        ozblas_options o;
        oz_shim_env e;
    } tmp;
    memset(&tmp, 0, sizeof tmp);
    for (int i = 0; i < N_VARS; i++) {
        const oz_var *d = &vars[i];
        const char *v = env ? getenv(d->v.name) : NULL;
        ozblas_setting s;
        if (d->target != target)
            continue;
        if (!v || !*v)
            v = d->v.default_value;
        memset(&s, 0, sizeof s);
        if (*v && parse_value(d, v, d->v.name, &s, err, err_len) != OZBLAS_OK)
            return OZBLAS_ERR_INVALID_ARGUMENT;
        char *f = (char *)&tmp + d->offset;
        if (d->field == F_INT)
            *(int *)f = (int)s.value;
        else if (d->field == F_I64)
            *(int64_t *)f = s.value;
        else if (d->field == F_ROUTINES)
            memcpy(f, s.native_routines, sizeof s.native_routines);
        else
            memcpy(f, s.text, sizeof s.text);
        if (d->offset2)
            *(int *)((char *)&tmp + d->offset2) = (int)s.device;
        if (d->offset3)
            *(uint64_t *)((char *)&tmp + d->offset3) = s.devices;
    }
    memcpy(dst, &tmp, size);
    return OZBLAS_OK;
}

void ozblas_options_init(ozblas_options *opt)
{
    fill(T_OPTIONS, opt, sizeof *opt, 0, NULL, 0); /* the defaults cannot fail */
}

ozblas_status ozblas_options_from_env(ozblas_options *opt, char *err, size_t err_len)
{
    ozblas_options o;
    ozblas_status st = fill(T_OPTIONS, &o, sizeof o, 1, err, err_len);
    if (st == OZBLAS_OK)
        st = ozblas_options_conflict(&o, err, err_len);
    if (st == OZBLAS_OK)
        *opt = o;
    return st;
}

/* A moduli count beyond the engine's list; accuracy "correct" is an exact product
 * (cpu/cpu_exact.c, cuda/cuda_exact.cu, on their own engines: the host DGEMM, the GPU's
 * INT8 units): native, Ozaki I, a count or engine fp4 asked for cannot promise it. Each
 * setting is named NAME='value' by its variable, so that the Python API can name a keyword it
 * was given instead (ozblas/config.py). */
ozblas_status ozblas_options_conflict(const ozblas_options *opt, char *err, size_t err_len)
{
    const char *engine = opt->engine == OZBLAS_ENGINE_FP4 ? "fp4" : "int8";
    if (opt->moduli > oz2_max_moduli(opt->engine)) { /* FP4 moduli are more, and smaller */
        if (err && err_len)
            snprintf(err, err_len,
                     "OZBLAS_MODULI='%d' is beyond the %d moduli of OZBLAS_ENGINE='%s'; accepted with "
                     "engine %s: auto or an integer from 2 to %d",
                     opt->moduli, oz2_max_moduli(opt->engine), engine, engine,
                     oz2_max_moduli(opt->engine));
        return OZBLAS_ERR_INVALID_ARGUMENT;
    }
    if (opt->accuracy != OZBLAS_ACCURACY_CORRECT)
        return OZBLAS_OK;
    char what[64] = "";
    if (opt->method == OZBLAS_METHOD_NATIVE || opt->method == OZBLAS_METHOD_OZAKI1)
        snprintf(what, sizeof what, "OZBLAS_METHOD='%s'",
                 opt->method == OZBLAS_METHOD_NATIVE ? "native" : "ozaki1");
    else if (opt->moduli)
        snprintf(what, sizeof what, "OZBLAS_MODULI='%d' (a moduli count)", opt->moduli);
    else if (opt->slices)
        snprintf(what, sizeof what, "OZBLAS_SLICES='%d' (a slices count)", opt->slices);
    else if (opt->engine == OZBLAS_ENGINE_FP4)
        snprintf(what, sizeof what, "OZBLAS_ENGINE='fp4' (exact products have their own engines)");
    if (!what[0])
        return OZBLAS_OK;
    if (err && err_len)
        snprintf(err, err_len,
                 "OZBLAS_ACCURACY='correct' cannot be combined with %s; accepted: method auto or "
                 "ozaki2 with automatic moduli and slices, engine int8", what);
    return OZBLAS_ERR_INVALID_ARGUMENT;
}

void oz_shim_env_init(oz_shim_env *e)
{
    fill(T_SHIM, e, sizeof *e, 0, NULL, 0);
}

ozblas_status oz_shim_env_from_env(oz_shim_env *e, char *err, size_t err_len)
{
    return fill(T_SHIM, e, sizeof *e, 1, err, err_len);
}

/* Settings of the CUDA executor, read through the same rows: the cuBLAS library to open
 * first (NULL: search), and whether failing CUDA calls are named on stderr. A bad value
 * here means the default (`ozblas run` and the Python API refuse it before). */
const char *oz_env_cublas_lib(void)
{
    ozblas_setting s;
    const char *v = getenv("OZBLAS_CUBLAS_LIB");
    if (!v || !*v ||
        ozblas_config_parse("OZBLAS_CUBLAS_LIB", v, strlen(v), NULL, &s, NULL, 0) != OZBLAS_OK)
        return NULL;
    return v;
}

/* The LAPACK layer's block size rule reads OZBLAS_LAPACK_NB through the same row (0 when
 * unset; a bad value gives its message). */
ozblas_status oz_env_lapack_nb(int64_t *nb, char *err, size_t err_len)
{
    ozblas_setting s;
    const char *v = getenv("OZBLAS_LAPACK_NB");
    *nb = 0;
    if (!v || !*v)
        return OZBLAS_OK;
    ozblas_status st = ozblas_config_parse("OZBLAS_LAPACK_NB", v, strlen(v), NULL, &s, err, err_len);
    if (st == OZBLAS_OK)
        *nb = s.value;
    return st;
}

int oz_env_cuda_verbose(void)
{
    ozblas_setting s;
    const char *v = getenv("OZBLAS_CUDA_VERBOSE");
    return v && ozblas_config_parse("OZBLAS_CUDA_VERBOSE", v, strlen(v), NULL, &s, NULL, 0) ==
                    OZBLAS_OK && s.value == 1;
}
