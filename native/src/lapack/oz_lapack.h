/* The LAPACK layer's internals: one set of blocked drivers for double and complex double
 * (the element type is a field of the run, as BLIS instantiates one definition per type),
 * the host LAPACK routines the panels and diagonal blocks go to, and the products.
 *
 * Every driver works on the caller's pointers and issues its O(n^3) part as
 * ozblas_dgemm/ozblas_zgemm calls through lx_gemm, which counts them into the report;
 * nothing here assumes host memory except the real routines' panels (a device version
 * would move panels there and back, the MAGMA way). */
#ifndef OZ_LAPACK_H
#define OZ_LAPACK_H

#include <stdint.h>

#include "ozblas.h"

/* One driver run. */
typedef struct {
    ozblas_context *ctx;
    const ozblas_options *opt;
    int cplx;   /* 0: double, 1: complex double (two doubles per element) */
    int64_t nb; /* block size */
    ozblas_lapack_report *rep;
    double *work;     /* workspace, allocated before anything is changed: nb x nb elements
                         (SYRK/HERK diagonal blocks), n x nb more for getri */
    int32_t *piv32;   /* LP64 host LAPACK: pivots as int32_t, max(n, nb) of them */
} oz_lx;

/* Element (i, j) of a column-major matrix with leading dimension ld. */
#define LX_AT(x, A, i, j, ld) ((A) + ((x)->cplx ? 2 : 1) * ((i) + (int64_t)(j) * (ld)))

/* The host LAPACK's routines (lapack_real.c): 1 when a complete set is loaded. */
int oz_real_lapack_ready(void);
void lx_real_getrf(const oz_lx *x, int64_t m, int64_t n, double *A, int64_t lda, int64_t *ipiv,
                   int64_t *info);
void lx_real_laswp(const oz_lx *x, int64_t n, double *A, int64_t lda, int64_t k1, int64_t k2,
                   const int64_t *ipiv, int64_t incx);
void lx_real_potrf(const oz_lx *x, char uplo, int64_t n, double *A, int64_t lda, int64_t *info);
void lx_real_trtri(const oz_lx *x, char uplo, char diag, int64_t n, double *A, int64_t lda,
                   int64_t *info);
void lx_real_lauum(const oz_lx *x, char uplo, int64_t n, double *A, int64_t lda, int64_t *info);
void lx_real_trsm(const oz_lx *x, char side, char uplo, char ta, char diag, int64_t m, int64_t n,
                  const double *alpha, const double *A, int64_t lda, double *B, int64_t ldb);
void lx_real_trmm(const oz_lx *x, char side, char uplo, char ta, char diag, int64_t m, int64_t n,
                  const double *alpha, const double *A, int64_t lda, double *B, int64_t ldb);

/* The drivers (lapack_drivers.c). Arguments are checked by the callers. */
void lx_gemm(oz_lx *x, char ta, char tb, int64_t m, int64_t n, int64_t k, const double *alpha,
             const double *A, int64_t lda, const double *B, int64_t ldb, const double *beta,
             double *C, int64_t ldc);
void lx_trsm(oz_lx *x, char side, char uplo, char ta, char diag, int64_t m, int64_t n,
             const double *alpha, const double *A, int64_t lda, double *B, int64_t ldb);
void lx_trmm(oz_lx *x, char side, char uplo, char ta, char diag, int64_t m, int64_t n,
             const double *alpha, const double *A, int64_t lda, double *B, int64_t ldb);
void lx_getrf(oz_lx *x, int64_t m, int64_t n, double *A, int64_t lda, int64_t *ipiv,
              int64_t *info);
void lx_getrs(oz_lx *x, char trans, int64_t n, int64_t nrhs, const double *A, int64_t lda,
              const int64_t *ipiv, double *B, int64_t ldb);
void lx_potrf(oz_lx *x, char uplo, int64_t n, double *A, int64_t lda, int64_t *info);
void lx_potrs(oz_lx *x, char uplo, int64_t n, int64_t nrhs, const double *A, int64_t lda,
              double *B, int64_t ldb);
void lx_trtri(oz_lx *x, char uplo, char diag, int64_t n, double *A, int64_t lda, int64_t *info);
/* 0, or the 1-based index of the first exact zero on the diagonal. */
int64_t lx_zero_diagonal(const oz_lx *x, int64_t n, const double *A, int64_t lda);
void lx_getri(oz_lx *x, int64_t n, double *A, int64_t lda, const int64_t *ipiv, int64_t *info);
void lx_potri(oz_lx *x, char uplo, int64_t n, double *A, int64_t lda, int64_t *info);

/* The run of a public entry (lapack_api.c): options (defaults when NULL), block size (nb
 * 0: the size rule for n), an emptied report with the nominal flops, the workspace of the
 * SYRK/HERK blocks (and n x nb more with inverse); OZBLAS_ERR_NO_HOST_BLAS without a host
 * LAPACK, OZBLAS_ERR_ALLOCATION. lx_end: the time, the workspace freed, the report out. */
ozblas_status lx_begin(oz_lx *x, ozblas_context *ctx, int cplx, int64_t n, int64_t nb,
                       int inverse, const ozblas_options *opt, ozblas_options *defaults,
                       ozblas_lapack_report *rep, double flops);
ozblas_status lx_end(oz_lx *x, ozblas_lapack_report *out);

/* Each entry (arguments ctx, nb, opt, report): checks, then BEGIN (returns early without
 * a host LAPACK), the work, END. */
#define BEGIN_INV(cplx, n, flops, inverse)                                                  \
    oz_lx x;                                                                               \
    ozblas_options defaults;                                                               \
    ozblas_lapack_report rep;                                                              \
    ozblas_status st0 = lx_begin(&x, ctx, cplx, n, nb, inverse, opt, &defaults, &rep, flops); \
    if (st0 != OZBLAS_OK) {                                                                \
        if (report)                                                                        \
            *report = rep;                                                                 \
        return st0;                                                                        \
    }
#define BEGIN(cplx, n, flops) BEGIN_INV(cplx, n, flops, 0)
#define END() return lx_end(&x, report)

/* Other routines of the host LAPACK's family (lapack_real.c), and whether it is ILP64. */
void *lx_real_fn(int cplx, const char *routine);
int lx_real_ilp64(void);

#endif
