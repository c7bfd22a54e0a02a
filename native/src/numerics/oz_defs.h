/* Definitions shared by every numerical step, for gcc (CPU executor) and nvcc (CUDA).
 * Element functions are OZ_HD: static inline on the host, __host__ __device__ under nvcc,
 * so one body serves both executors and gives the same bits on both. */
#ifndef OZ_DEFS_H
#define OZ_DEFS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define OZ_HD static __host__ __device__ __forceinline__
#else
#define OZ_HD static inline
#endif

/* Column-major index of element (r, c) of op(X), X stored with leading dimension ld. */
OZ_HD int64_t oz_op_index(char trans, int64_t r, int64_t c, int64_t ld)
{
    return trans == 'N' ? r + c * ld : c + r * ld;
}

/* Exponent of a finite nonzero x: x = f * 2^e with 1 <= |f| < 2 (subnormals included). */
OZ_HD int oz_exponent(double x)
{
    return ilogb(x);
}

OZ_HD int oz_is_finite(double x)
{
    return fabs(x) <= 1.7976931348623157e308;
}

/* Bits of v (0 for 0): one count-leading-zeros instruction, not a loop (per element in the
 * CRT and the accurate bounds). */
OZ_HD int oz_bitlen64(uint64_t v)
{
#ifdef __CUDA_ARCH__
    return 64 - __clzll((long long)v);
#else
    return v ? 64 - __builtin_clzll(v) : 0;
#endif
}

/* 2^e exactly for -1022 <= e <= 1023, from the bits: multiplying by it rounds as ldexp
 * does, without the libm call (per element in automatic precision's refinement). */
OZ_HD double oz_pow2(int e)
{
    uint64_t u = (uint64_t)(e + 1023) << 52;
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

OZ_HD int oz_min_int(int a, int b) { return a < b ? a : b; }
OZ_HD int oz_max_int(int a, int b) { return a > b ? a : b; }

/* The BLAS update of one real element. No FMA: alpha*x + beta*c rounds three times, as
 * reference BLAS does, and the NumPy reference reproduces it bit for bit. */
OZ_HD double oz_update_real(double x, double alpha, double beta, double c_old, int beta_zero)
{
    double t = alpha * x;
    if (beta_zero)
        return t;
    double u = beta * c_old;
    return t + u;
}

/* The same for one complex element, (xr, xi) -> (out[0], out[1]). */
OZ_HD void oz_update_complex(double xr, double xi, const double *alpha, const double *beta,
                             const double *c_old, int beta_zero, double *out)
{
    /* A real alpha scales each part alone: 0 * Inf of the cross terms would turn a product
     * that overflows in one part into NaN in both. beta = 1 adds C as it is, as the host
     * BLAS does (Inf in C stays Inf + finite, not NaN); any other beta multiplies fully. */
    double tr = alpha[1] == 0.0 ? alpha[0] * xr : alpha[0] * xr - alpha[1] * xi;
    double ti = alpha[1] == 0.0 ? alpha[0] * xi : alpha[0] * xi + alpha[1] * xr;
    if (!beta_zero) {
        const int one = beta[0] == 1.0 && beta[1] == 0.0;
        double ur = one ? c_old[0] : beta[0] * c_old[0] - beta[1] * c_old[1];
        double ui = one ? c_old[1] : beta[0] * c_old[1] + beta[1] * c_old[0];
        tr = tr + ur;
        ti = ti + ui;
    }
    out[0] = tr;
    out[1] = ti;
}

/* C := beta C for element cij (real, or complex), the BLAS update without a product (alpha
 * = 0 or k = 0: A and B are not referenced); beta_zero writes zeros without reading it.
 * Multiplied as oz_update_complex multiplies C, so both executors give the same bits. */
OZ_HD void oz_scale_element(double *cij, int cx, const double *beta, int beta_zero)
{
    if (beta_zero) {
        cij[0] = 0.0;
        if (cx)
            cij[1] = 0.0;
        return;
    }
    if (!cx) {
        cij[0] = beta[0] * cij[0];
        return;
    }
    const int one = beta[0] == 1.0 && beta[1] == 0.0;
    double r = one ? cij[0] : beta[0] * cij[0] - beta[1] * cij[1];
    double i = one ? cij[1] : beta[0] * cij[1] + beta[1] * cij[0];
    cij[0] = r;
    cij[1] = i;
}

/* The BLAS update of element cij (real, or complex (xr, xi)); beta_zero never reads it. */
OZ_HD void oz_update_element(double *cij, int cx, double xr, double xi, const double *alpha,
                             const double *beta, int beta_zero)
{
    if (!cx) {
        cij[0] = oz_update_real(xr, alpha[0], beta[0], beta_zero ? 0.0 : cij[0], beta_zero);
        return;
    }
    double old[2] = {0.0, 0.0}, out[2];
    if (!beta_zero) {
        old[0] = cij[0];
        old[1] = cij[1];
    }
    oz_update_complex(xr, xi, alpha, beta, old, beta_zero, out);
    cij[0] = out[0];
    cij[1] = out[1];
}

/* Multi-word unsigned integers of `limbs` 32-bit limbs, least significant first (host code:
 * the moduli tables): x *= s, and x /= s returning the remainder. */
static inline void oz_limbs_mul_small(uint32_t *x, int limbs, uint32_t s)
{
    uint64_t carry = 0;
    for (int i = 0; i < limbs; i++) {
        uint64_t p = (uint64_t)x[i] * s + carry;
        x[i] = (uint32_t)p;
        carry = p >> 32;
    }
}

static inline uint32_t oz_limbs_div_small(uint32_t *x, int limbs, uint32_t s)
{
    uint64_t rem = 0;
    for (int i = limbs - 1; i >= 0; i--) {
        uint64_t cur = (rem << 32) | x[i];
        x[i] = (uint32_t)(cur / s);
        rem = cur % s;
    }
    return (uint32_t)rem;
}

/* Automatic precision: the fewest count n in [lo, hi] with meets(n, arg), meets being
 * monotone in n (more moduli or slices, more bits, a smaller bound); 0 when none does.
 * A walk from hint (the count most calls take), so a typical call costs two or three
 * evaluations; the last call is always for the returned count, so the caller's state
 * (bits, bound) is that count's. Host code: executors evaluate meets() with their own
 * kernels. */
static inline int oz_auto_count(int lo, int hi, int hint, int (*meets)(int n, void *arg),
                                void *arg)
{
    int n = hint;
    if (meets(n, arg)) {
        while (n > lo && meets(n - 1, arg))
            n--;
        if (n > lo)
            meets(n, arg); /* the last call was for n - 1 */
        return n;
    }
    while (n < hi)
        if (meets(++n, arg))
            return n;
    return 0;
}

#endif
