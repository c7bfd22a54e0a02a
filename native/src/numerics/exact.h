/* Exact matrix products: Ozaki II (Ozaki, Uchino and Imamura, arXiv:2504.08009) with FP64
 * GEMMs as the exact integer engine, as element functions shared by every executor (OZ_HD,
 * like ozaki2.h).
 *
 * For P = op(A) op(B) (m x k times k x n), every entry computed exactly and rounded once,
 * either to double (accuracy "correct") or to a double-double hi + lo (matmul_dd):
 *   1. stats:    per row i of op(A): the exponent E_i of its largest element and low_i, the
 *                exponent of the lowest set bit of any of its nonzero elements (so
 *                A'_il = a_il 2^-low_i is an integer for every l: no truncation at all), and
 *                the bits top_i = E_i + 1 - low_i with |A'_il| < 2^top_i. The same per
 *                column j of op(B).
 *   2. count:    X = A'B' satisfies |X_ij| < c k 2^(top_i + top_j) (c = 1 real, 2 complex),
 *                so N moduli with 2^budget(N) <= M/2 and ceil(log2(c k)) + top_i + top_j <=
 *                budget(N) determine X_ij by the CRT. Rows or columns too wide for the largest
 *                count, or holding Inf/NaN, are "direct": their entries are exact dot
 *                products in a long accumulator (step 6) instead.
 *   3. residues: A'_il mod m_t, symmetric, |r| <= (m_t - 1) / 2 < 2^21, from the significand
 *                and a table of 2^s mod m_t (exact double arithmetic with fma).
 *   4. products: one DGEMM per modulus (three per modulus for complex: Karatsuba; or two on
 *                the complex family, below) per k-block of at most OZX_KBLOCK: q m^2 / 4 <=
 *                2^11 2^42 = 2^53, so every partial sum is an integer of at most 53 bits and
 *                the DGEMM is exact in any order.
 *   5. CRT:      X_ij from its residues in multi-word integers, exactly.
 *   6. direct:   sum_l a_il b_lj exactly in a fixed-point accumulator spanning every product of
 *                two doubles (2^-2148 .. 2^2048, plus 2^40 terms of headroom).
 *   7. rounding: the exact value X_ij 2^(low_i + low_j) rounded once to nearest-even, to a
 *                double (subnormal and overflowing results included), or to hi = RN(X),
 *                lo = RN(X - hi).
 * Complex products in two integer products per modulus (ozaki2.h's complex set, the same
 * algebra): on a family of moduli m with an i_m, i_m^2 = -1 (mod m) (m odd, every prime
 * factor 1 mod 4), A+- = A'_r +- i_m A'_i and B+- likewise (mod m), P+- = A+- B+- are two
 * ordinary integer products of residues in the same range as the parts', and
 *   X_r = (P+ + P-) / 2,  X_i = (P+ - P-) / (2 i_m)   (mod m),
 * since (a_r + i a_i)(b_r + i b_i) = (a_r b_r - a_i b_i) + i (a_r b_i + a_i b_r) with i^2 = -1.
 * The count's condition is Karatsuba's (|X_r|, |X_i| < 2 k 2^(top_i + top_j)); the driver
 * takes this family where it holds every row and column the other does in fewer products.
 * Double-double bound: hi + lo = X (1 + d) + eta with |d| <= 2^-106 and |eta| <= 2^-1075
 * (lo underflows), proof at ozx_round_dd; so |hi + lo - P_ij| <= 2^-106 |P_ij| + 2^-1075,
 * which is within 2^-100 (|A||B|)_ij wherever that is above 2^-969. Exact results are
 * independent of order, so every executor and thread count gives the same bits.
 */
#ifndef OZ_EXACT_H
#define OZ_EXACT_H

#include <string.h>

#include "oz_defs.h"
#include "ozaki2.h"

#define OZX_MAX_MODULI 64       /* 64 primes below 2^22: budget about 1400 bits */
#define OZX_MODULUS_LIMIT 4194304.0 /* 2^22: the moduli are the largest primes below it */
#define OZX_KBLOCK 2048         /* 2^11 (2^21)^2 = 2^53: a block's DGEMM stays exact */
#define OZX_LIMBS 48            /* 32-bit limbs: sum_t u_t w_t < 64 2^22 M < 2^(1408+28) */
#define OZX_ACC_BASE (-2148)    /* weight of the accumulator's bit 0: 2^-1074 squared */
#define OZX_ACC_LIMBS 134       /* 32 * 134 > 2148 + 2048 + 40 (k < 2^40) + a sign bit */
#define OZX_ACC_FLUSH (1 << 29) /* products between carry propagations: each adds < 2^33 */

typedef struct ozx_table {
    int n;                                 /* moduli count */
    int cx2;                               /* a complex family: the three below are set */
    double ip[OZX_MAX_MODULI];             /* i_m, i_m^2 = -1 (mod m_t), symmetric */
    double inv2[OZX_MAX_MODULI];           /* 2^-1 (mod m_t), symmetric */
    double inv2ip[OZX_MAX_MODULI];         /* (2 i_m)^-1 (mod m_t), symmetric */
    int budget;                            /* bitlen(M) - 2: 2^budget <= M/2 */
    int limbs;                             /* limbs of sum_t u_t w_t and its sign */
    double m[OZX_MAX_MODULI];              /* moduli */
    double inv[OZX_MAX_MODULI];            /* fl(1 / m_t) */
    uint32_t w[OZX_MAX_MODULI][OZX_LIMBS]; /* CRT weights (M/m_t) ((M/m_t)^-1 mod m_t) */
    uint32_t M[OZX_LIMBS];                 /* product of the moduli */
    uint32_t half[OZX_LIMBS];              /* floor(M / 2) (M is odd) */
    int Mshift;                            /* 32 (limbs of M - 1) */
    double scale[OZX_LIMBS];               /* 2^(32 i - Mshift) */
    double Md;                             /* M 2^-Mshift rounded, for quotient estimates */
} ozx_table;

/* The moduli of the INT8 engine (the CUDA executor's exact products): the odd numbers below
 * 256 taken greedily from 255 down while coprime to those taken (GEMMul8's list less 256,
 * then the primes it leaves): symmetric residues fit INT8, |r| <= 127, and an INT8 x INT8 ->
 * INT32 product is exact while k 127^2 < 2^31. 48 moduli: budget 332 bits. */
#define OZX_I8_MAX_MODULI 48

/* The complex families (two products per modulus): the FP64 engine's, the largest primes
 * 1 (mod 4) below 2^22 (64: budget about 1400 bits, as the real family's); the INT8 engine's,
 * the odd numbers below 256 whose prime factors are all 1 (mod 4), taken greedily from 255
 * down while coprime to those taken: ozaki2.h's complex set, 22 moduli, budget 151 bits. */
#define OZX_CX_MAX_MODULI 64
#define OZX_I8_CX_MAX_MODULI 22

/* numerics/exact_table.c: the t-th modulus (0 outside), the cached table of the first n;
 * the same for the INT8 moduli (_i8) and the complex families (_cx). */
int ozx_modulus(int t);
const ozx_table *ozx_table_get(int n);
int ozx_modulus_i8(int t);
const ozx_table *ozx_table_get_i8(int n);
int ozx_modulus_cx(int t);
const ozx_table *ozx_table_get_cx(int n);
int ozx_modulus_i8_cx(int t);
const ozx_table *ozx_table_get_i8_cx(int n);

/* Step 2 for one family of tables (get, up to maxn moduli): rows of op(A) (top_a, m) and
 * columns of op(B) (top_b, n) too wide for the largest count are marked direct (dir_a,
 * dir_b, which already mark Inf/NaN); returns the count N (0: no CRT entry) and the largest
 * bits left to the CRT in *ta, *tb. The same decision on every executor of that family. */
int ozx_choose_count(const ozx_table *(*get)(int), int maxn, int64_t k, int cx,
                     const int *top_a, char *dir_a, int64_t m, const int *top_b, char *dir_b,
                     int64_t n, int *ta, int *tb);

/* An operand as the element functions read it: the rows of op(A) (is_a) or the columns of
 * op(B), each an "outer" index o with k inner elements l (conjugated for trans 'C'). */
typedef struct {
    const double *X;
    int64_t ld;
    char trans;
    int is_a, cx;
} ozx_opv;

OZ_HD void ozx_get(const ozx_opv *s, int64_t o, int64_t l, double *re, double *im)
{
    int64_t idx = s->is_a ? oz_op_index(s->trans, o, l, s->ld) : oz_op_index(s->trans, l, o, s->ld);
    if (!s->cx) {
        *re = s->X[idx];
        *im = 0.0;
        return;
    }
    *re = s->X[2 * idx];
    *im = s->trans == 'C' ? -s->X[2 * idx + 1] : s->X[2 * idx + 1];
}

/* ---- step 1: statistics ------------------------------------------------------------- */

/* x = F 2^e exactly, F an integer below 2^53 in magnitude (finite x; F = 0 for zero): the
 * bits of the double, so no libm call. */
OZ_HD double ozx_split(double x, int *e)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    int ex = (int)((u >> 52) & 0x7ff);
    uint64_t mant = u & 0xfffffffffffffull;
    if (ex) {
        mant |= 1ull << 52;
        *e = ex - 1075;
    } else {
        *e = -1074; /* zero or subnormal */
    }
    double F = (double)mant;
    return (u >> 63) ? -F : F;
}

OZ_HD int ozx_ctz64(uint64_t v) /* v != 0 */
{
#ifdef __CUDA_ARCH__
    return __ffsll((long long)v) - 1;
#else
    return __builtin_ctzll(v);
#endif
}

/* Exponent of the lowest set bit of a finite nonzero x: x / 2^low is an odd integer. */
OZ_HD int ozx_low_bit(double x)
{
    int e;
    double F = ozx_split(x, &e);
    return e + ozx_ctz64((uint64_t)fabs(F));
}

/* One element's part of its row's statistics (amax: largest magnitude, low: lowest set bit,
 * INT_MAX while none, bad: Inf or NaN seen). Order-independent. */
OZ_HD void ozx_stat_element(double x, double *amax, int *low, int *bad)
{
    if (!oz_is_finite(x)) {
        *bad = 1;
        return;
    }
    if (x == 0.0)
        return;
    double ax = fabs(x);
    if (ax > *amax)
        *amax = ax;
    *low = oz_min_int(*low, ozx_low_bit(x));
}

/* Bits of the row's integers: |A'_il| < 2^top (0 for a zero row). */
OZ_HD int ozx_top_bits(double amax, int low)
{
    return amax == 0.0 ? 0 : oz_exponent(amax) + 1 - low;
}

/* ceil(log2(v)) for v >= 1 */
OZ_HD int ozx_ceil_log2(int64_t v)
{
    int b = 0;
    while (((int64_t)1 << b) < v)
        b++;
    return b;
}

/* Step 1 for outer index o: low (0 for a zero row), top, and whether it holds Inf/NaN. */
OZ_HD void ozx_outer_stats(const ozx_opv *s, int64_t o, int64_t k, int *low_out, int *top_out,
                           char *bad_out)
{
    double amax = 0.0;
    int low = 0x7fffffff, bad = 0;
    for (int64_t l = 0; l < k; l++) {
        double re, im;
        ozx_get(s, o, l, &re, &im);
        ozx_stat_element(re, &amax, &low, &bad);
        ozx_stat_element(im, &amax, &low, &bad);
    }
    *low_out = amax == 0.0 ? 0 : low;
    *top_out = ozx_top_bits(amax, low);
    *bad_out = (char)bad;
}

/* ---- step 3: residues ------------------------------------------------------------------- */

/* Symmetric residue of an integer-valued double |x| <= 2^53 modulo m < 2^22 (odd): in
 * [-(m-1)/2, (m-1)/2]. q is within one of x/m rounded, so x - q m is an integer below 1.5 m,
 * which the fma gives exactly; one correction then lands in the symmetric range. */
OZ_HD double ozx_mod(double x, double m, double inv)
{
    double q = rint(x * inv);
    double r = fma(-q, m, x);
    if (r > 0.5 * m)
        r -= m;
    else if (r < -0.5 * m)
        r += m;
    return r;
}

/* The integer x 2^sh (sh >= -low of x's row) as F' 2^s with F' an integer below 2^53 and
 * s >= 0, so that its residue modulo any m is (F' mod m)(2^s mod m) mod m (ozx_residue). */
OZ_HD double ozx_integer(double x, int sh, int *s)
{
    int e;
    double F = ozx_split(x, &e);
    int g = e + sh;
    if (g < 0) { /* F has at least -g trailing zero bits */
        F = ldexp(F, g);
        g = 0;
    }
    *s = g;
    return F;
}

/* Symmetric residue of F 2^s modulo m from ozx_integer; pow2[e] = 2^e mod m (symmetric):
 * the product of the two residues is below 2^43, exact. */
OZ_HD double ozx_residue(double F, int s, double m, double inv, const double *pow2)
{
    return ozx_mod(ozx_mod(F, m, inv) * pow2[s], m, inv);
}

/* (a + b) mod m for symmetric residues a, b: the Karatsuba sums and the k-block sums. */
OZ_HD double ozx_add_mod(double a, double b, double m)
{
    double r = a + b;
    if (r > 0.5 * m)
        r -= m;
    else if (r < -0.5 * m)
        r += m;
    return r;
}

/* One element's residues modulo m from its integers (ozx_integer: Fr 2^sr, Fi 2^si): re,
 * and for complex im and the Karatsuba sum re + im (im, sum unused for real). */
OZ_HD void ozx_residues(double Fr, int sr, double Fi, int si, int cx, double m, double inv,
                        const double *pow2, double *re, double *im, double *sum)
{
    double rr = ozx_residue(Fr, sr, m, inv, pow2);
    *re = rr;
    if (cx) {
        double ri = ozx_residue(Fi, si, m, inv, pow2);
        *im = ri;
        *sum = ozx_add_mod(rr, ri, m);
    }
}

/* The same on a complex family (T->cx2, modulus t): the residues of A+- = re +- i_m im,
 * each |.| < 2^21 and |i_m im| < 2^42, so the sums are exact. */
OZ_HD void ozx_residues_pm(double Fr, int sr, double Fi, int si, double m, double inv,
                           const double *pow2, double ip, double *plus, double *minus)
{
    double rr = ozx_residue(Fr, sr, m, inv, pow2), ri = ozx_residue(Fi, si, m, inv, pow2);
    *plus = ozx_mod(rr + ip * ri, m, inv);
    *minus = ozx_mod(rr - ip * ri, m, inv);
}

/* One entry of a k-block's products P+- on a complex family reduced modulo m into the parts
 * of X (below 2^22 times a constant below 2^21: exact), added to the earlier k-blocks'
 * residues in *rr, *ri unless first. */
OZ_HD void ozx_reduce_pm(double pp, double pm, int first, double m, double inv, double inv2,
                         double inv2ip, float *rr, float *ri)
{
    double vp = ozx_mod(pp, m, inv), vm = ozx_mod(pm, m, inv);
    double vr = ozx_mod((vp + vm) * inv2, m, inv), vi = ozx_mod((vp - vm) * inv2ip, m, inv);
    if (!first) {
        vr = ozx_add_mod(vr, *rr, m);
        vi = ozx_add_mod(vi, *ri, m);
    }
    *rr = (float)vr;
    *ri = (float)vi;
}

/* One entry of a k-block's exact integer products (p1; for complex p2, p3: Karatsuba, re =
 * P1 - P2, im = P3 - P1 - P2) reduced modulo m and added to the earlier k-blocks' residues
 * in *rr (*ri), unless first. Any k-blocking gives the same canonical residues. */
OZ_HD void ozx_reduce(double p1, double p2, double p3, int cx, int first, double m, double inv,
                      float *rr, float *ri)
{
    double v1 = ozx_mod(p1, m, inv), vr, vi = 0.0;
    if (!cx) {
        vr = v1;
    } else {
        double v2 = ozx_mod(p2, m, inv), v3 = ozx_mod(p3, m, inv);
        vr = ozx_add_mod(v1, -v2, m);
        vi = ozx_add_mod(v3, -ozx_add_mod(v1, v2, m), m);
    }
    if (!first) {
        vr = ozx_add_mod(vr, *rr, m);
        if (cx)
            vi = ozx_add_mod(vi, *ri, m);
    }
    *rr = (float)vr;
    if (cx)
        *ri = (float)vi;
}

/* ---- multi-word integers: magnitudes, 32-bit limbs, least significant first ---------- */


/* Multi-word add, subtract, negate and compare are ozaki2.h's (oz2_limbs_*: any L). */

/* Index of the highest set bit, -1 for zero. */
OZ_HD int ozx_limbs_msb(const uint32_t *a, int L)
{
    for (int i = L - 1; i >= 0; i--)
        if (a[i])
            return 32 * i + oz_bitlen64(a[i]) - 1;
    return -1;
}

/* Bits [lo, lo + n) of a, n <= 54; bits outside a read as zero (lo may be negative). */
OZ_HD uint64_t ozx_limb_at(const uint32_t *a, int L, int i)
{
    return (i >= 0 && i < L) ? a[i] : 0u;
}

OZ_HD uint64_t ozx_limbs_bits(const uint32_t *a, int L, int lo, int n)
{
    if (n <= 0)
        return 0;
    int i = lo >= 0 ? lo / 32 : -((-lo + 31) / 32); /* floor(lo / 32) */
    int sh = lo - 32 * i;                            /* 0..31 */
    uint64_t v = ozx_limb_at(a, L, i) >> sh;
    v |= ozx_limb_at(a, L, i + 1) << (32 - sh);
    if (sh)
        v |= ozx_limb_at(a, L, i + 2) << (64 - sh);
    return n >= 64 ? v : v & ((1ull << n) - 1u);
}

/* Is any bit below position p set? */
OZ_HD int ozx_limbs_any_below(const uint32_t *a, int p)
{
    if (p <= 0)
        return 0;
    for (int i = 0; i < (p >> 5); i++)
        if (a[i])
            return 1;
    return (p & 31) ? (a[p >> 5] & ((1u << (p & 31)) - 1u)) != 0 : 0;
}

/* ---- step 7: rounding ------------------------------------------------------------------- */

/* The magnitude a (L limbs, bit 0 of weight 2^base) rounded once to nearest-even as a
 * double: rounded at 2^r, r = max(msb - 52, -1074), so subnormal results are rounded once
 * too; ldexp of the rounded significand (at most 2^53) is exact or overflows to Inf, which is
 * what rounding to nearest gives there. *r_out: the rounding position relative to bit 0
 * (bits below it are the remainder), *up: 1 when rounded up. */
OZ_HD double ozx_round_mag(const uint32_t *a, int L, int base, int *r_out, int *up)
{
    int msb = ozx_limbs_msb(a, L);
    *up = 0;
    if (msb < 0) {
        *r_out = 0;
        return 0.0;
    }
    int r = msb - 52;
    if (base + r < -1074)
        r = -1074 - base;
    uint64_t q = ozx_limbs_bits(a, L, r, msb - r + 1 > 0 ? msb - r + 1 : 0);
    if (r > 0) {
        int half = (int)ozx_limbs_bits(a, L, r - 1, 1);
        int sticky = ozx_limbs_any_below(a, r - 1);
        if (half && (sticky || (q & 1u))) {
            q++;
            *up = 1;
        }
    }
    *r_out = r;
    return ldexp((double)q, base + r);
}

/* Correctly rounded double of (neg ? -1 : 1) a 2^base. */
OZ_HD double ozx_round(const uint32_t *a, int L, int base, int neg)
{
    int r, up;
    double v = ozx_round_mag(a, L, base, &r, &up);
    return neg ? -v : v;
}

/* Double-double of (neg ? -1 : 1) a 2^base: hi = RN(X), lo = RN(X - hi). The remainder
 * X - hi is the bits of a below the rounding position (less 2^r when rounded up), exact in
 * the limbs. With p = base + r the exponent of hi's last bit, |X - hi| <= 2^(p - 1) and
 * 2^p <= 2^-52 |X| (X has its leading bit 52 places above p), so for a normal lo
 *   |X - hi - lo| <= 2^-53 |X - hi| <= 2^-53 2^-1 2^-52 |X| = 2^-106 |X|,
 * and where lo is subnormal (or hi is) at most 2^-1075. hi overflows to +-Inf only where X
 * rounds there; lo is then 0. a is consumed (it holds the remainder afterwards). */
OZ_HD void ozx_round_dd(uint32_t *a, int L, int base, int neg, double *hi, double *lo)
{
    int r, up;
    double h = ozx_round_mag(a, L, base, &r, &up);
    double l = 0.0; /* +0 when hi is exact */
    if (r > 0 && oz_is_finite(h)) {
        for (int pass = 0; pass < 1 + up; pass++) {
            if (pass) /* rounded up: the remainder is rest - 2^r, of magnitude 2^r - rest */
                oz2_limbs_neg(a, L);
            for (int i = 0; i < L; i++) { /* keep the bits below r (modulo 2^r) */
                int lo_bit = 32 * i;
                if (lo_bit >= r)
                    a[i] = 0;
                else if (lo_bit + 32 > r)
                    a[i] &= (1u << (r - lo_bit)) - 1u;
            }
        }
        if (ozx_limbs_msb(a, L) >= 0) {
            int r2, up2;
            l = ozx_round_mag(a, L, base, &r2, &up2);
            if (neg != up) /* a tiny remainder that rounds to zero keeps its sign, as RN does */
                l = -l;
        }
    }
    *hi = neg ? -h : h;
    *lo = l;
}

/* ---- step 5: CRT ------------------------------------------------------------------------ */

/* X in (-M/2, M/2) with X = r_t (mod m_t) for symmetric residues r_t: its magnitude into
 * mag (L = T->limbs limbs), returns 1 when X < 0. L is a parameter so that a caller passing
 * a constant gets every limb loop unrolled. */
OZ_HD int ozx_crt(const ozx_table *T, const float *r, int64_t stride, uint32_t *mag, const int L)
{
    for (int i = 0; i < L; i++)
        mag[i] = 0;
    for (int t = 0; t < T->n; t++) {
        double v = r[t * stride]; /* |residue| < 2^21: exact in float */
        uint32_t u = (uint32_t)(v < 0 ? v + T->m[t] : v);
        uint64_t carry = 0;
        for (int i = 0; i < L; i++) {
            uint64_t p = (uint64_t)T->w[t][i] * u + mag[i] + carry;
            mag[i] = (uint32_t)p;
            carry = p >> 32;
        }
    }
    /* quotient estimate: mag / M < 64 2^22, off by at most one near half-integers */
    double ad = 0.0; /* mag 2^-Mshift: M may lie beyond the double range */
    for (int i = L - 1; i >= 0; i--)
        ad += (double)mag[i] * T->scale[i];
    uint32_t q = (uint32_t)floor(ad / T->Md + 0.5);
    oz2_limbs_sub_mul(mag, T->M, q, L);
    int neg = (mag[L - 1] >> 31) != 0;
    if (neg) {
        oz2_limbs_neg(mag, L);
        if (oz2_limbs_cmp(mag, T->half, L) > 0) { /* X < -M/2: X + M */
            oz2_limbs_neg(mag, L);
            oz2_limbs_add(mag, T->M, L);
            neg = 0;
        }
    } else if (oz2_limbs_cmp(mag, T->half, L) > 0) { /* X > M/2: X - M, negative */
        oz2_limbs_sub_mul(mag, T->M, 1u, L);
        oz2_limbs_neg(mag, L);
        neg = 1;
    }
    return neg;
}

/* ---- step 6: exact dot products in a long accumulator ---------------------------------- */

typedef struct {
    int64_t d[OZX_ACC_LIMBS]; /* digit i weighs 2^(32 i + OZX_ACC_BASE); carries deferred */
    int64_t terms;            /* products since the last carry propagation */
    int nan, pinf, ninf;      /* IEEE special cases seen */
} ozx_acc;

OZ_HD void ozx_acc_init(ozx_acc *A)
{
    for (int i = 0; i < OZX_ACC_LIMBS; i++)
        A->d[i] = 0;
    A->terms = 0;
    A->nan = A->pinf = A->ninf = 0;
}

/* Propagate carries: every digit back to [0, 2^32), the top one keeps the sign. */
OZ_HD void ozx_acc_carry(ozx_acc *A)
{
    int64_t c = 0;
    for (int i = 0; i < OZX_ACC_LIMBS - 1; i++) {
        int64_t v = A->d[i] + c;
        A->d[i] = v & 0xffffffffLL;
        c = (v - A->d[i]) / 4294967296LL; /* exact: v - low is a multiple of 2^32 */
    }
    A->d[OZX_ACC_LIMBS - 1] += c;
    A->terms = 0;
}

/* acc += a * b exactly (IEEE rules for Inf and NaN operands, as a native dot product gives
 * them in any order: NaN, Inf - Inf and 0 * Inf give NaN). */
OZ_HD void ozx_acc_add(ozx_acc *A, double a, double b)
{
    if (!oz_is_finite(a) || !oz_is_finite(b)) {
        double p = a * b; /* Inf, NaN, or NaN for 0 * Inf */
        if (p != p)
            A->nan = 1;
        else if (p > 0)
            A->pinf = 1;
        else
            A->ninf = 1;
        return;
    }
    if (a == 0.0 || b == 0.0)
        return;
    int ea, eb;
    double fa = ozx_split(a, &ea), fb = ozx_split(b, &eb);
    uint64_t ia = (uint64_t)fabs(fa), ib = (uint64_t)fabs(fb);
    int neg = (fa < 0) != (fb < 0);
    /* |a b| = ia ib 2^(ea + eb): the 106-bit product from 32-bit halves */
    uint64_t a0 = ia & 0xffffffffu, a1 = ia >> 32, b0 = ib & 0xffffffffu, b1 = ib >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    uint32_t w[5];
    w[0] = (uint32_t)p00;
    w[1] = (uint32_t)mid;
    uint64_t hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    w[2] = (uint32_t)hi;
    w[3] = (uint32_t)(hi >> 32);
    w[4] = 0;
    int off = ea + eb - OZX_ACC_BASE; /* >= 0: ea, eb >= -1074 */
    int limb = off >> 5, sh = off & 31;
    if (sh) {
        for (int i = 4; i > 0; i--)
            w[i] = (w[i] << sh) | (w[i - 1] >> (32 - sh));
        w[0] <<= sh;
    }
    for (int i = 0; i < 5 && limb + i < OZX_ACC_LIMBS; i++)
        A->d[limb + i] += neg ? -(int64_t)w[i] : (int64_t)w[i];
    if (++A->terms >= OZX_ACC_FLUSH)
        ozx_acc_carry(A);
}

/* The accumulated value, normalised: its magnitude into mag (OZX_ACC_LIMBS limbs, weight of
 * bit 0 2^OZX_ACC_BASE); returns 1 when negative. */
OZ_HD int ozx_acc_result(ozx_acc *A, uint32_t *mag)
{
    ozx_acc_carry(A);
    int neg = A->d[OZX_ACC_LIMBS - 1] < 0;
    for (int i = 0; i < OZX_ACC_LIMBS; i++)
        mag[i] = (uint32_t)A->d[i];
    if (neg)
        oz2_limbs_neg(mag, OZX_ACC_LIMBS);
    return neg;
}

/* The IEEE result when a special value took part (NaN, Inf - Inf: NaN; else +-Inf); 0 when
 * none did (*special = 0). */
OZ_HD double ozx_acc_special(const ozx_acc *A, int *special)
{
    *special = A->nan || A->pinf || A->ninf;
    if (A->nan || (A->pinf && A->ninf))
        return NAN;
    if (A->pinf)
        return INFINITY;
    return A->ninf ? -INFINITY : 0.0;
}

/* ---- one entry of C: CRT or direct, the rounding, the update ------------------------------ */

/* X from its residues (stride apart) rounded once: to *v, or with dd to (*v, *vl). */
OZ_HD void ozx_crt_round(const ozx_table *T, const float *r, int64_t stride, int base, int dd,
                         double *v, double *vl, const int L)
{
    uint32_t mag[OZX_LIMBS];
    int neg = ozx_crt(T, r, stride, mag, L);
    if (dd)
        ozx_round_dd(mag, L, base, neg, v, vl);
    else
        *v = ozx_round(mag, L, base, neg);
}

/* Entry (i, j) by an exact dot product (direct rows or columns): rounded once to v, or with
 * dd the pair (v, vl); per part for complex. */
OZ_HD void ozx_direct_entry(const ozx_opv *a, const ozx_opv *b, int64_t i, int64_t j, int64_t k,
                            int dd, double *v, double *vl)
{
    ozx_acc acc[2];
    uint32_t mag[OZX_ACC_LIMBS];
    ozx_acc_init(&acc[0]);
    ozx_acc_init(&acc[1]);
    for (int64_t l = 0; l < k; l++) {
        double ar, ai, br, bi;
        ozx_get(a, i, l, &ar, &ai);
        ozx_get(b, j, l, &br, &bi);
        ozx_acc_add(&acc[0], ar, br);
        if (a->cx) {
            ozx_acc_add(&acc[0], -ai, bi);
            ozx_acc_add(&acc[1], ar, bi);
            ozx_acc_add(&acc[1], ai, br);
        }
    }
    for (int p = 0; p < (a->cx ? 2 : 1); p++) {
        int special;
        v[p] = ozx_acc_special(&acc[p], &special);
        vl[p] = 0.0;
        if (special)
            continue;
        int neg = ozx_acc_result(&acc[p], mag);
        if (dd)
            ozx_round_dd(mag, OZX_ACC_LIMBS, OZX_ACC_BASE, neg, &v[p], &vl[p]);
        else
            v[p] = ozx_round(mag, OZX_ACC_LIMBS, OZX_ACC_BASE, neg);
    }
}

/* How the rounded entries reach C: with lo (ldlo) the double-double pair as it is; plain
 * (alpha = 1, beta = 0) RN(p) itself, since the complex update (1 + 0i)(x + iy) would turn
 * a signed zero x = -0 into +0 when y < 0; otherwise alpha RN(p) + beta C as BLAS does. */
typedef struct ozx_update {
    double alpha[2], beta[2];
    int beta_zero, plain, cx;
} ozx_update;

OZ_HD void ozx_store(const ozx_update *u, double *C, int64_t ldc, double *lo, int64_t ldlo,
                     int64_t i, int64_t j, const double *v, const double *vl)
{
    const int w = u->cx ? 2 : 1;
    if (lo || u->plain) {
        for (int p = 0; p < w; p++) {
            C[w * (i + j * ldc) + p] = v[p];
            if (lo)
                lo[w * (i + j * ldlo) + p] = vl[p];
        }
        return;
    }
    oz_update_element(C + w * (i + j * ldc), u->cx, v[0], v[1], u->alpha, u->beta, u->beta_zero);
}

#endif
