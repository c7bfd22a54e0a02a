/* The CUDA executor's entry points for the rest of the library (plain C linkage).
 * The executor itself is reached through oz_cuda_executor() (core/oz_internal.h). */
#ifndef OZ_CUDA_H
#define OZ_CUDA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif
