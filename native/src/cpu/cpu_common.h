/* The CPU executor's parts: its phase kernels (cpu_ozaki2.c: automatic precision's probe and
 * Ozaki II; cpu_ozaki1.c: Ozaki I), collected into its kernel table by cpu_executor.c, and
 * the helpers they share (cpu_common.c). */
#ifndef OZ_CPU_COMMON_H
#define OZ_CPU_COMMON_H

#include <omp.h>
#include <stdint.h>

#include "../core/phase_kernels.h"

/* OpenMP threads for a call: opt->threads, or all cores when 0. */
int oz_cpu_threads(const ozblas_options *opt);

/* C = A^T B (A k x m, B k x n, C m x n with ldc = m), exact small integers in float: the host
 * SGEMM, or a plain dot-product kernel when no host BLAS is loaded. */
void oz_cpu_sgemm_tn(int nt, int64_t m, int64_t n, int64_t k, const float *A, int64_t lda,
                     const float *B, int64_t ldb, float *C);

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

/* The kernels of core/phase_kernels.h (struct oz_kernels documents each). */
ozblas_status oz_cpu_probe_open(const oz_gemm_call *c, const ozblas_options *opt,
                                int bound_product, void **probe, int *bad, int *products);
ozblas_status oz_cpu_probe_bits(void *probe, const oz2_table *T);
ozblas_status oz_cpu_probe_ratio(void *probe, int beta, int count, double *ratio);
void oz_cpu_probe_sides(void *probe, oz_side *a, oz_side *b);
void oz_cpu_probe_close(void *probe);
ozblas_status oz_cpu_o2_open(const oz_gemm_call *c, const ozblas_options *opt,
                             const oz2_table *T, void *probe, void **run, int *bad, oz_side *a,
                             oz_side *b, ozblas_report *rep);
ozblas_status oz_cpu_o2_products(void *run, ozblas_report *rep);
void oz_cpu_o2_close(void *run);
ozblas_status oz_cpu_o1_open(const oz_gemm_call *c, const ozblas_options *opt, int s, int beta,
                             void **run, int *bad, int *lost, oz_side *a, oz_side *b,
                             ozblas_report *rep);
ozblas_status oz_cpu_o1_products(void *run, int chunk, int terms, ozblas_report *rep);
void oz_cpu_o1_close(void *run);

#endif
