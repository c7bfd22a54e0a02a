/* The CUDA executor's exact-product kernels (numerics/exact.h): accuracy "correct" and the
 * double-double products, with INT8 moduli on the INT8 units.
 *
 * The driver (core/exact_gemm.c) runs exact.h's steps through these kernels, as it does
 * the CPU's (cpu/cpu_exact.c): the per-row and per-column statistics, the integers
 * A'_il = a_il 2^-low_i, their residues, the reduction of each k-block's integer products,
 * the CRT, the direct (long-accumulator) entries, the one rounding and the update. Only the
 * integer engine differs: the CPU's host DGEMM needs residues below 2^21 (moduli below
 * 2^22, q m^2 / 4 <= 2^53); here the products are INT8 x
 * INT8 -> INT32 through cublasGemmEx, so the moduli are exact.h's INT8 family (odd, coprime,
 * below 256: |residue| <= 127) and a k-block of OZ_KBLOCK = 65536 stays exact (65536 127^2 <
 * 2^31). The count is chosen by the same function for that family (budget 332 bits with all
 * 48 moduli, against about 1400 on the CPU), so more rows and columns may go direct here;
 * every entry is still the exact product rounded once, so the result is the CPU executor's
 * bit for bit. Complex products take the INT8 complex family (22 moduli, 151 bits, two
 * products per modulus) where the driver finds it holds every row and column the 48 do.
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

/* The same on a complex family: A+ into R0, A- into R1. */
static __global__ void ozx_k_residues_pm(const double *F0, const double *F1, const int16_t *s0,
                                         const int16_t *s1, int64_t len, double m, double inv,
                                         const double *pow2, double ip, int8_t *R0, int8_t *R1)
{
    int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= len)
        return;
    double plus, minus;
    ozx_residues_pm(F0[e], s0[e], F1[e], s1[e], m, inv, pow2, ip, &plus, &minus);
    R0[e] = (int8_t)plus;
    R1[e] = (int8_t)minus;
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

/* The same on a complex family (planes P+, P-). */
static __global__ void ozx_k_reduce_pm(const int *P, int64_t plane, int64_t mp, int64_t m,
                                       int64_t n, int first, double md, double inv, double inv2,
                                       double inv2ip, float *Rr, float *Ri)
{
    int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m * n)
        return;
    const int64_t i = e % m, j = e / m, ep = i + j * mp;
    ozx_reduce_pm((double)P[ep], (double)P[plane + ep], first, md, inv, inv2, inv2ip, &Rr[e],
                  &Ri[e]);
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
    int8_t *R; /* this modulus' residue planes (1; complex 3, or 2 on a complex family) */
} xside;

static void xside_carve(xside *s, carve *cv)
{
    s->low = (int *)carve_take(cv, 4 * (size_t)s->outer);
    s->top = (int *)carve_take(cv, 4 * (size_t)s->outer);
    s->dir = (char *)carve_take(cv, (size_t)s->outer);
}

/* The count-dependent buffers for np residue planes (cv->base NULL: only the size). */
static void big_carve(xside *a, xside *b, int cx, int np, int64_t kp, int N, int pw, int64_t m,
                      int64_t n, int lo_buf, carve *cv, ozx_table **T, double **pow2, int **P,
                      float **R, double **lo)
{
    const int w = cx ? 2 : 1;
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

/* One call's state between the driver's kernel calls (oz_run_new). */
typedef struct {
    run_ctx rc, *r;
    const oz_gemm_call *c;
    int cx, lo_dev;
    int64_t kp; /* k padded to a multiple of 16 (IMMA); the padding's residues are 0 */
    double *lo;
    int64_t ldlo;
    mat A, B, C;
    xside a, b;
    int *hbuf; /* the sides' htop and hdir */
    char *big; /* the count-dependent buffers (big_carve) */
    const ozx_table *T;
    ozx_table *dT;
    double *dpow2, *lo_d;
    int pw;
    int *P;   /* one k-block's INT32 products, planes of a.pad b.pad */
    float *R; /* the residues of C: per modulus its real part, then its imaginary part */
} xrun;

/* The operands staged, step 1 on the device, its bits and directs to the host. */
static ozblas_status cuda_x_open(const oz_gemm_call *c, const ozblas_options *opt, double *lo,
                                 int64_t ldlo, void **run, oz_xside *oa, oz_xside *ob,
                                 ozblas_report *)
{
    xrun *xp;
    ozblas_status st = oz_run_new(run, opt, &xp);
    if (st != OZBLAS_OK)
        return st;
    xrun &x = *xp;
    run_ctx &r = x.rc;
    xside &a = x.a, &b = x.b;
    const int cx = c->is_complex;
    const int64_t m = c->m, n = c->n, k = c->k;
    int pinned;
    x.c = c;
    x.cx = cx;
    x.kp = oz_up16(k);
    x.lo = lo;
    x.ldlo = ldlo;
    if (!mats_init(c, r.dev, &x.A, &x.B, &x.C))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    if (lo && (x.lo_dev = mem_where(lo, r.dev, &pinned)) < 0)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    mat_stream(&x.C, (size_t)(m * n) * (cx ? 16 : 8), 1);
    a.outer = m;
    b.outer = n;
    a.pad = oz_up4(m);
    b.pad = oz_up4(n);
    carve cv = {NULL, 0};
    for (int pass = 0; pass < 2; pass++) {
        mat_carve(&x.A, &cv);
        mat_carve(&x.B, &cv);
        mat_carve(&x.C, &cv);
        xside_carve(&a, &cv);
        xside_carve(&b, &cv);
        if (pass == 0) {
            cv.base = (char *)ws_get(r.s, cv.off);
            cv.off = 0;
            if (!cv.base)
                return OZ_ERR_DEVICE_MEMORY;
        }
    }
    x.hbuf = (int *)malloc(4 * (size_t)(m + n) + (size_t)(m + n) + 8);
    if (!x.hbuf)
        return OZBLAS_ERR_ALLOCATION;
    a.htop = x.hbuf;
    b.htop = x.hbuf + m;
    a.hdir = (char *)(x.hbuf + m + n);
    b.hdir = a.hdir + m;
    CK(stage_prepare(&r, &x.A, &x.B, &x.C));
    CK(mat_upload(&r, &x.A));
    CK(mat_upload(&r, &x.B));
    a.d.v = {x.A.dev, x.A.ld, c->transa, 1, cx}; /* resident copies exist once uploaded */
    b.d.v = {x.B.dev, x.B.ld, c->transb, 0, cx};
    oz_launch(grid1(m, 128), 128, r.st, ozx_k_stats, a.d.v, m, k, a.low, a.top, a.dir);
    CKL();
    oz_launch(grid1(n, 128), 128, r.st, ozx_k_stats, b.d.v, n, k, b.low, b.top, b.dir);
    CKL();
    CK(cudaMemcpyAsync(a.htop, a.top, 4 * (size_t)m, cudaMemcpyDeviceToHost, r.st));
    CK(cudaMemcpyAsync(b.htop, b.top, 4 * (size_t)n, cudaMemcpyDeviceToHost, r.st));
    CK(cudaMemcpyAsync(a.hdir, a.dir, (size_t)m, cudaMemcpyDeviceToHost, r.st));
    CK(cudaMemcpyAsync(b.hdir, b.dir, (size_t)n, cudaMemcpyDeviceToHost, r.st));
    CK(cudaStreamSynchronize(r.st));
    *oa = {m, a.htop, a.hdir};
    *ob = {n, b.htop, b.hdir};
    a.d.low = a.low;
    a.d.top = a.top;
    a.d.dir = a.dir;
    b.d.low = b.low;
    b.d.top = b.top;
    b.d.dir = b.dir;
done:
    return st;
}

/* The driver's directs back to the device, the count-dependent buffers (one allocation),
 * the table and powers of two, and the integers of every non-direct row and column. */
static ozblas_status cuda_x_integers(void *run, const ozx_table *T, const double *pow2, int pw,
                                     ozblas_report *)
{
    xrun &x = *(xrun *)run;
    run_ctx &r = x.rc;
    const int64_t m = x.c->m, n = x.c->n, k = x.c->k, kp = x.kp;
    const int N = T ? T->n : 0, lo_buf = x.lo && !x.lo_dev;
    const int np = x.cx ? (T && T->cx2 ? 2 : 3) : 1;
    ozblas_status st = OZBLAS_OK;
    carve cv = {NULL, 0};
    xside *sd[2] = {&x.a, &x.b};
    x.T = T;
    x.pw = pw;
    CK(cudaMemcpyAsync(x.a.dir, x.a.hdir, (size_t)m, cudaMemcpyHostToDevice, r.st));
    CK(cudaMemcpyAsync(x.b.dir, x.b.hdir, (size_t)n, cudaMemcpyHostToDevice, r.st));
    big_carve(&x.a, &x.b, x.cx, np, kp, N, pw, m, n, lo_buf, &cv, &x.dT, &x.dpow2, &x.P, &x.R,
              &x.lo_d);
    if (cudaMalloc((void **)&x.big, cv.off) != cudaSuccess) {
        (void)cudaGetLastError();
        x.big = NULL;
        return OZ_ERR_DEVICE_MEMORY;
    }
    cv.base = x.big;
    cv.off = 0;
    big_carve(&x.a, &x.b, x.cx, np, kp, N, pw, m, n, lo_buf, &cv, &x.dT, &x.dpow2, &x.P, &x.R,
              &x.lo_d);
    if (!lo_buf)
        x.lo_d = x.lo;
    if (!N)
        return OZBLAS_OK;
    CK(cudaMemcpyAsync(x.dT, T, sizeof *T, cudaMemcpyHostToDevice, r.st));
    CK(cudaMemcpyAsync(x.dpow2, pow2, 8 * (size_t)(N * pw), cudaMemcpyHostToDevice, r.st));
    for (int q = 0; q < 2; q++) {
        xside *s = sd[q];
        const size_t len = (size_t)(s->pad * kp);
        for (int p = 0; p < (x.cx ? 2 : 1); p++) {
            CK(cudaMemsetAsync(s->F[p], 0, 8 * len, r.st));
            CK(cudaMemsetAsync(s->s[p], 0, 2 * len, r.st));
        }
        oz_launch(grid1(s->outer * k, 256), 256, r.st, ozx_k_integers, s->d.v, s->outer, k, kp,
                  (const int *)s->low, (const int *)s->top, (const char *)s->dir, s->F[0],
                  s->F[1], s->s[0], s->s[1]);
        CKL();
    }
done:
    return st;
}

static ozblas_status cuda_x_residues(void *run, int t, ozblas_report *)
{
    xrun &x = *(xrun *)run;
    ozblas_status st = OZBLAS_OK;
    xside *sd[2] = {&x.a, &x.b};
    for (int q = 0; q < 2; q++) {
        xside *s = sd[q];
        const int64_t len = s->pad * x.kp;
        if (x.T->cx2) {
            oz_launch(grid1(len, 256), 256, x.rc.st, ozx_k_residues_pm, (const double *)s->F[0],
                      (const double *)s->F[1], (const int16_t *)s->s[0],
                      (const int16_t *)s->s[1], len, x.T->m[t], x.T->inv[t],
                      (const double *)(x.dpow2 + (size_t)t * (size_t)x.pw), x.T->ip[t], s->R,
                      s->R + len);
            CKL();
            continue;
        }
        oz_launch(grid1(len, 256), 256, x.rc.st, ozx_k_residues, (const double *)s->F[0],
                  (const double *)s->F[1], (const int16_t *)s->s[0], (const int16_t *)s->s[1],
                  len, x.cx, x.T->m[t], x.T->inv[t],
                  (const double *)(x.dpow2 + (size_t)t * (size_t)x.pw), s->R,
                  x.cx ? s->R + len : (int8_t *)NULL, x.cx ? s->R + 2 * len : (int8_t *)NULL);
        CKL();
    }
done:
    return st;
}

/* The k-block padded as k is (l0 is a multiple of OZ_KBLOCK, itself of 16). */
static ozblas_status cuda_x_product(void *run, int p, int64_t l0, int64_t kl, ozblas_report *)
{
    xrun &x = *(xrun *)run;
    ozblas_status st = OZBLAS_OK;
    const int64_t plane_a = x.a.pad * x.kp, plane_b = x.b.pad * x.kp;
    CKB(gemm_i8(&x.rc, x.a.pad, x.b.pad, oz_up16(kl), x.a.R + p * plane_a + l0, x.kp,
                x.b.R + p * plane_b + l0, x.kp, x.P + p * x.a.pad * x.b.pad, x.a.pad));
done:
    return st;
}

static ozblas_status cuda_x_reduce(void *run, int t, int first, ozblas_report *)
{
    xrun &x = *(xrun *)run;
    ozblas_status st = OZBLAS_OK;
    const int64_t m = x.c->m, n = x.c->n;
    float *Rr = x.R + (size_t)((x.cx ? 2 : 1) * t) * (size_t)(m * n);
    if (x.T->cx2)
        oz_launch(grid1(m * n, 256), 256, x.rc.st, ozx_k_reduce_pm, (const int *)x.P,
                  x.a.pad * x.b.pad, x.a.pad, m, n, first, x.T->m[t], x.T->inv[t],
                  x.T->inv2[t], x.T->inv2ip[t], Rr, Rr + m * n);
    else
        oz_launch(grid1(m * n, 256), 256, x.rc.st, ozx_k_reduce, (const int *)x.P,
                  x.a.pad * x.b.pad, x.a.pad, m, n, x.cx, first, x.T->m[t], x.T->inv[t], Rr,
                  x.cx ? Rr + m * n : (float *)NULL);
    CKL();
done:
    return st;
}

/* Steps 5 to 7 and the update into C (and lo), then back to the host where they live. */
static ozblas_status cuda_x_finish(void *run, const ozx_update *up, int any_direct,
                                   ozblas_report *)
{
    xrun &x = *(xrun *)run;
    run_ctx &r = x.rc;
    const int64_t m = x.c->m, n = x.c->n, k = x.c->k;
    const size_t es = x.cx ? 16 : 8;
    const oz_blk bc = {0, 0, m, n};
    const ozx_table *Td = x.T ? x.dT : NULL;
    const int64_t ldl = x.lo && !x.lo_dev ? m : x.ldlo;
    ozblas_status st = OZBLAS_OK;
    mat_view vc;
    CK(mat_block(&r, &x.C, &bc, !x.c->beta_zero, &vc));
    oz_launch(grid1(m * n, 128), 128, r.st, ozx_k_final<false>, Td, (const float *)x.R, m, n, k,
              x.a.d, x.b.d, *up, vc.p, vc.ld, x.lo_d, ldl);
    CKL();
    if (any_direct) {
        oz_launch(grid1(m * n, 128), 128, r.st, ozx_k_final<true>, Td, (const float *)x.R, m, n,
                  k, x.a.d, x.b.d, *up, vc.p, vc.ld, x.lo_d, ldl);
        CKL();
    }
    CK(mat_release(&r, &x.C, &vc));
    CK(mat_store(&r, &x.C, &vc, &bc));
    if (x.lo && !x.lo_dev)
        CK(cudaMemcpy2DAsync(x.lo, (size_t)x.ldlo * es, x.lo_d, (size_t)m * es, (size_t)m * es,
                             (size_t)n, cudaMemcpyDeviceToHost, r.st));
    if (run_sync(&r) != cudaSuccess)
        st = OZBLAS_ERR_DEVICE;
done:
    return st;
}

static void cuda_x_close(void *run)
{
    xrun *x = (xrun *)run;
    if (!x)
        return;
    if (x->r->s)
        (void)run_sync(x->r); /* the buffers' last users first */
    if (x->big)
        cudaFree(x->big);
    oz_run_free(x, x->r, x->hbuf, NULL);
}

extern "C" const oz_exact_kernels cuda_exact_kernels = {
    ozx_table_get_i8, OZX_I8_MAX_MODULI, ozx_table_get_i8_cx, OZX_I8_CX_MAX_MODULI, OZ_KBLOCK,
    cuda_x_open, cuda_x_integers,
    cuda_x_residues, cuda_x_product, cuda_x_reduce, cuda_x_finish, cuda_x_close};
