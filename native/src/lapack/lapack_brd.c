/* Bidiagonal reduction in LAPACK's one-stage format (dgebrd, dorgbr, dormbr; z: zgebrd,
 * zungbr, zunmbr), written once for double and complex double.
 *
 * gebrd is dgebrd's blocked code: each panel of nb rows and columns goes to the host labrd
 * on the panel's trailing block (labrd reads all of it: its products with the trailing
 * matrix are matrix-vector ones, Level 2, about half of gebrd's flops, and stay the host's),
 * which returns the panel's reflectors and X, Y; the trailing matrix's update
 * A := A - V Y^H - X U^H is two ozblas GEMMs, then the panel's diagonal and off-diagonal
 * are written back (labrd leaves ones there for the products). dgebrd hands the last
 * columns (its crossover, 128) to the unblocked gebd2; here the crossover is nb, so that more
 * of the reduction is products: the last block (at most nb) is one host gebd2. With device
 * memory the trailing block is copied to the host for each panel, and its panel rows and
 * columns, X and Y copied back (the products then run on the device).
 *
 * orgbr and ormbr are dorgbr's and dormbr's compositions of the Householder machinery of
 * lapack_qr.c: Q (vect 'Q') is orgqr's / ormqr's, P^H ('P') orglq's / ormlq's on the same
 * view of A; the shifted cases (Q of an m x k reduction with m < k, P^H of one with k >= n,
 * whose reflectors start one row or column later) are orghr's shift and orgqr on the view
 * (lapack_hess.c), or ormqr / ormlq on the matrix one row or column in. */
#include <stdlib.h>
#include <string.h>

#include "../core/oz_internal.h"
#include "oz_lapack.h"

/* ---- the host routines ------------------------------------------------------------------- */

static const int br_ids[] = {LXH_labrd, LXH_gebd2};

static int br_ready(int cplx) { return lx_host_all(cplx, br_ids, 2); }

/* labrd(m, n, nb, A, lda, d, e, tauq, taup, X, ldx, Y, ldy) */
static void real_labrd(const oz_lx *x, int64_t m, int64_t n, int64_t nb, double *A, int64_t lda,
                       double *d, double *e, double *tauq, double *taup, double *X, int64_t ldx,
                       double *Y, int64_t ldy)
{
    LX_F77(I m4 = (I)m, n4 = (I)n, b4 = (I)nb, la = (I)lda, lx = (I)ldx, ly = (I)ldy;
           LX_HOST(x->cplx, labrd)(&m4, &n4, &b4, A, &la, d, e, tauq, taup, X, &lx, Y, &ly););
}

/* gebd2(m, n, A, lda, d, e, tauq, taup, work, info) */
static void real_gebd2(const oz_lx *x, int64_t m, int64_t n, double *A, int64_t lda, double *d,
                       double *e, double *tauq, double *taup, double *work)
{
    LX_F77(I m4 = (I)m, n4 = (I)n, la = (I)lda, info = 0;
           LX_HOST(x->cplx, gebd2)(&m4, &n4, A, &la, d, e, tauq, taup, work, &info););
}

/* ---- gebrd ------------------------------------------------------------------------------ */

/* labrd's X (m x nb) and Y (n x nb) on the host and where the products read them, gebd2's
 * workspace, and for device memory the host copy of a panel's trailing block */
typedef struct {
    double *X, *Y, *dX, *dY, *work, *G;
} br_work;

static ozblas_status br_alloc(oz_lx *x, br_work *b, int64_t m, int64_t n)
{
    int64_t w = x->cplx ? 2 : 1, nb = x->nb;
    memset(b, 0, sizeof *b);
    b->X = oz_malloc(sizeof(double) * (size_t)(w * ((m + n) * nb + max64(m, n)) + 1));
    b->G = x->dev ? oz_malloc(sizeof(double) * (size_t)(w * m * n + 1)) : NULL;
    if (!b->X || (x->dev && !b->G))
        return OZBLAS_ERR_ALLOCATION;
    b->Y = b->X + w * m * nb;
    b->work = b->Y + w * n * nb;
    b->dX = lx_scratch(x, b->X, (m + n) * nb);
    if (!b->dX)
        return OZBLAS_ERR_DEVICE;
    b->dY = b->dX + w * m * nb;
    return OZBLAS_OK;
}

static void br_free(oz_lx *x, br_work *b)
{
    lx_scratch_free(x, b->dX);
    free(b->X);
    free(b->G);
}

static void lx_gebrd(oz_lx *x, br_work *b, int64_t m, int64_t n, double *A, int64_t lda,
                     double *d, double *e, double *tauq, double *taup)
{
    int64_t nb = x->nb, mn = min64(m, n), i = 0, ld;
    double *G;
    for (; i + nb < mn && !x->failed; i += nb) {
        int64_t mi = m - i, ni = n - i;
        double *Aii = LX_AT(x, A, i, i, lda);
        G = lx_fetch_to(x, b->G, mi, Aii, lda, mi, ni, &ld);
        if (x->failed)
            return;
        real_labrd(x, mi, ni, nb, G, ld, d + i, e + i, LX_AT(x, tauq, i, 0, 1),
                   LX_AT(x, taup, i, 0, 1), b->X, mi, b->Y, ni);
        /* the panel's columns and rows (with labrd's ones), X and Y where the products are */
        lx_store(x, G, ld, Aii, lda, mi, nb);
        lx_store(x, LX_AT(x, G, 0, nb, ld), ld, LX_AT(x, Aii, 0, nb, lda), lda, nb, ni - nb);
        lx_store(x, b->X, mi, b->dX, mi, mi, nb);
        lx_store(x, b->Y, ni, b->dY, ni, ni, nb);
        /* A(i+nb:, i+nb:) -= V Y^H + X U^H: V the panel's columns below it, U^H its rows */
        double *Atr = LX_AT(x, A, i + nb, i + nb, lda);
        lx_gemm(x, 'N', ct(x), mi - nb, ni - nb, nb, MONE, LX_AT(x, A, i + nb, i, lda), lda,
                LX_AT(x, b->dY, nb, 0, ni), ni, ONE, Atr, lda);
        lx_gemm(x, 'N', 'N', mi - nb, ni - nb, nb, MONE, LX_AT(x, b->dX, nb, 0, mi), mi,
                LX_AT(x, A, i, i + nb, lda), lda, ONE, Atr, lda);
        /* the bidiagonal's elements back in place of the ones */
        int64_t r = m >= n ? nb : nb + 1, c = m >= n ? nb + 1 : nb, lh;
        double *H = lx_fetch(x, 0, Aii, lda, r, c, &lh, 1);
        if (x->failed)
            return;
        for (int64_t j = 0; j < nb; j++) {
            double *dj = LX_AT(x, H, j, j, lh);
            double *ej = m >= n ? LX_AT(x, H, j, j + 1, lh) : LX_AT(x, H, j + 1, j, lh);
            dj[0] = d[i + j], ej[0] = e[i + j];
            if (x->cplx)
                dj[1] = ej[1] = 0.0;
        }
        lx_store(x, H, lh, Aii, lda, r, c);
    }
    if (i < mn && !x->failed) {
        double *Aii = LX_AT(x, A, i, i, lda);
        G = lx_fetch_to(x, b->G, m - i, Aii, lda, m - i, n - i, &ld);
        if (x->failed)
            return;
        real_gebd2(x, m - i, n - i, G, ld, d + i, e + i, LX_AT(x, tauq, i, 0, 1),
                   LX_AT(x, taup, i, 0, 1), b->work);
        lx_store(x, G, ld, Aii, lda, m - i, n - i);
    }
}

/* ---- orgbr and ormbr --------------------------------------------------------------------- */

static void lx_orgbr(oz_lx *x, lx_hh *q, char vect, int64_t m, int64_t n, int64_t k, double *A,
                     int64_t lda, const double *tau, int64_t *info)
{
    *info = 0;
    if (m == 0 || n == 0)
        return;
    if (vect == 'Q')
        if (m >= k)
            lx_orgqr(x, q, 0, m, n, k, A, lda, tau, info);
        else /* m = n < k */
            lx_orghr(x, q, 0, m, 1, m, A, lda, tau, info);
    else if (k < n) /* orglq: the view A^H, n x m */
        lx_orgqr(x, q, 1, n, m, k, A, lda, tau, info);
    else /* m = n <= k */
        lx_orghr(x, q, 1, n, 1, n, A, lda, tau, info);
}

/* trans is ormbr's; ormlq's (the flipped one for P) flipped again for the view */
static void lx_ormbr(oz_lx *x, lx_hh *q, char vect, char side, char trans, int64_t m, int64_t n,
                     int64_t k, const double *A, int64_t lda, const double *tau, double *C,
                     int64_t ldc)
{
    int64_t nq = side == 'L' ? m : n;
    int row = vect == 'P';
    if (m == 0 || n == 0)
        return;
    if (row ? nq > k : nq >= k) {
        lx_ormqr(x, q, row, side, trans, m, n, k, A, lda, tau, C, ldc);
        return;
    }
    if (nq <= 1)
        return;
    int left = side == 'L';
    lx_ormqr(x, q, row, side, trans, m - left, n - !left, nq - 1,
             row ? LX_AT(x, A, 0, 1, lda) : LX_AT(x, A, 1, 0, lda), lda, tau,
             LX_AT(x, C, left, !left, ldc), ldc);
}

/* ---- checks, flops, the public entries ------------------------------------------------- */

int64_t oz_brd_check(int op, int cplx, char vect, char side, char trans, int64_t m, int64_t n,
                     int64_t k, int64_t lda, int64_t ldc)
{
    vect = up(vect), side = up(side), trans = up(trans);
    if (op == OZ_BR_GEBRD)
        return m < 0 ? -1 : n < 0 ? -2 : lda < max1(m) ? -4 : 0;
    int q = vect == 'Q';
    if (!q && vect != 'P')
        return -1;
    if (op == OZ_BR_ORGBR) {
        if (m < 0)
            return -2;
        if (n < 0 || (q && (n > m || n < min64(m, k))) || (!q && (m > n || m < min64(n, k))))
            return -3;
        return k < 0 ? -4 : lda < max1(m) ? -6 : 0;
    }
    if (side != 'L' && side != 'R')
        return -2;
    if (trans != 'N' && trans != (cplx ? 'C' : 'T'))
        return -3;
    int64_t nq = side == 'L' ? m : n;
    return m < 0 ? -4 : n < 0 ? -5 : k < 0 ? -6
         : lda < max1(q ? nq : min64(nq, k)) ? -8 : ldc < max1(m) ? -11 : 0;
}

/* gebrd: LAPACK's count (4 m n^2 - 4/3 n^3, m >= n); orgbr and ormbr: those of the orgqr,
 * orglq, ormqr or ormlq they are */
double oz_brd_flops(int op, int cplx, char vect, char side, int64_t m, int64_t n, int64_t k)
{
    vect = up(vect), side = up(side);
    if (op == OZ_BR_GEBRD) {
        double a = (double)max64(m, n), b = (double)min64(m, n);
        return (cplx ? 4.0 : 1.0) * (4.0 * a * b * b - 4.0 / 3.0 * b * b * b);
    }
    int q = vect == 'Q';
    if (op == OZ_BR_ORGBR) {
        if (q ? m >= k : k < n)
            return oz_qr_flops(q ? OZ_QR_ORGQR : OZ_QR_ORGLQ, cplx, 0, m, n, k);
        return oz_qr_flops(OZ_QR_ORGQR, cplx, 0, m - 1, m - 1, m - 1);
    }
    int64_t nq = side == 'L' ? m : n;
    if (q ? nq >= k : nq > k)
        return oz_qr_flops(OZ_QR_ORMQR, cplx, side, m, n, k);
    if (nq <= 1)
        return 0.0;
    return oz_qr_flops(OZ_QR_ORMQR, cplx, side, m - (side == 'L'), n - (side != 'L'), nq - 1);
}

static ozblas_status gebrd_body(ozblas_context *ctx, int cplx, int64_t m, int64_t n, double *A,
                                int64_t lda, double *d, double *e, double *tauq, double *taup,
                                int64_t *info, int64_t nb, const ozblas_options *opt,
                                ozblas_lapack_report *report)
{
    if ((*info = oz_brd_check(OZ_BR_GEBRD, cplx, 0, 0, 0, m, n, 0, lda, 0)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    BEGIN(cplx, min64(m, n), oz_brd_flops(OZ_BR_GEBRD, cplx, 0, 0, m, n, 0),
          max1(max64(m, n)), LX_OP(A, lda, m, n, 1))
    x.o.target = OZBLAS_TARGET_NORMWISE; /* Householder products (numerics/ozaki2.h) */
    if (!br_ready(cplx))
        END_WITH(OZBLAS_ERR_NO_HOST_BLAS);
    br_work b;
    ozblas_status st = br_alloc(&x, &b, max1(m), max1(n));
    if (st == OZBLAS_OK)
        lx_gebrd(&x, &b, m, n, A, lda, d, e, tauq, taup);
    br_free(&x, &b);
    END_WITH(st);
}

static ozblas_status orgbr_body(ozblas_context *ctx, int cplx, char vect, int64_t m, int64_t n,
                                int64_t k, double *A, int64_t lda, const double *tau,
                                int64_t *info, int64_t nb, const ozblas_options *opt,
                                ozblas_lapack_report *report)
{
    if ((*info = oz_brd_check(OZ_BR_ORGBR, cplx, vect, 0, 0, m, n, k, lda, 0)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    vect = up(vect);
    BEGIN(cplx, min64(min64(m, n), k), oz_brd_flops(OZ_BR_ORGBR, cplx, vect, 0, m, n, k),
          max1(max64(m, n)), LX_OP(A, lda, m, n, 1))
    int64_t vm = vect == 'Q' ? m : n, vn = vect == 'Q' ? n : m; /* the view's */
    HH_WORK(max1(vm), max1(vn), 0)
    lx_orgbr(&x, &q, vect, m, n, k, A, lda, tau, info);
    HH_END_WITH(OZBLAS_OK);
}

static ozblas_status ormbr_body(ozblas_context *ctx, int cplx, char vect, char side, char trans,
                                int64_t m, int64_t n, int64_t k, const double *A, int64_t lda,
                                const double *tau, double *C, int64_t ldc, int64_t *info,
                                int64_t nb, const ozblas_options *opt,
                                ozblas_lapack_report *report)
{
    if ((*info = oz_brd_check(OZ_BR_ORMBR, cplx, vect, side, trans, m, n, k, lda, ldc)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    vect = up(vect), side = up(side), trans = up(trans);
    int64_t nq = side == 'L' ? m : n, kk = min64(nq, k);
    double *Aw = (double *)A;
    BEGIN(cplx, kk, oz_brd_flops(OZ_BR_ORMBR, cplx, vect, side, m, n, k),
          max1(max64(m, n)),
          LX_OP(Aw, lda, vect == 'Q' ? nq : kk, vect == 'Q' ? kk : nq, 0), LX_OP(C, ldc, m, n, 1))
    HH_WORK(max1(nq), max1(side == 'L' ? n : m), 0)
    lx_ormbr(&x, &q, vect, side, trans, m, n, k, Aw, lda, tau, C, ldc);
    HH_END_WITH(OZBLAS_OK);
}

LX_DZ(gebrd, gebrd,
      (int64_t m, int64_t n, double *A, int64_t lda, double *d, double *e, double *tauq,
       double *taup, int64_t *info),
      gebrd_body, m, n, A, lda, d, e, tauq, taup, info)
LX_DZ(orgbr, ungbr,
      (char vect, int64_t m, int64_t n, int64_t k, double *A, int64_t lda, const double *tau,
       int64_t *info),
      orgbr_body, vect, m, n, k, A, lda, tau, info)
LX_DZ(ormbr, unmbr,
      (char vect, char side, char trans, int64_t m, int64_t n, int64_t k, const double *A,
       int64_t lda, const double *tau, double *C, int64_t ldc, int64_t *info),
      ormbr_body, vect, side, trans, m, n, k, A, lda, tau, C, ldc, info)
