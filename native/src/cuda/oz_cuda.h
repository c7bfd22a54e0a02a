/* The CUDA executor's entry points for the rest of the library (plain C linkage).
 * The executor itself is reached through oz_cuda_executor() (core/oz_internal.h). */
#ifndef OZ_CUDA_H
#define OZ_CUDA_H

#ifdef __cplusplus
extern "C" {
#endif

/* One line for `ozblas info`: the cuBLAS library loaded (path, version), the devices
 * (name, compute capability), the architectures built in; or why CUDA is unusable.
 * Computed once, on first use (never at library load); the string is static. */
const char *oz_cuda_describe(void);

#ifdef __cplusplus
}
#endif
#endif
