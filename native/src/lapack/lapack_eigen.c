/* The symmetric and Hermitian eigensolvers: LAPACK's dsyevd/zheevd, dsyev/zheev and
 * dsyevr/zheevr, written once for double and complex double, by the two-stage reduction
 * of lapack_band.c (docs/design/lapack.md "Two-stage reductions"):
 *
 *   the stored triangle copied as the lower triangle of a workspace (scaled as LAPACK's
 *   drivers scale a matrix whose largest entry is out of range), stage 1 to a band of width
 *   b (products), stage 2 to real tridiagonal on the host (bulge chasing), the tridiagonal
 *   problem as the LAPACK driver solves it (syevd: sterf, or lapack_stedc.c's stedc;
 *   syev: sterf or steqr; syevr: sterf or stemr for every eigenvalue, else stebz and stein),
 *   then the eigenvectors Z = Q1 (Q2 Z_T): stage 2's reflectors in blocks, stage 1's as
 *   ormqr, all products.
 *
 * The tridiagonal routines are the real ones even for complex input (zheevd's zstedc with
 * compz 'I' is dstedc; zheevr's zstemr and zstein compute the same real vectors). An order
 * n at most nb is one call of the host driver itself. Arguments are checked here (netlib's
 * order); workspace is the driver's own. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/oz_internal.h"
#include "oz_lapack.h"

/* ---- arguments, flops -------------------------------------------------------------------- */

int64_t oz_ev_check(int kind, char jobz, char range, char uplo, int64_t n, int64_t lda,
                    double vl, double vu, int64_t il, int64_t iu, int64_t ldz)
{
    jobz = up(jobz), range = up(range), uplo = up(uplo);
    int r = kind == OZ_EV_SYEVR; /* syevr's range shifts the positions by one */
    if (jobz != 'N' && jobz != 'V')
        return -1;
    if (r && range != 'A' && range != 'V' && range != 'I')
        return -2;
    if (uplo != 'U' && uplo != 'L')
        return -2 - r;
    if (n < 0)
        return -3 - r;
    if (lda < max1(n))
        return -5 - r;
    if (!r)
        return 0;
    if (range == 'V' && n > 0 && !(vu > vl)) /* LAPACK: VU <= VL; a NaN passes there too */
        return vu <= vl ? -8 : 0;
    if (range == 'I' && (il < 1 || il > max1(n)))
        return -9;
    if (range == 'I' && (iu < min64(n, il) || iu > n))
        return -10;
    if (ldz < 1 || (jobz == 'V' && ldz < n))
        return -15;
    return 0;
}

double oz_ev_flops(int kind, int cplx, char jobz, int64_t n, int64_t m)
{
    double dn = (double)n, f = 4.0 / 3.0 * dn * dn * dn; /* the reduction (sytrd) */
    (void)kind;
    if (up(jobz) == 'V')
        f += 2.0 * dn * dn * (double)m; /* the back-transformation (ormtr) */
    return (cplx ? 4.0 : 1.0) * f;
}

/* ---- the host routines -------------------------------------------------------------------- */

/* the tridiagonal routines (real), and the drivers themselves for an order within a block
   (by kind: OZ_EV_SYEVD, OZ_EV_SYEV, OZ_EV_SYEVR) */
static const int t_ids[] = {LXH_sterf, LXH_steqr, LXH_stemr, LXH_stebz, LXH_stein};
static const int drv_ids[2][3] = {{LXH_dsyevd, LXH_dsyev, LXH_dsyevr},
                                  {LXH_zheevd, LXH_zheev, LXH_zheevr}};

static int ev_ready(int cplx)
{
    return lx_host_all(0, t_ids, 5) && lx_host_all(cplx, drv_ids[cplx], 3) && lx_hh_ready(cplx) &&
           lx_band_ready(cplx);
}

/* The tridiagonal problem (d, e: n, host memory; both kept) as the LAPACK driver solves it
 * (syevd's stedc: lapack_stedc.c's, whose merges are products of the run x): *m eigenvalues
 * into w in ascending order, their eigenvectors (jobz 'V') into ZT (n x *m, leading
 * dimension n, real), syevr's isuppz (stemr's: the support of ZT's columns). vll, vuu,
 * abstll: syevr's bounds and tolerance for the scaled matrix. OZBLAS_ERR_ALLOCATION when its
 * workspace is not there. */
static ozblas_status tridiagonal(oz_lx *x, const lx_ev *a, int64_t n, const double *d,
                                 const double *e, double vll, double vuu, double abstll,
                                 int64_t *m, double *w, double *ZT, int64_t *isuppz,
                                 int64_t *info)
{
    int wantz = a->jobz == 'V';
    const char jz = a->jobz, all = 'A';
    /* work: 18n (stemr), 5n (stein), 4n (stebz) */
    int64_t lwork = 18 * n + 6;
    double *ee = oz_malloc(sizeof(double) * (size_t)(2 * n + lwork + 2));
    if (!ee)
        return OZBLAS_ERR_ALLOCATION;
    double *dd = ee + n, *work = dd + n;
    memcpy(ee, e, sizeof(double) * (size_t)(n - 1));
    *m = n;
    if (wantz && a->kind == OZ_EV_SYEVD) {
        memcpy(w, d, sizeof(double) * (size_t)n);
        ozblas_status st = lx_stedc(x, n, w, ee, ZT, n, info);
        free(ee);
        return st;
    }
    LX_F77(
        I n4 = (I)n, inf4 = 0, lw = (I)lwork, liw = (I)(10 * n + 3);
        I *iw = oz_malloc(sizeof(I) * (size_t)(10 * n + 3 + 2 * n));
        if (!iw) {
            free(ee);
            return OZBLAS_ERR_ALLOCATION;
        }
        I *sup = iw + 10 * n + 3;
        int done = 0;
        if (!wantz && (a->kind != OZ_EV_SYEVR || a->range == 'A' ||
                       (a->range == 'I' && a->il == 1 && a->iu == n))) {
            memcpy(w, d, sizeof(double) * (size_t)n);
            LX_HOST(0, sterf)(&n4, w, ee, &inf4);
            done = 1;
        } else if (a->kind == OZ_EV_SYEV) {
            const char comp = 'I';
            memcpy(w, d, sizeof(double) * (size_t)n);
            LX_HOST(0, steqr)(&comp, &n4, w, ee, ZT, &n4, work, &inf4, 1);
            done = 1;
        } else if (a->range == 'A' || (a->range == 'I' && a->il == 1 && a->iu == n)) {
            /* dsyevr: stemr for every eigenvalue; on failure stebz and stein */
            I m4 = 0, il4 = (I)a->il, iu4 = (I)a->iu;
            I tryrac = a->abstol <= 2.0 * (double)n * DBL_EPSILON;
            memcpy(dd, d, sizeof(double) * (size_t)n);
            LX_HOST(0, stemr)(&jz, &all, &n4, dd, ee, &a->vl, &a->vu, &il4, &iu4, &m4, w, ZT, &n4,
                              &n4, sup, &tryrac, work, &lw, iw, &liw, &inf4, 1, 1);
            if (inf4 == 0) {
                for (int64_t i = 0; i < 2 * n; i++)
                    isuppz[i] = sup[i];
                done = 1;
            }
            inf4 = 0;
        }
        if (!done) { /* syevr's stebz (and stein) */
            const char order = wantz ? 'B' : 'E';
            I m4 = 0, nsplit = 0, il4 = (I)a->il, iu4 = (I)a->iu;
            I *iblock = iw, *isplit = iw + n, *iwo = iw + 2 * n, *ifail = iw + 5 * n;
            LX_HOST(0, stebz)(&a->range, &order, &n4, &vll, &vuu, &il4, &iu4, &abstll, d, e, &m4,
                              &nsplit, w, iblock, isplit, work, iwo, &inf4, 1, 1);
            if (wantz && m4 > 0)
                LX_HOST(0, stein)(&n4, d, e, &m4, w, iblock, isplit, ZT, &n4, work, iwo, ifail,
                                  &inf4);
            *m = m4;
        }
        *info = inf4;
        free(iw);
    );
    free(ee);
    return OZBLAS_OK;
}

/* syevr after stebz and stein: eigenvalues (and ZT's columns) in ascending order, as
 * dsyevr's selection sort leaves them. */
static void sort_pairs(int64_t n, int64_t m, double *w, double *ZT)
{
    for (int64_t j = 0; j + 1 < m; j++) {
        int64_t i = -1;
        double t = w[j];
        for (int64_t jj = j + 1; jj < m; jj++)
            if (w[jj] < t) {
                i = jj;
                t = w[jj];
            }
        if (i < 0)
            continue;
        w[i] = w[j];
        w[j] = t;
        for (int64_t r = 0; r < n; r++) {
            double s = ZT[r + i * n];
            ZT[r + i * n] = ZT[r + j * n];
            ZT[r + j * n] = s;
        }
    }
}

/* ---- the two-stage driver ------------------------------------------------------------------ */

/* W's lower triangle (order n) := sigma times the Hermitian matrix whose triangle uplo A
 * holds (upper: conjugated transposes), in strips of nb columns through the seam (W's
 * entries above the diagonal of each strip's diagonal block set to zero). Returns the largest
 * |a_ij| read (LAPACK's lansy/lanhe 'M': a Hermitian diagonal's real part). */
static double tri_copy(oz_lx *x, int herm, char uplo, int64_t n, const double *A, int64_t lda,
                       double *W, int64_t ldw, double sigma)
{
    int w = x->cplx ? 2 : 1;
    double amax = 0.0;
    for (int64_t c = 0; c < n && !x->failed; c += x->nb) {
        int64_t cb = min64(x->nb, n - c), rows = n - c, la, lw;
        const double *S = uplo == 'L'
                              ? lx_fetch(x, 0, LX_AT(x, A, c, c, lda), lda, rows, cb, &la, 1)
                              : lx_fetch(x, 0, LX_AT(x, A, c, c, lda), lda, cb, rows, &la, 1);
        double *D = lx_fetch(x, 1, LX_AT(x, W, c, c, ldw), ldw, rows, cb, &lw, 0);
        if (x->failed)
            return amax;
        for (int64_t j = 0; j < cb; j++)
            for (int64_t i = 0; i < rows; i++) {
                double *t = LX_AT(x, D, i, j, lw);
                if (i < j) {
                    t[0] = 0.0;
                    if (w == 2)
                        t[1] = 0.0;
                    continue;
                }
                const double *s = uplo == 'L' ? LX_AT(x, S, i, j, la) : LX_AT(x, S, j, i, la);
                double re = s[0], im = w == 2 ? (uplo == 'L' ? s[1] : -s[1]) : 0.0;
                if (herm && i == j)
                    im = 0.0;
                double a = w == 2 ? hypot(re, im) : fabs(re);
                if (a > amax || isnan(a))
                    amax = isnan(amax) ? amax : a;
                t[0] = sigma * re;
                if (w == 2)
                    t[1] = sigma * im;
            }
        lx_store(x, D, lw, LX_AT(x, W, c, c, ldw), ldw, rows, cb);
    }
    return amax;
}

void lx_put_real(oz_lx *x, int64_t n, int64_t m, const double *ZT, double *Z, int64_t ldz)
{
    for (int64_t c = 0; c < m && !x->failed; c += x->nb) {
        int64_t cb = min64(x->nb, m - c), ld;
        double *H = lx_fetch(x, 1, LX_AT(x, Z, 0, c, ldz), ldz, n, cb, &ld, 0);
        if (x->failed)
            return;
        for (int64_t j = 0; j < cb; j++)
            for (int64_t i = 0; i < n; i++) {
                double *z = LX_AT(x, H, i, j, ld);
                z[0] = ZT[i + (c + j) * n];
                if (x->cplx)
                    z[1] = 0.0;
            }
        lx_store(x, H, ld, LX_AT(x, Z, 0, c, ldz), ldz, n, cb);
    }
}

static ozblas_status two_stage(oz_lx *x, const lx_ev *a, int64_t n, double *A, int64_t lda,
                               int64_t *m, double *w, double *Z, int64_t ldz, int64_t *isuppz,
                               int64_t *info)
{
    int wantz = a->jobz == 'V';
    int64_t wd = x->cplx ? 2 : 1, ldw = n;
    int64_t b = lx_band_width(x, OZBLAS_LAPACK_BAND_EIGEN, n, n, wantz ? n : 0);
    ozblas_status st = OZBLAS_ERR_ALLOCATION;
    lx_band B = {0};
    lx_hous h = {0};
    lx_hh q = {0};
    double *hW = x->dev ? NULL : oz_malloc(sizeof(double) * (size_t)(wd * n * n));
    double *Wm = x->dev || hW ? lx_scratch(x, hW, n * n) : NULL;
    double *tau1 = oz_malloc(sizeof(double) * (size_t)(wd * n));
    double *d = oz_malloc(sizeof(double) * (size_t)(2 * n)), *e = d ? d + n : NULL;
    double *ZT = wantz ? oz_malloc(sizeof(double) * (size_t)(n * n)) : NULL;
    /* Vh and taus: lx_hous_apply's; hw: stage 2's work */
    double *Vh = oz_malloc(sizeof(double) * (size_t)(wd * ((b + LX_HOUS_VB) * LX_HOUS_VB +
                                                        LX_HOUS_VB + b + 1)));
    double *taus = Vh ? Vh + wd * (b + LX_HOUS_VB) * LX_HOUS_VB : NULL;
    double *hw = taus ? taus + wd * LX_HOUS_VB : NULL;
    if (!Wm || !tau1 || !d || (wantz && !ZT) || !Vh || lx_band_alloc(x, &B, n, b) ||
        lx_hous_alloc(x, &h, n, b, 1, n - 1))
        goto out;
    if ((st = lx_hh_alloc(x, &q, n, n, 0)) != OZBLAS_OK)
        goto out;
    /* LAPACK's drivers' scaling of a matrix whose largest entry is out of range */
    double smlnum = DBL_MIN / DBL_EPSILON, rmin = sqrt(smlnum), rmax = sqrt(1.0 / smlnum);
    if (a->kind == OZ_EV_SYEVR && 1.0 / sqrt(sqrt(DBL_MIN)) < rmax)
        rmax = 1.0 / sqrt(sqrt(DBL_MIN));
    lx_clock copies = lx_tic(x);
    double anrm = tri_copy(x, x->cplx, a->uplo, n, A, lda, Wm, ldw, 1.0), sigma = 1.0;
    double vll = a->vl, vuu = a->vu, abstll = a->abstol;
    if (anrm > 0.0 && anrm < rmin)
        sigma = rmin / anrm;
    else if (anrm > rmax)
        sigma = rmax / anrm;
    if (sigma != 1.0) {
        tri_copy(x, x->cplx, 'L', n, Wm, ldw, Wm, ldw, sigma);
        if (a->abstol > 0.0)
            abstll = a->abstol * sigma;
        vll = a->vl * sigma;
        vuu = a->vu * sigma;
    }
    lx_toc(x, copies, &x->rep->copy_seconds);
    if ((st = lx_he2hb(x, &q, n, b, Wm, ldw, tau1)) != OZBLAS_OK)
        goto out;
    copies = lx_tic(x);
    lx_band_get(x, &B, Wm, ldw);
    lx_toc(x, copies, &x->rep->copy_seconds);
    if (x->failed)
        goto out;
    lx_hb2st(x, &B, d, e, &h, hw);
    lx_clock solver = lx_tic(x);
    if ((st = tridiagonal(x, a, n, d, e, vll, vuu, abstll, m, w, ZT, isuppz, info)) !=
        OZBLAS_OK)
        goto out;
    lx_toc(x, solver, &x->rep->solver_seconds);
    if (sigma != 1.0) {
        int64_t imax = a->kind == OZ_EV_SYEVD ? n : *info == 0 ? *m : *info - 1;
        for (int64_t i = 0; i < imax; i++)
            w[i] /= sigma;
    }
    if (wantz && *info == 0 && *m > 0) {
        copies = lx_tic(x);
        if (a->kind == OZ_EV_SYEVR)
            sort_pairs(n, *m, w, ZT);
        lx_put_real(x, n, *m, ZT, Z, ldz);
        lx_toc(x, copies, &x->rep->copy_seconds);
        lx_hous_apply(x, &q, &h, 'L', 'N', *m, Z, ldz, Vh, taus);
        lx_clock back = lx_tic(x);
        lx_ormqr(x, &q, 0, 'L', 'N', n - b, *m, n - b, LX_AT(x, Wm, b, 0, ldw), ldw, tau1,
                 LX_AT(x, Z, b, 0, ldz), ldz);
        lx_toc(x, back, &x->rep->back_seconds);
    }
    st = OZBLAS_OK;
out:
    lx_hh_free(x, &q);
    lx_hous_free(&h);
    lx_band_free(&B);
    if (Wm)
        lx_scratch_free(x, Wm);
    free(hW);
    free(tau1);
    free(d);
    free(ZT);
    free(Vh);
    return st;
}

/* An order within one block: the host driver itself, on host copies through the seam
 * (generous workspace, so that it takes its blocked paths). */
static ozblas_status host_driver(oz_lx *x, const lx_ev *a, int64_t n, double *A, int64_t lda,
                                 int64_t *m, double *w, double *Z, int64_t ldz, int64_t zc,
                                 int64_t *isuppz, int64_t *info)
{
    int wantz = a->jobz == 'V', c = x->cplx;
    int64_t la, lz = ldz, wd = c ? 2 : 1;
    double *HA = lx_fetch(x, 0, A, lda, n, n, &la, 1);
    double *HZ = zc > 0 ? lx_fetch(x, 1, Z, ldz, n, zc, &lz, 0) : Z;
    if (x->failed)
        return OZBLAS_OK;
    int64_t lwork = 2 * n * n + 66 * n + 1, lrwork = 2 * n * n + 24 * n + 1, liwork = 10 * n + 3;
    double *work = oz_malloc(sizeof(double) * (size_t)(wd * lwork + lrwork));
    if (!work)
        return OZBLAS_ERR_ALLOCATION;
    double *rwork = work + wd * lwork;
    const char *jz = &a->jobz, *rg = &a->range, *ul = &a->uplo;
    ozblas_status st = OZBLAS_OK;
    *m = n;
    LX_F77(
        I n4 = (I)n, l4 = (I)la, lz4 = (I)lz, lw = (I)lwork, lrw = (I)lrwork, liw = (I)liwork;
        I inf4 = 0, m4 = 0, il4 = (I)a->il, iu4 = (I)a->iu;
        I *iw = oz_malloc(sizeof(I) * (size_t)(liwork + 2 * n));
        if (!iw)
            st = OZBLAS_ERR_ALLOCATION;
        I *sup = iw ? iw + liwork : NULL;
        if (iw && a->kind == OZ_EV_SYEVD && !c)
            LX_HOST(0, dsyevd)(jz, ul, &n4, HA, &l4, w, work, &lw, iw, &liw, &inf4, 1, 1);
        else if (iw && a->kind == OZ_EV_SYEVD)
            LX_HOST(1, zheevd)(jz, ul, &n4, HA, &l4, w, work, &lw, rwork, &lrw, iw, &liw, &inf4, 1,
                               1);
        else if (iw && a->kind == OZ_EV_SYEV && !c)
            LX_HOST(0, dsyev)(jz, ul, &n4, HA, &l4, w, work, &lw, &inf4, 1, 1);
        else if (iw && a->kind == OZ_EV_SYEV)
            LX_HOST(1, zheev)(jz, ul, &n4, HA, &l4, w, work, &lw, rwork, &inf4, 1, 1);
        else if (iw && !c)
            LX_HOST(0, dsyevr)(jz, rg, ul, &n4, HA, &l4, &a->vl, &a->vu, &il4, &iu4, &a->abstol,
                               &m4, w, HZ, &lz4, sup, work, &lw, iw, &liw, &inf4, 1, 1, 1);
        else if (iw)
            LX_HOST(1, zheevr)(jz, rg, ul, &n4, HA, &l4, &a->vl, &a->vu, &il4, &iu4, &a->abstol,
                               &m4, w, HZ, &lz4, sup, work, &lw, rwork, &lrw, iw, &liw, &inf4, 1, 1,
                               1);
        if (iw && a->kind == OZ_EV_SYEVR) {
            *m = m4;
            for (int64_t i = 0; wantz && i < 2 * m4; i++)
                isuppz[i] = sup[i];
        }
        *info = inf4;
        free(iw);
    );
    free(work);
    if (st == OZBLAS_OK) {
        lx_store(x, HA, la, A, lda, n, n);
        if (zc > 0)
            lx_store(x, HZ, lz, Z, ldz, n, zc);
    }
    return st;
}

/* ---- the entries ---------------------------------------------------------------------------- */

static ozblas_status ev_body(ozblas_context *ctx, int cplx, lx_ev a, int64_t n, double *A,
                             int64_t lda, int64_t *m, double *w, double *Z, int64_t ldz,
                             int64_t *isuppz, int64_t *info, int64_t nb,
                             const ozblas_options *opt, ozblas_lapack_report *report)
{
    int r = a.kind == OZ_EV_SYEVR;
    if ((*info = oz_ev_check(a.kind, a.jobz, a.range, a.uplo, n, lda, a.vl, a.vu, a.il, a.iu,
                             r ? ldz : 1)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    a.jobz = up(a.jobz);
    a.range = r ? up(a.range) : 'A';
    a.uplo = up(a.uplo);
    int wantz = a.jobz == 'V';
    /* the eigenvectors' columns: syevr's m is known beforehand for range I only */
    int64_t cols = a.range == 'I' ? a.iu - a.il + 1 : n, zc = r && wantz && n > 0 ? cols : 0;
    int64_t mm = 0;
    oz_lx x;
    ozblas_lapack_report rep;
    lx_operand ops[2] = {LX_OP(A, lda, n, n, !r && wantz), LX_OP(Z, ldz, n, zc, 1)};
    int nops = zc > 0 ? 2 : 1;
    ozblas_status st = lx_begin(&x, ctx, cplx, n, nb, 0, opt, &rep,
                                oz_ev_flops(a.kind, cplx, a.jobz, n, cols), ops, nops,
                                max64(n, 1));
    if (st == OZBLAS_OK && !r)
        Z = A, ldz = lda; /* syevd and syev: the eigenvectors overwrite A */
    if (st == OZBLAS_OK)
        st = lx_heev(&x, &a, n, A, lda, &mm, w, Z, ldz, isuppz, info);
    if (m)
        *m = mm;
    return lx_end(&x, st, ops, nops, report);
}

ozblas_status lx_heev(oz_lx *x, const lx_ev *a, int64_t n, double *A, int64_t lda, int64_t *m,
                      double *w, double *Z, int64_t ldz, int64_t *isuppz, int64_t *info)
{
    *m = 0;
    if (!ev_ready(x->cplx))
        return OZBLAS_ERR_NO_HOST_BLAS;
    if (n == 0)
        return OZBLAS_OK;
    int target = x->o.target, r = a->kind == OZ_EV_SYEVR;
    int64_t zc = r && a->jobz == 'V' ? (a->range == 'I' ? a->iu - a->il + 1 : n) : 0;
    x->o.target = OZBLAS_TARGET_NORMWISE; /* Householder products (ozaki2.h) */
    ozblas_status st = n <= x->nb ? host_driver(x, a, n, A, lda, m, w, Z, ldz, zc, isuppz, info)
                                  : two_stage(x, a, n, A, lda, m, w, Z, ldz, isuppz, info);
    x->o.target = target;
    return st;
}

static ozblas_status evd(ozblas_context *ctx, int cplx, int kind, char jobz, char uplo,
                         int64_t n, double *A, int64_t lda, double *w, int64_t *info,
                         int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report)
{
    lx_ev a = {kind, jobz, 'A', uplo, 0.0, 0.0, 0.0, 1, 1};
    return ev_body(ctx, cplx, a, n, A, lda, NULL, w, NULL, 1, NULL, info, nb, opt, report);
}

static ozblas_status evr(ozblas_context *ctx, int cplx, char jobz, char range, char uplo,
                         int64_t n, double *A, int64_t lda, double vl, double vu, int64_t il,
                         int64_t iu, double abstol, int64_t *m, double *w, double *Z,
                         int64_t ldz, int64_t *isuppz, int64_t *info, int64_t nb,
                         const ozblas_options *opt, ozblas_lapack_report *report)
{
    lx_ev a = {OZ_EV_SYEVR, jobz, range, uplo, vl, vu, abstol, il, iu};
    return ev_body(ctx, cplx, a, n, A, lda, m, w, Z, ldz, isuppz, info, nb, opt, report);
}

#define EVD_PARAMS \
    (char jobz, char uplo, int64_t n, double *A, int64_t lda, double *w, int64_t *info)
LX_DZ(syevd, heevd, EVD_PARAMS, evd, OZ_EV_SYEVD, jobz, uplo, n, A, lda, w, info)
LX_DZ(syev, heev, EVD_PARAMS, evd, OZ_EV_SYEV, jobz, uplo, n, A, lda, w, info)
LX_DZ(syevr, heevr,
      (char jobz, char range, char uplo, int64_t n, double *A, int64_t lda, double vl, double vu,
       int64_t il, int64_t iu, double abstol, int64_t *m, double *w, double *Z, int64_t ldz,
       int64_t *isuppz, int64_t *info),
      evr, jobz, range, uplo, n, A, lda, vl, vu, il, iu, abstol, m, w, Z, ldz, isuppz, info)

/* ---- the generalized problem: sygvd/hegvd, sygv/hegv -----------------------------------------
 * A x = lambda B x (itype 1), A B x = lambda x (2), B A x = lambda x (3), B positive definite:
 * LAPACK's dsygvd/dsygv step for step, each step the layer's own: B's Cholesky factor
 * (lx_potrf), the reduction to standard form (lx_sygst), the standard problem (lx_heev: syevd
 * or syev's tridiagonal solver), the eigenvectors back through the factor (x = inv(U) y or
 * inv(L^H) y by TRSM for itype 1 and 2, x = U^H y or L y by TRMM for 3). */

int64_t oz_gv_check(int64_t itype, char jobz, char uplo, int64_t n, int64_t lda, int64_t ldb)
{
    jobz = up(jobz), uplo = up(uplo);
    return itype < 1 || itype > 3           ? -1
           : jobz != 'N' && jobz != 'V'     ? -2
           : uplo != 'U' && uplo != 'L'     ? -3
           : n < 0                          ? -4
           : lda < max1(n)                  ? -6
           : ldb < max1(n)                  ? -8
                                            : 0;
}

double oz_gv_flops(int cplx, char jobz, int64_t n)
{
    double n3 = (double)n * (double)n * (double)n;
    double f = n3 / 3.0 + n3; /* potrf, sygst */
    if (up(jobz) == 'V')
        f += n3; /* the back-transformation's TRSM or TRMM */
    return (cplx ? 4.0 : 1.0) * f + oz_ev_flops(OZ_EV_SYEVD, cplx, jobz, n, n);
}

static ozblas_status gv_body(ozblas_context *ctx, int cplx, int kind, int64_t itype, char jobz,
                             char uplo, int64_t n, double *A, int64_t lda, double *B,
                             int64_t ldb, double *w, int64_t *info, int64_t nb,
                             const ozblas_options *opt, ozblas_lapack_report *report)
{
    if ((*info = oz_gv_check(itype, jobz, uplo, n, lda, ldb)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    jobz = up(jobz), uplo = up(uplo);
    BEGIN(cplx, n, oz_gv_flops(cplx, jobz, n), max1(n), LX_OP(A, lda, n, n, 1),
          LX_OP(B, ldb, n, n, 1))
    if (n == 0)
        END();
    int64_t pinfo = 0, m = 0;
    lx_potrf(&x, uplo, n, B, ldb, &pinfo);
    if (pinfo > 0) { /* B not positive definite: LAPACK's info n + i, nothing more done */
        *info = n + pinfo;
        END();
    }
    ozblas_status st = x.failed ? OZBLAS_OK : lx_sygst(&x, (int)itype, uplo, n, A, lda, B, ldb);
    if (st != OZBLAS_OK || x.failed)
        END_WITH(st);
    lx_ev a = {kind, jobz, 'A', uplo, 0.0, 0.0, 0.0, 1, 1};
    if ((st = lx_heev(&x, &a, n, A, lda, &m, w, A, lda, NULL, info)) != OZBLAS_OK)
        END_WITH(st);
    /* dsygvd back-transforms only after success, dsygv the info - 1 eigenvectors that
       converged */
    int64_t neig = *info == 0 ? n : kind == OZ_EV_SYEV ? *info - 1 : 0;
    if (jobz == 'V' && neig > 0) {
        char ct = cplx ? 'C' : 'T';
        if (itype < 3)
            lx_trsm(&x, 'L', uplo, uplo == 'U' ? 'N' : ct, 'N', n, neig, ONE, B, ldb, A, lda);
        else
            lx_trmm(&x, 'L', uplo, uplo == 'U' ? ct : 'N', 'N', n, neig, ONE, B, ldb, A, lda);
    }
    END();
}

#define GV_PARAMS                                                                              \
    (int64_t itype, char jobz, char uplo, int64_t n, double *A, int64_t lda, double *B,         \
     int64_t ldb, double *w, int64_t *info)
LX_DZ(sygvd, hegvd, GV_PARAMS, gv_body, OZ_EV_SYEVD, itype, jobz, uplo, n, A, lda, B, ldb, w, info)
LX_DZ(sygv, hegv, GV_PARAMS, gv_body, OZ_EV_SYEV, itype, jobz, uplo, n, A, lda, B, ldb, w, info)

/* ---- LAPACK's one-stage format: sytrd/hetrd, ormtr/unmtr, orgtr/ungtr ----------------------
 * sytrd (called directly) keeps LAPACK's output: A's reflectors in the one-stage form that
 * ormtr and orgtr read. It is LAPACK's blocked dsytrd with nx = nb: each panel of nb columns
 * by the host latrd (its symv on the trailing matrix is Level 2: half of the flops stay on the
 * host), the trailing update A22 -= V W^H + W V^H by the layer's syr2k/her2k (products), the
 * last block by the host sytd2/hetd2. ormtr and orgtr with uplo 'L' are ormqr and orgqr on
 * A(1:, 0:) as LAPACK's dormtr/dorgtr call them (products); uplo 'U' (QL-form reflectors) is
 * one call of the host routine. An order at most nb is one call of the host routine. */

static const int o_ids[] = {LXH_latrd, LXH_sytd2, LXH_sytrd, LXH_ormtr, LXH_orgtr};

static int o_ready(int cplx) { return lx_host_all(cplx, o_ids, 5) && lx_hh_ready(cplx); }

int64_t oz_tr_check(int op, int cplx, char side, char uplo, char trans, int64_t m, int64_t n,
                    int64_t lda, int64_t ldc)
{
    side = up(side), uplo = up(uplo), trans = up(trans);
    if (op == OZ_TR_ORMTR) {
        int64_t nq = side == 'L' ? m : n;
        if (side != 'L' && side != 'R')
            return -1;
        if (uplo != 'U' && uplo != 'L')
            return -2;
        if (trans != 'N' && trans != (cplx ? 'C' : 'T'))
            return -3;
        return m < 0 ? -4 : n < 0 ? -5 : lda < max1(nq) ? -7 : ldc < max1(m) ? -10 : 0;
    }
    if (uplo != 'U' && uplo != 'L')
        return -1;
    return n < 0 ? -2 : lda < max1(n) ? -4 : 0;
}

double oz_tr_flops(int op, int cplx, char side, int64_t m, int64_t n)
{
    double dm = (double)m, dn = (double)n, f;
    if (op == OZ_TR_SYTRD)
        f = 4.0 / 3.0 * dn * dn * dn;
    else if (op == OZ_TR_ORGTR)
        f = 4.0 / 3.0 * dn * dn * dn;
    else
        f = up(side) == 'L' ? 2.0 * dm * dm * dn : 2.0 * dn * dn * dm;
    return (cplx ? 4.0 : 1.0) * f;
}

/* the host latrd on the order-k block at A (uplo, nb columns): e, tau, W (ldw) */
static void host_latrd(const oz_lx *x, char uplo, int64_t k, int64_t nb, double *A, int64_t lda,
                       double *e, double *tau, double *W, int64_t ldw)
{
    lx_host_flops(x, 2.0 * (double)k * (double)k * (double)nb);
    LX_F77(I k4 = (I)k, b4 = (I)nb, l4 = (I)lda, w4 = (I)ldw;
           LX_HOST(x->cplx, latrd)(&uplo, &k4, &b4, A, &l4, e, tau, W, &w4, 1););
}

/* the host sytd2/hetd2 (unblocked) on the order-k block at A */
static void host_td2(const oz_lx *x, char uplo, int64_t k, double *A, int64_t lda, double *d,
                     double *e, double *tau)
{
    lx_host_flops(x, 4.0 / 3.0 * (double)k * (double)k * (double)k);
    LX_F77(I k4 = (I)k, l4 = (I)lda, inf4 = 0;
           LX_HOST(x->cplx, sytd2)(&uplo, &k4, A, &l4, d, e, tau, &inf4, 1););
}

/* The blocked dsytrd/zhetrd (nx = nb). H: a host buffer of n x n elements for device
 * memory (the trailing matrix the host latrd reads), else unused; W: n x nb elements where
 * the products read them, Wh: their host copy. */
static void lx_sytrd(oz_lx *x, char uplo, int64_t n, double *A, int64_t lda, double *d,
                     double *e, double *tau, double *H, double *W, double *Wh)
{
    int64_t nb = x->nb, w = x->cplx ? 2 : 1, ld;
    const double *one = (const double[2]){1.0, 0.0}, *mone = (const double[2]){-1.0, 0.0};
    if (uplo == 'L') {
        int64_t i = 0;
        for (; n - i > nb && !x->failed; i += nb) {
            int64_t k = n - i, m = k - nb;
            double *Aii = LX_AT(x, A, i, i, lda), *B = lx_fetch_to(x, H, k, Aii, lda, k, k, &ld);
            if (x->failed)
                return;
            host_latrd(x, 'L', k, nb, B, ld, e + i, LX_AT(x, tau, i, 0, 1), Wh, k);
            /* the panel's columns (with their unit elements in place) back; W where the
               products read it */
            lx_store(x, B, ld, Aii, lda, k, nb);
            lx_store(x, Wh, k, W, k, k, nb);
            lx_syr2k(x, 1, 'L', 'N', m, nb, mone, LX_AT(x, A, i + nb, i, lda), lda,
                     LX_AT(x, x->dev ? W : Wh, nb, 0, k), k, one, LX_AT(x, A, i + nb, i + nb, lda),
                     lda);
            int64_t lp;
            double *P = lx_fetch(x, 0, Aii, lda, nb + 1, nb, &lp, 1);
            if (x->failed)
                return;
            for (int64_t j = 0; j < nb; j++) {
                double *s = LX_AT(x, P, j + 1, j, lp);
                s[0] = e[i + j];
                if (w == 2)
                    s[1] = 0.0;
                d[i + j] = LX_AT(x, P, j, j, lp)[0];
            }
            lx_store(x, P, lp, Aii, lda, nb + 1, nb);
        }
        double *B = lx_fetch(x, 0, LX_AT(x, A, i, i, lda), lda, n - i, n - i, &ld, 1);
        if (!x->failed) {
            host_td2(x, 'L', n - i, B, ld, d + i, e + i, LX_AT(x, tau, i, 0, 1));
            lx_store(x, B, ld, LX_AT(x, A, i, i, lda), lda, n - i, n - i);
        }
        return;
    }
    int64_t kk = n - ((n - 1) / nb) * nb;
    for (int64_t i = n - nb; i >= kk && !x->failed; i -= nb) {
        int64_t k = i + nb;
        double *B = lx_fetch_to(x, H, k, A, lda, k, k, &ld);
        if (x->failed)
            return;
        host_latrd(x, 'U', k, nb, B, ld, e, tau, Wh, k);
        lx_store(x, LX_AT(x, B, 0, i, ld), ld, LX_AT(x, A, 0, i, lda), lda, k, nb);
        lx_store(x, Wh, k, W, k, k, nb);
        lx_syr2k(x, 1, 'U', 'N', i, nb, mone, LX_AT(x, A, 0, i, lda), lda, x->dev ? W : Wh, k,
                 one, A, lda);
        int64_t lp;
        double *P = lx_fetch(x, 0, LX_AT(x, A, i - 1, i, lda), lda, nb + 1, nb, &lp, 1);
        if (x->failed)
            return;
        for (int64_t j = 0; j < nb; j++) {
            double *s = LX_AT(x, P, j, j, lp); /* A(i + j - 1, i + j) */
            s[0] = e[i + j - 1];
            if (w == 2)
                s[1] = 0.0;
            d[i + j] = LX_AT(x, P, j + 1, j, lp)[0];
        }
        lx_store(x, P, lp, LX_AT(x, A, i - 1, i, lda), lda, nb + 1, nb);
    }
    double *B = lx_fetch(x, 0, A, lda, kk, kk, &ld, 1);
    if (!x->failed) {
        host_td2(x, 'U', kk, B, ld, d, e, tau);
        lx_store(x, B, ld, A, lda, kk, kk);
    }
}

/* One call of the host sytrd, ormtr or orgtr on host copies (device memory: whole-matrix
 * copies in buffers of its own; host memory: in place). */
static ozblas_status host_tr(oz_lx *x, int op, char side, char uplo, char trans, int64_t m,
                             int64_t n, double *A, int64_t lda, double *d, double *e,
                             double *tau, double *C, int64_t ldc, int64_t *info)
{
    int64_t w = x->cplx ? 2 : 1, nq = op == OZ_TR_ORMTR ? (side == 'L' ? m : n) : n;
    int64_t la = lda, lc = ldc, lwork = 64 * (max64(m, n) + 1);
    int64_t copies = x->dev ? nq * nq + m * n : 0;
    double *buf = oz_malloc(sizeof(double) * (size_t)(w * (lwork + copies) + 1));
    if (!buf)
        return OZBLAS_ERR_ALLOCATION;
    double *work = buf, *HA = A, *HC = C;
    if (x->dev) {
        HA = lx_fetch_to(x, buf + w * lwork, max1(nq), A, lda, nq, nq, &la);
        if (op == OZ_TR_ORMTR)
            HC = lx_fetch_to(x, buf + w * (lwork + nq * nq), max1(m), C, ldc, m, n, &lc);
    }
    if (!x->failed)
        LX_F77(I m4 = (I)m, n4 = (I)n, l4 = (I)la, c4 = (I)lc, w4 = (I)lwork, inf4 = 0;
               if (op == OZ_TR_SYTRD)
                   LX_HOST(x->cplx, sytrd)(&uplo, &n4, HA, &l4, d, e, tau, work, &w4, &inf4, 1);
               else if (op == OZ_TR_ORMTR)
                   LX_HOST(x->cplx, ormtr)(&side, &uplo, &trans, &m4, &n4, HA, &l4, tau, HC, &c4,
                                           work, &w4, &inf4, 1, 1, 1);
               else
                   LX_HOST(x->cplx, orgtr)(&uplo, &n4, HA, &l4, tau, work, &w4, &inf4, 1);
               *info = inf4;);
    lx_host_flops(x, oz_tr_flops(op, 0, side, m, n));
    if (op == OZ_TR_ORMTR)
        lx_store(x, HC, lc, C, ldc, m, n);
    else
        lx_store(x, HA, la, A, lda, n, n);
    free(buf);
    return OZBLAS_OK;
}

/* dorgtr's preparation for uplo 'L': column j (>= 1) := column j - 1 shifted down one row
 * (row 0 zero), column 0 := e_0, in strips of nb - 1 columns from the right through the
 * seam (a strip reads the column left of it, not yet moved). */
static void shift_columns(oz_lx *x, int64_t n, double *A, int64_t lda)
{
    int64_t w = x->cplx ? 2 : 1, sb = x->nb > 1 ? x->nb - 1 : 1;
    for (int64_t end = n; end > 1 && !x->failed; end -= sb) {
        int64_t c = end - sb > 1 ? end - sb : 1, cb = end - c, ld;
        double *H = lx_fetch(x, 0, LX_AT(x, A, 0, c - 1, lda), lda, n, cb + 1, &ld, 1);
        if (x->failed)
            return;
        for (int64_t j = cb; j >= 1; j--) { /* H column j is A's column c - 1 + j */
            int64_t g = c - 1 + j;
            memset(LX_AT(x, H, 0, j, ld), 0, sizeof(double) * (size_t)w);
            for (int64_t i = g + 1; i < n; i++)
                memcpy(LX_AT(x, H, i, j, ld), LX_AT(x, H, i, j - 1, ld),
                       sizeof(double) * (size_t)w);
        }
        lx_store(x, LX_AT(x, H, 0, 1, ld), ld, LX_AT(x, A, 0, c, lda), lda, n, cb);
    }
    int64_t ld;
    double *H = lx_fetch(x, 0, A, lda, n, 1, &ld, 0);
    if (x->failed)
        return;
    memset(H, 0, sizeof(double) * (size_t)(w * n));
    H[0] = 1.0;
    lx_store(x, H, ld, A, lda, n, 1);
}

static ozblas_status sytrd_body(ozblas_context *ctx, int cplx, char uplo, int64_t n, double *A,
                                int64_t lda, double *d, double *e, double *tau, int64_t *info,
                                int64_t nb, const ozblas_options *opt,
                                ozblas_lapack_report *report)
{
    if ((*info = oz_tr_check(OZ_TR_SYTRD, cplx, 0, uplo, 0, 0, n, lda, 0)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    uplo = up(uplo);
    BEGIN(cplx, n, oz_tr_flops(OZ_TR_SYTRD, cplx, 0, n, n), max64(n, 1), LX_OP(A, lda, n, n, 1))
    x.o.target = OZBLAS_TARGET_NORMWISE; /* Householder products (ozaki2.h) */
    if (!o_ready(cplx))
        END_WITH(OZBLAS_ERR_NO_HOST_BLAS);
    if (n == 0)
        END();
    if (n <= x.nb)
        END_WITH(host_tr(&x, OZ_TR_SYTRD, 0, uplo, 0, n, n, A, lda, d, e, tau, NULL, 1, info));
    int64_t w = cplx ? 2 : 1;
    double *Wh = oz_malloc(sizeof(double) * (size_t)(w * (n * x.nb + (x.dev ? n * n : 0)) + 1));
    double *W = Wh ? lx_scratch(&x, Wh, n * x.nb) : NULL;
    if (!W) {
        free(Wh);
        END_WITH(Wh ? OZBLAS_ERR_DEVICE : OZBLAS_ERR_ALLOCATION);
    }
    lx_sytrd(&x, uplo, n, A, lda, d, e, tau, Wh + w * n * x.nb, W, Wh);
    lx_scratch_free(&x, W);
    free(Wh);
    END();
}

static ozblas_status ormtr_body(ozblas_context *ctx, int cplx, char side, char uplo, char trans,
                                int64_t m, int64_t n, double *A, int64_t lda,
                                const double *tau, double *C, int64_t ldc, int64_t *info,
                                int64_t nb, const ozblas_options *opt,
                                ozblas_lapack_report *report)
{
    if ((*info = oz_tr_check(OZ_TR_ORMTR, cplx, side, uplo, trans, m, n, lda, ldc)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    side = up(side), uplo = up(uplo), trans = up(trans);
    int64_t nq = side == 'L' ? m : n;
    BEGIN(cplx, nq, oz_tr_flops(OZ_TR_ORMTR, cplx, side, m, n), max64(max64(m, n), 1),
          LX_OP(A, lda, nq, nq, 0), LX_OP(C, ldc, m, n, 1))
    x.o.target = OZBLAS_TARGET_NORMWISE;
    if (!o_ready(cplx))
        END_WITH(OZBLAS_ERR_NO_HOST_BLAS);
    if (m == 0 || n == 0 || nq <= 1)
        END();
    if (uplo == 'U' || nq <= x.nb)
        END_WITH(host_tr(&x, OZ_TR_ORMTR, side, uplo, trans, m, n, A, lda, NULL, NULL,
                         (double *)tau, C, ldc, info));
    lx_hh q;
    memset(&q, 0, sizeof q);
    ozblas_status st = lx_hh_alloc(&x, &q, max64(m, n), max64(m, n), 0);
    if (st == OZBLAS_OK)
        lx_ormqr(&x, &q, 0, side, trans, side == 'L' ? m - 1 : m, side == 'L' ? n : n - 1, nq - 1,
                 LX_AT(&x, A, 1, 0, lda), lda, tau,
                 side == 'L' ? LX_AT(&x, C, 1, 0, ldc) : LX_AT(&x, C, 0, 1, ldc), ldc);
    lx_hh_free(&x, &q);
    END_WITH(st);
}

static ozblas_status orgtr_body(ozblas_context *ctx, int cplx, char uplo, int64_t n, double *A,
                                int64_t lda, const double *tau, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    if ((*info = oz_tr_check(OZ_TR_ORGTR, cplx, 0, uplo, 0, 0, n, lda, 0)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    uplo = up(uplo);
    BEGIN(cplx, n, oz_tr_flops(OZ_TR_ORGTR, cplx, 0, n, n), max64(n, 1), LX_OP(A, lda, n, n, 1))
    x.o.target = OZBLAS_TARGET_NORMWISE;
    if (!o_ready(cplx))
        END_WITH(OZBLAS_ERR_NO_HOST_BLAS);
    if (n == 0)
        END();
    if (uplo == 'U' || n <= x.nb)
        END_WITH(host_tr(&x, OZ_TR_ORGTR, 0, uplo, 0, n, n, A, lda, NULL, NULL, (double *)tau,
                         NULL, 1, info));
    lx_hh q;
    memset(&q, 0, sizeof q);
    ozblas_status st = lx_hh_alloc(&x, &q, n, n, 0);
    if (st == OZBLAS_OK) {
        shift_columns(&x, n, A, lda);
        lx_orgqr(&x, &q, 0, n - 1, n - 1, n - 1, LX_AT(&x, A, 1, 1, lda), lda, tau, info);
    }
    lx_hh_free(&x, &q);
    END_WITH(st);
}

LX_DZ(sytrd, hetrd,
      (char uplo, int64_t n, double *A, int64_t lda, double *d, double *e, double *tau,
       int64_t *info),
      sytrd_body, uplo, n, A, lda, d, e, tau, info)
LX_DZ(ormtr, unmtr,
      (char side, char uplo, char trans, int64_t m, int64_t n, const double *A, int64_t lda,
       const double *tau, double *C, int64_t ldc, int64_t *info),
      ormtr_body, side, uplo, trans, m, n, (double *)A, lda, tau, C, ldc, info)
LX_DZ(orgtr, ungtr,
      (char uplo, int64_t n, double *A, int64_t lda, const double *tau, int64_t *info),
      orgtr_body, uplo, n, A, lda, tau, info)
