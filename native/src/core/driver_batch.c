/* Ozaki II over a batch of products of one shape (ozblas_dgemm_batched and the cuBLAS
 * batched GEMMs), on an executor with batch kernels (oz_executor.batch, phase_kernels.h).
 *
 * Every product gets the decisions oz_ozaki2 (driver_ozaki2.c) makes for it alone, so its C
 * has the single call's bits: automatic precision's probe runs per product (one after
 * another: a probe holds the executor's workspace) and hands its count and its bits for
 * that count to the batch; the products are then grouped by count, and each group runs as
 * batches on the executor (statistics per matrix, integer products together). A product
 * for which oz_ozaki2 would not compute C itself (Inf/NaN, no count: a split or native
 * fallback, an element the fixed count loses, a batch that does not fit untiled even alone)
 * is left to the caller, which runs it through the single-call path: the same decisions
 * again, and the single call's result. */
#include <stdlib.h>
#include <string.h>

#include "phase_kernels.h"

/* Per product: its table (NULL: left to the caller) and the probe's bits for it. */
typedef struct {
    const oz2_table *T;
    int *bits;         /* automatic precision: m bits of op(A)'s rows, then n of op(B)'s */
    int products;      /* the probe's integer products */
} batch_item;

/* Automatic precision for product i alone (oz_ozaki2's first step): its count, report
 * fields and bits, or it->T NULL when that call would not compute C itself. */
static ozblas_status auto_item(const oz_kernels *K, const oz_gemm_call *c,
                               const ozblas_options *opt, batch_item *it, ozblas_report *rep)
{
    void *probe = NULL;
    double t0 = oz_now(), ratio;
    int n;
    oz_side a, b;
    ozblas_report r = *rep;
    ozblas_status st = oz_auto_choose(K, c, opt, 0, &probe, &n, &ratio, &it->products, &r);
    if (st == OZ_ERR_DEVICE_MEMORY) /* alone, the call finds its way (the CPU, or tiles) */
        st = OZBLAS_OK;
    else if (st == OZBLAS_OK && n && r.fallback == OZBLAS_FALLBACK_NONE) {
        /* the walk's last count is the one returned: the probe's bits are n's */
        K->probe_sides(probe, &a, &b);
        it->bits = oz_malloc(sizeof(int) * (size_t)(c->m + c->n));
        if (!it->bits) {
            st = OZBLAS_ERR_ALLOCATION;
        } else {
            memcpy(it->bits, a.bits, sizeof(int) * (size_t)c->m);
            memcpy(it->bits + c->m, b.bits, sizeof(int) * (size_t)c->n);
            it->T = oz2_auto_table(opt->engine, c->is_complex, n);
            r.bound = oz2_report_bound(c->is_complex, ratio);
            r.moduli = it->T->n;
            r.phase_seconds[OZBLAS_PHASE_STATS] += oz_now() - t0;
            *rep = r;
        }
    }
    if (probe)
        K->probe_close(probe);
    return st;
}

/* One group (products sel[0..ns-1], all with table T) in batches as large as the executor
 * takes. */
static ozblas_status run_group(const oz_executor *ex, oz_gemm_call *const *calls,
                               const int64_t *sel, int64_t ns, const ozblas_options *opt,
                               const oz2_table *T, batch_item *items,
                               ozblas_report *const *reps, unsigned char *done)
{
    const oz_batch_kernels *B = ex->batch;
    const int cx = calls[sel[0]]->is_complex, fast = opt->scaling == OZBLAS_SCALING_FAST;
    const int automatic = !opt->moduli;
    ozblas_status st = OZBLAS_OK;
    const oz_gemm_call **gc = oz_malloc(sizeof *gc * (size_t)ns);
    const int **ba = oz_malloc(sizeof *ba * (size_t)ns), **bb = oz_malloc(sizeof *bb * (size_t)ns);
    int *bad = oz_malloc(sizeof *bad * (size_t)ns);
    unsigned char *skip = oz_malloc((size_t)ns);
    oz_side *sa = oz_malloc(sizeof *sa * (size_t)ns), *sb = oz_malloc(sizeof *sb * (size_t)ns);
    if (!gc || !ba || !bb || !bad || !skip || !sa || !sb) {
        st = OZBLAS_ERR_ALLOCATION;
        goto out;
    }
    for (int64_t x = 0; x < ns; x++) {
        gc[x] = calls[sel[x]];
        ba[x] = items[sel[x]].bits;
        bb[x] = items[sel[x]].bits ? items[sel[x]].bits + gc[x]->m : NULL;
    }
    for (int64_t s = 0; s < ns;) {
        void *run = NULL;
        int64_t taken = 0;
        memset(bad, 0, sizeof *bad * (size_t)(ns - s));
        st = B->open(gc + s, ns - s, opt, T, automatic ? ba + s : NULL,
                     automatic ? bb + s : NULL, &run, &taken, bad, sa, sb);
        if (st == OZ_ERR_DEVICE_MEMORY) { /* not even one fits untiled: each one alone */
            B->close(run);
            st = OZBLAS_OK;
            break;
        }
        if (st != OZBLAS_OK) {
            B->close(run);
            break;
        }
        int any = 0;
        for (int64_t x = 0; x < taken; x++) {
            ozblas_report *rep = reps[sel[s + x]];
            skip[x] = bad[x] || (!automatic && (oz_side_loses(&sa[x]) || oz_side_loses(&sb[x])));
            if (!skip[x])
                oz_report_bits(&sa[x], &sb[x], 0, rep);
            any |= !skip[x];
        }
        ozblas_report times;
        memset(&times, 0, sizeof times);
        if (any)
            st = B->products(run, skip, &times);
        B->close(run);
        if (st != OZBLAS_OK)
            break;
        int first = 1;
        for (int64_t x = 0; x < taken; x++) {
            if (skip[x])
                continue;
            const int64_t i = sel[s + x];
            ozblas_report *rep = reps[i];
            rep->engine = opt->engine;
            rep->moduli = T->n; /* the table's: a complex call's may be the complex set's */
            rep->int_gemms = T->n * oz2_products_per_modulus(T, cx) + (fast ? 0 : 1) +
                             items[i].products;
            rep->engine_products = T->products * oz2_products_per_modulus(T, cx);
            rep->complex_products = cx ? oz2_products_per_modulus(T, cx) : 0;
            rep->fp64_passes = 1;
            if (first) /* the batch's phase times go to its first product's report */
                for (int p = 0; p < OZBLAS_PHASE_COUNT; p++)
                    rep->phase_seconds[p] += times.phase_seconds[p];
            first = 0;
            done[i] = 1;
        }
        s += taken;
    }
out:
    free(gc);
    free(ba);
    free(bb);
    free(bad);
    free(skip);
    free(sa);
    free(sb);
    return st;
}

ozblas_status oz_ozaki2_batch(const oz_executor *ex, oz_gemm_call *const *calls, int64_t nb,
                              const ozblas_options *opt, ozblas_report *const *reps,
                              unsigned char *done)
{
    const oz_gemm_call *c0 = calls[0];
    if (!ex->batch || !(ex->batch->engines >> opt->engine & 1) ||
        !oz_engine_usable(ex, opt, NULL, 0) ||
        c0->k > (c0->is_complex ? OZ2_MAX_K / 2 : OZ2_MAX_K))
        return OZBLAS_OK; /* one by one (the single calls' ENGINE and TOO_LARGE_K fallbacks) */
    ozblas_status st = OZBLAS_OK;
    batch_item *items = oz_calloc((size_t)nb, sizeof *items);
    int64_t *sel = oz_malloc(sizeof *sel * (size_t)nb);
    if (!items || !sel) {
        st = OZBLAS_ERR_ALLOCATION;
        goto out;
    }
    for (int64_t i = 0; i < nb && st == OZBLAS_OK; i++) {
        reps[i]->engine = opt->engine;
        if (opt->moduli)
            items[i].T = oz2_table_call(opt->engine, calls[i]->is_complex, opt->moduli);
        else
            st = auto_item(ex->kernels, calls[i], opt, &items[i], reps[i]);
    }
    /* groups by table, in the order of their first product */
    for (int64_t i = 0; i < nb && st == OZBLAS_OK; i++) {
        const oz2_table *T = items[i].T;
        if (!T)
            continue;
        int64_t ns = 0;
        for (int64_t j = i; j < nb; j++)
            if (items[j].T == T) {
                sel[ns++] = j;
                if (j > i)
                    items[j].T = NULL; /* taken by this group */
            }
        st = run_group(ex, calls, sel, ns, opt, T, items, reps, done);
    }
out:
    if (items)
        for (int64_t i = 0; i < nb; i++)
            free(items[i].bits);
    free(items);
    free(sel);
    return st;
}
