/* Ozaki scheme I's phase kernels on the CUDA executor (variants BITMASK, RN, EF, HYBRID; DGEMM and ZGEMM):
 * the integer products on INT8 tensor cores (cublasGemmEx, INT32 accumulation), every other
 * step in the kernels below, with the element functions of numerics/ozaki1.h.
 *
 * It reproduces the CPU executor's kernels (cpu/cpu_ozaki1.c) step by step and bit for bit:
 *
 *   1. split (phase 1): op(A) and op(B) are gathered into packed double columns (a row of
 *      op(A) / column of op(B) as np parts of k values, conjugated for 'C'), then one warp
 *      per packed column finds max |x| and Inf/NaN, and cuts the column into s INT8 slices
 *      per part exactly as split_column() does (same slices, same weight exponents, same
 *      "lost element" rule; RN keeps its residual in a device buffer and recomputes
 *      max |R| per slice with a warp reduction). Slices are stored as int8 planes, plane
 *      (p * np + t) holding column q's k values contiguously at q * kpad (kpad = k rounded up
 *      to 16, zeros beyond k; columns m..mpad-1 or n..npad-1 zero).
 *      Then the host reads the flags, the row/column exponents and weights (per column, not
 *      per element), for the driver's fallbacks (core/driver_ozaki1.c).
 *   2. products (phase 2): per pair (p, q) of the triangle and k-block of 65536, one
 *      gemm_i8 of A slice p (both parts stacked: kpad x np mpad) by B slice q (kpad x np npad):
 *      the np^2 real products ArBr, AiBr, ArBi, AiBi at once, each exact in INT32
 *      (65536 * 127^2 < 2^31).
 *   3. block sums (phase 3): the INT32 blocks of the pairs of one FP64 term (one pair for
 *      BITMASK/RN; a chunk of at most r consecutive pairs of one group for EF/HYBRID) are
 *      added in int64, complex parts combined as Re = ArBr - AiBi, Im = ArBi + AiBr: the exact
 *      integer the CPU gets (it sums the same integers in double, exactly).
 *   4. FP64 accumulation (phase 4): per element, acc = oz1_accumulate(acc, X, shift, scale) with
 *      acc starting at +0, terms in the CPU's order (groups g = s+1 down to 2, chunks by
 *      increasing p), shift = e_A(i, c0) + e_B(j, g - c0); the last term's kernel also
 *      applies the BLAS update (oz_update_element). The last block of a
 *      term is summed inside that term's accumulation kernel (timed as phase 4).
 *
 * A product larger than the device memory runs in tiles of C (o1_run below); when not even
 * the smallest tile fits, the kernels say so (OZ_ERR_DEVICE_MEMORY) and the dispatcher
 * decides (core/api.c).
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define OZ_CUDA_FILE "cuda_ozaki1.cu"
#include "cuda_common.cuh"
#include "../numerics/fp4.h"
#include "../numerics/ozaki1.h"


/* ---- kernels ------------------------------------------------------------------------------ */

/* op(X) -> packed columns: X[q * np * k + t * k + l] = part t of element (l, q), q < cols,
 * l < k. One block per 32 x 32 tile, read coalesced along whichever index is contiguous in
 * memory (as oz_k_pack of Ozaki II). */
template <bool LC, bool CX>
__global__ void __launch_bounds__(256)
    oz1_k_gather(oz_opv v, int64_t k, int64_t cols, int64_t tiles_l, double *X)
{
    oz_tile_each<LC, CX>(v, k, cols, tiles_l, k, cols,
                         [&](int64_t l, int64_t q, double re, double im) {
                             double *o = X + q * (CX ? 2 : 1) * k + l;
                             o[0] = re;
                             if (CX)
                                 o[k] = im;
                         });
}

__device__ __forceinline__ double oz1_warp_max(double a)
{
    for (int o = 16; o > 0; o >>= 1) {
        double b = __shfl_xor_sync(0xffffffffu, a, o);
        a = b > a ? b : a;
    }
    return a;
}

__device__ __forceinline__ int oz1_warp_and(int f)
{
    for (int o = 16; o > 0; o >>= 1)
        f &= __shfl_xor_sync(0xffffffffu, f, o);
    return f;
}

/* Zeros in every slice plane of one packed column, l in [l_from, kpad) (lanes along l). */
__device__ __forceinline__ void oz1_zero_column(int8_t *Iq, int planes, int64_t plane,
                                                int64_t l_from, int64_t kpad, int tx)
{
    for (int pt = 0; pt < planes; pt++)
        for (int64_t l = l_from + tx; l < kpad; l += 32)
            Iq[pt * plane + l] = 0;
}

/* Step 1, split_column() of the CPU: one warp per packed column q (block 32 x 8: 8 columns).
 * X: packed columns (np parts of k values); R: RN's residuals (same layout; unused
 * otherwise). Writes the slices (plane (p * np + t), column q at q * kpad), e[q * s + p],
 * top[q] = ilogb(max |x|) or INT_MIN; flags[0] |= 1 on Inf/NaN (the column is skipped, as
 * the CPU does), flags[1] |= 1 on a lost element. VAR: OZ1_BITMASK (also EF), OZ1_RN,
 * OZ1_HYBRID. */
template <int VAR>
__global__ void __launch_bounds__(256)
    oz1_k_split(const double *X, double *R, int64_t k, int np, int64_t cols, int64_t cols_pad,
                int64_t kpad, int s, int beta, int8_t *I, int64_t plane, int *e, int *top,
                int *flags)
{
    const int tx = threadIdx.x;
    const int64_t q = (int64_t)blockIdx.x * 8 + threadIdx.y; /* uniform per warp */
    if (q >= cols_pad)
        return;
    int8_t *Iq = I + q * kpad;
    if (q >= cols) { /* padding columns (IMMA wants m, n multiples of 4) */
        oz1_zero_column(Iq, s * np, plane, 0, kpad, tx);
        return;
    }
    const int64_t kk = (int64_t)np * k;
    const double *x = X + q * kk;
    double amax = 0.0;
    int fin = 1;
    for (int64_t l = tx; l < kk; l += 32) {
        const double v = x[l];
        if (!oz_is_finite(v))
            fin = 0;
        else if (fabs(v) > amax)
            amax = fabs(v);
    }
    amax = oz1_warp_max(amax);
    fin = oz1_warp_and(fin);
    if (!fin) {
        if (tx == 0)
            atomicOr(flags, 1);
        return;
    }
    int *eq = e + q * s;
    if (tx == 0)
        top[q] = amax > 0.0 ? oz_exponent(amax) : INT_MIN;
    if (amax == 0.0) {
        if (tx == 0)
            for (int p = 0; p < s; p++)
                eq[p] = oz1_hybrid_exp(0, beta, p + 1);
        oz1_zero_column(Iq, s * np, plane, 0, kpad, tx);
        return;
    }
    int lost = 0;
    if (VAR == OZ1_BITMASK) {
        const int E = oz_exponent(amax);
        if (tx == 0)
            for (int p = 0; p < s; p++)
                eq[p] = oz1_bitmask_exp(E, beta, p + 1);
        for (int t = 0; t < np; t++)
            for (int64_t l = tx; l < k; l += 32) {
                const double xv = x[t * k + l], ax = fabs(xv);
                double T_prev = 0.0;
                for (int p = 0; p < s; p++) {
                    const double T = oz1_bitmask_prefix(ax, beta * (p + 1) - E - 1);
                    Iq[(p * np + t) * plane + l] = (int8_t)oz1_bitmask_slice(xv, T, T_prev, beta);
                    T_prev = T;
                }
                if (xv != 0.0 && T_prev == 0.0)
                    lost = 1;
            }
    } else if (VAR == OZ1_HYBRID) {
        const int c0 = oz1_ceil_log2(amax);
        if (tx == 0)
            for (int p = 0; p < s; p++)
                eq[p] = oz1_hybrid_exp(c0, beta, p + 1);
        for (int t = 0; t < np; t++)
            for (int64_t l = tx; l < k; l += 32) {
                const double xv = x[t * k + l];
                double r = xv;
                for (int p = 0; p < s; p++) {
                    const int ep = oz1_hybrid_exp(c0, beta, p + 1);
                    const double Iv = oz1_rn_int(r, ep);
                    Iq[(p * np + t) * plane + l] = (int8_t)Iv;
                    r = oz1_rn_residual(r, Iv, ep);
                }
                if (xv != 0.0 && r == xv)
                    lost = 1;
            }
    } else { /* RN: the weight of slice p from max |R| of the residual left so far */
        double *Rq = R + q * kk;
        int ep = 0;
        for (int p = 0; p < s; p++) {
            double mx;
            if (p == 0) {
                mx = amax; /* R = x: the CPU's max |R| is max |x| */
            } else {
                /* each lane reads only the residuals it wrote (no cross-lane ordering) */
                mx = 0.0;
                for (int t = 0; t < np; t++)
                    for (int64_t l = tx; l < k; l += 32) {
                        const double a = fabs(Rq[t * k + l]);
                        mx = a > mx ? a : mx;
                    }
                mx = oz1_warp_max(mx);
            }
            ep = mx > 0.0 ? oz1_rn_exp(oz1_ceil_log2(mx), beta) : ep - beta; /* p > 0 */
            if (tx == 0)
                eq[p] = ep;
            for (int t = 0; t < np; t++)
                for (int64_t l = tx; l < k; l += 32) {
                    const double r = p == 0 ? x[t * k + l] : Rq[t * k + l];
                    const double Iv = oz1_rn_int(r, ep);
                    Iq[(p * np + t) * plane + l] = (int8_t)Iv;
                    Rq[t * k + l] = oz1_rn_residual(r, Iv, ep);
                }
        }
        for (int t = 0; t < np; t++)
            for (int64_t l = tx; l < k; l += 32)
                if (x[t * k + l] != 0.0 && Rq[t * k + l] == x[t * k + l])
                    lost = 1;
    }
    /* zeros beyond k in every plane */
    for (int pt = 0; pt < s * np; pt++)
        for (int64_t l = k + tx; l < kpad; l += 32)
            Iq[pt * plane + l] = 0;
    if (lost)
        atomicOr(flags + 1, 1);
}

enum { OZ1_TERM_SUM = 0, OZ1_TERM_ACC = 1, OZ1_TERM_UPDATE = 2 };

/* Steps 3 and 4, one thread per element (i, j) of C (idx = i + j m, total = m n).
 * C32: the last INT32 product, (np mpad) x (np npad), leading dimension np mpad (complex:
 * blocks ArBr, AiBr / ArBi, AiBi). X = C32's (combined) integer + (has_prev ? X64 : 0).
 *   SUM:    X64 = X (a block or pair that is not the term's last);
 *   ACC:    acc = oz1_accumulate(first ? +0 : acc, X, e_A(i, ca) + e_B(j, cb), scale);
 *   UPDATE: the same with oz1_accumulate_last, then the BLAS update of C (the last term). beta_zero never reads C.
 * X64 and acc hold part t at t * total. */
template <bool CX, int MODE>
__global__ void __launch_bounds__(256)
    oz1_k_term(const int *C32, int64_t mpad, int64_t npad, int64_t m, int64_t total,
               long long *X64, int has_prev, double *acc, int first, const int *ea,
               const int *eb, int s, int ca, int cb, double *C, int64_t ldc, double ar,
               double ai, double br, double bi, int beta_zero)
{
    const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= total)
        return;
    const int64_t i = idx % m, j = idx / m;
    long long xr, xi = 0;
    if (!CX) {
        xr = C32[i + j * mpad];
    } else {
        const int64_t ld = 2 * mpad;
        const long long rr = C32[i + j * ld], ir = C32[mpad + i + j * ld];
        const long long ri = C32[i + (npad + j) * ld], ii = C32[mpad + i + (npad + j) * ld];
        xr = rr - ii;
        xi = ri + ir;
    }
    if (has_prev) {
        xr += X64[idx];
        if (CX)
            xi += X64[total + idx];
    }
    if (MODE == OZ1_TERM_SUM) {
        X64[idx] = xr;
        if (CX)
            X64[total + idx] = xi;
        return;
    }
    /* |X| < 2^53: (double) is exact, the value of the CPU's exact double sums */
    const int shift = ea[i * s + ca] + eb[j * s + cb], scale = oz1_acc_scale(ea[i * s] + eb[j * s]);
    const double p0 = first ? 0.0 : acc[idx], p1 = CX && !first ? acc[total + idx] : 0.0;
    const bool last = MODE == OZ1_TERM_UPDATE;
    const double a0 = last ? oz1_accumulate_last(p0, (double)xr, shift, scale)
                           : oz1_accumulate(p0, (double)xr, shift, scale);
    const double a1 = !CX  ? 0.0
                      : last ? oz1_accumulate_last(p1, (double)xi, shift, scale)
                             : oz1_accumulate(p1, (double)xi, shift, scale);
    if (MODE == OZ1_TERM_ACC) {
        acc[idx] = a0;
        if (CX)
            acc[total + idx] = a1;
        return;
    }
    const double al[2] = {ar, ai}, be[2] = {br, bi};
    oz_update_element(C + (CX ? 2 : 1) * (i + j * ldc), CX, a0, a1, al, be, beta_zero);
}

/* ---- host side ------------------------------------------------------------------------------- */

/* One side (op(A) or op(B)): device arrays, host copies. */
typedef struct {
    int64_t cols;
    int *e, *top;   /* device: cols * s weights, cols tops */
    int *he, *htop; /* host copies */
} oz1_dside;

/* A block of one side being split: packed columns q0..q0+qc of op(X), full k. */
typedef struct {
    int64_t cols, cols_pad;
    oz_opv v;
    int lc;          /* l-contiguous layout */
    double *X, *R;   /* packed columns; RN residuals */
    int8_t *I;       /* s * np slice planes of kpad * cols_pad bytes */
    int *e, *top;    /* at the block's first column */
} oz1_block;

template <bool LC, bool CX>
static void launch_gather(const oz1_block *p, int64_t k, cudaStream_t st)
{
    int64_t tl = (k + 31) / 32, tq = (p->cols + 31) / 32;
    oz_launch((unsigned)(tl * tq), blk32x8(), st, oz1_k_gather<LC, CX>, p->v, k, p->cols, tl,
              p->X);
}

static void launch_split(int variant, const oz1_block *p, int64_t k, int np, int64_t kpad,
                         int s, int beta, int64_t plane, int *flags, cudaStream_t st)
{
    unsigned g = (unsigned)((p->cols_pad + 7) / 8);
    if (variant == OZ1_BITMASK || variant == OZ1_EF)
        oz_launch(g, blk32x8(), st, oz1_k_split<OZ1_BITMASK>, (const double *)p->X, p->R, k, np,
                  p->cols, p->cols_pad, kpad, s, beta, p->I, plane, p->e, p->top, flags);
    else if (variant == OZ1_HYBRID)
        oz_launch(g, blk32x8(), st, oz1_k_split<OZ1_HYBRID>, (const double *)p->X, p->R, k, np,
                  p->cols, p->cols_pad, kpad, s, beta, p->I, plane, p->e, p->top, flags);
    else
        oz_launch(g, blk32x8(), st, oz1_k_split<OZ1_RN>, (const double *)p->X, p->R, k, np,
                  p->cols, p->cols_pad, kpad, s, beta, p->I, plane, p->e, p->top, flags);
}

template <bool CX>
static void launch_term(int mode, const int *C32, int64_t mpad, int64_t npad, int64_t m,
                        int64_t total, long long *X64, int has_prev, double *acc, int first,
                        const int *ea, const int *eb, int s, int ca, int cb, double *C,
                        int64_t ldc, const oz_gemm_call *c, cudaStream_t st)
{
    int g = grid1(total, 256);
    if (mode == OZ1_TERM_SUM)
        oz_launch(g, 256, st, oz1_k_term<CX, OZ1_TERM_SUM>, C32, mpad, npad, m, total, X64,
                  has_prev, acc, first, ea, eb, s, ca, cb, C, ldc, c->alpha[0], c->alpha[1],
                  c->beta[0], c->beta[1], c->beta_zero);
    else if (mode == OZ1_TERM_ACC)
        oz_launch(g, 256, st, oz1_k_term<CX, OZ1_TERM_ACC>, C32, mpad, npad, m, total, X64,
                  has_prev, acc, first, ea, eb, s, ca, cb, C, ldc, c->alpha[0], c->alpha[1],
                  c->beta[0], c->beta[1], c->beta_zero);
    else
        oz_launch(g, 256, st, oz1_k_term<CX, OZ1_TERM_UPDATE>, C32, mpad, npad, m, total, X64,
                  has_prev, acc, first, ea, eb, s, ca, cb, C, ldc, c->alpha[0], c->alpha[1],
                  c->beta[0], c->beta[1], c->beta_zero);
}

/* One Ozaki I call on the device, C in tiles of whole rows of op(A) by whole columns of
 * op(B) (the slicing of a row or column looks at all of its k values, so k is never split;
 * oz_plan_tiles: one tile when everything fits). Phase 1 first slices every block of op(A)
 * and op(B), so that the weights, the flags and the fallbacks are those of the whole product
 * before any of C is written; a tile then re-slices its blocks unless they are the ones
 * sliced last. The slices of a row or column do not depend on the blocking, and each
 * element of a tile sums the same terms in the same order, so every tile gives the untiled
 * (and the CPU executor's) bits. */
typedef struct {
    const oz_gemm_call *c;
    run_ctx rc, *r; /* r: &rc */
    int cx, np, s, variant, beta, is_rn;
    int engine; /* an ozblas_engine: FP4 writes each INT8 slice in OZ_FP4_MAX_LIMBS limbs */
    int64_t kpad;
    mat A, B, C;
    oz1_dside sa, sb;
    oz_tiling t;
    int *flags;
    int8_t *IA, *IB;  /* slices of the blocks sliced last */
    int64_t ia, ib;   /* ... which blocks (-1: none) */
    double *X, *R;    /* split scratch; the products' region below overlaps it */
    int *C32;
    void *W4; /* the engine's work area (cuda_fp4.cu) */
    long long *X64;
    double *acc;
    oz_timeline tl;
    int *hbuf; /* the sides' host arrays and the flags */
} o1_run;

static void o1_apply(void *ctx, const oz_tiling *t)
{
    o1_run *o = (o1_run *)ctx;
    const size_t es = o->A.es;
    const int64_t k = o->c->k;
    o->t = *t;
    mat_stream(&o->A, t->res ? 0 : (size_t)(t->mb * k) * es, t->res ? 0 : (t->nI > 1 ? 2 : 1));
    mat_stream(&o->B, t->res ? 0 : (size_t)(t->nb * k) * es, t->res ? 0 : (t->nJ > 1 ? 2 : 1));
    mat_stream(&o->C, (size_t)(t->mb * t->nb) * es, t->nI * t->nJ > 1 ? 2 : 1);
}

/* The workspace, laid out for o->t (cv->base NULL: only the size): operands, weights, the
 * slices of one block of each side, then one region used by a split (packed columns,
 * residuals) and, in turn, by a tile's products (C32, X64, acc). */
static void o1_carve(void *ctx, carve *cv)
{
    o1_run *o = (o1_run *)ctx;
    const oz_gemm_call *c = o->c;
    const int64_t m = c->m, n = c->n, k = c->k, s = o->s, np = o->np;
    const int64_t mb = o->t.mb, nb = o->t.nb, mbp = oz_up4(mb), nbp = oz_up4(nb);
    mat_carve(&o->A, cv);
    mat_carve(&o->B, cv);
    mat_carve(&o->C, cv);
    o->sa.e = (int *)carve_take(cv, 4 * (size_t)(m * s));
    o->sb.e = (int *)carve_take(cv, 4 * (size_t)(n * s));
    o->sa.top = (int *)carve_take(cv, 4 * (size_t)m);
    o->sb.top = (int *)carve_take(cv, 4 * (size_t)n);
    o->flags = (int *)carve_take(cv, 8);
    o->IA = (int8_t *)carve_take(cv, (size_t)(s * np) * (size_t)(o->kpad * mbp));
    o->IB = (int8_t *)carve_take(cv, (size_t)(s * np) * (size_t)(o->kpad * nbp));
    const size_t base = cv->off, xcols = (size_t)(mb > nb ? mb : nb) * np * k * 8;
    o->X = (double *)carve_take(cv, xcols);
    o->R = o->is_rn ? (double *)carve_take(cv, xcols) : NULL;
    const size_t split_end = cv->off;
    cv->off = base;
    o->C32 = (int *)carve_take(cv, (size_t)(np * mbp) * (size_t)(np * nbp) * 4);
    o->X64 = (long long *)carve_take(cv, (size_t)(np * mb * nb) * 8);
    o->acc = (double *)carve_take(cv, (size_t)(np * mb * nb) * 8);
    o->W4 = carve_take(cv, oz_engine_work_bytes(o->engine, OZ_FP4_MAX_LIMBS, np * mbp, np * nbp,
                                                oz_min64(o->kpad, OZ_KBLOCK)));
    if (split_end > cv->off)
        cv->off = split_end;
}

static oz_blk o1_blk(const o1_run *o, int is_a, int64_t i)
{
    const int64_t q0 = i * (is_a ? o->t.mb : o->t.nb), cols = is_a ? o->c->m : o->c->n;
    const int64_t qb = is_a ? o->t.mb : o->t.nb;
    return oz_side_blk(o->c, is_a, q0, cols - q0 < qb ? cols - q0 : qb, 0, o->c->k);
}

/* Slices block i of op(A) (is_a) or op(B) into IA or IB, its weights and tops into the
 * side's arrays (phase 1). */
static ozblas_status o1_split(o1_run *o, int is_a, int64_t i)
{
    ozblas_status st = OZBLAS_OK;
    const oz_gemm_call *c = o->c;
    run_ctx *r = o->r;
    mat *Xm = is_a ? &o->A : &o->B;
    oz1_dside *d = is_a ? &o->sa : &o->sb;
    const int64_t qb = is_a ? o->t.mb : o->t.nb, q0 = i * qb;
    const oz_blk b = o1_blk(o, is_a, i);
    mat_view v;
    oz1_block p;
    p.cols = d->cols - q0 < qb ? d->cols - q0 : qb;
    p.cols_pad = oz_up4(p.cols);
    p.X = o->X;
    p.R = o->R;
    p.I = is_a ? o->IA : o->IB;
    p.e = d->e + q0 * o->s;
    p.top = d->top + q0;
    CK(mat_block(r, Xm, &b, 1, &v));
    CK(tl_mark(&o->tl, -1, r->st));
    p.lc = oz_op_view(c, is_a, v.p, v.ld, &p.v);
    OZ_DISPATCH(p.lc, o->cx, launch_gather, &p, c->k, r->st);
    CKL();
    launch_split(o->variant, &p, c->k, o->np, o->kpad, o->s, o->beta, o->kpad * p.cols_pad,
                 o->flags, r->st);
    CKL();
    CK(tl_mark(&o->tl, OZBLAS_PHASE_SPLIT, r->st));
    CK(mat_release(r, Xm, &v));
    if (is_a)
        o->ia = i;
    else
        o->ib = i;
done:
    return st;
}

/* Phases 2 to 4 of tile (I, J) into view vc of C: per FP64 term, in the CPU's order, the
 * products of its slice pairs and k-blocks, their exact sums, the accumulation; the last
 * term also applies the BLAS update. */
static ozblas_status o1_terms(o1_run *o, int64_t I, int64_t J, const mat_view *vc, int r_chunk,
                              int terms)
{
    ozblas_status st = OZBLAS_OK;
    const oz_gemm_call *c = o->c;
    run_ctx *r = o->r;
    const int s = o->s, np = o->np;
    const int64_t i0 = I * o->t.mb, j0 = J * o->t.nb;
    const int64_t mi = oz_min64(o->t.mb, c->m - i0), nj = oz_min64(o->t.nb, c->n - j0);
    const int64_t mip = oz_up4(mi), njp = oz_up4(nj), total = mi * nj;
    const int64_t kpad = o->kpad, plane_a = kpad * mip, plane_b = kpad * njp;
    const int64_t nblk = (kpad + OZ_KBLOCK - 1) / OZ_KBLOCK;
    const int *ea = o->sa.e + i0 * s, *eb = o->sb.e + j0 * s;
    int term = 0;
    CK(tl_mark(&o->tl, -1, r->st));
    for (int g = s - 1; g >= 0; g--)
        for (int c0 = 0; c0 <= g; c0 += r_chunk, term++) {
            const int c1 = c0 + r_chunk - 1 < g ? c0 + r_chunk - 1 : g;
            const int64_t nsub = (int64_t)(c1 - c0 + 1) * nblk;
            int64_t sub = 0;
            for (int p = c0; p <= c1; p++) {
                const int q = g - p;
                for (int64_t b = 0; b < nblk; b++, sub++) {
                    const int64_t l0 = b * OZ_KBLOCK;
                    const int64_t kb = kpad - l0 < OZ_KBLOCK ? kpad - l0 : OZ_KBLOCK;
                    CKB(gemm_engine(r, o->engine, OZ_FP4_MAX_LIMBS, o->W4, np * mip, np * njp, kb,
                                    o->IA + (size_t)p * np * plane_a + l0, kpad,
                                    o->IB + (size_t)q * np * plane_b + l0, kpad, o->C32, np * mip));
                    CK(tl_mark(&o->tl, OZBLAS_PHASE_INT_PRODUCTS, r->st));
                    const int last = sub == nsub - 1;
                    const int mode = !last ? OZ1_TERM_SUM
                                           : term == terms - 1 ? OZ1_TERM_UPDATE : OZ1_TERM_ACC;
                    if (o->cx)
                        launch_term<true>(mode, o->C32, mip, njp, mi, total, o->X64, sub > 0,
                                          o->acc, term == 0, ea, eb, s, c0, g - c0, vc->p,
                                          vc->ld, c, r->st);
                    else
                        launch_term<false>(mode, o->C32, mip, njp, mi, total, o->X64, sub > 0,
                                           o->acc, term == 0, ea, eb, s, c0, g - c0, vc->p,
                                           vc->ld, c, r->st);
                    CKL();
                    CK(tl_mark(&o->tl, last ? OZBLAS_PHASE_FINAL : OZBLAS_PHASE_REDUCTION, r->st));
                }
            }
        }
done:
    return st;
}

static void o1_setup(o1_run *o, const oz_gemm_call *c, int variant, int s, int beta)
{
    o->c = c;
    o->cx = c->is_complex;
    o->np = o->cx ? 2 : 1;
    o->s = s;
    o->variant = variant;
    o->beta = beta;
    o->is_rn = variant == OZ1_RN;
    o->kpad = oz_up16(c->k);
    o->sa.cols = c->m;
    o->sb.cols = c->n;
    o->ia = o->ib = -1;
}

/* Phase 1 over the whole product; the driver reads the flags, tops and weights. */
ozblas_status cuda_o1_open(const oz_gemm_call *c, const ozblas_options *opt, int s, int beta,
                           void **run, int *bad, int *lost, oz_side *a, oz_side *b,
                           ozblas_report * /* rep: the phase times come with the products */)
{
    o1_run *op;
    ozblas_status st = oz_run_new(run, opt, &op);
    if (st != OZBLAS_OK)
        return st;
    o1_setup(op, c, opt->ozaki1_variant, s, beta);
    op->engine = opt->engine;
    const int64_t m = c->m, n = c->n;
    o1_run &o = *op;
    run_ctx &rc = o.rc;
    if (!mats_init(c, rc.dev, &o.A, &o.B, &o.C))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    void *ws = oz_tiled_ws<o1_run, o1_apply, o1_carve>(&rc, c, 0, &o);
    o.hbuf = (int *)malloc(sizeof(int) * ((size_t)(m + n) * (s + 1) + 2));
    if (!ws || !o.hbuf || !tl_init(&o.tl, rc.s, 1024))
        return OZ_ERR_DEVICE_MEMORY; /* not even the smallest tiles fit */
    o.sa.he = o.hbuf;
    o.sa.htop = o.hbuf + m * s;
    o.sb.he = o.hbuf + m * (s + 1);
    o.sb.htop = o.sb.he + n * s;
    int *hflags = o.hbuf + (m + n) * (s + 1);
    const oz_tiling *t = &o.t;

    CK(stage_prepare(&rc, &o.A, &o.B, &o.C));

    /* slice every block (weights, tops and flags of the whole product); a resident op(B) is
     * staged while op(A) is sliced */
    CK(cudaMemsetAsync(o.flags, 0, 8, rc.st));
    for (int is_a = 1; is_a >= 0; is_a--) {
        mat *X = is_a ? &o.A : &o.B;
        CK(mat_upload(&rc, X));
        const int64_t nblocks = is_a ? t->nI : t->nJ;
        for (int64_t i = 0; i < nblocks; i++) {
            st = o1_split(&o, is_a, i);
            if (st != OZBLAS_OK)
                goto done;
            if (i + 1 < nblocks) {
                const oz_blk bl = o1_blk(&o, is_a, i + 1);
                CK(mat_prefetch(&rc, X, &bl, 1));
            }
        }
    }
    CK(cudaMemcpyAsync(hflags, o.flags, 8, cudaMemcpyDeviceToHost, rc.st));
    CK(cudaMemcpyAsync(o.sa.he, o.sa.e, 4 * (size_t)(m * s), cudaMemcpyDeviceToHost, rc.st));
    CK(cudaMemcpyAsync(o.sb.he, o.sb.e, 4 * (size_t)(n * s), cudaMemcpyDeviceToHost, rc.st));
    CK(cudaMemcpyAsync(o.sa.htop, o.sa.top, 4 * (size_t)m, cudaMemcpyDeviceToHost, rc.st));
    CK(cudaMemcpyAsync(o.sb.htop, o.sb.top, 4 * (size_t)n, cudaMemcpyDeviceToHost, rc.st));
    CK(cudaStreamSynchronize(rc.st));
    *bad = hflags[0] != 0;
    *lost = hflags[1] != 0;
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    a->n = m, a->top = o.sa.htop, a->e = o.sa.he;
    b->n = n, b->top = o.sb.htop, b->e = o.sb.he;
done:
    return st;
}

/* Phases 2 to 4, tile by tile; the next tile's blocks and the previous tile of C are copied
 * while a tile runs. */
ozblas_status cuda_o1_products(void *run, int r_chunk, int terms, ozblas_report *rep)
{
    o1_run &o = *(o1_run *)run;
    run_ctx &rc = o.rc;
    const oz_gemm_call *c = o.c;
    const int64_t m = c->m, n = c->n;
    const oz_tiling *t = &o.t;
    const int64_t tiles = t->nI * t->nJ;
    ozblas_status st = OZBLAS_OK;
    mat_view vc = {NULL, 0, 0}, vprev = {NULL, 0, 0};
    oz_blk bprev = {0, 0, 0, 0};
    int pending = 0;
    {
        const oz_blk b0 = {0, 0, t->mb, t->nb};
        CK(mat_prefetch(&rc, &o.C, &b0, !c->beta_zero));
    }
    for (int64_t tile = 0; tile < tiles; tile++) {
        const int64_t I = tile / t->nJ, J = tile % t->nJ;
        const int64_t i0 = I * t->mb, j0 = J * t->nb;
        const oz_blk bc = {i0, j0, oz_min64(t->mb, m - i0), oz_min64(t->nb, n - j0)};
        if (o.ia != I) {
            st = o1_split(&o, 1, I);
            if (st != OZBLAS_OK)
                goto done;
        }
        if (o.ib != J) {
            st = o1_split(&o, 0, J);
            if (st != OZBLAS_OK)
                goto done;
        }
        CK(mat_block(&rc, &o.C, &bc, !c->beta_zero, &vc));
        st = o1_terms(&o, I, J, &vc, r_chunk, terms);
        if (st != OZBLAS_OK)
            goto done;
        CK(mat_release(&rc, &o.C, &vc));
        if (tile + 1 < tiles) {
            const int64_t I1 = (tile + 1) / t->nJ, J1 = (tile + 1) % t->nJ;
            if (I1 != o.ia) {
                const oz_blk b = o1_blk(&o, 1, I1);
                CK(mat_prefetch(&rc, &o.A, &b, 1));
            }
            if (J1 != o.ib) {
                const oz_blk b = o1_blk(&o, 0, J1);
                CK(mat_prefetch(&rc, &o.B, &b, 1));
            }
        }
        if (pending)
            CK(mat_store(&rc, &o.C, &vprev, &bprev));
        vprev = vc;
        bprev = bc;
        pending = 1;
        if (tile + 1 < tiles) {
            const int64_t I1 = (tile + 1) / t->nJ, J1 = (tile + 1) % t->nJ;
            const int64_t i1 = I1 * t->mb, j1 = J1 * t->nb;
            const oz_blk b = {i1, j1, oz_min64(t->mb, m - i1), oz_min64(t->nb, n - j1)};
            CK(mat_prefetch(&rc, &o.C, &b, !c->beta_zero));
        }
    }
    if (pending) {
        pending = 0;
        CK(mat_store(&rc, &o.C, &vprev, &bprev));
    }
    if (run_sync(&rc) != cudaSuccess) {
        st = OZBLAS_ERR_DEVICE;
        goto done;
    }
    tl_finish(&o.tl, rep);
done:
    return st;
}

void cuda_o1_close(void *run)
{
    o1_run *o = (o1_run *)run;
    if (o)
        oz_run_free(o, o->r, o->hbuf, &o->tl);
}
