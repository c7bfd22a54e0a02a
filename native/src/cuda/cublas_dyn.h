/* cuBLAS opened at run time (dlopen): no cuBLAS header or library is needed to build.
 *
 * The few types, enum values and entry points used are declared here by hand. The values
 * are the cuBLAS / CUDA ABI values (cublas_api.h and library_types.h, CUDA 11 to 13):
 *   cublasOperation_t   CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2
 *   cudaDataType        CUDA_R_64F = 1, CUDA_R_8I = 3, CUDA_C_64F = 5, CUDA_R_32I = 10
 *   cublasComputeType_t CUBLAS_COMPUTE_32I = 72 (signed 32-bit int, default)
 *   cublasGemmAlgo_t    CUBLAS_GEMM_DEFAULT = -1
 *   cublasMath_t        CUBLAS_DEFAULT_MATH = 0
 *   libraryPropertyType MAJOR_VERSION = 0, MINOR_VERSION = 1, PATCH_LEVEL = 2
 *   cublasStatus_t      CUBLAS_STATUS_SUCCESS = 0
 * The data-type values are also checked at compile time against the toolkit's
 * library_types.h (part of the CUDA runtime headers, not of cuBLAS).
 */
#ifndef OZ_CUBLAS_DYN_H
#define OZ_CUBLAS_DYN_H

#include <stddef.h>
#include <stdint.h>

#ifdef OZ_CUDA_EMU
#include "cuda_emu.h" /* tests/cuda/emu: the CPU emulation (tests without a GPU) */
#else
#include <cuda_runtime.h>
#endif

typedef struct oz_cublas_context *oz_cublas_handle; /* cublasHandle_t: opaque pointer */
typedef int oz_cublas_status;                       /* cublasStatus_t */

enum {
    OZ_CUBLAS_STATUS_SUCCESS = 0,
    OZ_CUBLAS_OP_N = 0,
    OZ_CUBLAS_OP_T = 1,
    OZ_CUBLAS_OP_C = 2,
    OZ_CUDA_R_64F = 1,
    OZ_CUDA_R_8I = 3,
    OZ_CUDA_C_64F = 5,
    OZ_CUDA_R_32I = 10,
    OZ_CUBLAS_COMPUTE_32I = 72,
    OZ_CUBLAS_GEMM_DEFAULT = -1,
    OZ_CUBLAS_DEFAULT_MATH = 0,
    OZ_LIB_MAJOR_VERSION = 0,
    OZ_LIB_MINOR_VERSION = 1,
    OZ_LIB_PATCH_LEVEL = 2
};

typedef oz_cublas_status (*oz_cublasCreate_t)(oz_cublas_handle *);
typedef oz_cublas_status (*oz_cublasDestroy_t)(oz_cublas_handle);
typedef oz_cublas_status (*oz_cublasSetStream_t)(oz_cublas_handle, cudaStream_t);
typedef oz_cublas_status (*oz_cublasSetMathMode_t)(oz_cublas_handle, int);
typedef oz_cublas_status (*oz_cublasGetVersion_t)(oz_cublas_handle, int *);
typedef oz_cublas_status (*oz_cublasGetProperty_t)(int, int *);
typedef oz_cublas_status (*oz_cublasGemmEx_t)(oz_cublas_handle, int, int, int, int, int,
                                              const void *, const void *, int, int,
                                              const void *, int, int, const void *, void *,
                                              int, int, int, int);
typedef oz_cublas_status (*oz_cublasGemmEx64_t)(oz_cublas_handle, int, int, int64_t, int64_t,
                                                int64_t, const void *, const void *, int,
                                                int64_t, const void *, int, int64_t,
                                                const void *, void *, int, int64_t, int, int);
/* cublasGemmStridedBatchedEx and _64 (strides long long; the batch count int or int64_t) */
typedef oz_cublas_status (*oz_cublasGemmSBEx_t)(oz_cublas_handle, int, int, int, int, int,
                                                const void *, const void *, int, int,
                                                long long, const void *, int, int, long long,
                                                const void *, void *, int, int, long long, int,
                                                int, int);
typedef oz_cublas_status (*oz_cublasGemmSBEx64_t)(oz_cublas_handle, int, int, int64_t, int64_t,
                                                  int64_t, const void *, const void *, int,
                                                  int64_t, long long, const void *, int, int64_t,
                                                  long long, const void *, void *, int, int64_t,
                                                  long long, int64_t, int, int);
typedef oz_cublas_status (*oz_cublasDgemm_t)(oz_cublas_handle, int, int, int, int, int,
                                             const double *, const double *, int,
                                             const double *, int, const double *, double *,
                                             int);
typedef oz_cublas_status (*oz_cublasDgemm64_t)(oz_cublas_handle, int, int, int64_t, int64_t,
                                               int64_t, const double *, const double *,
                                               int64_t, const double *, int64_t,
                                               const double *, double *, int64_t);
/* cuDoubleComplex is two doubles; passed as void pointers. */
typedef oz_cublas_status (*oz_cublasZgemm_t)(oz_cublas_handle, int, int, int, int, int,
                                             const void *, const void *, int, const void *,
                                             int, const void *, void *, int);
typedef oz_cublas_status (*oz_cublasZgemm64_t)(oz_cublas_handle, int, int, int64_t, int64_t,
                                               int64_t, const void *, const void *, int64_t,
                                               const void *, int64_t, const void *, void *,
                                               int64_t);

typedef struct {
    void *lib;
    char path[512];
    int version; /* major * 10000 + minor * 100 + patch, 0 if unknown */
    oz_cublasCreate_t create;
    oz_cublasDestroy_t destroy;
    oz_cublasSetStream_t set_stream;
    oz_cublasSetMathMode_t set_math_mode; /* may be NULL */
    oz_cublasGetVersion_t get_version;    /* may be NULL */
    oz_cublasGemmEx_t gemm_ex;
    oz_cublasDgemm_t dgemm;
    oz_cublasZgemm_t zgemm;
    oz_cublasGemmEx64_t gemm_ex_64; /* 64-bit-integer API (cuBLAS >= 12); may be NULL */
    oz_cublasDgemm64_t dgemm_64;
    oz_cublasZgemm64_t zgemm_64;
    oz_cublasGemmSBEx_t gemm_sb_ex;       /* batched INT8 products; may be NULL */
    oz_cublasGemmSBEx64_t gemm_sb_ex_64;  /* may be NULL */
} oz_cublas;

/* Opens cuBLAS once (thread-safe). Returns NULL and a reason in why (if why_len > 0)
 * when none could be opened. Search order: $OZBLAS_CUBLAS_LIB (a path; when set, nothing
 * else is tried), an already loaded libcublas.so*, the NVIDIA wheels in the site-packages
 * that holds libozblas (nvidia/cublas/lib, nvidia/cu13/lib), $CUDA_HOME/lib64, then the
 * plain names libcublas.so.13, libcublas.so.12, libcublas.so. */
const oz_cublas *oz_cublas_get(char *why, size_t why_len);

/* ---- cuBLASLt (the FP4 engine's block-scaled matmul, cuda_fp4.cu; the INT8 products'
 * cached algorithms, cuda_native.cu) -------------------------------------------------------------
 * Opened at run time like cuBLAS. ABI values (cublasLt.h, library_types.h, CUDA 12.8 to 13):
 *   cudaDataType                     CUDA_R_32F = 0, CUDA_R_4F_E2M1 = 33
 *   cublasComputeType_t              CUBLAS_COMPUTE_32F = 68
 *   cublasLtMatmulDescAttributes_t   TRANSA = 3, TRANSB = 4, A_SCALE_POINTER = 17,
 *                                    B_SCALE_POINTER = 18, A_SCALE_MODE = 31, B_SCALE_MODE = 32
 *   cublasLtMatmulMatrixScale_t      VEC16_UE4M3 = 1 (one UE4M3 scale per 16 elements along k)
 * FP4 block scaling needs cuBLASLt 12.8 or newer (OZ_CUBLASLT_FP4_VERSION). */
typedef struct oz_cublaslt_ctx *oz_cublaslt_handle;
typedef struct oz_cublaslt_desc_s *oz_cublaslt_matmul_desc;
typedef struct oz_cublaslt_layout_s *oz_cublaslt_layout;
typedef struct oz_cublaslt_pref_s *oz_cublaslt_pref;
/* cublasLtMatmulAlgo_t and cublasLtMatmulHeuristicResult_t (cublasLt.h, CUDA 11 to 13) */
typedef struct {
    uint64_t data[8];
} oz_cublaslt_algo;
typedef struct {
    oz_cublaslt_algo algo;
    size_t workspace; /* bytes the algorithm needs */
    oz_cublas_status state;
    float waves;
    int reserved[4];
} oz_cublaslt_heuristic;

enum {
    OZ_CUDA_R_32F = 0,
    OZ_CUDA_R_4F_E2M1 = 33,
    OZ_CUBLAS_COMPUTE_32F = 68,
    OZ_CUBLASLT_DESC_TRANSA = 3,
    OZ_CUBLASLT_DESC_TRANSB = 4,
    OZ_CUBLASLT_DESC_A_SCALE_POINTER = 17,
    OZ_CUBLASLT_DESC_B_SCALE_POINTER = 18,
    OZ_CUBLASLT_DESC_A_SCALE_MODE = 31,
    OZ_CUBLASLT_DESC_B_SCALE_MODE = 32,
    OZ_CUBLASLT_SCALE_VEC16_UE4M3 = 1,
    OZ_CUBLASLT_FP4_VERSION = 120800,
    /* the INT8 products' cached algorithms (cuda_native.cu): cublasLtMatmulPreferenceAttributes_t
     * MAX_WORKSPACE_BYTES (uint64_t) and MIN_ALIGNMENT_{A,B,C,D}_BYTES (uint32_t, default
     * 256), cublasLtMatrixLayoutAttribute_t BATCH_COUNT (int32_t) and STRIDED_BATCH_OFFSET
     * (int64_t) */
    OZ_CUBLASLT_PREF_MAX_WORKSPACE_BYTES = 1,
    OZ_CUBLASLT_PREF_MIN_ALIGNMENT_A_BYTES = 5,
    OZ_CUBLASLT_PREF_MIN_ALIGNMENT_B_BYTES = 6,
    OZ_CUBLASLT_PREF_MIN_ALIGNMENT_C_BYTES = 7,
    OZ_CUBLASLT_PREF_MIN_ALIGNMENT_D_BYTES = 8,
    OZ_CUBLASLT_LAYOUT_BATCH_COUNT = 5,
    OZ_CUBLASLT_LAYOUT_STRIDED_BATCH_OFFSET = 6
};

typedef struct {
    void *lib;
    char path[512];
    size_t version; /* cublasLtGetVersion: major * 10000 + minor * 100 + patch */
    oz_cublas_status (*create)(oz_cublaslt_handle *);
    oz_cublas_status (*destroy)(oz_cublaslt_handle);
    oz_cublas_status (*desc_create)(oz_cublaslt_matmul_desc *, int compute, int scale_type);
    oz_cublas_status (*desc_destroy)(oz_cublaslt_matmul_desc);
    oz_cublas_status (*desc_set)(oz_cublaslt_matmul_desc, int attr, const void *buf, size_t size);
    oz_cublas_status (*layout_create)(oz_cublaslt_layout *, int type, uint64_t rows,
                                      uint64_t cols, int64_t ld);
    oz_cublas_status (*layout_destroy)(oz_cublaslt_layout);
    /* algo NULL: cuBLASLt's own heuristic */
    oz_cublas_status (*matmul)(oz_cublaslt_handle, oz_cublaslt_matmul_desc, const void *alpha,
                               const void *A, oz_cublaslt_layout, const void *B,
                               oz_cublaslt_layout, const void *beta, const void *C,
                               oz_cublaslt_layout, void *D, oz_cublaslt_layout, const void *algo,
                               void *ws, size_t ws_size, cudaStream_t);
    /* for the INT8 products' cached algorithms; any may be NULL (then cublasGemmEx) */
    oz_cublas_status (*layout_set)(oz_cublaslt_layout, int attr, const void *buf, size_t size);
    oz_cublas_status (*pref_create)(oz_cublaslt_pref *);
    oz_cublas_status (*pref_destroy)(oz_cublaslt_pref);
    oz_cublas_status (*pref_set)(oz_cublaslt_pref, int attr, const void *buf, size_t size);
    oz_cublas_status (*heuristic)(oz_cublaslt_handle, oz_cublaslt_matmul_desc,
                                  oz_cublaslt_layout A, oz_cublaslt_layout B,
                                  oz_cublaslt_layout C, oz_cublaslt_layout D, oz_cublaslt_pref,
                                  int requested, oz_cublaslt_heuristic *results, int *returned);
} oz_cublaslt;

/* Opens cuBLASLt once (thread-safe), after cuBLAS (of which it is a dependency): the
 * libcublasLt.so* already loaded, else the one beside the opened libcublas, else the plain
 * names libcublasLt.so.13, .12, .so. NULL and the reason in why when none opens. */
const oz_cublaslt *oz_cublaslt_get(char *why, size_t why_len);

#endif
