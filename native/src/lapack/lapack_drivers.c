/* Blocked LAPACK and Level-3 drivers, written once for double and complex double.
 *
 * The shapes follow LAPACK's own blocked codes (dgetrf, dpotrf, dtrtri, dgetri, dlauum):
 * panels and diagonal blocks by the host routine, every update a GEMM through ozblas. The
 * triangular solves and products are blocked the same way (diagonal blocks by the host
 * trsm/trmm, the rest GEMM), so the factorizations' trailing updates and the solves' bulk
 * are products. Arguments are checked by the callers (lapack_api.c). */
#include <string.h>

#include "oz_lapack.h"
#include "../numerics/her2k.h"

/* The (conjugate) transpose character of the element type. */

/* The run's products as one GEMM report: the first product's, or the first that fell back
 * (as a strided batch shows it), with the largest count and bound and the sums of the
 * counts of entries and engine products. */
static void merge_report(ozblas_report *acc, const ozblas_report *r, int first)
{
    if (first || (r->fallback != OZBLAS_FALLBACK_NONE && acc->fallback == OZBLAS_FALLBACK_NONE)) {
        ozblas_report keep = *acc;
        *acc = *r;
        if (first)
            return;
        r = &keep; /* what the products before it contributed */
    }
    if (r->moduli > acc->moduli)
        acc->moduli = r->moduli;
    if (r->slices > acc->slices)
        acc->slices = r->slices;
    if (r->bound > acc->bound)
        acc->bound = r->bound;
    acc->direct_entries += r->direct_entries;
    acc->engine_products += r->engine_products;
}

void lx_gemm(oz_lx *x, char ta, char tb, int64_t m, int64_t n, int64_t k, const double *alpha,
             const double *A, int64_t lda, const double *B, int64_t ldb, const double *beta,
             double *C, int64_t ldc)
{
    if (m <= 0 || n <= 0 || k <= 0 || x->failed)
        return;
    ozblas_report r;
    memset(&r, 0, sizeof r);
    /* the products' time, in this one place: the report's host remainder is the rest */
    double t0 = lx_now();
    ozblas_status st =
        x->cplx ? ozblas_zgemm(x->ctx, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                               x->opt, &r)
                : ozblas_dgemm(x->ctx, ta, tb, m, n, k, alpha[0], A, lda, B, ldb, beta[0], C,
                               ldc, x->opt, &r);
    if (st != OZBLAS_OK) {
        /* C is untouched on failure (an allocation, the device): computed natively, and
           counted as a native product */
        ozblas_options o = *x->opt;
        o.method = OZBLAS_METHOD_NATIVE;
        memset(&r, 0, sizeof r);
        r.method = OZBLAS_METHOD_NATIVE;
        st = x->cplx ? ozblas_zgemm(x->ctx, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                    &o, &r)
                     : ozblas_dgemm(x->ctx, ta, tb, m, n, k, alpha[0], A, lda, B, ldb, beta[0], C,
                                    ldc, &o, &r);
        if (st != OZBLAS_OK && !x->failed) { /* not even natively (the device): the run fails */
            x->failed = 1;
            x->fail_status = st;
        }
    }
    if (r.fallback == OZBLAS_FALLBACK_ALLOCATION && !x->failed) {
        /* the product went native for want of memory: the whole call goes to the host
           routine (lx_end puts the operands back), never a half-emulated result */
        x->failed = 1;
        x->fail_status = OZBLAS_ERR_ALLOCATION;
    }
    ozblas_lapack_report *p = x->rep;
    p->product_seconds += lx_now() - t0;
    double f = (x->cplx ? 8.0 : 2.0) * (double)m * (double)n * (double)k;
    if (x->product)
        merge_report(x->product, &r, p->products == 0);
    p->products++;
    p->product_flops += f;
    p->executor = r.executor;
    if (r.method != OZBLAS_METHOD_NATIVE && r.fallback == OZBLAS_FALLBACK_NONE) {
        int count = r.moduli ? r.moduli : r.slices;
        p->emulated++;
        p->emulated_flops += f;
        p->method = r.method;
        if (count && (!p->min_moduli || count < p->min_moduli))
            p->min_moduli = count;
        if (count > 0 && count < 64)
            p->moduli_hist[count]++;
        if (count > p->max_moduli)
            p->max_moduli = count;
        if (r.bound > p->max_bound)
            p->max_bound = r.bound;
    }
}

/* Block (r, c) of op(A) as stored: op 'N' reads A(r, c), a transpose reads A(c, r). */
static const double *op_block(const oz_lx *x, const double *A, int64_t lda, char op, int64_t r,
                              int64_t c)
{
    return op == 'N' ? LX_AT(x, A, r, c, lda) : LX_AT(x, A, c, r, lda);
}

/* B := alpha op(A)^-1 B or alpha B op(A)^-1. Forward or backward over blocks of nb, as
 * op(A) is lower or upper: diagonal blocks by the host trsm, the rest of the block row or
 * column one GEMM (the first applies alpha to what has not been solved yet). */
static void trsm_nb(oz_lx *x, int64_t nb, char side, char uplo, char ta, char diag, int64_t m,
                    int64_t n, const double *alpha, const double *A, int64_t lda, double *B,
                    int64_t ldb)
{
    if (m <= 0 || n <= 0)
        return;
    int64_t K = side == 'L' ? m : n;
    if (K <= nb) {
        lx_blk_tr3(x, 0, side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb);
        return;
    }
    int lower = (uplo == 'L') != (ta != 'N'); /* op(A) lower triangular */
    int forward = side == 'L' ? lower : !lower;
    for (int64_t t = 0; t < K; t += nb) {
        int64_t ib = min64(nb, K - t), s = forward ? t : K - t - ib; /* block [s, s + ib) */
        const double *al = t == 0 ? alpha : ONE;
        const double *Ass = LX_AT(x, A, s, s, lda);
        int64_t r0 = forward ? s + ib : 0, rn = forward ? K - s - ib : s; /* the rest */
        if (side == 'L') {
            lx_blk_tr3(x, 0, side, uplo, ta, diag, ib, n, al, Ass, lda, LX_AT(x, B, s, 0, ldb), ldb);
            lx_gemm(x, ta, 'N', rn, n, ib, MONE, op_block(x, A, lda, ta, r0, s), lda,
                    LX_AT(x, B, s, 0, ldb), ldb, al, LX_AT(x, B, r0, 0, ldb), ldb);
        } else {
            lx_blk_tr3(x, 0, side, uplo, ta, diag, m, ib, al, Ass, lda, LX_AT(x, B, 0, s, ldb), ldb);
            lx_gemm(x, 'N', ta, m, rn, ib, MONE, LX_AT(x, B, 0, s, ldb), ldb,
                    op_block(x, A, lda, ta, s, r0), lda, al, LX_AT(x, B, 0, r0, ldb), ldb);
        }
    }
}

void lx_trsm(oz_lx *x, char side, char uplo, char ta, char diag, int64_t m, int64_t n,
             const double *alpha, const double *A, int64_t lda, double *B, int64_t ldb)
{
    trsm_nb(x, x->nb, side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb);
}

/* The TRSMs beside a factorization's diagonal block (its order at most nb) are blocked
 * again with nb/4, so that most of their flops are products too: at n = 2048, nb = 256 they
 * are about 10% (LU) and 19% (Cholesky) of the factorization's flops. */
static void trsm_panel(oz_lx *x, char side, char uplo, char ta, char diag, int64_t m, int64_t n,
                       const double *A, int64_t lda, double *B, int64_t ldb)
{
    int64_t nb = x->nb / 4 > 16 ? x->nb / 4 : 16;
    trsm_nb(x, nb, side, uplo, ta, diag, m, n, ONE, A, lda, B, ldb);
}

/* B := alpha op(A) B or alpha B op(A). Each block of B is rewritten from blocks not yet
 * rewritten: top down (side L, op(A) upper), bottom up (L, lower), right to left (R, upper),
 * left to right (R, lower). */
static void trmm_nb(oz_lx *x, int64_t nb, char side, char uplo, char ta, char diag, int64_t m,
                    int64_t n, const double *alpha, const double *A, int64_t lda, double *B,
                    int64_t ldb)
{
    if (m <= 0 || n <= 0)
        return;
    int64_t K = side == 'L' ? m : n;
    if (K <= nb) {
        lx_blk_tr3(x, 1, side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb);
        return;
    }
    int lower = (uplo == 'L') != (ta != 'N');
    int forward = side == 'L' ? !lower : lower;
    for (int64_t t = 0; t < K; t += nb) {
        int64_t ib = min64(nb, K - t), s = forward ? t : K - t - ib;
        const double *Ass = LX_AT(x, A, s, s, lda);
        int64_t r0 = forward ? s + ib : 0, rn = forward ? K - s - ib : s;
        if (side == 'L') {
            lx_blk_tr3(x, 1, side, uplo, ta, diag, ib, n, alpha, Ass, lda, LX_AT(x, B, s, 0, ldb),
                         ldb);
            lx_gemm(x, ta, 'N', ib, n, rn, alpha, op_block(x, A, lda, ta, s, r0), lda,
                    LX_AT(x, B, r0, 0, ldb), ldb, ONE, LX_AT(x, B, s, 0, ldb), ldb);
        } else {
            lx_blk_tr3(x, 1, side, uplo, ta, diag, m, ib, alpha, Ass, lda, LX_AT(x, B, 0, s, ldb),
                         ldb);
            lx_gemm(x, 'N', ta, m, ib, rn, alpha, LX_AT(x, B, 0, r0, ldb), ldb,
                    op_block(x, A, lda, ta, r0, s), lda, ONE, LX_AT(x, B, 0, s, ldb), ldb);
        }
    }
}

void lx_trmm(oz_lx *x, char side, char uplo, char ta, char diag, int64_t m, int64_t n,
             const double *alpha, const double *A, int64_t lda, double *B, int64_t ldb)
{
    trmm_nb(x, x->nb, side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb);
}

void lx_tr3_panel(oz_lx *x, int mult, char side, char uplo, char ta, char diag, int64_t m,
                  int64_t n, const double *A, int64_t lda, double *B, int64_t ldb)
{
    if (!mult) {
        trsm_panel(x, side, uplo, ta, diag, m, n, A, lda, B, ldb);
        return;
    }
    int64_t nb = x->nb / 4 > 16 ? x->nb / 4 : 16;
    trmm_nb(x, nb, side, uplo, ta, diag, m, n, ONE, A, lda, B, ldb);
}

/* y := v + beta y for one element (v NULL: beta y); beta = 1 adds, beta = 0 does not read
 * y; a real beta scales both parts of a complex y. */
static void axpby1(const oz_lx *x, const double *v, const double *beta, double *y)
{
    int w = x->cplx ? 2 : 1;
    int one = beta[0] == 1.0 && beta[1] == 0.0, zero = beta[0] == 0.0 && beta[1] == 0.0;
    if (x->cplx && !one && !zero && beta[1] != 0.0) {
        double re = beta[0] * y[0] - beta[1] * y[1], im = beta[0] * y[1] + beta[1] * y[0];
        y[0] = v ? v[0] + re : re;
        y[1] = v ? v[1] + im : im;
        return;
    }
    for (int e = 0; e < w; e++) {
        double by = one ? y[e] : zero ? 0.0 : beta[0] * y[e];
        y[e] = v ? (zero ? v[e] : by + v[e]) : by;
    }
}

/* B := beta B (m x n), in strips of nb columns (what a seam buffer holds). */
void lx_scale(oz_lx *x, int64_t m, int64_t n, const double *beta, double *B, int64_t ldb)
{
    if (beta[0] == 1.0 && beta[1] == 0.0)
        return;
    for (int64_t c = 0; c < n && m > 0; c += x->nb) {
        int64_t cb = min64(x->nb, n - c), ld;
        double *Bc = LX_AT(x, B, 0, c, ldb);
        double *H = lx_fetch(x, 1, Bc, ldb, m, cb, &ld, beta[0] != 0.0 || beta[1] != 0.0);
        if (x->failed)
            return;
        for (int64_t j = 0; j < cb; j++)
            for (int64_t i = 0; i < m; i++)
                axpby1(x, NULL, beta, LX_AT(x, H, i, j, ld));
        lx_store(x, H, ld, Bc, ldb, m, cb);
    }
}

void lx_zero(oz_lx *x, int64_t m, int64_t n, double *B, int64_t ldb)
{
    lx_scale(x, m, n, ZERO, B, ldb);
}

/* HER2K's diagonal block W (n x n) := alpha op(P) op(Q)^H + conj(alpha) op(Q) op(P)^H as one
 * product, which the Ozaki II driver runs as a Hermitian one: its operand U (numerics/her2k.h)
 * built where P and Q are, by the host's steps (core/driver_ozaki2.c oz_her2k_operands) or
 * the device executor's (its her2k_operands), the same bits either way. For want of memory
 * the whole call goes to the host routine, as lx_gemm's products do; 0 (nothing done) where
 * the device executor cannot build U. */
static int her2k_block(oz_lx *x, char trans, int64_t n, int64_t k, const double *alpha,
                       const double *P, int64_t ldp, const double *Q, int64_t ldq, double *W)
{
    const oz_executor *d = x->dev ? x->devex : NULL;
    if (d && !d->her2k_operands)
        return 0;
    const size_t bytes = sizeof(double) * 6 * (size_t)n * (size_t)k;
    double ga[2], *U = d ? d->mem_alloc(x->opt, bytes) : oz_malloc(bytes);
    if (!U) {
        if (!x->failed) {
            x->failed = 1;
            x->fail_status = OZBLAS_ERR_ALLOCATION;
        }
        return 1;
    }
    if (d && d->her2k_operands(x->opt, trans, n, k, alpha, P, ldp, Q, ldq, U)) {
        x->failed = 1; /* the device failed, as a copy (lapack_seam.c) */
        d->mem_free(x->opt, U);
        return 1;
    }
    if (!d)
        oz_her2k_operands(trans, n, k, alpha, P, ldp, Q, ldq, U);
    oz_her2k_gain(alpha, ga);
    lx_gemm(x, 'N', 'C', n, n, 2 * k, ga, U, n, U + 2 * n * k, n, ZERO, W, n);
    if (d)
        d->mem_free(x->opt, U);
    else
        free(U);
    return 1;
}

/* The one SYRK/HERK/SYR2K/HER2K of the library (the factorizations' updates, the public
 * entries, the shim's host and cuBLAS SYRK calls). The referenced triangle of C (n x n) :=
 * alpha P op(Q) + alpha' Q op(P) + beta C (trans 'N', P and Q n x k) or alpha op(P) Q +
 * alpha' op(Q) P + beta C (P and Q k x n), alpha' = alpha (SYR2K) or conj(alpha) (HER2K);
 * Q NULL: the rank-k update alpha P op(P) + beta C (or alpha op(P) P + beta C). op is the
 * conjugate transpose for HERK/HER2K (herm), the transpose for SYRK/SYR2K. Products in column
 * strips of nb: the part of a strip off the diagonal block one GEMM (two for rank 2k, the
 * first applying beta) straight into C; the diagonal block the same into a workspace, of
 * which only the triangle is added (the other triangle of C is not referenced, as in BLAS);
 * HERK's diagonal stays real. alpha = 0 or k = 0: C := beta C on the triangle. */
static void rank_k(oz_lx *x, int herm, char uplo, char trans, int64_t n, int64_t k,
                   const double *alpha, const double *P, int64_t ldp, const double *Q,
                   int64_t ldq, const double *beta, double *C, int64_t ldc)
{
    if (n <= 0)
        return;
    int64_t nb = x->nb < n ? x->nb : n;
    int w = x->cplx ? 2 : 1, prod = k > 0 && (alpha[0] != 0.0 || alpha[1] != 0.0);
    int h = herm && x->cplx;
    const double alpha2[2] = {alpha[0], h ? -alpha[1] : alpha[1]};
    double *W = x->work;
    /* the rows r (or columns) of the left factor and of the right one: P(r,:) and op(Q(c,:)),
       or op(P(:,r)) and Q(:,c) */
    char op = h ? 'C' : 'T';
    char tl = trans == 'N' ? 'N' : op, tr = trans == 'N' ? op : 'N';
#define LX_ROWS(M, ld, i) (trans == 'N' ? LX_AT(x, M, (i), 0, ld) : LX_AT(x, M, 0, (i), ld))
    const double *R = Q ? Q : P; /* the right factor of the first product */
    int64_t ldr = Q ? ldq : ldp;
    for (int64_t c = 0; c < n; c += nb) {
        int64_t cb = min64(nb, n - c);
        int64_t r0 = uplo == 'U' ? 0 : c + cb, rn = uplo == 'U' ? c : n - c - cb;
        double *Cr = LX_AT(x, C, r0, c, ldc);
        if (prod) {
            lx_gemm(x, tl, tr, rn, cb, k, alpha, LX_ROWS(P, ldp, r0), ldp, LX_ROWS(R, ldr, c),
                    ldr, beta, Cr, ldc);
            if (Q)
                lx_gemm(x, tl, tr, rn, cb, k, alpha2, LX_ROWS(Q, ldq, r0), ldq,
                        LX_ROWS(P, ldp, c), ldp, ONE, Cr, ldc);
            if (!(Q && h && her2k_block(x, trans, cb, k, alpha, LX_ROWS(P, ldp, c), ldp,
                                        LX_ROWS(Q, ldq, c), ldq, W))) {
                lx_gemm(x, tl, tr, cb, cb, k, alpha, LX_ROWS(P, ldp, c), ldp,
                        LX_ROWS(R, ldr, c), ldr, ZERO, W, cb);
                if (Q)
                    lx_gemm(x, tl, tr, cb, cb, k, alpha2, LX_ROWS(Q, ldq, c), ldq,
                            LX_ROWS(P, ldp, c), ldp, ONE, W, cb);
            }
        } else
            lx_scale(x, rn, cb, beta, Cr, ldc);
        int64_t ld;
        double *Ccc = LX_AT(x, C, c, c, ldc), *H = lx_fetch(x, 1, Ccc, ldc, cb, cb, &ld, 1);
        if (x->failed)
            return;
        for (int64_t j = 0; j < cb; j++) {
            int64_t i0 = uplo == 'U' ? 0 : j, i1 = uplo == 'U' ? j + 1 : cb;
            for (int64_t i = i0; i < i1; i++) {
                double *y = LX_AT(x, H, i, j, ld);
                axpby1(x, prod ? W + w * (i + j * cb) : NULL, beta, y);
                if (h && i == j)
                    y[1] = 0.0;
            }
        }
        lx_store(x, H, ld, Ccc, ldc, cb, cb);
    }
#undef LX_ROWS
}

void lx_syrk(oz_lx *x, int herm, char uplo, char trans, int64_t n, int64_t k,
             const double *alpha, const double *P, int64_t ldp, const double *beta, double *C,
             int64_t ldc)
{
    rank_k(x, herm, uplo, trans, n, k, alpha, P, ldp, NULL, 0, beta, C, ldc);
}

void lx_syr2k(oz_lx *x, int herm, char uplo, char trans, int64_t n, int64_t k,
              const double *alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
              const double *beta, double *C, int64_t ldc)
{
    rank_k(x, herm, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

/* The factorizations' HERK: the triangle of C += sign * P op(P) (or op(P) P). */
static void lx_herk(oz_lx *x, char uplo, char trans, int64_t n, int64_t k, const double *sign,
                    const double *P, int64_t ldp, double *C, int64_t ldc)
{
    if (k > 0)
        lx_syrk(x, 1, uplo, trans, n, k, sign, P, ldp, ONE, C, ldc);
}

void lx_getrf(oz_lx *x, int64_t m, int64_t n, double *A, int64_t lda, int64_t *ipiv,
              int64_t *info)
{
    int64_t mn = min64(m, n), nb = x->nb;
    *info = 0;
    if (mn <= 0)
        return;
    if (mn <= nb) {
        lx_blk_getrf(x, m, n, A, lda, ipiv, info);
        return;
    }
    for (int64_t j = 0; j < mn; j += nb) {
        int64_t jb = min64(nb, mn - j), pinfo = 0;
        /* the panel A(j:m, j:j+jb) by the host getrf, its pivots made global */
        lx_blk_getrf(x, m - j, jb, LX_AT(x, A, j, j, lda), lda, ipiv + j, &pinfo);
        if (pinfo > 0 && *info == 0)
            *info = pinfo + j;
        for (int64_t i = j; i < j + jb; i++)
            ipiv[i] += j;
        lx_blk_laswp(x, j, A, lda, j + 1, j + jb, ipiv, 1);
        if (j + jb < n) {
            int64_t nr = n - j - jb;
            lx_blk_laswp(x, nr, LX_AT(x, A, 0, j + jb, lda), lda, j + 1, j + jb, ipiv, 1);
            trsm_panel(x, 'L', 'L', 'N', 'U', jb, nr, LX_AT(x, A, j, j, lda), lda,
                       LX_AT(x, A, j, j + jb, lda), lda);
            lx_gemm(x, 'N', 'N', m - j - jb, nr, jb, MONE, LX_AT(x, A, j + jb, j, lda), lda,
                    LX_AT(x, A, j, j + jb, lda), lda, ONE, LX_AT(x, A, j + jb, j + jb, lda), lda);
        }
    }
}

void lx_getrs(oz_lx *x, char trans, int64_t n, int64_t nrhs, const double *A, int64_t lda,
              const int64_t *ipiv, double *B, int64_t ldb)
{
    if (n <= 0 || nrhs <= 0)
        return;
    if (trans == 'N') {
        lx_blk_laswp(x, nrhs, B, ldb, 1, n, ipiv, 1);
        lx_trsm(x, 'L', 'L', 'N', 'U', n, nrhs, ONE, A, lda, B, ldb);
        lx_trsm(x, 'L', 'U', 'N', 'N', n, nrhs, ONE, A, lda, B, ldb);
    } else {
        lx_trsm(x, 'L', 'U', trans, 'N', n, nrhs, ONE, A, lda, B, ldb);
        lx_trsm(x, 'L', 'L', trans, 'U', n, nrhs, ONE, A, lda, B, ldb);
        lx_blk_laswp(x, nrhs, B, ldb, 1, n, ipiv, -1);
    }
}

/* Right-looking Cholesky: the diagonal block by the host potrf, the block row (column)
 * beside it by TRSM, the trailing triangle by SYRK/HERK as products. */
void lx_potrf(oz_lx *x, char uplo, int64_t n, double *A, int64_t lda, int64_t *info)
{
    int64_t nb = x->nb;
    *info = 0;
    if (n <= 0)
        return;
    if (n <= nb) {
        lx_blk_potrf(x, uplo, n, A, lda, info);
        return;
    }
    for (int64_t j = 0; j < n; j += nb) {
        int64_t jb = min64(nb, n - j), nr = n - j - jb, pinfo = 0;
        double *Ajj = LX_AT(x, A, j, j, lda);
        lx_blk_potrf(x, uplo, jb, Ajj, lda, &pinfo);
        if (pinfo > 0) {
            *info = pinfo + j;
            return;
        }
        if (!nr)
            break;
        if (uplo == 'U') {
            double *A12 = LX_AT(x, A, j, j + jb, lda);
            trsm_panel(x, 'L', 'U', ct(x), 'N', jb, nr, Ajj, lda, A12, lda);
            lx_herk(x, 'U', 'C', nr, jb, MONE, A12, lda, LX_AT(x, A, j + jb, j + jb, lda), lda);
        } else {
            double *A21 = LX_AT(x, A, j + jb, j, lda);
            trsm_panel(x, 'R', 'L', ct(x), 'N', nr, jb, Ajj, lda, A21, lda);
            lx_herk(x, 'L', 'N', nr, jb, MONE, A21, lda, LX_AT(x, A, j + jb, j + jb, lda), lda);
        }
    }
}

void lx_potrs(oz_lx *x, char uplo, int64_t n, int64_t nrhs, const double *A, int64_t lda,
              double *B, int64_t ldb)
{
    if (n <= 0 || nrhs <= 0)
        return;
    char first = uplo == 'U' ? ct(x) : 'N', second = uplo == 'U' ? 'N' : ct(x);
    lx_trsm(x, 'L', uplo, first, 'N', n, nrhs, ONE, A, lda, B, ldb);
    lx_trsm(x, 'L', uplo, second, 'N', n, nrhs, ONE, A, lda, B, ldb);
}

int64_t lx_zero_diagonal(oz_lx *x, int64_t n, const double *A, int64_t lda)
{
    int64_t ld; /* the diagonal as a 1 x n block with stride lda + 1 */
    const double *D = lx_fetch(x, 0, A, lda + 1, 1, n, &ld, 1);
    for (int64_t i = 0; i < n && !x->failed; i++) {
        const double *d = LX_AT(x, D, 0, i, ld);
        if (d[0] == 0.0 && (!x->cplx || d[1] == 0.0))
            return i + 1;
    }
    return 0;
}

/* Triangular inverse in place (LAPACK's dtrtri): each block column from the inverted
 * blocks before it, by TRMM and TRSM, its diagonal block by the host trtri. */
void lx_trtri(oz_lx *x, char uplo, char diag, int64_t n, double *A, int64_t lda, int64_t *info)
{
    int64_t nb = x->nb;
    *info = diag == 'N' ? lx_zero_diagonal(x, n, A, lda) : 0;
    if (n <= 0 || *info)
        return;
    if (n <= nb) {
        lx_blk_trtri(x, uplo, diag, n, A, lda, info);
        return;
    }
    int64_t dummy = 0;
    for (int64_t t = 0; t < n; t += nb) {
        int64_t jb = min64(nb, n - t);
        int64_t j = uplo == 'U' ? t : n - t - jb; /* upper: left to right; lower: backward */
        if (uplo == 'U') {
            lx_trmm(x, 'L', 'U', 'N', diag, j, jb, ONE, A, lda, LX_AT(x, A, 0, j, lda), lda);
            lx_trsm(x, 'R', 'U', 'N', diag, j, jb, MONE, LX_AT(x, A, j, j, lda), lda,
                    LX_AT(x, A, 0, j, lda), lda);
        } else {
            int64_t nr = n - j - jb;
            lx_trmm(x, 'L', 'L', 'N', diag, nr, jb, ONE, LX_AT(x, A, j + jb, j + jb, lda), lda,
                    LX_AT(x, A, j + jb, j, lda), lda);
            lx_trsm(x, 'R', 'L', 'N', diag, nr, jb, MONE, LX_AT(x, A, j, j, lda), lda,
                    LX_AT(x, A, j + jb, j, lda), lda);
        }
        lx_blk_trtri(x, uplo, diag, jb, LX_AT(x, A, j, j, lda), lda, &dummy);
    }
}

/* inv(A) from getrf's factors (LAPACK's dgetri): inv(U), then inv(A) inv(L) = inv(U)
 * solved for inv(A) block column by block column from the right (GEMM, then TRSM with the
 * unit lower diagonal block copied aside), then the column interchanges in reverse. */
void lx_getri(oz_lx *x, int64_t n, double *A, int64_t lda, const int64_t *ipiv, int64_t *info)
{
    lx_trtri(x, 'U', 'N', n, A, lda, info);
    if (n <= 0 || *info)
        return;
    int64_t nb = x->nb < n ? x->nb : n;
    int w = x->cplx ? 2 : 1;
    double *W = x->work + w * nb * nb; /* after the SYRK/HERK block */
    for (int64_t j = ((n - 1) / nb) * nb; j >= 0; j -= nb) {
        int64_t jb = min64(nb, n - j), ld;
        double *H = lx_fetch(x, 0, LX_AT(x, A, 0, j, lda), lda, n, jb, &ld, 1);
        if (x->failed)
            return;
        for (int64_t jj = 0; jj < jb; jj++)
            for (int64_t i = j + jj + 1; i < n; i++) {
                double *a = LX_AT(x, H, i, jj, ld), *v = LX_AT(x, W, i, jj, n);
                for (int e = 0; e < w; e++) {
                    v[e] = a[e];
                    a[e] = 0.0;
                }
            }
        lx_store(x, H, ld, LX_AT(x, A, 0, j, lda), lda, n, jb);
        lx_gemm(x, 'N', 'N', n, jb, n - j - jb, MONE, LX_AT(x, A, 0, j + jb, lda), lda,
                LX_AT(x, W, j + jb, 0, n), n, ONE, LX_AT(x, A, 0, j, lda), lda);
        lx_trsm(x, 'R', 'L', 'N', 'U', n, jb, ONE, LX_AT(x, W, j, 0, n), n,
                LX_AT(x, A, 0, j, lda), lda);
    }
    for (int64_t j = n - 2; j >= 0 && !x->failed; j--) {
        int64_t jp = ipiv[j] - 1, la, lb;
        if (jp == j)
            continue;
        double *Aj = LX_AT(x, A, 0, j, lda), *Ap = LX_AT(x, A, 0, jp, lda);
        double *a = lx_fetch(x, 0, Aj, lda, n, 1, &la, 1), *b = lx_fetch(x, 1, Ap, lda, n, 1, &lb, 1);
        if (x->failed)
            return;
        for (int64_t i = 0; i < w * n; i++) {
            double s = a[i];
            a[i] = b[i];
            b[i] = s;
        }
        lx_store(x, a, la, Aj, lda, n, 1);
        lx_store(x, b, lb, Ap, lda, n, 1);
    }
}

/* inv(A) from potrf's factor: inv(U) (or inv(L)) by lx_trtri, then the product
 * inv(U) inv(U)^H (inv(L)^H inv(L)) as LAPACK's dlauum blocks it: TRMM, the host lauum on
 * the diagonal block, GEMM and SYRK/HERK. */
void lx_potri(oz_lx *x, char uplo, int64_t n, double *A, int64_t lda, int64_t *info)
{
    lx_trtri(x, uplo, 'N', n, A, lda, info);
    if (n <= 0 || *info)
        return;
    int64_t nb = x->nb, dummy = 0;
    if (n <= nb) {
        lx_blk_lauum(x, uplo, n, A, lda, &dummy);
        return;
    }
    for (int64_t i = 0; i < n; i += nb) {
        int64_t ib = min64(nb, n - i), nr = n - i - ib;
        double *Aii = LX_AT(x, A, i, i, lda);
        if (uplo == 'U') {
            lx_trmm(x, 'R', 'U', ct(x), 'N', i, ib, ONE, Aii, lda, LX_AT(x, A, 0, i, lda), lda);
            lx_blk_lauum(x, 'U', ib, Aii, lda, &dummy);
            if (nr) {
                lx_gemm(x, 'N', ct(x), i, ib, nr, ONE, LX_AT(x, A, 0, i + ib, lda), lda,
                        LX_AT(x, A, i, i + ib, lda), lda, ONE, LX_AT(x, A, 0, i, lda), lda);
                lx_herk(x, 'U', 'N', ib, nr, ONE, LX_AT(x, A, i, i + ib, lda), lda, Aii, lda);
            }
        } else {
            lx_trmm(x, 'L', 'L', ct(x), 'N', ib, i, ONE, Aii, lda, LX_AT(x, A, i, 0, lda), lda);
            lx_blk_lauum(x, 'L', ib, Aii, lda, &dummy);
            if (nr) {
                lx_gemm(x, ct(x), 'N', ib, i, nr, ONE, LX_AT(x, A, i + ib, i, lda), lda,
                        LX_AT(x, A, i + ib, 0, lda), lda, ONE, LX_AT(x, A, i, 0, lda), lda);
                lx_herk(x, 'L', 'C', ib, nr, ONE, LX_AT(x, A, i + ib, i, lda), lda, Aii, lda);
            }
        }
    }
}
