/* Exact products on the CPU (numerics/exact.h): the driver of accuracy "correct" (every entry
 * of op(A) op(B) rounded once, then alpha and beta as BLAS applies them) and of the
 * double-double products ozblas_dgemm_dd / ozblas_zgemm_dd. The exact integer engine is the
 * host DGEMM on residues of at most 21 bits, in k-blocks of 2048: every partial sum an
 * integer below 2^53, exact in any summation order (a GEMM that used Strassen-like
 * recombinations would not be, and OpenBLAS, MKL and BLIS do not). */
#include <fenv.h>
#include <limits.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "oz_internal.h"
#include "../cpu/cpu_common.h"
#include "../cuda/oz_cuda.h"
#include "../numerics/exact.h"

enum { COL_MAJOR = 102, NO_TRANS = 111, TRANS = 112 };
typedef void (*dgemm32_t)(int, int, int, int, int, int, double, const double *, int,
                          const double *, int, double, double *, int);
typedef void (*dgemm64_t)(int, int, int, int64_t, int64_t, int64_t, double, const double *,
                          int64_t, const double *, int64_t, double, double *, int64_t);

/* C (m x n, ldc m) = A^T B, A k x m and B k x n with leading dimension lda, ldb. */
static int host_dgemm_tn(const oz_host_blas *b, int64_t m, int64_t n, int64_t k, const double *A,
                         int64_t lda, const double *B, int64_t ldb, double *C)
{
    if (b->ilp64) {
        ((dgemm64_t)b->dgemm)(COL_MAJOR, TRANS, NO_TRANS, m, n, k, 1.0, A, lda, B, ldb, 0.0, C, m);
        return 1;
    }
    if (m > INT_MAX || n > INT_MAX || lda > INT_MAX || ldb > INT_MAX)
        return 0;
    ((dgemm32_t)b->dgemm)(COL_MAJOR, TRANS, NO_TRANS, (int)m, (int)n, (int)k, 1.0, A, (int)lda,
                          B, (int)ldb, 0.0, C, (int)m);
    return 1;
}

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
    s->low = malloc(sizeof(int) * (size_t)s->outer);
    s->top = malloc(sizeof(int) * (size_t)s->outer);
    s->direct = malloc((size_t)s->outer);
    if (!s->low || !s->top || !s->direct)
        return 0;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t o = 0; o < s->outer; o++)
        ozx_outer_stats(&s->v, o, k, &s->low[o], &s->top[o], &s->direct[o]);
    return 1;
}

/* The integers of every non-direct outer index, once (direct ones: zeros). */
static int side_integers(side *s, int64_t k, int nt)
{
    size_t len = (size_t)(k * s->outer);
    for (int p = 0; p < (s->v.cx ? 2 : 1); p++) {
        s->F[p] = malloc(sizeof(double) * len);
        s->s[p] = malloc(sizeof(int16_t) * len);
        if (!s->F[p] || !s->s[p])
            return 0;
    }
#pragma omp parallel for num_threads(nt) schedule(static)
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
    }
    return 1;
}

/* This modulus' residues (and for complex the Karatsuba sums re + im). */
static void side_residues(side *s, int64_t k, double m, double inv, const double *pow2, int nt)
{
    const int64_t len = k * s->outer;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t e = 0; e < len; e++) {
        const int cx = s->v.cx;
        ozx_residues(s->F[0][e], s->s[0][e], cx ? s->F[1][e] : 0.0, cx ? s->s[1][e] : 0, cx, m,
                     inv, pow2, &s->re[e], cx ? &s->im[e] : NULL, cx ? &s->sum[e] : NULL);
    }
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
ozblas_status oz_exact_gemm(const oz_gemm_call *c, const ozblas_options *opt, double *lo,
                            int64_t ldlo, ozblas_report *rep)
{
    const oz_host_blas *hb = oz_host_blas_get();
    if (!hb)
        return OZBLAS_ERR_NO_HOST_BLAS;
    int nt = oz_cpu_threads(opt);
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
        a.re = malloc(sizeof(double) * ka);
        b.re = malloc(sizeof(double) * kb);
        if (cx) {
            a.im = malloc(sizeof(double) * ka);
            a.sum = malloc(sizeof(double) * ka);
            b.im = malloc(sizeof(double) * kb);
            b.sum = malloc(sizeof(double) * kb);
        }
        P = malloc(sizeof(double) * mn * (cx ? 3 : 1));
        R = malloc(sizeof(float) * mn * (size_t)(w * N));
        pow2 = malloc(sizeof(double) * (size_t)((ta > tb ? ta : tb) + 1));
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
                for (int p = 0; p < (cx ? 3 : 1); p++)
                    if (!host_dgemm_tn(hb, m, n, kl, ops_a[p], k, ops_b[p], k, P + (size_t)p * mn)) {
                        st = OZBLAS_ERR_INVALID_ARGUMENT;
                        goto done;
                    }
                const int first = kb0 == 0;
                t0 = omp_get_wtime();
                ph[2] += t0 - t1;
#pragma omp parallel for num_threads(nt) schedule(static)
                for (int64_t e = 0; e < m * n; e++)
                    ozx_reduce(P[e], cx ? P[mn + e] : 0.0, cx ? P[2 * mn + e] : 0.0, cx, first,
                               mt, inv, &Rr[e], cx ? &Ri[e] : NULL);
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
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) reduction(+ : direct)
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
    }
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

ozblas_status oz_exact_run(const oz_gemm_call *c, const ozblas_options *opt, double *lo,
                           int64_t ldlo, ozblas_report *rep)
{
    const int dev = oz_cuda_on_device(c->A) || oz_cuda_on_device(c->B) ||
                    oz_cuda_on_device(c->C) || (lo && oz_cuda_on_device(lo));
    const oz_executor *ex = &oz_cpu_executor;
    if (opt->executor == OZBLAS_EXECUTOR_CUDA || (opt->executor == OZBLAS_EXECUTOR_AUTO && dev)) {
        ex = oz_cuda_executor();
        if (!ex || !ex->available(NULL, 0) || !ex->exact)
            return OZBLAS_ERR_EXECUTOR_UNAVAILABLE;
    } else if (dev) {
        return OZBLAS_ERR_EXECUTOR_UNAVAILABLE; /* the CPU cannot read device memory */
    }
    rep->executor = ex->id;
    ozblas_status st = ex->exact(c, opt, lo, ldlo, rep);
    if (st == OZ_ERR_DEVICE_MEMORY) {
        if (dev)
            return OZBLAS_ERR_DEVICE;
        rep->executor = OZBLAS_EXECUTOR_CPU;
        return oz_exact_gemm(c, opt, lo, ldlo, rep);
    }
    if (st == OZBLAS_OK && ex->id == OZBLAS_EXECUTOR_CUDA && opt->device <= OZ_MAX_DEVICE_LIST)
        rep->devices_used = 1ULL << opt->device;
    return st;
}

/* ---- public entry points ------------------------------------------------------------------ */

static ozblas_status gemm_dd(int cx, char transa, char transb, int64_t m, int64_t n, int64_t k,
                             const double *A, int64_t lda, const double *B, int64_t ldb,
                             double *Chi, int64_t ldchi, double *Clo, int64_t ldclo,
                             const ozblas_options *opt_in, ozblas_report *report)
{
    ozblas_options opt;
    if (opt_in)
        opt = *opt_in;
    else
        ozblas_options_init(&opt);
    double t0 = omp_get_wtime();
    ozblas_report rep;
    memset(&rep, 0, sizeof rep);
    rep.accuracy = OZBLAS_ACCURACY_DOUBLE_DOUBLE;
    rep.bound = 0x1p-106; /* one double-double rounding: |hi + lo - P| <= 2^-106 |P| (+ 2^-1075) */
    rep.executor = OZBLAS_EXECUTOR_CPU;
    transa = (char)(transa >= 'a' ? transa - 32 : transa);
    transb = (char)(transb >= 'a' ? transb - 32 : transb);
    int ok_t = (transa == 'N' || transa == 'T' || transa == 'C') &&
               (transb == 'N' || transb == 'T' || transb == 'C');
    int64_t rows_a = transa == 'N' ? m : k, rows_b = transb == 'N' ? k : n;
    int64_t mm = m > 1 ? m : 1;
    if (!ok_t || m < 0 || n < 0 || k < 0 || lda < (rows_a > 1 ? rows_a : 1) ||
        ldb < (rows_b > 1 ? rows_b : 1) || ldchi < mm || ldclo < mm || opt.threads < 0 ||
        opt.threads > OZ_MAX_THREADS || opt.executor < OZBLAS_EXECUTOR_AUTO ||
        opt.executor > OZBLAS_EXECUTOR_CUDA || opt.device < 0 || opt.device > OZ_MAX_DEVICE)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    opt.device = ozblas_device_for(&opt);
    if (m == 0 || n == 0)
        goto out;
    if (!Chi || !Clo || (k > 0 && (!A || !B)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    if (k == 0) { /* zeros; into device memory through a host buffer of zeros */
        const size_t w = cx ? 2 : 1, es = 8 * w;
        double *out[2] = {Chi, Clo};
        const int64_t ld[2] = {ldchi, ldclo};
        double *zero = NULL;
        for (int p = 0; p < 2; p++) {
            if (!oz_cuda_on_device(out[p])) {
                for (int64_t j = 0; j < n; j++)
                    memset(out[p] + w * j * ld[p], 0, es * (size_t)m);
                continue;
            }
            if (!zero && !(zero = calloc((size_t)(m * n), es)))
                return OZBLAS_ERR_ALLOCATION;
            if (oz_cuda_lx_copy(&opt, out[p], es * ld[p], zero, es * m, es * m, n)) {
                free(zero);
                return OZBLAS_ERR_DEVICE;
            }
        }
        free(zero);
        goto out;
    }
    oz_gemm_call c = {cx, transa, transb, m, n, k, {1.0, 0.0}, {0.0, 0.0}, 1,
                      A, lda, B, ldb, Chi, ldchi};
    fenv_t env;
    feholdexcept(&env); /* the steps' own flags say nothing about the result */
    ozblas_status st = oz_exact_run(&c, &opt, Clo, ldclo, &rep);
    fesetenv(&env);
    if (st != OZBLAS_OK)
        return st;
out:
    rep.seconds = omp_get_wtime() - t0;
    if (report)
        *report = rep;
    return OZBLAS_OK;
}

ozblas_status ozblas_dgemm_dd(ozblas_context *ctx, char transa, char transb, int64_t m,
                              int64_t n, int64_t k, const double *A, int64_t lda,
                              const double *B, int64_t ldb, double *Chi, int64_t ldchi,
                              double *Clo, int64_t ldclo, const ozblas_options *opt,
                              ozblas_report *report)
{
    (void)ctx;
    return gemm_dd(0, transa, transb, m, n, k, A, lda, B, ldb, Chi, ldchi, Clo, ldclo, opt,
                   report);
}

ozblas_status ozblas_zgemm_dd(ozblas_context *ctx, char transa, char transb, int64_t m,
                              int64_t n, int64_t k, const double *A, int64_t lda,
                              const double *B, int64_t ldb, double *Chi, int64_t ldchi,
                              double *Clo, int64_t ldclo, const ozblas_options *opt,
                              ozblas_report *report)
{
    (void)ctx;
    return gemm_dd(1, transa, transb, m, n, k, A, lda, B, ldb, Chi, ldchi, Clo, ldclo, opt,
                   report);
}

int ozblas_exact_max_moduli(void) { return OZX_MAX_MODULI; }
int ozblas_exact_modulus(int index) { return ozx_modulus(index); }
int ozblas_exact_budget_bits(int n)
{
    const ozx_table *T = ozx_table_get(n);
    return T ? T->budget : -1;
}
