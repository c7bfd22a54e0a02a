/* The nonsymmetric eigenproblem's drivers (LAPACK's dgeev and dgees; z: zgeev, zgees), for
 * double and complex double, host memory:
 *
 *   A scaled into range as dgeev does, balanced by the host gebal ('B' for geev, 'P' for gees),
 *   reduced to Hessenberg form by the layer's gehrd (lapack_hess.c: products) and Q formed by
 *   its orghr (products);
 *   the QR iteration on the Hessenberg matrix, Q accumulated into the Schur vectors Z (job
 *   'S', compz 'V'): lapack_hseqr.c's multishift QR, d and z (its updates of H and Z
 *   products);
 *   geev: the eigenvectors of T by the host trevc3 (howmny 'A': T's own, no back-
 *   transformation), then X = Z X_T as one product, the host gebak, the normalization dgeev
 *   does (unit 2-norm, the largest component real);
 *   gees: sort 'S' reorders T and Z by the host trsen (its updates of Z are host work), then
 *   gebak.
 * Every product runs on the normwise target of the layer's Householder products. An order
 * within one block is one call of the host geev or gees. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/oz_internal.h"
#include "oz_lapack.h"

/* ---- the host routines ------------------------------------------------------------------ */

static const int ev_ids[2][7] = {
    {LXH_gebal, LXH_gebak, LXH_dhseqr, LXH_dtrevc3, LXH_dgeev, LXH_dgees, LXH_dtrsen},
    {LXH_gebal, LXH_gebak, LXH_zhseqr, LXH_ztrevc3, LXH_zgeev, LXH_zgees, LXH_ztrsen}};

static int ev_ready(int cplx) { return lx_host_all(cplx, ev_ids[cplx], 7); }

static void gebal(const oz_lx *x, char job, int64_t n, double *A, int64_t lda, int64_t *ilo,
                  int64_t *ihi, double *scale)
{
    LX_F77(I n4 = (I)n, l4 = (I)lda, lo = 0, hi = 0, inf4 = 0;
        LX_HOST(x->cplx, gebal)(&job, &n4, A, &l4, &lo, &hi, scale, &inf4, 1);
        *ilo = lo, *ihi = hi;);
}

static void gebak(const oz_lx *x, char job, char side, int64_t n, int64_t ilo, int64_t ihi,
                  const double *scale, double *V, int64_t ldv)
{
    LX_F77(I n4 = (I)n, lo = (I)ilo, hi = (I)ihi, l4 = (I)ldv, inf4 = 0;
        LX_HOST(x->cplx, gebak)(&job, &side, &n4, &lo, &hi, scale, &n4, V, &l4, &inf4, 1, 1););
}

/* The host hseqr (job 'E' or 'S'; compz 'N' or 'V'), its workspace as its query asks. w: wr
 * (z: the complex eigenvalues), wi unused for z. Counted as Golub and Van Loan's flops of the
 * QR iteration (25 n^3 with Z, 10 n^3 without, less the reduction's 10/3 n^3 and orghr's
 * 4/3 n^3): a model. */
static void hseqr(oz_lx *x, char job, char compz, int64_t n, int64_t ilo, int64_t ihi, double *H,
                  int64_t ldh, double *w, double *wi, double *Z, int64_t ldz, int64_t *info)
{
    if (lx_hseqr_takes(x->cplx, n, ilo, ihi, H, ldh)) { /* the emulated one (lapack_hseqr.c) */
        lx_hseqr(x, job, compz, n, ilo, ihi, H, ldh, w, wi, Z, ldz, info);
        return;
    }
    double qw[2] = {0.0, 0.0}, *work = qw, dn = (double)n;
    int64_t lwork = -1;
    for (int pass = 0; pass < 2; pass++) {
        LX_F77(I n4 = (I)n, lo = (I)ilo, hi = (I)ihi, lh = (I)ldh, lz = (I)ldz, lw = (I)lwork;
            I inf4 = 0;
            if (x->cplx)
                LX_HOST(1, zhseqr)(&job, &compz, &n4, &lo, &hi, H, &lh, w, Z, &lz, work, &lw, &inf4,
                                   1, 1);
            else
                LX_HOST(0, dhseqr)(&job, &compz, &n4, &lo, &hi, H, &lh, w, wi, Z, &lz, work, &lw,
                                   &inf4, 1, 1);
            *info = inf4;);
        if (pass == 0) {
            lwork = (int64_t)qw[0] > n ? (int64_t)qw[0] : max1(n);
            work = oz_malloc(sizeof(double) * (size_t)((x->cplx ? 2 : 1) * lwork));
            if (!work) {
                x->failed = 1;
                return;
            }
        }
    }
    free(work);
    lx_host_flops(x, (compz == 'V' ? 25.0 - 10.0 / 3.0 - 4.0 / 3.0 : 10.0 - 10.0 / 3.0) * dn * dn * dn);
}

/* The host trevc3 on the upper (quasi-)triangular T: howmny 'A', side 'R' (XT), 'L' (YT) or
 * 'B', the eigenvectors of T itself (n x n each, leading dimension n). Counted as the
 * back-substitution's n^3 / 3 per side. */
static void trevc3(oz_lx *x, char side, int64_t n, double *T, int64_t ldt, double *YT,
                   double *XT)
{
    int64_t wd = x->cplx ? 2 : 1, lwork = 3 * n + 2 * n * 64, lrw = n + 2 * n * 64;
    double *work = oz_malloc(sizeof(double) * (size_t)(wd * lwork + lrw + 1)), dn = (double)n;
    double nov[2];
    if (!work) {
        x->failed = 1;
        return;
    }
    LX_F77(I n4 = (I)n, lt = (I)ldt, ll = side == 'R' ? 1 : (I)n, lr = side == 'L' ? 1 : (I)n;
        I m4 = 0, inf4 = 0, sel = 0, lw = (I)lwork, lr4 = (I)lrw;
        double *VL = side == 'R' ? nov : YT, *VR = side == 'L' ? nov : XT;
        char howmny = 'A';
        if (x->cplx)
            LX_HOST(1, ztrevc3)(&side, &howmny, &sel, &n4, T, &lt, VL, &ll, VR, &lr, &n4, &m4, work,
                                &lw, work + wd * lwork, &lr4, &inf4, 1, 1);
        else
            LX_HOST(0, dtrevc3)(&side, &howmny, &sel, &n4, T, &lt, VL, &ll, VR, &lr, &n4, &m4, work,
                                &lw, &inf4, 1, 1););
    free(work);
    lx_host_flops(x, (side == 'B' ? 2.0 : 1.0) * dn * dn * dn / 3.0);
}

/* ---- geev's normalization --------------------------------------------------------------- */

/* The 2-norm of m doubles. Squares summed as they are while the largest is well inside the
 * range (no overflow nor underflow that matters: 2^-400 .. 2^400 for m below 2^100), else
 * scaled by the largest as dnrm2 guards; four running sums and no division there, so that
 * the normalization does not wait on a division per element. */
static double nrm2(int64_t m, const double *v)
{
    double amax = 0.0, s[4] = {0.0, 0.0, 0.0, 0.0};
    for (int64_t i = 0; i < m; i++)
        amax = fabs(v[i]) > amax ? fabs(v[i]) : amax;
    if (amax == 0.0 || isinf(amax) || isnan(amax))
        return amax;
    if (amax < 0x1p-400 || amax > 0x1p400) {
        for (int64_t i = 0; i < m; i++)
            s[0] += (v[i] / amax) * (v[i] / amax);
        return amax * sqrt(s[0]);
    }
    int64_t i = 0;
    for (; i + 4 <= m; i += 4)
        for (int k = 0; k < 4; k++)
            s[k] += v[i + k] * v[i + k];
    for (; i < m; i++)
        s[0] += v[i] * v[i];
    return sqrt((s[0] + s[1]) + (s[2] + s[3]));
}

static void scal(int64_t m, double a, double *v)
{
    for (int64_t i = 0; i < m; i++)
        v[i] *= a;
}

/* dlartg's rotation (c, s) with c f + s g = r, c g - s f = 0 */
static void lartg(double f, double g, double *c, double *s)
{
    if (g == 0.0) {
        *c = 1.0, *s = 0.0;
    } else if (f == 0.0) {
        *c = 0.0, *s = g > 0.0 ? 1.0 : -1.0;
    } else {
        double d = hypot(f, g);
        *c = fabs(f) / d, *s = g / copysign(d, f);
    }
}

/* dgeev's: each real vector to unit 2-norm; each complex pair (columns i, i+1: real and
 * imaginary parts) to unit 2-norm and rotated so that its largest component is real */
static void normalize_real(int64_t n, double *V, int64_t ldv, const double *wi)
{
    for (int64_t i = 0; i < n; i++) {
        double *v = V + i * ldv, *u = v + ldv, c, s;
        if (wi[i] == 0.0) {
            scal(n, 1.0 / nrm2(n, v), v);
        } else if (wi[i] > 0.0) {
            double scl = 1.0 / hypot(nrm2(n, v), nrm2(n, u)), best = -1.0;
            int64_t k = 0;
            scal(n, scl, v);
            scal(n, scl, u);
            for (int64_t j = 0; j < n; j++)
                if (v[j] * v[j] + u[j] * u[j] > best)
                    best = v[j] * v[j] + u[j] * u[j], k = j;
            lartg(v[k], u[k], &c, &s);
            for (int64_t j = 0; j < n; j++) {
                double a = v[j], b = u[j];
                v[j] = c * a + s * b, u[j] = c * b - s * a;
            }
            u[k] = 0.0;
        }
    }
}

/* zgeev's: unit 2-norm, then times conj(v_k) / |v_k| for the largest |v_k|, v_k made real */
static void normalize_complex(int64_t n, double *V, int64_t ldv)
{
    for (int64_t i = 0; i < n; i++) {
        double *v = V + 2 * i * ldv, best = -1.0;
        int64_t k = 0;
        scal(2 * n, 1.0 / nrm2(2 * n, v), v);
        for (int64_t j = 0; j < n; j++)
            if (v[2 * j] * v[2 * j] + v[2 * j + 1] * v[2 * j + 1] > best)
                best = v[2 * j] * v[2 * j] + v[2 * j + 1] * v[2 * j + 1], k = j;
        double r = sqrt(best), tr = v[2 * k] / r, ti = -v[2 * k + 1] / r;
        for (int64_t j = 0; j < n; j++) {
            double a = v[2 * j], b = v[2 * j + 1];
            v[2 * j] = a * tr - b * ti, v[2 * j + 1] = a * ti + b * tr;
        }
        v[2 * k + 1] = 0.0;
    }
}

/* ---- the shared part: scaling, balancing, Hessenberg, Schur --------------------------------- */

typedef struct {
    double anrm, cscale; /* cscale 0: A not scaled */
    int64_t ilo, ihi;
    double *scale, *tau; /* gebal's scale (n), gehrd's scalars */
} ev_run;

/* D := S (n x n, lds) */
static void copy_square(const oz_lx *x, int64_t n, const double *S, int64_t lds, double *D,
                        int64_t ldd)
{
    size_t col = sizeof(double) * (size_t)((x->cplx ? 2 : 1) * n);
    for (int64_t j = 0; j < n; j++)
        memcpy(LX_AT(x, D, 0, j, ldd), LX_AT(x, S, 0, j, lds), col);
}

/* dgeev's and dgees's first part: A scaled into range and balanced with job bal (O(n^2)
 * passes over A: the report's copies). OZBLAS_OK or OZBLAS_ERR_ALLOCATION (free with ev_free
 * either way). */
static ozblas_status ev_balance(oz_lx *x, ev_run *r, char bal, int64_t n, double *A, int64_t lda)
{
    double small = sqrt(DBL_MIN) / DBL_EPSILON;
    lx_clock c = lx_tic(x);
    memset(r, 0, sizeof *r);
    r->scale = oz_malloc(sizeof(double) * (size_t)(n + (x->cplx ? 2 : 1) * n));
    if (!r->scale)
        return OZBLAS_ERR_ALLOCATION;
    r->tau = r->scale + n;
    r->anrm = lx_max_abs(x, n, n, A, lda);
    double sc = lx_into_range(r->anrm, small);
    if (sc != 1.0) {
        double s2[2] = {sc, 0.0};
        r->cscale = r->anrm < small ? small : 1.0 / small;
        lx_scale(x, n, n, s2, A, lda);
    }
    gebal(x, bal, n, A, lda, &r->ilo, &r->ihi, r->scale);
    lx_toc(x, c, &x->rep->copy_seconds);
    return OZBLAS_OK;
}

/* Then A := Z T Z^H (T over A when job is 'S', the Schur vectors into Z (n x n, ldz) unless
 * it is NULL; w, wi the eigenvalues): the balanced A reduced and its Schur form. The copy of
 * the reflectors into Z and orghr's host part (their shift) are the report's copies. */
static ozblas_status ev_schur(oz_lx *x, lx_hh *q, ev_run *r, char job, double *Z, int64_t ldz,
                              int64_t n, double *A, int64_t lda, double *w, double *wi,
                              int64_t *info)
{
    int64_t hinfo = 0;
    double nz[2];
    ozblas_status st = lx_gehrd_run(x, q, n, r->ilo, r->ihi, A, lda, r->tau, &hinfo);
    if (st != OZBLAS_OK || x->failed)
        return st;
    if (Z) {
        lx_clock c = lx_tic(x);
        copy_square(x, n, A, lda, Z, ldz);
        lx_orghr(x, q, 0, n, r->ilo, r->ihi, Z, ldz, r->tau, &hinfo);
        lx_toc(x, c, &x->rep->copy_seconds);
    }
    if (!x->failed)
        hseqr(x, job, Z ? 'V' : 'N', n, r->ilo, r->ihi, A, lda, w, wi, Z ? Z : nz, Z ? ldz : 1,
              info);
    return OZBLAS_OK;
}

static void ev_free(ev_run *r) { free(r->scale); }

/* The eigenvalues back to A's scale (dgeev's dlascl: all with info 0, else those hseqr found,
 * info+1..n, and the ones gebal isolated, 1..ilo-1) */
static void ev_unscale(const oz_lx *x, const ev_run *r, int64_t n, double *w, double *wi,
                       int64_t info)
{
    if (r->cscale == 0.0)
        return;
    double back = r->anrm / r->cscale;
    int64_t wd = x->cplx ? 2 : 1;
    for (int64_t i = 0; i < n; i++)
        if (i >= info || (info > 0 && i < r->ilo - 1)) {
            scal(wd, back, w + wd * i);
            if (wi)
                wi[i] *= back;
        }
}

/* ---- geev ------------------------------------------------------------------------------ */

/* The host geev on A (workspace as its query asks) */
static ozblas_status host_geev(oz_lx *x, char jl, char jr, int64_t n, double *A, int64_t lda,
                               double *w, double *wi, double *VL, int64_t ldvl, double *VR,
                               int64_t ldvr, int64_t *info)
{
    double qw[2] = {0.0, 0.0}, *work = qw, *rwork = x->cplx ? oz_malloc(sizeof(double) * (size_t)(2 * n)) : NULL;
    int64_t lwork = -1;
    for (int pass = 0; pass < 2; pass++) {
        LX_F77(I n4 = (I)n, la = (I)lda, ll = (I)ldvl, lr = (I)ldvr, lw = (I)lwork, inf4 = 0;
            if (x->cplx)
                LX_HOST(1, zgeev)(&jl, &jr, &n4, A, &la, w, VL, &ll, VR, &lr, work, &lw, rwork,
                                  &inf4, 1, 1);
            else
                LX_HOST(0, dgeev)(&jl, &jr, &n4, A, &la, w, wi, VL, &ll, VR, &lr, work, &lw, &inf4,
                                  1, 1);
            *info = inf4;);
        if (pass == 0) {
            lwork = (int64_t)qw[0] > 4 * n ? (int64_t)qw[0] : 4 * max1(n);
            work = oz_malloc(sizeof(double) * (size_t)((x->cplx ? 2 : 1) * lwork));
            if (!work || (x->cplx && !rwork)) {
                free(rwork);
                free(work == qw ? NULL : work);
                return OZBLAS_ERR_ALLOCATION;
            }
        }
    }
    free(work);
    free(rwork);
    lx_host_flops(x, (jl == 'V' || jr == 'V' ? 25.0 : 10.0) * (double)n * (double)n * (double)n);
    return OZBLAS_OK;
}

/* Balancing's spread above which geev runs on the host: gebak multiplies row i of the vectors
 * by D_i, so a product's absolute error u max|Z| max|X| (the emulated products' normwise
 * target, not native's u sum|z||x|) grows into the small entries by up to max D / min D. The
 * suites' strongly graded matrices (D spanning 1e15) lost every digit of their vectors; 2^20
 * keeps the growth under the residual's n u floor with room (one measured case, not a bound). */
#define GEEV_MAX_SPREAD 1048576.0

/* 1 when the balancing spread D beyond GEEV_MAX_SPREAD */
static int geev_graded(const ev_run *r)
{
    double lo = 1.0, hi = 1.0;
    for (int64_t i = r->ilo - 1; i < r->ihi; i++)
        lo = r->scale[i] < lo ? r->scale[i] : lo, hi = r->scale[i] > hi ? r->scale[i] : hi;
    return hi / lo > GEEV_MAX_SPREAD;
}

/* The blocked route: ev_balance, then with vectors the host geev on the caller's A (kept in
 * Z's memory meanwhile) when the balancing is graded; else ev_schur, the eigenvectors of T
 * (XT right, YT left), X = Z XT and Y = Z YT as products, gebak, the normalization (with
 * trevc3 and the eigenvalues' scaling, the report's back). */
static ozblas_status geev_blocked(oz_lx *x, lx_hh *q, int wl, int wr, int64_t n, double *A,
                                  int64_t lda, double *w, double *wi, double *VL, int64_t ldvl,
                                  double *VR, int64_t ldvr, int64_t *info)
{
    ev_run r;
    int64_t wd = x->cplx ? 2 : 1;
    /* Z, then the eigenvectors of T: XT (right), YT (left) */
    double *Z = wl || wr ? oz_malloc(sizeof(double) * (size_t)(wd * n * n * (1 + wl + wr))) : NULL;
    double *XT = Z ? Z + wd * n * n : NULL, *YT = XT && wl && wr ? XT + wd * n * n : XT;
    if ((wl || wr) && !Z)
        return OZBLAS_ERR_ALLOCATION;
    lx_clock c = lx_tic(x);
    if (Z)
        copy_square(x, n, A, lda, Z, n);
    lx_toc(x, c, &x->rep->copy_seconds);
    ozblas_status st = ev_balance(x, &r, 'B', n, A, lda);
    if (st == OZBLAS_OK && Z && geev_graded(&r)) {
        c = lx_tic(x);
        copy_square(x, n, Z, n, A, lda);
        free(Z);
        ev_free(&r);
        lx_toc(x, c, &x->rep->copy_seconds);
        return host_geev(x, wl ? 'V' : 'N', wr ? 'V' : 'N', n, A, lda, w, wi, VL, ldvl, VR, ldvr,
                         info);
    }
    if (st == OZBLAS_OK)
        st = ev_schur(x, q, &r, Z ? 'S' : 'E', Z, n, n, A, lda, w, wi, info);
    c = lx_tic(x);
    if (st == OZBLAS_OK && !x->failed && *info == 0 && Z) {
        trevc3(x, wl && wr ? 'B' : wr ? 'R' : 'L', n, A, lda, YT, XT);
        struct { int on; char side; double *T, *V; int64_t ld; } s[2] = {
            {wr, 'R', XT, VR, ldvr}, {wl, 'L', YT, VL, ldvl}};
        for (int k = 0; k < 2 && !x->failed; k++) {
            if (!s[k].on)
                continue;
            /* the back-transformation: trevc3's 'B' as one product */
            lx_gemm(x, 'N', 'N', n, n, n, ONE, Z, n, s[k].T, n, ZERO, s[k].V, s[k].ld);
            gebak(x, 'B', s[k].side, n, r.ilo, r.ihi, r.scale, s[k].V, s[k].ld);
            if (x->cplx)
                normalize_complex(n, s[k].V, s[k].ld);
            else
                normalize_real(n, s[k].V, s[k].ld, wi);
        }
    }
    free(Z);
    if (st == OZBLAS_OK)
        ev_unscale(x, &r, n, w, wi, *info);
    ev_free(&r);
    lx_toc(x, c, &x->rep->back_seconds);
    return st;
}

int64_t oz_geev_check(int cplx, char jobvl, char jobvr, int64_t n, int64_t lda, int64_t ldvl,
                      int64_t ldvr)
{
    jobvl = up(jobvl), jobvr = up(jobvr);
    if (jobvl != 'N' && jobvl != 'V')
        return -1;
    if (jobvr != 'N' && jobvr != 'V')
        return -2;
    if (n < 0)
        return -3;
    if (lda < max1(n))
        return -5;
    if (ldvl < 1 || (jobvl == 'V' && ldvl < n))
        return cplx ? -8 : -9;
    if (ldvr < 1 || (jobvr == 'V' && ldvr < n))
        return cplx ? -10 : -11;
    return 0;
}

/* Nominal: Golub and Van Loan's counts (10 n^3 for the eigenvalues, 25 n^3 for T and Z), with
 * 4/3 n^3 per side of vectors (the back-substitution and the back-transformation) */
double oz_geev_flops(int cplx, char jobvl, char jobvr, int64_t n)
{
    double d = (double)n, sides = (up(jobvl) == 'V') + (up(jobvr) == 'V');
    return (cplx ? 4.0 : 1.0) * (sides > 0 ? 25.0 + 4.0 / 3.0 * sides : 10.0) * d * d * d;
}

/* Host memory only: the operands are given with no extent, so that a CUDA executor does not
 * upload them (its products stage their own); device pointers are refused. */
static ozblas_status geev_body(ozblas_context *ctx, int cplx, char jobvl, char jobvr, int64_t n,
                               double *A, int64_t lda, double *w, double *wi, double *VL,
                               int64_t ldvl, double *VR, int64_t ldvr, int64_t *info, int64_t nb,
                               const ozblas_options *opt, ozblas_lapack_report *report)
{
    if ((*info = oz_geev_check(cplx, jobvl, jobvr, n, lda, ldvl, ldvr)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    jobvl = up(jobvl), jobvr = up(jobvr);
    BEGIN(cplx, n, oz_geev_flops(cplx, jobvl, jobvr, n), max1(n), LX_OP(A, lda, 0, 0, 0),
          LX_OP(VL, ldvl, 0, 0, 0), LX_OP(VR, ldvr, 0, 0, 0))
    if (x.dev)
        END_WITH(OZBLAS_ERR_INVALID_ARGUMENT);
    if (!ev_ready(cplx))
        END_WITH(OZBLAS_ERR_NO_HOST_BLAS);
    if (n == 0)
        END();
    HH_WORK(max1(n), max1(n), n * 64 + 65 * 64)
    ozblas_status st =
        n <= x.nb ? host_geev(&x, jobvl, jobvr, n, A, lda, w, wi, VL, ldvl, VR, ldvr, info)
                  : geev_blocked(&x, &q, jobvl == 'V', jobvr == 'V', n, A, lda, w, wi, VL, ldvl,
                                 VR, ldvr, info);
    HH_END_WITH(st);
}

/* the d and z entries: dgeev's eigenvalues in wr, wi, zgeev's in w */
LX_API(ozblas_dgeev,
       (char jobvl, char jobvr, int64_t n, double *A, int64_t lda, double *wr, double *wi,
        double *VL, int64_t ldvl, double *VR, int64_t ldvr, int64_t *info),
       geev_body, 0, jobvl, jobvr, n, A, lda, wr, wi, VL, ldvl, VR, ldvr, info)
LX_API(ozblas_zgeev,
       (char jobvl, char jobvr, int64_t n, double *A, int64_t lda, double *w, double *VL,
        int64_t ldvl, double *VR, int64_t ldvr, int64_t *info),
       geev_body, 1, jobvl, jobvr, n, A, lda, w, NULL, VL, ldvl, VR, ldvr, info)

/* ---- gees ------------------------------------------------------------------------------ */

/* The caller's select reaches the host gees (which calls a Fortran LOGICAL function) through
 * these trampolines, the run's select and argument in thread-local storage. */
static _Thread_local struct {
    ozblas_select_fn fn;
    void *arg;
} sel_now;
static int32_t sel_d32(const double *wr, const double *wi) { return sel_now.fn(sel_now.arg, wr, wi) != 0; }
static int64_t sel_d64(const double *wr, const double *wi) { return sel_now.fn(sel_now.arg, wr, wi) != 0; }
static int32_t sel_z32(const double *w) { return sel_now.fn(sel_now.arg, w, NULL) != 0; }
static int64_t sel_z64(const double *w) { return sel_now.fn(sel_now.arg, w, NULL) != 0; }

/* The host gees on A (workspace as its query asks) */
static ozblas_status host_gees(oz_lx *x, char jobvs, char sort, ozblas_select_fn sel, void *arg,
                               int64_t n, double *A, int64_t lda, int64_t *sdim, double *w,
                               double *wi, double *VS, int64_t ldvs, int64_t *info)
{
    void *s = x->cplx ? (lx_real_ilp64() ? (void *)sel_z64 : (void *)sel_z32)
                      : (lx_real_ilp64() ? (void *)sel_d64 : (void *)sel_d32);
    double qw[2] = {0.0, 0.0}, *work = qw;
    double *rwork = oz_malloc(sizeof(double) * (size_t)max1(n));
    int64_t *bwork = oz_malloc(sizeof(int64_t) * (size_t)max1(n)), lwork = -1; /* wide enough for I */
    sel_now.fn = sel, sel_now.arg = arg;
    for (int pass = 0; pass < 2 && rwork && bwork; pass++) {
        LX_F77(I n4 = (I)n, la = (I)lda, lv = (I)ldvs, lw = (I)lwork, inf4 = 0, sd = 0;
            if (x->cplx)
                LX_HOST(1, zgees)(&jobvs, &sort, s, &n4, A, &la, &sd, w, VS, &lv, work, &lw, rwork,
                                  (I *)bwork, &inf4, 1, 1);
            else
                LX_HOST(0, dgees)(&jobvs, &sort, s, &n4, A, &la, &sd, w, wi, VS, &lv, work, &lw,
                                  (I *)bwork, &inf4, 1, 1);
            *info = inf4, *sdim = sd;);
        if (pass == 0) {
            lwork = (int64_t)qw[0] > 3 * n ? (int64_t)qw[0] : 3 * max1(n);
            work = oz_malloc(sizeof(double) * (size_t)((x->cplx ? 2 : 1) * lwork));
            if (!work)
                break;
        }
    }
    ozblas_status st = rwork && bwork && work ? OZBLAS_OK : OZBLAS_ERR_ALLOCATION;
    free(work == qw ? NULL : work);
    free(rwork);
    free(bwork);
    lx_host_flops(x, (jobvs == 'V' ? 25.0 : 10.0) * (double)n * (double)n * (double)n);
    return st;
}

/* The host trsen (job 'N', compq 'V' or 'N') on T and Q with the selection bsel: the
 * eigenvalues reordered into w (wi), *m of them selected, *icond trsen's info. Counted as
 * 12 n flops per swap of two adjacent eigenvalues (a model: rotations of T's rows and columns
 * and of Q's columns). */
static void trsen(oz_lx *x, char compq, const int64_t *bsel, int64_t n, double *T, int64_t ldt,
                  double *Q, int64_t ldq, double *w, double *wi, int64_t *m, int64_t *icond)
{
    char job = 'N';
    double s = 0.0, sep = 0.0, nq[2];
    double *work = oz_malloc(sizeof(double) * (size_t)((x->cplx ? 2 : 1) * max1(n)));
    if (!work) {
        x->failed = 1;
        return;
    }
    LX_F77(I n4 = (I)n, lt = (I)ldt, lq = compq == 'V' ? (I)ldq : 1, m4 = 0, inf4 = 0, lw = (I)max1(n);
        I iw = 0, liw = 1;
        I *b = oz_malloc(sizeof(I) * (size_t)max1(n));
        if (!b) {
            x->failed = 1;
        } else {
            for (int64_t i = 0; i < n; i++)
                b[i] = (I)bsel[i];
            if (x->cplx)
                LX_HOST(1, ztrsen)(&job, &compq, b, &n4, T, &lt, compq == 'V' ? Q : nq, &lq, w, &m4,
                                   &s, &sep, work, &lw, &inf4, 1, 1);
            else
                LX_HOST(0, dtrsen)(&job, &compq, b, &n4, T, &lt, compq == 'V' ? Q : nq, &lq, w, wi,
                                   &m4, &s, &sep, work, &lw, &iw, &liw, &inf4, 1, 1);
            *m = m4, *icond = inf4;
            free(b);
        });
    free(work);
    lx_host_flops(x, 12.0 * (double)n * (double)*m * (double)(n - *m));
}

static void swap_strided(int64_t k, double *a, double *b, int64_t stride)
{
    for (int64_t i = 0; i < k; i++) {
        double t = a[i * stride];
        a[i * stride] = b[i * stride], b[i * stride] = t;
    }
}

/* dgees's return from scaling towards underflow: a 2 x 2 block whose off-diagonal element
 * underflowed is made two real eigenvalues (upper triangular, columns i1..i2 1-based) */
static void gees_underflow(int64_t n, int64_t i1, int64_t i2, double *A, int64_t lda, double *wi,
                           double *VS, int64_t ldvs)
{
    for (int64_t i = i1 - 1, inxt = i1 - 2; i <= i2 - 1; i++) {
        if (i < inxt)
            continue;
        if (wi[i] == 0.0) {
            inxt = i + 1;
            continue;
        }
        double *sub = A + (i + 1) + i * lda, *sup = A + i + (i + 1) * lda;
        if (*sub == 0.0) {
            wi[i] = wi[i + 1] = 0.0;
        } else if (*sup == 0.0) {
            wi[i] = wi[i + 1] = 0.0;
            swap_strided(i, A + i * lda, A + (i + 1) * lda, 1);
            swap_strided(n - i - 2, A + i + (i + 2) * lda, A + i + 1 + (i + 2) * lda, lda);
            if (VS)
                swap_strided(n, VS + i * ldvs, VS + (i + 1) * ldvs, 1);
            *sup = *sub, *sub = 0.0;
        }
        inxt = i + 2;
    }
}

/* The Schur form and eigenvalues back to A's scale as dgees/zgees (ieval: hseqr's info) */
static void gees_unscale(oz_lx *x, const ev_run *r, int sorted, int64_t ieval, int64_t n,
                         double *A, int64_t lda, double *w, double *wi, double *VS, int64_t ldvs)
{
    double back = r->anrm / r->cscale, b2[2] = {back, 0.0};
    int64_t wd = x->cplx ? 2 : 1;
    lx_scale(x, n, n, b2, A, lda);
    for (int64_t i = 0; i < n; i++)
        memcpy(w + wd * i, LX_AT(x, A, i, i, lda), sizeof(double) * (size_t)wd);
    if (x->cplx)
        return;
    if (r->cscale == sqrt(DBL_MIN) / DBL_EPSILON) {
        if (ieval > 0)
            for (int64_t i = 0; i < r->ilo - 1; i++)
                wi[i] *= back;
        gees_underflow(n, ieval > 0 ? ieval + 1 : sorted ? 1 : r->ilo,
                       ieval > 0 || !sorted ? r->ihi - 1 : n - 1, A, lda, wi, VS, ldvs);
    }
    for (int64_t i = ieval; i < n; i++)
        wi[i] *= back;
}

/* dgees's check that the reordering kept the selection (select called again, as LAPACK
 * does): sdim recounted, complex pairs whole; n + 2 when rounding changed a selection */
static int64_t gees_recount(ozblas_select_fn sel, void *arg, int64_t n, double *wr, double *wi,
                            int64_t *sdim)
{
    int lastsl = 1, lst2sl = 1, ip = 0;
    int64_t info = 0;
    *sdim = 0;
    for (int64_t i = 0; i < n; i++) {
        int cursl = sel(arg, wr + i, wi + i) != 0;
        if (wi[i] == 0.0) {
            *sdim += cursl;
            ip = 0;
            if (cursl && !lastsl)
                info = n + 2;
        } else if (ip == 1) {
            cursl = cursl || lastsl;
            lastsl = cursl;
            *sdim += cursl ? 2 : 0;
            ip = -1;
            if (cursl && !lst2sl)
                info = n + 2;
        } else {
            ip = 1;
        }
        lst2sl = lastsl;
        lastsl = cursl;
    }
    return info;
}

/* The blocked route: ev_schur (balanced by permutation only) with the Schur vectors into VS,
 * the selection reordered by the host trsen, gebak, the scaling undone. */
static ozblas_status gees_blocked(oz_lx *x, lx_hh *q, int wvs, int sort, ozblas_select_fn sel,
                                  void *arg, int64_t n, double *A, int64_t lda, int64_t *sdim,
                                  double *w, double *wi, double *VS, int64_t ldvs, int64_t *info)
{
    ev_run r;
    int64_t wd = x->cplx ? 2 : 1, m = 0, icond = 0;
    ozblas_status st = ev_balance(x, &r, 'P', n, A, lda);
    if (st == OZBLAS_OK)
        st = ev_schur(x, q, &r, 'S', wvs ? VS : NULL, ldvs, n, A, lda, w, wi, info);
    int64_t ieval = *info;
    lx_clock c = lx_tic(x); /* the reordering, gebak, the scaling back: the report's back */
    if (st == OZBLAS_OK && !x->failed && sort && *info == 0) {
        int64_t *bsel = oz_malloc(sizeof(int64_t) * (size_t)max1(n));
        if (!bsel) {
            ev_free(&r);
            lx_toc(x, c, &x->rep->back_seconds);
            return OZBLAS_ERR_ALLOCATION;
        }
        if (r.cscale != 0.0)
            for (int64_t i = 0; i < n; i++) {
                scal(wd, r.anrm / r.cscale, w + wd * i);
                if (wi)
                    wi[i] *= r.anrm / r.cscale;
            }
        for (int64_t i = 0; i < n; i++)
            bsel[i] = sel(arg, w + wd * i, wi ? wi + i : NULL) != 0;
        trsen(x, wvs ? 'V' : 'N', bsel, n, A, lda, VS, ldvs, w, wi, &m, &icond);
        *sdim = m;
        if (icond > 0)
            *info = n + icond;
        free(bsel);
    }
    if (st == OZBLAS_OK && !x->failed) {
        if (wvs)
            gebak(x, 'P', 'R', n, r.ilo, r.ihi, r.scale, VS, ldvs);
        if (r.cscale != 0.0)
            gees_unscale(x, &r, sort, ieval, n, A, lda, w, wi, wvs ? VS : NULL, ldvs);
        if (sort && *info == 0 && !x->cplx)
            *info = gees_recount(sel, arg, n, w, wi, sdim);
    }
    ev_free(&r);
    lx_toc(x, c, &x->rep->back_seconds);
    return st;
}

int64_t oz_gees_check(int cplx, char jobvs, char sort, int have_select, int64_t n, int64_t lda,
                      int64_t ldvs)
{
    jobvs = up(jobvs), sort = up(sort);
    if (jobvs != 'N' && jobvs != 'V')
        return -1;
    if (sort != 'N' && sort != 'S')
        return -2;
    if (sort == 'S' && !have_select)
        return -3;
    if (n < 0)
        return -4;
    if (lda < max1(n))
        return -6;
    if (ldvs < 1 || (jobvs == 'V' && ldvs < n))
        return cplx ? -10 : -11;
    return 0;
}

/* Nominal: Golub and Van Loan's counts (25 n^3 for T and Z, 10 n^3 for T alone) */
double oz_gees_flops(int cplx, char jobvs, int64_t n)
{
    double d = (double)n;
    return (cplx ? 4.0 : 1.0) * (up(jobvs) == 'V' ? 25.0 : 10.0) * d * d * d;
}

/* Host memory only, as geev_body */
static ozblas_status gees_body(ozblas_context *ctx, int cplx, char jobvs, char sort,
                               ozblas_select_fn sel, void *arg, int64_t n, double *A,
                               int64_t lda, int64_t *sdim, double *w, double *wi, double *VS,
                               int64_t ldvs, int64_t *info, int64_t nb,
                               const ozblas_options *opt, ozblas_lapack_report *report)
{
    *sdim = 0;
    if ((*info = oz_gees_check(cplx, jobvs, sort, sel != NULL, n, lda, ldvs)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    jobvs = up(jobvs), sort = up(sort);
    BEGIN(cplx, n, oz_gees_flops(cplx, jobvs, n), max1(n), LX_OP(A, lda, 0, 0, 0),
          LX_OP(VS, ldvs, 0, 0, 0))
    if (x.dev)
        END_WITH(OZBLAS_ERR_INVALID_ARGUMENT);
    if (!ev_ready(cplx))
        END_WITH(OZBLAS_ERR_NO_HOST_BLAS);
    if (n == 0)
        END();
    HH_WORK(max1(n), max1(n), n * 64 + 65 * 64)
    ozblas_status st =
        n <= x.nb ? host_gees(&x, jobvs, sort, sel, arg, n, A, lda, sdim, w, wi, VS, ldvs, info)
                  : gees_blocked(&x, &q, jobvs == 'V', sort == 'S', sel, arg, n, A, lda, sdim, w,
                                 wi, VS, ldvs, info);
    HH_END_WITH(st);
}

/* dgees's eigenvalues in wr, wi, zgees's in w */
LX_API(ozblas_dgees,
       (char jobvs, char sort, ozblas_select_fn select, void *select_arg, int64_t n, double *A,
        int64_t lda, int64_t *sdim, double *wr, double *wi, double *VS, int64_t ldvs,
        int64_t *info),
       gees_body, 0, jobvs, sort, select, select_arg, n, A, lda, sdim, wr, wi, VS, ldvs, info)
LX_API(ozblas_zgees,
       (char jobvs, char sort, ozblas_select_fn select, void *select_arg, int64_t n, double *A,
        int64_t lda, int64_t *sdim, double *w, double *VS, int64_t ldvs, int64_t *info),
       gees_body, 1, jobvs, sort, select, select_arg, n, A, lda, sdim, w, NULL, VS, ldvs, info)
