/* The FP4 (E2M1) product engine's numerics (Hayashi, Mukunoki, Hoshino and Katagiri, DGEMM with
 * Ozaki Scheme I/II on FP4 Tensor Cores: A Base-13 E2M1 Limb Representation, 2026; docs/fp4.md),
 * as element functions shared by every executor (OZ_HD: gcc for the CPU, nvcc for CUDA).
 *
 * E2M1 holds {0, +-0.5, +-1, +-1.5, +-2, +-3, +-4, +-6}; doubled, the digits
 *   S = {0, +-1, +-2, +-3, +-4, +-6, +-8, +-12}
 * cover every residue modulo 13, so an integer N is written in base-13 limbs with digits in
 * S: N = sum_i 13^i c_i. A limb product is at most 12 * 12 = 144 (in units of 1/4 for the
 * E2M1 values S/2), so an FP32 accumulator sums K <= OZ_FP4_MAX_K of them exactly in any
 * order: every partial sum is an integer number of quarters below 144 K <= 2^24.
 *
 * The greedy digit (oz_fp4_digit): for N >= 0 the largest c in S with c = N (mod 13), for
 * N < 0 minus the digit of -N. By residue class mod 13 (0..12) that is
 *   0 1 2 3 4 -8 6 -6 8 -4 -3 -2 12.
 * Range and termination. Let R_p = (13^p - 1) / 3 (4, 56, 732, ...), so R_p = 13 R_{p-1} + 4.
 * Claim: for 0 <= N <= R_p, p >= 1, the quotient n = (N - c) / 13 satisfies 0 <= n <= R_{p-1}.
 *   n >= 0: a positive digit is N mod 13 <= N, the others are negative, so N - c >= 0.
 *   n <= R_{p-1}, i.e. N - c <= 13 R_{p-1}: write N = r + 13 j with r = N mod 13. For r <= 4
 *     (c = r): N <= 13 R_{p-1} + 4 forces j <= R_{p-1}. For r = 5, 7, 9, 10, 11 (c = r - 13):
 *     r > 4 forces j <= R_{p-1} - 1, so N - c = 13 (j + 1) <= 13 R_{p-1}. For r = 6, 8, 12
 *     (c = r): N - c = 13 j with j <= R_{p-1} - 1 as before.
 * By induction p limbs represent every |N| <= R_p (R_0 = 0: the last quotient is 0), and
 * R_p + 1 = 13 R_{p-1} + 5 (class 5, digit -8) gives n = R_{p-1} + 1: the range is tight
 * for the greedy. Termination for any N: 0 <= n <= (N + 8) / 13 < N for N >= 1.
 *
 * Ozaki II on FP4 (ozaki2_table.c, OZ2_ENGINE_FP4): each residue is written in limbs and one
 * residue product costs limbs(m)^2 limb products, combined exactly in FP64 as
 * sum_{i,j} 13^(i+j) P_ij. Bits per limb product decide the moduli: one limb (m = 13, whose
 * residues any digit represents since 13 = 0 (mod 13), or m <= 9, whose symmetric residues
 * lie in [-4, 4]) gives log2(m)/1 bits, two limbs (symmetric residues in [-56, 56]:
 * m <= 113) log2(m)/4, three limbs (m <= 1465) log2(m)/9, so the set is the four one-limb
 * moduli 8, 13, 9, 7 and then the largest two-limb moduli coprime to them: 19 moduli reach
 * 109 bits with 64 limb products (INT8's 14 moduli: 110 bits). Karatsuba across limbs is
 * not possible: a sum of two digits is in general not in S. */
#ifndef OZ_FP4_H
#define OZ_FP4_H

#include "oz_defs.h"

#define OZ_FP4_MAX_K 116508 /* 144 K <= 2^24: FP32 accumulation of limb products is exact */
#define OZ_FP4_MAX_LIMBS 3  /* enough for an INT8 value (|N| <= 128 <= R_3 = 732) */

/* R_p = (13^p - 1) / 3, the largest |N| that p limbs represent. */
OZ_HD int64_t oz_fp4_range(int p)
{
    int64_t t = 1;
    for (int i = 0; i < p; i++)
        t *= 13;
    return (t - 1) / 3;
}

/* The greedy digit of N (see above): c in S, c = N (mod 13). */
OZ_HD int oz_fp4_digit(int64_t N)
{
    /* by residue class: the largest digit in S of the class */
    const int8_t d[13] = {0, 1, 2, 3, 4, -8, 6, -6, 8, -4, -3, -2, 12};
    return N >= 0 ? d[N % 13] : -d[(-N) % 13];
}

/* The p limbs of N, least significant first; returns what is left (0 when |N| <= R_p). */
OZ_HD int64_t oz_fp4_limbs(int64_t N, int p, int *c)
{
    for (int i = 0; i < p; i++) {
        c[i] = oz_fp4_digit(N);
        N = (N - c[i]) / 13;
    }
    return N;
}

/* Limbs a residue modulo m needs: one for 13 (any digit of the residue stands for it modulo
 * 13) and for m <= 9, two up to 113, three up to 1465 (INT8 moduli). */
OZ_HD int oz_fp4_residue_limbs(int m)
{
    if (m == 13 || m <= 2 * 4 + 1)
        return 1;
    return m <= 2 * 56 + 1 ? 2 : 3;
}

/* The weight of limb product (i, j) in the residue product, undoing the E2M1 values' factor
 * 1/4: 4 * 13^(i + j). A one-limb modulus 13 takes weight 4 (its higher limbs are 0 mod 13). */
OZ_HD double oz_fp4_weight(int i, int j)
{
    double w = 4.0;
    for (int q = 0; q < i + j; q++)
        w *= 13.0;
    return w;
}

/* The E2M1 code of digit c's value c / 2 (bit 3 the sign, then two exponent bits and one
 * mantissa bit): |c| = 0 1 2 3 4 6 8 12 are the values 0 0.5 1 1.5 2 3 4 6, codes 0..7. */
OZ_HD unsigned oz_fp4_e2m1_code(int c)
{
    const int a = c < 0 ? -c : c;
    const unsigned mag = a <= 4 ? (unsigned)a : a == 6 ? 5u : a == 8 ? 6u : 7u;
    return (c < 0 ? 8u : 0u) | mag;
}

#endif
