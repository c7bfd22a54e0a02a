/* libozblas_preload.so: the preload shim for the host BLAS.
 *
 * Exports DGEMM, ZGEMM, DSYRK, ZSYRK and ZHERK under every name of shim_names.h. Each
 * entry: the netlib argument check (an error goes to the real routine, so the user sees
 * the real xerbla report), the netlib quick return, the routing decision (OZBLAS_DISABLE,
 * OZBLAS_METHOD, OZBLAS_MIN_SIZE), then ozblas_dgemm/ozblas_zgemm (which fall back to
 * native themselves where the inputs need it) or the real routine. SYRK/HERK are computed
 * as the product of op(A) with its (conjugate) transpose into a workspace, of which only
 * the referenced triangle of C is updated.
 *
 * The real routine is the first definition of the same name among the loaded objects
 * that is not an ozblas library (oz_find_real_symbol: a walk of dl_iterate_phdr, since
 * the wheels' OpenBLAS is loaded RTLD_LOCAL). Nothing is done at load time: the settings
 * are read, the trace opened and the GPU looked for on the first call (fork-safe).
 * Thread-safe: the settings are read once, every call keeps its state on the stack. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/oz_internal.h"
#include "shim_names.h"

#define OZ_EXPORT __attribute__((visibility("default")))

/* Marks this object as an ozblas library, so that no walk takes our names for the real. */
OZ_EXPORT const char oz_ozblas_library_marker[] = "ozblas_preload";

/* ---- settings, read once on the first call -------------------------------------------- */

static struct {
    ozblas_options opt;
    oz_shim_env env;
    int bad;              /* a bad OZBLAS_* value: everything stays native */
    int trace_fd;         /* -1: no trace */
    ozblas_context *ctx;
    int gpu;              /* method auto: a usable CUDA executor (-1: not asked yet) */
} S;
static pthread_once_t S_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t gpu_lock = PTHREAD_MUTEX_INITIALIZER;

/* fork(): the parent's CUDA context must not be touched in the child, so a child whose
 * parent asked for the GPU stays off it (method auto then passes through). The CPU
 * executor limits itself to one thread in such children (libgomp's pool does not survive
 * fork). */
static void atfork_child(void)
{
    if (S.gpu >= 0) {
        S.gpu = 0;
        S.opt.executor = OZBLAS_EXECUTOR_CPU;
    }
}

/* Registers the fork handler only: no settings, no CUDA, nothing else at load. */
__attribute__((constructor)) static void shim_load(void)
{
    pthread_atfork(NULL, NULL, atfork_child);
}

static void init_state(void)
{
    char err[512];
    S.trace_fd = -1;
    S.gpu = -1;
    ozblas_options_init(&S.opt);
    oz_shim_env_init(&S.env);
    if (oz_shim_env_from_env(&S.env, err, sizeof err) != OZBLAS_OK ||
        ozblas_options_from_env(&S.opt, err, sizeof err) != OZBLAS_OK) {
        S.bad = 1;
        fprintf(stderr, "ozblas (preload): %s; BLAS calls of this process stay native\n", err);
    }
    if (S.env.trace[0]) {
        if (!strcmp(S.env.trace, "-"))
            S.trace_fd = 2;
        else {
            S.trace_fd = open(S.env.trace, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
            if (S.trace_fd < 0)
                fprintf(stderr, "ozblas (preload): OZBLAS_TRACE=%s cannot be opened (%s); no trace\n",
                        S.env.trace, strerror(errno));
        }
    }
    if (ozblas_context_create(&S.ctx) != OZBLAS_OK)
        S.ctx = NULL;
}

/* Method auto routes only where ozblas's auto rule would emulate: a usable CUDA executor.
 * Asked on the first call that needs it, never at load. */
static int gpu_usable(void)
{
    int g = __atomic_load_n(&S.gpu, __ATOMIC_ACQUIRE);
    if (g >= 0)
        return g;
    pthread_mutex_lock(&gpu_lock);
    if (S.gpu < 0) {
        int v = S.opt.executor != OZBLAS_EXECUTOR_CPU &&
                ozblas_executor_available(OZBLAS_EXECUTOR_CUDA, NULL, 0);
        __atomic_store_n(&S.gpu, v, __ATOMIC_RELEASE);
    }
    g = S.gpu;
    pthread_mutex_unlock(&gpu_lock);
    return g;
}

/* ---- one call --------------------------------------------------------------------------- */

enum { K_GEMM, K_SYRK, K_HERK };
enum { R_NATIVE, R_OZBLAS, R_QUICK };

typedef struct {
    const char *symbol, *routine;
    int kind, cplx;
    void *real;   /* atomic; NULL until found */
    int warned;   /* atomic; the "not found" message was printed */
} oz_slot;

typedef struct {
    int kind, cplx;
    char ta, tb, uplo; /* column-major, upper case; trans of SYRK/HERK in ta */
    int64_t m, n, k, lda, ldb, ldc;
    double alpha[2], beta[2];
    const double *A, *B;
    double *C;
} shim_call;

typedef struct {
    int route;
    const char *reason; /* why native (NULL when routed) */
    ozblas_report rep;
    char buf[96];
} shim_result;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void *shim_real(oz_slot *s)
{
    void *f = __atomic_load_n(&s->real, __ATOMIC_ACQUIRE);
    if (f)
        return f;
    f = oz_find_real_symbol(s->symbol, NULL, 0);
    if (f) {
        __atomic_store_n(&s->real, f, __ATOMIC_RELEASE);
        return f;
    }
    if (!__atomic_exchange_n(&s->warned, 1, __ATOMIC_ACQ_REL))
        fprintf(stderr,
                "ozblas (preload): no real %s found among the loaded objects; such calls are "
                "skipped and leave C unchanged\n",
                s->symbol);
    return NULL;
}

static double shim_begin(shim_result *r)
{
    pthread_once(&S_once, init_state);
    r->route = R_NATIVE;
    r->reason = NULL;
    return S.trace_fd >= 0 ? now() : 0.0;
}

static char upper(char c) { return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c; }
static int64_t max1(int64_t x) { return x > 1 ? x : 1; }

/* Netlib's checks, on the column-major form. NULL when valid. */
static const char *check_gemm(const shim_call *c)
{
    if (!strchr("NTC", c->ta) || !c->ta || !strchr("NTC", c->tb) || !c->tb || c->m < 0 ||
        c->n < 0 || c->k < 0 || c->lda < max1(c->ta == 'N' ? c->m : c->k) ||
        c->ldb < max1(c->tb == 'N' ? c->k : c->n) || c->ldc < max1(c->m))
        return "argument error";
    return NULL;
}

static const char *check_syrk(const shim_call *c)
{
    const char *trans = c->kind == K_HERK ? "NC" : c->cplx ? "NT" : "NTC";
    if ((c->uplo != 'U' && c->uplo != 'L') || !c->ta || !strchr(trans, c->ta) || c->n < 0 ||
        c->k < 0 || c->lda < max1(c->ta == 'N' ? c->n : c->k) || c->ldc < max1(c->n))
        return "argument error";
    return NULL;
}

static void scalar(int cplx, const double *p, double out[2])
{
    out[0] = p[0];
    out[1] = cplx ? p[1] : 0.0;
}

static void fill_gemm(shim_call *c, int cplx, char ta, char tb, int64_t m, int64_t n, int64_t k,
                      const double *alpha, const void *A, int64_t lda, const void *B,
                      int64_t ldb, const double *beta, void *C, int64_t ldc)
{
    c->kind = K_GEMM;
    c->cplx = cplx;
    c->ta = upper(ta);
    c->tb = upper(tb);
    c->uplo = 0;
    c->m = m, c->n = n, c->k = k;
    scalar(cplx, alpha, c->alpha);
    scalar(cplx, beta, c->beta);
    c->A = A, c->lda = lda, c->B = B, c->ldb = ldb, c->C = C, c->ldc = ldc;
}

static void fill_syrk(shim_call *c, int kind, int cplx, char uplo, char trans, int64_t n,
                      int64_t k, const double *alpha, const void *A, int64_t lda,
                      const double *beta, void *C, int64_t ldc)
{
    c->kind = kind;
    c->cplx = cplx;
    c->uplo = upper(uplo);
    c->ta = upper(trans);
    c->tb = 0;
    c->m = n, c->n = n, c->k = k;
    scalar(cplx && kind == K_SYRK, alpha, c->alpha);
    scalar(cplx && kind == K_SYRK, beta, c->beta);
    c->A = A, c->lda = lda, c->B = A, c->ldb = lda, c->C = C, c->ldc = ldc;
}

enum { CB_ROW = 101, CB_COL = 102, CB_N = 111, CB_T = 112, CB_C = 113, CB_UP = 121, CB_LO = 122 };

static char cb_trans(int t) { return t == CB_N ? 'N' : t == CB_T ? 'T' : t == CB_C ? 'C' : 0; }

/* CBLAS to the column-major form: a row-major C = op(A) op(B) is C^T = op(B)^T op(A)^T. */
static const char *cblas_gemm(shim_call *c, int cplx, int order, int ta, int tb, int64_t m,
                              int64_t n, int64_t k, const double *alpha, const void *A,
                              int64_t lda, const void *B, int64_t ldb, const double *beta,
                              void *C, int64_t ldc)
{
    if (order == CB_COL)
        fill_gemm(c, cplx, cb_trans(ta), cb_trans(tb), m, n, k, alpha, A, lda, B, ldb, beta, C,
                  ldc);
    else if (order == CB_ROW)
        fill_gemm(c, cplx, cb_trans(tb), cb_trans(ta), n, m, k, alpha, B, ldb, A, lda, beta, C,
                  ldc);
    else {
        memset(c, 0, sizeof *c);
        return "argument error";
    }
    return check_gemm(c);
}

/* Row-major SYRK/HERK: C^T is the column-major view, the other triangle of op'd A^T A
 * (HERK: C^T = conj(C) = A_cm^H A_cm). */
static const char *cblas_syrk(shim_call *c, int kind, int cplx, int order, int uplo, int trans,
                              int64_t n, int64_t k, const double *alpha, const void *A,
                              int64_t lda, const double *beta, void *C, int64_t ldc)
{
    char u = uplo == CB_UP ? 'U' : uplo == CB_LO ? 'L' : 0;
    char t = cb_trans(trans);
    if (order == CB_ROW) {
        u = u == 'U' ? 'L' : u == 'L' ? 'U' : 0;
        if (kind == K_HERK)
            t = t == 'N' ? 'C' : t == 'C' ? 'N' : 0;
        else if (cplx)
            t = t == 'N' ? 'T' : t == 'T' ? 'N' : 0;
        else
            t = t == 'N' ? 'T' : (t == 'T' || t == 'C') ? 'N' : 0;
    } else if (order != CB_COL)
        return "argument error";
    fill_syrk(c, kind, cplx, u, t, n, k, alpha, A, lda, beta, C, ldc);
    return check_syrk(c);
}

/* The product into the referenced triangle: W = alpha op(A) op(A)^T (or ^H) in a
 * workspace, then C = W + beta C on that triangle only; HERK zeroes the diagonal's
 * imaginary parts as BLAS does. */
static ozblas_status syrk_emulated(const shim_call *c, const ozblas_options *opt,
                                   ozblas_report *rep)
{
    int64_t n = c->n, w = c->cplx ? 2 : 1;
    double *W = malloc((size_t)(n * n * w) * sizeof *W);
    if (!W)
        return OZBLAS_ERR_ALLOCATION;
    char oth = c->kind == K_HERK ? 'C' : 'T';
    char ta = c->ta == 'N' ? 'N' : oth, tb = c->ta == 'N' ? oth : 'N';
    if (!c->cplx && ta != 'N')
        ta = 'T';
    double zero[2] = {0.0, 0.0};
    ozblas_status st =
        c->cplx ? ozblas_zgemm(S.ctx, ta, tb, n, n, c->k, c->alpha, c->A, c->lda, c->B, c->ldb,
                               zero, W, n, opt, rep)
                : ozblas_dgemm(S.ctx, ta, tb, n, n, c->k, c->alpha[0], c->A, c->lda, c->B,
                               c->ldb, 0.0, W, n, opt, rep);
    if (st != OZBLAS_OK) {
        free(W);
        return st;
    }
    int bz = c->beta[0] == 0.0 && c->beta[1] == 0.0;
    for (int64_t j = 0; j < n; j++) {
        int64_t i0 = c->uplo == 'U' ? 0 : j, i1 = c->uplo == 'U' ? j + 1 : n;
        for (int64_t i = i0; i < i1; i++) {
            const double *x = W + w * (i + j * n);
            double *y = c->C + w * (i + j * c->ldc);
            if (!c->cplx) {
                y[0] = bz ? x[0] : x[0] + c->beta[0] * y[0];
            } else if (bz) {
                y[0] = x[0];
                y[1] = x[1];
            } else {
                double re = c->beta[0] * y[0] - c->beta[1] * y[1];
                double im = c->beta[0] * y[1] + c->beta[1] * y[0];
                y[0] = x[0] + re;
                y[1] = x[1] + im;
            }
            if (c->kind == K_HERK && i == j)
                y[1] = 0.0;
        }
    }
    free(W);
    return OZBLAS_OK;
}

static const char REASON_MIN_SIZE[] = "below OZBLAS_MIN_SIZE";

/* Method auto: the policy (core/policy.c) on this machine's profile, with the executors the
 * settings allow (a usable GPU is asked for on the first such call, never at load). A call
 * whose fastest candidate is the host's own DGEMM passes through to the real routine; the
 * reason says whether the profile was calibrated or the built-in estimate. */
static const char REASON_AUTO_CAL[] = "auto chose native (calibrated profile)";
static const char REASON_AUTO_EST[] =
    "auto chose native (built-in estimate: not calibrated, run `ozblas calibrate`)";

static int auto_routes(const shim_call *c, shim_result *r)
{
    int mask = 0;
    if (S.opt.executor != OZBLAS_EXECUTOR_CUDA)
        mask |= 1 << OZBLAS_EXECUTOR_CPU;
    if (gpu_usable())
        mask |= 1 << OZBLAS_EXECUTOR_CUDA;
    if (!mask) {
        r->reason = "OZBLAS_DEVICE asks for a CUDA executor that is not usable";
        return 0;
    }
    ozblas_candidate ch;
    if (ozblas_policy_decide(NULL, c->cplx, c->m, c->n, c->k, 0, mask, &S.opt, &ch) == OZBLAS_OK &&
        !(ch.method == OZBLAS_METHOD_NATIVE && ch.executor == OZBLAS_EXECUTOR_CPU))
        return 1;
    r->reason = ozblas_policy_local(NULL, NULL, 0) == 1 ? REASON_AUTO_CAL : REASON_AUTO_EST;
    return 0;
}

/* The decision, and the emulated call. Returns 1 when the call is done (quick return or
 * routed), 0 when the real routine must run (r->reason says why). */
static int shim_handle(shim_call *c, const char *bad, shim_result *r)
{
    if (bad) {
        r->reason = bad;
        return 0;
    }
    int azero = c->alpha[0] == 0.0 && c->alpha[1] == 0.0;
    int bone = c->beta[0] == 1.0 && c->beta[1] == 0.0;
    if (c->m == 0 || c->n == 0 || ((azero || c->k == 0) && bone)) {
        r->route = R_QUICK;
        return 1;
    }
    if (S.env.disable) {
        r->reason = "OZBLAS_DISABLE=1";
        return 0;
    }
    if (S.bad) {
        r->reason = "bad OZBLAS_* setting";
        return 0;
    }
    if (S.opt.method == OZBLAS_METHOD_NATIVE) {
        r->reason = "OZBLAS_METHOD=native";
        return 0;
    }
    int64_t mn = c->m < c->n ? c->m : c->n;
    if (c->k < mn)
        mn = c->k;
    if (mn < S.env.min_size) {
        r->reason = REASON_MIN_SIZE; /* the value is added by the trace only: no formatting here */
        return 0;
    }
    if (azero || c->k == 0) {
        r->reason = "alpha or k zero";
        return 0;
    }
    if (S.opt.method == OZBLAS_METHOD_AUTO && !auto_routes(c, r))
        return 0;
    ozblas_status st;
    const ozblas_options *opt = &S.opt;
    memset(&r->rep, 0, sizeof r->rep);
    if (c->kind != K_GEMM)
        st = syrk_emulated(c, opt, &r->rep);
    else if (c->cplx)
        st = ozblas_zgemm(S.ctx, c->ta, c->tb, c->m, c->n, c->k, c->alpha, c->A, c->lda, c->B,
                          c->ldb, c->beta, c->C, c->ldc, opt, &r->rep);
    else
        st = ozblas_dgemm(S.ctx, c->ta, c->tb, c->m, c->n, c->k, c->alpha[0], c->A, c->lda,
                          c->B, c->ldb, c->beta[0], c->C, c->ldc, opt, &r->rep);
    if (st != OZBLAS_OK) {
        snprintf(r->buf, sizeof r->buf, "ozblas failed (%s)", ozblas_status_name(st));
        r->reason = r->buf;
        return 0;
    }
    r->route = R_OZBLAS;
    return 1;
}

static const char *method_name(int m)
{
    static const char *n[] = {"auto", "native", "ozaki1", "ozaki2"};
    return m >= 0 && m < 4 ? n[m] : "?";
}

static const char *executor_name(int e)
{
    static const char *n[] = {"auto", "cpu", "cuda"};
    return e >= 0 && e < 3 ? n[e] : "?";
}

/* One trace line per call, written with one write() (O_APPEND: lines of threads and
 * forked children do not interleave). */
static void shim_end(const oz_slot *s, const shim_call *c, const shim_result *r, double t0)
{
    if (S.trace_fd < 0)
        return;
    double dt = now() - t0;
    char line[512], why[128];
    int len;
    const char *reason = r->route == R_QUICK ? "quick return" : r->reason ? r->reason : "";
    if (reason == REASON_MIN_SIZE) {
        snprintf(why, sizeof why, "%s=%lld", REASON_MIN_SIZE, (long long)S.env.min_size);
        reason = why;
    }
    if (r->route == R_OZBLAS)
        len = snprintf(line, sizeof line,
                       "ozblas-trace pid=%d routine=%s symbol=%s m=%lld n=%lld k=%lld route=ozblas "
                       "method=%s moduli=%d slices=%d executor=%s seconds=%.3e fallback=\"%s\" "
                       "policy=%s\n",
                       (int)getpid(), s->routine, s->symbol, (long long)c->m, (long long)c->n,
                       (long long)c->k, method_name(r->rep.method), r->rep.moduli, r->rep.slices,
                       executor_name(r->rep.executor), dt, ozblas_fallback_name(r->rep.fallback),
                       S.opt.method != OZBLAS_METHOD_AUTO             ? "-"
                       : ozblas_policy_local(NULL, NULL, 0) == 1 ? "calibrated"
                                                                  : "estimate");
    else
        len = snprintf(line, sizeof line,
                       "ozblas-trace pid=%d routine=%s symbol=%s m=%lld n=%lld k=%lld route=%s "
                       "method=native moduli=0 slices=0 executor=host seconds=%.3e reason=\"%s\"\n",
                       (int)getpid(), s->routine, s->symbol, (long long)c->m, (long long)c->n,
                       (long long)c->k, r->route == R_QUICK ? "quick" : "native", dt, reason);
    if (len > (int)sizeof line - 1)
        len = (int)sizeof line - 1;
    ssize_t wr = write(S.trace_fd, line, (size_t)len);
    (void)wr;
}

/* ---- the exported entries ------------------------------------------------------------- */

/* Run the real routine with the caller's own arguments when the shim does not handle it. */
#define OZ_CALL(slot, c, bad, FN_T, ARGS)                     \
    shim_result r;                                            \
    double t0 = shim_begin(&r);                               \
    if (!shim_handle(&c, bad, &r)) {                          \
        FN_T f = (FN_T)shim_real(&slot);                      \
        if (f)                                                \
            f ARGS;                                           \
        else                                                  \
            r.reason = "real routine not found; C unchanged"; \
    }                                                         \
    shim_end(&slot, &c, &r, t0);

/* Fortran: every argument by reference, the character lengths appended (forwarded as
 * received: C callers that omit them pass whatever is there, which BLAS ignores). */
#define F77_GEMM(sym, T, CPLX, R)                                                               \
    OZ_EXPORT void sym(const char *ta, const char *tb, const T *m, const T *n, const T *k,     \
                       const double *alpha, const double *A, const T *lda, const double *B,   \
                       const T *ldb, const double *beta, double *C, const T *ldc, size_t lta, \
                       size_t ltb)                                                             \
    {                                                                                          \
        static oz_slot slot = {#sym, #R, K_GEMM, CPLX, NULL, 0};                               \
        typedef void (*fn_t)(const char *, const char *, const T *, const T *, const T *,      \
                             const double *, const double *, const T *, const double *,        \
                             const T *, const double *, double *, const T *, size_t, size_t);  \
        shim_call c;                                                                           \
        fill_gemm(&c, CPLX, *ta, *tb, *m, *n, *k, alpha, A, *lda, B, *ldb, beta, C, *ldc);     \
        const char *bad = check_gemm(&c);                                                      \
        OZ_CALL(slot, c, bad, fn_t, (ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, lta, ltb)) \
    }

#define F77_SYRK(sym, T, KIND, CPLX, R)                                                        \
    OZ_EXPORT void sym(const char *uplo, const char *trans, const T *n, const T *k,           \
                       const double *alpha, const double *A, const T *lda, const double *beta, \
                       double *C, const T *ldc, size_t lu, size_t lt)                          \
    {                                                                                          \
        static oz_slot slot = {#sym, #R, KIND, CPLX, NULL, 0};                                 \
        typedef void (*fn_t)(const char *, const char *, const T *, const T *, const double *, \
                             const double *, const T *, const double *, double *, const T *,   \
                             size_t, size_t);                                                  \
        shim_call c;                                                                           \
        fill_syrk(&c, KIND, CPLX, *uplo, *trans, *n, *k, alpha, A, *lda, beta, C, *ldc);       \
        const char *bad = check_syrk(&c);                                                      \
        OZ_CALL(slot, c, bad, fn_t, (uplo, trans, n, k, alpha, A, lda, beta, C, ldc, lu, lt))  \
    }

/* CBLAS scalars: double by value (DGEMM, DSYRK, ZHERK) or a pointer to (re, im). */
#define SC_T_val double
#define SC_P_val(x) ((const double[2]){(x), 0.0})
#define SC_T_ptr const void *
#define SC_P_ptr(x) ((const double *)(x))

#define CBLAS_GEMM(sym, T, CPLX, R, SC)                                                          \
    OZ_EXPORT void sym(int order, int ta, int tb, T m, T n, T k, SC_T_##SC alpha, const void *A, \
                       T lda, const void *B, T ldb, SC_T_##SC beta, void *C, T ldc)             \
    {                                                                                            \
        static oz_slot slot = {#sym, #R, K_GEMM, CPLX, NULL, 0};                                 \
        typedef void (*fn_t)(int, int, int, T, T, T, SC_T_##SC, const void *, T, const void *,   \
                             T, SC_T_##SC, void *, T);                                           \
        shim_call c;                                                                             \
        const char *bad = cblas_gemm(&c, CPLX, order, ta, tb, m, n, k, SC_P_##SC(alpha), A, lda, \
                                     B, ldb, SC_P_##SC(beta), C, ldc);                           \
        OZ_CALL(slot, c, bad, fn_t, (order, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)) \
    }

#define CBLAS_SYRK(sym, T, KIND, CPLX, R, SC)                                                    \
    OZ_EXPORT void sym(int order, int uplo, int trans, T n, T k, SC_T_##SC alpha, const void *A, \
                       T lda, SC_T_##SC beta, void *C, T ldc)                                   \
    {                                                                                            \
        static oz_slot slot = {#sym, #R, KIND, CPLX, NULL, 0};                                   \
        typedef void (*fn_t)(int, int, int, T, T, SC_T_##SC, const void *, T, SC_T_##SC, void *, \
                             T);                                                                 \
        shim_call c;                                                                             \
        const char *bad = cblas_syrk(&c, KIND, CPLX, order, uplo, trans, n, k, SC_P_##SC(alpha), \
                                     A, lda, SC_P_##SC(beta), C, ldc);                           \
        OZ_CALL(slot, c, bad, fn_t, (order, uplo, trans, n, k, alpha, A, lda, beta, C, ldc))     \
    }

/* Per routine: its Fortran and CBLAS entry shapes. */
#define OZ_DEF_F77_dgemm(sym, T) F77_GEMM(sym, T, 0, dgemm)
#define OZ_DEF_F77_zgemm(sym, T) F77_GEMM(sym, T, 1, zgemm)
#define OZ_DEF_F77_dsyrk(sym, T) F77_SYRK(sym, T, K_SYRK, 0, dsyrk)
#define OZ_DEF_F77_zsyrk(sym, T) F77_SYRK(sym, T, K_SYRK, 1, zsyrk)
#define OZ_DEF_F77_zherk(sym, T) F77_SYRK(sym, T, K_HERK, 1, zherk)
#define OZ_DEF_CBLAS_dgemm(sym, T) CBLAS_GEMM(sym, T, 0, dgemm, val)
#define OZ_DEF_CBLAS_zgemm(sym, T) CBLAS_GEMM(sym, T, 1, zgemm, ptr)
#define OZ_DEF_CBLAS_dsyrk(sym, T) CBLAS_SYRK(sym, T, K_SYRK, 0, dsyrk, val)
#define OZ_DEF_CBLAS_zsyrk(sym, T) CBLAS_SYRK(sym, T, K_SYRK, 1, zsyrk, ptr)
#define OZ_DEF_CBLAS_zherk(sym, T) CBLAS_SYRK(sym, T, K_HERK, 1, zherk, val)

#define OZ_DEFINE(r, sym, api, T) OZ_DEF_##api##_##r(sym, T)
#define OZ_DEFINE_ROUTINE(r, e) OZ_SHIM_VARIANTS(OZ_DEFINE, r)

OZ_SHIM_ROUTINES(OZ_DEFINE_ROUTINE)

/* The same table as strings, for `ozblas libpath --symbols` and the tests. */
#define OZ_NAME(r, sym, api, T) #sym,
#define OZ_NAME_ROUTINE(r, e) OZ_SHIM_VARIANTS(OZ_NAME, r)
static const char *const oz_shim_names[] = {OZ_SHIM_ROUTINES(OZ_NAME_ROUTINE) NULL};

OZ_EXPORT const char *ozblas_preload_symbol(int i)
{
    if (i < 0 || i >= (int)(sizeof oz_shim_names / sizeof oz_shim_names[0]) - 1)
        return NULL;
    return oz_shim_names[i];
}
