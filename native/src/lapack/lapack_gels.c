/* Least squares by QR or LQ (LAPACK's dgels, zgels), written once for double and complex
 * double on the Householder machinery of lapack_qr.c: the steps, their order and the
 * scaling are dgels's. A and B are scaled into range first when their largest element is
 * not (the host lange and lascl, through the seam in strips of nb columns: lascl's factors
 * depend on the two scalars only, so a strip's elements get the bits the whole matrix's
 * would), then QR of A (m >= n) or LQ (m < n) by the blocked drivers, Q applied by
 * ormqr/ormlq's driver, the triangular solve by the blocked trsm after trtrs's check for an
 * exactly zero diagonal element (info > 0: nothing more is done, as in LAPACK, which leaves
 * A and B scaled then), and the solution scaled back. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/oz_internal.h"
#include "oz_lapack.h"

static const double ONE[2] = {1.0, 0.0};

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t max1(int64_t n) { return n > 1 ? n : 1; }
static char up(char c) { return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c; }
static char ct(const oz_lx *x) { return x->cplx ? 'C' : 'T'; }

/* ---- the host routines ------------------------------------------------------------------- */

enum { G_LANGE, G_LASCL, G_N };
static const char *const g_names[G_N] = {"lange", "lascl"};
static void *g_fn[2][G_N]; /* found once */

static void *gl_real(int cplx, int r) { return lx_real_fn_cached(&g_fn[cplx][r], cplx, g_names[r]); }

typedef int32_t i32;
typedef int64_t i64;

/* lange('M', m, n, A, lda, work): the largest |a_ij| (NaN when one is) */
static double real_lange(const oz_lx *x, int64_t m, int64_t n, const double *A, int64_t lda)
{
    void *f = gl_real(x->cplx, G_LANGE);
    const char norm = 'M';
    double work[1];
    if (lx_real_ilp64())
        return ((double (*)(const char *, const i64 *, const i64 *, const double *, const i64 *,
                            double *, size_t))f)(&norm, &m, &n, A, &lda, work, 1);
    i32 m4 = (i32)m, n4 = (i32)n, l4 = (i32)lda;
    return ((double (*)(const char *, const i32 *, const i32 *, const double *, const i32 *,
                        double *, size_t))f)(&norm, &m4, &n4, A, &l4, work, 1);
}

/* lascl('G', 0, 0, cfrom, cto, m, n, A, lda, info): A := A cto / cfrom without over- or
 * underflow */
static void real_lascl(const oz_lx *x, double cfrom, double cto, int64_t m, int64_t n,
                       double *A, int64_t lda)
{
    void *f = gl_real(x->cplx, G_LASCL);
    const char type = 'G';
    if (lx_real_ilp64()) {
        i64 zero = 0, info = 0;
        ((void (*)(const char *, const i64 *, const i64 *, const double *, const double *,
                   const i64 *, const i64 *, double *, const i64 *, i64 *, size_t))f)(
            &type, &zero, &zero, &cfrom, &cto, &m, &n, A, &lda, &info, 1);
        return;
    }
    i32 zero = 0, info = 0, m4 = (i32)m, n4 = (i32)n, l4 = (i32)lda;
    ((void (*)(const char *, const i32 *, const i32 *, const double *, const double *,
               const i32 *, const i32 *, double *, const i32 *, i32 *, size_t))f)(
        &type, &zero, &zero, &cfrom, &cto, &m4, &n4, A, &l4, &info, 1);
}

/* ---- the driver -------------------------------------------------------------------------- */

/* The largest |a_ij| of the m x n A, strip by strip (NaN when one is, as lange) */
static double max_abs(oz_lx *x, int64_t m, int64_t n, const double *A, int64_t lda)
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
        real_lascl(x, cfrom, cto, m, cb, H, ld);
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
    double anrm = max_abs(x, m, n, A, lda);
    int iascl = scale_into_range(x, anrm, m, n, A, lda);
    if (anrm == 0.0) { /* A is zero: so is the solution */
        lx_zero(x, mx, nrhs, B, ldb);
        return;
    }
    int64_t brow = tp ? n : m;
    double bnrm = max_abs(x, brow, nrhs, B, ldb);
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
    if (!gl_real(cplx, G_LANGE) || !gl_real(cplx, G_LASCL))
        END_WITH(OZBLAS_ERR_NO_HOST_BLAS);
    HH_WORK(max1(mx), max1(max64(mx, nrhs)), 0)
    double *tau = malloc(sizeof(double) * (size_t)((cplx ? 2 : 1) * max1(mn)));
    if (!tau) {
        HH_END_WITH(OZBLAS_ERR_ALLOCATION);
    }
    lx_gels(&x, &q, tau, up(trans), m, n, nrhs, A, lda, B, ldb, info);
    free(tau);
    HH_END_WITH(OZBLAS_OK);
}

ozblas_status ozblas_dgels(ozblas_context *ctx, char trans, int64_t m, int64_t n, int64_t nrhs,
                           double *A, int64_t lda, double *B, int64_t ldb, int64_t *info,
                           int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report)
{
    return gels_body(ctx, 0, trans, m, n, nrhs, A, lda, B, ldb, info, nb, opt, report);
}
ozblas_status ozblas_zgels(ozblas_context *ctx, char trans, int64_t m, int64_t n, int64_t nrhs,
                           double *A, int64_t lda, double *B, int64_t ldb, int64_t *info,
                           int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report)
{
    return gels_body(ctx, 1, trans, m, n, nrhs, A, lda, B, ldb, info, nb, opt, report);
}
