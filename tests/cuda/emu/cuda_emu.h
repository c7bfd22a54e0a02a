/* A CPU emulation of the CUDA subset the CUDA executor uses, to run the .cu files of
 * native/src/cuda and their kernels on a machine without a GPU (docs/testing.md, "How the GPU
 * code is checked without a GPU"): the host flow, the index arithmetic, shared memory,
 * __syncthreads, warp shuffles and atomics are all exercised, stricter than a GPU where a
 * GPU would let a bug pass by luck.
 *
 * Not part of the library build: CMakeLists.txt here compiles the library's sources (the
 * lists of native/sources.cmake) with g++ -DOZ_CUDA_EMU against this header and CPU
 * stand-ins for cuBLAS and cuBLASLt.
 *
 * Threads of a block are fibers (ucontext) run on the thread that runs the stream's queue;
 * __syncthreads and the shuffles are barriers where every live fiber of the block yields.
 * Between barriers the threads run in a shuffled order, and the blocks of a grid too
 * (OZ_EMU_SEED, see shuffled): a missing barrier changes bits. Shared memory is a per-launch
 * arena, garbage at every block, sized and limited as on a GPU (see Smem). Streams queue
 * their work and run it as late as the code allows (see oz_emu_stream). Device memory is
 * closed to the host outside device work, so a host access to it faults (see map_device);
 * pinned memory is host memory; cudaPointerGetAttributes tells device, pinned and pageable
 * pointers apart; OZ_EMU_DEVICE_BYTES caps the device memory. Under -DOZ_EMU_SANITIZE=ON
 * (AddressSanitizer, UndefinedBehaviorSanitizer) an access past a device buffer or a shared
 * array, or an overflowing index, stops the run.
 *
 * Several devices: OZ_EMU_DEVICES=N (1 to 64, default 1) emulates N of them, each with its
 * own memory (OZ_EMU_DEVICE_BYTES each), legacy stream and streams; the current device is
 * per host thread. A kernel launched on another device's stream, a kernel argument pointing
 * at another device's memory, a copy touching memory of a device other than its stream's
 * (no peer access is emulated) and a cuBLAS handle given another device's stream fail, as
 * they would (or would corrupt) on a GPU; device work touching another device's memory
 * faults. OZ_EMU_FAIL_DEVICE=d makes every allocation on device d fail (a device out of
 * memory). OZ_EMU_CC=major.minor: the compute capability (default 9.0). What it cannot
 * check: the device's own math library and compiler (-fmad=false), timing, the real cuBLAS,
 * warps as units (a shuffle is a block-wide barrier here), interleavings finer than a round.
 */
#ifndef OZ_CUDA_EMU_H
#define OZ_CUDA_EMU_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
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
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotReady = 600
};
enum { cudaStreamNonBlocking = 1, cudaEventDisableTiming = 2, cudaHostAllocDefault = 0 };
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

/* Streams run nothing when work is queued: each keeps a queue that runs, oldest first, only
 * when something must see its effects (a synchronisation, an event another stream waits for,
 * a copy into pageable host memory). Work on different streams therefore runs as late and
 * in as unlucky an order as the code allows, so a missing event wait or an early reuse of a
 * buffer gives wrong results here instead of a rare race on a GPU. Copies from pageable host
 * memory read it when queued (as cudaMemcpyAsync does); copies from or to pinned memory
 * (cudaHostAlloc) read or write it when they run. Only non-blocking streams are created (no
 * implicit synchronisation with the legacy stream, NULL, which is one queue for all threads).
 * One lock serialises every queue operation and the work it runs. */
struct oz_emu_stream {
    std::deque<std::function<void()>> q;
    int dev;                       /* the device it belongs to */
    cudaError_t err = cudaSuccess; /* a launch that failed while it ran (shared memory) */
};
typedef struct oz_emu_stream *cudaStream_t;
typedef struct oz_emu_event {
    double t;
    unsigned flags;
    oz_emu_stream *st;             /* stream of the last record; NULL: never recorded */
    uint64_t recorded, completed;  /* records made and records run (in order per stream) */
} *cudaEvent_t;

namespace oz_emu {
#define OZ_EMU_MAX_DEVICES 64
/* The pages of one device allocation (see map_device). */
struct Mapping {
    char *base;    /* the mapping, guard pages included */
    size_t total;  /* its length */
    int dev;
};
struct Alloc {
    std::mutex mu;
    std::map<uintptr_t, size_t> live, pinned;
    std::map<uintptr_t, int> dev_of;      /* device allocations: their device */
    std::map<uintptr_t, Mapping> mapping; /* device allocations: their pages */
    size_t used[OZ_EMU_MAX_DEVICES] = {};
    int open[OZ_EMU_MAX_DEVICES] = {}; /* device work running on each device (DeviceWork) */
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
inline int env_int(const char *name, int dflt)
{
    const char *s = getenv(name);
    return s && *s ? atoi(s) : dflt;
}
inline int device_count()
{
    int n = env_int("OZ_EMU_DEVICES", 1);
    return n < 1 ? 1 : n > OZ_EMU_MAX_DEVICES ? OZ_EMU_MAX_DEVICES : n;
}
inline size_t capacity()
{
    const char *s = getenv("OZ_EMU_DEVICE_BYTES"); /* simulate a small device */
    return s ? (size_t)strtoull(s, NULL, 10) : ((size_t)1 << 40);
}
inline double now()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* ---- device memory the host cannot touch ---------------------------------------------------
 * Each cudaMalloc is a mapping of its own: a guard page, the data pages, a guard page, the
 * buffer placed at the end of its data pages (rounded down to cudaMalloc's 256-byte
 * alignment), so that running off either end faults, and under AddressSanitizer the slack
 * around it is poisoned. The data pages are PROT_NONE while no device work of their device
 * runs: the host touching device memory faults, where on a GPU it would crash or read
 * garbage. Device work is what a stream's queue runs (kernels, copies, memsets, the
 * stand-in cuBLAS and cuBLASLt products): DeviceWork opens the memory of the queue's device
 * for it, counted per device under the allocation lock, and closes it when the last one
 * ends. Concurrency is therefore safe (no host thread ever closes memory another one's
 * device work uses), at one cost: while device work of device d runs, a host access to d's
 * memory from another host thread goes unseen. Memory of the other devices stays closed. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define OZ_EMU_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define OZ_EMU_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define OZ_EMU_POISON(p, n) ((void)(p), (void)(n))
#define OZ_EMU_UNPOISON(p, n) ((void)(p), (void)(n))
#endif
inline size_t page_size()
{
    static const size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return pg;
}
/* The data pages of a mapping: (start, length). */
inline char *data_pages(const Mapping &m) { return m.base + page_size(); }
inline size_t data_length(const Mapping &m) { return m.total - 2 * page_size(); }

/* A host access to closed device memory: named on stderr, then the handler that was there
 * (Python's faulthandler, which shows the Python stack) or the default (a core dump). */
inline struct sigaction &old_segv()
{
    static struct sigaction old;
    return old;
}
inline uintptr_t &device_lo() { static uintptr_t lo = UINTPTR_MAX; return lo; }
inline uintptr_t &device_hi() { static uintptr_t hi = 0; return hi; }
inline void on_segv(int sig, siginfo_t *si, void *uc)
{
    const uintptr_t p = (uintptr_t)si->si_addr;
    if (p >= device_lo() && p < device_hi()) {
        char msg[200];
        int n = snprintf(msg, sizeof msg, "cuda_emu: device memory touched outside its "
                         "device's work (by the host, by another device, or past a buffer) at "
                         "%p\n", si->si_addr);
        if (n > 0)
            (void)!write(2, msg, (size_t)n);
    }
    sigaction(SIGSEGV, &old_segv(), NULL); /* returning re-raises the fault there */
    (void)sig, (void)uc;
}
inline void catch_segv()
{
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_segv;
        sa.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGSEGV, &sa, &old_segv());
    });
}

/* The device's memory opened (prot = PROT_READ | PROT_WRITE) or closed (PROT_NONE); a.mu held. */
inline void protect_device(Alloc &a, int dev, int prot)
{
    for (auto &m : a.mapping)
        if (m.second.dev == dev && mprotect(data_pages(m.second), data_length(m.second), prot))
            abort();
}
/* Device work of device dev: its memory open for as long as this lives. */
struct DeviceWork {
    int dev;
    explicit DeviceWork(int d) : dev(d)
    {
        Alloc &a = allocs();
        std::lock_guard<std::mutex> g(a.mu);
        if (a.open[dev]++ == 0)
            protect_device(a, dev, PROT_READ | PROT_WRITE);
    }
    ~DeviceWork()
    {
        Alloc &a = allocs();
        std::lock_guard<std::mutex> g(a.mu);
        if (--a.open[dev] == 0)
            protect_device(a, dev, PROT_NONE);
    }
    DeviceWork(const DeviceWork &) = delete;
    DeviceWork &operator=(const DeviceWork &) = delete;
};

/* bytes of device memory of device dev (see above), filled with garbage (the code must not
 * rely on fresh memory being clear); NULL when no mapping can be made. a.mu held. */
inline void *map_device(Alloc &a, size_t bytes, int dev)
{
    const size_t pg = page_size(), data = (bytes + pg - 1) / pg * pg + (bytes ? 0 : pg);
    char *base = (char *)mmap(NULL, data + 2 * pg, PROT_NONE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED)
        return NULL;
    Mapping m = {base, data + 2 * pg, dev};
    char *q = data_pages(m) + ((data - bytes) & ~(size_t)255);
    if (mprotect(data_pages(m), data, PROT_READ | PROT_WRITE)) {
        munmap(base, m.total);
        return NULL;
    }
    for (size_t i = 0; i < bytes; i++)
        q[i] = (char)(0xA5 ^ (i * 131));
    OZ_EMU_POISON(data_pages(m), (size_t)(q - data_pages(m)));
    OZ_EMU_POISON(q + bytes, (size_t)(data_pages(m) + data - (q + bytes)));
    if (!a.open[dev] && mprotect(data_pages(m), data, PROT_NONE))
        abort();
    a.mapping[(uintptr_t)q] = m;
    device_lo() = std::min(device_lo(), (uintptr_t)base);
    device_hi() = std::max(device_hi(), (uintptr_t)base + m.total);
    catch_segv();
    return q;
}
inline void unmap_device(Alloc &a, void *p)
{
    auto it = a.mapping.find((uintptr_t)p);
    OZ_EMU_UNPOISON(data_pages(it->second), data_length(it->second));
    munmap(it->second.base, it->second.total);
    a.mapping.erase(it);
}

/* A kernel's shared memory settings and needs. */
struct KernelSmem {
    long max_dynamic = -1; /* cudaFuncAttributeMaxDynamicSharedMemorySize; -1: not set */
    size_t seen = 0;       /* the static shared memory its runs declared (0 until it has run) */
};
struct Sched {
    std::recursive_mutex mu;
    oz_emu_stream legacy[OZ_EMU_MAX_DEVICES]; /* one per device */
    std::set<oz_emu_stream *> streams;            /* created here */
    std::map<uintptr_t, oz_emu_stream *> foreign; /* handles made elsewhere (the caller's) */
    std::map<const void *, KernelSmem> kernels;
};
inline Sched &sched()
{
    static Sched s;
    return s;
}
typedef std::lock_guard<std::recursive_mutex> Lock;
/* The queue of stream s (lock held): a handle this emulation did not create is a stream
 * someone else made, e.g. the caller's, and gets a queue of its own on first use. */
inline oz_emu_stream *stream_of(cudaStream_t s)
{
    if (!s) {
        oz_emu_stream *l = &sched().legacy[current_device];
        l->dev = current_device;
        return l;
    }
    if (sched().streams.count(s))
        return s;
    oz_emu_stream *&f = sched().foreign[(uintptr_t)s];
    if (!f)
        f = new oz_emu_stream{{}, current_device};
    return f;
}

/* Runs st's queue, oldest first, until done() holds or the queue is empty. */
inline void run_until(oz_emu_stream *st, const std::function<bool()> &done)
{
    if (done() || st->q.empty())
        return;
    DeviceWork work(st->dev);
    while (!done() && !st->q.empty()) {
        std::function<void()> op = std::move(st->q.front());
        st->q.pop_front();
        op();
    }
}
inline void drain(oz_emu_stream *st)
{
    run_until(st, [] { return false; });
}
inline void drain_all()
{
    for (oz_emu_stream &l : sched().legacy)
        drain(&l);
    for (oz_emu_stream *s : sched().streams)
        drain(s);
    for (auto &f : sched().foreign)
        drain(f.second);
}
inline void enqueue(cudaStream_t s, std::function<void()> op)
{
    stream_of(s)->q.push_back(std::move(op));
}
/* Runs the stream of e's last record until that record has run. */
inline void wait_event(oz_emu_stream *st, cudaEvent_t e, uint64_t gen)
{
    if (st)
        run_until(st, [e, gen] { return e->completed >= gen; });
}

enum Where { PAGEABLE = 0, PINNED = 1, DEVICE = 2 };
inline Where where(const void *p)
{
    Alloc &a = allocs();
    std::lock_guard<std::mutex> g(a.mu);
    for (auto *m : {&a.live, &a.pinned}) {
        auto it = m->upper_bound((uintptr_t)p);
        if (it != m->begin()) {
            --it;
            if ((uintptr_t)p < it->first + it->second)
                return m == &a.live ? DEVICE : PINNED;
        }
    }
    return PAGEABLE;
}
/* The device of device memory p, -1 for host memory. */
inline int device_of(const void *p)
{
    if (where(p) != DEVICE)
        return -1;
    Alloc &a = allocs();
    std::lock_guard<std::mutex> g(a.mu);
    auto it = a.dev_of.upper_bound((uintptr_t)p);
    return it == a.dev_of.begin() ? -1 : (--it)->second;
}
/* Memory of a device other than dev (no peer access is emulated). */
inline bool foreign_memory(const void *p, int dev)
{
    int d = device_of(p);
    if (d >= 0 && d != dev) {
        fprintf(stderr, "cuda_emu: memory of device %d used on device %d\n", d, dev);
        return true;
    }
    return false;
}

/* A copy of h rows of w bytes: checks the direction against where the pointers are, then
 * queues it on s (see oz_emu_stream for when host memory is read or written). */
inline cudaError_t copy2d(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h,
                          cudaMemcpyKind kind, cudaStream_t st)
{
    if (dp < w || sp < w)
        return fail(cudaErrorInvalidValue);
    Where wd = where(d), ws = where(s);
    bool ok = kind == cudaMemcpyDefault ||
              (kind == cudaMemcpyHostToDevice && wd == DEVICE && ws != DEVICE) ||
              (kind == cudaMemcpyDeviceToHost && wd != DEVICE && ws == DEVICE) ||
              (kind == cudaMemcpyDeviceToDevice && wd == DEVICE && ws == DEVICE) ||
              (kind == cudaMemcpyHostToHost && wd != DEVICE && ws != DEVICE);
    if (!ok) {
        fprintf(stderr, "cuda_emu: memcpy kind %d does not match the pointers\n", (int)kind);
        return fail(cudaErrorInvalidValue);
    }
    Lock lk(sched().mu);
    const int sdev = stream_of(st)->dev;
    if (foreign_memory(d, sdev) || foreign_memory(s, sdev))
        return fail(cudaErrorInvalidValue);
    if (ws == PAGEABLE) { /* read now */
        std::shared_ptr<std::vector<char>> snap = std::make_shared<std::vector<char>>(w * h);
        for (size_t r = 0; r < h; r++)
            memcpy(snap->data() + r * w, (const char *)s + r * sp, w);
        enqueue(st, [=] {
            for (size_t r = 0; r < h; r++)
                memcpy((char *)d + r * dp, snap->data() + r * w, w);
        });
    } else {
        enqueue(st, [=] {
            for (size_t r = 0; r < h; r++)
                memcpy((char *)d + r * dp, (const char *)s + r * sp, w);
        });
    }
    if (wd == PAGEABLE) { /* into pageable memory: returns once written */
        std::shared_ptr<bool> ran = std::make_shared<bool>(false);
        enqueue(st, [ran] { *ran = true; });
        run_until(stream_of(st), [ran] { return *ran; });
    }
    return cudaSuccess;
}
} // namespace oz_emu

static inline cudaError_t cudaGetDeviceCount(int *n)
{
    *n = oz_emu::device_count();
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
static inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d)
{
    if (d < 0 || d >= oz_emu::device_count())
        return oz_emu::fail(cudaErrorInvalidDevice);
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "CPU emulation");
    /* OZ_EMU_CC=10.0 (or 12.0 ...) emulates that compute capability (default 9.0) */
    const char *cc = getenv("OZ_EMU_CC");
    if (!cc || sscanf(cc, "%d.%d", &p->major, &p->minor) != 2)
        p->major = 9, p->minor = 0;
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
    if (d < 0 || d >= oz_emu::device_count())
        return oz_emu::fail(cudaErrorInvalidDevice);
    oz_emu::current_device = d;
    return cudaSuccess;
}
static inline cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    oz_emu::Alloc &a = oz_emu::allocs();
    std::lock_guard<std::mutex> g(a.mu);
    const size_t used = a.used[oz_emu::current_device];
    *total = oz_emu::capacity();
    *free_bytes = used < *total ? *total - used : 0;
    return cudaSuccess;
}
static inline cudaError_t cudaMalloc(void **p, size_t bytes)
{
    oz_emu::Alloc &a = oz_emu::allocs();
    const int dev = oz_emu::current_device;
    if (dev == oz_emu::env_int("OZ_EMU_FAIL_DEVICE", -1))
        return oz_emu::fail(cudaErrorMemoryAllocation);
    std::lock_guard<std::mutex> g(a.mu);
    if (a.used[dev] + bytes > oz_emu::capacity())
        return oz_emu::fail(cudaErrorMemoryAllocation);
    void *q = oz_emu::map_device(a, bytes, dev);
    if (!q)
        return oz_emu::fail(cudaErrorMemoryAllocation);
    a.live[(uintptr_t)q] = bytes;
    a.dev_of[(uintptr_t)q] = dev;
    a.used[dev] += bytes;
    *p = q;
    return cudaSuccess;
}
static inline cudaError_t cudaFree(void *p)
{
    if (!p)
        return cudaSuccess;
    {
        oz_emu::Lock lk(oz_emu::sched().mu); /* as on a GPU: cudaFree waits for the device */
        oz_emu::drain_all();
    }
    oz_emu::Alloc &a = oz_emu::allocs();
    std::lock_guard<std::mutex> g(a.mu);
    auto it = a.live.find((uintptr_t)p);
    if (it == a.live.end())
        return oz_emu::fail(cudaErrorInvalidValue);
    a.used[a.dev_of[(uintptr_t)p]] -= it->second;
    a.dev_of.erase((uintptr_t)p);
    a.live.erase(it);
    oz_emu::unmap_device(a, p);
    return cudaSuccess;
}
static inline cudaError_t cudaHostAlloc(void **p, size_t bytes, unsigned)
{
    oz_emu::Alloc &a = oz_emu::allocs();
    std::lock_guard<std::mutex> g(a.mu);
    unsigned char *q = (unsigned char *)malloc(bytes ? bytes : 1);
    if (!q)
        return oz_emu::fail(cudaErrorMemoryAllocation);
    memset(q, 0x5A, bytes); /* garbage */
    a.pinned[(uintptr_t)q] = bytes;
    *p = q;
    return cudaSuccess;
}
static inline cudaError_t cudaFreeHost(void *p)
{
    if (!p)
        return cudaSuccess;
    {
        oz_emu::Lock lk(oz_emu::sched().mu);
        oz_emu::drain_all();
    }
    oz_emu::Alloc &a = oz_emu::allocs();
    std::lock_guard<std::mutex> g(a.mu);
    auto it = a.pinned.find((uintptr_t)p);
    if (it == a.pinned.end())
        return oz_emu::fail(cudaErrorInvalidValue);
    a.pinned.erase(it);
    free(p);
    return cudaSuccess;
}
static inline cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *at, const void *p)
{
    memset(at, 0, sizeof *at);
    oz_emu::Where w = oz_emu::where(p);
    at->type = w == oz_emu::DEVICE   ? cudaMemoryTypeDevice
               : w == oz_emu::PINNED ? cudaMemoryTypeHost
                                     : cudaMemoryTypeUnregistered;
    at->device = w == oz_emu::DEVICE ? oz_emu::device_of(p) : -1;
    return cudaSuccess;
}
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k,
                                          cudaStream_t st)
{
    return oz_emu::copy2d(d, n, s, n, n, 1, k, st);
}
static inline cudaError_t cudaMemcpy2DAsync(void *d, size_t dp, const void *s, size_t sp,
                                            size_t w, size_t h, cudaMemcpyKind k,
                                            cudaStream_t st)
{
    return oz_emu::copy2d(d, dp, s, sp, w, h, k, st);
}
static inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t st)
{
    if (oz_emu::where(d) != oz_emu::DEVICE)
        return oz_emu::fail(cudaErrorInvalidValue);
    oz_emu::Lock lk(oz_emu::sched().mu);
    oz_emu::enqueue(st, [=] { memset(d, v, n); });
    return cudaSuccess;
}
static inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags)
{
    if (flags != cudaStreamNonBlocking) /* blocking streams are not emulated */
        return oz_emu::fail(cudaErrorInvalidValue);
    oz_emu::Lock lk(oz_emu::sched().mu);
    *s = new oz_emu_stream{{}, oz_emu::current_device};
    oz_emu::sched().streams.insert(*s);
    return cudaSuccess;
}
static inline cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    oz_emu::Lock lk(oz_emu::sched().mu);
    if (!s || !oz_emu::sched().streams.count(s)) /* only streams created here */
        return oz_emu::fail(cudaErrorInvalidResourceHandle);
    oz_emu::drain(s);
    oz_emu::sched().streams.erase(s);
    delete s;
    return cudaSuccess;
}
/* The error of a launch that failed while it ran (oz_emu_stream::err), reported once. */
static inline cudaError_t oz_emu_stream_error(oz_emu_stream *q)
{
    cudaError_t e = q->err;
    q->err = cudaSuccess;
    return e == cudaSuccess ? cudaSuccess : oz_emu::fail(e);
}
static inline cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    oz_emu::Lock lk(oz_emu::sched().mu);
    oz_emu::drain(oz_emu::stream_of(s));
    return oz_emu_stream_error(oz_emu::stream_of(s));
}
static inline cudaError_t cudaDeviceSynchronize(void)
{
    oz_emu::Lock lk(oz_emu::sched().mu);
    oz_emu::drain_all();
    cudaError_t e = oz_emu_stream_error(oz_emu::stream_of(NULL));
    for (oz_emu_stream *q : oz_emu::sched().streams)
        if (q->dev == oz_emu::current_device && e == cudaSuccess)
            e = oz_emu_stream_error(q);
    return e;
}
static inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags)
{
    *e = new oz_emu_event{0.0, flags, nullptr, 0, 0};
    return cudaSuccess;
}
static inline cudaError_t cudaEventCreate(cudaEvent_t *e) { return cudaEventCreateWithFlags(e, 0); }
static inline cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    oz_emu::Lock lk(oz_emu::sched().mu);
    oz_emu::wait_event(e->st, e, e->recorded); /* queued work may still record it */
    delete e;
    return cudaSuccess;
}
static inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
    oz_emu::Lock lk(oz_emu::sched().mu);
    e->st = oz_emu::stream_of(s);
    uint64_t gen = ++e->recorded;
    oz_emu::enqueue(s, [e, gen] {
        e->t = oz_emu::now();
        if (gen > e->completed)
            e->completed = gen;
    });
    return cudaSuccess;
}
static inline cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags)
{
    if (flags)
        return oz_emu::fail(cudaErrorInvalidValue);
    oz_emu::Lock lk(oz_emu::sched().mu);
    oz_emu_stream *st = e->st;
    uint64_t gen = e->recorded; /* the record made before this call, as on a GPU */
    oz_emu::enqueue(s, [st, e, gen] { oz_emu::wait_event(st, e, gen); });
    return cudaSuccess;
}
static inline cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    oz_emu::Lock lk(oz_emu::sched().mu);
    oz_emu::wait_event(e->st, e, e->recorded);
    return cudaSuccess;
}
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    oz_emu::Lock lk(oz_emu::sched().mu);
    if ((a->flags | b->flags) & cudaEventDisableTiming || !a->st || !b->st)
        return oz_emu::fail(cudaErrorInvalidResourceHandle);
    if (a->completed < a->recorded || b->completed < b->recorded)
        return oz_emu::fail(cudaErrorNotReady);
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
    const char *file; /* the barrier it waits at: __syncthreads' file and line, or "shuffle" */
    int line;
};
/* Shared memory (OZ_SHARED and OZ_SHARED_DYNAMIC below): per launch, one arena, the
 * dynamic part first, then each static variable where a thread of the block first reaches
 * its declaration; refilled with garbage for every block (a GPU's shared memory starts as
 * whatever the last block left), with poisoned gaps between variables under
 * AddressSanitizer. Sized as on a GPU: static variables at most 48 KB in all (more does not
 * compile); static plus dynamic at most 48 KB unless cudaFuncSetAttribute raised the
 * kernel's cudaFuncAttributeMaxDynamicSharedMemorySize, and never more than the device's
 * per-block maximum (227 KB on cc 9.0 and 10.x, see smem_optin). */
enum { SMEM_DEFAULT = 48 * 1024, SMEM_GAP = 64, SMEM_ARENA = 232448 + 64 * SMEM_GAP };
struct Smem {
    unsigned char *arena = nullptr; /* from the host thread's spares (Spares) */
    size_t size = 0;
    size_t dyn = 0;         /* dynamic bytes of the launch */
    size_t end = 0;         /* arena bytes handed out */
    size_t static_sum = 0;  /* static bytes (as a GPU counts them: without the gaps) */
    size_t static_max = 0;  /* what the static bytes may reach in this launch (kernel_limits) */
    std::vector<std::pair<const void *, size_t>> vars; /* declaration site, offset */
    std::vector<std::pair<size_t, size_t>> ranges;     /* offset, bytes: what threads may use */
};
struct Block {
    std::vector<Fiber> f;
    ucontext_t main;
    int cur = 0;
    const std::function<void()> *body = nullptr;
    std::vector<uint64_t> slots;
    std::vector<char *> stacks;
    Smem sm;
    bool failed = false; /* the launch failed while it ran (its shared memory too large) */
    const void *main_stack = nullptr; /* the runner's stack (AddressSanitizer's fiber API) */
    size_t main_size = 0;
    void *shared(const void *site, size_t bytes, size_t align, const char *name);
};
/* Fiber stacks and shared memory arenas kept per host thread from one launch to the next:
 * allocating them per launch made the kernel launches page-fault their way through the
 * tests. A launch takes what it needs and gives it back. A thread's spares are freed when it
 * exits; launches after that (a thread-exit cleanup of the library synchronizing a stream
 * runs kernels then) allocate and free their own (spares_gone, which outlives spares since
 * it needs no destructor). */
inline thread_local bool spares_gone = false;
struct Spares {
    std::vector<char *> stacks;
    std::vector<unsigned char *> arenas;
    ~Spares()
    {
        for (char *p : stacks)
            free(p);
        for (unsigned char *p : arenas)
            free(p);
        spares_gone = true;
    }
};
inline thread_local Spares spares;
/* A fiber stack or an arena of n bytes: a spare one, or a new one. */
template <typename T> T *take_spare(std::vector<T *> Spares::*list, size_t n)
{
    if (spares_gone || (spares.*list).empty()) {
        T *p = (T *)malloc(n);
        if (!p) {
            fprintf(stderr, "cuda_emu: out of host memory for a launch\n");
            abort();
        }
        return p;
    }
    T *p = (spares.*list).back();
    (spares.*list).pop_back();
    return p;
}
/* ... given back at the end of the launch. */
template <typename T> void give_spare(std::vector<T *> Spares::*list, T *p)
{
    if (spares_gone)
        free(p);
    else
        (spares.*list).push_back(p);
}
inline thread_local Block *blk = nullptr;
inline thread_local uint3 bidx;
inline thread_local dim3 bdim, gdim;
enum { STACK = 256 * 1024 };

/* Switches between a block's runner (b.main) and its fibers, told to AddressSanitizer,
 * which otherwise takes a fiber's stack for a corrupt one (to_fiber: the runner's side;
 * to_main: a fiber's, ending: a fiber that will not be resumed). */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif
inline void to_fiber(Block &b, int t)
{
    b.cur = t;
#if defined(__SANITIZE_ADDRESS__)
    void *fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, b.stacks[t], STACK);
    swapcontext(&b.main, &b.f[t].ctx);
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#else
    swapcontext(&b.main, &b.f[t].ctx);
#endif
}
inline void to_main(Block &b, bool ending)
{
#if defined(__SANITIZE_ADDRESS__)
    void *fake = nullptr;
    __sanitizer_start_switch_fiber(ending ? nullptr : &fake, b.main_stack, b.main_size);
    swapcontext(&b.f[b.cur].ctx, &b.main);
    __sanitizer_finish_switch_fiber(fake, &b.main_stack, &b.main_size);
#else
    (void)ending;
    swapcontext(&b.f[b.cur].ctx, &b.main);
#endif
}

inline void fiber_entry()
{
    Block *b = blk;
#if defined(__SANITIZE_ADDRESS__)
    __sanitizer_finish_switch_fiber(nullptr, &b->main_stack, &b->main_size);
#endif
    (*b->body)();
    b->f[b->cur].state = DONE;
    to_main(*b, true);
}

inline void barrier(const char *file, int line)
{
    Block *b = blk;
    b->f[b->cur].state = BARRIER;
    b->f[b->cur].file = file;
    b->f[b->cur].line = line;
    to_main(*b, false);
}

/* The device's most shared memory per block, opted in (cudaDevAttrMaxSharedMemoryPerBlockOptin)
 * for the emulated compute capability (OZ_EMU_CC). */
inline size_t smem_optin()
{
    int major = 9, minor = 0;
    const char *cc = getenv("OZ_EMU_CC");
    if (cc)
        sscanf(cc, "%d.%d", &major, &minor);
    const int v = 10 * major + minor;
    return v == 80 || v == 87 ? 166912 : v >= 90 && v < 120 ? 232448 : 101376;
}
inline void fill_garbage(Smem &m, uint64_t key)
{
    for (auto &r : m.ranges)
        memset(m.arena + r.first, (int)(0x5A ^ (key & 0xff)) | 1, r.second);
}
/* The static shared variable of a declaration site, placed on first reach. */
inline void *Block::shared(const void *site, size_t bytes, size_t align, const char *name)
{
    for (auto &v : sm.vars)
        if (v.first == site)
            return sm.arena + v.second;
    const size_t at = (sm.end + SMEM_GAP + align - 1) / align * align;
    sm.static_sum += bytes;
    if (sm.static_sum > SMEM_DEFAULT) {
        fprintf(stderr, "cuda_emu: __shared__ %s brings the kernel's static shared memory to %zu "
                        "bytes, over 48 KB: nvcc refuses such a kernel\n", name, sm.static_sum);
        abort();
    }
    if (sm.static_sum > sm.static_max) {
        fprintf(stderr, "cuda_emu: launch failed: __shared__ %s brings the static shared memory "
                        "to %zu bytes, with %zu dynamic, over the kernel's limit\n",
                name, sm.static_sum, sm.dyn);
        failed = true;
        to_main(*this, true); /* never resumed: the launch is abandoned */
    }
    if (at + bytes > sm.size) { /* only with dozens of shared variables (SMEM_ARENA's slack) */
        fprintf(stderr, "cuda_emu: too many shared variables for the emulation's arena\n");
        abort();
    }
    sm.vars.emplace_back(site, at);
    sm.ranges.emplace_back(at, bytes);
    sm.end = at + bytes;
    OZ_EMU_UNPOISON(sm.arena + at, bytes);
    return sm.arena + at;
}
template <typename A> A *shared(const void *site, const char *name)
{
    return (A *)blk->shared(site, sizeof(A), alignof(A), name);
}
template <typename T> T *dynamic_shared() { return (T *)blk->sm.arena; }

/* The orders threads and blocks run in. On a GPU the threads of a block run in no set order
 * between barriers, nor do the blocks of a grid; run in index order, a missing __syncthreads
 * or a block reading another block's results could go unseen. So each round of a block
 * (from one barrier to the next) runs its threads in a shuffled order, and the blocks of a
 * grid run in a shuffled order, drawn from OZ_EMU_SEED (default 1; 0: index order, as the
 * harness used to). Each order is a function of the seed and of the launch's shape, block
 * and round only, so that a failure reproduces when its test runs alone. */
inline uint64_t mix(uint64_t x) /* splitmix64's finaliser */
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
inline uint64_t seed()
{
    static const uint64_t s = [] {
        const char *e = getenv("OZ_EMU_SEED");
        return e && *e ? (uint64_t)strtoull(e, NULL, 10) : 1;
    }();
    return s;
}
/* An order of 0 .. n-1 drawn from key (Fisher-Yates); index order when the seed is 0. */
inline void shuffled(std::vector<size_t> &order, size_t n, uint64_t key)
{
    order.resize(n);
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    if (!seed())
        return;
    uint64_t x = mix(seed() ^ mix(key));
    for (size_t i = n; i > 1; i--) {
        x = mix(x);
        std::swap(order[i - 1], order[x % i]);
    }
}

/* one block: every thread a fiber, run until all are done, barrier by barrier, each round
 * in its own order; key: the launch's shape and the block */
inline void run_block(Block &b, uint64_t key)
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
    fill_garbage(b.sm, mix(key) ^ seed());
    std::vector<size_t> order;
    for (uint64_t round = 0;; round++) {
        shuffled(order, nt, mix(key) ^ round);
        for (size_t t : order) {
            if (b.f[t].state != READY)
                continue;
            to_fiber(b, (int)t);
            if (b.failed)
                return;
        }
        /* every thread still running waits at one barrier: threads at different
         * __syncthreads (or at one and at a shuffle) would hang or corrupt on a GPU */
        const Fiber *first = nullptr;
        for (int t = 0; t < nt; t++) {
            Fiber &f = b.f[t];
            if (f.state != BARRIER)
                continue;
            if (!first)
                first = &f;
            else if (f.line != first->line || strcmp(f.file, first->file)) {
                fprintf(stderr, "cuda_emu: threads of a block wait at different barriers (%s:%d "
                                "and %s:%d)\n", first->file, first->line, f.file, f.line);
                abort();
            }
            f.state = READY;
        }
        if (!first)
            break;
    }
}

/* The shared memory limits of kernel k launched with dyn dynamic bytes (sched().mu held):
 * the static bytes it may declare; and false when the launch must fail now (what the kernel
 * declared on earlier runs is known then; on its first run, Block::shared fails it). */
inline bool kernel_limits(const void *k, size_t dyn, size_t *static_max)
{
    const KernelSmem &ki = sched().kernels[k];
    const size_t optin = smem_optin(), stat = ki.seen;
    if (ki.max_dynamic < 0) { /* the default: 48 KB in all */
        *static_max = dyn <= SMEM_DEFAULT ? SMEM_DEFAULT - dyn : 0;
        return stat + dyn <= SMEM_DEFAULT;
    }
    const size_t raised = (size_t)ki.max_dynamic;
    *static_max = raised <= optin ? optin - raised : 0;
    return dyn <= raised && stat + raised <= optin;
}

/* one launch, run now (the queued form of a kernel launch), its blocks in a shuffled order;
 * false: it failed (Block::shared) */
template <typename... P, typename... A>
bool run_grid(dim3 grid, dim3 block, size_t dyn, void (*kernel)(P...), A... args)
{
    int nt = (int)(block.x * block.y * block.z);
    Block b;
    b.f.resize(nt);
    b.slots.resize(nt);
    b.stacks.resize(nt);
    for (int t = 0; t < nt; t++)
        b.stacks[t] = take_spare(&Spares::stacks, STACK);
    for (int t = 0; t < nt; t++) {
        b.f[t].tid.x = t % block.x;
        b.f[t].tid.y = (t / block.x) % block.y;
        b.f[t].tid.z = t / (block.x * block.y);
    }
    const void *k = reinterpret_cast<const void *>(kernel);
    kernel_limits(k, dyn, &b.sm.static_max);
    b.sm.size = SMEM_ARENA;
    b.sm.arena = take_spare(&Spares::arenas, SMEM_ARENA);
    OZ_EMU_POISON(b.sm.arena, b.sm.size);
    OZ_EMU_UNPOISON(b.sm.arena, dyn);
    b.sm.dyn = b.sm.end = dyn;
    if (dyn)
        b.sm.ranges.emplace_back(0, dyn);
    std::function<void()> body = [&]() { kernel(args...); };
    b.body = &body;
    Block *saved = blk;
    blk = &b;
    bdim = block;
    gdim = grid;
    const uint64_t shape = mix(mix(mix(mix(mix(grid.x) ^ grid.y) ^ grid.z) ^ block.x) ^ block.y) ^
                           block.z;
    const size_t nb = (size_t)grid.x * grid.y * grid.z;
    std::vector<size_t> order;
    shuffled(order, nb, shape);
    for (size_t i : order) {
        bidx.x = (unsigned)(i % grid.x);
        bidx.y = (unsigned)(i / grid.x % grid.y);
        bidx.z = (unsigned)(i / ((size_t)grid.x * grid.y));
        run_block(b, shape ^ (uint64_t)i);
        if (b.failed)
            break;
    }
    blk = saved;
    for (char *p : b.stacks)
        give_spare(&Spares::stacks, p);
    OZ_EMU_UNPOISON(b.sm.arena, b.sm.size);
    give_spare(&Spares::arenas, b.sm.arena);
    size_t &seen = sched().kernels[k].seen;
    seen = std::max(seen, b.sm.static_sum);
    return !b.failed;
}

/* A kernel argument pointing at another device's memory. */
template <typename T> bool foreign_arg(const T &) { return false; }
template <typename T> bool foreign_arg(T *p) { return foreign_memory(p, current_device); }

/* A kernel launch: the configuration is checked now, the grid runs when st's queue does. */
template <typename... P, typename... A>
void launch(dim3 grid, dim3 block, size_t dyn, cudaStream_t st, void (*kernel)(P...), A... args)
{
    int nt = (int)(block.x * block.y * block.z);
    if (nt <= 0 || nt > 1024 || grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.y > 65535 ||
        grid.z > 65535) {
        last_error = cudaErrorInvalidValue;
        return;
    }
    Lock lk(sched().mu);
    size_t static_max;
    if (!kernel_limits(reinterpret_cast<const void *>(kernel), dyn, &static_max)) {
        fprintf(stderr, "cuda_emu: launch with %zu bytes of dynamic shared memory over the "
                        "kernel's limit\n", dyn);
        last_error = cudaErrorInvalidValue;
        return;
    }
    oz_emu_stream *q = stream_of(st);
    bool foreign = q->dev != current_device;
    if (foreign)
        fprintf(stderr, "cuda_emu: kernel launched on device %d's stream from device %d\n",
                q->dev, current_device);
    (void)std::initializer_list<int>{(foreign = foreign || foreign_arg(args), 0)...};
    if (foreign) {
        last_error = cudaErrorInvalidResourceHandle;
        return;
    }
    enqueue(st, [=] {
        if (!run_grid(grid, block, dyn, kernel, args...) && q->err == cudaSuccess)
            q->err = cudaErrorInvalidValue;
    });
}
} // namespace oz_emu

#define threadIdx (oz_emu::blk->f[oz_emu::blk->cur].tid)
#define blockIdx (oz_emu::bidx)
#define blockDim (oz_emu::bdim)
#define gridDim (oz_emu::gdim)

/* kernel<<<grid, block, dyn, st>>>(args...) */
template <typename... P, typename... A>
static inline void oz_emu_launch(dim3 grid, dim3 block, size_t dyn, cudaStream_t st,
                                 void (*kernel)(P...), A... args)
{
    oz_emu::launch(grid, block, dyn, st, kernel, args...);
}

/* Shared memory: OZ_SHARED(type, name, dims) declares what CUDA writes
 * `__shared__ type name dims;` (cuda_common.cuh maps it to that under nvcc), here a
 * reference into the launch's arena (Block::shared); OZ_SHARED_DYNAMIC(type, name) is
 * `extern __shared__ type name[];`. __shared__ itself does not compile here: its size
 * would escape the checks. */
#define OZ_SHARED(T, name, dims)                                                                  \
    static const char oz_emu_site_##name = 0;                                                     \
    T(&name) dims = *oz_emu::shared<T dims>(&oz_emu_site_##name, #name)
#define OZ_SHARED_DYNAMIC(T, name) T *const name = oz_emu::dynamic_shared<T>()
#define __shared__ static_assert(false, "declare shared memory with OZ_SHARED (cuda_emu.h)");

enum cudaFuncAttribute {
    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
    cudaFuncAttributePreferredSharedMemoryCarveout = 9
};
/* Only the dynamic shared memory limit is emulated: at most the device's per-block maximum
 * less the static shared memory (known once the kernel has run). */
template <typename... P>
static inline cudaError_t cudaFuncSetAttribute(void (*kernel)(P...), cudaFuncAttribute attr,
                                               int value)
{
    if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize)
        return oz_emu::fail(cudaErrorInvalidValue);
    oz_emu::Lock lk(oz_emu::sched().mu);
    oz_emu::KernelSmem &ki = oz_emu::sched().kernels[reinterpret_cast<const void *>(kernel)];
    if (value < 0 || ki.seen + (size_t)value > oz_emu::smem_optin())
        return oz_emu::fail(cudaErrorInvalidValue);
    ki.max_dynamic = value;
    return cudaSuccess;
}

#define __syncthreads() oz_emu::barrier(__FILE__, __LINE__)

template <typename T>
static inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask)
{
    static_assert(sizeof(T) <= 8, "shuffle of at most 8 bytes");
    if (mask != 0xffffffffu)
        abort(); /* only full-warp shuffles are emulated */
    oz_emu::Block *b = oz_emu::blk;
    int me = b->cur;
    memcpy(&b->slots[me], &v, sizeof v);
    oz_emu::barrier("shuffle", 0);
    int lane = me % 32, partner = me - lane + (lane ^ lane_mask);
    if (partner >= (int)b->f.size() || b->f[partner].state == oz_emu::DONE)
        abort(); /* a real warp would read an exited lane: undefined */
    T r;
    memcpy(&r, &b->slots[partner], sizeof r);
    oz_emu::barrier("shuffle", 0);
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
