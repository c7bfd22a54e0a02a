/* The preload shim's LAPACK entries: getrf getrs gesv getri potrf potrs posv potri trtri
 * trtrs sytrf sytrs sytri sysv (and hetrf hetrs hetri hesv), d and z, under every name of
 * OZ_SHIM_LAPACK_VARIANTS (shim_names.h); the QR and Level-3 BLAS entries (shim_level3.c)
 * share the call's machinery (shim_lapack.h).
 *
 * Each entry: netlib's argument check (an error goes to the real routine, so the user sees
 * the real xerbla report), quick returns and workspace queries to the real routine, the
 * routing decision shared with the BLAS entries (OZBLAS_DISABLE, OZBLAS_METHOD,
 * OZBLAS_MIN_SIZE on the factorization's order, method auto's policy on an n x n x n
 * product), an order within one block to the real routine (the driver would be that one
 * call), a non-finite input to the real routine, then the blocked driver of
 * src/lapack/ (ozblas.h "LAPACK layer"), whose products each take the GEMM path's own
 * decision (their k = nb is exempt from OZBLAS_MIN_SIZE). A call is one trace line and one
 * counter cell under its own routine name. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/oz_internal.h"
#include "shim_lapack.h"

int lap_begin_update(lap_call *L, int cplx, int64_t m, int64_t n, int64_t k, int64_t order,
                     double flops, int bad, int quick, const double *alpha)
{
    const int routine = L->c.routine; /* the entry's (LX_ENTRY) */
    memset(L, 0, sizeof *L);
    L->c.routine = routine;
    L->c.kind = K_LAPACK;
    L->c.cplx = cplx;
    L->c.m = m > 0 ? m : 0;
    L->c.n = n > 0 ? n : 0;
    L->c.k = k > 0 ? k : 0;
    L->c.alpha[0] = alpha ? alpha[0] : 1.0;
    L->c.alpha[1] = alpha && cplx ? alpha[1] : 0.0;
    L->c.update = alpha != NULL;
    L->c.batch = 1;
    L->c.flops = bad ? 0.0 : flops;
    snprintf(L->dims, sizeof L->dims, "m=%lld n=%lld k=%lld", (long long)m, (long long)n,
             (long long)k);
    L->t0 = shim_begin(&L->r, &L->c);
    if (bad) {
        L->r.why = N_ARGUMENT;
        return 0;
    }
    if (quick) {
        L->r.route = R_QUICK;
        return 0;
    }
    if (!shim_decide(&L->c, NULL, &L->r))
        return 0;
    /* method auto's choice of the CUDA executor for the call makes it device-resident
       (ozblas.h "LAPACK layer"); its products still decide each for itself */
    L->opt = *shim_options();
    if (L->r.zero) { /* C := beta C on the host (shim_decide) */
        L->opt.executor = OZBLAS_EXECUTOR_CPU;
        L->opt.devices = 0;
        return 1;
    }
    if (L->r.executor == OZBLAS_EXECUTOR_CUDA)
        L->opt.executor = OZBLAS_EXECUTOR_CUDA;
    if (order >= 0 &&
        order <= ozblas_lapack_block_size(order, ozblas_lapack_executor(&L->opt, NULL))) {
        L->r.why = N_ONE_BLOCK; /* the driver would be one call of the real routine */
        return 0;
    }
    return 1;
}

int lap_query(lap_call *L)
{
    L->r.why = N_WORKSPACE_QUERY;
    L->c.flops = 0.0;
    return 0;
}

int lap_begin(lap_call *L, int cplx, int64_t m, int64_t n, int64_t k, int64_t order,
              double flops, int bad, int quick)
{
    return lap_begin_update(L, cplx, m, n, k, order, flops, bad, quick, NULL);
}

/* The decision of an OZ_LF_* call: OZBLAS_MIN_SIZE, method auto and the one-block rule on
 * the factorization's order (getrf: min(m, n)), as an order^3 product. */
static int lap_start(lap_call *L, int cplx, int op, int64_t m, int64_t n, int64_t nrhs, int bad,
                     int quick)
{
    int64_t size = op == OZ_LF_GETRF ? (m < n ? m : n) : n;
    double flops = bad ? 0.0 : oz_lapack_flops(op, cplx, m, n, nrhs);
    int r = lap_begin(L, cplx, size, size, size, size, flops, bad, quick);
    snprintf(L->dims, sizeof L->dims, "m=%lld n=%lld nrhs=%lld", (long long)m, (long long)n,
             (long long)nrhs);
    return r;
}

int lap_finite(lap_call *L, int cplx, char uplo, int64_t m, int64_t n, const double *A,
               int64_t ld)
{
    int w = cplx ? 2 : 1;
    uplo = up(uplo);
    for (int64_t j = 0; j < n; j++) {
        int64_t i0 = uplo == 'L' ? j : 0, i1 = uplo == 'U' ? (j + 1 < m ? j + 1 : m) : m;
        const double *a = A + w * j * ld;
        for (int64_t i = w * i0; i < w * i1; i++)
            if (!isfinite(a[i])) {
                L->r.why = N_NONFINITE;
                return 0;
            }
    }
    return 1;
}

int lap_done(lap_call *L, ozblas_status st)
{
    if (st != OZBLAS_OK) {
        L->r.why = N_FAILED;
        L->r.st = st;
        return 0;
    }
    L->r.route = L->r.zero ? R_QUICK : R_OZBLAS;
    L->r.rep.method = L->rep.method;
    L->r.rep.executor = L->rep.executor;
    L->r.rep.fallback = OZBLAS_FALLBACK_NONE;
    L->r.rep.moduli = L->rep.max_moduli;
    L->r.rep.bound = L->rep.max_bound;
    L->r.product_seconds = L->rep.product_seconds;
    L->r.host_seconds = L->rep.host_seconds;
    L->r.host_flops = L->rep.host_flops;
    return 1;
}

void lap_end(const oz_slot *s, const lap_call *L, int64_t info)
{
    double dt = L->t0 >= 0.0 ? shim_now() - L->t0 : 0.0;
    shim_count(s, &L->c, &L->r, dt);
    if (!shim_trace_line(NULL, 0))
        return;
    char line[768], why[160];
    int len;
    if (L->r.route == R_OZBLAS) {
        const ozblas_lapack_report *p = &L->rep;
        len = snprintf(line, sizeof line,
                       "ozblas-trace pid=%d routine=%s symbol=%s %s route=ozblas method=%s "
                       "moduli=%d-%d products=%lld emulated=%lld product_flops=%.3e "
                       "emulated_flops=%.3e nb=%lld bound=%.2e executor=%s device=%s "
                       "seconds=%.3e product_seconds=%.3e host_seconds=%.3e "
                       "host_flops=%.3e info=%lld\n",
                       (int)getpid(), s->routine, s->symbol, L->dims, shim_method_name(p->method),
                       p->min_moduli, p->max_moduli, (long long)p->products,
                       (long long)p->emulated, p->product_flops, p->emulated_flops,
                       (long long)p->nb, p->max_bound, shim_executor_name(p->executor),
                       p->device_short ? "short" : p->device == 1 ? "uploaded"
                                                 : p->device == 2 ? "device" : "host",
                       dt, p->product_seconds, p->host_seconds, p->host_flops,
                       (long long)info);
    } else
        len = snprintf(line, sizeof line,
                       "ozblas-trace pid=%d routine=%s symbol=%s %s route=%s method=native "
                       "executor=host seconds=%.3e reason=\"%s\"\n",
                       (int)getpid(), s->routine, s->symbol, L->dims,
                       L->r.route == R_QUICK ? "quick" : "native", dt,
                       shim_reason(&L->r, why, sizeof why));
    if (len > (int)sizeof line - 1)
        len = (int)sizeof line - 1;
    shim_trace_line(line, len);
}

/* Pivots in the caller's integer type (4 or 8 bytes) and as the drivers' int64_t. */
static int64_t *piv_in(const void *ipiv, int wide, int64_t n)
{
    int64_t *p = oz_malloc(sizeof(int64_t) * (size_t)max1(n));
    if (p && ipiv)
        for (int64_t i = 0; i < n; i++)
            p[i] = wide ? ((const int64_t *)ipiv)[i] : ((const int32_t *)ipiv)[i];
    return p;
}

static void piv_out(void *ipiv, int wide, const int64_t *p, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (wide)
            ((int64_t *)ipiv)[i] = p[i];
        else
            ((int32_t *)ipiv)[i] = (int32_t)p[i];
}

/* ---- one handler per argument shape: 1 when ozblas computed the call ---------------- */

static int h_getrf(lap_call *L, int cplx, int64_t m, int64_t n, double *A, int64_t lda,
                   void *ipiv, int wide, int64_t *info)
{
    int64_t mn = m < n ? m : n;
    int bad = oz_lapack_check(&(oz_lapack_args){.op = OZ_LF_GETRF, .m = m, .n = n, .lda = lda}) != 0;
    if (!lap_start(L, cplx, OZ_LF_GETRF, m, n, 0, bad, mn == 0) ||
        !lap_finite(L, cplx, 'A', m, n, A, lda))
        return 0;
    int64_t *p = piv_in(NULL, wide, mn);
    int ok = p && LAP_RUN((cplx ? ozblas_zgetrf : ozblas_dgetrf)(shim_context(), m, n, A, lda, p,
                                                                  info, 0, LAP_OPT));
    if (ok)
        piv_out(ipiv, wide, p, mn);
    free(p);
    return ok;
}

static int h_getrs(lap_call *L, int cplx, char trans, int64_t n, int64_t nrhs, const double *A,
                   int64_t lda, const void *ipiv, int wide, double *B, int64_t ldb,
                   int64_t *info)
{
    int bad = oz_lapack_check(&(oz_lapack_args){.op = OZ_LF_GETRS, .trans = trans, .n = n,
                                                 .nrhs = nrhs, .lda = lda, .ldb = ldb}) != 0;
    if (!lap_start(L, cplx, OZ_LF_GETRS, n, n, nrhs, bad, n == 0 || nrhs == 0) ||
        !lap_finite(L, cplx, 'A', n, n, A, lda) || !lap_finite(L, cplx, 'A', n, nrhs, B, ldb))
        return 0;
    int64_t *p = piv_in(ipiv, wide, n);
    int ok = p && LAP_RUN((cplx ? ozblas_zgetrs : ozblas_dgetrs)(shim_context(), trans, n, nrhs,
                                                                  A, lda, p, B, ldb, info, 0,
                                                                  LAP_OPT));
    free(p);
    return ok;
}

static int h_gesv(lap_call *L, int cplx, int64_t n, int64_t nrhs, double *A, int64_t lda,
                  void *ipiv, int wide, double *B, int64_t ldb, int64_t *info)
{
    int bad = oz_lapack_check(&(oz_lapack_args){.op = OZ_LF_GESV, .n = n, .nrhs = nrhs,
                                                 .lda = lda, .ldb = ldb}) != 0;
    if (!lap_start(L, cplx, OZ_LF_GESV, n, n, nrhs, bad, n == 0) ||
        !lap_finite(L, cplx, 'A', n, n, A, lda) || !lap_finite(L, cplx, 'A', n, nrhs, B, ldb))
        return 0;
    int64_t *p = piv_in(NULL, wide, n);
    int ok = p && LAP_RUN((cplx ? ozblas_zgesv : ozblas_dgesv)(shim_context(), n, nrhs, A, lda, p,
                                                                B, ldb, info, 0, LAP_OPT));
    if (ok)
        piv_out(ipiv, wide, p, n);
    free(p);
    return ok;
}

static int h_getri(lap_call *L, int cplx, int64_t n, double *A, int64_t lda, const void *ipiv,
                   int wide, double *work, int64_t lwork, int64_t *info)
{
    int bad = oz_lapack_check(&(oz_lapack_args){.op = OZ_LF_GETRI, .n = n, .lda = lda,
                                                 .lwork = lwork}) != 0;
    if (!lap_start(L, cplx, OZ_LF_GETRI, n, n, 0, bad, n == 0))
        return 0;
    if (lwork == -1)
        return lap_query(L);
    if (!lap_finite(L, cplx, 'A', n, n, A, lda))
        return 0;
    int64_t *p = piv_in(ipiv, wide, n);
    int ok = p && LAP_RUN((cplx ? ozblas_zgetri : ozblas_dgetri)(shim_context(), n, A, lda, p,
                                                                  info, 0, LAP_OPT));
    free(p);
    if (ok) { /* LAPACK's optimal workspace, as the real routine reports it */
        work[0] = (double)(n * L->rep.nb);
        if (cplx)
            work[1] = 0.0;
    }
    return ok;
}

/* potrf and potri */
static int h_potrf(lap_call *L, int cplx, int op, char uplo, int64_t n, double *A, int64_t lda,
                   int64_t *info)
{
    int bad = oz_lapack_check(&(oz_lapack_args){.op = op, .uplo = uplo, .n = n, .lda = lda}) != 0;
    if (!lap_start(L, cplx, op, n, n, 0, bad, n == 0) ||
        !lap_finite(L, cplx, uplo, n, n, A, lda))
        return 0;
    if (op == OZ_LF_POTRF)
        return LAP_RUN((cplx ? ozblas_zpotrf : ozblas_dpotrf)(shim_context(), uplo, n, A, lda,
                                                               info, 0, LAP_OPT));
    return LAP_RUN((cplx ? ozblas_zpotri : ozblas_dpotri)(shim_context(), uplo, n, A, lda, info,
                                                           0, LAP_OPT));
}

/* potrs and posv */
static int h_potrs(lap_call *L, int cplx, int op, char uplo, int64_t n, int64_t nrhs, double *A,
                   int64_t lda, double *B, int64_t ldb, int64_t *info)
{
    int bad = oz_lapack_check(&(oz_lapack_args){.op = op, .uplo = uplo, .n = n, .nrhs = nrhs,
                                                 .lda = lda, .ldb = ldb}) != 0;
    int quick = n == 0 || (op == OZ_LF_POTRS && nrhs == 0);
    if (!lap_start(L, cplx, op, n, n, nrhs, bad, quick) ||
        !lap_finite(L, cplx, uplo, n, n, A, lda) || !lap_finite(L, cplx, 'A', n, nrhs, B, ldb))
        return 0;
    if (op == OZ_LF_POTRS)
        return LAP_RUN((cplx ? ozblas_zpotrs : ozblas_dpotrs)(shim_context(), uplo, n, nrhs, A,
                                                               lda, B, ldb, info, 0, LAP_OPT));
    return LAP_RUN((cplx ? ozblas_zposv : ozblas_dposv)(shim_context(), uplo, n, nrhs, A, lda, B,
                                                         ldb, info, 0, LAP_OPT));
}

static int h_trtri(lap_call *L, int cplx, char uplo, char diag, int64_t n, double *A,
                   int64_t lda, int64_t *info)
{
    int bad = oz_lapack_check(&(oz_lapack_args){.op = OZ_LF_TRTRI, .uplo = uplo, .diag = diag,
                                                 .n = n, .lda = lda}) != 0;
    if (!lap_start(L, cplx, OZ_LF_TRTRI, n, n, 0, bad, n == 0) ||
        !lap_finite(L, cplx, uplo, n, n, A, lda))
        return 0;
    return LAP_RUN((cplx ? ozblas_ztrtri : ozblas_dtrtri)(shim_context(), uplo, diag, n, A, lda,
                                                           info, 0, LAP_OPT));
}

static int h_trtrs(lap_call *L, int cplx, char uplo, char trans, char diag, int64_t n,
                   int64_t nrhs, const double *A, int64_t lda, double *B, int64_t ldb,
                   int64_t *info)
{
    int bad = oz_lapack_check(&(oz_lapack_args){.op = OZ_LF_TRTRS, .uplo = uplo, .trans = trans,
                                                 .diag = diag, .n = n, .nrhs = nrhs, .lda = lda,
                                                 .ldb = ldb}) != 0;
    if (!lap_start(L, cplx, OZ_LF_TRTRS, n, n, nrhs, bad, n == 0 || nrhs == 0) ||
        !lap_finite(L, cplx, uplo, n, n, A, lda) || !lap_finite(L, cplx, 'A', n, nrhs, B, ldb))
        return 0;
    return LAP_RUN((cplx ? ozblas_ztrtrs : ozblas_dtrtrs)(shim_context(), uplo, trans, diag, n,
                                                           nrhs, A, lda, B, ldb, info, 0,
                                                           LAP_OPT));
}

/* Bunch-Kaufman (lapack_sytrf.c): kind 0 sytrf, 1 sytrs, 2 sytri, 3 sysv; herm: zhe*.
 * Workspace is the driver's own: a query (lwork = -1) goes to the real routine, and the
 * optimal size the real routine would report is written to work[0] after a routed call. */
static int h_sytrf(lap_call *L, int kind, int cplx, int herm, char uplo, int64_t n, int64_t nrhs,
                   double *A, int64_t lda, void *ipiv, int wide, double *B, int64_t ldb,
                   double *work, int64_t lwork, int64_t *info)
{
    static const int ops[4] = {OZ_LF_SYTRF, OZ_LF_SYTRS, OZ_LF_SYTRI, OZ_LF_SYSV};
    int op = ops[kind], solve = kind == 1 || kind == 3, query = kind != 1 && kind != 2;
    int bad = oz_lapack_check(&(oz_lapack_args){.op = op, .uplo = uplo, .n = n, .nrhs = nrhs,
                                                 .lda = lda, .ldb = ldb,
                                                 .lwork = query ? lwork : 1}) != 0;
    if (!lap_start(L, cplx, op, n, n, nrhs, bad, n == 0 || (kind == 1 && nrhs == 0)))
        return 0;
    if (query && lwork == -1)
        return lap_query(L);
    if (!lap_finite(L, cplx, uplo, n, n, A, lda) ||
        (solve && !lap_finite(L, cplx, 'A', n, nrhs, B, ldb)))
        return 0;
    int64_t *p = piv_in(kind == 1 || kind == 2 ? ipiv : NULL, wide, n);
    ozblas_context *ctx = shim_context();
    int ok = 0;
    if (p && kind == 0)
        ok = LAP_RUN((herm ? ozblas_zhetrf : cplx ? ozblas_zsytrf : ozblas_dsytrf)(
            ctx, uplo, n, A, lda, p, info, 0, LAP_OPT));
    else if (p && kind == 1) {
        /* the driver changes A while it runs and restores it; LAPACK's A is input only (it
           may be read-only memory), so the driver gets a copy */
        size_t col = sizeof(double) * (size_t)((cplx ? 2 : 1) * n);
        double *Ac = oz_malloc(col * (size_t)n);
        for (int64_t j = 0; Ac && j < n; j++)
            memcpy((char *)Ac + col * (size_t)j, A + (cplx ? 2 : 1) * j * lda, col);
        ok = Ac && LAP_RUN((herm ? ozblas_zhetrs : cplx ? ozblas_zsytrs : ozblas_dsytrs)(
                       ctx, uplo, n, nrhs, Ac, n, p, B, ldb, info, 0, LAP_OPT));
        if (!Ac)
            lap_done(L, OZBLAS_ERR_ALLOCATION); /* native, counted as a failed call */
        free(Ac);
    } else if (p && kind == 2)
        ok = LAP_RUN((herm ? ozblas_zhetri : cplx ? ozblas_zsytri : ozblas_dsytri)(
            ctx, uplo, n, A, lda, p, info, 0, LAP_OPT));
    else if (p)
        ok = LAP_RUN((herm ? ozblas_zhesv : cplx ? ozblas_zsysv : ozblas_dsysv)(
            ctx, uplo, n, nrhs, A, lda, p, B, ldb, info, 0, LAP_OPT));
    if (ok && query) {
        piv_out(ipiv, wide, p, n);
        work[0] = (double)(n * L->rep.nb);
        if (cplx)
            work[1] = 0.0;
    }
    free(p);
    return ok;
}

/* ---- the exported entries ------------------------------------------------------------- */

#define L_GETRF(rtn, sym, api, T)                                                                 \
    LAP_ENTRY(sym, rtn, T, (const T *m, const T *n, double *A, const T *lda, T *ipiv, T *info), \
              (const T *, const T *, double *, const T *, T *, T *),                         \
              h_getrf(&L, C, *m, *n, A, *lda, ipiv, W8(T), &inf), (m, n, A, lda, ipiv, info))
#define L_GETRS(rtn, sym, api, T)                                                                 \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (CH tr, const T *n, const T *nrhs, const double *A, const T *lda, const T *ipiv, \
               double *B, const T *ldb, T *info, SZ l1),                                      \
              (CH, const T *, const T *, const double *, const T *, const T *, double *,      \
               const T *, T *, SZ),                                                           \
              h_getrs(&L, C, up(*tr), *n, *nrhs, A, *lda, ipiv, W8(T), B, *ldb, &inf),        \
              (tr, n, nrhs, A, lda, ipiv, B, ldb, info, l1))
#define L_GESV(rtn, sym, api, T)                                                                  \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (const T *n, const T *nrhs, double *A, const T *lda, T *ipiv, double *B,        \
               const T *ldb, T *info),                                                        \
              (const T *, const T *, double *, const T *, T *, double *, const T *, T *),     \
              h_gesv(&L, C, *n, *nrhs, A, *lda, ipiv, W8(T), B, *ldb, &inf),                  \
              (n, nrhs, A, lda, ipiv, B, ldb, info))
#define L_GETRI(rtn, sym, api, T)                                                                 \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (const T *n, double *A, const T *lda, const T *ipiv, double *work,              \
               const T *lwork, T *info),                                                      \
              (const T *, double *, const T *, const T *, double *, const T *, T *),          \
              h_getri(&L, C, *n, A, *lda, ipiv, W8(T), work, *lwork, &inf),                   \
              (n, A, lda, ipiv, work, lwork, info))
#define L_POTRF_LIKE(rtn, sym, T, OP)                                                        \
    LAP_ENTRY(sym, rtn, T, (CH uplo, const T *n, double *A, const T *lda, T *info, SZ l1),   \
              (CH, const T *, double *, const T *, T *, SZ),                                  \
              h_potrf(&L, C, OP, up(*uplo), *n, A, *lda, &inf), (uplo, n, A, lda, info, l1))
#define L_POTRF(rtn, sym, api, T) L_POTRF_LIKE(rtn, sym, T, OZ_LF_POTRF)
#define L_POTRI(rtn, sym, api, T) L_POTRF_LIKE(rtn, sym, T, OZ_LF_POTRI)
#define L_POTRS_LIKE(rtn, sym, T, OP)                                                        \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (CH uplo, const T *n, const T *nrhs, double *A, const T *lda, double *B,        \
               const T *ldb, T *info, SZ l1),                                                 \
              (CH, const T *, const T *, double *, const T *, double *, const T *, T *, SZ),  \
              h_potrs(&L, C, OP, up(*uplo), *n, *nrhs, A, *lda, B, *ldb, &inf),               \
              (uplo, n, nrhs, A, lda, B, ldb, info, l1))
#define L_POTRS(rtn, sym, api, T) L_POTRS_LIKE(rtn, sym, T, OZ_LF_POTRS)
#define L_POSV(rtn, sym, api, T) L_POTRS_LIKE(rtn, sym, T, OZ_LF_POSV)
#define L_TRTRI(rtn, sym, api, T)                                                                 \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (CH uplo, CH diag, const T *n, double *A, const T *lda, T *info, SZ l1, SZ l2), \
              (CH, CH, const T *, double *, const T *, T *, SZ, SZ),                          \
              h_trtri(&L, C, up(*uplo), up(*diag), *n, A, *lda, &inf),                        \
              (uplo, diag, n, A, lda, info, l1, l2))
#define L_TRTRS(rtn, sym, api, T)                                                                 \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (CH uplo, CH tr, CH diag, const T *n, const T *nrhs, const double *A,           \
               const T *lda, double *B, const T *ldb, T *info, SZ l1, SZ l2, SZ l3),          \
              (CH, CH, CH, const T *, const T *, const double *, const T *, double *,         \
               const T *, T *, SZ, SZ, SZ),                                                   \
              h_trtrs(&L, C, up(*uplo), up(*tr), up(*diag), *n, *nrhs, A, *lda, B, *ldb, &inf), \
              (uplo, tr, diag, n, nrhs, A, lda, B, ldb, info, l1, l2, l3))

/* the Hermitian routines: zhe* */
#define HE(rtn) (#rtn[1] == 'h')
#define L_SYTRF(rtn, sym, api, T)                                                                 \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (CH uplo, const T *n, double *A, const T *lda, T *ipiv, double *work,           \
               const T *lwork, T *info, SZ l1),                                               \
              (CH, const T *, double *, const T *, T *, double *, const T *, T *, SZ),        \
              h_sytrf(&L, 0, C, HE(rtn), up(*uplo), *n, 0, A, *lda, ipiv, W8(T), NULL, 1, work,   \
                      *lwork, &inf),                                                          \
              (uplo, n, A, lda, ipiv, work, lwork, info, l1))
#define L_SYTRS(rtn, sym, api, T)                                                                 \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (CH uplo, const T *n, const T *nrhs, const double *A, const T *lda,             \
               const T *ipiv, double *B, const T *ldb, T *info, SZ l1),                       \
              (CH, const T *, const T *, const double *, const T *, const T *, double *,      \
               const T *, T *, SZ),                                                           \
              h_sytrf(&L, 1, C, HE(rtn), up(*uplo), *n, *nrhs, (double *)A, *lda, (void *)ipiv,   \
                      W8(T), B, *ldb, NULL, 1, &inf),                                         \
              (uplo, n, nrhs, A, lda, ipiv, B, ldb, info, l1))
#define L_SYTRI(rtn, sym, api, T)                                                                 \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (CH uplo, const T *n, double *A, const T *lda, const T *ipiv, double *work,     \
               T *info, SZ l1),                                                               \
              (CH, const T *, double *, const T *, const T *, double *, T *, SZ),             \
              h_sytrf(&L, 2, C, HE(rtn), up(*uplo), *n, 0, A, *lda, (void *)ipiv, W8(T), NULL, 1, \
                      work, 1, &inf),                                                         \
              (uplo, n, A, lda, ipiv, work, info, l1))
#define L_SYSV(rtn, sym, api, T)                                                                  \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (CH uplo, const T *n, const T *nrhs, double *A, const T *lda, T *ipiv,          \
               double *B, const T *ldb, double *work, const T *lwork, T *info, SZ l1),        \
              (CH, const T *, const T *, double *, const T *, T *, double *, const T *,       \
               double *, const T *, T *, SZ),                                                 \
              h_sytrf(&L, 3, C, HE(rtn), up(*uplo), *n, *nrhs, A, *lda, ipiv, W8(T), B, *ldb,     \
                      work, *lwork, &inf),                                                    \
              (uplo, n, nrhs, A, lda, ipiv, B, ldb, work, lwork, info, l1))

#define LAP_DEFINE_ROUTINE(rtn, e, shape) OZ_SHIM_LAPACK_VARIANTS(L_##shape, rtn)
OZ_SHIM_LAPACK_ROUTINES(LAP_DEFINE_ROUTINE)
