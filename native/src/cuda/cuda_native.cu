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
static int64_t test_i8_cols, i8_calls, lt_built;
static int lt_off; /* test hook: every INT8 product through cublasGemmEx */
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

/* Tests: 0 sends every INT8 product to cublasGemmEx / cublasGemmStridedBatchedEx, 1 (the
 * default) to cuBLASLt's cached plans first; returns the plans built since the previous call. */
OZ_TEST_API int64_t oz_cuda_test_i8_lt(int use)
{
    __atomic_store_n(&lt_off, !use, __ATOMIC_SEQ_CST);
    return __atomic_exchange_n(&lt_built, 0, __ATOMIC_SEQ_CST);
}

oz_cublaslt_handle oz_lt_handle(const oz_cublaslt *lt, int dev)
{
    static thread_local oz_cublaslt_handle h[OZ_MAX_DEVICE + 1];
    if (!h[dev] && lt->create(&h[dev]) != OZ_CUBLAS_STATUS_SUCCESS)
        h[dev] = NULL;
    return h[dev];
}

/* ---- INT8 products through cuBLASLt with a cached algorithm ---------------------------------
 * cublasGemmEx chooses its algorithm inside every call, and a call issues N of them (more
 * with column chunks and k-blocks), so that choice's host time is paid over and over for
 * the same shape. Here it is made once per shape (m, n, k, leading dimensions, batch and
 * strides, and the operands' alignment: the heuristic assumes 256 bytes unless told, and
 * residue planes and column chunks are aligned less) and (thread, device): cuBLASLt's
 * matmul descriptor and layouts and its heuristic's first algorithm (needing at most
 * OZ_LT_WS bytes of workspace) are kept and reused. Every algorithm gives the exact INT32
 * product, so the choice changes no bit. Where cuBLASLt is missing, refuses the shape or
 * fails, cublasGemmEx runs the product. */

#define OZ_LT_PLANS 16               /* shapes kept per (thread, device), oldest replaced */
#define OZ_LT_WS ((size_t)32 << 20)  /* cuBLAS's own workspace on sm_90 */

typedef struct {
    int64_t key[13]; /* m, n, kb, lda, ldb, ldc, sa, sb, sc, batch, and the alignments of
                        A, B and C in bytes (lt_align); m 0: unused */
    int ok;          /* 0: cuBLASLt refused the shape (cublasGemmEx then) */
    oz_cublaslt_matmul_desc d;
    oz_cublaslt_layout la, lb, lc;
    oz_cublaslt_algo algo;
    size_t ws;
} lt_plan;

struct oz_lt_cache {
    lt_plan p[OZ_LT_PLANS];
    int next;        /* the plan replaced next */
    void *ws;        /* workspace for the plans' algorithms, on the device */
    size_t ws_size;
};

static void lt_plan_free(const oz_cublaslt *lt, lt_plan *p)
{
    if (p->d)
        lt->desc_destroy(p->d);
    if (p->la)
        lt->layout_destroy(p->la);
    if (p->lb)
        lt->layout_destroy(p->lb);
    if (p->lc)
        lt->layout_destroy(p->lc);
    memset(p, 0, sizeof *p);
}

void oz_lt_cache_free(oz_lt_cache *c)
{
    const oz_cublaslt *lt = oz_cublaslt_get(NULL, 0);
    if (!c)
        return;
    for (int i = 0; i < OZ_LT_PLANS && lt; i++)
        lt_plan_free(lt, &c->p[i]);
    if (c->ws)
        cudaFree(c->ws);
    free(c);
}

/* A layout of rows x cols (ld) of type, batch of them stride elements apart. */
static oz_cublas_status lt_layout(const oz_cublaslt *lt, oz_cublaslt_layout *l, int type,
                                  int64_t rows, int64_t cols, int64_t ld, int64_t batch,
                                  int64_t stride)
{
    oz_cublas_status s = lt->layout_create(l, type, (uint64_t)rows, (uint64_t)cols, ld);
    if (!s && batch > 1) {
        const int32_t count = (int32_t)batch;
        s = lt->layout_set(*l, OZ_CUBLASLT_LAYOUT_BATCH_COUNT, &count, sizeof count);
        if (!s)
            s = lt->layout_set(*l, OZ_CUBLASLT_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                               sizeof stride);
    }
    return s;
}

/* The alignment (a power of two, at most 256 bytes) of every matrix of a batch from p,
 * stride bytes apart. */
static int64_t lt_align(const void *p, int64_t stride)
{
    const uint64_t x = (uint64_t)(uintptr_t)p | (uint64_t)stride | 256;
    return (int64_t)(x & (~x + 1));
}

/* The descriptor, layouts and algorithm of shape key (p->ok 0 when cuBLASLt has none). */
static void lt_plan_build(const oz_cublaslt *lt, oz_cublaslt_handle h, lt_plan *p,
                          const int64_t key[13])
{
    const int64_t m = key[0], n = key[1], kb = key[2], batch = key[9];
    const int32_t ta = OZ_CUBLAS_OP_T, tb = OZ_CUBLAS_OP_N;
    const uint64_t max_ws = OZ_LT_WS;
    oz_cublaslt_pref pref = NULL;
    oz_cublaslt_heuristic res;
    int got = 0;
    memcpy(p->key, key, sizeof p->key);
    __atomic_fetch_add(&lt_built, 1, __ATOMIC_RELAXED);
    oz_cublas_status s = lt->desc_create(&p->d, OZ_CUBLAS_COMPUTE_32I, OZ_CUDA_R_32I);
    if (!s)
        s = lt->desc_set(p->d, OZ_CUBLASLT_DESC_TRANSA, &ta, sizeof ta);
    if (!s)
        s = lt->desc_set(p->d, OZ_CUBLASLT_DESC_TRANSB, &tb, sizeof tb);
    if (!s)
        s = lt_layout(lt, &p->la, OZ_CUDA_R_8I, kb, m, key[3], batch, key[6]);
    if (!s)
        s = lt_layout(lt, &p->lb, OZ_CUDA_R_8I, kb, n, key[4], batch, key[7]);
    if (!s)
        s = lt_layout(lt, &p->lc, OZ_CUDA_R_32I, m, n, key[5], batch, key[8]);
    if (!s)
        s = lt->pref_create(&pref);
    if (!s)
        s = lt->pref_set(pref, OZ_CUBLASLT_PREF_MAX_WORKSPACE_BYTES, &max_ws, sizeof max_ws);
    static const int align_attr[4] = {OZ_CUBLASLT_PREF_MIN_ALIGNMENT_A_BYTES,
                                      OZ_CUBLASLT_PREF_MIN_ALIGNMENT_B_BYTES,
                                      OZ_CUBLASLT_PREF_MIN_ALIGNMENT_C_BYTES,
                                      OZ_CUBLASLT_PREF_MIN_ALIGNMENT_D_BYTES};
    for (int i = 0; i < 4 && !s; i++) {
        const uint32_t a = (uint32_t)key[10 + (i < 3 ? i : 2)]; /* D is C */
        s = lt->pref_set(pref, align_attr[i], &a, sizeof a);
    }
    if (!s)
        s = lt->heuristic(h, p->d, p->la, p->lb, p->lc, p->lc, pref, 1, &res, &got);
    if (pref)
        lt->pref_destroy(pref);
    p->ok = !s && got >= 1 && res.state == OZ_CUBLAS_STATUS_SUCCESS && res.workspace <= OZ_LT_WS;
    if (p->ok) {
        p->algo = res.algo;
        p->ws = res.workspace;
    }
}

/* The product through the cached plan of its shape: 1 when issued (*s: its status), 0 when
 * it is cublasGemmEx's (no cuBLASLt, no plan, or cuBLASLt refused it). */
static int lt_product(const run_ctx *r, const int64_t shape[10], const int8_t *A,
                      const int8_t *B, int *C, oz_cublas_status *st)
{
    int64_t key[13];
    memcpy(key, shape, 10 * sizeof *key);
    key[10] = lt_align(A, shape[6]);
    key[11] = lt_align(B, shape[7]);
    key[12] = lt_align(C, 4 * shape[8]);
    const oz_cublaslt *lt;
    if (__atomic_load_n(&lt_off, __ATOMIC_SEQ_CST) || key[9] > INT_MAX ||
        !(lt = oz_cublaslt_get(NULL, 0)) || !lt->heuristic || !lt->pref_create ||
        !lt->pref_set || !lt->pref_destroy || !lt->layout_set)
        return 0;
    oz_cublaslt_handle h = oz_lt_handle(lt, r->dev);
    oz_lt_cache *c = r->s->lt;
    if (!h || (!c && !(c = r->s->lt = (oz_lt_cache *)calloc(1, sizeof *c))))
        return 0;
    lt_plan *p = NULL;
    for (int i = 0; i < OZ_LT_PLANS && !p; i++)
        if (c->p[i].key[0] && !memcmp(c->p[i].key, key, sizeof c->p[i].key))
            p = &c->p[i];
    if (!p) {
        p = &c->p[c->next];
        c->next = (c->next + 1) % OZ_LT_PLANS;
        lt_plan_free(lt, p);
        lt_plan_build(lt, h, p, key);
    }
    if (!p->ok)
        return 0;
    if (p->ws > c->ws_size) { /* grown on the call's device; the previous one's work is done */
        if (c->ws && (cudaStreamSynchronize(r->st) != cudaSuccess || cudaFree(c->ws)))
            (void)cudaGetLastError();
        c->ws = NULL;
        c->ws_size = 0;
        if (cudaMalloc(&c->ws, p->ws) != cudaSuccess) {
            (void)cudaGetLastError();
            c->ws = NULL;
            return 0;
        }
        c->ws_size = p->ws;
    }
    static const int one = 1, zero = 0;
    *st = lt->matmul(h, p->d, &one, A, p->la, B, p->lb, &zero, C, p->lc, C, p->lc, &p->algo,
                     p->ws ? c->ws : NULL, p->ws, r->st);
    if (*st != OZ_CUBLAS_STATUS_SUCCESS) { /* refused at launch: cublasGemmEx from now on */
        p->ok = 0;
        return 0;
    }
    __atomic_fetch_add(&i8_calls, 1, __ATOMIC_RELAXED);
    return 1;
}

static oz_cublas_status gemm_i8_call(const run_ctx *r, int64_t m, int64_t n, int64_t kb,
                                     const int8_t *A, int64_t lda, const int8_t *B, int64_t ldb,
                                     int *C, int64_t ldc)
{
    static const int one = 1, zero = 0;
    const int64_t key[10] = {m, n, kb, lda, ldb, ldc, 0, 0, 0, 1};
    oz_cublas_status s;
    if (lt_product(r, key, A, B, C, &s))
        return s;
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

/* The column chunk of an INT8 product of n columns: at most the state's i8_cols (a multiple
 * of 4, as n is), or the test hook's. */
static int64_t i8_width(const run_ctx *r, int64_t n)
{
    int64_t w = __atomic_load_n(&test_i8_cols, __ATOMIC_SEQ_CST);
    if (w <= 0)
        w = r->s->i8_cols;
    return w <= 0 || w > n ? n : w;
}

/* One call per column chunk. */
oz_cublas_status gemm_i8(const run_ctx *r, int64_t m, int64_t n, int64_t kb, const int8_t *A,
                         int64_t lda, const int8_t *B, int64_t ldb, int *C, int64_t ldc)
{
    const int64_t w = i8_width(r, n);
    for (int64_t j0 = 0; j0 < n; j0 += w) {
        const oz_cublas_status s = gemm_i8_call(r, m, oz_min64(w, n - j0), kb, A, lda,
                                                B + j0 * ldb, ldb, C + j0 * ldc, ldc);
        if (s != OZ_CUBLAS_STATUS_SUCCESS)
            return s;
    }
    return OZ_CUBLAS_STATUS_SUCCESS;
}

static oz_cublas_status gemm_i8_batched_call(const run_ctx *r, int64_t m, int64_t n, int64_t kb,
                                             const int8_t *A, int64_t lda, int64_t sa,
                                             const int8_t *B, int64_t ldb, int64_t sb, int *C,
                                             int64_t ldc, int64_t sc, int64_t batch)
{
    static const int one = 1, zero = 0;
    const oz_cublas *cb = r->cb;
    const int64_t key[10] = {m, n, kb, lda, ldb, ldc, sa, sb, sc, batch};
    oz_cublas_status s;
    if (lt_product(r, key, A, B, C, &s))
        return s;
    if (m <= INT_MAX && n <= INT_MAX && kb <= INT_MAX && lda <= INT_MAX && ldb <= INT_MAX &&
        ldc <= INT_MAX && batch <= INT_MAX && cb->gemm_sb_ex) {
        __atomic_fetch_add(&i8_calls, 1, __ATOMIC_RELAXED);
        return cb->gemm_sb_ex(r->s->h, OZ_CUBLAS_OP_T, OZ_CUBLAS_OP_N, (int)m, (int)n, (int)kb,
                              &one, A, OZ_CUDA_R_8I, (int)lda, sa, B, OZ_CUDA_R_8I, (int)ldb, sb,
                              &zero, C, OZ_CUDA_R_32I, (int)ldc, sc, (int)batch,
                              OZ_CUBLAS_COMPUTE_32I, OZ_CUBLAS_GEMM_DEFAULT);
    }
    if (cb->gemm_sb_ex_64) {
        __atomic_fetch_add(&i8_calls, 1, __ATOMIC_RELAXED);
        return cb->gemm_sb_ex_64(r->s->h, OZ_CUBLAS_OP_T, OZ_CUBLAS_OP_N, m, n, kb, &one, A,
                                 OZ_CUDA_R_8I, lda, sa, B, OZ_CUDA_R_8I, ldb, sb, &zero, C,
                                 OZ_CUDA_R_32I, ldc, sc, batch, OZ_CUBLAS_COMPUTE_32I,
                                 OZ_CUBLAS_GEMM_DEFAULT);
    }
    for (int64_t b = 0; b < batch; b++) {
        const oz_cublas_status s =
            gemm_i8_call(r, m, n, kb, A + b * sa, lda, B + b * sb, ldb, C + b * sc, ldc);
        if (s != OZ_CUBLAS_STATUS_SUCCESS)
            return s;
    }
    return OZ_CUBLAS_STATUS_SUCCESS;
}

oz_cublas_status gemm_i8_batched(const run_ctx *r, int64_t m, int64_t n, int64_t kb,
                                 const int8_t *A, int64_t lda, int64_t sa, const int8_t *B,
                                 int64_t ldb, int64_t sb, int *C, int64_t ldc, int64_t sc,
                                 int64_t batch)
{
    if (batch == 1)
        return gemm_i8(r, m, n, kb, A, lda, B, ldb, C, ldc);
    const int64_t w = i8_width(r, n);
    for (int64_t j0 = 0; j0 < n; j0 += w) {
        const oz_cublas_status s =
            gemm_i8_batched_call(r, m, oz_min64(w, n - j0), kb, A, lda, sa, B + j0 * ldb, ldb,
                                 sb, C + j0 * ldc, ldc, sc, batch);
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
    e.exact = &cuda_exact_kernels;
    e.batch = &cuda_batch_kernels;
    e.owns = oz_cuda_on_device;
    e.scale = oz_cuda_scale;
    e.copy = oz_cuda_lx_copy;
    e.mem_alloc = oz_cuda_lx_alloc;
    e.mem_free = oz_cuda_lx_free;
    e.mem_budget = oz_cuda_lx_budget;
    e.laswp = oz_cuda_lx_laswp;
    e.her2k_operands = oz_cuda_her2k_operands;
    e.same_cols = oz_cuda_same_cols;
    e.devices_check = oz_cuda_devices_check;
    e.spread = oz_cuda_multi_executor;
    e.describe = oz_cuda_describe;
    e.device_identity = oz_cuda_device_identity;
    return e;
}

extern "C" const oz_executor *oz_cuda_executor(void)
{
    static const oz_executor e = make_cuda_executor(); /* thread-safe static init (C++11) */
    return &e;
}
