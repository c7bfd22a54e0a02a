/* Executor lookup, by the table (executor_table.c) and never by name: which executors can
 * run here, whose memory a pointer is, which executor a call runs on (the one rule the C
 * API's products, the exact products and the LAPACK layer share), and which may compete for
 * a call under method auto (the one rule the C API, the preload shim and ozblas.policy
 * share). */
#include <stdio.h>

#include "phase_kernels.h"

/* The built-in executors' ids, in the order oz_memory_owner asks them. */
static const int executor_ids[] = {OZBLAS_EXECUTOR_CPU, OZBLAS_EXECUTOR_CUDA};

const oz_executor *oz_memory_owner(const void *p)
{
    if (!p)
        return NULL;
    for (size_t i = 0; i < sizeof executor_ids / sizeof executor_ids[0]; i++) {
        const oz_executor *e = oz_executor_get(executor_ids[i]);
        if (e && e->owns && e->owns(p))
            return e;
    }
    return NULL;
}

const oz_executor *oz_executor_auto(void)
{
    const oz_executor *e = oz_executor_get(OZBLAS_EXECUTOR_CUDA);
    return e && e->available(NULL, 0) ? e : oz_executor_get(OZ_HOST_EXECUTOR);
}

const oz_executor *oz_executor_for(const ozblas_options *opt, int exact,
                                   const oz_executor *owner)
{
    if (opt->executor != OZBLAS_EXECUTOR_AUTO)
        return oz_executor_get(opt->executor);
    if (owner)
        return owner;
    return exact ? oz_executor_get(OZ_HOST_EXECUTOR) : oz_executor_auto();
}

int oz_gpu_identity(int dev, char *name, size_t name_len, int *driver)
{
    const oz_executor *e = oz_executor_get(OZBLAS_EXECUTOR_CUDA);
    return e && e->device_identity ? e->device_identity(dev, name, name_len, driver) : 0;
}

const char *ozblas_cuda_describe(void)
{
    const oz_executor *e = oz_executor_get(OZBLAS_EXECUTOR_CUDA);
    return e && e->describe ? e->describe() : oz_build_not_built();
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

int oz_engine_usable(const oz_executor *ex, const ozblas_options *opt, char *why, size_t why_len)
{
    const int g = opt->engine;
    const char *name = g == OZBLAS_ENGINE_FP4 ? "fp4" : "int8";
    if (why && why_len)
        why[0] = '\0';
    if (!ex->kernels || g < OZBLAS_ENGINE_INT8 || g > OZBLAS_ENGINE_FP4 ||
        !(ex->kernels->engines & (1u << g))) {
        if (why && why_len)
            snprintf(why, why_len, "the %s executor has no %s engine", ex->name, name);
        return 0;
    }
    return ex->engine_usable ? ex->engine_usable(g, opt->device, why, why_len) : 1;
}

int ozblas_engine_available(int executor, int engine, int device, char *why, size_t why_len)
{
    if (!ozblas_executor_available(executor, why, why_len))
        return 0;
    ozblas_options opt;
    ozblas_options_init(&opt);
    opt.engine = engine;
    opt.device = device;
    return oz_engine_usable(oz_executor_get(executor), &opt, why, why_len);
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
    const oz_executor *cu = oz_executor_get(OZBLAS_EXECUTOR_CUDA);
    if (cu->devices_check(opt, why, sizeof why))
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
