/* The LAPACK layer's device memory (src/lapack/lapack_api.c, lapack_seam.c, through the
 * executor's entries): allocations, 2-D copies between host and device and the row
 * interchanges of laswp (diagonal blocks go to the host routine through the seam; cuBLAS's
 * own trsm/trmm are not used). Each runs on opt's device and stream and waits for its work,
 * so the drivers see the same ordering as with host memory (every ozblas product also waits
 * for its stream before it returns). Plain C linkage: declared in oz_cuda.h. */
#include <stdint.h>
#include <string.h>

#define OZ_CUDA_FILE "lapack_device.cu"
#include "cuda_common.cuh"
#include "oz_cuda.h"

extern "C" void *oz_cuda_lx_alloc(const ozblas_options *opt, size_t bytes)
{
    run_ctx r;
    void *p = NULL;
    if (oz_alloc_fault()) /* the test-only fault injection point (core/alloc.c) */
        return NULL;
    if (run_begin(&r, opt) == OZBLAS_OK && cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) {
        (void)cudaGetLastError();
        p = NULL;
    }
    run_end(&r);
    return p;
}

extern "C" void oz_cuda_lx_free(const ozblas_options *opt, void *p)
{
    run_ctx r;
    if (p && run_begin(&r, opt) == OZBLAS_OK)
        (void)cudaFree(p);
    run_end(&r);
}

extern "C" ozblas_status oz_cuda_lx_budget(const ozblas_options *opt, size_t *bytes)
{
    run_ctx r;
    ozblas_status st = run_begin(&r, opt);
    *bytes = st == OZBLAS_OK ? oz_device_budget(&r) : 0;
    run_end(&r);
    return st;
}

extern "C" int oz_cuda_lx_copy(const ozblas_options *opt, void *dst, size_t dpitch,
                               const void *src, size_t spitch, size_t width, size_t rows)
{
    if (!width || !rows)
        return 0;
    run_ctx r;
    ozblas_status st = run_begin(&r, opt);
    if (st == OZBLAS_OK) {
        CK(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, cudaMemcpyDefault, r.st));
        CK(cudaStreamSynchronize(r.st));
    }
done:
    run_end(&r);
    return st != OZBLAS_OK;
}

/* One thread per column, the interchanges in LAPACK's order (incx > 0: k1 to k2; else back). */
__global__ void lx_laswp_kernel(double *A, int64_t lda, int64_t n, int w, int64_t k1, int64_t k2,
                                const int64_t *piv, int64_t incx)
{
    int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n)
        return;
    double *col = A + (int64_t)w * j * lda;
    for (int64_t t = 0; t <= k2 - k1; t++) {
        int64_t i = incx > 0 ? k1 - 1 + t : k2 - 1 - t, p = piv[i] - 1;
        if (p != i)
            for (int e = 0; e < w; e++) {
                double s = col[w * i + e];
                col[w * i + e] = col[w * p + e];
                col[w * p + e] = s;
            }
    }
}

extern "C" int oz_cuda_lx_laswp(const ozblas_options *opt, int cplx, int64_t n, double *A,
                                int64_t lda, int64_t k1, int64_t k2, const int64_t *dpiv,
                                int64_t incx)
{
    if (n <= 0 || k2 < k1)
        return 0;
    run_ctx r;
    ozblas_status st = run_begin(&r, opt);
    if (st == OZBLAS_OK) {
        oz_launch(dim3(grid1(n, 128)), dim3(128), r.st, lx_laswp_kernel, A, lda, n, cplx ? 2 : 1,
                  k1, k2, dpiv, incx);
        CKL();
        CK(cudaStreamSynchronize(r.st));
    }
done:
    run_end(&r);
    return st != OZBLAS_OK;
}

/* ---- tests only (not in ozblas.h): device memory without CuPy, for the device-pointer
 * tests of the C API (tests/lapack/test_lapack_cuda.py), on the current device ---------------- */

OZ_TEST_API void *oz_cuda_test_malloc(size_t bytes)
{
    void *p = NULL;
    if (!oz_cuda_available(NULL, 0) || cudaMalloc(&p, bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}

OZ_TEST_API void oz_cuda_test_free(void *p) { (void)cudaFree(p); }

/* 0 on success */
OZ_TEST_API int oz_cuda_test_memcpy(void *dst, const void *src, size_t bytes)
{
    if (cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, 0) != cudaSuccess ||
        cudaStreamSynchronize(0) != cudaSuccess) {
        (void)cudaGetLastError();
        return 1;
    }
    return 0;
}
