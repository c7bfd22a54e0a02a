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
ozblas_status lx_begin(oz_lx *x, ozblas_context *ctx, int cplx, int64_t n, int64_t nb,
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

ozblas_status lx_end(oz_lx *x, ozblas_lapack_report *out)
{
    x->rep->seconds += now();
    free(x->work);
    free(x->piv32);
    if (out)
        *out = *x->rep;
    return OZBLAS_OK;
}

static char up(char c) { return (char)toupper((unsigned char)c); }
static int64_t max1(int64_t n) { return n > 1 ? n : 1; }

/* netlib's argument checks, in each routine's order: the kind of check and the argument's
 * position (xerbla's number). Kinds: s side, u uplo, t trans, d diag, m m >= 0, n n >= 0,
 * r nrhs >= 0, a lda >= max(1, rows of A), b ldb >= max(1, rows of B), w lwork. */
static const struct {
    const char *kind;
    signed char pos[8];
} checks[] = {
    [OZ_LF_GETRF] = {"mna", {1, 2, 4}},
    [OZ_LF_GETRS] = {"tnrab", {1, 2, 3, 5, 8}},
    [OZ_LF_GESV] = {"nrab", {1, 2, 4, 7}},
    [OZ_LF_GETRI] = {"naw", {1, 3, 6}},
    [OZ_LF_POTRF] = {"una", {1, 2, 4}},
    [OZ_LF_POTRI] = {"una", {1, 2, 4}},
    [OZ_LF_POTRS] = {"unrab", {1, 2, 3, 5, 7}},
    [OZ_LF_POSV] = {"unrab", {1, 2, 3, 5, 7}},
    [OZ_LF_TRTRI] = {"udna", {1, 2, 3, 5}},
    [OZ_LF_TRTRS] = {"utdnrab", {1, 2, 3, 4, 5, 7, 9}},
    [OZ_LF_TRSM] = {"sutdmnab", {1, 2, 3, 4, 5, 6, 9, 11}},
};

int64_t oz_lapack_check(const oz_lapack_args *g)
{
    char side = up(g->side), uplo = up(g->uplo), trans = up(g->trans), diag = up(g->diag);
    int64_t rows_a = g->op == OZ_LF_GETRF ? g->m : g->op == OZ_LF_TRSM ? (side == 'L' ? g->m : g->n) : g->n;
    int64_t rows_b = g->op == OZ_LF_TRSM ? g->m : g->n;
    for (int i = 0; checks[g->op].kind[i]; i++) {
        int ok = 1;
        switch (checks[g->op].kind[i]) {
        case 's': ok = side == 'L' || side == 'R'; break;
        case 'u': ok = uplo == 'U' || uplo == 'L'; break;
        case 't': ok = trans == 'N' || trans == 'T' || trans == 'C'; break;
        case 'd': ok = diag == 'N' || diag == 'U'; break;
        case 'm': ok = g->m >= 0; break;
        case 'n': ok = g->n >= 0; break;
        case 'r': ok = g->nrhs >= 0; break;
        case 'a': ok = g->lda >= max1(rows_a); break;
        case 'b': ok = g->ldb >= max1(rows_b); break;
        case 'w': ok = g->lwork >= max1(g->n) || g->lwork == -1; break;
        }
        if (!ok)
            return -checks[g->op].pos[i];
    }
    return 0;
}

/* The check of an entry of this file: info = -i and OZBLAS_ERR_INVALID_ARGUMENT, or 0. */
#define CHECK(...)                                                    \
    do {                                                              \
        oz_lapack_args g_ = {__VA_ARGS__};                            \
        *info = oz_lapack_check(&g_);                                 \
        if (*info)                                                    \
            return OZBLAS_ERR_INVALID_ARGUMENT;                       \
    } while (0)


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
    CHECK(.op = OZ_LF_GETRF, .m = m, .n = n, .lda = lda);
    BEGIN(cplx, m < n ? m : n, oz_lapack_flops(OZ_LF_GETRF, cplx, m, n, 0))
    lx_getrf(&x, m, n, A, lda, ipiv, info);
    END();
}

static ozblas_status getrs_body(ozblas_context *ctx, int cplx, char trans, int64_t n,
                                int64_t nrhs, const double *A, int64_t lda, const int64_t *ipiv,
                                double *B, int64_t ldb, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    CHECK(.op = OZ_LF_GETRS, .trans = trans, .n = n, .nrhs = nrhs, .lda = lda, .ldb = ldb);
    BEGIN(cplx, n, oz_lapack_flops(OZ_LF_GETRS, cplx, n, n, nrhs))
    lx_getrs(&x, up(trans), n, nrhs, A, lda, ipiv, B, ldb);
    END();
}

static ozblas_status gesv_body(ozblas_context *ctx, int cplx, int64_t n, int64_t nrhs, double *A,
                               int64_t lda, int64_t *ipiv, double *B, int64_t ldb, int64_t *info,
                               int64_t nb, const ozblas_options *opt,
                               ozblas_lapack_report *report)
{
    CHECK(.op = OZ_LF_GESV, .n = n, .nrhs = nrhs, .lda = lda, .ldb = ldb);
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
    CHECK(.op = OZ_LF_GETRI, .n = n, .lda = lda, .lwork = max1(n)); /* workspace is ours */
    BEGIN_INV(cplx, n, oz_lapack_flops(OZ_LF_GETRI, cplx, n, n, 0), 1)
    lx_getri(&x, n, A, lda, ipiv, info);
    END();
}

/* potrf and potri */
static ozblas_status potrf_body(ozblas_context *ctx, int cplx, int op, char uplo, int64_t n,
                                double *A, int64_t lda, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    CHECK(.op = op, .uplo = uplo, .n = n, .lda = lda);
    BEGIN(cplx, n, oz_lapack_flops(op, cplx, n, n, 0))
    if (op == OZ_LF_POTRF)
        lx_potrf(&x, up(uplo), n, A, lda, info);
    else
        lx_potri(&x, up(uplo), n, A, lda, info);
    END();
}

/* potrs and posv */
static ozblas_status potrs_body(ozblas_context *ctx, int cplx, int op, char uplo, int64_t n,
                                int64_t nrhs, double *A, int64_t lda, double *B, int64_t ldb,
                                int64_t *info, int64_t nb, const ozblas_options *opt,
                                ozblas_lapack_report *report)
{
    CHECK(.op = op, .uplo = uplo, .n = n, .nrhs = nrhs, .lda = lda, .ldb = ldb);
    BEGIN(cplx, n, oz_lapack_flops(op, cplx, n, n, nrhs))
    uplo = up(uplo);
    if (op == OZ_LF_POSV)
        lx_potrf(&x, uplo, n, A, lda, info);
    if (*info == 0)
        lx_potrs(&x, uplo, n, nrhs, A, lda, B, ldb);
    END();
}

static ozblas_status trtri_body(ozblas_context *ctx, int cplx, char uplo, char diag, int64_t n,
                                double *A, int64_t lda, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    CHECK(.op = OZ_LF_TRTRI, .uplo = uplo, .diag = diag, .n = n, .lda = lda);
    BEGIN(cplx, n, oz_lapack_flops(OZ_LF_TRTRI, cplx, n, n, 0))
    lx_trtri(&x, up(uplo), up(diag), n, A, lda, info);
    END();
}

static ozblas_status trtrs_body(ozblas_context *ctx, int cplx, char uplo, char trans, char diag,
                                int64_t n, int64_t nrhs, const double *A, int64_t lda, double *B,
                                int64_t ldb, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    static const double one[2] = {1.0, 0.0};
    CHECK(.op = OZ_LF_TRTRS, .uplo = uplo, .trans = trans, .diag = diag, .n = n, .nrhs = nrhs,
          .lda = lda, .ldb = ldb);
    BEGIN(cplx, n, oz_lapack_flops(OZ_LF_TRTRS, cplx, n, n, nrhs))
    if (up(diag) == 'N')
        *info = lx_zero_diagonal(&x, n, A, lda);
    if (!*info)
        lx_trsm(&x, 'L', up(uplo), up(trans), up(diag), n, nrhs, one, A, lda, B, ldb);
    END();
}

/* trsm and trmm */
static ozblas_status tr3_body(ozblas_context *ctx, int cplx, int mult, char side, char uplo,
                              char ta, char diag, int64_t m, int64_t n, const double *alpha,
                              const double *A, int64_t lda, double *B, int64_t ldb,
                              int64_t *info, int64_t nb, const ozblas_options *opt,
                              ozblas_lapack_report *report)
{
    CHECK(.op = OZ_LF_TRSM, .side = side, .uplo = uplo, .trans = ta, .diag = diag, .m = m,
          .n = n, .lda = lda, .ldb = ldb);
    side = up(side);
    int64_t K = side == 'L' ? m : n;
    BEGIN(cplx, K, oz_lapack_flops(OZ_LF_TRSM, cplx, m, n, K))
    if (m > 0 && n > 0 && alpha[0] == 0.0 && (!cplx || alpha[1] == 0.0)) {
        int w = cplx ? 2 : 1; /* BLAS: alpha = 0 sets B to zero, A not referenced */
        for (int64_t j = 0; j < n; j++)
            memset(B + w * j * ldb, 0, sizeof(double) * (size_t)(w * m));
    } else if (mult)
        lx_trmm(&x, side, up(uplo), up(ta), up(diag), m, n, alpha, A, lda, B, ldb);
    else
        lx_trsm(&x, side, up(uplo), up(ta), up(diag), m, n, alpha, A, lda, B, ldb);
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
    return potrf_body(ctx, 0, OZ_LF_POTRF, uplo, n, A, lda, info, nb, opt, report);
}
ozblas_status ozblas_zpotrf(ozblas_context *ctx, char uplo, int64_t n, double *A, int64_t lda,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report)
{
    return potrf_body(ctx, 1, OZ_LF_POTRF, uplo, n, A, lda, info, nb, opt, report);
}
ozblas_status ozblas_dpotrs(ozblas_context *ctx, char uplo, int64_t n, int64_t nrhs,
                            const double *A, int64_t lda, double *B, int64_t ldb, int64_t *info,
                            int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report)
{
    return potrs_body(ctx, 0, OZ_LF_POTRS, uplo, n, nrhs, (double *)A, lda, B, ldb, info, nb, opt,
                      report);
}
ozblas_status ozblas_zpotrs(ozblas_context *ctx, char uplo, int64_t n, int64_t nrhs,
                            const double *A, int64_t lda, double *B, int64_t ldb, int64_t *info,
                            int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report)
{
    return potrs_body(ctx, 1, OZ_LF_POTRS, uplo, n, nrhs, (double *)A, lda, B, ldb, info, nb, opt,
                      report);
}
ozblas_status ozblas_dposv(ozblas_context *ctx, char uplo, int64_t n, int64_t nrhs, double *A,
                           int64_t lda, double *B, int64_t ldb, int64_t *info, int64_t nb,
                           const ozblas_options *opt, ozblas_lapack_report *report)
{
    return potrs_body(ctx, 0, OZ_LF_POSV, uplo, n, nrhs, A, lda, B, ldb, info, nb, opt, report);
}
ozblas_status ozblas_zposv(ozblas_context *ctx, char uplo, int64_t n, int64_t nrhs, double *A,
                           int64_t lda, double *B, int64_t ldb, int64_t *info, int64_t nb,
                           const ozblas_options *opt, ozblas_lapack_report *report)
{
    return potrs_body(ctx, 1, OZ_LF_POSV, uplo, n, nrhs, A, lda, B, ldb, info, nb, opt, report);
}
ozblas_status ozblas_dpotri(ozblas_context *ctx, char uplo, int64_t n, double *A, int64_t lda,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report)
{
    return potrf_body(ctx, 0, OZ_LF_POTRI, uplo, n, A, lda, info, nb, opt, report);
}
ozblas_status ozblas_zpotri(ozblas_context *ctx, char uplo, int64_t n, double *A, int64_t lda,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report)
{
    return potrf_body(ctx, 1, OZ_LF_POTRI, uplo, n, A, lda, info, nb, opt, report);
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
