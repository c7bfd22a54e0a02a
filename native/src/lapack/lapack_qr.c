/* The Householder machinery: blocked QR and LQ with the compact WY form (LAPACK's dgeqrf,
 * dorgqr, dormqr, dgelqf, dorglq, dormlq; z: ungqr, unmqr, unglq, unmlq), written once for
 * double and complex double and for both storages of the reflectors; its block reflector and
 * larfb also serve the Hessenberg reduction (lapack_hess.c) and least squares (lapack_gels.c).
 *
 * A block of ib reflectors H = H(i) ... H(i+ib-1) is I - V T V^H (V unit lower trapezoidal,
 * T upper triangular, from the host larft). QR stores V below the diagonal; LQ stores the
 * reflectors conjugated, in rows right of the diagonal: A = L Q is A^H = Q^H L^H, a QR of
 * A^H, so the drivers below are written once for QR on a view of A (A itself, or A^H for
 * LQ: the view's (i, j) is A's (j, i), V made explicit from it conjugated, and the view's
 * C := op(H) C is A's C := C op(H)^H). The panels go to the host geqrf/gelqf (orgqr/orglq for
 * the last block of Q) or to the recursive panel QR (rqrt, its inner updates products); every
 * application of H to the rest (LAPACK's larfb) is two ozblas
 * GEMMs around a host trmm with the small T: C - V (op(T) (V^H C)) from the left,
 * C - ((C V) op(T)) V^H from the right, with V copied out explicitly (its unit diagonal and
 * zeros written in) so that each product is one GEMM over all its rows. Device memory
 * (lapack_seam.c): the host routines work on host copies of their blocks, V and T go up to a
 * device workspace with the middle term, the products and the matrices stay there. */
#include <stdlib.h>
#include <string.h>

#include "../core/oz_internal.h"
#include "oz_lapack.h"

/* ---- the host routines ------------------------------------------------------------------- */

static const int hh_ids[] = {LXH_geqrf, LXH_larft, LXH_orgqr, LXH_gelqf, LXH_orglq};

int lx_hh_ready(int cplx) { return lx_host_all(cplx, hh_ids, sizeof hh_ids / sizeof *hh_ids); }

/* geqrf, gelqf (m, n, A, lda, tau, work, lwork, info) and orgqr, orglq (m, n, k, ...) */
static void real_qr(const oz_lx *x, int r, int64_t m, int64_t n, int64_t k, double *A,
                    int64_t lda, const double *tau, double *work, int64_t lwork, int64_t *info)
{
    LX_F77(I m4 = (I)m, n4 = (I)n, k4 = (I)k, l4 = (I)lda, w4 = (I)lwork, inf4 = 0;
           if (r == LXH_geqrf || r == LXH_gelqf)
               LX_HOST_AS(x->cplx, geqrf, r)(&m4, &n4, A, &l4, tau, work, &w4, &inf4);
           else
               LX_HOST_AS(x->cplx, orgqr, r)(&m4, &n4, &k4, A, &l4, tau, work, &w4, &inf4);
           *info = inf4;);
}

/* T (ib x ib, ld ib) of the ib reflectors of order r stored in V (storev 'C': below the
 * diagonal of r x ib; 'R': right of the diagonal of ib x r) */
static void real_larft(const oz_lx *x, char s, int64_t r, int64_t ib, const double *V,
                       int64_t ldv, const double *tau, double *T)
{
    const char d = 'F';
    LX_F77(I r4 = (I)r, k4 = (I)ib, l4 = (I)ldv;
           LX_HOST(x->cplx, larft)(&d, &s, &r4, &k4, V, &l4, tau, T, &k4, 1, 1););
}

/* ---- the block reflector ------------------------------------------------------------- */

/* q->T (ib x ib, zero below) of q->V's ib reflectors (r x ib, explicit) from T^-1 =
 * diag(1 / tau) + the strict upper triangle of V^H V (LAPACK's forward columnwise T; Puglisi;
 * Joffrain et al., the UT transform): one host syrk and a trtri of order ib, Level 3, where
 * larft's recurrence is Level 2 (about 3x the time at 2048 x 128). 0 where it does not
 * apply: a tau of 0 (H = I: larft makes T's column 0), more reflectors than rows, no host
 * syrk. */
static int t_by_syrk(oz_lx *x, lx_hh *q, int64_t r, int64_t ib, const double *tau)
{
    int64_t w = x->cplx ? 2 : 1, info = 0;
    if (ib > r || !lx_host_fn(x->cplx, LXH_syrk))
        return 0;
    for (int64_t j = 0; j < ib; j++)
        if (tau[w * j] == 0.0 && (w == 1 || tau[w * j + 1] == 0.0))
            return 0;
    memset(q->T, 0, sizeof(double) * (size_t)(w * ib * ib));
    const char u = 'U', t = x->cplx ? 'C' : 'T';
    LX_F77(I k4 = (I)ib, r4 = (I)r;
           LX_HOST(x->cplx, syrk)(&u, &t, &k4, &r4, ONE, q->V, &r4, ZERO, q->T, &k4, 1, 1););
    for (int64_t j = 0; j < ib; j++) {
        double *d = LX_AT(x, q->T, j, j, ib), tr = tau[w * j], ti = w == 2 ? tau[2 * j + 1] : 0.0;
        double a = tr * tr + ti * ti;
        d[0] = tr / a;
        if (w == 2)
            d[1] = -ti / a;
    }
    lx_real_trtri(x, 'U', 'N', ib, q->T, ib, &info);
    lx_host_flops(x, (double)r * (double)ib * (double)ib + (double)ib * (double)ib * (double)ib / 3.0);
    return info == 0;
}

ozblas_status lx_hh_alloc(oz_lx *x, lx_hh *q, int64_t vrows, int64_t wdim, int64_t lrw)
{
    int64_t w = x->cplx ? 2 : 1, nb = x->nb;
    memset(q, 0, sizeof *q);
    q->lrw = max64(lrw, 32 * max64(max64(wdim, vrows), nb)); /* the host's own blocking */
    q->vrows = vrows;
    int64_t nw = nb * wdim, nd = 2 * vrows * nb + nb * nb + nw;
    q->V = oz_malloc(sizeof(double) * (size_t)(w * (nd + nb * nb + q->lrw) + 1));
    if (!q->V)
        return OZBLAS_ERR_ALLOCATION;
    q->T = q->V + w * vrows * nb;
    q->W = q->T + w * nb * nb;
    q->VT = q->W + w * nw;
    q->Tp = q->VT + w * vrows * nb;
    q->rw = q->Tp + w * nb * nb;
    q->dV = lx_scratch(x, q->V, nd);
    if (!q->dV)
        return OZBLAS_ERR_DEVICE;
    q->dT = q->dV + w * vrows * nb;
    q->W = q->dT + w * nb * nb;
    q->dVT = q->W + w * nw;
    return OZBLAS_OK;
}

void lx_hh_free(oz_lx *x, lx_hh *q)
{
    lx_scratch_free(x, q->dV);
    free(q->V);
    memset(q, 0, sizeof *q);
}

/* V (r x ib, ld r) := the explicit V of the ib reflectors stored in the view's r x ib block at
 * Vh (below its diagonal; row: right of it in A, conjugated): zeros above the unit diagonal */
static void explicit_v(const oz_lx *x, int row, int64_t r, int64_t ib, const double *Vh,
                       int64_t ldv, double *V)
{
    int64_t w = x->cplx ? 2 : 1;
    for (int64_t j = 0; j < ib; j++) {
        double *v = LX_AT(x, V, 0, j, r);
        memset(v, 0, sizeof(double) * (size_t)(w * min64(j + 1, r)));
        if (j >= r)
            continue;
        v[w * j] = 1.0;
        if (!row)
            memcpy(LX_AT(x, v, j + 1, 0, 1), LX_AT(x, Vh, j + 1, j, ldv),
                   sizeof(double) * (size_t)(w * (r - j - 1)));
        else
            for (int64_t i = j + 1; i < r; i++) {
                const double *s = LX_AT(x, Vh, j, i, ldv);
                v[w * i] = s[0];
                if (w == 2)
                    v[2 * i + 1] = -s[1];
            }
    }
}

void lx_hh_block(oz_lx *x, lx_hh *q, int row, const double *Vh, int64_t ldv, int64_t r,
                 int64_t ib, const double *tau, const double *T, int64_t ldt)
{
    int64_t w = x->cplx ? 2 : 1;
    explicit_v(x, row, r, ib, Vh, ldv, q->V);
    if (T)
        for (int64_t j = 0; j < ib; j++)
            memcpy(LX_AT(x, q->T, 0, j, ib), LX_AT(x, T, 0, j, ldt), sizeof(double) * (size_t)(w * ib));
    else {
        /* larft writes the upper triangle; the zeros below let a GEMM read T whole (the
           two-stage reduction's update, lapack_band.c) */
        lx_clock c = lx_tic(x);
        if (!t_by_syrk(x, q, r, ib, tau)) {
            memset(q->T, 0, sizeof(double) * (size_t)(w * ib * ib));
            real_larft(x, row ? 'R' : 'C', r, ib, Vh, ldv, tau, q->T);
            lx_host_flops(x, (double)r * (double)ib * (double)ib);
        }
        lx_toc(x, c, &x->rep->panel_seconds);
    }
    lx_store(x, q->V, r, q->dV, r, r, ib);
    lx_store(x, q->T, ib, q->dT, ib, ib, ib);
    q->vt_r = 0;
}

void lx_hh_panel_block(oz_lx *x, lx_hh *q, int row, const double *H, int64_t ldh, int64_t r,
                       int64_t ib, const double *tau)
{
    int mine = q->tpk == ib && q->tpr == r, col = mine && q->tpcol;
    q->tpk = 0;
    q->tpcol = 0;
    /* an LQ panel's reflectors read from its view's copy: the same V, with unit stride */
    lx_hh_block(x, q, col ? 0 : row, col ? q->VT : H, col ? r : ldh, r, ib, tau,
                mine ? q->Tp : NULL, ib);
}

/* q->VT (r x ib) := V T of the last block, on the host, and where the products read it */
static void make_vt(oz_lx *x, lx_hh *q, int64_t r, int64_t ib)
{
    if (q->vt_r == r)
        return;
    memcpy(q->VT, q->V, sizeof(double) * (size_t)((x->cplx ? 2 : 1) * r * ib));
    lx_real_trmm(x, 'R', 'U', 'N', 'N', r, ib, ONE, q->T, ib, q->VT, r);
    lx_host_flops(x, (double)r * (double)ib * (double)ib);
    lx_store(x, q->VT, r, q->dVT, r, r, ib);
    q->vt_r = r;
}

void lx_larfb(oz_lx *x, lx_hh *q, char side, char trans, int64_t mr, int64_t nc, int64_t ib,
              double *C, int64_t ldc)
{
    int64_t r = side == 'L' ? mr : nc;
    if (mr <= 0 || nc <= 0)
        return;
    char op = trans == 'N' ? 'N' : ct(x);
    if ((side == 'L' ? nc : mr) > r) {
        /* H = I - V T V^H = I - (V T) V^H, H^H = I - V (V T)^H: no trmm with the width */
        make_vt(x, q, r, ib);
        const double *P = op == 'N' ? q->dVT : q->dV, *R = op == 'N' ? q->dV : q->dVT;
        if (side == 'L') { /* C -= R (P^H C) */
            lx_gemm(x, ct(x), 'N', ib, nc, r, ONE, R, r, C, ldc, ZERO, q->W, ib);
            lx_gemm(x, 'N', 'N', r, nc, ib, MONE, P, r, q->W, ib, ONE, C, ldc);
        } else { /* C -= (C P) R^H */
            lx_gemm(x, 'N', 'N', mr, ib, r, ONE, C, ldc, P, r, ZERO, q->W, mr);
            lx_gemm(x, 'N', ct(x), mr, r, ib, MONE, q->W, mr, R, r, ONE, C, ldc);
        }
        return;
    }
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

/* ---- the drivers, on the view ------------------------------------------------------------ */

/* Element (i, j) of the view: A's (i, j), or (j, i) for row */
static double *at(const oz_lx *x, int row, const double *A, int64_t i, int64_t j, int64_t lda)
{
    return (double *)(row ? LX_AT(x, A, j, i, lda) : LX_AT(x, A, i, j, lda));
}

/* The view's C (mr x nc) := op(H) C from the left: for row, A's C := C op(H)^H */
static void larfb_view(oz_lx *x, lx_hh *q, int row, char trans, int64_t mr, int64_t nc,
                       int64_t ib, double *C, int64_t ldc)
{
    if (row)
        lx_larfb(x, q, 'R', trans == 'N' ? ct(x) : 'N', nc, mr, ib, C, ldc);
    else
        lx_larfb(x, q, 'L', trans, mr, nc, ib, C, ldc);
}

/* D (cols x rows) := S^H, S rows x cols */
static void conj_transpose(const oz_lx *x, int64_t rows, int64_t cols, const double *S,
                           int64_t lds, double *D, int64_t ldd)
{
    int64_t w = x->cplx ? 2 : 1;
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            const double *s = LX_AT(x, S, i, j, lds);
            double *d = LX_AT(x, D, j, i, ldd);
            d[0] = s[0];
            if (w == 2)
                d[1] = -s[1];
        }
}

/* The recursive panel QR's leaf width, the one place its split is decided: a panel of more
 * columns is split in two (Elmroth and Gustavson), its halves' updates and T's join ozblas
 * products; a leaf is the host geqrt3's. Only for native products: measured at 2048 x 128
 * on the CPU (docs/design/lapack.md, "The host remainder"), leaves of 32 columns took 40% of
 * the panel's host time away for products 1.3 times as long as that; emulated products
 * (Ozaki II) of these widths took 40 to 110 times the host time they replace. The rule reads
 * the method only, never the executor, so that both executors issue the same products. */
static int64_t qrt_leaf(const oz_lx *x, int64_t n)
{
    return x->opt->method == OZBLAS_METHOD_NATIVE ? 32 : n;
}

/* C (m x n, host) := alpha op(A) B + beta C, A, B on the host, one product of the run. On
 * device memory its operands go through the block reflector's device buffers (A into dV, the
 * taller of B and C into dVT, the other into dT: a panel's at most vrows x nb, vrows x nb and
 * nb x nb) and C comes back, so that both executors issue the same product. */
static void host_gemm(oz_lx *x, lx_hh *q, char ta, int64_t m, int64_t n, int64_t k,
                      const double *alpha, const double *A, int64_t lda, const double *B,
                      int64_t ldb, const double *beta, double *C, int64_t ldc)
{
    if (!x->dev) {
        lx_gemm(x, ta, 'N', m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    int64_t ra = ta == 'N' ? m : k, ca = ta == 'N' ? k : m, ld;
    double *dB = k >= m ? q->dVT : q->dT, *dC = k >= m ? q->dT : q->dVT;
    lx_store(x, A, lda, q->dV, ra, ra, ca);
    lx_store(x, B, ldb, dB, k, k, n);
    if (beta[0] != 0.0 || (x->cplx && beta[1] != 0.0))
        lx_store(x, C, ldc, dC, m, m, n);
    lx_gemm(x, ta, 'N', m, n, k, alpha, q->dV, ra, dB, k, beta, dC, m);
    lx_fetch_to(x, C, ldc, dC, m, m, n, &ld);
}

/* LAPACK's geqrt3 on the m x n block at A (m >= n, host memory): V and R in place, T (n x n,
 * upper) at T. Split at n1 = n / 2: the left half's QR, its H^H applied to the right half
 * (A12 -= E1 (T11^H (E1^H A12)), E1 its explicit V in q->V), the right half's QR below the
 * left's rows, and T12 = -T11 (V1^H V2) T22, where V1^H V2 is A(n1:m, 0:n1)^H E2 (the left
 * reflectors' rows below n1 are stored entries). The two trmms with T's blocks stay on the
 * host (of order n^3 flops, against the products' m n^2). */
static void rqrt(oz_lx *x, lx_hh *q, int64_t m, int64_t n, double *A, int64_t lda, double *T,
                 int64_t ldt, int64_t *info)
{
    if (n <= qrt_leaf(x, n)) {
        LX_F77(I m4 = (I)m, n4 = (I)n, l4 = (I)lda, t4 = (I)ldt, inf4 = 0;
               LX_HOST(x->cplx, geqrt3)(&m4, &n4, A, &l4, T, &t4, &inf4);
               *info = inf4;);
        lx_host_flops(x, oz_qr_flops(OZ_QR_GEQRF, 0, 0, m, n, 0) + (double)m * (double)n * (double)n);
        return;
    }
    int64_t n1 = n / 2, n2 = n - n1;
    double *A12 = LX_AT(x, A, 0, n1, lda), *T12 = LX_AT(x, T, 0, n1, ldt), *W = q->T;
    rqrt(x, q, m, n1, A, lda, T, ldt, info);
    explicit_v(x, 0, m, n1, A, lda, q->V);
    host_gemm(x, q, ct(x), n1, n2, m, ONE, q->V, m, A12, lda, ZERO, W, n1);
    lx_real_trmm(x, 'L', 'U', ct(x), 'N', n1, n2, ONE, T, ldt, W, n1);
    host_gemm(x, q, 'N', m, n2, n1, MONE, q->V, m, W, n1, ONE, A12, lda);
    rqrt(x, q, m - n1, n2, LX_AT(x, A, n1, n1, lda), lda, LX_AT(x, T, n1, n1, ldt), ldt, info);
    explicit_v(x, 0, m - n1, n2, LX_AT(x, A, n1, n1, lda), lda, q->V);
    host_gemm(x, q, ct(x), n1, n2, m - n1, ONE, LX_AT(x, A, n1, 0, lda), lda, q->V, m - n1,
              ZERO, T12, ldt);
    lx_real_trmm(x, 'L', 'U', 'N', 'N', n1, n2, MONE, T, ldt, T12, ldt);
    lx_real_trmm(x, 'R', 'U', 'N', 'N', n1, n2, ONE, LX_AT(x, T, n1, n1, ldt), ldt, T12, ldt);
    lx_host_flops(x, (double)n1 * (double)n1 * (double)n2 + (double)n1 * (double)n2 * (double)n);
}

/* The QR of the view's m x n panel (m >= n) at H by rqrt, recursive with products inside
 * where geqrf's panel is Level 2 throughout: V and R in place, T into q->Tp (its
 * strict lower triangle zero), tau its diagonal. An LQ panel (row) is factored as its view,
 * a copy in q->VT (the QR of the conjugate transpose: the host gelqf, Level 2 on rows, took
 * about 3 times as long at 2048 x 128), and conjugated and transposed back. */
static void panel_qrt(oz_lx *x, lx_hh *q, int row, int64_t m, int64_t n, double *H,
                      int64_t ldh, double *tau, int64_t *info)
{
    int64_t w = x->cplx ? 2 : 1, ldp = row ? m : ldh;
    double *P = row ? q->VT : H;
    if (row)
        conj_transpose(x, n, m, H, ldh, P, ldp);
    rqrt(x, q, m, n, P, ldp, q->Tp, n, info);
    for (int64_t j = 0; j < n; j++) {
        memcpy(LX_AT(x, tau, j, 0, 1), LX_AT(x, q->Tp, j, j, n), sizeof(double) * (size_t)w);
        memset(LX_AT(x, q->Tp, j + 1, j, n), 0, sizeof(double) * (size_t)(w * (n - j - 1)));
    }
    if (row)
        conj_transpose(x, m, n, P, ldp, H, ldh);
    q->tpk = n;
    q->tpr = m;
    q->tpcol = row;
    q->vt_r = 0;
}

void lx_hh_host(oz_lx *x, lx_hh *q, int row, int gen, int64_t m, int64_t n, int64_t k,
                    double *A, int64_t lda, const double *tau, int64_t *info, double **H,
                    int64_t *ldh)
{
    int64_t rows = row ? n : m, cols = row ? m : n;
    *H = lx_fetch(x, 0, A, lda, rows, cols, ldh, 1);
    q->tpk = 0;
    q->tpcol = 0;
    if (x->failed)
        return;
    lx_clock c = lx_tic(x);
    int g = gen == LX_HH_GEN, qrt = gen == LX_HH_PANEL && m >= n && n > 0 && n <= x->nb && m <= q->vrows &&
              lx_host_fn(x->cplx, LXH_geqrt3);
    if (qrt)
        panel_qrt(x, q, row, m, n, *H, *ldh, (double *)tau, info);
    else
        real_qr(x, row ? (g ? LXH_orglq : LXH_gelqf) : (g ? LXH_orgqr : LXH_geqrf), rows, cols,
                k, *H, *ldh, tau, q->rw, q->lrw, info);
    lx_toc(x, c, &x->rep->panel_seconds);
    if (!qrt) /* rqrt counts its own */
        lx_host_flops(x, oz_qr_flops(g ? OZ_QR_ORGQR : OZ_QR_GEQRF, 0, 0, m, n, k));
    lx_store(x, *H, *ldh, A, lda, rows, cols);
}

/* The reflectors of the view's block (r x ib at Aii) as the block reflector of lx_larfb. */
static void block_at(oz_lx *x, lx_hh *q, int row, const double *Aii, int64_t lda, int64_t r,
                     int64_t ib, const double *tau)
{
    int64_t ld;
    const double *Vh = lx_fetch(x, 0, Aii, lda, row ? ib : r, row ? r : ib, &ld, 1);
    if (!x->failed)
        lx_hh_block(x, q, row, Vh, ld, r, ib, tau, NULL, 0);
}

/* The view's m x n block at A := 0 */
static void zero_view(oz_lx *x, int row, int64_t m, int64_t n, double *A, int64_t lda)
{
    lx_zero(x, row ? n : m, row ? m : n, A, lda);
}

/* LAPACK's dgeqrf: each panel of nb columns by the host geqrf, its block reflector applied
 * to the columns to its right. */
void lx_geqrf(oz_lx *x, lx_hh *q, int row, int64_t m, int64_t n, double *A, int64_t lda,
              double *tau, int64_t *info)
{
    int64_t k = min64(m, n), nb = x->nb, pinfo = 0, ld;
    double *H;
    *info = 0;
    if (k <= nb) {
        lx_hh_host(x, q, row, 0, m, n, 0, A, lda, tau, info, &H, &ld);
        return;
    }
    for (int64_t i = 0; i < k && !x->failed; i += nb) {
        int64_t ib = min64(nb, k - i);
        double *Aii = at(x, row, A, i, i, lda), *ti = LX_AT(x, tau, i, 0, 1);
        lx_hh_host(x, q, row, LX_HH_PANEL, m - i, ib, 0, Aii, lda, ti, &pinfo, &H, &ld);
        if (i + ib < n && !x->failed) {
            lx_hh_panel_block(x, q, row, H, ld, m - i, ib, ti);
            larfb_view(x, q, row, ct(x), m - i, n - i - ib, ib, at(x, row, A, i, i + ib, lda), lda);
        }
    }
}

void lx_unit_columns(oz_lx *x, int row, int64_t m, int64_t j0, int64_t j1, double *A,
                     int64_t lda)
{
    int64_t w = x->cplx ? 2 : 1;
    for (int64_t c = j0; c < j1 && m > 0 && !x->failed; c += x->nb) {
        int64_t cb = min64(x->nb, j1 - c), rows = row ? cb : m, cols = row ? m : cb, ld;
        double *Ac = at(x, row, A, 0, c, lda), *H = lx_fetch(x, 1, Ac, lda, rows, cols, &ld, 0);
        if (x->failed)
            return;
        for (int64_t j = 0; j < cols; j++)
            memset(LX_AT(x, H, 0, j, ld), 0, sizeof(double) * (size_t)(w * rows));
        for (int64_t j = 0; j < cb; j++)
            if (c + j < m)
                at(x, row, H, c + j, j, ld)[0] = 1.0;
        lx_store(x, H, ld, Ac, lda, rows, cols);
    }
}

/* LAPACK's dorgqr: the first n columns of Q = H(1) ... H(k), backward over blocks. The last
 * block's columns by the host orgqr (with the columns beyond k when they fit in one block;
 * else those are set to the identity's and the last block reflector applied to them, as
 * for the earlier blocks), then for each block before it its block reflector applied to the
 * columns already formed, its own columns by the host orgqr; the rows above each block
 * zero. */
void lx_orgqr(oz_lx *x, lx_hh *q, int row, int64_t m, int64_t n, int64_t k, double *A,
              int64_t lda, const double *tau, int64_t *info)
{
    int64_t nb = x->nb, pinfo = 0, ld;
    double *H;
    *info = 0;
    if (n <= 0)
        return;
    if (k == 0) {
        lx_unit_columns(x, row, m, 0, n, A, lda);
        return;
    }
    int64_t ki = ((k - 1) / nb) * nb, kl = n - ki <= nb ? n : k;
    double *Akk = at(x, row, A, ki, ki, lda);
    const double *tk = LX_AT(x, tau, ki, 0, 1);
    if (kl < n) {
        lx_unit_columns(x, row, m, k, n, A, lda);
        block_at(x, q, row, Akk, lda, m - ki, k - ki, tk);
        larfb_view(x, q, row, 'N', m - ki, n - k, k - ki, at(x, row, A, ki, k, lda), lda);
    }
    lx_hh_host(x, q, row, 1, m - ki, kl - ki, k - ki, Akk, lda, tk, kl < n ? &pinfo : info, &H,
            &ld);
    zero_view(x, row, ki, n - ki, at(x, row, A, 0, ki, lda), lda);
    for (int64_t i = ki - nb; i >= 0 && !x->failed; i -= nb) {
        double *Aii = at(x, row, A, i, i, lda);
        const double *ti = LX_AT(x, tau, i, 0, 1);
        block_at(x, q, row, Aii, lda, m - i, nb, ti);
        larfb_view(x, q, row, 'N', m - i, n - i - nb, nb, at(x, row, A, i, i + nb, lda), lda);
        lx_hh_host(x, q, row, 1, m - i, nb, nb, Aii, lda, ti, &pinfo, &H, &ld);
        zero_view(x, row, i, nb, at(x, row, A, 0, i, lda), lda);
    }
}

/* LAPACK's dormqr: C := op(Q) C or C op(Q), one block reflector at a time, in the order
 * that applies H(1) last for Q C and C Q^H, first for Q^H C and C Q. */
void lx_ormqr(oz_lx *x, lx_hh *q, int row, char side, char trans, int64_t m, int64_t n,
              int64_t k, const double *A, int64_t lda, const double *tau, double *C,
              int64_t ldc)
{
    int64_t nb = x->nb, nq = side == 'L' ? m : n, last = ((k - 1) / nb) * nb;
    if (m <= 0 || n <= 0 || k <= 0)
        return;
    int forward = (side == 'L') != (trans == 'N');
    for (int64_t t = 0; t < k && !x->failed; t += nb) {
        int64_t i = forward ? t : last - t, ib = min64(nb, k - i);
        block_at(x, q, row, at(x, row, A, i, i, lda), lda, nq - i, ib, LX_AT(x, tau, i, 0, 1));
        if (side == 'L')
            lx_larfb(x, q, 'L', trans, m - i, n, ib, LX_AT(x, C, i, 0, ldc), ldc);
        else
            lx_larfb(x, q, 'R', trans, m, n - i, ib, LX_AT(x, C, 0, i, ldc), ldc);
    }
}

/* ---- checks, flops, the public entries ------------------------------------------------- */

int64_t oz_qr_check(int op, int cplx, char side, char trans, int64_t m, int64_t n, int64_t k,
                    int64_t lda, int64_t ldc)
{
    side = up(side), trans = up(trans);
    if (op == OZ_QR_GEQRF || op == OZ_QR_GELQF)
        return m < 0 ? -1 : n < 0 ? -2 : lda < max1(m) ? -4 : 0;
    if (op == OZ_QR_ORGQR)
        return m < 0 ? -1 : n < 0 || n > m ? -2 : k < 0 || k > n ? -3 : lda < max1(m) ? -5 : 0;
    if (op == OZ_QR_ORGLQ)
        return m < 0 ? -1 : n < m ? -2 : k < 0 || k > m ? -3 : lda < max1(m) ? -5 : 0;
    int64_t nq = side == 'L' ? m : n;
    if (side != 'L' && side != 'R')
        return -1;
    if (trans != 'N' && trans != (cplx ? 'C' : 'T'))
        return -2;
    return m < 0 ? -3 : n < 0 ? -4 : k < 0 || k > nq ? -5
         : lda < max1(op == OZ_QR_ORMLQ ? k : nq) ? -7 : ldc < max1(m) ? -10 : 0;
}

/* LAPACK's counts; LQ's are QR's of the transpose, and the formulas are symmetric in m, n */
double oz_qr_flops(int op, int cplx, char side, int64_t m, int64_t n, int64_t k)
{
    double dm = (double)m, dn = (double)n, dk = (double)k, f;
    if (op == OZ_QR_GEQRF || op == OZ_QR_GELQF) {
        double a = dm > dn ? dm : dn, b = dm > dn ? dn : dm;
        f = 2.0 * a * b * b - 2.0 / 3.0 * b * b * b;
    } else if (op == OZ_QR_ORGQR || op == OZ_QR_ORGLQ)
        f = 4.0 * dm * dn * dk - 2.0 * (dm + dn) * dk * dk + 4.0 / 3.0 * dk * dk * dk;
    else
        f = up(side) == 'L' ? 2.0 * dn * dk * (2.0 * dm - dk) : 2.0 * dm * dk * (2.0 * dn - dk);
    return (cplx ? 4.0 : 1.0) * f;
}

/* geqrf (row 0) and gelqf (row 1) */
static ozblas_status geqrf_body(ozblas_context *ctx, int cplx, int row, int64_t m, int64_t n,
                                double *A, int64_t lda, double *tau, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    int op = row ? OZ_QR_GELQF : OZ_QR_GEQRF;
    if ((*info = oz_qr_check(op, cplx, 0, 0, m, n, 0, lda, 0)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    int64_t vm = row ? n : m, vn = row ? m : n; /* the view's */
    BEGIN(cplx, min64(m, n), oz_qr_flops(op, cplx, 0, m, n, 0), max64(max64(m, n), 1),
          LX_OP(A, lda, m, n, 1))
    HH_WORK(vm, vn, 0)
    lx_geqrf(&x, &q, row, vm, vn, A, lda, tau, info);
    HH_END_WITH(OZBLAS_OK);
}

/* orgqr (row 0) and orglq (row 1) */
static ozblas_status orgqr_body(ozblas_context *ctx, int cplx, int row, int64_t m, int64_t n,
                                int64_t k, double *A, int64_t lda, const double *tau,
                                int64_t *info, int64_t nb, const ozblas_options *opt,
                                ozblas_lapack_report *report)
{
    int op = row ? OZ_QR_ORGLQ : OZ_QR_ORGQR;
    if ((*info = oz_qr_check(op, cplx, 0, 0, m, n, k, lda, 0)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    int64_t vm = row ? n : m, vn = row ? m : n;
    BEGIN(cplx, k, oz_qr_flops(op, cplx, 0, m, n, k), max64(max64(m, n), 1),
          LX_OP(A, lda, m, n, 1))
    HH_WORK(vm, vn, 0)
    lx_orgqr(&x, &q, row, vm, vn, k, A, lda, tau, info);
    HH_END_WITH(OZBLAS_OK);
}

/* ormqr (row 0) and ormlq (row 1: op(Q) is the view's with trans flipped) */
static ozblas_status ormqr_body(ozblas_context *ctx, int cplx, int row, char side, char trans,
                                int64_t m, int64_t n, int64_t k, double *A, int64_t lda,
                                const double *tau, double *C, int64_t ldc, int64_t *info,
                                int64_t nb, const ozblas_options *opt,
                                ozblas_lapack_report *report)
{
    int op = row ? OZ_QR_ORMLQ : OZ_QR_ORMQR;
    if ((*info = oz_qr_check(op, cplx, side, trans, m, n, k, lda, ldc)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    side = up(side), trans = up(trans);
    int64_t nq = side == 'L' ? m : n;
    BEGIN(cplx, k, oz_qr_flops(op, cplx, side, m, n, k), max64(max64(m, n), 1),
          LX_OP(A, lda, row ? k : nq, row ? nq : k, 0), LX_OP(C, ldc, m, n, 1))
    HH_WORK(nq, side == 'L' ? n : m, 0)
    if (row)
        trans = trans == 'N' ? ct(&x) : 'N';
    lx_ormqr(&x, &q, row, side, trans, m, n, k, A, lda, tau, C, ldc);
    HH_END_WITH(OZBLAS_OK);
}

/* ---- the d and z entries ----------------------------------------------------------------- */

/* QR (row 0) and LQ (row 1) */
#define GEQRF_PARAMS (int64_t m, int64_t n, double *A, int64_t lda, double *tau, int64_t *info)
#define ORGQR_PARAMS                                                                           \
    (int64_t m, int64_t n, int64_t k, double *A, int64_t lda, const double *tau, int64_t *info)
#define ORMQR_PARAMS                                                                           \
    (char side, char trans, int64_t m, int64_t n, int64_t k, const double *A, int64_t lda,      \
     const double *tau, double *C, int64_t ldc, int64_t *info)
LX_DZ(geqrf, geqrf, GEQRF_PARAMS, geqrf_body, 0, m, n, A, lda, tau, info)
LX_DZ(gelqf, gelqf, GEQRF_PARAMS, geqrf_body, 1, m, n, A, lda, tau, info)
LX_DZ(orgqr, ungqr, ORGQR_PARAMS, orgqr_body, 0, m, n, k, A, lda, tau, info)
LX_DZ(orglq, unglq, ORGQR_PARAMS, orgqr_body, 1, m, n, k, A, lda, tau, info)
LX_DZ(ormqr, unmqr, ORMQR_PARAMS, ormqr_body, 0, side, trans, m, n, k, (double *)A, lda, tau, C,
      ldc, info)
LX_DZ(ormlq, unmlq, ORMQR_PARAMS, ormqr_body, 1, side, trans, m, n, k, (double *)A, lda, tau, C,
      ldc, info)
