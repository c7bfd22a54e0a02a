/* The generalized symmetric-definite eigenproblem's reduction to standard form (LAPACK's
 * dsygst, zhegst), written once for real symmetric and complex Hermitian.
 *
 * With B = U^H U or L L^H (potrf's factor, in the triangle uplo of B), A becomes
 * inv(U^H) A inv(U) or inv(L) A inv(L^H) (itype 1: A x = lambda B x) or U A U^H or L^H A L
 * (itype 2, 3: A B x = lambda x, B A x = lambda x), only the triangle uplo of A referenced.
 * LAPACK's blocked algorithm, step for step: the diagonal block by the host sygst/hegst (its
 * own unblocked code at that size), the block row or column beside it by TRSM (itype 1) or
 * TRMM (2, 3) with the small diagonal block of B, twice SYMM/HEMM with the diagonal block of
 * A (-1/2 and +1/2 of it: what makes the update symmetric), the trailing (itype 1) or leading
 * (2, 3) triangle by SYR2K/HER2K, and the TRSM/TRMM with the large triangle of B. Every one of
 * them is the layer's blocked routine, so all but the diagonal blocks are ozblas products (the
 * small-triangle TRSM/TRMM blocked again with nb/4). LAPACK's n^3 flops plus the two SYMMs'
 * 2 n^2 nb, which are products too.
 *
 * Device memory (lapack_seam.c): the diagonal blocks go to the host sygst on host copies;
 * everything else already runs on the seam. lx_sygst is what a driver composes (sygvd:
 * potrf, sygst, the eigensolver, a TRSM) inside one run. */
#include <stdlib.h>

#include "../core/oz_internal.h"
#include "oz_lapack.h"

static const double HALF[2] = {0.5, 0.0}, MHALF[2] = {-0.5, 0.0};

/* The host sygst on the diagonal block (order n, at most nb): host copies of both blocks in
 * a device run, A's copied back. */
static void blk_sygst(oz_lx *x, int64_t itype, char uplo, int64_t n, double *A, int64_t lda,
                      const double *B, int64_t ldb)
{
    int64_t la, lb;
    double *HA = lx_fetch(x, 0, A, lda, n, n, &la, 1);
    double *HB = lx_fetch(x, 1, B, ldb, n, n, &lb, 1);
    if (x->failed || n <= 0)
        return;
    LX_F77(I t4 = (I)itype, n4 = (I)n, la4 = (I)la, lb4 = (I)lb, i4 = 0;
           LX_HOST(x->cplx, sygst)(&t4, &uplo, &n4, HA, &la4, HB, &lb4, &i4, 1););
    lx_store(x, HA, la, A, lda, n, n);
}

ozblas_status lx_sygst(oz_lx *x, int itype, char uplo, int64_t n, double *A, int64_t lda,
                       const double *B, int64_t ldb)
{
    if (!lx_host_fn(x->cplx, LXH_sygst))
        return OZBLAS_ERR_NO_HOST_BLAS;
    if (n <= 0)
        return OZBLAS_OK;
    int64_t nb = x->nb;
    if (n <= nb) {
        blk_sygst(x, itype, uplo, n, A, lda, B, ldb);
        return OZBLAS_OK;
    }
    int herm = x->cplx;
    char ct = x->cplx ? 'C' : 'T';
    double *S = oz_malloc(sizeof(double) * (size_t)((x->cplx ? 2 : 1) * nb * nb)); /* hemm's */
    if (!S)
        return OZBLAS_ERR_ALLOCATION;
#define AT(M, i, j, ld) LX_AT(x, M, i, j, ld)
    for (int64_t k = 0; k < n && !x->failed; k += nb) {
        int64_t kb = min64(nb, n - k), r = n - k - kb;
        double *Akk = AT(A, k, k, lda);
        const double *Bkk = AT(B, k, k, ldb);
        if (itype == 1) {
            blk_sygst(x, itype, uplo, kb, Akk, lda, Bkk, ldb);
            if (!r)
                break;
            const double *B22 = AT(B, k + kb, k + kb, ldb);
            if (uplo == 'U') { /* inv(U^H) A inv(U): the block row A12 */
                double *A12 = AT(A, k, k + kb, lda);
                const double *B12 = AT(B, k, k + kb, ldb);
                lx_tr3_panel(x, 0, 'L', 'U', ct, 'N', kb, r, Bkk, ldb, A12, lda);
                lx_symm(x, S, herm, 'L', 'U', kb, r, MHALF, Akk, lda, B12, ldb, ONE, A12, lda);
                lx_syr2k(x, herm, 'U', 'T', r, kb, MONE, A12, lda, B12, ldb, ONE,
                         AT(A, k + kb, k + kb, lda), lda);
                lx_symm(x, S, herm, 'L', 'U', kb, r, MHALF, Akk, lda, B12, ldb, ONE, A12, lda);
                lx_trsm(x, 'R', 'U', 'N', 'N', kb, r, ONE, B22, ldb, A12, lda);
            } else { /* inv(L) A inv(L^H): the block column A21 */
                double *A21 = AT(A, k + kb, k, lda);
                const double *B21 = AT(B, k + kb, k, ldb);
                lx_tr3_panel(x, 0, 'R', 'L', ct, 'N', r, kb, Bkk, ldb, A21, lda);
                lx_symm(x, S, herm, 'R', 'L', r, kb, MHALF, Akk, lda, B21, ldb, ONE, A21, lda);
                lx_syr2k(x, herm, 'L', 'N', r, kb, MONE, A21, lda, B21, ldb, ONE,
                         AT(A, k + kb, k + kb, lda), lda);
                lx_symm(x, S, herm, 'R', 'L', r, kb, MHALF, Akk, lda, B21, ldb, ONE, A21, lda);
                lx_trsm(x, 'L', 'L', 'N', 'N', r, kb, ONE, B22, ldb, A21, lda);
            }
        } else {
            if (k && uplo == 'U') { /* U A U^H: the block column A(0:k, k:k+kb) */
                double *A01 = AT(A, 0, k, lda);
                const double *B01 = AT(B, 0, k, ldb);
                lx_trmm(x, 'L', 'U', 'N', 'N', k, kb, ONE, B, ldb, A01, lda);
                lx_symm(x, S, herm, 'R', 'U', k, kb, HALF, Akk, lda, B01, ldb, ONE, A01, lda);
                lx_syr2k(x, herm, 'U', 'N', k, kb, ONE, A01, lda, B01, ldb, ONE, A, lda);
                lx_symm(x, S, herm, 'R', 'U', k, kb, HALF, Akk, lda, B01, ldb, ONE, A01, lda);
                lx_tr3_panel(x, 1, 'R', 'U', ct, 'N', k, kb, Bkk, ldb, A01, lda);
            } else if (k) { /* L^H A L: the block row A(k:k+kb, 0:k) */
                double *A10 = AT(A, k, 0, lda);
                const double *B10 = AT(B, k, 0, ldb);
                lx_trmm(x, 'R', 'L', 'N', 'N', kb, k, ONE, B, ldb, A10, lda);
                lx_symm(x, S, herm, 'L', 'L', kb, k, HALF, Akk, lda, B10, ldb, ONE, A10, lda);
                lx_syr2k(x, herm, 'L', 'T', k, kb, ONE, A10, lda, B10, ldb, ONE, A, lda);
                lx_symm(x, S, herm, 'L', 'L', kb, k, HALF, Akk, lda, B10, ldb, ONE, A10, lda);
                lx_tr3_panel(x, 1, 'L', 'L', ct, 'N', kb, k, Bkk, ldb, A10, lda);
            }
            blk_sygst(x, itype, uplo, kb, Akk, lda, Bkk, ldb);
        }
    }
#undef AT
    free(S);
    return OZBLAS_OK;
}

int64_t oz_sygst_check(int64_t itype, char uplo, int64_t n, int64_t lda, int64_t ldb)
{
    uplo = up(uplo);
    return itype < 1 || itype > 3 ? -1 : uplo != 'U' && uplo != 'L' ? -2 : n < 0 ? -3
         : lda < max1(n) ? -5 : ldb < max1(n) ? -7 : 0;
}

double oz_sygst_flops(int cplx, int64_t n)
{
    return (cplx ? 4.0 : 1.0) * (double)n * (double)n * (double)n;
}

static ozblas_status sygst_body(ozblas_context *ctx, int cplx, int64_t itype, char uplo,
                                int64_t n, double *A, int64_t lda, double *B, int64_t ldb,
                                int64_t *info, int64_t nb, const ozblas_options *opt,
                                ozblas_lapack_report *report)
{
    if ((*info = oz_sygst_check(itype, uplo, n, lda, ldb)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    BEGIN(cplx, n, oz_sygst_flops(cplx, n), max1(n), LX_OP(A, lda, n, n, 1),
          LX_OP(B, ldb, n, n, 0))
    END_WITH(lx_sygst(&x, (int)itype, up(uplo), n, A, lda, B, ldb));
}

LX_DZ(sygst, hegst,
      (int64_t itype, char uplo, int64_t n, double *A, int64_t lda, const double *B, int64_t ldb,
       int64_t *info),
      sygst_body, itype, uplo, n, A, lda, (double *)B, ldb, info)
