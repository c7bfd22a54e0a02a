/* ozblas: the one public C API.
 *
 * FP64 matrix products (DGEMM, ZGEMM) emulated with the Ozaki schemes on integer
 * matrix units, or computed natively. Column-major, BLAS argument conventions.
 *
 * The block between OZBLAS_CDEF_BEGIN and OZBLAS_CDEF_END is read verbatim by the
 * Python binding (cffi ABI mode), so it holds plain C declarations only: no macros,
 * no preprocessor lines, no C99 complex types.
 */
#ifndef OZBLAS_H
#define OZBLAS_H

#include <stdint.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* OZBLAS_CDEF_BEGIN */

/* Status codes returned by every call. ozblas_status_name() gives the enum's name,
 * ozblas_status_message() a sentence. */
typedef enum {
    OZBLAS_OK = 0,                     /* success */
    OZBLAS_ERR_INVALID_ARGUMENT = 1,   /* a BLAS argument or option is out of range */
    OZBLAS_ERR_ALLOCATION = 2,         /* host workspace could not be allocated */
    OZBLAS_ERR_NO_HOST_BLAS = 3,       /* no host DGEMM/ZGEMM was found among loaded objects */
    OZBLAS_ERR_EXECUTOR_UNAVAILABLE = 4, /* the executor asked for is not built or has no device */
    OZBLAS_ERR_DEVICE = 5,             /* the device (CUDA, cuBLAS) reported an error */
    OZBLAS_ERR_INTERNAL = 6            /* an invariant failed: a bug, please report it */
} ozblas_status;

/* How a product is computed. */
typedef enum {
    OZBLAS_METHOD_AUTO = 0,    /* the policy chooses (ozblas_policy_decide; report.fallback
                                  says OZBLAS_FALLBACK_AUTO_NATIVE when it took native) */
    OZBLAS_METHOD_NATIVE = 1,  /* the real FP64 GEMM of the executor (host BLAS or cuBLAS) */
    OZBLAS_METHOD_OZAKI1 = 2,  /* Ozaki scheme I (INT8 slices of the row-aligned significands) */
    OZBLAS_METHOD_OZAKI2 = 3   /* Ozaki scheme II (residues modulo pairwise-coprime moduli, CRT) */
} ozblas_method;

/* How Ozaki II bounds |A'||B'| to choose the scaling. */
typedef enum {
    OZBLAS_SCALING_ACCURATE = 0, /* one extra small-integer product of rounded-up |A|,|B| */
    OZBLAS_SCALING_FAST = 1      /* Cauchy-Schwarz bound per row of A and column of B */
} ozblas_scaling;

/* The unit the schemes' exact integer products run on (docs/design/engines.md). */
typedef enum {
    OZBLAS_ENGINE_INT8 = 0, /* INT8 x INT8 -> INT32 */
    OZBLAS_ENGINE_FP4 = 1   /* FP4 E2M1 x E2M1 -> FP32 on base-13 limbs (both schemes) */
} ozblas_engine;

/* How Ozaki I cuts and accumulates slices. */
typedef enum {
    OZBLAS_OZAKI1_BITMASK = 0, /* ozIMMU: beta-bit cuts of the row-aligned significand, triangle
                                  i + j <= s + 1, each INT32 product accumulated in FP64 */
    OZBLAS_OZAKI1_RN = 1,      /* round-to-nearest slices (magic constant), per-slice scales */
    OZBLAS_OZAKI1_EF = 2,      /* bitmask slices, each group i + j = g summed exactly in INT32 */
    OZBLAS_OZAKI1_HYBRID = 3   /* RN slices with one fixed scale per row, groups as in EF */
} ozblas_ozaki1_variant;

/* Where the work runs. */
typedef enum {
    OZBLAS_EXECUTOR_AUTO = 0,  /* CUDA when present and usable, otherwise the CPU */
    OZBLAS_EXECUTOR_CPU = 1,   /* host threads; integer products through the host BLAS */
    OZBLAS_EXECUTOR_CUDA = 2   /* INT8 tensor cores through cuBLAS (built when nvcc was found) */
} ozblas_executor;

/* Why an emulated call was computed natively instead. */
typedef enum {
    OZBLAS_FALLBACK_NONE = 0,           /* no fallback: the method asked for was used */
    OZBLAS_FALLBACK_NONFINITE = 1,      /* Inf or NaN in A or B: native gives IEEE semantics */
    OZBLAS_FALLBACK_EXPONENT_RANGE = 2, /* a nonzero element would be lost entirely by the scaling */
    OZBLAS_FALLBACK_TOO_LARGE_K = 3,    /* k beyond what the scaling bounds can hold (2^28) */
    OZBLAS_FALLBACK_AUTO_NATIVE = 4,    /* method auto chose native */
    OZBLAS_FALLBACK_NOT_IMPLEMENTED = 5, /* the method asked for is not implemented in this build */
    OZBLAS_FALLBACK_ACCURACY = 6,       /* automatic precision: no count up to the maximum
                                           meets DGEMM-level accuracy for these inputs */
    OZBLAS_FALLBACK_ENGINE = 7,         /* the product engine asked for is not available on
                                           this executor or device (ozblas_engine_available
                                           says why) */
    OZBLAS_FALLBACK_ALLOCATION = 8      /* a workspace (host or device) could not be
                                           allocated: the whole product computed natively */
} ozblas_fallback;

/* What the result promises (ozblas_options.accuracy). */
typedef enum {
    OZBLAS_ACCURACY_DGEMM = 0,  /* DGEMM-level: the error of a native DGEMM or less */
    OZBLAS_ACCURACY_CORRECT = 1, /* every entry of op(A) op(B) is the exact product rounded once
                                   (to nearest, ties to even; subnormal and overflowing results
                                   included), then alpha and beta applied as BLAS does:
                                   alpha * p + beta * c, each operation rounded. Computed by the
                                   exact products below (Ozaki II on the host DGEMM, exact dot
                                   products where that cannot hold a row); needs method auto or
                                   ozaki2 with automatic moduli, host operands */
    OZBLAS_ACCURACY_DOUBLE_DOUBLE = 2 /* reported only (not an option): the double-double
                                         products ozblas_dgemm_dd/zgemm_dd, the exact product
                                         rounded once to hi + lo (bound 2^-106) */
} ozblas_accuracy;

/* Automatic precision's target (ozblas_options.target): what "the fewest moduli (slices)
 * meeting the target" means. Not read from the environment: user-level products keep the
 * entrywise target; the LAPACK layer's Householder products (QR, ormqr, the eigensolvers'
 * reductions and back-transformations) set normwise for their own calls. */
typedef enum {
    OZBLAS_TARGET_ENTRYWISE = 0, /* |C^ - C|_ij <= u (|A||B|)_ij before the final rounding
                                    (DGEMM-level, below) */
    OZBLAS_TARGET_NORMWISE = 1   /* |C^ - C|_ij <= u ||a_i||_2 ||b_j||_2 (row i of op(A),
                                    column j of op(B)), so that ||C^(:,j) - C(:,j)||_2 <=
                                    u ||op(A)||_F ||op(B)(:,j)||_2 (numerics/ozaki2.h "the
                                    normwise target": what a Householder application's
                                    backward error needs) */
} ozblas_target;

/* The phases of an emulated call: indices of ozblas_report.phase_seconds. An executor that
 * fuses phases into one kernel reports its time under the first phase it covers and zero
 * for the others (calibration fits the sum). */
typedef enum {
    OZBLAS_PHASE_STATS = 0,        /* Ozaki II: statistics, scaling bounds, automatic precision;
                                      Ozaki I: unused */
    OZBLAS_PHASE_SPLIT = 1,        /* Ozaki II: scaling and residues; Ozaki I: statistics and slices */
    OZBLAS_PHASE_INT_PRODUCTS = 2, /* the exact integer products */
    OZBLAS_PHASE_REDUCTION = 3,    /* Ozaki II: modular reduction; Ozaki I: slice product
                                      conversion and exact block sums */
    OZBLAS_PHASE_FINAL = 4,        /* Ozaki II: CRT and the BLAS update; Ozaki I: FP64
                                      accumulation and the BLAS update */
    OZBLAS_PHASE_COUNT = 5
} ozblas_phase;

/* Per-call options. ozblas_options_init() fills the defaults; ozblas_options_from_env()
 * fills them from the OZBLAS_* environment variables. */
typedef struct {
    int method;     /* an ozblas_method */
    int moduli;     /* Ozaki II moduli count, 2..49 (engine int8) or 2..28 (fp4), or 0:
                       automatic (the fewest moduli whose error bound for the inputs of the
                       call is DGEMM-level) */
    int scaling;    /* an ozblas_scaling */
    int executor;   /* an ozblas_executor */
    int device;     /* CUDA device ordinal for OZBLAS_EXECUTOR_CUDA (cuda:N), 0..1023 */
    int threads;    /* CPU executor threads, 1..4096; 0 = all cores */
    int slices;     /* Ozaki I slice count, 2..40 */
    int ozaki1_variant; /* an ozblas_ozaki1_variant */
    void *stream;   /* CUDA executor: the cudaStream_t to run on (NULL = the legacy default
                       stream); the call returns after the work on it has finished */
    int accuracy;   /* an ozblas_accuracy */
    int engine;     /* an ozblas_engine: the unit the integer products run on */
    uint64_t devices; /* several GPUs for OZBLAS_EXECUTOR_CUDA (cuda:all, cuda:0,2,3): bit d
                         for device d (UINT64_MAX: every usable device), device = the first;
                         each call is spread over them as tiles of C (docs/distributed.md);
                         0: device alone */
    int target;     /* an ozblas_target: automatic precision's (0, entrywise, by default) */
} ozblas_options;

/* What a call actually did. */
typedef struct {
    int method;      /* the ozblas_method used (NATIVE after a fallback) */
    int moduli;      /* moduli used by Ozaki II, 0 otherwise */
    int slices;      /* slices used by Ozaki I, 0 otherwise */
    int ozaki1_variant; /* the ozblas_ozaki1_variant used by Ozaki I */
    int scaling;     /* the ozblas_scaling used by Ozaki II */
    int executor;    /* the ozblas_executor that ran it */
    int fallback;    /* an ozblas_fallback: why an emulated call went native */
    int int_gemms;   /* integer matrix products issued (k-blocks counted once) */
    int fp64_passes; /* elementwise FP64 accumulation passes over C */
    int max_bits_a;  /* largest number of bits kept per row of op(A) (alpha_i) */
    int min_bits_a;  /* smallest number of bits kept per row of op(A) */
    int max_bits_b;  /* same for the columns of op(B) */
    int min_bits_b;
    double seconds;  /* wall time of the call */
    double bound;    /* automatic precision: bound of max_ij |C^ - op(A)op(B)|_ij / (|op(A)||op(B)|)_ij
                        (target normwise: over ||a_i||_2 ||b_j||_2, row and column norms)
                        before alpha and beta are applied (the count's, or the maximum count's
                        after an ACCURACY fallback); -1 when not computed (a fixed count, or
                        any other fallback) */
    int engine;      /* the ozblas_engine of the integer products (emulated calls) */
    int engine_products; /* matrix products issued on the engine for the residue products
                            (INT8: one per residue product; FP4: limbs^2 per residue product) */
    double phase_seconds[5]; /* seconds per ozblas_phase (OZBLAS_PHASE_COUNT of them;
                                device-event timed on CUDA; zeros when not measured) */
    int accuracy;    /* the ozblas_accuracy of the call */
    int64_t direct_entries; /* exact products: entries computed by an exact dot product (rows or
                               columns with Inf/NaN or too wide for the largest count) */
    uint64_t devices_used; /* CUDA executor: bit d for each device that computed part of C
                              (one bit on one device; several with opt->devices) */
    int split_parts; /* automatic precision found no count for the whole call: the part
                        products it was split into by exponent band (core/driver_split.c;
                        moduli/slices then the largest part's count, int_gemms their sum);
                        0: not split */
    int complex_products; /* Ozaki II on complex data: integer products per modulus, 2 (the
                             complex set, ozblas_ozaki2_complex_count), 1 (the complex set
                             on op(A) op(A)^H from one array) or 3 (Karatsuba); 0 otherwise */
} ozblas_report;

/* A context: a handle for state a later version may keep per caller (today it holds none:
 * executors keep their workspaces per thread and device). Thread-safe: several threads may
 * use one context at once. */
typedef struct ozblas_context ozblas_context;

ozblas_status ozblas_context_create(ozblas_context **ctx);
void ozblas_context_destroy(ozblas_context *ctx);

void ozblas_options_init(ozblas_options *opt);
/* Reads OZBLAS_METHOD, OZBLAS_MODULI, OZBLAS_SCALING, OZBLAS_SLICES, OZBLAS_OZAKI1_VARIANT,
 * OZBLAS_DEVICE, OZBLAS_NUM_THREADS.
 * On a bad value returns OZBLAS_ERR_INVALID_ARGUMENT and writes a message naming the
 * variable, the value and the accepted values into err (if err_len > 0); opt keeps defaults. */
ozblas_status ozblas_options_from_env(ozblas_options *opt, char *err, size_t err_len);
/* Options that cannot go together (a moduli count beyond the engine's; accuracy correct with
 * method native or ozaki1, a moduli or slices count, or engine fp4): OZBLAS_ERR_INVALID_ARGUMENT
 * and a message in err (if err_len > 0) naming each setting as OZBLAS_<NAME>='value';
 * ozblas_options_from_env, every call, `ozblas run` and the Python API check it. */
ozblas_status ozblas_options_conflict(const ozblas_options *opt, char *err, size_t err_len);

/* ---- Configuration (core/config.c): every OZBLAS_* variable, parsed in one place ----------
 * One row per variable; the Python package reads them from here (ozblas.config). */
/* The kind of value a variable takes. */
typedef enum {
    OZBLAS_SETTING_TOKEN = 0,  /* one of the names the accepted text lists */
    OZBLAS_SETTING_INT = 1,    /* an integer in bounds (for counts also "auto", meaning 0) */
    OZBLAS_SETTING_SWITCH = 2, /* 0 or 1 */
    OZBLAS_SETTING_DEVICE = 3, /* auto, cpu, cuda or cuda:N */
    OZBLAS_SETTING_PATH = 4,   /* a path (OZBLAS_TRACE also "-") */
    OZBLAS_SETTING_ROUTINES = 5 /* a list of routines (OZBLAS_ROUTINES) */
} ozblas_setting_kind;

typedef struct {
    const char *name;          /* "OZBLAS_METHOD", ... */
    const char *keyword;       /* the Python keyword that sets it ("method", ...) */
    int kind;                  /* an ozblas_setting_kind */
    const char *tokens;        /* the names accepted, space separated (NULL: none); a name's
                                  index is its value (counts: "auto" means 0) */
    int64_t lo, hi;            /* bounds of an integer or of N in cuda:N */
    const char *accepted;      /* the accepted values, as a message tells them */
    const char *default_value; /* the value an unset or empty variable means ("": none) */
    const char *meaning;       /* one line */
} ozblas_variable;

/* One parsed value. */
typedef struct {
    int64_t value;   /* the integer; for a named value its index in the accepted list, which
                        is the C enum's value (an ozblas_method, ozblas_scaling,
                        ozblas_ozaki1_variant, ozblas_executor); "auto" counts give 0 */
    int64_t device;  /* OZBLAS_DEVICE: N of cuda:N, the first of a list (0 otherwise) */
    uint64_t devices; /* OZBLAS_DEVICE: cuda:all (UINT64_MAX) or a list (bit d per device d
                         listed); 0 otherwise */
    char text[1024]; /* the value as given; OZBLAS_TRACE: a relative path made absolute */
    uint64_t native_routines[2]; /* OZBLAS_ROUTINES: bit i (of word i / 64) set: routine i
                                    (ozblas_routine_name) left native; all 0: all routed */
} ozblas_setting;

/* The routines ozblas routes (the preload shim's BLAS and LAPACK names, lower case with
 * their d/z prefix: "dgemm", ..., "zgesdd"), which OZBLAS_ROUTINES names; NULL out of range. */
int ozblas_routine_count(void);
const char *ozblas_routine_name(int i);

int ozblas_config_count(void);
/* The i-th variable (0 <= i < count), NULL out of range. */
const ozblas_variable *ozblas_config_variable(int i);
/* Parses the value_len bytes at value (fewer than 4096; no terminating NUL needed) for the
 * variable name (exact: lower-case names, ASCII digits, no spaces, no NUL byte; NULL or
 * length 0 gives the default). label names the value
 * in the message (a keyword such as "moduli"; NULL: the variable). Returns
 * OZBLAS_ERR_INVALID_ARGUMENT for a bad value or an unknown name, with a message naming
 * label, the value and the accepted values in err. */
ozblas_status ozblas_config_parse(const char *name, const char *value, size_t value_len,
                                  const char *label, ozblas_setting *out, char *err,
                                  size_t err_len);

/* C := alpha * op(A) * op(B) + beta * C, column-major, op 'N', 'T' or 'C' (either case).
 * beta == 0 never reads C; alpha == 0 or k == 0 is C := beta C without reading A and B (the
 * reference BLAS's rule, on every method and executor). report may be NULL. */
ozblas_status ozblas_dgemm(ozblas_context *ctx, char transa, char transb,
                           int64_t m, int64_t n, int64_t k,
                           double alpha, const double *A, int64_t lda,
                           const double *B, int64_t ldb,
                           double beta, double *C, int64_t ldc,
                           const ozblas_options *opt, ozblas_report *report);

/* Complex version: matrices are interleaved (re, im) doubles; alpha and beta point to
 * two doubles each (re, im). 'C' conjugates. */
ozblas_status ozblas_zgemm(ozblas_context *ctx, char transa, char transb,
                           int64_t m, int64_t n, int64_t k,
                           const double *alpha, const double *A, int64_t lda,
                           const double *B, int64_t ldb,
                           const double *beta, double *C, int64_t ldc,
                           const ozblas_options *opt, ozblas_report *report);

/* A batch of products of one shape (cuBLAS's strided batched GEMM): for b = 0 .. batch - 1,
 * C_b := alpha * op(A_b) * op(B_b) + beta * C_b, where A_b = A + b * stride_a (strides in
 * elements, complex ones for ZGEMM), B_b and C_b likewise. A stride may be 0 (one A or B
 * for every product) or negative; strides that make the C_b overlap give an unspecified C,
 * as in cuBLAS (never a crash). Every product gives the bits ozblas_dgemm/ozblas_zgemm give
 * it alone with opt, on every executor: the CPU executor runs the products one by one, the
 * CUDA executor runs Ozaki II products as batches (each matrix scaled on its own, the
 * integer products batched), and a product that falls back or needs tiling one by one.
 * batch 0, m or n 0 return at once; a negative batch is OZBLAS_ERR_INVALID_ARGUMENT, as is
 * any argument ozblas_dgemm refuses (checked before anything is computed). On another
 * error the products may be partly computed. report (may be NULL) describes the batch as one
 * call: the first product's report, the largest moduli, slices and bound, bits over all
 * products, the first fallback (with that product's method), int_gemms, engine_products,
 * fp64_passes and phase_seconds summed over the products, seconds of the whole call. */
ozblas_status ozblas_dgemm_batched(ozblas_context *ctx, char transa, char transb,
                                   int64_t m, int64_t n, int64_t k,
                                   double alpha, const double *A, int64_t lda, int64_t stride_a,
                                   const double *B, int64_t ldb, int64_t stride_b,
                                   double beta, double *C, int64_t ldc, int64_t stride_c,
                                   int64_t batch, const ozblas_options *opt,
                                   ozblas_report *report);
/* Complex version: alpha and beta point to two doubles each (re, im). */
ozblas_status ozblas_zgemm_batched(ozblas_context *ctx, char transa, char transb,
                                   int64_t m, int64_t n, int64_t k,
                                   const double *alpha, const double *A, int64_t lda,
                                   int64_t stride_a, const double *B, int64_t ldb,
                                   int64_t stride_b, const double *beta, double *C,
                                   int64_t ldc, int64_t stride_c, int64_t batch,
                                   const ozblas_options *opt, ozblas_report *report);

const char *ozblas_status_name(ozblas_status s);
const char *ozblas_status_message(ozblas_status s);
const char *ozblas_fallback_name(int fallback);
const char *ozblas_version(void);

/* Executors built into this library and whether each can run here. why receives a short
 * reason when it cannot. Returns 1 when usable. */
int ozblas_executor_available(int executor, char *why, size_t why_len);
/* Whether executor (an ozblas_executor, not auto) runs the integer products on engine (an
 * ozblas_engine) on CUDA device device (ignored by the CPU): 1 or 0, why: the reason (on
 * CUDA, FP4 needs a cc 10.x or 12.x device, cuBLASLt 12.8 or newer and its exactness probe,
 * run on the first ask per device, a fraction of a second). Method calls that ask for an
 * engine that is not available fall back with OZBLAS_FALLBACK_ENGINE. */
int ozblas_engine_available(int executor, int engine, int device, char *why, size_t why_len);
/* One line about the CUDA executor: device, compute capability, cuBLAS loaded, or why none. */
const char *ozblas_cuda_describe(void);
/* What this library was compiled with (fixed at build time, whatever the machine it runs
 * on has; ozblas_executor_available says what is usable now). Strings are "" when unknown. */
typedef struct {
    int cuda;               /* 1: the CUDA executor is compiled in */
    char cuda_archs[128];   /* its CUDA architectures as CMake listed them, space separated
                               ("80-real 86-real 89-real 90": SASS for each, PTX for the last) */
    char cuda_version[32];  /* the CUDA toolkit (nvcc) version that compiled it */
    char cuda_source[16];   /* where that toolkit came from: "system" (an installed toolkit)
                               or "wheels" (NVIDIA's compiler wheels, fetched by the build) */
    char cuda_compiler[512]; /* nvcc's path at build time */
    char cuda_note[256];    /* without CUDA: why (no nvcc found, turned off at build time) */
    char c_compiler[64];    /* the C compiler, e.g. "GNU 12.2.0" */
    int native_arch;        /* 1: the C code was compiled for the build machine's CPU
                               (-march=native; OZBLAS_NATIVE_ARCH) */
} ozblas_build_info;
void ozblas_build_get(ozblas_build_info *out);

/* The CUDA device a call with opt would run on: opt->device for OZBLAS_EXECUTOR_CUDA
 * (cuda:N); for OZBLAS_EXECUTOR_AUTO the parallel launcher's rank on this node (the first
 * of OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID, LOCAL_RANK, MPI_LOCALRANKID that is set)
 * modulo the usable devices, else 0. ozblas_dgemm/zgemm run executor auto's calls there. */
int ozblas_device_for(const ozblas_options *opt);
/* Whether the devices of a device list (opt->devices: cuda:all, cuda:0,2,3) exist here:
 * OZBLAS_OK (also for no list), or OZBLAS_ERR_INVALID_ARGUMENT with a message naming the
 * device missing (OZBLAS_ERR_EXECUTOR_UNAVAILABLE: no usable CUDA executor) in err. */
ozblas_status ozblas_devices_check(const ozblas_options *opt, char *err, size_t err_len);

/* Path of the host BLAS library ozblas found (empty if none yet). */
const char *ozblas_host_blas_path(void);

/* Process-wide cap on the CPU executor's threads (threadpoolctl's "ozblas" controller sets
 * it): n > 0 caps every call's count (ozblas_options.threads, or all cores when 0) at n;
 * n <= 0, or n at or above the count of a call with the OZBLAS_* settings
 * (OZBLAS_NUM_THREADS, else all cores), removes the cap. ozblas_get_num_threads() returns
 * the threads such a call would use now, the cap applied. */
void ozblas_set_num_threads(int n);
int ozblas_get_num_threads(void);

/* Ozaki II moduli table, for the reference implementation and the tests (INT8 engine). */
int ozblas_ozaki2_max_moduli(void);
int ozblas_ozaki2_modulus(int index);
/* floor(log2(prod of the first n moduli)) - 1: the bits alpha_i + beta_j may spend. */
int ozblas_ozaki2_budget_bits(int n);
/* The same per product engine (an ozblas_engine; 0 for an unknown one), and the base-13
 * limbs per residue of modulus index on the FP4 engine (0 on INT8, -1 out of range). */
int ozblas_ozaki2_engine_max_moduli(int engine);
int ozblas_ozaki2_engine_auto_hint(int engine); /* automatic precision's first count */
int ozblas_ozaki2_engine_modulus(int engine, int index);
int ozblas_ozaki2_engine_budget_bits(int engine, int n);
int ozblas_ozaki2_engine_limbs(int engine, int index);
/* The complex set (two integer products per modulus instead of Karatsuba's three; moduli
 * 1 (mod 4), numerics/ozaki2.h OZ2_MAX_MODULI_CX): modulus index (0 out of range), its
 * budget at count moduli (-1 out of range), and the count of it a complex call with moduli
 * count n takes on engine (0: Karatsuba on the engine's own set). */
int ozblas_ozaki2_complex_modulus(int index);
int ozblas_ozaki2_complex_budget_bits(int count);
int ozblas_ozaki2_complex_count(int engine, int n);
/* C = A^T B of k x m and k x n INT8 matrices (column-major) into INT32, exactly, through the
 * CPU executor's engine model: OZBLAS_ENGINE_INT8 (FP32 SGEMM on k-blocks) or
 * OZBLAS_ENGINE_FP4 (three base-13 limbs per value, nine limb products, FP32 accumulation
 * in K-blocks of at most 116,508). The seed's INT8-through-FP4 emulation, for the tests. */
ozblas_status ozblas_engine_gemm_int8(int engine, int64_t m, int64_t n, int64_t k,
                                      const int8_t *A, int64_t lda, const int8_t *B,
                                      int64_t ldb, int32_t *C, int64_t ldc);

/* ---- Exact and double-double products (core/exact_gemm.c, numerics/exact.h) -------------
 * op(A) op(B) computed exactly (Ozaki II with an exact integer engine: on the CPU the host
 * DGEMM on residues modulo primes below 2^22 in k-blocks of 2048, on the CUDA executor INT8
 * products on residues modulo odd numbers below 256; CRT in multi-word integers; entries
 * of rows or columns the largest count cannot hold, or holding Inf/NaN, by exact dot products
 * in a long accumulator), then rounded once to a double-double:
 *   hi = RN(P_ij), lo = RN(P_ij - hi),  |hi + lo - P_ij| <= 2^-106 |P_ij| + 2^-1075.
 * No alpha or beta: the pair is the product itself. Inf/NaN in A or B give what the entry's
 * dot product gives under IEEE rules (NaN, or +-Inf with lo = 0); a finite P_ij beyond the
 * double range gives hi = +-Inf, lo = 0. Executor CUDA (or AUTO with A, B, Chi or Clo in
 * device memory) runs on opt->device, with the CPU executor's bits; AUTO with host memory
 * runs on the CPU. opt may be NULL; opt->threads is used on the CPU. report (may be NULL):
 * executor, method OZAKI2, moduli, int_gemms (DGEMMs, or INT8 products), direct_entries,
 * accuracy OZBLAS_ACCURACY_DOUBLE_DOUBLE, bound 2^-106. */
ozblas_status ozblas_dgemm_dd(ozblas_context *ctx, char transa, char transb,
                              int64_t m, int64_t n, int64_t k,
                              const double *A, int64_t lda, const double *B, int64_t ldb,
                              double *Chi, int64_t ldchi, double *Clo, int64_t ldclo,
                              const ozblas_options *opt, ozblas_report *report);
/* Complex version, interleaved (re, im); hi and lo per part. 'C' conjugates. */
ozblas_status ozblas_zgemm_dd(ozblas_context *ctx, char transa, char transb,
                              int64_t m, int64_t n, int64_t k,
                              const double *A, int64_t lda, const double *B, int64_t ldb,
                              double *Chi, int64_t ldchi, double *Clo, int64_t ldclo,
                              const ozblas_options *opt, ozblas_report *report);
/* The exact products' moduli (for the NumPy reference and the tests): how many, the t-th
 * (0 outside), and budget(n) = bitlen(prod of the first n) - 2 (-1 outside); the t-th of
 * the complex family (two products per modulus; 0 outside). */
int ozblas_exact_max_moduli(void);
int ozblas_exact_modulus(int index);
int ozblas_exact_budget_bits(int n);
int ozblas_exact_modulus_cx(int index);

/* The preload shim's call counters (OZBLAS_SUMMARY prints them, ozblas.stats() reads
 * them). One cell per routine, route and detail; counts of this process only (a forked
 * child starts from zero). */
typedef struct {
    const char *routine;  /* "dgemm", "zgemm", "dsyrk", "zsyrk" or "zherk" */
    const char *route;    /* "ozblas": emulated; "fallback": routed, but ozblas computed it
                             natively; "native": passed to the real routine; "quick": a BLAS
                             quick return (nothing to compute) */
    const char *detail;   /* ozblas: "method/executor" (e.g. "ozaki2/cpu"); fallback: the
                             ozblas_fallback_name; native: why (e.g. "below OZBLAS_MIN_SIZE",
                             the trace's reason without the value) */
    uint64_t calls;
    double flops;         /* nominal: 2mnk (DGEMM), 8mnk (ZGEMM), k n(n+1) (DSYRK), 4k n(n+1)
                             (ZSYRK, ZHERK); 0 for argument errors and quick returns */
    double seconds;       /* wall time inside the shim's entry points, of the calls with
                             min(m, n, k) >= OZBLAS_MIN_SIZE (all calls with OZBLAS_TRACE):
                             smaller ones are counted, not timed, to keep passing them
                             through cheap */
    double max_bound;     /* ozblas: the largest automatic-precision bound of these calls
                             (ozblas_report.bound); -1 when none was computed */
    double product_seconds; /* LAPACK routines run by the layer: the time of their products, */
    double host_seconds;    /*   the rest of their time (ozblas_lapack_report's), and */
    double host_flops;      /*   their host routines' flops; 0 elsewhere */
} ozblas_shim_stat;

/* Defined in libozblas_preload.so (not libozblas.so): copies the cells with at least one
 * call into out (at most cap of them) and returns how many there are, so that a call with
 * cap 0 sizes the buffer. Thread-safe; each value is read atomically, the set is not a
 * snapshot of one instant. */
int ozblas_shim_stats(ozblas_shim_stat *out, int cap);

/* ---- LAPACK layer (src/lapack/): blocked factorizations and solves ----------------------
 * LAPACK's semantics (column-major, 'U'/'L', 'N'/'T'/'C', 'N'/'U' diag, either case), with
 * int64_t dimensions and 1-based pivots as LAPACK has them. The O(n^3) part runs through
 * ozblas_dgemm/ozblas_zgemm with opt (method, moduli, executor: the GEMM path's own
 * decision per product); panels and diagonal blocks go to the host LAPACK's own routine
 * (getrf, potrf, trtri, lauum, trsm, trmm, laswp; geqrf, larft, orgqr for QR; gemv in
 * sytrf's panel; sygst/hegst, trsyl on diagonal blocks; found among the loaded objects as
 * the host BLAS is). The matrices are
 * host or device memory (all of them the one or the other; mixed gives
 * OZBLAS_ERR_INVALID_ARGUMENT); with executor CUDA,
 * host matrices are uploaded once for the call where the device has room (report.device).
 * Device blocks for the host routines are copied there and back; laswp runs on the device.
 * ipiv, tau, info and alpha are host memory. OZBLAS_ERR_DEVICE: a device
 * copy failed (uploaded host matrices are then unchanged; the caller's device matrices are
 * not). Complex: interleaved (re, im) doubles, alpha two doubles.
 * The Householder products (QR, ormqr, the eigensolvers' reductions and back-transformations)
 * take automatic precision's normwise target (ozblas_target) whatever opt->target says; the
 * other drivers' products the caller's (entrywise by default).
 * nb: the block size; 0 chooses it: OZBLAS_LAPACK_NB when set, else 256 on the CPU executor
 * and 1024 on the CUDA executor (docs/lapack.md); a size at most nb is one call of
 * the host routine. info: LAPACK's (0, or > 0: the singular pivot, the non-positive-definite
 * minor, the zero diagonal); a bad argument gives OZBLAS_ERR_INVALID_ARGUMENT with info = -i
 * (the argument's position in the LAPACK routine). OZBLAS_ERR_NO_HOST_BLAS: no host LAPACK
 * with these routines is loaded (nothing is changed then; syrk/herk, symm/hemm and
 * syr2k/her2k, products only, need none). report may be NULL. */
typedef struct {
    int64_t nb;             /* block size used */
    int64_t products;       /* GEMM products issued */
    int64_t emulated;       /* of them computed emulated (method not native, no fallback) */
    double flops;           /* nominal flops of the operation (LAPACK's counts, 4x complex) */
    double product_flops;   /* flops of the GEMM products */
    double emulated_flops;  /* flops of the emulated products */
    int method;             /* method of the emulated products (NATIVE when none was) */
    int executor;           /* executor of the products */
    int min_moduli;         /* smallest and largest count (moduli or slices) the emulated */
    int max_moduli;         /*   products took; 0 when none */
    double max_bound;       /* largest automatic-precision bound of the products; -1: none */
    double seconds;         /* wall time */
    int device;             /* where the matrices were during the call: 0 host memory; 1 device
                               copies of host operands, uploaded once and the results copied
                               back once (executor CUDA); 2 the caller's device memory */
    int device_short;       /* 1: host operands on the CUDA executor whose device copies did
                               not fit (docs/lapack.md, "On the GPU"): the host blocked
                               path ran instead, each product staged by the executor */
    int moduli_hist[64];    /* emulated products by count: moduli_hist[c] took c moduli (or
                               slices) */
    double host_flops;      /* flops of the host LAPACK routines on panels and blocks
                               (getrf, potrf, trtri, lauum, trsm/trmm blocks, geqrf, orgqr,
                               larft; LAPACK's counts) and of the eigensolvers' bulge chasing;
                               not sytrf's panel, not the tridiagonal solver (its flops depend
                               on the spectrum) */
    double product_seconds; /* wall time inside the products (monotonic clock around each) */
    double host_seconds;    /* seconds - product_seconds: the host remainder (host routines,
                               copies, the layer's own loops) */
    double panel_seconds;   /* of host_seconds, measured: the host QR/LQ panels and larft
                               (the two-stage reductions: all of stage 1's host work),
                               gehrd's lahr2 */
    double chase_seconds;   /*   stage 2's bulge chasing (eigensolvers, SVD, gelsd) */
    double solver_seconds;  /*   the tridiagonal/bidiagonal solver (stedc, stemr, bdsdc,
                               bdsqr, lalsd), less any products it issues */
    double back_seconds;    /*   the two-stage back-transformations' host work (stage 2's
                               reflectors made explicit blocks; larft: panel_seconds);
                               geev's trevc3, gebak and normalization, gees's trsen and
                               gebak */
    double copy_seconds;    /*   the two-stage drivers' own copies: the matrix into their
                               workspace (its largest element, scaling), the band out of it,
                               the solver's vectors into the outputs (with the first touch
                               of the memory each writes); geev/gees: the scaling, gebal,
                               the reflectors into Z and orghr's shift of them */
    int64_t band;           /* the two-stage reductions' band width (ozblas_lapack_band_width);
                               0 when none ran */
} ozblas_lapack_report;

ozblas_status ozblas_dgetrf(ozblas_context *ctx, int64_t m, int64_t n, double *A, int64_t lda,
                            int64_t *ipiv, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_zgetrf(ozblas_context *ctx, int64_t m, int64_t n, double *A, int64_t lda,
                            int64_t *ipiv, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_dgetrs(ozblas_context *ctx, char trans, int64_t n, int64_t nrhs,
                            const double *A, int64_t lda, const int64_t *ipiv, double *B,
                            int64_t ldb, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_zgetrs(ozblas_context *ctx, char trans, int64_t n, int64_t nrhs,
                            const double *A, int64_t lda, const int64_t *ipiv, double *B,
                            int64_t ldb, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_dgesv(ozblas_context *ctx, int64_t n, int64_t nrhs, double *A, int64_t lda,
                           int64_t *ipiv, double *B, int64_t ldb, int64_t *info, int64_t nb,
                           const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zgesv(ozblas_context *ctx, int64_t n, int64_t nrhs, double *A, int64_t lda,
                           int64_t *ipiv, double *B, int64_t ldb, int64_t *info, int64_t nb,
                           const ozblas_options *opt, ozblas_lapack_report *report);
/* getrs and getri take getrf's pivots: an ipiv entry outside 1..n gives
 * OZBLAS_ERR_INVALID_ARGUMENT with info = -(ipiv's position: 6, 4), nothing changed (LAPACK
 * does not check them). getri: A (the getrf factors) becomes inv(A); workspace is allocated
 * inside. */
ozblas_status ozblas_dgetri(ozblas_context *ctx, int64_t n, double *A, int64_t lda,
                            const int64_t *ipiv, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zgetri(ozblas_context *ctx, int64_t n, double *A, int64_t lda,
                            const int64_t *ipiv, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_dpotrf(ozblas_context *ctx, char uplo, int64_t n, double *A, int64_t lda,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_zpotrf(ozblas_context *ctx, char uplo, int64_t n, double *A, int64_t lda,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_dpotrs(ozblas_context *ctx, char uplo, int64_t n, int64_t nrhs,
                            const double *A, int64_t lda, double *B, int64_t ldb, int64_t *info,
                            int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zpotrs(ozblas_context *ctx, char uplo, int64_t n, int64_t nrhs,
                            const double *A, int64_t lda, double *B, int64_t ldb, int64_t *info,
                            int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_dposv(ozblas_context *ctx, char uplo, int64_t n, int64_t nrhs, double *A,
                           int64_t lda, double *B, int64_t ldb, int64_t *info, int64_t nb,
                           const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zposv(ozblas_context *ctx, char uplo, int64_t n, int64_t nrhs, double *A,
                           int64_t lda, double *B, int64_t ldb, int64_t *info, int64_t nb,
                           const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_dpotri(ozblas_context *ctx, char uplo, int64_t n, double *A, int64_t lda,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_zpotri(ozblas_context *ctx, char uplo, int64_t n, double *A, int64_t lda,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_dtrtri(ozblas_context *ctx, char uplo, char diag, int64_t n, double *A,
                            int64_t lda, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_ztrtri(ozblas_context *ctx, char uplo, char diag, int64_t n, double *A,
                            int64_t lda, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_dtrtrs(ozblas_context *ctx, char uplo, char trans, char diag, int64_t n,
                            int64_t nrhs, const double *A, int64_t lda, double *B, int64_t ldb,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_ztrtrs(ozblas_context *ctx, char uplo, char trans, char diag, int64_t n,
                            int64_t nrhs, const double *A, int64_t lda, double *B, int64_t ldb,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
/* Level-3 BLAS: B := alpha op(A)^-1 B (side 'L') or alpha B op(A)^-1 ('R'); trmm the same
 * with op(A). A bad argument gives OZBLAS_ERR_INVALID_ARGUMENT (info = -i as xerbla's). */
ozblas_status ozblas_dtrsm(ozblas_context *ctx, char side, char uplo, char transa, char diag,
                           int64_t m, int64_t n, double alpha, const double *A, int64_t lda,
                           double *B, int64_t ldb, int64_t *info, int64_t nb,
                           const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_ztrsm(ozblas_context *ctx, char side, char uplo, char transa, char diag,
                           int64_t m, int64_t n, const double *alpha, const double *A,
                           int64_t lda, double *B, int64_t ldb, int64_t *info, int64_t nb,
                           const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_dtrmm(ozblas_context *ctx, char side, char uplo, char transa, char diag,
                           int64_t m, int64_t n, double alpha, const double *A, int64_t lda,
                           double *B, int64_t ldb, int64_t *info, int64_t nb,
                           const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_ztrmm(ozblas_context *ctx, char side, char uplo, char transa, char diag,
                           int64_t m, int64_t n, const double *alpha, const double *A,
                           int64_t lda, double *B, int64_t ldb, int64_t *info, int64_t nb,
                           const ozblas_options *opt, ozblas_lapack_report *report);
/* Level-3 BLAS: the triangle uplo of C (n x n) := alpha A op(A) + beta C (trans 'N', A n x k)
 * or alpha op(A) A + beta C (A k x n); op the transpose (syrk; dsyrk also takes 'C') or the
 * conjugate transpose (zherk: alpha, beta real, the diagonal's imaginary parts set to zero).
 * Column strips of nb: off the diagonal block a GEMM into C, the diagonal block a GEMM into
 * a workspace of which the triangle is added; the other triangle is not referenced. */
ozblas_status ozblas_dsyrk(ozblas_context *ctx, char uplo, char trans, int64_t n, int64_t k,
                           double alpha, const double *A, int64_t lda, double beta, double *C,
                           int64_t ldc, int64_t *info, int64_t nb, const ozblas_options *opt,
                           ozblas_lapack_report *report);
ozblas_status ozblas_zsyrk(ozblas_context *ctx, char uplo, char trans, int64_t n, int64_t k,
                           const double *alpha, const double *A, int64_t lda,
                           const double *beta, double *C, int64_t ldc, int64_t *info,
                           int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zherk(ozblas_context *ctx, char uplo, char trans, int64_t n, int64_t k,
                           double alpha, const double *A, int64_t lda, double beta, double *C,
                           int64_t ldc, int64_t *info, int64_t nb, const ozblas_options *opt,
                           ozblas_lapack_report *report);
/* Symmetric indefinite (Bunch-Kaufman, LAPACK's dsytrf/zsytrf/zhetrf): A = P L D L^T
 * (L^H for zhe*), the panel written here as LAPACK's dlasyf (same pivot rule, 1x1 and 2x2
 * pivots, LAPACK's ipiv encoding), the trailing update as products. sytrs solves from the
 * factors (A is changed while it runs and restored exactly); sytri overwrites the
 * referenced triangle with inv(A) (an n x n workspace; info: a zero 1x1 pivot); sysv is
 * sytrf then sytrs. Workspace is allocated inside. An ipiv that is no sytrf pivot
 * sequence gives OZBLAS_ERR_INVALID_ARGUMENT with info = -(ipiv's position), nothing
 * changed (LAPACK does not check it). */
ozblas_status ozblas_dsytrf(ozblas_context *ctx, char uplo, int64_t n, double *A, int64_t lda,
                            int64_t *ipiv, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_dsytrs(ozblas_context *ctx, char uplo, int64_t n, int64_t nrhs, double *A,
                            int64_t lda, const int64_t *ipiv, double *B, int64_t ldb,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_dsytri(ozblas_context *ctx, char uplo, int64_t n, double *A, int64_t lda,
                            const int64_t *ipiv, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_dsysv(ozblas_context *ctx, char uplo, int64_t n, int64_t nrhs, double *A,
                           int64_t lda, int64_t *ipiv, double *B, int64_t ldb, int64_t *info,
                           int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zsytrf(ozblas_context *ctx, char uplo, int64_t n, double *A, int64_t lda,
                            int64_t *ipiv, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_zsytrs(ozblas_context *ctx, char uplo, int64_t n, int64_t nrhs, double *A,
                            int64_t lda, const int64_t *ipiv, double *B, int64_t ldb,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_zsytri(ozblas_context *ctx, char uplo, int64_t n, double *A, int64_t lda,
                            const int64_t *ipiv, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zsysv(ozblas_context *ctx, char uplo, int64_t n, int64_t nrhs, double *A,
                           int64_t lda, int64_t *ipiv, double *B, int64_t ldb, int64_t *info,
                           int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zhetrf(ozblas_context *ctx, char uplo, int64_t n, double *A, int64_t lda,
                            int64_t *ipiv, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_zhetrs(ozblas_context *ctx, char uplo, int64_t n, int64_t nrhs, double *A,
                            int64_t lda, const int64_t *ipiv, double *B, int64_t ldb,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_zhetri(ozblas_context *ctx, char uplo, int64_t n, double *A, int64_t lda,
                            const int64_t *ipiv, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zhesv(ozblas_context *ctx, char uplo, int64_t n, int64_t nrhs, double *A,
                           int64_t lda, int64_t *ipiv, double *B, int64_t ldb, int64_t *info,
                           int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report);
/* QR with the compact WY form (LAPACK's geqrf, orgqr/ungqr, ormqr/unmqr): the panels by the
 * host geqrf (orgqr for Q's last block), each block reflector I - V T V^H (T by the host
 * larft) applied to the rest as two GEMMs around a host trmm with T. tau: min(m, n)
 * (orgqr, ormqr: k) scalars (complex: pairs). Workspace is allocated inside (no lwork).
 * ormqr: C (m x n) := op(Q) C (side 'L') or C op(Q) ('R'), trans 'N' or 'T' (d), 'N' or
 * 'C' (z). A size at most nb (geqrf: min(m, n); orgqr: k) is one call of the host routine. */
ozblas_status ozblas_dgeqrf(ozblas_context *ctx, int64_t m, int64_t n, double *A, int64_t lda,
                            double *tau, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_zgeqrf(ozblas_context *ctx, int64_t m, int64_t n, double *A, int64_t lda,
                            double *tau, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_dorgqr(ozblas_context *ctx, int64_t m, int64_t n, int64_t k, double *A,
                            int64_t lda, const double *tau, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zungqr(ozblas_context *ctx, int64_t m, int64_t n, int64_t k, double *A,
                            int64_t lda, const double *tau, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_dormqr(ozblas_context *ctx, char side, char trans, int64_t m, int64_t n,
                            int64_t k, const double *A, int64_t lda, const double *tau,
                            double *C, int64_t ldc, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zunmqr(ozblas_context *ctx, char side, char trans, int64_t m, int64_t n,
                            int64_t k, const double *A, int64_t lda, const double *tau,
                            double *C, int64_t ldc, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
/* LQ, the mirror of QR (LAPACK's gelqf, orglq/unglq, ormlq/unmlq): A = L Q, Q = H(k)^H ...
 * H(1)^H with the reflectors conjugated in the rows of A right of the diagonal; the panels by
 * the host gelqf (orglq for Q's last block), T by the host larft (rowwise), the block
 * reflectors applied from the right as two GEMMs around a host trmm. orglq: the first m rows
 * of Q (m <= n, k <= m reflectors); ormlq: C (m x n) := op(Q) C (side 'L') or C op(Q) ('R'),
 * A k x m (or k x n) with lda >= max(1, k). Workspace is allocated inside. */
ozblas_status ozblas_dgelqf(ozblas_context *ctx, int64_t m, int64_t n, double *A, int64_t lda,
                            double *tau, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_zgelqf(ozblas_context *ctx, int64_t m, int64_t n, double *A, int64_t lda,
                            double *tau, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_dorglq(ozblas_context *ctx, int64_t m, int64_t n, int64_t k, double *A,
                            int64_t lda, const double *tau, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zunglq(ozblas_context *ctx, int64_t m, int64_t n, int64_t k, double *A,
                            int64_t lda, const double *tau, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_dormlq(ozblas_context *ctx, char side, char trans, int64_t m, int64_t n,
                            int64_t k, const double *A, int64_t lda, const double *tau,
                            double *C, int64_t ldc, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zunmlq(ozblas_context *ctx, char side, char trans, int64_t m, int64_t n,
                            int64_t k, const double *A, int64_t lda, const double *tau,
                            double *C, int64_t ldc, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
/* Hessenberg reduction (LAPACK's gehrd): Q^H A Q = H, upper Hessenberg in rows and columns
 * ilo..ihi (1-based; A already upper triangular outside, as gebal leaves it), Q = H(ilo) ...
 * H(ihi-1) with the reflectors below the subdiagonal and tau (n - 1 scalars; those outside
 * ilo..ihi-1 set to zero). Each panel of nb columns by the host lahr2 on its trailing block
 * (host memory: with device matrices that block is copied there), the rest as products: Y's
 * rows above the panel, the update from the right, the one of the rows above the panel and
 * the one from the left (two GEMMs around a trmm with T). ihi - ilo + 1 at most nb is one
 * call of the host gehrd.
 * orghr/unghr: Q from gehrd's reflectors (the reflectors moved one column right, then
 * orgqr's driver on rows and columns ilo+1..ihi). ormhr/unmhr: C (m x n) := op(Q) C (side
 * 'L', Q and A of order m) or C op(Q) ('R', order n), ormqr's driver on the reflectors of
 * rows ilo+1..ihi. Workspace is allocated inside. */
ozblas_status ozblas_dgehrd(ozblas_context *ctx, int64_t n, int64_t ilo, int64_t ihi, double *A,
                            int64_t lda, double *tau, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zgehrd(ozblas_context *ctx, int64_t n, int64_t ilo, int64_t ihi, double *A,
                            int64_t lda, double *tau, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_dorghr(ozblas_context *ctx, int64_t n, int64_t ilo, int64_t ihi, double *A,
                            int64_t lda, const double *tau, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zunghr(ozblas_context *ctx, int64_t n, int64_t ilo, int64_t ihi, double *A,
                            int64_t lda, const double *tau, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_dormhr(ozblas_context *ctx, char side, char trans, int64_t m, int64_t n,
                            int64_t ilo, int64_t ihi, const double *A, int64_t lda,
                            const double *tau, double *C, int64_t ldc, int64_t *info,
                            int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zunmhr(ozblas_context *ctx, char side, char trans, int64_t m, int64_t n,
                            int64_t ilo, int64_t ihi, const double *A, int64_t lda,
                            const double *tau, double *C, int64_t ldc, int64_t *info,
                            int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report);
/* Least squares (LAPACK's gels): trans 'N' solves min ||B - A X|| (m >= n) or the minimum-norm
 * A X = B (m < n); 'T' (d) or 'C' (z) the same with A^H. B is max(m, n) x nrhs: the
 * right-hand sides on entry (m rows for 'N', n for 'T'/'C'), the solutions on exit (n rows,
 * resp. m). As LAPACK's: A and B scaled into range first when their largest element is
 * (host lange, lascl), QR of A (m >= n) or LQ (m < n) by the drivers above, Q applied by
 * ormqr/ormlq, the triangular solve by the blocked trsm. info > 0: the i-th diagonal element
 * of the triangular factor is exactly zero (A does not have full rank; as trtrs, nothing
 * solved). A holds the QR or LQ factors on exit. Workspace is allocated inside. */
ozblas_status ozblas_dgels(ozblas_context *ctx, char trans, int64_t m, int64_t n, int64_t nrhs,
                           double *A, int64_t lda, double *B, int64_t ldb, int64_t *info,
                           int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zgels(ozblas_context *ctx, char trans, int64_t m, int64_t n, int64_t nrhs,
                           double *A, int64_t lda, double *B, int64_t ldb, int64_t *info,
                           int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report);
/* Bidiagonal reduction in LAPACK's one-stage format (gebrd): Q^H A P = B, upper bidiagonal
 * for m >= n, lower for m < n, d (min(m, n)) and e (min(m, n) - 1) its diagonal and
 * off-diagonal (real, host memory), Q = H(1) ... H(k) and P = G(1) ... G(k) with the
 * reflectors stored below and right of the bidiagonal as LAPACK's gebrd stores them, their
 * scalars in tauq and taup (min(m, n) each, host memory). Each panel of nb rows and columns by
 * the host labrd (whose matrix-vector products with the trailing matrix, about half of the
 * flops, stay the host's), the trailing update A - V Y^H - X U^H as two GEMMs; the last block
 * (at most nb) by the host gebd2.
 * orgbr/ungbr: Q (vect 'Q': m x n, n <= m, from a reduction of an m x k matrix) or P^H ('P':
 * m x n, m <= n, of a k x n one) from gebrd's reflectors and tau, as LAPACK's orgbr (orgqr,
 * orglq, or the shifted forms for m < k, resp. k >= n). ormbr/unmbr: C (m x n) := op(Q) C,
 * C op(Q), op(P) C or C op(P) (vect, side 'L'/'R', trans 'N' or 'T' (d) / 'C' (z)) with k the
 * reduced matrix's other dimension, as LAPACK's ormbr (ormqr, ormlq, or one row or column in).
 * Workspace is allocated inside. */
ozblas_status ozblas_dgebrd(ozblas_context *ctx, int64_t m, int64_t n, double *A, int64_t lda,
                            double *d, double *e, double *tauq, double *taup, int64_t *info,
                            int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zgebrd(ozblas_context *ctx, int64_t m, int64_t n, double *A, int64_t lda,
                            double *d, double *e, double *tauq, double *taup, int64_t *info,
                            int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_dorgbr(ozblas_context *ctx, char vect, int64_t m, int64_t n, int64_t k,
                            double *A, int64_t lda, const double *tau, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zungbr(ozblas_context *ctx, char vect, int64_t m, int64_t n, int64_t k,
                            double *A, int64_t lda, const double *tau, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_dormbr(ozblas_context *ctx, char vect, char side, char trans, int64_t m,
                            int64_t n, int64_t k, const double *A, int64_t lda, const double *tau,
                            double *C, int64_t ldc, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zunmbr(ozblas_context *ctx, char vect, char side, char trans, int64_t m,
                            int64_t n, int64_t k, const double *A, int64_t lda, const double *tau,
                            double *C, int64_t ldc, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
/* Least squares with a complete orthogonal factorization (LAPACK's gelsy): the minimum-norm
 * solution of min ||B - A X|| for an A of any rank. jpvt (n, 1-based, host memory) in: a
 * nonzero jpvt(i) moves column i to the front before the others; out: A P's column i is A's
 * column jpvt(i). rank: the effective rank, the order of the leading triangle of R whose
 * estimated condition number stays below 1 / rcond. As LAPACK's: A and B scaled into range,
 * QR with column pivoting by the host geqp3 (on a host copy for device memory), the rank by the
 * host laic1, R's RZ factorization by the host tzrzf, Q^H B by ormqr's driver and the
 * triangular solve by the blocked trsm (products), Z^H by the host ormrz. B is max(m, n) x nrhs
 * (the solution in its first n rows). info: 0 or -i. */
ozblas_status ozblas_dgelsy(ozblas_context *ctx, int64_t m, int64_t n, int64_t nrhs, double *A,
                            int64_t lda, double *B, int64_t ldb, int64_t *jpvt, double rcond,
                            int64_t *rank, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_zgelsy(ozblas_context *ctx, int64_t m, int64_t n, int64_t nrhs, double *A,
                            int64_t lda, double *B, int64_t ldb, int64_t *jpvt, double rcond,
                            int64_t *rank, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
/* The singular values and vectors of a real bidiagonal B = U S VT (LAPACK's dbdsdc): uplo
 * 'U' or 'L' (d: n diagonal, e: n - 1 off-diagonal entries, host memory, destroyed; d gets the
 * singular values, descending), compq 'I' (U, VT n x n) or 'N' (values only; U, VT not
 * referenced); LAPACK's compact compq 'P' is not provided (info -2). Beyond 25 rows with
 * vectors, divide and conquer whose merges' vector updates (dlasd3's DGEMMs) are products, the
 * deflation and the secular equations on the host; otherwise the host dbdsdc. info: 0, -i, or
 * > 0 when a secular equation or a leaf did not converge. */
ozblas_status ozblas_dbdsdc(ozblas_context *ctx, char uplo, char compq, int64_t n, double *d,
                            double *e, double *U, int64_t ldu, double *VT, int64_t ldvt,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
/* The singular value decomposition A = U S V^H (LAPACK's gesdd): jobz 'N' (s only), 'S' (U
 * m x min(m, n), VT = V^H min(m, n) x n), 'A' (U m x m, VT n x n) or 'O' (m >= n: U
 * overwrites A, VT n x n; m < n: U m x m, VT overwrites A). s (min(m, n), real, host memory):
 * descending. An order min(m, n) within one block is one call of the host gesdd; otherwise a
 * two-stage bidiagonal reduction (QR and LQ panels by the host, their updates as products;
 * the band to bidiagonal by bulge chasing on the host), dbdsdc (ozblas_dbdsdc: with vectors,
 * its merges' products through ozblas), and the
 * back-transformations as products (m < n: the SVD of A^H). A is destroyed (jobz other than
 * 'O'). info: 0, -i (-4: A has a NaN, as LAPACK's), or > 0 when dbdsdc did not converge. */
ozblas_status ozblas_dgesdd(ozblas_context *ctx, char jobz, int64_t m, int64_t n, double *A,
                            int64_t lda, double *s, double *U, int64_t ldu, double *VT,
                            int64_t ldvt, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_zgesdd(ozblas_context *ctx, char jobz, int64_t m, int64_t n, double *A,
                            int64_t lda, double *s, double *U, int64_t ldu, double *VT,
                            int64_t ldvt, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
/* The singular value decomposition as LAPACK's gesvd: jobu 'A' (U m x m), 'S' (m x min(m, n)),
 * 'O' (those columns over A) or 'N'; jobvt likewise for V^H's n or min(m, n) rows; not both
 * 'O'. gesdd's route with the host dbdsqr (implicit QR) on the bidiagonal instead of dbdsdc,
 * vectors formed only for the side wanted. info: 0, -i, or > 0 when dbdsqr did not converge
 * (the unconverged superdiagonal is not returned). */
ozblas_status ozblas_dgesvd(ozblas_context *ctx, char jobu, char jobvt, int64_t m, int64_t n,
                            double *A, int64_t lda, double *s, double *U, int64_t ldu, double *VT,
                            int64_t ldvt, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_zgesvd(ozblas_context *ctx, char jobu, char jobvt, int64_t m, int64_t n,
                            double *A, int64_t lda, double *s, double *U, int64_t ldu, double *VT,
                            int64_t ldvt, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
/* Least squares through the singular value decomposition (LAPACK's gelsd: the bidiagonal
 * problem by the host lalsd's divide and conquer; gelss: by the host bdsqr, A's first
 * min(m, n) rows overwritten with V^H): the minimum-norm solution of min ||B - A X|| for an A
 * of any rank. s (min(m, n), real, host memory): A's singular values, descending; rank: how
 * many exceed rcond s(1) (rcond < 0: machine epsilon). B is max(m, n) x nrhs (the solution in
 * its first n rows; for m > n and rank n, the squares of rows n..m-1 sum to the residual).
 * An order min(m, n) within one block is one call of the host routine; otherwise A and B
 * scaled into range, QR first for max(m, n) >= 1.6 min(m, n), the two-stage bidiagonal
 * reduction of A (A^H for m < n) with its updates as products, Q^H B and P X_B as products.
 * A is destroyed. info: 0, -i (gelsy's codes), or > 0 when the bidiagonal solver did not
 * converge. */
ozblas_status ozblas_dgelsd(ozblas_context *ctx, int64_t m, int64_t n, int64_t nrhs, double *A,
                            int64_t lda, double *B, int64_t ldb, double *s, double rcond,
                            int64_t *rank, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_zgelsd(ozblas_context *ctx, int64_t m, int64_t n, int64_t nrhs, double *A,
                            int64_t lda, double *B, int64_t ldb, double *s, double rcond,
                            int64_t *rank, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_dgelss(ozblas_context *ctx, int64_t m, int64_t n, int64_t nrhs, double *A,
                            int64_t lda, double *B, int64_t ldb, double *s, double rcond,
                            int64_t *rank, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_zgelss(ozblas_context *ctx, int64_t m, int64_t n, int64_t nrhs, double *A,
                            int64_t lda, double *B, int64_t ldb, double *s, double rcond,
                            int64_t *rank, int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
/* The nonsymmetric eigenproblem A X = X diag(w) (LAPACK's geev): jobvl, jobvr 'N' or 'V' (the
 * left and right eigenvectors, n x n, normalized as LAPACK's: unit 2-norm, the largest
 * component real; d: a complex pair in two columns, real and imaginary parts). d: wr, wi (host
 * memory, n each); z: w (n complex, host memory). An order within one block is one call of the
 * host geev; otherwise A scaled into range and balanced (the host gebal), the Hessenberg
 * reduction and Q by the layer's gehrd and orghr (products), the QR iteration by the layer's
 * multishift hseqr (its updates of H and Z products) with the Schur vectors Z accumulated, the eigenvectors of T by the host trevc3 and
 * their back-transformation by Z as one product, the host gebak. Host memory only (device
 * pointers: OZBLAS_ERR_INVALID_ARGUMENT). A is destroyed. info: 0, -i, or > 0 when hseqr
 * did not converge (eigenvalues info+1..n are valid, no vectors). */
ozblas_status ozblas_dgeev(ozblas_context *ctx, char jobvl, char jobvr, int64_t n, double *A,
                           int64_t lda, double *wr, double *wi, double *VL, int64_t ldvl,
                           double *VR, int64_t ldvr, int64_t *info, int64_t nb,
                           const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zgeev(ozblas_context *ctx, char jobvl, char jobvr, int64_t n, double *A,
                           int64_t lda, double *w, double *VL, int64_t ldvl, double *VR,
                           int64_t ldvr, int64_t *info, int64_t nb, const ozblas_options *opt,
                           ozblas_lapack_report *report);
/* gees's selection of an eigenvalue (nonzero: selected), called as LAPACK calls its select:
 * d: w and wi point at the real and imaginary parts; z: w at the complex eigenvalue, wi NULL.
 * arg: the caller's, passed through. */
typedef int (*ozblas_select_fn)(void *arg, const double *w, const double *wi);
/* The Schur factorization A = Z T Z^H (LAPACK's gees): T over A (d: upper quasi-triangular, a
 * complex pair a standardized 2 x 2 block; z: upper triangular), with jobvs 'V' the Schur vectors
 * in VS (n x n); sort 'S' moves the eigenvalues select chooses to the top left (sdim of them,
 * a complex pair counted twice), 'N' leaves them unordered (sdim 0; select not called, may be
 * NULL). d: wr, wi; z: w (host memory). An order within one block is one call of the host gees;
 * otherwise A scaled into range and permuted (the host gebal 'P'), the Hessenberg reduction
 * and Q by the layer's gehrd and orghr (products), the QR iteration by the layer's multishift
 * hseqr (its updates of H and Z products) with Q accumulated into VS, the reordering by the host trsen (its updates of T and VS host
 * work), the host gebak. Host memory only (device pointers: OZBLAS_ERR_INVALID_ARGUMENT).
 * info: 0, -i, 1..n when hseqr did not converge, n + 1 when the reordering failed (trsen),
 * n + 2 when rounding changed a selection after reordering (d, as LAPACK's). */
ozblas_status ozblas_dgees(ozblas_context *ctx, char jobvs, char sort, ozblas_select_fn select,
                           void *select_arg, int64_t n, double *A, int64_t lda, int64_t *sdim,
                           double *wr, double *wi, double *VS, int64_t ldvs, int64_t *info,
                           int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zgees(ozblas_context *ctx, char jobvs, char sort, ozblas_select_fn select,
                           void *select_arg, int64_t n, double *A, int64_t lda, int64_t *sdim,
                           double *w, double *VS, int64_t ldvs, int64_t *info, int64_t nb,
                           const ozblas_options *opt, ozblas_lapack_report *report);
/* Level-3 BLAS as products (BLAS semantics: only the stored triangle of A read, beta = 0
 * never reads C; syr2k/her2k touch only the uplo triangle of C, her2k's diagonal real):
 * symm/hemm C := alpha A B + beta C (side 'L', A m x m) or alpha B A + beta C ('R', n x n);
 * syr2k C := alpha (op(A) op(B)^T + op(B) op(A)^T) + beta C (trans 'N': A, B n x k; 'T' or,
 * real, 'C': k x n); her2k alpha op(A) op(B)^H + conj(alpha) op(B) op(A)^H + beta C with a
 * real beta (trans 'N' or 'C'). A bad argument gives OZBLAS_ERR_INVALID_ARGUMENT, info = -i
 * as xerbla reports it. */
ozblas_status ozblas_dsymm(ozblas_context *ctx, char side, char uplo, int64_t m, int64_t n,
                           double alpha, const double *A, int64_t lda, const double *B,
                           int64_t ldb, double beta, double *C, int64_t ldc, int64_t *info,
                           int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zsymm(ozblas_context *ctx, char side, char uplo, int64_t m, int64_t n,
                           const double *alpha, const double *A, int64_t lda, const double *B,
                           int64_t ldb, const double *beta, double *C, int64_t ldc,
                           int64_t *info, int64_t nb, const ozblas_options *opt,
                           ozblas_lapack_report *report);
ozblas_status ozblas_zhemm(ozblas_context *ctx, char side, char uplo, int64_t m, int64_t n,
                           const double *alpha, const double *A, int64_t lda, const double *B,
                           int64_t ldb, const double *beta, double *C, int64_t ldc,
                           int64_t *info, int64_t nb, const ozblas_options *opt,
                           ozblas_lapack_report *report);
ozblas_status ozblas_dsyr2k(ozblas_context *ctx, char uplo, char trans, int64_t n, int64_t k,
                            double alpha, const double *A, int64_t lda, const double *B,
                            int64_t ldb, double beta, double *C, int64_t ldc, int64_t *info,
                            int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zsyr2k(ozblas_context *ctx, char uplo, char trans, int64_t n, int64_t k,
                            const double *alpha, const double *A, int64_t lda, const double *B,
                            int64_t ldb, const double *beta, double *C, int64_t ldc,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_zher2k(ozblas_context *ctx, char uplo, char trans, int64_t n, int64_t k,
                            const double *alpha, const double *A, int64_t lda, const double *B,
                            int64_t ldb, double beta, double *C, int64_t ldc, int64_t *info,
                            int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report);
/* The generalized symmetric-definite problem's reduction (LAPACK's dsygst/zhegst): with B
 * the potrf factor in its triangle uplo (B = U^H U or L L^H), the triangle uplo of A becomes
 * that of inv(U^H) A inv(U) or inv(L) A inv(L^H) (itype 1) or U A U^H or L^H A L (itype 2,
 * 3). LAPACK's blocked algorithm: diagonal blocks by the host sygst/hegst, the rest through
 * the layer's TRSM/TRMM, SYMM/HEMM and SYR2K/HER2K products. info: 0, or -i. */
ozblas_status ozblas_dsygst(ozblas_context *ctx, int64_t itype, char uplo, int64_t n, double *A,
                            int64_t lda, const double *B, int64_t ldb, int64_t *info,
                            int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zhegst(ozblas_context *ctx, int64_t itype, char uplo, int64_t n, double *A,
                            int64_t lda, const double *B, int64_t ldb, int64_t *info,
                            int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report);
/* The triangular Sylvester equation (LAPACK's dtrsyl/ztrsyl): C (m x n) := X with
 * op(A) X + isgn X op(B) = scale C, A (m x m) and B (n x n) upper quasi-triangular (real
 * Schur form; complex: triangular), trana/tranb 'N', 'T' or 'C' ('C' is 'T' for d; z takes
 * 'N' or 'C'), isgn 1 or -1. Recursive blocking (Jonsson and Kagstrom): blocks of at most nb
 * by the host trsyl, the couplings as products, each made overflow-safe as LAPACK's trsyl3
 * does. scale (host memory): at most 1, chosen so that X does not overflow. info: 0; 1 when
 * A and -isgn B have close or common eigenvalues (perturbed values used); -i. */
ozblas_status ozblas_dtrsyl(ozblas_context *ctx, char trana, char tranb, int64_t isgn, int64_t m,
                            int64_t n, const double *A, int64_t lda, const double *B,
                            int64_t ldb, double *C, int64_t ldc, double *scale, int64_t *info,
                            int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_ztrsyl(ozblas_context *ctx, char trana, char tranb, int64_t isgn, int64_t m,
                            int64_t n, const double *A, int64_t lda, const double *B,
                            int64_t ldb, double *C, int64_t ldc, double *scale, int64_t *info,
                            int64_t nb, const ozblas_options *opt, ozblas_lapack_report *report);
/* Symmetric and Hermitian eigenproblems (LAPACK's dsyevd/zheevd, dsyev/zheev,
 * dsyevr/zheevr: jobz 'N' eigenvalues only, 'V' with eigenvectors; uplo the stored
 * triangle) by a two-stage reduction: the matrix to a band (QR panels by the host geqrf,
 * the two-sided updates as products), the band to real tridiagonal on the host (bulge
 * chasing), the tridiagonal problem as LAPACK's driver solves it (syevd: the host sterf,
 * or with eigenvectors ozblas_dstedc's divide and conquer, whose merges are products; syev:
 * sterf or steqr; syevr: sterf or stemr for every eigenvalue, else stebz and stein; all the
 * host LAPACK's), the eigenvectors through both reductions' reflectors as products. w
 * (n, real, host memory): the eigenvalues in ascending order. syevd and syev: the
 * eigenvectors overwrite A (jobz 'V'). syevr: range 'A' all, 'V' those in (vl, vu], 'I' the
 * il-th to iu-th (1-based); abstol as LAPACK's; *m eigenvalues found, their eigenvectors in Z
 * (n x *m, ldz; host or device memory as A), isuppz (2 *m, host, jobz 'V' with range 'A' or
 * 'I' of all: stemr's support of the tridiagonal eigenvectors, as dsyevr reports it). info:
 * LAPACK's (> 0: the tridiagonal solver did not converge). A matrix whose largest entry is
 * outside LAPACK's safe range is scaled as LAPACK's drivers scale it. An order at most nb is
 * one call of the host driver. Workspace is allocated inside (no lwork). */
ozblas_status ozblas_dsyevd(ozblas_context *ctx, char jobz, char uplo, int64_t n, double *A,
                            int64_t lda, double *w, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zheevd(ozblas_context *ctx, char jobz, char uplo, int64_t n, double *A,
                            int64_t lda, double *w, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_dsyev(ozblas_context *ctx, char jobz, char uplo, int64_t n, double *A,
                           int64_t lda, double *w, int64_t *info, int64_t nb,
                           const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zheev(ozblas_context *ctx, char jobz, char uplo, int64_t n, double *A,
                           int64_t lda, double *w, int64_t *info, int64_t nb,
                           const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_dsyevr(ozblas_context *ctx, char jobz, char range, char uplo, int64_t n,
                            double *A, int64_t lda, double vl, double vu, int64_t il,
                            int64_t iu, double abstol, int64_t *m, double *w, double *Z,
                            int64_t ldz, int64_t *isuppz, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zheevr(ozblas_context *ctx, char jobz, char range, char uplo, int64_t n,
                            double *A, int64_t lda, double vl, double vu, int64_t il,
                            int64_t iu, double abstol, int64_t *m, double *w, double *Z,
                            int64_t ldz, int64_t *isuppz, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
/* The real symmetric tridiagonal eigenproblem (LAPACK's dstedc): compz 'N' the eigenvalues
 * only (the host sterf), 'I' also the tridiagonal matrix's eigenvectors into Z, 'V' Z := Z
 * times them (Z, orthogonal on entry, the reduction's). d (n), e (n - 1): host memory; d :=
 * the eigenvalues ascending, e destroyed. Z: n x n, ldz, host or device memory. By divide and
 * conquer with each merge's eigenvector update a product (deflation and the secular
 * equation by the host dlaed2 and dlaed4); an order at most min(nb, 256) is one call of the
 * host dstedc. info: LAPACK's (> 0: an eigenvalue did not converge in the rows and columns
 * info / (n + 1) to mod(info, n + 1)). Workspace is allocated inside. */
ozblas_status ozblas_dstedc(ozblas_context *ctx, char compz, int64_t n, double *d, double *e,
                            double *Z, int64_t ldz, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
/* The generalized symmetric-definite eigenproblem (LAPACK's dsygvd/zhegvd, dsygv/zhegv):
 * A x = lambda B x (itype 1), A B x = lambda x (2), B A x = lambda x (3), A symmetric
 * (Hermitian), B symmetric (Hermitian) positive definite, their triangles uplo stored: B's
 * Cholesky factor (the layer's potrf) overwrites B's triangle, the reduction to standard form
 * (the layer's sygst), the standard problem as syevd (sygvd) or syev (sygv) solve it, and with
 * jobz 'V' the eigenvectors (B-orthonormal, as LAPACK normalizes them) back through the factor
 * by TRSM (itype 1, 2) or TRMM (3) into A. w (n, host memory): the eigenvalues, ascending.
 * info: 0; i <= n: the tridiagonal solver did not converge (sygv: the first i - 1 eigenvectors
 * are back-transformed, sygvd: none); n + i: B's leading minor of order i is not positive
 * definite (nothing after the factorization done); -i. Workspace is allocated inside. */
ozblas_status ozblas_dsygvd(ozblas_context *ctx, int64_t itype, char jobz, char uplo, int64_t n,
                            double *A, int64_t lda, double *B, int64_t ldb, double *w,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_zhegvd(ozblas_context *ctx, int64_t itype, char jobz, char uplo, int64_t n,
                            double *A, int64_t lda, double *B, int64_t ldb, double *w,
                            int64_t *info, int64_t nb, const ozblas_options *opt,
                            ozblas_lapack_report *report);
ozblas_status ozblas_dsygv(ozblas_context *ctx, int64_t itype, char jobz, char uplo, int64_t n,
                           double *A, int64_t lda, double *B, int64_t ldb, double *w,
                           int64_t *info, int64_t nb, const ozblas_options *opt,
                           ozblas_lapack_report *report);
ozblas_status ozblas_zhegv(ozblas_context *ctx, int64_t itype, char jobz, char uplo, int64_t n,
                           double *A, int64_t lda, double *B, int64_t ldb, double *w,
                           int64_t *info, int64_t nb, const ozblas_options *opt,
                           ozblas_lapack_report *report);
/* LAPACK's one-stage tridiagonal format (dsytrd/zhetrd, dormtr/zunmtr, dorgtr/zungtr): sytrd
 * as LAPACK's blocked dsytrd (each panel by the host latrd, whose symv is Level 2, the trailing
 * update by syr2k/her2k as products, the last block by the host sytd2/hetd2); d, e: real,
 * host memory; tau: n - 1 scalars, host. ormtr (C := op(Q) C or C op(Q), trans 'N' or 'T' (d),
 * 'C' (z)) and orgtr (Q itself into A) with uplo 'L' as ormqr and orgqr on the reflectors
 * below the subdiagonal (products); uplo 'U' (QL-form reflectors) and an order at most nb are
 * one call of the host routine. */
ozblas_status ozblas_dsytrd(ozblas_context *ctx, char uplo, int64_t n, double *A, int64_t lda,
                            double *d, double *e, double *tau, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zhetrd(ozblas_context *ctx, char uplo, int64_t n, double *A, int64_t lda,
                            double *d, double *e, double *tau, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_dormtr(ozblas_context *ctx, char side, char uplo, char trans, int64_t m,
                            int64_t n, const double *A, int64_t lda, const double *tau,
                            double *C, int64_t ldc, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zunmtr(ozblas_context *ctx, char side, char uplo, char trans, int64_t m,
                            int64_t n, const double *A, int64_t lda, const double *tau,
                            double *C, int64_t ldc, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_dorgtr(ozblas_context *ctx, char uplo, int64_t n, double *A, int64_t lda,
                            const double *tau, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
ozblas_status ozblas_zungtr(ozblas_context *ctx, char uplo, int64_t n, double *A, int64_t lda,
                            const double *tau, int64_t *info, int64_t nb,
                            const ozblas_options *opt, ozblas_lapack_report *report);
/* The block size nb = 0 chooses for a factorization of size n on an executor
 * (OZBLAS_LAPACK_NB when set and valid). */
int64_t ozblas_lapack_block_size(int64_t n, int executor);
/* The executor whose block size a LAPACK-layer call with options opt (NULL: the defaults)
 * takes, A one of its matrices (NULL: host memory): the executor its products run on,
 * except under method auto with executor auto, where each product is the policy's and host
 * matrices stay on the host (the CPU's). */
int ozblas_lapack_executor(const ozblas_options *opt, const void *A);

/* ---- In-process activation ------------------------------------------------------------
 * Defined in libozblas_preload.so (the preload shim), not in libozblas.so; ozblas.activate()
 * loads that library RTLD_LOCAL and calls these, so a running process is routed without
 * LD_PRELOAD. */

/* Points the GOT slots (PLT and GLOB_DAT) of every name the shim exports, in every loaded
 * object except ozblas's libraries and objects defining the name, at the shim's entries.
 * Objects scanned before are skipped, so calling it again patches only objects loaded
 * since (cheap when none was). Returns the number of slots newly patched, -1 when the
 * library cannot find its own entries. An object that cannot be patched is named on stderr
 * and left as it is. */
int ozblas_activate_patch(void);
/* Writes every patched slot's original value back (where the slot still holds the shim's
 * entry) and forgets the scan. Returns the number of slots restored. */
int ozblas_activate_restore(void);
/* The number of slots currently patched. */
int ozblas_activate_count(void);
/* Settings of the calls the shim handles: opt (stream ignored) with the shim's min_size,
 * disable, trace ("" none, "-" stderr, or a path) and routines (OZBLAS_ROUTINES' value; NULL
 * or "": all), replacing those read from the OZBLAS_* environment; with opt NULL the
 * environment is read again (returns OZBLAS_ERR_INVALID_ARGUMENT for a bad value there or in
 * routines: calls then stay native). */
int ozblas_preload_configure(const ozblas_options *opt, int64_t min_size, int disable,
                             const char *trace, const char *routines);

/* ---- The policy (core/policy_*.c): device profiles, the cost model, the calibration cache ----
 * One cost model, in C, serves method auto (ozblas_dgemm/ozblas_zgemm, the preload shim) and
 * the Python policy (ozblas.policy, `ozblas explain`, `ozblas info`). */

/* A machine as the cost model sees it. Rates are effective (what a GEMM, a copy or a pass
 * achieves), never peaks. Built-in profiles multiply datasheet peaks (kept in peak_*) by the
 * efficiency measured on an H200; "local" is measured here by `ozblas calibrate`. */
typedef struct {
    char name[32];          /* a100 h100 h200 h800 rtx4090 b200 b300 rtx_pro_6000 measured_h200
                               cpu, or local */
    char description[128];
    char source[256];       /* where the figures come from */
    char host_name[192];    /* the host CPU */
    int has_device;         /* 0: a host alone; the dev_* and link fields are unused */
    int calibrated;         /* 1: measured on this machine by `ozblas calibrate` */
    double host_dgemm;      /* host BLAS DGEMM, FLOP/s (2mnk per product) */
    double host_zgemm;      /* host BLAS ZGEMM, FLOP/s (8mnk per product) */
    double cpu_int_gemm;    /* CPU executor's exact integer products (host SGEMM), OP/s */
    double cpu_pass_bw;     /* CPU executor's elementwise passes, B/s in the model's byte counts */
    double cpu_call_s;      /* CPU executor's fixed cost per emulated call, s */
    double dev_dgemm;       /* device FP64 DGEMM, FLOP/s */
    double dev_zgemm;       /* device ZGEMM, FLOP/s (8mnk per product) */
    double dev_int8;        /* device INT8 x INT8 -> INT32 GEMM, OP/s */
    double dev_mem_bw;      /* device memory bandwidth, B/s */
    double h2d_bw;          /* host to device as the CUDA executor copies (pageable), B/s */
    double d2h_bw;          /* device to host, likewise, B/s */
    double h2d_pinned_bw;   /* the same from pinned memory (shown by `ozblas info`; 0: unknown) */
    double d2h_pinned_bw;
    double dev_call_s;      /* fixed cost of a native device GEMM call, s */
    double dev_emu_call_s;  /* fixed cost of an emulated device call (launches, small copies), s */
    double peak_fp64;       /* datasheet peaks the rates come from (0 for measured profiles): */
    double peak_int8;       /*   FLOP/s, OP/s, B/s, B/s per direction, host FLOP/s */
    double peak_mem_bw;
    double peak_link_bw;
    double peak_host_fp64;
    double dev_fp4;         /* device FP4 (E2M1, block-scaled, FP32 out) GEMM, OP/s, as the FP4
                               engine's products reach it; 0: no FP4 engine on the device */
    double peak_fp4;        /* its dense datasheet peak (0: none, or a measured profile) */
} ozblas_profile;

/* The parts of a predicted time (ozblas_policy_part_name gives each one's name). */
typedef enum {
    OZBLAS_PART_HOST_GEMM = 0,        /* host BLAS DGEMM/ZGEMM */
    OZBLAS_PART_DEVICE_GEMM = 1,      /* device FP64 GEMM */
    OZBLAS_PART_STATS = 2,            /* Ozaki II: row/column statistics and scaling bounds */
    OZBLAS_PART_RESIDUES = 3,         /* Ozaki II: scaling and residues */
    OZBLAS_PART_SPLIT = 4,            /* Ozaki I: slicing */
    OZBLAS_PART_INT_PRODUCTS = 5,     /* the exact integer products */
    OZBLAS_PART_CONVERSION = 6,       /* Ozaki I: product conversion and exact group sums */
    OZBLAS_PART_REDUCTION = 7,        /* Ozaki II: modular reduction of the products */
    OZBLAS_PART_CRT = 8,              /* Ozaki II: CRT and the BLAS update */
    OZBLAS_PART_FP64_ACCUMULATION = 9, /* Ozaki I: FP64 accumulation and the BLAS update */
    OZBLAS_PART_OVERHEAD = 10,        /* fixed costs: calls, launches, waits */
    OZBLAS_PART_TRANSFERS = 11,       /* operands copied to where the candidate runs, C back */
    OZBLAS_PART_COUNT = 12
} ozblas_policy_part;

/* One way to compute a product, with its predicted time. */
typedef struct {
    int method;          /* OZBLAS_METHOD_NATIVE, _OZAKI1 or _OZAKI2 */
    int executor;        /* OZBLAS_EXECUTOR_CPU (the host) or OZBLAS_EXECUTOR_CUDA (the device) */
    int count;           /* moduli (Ozaki II) or slices (Ozaki I) assumed; 0 for native */
    int scaling;         /* Ozaki II: an ozblas_scaling */
    int variant;         /* Ozaki I: an ozblas_ozaki1_variant */
    int engine;          /* Ozaki I and II: the ozblas_engine of the integer products */
    int meets_target;    /* 0: the method cannot run this shape (k beyond its bounds) */
    double seconds;      /* predicted time: the sum of the used parts */
    double flops;        /* 2mnk (DGEMM) or 8mnk (ZGEMM) */
    unsigned parts_used; /* bit i set: parts[i] is a part of this candidate */
    double parts[12];    /* seconds per ozblas_policy_part */
} ozblas_candidate;

/* The identity a calibration belongs to. */
typedef struct {
    char version[32];   /* ozblas version */
    char device[128];   /* CUDA device name, or "none" */
    char driver[32];    /* CUDA driver version ("13.0"), or "none" */
    char host[192];     /* host CPU model and the CPUs this process may use */
} ozblas_machine_id;

int ozblas_policy_builtin_count(void);
/* The i-th built-in profile (0 <= i < count). Returns 0 when i is out of range. */
int ozblas_policy_builtin(int i, ozblas_profile *out);
const char *ozblas_policy_part_name(int part);
/* The counts the model assumes where moduli/slices are 0 (automatic precision). */
int ozblas_policy_planning_moduli(void);
int ozblas_policy_planning_slices(void);
/* The most candidates ozblas_policy_estimate returns. */
enum { OZBLAS_POLICY_MAX_CANDIDATES = 32 };
/* Every candidate for C (m x n) = op(A) (m x k) op(B) (k x n), beta = 0: native on the host
 * and the device, Ozaki II (each scaling) and Ozaki I (each variant) on the device, on each
 * engine the profile has a rate for (INT8; FP4 where dev_fp4 > 0), and on the CPU executor
 * (INT8: its FP4 engine is a model for bits, not for speed; device ones only with a device).
 * on_device: where A, B and C live (data on the other side pays its transfers).
 * moduli/slices: the counts to assume, 0 for the planning counts (moduli: each engine's
 * automatic-precision start, ozblas_ozaki2_engine_auto_hint; a count beyond an engine's
 * moduli gives no candidate on it). Returns the number written to out (at most max_out), -1
 * on bad arguments (a dimension < 1, on_device without a device, a count out of range). */
int ozblas_policy_estimate(const ozblas_profile *p, int is_complex, int64_t m, int64_t n,
                           int64_t k, int on_device, int moduli, int slices,
                           ozblas_candidate *out, int max_out);
/* The executors that may compete for a call under method auto, as a mask (bit
 * 1 << OZBLAS_EXECUTOR_CPU, bit 1 << OZBLAS_EXECUTOR_CUDA; 0: none). executor: the one asked
 * for (an ozblas_executor: auto lets both compete), on_device: an operand lives in device
 * memory (only the CUDA executor reads it there), device_usable: a usable CUDA executor (or
 * a profile with a device). The C API, the preload shim and ozblas.policy all ask this. */
int ozblas_policy_executors(int executor, int on_device, int device_usable);
/* Method auto's choice: the fastest candidate that meets the target, runs on an executor of
 * the mask (bit 1 << OZBLAS_EXECUTOR_CPU, bit 1 << OZBLAS_EXECUTOR_CUDA) and uses opt's
 * scaling, Ozaki I variant, engine, moduli and slices (0: planning counts). p NULL: the local
 * profile (ozblas_policy_local). OZBLAS_ERR_INVALID_ARGUMENT when nothing qualifies. */
ozblas_status ozblas_policy_decide(const ozblas_profile *p, int is_complex, int64_t m,
                                   int64_t n, int64_t k, int on_device, int executors,
                                   const ozblas_options *opt, ozblas_candidate *choice);
/* The profile of this machine method auto uses: the calibration cache when it is valid
 * (returns 1), else a built-in estimate chosen by the device's name (returns 0 without a
 * cache, -1 when a cache was ignored). note (may be NULL) gets one line saying which and why.
 * Loaded once per process. */
int ozblas_policy_local(ozblas_profile *out, char *note, size_t note_len);
/* Replaces the local profile of this process with p (tests, tools), or with p NULL forgets
 * it, so that the next use reads the cache again (after `ozblas calibrate`). */
void ozblas_policy_set_local(const ozblas_profile *p);
/* The built-in estimate for a device name (NULL or "": a host alone): the measured H200,
 * else the datasheet profile the name matches, else h100; note says which. */
void ozblas_policy_estimate_profile(const char *device_name, ozblas_profile *out, char *note,
                                    size_t note_len);
/* This machine's identity and the path of its calibration cache
 * ($XDG_CACHE_HOME/ozblas or ~/.cache/ozblas, one file per host and device). The device is
 * the CUDA executor's (OZBLAS_DEVICE's ordinal) unless it is unusable or OZBLAS_DEVICE=cpu.
 * path is "" when no cache directory is known (no HOME). */
ozblas_status ozblas_policy_machine(ozblas_machine_id *id, char *path, size_t path_len);
/* Reads a calibration cache and checks it against id (docs/policy.md, "Calibration cache"). A file
 * that is unreadable, truncated, has a missing, unknown, repeated or unparsable key, a rate
 * that is not a positive finite number, or another version, device, driver or host gives
 * OZBLAS_ERR_INVALID_ARGUMENT with the reason in why; out is then untouched. */
ozblas_status ozblas_policy_cache_read(const char *path, const ozblas_machine_id *id,
                                       ozblas_profile *out, char *why, size_t why_len);
/* Writes p as the calibration cache of id at path (directories created, the file replaced
 * atomically). */
ozblas_status ozblas_policy_cache_write(const char *path, const ozblas_machine_id *id,
                                        const ozblas_profile *p, char *why, size_t why_len);

/* The band width of the LAPACK layer's two-stage reductions (syevd/heevd/syevr/sygvd: kind
 * EIGEN; gesdd/gesvd/gelsd/gelss: kind SVD, m x n with m >= n): the width, of min(nb, 256)
 * and its halvings down to 16, whose predicted time of the whole driver is least, products
 * by the cost model on profile p (NULL: the local one) for the method and executor given
 * (auto: any),
 * the host's chase and panels at p's host rate (lapack_model.c). ncols: the columns the
 * back-transformations act on (n with vectors, gelsd's right-hand sides, 0 for none). Fills
 * band and the predicted seconds of its parts (solver: the tridiagonal/bidiagonal solver, a
 * model that does not depend on the band) and returns band. */
enum { OZBLAS_LAPACK_BAND_EIGEN = 0, OZBLAS_LAPACK_BAND_SVD = 1 };
typedef struct {
    int kind, cplx;
    int64_t m, n, ncols, nb;
    int method, executor, on_device;
    int64_t band;      /* out: */
    double products, panels, chase, solver;
} ozblas_lapack_band_model;
int64_t ozblas_lapack_band_width(const ozblas_profile *p, ozblas_lapack_band_model *mod);

/* The bulges per chain of the LAPACK layer's hseqr (geev, gees: lapack_hseqr.c chases a
 * sweep's nbm bulges in chains of g, one after the other, each in windows of 6 g + 8 rows of
 * an active block of n rows): of nbm and its halvings down to 4, the g whose predicted sweep
 * time is least, the windows' products (H's rows and columns beside the window, and Z's with
 * vectors) by the cost model on profile p (NULL: the local one) for the method and executor
 * given (auto: any), the host's chase inside the windows at p's host rate (lapack_model.c).
 * Fills chain and one sweep's predicted seconds of both and returns chain. */
typedef struct {
    int cplx, vectors;
    int64_t n, nbm;
    int method, executor, on_device;
    int64_t chain;     /* out: */
    double products, chase;
} ozblas_lapack_chain_model;
int64_t ozblas_lapack_hseqr_chain(const ozblas_profile *p, ozblas_lapack_chain_model *mod);

/* OZBLAS_CDEF_END */

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif /* OZBLAS_H */
