/* The CPU executor: native products through the host BLAS (cpu/host_blas.c), and its phase
 * kernels for the scheme drivers (cpu_ozaki2.c, cpu_ozaki1.c). */
#include "cpu_common.h"

static int cpu_available(char *why, size_t len)
{
    (void)why;
    (void)len;
    return 1;
}

/* ---- native ----------------------------------------------------------------------------- */

static ozblas_status cpu_native(const oz_gemm_call *c, const ozblas_options *opt)
{
    (void)opt;
    if (!c->is_complex)
        return oz_host_gemm('d', c->transa, c->transb, c->m, c->n, c->k, &c->alpha[0], c->A,
                            c->lda, c->B, c->ldb, &c->beta[0], c->C, c->ldc);
    return oz_host_gemm('z', c->transa, c->transb, c->m, c->n, c->k, c->alpha, c->A, c->lda,
                        c->B, c->ldb, c->beta, c->C, c->ldc);
}

static const oz_kernels cpu_kernels =
    OZ_KERNEL_TABLE(oz_cpu_, (1u << OZBLAS_ENGINE_INT8) | (1u << OZBLAS_ENGINE_FP4));

/* Host memory only: no device entries (owns, scale, copy, mem_alloc, laswp, ...). */
const oz_executor oz_cpu_executor = {
    .id = OZBLAS_EXECUTOR_CPU,
    .name = "cpu",
    .available = cpu_available,
    .native = cpu_native,
    .kernels = &cpu_kernels,
    .exact = &oz_cpu_exact_kernels,
};
