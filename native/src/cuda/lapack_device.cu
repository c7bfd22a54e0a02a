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
#include "../numerics/her2k.h"

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

/* HER2K's operand U (numerics/her2k.h) from P and Q in device memory: U's first two blocks
 * and their extents (each warp's folds reduced by shuffles, then one atomicMax per warp
 * and extent), then s applied and the third block copied, each element by the host's
 * steps (core/driver_ozaki2.c oz_her2k_operands): the same U to the bit. */
__global__ void lx_her2k_build(char trans, int64_t n, int64_t k, double a0, double a1,
                               const double *P, int64_t ldp, const double *Q, int64_t ldq,
                               double *U, unsigned long long *ext)
{
    const double alpha[2] = {a0, a1};
    const int64_t h = 2 * n * k, nk = n * k;
    uint64_t e[4] = {0, 0, 0, 0};
    for (int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; v < nk;
         v += (int64_t)gridDim.x * blockDim.x) {
        double *u = U + 2 * v;
        oz_her2k_entry(trans, alpha, P, ldp, Q, ldq, v % n, v / n, u, u + h);
        for (int p = 0; p < 2; p++) {
            oz_her2k_fold(e, u[p]);
            oz_her2k_fold(e + 2, u[h + p]);
        }
    }
    for (int q = 0; q < 4; q++) {
        unsigned long long b = e[q];
        for (int o = 16; o > 0; o >>= 1) {
            unsigned long long b2 = __shfl_xor_sync(0xffffffffu, b, o);
            b = b2 > b ? b2 : b;
        }
        if ((threadIdx.x & 31) == 0 && b)
            atomicMax(ext + q, b);
    }
}

__global__ void lx_her2k_apply(int64_t h, double *U, const unsigned long long *ext)
{
    const uint64_t e[4] = {ext[0], ext[1], ext[2], ext[3]};
    const int s = oz_her2k_shift(e);
    for (int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; v < h;
         v += (int64_t)gridDim.x * blockDim.x) {
        U[v] = ldexp(U[v], s);
        U[h + v] = ldexp(U[h + v], -s);
        U[2 * h + v] = U[v];
    }
}

extern "C" int oz_cuda_her2k_operands(const ozblas_options *opt, char trans, int64_t n,
                                      int64_t k, const double *alpha, const double *P,
                                      int64_t ldp, const double *Q, int64_t ldq, double *U)
{
    if (n <= 0 || k <= 0)
        return 0;
    run_ctx r;
    ozblas_status st = run_begin(&r, opt);
    if (st == OZBLAS_OK) {
        unsigned long long *ext = (unsigned long long *)ws_get(r.s, 4 * sizeof *ext);
        if (!ext) {
            st = OZBLAS_ERR_ALLOCATION;
            goto done;
        }
        const int64_t nk = n * k;
        const int blocks = (int)(grid1(nk, 256) < 1024 ? grid1(nk, 256) : 1024);
        CK(cudaMemsetAsync(ext, 0, 4 * sizeof *ext, r.st));
        oz_launch(dim3(blocks), dim3(256), r.st, lx_her2k_build, trans, n, k, alpha[0],
                  alpha[1], P, ldp, Q, ldq, U, ext);
        CKL();
        oz_launch(dim3(blocks), dim3(256), r.st, lx_her2k_apply, 2 * nk, U,
                  (const unsigned long long *)ext);
        CKL();
        CK(cudaStreamSynchronize(r.st));
    }
done:
    run_end(&r);
    return st != OZBLAS_OK;
}

/* Whether cols columns of rows doubles at a and at b (pitch ld doubles) are equal bit for
 * bit: any difference sets the flag. */
__global__ void lx_same_cols(const double *a, const double *b, int64_t rows, int64_t cols,
                             int64_t ld, int *diff)
{
    const int64_t all = rows * cols;
    for (int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; v < all;
         v += (int64_t)gridDim.x * blockDim.x) {
        const int64_t o = v % rows + v / rows * ld;
        unsigned long long x = __double_as_longlong(a[o]), y = __double_as_longlong(b[o]);
        if (x != y) {
            atomicOr(diff, 1);
            return;
        }
    }
}

extern "C" int oz_cuda_same_cols(const ozblas_options *opt, const double *a, const double *b,
                                 int64_t rows, int64_t cols, int64_t ld)
{
    run_ctx r;
    int diff = 1;
    ozblas_status st = run_begin(&r, opt);
    if (st == OZBLAS_OK && rows > 0 && cols > 0) {
        int *d = (int *)ws_get(r.s, sizeof *d);
        if (!d) {
            st = OZBLAS_ERR_ALLOCATION;
            goto done;
        }
        const int blocks = (int)(grid1(rows * cols, 256) < 1024 ? grid1(rows * cols, 256) : 1024);
        CK(cudaMemsetAsync(d, 0, sizeof *d, r.st));
        oz_launch(dim3(blocks), dim3(256), r.st, lx_same_cols, a, b, rows, cols, ld, d);
        CKL();
        CK(cudaMemcpyAsync(&diff, d, sizeof diff, cudaMemcpyDeviceToHost, r.st));
        CK(cudaStreamSynchronize(r.st));
    }
done:
    run_end(&r);
    return st == OZBLAS_OK && !diff;
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
