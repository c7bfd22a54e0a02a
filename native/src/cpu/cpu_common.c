/* Helpers shared by the CPU executor's methods (Ozaki I and Ozaki II). */
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>

#include "cpu_common.h"

/* fork(): libgomp's thread pool does not survive into a child: there the first parallel
 * region of more than one thread waits for the parent's threads forever. So a child of a
 * process that ran parallel regions runs the CPU executor on one thread. */
static int omp_used, forked_after_omp;

static void child_after_fork(void)
{
    if (__atomic_load_n(&omp_used, __ATOMIC_RELAXED))
        forked_after_omp = 1;
}

__attribute__((constructor)) static void register_fork_handler(void)
{
    pthread_atfork(NULL, NULL, child_after_fork);
}

/* ozblas_set_num_threads' cap (threadpoolctl's limit), 0: none. */
static int thread_cap;

static int threads_for(const ozblas_options *opt, int cap)
{
    if (forked_after_omp)
        return 1;
    int nt = opt && opt->threads > 0 ? opt->threads : omp_get_max_threads();
    return cap > 0 && cap < nt ? cap : nt;
}

/* The OZBLAS_* settings' count (a bad value: the defaults; such calls stay native). */
static int env_threads(int cap)
{
    ozblas_options o;
    if (ozblas_options_from_env(&o, NULL, 0) != OZBLAS_OK)
        ozblas_options_init(&o);
    return threads_for(&o, cap);
}

/* The elements (m k + k n + m n, twice for complex: what the OpenMP passes sweep) each
 * thread of a product gets at least (docs/distributed.md, "Threads": chosen, not a clean
 * crossover; benchmarks/cpu_threads.py measures one): below twice this a product runs on the
 * calling thread, where a parallel region's wake-up and join (futex calls with
 * OMP_WAIT_POLICY passive) can cost more than the pass. The integer products' own threads are
 * the host BLAS's. */
#define OZ_CPU_MIN_ELEMS_PER_THREAD 32768
/* oz_cpu_test_min_elements' value, -1: the constant. */
static int64_t min_elems = -1;

int oz_cpu_run_threads(const ozblas_options *opt)
{
    int nt = threads_for(opt, __atomic_load_n(&thread_cap, __ATOMIC_RELAXED));
    if (nt > 1 && !__atomic_load_n(&omp_used, __ATOMIC_RELAXED))
        __atomic_store_n(&omp_used, 1, __ATOMIC_RELAXED);
    return nt;
}

int oz_cpu_threads(const ozblas_options *opt, int64_t m, int64_t n, int64_t k, int cplx)
{
    int nt = threads_for(opt, __atomic_load_n(&thread_cap, __ATOMIC_RELAXED));
    int64_t per = __atomic_load_n(&min_elems, __ATOMIC_RELAXED);
    per = per >= 0 ? per : OZ_CPU_MIN_ELEMS_PER_THREAD;
    /* in double: m k + k n + m n may exceed int64_t where each dimension does not */
    double share = per ? (cplx ? 2.0 : 1.0) * ((double)m * k + (double)k * n + (double)m * n) / per
                       : nt;
    if (share < nt)
        nt = share < 1.0 ? 1 : (int)share;
    if (nt > 1 && !__atomic_load_n(&omp_used, __ATOMIC_RELAXED))
        __atomic_store_n(&omp_used, 1, __ATOMIC_RELAXED);
    return nt;
}

/* A limit at or above what calls use anyway is no cap: threadpoolctl restores a limit by
 * setting the count it read before, which must not pin OZBLAS_NUM_THREADS or the cores. */
/* Test-only (benchmarks/cpu_threads.py, tests/cpu/test_threadpool.py): the rule's elements
 * per thread (0: every product shares; -1: the constant), and the count it picks for a
 * product with the process's settings. */
OZ_TEST_HOOK void oz_cpu_test_min_elements(int64_t per)
{
    __atomic_store_n(&min_elems, per >= 0 ? per : -1, __ATOMIC_RELAXED);
}

OZ_TEST_HOOK int oz_cpu_test_threads(int64_t m, int64_t n, int64_t k, int cplx)
{
    ozblas_options o;
    if (ozblas_options_from_env(&o, NULL, 0) != OZBLAS_OK)
        ozblas_options_init(&o);
    return oz_cpu_threads(&o, m, n, k, cplx);
}

void ozblas_set_num_threads(int n)
{
    __atomic_store_n(&thread_cap, n > 0 && n < env_threads(0) ? n : 0, __ATOMIC_RELAXED);
}

int ozblas_get_num_threads(void)
{
    return env_threads(__atomic_load_n(&thread_cap, __ATOMIC_RELAXED));
}

void oz_cpu_sgemm_tn(int nt, int64_t m, int64_t n, int64_t k, const float *A, int64_t lda,
                     const float *B, int64_t ldb, float *C)
{
    const float one = 1.0f, zero = 0.0f;
    if (oz_host_gemm('s', 'T', 'N', m, n, k, &one, A, lda, B, ldb, &zero, C, m) == OZBLAS_OK)
        return;
    OZ_CPU_FOR(nt, schedule(static),
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                float s = 0.0f;
                for (int64_t l = 0; l < k; l++)
                    s += A[l + i * lda] * B[l + j * ldb];
                C[i + j * m] = s;
            });
}

void *oz_cpu_state(void **run, size_t size, const oz_gemm_call *c, const ozblas_options *opt)
{
    oz_cpu_call *k = oz_calloc(1, size);
    *run = k;
    if (k) {
        k->c = c;
        k->nt = oz_cpu_threads(opt, c->m, c->n, c->k, c->is_complex);
    }
    return k;
}
