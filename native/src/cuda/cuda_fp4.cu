/* The FP4 (E2M1) product engine on the CUDA executor (docs/fp4.md, numerics/fp4.h):
 * the exact integer product C32 = A^T B of small-integer int8 matrices, as the INT8 engine's
 * gemm_i8 gives it, computed on block-scaled FP4 tensor cores through cuBLASLt.
 *
 *   - every value is written in nd base-13 limbs with digits in S (oz_fp4_limbs), each limb
 *     plane packed on the device as E2M1 codes of digit / 2, two per byte (the lower k index
 *     in the low nibble), k padded with zeros to a multiple of FP4_KALIGN;
 *   - the scale tensors are unit scales (UE4M3 1.0 = 0x38, one per 16 elements along k) in
 *     cuBLASLt's layout for VEC16_UE4M3: rows padded to 128, scale columns to 4, in 512-byte
 *     tiles of 128 rows x 4 columns (the layout fixes the size; every byte is 1.0);
 *   - each pair of limb planes (i, j) is one cuBLASLt matmul with FP32 output F_ij; a limb
 *     product is at most 6 * 6 = 36 (144 quarters), so an FP32 accumulator sums kb <=
 *     OZ_FP4_MAX_K of them exactly in any order IF the unit accumulates in full FP32, which
 *     the per-device probe below checks rather than assumes;
 *   - C32 = sum_ij oz_fp4_weight(i, j) F_ij in 32-bit wrap-around arithmetic: each term is
 *     an exact integer (below 2^53 in double), the total fits INT32 (the INT8 engine's
 *     bound), so the wrap-around sum is the exact one.
 * The result is the exact integer product, the same bits as gemm_i8 and as the CPU
 * executor's FP4 model: the schemes' kernels do not change with the engine.
 *
 * This file has only run on the CPU emulation (emu/cublaslt_emu.cpp), never on a Blackwell
 * GPU. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define OZ_CUDA_FILE "cuda_fp4.cu"
#include "cuda_common.cuh"
#include "../numerics/fp4.h"

#define FP4_KALIGN 128        /* k padding: whole 4-column scale tiles, 64-byte rows */
#define FP4_UNIT_UE4M3 0x38   /* 1.0 in UE4M3 (exponent bias 7) */
#define FP4_ALIGN 256         /* every buffer of the work area */
#define FP4_EXEC_FAILED 13    /* CUBLAS_STATUS_EXECUTION_FAILED, for a failed launch */

static int64_t up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

/* The work area of one product (base NULL: only the size). Each scale tensor lies before
 * packed data, so that a scale tensor sized short reads FP4 codes, not scales, there (and the
 * emulation's bits show it). */
typedef struct {
    uint8_t *pa, *pb; /* nd packed limb planes of A (kbp x m) and B (kbp x n) */
    uint8_t *sa, *sb; /* their scale tensors */
    float *F;         /* one limb product, m x n */
    int64_t kbp, plane_a, plane_b, scale_a, scale_b;
} fp4_work;

static size_t fp4_layout(int nd, int64_t m, int64_t n, int64_t kb, char *base, fp4_work *w)
{
    w->kbp = up(kb, FP4_KALIGN);
    w->plane_a = m * w->kbp / 2;
    w->plane_b = n * w->kbp / 2;
    w->scale_a = up(m, 128) * (w->kbp / 16);
    w->scale_b = up(n, 128) * (w->kbp / 16);
    size_t off = 0;
    char *p[5];
    const int64_t sizes[5] = {w->scale_a, nd * w->plane_a, w->scale_b, nd * w->plane_b,
                              4 * m * n};
    for (int i = 0; i < 5; i++) {
        p[i] = base ? base + off : NULL;
        off += (size_t)up(sizes[i], FP4_ALIGN);
    }
    w->sa = (uint8_t *)p[0];
    w->pa = (uint8_t *)p[1];
    w->sb = (uint8_t *)p[2];
    w->pb = (uint8_t *)p[3];
    w->F = (float *)p[4];
    return off;
}

size_t oz_engine_work_bytes(int engine, int nd, int64_t m, int64_t n, int64_t kb)
{
    fp4_work w;
    return engine == OZBLAS_ENGINE_FP4 ? fp4_layout(nd, m, n, kb, NULL, &w) : 0;
}

/* The nd limb planes of X (kb x cols, ld), byte b of column q holding k indices 2b, 2b + 1. */
__global__ void oz_k_fp4_pack(const int8_t *X, int64_t ld, int64_t kb, int64_t cols,
                              int64_t half, int nd, int64_t plane, uint8_t *P)
{
    const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= cols * half)
        return;
    const int64_t q = e / half, b = e % half, l = 2 * b;
    int lo[OZ_FP4_MAX_LIMBS], hi[OZ_FP4_MAX_LIMBS];
    oz_fp4_limbs(l < kb ? X[l + q * ld] : 0, nd, lo);
    oz_fp4_limbs(l + 1 < kb ? X[l + 1 + q * ld] : 0, nd, hi);
    for (int i = 0; i < nd; i++)
        P[i * plane + e] = (uint8_t)(oz_fp4_e2m1_code(lo[i]) | oz_fp4_e2m1_code(hi[i]) << 4);
}

/* C (ldc) += weight(i, j) F (ld m), modulo 2^32; first: C = that term. */
__global__ void oz_k_fp4_acc(const float *F, int64_t m, int64_t total, double w, int *C,
                             int64_t ldc, int first)
{
    const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= total)
        return;
    const int64_t i = e % m, j = e / m;
    const uint32_t t = (uint32_t)(int64_t)(w * (double)F[e]);
    uint32_t *c = (uint32_t *)C + i + j * ldc;
    *c = first ? t : *c + t;
}

/* C32 (m x n, ldc) = A^T B exactly for int8 A (kb x m, lda), B (kb x n, ldb) whose values nd
 * limbs represent (|x| <= oz_fp4_range(nd)), kb <= OZ_FP4_MAX_K, on device dev's stream st;
 * work: oz_engine_work_bytes of device memory. */
static oz_cublas_status fp4_gemm(int dev, cudaStream_t st, int nd, void *work, int64_t m,
                                 int64_t n, int64_t kb, const int8_t *A, int64_t lda,
                                 const int8_t *B, int64_t ldb, int *C, int64_t ldc)
{
    const oz_cublaslt *lt = oz_cublaslt_get(NULL, 0);
    oz_cublaslt_handle h = lt ? oz_lt_handle(lt, dev) : NULL;
    if (!h || nd < 1 || nd > OZ_FP4_MAX_LIMBS || kb > OZ_FP4_MAX_K)
        return 7; /* CUBLAS_STATUS_INVALID_VALUE */
    fp4_work w;
    fp4_layout(nd, m, n, kb, (char *)work, &w);
    const int64_t half = w.kbp / 2;
    oz_launch(grid1(m * half, 256), 256, st, oz_k_fp4_pack, A, lda, kb, m, half, nd, w.plane_a,
              w.pa);
    oz_launch(grid1(n * half, 256), 256, st, oz_k_fp4_pack, B, ldb, kb, n, half, nd, w.plane_b,
              w.pb);
    if (cudaMemsetAsync(w.sa, FP4_UNIT_UE4M3, (size_t)w.scale_a, st) != cudaSuccess ||
        cudaMemsetAsync(w.sb, FP4_UNIT_UE4M3, (size_t)w.scale_b, st) != cudaSuccess ||
        cudaPeekAtLastError() != cudaSuccess)
        return FP4_EXEC_FAILED;

    oz_cublaslt_matmul_desc d = NULL;
    oz_cublaslt_layout la = NULL, lb = NULL, lc = NULL;
    const int32_t ta = OZ_CUBLAS_OP_T, tb = OZ_CUBLAS_OP_N, mode = OZ_CUBLASLT_SCALE_VEC16_UE4M3;
    const void *sa = w.sa, *sb = w.sb;
    const float one = 1.0f, zero = 0.0f;
    const struct {
        int attr;
        const void *value;
        size_t size;
    } attrs[] = {{OZ_CUBLASLT_DESC_TRANSA, &ta, sizeof ta},
                 {OZ_CUBLASLT_DESC_TRANSB, &tb, sizeof tb},
                 {OZ_CUBLASLT_DESC_A_SCALE_MODE, &mode, sizeof mode},
                 {OZ_CUBLASLT_DESC_B_SCALE_MODE, &mode, sizeof mode},
                 {OZ_CUBLASLT_DESC_A_SCALE_POINTER, &sa, sizeof sa},
                 {OZ_CUBLASLT_DESC_B_SCALE_POINTER, &sb, sizeof sb}};
    oz_cublas_status s = lt->desc_create(&d, OZ_CUBLAS_COMPUTE_32F, OZ_CUDA_R_32F);
    for (size_t a = 0; a < sizeof attrs / sizeof attrs[0] && !s; a++)
        s = lt->desc_set(d, attrs[a].attr, attrs[a].value, attrs[a].size);
    if (!s)
        s = lt->layout_create(&la, OZ_CUDA_R_4F_E2M1, (uint64_t)w.kbp, (uint64_t)m, w.kbp);
    if (!s)
        s = lt->layout_create(&lb, OZ_CUDA_R_4F_E2M1, (uint64_t)w.kbp, (uint64_t)n, w.kbp);
    if (!s)
        s = lt->layout_create(&lc, OZ_CUDA_R_32F, (uint64_t)m, (uint64_t)n, m);
    for (int i = 0; i < nd && !s; i++)
        for (int j = 0; j < nd && !s; j++) {
            s = lt->matmul(h, d, &one, w.pa + i * w.plane_a, la, w.pb + j * w.plane_b, lb, &zero,
                           w.F, lc, w.F, lc, NULL, NULL, 0, st);
            if (!s) {
                oz_launch(grid1(m * n, 256), 256, st, oz_k_fp4_acc, (const float *)w.F, m, m * n,
                          oz_fp4_weight(i, j), C, ldc, i == 0 && j == 0);
                if (cudaPeekAtLastError() != cudaSuccess)
                    s = FP4_EXEC_FAILED;
            }
        }
    if (lc)
        lt->layout_destroy(lc);
    if (lb)
        lt->layout_destroy(lb);
    if (la)
        lt->layout_destroy(la);
    if (d)
        lt->desc_destroy(d);
    return s;
}

oz_cublas_status gemm_engine(const run_ctx *r, int engine, int nd, void *work, int64_t m,
                             int64_t n, int64_t kb, const int8_t *A, int64_t lda,
                             const int8_t *B, int64_t ldb, int *C, int64_t ldc)
{
    /* every device a call runs on passes the probe (the drivers ask for opt->device only;
     * a device list may hold others): an error, never unchecked bits */
    if (engine == OZBLAS_ENGINE_FP4)
        return oz_cuda_fp4_usable(r->dev, NULL, 0)
                   ? fp4_gemm(r->dev, r->st, nd, work, m, n, kb, A, lda, B, ldb, C, ldc)
                   : 15; /* CUBLAS_STATUS_NOT_SUPPORTED */
    return gemm_i8(r, m, n, kb, A, lda, B, ldb, C, ldc);
}

/* ---- the probe: whether device dev gives exact FP4 products -------------------------------------
 * The worst case of the bound: kb = OZ_FP4_MAX_K, limbs 12 (E2M1 6: products of 36, partial
 * sums up to 2^22), with sign changes, and a column whose last limb is 1, so that one sum
 * needs every bit of FP32's significand (36 (K - 1) + 1/4). Any bit off refuses the engine. */

#define PROBE_COLS 4

static int8_t probe_value(int64_t l, int q)
{
    switch (q) {
    case 0: return 12;
    case 1: return -12;
    case 2: return l == OZ_FP4_MAX_K - 1 ? 1 : 12;
    default: return l % 2 ? -12 : 12;
    }
}

/* 1 when the product is exact; else 0 and why. */
static int probe_run(int dev, char *why, size_t len)
{
    const int64_t K = OZ_FP4_MAX_K, q = PROBE_COLS;
    int8_t *hx = (int8_t *)malloc((size_t)(K * q));
    int hc[PROBE_COLS * PROBE_COLS];
    int8_t *dx = NULL;
    int *dc = NULL;
    void *work = NULL;
    cudaStream_t st = NULL;
    int ok = 0, prev = -1;
    oz_cublas_status s = 0;
    if (!hx) {
        snprintf(why, len, "FP4 probe: out of host memory");
        return 0;
    }
    for (int c = 0; c < q; c++)
        for (int64_t l = 0; l < K; l++)
            hx[l + c * K] = probe_value(l, c);
    if (cudaGetDevice(&prev) != cudaSuccess)
        prev = -1;
    const size_t wb = oz_engine_work_bytes(OZBLAS_ENGINE_FP4, 1, q, q, K);
    if (cudaSetDevice(dev) != cudaSuccess ||
        cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) != cudaSuccess ||
        cudaMalloc((void **)&dx, (size_t)(K * q)) != cudaSuccess ||
        cudaMalloc((void **)&dc, sizeof hc) != cudaSuccess ||
        cudaMalloc(&work, wb) != cudaSuccess ||
        cudaMemcpyAsync(dx, hx, (size_t)(K * q), cudaMemcpyHostToDevice, st) != cudaSuccess) {
        snprintf(why, len, "FP4 probe on device %d: no device memory or stream for it", dev);
        goto done;
    }
    s = fp4_gemm(dev, st, 1, work, q, q, K, dx, K, dx, K, dc, q);
    if (s != OZ_CUBLAS_STATUS_SUCCESS) {
        snprintf(why, len,
                 "cuBLASLt's block-scaled FP4 matmul failed on device %d (status %d)",
                 dev, (int)s);
        goto done;
    }
    if (cudaMemcpyAsync(hc, dc, sizeof hc, cudaMemcpyDeviceToHost, st) != cudaSuccess ||
        cudaStreamSynchronize(st) != cudaSuccess) {
        snprintf(why, len, "FP4 probe on device %d: the product did not run", dev);
        goto done;
    }
    ok = 1;
    for (int j = 0; j < q && ok; j++)
        for (int i = 0; i < q && ok; i++) {
            long long exact = 0;
            for (int64_t l = 0; l < K; l++)
                exact += (long long)hx[l + i * K] * hx[l + j * K];
            if (hc[i + j * q] != exact) {
                snprintf(why, len,
                         "FP4 probe on device %d: the worst-case product (k = %d, limbs 12) "
                         "gave %d for %lld in entry (%d, %d): FP4 products are not exact "
                         "here (the unit's FP32 accumulation drops bits, or cuBLASLt reads "
                         "the operands otherwise), so the engine is refused",
                         dev, (int)K, hc[i + j * q], exact, i, j);
                ok = 0;
            }
        }
done:
    (void)cudaGetLastError();
    if (st)
        cudaStreamSynchronize(st), cudaStreamDestroy(st);
    cudaFree(work);
    cudaFree(dc);
    cudaFree(dx);
    free(hx);
    if (prev >= 0)
        cudaSetDevice(prev);
    return ok;
}

/* Whether the engine may run on device dev, decided once per device (why: the reason). */
static int fp4_decide(int dev, char *why, size_t len)
{
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "device %d: no properties", dev);
        return 0;
    }
    if (p.major != 10 && p.major != 12) {
        snprintf(why, len,
                 "device %d (%s, cc %d.%d) has no FP4 tensor cores: the FP4 engine needs "
                 "cc 10.x or 12.x (Blackwell)",
                 dev, p.name, p.major, p.minor);
        return 0;
    }
    char lw[512];
    const oz_cublaslt *lt = oz_cublaslt_get(lw, sizeof lw);
    if (!lt) {
        snprintf(why, len, "%s", lw);
        return 0;
    }
    if (lt->version < OZ_CUBLASLT_FP4_VERSION) {
        snprintf(why, len, "cuBLASLt %zu (%s) has no block-scaled FP4 matmul (12.8 or newer)",
                 lt->version, lt->path);
        return 0;
    }
    if (!probe_run(dev, why, len))
        return 0;
    snprintf(why, len, "device %d (%s, cc %d.%d): FP4 probe exact (k = %d), %s", dev, p.name,
             p.major, p.minor, (int)OZ_FP4_MAX_K, lt->path);
    return 1;
}

int oz_cuda_fp4_usable(int dev, char *why, size_t len)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static signed char state[OZ_MAX_DEVICE + 1]; /* 0 unknown, 1 usable, -1 refused */
    static char reason[OZ_MAX_DEVICE + 1][256];
    if (dev < 0 || dev > OZ_MAX_DEVICE) {
        if (why && len)
            snprintf(why, len, "device %d out of range", dev);
        return 0;
    }
    pthread_mutex_lock(&mu);
    if (!state[dev])
        state[dev] = fp4_decide(dev, reason[dev], sizeof reason[dev]) ? 1 : -1;
    const int ok = state[dev] > 0;
    if (why && len)
        snprintf(why, len, "%s", reason[dev]);
    pthread_mutex_unlock(&mu);
    return ok;
}
