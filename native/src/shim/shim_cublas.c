/* libozblas_preload.so, cuBLAS side: DGEMM and ZGEMM called from device code (CuPy,
 * PyTorch, any program linked against cuBLAS) routed to ozblas's CUDA executor.
 *
 * Exported: cublasDgemm_v2, cublasZgemm_v2, cublasGemmEx, cublasDgemmStridedBatched,
 * cublasZgemmStridedBatched, cublasGemmStridedBatchedEx, cublasDgemmBatched,
 * cublasZgemmBatched, cublasGemmBatchedEx, and the _64 form of each (int64_t dimensions,
 * cuBLAS 12 and later); cublas{D,Z}{trsm,trmm}_v2, cublasDsyrk_v2,
 * cublasZsyrk_v2, cublasZherk_v2, cublas{D,Z}symm_v2, cublasZhemm_v2, cublas{D,Z}syr2k_v2,
 * cublasZher2k_v2 and their _64 forms, computed by the LAPACK layer's blocked drivers on the
 * device pointers (below); cublasLtMatmul for FP64 and complex FP64 (JAX/XLA, MLX, PyTorch's
 * fused addmm; last section). Programs write cublasDgemm and cublasDgemm_64;
 * cublas_v2.h turns those into the _v2 symbols by macro. The exported symbol cublasDgemm
 * itself is the legacy API of cublas.h (no handle, scalars by value, errors through
 * cublasGetError): it has no stream to run on and no status to return, so it is left alone.
 *
 * Each entry goes through shim.c's settings, decision, counters and trace
 * (shim_internal.h; cuBLAS calls count as dgemm and zgemm, a batch with the flops of all
 * its products), plus what only a device call needs:
 *  - host pointer mode: alpha and beta are read on the host. In device pointer mode they
 *    are device memory and the call passes through, before anything reads them;
 *  - GemmEx: A, B and C all CUDA_R_64F or all CUDA_C_64F, compute type CUBLAS_COMPUTE_64F.
 *    Other data types are not DGEMM/ZGEMM and pass through untraced; the _PEDANTIC compute
 *    type, like the handle's pedantic math mode, asks for standard arithmetic and passes
 *    through (traced);
 *  - a usable CUDA executor, and a current context that is its device's primary context:
 *    the executor's CUDA runtime works in the primary context, and making it current
 *    would change the caller's context. The stream must not be capturing a CUDA graph
 *    (the executor allocates and synchronizes, which capture forbids), and A, B and C
 *    must be device or managed memory (anything else, such as host memory a system with
 *    HMM lets cuBLAS read, stays with cuBLAS); the batched forms with arrays of pointers
 *    (cublas*Batched) have those arrays read with a device-to-host copy on the handle's
 *    stream (never dereferenced on the host), and every matrix they name checked so.
 * A routed call runs its products as one ozblas batch (oz_gemm_batch, the engine of
 * ozblas_dgemm_batched; a single GEMM is a batch of one) with the CUDA executor on the
 * current device and the handle's stream, in place on the caller's device pointers: each
 * product gets the bits ozblas_dgemm/ozblas_zgemm give it alone. It returns once the work
 * has finished (the executor synchronizes that stream), so it is ordered after the
 * caller's earlier work on the stream and before its later work. If ozblas fails, the
 * products it did not compute go to the real routine, a run of consecutive ones per call
 * (those computed are done, and with beta != 0 must not run twice).
 * OZBLAS_DEVICE=cpu keeps every device call native; cuda:N does not pick the device here,
 * the caller's current device does.
 *
 * Everything else, and every failure of ozblas, goes to the real cuBLAS function with the
 * caller's arguments, found like the host routines by walking the loaded objects: under
 * LD_PRELOAD this library wins the global lookup, so the real one is the definition in
 * libcublas. If none is found the call returns CUBLAS_STATUS_NOT_INITIALIZED, C unchanged,
 * and a message names the symbol once.
 *
 * Re-entry: the CUDA executor calls cuBLAS through the handle its loader dlopen()ed
 * (cuda/cublas_loader.cu, try_open). dlsym on a handle searches that object and its
 * dependencies, not the global scope that holds this library, so those calls reach
 * libcublas directly. libcublas could still call its own exported names through its PLT
 * and land here: a per-thread depth counter sends every call made while this file is
 * inside a real cuBLAS call or an ozblas call straight to the real function, untraced.
 * (Executor calls made outside this file, from the Python API in a preloaded process,
 * rely on libcublas binding its own names internally; tests/shim/test_shim_cublas.py checks
 * that on the libcublas a GPU machine loads.)
 *
 * Built without CUDA headers or libraries: the few cuBLAS and driver types and values used
 * are declared below, and the driver functions are looked up among the loaded objects.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/oz_internal.h"
#include "shim_internal.h"

/* ABI values from cublas_api.h, library_types.h and cuda.h (CUDA 11 to 13). */
enum {
    CB_STATUS_SUCCESS = 0,         /* cublasStatus_t */
    CB_STATUS_NOT_INITIALIZED = 1,
    CB_STATUS_EXECUTION_FAILED = 13,
    CB_SIDE_LEFT = 0,              /* cublasSideMode_t (RIGHT = 1) */
    CB_FILL_LOWER = 0,             /* cublasFillMode_t (UPPER = 1) */
    CB_FILL_UPPER = 1,
    CB_DIAG_NON_UNIT = 0,          /* cublasDiagType_t (UNIT = 1) */
    CB_DIAG_UNIT = 1,
    CB_OP_N = 0,                   /* cublasOperation_t */
    CB_OP_T = 1,
    CB_OP_C = 2,
    CB_POINTER_MODE_HOST = 0,      /* cublasPointerMode_t (DEVICE = 1) */
    CB_PEDANTIC_MATH = 2,          /* cublasMath_t; flags such as 16 are or-ed above 15 */
    CB_R_64F = 1,                  /* cudaDataType */
    CB_C_64F = 5,
    CB_COMPUTE_64F = 70,           /* cublasComputeType_t (71: CUBLAS_COMPUTE_64F_PEDANTIC) */
    CU_SUCCESS = 0,                /* CUresult */
    CU_CAPTURE_NONE = 0,           /* CUstreamCaptureStatus */
    CU_POINTER_MEMORY_TYPE = 2,    /* CUpointer_attribute: CU_POINTER_ATTRIBUTE_MEMORY_TYPE */
    CU_POINTER_IS_MANAGED = 8,     /*   CU_POINTER_ATTRIBUTE_IS_MANAGED */
    CU_MEMORYTYPE_DEVICE = 2       /* CUmemorytype (managed memory may say HOST or DEVICE) */
};

/* ---- cuBLAS and driver functions the decision needs ------------------------------------- */

typedef int (*get_ptr_t)(void *handle, void **out);  /* cublasGetStream_v2 */
typedef int (*get_int_t)(void *handle, int *out);    /* cublasGetPointerMode_v2, cublasGetMathMode */
typedef int (*ctx_device_t)(int *dev);               /* cuCtxGetDevice */
typedef int (*ctx_current_t)(void **ctx);            /* cuCtxGetCurrent */
typedef int (*primary_state_t)(int dev, unsigned *flags, int *active); /* cuDevicePrimaryCtxGetState */
typedef int (*primary_retain_t)(void **ctx, int dev); /* cuDevicePrimaryCtxRetain */
typedef int (*primary_release_t)(int dev);            /* cuDevicePrimaryCtxRelease_v2 */
typedef int (*capturing_t)(void *stream, int *status); /* cuStreamIsCapturing */
typedef int (*pointer_attribute_t)(void *data, int attribute, unsigned long long ptr);
                                                       /* cuPointerGetAttribute */
typedef int (*copy_dtoh_t)(void *dst, unsigned long long src, size_t bytes, void *stream);
                                                       /* cuMemcpyDtoHAsync_v2 */
typedef int (*stream_sync_t)(void *stream);            /* cuStreamSynchronize */
typedef int (*lt_get_t)(void *desc, int attribute, void *buf, size_t size, size_t *written);
                                     /* cublasLtMatmulDescGetAttribute, ...LayoutGetAttribute */
typedef int (*copy_2d_t)(const void *copy, void *stream); /* cuMemcpy2DAsync_v2 */

enum {
    H_GET_STREAM,
    H_GET_POINTER_MODE,
    H_GET_MATH_MODE,
    H_CTX_CURRENT,
    H_CTX_DEVICE,
    H_PRIMARY_STATE,
    H_PRIMARY_RETAIN,
    H_PRIMARY_RELEASE,
    H_CAPTURING,
    H_POINTER_ATTRIBUTE,
    H_COPY_DTOH,
    H_STREAM_SYNC,
    H_LT_DESC_GET,
    H_LT_LAYOUT_GET,
    H_COPY_2D,
    H_COUNT
};
static const char *const helper_name[H_COUNT] = {
    "cublasGetStream_v2",         "cublasGetPointerMode_v2",  "cublasGetMathMode",
    "cuCtxGetCurrent",            "cuCtxGetDevice",           "cuDevicePrimaryCtxGetState",
    "cuDevicePrimaryCtxRetain",   "cuDevicePrimaryCtxRelease_v2", "cuStreamIsCapturing",
    "cuPointerGetAttribute",      "cuMemcpyDtoHAsync_v2",     "cuStreamSynchronize",
    "cublasLtMatmulDescGetAttribute", "cublasLtMatrixLayoutGetAttribute", "cuMemcpy2DAsync_v2"};
static void *helper_fn[H_COUNT];

/* Cached once found; looked for again while missing (libcuda may be loaded later). */
static void *helper(int i)
{
    void *f = __atomic_load_n(&helper_fn[i], __ATOMIC_ACQUIRE);
    if (!f && (f = oz_find_real_symbol(helper_name[i], NULL, 0)))
        __atomic_store_n(&helper_fn[i], f, __ATOMIC_RELEASE);
    return f;
}

/* p is device (or managed) memory. Other memory stays with cuBLAS: the executor would take
 * a pointer it cannot classify for host memory and read it on the host, where a bad pointer
 * crashes the process instead of failing on the device. */
static int device_memory(pointer_attribute_t attribute, const void *p)
{
    unsigned long long a = (unsigned long long)(uintptr_t)p;
    unsigned type = 0, managed = 0;
    if (attribute(&type, CU_POINTER_MEMORY_TYPE, a) != CU_SUCCESS)
        return 0;
    return type == CU_MEMORYTYPE_DEVICE ||
           (attribute(&managed, CU_POINTER_IS_MANAGED, a) == CU_SUCCESS && managed);
}

/* The current device, when the calling thread's current context is that device's primary
 * context, stream is not capturing and ptrs[0..2] (A, B and C, or a batch's arrays of
 * them) are device memory: -1; otherwise the N_* reason. */
static int device_ready(void *stream, const void *const ptrs[3], int *dev)
{
    ctx_current_t current = (ctx_current_t)helper(H_CTX_CURRENT);
    ctx_device_t device = (ctx_device_t)helper(H_CTX_DEVICE);
    primary_state_t state = (primary_state_t)helper(H_PRIMARY_STATE);
    primary_retain_t retain = (primary_retain_t)helper(H_PRIMARY_RETAIN);
    primary_release_t release = (primary_release_t)helper(H_PRIMARY_RELEASE);
    capturing_t capturing = (capturing_t)helper(H_CAPTURING);
    pointer_attribute_t attribute = (pointer_attribute_t)helper(H_POINTER_ATTRIBUTE);
    if (!current || !device || !state || !retain || !release || !capturing || !attribute)
        return N_CONTEXT;
    void *ctx = NULL, *primary = NULL;
    unsigned flags = 0;
    int active = 0, capture = 0;
    if (current(&ctx) != CU_SUCCESS || !ctx || device(dev) != CU_SUCCESS)
        return N_CONTEXT;
    /* Retained only while active, so that the check never creates a context. */
    if (state(*dev, &flags, &active) != CU_SUCCESS || !active ||
        retain(&primary, *dev) != CU_SUCCESS)
        return N_CONTEXT;
    release(*dev);
    if (primary != ctx)
        return N_CONTEXT;
    if (capturing(stream, &capture) != CU_SUCCESS || capture != CU_CAPTURE_NONE)
        return N_CAPTURE;
    for (int i = 0; i < 3; i++)
        if (!device_memory(attribute, ptrs[i]))
            return N_NOT_DEVICE;
    return -1;
}

/* ---- one call ------------------------------------------------------------------------------ */

/* Calls made while this thread is inside a real cuBLAS call or an ozblas call. */
static __thread int depth;

typedef struct {
    void *h;
    int ta, tb; /* cublasOperation_t */
    int64_t m, n, k, lda, ldb, ldc;
    const void *alpha, *A, *B, *beta;
    void *C;
    int64_t sa, sb, sc, batch; /* strided batches in elements (batch 1, strides 0 otherwise) */
    int cplx;
    int compute; /* cublasComputeType_t; CB_COMPUTE_64F for the typed entries */
    /* the batched forms with arrays of pointers: the device arrays (A, B, C then unused) */
    const void *const *Ap, *const *Bp;
    void *const *Cp;
    /* products left to the real routine: done[b] 0 (NULL: all of them); cu_next_run points
     * A, B, C (or Ap, Bp, Cp, at product at) and batch at each run of them in turn */
    unsigned char *done;
    int64_t total, at; /* total: the call's batch count */
} cu_call;

static char op_char(int op)
{
    return op == CB_OP_N ? 'N' : op == CB_OP_T ? 'T' : op == CB_OP_C ? 'C' : 0;
}

/* The call's record before anything is read: the sizes the counters and the trace show. */
static void cu_record(const cu_call *g, shim_call *c)
{
    memset(c, 0, sizeof *c);
    c->kind = K_GEMM;
    c->cplx = g->cplx;
    c->m = g->m, c->n = g->n, c->k = g->k;
    c->batch = g->batch > 0 ? g->batch : 0; /* no negative flops for a bad count */
}

/* The handle's pointer mode is host (alpha and beta readable here); else r->why. */
static int cu_host_pointer_mode(void *h, shim_result *r)
{
    get_int_t pointer_mode = (get_int_t)helper(H_GET_POINTER_MODE);
    int mode = -1;
    if (!pointer_mode || pointer_mode(h, &mode) != CB_STATUS_SUCCESS) {
        r->why = N_HANDLE;
        return 0;
    }
    if (mode != CB_POINTER_MODE_HOST) {
        r->why = N_POINTER_MODE;
        return 0;
    }
    return 1;
}

/* The options of a call on stream once device_ready(stream, ptrs): 1, or 0 with r->why. */
static int cu_stream_options(void *stream, const void *const ptrs[3], shim_result *r,
                             ozblas_options *opt)
{
    int dev = 0;
    int why = device_ready(stream, ptrs, &dev);
    if (why >= 0) {
        r->why = why;
        return 0;
    }
    *opt = *shim_options();
    opt->method = r->method; /* shim_decide's decision */
    opt->executor = OZBLAS_EXECUTOR_CUDA;
    opt->device = dev;
    opt->devices = 0; /* device operands run on their device, whatever the list */
    opt->stream = stream;
    return 1;
}

/* The last checks of a call to be routed (the handle's math mode not pedantic, a usable
 * executor, the handle's stream, device_ready on ptrs) and its options: 1, or 0 with
 * r->why. */
static int cu_run_options(void *h, const void *const ptrs[3], shim_result *r,
                          ozblas_options *opt)
{
    get_int_t math_mode = (get_int_t)helper(H_GET_MATH_MODE);
    int math = 0;
    if (math_mode && math_mode(h, &math) == CB_STATUS_SUCCESS &&
        (math & 15) == CB_PEDANTIC_MATH) {
        r->why = N_PEDANTIC;
        return 0;
    }
    if (!gpu_usable()) {
        r->why = N_NO_EXECUTOR;
        return 0;
    }
    get_ptr_t get_stream = (get_ptr_t)helper(H_GET_STREAM);
    void *stream = NULL;
    if (!get_stream || get_stream(h, &stream) != CB_STATUS_SUCCESS) {
        r->why = N_HANDLE;
        return 0;
    }
    return cu_stream_options(stream, ptrs, r, opt);
}

/* The matrices of a batch with arrays of pointers, read from the device arrays on the
 * handle's stream (after the caller's earlier work on it): -1, or the N_* reason (an array
 * that cannot be read, a matrix not in device memory). */
static int cu_read_arrays(const cu_call *g, void *stream, const double **pa, const double **pb,
                          double **pc)
{
    copy_dtoh_t copy = (copy_dtoh_t)helper(H_COPY_DTOH);
    stream_sync_t sync = (stream_sync_t)helper(H_STREAM_SYNC);
    pointer_attribute_t attribute = (pointer_attribute_t)helper(H_POINTER_ATTRIBUTE);
    const size_t bytes = sizeof(void *) * (size_t)g->batch;
    if (!copy || !sync || !attribute)
        return N_CONTEXT;
    if (copy(pa, (uintptr_t)g->Ap, bytes, stream) != CU_SUCCESS ||
        copy(pb, (uintptr_t)g->Bp, bytes, stream) != CU_SUCCESS ||
        copy(pc, (uintptr_t)g->Cp, bytes, stream) != CU_SUCCESS || sync(stream) != CU_SUCCESS)
        return N_NOT_DEVICE;
    for (int64_t b = 0; b < g->batch; b++)
        if (!device_memory(attribute, pa[b]) || !device_memory(attribute, pb[b]) ||
            !device_memory(attribute, pc[b]))
            return N_NOT_DEVICE;
    return -1;
}

/* Runs what can be routed: every product of the call as one ozblas batch (oz_gemm_batch;
 * a single GEMM is a batch of one). Returns 1 when the call is done (routed, or a quick
 * return); 0 when the real routine must run on the products g->done leaves (all of them
 * where it is NULL; r->why says why). */
static int cu_handle(cu_call *g, shim_call *c, shim_result *r)
{
    if (!cu_host_pointer_mode(g->h, r))
        return 0;
    if (!g->alpha || !g->beta) {
        r->why = N_ARGUMENT;
        return 0;
    }
    fill_gemm(c, g->cplx, op_char(g->ta), op_char(g->tb), g->m, g->n, g->k,
              (const double *)g->alpha, g->A, g->lda, g->B, g->ldb, (const double *)g->beta,
              g->C, g->ldc);
    c->batch = g->batch > 0 ? g->batch : 0;
    c->on_device = 1;
    const char *bad = g->batch < 0 ? "argument error" : check_gemm(c);
    if (!bad && g->batch == 0) {
        r->route = R_QUICK;
        return 1;
    }
    if (!shim_decide(c, bad, r))
        return r->route == R_QUICK;
    if (g->compute != CB_COMPUTE_64F) {
        r->why = N_COMPUTE_TYPE;
        return 0;
    }
    const void *const ptrs[3] = {g->Ap ? (const void *)g->Ap : g->A,
                                 g->Bp ? (const void *)g->Bp : g->B,
                                 g->Cp ? (const void *)g->Cp : g->C};
    ozblas_options opt;
    if (!cu_run_options(g->h, ptrs, r, &opt))
        return 0;
    const int64_t nb = g->batch, es = g->cplx ? 16 : 8;
    const double **pa = oz_malloc(sizeof *pa * (size_t)nb);
    const double **pb = oz_malloc(sizeof *pb * (size_t)nb);
    double **pc = oz_malloc(sizeof *pc * (size_t)nb);
    unsigned char *done = oz_calloc((size_t)nb, 1);
    int why = -1, ok = 0;
    if (!pa || !pb || !pc || !done) {
        r->why = N_FAILED;
        r->st = OZBLAS_ERR_ALLOCATION;
        goto out;
    }
    if (g->Ap) {
        why = cu_read_arrays(g, opt.stream, pa, pb, pc);
    } else {
        for (int64_t b = 0; b < nb; b++) {
            pa[b] = (const double *)((const char *)g->A + b * g->sa * es);
            pb[b] = (const double *)((const char *)g->B + b * g->sb * es);
            pc[b] = (double *)((char *)g->C + b * g->sc * es);
        }
    }
    if (why >= 0) {
        r->why = why;
        goto out;
    }
    depth++;
    ozblas_status st = oz_gemm_batch(shim_context(), c->cplx, c->ta, c->tb, c->m, c->n, c->k,
                                     c->alpha, pa, c->lda, pb, c->ldb, c->beta, pc, c->ldc, nb,
                                     &opt, &r->rep, done);
    depth--;
    if (st != OZBLAS_OK) {
        r->why = N_FAILED;
        r->st = st;
        g->done = done; /* the real routine runs what is left */
        done = NULL;
    } else {
        r->route = R_OZBLAS;
        ok = 1;
    }
out:
    free(pa);
    free(pb);
    free(pc);
    free(done);
    return ok;
}

/* The next run of products left to the real routine (g->done 0; all of them where g->done is
 * NULL, and a call with no product once, as given): g's pointers (or arrays) and batch set to
 * it. *b: where the search starts, moved past the run. 0 when no run is left. */
static int cu_next_run(cu_call *g, int64_t *b)
{
    if (g->total <= 0)
        return (*b)++ == 0;
    while (*b < g->total && g->done && g->done[*b])
        (*b)++;
    if (*b >= g->total)
        return 0;
    int64_t e = *b + 1;
    while (e < g->total && !(g->done && g->done[e]))
        e++;
    const int64_t d = *b - g->at, es = g->cplx ? 16 : 8;
    if (g->Ap) {
        g->Ap += d, g->Bp += d, g->Cp += d;
    } else {
        g->A = (const char *)g->A + d * g->sa * es;
        g->B = (const char *)g->B + d * g->sb * es;
        g->C = (char *)g->C + d * g->sc * es;
    }
    g->at = *b;
    g->batch = e - *b;
    *b = e;
    return 1;
}

/* The other entries' real routine runs once, on the caller's arguments. */
#define CU_ONCE(g, b) ((*(b))++ == 0)

/* ---- the exported entries ------------------------------------------------------------------ */

/* Every entry: slot (an oz_slot *), g (the call), REAL_ARGS (the arguments for the real
 * function: the caller's, with g's pointers and batch count where a batched call leaves
 * runs of its products to it). */
#define CU_BODY(slot, g, FN_T, REAL_ARGS)                                                      \
    CU_BODY_OF(slot, g, FN_T, REAL_ARGS, cu_record, cu_handle, cu_next_run, cu_end)
/* the same with the call's own record and handler functions; NEXT(&g, &run) sets g to each
 * run of the real routine in turn, END(&g) releases what the handler kept */
#define CU_BODY_OF(slot, g, FN_T, REAL_ARGS, RECORD, HANDLE, NEXT, END) \
    FN_T real_;                                                         \
    if (depth) {                                                        \
        real_ = (FN_T)shim_real(slot);                                  \
        return real_ ? real_ REAL_ARGS : CB_STATUS_NOT_INITIALIZED;     \
    }                                                                   \
    shim_call c_;                                                       \
    shim_result r_;                                                     \
    RECORD(&g, &c_);                                                    \
    c_.routine = (slot)->index;                                         \
    double t0_ = shim_begin(&r_, &c_);                                  \
    int st_ = CB_STATUS_SUCCESS;                                        \
    if (HANDLE(&g, &c_, &r_)) {                                         \
        if (r_.why == N_FAILED) /* done, but failed: the output changed */ \
            st_ = CB_STATUS_EXECUTION_FAILED;                           \
    } else {                                                            \
        real_ = (FN_T)shim_real(slot);                                  \
        if (real_) {                                                    \
            int64_t run_ = 0;                                           \
            depth++;                                                    \
            while (NEXT(&g, &run_)) {                                   \
                int s_ = real_ REAL_ARGS;                               \
                if (st_ == CB_STATUS_SUCCESS)                           \
                    st_ = s_;                                           \
            }                                                           \
            depth--;                                                    \
        } else {                                                        \
            st_ = CB_STATUS_NOT_INITIALIZED;                            \
            r_.why = N_NO_REAL;                                         \
        }                                                               \
    }                                                                   \
    END(&g);                                                            \
    shim_end(slot, &c_, &r_, t0_);                                      \
    return st_;

static void cu_end(cu_call *g) { free(g->done); }
#define CU_NO_END(g) ((void)0)

/* cublas{D,Z}gemm_v2 and their _64 forms (I: int or int64_t). */
#define GEMM_ENTRY(sym, I, CPLX, R)                                                            \
    OZ_EXPORT int sym(void *h, int ta, int tb, I m, I n, I k, const void *alpha, const void *A, \
                      I lda, const void *B, I ldb, const void *beta, void *C, I ldc)           \
    {                                                                                          \
        static oz_slot slot = {#sym, #R, K_GEMM, CPLX, NULL, 0, RI_##R, 1};                    \
        typedef int (*fn_t)(void *, int, int, I, I, I, const void *, const void *, I,          \
                            const void *, I, const void *, void *, I);                         \
        cu_call g = {h, ta, tb, m, n, k, lda, ldb, ldc, alpha, A, B, beta, C,                  \
                     0, 0, 0, 1, CPLX, CB_COMPUTE_64F, NULL, NULL, NULL, NULL, 1, 0};          \
        CU_BODY(&slot, g, fn_t, (h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc))     \
    }

/* cublas{D,Z}gemmStridedBatched and _64 (strides long long; NB: the batch count's type). */
#define STRIDED_ENTRY(sym, I, NB, CPLX, R)                                                     \
    OZ_EXPORT int sym(void *h, int ta, int tb, I m, I n, I k, const void *alpha, const void *A, \
                      I lda, long long sa, const void *B, I ldb, long long sb,                 \
                      const void *beta, void *C, I ldc, long long sc, NB batch)                \
    {                                                                                          \
        static oz_slot slot = {#sym, #R, K_GEMM, CPLX, NULL, 0, RI_##R, 1};                    \
        typedef int (*fn_t)(void *, int, int, I, I, I, const void *, const void *, I,          \
                            long long, const void *, I, long long, const void *, void *, I,    \
                            long long, NB);                                                    \
        cu_call g = {h, ta, tb, m, n, k, lda, ldb, ldc, alpha, A, B, beta, C,                  \
                     sa, sb, sc, batch, CPLX, CB_COMPUTE_64F, NULL, NULL, NULL, NULL, batch, 0}; \
        CU_BODY(&slot, g, fn_t, (h, ta, tb, m, n, k, alpha, g.A, lda, sa, g.B, ldb, sb, beta,  \
                                 g.C, ldc, sc, (NB)g.batch))                                   \
    }

/* cublas{D,Z}gemmBatched and _64: arrays of pointers to the matrices, in device memory. */
#define ARRAY_ENTRY(sym, I, NB, CPLX, R)                                                       \
    OZ_EXPORT int sym(void *h, int ta, int tb, I m, I n, I k, const void *alpha,               \
                      const void *const *A, I lda, const void *const *B, I ldb,                \
                      const void *beta, void *const *C, I ldc, NB batch)                       \
    {                                                                                          \
        static oz_slot slot = {#sym, #R, K_GEMM, CPLX, NULL, 0, RI_##R, 1};                    \
        typedef int (*fn_t)(void *, int, int, I, I, I, const void *, const void *const *, I,   \
                            const void *const *, I, const void *, void *const *, I, NB);       \
        cu_call g = {h, ta, tb, m, n, k, lda, ldb, ldc, alpha, NULL, NULL, beta, NULL,         \
                     0, 0, 0, batch, CPLX, CB_COMPUTE_64F, A, B, C, NULL, batch, 0};           \
        CU_BODY(&slot, g, fn_t, (h, ta, tb, m, n, k, alpha, g.Ap, lda, g.Bp, ldb, beta, g.Cp,  \
                                 ldc, (NB)g.batch))                                            \
    }

/* GemmEx: 0 when A, B and C are all CUDA_R_64F, 1 when all CUDA_C_64F, -1 otherwise. */
static int ex_family(int at, int bt, int ct)
{
    if (at != bt || at != ct)
        return -1;
    return at == CB_R_64F ? 0 : at == CB_C_64F ? 1 : -1;
}

/* Other data types go straight to the real function; FP64 ones are traced as dgemm or
 * zgemm. */
#define GEMMEX_ENTRY(sym, I)                                                                   \
    OZ_EXPORT int sym(void *h, int ta, int tb, I m, I n, I k, const void *alpha, const void *A, \
                      int at, I lda, const void *B, int bt, I ldb, const void *beta, void *C,  \
                      int ct, I ldc, int compute, int algo)                                    \
    {                                                                                          \
        static oz_slot sd = {#sym, "dgemm", K_GEMM, 0, NULL, 0, RI_dgemm, 1};                  \
        static oz_slot sz = {#sym, "zgemm", K_GEMM, 1, NULL, 0, RI_zgemm, 1};                  \
        typedef int (*fn_t)(void *, int, int, I, I, I, const void *, const void *, int, I,     \
                            const void *, int, I, const void *, void *, int, I, int, int);     \
        int cplx = ex_family(at, bt, ct);                                                      \
        if (cplx < 0) {                                                                        \
            fn_t real = (fn_t)shim_real(&sd);                                                  \
            return real ? real(h, ta, tb, m, n, k, alpha, A, at, lda, B, bt, ldb, beta, C, ct, \
                               ldc, compute, algo)                                             \
                        : CB_STATUS_NOT_INITIALIZED;                                           \
        }                                                                                      \
        cu_call g = {h, ta, tb, m, n, k, lda, ldb, ldc, alpha, A, B, beta, C,                  \
                     0, 0, 0, 1, cplx, compute, NULL, NULL, NULL, NULL, 1, 0};                 \
        CU_BODY(cplx ? &sz : &sd, g, fn_t, (h, ta, tb, m, n, k, alpha, A, at, lda, B, bt, ldb, \
                                            beta, C, ct, ldc, compute, algo))                  \
    }

#define STRIDEDEX_ENTRY(sym, I, NB)                                                            \
    OZ_EXPORT int sym(void *h, int ta, int tb, I m, I n, I k, const void *alpha, const void *A, \
                      int at, I lda, long long sa, const void *B, int bt, I ldb, long long sb, \
                      const void *beta, void *C, int ct, I ldc, long long sc, NB batch,        \
                      int compute, int algo)                                                   \
    {                                                                                          \
        static oz_slot sd = {#sym, "dgemm", K_GEMM, 0, NULL, 0, RI_dgemm, 1};                  \
        static oz_slot sz = {#sym, "zgemm", K_GEMM, 1, NULL, 0, RI_zgemm, 1};                  \
        typedef int (*fn_t)(void *, int, int, I, I, I, const void *, const void *, int, I,     \
                            long long, const void *, int, I, long long, const void *, void *,  \
                            int, I, long long, NB, int, int);                                  \
        int cplx = ex_family(at, bt, ct);                                                      \
        if (cplx < 0) {                                                                        \
            fn_t real = (fn_t)shim_real(&sd);                                                  \
            return real ? real(h, ta, tb, m, n, k, alpha, A, at, lda, sa, B, bt, ldb, sb,      \
                               beta, C, ct, ldc, sc, batch, compute, algo)                     \
                        : CB_STATUS_NOT_INITIALIZED;                                           \
        }                                                                                      \
        cu_call g = {h, ta, tb, m, n, k, lda, ldb, ldc, alpha, A, B, beta, C,                  \
                     sa, sb, sc, batch, cplx, compute, NULL, NULL, NULL, NULL, batch, 0};      \
        CU_BODY(cplx ? &sz : &sd, g, fn_t, (h, ta, tb, m, n, k, alpha, g.A, at, lda, sa, g.B,  \
                                            bt, ldb, sb, beta, g.C, ct, ldc, sc, (NB)g.batch,  \
                                            compute, algo))                                    \
    }

#define ARRAYEX_ENTRY(sym, I, NB)                                                              \
    OZ_EXPORT int sym(void *h, int ta, int tb, I m, I n, I k, const void *alpha,               \
                      const void *const *A, int at, I lda, const void *const *B, int bt, I ldb, \
                      const void *beta, void *const *C, int ct, I ldc, NB batch, int compute,  \
                      int algo)                                                                \
    {                                                                                          \
        static oz_slot sd = {#sym, "dgemm", K_GEMM, 0, NULL, 0, RI_dgemm, 1};                  \
        static oz_slot sz = {#sym, "zgemm", K_GEMM, 1, NULL, 0, RI_zgemm, 1};                  \
        typedef int (*fn_t)(void *, int, int, I, I, I, const void *, const void *const *, int, \
                            I, const void *const *, int, I, const void *, void *const *, int,  \
                            I, NB, int, int);                                                  \
        int cplx = ex_family(at, bt, ct);                                                      \
        if (cplx < 0) {                                                                        \
            fn_t real = (fn_t)shim_real(&sd);                                                  \
            return real ? real(h, ta, tb, m, n, k, alpha, A, at, lda, B, bt, ldb, beta, C, ct, \
                               ldc, batch, compute, algo)                                      \
                        : CB_STATUS_NOT_INITIALIZED;                                           \
        }                                                                                      \
        cu_call g = {h, ta, tb, m, n, k, lda, ldb, ldc, alpha, NULL, NULL, beta, NULL,         \
                     0, 0, 0, batch, cplx, compute, A, B, C, NULL, batch, 0};                  \
        CU_BODY(cplx ? &sz : &sd, g, fn_t, (h, ta, tb, m, n, k, alpha, g.Ap, at, lda, g.Bp, bt, \
                                            ldb, beta, g.Cp, ct, ldc, (NB)g.batch, compute,    \
                                            algo))                                             \
    }

GEMM_ENTRY(cublasDgemm_v2, int, 0, dgemm)
GEMM_ENTRY(cublasDgemm_v2_64, int64_t, 0, dgemm)
GEMM_ENTRY(cublasZgemm_v2, int, 1, zgemm)
GEMM_ENTRY(cublasZgemm_v2_64, int64_t, 1, zgemm)
STRIDED_ENTRY(cublasDgemmStridedBatched, int, int, 0, dgemm)
STRIDED_ENTRY(cublasDgemmStridedBatched_64, int64_t, int64_t, 0, dgemm)
STRIDED_ENTRY(cublasZgemmStridedBatched, int, int, 1, zgemm)
STRIDED_ENTRY(cublasZgemmStridedBatched_64, int64_t, int64_t, 1, zgemm)
GEMMEX_ENTRY(cublasGemmEx, int)
GEMMEX_ENTRY(cublasGemmEx_64, int64_t)
STRIDEDEX_ENTRY(cublasGemmStridedBatchedEx, int, int)
STRIDEDEX_ENTRY(cublasGemmStridedBatchedEx_64, int64_t, int64_t)
ARRAY_ENTRY(cublasDgemmBatched, int, int, 0, dgemm)
ARRAY_ENTRY(cublasDgemmBatched_64, int64_t, int64_t, 0, dgemm)
ARRAY_ENTRY(cublasZgemmBatched, int, int, 1, zgemm)
ARRAY_ENTRY(cublasZgemmBatched_64, int64_t, int64_t, 1, zgemm)
ARRAYEX_ENTRY(cublasGemmBatchedEx, int, int)
ARRAYEX_ENTRY(cublasGemmBatchedEx_64, int64_t, int64_t)

/* ---- trsm and trmm ------------------------------------------------------------------------
 * B := alpha op(A)^-1 B (or B op(A)^-1), and trmm's C := alpha op(A) B (or B op(A)), by the
 * LAPACK layer's blocked drivers (ozblas_[dz]trsm / trmm) on the caller's device pointers:
 * the off-diagonal blocks as ozblas products on the device, the diagonal blocks by the
 * host's trsm/trmm through the drivers' seam (copied there and back). The decision is a
 * LAPACK call's (size min(m, n); a triangle's order within one block passes through);
 * argument errors, alpha = 0, device pointer mode, trmm out of place (C != B), pedantic
 * math mode and every failure before B changes go to the real cuBLAS routine (m or n zero
 * returns at once, as cuBLAS does), which then
 * returns its own status (CUBLAS_STATUS_INVALID_VALUE for a bad argument). A device fault
 * in the middle of a run (OZBLAS_ERR_DEVICE) has B partly rewritten: it is not rerun and
 * returns CUBLAS_STATUS_EXECUTION_FAILED. */

/* The outcome of a LAPACK-layer call on the caller's device memory: 1 when done (routed;
 * or OZBLAS_ERR_DEVICE, after which the output may have changed: not rerun, the call returns
 * CUBLAS_STATUS_EXECUTION_FAILED), 0 when the real routine is to run. */
static int cu_lapack_done(ozblas_status st, const ozblas_lapack_report *rep, shim_result *r)
{
    if (st != OZBLAS_OK) {
        r->why = N_FAILED;
        r->st = st;
        return st == OZBLAS_ERR_DEVICE;
    }
    memset(&r->rep, 0, sizeof r->rep);
    r->route = R_OZBLAS;
    r->rep.method = rep->method;
    r->rep.executor = rep->executor;
    r->rep.moduli = rep->max_moduli;
    r->rep.bound = rep->max_bound;
    return 1;
}

typedef struct {
    void *h;
    int side, uplo, trans, diag; /* the cuBLAS enums */
    int64_t m, n, lda, ldb, ldc;
    const void *alpha, *A;
    void *B, *C; /* trsm: C is B */
    int cplx, mult;
} cu_tr;

/* The call's record before anything is read: a LAPACK-kind call whose sizes are those of
 * the product with its flops (m x n x K, K the triangle's order; the decision's size is
 * min(m, n), as for the host trsm). */
static void cu_tr_record(const cu_tr *g, shim_call *c)
{
    memset(c, 0, sizeof *c);
    c->kind = K_LAPACK;
    c->cplx = g->cplx;
    c->batch = 1;
    c->on_device = 1;
    int64_t K = g->side == CB_SIDE_LEFT ? g->m : g->n;
    c->m = g->m > 0 ? g->m : 0;
    c->n = g->n > 0 ? g->n : 0;
    c->k = K > 0 ? K : 0;
    c->flops = oz_lapack_flops(OZ_LF_TRSM, g->cplx, c->m, c->n, c->k);
}

static int cu_tr_handle(const cu_tr *g, shim_call *c, shim_result *r)
{
    char side = g->side == CB_SIDE_LEFT ? 'L' : g->side == 1 ? 'R' : 0;
    char uplo = g->uplo == CB_FILL_LOWER ? 'L' : g->uplo == CB_FILL_UPPER ? 'U' : 0;
    char ta = op_char(g->trans);
    char diag = g->diag == CB_DIAG_NON_UNIT ? 'N' : g->diag == CB_DIAG_UNIT ? 'U' : 0;
    int64_t K = side == 'L' ? g->m : g->n, rows = g->m > 1 ? g->m : 1;
    if (!side || !uplo || !ta || !diag || g->m < 0 || g->n < 0 || g->lda < (K > 1 ? K : 1) ||
        g->ldb < rows || (g->mult && g->ldc < rows) || !g->alpha) {
        r->why = N_ARGUMENT;
        return 0;
    }
    if (g->m == 0 || g->n == 0) { /* cuBLAS returns at once: nothing is read */
        r->route = R_QUICK;
        return 1;
    }
    if (!cu_host_pointer_mode(g->h, r))
        return 0;
    const double *alpha = (const double *)g->alpha;
    c->alpha[0] = alpha[0];
    c->alpha[1] = g->cplx ? alpha[1] : 0.0;
    if (!shim_decide(c, NULL, r))
        return 0;
    if (g->mult && g->C != g->B) {
        r->why = N_OUT_OF_PLACE;
        return 0;
    }
    /* the run's executor: device operands run with executor cuda (cu_stream_options) */
    if (K <= ozblas_lapack_block_size(K, OZBLAS_EXECUTOR_CUDA)) {
        r->why = N_ONE_BLOCK;
        return 0;
    }
    const void *const ptrs[3] = {g->A, g->B, g->B};
    ozblas_options opt;
    if (!cu_run_options(g->h, ptrs, r, &opt))
        return 0;
    ozblas_lapack_report rep;
    int64_t info = 0;
    double *B = (double *)g->B;
    const double *A = (const double *)g->A;
    ozblas_status st;
    depth++;
    if (g->cplx)
        st = (g->mult ? ozblas_ztrmm : ozblas_ztrsm)(shim_context(), side, uplo, ta, diag, g->m,
                                                     g->n, alpha, A, g->lda, B, g->ldb, &info, 0,
                                                     &opt, &rep);
    else
        st = (g->mult ? ozblas_dtrmm : ozblas_dtrsm)(shim_context(), side, uplo, ta, diag, g->m,
                                                     g->n, alpha[0], A, g->lda, B, g->ldb, &info,
                                                     0, &opt, &rep);
    depth--;
    return cu_lapack_done(st, &rep, r);
}

/* trsm: (h, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb); trmm adds C, ldc. */
#define TR_ENTRY(sym, I, CPLX, MULT, R)                                                        \
    OZ_EXPORT int sym(void *h, int side, int uplo, int trans, int diag, I m, I n,              \
                      const void *alpha, const void *A, I lda, void *B,                        \
                      I ldb TR_EXTRA_PARAMS_##MULT(I))                                         \
    {                                                                                          \
        static oz_slot slot = {#sym, #R, K_LAPACK, CPLX, NULL, 0, RI_##R, 1};                  \
        typedef int (*fn_t)(void *, int, int, int, int, I, I, const void *, const void *, I,   \
                            void *, I TR_EXTRA_TYPES_##MULT(I));                               \
        cu_tr g = {h, side, uplo, trans, diag, m, n, lda, ldb, TR_LDC_##MULT, alpha, A, B,     \
                   TR_C_##MULT, CPLX, MULT};                                                   \
        CU_BODY_OF(&slot, g, fn_t, (h, side, uplo, trans, diag, m, n, alpha, A, lda, B,        \
                                    ldb TR_EXTRA_ARGS_##MULT), cu_tr_record, cu_tr_handle,     \
                   CU_ONCE, CU_NO_END)                                                         \
    }
#define TR_EXTRA_PARAMS_0(I)
#define TR_EXTRA_PARAMS_1(I) , void *C, I ldc
#define TR_EXTRA_TYPES_0(I)
#define TR_EXTRA_TYPES_1(I) , void *, I
#define TR_EXTRA_ARGS_0
#define TR_EXTRA_ARGS_1 , C, ldc
#define TR_LDC_0 ldb
#define TR_LDC_1 ldc
#define TR_C_0 B
#define TR_C_1 C

TR_ENTRY(cublasDtrsm_v2, int, 0, 0, dtrsm)
TR_ENTRY(cublasDtrsm_v2_64, int64_t, 0, 0, dtrsm)
TR_ENTRY(cublasZtrsm_v2, int, 1, 0, ztrsm)
TR_ENTRY(cublasZtrsm_v2_64, int64_t, 1, 0, ztrsm)
TR_ENTRY(cublasDtrmm_v2, int, 0, 1, dtrmm)
TR_ENTRY(cublasDtrmm_v2_64, int64_t, 0, 1, dtrmm)
TR_ENTRY(cublasZtrmm_v2, int, 1, 1, ztrmm)
TR_ENTRY(cublasZtrmm_v2_64, int64_t, 1, 1, ztrmm)

/* ---- syrk, herk, symm, hemm, syr2k and her2k -------------------------------------------------
 * The triangle of C := alpha A op(A) + beta C (or alpha op(A) A + beta C), and with a second
 * operand B the triangle of C := alpha A op(B) + alpha' B op(A) + beta C (or the op(A) B
 * form), by the LAPACK layer's one SYRK code (ozblas_dsyrk, ozblas_zsyrk, ozblas_zherk,
 * ozblas_[dz]syr2k, ozblas_zher2k: products in column strips, the diagonal blocks' triangles
 * summed through the seam), and C := alpha A B + beta C (or alpha B A + beta C), A symmetric
 * or Hermitian, by ozblas_[dz]symm and ozblas_zhemm (the stored triangle expanded in strips
 * through the seam), all on the caller's device pointers. The decision is their GEMM's
 * (syrk and syr2k n x n x k, symm m x n x the order of A, as the host entries'), with no
 * one-block rule (each call is products only); argument errors (netlib's checks; cuBLAS's
 * transposes dsyrk/dsyr2k N, T or C, zsyrk/zsyr2k N or T, zherk/zher2k N or C), device
 * pointer mode, alpha = 0 or k = 0 (beta C), pedantic math mode and failures before C changes
 * go to the real cuBLAS routine; m or n zero returns at once, as cuBLAS does, and so does
 * alpha = 0 (or k = 0) with beta = 1. */

enum { CU_SYRK = OZ_L3_HER2K + 1, CU_HERK }; /* after the OZ_L3_* of the others */

typedef struct {
    void *h;
    int side, uplo, trans; /* the cuBLAS enums (symm: no trans; the others: no side) */
    int64_t m, n, k, lda, ldb, ldc; /* symm: m x n (k unused); the others: n x n, k */
    const void *alpha, *A, *B, *beta; /* syrk/herk: no B */
    void *C;
    int op; /* OZ_L3_SYMM, OZ_L3_HEMM, OZ_L3_SYR2K, OZ_L3_HER2K, CU_SYRK, CU_HERK */
    int cplx;
} cu_l3;

static int cu_l3_symm(const cu_l3 *g) { return g->op == OZ_L3_SYMM || g->op == OZ_L3_HEMM; }

/* The record: syrk/herk a SYRK-kind call (n x n x k, the host entries' flops); the others a
 * LAPACK-kind call with the sizes of their product (symm: m x n x the order of A) and its
 * nominal flops. */
static void cu_l3_record(const cu_l3 *g, shim_call *c)
{
    memset(c, 0, sizeof *c);
    int rk = g->op == CU_SYRK || g->op == CU_HERK;
    c->kind = rk ? (g->op == CU_HERK ? K_HERK : K_SYRK) : K_LAPACK;
    c->cplx = g->cplx;
    c->batch = 1;
    c->on_device = 1;
    int64_t k = cu_l3_symm(g) ? (g->side == CB_SIDE_LEFT ? g->m : g->n) : g->k;
    c->m = g->m > 0 ? g->m : 0;
    c->n = g->n > 0 ? g->n : 0;
    c->k = k > 0 ? k : 0;
    if (!rk)
        c->flops =
            oz_l3_flops(g->op, g->cplx, g->side == CB_SIDE_LEFT ? 'L' : 'R', c->m, c->n, c->k);
}

static int cu_l3_handle(const cu_l3 *g, shim_call *c, shim_result *r)
{
    int symm = cu_l3_symm(g), herm = g->op == CU_HERK || g->op == OZ_L3_HER2K;
    char side = !symm ? 0 : g->side == CB_SIDE_LEFT ? 'L' : g->side == 1 ? 'R' : 0;
    char uplo = g->uplo == CB_FILL_LOWER ? 'L' : g->uplo == CB_FILL_UPPER ? 'U' : 0;
    char ta = symm ? 0 : op_char(g->trans);
    /* syrk/herk are checked as syr2k/her2k with B = A (the same transposes) */
    int check = symm ? g->op : herm ? OZ_L3_HER2K : OZ_L3_SYR2K;
    if ((symm && !side) || !uplo || (!symm && !ta) || !g->alpha || !g->beta ||
        oz_l3_check(check, g->cplx, side, uplo, ta, g->m, g->n, g->k, g->lda, g->ldb, g->ldc)) {
        r->why = N_ARGUMENT;
        return 0;
    }
    if (g->m == 0 || g->n == 0) { /* cuBLAS returns at once: nothing is read */
        r->route = R_QUICK;
        return 1;
    }
    if (!cu_host_pointer_mode(g->h, r))
        return 0;
    /* zherk's alpha and beta are real, zher2k's beta */
    const double *al = (const double *)g->alpha, *be = (const double *)g->beta;
    c->alpha[0] = al[0];
    c->alpha[1] = g->cplx && g->op != CU_HERK ? al[1] : 0.0;
    c->beta[0] = be[0];
    c->beta[1] = g->cplx && !herm ? be[1] : 0.0;
    c->uplo = uplo;
    c->ta = ta;
    if (!shim_decide(c, NULL, r))
        return r->route == R_QUICK;
    const void *const ptrs[3] = {g->A, g->B ? g->B : g->C, g->C};
    ozblas_options opt;
    if (!cu_run_options(g->h, ptrs, r, &opt))
        return 0;
    ozblas_lapack_report rep;
    int64_t info = 0;
    ozblas_context *ctx = shim_context();
    const double *A = (const double *)g->A, *B = (const double *)g->B;
    double *C = (double *)g->C;
    int64_t m = g->m, n = g->n, k = g->k, lda = g->lda, ldb = g->ldb, ldc = g->ldc;
    ozblas_status st;
    depth++;
    switch (g->op) {
    case CU_SYRK:
        st = g->cplx ? ozblas_zsyrk(ctx, uplo, ta, n, k, c->alpha, A, lda, c->beta, C, ldc, &info,
                                    0, &opt, &rep)
                     : ozblas_dsyrk(ctx, uplo, ta, n, k, al[0], A, lda, be[0], C, ldc, &info, 0,
                                    &opt, &rep);
        break;
    case CU_HERK:
        st = ozblas_zherk(ctx, uplo, ta, n, k, al[0], A, lda, be[0], C, ldc, &info, 0, &opt,
                          &rep);
        break;
    case OZ_L3_SYMM:
        st = g->cplx ? ozblas_zsymm(ctx, side, uplo, m, n, c->alpha, A, lda, B, ldb, c->beta, C,
                                    ldc, &info, 0, &opt, &rep)
                     : ozblas_dsymm(ctx, side, uplo, m, n, al[0], A, lda, B, ldb, be[0], C, ldc,
                                    &info, 0, &opt, &rep);
        break;
    case OZ_L3_HEMM:
        st = ozblas_zhemm(ctx, side, uplo, m, n, c->alpha, A, lda, B, ldb, c->beta, C, ldc, &info,
                          0, &opt, &rep);
        break;
    case OZ_L3_SYR2K:
        st = g->cplx ? ozblas_zsyr2k(ctx, uplo, ta, n, k, c->alpha, A, lda, B, ldb, c->beta, C,
                                     ldc, &info, 0, &opt, &rep)
                     : ozblas_dsyr2k(ctx, uplo, ta, n, k, al[0], A, lda, B, ldb, be[0], C, ldc,
                                     &info, 0, &opt, &rep);
        break;
    default:
        st = ozblas_zher2k(ctx, uplo, ta, n, k, c->alpha, A, lda, B, ldb, be[0], C, ldc, &info, 0,
                           &opt, &rep);
    }
    depth--;
    return cu_lapack_done(st, &rep, r);
}

/* syrk/herk: (h, uplo, trans, n, k, alpha, A, lda, beta, C, ldc) */
#define RK_ENTRY(sym, I, CPLX, OP, R)                                                          \
    OZ_EXPORT int sym(void *h, int uplo, int trans, I n, I k, const void *alpha, const void *A, \
                      I lda, const void *beta, void *C, I ldc)                                 \
    {                                                                                          \
        static oz_slot slot = {#sym, #R, OP == CU_HERK ? K_HERK : K_SYRK, CPLX, NULL, 0,       \
                               RI_##R, 1};                                                     \
        typedef int (*fn_t)(void *, int, int, I, I, const void *, const void *, I,             \
                            const void *, void *, I);                                          \
        cu_l3 g = {h, 0, uplo, trans, n, n, k, lda, lda, ldc, alpha, A, NULL, beta, C, OP, CPLX}; \
        CU_BODY_OF(&slot, g, fn_t, (h, uplo, trans, n, k, alpha, A, lda, beta, C, ldc),        \
                   cu_l3_record, cu_l3_handle, CU_ONCE, CU_NO_END)                                                 \
    }

RK_ENTRY(cublasDsyrk_v2, int, 0, CU_SYRK, dsyrk)
RK_ENTRY(cublasDsyrk_v2_64, int64_t, 0, CU_SYRK, dsyrk)
RK_ENTRY(cublasZsyrk_v2, int, 1, CU_SYRK, zsyrk)
RK_ENTRY(cublasZsyrk_v2_64, int64_t, 1, CU_SYRK, zsyrk)
RK_ENTRY(cublasZherk_v2, int, 1, CU_HERK, zherk)
RK_ENTRY(cublasZherk_v2_64, int64_t, 1, CU_HERK, zherk)

/* symm: (h, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc); syr2k: (h, uplo, trans,
 * n, k, ...) with the same types. */
#define L3_ENTRY(sym, I, CPLX, OP, R)                                                          \
    OZ_EXPORT int sym(void *h, int e1, int e2, I d1, I d2, const void *alpha, const void *A,   \
                      I lda, const void *B, I ldb, const void *beta, void *C, I ldc)           \
    {                                                                                          \
        static oz_slot slot = {#sym, #R, K_LAPACK, CPLX, NULL, 0, RI_##R, 1};                  \
        typedef int (*fn_t)(void *, int, int, I, I, const void *, const void *, I,             \
                            const void *, I, const void *, void *, I);                         \
        int symm = OP == OZ_L3_SYMM || OP == OZ_L3_HEMM;                                       \
        cu_l3 g = {h, symm ? e1 : 0, symm ? e2 : e1, symm ? 0 : e2, d1, symm ? d2 : d1,        \
                   symm ? 0 : d2, lda, ldb, ldc, alpha, A, B, beta, C, OP, CPLX};              \
        CU_BODY_OF(&slot, g, fn_t, (h, e1, e2, d1, d2, alpha, A, lda, B, ldb, beta, C, ldc),   \
                   cu_l3_record, cu_l3_handle, CU_ONCE, CU_NO_END)                                                 \
    }

L3_ENTRY(cublasDsymm_v2, int, 0, OZ_L3_SYMM, dsymm)
L3_ENTRY(cublasDsymm_v2_64, int64_t, 0, OZ_L3_SYMM, dsymm)
L3_ENTRY(cublasZsymm_v2, int, 1, OZ_L3_SYMM, zsymm)
L3_ENTRY(cublasZsymm_v2_64, int64_t, 1, OZ_L3_SYMM, zsymm)
L3_ENTRY(cublasZhemm_v2, int, 1, OZ_L3_HEMM, zhemm)
L3_ENTRY(cublasZhemm_v2_64, int64_t, 1, OZ_L3_HEMM, zhemm)
L3_ENTRY(cublasDsyr2k_v2, int, 0, OZ_L3_SYR2K, dsyr2k)
L3_ENTRY(cublasDsyr2k_v2_64, int64_t, 0, OZ_L3_SYR2K, dsyr2k)
L3_ENTRY(cublasZsyr2k_v2, int, 1, OZ_L3_SYR2K, zsyr2k)
L3_ENTRY(cublasZsyr2k_v2_64, int64_t, 1, OZ_L3_SYR2K, zsyr2k)
L3_ENTRY(cublasZher2k_v2, int, 1, OZ_L3_HER2K, zher2k)
L3_ENTRY(cublasZher2k_v2_64, int64_t, 1, OZ_L3_HER2K, zher2k)

/* ---- cublasLtMatmul -------------------------------------------------------------------------
 * D = alpha op(A) op(B) + beta C as XLA (JAX), MLX and PyTorch's fused addmm ask cuBLASLt for
 * it. The descriptors are read through the real cuBLASLt's own getters
 * (cublasLtMatmulDescGetAttribute, cublasLtMatrixLayoutGetAttribute): no bookkeeping here.
 * A, B, C and D all CUDA_R_64F or all CUDA_C_64F are traced and counted as dgemm or zgemm;
 * other types, and layouts that cannot be read, go straight to the real cublasLtMatmul,
 * untraced, as GemmEx's other types do. Besides the cuBLAS entries' decision and device
 * checks, a call is routed when: every matmul attribute read is readable; compute type
 * CUBLAS_COMPUTE_64F (the pedantic one passes through, as for GemmEx); scale type the data's,
 * and no A, B, C or D scale pointer or amax-of-D pointer (an attribute this cuBLASLt does not
 * know cannot have been set); epilogue DEFAULT, or BIAS with beta = 0 (PyTorch's fused addmm:
 * D = alpha op(A) op(B) + bias, the bias, of D's type, broadcast to every column, at
 * bias + b BIAS_BATCH_STRIDE for product b); pointer mode HOST or DEVICE (device scalars are
 * copied to the host on the caller's stream once the call is otherwise routed); every layout
 * column order and not planar; TRANSC N, op(A) m x k, op(B) k x n, C and D m x n, one batch
 * count, strides >= 0; C either D itself (same leading dimension and batch stride) or
 * disjoint from it. ozblas then computes in place on D, which is first given, on the stream
 * (cuMemcpy2DAsync; D's rows beyond m stay untouched), C when C != D and beta != 0 (C is
 * only read), or the broadcast bias with beta 1 for the product (so the bias is added inside
 * the one rounding of ozblas's result: cuBLASLt's definition, D = alpha op(A) op(B) + bias,
 * rounded once; BIAS with beta != 0 passes through, as beta C + bias would be rounded apart).
 * The products run as one ozblas batch on
 * the caller's stream. If ozblas fails, the real cublasLtMatmul runs the whole call when that
 * is safe to repeat (C != D, beta = 0, or no product computed); an in-place call with
 * beta != 0 that failed after computing some products returns CUBLAS_STATUS_EXECUTION_FAILED
 * (its computed products must not be updated twice). */

enum {
    LT_DESC_COMPUTE = 0, /* cublasLtMatmulDescAttributes_t; int32_t unless said */
    LT_DESC_SCALE_TYPE = 1,
    LT_DESC_POINTER_MODE = 2,
    LT_DESC_TRANSA = 3,
    LT_DESC_TRANSB = 4,
    LT_DESC_TRANSC = 5,
    LT_DESC_EPILOGUE = 7,      /* uint32_t */
    LT_DESC_BIAS = 8,          /* pointer */
    LT_DESC_BIAS_STRIDE = 10,  /* int64_t, elements */
    LT_DESC_BIAS_TYPE = 26,    /* int32_t cudaDataType, -1 (default): D's type */
    LT_DESC_A_SCALE = 17,      /* pointers: A, B, C, D scale (17 to 20), amax of D (21) */
    LT_DESC_AMAX_D = 21,
    LT_LAYOUT_TYPE = 0,        /* cublasLtMatrixLayoutAttribute_t: uint32_t */
    LT_LAYOUT_ORDER = 1,       /* int32_t */
    LT_LAYOUT_ROWS = 2,        /* uint64_t */
    LT_LAYOUT_COLS = 3,        /* uint64_t */
    LT_LAYOUT_LD = 4,          /* int64_t */
    LT_LAYOUT_BATCH = 5,       /* int32_t */
    LT_LAYOUT_STRIDE = 6,      /* int64_t, elements */
    LT_LAYOUT_PLANE = 7,       /* int64_t, bytes; nonzero: planar complex */
    LT_ORDER_COL = 0,
    LT_EPILOGUE_DEFAULT = 1,
    LT_EPILOGUE_BIAS = 4,
    LT_POINTER_HOST = 0,
    LT_POINTER_DEVICE = 1,
    CU_MEMORYTYPE_UNIFIED = 4  /* CUmemorytype: a unified address (device or managed) */
};

/* CUDA_MEMCPY2D (cuda.h, CUDA 11 to 13) */
typedef struct {
    size_t src_x, src_y;
    int src_type;
    const void *src_host;
    unsigned long long src_device;
    void *src_array;
    size_t src_pitch;
    size_t dst_x, dst_y;
    int dst_type;
    void *dst_host;
    unsigned long long dst_device;
    void *dst_array;
    size_t dst_pitch;
    size_t width, height; /* bytes per row, rows */
} cu_copy2d;

typedef struct {
    int32_t type, order, batch;
    uint64_t rows, cols;
    int64_t ld, stride, plane;
} lt_layout;

typedef struct {
    void *desc;
    const void *alpha, *A, *B, *beta, *C;
    void *D, *stream;
    lt_layout l[4]; /* A, B, C, D */
    int cplx, read; /* read: the matmul attributes below were read */
    int32_t compute, scale, pmode, ta, tb, tc;
    uint32_t epilogue;
    int scaled; /* a scale or amax pointer is set */
    const void *bias; /* epilogue BIAS: the bias of product b at bias + b bias_stride */
    int64_t bias_stride;
    int32_t bias_type;
} lt_call;

static int lt_read_layout(lt_get_t get, void *h, lt_layout *l)
{
    size_t w;
    uint32_t type = 0;
    if (!h || get(h, LT_LAYOUT_TYPE, &type, 4, &w) || get(h, LT_LAYOUT_ORDER, &l->order, 4, &w) ||
        get(h, LT_LAYOUT_ROWS, &l->rows, 8, &w) || get(h, LT_LAYOUT_COLS, &l->cols, 8, &w) ||
        get(h, LT_LAYOUT_LD, &l->ld, 8, &w) || get(h, LT_LAYOUT_BATCH, &l->batch, 4, &w) ||
        get(h, LT_LAYOUT_STRIDE, &l->stride, 8, &w) || get(h, LT_LAYOUT_PLANE, &l->plane, 8, &w))
        return 0;
    l->type = (int32_t)type;
    return 1;
}

/* The descriptors of a call: 0 (FP64) or 1 (complex FP64) when all four layouts are read and
 * of that type, -1 otherwise (then nothing else is read). */
static int lt_read(lt_call *g, void *const lay[4])
{
    lt_get_t lget = (lt_get_t)helper(H_LT_LAYOUT_GET), dget = (lt_get_t)helper(H_LT_DESC_GET);
    if (!lget)
        return -1;
    for (int i = 0; i < 4; i++)
        if (!lt_read_layout(lget, lay[i], &g->l[i]) || g->l[i].type != g->l[0].type)
            return -1;
    if (g->l[3].type != CB_R_64F && g->l[3].type != CB_C_64F)
        return -1;
    g->cplx = g->l[3].type == CB_C_64F;
    size_t w;
    void *d = g->desc;
    g->read = dget && d && !dget(d, LT_DESC_COMPUTE, &g->compute, 4, &w) &&
              !dget(d, LT_DESC_SCALE_TYPE, &g->scale, 4, &w) &&
              !dget(d, LT_DESC_POINTER_MODE, &g->pmode, 4, &w) &&
              !dget(d, LT_DESC_TRANSA, &g->ta, 4, &w) && !dget(d, LT_DESC_TRANSB, &g->tb, 4, &w) &&
              !dget(d, LT_DESC_TRANSC, &g->tc, 4, &w) &&
              !dget(d, LT_DESC_EPILOGUE, &g->epilogue, 4, &w) &&
              !dget(d, LT_DESC_BIAS, &g->bias, sizeof g->bias, &w) &&
              !dget(d, LT_DESC_BIAS_STRIDE, &g->bias_stride, 8, &w);
    g->bias_type = -1; /* CUDA 12.0 and later */
    if (g->read)
        dget(d, LT_DESC_BIAS_TYPE, &g->bias_type, 4, &w);
    if (g->epilogue != LT_EPILOGUE_BIAS)
        g->bias = NULL;
    for (int a = LT_DESC_A_SCALE; g->read && a <= LT_DESC_AMAX_D; a++) {
        const void *p = NULL;
        g->scaled |= !dget(d, a, &p, sizeof p, &w) && p;
    }
    return g->cplx;
}

/* A dimension as the record shows it (a layout's uint64_t; 0 beyond int64_t's reach). */
static int64_t lt_dim(uint64_t x) { return x > (uint64_t)INT64_MAX / 16 ? 0 : (int64_t)x; }

static void lt_record(const lt_call *g, shim_call *c)
{
    memset(c, 0, sizeof *c);
    c->kind = K_GEMM;
    c->cplx = g->cplx;
    c->m = lt_dim(g->l[3].rows), c->n = lt_dim(g->l[3].cols);
    c->k = lt_dim(g->read && g->ta != CB_OP_N ? g->l[0].rows : g->l[0].cols);
    c->batch = g->l[3].batch > 0 ? g->l[3].batch : 0;
}

/* The bytes a layout's matrices span, the whole batch: 1, or 0 beyond an address's reach. */
static int lt_span(const lt_layout *l, int cplx, uint64_t *span)
{
    uint64_t a, b;
    return !__builtin_mul_overflow((uint64_t)(l->batch - 1), (uint64_t)l->stride, &a) &&
           !__builtin_mul_overflow(l->cols ? l->cols - 1 : 0, (uint64_t)l->ld, &b) &&
           !__builtin_add_overflow(a, b, &a) && !__builtin_add_overflow(a, l->rows, &a) &&
           !__builtin_mul_overflow(a, (uint64_t)(cplx ? 16 : 8), span) && *span < UINTPTR_MAX / 2;
}

/* The descriptors describe one D = alpha op(A) op(B) + beta C with one batch count, and
 * pointers to it: -1; otherwise the N_* reason to pass the call through. */
static int lt_check(const lt_call *g)
{
    const lt_layout *la = &g->l[0], *lb = &g->l[1], *lc = &g->l[2], *ld = &g->l[3];
    if (!g->read)
        return N_LT_DESCRIPTOR;
    if (g->compute != CB_COMPUTE_64F)
        return N_COMPUTE_TYPE;
    if (g->scale != ld->type || g->scaled)
        return N_LT_SCALING;
    if ((g->epilogue != LT_EPILOGUE_DEFAULT && g->epilogue != LT_EPILOGUE_BIAS) ||
        (g->bias_type != -1 && g->bias_type != ld->type))
        return N_LT_EPILOGUE;
    for (int i = 0; i < 4; i++)
        if (g->l[i].order != LT_ORDER_COL || g->l[i].plane)
            return N_LT_LAYOUT;
    if (g->pmode != LT_POINTER_HOST && g->pmode != LT_POINTER_DEVICE)
        return N_LT_POINTER_MODE;
    const int ta = g->ta != CB_OP_N, tb = g->tb != CB_OP_N;
    const uint64_t m = ld->rows, n = ld->cols, k = ta ? la->rows : la->cols;
    if (!op_char(g->ta) || !op_char(g->tb) || g->tc != CB_OP_N || (ta ? la->cols : la->rows) != m ||
        (tb ? lb->rows : lb->cols) != n || (tb ? lb->cols : lb->rows) != k || lc->rows != m ||
        lc->cols != n || !g->alpha || !g->beta || !g->A || !g->B || !g->D ||
        (g->epilogue == LT_EPILOGUE_BIAS && (!g->bias || g->bias_stride < 0)))
        return N_ARGUMENT;
    for (int i = 0; i < 4; i++) {
        const lt_layout *l = &g->l[i];
        if (l->batch != ld->batch || l->batch < 1 || l->stride < 0 || !lt_dim(l->rows + 1) ||
            !lt_dim(l->cols + 1) || l->ld < (l->rows > 1 ? (int64_t)l->rows : 1))
            return N_ARGUMENT;
    }
    if (g->C == g->D)
        return lc->ld == ld->ld && lc->stride == ld->stride ? -1 : N_LT_OVERLAP;
    uint64_t span_c, span_d;
    if (!lt_span(lc, g->cplx, &span_c) || !lt_span(ld, g->cplx, &span_d))
        return N_ARGUMENT;
    const uintptr_t c0 = (uintptr_t)g->C, d0 = (uintptr_t)g->D;
    return g->C && c0 < d0 + span_d && d0 < c0 + span_c ? N_LT_OVERLAP : -1;
}

/* shim_decide's quick return: with C != D or a bias, D := C (+ bias) is still to be done (by
 * cuBLASLt). */
static int lt_quick(const lt_call *g, shim_result *r)
{
    if (r->route != R_QUICK)
        return 0;
    if ((g->C == g->D && !g->bias) || !g->l[3].rows || !g->l[3].cols)
        return 1;
    r->route = R_NATIVE;
    r->why = N_ZERO;
    return 0;
}

static int lt_copy_2d(uintptr_t src, size_t src_pitch, uintptr_t dst, size_t dst_pitch,
                      size_t width, size_t height, void *stream)
{
    copy_2d_t copy = (copy_2d_t)helper(H_COPY_2D);
    cu_copy2d p;
    memset(&p, 0, sizeof p);
    p.src_type = p.dst_type = CU_MEMORYTYPE_UNIFIED;
    p.src_device = src, p.src_pitch = src_pitch;
    p.dst_device = dst, p.dst_pitch = dst_pitch;
    p.width = width, p.height = height;
    return copy && copy(&p, stream) == CU_SUCCESS;
}

/* What ozblas's D := alpha op(A) op(B) + beta' D then adds to alpha op(A) op(B), product by
 * product on the stream: C (beta' = beta, C != D), or the bias broadcast to every column
 * (beta' = 1, beta = 0: D = alpha op(A) op(B) + bias rounded once). 2D copies: D's rows
 * beyond m are not touched; the bias goes to column 0, then the filled columns are doubled. */
static int lt_prefill(const lt_call *g, void *stream)
{
    const lt_layout *lc = &g->l[2], *ld = &g->l[3];
    const size_t es = g->cplx ? 16 : 8, col = (size_t)ld->rows * es, pitch = (size_t)ld->ld * es;
    for (int32_t b = 0; b < ld->batch; b++) {
        const uintptr_t d = (uintptr_t)g->D + (uint64_t)b * (uint64_t)ld->stride * es;
        if (!g->bias) {
            const uintptr_t c = (uintptr_t)g->C + (uint64_t)b * (uint64_t)lc->stride * es;
            if (!lt_copy_2d(c, (size_t)lc->ld * es, d, pitch, col, ld->cols, stream))
                return 0;
            continue;
        }
        const uintptr_t v = (uintptr_t)g->bias + (uint64_t)b * (uint64_t)g->bias_stride * es;
        if (!lt_copy_2d(v, col, d, pitch, col, 1, stream))
            return 0;
        for (uint64_t h = 1; h < ld->cols; h *= 2)
            if (!lt_copy_2d(d, pitch, d + h * pitch, pitch, col,
                            h < ld->cols - h ? h : ld->cols - h, stream))
                return 0;
    }
    return 1;
}

/* Device-mode alpha and beta read on the stream, after the caller's earlier work on it. */
static int lt_device_scalars(const lt_call *g, double al[2], double be[2])
{
    copy_dtoh_t copy = (copy_dtoh_t)helper(H_COPY_DTOH);
    stream_sync_t sync = (stream_sync_t)helper(H_STREAM_SYNC);
    const size_t es = g->cplx ? 16 : 8;
    return copy && sync && copy(al, (uintptr_t)g->alpha, es, g->stream) == CU_SUCCESS &&
           copy(be, (uintptr_t)g->beta, es, g->stream) == CU_SUCCESS &&
           sync(g->stream) == CU_SUCCESS;
}

/* The products of the call as one ozblas batch on D (in place): 1 when done, 0 when the real
 * cublasLtMatmul is to run the whole call (repeatable: it may, even after some products). */
static int lt_run(const lt_call *g, const shim_call *c, const ozblas_options *opt, int repeatable,
                  shim_result *r)
{
    const int64_t nb = g->l[3].batch, es = g->cplx ? 16 : 8;
    const double **pa = oz_malloc(sizeof *pa * (size_t)nb);
    const double **pb = oz_malloc(sizeof *pb * (size_t)nb);
    double **pc = oz_malloc(sizeof *pc * (size_t)nb);
    unsigned char *done = oz_calloc((size_t)nb, 1);
    int ok = 0;
    if (!pa || !pb || !pc || !done) {
        r->why = N_FAILED;
        r->st = OZBLAS_ERR_ALLOCATION;
        goto out;
    }
    for (int64_t b = 0; b < nb; b++) {
        pa[b] = (const double *)((const char *)g->A + b * g->l[0].stride * es);
        pb[b] = (const double *)((const char *)g->B + b * g->l[1].stride * es);
        pc[b] = (double *)((char *)g->D + b * g->l[3].stride * es);
    }
    depth++;
    ozblas_status st = oz_gemm_batch(shim_context(), c->cplx, c->ta, c->tb, c->m, c->n, c->k,
                                     c->alpha, pa, c->lda, pb, c->ldb, c->beta, pc, c->ldc, nb,
                                     opt, &r->rep, done);
    depth--;
    if (st == OZBLAS_OK) {
        r->route = R_OZBLAS;
        ok = 1;
    } else {
        r->why = N_FAILED;
        r->st = st;
        /* computed products of an in-place update must not be updated again */
        int some = 0;
        for (int64_t b = 0; b < nb; b++)
            some |= done[b];
        ok = some && !repeatable;
    }
out:
    free(pa);
    free(pb);
    free(pc);
    free(done);
    return ok;
}

static int lt_handle(lt_call *g, shim_call *c, shim_result *r)
{
    int why = lt_check(g);
    if (why >= 0) {
        r->why = why;
        return 0;
    }
    const lt_layout *la = &g->l[0], *lb = &g->l[1], *ld = &g->l[3];
    const int device_mode = g->pmode == LT_POINTER_DEVICE;
    /* device scalars are read only for a call otherwise routed: decided first as if
     * alpha = 1, beta = 0 (the scalars only make a call quick or zero) */
    double al[2] = {1.0, 0.0}, be[2] = {0.0, 0.0};
    if (!device_mode) {
        memcpy(al, g->alpha, g->cplx ? 16 : 8);
        memcpy(be, g->beta, g->cplx ? 16 : 8);
    }
    fill_gemm(c, g->cplx, op_char(g->ta), op_char(g->tb), (int64_t)ld->rows, (int64_t)ld->cols,
              (int64_t)(g->ta != CB_OP_N ? la->rows : la->cols), al, g->A, la->ld, g->B, lb->ld,
              be, g->D, ld->ld);
    c->batch = ld->batch;
    c->on_device = 1;
    if (!shim_decide(c, check_gemm(c), r))
        return lt_quick(g, r);
    if (!gpu_usable()) {
        r->why = N_NO_EXECUTOR;
        return 0;
    }
    const void *const ptrs[3] = {g->A, g->B, g->D};
    ozblas_options opt;
    if (!cu_stream_options(g->stream, ptrs, r, &opt))
        return 0;
    if (device_mode) {
        if (!lt_device_scalars(g, al, be)) {
            r->why = N_NOT_DEVICE;
            return 0;
        }
        memcpy(c->alpha, al, sizeof al);
        memcpy(c->beta, be, sizeof be);
        if (!g->cplx)
            c->alpha[1] = c->beta[1] = 0.0;
        if (!shim_decide(c, NULL, r))
            return lt_quick(g, r);
        opt.method = r->method;
    }
    const int beta0 = c->beta[0] == 0.0 && c->beta[1] == 0.0;
    if (g->bias && !beta0) { /* bias + beta C would be rounded before the product's sum */
        r->why = N_LT_EPILOGUE;
        return 0;
    }
    const void *pre = g->bias ? g->bias : g->C != g->D && !beta0 ? g->C : NULL;
    if (pre) {
        if (!device_memory((pointer_attribute_t)helper(H_POINTER_ATTRIBUTE), pre)) {
            r->why = N_NOT_DEVICE;
            return 0;
        }
        if (!lt_prefill(g, g->stream)) { /* cuBLASLt rewrites D whole */
            r->why = N_FAILED;
            r->st = OZBLAS_ERR_DEVICE;
            return 0;
        }
        if (g->bias)
            c->beta[0] = 1.0;
    }
    return lt_run(g, c, &opt, g->C != g->D || beta0, r);
}

/* cublasLtMatmul (h, desc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc, algo,
 * workspace, workspace size, stream). */
#define LT_ENTRY(sym)                                                                          \
    OZ_EXPORT int sym(void *h, void *desc, const void *alpha, const void *A, void *la,         \
                      const void *B, void *lb, const void *beta, const void *C, void *lc,      \
                      void *D, void *ld, const void *algo, void *ws, size_t ws_size,           \
                      void *stream)                                                            \
    {                                                                                          \
        static oz_slot sd = {#sym, "dgemm", K_GEMM, 0, NULL, 0, RI_dgemm, 1};                  \
        static oz_slot sz = {#sym, "zgemm", K_GEMM, 1, NULL, 0, RI_zgemm, 1};                  \
        typedef int (*fn_t)(void *, void *, const void *, const void *, void *, const void *,  \
                            void *, const void *, const void *, void *, void *, void *,        \
                            const void *, void *, size_t, void *);                             \
        lt_call g = {.desc = desc, .alpha = alpha, .A = A, .B = B, .beta = beta, .C = C,       \
                     .D = D, .stream = stream};                                                \
        void *const lay[4] = {la, lb, lc, ld};                                                 \
        const int cplx = depth ? -1 : lt_read(&g, lay);                                        \
        if (cplx < 0) {                                                                        \
            fn_t real = (fn_t)shim_real(&sd);                                                  \
            return real ? real(h, desc, alpha, A, la, B, lb, beta, C, lc, D, ld, algo, ws,     \
                               ws_size, stream)                                                \
                        : CB_STATUS_NOT_INITIALIZED;                                           \
        }                                                                                      \
        CU_BODY_OF(cplx ? &sz : &sd, g, fn_t, (h, desc, alpha, A, la, B, lb, beta, C, lc, D,   \
                                               ld, algo, ws, ws_size, stream),                 \
                   lt_record, lt_handle, CU_ONCE, CU_NO_END)                                   \
    }

LT_ENTRY(cublasLtMatmul)
