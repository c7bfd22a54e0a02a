/* The public entry points and the dispatcher: argument checks, BLAS quick returns, method
 * and executor choice (method auto asks the policy once), the scheme drivers, the fallbacks
 * to native and to the host's executor, the call report. One body serves DGEMM and ZGEMM. */
#include <ctype.h>
#include <fenv.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phase_kernels.h"


struct ozblas_context {
    int reserved; /* executors cache per thread and device; the handle lets later versions
                     keep state here without changing the API */
};


ozblas_status ozblas_context_create(ozblas_context **ctx)
{
    if (!ctx)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    *ctx = oz_calloc(1, sizeof **ctx);
    return *ctx ? OZBLAS_OK : OZBLAS_ERR_ALLOCATION;
}

void ozblas_context_destroy(ozblas_context *ctx) { free(ctx); }

int ozblas_ozaki2_max_moduli(void) { return OZ2_MAX_MODULI_INT8; }
int ozblas_ozaki2_modulus(int index) { return oz2_modulus(OZBLAS_ENGINE_INT8, index); }
int ozblas_ozaki2_budget_bits(int n) { return ozblas_ozaki2_engine_budget_bits(OZBLAS_ENGINE_INT8, n); }
int ozblas_ozaki2_engine_max_moduli(int engine) { return oz2_max_moduli(engine); }
int ozblas_ozaki2_engine_auto_hint(int engine) { return oz2_auto_hint(engine); }
int ozblas_ozaki2_engine_modulus(int engine, int index) { return oz2_modulus(engine, index); }
int ozblas_ozaki2_engine_limbs(int engine, int index)
{
    const oz2_table *T = oz2_table_get(engine, oz2_max_moduli(engine));
    return T && index >= 0 && index < T->n ? T->digits[index] : -1;
}
int ozblas_ozaki2_complex_modulus(int index)
{
    const oz2_table *T = oz2_cx_table(OZ2_MAX_MODULI_CX);
    return index >= 0 && index < T->n ? T->mi[index] : 0;
}
int ozblas_ozaki2_complex_budget_bits(int count)
{
    const oz2_table *T = oz2_cx_table(count);
    return T ? T->budget : -1;
}
int ozblas_ozaki2_complex_count(int engine, int n)
{
    const oz2_table *T = oz2_table_call(engine, 1, n);
    return T && T->cx2 ? T->n : 0;
}
int ozblas_ozaki2_engine_budget_bits(int engine, int n)
{
    const oz2_table *T = oz2_table_get(engine, n);
    return T ? T->budget : -1;
}

/* C := beta * C (host memory) for k == 0 or alpha == 0; beta == 0 writes zeros. */
static void scale_c(const oz_gemm_call *c)
{
    for (int64_t j = 0; j < c->n; j++)
        for (int64_t i = 0; i < c->m; i++)
            oz_scale_element(c->C + (c->is_complex ? 2 : 1) * (i + j * c->ldc), c->is_complex,
                             c->beta, c->beta_zero);
}

static ozblas_status gemm_body(ozblas_context *ctx, oz_gemm_call *c,
                               const ozblas_options *opt_in, ozblas_report *rep_out);

/* The executor whose memory the operands are in (NULL: host memory). */
static const oz_executor *owner(const oz_gemm_call *c)
{
    const oz_executor *e = oz_memory_owner(c->A);
    e = e ? e : oz_memory_owner(c->B);
    return e ? e : oz_memory_owner(c->C);
}

static int on_device(const oz_gemm_call *c) { return owner(c) != NULL; }

/* Floating-point exception flags: an emulated product raises flags inside its own steps
 * (scaling, CRT, the CUDA runtime's host code) that say nothing about the result, and
 * callers such as NumPy turn raised flags into warnings. So they are discarded, unless the
 * call was computed natively, whose flags are the caller's to see. */
static ozblas_status gemm(ozblas_context *ctx, oz_gemm_call *c, const ozblas_options *opt_in,
                          ozblas_report *rep_out)
{
    fenv_t env;
    feholdexcept(&env);
    ozblas_report rep;
    memset(&rep, 0, sizeof rep);
    ozblas_status st = gemm_body(ctx, c, opt_in, &rep);
    if (st == OZBLAS_OK && rep.method == OZBLAS_METHOD_NATIVE)
        feupdateenv(&env);
    else
        fesetenv(&env);
    if (rep_out)
        *rep_out = rep;
    return st;
}

/* A device list (cuda:all, cuda:0,2,3) spreads a call with host operands over those devices
 * (cuda/cuda_multi.cu); device operands stay on the first listed device, as with cuda:N. */
static const oz_executor *spread(const oz_executor *ex, const oz_gemm_call *c,
                                 const ozblas_options *opt)
{
    const oz_executor *multi = ex && ex->spread && opt->devices && !on_device(c) ? ex->spread()
                                                                                 : NULL;
    return multi ? multi : ex;
}

/* One device ran the call (several: set by the tiles). */
static void mark_device(const oz_executor *ex, const ozblas_options *opt, ozblas_report *rep)
{
    if (ex->owns && rep->executor == ex->id && !rep->devices_used &&
        opt->device <= OZ_MAX_DEVICE_LIST)
        rep->devices_used = 1ULL << opt->device;
}

/* The emulated call on ex, by the scheme's driver. An executor short of device memory
 * hands the call back: with host operands it runs on the host's executor instead. */
static ozblas_status emulate(const oz_executor **ex, int method, const oz_gemm_call *c,
                             const ozblas_options *opt, ozblas_report *rep)
{
    ozblas_report start = *rep;
    ozblas_status st = method == OZBLAS_METHOD_OZAKI2 ? oz_ozaki2(*ex, c, opt, rep)
                                                      : oz_ozaki1(*ex, c, opt, rep);
    if (st == OZBLAS_OK && rep->fallback == OZBLAS_FALLBACK_NONE)
        mark_device(*ex, opt, rep);
    if (st != OZ_ERR_DEVICE_MEMORY)
        return st;
    if (on_device(c))
        return OZBLAS_ERR_DEVICE;
    *ex = oz_executor_get(OZ_HOST_EXECUTOR);
    *rep = start;
    rep->executor = (*ex)->id;
    return method == OZBLAS_METHOD_OZAKI2 ? oz_ozaki2(*ex, c, opt, rep)
                                          : oz_ozaki1(*ex, c, opt, rep);
}

/* The native call on ex; as emulate() when ex is short of device memory. */
static ozblas_status native(const oz_executor *ex, const oz_gemm_call *c,
                            const ozblas_options *opt, ozblas_report *rep)
{
    ozblas_status st = ex->native(c, opt);
    if (st == OZBLAS_OK)
        mark_device(ex, opt, rep);
    if (st != OZ_ERR_DEVICE_MEMORY)
        return st;
    if (on_device(c))
        return OZBLAS_ERR_DEVICE;
    const oz_executor *host = oz_executor_get(OZ_HOST_EXECUTOR);
    rep->executor = host->id;
    return host->native(c, opt);
}

/* gemm_route's executor is a device executor, usable (its availability was checked). */
static int usable(const void *ctx)
{
    (void)ctx;
    return 1;
}

/* What a checked call does next (gemm_route). */
enum { GO_DONE, GO_SCALE, GO_SCALE_DEVICE, GO_NATIVE, GO_EXACT, GO_EMULATE };

/* A call's route, decided before anything is computed: its arguments and options checked
 * (*st: OZBLAS_ERR_INVALID_ARGUMENT or OZBLAS_ERR_EXECUTOR_UNAVAILABLE, with GO_DONE), opt
 * completed from opt_in, the executor (*ex) and, for GO_EMULATE, the method (*method);
 * rep started. GO_DONE without an error is a BLAS quick return. */
static int gemm_route(oz_gemm_call *c, const ozblas_options *opt_in, ozblas_options *opt,
                      ozblas_report *rep, const oz_executor **ex, int *method, ozblas_status *st)
{
    memset(rep, 0, sizeof *rep);
    rep->bound = -1.0;
    if (opt_in)
        *opt = *opt_in;
    else
        ozblas_options_init(opt);
    *st = OZBLAS_ERR_INVALID_ARGUMENT;

    c->transa = (char)toupper((unsigned char)c->transa);
    c->transb = (char)toupper((unsigned char)c->transb);
    if (!strchr("NTC", c->transa) || !c->transa || !strchr("NTC", c->transb) || !c->transb ||
        c->m < 0 || c->n < 0 || c->k < 0)
        return GO_DONE;
    int64_t rows_a = c->transa == 'N' ? c->m : c->k, rows_b = c->transb == 'N' ? c->k : c->n;
    if (c->lda < (rows_a > 1 ? rows_a : 1) || c->ldb < (rows_b > 1 ? rows_b : 1) ||
        c->ldc < (c->m > 1 ? c->m : 1))
        return GO_DONE;
    if (!oz_options_valid(opt)) /* config.c's table of settings and their ranges */
        return GO_DONE;
    if (ozblas_options_conflict(opt, NULL, 0) != OZBLAS_OK)
        return GO_DONE;
    rep->accuracy = opt->accuracy;

    opt->device = ozblas_device_for(opt); /* executor auto: the launcher's local rank's GPU */
    const oz_executor *mem = owner(c);
    *ex = oz_executor_for(opt, opt->accuracy == OZBLAS_ACCURACY_CORRECT, mem);
    if (opt->executor != OZBLAS_EXECUTOR_AUTO) {
        if (!*ex || !(*ex)->available(NULL, 0)) {
            *st = OZBLAS_ERR_EXECUTOR_UNAVAILABLE;
            return GO_DONE;
        }
        if (opt->devices && (*ex)->devices_check && !(*ex)->devices_check(opt, NULL, 0))
            return GO_DONE; /* a listed device missing */
    }
    *st = OZBLAS_OK;
    *ex = spread(*ex, c, opt);
    rep->executor = (*ex)->id;
    rep->method = OZBLAS_METHOD_NATIVE;
    c->beta_zero = c->beta[0] == 0.0 && c->beta[1] == 0.0;

    const int device = (*ex)->owns != NULL, dev = device && mem;
    const oz_dispatch_in in = {c->is_complex, c->m, c->n, c->k, c->alpha, c->beta, dev,
                               device ? usable : NULL, NULL, 1, 1, 0, 0, 0};
    oz_dispatch d;
    oz_dispatch_decide(&in, opt, &d);
    switch (d.route) {
    case OZ_ROUTE_QUICK:
        return GO_DONE;
    case OZ_ROUTE_SCALE: /* in device memory by the same element function */
        return (*ex)->owns && (*ex)->owns(c->C) ? GO_SCALE_DEVICE : GO_SCALE;
    case OZ_ROUTE_EXACT:
        rep->bound = 0x1p-53; /* one rounding: |C^ - P| <= u |P| (below 2^-1022: half an ulp) */
        return GO_EXACT;
    default:
        break;
    }
    *method = d.route == OZ_ROUTE_EMULATE ? d.method : OZBLAS_METHOD_NATIVE;
    if (opt->method == OZBLAS_METHOD_AUTO) { /* run on the policy's executor */
        if (d.decided)
            *ex = spread(oz_executor_get(d.choice.executor), c, opt);
        rep->executor = (*ex)->id;
        if (*method == OZBLAS_METHOD_NATIVE)
            rep->fallback = OZBLAS_FALLBACK_AUTO_NATIVE;
        else { /* the largest count automatic precision may take before native is faster */
            c->max_count = oz_policy_max_count(c->is_complex, c->m, c->n, c->k, dev, d.mask,
                                               &d.choice);
            c->plan = (oz_auto_plan){d.choice, d.mask, dev};
        }
    }
    if (*method != OZBLAS_METHOD_OZAKI2 && *method != OZBLAS_METHOD_OZAKI1)
        return GO_NATIVE;
    rep->method = *method;
    if (*method == OZBLAS_METHOD_OZAKI2) {
        rep->moduli = opt->moduli;
        rep->scaling = opt->scaling;
    } else {
        rep->slices = opt->slices;
        rep->ozaki1_variant = opt->ozaki1_variant;
    }
    return GO_EMULATE;
}

/* An emulated call (gemm_route's GO_EMULATE), computed natively after a fallback. */
static ozblas_status emulated(const oz_executor **ex, int method, const oz_gemm_call *c,
                              const ozblas_options *opt, ozblas_report *rep)
{
    ozblas_status st = emulate(ex, method, c, opt, rep);
    if (st == OZBLAS_ERR_ALLOCATION) { /* C is untouched: the whole product natively */
        oz_alloc_warn("an emulated product");
        st = OZBLAS_OK;
        rep->fallback = OZBLAS_FALLBACK_ALLOCATION;
    }
    if (st == OZBLAS_OK && rep->fallback != OZBLAS_FALLBACK_NONE) {
        /* A bound describes an emulated result; after an ACCURACY fallback the maximum
         * count's says why, after any other there is none (the exponents defeated it). */
        if (rep->fallback != OZBLAS_FALLBACK_ACCURACY)
            rep->bound = -1.0;
        rep->method = OZBLAS_METHOD_NATIVE;
        rep->int_gemms = 0;
        rep->engine_products = 0;
        rep->fp64_passes = 0;
        feclearexcept(FE_ALL_EXCEPT); /* the flags of the emulation's steps, not the caller's */
        st = native(*ex, c, opt, rep);
    }
    return st;
}

static ozblas_status gemm_body(ozblas_context *ctx, oz_gemm_call *c,
                               const ozblas_options *opt_in, ozblas_report *rep_out)
{
    double t0 = oz_now();
    ozblas_report rep;
    ozblas_options opt;
    const oz_executor *ex = NULL;
    int method = OZBLAS_METHOD_NATIVE;
    ozblas_status st;
    (void)ctx;
    switch (gemm_route(c, opt_in, &opt, &rep, &ex, &method, &st)) {
    case GO_DONE:
        if (st != OZBLAS_OK)
            return st;
        break;
    case GO_SCALE:
        scale_c(c);
        break;
    case GO_SCALE_DEVICE:
        st = ex->scale(&opt, c->is_complex, c->m, c->n, c->beta, c->C, c->ldc);
        if (st == OZBLAS_OK)
            mark_device(ex, &opt, &rep);
        break;
    case GO_NATIVE:
        st = native(ex, c, &opt, &rep);
        break;
    case GO_EXACT:
        st = oz_exact_run(c, &opt, NULL, 0, &rep);
        break;
    default:
        st = emulated(&ex, method, c, &opt, &rep);
    }
    rep.seconds = oz_now() - t0;
    if (rep_out)
        *rep_out = rep;
    return st;
}

ozblas_status ozblas_dgemm(ozblas_context *ctx, char transa, char transb, int64_t m, int64_t n,
                           int64_t k, double alpha, const double *A, int64_t lda,
                           const double *B, int64_t ldb, double beta, double *C, int64_t ldc,
                           const ozblas_options *opt, ozblas_report *report)
{
    oz_gemm_call c = {0, transa, transb, m, n, k, {alpha, 0.0}, {beta, 0.0}, 0,
                      A, lda, B, ldb, C, ldc};
    return gemm(ctx, &c, opt, report);
}

ozblas_status ozblas_zgemm(ozblas_context *ctx, char transa, char transb, int64_t m, int64_t n,
                           int64_t k, const double *alpha, const double *A, int64_t lda,
                           const double *B, int64_t ldb, const double *beta, double *C,
                           int64_t ldc, const ozblas_options *opt, ozblas_report *report)
{
    if (!alpha || !beta)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    oz_gemm_call c = {1, transa, transb, m, n, k, {alpha[0], alpha[1]}, {beta[0], beta[1]}, 0,
                      A, lda, B, ldb, C, ldc};
    return gemm(ctx, &c, opt, report);
}

/* ---- batches: ozblas_dgemm_batched, ozblas_zgemm_batched, the shim's pointer arrays ------ */

#define OZ_BATCH_CHUNK 1024 /* products routed and run together (bounds the host arrays) */

/* r's bits into the batch's (the emulated products' only; none on a native one). */
static void merge_bits(ozblas_report *into, const ozblas_report *r)
{
    if (r->method == OZBLAS_METHOD_NATIVE)
        return;
    if (into->method == OZBLAS_METHOD_NATIVE) {
        into->min_bits_a = r->min_bits_a, into->max_bits_a = r->max_bits_a;
        into->min_bits_b = r->min_bits_b, into->max_bits_b = r->max_bits_b;
        return;
    }
    into->min_bits_a = oz_min_int(into->min_bits_a, r->min_bits_a);
    into->max_bits_a = oz_max_int(into->max_bits_a, r->max_bits_a);
    into->min_bits_b = oz_min_int(into->min_bits_b, r->min_bits_b);
    into->max_bits_b = oz_max_int(into->max_bits_b, r->max_bits_b);
}

/* The batch's report (ozblas.h, ozblas_dgemm_batched) with product r added; *n: products
 * merged so far. */
static void merge_report(ozblas_report *into, const ozblas_report *r, int64_t *n)
{
    if ((*n)++ == 0) {
        *into = *r;
        return;
    }
    merge_bits(into, r);
    if (into->method == OZBLAS_METHOD_NATIVE && into->fallback == OZBLAS_FALLBACK_NONE &&
        r->method != OZBLAS_METHOD_NATIVE)
        into->method = r->method; /* the first product was a quick return */
    into->moduli = oz_max_int(into->moduli, r->moduli);
    into->slices = oz_max_int(into->slices, r->slices);
    into->bound = into->bound > r->bound ? into->bound : r->bound;
    into->split_parts = oz_max_int(into->split_parts, r->split_parts);
    into->complex_products = oz_max_int(into->complex_products, r->complex_products);
    if (into->fallback == OZBLAS_FALLBACK_NONE && r->fallback != OZBLAS_FALLBACK_NONE) {
        into->fallback = r->fallback;
        into->method = r->method;
    }
    into->int_gemms += r->int_gemms;
    into->engine_products += r->engine_products;
    into->fp64_passes += r->fp64_passes;
    into->direct_entries += r->direct_entries;
    into->devices_used |= r->devices_used;
    for (int p = 0; p < OZBLAS_PHASE_COUNT; p++)
        into->phase_seconds[p] += r->phase_seconds[p];
}

/* Products b0..b0+nb-1: routed one by one; the Ozaki II ones of an executor with batch
 * kernels as batches (driver_batch.c), the rest and those the batches leave as single calls.
 * Returns the first failure (the failing product and those after it not done). */
static ozblas_status batch_chunk(ozblas_context *ctx, const oz_gemm_call *proto,
                                 const double *const *A, const double *const *B,
                                 double *const *C, int64_t b0, int64_t nb,
                                 const ozblas_options *opt_in, ozblas_report *total,
                                 int64_t *merged, unsigned char *done)
{
    ozblas_status st = OZBLAS_OK;
    oz_gemm_call *calls = oz_malloc(sizeof *calls * (size_t)nb);
    oz_gemm_call **sel = oz_malloc(sizeof *sel * (size_t)nb);
    ozblas_report *reps = oz_malloc(sizeof *reps * (size_t)nb), **selr = oz_malloc(sizeof *selr * (size_t)nb);
    int64_t *idx = oz_malloc(sizeof *idx * (size_t)nb);
    int *go = oz_malloc(sizeof *go * (size_t)nb);
    unsigned char *bdone = oz_calloc((size_t)nb, 1), *batched = oz_calloc((size_t)nb, 1);
    ozblas_options opt, opt_b;
    const oz_executor *ex_b = NULL;
    int64_t ns = 0;
    if (!calls || !sel || !reps || !selr || !idx || !go || !bdone || !batched) {
        st = OZBLAS_ERR_ALLOCATION;
        goto out;
    }
    for (int64_t i = 0; i < nb; i++) {
        const oz_executor *ex = NULL;
        int method = OZBLAS_METHOD_NATIVE;
        calls[i] = *proto;
        calls[i].A = A[b0 + i];
        calls[i].B = B[b0 + i];
        calls[i].C = C[b0 + i];
        go[i] = gemm_route(&calls[i], opt_in, &opt, &reps[i], &ex, &method, &st);
        if (st != OZBLAS_OK)
            goto out;
        if (go[i] == GO_EMULATE && method == OZBLAS_METHOD_OZAKI2 && ex->batch &&
            (!ex_b || ex == ex_b)) {
            ex_b = ex;
            opt_b = opt; /* the same for every product of the batch */
            sel[ns] = &calls[i];
            selr[ns] = &reps[i];
            idx[ns++] = i;
        }
    }
    if (ns > 1) { /* one product alone: the single call's path (tiles, staging overlap) */
        fenv_t env;
        feholdexcept(&env);
        st = oz_ozaki2_batch(ex_b, sel, ns, &opt_b, selr, bdone);
        fesetenv(&env); /* the emulation's flags, not the caller's */
        for (int64_t s = 0; s < ns; s++)
            if (bdone[s]) {
                mark_device(ex_b, &opt_b, &reps[idx[s]]);
                batched[idx[s]] = 1;
                done[b0 + idx[s]] = 1;
            }
        if (st != OZBLAS_OK)
            goto out;
    }
    for (int64_t i = 0; i < nb; i++) {
        if (!batched[i] && go[i] != GO_DONE) {
            oz_gemm_call c = *proto;
            c.A = A[b0 + i];
            c.B = B[b0 + i];
            c.C = C[b0 + i];
            st = gemm(ctx, &c, opt_in, &reps[i]);
            if (st != OZBLAS_OK)
                goto out;
        }
        done[b0 + i] = 1; /* computed, or a quick return */
        merge_report(total, &reps[i], merged);
    }
out:
    free(calls);
    free(sel);
    free(reps);
    free(selr);
    free(idx);
    free(go);
    free(bdone);
    free(batched);
    return st;
}

ozblas_status oz_gemm_batch(ozblas_context *ctx, int cplx, char transa, char transb, int64_t m,
                            int64_t n, int64_t k, const double *alpha, const double *const *A,
                            int64_t lda, const double *const *B, int64_t ldb,
                            const double *beta, double *const *C, int64_t ldc, int64_t batch,
                            const ozblas_options *opt, ozblas_report *report,
                            unsigned char *done_out)
{
    double t0 = oz_now();
    ozblas_report total;
    memset(&total, 0, sizeof total);
    total.bound = -1.0;
    if (!alpha || !beta || batch < 0 || (batch && (!A || !B || !C)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    unsigned char *done = done_out ? done_out : oz_calloc((size_t)(batch ? batch : 1), 1);
    if (!done)
        return OZBLAS_ERR_ALLOCATION;
    memset(done, 0, (size_t)batch);
    const oz_gemm_call proto = {cplx, transa, transb, m, n, k, {alpha[0], cplx ? alpha[1] : 0.0},
                                {beta[0], cplx ? beta[1] : 0.0}, 0, NULL, lda, NULL, ldb, NULL,
                                ldc};
    ozblas_status st = OZBLAS_OK;
    int64_t merged = 0;
    if (batch == 0) { /* nothing to compute: the argument error, else a quick return */
        oz_gemm_call c = proto;
        ozblas_options o;
        const oz_executor *ex = NULL;
        int method;
        ozblas_report r;
        gemm_route(&c, opt, &o, &r, &ex, &method, &st);
        total.executor = r.executor;
        total.accuracy = r.accuracy;
        total.method = OZBLAS_METHOD_NATIVE;
    }
    for (int64_t b0 = 0; b0 < batch && st == OZBLAS_OK; b0 += OZ_BATCH_CHUNK)
        st = batch_chunk(ctx, &proto, A, B, C, b0,
                         batch - b0 < OZ_BATCH_CHUNK ? batch - b0 : OZ_BATCH_CHUNK, opt, &total,
                         &merged, done);
    if (!done_out)
        free(done);
    total.seconds = oz_now() - t0;
    if (report)
        *report = total;
    return st;
}

/* The strided forms: pointer arrays built OZ_BATCH_CHUNK products at a time. */
static ozblas_status gemm_strided(ozblas_context *ctx, int cplx, char transa, char transb,
                                  int64_t m, int64_t n, int64_t k, const double *alpha,
                                  const double *A, int64_t lda, int64_t sa, const double *B,
                                  int64_t ldb, int64_t sb, const double *beta, double *C,
                                  int64_t ldc, int64_t sc, int64_t batch,
                                  const ozblas_options *opt, ozblas_report *report)
{
    if (batch <= 0) /* the empty batch's report, or the argument error */
        return oz_gemm_batch(ctx, cplx, transa, transb, m, n, k, alpha, NULL, lda, NULL, ldb,
                             beta, NULL, ldc, batch, opt, report, NULL);
    const int64_t w = cplx ? 2 : 1, chunk = batch < OZ_BATCH_CHUNK ? batch : OZ_BATCH_CHUNK;
    const double **pa = oz_malloc(sizeof *pa * (size_t)chunk);
    const double **pb = oz_malloc(sizeof *pb * (size_t)chunk);
    double **pc = oz_malloc(sizeof *pc * (size_t)chunk);
    ozblas_status st = pa && pb && pc ? OZBLAS_OK : OZBLAS_ERR_ALLOCATION;
    ozblas_report total, part;
    double t0 = oz_now();
    int64_t merged = 0;
    for (int64_t b0 = 0; b0 < batch && st == OZBLAS_OK; b0 += chunk) {
        const int64_t nb = batch - b0 < chunk ? batch - b0 : chunk;
        for (int64_t i = 0; i < nb; i++) { /* addresses computed as integers: any stride */
            pa[i] = (const double *)((uintptr_t)A + (uintptr_t)((b0 + i) * sa * w * 8));
            pb[i] = (const double *)((uintptr_t)B + (uintptr_t)((b0 + i) * sb * w * 8));
            pc[i] = (double *)((uintptr_t)C + (uintptr_t)((b0 + i) * sc * w * 8));
        }
        st = oz_gemm_batch(ctx, cplx, transa, transb, m, n, k, alpha, pa, lda, pb, ldb, beta,
                           pc, ldc, nb, opt, &part, NULL);
        if (st == OZBLAS_OK) {
            if (merged) {
                part.seconds = 0.0;
                merge_report(&total, &part, &merged);
            } else {
                total = part;
                merged = 1;
            }
        }
    }
    free(pa);
    free(pb);
    free(pc);
    total.seconds = oz_now() - t0;
    if (report && st == OZBLAS_OK)
        *report = total;
    return st;
}

ozblas_status ozblas_dgemm_batched(ozblas_context *ctx, char transa, char transb, int64_t m,
                                   int64_t n, int64_t k, double alpha, const double *A,
                                   int64_t lda, int64_t stride_a, const double *B, int64_t ldb,
                                   int64_t stride_b, double beta, double *C, int64_t ldc,
                                   int64_t stride_c, int64_t batch, const ozblas_options *opt,
                                   ozblas_report *report)
{
    const double al[2] = {alpha, 0.0}, be[2] = {beta, 0.0};
    return gemm_strided(ctx, 0, transa, transb, m, n, k, al, A, lda, stride_a, B, ldb, stride_b,
                        be, C, ldc, stride_c, batch, opt, report);
}

ozblas_status ozblas_zgemm_batched(ozblas_context *ctx, char transa, char transb, int64_t m,
                                   int64_t n, int64_t k, const double *alpha, const double *A,
                                   int64_t lda, int64_t stride_a, const double *B, int64_t ldb,
                                   int64_t stride_b, const double *beta, double *C,
                                   int64_t ldc, int64_t stride_c, int64_t batch,
                                   const ozblas_options *opt, ozblas_report *report)
{
    if (!alpha || !beta)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    return gemm_strided(ctx, 1, transa, transb, m, n, k, alpha, A, lda, stride_a, B, ldb,
                        stride_b, beta, C, ldc, stride_c, batch, opt, report);
}
