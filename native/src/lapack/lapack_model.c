/* The band width of the two-stage reductions (lapack_eigen.c, lapack_svd.c), one rule for
 * both, and hseqr's bulges per chain (lapack_hseqr.c) by the same pricing. The band width:
 * the width whose predicted time of the whole driver is least on the executor in use
 * (docs/design/lapack.md, "The host remainder"). A wider band makes stage 1's
 * products fatter (inner dimension b: each emulated product splits its operands once for
 * more arithmetic) and stage 2's back-transformation blocks longer, but costs the host
 * O(n^2 b) in the bulge chase and the panels; a narrower band the reverse. The products are
 * priced by the policy's cost model on the run's profile, method and executor (what method
 * auto or the forced method would take for each shape); the host's parts at the profile's
 * host DGEMM rate times the efficiencies below. */
#include "oz_lapack.h"

/* The host's parts relative to the profile's host DGEMM rate, and the chase's fixed cost per
 * step (a larfg and lapack_band.c's step kernels on one b x b block, b x 2b for the
 * bidiagonal chase). The chase's two were fitted by least squares on relative error to the
 * report's chase_seconds (one thread's CPU time, method native, b = 16, 32, 64, 128 where the
 * model took them, n = 1024 and 2048, syevd and gesdd jobz S; docs/lapack-eigen.md "What
 * stays on the host"): 0.22 and 0.31 us (the host larfx/larfy chase it replaced: 0.22 and
 * 0.38 us). PANEL_EFF from the report's panel_seconds (lapack_speed.py --remainder, b = 32
 * to 256, n = 1024 and 2048). */
#define CHASE_EFF 0.22
#define CHASE_STEP_S 3.1e-7
/* Above b = 128 a chase step's blocks (about 2 b^2 elements) no longer stay in a core's L2
 * cache: the b = 256 chase measured 2.9x the b = 128 one (syevd, n = 1024 and 4096, the
 * chase_bands and remainder runs) where its flops give 2x, so its rate is 0.69 of the fit's. */
#define CHASE_WIDE_B 128
#define CHASE_WIDE_EFF 0.69
#define PANEL_EFF 0.15
/* The host DGEMM's rate on a product whose smallest dimension is t: t / (t + THIN_T) of the
 * profile's (a square product's): one thread of OpenBLAS measured here 27%, 45%, 60%, 78% of
 * its t = 256 rate at t = 16, 32, 64, 128 (2048 x t x 2048). The cost model prices host
 * products at one rate; the band width trades exactly such thin products. */
#define THIN_T 48.0
/* hseqr's chase inside a window: per bulge step its reflector (3 long) on the window's
 * columns right of it, its rows above it and U's rows it has reached, about 18 flops per row
 * of a window of w rows (72 real flops for z); HS_CHASE_EFF of the profile's host DGEMM
 * (ZGEMM) rate, fitted to the report's chase_seconds summed over a geev's sweeps (n = 1024:
 * d with chains of 32, 16 and 8 bulges, z with 16 and 8; d at 2048 with 16; method native,
 * one thread: 0.067 to 0.11; docs/lapack-nonsym.md, "Chains of bulges"). */
#define HS_CHASE_F 18.0
#define HS_CHASE_EFF 0.09

/* One product's predicted seconds: the fastest candidate of the run's method (auto: any)
 * on its executor (auto: any) that meets the target; the host DGEMM rate when none does. */
static double product_s(const ozblas_profile *p, int cplx, int method, int executor,
                        int on_device, int64_t m, int64_t n, int64_t k)
{
    if (m <= 0 || n <= 0 || k <= 0)
        return 0.0;
    ozblas_candidate c[OZBLAS_POLICY_MAX_CANDIDATES];
    int nc = ozblas_policy_estimate(p, cplx, m, n, k, on_device && p->has_device, 0, 0, c,
                                    OZBLAS_POLICY_MAX_CANDIDATES);
    int ex = executor == OZBLAS_EXECUTOR_AUTO ? -1
             : executor == OZBLAS_EXECUTOR_CUDA && p->has_device ? OZBLAS_EXECUTOR_CUDA
                                                                 : OZBLAS_EXECUTOR_CPU;
    double t = (double)min64(m, min64(n, k)), best = -1.0;
    for (int i = 0; i < nc; i++) {
        double sec = c[i].seconds;
        if (c[i].method == OZBLAS_METHOD_NATIVE && c[i].executor == OZBLAS_EXECUTOR_CPU)
            sec *= (t + THIN_T) / t;
        if (c[i].meets_target && (ex < 0 || c[i].executor == ex) &&
            (method == OZBLAS_METHOD_AUTO || c[i].method == method) && (best < 0.0 || sec < best))
            best = sec;
    }
    double f = (cplx ? 8.0 : 2.0) * (double)m * (double)n * (double)k;
    return best >= 0.0 ? best : f / (cplx ? p->host_zgemm : p->host_dgemm);
}

/* The predicted parts of the driver with band b (the solver is b's alone: not here). Stage
 * 1's panels are sampled (at most 32 of them, each standing for its neighbours): the
 * model's cost stays small beside the driver's. */
static void predict(const ozblas_profile *p, const ozblas_lapack_band_model *in,
                    int64_t b, ozblas_lapack_band_model *out)
{
    int c = in->cplx, me = in->method, ex = in->executor, od = in->on_device;
    int64_t m = in->m, n = in->n, nc = in->ncols, nb = in->nb;
    double f4 = c ? 4.0 : 1.0, rate = c ? p->host_zgemm / 4.0 : p->host_dgemm;
    double prod = 0.0, panel = 0.0;
    int64_t step = b * ((n / b + 31) / 32 > 1 ? (n / b + 31) / 32 : 1);
    for (int64_t j = 0; j + b < n; j += step) {
        double wgt = (double)min64(step, n - b - j) / (double)b; /* panels it stands for */
        int64_t r = n - j - b, ib = min64(r, b), mr = m - j;
        double t = 0.0, fl;
        if (in->kind == OZBLAS_LAPACK_BAND_EIGEN) {
            /* A22 V, the three thin products, the her2k (half its flops) */
            t = product_s(p, c, me, ex, od, r, ib, r) + 2.0 * product_s(p, c, me, ex, od, r, ib, ib) +
                product_s(p, c, me, ex, od, ib, ib, r) + 0.5 * product_s(p, c, me, ex, od, r, r, 2 * ib);
            fl = 3.0 * (double)r * (double)b * (double)b; /* geqrf, larft */
        } else {
            /* the QR panel's larfb on the columns right of it, the LQ panel's on the rows
               below: two products each */
            t = product_s(p, c, me, ex, od, b, r, mr) + product_s(p, c, me, ex, od, mr, r, b) +
                product_s(p, c, me, ex, od, mr - b, ib, r) + product_s(p, c, me, ex, od, mr - b, r, ib);
            fl = 3.0 * (double)(mr + r) * (double)b * (double)b;
        }
        prod += wgt * t;
        panel += wgt * f4 * fl / (PANEL_EFF * rate);
    }
    int64_t vb = b / 2 < 1 ? 1 : b / 2 > LX_HOUS_VB ? LX_HOUS_VB : b / 2, groups = 0;
    for (int64_t s0 = 0; s0 + 1 < n; s0 += vb)
        groups += (n - s0 - 1 + b - 1) / b;
    int sides = in->kind == OZBLAS_LAPACK_BAND_EIGEN ? 1 : 2; /* Q alone, or Q and P */
    if (nc > 0) {
        /* stage 2's groups (two products each), stage 1's blocks of nb (ormqr's pair) */
        prod += (double)(2 * sides * groups) * product_s(p, c, me, ex, od, vb, nc, b + vb - 1);
        for (int64_t i = 0; i < n - b; i += nb) {
            int64_t ib = min64(nb, n - b - i);
            prod += 2.0 * product_s(p, c, me, ex, od, ib, nc, (in->kind ? m : n) - b - i);
            if (sides == 2)
                prod += 2.0 * product_s(p, c, me, ex, od, ib, nc, n - b - i);
        }
    }
    /* the chase: 6 n^2 b flops (8 for the bidiagonal), one step per block of b rows */
    double chase_f = (in->kind == OZBLAS_LAPACK_BAND_EIGEN ? 6.0 : 8.0) * (double)n * n * b;
    out->band = b;
    out->products = prod;
    out->panels = panel;
    double eff = CHASE_EFF * (b > CHASE_WIDE_B ? CHASE_WIDE_EFF : 1.0);
    out->chase = f4 * chase_f / (eff * rate) +
                 CHASE_STEP_S * (double)sides * (double)n * (double)n / (2.0 * (double)b);
}

int64_t ozblas_lapack_band_width(const ozblas_profile *p, ozblas_lapack_band_model *mod)
{
    ozblas_profile local;
    if (!p) {
        ozblas_policy_local(&local, NULL, 0);
        p = &local;
    }
    int64_t n = mod->n, nb = mod->nb > 0 ? mod->nb : 1;
    /* candidates: min(nb, 256), halved down to 16 (an explicit nb below that: nb alone) */
    int64_t top = min64(nb, 256), best = top;
    double tbest = -1.0;
    ozblas_lapack_band_model t = *mod;
    for (int64_t b = top; b >= 1 && (b == top || b >= 16); b /= 2) {
        if (b >= n && b != top)
            continue;
        predict(p, mod, b, &t);
        double s = t.products + t.panels + t.chase;
        if (tbest < 0.0 || s < tbest) {
            tbest = s;
            best = b;
        }
    }
    predict(p, mod, best, mod);
    /* the solver (b's alone), a model: divide and conquer's merges without deflation with
       vectors (4/3 n^3 at the host DGEMM rate), its values-only O(n^2) otherwise */
    double dn = (double)n;
    mod->solver = mod->ncols > 0 ? 4.0 / 3.0 * dn * dn * dn / p->host_dgemm
                                 : 30.0 * dn * dn / (CHASE_EFF * p->host_dgemm);
    return best;
}

/* One sweep of nbm bulges in chains of g through n rows: chains of g cross the block in
 * windows of w = 6 g + 8 rows that advance 3 g + 4 each; a window's products are U^T on H's w
 * rows right of it and H's columns above it times U (about n w^2 together), Z's n rows times U */
static void predict_chain(const ozblas_profile *p, const ozblas_lapack_chain_model *in,
                          int64_t g, double *prod, double *chase)
{
    int c = in->cplx, me = in->method, ex = in->executor, od = in->on_device;
    int64_t n = in->n, w = min64(6 * g + 8, n), h = n / 2 > 1 ? n / 2 : 1;
    double windows = (double)((in->nbm + g - 1) / g) * (double)((n + 3 * g + 3) / (3 * g + 4));
    double rate = c ? p->host_zgemm : p->host_dgemm;
    double t = product_s(p, c, me, ex, od, w, h, w) + product_s(p, c, me, ex, od, h, w, w);
    if (in->vectors)
        t += product_s(p, c, me, ex, od, n, w, w);
    *prod = windows * t;
    *chase = (c ? 4.0 : 1.0) * HS_CHASE_F * (double)in->nbm * (double)n * (double)w /
             (HS_CHASE_EFF * rate);
}

int64_t ozblas_lapack_hseqr_chain(const ozblas_profile *p, ozblas_lapack_chain_model *mod)
{
    ozblas_profile local;
    if (!p) {
        ozblas_policy_local(&local, NULL, 0);
        p = &local;
    }
    double tbest = -1.0, prod, chase;
    /* candidates: nbm and its halvings down to 4 */
    for (int64_t g = mod->nbm > 1 ? mod->nbm : 1;; g /= 2) {
        predict_chain(p, mod, g, &prod, &chase);
        if (tbest < 0.0 || prod + chase < tbest) {
            tbest = prod + chase;
            mod->chain = g, mod->products = prod, mod->chase = chase;
        }
        if (g / 2 < 4)
            break;
    }
    return mod->chain;
}

/* method auto with executor auto weighs both executors per product (gemm_body's rule) */
static int model_executor(const oz_lx *x)
{
    return x->opt->method == OZBLAS_METHOD_AUTO && x->opt->executor == OZBLAS_EXECUTOR_AUTO
               ? OZBLAS_EXECUTOR_AUTO
               : x->exec;
}

int64_t lx_hseqr_chain(const oz_lx *x, int64_t n, int64_t nbm, int vectors)
{
    ozblas_lapack_chain_model mod = {.cplx = x->cplx, .vectors = vectors, .n = n, .nbm = nbm,
                                     .method = x->opt->method, .executor = model_executor(x),
                                     .on_device = x->dev};
    return ozblas_lapack_hseqr_chain(NULL, &mod);
}

int64_t lx_band_width(const oz_lx *x, int kind, int64_t m, int64_t n, int64_t ncols)
{
    ozblas_lapack_band_model mod = {.kind = kind, .cplx = x->cplx, .m = m, .n = n,
                                    .ncols = ncols, .nb = x->nb, .method = x->opt->method,
                                    .executor = model_executor(x), .on_device = x->dev};
    x->rep->band = min64(ozblas_lapack_band_width(NULL, &mod), n > 1 ? n - 1 : 1);
    return x->rep->band;
}
