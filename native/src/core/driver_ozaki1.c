/* The Ozaki I driver (numerics/ozaki1.h): what every executor does the same way. The
 * fallbacks come in this order, each decided before any of C is written: K (k, or 2k for
 * complex) too large (TOO_LARGE_K), with automatic precision Inf/NaN or no slice count up to
 * the maximum meeting DGEMM-level accuracy, then Inf/NaN (NONFINITE), with an explicit count
 * a nonzero element no slice reaches (EXPONENT_RANGE). Where automatic precision finds no
 * count the call is tried once more split by exponent band (core/driver_split.c). The
 * executor's kernels do the work (core/phase_kernels.h). */
#include "phase_kernels.h"
#include "../numerics/ozaki1.h"

ozblas_status oz_ozaki1(const oz_executor *ex, const oz_gemm_call *c, const ozblas_options *opt,
                        ozblas_report *rep)
{
    const oz_kernels *K = ex->kernels;
    const int cx = c->is_complex;
    const int64_t KK = cx ? 2 * c->k : c->k;
    rep->engine = opt->engine;
    if (!oz_engine_usable(ex, opt, NULL, 0)) {
        rep->fallback = OZBLAS_FALLBACK_ENGINE;
        return OZBLAS_OK;
    }
    if (!K->o1_open) {
        rep->fallback = OZBLAS_FALLBACK_NOT_IMPLEMENTED;
        return OZBLAS_OK;
    }
    if (KK > OZ1_MAX_K) {
        rep->fallback = OZBLAS_FALLBACK_TOO_LARGE_K;
        return OZBLAS_OK;
    }
    const int beta = oz1_beta(KK), automatic = opt->slices == 0;
    int s = opt->slices, bad = 0, lost = 0;
    double ratio = 0.0;
    ozblas_status st = OZBLAS_OK;
    void *run = NULL;
    oz_side a, b;
    if (automatic) {
        void *probe = NULL;
        int products;
        st = oz_auto_choose(K, c, opt, beta, &probe, &s, &ratio, &products, rep);
        if (probe)
            K->probe_close(probe);
        if (st != OZBLAS_OK)
            return st;
        rep->slices = s;
        if (!s) {
            if (rep->fallback != OZBLAS_FALLBACK_NONFINITE)
                rep->bound = oz1_report_bound(cx, ratio, 0);
            return oz_split(ex, OZBLAS_METHOD_OZAKI1, c, opt, rep); /* core/driver_split.c */
        }
    }
    const int chunk = oz1_chunk(opt->ozaki1_variant, beta, KK), terms = oz1_terms(s, chunk);
    st = K->o1_open(c, opt, s, beta, &run, &bad, &lost, &a, &b, rep);
    if (st != OZBLAS_OK)
        goto done;
    if (bad) {
        rep->fallback = OZBLAS_FALLBACK_NONFINITE;
        goto done;
    }
    if (lost && !automatic) {
        rep->fallback = OZBLAS_FALLBACK_EXPONENT_RANGE;
        goto done;
    }
    oz_report_bits(&a, &b, s, rep);
    st = K->o1_products(run, chunk, terms, rep);
    if (st != OZBLAS_OK)
        goto done;
    rep->int_gemms = s * (s + 1) / 2 * (cx ? 4 : 1) + (automatic ? 2 : 0);
    /* FP4: each INT8 slice in three limbs, nine limb products per slice product */
    rep->engine_products = s * (s + 1) / 2 * (cx ? 4 : 1) * (opt->engine == OZBLAS_ENGINE_FP4 ? 9 : 1);
    rep->fp64_passes = terms;
    if (automatic)
        rep->bound = oz1_report_bound(cx, ratio, terms);
done:
    if (run)
        K->o1_close(run);
    return st;
}
