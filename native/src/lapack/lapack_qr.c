/* Blocked QR with the compact WY form (LAPACK's dgeqrf, dorgqr, dormqr; z: zgeqrf, zungqr,
 * zunmqr), written once for double and complex double.
 *
 * A block of nb reflectors H = H(i) ... H(i+ib-1) is I - V T V^H (V unit lower trapezoidal,
 * T upper triangular, from the host larft). The panels go to the host geqrf (and orgqr for
 * the last block of Q); every application of H to the rest (LAPACK's larfb) is two ozblas
 * GEMMs around a host trmm with the small T: C - V (op(T) (V^H C)) from the left,
 * C - ((C V) op(T)) V^H from the right, with V copied out explicitly (its unit diagonal and
 * zeros written in) so that each product is one GEMM over all its rows. */
#include <stdlib.h>
#include <string.h>

#include "../core/oz_internal.h"
#include "oz_lapack.h"

static const double ONE[2] = {1.0, 0.0}, MONE[2] = {-1.0, 0.0}, ZERO[2] = {0.0, 0.0};

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static char up(char c) { return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c; }
static char ct(const oz_lx *x) { return x->cplx ? 'C' : 'T'; }

/* ---- the host routines ------------------------------------------------------------------- */

enum { Q_GEQRF, Q_LARFT, Q_ORGQR, Q_N };
static const char *const q_names[2][Q_N] = {{"geqrf", "larft", "orgqr"},
                                            {"geqrf", "larft", "ungqr"}};
static void *q_fn[2][Q_N]; /* atomic; found once */

static void *q_real(int cplx, int r)
{
    void *f = __atomic_load_n(&q_fn[cplx][r], __ATOMIC_ACQUIRE);
    if (!f && (f = lx_real_fn(cplx, q_names[cplx][r])))
        __atomic_store_n(&q_fn[cplx][r], f, __ATOMIC_RELEASE);
    return f;
}

static int q_ready(int cplx)
{
    for (int r = 0; r < Q_N; r++)
        if (!q_real(cplx, r))
            return 0;
    return 1;
}

typedef int32_t i32;
typedef int64_t i64;

/* geqrf and orgqr: (m, n, [k,] A, lda, tau, work, lwork, info) */
static void real_qr(const oz_lx *x, int r, int64_t m, int64_t n, int64_t k, double *A,
                    int64_t lda, const double *tau, double *work, int64_t lwork, int64_t *info)
{
    void *f = q_real(x->cplx, r);
    if (lx_real_ilp64()) {
        if (r == Q_GEQRF)
            ((void (*)(const i64 *, const i64 *, double *, const i64 *, const double *, double *,
                       const i64 *, i64 *))f)(&m, &n, A, &lda, tau, work, &lwork, info);
        else
            ((void (*)(const i64 *, const i64 *, const i64 *, double *, const i64 *,
                       const double *, double *, const i64 *, i64 *))f)(&m, &n, &k, A, &lda, tau,
                                                                         work, &lwork, info);
        return;
    }
    i32 m4 = (i32)m, n4 = (i32)n, k4 = (i32)k, l4 = (i32)lda, w4 = (i32)lwork, inf4 = 0;
    if (r == Q_GEQRF)
        ((void (*)(const i32 *, const i32 *, double *, const i32 *, const double *, double *,
                   const i32 *, i32 *))f)(&m4, &n4, A, &l4, tau, work, &w4, &inf4);
    else
        ((void (*)(const i32 *, const i32 *, const i32 *, double *, const i32 *, const double *,
                   double *, const i32 *, i32 *))f)(&m4, &n4, &k4, A, &l4, tau, work, &w4, &inf4);
    *info = inf4;
}

/* T (ib x ib, ld ib) of the ib reflectors stored below the diagonal of V (r rows) */
static void real_larft(const oz_lx *x, int64_t r, int64_t ib, const double *V, int64_t ldv,
                       const double *tau, double *T)
{
    void *f = q_real(x->cplx, Q_LARFT);
    const char d = 'F', s = 'C';
    if (lx_real_ilp64()) {
        ((void (*)(const char *, const char *, const i64 *, const i64 *, const double *,
                   const i64 *, const double *, double *, const i64 *, size_t, size_t))f)(
            &d, &s, &r, &ib, V, &ldv, tau, T, &ib, 1, 1);
        return;
    }
    i32 r4 = (i32)r, k4 = (i32)ib, l4 = (i32)ldv;
    ((void (*)(const char *, const char *, const i32 *, const i32 *, const double *, const i32 *,
               const double *, double *, const i32 *, size_t, size_t))f)(&d, &s, &r4, &k4, V, &l4,
                                                                         tau, T, &k4, 1, 1);
}

/* ---- the drivers --------------------------------------------------------------------- */

typedef struct {
    double *V;     /* the explicit V of one block: rows x nb */
    double *T;     /* nb x nb */
    double *W;     /* the products' middle term: nb x cols (left) or rows x nb (right) */
    double *rw;    /* the host routines' workspace */
    int64_t lrw;
} qr_work;

/* rows: V's most rows; cols: W's (nb x cols, or rows x nb when right) */
static ozblas_status qr_alloc(const oz_lx *x, qr_work *q, int64_t rows, int64_t cols, int right)
{
    int64_t w = x->cplx ? 2 : 1, nb = x->nb;
    q->lrw = 32 * max64(max64(cols, rows), nb); /* enough for the host's own blocking */
    int64_t nw = right ? rows * nb : nb * cols;
    q->V = malloc(sizeof(double) * (size_t)(w * (rows * nb + nb * nb + nw + q->lrw) + 1));
    if (!q->V)
        return OZBLAS_ERR_ALLOCATION;
    q->T = q->V + w * rows * nb;
    q->W = q->T + w * nb * nb;
    q->rw = q->W + w * nw;
    return OZBLAS_OK;
}

/* C (mr x nc) := H C or H^H C (side 'L', H of order mr) or C H, C H^H ('R', order nc), for
 * the ib reflectors stored below the diagonal of Vs, with q->T from real_larft. */
static void larfb(oz_lx *x, qr_work *q, char side, char trans, int64_t mr, int64_t nc,
                  int64_t ib, const double *Vs, int64_t ldv, double *C, int64_t ldc)
{
    int64_t r = side == 'L' ? mr : nc;
    int w = x->cplx ? 2 : 1;
    if (mr <= 0 || nc <= 0)
        return;
    for (int64_t j = 0; j < ib; j++)
        for (int64_t i = 0; i < r; i++) {
            double *v = LX_AT(x, q->V, i, j, r);
            const double *s = LX_AT(x, Vs, i, j, ldv);
            for (int e = 0; e < w; e++)
                v[e] = i > j ? s[e] : (i == j && e == 0) ? 1.0 : 0.0;
        }
    char op = trans == 'N' ? 'N' : ct(x);
    if (side == 'L') {
        lx_gemm(x, ct(x), 'N', ib, nc, r, ONE, q->V, r, C, ldc, ZERO, q->W, ib);
        lx_real_trmm(x, 'L', 'U', op, 'N', ib, nc, ONE, q->T, ib, q->W, ib);
        lx_gemm(x, 'N', 'N', r, nc, ib, MONE, q->V, r, q->W, ib, ONE, C, ldc);
    } else {
        lx_gemm(x, 'N', 'N', mr, ib, r, ONE, C, ldc, q->V, r, ZERO, q->W, mr);
        lx_real_trmm(x, 'R', 'U', op, 'N', mr, ib, ONE, q->T, ib, q->W, mr);
        lx_gemm(x, 'N', ct(x), mr, r, ib, MONE, q->W, mr, q->V, r, ONE, C, ldc);
    }
}

/* LAPACK's dgeqrf: each panel of nb columns by the host geqrf, its block reflector applied
 * to the columns to its right. */
static void lx_geqrf(oz_lx *x, qr_work *q, int64_t m, int64_t n, double *A, int64_t lda,
                     double *tau, int64_t *info)
{
    int64_t k = min64(m, n), nb = x->nb, pinfo = 0;
    *info = 0;
    if (k <= nb) {
        real_qr(x, Q_GEQRF, m, n, 0, A, lda, tau, q->rw, q->lrw, info);
        return;
    }
    for (int64_t i = 0; i < k; i += nb) {
        int64_t ib = min64(nb, k - i);
        double *Aii = LX_AT(x, A, i, i, lda), *ti = LX_AT(x, tau, i, 0, 1);
        real_qr(x, Q_GEQRF, m - i, ib, 0, Aii, lda, ti, q->rw, q->lrw, &pinfo);
        if (i + ib < n) {
            real_larft(x, m - i, ib, Aii, lda, ti, q->T);
            larfb(x, q, 'L', ct(x), m - i, n - i - ib, ib, Aii, lda, LX_AT(x, A, i, i + ib, lda),
                  lda);
        }
    }
}

static void zero_rows(const oz_lx *x, int64_t rows, int64_t j0, int64_t j1, double *A,
                      int64_t lda)
{
    for (int64_t j = j0; j < j1 && rows > 0; j++)
        memset(LX_AT(x, A, 0, j, lda), 0, sizeof(double) * (size_t)((x->cplx ? 2 : 1) * rows));
}

/* LAPACK's dorgqr: the first n columns of Q = H(1) ... H(k), backward over blocks: the last
 * block's columns (with the columns beyond k) by the host orgqr, then for each block before
 * it its block reflector applied to the columns already formed, its own columns by the host
 * orgqr. */
static void lx_orgqr(oz_lx *x, qr_work *q, int64_t m, int64_t n, int64_t k, double *A,
                     int64_t lda, const double *tau, int64_t *info)
{
    int64_t nb = x->nb, pinfo = 0;
    *info = 0;
    if (n <= 0)
        return;
    if (k <= nb) {
        real_qr(x, Q_ORGQR, m, n, k, A, lda, tau, q->rw, q->lrw, info);
        return;
    }
    int64_t ki = ((k - 1) / nb) * nb;
    real_qr(x, Q_ORGQR, m - ki, n - ki, k - ki, LX_AT(x, A, ki, ki, lda), lda,
            LX_AT(x, tau, ki, 0, 1), q->rw, q->lrw, &pinfo);
    zero_rows(x, ki, ki, n, A, lda);
    for (int64_t i = ki - nb; i >= 0; i -= nb) {
        double *Aii = LX_AT(x, A, i, i, lda);
        const double *ti = LX_AT(x, tau, i, 0, 1);
        real_larft(x, m - i, nb, Aii, lda, ti, q->T);
        larfb(x, q, 'L', 'N', m - i, n - i - nb, nb, Aii, lda, LX_AT(x, A, i, i + nb, lda), lda);
        real_qr(x, Q_ORGQR, m - i, nb, nb, Aii, lda, ti, q->rw, q->lrw, &pinfo);
        zero_rows(x, i, i, i + nb, A, lda);
    }
}

/* LAPACK's dormqr: C := op(Q) C or C op(Q), one block reflector at a time, in the order
 * that applies H(1) last for Q C and C Q^H, first for Q^H C and C Q. */
static void lx_ormqr(oz_lx *x, qr_work *q, char side, char trans, int64_t m, int64_t n,
                     int64_t k, const double *A, int64_t lda, const double *tau, double *C,
                     int64_t ldc)
{
    int64_t nb = x->nb, nq = side == 'L' ? m : n, last = ((k - 1) / nb) * nb;
    if (m <= 0 || n <= 0 || k <= 0)
        return;
    int forward = (side == 'L') != (trans == 'N');
    for (int64_t t = 0; t < k; t += nb) {
        int64_t i = forward ? t : last - t, ib = min64(nb, k - i);
        const double *Aii = LX_AT(x, A, i, i, lda);
        real_larft(x, nq - i, ib, Aii, lda, LX_AT(x, tau, i, 0, 1), q->T);
        if (side == 'L')
            larfb(x, q, 'L', trans, m - i, n, ib, Aii, lda, LX_AT(x, C, i, 0, ldc), ldc);
        else
            larfb(x, q, 'R', trans, m, n - i, ib, Aii, lda, LX_AT(x, C, 0, i, ldc), ldc);
    }
}

/* ---- checks, flops, the public entries ------------------------------------------------- */

static int64_t max1(int64_t n) { return n > 1 ? n : 1; }

int64_t oz_qr_check(int op, int cplx, char side, char trans, int64_t m, int64_t n, int64_t k,
                    int64_t lda, int64_t ldc)
{
    side = up(side), trans = up(trans);
    if (op == OZ_QR_GEQRF)
        return m < 0 ? -1 : n < 0 ? -2 : lda < max1(m) ? -4 : 0;
    if (op == OZ_QR_ORGQR)
        return m < 0 ? -1 : n < 0 || n > m ? -2 : k < 0 || k > n ? -3 : lda < max1(m) ? -5 : 0;
    int64_t nq = side == 'L' ? m : n;
    if (side != 'L' && side != 'R')
        return -1;
    if (trans != 'N' && trans != (cplx ? 'C' : 'T'))
        return -2;
    return m < 0 ? -3 : n < 0 ? -4 : k < 0 || k > nq ? -5 : lda < max1(nq) ? -7
         : ldc < max1(m) ? -10 : 0;
}

double oz_qr_flops(int op, int cplx, char side, int64_t m, int64_t n, int64_t k)
{
    double dm = (double)m, dn = (double)n, dk = (double)k, f;
    if (op == OZ_QR_GEQRF) {
        double a = dm > dn ? dm : dn, b = dm > dn ? dn : dm;
        f = 2.0 * a * b * b - 2.0 / 3.0 * b * b * b;
    } else if (op == OZ_QR_ORGQR)
        f = 4.0 * dm * dn * dk - 2.0 * (dm + dn) * dk * dk + 4.0 / 3.0 * dk * dk * dk;
    else
        f = up(side) == 'L' ? 2.0 * dn * dk * (2.0 * dm - dk) : 2.0 * dm * dk * (2.0 * dn - dk);
    return (cplx ? 4.0 : 1.0) * f;
}

/* After BEGIN: the host QR routines and the workspace, or the entry returns. */
#define QR_WORK(rows, cols, right)                                                        \
    qr_work q;                                                                            \
    ozblas_status st1 = !q_ready(cplx) ? OZBLAS_ERR_NO_HOST_BLAS                          \
                                       : qr_alloc(&x, &q, rows, cols, right);             \
    if (st1 != OZBLAS_OK)                                                                 \
        END_WITH(st1);
#define QR_END()      \
    free(q.V);        \
    END()

static ozblas_status geqrf_body(ozblas_context *ctx, int cplx, int64_t m, int64_t n, double *A,
                                int64_t lda, double *tau, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    if ((*info = oz_qr_check(OZ_QR_GEQRF, cplx, 0, 0, m, n, 0, lda, 0)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    BEGIN_HOST(cplx, min64(m, n), oz_qr_flops(OZ_QR_GEQRF, cplx, 0, m, n, 0), LX_IN(A))
    QR_WORK(m, n, 0)
    lx_geqrf(&x, &q, m, n, A, lda, tau, info);
    QR_END();
}

static ozblas_status orgqr_body(ozblas_context *ctx, int cplx, int64_t m, int64_t n, int64_t k,
                                double *A, int64_t lda, const double *tau, int64_t *info,
                                int64_t nb, const ozblas_options *opt,
                                ozblas_lapack_report *report)
{
    if ((*info = oz_qr_check(OZ_QR_ORGQR, cplx, 0, 0, m, n, k, lda, 0)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    BEGIN_HOST(cplx, k, oz_qr_flops(OZ_QR_ORGQR, cplx, 0, m, n, k), LX_IN(A))
    QR_WORK(m, n, 0)
    lx_orgqr(&x, &q, m, n, k, A, lda, tau, info);
    QR_END();
}

static ozblas_status ormqr_body(ozblas_context *ctx, int cplx, char side, char trans, int64_t m,
                                int64_t n, int64_t k, const double *A, int64_t lda,
                                const double *tau, double *C, int64_t ldc, int64_t *info,
                                int64_t nb, const ozblas_options *opt,
                                ozblas_lapack_report *report)
{
    if ((*info = oz_qr_check(OZ_QR_ORMQR, cplx, side, trans, m, n, k, lda, ldc)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    side = up(side), trans = up(trans);
    BEGIN_HOST(cplx, k, oz_qr_flops(OZ_QR_ORMQR, cplx, side, m, n, k), LX_IN(A), LX_IN(C))
    QR_WORK(side == 'L' ? m : max64(m, n), n, side == 'R')
    lx_ormqr(&x, &q, side, trans, m, n, k, A, lda, tau, C, ldc);
    QR_END();
}

ozblas_status ozblas_dgeqrf(ozblas_context *ctx, int64_t m, int64_t n, double *A, int64_t lda,
                            double *tau, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report)
{
    return geqrf_body(ctx, 0, m, n, A, lda, tau, info, nb, opt, report);
}
ozblas_status ozblas_zgeqrf(ozblas_context *ctx, int64_t m, int64_t n, double *A, int64_t lda,
                            double *tau, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report)
{
    return geqrf_body(ctx, 1, m, n, A, lda, tau, info, nb, opt, report);
}
ozblas_status ozblas_dorgqr(ozblas_context *ctx, int64_t m, int64_t n, int64_t k, double *A,
                            int64_t lda, const double *tau, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report)
{
    return orgqr_body(ctx, 0, m, n, k, A, lda, tau, info, nb, opt, report);
}
ozblas_status ozblas_zungqr(ozblas_context *ctx, int64_t m, int64_t n, int64_t k, double *A,
                            int64_t lda, const double *tau, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report)
{
    return orgqr_body(ctx, 1, m, n, k, A, lda, tau, info, nb, opt, report);
}
ozblas_status ozblas_dormqr(ozblas_context *ctx, char side, char trans, int64_t m, int64_t n,
                            int64_t k, const double *A, int64_t lda, const double *tau,
                            double *C, int64_t ldc, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report)
{
    return ormqr_body(ctx, 0, side, trans, m, n, k, A, lda, tau, C, ldc, info, nb, opt, report);
}
ozblas_status ozblas_zunmqr(ozblas_context *ctx, char side, char trans, int64_t m, int64_t n,
                            int64_t k, const double *A, int64_t lda, const double *tau,
                            double *C, int64_t ldc, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report)
{
    return ormqr_body(ctx, 1, side, trans, m, n, k, A, lda, tau, C, ldc, info, nb, opt, report);
}
