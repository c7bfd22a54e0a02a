/* The CUDA executor's native calls: DGEMM/ZGEMM through cuBLAS and the exact INT8 product
 * the schemes use (cublasGemmEx, INT32 accumulation), and the executor itself: its kernel
 * table for the scheme drivers (cuda_auto.cu, cuda_ozaki2.cu, cuda_ozaki1.cu). */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#define OZ_CUDA_FILE "cuda_native.cu"
#include "cuda_common.cuh"

static int op_of(char t)
{
    return t == 'N' ? OZ_CUBLAS_OP_N : t == 'T' ? OZ_CUBLAS_OP_T : OZ_CUBLAS_OP_C;
}

static ozblas_status cuda_native(const oz_gemm_call *c, const ozblas_options *opt)
{
    run_ctx r;
    ozblas_status st = run_begin(&r, opt);
    if (st != OZBLAS_OK) {
        run_end(&r);
        return st;
    }
    const int cx = c->is_complex;
    mat A, B, C;
    mat_view vc;
    const oz_blk bc = {0, 0, c->m, c->n};
    if (!mats_init(c, r.dev, &A, &B, &C)) {
        run_end(&r);
        return OZBLAS_ERR_INVALID_ARGUMENT;
    }
    mat_stream(&C, (size_t)(c->m * c->n) * C.es, 1);
    {
        carve cv = {NULL, 0};
        mat_carve(&A, &cv);
        mat_carve(&B, &cv);
        mat_carve(&C, &cv);
        char *ws = NULL;
        if (cv.off) {
            ws = (char *)ws_get(r.s, cv.off);
            if (!ws) {
                run_end(&r);
                return OZ_ERR_DEVICE_MEMORY;
            }
        }
        cv.base = ws;
        cv.off = 0;
        mat_carve(&A, &cv);
        mat_carve(&B, &cv);
        mat_carve(&C, &cv);
    }
    CK(stage_prepare(&r, &A, &B, &C));
    CK(mat_upload(&r, &A));
    CK(mat_upload(&r, &B));
    CK(mat_block(&r, &C, &bc, !c->beta_zero, &vc));
    {
        int small = c->m <= INT_MAX && c->n <= INT_MAX && c->k <= INT_MAX && A.ld <= INT_MAX &&
                    B.ld <= INT_MAX && vc.ld <= INT_MAX;
        int ta = op_of(c->transa), tb = op_of(c->transb);
        if (!cx) {
            if (small)
                CKB(r.cb->dgemm(r.s->h, ta, tb, (int)c->m, (int)c->n, (int)c->k, &c->alpha[0],
                                A.dev, (int)A.ld, B.dev, (int)B.ld, &c->beta[0], vc.p,
                                (int)vc.ld));
            else if (r.cb->dgemm_64)
                CKB(r.cb->dgemm_64(r.s->h, ta, tb, c->m, c->n, c->k, &c->alpha[0], A.dev, A.ld,
                                   B.dev, B.ld, &c->beta[0], vc.p, vc.ld));
            else
                st = OZBLAS_ERR_INVALID_ARGUMENT;
        } else {
            if (small)
                CKB(r.cb->zgemm(r.s->h, ta, tb, (int)c->m, (int)c->n, (int)c->k, c->alpha, A.dev,
                                (int)A.ld, B.dev, (int)B.ld, c->beta, vc.p, (int)vc.ld));
            else if (r.cb->zgemm_64)
                CKB(r.cb->zgemm_64(r.s->h, ta, tb, c->m, c->n, c->k, c->alpha, A.dev, A.ld,
                                   B.dev, B.ld, c->beta, vc.p, vc.ld));
            else
                st = OZBLAS_ERR_INVALID_ARGUMENT;
        }
    }
    if (st == OZBLAS_OK) {
        CK(mat_release(&r, &C, &vc));
        CK(mat_store(&r, &C, &vc, &bc));
    }
done:
    if (run_sync(&r) != cudaSuccess && st == OZBLAS_OK)
        st = OZBLAS_ERR_DEVICE;
    run_end(&r);
    return st;
}


/* C := beta C, one element per thread of a grid-stride loop (any m x n). */
__global__ void oz_k_scale(double *C, int64_t m, int64_t n, int64_t ldc, int cx, double b0,
                           double b1, int beta_zero)
{
    const double beta[2] = {b0, b1};
    const int64_t total = m * n, step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += step)
        oz_scale_element(C + (cx ? 2 : 1) * (t % m + t / m * ldc), cx, beta, beta_zero);
}

extern "C" ozblas_status oz_cuda_scale(const ozblas_options *opt, int cplx, int64_t m,
                                       int64_t n, const double *beta, double *C, int64_t ldc)
{
    if (m <= 0 || n <= 0)
        return OZBLAS_OK;
    run_ctx r;
    ozblas_status st = run_begin(&r, opt);
    if (st == OZBLAS_OK) {
        int blocks = grid1(m * n < ((int64_t)1 << 24) ? m * n : (int64_t)1 << 24, 256);
        oz_launch(dim3(blocks), dim3(256), r.st, oz_k_scale, C, m, n, ldc, cplx, beta[0],
                  cplx ? beta[1] : 0.0, (int)(beta[0] == 0.0 && (!cplx || beta[1] == 0.0)));
        CKL();
        CK(cudaStreamSynchronize(r.st));
    }
done:
    run_end(&r);
    return st;
}

/* Tests: forces the INT8 products' column chunk (0: the device's own) and returns how many
 * cuBLAS INT8 products were issued since the previous call. */
static int64_t test_i8_cols, i8_calls;
OZ_TEST_API int64_t oz_cuda_test_i8_columns(int64_t cols)
{
    __atomic_store_n(&test_i8_cols, oz_up4(cols), __ATOMIC_SEQ_CST);
    return __atomic_exchange_n(&i8_calls, 0, __ATOMIC_SEQ_CST);
}

int64_t oz_i8_max_cols(int dev)
{
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return p.major == 9 ? 8192 : 0;
}

static oz_cublas_status gemm_i8_call(const run_ctx *r, int64_t m, int64_t n, int64_t kb,
                                     const int8_t *A, int64_t lda, const int8_t *B, int64_t ldb,
                                     int *C, int64_t ldc)
{
    static const int one = 1, zero = 0;
    __atomic_fetch_add(&i8_calls, 1, __ATOMIC_RELAXED);
    if (m <= INT_MAX && n <= INT_MAX && kb <= INT_MAX && lda <= INT_MAX && ldb <= INT_MAX &&
        ldc <= INT_MAX)
        return r->cb->gemm_ex(r->s->h, OZ_CUBLAS_OP_T, OZ_CUBLAS_OP_N, (int)m, (int)n, (int)kb,
                              &one, A, OZ_CUDA_R_8I, (int)lda, B, OZ_CUDA_R_8I, (int)ldb, &zero,
                              C, OZ_CUDA_R_32I, (int)ldc, OZ_CUBLAS_COMPUTE_32I,
                              OZ_CUBLAS_GEMM_DEFAULT);
    if (r->cb->gemm_ex_64)
        return r->cb->gemm_ex_64(r->s->h, OZ_CUBLAS_OP_T, OZ_CUBLAS_OP_N, m, n, kb, &one, A,
                                 OZ_CUDA_R_8I, lda, B, OZ_CUDA_R_8I, ldb, &zero, C,
                                 OZ_CUDA_R_32I, ldc, OZ_CUBLAS_COMPUTE_32I,
                                 OZ_CUBLAS_GEMM_DEFAULT);
    return 7; /* CUBLAS_STATUS_INVALID_VALUE */
}

/* One call per chunk of at most the state's i8_cols columns (a multiple of 4, as n is). */
oz_cublas_status gemm_i8(const run_ctx *r, int64_t m, int64_t n, int64_t kb, const int8_t *A,
                         int64_t lda, const int8_t *B, int64_t ldb, int *C, int64_t ldc)
{
    int64_t w = __atomic_load_n(&test_i8_cols, __ATOMIC_SEQ_CST);
    if (w <= 0)
        w = r->s->i8_cols;
    if (w <= 0 || w > n)
        w = n;
    for (int64_t j0 = 0; j0 < n; j0 += w) {
        const oz_cublas_status s = gemm_i8_call(r, m, oz_min64(w, n - j0), kb, A, lda,
                                                B + j0 * ldb, ldb, C + j0 * ldc, ldc);
        if (s != OZ_CUBLAS_STATUS_SUCCESS)
            return s;
    }
    return OZ_CUBLAS_STATUS_SUCCESS;
}


/* Both engines; FP4 only where its device check and probe pass (cuda_fp4.cu). */
static const oz_kernels cuda_kernels =
    OZ_KERNEL_TABLE(cuda_, (1u << OZBLAS_ENGINE_INT8) | (1u << OZBLAS_ENGINE_FP4));

static int cuda_engine_usable(int engine, int device, char *why, size_t len)
{
    return engine != OZBLAS_ENGINE_FP4 || oz_cuda_fp4_usable(device, why, len);
}

/* Filled field by field: members added to oz_executor later stay NULL. No CUDA call happens
 * here. */
static oz_executor make_cuda_executor(void)
{
    oz_executor e;
    memset(&e, 0, sizeof e);
    e.id = OZBLAS_EXECUTOR_CUDA;
    e.name = "cuda";
    e.available = oz_cuda_available;
    e.native = cuda_native;
    e.kernels = &cuda_kernels;
    e.engine_usable = cuda_engine_usable;
    e.exact = cuda_exact_gemm;
    return e;
}

extern "C" const oz_executor *oz_cuda_executor(void)
{
    static const oz_executor e = make_cuda_executor(); /* thread-safe static init (C++11) */
    return &e;
}
