/* The CUDA executor's device context: whether CUDA can run here (and the description
 * `ozblas info` shows), the per (thread, device) state (cuBLAS handle, workspace, events,
 * staging), one call's context (device, stream), error reporting, and what the policy and
 * the dispatcher ask (device identity, where memory lives).
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

#define OZ_CUDA_FILE "cuda_device.cu"
#include "cuda_common.cuh"
#include "oz_cuda.h"

#ifndef OZBLAS_CUDA_ARCHS
#define OZBLAS_CUDA_ARCHS "unknown"
#endif

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

int oz_cuda_available(char *why, size_t len)
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
            oz_lt_cache_free(s->lt);
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
        s->i8_cols = oz_i8_max_cols(dev);
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
    if (oz_alloc_fault()) /* the test-only fault injection point (core/alloc.c) */
        return NULL;
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
    if (!oz_cuda_available(NULL, 0))
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

float elapsed(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0.0f;
    if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0.0f;
    }
    return ms;
}

/* ---- for the policy (oz_cuda.h) --------------------------------------------------------- */

extern "C" int oz_cuda_device_identity(int dev, char *name, size_t name_len, int *driver)
{
    if (!oz_cuda_available(NULL, 0) || dev < 0 || dev >= avail_ndev)
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

extern "C" int oz_cuda_device_count(void)
{
    return oz_cuda_available(NULL, 0) ? avail_ndev : 0;
}

extern "C" int oz_cuda_on_device(const void *p)
{
    int pinned;
    return p && oz_cuda_available(NULL, 0) && mem_where(p, 0, &pinned) != 0; /* -1: another device's */
}
