/* The public entry points and the dispatcher: argument checks, BLAS quick returns, method
 * and executor choice (method auto asks the policy once), the scheme drivers, the fallbacks
 * to native and to the CPU executor, the call report. One body serves DGEMM and ZGEMM. */
#include <ctype.h>
#include <fenv.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phase_kernels.h"
#include "../cuda/oz_cuda.h"


struct ozblas_context {
    int reserved; /* executors cache per thread and device; the handle lets later versions
                     keep state here without changing the API */
};


const char *ozblas_cuda_describe(void) { return oz_cuda_describe(); }

ozblas_status ozblas_context_create(ozblas_context **ctx)
{
    if (!ctx)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    *ctx = calloc(1, sizeof **ctx);
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
int ozblas_ozaki2_engine_budget_bits(int engine, int n)
{
    const oz2_table *T = oz2_table_get(engine, n);
    return T ? T->budget : -1;
}

/* C := beta * C for the quick return k == 0; beta == 0 writes zeros. */
static void scale_c(const oz_gemm_call *c)
{
    for (int64_t j = 0; j < c->n; j++)
        for (int64_t i = 0; i < c->m; i++) {
            double *p = c->C + (c->is_complex ? 2 : 1) * (i + j * c->ldc);
            if (!c->is_complex) {
                p[0] = c->beta_zero ? 0.0 : c->beta[0] * p[0];
            } else if (c->beta_zero) {
                p[0] = p[1] = 0.0;
            } else {
                double r = c->beta[0] * p[0] - c->beta[1] * p[1];
                double s = c->beta[0] * p[1] + c->beta[1] * p[0];
                p[0] = r;
                p[1] = s;
            }
        }
}

static ozblas_status gemm_body(ozblas_context *ctx, oz_gemm_call *c,
                               const ozblas_options *opt_in, ozblas_report *rep_out);

static int on_device(const oz_gemm_call *c)
{
    return oz_cuda_on_device(c->A) || oz_cuda_on_device(c->B) || oz_cuda_on_device(c->C);
}

/* Method auto: the policy's choice (core/policy_model.c) on this machine's profile among the
 * executors that may compete (ozblas_policy_executors). Returns the method and sets *ex to
 * the executor chosen, and c->max_count to the largest count automatic precision may take
 * before native would be faster. */
static int auto_method(oz_gemm_call *c, const ozblas_options *opt, const oz_executor **ex)
{
    int cuda = (*ex)->id == OZBLAS_EXECUTOR_CUDA;
    int dev = cuda && on_device(c);
    int mask = ozblas_policy_executors(opt->executor, dev, cuda);
    ozblas_candidate ch;
    if (ozblas_policy_decide(NULL, c->is_complex, c->m, c->n, c->k, dev, mask, opt, &ch) !=
        OZBLAS_OK)
        return OZBLAS_METHOD_NATIVE;
    *ex = oz_executor_get(ch.executor);
    if (ch.method != OZBLAS_METHOD_NATIVE) {
        c->max_count = oz_policy_max_count(c->is_complex, c->m, c->n, c->k, dev, mask, &ch);
        c->plan = (oz_auto_plan){ch, mask, dev};
    }
    return ch.method;
}

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
    if (ex && ex->id == OZBLAS_EXECUTOR_CUDA && opt->devices && !on_device(c) &&
        oz_cuda_multi_executor())
        return oz_cuda_multi_executor();
    return ex;
}

/* One device ran the call (several: set by the tiles). */
static void mark_device(const oz_executor *ex, const ozblas_options *opt, ozblas_report *rep)
{
    if (ex->id == OZBLAS_EXECUTOR_CUDA && rep->executor == OZBLAS_EXECUTOR_CUDA &&
        !rep->devices_used && opt->device <= OZ_MAX_DEVICE_LIST)
        rep->devices_used = 1ULL << opt->device;
}

/* The emulated call on ex, by the scheme's driver. An executor short of device memory
 * hands the call back: with host operands it runs on the CPU executor instead. */
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
    *ex = &oz_cpu_executor;
    *rep = start;
    rep->executor = OZBLAS_EXECUTOR_CPU;
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
    rep->executor = OZBLAS_EXECUTOR_CPU;
    return oz_cpu_executor.native(c, opt);
}

static ozblas_status gemm_body(ozblas_context *ctx, oz_gemm_call *c,
                               const ozblas_options *opt_in, ozblas_report *rep_out)
{
    double t0 = oz_now();
    ozblas_report rep;
    memset(&rep, 0, sizeof rep);
    rep.bound = -1.0;
    ozblas_options opt;
    if (opt_in)
        opt = *opt_in;
    else
        ozblas_options_init(&opt);
    (void)ctx;

    c->transa = (char)toupper((unsigned char)c->transa);
    c->transb = (char)toupper((unsigned char)c->transb);
    if (!strchr("NTC", c->transa) || !c->transa || !strchr("NTC", c->transb) || !c->transb ||
        c->m < 0 || c->n < 0 || c->k < 0)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    int64_t rows_a = c->transa == 'N' ? c->m : c->k, rows_b = c->transb == 'N' ? c->k : c->n;
    if (c->lda < (rows_a > 1 ? rows_a : 1) || c->ldb < (rows_b > 1 ? rows_b : 1) ||
        c->ldc < (c->m > 1 ? c->m : 1))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    if (opt.method < OZBLAS_METHOD_AUTO || opt.method > OZBLAS_METHOD_OZAKI2 ||
        (opt.moduli != 0 && opt.moduli < 2) || opt.moduli > oz2_max_moduli(opt.engine) || (opt.slices != 0 && opt.slices < 2) ||
        opt.slices > OZ1_MAX_SLICES || opt.ozaki1_variant < OZBLAS_OZAKI1_BITMASK ||
        opt.ozaki1_variant > OZBLAS_OZAKI1_HYBRID ||
        (opt.scaling != OZBLAS_SCALING_ACCURATE && opt.scaling != OZBLAS_SCALING_FAST) ||
        (opt.engine != OZBLAS_ENGINE_INT8 && opt.engine != OZBLAS_ENGINE_FP4) ||
        opt.executor < OZBLAS_EXECUTOR_AUTO || opt.executor > OZBLAS_EXECUTOR_CUDA ||
        opt.threads < 0 || opt.threads > OZ_MAX_THREADS || opt.device < 0 ||
        opt.device > OZ_MAX_DEVICE || opt.accuracy < OZBLAS_ACCURACY_DGEMM ||
        opt.accuracy > OZBLAS_ACCURACY_CORRECT || opt.target < OZBLAS_TARGET_ENTRYWISE ||
        opt.target > OZBLAS_TARGET_NORMWISE)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    if (ozblas_options_conflict(&opt, NULL, 0) != OZBLAS_OK)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    rep.accuracy = opt.accuracy;

    opt.device = ozblas_device_for(&opt); /* executor auto: the launcher's local rank's GPU */
    const oz_executor *ex;
    if (opt.executor == OZBLAS_EXECUTOR_AUTO) {
        ex = oz_executor_get(OZBLAS_EXECUTOR_CUDA);
        if (!ex || !ex->available(NULL, 0))
            ex = &oz_cpu_executor;
    } else {
        ex = oz_executor_get(opt.executor);
        if (!ex || !ex->available(NULL, 0))
            return OZBLAS_ERR_EXECUTOR_UNAVAILABLE;
        if (opt.executor == OZBLAS_EXECUTOR_CUDA && opt.devices &&
            !oz_cuda_devices_check(&opt, NULL, 0))
            return OZBLAS_ERR_INVALID_ARGUMENT; /* a listed device missing */
    }
    ex = spread(ex, c, &opt);
    rep.executor = ex->id;
    rep.method = OZBLAS_METHOD_NATIVE;
    c->beta_zero = c->beta[0] == 0.0 && c->beta[1] == 0.0;

    ozblas_status st = OZBLAS_OK;
    int alpha_zero = c->alpha[0] == 0.0 && c->alpha[1] == 0.0;
    int beta_one = c->beta[0] == 1.0 && c->beta[1] == 0.0;
    if (c->m == 0 || c->n == 0 || ((alpha_zero || c->k == 0) && beta_one))
        goto out;
    if (c->k == 0) { /* C := beta C; device memory by the executor's own routine */
        if (oz_cuda_on_device(c->C))
            st = native(ex, c, &opt, &rep);
        else
            scale_c(c);
        goto out;
    }
    if (alpha_zero) { /* as the host BLAS reads alpha = 0 (README "alpha = 0"): its routine */
        st = native(ex, c, &opt, &rep);
        goto out;
    }

    if (opt.accuracy == OZBLAS_ACCURACY_CORRECT) {
        rep.bound = 0x1p-53; /* one rounding: |C^ - P| <= u |P| (below 2^-1022: half an ulp) */
        st = oz_exact_run(c, &opt, NULL, 0, &rep);
        goto out;
    }
    int method = opt.method;
    if (method == OZBLAS_METHOD_AUTO) {
        method = auto_method(c, &opt, &ex);
        ex = spread(ex, c, &opt);
        rep.executor = ex->id;
        if (method == OZBLAS_METHOD_NATIVE)
            rep.fallback = OZBLAS_FALLBACK_AUTO_NATIVE;
    }
    if (method == OZBLAS_METHOD_OZAKI2 || method == OZBLAS_METHOD_OZAKI1) {
        rep.method = method;
        if (method == OZBLAS_METHOD_OZAKI2) {
            rep.moduli = opt.moduli;
            rep.scaling = opt.scaling;
        } else {
            rep.slices = opt.slices;
            rep.ozaki1_variant = opt.ozaki1_variant;
        }
        st = emulate(&ex, method, c, &opt, &rep);
        if (st == OZBLAS_OK && rep.fallback != OZBLAS_FALLBACK_NONE) {
            /* A bound describes an emulated result; after an ACCURACY fallback the maximum
             * count's says why, after any other there is none (the exponents defeated it). */
            if (rep.fallback != OZBLAS_FALLBACK_ACCURACY)
                rep.bound = -1.0;
            rep.method = OZBLAS_METHOD_NATIVE;
            rep.int_gemms = 0;
            rep.engine_products = 0;
            rep.fp64_passes = 0;
            feclearexcept(FE_ALL_EXCEPT); /* the flags of the emulation's steps, not the caller's */
            st = native(ex, c, &opt, &rep);
        }
    } else {
        st = native(ex, c, &opt, &rep);
    }
out:
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
