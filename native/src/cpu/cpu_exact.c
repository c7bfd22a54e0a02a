/* The CPU executor's exact-product kernels (numerics/exact.h; the driver is
 * core/exact_gemm.c): accuracy "correct" (every entry of op(A) op(B) rounded once, then
 * alpha and beta as BLAS applies them) and the double-double products. The exact integer
 * engine is the host DGEMM on residues of at most 21 bits, in k-blocks of 2048: every
 * partial sum an integer below 2^53, exact in any summation order (a GEMM that used
 * Strassen-like recombinations would not be, and OpenBLAS, MKL and BLIS do not). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_common.h"
#include "../numerics/exact.h"

/* One operand as the kernels see it: the rows of op(A) (is_a) or the columns of op(B), each
 * an "outer" index with k inner elements. */
typedef struct {
    ozx_opv v;
    int64_t outer;
    int *low, *top;
    char *direct; /* Inf/NaN, or too wide for the largest count: exact dot products */
    double *F[2];  /* the integers X 2^-low as F 2^s (ozx_integer), re and im, k contiguous */
    int16_t *s[2]; /* per outer index */
    double *re, *im, *sum; /* this modulus' residues, same layout */
} side;

static void side_free(side *s)
{
    free(s->low);
    free(s->top);
    free(s->direct);
    for (int p = 0; p < 2; p++) {
        free(s->F[p]);
        free(s->s[p]);
    }
    free(s->re);
    free(s->im);
    free(s->sum);
}

static int side_stats(side *s, int64_t k, int nt)
{
    s->low = oz_malloc(sizeof(int) * (size_t)s->outer);
    s->top = oz_malloc(sizeof(int) * (size_t)s->outer);
    s->direct = oz_malloc((size_t)s->outer);
    if (!s->low || !s->top || !s->direct)
        return 0;
    OZ_CPU_FOR(nt, schedule(static),
        for (int64_t o = 0; o < s->outer; o++)
            ozx_outer_stats(&s->v, o, k, &s->low[o], &s->top[o], &s->direct[o]););
    return 1;
}

/* The integers of every non-direct outer index, once (direct ones: zeros). */
static int side_integers(side *s, int64_t k, int nt)
{
    size_t len = (size_t)(k * s->outer);
    for (int p = 0; p < (s->v.cx ? 2 : 1); p++) {
        s->F[p] = oz_malloc(sizeof(double) * len);
        s->s[p] = oz_malloc(sizeof(int16_t) * len);
        if (!s->F[p] || !s->s[p])
            return 0;
    }
    OZ_CPU_FOR(nt, schedule(static),
        for (int64_t o = 0; o < s->outer; o++) {
            int skip = s->direct[o] || s->top[o] == 0;
            for (int64_t l = 0; l < k; l++) {
                double x[2];
                ozx_get(&s->v, o, l, &x[0], &x[1]);
                for (int p = 0; p < (s->v.cx ? 2 : 1); p++) {
                    int sh = 0;
                    s->F[p][o * k + l] = skip ? 0.0 : ozx_integer(x[p], -s->low[o], &sh);
                    s->s[p][o * k + l] = (int16_t)sh; /* sh < top <= budget(64) < 2^15 */
                }
            }
        });
    return 1;
}

/* Modulus t's residues: re (and for complex im and the Karatsuba sums re + im), or on a
 * complex family A+ into re and A- into im. */
static void side_residues(side *s, int64_t k, const ozx_table *T, int t, const double *pow2,
                          int nt)
{
    const int64_t len = k * s->outer;
    const double m = T->m[t], inv = T->inv[t];
    if (T->cx2) {
        const double ip = T->ip[t];
        OZ_CPU_FOR(nt, schedule(static),
            for (int64_t e = 0; e < len; e++)
                ozx_residues_pm(s->F[0][e], s->s[0][e], s->F[1][e], s->s[1][e], m, inv, pow2, ip,
                                &s->re[e], &s->im[e]););
        return;
    }
    OZ_CPU_FOR(nt, schedule(static),
        for (int64_t e = 0; e < len; e++) {
            const int cx = s->v.cx;
            ozx_residues(s->F[0][e], s->s[0][e], cx ? s->F[1][e] : 0.0, cx ? s->s[1][e] : 0, cx, m,
                         inv, pow2, &s->re[e], cx ? &s->im[e] : NULL, cx ? &s->sum[e] : NULL);
        });
}

/* One entry from its residues: the usual limb counts as constants (unrolled loops). */
static void crt_entry(const ozx_table *T, const float *r, int64_t stride, int base, int dd,
                      double *v, double *vl)
{
    switch (T->limbs) {
    case 2: ozx_crt_round(T, r, stride, base, dd, v, vl, 2); break;
    case 3: ozx_crt_round(T, r, stride, base, dd, v, vl, 3); break;
    case 4: ozx_crt_round(T, r, stride, base, dd, v, vl, 4); break;
    case 5: ozx_crt_round(T, r, stride, base, dd, v, vl, 5); break;
    case 6: ozx_crt_round(T, r, stride, base, dd, v, vl, 6); break;
    case 7: ozx_crt_round(T, r, stride, base, dd, v, vl, 7); break;
    case 8: ozx_crt_round(T, r, stride, base, dd, v, vl, 8); break;
    case 9: ozx_crt_round(T, r, stride, base, dd, v, vl, 9); break;
    case 10: ozx_crt_round(T, r, stride, base, dd, v, vl, 10); break;
    default: ozx_crt_round(T, r, stride, base, dd, v, vl, T->limbs); break;
    }
}

/* One call's state between the driver's kernel calls. */
typedef struct {
    const oz_gemm_call *c;
    int nt;
    double *lo;
    int64_t ldlo;
    side a, b;
    const ozx_table *T;
    const double *pow2; /* the driver's: pow2[t pw + e] */
    int pw;
    double *P; /* one k-block's products, a plane of m n each */
    float *R;  /* the residues of C: per modulus its real part, then its imaginary part */
} xrun;

static void add_seconds(ozblas_report *rep, int phase, double t0)
{
    rep->phase_seconds[phase] += omp_get_wtime() - t0;
}

static ozblas_status cpu_x_open(const oz_gemm_call *c, const ozblas_options *opt, double *lo,
                                int64_t ldlo, void **run, oz_xside *a, oz_xside *b,
                                ozblas_report *rep)
{
    const double t0 = omp_get_wtime();
    if (!oz_host_blas_get())
        return OZBLAS_ERR_NO_HOST_BLAS;
    xrun *x = oz_calloc(1, sizeof *x);
    *run = x;
    if (!x)
        return OZBLAS_ERR_ALLOCATION;
    const int cx = c->is_complex;
    x->c = c;
    x->nt = oz_cpu_threads(opt, c->m, c->n, c->k, cx);
    x->lo = lo;
    x->ldlo = ldlo;
    x->a.v = (ozx_opv){c->A, c->lda, c->transa, 1, cx};
    x->a.outer = c->m;
    x->b.v = (ozx_opv){c->B, c->ldb, c->transb, 0, cx};
    x->b.outer = c->n;
    if (!side_stats(&x->a, c->k, x->nt) || !side_stats(&x->b, c->k, x->nt))
        return OZBLAS_ERR_ALLOCATION;
    *a = (oz_xside){c->m, x->a.top, x->a.direct};
    *b = (oz_xside){c->n, x->b.top, x->b.direct};
    add_seconds(rep, OZBLAS_PHASE_STATS, t0);
    return OZBLAS_OK;
}

static ozblas_status cpu_x_integers(void *run, const ozx_table *T, const double *pow2, int pw,
                                    ozblas_report *rep)
{
    xrun *x = run;
    const double t0 = omp_get_wtime();
    const int64_t m = x->c->m, n = x->c->n, k = x->c->k;
    const int cx = x->c->is_complex;
    x->T = T;
    x->pow2 = pow2;
    x->pw = pw;
    if (!T)
        return OZBLAS_OK;
    if (!side_integers(&x->a, k, x->nt) || !side_integers(&x->b, k, x->nt))
        return OZBLAS_ERR_ALLOCATION;
    side *sd[2] = {&x->a, &x->b};
    for (int q = 0; q < 2; q++) {
        const size_t len = (size_t)(k * sd[q]->outer);
        sd[q]->re = oz_malloc(sizeof(double) * len);
        if (cx) {
            sd[q]->im = oz_malloc(sizeof(double) * len);
            if (!T->cx2)
                sd[q]->sum = oz_malloc(sizeof(double) * len);
        }
        if (!sd[q]->re || (cx && (!sd[q]->im || (!T->cx2 && !sd[q]->sum))))
            return OZBLAS_ERR_ALLOCATION;
    }
    const size_t mn = (size_t)(m * n);
    x->P = oz_malloc(sizeof(double) * mn * (cx ? (T->cx2 ? 2 : 3) : 1));
    x->R = oz_malloc(sizeof(float) * mn * (size_t)((cx ? 2 : 1) * T->n));
    if (!x->P || !x->R)
        return OZBLAS_ERR_ALLOCATION;
    add_seconds(rep, OZBLAS_PHASE_SPLIT, t0);
    return OZBLAS_OK;
}

static ozblas_status cpu_x_residues(void *run, int t, ozblas_report *rep)
{
    xrun *x = run;
    const double t0 = omp_get_wtime();
    const double *p2 = x->pow2 + (size_t)t * (size_t)x->pw;
    side_residues(&x->a, x->c->k, x->T, t, p2, x->nt);
    side_residues(&x->b, x->c->k, x->T, t, p2, x->nt);
    add_seconds(rep, OZBLAS_PHASE_SPLIT, t0);
    return OZBLAS_OK;
}

static ozblas_status cpu_x_product(void *run, int p, int64_t l0, int64_t kl, ozblas_report *rep)
{
    xrun *x = run;
    const double t0 = omp_get_wtime(), one = 1.0, zero = 0.0;
    const int64_t m = x->c->m, n = x->c->n, k = x->c->k;
    const double *pa[3] = {x->a.re, x->a.im, x->a.sum}, *pb[3] = {x->b.re, x->b.im, x->b.sum};
    ozblas_status st = oz_host_gemm('d', 'T', 'N', m, n, kl, &one, pa[p] + l0, k, pb[p] + l0, k,
                                    &zero, x->P + (size_t)p * (size_t)(m * n), m);
    add_seconds(rep, OZBLAS_PHASE_INT_PRODUCTS, t0);
    return st;
}

static ozblas_status cpu_x_reduce(void *run, int t, int first, ozblas_report *rep)
{
    xrun *x = run;
    const double t0 = omp_get_wtime(), mt = x->T->m[t], inv = x->T->inv[t];
    const int cx = x->c->is_complex;
    const int64_t mn = x->c->m * x->c->n;
    const double *P = x->P;
    float *Rr = x->R + (size_t)((cx ? 2 : 1) * t) * (size_t)mn, *Ri = cx ? Rr + mn : NULL;
    if (x->T->cx2) {
        const double inv2 = x->T->inv2[t], inv2ip = x->T->inv2ip[t];
        OZ_CPU_FOR(x->nt, schedule(static),
            for (int64_t e = 0; e < mn; e++)
                ozx_reduce_pm(P[e], P[mn + e], first, mt, inv, inv2, inv2ip, &Rr[e], &Ri[e]););
        add_seconds(rep, OZBLAS_PHASE_REDUCTION, t0);
        return OZBLAS_OK;
    }
    OZ_CPU_FOR(x->nt, schedule(static),
        for (int64_t e = 0; e < mn; e++)
            ozx_reduce(P[e], cx ? P[mn + e] : 0.0, cx ? P[2 * mn + e] : 0.0, cx, first, mt, inv,
                       &Rr[e], cx ? &Ri[e] : NULL););
    add_seconds(rep, OZBLAS_PHASE_REDUCTION, t0);
    return OZBLAS_OK;
}

/* Entry by entry: the CRT or a direct dot product, the one rounding, the update. */
static ozblas_status cpu_x_finish(void *run, const ozx_update *up, int any_direct,
                                  ozblas_report *rep)
{
    xrun *x = run;
    (void)any_direct;
    const double t0 = omp_get_wtime();
    const oz_gemm_call *c = x->c;
    const int64_t m = c->m, n = c->n, k = c->k, mn = m * n;
    const int w = c->is_complex ? 2 : 1;
    const side *a = &x->a, *b = &x->b;
    const ozx_table *T = x->T;
    double *lo = x->lo;
    const int64_t ldlo = x->ldlo;
    OZ_CPU_FOR(x->nt, schedule(dynamic, 1),
        for (int64_t j = 0; j < n; j++) {
            for (int64_t i = 0; i < m; i++) {
                const int64_t e = i + j * m;
                double v[2] = {0.0, 0.0}, vl[2] = {0.0, 0.0};
                if (a->direct[i] || b->direct[j]) {
                    ozx_direct_entry(&a->v, &b->v, i, j, k, lo != NULL, v, vl);
                } else if (T && a->top[i] && b->top[j]) {
                    const int base = a->low[i] + b->low[j];
                    for (int p = 0; p < w; p++)
                        crt_entry(T, x->R + (size_t)p * mn + e, (int64_t)w * mn, base, lo != NULL,
                                  &v[p], &vl[p]);
                }
                ozx_store(up, c->C, c->ldc, lo, ldlo, i, j, v, vl);
            }
        });
    add_seconds(rep, OZBLAS_PHASE_FINAL, t0);
    return OZBLAS_OK;
}

static void cpu_x_close(void *run)
{
    xrun *x = run;
    side_free(&x->a);
    side_free(&x->b);
    free(x->P);
    free(x->R);
    free(x);
}

const oz_exact_kernels oz_cpu_exact_kernels = {
    ozx_table_get, OZX_MAX_MODULI, ozx_table_get_cx, OZX_CX_MAX_MODULI, OZX_KBLOCK, cpu_x_open, cpu_x_integers, cpu_x_residues,
    cpu_x_product, cpu_x_reduce, cpu_x_finish, cpu_x_close};
