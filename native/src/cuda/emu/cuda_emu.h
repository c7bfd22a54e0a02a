/* A CPU emulation of the CUDA subset the CUDA executor uses, to run executor_cuda.cu and its
 * kernels on a machine without a GPU (DESIGN.md section 8): the host flow, the index
 * arithmetic, shared memory, __syncthreads, warp shuffles and atomics are all exercised.
 *
 * Not part of the library build (CMake compiles the .cu files of src/cuda only); build_emu.sh compiles
 * executor_cuda.cu with g++ -DOZ_CUDA_EMU against this header and a CPU "cuBLAS".
 *
 * Threads of a block are fibers (ucontext) run one after another on the calling thread;
 * __syncthreads and the shuffles are barriers where every live fiber of the block yields.
 * Blocks run one after another. "Device" memory is host memory, tracked so that
 * cudaPointerGetAttributes can tell device from host pointers. What it cannot check: the
 * device's own math library and compiler (-fmad=false), timing, and the real cuBLAS.
 */
#ifndef OZ_CUDA_EMU_H
#define OZ_CUDA_EMU_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static thread_local /* one block at a time per host thread */
#define __launch_bounds__(...)
#define __grid_constant__
#define CUDART_VERSION 13000

struct uint3 {
    unsigned x, y, z;
};
struct dim3 {
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
struct int4 {
    int x, y, z, w;
};
struct char4 {
    signed char x, y, z, w;
};
static inline char4 make_char4(signed char a, signed char b, signed char c, signed char d)
{
    char4 r = {a, b, c, d};
    return r;
}

/* ---- the runtime API subset ------------------------------------------------------------ */

typedef int cudaError_t;
enum {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInsufficientDriver = 35,
    cudaErrorNoDevice = 100
};
typedef struct oz_emu_stream *cudaStream_t;
typedef struct oz_emu_event {
    double t;
} *cudaEvent_t;
enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
};
enum cudaMemoryType {
    cudaMemoryTypeUnregistered = 0,
    cudaMemoryTypeHost = 1,
    cudaMemoryTypeDevice = 2,
    cudaMemoryTypeManaged = 3
};
struct cudaPointerAttributes {
    enum cudaMemoryType type;
    int device;
    void *devicePointer, *hostPointer;
};
struct cudaDeviceProp {
    char name[256];
    int major, minor;
    size_t totalGlobalMem;
};

namespace oz_emu {
struct Alloc {
    std::mutex mu;
    std::map<uintptr_t, size_t> live;
    size_t used = 0;
};
inline Alloc &allocs()
{
    static Alloc a;
    return a;
}
inline thread_local int current_device = 0;
inline thread_local cudaError_t last_error = cudaSuccess;
inline cudaError_t fail(cudaError_t e)
{
    last_error = e;
    return e;
}
inline size_t capacity()
{
    const char *s = getenv("OZ_EMU_DEVICE_BYTES"); /* simulate a small device */
    return s ? (size_t)strtoull(s, NULL, 10) : ((size_t)1 << 40);
}
} // namespace oz_emu

static inline cudaError_t cudaGetDeviceCount(int *n)
{
    *n = 1;
    return cudaSuccess;
}
static inline cudaError_t cudaGetLastError(void)
{
    cudaError_t e = oz_emu::last_error;
    oz_emu::last_error = cudaSuccess;
    return e;
}
static inline cudaError_t cudaPeekAtLastError(void) { return oz_emu::last_error; }
static inline const char *cudaGetErrorName(cudaError_t) { return "cudaErrorEmulated"; }
static inline const char *cudaGetErrorString(cudaError_t) { return "emulated error"; }
static inline cudaError_t cudaDriverGetVersion(int *v)
{
    *v = 13000;
    return cudaSuccess;
}
static inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "CPU emulation");
    p->major = 9;
    p->totalGlobalMem = oz_emu::capacity();
    return cudaSuccess;
}
static inline cudaError_t cudaGetDevice(int *d)
{
    *d = oz_emu::current_device;
    return cudaSuccess;
}
static inline cudaError_t cudaSetDevice(int d)
{
    if (d != 0)
        return oz_emu::fail(cudaErrorInvalidValue);
    oz_emu::current_device = d;
    return cudaSuccess;
}
static inline cudaError_t cudaMalloc(void **p, size_t bytes)
{
    oz_emu::Alloc &a = oz_emu::allocs();
    std::lock_guard<std::mutex> g(a.mu);
    if (a.used + bytes > oz_emu::capacity())
        return oz_emu::fail(cudaErrorMemoryAllocation);
    /* garbage, not zeros: the code must not rely on fresh memory being clear */
    unsigned char *q = (unsigned char *)malloc(bytes ? bytes : 1);
    if (!q)
        return oz_emu::fail(cudaErrorMemoryAllocation);
    for (size_t i = 0; i < bytes; i++)
        q[i] = (unsigned char)(0xA5 ^ (i * 131));
    a.live[(uintptr_t)q] = bytes;
    a.used += bytes;
    *p = q;
    return cudaSuccess;
}
static inline cudaError_t cudaFree(void *p)
{
    if (!p)
        return cudaSuccess;
    oz_emu::Alloc &a = oz_emu::allocs();
    std::lock_guard<std::mutex> g(a.mu);
    auto it = a.live.find((uintptr_t)p);
    if (it == a.live.end())
        return oz_emu::fail(cudaErrorInvalidValue);
    a.used -= it->second;
    a.live.erase(it);
    free(p);
    return cudaSuccess;
}
static inline cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *at, const void *p)
{
    memset(at, 0, sizeof *at);
    oz_emu::Alloc &a = oz_emu::allocs();
    std::lock_guard<std::mutex> g(a.mu);
    auto it = a.live.upper_bound((uintptr_t)p);
    if (it != a.live.begin()) {
        --it;
        if ((uintptr_t)p < it->first + it->second) {
            at->type = cudaMemoryTypeDevice;
            at->device = 0;
            return cudaSuccess;
        }
    }
    at->type = cudaMemoryTypeUnregistered;
    return cudaSuccess;
}
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind,
                                          cudaStream_t)
{
    memcpy(d, s, n);
    return cudaSuccess;
}
static inline cudaError_t cudaMemcpy2DAsync(void *d, size_t dp, const void *s, size_t sp,
                                            size_t w, size_t h, cudaMemcpyKind, cudaStream_t)
{
    if (dp < w || sp < w)
        return oz_emu::fail(cudaErrorInvalidValue);
    for (size_t r = 0; r < h; r++)
        memcpy((char *)d + r * dp, (const char *)s + r * sp, w);
    return cudaSuccess;
}
static inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t)
{
    memset(d, v, n);
    return cudaSuccess;
}
static inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
static inline cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    *e = new oz_emu_event{0.0};
    return cudaSuccess;
}
static inline cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    delete e;
    return cudaSuccess;
}
static inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    e->t = ts.tv_sec + 1e-9 * ts.tv_nsec;
    return cudaSuccess;
}
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    *ms = (float)(1e3 * (b->t - a->t));
    return cudaSuccess;
}

/* ---- threads: fibers, barriers, shuffles, atomics ---------------------------------------- */

namespace oz_emu {
enum { READY = 0, BARRIER = 1, DONE = 2 };
struct Fiber {
    ucontext_t ctx;
    int state;
    uint3 tid;
};
struct Block {
    std::vector<Fiber> f;
    ucontext_t main;
    int cur = 0;
    const std::function<void()> *body = nullptr;
    std::vector<uint64_t> slots;
    std::vector<char *> stacks;
};
inline thread_local Block *blk = nullptr;
inline thread_local uint3 bidx;
inline thread_local dim3 bdim, gdim;
enum { STACK = 256 * 1024 };

inline void fiber_entry()
{
    Block *b = blk;
    (*b->body)();
    b->f[b->cur].state = DONE;
    swapcontext(&b->f[b->cur].ctx, &b->main);
}

inline void barrier()
{
    Block *b = blk;
    b->f[b->cur].state = BARRIER;
    swapcontext(&b->f[b->cur].ctx, &b->main);
}

/* one block: every thread a fiber, run until all are done, barrier by barrier */
inline void run_block(Block &b)
{
    int nt = (int)b.f.size();
    for (int t = 0; t < nt; t++) {
        Fiber &f = b.f[t];
        getcontext(&f.ctx);
        f.ctx.uc_stack.ss_sp = b.stacks[t];
        f.ctx.uc_stack.ss_size = STACK;
        f.ctx.uc_link = nullptr;
        makecontext(&f.ctx, (void (*)())fiber_entry, 0);
        f.state = READY;
    }
    for (;;) {
        for (int t = 0; t < nt; t++) {
            if (b.f[t].state != READY)
                continue;
            b.cur = t;
            swapcontext(&b.main, &b.f[t].ctx);
        }
        int live = 0;
        for (int t = 0; t < nt; t++)
            if (b.f[t].state == BARRIER) {
                b.f[t].state = READY;
                live++;
            }
        if (!live)
            break;
    }
}

template <typename... P, typename... A>
void launch(dim3 grid, dim3 block, void (*kernel)(P...), A... args)
{
    int nt = (int)(block.x * block.y * block.z);
    if (nt <= 0 || nt > 1024 || grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.y > 65535 ||
        grid.z > 65535) {
        last_error = cudaErrorInvalidValue;
        return;
    }
    Block b;
    b.f.resize(nt);
    b.slots.resize(nt);
    b.stacks.resize(nt);
    for (int t = 0; t < nt; t++)
        b.stacks[t] = (char *)malloc(STACK);
    for (int t = 0; t < nt; t++) {
        b.f[t].tid.x = t % block.x;
        b.f[t].tid.y = (t / block.x) % block.y;
        b.f[t].tid.z = t / (block.x * block.y);
    }
    std::function<void()> body = [&]() { kernel(args...); };
    b.body = &body;
    Block *saved = blk;
    blk = &b;
    bdim = block;
    gdim = grid;
    for (unsigned z = 0; z < grid.z; z++)
        for (unsigned y = 0; y < grid.y; y++)
            for (unsigned x = 0; x < grid.x; x++) {
                bidx.x = x;
                bidx.y = y;
                bidx.z = z;
                run_block(b);
            }
    blk = saved;
    for (int t = 0; t < nt; t++)
        free(b.stacks[t]);
}
} // namespace oz_emu

#define threadIdx (oz_emu::blk->f[oz_emu::blk->cur].tid)
#define blockIdx (oz_emu::bidx)
#define blockDim (oz_emu::bdim)
#define gridDim (oz_emu::gdim)

template <typename... P, typename... A>
static inline void oz_emu_launch(dim3 grid, dim3 block, void (*kernel)(P...), A... args)
{
    oz_emu::launch(grid, block, kernel, args...);
}

static inline void __syncthreads() { oz_emu::barrier(); }

template <typename T>
static inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask)
{
    static_assert(sizeof(T) <= 8, "shuffle of at most 8 bytes");
    if (mask != 0xffffffffu)
        abort(); /* only full-warp shuffles are emulated */
    oz_emu::Block *b = oz_emu::blk;
    int me = b->cur;
    memcpy(&b->slots[me], &v, sizeof v);
    oz_emu::barrier();
    int lane = me % 32, partner = me - lane + (lane ^ lane_mask);
    if (partner >= (int)b->f.size() || b->f[partner].state == oz_emu::DONE)
        abort(); /* a real warp would read an exited lane: undefined */
    T r;
    memcpy(&r, &b->slots[partner], sizeof r);
    oz_emu::barrier();
    return r;
}

/* fibers of one block never preempt each other; different host threads use different
 * memory, but keep the atomics atomic anyway */
static inline unsigned long long atomicMax(unsigned long long *p, unsigned long long v)
{
    unsigned long long old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (old < v && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST,
                                                   __ATOMIC_SEQ_CST)) {
    }
    return old;
}
static inline int atomicMin(int *p, int v)
{
    int old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (old > v && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST,
                                                   __ATOMIC_SEQ_CST)) {
    }
    return old;
}
static inline int atomicOr(int *p, int v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
static inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v)
{
    return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
static inline long long __double_as_longlong(double x)
{
    long long r;
    memcpy(&r, &x, 8);
    return r;
}
static inline double __longlong_as_double(long long x)
{
    double r;
    memcpy(&r, &x, 8);
    return r;
}
static inline int __clzll(long long x)
{
    return x == 0 ? 64 : __builtin_clzll((unsigned long long)x);
}

#endif
