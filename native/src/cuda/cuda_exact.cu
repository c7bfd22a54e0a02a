/* Exact products on the CUDA executor (numerics/exact.h): accuracy "correct" and the
 * double-double products, with INT8 moduli on the INT8 units.
 *
 * The steps are exact.h's, as on the CPU (core/exact_gemm.c): the per-row and per-column
 * statistics, the integers A'_il = a_il 2^-low_i, their residues, the reduction of each
 * k-block's integer products, the CRT, the direct (long-accumulator) entries, the one
 * rounding and the update. Only the integer engine differs: the CPU's host DGEMM needs
 * residues below 2^21 (moduli below 2^22, q m^2 / 4 <= 2^53); here the products are INT8 x
 * INT8 -> INT32 through cublasGemmEx, so the moduli are exact.h's INT8 family (odd, coprime,
 * below 256: |residue| <= 127) and a k-block of OZ_KBLOCK = 65536 stays exact (65536 127^2 <
 * 2^31). The count is chosen by the same function for that family (budget 332 bits with all
 * 48 moduli, against about 1400 on the CPU), so more rows and columns may go direct here;
 * every entry is still the exact product rounded once, so the result is the CPU executor's
 * bit for bit.
 *
 * Memory: one piece of the cached workspace for the operands and the statistics, then one
 * allocation (once the count is known) for the integers (10 bytes per element of op(A) and
 * op(B), twice for complex), one modulus' INT8 residues, its INT32 products and the residues
 * of C (4 bytes per entry per modulus, twice for complex). No tiling: a product that does not
 * fit returns OZ_ERR_DEVICE_MEMORY, and the dispatcher computes it on the host
 * (oz_exact_run) when its operands are there. Not yet run on a GPU: checked in the CPU
 * emulation (emu/) against the CPU executor. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define OZ_CUDA_FILE "cuda_exact.cu"
#include "cuda_common.cuh"

extern "C" {
#include "../numerics/exact.h"
}

/* Step 1: one thread per row of op(A) or column of op(B). */
static __global__ void ozx_k_stats(ozx_opv v, int64_t outer, int64_t k, int *low, int *top,
                                   char *dir)
{
    int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (o < outer)
        ozx_outer_stats(&v, o, k, &low[o], &top[o], &dir[o]);
}

/* The integers F 2^s of every element of a non-direct outer index, at o kp + l (the planes
 * are zero beyond k and beyond the outer count: residue 0). */
static __global__ void ozx_k_integers(ozx_opv v, int64_t outer, int64_t k, int64_t kp,
                                      const int *low, const int *top, const char *dir,
                                      double *F0, double *F1, int16_t *s0, int16_t *s1)
{
    int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= outer * k)
        return;
    const int64_t o = e / k, l = e % k, at = o * kp + l;
    if (dir[o] || top[o] == 0)
        return;
    double x[2];
    ozx_get(&v, o, l, &x[0], &x[1]);
    int sh;
    F0[at] = ozx_integer(x[0], -low[o], &sh);
    s0[at] = (int16_t)sh; /* sh < top <= 332 */
    if (v.cx) {
        F1[at] = ozx_integer(x[1], -low[o], &sh);
        s1[at] = (int16_t)sh;
    }
}

/* Step 3 for one modulus over a whole plane: INT8 residues (re; im and re + im for complex). */
static __global__ void ozx_k_residues(const double *F0, const double *F1, const int16_t *s0,
                                      const int16_t *s1, int64_t len, int cx, double m,
                                      double inv, const double *pow2, int8_t *R0, int8_t *R1,
                                      int8_t *R2)
{
    int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= len)
        return;
    double re, im = 0.0, sum = 0.0;
    ozx_residues(F0[e], s0[e], cx ? F1[e] : 0.0, cx ? s1[e] : 0, cx, m, inv, pow2, &re, &im, &sum);
    R0[e] = (int8_t)re;
    if (cx) {
        R1[e] = (int8_t)im;
        R2[e] = (int8_t)sum;
    }
}

/* Step 4's reduction of one k-block's products (planes of ld mp) into the residues of C
 * (compact, m x n; the imaginary part mn further). */
static __global__ void ozx_k_reduce(const int *P, int64_t plane, int64_t mp, int64_t m,
                                    int64_t n, int cx, int first, double md, double inv,
                                    float *Rr, float *Ri)
{
    int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m * n)
        return;
    const int64_t i = e % m, j = e / m, ep = i + j * mp;
    ozx_reduce((double)P[ep], cx ? (double)P[plane + ep] : 0.0,
               cx ? (double)P[2 * plane + ep] : 0.0, cx, first, md, inv, &Rr[e],
               cx ? &Ri[e] : NULL);
}

/* The per-side data the final kernel reads. */
typedef struct {
    ozx_opv v;
    const int *low, *top;
    const char *dir;
} ozx_dside;

/* Steps 5 to 7 and the update, one thread per entry (as the CPU's entry loop): DIRECT, the
 * entries of direct rows or columns (the long accumulator: a large frame, hence a kernel of
 * their own, launched only where there are some); otherwise the others. */
template <bool DIRECT>
static __global__ void ozx_k_final(const ozx_table *T, const float *R, int64_t m, int64_t n,
                                   int64_t k, ozx_dside a, ozx_dside b, ozx_update up,
                                   double *C, int64_t ldc, double *lo, int64_t ldlo)
{
    int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m * n)
        return;
    const int64_t i = e % m, j = e / m;
    const int w = up.cx ? 2 : 1, dd = lo != NULL;
    double v[2] = {0.0, 0.0}, vl[2] = {0.0, 0.0};
    if ((a.dir[i] || b.dir[j]) != DIRECT)
        return;
    if (DIRECT) {
        ozx_direct_entry(&a.v, &b.v, i, j, k, dd, v, vl);
    } else if (T && a.top[i] && b.top[j]) {
        const int base = a.low[i] + b.low[j];
        for (int p = 0; p < w; p++)
            ozx_crt_round(T, R + p * m * n + e, w * m * n, base, dd, &v[p], &vl[p], T->limbs);
    }
    ozx_store(&up, C, ldc, lo, ldlo, i, j, v, vl);
}

/* One side's device and host arrays. */
typedef struct {
    ozx_dside d;
    int64_t outer, pad; /* outer count, padded to a multiple of 4 (IMMA) */
    int *low, *top;
    char *dir;
    int *htop;
    char *hdir;
    double *F[2];
    int16_t *s[2];
    int8_t *R; /* this modulus' residue planes (1, or 3 for complex) */
} xside;

static void xside_carve(xside *s, carve *cv)
{
    s->low = (int *)carve_take(cv, 4 * (size_t)s->outer);
    s->top = (int *)carve_take(cv, 4 * (size_t)s->outer);
    s->dir = (char *)carve_take(cv, (size_t)s->outer);
}

/* The count-dependent buffers (cv->base NULL: only the size). */
static void big_carve(xside *a, xside *b, int cx, int64_t kp, int N, int pw, int64_t m,
                      int64_t n, int lo_buf, carve *cv, ozx_table **T, double **pow2, int **P,
                      float **R, double **lo)
{
    const int w = cx ? 2 : 1, np = cx ? 3 : 1;
    xside *sd[2] = {a, b};
    for (int q = 0; q < 2; q++) {
        const size_t len = (size_t)(sd[q]->pad * kp);
        for (int p = 0; p < w; p++) {
            sd[q]->F[p] = (double *)carve_take(cv, 8 * len);
            sd[q]->s[p] = (int16_t *)carve_take(cv, 2 * len);
        }
        if (!cx)
            sd[q]->F[1] = NULL, sd[q]->s[1] = NULL;
        sd[q]->R = (int8_t *)carve_take(cv, (size_t)np * len);
    }
    *T = (ozx_table *)carve_take(cv, sizeof(ozx_table));
    *pow2 = (double *)carve_take(cv, 8 * (size_t)(N * pw));
    *P = (int *)carve_take(cv, 4 * (size_t)(np * a->pad * b->pad));
    *R = (float *)carve_take(cv, 4 * (size_t)(w * N) * (size_t)(m * n));
    *lo = lo_buf ? (double *)carve_take(cv, 8 * (size_t)(w * m * n)) : NULL;
}

ozblas_status cuda_exact_gemm(const oz_gemm_call *c, const ozblas_options *opt, double *lo,
                              int64_t ldlo, ozblas_report *rep)
{
    run_ctx r;
    ozblas_status st = run_begin(&r, opt);
    const int cx = c->is_complex, w = cx ? 2 : 1, np = cx ? 3 : 1;
    const int64_t m = c->m, n = c->n, k = c->k, kp = oz_up16(k);
    const size_t es = cx ? 16 : 8;
    mat A, B, C;
    mat_view vc;
    const oz_blk bc = {0, 0, m, n};
    xside a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    char *big = NULL;
    int *hbuf = NULL;
    double *pow2h = NULL;
    int N = 0, ta = 0, tb = 0, lo_dev = 0, pinned;
    int64_t direct = 0;
    const ozx_table *T = NULL;
    ozx_table *dT = NULL;
    double *dpow2 = NULL, *lo_d = NULL;
    int *P = NULL;
    float *R = NULL;
    const int64_t nkb = (kp + OZ_KBLOCK - 1) / OZ_KBLOCK;
    if (st != OZBLAS_OK)
        goto done;
    if (!mats_init(c, r.dev, &A, &B, &C)) {
        st = OZBLAS_ERR_INVALID_ARGUMENT;
        goto done;
    }
    if (lo) {
        lo_dev = mem_where(lo, r.dev, &pinned);
        if (lo_dev < 0) {
            st = OZBLAS_ERR_INVALID_ARGUMENT;
            goto done;
        }
    }
    mat_stream(&C, (size_t)(m * n) * es, 1);
    a.outer = m;
    b.outer = n;
    a.pad = oz_up4(m);
    b.pad = oz_up4(n);
    {
        carve cv = {NULL, 0};
        for (int pass = 0; pass < 2; pass++) {
            mat_carve(&A, &cv);
            mat_carve(&B, &cv);
            mat_carve(&C, &cv);
            xside_carve(&a, &cv);
            xside_carve(&b, &cv);
            if (pass == 0) {
                cv.base = (char *)ws_get(r.s, cv.off);
                cv.off = 0;
                if (!cv.base) {
                    st = OZ_ERR_DEVICE_MEMORY;
                    goto done;
                }
            }
        }
    }
    a.d.v = {A.dev, A.ld, c->transa, 1, cx};
    b.d.v = {B.dev, B.ld, c->transb, 0, cx};
    hbuf = (int *)malloc(4 * (size_t)(m + n) + (size_t)(m + n) + 8);
    if (!hbuf) {
        st = OZBLAS_ERR_ALLOCATION;
        goto done;
    }
    a.htop = hbuf;
    b.htop = hbuf + m;
    a.hdir = (char *)(hbuf + m + n);
    b.hdir = a.hdir + m;
    CK(stage_prepare(&r, &A, &B, &C));
    CK(mat_upload(&r, &A));
    CK(mat_upload(&r, &B));
    a.d.v.X = A.dev; /* resident copies exist once uploaded */
    b.d.v.X = B.dev;
    a.d.v.ld = A.ld;
    b.d.v.ld = B.ld;

    /* step 1 on the device, step 2 on the host (ozx_choose_count, as the CPU's) */
    oz_launch(grid1(m, 128), 128, r.st, ozx_k_stats, a.d.v, m, k, a.low, a.top, a.dir);
    CKL();
    oz_launch(grid1(n, 128), 128, r.st, ozx_k_stats, b.d.v, n, k, b.low, b.top, b.dir);
    CKL();
    CK(cudaMemcpyAsync(a.htop, a.top, 4 * (size_t)m, cudaMemcpyDeviceToHost, r.st));
    CK(cudaMemcpyAsync(b.htop, b.top, 4 * (size_t)n, cudaMemcpyDeviceToHost, r.st));
    CK(cudaMemcpyAsync(a.hdir, a.dir, (size_t)m, cudaMemcpyDeviceToHost, r.st));
    CK(cudaMemcpyAsync(b.hdir, b.dir, (size_t)n, cudaMemcpyDeviceToHost, r.st));
    CK(cudaStreamSynchronize(r.st));
    N = ozx_choose_count(ozx_table_get_i8, OZX_I8_MAX_MODULI, k, cx, a.htop, a.hdir, m, b.htop,
                         b.hdir, n, &ta, &tb);
    {
        int64_t da = 0, db = 0;
        for (int64_t i = 0; i < m; i++)
            da += a.hdir[i];
        for (int64_t j = 0; j < n; j++)
            db += b.hdir[j];
        direct = da * n + db * m - da * db;
    }
    CK(cudaMemcpyAsync(a.dir, a.hdir, (size_t)m, cudaMemcpyHostToDevice, r.st));
    CK(cudaMemcpyAsync(b.dir, b.hdir, (size_t)n, cudaMemcpyHostToDevice, r.st));
    T = N ? ozx_table_get_i8(N) : NULL;
    if (N && !T) {
        st = OZBLAS_ERR_ALLOCATION;
        goto done;
    }
    {
        const int pw = (ta > tb ? ta : tb) + 1; /* 2^e mod m_t for e < pw */
        const int lo_buf = lo && !lo_dev;
        carve cv = {NULL, 0};
        big_carve(&a, &b, cx, kp, N, pw, m, n, lo_buf, &cv, &dT, &dpow2, &P, &R, &lo_d);
        if (cudaMalloc((void **)&big, cv.off) != cudaSuccess) {
            (void)cudaGetLastError();
            big = NULL;
            st = OZ_ERR_DEVICE_MEMORY;
            goto done;
        }
        cv.base = big;
        cv.off = 0;
        big_carve(&a, &b, cx, kp, N, pw, m, n, lo_buf, &cv, &dT, &dpow2, &P, &R, &lo_d);
        if (!lo_buf)
            lo_d = lo;
        if (N) {
            pow2h = (double *)malloc(8 * (size_t)(N * pw));
            if (!pow2h) {
                st = OZBLAS_ERR_ALLOCATION;
                goto done;
            }
            for (int t = 0; t < N; t++) {
                double *p2 = pow2h + (size_t)t * pw;
                p2[0] = 1.0;
                for (int e = 1; e < pw; e++)
                    p2[e] = ozx_mod(2.0 * p2[e - 1], T->m[t], T->inv[t]);
            }
            CK(cudaMemcpyAsync(dT, T, sizeof *T, cudaMemcpyHostToDevice, r.st));
            CK(cudaMemcpyAsync(dpow2, pow2h, 8 * (size_t)(N * pw), cudaMemcpyHostToDevice, r.st));
            xside *sd[2] = {&a, &b};
            for (int q = 0; q < 2; q++) {
                xside *s = sd[q];
                const size_t len = (size_t)(s->pad * kp);
                for (int p = 0; p < w; p++) {
                    CK(cudaMemsetAsync(s->F[p], 0, 8 * len, r.st));
                    CK(cudaMemsetAsync(s->s[p], 0, 2 * len, r.st));
                }
                oz_launch(grid1(s->outer * k, 256), 256, r.st, ozx_k_integers, s->d.v, s->outer,
                          k, kp, (const int *)s->low, (const int *)s->top, (const char *)s->dir,
                          s->F[0], s->F[1], s->s[0], s->s[1]);
                CKL();
            }
            const int64_t plane_a = a.pad * kp, plane_b = b.pad * kp, plane_c = a.pad * b.pad;
            for (int t = 0; t < N; t++) {
                const double mt = T->m[t], inv = T->inv[t];
                for (int q = 0; q < 2; q++) {
                    xside *s = sd[q];
                    const int64_t len = s->pad * kp;
                    oz_launch(grid1(len, 256), 256, r.st, ozx_k_residues, (const double *)s->F[0],
                              (const double *)s->F[1], (const int16_t *)s->s[0],
                              (const int16_t *)s->s[1], len, cx, mt, inv,
                              (const double *)(dpow2 + (size_t)t * pw), s->R,
                              cx ? s->R + len : (int8_t *)NULL, cx ? s->R + 2 * len : (int8_t *)NULL);
                    CKL();
                }
                float *Rr = R + (size_t)(w * t) * (size_t)(m * n);
                for (int64_t kb0 = 0; kb0 < nkb; kb0++) {
                    const int64_t l0 = kb0 * OZ_KBLOCK, kl = oz_min64(OZ_KBLOCK, kp - l0);
                    for (int p = 0; p < np; p++)
                        CKB(gemm_i8(&r, a.pad, b.pad, kl, a.R + p * plane_a + l0, kp,
                                    b.R + p * plane_b + l0, kp, P + p * plane_c, a.pad));
                    oz_launch(grid1(m * n, 256), 256, r.st, ozx_k_reduce, (const int *)P, plane_c,
                              a.pad, m, n, cx, (int)(kb0 == 0), mt, inv, Rr,
                              cx ? Rr + m * n : (float *)NULL);
                    CKL();
                }
            }
        }
    }
    a.d.low = a.low;
    a.d.top = a.top;
    a.d.dir = a.dir;
    b.d.low = b.low;
    b.d.top = b.top;
    b.d.dir = b.dir;
    CK(mat_block(&r, &C, &bc, !c->beta_zero, &vc));
    {
        const ozx_update up = {{c->alpha[0], c->alpha[1]}, {c->beta[0], c->beta[1]}, c->beta_zero,
                               c->alpha[0] == 1.0 && c->alpha[1] == 0.0 && c->beta_zero, cx};
        const ozx_table *Td = N ? dT : NULL;
        const int64_t ldl = lo && !lo_dev ? m : ldlo;
        oz_launch(grid1(m * n, 128), 128, r.st, ozx_k_final<false>, Td, (const float *)R, m, n,
                  k, a.d, b.d, up, vc.p, vc.ld, lo_d, ldl);
        CKL();
        if (direct) {
            oz_launch(grid1(m * n, 128), 128, r.st, ozx_k_final<true>, Td, (const float *)R, m,
                      n, k, a.d, b.d, up, vc.p, vc.ld, lo_d, ldl);
            CKL();
        }
    }
    CK(mat_release(&r, &C, &vc));
    CK(mat_store(&r, &C, &vc, &bc));
    if (lo && !lo_dev)
        CK(cudaMemcpy2DAsync(lo, (size_t)ldlo * es, lo_d, (size_t)m * es, (size_t)m * es,
                             (size_t)n, cudaMemcpyDeviceToHost, r.st));
    if (rep) {
        rep->method = OZBLAS_METHOD_OZAKI2;
        rep->moduli = N;
        rep->int_gemms = (int)(N * nkb * np);
        rep->fp64_passes = 0;
        rep->direct_entries = direct;
        rep->max_bits_a = ta;
        rep->max_bits_b = tb;
    }
done:
    if (r.s && run_sync(&r) != cudaSuccess && st == OZBLAS_OK)
        st = OZBLAS_ERR_DEVICE;
    if (big)
        cudaFree(big);
    free(hbuf);
    free(pow2h);
    run_end(&r);
    return st;
}
