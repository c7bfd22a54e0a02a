/* What the two halves of libozblas_preload.so share: shim.c (the host BLAS names) and
 * shim_cublas.c (the cuBLAS names). One set of settings, one routing decision, one set of
 * counters, one trace format, one real-symbol lookup. Internal: nothing here is exported. */
#ifndef OZ_SHIM_INTERNAL_H
#define OZ_SHIM_INTERNAL_H

#include <stdint.h>

#include "ozblas.h"
#include "../core/oz_internal.h" /* oz_malloc */
#include "shim_names.h"

#define OZ_EXPORT __attribute__((visibility("default")))

enum { K_GEMM, K_SYRK, K_HERK, K_LAPACK };
enum { R_NATIVE, R_OZBLAS, R_QUICK };

/* The routines' rows of counters (cuBLAS calls count as dgemm and zgemm). */
#define OZ_ROUTINE_INDEX(r, e) RI_##r,
#define OZ_LAPACK_INDEX(r, e, shape) RI_##r,
enum { OZ_SHIM_ALL_ROUTINES(OZ_ROUTINE_INDEX, OZ_LAPACK_INDEX) RI_N };

/* Why a call went to the real routine: the counters' detail and the trace's reason (which
 * adds the value of OZBLAS_MIN_SIZE or the status of a failed ozblas call). The last
 * group is for cuBLAS calls only. */
#define OZ_NATIVE_REASONS(X)                                      \
    X(N_ARGUMENT, "argument error")                               \
    X(N_DISABLED, "OZBLAS_DISABLE=1")                             \
    X(N_BAD_SETTING, "bad OZBLAS_* setting")                      \
    X(N_METHOD_NATIVE, "OZBLAS_METHOD=native")                    \
    X(N_ROUTINES, "OZBLAS_ROUTINES leaves it (or its caller) native") \
    X(N_MIN_SIZE, "below OZBLAS_MIN_SIZE")                        \
    X(N_ZERO, "alpha or k zero")                                  \
    X(N_AUTO_CAL, "auto chose native (calibrated profile)")       \
    X(N_AUTO_EST, "auto chose native (built-in estimate: not calibrated, run `ozblas calibrate`)") \
    X(N_AUTO_DEVICE, "OZBLAS_DEVICE asks for a CUDA executor that is not usable") \
    X(N_FAILED, "ozblas failed")                                  \
    X(N_NO_REAL, "real routine not found; C unchanged")           \
    X(N_HANDLE, "cuBLAS handle query failed")                     \
    X(N_POINTER_MODE, "device pointer mode")                      \
    X(N_COMPUTE_TYPE, "compute type not CUBLAS_COMPUTE_64F")      \
    X(N_PEDANTIC, "pedantic math mode")                           \
    X(N_NO_EXECUTOR, "no usable CUDA executor")                   \
    X(N_CONTEXT, "no current primary CUDA context")               \
    X(N_CAPTURE, "stream is capturing a CUDA graph")              \
    X(N_NOT_DEVICE, "operands not in device memory")             \
    X(N_NONFINITE, "non-finite input")                           \
    X(N_WORKSPACE_QUERY, "workspace query")                      \
    X(N_ONE_BLOCK, "one block (order <= the LAPACK block size)")  \
    X(N_OUT_OF_PLACE, "cuBLAS trmm out of place (C != B)")       \
    X(N_QL_FORM, "uplo U: QL-form reflectors, not routed")      \
    X(N_LT_DESCRIPTOR, "cuBLASLt descriptor attribute unreadable") \
    X(N_LT_SCALING, "cuBLASLt scale type, scale or amax pointer") \
    X(N_LT_EPILOGUE, "cuBLASLt epilogue not DEFAULT, or BIAS with beta != 0") \
    X(N_LT_LAYOUT, "cuBLASLt layout not column order")            \
    X(N_LT_POINTER_MODE, "cuBLASLt vector pointer mode")          \
    X(N_LT_OVERLAP, "cuBLASLt C overlaps D without being D")
#define OZ_REASON_ENUM(e, text) e,
enum { OZ_NATIVE_REASONS(OZ_REASON_ENUM) N_COUNT };

/* One exported name. */
typedef struct {
    const char *symbol, *routine;
    int kind, cplx;
    void *real;   /* atomic; NULL until found */
    int warned;   /* atomic; the "not found" message was printed */
    int index;    /* RI_*: the routine's row of counters */
    int device;   /* a cuBLAS name: its real routine runs on the GPU (trace: executor=cublas) */
} oz_slot;

typedef struct {
    int kind, cplx;
    char ta, tb, uplo; /* column-major, upper case; trans of SYRK/HERK in ta */
    int64_t m, n, k, lda, ldb, ldc;
    double alpha[2], beta[2];
    const double *A, *B;
    double *C;
    int64_t batch; /* products: a strided-batched cuBLAS call's count, 1 otherwise */
    int on_device; /* A, B and C in device memory (cuBLAS calls): method auto weighs the
                      device's candidates only */
    double flops;  /* K_LAPACK: the nominal flops of the call (oz_lapack_flops) */
    int update;    /* a BLAS update (C := alpha (...) + beta C; trsm/trmm: B := alpha (...)),
                      whose alpha = 0 or k = 0 is BLAS's C := beta C (shim_decide) */
    int routine;   /* RI_*: the entry's routine, which OZBLAS_ROUTINES may leave native */
} shim_call;

typedef struct {
    int route;
    int why;          /* R_NATIVE: an N_* reason */
    int method;       /* to emulate: the method and executor decided (method auto's choice, */
    int executor;     /* or the settings'), passed to the C API as they are */
    ozblas_status st; /* N_FAILED: what ozblas returned */
    int zero;         /* alpha = 0 or k = 0: C := beta C by ozblas on the host (R_QUICK once
                         done; method as set, executor cpu) */
    int held;         /* left native by OZBLAS_ROUTINES: the thread's calls until this one is
                         counted are native too (shim.c, left_native_depth) */
    ozblas_report rep;
    double product_seconds, host_seconds, host_flops; /* a LAPACK routine's (lap_done) */
} shim_result;

/* The settings read on the first call (shim_begin reads them). */
const ozblas_options *shim_options(void);
ozblas_context *shim_context(void);
/* A usable CUDA executor (asked once; 0 in a forked child of a process that asked). */
int gpu_usable(void);

/* The real routine of a slot among the loaded objects (never an ozblas library); NULL,
 * and one message per slot, when none defines it. */
void *shim_real(oz_slot *s);

/* Start of a call (c: its sizes): settings read, r set to native; returns the start time,
 * or -1 for a call that is counted but not timed. */
double shim_begin(shim_result *r, const shim_call *c);
/* The column-major GEMM call; check_gemm: netlib's argument check (NULL when valid). */
void fill_gemm(shim_call *c, int cplx, char ta, char tb, int64_t m, int64_t n, int64_t k,
               const double *alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
               const double *beta, void *C, int64_t ldc);
const char *check_gemm(const shim_call *c);
/* The routing decision shared by every entry (bad: an argument error, or NULL): 1 when
 * the call is for ozblas (emulated, or with r->zero BLAS's C := beta C); 0 when it is done
 * (a quick return, r->route R_QUICK) or must run natively (r->why says why). */
int shim_decide(const shim_call *c, const char *bad, shim_result *r);
/* The decision and the emulated call: 1 when done (quick return or routed), 0 when the
 * real routine must run (r->why says why). The entries of shim_blas.c call it. */
int shim_handle(shim_call *c, const char *bad, shim_result *r);
/* Counts the call and writes its trace line (with OZBLAS_TRACE). */
void shim_end(const oz_slot *s, const shim_call *c, const shim_result *r, double t0);
/* The parts of shim_end the LAPACK entries (shim_lapack.c) use with their own trace line:
 * the clock, the counters, the reason text of a native route, the trace (NULL line:
 * whether one is written). */
double shim_now(void);
void shim_count(const oz_slot *s, const shim_call *c, const shim_result *r, double dt);
const char *shim_reason(const shim_result *r, char *buf, size_t len);
int shim_trace_line(const char *line, int len);
const char *shim_method_name(int method);     /* "auto", "native", "ozaki1", "ozaki2" */
const char *shim_executor_name(int executor); /* "auto", "cpu", "cuda" */

#endif
