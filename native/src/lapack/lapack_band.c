/* The two-stage reduction's machinery (docs/design/lapack.md "Two-stage reductions"),
 * written once for double and complex double, for the symmetric/Hermitian eigensolvers
 * (lapack_eigen.c) and, through its pieces, for the singular value drivers:
 *
 *   stage 1, full to band (lx_he2hb): QR panels by the host geqrf below the band, the
 *     two-sided update of the trailing matrix through products (a tiled Hermitian product
 *     from the stored lower triangle, then a her2k), LAPACK's dsytrd_sy2sb for uplo L;
 *   the band on the host (lx_band_get) and stage 2, band to real tridiagonal (lx_hb2st), by
 *     bulge chasing with step kernels of our own (the host larfg; larfx's and larfy's
 *     updates as cache-resident column loops), LAPACK's dsb2st_kernels' order of
 *     operations, the sweeps pipelined on the host threads (lx_sweeps), every reflector
 *     kept (lx_hous);
 *   the application of stage 2's reflectors (lx_hous_apply), grouped into blocks of
 *     consecutive sweeps applied as larfb's two products.
 *
 * The host LAPACK's dsytrd_sb2st cannot serve stage 2 here: it refuses VECT = 'V' ("not
 * available in this release") and with 'N' keeps only two sweeps of reflectors (HOUS is 4n
 * long). */
#include <omp.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../cpu/cpu_common.h"
#include "oz_lapack.h"

static const double MHALF[2] = {-0.5, 0.0};

/* ---- the host routines of stage 2 -------------------------------------------------------- */

static const int b_ids[] = {LXH_larfg, LXH_larfx};

int lx_band_ready(int cplx) { return lx_host_all(cplx, b_ids, 2); }

/* H^H (alpha; x) = (beta; 0), H = I - tau v v^H, v = (1; x) on return */
void lx_larfg(const oz_lx *x, int64_t n, double *alpha, double *v, double *tau)
{
    lx_host_flops(x, 3.0 * (double)n);
    LX_F77(I n4 = (I)n, one = 1; LX_HOST(x->cplx, larfg)(&n4, alpha, v, &one, tau););
}

/* C (m x n) := H C (side 'L') or C H ('R'), H = I - tau v v^H */
void lx_larfx(const oz_lx *x, char side, int64_t m, int64_t n, const double *v,
              const double *tau, double *C, int64_t ldc, double *work)
{
    lx_host_flops(x, 4.0 * (double)m * (double)n);
    LX_F77(I m4 = (I)m, n4 = (I)n, l4 = (I)ldc;
           LX_HOST(x->cplx, larfx)(&side, &m4, &n4, v, tau, C, &l4, work, 1););
}

/* ---- the chase's step kernels ---------------------------------------------------------------
 * A step of the symmetric chase is three reflector updates on b x b blocks: through the host
 * larfx/larfy (a gemv and a ger or syr2 each) the fixed cost per call outweighed the flops at
 * narrow bands. Here each step's block work is loops on columns that stay in cache, written once for double
 * and complex double: cx is a constant in each instantiation (the entries below call the
 * inlined kernels with 0 or 1), a scalar is (r, i) with i unused when real. The loops carry
 * omp simd (GCC's -O2 cost model leaves them scalar); the order of operations is fixed, so
 * the bits do not depend on the thread count. The bidiagonal chase (lapack_svd.c) keeps the
 * host larfx: this kernel in its shape (the right reflector on 2b - 1 rows, the left one on
 * 2b - 1 columns) measured 15-30% slower than larfx at b = 32 to 256, one thread
 * (benchmarks/results/chase_bands_chase3*.json). */

/* 256-bit vectors where GCC targets x86: the columns are short (b elements), and
   512-bit loops left their tails to scalar epilogues: 10-25% slower per step at b = 16, 32 */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define KTARGET __attribute__((target("prefer-vector-width=256")))
#else
#define KTARGET
#endif
#define KINL static inline __attribute__((always_inline)) KTARGET

typedef struct {
    double r, i;
} zs;

KINL zs zmul(int cx, zs a, zs b)
{
    return cx ? (zs){a.r * b.r - a.i * b.i, a.r * b.i + a.i * b.r} : (zs){a.r * b.r, 0.0};
}

KINL zs zget(int cx, const double *p) { return (zs){p[0], cx ? p[1] : 0.0}; }

KINL zs zconj(zs a) { return (zs){a.r, -a.i}; }

KINL int znonzero(int cx, const double *p) { return p[0] != 0.0 || (cx && p[1] != 0.0); }

/* y (m) += a x */
KINL void k_axpy(int cx, int64_t m, zs a, const double *restrict xv, double *restrict y)
{
    if (!cx) {
#pragma omp simd
        for (int64_t i = 0; i < m; i++)
            y[i] += a.r * xv[i];
        return;
    }
#pragma omp simd
    for (int64_t i = 0; i < m; i++) {
        double xr = xv[2 * i], xi = xv[2 * i + 1];
        y[2 * i] += a.r * xr - a.i * xi;
        y[2 * i + 1] += a.r * xi + a.i * xr;
    }
}

/* sum over m of conj(x_i) y_i */
KINL zs k_dotc(int cx, int64_t m, const double *restrict xv, const double *restrict y)
{
    double sr = 0.0, si = 0.0;
    if (!cx) {
#pragma omp simd reduction(+ : sr)
        for (int64_t i = 0; i < m; i++)
            sr += xv[i] * y[i];
        return (zs){sr, 0.0};
    }
#pragma omp simd reduction(+ : sr, si)
    for (int64_t i = 0; i < m; i++) {
        double xr = xv[2 * i], xi = xv[2 * i + 1], yr = y[2 * i], yi = y[2 * i + 1];
        sr += xr * yr + xi * yi;
        si += xr * yi - xi * yr;
    }
    return (zs){sr, si};
}

/* y (m) += a x + b z */
KINL void k_axpy2(int cx, int64_t m, zs a, const double *restrict xv, zs b,
                  const double *restrict z, double *restrict y)
{
    if (!cx) {
#pragma omp simd
        for (int64_t i = 0; i < m; i++)
            y[i] += a.r * xv[i] + b.r * z[i];
        return;
    }
#pragma omp simd
    for (int64_t i = 0; i < m; i++) {
        double xr = xv[2 * i], xi = xv[2 * i + 1], zr = z[2 * i], zi = z[2 * i + 1];
        y[2 * i] += (a.r * xr - a.i * xi) + (b.r * zr - b.i * zi);
        y[2 * i + 1] += (a.r * xi + a.i * xr) + (b.r * zi + b.i * zr);
    }
}

/* y (m) += a c, and the sum of conj(c_i) u_i */
KINL zs k_dotc_axpy(int cx, int64_t m, zs a, const double *restrict c,
                    const double *restrict u, double *restrict y)
{
    double sr = 0.0, si = 0.0;
    if (!cx) {
#pragma omp simd reduction(+ : sr)
        for (int64_t i = 0; i < m; i++) {
            y[i] += a.r * c[i];
            sr += c[i] * u[i];
        }
        return (zs){sr, 0.0};
    }
#pragma omp simd reduction(+ : sr, si)
    for (int64_t i = 0; i < m; i++) {
        double cr = c[2 * i], ci = c[2 * i + 1], ur = u[2 * i], ui = u[2 * i + 1];
        y[2 * i] += a.r * cr - a.i * ci;
        y[2 * i + 1] += a.r * ci + a.i * cr;
        sr += cr * ur + ci * ui;
        si += cr * ui - ci * ur;
    }
    return (zs){sr, si};
}

/* C (m x n) := C H, H = I - tau v v^H (larfx 'R'); then the reflector (vl, tl) that
 * annihilates rows 1..m-1 of column 0 (larfg), and H_l^H from the left on columns 1..n-1.
 * Column by column after w = C v: column j gets the right update, then the left one, while
 * in cache (each element sees the two updates in larfx's order). w: m elements. */
KINL void rl_k(int cx, const oz_lx *x, int64_t m, int64_t n, double *C, int64_t ld,
               const double *v, const double *tau, double *vl, double *tl, double *w)
{
    int64_t e = cx ? 2 : 1;
    int right = znonzero(cx, tau);
    zs t = zget(cx, tau);
    if (right) {
        memset(w, 0, sizeof(double) * (size_t)(e * m));
        for (int64_t j = 0; j < n; j++)
            k_axpy(cx, m, zget(cx, v + e * j), C + e * j * ld, w);
    }
    lx_host_flops(x, 4.0 * (double)m * (double)(2 * n - 1));
    int left = 0;
    zs tlc = {0.0, 0.0};
    for (int64_t j = 0; j < n; j++) {
        double *c = C + e * j * ld;
        if (right) { /* - tau conj(v_j) w */
            zs a = zmul(cx, t, zconj(zget(cx, v + e * j)));
            k_axpy(cx, m, (zs){-a.r, -a.i}, w, c);
        }
        if (j == 0) {
            memcpy(vl + e, c + e, sizeof(double) * (size_t)(e * (m - 1)));
            memset(c + e, 0, sizeof(double) * (size_t)(e * (m - 1)));
            lx_larfg(x, m, c, vl + e, tl);
            vl[0] = 1.0;
            if (cx)
                vl[1] = 0.0;
            left = znonzero(cx, tl);
            tlc = (zs){-tl[0], cx ? tl[1] : 0.0}; /* - conj(tl) */
            continue;
        }
        if (left) /* - conj(tl) v (v^H c) */
            k_axpy(cx, m, zmul(cx, tlc, k_dotc(cx, m, vl, c)), vl, c);
    }
}

/* The lower triangle of the Hermitian C (order n) := H C H^H, H = I - tau v v^H, in larfy's
 * steps: w = C v (the lower triangle's columns, as symv), w += -tau/2 (w^H v) v, then
 * C -= tau v w^H + conj(tau) w v^H (as her2: the diagonal stays real). w: n elements. */
KINL void hefy_k(int cx, const oz_lx *x, int64_t n, const double *v, const double *tau,
                 double *C, int64_t ld, double *w)
{
    int64_t e = cx ? 2 : 1;
    lx_host_flops(x, 4.0 * (double)n * (double)n);
    if (!znonzero(cx, tau))
        return;
    zs t = zget(cx, tau);
    memset(w, 0, sizeof(double) * (size_t)(e * n));
    for (int64_t j = 0; j < n; j++) {
        double *c = C + e * (j + j * ld);
        zs vj = zget(cx, v + e * j), a = zmul(cx, vj, (zs){c[0], 0.0});
        /* w_i += v_j C_ij below the diagonal; s: conj(C_ij) v_i summed */
        zs s = k_dotc_axpy(cx, n - j - 1, vj, c + e, v + e * (j + 1), w + e * (j + 1));
        w[e * j] += a.r + s.r;
        if (cx)
            w[e * j + 1] += a.i + s.i;
    }
    zs h = zmul(cx, (zs){-0.5 * t.r, -0.5 * t.i}, k_dotc(cx, n, w, v));
    k_axpy(cx, n, h, v, w);
    for (int64_t j = 0; j < n; j++) {
        double *c = C + e * (j + j * ld);
        zs a1 = zmul(cx, t, zconj(zget(cx, w + e * j))), a2 = zconj(zmul(cx, t, zget(cx, v + e * j)));
        k_axpy2(cx, n - j, (zs){-a1.r, -a1.i}, v + e * j, (zs){-a2.r, -a2.i}, w + e * j, c);
        if (cx)
            c[1] = 0.0;
    }
}

KTARGET static void chase_rl(const oz_lx *x, int64_t m, int64_t n, double *C, int64_t ld,
                             const double *v, const double *tau, double *vl, double *tl,
                             double *w)
{
    if (x->cplx)
        rl_k(1, x, m, n, C, ld, v, tau, vl, tl, w);
    else
        rl_k(0, x, m, n, C, ld, v, tau, vl, tl, w);
}

KTARGET static void hefy(const oz_lx *x, int64_t n, const double *v, const double *tau, double *C,
                 int64_t ld, double *w)
{
    if (x->cplx)
        hefy_k(1, x, n, v, tau, C, ld, w);
    else
        hefy_k(0, x, n, v, tau, C, ld, w);
}

/* ---- stage 1 ------------------------------------------------------------------------------ */

/* X (m x k) := A V, A Hermitian of order m with its lower triangle stored, V m x k: tiles of
 * nb columns of A, each three products (the diagonal tile expanded to a full Hermitian block
 * D where the products read it, through the host tile Dh in a device run; the tile below
 * it, A21, used as A21 V1 and A21^H V2). The first tile's products write every row of X
 * (beta 0), the others add. */
static void hemm_lower(oz_lx *x, int64_t m, int64_t k, const double *A, int64_t lda,
                       const double *V, int64_t ldv, double *X, int64_t ldx, double *D,
                       double *Dh)
{
    int64_t t = x->nb;
    for (int64_t c = 0; c < m && !x->failed; c += t) {
        int64_t cb = min64(t, m - c), rest = m - c - cb, ld;
        const double *Acc = LX_AT(x, A, c, c, lda), *H = lx_fetch(x, 0, Acc, lda, cb, cb, &ld, 1);
        double *E = x->dev ? Dh : D;
        if (x->failed)
            return;
        for (int64_t j = 0; j < cb; j++)
            for (int64_t i = 0; i < cb; i++) {
                const double *a = i >= j ? LX_AT(x, H, i, j, ld) : LX_AT(x, H, j, i, ld);
                double *d = LX_AT(x, E, i, j, cb);
                d[0] = a[0];
                if (x->cplx)
                    d[1] = i == j ? 0.0 : i > j ? a[1] : -a[1];
            }
        lx_store(x, E, cb, D, cb, cb, cb);
        const double *first = c == 0 ? ZERO : ONE;
        lx_gemm(x, 'N', 'N', cb, k, cb, ONE, D, cb, LX_AT(x, V, c, 0, ldv), ldv, first,
                LX_AT(x, X, c, 0, ldx), ldx);
        if (!rest)
            continue;
        const double *A21 = LX_AT(x, A, c + cb, c, lda);
        lx_gemm(x, ct(x), 'N', cb, k, rest, ONE, A21, lda, LX_AT(x, V, c + cb, 0, ldv), ldv, ONE,
                LX_AT(x, X, c, 0, ldx), ldx);
        lx_gemm(x, 'N', 'N', rest, k, cb, ONE, A21, lda, LX_AT(x, V, c, 0, ldv), ldv, first,
                LX_AT(x, X, c + cb, 0, ldx), ldx);
    }
}

/* Stage 1, LAPACK's dsytrd_sy2sb for uplo 'L' (zhetrd_he2hb): for each panel of b columns
 * j..j+b, the QR of the block below the band, A(j+b:n, j:j+b) = Q R (ib = min(m, b)
 * reflectors), by the host geqrf (R into the band, the reflectors below it), then the
 * trailing matrix A22 = A(j+b:n, j+b:n) (order m) := Q^H A22 Q as
 *     X = A22 V T,  Y = X - 1/2 V (T^H (V^H X)),  A22 -= V Y^H + Y V^H,
 * every step a product (the her2k through lx_syr2k, lower triangle only). tau: n - b
 * scalars (Q1 = I - ... is ormqr's form on A(b:n, 0:n-b)). */
ozblas_status lx_he2hb(oz_lx *x, lx_hh *q, int64_t n, int64_t b, double *A, int64_t lda,
                       double *tau)
{
    if (n <= b)
        return OZBLAS_OK;
    int64_t w = x->cplx ? 2 : 1, t = x->nb, mmax = n - b;
    /* P, X (m x b), M, M2 (b x b), D (the diagonal tile) where the products read them; Dh
       the host tile */
    int64_t elems = 2 * mmax * b + 2 * b * b + t * t;
    double *Dh = oz_malloc(sizeof(double) * (size_t)(w * t * t + 1));
    double *hws = x->dev ? NULL : oz_malloc(sizeof(double) * (size_t)(w * elems + 1));
    double *ws = Dh && (x->dev || hws) ? lx_scratch(x, hws, elems) : NULL;
    if (!ws) {
        free(Dh);
        free(hws);
        return x->dev && Dh ? OZBLAS_ERR_DEVICE : OZBLAS_ERR_ALLOCATION;
    }
    double *P = ws, *X = P + w * mmax * b, *M = X + w * mmax * b, *M2 = M + w * b * b,
           *D = M2 + w * b * b;
    lx_clock clk = lx_tic(x); /* all of stage 1's host work is the panels' */
    for (int64_t j = 0; j + b < n && !x->failed; j += b) {
        int64_t m = n - j - b, ib = min64(m, b), pinfo = 0, ld;
        double *H, *A22 = LX_AT(x, A, j + b, j + b, lda);
        /* the whole panel (b columns, ib = min(m, b) reflectors): Q^H reaches every column
           left of A22 */
        lx_hh_host(x, q, 0, LX_HH_PANEL, m, b, 0, LX_AT(x, A, j + b, j, lda), lda,
                   LX_AT(x, tau, j, 0, 1), &pinfo, &H, &ld);
        if (x->failed)
            break;
        lx_hh_panel_block(x, q, 0, H, ld, m, ib, LX_AT(x, tau, j, 0, 1));
        hemm_lower(x, m, ib, A22, lda, q->dV, m, P, m, D, Dh);
        lx_gemm(x, 'N', 'N', m, ib, ib, ONE, P, m, q->dT, ib, ZERO, X, m);
        lx_gemm(x, ct(x), 'N', ib, ib, m, ONE, q->dV, m, X, m, ZERO, M, ib);
        lx_gemm(x, ct(x), 'N', ib, ib, ib, ONE, q->dT, ib, M, ib, ZERO, M2, ib);
        lx_gemm(x, 'N', 'N', m, ib, ib, MHALF, q->dV, m, M2, ib, ONE, X, m);
        lx_syr2k(x, 1, 'L', 'N', m, ib, MONE, q->dV, m, X, m, ONE, A22, lda);
    }
    lx_toc(x, clk, &x->rep->panel_seconds);
    free(Dh);
    lx_scratch_free(x, ws);
    free(hws);
    return OZBLAS_OK;
}

/* ---- the band on the host, stage 2 ---------------------------------------------------------- */

ozblas_status lx_band_alloc(const oz_lx *x, lx_band *B, int64_t n, int64_t b)
{
    B->n = n;
    B->b = b;
    B->ld = 2 * b + 1;
    B->ab = oz_calloc((size_t)((x->cplx ? 2 : 1) * B->ld * (n > 0 ? n : 1)), sizeof(double));
    return B->ab ? OZBLAS_OK : OZBLAS_ERR_ALLOCATION;
}

void lx_band_free(lx_band *B) { free(B->ab); }

/* B := the band of the lower triangle of A (order n, width b), through the seam in strips
 * of nb columns (the rows from a strip's diagonal to b below its last column). */
void lx_band_get(oz_lx *x, lx_band *B, const double *A, int64_t lda)
{
    int64_t n = B->n, b = B->b, w = x->cplx ? 2 : 1;
    for (int64_t c = 0; c < n && !x->failed; c += x->nb) {
        int64_t cb = min64(x->nb, n - c), rows = min64(cb + b, n - c), ld;
        const double *H = lx_fetch(x, 0, LX_AT(x, A, c, c, lda), lda, rows, cb, &ld, 1);
        if (x->failed)
            return;
        for (int64_t j = 0; j < cb; j++) {
            int64_t r1 = min64(b, n - 1 - c - j);
            memcpy(LX_AT(x, B->ab, 0, c + j, B->ld), LX_AT(x, H, j, j, ld),
                   sizeof(double) * (size_t)(w * (r1 + 1)));
        }
    }
}

ozblas_status lx_hous_alloc(const oz_lx *x, lx_hous *h, int64_t n, int64_t b, int64_t off,
                            int64_t sweeps)
{
    int64_t w = x->cplx ? 2 : 1;
    h->n = n;
    h->b = b;
    h->off = off;
    h->sweeps = sweeps;
    h->kmax = b > 0 ? (n + b - 1) / b + 1 : 1;
    h->v = oz_malloc(sizeof(double) * (size_t)(w * lx_hous_pos(h, sweeps) + 1));
    h->tau = oz_calloc((size_t)(w * sweeps * h->kmax + 1), sizeof(double));
    if (!h->v || !h->tau) {
        lx_hous_free(h);
        return OZBLAS_ERR_ALLOCATION;
    }
    return OZBLAS_OK;
}

void lx_hous_free(lx_hous *h)
{
    free(h->v);
    free(h->tau);
    h->v = h->tau = NULL;
}

int64_t lx_hous_pos(const lx_hous *h, int64_t s)
{
    /* sweeps before s hold n - off - s' elements each */
    return s * (h->n - h->off) - s * (s - 1) / 2;
}

/* ---- pipelined sweeps (PLASMA's) ------------------------------------------------------------ */

/* Sweeps s = 0..sweeps-1 of a bulge chase, each a sequence of steps k = 0, 1, ... (step returns
 * 0 after its sweep's last), on the run's host threads: sweep s on thread s mod nt, its step
 * k once sweep s - 1 has finished its steps 0..k + lag - 1 (the steps whose rows and columns
 * can meet step k's). Every step is the same calls on the same data as in the sequential
 * order, so the result is the same bits for any thread count. Each thread counts its host
 * flops into a report of its own (no shared counter), added to x's at the end; work: wlen
 * elements per thread (work1 those of one thread, when no more can be had). */
void lx_sweeps(const oz_lx *x, int64_t sweeps, int64_t lag, lx_step_fn step, void *ctx,
               int64_t wlen, double *work1)
{
    int nt = oz_cpu_run_threads(x->opt);
    nt = sweeps < 2 * nt ? 1 : nt; /* too few sweeps to pipeline */
    int64_t *done = oz_calloc((size_t)(sweeps > 0 ? sweeps : 1), sizeof(int64_t));
    double *work = oz_malloc(sizeof(double) * (size_t)(nt * wlen + 1));
    if (!done || !work)
        nt = 1;
    double flops = 0.0;
#pragma omp parallel num_threads(nt) reduction(+ : flops) if (nt > 1)
    {
        /* the team OpenMP gave (it may be smaller than nt): sweeps by its own count */
        int t = nt > 1 ? omp_get_thread_num() : 0, team = nt > 1 ? omp_get_num_threads() : 1;
        oz_lx xt = *x;
        ozblas_lapack_report rt;
        memset(&rt, 0, sizeof rt);
        xt.rep = &rt;
        double *w = work ? work + t * wlen : work1;
        for (int64_t s = t; s < sweeps; s += team) {
            for (int64_t k = 0;; k++) {
                if (nt > 1 && s > 0)
                    while (__atomic_load_n(&done[s - 1], __ATOMIC_ACQUIRE) < k + lag)
                        sched_yield();
                int more = step(&xt, ctx, s, k, w);
                if (nt > 1)
                    __atomic_store_n(&done[s], more ? k + 1 : INT64_MAX, __ATOMIC_RELEASE);
                if (!more)
                    break;
            }
        }
        flops += rt.host_flops;
    }
    x->rep->host_flops += flops;
    free(done);
    free(work);
}

/* Stage 2 (LAPACK's dsytrd_sb2st/dsb2st_kernels for uplo 'L'): the Hermitian band B (width
 * b) := Q2^H B Q2 real tridiagonal (d: n, e: n - 1). Sweep s annihilates column s below its
 * subdiagonal by the reflector (s, 0) of rows s+1..s+b (with its two-sided application to
 * the diagonal block), then chases the bulge this leaves below the block: the reflector
 * (s, k - 1) from the right on the block of the next b rows, the reflector (s, k)
 * annihilating that block's first column, from the left on the block's other columns and
 * from both sides on the next diagonal block. Step k of sweep s touches rows and columns
 * s + 1 + (k - 1) b to s + 1 + (k + 1) b only (s to s + b for k = 0): sweep s - 1's steps
 * up to k + 2 can meet it (lag 3). h: every reflector, sweep s from row s + 1 (off 1). */
typedef struct {
    lx_band *B;
    lx_hous *h;
} hb2st_ctx;

static int hb2st_step(const oz_lx *x, void *ctx, int64_t s, int64_t k, double *work)
{
    hb2st_ctx *c = ctx;
    int64_t n = c->B->n, b = c->B->b, ld = c->B->ld - 1, w = x->cplx ? 2 : 1;
    double *A = c->B->ab, *v = c->h->v + w * lx_hous_pos(c->h, s);
    double *tau = c->h->tau + w * s * c->h->kmax;
#define BA(i, j) LX_AT(x, A, (i), (j), ld)
    if (k == 0) { /* (s, 0): column s, rows r0..r0+len */
        int64_t r0 = s + 1, len = min64(b, n - r0);
        for (int64_t i = 1; i < len; i++) {
            memcpy(LX_AT(x, v, i, 0, 1), BA(r0 + i, s), sizeof(double) * (size_t)w);
            memset(BA(r0 + i, s), 0, sizeof(double) * (size_t)w);
        }
        lx_larfg(x, len, BA(r0, s), LX_AT(x, v, 1, 0, 1), tau);
        v[0] = 1.0;
        if (x->cplx)
            v[1] = 0.0;
        double ctau[2] = {tau[0], x->cplx ? -tau[1] : 0.0};
        hefy(x, len, v, ctau, BA(r0, r0), ld, work);
        return r0 + len < n;
    }
    /* the chunk k - 1 of rows r0..r0+len (len = b: a sweep goes on only after a full one) */
    int64_t r0 = s + 1 + (k - 1) * b, len = b, r1 = r0 + len, len1 = min64(b, n - r1);
    double *v0 = LX_AT(x, v, (k - 1) * b, 0, 1), *v1 = LX_AT(x, v, k * b, 0, 1);
    double *tau1 = LX_AT(x, tau, k, 0, 1);
    /* (s, k - 1) from the right on rows r1..r1+len1 of its columns (the bulge), then (s, k)
       annihilating the bulge's first column, from the left on the block's other columns */
    chase_rl(x, len1, len, BA(r1, r0), ld, v0, LX_AT(x, tau, k - 1, 0, 1), v1, tau1, work);
    double c1[2] = {tau1[0], x->cplx ? -tau1[1] : 0.0};
    if (len1 > 1) /* LAPACK leaves the last 1 x 1 block: a phase does not change it */
        hefy(x, len1, v1, c1, BA(r1, r1), ld, work);
    return r1 + len1 < n;
#undef BA
}

void lx_hb2st(const oz_lx *x, lx_band *B, double *d, double *e, lx_hous *h, double *work)
{
    int64_t n = B->n, b = B->b, ld = B->ld - 1;
    lx_clock clk = lx_tic(x);
    hb2st_ctx c = {B, h};
    if (b > 0)
        lx_sweeps(x, n - 1, 3, hb2st_step, &c, (x->cplx ? 2 : 1) * b, work);
    for (int64_t i = 0; i < n; i++) {
        d[i] = LX_AT(x, B->ab, i, i, ld)[0];
        if (i + 1 < n)
            e[i] = b > 0 ? LX_AT(x, B->ab, i + 1, i, ld)[0] : 0.0;
    }
    lx_toc(x, clk, &x->rep->chase_seconds);
}

/* ---- stage 2's reflectors applied -------------------------------------------------------- */

/* The sweeps of a group: b / 2, at most LX_HOUS_VB (a group's block reflector spans
 * b + vb - 1 rows for vb reflectors of b: larger groups waste more flops on the block's zero
 * triangles, smaller ones make shorter products; on the CPU executor b / 2 took 17% less time
 * than b / 4 and about as much as b at n = 2048, b = 256, with 9% more flops than b / 4). */
static int64_t group_sweeps(int64_t b)
{
    int64_t vb = b / 2;
    return vb < 1 ? 1 : vb > LX_HOUS_VB ? LX_HOUS_VB : vb;
}

/* Group (s0, k): the reflectors (s, k) of sweeps s0..s0+nv (those that exist), which start
 * at consecutive rows r0 = s0 + off + k b, r0 + 1, ...: their block reflector
 * H(s0, k) H(s0 + 1, k) ... as larfb's V (the vectors staggered down one row per column,
 * zeros around them) and T. Returns the rows it spans (0: none), *r0 its first. */
static int64_t group_block(oz_lx *x, lx_hh *q, const lx_hous *h, int64_t s0, int64_t k,
                           int64_t nv, double *Vh, double *taus, int64_t *r0, int64_t *cols)
{
    int64_t n = h->n, b = h->b, w = x->cplx ? 2 : 1;
    *r0 = s0 + h->off + k * b;
    if (*r0 >= n)
        return 0;
    nv = min64(nv, n - *r0); /* sweep s0 + t's chunk k starts at r0 + t */
    int64_t rows = min64(n - *r0, nv - 1 + b);
    memset(Vh, 0, sizeof(double) * (size_t)(w * rows * nv));
    for (int64_t t = 0; t < nv; t++) {
        int64_t s = s0 + t, start = *r0 + t, len = min64(b, n - start);
        const double *v = h->v + w * (lx_hous_pos(h, s) + k * b);
        memcpy(LX_AT(x, Vh, t, t, rows), v, sizeof(double) * (size_t)(w * len));
        memcpy(LX_AT(x, taus, t, 0, 1), h->tau + w * (s * h->kmax + k),
               sizeof(double) * (size_t)w);
    }
    lx_hh_block(x, q, 0, Vh, rows, rows, nv, taus, NULL, 0);
    *cols = nv;
    return rows;
}

/* C := Q C, Q^H C (side 'L'; C has h->n rows) or C Q, C Q^H ('R'; h->n columns), Q the
 * product of h's reflectors in the order they were made. Grouped into blocks of vb
 * consecutive sweeps at one chunk k: reflector (s, k) must follow (s', k) and (s', k - 1)
 * for s' > s where their rows overlap, and nothing else constrains the order, so Q C
 * applies the groups of the last sweeps first and, within them, k from the top down (Q^H C
 * the reverse). Each group is larfb's GEMM pair around the trmm with T. */
void lx_hous_apply(oz_lx *x, lx_hh *q, const lx_hous *h, char side, char trans,
                   int64_t ncols, double *C, int64_t ldc, double *Vh, double *taus)
{
    int64_t b = h->b, vb = group_sweeps(b), ng = (h->sweeps + vb - 1) / vb;
    if (ncols <= 0 || h->sweeps <= 0 || b <= 0)
        return;
    /* Q C and C Q^H: groups in reverse order of creation; Q^H C and C Q: in order */
    int reverse = (side == 'L') == (trans == 'N');
    lx_clock clk = lx_tic(x);
    for (int64_t gi = 0; gi < ng && !x->failed; gi++) {
        int64_t s0 = (reverse ? ng - 1 - gi : gi) * vb, nv = min64(vb, h->sweeps - s0);
        for (int64_t ki = 0; ki < h->kmax && !x->failed; ki++) {
            int64_t k = reverse ? ki : h->kmax - 1 - ki, r0, cols;
            int64_t rows = group_block(x, q, h, s0, k, nv, Vh, taus, &r0, &cols);
            if (!rows)
                continue;
            if (side == 'L')
                lx_larfb(x, q, 'L', trans, rows, ncols, cols, LX_AT(x, C, r0, 0, ldc), ldc);
            else
                lx_larfb(x, q, 'R', trans, ncols, rows, cols, LX_AT(x, C, 0, r0, ldc), ldc);
        }
    }
    lx_toc(x, clk, &x->rep->back_seconds);
}
