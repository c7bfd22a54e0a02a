/* Exact products (numerics/exact.h), executor-neutral: the one decision of where accuracy
 * "correct" and the double-double products ozblas_dgemm_dd / ozblas_zgemm_dd run, and the
 * public entries of the double-double products. Each executor's exact entry computes them
 * (cpu/cpu_exact.c, cuda/cuda_exact.cu). */
#include <fenv.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "oz_internal.h"
#include "../numerics/exact.h"

ozblas_status oz_exact_run(const oz_gemm_call *c, const ozblas_options *opt, double *lo,
                           int64_t ldlo, ozblas_report *rep)
{
    const oz_executor *dev = oz_memory_owner(c->A);
    const void *more[3] = {c->B, c->C, lo};
    for (int p = 0; p < 3 && !dev; p++)
        dev = oz_memory_owner(more[p]);
    const oz_executor *host = oz_executor_get(OZ_HOST_EXECUTOR);
    const oz_executor *ex = oz_executor_for(opt, 1, dev);
    if (ex != host && (!ex || !ex->available(NULL, 0) || !ex->exact))
        return OZBLAS_ERR_EXECUTOR_UNAVAILABLE;
    if (dev && ex != dev)
        return OZBLAS_ERR_EXECUTOR_UNAVAILABLE; /* the host cannot read device memory */
    rep->executor = ex->id;
    ozblas_status st = ex->exact(c, opt, lo, ldlo, rep);
    if (st == OZ_ERR_DEVICE_MEMORY) {
        if (dev)
            return OZBLAS_ERR_DEVICE;
        rep->executor = host->id;
        return host->exact(c, opt, lo, ldlo, rep);
    }
    if (st == OZBLAS_OK && ex->owns && opt->device <= OZ_MAX_DEVICE_LIST)
        rep->devices_used = 1ULL << opt->device;
    return st;
}

/* ---- public entry points ------------------------------------------------------------------ */

static ozblas_status gemm_dd(int cx, char transa, char transb, int64_t m, int64_t n, int64_t k,
                             const double *A, int64_t lda, const double *B, int64_t ldb,
                             double *Chi, int64_t ldchi, double *Clo, int64_t ldclo,
                             const ozblas_options *opt_in, ozblas_report *report)
{
    ozblas_options opt;
    if (opt_in)
        opt = *opt_in;
    else
        ozblas_options_init(&opt);
    double t0 = omp_get_wtime();
    ozblas_report rep;
    memset(&rep, 0, sizeof rep);
    rep.accuracy = OZBLAS_ACCURACY_DOUBLE_DOUBLE;
    rep.bound = 0x1p-106; /* one double-double rounding: |hi + lo - P| <= 2^-106 |P| (+ 2^-1075) */
    rep.executor = OZBLAS_EXECUTOR_CPU;
    transa = (char)(transa >= 'a' ? transa - 32 : transa);
    transb = (char)(transb >= 'a' ? transb - 32 : transb);
    int ok_t = (transa == 'N' || transa == 'T' || transa == 'C') &&
               (transb == 'N' || transb == 'T' || transb == 'C');
    int64_t rows_a = transa == 'N' ? m : k, rows_b = transb == 'N' ? k : n;
    int64_t mm = m > 1 ? m : 1;
    if (!ok_t || m < 0 || n < 0 || k < 0 || lda < (rows_a > 1 ? rows_a : 1) ||
        ldb < (rows_b > 1 ? rows_b : 1) || ldchi < mm || ldclo < mm || opt.threads < 0 ||
        opt.threads > OZ_MAX_THREADS || opt.executor < OZBLAS_EXECUTOR_AUTO ||
        opt.executor > OZBLAS_EXECUTOR_CUDA || opt.device < 0 || opt.device > OZ_MAX_DEVICE)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    opt.device = ozblas_device_for(&opt);
    if (m == 0 || n == 0)
        goto out;
    if (!Chi || !Clo || (k > 0 && (!A || !B)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    if (k == 0) { /* zeros; into device memory through a host buffer of zeros */
        const size_t w = cx ? 2 : 1, es = 8 * w;
        double *out[2] = {Chi, Clo};
        const int64_t ld[2] = {ldchi, ldclo};
        double *zero = NULL;
        for (int p = 0; p < 2; p++) {
            const oz_executor *dev = oz_memory_owner(out[p]);
            if (!dev) {
                for (int64_t j = 0; j < n; j++)
                    memset(out[p] + w * j * ld[p], 0, es * (size_t)m);
                continue;
            }
            if (!zero && !(zero = oz_calloc((size_t)(m * n), es)))
                return OZBLAS_ERR_ALLOCATION;
            if (dev->copy(&opt, out[p], es * ld[p], zero, es * m, es * m, n)) {
                free(zero);
                return OZBLAS_ERR_DEVICE;
            }
        }
        free(zero);
        goto out;
    }
    oz_gemm_call c = {cx, transa, transb, m, n, k, {1.0, 0.0}, {0.0, 0.0}, 1,
                      A, lda, B, ldb, Chi, ldchi};
    fenv_t env;
    feholdexcept(&env); /* the steps' own flags say nothing about the result */
    ozblas_status st = oz_exact_run(&c, &opt, Clo, ldclo, &rep);
    fesetenv(&env);
    if (st != OZBLAS_OK)
        return st;
out:
    rep.seconds = omp_get_wtime() - t0;
    if (report)
        *report = rep;
    return OZBLAS_OK;
}

ozblas_status ozblas_dgemm_dd(ozblas_context *ctx, char transa, char transb, int64_t m,
                              int64_t n, int64_t k, const double *A, int64_t lda,
                              const double *B, int64_t ldb, double *Chi, int64_t ldchi,
                              double *Clo, int64_t ldclo, const ozblas_options *opt,
                              ozblas_report *report)
{
    (void)ctx;
    return gemm_dd(0, transa, transb, m, n, k, A, lda, B, ldb, Chi, ldchi, Clo, ldclo, opt,
                   report);
}

ozblas_status ozblas_zgemm_dd(ozblas_context *ctx, char transa, char transb, int64_t m,
                              int64_t n, int64_t k, const double *A, int64_t lda,
                              const double *B, int64_t ldb, double *Chi, int64_t ldchi,
                              double *Clo, int64_t ldclo, const ozblas_options *opt,
                              ozblas_report *report)
{
    (void)ctx;
    return gemm_dd(1, transa, transb, m, n, k, A, lda, B, ldb, Chi, ldchi, Clo, ldclo, opt,
                   report);
}

int ozblas_exact_max_moduli(void) { return OZX_MAX_MODULI; }
int ozblas_exact_modulus(int index) { return ozx_modulus(index); }
int ozblas_exact_budget_bits(int n)
{
    const ozx_table *T = ozx_table_get(n);
    return T ? T->budget : -1;
}
