/* Symmetric-indefinite factorization (Bunch-Kaufman, LAPACK's dsytrf/zsytrf/zhetrf), its
 * solve and its inverse, written once for real symmetric, complex symmetric and Hermitian.
 *
 * The panel is LAPACK's dlasyf/zlasyf/zlahef (nb - 1 columns left-looking with the matrix
 * W, the same pivot rule, 1x1/2x2 pivots and the same ipiv encoding); it is done here
 * because the real dlasyf updates the trailing matrix itself, inside the host library. The
 * trailing update A22 -= L21 W21^T runs as ozblas products over column blocks of the
 * triangle; the last nb columns or fewer are the same code unblocked. One difference: an
 * exactly zero column stores D(k, k) = 0 and a zero column of L, as dsytf2 does (dlasyf
 * leaves that column of A as it was).
 *
 * Upper storage is the lower case mirrored: B(i, j) = A(n-1-i, n-1-j) turns the upper
 * triangle of A into the lower one of B, U D U^T from the bottom into L D L^T from the top,
 * and LAPACK's upper ipiv into the lower one (row k-1 of a 2x2 pivot is row i+1 of B). The
 * panel and the pivot bookkeeping work in B's coordinates; products, triangular solves and
 * the right-hand sides use the actual ones.
 *
 * Solve (as dsytrs2): L put in standard form in place (dsyconv: the 2x2 off-diagonal of D
 * saved and zeroed, the later interchanges applied to the earlier columns), P^T, the unit
 * triangular solves by the blocked TRSM, D, P; then A is restored exactly. Inverse:
 * inv(A) = P inv(L)^H inv(D) inv(L) P^T with inv(L) by the blocked TRTRI and the product by
 * the blocked TRMM (n^3 flops against LAPACK's 2/3 n^3, all of it products; the real
 * dsytri is BLAS-2), in an n x n workspace.
 *
 * Device memory (lapack_seam.c): the element loops work on host copies (the panel's columns
 * and the pivot column beyond them; the solve's and inverse's strips of nb columns), W and
 * the workspaces are device memory, the products run there: the host run's code and bits. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "oz_lapack.h"

#undef I /* complex.h's imaginary unit: LX_F77's integer type here */

typedef double complex cx;

/* One run: the element kind and the mirror, and where the element loops find A. */
typedef struct {
    oz_lx *x;
    int herm; /* Hermitian (zhetrf); 0: symmetric, real or complex */
    int rev;  /* upper storage, seen through the mirror */
    int64_t n;
    double *A;
    int64_t lda;
    /* the view: A's elements as the loops read and write them, P at A's (r0, c0) with
       leading dimension ldp (A itself for host memory; a host copy of a block of device
       memory, lapack_seam.c). B's columns from kend on are off the view (a device run's
       panel): there only the pivot column's two pieces are, R (B's row piv, columns kend
       to piv) and C (B's column piv from row piv on). */
    double *P;
    int64_t r0, c0, ldp, kend, piv;
    double *R, *C;
    double *Pbuf; /* a device run's host copy of the panel, n x nb */
} sy;

/* Element (a, b) of A in the view, element (i, j) of B, and the actual first index of B's
 * range [r, r + len). */
static double *vat(const sy *s, int64_t a, int64_t b)
{
    return LX_AT(s->x, s->P, a - s->r0, b - s->c0, s->ldp);
}
static double *at(const sy *s, int64_t i, int64_t j)
{
    int we = s->x->cplx ? 2 : 1;
    if (j >= s->kend)
        return i == s->piv && j < s->piv ? s->R + we * (s->rev ? s->piv - 1 - j : j - s->kend)
                                         : s->C + we * (s->rev ? s->n - 1 - i : i - s->piv);
    return s->rev ? vat(s, s->n - 1 - i, s->n - 1 - j) : vat(s, i, j);
}
static int64_t first(const sy *s, int64_t r, int64_t len) { return s->rev ? s->n - r - len : r; }

static cx get(const sy *s, const double *p) { return s->x->cplx ? CMPLX(p[0], p[1]) : p[0]; }
static void put(const sy *s, double *p, cx v)
{
    p[0] = creal(v);
    if (s->x->cplx)
        p[1] = cimag(v);
}
/* conj for Hermitian, identity otherwise; the real part for Hermitian diagonals */
static cx cj(const sy *s, cx v) { return s->herm ? conj(v) : v; }
static cx re(const sy *s, cx v) { return s->herm ? creal(v) : v; }
static double cabs1(cx v) { return fabs(creal(v)) + fabs(cimag(v)); }
/* division with real operands exact as real division (complex division rounds otherwise) */
static cx dv(cx a, cx b) { return cimag(b) == 0.0 ? a / creal(b) : a / b; }

/* The panel's W: column c of W for B's rows, n x nb (ld n), mirrored with B; dW where the
 * products read it and work their diagonal blocks' workspace (W itself and x->work for host
 * memory, device copies in a device run). */
typedef struct {
    double *W;
    int64_t nb;
    double *dW, *work;
} wmat;
static double *wat(const sy *s, const wmat *w, int64_t i, int64_t c)
{
    return s->rev ? LX_AT(s->x, w->W, s->n - 1 - i, w->nb - 1 - c, s->n)
                  : LX_AT(s->x, w->W, i, c, s->n);
}

/* W(r0:n, c) -= B(r0:n, k0:k0+k) W(row, 0:k)^T (the panel's GEMV). In A's coordinates the
 * rows and the k columns are reversed together under the mirror, so it is one gemv on
 * contiguous ranges either way: y (a column of W), A's block, x (a row of W, stride n). */
static void wcol_update(const sy *s, const wmat *w, int64_t k0, int64_t r0, int64_t k, int64_t c,
                        int64_t row)
{
    int64_t len = s->n - r0, ldw = s->n, lda = s->ldp;
    if (k <= 0 || len <= 0)
        return;
    oz_lx *x = s->x;
    const double *Ab = vat(s, first(s, r0, len), first(s, k0, k));
    const double *xv = s->rev ? wat(s, w, row, k - 1) : wat(s, w, row, 0);
    double *y = s->rev ? wat(s, w, s->n - 1, c) : wat(s, w, r0, c);
    /* the host BLAS's gemv (the panel's BLAS-2 work, as in LAPACK's own dlasyf), of the host
       LAPACK's family; none: the loops below */
    if (lx_host_fn(x->cplx, LXH_gemv)) {
        LX_F77(I m4 = (I)len, n4 = (I)k, l4 = (I)lda, w4 = (I)ldw, o4 = 1;
               LX_HOST(x->cplx, gemv)("N", &m4, &n4, MONE, Ab, &l4, xv, &w4, ONE, y, &o4, 1););
        return;
    }
    int we = x->cplx ? 2 : 1;
    for (int64_t p = 0; p < k; p++) {
        const double *fp = xv + we * p * ldw, *a = Ab + we * p * lda;
        for (int64_t i = 0; i < len; i++) {
            const double *ai = a + we * i;
            double *yi = y + we * i;
            if (!x->cplx)
                yi[0] -= ai[0] * fp[0];
            else {
                yi[0] -= ai[0] * fp[0] - ai[1] * fp[1];
                yi[1] -= ai[0] * fp[1] + ai[1] * fp[0];
            }
        }
    }
}

/* the index of the largest cabs1 in W(i0:i1, c), the first in A's order as LAPACK's
 * idamax/izamax take it (the last in B's under the mirror); *mx its value */
static int64_t iamax(const sy *s, const wmat *w, int64_t i0, int64_t i1, int64_t c, double *mx)
{
    int64_t im = i0;
    *mx = -1.0;
    for (int64_t i = i0; i < i1; i++) {
        double v = cabs1(get(s, wat(s, w, i, c)));
        if (v > *mx || (s->rev && v == *mx)) {
            *mx = v;
            im = i;
        }
    }
    return im;
}

static void swap_el(const sy *s, double *a, double *b)
{
    for (int e = 0; e < (s->x->cplx ? 2 : 1); e++) {
        double t = a[e];
        a[e] = b[e];
        b[e] = t;
    }
}

/* B's pivots (0-based, a 2x2 pivot as -(kp + 1) on both rows) into LAPACK's ipiv. */
static void piv_store(const sy *s, int64_t *ipiv, int64_t i, int64_t v)
{
    int64_t a = s->rev ? s->n - 1 - i : i;
    if (v >= 0)
        ipiv[a] = (s->rev ? s->n - 1 - v : v) + 1;
    else
        ipiv[a] = -((s->rev ? s->n - 1 - (-v - 1) : -v - 1) + 1);
}

/* A device run's panel: B's column p (p >= kend, off the view) into its pieces R and C
 * (out 0; p becomes the pivot column), or those back (out 1). Nothing for host memory. */
static void piv_move(sy *s, int64_t p, int out)
{
    oz_lx *x = s->x;
    int64_t n = s->n, kend = s->kend, ld;
    if (!out)
        s->piv = p;
    if (p < kend)
        return;
    double *Ar = LX_AT(x, s->A, s->rev ? n - 1 - p : p, s->rev ? n - p : kend, s->lda);
    double *Ac = LX_AT(x, s->A, s->rev ? 0 : p, s->rev ? n - 1 - p : p, s->lda);
    if (out) {
        lx_store(x, s->R, 1, Ar, s->lda, 1, p - kend);
        lx_store(x, s->C, n - p, Ac, s->lda, n - p, 1);
    } else {
        lx_fetch_to(x, s->R, 1, Ar, s->lda, 1, p - kend, &ld);
        lx_fetch_to(x, s->C, n - p, Ac, s->lda, n - p, 1, &ld);
    }
}

/* Bunch-Kaufman's choice for column g = k0 + k of the panel: column k of W (and k + 1 when
 * examined) updated with the panel's previous columns; *kp the pivot row, *kstep 1 or 2;
 * 0 when the column is zero (then D(k, k) = 0 and L(:, k) = 0, as dsytf2, *info set). */
static int choose_pivot(sy *s, const wmat *w, int64_t k0, int64_t k, int64_t *kp, int64_t *kstep,
                        int64_t *info)
{
    const double alpha = (1.0 + sqrt(17.0)) / 8.0;
    int64_t n = s->n, g = k0 + k;
    *kstep = 1;
    /* column k of W: the column of B updated with the panel's previous columns */
    put(s, wat(s, w, g, k), re(s, get(s, at(s, g, g))));
    for (int64_t i = g + 1; i < n; i++)
        put(s, wat(s, w, i, k), get(s, at(s, i, g)));
    wcol_update(s, w, k0, g, k, k, g);
    double *wkk = wat(s, w, g, k);
    put(s, wkk, re(s, get(s, wkk)));
    double absakk = s->herm ? fabs(creal(get(s, wkk))) : cabs1(get(s, wkk)), colmax = 0.0;
    int64_t imax = g + 1 < n ? iamax(s, w, g + 1, n, k, &colmax) : g;
    if ((absakk > colmax ? absakk : colmax) == 0.0) {
        if (!*info)
            *info = s->rev ? n - g : g + 1;
        *kp = g;
        for (int64_t i = g; i < n; i++)
            put(s, at(s, i, g), 0.0);
        return 0;
    }
    *kp = g;
    if (absakk >= alpha * colmax)
        return 1;
    piv_move(s, imax, 0);
    /* column imax of the updated matrix into W's column k + 1 */
    for (int64_t i = g; i < imax; i++)
        put(s, wat(s, w, i, k + 1), cj(s, get(s, at(s, imax, i))));
    put(s, wat(s, w, imax, k + 1), re(s, get(s, at(s, imax, imax))));
    for (int64_t i = imax + 1; i < n; i++)
        put(s, wat(s, w, i, k + 1), get(s, at(s, i, imax)));
    wcol_update(s, w, k0, g, k, k + 1, imax);
    double *wii = wat(s, w, imax, k + 1);
    put(s, wii, re(s, get(s, wii)));
    double rowmax, r2 = 0.0;
    iamax(s, w, g, imax, k + 1, &rowmax);
    if (imax + 1 < n) {
        iamax(s, w, imax + 1, n, k + 1, &r2);
        rowmax = rowmax > r2 ? rowmax : r2;
    }
    double aii = s->herm ? fabs(creal(get(s, wii))) : cabs1(get(s, wii));
    if (absakk >= alpha * colmax * (colmax / rowmax))
        return 1;
    *kp = imax;
    if (aii >= alpha * rowmax) {
        for (int64_t i = g; i < n; i++)
            put(s, wat(s, w, i, k), get(s, wat(s, w, i, k + 1)));
    } else {
        *kstep = 2;
    }
    return 1;
}

/* The symmetric interchange of rows and columns kk and kp (> kk) of the trailing matrix, the
 * panel's columns k0.. of B and W included: the not yet updated column kk into column kp;
 * the pivot columns are overwritten after. */
static void interchange(sy *s, const wmat *w, int64_t k0, int64_t g, int64_t kk, int64_t kp)
{
    int64_t n = s->n;
    put(s, at(s, kp, kp), re(s, get(s, at(s, kk, kk))));
    for (int64_t j = kk + 1; j < kp; j++)
        put(s, at(s, kp, j), cj(s, get(s, at(s, j, kk))));
    for (int64_t i = kp + 1; i < n; i++)
        put(s, at(s, i, kp), get(s, at(s, i, kk)));
    for (int64_t j = k0; j < g; j++)
        swap_el(s, at(s, kk, j), at(s, kp, j));
    for (int64_t c = 0; c <= kk - k0; c++)
        swap_el(s, wat(s, w, kk, c), wat(s, w, kp, c));
    piv_move(s, kp, 1);
}

/* L's columns k (kstep 1) or k, k + 1 (kstep 2) at column g of B from W's: L(:, k) =
 * W(:, k) / D(k, k), or ( L(:, k) L(:, k+1) ) = ( W(:, k) W(:, k+1) ) D^-1 (LAPACK's scaled
 * form); W's columns conjugated where the update reads them so. */
static void store_columns(sy *s, const wmat *w, int64_t g, int64_t k, int64_t kstep)
{
    int64_t n = s->n;
    if (kstep == 1) {
        cx d = get(s, wat(s, w, g, k)), r = dv(1.0, d);
        put(s, at(s, g, g), d);
        for (int64_t i = g + 1; i < n; i++) {
            cx v = get(s, wat(s, w, i, k));
            put(s, at(s, i, g), v * r);
            put(s, wat(s, w, i, k), cj(s, v));
        }
        return;
    }
    cx d21 = get(s, wat(s, w, g + 1, k));
    cx d11 = dv(get(s, wat(s, w, g + 1, k + 1)), d21);
    cx d22 = dv(get(s, wat(s, w, g, k)), cj(s, d21));
    cx t = dv(1.0, re(s, d11 * d22) - 1.0);
    d21 = dv(t, d21);
    for (int64_t i = g + 2; i < n; i++) {
        cx wk = get(s, wat(s, w, i, k)), wk1 = get(s, wat(s, w, i, k + 1));
        put(s, at(s, i, g), cj(s, d21) * (d11 * wk - wk1));
        put(s, at(s, i, g + 1), d21 * (d22 * wk1 - wk));
    }
    put(s, at(s, g, g), get(s, wat(s, w, g, k)));
    put(s, at(s, g + 1, g), get(s, wat(s, w, g + 1, k)));
    put(s, at(s, g + 1, g + 1), get(s, wat(s, w, g + 1, k + 1)));
    if (s->herm)
        for (int64_t i = g + 1; i < n; i++) {
            put(s, wat(s, w, i, k), conj(get(s, wat(s, w, i, k))));
            if (i > g + 1)
                put(s, wat(s, w, i, k + 1), conj(get(s, wat(s, w, i, k + 1))));
        }
}

/* A22 -= L21 W21^T (L21: the kb columns from k0, k1 = k0 + kb) over column blocks of nb: the
 * part below each diagonal block one product straight into A, the diagonal block a product
 * into the workspace of which the lower triangle is subtracted (Hermitian: the diagonal stays
 * real). */
static void trailing_update(sy *s, const wmat *w, int64_t k0, int64_t kb)
{
    oz_lx *x = s->x;
    int64_t n = s->n, nb = w->nb, k1 = k0 + kb;
    for (int64_t c = k1; c < n && kb > 0 && !x->failed; c += nb) {
        int64_t cb = min64(nb, n - c), r = c + cb, b0 = first(s, c, cb), lv, ly;
        const double *Wc = s->rev ? wat(s, w, c + cb - 1, kb - 1) : wat(s, w, c, 0);
        const double *dWc = w->dW + (Wc - w->W);
        if (r < n)
            lx_gemm(x, 'N', 'T', n - r, cb, kb, MONE,
                    LX_AT(x, s->A, first(s, r, n - r), first(s, k0, kb), s->lda), s->lda, dWc,
                    n, ONE, LX_AT(x, s->A, first(s, r, n - r), b0, s->lda), s->lda);
        lx_gemm(x, 'N', 'T', cb, cb, kb, ONE,
                LX_AT(x, s->A, b0, first(s, k0, kb), s->lda), s->lda, dWc, n, ZERO, w->work, cb);
        const double *V = lx_fetch(x, 0, w->work, cb, cb, cb, &lv, 1);
        double *Ab = LX_AT(x, s->A, b0, b0, s->lda), *Y = lx_fetch(x, 1, Ab, s->lda, cb, cb, &ly, 1);
        if (x->failed)
            break;
        for (int64_t j = 0; j < cb; j++)
            for (int64_t i = j; i < cb; i++) {
                int64_t ti = s->rev ? cb - 1 - i : i, tj = s->rev ? cb - 1 - j : j;
                const double *v = LX_AT(x, V, ti, tj, lv);
                double *y = LX_AT(x, Y, ti, tj, ly);
                y[0] -= v[0];
                if (x->cplx)
                    y[1] = s->herm && i == j ? 0.0 : y[1] - v[1];
            }
        lx_store(x, Y, ly, Ab, s->lda, cb, cb);
    }
}

/* Factor columns k0.. of B(k0:n, k0:n): at most nb - 1 (or nb, a 2x2 pivot last) when more
 * than nb remain, all of them otherwise; W := L21 D (conjugated for Hermitian), the lower
 * triangle beyond the panel updated, L in LAPACK's form. Returns the columns done. */
static int64_t panel(sy *s, const wmat *w, int64_t k0, int64_t *bpiv, int64_t *info)
{
    oz_lx *x = s->x;
    /* nb < 2 (no room for a 2x2 pivot in a panel): unblocked, as dsytrf's NBMIN */
    int64_t n = s->n, m = n - k0, nb = w->nb, all = m <= nb || nb < 2, k = 0;
    /* the view: B's rows from k0 of the panel's wc columns (a device run: a host copy; the
       rest of B is reached by the pivot column's pieces) */
    int64_t wc = all ? m : nb;
    s->r0 = s->rev ? 0 : k0;
    s->c0 = first(s, k0, wc);
    s->kend = x->dev ? k0 + wc : n;
    s->P = lx_fetch_to(x, s->Pbuf, m, LX_AT(x, s->A, s->r0, s->c0, s->lda), s->lda, m, wc,
                       &s->ldp);
    while (k < m && (all || k < nb - 1)) {
        int64_t g = k0 + k, kstep, kp;
        if (choose_pivot(s, w, k0, k, &kp, &kstep, info)) {
            int64_t kk = g + kstep - 1; /* the column exchanged with kp */
            if (kp != kk)
                interchange(s, w, k0, g, kk, kp);
            store_columns(s, w, g, k, kstep);
        }
        bpiv[g] = kstep == 1 ? kp : -(kp + 1);
        if (kstep == 2)
            bpiv[g + 1] = bpiv[g];
        k += kstep;
    }
    int64_t kb = k, k1 = k0 + kb;
    /* a device run: the view back (the products read L21 in A) and W where they read it */
    lx_store(x, s->P, s->ldp, LX_AT(x, s->A, s->r0, s->c0, s->lda), s->lda, m, wc);
    lx_store(x, w->W, n, w->dW, n, n, w->nb);
    trailing_update(s, w, k0, kb);
    /* L21 in LAPACK's form: each panel column without the later interchanges */
    for (int64_t j = k1 - 1; j > k0;) {
        int64_t jj = j, jp = bpiv[j] >= 0 ? bpiv[j] : -bpiv[j] - 1;
        if (bpiv[j] < 0)
            j--;
        j--;
        if (jp != jj && j >= k0)
            for (int64_t q = k0; q <= j; q++)
                swap_el(s, at(s, jp, q), at(s, jj, q));
    }
    lx_store(x, vat(s, s->r0, first(s, k0, kb)), s->ldp,
             LX_AT(x, s->A, s->r0, first(s, k0, kb), s->lda), s->lda, m, kb);
    return kb;
}

static void sy_init(sy *s, oz_lx *x, char uplo, int herm, int64_t n, double *A, int64_t lda)
{
    s->x = x;
    s->herm = herm && x->cplx;
    s->rev = uplo == 'U';
    s->n = n;
    s->A = A;
    s->lda = lda;
    s->P = A;
    s->r0 = s->c0 = 0;
    s->ldp = lda;
    s->kend = n;
    s->piv = 0;
    s->R = s->C = s->Pbuf = NULL;
}

ozblas_status lx_sytrf(oz_lx *x, char uplo, int herm, int64_t n, double *A, int64_t lda,
                       int64_t *ipiv, int64_t *info)
{
    *info = 0;
    if (n <= 0)
        return OZBLAS_OK;
    sy s;
    sy_init(&s, x, uplo, herm, n, A, lda);
    int64_t wnb = x->nb >= 2 ? x->nb : n; /* W's columns: the panel's, or all unblocked */
    int64_t we = x->cplx ? 2 : 1, nw = n * wnb, bn = min64(x->nb, n);
    /* a device run: W's device copy with the diagonal blocks' workspace; the host copy of
       the panel and the pivot column's pieces */
    wmat w = {oz_malloc(sizeof(double) * (size_t)(we * (nw + (x->dev ? nw + 2 * n : 0)))), wnb,
              NULL, NULL};
    int64_t *bpiv = oz_malloc(sizeof(int64_t) * (size_t)n);
    if (!w.W || !bpiv) {
        free(w.W);
        free(bpiv);
        return OZBLAS_ERR_ALLOCATION;
    }
    w.dW = lx_scratch(x, w.W, nw + bn * bn);
    if (!w.dW) {
        free(w.W);
        free(bpiv);
        return OZBLAS_ERR_DEVICE;
    }
    w.work = x->dev ? w.dW + we * nw : x->work;
    if (x->dev) {
        s.Pbuf = w.W + we * nw;
        s.R = s.Pbuf + we * nw;
        s.C = s.R + we * n;
    }
    for (int64_t k = 0; k < n && !x->failed;) {
        int64_t kinfo = 0, kb = panel(&s, &w, k, bpiv, &kinfo);
        if (kinfo && !*info)
            *info = kinfo;
        k += kb;
    }
    for (int64_t i = 0; i < n; i++)
        piv_store(&s, ipiv, i, bpiv[i]);
    lx_scratch_free(x, w.dW);
    free(w.W);
    free(bpiv);
    return OZBLAS_OK;
}

/* A factorization's pivots in B's coordinates (as piv_store reads them), its steps in
 * order (the first row of each), the 2x2 off-diagonals of D (conv), and A's diagonal where
 * the host reads it (d, stride ldd: A's own for host memory, a copy for device memory). */
typedef struct {
    int64_t *bpiv, *order, cnt;
    double *e, *d;
    int64_t ldd;
} pivots;

/* D's diagonal element at B's (i, i) */
static cx dg(const sy *s, const pivots *p, int64_t i)
{
    return get(s, LX_AT(s->x, p->d, 0, s->rev ? s->n - 1 - i : i, p->ldd));
}

/* The solve and the inverse touch A in strips of nb columns (what a seam buffer holds): the
 * view on B's columns [c, c + cb), all rows (copy 0: not read), and the strip back. */
static int view_cols(sy *s, int slot, int64_t c, int64_t cb, int copy)
{
    s->r0 = 0;
    s->c0 = first(s, c, cb);
    s->P = lx_fetch(s->x, slot, LX_AT(s->x, s->A, 0, s->c0, s->lda), s->lda, s->n, cb, &s->ldp,
                    copy);
    return !s->x->failed;
}
static void view_store(sy *s, int64_t cb)
{
    lx_store(s->x, s->P, s->ldp, LX_AT(s->x, s->A, 0, s->c0, s->lda), s->lda, s->n, cb);
}

static void piv_free(pivots *p)
{
    free(p->bpiv);
    free(p->e);
}

/* The interchange of step i: the row it exchanged (i, or i + 1 for a 2x2 pivot) and with
 * which (returned); *next: the following step. */
static int64_t step(const int64_t *bpiv, int64_t i, int64_t *row, int64_t *next)
{
    int two = bpiv[i] < 0;
    *row = i + two;
    *next = i + 1 + two;
    return two ? -bpiv[i] - 1 : bpiv[i];
}

/* LAPACK's ipiv read; OZBLAS_ERR_INVALID_ARGUMENT when it is no sytrf pivot sequence (an
 * index out of range, a 2x2 pivot on one row only, an interchange with an earlier row). */
static ozblas_status piv_load(const sy *s, const int64_t *ipiv, pivots *p)
{
    int64_t n = s->n, row, next;
    p->bpiv = oz_malloc(sizeof(int64_t) * (size_t)(2 * n));
    p->e = oz_malloc(sizeof(double) * (size_t)((s->x->cplx ? 2 : 1) * 2 * n));
    if (!p->bpiv || !p->e)
        return OZBLAS_ERR_ALLOCATION;
    p->order = p->bpiv + n;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = ipiv[s->rev ? n - 1 - i : i];
        if (v == 0 || v > n || v < -n)
            return OZBLAS_ERR_INVALID_ARGUMENT;
        int64_t kp = (v > 0 ? v : -v) - 1;
        if (s->rev)
            kp = n - 1 - kp;
        p->bpiv[i] = v > 0 ? kp : -(kp + 1);
    }
    p->cnt = 0;
    for (int64_t i = 0; i < n; i = next) {
        int64_t kp = step(p->bpiv, i, &row, &next);
        if (row >= n || (row > i && p->bpiv[row] != p->bpiv[i]) || kp < row)
            return OZBLAS_ERR_INVALID_ARGUMENT;
        p->order[p->cnt++] = i;
    }
    p->d = lx_fetch_to(s->x, p->e + (s->x->cplx ? 2 : 1) * n, 1, s->A, s->lda + 1, 1, n, &p->ldd);
    return OZBLAS_OK;
}

/* dsyconv: L into standard form (way 1) with the 2x2 off-diagonals of D saved into e (B's
 * element (i + 1, i)) and zeroed, or back (way -1). Swaps and copies: exact, and each
 * touches one column, so the strips take them in turn. */
static void conv(sy *s, const pivots *p, int way)
{
    int64_t n = s->n, we = s->x->cplx ? 2 : 1, row, next;
    for (int64_t c = 0; c < n; c += s->x->nb) {
        int64_t cb = min64(s->x->nb, n - c);
        if (!view_cols(s, 0, c, cb, 1))
            return;
        /* the steps in order, or in reverse to undo (each swap is its own inverse); no swap
           touches a saved value (step i swaps in columns before i, rows after i + 1) */
        for (int64_t t = 0; t < p->cnt; t++) {
            int64_t i = p->order[way > 0 ? t : p->cnt - 1 - t];
            if (p->bpiv[i] < 0 && i >= c && i < c + cb) {
                double *a = at(s, i + 1, i), *e = p->e + we * i;
                if (way > 0) {
                    memcpy(e, a, sizeof(double) * (size_t)we);
                    put(s, a, 0.0);
                } else
                    memcpy(a, e, sizeof(double) * (size_t)we);
            }
            int64_t kp = step(p->bpiv, i, &row, &next);
            if (kp != row)
                for (int64_t j = c; j < i && j < c + cb; j++)
                    swap_el(s, at(s, kp, j), at(s, row, j));
        }
        view_store(s, cb);
    }
}

/* The rows of B (n x nrhs; B's coordinates mapped to the actual ones) interchanged as the
 * factorization did, forward (P^T B) or backward (P B), or (cols) its columns (B nrhs x n),
 * in strips of nb the other way. */
static void permute(const sy *s, const pivots *p, int forward, int cols, int64_t nrhs,
                    double *B, int64_t ldb)
{
    oz_lx *x = s->x;
    int64_t n = s->n, row, next;
    for (int64_t c = 0; c < nrhs; c += x->nb) {
        int64_t cb = min64(x->nb, nrhs - c), r = cols ? cb : n, k = cols ? n : cb, ld;
        double *Bc = cols ? LX_AT(x, B, c, 0, ldb) : LX_AT(x, B, 0, c, ldb);
        double *H = lx_fetch(x, 1, Bc, ldb, r, k, &ld, 1);
        if (x->failed)
            return;
        for (int64_t t = 0; t < p->cnt; t++) {
            int64_t kp = step(p->bpiv, p->order[forward ? t : p->cnt - 1 - t], &row, &next);
            if (kp == row)
                continue;
            int64_t a = s->rev ? n - 1 - row : row, b = s->rev ? n - 1 - kp : kp;
            for (int64_t j = 0; j < cb; j++)
                swap_el(s, cols ? LX_AT(x, H, j, a, ld) : LX_AT(x, H, a, j, ld),
                        cols ? LX_AT(x, H, j, b, ld) : LX_AT(x, H, b, j, ld));
        }
        lx_store(x, H, ld, Bc, ldb, r, k);
    }
}

/* D's block at step i in B's coordinates: [[p, q], [r, t]], r = e_i, q = cj(e_i). */
static void dblock(const sy *s, const pivots *pv, int64_t i, cx *p, cx *q, cx *r, cx *t)
{
    *p = dg(s, pv, i);
    *t = dg(s, pv, i + 1);
    *r = get(s, pv->e + (s->x->cplx ? 2 : 1) * i);
    *q = cj(s, *r);
}

/* B := D^-1 B, B's rows in B's coordinates mapped to the actual ones (dsytrs2's D step), in
 * strips of nb columns. */
static void dsolve(const sy *s, const pivots *pv, int64_t nrhs, double *B, int64_t ldb)
{
    int64_t n = s->n;
    oz_lx *x = s->x;
    for (int64_t c = 0; c < nrhs; c += x->nb) {
        int64_t cb = min64(x->nb, nrhs - c), ld;
        double *Bc = LX_AT(x, B, 0, c, ldb), *H = lx_fetch(x, 1, Bc, ldb, n, cb, &ld, 1);
        if (x->failed)
            return;
#define ROW(i, j) LX_AT(x, H, s->rev ? n - 1 - (i) : (i), j, ld)
        for (int64_t i = 0; i < n; i++) {
            if (pv->bpiv[i] >= 0) {
                cx r = dv(1.0, re(s, dg(s, pv, i)));
                for (int64_t j = 0; j < cb; j++)
                    put(s, ROW(i, j), get(s, ROW(i, j)) * r);
                continue;
            }
            cx p, q, r, t;
            dblock(s, pv, i, &p, &q, &r, &t);
            cx akm1 = dv(p, q), ak = dv(t, r), den = akm1 * ak - 1.0;
            for (int64_t j = 0; j < cb; j++) {
                cx bkm1 = dv(get(s, ROW(i, j)), q), bk = dv(get(s, ROW(i + 1, j)), r);
                put(s, ROW(i, j), dv(ak * bkm1 - bk, den));
                put(s, ROW(i + 1, j), dv(akm1 * bk - bkm1, den));
            }
            i++;
        }
#undef ROW
        lx_store(x, H, ld, Bc, ldb, n, cb);
    }
}

ozblas_status lx_sytrs(oz_lx *x, char uplo, int herm, int64_t n, int64_t nrhs, double *A,
                       int64_t lda, const int64_t *ipiv, double *B, int64_t ldb)
{
    if (n <= 0 || nrhs <= 0)
        return OZBLAS_OK;
    sy s;
    sy_init(&s, x, uplo, herm, n, A, lda);
    pivots pv = {0};
    ozblas_status st = piv_load(&s, ipiv, &pv);
    if (st == OZBLAS_OK) {
        conv(&s, &pv, 1);
        permute(&s, &pv, 1, 0, nrhs, B, ldb);
        lx_trsm(x, 'L', uplo, 'N', 'U', n, nrhs, ONE, A, lda, B, ldb);
        dsolve(&s, &pv, nrhs, B, ldb);
        lx_trsm(x, 'L', uplo, s.herm ? 'C' : 'T', 'U', n, nrhs, ONE, A, lda, B, ldb);
        permute(&s, &pv, 0, 0, nrhs, B, ldb);
        conv(&s, &pv, -1);
    }
    piv_free(&pv);
    return st;
}

/* inv(A) from sytrf's factors; info: the first exactly zero 1x1 pivot (dsytri's check). */
ozblas_status lx_sytri(oz_lx *x, char uplo, int herm, int64_t n, double *A, int64_t lda,
                       const int64_t *ipiv, int64_t *info)
{
    *info = 0;
    if (n <= 0)
        return OZBLAS_OK;
    sy s;
    sy_init(&s, x, uplo, herm, n, A, lda);
    int we = x->cplx ? 2 : 1;
    pivots pv = {0};
    /* the n x n workspace where the matrices are */
    double *Yh = x->dev ? NULL : oz_malloc(sizeof(double) * (size_t)(we * n * n));
    double *Y = lx_scratch(x, Yh, n * n);
    ozblas_status st = Y ? piv_load(&s, ipiv, &pv) : x->dev ? OZBLAS_ERR_DEVICE : OZBLAS_ERR_ALLOCATION;
    for (int64_t i = 0; st == OZBLAS_OK && i < n && !*info; i++)
        if (pv.bpiv[i] >= 0 && dg(&s, &pv, i) == 0.0)
            *info = (s.rev ? n - 1 - i : i) + 1;
        else if (pv.bpiv[i] < 0)
            i++;
    if (st == OZBLAS_OK && !*info) {
        int64_t dummy = 0;
        conv(&s, &pv, 1);
        lx_trtri(x, uplo, 'U', n, A, lda, &dummy); /* inv(L), unit: D untouched */
        /* Y = inv(D) inv(L), full, mirrored as A is, strip by strip (each row operation
           below mixes rows i, i + 1 within one column) */
        sy ys = s;
        ys.A = Y;
        ys.lda = n;
        for (int64_t c = 0; c < n; c += x->nb) {
            int64_t cb = min64(x->nb, n - c), ce = c + cb;
            if (!view_cols(&s, 0, c, cb, 1) || !view_cols(&ys, 1, c, cb, 0))
                break;
            for (int64_t j = c; j < ce; j++)
                for (int64_t i = 0; i < n; i++)
                    put(&ys, at(&ys, i, j), i < j ? 0.0 : i == j ? 1.0 : get(&s, at(&s, i, j)));
            for (int64_t i = 0; i < n; i++) {
                if (pv.bpiv[i] >= 0) {
                    cx r = dv(1.0, re(&s, dg(&s, &pv, i)));
                    for (int64_t j = c; j <= i && j < ce; j++)
                        put(&ys, at(&ys, i, j), get(&ys, at(&ys, i, j)) * r);
                    continue;
                }
                /* the inverse of [[p, q], [r, t]], scaled by |e| (e for complex symmetric)
                   as dsytri: with sc^2 = q r, det / sc = sc (p / sc t / sc - 1) */
                cx p, q, r, t;
                dblock(&s, &pv, i, &p, &q, &r, &t);
                cx sc = s.herm || !x->cplx ? cabs(r) : r;
                cx ak = dv(p, sc), akp1 = dv(t, sc), d = sc * (ak * akp1 - 1.0);
                cx i11 = dv(akp1, d), i22 = dv(ak, d), i12 = -dv(dv(q, sc), d),
                   i21 = -dv(dv(r, sc), d);
                for (int64_t j = c; j <= i + 1 && j < ce; j++) {
                    cx y0 = get(&ys, at(&ys, i, j)), y1 = get(&ys, at(&ys, i + 1, j));
                    put(&ys, at(&ys, i, j), i11 * y0 + i12 * y1);
                    put(&ys, at(&ys, i + 1, j), i21 * y0 + i22 * y1);
                }
                i++;
            }
            view_store(&ys, cb);
        }
        /* X = inv(L)^H Y, then P X P^T; the referenced triangle back into A */
        lx_trmm(x, 'L', uplo, s.herm ? 'C' : 'T', 'U', n, n, ONE, A, lda, Y, n);
        permute(&s, &pv, 0, 0, n, Y, n);
        permute(&s, &pv, 0, 1, n, Y, n);
        for (int64_t c = 0; c < n; c += x->nb) {
            int64_t cb = min64(x->nb, n - c);
            if (!view_cols(&s, 0, c, cb, 1) || !view_cols(&ys, 1, c, cb, 1))
                break;
            for (int64_t j = c; j < c + cb; j++)
                for (int64_t i = j; i < n; i++) {
                    cx v = get(&ys, at(&ys, i, j));
                    put(&s, at(&s, i, j), s.herm && i == j ? creal(v) : v);
                }
            view_store(&s, cb);
        }
    }
    piv_free(&pv);
    lx_scratch_free(x, Y);
    free(Yh);
    return st;
}

/* ---- the public entries (ozblas.h "LAPACK layer") ------------------------------------- */

#include "../core/oz_internal.h"

/* kind 0: sytrf, 1: sytrs, 2: sytri, 3: sysv; herm: zhe* (complex) */
static ozblas_status body(ozblas_context *ctx, int cplx, int herm, int kind, char uplo,
                          int64_t n, int64_t nrhs, double *A, int64_t lda, int64_t *ipiv,
                          double *B, int64_t ldb, int64_t *info, int64_t nb,
                          const ozblas_options *opt, ozblas_lapack_report *report)
{
    static const int ops[4] = {OZ_LF_SYTRF, OZ_LF_SYTRS, OZ_LF_SYTRI, OZ_LF_SYSV};
    oz_lapack_args g = {.op = ops[kind], .uplo = uplo, .n = n, .nrhs = nrhs, .lda = lda,
                        .ldb = ldb, .lwork = 1}; /* workspace is ours */
    *info = oz_lapack_check(&g);
    if (*info)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    /* sytrf, sytri: no B (an empty operand); sytrs restores A exactly (not copied back) */
    double *Bp = B ? B : A;
    int64_t ldbp = B ? ldb : lda, big = n > nrhs ? n : nrhs;
    BEGIN(cplx, n, oz_lapack_flops(ops[kind], cplx, n, n, nrhs), big > 1 ? big : 1,
          LX_OP(A, lda, n, n, kind != 1), LX_OP(Bp, ldbp, B ? n : 0, B ? nrhs : 0, 1))
    B = B ? Bp : NULL;
    ldb = ldbp;
    ozblas_status st = OZBLAS_OK;
    uplo = up(uplo);
    /* every failure comes before its routine changes anything (sysv: a failed solve, short
       of O(n) memory after the factorization, leaves the factors and B unsolved) */
    if (kind == 0 || kind == 3)
        st = lx_sytrf(&x, uplo, herm, n, A, lda, ipiv, info);
    if (st == OZBLAS_OK && (kind == 1 || (kind == 3 && *info == 0)))
        st = lx_sytrs(&x, uplo, herm, n, nrhs, A, lda, ipiv, B, ldb);
    if (st == OZBLAS_OK && kind == 2)
        st = lx_sytri(&x, uplo, herm, n, A, lda, ipiv, info);
    if (st == OZBLAS_ERR_INVALID_ARGUMENT)
        *info = kind == 1 ? -6 : -5; /* ipiv's position */
    END_WITH(st);
}

#define SY_ENTRIES(p, cplx, herm)                                                              \
    LX_API(ozblas_##p##trf,                                                                    \
           (char uplo, int64_t n, double *A, int64_t lda, int64_t *ipiv, int64_t *info),       \
           body, cplx, herm, 0, uplo, n, 0, A, lda, ipiv, NULL, 1, info)                       \
    LX_API(ozblas_##p##trs,                                                                    \
           (char uplo, int64_t n, int64_t nrhs, double *A, int64_t lda, const int64_t *ipiv,   \
            double *B, int64_t ldb, int64_t *info),                                            \
           body, cplx, herm, 1, uplo, n, nrhs, A, lda, (int64_t *)ipiv, B, ldb, info)          \
    LX_API(ozblas_##p##tri,                                                                    \
           (char uplo, int64_t n, double *A, int64_t lda, const int64_t *ipiv,                 \
            int64_t *info),                                                                    \
           body, cplx, herm, 2, uplo, n, 0, A, lda, (int64_t *)ipiv, NULL, 1, info)            \
    LX_API(ozblas_##p##sv,                                                                     \
           (char uplo, int64_t n, int64_t nrhs, double *A, int64_t lda, int64_t *ipiv,         \
            double *B, int64_t ldb, int64_t *info),                                            \
           body, cplx, herm, 3, uplo, n, nrhs, A, lda, ipiv, B, ldb, info)

SY_ENTRIES(dsy, 0, 0)
SY_ENTRIES(zsy, 1, 0)
SY_ENTRIES(zhe, 1, 1)
