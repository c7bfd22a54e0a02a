/* The one C place where OZBLAS_* variables are read and validated (the Python twin is
 * ozblas/config.py; both accept the same names and values). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "oz_internal.h"

void ozblas_options_init(ozblas_options *opt)
{
    opt->method = OZBLAS_METHOD_AUTO;
    opt->moduli = 0; /* automatic */
    opt->scaling = OZBLAS_SCALING_ACCURATE;
    opt->executor = OZBLAS_EXECUTOR_AUTO;
    opt->device = 0;
    opt->threads = 0;
    opt->slices = 0; /* automatic */
    opt->ozaki1_variant = OZBLAS_OZAKI1_HYBRID;
    opt->stream = NULL;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

static ozblas_status bad(char *err, size_t len, const char *var, const char *val,
                         const char *accepted)
{
    if (err && len)
        snprintf(err, len, "%s=%s is not valid; accepted: %s", var, val, accepted);
    return OZBLAS_ERR_INVALID_ARGUMENT;
}

ozblas_status ozblas_options_from_env(ozblas_options *opt, char *err, size_t err_len)
{
    ozblas_options o;
    ozblas_options_init(&o);
    const char *v;
    long x;
    if ((v = getenv("OZBLAS_METHOD")) && *v) {
        if (!strcasecmp(v, "auto"))
            o.method = OZBLAS_METHOD_AUTO;
        else if (!strcasecmp(v, "native"))
            o.method = OZBLAS_METHOD_NATIVE;
        else if (!strcasecmp(v, "ozaki1"))
            o.method = OZBLAS_METHOD_OZAKI1;
        else if (!strcasecmp(v, "ozaki2"))
            o.method = OZBLAS_METHOD_OZAKI2;
        else
            return bad(err, err_len, "OZBLAS_METHOD", v, "auto, native, ozaki1, ozaki2");
    }
    if ((v = getenv("OZBLAS_MODULI")) && *v) {
        if (!strcasecmp(v, "auto"))
            o.moduli = 0;
        else if (parse_int(v, 2, OZ2_MAX_MODULI, &x))
            o.moduli = (int)x;
        else
            return bad(err, err_len, "OZBLAS_MODULI", v, "auto or an integer from 2 to 20");
    }
    if ((v = getenv("OZBLAS_SCALING")) && *v) {
        if (!strcasecmp(v, "accurate"))
            o.scaling = OZBLAS_SCALING_ACCURATE;
        else if (!strcasecmp(v, "fast"))
            o.scaling = OZBLAS_SCALING_FAST;
        else
            return bad(err, err_len, "OZBLAS_SCALING", v, "accurate, fast");
    }
    if ((v = getenv("OZBLAS_SLICES")) && *v) {
        if (!strcasecmp(v, "auto"))
            o.slices = 0;
        else if (parse_int(v, 2, OZ1_MAX_SLICES, &x))
            o.slices = (int)x;
        else
            return bad(err, err_len, "OZBLAS_SLICES", v, "auto or an integer from 2 to 20");
    }
    if ((v = getenv("OZBLAS_OZAKI1_VARIANT")) && *v) {
        static const char *names[] = {"bitmask", "rn", "ef", "hybrid"};
        int found = -1;
        for (int i = 0; i < 4; i++)
            if (!strcasecmp(v, names[i]))
                found = i;
        if (found < 0)
            return bad(err, err_len, "OZBLAS_OZAKI1_VARIANT", v, "bitmask, rn, ef, hybrid");
        o.ozaki1_variant = found;
    }
    if ((v = getenv("OZBLAS_DEVICE")) && *v) {
        if (!strcasecmp(v, "auto"))
            o.executor = OZBLAS_EXECUTOR_AUTO;
        else if (!strcasecmp(v, "cpu"))
            o.executor = OZBLAS_EXECUTOR_CPU;
        else if (!strcasecmp(v, "cuda"))
            o.executor = OZBLAS_EXECUTOR_CUDA;
        else if (!strncasecmp(v, "cuda:", 5) && parse_int(v + 5, 0, 1023, &x)) {
            o.executor = OZBLAS_EXECUTOR_CUDA;
            o.device = (int)x;
        } else
            return bad(err, err_len, "OZBLAS_DEVICE", v, "auto, cpu, cuda, cuda:N");
    }
    if ((v = getenv("OZBLAS_NUM_THREADS")) && *v) {
        if (!parse_int(v, 0, 4096, &x))
            return bad(err, err_len, "OZBLAS_NUM_THREADS", v, "0 (all cores) or a positive integer");
        o.threads = (int)x;
    }
    *opt = o;
    return OZBLAS_OK;
}

/* Settings of the CUDA executor, read here too so that every OZBLAS_* variable has one
 * C reader: the cuBLAS library to open first (NULL: search), and whether failing CUDA
 * calls are named on stderr. */
const char *oz_env_cublas_lib(void)
{
    const char *v = getenv("OZBLAS_CUBLAS_LIB");
    return v && *v ? v : NULL;
}

int oz_env_cuda_verbose(void)
{
    const char *v = getenv("OZBLAS_CUDA_VERBOSE");
    return v && *v && strcmp(v, "0") != 0;
}

/* Settings of the preload shim (src/shim/): OZBLAS_MIN_SIZE (route only when
 * min(m, n, k) >= it; 0 routes everything), OZBLAS_DISABLE (1: pass every call through),
 * OZBLAS_TRACE ("-" for stderr or a file path; unset or empty: no trace) and
 * OZBLAS_SUMMARY (1: the call counts as a table on stderr at exit). */
/* Plain decimal digits only (no sign, no spaces), as ozblas/config.py reads them. */
static int parse_digits(const char *s, long lo, long hi, long *out)
{
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return parse_int(s, lo, hi, out);
}

/* OZBLAS_LAPACK_NB: the LAPACK layer's block size (src/lapack/); 0 when unset. */
ozblas_status oz_env_lapack_nb(int64_t *nb, char *err, size_t err_len)
{
    const char *v = getenv("OZBLAS_LAPACK_NB");
    long x = 0;
    if (v && *v && !parse_digits(v, 1, 1L << 20, &x))
        return bad(err, err_len, "OZBLAS_LAPACK_NB", v, "a positive integer (block size)");
    *nb = x;
    return OZBLAS_OK;
}

void oz_shim_env_init(oz_shim_env *e)
{
    e->min_size = 256;
    e->disable = 0;
    e->trace[0] = 0;
    e->summary = 0;
    e->lapack_nb = 0;
}

ozblas_status oz_shim_env_from_env(oz_shim_env *e, char *err, size_t err_len)
{
    oz_shim_env o;
    oz_shim_env_init(&o);
    const char *v;
    long x;
    if ((v = getenv("OZBLAS_MIN_SIZE")) && *v) {
        if (!parse_digits(v, 0, 1L << 40, &x))
            return bad(err, err_len, "OZBLAS_MIN_SIZE", v, "0 (route everything) or a positive integer");
        o.min_size = x;
    }
    if ((v = getenv("OZBLAS_DISABLE")) && *v) {
        if (!parse_digits(v, 0, 1, &x))
            return bad(err, err_len, "OZBLAS_DISABLE", v, "0, 1");
        o.disable = (int)x;
    }
    if ((v = getenv("OZBLAS_TRACE")) && *v) {
        if (strlen(v) >= sizeof o.trace)
            return bad(err, err_len, "OZBLAS_TRACE", v, "- (stderr) or a file path");
        strcpy(o.trace, v);
    }
    ozblas_status st = oz_env_lapack_nb(&o.lapack_nb, err, err_len);
    if (st != OZBLAS_OK)
        return st;
    if ((v = getenv("OZBLAS_SUMMARY")) && *v) {
        if (!parse_digits(v, 0, 1, &x))
            return bad(err, err_len, "OZBLAS_SUMMARY", v, "0, 1");
        o.summary = (int)x;
    }
    *e = o;
    return OZBLAS_OK;
}
