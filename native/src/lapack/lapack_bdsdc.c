/* The singular values and vectors of a real upper bidiagonal (LAPACK's dbdsdc with compq 'I')
 * by divide and conquer whose merges' singular-vector updates are ozblas products (issue 32,
 * docs/design/lapack.md, "The host remainder"). The structure is LAPACK's:
 *
 *   dbdsdc: scale to a largest entry of 1, tiny diagonal entries raised to eps, a split at
 *     every negligible off-diagonal entry, each piece by dlasd0, unscale, sort descending;
 *   dlasd0: the tree of the host dlasdt, leaves of at most SMLSIZ rows by the host dlasdq,
 *     then the merges bottom-up;
 *   dlasd1 (merge): deflation as dlasd2 (deflate() below: it permutes U's columns and VT's
 *     rows into U2 and VT2 by the columns' structure, O(n^2) copies), then dlasd3's work
 *     below, the merged values' order by the host dlamrg;
 *   dlasd3: the secular equation's roots by the host dlasd4 (one per root, O(k) each), z
 *     recomputed from the roots (Gu and Eisenstat, so that the vectors are orthogonal to
 *     working precision whatever the roots' errors), the merged problem's vectors Q, and
 *     U := U2 Q, VT := Q^T VT2 as products on U2's and VT2's nonzero blocks (dlasd3's DGEMMs):
 *     the O(n^3) part of the whole solver.
 *
 * Everything is host memory of the caller's (U, VT n x n, leading dimension n), so a run on the
 * CUDA executor stages the products' operands as any host product. Real products whatever
 * the driver's element type: the bidiagonal of a complex matrix is real. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "oz_lapack.h"

enum { SMLSIZ = 25 }; /* LAPACK's ilaenv(9) leaf size */

/* ---- the host routines ------------------------------------------------------------------- */

int lx_bdsdc_ready(void) { return lx_host_fn(0, LXH_bdsdc) != NULL; }

/* the divide and conquer's own host routines (a LAPACK that hides its auxiliaries leaves the
   whole solve to its dbdsdc) */
static int dc_ready(void)
{
    static const int ids[] = {LXH_bdsdc, LXH_lasdq, LXH_lasdt, LXH_lasd4, LXH_lamrg, LXH_lascl};
    return lx_host_all(0, ids, sizeof ids / sizeof *ids);
}

/* LAPACK's integer arrays, int64_t (ILP64) or int32_t elements: 8 bytes each allocated. */
static int64_t iget(const void *a, int64_t k)
{
    return lx_real_ilp64() ? ((const int64_t *)a)[k] : ((const int32_t *)a)[k];
}
static void iset(void *a, int64_t k, int64_t v)
{
    if (lx_real_ilp64())
        ((int64_t *)a)[k] = v;
    else
        ((int32_t *)a)[k] = (int32_t)v;
}
static void *iat(void *a, int64_t k) { return (char *)a + (lx_real_ilp64() ? 8 : 4) * k; }

/* dlasdq('U', sqre, n, ncvt = n + sqre, nru = n, ncc = 0) on VT and U */
static int64_t host_lasdq(int64_t sqre, int64_t n, double *d, double *e, double *VT,
                          int64_t ldvt, double *U, int64_t ldu, double *work)
{
    int64_t info = 0;
    char uplo = 'U';
    LX_F77(I sq = (I)sqre, n4 = (I)n, nc = (I)(n + sqre), zero = 0, lv = (I)ldvt, lu = (I)ldu;
           I one = 1, inf4 = 0;
           LX_HOST(0, lasdq)(&uplo, &sq, &n4, &nc, &n4, &zero, d, e, VT, &lv, U, &lu, U, &one, work,
                             &inf4, 1);
           info = inf4;);
    return info;
}

/* dlascl('G') of the n-vector v by cto / cfrom, LAPACK's overflow-safe steps */
static void host_lascl(double cfrom, double cto, int64_t n, double *v)
{
    char g = 'G';
    LX_F77(I zero = 0, n4 = (I)n, one = 1, inf4 = 0;
           LX_HOST(0, lascl)(&g, &zero, &zero, &cfrom, &cto, &n4, &one, v, &n4, &inf4, 1););
}

/* The 2-norm of v (k elements), scaled by its largest magnitude against overflow: the
 * largest by comparison (fmax is a libm call per entry here), the sum of squares in four
 * partial sums (one per SIMD lane; the O(k^2) normalizations spend their time here) */
static double nrm2(int64_t k, const double *v)
{
    double s = 0.0, t[4] = {0.0, 0.0, 0.0, 0.0};
    for (int64_t i = 0; i < k; i++)
        s = fabs(v[i]) > s ? fabs(v[i]) : s;
    if (s == 0.0)
        return 0.0;
    double r = 1.0 / s;
    int64_t i = 0;
    for (; i + 4 <= k; i += 4)
        for (int l = 0; l < 4; l++)
            t[l] += (v[i + l] * r) * (v[i + l] * r);
    for (; i < k; i++)
        t[0] += (v[i] * r) * (v[i] * r);
    return s * sqrt((t[0] + t[1]) + (t[2] + t[3]));
}

/* ---- one merge (dlasd1, dlasd3) ---------------------------------------------------------- */

/* A merge's workspace: z (m), dsigma (n), U2 (n x n), VT2 (m x m), Q (n x n) doubles, idx
 * (n LAPACK integers: dlamrg's), jc, coltyp, idxp, src (n each), for the largest n (and m =
 * n + 1). */
typedef struct {
    double *z, *dsigma, *U2, *VT2, *Q;
    void *idx;
    int64_t *jc, *coltyp, *idxp, *src; /* 0-based: dlasd2's idxc, coltyp, idxp; VT2's rows */
} dc_work;

/* LAPACK's dlapy2: sqrt(x^2 + y^2) without overflow or destructive underflow */
static double lapy2(double x, double y)
{
    if (isnan(x) || isnan(y))
        return isnan(x) ? x : y;
    double w = fmax(fabs(x), fabs(y)), z = fmin(fabs(x), fabs(y));
    return z == 0.0 || w > DBL_MAX ? w : w * sqrt(1.0 + (z / w) * (z / w));
}

/* x := c x + s y, y := c y - s x (drot) on n entries at strides incx, incy */
static void rot(int64_t n, double *x, int64_t incx, double *y, int64_t incy, double c, double s)
{
    for (int64_t i = 0; i < n; i++) {
        double a = x[i * incx], b = y[i * incy];
        x[i * incx] = c * a + s * b;
        y[i * incy] = c * b - s * a;
    }
}

/* ---- deflation (dlasd2) ------------------------------------------------------------------ */

/* The column of U (row of VT), 0-based, of the sorted position whose dlamrg index is q:
 * idxq's entries of the upper block count from the shifted d (dlasd2's IDXQ(q + 1), less one
 * at most nl + 1). */
static int64_t column(const void *idxq, int64_t q, int64_t nl)
{
    int64_t c = iget(idxq, q);
    return c <= nl + 1 ? c - 2 : c - 1;
}

/* dlasd2's first half on the merge of orders nl, nr (n = nl + nr + 1, m = n + sqre): z from
 * VT's rows nl and nl + 1, d's and z's entries 1.. in ascending order (the host dlamrg),
 * then the deflation of tiny z_j and of close pairs (a rotation of U's columns and VT's rows
 * zeroes one z), k the values kept; idxp the kept then (from the back) the deflated
 * positions, coltyp the columns' types (1 upper block, 2 lower, 3 both, 4 deflated). Returns
 * k; z1 (z_0 before scaling) and tol for the second half. */
static int64_t deflate_find(dc_work *w, int64_t nl, int64_t nr, int64_t sqre, double *d,
                            double alpha, double beta, double *U, int64_t ldu, double *VT,
                            int64_t ldvt, void *idxq, double *z1, double *tol)
{
    int64_t n = nl + nr + 1, m = n + sqre, *ct = w->coltyp, *ip = w->idxp;
    double *z = w->z, *ds = w->dsigma, *u2 = w->U2;
    *z1 = z[0] = alpha * VT[nl + nl * ldvt];
    for (int64_t i = nl - 1; i >= 0; i--) {
        z[i + 1] = alpha * VT[i + nl * ldvt];
        d[i + 1] = d[i];
        iset(idxq, i + 1, iget(idxq, i) + 1);
    }
    for (int64_t i = nl + 1; i < m; i++)
        z[i] = beta * VT[i + (nl + 1) * ldvt];
    for (int64_t i = 1; i < n; i++)
        ct[i] = i <= nl ? 1 : 2;
    for (int64_t i = nl + 1; i < n; i++)
        iset(idxq, i, iget(idxq, i) + nl + 1);
    for (int64_t i = 1; i < n; i++) { /* ds, u2 and jc as scratch */
        int64_t q = iget(idxq, i) - 1;
        ds[i] = d[q];
        u2[i] = z[q];
        w->jc[i] = ct[q];
    }
    LX_F77(I nl4 = (I)nl, nr4 = (I)nr, one = 1;
           LX_HOST(0, lamrg)(&nl4, &nr4, ds + 1, &one, &one, iat(w->idx, 1)););
    for (int64_t i = 1; i < n; i++) {
        int64_t q = iget(w->idx, i);
        d[i] = ds[q];
        z[i] = u2[q];
        ct[i] = w->jc[q];
    }
    const double eps = DBL_EPSILON / 2; /* dlamch('E') */
    double t = 8.0 * eps * fmax(fabs(d[n - 1]), fmax(fabs(alpha), fabs(beta)));
    int64_t k = 1, k2 = n, jprev = -1;
    for (int64_t j = 1; j < n; j++) {
        if (fabs(z[j]) <= t) { /* z_j tiny: deflated */
            ip[--k2] = j;
            ct[j] = 4;
        } else if (jprev >= 0 && fabs(d[j] - d[jprev]) <= t) { /* close pair: rotate */
            double s = z[jprev], c = z[j], tau = lapy2(c, s);
            c /= tau;
            s = -s / tau;
            z[j] = tau;
            z[jprev] = 0.0;
            int64_t cp = column(idxq, iget(w->idx, jprev), nl);
            int64_t cj = column(idxq, iget(w->idx, j), nl);
            rot(n, U + cp * ldu, 1, U + cj * ldu, 1, c, s);
            rot(m, VT + cp, ldvt, VT + cj, ldvt, c, s);
            if (ct[j] != ct[jprev])
                ct[j] = 3;
            ct[jprev] = 4;
            ip[--k2] = jprev;
            jprev = j;
        } else {
            if (jprev >= 0) {
                u2[k] = z[jprev];
                ds[k] = d[jprev];
                ip[k++] = jprev;
            }
            jprev = j;
        }
    }
    if (jprev >= 0) { /* the last kept value */
        u2[k] = z[jprev];
        ds[k] = d[jprev];
        ip[k++] = jprev;
    }
    *tol = t;
    return k;
}

/* dlasd2's second half: ctot (the types' counts), jc (dlasd2's idxc, 0-based: U2's columns
 * grouped by type), dsigma, U2's columns and VT2's rows in that order, z_0 (with sqre, VT's
 * extra row rotated into VT2's first and last rows), the deflated values and vectors back
 * into d, U and VT's last n - k places. VT's rows are gathered column by column: copied row by
 * row they would stride through VT at every entry (dlasd2's dcopy, the bulk of its time). */
static void deflate_copy(dc_work *w, int64_t nl, int64_t nr, int64_t sqre, int64_t k, double z1,
                         double tol, double *d, double *U, int64_t ldu, double *VT, int64_t ldvt,
                         const void *idxq, int64_t *ctot)
{
    int64_t n = nl + nr + 1, m = n + sqre, *ct = w->coltyp, *ip = w->idxp, *jc = w->jc, psm[4];
    double *z = w->z, *ds = w->dsigma, *U2 = w->U2, *VT2 = w->VT2;
    memset(ctot, 0, 4 * sizeof *ctot);
    for (int64_t j = 1; j < n; j++)
        ctot[ct[j] - 1]++;
    psm[0] = 1, psm[1] = 1 + ctot[0], psm[2] = psm[1] + ctot[1], psm[3] = psm[2] + ctot[2];
    for (int64_t j = 1; j < n; j++)
        jc[psm[ct[ip[j]] - 1]++] = j;
    for (int64_t j = 1; j < n; j++) {
        ds[j] = d[ip[j]];
        w->src[j] = column(idxq, iget(w->idx, ip[jc[j]]), nl);
        memcpy(U2 + j * n, U + w->src[j] * ldu, sizeof(double) * (size_t)n);
    }
    for (int64_t c = 0; c < m; c++)
        for (int64_t j = 1; j < n; j++)
            VT2[j + c * m] = VT[w->src[j] + c * ldvt];
    ds[0] = 0.0;
    if (fabs(ds[1]) <= tol / 2)
        ds[1] = tol / 2;
    double c = 1.0, s = 0.0;
    if (m > n) {
        z[0] = lapy2(z1, z[m - 1]);
        if (z[0] <= tol)
            z[0] = tol;
        else
            c = z1 / z[0], s = z[m - 1] / z[0];
    } else
        z[0] = fabs(z1) <= tol ? tol : z1;
    memcpy(z + 1, U2 + 1, sizeof(double) * (size_t)(k - 1));
    memset(U2, 0, sizeof(double) * (size_t)n);
    U2[nl] = 1.0;
    for (int64_t i = 0; i < m; i++) { /* VT2's first row (and with sqre VT's last rotated) */
        double a = VT[nl + i * ldvt], b = VT[m - 1 + i * ldvt];
        if (m == n)
            VT2[i * m] = a;
        else if (i <= nl)
            VT[m - 1 + i * ldvt] = -s * a, VT2[i * m] = c * a;
        else
            VT2[i * m] = s * b, VT[m - 1 + i * ldvt] = c * b;
        if (m > n)
            VT2[m - 1 + i * m] = VT[m - 1 + i * ldvt];
    }
    if (n > k) {
        memcpy(d + k, ds + k, sizeof(double) * (size_t)(n - k));
        for (int64_t j = k; j < n; j++)
            memcpy(U + j * ldu, U2 + j * n, sizeof(double) * (size_t)n);
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = k; j < n; j++)
                VT[j + i * ldvt] = VT2[j + i * m];
    }
}

/* The secular equation's roots into d (k) by the host dlasd4, U's and VT's first k columns
 * (k x k) its scratch, and z recomputed from them (dlasd3, Gu and Eisenstat); z's original
 * signs kept in q (k). */
static int64_t secular(int64_t k, double *d, const double *dsigma, double *z, double *q,
                       double *U, int64_t ldu, double *VT, int64_t ldvt)
{
    memcpy(q, z, sizeof(double) * (size_t)k);
    double rho = nrm2(k, z);
    host_lascl(rho, 1.0, k, z);
    rho *= rho;
    for (int64_t j = 0; j < k; j++) {
        int64_t info = 0;
        LX_F77(I k4 = (I)k, j4 = (I)(j + 1), inf4 = 0;
               LX_HOST(0, lasd4)(&k4, &j4, dsigma, z, U + j * ldu, &rho, d + j, VT + j * ldvt,
                                 &inf4);
               info = inf4;);
        if (info != 0)
            return info;
    }
    /* U(i, j) = dsigma_i - sigma_j, VT(i, j) = dsigma_i + sigma_j (dlasd4's delta, work).
       z_i = U(i, k-1) VT(i, k-1) times the factors of columns j = 0..k-2 in that order
       (dsigma_j for j < i, dsigma_j+1 from i on), as dlasd3 takes them, but column by
       column for all i at once (the running products in z, whose values dlasd4 has used):
       the O(k^2) loop reads U and VT down their columns, not across them. */
    for (int64_t i = 0; i < k; i++)
        z[i] = U[i + (k - 1) * ldu] * VT[i + (k - 1) * ldvt];
    for (int64_t j = 0; j < k - 1; j++) {
        const double *u = U + j * ldu, *v = VT + j * ldvt, a = dsigma[j + 1], b = dsigma[j];
#pragma omp simd
        for (int64_t i = 0; i <= j; i++)
            z[i] *= u[i] * v[i] / (dsigma[i] - a) / (dsigma[i] + a);
#pragma omp simd
        for (int64_t i = j + 1; i < k; i++)
            z[i] *= u[i] * v[i] / (dsigma[i] - b) / (dsigma[i] + b);
    }
    for (int64_t i = 0; i < k; i++)
        z[i] = copysign(sqrt(fabs(z[i])), q[i]);
    return 0;
}

/* The merged problem's normalized left (Q) and right (the scratch VT, then Q) vectors in
 * U2's column order (idxc), and U := U2 Q on U2's blocks: rows 0..nl of the columns of the
 * upper block (ctot[0], ctot[2] of them), row nl from Q's first row, the lower block's rows
 * from its columns (ctot[1] + ctot[2]). */
static void left_vectors(oz_lx *x, int64_t nl, int64_t nr, int64_t k, const double *dsigma,
                         const double *z, double *Q, double *U, int64_t ldu, double *VT,
                         int64_t ldvt, const double *U2, int64_t ldu2, const int64_t *jc,
                         const int64_t *ctot)
{
    int64_t n = nl + nr + 1;
    for (int64_t i = 0; i < k; i++) {
        double *u = U + i * ldu, *v = VT + i * ldvt;
        v[0] = z[0] / u[0] / v[0];
        u[0] = -1.0;
#pragma omp simd
        for (int64_t j = 1; j < k; j++) {
            v[j] = z[j] / u[j] / v[j];
            u[j] = dsigma[j] * v[j];
        }
        double t = 1.0 / nrm2(k, u);
        Q[i * k] = u[0] * t;
        for (int64_t j = 1; j < k; j++)
            Q[j + i * k] = u[jc[j]] * t;
    }
    if (k == 2) {
        lx_gemm(x, 'N', 'N', n, k, k, ONE, U2, ldu2, Q, k, ZERO, U, ldu);
        return;
    }
    int64_t k3 = 1 + ctot[0] + ctot[1];
    if (ctot[0] > 0) {
        lx_gemm(x, 'N', 'N', nl, k, ctot[0], ONE, U2 + ldu2, ldu2, Q + 1, k, ZERO, U, ldu);
        lx_gemm(x, 'N', 'N', nl, k, ctot[2], ONE, U2 + k3 * ldu2, ldu2, Q + k3, k, ONE, U, ldu);
    } else if (ctot[2] > 0) {
        lx_gemm(x, 'N', 'N', nl, k, ctot[2], ONE, U2 + k3 * ldu2, ldu2, Q + k3, k, ZERO, U, ldu);
    } else {
        for (int64_t j = 0; j < k; j++)
            memcpy(U + j * ldu, U2 + j * ldu2, sizeof(double) * (size_t)nl);
    }
    for (int64_t j = 0; j < k; j++)
        U[nl + j * ldu] = Q[j * k];
    int64_t k2 = 1 + ctot[0], c2 = ctot[1] + ctot[2];
    if (c2 > 0)
        lx_gemm(x, 'N', 'N', nr, k, c2, ONE, U2 + (nl + 1) + k2 * ldu2, ldu2, Q + k2, k, ZERO,
                U + nl + 1, ldu);
    else /* the lower block fully deflated: those rows of the new vectors are 0 */
        for (int64_t j = 0; j < k; j++)
            memset(U + nl + 1 + j * ldu, 0, sizeof(double) * (size_t)nr);
}

/* The right vectors (VT's scratch columns, normalized, rows of Q in VT2's row order) and
 * VT := Q^T VT2 on VT2's blocks: columns 0..nl from its rows of the upper block (1 + ctot[0],
 * ctot[2]), the columns right of nl from the lower block's rows (1 + ctot[1] + ctot[2],
 * row 0 moved next to them). */
static void right_vectors(oz_lx *x, int64_t nl, int64_t nr, int64_t sqre, int64_t k, double *Q,
                          double *VT, int64_t ldvt, double *VT2, int64_t ldvt2,
                          const int64_t *jc, const int64_t *ctot)
{
    int64_t m = nl + nr + 1 + sqre;
    for (int64_t i0 = 0; i0 < k; i0 += 8) { /* Q's rows in blocks of 8: its columns' lines */
        int64_t nr8 = k - i0 < 8 ? k - i0 : 8;
        double t[8];
        for (int64_t l = 0; l < nr8; l++) {
            t[l] = 1.0 / nrm2(k, VT + (i0 + l) * ldvt);
            Q[i0 + l] = VT[(i0 + l) * ldvt] * t[l];
        }
        for (int64_t j = 1; j < k; j++)
            for (int64_t l = 0; l < nr8; l++)
                Q[i0 + l + j * k] = VT[jc[j] + (i0 + l) * ldvt] * t[l];
    }
    if (k == 2) {
        lx_gemm(x, 'N', 'N', k, m, k, ONE, Q, k, VT2, ldvt2, ZERO, VT, ldvt);
        return;
    }
    lx_gemm(x, 'N', 'N', k, nl + 1, 1 + ctot[0], ONE, Q, k, VT2, ldvt2, ZERO, VT, ldvt);
    int64_t k3 = 1 + ctot[0] + ctot[1];
    if (k3 < ldvt2)
        lx_gemm(x, 'N', 'N', k, nl + 1, ctot[2], ONE, Q + k3 * k, k, VT2 + k3, ldvt2, ONE, VT,
                ldvt);
    int64_t c1 = ctot[0];
    if (c1 > 0) {
        memcpy(Q + c1 * k, Q, sizeof(double) * (size_t)k);
        for (int64_t i = nl + 1; i < m; i++)
            VT2[c1 + i * ldvt2] = VT2[i * ldvt2];
    }
    lx_gemm(x, 'N', 'N', k, m - nl - 1, 1 + ctot[1] + ctot[2], ONE, Q + c1 * k, k,
            VT2 + c1 + (nl + 1) * ldvt2, ldvt2, ZERO, VT + (nl + 1) * ldvt, ldvt);
}

/* dlasd1: merge the solved blocks d[0..nl), d[nl+1..n) (U n x n, VT m x m at their places)
 * through the row (alpha, beta) into the values d (n) and vectors U, VT; idxq (n) sorts d
 * ascending on entry for each block and for the whole on return. */
static int64_t merge(oz_lx *x, dc_work *w, int64_t nl, int64_t nr, int64_t sqre, double *d,
                     double alpha, double beta, double *U, int64_t ldu, double *VT, int64_t ldvt,
                     void *idxq)
{
    int64_t n = nl + nr + 1, m = n + sqre, k = 0, info = 0;
    double orgnrm = fmax(fabs(alpha), fabs(beta));
    d[nl] = 0.0;
    for (int64_t i = 0; i < n; i++)
        orgnrm = fmax(orgnrm, fabs(d[i]));
    host_lascl(orgnrm, 1.0, n, d);
    alpha /= orgnrm;
    beta /= orgnrm;
    double z1, tol;
    int64_t ctot[4];
    k = deflate_find(w, nl, nr, sqre, d, alpha, beta, U, ldu, VT, ldvt, idxq, &z1, &tol);
    deflate_copy(w, nl, nr, sqre, k, z1, tol, d, U, ldu, VT, ldvt, idxq, ctot);
    if (k == 1) { /* dlasd3's one-root case: a sign and copies */
        d[0] = fabs(w->z[0]);
        for (int64_t j = 0; j < m; j++)
            VT[j * ldvt] = w->VT2[j * m];
        for (int64_t i = 0; i < n; i++)
            U[i] = w->z[0] > 0.0 ? w->U2[i] : -w->U2[i];
    } else {
        info = secular(k, d, w->dsigma, w->z, w->Q, U, ldu, VT, ldvt);
        if (info != 0)
            return info;
        left_vectors(x, nl, nr, k, w->dsigma, w->z, w->Q, U, ldu, VT, ldvt, w->U2, n, w->jc,
                     ctot);
        right_vectors(x, nl, nr, sqre, k, w->Q, VT, ldvt, w->VT2, m, w->jc, ctot);
    }
    host_lascl(1.0, orgnrm, n, d);
    LX_F77(I n1 = (I)k, n2 = (I)(n - k), s1 = 1, s2 = -1;
           LX_HOST(0, lamrg)(&n1, &n2, d, &s1, &s2, idxq););
    return 0;
}

/* ---- the tree (dlasd0) and the driver (dbdsdc) ------------------------------------------- */

/* dlasd0 on one unreduced piece of order n (> SMLSIZ), upper bidiagonal with sqre 0 or 1
 * extra column: leaves by the host dlasdq, merges bottom-up. iw: 4 n LAPACK integers. Host
 * flops counted as a model: 24 s^3 per leaf of order s (bdsqr's two sweeps per value, both
 * sides), 20 k^2 per merge of order k (dlasd4's iterations, z, the vectors). */
static int64_t tree(oz_lx *x, dc_work *w, int64_t n, int64_t sqre, double *d, double *e,
                    double *U, int64_t ldu, double *VT, int64_t ldvt, void *iw, double *work)
{
    void *inode = iw, *ndiml = iat(iw, n), *ndimr = iat(iw, 2 * n), *idxq = iat(iw, 3 * n);
    int64_t nlvl = 0, nd = 0, info = 0;
    LX_F77(I n4 = (I)n, lv = 0, nd4 = 0, ms = SMLSIZ;
           LX_HOST(0, lasdt)(&n4, &lv, &nd4, inode, ndiml, ndimr, &ms);
           nlvl = lv; nd = nd4;);
    for (int64_t i = (nd + 1) / 2 - 1; i < nd && info == 0; i++) { /* the leaves */
        int64_t ic = iget(inode, i) - 1, nl = iget(ndiml, i), nr = iget(ndimr, i);
        int64_t nlf = ic - nl, nrf = ic + 1, sq = i == nd - 1 ? sqre : 1;
        info = host_lasdq(1, nl, d + nlf, e + nlf, VT + nlf + nlf * ldvt, ldvt,
                          U + nlf + nlf * ldu, ldu, work);
        if (info == 0)
            info = host_lasdq(sq, nr, d + nrf, e + nrf, VT + nrf + nrf * ldvt, ldvt,
                              U + nrf + nrf * ldu, ldu, work);
        for (int64_t j = 0; j < nl; j++)
            iset(idxq, nlf + j, j + 1);
        for (int64_t j = 0; j < nr; j++)
            iset(idxq, ic + 1 + j, j + 1);
        lx_host_flops(x, 24.0 * ((double)nl * nl * nl + (double)nr * nr * nr));
    }
    for (int64_t lvl = nlvl; lvl >= 1 && info == 0; lvl--) { /* the merges, bottom-up */
        int64_t lf = lvl == 1 ? 0 : ((int64_t)1 << (lvl - 1)) - 1, ll = lvl == 1 ? 0 : 2 * lf;
        for (int64_t i = lf; i <= ll && info == 0; i++) {
            int64_t ic = iget(inode, i) - 1, nl = iget(ndiml, i), nr = iget(ndimr, i);
            int64_t nlf = ic - nl;
            info = merge(x, w, nl, nr, sqre == 0 && i == ll ? 0 : 1, d + nlf, d[ic], e[ic],
                         U + nlf + nlf * ldu, ldu, VT + nlf + nlf * ldvt, ldvt, iat(idxq, nlf));
            double k = (double)(nl + nr + 1);
            lx_host_flops(x, 20.0 * k * k);
        }
    }
    return info;
}

/* Allocations of the driver for order n: the merge's doubles and integers, dlasdq's 4 n */
static int dc_alloc(dc_work *w, int64_t n, double **work, void **iw)
{
    int64_t m = n + 1;
    w->z = oz_malloc(sizeof(double) * (size_t)(m + n + 2 * n * n + m * m + 4 * n));
    *iw = oz_malloc(8 * (size_t)(9 * n));
    if (!w->z || !*iw) {
        free(w->z);
        free(*iw);
        return 0;
    }
    w->dsigma = w->z + m;
    w->U2 = w->dsigma + n;
    w->VT2 = w->U2 + n * n;
    w->Q = w->VT2 + m * m;
    *work = w->Q + n * n;
    w->idx = iat(*iw, 4 * n);
    w->jc = (int64_t *)*iw + 5 * n;
    w->coltyp = w->jc + n;
    w->idxp = w->coltyp + n;
    w->src = w->idxp + n;
    return 1;
}

/* The pieces between negligible off-diagonal entries (dbdsdc's split), each by the tree or,
 * at most SMLSIZ, the host dlasdq; a last piece of order 1 is its sign. */
static int64_t pieces(oz_lx *x, dc_work *w, int64_t n, double *d, double *e, double *U,
                      double *VT, void *iw, double *work)
{
    const double eps = 0.9 * (DBL_EPSILON / 2); /* dbdsdc's 0.9 dlamch('E') */
    for (int64_t i = 0; i < n; i++)
        if (fabs(d[i]) < eps)
            d[i] = copysign(eps, d[i]);
    for (int64_t i = 0, start = 0; i < n - 1; i++) {
        if (!(fabs(e[i]) < eps) && i < n - 2)
            continue;
        int64_t nsize = i - start + 1;
        if (i == n - 2 && !(fabs(e[i]) < eps))
            nsize = n - start;
        else if (i == n - 2) {
            U[(n - 1) * (n + 1)] = copysign(1.0, d[n - 1]);
            VT[(n - 1) * (n + 1)] = 1.0;
            d[n - 1] = fabs(d[n - 1]);
        }
        double *Us = U + start * (n + 1), *Vs = VT + start * (n + 1);
        int64_t info = nsize > SMLSIZ ? tree(x, w, nsize, 0, d + start, e + start, Us, n, Vs, n,
                                             iw, work)
                                      : host_lasdq(0, nsize, d + start, e + start, Vs, n, Us, n,
                                                   work);
        if (nsize <= SMLSIZ)
            lx_host_flops(x, 24.0 * (double)nsize * nsize * nsize);
        if (info != 0)
            return info;
        start = i + 1;
    }
    return 0;
}

/* The host dbdsdc (uplo, compq 'I' or 'N'; U, VT n x n, leading dimension n). Its flops
 * counted as its divide and conquer's merges without deflation (4/3 n^3 with vectors), its
 * values-only dqds as 30 n^2. */
static void host_bdsdc(oz_lx *x, char uplo, int vec, int64_t n, double *d, double *e, double *U,
                       double *VT, int64_t *info)
{
    double dn = (double)n;
    /* real flops whatever the driver's element type (lx_host_flops would count complex) */
    x->rep->host_flops += vec ? 4.0 / 3.0 * dn * dn * dn : 30.0 * dn * dn;
    char compq = vec ? 'I' : 'N';
    double *work = oz_malloc(sizeof(double) * (size_t)(3 * n * n + 4 * n + 1));
    void *iw = oz_malloc(8 * (size_t)(8 * n + 1));
    if (!work || !iw)
        x->failed = 1;
    else
        LX_F77(I n4 = (I)n, l4 = (I)(n > 1 ? n : 1), inf4 = 0, iq = 0;
               LX_HOST(0, bdsdc)(&uplo, &compq, &n4, d, e, U, &l4, VT, &l4, NULL, &iq, work, iw,
                                 &inf4, 1, 1);
               *info = inf4;);
    free(work);
    free(iw);
}

/* d descending with U's columns and VT's rows (n x n), as dbdsdc's selection sort: its swaps
 * replayed on the permutation p (n), which is then applied to VT's rows by a gather down each
 * column through col (n) and to U's columns along its cycles (swapping VT's rows one by one
 * would stride through VT at every entry). */
static void sort_desc(int64_t n, double *d, double *U, double *VT, double *col, int64_t *p)
{
    int moved = 0;
    for (int64_t i = 0; i < n; i++)
        p[i] = i;
    for (int64_t i = 0; i < n - 1; i++) {
        int64_t kk = i;
        for (int64_t j = i + 1; j < n; j++)
            if (d[j] > d[kk])
                kk = j;
        if (kk == i)
            continue;
        double t = d[kk];
        d[kk] = d[i], d[i] = t;
        int64_t q = p[kk];
        p[kk] = p[i], p[i] = q, moved = 1;
    }
    if (!moved)
        return;
    for (int64_t r = 0; r < n; r++) { /* row i := row p[i] */
        double *v = VT + r * n;
        for (int64_t i = 0; i < n; i++)
            col[i] = v[p[i]];
        memcpy(v, col, sizeof(double) * (size_t)n);
    }
    for (int64_t s = 0; s < n; s++) { /* column j := column p[j], each cycle from s */
        if (p[s] == s)
            continue;
        memcpy(col, U + s * n, sizeof(double) * (size_t)n);
        int64_t j = s;
        for (int64_t q; (q = p[j]) != s; j = q) {
            memcpy(U + j * n, U + q * n, sizeof(double) * (size_t)n);
            p[j] = j;
        }
        memcpy(U + j * n, col, sizeof(double) * (size_t)n);
        p[j] = j;
    }
}

/* The divide and conquer on the upper bidiagonal (d, e) of order n > SMLSIZ: dbdsdc's steps. */
static void dc_upper(oz_lx *x, int64_t n, double *d, double *e, double *U, double *VT,
                     int64_t *info)
{
    for (int64_t j = 0; j < n; j++) { /* U = VT = I: the leaves rotate them */
        memset(U + j * n, 0, sizeof(double) * (size_t)n);
        memset(VT + j * n, 0, sizeof(double) * (size_t)n);
        U[j * (n + 1)] = VT[j * (n + 1)] = 1.0;
    }
    double orgnrm = 0.0;
    for (int64_t i = 0; i < n; i++)
        orgnrm = fmax(orgnrm, fmax(fabs(d[i]), i < n - 1 ? fabs(e[i]) : 0.0));
    *info = 0;
    if (orgnrm == 0.0)
        return;
    dc_work w;
    double *work;
    void *iw;
    if (!dc_alloc(&w, n, &work, &iw)) {
        x->failed = 1;
        return;
    }
    host_lascl(orgnrm, 1.0, n, d);
    host_lascl(orgnrm, 1.0, n - 1, e);
    /* real products on the normwise target: U2 and VT2 have orthonormal columns (rows), so a
       per-column error eps ||U2|| ||q_j|| keeps U and VT orthogonal to O(eps), as dlasd3's
       DGEMMs do (numerics/ozaki2.h); entrywise would price tiny vector entries for nothing */
    int cplx = x->cplx, target = x->o.target;
    x->cplx = 0;
    x->o.target = OZBLAS_TARGET_NORMWISE;
    *info = pieces(x, &w, n, d, e, U, VT, iw, work);
    x->cplx = cplx;
    x->o.target = target;
    host_lascl(1.0, orgnrm, n, d);
    sort_desc(n, d, U, VT, w.z, w.jc);
    free(w.z);
    free(iw);
}

void lx_bdsdc(oz_lx *x, char uplo, int vec, int64_t n, double *d, double *e, double *U,
              double *VT, int64_t *info)
{
    if (!vec || n <= SMLSIZ || !dc_ready()) {
        host_bdsdc(x, uplo, vec, n, d, e, U, VT, info);
        return;
    }
    dc_upper(x, n, d, e, U, VT, info);
    if (uplo == 'U')
        return;
    /* lower B = (its transpose, upper with the same d, e)^T = (U S VT)^T: U and VT swap and
       transpose, in place */
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i <= j; i++) {
            double a = U[i + j * n], b = U[j + i * n];
            U[i + j * n] = VT[j + i * n];
            U[j + i * n] = VT[i + j * n];
            VT[i + j * n] = b;
            VT[j + i * n] = a;
        }
}

/* ---- the C entry -------------------------------------------------------------------------- */

ozblas_status ozblas_dbdsdc(ozblas_context *ctx, char uplo, char compq, int64_t n, double *d,
                            double *e, double *U, int64_t ldu, double *VT, int64_t ldvt,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report)
{
    uplo = uplo == 'u' ? 'U' : uplo == 'l' ? 'L' : uplo;
    compq = compq == 'n' ? 'N' : compq == 'i' ? 'I' : compq;
    int vec = compq == 'I';
    *info = uplo != 'U' && uplo != 'L'       ? -1
            : !vec && compq != 'N'           ? -2
            : n < 0                          ? -3
            : ldu < 1 || (vec && ldu < n)    ? -7
            : ldvt < 1 || (vec && ldvt < n) ? -9
                                             : 0;
    if (*info)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    double dn = (double)n;
    int64_t vn = vec ? n : 0;
    BEGIN(0, n, vec ? 4.0 / 3.0 * dn * dn * dn : 30.0 * dn * dn, n > 1 ? n : 1,
          LX_OP(U, ldu, vn, vn, 1), LX_OP(VT, ldvt, vn, vn, 1))
    if (!lx_bdsdc_ready())
        END_WITH(OZBLAS_ERR_NO_HOST_BLAS);
    if (n == 0)
        END();
    double *B = vec ? oz_malloc(sizeof(double) * (size_t)(2 * n * n)) : NULL;
    if (vec && !B)
        END_WITH(OZBLAS_ERR_ALLOCATION);
    lx_bdsdc(&x, uplo, vec, n, d, e, B, vec ? B + n * n : NULL, info);
    if (vec && *info == 0 && !x.failed) {
        lx_put_real(&x, n, n, B, U, ldu);
        lx_put_real(&x, n, n, B + n * n, VT, ldvt);
    }
    free(B);
    END();
}
