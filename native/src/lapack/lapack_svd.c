/* The singular value decomposition by a two-stage bidiagonal reduction (LAPACK's dgesdd,
 * zgesdd; docs/design/lapack.md "Two-stage reductions"), for double and complex double:
 *
 *   stage 1, full (m >= n) to an upper band of width b: alternating QR panels (b columns, the
 *     host geqrf) and LQ panels (b rows right of the band, the host gelqf), each block
 *     reflector applied to the rest of the matrix as larfb's products (lapack_qr.c);
 *   stage 2 on the host, upper band to real upper bidiagonal by bulge chasing (the host
 *     larfg/larfx), every reflector of both sides kept (two lx_hous, lapack_band.c);
 *   the bidiagonal's SVD by divide and conquer with its merges' products through ozblas
 *     (lapack_bdsdc.c; the host dbdsdc without vectors or at most 25 rows; the singular
 *     vectors of a real bidiagonal are real);
 *   U = Q1 (Q2 U_B), V^H = (V_B^H P2^H) P1^H: stage 2's reflectors by lx_hous_apply and
 *     stage 1's by lx_ormqr (row 0 for the QR panels' Q1, row 1 for the LQ panels' P1), all
 *     products on the normwise target of Householder products.
 *
 * m < n is the SVD of A^H (A^H = U' S V'^H: U = V', V^H = U'^H), on a copy of A^H. An order
 * min(m, n) within one block is one call of the host gesdd. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/oz_internal.h"
#include "oz_lapack.h"

/* ---- the host routines ------------------------------------------------------------------ */

/* sq: gesvd's (bdsqr, the host gesvd), else gesdd's */
static int svd_ready(int cplx, int sq)
{
    return lx_hh_ready(cplx) && lx_band_ready(cplx) &&
           (sq ? lx_host_fn(0, LXH_bdsqr) && lx_host_fn(cplx, cplx ? LXH_zgesvd : LXH_dgesvd)
               : lx_bdsdc_ready() && lx_host_fn(cplx, cplx ? LXH_zgesdd : LXH_dgesdd));
}

/* The n x n identity of wd doubles per element (1: real, 2: complex) into I. */
static void eye(int64_t wd, int64_t n, double *I)
{
    memset(I, 0, sizeof(double) * (size_t)(wd * n * n));
    for (int64_t i = 0; i < n; i++)
        I[wd * (i + i * n)] = 1.0;
}

/* The host bdsqr (z: zbdsqr, its VT, U and C complex) on the bidiagonal (d, e; uplo, order n):
 * VT (n x n, ncvt 0 or n), U (n x n, nru 0 or n), C (n x ncc, ldc), each
 * rotated by the bidiagonal's singular vectors; unreferenced when their count is 0. */
static void host_bdsqr(oz_lx *x, int z, char uplo, int64_t n, int64_t ncvt, int64_t nru,
                       int64_t ncc, double *d, double *e, double *VT, double *U, double *C,
                       int64_t ldc, int64_t *info)
{
    double nou[2], *work = oz_malloc(sizeof(double) * (size_t)(4 * n + 1));
    if (!work) {
        x->failed = 1;
        return;
    }
    lx_clock clk = lx_tic(x);
    LX_F77(I n4 = (I)n, cv = (I)ncvt, ru = (I)nru, cc = (I)ncc, l4 = (I)max1(n), one = 1;
        I lc = ncc ? (I)ldc : 1, inf4 = 0;
        LX_HOST(z, bdsqr)(&uplo, &n4, &cv, &ru, &cc, d, e, ncvt ? VT : nou, &l4, nru ? U : nou, &l4,
                          ncc ? C : nou, &lc, work, &inf4, 1);
        *info = inf4;);
    lx_toc(x, clk, &x->rep->solver_seconds);
    free(work);
}

/* dbdsqr on the real upper bidiagonal (d, e) of order n, with U_B := I (wu) and VT_B := I (wv),
 * n x n each, rotated into the bidiagonal's singular vectors (the bidiagonal is real also for
 * z). Its flops counted as two QR sweeps per singular value, a rotation 6 flops per column of
 * U_B and VT_B, and as dqds's 30 n^2 without vectors: a model. */
static void bdsqr(oz_lx *x, int wu, int wv, int64_t n, double *d, double *e, double *UB,
                  double *VTB, int64_t *info)
{
    double dn = (double)n;
    x->rep->host_flops += wu || wv ? 12.0 * dn * dn * dn * (double)(wu + wv) : 30.0 * dn * dn;
    if (wu)
        eye(1, n, UB);
    if (wv)
        eye(1, n, VTB);
    host_bdsqr(x, 0, 'U', n, wv ? n : 0, wu ? n : 0, 0, d, e, VTB, UB, NULL, 1, info);
}

/* The factor that brings a largest element nrm into [small, 1 / small] as LAPACK's drivers
 * scale (1 for 0, NaN, or nrm in range). */
double lx_into_range(double nrm, double small)
{
    return nrm > 0.0 && nrm < small ? small / nrm : nrm > 1.0 / small ? 1.0 / small / nrm : 1.0;
}

/* ---- copies through the seam ------------------------------------------------------------- */

/* D := S (rows x cols; ct: D (cols x rows) := S^H), in tiles of nb x nb; returns the largest
 * |s_ij| (NaN propagates). */
static double copy_mat(oz_lx *x, int conj_t, int64_t rows, int64_t cols, const double *S,
                       int64_t lds, double *D, int64_t ldd)
{
    int64_t t = x->nb, w = x->cplx ? 2 : 1;
    double amax = 0.0;
    for (int64_t j0 = 0; j0 < cols && !x->failed; j0 += t)
        for (int64_t i0 = 0; i0 < rows && !x->failed; i0 += t) {
            int64_t ib = min64(t, rows - i0), jb = min64(t, cols - j0), ls, ld;
            const double *H = lx_fetch(x, 0, LX_AT(x, S, i0, j0, lds), lds, ib, jb, &ls, 1);
            double *Dt = conj_t ? LX_AT(x, D, j0, i0, ldd) : LX_AT(x, D, i0, j0, ldd);
            double *G = lx_fetch(x, 1, Dt, ldd, conj_t ? jb : ib, conj_t ? ib : jb, &ld, 0);
            if (x->failed)
                return amax;
            for (int64_t j = 0; j < jb; j++)
                for (int64_t i = 0; i < ib; i++) {
                    const double *s = LX_AT(x, H, i, j, ls);
                    double *o = conj_t ? LX_AT(x, G, j, i, ld) : LX_AT(x, G, i, j, ld);
                    double a = w == 2 ? hypot(s[0], s[1]) : fabs(s[0]);
                    if (a > amax || isnan(a))
                        amax = isnan(amax) ? amax : a;
                    o[0] = s[0];
                    if (w == 2)
                        o[1] = conj_t ? -s[1] : s[1];
                }
            lx_store(x, G, ld, Dt, ldd, conj_t ? jb : ib, conj_t ? ib : jb);
        }
    return amax;
}

/* The strictly lower triangle of the n x n A := 0, in strips. */
static void zero_lower(oz_lx *x, int64_t n, double *A, int64_t lda)
{
    int64_t w = x->cplx ? 2 : 1;
    for (int64_t c = 0; c < n && !x->failed; c += x->nb) {
        int64_t cb = min64(x->nb, n - c), ld;
        double *Ac = LX_AT(x, A, c, c, lda), *H = lx_fetch(x, 0, Ac, lda, n - c, cb, &ld, 1);
        if (x->failed)
            return;
        for (int64_t j = 0; j < cb; j++)
            memset(LX_AT(x, H, j + 1, j, ld), 0, sizeof(double) * (size_t)(w * (n - c - j - 1)));
        lx_store(x, H, ld, Ac, lda, n - c, cb);
    }
}

/* ---- stage 1 ---------------------------------------------------------------------------- */

/* A (m x n, m >= n) := Q1^H A P1, upper band of width b: for each panel j (b columns) the QR
 * of A(j:m, j:j+b) (its reflectors below the diagonal, tauq; Q1 = ormqr's form on A), Q1^H of
 * the panel applied to the columns right of it, then the LQ of A(j:j+b, j+b:n) (reflector
 * of row i at column i + b onward, taup: n - b scalars; P1 = the view's Q of ormqr row 1 on
 * A(0:n-b, b:n)), applied to the rows below from the right. */
static void ge2gb(oz_lx *x, lx_hh *q, int64_t m, int64_t n, int64_t b, double *A, int64_t lda,
                  double *tauq, double *taup)
{
    lx_clock clk = lx_tic(x); /* all of stage 1's host work is the panels' */
    for (int64_t j = 0; j < n && !x->failed; j += b) {
        int64_t jb = min64(b, n - j), rest = n - j - jb, pinfo = 0, ld;
        double *H;
        lx_hh_host(x, q, 0, LX_HH_PANEL, m - j, jb, 0, LX_AT(x, A, j, j, lda), lda,
                   LX_AT(x, tauq, j, 0, 1),
                   &pinfo, &H, &ld);
        if (!rest || x->failed)
            continue;
        lx_hh_panel_block(x, q, 0, H, ld, m - j, jb, LX_AT(x, tauq, j, 0, 1));
        lx_larfb(x, q, 'L', ct(x), m - j, rest, jb, LX_AT(x, A, j, j + jb, lda), lda);
        int64_t ib = min64(rest, jb);
        lx_hh_host(x, q, 1, LX_HH_PANEL, rest, jb, 0, LX_AT(x, A, j, j + jb, lda), lda,
                   LX_AT(x, taup, j, 0, 1), &pinfo, &H, &ld);
        if (x->failed)
            break;
        lx_hh_panel_block(x, q, 1, H, ld, rest, ib, LX_AT(x, taup, j, 0, 1));
        lx_larfb(x, q, 'R', 'N', m - j - jb, rest, ib, LX_AT(x, A, j + jb, j + jb, lda), lda);
    }
    lx_toc(x, clk, &x->rep->panel_seconds);
}

/* ---- stage 2 ---------------------------------------------------------------------------- */

/* A general band on the host holding A(i, j) for -2b <= i - j <= b (the upper band, its fill
 * above and the bulges below): as a matrix with leading dimension 3b at G + 2b elements. */
typedef struct {
    int64_t n, b;
    double *g;
} ub_band;

#define UB(x, B, i, j) LX_AT(x, (B)->g + ((x)->cplx ? 2 : 1) * 2 * (B)->b, (i), (j), 3 * (B)->b)

/* The band (0 <= j - i <= b) of A's leading n x n block, in strips of nb columns. */
static void band_get(oz_lx *x, ub_band *B, const double *A, int64_t lda)
{
    int64_t n = B->n, b = B->b, w = x->cplx ? 2 : 1;
    for (int64_t c = 0; c < n && !x->failed; c += x->nb) {
        int64_t cb = min64(x->nb, n - c), r0 = max64(0, c - b), ld;
        const double *H = lx_fetch(x, 0, LX_AT(x, A, r0, c, lda), lda, c + cb - r0, cb, &ld, 1);
        if (x->failed)
            return;
        for (int64_t j = c; j < c + cb; j++)
            for (int64_t i = max64(0, j - b); i <= j; i++)
                memcpy(UB(x, B, i, j), LX_AT(x, H, i - r0, j - c, ld), sizeof(double) * (size_t)w);
    }
}

typedef struct {
    ub_band *B;
    lx_hous *hl, *hr;
} gb2bd_ctx;

/* Step k of sweep s: the right reflector (s, k) of columns c = s+1+kb.. and the left one of
 * the same rows; it touches rows and columns s + 1 + (k - 1) b to s + 1 + (k + 2) b only (s
 * to s + 1 + 2b for k = 0): sweep s - 1's steps up to k + 3 can meet it (lag 4). */
static int gb2bd_step(const oz_lx *x, void *ctx, int64_t s, int64_t k, double *work)
{
    gb2bd_ctx *g = ctx;
    ub_band *B = g->B;
    int64_t n = B->n, b = B->b, w = x->cplx ? 2 : 1, ld = 3 * b;
    int64_t c = s + 1 + k * b, r = k ? c - b : s, len = min64(b, n - c);
    double *vl = g->hl->v + w * lx_hous_pos(g->hl, s), *tl = g->hl->tau + w * s * g->hl->kmax;
    double *vr = g->hr->v + w * lx_hous_pos(g->hr, s), *tr = g->hr->tau + w * s * g->hr->kmax;
    double *v = LX_AT(x, vr, k * b, 0, 1), *tau = LX_AT(x, tr, k, 0, 1);
    /* right (s, k): row r's conjugate from column c, so that row r H = (beta, 0) */
    for (int64_t i = 0; i < len; i++) {
        double *a = UB(x, B, r, c + i);
        memcpy(LX_AT(x, v, i, 0, 1), a, sizeof(double) * (size_t)w);
        if (w == 2)
            v[2 * i + 1] = -v[2 * i + 1];
        if (i)
            memset(a, 0, sizeof(double) * (size_t)w);
    }
    double alpha[2] = {v[0], w == 2 ? v[1] : 0.0};
    lx_larfg(x, len, alpha, LX_AT(x, v, 1, 0, 1), tau);
    memcpy(UB(x, B, r, c), alpha, sizeof(double) * (size_t)w); /* beta: real */
    v[0] = 1.0;
    if (w == 2)
        v[1] = 0.0;
    lx_larfx(x, 'R', c + len - 1 - r, len, v, tau, UB(x, B, r + 1, c), ld, work);
    /* left (s, k): column c below its diagonal; H^H from the left */
    v = LX_AT(x, vl, k * b, 0, 1);
    tau = LX_AT(x, tl, k, 0, 1);
    for (int64_t i = 1; i < len; i++) {
        memcpy(LX_AT(x, v, i, 0, 1), UB(x, B, c + i, c), sizeof(double) * (size_t)w);
        memset(UB(x, B, c + i, c), 0, sizeof(double) * (size_t)w);
    }
    lx_larfg(x, len, UB(x, B, c, c), LX_AT(x, v, 1, 0, 1), tau);
    v[0] = 1.0;
    if (w == 2)
        v[1] = 0.0;
    double conj_tau[2] = {tau[0], w == 2 ? -tau[1] : 0.0};
    int64_t nc = min64(n - c - 1, len - 1 + b);
    lx_larfx(x, 'L', len, nc, v, conj_tau, UB(x, B, c, c + 1), ld, work);
    return c + b < n;
}

/* Stage 2 of the bidiagonal reduction: the upper band B (width b) := real upper bidiagonal
 * (d: n, e: n - 1) by bulge chasing, the sweeps pipelined on the host threads (lx_sweeps):
 * sweep s annihilates row s right of its superdiagonal by the right reflector (s, 0) of
 * columns s+1..s+b, whose application to the rows below leaves a bulge under the diagonal
 * block, which the left reflector (s, 0) of the same rows annihilates (column s + 1 below its
 * diagonal), leaving a bulge right of the band in those rows; the right reflector (s, k) of
 * columns c = s+1+kb..c+b annihilates it (row c - b right of column c), and so on down. hl,
 * hr (n, b, off 1, n - 1 sweeps): the left and right reflectors; work: 2b elements. */
static void gb2bd(const oz_lx *x, ub_band *B, double *d, double *e, lx_hous *hl, lx_hous *hr,
                  double *work)
{
    int64_t n = B->n;
    lx_clock clk = lx_tic(x);
    gb2bd_ctx g = {B, hl, hr};
    lx_sweeps(x, n - 1, 4, gb2bd_step, &g, (x->cplx ? 4 : 2) * B->b, work);
    for (int64_t i = 0; i < n; i++) {
        d[i] = UB(x, B, i, i)[0];
        if (i + 1 < n)
            e[i] = UB(x, B, i, i + 1)[0];
    }
    lx_toc(x, clk, &x->rep->chase_seconds);
}

/* ---- the two-stage bidiagonal reduction (oz_lapack.h: lx_bd) --------------------------- */

ozblas_status lx_bd_reduce(oz_lx *x, lx_bd *bd, int vectors, int64_t m, int64_t n, double *W,
                           int64_t ldw, int64_t wdim, double *d)
{
    int64_t wd = x->cplx ? 2 : 1;
    int64_t b = lx_band_width(x, OZBLAS_LAPACK_BAND_SVD, m, n, vectors ? n : wdim);
    *bd = (lx_bd){.m = m, .n = n, .b = b, .W = W, .ldw = ldw};
    ub_band B = {n, b, oz_calloc((size_t)(wd * (3 * b + 1) * n + wd), sizeof(double))};
    bd->tau = oz_malloc(sizeof(double) * (size_t)(wd * 2 * n + n + 1));
    bd->Vh = oz_malloc(sizeof(double) * (size_t)(wd * ((b + LX_HOUS_VB) * LX_HOUS_VB +
                                                    LX_HOUS_VB + 2 * b + 1)));
    ozblas_status st = OZBLAS_ERR_ALLOCATION;
    if (!B.g || !bd->tau || !bd->Vh || lx_hous_alloc(x, &bd->hl, n, b, 1, n - 1) ||
        lx_hous_alloc(x, &bd->hr, n, b, 1, n - 1))
        goto out;
    if ((st = lx_hh_alloc(x, &bd->q, m, max64(m, wdim), 0)) != OZBLAS_OK)
        goto out;
    bd->e = bd->tau + wd * 2 * n;
    double *hw = bd->Vh + wd * ((b + LX_HOUS_VB) * LX_HOUS_VB + LX_HOUS_VB);
    ge2gb(x, &bd->q, m, n, b, W, ldw, bd->tau, bd->tau + wd * n);
    lx_clock clk = lx_tic(x);
    band_get(x, &B, W, ldw);
    lx_toc(x, clk, &x->rep->copy_seconds);
    if (!x->failed)
        gb2bd(x, &B, d, bd->e, &bd->hl, &bd->hr, hw);
out:
    free(B.g);
    return st;
}

void lx_bd_free(oz_lx *x, lx_bd *bd)
{
    lx_hh_free(x, &bd->q);
    lx_hous_free(&bd->hl);
    lx_hous_free(&bd->hr);
    free(bd->tau);
    free(bd->Vh);
    *bd = (lx_bd){0};
}

void lx_bd_stage2(oz_lx *x, lx_bd *bd, char vect, char side, char trans, int64_t nother,
                  double *C, int64_t ldc)
{
    int64_t wd = x->cplx ? 2 : 1;
    lx_hous_apply(x, &bd->q, vect == 'Q' ? &bd->hl : &bd->hr, side, trans, nother, C, ldc,
                  bd->Vh, bd->Vh + wd * (bd->b + LX_HOUS_VB) * LX_HOUS_VB);
}

void lx_bd_stage1(oz_lx *x, lx_bd *bd, char vect, char side, char trans, int64_t nother,
                  double *C, int64_t ldc)
{
    int64_t wd = x->cplx ? 2 : 1, n = bd->n, b = bd->b, l = side == 'L';
    lx_clock clk = lx_tic(x);
    if (vect == 'Q') {
        int64_t m = bd->m;
        lx_ormqr(x, &bd->q, 0, side, trans, l ? m : nother, l ? nother : m, n, bd->W, bd->ldw,
                 bd->tau, C, ldc);
    } else if (n > b) { /* P1 acts on rows (columns) b..n-1 */
        lx_ormqr(x, &bd->q, 1, side, trans, l ? n - b : nother, l ? nother : n - b, n - b,
                 LX_AT(x, bd->W, 0, b, bd->ldw), bd->ldw, bd->tau + wd * n,
                 l ? LX_AT(x, C, b, 0, ldc) : LX_AT(x, C, 0, b, ldc), ldc);
    }
    lx_toc(x, clk, &x->rep->back_seconds);
}

void lx_bd_apply(oz_lx *x, lx_bd *bd, char vect, char side, char trans, int64_t nother,
                 double *C, int64_t ldc)
{
    /* Q = Q1 diag(Q2, I), P = P1 P2: Q C, C Q^H apply the inner stage 2 first */
    if ((side == 'L') == (trans == 'N')) {
        lx_bd_stage2(x, bd, vect, side, trans, nother, C, ldc);
        lx_bd_stage1(x, bd, vect, side, trans, nother, C, ldc);
    } else {
        lx_bd_stage1(x, bd, vect, side, trans, nother, C, ldc);
        lx_bd_stage2(x, bd, vect, side, trans, nother, C, ldc);
    }
}

/* ---- the two-stage SVD of a tall matrix ---------------------------------------------------- */

/* A = U S V^H for W (m x n, m >= n > 0, destroyed): s (n); with wu, U (m x ucols, ucols n or
 * m: the identity's last columns extended), with wv VT = V^H (n x n); the bidiagonal by the
 * host bdsqr (sq) or dbdsdc (both vectors or neither). */
static ozblas_status svd_tall(oz_lx *x, int sq, int wu, int wv, int64_t m, int64_t n,
                              double *W, int64_t ldw, double *s, double *U, int64_t ldu,
                              int64_t ucols, double *VT, int64_t ldvt, int64_t *info)
{
    lx_bd bd = {0};
    int vec = wu || wv;
    /* dbdsdc straight into the caller's U and VT where they are real host blocks of order n,
       leading dimension n (a square gesdd): two copies of order n^2 and their workspace less */
    int direct = !sq && wu && wv && !x->dev && !x->cplx && m == n && ucols == n && ldu == n &&
                 ldvt == n;
    double *own = vec && !direct ? oz_malloc(sizeof(double) * (size_t)(2 * n * n)) : NULL;
    double *UB = direct ? U : own, *VTB = direct ? VT : own ? own + n * n : NULL;
    ozblas_status st = vec && !UB ? OZBLAS_ERR_ALLOCATION
                                  : lx_bd_reduce(x, &bd, vec, m, n, W, ldw, vec ? m : 0, s);
    if (st != OZBLAS_OK || x->failed)
        goto out;
    if (sq)
        bdsqr(x, wu, wv, n, s, bd.e, UB, VTB, info);
    else {
        lx_clock clk = lx_tic(x); /* the merges' products are not the solver's host time */
        lx_bdsdc(x, 'U', vec, n, s, bd.e, UB, VTB, info);
        lx_toc(x, clk, &x->rep->solver_seconds);
    }
    if (!vec || *info != 0 || x->failed)
        goto out;
    if (wu) { /* U = Q1 diag(Q2 U_B, I): stage 2 on the n columns of U_B only */
        lx_clock clk = lx_tic(x);
        if (!direct) {
            lx_put_real(x, n, n, UB, U, ldu);
            lx_zero(x, m - n, n, LX_AT(x, U, n, 0, ldu), ldu);
            lx_unit_columns(x, 0, m, n, ucols, U, ldu);
        }
        lx_toc(x, clk, &x->rep->copy_seconds);
        lx_bd_stage2(x, &bd, 'Q', 'L', 'N', n, U, ldu);
        lx_bd_stage1(x, &bd, 'Q', 'L', 'N', ucols, U, ldu);
    }
    if (wv) { /* V^H = V_B^H P^H */
        lx_clock clk = lx_tic(x);
        if (!direct)
            lx_put_real(x, n, n, VTB, VT, ldvt);
        lx_toc(x, clk, &x->rep->copy_seconds);
        lx_bd_apply(x, &bd, 'P', 'R', ct(x), n, VT, ldvt);
    }
out:
    lx_bd_free(x, &bd);
    free(own);
    return st;
}

/* m >> n (LAPACK's m >= 11 n / 6): W = Q R first (geqrf's driver), the SVD of R (n x n, in
 * R, leading dimension n), then U = Q diag(U_R, I) by ormqr's driver. */
static ozblas_status qr_first(oz_lx *x, int sq, int wu, int wv, int64_t m, int64_t n, double *W,
                              double *R, double *s, double *U, int64_t ldu, int64_t ucols,
                              double *VT, int64_t ldvt, int64_t *info)
{
    int64_t wd = x->cplx ? 2 : 1, qinfo = 0;
    lx_hh q = {0};
    double *tau = oz_malloc(sizeof(double) * (size_t)(wd * n));
    ozblas_status st = tau ? lx_hh_alloc(x, &q, m, max64(m, ucols), 0) : OZBLAS_ERR_ALLOCATION;
    if (st == OZBLAS_OK) {
        lx_geqrf(x, &q, 0, m, n, W, m, tau, &qinfo);
        lx_clock clk = lx_tic(x);
        copy_mat(x, 0, n, n, W, m, R, n);
        zero_lower(x, n, R, n);
        lx_toc(x, clk, &x->rep->copy_seconds);
        st = svd_tall(x, sq, wu, wv, n, n, R, n, s, U, ldu, n, VT, ldvt, info);
    }
    if (st == OZBLAS_OK && wu && *info == 0 && !x->failed) {
        lx_zero(x, m - n, n, LX_AT(x, U, n, 0, ldu), ldu);
        lx_unit_columns(x, 0, m, n, ucols, U, ldu);
        lx_ormqr(x, &q, 0, 'L', 'N', m, ucols, n, W, m, tau, U, ldu);
    }
    lx_hh_free(x, &q);
    free(tau);
    return st;
}

/* ---- an order within one block: the host gesdd ------------------------------------------ */

/* The host gesdd (jobz ju) or, with sq, gesvd (jobu ju, jobvt jv), on host copies for device
 * memory (U: urows x ucols, VT: vrows x n written). */
static ozblas_status host_svd(oz_lx *x, int sq, char ju, char jv, int64_t m, int64_t n,
                              double *A, int64_t lda, double *s, double *U, int64_t ldu,
                              int64_t urows, int64_t ucols, double *VT, int64_t ldvt,
                              int64_t vrows, int64_t *info)
{
    char jobz = ju;
    int c = x->cplx;
    int64_t wd = c ? 2 : 1, mn = min64(m, n), mx = max64(m, n);
    int64_t la = lda, lu = ldu, lv = ldvt;
    double *HA = A, *HU = U, *HV = VT, *own = NULL;
    if (x->dev) { /* host copies: A, U, VT one after the other */
        la = max1(m), lu = max1(urows), lv = max1(vrows);
        own = oz_malloc(sizeof(double) * (size_t)(wd * (la * n + lu * ucols + lv * n) + 1));
        if (!own)
            return OZBLAS_ERR_ALLOCATION;
        HA = own, HU = HA + wd * la * n, HV = HU + wd * lu * ucols;
        lx_fetch_to(x, HA, la, A, lda, m, n, &la);
    }
    /* generous workspace, so that the host takes its blocked paths */
    int64_t lwork = 4 * mn * mn + 6 * mn + 2 * mx + 64 * (m + n) + 1;
    int64_t lrwork = c ? 5 * mn * mn + 7 * mn + 1 : 0;
    double *work = oz_malloc(sizeof(double) * (size_t)(wd * lwork + lrwork + 1));
    ozblas_status st = work ? OZBLAS_OK : OZBLAS_ERR_ALLOCATION;
    if (work && !x->failed)
        LX_F77(I m4 = (I)m, n4 = (I)n, la4 = (I)la, lu4 = (I)lu, lv4 = (I)lv, lw = (I)lwork;
            I inf4 = 0;
            I *iw = oz_malloc(sizeof(I) * (size_t)(8 * mn + 1));
            if (!iw)
                st = OZBLAS_ERR_ALLOCATION;
            else if (sq && !c)
                LX_HOST(0, dgesvd)(&ju, &jv, &m4, &n4, HA, &la4, s, HU, &lu4, HV, &lv4, work, &lw,
                                   &inf4, 1, 1);
            else if (sq)
                LX_HOST(1, zgesvd)(&ju, &jv, &m4, &n4, HA, &la4, s, HU, &lu4, HV, &lv4, work, &lw,
                                   work + wd * lwork, &inf4, 1, 1);
            else if (!c)
                LX_HOST(0, dgesdd)(&jobz, &m4, &n4, HA, &la4, s, HU, &lu4, HV, &lv4, work, &lw, iw,
                                   &inf4, 1);
            else
                LX_HOST(1, zgesdd)(&jobz, &m4, &n4, HA, &la4, s, HU, &lu4, HV, &lv4, work, &lw,
                                   work + wd * lwork, iw, &inf4, 1);
            *info = inf4;
            free(iw););
    free(work);
    if (x->dev && st == OZBLAS_OK) {
        if (ju == 'O' || jv == 'O')
            lx_store(x, HA, la, A, lda, m, n);
        if (urows > 0)
            lx_store(x, HU, lu, U, ldu, urows, ucols);
        if (vrows > 0)
            lx_store(x, HV, lv, VT, ldvt, vrows, n);
    }
    free(own);
    x->rep->host_flops += (c ? 4.0 : 1.0) * (4.0 * (double)mx * (double)mn * (double)mn);
    return st;
}

/* ---- the driver ------------------------------------------------------------------------- */

/* The two-stage path, jobs as gesvd's jobu ju and jobvt jv ('A', 'S', 'O': into A, 'N'); sq:
 * bdsqr (gesvd), else dbdsdc. W := A (m >= n) or A^H, its largest element brought into range
 * as LAPACK's drivers do, then svd_tall; for m < n the roles of U and V swap (A^H = U' S V'^H:
 * U = V', V^H = U'^H), U' and VT' land in scratch and come out conjugated and transposed. */
static ozblas_status two_stage(oz_lx *x, int sq, char ju, char jv, int64_t m, int64_t n,
                               double *A, int64_t lda, double *s, double *U, int64_t ldu,
                               double *VT, int64_t ldvt, int64_t *info)
{
    int tall = m >= n;
    char tu = tall ? ju : jv, tv = tall ? jv : ju; /* the tall problem's jobs */
    int wu = tu != 'N', wv = tv != 'N';
    int64_t wd = x->cplx ? 2 : 1, M = tall ? m : n, N = tall ? n : m;
    /* the tall problem's U columns: N, or M for 'A' */
    int64_t uc = tu == 'A' ? M : N;
    /* A itself is W where the call destroys it (tall, no job 'O': LAPACK's gesdd and gesvd
       leave A undefined) and no QR comes first: one copy of the matrix and its first touch
       less (a host run has kept A for its fallback); else W, then R (m >> n), then the tall
       problem's U and VT (m < n) */
    int qr = M >= N * 11 / 6 && M > N, own = !tall || ju == 'O' || jv == 'O' || qr;
    int64_t elems = !own ? 0 : M * N + N * N + (tall ? 0 : (wu ? M * uc : 0) + (wv ? N * N : 0));
    double *host = x->dev ? NULL : oz_malloc(sizeof(double) * (size_t)(wd * elems + 1));
    double *W = x->dev || host ? lx_scratch(x, host, elems) : NULL;
    if (!W) {
        free(host);
        return x->dev ? OZBLAS_ERR_DEVICE : OZBLAS_ERR_ALLOCATION;
    }
    double *Wa = own ? W : A;
    int64_t lw = own ? M : lda;
    lx_clock clk = lx_tic(x);
    double anrm = own ? copy_mat(x, !tall, m, n, A, lda, W, M) : lx_max_abs(x, m, n, A, lda);
    double sigma = lx_into_range(anrm, sqrt(DBL_MIN) / DBL_EPSILON); /* dgesdd's range */
    if (sigma != 1.0) {
        double sg[2] = {sigma, 0.0};
        lx_scale(x, M, N, sg, Wa, lw);
    }
    lx_toc(x, clk, &x->rep->copy_seconds);
    double *R = own ? W + wd * M * N : NULL, *TU, *TV; /* the tall problem's U and VT */
    int64_t ltu, ltv;
    if (tall) {
        TU = ju == 'O' ? A : U, ltu = ju == 'O' ? lda : ldu;
        TV = jv == 'O' ? A : VT, ltv = jv == 'O' ? lda : ldvt;
    } else {
        TU = R + wd * N * N, ltu = M, TV = TU + wd * (wu ? M * uc : 0), ltv = N;
    }
    ozblas_status st = OZBLAS_OK;
    if (isnan(anrm) && !sq) /* LAPACK's gesdd (3.7 on) refuses A with a NaN as argument 4 */
        *info = -4;
    else if (!x->failed && qr)
        st = qr_first(x, sq, wu, wv, M, N, W, R, s, TU, ltu, uc, TV, ltv, info);
    else if (!x->failed)
        st = svd_tall(x, sq, wu, wv, M, N, Wa, lw, s, TU, ltu, uc, TV, ltv, info);
    clk = lx_tic(x);
    if (st == OZBLAS_OK && !tall && *info == 0) {
        if (wv) /* U = V' (m x m) */
            copy_mat(x, 1, N, N, TV, ltv, ju == 'O' ? A : U, ju == 'O' ? lda : ldu);
        if (wu) /* V^H = U'^H (uc x n) */
            copy_mat(x, 1, M, uc, TU, ltu, jv == 'O' ? A : VT, jv == 'O' ? lda : ldvt);
    }
    lx_toc(x, clk, &x->rep->copy_seconds);
    if (sigma != 1.0) /* as LAPACK's drivers, unconverged too */
        for (int64_t i = 0; i < N; i++)
            s[i] /= sigma;
    lx_scratch_free(x, W);
    free(host);
    return st;
}

int64_t oz_gesdd_check(char jobz, int64_t m, int64_t n, int64_t lda, int64_t ldu, int64_t ldvt)
{
    jobz = up(jobz);
    int64_t mn = min64(m, n);
    int wntqa = jobz == 'A', wntqs = jobz == 'S', wntqo = jobz == 'O';
    if (!wntqa && !wntqs && !wntqo && jobz != 'N')
        return -1;
    if (m < 0)
        return -2;
    if (n < 0)
        return -3;
    if (lda < max1(m))
        return -5;
    if (ldu < 1 || ((wntqa || wntqs || (wntqo && m < n)) && ldu < m))
        return -8;
    if (ldvt < 1 || (wntqa && ldvt < n) || (wntqs && ldvt < mn) || (wntqo && m >= n && ldvt < n))
        return -10;
    return 0;
}

/* Nominal: the bidiagonal reduction (4 m n^2 - 4/3 n^3 for m >= n), with vectors the
 * back-transformations of U (m x min or m x m) and V (n x n) as ormbr counts them. */
double oz_gesdd_flops(int cplx, char jobz, int64_t m, int64_t n)
{
    double a = (double)max64(m, n), k = (double)min64(m, n), f = 4.0 * a * k * k - 4.0 / 3.0 * k * k * k;
    char j = up(jobz);
    if (j != 'N') {
        double uc = j == 'A' ? a : k;
        f += 2.0 * uc * k * (2.0 * a - k) + 2.0 * k * k * k;
    }
    return (cplx ? 4.0 : 1.0) * f;
}

/* gesdd's and gesvd's run (sq: gesvd): the host routine with jobs (hu, hv) within one block,
 * else the two-stage route with gesvd's jobs (ju, jv); U: urows x ucols, VT: vrows x n
 * written. */
static ozblas_status svd_body(ozblas_context *ctx, int cplx, int sq, char hu, char hv, char ju,
                              char jv, int64_t m, int64_t n, double *A, int64_t lda, double *s,
                              double *U, int64_t ldu, int64_t urows, int64_t ucols, double *VT,
                              int64_t ldvt, int64_t vrows, double flops, int64_t *info,
                              int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report)
{
    int64_t mn = min64(m, n);
    if (mn == 0)
        urows = vrows = 0;
    BEGIN(cplx, mn, flops, max1(max64(m, n)), LX_OP(A, lda, m, n, 1),
          LX_OP(U, ldu, urows, ucols, 2), LX_OP(VT, ldvt, vrows, n, 2))
    if (!svd_ready(cplx, sq))
        END_WITH(OZBLAS_ERR_NO_HOST_BLAS);
    if (mn == 0)
        END();
    int target = x.o.target;
    x.o.target = OZBLAS_TARGET_NORMWISE; /* Householder products (numerics/ozaki2.h) */
    ozblas_status st =
        mn <= x.nb ? host_svd(&x, sq, hu, hv, m, n, A, lda, s, U, ldu, urows, ucols, VT, ldvt,
                              vrows, info)
                   : two_stage(&x, sq, ju, jv, m, n, A, lda, s, U, ldu, VT, ldvt, info);
    x.o.target = target;
    END_WITH(st);
}

static ozblas_status gesdd_body(ozblas_context *ctx, int cplx, char jobz, int64_t m, int64_t n,
                                double *A, int64_t lda, double *s, double *U, int64_t ldu,
                                double *VT, int64_t ldvt, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    if ((*info = oz_gesdd_check(jobz, m, n, lda, ldu, ldvt)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    jobz = up(jobz);
    int64_t mn = min64(m, n);
    /* what the call writes: U (m x m for 'A', m x min 'S', m x m 'O' with m < n), VT */
    int64_t urows = 0, ucols = 0, vrows = 0;
    if (jobz == 'A' || jobz == 'S' || (jobz == 'O' && m < n))
        urows = m, ucols = jobz == 'S' ? mn : m;
    if (jobz == 'A' || (jobz == 'O' && m >= n))
        vrows = n;
    else if (jobz == 'S')
        vrows = mn;
    /* as gesvd's jobs: 'O' is U over A for m >= n, V^H over A for m < n */
    char ju = jobz == 'O' ? (m >= n ? 'O' : 'S') : jobz, jv = jobz == 'O' ? (m >= n ? 'S' : 'O') : jobz;
    return svd_body(ctx, cplx, 0, jobz, jobz, ju, jv, m, n, A, lda, s, U, ldu, urows, ucols, VT,
                    ldvt, vrows, oz_gesdd_flops(cplx, jobz, m, n), info, nb, opt, report);
}

LX_DZ(gesdd, gesdd,
      (char jobz, int64_t m, int64_t n, double *A, int64_t lda, double *s, double *U, int64_t ldu,
       double *VT, int64_t ldvt, int64_t *info),
      gesdd_body, jobz, m, n, A, lda, s, U, ldu, VT, ldvt, info)

/* ---- gesvd -------------------------------------------------------------------------------- */

int64_t oz_gesvd_check(char jobu, char jobvt, int64_t m, int64_t n, int64_t lda, int64_t ldu,
                       int64_t ldvt)
{
    jobu = up(jobu), jobvt = up(jobvt);
    int64_t mn = min64(m, n);
    int ua = jobu == 'A', us = jobu == 'S', va = jobvt == 'A', vs = jobvt == 'S';
    if (!ua && !us && jobu != 'O' && jobu != 'N')
        return -1;
    if ((!va && !vs && jobvt != 'O' && jobvt != 'N') || (jobu == 'O' && jobvt == 'O'))
        return -2;
    if (m < 0)
        return -3;
    if (n < 0)
        return -4;
    if (lda < max1(m))
        return -6;
    if (ldu < 1 || ((ua || us) && ldu < m))
        return -9;
    if (ldvt < 1 || (va && ldvt < n) || (vs && ldvt < mn))
        return -11;
    return 0;
}

/* Nominal: the bidiagonal reduction, then ormbr's counts for the vectors wanted: the long
 * side's (U for m >= n) min(m, n) or all columns, the short side's k x k. */
double oz_gesvd_flops(int cplx, char jobu, char jobvt, int64_t m, int64_t n)
{
    double a = (double)max64(m, n), k = (double)min64(m, n), f = 4.0 * a * k * k - 4.0 / 3.0 * k * k * k;
    char lj = up(m >= n ? jobu : jobvt), sj = up(m >= n ? jobvt : jobu);
    if (lj != 'N')
        f += 2.0 * (lj == 'A' ? a : k) * k * (2.0 * a - k);
    if (sj != 'N')
        f += 2.0 * k * k * k;
    return (cplx ? 4.0 : 1.0) * f;
}

static ozblas_status gesvd_body(ozblas_context *ctx, int cplx, char jobu, char jobvt, int64_t m,
                                int64_t n, double *A, int64_t lda, double *s, double *U,
                                int64_t ldu, double *VT, int64_t ldvt, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    if ((*info = oz_gesvd_check(jobu, jobvt, m, n, lda, ldu, ldvt)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    jobu = up(jobu), jobvt = up(jobvt);
    int64_t mn = min64(m, n);
    /* what the call writes: U (m x m for 'A', m x min for 'S'), VT (n or min rows) */
    int64_t urows = jobu == 'A' || jobu == 'S' ? m : 0, ucols = jobu == 'A' ? m : mn;
    int64_t vrows = jobvt == 'A' ? n : jobvt == 'S' ? mn : 0;
    return svd_body(ctx, cplx, 1, jobu, jobvt, jobu, jobvt, m, n, A, lda, s, U, ldu, urows, ucols,
                    VT, ldvt, vrows, oz_gesvd_flops(cplx, jobu, jobvt, m, n), info, nb, opt,
                    report);
}

LX_DZ(gesvd, gesvd,
      (char jobu, char jobvt, int64_t m, int64_t n, double *A, int64_t lda, double *s, double *U,
       int64_t ldu, double *VT, int64_t ldvt, int64_t *info),
      gesvd_body, jobu, jobvt, m, n, A, lda, s, U, ldu, VT, ldvt, info)

/* ---- least squares through the bidiagonal (gelsd, gelss) ----------------------------------- */

/* gelss's (sq 1: bdsqr, the host gelss) or gelsd's (lapack_lalsd.c, bdsdc, the host gelsd) */
static int lstsq_ready(int cplx, int sq)
{
    static const int ids[2][2] = {{LXH_dgelsd, LXH_dgelss}, {LXH_zgelsd, LXH_zgelss}};
    return lx_hh_ready(cplx) && lx_band_ready(cplx) && lx_host_fn(cplx, ids[cplx][sq]) &&
           (sq ? lx_host_fn(cplx, LXH_bdsqr) != NULL : lx_lalsd_ready(cplx) && lx_bdsdc_ready());
}

/* gelss's bidiagonal solve: the host bdsqr on (d, e) with VT := I (n x n, the element type's,
 * host) and C (host, n x nrhs): VT := the bidiagonal's right singular vectors, C := U_B^H C,
 * then row i of C divided by s_i > thr = max(rcond s_1, safe minimum) (rcond < 0: machine
 * epsilon), else zeroed, as dgelss; the rank. Its flops counted as two QR sweeps per singular
 * value, a rotation 6 flops per column of VT and C (twice for complex columns): a model. */
static void bd_bdsqr(oz_lx *x, char uplo, int64_t n, int64_t nrhs, double *d, double *e,
                     double *VT, double *C, int64_t ldc, double rcond, int64_t *rank,
                     int64_t *info)
{
    int c = x->cplx;
    int64_t wd = c ? 2 : 1;
    double dn = (double)n;
    x->rep->host_flops += (c ? 24.0 : 12.0) * dn * dn * (dn + (double)nrhs);
    eye(wd, n, VT);
    host_bdsqr(x, c, uplo, n, n, 0, nrhs, d, e, VT, NULL, C, ldc, info);
    *rank = 0;
    if (x->failed)
        return;
    if (*info != 0)
        return;
    double thr = (rcond < 0.0 ? DBL_EPSILON : rcond) * (n > 0 ? d[0] : 0.0);
    thr = thr > DBL_MIN ? thr : DBL_MIN;
    for (int64_t i = 0; i < n; i++) {
        int keep = d[i] > thr;
        *rank += keep;
        for (int64_t j = 0; j < nrhs; j++)
            for (int64_t p = 0; p < wd; p++) {
                double *v = C + wd * (i + j * ldc) + p;
                *v = keep ? *v / d[i] : 0.0;
            }
    }
}

/* An order within one block: the host gelsd or gelss (sq) on host copies for device memory,
 * with the workspace its query asks for. */
static ozblas_status host_lstsq(oz_lx *x, int sq, int64_t m, int64_t n, int64_t nrhs,
                                double *A, int64_t lda, double *B, int64_t ldb, double *s,
                                double rcond, int64_t *rank, int64_t *info)
{
    int c = x->cplx;
    int64_t wd = c ? 2 : 1, mn = min64(m, n), mx = max64(m, n), la = lda, lb = ldb;
    double *HA = A, *HB = B, *own = NULL;
    if (x->dev) {
        la = max1(m), lb = max1(mx);
        own = oz_malloc(sizeof(double) * (size_t)(wd * (la * n + lb * nrhs) + 1));
        if (!own)
            return OZBLAS_ERR_ALLOCATION;
        HA = own, HB = own + wd * la * n;
        lx_fetch_to(x, HA, la, A, lda, m, n, &la);
        lx_fetch_to(x, HB, lb, B, ldb, m, nrhs, &lb);
    }
    ozblas_status st = OZBLAS_OK;
    if (!x->failed)
        LX_F77(I m4 = (I)m, n4 = (I)n, r4 = (I)nrhs, la4 = (I)la, lb4 = (I)lb, lw = -1;
            I rk = 0, inf4 = 0, iq[1] = {0};
            double wq[2] = {0.0, 0.0}, rq[1] = {0.0};
            /* the query: work[0] (and iwork[0], rwork[0] for gelsd) */
            if (sq && !c)
                LX_HOST(0, dgelss)(&m4, &n4, &r4, HA, &la4, HB, &lb4, s, &rcond, &rk, wq, &lw,
                                   &inf4);
            else if (sq)
                LX_HOST(1, zgelss)(&m4, &n4, &r4, HA, &la4, HB, &lb4, s, &rcond, &rk, wq, &lw, rq,
                                   &inf4);
            else if (!c)
                LX_HOST(0, dgelsd)(&m4, &n4, &r4, HA, &la4, HB, &lb4, s, &rcond, &rk, wq, &lw, iq,
                                   &inf4);
            else
                LX_HOST(1, zgelsd)(&m4, &n4, &r4, HA, &la4, HB, &lb4, s, &rcond, &rk, wq, &lw, rq,
                                   iq, &inf4);
            lw = (I)wq[0] + 1;
            int64_t lr = c ? (sq ? 5 * mn : (int64_t)rq[0]) + 1 : 0, li = (int64_t)iq[0] + 1;
            double *work = oz_malloc(sizeof(double) * (size_t)(wd * lw + lr + 1));
            I *iw = oz_malloc(sizeof(I) * (size_t)(li + 8 * mn + 1));
            if (!work || !iw)
                st = OZBLAS_ERR_ALLOCATION;
            else if (sq && !c)
                LX_HOST(0, dgelss)(&m4, &n4, &r4, HA, &la4, HB, &lb4, s, &rcond, &rk, work, &lw,
                                   &inf4);
            else if (sq)
                LX_HOST(1, zgelss)(&m4, &n4, &r4, HA, &la4, HB, &lb4, s, &rcond, &rk, work, &lw,
                                   work + wd * lw, &inf4);
            else if (!c)
                LX_HOST(0, dgelsd)(&m4, &n4, &r4, HA, &la4, HB, &lb4, s, &rcond, &rk, work, &lw, iw,
                                   &inf4);
            else
                LX_HOST(1, zgelsd)(&m4, &n4, &r4, HA, &la4, HB, &lb4, s, &rcond, &rk, work, &lw,
                                   work + wd * lw, iw, &inf4);
            *rank = rk;
            *info = inf4;
            free(work);
            free(iw););
    if (x->dev && st == OZBLAS_OK) {
        lx_store(x, HA, la, A, lda, m, n);
        lx_store(x, HB, lb, B, ldb, mx, nrhs);
    }
    free(own);
    x->rep->host_flops += (c ? 4.0 : 1.0) * (4.0 * (double)mx * (double)mn * (double)mn +
                                             4.0 * (double)mx * (double)mn * (double)nrhs);
    return st;
}

/* H (host, rows x cols) into D, in the run's memory */
static void put_host(oz_lx *x, const double *H, int64_t ldh, int64_t rows, int64_t cols,
                     double *D, int64_t ldd)
{
    if (x->dev)
        lx_store(x, H, ldh, D, ldd, rows, cols);
    else
        copy_mat(x, 0, rows, cols, H, ldh, D, ldd);
}

/* The two-stage route. T = A (m >= n) or A^H (m < n), M x N with M >= N, scaled into range as
 * LAPACK's drivers do; for M >= 1.6 N (ilaenv's threshold for gelsd and gelss) T = Q0 R first
 * and R takes T's place. T = Q B P^H (lx_bd), so A = Q B P^H (tall; G = Q acts on B's rows,
 * F = P on X's, the bidiagonal upper) or A = P B^T Q^H (wide; G = P, F = Q, lower):
 * C := G^H B, the small problem on the host, X := F [X_B; 0] (and Q0 for a wide QR first).
 * B's rows n..m-1 keep (Q^H B)'s, whose squares sum to the residual (LAPACK's contract). gelss
 * writes A's first min(m, n) rows with V^H = VT_B F^H (and Q0^H). */
static ozblas_status lstsq_two_stage(oz_lx *x, int sq, int64_t m, int64_t n, int64_t nrhs,
                                     double *A, int64_t lda, double *B, int64_t ldb, double *s,
                                     double rcond, int64_t *rank, int64_t *info)
{
    int tall = m >= n;
    int64_t wd = x->cplx ? 2 : 1, M = tall ? m : n, N = tall ? n : m;
    int qr = M > N && M >= N * 8 / 5;
    int64_t Mb = qr ? N : M; /* the bidiagonalized matrix's rows */
    const double smlnum = DBL_MIN / DBL_EPSILON; /* dgelsd's range */
    /* W (M x N), R (N x N, QR first), gelss's VT_B (N x N) and C (N x nrhs) */
    int64_t elems = M * N + (qr ? N * N : 0) + (sq ? N * N + N * nrhs : 0);
    double *host = x->dev ? NULL : oz_malloc(sizeof(double) * (size_t)(wd * elems + 1));
    double *W = x->dev || host ? lx_scratch(x, host, elems) : NULL;
    /* host: the small problem's C (N x nrhs; B itself for host memory) and gelss's VT_B */
    int64_t hc = x->dev ? N * nrhs : 0;
    double *HC = oz_malloc(sizeof(double) * (size_t)(wd * (hc + (sq ? N * N : 0)) + 1));
    double *tau0 = oz_malloc(sizeof(double) * (size_t)(wd * N + 1));
    lx_hh q0 = {0};
    lx_bd bd = {0};
    ozblas_status st = W && HC && tau0 ? OZBLAS_OK
                     : x->dev && !W   ? OZBLAS_ERR_DEVICE
                                      : OZBLAS_ERR_ALLOCATION;
    if (st != OZBLAS_OK)
        goto out;
    double anrm = copy_mat(x, !tall, m, n, A, lda, W, M);
    if (anrm == 0.0) { /* X = 0, s = 0, rank 0 */
        lx_zero(x, max64(m, n), nrhs, B, ldb);
        memset(s, 0, sizeof(double) * (size_t)N);
        *rank = 0;
        goto out;
    }
    double sa = lx_into_range(anrm, smlnum);
    if (sa != 1.0) {
        double sg[2] = {sa, 0.0};
        lx_scale(x, M, N, sg, W, M);
    }
    double sb = lx_into_range(lx_max_abs(x, m, nrhs, B, ldb), smlnum);
    if (sb != 1.0) {
        double sg[2] = {sb, 0.0};
        lx_scale(x, m, nrhs, sg, B, ldb);
    }
    if (!tall)
        lx_zero(x, n - m, nrhs, LX_AT(x, B, m, 0, ldb), ldb);
    double *Wb = W;
    if (qr) {
        int64_t qinfo = 0;
        if ((st = lx_hh_alloc(x, &q0, M, max64(M, nrhs), 0)) != OZBLAS_OK)
            goto out;
        lx_geqrf(x, &q0, 0, M, N, W, M, tau0, &qinfo);
        Wb = W + wd * M * N;
        copy_mat(x, 0, N, N, W, M, Wb, N);
        zero_lower(x, N, Wb, N);
        if (tall) /* B := Q0^H B */
            lx_ormqr(x, &q0, 0, 'L', ct(x), M, nrhs, N, W, M, tau0, B, ldb);
    }
    if (x->failed ||
        (st = lx_bd_reduce(x, &bd, sq, Mb, N, Wb, Mb, max64(nrhs, sq ? N : 0), s)) != OZBLAS_OK ||
        x->failed)
        goto out;
    char G = tall ? 'Q' : 'P', F = tall ? 'P' : 'Q';
    int64_t forder = tall ? N : Mb, ldc;
    lx_bd_apply(x, &bd, G, 'L', ct(x), nrhs, B, ldb);
    double *C = lx_fetch_to(x, HC, N, B, ldb, N, nrhs, &ldc), *VT = HC + wd * hc;
    if (x->failed)
        goto out;
    if (sq)
        bd_bdsqr(x, tall ? 'U' : 'L', N, nrhs, s, bd.e, VT, C, ldc, rcond, rank, info);
    else
        lx_lalsd(x, tall ? 'U' : 'L', N, nrhs, s, bd.e, C, ldc, rcond, rank, info);
    if (*info != 0 || x->failed)
        goto out;
    if (sq) { /* X_B = VT_B^H C as a product: both into the scratch, the product into B */
        double *SV = W + wd * (M * N + (qr ? N * N : 0)), *SC = SV + wd * N * N;
        put_host(x, VT, N, N, N, SV, N);
        put_host(x, C, ldc, N, nrhs, SC, N);
        lx_gemm(x, ct(x), 'N', N, nrhs, N, ONE, SV, N, SC, N, ZERO, B, ldb);
        /* V^H = [VT_B 0] F^H (and Q0^H) into A's first N rows */
        put_host(x, VT, N, N, N, A, lda);
        lx_zero(x, N, forder - N, LX_AT(x, A, 0, N, lda), lda);
        lx_bd_apply(x, &bd, F, 'R', ct(x), N, A, lda);
        if (qr && !tall) {
            lx_zero(x, N, M - N, LX_AT(x, A, 0, N, lda), lda);
            lx_ormqr(x, &q0, 0, 'R', ct(x), N, M, N, W, M, tau0, A, lda);
        }
    } else {
        lx_store(x, C, ldc, B, ldb, N, nrhs);
    }
    lx_zero(x, forder - N, nrhs, LX_AT(x, B, N, 0, ldb), ldb);
    lx_bd_apply(x, &bd, F, 'L', 'N', nrhs, B, ldb);
    if (qr && !tall) {
        lx_zero(x, M - N, nrhs, LX_AT(x, B, N, 0, ldb), ldb);
        lx_ormqr(x, &q0, 0, 'L', 'N', M, nrhs, N, W, M, tau0, B, ldb);
    }
    /* undone as dgelsd: X's n rows and s */
    if (sa != 1.0) {
        double sg[2] = {sa, 0.0};
        lx_scale(x, n, nrhs, sg, B, ldb);
        for (int64_t i = 0; i < N; i++)
            s[i] /= sa;
    }
    if (sb != 1.0) {
        double sg[2] = {1.0 / sb, 0.0};
        lx_scale(x, n, nrhs, sg, B, ldb);
    }
out:
    lx_bd_free(x, &bd);
    lx_hh_free(x, &q0);
    if (W)
        lx_scratch_free(x, W);
    free(host);
    free(HC);
    free(tau0);
    return st;
}

/* Nominal: the bidiagonal reduction, Q^H B and P X_B (dgelsd's gebrd and ormbr) */
double oz_gelsd_flops(int cplx, int64_t m, int64_t n, int64_t nrhs)
{
    double a = (double)max64(m, n), k = (double)min64(m, n), r = (double)nrhs;
    return (cplx ? 4.0 : 1.0) *
           (4.0 * a * k * k - 4.0 / 3.0 * k * k * k + 2.0 * r * k * (2.0 * a - k) + 2.0 * r * k * k);
}

static ozblas_status lstsq_body(ozblas_context *ctx, int cplx, int sq, int64_t m, int64_t n,
                                int64_t nrhs, double *A, int64_t lda, double *B, int64_t ldb,
                                double *s, double rcond, int64_t *rank, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    *rank = 0;
    if ((*info = oz_gelsy_check(m, n, nrhs, lda, ldb))) /* gelsd's and gelss's codes too */
        return OZBLAS_ERR_INVALID_ARGUMENT;
    int64_t mn = min64(m, n), mx = max64(m, n);
    BEGIN(cplx, mn, oz_gelsd_flops(cplx, m, n, nrhs), max1(max64(mx, nrhs)),
          LX_OP(A, lda, m, n, 1), LX_OP(B, ldb, mx, nrhs, 1))
    if (!lstsq_ready(cplx, sq))
        END_WITH(OZBLAS_ERR_NO_HOST_BLAS);
    if (mn == 0) /* LAPACK's quick return: rank 0, B as given (not gels's X = 0) */
        END();
    int target = x.o.target;
    x.o.target = OZBLAS_TARGET_NORMWISE; /* Householder products (numerics/ozaki2.h) */
    ozblas_status st = mn <= x.nb ? host_lstsq(&x, sq, m, n, nrhs, A, lda, B, ldb, s, rcond, rank, info)
                                  : lstsq_two_stage(&x, sq, m, n, nrhs, A, lda, B, ldb, s, rcond,
                                                    rank, info);
    x.o.target = target;
    END_WITH(st);
}

/* gelsd (sq 0) and gelss (1) */
#define LSTSQ_PARAMS                                                                           \
    (int64_t m, int64_t n, int64_t nrhs, double *A, int64_t lda, double *B, int64_t ldb,        \
     double *s, double rcond, int64_t *rank, int64_t *info)
LX_DZ(gelsd, gelsd, LSTSQ_PARAMS, lstsq_body, 0, m, n, nrhs, A, lda, B, ldb, s, rcond, rank, info)
LX_DZ(gelss, gelss, LSTSQ_PARAMS, lstsq_body, 1, m, n, nrhs, A, lda, B, ldb, s, rcond, rank, info)
