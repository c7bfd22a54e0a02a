/* The CPU executor: native products through the host BLAS (cpu/host_blas.c), and its phase
 * kernels for the scheme drivers (cpu_ozaki2.c, cpu_ozaki1.c). */
#include <limits.h>
#include <stdlib.h>

#include "cpu_common.h"

static int cpu_available(char *why, size_t len)
{
    (void)why;
    (void)len;
    return 1;
}

/* ---- native ----------------------------------------------------------------------------- */

enum { COL_MAJOR = 102, NO_TRANS = 111, TRANS = 112, CONJ_TRANS = 113 };
typedef void (*dgemm32_t)(int, int, int, int, int, int, double, const double *, int,
                          const double *, int, double, double *, int);
typedef void (*dgemm64_t)(int, int, int, int64_t, int64_t, int64_t, double, const double *,
                          int64_t, const double *, int64_t, double, double *, int64_t);
typedef void (*zgemm32_t)(int, int, int, int, int, int, const void *, const void *, int,
                          const void *, int, const void *, void *, int);
typedef void (*zgemm64_t)(int, int, int, int64_t, int64_t, int64_t, const void *, const void *,
                          int64_t, const void *, int64_t, const void *, void *, int64_t);

static int cblas_trans(char t) { return t == 'N' ? NO_TRANS : t == 'T' ? TRANS : CONJ_TRANS; }

static ozblas_status cpu_native(const oz_gemm_call *c, const ozblas_options *opt)
{
    (void)opt;
    const oz_host_blas *b = oz_host_blas_get();
    if (!b)
        return OZBLAS_ERR_NO_HOST_BLAS;
    int ta = cblas_trans(c->transa), tb = cblas_trans(c->transb);
    if (!b->ilp64 && (c->m > INT_MAX || c->n > INT_MAX || c->k > INT_MAX || c->lda > INT_MAX ||
                      c->ldb > INT_MAX || c->ldc > INT_MAX))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    if (!c->is_complex) {
        if (b->ilp64)
            ((dgemm64_t)b->dgemm)(COL_MAJOR, ta, tb, c->m, c->n, c->k, c->alpha[0], c->A, c->lda,
                                  c->B, c->ldb, c->beta[0], c->C, c->ldc);
        else
            ((dgemm32_t)b->dgemm)(COL_MAJOR, ta, tb, (int)c->m, (int)c->n, (int)c->k, c->alpha[0],
                                  c->A, (int)c->lda, c->B, (int)c->ldb, c->beta[0], c->C,
                                  (int)c->ldc);
    } else {
        if (b->ilp64)
            ((zgemm64_t)b->zgemm)(COL_MAJOR, ta, tb, c->m, c->n, c->k, c->alpha, c->A, c->lda,
                                  c->B, c->ldb, c->beta, c->C, c->ldc);
        else
            ((zgemm32_t)b->zgemm)(COL_MAJOR, ta, tb, (int)c->m, (int)c->n, (int)c->k, c->alpha,
                                  c->A, (int)c->lda, c->B, (int)c->ldb, c->beta, c->C,
                                  (int)c->ldc);
    }
    return OZBLAS_OK;
}

static const oz_kernels cpu_kernels =
    OZ_KERNEL_TABLE(oz_cpu_, (1u << OZBLAS_ENGINE_INT8) | (1u << OZBLAS_ENGINE_FP4));

const oz_executor oz_cpu_executor = {
    OZBLAS_EXECUTOR_CPU, "cpu", cpu_available, cpu_native, &cpu_kernels, NULL, oz_exact_gemm,
};
