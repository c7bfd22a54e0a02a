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
    OZBLAS_METHOD_AUTO = 0,    /* let ozblas choose (native on a machine without a GPU) */
    OZBLAS_METHOD_NATIVE = 1,  /* the real FP64 GEMM of the executor (host BLAS or cuBLAS) */
    OZBLAS_METHOD_OZAKI1 = 2,  /* Ozaki scheme I (INT8 slices of the row-aligned significands) */
    OZBLAS_METHOD_OZAKI2 = 3   /* Ozaki scheme II (residues modulo pairwise-coprime moduli, CRT) */
} ozblas_method;

/* How Ozaki II bounds |A'||B'| to choose the scaling. */
typedef enum {
    OZBLAS_SCALING_ACCURATE = 0, /* one extra small-integer product of rounded-up |A|,|B| */
    OZBLAS_SCALING_FAST = 1      /* Cauchy-Schwarz bound per row of A and column of B */
} ozblas_scaling;

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
    OZBLAS_EXECUTOR_CUDA = 2   /* INT8 tensor cores through cuBLAS (not built in this version) */
} ozblas_executor;

/* Why an emulated call was computed natively instead. */
typedef enum {
    OZBLAS_FALLBACK_NONE = 0,           /* no fallback: the method asked for was used */
    OZBLAS_FALLBACK_NONFINITE = 1,      /* Inf or NaN in A or B: native gives IEEE semantics */
    OZBLAS_FALLBACK_EXPONENT_RANGE = 2, /* a nonzero element would be lost entirely by the scaling */
    OZBLAS_FALLBACK_TOO_LARGE_K = 3,    /* k beyond what the scaling bounds can hold (2^28) */
    OZBLAS_FALLBACK_AUTO_NATIVE = 4,    /* method auto chose native */
    OZBLAS_FALLBACK_NOT_IMPLEMENTED = 5, /* the method asked for is not implemented in this build */
    OZBLAS_FALLBACK_ACCURACY = 6        /* automatic precision: no count up to the maximum
                                           meets DGEMM-level accuracy for these inputs */
} ozblas_fallback;

/* Per-call options. ozblas_options_init() fills the defaults; ozblas_options_from_env()
 * fills them from the OZBLAS_* environment variables. */
typedef struct {
    int method;     /* an ozblas_method */
    int moduli;     /* Ozaki II moduli count, 2..20, or 0: automatic (the fewest moduli whose
                       error bound for the inputs of the call is DGEMM-level) */
    int scaling;    /* an ozblas_scaling */
    int executor;   /* an ozblas_executor */
    int device;     /* CUDA device ordinal for OZBLAS_EXECUTOR_CUDA (cuda:N) */
    int threads;    /* CPU executor threads; 0 = all cores */
    int slices;     /* Ozaki I slice count, 2..20 */
    int ozaki1_variant; /* an ozblas_ozaki1_variant */
    void *stream;   /* CUDA executor: the cudaStream_t to run on (NULL = the legacy default
                       stream); the call returns after the work on it has finished */
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
                        before alpha and beta are applied (the count's, or the maximum count's
                        after an ACCURACY fallback); -1 when not computed */
    double phase_seconds[5]; /* Ozaki II: 0 stats and scaling bounds, 1 scaling and residues,
                                2 integer products, 3 modular reduction, 4 CRT and update
                                (device-event timed on CUDA; zeros when not measured) */
} ozblas_report;

/* A context: reusable workspace and cached tables. Thread-safe: several threads may use
 * one context at once. */
typedef struct ozblas_context ozblas_context;

ozblas_status ozblas_context_create(ozblas_context **ctx);
void ozblas_context_destroy(ozblas_context *ctx);

void ozblas_options_init(ozblas_options *opt);
/* Reads OZBLAS_METHOD, OZBLAS_MODULI, OZBLAS_SCALING, OZBLAS_SLICES, OZBLAS_OZAKI1_VARIANT,
 * OZBLAS_DEVICE, OZBLAS_NUM_THREADS.
 * On a bad value returns OZBLAS_ERR_INVALID_ARGUMENT and writes a message naming the
 * variable, the value and the accepted values into err (if err_len > 0); opt keeps defaults. */
ozblas_status ozblas_options_from_env(ozblas_options *opt, char *err, size_t err_len);

/* C := alpha * op(A) * op(B) + beta * C, column-major, op 'N', 'T' or 'C' (either case).
 * beta == 0 never reads C. report may be NULL. */
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

const char *ozblas_status_name(ozblas_status s);
const char *ozblas_status_message(ozblas_status s);
const char *ozblas_fallback_name(int fallback);
const char *ozblas_version(void);

/* Executors built into this library and whether each can run here. why receives a short
 * reason when it cannot. Returns 1 when usable. */
int ozblas_executor_available(int executor, char *why, size_t why_len);
/* One line about the CUDA executor: device, compute capability, cuBLAS loaded, or why none. */
const char *ozblas_cuda_describe(void);
/* Path of the host BLAS library ozblas found (empty if none yet). */
const char *ozblas_host_blas_path(void);

/* Ozaki II moduli table, for the reference implementation and the tests. */
int ozblas_ozaki2_max_moduli(void);
int ozblas_ozaki2_modulus(int index);
/* floor(log2(prod of the first n moduli)) - 1: the bits alpha_i + beta_j may spend. */
int ozblas_ozaki2_budget_bits(int n);

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
} ozblas_shim_stat;

/* Defined in libozblas_preload.so (not libozblas.so): copies the cells with at least one
 * call into out (at most cap of them) and returns how many there are, so that a call with
 * cap 0 sizes the buffer. Thread-safe; each value is read atomically, the set is not a
 * snapshot of one instant. */
int ozblas_shim_stats(ozblas_shim_stat *out, int cap);

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
 * disable and trace ("" none, "-" stderr, or a path), replacing those read from the
 * OZBLAS_* environment; with opt NULL the environment is read again (returns
 * OZBLAS_ERR_INVALID_ARGUMENT for a bad value there: calls then stay native). */
int ozblas_preload_configure(const ozblas_options *opt, int64_t min_size, int disable,
                             const char *trace);

/* OZBLAS_CDEF_END */

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif /* OZBLAS_H */
