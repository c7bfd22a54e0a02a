/* The Level-3 BLAS routines that are products: symm, hemm, syr2k, her2k, written once for
 * double and complex double, every flop in ozblas GEMMs, on host or device memory alike
 * (the run of lapack_api.c: host operands on a usable CUDA executor are uploaded once).
 *
 * symm/hemm: the symmetric (Hermitian) operand expanded from its stored triangle one strip
 * of nb columns at a time (a host workspace of K x nb, its entries read through the seam),
 * each strip one GEMM into its rows (side 'L': A(s:s+nb, :) = strip^T or strip^H) or
 * columns ('R') of C.
 * syr2k/her2k: lapack_drivers.c's SYRK code with a second product per block (lx_syr2k).
 * Arguments are checked here (BLAS: the netlib order). */
#include <stdlib.h>
#include <string.h>

#include "../core/oz_internal.h"
#include "oz_lapack.h"

static int64_t max3(int64_t a, int64_t b, int64_t c)
{
    int64_t m = a > b ? a : b;
    return m > c ? m : c;
}
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

/* The symmetric (Hermitian) A of order K expanded into S (K x sb) for its columns s to
 * s + sb: each entry from the stored triangle, read through the seam as the column strip
 * A(:, s:s+sb) (slot 0) and the row strip A(s:s+sb, :) (slot 1); hemm takes the diagonal's
 * imaginary part as zero and conjugates the mirrored entries. */
static void expand(oz_lx *x, double *S, int herm, char uplo, int64_t K, int64_t s, int64_t sb,
                   const double *A, int64_t lda)
{
    int64_t lc, lr;
    const double *Hc = lx_fetch(x, 0, LX_AT(x, A, 0, s, lda), lda, K, sb, &lc, 1);
    const double *Hr = lx_fetch(x, 1, LX_AT(x, A, s, 0, lda), lda, sb, K, &lr, 1);
    if (x->failed)
        return;
    for (int64_t j = 0; j < sb; j++) {
        int64_t c = s + j;
        for (int64_t i = 0; i < K; i++) {
            int stored = uplo == 'U' ? i <= c : i >= c;
            const double *a = stored ? LX_AT(x, Hc, i, j, lc) : LX_AT(x, Hr, j, i, lr);
            double *d = LX_AT(x, S, i, j, K);
            d[0] = a[0];
            if (x->cplx)
                d[1] = herm && i == c ? 0.0 : herm && !stored ? -a[1] : a[1];
        }
    }
}

void lx_symm(oz_lx *x, double *S, int herm, char side, char uplo, int64_t m, int64_t n,
             const double *alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
             const double *beta, double *C, int64_t ldc)
{
    int64_t K = side == 'L' ? m : n, nb = x->nb;
    for (int64_t s = 0; s < K && !x->failed; s += nb) {
        int64_t sb = min64(nb, K - s);
        expand(x, S, herm, uplo, K, s, sb, A, lda);
        if (side == 'L')
            lx_gemm(x, herm ? 'C' : 'T', 'N', sb, n, K, alpha, S, K, B, ldb, beta,
                    LX_AT(x, C, s, 0, ldc), ldc);
        else
            lx_gemm(x, 'N', 'N', m, sb, K, alpha, B, ldb, S, K, beta, LX_AT(x, C, 0, s, ldc),
                    ldc);
    }
}

/* symm and hemm */
static ozblas_status symm_body(ozblas_context *ctx, int cplx, int herm, char side, char uplo,
                               int64_t m, int64_t n, const double *alpha, double *A,
                               int64_t lda, double *B, int64_t ldb, const double *beta,
                               double *C, int64_t ldc, int64_t *info, int64_t nb,
                               const ozblas_options *opt, ozblas_lapack_report *report)
{
    int op = herm ? OZ_L3_HEMM : OZ_L3_SYMM;
    if ((*info = oz_l3_check(op, cplx, side, uplo, 0, m, n, 0, lda, ldb, ldc)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    side = up(side), uplo = up(uplo);
    int64_t K = side == 'L' ? m : n;
    BEGIN_PRODUCTS(cplx, K, oz_l3_flops(op, cplx, side, m, n, 0), max3(m, n, 1),
                   LX_OP(A, lda, K, K, 0), LX_OP(B, ldb, m, n, 0), LX_OP(C, ldc, m, n, 1))
    if (m == 0 || n == 0 || (is_zero(alpha) && is_one(beta)))
        END();
    if (is_zero(alpha)) {
        lx_scale(&x, m, n, beta, C, ldc);
        END();
    }
    double *S = oz_malloc(sizeof(double) * (size_t)((cplx ? 2 : 1) * K * min64(x.nb, K)));
    if (!S)
        END_WITH(OZBLAS_ERR_ALLOCATION);
    lx_symm(&x, S, herm, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc);
    free(S);
    END();
}

/* syr2k and her2k */
static ozblas_status syr2k_body(ozblas_context *ctx, int cplx, int herm, char uplo, char trans,
                                int64_t n, int64_t k, const double *alpha, double *A,
                                int64_t lda, double *B, int64_t ldb, const double *beta,
                                double *C, int64_t ldc, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    int op = herm ? OZ_L3_HER2K : OZ_L3_SYR2K;
    if ((*info = oz_l3_check(op, cplx, 0, uplo, trans, n, n, k, lda, ldb, ldc)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    uplo = up(uplo), trans = up(trans);
    if (trans == 'C' && !cplx)
        trans = 'T'; /* dsyr2k: 'C' is 'T' */
    int64_t rows = trans == 'N' ? n : k, cols = trans == 'N' ? k : n;
    BEGIN_PRODUCTS(cplx, n, oz_l3_flops(op, cplx, 0, n, n, k), max3(n, k, 1),
                   LX_OP(A, lda, rows, cols, 0), LX_OP(B, ldb, rows, cols, 0),
                   LX_OP(C, ldc, n, n, 1))
    if (n == 0 || ((is_zero(alpha) || k == 0) && is_one(beta)))
        END();
    /* x.work holds min(nb, n)^2 elements: the diagonal blocks */
    lx_syr2k(&x, herm, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    END();
}

/* the d and z entries: dsymm's and dsyr2k's real scalars, zher2k's real beta */
#define SYMM_PARAMS(scalar_t)                                                                  \
    (char side, char uplo, int64_t m, int64_t n, scalar_t alpha, const double *A, int64_t lda, \
     const double *B, int64_t ldb, scalar_t beta, double *C, int64_t ldc, int64_t *info)
#define SYMM_ARGS(al, be) side, uplo, m, n, al, (double *)A, lda, (double *)B, ldb, be, C, ldc, info
LX_API(ozblas_dsymm, SYMM_PARAMS(double), symm_body, 0, 0,
       SYMM_ARGS(lx_re(alpha).v, lx_re(beta).v))
LX_API(ozblas_zsymm, SYMM_PARAMS(const double *), symm_body, 1, 0, SYMM_ARGS(alpha, beta))
LX_API(ozblas_zhemm, SYMM_PARAMS(const double *), symm_body, 1, 1, SYMM_ARGS(alpha, beta))
#define R2K_PARAMS(alpha_t, beta_t)                                                            \
    (char uplo, char trans, int64_t n, int64_t k, alpha_t alpha, const double *A, int64_t lda,  \
     const double *B, int64_t ldb, beta_t beta, double *C, int64_t ldc, int64_t *info)
#define R2K_ARGS(al, be) uplo, trans, n, k, al, (double *)A, lda, (double *)B, ldb, be, C, ldc, info
LX_API(ozblas_dsyr2k, R2K_PARAMS(double, double), syr2k_body, 0, 0,
       R2K_ARGS(lx_re(alpha).v, lx_re(beta).v))
LX_API(ozblas_zsyr2k, R2K_PARAMS(const double *, const double *), syr2k_body, 1, 0,
       R2K_ARGS(alpha, beta))
LX_API(ozblas_zher2k, R2K_PARAMS(const double *, double), syr2k_body, 1, 1,
       R2K_ARGS(alpha, lx_re(beta).v))
