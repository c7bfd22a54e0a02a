/* The Ozaki II driver (numerics/ozaki2.h): what every executor does the same way. The
 * fallbacks come in this order, each decided before any of C is written: k too large
 * (TOO_LARGE_K), Inf/NaN (NONFINITE), with automatic precision no count up to the maximum
 * meeting DGEMM-level accuracy (ACCURACY), with an explicit count an element the scaling
 * loses entirely (EXPONENT_RANGE; automatic precision's bound covers such elements). Where
 * automatic precision finds no count (ACCURACY, or method auto's cap) the call is tried once
 * more split by exponent band (core/driver_split.c). The
 * executor's kernels do the work (core/phase_kernels.h). */
#include <math.h>
#include <string.h>

#include "phase_kernels.h"
#include "../numerics/her2k.h"

/* Whether C is Hermitian (oz_gemm_call.herm): op(B) is op(A)^H read from the same memory
 * (the LAPACK layer's HERK blocks, a caller's zgemm(A, A, 'N', 'C')), or HER2K's form
 * (oz_her2k_operands): op(A) = U(:, 0:k) and op(B)^H = U(:, k/2:3k/2) with U's columns
 * k:3k/2 a copy of its first k/2, so op(B)^H = op(A) J. The copy is checked bit for bit
 * (in a device executor's memory by its same_cols), so any call of that layout qualifies. */
static int hermitian(const oz_executor *ex, const oz_gemm_call *c, const ozblas_options *opt)
{
    if (!c->is_complex || c->m != c->n || c->lda != c->ldb)
        return OZ_HERM_NONE;
    if (c->A == c->B)
        return (c->transa == 'N' && c->transb == 'C') || (c->transa == 'C' && c->transb == 'N')
                   ? OZ_HERM_SAME
                   : OZ_HERM_NONE;
    const int64_t h = c->k / 2, col = 2 * c->lda; /* doubles per column */
    if (c->transa != 'N' || c->transb != 'C' || c->k % 2 || c->lda < c->m ||
        c->B != c->A + h * col)
        return OZ_HERM_NONE;
    if (ex->owns && ex->owns(c->A))
        return ex->same_cols && ex->same_cols(opt, c->A, c->A + c->k * col, 2 * c->m, h, col)
                   ? OZ_HERM_SWAP
                   : OZ_HERM_NONE;
    for (int64_t l = 0; l < h; l++)
        if (memcmp(c->A + l * col, c->A + (l + c->k) * col, sizeof(double) * 2 * c->m))
            return OZ_HERM_NONE;
    return OZ_HERM_SWAP;
}

/* HER2K's operand U (numerics/her2k.h) in host memory from P and Q in host memory: the
 * element steps of the device executors' her2k_operands (the folds are maxima, so their
 * order does not matter). */
void oz_her2k_operands(char trans, int64_t n, int64_t k, const double *alpha, const double *P,
                       int64_t ldp, const double *Q, int64_t ldq, double *U)
{
    const size_t h = 2 * (size_t)n * (size_t)k; /* doubles per block of U */
    uint64_t e[4] = {0, 0, 0, 0};
    for (int64_t l = 0; l < k; l++)
        for (int64_t i = 0; i < n; i++) {
            double *u = U + 2 * (i + l * n);
            oz_her2k_entry(trans, alpha, P, ldp, Q, ldq, i, l, u, u + h);
            for (int p = 0; p < 2; p++) {
                oz_her2k_fold(e, u[p]);
                oz_her2k_fold(e + 2, u[h + p]);
            }
        }
    const int s = oz_her2k_shift(e);
    for (size_t v = 0; v < h; v++) {
        U[v] = ldexp(U[v], s);
        U[h + v] = ldexp(U[h + v], -s);
        U[2 * h + v] = U[v];
    }
}

ozblas_status oz_ozaki2(const oz_executor *ex, const oz_gemm_call *call,
                        const ozblas_options *opt, ozblas_report *rep)
{
    oz_gemm_call h = *call;
    h.herm = hermitian(ex, call, opt);
    const oz_gemm_call *c = &h;
    const oz_kernels *K = ex->kernels;
    const int cx = c->is_complex, fast = opt->scaling == OZBLAS_SCALING_FAST;
    rep->engine = opt->engine;
    if (!oz_engine_usable(ex, opt, NULL, 0)) {
        rep->fallback = OZBLAS_FALLBACK_ENGINE;
        return OZBLAS_OK;
    }
    if (c->k > (cx ? OZ2_MAX_K / 2 : OZ2_MAX_K)) {
        rep->fallback = OZBLAS_FALLBACK_TOO_LARGE_K;
        return OZBLAS_OK;
    }
    const oz2_table *T = opt->moduli ? oz2_table_call(opt->engine, cx, opt->moduli) : NULL;
    void *probe = NULL, *run = NULL;
    int probe_products = 0, bad = 0;
    double t_probe = 0.0;
    oz_side a, b;
    ozblas_status st = OZBLAS_OK;
    if (!T) { /* automatic precision: the count for these inputs, its bits and bound */
        double t0 = oz_now(), ratio;
        int n;
        st = oz_auto_choose(K, c, opt, 0, &probe, &n, &ratio, &probe_products, rep);
        if (st != OZBLAS_OK || rep->fallback == OZBLAS_FALLBACK_NONFINITE)
            goto done;
        K->probe_sides(probe, &a, &b);
        oz_report_bits(&a, &b, 0, rep);
        rep->bound = oz2_report_bound(cx, ratio);
        if (!n)
            goto done;
        T = oz2_auto_table(opt->engine, cx, n);
        t_probe = oz_now() - t0;
    }
    rep->complex_products = 0; /* o2_open states the products per modulus its run takes */
    st = K->o2_open(c, opt, T, probe, &run, &bad, &a, &b, rep);
    if (st != OZBLAS_OK)
        goto done;
    if (bad) {
        rep->fallback = OZBLAS_FALLBACK_NONFINITE;
        goto done;
    }
    oz_report_bits(&a, &b, 0, rep);
    if (opt->moduli && (oz_side_loses(&a) || oz_side_loses(&b))) {
        rep->fallback = OZBLAS_FALLBACK_EXPONENT_RANGE;
        goto done;
    }
    st = K->o2_products(run, rep);
    if (st != OZBLAS_OK)
        goto done;
    rep->moduli = T->n;
    /* a Hermitian product takes one product per modulus where the run could (the CUDA
       executor: in one tile), else the table's */
    const int per = cx && rep->complex_products ? rep->complex_products
                                                : oz2_products_per_modulus(T, cx);
    rep->complex_products = cx ? per : 0;
    rep->int_gemms = T->n * per + (fast ? 0 : 1) + probe_products;
    rep->engine_products = T->products * per;
    rep->fp64_passes = 1;
    rep->phase_seconds[OZBLAS_PHASE_STATS] += t_probe;
done:
    if (run)
        K->o2_close(run);
    if (probe)
        K->probe_close(probe);
    if (st == OZBLAS_OK && !opt->moduli)
        st = oz_split(ex, OZBLAS_METHOD_OZAKI2, c, opt, rep); /* when no count was found */
    return st;
}
