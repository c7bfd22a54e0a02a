/* The CUDA executor's entry points (plain C linkage). The rest of the library (core/, the
 * LAPACK layer) reaches the executor only through the executor table (executor_table.c
 * lists oz_cuda_executor(); its device entries are the functions below); cuda/no_cuda.c
 * stands in for oz_cuda_executor() in a library built without CUDA. */
#ifndef OZ_CUDA_H
#define OZ_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "ozblas.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct oz_executor oz_executor;
/* The CUDA executor (cuda_native.cu); NULL when not built. */
const oz_executor *oz_cuda_executor(void);
/* The CUDA executor spreading each call over the devices of opt->devices as tiles of C
 * (cuda_multi.cu; the CUDA executor's spread entry); NULL when not built. */
const oz_executor *oz_cuda_multi_executor(void);
/* 1 when every device opt->devices lists exists here (cuda:all: at least one); else 0 and
 * why names the missing one. */
int oz_cuda_devices_check(const ozblas_options *opt, char *why, size_t len);

/* One line for `ozblas info`: the cuBLAS library loaded (path, version), the devices
 * (name, compute capability), the architectures built in; or why CUDA is unusable.
 * Computed once, on first use (never at library load); the string is static. */
const char *oz_cuda_describe(void);

/* For the policy (core/policy_cache.c): the name and driver version (cudaDriverGetVersion's
 * number) of device dev; 0 when the executor is unusable or dev does not exist. */
int oz_cuda_device_identity(int dev, char *name, size_t name_len, int *driver);
/* 1 when p is device (or managed) memory, 0 for host memory or an unusable executor. */
int oz_cuda_on_device(const void *p);
/* The usable CUDA devices (0 when the executor is unusable). */
int oz_cuda_device_count(void);
/* C := beta C (m x n, device memory; beta 0: zeros, C not read) with oz_scale_element, on
 * opt->device and opt->stream, waited for: a product with alpha = 0 or k = 0 (cuda_native.cu). */
ozblas_status oz_cuda_scale(const ozblas_options *opt, int cplx, int64_t m, int64_t n,
                            const double *beta, double *C, int64_t ldc);

/* The LAPACK layer's device memory (lapack_device.cu; the executor's mem_alloc, mem_free,
 * mem_budget, copy and laswp entries, core/oz_internal.h), on opt->device and opt->stream,
 * each waited for. alloc: NULL when the device is short or unusable; budget: the bytes a
 * call may plan with, or why opt's device cannot be used; copy: a 2-D copy between any of
 * host and device memory (widths and pitches in bytes); laswp: LAPACK's row interchanges
 * k1..k2 (1-based) on device A with the pivots at dpiv (device memory, indexed as ipiv).
 * copy and laswp return 0 on success. */
void *oz_cuda_lx_alloc(const ozblas_options *opt, size_t bytes);
void oz_cuda_lx_free(const ozblas_options *opt, void *p);
ozblas_status oz_cuda_lx_budget(const ozblas_options *opt, size_t *bytes);
int oz_cuda_lx_copy(const ozblas_options *opt, void *dst, size_t dpitch, const void *src,
                    size_t spitch, size_t width, size_t rows);
int oz_cuda_lx_laswp(const ozblas_options *opt, int cplx, int64_t n, double *A, int64_t lda,
                     int64_t k1, int64_t k2, const int64_t *dpiv, int64_t incx);
/* The executor's her2k_operands and same_cols entries (core/oz_internal.h). */
int oz_cuda_her2k_operands(const ozblas_options *opt, char trans, int64_t n, int64_t k,
                           const double *alpha, const double *P, int64_t ldp, const double *Q,
                           int64_t ldq, double *U);
int oz_cuda_same_cols(const ozblas_options *opt, const double *a, const double *b, int64_t rows,
                      int64_t cols, int64_t ld);

#ifdef __cplusplus
}
#endif
#endif
