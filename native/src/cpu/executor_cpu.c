/* CPU executor: host threads (OpenMP) for the elementwise steps, exact integer products
 * through the host BLAS's SGEMM (exact: every partial sum is an integer below 2^24). */
#include <limits.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../core/oz_internal.h"
#include "cpu_common.h"

#define KBLOCK 1024        /* residue products: 1024 * 128 * 128 = 2^24 */
#define KBLOCK_BOUND 4096  /* accurate-scaling bound product: 4096 * 64 * 64 = 2^24 */

static int cpu_available(char *why, size_t len)
{
    (void)why;
    (void)len;
    return 1;
}

/* ---- native ----------------------------------------------------------------------------- */

enum { COL_MAJOR = 102, NO_TRANS = 111, TRANS = 112, CONJ_TRANS = 113 };
typedef void (*dgemm32_t)(int, int, int, int, int, int, double, const double *, int,
                          const double *, int, double, double *, int);
typedef void (*dgemm64_t)(int, int, int, int64_t, int64_t, int64_t, double, const double *,
                          int64_t, const double *, int64_t, double, double *, int64_t);
typedef void (*zgemm32_t)(int, int, int, int, int, int, const void *, const void *, int,
                          const void *, int, const void *, void *, int);
typedef void (*zgemm64_t)(int, int, int, int64_t, int64_t, int64_t, const void *, const void *,
                          int64_t, const void *, int64_t, const void *, void *, int64_t);

static int cblas_trans(char t) { return t == 'N' ? NO_TRANS : t == 'T' ? TRANS : CONJ_TRANS; }

static ozblas_status cpu_native(const oz_gemm_call *c, const ozblas_options *opt)
{
    (void)opt;
    const oz_host_blas *b = oz_host_blas_get();
    if (!b)
        return OZBLAS_ERR_NO_HOST_BLAS;
    int ta = cblas_trans(c->transa), tb = cblas_trans(c->transb);
    if (!b->ilp64 && (c->m > INT_MAX || c->n > INT_MAX || c->k > INT_MAX || c->lda > INT_MAX ||
                      c->ldb > INT_MAX || c->ldc > INT_MAX))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    if (!c->is_complex) {
        if (b->ilp64)
            ((dgemm64_t)b->dgemm)(COL_MAJOR, ta, tb, c->m, c->n, c->k, c->alpha[0], c->A, c->lda,
                                  c->B, c->ldb, c->beta[0], c->C, c->ldc);
        else
            ((dgemm32_t)b->dgemm)(COL_MAJOR, ta, tb, (int)c->m, (int)c->n, (int)c->k, c->alpha[0],
                                  c->A, (int)c->lda, c->B, (int)c->ldb, c->beta[0], c->C,
                                  (int)c->ldc);
    } else {
        if (b->ilp64)
            ((zgemm64_t)b->zgemm)(COL_MAJOR, ta, tb, c->m, c->n, c->k, c->alpha, c->A, c->lda,
                                  c->B, c->ldb, c->beta, c->C, c->ldc);
        else
            ((zgemm32_t)b->zgemm)(COL_MAJOR, ta, tb, (int)c->m, (int)c->n, (int)c->k, c->alpha,
                                  c->A, (int)c->lda, c->B, (int)c->ldb, c->beta, c->C,
                                  (int)c->ldc);
    }
    return OZBLAS_OK;
}

/* ---- Ozaki II ---------------------------------------------------------------------------- */

typedef struct {
    double *re, *im; /* packed op(X): column c holds row/column c, k contiguous values */
    int64_t cols;
    int *E, *emin, *bits;
    uint64_t *S, *N1; /* fixed-point sums of squares and (automatic precision) 1-norms */
} packed;

static void packed_free(packed *p)
{
    free(p->re);
    free(p->im);
    free(p->E);
    free(p->emin);
    free(p->bits);
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
    p->re = malloc(sizeof(double) * k * cols);
    p->im = c->is_complex ? malloc(sizeof(double) * k * cols) : NULL;
    p->E = malloc(sizeof(int) * cols);
    p->emin = malloc(sizeof(int) * cols);
    p->bits = malloc(sizeof(int) * cols);
    p->S = malloc(sizeof(uint64_t) * cols);
    p->N1 = malloc(sizeof(uint64_t) * cols);
    if (!p->re || (c->is_complex && !p->im) || !p->E || !p->emin || !p->bits || !p->S || !p->N1)
        return 0;
    double sign = tr == 'C' ? -1.0 : 1.0;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t q = 0; q < cols; q++)
        for (int64_t l = 0; l < k; l++) {
            int64_t idx = is_a ? oz_op_index(tr, q, l, ld) : oz_op_index(tr, l, q, ld);
            if (c->is_complex) {
                p->re[l + q * k] = X[2 * idx];
                p->im[l + q * k] = sign * X[2 * idx + 1];
            } else {
                p->re[l + q * k] = X[idx];
            }
        }
    return 1;
}

/* Step 1 for every packed column; returns 1 if any element is Inf or NaN. */
static int stats(int nt, packed *p, int64_t k)
{
    int bad = 0;
#pragma omp parallel for num_threads(nt) schedule(static) reduction(| : bad)
    for (int64_t q = 0; q < p->cols; q++) {
        const double *re = p->re + q * k, *im = p->im ? p->im + q * k : NULL;
        double amax = 0.0;
        int emin = INT_MAX;
        for (int64_t l = 0; l < k; l++) {
            oz2_stat_element(re[l], &amax, &emin, &bad);
            if (im)
                oz2_stat_element(im[l], &amax, &emin, &bad);
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
        p->S[q] = S;
        p->N1[q] = N1;
    }
    return bad;
}

/* Small-integer magnitudes of a packed matrix: rounded up (accurate scaling's bound of
 * |A'||B'|, ushift bits below 2^E) or rounded down (automatic precision's lower bounds of
 * |A||B|, lower = OZ2_LSHIFT or OZ2_LSHIFT2). */
static float *small_matrix(int nt, const packed *p, int64_t k, int ushift, int lower)
{
    float *U = malloc(sizeof(float) * k * p->cols);
    if (!U)
        return NULL;
#pragma omp parallel for num_threads(nt) schedule(static)
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
    }
    return U;
}

/* G = X^T Y of two small-integer packed matrices, exactly: SGEMM over k-blocks whose sums
 * stay below 2^24, accumulated in double. NULL when out of memory. */
static double *small_product(int nt, const oz_gemm_call *c, const packed *pa, const packed *pb,
                             int ushift, int lower, int64_t kblock)
{
    int64_t m = c->m, n = c->n, k = c->k;
    float *X = small_matrix(nt, pa, k, ushift, lower), *Y = small_matrix(nt, pb, k, ushift, lower);
    double *G = calloc((size_t)(m * n), sizeof(double));
    float *P = malloc(sizeof(float) * m * n);
    if (X && Y && G && P) {
        for (int64_t l0 = 0; l0 < k; l0 += kblock) {
            int64_t kb = k - l0 < kblock ? k - l0 : kblock;
            oz_cpu_sgemm_tn(nt, m, n, kb, X + l0, k, Y + l0, k, P);
#pragma omp parallel for num_threads(nt) schedule(static)
            for (int64_t e = 0; e < m * n; e++)
                G[e] += P[e];
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

/* Automatic precision's lower bound of |A||B| (units 2^(E_i + F_j - 12)): the two exact
 * small-integer products combined. NULL when out of memory. */
static double *lower_product(int nt, const oz_gemm_call *c, const packed *pa, const packed *pb)
{
    double *G2 = small_product(nt, c, pa, pb, 0, OZ2_LSHIFT2, KBLOCK);
    double *G = G2 ? small_product(nt, c, pa, pb, 0, OZ2_LSHIFT, KBLOCK) : NULL;
    if (G) {
#pragma omp parallel for num_threads(nt) schedule(static)
        for (int64_t e = 0; e < c->m * c->n; e++)
            G[e] = oz2_lower_product(G[e], G2[e]);
    }
    free(G2);
    return G;
}

ozblas_status oz_cpu_auto_data_get(int nt, const oz_gemm_call *c, oz_cpu_auto_data *d)
{
    packed pa, pb;
    ozblas_status st = OZBLAS_OK;
    memset(d, 0, sizeof *d);
    int okp = pack(nt, c, 1, &pa);
    int okq = pack(nt, c, 0, &pb);
    if (!okp || !okq) {
        st = OZBLAS_ERR_ALLOCATION;
    } else if (stats(nt, &pa, c->k) | stats(nt, &pb, c->k)) {
        d->bad = 1;
    } else if (!(d->Glo = lower_product(nt, c, &pa, &pb))) {
        st = OZBLAS_ERR_ALLOCATION;
    } else { /* keep the per-row data, free the rest */
        d->Ea = pa.E, d->emin_a = pa.emin, d->Na = pa.N1;
        d->Eb = pb.E, d->emin_b = pb.emin, d->Nb = pb.N1;
        pa.E = pa.emin = pb.E = pb.emin = NULL;
        pa.N1 = pb.N1 = NULL;
    }
    packed_free(&pa);
    packed_free(&pb);
    return st;
}

void oz_cpu_auto_data_free(oz_cpu_auto_data *d)
{
    free(d->Ea);
    free(d->emin_a);
    free(d->Na);
    free(d->Eb);
    free(d->emin_b);
    free(d->Nb);
    free(d->Glo);
    memset(d, 0, sizeof *d);
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
        return;
    }
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t i = 0; i < m; i++) {
        int a = OZ2_MAX_BITS, csi = oz2_cs_half(pa->S[i]);
        for (int64_t j = 0; j < n; j++) {
            int h = oz2_bound_exp((uint64_t)G[i + j * m], ushift, csi, oz2_cs_half(pb->S[j]));
            a = oz_min_int(a, oz2_bits_accurate_term(T->budget, h, pb->bits[j]));
        }
        pa->bits[i] = a;
    }
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t j = 0; j < n; j++) {
        int b = OZ2_MAX_BITS, csj = oz2_cs_half(pb->S[j]);
        for (int64_t i = 0; i < m; i++) {
            int h = oz2_bound_exp((uint64_t)G[i + j * m], ushift, oz2_cs_half(pa->S[i]), csj);
            b = oz_min_int(b, oz2_bits_accurate_term(T->budget, h, pa->bits[i]));
        }
        pb->bits[j] = b;
    }
}

static int any_loss(const packed *p)
{
    for (int64_t q = 0; q < p->cols; q++)
        if (p->emin[q] != INT_MAX && oz2_loses_element(p->E[q], p->emin[q], p->bits[q]))
            return 1;
    return 0;
}

/* Automatic precision: the largest bound ratio over C for the bits set now (max is exact,
 * so the result does not depend on the thread count). u/s: per-row/column workspace
 * (2 (m + n) doubles). */
static double max_ratio(int nt, const oz_gemm_call *c, const packed *pa, const packed *pb,
                        const double *Glo, double *u)
{
    int64_t m = c->m, n = c->n;
    double *sa = u + m, *ub = sa + m, *sb = ub + n;
    for (int64_t i = 0; i < m; i++)
        oz2_ratio_terms(pa->bits[i], pa->E[i], pa->emin[i], pa->N1[i], &u[i], &sa[i]);
    for (int64_t j = 0; j < n; j++)
        oz2_ratio_terms(pb->bits[j], pb->E[j], pb->emin[j], pb->N1[j], &ub[j], &sb[j]);
    double r = 0.0;
#pragma omp parallel for num_threads(nt) schedule(static) reduction(max : r)
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double v = oz2_bound_ratio(c->is_complex, u[i], sa[i], ub[j], sb[j], pa->N1[i],
                                       pb->N1[j], Glo[i + j * m]);
            r = v > r ? v : r;
        }
    return r;
}

typedef struct {
    int nt;
    const oz_gemm_call *c;
    const double *G, *Glo;
    int ushift;
    packed *pa, *pb;
    double *terms; /* max_ratio's workspace */
    double ratio; /* max_ratio of the last count tried (Inf when an element was lost) */
    int lost;     /* the last count tried would lose an element entirely */
} auto_ctx;

static int auto_meets(int n, void *arg)
{
    auto_ctx *a = arg;
    set_bits(a->nt, a->c, oz2_table_get(n), a->G, a->ushift, a->pa, a->pb);
    a->lost = any_loss(a->pa) || any_loss(a->pb);
    if (a->lost) {
        a->ratio = INFINITY;
        return 0;
    }
    a->ratio = max_ratio(a->nt, a->c, a->pa, a->pb, a->Glo, a->terms);
    return a->ratio <= OZ2_AUTO_TARGET;
}

static void scale(int nt, packed *p, int64_t k)
{
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t q = 0; q < p->cols; q++) {
        int e = p->bits[q] - p->E[q];
        for (int64_t l = 0; l < k; l++) {
            p->re[l + q * k] = oz2_scale(p->re[l + q * k], e);
            if (p->im)
                p->im[l + q * k] = oz2_scale(p->im[l + q * k], e);
        }
    }
}

/* Residues of a packed matrix modulo m_t: R0 = re, R1 = im, R2 = re + im (Karatsuba). */
static void residues(int nt, const packed *p, int64_t k, double mt, double inv, float *R0,
                     float *R1, float *R2)
{
    int64_t total = k * p->cols;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t e = 0; e < total; e++) {
        double a = oz2_residue(p->re[e], mt, inv);
        R0[e] = (float)a;
        if (p->im) {
            double b = oz2_residue(p->im[e], mt, inv);
            R1[e] = (float)b;
            R2[e] = (float)oz2_residue_small(a + b, mt, inv);
        }
    }
}

static void report_bits(const packed *pa, const packed *pb, ozblas_report *r)
{
    r->max_bits_a = INT_MIN;
    r->min_bits_a = INT_MAX;
    r->max_bits_b = INT_MIN;
    r->min_bits_b = INT_MAX;
    for (int64_t q = 0; q < pa->cols; q++) {
        r->max_bits_a = oz_max_int(r->max_bits_a, pa->bits[q]);
        r->min_bits_a = oz_min_int(r->min_bits_a, pa->bits[q]);
    }
    for (int64_t q = 0; q < pb->cols; q++) {
        r->max_bits_b = oz_max_int(r->max_bits_b, pb->bits[q]);
        r->min_bits_b = oz_min_int(r->min_bits_b, pb->bits[q]);
    }
}

static ozblas_status cpu_ozaki2(const oz_gemm_call *c, const oz2_table *T,
                                const ozblas_options *opt, ozblas_report *rep)
{
    int nt = oz_cpu_threads(opt);
    int64_t m = c->m, n = c->n, k = c->k, mn = c->m * c->n;
    int fast = opt->scaling == OZBLAS_SCALING_FAST, cx = c->is_complex;
    int ushift = cx ? 4 : 5;
    ozblas_status st = OZBLAS_OK;
    packed pa, pb;
    float *RA = NULL, *RB = NULL, *P = NULL;
    double *acc = NULL, *G = NULL, *Glo = NULL;
    int8_t *R = NULL;

    if (k > (cx ? OZ2_MAX_K / 2 : OZ2_MAX_K)) {
        rep->fallback = OZBLAS_FALLBACK_TOO_LARGE_K;
        return OZBLAS_OK;
    }
    int okp = pack(nt, c, 1, &pa);
    int okq = pack(nt, c, 0, &pb);
    if (!okp || !okq) {
        st = OZBLAS_ERR_ALLOCATION;
        goto done;
    }
    double t_phase = omp_get_wtime(), t_now;
#define PHASE(i) (t_now = omp_get_wtime(), rep->phase_seconds[i] += t_now - t_phase, t_phase = t_now)
    if (stats(nt, &pa, k) | stats(nt, &pb, k)) {
        rep->fallback = OZBLAS_FALLBACK_NONFINITE;
        goto done;
    }
    if (!fast && !(G = small_product(nt, c, &pa, &pb, ushift, 0, KBLOCK_BOUND))) {
        st = OZBLAS_ERR_ALLOCATION;
        goto done;
    }
    if (!T) { /* automatic precision */
        if (!(Glo = lower_product(nt, c, &pa, &pb))) {
            st = OZBLAS_ERR_ALLOCATION;
            goto done;
        }
        double *terms = malloc(sizeof(double) * 2 * (m + n));
        if (!terms) {
            st = OZBLAS_ERR_ALLOCATION;
            goto done;
        }
        auto_ctx ac = {nt, c, G, Glo, ushift, &pa, &pb, terms, 0.0, 0};
        int nmod = oz_auto_count(2, OZ2_MAX_MODULI, 16, auto_meets, &ac);
        free(terms);
        report_bits(&pa, &pb, rep);
        rep->bound = oz2_report_bound(cx, ac.ratio);
        if (!nmod) {
            rep->fallback = ac.lost ? OZBLAS_FALLBACK_EXPONENT_RANGE : OZBLAS_FALLBACK_ACCURACY;
            goto done;
        }
        T = oz2_table_get(nmod);
        rep->moduli = nmod;
    } else {
        set_bits(nt, c, T, G, ushift, &pa, &pb);
        report_bits(&pa, &pb, rep);
        if (any_loss(&pa) || any_loss(&pb)) {
            rep->fallback = OZBLAS_FALLBACK_EXPONENT_RANGE;
            goto done;
        }
    }
    PHASE(0);
    scale(nt, &pa, k);
    scale(nt, &pb, k);

    int np = cx ? 3 : 1; /* products per modulus and block */
    RA = malloc(sizeof(float) * k * m * np);
    RB = malloc(sizeof(float) * k * n * np);
    P = malloc(sizeof(float) * mn * np);
    acc = malloc(sizeof(double) * mn * np);
    R = malloc((size_t)T->n * mn * (cx ? 2 : 1));
    if (!RA || !RB || !P || !acc || !R) {
        st = OZBLAS_ERR_ALLOCATION;
        goto done;
    }
    for (int t = 0; t < T->n; t++) {
        double mt = T->m[t], inv = T->inv[t];
        residues(nt, &pa, k, mt, inv, RA, RA + k * m, RA + 2 * k * m);
        residues(nt, &pb, k, mt, inv, RB, RB + k * n, RB + 2 * k * n);
        PHASE(1);
        int last_block = (int)((k - 1) / KBLOCK);
        for (int64_t l0 = 0, blk = 0; l0 < k; l0 += KBLOCK, blk++) {
            int64_t kb = k - l0 < KBLOCK ? k - l0 : KBLOCK;
            for (int q = 0; q < np; q++)
                oz_cpu_sgemm_tn(nt, m, n, kb, RA + q * k * m + l0, k, RB + q * k * n + l0, k,
                                P + q * mn);
            PHASE(2);
            /* Block sums stay exact in double (each block < 2^24 in magnitude, k < 2^28);
             * one reduction after the last block gives the residue of the whole product. */
            int first = blk == 0, last = blk == last_block;
#pragma omp parallel for num_threads(nt) schedule(static)
            for (int64_t e = 0; e < mn; e++) {
                for (int q = 0; q < np; q++) {
                    double v = P[e + q * mn] + (first ? 0.0 : acc[e + q * mn]);
                    acc[e + q * mn] = v;
                }
                if (!last)
                    continue;
                if (!cx) {
                    R[(size_t)t * mn + e] = (int8_t)oz2_residue_small(acc[e], mt, inv);
                } else {
                    double p1 = acc[e], p2 = acc[e + mn], p3 = acc[e + 2 * mn];
                    R[(size_t)t * mn + e] = (int8_t)oz2_residue_small(p1 - p2, mt, inv);
                    R[(size_t)(T->n + t) * mn + e] = (int8_t)oz2_residue_small(p3 - p1 - p2, mt, inv);
                }
            }
            PHASE(3);
        }
    }

#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t j = 0; j < n; j++) {
        double r[OZ2_MAX_MODULI], ri[OZ2_MAX_MODULI];
        for (int64_t i = 0; i < m; i++) {
            int shift = -(pa.bits[i] - pa.E[i]) - (pb.bits[j] - pb.E[j]);
            int64_t e = i + j * m;
            for (int t = 0; t < T->n; t++)
                r[t] = R[(size_t)t * mn + e];
            double xr = oz2_crt(T, r, shift);
            double *cij = c->C + (cx ? 2 : 1) * (i + j * c->ldc);
            if (!cx) {
                cij[0] = oz_update_real(xr, c->alpha[0], c->beta[0], c->beta_zero ? 0.0 : cij[0],
                                        c->beta_zero);
            } else {
                for (int t = 0; t < T->n; t++)
                    ri[t] = R[(size_t)(T->n + t) * mn + e];
                double xi = oz2_crt(T, ri, shift);
                double out[2];
                oz_update_complex(xr, xi, c->alpha, c->beta, cij, c->beta_zero, out);
                cij[0] = out[0];
                cij[1] = out[1];
            }
        }
    }
    PHASE(4);
#undef PHASE
    rep->int_gemms = T->n * np + (fast ? 0 : 1) + (Glo ? 2 : 0);
    rep->fp64_passes = 1;

done:
    packed_free(&pa);
    packed_free(&pb);
    free(RA);
    free(RB);
    free(P);
    free(acc);
    free(R);
    free(G);
    free(Glo);
    return st;
}

const oz_executor oz_cpu_executor = {
    OZBLAS_EXECUTOR_CPU, "cpu", cpu_available, cpu_native, cpu_ozaki2, oz_cpu_ozaki1,
};
