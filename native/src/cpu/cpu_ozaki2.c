/* Ozaki II's phase kernels on the CPU executor, and automatic precision's probe (both
 * schemes): host threads (OpenMP) for the elementwise steps, exact integer products through
 * the host BLAS's SGEMM (exact: every partial sum is an integer below 2^24). The driver
 * (core/driver_ozaki2.c) calls them in order and makes every decision. */
#include <limits.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../numerics/ozaki1.h"
#include "cpu_common.h"

#define KBLOCK OZ_CPU_KBLOCK
#define KBLOCK_BOUND 4096  /* accurate-scaling bound product: 4096 * 64 * 64 = 2^24 */

/* ---- Ozaki II ---------------------------------------------------------------------------- */

typedef struct {
    double *re, *im; /* packed op(X): column c holds row/column c, k contiguous values */
    int64_t cols;
    int *E, *emin, *bits, *lsb; /* lsb: oz2_lsb_element's statistic */
    uint64_t *S, *N1; /* fixed-point sums of squares and (automatic precision) 1-norms */
} packed;

static void packed_free(packed *p)
{
    free(p->re);
    free(p->im);
    free(p->E);
    free(p->emin);
    free(p->bits);
    free(p->lsb);
    free(p->S);
    free(p->N1);
}

/* Pack op(A) (rows become columns) or op(B), conjugating for 'C'. */
static int pack(int nt, const oz_gemm_call *c, int is_a, packed *p)
{
    int64_t k = c->k, cols = is_a ? c->m : c->n;
    char tr = is_a ? c->transa : c->transb;
    const double *X = is_a ? c->A : c->B;
    int64_t ld = is_a ? c->lda : c->ldb;
    memset(p, 0, sizeof *p);
    p->cols = cols;
    p->re = oz_malloc(sizeof(double) * k * cols);
    p->im = c->is_complex ? oz_malloc(sizeof(double) * k * cols) : NULL;
    p->E = oz_malloc(sizeof(int) * cols);
    p->emin = oz_malloc(sizeof(int) * cols);
    p->bits = oz_malloc(sizeof(int) * cols);
    p->lsb = oz_malloc(sizeof(int) * cols);
    p->S = oz_malloc(sizeof(uint64_t) * cols);
    p->N1 = oz_malloc(sizeof(uint64_t) * cols);
    if (!p->re || (c->is_complex && !p->im) || !p->E || !p->emin || !p->bits || !p->lsb || !p->S ||
        !p->N1)
        return 0;
    double sign = tr == 'C' ? -1.0 : 1.0;
    OZ_CPU_FOR(nt, schedule(static),
        for (int64_t q = 0; q < cols; q++)
            for (int64_t l = 0; l < k; l++) {
                int64_t idx = is_a ? oz_op_index(tr, q, l, ld) : oz_op_index(tr, l, q, ld);
                if (c->is_complex) {
                    p->re[l + q * k] = X[2 * idx];
                    p->im[l + q * k] = sign * X[2 * idx + 1];
                } else {
                    p->re[l + q * k] = X[idx];
                }
            });
    return 1;
}

/* Step 1 for every packed column; returns 1 if any element is Inf or NaN. */
static int stats(int nt, packed *p, int64_t k)
{
    int bad = 0;
    OZ_CPU_FOR(nt, schedule(static) reduction(| : bad),
        for (int64_t q = 0; q < p->cols; q++) {
            const double *re = p->re + q * k, *im = p->im ? p->im + q * k : NULL;
            double amax = 0.0;
            int emin = INT_MAX, lsb = INT_MAX;
            for (int64_t l = 0; l < k; l++) {
                oz2_stat_element(re[l], &amax, &emin, &bad);
                oz2_lsb_element(re[l], &lsb);
                if (im) {
                    oz2_stat_element(im[l], &amax, &emin, &bad);
                    oz2_lsb_element(im[l], &lsb);
                }
            }
            int E = (amax > 0.0 && oz_is_finite(amax)) ? oz_exponent(amax) : 0;
            uint64_t S = 0, N1 = 0;
            if (amax > 0.0)
                for (int64_t l = 0; l < k; l++) {
                    S += oz2_sq_term(re[l], E);
                    N1 += oz2_abs_term(re[l], E);
                    if (im) {
                        S += oz2_sq_term(im[l], E);
                        N1 += oz2_abs_term(im[l], E);
                    }
                }
            p->E[q] = E;
            p->emin[q] = emin;
            p->lsb[q] = lsb;
            p->S[q] = S;
            p->N1[q] = N1;
        });
    return bad;
}

/* Small-integer magnitudes of a packed matrix: rounded up (accurate scaling's bound of
 * |A'||B'|, ushift bits below 2^E) or rounded down (automatic precision's lower bounds of
 * |A||B|, lower = a level's shift). */
static float *small_matrix(int nt, const packed *p, int64_t k, int ushift, int lower)
{
    float *U = oz_malloc(sizeof(float) * k * p->cols);
    if (!U)
        return NULL;
    OZ_CPU_FOR(nt, schedule(static),
        for (int64_t q = 0; q < p->cols; q++) {
            int s = ushift - p->E[q];
            for (int64_t l = 0; l < k; l++) {
                double re = p->re[l + q * k], im = p->im ? p->im[l + q * k] : 0.0;
                int u;
                if (lower)
                    u = oz2_lbound(fmax(fabs(re), fabs(im)), p->E[q], lower);
                else
                    u = oz2_ubound(re, s) + (p->im ? oz2_ubound(im, s) : 0);
                U[l + q * k] = (float)u;
            }
        });
    return U;
}

/* G = X^T Y of two small-integer packed matrices, exactly: SGEMM over k-blocks whose sums
 * stay below 2^24, accumulated in double. NULL when out of memory. */
static double *small_product(int nt, const oz_gemm_call *c, const packed *pa, const packed *pb,
                             int ushift, int lower, int64_t kblock)
{
    int64_t m = c->m, n = c->n, k = c->k;
    float *X = small_matrix(nt, pa, k, ushift, lower), *Y = small_matrix(nt, pb, k, ushift, lower);
    double *G = oz_calloc((size_t)(m * n), sizeof(double));
    float *P = oz_malloc(sizeof(float) * m * n);
    if (X && Y && G && P) {
        for (int64_t l0 = 0; l0 < k; l0 += kblock) {
            int64_t kb = k - l0 < kblock ? k - l0 : kblock;
            oz_cpu_sgemm_tn(nt, m, n, kb, X + l0, k, Y + l0, k, P);
            OZ_CPU_FOR(nt, schedule(static),
                for (int64_t e = 0; e < m * n; e++)
                    G[e] += P[e];);
        }
    } else {
        free(G);
        G = NULL;
    }
    free(X);
    free(Y);
    free(P);
    return G;
}

/* Automatic precision's lower bound of |A||B| (units 2^(E_i + F_j - 12)): the exact
 * small-integer products of levels 0, 1, ... combined, a level more while an entry asks for
 * one (ozaki2.h oz2_lower_unresolved), then oz2_lower_final. *levels: the products
 * taken. NULL when out of memory. */
static double *lower_product(int nt, const oz_gemm_call *c, const packed *pa, const packed *pb,
                             int *levels)
{
    const int64_t m = c->m, n = c->n;
    double *G = NULL;
    int more = 1, p = 0;
    for (; more && p < OZ2_MAX_LEVELS; p++) {
        double *P = small_product(nt, c, pa, pb, 0, oz2_level_shift(p), KBLOCK);
        if (!P) {
            free(G);
            return NULL;
        }
        if (!G) {
            G = P;
            P = NULL;
        }
        more = 0;
        OZ_CPU_FOR(nt, schedule(static) reduction(| : more),
            for (int64_t j = 0; j < n; j++) {
                const int rb = oz2_level_resolves(pb->E[j], pb->emin[j], p);
                for (int64_t i = 0; i < m; i++) {
                    const int64_t e = i + j * m;
                    if (P)
                        G[e] = oz2_lower_add(G[e], P[e], p);
                    more |= oz2_lower_unresolved(G[e], pa->N1[i], pb->N1[j],
                                                 oz2_level_resolves(pa->E[i], pa->emin[i], p), rb, p);
                }
            });
        free(P);
    }
    *levels = p;
    OZ_CPU_FOR(nt, schedule(static),
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++)
                G[i + j * m] = oz2_lower_final(G[i + j * m],
                                               oz2_level_resolves(pa->E[i], pa->emin[i], p - 1),
                                               oz2_level_resolves(pb->E[j], pb->emin[j], p - 1)););
    return G;
}

/* Accurate scaling from the product bound G (pb->bits holding the fast scaling's beta_j). */
static void accurate_bits(int nt, const oz_gemm_call *c, const oz2_table *T, const double *G,
                          int ushift, packed *pa, packed *pb)
{
    int64_t m = c->m, n = c->n;
    OZ_CPU_FOR(nt, schedule(static),
        for (int64_t i = 0; i < m; i++) {
            int a = OZ2_MAX_BITS, csi = oz2_cs_half(pa->S[i]);
            for (int64_t j = 0; j < n; j++) {
                int h = oz2_bound_exp((uint64_t)G[i + j * m], ushift, csi, oz2_cs_half(pb->S[j]));
                a = oz_min_int(a, oz2_bits_accurate_term(T->budget, h, pb->bits[j]));
            }
            pa->bits[i] = a;
        });
    OZ_CPU_FOR(nt, schedule(static),
        for (int64_t j = 0; j < n; j++) {
            int b = OZ2_MAX_BITS, csj = oz2_cs_half(pb->S[j]);
            for (int64_t i = 0; i < m; i++) {
                int h = oz2_bound_exp((uint64_t)G[i + j * m], ushift, oz2_cs_half(pa->S[i]), csj);
                b = oz_min_int(b, oz2_bits_accurate_term(T->budget, h, pa->bits[i]));
            }
            pb->bits[j] = b;
        });
}

/* Step 2 for the moduli of T: fast, or accurate from the product bound G. */
static void set_bits(int nt, const oz_gemm_call *c, const oz2_table *T, const double *G,
                     int ushift, packed *pa, packed *pb)
{
    int64_t m = c->m, n = c->n;
    for (int64_t j = 0; j < n; j++)
        pb->bits[j] = oz2_bits_fast(T->budget - T->budget / 2, pb->S[j]);
    if (!G) {
        for (int64_t i = 0; i < m; i++)
            pa->bits[i] = oz2_bits_fast(T->budget / 2, pa->S[i]);
    } else {
        accurate_bits(nt, c, T, G, ushift, pa, pb);
    }
    if (c->herm) /* a Hermitian product: the same bits on both sides (m = n) */
        for (int64_t i = 0; i < m; i++)
            pa->bits[i] = pb->bits[i] = oz2_herm_bits(pa->bits[i], pb->bits[i]);
}

/* Automatic precision's refinement lists (ozaki2.h): per column of a packed side, the
 * indices of its OZ2_TOP largest elements and its 1-norm without them. */
typedef struct {
    int64_t *idx; /* OZ2_TOP per column */
    int *cnt;
    uint64_t *rest;
} top_lists;

static void top_free(top_lists *t)
{
    free(t->idx);
    free(t->cnt);
    free(t->rest);
}

static int top_build(int nt, const packed *p, int64_t k, top_lists *t)
{
    t->idx = oz_malloc(sizeof(int64_t) * OZ2_TOP * (size_t)p->cols);
    t->cnt = oz_malloc(sizeof(int) * (size_t)p->cols);
    t->rest = oz_malloc(sizeof(uint64_t) * (size_t)p->cols);
    if (!t->idx || !t->cnt || !t->rest)
        return 0;
    OZ_CPU_FOR(nt, schedule(static),
        for (int64_t q = 0; q < p->cols; q++) {
            const double *re = p->re + q * k, *im = p->im ? p->im + q * k : NULL;
            double key[OZ2_TOP];
            int64_t *idx = t->idx + q * OZ2_TOP;
            int cnt = 0;
            for (int64_t l = 0; l < k; l++)
                oz2_top_insert(key, idx, &cnt, oz2_top_key(re[l], im ? im[l] : 0.0), l);
            uint64_t rest = p->N1[q];
            for (int s = 0; s < cnt; s++)
                rest -= oz2_abs_term(re[idx[s]], p->E[q]) +
                        (im ? oz2_abs_term(im[idx[s]], p->E[q]) : 0);
            t->cnt[q] = cnt;
            t->rest[q] = rest;
        });
    return 1;
}

/* Entry (i, j)'s refined ratio (ozaki2.h): the terms of column j's list, then row i's. */
static double refined(int cx, const packed *pa, const packed *pb, const top_lists *ta,
                      const top_lists *tb, int64_t k, int64_t i, int64_t j, int ba, int bb,
                      double ua, double ub, double G, double r0)
{
    double up = 0.0, lo_a = 0.0, lo_b = 0.0;
    const double *ar = pa->re + i * k, *ai = pa->im ? pa->im + i * k : NULL;
    const double *br = pb->re + j * k, *bi = pb->im ? pb->im + j * k : NULL;
    for (int s = 0; s < tb->cnt[j]; s++) {
        const int64_t l = tb->idx[j * OZ2_TOP + s];
        oz2_refine_term(cx, ar[l], ai ? ai[l] : 0.0, pa->E[i], ba, br[l], bi ? bi[l] : 0.0,
                        pb->E[j], bb, 1, &up, &lo_b);
    }
    for (int s = 0; s < ta->cnt[i]; s++) {
        const int64_t l = ta->idx[i * OZ2_TOP + s];
        oz2_refine_term(cx, ar[l], ai ? ai[l] : 0.0, pa->E[i], ba, br[l], bi ? bi[l] : 0.0,
                        pb->E[j], bb, 0, &up, &lo_a);
    }
    return oz2_refined_ratio(cx, up, lo_a, lo_b, ua, ub, ta->rest[i], tb->rest[j], G, r0);
}

/* Automatic precision: the largest bound ratio over C for the bits set now, refined where
 * few entries exceed the target (ozaki2.h; max is exact and the count of those entries an
 * integer, so the result does not depend on the thread count). u/s: per-row/column
 * workspace (2 (m + n) doubles); ta, tb: the refinement lists, built on first use. */
static double max_ratio(int nt, const oz_gemm_call *c, int norm, const packed *pa,
                        const packed *pb, const double *Glo, double *u, top_lists *ta,
                        top_lists *tb, int *oom)
{
    int64_t m = c->m, n = c->n;
    double *sa = u + m, *ub = sa + m, *sb = ub + n;
    for (int64_t i = 0; i < m; i++)
        oz2_ratio_terms(pa->bits[i], pa->E[i], pa->emin[i], pa->lsb[i], pa->N1[i], &u[i], &sa[i]);
    for (int64_t j = 0; j < n; j++)
        oz2_ratio_terms(pb->bits[j], pb->E[j], pb->emin[j], pb->lsb[j], pb->N1[j], &ub[j], &sb[j]);
    double r = 0.0;
    int64_t over = 0;
    if (norm) { /* the normwise target: no lower bound, nothing refined */
        OZ_CPU_FOR(nt, schedule(static) reduction(max : r),
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < m; i++) {
                    double v = oz2_norm_ratio(c->is_complex, oz2_norm_rootk(c->is_complex, c->k),
                                              u[i], ub[j], pa->N1[i], pb->N1[j]);
                    r = v > r ? v : r;
                });
        return r;
    }
    OZ_CPU_FOR(nt, schedule(static) reduction(max : r) reduction(+ : over),
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                double v = oz2_bound_ratio(c->is_complex, u[i], sa[i], ub[j], sb[j], pa->N1[i],
                                           pb->N1[j], Glo[i + j * m]);
                r = v > r ? v : r;
                over += v > OZ2_AUTO_TARGET;
            });
    if (!oz2_refine_asked(r, over, m * n))
        return r;
    if (!ta->idx && !(top_build(nt, pa, c->k, ta) && top_build(nt, pb, c->k, tb))) {
        *oom = 1;
        return r;
    }
    r = 0.0;
    OZ_CPU_FOR(nt, schedule(dynamic, 1) reduction(max : r),
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                double v = oz2_bound_ratio(c->is_complex, u[i], sa[i], ub[j], sb[j], pa->N1[i],
                                           pb->N1[j], Glo[i + j * m]);
                if (v > OZ2_AUTO_TARGET)
                    v = refined(c->is_complex, pa, pb, ta, tb, c->k, i, j,
                                u[i] == 0.0 ? OZ2_EXACT : pa->bits[i],
                                ub[j] == 0.0 ? OZ2_EXACT : pb->bits[j], u[i], ub[j],
                                Glo[i + j * m], v);
                r = v > r ? v : r;
            });
    return r;
}

static void scale(int nt, packed *p, int64_t k)
{
    OZ_CPU_FOR(nt, schedule(static),
        for (int64_t q = 0; q < p->cols; q++) {
            int e = p->bits[q] - p->E[q];
            for (int64_t l = 0; l < k; l++) {
                p->re[l + q * k] = oz2_scale(p->re[l + q * k], e);
                if (p->im)
                    p->im[l + q * k] = oz2_scale(p->im[l + q * k], e);
            }
        });
}

/* Whether every scaled value of a packed side lies below 2^96 (|x| < 2^(bits + 1) on a
 * nonzero row): then oz2_residue is oz2_residue96, branch-free, whose loops vectorize. */
static int below96(const packed *p)
{
    for (int64_t q = 0; q < p->cols; q++)
        if (p->S[q] && p->bits[q] > 94)
            return 0;
    return 1;
}

/* The residues of one column's k values (re, im: NULL for real) modulo m_t into R0, R1, R2
 * as residues() lays them out. The narrow loops carry omp simd: GCC's -O2 cost model leaves
 * loops of unknown length scalar, and these are most of the split's time. */
static void residue_run(const double *re, const double *im, int64_t len, int narrow, int cx2,
                        double mt, double inv, double ip, float *R0, float *R1, float *R2)
{
    if (!im && narrow) {
#pragma omp simd
        for (int64_t l = 0; l < len; l++)
            R0[l] = (float)oz2_residue96(re[l], mt, inv);
    } else if (!im) {
        for (int64_t l = 0; l < len; l++)
            R0[l] = (float)oz2_residue(re[l], mt, inv);
    } else if (cx2 && narrow) {
#pragma omp simd
        for (int64_t l = 0; l < len; l++) {
            double plus, minus;
            oz2_cx_split(oz2_residue96(re[l], mt, inv), oz2_residue96(im[l], mt, inv), ip, mt,
                         inv, &plus, &minus);
            R0[l] = (float)plus;
            R1[l] = (float)minus;
        }
    } else if (cx2) {
        for (int64_t l = 0; l < len; l++) {
            double plus, minus;
            oz2_cx_split(oz2_residue(re[l], mt, inv), oz2_residue(im[l], mt, inv), ip, mt, inv,
                         &plus, &minus);
            R0[l] = (float)plus;
            R1[l] = (float)minus;
        }
    } else {
        for (int64_t l = 0; l < len; l++) {
            const double a = oz2_residue(re[l], mt, inv), b = oz2_residue(im[l], mt, inv);
            R0[l] = (float)a;
            R1[l] = (float)b;
            R2[l] = (float)oz2_residue_small(a + b, mt, inv);
        }
    }
}

/* Residues of a packed matrix modulo m_t: R0 = re, R1 = im, R2 = re + im (Karatsuba), or on
 * the complex set R0 = re + i_m im, R1 = re - i_m im (ozaki2.h oz2_cx_split). */
static void residues(int nt, const packed *p, int64_t k, const oz2_table *T, int t, float *R0,
                     float *R1, float *R2)
{
    const double mt = T->m[t], inv = T->inv[t], ip = T->ip[t];
    const int narrow = below96(p), cx2 = T->cx2;
    OZ_CPU_FOR(nt, schedule(static),
        for (int64_t q = 0; q < p->cols; q++) {
            const int64_t o = q * k;
            residue_run(p->re + o, p->im ? p->im + o : NULL, k, narrow, cx2, mt, inv, ip, R0 + o,
                        p->im ? R1 + o : NULL, p->im && !cx2 ? R2 + o : NULL);
        });
}

/* dst = src J (cols columns of k residues each, k even): the halves of every column
 * swapped, HER2K's right operand (ozaki2.h oz2_products_per_call_modulus). */
static void swap_halves(int nt, const float *src, int64_t k, int64_t cols, float *dst)
{
    const int64_t h = k / 2;
    OZ_CPU_FOR(nt, schedule(static),
        for (int64_t q = 0; q < cols; q++) {
            memcpy(dst + q * k, src + q * k + h, sizeof(float) * h);
            memcpy(dst + q * k + h, src + q * k, sizeof(float) * h);
        });
}

/* Modulus t's residues of C from its products' values (acc: np planes of m x n): real,
 * Karatsuba's three, the complex set's P+ and P-, or a Hermitian product's one P (P- = P^T,
 * ozaki2.h oz2_products_per_call_modulus), read in square blocks so that P^T stays in cache. */
#define JOIN_BLOCK 64

/* A run of one plane (pm NULL: real) or of the complex set's two, omp simd as residue_run. */
static void join_run(const double *pp, const double *pm, int64_t len, double mt, double inv,
                     double inv2, double inv2ip, int8_t *Rr, int8_t *Ri)
{
    if (!pm) {
#pragma omp simd
        for (int64_t i = 0; i < len; i++)
            Rr[i] = (int8_t)oz2_residue_small(pp[i], mt, inv);
        return;
    }
#pragma omp simd
    for (int64_t i = 0; i < len; i++) {
        double re, im;
        oz2_cx_join(pp[i], pm[i], inv2, inv2ip, mt, inv, &re, &im);
        Rr[i] = (int8_t)re;
        Ri[i] = (int8_t)im;
    }
}
static void join(int nt, const oz2_table *T, int t, int np, int cx, int herm, int64_t m,
                 int64_t n, const double *acc, int8_t *R)
{
    const int64_t mn = m * n;
    const double mt = T->m[t], inv = T->inv[t], inv2 = T->inv2[t], inv2ip = T->inv2ip[t];
    int8_t *Rr = R + (size_t)t * mn, *Ri = R + (size_t)(T->n + t) * mn;
    if (herm) {
        OZ_CPU_FOR(nt, schedule(static),
            for (int64_t j0 = 0; j0 < n; j0 += JOIN_BLOCK)
                for (int64_t i0 = 0; i0 < m; i0 += JOIN_BLOCK)
                    for (int64_t j = j0; j < n && j < j0 + JOIN_BLOCK; j++)
                        for (int64_t i = i0; i < m && i < i0 + JOIN_BLOCK; i++) {
                            double re, im;
                            oz2_cx_join(acc[i + j * m], acc[j + i * m], inv2, inv2ip, mt, inv,
                                        &re, &im);
                            Rr[i + j * m] = (int8_t)re;
                            Ri[i + j * m] = (int8_t)im;
                        });
    } else if (!cx || np == 2) { /* by columns, each a vectorized run */
        OZ_CPU_FOR(nt, schedule(static),
            for (int64_t j = 0; j < n; j++)
                join_run(acc + j * m, cx ? acc + mn + j * m : NULL, m, mt, inv, inv2, inv2ip,
                         Rr + j * m, Ri + j * m););
    } else {
        OZ_CPU_FOR(nt, schedule(static),
            for (int64_t e = 0; e < mn; e++) {
                const double p1 = acc[e], p2 = acc[e + mn], p3 = acc[e + 2 * mn];
                Rr[e] = (int8_t)oz2_residue_small(p1 - p2, mt, inv);
                Ri[e] = (int8_t)oz2_residue_small(p3 - p1 - p2, mt, inv);
            });
    }
}

/* ---- automatic precision's probe ------------------------------------------------------- */

typedef struct {
    oz_cpu_call k;
    int ushift;
    packed pa, pb;
    double *G;              /* accurate scaling's bound product (NULL: not asked for) */
    double *Glo;            /* the combined lower-bound product of |A||B| (NULL: normwise) */
    int norm;               /* the normwise target (ozaki2.h) */
    double *terms;          /* max_ratio's workspace */
    top_lists ta, tb;       /* the refinement's lists (NULL until a count asks for them) */
    const oz2_table *T;     /* the table the bits were set for last */
} cpu_probe;

ozblas_status oz_cpu_probe_open(const oz_gemm_call *c, const ozblas_options *opt,
                                int bound_product, void **probe, int *bad, int *products)
{
    cpu_probe *p = oz_cpu_state(probe, sizeof *p, c, opt);
    if (!p)
        return OZBLAS_ERR_ALLOCATION;
    p->ushift = c->is_complex ? 4 : 5;
    int okp = pack(p->k.nt, c, 1, &p->pa);
    int okq = pack(p->k.nt, c, 0, &p->pb);
    if (!okp || !okq)
        return OZBLAS_ERR_ALLOCATION;
    if (stats(p->k.nt, &p->pa, c->k) | stats(p->k.nt, &p->pb, c->k)) {
        *bad = 1;
        return OZBLAS_OK;
    }
    if (bound_product &&
        !(p->G = small_product(p->k.nt, c, &p->pa, &p->pb, p->ushift, 0, KBLOCK_BOUND)))
        return OZBLAS_ERR_ALLOCATION;
    p->norm = opt->target == OZBLAS_TARGET_NORMWISE;
    if (!p->norm && !(p->Glo = lower_product(p->k.nt, c, &p->pa, &p->pb, products)))
        return OZBLAS_ERR_ALLOCATION;
    p->terms = oz_malloc(sizeof(double) * 2 * (c->m + c->n));
    if (!p->terms)
        return OZBLAS_ERR_ALLOCATION;
    /* *products: the lower-bound levels; the bound product is the call's own (o2_open takes
     * it over) */
    return OZBLAS_OK;
}

ozblas_status oz_cpu_probe_bits(void *probe, const oz2_table *T)
{
    cpu_probe *p = probe;
    set_bits(p->k.nt, p->k.c, T, p->G, p->ushift, &p->pa, &p->pb);
    p->T = T;
    return OZBLAS_OK;
}

ozblas_status oz_cpu_probe_ratio(void *probe, int beta, int count, double *ratio)
{
    cpu_probe *p = probe;
    const oz_gemm_call *c = p->k.c;
    if (!beta) {
        int oom = 0;
        *ratio = max_ratio(p->k.nt, c, p->norm, &p->pa, &p->pb, p->Glo, p->terms, &p->ta, &p->tb,
                           &oom);
        return oom ? OZBLAS_ERR_ALLOCATION : OZBLAS_OK;
    }
    const packed *pa = &p->pa, *pb = &p->pb;
    const int64_t m = c->m, n = c->n;
    double r = 0.0;
    OZ_CPU_FOR(p->k.nt, schedule(static) reduction(max : r),
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                double v = p->norm ? oz1_norm_ratio(c->is_complex, count, beta, c->k,
                                                    oz2_norm_rootk(c->is_complex, c->k), pa->N1[i],
                                                    pb->N1[j])
                                   : oz1_bound_ratio(c->is_complex, count, beta, c->k, pa->E[i],
                                                     pb->E[j], pa->emin[i], pb->emin[j], pa->N1[i],
                                                     pb->N1[j], p->Glo[i + j * m]);
                r = v > r ? v : r;
            });
    *ratio = r;
    return OZBLAS_OK;
}

static void sides_of(const packed *pa, const packed *pb, oz_side *a, oz_side *b)
{
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    a->n = pa->cols;
    a->E = pa->E, a->emin = pa->emin, a->bits = pa->bits;
    b->n = pb->cols;
    b->E = pb->E, b->emin = pb->emin, b->bits = pb->bits;
}

void oz_cpu_probe_sides(void *probe, oz_side *a, oz_side *b)
{
    cpu_probe *p = probe;
    sides_of(&p->pa, &p->pb, a, b);
}

void oz_cpu_probe_close(void *probe)
{
    cpu_probe *p = probe;
    if (!p)
        return;
    packed_free(&p->pa);
    packed_free(&p->pb);
    free(p->G);
    free(p->Glo);
    free(p->terms);
    top_free(&p->ta);
    top_free(&p->tb);
    free(p);
}

/* ---- Ozaki II with a table ------------------------------------------------------------- */

typedef struct {
    oz_cpu_call k;
    const oz2_table *T;
    packed pa, pb;
    double *G;
} cpu_o2;

ozblas_status oz_cpu_o2_open(const oz_gemm_call *c, const ozblas_options *opt,
                             const oz2_table *T, void *probe, void **run, int *bad,
                             oz_side *a, oz_side *b, ozblas_report *rep)
{
    cpu_o2 *o = oz_cpu_state(run, sizeof *o, c, opt);
    if (!o)
        return OZBLAS_ERR_ALLOCATION;
    o->T = T;
    const int ushift = c->is_complex ? 4 : 5;
    cpu_probe *p = probe;
    if (p) { /* the probe's statistics and bound product, and the bits it set for T last */
        o->pa = p->pa, o->pb = p->pb, o->G = p->G;
        memset(&p->pa, 0, sizeof p->pa);
        memset(&p->pb, 0, sizeof p->pb);
        p->G = NULL;
        oz_phase_start(&o->k.clk);
        if (p->T != T)
            set_bits(o->k.nt, c, T, o->G, ushift, &o->pa, &o->pb);
    } else {
        int okp = pack(o->k.nt, c, 1, &o->pa);
        int okq = pack(o->k.nt, c, 0, &o->pb);
        if (!okp || !okq)
            return OZBLAS_ERR_ALLOCATION;
        oz_phase_start(&o->k.clk);
        if (stats(o->k.nt, &o->pa, c->k) | stats(o->k.nt, &o->pb, c->k)) {
            *bad = 1;
            return OZBLAS_OK;
        }
        if (opt->scaling == OZBLAS_SCALING_ACCURATE &&
            !(o->G = small_product(o->k.nt, c, &o->pa, &o->pb, ushift, 0, KBLOCK_BOUND)))
            return OZBLAS_ERR_ALLOCATION;
        set_bits(o->k.nt, c, T, o->G, ushift, &o->pa, &o->pb);
    }
    oz_phase_mark(&o->k.clk, rep, OZBLAS_PHASE_STATS);
    sides_of(&o->pa, &o->pb, a, b);
    rep->complex_products = c->is_complex ? oz2_products_per_call_modulus(T, 1, c->herm) : 0;
    return OZBLAS_OK;
}

void oz_cpu_o2_close(void *run)
{
    cpu_o2 *o = run;
    if (!o)
        return;
    packed_free(&o->pa);
    packed_free(&o->pb);
    free(o->G);
    free(o);
}

ozblas_status oz_cpu_o2_products(void *run, ozblas_report *rep)
{
    cpu_o2 *o = run;
    const oz_gemm_call *c = o->k.c;
    const oz2_table *T = o->T;
    const int nt = o->k.nt, cx = c->is_complex;
    const int64_t m = c->m, n = c->n, k = c->k, mn = c->m * c->n;
    packed *pa = &o->pa, *pb = &o->pb;
    ozblas_status st = OZBLAS_OK;
    float *RA = NULL, *RB = NULL, *P = NULL;
    double *acc = NULL;
    int8_t *R = NULL;
    oz_cpu_engine_work w;
    int nd = 0; /* the most limbs a residue takes (FP4) */
    for (int t = 0; t < T->n; t++)
        nd = oz_max_int(nd, T->digits[t]);
    /* a Hermitian product on the complex set: op(B)'s residues are op(A)'s, swapped and
       transposed, and P- = P+^T (ozaki2.h oz2_products_per_call_modulus) */
    const int herm = cx && c->herm && T->cx2;
    const int np = oz2_products_per_call_modulus(T, cx, c->herm); /* products per modulus */
    const int planes = oz2_products_per_modulus(T, cx);             /* residue planes */
    scale(nt, pa, k);
    if (!herm)
        scale(nt, pb, k);
    RA = oz_malloc(sizeof(float) * k * m * planes);
    /* HER2K's form: op(B)'s residues are (X- J)^T, X- with the halves of k swapped */
    RB = herm && c->herm == OZ_HERM_SAME ? NULL : oz_malloc(sizeof(float) * k * n * planes);
    P = oz_malloc(sizeof(float) * mn);
    acc = oz_malloc(sizeof(double) * mn * np);
    R = oz_malloc((size_t)T->n * mn * (cx ? 2 : 1));
    int okw = oz_cpu_engine_work_init(&w, T->engine, nd, m, n, k);
    if (!RA || (!(herm && c->herm == OZ_HERM_SAME) && !RB) || !P || !acc || !R || !okw) {
        st = OZBLAS_ERR_ALLOCATION;
        goto done;
    }
    for (int t = 0; t < T->n; t++) {
        residues(nt, pa, k, T, t, RA, RA + k * m, RA + 2 * k * m);
        if (!herm)
            residues(nt, pb, k, T, t, RB, RB + k * n, RB + 2 * k * n);
        else if (c->herm == OZ_HERM_SWAP)
            swap_halves(nt, RA + k * m, k, m, RB);
        oz_phase_mark(&o->k.clk, rep, OZBLAS_PHASE_SPLIT);
        /* exact products (k < 2^28 products of at most 2^14 stay below 2^53 in double);
           Hermitian: P = X+ (X-)^T, X- being op(B)'s B+ transposed */
        for (int q = 0; q < np; q++)
            oz_cpu_engine_product(nt, T->engine, T->digits[t], m, n, k, RA + q * k * m,
                                  !herm ? RB + q * k * n : RB ? RB : RA + k * m, P,
                                  acc + q * mn, &w);
        oz_phase_mark(&o->k.clk, rep, OZBLAS_PHASE_INT_PRODUCTS);
        join(nt, T, t, np, cx, herm, m, n, acc, R);
        oz_phase_mark(&o->k.clk, rep, OZBLAS_PHASE_REDUCTION);
    }

    OZ_CPU_FOR(nt, schedule(static),
        for (int64_t j = 0; j < n; j++) {
            for (int64_t i = 0; i < m; i++) {
                int shift = -(pa->bits[i] - pa->E[i]) - (pb->bits[j] - pb->E[j]);
                const int8_t *r = R + i + j * m;
                if (c->dd) {
                    oz2_crt_store_dd(T, r, mn, shift, cx, c->C + 2 * (cx ? 2 : 1) * (i + j * c->ldc));
                    continue;
                }
                double xr = oz2_crt(T, r, mn, shift);
                double xi = cx ? oz2_crt(T, r + (size_t)T->n * mn, mn, shift) : 0.0;
                oz_update_element(c->C + (cx ? 2 : 1) * (i + j * c->ldc), cx, xr, xi, c->alpha,
                                  c->beta, c->beta_zero);
            }
        });
    oz_phase_mark(&o->k.clk, rep, OZBLAS_PHASE_FINAL);
done:
    oz_cpu_engine_work_free(&w);
    free(RA);
    free(RB);
    free(P);
    free(acc);
    free(R);
    return st;
}
