/* Ozaki II kernels of the CUDA executor: thin wrappers around the element functions of
 * numerics/ozaki2.h, laid out for coalesced access (through cuda_ozaki2.cuh: the non-template
 * kernels are static, one copy per translation unit).
 *
 * Every value these kernels produce equals the CPU executor's (cpu/cpu_ozaki2.c) bit for bit:
 * the element functions are the same code, built without FMA contraction (-fmad=false),
 * and every reduction is an integer sum or a max/min, so its order does not matter.
 *
 * Names: op(X) is seen as a "packed" k x cols matrix, element (l, q): for A, q is a row of
 * op(A) (q < m); for B, q is a column of op(B) (q < n); l < k runs along the inner dimension.
 * In memory, (l, q) is at l + q ld when l runs along the stored columns ("l-contiguous":
 * A with 'T'/'C', B with 'N'), at q + l ld otherwise. Complex values are interleaved.
 */
#ifndef OZ_KERNELS_OZAKI2_CUH
#define OZ_KERNELS_OZAKI2_CUH

#include <limits.h>
#include <stdint.h>

#include "cuda_common.cuh"
#include "../numerics/ozaki1.h"

/* oz_opv (op(X) as seen by the kernels) and oz_load: cuda_common.cuh */

/* ---- step 1: statistics ------------------------------------------------------------------
 * Per packed column q: amax (bit pattern of the largest |x|, a nonnegative double, so the
 * unsigned order of the bits is the numeric order), emin (smallest exponent of a nonzero
 * finite element), bad (any Inf/NaN) and, where lsb is not NULL (automatic precision's probe),
 * oz2_lsb_element's statistic. The grid's y dimension splits l into chunks whose
 * partial results are combined with atomics (max/min/or: order-independent).
 * Block (32, 8). l-contiguous: one warp per column (8 columns a block), lanes along l.
 * Otherwise: 32 columns a block (lanes along q, coalesced), the 8 rows of threads along l. */

template <bool LC, bool CX>
__global__ void __launch_bounds__(256)
    oz_k_stats(oz_opv v, int64_t k, int64_t cols, int64_t chunk, unsigned long long *amax,
               int *emin, int *lsb, int *bad)
{
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t lbeg = (int64_t)blockIdx.y * chunk;
    const int64_t lend = k < lbeg + chunk ? k : lbeg + chunk;
    const int64_t q = LC ? (int64_t)blockIdx.x * 8 + ty : (int64_t)blockIdx.x * 32 + tx;
    double a = 0.0;
    int em = INT_MAX, lb = INT_MAX, b = 0;
    if (q < cols) {
        for (int64_t l = lbeg + (LC ? tx : ty); l < lend; l += (LC ? 32 : 8)) {
            double re, im;
            oz_load<LC, CX>(v, l, q, re, im);
            oz2_stat_element(re, &a, &em, &b);
            if (lsb)
                oz2_lsb_element(re, &lb);
            if (CX) {
                oz2_stat_element(im, &a, &em, &b);
                if (lsb)
                    oz2_lsb_element(im, &lb);
            }
        }
    }
    if (LC) {
        for (int o = 16; o > 0; o >>= 1) {
            double a2 = __shfl_xor_sync(0xffffffffu, a, o);
            int em2 = __shfl_xor_sync(0xffffffffu, em, o);
            int lb2 = __shfl_xor_sync(0xffffffffu, lb, o);
            int b2 = __shfl_xor_sync(0xffffffffu, b, o);
            a = a2 > a ? a2 : a;
            em = oz_min_int(em, em2);
            lb = oz_min_int(lb, lb2);
            b |= b2;
        }
        if (tx != 0 || q >= cols)
            return;
    } else {
        OZ_SHARED(double, sa, [8][32]);
        OZ_SHARED(int, se, [8][32]);
        OZ_SHARED(int, sl, [8][32]);
        OZ_SHARED(int, sb, [8][32]);
        sa[ty][tx] = a;
        se[ty][tx] = em;
        sl[ty][tx] = lb;
        sb[ty][tx] = b;
        __syncthreads();
        if (ty != 0 || q >= cols)
            return;
        for (int r = 1; r < 8; r++) {
            a = sa[r][tx] > a ? sa[r][tx] : a;
            em = oz_min_int(em, se[r][tx]);
            lb = oz_min_int(lb, sl[r][tx]);
            b |= sb[r][tx];
        }
    }
    if (a > 0.0)
        atomicMax(amax + q, (unsigned long long)__double_as_longlong(a));
    if (em != INT_MAX)
        atomicMin(emin + q, em);
    if (lsb && lb != INT_MAX)
        atomicMin(lsb + q, lb);
    if (b)
        atomicOr(bad, 1);
}

/* E from amax, as the CPU's stats(): exponent of the largest |x|, 0 for a zero column. */
static __global__ void oz_k_exponents(const unsigned long long *amax, int *E, int64_t cols)
{
    int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= cols)
        return;
    double a = __longlong_as_double((long long)amax[q]);
    E[q] = (a > 0.0 && oz_is_finite(a)) ? oz_exponent(a) : 0;
}

/* Fixed-point sum per column: of squares (oz2_sq_term, both scalings) or, ABS, of
 * magnitudes (oz2_abs_term, the 1-norms of automatic precision). */
template <bool LC, bool CX, bool ABS>
__global__ void __launch_bounds__(256)
    oz_k_sumsq(oz_opv v, int64_t k, int64_t cols, int64_t chunk, const int *E,
               unsigned long long *S)
{
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t lbeg = (int64_t)blockIdx.y * chunk;
    const int64_t lend = k < lbeg + chunk ? k : lbeg + chunk;
    const int64_t q = LC ? (int64_t)blockIdx.x * 8 + ty : (int64_t)blockIdx.x * 32 + tx;
    unsigned long long s = 0;
    if (q < cols) {
        const int e = E[q];
        for (int64_t l = lbeg + (LC ? tx : ty); l < lend; l += (LC ? 32 : 8)) {
            double re, im;
            oz_load<LC, CX>(v, l, q, re, im);
            s += ABS ? oz2_abs_term(re, e) : oz2_sq_term(re, e);
            if (CX)
                s += ABS ? oz2_abs_term(im, e) : oz2_sq_term(im, e);
        }
    }
    if (LC) {
        for (int o = 16; o > 0; o >>= 1)
            s += __shfl_xor_sync(0xffffffffu, s, o);
        if (tx != 0 || q >= cols)
            return;
    } else {
        OZ_SHARED(unsigned long long, ss, [8][32]);
        ss[ty][tx] = s;
        __syncthreads();
        if (ty != 0 || q >= cols)
            return;
        for (int r = 1; r < 8; r++)
            s += ss[r][tx];
    }
    if (s)
        atomicAdd(S + q, s);
}

static __global__ void oz_k_bits_fast(const unsigned long long *S, int *bits, int64_t cols,
                               int half_budget)
{
    int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (q < cols)
        bits[q] = oz2_bits_fast(half_budget, (uint64_t)S[q]);
}

/* A Hermitian product's bits (oz_gemm_call.herm): both sides the smaller (oz2_herm_bits). */
static __global__ void oz_k_bits_herm(int *a, int *b, int64_t n)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = b[i] = oz2_herm_bits(a[i], b[i]);
}

/* A Hermitian product's P- = P+^T (ozaki2.h oz2_products_per_call_modulus): plane z's P+
 * at C32 + z stride (mp x mp, padding included: its residues are 0 on both sides), its P-
 * one plane further. */
static __global__ void oz_k_herm_transpose(int *C32, int64_t mp, int64_t plane, int64_t stride)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t j = (int64_t)blockIdx.y * blockDim.y + threadIdx.y;
    int *P = C32 + (int64_t)blockIdx.z * stride;
    if (i < mp && j < mp)
        P[plane + j + i * mp] = P[i + j * mp];
}

static __global__ void oz_k_fill_int(int *x, int64_t n, int v)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = v;
}

/* ---- packing: accurate-scaling bounds, and scaling + residues (steps 3 and 4) ------------
 * One block per 32 x 32 tile of the packed matrix: the tile of op(X) is read coalesced
 * (along whichever index is contiguous in memory) into shared memory, then written packed,
 * four l per thread in 4-byte stores, column q of the output holding l = 0..kpad-1
 * contiguously (kpad >= k, zeros beyond k; columns cols..cols_pad-1 are zeros too).
 * UBOUND writes UA_lq = oz2_ubound(re) (+ oz2_ubound(im)) as int8 (<= 64).
 * LBOUND writes oz2_lbound(max(|re|, |im|), E_q, shift) (<= 127; shift passed as ushift).
 * RESIDUE scales by 2^(bits_q - E_q) (oz2_scale) and writes the symmetric residues modulo
 * every modulus of T into int8 planes: plane t (real) or 3t, 3t+1, 3t+2 (complex: re, im,
 * residue(re + im) for Karatsuba), or 2t, 2t+1 (the complex set: re +- i_m im, oz2_cx_split),
 * each plane kpad * cols_pad bytes. */

enum { OZ_PACK_UBOUND = 0, OZ_PACK_RESIDUE = 1, OZ_PACK_LBOUND = 2 };

/* oz2_scale(x, e) = trunc(ldexp(x, e)). When 2^e is a normal double, x * 2^e is the same
 * correctly rounded value x 2^e as ldexp's (exact unless it falls below the normal range,
 * where both round to nearest and trunc then gives zero anyway), so the product is used. */
__device__ __forceinline__ double oz_scale_dev(double x, int e, double p2, bool use_mul)
{
    return use_mul ? trunc(x * p2) : oz2_scale(x, e);
}

template <bool LC, bool CX, int MODE>
__global__ void __launch_bounds__(256)
    oz_k_pack(oz_opv v, int64_t k, int64_t kpad, int64_t cols, int64_t cols_pad, int64_t tiles_l,
              const int *E, const int *bits, int ushift, int8_t *out, int64_t plane,
              const __grid_constant__ oz2_table T)
{
    oz_tile_each<LC, CX, 4>(v, k, cols, tiles_l, kpad, cols_pad, [&](int64_t l, int64_t q,
                                                                   const double *re,
                                                                   const double *im) {
        int8_t *o = out + q * kpad + l;
        if (q >= cols) { /* padding columns (IMMA wants m, n multiples of 4): zeros */
            const int planes = MODE == OZ_PACK_RESIDUE ? T.n * oz2_products_per_modulus(&T, CX) : 1;
            for (int t = 0; t < planes; t++)
                oz_store4(o + t * plane, 0, 0, 0, 0);
        } else if (MODE == OZ_PACK_UBOUND) {
            const int s = ushift - E[q];
            int u[4];
#pragma unroll
            for (int x = 0; x < 4; x++)
                u[x] = oz2_ubound(re[x], s) + (CX ? oz2_ubound(im[x], s) : 0);
            oz_store4(o, u[0], u[1], u[2], u[3]);
        } else if (MODE == OZ_PACK_LBOUND) {
            int u[4];
#pragma unroll
            for (int x = 0; x < 4; x++)
                u[x] = oz2_lbound(fmax(fabs(re[x]), fabs(CX ? im[x] : 0.0)), E[q], ushift);
            oz_store4(o, u[0], u[1], u[2], u[3]);
        } else {
            /* every plane from one read of the tile: the scaled values stay in registers */
            const int e = bits[q] - E[q];
            const bool use_mul = e >= -1022 && e <= 1023;
            const double p2 = use_mul ? __longlong_as_double((long long)(e + 1023) << 52) : 0.0;
            double a[4], b[4];
#pragma unroll
            for (int x = 0; x < 4; x++) {
                a[x] = oz_scale_dev(re[x], e, p2, use_mul);
                b[x] = CX ? oz_scale_dev(im[x], e, p2, use_mul) : 0.0;
            }
            const int np = oz2_products_per_modulus(&T, CX);
            for (int t = 0; t < T.n; t++) {
                const double mt = T.m[t], inv = T.inv[t];
                double ra[4], rb[4], rs[4];
#pragma unroll
                for (int x = 0; x < 4; x++) {
                    ra[x] = oz2_residue(a[x], mt, inv);
                    if (CX) {
                        rb[x] = oz2_residue(b[x], mt, inv);
                        if (T.cx2) /* ra, rb become the residues of re + i_m im, re - i_m im */
                            oz2_cx_split(ra[x], rb[x], T.ip[t], mt, inv, &ra[x], &rb[x]);
                        else
                            rs[x] = oz2_residue_small(ra[x] + rb[x], mt, inv);
                    }
                }
                int8_t *ot = o + np * t * plane;
                oz_store4(ot, (int)ra[0], (int)ra[1], (int)ra[2], (int)ra[3]);
                if (CX) {
                    oz_store4(ot + plane, (int)rb[0], (int)rb[1], (int)rb[2], (int)rb[3]);
                    if (!T.cx2)
                        oz_store4(ot + 2 * plane, (int)rs[0], (int)rs[1], (int)rs[2], (int)rs[3]);
                }
            }
        }
    });
}

/* ---- accurate scaling: bits from G = UA^T UB --------------------------------------------- */

/* G64 (+)= G32 over the whole mpad x n matrix (k-blocks of the bound product). */
static __global__ void oz_k_acc64(const int *G32, long long *G64, int64_t total, int first)
{
    int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e < total)
        G64[e] = first ? (long long)G32[e] : G64[e] + G32[e];
}

/* Accurate scaling, second pass (bits_b starts at OZ2_MAX_BITS): beta_j = min_i
 * oz2_bits_accurate_term(budget, h_ij, alpha_i), h_ij = oz2_bound_exp(G_ij, ...); a warp per
 * column; rows split into tiles combined with atomicMin. */
template <typename GT>
__global__ void __launch_bounds__(256)
    oz_k_bits_col(const GT *G, int64_t mpad, int64_t m, int64_t n, int budget, int ushift,
                  const unsigned long long *Sa, const unsigned long long *Sb,
                  const int *bits_a, int *bits_b)
{
    const int tx = threadIdx.x;
    const int64_t j = (int64_t)blockIdx.x * 8 + threadIdx.y;
    if (j >= n)
        return;
    const int csj = oz2_cs_half((uint64_t)Sb[j]);
    int b = OZ2_MAX_BITS;
    for (int64_t i = tx; i < m; i += 32) {
        int h = oz2_bound_exp((uint64_t)G[i + j * mpad], ushift, oz2_cs_half((uint64_t)Sa[i]), csj);
        b = oz_min_int(b, oz2_bits_accurate_term(budget, h, bits_a[i]));
    }
    for (int o = 16; o > 0; o >>= 1)
        b = oz_min_int(b, __shfl_xor_sync(0xffffffffu, b, o));
    if (tx == 0 && b < OZ2_MAX_BITS)
        atomicMin(bits_b + j, b);
}

/* Accurate scaling, first pass (bits_b holds the fast scaling's beta_j, bits_a starts at
 * OZ2_MAX_BITS): alpha_i = min_j oz2_bits_accurate_term(budget, h_ij, beta_j); the grid's
 * y dimension splits j into chunks, and columns are split into tiles, combined with
 * atomicMin. */
template <typename GT>
__global__ void __launch_bounds__(256)
    oz_k_bits_row(const GT *G, int64_t mpad, int64_t m, int64_t n, int64_t chunk, int budget,
                  int ushift, const unsigned long long *Sa, const unsigned long long *Sb,
                  const int *bits_b, int *bits_a)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    const int64_t j0 = (int64_t)blockIdx.y * chunk, j1 = n < j0 + chunk ? n : j0 + chunk;
    const int csi = oz2_cs_half((uint64_t)Sa[i]);
    int a = OZ2_MAX_BITS;
    for (int64_t j = j0; j < j1; j++) {
        int h = oz2_bound_exp((uint64_t)G[i + j * mpad], ushift, csi, oz2_cs_half((uint64_t)Sb[j]));
        a = oz_min_int(a, oz2_bits_accurate_term(budget, h, bits_b[j]));
    }
    if (a < OZ2_MAX_BITS)
        atomicMin(bits_a + i, a);
}

/* ---- automatic precision ------------------------------------------------------------------ */

/* G (+)= C32 over the mpad x npad lower-bound product (exact: integers below 2^53). */
static __global__ void oz_k_acc_lower(const int *C32, double *G, int64_t total, int first)
{
    int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e < total)
        G[e] = first ? (double)C32[e] : G[e] + (double)C32[e];
}

/* Level p of the lower bound over the m x n entries of G (leading dimension mpad): P (level
 * p's product; NULL for level 0, already in G) added, and *more set where an entry asks for
 * level p + 1 (ozaki2.h oz2_lower_unresolved). */
static __global__ void oz_k_lower_level(double *G, const double *P, int p, int64_t m,
                                        int64_t total, int64_t mpad, const int *Ea,
                                        const int *emin_a, const unsigned long long *Na,
                                        const int *Eb, const int *emin_b,
                                        const unsigned long long *Nb, int *more)
{
    const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= total)
        return;
    const int64_t i = idx % m, j = idx / m, e = i + j * mpad;
    const double g = P ? oz2_lower_add(G[e], P[e], p) : G[e];
    G[e] = g;
    if (oz2_lower_unresolved(g, (uint64_t)Na[i], (uint64_t)Nb[j],
                             oz2_level_resolves(Ea[i], emin_a[i], p),
                             oz2_level_resolves(Eb[j], emin_b[j], p), p))
        atomicOr(more, 1);
}

/* oz2_lower_final after the last level p. */
static __global__ void oz_k_lower_final(double *G, int p, int64_t m, int64_t total, int64_t mpad,
                                        const int *Ea, const int *emin_a, const int *Eb,
                                        const int *emin_b)
{
    const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= total)
        return;
    const int64_t i = idx % m, j = idx / m, e = i + j * mpad;
    G[e] = oz2_lower_final(G[e], oz2_level_resolves(Ea[i], emin_a[i], p),
                           oz2_level_resolves(Eb[j], emin_b[j], p));
}

/* ---- automatic precision's refinement (ozaki2.h) -------------------------------------------- */

/* One side's refinement data: op(X)'s view (read as launch_norm1's kernel reads it), its
 * layout, and per packed column q the indices of its OZ2_TOP largest elements (idx[q OZ2_TOP
 * ..], cnt[q] of them) and its 1-norm without them (rest, N1's fixed point). */
struct oz2_dtops {
    oz_opv v;
    int lc;
    int64_t *idx;
    int *cnt;
    unsigned long long *rest;
};

/* Element (l, q) of a side whose layout is known at run time only (the refined entries read
 * a few elements of both sides, each side in its own layout). */
template <bool CX>
__device__ __forceinline__ void oz_load_lc(const oz_opv &v, int lc, int64_t l, int64_t q,
                                           double &re, double &im)
{
    if (lc)
        oz_load<true, CX>(v, l, q, re, im);
    else
        oz_load<false, CX>(v, l, q, re, im);
}

/* The lists of a side in two steps, so that a long inner dimension is scanned in parallel.
 * First each of nseg segments of seg elements of every packed column keeps its own list:
 * thread q + s cols scans column q's l = s seg .. in increasing order (the CPU's top_build
 * on a part) into pkey, pidx (OZ2_TOP each) and pcnt. */
template <bool LC, bool CX>
__global__ void __launch_bounds__(256)
    oz_k_top_part(oz_opv v, int64_t k, int64_t cols, int64_t seg, int64_t nseg, double *pkey,
                  int64_t *pidx, int *pcnt)
{
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= cols * nseg)
        return;
    const int64_t q = t % cols, l0 = t / cols * seg, l1 = k < l0 + seg ? k : l0 + seg;
    double key[OZ2_TOP];
    int64_t idx[OZ2_TOP];
    int cnt = 0;
    for (int64_t l = l0; l < l1; l++) {
        double re, im;
        oz_load<LC, CX>(v, l, q, re, im);
        oz2_top_insert(key, idx, &cnt, oz2_top_key(re, im), l);
    }
    for (int s = 0; s < cnt; s++) {
        pkey[t * OZ2_TOP + s] = key[s];
        pidx[t * OZ2_TOP + s] = idx[s];
    }
    pcnt[t] = cnt;
}

/* Then per column the segments' lists are inserted in segment order, each in its own order:
 * equal keys then arrive in index order, as in one scan of l = 0..k-1, so oz2_top_insert
 * keeps the same elements in the same order as the CPU (the largest under keys descending,
 * ties to the smaller index). The rest: N1 less the taken elements' oz2_abs_term (exact
 * integers). */
template <bool LC, bool CX>
__global__ void __launch_bounds__(256)
    oz_k_top_merge(oz2_dtops t, int64_t cols, int64_t nseg, const double *pkey,
                   const int64_t *pidx, const int *pcnt, const int *E,
                   const unsigned long long *N1)
{
    const int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= cols)
        return;
    double key[OZ2_TOP];
    int64_t idx[OZ2_TOP];
    int cnt = 0;
    for (int64_t s = 0; s < nseg; s++) {
        const int64_t p = q + s * cols;
        const int c = pcnt[p];
        for (int e = 0; e < c; e++)
            oz2_top_insert(key, idx, &cnt, pkey[p * OZ2_TOP + e], pidx[p * OZ2_TOP + e]);
    }
    uint64_t rest = (uint64_t)N1[q];
    for (int s = 0; s < cnt; s++) {
        double re, im;
        oz_load<LC, CX>(t.v, idx[s], q, re, im);
        rest -= oz2_abs_term(re, E[q]) + (CX ? oz2_abs_term(im, E[q]) : 0);
        t.idx[q * OZ2_TOP + s] = idx[s];
    }
    t.cnt[q] = cnt;
    t.rest[q] = rest;
}

/* Entry (i, j)'s refined ratio: the terms of column j's list, then row i's, in list order
 * (the CPU's refined(), cpu_ozaki2.c: the order of the double sums fixes the bits). */
template <bool CX>
__device__ double oz2_refined_element(const oz2_dtops &ta, const oz2_dtops &tb, int64_t i,
                                      int64_t j, int E, int ba, int F, int bb, double ua,
                                      double ub, double G, double r0)
{
    double up = 0.0, lo_a = 0.0, lo_b = 0.0, are, aim, bre, bim;
    for (int s = 0; s < tb.cnt[j]; s++) {
        const int64_t l = tb.idx[j * OZ2_TOP + s];
        oz_load_lc<CX>(ta.v, ta.lc, l, i, are, aim);
        oz_load_lc<CX>(tb.v, tb.lc, l, j, bre, bim);
        oz2_refine_term(CX, are, aim, E, ba, bre, bim, F, bb, 1, &up, &lo_b);
    }
    for (int s = 0; s < ta.cnt[i]; s++) {
        const int64_t l = ta.idx[i * OZ2_TOP + s];
        oz_load_lc<CX>(ta.v, ta.lc, l, i, are, aim);
        oz_load_lc<CX>(tb.v, tb.lc, l, j, bre, bim);
        oz2_refine_term(CX, are, aim, E, ba, bre, bim, F, bb, 0, &up, &lo_a);
    }
    return oz2_refined_ratio(CX, up, lo_a, lo_b, ua, ub, (uint64_t)ta.rest[i],
                             (uint64_t)tb.rest[j], G, r0);
}

/* max over C of oz2_bound_ratio (Ozaki II, beta 0) or oz1_bound_ratio (Ozaki I with
 * `count` slices of beta bits), into *out (bits of a nonnegative double, so the unsigned
 * order is the numeric order and atomicMax gives the CPU's exact max). Ozaki II: *over
 * (+)= the entries whose ratio exceeds OZ2_AUTO_TARGET (an integer: any order) and, with
 * refine, those entries take their refined ratio (the CPU's max_ratio, second pass). */
template <bool CX>
__global__ void __launch_bounds__(256)
    oz_k_ratio(int beta, int count, int64_t k, int64_t m, int64_t total, int64_t mpad,
               const double *Glo, const int *Ea, const int *emin_a, const int *lsb_a,
               const int *bits_a, const unsigned long long *Na, const int *Eb,
               const int *emin_b, const int *lsb_b, const int *bits_b,
               const unsigned long long *Nb, unsigned long long *out, unsigned long long *over,
               int refine, int norm, const oz2_dtops ta, const oz2_dtops tb)
{
    OZ_SHARED(double, red, [256]);
    OZ_SHARED(unsigned, cnt, [256]);
    const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    double r = 0.0;
    unsigned above = 0;
    if (idx < total) {
        const int64_t i = idx % m, j = idx / m;
        const double G = norm ? 0.0 : Glo[i + j * mpad]; /* normwise: no lower bound */
        if (beta && norm) {
            r = oz1_norm_ratio(CX, count, beta, k, oz2_norm_rootk(CX, k), (uint64_t)Na[i],
                               (uint64_t)Nb[j]);
        } else if (beta) {
            r = oz1_bound_ratio(CX, count, beta, k, Ea[i], Eb[j], emin_a[i], emin_b[j],
                                (uint64_t)Na[i], (uint64_t)Nb[j], G);
        } else if (norm) {
            double ua, sa, ub, sb;
            oz2_ratio_terms(bits_a[i], Ea[i], emin_a[i], lsb_a[i], (uint64_t)Na[i], &ua, &sa);
            oz2_ratio_terms(bits_b[j], Eb[j], emin_b[j], lsb_b[j], (uint64_t)Nb[j], &ub, &sb);
            r = oz2_norm_ratio(CX, oz2_norm_rootk(CX, k), ua, ub, (uint64_t)Na[i],
                               (uint64_t)Nb[j]);
        } else {
            double ua, sa, ub, sb;
            oz2_ratio_terms(bits_a[i], Ea[i], emin_a[i], lsb_a[i], (uint64_t)Na[i], &ua, &sa);
            oz2_ratio_terms(bits_b[j], Eb[j], emin_b[j], lsb_b[j], (uint64_t)Nb[j], &ub, &sb);
            r = oz2_bound_ratio(CX, ua, sa, ub, sb, (uint64_t)Na[i], (uint64_t)Nb[j], G);
            above = r > OZ2_AUTO_TARGET;
            if (above && refine)
                r = oz2_refined_element<CX>(ta, tb, i, j, Ea[i],
                                            ua == 0.0 ? OZ2_EXACT : bits_a[i], Eb[j],
                                            ub == 0.0 ? OZ2_EXACT : bits_b[j], ua, ub, G, r);
        }
    }
    red[threadIdx.x] = r;
    cnt[threadIdx.x] = above;
    __syncthreads();
    for (int o = 128; o > 0; o >>= 1) {
        if ((int)threadIdx.x < o) {
            if (red[threadIdx.x + o] > red[threadIdx.x])
                red[threadIdx.x] = red[threadIdx.x + o];
            cnt[threadIdx.x] += cnt[threadIdx.x + o];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0 && red[0] > 0.0)
        atomicMax(out, (unsigned long long)__double_as_longlong(red[0]));
    if (threadIdx.x == 0 && cnt[0])
        atomicAdd(over, (unsigned long long)cnt[0]);
}

/* ---- step 5: reduction of an integer product modulo m_t -----------------------------------
 * Four consecutive rows per thread (mpad % 4 == 0). Real: R = residue(C) (first k-block) or
 * residue(residue(C) + R). Complex (Karatsuba, planes p1 = re re, p2 = im im,
 * p3 = (re+im)(re+im)): re = residue(p1 - p2), im = residue(p3 - p1 - p2); on the complex
 * set (planes P+, P-) re, im = oz2_cx_join(P+, P-); accumulated the same way into Rr and
 * Ri (oz2_residue_small, as the CPU: |values| < 2^32 here). Each result is the canonical
 * symmetric residue of the exact integer sum, whatever the k-blocking, so it equals the
 * CPU's, whose blocks are shorter. */
template <bool CX>
__device__ __forceinline__ void oz_reduce4(const int *C32, int64_t plane_c, int64_t g,
                                           int8_t *Rr, int8_t *Ri, const oz2_table &T, int t,
                                           int first)
{
    const double mt = T.m[t], inv = T.inv[t];
    const int4 p1 = reinterpret_cast<const int4 *>(C32)[g];
    int vr[4] = {p1.x, p1.y, p1.z, p1.w};
    char4 old_r = first ? make_char4(0, 0, 0, 0) : reinterpret_cast<const char4 *>(Rr)[g];
    signed char orr[4] = {old_r.x, old_r.y, old_r.z, old_r.w};
    signed char outr[4], outi[4];
    if (!CX) {
#pragma unroll
        for (int u = 0; u < 4; u++) {
            double v = oz2_residue_small((double)vr[u], mt, inv);
            outr[u] = (signed char)(first ? v : oz2_residue_small(v + (double)orr[u], mt, inv));
        }
    } else {
        const int4 p2 = reinterpret_cast<const int4 *>(C32 + plane_c)[g];
        const int4 p3 = T.cx2 ? p2 : reinterpret_cast<const int4 *>(C32 + 2 * plane_c)[g];
        int v2[4] = {p2.x, p2.y, p2.z, p2.w}, v3[4] = {p3.x, p3.y, p3.z, p3.w};
        char4 old_i = first ? make_char4(0, 0, 0, 0) : reinterpret_cast<const char4 *>(Ri)[g];
        signed char oi[4] = {old_i.x, old_i.y, old_i.z, old_i.w};
#pragma unroll
        for (int u = 0; u < 4; u++) {
            double d1 = vr[u], d2 = v2[u], d3 = v3[u], wr, wi;
            if (T.cx2) {
                oz2_cx_join(d1, d2, T.inv2[t], T.inv2ip[t], mt, inv, &wr, &wi);
            } else {
                wr = oz2_residue_small(d1 - d2, mt, inv);
                wi = oz2_residue_small(d3 - d1 - d2, mt, inv);
            }
            outr[u] = (signed char)(first ? wr : oz2_residue_small(wr + (double)orr[u], mt, inv));
            outi[u] = (signed char)(first ? wi : oz2_residue_small(wi + (double)oi[u], mt, inv));
        }
        reinterpret_cast<char4 *>(Ri)[g] = make_char4(outi[0], outi[1], outi[2], outi[3]);
    }
    reinterpret_cast<char4 *>(Rr)[g] = make_char4(outr[0], outr[1], outr[2], outr[3]);
}

template <bool CX>
__global__ void oz_k_reduce(const int *C32, int64_t plane_c, int64_t groups, int8_t *Rr,
                            int8_t *Ri, const __grid_constant__ oz2_table T, int t, int first)
{
    const int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (g < groups)
        oz_reduce4<CX>(C32, plane_c, g, Rr, Ri, T, t, first);
}

/* Every modulus at once (one k-block; modulus t = blockIdx.y): its products at
 * C32 + t np plane_c (np planes: oz2_products_per_modulus), its residues into planes t and
 * T.n + t of R. */
template <bool CX>
__global__ void oz_k_reduce_moduli(const int *C32, int64_t plane_c, int64_t groups, int8_t *R,
                                   const __grid_constant__ oz2_table T)
{
    const int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int t = blockIdx.y;
    if (g < groups)
        oz_reduce4<CX>(C32 + (int64_t)t * oz2_products_per_modulus(&T, CX) * plane_c, plane_c, g,
                       R + t * plane_c, CX ? R + (T.n + t) * plane_c : (int8_t *)NULL, T, t, 1);
}

/* ---- step 6: CRT, unscaling and the BLAS update, one kernel -------------------------------
 * One thread per element of C: threads along a column i (coalesced residue planes and C),
 * blocks along y over the columns j (a grid-stride loop past 65535 columns). Each residue
 * is added to the CRT's limb sums as it is read (oz2_crt: sums in registers, no per-element
 * array in local memory), the result is rounded once with its 2^shift unscaling and goes
 * straight into alpha X + beta C. Residue planes: t (real part), T.n + t (imaginary part),
 * each `plane` bytes, element (i, j) at i + j mpad. beta_zero never reads C. */
static inline dim3 crt_grid(int64_t m, int64_t n)
{
    return dim3((unsigned)grid1(m, 256), (unsigned)oz_min64(n, 65535));
}

template <bool CX>
__global__ void __launch_bounds__(256)
    oz_k_crt(const int8_t *R, int64_t mpad, int64_t plane, int64_t m, int64_t n, const int *Ea,
             const int *bits_a, const int *Eb, const int *bits_b, double *C, int64_t ldc,
             double ar, double ai, double br, double bi, int beta_zero, int dd,
             const __grid_constant__ oz2_table T)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    const int sa = bits_a[i] - Ea[i];
    const double al[2] = {ar, ai}, be[2] = {br, bi};
    for (int64_t j = blockIdx.y; j < n; j += gridDim.y) {
        const int shift = -sa - (bits_b[j] - Eb[j]);
        const int8_t *r = R + i + j * mpad;
        if (dd) { /* the split driver's unrounded part (oz_gemm_call.dd) */
            oz2_crt_store_dd(&T, r, plane, shift, CX, C + 2 * (CX ? 2 : 1) * (i + j * ldc));
            continue;
        }
        const double xr = oz2_crt(&T, r, plane, shift);
        const double xi = CX ? oz2_crt(&T, r + (int64_t)T.n * plane, plane, shift) : 0.0;
        oz_update_element(C + (CX ? 2 : 1) * (i + j * ldc), CX, xr, xi, al, be, beta_zero);
    }
}

#endif
