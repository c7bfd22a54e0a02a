/* The LAPACK layer's public entries (ozblas.h "LAPACK layer"): netlib's argument checks
 * (info = -i), quick returns, the block size, the report; then the drivers. One body per
 * routine, with d and z entries that differ only in the element type. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../core/oz_internal.h"
#include "oz_lapack.h"

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

/* The executor a run plans for (its block size, where its matrices live): its products'
 * executor by core's rule (oz_executor_for), except under method auto with executor auto,
 * where each product is the policy's and host operands stay on the host. owner: the
 * executor whose memory the operands are in (NULL: host memory). NULL: the executor asked
 * for is not built. */
static const oz_executor *run_executor(const ozblas_options *opt, const oz_executor *owner)
{
    if (!owner && opt->method == OZBLAS_METHOD_AUTO && opt->executor == OZBLAS_EXECUTOR_AUTO)
        return oz_executor_get(OZ_HOST_EXECUTOR);
    return oz_executor_for(opt, opt->accuracy == OZBLAS_ACCURACY_CORRECT, owner);
}

/* The run's executor as an id (one not built: the id asked for, whose block size it keeps) */
static int run_executor_id(const ozblas_options *opt, const oz_executor *owner)
{
    const oz_executor *e = run_executor(opt, owner);
    return e ? e->id : opt->executor;
}

int ozblas_lapack_executor(const ozblas_options *opt, const void *A)
{
    ozblas_options o;
    if (!opt)
        ozblas_options_init(&o);
    return run_executor_id(opt ? opt : &o, oz_memory_owner(A));
}

/* Where the run's matrices live (docs/lapack.md, "On the GPU"): operands already in
 * device memory are used there; host operands whose products run on a device executor are
 * uploaded once, when their copies take at most half of the memory a call may plan with
 * (the rest for the products' workspace; else the host blocked path, each product staged,
 * and the report says so); anything else stays on the host. Mixed host and device operands
 * are refused. owner: the device operands' executor (NULL: host operands). */
static ozblas_status place(oz_lx *x, lx_operand *ops, int nops, int on, const oz_executor *owner,
                           int64_t n, int64_t big)
{
    size_t es = x->cplx ? 16 : 8, bytes = 0;
    for (int i = 0; i < nops; i++)
        bytes += (size_t)(ops[i].rows * ops[i].cols) * es;
    if (on && on != nops)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    x->devex = owner;
    if (!on) {
        /* one block is one host routine: nothing to gain on the device */
        if (!bytes || n <= x->nb || x->exec == OZ_HOST_EXECUTOR)
            return OZBLAS_OK;
        x->devex = oz_executor_get(x->exec);
        if (!x->devex || !x->devex->mem_budget) /* not built */
            return OZBLAS_ERR_EXECUTOR_UNAVAILABLE;
        size_t budget = 0;
        ozblas_status st = x->devex->mem_budget(x->opt, &budget);
        if (st != OZBLAS_OK) /* opt's device does not exist: as a product would fail */
            return st;
        if (2 * bytes > budget) {
            x->rep->device_short = 1;
            return OZBLAS_OK;
        }
    }
    int64_t w = x->cplx ? 2 : 1;
    x->hcap = x->nb * (big > 1 ? big : 1);
    x->hbuf[0] = oz_malloc(sizeof(double) * (size_t)(2 * w * x->hcap));
    x->hbuf[1] = x->hbuf[0] ? x->hbuf[0] + w * x->hcap : NULL;
    x->dpiv = x->devex->mem_alloc(x->opt, sizeof(int64_t) * (size_t)(big > x->nb ? big : x->nb));
    if (!x->hbuf[0] || !x->dpiv)
        return x->hbuf[0] ? OZBLAS_ERR_DEVICE : OZBLAS_ERR_ALLOCATION;
    x->dev = 1;
    x->rep->device = on ? 2 : 1;
    for (int i = 0; i < nops && !on; i++) {
        lx_operand *o = &ops[i];
        int64_t rows = o->rows > 1 ? o->rows : 1;
        double *d = x->devex->mem_alloc(x->opt, (size_t)(rows * o->cols) * es);
        if (!d)
            return OZBLAS_ERR_DEVICE;
        o->host = *o->p;
        o->host_ld = *o->ld;
        *o->p = d;
        *o->ld = rows;
        if (x->devex->copy(x->opt, d, (size_t)rows * es, o->host, (size_t)o->host_ld * es,
                           (size_t)o->rows * es, (size_t)o->cols))
            return OZBLAS_ERR_DEVICE;
    }
    return OZBLAS_OK;
}

/* A host run's operands copied to x->kept (keep) and back (put_back, unless "back" is 0:
 * then freed only): a run that ends with OZBLAS_ERR_ALLOCATION, wherever a workspace was
 * refused (a product's included: lx_gemm), leaves them as they were, for the host routine to
 * compute the whole call (the shim, ozblas.lapack: docs/lapack.md, "When memory runs out"). */
static size_t kept_copy(oz_lx *x, lx_operand *ops, int nops, int back)
{
    size_t es = x->cplx ? 16 : 8, off = 0;
    for (int i = 0; i < nops; i++)
        for (int64_t j = 0; j < ops[i].cols && ops[i].rows > 0 && ops[i].out != 2;
             j++, off += ops[i].rows * es) {
            char *col = (char *)*ops[i].p + (size_t)(j * *ops[i].ld) * es;
            if (x->kept)
                memcpy(back ? col : (char *)x->kept + off, back ? (char *)x->kept + off : col,
                       (size_t)ops[i].rows * es);
        }
    return off;
}

static ozblas_status keep(oz_lx *x, lx_operand *ops, int nops)
{
    size_t bytes = kept_copy(x, ops, nops, 0);
    if (!bytes)
        return OZBLAS_OK;
    if (!(x->kept = oz_malloc(bytes)))
        return OZBLAS_ERR_ALLOCATION;
    kept_copy(x, ops, nops, 0);
    return OZBLAS_OK;
}

/* The run: options (defaults when NULL), block size, an emptied report, workspace, and the
 * operands placed. n: the order the block size is for; big: the largest dimension of any
 * operand (the host buffers' size). */
ozblas_status lx_begin(oz_lx *x, ozblas_context *ctx, int cplx, int64_t n, int64_t nb,
                       int flags, const ozblas_options *opt, ozblas_lapack_report *rep,
                       double flops, lx_operand *ops, int nops, int64_t big)
{
    memset(x, 0, sizeof *x);
    if (opt)
        x->o = *opt;
    else
        ozblas_options_init(&x->o);
    x->o.device = ozblas_device_for(&x->o);
    opt = &x->o;
    memset(rep, 0, sizeof *rep);
    rep->max_bound = -1.0;
    rep->method = OZBLAS_METHOD_NATIVE;
    rep->executor = opt->executor == OZBLAS_EXECUTOR_CUDA ? OZBLAS_EXECUTOR_CUDA : OZBLAS_EXECUTOR_CPU;
    rep->flops = flops;
    x->ctx = ctx;
    x->opt = opt;
    x->cplx = cplx;
    int on = 0;
    const oz_executor *owner = NULL;
    for (int i = 0; i < nops; i++) {
        const oz_executor *e = oz_memory_owner(*ops[i].p);
        on += e != NULL;
        owner = owner ? owner : e;
    }
    x->exec = run_executor_id(opt, owner);
    x->nb = nb > 0 ? nb : ozblas_lapack_block_size(n, x->exec);
    x->rep = rep;
    rep->nb = x->nb;
    rep->seconds = -lx_now();
    if (!(flags & LX_PRODUCTS) && !oz_real_lapack_ready())
        return OZBLAS_ERR_NO_HOST_BLAS;
    int64_t bn = x->nb < n ? x->nb : n, w = cplx ? 2 : 1;
    x->work = oz_malloc(sizeof(double) *
                     (size_t)(w * (bn * bn + (flags & LX_INVERSE ? n * bn : 0)) + 1));
    x->piv32 = oz_malloc(sizeof(int32_t) * (size_t)((n > x->nb ? n : x->nb) + 1));
    if (!x->work || !x->piv32)
        return OZBLAS_ERR_ALLOCATION;
    ozblas_status st = place(x, ops, nops, on, owner, n, big);
    if (st != OZBLAS_OK || x->dev)
        return st;
    double t0 = lx_now(); /* a copy of the call's own: the report's copies */
    st = keep(x, ops, nops);
    rep->copy_seconds += lx_now() - t0;
    return st;
}

/* The end of a run (also of one begin refused): device results copied back to the caller
 * once, everything freed. A failed device copy is OZBLAS_ERR_DEVICE, a product that failed
 * even natively its status; with uploaded operands the caller's matrices are then
 * untouched. */
ozblas_status lx_end(oz_lx *x, ozblas_status st, lx_operand *ops, int nops,
                     ozblas_lapack_report *out)
{
    size_t es = x->cplx ? 16 : 8;
    /* a failure without its status: a device copy, or on a host run a host workspace */
    if (st == OZBLAS_OK && x->failed)
        st = x->fail_status != OZBLAS_OK ? x->fail_status
             : x->dev                    ? OZBLAS_ERR_DEVICE
                                         : OZBLAS_ERR_ALLOCATION;
    for (int i = 0; i < nops; i++) {
        lx_operand *o = &ops[i];
        if (!o->host)
            continue;
        if (st == OZBLAS_OK && o->out &&
            x->devex->copy(x->opt, o->host, (size_t)o->host_ld * es, *o->p,
                           (size_t)*o->ld * es, (size_t)o->rows * es, (size_t)o->cols))
            st = OZBLAS_ERR_DEVICE;
        x->devex->mem_free(x->opt, *o->p);
        *o->p = o->host;
        *o->ld = o->host_ld;
    }
    if (st == OZBLAS_ERR_ALLOCATION) {
        oz_alloc_warn("the LAPACK layer");
        kept_copy(x, ops, nops, 1);
    }
    free(x->kept);
    if (x->dpiv)
        x->devex->mem_free(x->opt, x->dpiv);
    x->rep->seconds += lx_now();
    x->rep->host_seconds = x->rep->seconds - x->rep->product_seconds;
    free(x->work);
    free(x->piv32);
    free(x->hbuf[0]);
    if (out)
        *out = *x->rep;
    return st;
}

/* netlib's argument checks, in each routine's order: the kind of check and the argument's
 * position (xerbla's number). Kinds: s side, u uplo, t trans, d diag, m m >= 0, n n >= 0,
 * r nrhs >= 0, a lda >= max(1, rows of A), b ldb >= max(1, rows of B), w lwork >= n,
 * v lwork >= 1 (both: or -1, a query). */
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
    [OZ_LF_SYTRF] = {"unav", {1, 2, 4, 7}},
    [OZ_LF_SYTRS] = {"unrab", {1, 2, 3, 5, 8}},
    [OZ_LF_SYTRI] = {"una", {1, 2, 4}},
    [OZ_LF_SYSV] = {"unrabv", {1, 2, 3, 5, 8, 10}},
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
        case 'v': ok = g->lwork >= 1 || g->lwork == -1; break;
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

static int64_t max3(int64_t a, int64_t b, int64_t c)
{
    int64_t m = a > b ? a : b;
    return m > c ? m : c;
}

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
    case OZ_LF_GETRS: case OZ_LF_POTRS: case OZ_LF_SYTRS: f = 2.0 * dn * dn * r; break;
    case OZ_LF_GESV: f = getrf_flops(dn, dn) + 2.0 * dn * dn * r; break;
    case OZ_LF_GETRI: f = 4.0 / 3.0 * dn * dn * dn; break;
    case OZ_LF_POTRF: case OZ_LF_TRTRI: case OZ_LF_SYTRF: f = dn * dn * dn / 3.0; break;
    case OZ_LF_POSV: case OZ_LF_SYSV: f = dn * dn * dn / 3.0 + 2.0 * dn * dn * r; break;
    case OZ_LF_POTRI: case OZ_LF_SYTRI: f = 2.0 / 3.0 * dn * dn * dn; break;
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
    BEGIN(cplx, m < n ? m : n, oz_lapack_flops(OZ_LF_GETRF, cplx, m, n, 0), max3(m, n, 1),
          LX_OP(A, lda, m, n, 1))
    lx_getrf(&x, m, n, A, lda, ipiv, info);
    END();
}

/* getrf's pivots for getrs and getri: each ipiv[i] a row, 1..n. LAPACK does not check them
 * and its row interchanges would then read and write outside A and B (on the device too), so
 * here every caller (the Python API, the C API, the preload shim) gets info = -(ipiv's
 * position) instead, nothing changed. */
static int bad_pivots(const int64_t *ipiv, int64_t n)
{
    if (n > 0 && !ipiv)
        return 1;
    for (int64_t i = 0; i < n; i++)
        if (ipiv[i] < 1 || ipiv[i] > n)
            return 1;
    return 0;
}

static ozblas_status getrs_body(ozblas_context *ctx, int cplx, char trans, int64_t n,
                                int64_t nrhs, double *A, int64_t lda, const int64_t *ipiv,
                                double *B, int64_t ldb, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    CHECK(.op = OZ_LF_GETRS, .trans = trans, .n = n, .nrhs = nrhs, .lda = lda, .ldb = ldb);
    if (nrhs > 0 && bad_pivots(ipiv, n)) {
        *info = -6; /* dgetrs(trans, n, nrhs, a, lda, ipiv, ...) */
        return OZBLAS_ERR_INVALID_ARGUMENT;
    }
    BEGIN(cplx, n, oz_lapack_flops(OZ_LF_GETRS, cplx, n, n, nrhs), max3(n, nrhs, 1),
          LX_OP(A, lda, n, n, 0), LX_OP(B, ldb, n, nrhs, 1))
    lx_getrs(&x, up(trans), n, nrhs, A, lda, ipiv, B, ldb);
    END();
}

static ozblas_status gesv_body(ozblas_context *ctx, int cplx, int64_t n, int64_t nrhs, double *A,
                               int64_t lda, int64_t *ipiv, double *B, int64_t ldb, int64_t *info,
                               int64_t nb, const ozblas_options *opt,
                               ozblas_lapack_report *report)
{
    CHECK(.op = OZ_LF_GESV, .n = n, .nrhs = nrhs, .lda = lda, .ldb = ldb);
    BEGIN(cplx, n, oz_lapack_flops(OZ_LF_GESV, cplx, n, n, nrhs), max3(n, nrhs, 1),
          LX_OP(A, lda, n, n, 1), LX_OP(B, ldb, n, nrhs, 1))
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
    if (bad_pivots(ipiv, n)) {
        *info = -4; /* dgetri(n, a, lda, ipiv, ...) */
        return OZBLAS_ERR_INVALID_ARGUMENT;
    }
    BEGIN_INV(cplx, n, oz_lapack_flops(OZ_LF_GETRI, cplx, n, n, 0), LX_INVERSE, max3(n, 1, 1),
              LX_OP(A, lda, n, n, 1))
    lx_getri(&x, n, A, lda, ipiv, info);
    END();
}

/* potrf and potri */
static ozblas_status potrf_body(ozblas_context *ctx, int cplx, int op, char uplo, int64_t n,
                                double *A, int64_t lda, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    CHECK(.op = op, .uplo = uplo, .n = n, .lda = lda);
    BEGIN(cplx, n, oz_lapack_flops(op, cplx, n, n, 0), max3(n, 1, 1), LX_OP(A, lda, n, n, 1))
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
    BEGIN(cplx, n, oz_lapack_flops(op, cplx, n, n, nrhs), max3(n, nrhs, 1),
          LX_OP(A, lda, n, n, op == OZ_LF_POSV), LX_OP(B, ldb, n, nrhs, 1))
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
    BEGIN(cplx, n, oz_lapack_flops(OZ_LF_TRTRI, cplx, n, n, 0), max3(n, 1, 1),
          LX_OP(A, lda, n, n, 1))
    lx_trtri(&x, up(uplo), up(diag), n, A, lda, info);
    END();
}

static ozblas_status trtrs_body(ozblas_context *ctx, int cplx, char uplo, char trans, char diag,
                                int64_t n, int64_t nrhs, double *A, int64_t lda, double *B,
                                int64_t ldb, int64_t *info, int64_t nb,
                                const ozblas_options *opt, ozblas_lapack_report *report)
{
    CHECK(.op = OZ_LF_TRTRS, .uplo = uplo, .trans = trans, .diag = diag, .n = n, .nrhs = nrhs,
          .lda = lda, .ldb = ldb);
    BEGIN(cplx, n, oz_lapack_flops(OZ_LF_TRTRS, cplx, n, n, nrhs), max3(n, nrhs, 1),
          LX_OP(A, lda, n, n, 0), LX_OP(B, ldb, n, nrhs, 1))
    if (up(diag) == 'N')
        *info = lx_zero_diagonal(&x, n, A, lda);
    if (!*info)
        lx_trsm(&x, 'L', up(uplo), up(trans), up(diag), n, nrhs, ONE, A, lda, B, ldb);
    END();
}

/* trsm and trmm */
static ozblas_status tr3_body(ozblas_context *ctx, int cplx, int mult, char side, char uplo,
                              char ta, char diag, int64_t m, int64_t n, const double *alpha,
                              double *A, int64_t lda, double *B, int64_t ldb,
                              int64_t *info, int64_t nb, const ozblas_options *opt,
                              ozblas_lapack_report *report)
{
    CHECK(.op = OZ_LF_TRSM, .side = side, .uplo = uplo, .trans = ta, .diag = diag, .m = m,
          .n = n, .lda = lda, .ldb = ldb);
    side = up(side);
    int64_t K = side == 'L' ? m : n;
    BEGIN(cplx, K, oz_lapack_flops(OZ_LF_TRSM, cplx, m, n, K), max3(m, n, 1),
          LX_OP(A, lda, K, K, 0), LX_OP(B, ldb, m, n, 1))
    if (m > 0 && n > 0 && alpha[0] == 0.0 && (!cplx || alpha[1] == 0.0))
        lx_zero(&x, m, n, B, ldb); /* BLAS: alpha = 0 sets B to zero, A not referenced */
    else if (mult)
        lx_trmm(&x, side, up(uplo), up(ta), up(diag), m, n, alpha, A, lda, B, ldb);
    else
        lx_trsm(&x, side, up(uplo), up(ta), up(diag), m, n, alpha, A, lda, B, ldb);
    END();
}

/* syrk and herk (netlib's checks inline: trans depends on the routine; lda 7, ldc 10);
 * product: NULL, or where the products' GEMM reports are merged */
static ozblas_status syrk_body(ozblas_context *ctx, int cplx, int herm, char uplo, char trans,
                               int64_t n, int64_t k, const double *alpha, double *A, int64_t lda,
                               const double *beta, double *C, int64_t ldc, int64_t *info,
                               ozblas_report *product, int64_t nb, const ozblas_options *opt,
                               ozblas_lapack_report *report)
{
    uplo = up(uplo);
    trans = up(trans);
    int ok_t = trans == 'N' || (cplx ? trans == (herm ? 'C' : 'T') : trans == 'T' || trans == 'C');
    int64_t rows = trans == 'N' ? n : k;
    *info = uplo != 'U' && uplo != 'L' ? -1 : !ok_t ? -2 : n < 0 ? -3 : k < 0 ? -4
          : lda < max1(rows) ? -7 : ldc < max1(n) ? -10 : 0;
    if (*info)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    if (trans != 'N')
        trans = 'T'; /* dsyrk reads 'C' as 'T'; the driver takes op from herm */
    BEGIN_PRODUCTS(cplx, n, (cplx ? 4.0 : 1.0) * (double)n * (double)(n + 1) * (double)k,
                   max3(n, k, 1), LX_OP(A, lda, rows, trans == 'N' ? k : n, 0),
                   LX_OP(C, ldc, n, n, 1))
    x.product = product;
    lx_syrk(&x, herm, uplo, trans, n, k, alpha, A, lda, beta, C, ldc);
    END();
}

ozblas_status oz_syrk_call(ozblas_context *ctx, int cplx, int herm, char uplo, char trans,
                           int64_t n, int64_t k, const double *alpha, const double *A,
                           int64_t lda, const double *beta, double *C, int64_t ldc,
                           const ozblas_options *opt, ozblas_report *product)
{
    int64_t info = 0;
    memset(product, 0, sizeof *product);
    product->bound = -1.0;
    return syrk_body(ctx, cplx, herm, uplo, trans, n, k, alpha, (double *)A, lda, beta, C, ldc,
                     &info, product, 0, opt, NULL);
}

/* ---- the d and z entries --------------------------------------------------------------- */

LX_DZ(getrf, getrf, (int64_t m, int64_t n, double *A, int64_t lda, int64_t *ipiv, int64_t *info),
      getrf_body, m, n, A, lda, ipiv, info)
LX_DZ(getrs, getrs,
      (char trans, int64_t n, int64_t nrhs, const double *A, int64_t lda, const int64_t *ipiv,
       double *B, int64_t ldb, int64_t *info),
      getrs_body, trans, n, nrhs, (double *)A, lda, ipiv, B, ldb, info)
LX_DZ(gesv, gesv,
      (int64_t n, int64_t nrhs, double *A, int64_t lda, int64_t *ipiv, double *B, int64_t ldb,
       int64_t *info),
      gesv_body, n, nrhs, A, lda, ipiv, B, ldb, info)
LX_DZ(getri, getri, (int64_t n, double *A, int64_t lda, const int64_t *ipiv, int64_t *info),
      getri_body, n, A, lda, ipiv, info)
LX_DZ(potrf, potrf, (char uplo, int64_t n, double *A, int64_t lda, int64_t *info), potrf_body,
      OZ_LF_POTRF, uplo, n, A, lda, info)
LX_DZ(potrs, potrs,
      (char uplo, int64_t n, int64_t nrhs, const double *A, int64_t lda, double *B, int64_t ldb,
       int64_t *info),
      potrs_body, OZ_LF_POTRS, uplo, n, nrhs, (double *)A, lda, B, ldb, info)
LX_DZ(posv, posv,
      (char uplo, int64_t n, int64_t nrhs, double *A, int64_t lda, double *B, int64_t ldb,
       int64_t *info),
      potrs_body, OZ_LF_POSV, uplo, n, nrhs, A, lda, B, ldb, info)
LX_DZ(potri, potri, (char uplo, int64_t n, double *A, int64_t lda, int64_t *info), potrf_body,
      OZ_LF_POTRI, uplo, n, A, lda, info)
LX_DZ(trtri, trtri, (char uplo, char diag, int64_t n, double *A, int64_t lda, int64_t *info),
      trtri_body, uplo, diag, n, A, lda, info)
LX_DZ(trtrs, trtrs,
      (char uplo, char trans, char diag, int64_t n, int64_t nrhs, const double *A, int64_t lda,
       double *B, int64_t ldb, int64_t *info),
      trtrs_body, uplo, trans, diag, n, nrhs, (double *)A, lda, B, ldb, info)
/* trsm (mult 0) and trmm (1): dtrsm's real alpha */
#define TR3_PARAMS(alpha_t)                                                                    \
    (char side, char uplo, char transa, char diag, int64_t m, int64_t n, alpha_t alpha,         \
     const double *A, int64_t lda, double *B, int64_t ldb, int64_t *info)
#define TR3_ARGS(mult, al) mult, side, uplo, transa, diag, m, n, al, (double *)A, lda, B, ldb, info
LX_API(ozblas_dtrsm, TR3_PARAMS(double), tr3_body, 0, TR3_ARGS(0, lx_re(alpha).v))
LX_API(ozblas_ztrsm, TR3_PARAMS(const double *), tr3_body, 1, TR3_ARGS(0, alpha))
LX_API(ozblas_dtrmm, TR3_PARAMS(double), tr3_body, 0, TR3_ARGS(1, lx_re(alpha).v))
LX_API(ozblas_ztrmm, TR3_PARAMS(const double *), tr3_body, 1, TR3_ARGS(1, alpha))
/* dsyrk and zherk: real alpha and beta */
#define RK_PARAMS(scalar_t)                                                                    \
    (char uplo, char trans, int64_t n, int64_t k, scalar_t alpha, const double *A, int64_t lda, \
     scalar_t beta, double *C, int64_t ldc, int64_t *info)
#define RK_ARGS(al, be) uplo, trans, n, k, al, (double *)A, lda, be, C, ldc, info, NULL
LX_API(ozblas_dsyrk, RK_PARAMS(double), syrk_body, 0, 0, RK_ARGS(lx_re(alpha).v, lx_re(beta).v))
LX_API(ozblas_zsyrk, RK_PARAMS(const double *), syrk_body, 1, 0, RK_ARGS(alpha, beta))
LX_API(ozblas_zherk, RK_PARAMS(double), syrk_body, 1, 1, RK_ARGS(lx_re(alpha).v, lx_re(beta).v))
