/* Helpers shared by the CPU executor's methods (Ozaki I and Ozaki II). */
#ifndef OZ_CPU_COMMON_H
#define OZ_CPU_COMMON_H

#include <stdint.h>

#include "../core/oz_internal.h"

/* OpenMP threads for a call: opt->threads, or all cores when 0. */
int oz_cpu_threads(const ozblas_options *opt);

/* C = A^T B (A k x m, B k x n, C m x n with ldc = m), exact small integers in float: the host
 * SGEMM, or a plain dot-product kernel when no host BLAS is loaded. */
void oz_cpu_sgemm_tn(int nt, int64_t m, int64_t n, int64_t k, const float *A, int64_t lda,
                     const float *B, int64_t ldb, float *C);

/* Automatic precision's per-call data (executor_cpu.c), for Ozaki I's slice count: per
 * row of op(A) / column of op(B) the exponent of the maximum, the smallest nonzero
 * exponent (INT_MAX: none) and the fixed-point 1-norm (numerics/ozaki2.h), and the lower
 * bound product of |A||B| (m x n). bad: Inf or NaN somewhere (nothing else is filled). */
typedef struct {
    int *Ea, *emin_a, *Eb, *emin_b;
    uint64_t *Na, *Nb;
    double *Glo;
    int bad;
} oz_cpu_auto_data;
ozblas_status oz_cpu_auto_data_get(int nt, const oz_gemm_call *c, oz_cpu_auto_data *d);
void oz_cpu_auto_data_free(oz_cpu_auto_data *d);

#endif
