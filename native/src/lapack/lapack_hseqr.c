/* The Hessenberg QR iteration for double (LAPACK's dhseqr, its dlaqr0/dlaqr3/dlaqr5
 * structure: Braman, Byers and Mathias's small-bulge multishift QR with aggressive early
 * deflation), host memory, the work on H and Z above the host's small windows as products:
 *
 *   the active block [ktop, kbot] is found at the bottom (a subdiagonal that is zero, or
 *   negligible by dlahqr's test); an active block of at most nmin rows is one window;
 *   aggressive early deflation (AED): the bottom window of nw rows reduced to Schur form by
 *   the host dhseqr on a copy (V its Schur vectors), the spike s V(0, :) checked from the
 *   bottom, undeflatable blocks moved to the top by the host dtrexc, the rest of the window
 *   brought back to Hessenberg form (a reflector on the spike, the host dgehrd and dormhr);
 *   the sweep: ns / 2 double-shift bulges (the AED window's undeflated eigenvalues as shifts,
 *   or the trailing block's by the host dhseqr, exceptional shifts every sixth iteration
 *   without deflation as dlaqr0's) introduced at ktop one behind the other, three rows
 *   apart, and chased together through windows of about 6 ns / 2 rows: inside a window
 *   the reflectors touch its diagonal block only (host work), their product accumulated
 *   into the window's orthogonal U;
 *   every window (chase, AED, the small active block) then updates H's rows to its right,
 *   H's columns above it and Z's columns as products with U (ozblas GEMMs).
 * The windows' host work is counted as the report's chase_seconds (bulges) and
 * solver_seconds (the host dhseqr, dtrexc, dgehrd, dormhr on windows). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/oz_internal.h"
#include "oz_lapack.h"

/* ---- the host routines ------------------------------------------------------------------ */

int lx_hseqr_ready(void)
{
    static const int ids[] = {LXH_dhseqr, LXH_trexc, LXH_gehrd, LXH_ormhr, LXH_larfg};
    return lx_host_all(0, ids, 5);
}

int lx_hseqr_takes(int64_t n, int64_t ilo, int64_t ihi, const double *H, int64_t ldh)
{
    if (!lx_hseqr_ready() || ilo < 1 || ihi < ilo || ihi > n)
        return 0;
    for (int64_t j = ilo - 1; j < ihi; j++)
        for (int64_t i = ilo - 1; i <= j + 1 && i < ihi; i++)
            if (!isfinite(H[i + j * ldh]))
                return 0;
    return 1;
}

/* dlarfg: (alpha; x) -> (beta; 0) by I - tau v v^T, v = (1; x) on return (n - 1 at v) */
static void larfg(int64_t n, double *alpha, double *v, double *tau)
{
    LX_F77(I n4 = (I)n, one = 1;
        LX_HOST(0, larfg)(&n4, alpha, v, &one, tau););
}

/* The host dhseqr (job 'S', compz 'I' with V, or job 'E', compz 'N' without) on the n x n
 * T; its info. wr, wi: n each. */
static int64_t host_hseqr(int64_t n, double *T, int64_t ldt, double *wr, double *wi, double *V,
                          int64_t ldv, double *work, int64_t lwork)
{
    char job = V ? 'S' : 'E', compz = V ? 'I' : 'N';
    double nv;
    int64_t info = 0;
    LX_F77(I n4 = (I)n, one = 1, lt = (I)ldt, lv = V ? (I)ldv : 1, lw = (I)lwork, inf4 = 0;
        LX_HOST(0, dhseqr)(&job, &compz, &n4, &one, &n4, T, &lt, wr, wi, V ? V : &nv, &lv, work,
                           &lw, &inf4, 1, 1);
        info = inf4;);
    return info;
}

/* The host dtrexc (compq 'V'): the block at ifst (1-based) moved to ilst; *ilst its place */
static int64_t trexc(int64_t n, double *T, int64_t ldt, double *V, int64_t ldv, int64_t ifst,
                     int64_t *ilst, double *work)
{
    char compq = 'V';
    int64_t info = 0;
    LX_F77(I n4 = (I)n, lt = (I)ldt, lv = (I)ldv, if4 = (I)ifst, il4 = (I)*ilst, inf4 = 0;
        LX_HOST(0, trexc)(&compq, &n4, T, &lt, V, &lv, &if4, &il4, work, &inf4, 1);
        *ilst = il4, info = inf4;);
    return info;
}

/* The host dgehrd on rows and columns 1..ihi of the n x n T, then V (m x n) := V Q by dormhr */
static void gehrd_ormhr(int64_t n, int64_t ihi, double *T, int64_t ldt, int64_t m, double *V,
                        int64_t ldv, double *tau, double *work, int64_t lwork)
{
    char side = 'R', trans = 'N';
    LX_F77(I n4 = (I)n, one = 1, hi = (I)ihi, lt = (I)ldt, m4 = (I)m, lv = (I)ldv, lw = (I)lwork;
        I inf4 = 0;
        LX_HOST(0, gehrd)(&n4, &one, &hi, T, &lt, tau, work, &lw, &inf4);
        LX_HOST(0, ormhr)(&side, &trans, &m4, &n4, &one, &hi, T, &lt, tau, V, &lv, work, &lw, &inf4,
                          1, 1););
}

/* ---- the run ---------------------------------------------------------------------------- */

typedef struct {
    oz_lx *x;
    int wantt;
    int64_t n, ilo, ihi; /* 0-based active range */
    double *H, *Z;       /* Z NULL: no Schur vectors */
    int64_t ldh, ldz;
    double *sr, *si;      /* shifts (and eigenvalues) by row, n each */
    double *U, *T, *W;    /* a window's U and host copy (wmax^2 each); products' W (wmax n) */
    double *hw;           /* the host routines' workspace, lhw doubles */
    int64_t *ulo, *uhi;   /* a chase window's U: column j nonzero in rows ulo[j]..uhi[j] */
    int64_t wmax, lhw, nmin;
    double flops_chase, flops_win;
} hs_run;

/* The window [w0, w1] done: H's rows right of it (up to column n - 1, or kbot without T),
 * H's columns above it (from row 0, or ktop), Z's rows ilo..ihi, each times U as a product */
static void hs_update(hs_run *r, int64_t ktop, int64_t kbot, int64_t w0, int64_t w1)
{
    oz_lx *x = r->x;
    int64_t nw = w1 - w0 + 1, cend = r->wantt ? r->n - 1 : kbot, rtop = r->wantt ? 0 : ktop;
    double *H = r->H, *W = r->W;
    int64_t ldh = r->ldh;
    if (cend > w1) {
        int64_t c = cend - w1;
        lx_gemm(x, 'T', 'N', nw, c, nw, ONE, r->U, nw, H + w0 + (w1 + 1) * ldh, ldh, ZERO, W, nw);
        for (int64_t j = 0; j < c; j++)
            memcpy(H + w0 + (w1 + 1 + j) * ldh, W + j * nw, sizeof(double) * (size_t)nw);
    }
    if (w0 > rtop) {
        int64_t m = w0 - rtop;
        lx_gemm(x, 'N', 'N', m, nw, nw, ONE, H + rtop + w0 * ldh, ldh, r->U, nw, ZERO, W, m);
        for (int64_t j = 0; j < nw; j++)
            memcpy(H + rtop + (w0 + j) * ldh, W + j * m, sizeof(double) * (size_t)m);
    }
    if (r->Z) {
        int64_t m = r->ihi - r->ilo + 1;
        double *Zb = r->Z + r->ilo + w0 * r->ldz;
        lx_gemm(x, 'N', 'N', m, nw, nw, ONE, Zb, r->ldz, r->U, nw, ZERO, W, m);
        for (int64_t j = 0; j < nw; j++)
            memcpy(Zb + j * r->ldz, W + j * m, sizeof(double) * (size_t)m);
    }
}

/* The window's diagonal block into the host copy T (nw x nw, its Hessenberg part) */
static void hs_copy_out(hs_run *r, int64_t w0, int64_t nw)
{
    for (int64_t j = 0; j < nw; j++)
        for (int64_t i = 0; i < nw; i++)
            r->T[i + j * nw] = i <= j + 1 ? r->H[w0 + i + (w0 + j) * r->ldh] : 0.0;
}

/* ... and back, zeros below the subdiagonal */
static void hs_copy_in(hs_run *r, int64_t w0, int64_t nw)
{
    for (int64_t j = 0; j < nw; j++)
        for (int64_t i = 0; i < nw; i++)
            r->H[w0 + i + (w0 + j) * r->ldh] = i <= j + 1 ? r->T[i + j * nw] : 0.0;
}

/* The whole active block [ktop, kbot] (at most wmax rows) to Schur form by the host, its
 * updates as products; the host's info (rows of the block not converged) */
static int64_t hs_small(hs_run *r, int64_t ktop, int64_t kbot)
{
    int64_t nw = kbot - ktop + 1;
    lx_clock c = lx_tic(r->x);
    hs_copy_out(r, ktop, nw);
    int64_t info = host_hseqr(nw, r->T, nw, r->sr + ktop, r->si + ktop, r->U, nw, r->hw, r->lhw);
    hs_copy_in(r, ktop, nw);
    r->flops_win += 20.0 * (double)nw * nw * nw;
    lx_toc(r->x, c, &r->x->rep->solver_seconds);
    hs_update(r, ktop, kbot, ktop, kbot);
    return info;
}

/* The deflation test of dlaqr3 on the block of order bs ending at row e of the window's T
 * (a 1 x 1 or a standardized 2 x 2), spike s V(0, :) */
static int hs_deflatable(const hs_run *r, int64_t nw, int64_t e, int bs, double s)
{
    const double *T = r->T, *V = r->U;
    double ulp = DBL_EPSILON, smlnum = DBL_MIN * ((double)nw / ulp);
    double foo = fabs(T[e + e * nw]);
    if (bs == 2)
        foo += sqrt(fabs(T[e + (e - 1) * nw])) * sqrt(fabs(T[e - 1 + e * nw]));
    if (foo == 0.0)
        foo = fabs(s);
    double sp = fabs(s * V[e * nw]);
    if (bs == 2 && fabs(s * V[(e - 1) * nw]) > sp)
        sp = fabs(s * V[(e - 1) * nw]);
    return sp <= fmax(smlnum, ulp * foo);
}

/* The eigenvalues of T's diagonal blocks rows [a, b] into sr, si at off (standardized 2 x 2
 * blocks: a +- i sqrt|b c|) */
static void hs_eig_blocks(const double *T, int64_t ld, int64_t a, int64_t b, double *sr,
                          double *si)
{
    for (int64_t i = a; i <= b; i++) {
        sr[i] = T[i + i * ld], si[i] = 0.0;
        if (i < b && T[i + 1 + i * ld] != 0.0) {
            double w = sqrt(fabs(T[i + 1 + i * ld])) * sqrt(fabs(T[i + (i + 1) * ld]));
            sr[i + 1] = T[i + 1 + (i + 1) * ld], si[i] = w, si[i + 1] = -w, i++;
        }
    }
}

/* Aggressive early deflation on the bottom nw rows of [ktop, kbot] (dlaqr3): the number of
 * eigenvalues deflated (their values in sr, si at their rows), *nsh the undeflated ones,
 * whose values are left in sr, si at rows kwtop.. as shifts */
static int64_t hs_aed(hs_run *r, int64_t ktop, int64_t kbot, int64_t nw, int64_t *nsh)
{
    int64_t kwtop = kbot - nw + 1, ldh = r->ldh;
    double s = kwtop == ktop ? 0.0 : r->H[kwtop + (kwtop - 1) * ldh], *T = r->T, *V = r->U;
    lx_clock c = lx_tic(r->x);
    hs_copy_out(r, kwtop, nw);
    int64_t infqr = host_hseqr(nw, T, nw, r->sr + kwtop, r->si + kwtop, V, nw, r->hw, r->lhw);
    int64_t ns = nw, ilst = infqr + 1; /* ilst 1-based: where the next undeflatable goes */
    while (ilst <= ns) {
        int bs = ns >= 2 && T[ns - 1 + (ns - 2) * nw] != 0.0 ? 2 : 1;
        if (hs_deflatable(r, nw, ns - 1, bs, s)) {
            ns -= bs;
        } else {
            int64_t ifst = ns - bs + 1;
            trexc(nw, T, nw, V, nw, ifst, &ilst, r->hw);
            ilst += bs;
        }
    }
    if (ns == 0)
        s = 0.0;
    hs_eig_blocks(T, nw, 0, nw - 1, r->sr + kwtop, r->si + kwtop);
    if (ns > 1 && s != 0.0) {
        /* the spike's first ns entries to a multiple of e1 by one reflector, then T's
           leading ns x ns block back to Hessenberg form */
        double *v = r->hw, tau, beta;
        for (int64_t i = 0; i < ns; i++)
            v[i] = V[i * nw];
        beta = v[0];
        larfg(ns, &beta, v + 1, &tau);
        v[0] = 1.0;
        for (int64_t j = 0; j < nw; j++) { /* T := P T (rows 0..ns-1) */
            double d = 0.0;
            for (int64_t i = 0; i < ns; i++)
                d += v[i] * T[i + j * nw];
            for (int64_t i = 0; i < ns; i++)
                T[i + j * nw] -= tau * d * v[i];
        }
        for (int64_t i = 0; i < nw; i++) { /* T := T P (columns 0..ns-1), V := V P */
            for (int k = 0; k < 2; k++) {
                double *M = k ? V : T, d = 0.0;
                if (!k && i >= ns)
                    continue;
                for (int64_t j = 0; j < ns; j++)
                    d += M[i + j * nw] * v[j];
                for (int64_t j = 0; j < ns; j++)
                    M[i + j * nw] -= tau * d * v[j];
            }
        }
        /* V(0, :) is now beta e1; Q of dgehrd leaves it so */
        gehrd_ormhr(nw, ns, T, nw, nw, V, nw, r->hw + nw, r->hw + 2 * nw, r->lhw - 2 * nw);
    }
    hs_copy_in(r, kwtop, nw);
    if (kwtop > 0)
        r->H[kwtop + (kwtop - 1) * ldh] = s * V[0];
    r->flops_win += 20.0 * (double)nw * nw * nw;
    lx_toc(r->x, c, &r->x->rep->solver_seconds);
    hs_update(r, ktop, kbot, kwtop, kbot);
    *nsh = ns;
    return nw - ns;
}

/* ---- the sweep ---------------------------------------------------------------------------- */

/* Rows c..c+len-1 of M's columns j0..j1 := (I - tau v v^T) times them (v[0] = 1); the flops */
static double hs_left(double *M, int64_t ld, int64_t c, int len, int64_t j0, int64_t j1,
                      const double *v, double tau)
{
    if (tau == 0.0 || j1 < j0)
        return 0.0;
    for (int64_t j = j0; j <= j1; j++) {
        double *m = M + c + j * ld, t = m[0] + v[1] * m[1] + (len == 3 ? v[2] * m[2] : 0.0);
        t *= tau;
        m[0] -= t, m[1] -= t * v[1];
        if (len == 3)
            m[2] -= t * v[2];
    }
    return 4.0 * len * (double)(j1 - j0 + 1);
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

/* One step of a bulge at k (ktop - 1: introduced with the shifts (sr, si) pair) in the
 * window [w0, w1]: the reflector on rows and columns k + 1.. inside the window, into U */
static void hs_step(hs_run *r, int64_t ktop, int64_t kbot, int64_t w0, int64_t w1, int64_t k,
                    const double *sr, const double *si)
{
    double *H = r->H, v[3], tau, beta;
    int64_t ldh = r->ldh, nw = w1 - w0 + 1;
    int len = kbot - k >= 3 ? 3 : 2;
#define HH(i, j) H[(i) + (j) * ldh]
    if (k == ktop - 1) { /* dlaqr1: (H - s1)(H - s2) e1, scaled */
        double h00 = HH(ktop, ktop), h10 = HH(ktop + 1, ktop);
        double s = fabs(h00 - sr[1]) + fabs(si[1]) + fabs(h10);
        if (s == 0.0)
            return;
        double h10s = h10 / s;
        v[0] = (h00 - sr[0]) * ((h00 - sr[1]) / s) - si[0] * (si[1] / s) + HH(ktop, ktop + 1) * h10s;
        v[1] = h10s * (h00 + HH(ktop + 1, ktop + 1) - sr[0] - sr[1]);
        v[2] = h10s * HH(ktop + 2, ktop + 1);
        beta = v[0];
        larfg(len, &beta, v + 1, &tau);
    } else {
        for (int i = 0; i < len; i++)
            v[i] = HH(k + 1 + i, k);
        beta = v[0];
        larfg(len, &beta, v + 1, &tau);
        HH(k + 1, k) = beta;
        for (int i = 1; i < len; i++)
            HH(k + 1 + i, k) = 0.0;
    }
    v[0] = 1.0;
    /* U's columns c..c+len-1 (window-local) are nonzero in the union of their row ranges */
    int64_t c = k + 1, rb = k + 4 < kbot ? k + 4 : kbot, lc = c - w0, lo = r->ulo[lc],
            hi = r->uhi[lc];
    for (int i = 1; i < len; i++) {
        lo = r->ulo[lc + i] < lo ? r->ulo[lc + i] : lo;
        hi = r->uhi[lc + i] > hi ? r->uhi[lc + i] : hi;
    }
    for (int i = 0; i < len; i++)
        r->ulo[lc + i] = lo, r->uhi[lc + i] = hi;
    r->flops_chase += hs_left(H, ldh, c, len, c, w1, v, tau) +
                      hs_right(H, ldh, c, len, w0, rb, v, tau) +
                      hs_right(r->U, nw, lc, len, lo, hi, v, tau);
#undef HH
}

/* A sweep of ns / 2 bulges with the shifts sr, si (ns each) through [ktop, kbot]: bulge b
 * at pos[b] (its next step), three rows behind bulge b - 1, a bulge's step deferred until
 * the one ahead has made its own (the order of chasing them one after the other) */
static void hs_sweep(hs_run *r, int64_t ktop, int64_t kbot, int64_t ns, const double *sr,
                     const double *si, int64_t *pos)
{
    int64_t nbm = ns / 2, wsz = 3 * ns + 8 < r->wmax ? 3 * ns + 8 : r->wmax;
    for (int64_t b = 0; b < nbm; b++)
        pos[b] = ktop - 1;
    while (pos[nbm - 1] <= kbot - 2) {
        int64_t w0 = pos[nbm - 1] > ktop ? pos[nbm - 1] : ktop;
        int64_t w1 = w0 + wsz - 1 < kbot ? w0 + wsz - 1 : kbot, nw = w1 - w0 + 1;
        lx_clock c = lx_tic(r->x);
        memset(r->U, 0, sizeof(double) * (size_t)(nw * nw));
        for (int64_t i = 0; i < nw; i++)
            r->U[i + i * nw] = 1.0, r->ulo[i] = r->uhi[i] = i;
        for (int moved = 1; moved;) {
            moved = 0;
            for (int64_t b = 0; b < nbm; b++) {
                int64_t k = pos[b];
                if (k > kbot - 2 || (b > 0 && pos[b - 1] <= kbot - 2 && pos[b - 1] < k + 4) ||
                    (k + 4 < kbot ? k + 4 : kbot) > w1)
                    continue;
                hs_step(r, ktop, kbot, w0, w1, k, sr + 2 * b, si + 2 * b);
                pos[b]++, moved = 1;
            }
        }
        lx_toc(r->x, c, &r->x->rep->chase_seconds);
        hs_update(r, ktop, kbot, w0, w1);
    }
}

/* ---- shifts and the iteration (dlaqr0) ------------------------------------------------------ */

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

/* dlaqr0's exceptional shifts at rows ks..kbot */
static void hs_exceptional(const hs_run *r, int64_t ktop, int64_t kbot, int64_t ks)
{
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

/* The shifts of a sweep (dlaqr0): the AED's undeflated eigenvalues at ks..kbot, or (when
 * fewer than ns / 2) those of the trailing ns x ns block by the host, the smallest ns of them
 * in pairs; exceptional shifts every sixth iteration without deflation. Returns the first
 * shift's row (ns = kbot - ks + 1 of them) */
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
        int64_t inf = host_hseqr(ns, r->T, ns, sr + ks, si + ks, NULL, 1, r->hw, r->lhw);
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
                if (fabs(sr[j]) + fabs(si[j]) > fabs(sr[j - 1]) + fabs(si[j - 1])) {
                    double t = sr[j];
                    sr[j] = sr[j - 1], sr[j - 1] = t, t = si[j], si[j] = si[j - 1], si[j - 1] = t;
                }
    for (int64_t i = kbot; i >= ks + 2; i -= 2) /* conjugate pairs together */
        if (si[i] != -si[i - 1]) {
            double t = sr[i];
            sr[i] = sr[i - 1], sr[i - 1] = sr[i - 2], sr[i - 2] = t;
            t = si[i], si[i] = si[i - 1], si[i - 1] = si[i - 2], si[i - 2] = t;
        }
    if (kbot - ks + 1 == 2 && si[kbot] == 0.0) { /* two real shifts: the closer one twice */
        double hk = r->H[kbot + kbot * r->ldh];
        if (fabs(sr[kbot] - hk) < fabs(sr[kbot - 1] - hk))
            sr[kbot - 1] = sr[kbot];
        else
            sr[kbot] = sr[kbot - 1];
    }
    ns = ns < kbot - ks + 1 ? ns : kbot - ks + 1;
    return kbot - (ns - ns % 2) + 1;
}

/* The lowest row ktop >= ilo of the active block ending at kbot: H(ktop, ktop - 1) zero, or
 * set to zero when negligible by dlahqr's test (Ahues and Tisseur) */
static int64_t hs_split(hs_run *r, int64_t kbot)
{
    double *H = r->H, ulp = DBL_EPSILON, smlnum = DBL_MIN * ((double)(r->ihi - r->ilo + 1) / ulp);
    int64_t ldh = r->ldh, k;
    for (k = kbot; k > r->ilo; k--) {
        double h = fabs(H[k + (k - 1) * ldh]), hkk = H[k + k * ldh], hll = H[k - 1 + (k - 1) * ldh];
        if (h == 0.0)
            break;
        double tst = fabs(hll) + fabs(hkk);
        if (h > ulp * tst && h > smlnum)
            continue;
        double ab = fmax(h, fabs(H[k - 1 + k * ldh])), ba = fmin(h, fabs(H[k - 1 + k * ldh]));
        double aa = fmax(fabs(hkk), fabs(hll - hkk)), bb = fmin(fabs(hkk), fabs(hll - hkk));
        double s = aa + ab;
        if (h <= smlnum || ba * (ab / s) <= fmax(smlnum, ulp * (bb * (aa / s)))) {
            H[k + (k - 1) * ldh] = 0.0;
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

/* LAPACK's dhseqr (job 'E' or 'S', compz 'N' or 'V'; ilo, ihi 1-based) on host memory: H
 * and Z as the host routine leaves them, wr and wi, *info as its. x->failed when the
 * workspace cannot be had. */
void lx_hseqr(oz_lx *x, char job, char compz, int64_t n, int64_t ilo, int64_t ihi, double *H,
              int64_t ldh, double *wr, double *wi, double *Z, int64_t ldz, int64_t *info)
{
    hs_run r = {x, job == 'S', n, ilo - 1, ihi - 1, H, compz == 'V' ? Z : NULL, ldh, ldz};
    int64_t nh = ihi - ilo + 1, ns = hs_nshifts(nh);
    r.nmin = x->nb > 12 ? x->nb : 12;
    r.wmax = r.nmin > 3 * ns + 8 ? r.nmin : 3 * ns + 8;
    r.wmax = r.wmax > 2 * ns ? r.wmax : 2 * ns;
    r.wmax = r.wmax < nh ? r.wmax : nh;
    *info = 0;
    for (int64_t i = 0; i < n; i++)
        if (i < ilo - 1 || i > ihi - 1)
            wr[i] = H[i + i * ldh], wi[i] = 0.0;
    if (nh <= 0)
        return;
    /* below the subdiagonal: zeros (gehrd's reflectors may be there; dhseqr leaves zeros) */
    for (int64_t j = 0; j + 2 < n; j++)
        for (int64_t i = j + 2; i < n; i++)
            H[i + j * ldh] = 0.0;
    double q = 0.0, d[4] = {0.0, 0.0, 0.0, 0.0};
    host_hseqr(r.wmax, d, r.wmax, d + 1, d + 2, d + 3, r.wmax, &q, -1); /* the query */
    r.lhw = (int64_t)q + 3 * r.wmax + 64 * r.wmax;
    size_t w2 = (size_t)(r.wmax * r.wmax);
    r.U = oz_malloc(sizeof(double) * (2 * w2 + (size_t)(r.wmax * n + 2 * n + r.lhw)));
    int64_t *pos = oz_malloc(sizeof(int64_t) * (size_t)(nh / 2 + 1 + 2 * r.wmax));
    if (!r.U || !pos) {
        free(r.U);
        free(pos);
        x->failed = 1;
        return;
    }
    r.T = r.U + w2, r.W = r.T + w2, r.sr = r.W + r.wmax * n, r.si = r.sr + n, r.hw = r.si + n;
    r.ulo = pos + nh / 2 + 1, r.uhi = r.ulo + r.wmax;
    *info = hs_iterate(&r, pos);
    int64_t lo = *info > 0 ? *info : ilo - 1;
    hs_eig_blocks(H, ldh, lo, ihi - 1, wr, wi);
    lx_host_flops(x, r.flops_chase + r.flops_win);
    free(r.U);
    free(pos);
}
