/* The Ozaki II driver (numerics/ozaki2.h): what every executor does the same way. The
 * fallbacks come in this order, each decided before any of C is written: k too large
 * (TOO_LARGE_K), Inf/NaN (NONFINITE), with automatic precision no count up to the maximum
 * meeting DGEMM-level accuracy (ACCURACY), with an explicit count an element the scaling
 * loses entirely (EXPONENT_RANGE; automatic precision's bound covers such elements). Where
 * automatic precision finds no count (ACCURACY, or method auto's cap) the call is tried once
 * more split by exponent band (core/driver_split.c). The
 * executor's kernels do the work (core/phase_kernels.h). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "phase_kernels.h"

/* Whether C is Hermitian (oz_gemm_call.herm): op(B) is op(A)^H read from the same memory
 * (the LAPACK layer's HERK blocks, a caller's zgemm(A, A, 'N', 'C')), or HER2K's form
 * (oz_her2k_operands): op(A) = U(:, 0:k) and op(B)^H = U(:, k/2:3k/2) with U's columns
 * k:3k/2 a copy of its first k/2, so op(B)^H = op(A) J. The copy is checked bit for bit, so
 * any call of that layout qualifies; only in host memory (a device executor's own is not
 * read here). */
static int hermitian(const oz_executor *ex, const oz_gemm_call *c)
{
    if (!c->is_complex || c->m != c->n || c->lda != c->ldb)
        return OZ_HERM_NONE;
    if (c->A == c->B)
        return (c->transa == 'N' && c->transb == 'C') || (c->transa == 'C' && c->transb == 'N')
                   ? OZ_HERM_SAME
                   : OZ_HERM_NONE;
    const int64_t h = c->k / 2, col = 2 * c->lda; /* doubles per column */
    if (c->transa != 'N' || c->transb != 'C' || c->k % 2 || c->lda < c->m ||
        c->B != c->A + h * col || (ex->owns && ex->owns(c->A)))
        return OZ_HERM_NONE;
    for (int64_t l = 0; l < h; l++)
        if (memcmp(c->A + l * col, c->A + (l + c->k) * col, sizeof(double) * 2 * c->m))
            return OZ_HERM_NONE;
    return OZ_HERM_SWAP;
}

/* The largest and the smallest nonzero magnitude of len doubles (lo DBL_MAX: none). */
static void extent(const double *v, size_t len, double *hi, double *lo)
{
    *hi = 0.0;
    *lo = DBL_MAX;
    for (size_t i = 0; i < len; i++) {
        const double a = fabs(v[i]);
        *hi = a > *hi ? a : *hi;
        *lo = a > 0.0 && a < *lo ? a : *lo;
    }
}

/* HER2K's operands for one product (ozaki2.h oz2_products_per_call_modulus): X = op(P),
 * Y = op(Q) (n x k; op the conjugate transpose for trans 'C'), U = [a X, Y, a X] (n x 3k,
 * ld n, oz_malloc'd; NULL for want of memory), so that zgemm('N', 'C', n, n, 2k, ga, U, n,
 * U + 2 n k, n) gives alpha X Y^H + conj(alpha) Y X^H: real alpha in ga (a = 1, exact), a
 * complex one rounded into X (a = alpha, ga = 1). X 2^s and Y 2^-s leave both terms as
 * they are; s brings the two halves' largest magnitudes together, since a row of U is
 * scaled as one (its bits go to its larger half), and is 0 where a power of two would not
 * be exact (a magnitude leaving the normal range). */
double *oz_her2k_operands(char trans, int64_t n, int64_t k, const double *alpha,
                          const double *P, int64_t ldp, const double *Q, int64_t ldq,
                          double *ga)
{
    const size_t h = 2 * (size_t)n * (size_t)k; /* doubles per block of U */
    double *U = oz_malloc(sizeof(double) * 3 * h);
    if (!U)
        return NULL;
    const int real = alpha[1] == 0.0;
    ga[0] = real ? alpha[0] : 1.0;
    ga[1] = 0.0;
    for (int64_t l = 0; l < k; l++)
        for (int64_t i = 0; i < n; i++) {
            const int64_t s = trans == 'N' ? 2 * (i + l * ldp) : 2 * (l + i * ldp);
            const int64_t t = trans == 'N' ? 2 * (i + l * ldq) : 2 * (l + i * ldq);
            const double xr = P[s], xi = trans == 'N' ? P[s + 1] : -P[s + 1];
            double *u = U + 2 * (i + l * n);
            u[0] = real ? xr : alpha[0] * xr - alpha[1] * xi;
            u[1] = real ? xi : alpha[0] * xi + alpha[1] * xr;
            u[h] = Q[t];
            u[h + 1] = trans == 'N' ? Q[t + 1] : -Q[t + 1];
        }
    double hx, lx, hy, ly;
    extent(U, h, &hx, &lx);
    extent(U + h, h, &hy, &ly);
    int s = hx > 0.0 && hy > 0.0 && isfinite(hx) && isfinite(hy) ? (ilogb(hy) - ilogb(hx)) / 2
                                                                 : 0;
    if (ldexp(s > 0 ? ly : lx, -abs(s)) < DBL_MIN || ldexp(s > 0 ? hx : hy, abs(s)) > DBL_MAX / 4)
        s = 0;
    for (size_t e = 0; e < h; e++) {
        U[e] = ldexp(U[e], s);
        U[h + e] = ldexp(U[h + e], -s);
        U[2 * h + e] = U[e];
    }
    return U;
}

ozblas_status oz_ozaki2(const oz_executor *ex, const oz_gemm_call *call,
                        const ozblas_options *opt, ozblas_report *rep)
{
    oz_gemm_call h = *call;
    h.herm = hermitian(ex, call);
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
