/* libozblas_preload.so: the preload shim for the host BLAS.
 *
 * Exports DGEMM, ZGEMM, DSYRK, ZSYRK and ZHERK under every name of shim_names.h. Each
 * entry: the netlib argument check (an error goes to the real routine, so the user sees
 * the real xerbla report), the netlib quick return, the routing decision (OZBLAS_DISABLE,
 * OZBLAS_METHOD, OZBLAS_MIN_SIZE), then ozblas_dgemm/ozblas_zgemm (which fall back to
 * native themselves where the inputs need it) or the real routine. SYRK/HERK run the LAPACK
 * layer's SYRK (oz_syrk_call: column strips of the triangle as products, the diagonal blocks
 * through a workspace of which only the referenced triangle of C is updated), traced as one
 * product with the strips' reports merged.
 *
 * The real routine is the first definition of the same name among the loaded objects
 * that is not an ozblas library (oz_find_real_symbol: a walk of dl_iterate_phdr, since
 * the wheels' OpenBLAS is loaded RTLD_LOCAL). Nothing is done at load time: the settings
 * are read, the trace opened and the GPU looked for on the first call (fork-safe).
 * Thread-safe: the settings are read once (ozblas_preload_configure, for ozblas.activate(),
 * may replace them), every call keeps its state on the stack.
 *
 * Every call is counted per routine and route (atomics; see ozblas_shim_stats in
 * ozblas.h), traced with OZBLAS_TRACE and summed up at exit with OZBLAS_SUMMARY=1.
 * The cuBLAS names are in shim_cublas.c; what both use is declared in shim_internal.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/oz_internal.h"
#include "shim_internal.h"

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

/* ---- call counters ---------------------------------------------------------------------- */

/* The routines' names: ozblas_routine_name (core/config.c), in the RI_* order. */
_Static_assert(RI_N <= OZ_ROUTINE_BITS, "OZBLAS_ROUTINES has a bit per routine");

#define OZ_REASON_TEXT(e, text) text,
static const char *const native_reasons[] = {OZ_NATIVE_REASONS(OZ_REASON_TEXT)};

/* The cells of one routine: the quick return, each native reason, each method x executor
 * that ozblas reports, each ozblas_fallback code (room for codes added later; a code
 * beyond it lands in the last cell, named by ozblas_fallback_name). */
enum { N_METHODS = 4, N_EXECUTORS = 3, N_ENGINES = 2, N_FALLBACKS = 16 };
enum {
    CELL_QUICK = 0,
    CELL_NATIVE = 1,
    CELL_ROUTED = CELL_NATIVE + N_COUNT,
    CELL_FALLBACK = CELL_ROUTED + N_METHODS * N_EXECUTORS * N_ENGINES,
    CELL_N = CELL_FALLBACK + N_FALLBACKS
};

typedef struct {
    uint64_t calls;
    double flops, seconds;
    uint64_t bound_bits; /* bits of the largest report bound + 1 (0: none): nonnegative
                            doubles order as their bit patterns, so atomic max works on them */
} oz_cell;
static oz_cell cells[RI_N][CELL_N];

static void add_double(double *p, double v)
{
    double old, sum;
    __atomic_load(p, &old, __ATOMIC_RELAXED);
    do
        sum = old + v;
    while (!__atomic_compare_exchange(p, &old, &sum, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

/* fork(): the parent's CUDA context must not be touched in the child, so a child whose
 * parent asked for the GPU stays off it (method auto then passes through). The CPU
 * executor limits itself to one thread in such children (libgomp's pool does not survive
 * fork). The counters start from zero: they describe this process only. */
static void atfork_child(void)
{
    if (S.gpu >= 0) {
        S.gpu = 0;
        S.opt.executor = OZBLAS_EXECUTOR_CPU;
    }
    memset(cells, 0, sizeof cells);
}

/* Registers the fork handler only: no settings, no CUDA, nothing else at load. */
__attribute__((constructor)) static void shim_load(void)
{
    pthread_atfork(NULL, NULL, atfork_child);
}

/* The descriptor for a log setting's value (var: OZBLAS_TRACE, OZBLAS_SUMMARY_FILE; what:
 * what is then not written), appended to; "-": stderr; -1 for none. "%r" in the path is
 * the launcher's rank (or the process id), so that each rank writes its own file. Opened
 * non-blocking: a FIFO without a reader (ENXIO) disables the log with one warning instead of
 * hanging the first BLAS call (or the exit); a FIFO's full pipe drops lines, never waits. */
static int open_log(const char *var, const char *value, const char *what)
{
    if (!value[0])
        return -1;
    if (!strcmp(value, "-"))
        return 2;
    char path[2048];
    if (!oz_expand_rank(value, path, sizeof path)) {
        fprintf(stderr, "ozblas (preload): %s=%s is too long with %%r expanded; no %s\n", var,
                value, what);
        return -1;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0644);
    if (fd < 0)
        fprintf(stderr, "ozblas (preload): %s=%s: %s cannot be opened (%s); no %s\n", var, value,
                path, errno == ENXIO ? "a FIFO without a reader" : strerror(errno), what);
    return fd;
}

static int open_trace(const char *trace) { return open_log("OZBLAS_TRACE", trace, "trace"); }

/* Trace writes in flight: a replaced descriptor is closed once none of them may still
 * write to it (shim_end counts itself in before it reads S.trace_fd). */
static int trace_writers;

static void replace_trace(int fd)
{
    int old = __atomic_exchange_n(&S.trace_fd, fd, __ATOMIC_SEQ_CST);
    if (old <= 2)
        return;
    while (__atomic_load_n(&trace_writers, __ATOMIC_SEQ_CST))
        sched_yield();
    close(old);
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
    S.trace_fd = open_trace(S.env.trace);
    if (ozblas_context_create(&S.ctx) != OZBLAS_OK)
        S.ctx = NULL;
}

/* In-process activation (ozblas.activate(), ozblas/activation.py): the settings of the
 * routed calls come from the caller (opt, min_size, disable, trace, routines, validated by
 * ozblas/config.py) or, with opt NULL, from the environment again. The environment is
 * read first all the same (init_state), as in a preloaded process. Fields are stored one
 * by one: a call running meanwhile in another thread may see some old and some new ones,
 * each a valid setting. A previous trace descriptor is closed once no call writes to it,
 * so activating again and again holds no more than one. */
OZ_EXPORT int ozblas_preload_configure(const ozblas_options *opt, int64_t min_size, int disable,
                                       const char *trace, const char *routines)
{
    char err[512];
    ozblas_options o;
    oz_shim_env e;
    int bad = 0;
    pthread_once(&S_once, init_state);
    pthread_mutex_lock(&gpu_lock);
    ozblas_options_init(&o);
    oz_shim_env_init(&e);
    if (!opt)
        bad = oz_shim_env_from_env(&e, err, sizeof err) != OZBLAS_OK ||
              ozblas_options_from_env(&o, err, sizeof err) != OZBLAS_OK;
    else {
        o = *opt;
        o.stream = NULL;
        e = S.env; /* the settings not given here (OZBLAS_SUMMARY) stay as they are */
        e.min_size = min_size;
        e.disable = disable;
        snprintf(e.trace, sizeof e.trace, "%s", trace ? trace : "");
        ozblas_setting s;
        memset(&s, 0, sizeof s);
        bad = ozblas_config_parse("OZBLAS_ROUTINES", routines, routines ? strlen(routines) : 0,
                                  NULL, &s, err, sizeof err) != OZBLAS_OK;
        memcpy(e.native_routines, s.native_routines, sizeof s.native_routines);
    }
    if (strcmp(e.trace, S.env.trace))
        replace_trace(open_trace(e.trace));
    S.opt = o;
    S.env = e;
    S.bad = bad;
    S.gpu = -1; /* the executor may have changed: ask again */
    pthread_mutex_unlock(&gpu_lock);
    return bad ? OZBLAS_ERR_INVALID_ARGUMENT : OZBLAS_OK;
}

const ozblas_options *shim_options(void) { return &S.opt; }
ozblas_context *shim_context(void) { return S.ctx; }

/* Method auto routes only where ozblas's auto rule would emulate: a usable CUDA executor.
 * Asked on the first call that needs it, never at load. */
int gpu_usable(void)
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

double shim_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

void *shim_real(oz_slot *s)
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

/* The start time, or -1 for a call that is counted but not timed: one below
 * OZBLAS_MIN_SIZE, when no trace is written. Two clock reads would cost more than passing
 * such a call through (see benchmarks/shim_overhead.py). */
double shim_begin(shim_result *r, const shim_call *c)
{
    pthread_once(&S_once, init_state);
    r->route = R_NATIVE;
    r->why = N_ARGUMENT;
    r->zero = 0;
    r->held = 0;
    int64_t mn = c->m < c->n ? c->m : c->n;
    if (c->k < mn)
        mn = c->k;
    return __atomic_load_n(&S.trace_fd, __ATOMIC_RELAXED) >= 0 || mn >= S.env.min_size
               ? shim_now()
               : -1.0;
}

/* The calls of this thread inside the real routine of a routine OZBLAS_ROUTINES leaves
 * native (the host's dgesdd calls its dgebrd and dgemm through our names): native as well,
 * so that such a routine gives native's result, all of it. Counted up where shim_decide
 * sends a call to the real routine for OZBLAS_ROUTINES (r->held), down when that call is
 * counted (shim_count, after the real routine returned). */
static __thread int left_native_depth;

/* gpu_usable for the dispatch decision, which asks it only under method auto. */
static int gpu_usable_ctx(const void *ctx)
{
    (void)ctx;
    return gpu_usable();
}

/* The dispatch decision (core/dispatch.c) with the shim's gate (OZBLAS_ROUTINES on the
 * call's routine: every entry, host or cuBLAS, BLAS or LAPACK, asks here). Method auto: the
 * policy (core/policy_model.c) on this machine's profile, among the executors that may compete
 * (ozblas_policy_executors; a usable GPU is asked for on the first such call, never at
 * load); its choice goes into r, and the C API runs exactly it. A call whose fastest
 * candidate is native (the host's BLAS, or cuBLAS for device data) passes through to the
 * real routine; the reason says whether the profile was calibrated or the built-in
 * estimate. BLAS's C := beta C (A and B not referenced) is ozblas's on the host whatever
 * the size and method: a host kernel that multiplies anyway would turn NaN or Inf in A or
 * B into NaN in C (docs/accuracy.md, "Special values"); cuBLAS reads neither (N_ZERO). */
int shim_decide(const shim_call *c, const char *bad, shim_result *r)
{
    static const int why[] = {
        [OZ_WHY_DISABLED] = N_DISABLED,         [OZ_WHY_BAD_SETTING] = N_BAD_SETTING,
        [OZ_WHY_METHOD_NATIVE] = N_METHOD_NATIVE, [OZ_WHY_MIN_SIZE] = N_MIN_SIZE,
        [OZ_WHY_ZERO] = N_ZERO,                 [OZ_WHY_AUTO_DEVICE] = N_AUTO_DEVICE,
        [OZ_WHY_ROUTINES] = N_ROUTINES,
    };
    if (bad) {
        r->why = N_ARGUMENT;
        return 0;
    }
    const oz_dispatch_in in = {c->cplx, c->m, c->n, c->k, c->alpha, c->beta, c->on_device,
                               gpu_usable_ctx, NULL, c->update, 0, S.env.min_size,
                               S.env.disable, S.bad,
                               left_native_depth > 0 ||
                                   oz_routine_native(S.env.native_routines, c->routine)};
    oz_dispatch d;
    oz_dispatch_decide(&in, &S.opt, &d);
    switch (d.route) {
    case OZ_ROUTE_QUICK:
        r->route = R_QUICK;
        return 0;
    case OZ_ROUTE_NATIVE:
        r->why = d.why != OZ_WHY_AUTO_NATIVE        ? why[d.why]
                 : ozblas_policy_local(NULL, NULL, 0) == 1 ? N_AUTO_CAL
                                                           : N_AUTO_EST;
        r->held = r->why == N_ROUTINES;
        left_native_depth += r->held;
        return 0;
    case OZ_ROUTE_SCALE: /* method as set, on the host */
        r->zero = 1;
        r->method = S.opt.method;
        r->executor = OZBLAS_EXECUTOR_CPU;
        return 1;
    default: /* emulated or exact: the settings' method and executor, or auto's choice */
        r->method = d.method;
        r->executor = d.executor;
        return 1;
    }
}

/* The decision, and the emulated call. Returns 1 when the call is done (quick return or
 * routed), 0 when the real routine must run (r->why says why). */
int shim_handle(shim_call *c, const char *bad, shim_result *r)
{
    if (!shim_decide(c, bad, r))
        return r->route == R_QUICK;
    ozblas_status st;
    ozblas_options o = S.opt;
    o.device = ozblas_device_for(&S.opt); /* before auto's executor becomes a concrete one */
    o.method = r->method;
    o.executor = r->executor;
    if (r->zero)
        o.devices = 0; /* host memory, C := beta C: on the CPU executor */
    const ozblas_options *opt = &o;
    memset(&r->rep, 0, sizeof r->rep);
    if (c->kind != K_GEMM) /* SYRK/HERK: the LAPACK layer's code, the one of the library */
        st = oz_syrk_call(S.ctx, c->cplx, c->kind == K_HERK, c->uplo, c->ta, c->n, c->k,
                          c->alpha, c->A, c->lda, c->beta, c->C, c->ldc, opt, &r->rep);
    else if (c->cplx)
        st = ozblas_zgemm(S.ctx, c->ta, c->tb, c->m, c->n, c->k, c->alpha, c->A, c->lda, c->B,
                          c->ldb, c->beta, c->C, c->ldc, opt, &r->rep);
    else
        st = ozblas_dgemm(S.ctx, c->ta, c->tb, c->m, c->n, c->k, c->alpha[0], c->A, c->lda,
                          c->B, c->ldb, c->beta[0], c->C, c->ldc, opt, &r->rep);
    if (st != OZBLAS_OK) {
        r->why = N_FAILED;
        r->st = st;
        return 0;
    }
    r->route = r->zero ? R_QUICK : R_OZBLAS;
    return 1;
}

const char *shim_method_name(int m)
{
    static const char *n[] = {"auto", "native", "ozaki1", "ozaki2"};
    return m >= 0 && m < 4 ? n[m] : "?";
}

const char *shim_executor_name(int e)
{
    static const char *n[] = {"auto", "cpu", "cuda"};
    return e >= 0 && e < 3 ? n[e] : "?";
}

static int cell_of(const shim_result *r)
{
    if (r->route == R_QUICK)
        return CELL_QUICK;
    if (r->route == R_NATIVE)
        return CELL_NATIVE + r->why;
    if (r->rep.fallback != OZBLAS_FALLBACK_NONE) {
        int f = r->rep.fallback;
        return CELL_FALLBACK + (f > 0 && f < N_FALLBACKS ? f : N_FALLBACKS - 1);
    }
    int m = r->rep.method, e = r->rep.executor, g = r->rep.engine;
    if (m < 0 || m >= N_METHODS || e < 0 || e >= N_EXECUTORS || g < 0 || g >= N_ENGINES)
        m = 0, e = 0, g = 0; /* not reported by ozblas: shown as auto/auto */
    return CELL_ROUTED + (m * N_EXECUTORS + e) * N_ENGINES + g;
}

/* Nominal flops of the BLAS operation (what a FLOPS figure is quoted against), whatever
 * the route; SYRK/HERK compute one triangle; a strided-batched cuBLAS call, batch products. */
static double flops_of(const shim_call *c, const shim_result *r)
{
    if (r->route == R_QUICK || (r->route == R_NATIVE && r->why == N_ARGUMENT) || c->m < 0 ||
        c->n < 0 || c->k < 0)
        return 0.0;
    if (c->kind == K_LAPACK)
        return c->flops;
    double m = (double)c->m, n = (double)c->n, k = (double)c->k, f = c->cplx ? 4.0 : 1.0;
    return (double)c->batch * (c->kind == K_GEMM ? 2.0 * f * m * n * k : f * n * (n + 1.0) * k);
}

void shim_count(const oz_slot *s, const shim_call *c, const shim_result *r, double dt)
{
    oz_cell *x = &cells[s->index][cell_of(r)];
    left_native_depth -= r->held;
    __atomic_fetch_add(&x->calls, 1, __ATOMIC_RELAXED);
    add_double(&x->flops, flops_of(c, r));
    if (dt > 0.0)
        add_double(&x->seconds, dt);
    if (r->route == R_OZBLAS && r->rep.bound >= 0.0) {
        double b = r->rep.bound;
        uint64_t bits, old = __atomic_load_n(&x->bound_bits, __ATOMIC_RELAXED);
        memcpy(&bits, &b, sizeof bits);
        bits += 1;
        while (bits > old &&
               !__atomic_compare_exchange_n(&x->bound_bits, &old, bits, 1, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED))
            ;
    }
}

const char *shim_reason(const shim_result *r, char *buf, size_t len)
{
    if (r->route == R_QUICK)
        return r->zero ? "alpha or k zero: C := beta C by ozblas" : "quick return";
    if (r->why == N_MIN_SIZE)
        snprintf(buf, len, "%s=%lld", native_reasons[N_MIN_SIZE], (long long)S.env.min_size);
    else if (r->why == N_FAILED)
        snprintf(buf, len, "%s (%s)", native_reasons[N_FAILED], ozblas_status_name(r->st));
    else
        return native_reasons[r->why];
    return buf;
}

int shim_trace_line(const char *line, int len)
{
    if (!line)
        return __atomic_load_n(&S.trace_fd, __ATOMIC_RELAXED) >= 0;
    __atomic_add_fetch(&trace_writers, 1, __ATOMIC_SEQ_CST);
    int fd = __atomic_load_n(&S.trace_fd, __ATOMIC_SEQ_CST);
    if (fd >= 0) {
        ssize_t wr = write(fd, line, (size_t)len);
        (void)wr;
    }
    __atomic_sub_fetch(&trace_writers, 1, __ATOMIC_SEQ_CST);
    return fd >= 0;
}

/* Counts the call; with OZBLAS_TRACE, one trace line per call, written with one write()
 * (O_APPEND: lines of threads and forked children do not interleave). */
void shim_end(const oz_slot *s, const shim_call *c, const shim_result *r, double t0)
{
    double dt = t0 >= 0.0 ? shim_now() - t0 : 0.0;
    shim_count(s, c, r, dt);
    if (__atomic_load_n(&S.trace_fd, __ATOMIC_RELAXED) < 0)
        return;
    char line[768];
    int len;
    if (r->route == R_OZBLAS) {
        int fb = r->rep.fallback != OZBLAS_FALLBACK_NONE;
        /* an engine refused on this device: the reason (e.g. the FP4 probe's) */
        char fbw[320] = "";
        if (r->rep.fallback == OZBLAS_FALLBACK_ENGINE) {
            char why[256];
            ozblas_engine_available(r->rep.executor, r->rep.engine, S.opt.device, why, sizeof why);
            snprintf(fbw, sizeof fbw, "%s: %s", ozblas_fallback_name(r->rep.fallback), why);
        }
        len = snprintf(line, sizeof line,
                       "ozblas-trace pid=%d routine=%s symbol=%s m=%lld n=%lld k=%lld route=%s "
                       "method=%s moduli=%d slices=%d bound=%.2e executor=%s seconds=%.3e "
                       "fallback=\"%s\" policy=%s accuracy=%s direct=%lld engine=%s "
                       "engine_products=%d split_parts=%d\n",
                       (int)getpid(), s->routine, s->symbol, (long long)c->m, (long long)c->n,
                       (long long)c->k, fb ? "fallback" : "ozblas", shim_method_name(r->rep.method),
                       r->rep.moduli, r->rep.slices, r->rep.bound,
                       fb ? (r->rep.executor == OZBLAS_EXECUTOR_CUDA ? "cublas" : "host")
                          : shim_executor_name(r->rep.executor),
                       dt, fbw[0] ? fbw : ozblas_fallback_name(r->rep.fallback),
                       S.opt.method != OZBLAS_METHOD_AUTO            ? "-"
                       : ozblas_policy_local(NULL, NULL, 0) == 1 ? "calibrated"
                                                                  : "estimate",
                       r->rep.accuracy == OZBLAS_ACCURACY_CORRECT ? "correct" : "dgemm",
                       (long long)r->rep.direct_entries,
                       r->rep.engine == OZBLAS_ENGINE_FP4 ? "fp4" : "int8",
                       r->rep.engine_products, r->rep.split_parts);
    } else {
        char why[160];
        const char *reason = shim_reason(r, why, sizeof why);
        len = snprintf(line, sizeof line,
                       "ozblas-trace pid=%d routine=%s symbol=%s m=%lld n=%lld k=%lld route=%s "
                       "method=native moduli=0 slices=0 bound=-1 executor=%s seconds=%.3e "
                       "reason=\"%s\"\n",
                       (int)getpid(), s->routine, s->symbol, (long long)c->m, (long long)c->n,
                       (long long)c->k, r->route == R_QUICK ? "quick" : "native",
                       s->device ? "cublas" : "host", dt, reason);
    }
    if (len > (int)sizeof line - 1)
        len = (int)sizeof line - 1;
    shim_trace_line(line, len);
}

/* ---- counters out: ozblas_shim_stats and the summary at exit ------------------------------ */

/* ozblas's "method/executor" for the routed cells, in the enums' order, with "/fp4" for
 * the products on the FP4 engine. */
static const char *const routed_names[N_METHODS][N_EXECUTORS][N_ENGINES] = {
    {{"auto/auto", "auto/auto/fp4"}, {"auto/cpu", "auto/cpu/fp4"}, {"auto/cuda", "auto/cuda/fp4"}},
    {{"native/auto", "native/auto/fp4"}, {"native/cpu", "native/cpu/fp4"},
     {"native/cuda", "native/cuda/fp4"}},
    {{"ozaki1/auto", "ozaki1/auto/fp4"}, {"ozaki1/cpu", "ozaki1/cpu/fp4"},
     {"ozaki1/cuda", "ozaki1/cuda/fp4"}},
    {{"ozaki2/auto", "ozaki2/auto/fp4"}, {"ozaki2/cpu", "ozaki2/cpu/fp4"},
     {"ozaki2/cuda", "ozaki2/cuda/fp4"}}};

/* The route ("ozblas", "fallback", "native", "quick") and detail of a cell. */
static const char *cell_names(int cell, const char **detail)
{
    if (cell == CELL_QUICK) {
        *detail = "quick return";
        return "quick";
    }
    if (cell < CELL_ROUTED) {
        *detail = native_reasons[cell - CELL_NATIVE];
        return "native";
    }
    if (cell < CELL_FALLBACK) {
        int i = cell - CELL_ROUTED, g = i % N_ENGINES;
        i /= N_ENGINES;
        *detail = routed_names[i / N_EXECUTORS][i % N_EXECUTORS][g];
        return "ozblas";
    }
    *detail = ozblas_fallback_name(cell - CELL_FALLBACK);
    return "fallback";
}

OZ_EXPORT int ozblas_shim_stats(ozblas_shim_stat *out, int cap)
{
    int n = 0;
    for (int ri = 0; ri < RI_N; ri++)
        for (int j = 0; j < CELL_N; j++) {
            oz_cell *x = &cells[ri][j];
            uint64_t calls = __atomic_load_n(&x->calls, __ATOMIC_RELAXED);
            if (!calls)
                continue;
            if (out && n < cap) {
                ozblas_shim_stat *o = &out[n];
                o->routine = ozblas_routine_name(ri);
                o->route = cell_names(j, &o->detail);
                o->calls = calls;
                __atomic_load(&x->flops, &o->flops, __ATOMIC_RELAXED);
                __atomic_load(&x->seconds, &o->seconds, __ATOMIC_RELAXED);
                uint64_t bb = __atomic_load_n(&x->bound_bits, __ATOMIC_RELAXED);
                o->max_bound = -1.0;
                if (bb) {
                    bb -= 1;
                    memcpy(&o->max_bound, &bb, sizeof bb);
                }
            }
            n++;
        }
    return n;
}

/* OZBLAS_SUMMARY=1: the table on stderr or in OZBLAS_SUMMARY_FILE (opened as the trace is)
 * when the process exits (or the library is unloaded). Only a process that made BLAS calls
 * writes one, so that the commands a script starts (which inherit LD_PRELOAD) stay quiet. */
__attribute__((destructor)) static void shim_unload(void)
{
    if (!S.env.summary)
        return;
    uint64_t total = 0, emulated = 0, fell_back = 0, quick = 0;
    double secs = 0.0;
    for (int ri = 0; ri < RI_N; ri++)
        for (int j = 0; j < CELL_N; j++) {
            uint64_t calls = cells[ri][j].calls;
            total += calls;
            emulated += j >= CELL_ROUTED && j < CELL_FALLBACK ? calls : 0;
            fell_back += j >= CELL_FALLBACK ? calls : 0;
            quick += j == CELL_QUICK ? calls : 0;
            secs += cells[ri][j].seconds;
        }
    if (!total)
        return;
    const int fd = S.env.summary_file[0] ? open_log("OZBLAS_SUMMARY_FILE", S.env.summary_file,
                                                    "summary")
                                         : 2;
    if (fd < 0)
        return;
    dprintf(fd,
            "ozblas summary (pid %d): %llu BLAS calls, %.3f s: %llu emulated, %llu fell back "
            "inside ozblas, %llu passed to the real BLAS, %llu quick returns\n",
            (int)getpid(), (unsigned long long)total, secs, (unsigned long long)emulated,
            (unsigned long long)fell_back, (unsigned long long)(total - emulated - fell_back - quick),
            (unsigned long long)quick);
    dprintf(fd, "  %-7s %-8s %10s %12s %10s  %s\n", "routine", "route", "calls", "GFLOP", "seconds",
            "detail");
    for (int ri = 0; ri < RI_N; ri++)
        for (int j = 0; j < CELL_N; j++) {
            const oz_cell *x = &cells[ri][j];
            if (!x->calls)
                continue;
            const char *detail, *route = cell_names(j, &detail);
            dprintf(fd, "  %-7s %-8s %10llu %12.3f %10.3f  %s\n", ozblas_routine_name(ri), route,
                    (unsigned long long)x->calls, x->flops * 1e-9, x->seconds, detail);
        }
    if (fd > 2)
        close(fd);
}
