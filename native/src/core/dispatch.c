/* The one routing decision of a product (route, method, executor, why), for the C API
 * (gemm_route in api.c, after its argument checks and executor choice) and the preload shim
 * (shim_decide in shim/shim.c, after netlib's argument check): BLAS's quick return, the
 * shim's gate (OZBLAS_DISABLE, a bad setting, OZBLAS_ROUTINES, OZBLAS_MIN_SIZE), BLAS's
 * alpha = 0 or k = 0 rule (C := beta C by ozblas: docs/accuracy.md, "Special values"), the
 * exact products of accuracy "correct", and method auto's question to the policy. */
#include "oz_internal.h"

void oz_dispatch_decide(const oz_dispatch_in *in, const ozblas_options *opt, oz_dispatch *d)
{
    *d = (oz_dispatch){OZ_ROUTE_NATIVE, OZ_WHY_NONE, opt->method, opt->executor, 0, 0, {0}};
    const int azero = in->alpha[0] == 0.0 && in->alpha[1] == 0.0;
    const int bone = in->beta[0] == 1.0 && in->beta[1] == 0.0;
    const int zero = azero || in->k == 0;
    if (in->m == 0 || in->n == 0 || (zero && bone)) {
        d->route = OZ_ROUTE_QUICK;
        return;
    }
    if (in->disable || in->bad_settings || in->left_native) {
        d->why = in->disable        ? OZ_WHY_DISABLED
                 : in->bad_settings ? OZ_WHY_BAD_SETTING
                                    : OZ_WHY_ROUTINES;
        return;
    }
    /* The reference BLAS: C := beta C, A and B not referenced (so NaN there does not leak,
     * whatever a host kernel would do with them), whatever the size and method. */
    if (in->update && zero && (!in->on_device || in->scale_device)) {
        d->route = OZ_ROUTE_SCALE;
        return;
    }
    if (opt->method == OZBLAS_METHOD_NATIVE) {
        d->why = OZ_WHY_METHOD_NATIVE;
        return;
    }
    /* accuracy correct promises every product correctly rounded: no size threshold, and
     * method auto's native candidate does not apply (oz_exact_run computes it exactly) */
    const int correct = opt->accuracy == OZBLAS_ACCURACY_CORRECT;
    int64_t mn = in->m < in->n ? in->m : in->n;
    mn = in->k < mn ? in->k : mn;
    if (mn < in->min_size && !correct) {
        d->why = OZ_WHY_MIN_SIZE;
        return;
    }
    if (zero) { /* in device memory, left to the device's BLAS (the shim) */
        d->why = OZ_WHY_ZERO;
        return;
    }
    if (correct) {
        d->route = OZ_ROUTE_EXACT;
        return;
    }
    if (opt->method == OZBLAS_METHOD_AUTO) {
        /* a usable device is asked for only here: on the first call that needs it */
        const int usable = in->device_usable ? in->device_usable(in->ctx) : 0;
        d->mask = ozblas_policy_executors(opt->executor, in->on_device, usable);
        if (!d->mask) {
            d->why = OZ_WHY_AUTO_DEVICE;
            return;
        }
        d->decided = ozblas_policy_decide(NULL, in->cplx, in->m, in->n, in->k, in->on_device,
                                          d->mask, opt, &d->choice) == OZBLAS_OK;
        if (d->decided)
            d->executor = d->choice.executor;
        if (!d->decided || d->choice.method == OZBLAS_METHOD_NATIVE) {
            d->why = OZ_WHY_AUTO_NATIVE;
            return;
        }
        d->method = d->choice.method;
    }
    d->route = OZ_ROUTE_EMULATE;
}
