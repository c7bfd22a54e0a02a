/* Infrastructure shared by the CUDA executor's translation units: cuda_device.cu (state,
 * call context), cuda_native.cu (cuBLAS calls, gemm_i8, the executor), cuda_auto.cu
 * (automatic precision's probe), cuda_ozaki2.cu and cuda_ozaki1.cu (the schemes' kernels),
 * staging.cu (operands, staging, tiling, timeline). Internal: the non-inline functions
 * declared here have C++ linkage and hidden visibility.
 *
 *   - per (thread, device) state: a cuBLAS handle, a cached workspace, events, copy streams
 *     and pinned staging chunks;
 *   - one call's device context (run_begin / run_sync / run_end);
 *   - operands used in place (device memory), uploaded whole, or streamed block by block
 *     (host), through pinned memory;
 *   - the tiling of a product larger than the device memory a call may use;
 *   - a bump allocator over the workspace; phase timing with events;
 *   - the INT8 x INT8 -> INT32 product (cublasGemmEx, TN);
 *   - error checking macros (CK, CKB, CKL: set st and goto done);
 *   - kernel launch (<<<>>> under nvcc, the CPU emulation otherwise), op(X) element loads.
 */
#ifndef OZ_CUDA_COMMON_CUH
#define OZ_CUDA_COMMON_CUH

#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>

#ifdef OZ_CUDA_EMU
#include "cuda_emu.h" /* tests/cuda/emu: the CUDA subset used here, emulated on the CPU */
#else
#include <cuda_runtime.h>
#endif

extern "C" {
#include "../core/phase_kernels.h"
}
#include "cublas_dyn.h"
#include "oz_cuda.h"

#define OZ_KBLOCK 65536 /* INT8 products: 65536 * 128 * 128 = 2^30 < 2^31, exact in INT32 */

static inline dim3 blk32x8() { return dim3(32, 8); }

static inline int grid1(int64_t n, int bs) { return (int)((n + bs - 1) / bs); }

static inline int64_t oz_up4(int64_t x) { return (x + 3) / 4 * 4; }    /* IMMA: m, n */
static inline int64_t oz_up16(int64_t x) { return (x + 15) / 16 * 16; } /* k, padded */
static inline int64_t oz_min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Every kernel launch goes through here: <<<>>> under nvcc, the CPU emulation of
 * tests/cuda/emu/cuda_emu.h otherwise. */
template <typename... P, typename... A>
static void oz_launch(dim3 grid, dim3 block, cudaStream_t st, void (*kernel)(P...), A... args)
{
#ifdef OZ_CUDA_EMU
    oz_emu_launch(grid, block, 0, st, kernel, args...);
#else
    kernel<<<grid, block, 0, st>>>(args...);
#endif
}

/* Shared memory is declared with OZ_SHARED(type, name, dims), `__shared__ type name dims;`
 * under nvcc: the CPU emulation gives each launch its own, sized and checked as on a GPU. */
#ifndef OZ_CUDA_EMU
#define OZ_SHARED(T, name, dims) __shared__ T name dims
#endif

/* With OZBLAS_CUDA_VERBOSE=1, a failing CUDA or cuBLAS call is named on stderr. */
void oz_cuda_report_failure(const char *file, const char *what, int code, int is_cublas,
                            int line);

/* Test-only entry points (not in ozblas.h). */
#define OZ_TEST_API extern "C" __attribute__((visibility("default")))

/* ---- per (thread, device) state and one call's context ------------------------------------- */

#define OZ_SYNC_EVENTS 16 /* ordering events: 4 pinned chunks, then 4 per staged operand */

typedef struct {
    int dev;
    oz_cublas_handle h;
    void *ws;
    size_t ws_size;
    int64_t i8_cols; /* the INT8 products' column chunk (oz_i8_max_cols) */
    cudaEvent_t *ev; /* timing events (oz_timeline) */
    int nev;
    /* host staging (staging.cu), set up by the first call with host operands */
    cudaStream_t up, dn; /* non-blocking copy streams (NULL: copies use the call's stream) */
    cudaEvent_t sync[OZ_SYNC_EVENTS]; /* ordering only (no timing) */
    int nsync;
    char *pin;        /* pinned host memory: 4 chunks, two for uploads and two for downloads */
    size_t pin_chunk; /* bytes per chunk; 0: none (copies from pageable memory) */
    int pin_next;     /* the upload chunk to fill next */
    struct oz_lt_cache *lt; /* the INT8 products' cuBLASLt plans (cuda_native.cu) */
} dev_state;

/* Frees a state's cuBLASLt plans and their workspace (its device current). */
void oz_lt_cache_free(struct oz_lt_cache *c);

typedef struct {
    int prev_dev;
    int dev;
    dev_state *s;
    cudaStream_t st;     /* the call's stream: every kernel and product runs on it */
    cudaStream_t up, dn; /* copies of host operands (st where no copy stream could be made) */
    const oz_cublas *cb;
} run_ctx;

ozblas_status run_begin(run_ctx *r, const ozblas_options *opt);
/* Waits for the call's streams; returns the first error of the call's work. */
cudaError_t run_sync(run_ctx *r);
void run_end(run_ctx *r);


/* Workspace of at least bytes (grown as needed); NULL when the device has not that much. */
void *ws_get(dev_state *s, size_t bytes);
/* At least n events in s->ev; 0 on failure. */
int events_get(dev_state *s, int n);
/* Milliseconds between two recorded events (0 on error). */
float elapsed(cudaEvent_t a, cudaEvent_t b);

/* Device memory a call may plan with: free memory plus the cached workspace, less a margin
 * for cuBLAS and others; capped by oz_cuda_test_cap_workspace (tests). */
size_t oz_device_budget(const run_ctx *r);

/* Phase times from events recorded on the call's stream: each mark closes a segment that
 * belongs to a phase (0..4) or to none (-1: waits for copies, host round trips). When the
 * events run out, the finished segments are added up first (a short wait for the device),
 * so any number of tiles can be timed. */
typedef struct {
    cudaEvent_t *ev;
    int *label;
    int n, cap;
    double ms[5];
} oz_timeline;
int tl_init(oz_timeline *t, dev_state *s, int cap); /* 0 on failure */
cudaError_t tl_mark(oz_timeline *t, int phase, cudaStream_t st);
/* Adds up the segments recorded so far (their work must have finished) into rep. */
void tl_finish(oz_timeline *t, ozblas_report *rep);
void tl_free(oz_timeline *t);

/* The end of a call's state (from oz_run_new): waits for its work (when begun), run_end,
 * then frees its host arrays, its timeline (tl may be NULL) and the state itself. */
void oz_run_free(void *state, run_ctx *r, int *hbuf, oz_timeline *tl);

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

/* ---- operands ------------------------------------------------------------------------------ */

/* A block of a stored (column-major) matrix: rows r0.., columns c0... */
typedef struct {
    int64_t r0, c0, rows, cols;
} oz_blk;

/* How a call's matrix reaches the kernels: in place (device memory of this device, or
 * managed), uploaded whole once (resident), or block by block through device slots
 * (streamed: two slots, so that the next block uploads while the current one is used; one
 * where there is a single block). Host memory goes through the pinned staging chunks, which
 * a host thread fills while the copy engine drains the other one. */
enum { OZ_IN_PLACE = 0, OZ_RESIDENT = 1, OZ_STREAMED = 2 };

typedef struct {
    const double *host;  /* the caller's pointer */
    int64_t ld_host;     /* its leading dimension */
    int64_t rows, cols;  /* stored dimensions */
    size_t es;           /* bytes per element (8 or 16) */
    int on_dev;          /* on this device: used in place */
    int pinned;          /* page-locked host memory: copied without staging */
    int mode;            /* OZ_IN_PLACE, OZ_RESIDENT, OZ_STREAMED */
    double *dev;         /* in place: the caller's pointer; resident: the device copy */
    int64_t ld;          /* leading dimension of dev */
    double *slot[2];     /* streamed: device buffers */
    size_t slot_bytes;
    int nslots;
    oz_blk held[2];      /* the block in each slot (rows < 0: none) */
    int has[2];          /* ... with its data (not only claimed, to be written) */
    int cur;             /* the slot handed out last */
    int id;              /* 0, 1, 2: which of the state's ordering events it uses */
} mat;

/* Where a block is for the kernels: element (r0, c0) at p, leading dimension ld. */
typedef struct {
    double *p;
    int64_t ld;
    int slot;
} mat_view;

/* 0 when p is on another device. Host matrices start resident, device ones in place. */
int mat_init(mat *x, const double *p, int64_t ld, int64_t rows, int64_t cols, size_t es,
             int dev, int id);
/* The call's A, B and C (ids 0, 1, 2); 0 when one is on another device. */
int mats_init(const oz_gemm_call *c, int dev, mat *A, mat *B, mat *C);
/* A host matrix streamed through nslots device slots of slot_bytes each (0: resident). */
void mat_stream(mat *x, size_t slot_bytes, int nslots);
size_t mat_bytes(const mat *x); /* device memory it needs (0 in place) */
void mat_carve(mat *x, carve *cv);
static inline oz_blk oz_whole(const mat *x)
{
    oz_blk b = {0, 0, x->rows, x->cols};
    return b;
}

/* Host staging for a call with these operands (NULL: unused; nothing when all are in
 * place): copy streams, ordering events, pinned chunks for their blocks (smaller when
 * page-locked memory is short, or none: pageable copies). Call after the operands' modes
 * are set and before their first copy. */
cudaError_t stage_prepare(run_ctx *r, const mat *A, const mat *B, const mat *C);
/* Resident: the whole matrix to the device; the call's stream waits for it. */
cudaError_t mat_upload(run_ctx *r, mat *x);
/* Starts uploading block b into the slot not handed out last (streamed; load = 0: a block
 * that will only be written, nothing is copied). */
cudaError_t mat_prefetch(run_ctx *r, mat *x, const oz_blk *b, int load);
/* Block b for work queued next on the call's stream (which waits for its upload). */
cudaError_t mat_block(run_ctx *r, mat *x, const oz_blk *b, int load, mat_view *v);
/* The work on v is queued: its slot may be refilled after that work. */
cudaError_t mat_release(run_ctx *r, mat *x, const mat_view *v);
/* After mat_release: block b (written by the released work) to the host; returns when the
 * caller's memory holds it, while the call's stream goes on with later work. */
cudaError_t mat_store(run_ctx *r, mat *x, const mat_view *v, const oz_blk *b);

/* ---- tiling ---------------------------------------------------------------------------------- */

/* C in mb x nb tiles (the last ones ragged), k in blocks of kc (a multiple of 16 when k is
 * split); host op(A) and op(B) resident or streamed. */
typedef struct {
    int64_t mb, nb, kc;
    int64_t nI, nJ, nL;
    int res; /* host operands resident (else streamed) */
} oz_tiling;

/* Workspace bytes of a tiling for one method (ctx: that method's sizes). */
typedef size_t (*oz_tile_bytes)(const oz_tiling *t, const void *ctx);

/* The tiling for a product within budget bytes: one tile where it fits (C's columns then
 * split into a few tiles when C is on the host and large, so that its copies overlap the
 * products); otherwise the largest tiles with the host operands resident, or streamed where
 * that allows much larger tiles; k split (split_k) only when even the smallest tiles do not
 * fit. Returns 0 when nothing fits. */
int oz_plan_tiles(int64_t m, int64_t n, int64_t k, int host_c, int split_k, size_t c_bytes,
                  size_t budget, oz_tile_bytes f, const void *ctx, oz_tiling *t);
/* The stored block of op(A) (is_a) or op(B) for packed columns q0..q0+qc, inner l0..l0+lc. */
oz_blk oz_side_blk(const oz_gemm_call *c, int is_a, int64_t q0, int64_t qc,
                   int64_t l0, int64_t lc);
/* A tiled call's workspace: the tiling oz_plan_tiles finds within the device budget, applied
 * to ctx (apply) and laid out (layout: cv->base NULL only sums the sizes); when an
 * allocation fails despite the plan (fragmentation, other threads), planned again in half
 * the memory. On success the workspace is laid out and the tiling (applied: where apply put
 * it) recorded for the tests; NULL when nothing fits. */
typedef void (*oz_tile_apply)(void *ctx, const oz_tiling *t);
typedef void (*oz_tile_layout)(void *ctx, carve *cv);
void *oz_tiled_workspace(run_ctx *r, const oz_gemm_call *c, int split_k, const mat *A,
                         const mat *B, const mat *C, oz_tile_bytes bytes, oz_tile_apply apply,
                         oz_tile_layout layout, void *ctx, const oz_tiling *applied);
/* Workspace bytes of tiling t for call state R: APPLY and LAYOUT on a copy of *ctx. */
template <typename R, oz_tile_apply APPLY, oz_tile_layout LAYOUT>
static size_t oz_tile_bytes_of(const oz_tiling *t, const void *ctx)
{
    R o = *(const R *)ctx;
    APPLY(&o, t);
    carve cv = {NULL, 0};
    LAYOUT(&o, &cv);
    return cv.off;
}
/* oz_tiled_workspace for call state R (members A, B, C and the tiling t). */
template <typename R, oz_tile_apply APPLY, oz_tile_layout LAYOUT>
static void *oz_tiled_ws(run_ctx *r, const oz_gemm_call *c, int split_k, R *o)
{
    return oz_tiled_workspace(r, c, split_k, &o->A, &o->B, &o->C,
                              oz_tile_bytes_of<R, APPLY, LAYOUT>, APPLY, LAYOUT, o, &o->t);
}
/* Tests: the calling thread's last tiling (oz_cuda_test_last_plan). */
void oz_plan_record(const oz_tiling *t, const mat *A, const mat *B, const mat *C);

/* A call's state R (members run_ctx rc, and run_ctx *r pointing at it): zeroed, *run set to
 * it and to *out (for the close kernel, also after a failure), the thread's recorded tiling
 * cleared; returns run_begin's status (OZBLAS_ERR_ALLOCATION: no state). */
template <typename R>
static ozblas_status oz_run_new(void **run, const ozblas_options *opt, R **out)
{
    R *o = (R *)calloc(1, sizeof(R));
    *run = *out = o;
    if (!o)
        return OZBLAS_ERR_ALLOCATION;
    o->r = &o->rc;
    oz_plan_record(NULL, NULL, NULL, NULL);
    return run_begin(o->r, opt);
}

/* Copies height rows of width bytes between host buffers (host_copy.c). */
extern "C" void oz_host_copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                                size_t width, size_t height);

/* Where memory lives: 1 on device dev (or managed: used in place), 0 on the host (copied;
 * *pinned when page-locked), -1 on another device (an error). */
int mem_where(const void *p, int dev, int *pinned);

/* ---- the INT8 product -------------------------------------------------------------------------- */

/* C32 (m x n, ldc) = A^T B for int8 A (kb x m, lda), B (kb x n, ldb): TN, IMMA. m, n, kb and
 * the leading dimensions must be multiples of 4, the pointers 4-byte aligned. Issued with n in
 * chunks of at most the device state's i8_cols columns, each through cuBLASLt with the
 * algorithm chosen once for its shape (cached per thread and device), or cublasGemmEx where
 * cuBLASLt has none. */

/* The widest INT8 product (columns of C) one cuBLAS call gets on device dev (0: no limit),
 * decided once per (thread, device) state: on sm_90, at most 8192 (GEMMul8 measured 12% more
 * from such chunks on a GH200; not yet measured here), elsewhere a single call. */
int64_t oz_i8_max_cols(int dev);
oz_cublas_status gemm_i8(const run_ctx *r, int64_t m, int64_t n, int64_t kb, const int8_t *A,
                         int64_t lda, const int8_t *B, int64_t ldb, int *C, int64_t ldc);
/* batch such products, the b-th on A + b sa, B + b sb, C + b sc (strides in elements,
 * multiples of 4): one cublasGemmStridedBatchedEx per column chunk (gemm_i8 one by one where
 * the loaded cuBLAS lacks it). */
oz_cublas_status gemm_i8_batched(const run_ctx *r, int64_t m, int64_t n, int64_t kb,
                                 const int8_t *A, int64_t lda, int64_t sa, const int8_t *B,
                                 int64_t ldb, int64_t sb, int *C, int64_t ldc, int64_t sc,
                                 int64_t batch);

/* This thread's cuBLASLt handle on device dev (created on first use; NULL on failure). */
oz_cublaslt_handle oz_lt_handle(const oz_cublaslt *lt, int dev);

/* The same product on the call's engine (an ozblas_engine; cuda_fp4.cu): INT8 is gemm_i8,
 * FP4 writes the values in nd base-13 limbs (|x| <= oz_fp4_range(nd), kb <= OZ_FP4_MAX_K)
 * and needs work: oz_engine_work_bytes(engine, nd, m, n, kb) bytes of device memory (0 for
 * INT8). Same bits on either engine. */
size_t oz_engine_work_bytes(int engine, int nd, int64_t m, int64_t n, int64_t kb);
oz_cublas_status gemm_engine(const run_ctx *r, int engine, int nd, void *work, int64_t m,
                             int64_t n, int64_t kb, const int8_t *A, int64_t lda,
                             const int8_t *B, int64_t ldb, int *C, int64_t ldc);
/* Whether the FP4 engine runs exactly on device dev: cc 10.x or 12.x, cuBLASLt with FP4, and
 * the worst-case probe product exact (run once per device and process); why: the reason. */
int oz_cuda_fp4_usable(int dev, char *why, size_t len);

/* ---- the executor's parts in the other translation units ---------------------------------- */

/* cuda_multi.cu: inside a tile of a product spread over several devices, uploads the whole
 * product's Ozaki II bits of the tile's rows (m, to bits_a) and columns (n, to bits_b) on
 * the call's stream and returns 1 (*e: the copies' status); 0 elsewhere. */
int oz_multi_bits(run_ctx *r, int *bits_a, int64_t m, int *bits_b, int64_t n, cudaError_t *e);

/* cuda_exact.cu: the executor's exact-product kernels (oz_executor.exact). */
extern "C" const oz_exact_kernels cuda_exact_kernels;

/* cuda_device.cu: 1 when CUDA can run here (why: the reason when not). */
int oz_cuda_available(char *why, size_t len);

/* The kernels of core/phase_kernels.h (struct oz_kernels documents each): automatic
 * precision's probe (cuda_auto.cu), Ozaki II (cuda_ozaki2.cu), Ozaki I (cuda_ozaki1.cu). */
OZ_DECLARE_KERNELS(cuda_);
/* cuda_batch.cu: Ozaki II over a batch of products (oz_executor.batch). */
extern "C" const oz_batch_kernels cuda_batch_kernels;

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

/* The block's 32 x 32 tile of op(X) (tiles_l tiles along l), loaded by oz_load_tile, then f
 * for this thread's entries with l < lmax and q < qmax. Block (32, 8).
 * W = 1: f(l, q, re, im) for the entries (l, q + 8 r), r < 4.
 * W = 4: four consecutive l (l and lmax multiples of 4) at one q, f(l, q, re, im) with re and
 * im pointing at the four values (im NULL for real X), so that the caller writes them as one
 * 4-byte store; a warp covers 4 columns q of 32 l each. */
template <bool LC, bool CX, int W = 1, typename F>
__device__ __forceinline__ void oz_tile_each(const oz_opv &v, int64_t k, int64_t cols,
                                             int64_t tiles_l, int64_t lmax, int64_t qmax, F f)
{
    OZ_SHARED(double, tre, [32][33]);
    OZ_SHARED(double, tim, [CX ? 32 : 1][33]);
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t tile = blockIdx.x;
    const int64_t l0 = (tile % tiles_l) * 32, q0 = (tile / tiles_l) * 32;
    oz_load_tile<LC, CX>(v, k, cols, l0, q0, tre, tim);
    if constexpr (W == 4) {
        const int ll = 4 * (tx & 7), ql = 4 * ty + (tx >> 3);
        const int64_t l = l0 + ll, q = q0 + ql;
        if (l < lmax && q < qmax)
            f(l, q, &tre[ql][ll], CX ? &tim[ql][ll] : (const double *)NULL);
    } else {
        const int64_t l = l0 + tx;
        if (l >= lmax)
            return;
#pragma unroll
        for (int r = 0; r < 4; r++) {
            const int ql = ty + 8 * r;
            const int64_t q = q0 + ql;
            if (q >= qmax)
                return;
            f(l, q, tre[ql][tx], CX ? tim[ql][tx] : 0.0);
        }
    }
}

/* Four int8 values at p (4-byte aligned) in one store. */
__device__ __forceinline__ void oz_store4(int8_t *p, int a, int b, int c, int d)
{
    *reinterpret_cast<char4 *>(p) = make_char4((signed char)a, (signed char)b, (signed char)c,
                                               (signed char)d);
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
