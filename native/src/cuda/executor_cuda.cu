/* CUDA executor: native DGEMM/ZGEMM through cuBLAS, and Ozaki II with the integer products
 * on INT8 tensor cores (cublasGemmEx, INT32 accumulation), the elementwise steps in the
 * kernels of kernels_ozaki2.cuh.
 *
 * It reproduces cpu_ozaki2 (cpu/executor_cpu.c) step by step and bit for bit: the same
 * element functions, the same fallback rules in the same order, integer reductions only.
 * The integer products differ only in their k-blocking (65536 here, 1024 there, and the
 * k-blocks of a tiling); each block's product is exact in INT32 (65536 * 128 * 128 = 2^30)
 * and is reduced to the canonical symmetric residue, so the accumulated residue is the same
 * on both. A product larger than the device memory runs in tiles of C (o2_run below).
 *
 * Ozaki I is in ozaki1_cuda.cu, the host staging and the tiling plan in staging.cu; what
 * they share is declared in cuda_common.cuh (per-thread state, call context and gemm_i8 are
 * defined here).
 *
 * cuBLAS is opened at run time (cublas_loader.cu); the CUDA runtime is linked statically
 * and initialised on first use only (never at library load), so a process may fork before
 * its first call. One cuBLAS handle and one workspace per (thread, device), never shared.
 */
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OZ_CUDA_FILE "executor_cuda.cu"
#include "cuda_common.cuh" /* shared with ozaki1_cuda.cu: state, operands, gemm_i8, CK... */
#include "kernels_ozaki2.cuh"
#include "oz_cuda.h"

#ifndef OZBLAS_CUDA_ARCHS
#define OZBLAS_CUDA_ARCHS "unknown"
#endif

/* OZ_KBLOCK (cuda_common.cuh) 65536: residue products, 65536 * 128 * 128 = 2^30 < 2^31 */
#define OZ_KBLOCK_BOUND 262144  /* bound product: 262144 * 64 * 64 = 2^30 < 2^31 */
#define OZ_MAX_DEVICES 64

/* With OZBLAS_CUDA_VERBOSE=1 in the environment, each failing CUDA or cuBLAS call is named
 * on stderr (the call itself only returns OZBLAS_ERR_DEVICE). */
void oz_cuda_report_failure(const char *file, const char *what, int code, int is_cublas,
                            int line)
{
    static int verbose = -1;
    if (verbose < 0)
        verbose = oz_env_cuda_verbose();
    if (verbose)
        fprintf(stderr, "ozblas cuda: %s failed: %s %d%s%s (%s:%d)\n", what,
                is_cublas ? "cublasStatus" : "cudaError", code, is_cublas ? "" : " ",
                is_cublas ? "" : cudaGetErrorString((cudaError_t)code), file, line);
}

static void report_failure(const char *what, int code, int is_cublas, int line)
{
    oz_cuda_report_failure(OZ_CUDA_FILE, what, code, is_cublas, line);
}

/* ---- availability and description --------------------------------------------------------- */

static pthread_once_t avail_once = PTHREAD_ONCE_INIT;
static int avail_ok;
static int avail_ndev;
static char avail_why[1024];
static char describe_buf[2048];

/* A forked child must not touch the CUDA context its parent initialised: there the
 * executor reports itself unavailable (auto then picks the CPU executor). */
static void avail_child_after_fork(void)
{
    if (!avail_ok)
        return;
    avail_ok = 0;
    snprintf(avail_why, sizeof avail_why,
             "forked child of a process that initialised CUDA (CUDA cannot be used after fork)");
    snprintf(describe_buf, sizeof describe_buf, "unavailable: %s", avail_why);
}

static void avail_init(void)
{
    pthread_atfork(NULL, NULL, avail_child_after_fork);
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        if (e == cudaErrorNoDevice) {
            snprintf(avail_why, sizeof avail_why, "no CUDA device");
        } else if (e == cudaErrorInsufficientDriver) {
            void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
            if (!h) {
                snprintf(avail_why, sizeof avail_why, "no CUDA driver (libcuda.so.1 not found)");
            } else {
                dlclose(h);
                snprintf(avail_why, sizeof avail_why,
                         "CUDA driver too old for the CUDA %d.%d runtime built in",
                         CUDART_VERSION / 1000, (CUDART_VERSION % 1000) / 10);
            }
        } else {
            snprintf(avail_why, sizeof avail_why,
                     "no usable CUDA device (cudaGetDeviceCount: %s)", cudaGetErrorName(e));
        }
        snprintf(describe_buf, sizeof describe_buf, "unavailable: %s", avail_why);
        return;
    }
    if (n <= 0) {
        snprintf(avail_why, sizeof avail_why, "no CUDA device");
        snprintf(describe_buf, sizeof describe_buf, "unavailable: %s", avail_why);
        return;
    }
    char why[768];
    const oz_cublas *cb = oz_cublas_get(why, sizeof why);
    if (!cb) {
        snprintf(avail_why, sizeof avail_why, "%s", why);
        snprintf(describe_buf, sizeof describe_buf, "unavailable: %s", avail_why);
        return;
    }
    avail_ndev = n < OZ_MAX_DEVICES ? n : OZ_MAX_DEVICES;
    avail_ok = 1;
    int drv = 0;
    (void)cudaDriverGetVersion(&drv);
    snprintf(describe_buf, sizeof describe_buf,
             "cuBLAS %d.%d.%d (%s); CUDA runtime %d.%d, driver %d.%d; built for %s; %d device%s:",
             cb->version / 10000, cb->version / 100 % 100, cb->version % 100, cb->path,
             CUDART_VERSION / 1000, (CUDART_VERSION % 1000) / 10, drv / 1000, (drv % 1000) / 10,
             OZBLAS_CUDA_ARCHS, n, n == 1 ? "" : "s");
    for (int d = 0; d < n && d < 8; d++) {
        cudaDeviceProp p;
        size_t len = strlen(describe_buf);
        if (cudaGetDeviceProperties(&p, d) == cudaSuccess)
            snprintf(describe_buf + len, sizeof describe_buf - len,
                     " %d: %s (cc %d.%d, %.0f GiB)%s", d, p.name, p.major, p.minor,
                     p.totalGlobalMem / 1073741824.0, d + 1 < n ? "," : "");
        else
            (void)cudaGetLastError();
    }
}

static int cuda_available(char *why, size_t len)
{
    pthread_once(&avail_once, avail_init);
    if (!avail_ok && why && len)
        snprintf(why, len, "%s", avail_why);
    return avail_ok;
}

extern "C" const char *oz_cuda_describe(void)
{
    pthread_once(&avail_once, avail_init);
    return describe_buf;
}

/* ---- per (thread, device) state: cuBLAS handle, workspace, events, staging ------------------ */

/* dev_state: cuda_common.cuh */

typedef struct {
    dev_state *s[OZ_MAX_DEVICES];
} tls_states;

static pthread_key_t tls_key;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;

/* Runs when a thread that used the executor exits (not for the main thread at exit(),
 * when the CUDA runtime may already be gone: the process's end frees everything). */
static void tls_destroy(void *p)
{
    tls_states *t = (tls_states *)p;
    const oz_cublas *cb = oz_cublas_get(NULL, 0);
    int prev = -1;
    (void)cudaGetDevice(&prev);
    for (int d = 0; d < OZ_MAX_DEVICES; d++) {
        dev_state *s = t->s[d];
        if (!s)
            continue;
        if (cudaSetDevice(s->dev) == cudaSuccess) {
            if (s->h && cb)
                cb->destroy(s->h);
            for (int i = 0; i < s->nev; i++)
                cudaEventDestroy(s->ev[i]);
            for (int i = 0; i < s->nsync; i++)
                cudaEventDestroy(s->sync[i]);
            if (s->up)
                cudaStreamDestroy(s->up);
            if (s->dn)
                cudaStreamDestroy(s->dn);
            if (s->pin)
                cudaFreeHost(s->pin);
            if (s->ws)
                cudaFree(s->ws);
        }
        free(s->ev);
        free(s);
    }
    if (prev >= 0)
        (void)cudaSetDevice(prev);
    (void)cudaGetLastError();
    free(t);
}

static void tls_key_init(void) { pthread_key_create(&tls_key, tls_destroy); }

/* The calling thread's state for device dev (current device already set to dev). */
static dev_state *state_get(int dev, const oz_cublas *cb)
{
    pthread_once(&tls_once, tls_key_init);
    tls_states *t = (tls_states *)pthread_getspecific(tls_key);
    if (!t) {
        t = (tls_states *)calloc(1, sizeof *t);
        if (!t || pthread_setspecific(tls_key, t) != 0) {
            free(t);
            return NULL;
        }
    }
    if (!t->s[dev]) {
        dev_state *s = (dev_state *)calloc(1, sizeof *s);
        if (!s)
            return NULL;
        s->dev = dev;
        oz_cublas_status cs = cb->create(&s->h);
        if (cs != OZ_CUBLAS_STATUS_SUCCESS) {
            report_failure("cublasCreate_v2", cs, 1, __LINE__);
            free(s);
            return NULL;
        }
        if (cb->set_math_mode)
            cb->set_math_mode(s->h, OZ_CUBLAS_DEFAULT_MATH);
        t->s[dev] = s;
    }
    return t->s[dev];
}

/* Workspace of at least bytes, grown as needed (previous calls have finished: every call
 * synchronizes its stream before returning). NULL when the device has not that much. */
void *ws_get(dev_state *s, size_t bytes)
{
    if (bytes <= s->ws_size)
        return s->ws;
    if (s->ws) {
        cudaFree(s->ws);
        s->ws = NULL;
        s->ws_size = 0;
    }
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        report_failure("cudaMalloc (workspace)", e, 0, __LINE__);
        return NULL;
    }
    s->ws = p;
    s->ws_size = bytes;
    return p;
}

int events_get(dev_state *s, int n)
{
    if (n <= s->nev)
        return 1;
    cudaEvent_t *ev = (cudaEvent_t *)realloc(s->ev, sizeof(cudaEvent_t) * n);
    if (!ev)
        return 0;
    s->ev = ev;
    while (s->nev < n) {
        if (cudaEventCreate(&s->ev[s->nev]) != cudaSuccess) {
            (void)cudaGetLastError();
            return 0;
        }
        s->nev++;
    }
    return 1;
}

/* ---- one call's device context -------------------------------------------------------------- */

/* run_ctx: cuda_common.cuh */

ozblas_status run_begin(run_ctx *r, const ozblas_options *opt)
{
    memset(r, 0, sizeof *r);
    r->prev_dev = -1;
    if (!cuda_available(NULL, 0))
        return OZBLAS_ERR_EXECUTOR_UNAVAILABLE;
    r->cb = oz_cublas_get(NULL, 0);
    r->dev = opt ? opt->device : 0;
    if (r->dev < 0 || r->dev >= avail_ndev)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    r->st = (cudaStream_t)(opt ? opt->stream : NULL);
    r->up = r->dn = r->st; /* copy streams: stage_prepare */
    (void)cudaGetLastError(); /* an error left by someone else is not ours */
    if (cudaGetDevice(&r->prev_dev) != cudaSuccess)
        r->prev_dev = -1;
    cudaError_t e = cudaSetDevice(r->dev);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        report_failure("cudaSetDevice", e, 0, __LINE__);
        return OZBLAS_ERR_DEVICE;
    }
    r->s = state_get(r->dev, r->cb);
    if (!r->s)
        return OZBLAS_ERR_DEVICE;
    oz_cublas_status cs = r->cb->set_stream(r->s->h, r->st);
    if (cs != OZ_CUBLAS_STATUS_SUCCESS) {
        report_failure("cublasSetStream_v2", cs, 1, __LINE__);
        return OZBLAS_ERR_DEVICE;
    }
    return OZBLAS_OK;
}

cudaError_t run_sync(run_ctx *r)
{
    cudaError_t e = cudaStreamSynchronize(r->st);
    if (r->up != r->st) {
        cudaError_t e2 = cudaStreamSynchronize(r->up);
        e = e == cudaSuccess ? e2 : e;
    }
    if (r->dn != r->st) {
        cudaError_t e2 = cudaStreamSynchronize(r->dn);
        e = e == cudaSuccess ? e2 : e;
    }
    if (e != cudaSuccess)
        (void)cudaGetLastError();
    return e;
}

void run_end(run_ctx *r)
{
    if (r->prev_dev >= 0 && r->prev_dev != r->dev)
        (void)cudaSetDevice(r->prev_dev);
}

/* mat (an operand in place, resident or streamed) and the staging of host memory:
 * staging.cu */

static int op_of(char t)
{
    return t == 'N' ? OZ_CUBLAS_OP_N : t == 'T' ? OZ_CUBLAS_OP_T : OZ_CUBLAS_OP_C;
}

/* CK, CKB, CKL: cuda_common.cuh */

/* ---- native --------------------------------------------------------------------------- */

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
                /* host operands and not enough device memory: the host BLAS instead */
                if (!A.on_dev && !B.on_dev && !C.on_dev)
                    return oz_cpu_executor.native(c, opt);
                return OZBLAS_ERR_DEVICE;
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

/* ---- Ozaki II ------------------------------------------------------------------------- */

/* Per packed column of op(A) or op(B): device arrays and their host copies. */
typedef struct {
    int64_t cols, cols_pad; /* m or n; rounded up to a multiple of 4 for the products */
    unsigned long long *amax, *S;
    int *E, *emin, *bits;
    int *hE, *hemin, *hbits; /* host */
    oz_opv v;
    int lc; /* l-contiguous layout */
} side;

/* Grid of the column reductions (stats, sums of squares): 8 or 32 columns a block, k split
 * into chunks along y (at most 65535 of them). */
template <bool LC>
static dim3 column_grid(const side *p, int64_t k, int64_t *chunk)
{
    *chunk = LC ? 2048 : 512;
    int64_t ny = (k + *chunk - 1) / *chunk;
    if (ny > 65535) {
        *chunk = (k + 65534) / 65535;
        ny = (k + *chunk - 1) / *chunk;
    }
    return dim3((unsigned)((p->cols + (LC ? 7 : 31)) / (LC ? 8 : 32)), (unsigned)ny);
}

template <bool LC, bool CX>
static void launch_stats(const side *p, int64_t k, int *bad, cudaStream_t st)
{
    int64_t chunk;
    dim3 grid = column_grid<LC>(p, k, &chunk);
    oz_launch(grid, blk32x8(), st, oz_k_stats<LC, CX>, p->v, k, p->cols, chunk, p->amax, p->emin,
              bad);
}

template <bool LC, bool CX>
static void launch_sumsq(const side *p, int64_t k, cudaStream_t st)
{
    int64_t chunk;
    dim3 grid = column_grid<LC>(p, k, &chunk);
    oz_launch(grid, blk32x8(), st, oz_k_sumsq<LC, CX, false>, p->v, k, p->cols, chunk, p->E, p->S);
}

template <bool LC, bool CX>
static void launch_norm1(const side *p, int64_t k, unsigned long long *N1, cudaStream_t st)
{
    int64_t chunk;
    dim3 grid = column_grid<LC>(p, k, &chunk);
    oz_launch(grid, blk32x8(), st, oz_k_sumsq<LC, CX, true>, p->v, k, p->cols, chunk, p->E, N1);
}

template <bool LC, bool CX, int MODE>
static void launch_pack(const side *p, int64_t k, int64_t kpad, int ushift, int8_t *out,
                        int64_t plane, const oz2_table *T, cudaStream_t st)
{
    int64_t tl = (kpad + 31) / 32, tq = (p->cols_pad + 31) / 32;
    oz_launch((unsigned)(tl * tq), blk32x8(), st, oz_k_pack<LC, CX, MODE>, 
        p->v, k, kpad, p->cols, p->cols_pad, tl, p->E, p->bits, ushift, out, plane, *T);
}

/* OZ_DISPATCH: cuda_common.cuh */

template <bool LC, bool CX>
static void launch_ubound(const side *p, int64_t k, int64_t kpad, int ushift, int8_t *out,
                          const oz2_table *T, cudaStream_t st)
{
    launch_pack<LC, CX, OZ_PACK_UBOUND>(p, k, kpad, ushift, out, 0, T, st);
}

template <bool LC, bool CX>
static void launch_lbound(const side *p, int64_t k, int64_t kpad, int shift, int8_t *out,
                          const oz2_table *T, cudaStream_t st)
{
    launch_pack<LC, CX, OZ_PACK_LBOUND>(p, k, kpad, shift, out, 0, T, st);
}

template <bool LC, bool CX>
static void launch_residues(const side *p, int64_t k, int64_t kpad, int8_t *out, int64_t plane,
                            const oz2_table *T, cudaStream_t st)
{
    launch_pack<LC, CX, OZ_PACK_RESIDUE>(p, k, kpad, 0, out, plane, T, st);
}

/* C32 (m x n, ldc) = A^T B for int8 A (kb x m, lda), B (kb x n, ldb): TN, IMMA. */
oz_cublas_status gemm_i8(const run_ctx *r, int64_t m, int64_t n, int64_t kb, const int8_t *A,
                         int64_t lda, const int8_t *B, int64_t ldb, int *C, int64_t ldc)
{
    static const int one = 1, zero = 0;
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

static int any_loss_host(const side *p)
{
    for (int64_t q = 0; q < p->cols; q++)
        if (p->hemin[q] != INT_MAX && oz2_loses_element(p->hE[q], p->hemin[q], p->hbits[q]))
            return 1;
    return 0;
}

static void report_bits_host(const side *pa, const side *pb, ozblas_report *r)
{
    r->max_bits_a = INT_MIN;
    r->min_bits_a = INT_MAX;
    r->max_bits_b = INT_MIN;
    r->min_bits_b = INT_MAX;
    for (int64_t q = 0; q < pa->cols; q++) {
        r->max_bits_a = oz_max_int(r->max_bits_a, pa->hbits[q]);
        r->min_bits_a = oz_min_int(r->min_bits_a, pa->hbits[q]);
    }
    for (int64_t q = 0; q < pb->cols; q++) {
        r->max_bits_b = oz_max_int(r->max_bits_b, pb->hbits[q]);
        r->min_bits_b = oz_min_int(r->min_bits_b, pb->hbits[q]);
    }
}

float elapsed(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0.0f;
    if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0.0f;
    }
    return ms;
}

/* One Ozaki II call on the device. C is computed in tiles (oz_plan_tiles: one tile when
 * everything fits) with scalings taken from the whole product, so every tile gives the
 * untiled bits:
 *   - phase 0 runs over all of op(A) and op(B), block by block where they are streamed:
 *     max |x|, smallest exponent, Inf/NaN and the sums of squares are integer max/min/sums
 *     (any blocking gives the same values); accurate scaling's alpha_i = min over all j and
 *     beta_j = min over all i are mins over tiles of G = UA^T UB (atomicMin), G's k-blocks
 *     summed exactly in int64; every fallback is decided before any of C is written;
 *   - a tile's residues use those global E and bits; its k-blocks' products are reduced to
 *     canonical residues and accumulated modulo m_t exactly as the untiled k-blocks are;
 *   - CRT and the update read a tile's rows' and columns' exponents only. */
typedef struct {
    const oz_gemm_call *c;
    const oz2_table *T;
    run_ctx *r;
    int fast, cx, np, nr, ushift;
    mat A, B, C;
    side pa, pb;
    oz_tiling t;
    int multi_g; /* the bound product spans several k-blocks: G summed in int64 */
    int *d_bad;
    int8_t *RA, *RB, *R;
    int *C32;
    long long *G64;
    oz_timeline tl;
} o2_run;

/* Operand modes and slot sizes for tiling t. */
static void o2_apply(o2_run *o, const oz_tiling *t)
{
    const size_t es = o->A.es;
    o->t = *t;
    mat_stream(&o->A, t->res ? 0 : (size_t)(t->mb * t->kc) * es, t->res ? 0 : (t->nI * t->nL > 1 ? 2 : 1));
    mat_stream(&o->B, t->res ? 0 : (size_t)(t->nb * t->kc) * es, t->res ? 0 : (t->nJ * t->nL > 1 ? 2 : 1));
    mat_stream(&o->C, (size_t)(t->mb * t->nb) * es, t->nI * t->nJ > 1 ? 2 : 1);
    o->multi_g = t->nL > 1 || oz_up16(t->kc) > OZ_KBLOCK_BOUND;
}

/* The workspace, laid out for o->t (cv->base NULL: only the size). */
static void o2_carve(o2_run *o, carve *cv)
{
    const int64_t mbp = oz_up4(o->t.mb), nbp = oz_up4(o->t.nb), kcp = oz_up16(o->t.kc);
    const int64_t plane_c = mbp * nbp;
    const int N = o->T->n;
    mat_carve(&o->A, cv);
    mat_carve(&o->B, cv);
    mat_carve(&o->C, cv);
    side *sd[2] = {&o->pa, &o->pb};
    for (int s = 0; s < 2; s++) {
        side *p = sd[s];
        p->amax = (unsigned long long *)carve_take(cv, 8 * p->cols);
        p->S = (unsigned long long *)carve_take(cv, 8 * p->cols);
        p->E = (int *)carve_take(cv, 4 * p->cols);
        p->emin = (int *)carve_take(cv, 4 * p->cols);
        p->bits = (int *)carve_take(cv, 4 * p->cols);
    }
    o->d_bad = (int *)carve_take(cv, 4);
    o->RA = (int8_t *)carve_take(cv, (size_t)(N * o->np) * (size_t)(kcp * mbp));
    o->RB = (int8_t *)carve_take(cv, (size_t)(N * o->np) * (size_t)(kcp * nbp));
    o->C32 = (int *)carve_take(cv, (size_t)(o->np * plane_c) * 4);
    size_t sz_r = (size_t)(N * o->nr) * (size_t)plane_c;
    if (!o->fast && o->multi_g && (size_t)plane_c * 8 > sz_r)
        sz_r = (size_t)plane_c * 8;
    o->R = (int8_t *)carve_take(cv, sz_r);
    o->G64 = (long long *)o->R; /* the bound product's int64 sums, before R is written */
}

static size_t o2_bytes(const oz_tiling *t, const void *ctx)
{
    o2_run o = *(const o2_run *)ctx;
    o2_apply(&o, t);
    carve cv = {NULL, 0};
    o2_carve(&o, &cv);
    return cv.off;
}

/* The part of side p over packed columns q0..q0+qc, its view at block v. */
static side side_part(const side *p, const oz_gemm_call *c, int is_a, const mat_view *v,
                      int64_t q0, int64_t qc)
{
    side s = *p;
    s.lc = oz_op_view(c, is_a, v->p, v->ld, &s.v);
    s.cols = qc;
    s.cols_pad = oz_up4(qc);
    s.amax += q0;
    s.S += q0;
    s.E += q0;
    s.emin += q0;
    s.bits += q0;
    return s;
}

/* Phase 0 over one side, block by block (one block unless streamed): pass 0 max |x|,
 * smallest exponent and Inf/NaN, pass 1 (E known) the sums of squares. */
static ozblas_status o2_column_pass(o2_run *o, int is_a, int pass)
{
    ozblas_status st = OZBLAS_OK;
    const oz_gemm_call *c = o->c;
    run_ctx *r = o->r;
    mat *X = is_a ? &o->A : &o->B;
    const side *p = is_a ? &o->pa : &o->pb;
    const int stream = X->mode == OZ_STREAMED;
    const int64_t cols = p->cols, k = c->k;
    const int64_t qb = stream ? (is_a ? o->t.mb : o->t.nb) : cols, kb = stream ? o->t.kc : k;
    const int64_t nl = (k + kb - 1) / kb, steps = (cols + qb - 1) / qb * nl;
    for (int64_t s = 0; s < steps; s++) {
        const int64_t q0 = s / nl * qb, l0 = s % nl * kb;
        const int64_t qc = oz_min64(qb, cols - q0), lc = oz_min64(kb, k - l0);
        const oz_blk b = oz_side_blk(c, is_a, q0, qc, l0, lc);
        mat_view v;
        CK(mat_block(r, X, &b, 1, &v));
        const side sp = side_part(p, c, is_a, &v, q0, qc);
        if (pass == 0)
            OZ_DISPATCH(sp.lc, o->cx, launch_stats, &sp, lc, o->d_bad, r->st);
        else
            OZ_DISPATCH(sp.lc, o->cx, launch_sumsq, &sp, lc, r->st);
        CKL();
        CK(mat_release(r, X, &v));
        if (s + 1 < steps) {
            const int64_t q1 = (s + 1) / nl * qb, l1 = (s + 1) % nl * kb;
            const oz_blk nb = oz_side_blk(c, is_a, q1, oz_min64(qb, cols - q1), l1,
                                          oz_min64(kb, k - l1));
            CK(mat_prefetch(r, X, &nb, 1));
        }
    }
done:
    return st;
}

/* Step s of a sweep over the tiles (I-major, then J, then the k-blocks L). */
typedef struct {
    int64_t I, J, L, i0, mi, j0, nj, l0, lc;
} o2_step;

static o2_step step_at(const oz_tiling *t, const oz_gemm_call *c, int64_t s)
{
    o2_step x;
    x.L = s % t->nL;
    x.J = s / t->nL % t->nJ;
    x.I = s / t->nL / t->nJ;
    x.i0 = x.I * t->mb;
    x.j0 = x.J * t->nb;
    x.l0 = x.L * t->kc;
    x.mi = oz_min64(t->mb, c->m - x.i0);
    x.nj = oz_min64(t->nb, c->n - x.j0);
    x.lc = oz_min64(t->kc, c->k - x.l0);
    return x;
}

/* A step packs op(A)'s block unless it is the one packed last (one k-block, same rows), and
 * op(B)'s unless B has a single block already packed. */
static int needs_a(const oz_tiling *t, const o2_step *x) { return t->nL > 1 || x->J == 0; }
static int needs_b(const oz_tiling *t, int64_t s)
{
    return t->nL > 1 || t->nJ > 1 || s == 0;
}

static oz_blk blk_a(const o2_run *o, const o2_step *x)
{
    return oz_side_blk(o->c, 1, x->i0, x->mi, x->l0, x->lc);
}
static oz_blk blk_b(const o2_run *o, const o2_step *x)
{
    return oz_side_blk(o->c, 0, x->j0, x->nj, x->l0, x->lc);
}

enum { O2_BOUND_ROWS = 0, O2_BOUND_COLS = 1, O2_PRODUCTS = 2 };

/* Accurate scaling on one tile's G (ld mipad): alpha_i over the tile's columns (rows pass)
 * or beta_j over its rows (columns pass). */
static void o2_bits_tile(o2_run *o, int mode, const o2_step *x)
{
    const oz2_table *T = o->T;
    const int64_t mip = oz_up4(x->mi), chunk = 1024;
    const unsigned long long *Sa = o->pa.S + x->i0, *Sb = o->pb.S + x->j0;
    int *ba = o->pa.bits + x->i0, *bb = o->pb.bits + x->j0;
    cudaStream_t st = o->r->st;
    dim3 rows((unsigned)grid1(x->mi, 128), (unsigned)((x->nj + chunk - 1) / chunk));
    if (mode == O2_BOUND_ROWS) {
        if (o->multi_g)
            oz_launch(rows, 128, st, oz_k_bits_row<long long>, (const long long *)o->G64, mip,
                      x->mi, x->nj, chunk, T->budget, o->ushift, Sa, Sb, (const int *)bb, ba);
        else
            oz_launch(rows, 128, st, oz_k_bits_row<int>, (const int *)o->C32, mip, x->mi, x->nj,
                      chunk, T->budget, o->ushift, Sa, Sb, (const int *)bb, ba);
    } else {
        if (o->multi_g)
            oz_launch(grid1(x->nj, 8), blk32x8(), st, oz_k_bits_col<long long>,
                      (const long long *)o->G64, mip, x->mi, x->nj, T->budget, o->ushift, Sa,
                      Sb, (const int *)ba, bb);
        else
            oz_launch(grid1(x->nj, 8), blk32x8(), st, oz_k_bits_col<int>, (const int *)o->C32,
                      mip, x->mi, x->nj, T->budget, o->ushift, Sa, Sb, (const int *)ba, bb);
    }
}

/* One sweep over the tiles. Bound sweeps: G = UA^T UB per tile, then the tile's part of
 * the accurate scaling. Products sweep: residues, integer products reduced modulo each m_t
 * (k-blocks accumulated), CRT and the update of the tile of C. While step s runs on the
 * device, the host uploads step s + 1's blocks and downloads the previous tile of C. */
static ozblas_status o2_sweep(o2_run *o, int mode)
{
    ozblas_status st = OZBLAS_OK;
    const oz_gemm_call *c = o->c;
    const oz2_table *T = o->T;
    const oz_tiling *t = &o->t;
    run_ctx *r = o->r;
    const int prod = mode == O2_PRODUCTS, N = T->n, np = o->np, cx = o->cx;
    const int label = prod ? 1 : 0;
    const int64_t steps = t->nI * t->nJ * t->nL;
    const int64_t kblock = prod ? OZ_KBLOCK : OZ_KBLOCK_BOUND;
    mat_view vc = {NULL, 0, 0}, vprev = {NULL, 0, 0};
    oz_blk bprev = {0, 0, 0, 0};
    int pending = 0;
    if (prod) {
        const o2_step x0 = step_at(t, c, 0);
        const oz_blk b0 = {x0.i0, x0.j0, x0.mi, x0.nj};
        CK(mat_prefetch(r, &o->C, &b0, !c->beta_zero));
    }
    for (int64_t s = 0; s < steps; s++) {
        const o2_step x = step_at(t, c, s);
        const int64_t mip = oz_up4(x.mi), njp = oz_up4(x.nj), lcp = oz_up16(x.lc);
        const int64_t plane_a = lcp * mip, plane_b = lcp * njp, plane_c = mip * njp;
        const int na = needs_a(t, &x), nb = needs_b(t, s);
        mat_view va, vb;
        const oz_blk ba = blk_a(o, &x), bb = blk_b(o, &x);
        if (na)
            CK(mat_block(r, &o->A, &ba, 1, &va));
        if (nb)
            CK(mat_block(r, &o->B, &bb, 1, &vb));
        CK(tl_mark(&o->tl, -1, r->st)); /* the waits for uploads are no phase's */
        if (na) {
            const side sp = side_part(&o->pa, c, 1, &va, x.i0, x.mi);
            if (prod)
                OZ_DISPATCH(sp.lc, cx, launch_residues, &sp, x.lc, lcp, o->RA, plane_a, T, r->st);
            else
                OZ_DISPATCH(sp.lc, cx, launch_ubound, &sp, x.lc, lcp, o->ushift, o->RA, T, r->st);
            CKL();
            CK(mat_release(r, &o->A, &va));
        }
        if (nb) {
            const side sp = side_part(&o->pb, c, 0, &vb, x.j0, x.nj);
            if (prod)
                OZ_DISPATCH(sp.lc, cx, launch_residues, &sp, x.lc, lcp, o->RB, plane_b, T, r->st);
            else
                OZ_DISPATCH(sp.lc, cx, launch_ubound, &sp, x.lc, lcp, o->ushift, o->RB, T, r->st);
            CKL();
            CK(mat_release(r, &o->B, &vb));
        }
        CK(tl_mark(&o->tl, label, r->st));
        /* the integer products of this k-block, in sub-blocks exact in INT32 */
        const int64_t nsub = (lcp + kblock - 1) / kblock;
        for (int tm = 0; tm < (prod ? N : 1); tm++)
            for (int64_t b = 0; b < nsub; b++) {
                const int64_t l0 = b * kblock, kb = oz_min64(kblock, lcp - l0);
                const int first = x.L == 0 && b == 0;
                for (int q = 0; q < (prod ? np : 1); q++)
                    CKB(gemm_i8(r, mip, njp, kb, o->RA + (size_t)(tm * np + q) * plane_a + l0, lcp,
                                o->RB + (size_t)(tm * np + q) * plane_b + l0, lcp,
                                o->C32 + (size_t)q * plane_c, mip));
                CK(tl_mark(&o->tl, prod ? 2 : 0, r->st));
                if (prod) {
                    const int64_t groups = plane_c / 4;
                    if (cx)
                        oz_launch(grid1(groups, 256), 256, r->st, oz_k_reduce<true>, (const int *)o->C32,
                                  plane_c, groups, o->R + (size_t)tm * plane_c,
                                  o->R + (size_t)(N + tm) * plane_c, T->m[tm], T->inv[tm], first);
                    else
                        oz_launch(grid1(groups, 256), 256, r->st, oz_k_reduce<false>, (const int *)o->C32,
                                  plane_c, groups, o->R + (size_t)tm * plane_c, (int8_t *)NULL,
                                  T->m[tm], T->inv[tm], first);
                    CKL();
                    CK(tl_mark(&o->tl, 3, r->st));
                } else if (o->multi_g) {
                    oz_launch(grid1(plane_c, 256), 256, r->st, oz_k_acc64, (const int *)o->C32,
                              o->G64, plane_c, first);
                    CKL();
                }
            }
        if (x.L == t->nL - 1) {
            if (!prod) {
                o2_bits_tile(o, mode, &x);
                CKL();
                CK(tl_mark(&o->tl, 0, r->st));
            } else {
                const oz_blk bc = {x.i0, x.j0, x.mi, x.nj};
                const int64_t total = x.mi * x.nj;
                CK(mat_block(r, &o->C, &bc, !c->beta_zero, &vc));
                CK(tl_mark(&o->tl, -1, r->st));
                if (cx)
                    oz_launch(grid1(total, 256), 256, r->st, oz_k_crt<true>, (const int8_t *)o->R,
                              mip, plane_c, x.mi, total, (const int *)o->pa.E + x.i0,
                              (const int *)o->pa.bits + x.i0, (const int *)o->pb.E + x.j0,
                              (const int *)o->pb.bits + x.j0, vc.p, vc.ld, c->alpha[0],
                              c->alpha[1], c->beta[0], c->beta[1], c->beta_zero, *T);
                else
                    oz_launch(grid1(total, 256), 256, r->st, oz_k_crt<false>, (const int8_t *)o->R,
                              mip, plane_c, x.mi, total, (const int *)o->pa.E + x.i0,
                              (const int *)o->pa.bits + x.i0, (const int *)o->pb.E + x.j0,
                              (const int *)o->pb.bits + x.j0, vc.p, vc.ld, c->alpha[0],
                              c->alpha[1], c->beta[0], c->beta[1], c->beta_zero, *T);
                CKL();
                CK(tl_mark(&o->tl, 4, r->st));
                CK(mat_release(r, &o->C, &vc));
            }
        }
        /* overlap: queue step s + 1's uploads, then bring the previous tile of C home */
        if (s + 1 < steps) {
            const o2_step y = step_at(t, c, s + 1);
            if (needs_a(t, &y)) {
                const oz_blk b1 = blk_a(o, &y);
                CK(mat_prefetch(r, &o->A, &b1, 1));
            }
            if (needs_b(t, s + 1)) {
                const oz_blk b1 = blk_b(o, &y);
                CK(mat_prefetch(r, &o->B, &b1, 1));
            }
        }
        if (prod && x.L == t->nL - 1) {
            if (pending)
                CK(mat_store(r, &o->C, &vprev, &bprev));
            vprev = vc;
            bprev.r0 = x.i0;
            bprev.c0 = x.j0;
            bprev.rows = x.mi;
            bprev.cols = x.nj;
            pending = 1;
            if (s + 1 < steps) {
                const o2_step y = step_at(t, c, s + 1);
                const oz_blk b1 = {y.i0, y.j0, y.mi, y.nj};
                CK(mat_prefetch(r, &o->C, &b1, !c->beta_zero));
            }
        }
    }
    if (pending)
        CK(mat_store(r, &o->C, &vprev, &bprev));
done:
    return st;
}

/* Accurate scaling: alpha_i from every tile (bits_b holding the fast scaling's beta_j),
 * then beta_j from every tile once alpha is final; with one tile, G is still in place. */
static ozblas_status o2_bounds(o2_run *o)
{
    ozblas_status st = OZBLAS_OK;
    const oz2_table *T = o->T;
    run_ctx *r = o->r;
    const int64_t m = o->c->m, n = o->c->n;
    oz_launch(grid1(m, 256), 256, r->st, oz_k_fill_int, o->pa.bits, m, OZ2_MAX_BITS);
    CKL();
    oz_launch(grid1(n, 256), 256, r->st, oz_k_bits_fast, (const unsigned long long *)o->pb.S,
              o->pb.bits, n, T->budget - T->budget / 2);
    CKL();
    st = o2_sweep(o, O2_BOUND_ROWS);
    if (st != OZBLAS_OK)
        return st;
    oz_launch(grid1(n, 256), 256, r->st, oz_k_fill_int, o->pb.bits, n, OZ2_MAX_BITS);
    CKL();
    if (o->t.nI * o->t.nJ == 1) {
        const o2_step x = step_at(&o->t, o->c, 0);
        o2_bits_tile(o, O2_BOUND_COLS, &x);
        CKL();
    } else {
        st = o2_sweep(o, O2_BOUND_COLS);
    }
done:
    return st;
}

static ozblas_status cuda_ozaki2_fixed(const oz_gemm_call *c, const oz2_table *T,
                                       const ozblas_options *opt, ozblas_report *rep)
{
    const int64_t m = c->m, n = c->n, k = c->k;
    oz_plan_record(NULL, NULL, NULL, NULL);
    if (k > (c->is_complex ? OZ2_MAX_K / 2 : OZ2_MAX_K)) {
        rep->fallback = OZBLAS_FALLBACK_TOO_LARGE_K;
        return OZBLAS_OK;
    }
    run_ctx r;
    ozblas_status st = run_begin(&r, opt);
    if (st != OZBLAS_OK) {
        run_end(&r);
        return st;
    }
    o2_run o;
    memset(&o, 0, sizeof o);
    o.c = c;
    o.T = T;
    o.r = &r;
    o.fast = opt->scaling == OZBLAS_SCALING_FAST;
    o.cx = c->is_complex;
    o.np = o.cx ? 3 : 1;
    o.nr = o.cx ? 2 : 1;
    o.ushift = o.cx ? 4 : 5;
    o.pa.cols = m;
    o.pb.cols = n;
    int *hbuf = NULL;
    char *ws = NULL;
    if (!mats_init(c, r.dev, &o.A, &o.B, &o.C)) {
        run_end(&r);
        return OZBLAS_ERR_INVALID_ARGUMENT;
    }

    /* the tiling (planned for T's moduli), then one workspace; when an allocation fails
     * despite the plan (fragmentation, other threads), plan again in half the memory */
    {
        size_t budget = oz_device_budget(&r);
        for (int attempt = 0; attempt < 4 && !ws; attempt++) {
            oz_tiling t;
            if (!oz_plan_tiles(m, n, k, !o.C.on_dev, 1, (size_t)(m * n) * o.C.es, budget,
                               o2_bytes, &o, &t))
                break;
            o2_apply(&o, &t);
            carve cv = {NULL, 0};
            o2_carve(&o, &cv);
            ws = (char *)ws_get(r.s, cv.off);
            budget = cv.off / 2;
        }
    }
    hbuf = (int *)malloc(sizeof(int) * 3 * (size_t)(m + n) + 16);
    if (!ws || !hbuf || !tl_init(&o.tl, r.s, 1024)) {
        free(hbuf);
        tl_free(&o.tl);
        run_end(&r);
        if (!o.A.on_dev && !o.B.on_dev && !o.C.on_dev) {
            /* host operands and not even the smallest tiles fit: this call on the CPU */
            rep->executor = OZBLAS_EXECUTOR_CPU;
            return oz_cpu_executor.ozaki2(c, T, opt, rep);
        }
        return OZBLAS_ERR_DEVICE;
    }
    {
        carve cv = {ws, 0};
        o2_carve(&o, &cv);
    }
    oz_plan_record(&o.t, &o.A, &o.B, &o.C);
    side *pa = &o.pa, *pb = &o.pb;
    pa->hE = hbuf;
    pa->hemin = hbuf + m;
    pa->hbits = hbuf + 2 * m;
    pb->hE = hbuf + 3 * m;
    pb->hemin = hbuf + 3 * m + n;
    pb->hbits = hbuf + 3 * m + 2 * n;

    CK(stage_prepare(&r, &o.A, &o.B, &o.C));
    CK(mat_upload(&r, &o.A));

    /* ---- phase 0: statistics over the whole product, then the bits ---- */
    CK(tl_mark(&o.tl, -1, r.st));
    for (int s = 0; s < 2; s++) {
        side *p = s ? pb : pa;
        CK(cudaMemsetAsync(p->amax, 0, 8 * p->cols, r.st));
        CK(cudaMemsetAsync(p->S, 0, 8 * p->cols, r.st));
        oz_launch(grid1(p->cols, 256), 256, r.st, oz_k_fill_int, p->emin, p->cols, INT_MAX);
        CKL();
    }
    CK(cudaMemsetAsync(o.d_bad, 0, 4, r.st));
    st = o2_column_pass(&o, 1, 0);
    if (st != OZBLAS_OK)
        goto done;
    /* a resident op(B) is staged while op(A)'s statistics run */
    CK(tl_mark(&o.tl, 0, r.st));
    CK(mat_upload(&r, &o.B));
    CK(tl_mark(&o.tl, -1, r.st));
    st = o2_column_pass(&o, 0, 0);
    if (st != OZBLAS_OK)
        goto done;
    CK(tl_mark(&o.tl, 0, r.st));
    {
        int bad = 0;
        CK(cudaMemcpyAsync(&bad, o.d_bad, 4, cudaMemcpyDeviceToHost, r.st));
        CK(cudaStreamSynchronize(r.st));
        if (bad) {
            rep->fallback = OZBLAS_FALLBACK_NONFINITE;
            goto done;
        }
    }
    CK(tl_mark(&o.tl, -1, r.st));
    oz_launch(grid1(m, 256), 256, r.st, oz_k_exponents, (const unsigned long long *)pa->amax,
              pa->E, m);
    CKL();
    oz_launch(grid1(n, 256), 256, r.st, oz_k_exponents, (const unsigned long long *)pb->amax,
              pb->E, n);
    CKL();
    st = o2_column_pass(&o, 1, 1);
    if (st == OZBLAS_OK)
        st = o2_column_pass(&o, 0, 1);
    if (st != OZBLAS_OK)
        goto done;
    /* The statistics (E, S) of the whole product are complete here; the workspace holds up
     * to T->n moduli. */
    if (o.fast) {
        oz_launch(grid1(m, 256), 256, r.st, oz_k_bits_fast, (const unsigned long long *)pa->S,
                  pa->bits, m, T->budget / 2);
        CKL();
        oz_launch(grid1(n, 256), 256, r.st, oz_k_bits_fast, (const unsigned long long *)pb->S,
                  pb->bits, n, T->budget - T->budget / 2);
        CKL();
    } else {
        st = o2_bounds(&o);
        if (st != OZBLAS_OK)
            goto done;
    }
    CK(tl_mark(&o.tl, 0, r.st));
    CK(cudaMemcpyAsync(pa->hE, pa->E, 4 * m, cudaMemcpyDeviceToHost, r.st));
    CK(cudaMemcpyAsync(pa->hemin, pa->emin, 4 * m, cudaMemcpyDeviceToHost, r.st));
    CK(cudaMemcpyAsync(pa->hbits, pa->bits, 4 * m, cudaMemcpyDeviceToHost, r.st));
    CK(cudaMemcpyAsync(pb->hE, pb->E, 4 * n, cudaMemcpyDeviceToHost, r.st));
    CK(cudaMemcpyAsync(pb->hemin, pb->emin, 4 * n, cudaMemcpyDeviceToHost, r.st));
    CK(cudaMemcpyAsync(pb->hbits, pb->bits, 4 * n, cudaMemcpyDeviceToHost, r.st));
    CK(cudaStreamSynchronize(r.st));
    report_bits_host(pa, pb, rep);
    if (any_loss_host(pa) || any_loss_host(pb)) {
        rep->fallback = OZBLAS_FALLBACK_EXPONENT_RANGE;
        goto done;
    }

    /* ---- phases 1 to 4, tile by tile ---- */
    st = o2_sweep(&o, O2_PRODUCTS);
    if (st != OZBLAS_OK)
        goto done;
    if (run_sync(&r) != cudaSuccess) {
        st = OZBLAS_ERR_DEVICE;
        goto done;
    }
    tl_finish(&o.tl, rep);
    rep->int_gemms = T->n * o.np + (o.fast ? 0 : 1);
    rep->fp64_passes = 1;

done:
    if (run_sync(&r) != cudaSuccess && st == OZBLAS_OK)
        st = OZBLAS_ERR_DEVICE;
    free(hbuf);
    tl_free(&o.tl);
    run_end(&r);
    return st;
}

/* ---- automatic precision: the moduli count for the inputs of this call -------------------
 * The CPU executor's procedure (executor_cpu.c, numerics/ozaki2.h "automatic precision")
 * with the same element functions: statistics, 1-norms, the two exact lower-bound products
 * (and accurate scaling's bound product), then a walk over the moduli count (oz_auto_count), each step
 * setting the bits on the device and taking the max bound ratio over C. The call itself
 * then runs with that count (its statistics computed again: a few percent of the call). */
typedef struct {
    const run_ctx *r;
    side *pa, *pb;
    int fast, cx, ushift;
    int64_t mpad;
    long long *G64;      /* accurate scaling's bound product (NULL when fast) */
    double *Glo;         /* combined lower-bound product */
    unsigned long long *N1a, *N1b, *d_ratio;
    double ratio;        /* max bound ratio of the last count tried (Inf: an element lost) */
    int lost, failed;
    int beta;            /* Ozaki I: its slice width (the count is then a slice count); 0: II */
    int64_t k;
} cuda_auto;

static int cuda_auto_meets(int nmod, void *arg)
{
    cuda_auto *a = (cuda_auto *)arg;
    const oz2_table *T = oz2_table_get(nmod);
    const run_ctx *rr = a->r;
    side *pa = a->pa, *pb = a->pb;
    const int64_t m = pa->cols, n = pb->cols;
    ozblas_status st = OZBLAS_OK;
    unsigned long long hr = 0;
    if (a->failed)
        return 1;
    if (a->beta) { /* Ozaki I: no bits to set; loss and ratio from the statistics */
        a->lost = oz1_side_may_lose(pa->hE, pa->hemin, m, a->beta, nmod) ||
                  oz1_side_may_lose(pb->hE, pb->hemin, n, a->beta, nmod);
        if (a->lost) {
            a->ratio = INFINITY;
            return 0;
        }
        T = NULL;
    } else {
    oz_launch(grid1(n, 256), 256, rr->st, oz_k_bits_fast, pb->S, pb->bits, n,
              T->budget - T->budget / 2);
    CKL();
    if (a->fast) {
        oz_launch(grid1(m, 256), 256, rr->st, oz_k_bits_fast, pa->S, pa->bits, m, T->budget / 2);
        CKL();
    } else {
        const int64_t chunk = 1024;
        dim3 grow_grid((unsigned)grid1(m, 128), (unsigned)((n + chunk - 1) / chunk));
        oz_launch(grid1(m, 256), 256, rr->st, oz_k_fill_int, pa->bits, m, OZ2_MAX_BITS);
        CKL();
        oz_launch(grow_grid, 128, rr->st, oz_k_bits_row<long long>, a->G64, a->mpad, m, n, chunk,
                  T->budget, a->ushift, pa->S, pb->S, pb->bits, pa->bits);
        CKL();
        oz_launch(grid1(n, 256), 256, rr->st, oz_k_fill_int, pb->bits, n, OZ2_MAX_BITS);
        CKL();
        oz_launch(grid1(n, 8), blk32x8(), rr->st, oz_k_bits_col<long long>, a->G64, a->mpad, m, n,
                  T->budget, a->ushift, pa->S, pb->S, pa->bits, pb->bits);
        CKL();
    }
    CK(cudaMemcpyAsync(pa->hbits, pa->bits, 4 * m, cudaMemcpyDeviceToHost, rr->st));
    CK(cudaMemcpyAsync(pb->hbits, pb->bits, 4 * n, cudaMemcpyDeviceToHost, rr->st));
    CK(cudaStreamSynchronize(rr->st));
    a->lost = any_loss_host(pa) || any_loss_host(pb);
    if (a->lost) {
        a->ratio = INFINITY;
        return 0;
    }
    }
    CK(cudaMemsetAsync(a->d_ratio, 0, 8, rr->st));
    oz_launch(grid1(m * n, 256), 256, rr->st, oz_k_ratio, a->cx, a->beta, nmod, a->k, m, m * n,
              a->mpad, a->Glo, pa->E, pa->emin, pa->bits, a->N1a, pb->E, pb->emin, pb->bits,
              a->N1b, a->d_ratio);
    CKL();
    CK(cudaMemcpyAsync(&hr, a->d_ratio, 8, cudaMemcpyDeviceToHost, rr->st));
    CK(cudaStreamSynchronize(rr->st));
    {
        double ratio;
        memcpy(&ratio, &hr, 8);
        a->ratio = ratio;
    }
    return a->ratio <= OZ2_AUTO_TARGET;
done:
    a->failed = st != OZBLAS_OK;
    return 1;
}

/* *nmod: the moduli count (Ozaki II, o1_beta 0) or the slice count (Ozaki I, o1_beta its
 * slice width), >= 2; 0 with rep->fallback set; -1 when the call was computed here already
 * (host operands without the device memory: the CPU executor's automatic path). *ratio:
 * the count's bound ratio (for the report). */
ozblas_status cuda_auto_count(const oz_gemm_call *c, const ozblas_options *opt,
                              ozblas_report *rep, int o1_beta, int *nmod, double *ratio)
{
    const int64_t m = c->m, n = c->n, k = c->k;
    const int fast = o1_beta || opt->scaling == OZBLAS_SCALING_FAST, cx = c->is_complex;
    const int ushift = cx ? 4 : 5;
    const int64_t kpad = (k + 15) / 16 * 16, mpad = (m + 3) / 4 * 4, npad = (n + 3) / 4 * 4;
    const int64_t plane_c = mpad * npad;
    const oz2_table *T2 = oz2_table_get(2); /* the packing kernels' table argument, unused */
    *nmod = 0;
    *ratio = 0.0;
    run_ctx r;
    ozblas_status st = run_begin(&r, opt);
    int *hbuf = NULL, *d_bad = NULL;
    mat A, B, C; /* C: only where it lives */
    side pa, pb;
    memset(&pa, 0, sizeof pa);
    memset(&pb, 0, sizeof pb);
    int8_t *XA = NULL, *XB = NULL;
    int *C32 = NULL;
    double *G2 = NULL;
    cuda_auto au;
    memset(&au, 0, sizeof au);
    if (st != OZBLAS_OK) {
        run_end(&r);
        return st;
    }
    if (!mats_init(c, r.dev, &A, &B, &C)) {
        run_end(&r);
        return OZBLAS_ERR_INVALID_ARGUMENT;
    }
    size_t total;
    char *ws;
    for (int pass = 0; pass < 2; pass++) { /* a dry run of the carve, then the real one */
        carve cv = {pass ? ws : NULL, 0};
        mat_carve(&A, &cv);
        mat_carve(&B, &cv);
        side *sd[2] = {&pa, &pb};
        for (int s = 0; s < 2; s++) {
            side *p = sd[s];
            p->cols = s ? n : m;
            p->cols_pad = s ? npad : mpad;
            p->amax = (unsigned long long *)carve_take(&cv, 8 * p->cols);
            p->S = (unsigned long long *)carve_take(&cv, 8 * p->cols);
            p->E = (int *)carve_take(&cv, 4 * p->cols);
            p->emin = (int *)carve_take(&cv, 4 * p->cols);
            p->bits = (int *)carve_take(&cv, 4 * p->cols);
        }
        au.N1a = (unsigned long long *)carve_take(&cv, 8 * m);
        au.N1b = (unsigned long long *)carve_take(&cv, 8 * n);
        au.d_ratio = (unsigned long long *)carve_take(&cv, 8);
        d_bad = (int *)carve_take(&cv, 4);
        XA = (int8_t *)carve_take(&cv, (size_t)kpad * mpad);
        XB = (int8_t *)carve_take(&cv, (size_t)kpad * npad);
        C32 = (int *)carve_take(&cv, (size_t)plane_c * 4);
        au.G64 = fast ? NULL : (long long *)carve_take(&cv, (size_t)plane_c * 8);
        au.Glo = (double *)carve_take(&cv, (size_t)plane_c * 8);
        G2 = (double *)carve_take(&cv, (size_t)plane_c * 8);
        if (pass)
            break;
        total = cv.off;
        ws = (char *)ws_get(r.s, total);
        hbuf = (int *)malloc(sizeof(int) * 3 * (size_t)(m + n) + 16);
        if (!ws || !hbuf) {
            free(hbuf);
            run_end(&r);
            if (!A.on_dev && !B.on_dev && !C.on_dev) {
                /* Host operands and not enough device memory: the CPU executor's auto path. */
                rep->executor = OZBLAS_EXECUTOR_CPU;
                *nmod = -1;
                return o1_beta ? oz_cpu_ozaki1(c, opt, rep) : oz_cpu_executor.ozaki2(c, NULL, opt, rep);
            }
            return OZBLAS_ERR_DEVICE;
        }
    }
    pa.hE = hbuf;
    pa.hemin = hbuf + m;
    pa.hbits = hbuf + 2 * m;
    pb.hE = hbuf + 3 * m;
    pb.hemin = hbuf + 3 * m + n;
    pb.hbits = hbuf + 3 * m + 2 * n;

    CK(stage_prepare(&r, &A, &B, NULL));
    CK(mat_upload(&r, &A));
    CK(mat_upload(&r, &B));
    pa.lc = oz_op_view(c, 1, A.dev, A.ld, &pa.v);
    pb.lc = oz_op_view(c, 0, B.dev, B.ld, &pb.v);
    for (int s = 0; s < 2; s++) {
        side *p = s ? &pb : &pa;
        CK(cudaMemsetAsync(p->amax, 0, 8 * p->cols, r.st));
        CK(cudaMemsetAsync(p->S, 0, 8 * p->cols, r.st));
        CK(cudaMemsetAsync(s ? au.N1b : au.N1a, 0, 8 * p->cols, r.st));
        oz_launch(grid1(p->cols, 256), 256, r.st, oz_k_fill_int, p->emin, p->cols, INT_MAX);
        CKL();
    }
    CK(cudaMemsetAsync(d_bad, 0, 4, r.st));
    OZ_DISPATCH(pa.lc, cx, launch_stats, &pa, k, d_bad, r.st);
    CKL();
    OZ_DISPATCH(pb.lc, cx, launch_stats, &pb, k, d_bad, r.st);
    CKL();
    {
        int bad = 0;
        CK(cudaMemcpyAsync(&bad, d_bad, 4, cudaMemcpyDeviceToHost, r.st));
        CK(cudaStreamSynchronize(r.st));
        if (bad) {
            rep->fallback = OZBLAS_FALLBACK_NONFINITE;
            goto done;
        }
    }
    oz_launch(grid1(m, 256), 256, r.st, oz_k_exponents, pa.amax, pa.E, m);
    CKL();
    oz_launch(grid1(n, 256), 256, r.st, oz_k_exponents, pb.amax, pb.E, n);
    CKL();
    OZ_DISPATCH(pa.lc, cx, launch_sumsq, &pa, k, r.st);
    CKL();
    OZ_DISPATCH(pb.lc, cx, launch_sumsq, &pb, k, r.st);
    CKL();
    OZ_DISPATCH(pa.lc, cx, launch_norm1, &pa, k, au.N1a, r.st);
    CKL();
    OZ_DISPATCH(pb.lc, cx, launch_norm1, &pb, k, au.N1b, r.st);
    CKL();
    /* the small-integer products: accurate scaling's bound, then the two lower bounds */
    for (int which = fast ? 1 : 0; which < 3; which++) {
        const int64_t kblock = which == 0 ? OZ_KBLOCK_BOUND : OZ_KBLOCK;
        const int64_t nb = (kpad + kblock - 1) / kblock;
        if (which == 0) {
            OZ_DISPATCH(pa.lc, cx, launch_ubound, &pa, k, kpad, ushift, XA, T2, r.st);
            CKL();
            OZ_DISPATCH(pb.lc, cx, launch_ubound, &pb, k, kpad, ushift, XB, T2, r.st);
            CKL();
        } else {
            const int shift = which == 1 ? OZ2_LSHIFT : OZ2_LSHIFT2;
            OZ_DISPATCH(pa.lc, cx, launch_lbound, &pa, k, kpad, shift, XA, T2, r.st);
            CKL();
            OZ_DISPATCH(pb.lc, cx, launch_lbound, &pb, k, kpad, shift, XB, T2, r.st);
            CKL();
        }
        for (int64_t b = 0; b < nb; b++) {
            int64_t l0 = b * kblock;
            int64_t kb = kpad - l0 < kblock ? kpad - l0 : kblock;
            CKB(gemm_i8(&r, mpad, npad, kb, XA + l0, kpad, XB + l0, kpad, C32, mpad));
            if (which == 0)
                oz_launch(grid1(plane_c, 256), 256, r.st, oz_k_acc64, C32, au.G64, plane_c, b == 0);
            else
                oz_launch(grid1(plane_c, 256), 256, r.st, oz_k_acc_lower, C32,
                          which == 1 ? au.Glo : G2, plane_c, b == 0);
            CKL();
        }
    }
    oz_launch(grid1(plane_c, 256), 256, r.st, oz_k_lower_combine, au.Glo, G2, plane_c);
    CKL();
    CK(cudaMemcpyAsync(pa.hE, pa.E, 4 * m, cudaMemcpyDeviceToHost, r.st));
    CK(cudaMemcpyAsync(pa.hemin, pa.emin, 4 * m, cudaMemcpyDeviceToHost, r.st));
    CK(cudaMemcpyAsync(pb.hE, pb.E, 4 * n, cudaMemcpyDeviceToHost, r.st));
    CK(cudaMemcpyAsync(pb.hemin, pb.emin, 4 * n, cudaMemcpyDeviceToHost, r.st));
    CK(cudaStreamSynchronize(r.st));

    au.r = &r;
    au.pa = &pa;
    au.pb = &pb;
    au.fast = fast;
    au.cx = cx;
    au.ushift = ushift;
    au.mpad = mpad;
    au.beta = o1_beta;
    au.k = k;
    *nmod = oz_auto_count(2, o1_beta ? OZ1_MAX_SLICES : OZ2_MAX_MODULI, o1_beta ? 11 : 16,
                          cuda_auto_meets, &au);
    if (au.failed) {
        *nmod = 0;
        st = OZBLAS_ERR_DEVICE;
        goto done;
    }
    *ratio = au.ratio;
    if (!o1_beta) {
        report_bits_host(&pa, &pb, rep);
        rep->bound = oz2_report_bound(cx, au.ratio);
    }
    if (!*nmod)
        rep->fallback = au.lost ? OZBLAS_FALLBACK_EXPONENT_RANGE : OZBLAS_FALLBACK_ACCURACY;

done:
    if (run_sync(&r) != cudaSuccess && st == OZBLAS_OK)
        st = OZBLAS_ERR_DEVICE;
    if (st != OZBLAS_OK)
        *nmod = 0;
    free(hbuf);
    run_end(&r);
    return st;
}

static ozblas_status cuda_ozaki2(const oz_gemm_call *c, const oz2_table *T,
                                 const ozblas_options *opt, ozblas_report *rep)
{
    if (T)
        return cuda_ozaki2_fixed(c, T, opt, rep);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int nmod = 0;
    double ratio;
    ozblas_status st = cuda_auto_count(c, opt, rep, 0, &nmod, &ratio);
    if (st != OZBLAS_OK || nmod <= 0)
        return st;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    st = cuda_ozaki2_fixed(c, oz2_table_get(nmod), opt, rep);
    rep->moduli = nmod;
    if (st == OZBLAS_OK && rep->fallback == OZBLAS_FALLBACK_NONE) {
        rep->int_gemms += 2 + (opt->scaling == OZBLAS_SCALING_FAST ? 0 : 1);
        rep->phase_seconds[0] += (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
    }
    return st;
}

/* Filled field by field: members added to oz_executor later (other methods) stay NULL,
 * which the dispatcher reads as "not implemented here". No CUDA call happens here. */
static oz_executor make_cuda_executor(void)
{
    oz_executor e;
    memset(&e, 0, sizeof e);
    e.id = OZBLAS_EXECUTOR_CUDA;
    e.name = "cuda";
    e.available = cuda_available;
    e.native = cuda_native;
    e.ozaki2 = cuda_ozaki2;
    e.ozaki1 = cuda_ozaki1; /* ozaki1_cuda.cu */
    return e;
}

extern "C" const oz_executor *oz_cuda_executor(void)
{
    static const oz_executor e = make_cuda_executor(); /* thread-safe static init (C++11) */
    return &e;
}

/* ---- for the policy (oz_cuda.h) --------------------------------------------------------- */

extern "C" int oz_cuda_device_identity(int dev, char *name, size_t name_len, int *driver)
{
    if (!cuda_available(NULL, 0) || dev < 0 || dev >= avail_ndev)
        return 0;
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    snprintf(name, name_len, "%s", p.name);
    *driver = 0;
    (void)cudaDriverGetVersion(driver);
    return 1;
}

extern "C" int oz_cuda_on_device(const void *p)
{
    int pinned;
    return p && cuda_available(NULL, 0) && mem_where(p, 0, &pinned) != 0; /* -1: another device's */
}
