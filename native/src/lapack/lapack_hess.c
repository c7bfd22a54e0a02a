/* Hessenberg reduction (LAPACK's dgehrd, dorghr, dormhr; z: zgehrd, zunghr, zunmhr), written
 * once for double and complex double on the Householder machinery of lapack_qr.c.
 *
 * gehrd is dgehrd's blocked code. Each panel of HR_PANEL (at most nb) columns goes to the host lahr2 on the
 * panel's trailing block (from the panel's first row: lahr2's k = 1), which returns the
 * reflectors, their T and those rows of Y = A V T; Y's rows above (lahr2's own GEMM when
 * given the whole height) are a GEMM and a trmm with T here. Then A := (I - V T V^H)^H
 * (A - Y V^H) on the rest: the columns beyond the panel from the right one GEMM (all rows),
 * the rows above the reflectors in the panel's own columns one GEMM (dgehrd's trmm and
 * axpys: V's zeros above its diagonal make them a product), the columns beyond the panel
 * from the left lapack_qr.c's larfb, two GEMMs around a trmm with T. dgehrd hands the last
 * columns (at most its crossover, 128) to the unblocked dgehd2; here the panels run to the
 * end (the last one has fewer columns), so that a device run needs no host pass over the
 * whole matrix. What stays the host's is lahr2's Y = A V of the trailing block, one column
 * at a time (Level 2: about a fifth of gehrd's flops), and its updates inside the panel;
 * with device memory the trailing block is copied to the host for each panel (the panel
 * alone is copied back). An active part (ihi - ilo + 1) of at most nb is one call of the
 * host gehrd.
 *
 * orghr is dorghr's: the reflectors moved one column to the right (through the seam, in
 * strips of nb columns from the right), the identity's columns outside ilo+1..ihi, then
 * orgqr's driver on the nh x nh block; ormhr is ormqr's driver on the same reflectors.
 * orghr runs on lapack_qr.c's view (row 1: A transposed), so that orgbr (lapack_brd.c) forms
 * Q and P^H of a square bidiagonal reduction with it (dorgbr's shifted cases). */
#include <stdlib.h>
#include <string.h>

#include "../core/oz_internal.h"
#include "oz_lapack.h"

/* ---- the host routines ------------------------------------------------------------------- */

static const int hr_ids[] = {LXH_lahr2, LXH_gehrd};

/* The panels' width (at most nb): dgehrd's largest, 64. lahr2's updates inside a panel cost
 * the host O(n^2 ib) beside its fixed Level 2 Y = A V: at n = 1024 (one thread) its time was
 * 0.18 s with panels of 256 columns, 0.10 s at 128, 0.08 s at 64 and 0.09 s at 32 (z: 0.51,
 * 0.33, 0.25, 0.27 s), while the products' flops stay the same. ozblas/lapack.py's explain
 * takes the same width (_HESS_PANEL). */
#define HR_PANEL 64

static int hr_ready(int cplx) { return lx_host_all(cplx, hr_ids, 2); }

/* dlahr2(n, k, nb, A, lda, tau, T, ldt, Y, ldy) */
static void real_lahr2(const oz_lx *x, int64_t n, int64_t k, int64_t nb, double *A, int64_t lda,
                       double *tau, double *T, int64_t ldt, double *Y, int64_t ldy)
{
    LX_F77(I n4 = (I)n, k4 = (I)k, b4 = (I)nb, la = (I)lda, lt = (I)ldt, ly = (I)ldy;
           LX_HOST(x->cplx, lahr2)(&n4, &k4, &b4, A, &la, tau, T, &lt, Y, &ly););
}

/* dgehrd(n, ilo, ihi, A, lda, tau, work, lwork, info) */
static void real_gehrd(const oz_lx *x, int64_t n, int64_t ilo, int64_t ihi, double *A,
                       int64_t lda, double *tau, double *work, int64_t lwork, int64_t *info)
{
    LX_F77(I n4 = (I)n, lo = (I)ilo, hi = (I)ihi, l4 = (I)lda, w4 = (I)lwork, inf4 = 0;
           LX_HOST(x->cplx, gehrd)(&n4, &lo, &hi, A, &l4, tau, work, &w4, &inf4);
           *info = inf4;);
}

/* ---- gehrd ------------------------------------------------------------------------------ */

/* lahr2's outputs and, for device memory, the host copy of a panel's trailing matrix */
typedef struct {
    double *Y;  /* n x nb (host): rows p.. from lahr2 */
    double *T;  /* nb x nb (host) */
    double *dY; /* Y where the products read it (and write its rows above p) */
    double *G;  /* device runs: g host elements, else NULL (A itself is read) */
} hr_work;

/* g: the largest block fetched (the host gehrd's n x n, or the first panel's trailing
   block) */
static ozblas_status hr_alloc(oz_lx *x, hr_work *h, int64_t n, int64_t g)
{
    int64_t w = x->cplx ? 2 : 1, nb = x->nb;
    memset(h, 0, sizeof *h);
    h->Y = oz_malloc(sizeof(double) * (size_t)(w * (n * nb + nb * nb) + 1));
    h->G = x->dev ? oz_malloc(sizeof(double) * (size_t)(w * g + 1)) : NULL;
    if (!h->Y || (x->dev && !h->G))
        return OZBLAS_ERR_ALLOCATION;
    h->T = h->Y + w * n * nb;
    h->dY = lx_scratch(x, h->Y, n * nb);
    return h->dY ? OZBLAS_OK : OZBLAS_ERR_DEVICE;
}

static void hr_free(oz_lx *x, hr_work *h)
{
    lx_scratch_free(x, h->dY);
    free(h->Y);
    free(h->G);
}

static void lx_gehrd(oz_lx *x, lx_hh *q, hr_work *h, int64_t n, int64_t ilo, int64_t ihi,
                     double *A, int64_t lda, double *tau, int64_t *info)
{
    int64_t w = x->cplx ? 2 : 1, nb = x->nb, nh = ihi - ilo + 1, ld;
    *info = 0;
    /* dgehrd's: the scalars of the columns outside ilo..ihi-1 are zero */
    for (int64_t i = 0; i < n - 1; i++)
        if (i < ilo - 1 || i >= max1(ihi) - 1)
            memset(LX_AT(x, tau, i, 0, 1), 0, sizeof(double) * (size_t)w);
    if (nh <= 1)
        return;
    if (nh <= nb) {
        double *H = lx_fetch_to(x, h->G, n, A, lda, n, n, &ld);
        if (x->failed)
            return;
        real_gehrd(x, n, ilo, ihi, H, ld, tau, q->rw, q->lrw, info);
        lx_store(x, H, ld, A, lda, n, n);
        return;
    }
    int64_t pw = min64(nb, HR_PANEL);
    for (int64_t p = ilo - 1; p < ihi - 1 && !x->failed; p += pw) {
        /* the panel: columns p..p+ib-1 (0-based), its reflectors of order nr in rows p+1..;
           lahr2 on the trailing block from row p (its k = 1): Y's rows p.. */
        int64_t ib = min64(pw, ihi - 1 - p), nr = ihi - p - 1;
        double *Ap = LX_AT(x, A, p, p, lda), *Yp = LX_AT(x, h->Y, p, 0, n);
        double *G = lx_fetch_to(x, h->G, nr + 1, Ap, lda, nr + 1, nr + 1, &ld);
        if (x->failed)
            return;
        lx_clock c = lx_tic(x); /* lahr2: the report's panels, as the QR panels */
        real_lahr2(x, nr + 1, 1, ib, G, ld, LX_AT(x, tau, p, 0, 1), h->T, nb, Yp, n);
        lx_toc(x, c, &x->rep->panel_seconds);
        lx_hh_block(x, q, 0, LX_AT(x, G, 1, 0, ld), ld, nr, ib, NULL, h->T, nb);
        lx_store(x, G, ld, Ap, lda, nr + 1, ib);
        lx_store(x, Yp, n, LX_AT(x, h->dY, p, 0, n), n, nr + 1, ib);
        /* Y's rows above (lahr2's with k = p + 1: a GEMM there): A(0:p, p+1:ihi) V T */
        lx_gemm(x, 'N', 'N', p, ib, nr, ONE, LX_AT(x, A, 0, p + 1, lda), lda, q->dV, nr, ZERO,
                h->dY, n);
        lx_trmm(x, 'R', 'U', 'N', 'N', p, ib, ONE, q->dT, ib, h->dY, n);
        /* A(0:ihi, p+ib:ihi) -= Y V2^H, V2 the rows of V from row p+ib of A (dgehrd's GEMM with
           the subdiagonal element set to one: V's unit diagonal here) */
        lx_gemm(x, 'N', ct(x), ihi, ihi - p - ib, ib, MONE, h->dY, n,
                LX_AT(x, q->dV, ib - 1, 0, nr), nr, ONE, LX_AT(x, A, 0, p + ib, lda), lda);
        /* the rows above the panel's reflectors, its columns 1..ib-1: A(0:p+1, p+1:p+ib) -=
           Y V1^H, V1 the unit lower triangle of the first ib - 1 reflectors (dgehrd's trmm and
           axpys; V's zeros above its diagonal make it one GEMM) */
        lx_gemm(x, 'N', ct(x), p + 1, ib - 1, ib - 1, MONE, h->dY, n, q->dV, nr, ONE,
                LX_AT(x, A, 0, p + 1, lda), lda);
        /* A(p+1:ihi, p+ib:n) := H^H A(p+1:ihi, p+ib:n) */
        lx_larfb(x, q, 'L', ct(x), nr, n - p - ib, ib, LX_AT(x, A, p + 1, p + ib, lda), lda);
    }
}

ozblas_status lx_gehrd_run(oz_lx *x, lx_hh *q, int64_t n, int64_t ilo, int64_t ihi, double *A,
                           int64_t lda, double *tau, int64_t *info)
{
    hr_work h;
    int64_t nh = ihi - ilo + 1;
    ozblas_status st = hr_alloc(x, &h, max1(n), nh <= x->nb ? n * n : nh * nh);
    if (st == OZBLAS_OK)
        lx_gehrd(x, q, &h, n, ilo, ihi, A, lda, tau, info);
    hr_free(x, &h);
    return st;
}

/* ---- orghr and ormhr --------------------------------------------------------------------- */

/* dorghr's first step on the view (row 0: A; row 1: A transposed, whose shift is dorgbr's
 * for P^H): column c of ilo..ihi-1 (0-based) takes the reflector of column c - 1 (rows
 * c+1..ihi-1), zero above and below; right to left, in strips of nb columns, the column left
 * of each strip in the second seam buffer. Row c keeps its value (orgqr sets it). */
static void shift_reflectors(oz_lx *x, int row, int64_t n, int64_t ilo, int64_t ihi, double *A,
                             int64_t lda)
{
    int64_t w = x->cplx ? 2 : 1;
    size_t es = sizeof(double) * (size_t)w;
    for (int64_t c1 = ihi, c0; c1 > ilo && !x->failed; c1 = c0) {
        c0 = max64(ilo, c1 - x->nb);
        int64_t ld, ll, rows = row ? c1 - c0 : n, cols = row ? n : c1 - c0;
        double *Ac = row ? LX_AT(x, A, c0, 0, lda) : LX_AT(x, A, 0, c0, lda);
        double *H = lx_fetch(x, 0, Ac, lda, rows, cols, &ld, 1);
        const double *Al = row ? LX_AT(x, A, c0 - 1, 0, lda) : LX_AT(x, A, 0, c0 - 1, lda);
        const double *L = lx_fetch(x, 1, Al, lda, row ? 1 : n, row ? n : 1, &ll, 1);
        if (x->failed)
            return;
        /* element i of the view's column: a stride of one element (row 0) or a leading
           dimension (row 1) */
        int64_t sh = w * (row ? ld : 1), sl = w * (row ? ll : 1);
        for (int64_t c = c1 - 1; c >= c0; c--) {
            double *d = row ? LX_AT(x, H, c - c0, 0, ld) : LX_AT(x, H, 0, c - c0, ld);
            const double *s = c > c0 ? d - w * (row ? 1 : ld) : L;
            int64_t ss = c > c0 ? sh : sl;
            for (int64_t i = 0; i < n; i++)
                if (i > c && i < ihi)
                    memcpy(d + i * sh, s + i * ss, es);
                else if (i != c)
                    memset(d + i * sh, 0, es);
        }
        lx_store(x, H, ld, Ac, lda, rows, cols);
    }
}

void lx_orghr(oz_lx *x, lx_hh *q, int row, int64_t n, int64_t ilo, int64_t ihi, double *A,
              int64_t lda, const double *tau, int64_t *info)
{
    int64_t nh = ihi - ilo;
    *info = 0;
    shift_reflectors(x, row, n, ilo, ihi, A, lda);
    lx_unit_columns(x, row, n, 0, ilo, A, lda);
    lx_unit_columns(x, row, n, ihi, n, A, lda);
    if (nh > 0)
        lx_orgqr(x, q, row, nh, nh, nh, LX_AT(x, A, ilo, ilo, lda), lda,
                 LX_AT(x, tau, ilo - 1, 0, 1), info);
}

/* ---- checks, flops, the public entries ------------------------------------------------- */

int64_t oz_hr_check(int op, int cplx, char side, char trans, int64_t m, int64_t n, int64_t ilo,
                    int64_t ihi, int64_t lda, int64_t ldc)
{
    if (op != OZ_HR_ORMHR)
        return n < 0 ? -1 : ilo < 1 || ilo > max1(n) ? -2 : ihi < min64(ilo, n) || ihi > n ? -3
             : lda < max1(n) ? -5 : 0;
    side = up(side), trans = up(trans);
    if (side != 'L' && side != 'R')
        return -1;
    if (trans != 'N' && trans != (cplx ? 'C' : 'T'))
        return -2;
    int64_t nq = side == 'L' ? m : n;
    return m < 0 ? -3 : n < 0 ? -4 : ilo < 1 || ilo > max1(nq) ? -5
         : ihi < min64(ilo, nq) || ihi > nq ? -6 : lda < max1(nq) ? -8 : ldc < max1(m) ? -11 : 0;
}

/* gehrd: 10/3 h^3 for the active part of order h = ihi - ilo + 1 (LAPACK's count for a full
 * reduction), plus the products of Q with the rows above it (ilo - 1) and the columns right
 * of it (n - ihi), 2 h^2 each; orghr: orgqr's for nh = ihi - ilo; ormhr: ormqr's */
double oz_hr_flops(int op, int cplx, char side, int64_t m, int64_t n, int64_t ilo, int64_t ihi)
{
    double h = (double)(ihi - ilo + 1), nh = (double)(ihi - ilo);
    if (op == OZ_HR_GEHRD)
        return (cplx ? 4.0 : 1.0) * (10.0 / 3.0 * h * h * h + 2.0 * h * h * (double)(n - ihi + ilo - 1));
    if (op == OZ_HR_ORGHR)
        return (cplx ? 4.0 : 1.0) * 4.0 / 3.0 * nh * nh * nh;
    side = up(side);
    return oz_qr_flops(OZ_QR_ORMQR, cplx, side, side == 'L' ? ihi - ilo : m,
                       side == 'L' ? n : ihi - ilo, ihi - ilo);
}

static ozblas_status gehrd_body(ozblas_context *ctx, int cplx, int64_t n, int64_t ilo,
                                int64_t ihi, double *A, int64_t lda, double *tau, int64_t *info,
                                int64_t nb, const ozblas_options *opt,
                                ozblas_lapack_report *report)
{
    if ((*info = oz_hr_check(OZ_HR_GEHRD, cplx, 0, 0, n, n, ilo, ihi, lda, 0)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    BEGIN(cplx, ihi - ilo + 1, oz_hr_flops(OZ_HR_GEHRD, cplx, 0, n, n, ilo, ihi), max1(n),
          LX_OP(A, lda, n, n, 1))
    if (!hr_ready(cplx))
        END_WITH(OZBLAS_ERR_NO_HOST_BLAS);
    /* the host gehrd's optimal workspace: n nb + (nb + 1) nb, nb at most 64 */
    HH_WORK(max1(n), max1(n), n * 64 + 65 * 64)
    ozblas_status st = lx_gehrd_run(&x, &q, n, ilo, ihi, A, lda, tau, info);
    HH_END_WITH(st);
}

static ozblas_status orghr_body(ozblas_context *ctx, int cplx, int64_t n, int64_t ilo,
                                int64_t ihi, double *A, int64_t lda, const double *tau,
                                int64_t *info, int64_t nb, const ozblas_options *opt,
                                ozblas_lapack_report *report)
{
    if ((*info = oz_hr_check(OZ_HR_ORGHR, cplx, 0, 0, n, n, ilo, ihi, lda, 0)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    BEGIN(cplx, max64(ihi - ilo, 0), oz_hr_flops(OZ_HR_ORGHR, cplx, 0, n, n, ilo, ihi), max1(n),
          LX_OP(A, lda, n, n, 1))
    HH_WORK(max1(n), max1(n), 0)
    lx_orghr(&x, &q, 0, n, ilo, ihi, A, lda, tau, info);
    HH_END_WITH(OZBLAS_OK);
}

static ozblas_status ormhr_body(ozblas_context *ctx, int cplx, char side, char trans, int64_t m,
                                int64_t n, int64_t ilo, int64_t ihi, double *A, int64_t lda,
                                const double *tau, double *C, int64_t ldc, int64_t *info,
                                int64_t nb, const ozblas_options *opt,
                                ozblas_lapack_report *report)
{
    if ((*info = oz_hr_check(OZ_HR_ORMHR, cplx, side, trans, m, n, ilo, ihi, lda, ldc)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    side = up(side), trans = up(trans);
    int64_t nq = side == 'L' ? m : n, nh = ihi - ilo;
    BEGIN(cplx, max64(nh, 0), oz_hr_flops(OZ_HR_ORMHR, cplx, side, m, n, ilo, ihi), max64(max1(m), n),
          LX_OP(A, lda, nq, nq, 0), LX_OP(C, ldc, m, n, 1))
    HH_WORK(max1(nq), side == 'L' ? max1(n) : max1(m), 0)
    const double *V = LX_AT(&x, A, ilo, ilo - 1, lda), *t = LX_AT(&x, tau, ilo - 1, 0, 1);
    if (m > 0 && n > 0 && nh > 0) {
        if (side == 'L')
            lx_ormqr(&x, &q, 0, 'L', trans, nh, n, nh, V, lda, t, LX_AT(&x, C, ilo, 0, ldc), ldc);
        else
            lx_ormqr(&x, &q, 0, 'R', trans, m, nh, nh, V, lda, t, LX_AT(&x, C, 0, ilo, ldc), ldc);
    }
    HH_END_WITH(OZBLAS_OK);
}

LX_DZ(gehrd, gehrd,
      (int64_t n, int64_t ilo, int64_t ihi, double *A, int64_t lda, double *tau, int64_t *info),
      gehrd_body, n, ilo, ihi, A, lda, tau, info)
LX_DZ(orghr, unghr,
      (int64_t n, int64_t ilo, int64_t ihi, double *A, int64_t lda, const double *tau,
       int64_t *info),
      orghr_body, n, ilo, ihi, A, lda, tau, info)
LX_DZ(ormhr, unmhr,
      (char side, char trans, int64_t m, int64_t n, int64_t ilo, int64_t ihi, const double *A,
       int64_t lda, const double *tau, double *C, int64_t ldc, int64_t *info),
      ormhr_body, side, trans, m, n, ilo, ihi, (double *)A, lda, tau, C, ldc, info)
