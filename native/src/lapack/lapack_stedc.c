/* The symmetric tridiagonal eigenproblem by divide and conquer (LAPACK's dstedc with compz
 * 'I': Cuppen's method as dlaed0/dlaed1/dlaed3 organize it), each merge's eigenvector update
 * an ozblas product (docs/lapack-eigen.md, "The tridiagonal solver"):
 *
 *   the matrix split where an off-diagonal entry is negligible (dstedc's test); a block of
 *   order at most the leaf size is one call of the host dstedc; a larger one is scaled to
 *   norm 1, torn in two by a rank-one modification (d at the cut minus |e|), both halves
 *   solved the same way, and merged: z from the halves' eigenvectors, deflation and the
 *   compression of Q's columns by the host dlaed2 (O(n^2) copies and rotations), the
 *   secular equation's roots by the host dlaed4 (O(k) per root), z recomputed from the roots
 *   (Gu and Eisenstat, as dlaed3 does) so that the eigenvectors of the rank-one problem are
 *   orthogonal to working precision, then Q := Q S as two products (the halves' blocks of
 *   Q times the rows of S they meet, as dlaed3's two DGEMMs).
 *
 * The host keeps what is O(n^2) per merge; the products carry the O(n^3). Q is a host
 * matrix (dlaed2 permutes and rotates its columns); the products take host operands on any
 * executor. */
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../cpu/cpu_common.h"
#include "oz_lapack.h"

static int dc_ready(void)
{
    static const int ids[] = {LXH_stedc, LXH_laed2, LXH_laed4, LXH_lamrg, LXH_sterf};
    return lx_host_all(0, ids, 5);
}

/* The leaves: the host dstedc on an order at most the block size, at most 256. Below it the
 * merges' products have inner dimensions under the layer's block size, where an emulated
 * product does not amortize its splitting; the leaves keep about (leaf / n)^2 of the
 * D&C's flops on the host (1.6% at n = 2048, leaf 256). */
static int64_t leaf_size(int64_t nb) { return nb < 256 ? nb : 256; }

/* The workspace of one solve of order n (every subproblem's fits in it). */
typedef struct {
    int64_t n, leaf;
    double *z, *dlam, *wv, *q2, *S, *lw; /* n, n, n, n^2, n^2 (the secular S), lw */
    double *col; /* nt columns of n: the normalization's, one per thread */
    int nt;      /* the host threads of the secular equations (the run's) */
    int64_t llw, *indxq, *indx, *indxc, *indxp, *coltyp; /* n each (1-based, as LAPACK's) */
    void *iw; /* LAPACK integers: 5n + 3 of them */
} dc_ws;

/* The host dstedc ('I') on the order m block at d, e into Q (m x m, ldq). */
static int64_t host_stedc(dc_ws *w, int64_t m, double *d, double *e, double *Q, int64_t ldq)
{
    const char comp = 'I';
    int64_t info = 0;
    LX_F77(I m4 = (I)m, l4 = (I)ldq, lw = (I)w->llw, liw = (I)(5 * w->n + 3), inf4 = 0;
           LX_HOST(0, stedc)(&comp, &m4, d, e, Q, &l4, w->lw, &lw, (I *)w->iw, &liw, &inf4, 1);
           info = inf4;);
    return info;
}

/* dlaed2 on the merge of order n (cut n1): k, rho as modified, and w's index arrays. */
static int64_t laed2(dc_ws *w, int64_t n, int64_t n1, double *d, double *Q, int64_t ldq,
                     int64_t *indxq, double *rho)
{
    int64_t k = 0;
    LX_F77(I n4 = (I)n, n14 = (I)n1, l4 = (I)ldq, k4 = 0, inf4 = 0;
           I *iq = (I *)w->iw, *ix = iq + n, *ic = ix + n, *ip = ic + n, *ct = ip + n;
           for (int64_t i = 0; i < n; i++) iq[i] = (I)indxq[i];
           LX_HOST(0, laed2)(&k4, &n4, &n14, d, Q, &l4, iq, rho, w->z, w->dlam, w->wv, w->q2, ix,
                             ic, ip, ct, &inf4);
           for (int64_t i = 0; i < n; i++) {
               indxq[i] = iq[i];
               w->indx[i] = ix[i];
               w->indxc[i] = ic[i];
               w->coltyp[i] = ct[i];
           } k = k4;);
    return k;
}

/* The j-th root (1-based) of the secular equation of order k into *lam, delta_i = dlam_i -
 * lam into delta (k); dlaed4's info. */
static int64_t laed4(dc_ws *w, int64_t k, int64_t j, double *delta, double rho, double *lam)
{
    int64_t info = 0;
    LX_F77(I k4 = (I)k, j4 = (I)j, inf4 = 0;
           LX_HOST(0, laed4)(&k4, &j4, w->dlam, w->wv, delta, &rho, lam, &inf4);
           info = inf4;);
    return info;
}

/* indxq (n, 1-based) := the permutation that merges d's ascending first k and descending
 * other n - k entries into ascending order (dlamrg, as dlaed1 calls it). */
static void lamrg(dc_ws *w, int64_t k, int64_t n, double *d, int64_t *indxq)
{
    LX_F77(I k4 = (I)k, r4 = (I)(n - k), one = 1, mone = -1; I *ix = (I *)w->iw;
           LX_HOST(0, lamrg)(&k4, &r4, d, &one, &mone, ix);
           for (int64_t i = 0; i < n; i++) indxq[i] = ix[i];);
}

/* The eigenvectors of the rank-one problem of order k (dlaed3's middle): the roots into d,
 * S (k x k, leading dimension k) := their normalized eigenvectors, rows ordered by indxc
 * (dlaed2's grouping of Q's columns). Returns dlaed4's info. Roots, rows of z and columns
 * of S are independent: each loop is spread over the run's host threads, every value
 * computed as on one thread (the same bits for any count). */
static int64_t secular(oz_lx *x, dc_ws *w, int64_t k, double rho, double *d)
{
    double *S = w->S, *zs = w->z; /* z is free after dlaed2: w's signs */
    const int nt = w->nt;
    int64_t info = 0;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 16) reduction(max : info)
    for (int64_t j = 0; j < k; j++) {
        int64_t r = laed4(w, k, j + 1, S + j * k, rho, d + j);
        info = r > info ? r : info;
    }
    if (info)
        return info;
    if (k <= 2) { /* dlaed4 (dlaed5) returns normalized vectors for k = 1, 2 */
        for (int64_t j = 0; j < k && k == 2; j++) {
            double t[2] = {S[j * k], S[1 + j * k]};
            S[j * k] = t[w->indxc[0] - 1];
            S[1 + j * k] = t[w->indxc[1] - 1];
        }
        return 0;
    }
    /* Gu and Eisenstat: the z whose rank-one problem has these roots exactly, from
       prod_j (lam_j - dlam_i) / prod_{j != i} (dlam_j - dlam_i), so that the vectors below
       are orthogonal to working precision however close the roots (each z_i's factors
       taken in the order of j, row blocks of 64 per thread) */
    memcpy(zs, w->wv, sizeof(double) * (size_t)k);
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t i0 = 0; i0 < k; i0 += 64) {
        int64_t i1 = i0 + 64 < k ? i0 + 64 : k;
        for (int64_t i = i0; i < i1; i++)
            w->wv[i] = S[i + i * k];
        for (int64_t j = 0; j < k; j++) { /* i != j, as two branch-free (SIMD) runs */
            const double *s = S + j * k, *dl = w->dlam, dj = dl[j];
            int64_t c = j < i0 ? i0 : j > i1 ? i1 : j;
            double *v = w->wv;
#pragma omp simd
            for (int64_t i = i0; i < c; i++)
                v[i] *= s[i] / (dl[i] - dj);
#pragma omp simd
            for (int64_t i = c + (c == j); i < i1; i++)
                v[i] *= s[i] / (dl[i] - dj);
        }
        for (int64_t i = i0; i < i1; i++)
            w->wv[i] = copysign(sqrt(-w->wv[i]), zs[i]);
    }
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t j = 0; j < k; j++) {
        double *s = S + j * k, *t = w->col + (int64_t)omp_get_thread_num() * w->n;
        double scale = 0.0, nrm[4] = {0.0, 0.0, 0.0, 0.0};
        const double *v = w->wv;
#pragma omp simd
        for (int64_t i = 0; i < k; i++)
            t[i] = v[i] / s[i];
        for (int64_t i = 0; i < k; i++) /* not fmax: a libm call per entry */
            scale = fabs(t[i]) > scale ? fabs(t[i]) : scale;
        double r = 1.0 / scale;
        int64_t i = 0;
        for (; i + 4 <= k; i += 4) /* the scaled sum of squares in four partial sums */
            for (int l = 0; l < 4; l++)
                nrm[l] = fma(t[i + l] * r, t[i + l] * r, nrm[l]);
        for (; i < k; i++)
            nrm[0] = fma(t[i] * r, t[i] * r, nrm[0]);
        r = 1.0 / (scale * sqrt((nrm[0] + nrm[1]) + (nrm[2] + nrm[3])));
        for (i = 0; i < k; i++)
            s[i] = t[w->indxc[i] - 1] * r;
    }
    lx_host_flops(x, 7.0 * (double)k * (double)k);
    return 0;
}

static void zero_block(int64_t m, int64_t n, double *Q, int64_t ldq)
{
    for (int64_t j = 0; j < n; j++)
        memset(Q + j * ldq, 0, sizeof(double) * (size_t)m);
}

/* The merge of the halves (orders n1, n - n1) of an order n subproblem whose eigenvectors
 * are the diagonal blocks of Q (dlaed1): d and Q hold the halves' eigenpairs, indxq the
 * permutations that sort each half; on return the subproblem's, indxq sorting d. rho: the
 * cut's off-diagonal entry. Returns dlaed4's info. */
static int64_t merge(oz_lx *x, dc_ws *w, int64_t n, int64_t n1, double *d, double *Q,
                     int64_t ldq, int64_t *indxq, double rho)
{
    for (int64_t i = 0; i < n; i++) /* Q1's last row, Q2's first */
        w->z[i] = i < n1 ? Q[n1 - 1 + i * ldq] : Q[n1 + i * ldq];
    int64_t k = laed2(w, n, n1, d, Q, ldq, indxq, &rho);
    if (k == 0) { /* all deflated: dlaed2 left d and Q in order */
        for (int64_t i = 0; i < n; i++)
            indxq[i] = i + 1;
        return 0;
    }
    int64_t info = secular(x, w, k, rho, d);
    if (info)
        return info;
    /* dlaed2 grouped Q's columns in q2: Q1's of types 1 (upper half only) and 2 (both),
       then Q2's of types 2 and 3 (lower only); the deflated ones (type 4) are already in Q's
       columns k.. n - 1. Q's first k columns := Q1 S's upper rows, Q2 S's lower rows: the
       products. Their target is normwise: q2's columns are orthonormal and S's unit vectors,
       so a per-column error c u ||q2|| ||s_j|| = c u keeps Q orthogonal to O(u), which is
       what the D&C's backward-error analysis needs (entrywise would price the many binades
       of localized eigenvectors' entries). */
    int64_t n2 = n - n1, c1 = w->coltyp[0], n12 = c1 + w->coltyp[1];
    int64_t n23 = w->coltyp[1] + w->coltyp[2];
    if (n23)
        lx_gemm(x, 'N', 'N', n2, k, n23, ONE, w->q2 + n1 * n12, n2, w->S + c1, k, ZERO, Q + n1,
                ldq);
    else
        zero_block(n2, k, Q + n1, ldq);
    if (n12)
        lx_gemm(x, 'N', 'N', n1, k, n12, ONE, w->q2, n1, w->S, k, ZERO, Q, ldq);
    else
        zero_block(n1, k, Q, ldq);
    lamrg(w, k, n, d, indxq);
    return 0;
}

/* The subproblem of order n at global row off (dlaed0's tree, depth first): d, e, Q (its
 * diagonal block, zero elsewhere) := its eigenpairs, indxq the permutation sorting d.
 * Returns 0, or LAPACK's info for the failed submatrix (rows off + 1 to off + n). */
static int64_t dc(oz_lx *x, dc_ws *w, int64_t n, double *d, double *e, double *Q, int64_t ldq,
                  int64_t *indxq, int64_t off)
{
    int64_t info = 0, fail = (off + 1) * (w->n + 1) + off + n;
    if (n <= w->leaf) {
        info = host_stedc(w, n, d, e, Q, ldq);
        for (int64_t i = 0; i < n; i++)
            indxq[i] = i + 1;
        /* dstedc's nominal count (its merges' products without deflation) */
        lx_host_flops(x, 4.0 / 3.0 * (double)n * (double)n * (double)n);
        return info ? fail : 0;
    }
    int64_t n1 = n / 2;
    double rho = e[n1 - 1];
    d[n1 - 1] -= fabs(rho); /* T = diag(T1, T2) + |rho| v v^T, v = (e_n1; sign(rho) e_1) */
    d[n1] -= fabs(rho);
    if ((info = dc(x, w, n1, d, e, Q, ldq, indxq, off)) ||
        (info = dc(x, w, n - n1, d + n1, e + n1, Q + n1 + n1 * ldq, ldq, indxq + n1, off + n1)))
        return info;
    if (x->failed)
        return 0;
    return merge(x, w, n, n1, d, Q, ldq, indxq, rho) ? fail : 0;
}

/* An unreduced block of order m > leaf at row s of the whole Q: scaled to norm 1 (as dstedc
 * does), divided and conquered, its eigenpairs sorted (dlaed0's last step: each column moved
 * once, along the permutation's cycles), scaled back. */
static int64_t dc_block(oz_lx *x, dc_ws *w, int64_t s, int64_t m, double *d, double *e,
                        double *Q, int64_t ldq)
{
    double nrm = 0.0;
    for (int64_t i = 0; i < m; i++)
        nrm = fmax(nrm, fmax(fabs(d[s + i]), i + 1 < m ? fabs(e[s + i]) : 0.0));
    for (int64_t i = 0; i < m; i++) {
        d[s + i] /= nrm;
        if (i + 1 < m)
            e[s + i] /= nrm;
    }
    double *B = Q + s + s * ldq;
    int64_t info = dc(x, w, m, d + s, e + s, B, ldq, w->indxq, s);
    if (info || x->failed)
        return info;
    int64_t *p = w->indx; /* column i := column indxq_i - 1, moved along its cycles */
    for (int64_t i = 0; i < m; i++) {
        p[i] = w->indxq[i] - 1;
        w->wv[i] = d[s + p[i]];
    }
    for (int64_t i = 0; i < m; i++)
        d[s + i] = w->wv[i] * nrm;
    for (int64_t c = 0; c < m; c++) {
        if (p[c] == c)
            continue;
        memcpy(w->col, B + c * ldq, sizeof(double) * (size_t)m);
        int64_t j = c;
        for (int64_t q; (q = p[j]) != c; j = q) {
            memcpy(B + j * ldq, B + q * ldq, sizeof(double) * (size_t)m);
            p[j] = j;
        }
        memcpy(B + j * ldq, w->col, sizeof(double) * (size_t)m);
        p[j] = j;
    }
    return 0;
}

static void dc_free(dc_ws *w)
{
    free(w->z);
    free(w->col);
    free(w->indxq);
    free(w->iw);
}

static int dc_alloc(dc_ws *w, int64_t n, int64_t leaf, int nt)
{
    memset(w, 0, sizeof *w);
    w->n = n;
    w->leaf = leaf;
    w->nt = nt;
    w->llw = 1 + 4 * leaf + leaf * leaf;
    w->z = oz_malloc(sizeof(double) * (size_t)(3 * n + 2 * n * n + w->llw));
    w->indxq = oz_malloc(sizeof(int64_t) * (size_t)(5 * n));
    w->iw = oz_malloc(sizeof(int64_t) * (size_t)(5 * n + 3));
    w->col = oz_malloc(sizeof(double) * (size_t)(nt * n));
    if (!w->z || !w->indxq || !w->iw || !w->col) {
        dc_free(w);
        return 0;
    }
    w->dlam = w->z + n, w->wv = w->dlam + n, w->q2 = w->wv + n, w->S = w->q2 + n * n;
    w->lw = w->S + n * n;
    w->indx = w->indxq + n, w->indxc = w->indx + n, w->indxp = w->indxc + n;
    w->coltyp = w->indxp + n;
    return 1;
}

ozblas_status lx_stedc(oz_lx *x, int64_t n, double *d, double *e, double *Q, int64_t ldq,
                       int64_t *info)
{
    *info = 0;
    if (!dc_ready())
        return OZBLAS_ERR_NO_HOST_BLAS;
    if (n == 0)
        return OZBLAS_OK;
    int64_t leaf = leaf_size(x->nb);
    dc_ws w;
    if (!dc_alloc(&w, n, n <= leaf ? n : leaf, oz_cpu_run_threads(x->opt)))
        return OZBLAS_ERR_ALLOCATION;
    zero_block(n, n, Q, ldq);
    for (int64_t i = 0; i < n; i++)
        Q[i + i * ldq] = 1.0;
    if (n <= leaf) { /* the host dstedc itself */
        if (n > 1)
            *info = host_stedc(&w, n, d, e, Q, ldq);
        dc_free(&w);
        return OZBLAS_OK;
    }
    int cplx = x->cplx, target = x->o.target;
    x->cplx = 0; /* the products are real whatever the run's type */
    x->o.target = OZBLAS_TARGET_NORMWISE;
    /* dstedc's split: where |e_i| <= eps sqrt|d_i| sqrt|d_i+1| the blocks decouple (eps:
       dlamch's, the unit roundoff) */
    const double eps = DBL_EPSILON / 2;
    for (int64_t s = 0, f; s < n && !*info && !x->failed; s = f + 1) {
        for (f = s; f + 1 < n && fabs(e[f]) > eps * sqrt(fabs(d[f])) * sqrt(fabs(d[f + 1]));)
            f++;
        int64_t m = f - s + 1;
        if (m > w.leaf)
            *info = dc_block(x, &w, s, m, d, e, Q, ldq);
        else if (m > 1 && host_stedc(&w, m, d + s, e + s, Q + s + s * ldq, ldq))
            *info = (s + 1) * (n + 1) + f + 1;
        else if (m > 1)
            lx_host_flops(x, 4.0 / 3.0 * (double)m * (double)m * (double)m);
    }
    x->cplx = cplx;
    x->o.target = target;
    for (int64_t i = 0; i + 1 < n && !*info; i++) { /* dstedc's selection sort */
        int64_t k = i;
        for (int64_t j = i + 1; j < n; j++)
            if (d[j] < d[k])
                k = j;
        if (k == i)
            continue;
        double t = d[k];
        d[k] = d[i];
        d[i] = t;
        for (int64_t r = 0; r < n; r++) {
            t = Q[r + k * ldq];
            Q[r + k * ldq] = Q[r + i * ldq];
            Q[r + i * ldq] = t;
        }
    }
    dc_free(&w);
    return OZBLAS_OK;
}

/* ---- the entry (ozblas_dstedc) -------------------------------------------------------------- */

/* Z (n x n, the run's memory) := Z ZT in strips of nb rows (compz 'V'): each strip a product
 * into T (nb x n, the run's memory) copied back; ZT: n x n, host memory. */
static void times_zt(oz_lx *x, int64_t n, double *Z, int64_t ldz, double *ZT, double *T)
{
    double *W = x->dev ? lx_scratch(x, NULL, n * n) : ZT;
    if (x->dev)
        lx_put_real(x, n, n, ZT, W, n);
    for (int64_t r = 0; r < n && !x->failed; r += x->nb) {
        int64_t rb = n - r < x->nb ? n - r : x->nb, ldh;
        /* normwise: an orthogonal Z times ZT's unit columns, as the merges' products */
        lx_gemm(x, 'N', 'N', rb, n, n, ONE, Z + r, ldz, W, n, ZERO, T, x->nb);
        double *H = lx_fetch(x, 0, T, x->nb, rb, n, &ldh, 1);
        if (x->dev)
            lx_store(x, H, ldh, Z + r, ldz, rb, n);
        else
            for (int64_t j = 0; j < n; j++)
                memcpy(Z + r + j * ldz, H + j * ldh, sizeof(double) * (size_t)rb);
    }
    if (x->dev && W)
        lx_scratch_free(x, W);
}

static int64_t stedc_check(char compz, int64_t n, int64_t ldz)
{
    if (compz != 'N' && compz != 'I' && compz != 'V')
        return -1;
    if (n < 0)
        return -2;
    if (ldz < 1 || (compz != 'N' && ldz < (n > 1 ? n : 1)))
        return -6;
    return 0;
}

ozblas_status ozblas_dstedc(ozblas_context *ctx, char compz, int64_t n, double *d, double *e,
                            double *Z, int64_t ldz, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report)
{
    compz = compz >= 'a' && compz <= 'z' ? (char)(compz - 'a' + 'A') : compz;
    if ((*info = stedc_check(compz, n, ldz)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    int64_t zc = compz == 'N' ? 0 : n;
    double dn = (double)n, flops = compz == 'N' ? 0.0 : 4.0 / 3.0 * dn * dn * dn;
    BEGIN(0, n, compz == 'V' ? flops + 2.0 * dn * dn * dn : flops, n > 1 ? n : 1,
          LX_OP(Z, ldz, n, zc, zc > 0))
    if (!dc_ready())
        END_WITH(OZBLAS_ERR_NO_HOST_BLAS);
    if (n == 0)
        END();
    if (compz == 'N') {
        LX_F77(I n4 = (I)n, inf4 = 0;
               LX_HOST(0, sterf)(&n4, d, e, &inf4);
               *info = inf4;);
        END();
    }
    /* ZT: the tridiagonal eigenvectors on the host (Z itself for 'I' on host memory), T:
       compz 'V''s strips */
    int direct = compz == 'I' && !x.dev;
    double *ZT = direct ? Z : oz_malloc(sizeof(double) * (size_t)(n * n + x.nb * n));
    double *T = ZT && !direct ? lx_scratch(&x, ZT + n * n, x.nb * n) : NULL;
    if (!ZT || (!direct && !T)) {
        if (!direct)
            free(ZT);
        END_WITH(ZT ? OZBLAS_ERR_DEVICE : OZBLAS_ERR_ALLOCATION);
    }
    ozblas_status st = lx_stedc(&x, n, d, e, ZT, direct ? ldz : n, info);
    x.o.target = OZBLAS_TARGET_NORMWISE;
    if (st == OZBLAS_OK && *info == 0 && compz == 'V')
        times_zt(&x, n, Z, ldz, ZT, T);
    else if (st == OZBLAS_OK && *info == 0 && !direct)
        lx_put_real(&x, n, n, ZT, Z, ldz);
    if (!direct) {
        lx_scratch_free(&x, T);
        free(ZT);
    }
    END_WITH(st);
}
