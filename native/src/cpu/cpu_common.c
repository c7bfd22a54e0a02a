/* Helpers shared by the CPU executor's methods (Ozaki I and Ozaki II). */
#include <omp.h>

#include "cpu_common.h"

int oz_cpu_threads(const ozblas_options *opt)
{
    return opt && opt->threads > 0 ? opt->threads : omp_get_max_threads();
}

void oz_cpu_sgemm_tn(int nt, int64_t m, int64_t n, int64_t k, const float *A, int64_t lda,
                     const float *B, int64_t ldb, float *C)
{
    if (oz_host_sgemm_tn(m, n, k, A, lda, B, ldb, C, m))
        return;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            float s = 0.0f;
            for (int64_t l = 0; l < k; l++)
                s += A[l + i * lda] * B[l + j * ldb];
            C[i + j * m] = s;
        }
}
