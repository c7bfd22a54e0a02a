/* Ozaki scheme I's phase kernels on the CPU executor (variants BITMASK, RN, EF, HYBRID; DGEMM and ZGEMM).
 * The numerics are the element functions of numerics/ozaki1.h; see its comment for the
 * algorithm and the fallback rules. Here:
 *
 *   1. split:    every row of op(A) and column of op(B) is gathered (conjugated for 'C'),
 *                checked (Inf/NaN, lost elements, exponent range) and cut into s INT8 slices
 *                per part, with one weight exponent per slice (OpenMP over rows/columns).
 *   2. products: C is done in tiles (rows of op(A) x columns of op(B)). Per tile, k-block
 *                of 1024 and B slice q, one host SGEMM multiplies the stacked A slices
 *                p = 1..s+1-q (both parts) of the tile by B_q (both parts): exact, as every
 *                partial sum is an integer
 *                of magnitude <= 1024 * 127^2 < 2^24. The block results are added in double
 *                per pair (p, q) (and combined Re = ArBr - AiBi, Im = ArBi + AiBr for complex),
 *                exact since every pair sum is an integer below 2^53.
 *   3. FP64:     per element, the terms (pairs, or chunks of at most r pairs of one group for
 *                EF/HYBRID: integer sums, exact) are added in the fixed order of ozaki1.h, and
 *                the BLAS update is applied.
 * Every step is exact or done in a fixed order per element, so the result does not depend on
 * the thread count, the tiling or the host BLAS, and equals ozblas.reference.ozaki1. The
 * driver (core/driver_ozaki1.c) decides the count, the fallbacks and the report.
 * Phases: SPLIT (statistics and slices), INT_PRODUCTS (SGEMM), REDUCTION (slice conversion
 * and exact block sums), FINAL (FP64 accumulation and update).
 */
#include <limits.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../numerics/ozaki1.h"
#include "../numerics/fp4.h"
#include "cpu_common.h"

#define OZ1_KBLOCK 1024                 /* 1024 * 127^2 < 2^24: exact SGEMM blocks */
#define OZ1_TILE_BYTES ((int64_t)64 << 20) /* per-element workspace of one tile of C */
#define OZ1_TILE_ROWS 256               /* rows of op(A) per tile */

typedef struct {
    int64_t cols;
    int8_t *I; /* slice p (0-based), part t of packed column q: I + ((q * s + p) * np + t) * k */
    int *e;    /* e[q * s + p]: weight exponent of slice p (x ~= sum_p I_p 2^e_p) */
    int *top;  /* ilogb(max |x|) of a nonzero column, INT_MIN for a zero one */
} oz1_side;

static void side_free(oz1_side *sd)
{
    free(sd->I);
    free(sd->e);
    free(sd->top);
}

/* Cut one packed column (x: np parts of k values; R: workspace of the same size). Returns 1
 * if a nonzero element has all its slices zero. */
static int split_column(const double *x, double *R, int64_t k, int np, int s, int beta,
                        int variant, double amax, int8_t *out, int *e)
{
    int64_t kk = k * np; /* x and R hold part t at t * k */
    int lost = 0;
    if (amax == 0.0) {
        memset(out, 0, (size_t)(s * kk));
        for (int p = 0; p < s; p++)
            e[p] = oz1_hybrid_exp(0, beta, p + 1);
        return 0;
    }
    if (variant == OZ1_BITMASK || variant == OZ1_EF) {
        int E = oz_exponent(amax);
        for (int p = 0; p < s; p++)
            e[p] = oz1_bitmask_exp(E, beta, p + 1);
        for (int t = 0; t < np; t++)
            for (int64_t l = 0; l < k; l++) {
                double xv = x[t * k + l], ax = fabs(xv), T_prev = 0.0;
                for (int p = 0; p < s; p++) {
                    double T = oz1_bitmask_prefix(ax, beta * (p + 1) - E - 1);
                    out[(p * np + t) * k + l] = (int8_t)oz1_bitmask_slice(xv, T, T_prev, beta);
                    T_prev = T;
                }
                if (xv != 0.0 && T_prev == 0.0)
                    lost = 1;
            }
        return lost;
    }
    memcpy(R, x, sizeof(double) * kk);
    int c0 = oz1_ceil_log2(amax);
    for (int p = 0; p < s; p++) {
        int ep;
        if (variant == OZ1_HYBRID) {
            ep = oz1_hybrid_exp(c0, beta, p + 1);
        } else {
            double m = 0.0;
            for (int64_t l = 0; l < kk; l++)
                m = fabs(R[l]) > m ? fabs(R[l]) : m;
            ep = m > 0.0 ? oz1_rn_exp(oz1_ceil_log2(m), beta) : e[p - 1] - beta; /* p > 0 */
        }
        e[p] = ep;
        for (int t = 0; t < np; t++)
            for (int64_t l = 0; l < k; l++) {
                double r = R[t * k + l];
                double I = oz1_rn_int(r, ep);
                out[(p * np + t) * k + l] = (int8_t)I;
                R[t * k + l] = oz1_rn_residual(r, I, ep);
            }
    }
    for (int64_t l = 0; l < kk; l++)
        if (x[l] != 0.0 && R[l] == x[l])
            lost = 1;
    return lost;
}

/* Step 1 for op(A) (is_a) or op(B). Sets *bad on Inf/NaN, *lost on a lost element. */
static int split_side(int nt, const oz_gemm_call *c, int is_a, int s, int beta, int variant,
                      oz1_side *sd, int *bad, int *lost)
{
    int64_t k = c->k, cols = is_a ? c->m : c->n;
    int np = c->is_complex ? 2 : 1;
    char tr = is_a ? c->transa : c->transb;
    const double *X = is_a ? c->A : c->B;
    int64_t ld = is_a ? c->lda : c->ldb;
    double sign = tr == 'C' ? -1.0 : 1.0;
    memset(sd, 0, sizeof *sd);
    sd->cols = cols;
    sd->I = oz_malloc((size_t)(cols * s * np * k));
    sd->e = oz_malloc(sizeof(int) * cols * s);
    sd->top = oz_malloc(sizeof(int) * cols);
    double *work = oz_malloc(sizeof(double) * 2 * np * k * nt);
    if (!sd->I || !sd->e || !sd->top || !work) {
        free(work);
        return 0;
    }
    int b = 0, ls = 0;
    OZ_CPU_FOR(nt, schedule(static) reduction(| : b, ls),
        for (int64_t q = 0; q < cols; q++) {
            /* the thread's scratch (outside a region: 0, whatever team the caller runs in) */
            double *x = work + (int64_t)(nt > 1 ? omp_get_thread_num() : 0) * 2 * np * k;
            double *R = x + np * k;
            double amax = 0.0;
            int fin = 1;
            for (int64_t l = 0; l < k; l++) {
                int64_t idx = is_a ? oz_op_index(tr, q, l, ld) : oz_op_index(tr, l, q, ld);
                if (np == 2) {
                    x[l] = X[2 * idx];
                    x[k + l] = sign * X[2 * idx + 1];
                } else {
                    x[l] = X[idx];
                }
            }
            for (int64_t l = 0; l < np * k; l++) {
                if (!oz_is_finite(x[l]))
                    fin = 0;
                else if (fabs(x[l]) > amax)
                    amax = fabs(x[l]);
            }
            if (!fin) {
                b = 1;
                continue;
            }
            sd->top[q] = amax > 0.0 ? oz_exponent(amax) : INT_MIN;
            ls |= split_column(x, R, k, np, s, beta, variant, amax, sd->I + q * s * np * k,
                               sd->e + q * s);
        });
    free(work);
    *bad |= b;
    *lost |= ls;
    return 1;
}

typedef struct {
    oz_cpu_call k;
    int engine; /* an ozblas_engine: FP4 writes each INT8 slice in three base-13 limbs */
    int s;
    oz1_side sa, sb;
} cpu_o1;

ozblas_status oz_cpu_o1_open(const oz_gemm_call *c, const ozblas_options *opt, int s, int beta,
                             void **run, int *bad, int *lost, oz_side *a, oz_side *b,
                             ozblas_report *rep)
{
    cpu_o1 *o = oz_cpu_state(run, sizeof *o, c, opt);
    if (!o)
        return OZBLAS_ERR_ALLOCATION;
    o->engine = opt->engine;
    o->s = s;
    oz_phase_start(&o->k.clk);
    if (!split_side(o->k.nt, c, 1, s, beta, opt->ozaki1_variant, &o->sa, bad, lost) ||
        !split_side(o->k.nt, c, 0, s, beta, opt->ozaki1_variant, &o->sb, bad, lost))
        return OZBLAS_ERR_ALLOCATION;
    oz_phase_mark(&o->k.clk, rep, OZBLAS_PHASE_SPLIT);
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    a->n = c->m, a->top = o->sa.top, a->e = o->sa.e;
    b->n = c->n, b->top = o->sb.top, b->e = o->sb.e;
    return OZBLAS_OK;
}

void oz_cpu_o1_close(void *run)
{
    cpu_o1 *o = run;
    if (o)
        side_free(&o->sa), side_free(&o->sb);
    free(o);
}

/* X's pair sums of the tile (mt x ntl, Tt elements per pair and part) += the products of
 * this k block with B's slice q (P: the stacked A_1..A_{s-q} times both parts of B_q, rows
 * rows); first: the tile's first k block (X := the products). */
static void o1_add_pairs(const cpu_o1 *o, int q, int64_t rows, int64_t mt, int64_t ntl,
                         int64_t Tt, int first, const float *P, double *X)
{
    const int nt = o->k.nt, s = o->s, cx = o->k.c->is_complex;
    const float *P1 = P, *P2 = P + rows * ntl;
    OZ_CPU_FOR(nt, schedule(static),
        for (int64_t jl = 0; jl < ntl; jl++)
            for (int p = 0; p < s - q; p++) {
                int64_t pi = oz1_pair_index(p, q);
                if (!cx) {
                    const float *src = P1 + jl * rows + p * mt;
                    double *dst = X + pi * Tt + jl * mt;
                    for (int64_t il = 0; il < mt; il++)
                        dst[il] = (first ? 0.0 : dst[il]) + (double)src[il];
                } else {
                    int64_t ar = jl * rows + 2 * p * mt, ai = ar + mt;
                    double *dre = X + (2 * pi) * Tt + jl * mt;
                    double *dim = X + (2 * pi + 1) * Tt + jl * mt;
                    for (int64_t il = 0; il < mt; il++) {
                        double re = (double)P1[ar + il] - (double)P2[ai + il];
                        double im = (double)P2[ar + il] + (double)P1[ai + il];
                        dre[il] = (first ? 0.0 : dre[il]) + re;
                        dim[il] = (first ? 0.0 : dim[il]) + im;
                    }
                }
            });
}

/* The tile at (i0, j0) of C (mt x ntl) from its pair sums X: the FP64 accumulation, groups
 * g + 2 from s + 1 down to 2, chunks of r by increasing p, then C's update. */
static void o1_accumulate_tile(const cpu_o1 *o, int r, int64_t i0, int64_t j0, int64_t mt,
                               int64_t ntl, int64_t Tt, const double *X, double *acc)
{
    const oz_gemm_call *c = o->k.c;
    const int nt = o->k.nt, s = o->s, cx = c->is_complex, np = cx ? 2 : 1;
    const oz1_side sa = o->sa, sb = o->sb;
    OZ_CPU_FOR(nt, schedule(static),
        for (int64_t jl = 0; jl < ntl; jl++) {
            double *a = acc + jl * mt * np;
            for (int64_t l = 0; l < mt * np; l++)
                a[l] = 0.0;
            const int *eb = sb.e + (j0 + jl) * s;
            for (int g = s - 1; g >= 0; g--)
                for (int c0 = 0; c0 <= g; c0 += r) {
                    int c1 = c0 + r - 1 < g ? c0 + r - 1 : g;
                    for (int64_t il = 0; il < mt; il++) {
                        int shift = sa.e[(i0 + il) * s + c0] + eb[g - c0];
                        int scale = oz1_acc_scale(sa.e[(i0 + il) * s] + eb[0]);
                        for (int t = 0; t < np; t++) {
                            double xs = 0.0;
                            for (int p = c0; p <= c1; p++)
                                xs = xs + X[(oz1_pair_index(p, g - p) * np + t) * Tt +
                                            jl * mt + il];
                            a[t * mt + il] = g ? oz1_accumulate(a[t * mt + il], xs, shift, scale)
                                               : oz1_accumulate_last(a[t * mt + il], xs, shift, scale);
                        }
                    }
                }
            for (int64_t il = 0; il < mt; il++)
                oz_update_element(c->C + np * (i0 + il + (j0 + jl) * c->ldc), cx, a[il],
                                  cx ? a[mt + il] : 0.0, c->alpha, c->beta, c->beta_zero);
        });
}

ozblas_status oz_cpu_o1_products(void *run, int r, int terms, ozblas_report *rep)
{
    cpu_o1 *o = run;
    const oz_gemm_call *c = o->k.c;
    const int nt = o->k.nt, s = o->s, cx = c->is_complex, np = cx ? 2 : 1;
    const int npairs = s * (s + 1) / 2;
    const int64_t m = c->m, n = c->n, k = c->k;
    const oz1_side sa = o->sa, sb = o->sb;
    ozblas_status st = OZBLAS_OK;
    float *FA = NULL, *FB = NULL, *P = NULL, *PF = NULL;
    double *X = NULL, *acc = NULL, *D = NULL;
    oz_cpu_engine_work w;
    memset(&w, 0, sizeof w);
    (void)terms; /* the chunks are walked below, in the order that gives them */

    /* Tiles of C: mbt rows x nbt columns, sized so that the pair sums, the accumulator and
     * the SGEMM outputs of one tile take about OZ1_TILE_BYTES. */
    int64_t per = ((int64_t)npairs * np + np) * 8 + (int64_t)s * np * np * 4;
    int64_t mbt = m < OZ1_TILE_ROWS ? m : OZ1_TILE_ROWS;
    int64_t nbt = OZ1_TILE_BYTES / per / mbt;
    nbt = nbt < 1 ? 1 : nbt > n ? n : nbt;
    int64_t kbm = k < OZ1_KBLOCK ? k : OZ1_KBLOCK;
    int64_t T = mbt * nbt;
    FA = oz_malloc(sizeof(float) * s * np * mbt * kbm);
    FB = oz_malloc(sizeof(float) * np * nbt * kbm);
    P = oz_malloc(sizeof(float) * s * np * np * T);
    X = oz_malloc(sizeof(double) * npairs * np * T);
    acc = oz_malloc(sizeof(double) * np * T);
    int okw = 1;
    if (o->engine == OZ2_ENGINE_FP4) { /* the limb planes of the largest stacked product */
        PF = oz_malloc(sizeof(float) * s * np * np * T);
        D = oz_malloc(sizeof(double) * s * np * np * T);
        okw = PF && D &&
              oz_cpu_engine_work_init(&w, o->engine, OZ_FP4_MAX_LIMBS, s * np * mbt, np * nbt, kbm);
    }
    if (!FA || !FB || !P || !X || !acc || !okw) {
        st = OZBLAS_ERR_ALLOCATION;
        goto done;
    }

    for (int64_t i0 = 0; i0 < m; i0 += mbt) {
        int64_t mt = m - i0 < mbt ? m - i0 : mbt;
        for (int64_t j0 = 0; j0 < n; j0 += nbt) {
            int64_t ntl = n - j0 < nbt ? n - j0 : nbt, Tt = mt * ntl;
            for (int64_t l0 = 0; l0 < k; l0 += OZ1_KBLOCK) {
                int64_t kb = k - l0 < OZ1_KBLOCK ? k - l0 : OZ1_KBLOCK;
                int first = l0 == 0;
                /* A slices of the tile for this block: column (p * np + t) * mt + il */
                OZ_CPU_FOR(nt, schedule(static),
                    for (int64_t il = 0; il < mt; il++)
                        for (int pt = 0; pt < s * np; pt++) {
                            const int8_t *src = sa.I + ((i0 + il) * s * np + pt) * k + l0;
                            float *dst = FA + (pt * mt + il) * kb;
                            for (int64_t l = 0; l < kb; l++)
                                dst[l] = src[l];
                        });
                for (int q = 0; q < s; q++) {
                    int64_t rows = (int64_t)(s - q) * np * mt; /* stacked A_1..A_{s-q} */
                    OZ_CPU_FOR(nt, schedule(static),
                        for (int64_t jl = 0; jl < ntl; jl++)
                            for (int t = 0; t < np; t++) {
                                const int8_t *src = sb.I + ((j0 + jl) * s * np + q * np + t) * k + l0;
                                float *dst = FB + (t * ntl + jl) * kb;
                                for (int64_t l = 0; l < kb; l++)
                                    dst[l] = src[l];
                            });
                    oz_phase_mark(&o->k.clk, rep, OZBLAS_PHASE_REDUCTION);
                    /* one call for both parts of B_q: P + t * rows * ntl is A^T B_q,part t */
                    if (o->engine == OZ2_ENGINE_FP4) { /* exact, and below 2^24: a float */
                        oz_cpu_engine_product(nt, o->engine, OZ_FP4_MAX_LIMBS, rows, np * ntl, kb,
                                              FA, FB, PF, D, &w);
                        for (int64_t e = 0; e < rows * np * ntl; e++)
                            P[e] = (float)D[e];
                    } else {
                        oz_cpu_sgemm_tn(nt, rows, np * ntl, kb, FA, kb, FB, kb, P);
                    }
                    oz_phase_mark(&o->k.clk, rep, OZBLAS_PHASE_INT_PRODUCTS);
                    o1_add_pairs(o, q, rows, mt, ntl, Tt, first, P, X);
                    oz_phase_mark(&o->k.clk, rep, OZBLAS_PHASE_REDUCTION);
                }
            }
            o1_accumulate_tile(o, r, i0, j0, mt, ntl, Tt, X, acc);
            oz_phase_mark(&o->k.clk, rep, OZBLAS_PHASE_FINAL);
        }
    }
done:
    oz_cpu_engine_work_free(&w);
    free(PF);
    free(D);
    free(FA);
    free(FB);
    free(P);
    free(X);
    free(acc);
    return st;
}
