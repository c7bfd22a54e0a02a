/* The public entry points: argument checks, BLAS quick returns, method and executor choice,
 * fallback to native, the call report. One body serves DGEMM and ZGEMM. */
#include <ctype.h>
#include <fenv.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oz_internal.h"
#include "../cuda/oz_cuda.h"

#ifndef OZBLAS_VERSION
#define OZBLAS_VERSION "0.0.0"
#endif

struct ozblas_context {
    int reserved; /* executors cache per thread and device; the handle lets later versions
                     keep state here without changing the API */
};

const char *ozblas_version(void) { return OZBLAS_VERSION; }

const char *ozblas_cuda_describe(void) { return oz_cuda_describe(); }

ozblas_status ozblas_context_create(ozblas_context **ctx)
{
    if (!ctx)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    *ctx = calloc(1, sizeof **ctx);
    return *ctx ? OZBLAS_OK : OZBLAS_ERR_ALLOCATION;
}

void ozblas_context_destroy(ozblas_context *ctx) { free(ctx); }

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static oz2_table tables[OZ2_MAX_MODULI + 1];
static int table_ready[OZ2_MAX_MODULI + 1];

const oz2_table *oz2_table_get(int n)
{
    if (n < 2 || n > OZ2_MAX_MODULI)
        return NULL;
    pthread_mutex_lock(&table_lock);
    if (!table_ready[n]) {
        oz2_table_init(&tables[n], n);
        table_ready[n] = 1;
    }
    pthread_mutex_unlock(&table_lock);
    return &tables[n];
}

int ozblas_ozaki2_max_moduli(void) { return OZ2_MAX_MODULI; }
int ozblas_ozaki2_modulus(int index) { return oz2_modulus(index); }
int ozblas_ozaki2_budget_bits(int n)
{
    const oz2_table *T = oz2_table_get(n);
    return T ? T->budget : -1;
}

const oz_executor *oz_executor_get(int id)
{
    if (id == OZBLAS_EXECUTOR_CPU)
        return &oz_cpu_executor;
    if (id == OZBLAS_EXECUTOR_CUDA)
        return oz_cuda_executor();
    return NULL;
}

int ozblas_executor_available(int executor, char *why, size_t why_len)
{
    const oz_executor *e = oz_executor_get(executor);
    if (!e) {
        if (why && why_len)
            snprintf(why, why_len, "not built into this library");
        return 0;
    }
    return e->available(why, why_len);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* C := beta * C for the quick returns (alpha == 0 or k == 0); beta == 0 writes zeros. */
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

/* Method auto: the policy's choice (core/policy.c) on this machine's profile, among what the
 * executor at hand can run. With executor auto and a usable GPU both executors compete,
 * unless an operand lives in device memory (only the CUDA executor reads it there); an
 * executor asked for is kept. Returns the method and sets *ex to the executor chosen. */
static int auto_method(const oz_gemm_call *c, const ozblas_options *opt, const oz_executor **ex)
{
    int cuda = (*ex)->id == OZBLAS_EXECUTOR_CUDA;
    int on_device = cuda && (oz_cuda_on_device(c->A) || oz_cuda_on_device(c->B) ||
                             oz_cuda_on_device(c->C));
    int mask = 1 << (*ex)->id;
    if (cuda && opt->executor == OZBLAS_EXECUTOR_AUTO && !on_device)
        mask |= 1 << OZBLAS_EXECUTOR_CPU;
    ozblas_candidate ch;
    if (ozblas_policy_decide(NULL, c->is_complex, c->m, c->n, c->k, on_device, mask, opt, &ch) !=
        OZBLAS_OK)
        return OZBLAS_METHOD_NATIVE;
    *ex = oz_executor_get(ch.executor);
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

static ozblas_status gemm_body(ozblas_context *ctx, oz_gemm_call *c,
                               const ozblas_options *opt_in, ozblas_report *rep_out)
{
    double t0 = now();
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
        (opt.moduli != 0 && opt.moduli < 2) || opt.moduli > OZ2_MAX_MODULI || (opt.slices != 0 && opt.slices < 2) ||
        opt.slices > OZ1_MAX_SLICES || opt.ozaki1_variant < OZBLAS_OZAKI1_BITMASK ||
        opt.ozaki1_variant > OZBLAS_OZAKI1_HYBRID ||
        (opt.scaling != OZBLAS_SCALING_ACCURATE && opt.scaling != OZBLAS_SCALING_FAST) ||
        opt.executor < OZBLAS_EXECUTOR_AUTO || opt.executor > OZBLAS_EXECUTOR_CUDA ||
        opt.threads < 0 || opt.threads > OZ_MAX_THREADS || opt.device < 0 ||
        opt.device > OZ_MAX_DEVICE || opt.accuracy < OZBLAS_ACCURACY_DGEMM ||
        opt.accuracy > OZBLAS_ACCURACY_CORRECT)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    if (ozblas_options_conflict(&opt, NULL, 0) != OZBLAS_OK)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    rep.accuracy = opt.accuracy;

    const oz_executor *ex;
    if (opt.executor == OZBLAS_EXECUTOR_AUTO) {
        ex = oz_executor_get(OZBLAS_EXECUTOR_CUDA);
        if (!ex || !ex->available(NULL, 0))
            ex = &oz_cpu_executor;
    } else {
        ex = oz_executor_get(opt.executor);
        if (!ex || !ex->available(NULL, 0))
            return OZBLAS_ERR_EXECUTOR_UNAVAILABLE;
    }
    rep.executor = ex->id;
    rep.method = OZBLAS_METHOD_NATIVE;
    c->beta_zero = c->beta[0] == 0.0 && c->beta[1] == 0.0;

    ozblas_status st = OZBLAS_OK;
    int alpha_zero = c->alpha[0] == 0.0 && c->alpha[1] == 0.0;
    int beta_one = c->beta[0] == 1.0 && c->beta[1] == 0.0;
    if (c->m == 0 || c->n == 0 || ((alpha_zero || c->k == 0) && beta_one))
        goto out;
    if (alpha_zero || c->k == 0) {
        scale_c(c);
        goto out;
    }

    if (opt.accuracy == OZBLAS_ACCURACY_CORRECT) {
        /* exact products run on the host (no device path yet) */
        if (oz_cuda_on_device(c->A) || oz_cuda_on_device(c->B) || oz_cuda_on_device(c->C))
            return OZBLAS_ERR_EXECUTOR_UNAVAILABLE;
        rep.executor = OZBLAS_EXECUTOR_CPU;
        rep.bound = 0x1p-53; /* one rounding: |C^ - P| <= u |P| (below 2^-1022: half an ulp) */
        st = oz_exact_gemm(c, &opt, NULL, 0, &rep);
        goto out;
    }
    int method = opt.method;
    if (method == OZBLAS_METHOD_AUTO) {
        method = auto_method(c, &opt, &ex);
        rep.executor = ex->id;
        if (method == OZBLAS_METHOD_NATIVE)
            rep.fallback = OZBLAS_FALLBACK_AUTO_NATIVE;
    }
    if (method == OZBLAS_METHOD_OZAKI2 || method == OZBLAS_METHOD_OZAKI1) {
        rep.method = method;
        if (method == OZBLAS_METHOD_OZAKI2) {
            rep.moduli = opt.moduli;
            rep.scaling = opt.scaling;
            st = ex->ozaki2(c, opt.moduli ? oz2_table_get(opt.moduli) : NULL, &opt, &rep);
        } else {
            rep.slices = opt.slices;
            rep.ozaki1_variant = opt.ozaki1_variant;
            if (ex->ozaki1)
                st = ex->ozaki1(c, &opt, &rep);
            else
                rep.fallback = OZBLAS_FALLBACK_NOT_IMPLEMENTED;
        }
        if (st == OZBLAS_OK && rep.fallback != OZBLAS_FALLBACK_NONE) {
            rep.method = OZBLAS_METHOD_NATIVE;
            rep.int_gemms = 0;
            rep.fp64_passes = 0;
            feclearexcept(FE_ALL_EXCEPT); /* the flags of the emulation's steps, not the caller's */
            st = ex->native(c, &opt);
        }
    } else {
        st = ex->native(c, &opt);
    }
out:
    rep.seconds = now() - t0;
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
