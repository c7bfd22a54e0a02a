/* Ozaki scheme II, step by step, as element functions shared by the CPU and CUDA executors.
 *
 * For C = op(A) op(B) (m x k times k x n):
 *   1. stats:    per row i of op(A): E_i = exponent of max |a_il|, nonfinite flag, smallest
 *                exponent of a nonzero element; the same per column j of op(B).
 *   2. bits:     alpha_i, beta_j = bits kept below 2^(alpha_i+1) for row i / column j, chosen
 *                so that 2 * max (|A'||B'|)_ij < M = prod of the moduli:
 *                  fast:      Cauchy-Schwarz, ||A'_i||_2 ||B'_j||_2 < 2^(alpha_i+beta_j+...)
 *                  accurate:  one small-integer product G = UA^T UB of rounded-up |A|, |B|,
 *                             or Cauchy-Schwarz where that is smaller, entry by entry.
 *   3. scale:    A'_il = trunc(a_il * 2^(alpha_i - E_i)) (exact power-of-two scaling).
 *   4. residues: A'_il mod m_t, symmetric, in [-128, 127], for each modulus t.
 *   5. products: C_t = A_t^T B_t, exact integer GEMMs (executor-specific), reduced mod m_t.
 *   6. CRT:      X_ij = the unique integer in (-M/2, M/2) with X = C_t mod m_t for all t,
 *                exact multi-word arithmetic, rounded once to double and scaled by
 *                2^-(alpha_i - E_i + beta_j - F_j).
 * Zero rows, exponent spans the scaling cannot hold and Inf/NaN are detected in step 1/2;
 * the driver then computes the call natively and reports why.
 */
#ifndef OZ_OZAKI2_H
#define OZ_OZAKI2_H

#include <limits.h>

#include "oz_defs.h"

#define OZ2_MAX_MODULI 49      /* the longest list (INT8's: GEMMul8's 20, then 29 primes) */
#define OZ2_MAX_MODULI_INT8 49
#define OZ2_MAX_MODULI_FP4 28
/* The complex set (INT8): complex products in two integer products per modulus instead of
 * Karatsuba's three. A modulus m with an i_m, i_m^2 = -1 (mod m), maps a complex residue to
 * two real ones, A+- = A_r +- i_m A_i (mod m); P+- = A+- B+- (mod m) are ordinary products and
 *   C_r = (P+ + P-) / 2,  C_i = (P+ - P-) / (2 i_m)   (mod m).
 * So m must be odd (2 invertible; mod 2, A+ = A- and the parts are lost) and every prime
 * factor of m must be 1 (mod 4) (-1 is a square mod p^e exactly then). With symmetric
 * residues in INT8, m <= 255: 241, 233, 229, 221 = 13 17, 205 = 5 41, 197, 193, 181, 173,
 * 157, 149, 137, 113, 109, 101, 97, 89, 73, 61, 53, 37, 29, taken largest first and pairwise
 * coprime (205 and 37 or 185 = 5 37 and 41 give the same product): every prime 1 (mod 4)
 * below 256 once, 22 moduli, M < 2^153 (budget 151 bits: the real set's 19 moduli have 146,
 * its 20 154). The uniqueness condition is the Karatsuba path's, per part: 2 max (|A'||B'|)_ij < M with |A'|
 * the modulus |re| + |im| bound (accurate scaling's UA), since |C'_r|, |C'_i| <= (|A'||B'|).
 * A count needing more bits than 150 keeps Karatsuba on the real set (oz2_table_call). FP4
 * does not take it: its moduli are at most 113 and the ones 1 (mod 4) with base-13 limbs
 * (13, 113, 109, 101, 97, 89, 85, 73, ...) reach fewer than 80 bits, short of DGEMM level. */
#define OZ2_MAX_MODULI_CX 22
/* Automatic precision's first count on each engine, and the counts the policy and
 * `ozblas calibrate` plan with (ozblas_policy_planning_moduli, ozblas_ozaki2_engine_auto_hint):
 * the count most calls take (benchmarks/accuracy.py --engines: INT8 16 to 18, FP4 22 to 24
 * for phi <= 2). */
#define OZ2_PLAN_MODULI_INT8 16
#define OZ2_PLAN_MODULI_FP4 22
#define OZ2_LIMBS 12         /* 32-bit limbs: sum_t u_t W_t < 49 * 256 * M < 2^356 (INT8),
                                 28 * 113 * M < 2^171 (FP4) */
#define OZ2_MAX_BITS 320     /* cap on alpha_i, beta_j: above what any budget gives (at most
                                 budget / 2 + 42 <= 212), so it binds only for zero rows;
                                 step 4 is exact at any size */
#define OZ2_ZERO_BITS OZ2_MAX_BITS
#define OZ2_MAX_K (1LL << 28) /* fixed-point sums of squares stay below 2^64 */

/* Product engines (ozblas_engine's values): the table's moduli and limbs depend on them. */
#define OZ2_ENGINE_INT8 0
#define OZ2_ENGINE_FP4 1

typedef struct {
    int n;                                   /* moduli count */
    int engine;                              /* OZ2_ENGINE_INT8 or OZ2_ENGINE_FP4 */
    int8_t digits[OZ2_MAX_MODULI];           /* FP4: base-13 limbs per residue (fp4.h); 0 on INT8 */
    int cx2;                                 /* 1: the complex set (two products per modulus) */
    int8_t ip[OZ2_MAX_MODULI];               /* cx2: i_p, i_p^2 = -1 (mod m_t), symmetric */
    int8_t inv2[OZ2_MAX_MODULI];             /* cx2: 2^-1 (mod m_t), symmetric */
    int8_t inv2ip[OZ2_MAX_MODULI];           /* cx2: (2 i_p)^-1 (mod m_t), symmetric */
    int products;                            /* engine products per residue product, summed
                                                over the moduli (INT8: n; FP4: sum digits^2) */
    int budget;                              /* bitlen(M) - 2: 2^budget <= M/2 */
    int limbs;                               /* limbs used: sum_t u_t W_t and its sign fit */
    double m[OZ2_MAX_MODULI];                /* moduli */
    uint16_t mi[OZ2_MAX_MODULI];             /* as integers (16 bits: a kernel parameter) */
    double inv[OZ2_MAX_MODULI];              /* fl(1 / m_t) */
    uint32_t w[OZ2_MAX_MODULI][OZ2_LIMBS];   /* CRT weights (M/m_t) * ((M/m_t)^-1 mod m_t) */
    uint32_t M[OZ2_LIMBS];                   /* product of the moduli */
    uint32_t half[OZ2_LIMBS];                /* floor(M / 2) (M is even but for the complex
                                                set, whose results stay below 2^budget <=
                                                (M - 1) / 2: the ranges agree there) */
    double Md;                               /* M rounded to double, for quotient estimates */
} oz2_table;

/* ---- step 1: statistics ------------------------------------------------------------- */

/* One element's part of its row's statistics: largest magnitude, smallest exponent of a
 * nonzero finite element, whether anything is Inf or NaN. All order-independent. */
OZ_HD void oz2_stat_element(double x, double *amax, int *emin, int *bad)
{
    if (!oz_is_finite(x))
        *bad = 1;
    double ax = fabs(x);
    if (ax > *amax)
        *amax = ax;
    if (x != 0.0 && oz_is_finite(x))
        *emin = oz_min_int(*emin, oz_exponent(x));
}

/* Automatic precision's statistic: the smallest exponent of the lowest set bit over a row's
 * nonzero finite elements (INT_MAX: none), so that every element is a multiple of 2^lsb.
 * Order-independent (a min). */
OZ_HD void oz2_lsb_element(double x, int *lsb)
{
    if (x == 0.0 || !oz_is_finite(x))
        return;
    int e;
    const uint64_t M = (uint64_t)ldexp(frexp(fabs(x), &e), 53); /* x = M 2^(e - 53) */
    *lsb = oz_min_int(*lsb, e - 53 + oz_bitlen64(M & (~M + 1)) - 1);
}

/* One element's term of the fixed-point sum of squares of a row, relative to 2^E:
 * an upper bound of (|x| 2^-E)^2 * 2^32, as an integer. Summing integers makes the row
 * sum independent of order, so every executor and thread count gets the same bits. */
OZ_HD uint64_t oz2_sq_term(double x, int E)
{
    if (x == 0.0)
        return 0;
    double y = ldexp(fabs(x), -E);
    return (uint64_t)ceil(ldexp(y * y, 32)) + 1;
}

/* ---- step 2: bits kept ---------------------------------------------------------------- */

/* Half the exponent of the Cauchy-Schwarz bound: S = sum of sq_term over a row (S >= 2^32
 * when the row is nonzero), so ||row||_2 < 2^(E - 16 + oz2_cs_half(S)). A zero row gets a
 * value low enough never to bind. */
#define OZ2_ZERO_CS (-4096)
OZ_HD int oz2_cs_half(uint64_t S)
{
    return S ? (oz_bitlen64(S) + 1) / 2 : OZ2_ZERO_CS;
}

/* Fast scaling: keeping alpha bits gives ||A'_i||_2 < 2^(alpha - 16 + cs_half) <=
 * 2^half_budget. */
OZ_HD int oz2_bits_fast(int half_budget, uint64_t S)
{
    if (S == 0)
        return OZ2_ZERO_BITS;
    return oz_min_int(half_budget + 16 - oz2_cs_half(S), OZ2_MAX_BITS);
}

/* Accurate scaling: UA_il = ceil(|a_il| 2^(ushift - E_i)) <= 64 (real: ushift 5; complex:
 * ceil of |re| and |im| separately, ushift 4), the same for B, G = UA^T UB exactly, then
 * (|A'||B'|)_ij < 2^(alpha_i + beta_j - 2 ushift + bitlen(G_ij)). */
OZ_HD int oz2_ubound(double x, int s)
{
    return (int)ceil(ldexp(fabs(x), s));
}

/* Entry (i, j) of the accurate bound: (|A'||B'|)_ij < 2^(alpha_i + beta_j + h_ij), h_ij the
 * smaller of the product bound's exponent and the Cauchy-Schwarz bound's (both hold). The
 * product bound is tight for rows of similar magnitudes; Cauchy-Schwarz, kept in 32-bit
 * fixed point, wins for rows spanning many binades, where every small element still costs
 * the product bound one 6-bit unit. */
OZ_HD int oz2_bound_exp(uint64_t G, int ushift, int cs_i, int cs_j)
{
    return oz_min_int(oz_bitlen64(G) - 2 * ushift, cs_i + cs_j - 32);
}

/* What entry (i, j) leaves to one side once the other keeps `other` bits. Accurate scaling
 * starts from the fast scaling's beta_j, gives each row alpha_i = min_j of this (never fewer
 * bits than fast scaling: h_ij is at most the Cauchy-Schwarz exponent), then gives each
 * column what the rows left, beta_j = min_i of this; both capped at OZ2_MAX_BITS. */
OZ_HD int oz2_bits_accurate_term(int budget, int h, int other)
{
    return budget - h - other;
}

/* Would a nonzero element of exponent emin be lost entirely by keeping `bits` below 2^E? */
OZ_HD int oz2_loses_element(int E, int emin, int bits)
{
    return emin < E - bits;
}

/* ---- automatic precision ------------------------------------------------------------------
 * With the moduli count left to ozblas, a call takes the fewest moduli whose error bound for
 * these inputs is DGEMM-level: for every (i, j), the truncation error of the scaling is at
 * most OZ2_AUTO_TARGET (|A||B|)_ij. Truncating a_il to a multiple of s_i = 2^(E_i - alpha_i)
 * errs by less than s_i, and |A'| <= |A|, so
 *   |C~ - C|_ij <= c (s_i sum_l |b_lj| + t_j sum_l |a_il|)     (c = 1 real, 2 complex)
 * which is divided by a lower bound of (|A||B|)_ij: an exact small-integer product of
 * rounded-down magnitudes at one or more levels. Where that lower bound is 0 the exponent
 * span still bounds the ratio: |a_il| >= 2^emin_i, so
 * |delta a_il| <= 2^(E_i - emin_i - alpha_i) |a_il|. The bound falls as the moduli count
 * grows, so the fewest moduli meeting it are found by a walk from the usual count
 * (oz_auto_count); a complex call on INT8 walks the complex set's own counts, then
 * Karatsuba's (ozaki2_table.c oz2_auto_table: the bound is this one for each table's bits,
 * c = 2). Both executors compute these terms with the same element functions. */
#define OZ2_AUTO_TARGET 0x1p-53 /* u: the unit roundoff of double */
#define OZ2_LSHIFT 6            /* level 0's magnitudes floor(|x| 2^(6 - E)) <= 127 */
#define OZ2_LSHIFT2 11          /* level 1: min(127, floor(|x| 2^(11 - E))) (measured: 11
                                   takes phi = 1 to one modulus fewer than 13, 64 x 1024) */
#define OZ2_LSTEP 7             /* each further level 7 bits deeper */
#define OZ2_MAX_LEVELS 6        /* at most this many lower-bound products (shift 39) */

/* One element's term of the fixed-point 1-norm of its row: an upper bound of
 * |x| 2^(32 - E) as an integer (the + 1 covers an underflowing ldexp). Integer sums make
 * the norm independent of summation order. A row sums below 2^(33 + 28) < 2^64. */
OZ_HD uint64_t oz2_abs_term(double x, int E)
{
    if (x == 0.0)
        return 0;
    return (uint64_t)ceil(ldexp(fabs(x), 32 - E)) + 1;
}

/* The shift of lower-bound level p: 6, 11, 18, 25, ... bits below each row's maximum. */
OZ_HD int oz2_level_shift(int p)
{
    return p == 0 ? OZ2_LSHIFT : OZ2_LSHIFT2 + OZ2_LSTEP * (p - 1);
}

/* Rounded-down magnitude for the lower bounds of |A||B|: min(127, floor(|x| 2^(shift - E))),
 * shift oz2_level_shift(p). For a complex element pass the larger of |re| and |im| (at most
 * its modulus). Clamping keeps it a lower bound, so each level's exact small-integer
 * product P_p gives (|A||B|)_ij >= 2^(E + F - 2 shift_p) P_p,ij: level 0 resolves the
 * elements near the maxima, deeper levels the smaller ones (clamping the large). */
OZ_HD int oz2_lbound(double ax, int E, int shift)
{
    double v = floor(ldexp(ax, shift - E));
    return v < 127.0 ? (int)v : 127;
}

/* The lower bound so far (G, in the units 2^(E + F - 12) of level 0) with level p's
 * product P added: the larger of the two (exact: P < 2^53, scaled by a power of two). */
OZ_HD double oz2_lower_add(double G, double P, int p)
{
    double g = ldexp(P, -2 * (oz2_level_shift(p) - OZ2_LSHIFT));
    return G > g ? G : g;
}

/* Whether level p resolves every nonzero element of a row (|x| >= 2^emin >= 2^(E - shift),
 * so its magnitude is at least 1): then a zero lower bound there is no rounding. */
OZ_HD int oz2_level_resolves(int E, int emin, int p)
{
    return emin == INT_MAX || E - emin <= oz2_level_shift(p);
}

/* Whether entry (i, j) asks for level p + 1 after level p (G: the lower bound so far). After
 * level 0: where G is below 2^10 (no term resolved to more than a few bits: a rounding
 * loss of up to 4x, which at phi = 1 costs a modulus); after deeper levels: where G is
 * still 0 although (|A||B|)_ij may be positive, since the ratio then falls back to the
 * exponent spans (tens of bits more per side at phi >= 4). Each level is one small product
 * against the moduli it saves; measured on 64 x 1024 x 64 (docs/accuracy.md). An entry known to be 0
 * (every element resolved, G = 0) asks for nothing. */
#define OZ2_LEVEL1_BELOW 1024.0
OZ_HD int oz2_lower_unresolved(double G, uint64_t NA, uint64_t NB, int res_a, int res_b, int p)
{
    if (NA == 0 || NB == 0 || (G == 0.0 && res_a && res_b))
        return 0;
    return p == 0 ? G < OZ2_LEVEL1_BELOW : G == 0.0 && !(res_a && res_b);
}

/* The final lower bound of an entry: where every nonzero element of its row and column is
 * resolved and the products still give 0, no l has a_il b_lj != 0, so (|A||B|)_ij = 0 and
 * its truncation error is exactly 0: marked +inf, which makes the bound ratio 0. */
OZ_HD double oz2_lower_final(double G, int res_a, int res_b)
{
    return G == 0.0 && res_a && res_b ? INFINITY : G;
}

/* The per-row (per-column) factors of the bound ratio, computed once per row: *unit =
 * 2^-alpha and *span = 2^(E - emin - alpha) (0 for a zero row, emin INT_MAX). Both are 0
 * where the row's truncation is exact: every element a multiple of 2^lsb (oz2_lsb_element)
 * with lsb >= E - alpha, the unit of the kept bits (integer or float32 data, and phi = 0
 * inputs drawn on a 2^-53 grid, need no bound on a remainder they do not have). */
OZ_HD void oz2_ratio_terms(int alpha, int E, int emin, int lsb, uint64_t N, double *unit,
                           double *span)
{
    const int exact = lsb != INT_MAX && lsb >= E - alpha;
    *unit = exact ? 0.0 : ldexp(1.0, -alpha);
    *span = N && !exact ? ldexp(1.0, E - emin - alpha) : 0.0;
}

/* Bound of |C~ - C|_ij / (|A||B|)_ij for row i of op(A) and column j of op(B) from their
 * oz2_ratio_terms (ua, sa; ub, sb), fixed-point 1-norms NA, NB and the exact lower-bound
 * product G:
 *   (|A||B|)_ij >= 2^(E + F - 12) G,  sum |a_il| <= 2^(E - 32) NA,  sum |b_lj| <= 2^(F - 32) NB.
 * Multiplying by the powers of two rounds exactly as ldexp would, so precomputing them per
 * row changes no bit. */
OZ_HD double oz2_bound_ratio(int cx, double ua, double sa, double ub, double sb, uint64_t NA,
                             uint64_t NB, double G)
{
    if (NA == 0 || NB == 0)
        return 0.0; /* a zero row or column: its products are exact zeros */
    double c = cx ? 2.0 : 1.0;
    double span = c * (sa + sb);
    if (G == 0.0)
        return span;
    double r = c * ldexp((double)NB * ua + (double)NA * ub, -20) / G;
    return r < span ? r : span;
}

/* ---- the normwise target (ozblas_options.target = OZBLAS_TARGET_NORMWISE) ---------------
 * The LAPACK layer's Householder products (QR, ormqr, the two-stage reductions and their
 * back-transformations) need, per column j of C = op(A) op(B), the normwise accuracy
 *     ||C~(:, j) - C(:, j)||_2 <= u ||op(A)||_F ||op(B)(:, j)||_2,
 * not the entrywise one: every backward-error proof of a Householder application (Higham,
 * "Accuracy and Stability of Numerical Algorithms", Lemmas 19.2-19.3, and section 19.5 for the
 * blocked WY form) takes norms of the products' errors, column by column. Sufficient per
 * entry (summing the squares over i: sum_i ||a_i||_2^2 = ||op(A)||_F^2):
 *     |C~ - C|_ij <= u ||a_i||_2 ||b_j||_2       (a_i: row i of op(A), b_j: column j of op(B)) (*)
 * The truncation bound of automatic precision above is
 *     |C~ - C|_ij <= c (s_i ||b_j||_1 + t_j ||a_i||_1),  s_i = 2^E_i ua_i, t_j = 2^F_j ub_j,
 * (ua = 2^-alpha, 0 for a row truncated exactly), with ||a_i||_2 >= max_l |a_il| >= 2^E_i (E:
 * ilogb of the row's largest part; a complex element's modulus is at least its larger part)
 * and ||b_j||_1 <= min(2^(F_j - 32) NB_j, sqrt(K) ||b_j||_2) (the fixed-point 1-norm, or
 * Cauchy-Schwarz over the K = k real or 2k complex parts the 1-norm sums). So the ratio to
 * (*)'s right side is at most
 *     r_ij = c (ua_i min(2^-32 NB_j, sqrt K) + ub_j min(2^-32 NA_i, sqrt K)),
 * with sqrt K rounded up (oz2_norm_rootk). A count with max_ij r_ij <= OZ2_AUTO_TARGET meets
 * (*). The probe computes no lower-bound product and refines nothing: r_ij does not depend on
 * how small (|A||B|)_ij is, which is what costs the entrywise target 17 to 45 moduli on
 * eigenvectors whose entries span hundreds of binades; on well-scaled operands it asks about
 * a modulus more than the entrywise bound at most (its denominator, 2^(E + F), is below
 * ||a_i||_2 ||b_j||_2 by the rows' spreads). The CRT's final rounding (u |C~|, doubled for
 * complex) adds to (*) as to the entrywise bound; the report's bound is max_ij r_ij so
 * stated (oz2_report_bound), relative to ||a_i||_2 ||b_j||_2.
 * How the drivers use (*): a block reflector's application H C = C - V (T (V^H C)) then has
 * ||fl(H c_j) - H c_j||_2 <= c' u ||c_j||_2 per column (||V||_F and ||T||_2 are O(1) for
 * Householder vectors with a unit first element and tau in [0, 2]), i.e. (H + dH_j) c_j with
 * ||dH_j||_2 <= c' u: the backward error of LAPACK's own larfb. So the eigensolvers' residual
 * and orthogonality bounds (n u times a modest constant) hold as LAPACK's do, and stage 1's
 * two-sided update A22 - V Y^H - Y V^H, a sum of such products, has ||dA22||_F <= c'' u
 * ||A22||_F, the normwise backward error of sytrd. */
OZ_HD double oz2_norm_rootk(int cx, int64_t k)
{
    return sqrt((double)(cx ? 2 * k : k)) * (1.0 + 0x1p-52);
}

OZ_HD double oz2_norm_ratio(int cx, double rootk, double ua, double ub, uint64_t NA, uint64_t NB)
{
    if (NA == 0 || NB == 0)
        return 0.0; /* a zero row or column: its products are exact zeros */
    double fa = fmin(ldexp((double)NA, -32), rootk), fb = fmin(ldexp((double)NB, -32), rootk);
    return (cx ? 2.0 : 1.0) * (ua * fb + ub * fa);
}

/* ---- automatic precision's refinement ---------------------------------------------------
 * The bound above charges every element its row's whole truncation unit and divides by a
 * lower bound of (|A||B|)_ij built from saturated 7-bit magnitudes; at phi >= 2 both lose
 * most where a few large elements carry an entry, and a count fails on a few entries
 * only. Where at a count at most 1/OZ2_REFINE_SHARE of the entries exceed the target, each
 * of them is bounded again from the OZ2_TOP largest elements of its row of op(A), T_A(i),
 * and of its column of op(B), T_B(j) (oz2_top_*: by the larger part's magnitude, ties to
 * the smaller index; zeros are never taken), in the units 2^(E_i + F_j):
 *   |C~ - C|_ij <= sum_{l in T_B(j)} |da_il| |b_lj| + c s_i (sum_{l not in T_B(j)} |b_lj|)
 *                + sum_{l in T_A(i)} |a_il| |db_lj| + c t_j (sum_{l not in T_A(i)} |a_il|)
 * with the exact remainders da = a - trunc(a / s_i) s_i of this count's bits (complex: the
 * sums of the parts' magnitudes, |x| <= |re| + |im|), the rests in the 1-norms' fixed
 * point (N1 less the top elements' oz2_abs_term, exact integers), and
 *   (|A||B|)_ij >= max(2^-12 G_ij, sum_{T_B(j)} lo(a) lo(b), sum_{T_A(i)} lo(a) lo(b)),
 * lo(x) = max(|re|, |im|) <= |x|. The refined ratio replaces the entry's where smaller.
 * The sums are taken in the lists' order in double and widened by 2^-40 (16 terms err by
 * far less); an element within 2^-900 of underflow after scaling counts as 2^-899 in the
 * upper sums and 0 in the lower ones. Measured (NumPy prototype of this rule over the
 * reference's bits, 32 x 512, 64 x 1024 and 128 x 1024, seeds 7, 8): the count of the ideal
 * bound (exact |dA||B| + |A'||dB| over the exact |A||B|) in every cell; 16 of the largest
 * were needed at phi = 8 (8: one modulus more there), and at the count the rule reaches at
 * most 7% of the entries exceed before it (1/16: the share). */
#define OZ2_TOP 16
#define OZ2_REFINE_SHARE 16
#define OZ2_TINY 0x1p-900

/* Selection key of an element: the larger part's magnitude. */
OZ_HD double oz2_top_key(double re, double im)
{
    return fmax(fabs(re), fabs(im));
}

/* Insert element l with key x into a row's list of its largest (keys descending, ties in
 * index order; *cnt of at most OZ2_TOP taken). Scanning l in increasing order keeps ties
 * in index order. Zeros are not taken. */
OZ_HD void oz2_top_insert(double *key, int64_t *idx, int *cnt, double x, int64_t l)
{
    if (x == 0.0 || (*cnt == OZ2_TOP && x <= key[OZ2_TOP - 1]))
        return;
    int p = *cnt < OZ2_TOP ? (*cnt)++ : OZ2_TOP - 1;
    while (p > 0 && key[p - 1] < x) {
        key[p] = key[p - 1];
        idx[p] = idx[p - 1];
        p--;
    }
    key[p] = x;
    idx[p] = l;
}

/* An element part's magnitude relative to 2^E (ldexp's value: a power-of-two multiply
 * rounds the same); each part's is computed once per term and then rounded up (upper sums)
 * or down (lower), or its remainder taken. */
OZ_HD double oz2_rel(double x, int E)
{
    return E >= -1022 && E <= 1022 ? fabs(x) * oz_pow2(-E) : ldexp(fabs(x), -E);
}
OZ_HD double oz2_up_of(double y, double x)
{
    return y < OZ2_TINY ? (x == 0.0 ? 0.0 : 2.0 * OZ2_TINY) : y;
}
OZ_HD double oz2_down_of(double y)
{
    return y < OZ2_TINY ? 0.0 : y;
}

/* The truncation remainder of part x (y = oz2_rel(x, E)) at `bits` kept below 2^E (the
 * executors' scaling, oz2_scale), relative to 2^E: exact, as the low bits of the scaled
 * value (y < 2 and |bits| <= OZ2_MAX_BITS keep both products exact or, below 1, truncated
 * to 0). */
OZ_HD double oz2_rem_of(double y, double x, int bits)
{
    if (y < OZ2_TINY)
        return x == 0.0 ? 0.0 : 2.0 * OZ2_TINY;
    return y - trunc(y * oz_pow2(bits)) * oz_pow2(-bits);
}

/* One term of the refined sums for element pair (a, b) at l: *up += (the pair's remainder
 * term), *lo += lo(a) lo(b). rem_a: the remainder is a's (a list of T_B(j)); else b's.
 * ba, bb: the bits of a's row and b's column, OZ2_EXACT where that side's truncation is
 * exact (oz2_ratio_terms' unit 0: no remainder; bits may be negative at small counts). */
#define OZ2_EXACT INT_MIN
OZ_HD void oz2_refine_term(int cx, double are, double aim, int E, int ba, double bre,
                           double bim, int F, int bb, int rem_a, double *up, double *lo)
{
    const double ya = oz2_rel(are, E), yai = cx ? oz2_rel(aim, E) : 0.0;
    const double yb = oz2_rel(bre, F), ybi = cx ? oz2_rel(bim, F) : 0.0;
    double ua, ub;
    if (rem_a) {
        ua = ba == OZ2_EXACT ? 0.0
                             : oz2_rem_of(ya, are, ba) + (cx ? oz2_rem_of(yai, aim, ba) : 0.0);
        ub = oz2_up_of(yb, bre) + (cx ? oz2_up_of(ybi, bim) : 0.0);
    } else {
        ua = oz2_up_of(ya, are) + (cx ? oz2_up_of(yai, aim) : 0.0);
        ub = bb == OZ2_EXACT ? 0.0
                             : oz2_rem_of(yb, bre, bb) + (cx ? oz2_rem_of(ybi, bim, bb) : 0.0);
    }
    *up += ua * ub;
    *lo += (cx ? fmax(oz2_down_of(ya), oz2_down_of(yai)) : oz2_down_of(ya)) *
           (cx ? fmax(oz2_down_of(yb), oz2_down_of(ybi)) : oz2_down_of(yb));
}

/* The refined ratio of an entry from its sums: up (both lists' remainder terms), lo_a and
 * lo_b (the lists' lower sums), the rests RA_i, RB_j (fixed point 2^-32) with the units
 * ua, ub of oz2_ratio_terms, G as in oz2_bound_ratio and r0 the entry's first ratio. */
OZ_HD double oz2_refined_ratio(int cx, double up, double lo_a, double lo_b, double ua,
                               double ub, uint64_t RA, uint64_t RB, double G, double r0)
{
    double c = cx ? 2.0 : 1.0;
    double num = up * (1.0 + 0x1p-40) + c * ldexp((double)RB * ua + (double)RA * ub, -32);
    double den = fmax(ldexp(G, -12), fmax(lo_a, lo_b) * (1.0 - 0x1p-40));
    if (!(den > 0.0))
        return r0;
    double r = num / den;
    return r < r0 ? r : r0;
}

/* Whether a count's entries are refined: the first bound exceeds the target somewhere, at
 * no more than 1/OZ2_REFINE_SHARE of the m n entries. */
OZ_HD int oz2_refine_asked(double rmax, int64_t over, int64_t mn)
{
    return rmax > OZ2_AUTO_TARGET && over * OZ2_REFINE_SHARE <= mn;
}

/* What the call report states: a bound of max_ij |fl(C~) - C|_ij / (|A||B|)_ij from the
 * truncation bound r: the CRT result rounds once (u |C~| <= u (1 + r) |A||B| per part,
 * doubled for complex), plus a margin for the rounding of r itself. */
OZ_HD double oz2_report_bound(int cx, double r)
{
    double u = 0x1p-53;
    return (r + (cx ? 2.0 : 1.0) * u * (1.0 + r)) * (1.0 + 0x1p-40);
}

/* ---- steps 3 and 4: scale and residues -------------------------------------------------- */

OZ_HD double oz2_scale(double x, int e)
{
    return trunc(ldexp(x, e));
}

/* Symmetric residue of an integer-valued double |x| < 2^40 (the reduction of integer products
 * and of sums of residues): rounding by the 1.5 * 2^52 constant and plain operations, all
 * exact here, so it vectorises and gives the same value as oz2_residue. Up to 2^50 too: the
 * quotient is then off by at most one, which the two corrections undo (oz2_cx_join). */
OZ_HD double oz2_residue_small(double x, double m, double inv)
{
    const double magic = 6755399441055744.0;
    double q = (x * inv + magic) - magic;
    double r = x - q * m;
    if (r >= 0.5 * m)
        r -= m;
    if (r < -0.5 * m)
        r += m;
    return r;
}

/* Symmetric residue of an integer-valued double |x| < 2^96 modulo m (m <= 256):
 * the result lies in [-floor(m/2), floor(m/2)], and 128 maps to -128 for m = 256.
 * Each fma computes x - q m exactly (an integer below 2^53), so two steps are exact. */
OZ_HD double oz2_residue96(double x, double m, double inv)
{
    double q = rint(x * inv);
    double r = fma(-q, m, x);
    q = rint(r * inv);
    r = fma(-q, m, r);
    if (r >= 0.5 * m)
        r -= m;
    return r;
}

/* The same for any integer-valued double. Beyond 2^96 (rows kept to more than 94 bits, with
 * more than 20 moduli), x = f 2^e with f an integer below 2^53: the residue of f times
 * 2^e mod m, 40 bits at a time, every product below 2^14 and so exact. */
OZ_HD double oz2_residue(double x, double m, double inv)
{
    if (fabs(x) < 0x1p96)
        return oz2_residue96(x, m, inv);
    int e = ilogb(x) - 52;
    double r = oz2_residue96(ldexp(x, -e), m, inv);
    while (e > 0) {
        const int s = e < 40 ? e : 40;
        r = oz2_residue_small(r * oz2_residue96(ldexp(1.0, s), m, inv), m, inv);
        e -= s;
    }
    return r;
}

/* ---- the complex set's steps 4 and 5 (OZ2_MAX_MODULI_CX) ---------------------------------
 * Residues of A+- = a_r +- i_m a_i from the parts' symmetric residues ra, rb (|ra +- i_m rb|
 * <= 127 + 120 * 127 < 2^14: exact), and the parts of C from the products' values P+-: exact
 * integers, |P| <= k 120^2 < 2^42 (k <= 2^27 complex; an INT32 k-block on the GPU less), so
 * (P+ +- P-) times a symmetric constant (|c| <= 120) is below 2^50, exact in double, and
 * oz2_residue_small's quotient x * inv errs by under 1/100 there (x / m below 2^46): one
 * correction step gives the canonical residue. Every result is the canonical symmetric
 * residue, so any k-blocking (a sum of residues reduced again) gives the same. */
OZ_HD int oz2_products_per_modulus(const oz2_table *T, int cx)
{
    return cx ? (T->cx2 ? 2 : 3) : 1;
}

/* HERK on the complex set: one product per modulus. For C = op(A) op(A)^H (the same matrix
 * on both sides, m = n; an executor knows it from oz_gemm_call.herm) let X = op(A), so op(B)
 * = X^H and its packed parts are B_r = X_r^T, B_i = -X_i^T. With the same bits on row i of
 * X and column i of X^H (oz2_herm_bits), trunc(-x) = -trunc(x) and the symmetric residue of
 * -x being minus that of x (every modulus of the set is odd, so [-(m-1)/2, (m-1)/2] has no
 * lone end), the scaled residues satisfy R(B_r) = R(X_r)^T, R(B_i) = -R(X_i)^T, and so
 *   B+ = R(B_r) + i_m R(B_i) = (R(X_r) - i_m R(X_i))^T = (X-)^T,   B- = (X+)^T   (mod m),
 * the split of oz2_cx_split reduced to the same canonical residues. Hence
 *   P+ = X+ B+ = X+ (X-)^T,   P- = X- B- = X- (X+)^T = (X+ (X-)^T)^T = (P+)^T,
 * exactly, as integers (the products are exact). One product P = X+ (X-)^T gives both:
 *   C_r(i, j) = (P(i, j) + P(j, i)) / 2,   C_i(i, j) = (P(i, j) - P(j, i)) / (2 i_m)  (mod m),
 * bit for bit what the two products give (oz2_cx_join of P(i, j), P(j, i)); the diagonal's
 * imaginary part is (P(i, i) - P(i, i)) / (2 i_m) = 0 exactly, as HERK wants. Its cost is
 * still n^2 k per modulus, twice DSYRK's n (n + 1) k / 2: C has n^2 real unknowns (C_r's
 * triangle and C_i's strict one) against DSYRK's n (n + 1) / 2, each an integer dot product
 * of length k, so no triangle of P alone can give them (C(i, j) needs P(i, j) and P(j, i)).
 * Karatsuba's three products have no such relation to use.
 *
 * HER2K, C = alpha X Y^H + conj(alpha) Y X^H (X, Y n x k), is the same relation on 2k
 * inner terms: with Z = [alpha X, Y] (n x 2k) and J the symmetric permutation swapping the
 * two halves of the inner index, C = Z J Z^H, i.e. op(A) = Z and op(B) = (Z J)^H, whose
 * packed parts are B_r = (Z_r J)^T, B_i = -(Z_i J)^T (oz_gemm_call.herm 2). Row i of Z J
 * holds row i's entries of Z permuted, so with the same bits on row i of Z and column i of
 * op(B) (oz2_herm_bits; the equal-bits condition, without which P(i, j) and P(j, i) carry
 * different scales and no transpose relates them) the residues of the scaled parts are
 * permuted alike, and as above B+ = (Z- J)^T, B- = (Z+ J)^T (mod m). Hence
 *   P+ = Z+ J (Z-)^T,   P- = Z- J (Z+)^T = (Z+ J^T (Z-)^T)^T = (P+)^T   (J^T = J),
 * one product of n x n x 2k per modulus: the cost of two n x n x k, where the two complex
 * products alpha X Y^H and conj(alpha) Y X^H take two each (P+ and P- of both). Real alpha
 * stays out of Z (C = alpha [X, Y] J [X, Y]^H, alpha applied after the CRT); a complex
 * alpha is rounded into X first (one rounding per element, as the reference BLAS's
 * alpha * B(j, l)).
 *
 * ZSYRK, C = X X^T, has no such saving: op(B) = X^T gives B+ = (X+)^T, B- = (X-)^T, so P+ =
 * X+ (X+)^T and P- = X- (X-)^T are each symmetric but unrelated to each other (X+ and X-
 * share no transpose): two products per modulus, of which only the triangles are needed, a
 * saving the LAPACK layer's column strips already take (as DSYRK's). */
OZ_HD int oz2_products_per_call_modulus(const oz2_table *T, int cx, int herm)
{
    return cx && herm && T->cx2 ? 1 : oz2_products_per_modulus(T, cx);
}

/* The bits of index i on both sides of a Hermitian product: the smaller of the two, so each
 * side keeps at most the bits step 2 gave it and 2 max (|A'||B'|)_ij < M still holds (every
 * entry's bound is monotone in alpha_i and beta_j); automatic precision's bound is computed
 * for these bits (the probe sets them), so its ratio is the call's. */
OZ_HD int oz2_herm_bits(int alpha, int beta)
{
    return oz_min_int(alpha, beta);
}

/* The constants come as values (ip = T->ip[t], ...), so an executor's loop keeps them in
 * registers: its int8 stores could otherwise alias the table and reload them. */
OZ_HD void oz2_cx_split(double ra, double rb, double ip, double m, double inv, double *plus,
                        double *minus)
{
    *plus = oz2_residue_small(ra + ip * rb, m, inv);
    *minus = oz2_residue_small(ra - ip * rb, m, inv);
}

OZ_HD void oz2_cx_join(double pp, double pm, double inv2, double inv2ip, double m, double inv,
                       double *re, double *im)
{
    *re = oz2_residue_small((pp + pm) * inv2, m, inv);
    *im = oz2_residue_small((pp - pm) * inv2ip, m, inv);
}

/* ---- step 6: CRT ------------------------------------------------------------------------ */

/* acc (two's complement, L words) -= q * M */
OZ_HD void oz2_limbs_sub_mul(uint32_t *acc, const uint32_t *M, uint32_t q, int L)
{
    uint64_t carry = 0;
    uint32_t borrow = 0;
    for (int i = 0; i < L; i++) {
        uint64_t p = (uint64_t)M[i] * q + carry;
        carry = p >> 32;
        uint32_t pl = (uint32_t)p;
        uint64_t d = (uint64_t)acc[i] - pl - borrow;
        acc[i] = (uint32_t)d;
        borrow = (uint32_t)((d >> 32) & 1u);
    }
}

OZ_HD void oz2_limbs_add(uint32_t *acc, const uint32_t *v, int L)
{
    uint64_t carry = 0;
    for (int i = 0; i < L; i++) {
        uint64_t s = (uint64_t)acc[i] + v[i] + carry;
        acc[i] = (uint32_t)s;
        carry = s >> 32;
    }
}

OZ_HD void oz2_limbs_neg(uint32_t *acc, int L)
{
    uint64_t carry = 1;
    for (int i = 0; i < L; i++) {
        uint64_t s = (uint64_t)(uint32_t)~acc[i] + carry;
        acc[i] = (uint32_t)s;
        carry = s >> 32;
    }
}

/* Unsigned compare: returns -1, 0, 1. */
OZ_HD int oz2_limbs_cmp(const uint32_t *a, const uint32_t *b, int L)
{
    for (int i = L - 1; i >= 0; i--) {
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    }
    return 0;
}

/* Bits pos .. pos + n - 1 (n <= 63) of the magnitude; bits beyond the limbs are 0. */
OZ_HD uint64_t oz2_limbs_bits(const uint32_t *mag, int L, int pos, int n)
{
    uint64_t v = 0;
    for (int b = 0; b < n;) {
        const int p = pos + b, i = p >> 5, o = p & 31;
        if (i >= L)
            break;
        v |= (uint64_t)(mag[i] >> o) << b;
        b += 32 - o;
    }
    return v & (((uint64_t)1 << n) - 1);
}

/* Nonnegative magnitude in limbs times 2^shift, rounded once to nearest-even: to 53 bits,
 * or to fewer where the result is subnormal (its last bit is 2^-1074), or to infinity.
 * The bits kept are cut out of the limbs with the round and sticky bits below them, so
 * no intermediate value is rounded (a 53-bit rounding followed by ldexp into the
 * subnormal range would round twice). */
OZ_HD double oz2_limbs_to_double(const uint32_t *mag, int shift, int L)
{
    int h = L - 1;
    while (h > 0 && mag[h] == 0)
        h--;
    if (mag[h] == 0)
        return 0.0;
    const int bits = 32 * h + oz_bitlen64(mag[h]);
    int drop = bits - 53;          /* low bits that do not fit 53 */
    if (drop < -1074 - shift)      /* a subnormal result: its grid is 2^-1074 */
        drop = -1074 - shift;
    if (drop <= 0)                 /* exact */
        return ldexp((double)oz2_limbs_bits(mag, L, 0, bits), shift);
    uint64_t kept = oz2_limbs_bits(mag, L, drop, 53);
    const int rb = drop - 1;
    const int round = (int)oz2_limbs_bits(mag, L, rb, 1);
    int sticky = 0;
    for (int i = 0; i < L && i < (rb >> 5); i++)
        sticky |= mag[i] != 0;
    if ((rb >> 5) < L && (rb & 31))
        sticky |= (mag[rb >> 5] & ((1u << (rb & 31)) - 1u)) != 0;
    if (round && (sticky || (kept & 1u)))
        kept++; /* may reach 2^53: still exact */
    return ldexp((double)kept, shift + drop); /* exact, or an overflow to inf */
}

/* Step 6 in two parts, so that an executor adds each residue as it reads it (no array of
 * residues per element): oz2_crt_add adds modulus t's term u_t W_t (u_t = r mod m_t, in
 * [0, m_t)) to limb sums kept in 64 bits, oz2_crt_round carries them and rounds X. A term
 * is below 2^40 and a table has at most OZ2_MAX_MODULI (49) moduli, so the sums stay below
 * 2^46: no carry until the end, one multiply-add per limb and modulus. */
OZ_HD void oz2_crt_add(uint64_t *acc, const oz2_table *T, int t, int r, const int L)
{
    const uint32_t u = (uint32_t)(r < 0 ? r + T->mi[t] : r);
    for (int i = 0; i < L; i++)
        acc[i] += (uint64_t)T->w[t][i] * u;
}

/* The unique X in [-M/2, M/2) with X = sum_t u_t W_t (mod M): its magnitude into acc (L
 * limbs); returns 1 when X < 0. */
OZ_HD int oz2_crt_mag(const oz2_table *T, const uint64_t *sums, uint32_t *acc, const int L)
{
    uint64_t carry = 0;
    for (int i = 0; i < L; i++) {
        const uint64_t s = sums[i] + carry;
        acc[i] = (uint32_t)s;
        carry = s >> 32;
    }
    /* quotient estimate: acc / M < 49 * 256, off by at most one near half-integers */
    double ad = 0.0;
    for (int i = L - 1; i >= 0; i--)
        ad = ad * 4294967296.0 + (double)acc[i];
    uint32_t q = (uint32_t)floor(ad / T->Md + 0.5);
    oz2_limbs_sub_mul(acc, T->M, q, L);
    int neg = (acc[L - 1] >> 31) != 0;
    if (neg) {
        oz2_limbs_neg(acc, L);
        if (oz2_limbs_cmp(acc, T->half, L) > 0) { /* X < -M/2: X + M */
            oz2_limbs_neg(acc, L);
            oz2_limbs_add(acc, T->M, L);
            neg = 0;
        }
    } else if (oz2_limbs_cmp(acc, T->half, L) >= 0) { /* X >= M/2: X - M, negative */
        oz2_limbs_sub_mul(acc, T->M, 1u, L);
        oz2_limbs_neg(acc, L);
        neg = 1;
    }
    return neg;
}

/* That X rounded to double, times 2^shift. */
OZ_HD double oz2_crt_round(const oz2_table *T, const uint64_t *sums, int shift, const int L)
{
    uint32_t acc[OZ2_LIMBS];
    const int neg = oz2_crt_mag(T, sums, acc, L);
    double v = oz2_limbs_to_double(acc, shift, L);
    return neg ? -v : v;
}

/* X for the symmetric residues R[t * plane], t < T->n (one element's residues, one plane
 * per modulus), times 2^shift. */
OZ_HD double oz2_crt_limbs(const oz2_table *T, const int8_t *R, int64_t plane, int shift,
                           const int L)
{
    uint64_t sums[OZ2_LIMBS] = {0};
    for (int t = 0; t < T->n; t++)
        oz2_crt_add(sums, T, t, R[t * plane], L);
    return oz2_crt_round(T, sums, shift, L);
}

/* Unrounded parts (the split driver's, core/driver_split.c): X 2^shift as hi + lo, hi =
 * oz2_limbs_to_double's rounding and lo the remainder X 2^shift - hi rounded once, so
 * |hi + lo - X 2^shift| <= u |X 2^shift - hi| <= u^2 |X 2^shift| (2^-1075 where lo is
 * subnormal). mag is scratch. hi exact or infinite: lo = 0. */
OZ_HD void oz2_limbs_to_dd(uint32_t *mag, int shift, int L, double *hi, double *lo)
{
    *hi = oz2_limbs_to_double(mag, shift, L);
    *lo = 0.0;
    int h = L - 1;
    while (h > 0 && mag[h] == 0)
        h--;
    int drop = 32 * h + oz_bitlen64(mag[h]) - 53; /* as oz2_limbs_to_double cuts */
    if (drop < -1074 - shift)
        drop = -1074 - shift;
    if (drop <= 0 || isinf(*hi))
        return;
    /* hi was rounded up when it exceeds the kept bits: the remainder is then negative */
    const int up = *hi > ldexp((double)oz2_limbs_bits(mag, L, drop, 53), shift + drop);
    for (int pass = 0; pass < 1 + up; pass++) {
        if (pass)
            oz2_limbs_neg(mag, L); /* 2^drop - R, once cut to the drop bits */
        for (int i = 0; i < L; i++) /* mag mod 2^drop: the bits hi does not hold */
            if (32 * i >= drop)
                mag[i] = 0;
            else if (32 * (i + 1) > drop)
                mag[i] &= (1u << (drop - 32 * i)) - 1u;
    }
    const double r = oz2_limbs_to_double(mag, shift, L);
    *lo = up ? -r : r;
}

/* The residues' X times 2^shift as (hi, lo) into out[0], out[1]. */
OZ_HD void oz2_crt_dd(const oz2_table *T, const int8_t *R, int64_t plane, int shift, double *out)
{
    uint64_t sums[OZ2_LIMBS] = {0};
    uint32_t acc[OZ2_LIMBS];
    for (int t = 0; t < T->n; t++)
        oz2_crt_add(sums, T, t, R[t * plane], T->limbs);
    const int neg = oz2_crt_mag(T, sums, acc, T->limbs);
    oz2_limbs_to_dd(acc, shift, T->limbs, &out[0], &out[1]);
    if (neg) {
        out[0] = -out[0];
        out[1] = -out[1];
    }
}

/* One entry of C in the split driver's (hi, lo) layout (oz_gemm_call.dd): re hi, re lo and,
 * complex, im hi, im lo; R: the real part's residue planes, the imaginary part's T->n
 * planes further. */
OZ_HD void oz2_crt_store_dd(const oz2_table *T, const int8_t *R, int64_t plane, int shift,
                            int cx, double *out)
{
    oz2_crt_dd(T, R, plane, shift, out);
    if (cx)
        oz2_crt_dd(T, R + (int64_t)T->n * plane, plane, shift, out + 2);
}

/* The limb count as a constant lets the compiler unroll every limb loop and keep the sums
 * in registers. */
OZ_HD double oz2_crt(const oz2_table *T, const int8_t *R, int64_t plane, int shift)
{
    switch (T->limbs) {
    case 2: return oz2_crt_limbs(T, R, plane, shift, 2);
    case 3: return oz2_crt_limbs(T, R, plane, shift, 3);
    case 4: return oz2_crt_limbs(T, R, plane, shift, 4);
    case 5: return oz2_crt_limbs(T, R, plane, shift, 5);
    case 6: return oz2_crt_limbs(T, R, plane, shift, 6);
    case 7: return oz2_crt_limbs(T, R, plane, shift, 7);
    case 8: return oz2_crt_limbs(T, R, plane, shift, 8);
    case 9: return oz2_crt_limbs(T, R, plane, shift, 9);
    case 10: return oz2_crt_limbs(T, R, plane, shift, 10);
    case 11: return oz2_crt_limbs(T, R, plane, shift, 11);
    default: return oz2_crt_limbs(T, R, plane, shift, OZ2_LIMBS);
    }
}

#endif
