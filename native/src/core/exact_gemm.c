/* Exact products (numerics/exact.h), executor-neutral: the driver of their steps, the one
 * decision of where accuracy "correct" and the double-double products ozblas_dgemm_dd /
 * ozblas_zgemm_dd run, and the public entries of the double-double products. Each executor
 * computes the phases on its own integer engine (oz_exact_kernels: cpu/cpu_exact.c,
 * cuda/cuda_exact.cu); every entry is the exact product rounded once, so the executors give
 * the same bits whatever their engines' moduli and k-blocks. */
#include <fenv.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "phase_kernels.h"
#include "../numerics/exact.h"

/* pow2[t pw + e] = 2^e mod m_t (symmetric), e < pw, for every modulus of T. */
static double *pow2_table(const ozx_table *T, int pw)
{
    double *pow2 = oz_malloc(sizeof(double) * (size_t)T->n * (size_t)pw);
    for (int t = 0; pow2 && t < T->n; t++) {
        double *p2 = pow2 + (size_t)t * (size_t)pw;
        p2[0] = 1.0;
        for (int e = 1; e < pw; e++)
            p2[e] = ozx_mod(2.0 * p2[e - 1], T->m[t], T->inv[t]);
    }
    return pow2;
}

/* The entries of direct rows or columns. */
static int64_t direct_entries(const oz_xside *a, const oz_xside *b)
{
    int64_t da = 0, db = 0;
    for (int64_t i = 0; i < a->n; i++)
        da += a->dir[i] != 0;
    for (int64_t j = 0; j < b->n; j++)
        db += b->dir[j] != 0;
    return da * b->n + db * a->n - da * db;
}

/* Step 2 (ozx_choose_count, which marks the rows and columns too wide for the largest count
 * direct) and the table: for complex, K's complex family (two products per modulus) where
 * it leaves no more entries direct than Karatsuba's family and needs fewer products.
 * *planes: the integer products per modulus and k-block. */
static ozblas_status choose_table(const oz_exact_kernels *K, const oz_gemm_call *c,
                                  oz_xside *a, oz_xside *b, int *N, int *ta, int *tb,
                                  int *planes, const ozx_table **T)
{
    const int cx = c->is_complex;
    char *dir2 = NULL;
    if (cx && K->table_cx) { /* the directs before the first choice marks any */
        if (!(dir2 = oz_malloc((size_t)(a->n + b->n))))
            return OZBLAS_ERR_ALLOCATION;
        memcpy(dir2, a->dir, (size_t)a->n);
        memcpy(dir2 + a->n, b->dir, (size_t)b->n);
    }
    *N = ozx_choose_count(K->table, K->max_moduli, c->k, cx, a->top, a->dir, a->n, b->top,
                          b->dir, b->n, ta, tb);
    *planes = cx ? 3 : 1;
    const ozx_table *(*get)(int) = K->table;
    if (dir2) {
        int ta2, tb2;
        const int N2 = ozx_choose_count(K->table_cx, K->max_moduli_cx, c->k, cx, a->top, dir2,
                                        a->n, b->top, dir2 + a->n, b->n, &ta2, &tb2);
        if (2 * N2 < 3 * *N && !memcmp(dir2, a->dir, (size_t)a->n) &&
            !memcmp(dir2 + a->n, b->dir, (size_t)b->n)) {
            *N = N2;
            *ta = ta2;
            *tb = tb2;
            *planes = 2;
            get = K->table_cx;
        }
        free(dir2);
    }
    *T = *N ? get(*N) : NULL;
    return *N && !*T ? OZBLAS_ERR_ALLOCATION : OZBLAS_OK;
}

/* The steps of numerics/exact.h on executor kernels K: statistics (K), the count for K's
 * moduli, the integers and per modulus their residues (K), each k-block's integer products
 * and their reduction (K), the CRT or exact dot product of each entry with its one rounding
 * and the update (K), the report. lo NULL: accuracy "correct"; else the double-double
 * product, hi into c->C. */
static ozblas_status exact_drive(const oz_exact_kernels *K, const oz_gemm_call *c,
                                 const ozblas_options *opt, double *lo, int64_t ldlo,
                                 ozblas_report *rep)
{
    const int cx = c->is_complex;
    int planes = 1;
    const ozx_table *T = NULL;
    void *run = NULL;
    double *pow2 = NULL;
    oz_xside a, b;
    int ta = 0, tb = 0, N = 0;
    const int64_t nkb = (c->k + K->kblock - 1) / K->kblock;
    ozblas_status st = K->open(c, opt, lo, ldlo, &run, &a, &b, rep);
    if (st != OZBLAS_OK)
        goto done;
    const double t0 = oz_now();
    if ((st = choose_table(K, c, &a, &b, &N, &ta, &tb, &planes, &T)) != OZBLAS_OK)
        goto done;
    const int pw = (ta > tb ? ta : tb) + 1;
    if (N && !(pow2 = pow2_table(T, pw))) {
        st = OZBLAS_ERR_ALLOCATION;
        goto done;
    }
    rep->phase_seconds[OZBLAS_PHASE_STATS] += oz_now() - t0;
    if ((st = K->integers(run, T, pow2, pw, rep)) != OZBLAS_OK)
        goto done;
    for (int t = 0; t < N; t++) {
        if ((st = K->residues(run, t, rep)) != OZBLAS_OK)
            goto done;
        for (int64_t kb = 0; kb < nkb; kb++) {
            const int64_t l0 = kb * K->kblock;
            const int64_t kl = c->k - l0 < K->kblock ? c->k - l0 : K->kblock;
            for (int p = 0; p < planes; p++)
                if ((st = K->product(run, p, l0, kl, rep)) != OZBLAS_OK)
                    goto done;
            if ((st = K->reduce(run, t, kb == 0, rep)) != OZBLAS_OK)
                goto done;
        }
    }
    const int64_t direct = direct_entries(&a, &b);
    /* plain: alpha = 1, beta = 0 stores RN(p) itself (ozx_store) */
    const ozx_update up = {{c->alpha[0], c->alpha[1]}, {c->beta[0], c->beta[1]}, c->beta_zero,
                           c->alpha[0] == 1.0 && c->alpha[1] == 0.0 && c->beta_zero, cx};
    if ((st = K->finish(run, &up, direct > 0, rep)) != OZBLAS_OK)
        goto done;
    rep->method = OZBLAS_METHOD_OZAKI2;
    rep->moduli = N;
    rep->int_gemms = (int)(N * nkb * planes);
    rep->complex_products = cx ? planes : 0;
    rep->fp64_passes = N ? 1 : 0;
    rep->direct_entries = direct;
    rep->max_bits_a = ta;
    rep->max_bits_b = tb;
done:
    if (run)
        K->close(run);
    free(pow2);
    return st;
}

ozblas_status oz_exact_run(const oz_gemm_call *c, const ozblas_options *opt, double *lo,
                           int64_t ldlo, ozblas_report *rep)
{
    const oz_executor *dev = oz_memory_owner(c->A);
    const void *more[3] = {c->B, c->C, lo};
    for (int p = 0; p < 3 && !dev; p++)
        dev = oz_memory_owner(more[p]);
    const oz_executor *host = oz_executor_get(OZ_HOST_EXECUTOR);
    const oz_executor *ex = oz_executor_for(opt, 1, dev);
    if (ex != host && (!ex || !ex->available(NULL, 0) || !ex->exact))
        return OZBLAS_ERR_EXECUTOR_UNAVAILABLE;
    if (dev && ex != dev)
        return OZBLAS_ERR_EXECUTOR_UNAVAILABLE; /* the host cannot read device memory */
    rep->executor = ex->id;
    ozblas_status st = exact_drive(ex->exact, c, opt, lo, ldlo, rep);
    if (st == OZ_ERR_DEVICE_MEMORY) {
        if (dev)
            return OZBLAS_ERR_DEVICE;
        rep->executor = host->id;
        memset(rep->phase_seconds, 0, sizeof rep->phase_seconds);
        return exact_drive(host->exact, c, opt, lo, ldlo, rep);
    }
    if (st == OZBLAS_OK && ex->owns && opt->device <= OZ_MAX_DEVICE_LIST)
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
            const oz_executor *dev = oz_memory_owner(out[p]);
            if (!dev) {
                for (int64_t j = 0; j < n; j++)
                    memset(out[p] + w * j * ld[p], 0, es * (size_t)m);
                continue;
            }
            if (!zero && !(zero = oz_calloc((size_t)(m * n), es)))
                return OZBLAS_ERR_ALLOCATION;
            if (dev->copy(&opt, out[p], es * ld[p], zero, es * m, es * m, n)) {
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
int ozblas_exact_modulus_cx(int index) { return ozx_modulus_cx(index); }
int ozblas_exact_budget_bits(int n)
{
    const ozx_table *T = ozx_table_get(n);
    return T ? T->budget : -1;
}
