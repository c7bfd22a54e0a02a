/* The harness's own kernels, each with a bug of a class the emulation must catch (run by
 * test_emulation.py, which states what each must give):
 *
 *   emu_selftest race       prints the sums of three racy kernels and their fixed forms
 *   emu_selftest smem       launches within and over the shared memory limits; prints
 *                           "name error" per launch (cudaSuccess: 0)
 *   emu_selftest smem_big   a kernel declaring 49 KB of static shared memory (aborts)
 *   emu_selftest divergent  threads of a block at two different __syncthreads (aborts)
 *   emu_selftest cross_device  a kernel of device 0 writing device 1's memory through a
 *                           pointer inside a struct argument (faults; needs OZ_EMU_DEVICES=2)
 *   emu_selftest bounds_device | bounds_shared | overflow
 *                           a kernel writing one past a device buffer or a shared array, or
 *                           overflowing an int index: under -DOZ_EMU_SANITIZE=ON,
 *                           AddressSanitizer or UndefinedBehaviorSanitizer stops it
 *
 * Built by CMakeLists.txt against cuda_emu.h alone (no library). */
#include <string>

#include "cuda_emu.h"

static int failures = 0;

#define CHECK(x)                                                                                 \
    do {                                                                                         \
        if (!(x)) {                                                                              \
            fprintf(stderr, "selftest: %s failed (line %d)\n", #x, __LINE__);                    \
            failures++;                                                                          \
        }                                                                                        \
    } while (0)

/* ---- races: each value read from shared or global memory written by another thread or
 * block, with (SYNC) and without the barrier that orders it --------------------------------- */

/* The last thread sums what every thread wrote: in index order it runs last and the race
 * goes unseen. */
template <bool SYNC> __global__ void k_last_reads(unsigned long long *out)
{
    OZ_SHARED(unsigned long long, s, [256]);
    s[threadIdx.x] = threadIdx.x + 1;
    if (SYNC)
        __syncthreads();
    if (threadIdx.x == 255) {
        unsigned long long t = 0;
        for (int i = 0; i < 256; i++)
            t += s[i];
        *out = t;
    }
}

/* A tree reduction whose steps are not separated by barriers. */
template <bool SYNC> __global__ void k_tree(unsigned long long *out)
{
    OZ_SHARED(unsigned long long, s, [256]);
    s[threadIdx.x] = 3 * threadIdx.x + 1;
    __syncthreads();
    for (int o = 128; o > 0; o >>= 1) {
        if ((int)threadIdx.x < o)
            s[threadIdx.x] += s[threadIdx.x + o];
        if (SYNC)
            __syncthreads();
    }
    if (threadIdx.x == 0)
        *out = s[0];
}

/* The last block reads what the others wrote (no grid-wide order exists: a kernel boundary
 * is the barrier, SYNC: a second launch). */
static __global__ void k_blocks_write(unsigned long long *part)
{
    if (threadIdx.x == 0)
        part[blockIdx.x] = blockIdx.x + 1;
}
template <bool FUSED> __global__ void k_blocks_sum(unsigned long long *part, unsigned long long *out)
{
    if (FUSED && threadIdx.x == 0)
        part[blockIdx.x] = blockIdx.x + 1;
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) {
        unsigned long long t = 0;
        for (unsigned i = 0; i < gridDim.x; i++)
            t += part[i];
        *out = t;
    }
}

/* Half the block at one __syncthreads, half at another. */
static __global__ void k_divergent(unsigned long long *out)
{
    OZ_SHARED(unsigned long long, s, [64]);
    s[threadIdx.x] = threadIdx.x;
    if (threadIdx.x < 32) {
        __syncthreads();
        out[threadIdx.x] = s[63 - threadIdx.x];
    } else {
        __syncthreads();
    }
}

static unsigned long long *dev_zeros(size_t n)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, n * 8) == cudaSuccess);
    CHECK(cudaMemsetAsync(p, 0, n * 8, 0) == cudaSuccess);
    return (unsigned long long *)p;
}
static unsigned long long read_back(const unsigned long long *d)
{
    unsigned long long h = 0;
    CHECK(cudaMemcpyAsync(&h, d, 8, cudaMemcpyDeviceToHost, 0) == cudaSuccess);
    return h;
}

static int race()
{
    unsigned long long *out = dev_zeros(1), *part = dev_zeros(64);
    oz_emu_launch(dim3(1), dim3(256), 0, 0, k_last_reads<false>, out);
    printf("last_reads racy %llu\n", read_back(out));
    oz_emu_launch(dim3(1), dim3(256), 0, 0, k_last_reads<true>, out);
    printf("last_reads fixed %llu\n", read_back(out));
    oz_emu_launch(dim3(1), dim3(256), 0, 0, k_tree<false>, out);
    printf("tree racy %llu\n", read_back(out));
    oz_emu_launch(dim3(1), dim3(256), 0, 0, k_tree<true>, out);
    printf("tree fixed %llu\n", read_back(out));
    oz_emu_launch(dim3(64), dim3(32), 0, 0, k_blocks_sum<true>, part, out);
    printf("blocks racy %llu\n", read_back(out));
    CHECK(cudaMemsetAsync(part, 0, 64 * 8, 0) == cudaSuccess);
    oz_emu_launch(dim3(64), dim3(32), 0, 0, k_blocks_write, part);
    oz_emu_launch(dim3(64), dim3(32), 0, 0, k_blocks_sum<false>, part, out);
    printf("blocks fixed %llu\n", read_back(out));
    CHECK(cudaGetLastError() == cudaSuccess);
    return 0;
}

/* ---- shared memory limits -------------------------------------------------------------------- */

/* KB kilobytes of static shared memory, and whatever dynamic memory the launch gives */
template <int KB> __global__ void k_smem(unsigned long long *out, int dyn_words)
{
    OZ_SHARED(unsigned long long, s, [KB * 128]);
    OZ_SHARED_DYNAMIC(unsigned long long, d);
    s[threadIdx.x] = threadIdx.x;
    for (int i = threadIdx.x; i < dyn_words; i += blockDim.x)
        d[i] = i;
    __syncthreads();
    if (threadIdx.x == 0)
        *out = s[31] + (dyn_words ? d[dyn_words - 1] : 0);
}

/* The error of a launch, at once or (a first launch, whose static size the emulation learns
 * as it runs) at the synchronisation. */
template <int KB> static int launch_smem(size_t dyn, unsigned long long *out)
{
    oz_emu_launch(dim3(2), dim3(32), dyn, 0, k_smem<KB>, out, (int)(dyn / 8));
    int e = cudaGetLastError();
    int e2 = cudaStreamSynchronize(0);
    return e ? e : e2;
}

static int smem()
{
    unsigned long long *out = dev_zeros(1);
    printf("static40_dyn0 %d\n", launch_smem<40>(0, out));
    printf("static40_dyn8 %d\n", launch_smem<40>(8 << 10, out));    /* 48 KB in all: fits */
    printf("static40_dyn16 %d\n", launch_smem<40>(16 << 10, out));  /* over 48 KB: at launch */
    printf("static39_dyn16 %d\n", launch_smem<39>(16 << 10, out));  /* its first run: as it runs */
    printf("static39_dyn16_again %d\n", launch_smem<39>(16 << 10, out)); /* now at launch */
    printf("static1_dyn100 %d\n", launch_smem<1>(100 << 10, out));  /* not raised */
    printf("raise_static1_100 %d\n", (int)cudaFuncSetAttribute(
               k_smem<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 << 10));
    printf("static1_dyn100_raised %d\n", launch_smem<1>(100 << 10, out));
    printf("result %llu\n", read_back(out));
    printf("static1_dyn101_raised %d\n", launch_smem<1>(101 << 10, out)); /* over the attribute */
    printf("raise_static1_max %d\n", (int)cudaFuncSetAttribute(
               k_smem<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)oz_emu::smem_optin()));
    printf("raise_static0_max %d\n", (int)cudaFuncSetAttribute(
               k_smem<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)oz_emu::smem_optin()));
    printf("static2_dynmax_raised %d\n", launch_smem<2>(oz_emu::smem_optin(), out)); /* + static */
    (void)cudaGetLastError();
    return 0;
}

static int divergent()
{
    unsigned long long *out = dev_zeros(64);
    oz_emu_launch(dim3(1), dim3(64), 0, 0, k_divergent, out);
    (void)cudaStreamSynchronize(0);
    return 0;
}

struct Holder {
    double *p;
};
static __global__ void k_through_struct(Holder h) { h.p[threadIdx.x] = 1.0; }

static int cross_device()
{
    double *other = NULL;
    CHECK(cudaSetDevice(1) == cudaSuccess);
    CHECK(cudaMalloc((void **)&other, 32 * sizeof(double)) == cudaSuccess);
    CHECK(cudaSetDevice(0) == cudaSuccess);
    oz_emu_launch(dim3(1), dim3(32), 0, 0, k_through_struct, Holder{other});
    (void)cudaStreamSynchronize(0);
    printf("not caught\n");
    return 0;
}

static int smem_big()
{
    unsigned long long *out = dev_zeros(1);
    oz_emu_launch(dim3(1), dim3(32), 0, 0, k_smem<49>, out, 0);
    (void)cudaStreamSynchronize(0);
    return 0;
}

/* ---- bounds (caught under the sanitizers) -------------------------------------------------- */

static __global__ void k_past_device(double *a, int n)
{
    a[threadIdx.x + n - blockDim.x + 1] = 1.0; /* the last thread writes a[n] */
}
static __global__ void k_past_shared(double *a)
{
    OZ_SHARED(double, s, [64]);
    s[threadIdx.x + 1] = threadIdx.x; /* the last thread writes s[64] */
    __syncthreads();
    a[threadIdx.x] = s[threadIdx.x];
}
static __global__ void k_overflow(double *a, int rows)
{
    const int i = (int)threadIdx.x * rows; /* an int index where int64_t was needed */
    a[threadIdx.x] = (double)(i % 7);
}

static int bounds(const std::string &what)
{
    double *a = NULL;
    const int n = 100; /* 800 bytes: the allocation's slack after it is poisoned */
    CHECK(cudaMalloc((void **)&a, n * sizeof(double)) == cudaSuccess);
    if (what == "bounds_device")
        oz_emu_launch(dim3(1), dim3(64), 0, 0, k_past_device, a, n);
    else if (what == "bounds_shared")
        oz_emu_launch(dim3(1), dim3(64), 0, 0, k_past_shared, a);
    else
        oz_emu_launch(dim3(1), dim3(64), 0, 0, k_overflow, a, 1 << 26);
    CHECK(cudaStreamSynchronize(0) == cudaSuccess);
    printf("not caught\n");
    return 0;
}

int main(int argc, char **argv)
{
    const std::string what = argc > 1 ? argv[1] : "";
    int rc = 2;
    if (what == "race")
        rc = race();
    else if (what == "smem")
        rc = smem();
    else if (what == "smem_big")
        rc = smem_big();
    else if (what == "divergent")
        rc = divergent();
    else if (what == "cross_device")
        rc = cross_device();
    else if (what == "bounds_device" || what == "bounds_shared" || what == "overflow")
        rc = bounds(what);
    else
        fprintf(stderr, "usage: emu_selftest race|smem|smem_big|divergent|cross_device|bounds_device|bounds_shared|overflow\n");
    return failures ? 1 : rc;
}
