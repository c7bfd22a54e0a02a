/* The LAPACK layer's public entries (ozblas.h "LAPACK layer"): netlib's argument checks
 * (info = -i), quick returns, the block size, the report; then the drivers. One body per
 * routine, with d and z entries that differ only in the element type. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/oz_internal.h"
#include "oz_lapack.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int64_t ozblas_lapack_block_size(int64_t n, int executor)
{
    int64_t nb = 0;
    if (oz_env_lapack_nb(&nb, NULL, 0) == OZBLAS_OK && nb > 0)
        return nb;
    (void)n;
    /* CPU: an emulated product's fixed costs (splitting both operands) amortize over k, so
       256 keeps the panels' share of the flops near 10% at n = 2048 while each update
       still runs at the executor's rate; a GPU wants k = 1024 for its INT8 units. */
    return executor == OZBLAS_EXECUTOR_CUDA ? 1024 : 256;
}

/* The run: options (defaults when NULL), block size, an emptied report. */
static ozblas_status begin(oz_lx *x, ozblas_context *ctx, int cplx, int64_t n, int64_t nb,
                           int inverse, const ozblas_options *opt, ozblas_options *defaults,
                           ozblas_lapack_report *rep, double flops)
{
    x->work = NULL;
    x->piv32 = NULL;
    if (!opt) {
        ozblas_options_init(defaults);
        opt = defaults;
    }
    memset(rep, 0, sizeof *rep);
    rep->max_bound = -1.0;
    rep->method = OZBLAS_METHOD_NATIVE;
    rep->executor = opt->executor == OZBLAS_EXECUTOR_CUDA ? OZBLAS_EXECUTOR_CUDA : OZBLAS_EXECUTOR_CPU;
    rep->flops = flops;
    x->ctx = ctx;
    x->opt = opt;
    x->cplx = cplx;
    x->nb = nb > 0 ? nb : ozblas_lapack_block_size(n, opt->executor);
    x->rep = rep;
    rep->nb = x->nb;
    rep->seconds = -now();
    if (!oz_real_lapack_ready())
        return OZBLAS_ERR_NO_HOST_BLAS;
    int64_t bn = x->nb < n ? x->nb : n, w = cplx ? 2 : 1;
    x->work = malloc(sizeof(double) * (size_t)(w * (bn * bn + (inverse ? n * bn : 0)) + 1));
    x->piv32 = malloc(sizeof(int32_t) * (size_t)((n > x->nb ? n : x->nb) + 1));
    if (!x->work || !x->piv32) {
        free(x->work);
        free(x->piv32);
        return OZBLAS_ERR_ALLOCATION;
    }
    return OZBLAS_OK;
}

static ozblas_status end(oz_lx *x, ozblas_lapack_report *out)
{
    x->rep->seconds += now();
    free(x->work);
    free(x->piv32);
    if (out)
        *out = *x->rep;
    return OZBLAS_OK;
}

static ozblas_status bad_arg(int64_t *info, int64_t i)
{
    *info = -i;
    return OZBLAS_ERR_INVALID_ARGUMENT;
}

static char up(char c) { return (char)toupper((unsigned char)c); }
static int is_uplo(char c) { return c == 'U' || c == 'L'; }
static int is_trans(char c) { return c == 'N' || c == 'T' || c == 'C'; }
static int is_diag(char c) { return c == 'N' || c == 'U'; }
static int64_t max1(int64_t n) { return n > 1 ? n : 1; }

/* Each entry: checks, then BEGIN (returns early without a host LAPACK), the work, END. */
#define BEGIN_INV(cplx, n, flops, inverse)                                               \
    oz_lx x;                                                                            \
    ozblas_options defaults;                                                            \
    ozblas_lapack_report rep;                                                           \
    ozblas_status st0 = begin(&x, ctx, cplx, n, nb, inverse, opt, &defaults, &rep, flops); \
    if (st0 != OZBLAS_OK) {                                                             \
        if (report)                                                                     \
            *report = rep;                                                              \
        return st0;                                                                     \
    }
#define BEGIN(cplx, n, flops) BEGIN_INV(cplx, n, flops, 0)
#define END() return end(&x, report)

static double getrf_flops(double m, double n)
{
    double k = m < n ? m : n;
    return 2.0 * (m * n * k - (m + n) * k * k / 2.0 + k * k * k / 3.0);
}

double oz_lapack_flops(int op, int cplx, int64_t m, int64_t n, int64_t nrhs)
{
    double dm = (double)m, dn = (double)n, r = (double)nrhs, f = 0.0;
    switch (op) {
    case OZ_LF_GETRF: f = getrf_flops(dm, dn); break;
    case OZ_LF_GETRS: case OZ_LF_POTRS: f = 2.0 * dn * dn * r; break;
    case OZ_LF_GESV: f = getrf_flops(dn, dn) + 2.0 * dn * dn * r; break;
    case OZ_LF_GETRI: f = 4.0 / 3.0 * dn * dn * dn; break;
    case OZ_LF_POTRF: case OZ_LF_TRTRI: f = dn * dn * dn / 3.0; break;
    case OZ_LF_POSV: f = dn * dn * dn / 3.0 + 2.0 * dn * dn * r; break;
    case OZ_LF_POTRI: f = 2.0 / 3.0 * dn * dn * dn; break;
    case OZ_LF_TRTRS: f = dn * dn * r; break;
    case OZ_LF_TRSM: f = dm * dn * r; break;
    }
    return (cplx ? 4.0 : 1.0) * f;
}

static ozblas_status getrf_body(ozblas_context *ctx, int cplx, int64_t m, int64_t n, double *A,
                                int64_t lda, int64_t *ipiv, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    *info = 0;
    if (m < 0)
        return bad_arg(info, 1);
    if (n < 0)
        return bad_arg(info, 2);
    if (lda < max1(m))
        return bad_arg(info, 4);
    BEGIN(cplx, m < n ? m : n, oz_lapack_flops(OZ_LF_GETRF, cplx, m, n, 0))
    lx_getrf(&x, m, n, A, lda, ipiv, info);
    END();
}

static ozblas_status getrs_body(ozblas_context *ctx, int cplx, char trans, int64_t n,
                                int64_t nrhs, const double *A, int64_t lda, const int64_t *ipiv,
                                double *B, int64_t ldb, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    *info = 0;
    trans = up(trans);
    if (!is_trans(trans))
        return bad_arg(info, 1);
    if (n < 0)
        return bad_arg(info, 2);
    if (nrhs < 0)
        return bad_arg(info, 3);
    if (lda < max1(n))
        return bad_arg(info, 5);
    if (ldb < max1(n))
        return bad_arg(info, 8);
    BEGIN(cplx, n, oz_lapack_flops(OZ_LF_GETRS, cplx, n, n, nrhs))
    lx_getrs(&x, trans, n, nrhs, A, lda, ipiv, B, ldb);
    END();
}

static ozblas_status gesv_body(ozblas_context *ctx, int cplx, int64_t n, int64_t nrhs, double *A,
                               int64_t lda, int64_t *ipiv, double *B, int64_t ldb, int64_t *info,
                               int64_t nb, const ozblas_options *opt,
                               ozblas_lapack_report *report)
{
    *info = 0;
    if (n < 0)
        return bad_arg(info, 1);
    if (nrhs < 0)
        return bad_arg(info, 2);
    if (lda < max1(n))
        return bad_arg(info, 4);
    if (ldb < max1(n))
        return bad_arg(info, 7);
    BEGIN(cplx, n, oz_lapack_flops(OZ_LF_GESV, cplx, n, n, nrhs))
    lx_getrf(&x, n, n, A, lda, ipiv, info);
    if (*info == 0)
        lx_getrs(&x, 'N', n, nrhs, A, lda, ipiv, B, ldb);
    END();
}

static ozblas_status getri_body(ozblas_context *ctx, int cplx, int64_t n, double *A, int64_t lda,
                                const int64_t *ipiv, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    *info = 0;
    if (n < 0)
        return bad_arg(info, 1);
    if (lda < max1(n))
        return bad_arg(info, 3);
    BEGIN_INV(cplx, n, oz_lapack_flops(OZ_LF_GETRI, cplx, n, n, 0), 1)
    lx_getri(&x, n, A, lda, ipiv, info);
    END();
}

static ozblas_status potrf_body(ozblas_context *ctx, int cplx, char uplo, int64_t n, double *A,
                                int64_t lda, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    *info = 0;
    uplo = up(uplo);
    if (!is_uplo(uplo))
        return bad_arg(info, 1);
    if (n < 0)
        return bad_arg(info, 2);
    if (lda < max1(n))
        return bad_arg(info, 4);
    BEGIN(cplx, n, oz_lapack_flops(OZ_LF_POTRF, cplx, n, n, 0))
    lx_potrf(&x, uplo, n, A, lda, info);
    END();
}

static ozblas_status potrs_body(ozblas_context *ctx, int cplx, char uplo, int64_t n,
                                int64_t nrhs, const double *A, int64_t lda, double *B,
                                int64_t ldb, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    *info = 0;
    uplo = up(uplo);
    if (!is_uplo(uplo))
        return bad_arg(info, 1);
    if (n < 0)
        return bad_arg(info, 2);
    if (nrhs < 0)
        return bad_arg(info, 3);
    if (lda < max1(n))
        return bad_arg(info, 5);
    if (ldb < max1(n))
        return bad_arg(info, 7);
    BEGIN(cplx, n, oz_lapack_flops(OZ_LF_POTRS, cplx, n, n, nrhs))
    lx_potrs(&x, uplo, n, nrhs, A, lda, B, ldb);
    END();
}

static ozblas_status posv_body(ozblas_context *ctx, int cplx, char uplo, int64_t n, int64_t nrhs,
                               double *A, int64_t lda, double *B, int64_t ldb, int64_t *info,
                               int64_t nb, const ozblas_options *opt,
                               ozblas_lapack_report *report)
{
    *info = 0;
    uplo = up(uplo);
    if (!is_uplo(uplo))
        return bad_arg(info, 1);
    if (n < 0)
        return bad_arg(info, 2);
    if (nrhs < 0)
        return bad_arg(info, 3);
    if (lda < max1(n))
        return bad_arg(info, 5);
    if (ldb < max1(n))
        return bad_arg(info, 7);
    BEGIN(cplx, n, oz_lapack_flops(OZ_LF_POSV, cplx, n, n, nrhs))
    lx_potrf(&x, uplo, n, A, lda, info);
    if (*info == 0)
        lx_potrs(&x, uplo, n, nrhs, A, lda, B, ldb);
    END();
}

static ozblas_status potri_body(ozblas_context *ctx, int cplx, char uplo, int64_t n, double *A,
                                int64_t lda, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    *info = 0;
    uplo = up(uplo);
    if (!is_uplo(uplo))
        return bad_arg(info, 1);
    if (n < 0)
        return bad_arg(info, 2);
    if (lda < max1(n))
        return bad_arg(info, 4);
    BEGIN(cplx, n, oz_lapack_flops(OZ_LF_POTRI, cplx, n, n, 0))
    lx_potri(&x, uplo, n, A, lda, info);
    END();
}

static ozblas_status trtri_body(ozblas_context *ctx, int cplx, char uplo, char diag, int64_t n,
                                double *A, int64_t lda, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    *info = 0;
    uplo = up(uplo);
    diag = up(diag);
    if (!is_uplo(uplo))
        return bad_arg(info, 1);
    if (!is_diag(diag))
        return bad_arg(info, 2);
    if (n < 0)
        return bad_arg(info, 3);
    if (lda < max1(n))
        return bad_arg(info, 5);
    BEGIN(cplx, n, oz_lapack_flops(OZ_LF_TRTRI, cplx, n, n, 0))
    lx_trtri(&x, uplo, diag, n, A, lda, info);
    END();
}

static ozblas_status trtrs_body(ozblas_context *ctx, int cplx, char uplo, char trans, char diag,
                                int64_t n, int64_t nrhs, const double *A, int64_t lda, double *B,
                                int64_t ldb, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    static const double one[2] = {1.0, 0.0};
    *info = 0;
    uplo = up(uplo);
    trans = up(trans);
    diag = up(diag);
    if (!is_uplo(uplo))
        return bad_arg(info, 1);
    if (!is_trans(trans))
        return bad_arg(info, 2);
    if (!is_diag(diag))
        return bad_arg(info, 3);
    if (n < 0)
        return bad_arg(info, 4);
    if (nrhs < 0)
        return bad_arg(info, 5);
    if (lda < max1(n))
        return bad_arg(info, 7);
    if (ldb < max1(n))
        return bad_arg(info, 9);
    BEGIN(cplx, n, oz_lapack_flops(OZ_LF_TRTRS, cplx, n, n, nrhs))
    if (diag == 'N')
        *info = lx_zero_diagonal(&x, n, A, lda);
    if (!*info)
        lx_trsm(&x, 'L', uplo, trans, diag, n, nrhs, one, A, lda, B, ldb);
    END();
}

/* trsm and trmm: xerbla's numbering (side 1, uplo 2, transa 3, diag 4, m 5, n 6, lda 9,
 * ldb 11). */
static ozblas_status tr3_body(ozblas_context *ctx, int cplx, int mult, char side, char uplo,
                              char ta, char diag, int64_t m, int64_t n, const double *alpha,
                              const double *A, int64_t lda, double *B, int64_t ldb,
                              int64_t *info, int64_t nb, const ozblas_options *opt,
                              ozblas_lapack_report *report)
{
    *info = 0;
    side = up(side);
    uplo = up(uplo);
    ta = up(ta);
    diag = up(diag);
    if (side != 'L' && side != 'R')
        return bad_arg(info, 1);
    if (!is_uplo(uplo))
        return bad_arg(info, 2);
    if (!is_trans(ta))
        return bad_arg(info, 3);
    if (!is_diag(diag))
        return bad_arg(info, 4);
    if (m < 0)
        return bad_arg(info, 5);
    if (n < 0)
        return bad_arg(info, 6);
    int64_t K = side == 'L' ? m : n;
    if (lda < max1(K))
        return bad_arg(info, 9);
    if (ldb < max1(m))
        return bad_arg(info, 11);
    BEGIN(cplx, K, oz_lapack_flops(OZ_LF_TRSM, cplx, m, n, K))
    if (m > 0 && n > 0 && alpha[0] == 0.0 && (!cplx || alpha[1] == 0.0)) {
        int w = cplx ? 2 : 1; /* BLAS: alpha = 0 sets B to zero, A not referenced */
        for (int64_t j = 0; j < n; j++)
            memset(B + w * j * ldb, 0, sizeof(double) * (size_t)(w * m));
    } else if (mult)
        lx_trmm(&x, side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb);
    else
        lx_trsm(&x, side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb);
    END();
}

/* ---- the d and z entries --------------------------------------------------------------- */

ozblas_status ozblas_dgetrf(ozblas_context *ctx, int64_t m, int64_t n, double *A, int64_t lda,
                            int64_t *ipiv, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report)
{
    return getrf_body(ctx, 0, m, n, A, lda, ipiv, info, nb, opt, report);
}
ozblas_status ozblas_zgetrf(ozblas_context *ctx, int64_t m, int64_t n, double *A, int64_t lda,
                            int64_t *ipiv, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report)
{
    return getrf_body(ctx, 1, m, n, A, lda, ipiv, info, nb, opt, report);
}
ozblas_status ozblas_dgetrs(ozblas_context *ctx, char trans, int64_t n, int64_t nrhs,
                            const double *A, int64_t lda, const int64_t *ipiv, double *B,
                            int64_t ldb, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report)
{
    return getrs_body(ctx, 0, trans, n, nrhs, A, lda, ipiv, B, ldb, info, nb, opt, report);
}
ozblas_status ozblas_zgetrs(ozblas_context *ctx, char trans, int64_t n, int64_t nrhs,
                            const double *A, int64_t lda, const int64_t *ipiv, double *B,
                            int64_t ldb, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report)
{
    return getrs_body(ctx, 1, trans, n, nrhs, A, lda, ipiv, B, ldb, info, nb, opt, report);
}
ozblas_status ozblas_dgesv(ozblas_context *ctx, int64_t n, int64_t nrhs, double *A, int64_t lda,
                           int64_t *ipiv, double *B, int64_t ldb, int64_t *info, int64_t nb,
                           const ozblas_options *opt, ozblas_lapack_report *report)
{
    return gesv_body(ctx, 0, n, nrhs, A, lda, ipiv, B, ldb, info, nb, opt, report);
}
ozblas_status ozblas_zgesv(ozblas_context *ctx, int64_t n, int64_t nrhs, double *A, int64_t lda,
                           int64_t *ipiv, double *B, int64_t ldb, int64_t *info, int64_t nb,
                           const ozblas_options *opt, ozblas_lapack_report *report)
{
    return gesv_body(ctx, 1, n, nrhs, A, lda, ipiv, B, ldb, info, nb, opt, report);
}
ozblas_status ozblas_dgetri(ozblas_context *ctx, int64_t n, double *A, int64_t lda,
                            const int64_t *ipiv, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report)
{
    return getri_body(ctx, 0, n, A, lda, ipiv, info, nb, opt, report);
}
ozblas_status ozblas_zgetri(ozblas_context *ctx, int64_t n, double *A, int64_t lda,
                            const int64_t *ipiv, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report)
{
    return getri_body(ctx, 1, n, A, lda, ipiv, info, nb, opt, report);
}
ozblas_status ozblas_dpotrf(ozblas_context *ctx, char uplo, int64_t n, double *A, int64_t lda,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report)
{
    return potrf_body(ctx, 0, uplo, n, A, lda, info, nb, opt, report);
}
ozblas_status ozblas_zpotrf(ozblas_context *ctx, char uplo, int64_t n, double *A, int64_t lda,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report)
{
    return potrf_body(ctx, 1, uplo, n, A, lda, info, nb, opt, report);
}
ozblas_status ozblas_dpotrs(ozblas_context *ctx, char uplo, int64_t n, int64_t nrhs,
                            const double *A, int64_t lda, double *B, int64_t ldb, int64_t *info,
                            int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report)
{
    return potrs_body(ctx, 0, uplo, n, nrhs, A, lda, B, ldb, info, nb, opt, report);
}
ozblas_status ozblas_zpotrs(ozblas_context *ctx, char uplo, int64_t n, int64_t nrhs,
                            const double *A, int64_t lda, double *B, int64_t ldb, int64_t *info,
                            int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report)
{
    return potrs_body(ctx, 1, uplo, n, nrhs, A, lda, B, ldb, info, nb, opt, report);
}
ozblas_status ozblas_dposv(ozblas_context *ctx, char uplo, int64_t n, int64_t nrhs, double *A,
                           int64_t lda, double *B, int64_t ldb, int64_t *info, int64_t nb,
                           const ozblas_options *opt, ozblas_lapack_report *report)
{
    return posv_body(ctx, 0, uplo, n, nrhs, A, lda, B, ldb, info, nb, opt, report);
}
ozblas_status ozblas_zposv(ozblas_context *ctx, char uplo, int64_t n, int64_t nrhs, double *A,
                           int64_t lda, double *B, int64_t ldb, int64_t *info, int64_t nb,
                           const ozblas_options *opt, ozblas_lapack_report *report)
{
    return posv_body(ctx, 1, uplo, n, nrhs, A, lda, B, ldb, info, nb, opt, report);
}
ozblas_status ozblas_dpotri(ozblas_context *ctx, char uplo, int64_t n, double *A, int64_t lda,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report)
{
    return potri_body(ctx, 0, uplo, n, A, lda, info, nb, opt, report);
}
ozblas_status ozblas_zpotri(ozblas_context *ctx, char uplo, int64_t n, double *A, int64_t lda,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report)
{
    return potri_body(ctx, 1, uplo, n, A, lda, info, nb, opt, report);
}
ozblas_status ozblas_dtrtri(ozblas_context *ctx, char uplo, char diag, int64_t n, double *A,
                            int64_t lda, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report)
{
    return trtri_body(ctx, 0, uplo, diag, n, A, lda, info, nb, opt, report);
}
ozblas_status ozblas_ztrtri(ozblas_context *ctx, char uplo, char diag, int64_t n, double *A,
                            int64_t lda, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report)
{
    return trtri_body(ctx, 1, uplo, diag, n, A, lda, info, nb, opt, report);
}
ozblas_status ozblas_dtrtrs(ozblas_context *ctx, char uplo, char trans, char diag, int64_t n,
                            int64_t nrhs, const double *A, int64_t lda, double *B, int64_t ldb,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report)
{
    return trtrs_body(ctx, 0, uplo, trans, diag, n, nrhs, A, lda, B, ldb, info, nb, opt, report);
}
ozblas_status ozblas_ztrtrs(ozblas_context *ctx, char uplo, char trans, char diag, int64_t n,
                            int64_t nrhs, const double *A, int64_t lda, double *B, int64_t ldb,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report)
{
    return trtrs_body(ctx, 1, uplo, trans, diag, n, nrhs, A, lda, B, ldb, info, nb, opt, report);
}
ozblas_status ozblas_dtrsm(ozblas_context *ctx, char side, char uplo, char transa, char diag,
                           int64_t m, int64_t n, double alpha, const double *A, int64_t lda,
                           double *B, int64_t ldb, int64_t *info, int64_t nb,
                           const ozblas_options *opt, ozblas_lapack_report *report)
{
    const double al[2] = {alpha, 0.0};
    return tr3_body(ctx, 0, 0, side, uplo, transa, diag, m, n, al, A, lda, B, ldb, info, nb, opt,
                    report);
}
ozblas_status ozblas_ztrsm(ozblas_context *ctx, char side, char uplo, char transa, char diag,
                           int64_t m, int64_t n, const double *alpha, const double *A,
                           int64_t lda, double *B, int64_t ldb, int64_t *info, int64_t nb,
                           const ozblas_options *opt, ozblas_lapack_report *report)
{
    return tr3_body(ctx, 1, 0, side, uplo, transa, diag, m, n, alpha, A, lda, B, ldb, info, nb,
                    opt, report);
}
ozblas_status ozblas_dtrmm(ozblas_context *ctx, char side, char uplo, char transa, char diag,
                           int64_t m, int64_t n, double alpha, const double *A, int64_t lda,
                           double *B, int64_t ldb, int64_t *info, int64_t nb,
                           const ozblas_options *opt, ozblas_lapack_report *report)
{
    const double al[2] = {alpha, 0.0};
    return tr3_body(ctx, 0, 1, side, uplo, transa, diag, m, n, al, A, lda, B, ldb, info, nb, opt,
                    report);
}
ozblas_status ozblas_ztrmm(ozblas_context *ctx, char side, char uplo, char transa, char diag,
                           int64_t m, int64_t n, const double *alpha, const double *A,
                           int64_t lda, double *B, int64_t ldb, int64_t *info, int64_t nb,
                           const ozblas_options *opt, ozblas_lapack_report *report)
{
    return tr3_body(ctx, 1, 1, side, uplo, transa, diag, m, n, alpha, A, lda, B, ldb, info, nb,
                    opt, report);
}
