/* Blocked QR with the compact WY form (LAPACK's dgeqrf, dorgqr, dormqr; z: zgeqrf, zungqr,
 * zunmqr), written once for double and complex double.
 *
 * A block of nb reflectors H = H(i) ... H(i+ib-1) is I - V T V^H (V unit lower trapezoidal,
 * T upper triangular, from the host larft). The panels go to the host geqrf (and orgqr for
 * the last block of Q); every application of H to the rest (LAPACK's larfb) is two ozblas
 * GEMMs around a host trmm with the small T: C - V (op(T) (V^H C)) from the left,
 * C - ((C V) op(T)) V^H from the right, with V copied out explicitly (its unit diagonal and
 * zeros written in) so that each product is one GEMM over all its rows. Device memory
 * (lapack_seam.c): the host routines work on host copies of their blocks, V and T go up to a
 * device workspace with the middle term, the products and the matrices stay there. */
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

static const char *const q_names[2][LX_QR_N] = {{"geqrf", "larft", "orgqr"},
                                            {"geqrf", "larft", "ungqr"}};
static void *q_fn[2][LX_QR_N]; /* atomic; found once */

static void *q_real(int cplx, int r)
{
    void *f = __atomic_load_n(&q_fn[cplx][r], __ATOMIC_ACQUIRE);
    if (!f && (f = lx_real_fn(cplx, q_names[cplx][r])))
        __atomic_store_n(&q_fn[cplx][r], f, __ATOMIC_RELEASE);
    return f;
}

int lx_qr_ready(int cplx)
{
    for (int r = 0; r < LX_QR_N; r++)
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
        if (r == LX_QR_GEQRF)
            ((void (*)(const i64 *, const i64 *, double *, const i64 *, const double *, double *,
                       const i64 *, i64 *))f)(&m, &n, A, &lda, tau, work, &lwork, info);
        else
            ((void (*)(const i64 *, const i64 *, const i64 *, double *, const i64 *,
                       const double *, double *, const i64 *, i64 *))f)(&m, &n, &k, A, &lda, tau,
                                                                         work, &lwork, info);
        return;
    }
    i32 m4 = (i32)m, n4 = (i32)n, k4 = (i32)k, l4 = (i32)lda, w4 = (i32)lwork, inf4 = 0;
    if (r == LX_QR_GEQRF)
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
    void *f = q_real(x->cplx, LX_QR_LARFT);
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


/* rows: V's most rows; cols: W's (nb x cols, or rows x nb when right) */
ozblas_status lx_qr_alloc(oz_lx *x, lx_qr_work *q, int64_t rows, int64_t cols, int right)
{
    int64_t w = x->cplx ? 2 : 1, nb = x->nb;
    q->lrw = 32 * max64(max64(cols, rows), nb); /* enough for the host's own blocking */
    int64_t nw = right ? rows * nb : nb * cols, nd = rows * nb + nb * nb + nw;
    q->V = malloc(sizeof(double) * (size_t)(w * (nd + q->lrw) + 1));
    if (!q->V)
        return OZBLAS_ERR_ALLOCATION;
    q->T = q->V + w * rows * nb;
    q->W = q->T + w * nb * nb;
    q->rw = q->W + w * nw;
    q->dV = lx_scratch(x, q->V, nd);
    if (!q->dV)
        return OZBLAS_ERR_DEVICE;
    q->dT = q->dV + w * rows * nb;
    q->W = q->dT + w * nb * nb;
    return OZBLAS_OK;
}

/* The ib reflectors below the diagonal of Vh (r rows, host memory): V made explicit (its
 * unit diagonal and zeros written in) and T by the host larft, then both where the
 * products read them. */
void lx_qr_block(oz_lx *x, lx_qr_work *q, const double *Vh, int64_t ldv, int64_t r, int64_t ib,
                 const double *tau)
{
    int w = x->cplx ? 2 : 1;
    for (int64_t j = 0; j < ib; j++)
        for (int64_t i = 0; i < r; i++) {
            double *v = LX_AT(x, q->V, i, j, r);
            const double *s = LX_AT(x, Vh, i, j, ldv);
            for (int e = 0; e < w; e++)
                v[e] = i > j ? s[e] : (i == j && e == 0) ? 1.0 : 0.0;
        }
    /* larft writes the upper triangle; the zeros below let a GEMM read T whole */
    memset(q->T, 0, sizeof(double) * (size_t)(w * ib * ib));
    real_larft(x, r, ib, Vh, ldv, tau, q->T);
    lx_host_flops(x, (double)r * (double)ib * (double)ib);
    lx_store(x, q->V, r, q->dV, r, r, ib);
    lx_store(x, q->T, ib, q->dT, ib, ib, ib);
}

/* C (mr x nc) := H C or H^H C (side 'L', H of order mr) or C H, C H^H ('R', order nc), H the
 * block reflector of the last qr_block (ib reflectors): two GEMMs around a trmm with T. */
void lx_larfb(oz_lx *x, lx_qr_work *q, char side, char trans, int64_t mr, int64_t nc,
              int64_t ib, double *C, int64_t ldc)
{
    int64_t r = side == 'L' ? mr : nc;
    if (mr <= 0 || nc <= 0)
        return;
    char op = trans == 'N' ? 'N' : ct(x);
    if (side == 'L') {
        lx_gemm(x, ct(x), 'N', ib, nc, r, ONE, q->dV, r, C, ldc, ZERO, q->W, ib);
        lx_trmm(x, 'L', 'U', op, 'N', ib, nc, ONE, q->dT, ib, q->W, ib);
        lx_gemm(x, 'N', 'N', r, nc, ib, MONE, q->dV, r, q->W, ib, ONE, C, ldc);
    } else {
        lx_gemm(x, 'N', 'N', mr, ib, r, ONE, C, ldc, q->dV, r, ZERO, q->W, mr);
        lx_trmm(x, 'R', 'U', op, 'N', mr, ib, ONE, q->dT, ib, q->W, mr);
        lx_gemm(x, 'N', ct(x), mr, r, ib, MONE, q->W, mr, q->dV, r, ONE, C, ldc);
    }
}

/* The host geqrf (r = LX_QR_GEQRF) or orgqr on the m x n block at A, through the seam; its
 * host copy (valid until the next fetch of slot 0) in *H, *ldh. */
void lx_qr_host(oz_lx *x, lx_qr_work *q, int r, int64_t m, int64_t n, int64_t k, double *A,
                int64_t lda, const double *tau, int64_t *info, double **H, int64_t *ldh)
{
    *H = lx_fetch(x, 0, A, lda, m, n, ldh, 1);
    if (x->failed)
        return;
    real_qr(x, r, m, n, k, *H, *ldh, tau, q->rw, q->lrw, info);
    lx_host_flops(x, oz_qr_flops(r == LX_QR_GEQRF ? OZ_QR_GEQRF : OZ_QR_ORGQR, 0, 0, m, n, k));
    lx_store(x, *H, *ldh, A, lda, m, n);
}

void lx_qr_free(oz_lx *x, lx_qr_work *q)
{
    lx_scratch_free(x, q->dV);
    free(q->V);
}

/* The reflectors of A's block (r x ib at Aii) as the block reflector of larfb. */
static void qr_block_at(oz_lx *x, lx_qr_work *q, const double *Aii, int64_t lda, int64_t r,
                        int64_t ib, const double *tau)
{
    int64_t ld;
    const double *Vh = lx_fetch(x, 0, Aii, lda, r, ib, &ld, 1);
    if (!x->failed)
        lx_qr_block(x, q, Vh, ld, r, ib, tau);
}

/* LAPACK's dgeqrf: each panel of nb columns by the host geqrf, its block reflector applied
 * to the columns to its right. */
void lx_geqrf(oz_lx *x, lx_qr_work *q, int64_t m, int64_t n, double *A, int64_t lda,
              double *tau, int64_t *info)
{
    int64_t k = min64(m, n), nb = x->nb, pinfo = 0, ld;
    double *H;
    *info = 0;
    if (k <= nb) {
        lx_qr_host(x, q, LX_QR_GEQRF, m, n, 0, A, lda, tau, info, &H, &ld);
        return;
    }
    for (int64_t i = 0; i < k && !x->failed; i += nb) {
        int64_t ib = min64(nb, k - i);
        double *Aii = LX_AT(x, A, i, i, lda), *ti = LX_AT(x, tau, i, 0, 1);
        lx_qr_host(x, q, LX_QR_GEQRF, m - i, ib, 0, Aii, lda, ti, &pinfo, &H, &ld);
        if (i + ib < n && !x->failed) {
            lx_qr_block(x, q, H, ld, m - i, ib, ti);
            lx_larfb(x, q, 'L', ct(x), m - i, n - i - ib, ib, LX_AT(x, A, i, i + ib, lda), lda);
        }
    }
}

/* Columns j0 to j1 of A (m rows) := those of the identity, in strips of nb columns (what a
 * seam buffer holds). */
static void unit_columns(oz_lx *x, int64_t m, int64_t j0, int64_t j1, double *A, int64_t lda)
{
    int64_t w = x->cplx ? 2 : 1;
    for (int64_t c = j0; c < j1 && m > 0 && !x->failed; c += x->nb) {
        int64_t cb = min64(x->nb, j1 - c), ld;
        double *Ac = LX_AT(x, A, 0, c, lda), *H = lx_fetch(x, 1, Ac, lda, m, cb, &ld, 0);
        if (x->failed)
            return;
        for (int64_t j = 0; j < cb; j++) {
            memset(LX_AT(x, H, 0, j, ld), 0, sizeof(double) * (size_t)(w * m));
            if (c + j < m)
                LX_AT(x, H, c + j, j, ld)[0] = 1.0;
        }
        lx_store(x, H, ld, Ac, lda, m, cb);
    }
}

/* LAPACK's dorgqr: the first n columns of Q = H(1) ... H(k), backward over blocks. The last
 * block's columns by the host orgqr (with the columns beyond k when they fit in one block;
 * else those are set to the identity's and the last block reflector applied to them, as
 * for the earlier blocks), then for each block before it its block reflector applied to the
 * columns already formed, its own columns by the host orgqr; the rows above each block
 * zero. */
void lx_orgqr(oz_lx *x, lx_qr_work *q, int64_t m, int64_t n, int64_t k, double *A,
              int64_t lda, const double *tau, int64_t *info)
{
    int64_t nb = x->nb, pinfo = 0, ld;
    double *H;
    *info = 0;
    if (n <= 0)
        return;
    if (k == 0) {
        unit_columns(x, m, 0, n, A, lda);
        return;
    }
    int64_t ki = ((k - 1) / nb) * nb, kl = n - ki <= nb ? n : k;
    double *Akk = LX_AT(x, A, ki, ki, lda);
    const double *tk = LX_AT(x, tau, ki, 0, 1);
    if (kl < n) {
        unit_columns(x, m, k, n, A, lda);
        qr_block_at(x, q, Akk, lda, m - ki, k - ki, tk);
        lx_larfb(x, q, 'L', 'N', m - ki, n - k, k - ki, LX_AT(x, A, ki, k, lda), lda);
    }
    lx_qr_host(x, q, LX_QR_ORGQR, m - ki, kl - ki, k - ki, Akk, lda, tk, kl < n ? &pinfo : info, &H,
            &ld);
    lx_zero(x, ki, n - ki, LX_AT(x, A, 0, ki, lda), lda);
    for (int64_t i = ki - nb; i >= 0 && !x->failed; i -= nb) {
        double *Aii = LX_AT(x, A, i, i, lda);
        const double *ti = LX_AT(x, tau, i, 0, 1);
        qr_block_at(x, q, Aii, lda, m - i, nb, ti);
        lx_larfb(x, q, 'L', 'N', m - i, n - i - nb, nb, LX_AT(x, A, i, i + nb, lda), lda);
        lx_qr_host(x, q, LX_QR_ORGQR, m - i, nb, nb, Aii, lda, ti, &pinfo, &H, &ld);
        lx_zero(x, i, nb, LX_AT(x, A, 0, i, lda), lda);
    }
}

/* LAPACK's dormqr: C := op(Q) C or C op(Q), one block reflector at a time, in the order
 * that applies H(1) last for Q C and C Q^H, first for Q^H C and C Q. */
void lx_ormqr(oz_lx *x, lx_qr_work *q, char side, char trans, int64_t m, int64_t n,
              int64_t k, const double *A, int64_t lda, const double *tau, double *C,
              int64_t ldc)
{
    int64_t nb = x->nb, nq = side == 'L' ? m : n, last = ((k - 1) / nb) * nb;
    if (m <= 0 || n <= 0 || k <= 0)
        return;
    int forward = (side == 'L') != (trans == 'N');
    for (int64_t t = 0; t < k && !x->failed; t += nb) {
        int64_t i = forward ? t : last - t, ib = min64(nb, k - i);
        qr_block_at(x, q, LX_AT(x, A, i, i, lda), lda, nq - i, ib, LX_AT(x, tau, i, 0, 1));
        if (side == 'L')
            lx_larfb(x, q, 'L', trans, m - i, n, ib, LX_AT(x, C, i, 0, ldc), ldc);
        else
            lx_larfb(x, q, 'R', trans, m, n - i, ib, LX_AT(x, C, 0, i, ldc), ldc);
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
    lx_qr_work q;                                                                            \
    memset(&q, 0, sizeof q);                                                              \
    x.o.target = OZBLAS_TARGET_NORMWISE; /* Householder products (ozaki2.h) */            \
    ozblas_status st1 = !lx_qr_ready(cplx) ? OZBLAS_ERR_NO_HOST_BLAS                          \
                                       : lx_qr_alloc(&x, &q, rows, cols, right);             \
    if (st1 != OZBLAS_OK) {                                                               \
        lx_qr_free(&x, &q);                                                               \
        END_WITH(st1);                                                                    \
    }
#define QR_END()         \
    lx_qr_free(&x, &q);  \
    END()

static ozblas_status geqrf_body(ozblas_context *ctx, int cplx, int64_t m, int64_t n, double *A,
                                int64_t lda, double *tau, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    if ((*info = oz_qr_check(OZ_QR_GEQRF, cplx, 0, 0, m, n, 0, lda, 0)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    BEGIN(cplx, min64(m, n), oz_qr_flops(OZ_QR_GEQRF, cplx, 0, m, n, 0), max64(max64(m, n), 1),
          LX_OP(A, lda, m, n, 1))
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
    BEGIN(cplx, k, oz_qr_flops(OZ_QR_ORGQR, cplx, 0, m, n, k), max64(m, 1), LX_OP(A, lda, m, n, 1))
    QR_WORK(m, n, 0)
    lx_orgqr(&x, &q, m, n, k, A, lda, tau, info);
    QR_END();
}

static ozblas_status ormqr_body(ozblas_context *ctx, int cplx, char side, char trans, int64_t m,
                                int64_t n, int64_t k, double *A, int64_t lda,
                                const double *tau, double *C, int64_t ldc, int64_t *info,
                                int64_t nb, const ozblas_options *opt,
                                ozblas_lapack_report *report)
{
    if ((*info = oz_qr_check(OZ_QR_ORMQR, cplx, side, trans, m, n, k, lda, ldc)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    side = up(side), trans = up(trans);
    int64_t nq = side == 'L' ? m : n;
    BEGIN(cplx, k, oz_qr_flops(OZ_QR_ORMQR, cplx, side, m, n, k), max64(max64(m, n), 1),
          LX_OP(A, lda, nq, k, 0), LX_OP(C, ldc, m, n, 1))
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
    return ormqr_body(ctx, 0, side, trans, m, n, k, (double *)A, lda, tau, C, ldc, info, nb, opt, report);
}
ozblas_status ozblas_zunmqr(ozblas_context *ctx, char side, char trans, int64_t m, int64_t n,
                            int64_t k, const double *A, int64_t lda, const double *tau,
                            double *C, int64_t ldc, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report)
{
    return ormqr_body(ctx, 1, side, trans, m, n, k, (double *)A, lda, tau, C, ldc, info, nb, opt, report);
}
