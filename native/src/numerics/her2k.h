/* HER2K's stacked operand U = [a X 2^s, Y 2^-s, a X 2^s] (n x 3k, ld n), X = op(P) and
 * Y = op(Q) (n x k; op the conjugate transpose for trans 'C'), for the one product
 * zgemm('N', 'C', n, n, 2k, ga, U, n, U + 2 n k, n) = alpha X Y^H + conj(alpha) Y X^H
 * (ozaki2.h oz2_products_per_call_modulus). Its element steps, written once for the host
 * (core/driver_ozaki2.c oz_her2k_operands) and the device executors' her2k_operands, so that
 * U, and so every product of it, has the same bits wherever it is built. */
#ifndef OZ_HER2K_H
#define OZ_HER2K_H

#include <float.h>
#include <stdlib.h>

#include "oz_defs.h"

/* ga, the product's alpha: alpha itself when real, else 1 (alpha in X). */
OZ_HD void oz_her2k_gain(const double *alpha, double *ga)
{
    ga[0] = alpha[1] == 0.0 ? alpha[0] : 1.0;
    ga[1] = 0.0;
}

/* Entry (i, l) of a X (x[0..1]) and of Y (y[0..1]): real alpha stays out (a = 1, ga =
 * alpha, exact); a complex one is rounded into X (one rounding per part, no FMA, as the
 * reference BLAS's alpha * B(j, l)). */
OZ_HD void oz_her2k_entry(char trans, const double *alpha, const double *P, int64_t ldp,
                          const double *Q, int64_t ldq, int64_t i, int64_t l, double *x,
                          double *y)
{
    const int64_t s = 2 * oz_op_index(trans, i, l, ldp), t = 2 * oz_op_index(trans, i, l, ldq);
    const double xr = P[s], xi = trans == 'N' ? P[s + 1] : -P[s + 1];
    const int real = alpha[1] == 0.0;
    x[0] = real ? xr : alpha[0] * xr - alpha[1] * xi;
    x[1] = real ? xi : alpha[0] * xi + alpha[1] * xr;
    y[0] = Q[t];
    y[1] = trans == 'N' ? Q[t + 1] : -Q[t + 1];
}

/* The halves' extents as bits: e[0] the largest |v| of a X, e[1] the complement of its
 * smallest nonzero |v| (so that both are maxima: a device folds them with atomicMax), e[2]
 * and e[3] the same of Y; all 0 before the first fold. The bits of a nonnegative double
 * order as its values (NaN above infinity). */
OZ_HD void oz_her2k_fold(uint64_t *e, double v)
{
    const double a = fabs(v);
    uint64_t b;
    memcpy(&b, &a, sizeof b);
    e[0] = b > e[0] ? b : e[0];
    if (b && ~b > e[1])
        e[1] = ~b;
}

OZ_HD double oz_her2k_bits(uint64_t b)
{
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* s of U from the extents (e[0..1] of a X, e[2..3] of Y, oz_her2k_fold): X 2^s and Y 2^-s
 * leave both terms as they are; s brings the two halves' largest magnitudes together, since
 * a row of U is scaled as one (its bits go to its larger half), and is 0 where a power of
 * two would not be exact (a magnitude leaving the normal range) or a half is zero or not
 * finite. */
OZ_HD int oz_her2k_shift(const uint64_t *e)
{
    const double hx = oz_her2k_bits(e[0]), hy = oz_her2k_bits(e[2]);
    const double lx = e[1] ? oz_her2k_bits(~e[1]) : DBL_MAX;
    const double ly = e[3] ? oz_her2k_bits(~e[3]) : DBL_MAX;
    if (!(hx > 0.0 && hy > 0.0 && oz_is_finite(hx) && oz_is_finite(hy)))
        return 0;
    const int s = (oz_exponent(hy) - oz_exponent(hx)) / 2;
    if (ldexp(s > 0 ? ly : lx, -abs(s)) < DBL_MIN || ldexp(s > 0 ? hx : hy, abs(s)) > DBL_MAX / 4)
        return 0;
    return s;
}

#endif
