/* The CPU executor's exact products (numerics/exact.h; the driver that chooses the executor
 * is core/exact_gemm.c): accuracy "correct" (every entry of op(A) op(B) rounded once, then
 * alpha and beta as BLAS applies them) and the double-double products. The exact integer
 * engine is the host DGEMM on residues of at most 21 bits, in k-blocks of 2048: every
 * partial sum an integer below 2^53, exact in any summation order (a GEMM that used
 * Strassen-like recombinations would not be, and OpenBLAS, MKL and BLIS do not). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_common.h"
#include "../numerics/exact.h"

/* One operand as the driver sees it: the rows of op(A) (is_a) or the columns of op(B), each
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

/* This modulus' residues (and for complex the Karatsuba sums re + im). */
static void side_residues(side *s, int64_t k, double m, double inv, const double *pow2, int nt)
{
    const int64_t len = k * s->outer;
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

/* The driver. With lo == NULL: accuracy "correct", c->C = alpha RN(op(A) op(B)) + beta C.
 * Otherwise the double-double op(A) op(B): hi into c->C (ldc), lo into lo (ldlo); alpha and
 * beta are not used. rep (may be NULL) gets the count and the products issued. */
ozblas_status oz_cpu_exact(const oz_gemm_call *c, const ozblas_options *opt, double *lo,
                           int64_t ldlo, ozblas_report *rep)
{
    if (!oz_host_blas_get())
        return OZBLAS_ERR_NO_HOST_BLAS;
    int nt = oz_cpu_threads(opt, c->m, c->n, c->k, c->is_complex);
    const int cx = c->is_complex, w = cx ? 2 : 1;
    const int64_t m = c->m, n = c->n, k = c->k;
    side a = {{c->A, c->lda, c->transa, 1, cx}, m, NULL, NULL, NULL, {NULL, NULL},
              {NULL, NULL}, NULL, NULL, NULL};
    side b = {{c->B, c->ldb, c->transb, 0, cx}, n, NULL, NULL, NULL, {NULL, NULL},
              {NULL, NULL}, NULL, NULL, NULL};
    ozblas_status st = OZBLAS_ERR_ALLOCATION;
    double *P = NULL, *pow2 = NULL;
    float *R = NULL;
    double ph[5] = {0, 0, 0, 0, 0}, t0 = omp_get_wtime(), t1;
    if (!side_stats(&a, k, nt) || !side_stats(&b, k, nt))
        goto done;

    int ta, tb;
    const int N = ozx_choose_count(ozx_table_get, OZX_MAX_MODULI, k, cx, a.top, a.direct, m,
                                   b.top, b.direct, n, &ta, &tb);
    const ozx_table *T = N ? ozx_table_get(N) : NULL;
    t1 = omp_get_wtime();
    ph[0] = t1 - t0;
    const int64_t nkb = (k + OZX_KBLOCK - 1) / OZX_KBLOCK;
    if (T && (!side_integers(&a, k, nt) || !side_integers(&b, k, nt)))
        goto done;
    if (T) {
        size_t ka = (size_t)(k * m), kb = (size_t)(k * n), mn = (size_t)(m * n);
        a.re = oz_malloc(sizeof(double) * ka);
        b.re = oz_malloc(sizeof(double) * kb);
        if (cx) {
            a.im = oz_malloc(sizeof(double) * ka);
            a.sum = oz_malloc(sizeof(double) * ka);
            b.im = oz_malloc(sizeof(double) * kb);
            b.sum = oz_malloc(sizeof(double) * kb);
        }
        P = oz_malloc(sizeof(double) * mn * (cx ? 3 : 1));
        R = oz_malloc(sizeof(float) * mn * (size_t)(w * N));
        pow2 = oz_malloc(sizeof(double) * (size_t)((ta > tb ? ta : tb) + 1));
        if (!a.re || !b.re || !P || !R || !pow2 || (cx && (!a.im || !a.sum || !b.im || !b.sum)))
            goto done;
        for (int t = 0; t < N; t++) {
            const double mt = T->m[t], inv = T->inv[t];
            pow2[0] = 1.0;
            for (int e = 1; e <= (ta > tb ? ta : tb); e++)
                pow2[e] = ozx_mod(2.0 * pow2[e - 1], mt, inv);
            t0 = omp_get_wtime();
            side_residues(&a, k, mt, inv, pow2, nt);
            side_residues(&b, k, mt, inv, pow2, nt);
            t1 = omp_get_wtime();
            ph[1] += t1 - t0;
            float *Rr = R + (size_t)(w * t) * mn, *Ri = cx ? Rr + mn : NULL;
            for (int64_t kb0 = 0; kb0 < nkb; kb0++) {
                int64_t l0 = kb0 * OZX_KBLOCK, kl = k - l0 < OZX_KBLOCK ? k - l0 : OZX_KBLOCK;
                const double *ops_a[3] = {a.re + l0, a.im ? a.im + l0 : NULL,
                                          a.sum ? a.sum + l0 : NULL};
                const double *ops_b[3] = {b.re + l0, b.im ? b.im + l0 : NULL,
                                          b.sum ? b.sum + l0 : NULL};
                const double one = 1.0, zero = 0.0;
                for (int p = 0; p < (cx ? 3 : 1); p++)
                    if ((st = oz_host_gemm('d', 'T', 'N', m, n, kl, &one, ops_a[p], k, ops_b[p], k,
                                           &zero, P + (size_t)p * mn, m)) != OZBLAS_OK)
                        goto done;
                const int first = kb0 == 0;
                t0 = omp_get_wtime();
                ph[2] += t0 - t1;
                OZ_CPU_FOR(nt, schedule(static),
                    for (int64_t e = 0; e < m * n; e++)
                        ozx_reduce(P[e], cx ? P[mn + e] : 0.0, cx ? P[2 * mn + e] : 0.0, cx, first,
                                   mt, inv, &Rr[e], cx ? &Ri[e] : NULL););
                t1 = omp_get_wtime();
                ph[3] += t1 - t0;
            }
        }
    }

    const ozx_update up = {{c->alpha[0], c->alpha[1]}, {c->beta[0], c->beta[1]}, c->beta_zero,
                           c->alpha[0] == 1.0 && c->alpha[1] == 0.0 && c->beta_zero, cx};
    /* CRT (or a direct dot product) and the one rounding, entry by entry. */
    t0 = omp_get_wtime();
    int64_t direct = 0;
    OZ_CPU_FOR(nt, schedule(dynamic, 1) reduction(+ : direct),
        for (int64_t j = 0; j < n; j++) {
            for (int64_t i = 0; i < m; i++) {
                const int64_t e = i + j * m;
                double v[2] = {0.0, 0.0}, vl[2] = {0.0, 0.0};
                if (a.direct[i] || b.direct[j]) {
                    direct++;
                    ozx_direct_entry(&a.v, &b.v, i, j, k, lo != NULL, v, vl);
                } else if (T && a.top[i] && b.top[j]) {
                    const int base = a.low[i] + b.low[j];
                    for (int p = 0; p < w; p++)
                        crt_entry(T, R + (size_t)p * m * n + e, (int64_t)w * m * n, base, lo != NULL,
                                  &v[p], &vl[p]);
                }
                ozx_store(&up, c->C, c->ldc, lo, ldlo, i, j, v, vl);
            }
        });
    ph[4] = omp_get_wtime() - t0;
    if (rep) {
        memcpy(rep->phase_seconds, ph, sizeof ph);
        rep->method = OZBLAS_METHOD_OZAKI2;
        rep->moduli = N;
        rep->int_gemms = (int)(N * nkb * (cx ? 3 : 1));
        rep->fp64_passes = N ? 1 : 0;
        rep->direct_entries = direct;
        rep->max_bits_a = ta;
        rep->max_bits_b = tb;
    }
    st = OZBLAS_OK;
done:
    side_free(&a);
    side_free(&b);
    free(P);
    free(R);
    free(pow2);
    return st;
}
