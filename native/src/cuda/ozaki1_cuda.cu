/* Ozaki scheme I on the CUDA executor (variants BITMASK, RN, EF, HYBRID; DGEMM and ZGEMM):
 * the integer products on INT8 tensor cores (cublasGemmEx, INT32 accumulation), every other
 * step in the kernels below, with the element functions of numerics/ozaki1.h.
 *
 * It reproduces oz_cpu_ozaki1 (cpu/ozaki1_cpu.c) step by step and bit for bit:
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
 *      per element), and applies the CPU's fallbacks in the CPU's order: Inf/NaN
 *      (NONFINITE), then a lost element or a possible FP64 overflow (EXPONENT_RANGE).
 *   2. products (phase 2): per pair (p, q) of the triangle and k-block of 65536, one
 *      gemm_i8 of A slice p (both parts stacked: kpad x np mpad) by B slice q (kpad x np npad):
 *      the np^2 real products ArBr, AiBr, ArBi, AiBi at once, each exact in INT32
 *      (65536 * 127^2 < 2^31).
 *   3. block sums (phase 3): the INT32 blocks of the pairs of one FP64 term (one pair for
 *      BITMASK/RN; a chunk of at most r consecutive pairs of one group for EF/HYBRID) are
 *      added in int64, complex parts combined as Re = ArBr - AiBi, Im = ArBi + AiBr: the exact
 *      integer the CPU gets (it sums the same integers in double, exactly).
 *   4. FP64 accumulation (phase 4): per element, acc = oz1_accumulate(acc, X, shift) with
 *      acc starting at +0, terms in the CPU's order (groups g = s+1 down to 2, chunks by
 *      increasing p), shift = e_A(i, c0) + e_B(j, g - c0); the last term's kernel also
 *      applies the BLAS update (oz_update_real / oz_update_complex). The last block of a
 *      term is summed inside that term's accumulation kernel (timed as phase 4).
 *
 * Report: as the CPU's (int_gemms = s(s+1)/2, times 4 for complex; fp64_passes = terms per
 * element; bits per row/column from the weights). When the device has not enough memory for
 * host operands, the call runs on the CPU executor (report executor "cpu"), as Ozaki II.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define OZ_CUDA_FILE "ozaki1_cuda.cu"
#include "cuda_common.cuh"
#include "../numerics/ozaki1.h"

#define OZ1_MAX_EVENTS 4096 /* beyond, phases 2 and 3 are timed together (as phase 2) */

/* ---- kernels ------------------------------------------------------------------------------ */

/* op(X) -> packed columns: X[q * np * k + t * k + l] = part t of element (l, q), q < cols,
 * l < k. One block per 32 x 32 tile, read coalesced along whichever index is contiguous in
 * memory (as oz_k_pack of Ozaki II). */
template <bool LC, bool CX>
__global__ void __launch_bounds__(256)
    oz1_k_gather(oz_opv v, int64_t k, int64_t cols, int64_t tiles_l, double *X)
{
    __shared__ double tre[32][33];
    __shared__ double tim[CX ? 32 : 1][33];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t tile = blockIdx.x;
    const int64_t l0 = (tile % tiles_l) * 32, q0 = (tile / tiles_l) * 32;
    oz_load_tile<LC, CX>(v, k, cols, l0, q0, tre, tim);
    const int64_t l = l0 + tx;
    if (l >= k)
        return;
#pragma unroll
    for (int r = 0; r < 4; r++) {
        const int ql = ty + 8 * r;
        const int64_t q = q0 + ql;
        if (q >= cols)
            return;
        double *o = X + q * (CX ? 2 : 1) * k + l;
        o[0] = tre[ql][tx];
        if (CX)
            o[k] = tim[ql][tx];
    }
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
 *   ACC:    acc = oz1_accumulate(first ? +0 : acc, X, e_A(i, ca) + e_B(j, cb));
 *   UPDATE: the same, then the BLAS update of C (the last term). beta_zero never reads C.
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
    const int shift = ea[i * s + ca] + eb[j * s + cb];
    const double a0 = oz1_accumulate(first ? 0.0 : acc[idx], (double)xr, shift);
    const double a1 = CX ? oz1_accumulate(first ? 0.0 : acc[total + idx], (double)xi, shift)
                         : 0.0;
    if (MODE == OZ1_TERM_ACC) {
        acc[idx] = a0;
        if (CX)
            acc[total + idx] = a1;
        return;
    }
    double *cij = C + (CX ? 2 : 1) * (i + j * ldc);
    if (!CX) {
        cij[0] = oz_update_real(a0, ar, br, beta_zero ? 0.0 : cij[0], beta_zero);
    } else {
        const double al[2] = {ar, ai}, be[2] = {br, bi};
        double old[2] = {0.0, 0.0}, out[2];
        if (!beta_zero) {
            old[0] = cij[0];
            old[1] = cij[1];
        }
        oz_update_complex(a0, a1, al, be, old, beta_zero, out);
        cij[0] = out[0];
        cij[1] = out[1];
    }
}

/* ---- host side ------------------------------------------------------------------------------- */

/* One side (op(A) or op(B)): device arrays, host copies. */
typedef struct {
    int64_t cols, cols_pad;
    oz_opv v;
    int lc;          /* l-contiguous layout */
    double *X, *R;   /* packed columns; RN residuals */
    int8_t *I;       /* s * np slice planes of kpad * cols_pad bytes */
    int *e, *top;    /* device: cols * s weights, cols tops */
    int *he, *htop;  /* host copies */
} oz1_dside;

template <bool LC, bool CX>
static void launch_gather(const oz1_dside *p, int64_t k, cudaStream_t st)
{
    int64_t tl = (k + 31) / 32, tq = (p->cols + 31) / 32;
    oz_launch((unsigned)(tl * tq), blk32x8(), st, oz1_k_gather<LC, CX>, p->v, k, p->cols, tl,
              p->X);
}

static void launch_split(int variant, const oz1_dside *p, int64_t k, int np, int64_t kpad,
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

/* As the CPU's side_max_top() and side_bits(). */
static int host_max_top(const oz1_dside *p)
{
    int t = INT_MIN;
    for (int64_t q = 0; q < p->cols; q++)
        t = oz_max_int(t, p->htop[q]);
    return t;
}

static void host_bits(const oz1_dside *p, int s, int *mn, int *mx)
{
    *mn = INT_MAX;
    *mx = INT_MIN;
    for (int64_t q = 0; q < p->cols; q++)
        if (p->htop[q] != INT_MIN) {
            int b = p->htop[q] + 1 - p->he[q * s + s - 1];
            *mn = oz_min_int(*mn, b);
            *mx = oz_max_int(*mx, b);
        }
    if (*mn == INT_MAX)
        *mn = *mx = 0;
}

/* Phase timing: events recorded on the stream, each closing a segment of one phase. */
typedef struct {
    cudaEvent_t *ev;
    int *label;
    int n, cap;
} oz1_timeline;

static cudaError_t tl_mark(oz1_timeline *t, int phase, cudaStream_t st)
{
    if (t->n >= t->cap)
        return cudaSuccess;
    t->label[t->n] = phase;
    return cudaEventRecord(t->ev[t->n++], st);
}

ozblas_status cuda_ozaki1(const oz_gemm_call *c, const ozblas_options *opt, ozblas_report *rep)
{
    const int cx = c->is_complex, np = cx ? 2 : 1;
    const int variant = opt->ozaki1_variant;
    const int64_t m = c->m, n = c->n, k = c->k;
    const int64_t K = cx ? 2 * k : k;
    if (K > OZ1_MAX_K) {
        rep->fallback = OZBLAS_FALLBACK_TOO_LARGE_K;
        return OZBLAS_OK;
    }
    const int beta = oz1_beta(K);
    int s = opt->slices;
    double ratio = 0.0;
    if (!s) { /* automatic precision (executor_cuda.cu, with the CPU's element functions) */
        ozblas_status ast = cuda_auto_count(c, opt, rep, beta, &s, &ratio);
        if (ast == OZBLAS_OK && s == 0 && rep->fallback != OZBLAS_FALLBACK_NONFINITE)
            rep->bound = oz1_report_bound(cx, ratio, 0);
        if (ast != OZBLAS_OK || s <= 0)
            return ast; /* a fallback reason set, or computed on the CPU */
        rep->slices = s;
    }
    const int r = oz1_chunk(variant, beta, K);
    const int npairs = s * (s + 1) / 2;
    int terms = 0;
    for (int g = 0; g < s; g++)
        terms += (g + r) / r;

    run_ctx rc;
    ozblas_status st = run_begin(&rc, opt);
    if (st != OZBLAS_OK) {
        run_end(&rc);
        return st;
    }

    const size_t es = cx ? 16 : 8;
    const int64_t kpad = (k + 15) / 16 * 16, mpad = (m + 3) / 4 * 4, npad = (n + 3) / 4 * 4;
    const int64_t nblk = (kpad + OZ_KBLOCK - 1) / OZ_KBLOCK;
    const int64_t plane_a = kpad * mpad, plane_b = kpad * npad, total = m * n;
    const int is_rn = variant == OZ1_RN;
    /* events: split start and end, then gemm / sum per (pair, k-block); beyond the cap, one
     * per term (products and block sums together, as phase 2) */
    const int64_t fine = 2 + 2 * (int64_t)npairs * nblk;
    const int coarse = fine > OZ1_MAX_EVENTS;
    const int nev = coarse ? 2 + 2 * terms : (int)fine;

    mat A, B, C;
    oz1_dside sa, sb;
    memset(&sa, 0, sizeof sa);
    memset(&sb, 0, sizeof sb);
    int *hbuf = NULL, *flags = NULL, *labels = NULL;
    int *C32 = NULL;
    long long *X64 = NULL;
    double *acc = NULL;
    oz1_timeline tl;
    memset(&tl, 0, sizeof tl);
    double ph[5] = {0, 0, 0, 0, 0};

    {
        int64_t ra = c->transa == 'N' ? m : k, ca = c->transa == 'N' ? k : m;
        int64_t rb = c->transb == 'N' ? k : n, cb_ = c->transb == 'N' ? n : k;
        if (!mat_init(&A, c->A, c->lda, ra, ca, es, rc.dev) ||
            !mat_init(&B, c->B, c->ldb, rb, cb_, es, rc.dev) ||
            !mat_init(&C, c->C, c->ldc, m, n, es, rc.dev)) {
            run_end(&rc);
            return OZBLAS_ERR_INVALID_ARGUMENT;
        }
    }

    /* workspace: operands, per-column arrays, slices, then one region used first by the
     * split (packed columns, residuals) and then by the products (C32, X64, acc) */
    const size_t xa = (size_t)(m * np * k) * 8, xb = (size_t)(n * np * k) * 8;
    size_t split_bytes, prod_bytes, total_bytes, union_off;
    {
        carve cv = {NULL, 0};
        carve_take(&cv, xa);
        carve_take(&cv, xb);
        if (is_rn) {
            carve_take(&cv, xa);
            carve_take(&cv, xb);
        }
        split_bytes = cv.off;
        cv.off = 0;
        carve_take(&cv, (size_t)(np * mpad) * (size_t)(np * npad) * 4);
        carve_take(&cv, (size_t)np * total * 8);
        carve_take(&cv, (size_t)np * total * 8);
        prod_bytes = cv.off;
        cv.off = 0;
        carve_take(&cv, mat_bytes(&A));
        carve_take(&cv, mat_bytes(&B));
        carve_take(&cv, mat_bytes(&C));
        carve_take(&cv, 4 * (size_t)(m * s));
        carve_take(&cv, 4 * (size_t)(n * s));
        carve_take(&cv, 4 * (size_t)m);
        carve_take(&cv, 4 * (size_t)n);
        carve_take(&cv, 8);
        carve_take(&cv, (size_t)s * np * plane_a);
        carve_take(&cv, (size_t)s * np * plane_b);
        union_off = cv.off;
        total_bytes = union_off + (split_bytes > prod_bytes ? split_bytes : prod_bytes);
    }
    char *ws = (char *)ws_get(rc.s, total_bytes);
    hbuf = (int *)malloc(sizeof(int) * ((size_t)(m + n) * (s + 1) + 2));
    labels = (int *)malloc(sizeof(int) * (size_t)nev);
    if (!ws || !hbuf || !labels || !events_get(rc.s, nev)) {
        free(hbuf);
        free(labels);
        run_end(&rc);
        if (!A.on_dev && !B.on_dev && !C.on_dev) {
            /* Host operands and not enough device memory: compute this call on the CPU. */
            rep->executor = OZBLAS_EXECUTOR_CPU;
            return oz_cpu_ozaki1(c, opt, rep);
        }
        return OZBLAS_ERR_DEVICE;
    }
    tl.ev = rc.s->ev;
    tl.label = labels;
    tl.cap = nev;
    {
        carve cv = {ws, 0};
        if (!A.on_dev)
            A.dev = (double *)carve_take(&cv, mat_bytes(&A));
        if (!B.on_dev)
            B.dev = (double *)carve_take(&cv, mat_bytes(&B));
        if (!C.on_dev)
            C.dev = (double *)carve_take(&cv, mat_bytes(&C));
        sa.e = (int *)carve_take(&cv, 4 * (size_t)(m * s));
        sb.e = (int *)carve_take(&cv, 4 * (size_t)(n * s));
        sa.top = (int *)carve_take(&cv, 4 * (size_t)m);
        sb.top = (int *)carve_take(&cv, 4 * (size_t)n);
        flags = (int *)carve_take(&cv, 8);
        sa.I = (int8_t *)carve_take(&cv, (size_t)s * np * plane_a);
        sb.I = (int8_t *)carve_take(&cv, (size_t)s * np * plane_b);
        cv.off = union_off;
        sa.X = (double *)carve_take(&cv, xa);
        sb.X = (double *)carve_take(&cv, xb);
        if (is_rn) {
            sa.R = (double *)carve_take(&cv, xa);
            sb.R = (double *)carve_take(&cv, xb);
        }
        cv.off = union_off;
        C32 = (int *)carve_take(&cv, (size_t)(np * mpad) * (size_t)(np * npad) * 4);
        X64 = (long long *)carve_take(&cv, (size_t)np * total * 8);
        acc = (double *)carve_take(&cv, (size_t)np * total * 8);
    }
    sa.cols = m;
    sa.cols_pad = mpad;
    sb.cols = n;
    sb.cols_pad = npad;
    sa.he = hbuf;
    sa.htop = hbuf + m * s;
    sb.he = hbuf + m * (s + 1);
    sb.htop = sb.he + n * s;
    int *hflags = hbuf + (m + n) * (s + 1);

    CK(mat_upload(&A, c->lda, rc.st));
    CK(mat_upload(&B, c->ldb, rc.st));
    if (!c->beta_zero)
        CK(mat_upload(&C, c->ldc, rc.st));

    sa.lc = oz_op_view(c, 1, A.dev, A.ld, &sa.v);
    sb.lc = oz_op_view(c, 0, B.dev, B.ld, &sb.v);

    /* ---- phase 1: split ---- */
    CK(tl_mark(&tl, 0, rc.st));
    CK(cudaMemsetAsync(flags, 0, 8, rc.st));
    OZ_DISPATCH(sa.lc, cx, launch_gather, &sa, k, rc.st);
    CKL();
    OZ_DISPATCH(sb.lc, cx, launch_gather, &sb, k, rc.st);
    CKL();
    launch_split(variant, &sa, k, np, kpad, s, beta, plane_a, flags, rc.st);
    CKL();
    launch_split(variant, &sb, k, np, kpad, s, beta, plane_b, flags, rc.st);
    CKL();
    CK(tl_mark(&tl, 1, rc.st));
    CK(cudaMemcpyAsync(hflags, flags, 8, cudaMemcpyDeviceToHost, rc.st));
    CK(cudaMemcpyAsync(sa.he, sa.e, 4 * (size_t)(m * s), cudaMemcpyDeviceToHost, rc.st));
    CK(cudaMemcpyAsync(sb.he, sb.e, 4 * (size_t)(n * s), cudaMemcpyDeviceToHost, rc.st));
    CK(cudaMemcpyAsync(sa.htop, sa.top, 4 * (size_t)m, cudaMemcpyDeviceToHost, rc.st));
    CK(cudaMemcpyAsync(sb.htop, sb.top, 4 * (size_t)n, cudaMemcpyDeviceToHost, rc.st));
    CK(cudaStreamSynchronize(rc.st));
    rep->phase_seconds[1] = 1e-3 * elapsed(tl.ev[0], tl.ev[1]);
    if (hflags[0]) {
        rep->fallback = OZBLAS_FALLBACK_NONFINITE;
        goto done;
    }
    {
        int ta = host_max_top(&sa), tb = host_max_top(&sb);
        if (hflags[1] || (ta != INT_MIN && tb != INT_MIN && oz1_may_overflow(ta, tb, K))) {
            rep->fallback = OZBLAS_FALLBACK_EXPONENT_RANGE;
            goto done;
        }
    }
    host_bits(&sa, s, &rep->min_bits_a, &rep->max_bits_a);
    host_bits(&sb, s, &rep->min_bits_b, &rep->max_bits_b);

    /* ---- phases 2 to 4: per FP64 term, in the CPU's order ---- */
    {
        int term = 0;
        for (int g = s - 1; g >= 0; g--)
            for (int c0 = 0; c0 <= g; c0 += r, term++) {
                const int c1 = c0 + r - 1 < g ? c0 + r - 1 : g;
                const int64_t nsub = (int64_t)(c1 - c0 + 1) * nblk;
                int64_t sub = 0;
                for (int p = c0; p <= c1; p++) {
                    const int q = g - p;
                    for (int64_t b = 0; b < nblk; b++, sub++) {
                        const int64_t l0 = b * OZ_KBLOCK;
                        const int64_t kb = kpad - l0 < OZ_KBLOCK ? kpad - l0 : OZ_KBLOCK;
                        CKB(gemm_i8(&rc, np * mpad, np * npad, kb,
                                    sa.I + (size_t)p * np * plane_a + l0, kpad,
                                    sb.I + (size_t)q * np * plane_b + l0, kpad, C32, np * mpad));
                        if (!coarse)
                            CK(tl_mark(&tl, 2, rc.st));
                        const int last = sub == nsub - 1;
                        const int mode = !last ? OZ1_TERM_SUM
                                               : term == terms - 1 ? OZ1_TERM_UPDATE
                                                                   : OZ1_TERM_ACC;
                        if (cx)
                            launch_term<true>(mode, C32, mpad, npad, m, total, X64, sub > 0,
                                              acc, term == 0, sa.e, sb.e, s, c0, g - c0, C.dev,
                                              C.ld, c, rc.st);
                        else
                            launch_term<false>(mode, C32, mpad, npad, m, total, X64, sub > 0,
                                               acc, term == 0, sa.e, sb.e, s, c0, g - c0,
                                               C.dev, C.ld, c, rc.st);
                        CKL();
                        if (!coarse)
                            CK(tl_mark(&tl, last ? 4 : 3, rc.st));
                        else if (last)
                            CK(tl_mark(&tl, 4, rc.st));
                        else if (sub == nsub - 2)
                            CK(tl_mark(&tl, 2, rc.st)); /* products and sums of the term */
                    }
                }
            }
    }
    CK(mat_download(&C, c->ldc, rc.st));
    CK(cudaStreamSynchronize(rc.st));

    for (int i = 2; i < tl.n; i++)
        ph[tl.label[i]] += elapsed(tl.ev[i - 1], tl.ev[i]);
    for (int i = 2; i < 5; i++)
        rep->phase_seconds[i] = 1e-3 * ph[i];
    rep->int_gemms = npairs * (cx ? 4 : 1) + (opt->slices ? 0 : 2);
    rep->fp64_passes = terms;
    if (!opt->slices)
        rep->bound = oz1_report_bound(cx, ratio, terms);

done:
    if (cudaStreamSynchronize(rc.st) != cudaSuccess) {
        (void)cudaGetLastError();
        if (st == OZBLAS_OK)
            st = OZBLAS_ERR_DEVICE;
    }
    free(hbuf);
    free(labels);
    run_end(&rc);
    return st;
}
