/* Executor lookup: which executors are built in, which can run here, and which may compete
 * for a call under method auto (the one rule the C API, the preload shim and ozblas.policy
 * share). */
#include <stdio.h>

#include "oz_internal.h"

const oz_executor *oz_executor_get(int id)
{
    if (id == OZBLAS_EXECUTOR_CPU)
        return &oz_cpu_executor;
    if (id == OZBLAS_EXECUTOR_CUDA)
        return oz_cuda_executor();
    return NULL;
}

int ozblas_executor_available(int executor, char *why, size_t why_len)
{
    const oz_executor *e = oz_executor_get(executor);
    if (!e) {
        if (why && why_len)
            snprintf(why, why_len, "not built into this library");
        return 0;
    }
    return e->available(why, why_len);
}

ozblas_status ozblas_devices_check(const ozblas_options *opt, char *err, size_t err_len)
{
    char why[256];
    if (!opt->devices)
        return OZBLAS_OK;
    if (!ozblas_executor_available(OZBLAS_EXECUTOR_CUDA, why, sizeof why)) {
        if (err && err_len)
            snprintf(err, err_len, "a device list needs the CUDA executor: %s", why);
        return OZBLAS_ERR_EXECUTOR_UNAVAILABLE;
    }
    if (oz_cuda_devices_check(opt, why, sizeof why))
        return OZBLAS_OK;
    if (err && err_len)
        snprintf(err, err_len, "%s", why);
    return OZBLAS_ERR_INVALID_ARGUMENT;
}

int ozblas_policy_executors(int executor, int on_device, int device_usable)
{
    int mask = 0;
    if (!on_device && executor != OZBLAS_EXECUTOR_CUDA)
        mask |= 1 << OZBLAS_EXECUTOR_CPU;
    if (executor != OZBLAS_EXECUTOR_CPU && device_usable)
        mask |= 1 << OZBLAS_EXECUTOR_CUDA;
    return mask;
}
