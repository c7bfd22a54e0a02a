/* The CPU executor's product engines (docs/design/engines.md): the exact integer product of
 * two small-integer matrices (residues) on the INT8 engine or on a model of an FP4 (E2M1)
 * matrix unit (numerics/fp4.h).
 *
 * The FP4 model: every operand value is written in base-13 limbs with digits in S, each
 * limb held as its E2M1 value (digit / 2) in FP32, and each pair of limb planes multiplied
 * by the host SGEMM over K-blocks of at most OZ_FP4_MAX_K. Every partial sum is then a
 * multiple of 1/4 below 2^22 in magnitude, so FP32 holds it exactly whatever the order of
 * the additions: the bits are those of an FP4 unit that accumulates in FP32, and do not
 * depend on the thread count. The limb products are combined exactly in FP64 with their
 * weights 4 * 13^(i + j). This costs limbs^2 SGEMMs: a model for bits, not for speed. */
#include <stdlib.h>
#include <string.h>

#include "../numerics/fp4.h"
#include "cpu_common.h"

/* The nd limb planes of the k x cols matrix X (ld k) as E2M1 values: plane i at L + i * k * cols. */
static void fp4_planes(int nt, const float *X, int64_t total, int nd, float *L)
{
    OZ_CPU_FOR(nt, schedule(static),
        for (int64_t e = 0; e < total; e++) {
            int c[OZ_FP4_MAX_LIMBS];
            oz_fp4_limbs((int64_t)X[e], nd, c);
            for (int i = 0; i < nd; i++)
                L[e + i * total] = 0.5f * (float)c[i];
        });
}

void oz_cpu_engine_product(int nt, int engine, int nd, int64_t m, int64_t n, int64_t k,
                           const float *X, const float *Y, float *P, double *D,
                           oz_cpu_engine_work *w)
{
    const int64_t mn = m * n;
    if (engine != OZ2_ENGINE_FP4) {
        for (int64_t l0 = 0; l0 < k; l0 += OZ_CPU_KBLOCK) {
            int64_t kb = k - l0 < OZ_CPU_KBLOCK ? k - l0 : OZ_CPU_KBLOCK;
            oz_cpu_sgemm_tn(nt, m, n, kb, X + l0, k, Y + l0, k, P);
            OZ_CPU_FOR(nt, schedule(static),
                for (int64_t e = 0; e < mn; e++)
                    D[e] = l0 ? D[e] + P[e] : P[e];);
        }
        return;
    }
    fp4_planes(nt, X, k * m, nd, w->LA);
    fp4_planes(nt, Y, k * n, nd, w->LB);
    for (int64_t l0 = 0; l0 < k; l0 += OZ_FP4_MAX_K) {
        int64_t kb = k - l0 < OZ_FP4_MAX_K ? k - l0 : OZ_FP4_MAX_K;
        for (int i = 0; i < nd; i++)
            for (int j = 0; j < nd; j++) {
                oz_cpu_sgemm_tn(nt, m, n, kb, w->LA + i * k * m + l0, k, w->LB + j * k * n + l0,
                                k, P);
                const double wt = oz_fp4_weight(i, j);
                const int first = l0 == 0 && i == 0 && j == 0;
                /* exact: |4 P| < 144 K <= 2^24, times 13^4 at most, summed below 2^53 */
                OZ_CPU_FOR(nt, schedule(static),
                    for (int64_t e = 0; e < mn; e++)
                        D[e] = first ? wt * P[e] : D[e] + wt * P[e];);
            }
    }
}

int oz_cpu_engine_work_init(oz_cpu_engine_work *w, int engine, int nd, int64_t m, int64_t n,
                            int64_t k)
{
    memset(w, 0, sizeof *w);
    if (engine != OZ2_ENGINE_FP4)
        return 1;
    w->LA = oz_malloc(sizeof(float) * nd * k * m);
    w->LB = oz_malloc(sizeof(float) * nd * k * n);
    return w->LA && w->LB;
}

void oz_cpu_engine_work_free(oz_cpu_engine_work *w)
{
    free(w->LA);
    free(w->LB);
    memset(w, 0, sizeof *w);
}

ozblas_status ozblas_engine_gemm_int8(int engine, int64_t m, int64_t n, int64_t k,
                                      const int8_t *A, int64_t lda, const int8_t *B,
                                      int64_t ldb, int32_t *C, int64_t ldc)
{
    /* INT32 holds k products of magnitude <= 2^14 exactly while k <= 2^17 */
    if ((engine != OZ2_ENGINE_INT8 && engine != OZ2_ENGINE_FP4) || m < 0 || n < 0 || k < 0 ||
        k > (1 << 17) || lda < (k > 1 ? k : 1) || ldb < (k > 1 ? k : 1) ||
        ldc < (m > 1 ? m : 1) || (m * n * k && (!A || !B || !C)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    if (!m || !n)
        return OZBLAS_OK;
    const int nt = oz_cpu_threads(NULL, m, n, k, 0), nd = OZ_FP4_MAX_LIMBS;
    float *X = oz_malloc(sizeof(float) * (k * m + 1)), *Y = oz_malloc(sizeof(float) * (k * n + 1));
    float *P = oz_malloc(sizeof(float) * m * n);
    double *D = oz_malloc(sizeof(double) * m * n);
    oz_cpu_engine_work w;
    int ok = oz_cpu_engine_work_init(&w, engine, nd, m, n, k) && X && Y && P && D;
    if (ok) {
        for (int64_t q = 0; q < m; q++)
            for (int64_t l = 0; l < k; l++)
                X[l + q * k] = A[l + q * lda];
        for (int64_t q = 0; q < n; q++)
            for (int64_t l = 0; l < k; l++)
                Y[l + q * k] = B[l + q * ldb];
        if (k)
            oz_cpu_engine_product(nt, engine, nd, m, n, k, X, Y, P, D, &w);
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++)
                C[i + j * ldc] = k ? (int32_t)D[i + j * m] : 0;
    }
    oz_cpu_engine_work_free(&w);
    free(X);
    free(Y);
    free(P);
    free(D);
    return ok ? OZBLAS_OK : OZBLAS_ERR_ALLOCATION;
}
