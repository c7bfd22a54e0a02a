/* The Level-3 BLAS routines that are products: symm, hemm, syr2k, her2k, written once for
 * double and complex double, every flop in ozblas GEMMs.
 *
 * symm/hemm: the symmetric (Hermitian) operand expanded from its stored triangle one strip
 * of nb columns at a time (a workspace of K x nb), each strip one GEMM into its rows
 * (side 'L': A(s:s+nb, :) = strip^T or strip^H) or columns ('R') of C.
 * syr2k/her2k: column strips of C; the part of a strip off the diagonal block two GEMMs
 * straight into C (the first applies beta), the diagonal block two GEMMs into a workspace
 * of which only the referenced triangle is added, so the other triangle of C is untouched;
 * her2k's diagonal stays real. Arguments are checked here (BLAS: the netlib order). */
#include <stdlib.h>
#include <string.h>

#include "../core/oz_internal.h"
#include "oz_lapack.h"

static const double ONE[2] = {1.0, 0.0}, ZERO[2] = {0.0, 0.0};

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max1(int64_t n) { return n > 1 ? n : 1; }
static char up(char c) { return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c; }
static int is_zero(const double *a) { return a[0] == 0.0 && a[1] == 0.0; }
static int is_one(const double *a) { return a[0] == 1.0 && a[1] == 0.0; }

int64_t oz_l3_check(int op, int cplx, char side, char uplo, char trans, int64_t m, int64_t n,
                    int64_t k, int64_t lda, int64_t ldb, int64_t ldc)
{
    side = up(side), uplo = up(uplo), trans = up(trans);
    if (op == OZ_L3_SYMM || op == OZ_L3_HEMM) {
        if (side != 'L' && side != 'R')
            return -1;
        if (uplo != 'U' && uplo != 'L')
            return -2;
        return m < 0 ? -3 : n < 0 ? -4 : lda < max1(side == 'L' ? m : n) ? -7
             : ldb < max1(m) ? -9 : ldc < max1(m) ? -12 : 0;
    }
    const char *ok = op == OZ_L3_HER2K ? "NC" : cplx ? "NT" : "NTC";
    if (uplo != 'U' && uplo != 'L')
        return -1;
    if (!trans || !strchr(ok, trans))
        return -2;
    int64_t rows = trans == 'N' ? n : k;
    return n < 0 ? -3 : k < 0 ? -4 : lda < max1(rows) ? -7 : ldb < max1(rows) ? -9
         : ldc < max1(n) ? -12 : 0;
}

double oz_l3_flops(int op, int cplx, char side, int64_t m, int64_t n, int64_t k)
{
    double f = op == OZ_L3_SYMM || op == OZ_L3_HEMM
                   ? 2.0 * (double)m * (double)n * (double)(up(side) == 'L' ? m : n)
                   : 2.0 * (double)k * (double)n * ((double)n + 1.0);
    return (cplx ? 4.0 : 1.0) * f;
}

/* y := v + beta y (v NULL: beta y), y not read when beta is zero */
static void axpby(const oz_lx *x, const double *v, const double *beta, double *y)
{
    double re = 0.0, im = 0.0;
    if (!is_zero(beta)) {
        re = beta[0] * y[0] - (x->cplx ? beta[1] * y[1] : 0.0);
        im = x->cplx ? beta[0] * y[1] + beta[1] * y[0] : 0.0;
    }
    y[0] = re + (v ? v[0] : 0.0);
    if (x->cplx)
        y[1] = im + (v ? v[1] : 0.0);
}

/* C (m x n; uplo 'U'/'L': that triangle only, herm: its diagonal made real) := beta C */
static void scale(const oz_lx *x, char uplo, int herm, int64_t m, int64_t n, const double *beta,
                  double *C, int64_t ldc)
{
    for (int64_t j = 0; j < n; j++) {
        int64_t i0 = uplo == 'L' ? j : 0, i1 = uplo == 'U' ? j + 1 : m;
        for (int64_t i = i0; i < i1; i++) {
            double *y = LX_AT(x, C, i, j, ldc);
            axpby(x, NULL, beta, y);
            if (herm && i == j)
                y[1] = 0.0;
        }
    }
}

static void lx_symm(oz_lx *x, double *S, int herm, char side, char uplo, int64_t m, int64_t n,
                    const double *alpha, const double *A, int64_t lda, const double *B,
                    int64_t ldb, const double *beta, double *C, int64_t ldc)
{
    int64_t K = side == 'L' ? m : n, nb = x->nb;
    for (int64_t s = 0; s < K; s += nb) {
        int64_t sb = min64(nb, K - s);
        for (int64_t j = 0; j < sb; j++) {
            int64_t c = s + j;
            for (int64_t i = 0; i < K; i++) {
                int stored = uplo == 'U' ? i <= c : i >= c;
                const double *a = stored ? LX_AT(x, A, i, c, lda) : LX_AT(x, A, c, i, lda);
                double *d = LX_AT(x, S, i, j, K);
                d[0] = a[0];
                if (x->cplx) /* hemm: the diagonal's imaginary part is taken as zero */
                    d[1] = herm && i == c ? 0.0 : herm && !stored ? -a[1] : a[1];
            }
        }
        if (side == 'L')
            lx_gemm(x, herm ? 'C' : 'T', 'N', sb, n, K, alpha, S, K, B, ldb, beta,
                    LX_AT(x, C, s, 0, ldc), ldc);
        else
            lx_gemm(x, 'N', 'N', m, sb, K, alpha, B, ldb, S, K, beta, LX_AT(x, C, 0, s, ldc),
                    ldc);
    }
}

static void lx_syr2k(oz_lx *x, double *W, int herm, char uplo, char trans, int64_t n, int64_t k,
                     const double *alpha, const double *A, int64_t lda, const double *B,
                     int64_t ldb, const double *beta, double *C, int64_t ldc)
{
    int64_t nb = min64(x->nb, n);
    const double alpha2[2] = {alpha[0], herm ? -alpha[1] : alpha[1]};
    char op = herm ? 'C' : 'T', tl = trans == 'N' ? 'N' : op, tr = trans == 'N' ? op : 'N';
#define L3_ROWS(P, ld, i) (trans == 'N' ? LX_AT(x, P, (i), 0, ld) : LX_AT(x, P, 0, (i), ld))
    for (int64_t c = 0; c < n; c += nb) {
        int64_t cb = min64(nb, n - c);
        int64_t r0 = uplo == 'U' ? 0 : c + cb, rn = uplo == 'U' ? c : n - c - cb;
        double *Cr = LX_AT(x, C, r0, c, ldc);
        lx_gemm(x, tl, tr, rn, cb, k, alpha, L3_ROWS(A, lda, r0), lda, L3_ROWS(B, ldb, c), ldb,
                beta, Cr, ldc);
        lx_gemm(x, tl, tr, rn, cb, k, alpha2, L3_ROWS(B, ldb, r0), ldb, L3_ROWS(A, lda, c), lda,
                ONE, Cr, ldc);
        lx_gemm(x, tl, tr, cb, cb, k, alpha, L3_ROWS(A, lda, c), lda, L3_ROWS(B, ldb, c), ldb,
                ZERO, W, cb);
        lx_gemm(x, tl, tr, cb, cb, k, alpha2, L3_ROWS(B, ldb, c), ldb, L3_ROWS(A, lda, c), lda,
                ONE, W, cb);
        for (int64_t j = 0; j < cb; j++) {
            int64_t i0 = uplo == 'U' ? 0 : j, i1 = uplo == 'U' ? j + 1 : cb;
            for (int64_t i = i0; i < i1; i++) {
                double *y = LX_AT(x, C, c + i, c + j, ldc);
                axpby(x, LX_AT(x, W, i, j, cb), beta, y);
                if (herm && i == j)
                    y[1] = 0.0;
            }
        }
    }
#undef L3_ROWS
}

/* symm and hemm */
static ozblas_status symm_body(ozblas_context *ctx, int cplx, int herm, char side, char uplo,
                               int64_t m, int64_t n, const double *alpha, const double *A,
                               int64_t lda, const double *B, int64_t ldb, const double *beta,
                               double *C, int64_t ldc, int64_t *info, int64_t nb,
                               const ozblas_options *opt, ozblas_lapack_report *report)
{
    int op = herm ? OZ_L3_HEMM : OZ_L3_SYMM;
    if ((*info = oz_l3_check(op, cplx, side, uplo, 0, m, n, 0, lda, ldb, ldc)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    side = up(side), uplo = up(uplo);
    int64_t K = side == 'L' ? m : n;
    BEGIN_HOST(cplx, K, oz_l3_flops(op, cplx, side, m, n, 0), LX_IN(A), LX_IN(B), LX_IN(C))
    if (m == 0 || n == 0 || (is_zero(alpha) && is_one(beta)))
        END();
    if (is_zero(alpha)) {
        scale(&x, 'A', 0, m, n, beta, C, ldc);
        END();
    }
    double *S = malloc(sizeof(double) * (size_t)((cplx ? 2 : 1) * K * min64(x.nb, K)));
    if (!S)
        END_WITH(OZBLAS_ERR_ALLOCATION);
    lx_symm(&x, S, herm, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc);
    free(S);
    END();
}

/* syr2k and her2k */
static ozblas_status syr2k_body(ozblas_context *ctx, int cplx, int herm, char uplo, char trans,
                                int64_t n, int64_t k, const double *alpha, const double *A,
                                int64_t lda, const double *B, int64_t ldb, const double *beta,
                                double *C, int64_t ldc, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    int op = herm ? OZ_L3_HER2K : OZ_L3_SYR2K;
    if ((*info = oz_l3_check(op, cplx, 0, uplo, trans, n, n, k, lda, ldb, ldc)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    uplo = up(uplo), trans = up(trans);
    if (trans == 'C' && !cplx)
        trans = 'T'; /* dsyr2k: 'C' is 'T' */
    BEGIN_HOST(cplx, n, oz_l3_flops(op, cplx, 0, n, n, k), LX_IN(A), LX_IN(B), LX_IN(C))
    if (n == 0 || ((is_zero(alpha) || k == 0) && is_one(beta)))
        END();
    if (is_zero(alpha) || k == 0) {
        scale(&x, uplo, herm, n, n, beta, C, ldc);
        END();
    }
    /* x.work holds min(nb, n)^2 elements: the diagonal blocks */
    lx_syr2k(&x, x.work, herm, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    END();
}

ozblas_status ozblas_dsymm(ozblas_context *ctx, char side, char uplo, int64_t m, int64_t n,
                           double alpha, const double *A, int64_t lda, const double *B,
                           int64_t ldb, double beta, double *C, int64_t ldc, int64_t *info,
                           int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report)
{
    const double al[2] = {alpha, 0.0}, be[2] = {beta, 0.0};
    return symm_body(ctx, 0, 0, side, uplo, m, n, al, A, lda, B, ldb, be, C, ldc, info, nb, opt,
                     report);
}
ozblas_status ozblas_zsymm(ozblas_context *ctx, char side, char uplo, int64_t m, int64_t n,
                           const double *alpha, const double *A, int64_t lda, const double *B,
                           int64_t ldb, const double *beta, double *C, int64_t ldc,
                           int64_t *info, int64_t nb, const ozblas_options *opt,
                           ozblas_lapack_report *report)
{
    return symm_body(ctx, 1, 0, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc, info, nb,
                     opt, report);
}
ozblas_status ozblas_zhemm(ozblas_context *ctx, char side, char uplo, int64_t m, int64_t n,
                           const double *alpha, const double *A, int64_t lda, const double *B,
                           int64_t ldb, const double *beta, double *C, int64_t ldc,
                           int64_t *info, int64_t nb, const ozblas_options *opt,
                           ozblas_lapack_report *report)
{
    return symm_body(ctx, 1, 1, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc, info, nb,
                     opt, report);
}
ozblas_status ozblas_dsyr2k(ozblas_context *ctx, char uplo, char trans, int64_t n, int64_t k,
                            double alpha, const double *A, int64_t lda, const double *B,
                            int64_t ldb, double beta, double *C, int64_t ldc, int64_t *info,
                            int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report)
{
    const double al[2] = {alpha, 0.0}, be[2] = {beta, 0.0};
    return syr2k_body(ctx, 0, 0, uplo, trans, n, k, al, A, lda, B, ldb, be, C, ldc, info, nb,
                      opt, report);
}
ozblas_status ozblas_zsyr2k(ozblas_context *ctx, char uplo, char trans, int64_t n, int64_t k,
                            const double *alpha, const double *A, int64_t lda, const double *B,
                            int64_t ldb, const double *beta, double *C, int64_t ldc,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report)
{
    return syr2k_body(ctx, 1, 0, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc, info,
                      nb, opt, report);
}
ozblas_status ozblas_zher2k(ozblas_context *ctx, char uplo, char trans, int64_t n, int64_t k,
                            const double *alpha, const double *A, int64_t lda, const double *B,
                            int64_t ldb, double beta, double *C, int64_t ldc, int64_t *info,
                            int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report)
{
    const double be[2] = {beta, 0.0};
    return syr2k_body(ctx, 1, 1, uplo, trans, n, k, alpha, A, lda, B, ldb, be, C, ldc, info, nb,
                      opt, report);
}
