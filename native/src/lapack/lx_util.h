/* The small helpers of the LAPACK layer (included by oz_lapack.h) and of the shim's LAPACK
 * entries (shim_lapack.h), and the one pattern of the layer's public d/z entries. */
#ifndef LX_UTIL_H
#define LX_UTIL_H

#include <stdint.h>

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
/* a leading dimension's least value */
static inline int64_t max1(int64_t n) { return n > 1 ? n : 1; }
/* a LAPACK character argument upper case */
static inline char up(char c) { return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c; }

/* scalars as two doubles (real part first), read as one double by real runs */
static const double ONE[2] = {1.0, 0.0}, MONE[2] = {-1.0, 0.0}, ZERO[2] = {0.0, 0.0};

/* A real scalar argument as the two doubles the drivers take (lx_re(a).v lives until the
 * end of the call it is an argument of). */
typedef struct {
    double v[2];
} lx_scalar;
static inline lx_scalar lx_re(double a)
{
    lx_scalar s = {{a, 0.0}};
    return s;
}

/* The public entries: each ozblas_status name(ozblas_context *ctx, params...,
 * int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report) returns body(ctx,
 * args..., nb, opt, report). LX_DZ: the pair ozblas_d<d> and ozblas_z<z> of one parameter
 * list, body's second argument 0 (double) or 1 (complex). */
#define LX_UNPAREN(...) __VA_ARGS__
#define LX_API(name, params, body, ...)                                                        \
    ozblas_status name(ozblas_context *ctx, LX_UNPAREN params, int64_t nb,                     \
                       const ozblas_options *opt, ozblas_lapack_report *report)                \
    {                                                                                          \
        return body(ctx, __VA_ARGS__, nb, opt, report);                                        \
    }
#define LX_DZ(d, z, params, body, ...)                                                         \
    LX_API(ozblas_d##d, params, body, 0, __VA_ARGS__)                                          \
    LX_API(ozblas_z##z, params, body, 1, __VA_ARGS__)

#endif
