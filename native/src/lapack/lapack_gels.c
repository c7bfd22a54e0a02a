/* Least squares by QR or LQ (LAPACK's dgels, zgels), written once for double and complex
 * double on the Householder machinery of lapack_qr.c: the steps, their order and the
 * scaling are dgels's. A and B are scaled into range first when their largest element is
 * not (the host lange and lascl, through the seam in strips of nb columns: lascl's factors
 * depend on the two scalars only, so a strip's elements get the bits the whole matrix's
 * would), then QR of A (m >= n) or LQ (m < n) by the blocked drivers, Q applied by
 * ormqr/ormlq's driver, the triangular solve by the blocked trsm after trtrs's check for an
 * exactly zero diagonal element (info > 0: nothing more is done, as in LAPACK, which leaves
 * A and B scaled then), and the solution scaled back.
 *
 * gelsy (dgelsy, zgelsy: the complete orthogonal factorization) shares the scaling: QR with
 * column pivoting (geqp3, half of it Level 2), the rank's condition estimates (laic1), the RZ
 * factorization (tzrzf) and Z's application to the solution (ormrz) are the host's, on a host
 * copy of A for device memory; Q^H B (ormqr's driver) and the triangular solve (the blocked
 * trsm) are products. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/oz_internal.h"
#include "oz_lapack.h"

/* ---- the host routines ------------------------------------------------------------------- */

/* gels's (the first two) and gelsy's */
static const int g_ids[2][6] = {
    {LXH_lange, LXH_lascl, LXH_dgeqp3, LXH_laic1, LXH_tzrzf, LXH_ormrz},
    {LXH_lange, LXH_lascl, LXH_zgeqp3, LXH_laic1, LXH_tzrzf, LXH_ormrz}};

/* lange('M', m, n, A, lda, work): the largest |a_ij| (NaN when one is) */
static double real_lange(const oz_lx *x, int64_t m, int64_t n, const double *A, int64_t lda)
{
    const char norm = 'M';
    double work[1], r = 0.0;
    LX_F77(I m4 = (I)m, n4 = (I)n, l4 = (I)lda;
           r = LX_HOST(x->cplx, lange)(&norm, &m4, &n4, A, &l4, work, 1););
    return r;
}

/* lascl(type, 0, 0, cfrom, cto, m, n, A, lda, info): A := A cto / cfrom without over- or
 * underflow (type 'G': all of A, 'U': its upper triangle) */
static void real_lascl(const oz_lx *x, char type, double cfrom, double cto, int64_t m,
                       int64_t n, double *A, int64_t lda)
{
    LX_F77(I zero = 0, info = 0, m4 = (I)m, n4 = (I)n, l4 = (I)lda;
           LX_HOST(x->cplx, lascl)(&type, &zero, &zero, &cfrom, &cto, &m4, &n4, A, &l4, &info, 1););
}

/* geqp3(m, n, A, lda, jpvt, tau, work, lwork, [rwork,] info): jpvt as the host's integers
 * (jp: int32_t or int64_t); lwork -1 a workspace query */
static void real_geqp3(const oz_lx *x, int64_t m, int64_t n, double *A, int64_t lda, void *jp,
                       double *tau, double *work, int64_t lwork, double *rwork)
{
    LX_F77(I m4 = (I)m, n4 = (I)n, l4 = (I)lda, w4 = (I)lwork, info = 0;
           if (x->cplx)
               LX_HOST(1, zgeqp3)(&m4, &n4, A, &l4, jp, tau, work, &w4, rwork, &info);
           else
               LX_HOST(0, dgeqp3)(&m4, &n4, A, &l4, jp, tau, work, &w4, &info););
}

/* laic1(job, j, x, sest, w, gamma, sestpr, s, c): one step of the incremental condition
 * estimate (x, w, gamma, s, c complex for z) */
static void real_laic1(const oz_lx *x, int64_t job, int64_t j, const double *xv, double sest,
                       const double *w, const double *gamma, double *sestpr, double *s,
                       double *c)
{
    LX_F77(I job4 = (I)job, j4 = (I)j;
           LX_HOST(x->cplx, laic1)(&job4, &j4, xv, &sest, w, gamma, sestpr, s, c););
}

/* tzrzf(m, n, A, lda, tau, work, lwork, info) */
static void real_tzrzf(const oz_lx *x, int64_t m, int64_t n, double *A, int64_t lda,
                       double *tau, double *work, int64_t lwork)
{
    LX_F77(I m4 = (I)m, n4 = (I)n, l4 = (I)lda, w4 = (I)lwork, info = 0;
           LX_HOST(x->cplx, tzrzf)(&m4, &n4, A, &l4, tau, work, &w4, &info););
}

/* ormrz('L', trans, m, n, k, l, A, lda, tau, C, ldc, work, lwork, info) */
static void real_ormrz(const oz_lx *x, char trans, int64_t m, int64_t n, int64_t k, int64_t l,
                       const double *A, int64_t lda, const double *tau, double *C, int64_t ldc,
                       double *work, int64_t lwork)
{
    const char side = 'L';
    LX_F77(I m4 = (I)m, n4 = (I)n, k4 = (I)k, l4 = (I)l, la = (I)lda, lc = (I)ldc;
           I w4 = (I)lwork, info = 0;
           LX_HOST(x->cplx, ormrz)(&side, &trans, &m4, &n4, &k4, &l4, A, &la, tau, C, &lc, work,
                                   &w4, &info, 1, 1););
}

/* ---- the driver -------------------------------------------------------------------------- */

/* The largest |a_ij| of the m x n A, strip by strip (NaN when one is, as lange) */
double lx_max_abs(oz_lx *x, int64_t m, int64_t n, const double *A, int64_t lda)
{
    double r = 0.0;
    for (int64_t c = 0; c < n && m > 0 && !x->failed; c += x->nb) {
        int64_t cb = min64(x->nb, n - c), ld;
        const double *H = lx_fetch(x, 0, LX_AT(x, A, 0, c, lda), lda, m, cb, &ld, 1);
        if (x->failed)
            break;
        double v = real_lange(x, m, cb, H, ld);
        if (isnan(v))
            return v;
        r = v > r ? v : r;
    }
    return r;
}

/* A (m x n) := A cto / cfrom, strip by strip */
static void rescale(oz_lx *x, double cfrom, double cto, int64_t m, int64_t n, double *A,
                    int64_t lda)
{
    for (int64_t c = 0; c < n && m > 0 && !x->failed; c += x->nb) {
        int64_t cb = min64(x->nb, n - c), ld;
        double *Ac = LX_AT(x, A, 0, c, lda), *H = lx_fetch(x, 0, Ac, lda, m, cb, &ld, 1);
        if (x->failed)
            return;
        real_lascl(x, 'G', cfrom, cto, m, cb, H, ld);
        lx_store(x, H, ld, Ac, lda, m, cb);
    }
}

/* trtrs: 0, or the first exactly zero diagonal element (nothing solved) */
static int64_t tri_solve(oz_lx *x, char uplo, char trans, int64_t n, int64_t nrhs,
                         const double *A, int64_t lda, double *B, int64_t ldb)
{
    int64_t info = lx_zero_diagonal(x, n, A, lda);
    if (!info)
        lx_trsm(x, 'L', uplo, trans, 'N', n, nrhs, ONE, A, lda, B, ldb);
    return info;
}

/* dgels's range for a scaled matrix: dlamch('S') / dlamch('P') and its inverse */
static int scale_into_range(oz_lx *x, double nrm, int64_t m, int64_t n, double *A, int64_t lda)
{
    const double small = DBL_MIN / DBL_EPSILON, big = 1.0 / small;
    if (nrm > 0.0 && nrm < small) {
        rescale(x, nrm, small, m, n, A, lda);
        return 1;
    }
    if (nrm > big) {
        rescale(x, nrm, big, m, n, A, lda);
        return 2;
    }
    return 0;
}

static void lx_gels(oz_lx *x, lx_hh *q, double *tau, char trans, int64_t m, int64_t n,
                    int64_t nrhs, double *A, int64_t lda, double *B, int64_t ldb, int64_t *info)
{
    const double small = DBL_MIN / DBL_EPSILON, big = 1.0 / small;
    int64_t mn = min64(m, n), mx = max64(m, n), scllen, pinfo = 0;
    char c = ct(x);
    int tp = trans != 'N';
    *info = 0;
    if (mn == 0 || nrhs == 0) {
        lx_zero(x, mx, nrhs, B, ldb);
        return;
    }
    double anrm = lx_max_abs(x, m, n, A, lda);
    int iascl = scale_into_range(x, anrm, m, n, A, lda);
    if (anrm == 0.0) { /* A is zero: so is the solution */
        lx_zero(x, mx, nrhs, B, ldb);
        return;
    }
    int64_t brow = tp ? n : m;
    double bnrm = lx_max_abs(x, brow, nrhs, B, ldb);
    int ibscl = scale_into_range(x, bnrm, brow, nrhs, B, ldb);
    if (m >= n) {
        lx_geqrf(x, q, 0, m, n, A, lda, tau, &pinfo);
        if (!tp) { /* min ||B - A X||: X = R^-1 (Q^H B)(1:n) */
            lx_ormqr(x, q, 0, 'L', c, m, nrhs, n, A, lda, tau, B, ldb);
            if ((*info = tri_solve(x, 'U', 'N', n, nrhs, A, lda, B, ldb)))
                return;
            scllen = n;
        } else { /* minimum norm A^H X = B: X = Q [R^-H B; 0] */
            if ((*info = tri_solve(x, 'U', c, n, nrhs, A, lda, B, ldb)))
                return;
            lx_zero(x, m - n, nrhs, LX_AT(x, B, n, 0, ldb), ldb);
            lx_ormqr(x, q, 0, 'L', 'N', m, nrhs, n, A, lda, tau, B, ldb);
            scllen = m;
        }
    } else {
        lx_geqrf(x, q, 1, n, m, A, lda, tau, &pinfo); /* gelqf */
        if (!tp) { /* minimum norm A X = B: X = Q^H [L^-1 B; 0] (ormlq 'C': the view's 'N') */
            if ((*info = tri_solve(x, 'L', 'N', m, nrhs, A, lda, B, ldb)))
                return;
            lx_zero(x, n - m, nrhs, LX_AT(x, B, m, 0, ldb), ldb);
            lx_ormqr(x, q, 1, 'L', 'N', n, nrhs, m, A, lda, tau, B, ldb);
            scllen = n;
        } else { /* min ||B - A^H X||: X = L^-H (Q B)(1:m) (ormlq 'N': the view's 'C') */
            lx_ormqr(x, q, 1, 'L', c, n, nrhs, m, A, lda, tau, B, ldb);
            if ((*info = tri_solve(x, 'L', c, m, nrhs, A, lda, B, ldb)))
                return;
            scllen = m;
        }
    }
    if (iascl)
        rescale(x, anrm, iascl == 1 ? small : big, scllen, nrhs, B, ldb);
    if (ibscl)
        rescale(x, ibscl == 1 ? small : big, bnrm, scllen, nrhs, B, ldb);
}

/* ---- gelsy ------------------------------------------------------------------------------- */

/* gelsy's host side: the host copies of A (m x n) and of B's first n rows (device runs; else
 * NULL: A and B are read in place), geqp3's and tzrzf's scalars, the two condition estimates'
 * vectors, the host routines' workspace (their queried optimum, at least n elements for the
 * permutation) and the pivots as the host's integers */
typedef struct {
    double *G, *GB, *tau, *tz, *xmin, *xmax, *work, *rwork;
    int64_t lwork;
    void *jp;
} gy_work;

static ozblas_status gy_alloc(oz_lx *x, gy_work *g, int64_t m, int64_t n, int64_t nrhs)
{
    int64_t w = x->cplx ? 2 : 1, mn = min64(m, n), ld = max1(m);
    double q[2] = {0.0, 0.0}, dummy[2] = {0.0, 0.0};
    int64_t jq[1] = {0};
    memset(g, 0, sizeof *g);
    g->lwork = max1(n);
    real_geqp3(x, m, n, dummy, ld, jq, dummy, q, -1, dummy);
    g->lwork = max64(g->lwork, (int64_t)q[0]);
    real_tzrzf(x, mn, n, dummy, max1(mn), dummy, q, -1);
    g->lwork = max64(g->lwork, (int64_t)q[0]);
    real_ormrz(x, ct(x), n, nrhs, mn, n - mn, dummy, max1(mn), dummy, dummy, max1(n), q, -1);
    g->lwork = max64(g->lwork, (int64_t)q[0]);
    size_t el = (size_t)(w * (4 * mn + g->lwork) + 2 * n + 1);
    g->tau = oz_malloc(sizeof(double) * el);
    g->jp = oz_malloc(sizeof(int64_t) * (size_t)max1(n));
    if (x->dev) {
        g->G = oz_malloc(sizeof(double) * (size_t)(w * m * n + 1));
        g->GB = oz_malloc(sizeof(double) * (size_t)(w * n * nrhs + 1));
    }
    if (!g->tau || !g->jp || (x->dev && (!g->G || !g->GB)))
        return OZBLAS_ERR_ALLOCATION;
    g->tz = g->tau + w * mn;
    g->xmin = g->tz + w * mn;
    g->xmax = g->xmin + w * mn;
    g->work = g->xmax + w * mn;
    g->rwork = g->work + w * g->lwork;
    return OZBLAS_OK;
}

static void gy_free(gy_work *g)
{
    free(g->tau);
    free(g->jp);
    free(g->G);
    free(g->GB);
}

/* a := b a (complex when cplx) */
static void mul_by(int cplx, const double *b, double *a)
{
    double r = b[0] * a[0] - (cplx ? b[1] * a[1] : 0.0);
    if (cplx)
        a[1] = b[0] * a[1] + b[1] * a[0];
    a[0] = r;
}

/* dgelsy's steps: A and B scaled into range, QR with column pivoting by the host geqp3 (on a
 * host copy for device memory), the rank from the incremental condition estimates of R's
 * leading columns (host laic1: the first r whose estimate of smax / smin reaches 1 / rcond
 * stops it), the RZ factorization of R's first rank rows by the host tzrzf, then
 * Q^H B by ormqr's driver and R11^-1 by the blocked trsm (products), Z^H by the host ormrz
 * on B's first n rows, the permutation and the scaling undone. */
static void lx_gelsy(oz_lx *x, lx_hh *q, gy_work *g, int64_t m, int64_t n, int64_t nrhs,
                     double *A, int64_t lda, double *B, int64_t ldb, int64_t *jpvt, double rcond,
                     int64_t *rank)
{
    const double small = DBL_MIN / DBL_EPSILON, big = 1.0 / small;
    int64_t w = x->cplx ? 2 : 1, mn = min64(m, n), mx = max64(m, n), ld, lb;
    int ilp = lx_real_ilp64();
    *rank = 0;
    if (mn == 0 || nrhs == 0)
        return;
    double anrm = lx_max_abs(x, m, n, A, lda);
    int iascl = scale_into_range(x, anrm, m, n, A, lda);
    if (anrm == 0.0) {
        lx_zero(x, mx, nrhs, B, ldb);
        return;
    }
    double bnrm = lx_max_abs(x, m, nrhs, B, ldb);
    int ibscl = scale_into_range(x, bnrm, m, nrhs, B, ldb);
    double *H = lx_fetch_to(x, g->G, m, A, lda, m, n, &ld);
    if (x->failed)
        return;
    for (int64_t i = 0; i < n; i++)
        if (ilp)
            ((int64_t *)g->jp)[i] = jpvt[i];
        else
            ((int32_t *)g->jp)[i] = (int32_t)jpvt[i];
    real_geqp3(x, m, n, H, ld, g->jp, g->tau, g->work, g->lwork, g->rwork);
    for (int64_t i = 0; i < n; i++)
        jpvt[i] = ilp ? ((int64_t *)g->jp)[i] : ((int32_t *)g->jp)[i];
    double smax = x->cplx ? hypot(H[0], H[1]) : fabs(H[0]), smin = smax;
    if (smax == 0.0) { /* R is zero: so is the solution */
        lx_store(x, H, ld, A, lda, m, n);
        lx_zero(x, mx, nrhs, B, ldb);
        return;
    }
    int64_t r = 1;
    memset(g->xmin, 0, sizeof(double) * (size_t)(2 * w * mn));
    g->xmin[0] = g->xmax[0] = 1.0;
    while (r < mn) {
        const double *col = LX_AT(x, H, 0, r, ld), *gamma = LX_AT(x, H, r, r, ld);
        double sminpr, smaxpr, s1[2], c1[2], s2[2], c2[2];
        real_laic1(x, 2, r, g->xmin, smin, col, gamma, &sminpr, s1, c1); /* dgelsy's IMIN */
        real_laic1(x, 1, r, g->xmax, smax, col, gamma, &smaxpr, s2, c2); /* IMAX */
        if (!(smaxpr * rcond <= sminpr))
            break;
        for (int64_t i = 0; i < r; i++) {
            mul_by(x->cplx, s1, g->xmin + w * i);
            mul_by(x->cplx, s2, g->xmax + w * i);
        }
        memcpy(g->xmin + w * r, c1, sizeof(double) * (size_t)w);
        memcpy(g->xmax + w * r, c2, sizeof(double) * (size_t)w);
        smin = sminpr, smax = smaxpr, r++;
    }
    *rank = r;
    if (r < n)
        real_tzrzf(x, r, n, H, ld, g->tz, g->work, g->lwork);
    lx_store(x, H, ld, A, lda, m, n);
    lx_ormqr(x, q, 0, 'L', ct(x), m, nrhs, mn, A, lda, g->tau, B, ldb);
    /* R11 is graded when A's columns are (geqp3 orders them by norm: the reason to call
       gelsy), so the solve's products keep the entrywise target, whose errors follow the
       grading as the host trsm's do; the normwise one makes them u ||R11|| ||x||, and the
       residual cond(R11) times larger */
    x->o.target = OZBLAS_TARGET_ENTRYWISE;
    lx_trsm(x, 'L', 'U', 'N', 'N', r, nrhs, ONE, A, lda, B, ldb);
    x->o.target = OZBLAS_TARGET_NORMWISE;
    lx_zero(x, n - r, nrhs, LX_AT(x, B, r, 0, ldb), ldb);
    double *HB = lx_fetch_to(x, g->GB, n, B, ldb, n, nrhs, &lb);
    if (x->failed)
        return;
    if (r < n)
        real_ormrz(x, ct(x), n, nrhs, r, n - r, H, ld, g->tz, HB, lb, g->work, g->lwork);
    size_t es = sizeof(double) * (size_t)w;
    for (int64_t j = 0; j < nrhs; j++) { /* B(jpvt(i), j) := B(i, j) */
        for (int64_t i = 0; i < n; i++)
            memcpy(g->work + w * (jpvt[i] - 1), LX_AT(x, HB, i, j, lb), es);
        memcpy(LX_AT(x, HB, 0, j, lb), g->work, es * (size_t)n);
    }
    if (iascl) {
        double s = iascl == 1 ? small : big;
        real_lascl(x, 'G', anrm, s, n, nrhs, HB, lb);
        real_lascl(x, 'U', s, anrm, r, r, H, ld);
        lx_store(x, H, ld, A, lda, r, r);
    }
    if (ibscl)
        real_lascl(x, 'G', ibscl == 1 ? small : big, bnrm, n, nrhs, HB, lb);
    lx_store(x, HB, lb, B, ldb, n, nrhs);
}

/* ---- checks, flops, the public entries ------------------------------------------------- */

int64_t oz_gels_check(int cplx, char trans, int64_t m, int64_t n, int64_t nrhs, int64_t lda,
                      int64_t ldb)
{
    trans = up(trans);
    if (trans != 'N' && trans != (cplx ? 'C' : 'T'))
        return -1;
    return m < 0 ? -2 : n < 0 ? -3 : nrhs < 0 ? -4 : lda < max1(m) ? -6
         : ldb < max1(max64(m, n)) ? -8 : 0;
}

/* the factorization's, Q's application to B and the triangular solve's */
double oz_gels_flops(int cplx, int64_t m, int64_t n, int64_t nrhs)
{
    int64_t mn = min64(m, n);
    return oz_qr_flops(OZ_QR_GEQRF, cplx, 0, m, n, 0) +
           oz_qr_flops(OZ_QR_ORMQR, cplx, 'L', max64(m, n), nrhs, mn) +
           (cplx ? 4.0 : 1.0) * (double)mn * (double)mn * (double)nrhs;
}

static ozblas_status gels_body(ozblas_context *ctx, int cplx, char trans, int64_t m, int64_t n,
                               int64_t nrhs, double *A, int64_t lda, double *B, int64_t ldb,
                               int64_t *info, int64_t nb, const ozblas_options *opt,
                               ozblas_lapack_report *report)
{
    if ((*info = oz_gels_check(cplx, trans, m, n, nrhs, lda, ldb)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    int64_t mn = min64(m, n), mx = max64(m, n);
    BEGIN(cplx, mn, oz_gels_flops(cplx, m, n, nrhs), max1(max64(mx, nrhs)),
          LX_OP(A, lda, m, n, 1), LX_OP(B, ldb, mx, nrhs, 1))
    if (!lx_host_all(cplx, g_ids[cplx], 2))
        END_WITH(OZBLAS_ERR_NO_HOST_BLAS);
    HH_WORK(max1(mx), max1(max64(mx, nrhs)), 0)
    double *tau = oz_malloc(sizeof(double) * (size_t)((cplx ? 2 : 1) * max1(mn)));
    if (!tau) {
        HH_END_WITH(OZBLAS_ERR_ALLOCATION);
    }
    lx_gels(&x, &q, tau, up(trans), m, n, nrhs, A, lda, B, ldb, info);
    free(tau);
    HH_END_WITH(OZBLAS_OK);
}

LX_DZ(gels, gels,
      (char trans, int64_t m, int64_t n, int64_t nrhs, double *A, int64_t lda, double *B,
       int64_t ldb, int64_t *info),
      gels_body, trans, m, n, nrhs, A, lda, B, ldb, info)

int64_t oz_gelsy_check(int64_t m, int64_t n, int64_t nrhs, int64_t lda, int64_t ldb)
{
    return m < 0 ? -1 : n < 0 ? -2 : nrhs < 0 ? -3 : lda < max1(m) ? -5
         : ldb < max1(max64(m, n)) ? -7 : 0;
}

/* gels's (a full-rank A: the QR, Q^H B and the triangular solve) */
double oz_gelsy_flops(int cplx, int64_t m, int64_t n, int64_t nrhs)
{
    return oz_gels_flops(cplx, m, n, nrhs);
}

static ozblas_status gelsy_body(ozblas_context *ctx, int cplx, int64_t m, int64_t n,
                                int64_t nrhs, double *A, int64_t lda, double *B, int64_t ldb,
                                int64_t *jpvt, double rcond, int64_t *rank, int64_t *info,
                                int64_t nb, const ozblas_options *opt,
                                ozblas_lapack_report *report)
{
    *rank = 0;
    if ((*info = oz_gelsy_check(m, n, nrhs, lda, ldb)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    int64_t mn = min64(m, n), mx = max64(m, n);
    BEGIN(cplx, mn, oz_gelsy_flops(cplx, m, n, nrhs), max1(max64(mx, nrhs)),
          LX_OP(A, lda, m, n, 1), LX_OP(B, ldb, mx, nrhs, 1))
    if (!lx_host_all(cplx, g_ids[cplx], 6))
        END_WITH(OZBLAS_ERR_NO_HOST_BLAS);
    HH_WORK(max1(m), max1(nrhs), 0)
    gy_work g;
    ozblas_status st = OZBLAS_OK;
    if (mn > 0 && nrhs > 0 && (st = gy_alloc(&x, &g, m, n, nrhs)) == OZBLAS_OK)
        lx_gelsy(&x, &q, &g, m, n, nrhs, A, lda, B, ldb, jpvt, rcond, rank);
    if (mn > 0 && nrhs > 0)
        gy_free(&g);
    HH_END_WITH(st);
}

LX_DZ(gelsy, gelsy,
      (int64_t m, int64_t n, int64_t nrhs, double *A, int64_t lda, double *B, int64_t ldb,
       int64_t *jpvt, double rcond, int64_t *rank, int64_t *info),
      gelsy_body, m, n, nrhs, A, lda, B, ldb, jpvt, rcond, rank, info)
