/* What the scheme drivers share: automatic precision's walk over the count, the per-side
 * checks and the report's bits, on the host arrays the executors' kernels hand back. */
#include <limits.h>
#include <math.h>
#include <time.h>

#include "phase_kernels.h"
#include "../numerics/ozaki1.h"

double oz_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int oz_side_loses(const oz_side *s)
{
    for (int64_t q = 0; q < s->n; q++)
        if (s->emin[q] != INT_MAX && oz2_loses_element(s->E[q], s->emin[q], s->bits[q]))
            return 1;
    return 0;
}

/* Ozaki II: the bits; Ozaki I: (E + 1) - e_s per nonzero row, the bits between the row's
 * leading power of two and the unit of its last slice (0 when every row is zero). */
static void side_bits(const oz_side *x, int s, int *mn, int *mx)
{
    *mn = INT_MAX;
    *mx = INT_MIN;
    for (int64_t q = 0; q < x->n; q++) {
        if (!s) {
            *mn = oz_min_int(*mn, x->bits[q]);
            *mx = oz_max_int(*mx, x->bits[q]);
        } else if (x->top[q] != INT_MIN) {
            int b = x->top[q] + 1 - x->e[q * s + s - 1];
            *mn = oz_min_int(*mn, b);
            *mx = oz_max_int(*mx, b);
        }
    }
    if (s && *mn == INT_MAX)
        *mn = *mx = 0;
}

void oz_report_bits(const oz_side *a, const oz_side *b, int s, ozblas_report *rep)
{
    side_bits(a, s, &rep->min_bits_a, &rep->max_bits_a);
    side_bits(b, s, &rep->min_bits_b, &rep->max_bits_b);
}

typedef struct {
    const oz_kernels *K;
    void *probe;
    int beta;
    int engine;        /* Ozaki II: the engine whose moduli tables the walk takes */
    int cx;            /* complex: the ladder of oz2_auto_table */
    double ratio;      /* of the last count tried */
    ozblas_status st;  /* a kernel's failure: the walk then stops */
} walk;

/* Both schemes' bounds hold for elements the count loses entirely (their truncation error
 * is the element itself, below the unit the bound charges), so a lost element does not
 * disqualify a count here: only the bound does. */
static int meets(int n, void *arg)
{
    walk *w = arg;
    if (w->st != OZBLAS_OK)
        return 1;
    if (!w->beta && (w->st = w->K->probe_bits(w->probe, oz2_auto_table(w->engine, w->cx, n))) != OZBLAS_OK)
        return 1;
    if ((w->st = w->K->probe_ratio(w->probe, w->beta, n, &w->ratio)) != OZBLAS_OK)
        return 1;
    return w->ratio <= OZ2_AUTO_TARGET;
}

ozblas_status oz_auto_choose(const oz_kernels *K, const oz_gemm_call *c,
                             const ozblas_options *opt, int beta, void **probe, int *count,
                             double *ratio, int *products, ozblas_report *rep)
{
    int bad = 0;
    *count = 0;
    *ratio = 0.0;
    *products = 0;
    int bound_product = !beta && opt->scaling == OZBLAS_SCALING_ACCURATE;
    ozblas_status st = K->probe_open(c, opt, bound_product, probe, &bad, products);
    if (st != OZBLAS_OK)
        return st;
    if (bad) {
        rep->fallback = OZBLAS_FALLBACK_NONFINITE;
        return OZBLAS_OK;
    }
    walk w = {K, *probe, beta, opt->engine, c->is_complex, 0.0, OZBLAS_OK};
    /* Ozaki II walks the rungs of oz2_auto_table; counts (max_count, the hint) are real
       counts, taken to their rungs */
    const int e = opt->engine, cx = c->is_complex;
    const int most = beta ? OZ1_MAX_SLICES : oz2_auto_rung(e, cx, oz2_max_moduli(e));
    const int cap = beta || !c->max_count ? c->max_count : oz2_auto_rung(e, cx, c->max_count);
    const int hi = cap ? oz_min_int(cap, most) : most;
    const int hint = beta ? OZ1_PLAN_SLICES : oz2_auto_rung(e, cx, oz2_auto_hint(e));
    int n = oz_auto_count(2, hi, oz_min_int(hint, hi), meets, &w);
    if (w.st != OZBLAS_OK)
        return w.st;
    *count = n;
    *ratio = w.ratio;
    /* method auto: beyond hi the policy predicts native faster, so it is its choice */
    if (!n)
        rep->fallback = hi < most ? OZBLAS_FALLBACK_AUTO_NATIVE : OZBLAS_FALLBACK_ACCURACY;
    return OZBLAS_OK;
}
