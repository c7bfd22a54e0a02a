/* Built when the CUDA executor is not compiled in (no nvcc at build time, or turned off). */
#include <stdio.h>

#include "oz_internal.h"
#include "../cuda/oz_cuda.h"

const oz_executor *oz_cuda_executor(void) { return NULL; }

const char *oz_cuda_describe(void) { return oz_build_not_built(); }

int oz_cuda_device_identity(int dev, char *name, size_t name_len, int *driver)
{
    (void)dev, (void)name, (void)name_len, (void)driver;
    return 0;
}

int oz_cuda_device_count(void) { return 0; }

const oz_executor *oz_cuda_multi_executor(void) { return NULL; }

int oz_cuda_devices_check(const ozblas_options *opt, char *why, size_t len)
{
    (void)opt;
    if (why && len)
        snprintf(why, len, "%s", oz_build_not_built());
    return 0;
}

int oz_cuda_on_device(const void *p)
{
    (void)p;
    return 0;
}
