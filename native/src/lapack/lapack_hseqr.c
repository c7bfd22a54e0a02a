/* The Hessenberg QR iteration (LAPACK's dhseqr and zhseqr, their dlaqr0/dlaqr3/dlaqr5 and
 * zlaqr0/zlaqr3/zlaqr5 structure: Braman, Byers and Mathias's small-bulge multishift QR with
 * aggressive early deflation) for double and complex double, host memory, the work on H and Z
 * above the host's small windows as products:
 *
 *   the active block [ktop, kbot] is found at the bottom (a subdiagonal that is zero, or
 *   negligible by dlahqr's test, |Re| + |Im| for z); an active block of at most nmin rows is
 *   one window;
 *   aggressive early deflation (AED): the bottom window of nw rows reduced to Schur form by
 *   the host hseqr on a copy (V its Schur vectors), the spike s V(0, :) checked from the
 *   bottom, undeflatable blocks (d: 1 x 1 or 2 x 2, z: 1 x 1) moved to the top by the host
 *   trexc, the rest of the window brought back to Hessenberg form (a reflector on the spike,
 *   conjugated for z, the host gehrd and ormhr/unmhr);
 *   the sweep: ns / 2 bulges of two shifts each (the AED window's undeflated eigenvalues as
 *   shifts, or the trailing block's by the host hseqr, exceptional shifts every sixth
 *   iteration without deflation as dlaqr0's/zlaqr0's; d: complex pairs together) introduced
 *   at ktop one behind the other, three rows apart, and chased together through windows of
 *   about 6 ns / 2 rows with 3-element reflectors (complex for z: P^H from the left, P from
 *   the right): inside a window the reflectors touch its diagonal block only (host work),
 *   their product accumulated into the window's orthogonal (unitary) U;
 *   every window (chase, AED, the small active block) then updates H's rows to its right,
 *   H's columns above it and Z's columns as products with U (ozblas GEMMs, U^T or U^H).
 * The windows' host work is counted as the report's chase_seconds (bulges) and
 * solver_seconds (the host hseqr, trexc, gehrd, ormhr on windows), the products' results
 * copied back into H and Z as its copy_seconds. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/oz_internal.h"
#include "oz_lapack.h"

#undef I /* complex.h's imaginary unit: LX_F77's integer type here */
typedef double complex cx;

/* ---- the host routines ------------------------------------------------------------------ */

static const int hs_ids[2][6] = {
    {LXH_dhseqr, LXH_trexc, LXH_gehrd, LXH_ormhr, LXH_larfg, LXH_larfx},
    {LXH_zhseqr, LXH_ztrexc, LXH_gehrd, LXH_ormhr, LXH_larfg, LXH_larfx}};

int lx_hseqr_ready(int cplx) { return lx_host_all(cplx, hs_ids[cplx], 6); }

int lx_hseqr_takes(int cplx, int64_t n, int64_t ilo, int64_t ihi, const double *H, int64_t ldh)
{
    int64_t wd = cplx ? 2 : 1;
    if (!lx_hseqr_ready(cplx) || ilo < 1 || ihi < ilo || ihi > n)
        return 0;
    for (int64_t j = ilo - 1; j < ihi; j++)
        for (int64_t i = ilo - 1; i <= j + 1 && i < ihi; i++)
            for (int64_t c = 0; c < wd; c++)
                if (!isfinite(H[wd * (i + j * ldh) + c]))
                    return 0;
    return 1;
}

/* |a| (d), |Re a| + |Im a| (z: LAPACK's cabs1) of the element at p; of the difference a - b */
static inline double mag(int cplx, const double *p) { return fabs(p[0]) + (cplx ? fabs(p[1]) : 0.0); }
static inline double mag_diff(int cplx, const double *a, const double *b)
{
    return fabs(a[0] - b[0]) + (cplx ? fabs(a[1] - b[1]) : 0.0);
}

/* larfg: (alpha; x) -> (beta; 0) by H^H, H = I - tau v v^H, v = (1; x) on return (n - 1
 * elements at v); alpha and tau one element each */
static void larfg(int cplx, int64_t n, double *alpha, double *v, double *tau)
{
    LX_F77(I n4 = (I)n, one = 1;
        LX_HOST(cplx, larfg)(&n4, alpha, v, &one, tau););
}

/* larfx: the m x n C := H C (side 'L') or C H ('R'), H = I - tau v v^H */
static void larfx(int cplx, char side, int64_t m, int64_t n, const double *v, const double *tau,
                  double *C, int64_t ldc, double *work)
{
    LX_F77(I m4 = (I)m, n4 = (I)n, lc = (I)ldc;
        LX_HOST(cplx, larfx)(&side, &m4, &n4, v, tau, C, &lc, work, 1););
}

/* The host hseqr (job 'S', compz 'I' with V, or job 'E', compz 'N' without) on the n x n
 * T; its info. The eigenvalues into wr, wi (d), or wr as n complex (z) */
static int64_t host_hseqr(int cplx, int64_t n, double *T, int64_t ldt, double *wr, double *wi,
                          double *V, int64_t ldv, double *work, int64_t lwork)
{
    char job = V ? 'S' : 'E', compz = V ? 'I' : 'N';
    double nv[2];
    int64_t info = 0;
    LX_F77(I n4 = (I)n, one = 1, lt = (I)ldt, lv = V ? (I)ldv : 1, lw = (I)lwork, inf4 = 0;
        if (cplx)
            LX_HOST(1, zhseqr)(&job, &compz, &n4, &one, &n4, T, &lt, wr, V ? V : nv, &lv, work,
                               &lw, &inf4, 1, 1);
        else
            LX_HOST(0, dhseqr)(&job, &compz, &n4, &one, &n4, T, &lt, wr, wi, V ? V : nv, &lv,
                               work, &lw, &inf4, 1, 1);
        info = inf4;);
    return info;
}

/* The host trexc (compq 'V'): the block at ifst (1-based) moved to ilst; *ilst its place */
static void trexc(int cplx, int64_t n, double *T, int64_t ldt, double *V, int64_t ldv,
                  int64_t ifst, int64_t *ilst, double *work)
{
    char compq = 'V';
    LX_F77(I n4 = (I)n, lt = (I)ldt, lv = (I)ldv, if4 = (I)ifst, il4 = (I)*ilst, inf4 = 0;
        if (cplx)
            LX_HOST(1, ztrexc)(&compq, &n4, T, &lt, V, &lv, &if4, &il4, &inf4, 1);
        else
            LX_HOST(0, trexc)(&compq, &n4, T, &lt, V, &lv, &if4, &il4, work, &inf4, 1);
        *ilst = il4;);
}

/* The host gehrd on rows and columns 1..ihi of the n x n T, then V (m x n) := V Q by ormhr
 * (z: unmhr) */
static void gehrd_ormhr(int cplx, int64_t n, int64_t ihi, double *T, int64_t ldt, int64_t m,
                        double *V, int64_t ldv, double *tau, double *work, int64_t lwork)
{
    char side = 'R', trans = 'N';
    LX_F77(I n4 = (I)n, one = 1, hi = (I)ihi, lt = (I)ldt, m4 = (I)m, lv = (I)ldv, lw = (I)lwork;
        I inf4 = 0;
        LX_HOST(cplx, gehrd)(&n4, &one, &hi, T, &lt, tau, work, &lw, &inf4);
        LX_HOST(cplx, ormhr)(&side, &trans, &m4, &n4, &one, &hi, T, &lt, tau, V, &lv, work, &lw,
                             &inf4, 1, 1););
}

/* ---- the run ---------------------------------------------------------------------------- */

typedef struct {
    oz_lx *x;
    int wantt, cplx;
    int64_t wd;          /* doubles per element: 1 (d) or 2 (z) */
    int64_t n, ilo, ihi; /* 0-based active range */
    double *H, *Z;       /* Z NULL: no Schur vectors */
    int64_t ldh, ldz;
    double *sr, *si;      /* shifts (and eigenvalues) by row, real and imaginary parts, n each */
    double *U, *T, *W;    /* a window's U and host copy (wmax^2 each); products' W (wmax n) */
    double *cw;           /* z: the host's eigenvalues of a window (wmax complex) */
    double *hw;           /* the host routines' workspace, lhw elements */
    int64_t *ulo, *uhi;   /* a chase window's U: column j nonzero in rows ulo[j]..uhi[j] */
    int64_t wmax, lhw, nmin;
    double flops_chase, flops_win;
} hs_run;

#define HS_AT(r, i, j) ((r)->H + (r)->wd * ((i) + (int64_t)(j) * (r)->ldh))

/* The window [w0, w1] done: H's rows right of it (up to column n - 1, or kbot without T),
 * H's columns above it (from row 0, or ktop), Z's rows ilo..ihi, each times U as a product */
static void hs_update(hs_run *r, int64_t ktop, int64_t kbot, int64_t w0, int64_t w1)
{
    oz_lx *x = r->x;
    int64_t nw = w1 - w0 + 1, cend = r->wantt ? r->n - 1 : kbot, rtop = r->wantt ? 0 : ktop;
    int64_t ldh = r->ldh;
    size_t el = sizeof(double) * (size_t)r->wd;
    double *H = r->H, *W = r->W;
    lx_clock c;
    if (cend > w1) {
        int64_t cn = cend - w1;
        lx_gemm(x, r->cplx ? 'C' : 'T', 'N', nw, cn, nw, ONE, r->U, nw, LX_AT(x, H, w0, w1 + 1, ldh),
                ldh, ZERO, W, nw);
        c = lx_tic(x);
        for (int64_t j = 0; j < cn; j++)
            memcpy(LX_AT(x, H, w0, w1 + 1 + j, ldh), LX_AT(x, W, 0, j, nw), el * (size_t)nw);
        lx_toc(x, c, &x->rep->copy_seconds);
    }
    if (w0 > rtop) {
        int64_t m = w0 - rtop;
        lx_gemm(x, 'N', 'N', m, nw, nw, ONE, LX_AT(x, H, rtop, w0, ldh), ldh, r->U, nw, ZERO, W, m);
        c = lx_tic(x);
        for (int64_t j = 0; j < nw; j++)
            memcpy(LX_AT(x, H, rtop, w0 + j, ldh), LX_AT(x, W, 0, j, m), el * (size_t)m);
        lx_toc(x, c, &x->rep->copy_seconds);
    }
    if (r->Z) {
        int64_t m = r->ihi - r->ilo + 1;
        double *Zb = LX_AT(x, r->Z, r->ilo, w0, r->ldz);
        lx_gemm(x, 'N', 'N', m, nw, nw, ONE, Zb, r->ldz, r->U, nw, ZERO, W, m);
        c = lx_tic(x);
        for (int64_t j = 0; j < nw; j++)
            memcpy(LX_AT(x, Zb, 0, j, r->ldz), LX_AT(x, W, 0, j, m), el * (size_t)m);
        lx_toc(x, c, &x->rep->copy_seconds);
    }
}

/* The window's diagonal block into the host copy T (nw x nw, its Hessenberg part) */
static void hs_copy_out(hs_run *r, int64_t w0, int64_t nw)
{
    for (int64_t j = 0; j < nw; j++)
        for (int64_t i = 0; i < nw; i++)
            for (int64_t c = 0; c < r->wd; c++)
                r->T[r->wd * (i + j * nw) + c] = i <= j + 1 ? HS_AT(r, w0 + i, w0 + j)[c] : 0.0;
}

/* ... and back, zeros below the subdiagonal */
static void hs_copy_in(hs_run *r, int64_t w0, int64_t nw)
{
    for (int64_t j = 0; j < nw; j++)
        for (int64_t i = 0; i < nw; i++)
            for (int64_t c = 0; c < r->wd; c++)
                HS_AT(r, w0 + i, w0 + j)[c] = i <= j + 1 ? r->T[r->wd * (i + j * nw) + c] : 0.0;
}

/* The host hseqr on the window's copy T (n x n; V: its Schur vectors, or NULL for the
 * eigenvalues alone), the eigenvalues into sr, si at row at; the host's info */
static int64_t hs_schur(hs_run *r, int64_t n, int64_t at, double *V)
{
    if (!r->cplx)
        return host_hseqr(0, n, r->T, n, r->sr + at, r->si + at, V, n, r->hw, r->lhw);
    int64_t info = host_hseqr(1, n, r->T, n, r->cw, NULL, V, n, r->hw, r->lhw);
    for (int64_t i = 0; i < n; i++)
        r->sr[at + i] = r->cw[2 * i], r->si[at + i] = r->cw[2 * i + 1];
    return info;
}

/* The whole active block [ktop, kbot] (at most wmax rows) to Schur form by the host, its
 * updates as products; the host's info (rows of the block not converged) */
static int64_t hs_small(hs_run *r, int64_t ktop, int64_t kbot)
{
    int64_t nw = kbot - ktop + 1;
    lx_clock c = lx_tic(r->x);
    hs_copy_out(r, ktop, nw);
    int64_t info = hs_schur(r, nw, ktop, r->U);
    hs_copy_in(r, ktop, nw);
    r->flops_win += 20.0 * (double)nw * nw * nw;
    lx_toc(r->x, c, &r->x->rep->solver_seconds);
    hs_update(r, ktop, kbot, ktop, kbot);
    return info;
}

/* The deflation test of dlaqr3 (zlaqr3) on the block of order bs ending at row e of the
 * window's T (a 1 x 1 or, d, a standardized 2 x 2), spike s V(0, :) */
static int hs_deflatable(const hs_run *r, int64_t nw, int64_t e, int bs, const double *s)
{
    const double *T = r->T, *V = r->U;
    int64_t wd = r->wd;
    double ulp = DBL_EPSILON, smlnum = DBL_MIN * ((double)nw / ulp);
    double foo = mag(r->cplx, T + wd * (e + e * nw)), ms = mag(r->cplx, s);
    if (bs == 2)
        foo += sqrt(fabs(T[e + (e - 1) * nw])) * sqrt(fabs(T[e - 1 + e * nw]));
    if (foo == 0.0)
        foo = ms;
    double sp = ms * mag(r->cplx, V + wd * e * nw);
    if (bs == 2 && ms * fabs(V[(e - 1) * nw]) > sp)
        sp = ms * fabs(V[(e - 1) * nw]);
    return sp <= fmax(smlnum, ulp * foo);
}

/* The eigenvalues of T's diagonal blocks rows [a, b] into sr, si (d: standardized 2 x 2
 * blocks, a +- i sqrt|b c|; z: the diagonal) */
static void hs_eig_blocks(int cplx, const double *T, int64_t ld, int64_t a, int64_t b,
                          double *sr, double *si)
{
    for (int64_t i = a; i <= b; i++) {
        if (cplx) {
            sr[i] = T[2 * (i + i * ld)], si[i] = T[2 * (i + i * ld) + 1];
            continue;
        }
        sr[i] = T[i + i * ld], si[i] = 0.0;
        if (i < b && T[i + 1 + i * ld] != 0.0) {
            double w = sqrt(fabs(T[i + 1 + i * ld])) * sqrt(fabs(T[i + (i + 1) * ld]));
            sr[i + 1] = T[i + 1 + (i + 1) * ld], si[i] = w, si[i + 1] = -w, i++;
        }
    }
}

/* The window's T and V after its undeflated ns rows: the spike's first ns entries (s V(0, :),
 * conjugated for z: the spike is s V^H e1) to a multiple of e1 by one reflector P, T := P^H T P
 * and V := V P, then T's leading ns x ns block back to Hessenberg form (gehrd, V times its Q:
 * that leaves V(0, :) alone) */
static void hs_aed_reflect(hs_run *r, int64_t nw, int64_t ns)
{
    int64_t wd = r->wd;
    double *T = r->T, *V = r->U, *v = r->hw, *wk = r->hw + 2 * wd * nw, tau[2], beta[2];
    for (int64_t i = 0; i < ns; i++) {
        v[wd * i] = V[wd * i * nw];
        if (r->cplx)
            v[wd * i + 1] = -V[wd * i * nw + 1];
    }
    memcpy(beta, v, sizeof(double) * (size_t)wd);
    larfg(r->cplx, ns, beta, v + wd, tau);
    v[0] = 1.0;
    if (r->cplx)
        v[1] = 0.0;
    double ctau[2] = {tau[0], r->cplx ? -tau[1] : 0.0};
    larfx(r->cplx, 'L', ns, nw, v, ctau, T, nw, wk);
    larfx(r->cplx, 'R', ns, ns, v, tau, T, nw, wk);
    larfx(r->cplx, 'R', nw, ns, v, tau, V, nw, wk);
    gehrd_ormhr(r->cplx, nw, ns, T, nw, nw, V, nw, r->hw + wd * nw, wk, r->lhw - 2 * nw);
}

/* Aggressive early deflation on the bottom nw rows of [ktop, kbot] (dlaqr3, zlaqr3): the
 * number of eigenvalues deflated (their values in sr, si at their rows), *nsh the undeflated
 * ones, whose values are left in sr, si at rows kwtop.. as shifts */
static int64_t hs_aed(hs_run *r, int64_t ktop, int64_t kbot, int64_t nw, int64_t *nsh)
{
    int64_t kwtop = kbot - nw + 1, wd = r->wd;
    double s[2] = {0.0, 0.0}, *T = r->T, *V = r->U;
    if (kwtop > ktop)
        memcpy(s, HS_AT(r, kwtop, kwtop - 1), sizeof(double) * (size_t)wd);
    lx_clock c = lx_tic(r->x);
    hs_copy_out(r, kwtop, nw);
    int64_t infqr = hs_schur(r, nw, kwtop, V);
    int64_t ns = nw, ilst = infqr + 1; /* ilst 1-based: where the next undeflatable goes */
    while (ilst <= ns) {
        int bs = !r->cplx && ns >= 2 && T[ns - 1 + (ns - 2) * nw] != 0.0 ? 2 : 1;
        if (hs_deflatable(r, nw, ns - 1, bs, s)) {
            ns -= bs;
        } else {
            trexc(r->cplx, nw, T, nw, V, nw, ns - bs + 1, &ilst, r->hw);
            ilst += bs;
        }
    }
    if (ns == 0)
        s[0] = s[1] = 0.0;
    hs_eig_blocks(r->cplx, T, nw, 0, nw - 1, r->sr + kwtop, r->si + kwtop);
    if (ns > 1 && (s[0] != 0.0 || s[1] != 0.0))
        hs_aed_reflect(r, nw, ns);
    hs_copy_in(r, kwtop, nw);
    if (kwtop > 0) { /* the spike's one entry left: s times conj(V(0, 0)) */
        double *h = HS_AT(r, kwtop, kwtop - 1);
        if (r->cplx) {
            cx t = CMPLX(s[0], s[1]) * conj(CMPLX(V[0], V[1]));
            h[0] = creal(t), h[1] = cimag(t);
        } else {
            h[0] = s[0] * V[0];
        }
    }
    r->flops_win += 20.0 * (double)nw * nw * nw;
    lx_toc(r->x, c, &r->x->rep->solver_seconds);
    hs_update(r, ktop, kbot, kwtop, kbot);
    *nsh = ns;
    return nw - ns;
}

/* ---- the sweep ---------------------------------------------------------------------------- */

/* A round's reflectors from the left: for each of its nr bulges i (rows c[i]..c[i]+len[i]-1,
 * disjoint, none with tau 0), those rows of M's columns c[i]..j1 := (I - tau v v^T) times
 * them (v[3 i] = 1), column by column from j0 (the least c[i]), so that each of the window's
 * columns is read once per round */
static void hs_left(double *M, int64_t ld, int nr, const int64_t *c, const int *len,
                    const double *v, const double *tau, int64_t j0, int64_t j1)
{
    for (int64_t j = j0; j <= j1; j++)
        for (int i = 0; i < nr; i++) {
            if (c[i] > j)
                continue;
            const double *w = v + 3 * i;
            double *m = M + c[i] + j * ld, t = m[0] + w[1] * m[1] + (len[i] == 3 ? w[2] * m[2] : 0.0);
            t *= tau[i];
            m[0] -= t, m[1] -= t * w[1];
            if (len[i] == 3)
                m[2] -= t * w[2];
        }
}

/* Rows i0..i1 of M's columns c..c+len-1 := them times I - tau v v^T (v[0] = 1), column by
 * column (contiguous); the flops */
static double hs_right(double *M, int64_t ld, int64_t c, int len, int64_t i0, int64_t i1,
                       const double *v, double tau)
{
    if (tau == 0.0 || i1 < i0)
        return 0.0;
    double *m0 = M + c * ld, *m1 = m0 + ld, *m2 = m1 + ld, v1 = v[1], v2 = len == 3 ? v[2] : 0.0;
    if (len == 3)
        for (int64_t i = i0; i <= i1; i++) {
            double t = tau * (m0[i] + v1 * m1[i] + v2 * m2[i]);
            m0[i] -= t, m1[i] -= t * v1, m2[i] -= t * v2;
        }
    else
        for (int64_t i = i0; i <= i1; i++) {
            double t = tau * (m0[i] + v1 * m1[i]);
            m0[i] -= t, m1[i] -= t * v1;
        }
    return 4.0 * len * (double)(i1 - i0 + 1);
}

/* z's hs_left: (I - tau v v^H) from the left (tau: conj of the reflector's, P^H, as
 * zlaqr5) */
static void hs_left_z(cx *M, int64_t ld, int nr, const int64_t *c, const int *len,
                      const cx *v, const cx *tau, int64_t j0, int64_t j1)
{
    for (int64_t j = j0; j <= j1; j++)
        for (int i = 0; i < nr; i++) {
            if (c[i] > j)
                continue;
            const cx *w = v + 3 * i;
            cx v1 = w[1], v2 = len[i] == 3 ? w[2] : 0.0, *m = M + c[i] + j * ld;
            cx t = tau[i] * (m[0] + conj(v1) * m[1] + (len[i] == 3 ? conj(v2) * m[2] : 0.0));
            m[0] -= t, m[1] -= t * v1;
            if (len[i] == 3)
                m[2] -= t * v2;
        }
}

/* z's: rows i0..i1 of M's columns c..c+len-1 := them times I - tau v v^H */
static double hs_right_z(cx *M, int64_t ld, int64_t c, int len, int64_t i0, int64_t i1,
                         const cx *v, cx tau)
{
    if (tau == 0.0 || i1 < i0)
        return 0.0;
    cx *m0 = M + c * ld, *m1 = m0 + ld, *m2 = m1 + ld, v1 = v[1], v2 = len == 3 ? v[2] : 0.0;
    cx c1 = conj(v1), c2 = conj(v2);
    for (int64_t i = i0; i <= i1; i++) {
        cx t = tau * (m0[i] + v1 * m1[i] + (len == 3 ? v2 * m2[i] : 0.0));
        m0[i] -= t, m1[i] -= t * c1;
        if (len == 3)
            m2[i] -= t * c2;
    }
    return 4.0 * len * (double)(i1 - i0 + 1);
}

/* dlaqr1 (zlaqr1): v = (H - s1)(H - s2) e1 at ktop, scaled (3 elements); 0 when the scale is
 * zero (no bulge) */
static int hs_first(const hs_run *r, int64_t ktop, const double *sr, const double *si, double *v)
{
    if (r->cplx) {
        const cx *H = (const cx *)r->H;
        int64_t ldh = r->ldh;
        cx h00 = H[ktop + ktop * ldh], h10 = H[ktop + 1 + ktop * ldh];
        cx s1 = CMPLX(sr[0], si[0]), s2 = CMPLX(sr[1], si[1]), *w = (cx *)v;
        double s = fabs(creal(h00 - s2)) + fabs(cimag(h00 - s2)) + fabs(creal(h10)) + fabs(cimag(h10));
        if (s == 0.0)
            return 0;
        cx h10s = h10 / s;
        w[0] = (h00 - s1) * ((h00 - s2) / s) + H[ktop + (ktop + 1) * ldh] * h10s;
        w[1] = h10s * (h00 + H[ktop + 1 + (ktop + 1) * ldh] - s1 - s2);
        w[2] = h10s * H[ktop + 2 + (ktop + 1) * ldh];
        return 1;
    }
#define HH(i, j) r->H[(i) + (j) * r->ldh]
    double h00 = HH(ktop, ktop), h10 = HH(ktop + 1, ktop);
    double s = fabs(h00 - sr[1]) + fabs(si[1]) + fabs(h10);
    if (s == 0.0)
        return 0;
    double h10s = h10 / s;
    v[0] = (h00 - sr[0]) * ((h00 - sr[1]) / s) - si[0] * (si[1] / s) + HH(ktop, ktop + 1) * h10s;
    v[1] = h10s * (h00 + HH(ktop + 1, ktop + 1) - sr[0] - sr[1]);
    v[2] = h10s * HH(ktop + 2, ktop + 1);
#undef HH
    return 1;
}

/* A chain's bulges at most (iparmq's shifts: at most 128, two per bulge) */
#define HS_MAX_BULGES 64

/* A round's bulge at k (ktop - 1: introduced with the shifts (sr, si) pair): its reflector
 * (v: 3 elements of wd doubles, v[0] = 1; tau) from H's column k (set to (beta, 0, 0)) or
 * hs_first's vector, its length; 0 when there is no bulge to move. */
static int hs_reflect(hs_run *r, int64_t ktop, int64_t kbot, int64_t k, const double *sr,
                      const double *si, double *v, double *tau)
{
    int64_t wd = r->wd;
    double beta[2];
    int len = kbot - k >= 3 ? 3 : 2;
    size_t el = sizeof(double) * (size_t)wd;
    if (k == ktop - 1) {
        if (!hs_first(r, ktop, sr, si, v))
            return 0;
        memcpy(beta, v, el);
        larfg(r->cplx, len, beta, v + wd, tau);
    } else {
        for (int i = 0; i < len; i++)
            memcpy(v + wd * i, HS_AT(r, k + 1 + i, k), el);
        memcpy(beta, v, el);
        larfg(r->cplx, len, beta, v + wd, tau);
        memcpy(HS_AT(r, k + 1, k), beta, el);
        for (int i = 1; i < len; i++)
            memset(HS_AT(r, k + 1 + i, k), 0, el);
    }
    v[0] = 1.0;
    if (r->cplx)
        v[1] = 0.0;
    return len;
}

/* The bulge at k's reflector from the right: on H's columns k+1.. of rows w0..k+4 (at most
 * kbot) and on U's, in the union of their nonzero rows */
static void hs_right_step(hs_run *r, int64_t kbot, int64_t w0, int64_t w1, int64_t k, int len,
                          const double *v, const double *tau)
{
    int64_t ldh = r->ldh, nw = w1 - w0 + 1;
    int64_t c = k + 1, rb = k + 4 < kbot ? k + 4 : kbot, lc = c - w0, lo = r->ulo[lc],
            hi = r->uhi[lc];
    for (int i = 1; i < len; i++) {
        lo = r->ulo[lc + i] < lo ? r->ulo[lc + i] : lo;
        hi = r->uhi[lc + i] > hi ? r->uhi[lc + i] : hi;
    }
    for (int i = 0; i < len; i++)
        r->ulo[lc + i] = lo, r->uhi[lc + i] = hi;
    if (r->cplx) {
        cx t = CMPLX(tau[0], tau[1]);
        const cx *vz = (const cx *)v;
        r->flops_chase += hs_right_z((cx *)r->H, ldh, c, len, w0, rb, vz, t) +
                          hs_right_z((cx *)r->U, nw, lc, len, lo, hi, vz, t);
    } else {
        r->flops_chase += hs_right(r->H, ldh, c, len, w0, rb, v, tau[0]) +
                          hs_right(r->U, nw, lc, len, lo, hi, v, tau[0]);
    }
}

/* One round of a chain in the window [w0, w1]: the bulges that move (bulge b when the one
 * ahead is four rows on, all in the window) each a step. Their rows (from the left) and
 * columns (from the right) are disjoint and left and right commute, so the reflectors are
 * formed first, then applied from the left in one pass over the window's columns, then from
 * the right. Returns 1 when one moved. */
static int hs_round(hs_run *r, int64_t ktop, int64_t kbot, int64_t w0, int64_t w1, int64_t nbm,
                    const double *sr, const double *si, int64_t *pos)
{
    double bv[6 * HS_MAX_BULGES], bt[2 * HS_MAX_BULGES];
    int64_t bc[HS_MAX_BULGES], c[HS_MAX_BULGES];
    int bl[HS_MAX_BULGES], nr = 0, moved = 0;
    for (int64_t b = 0; b < nbm; b++) {
        int64_t k = pos[b];
        if (k > kbot - 2 || (b > 0 && pos[b - 1] <= kbot - 2 && pos[b - 1] < k + 4) ||
            (k + 4 < kbot ? k + 4 : kbot) > w1)
            continue;
        /* d's larfg sets tau's real part alone, a 2-long reflector two of v's elements */
        memset(bv + 6 * nr, 0, sizeof(double) * 6);
        bt[2 * nr] = bt[2 * nr + 1] = 0.0;
        int len = hs_reflect(r, ktop, kbot, k, sr + 2 * b, si + 2 * b, bv + 6 * nr, bt + 2 * nr);
        pos[b]++, moved = 1;
        if (len && (bt[2 * nr] != 0.0 || bt[2 * nr + 1] != 0.0))
            bc[nr] = k, bl[nr++] = len;
    }
    int64_t j0 = w1 + 1;
    for (int i = 0; i < nr; i++) { /* the flops in real units (lx_host_flops scales z's by 4) */
        c[i] = bc[i] + 1;
        j0 = c[i] < j0 ? c[i] : j0;
        r->flops_chase += c[i] > w1 ? 0.0 : 4.0 * bl[i] * (double)(w1 - c[i] + 1);
    }
    if (r->cplx) {
        cx vz[3 * HS_MAX_BULGES], tz[HS_MAX_BULGES];
        for (int i = 0; i < nr; i++) {
            for (int e = 0; e < 3; e++)
                vz[3 * i + e] = CMPLX(bv[6 * i + 2 * e], bv[6 * i + 2 * e + 1]);
            tz[i] = CMPLX(bt[2 * i], -bt[2 * i + 1]);
        }
        hs_left_z((cx *)r->H, r->ldh, nr, c, bl, vz, tz, j0, w1);
    } else {
        double vd[3 * HS_MAX_BULGES], td[HS_MAX_BULGES];
        for (int i = 0; i < nr; i++) {
            for (int e = 0; e < 3; e++)
                vd[3 * i + e] = bv[6 * i + e];
            td[i] = bt[2 * i];
        }
        hs_left(r->H, r->ldh, nr, c, bl, vd, td, j0, w1);
    }
    for (int i = 0; i < nr; i++)
        hs_right_step(r, kbot, w0, w1, bc[i], bl[i], bv + 6 * i, bt + 2 * i);
    return moved;
}

/* A chain of nbm bulges with the shifts sr, si (2 nbm each) through [ktop, kbot] in windows
 * of 6 nbm + 8 rows: bulge b at pos[b] (its next step), three rows behind bulge b - 1, a
 * bulge's step deferred until the one ahead has made its own (the order of chasing them one
 * after the other) */
static void hs_chain(hs_run *r, int64_t ktop, int64_t kbot, int64_t nbm, const double *sr,
                     const double *si, int64_t *pos)
{
    int64_t wsz = 6 * nbm + 8 < r->wmax ? 6 * nbm + 8 : r->wmax;
    for (int64_t b = 0; b < nbm; b++)
        pos[b] = ktop - 1;
    while (pos[nbm - 1] <= kbot - 2) {
        int64_t w0 = pos[nbm - 1] > ktop ? pos[nbm - 1] : ktop;
        int64_t w1 = w0 + wsz - 1 < kbot ? w0 + wsz - 1 : kbot, nw = w1 - w0 + 1;
        lx_clock c = lx_tic(r->x);
        memset(r->U, 0, sizeof(double) * (size_t)(r->wd * nw * nw));
        for (int64_t i = 0; i < nw; i++)
            r->U[r->wd * (i + i * nw)] = 1.0, r->ulo[i] = r->uhi[i] = i;
        while (hs_round(r, ktop, kbot, w0, w1, nbm, sr, si, pos))
            ;
        lx_toc(r->x, c, &r->x->rep->chase_seconds);
        hs_update(r, ktop, kbot, w0, w1);
    }
}

/* A sweep of ns / 2 bulges with the shifts sr, si (ns each) through [ktop, kbot]: chains of
 * g bulges one after the other (the same as chasing the bulges one by one). A window's host
 * work per bulge step is about its width, 6 g + 8 rows, so the host chase of a sweep is about
 * nbm (6 g + 8) n, while the windows' product flops hardly depend on g (6 (6 g + 8)^2 n per
 * window, one per 3 g + 4 rows) and their number grows as nbm / g: g is lapack_model.c's
 * choice between the two on the executor in use (with native products on the CPU, 8 of 32
 * bulges at n = 1024: docs/lapack-nonsym.md, "Chains of bulges"). */
static void hs_sweep(hs_run *r, int64_t ktop, int64_t kbot, int64_t ns, const double *sr,
                     const double *si, int64_t *pos)
{
    int64_t nbm = ns / 2, g = lx_hseqr_chain(r->x, r->wantt ? r->n : kbot - ktop + 1, nbm,
                                             r->Z != NULL);
    g = g < HS_MAX_BULGES ? g : HS_MAX_BULGES;
    for (int64_t b0 = 0; b0 < nbm; b0 += g)
        hs_chain(r, ktop, kbot, nbm - b0 < g ? nbm - b0 : g, sr + 2 * b0, si + 2 * b0, pos);
}

/* ---- shifts and the iteration (dlaqr0, zlaqr0) ---------------------------------------------- */

/* iparmq's number of shifts for an active block of nh rows */
static int64_t hs_nshifts(int64_t nh)
{
    int64_t ns = nh < 30 ? 2 : nh < 60 ? 4 : nh < 150 ? 10 : nh < 590 ? 0 : nh < 3000 ? 64 : 128;
    if (ns == 0) {
        ns = nh / (int64_t)lround(log2((double)nh));
        ns = ns > 10 ? ns : 10;
    }
    return ns - ns % 2 > 2 ? ns - ns % 2 : 2;
}

/* dlaqr0's (zlaqr0's) exceptional shifts at rows ks..kbot */
static void hs_exceptional(const hs_run *r, int64_t ktop, int64_t kbot, int64_t ks)
{
    if (r->cplx) { /* H(i, i) + 0.75 |H(i, i - 1)|, twice */
        for (int64_t i = kbot; i >= ks + 1; i -= 2) {
            const double *d = HS_AT(r, i, i);
            r->sr[i - 1] = r->sr[i] = d[0] + 0.75 * mag(1, HS_AT(r, i, i - 1));
            r->si[i - 1] = r->si[i] = d[1];
        }
        return;
    }
    const double *H = r->H;
    int64_t ldh = r->ldh;
    for (int64_t i = kbot; i >= (ks + 1 > ktop + 2 ? ks + 1 : ktop + 2); i -= 2) {
        double ss = fabs(H[i + (i - 1) * ldh]) + fabs(H[i - 1 + (i - 2) * ldh]);
        double aa = 0.75 * ss + H[i + i * ldh], w = ss * sqrt(0.4375);
        r->sr[i - 1] = r->sr[i] = aa, r->si[i - 1] = w, r->si[i] = -w;
    }
    if (ks == ktop) {
        r->sr[ks] = r->sr[ks + 1] = H[ks + 1 + (ks + 1) * ldh];
        r->si[ks] = r->si[ks + 1] = 0.0;
    }
}

static void hs_swap(double *a, int64_t i, int64_t j)
{
    double t = a[i];
    a[i] = a[j], a[j] = t;
}

/* The shifts of a sweep (dlaqr0, zlaqr0): the AED's undeflated eigenvalues at ks..kbot, or
 * (when fewer than ns / 2) those of the trailing ns x ns block by the host, the smallest ns of
 * them (d: in conjugate pairs); exceptional shifts every sixth iteration without deflation.
 * Returns the first shift's row (ns = kbot - ks + 1 of them) */
static int64_t hs_shifts(hs_run *r, int64_t ktop, int64_t kbot, int64_t ks, int64_t ns,
                         int64_t ndfl)
{
    double *sr = r->sr, *si = r->si;
    if (ndfl % 6 == 0) {
        hs_exceptional(r, ktop, kbot, kbot - ns + 1);
        return kbot - ns + 1;
    }
    if (kbot - ks + 1 <= ns / 2) {
        ks = kbot - ns + 1;
        lx_clock c = lx_tic(r->x);
        hs_copy_out(r, ks, ns);
        int64_t inf = hs_schur(r, ns, ks, NULL);
        r->flops_win += 10.0 * (double)ns * ns * ns;
        lx_toc(r->x, c, &r->x->rep->solver_seconds);
        if (inf > 0 && (ks += inf) >= kbot - 1) {
            hs_exceptional(r, ktop, kbot, kbot - 1);
            return kbot - 1;
        }
    }
    if (kbot - ks + 1 > ns) /* the smallest ns last */
        for (int64_t i = ks; i < kbot; i++)
            for (int64_t j = kbot; j > i; j--)
                if (fabs(sr[j]) + fabs(si[j]) > fabs(sr[j - 1]) + fabs(si[j - 1]))
                    hs_swap(sr, j, j - 1), hs_swap(si, j, j - 1);
    for (int64_t i = kbot; !r->cplx && i >= ks + 2; i -= 2) /* conjugate pairs together */
        if (si[i] != -si[i - 1]) {
            hs_swap(sr, i, i - 1), hs_swap(sr, i - 1, i - 2);
            hs_swap(si, i, i - 1), hs_swap(si, i - 1, i - 2);
        }
    if (kbot - ks + 1 == 2 && (r->cplx || si[kbot] == 0.0)) { /* two: the closer one twice */
        const double *hk = HS_AT(r, kbot, kbot);
        double hi = r->cplx ? hk[1] : 0.0;
        if (fabs(sr[kbot] - hk[0]) + fabs(si[kbot] - hi) <
            fabs(sr[kbot - 1] - hk[0]) + fabs(si[kbot - 1] - hi))
            sr[kbot - 1] = sr[kbot], si[kbot - 1] = si[kbot];
        else
            sr[kbot] = sr[kbot - 1], si[kbot] = si[kbot - 1];
    }
    ns = ns < kbot - ks + 1 ? ns : kbot - ks + 1;
    return kbot - (ns - ns % 2) + 1;
}

/* The lowest row ktop >= ilo of the active block ending at kbot: H(ktop, ktop - 1) zero, or
 * set to zero when negligible by dlahqr's test (Ahues and Tisseur; z: |Re| + |Im|) */
static int64_t hs_split(hs_run *r, int64_t kbot)
{
    double ulp = DBL_EPSILON, smlnum = DBL_MIN * ((double)(r->ihi - r->ilo + 1) / ulp);
    int cz = r->cplx;
    int64_t k;
    for (k = kbot; k > r->ilo; k--) {
        double *sub = HS_AT(r, k, k - 1), h = mag(cz, sub);
        const double *hkk = HS_AT(r, k, k), *hll = HS_AT(r, k - 1, k - 1);
        if (h == 0.0)
            break;
        double tst = mag(cz, hll) + mag(cz, hkk);
        if (h > ulp * tst && h > smlnum)
            continue;
        double up = mag(cz, HS_AT(r, k - 1, k)), dd = mag_diff(cz, hll, hkk);
        double ab = fmax(h, up), ba = fmin(h, up);
        double aa = fmax(mag(cz, hkk), dd), bb = fmin(mag(cz, hkk), dd);
        double s = aa + ab;
        if (h <= smlnum || ba * (ab / s) <= fmax(smlnum, ulp * (bb * (aa / s)))) {
            memset(sub, 0, sizeof(double) * (size_t)r->wd);
            break;
        }
    }
    return k;
}

/* dlaqr0's loop on [ilo, ihi]: 0, or the 1-based row above which the iteration did not
 * converge (LAPACK's info > 0) */
static int64_t hs_iterate(hs_run *r, int64_t *pos)
{
    int64_t nh0 = r->ihi - r->ilo + 1, itmax = 30 * (nh0 > 10 ? nh0 : 10), ndfl = 1, nw = 0;
    int64_t nsmax = (r->n - 3) / 6 < r->wmax / 3 - 2 ? (r->n - 3) / 6 : r->wmax / 3 - 2;
    nsmax = nsmax < 2 ? 2 : nsmax - nsmax % 2;
    for (int64_t kbot = r->ihi, it = 0; kbot >= r->ilo; it++) {
        if (it >= itmax)
            return kbot + 1;
        int64_t ktop = hs_split(r, kbot), nh = kbot - ktop + 1;
        if (nh <= r->nmin) {
            int64_t inf = hs_small(r, ktop, kbot);
            if (inf > 0)
                return ktop + inf;
            kbot = ktop - 1, ndfl = 1;
            continue;
        }
        int64_t nsr = hs_nshifts(nh), nwr = nh <= 500 ? nsr : 3 * nsr / 2;
        int64_t nwup = nh < r->wmax ? nh : r->wmax;
        nw = ndfl < 5 ? nwr : 2 * nw;
        nw = nw < nwup ? nw : nwup;
        nw = nw < 2 ? 2 : nw;
        int64_t ls, ld = hs_aed(r, ktop, kbot, nw, &ls);
        kbot -= ld;
        int64_t ks = kbot - ls + 1;
        if (ld == 0 || (100 * ld <= 14 * nw && kbot - ktop + 1 > r->nmin)) {
            int64_t ns = nsr < nsmax ? nsr : nsmax;
            ns = ns < kbot - ktop ? ns : kbot - ktop;
            ns = ns < 2 ? 2 : ns - ns % 2;
            ks = hs_shifts(r, ktop, kbot, ks, ns, ndfl);
            if (kbot - ks + 1 >= 2)
                hs_sweep(r, ktop, kbot, kbot - ks + 1, r->sr + ks, r->si + ks, pos);
        }
        ndfl = ld > 0 ? 1 : ndfl + 1;
    }
    return 0;
}

/* The eigenvalues of rows [a, b] into the caller's (d: wr, wi; z: wr as complex): T's blocks
 * (schur) or H's diagonal (rows gebal isolated) */
static void hs_values(const hs_run *r, int64_t a, int64_t b, int schur, double *wr, double *wi)
{
    if (schur && !r->cplx) {
        hs_eig_blocks(0, r->H, r->ldh, a, b, wr, wi);
        return;
    }
    for (int64_t i = a; i <= b; i++) {
        memcpy(wr + r->wd * i, HS_AT(r, i, i), sizeof(double) * (size_t)r->wd);
        if (!r->cplx)
            wi[i] = 0.0;
    }
}

/* LAPACK's dhseqr or zhseqr (x->cplx; job 'E' or 'S', compz 'N' or 'V'; ilo, ihi 1-based) on
 * host memory: H and Z as the host routine leaves them, the eigenvalues in wr and wi (z: wr as
 * n complex, wi unused), *info as its. x->failed when the workspace cannot be had. */
void lx_hseqr(oz_lx *x, char job, char compz, int64_t n, int64_t ilo, int64_t ihi, double *H,
              int64_t ldh, double *wr, double *wi, double *Z, int64_t ldz, int64_t *info)
{
    hs_run r = {x, job == 'S', x->cplx, x->cplx ? 2 : 1, n, ilo - 1, ihi - 1, H,
                compz == 'V' ? Z : NULL, ldh, ldz};
    int64_t nh = ihi - ilo + 1, ns = hs_nshifts(nh), wd = r.wd;
    /* nmin: iparmq's 75 (an explicit nb below it: nb, at least 12). Above it the host's
       Schur form of a whole block (20 nmin^3 flops with vectors) costs more than AED and
       sweeps whose updates are products: nb = 256 measured solver + chase 0.28 s against
       0.30 s for 75 (dgeev, n = 1024; zgeev n = 512: 0.26 s against 0.28 s) */
    r.nmin = x->nb < 75 ? x->nb : 75;
    r.nmin = r.nmin > 12 ? r.nmin : 12;
    r.wmax = r.nmin > 3 * ns + 8 ? r.nmin : 3 * ns + 8;
    r.wmax = r.wmax > 2 * ns ? r.wmax : 2 * ns;
    r.wmax = r.wmax < nh ? r.wmax : nh;
    *info = 0;
    if (ilo > 1)
        hs_values(&r, 0, ilo - 2, 0, wr, wi);
    if (ihi < n)
        hs_values(&r, ihi, n - 1, 0, wr, wi);
    if (nh <= 0)
        return;
    /* below the subdiagonal: zeros (gehrd's reflectors may be there; hseqr leaves zeros) */
    for (int64_t j = 0; j + 2 < n; j++)
        memset(HS_AT(&r, j + 2, j), 0, sizeof(double) * (size_t)(wd * (n - j - 2)));
    double q[2] = {0.0, 0.0}, d[8] = {0.0};
    host_hseqr(r.cplx, r.wmax, d, r.wmax, d + 2, d + 4, d + 6, r.wmax, q, -1); /* the query */
    r.lhw = (int64_t)q[0] + 3 * r.wmax + 64 * r.wmax;
    size_t w2 = (size_t)(wd * r.wmax * r.wmax);
    r.U = oz_malloc(sizeof(double) *
                    (2 * w2 + (size_t)(wd * r.wmax * n + 2 * n + 2 * r.wmax + wd * r.lhw)));
    int64_t *pos = oz_malloc(sizeof(int64_t) * (size_t)(nh / 2 + 1 + 2 * r.wmax));
    if (!r.U || !pos) {
        free(r.U);
        free(pos);
        x->failed = 1;
        return;
    }
    r.T = r.U + w2, r.W = r.T + w2, r.sr = r.W + wd * r.wmax * n, r.si = r.sr + n;
    r.cw = r.si + n, r.hw = r.cw + 2 * r.wmax;
    r.ulo = pos + nh / 2 + 1, r.uhi = r.ulo + r.wmax;
    *info = hs_iterate(&r, pos);
    hs_values(&r, *info > 0 ? *info : ilo - 1, ihi - 1, 1, wr, wi);
    lx_host_flops(x, r.flops_chase + r.flops_win);
    free(r.U);
    free(pos);
}
