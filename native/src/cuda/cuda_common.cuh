/* Infrastructure shared by the CUDA executor's translation units (executor_cuda.cu: native
 * and Ozaki II, ozaki1_cuda.cu: Ozaki I). Internal: the definitions of the non-inline
 * functions declared here are in executor_cuda.cu (C++ linkage, hidden visibility).
 *
 *   - per (thread, device) state: a cuBLAS handle, a cached workspace, events;
 *   - one call's device context (run_begin / run_end);
 *   - operands used in place (device memory) or copied to and from the workspace (host);
 *   - a bump allocator over the workspace;
 *   - the INT8 x INT8 -> INT32 product (cublasGemmEx, TN);
 *   - error checking macros (CK, CKB, CKL: set st and goto done);
 *   - kernel launch (<<<>>> under nvcc, the CPU emulation otherwise), op(X) element loads.
 */
#ifndef OZ_CUDA_COMMON_CUH
#define OZ_CUDA_COMMON_CUH

#include <stddef.h>
#include <stdint.h>

#ifdef OZ_CUDA_EMU
#include "emu/cuda_emu.h" /* CPU emulation of the CUDA subset used here (tests without a GPU) */
#else
#include <cuda_runtime.h>
#endif

extern "C" {
#include "../core/oz_internal.h"
}
#include "cublas_dyn.h"

#define OZ_KBLOCK 65536 /* INT8 products: 65536 * 128 * 128 = 2^30 < 2^31, exact in INT32 */

static inline dim3 blk32x8() { return dim3(32, 8); }

static inline int grid1(int64_t n, int bs) { return (int)((n + bs - 1) / bs); }

/* Every kernel launch goes through here: <<<>>> under nvcc, the CPU emulation of
 * emu/cuda_emu.h otherwise. */
template <typename... P, typename... A>
static void oz_launch(dim3 grid, dim3 block, cudaStream_t st, void (*kernel)(P...), A... args)
{
#ifdef OZ_CUDA_EMU
    (void)st;
    oz_emu_launch(grid, block, kernel, args...);
#else
    kernel<<<grid, block, 0, st>>>(args...);
#endif
}

/* With OZBLAS_CUDA_VERBOSE=1, a failing CUDA or cuBLAS call is named on stderr. */
void oz_cuda_report_failure(const char *file, const char *what, int code, int is_cublas,
                            int line);

/* ---- per (thread, device) state and one call's context ------------------------------------- */

typedef struct {
    int dev;
    oz_cublas_handle h;
    void *ws;
    size_t ws_size;
    cudaEvent_t *ev;
    int nev;
} dev_state;

typedef struct {
    int prev_dev;
    int dev;
    dev_state *s;
    cudaStream_t st;
    const oz_cublas *cb;
} run_ctx;

ozblas_status run_begin(run_ctx *r, const ozblas_options *opt);
void run_end(run_ctx *r);
/* Workspace of at least bytes (grown as needed); NULL when the device has not that much. */
void *ws_get(dev_state *s, size_t bytes);
/* At least n events in s->ev; 0 on failure. */
int events_get(dev_state *s, int n);
/* Milliseconds between two recorded events (0 on error). */
float elapsed(cudaEvent_t a, cudaEvent_t b);

/* ---- operands ------------------------------------------------------------------------------ */

/* A matrix of rows x cols elements (es bytes each) with leading dimension ld, either used in
 * place (device) or copied to/from a compact device buffer (ld = rows). */
typedef struct {
    const double *host;
    double *dev;
    int64_t ld;
    int on_dev;
    int64_t rows, cols;
    size_t es;
} mat;

int mat_init(mat *x, const double *p, int64_t ld, int64_t rows, int64_t cols, size_t es,
             int dev);
size_t mat_bytes(const mat *x);
cudaError_t mat_upload(const mat *x, int64_t ld_host, cudaStream_t st);
cudaError_t mat_download(const mat *x, int64_t ld_host, cudaStream_t st);

/* ---- workspace carving ------------------------------------------------------------------------ */

/* Bump allocator over the workspace (base NULL: a dry run that only sums the sizes). */
typedef struct {
    char *base;
    size_t off;
} carve;

static inline size_t align256(size_t b) { return (b + 255) & ~(size_t)255; }

static inline void *carve_take(carve *c, size_t bytes)
{
    void *p = c->base ? c->base + c->off : NULL;
    c->off += align256(bytes);
    return p;
}

/* ---- the INT8 product -------------------------------------------------------------------------- */

/* C32 (m x n, ldc) = A^T B for int8 A (kb x m, lda), B (kb x n, ldb): TN, IMMA. m, n, kb and
 * the leading dimensions must be multiples of 4, the pointers 4-byte aligned. */
oz_cublas_status gemm_i8(const run_ctx *r, int64_t m, int64_t n, int64_t kb, const int8_t *A,
                         int64_t lda, const int8_t *B, int64_t ldb, int *C, int64_t ldc);

/* ---- entry points of the other translation units ------------------------------------------ */

/* Automatic precision (executor_cuda.cu): the moduli count (o1_beta 0) or Ozaki I's slice
 * count (o1_beta its slice width) for this call; see its comment. */
ozblas_status cuda_auto_count(const oz_gemm_call *c, const ozblas_options *opt,
                              ozblas_report *rep, int o1_beta, int *count, double *ratio);

/* Ozaki I (ozaki1_cuda.cu): the oz_executor's ozaki1 entry. */
ozblas_status cuda_ozaki1(const oz_gemm_call *c, const ozblas_options *opt, ozblas_report *rep);

/* ---- error checking: each translation unit defines OZ_CUDA_FILE (its name) ------------------ */

#define CK(x)                                                                                     \
    do {                                                                                          \
        cudaError_t e_ = (x);                                                                     \
        if (e_ != cudaSuccess) {                                                                  \
            (void)cudaGetLastError();                                                             \
            oz_cuda_report_failure(OZ_CUDA_FILE, #x, (int)e_, 0, __LINE__);                       \
            st = OZBLAS_ERR_DEVICE;                                                               \
            goto done;                                                                            \
        }                                                                                         \
    } while (0)
#define CKB(x)                                                                                    \
    do {                                                                                          \
        oz_cublas_status s_ = (x);                                                                \
        if (s_ != OZ_CUBLAS_STATUS_SUCCESS) {                                                     \
            oz_cuda_report_failure(OZ_CUDA_FILE, #x, (int)s_, 1, __LINE__);                       \
            st = OZBLAS_ERR_DEVICE;                                                               \
            goto done;                                                                            \
        }                                                                                         \
    } while (0)
#define CKL() CK(cudaPeekAtLastError())

/* ---- op(X) as seen by the kernels ---------------------------------------------------------------
 * op(X) is a "packed" k x cols matrix, element (l, q): for A, q is a row of op(A) (q < m);
 * for B, q is a column of op(B) (q < n); l < k runs along the inner dimension. In memory,
 * (l, q) is at l + q ld when l runs along the stored columns ("l-contiguous": A with 'T'/'C',
 * B with 'N'), at q + l ld otherwise. Complex values are interleaved. */
struct oz_opv {
    const double *p; /* device memory, column-major */
    int64_t ld;      /* leading dimension, in (real or complex) elements */
    double sign;     /* -1 conjugates the imaginary part ('C'), else 1 */
};

template <bool LC, bool CX>
__device__ __forceinline__ void oz_load(const oz_opv &v, int64_t l, int64_t q, double &re,
                                        double &im)
{
    int64_t off = LC ? l + q * v.ld : q + l * v.ld;
    if (CX) {
        re = v.p[2 * off];
        im = v.sign * v.p[2 * off + 1]; /* as the CPU's pack(): sign * x */
    } else {
        re = v.p[off];
        im = 0.0;
    }
}

/* The view of op(A) (is_a) or op(B) on device memory; returns whether it is l-contiguous:
 * (l, q) = A(q, l) for 'N' (q contiguous), A(l, q) otherwise; op(B) the reverse. */
static inline int oz_op_view(const oz_gemm_call *c, int is_a, const double *dev, int64_t ld,
                             oz_opv *v)
{
    char tr = is_a ? c->transa : c->transb;
    v->p = dev;
    v->ld = ld;
    v->sign = tr == 'C' ? -1.0 : 1.0;
    return is_a ? tr != 'N' : tr == 'N';
}

/* The 32 x 32 tile (l0.., q0..) of op(X) into shared memory as t[q][l], read coalesced along
 * whichever index is contiguous in memory; zeros outside k x cols. Block (32, 8). */
template <bool LC, bool CX>
__device__ __forceinline__ void oz_load_tile(const oz_opv &v, int64_t k, int64_t cols, int64_t l0,
                                             int64_t q0, double (*tre)[33], double (*tim)[33])
{
    const int tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
    for (int r = 0; r < 4; r++) {
        const int ql = LC ? ty + 8 * r : tx, ll = LC ? tx : ty + 8 * r;
        const int64_t q = q0 + ql, l = l0 + ll;
        double re = 0.0, im = 0.0;
        if (q < cols && l < k)
            oz_load<LC, CX>(v, l, q, re, im);
        tre[ql][ll] = re;
        if (CX)
            tim[ql][ll] = im;
    }
    __syncthreads();
}

/* Dispatch on (layout, complex). */
#define OZ_DISPATCH(lc, cx, F, ...)                                                               \
    do {                                                                                          \
        if (lc) {                                                                                 \
            if (cx)                                                                               \
                F<true, true>(__VA_ARGS__);                                                       \
            else                                                                                  \
                F<true, false>(__VA_ARGS__);                                                      \
        } else {                                                                                  \
            if (cx)                                                                               \
                F<false, true>(__VA_ARGS__);                                                      \
            else                                                                                  \
                F<false, false>(__VA_ARGS__);                                                     \
        }                                                                                         \
    } while (0)

#endif
