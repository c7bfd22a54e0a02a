/* Built when the CUDA executor is not compiled in (no nvcc at build time, or turned off): no
 * executor for the table (executor_table.c), and the LAPACK seam's device entries failing. */
#include "../core/oz_internal.h"
#include "oz_cuda.h"

const oz_executor *oz_cuda_executor(void) { return NULL; }

int oz_cuda_on_device(const void *p)
{
    (void)p;
    return 0;
}

void *oz_cuda_lx_alloc(const ozblas_options *opt, size_t bytes)
{
    (void)opt, (void)bytes;
    return NULL;
}

void oz_cuda_lx_free(const ozblas_options *opt, void *p) { (void)opt, (void)p; }

ozblas_status oz_cuda_lx_budget(const ozblas_options *opt, size_t *bytes)
{
    (void)opt;
    *bytes = 0;
    return OZBLAS_ERR_EXECUTOR_UNAVAILABLE;
}

int oz_cuda_lx_copy(const ozblas_options *opt, void *dst, size_t dpitch, const void *src,
                    size_t spitch, size_t width, size_t rows)
{
    (void)opt, (void)dst, (void)dpitch, (void)src, (void)spitch, (void)width, (void)rows;
    return 1;
}

int oz_cuda_lx_laswp(const ozblas_options *opt, int cplx, int64_t n, double *A, int64_t lda,
                     int64_t k1, int64_t k2, const int64_t *dpiv, int64_t incx)
{
    (void)opt, (void)cplx, (void)n, (void)A, (void)lda, (void)k1, (void)k2, (void)dpiv, (void)incx;
    return 1;
}
