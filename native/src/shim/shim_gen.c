/* The preload shim's entries for the generalized symmetric-definite problem's reduction
 * (dsygst, zhegst) and the triangular Sylvester equation (dtrsyl, ztrsyl), in the LAPACK
 * forms of OZ_SHIM_LAPACK_VARIANTS (shim_names.h: OZ_SHIM_GEN_ROUTINES). SciPy's
 * eigh(a, b) reaches sygst through the real sygv/sygvd; solve_sylvester and
 * solve_continuous_lyapunov call trsyl after their Schur decompositions.
 *
 * shim_lapack.c's rules (shim_lapack.h): netlib's argument check (an error goes to the real
 * routine and its xerbla), the quick return to the real routine, the routing decision
 * (sygst: an n x n x n product; trsyl: m x n x max(m, n)), an order within one block to the
 * real routine (sygst: n; trsyl: max(m, n), where the driver would be one host call), a
 * non-finite element of what the routine reads to the real routine (sygst: the triangles
 * uplo of A and B; trsyl: the quasi-triangles of A and B, their first subdiagonal for d,
 * and all of C), then the driver of src/lapack/. */
#define _GNU_SOURCE
#include <stdio.h>

#include "../core/oz_internal.h"
#include "shim_lapack.h"

static int h_sygst(lap_call *L, int cplx, int64_t itype, char uplo, int64_t n, double *A,
                   int64_t lda, const double *B, int64_t ldb, int64_t *info)
{
    int bad = oz_sygst_check(itype, uplo, n, lda, ldb) != 0;
    int go = lap_begin(L, cplx, n, n, n, n, bad ? 0.0 : oz_sygst_flops(cplx, n), bad, n == 0);
    snprintf(L->dims, sizeof L->dims, "n=%lld itype=%lld", (long long)n, (long long)itype);
    if (!go || !lap_finite(L, cplx, uplo, n, n, A, lda) ||
        !lap_finite(L, cplx, uplo, n, n, B, ldb))
        return 0;
    return LAP_RUN((cplx ? ozblas_zhegst : ozblas_dsygst)(shim_context(), itype, uplo, n, A, lda,
                                                           B, ldb, info, 0, LAP_OPT));
}

/* The upper triangle of T (order k) and, real, its first subdiagonal (2x2 blocks). */
static int quasi_finite(lap_call *L, int cplx, int64_t k, const double *T, int64_t ld)
{
    return lap_finite(L, cplx, 'U', k, k, T, ld) &&
           (cplx || k < 2 || lap_finite(L, cplx, 'A', 1, k - 1, T + 1, ld + 1));
}

static int h_trsyl(lap_call *L, int cplx, char ta, char tb, int64_t isgn, int64_t m, int64_t n,
                   const double *A, int64_t lda, const double *B, int64_t ldb, double *C,
                   int64_t ldc, double *scale, int64_t *info)
{
    int bad = oz_trsyl_check(cplx, ta, tb, isgn, m, n, lda, ldb, ldc) != 0;
    int64_t big = m > n ? m : n;
    int go = lap_begin(L, cplx, m, n, big, big, bad ? 0.0 : oz_trsyl_flops(cplx, m, n), bad,
                       m == 0 || n == 0);
    snprintf(L->dims, sizeof L->dims, "m=%lld n=%lld isgn=%lld", (long long)m, (long long)n,
             (long long)isgn);
    if (!go || !quasi_finite(L, cplx, m, A, lda) || !quasi_finite(L, cplx, n, B, ldb) ||
        !lap_finite(L, cplx, 'A', m, n, C, ldc))
        return 0;
    return LAP_RUN((cplx ? ozblas_ztrsyl : ozblas_dtrsyl)(shim_context(), ta, tb, isgn, m, n, A,
                                                           lda, B, ldb, C, ldc, scale, info, 0,
                                                           LAP_OPT));
}

#define G_SYGST(rtn, sym, api, T)                                                             \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (const T *itype, CH uplo, const T *n, double *A, const T *lda, const double *B,  \
               const T *ldb, T *info, SZ l1),                                                \
              (const T *, CH, const T *, double *, const T *, const double *, const T *, T *, \
               SZ),                                                                          \
              h_sygst(&L, C, *itype, up(*uplo), *n, A, *lda, B, *ldb, &inf),                 \
              (itype, uplo, n, A, lda, B, ldb, info, l1))
#define G_TRSYL(rtn, sym, api, T)                                                             \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (CH ta, CH tb, const T *isgn, const T *m, const T *n, const double *A,          \
               const T *lda, const double *B, const T *ldb, double *Cm, const T *ldc,         \
               double *scale, T *info, SZ l1, SZ l2),                                        \
              (CH, CH, const T *, const T *, const T *, const double *, const T *,            \
               const double *, const T *, double *, const T *, double *, T *, SZ, SZ),        \
              h_trsyl(&L, C, up(*ta), up(*tb), *isgn, *m, *n, A, *lda, B, *ldb, Cm, *ldc,     \
                      scale, &inf),                                                          \
              (ta, tb, isgn, m, n, A, lda, B, ldb, Cm, ldc, scale, info, l1, l2))

#define G_DEFINE_ROUTINE(rtn, e, shape) OZ_SHIM_LAPACK_VARIANTS(G_##shape, rtn)
OZ_SHIM_GEN_ROUTINES(G_DEFINE_ROUTINE)
