/* Host-side copies of the CUDA executor's staging (staging.cu): between the caller's memory
 * and the pinned chunks. One thread's memcpy reaches a fraction of the host's memory
 * bandwidth, well below what a PCIe 5 or NVLink-C2C copy drains, so large copies are split
 * over a few OpenMP threads. Plain C so that it builds with the library's OpenMP flags. */
#include <omp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PIECE ((size_t)1 << 20)
#define PARALLEL_FROM ((size_t)4 << 20)
#define MAX_THREADS 8 /* enough to saturate a socket's memory bandwidth */

void oz_host_copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                     size_t height)
{
    const size_t per_row = (width + PIECE - 1) / PIECE;
    const int64_t units = (int64_t)(height * per_row);
    int nt = 1;
    if (width * height >= PARALLEL_FROM) {
        nt = omp_get_num_procs();
        nt = nt < MAX_THREADS ? nt : MAX_THREADS;
    }
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t u = 0; u < units; u++) {
        const size_t r = (size_t)u / per_row, off = ((size_t)u % per_row) * PIECE;
        const size_t w = width - off < PIECE ? width - off : PIECE;
        memcpy((char *)dst + r * dpitch + off, (const char *)src + r * spitch + off, w);
    }
}
