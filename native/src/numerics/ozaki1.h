/* Ozaki scheme I, step by step, as element functions shared by the CPU and CUDA executors.
 *
 * For C = op(A) op(B) (m x k times k x n), every row of op(A) and every column of op(B)
 * (a "packed column", k values, real and imaginary parts sharing one scale) is cut into s
 * signed integer slices with one power-of-two weight per slice:
 *
 *     x_l  ~=  sum_{p=1..s} I_p(l) * 2^(e_p),        |I_p(l)| <= 127 (INT8)
 *
 * and C_ij ~= sum over the triangle p + q <= s + 1 of (A_p^T B_q)_ij 2^(ea_ip + eb_jq),
 * where every A_p^T B_q is an exact integer product.
 *
 * Slice width (both operands): with K = k (real) or 2k (complex: Re = ArBr - AiBi is one
 * integer product of length 2k), beta = min(7, floor((31 - log2 K) / 2)), computed as
 * min(7, (31 - ceil(log2 K)) / 2) (the same integer). Then K (2^beta - 1)^2 < 2^31: every
 * slice product fits an INT32 accumulator. K <= OZ1_MAX_K = 2^28 keeps beta >= 1.
 *
 * Variants (E = ilogb(max_l |x_l|), c = ceil(log2 max_l |x_l|), per packed column):
 *   BITMASK, EF  (ozIMMU's cut_int8_core): the significands aligned to 2^(E+1) and cut into
 *                beta-bit pieces from the top, truncating: T_p = trunc(|x| 2^(beta p - E - 1)),
 *                I_p = sign(x) (T_p - 2^beta T_{p-1}) in [-(2^beta - 1), 2^beta - 1],
 *                e_p = E + 1 - beta p.
 *   RN           (Uchino et al.): round to nearest even on the grid mu_p = 2^(c_p + 1 - beta),
 *                c_p = ceil(log2 max |R|) of the current residual R (recomputed per slice);
 *                I_p = RN(R / mu_p) with the magic constant 0.75 * 2^53 (applied to the
 *                scaled value R / mu_p, which is the paper's (R + 0.75 2^53 mu) - 0.75 2^53 mu
 *                without its overflow/underflow at the ends of the exponent range);
 *                R -= I_p mu_p (exact), |I_p| <= 2^(beta - 1), e_p = c_p + 1 - beta.
 *   HYBRID       RN slices with one fixed scale per row (the per-slice decay moved into the
 *                magic constant): e_p = c + 1 - beta p with c of the original row,
 *                |I_p| <= 2^(beta - 1).
 * For BITMASK, EF and HYBRID, e_p = e_1 - beta (p - 1), so all pairs of one group
 * g = p + q share the weight 2^(ea_i1 + eb_j1 - beta (g - 2)).
 *
 * Accumulation (fixed, per element, so every executor and thread count gives the same bits):
 *   BITMASK, RN: one term per pair (p, q);
 *   EF, HYBRID:  one term per chunk of at most r = max(1, 2^(31 - 2 beta - ceil(log2 K)))
 *                consecutive pairs (increasing p) of one group g, whose integer sum is exact
 *                in INT32 (r K (2^beta - 1)^2 <= 2^31);
 *   each term is X * 2^shift with X the exact integer (ldexp, correctly rounded on every
 *   executor), added in FP64 with no FMA to an accumulator that starts at +0, in the order
 *   g = s+1 down to 2 (smallest weights first), and inside a group by increasing p; tiny
 *   and huge products are summed at a scale (oz1_acc_scale) and the last term brings them
 *   back with one rounding (oz1_accumulate_last), so a subnormal result is rounded once,
 *   too, and no partial sum overflows where the result does not.
 *   Then the BLAS update alpha x + beta c (oz_update_real / oz_update_complex).
 *
 * Useful slice counts (benchmarks/accuracy.py, m = n = 128, k = 1024 and 16384): err_ab at or
 * below native DGEMM's needs 8 slices at phi = 0, 9 at phi = 0.5 and up to 13 at phi = 4
 * (k = 16384); beyond about 11 (phi <= 2) or 13 (phi = 4) nothing improves (the FP64
 * accumulation floor, ~1-2 u). Each slice adds about beta = 7 bits (error / 2^7); fewer
 * than ~7 slices give a cheaper, much less accurate product, and at low counts rows whose
 * elements span more bits than beta s lose elements and fall back.
 *
 * The driver computes the call natively (and says why) when: K > 2^28 (TOO_LARGE_K); an
 * element is Inf or NaN (NONFINITE); or, with an explicit slice count, a nonzero element has
 * all its s slices zero, i.e. it would be lost entirely (EXPONENT_RANGE, the same "no silent
 * loss" rule as Ozaki II). Automatic precision's bound covers lost elements (|r| <= |x|), so
 * a count it chooses is used as it is.
 */
#ifndef OZ_OZAKI1_H
#define OZ_OZAKI1_H

#include <limits.h>

#include "oz_defs.h"

/* Automatic precision's first slice count, and the count the policy and `ozblas calibrate`
 * plan with (ozblas_policy_planning_slices): 11 slices reach DGEMM-level err_ab up to
 * phi = 2 at k = 1024 and 16384 (docs/accuracy.md). */
#define OZ1_PLAN_SLICES 11
#define OZ1_MAX_K (1LL << 28)        /* on K = k (real) or 2k (complex): beta >= 1 */
#define OZ1_MAGIC 6755399441055744.0  /* 0.75 * 2^53: (y + M) - M = RNE(y) for |y| < 2^51 */

enum { OZ1_BITMASK = 0, OZ1_RN = 1, OZ1_EF = 2, OZ1_HYBRID = 3 }; /* = ozblas_ozaki1_variant */

/* ---- parameters ------------------------------------------------------------------------- */

/* Smallest c >= 0 with 2^c >= K. */
OZ_HD int oz1_clog2(int64_t K)
{
    int c = 0;
    while (c < 62 && ((int64_t)1 << c) < K)
        c++;
    return c;
}

/* Slice width: min(7, floor((31 - log2 K) / 2)). */
OZ_HD int oz1_beta(int64_t K)
{
    return oz_min_int(7, (31 - oz1_clog2(K)) / 2);
}

/* Pairs whose products one INT32 accumulator sums exactly (EF, HYBRID). */
OZ_HD int oz1_group_addends(int beta, int64_t K)
{
    int e = 31 - 2 * beta - oz1_clog2(K);
    return e > 0 ? 1 << e : 1;
}

/* Pairs summed per FP64 term: r for the grouped variants, 1 otherwise. */
OZ_HD int oz1_chunk(int variant, int beta, int64_t K)
{
    return (variant == OZ1_EF || variant == OZ1_HYBRID) ? oz1_group_addends(beta, K) : 1;
}

/* FP64 terms per element with s slices and chunks of r pairs: one per chunk of each group
 * g + 2 (g + 1 pairs, ceil((g + 1) / r) chunks). */
OZ_HD int oz1_terms(int s, int r)
{
    int terms = 0;
    for (int g = 0; g < s; g++)
        terms += (g + r) / r;
    return terms;
}

/* ceil(log2 m) of a finite m > 0 (subnormals included). */
OZ_HD int oz1_ceil_log2(double m)
{
    int e = ilogb(m);
    return ldexp(m, -e) == 1.0 ? e : e + 1;
}

/* ---- the cut -------------------------------------------------------------------------- */

/* Bitmask: T_p = trunc(|x| 2^shift) with shift = beta p - E - 1, the top beta p bits below
 * 2^(E+1) as an integer-valued double. Exact: a double scaled into the normal range is
 * exact, and a value scaled below 2^-1022 truncates to 0 whatever its rounding. */
OZ_HD double oz1_bitmask_prefix(double ax, int shift)
{
    return trunc(ldexp(ax, shift));
}

/* I_p = sign(x) (T_p - 2^beta T_{p-1}): the low beta bits of T_p, exact. */
OZ_HD double oz1_bitmask_slice(double x, double T, double T_prev, int beta)
{
    double d = T - ldexp(T_prev, beta);
    return x < 0.0 ? -d : d;
}

OZ_HD int oz1_bitmask_exp(int E, int beta, int p) /* p = 1..s */
{
    return E + 1 - beta * p;
}

/* Round to nearest even of R / 2^e with the magic constant. The scaling is exact (or the
 * scaled value is below 2^-1022 and rounds to 0 either way). */
OZ_HD double oz1_rn_int(double R, int e)
{
    double y = ldexp(R, -e);
    return (y + OZ1_MAGIC) - OZ1_MAGIC;
}

/* R - I 2^e: exact (I 2^e is representable and the rounding error of a double to a grid
 * is representable). */
OZ_HD double oz1_rn_residual(double R, double I, int e)
{
    return R - ldexp(I, e);
}

/* RN: weight of a slice from the residual's ceil(log2 max); HYBRID: from the row's. */
OZ_HD int oz1_rn_exp(int c, int beta)
{
    return c + 1 - beta;
}

OZ_HD int oz1_hybrid_exp(int c, int beta, int p) /* p = 1..s */
{
    return c + 1 - beta * p;
}

/* ---- accumulation ---------------------------------------------------------------------- */

/* Index of pair (p, q), 0-based with p + q <= s - 1, ordered by group then p. */
OZ_HD int oz1_pair_index(int p, int q)
{
    int g = p + q;
    return g * (g + 1) / 2 + p;
}

/* The scale one element's accumulation runs at, from base = ea_i1 + eb_j1 (the weight of
 * its largest pair): 0 for products of normal size (the same bits as without it); tiny
 * products (base < -512) are summed 2^scale higher, so that no term and no partial sum is
 * subnormal (each would be rounded there once more), and huge ones (base > 976: a partial
 * sum, below 2^(base + 46) for K <= 2^28, could overflow although the result need not)
 * 2^-scale lower, just enough; oz1_accumulate_last brings the sum back with one rounding.
 * (Scaled down, terms some 2000 binades below the largest pair could be subnormal.) */
OZ_HD int oz1_acc_scale(int base)
{
    return base < -512 ? 512 - base : base > 976 ? 976 - base : 0;
}

/* One FP64 term: acc + X 2^(shift + scale) (X an exact integer, |X| < 2^53; no FMA). */
OZ_HD double oz1_accumulate(double acc, double X, int shift, int scale)
{
    return acc + ldexp(X, shift + scale);
}

/* The last term, and the sum back at its own size rounded once: the last addition's exact
 * error e (TwoSum) breaks a tie of the scaled sum s on the result's grid (the only case in
 * which it can change the rounding of s + e, since a result below 2^-1022 has fewer than
 * 53 bits). */
OZ_HD double oz1_accumulate_last(double acc, double X, int shift, int scale)
{
    const double t = ldexp(X, shift + scale), s = acc + t;
    if (scale <= 0) /* normal size, or scaled down: back exactly (or an overflow to inf) */
        return ldexp(s, -scale);
    const double bv = s - acc, e = (acc - (s - bv)) + (t - bv);
    double r = ldexp(s, -scale);
    const double d = s - ldexp(r, scale), half = ldexp(1.0, scale - 1075);
    if (d == half && e > 0.0)
        r = nextafter(r, INFINITY);
    else if (d == -half && e < 0.0)
        r = nextafter(r, -INFINITY);
    return r;
}

/* ---- automatic precision ------------------------------------------------------------------
 * The slice count of a call left to ozblas: the fewest s whose truncation bound for these
 * inputs is DGEMM-level, as for Ozaki II (ozaki2.h "automatic precision", whose statistics,
 * 1-norms and lower-bound products are reused). Every variant represents x as
 * sum_{p<=s} A_p + r with |r| <= min(|x|, rho), rho = 2^(E + 1 - beta s), and
 * |A_p| <= 2^(E + 1 - beta (p - 1)); so, per (i, j), with the dropped pairs p + q > s + 1,
 *   |C~ - C| <= rho_a |B|_1 + rho_b |A|_1 + k rho_a rho_b
 *               + k 2^(E + F + 2) sum_{g > s+1} (2s + 1 - g) 2^(-beta (g - 2)),
 * the last sum at most (s - 1) 2^(1 - beta s) (beta >= 1). Divided by the lower bound
 * 2^(E + F - 12) G of (|A||B|)_ij, or, where G = 0, bounded with the exponent spans
 * (|x| >= 2^emin). A count is usable only if no nonzero element can be lost: emin >=
 * E + 2 - beta s keeps a nonzero slice in every variant. */

/* Truncation bound of Ozaki I with s slices of beta bits, relative to (|A||B|)_ij; the
 * arguments as oz2_bound_ratio's (E, F: exponents of the row/column maxima). */
OZ_HD double oz1_bound_ratio(int cx, int s, int beta, int64_t k, int E, int F, int emin,
                             int fmin, uint64_t NA, uint64_t NB, double G)
{
    if (NA == 0 || NB == 0)
        return 0.0;
    double c = cx ? 2.0 : 1.0, kk = (double)(cx ? 2 * k : k);
    double drop = kk * (double)(s - 1) * ldexp(1.0, 3 - beta * s); /* k 2^2 (s-1) 2^(1-beta s) */
    double cross = kk * ldexp(1.0, 2 - 2 * beta * s);
    double span = c * (ldexp(1.0, E - emin + 1 - beta * s) + ldexp(1.0, F - fmin + 1 - beta * s) +
                       ldexp(1.0, E - emin + F - fmin + 2 - 2 * beta * s) +
                       ldexp(drop / kk, E - emin + F - fmin));
    if (G == 0.0)
        return span;
    double r = c * ldexp(ldexp((double)NA + (double)NB, 1 - beta * s - 32) + cross + drop, 12) / G;
    return r < span ? r : span;
}

/* The normwise target (ozaki2.h "the normwise target"): the same truncation bound relative
 * to ||a_i||_2 ||b_j||_2 >= 2^(E + F), each 1-norm at most min(2^-32 N, sqrt K) of it
 * (rootk: oz2_norm_rootk), no exponent-span form. */
OZ_HD double oz1_norm_ratio(int cx, int s, int beta, int64_t k, double rootk, uint64_t NA,
                            uint64_t NB)
{
    if (NA == 0 || NB == 0)
        return 0.0;
    double c = cx ? 2.0 : 1.0, kk = (double)(cx ? 2 * k : k);
    double drop = kk * (double)(s - 1) * ldexp(1.0, 3 - beta * s);
    double cross = kk * ldexp(1.0, 2 - 2 * beta * s);
    double fa = fmin(ldexp((double)NA, -32), rootk), fb = fmin(ldexp((double)NB, -32), rootk);
    return c * (ldexp(fa + fb, 1 - beta * s) + cross + drop);
}

/* The call report's bound: the truncation bound r plus the FP64 accumulation of `terms`
 * terms (each partial sum at most 9 (|A||B|)_ij (1 + r): slices sum to at most 3 |x|),
 * and the final rounding. */
OZ_HD double oz1_report_bound(int cx, double r, int terms)
{
    double u = 0x1p-53, n = (double)(terms + 1);
    return (r + (cx ? 2.0 : 1.0) * (9.0 * n * u / (1.0 - n * u) + u) * (1.0 + r)) * (1.0 + 0x1p-40);
}

#endif
