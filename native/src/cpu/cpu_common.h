/* The CPU executor's parts: its phase kernels (cpu_ozaki2.c: automatic precision's probe and
 * Ozaki II; cpu_ozaki1.c: Ozaki I), collected into its kernel table by cpu_executor.c, and
 * the helpers they share (cpu_common.c). */
#ifndef OZ_CPU_COMMON_H
#define OZ_CPU_COMMON_H

#include <omp.h>
#include <stdint.h>

#include "../core/phase_kernels.h"

/* The CPU executor (cpu_executor.c), listed in the executor table (executor_table.c). */
extern const oz_executor oz_cpu_executor;

/* Host BLAS found among loaded objects (host_blas.c, through core/symbol_lookup.c). */
typedef struct {
    void *sgemm, *dgemm, *zgemm; /* CBLAS entry points */
    int ilp64;                   /* integer arguments are int64_t */
    char path[512];
} oz_host_blas;
const oz_host_blas *oz_host_blas_get(void);
/* C := alpha op(A) op(B) + beta C through the host's CBLAS sgemm (prec 's': alpha, beta,
 * A, B, C float), dgemm ('d': double) or zgemm ('z': double pairs), column-major, trans
 * 'N', 'T' or 'C': the one place that casts to the library's LP64 or ILP64 integers.
 * OZBLAS_ERR_NO_HOST_BLAS without a host BLAS, OZBLAS_ERR_INVALID_ARGUMENT for a
 * dimension an LP64 library cannot take. */
ozblas_status oz_host_gemm(char prec, char transa, char transb, int64_t m, int64_t n, int64_t k,
                           const void *alpha, const void *A, int64_t lda, const void *B,
                           int64_t ldb, const void *beta, void *C, int64_t ldc);

/* cpu_exact.c: the CPU executor's exact-product kernels (oz_executor.exact). */
extern const oz_exact_kernels oz_cpu_exact_kernels;

/* OpenMP threads for an m x n x k product (cplx: complex): opt->threads, or all cores when
 * 0, but one for each OZ_CPU_MIN_ELEMS_PER_THREAD elements of its operands and result at
 * most (a small product runs on the calling thread; cpu_common.c). */
int oz_cpu_threads(const ozblas_options *opt, int64_t m, int64_t n, int64_t k, int cplx);

/* The host threads a whole run may use (opt->threads, or all cores when 0, within
 * threadpoolctl's cap): the LAPACK layer's host work (bulge chase, divide-and-conquer merges)
 * shares it by its own rule, not a product's. */
int oz_cpu_run_threads(const ozblas_options *opt);

/* A parallel loop or region of nt threads with the clauses, or the same statement on the
 * calling thread, outside any parallel region, when nt is 1: libgomp's team of one still
 * wakes its barrier with a futex call, which the LAPACK layer's thousands of small products
 * would pay (oz_cpu_threads). The loop (a for statement) must not ask for its thread's
 * number outside a region: there it is the caller's own team's. */
#define OZ_PRAGMA(x) _Pragma(#x)
#define OZ_CPU_FOR(nt, clauses, ...)                                          \
    do {                                                                       \
        if ((nt) > 1) {                                                        \
            OZ_PRAGMA(omp parallel for num_threads(nt) clauses)                \
            __VA_ARGS__                                                        \
        } else {                                                               \
            __VA_ARGS__                                                        \
        }                                                                      \
    } while (0)
/* C = A^T B (A k x m, B k x n, C m x n with ldc = m), exact small integers in float: the host
 * SGEMM, or a plain dot-product kernel when no host BLAS is loaded. */
void oz_cpu_sgemm_tn(int nt, int64_t m, int64_t n, int64_t k, const float *A, int64_t lda,
                     const float *B, int64_t ldb, float *C);

/* The product engines (cpu_engine.c). OZ_CPU_KBLOCK: the INT8 engine's k-block, exact in
 * FP32 (1024 * 128 * 128 = 2^24). */
#define OZ_CPU_KBLOCK 1024
typedef struct {
    float *LA, *LB; /* FP4: the limb planes of the two operands */
} oz_cpu_engine_work;
/* Workspace for products of k x m by k x n operands with nd limbs; 0 when out of memory. */
int oz_cpu_engine_work_init(oz_cpu_engine_work *w, int engine, int nd, int64_t m, int64_t n,
                            int64_t k);
void oz_cpu_engine_work_free(oz_cpu_engine_work *w);
/* D = X^T Y (X k x m, Y k x n, ld k; D m x n) exactly, for integer-valued X and Y: on the
 * INT8 engine (|values| <= 128) or the FP4 model with nd base-13 limbs per value (|values|
 * <= R_nd, or any value whose product is used modulo 13 with nd = 1). P: m x n scratch. */
void oz_cpu_engine_product(int nt, int engine, int nd, int64_t m, int64_t n, int64_t k,
                           const float *X, const float *Y, float *P, double *D,
                           oz_cpu_engine_work *w);

/* Phase times: each mark adds the time since the previous mark to one ozblas_phase. */
typedef struct {
    double t;
} oz_phase_clock;
static inline void oz_phase_start(oz_phase_clock *k) { k->t = omp_get_wtime(); }
static inline void oz_phase_mark(oz_phase_clock *k, ozblas_report *rep, int phase)
{
    double t = omp_get_wtime();
    rep->phase_seconds[phase] += t - k->t;
    k->t = t;
}

/* What every CPU kernel state starts with: the call, its threads, its phase clock. */
typedef struct {
    const oz_gemm_call *c;
    int nt;
    oz_phase_clock clk;
} oz_cpu_call;
/* A zeroed state of size bytes starting with an oz_cpu_call for c, *run set to it (for the
 * close kernel); NULL when out of memory. */
void *oz_cpu_state(void **run, size_t size, const oz_gemm_call *c, const ozblas_options *opt);

/* The kernels of core/phase_kernels.h (struct oz_kernels documents each): oz_cpu_probe_open,
 * oz_cpu_o2_open, ... */
OZ_DECLARE_KERNELS(oz_cpu_);

#endif
