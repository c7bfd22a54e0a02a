/* Internal interfaces between the API layer, the numerics and the executors. */
#ifndef OZ_INTERNAL_H
#define OZ_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ozblas.h"
#include "../numerics/ozaki2.h"

/* Method auto's choice for a call (core/api.c), kept for the split driver's time check. */
typedef struct {
    ozblas_candidate choice;
    int executors; /* the executors that competed (bit mask) */
    int on_device;
} oz_auto_plan;

/* One GEMM call, arguments already checked; dimensions are nonzero and alpha != 0 (api.c
 * answers alpha = 0 and k = 0 itself: C := beta C). */
typedef struct {
    int is_complex;
    char transa, transb; /* 'N', 'T' or 'C', upper case */
    int64_t m, n, k;
    double alpha[2], beta[2];
    int beta_zero;
    const double *A;
    int64_t lda;
    const double *B;
    int64_t ldb;
    double *C;
    int64_t ldc;
    int max_count; /* automatic precision's largest moduli/slices count, 0: the scheme's
                      maximum; method auto sets the largest the policy predicts faster than
                      native (oz_policy_max_count) */
    oz_auto_plan plan; /* method auto (max_count set): its choice */
    int part; /* 1: one part product of a split call (core/driver_split.c), not split again */
    int dd;   /* Ozaki II leaves op(A) op(B) unrounded, alpha 1 and beta 0 ignored: entry
                 (i, j) at C + 2w (i + j ldc) (w 1 real, 2 complex) as hi, lo of the real
                 part, then of the imaginary part (oz2_crt_store_dd) */
    int herm; /* OZ_HERM_SAME: op(B) is op(A)^H, the same matrix (m = n); OZ_HERM_SWAP:
                 op(B) is (op(A) J)^H, J swapping the halves of k (HER2K's form, ozaki2.h
                 oz2_products_per_call_modulus). C is Hermitian. Set by the Ozaki II driver
                 alone (oz_ozaki2); the executors then keep both sides' bits equal and, on
                 the complex set, take one product per modulus (ozaki2.h oz2_herm_bits) */
} oz_gemm_call;
enum { OZ_HERM_NONE, OZ_HERM_SAME, OZ_HERM_SWAP };

/* An executor runs calls somewhere: natively, or the phases of the Ozaki schemes through
 * its kernel table (core/phase_kernels.h), which the scheme drivers (core/driver_*.c) call.
 * An executor never decides a fallback or calls another executor; core/ reaches executors
 * only through this table (oz_executor_get), never by name. */
typedef struct oz_kernels oz_kernels;
typedef struct oz_batch_kernels oz_batch_kernels;
typedef struct oz_exact_kernels oz_exact_kernels;
typedef struct oz_executor oz_executor;
struct oz_executor {
    int id; /* an ozblas_executor */
    const char *name;
    int (*available)(char *why, size_t why_len);
    ozblas_status (*native)(const oz_gemm_call *call, const ozblas_options *opt);
    const oz_kernels *kernels;
    /* Whether the product engine (one of kernels->engines) runs on device device now, with
     * the reason in why (NULL: every engine of kernels->engines always does). */
    int (*engine_usable)(int engine, int device, char *why, size_t why_len);
    /* The exact products' kernels (accuracy "correct" and the double-double products;
     * core/phase_kernels.h, driven by core/exact_gemm.c); NULL: none. */
    const oz_exact_kernels *exact;
    /* Ozaki II over a batch of products (core/phase_kernels.h); NULL: the executor runs a
     * batch one product at a time. */
    const oz_batch_kernels *batch;
    /* An executor with memory of its own (a device executor) has the entries below; the
     * host's has none of them (NULL). owns: 1 when p is that memory. */
    int (*owns)(const void *p);
    /* C := beta C (m x n in its memory; beta 0: zeros, C not read) with oz_scale_element,
     * on opt->device and opt->stream, waited for: a product with alpha = 0 or k = 0. */
    ozblas_status (*scale)(const ozblas_options *opt, int cplx, int64_t m, int64_t n,
                           const double *beta, double *C, int64_t ldc);
    /* A 2-D copy between any of host memory and its memory (widths and pitches in bytes),
     * on opt->device, waited for; 0 on success. */
    int (*copy)(const ozblas_options *opt, void *dst, size_t dpitch, const void *src,
                size_t spitch, size_t width, size_t rows);
    /* What the LAPACK layer keeps in its memory for a run (lapack/lapack_api.c,
     * lapack_seam.c), each on opt->device and opt->stream, waited for. mem_alloc: NULL when
     * the device is short or unusable; mem_budget: the bytes a call may plan with, or why
     * opt's device cannot be used; laswp: LAPACK's row interchanges k1..k2 (1-based) on A
     * in its memory with the pivots at dpiv (its memory too, indexed as ipiv), 0 on
     * success. */
    void *(*mem_alloc)(const ozblas_options *opt, size_t bytes);
    void (*mem_free)(const ozblas_options *opt, void *p);
    ozblas_status (*mem_budget)(const ozblas_options *opt, size_t *bytes);
    int (*laswp)(const ozblas_options *opt, int cplx, int64_t n, double *A, int64_t lda,
                 int64_t k1, int64_t k2, const int64_t *dpiv, int64_t incx);
    /* HER2K's operand U (n x 3k, numerics/her2k.h) in its memory from P and Q in its memory,
     * by the host's element steps (oz_her2k_operands), 0 on success; same_cols: 1 when cols
     * columns of rows doubles at a and at b (its memory, pitch ld doubles) are equal bit for
     * bit (HER2K's form, core/driver_ozaki2.c), 0 when not or it cannot tell. Both on
     * opt->device and opt->stream, waited for. */
    int (*her2k_operands)(const ozblas_options *opt, char trans, int64_t n, int64_t k,
                          const double *alpha, const double *P, int64_t ldp, const double *Q,
                          int64_t ldq, double *U);
    int (*same_cols)(const ozblas_options *opt, const double *a, const double *b, int64_t rows,
                     int64_t cols, int64_t ld);
    /* 1 when every device opt->devices lists exists here (all: at least one); else 0 and
     * why names the missing one. */
    int (*devices_check)(const ozblas_options *opt, char *why, size_t len);
    /* The executor spreading each call with host operands over the devices of a device
     * list (opt->devices) as tiles of C; NULL: none. */
    const oz_executor *(*spread)(void);
    /* One line for `ozblas info` (the library, the devices, or why it is unusable). */
    const char *(*describe)(void);
    /* For the policy's profile key: the name and driver version of device dev; 0 when the
     * executor is unusable or dev does not exist. */
    int (*device_identity)(int dev, char *name, size_t name_len, int *driver);
};
/* The executor every fallback to host memory runs on (and that takes no device memory). */
#define OZ_HOST_EXECUTOR OZBLAS_EXECUTOR_CPU

/* An executor's status for "not enough device memory for this call" (never returned by the
 * API: the dispatcher runs such a call on the CPU when its operands are on the host). */
#define OZ_ERR_DEVICE_MEMORY ((ozblas_status)100)

#define OZ1_MAX_SLICES 40
#define OZ_MAX_THREADS 4096 /* OZBLAS_NUM_THREADS / options.threads: more is a typo, not a machine */
#define OZ_MAX_DEVICE 1023  /* the largest cuda:N ordinal accepted */
#define OZ_MAX_DEVICE_LIST 63 /* the largest ordinal in a device list (one bit of a uint64_t) */

/* core/policy_model.c: the largest count (>= choice->count) whose predicted time for the
 * method, executor, scaling and variant of choice stays below every native candidate among
 * executors (bit mask), on this machine's profile; choice->count when none is. */
int oz_policy_max_count(int is_complex, int64_t m, int64_t n, int64_t k, int on_device,
                        int executors, const ozblas_candidate *choice);
/* The same model's seconds for one product of plan's choice at count (emu), and for the
 * fastest native candidate (native): the split driver sums its parts' against native. */
void oz_policy_part_seconds(int is_complex, int64_t m, int64_t n, int64_t k,
                            const oz_auto_plan *plan, int count, double *emu, double *native);

/* executor_table.c (the one list of built-in executors): the executor of an ozblas_executor
 * id; NULL when not built. */
const oz_executor *oz_executor_get(int id);
/* core/executors.c: the executor whose memory p is (a device executor's owns); NULL for host
 * memory, a NULL pointer, or an unusable executor. */
const oz_executor *oz_memory_owner(const void *p);
/* The executor that executor auto starts from: the CUDA executor where it is usable, else
 * the host's. */
const oz_executor *oz_executor_auto(void);
/* The one rule of which executor a call runs on, before method auto's policy picks per
 * product (gemm_route, oz_exact_run, the LAPACK layer's runs): the executor asked for (NULL
 * when not built); under executor auto the one whose memory the operands are in (owner:
 * oz_memory_owner of one of them, NULL for host memory), else the host's for an exact
 * product (exact: accuracy "correct" or a double-double product; the policy has no cost
 * model for them), else oz_executor_auto's. */
const oz_executor *oz_executor_for(const ozblas_options *opt, int exact,
                                   const oz_executor *owner);
/* The name and driver version of GPU dev (the CUDA executor's device_identity); 0 without
 * one. */
int oz_gpu_identity(int dev, char *name, size_t name_len, int *driver);
/* Whether executor ex's kernels run the product engine of opt on opt's device (the one
 * decision behind the drivers' OZBLAS_FALLBACK_ENGINE); why: the reason (may be NULL). */
int oz_engine_usable(const oz_executor *ex, const ozblas_options *opt, char *why, size_t why_len);

/* core/exact_gemm.c: the one decision of where an exact product runs (accuracy "correct",
 * lo NULL: C = alpha RN(op(A) op(B)) + beta C; or the double-double op(A) op(B), hi into C,
 * lo into lo), then the run on that executor's exact entry: executor cuda, or executor auto
 * with an operand in device memory, on that device's executor; the host's otherwise, and
 * where the device is short of memory for a product with host operands. Sets the report's
 * executor and devices. */
ozblas_status oz_exact_run(const oz_gemm_call *call, const ozblas_options *opt, double *lo,
                           int64_t ldlo, ozblas_report *report);
/* "not built: " and why (build_info.c), for a library without the CUDA executor. */
const char *oz_build_not_built(void);

/* The scheme drivers (core/driver_ozaki2.c, core/driver_ozaki1.c): one call of Ozaki II
 * (opt->moduli, 0: automatic) or Ozaki I (opt->slices, opt->ozaki1_variant) on executor ex.
 * Either C is computed, or report->fallback is set and C is untouched (the dispatcher then
 * computes the call natively). */
ozblas_status oz_ozaki2(const oz_executor *ex, const oz_gemm_call *call,
                        const ozblas_options *opt, ozblas_report *report);
ozblas_status oz_ozaki1(const oz_executor *ex, const oz_gemm_call *call,
                        const ozblas_options *opt, ozblas_report *report);
/* core/driver_batch.c: the Ozaki II products of calls[0..nb-1] (one shape, each routed
 * to method OZAKI2 on ex with opt, as gemm_route leaves them) as batches on ex's batch
 * kernels: each product's C and reps[i] what oz_ozaki2 gives it alone, done[i] = 1. A
 * product that would fall back (or be split, or needs more device memory than a batch
 * gives it) keeps done[i] = 0 and its C untouched: the caller runs it alone. A failure's
 * status is returned with the products of the failing batch not done. */
ozblas_status oz_ozaki2_batch(const oz_executor *ex, oz_gemm_call *const *calls, int64_t nb,
                              const ozblas_options *opt, ozblas_report *const *reps,
                              unsigned char *done);
/* core/driver_split.c: after a driver's automatic precision found no count (report->fallback
 * ACCURACY, or AUTO_NATIVE: method auto's cap), the call split into parts by exponent band, each part its own product of
 * method on ex; the report says how many. Leaves the report's fallback and C as they were
 * where it cannot (operands on a device, a part that still finds no count). */
ozblas_status oz_split(const oz_executor *ex, int method, const oz_gemm_call *call,
                       const ozblas_options *opt, ozblas_report *report);

/* core/config.c: OZBLAS_CUBLAS_LIB (NULL when unset) and OZBLAS_CUDA_VERBOSE. */
const char *oz_env_cublas_lib(void);
int oz_env_cuda_verbose(void);

/* Internal functions the preload shim (libozblas_preload.so, which links libozblas.so)
 * calls: exported from libozblas.so but not part of the public API in ozblas.h. */
#define OZ_SHIM_API __attribute__((visibility("default")))
/* Test-only entry points (tests/, benchmarks/ through ctypes): exported, not in ozblas.h. */
#define OZ_TEST_HOOK __attribute__((visibility("default")))

/* core/alloc.c: every host workspace comes from oz_malloc/oz_calloc (freed with free), and
 * every device allocation asks oz_alloc_fault first (1: fail it): one count, which the
 * test-only fault injection point of alloc.c makes fail at the N-th. oz_alloc_warn: the
 * one warning line of a process whose call (what: e.g. "dgemm") went to the host routine
 * for want of memory. */
OZ_SHIM_API void *oz_malloc(size_t bytes);
OZ_SHIM_API void *oz_calloc(size_t n, size_t size);
int oz_alloc_fault(void);
OZ_SHIM_API void oz_alloc_warn(const char *what);

/* core/api.c: a batch of products of one shape, A_b = A[b], B_b = B[b], C_b = C[b] (host
 * arrays of pointers to host or device memory), as ozblas_dgemm_batched (cplx 0: alpha[0]
 * and beta[0]) or ozblas_zgemm_batched. done (batch entries; may be NULL): 1 for each
 * product computed (or a quick return), 0 for each left as it was (C untouched: after an
 * error, the failing product and those not reached). */
OZ_SHIM_API ozblas_status oz_gemm_batch(ozblas_context *ctx, int cplx, char transa, char transb,
                                        int64_t m, int64_t n, int64_t k, const double *alpha,
                                        const double *const *A, int64_t lda,
                                        const double *const *B, int64_t ldb,
                                        const double *beta, double *const *C, int64_t ldc,
                                        int64_t batch, const ozblas_options *opt,
                                        ozblas_report *report, unsigned char *done);

/* core/dispatch.c: the one routing decision of a product, for the C API (gemm_route) and
 * the preload shim (shim_decide). */
enum { OZ_ROUTE_QUICK, OZ_ROUTE_SCALE, OZ_ROUTE_NATIVE, OZ_ROUTE_EXACT, OZ_ROUTE_EMULATE };
enum { /* why a product is native (OZ_ROUTE_NATIVE) */
    OZ_WHY_NONE,
    OZ_WHY_DISABLED,      /* the shim's OZBLAS_DISABLE */
    OZ_WHY_BAD_SETTING,   /* the shim's settings do not parse */
    OZ_WHY_METHOD_NATIVE, /* method native */
    OZ_WHY_MIN_SIZE,      /* min(m, n, k) below the shim's OZBLAS_MIN_SIZE */
    OZ_WHY_ZERO,          /* alpha = 0 or k = 0 in device memory, left to the device's BLAS */
    OZ_WHY_AUTO_DEVICE,   /* method auto, no executor may compete (device data, no device) */
    OZ_WHY_AUTO_NATIVE,   /* method auto chose native (or found no candidate) */
    OZ_WHY_ROUTINES       /* the shim's OZBLAS_ROUTINES leaves the routine native */
};
typedef struct {
    int cplx;
    int64_t m, n, k;
    const double *alpha, *beta; /* two doubles each (real and imaginary parts) */
    int on_device;   /* the operands are in a device executor's memory */
    /* Whether a device executor may compete under method auto, asked only then (ctx: its
     * argument); NULL: none may. */
    int (*device_usable)(const void *ctx);
    const void *ctx;
    int update;       /* BLAS's rule applies: alpha = 0 or k = 0 is C := beta C, by ozblas */
    int scale_device; /* ... in device memory too (the C API; the shim leaves it to cuBLAS) */
    int64_t min_size; /* the shim's gate (the C API: 0, 0, 0) */
    int disable, bad_settings;
    int left_native;  /* the shim's OZBLAS_ROUTINES leaves the call's routine native */
} oz_dispatch_in;
typedef struct {
    int route, why;
    int method, executor; /* what to run: opt's, or method auto's choice */
    int mask;             /* method auto: the executors that competed (bit mask) */
    int decided;          /* method auto: choice holds the policy's answer */
    ozblas_candidate choice;
} oz_dispatch;
OZ_SHIM_API void oz_dispatch_decide(const oz_dispatch_in *in, const ozblas_options *opt,
                                    oz_dispatch *d);
/* core/config.c: whether every field of opt is in its setting's range (config.c's table;
 * target too); a moduli count beyond its engine's list is ozblas_options_conflict's. */
int oz_options_valid(const ozblas_options *opt);

/* core/launcher.c: the launcher's rank on the node (OMPI_COMM_WORLD_LOCAL_RANK,
 * SLURM_LOCALID, LOCAL_RANK, MPI_LOCALRANKID: the first set) and its global rank
 * (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID, RANK), -1 without a launcher. */
OZ_SHIM_API int oz_launcher_local_rank(void);
OZ_SHIM_API int oz_launcher_rank(void);
/* in with each "%r" replaced by the rank, or the process id without a launcher; 0 when out
 * (len bytes) is too small. */
OZ_SHIM_API int oz_expand_rank(const char *in, char *out, size_t len);
/* OZBLAS_DEVICE=auto's GPU: the local rank modulo the device count, 0 without either. */
OZ_SHIM_API int oz_auto_device_for(int local_rank, int ndev);

/* core/config.c: the shim's own settings, OZBLAS_MIN_SIZE, OZBLAS_DISABLE, OZBLAS_TRACE,
 * OZBLAS_SUMMARY, OZBLAS_SUMMARY_FILE. On a bad value returns OZBLAS_ERR_INVALID_ARGUMENT with a message in
 * err; e keeps the defaults (min_size 256, disable 0, no trace, no summary). */
typedef struct {
    int64_t min_size;
    int disable;
    char trace[1024]; /* "" (none), "-" (stderr) or a file path */
    int summary;      /* 1: a table of the calls per routine and route at exit */
    char summary_file[1024]; /* where it goes: "" or "-" (stderr) or a file path */
    int64_t lapack_nb; /* OZBLAS_LAPACK_NB: the LAPACK layer's block size, 0: its size rule */
    uint64_t native_routines[2]; /* OZBLAS_ROUTINES: ozblas_setting's bits (0: all routed) */
} oz_shim_env;
/* Room for OZBLAS_ROUTINES' bits; routine i is left native by bits (an ozblas_setting's or
 * oz_shim_env's native_routines): the one test, for every place that routes a call. */
#define OZ_ROUTINE_BITS 128
static inline int oz_routine_native(const uint64_t bits[2], int i)
{
    return i >= 0 && i < OZ_ROUTINE_BITS && (bits[i / 64] >> (i % 64) & 1);
}
/* OZBLAS_LAPACK_NB alone (0 when unset); the LAPACK layer's default block size reads it. */
ozblas_status oz_env_lapack_nb(int64_t *nb, char *err, size_t err_len);
OZ_SHIM_API void oz_shim_env_init(oz_shim_env *e);
OZ_SHIM_API ozblas_status oz_shim_env_from_env(oz_shim_env *e, char *err, size_t err_len);

/* lapack/lapack_api.c: nominal flops of a LAPACK-layer operation (LAPACK's counts of
 * multiply-adds times 2, 4x that for complex), for its report and the shim's counters.
 * m, n: the matrix (square ones: n); nrhs: right-hand sides (trsm: the triangle's order). */
enum { OZ_LF_GETRF, OZ_LF_GETRS, OZ_LF_GESV, OZ_LF_GETRI, OZ_LF_POTRF, OZ_LF_POTRS, OZ_LF_POSV,
       OZ_LF_POTRI, OZ_LF_TRTRI, OZ_LF_TRTRS, OZ_LF_TRSM,
       OZ_LF_SYTRF, OZ_LF_SYTRS, OZ_LF_SYTRI, OZ_LF_SYSV };
OZ_SHIM_API double oz_lapack_flops(int op, int cplx, int64_t m, int64_t n, int64_t nrhs);
/* netlib's argument check of an OZ_LF_* operation (trsm's also for trmm): 0, or -i for
 * the first bad argument (its position, as xerbla reports it). Characters in either case;
 * lwork: getri's, sytrf's, sysv's (-1: a workspace query). */
typedef struct {
    int op;
    char side, uplo, trans, diag;
    int64_t m, n, nrhs, lda, ldb, lwork;
} oz_lapack_args;
OZ_SHIM_API int64_t oz_lapack_check(const oz_lapack_args *args);

/* lapack/lapack_qr.c: netlib's argument checks of geqrf, orgqr/ungqr, ormqr/unmqr and their
 * LQ mirrors gelqf, orglq/unglq, ormlq/unmlq (0, or -i; the lwork check is the shim's, the C
 * entries allocate their own workspace) and LAPACK's nominal flops (side: ormqr's). */
enum { OZ_QR_GEQRF, OZ_QR_ORGQR, OZ_QR_ORMQR, OZ_QR_GELQF, OZ_QR_ORGLQ, OZ_QR_ORMLQ };
OZ_SHIM_API int64_t oz_qr_check(int op, int cplx, char side, char trans, int64_t m, int64_t n,
                                int64_t k, int64_t lda, int64_t ldc);
OZ_SHIM_API double oz_qr_flops(int op, int cplx, char side, int64_t m, int64_t n, int64_t k);
/* lapack/lapack_hess.c: the same for gehrd, orghr/unghr, ormhr/unmhr (ilo, ihi 1-based;
 * m, n: ormhr's C, else n the order). */
enum { OZ_HR_GEHRD, OZ_HR_ORGHR, OZ_HR_ORMHR };
OZ_SHIM_API int64_t oz_hr_check(int op, int cplx, char side, char trans, int64_t m, int64_t n,
                                int64_t ilo, int64_t ihi, int64_t lda, int64_t ldc);
OZ_SHIM_API double oz_hr_flops(int op, int cplx, char side, int64_t m, int64_t n, int64_t ilo,
                               int64_t ihi);
/* lapack/lapack_gels.c: the same for gels (the lwork check is the shim's). */
OZ_SHIM_API int64_t oz_gels_check(int cplx, char trans, int64_t m, int64_t n, int64_t nrhs,
                                  int64_t lda, int64_t ldb);
OZ_SHIM_API double oz_gels_flops(int cplx, int64_t m, int64_t n, int64_t nrhs);
/* lapack/lapack_brd.c: the same for gebrd, orgbr/ungbr, ormbr/unmbr (vect 'Q' or 'P'; m, n,
 * k as LAPACK's; side: ormbr's). */
enum { OZ_BR_GEBRD, OZ_BR_ORGBR, OZ_BR_ORMBR };
OZ_SHIM_API int64_t oz_brd_check(int op, int cplx, char vect, char side, char trans, int64_t m,
                                 int64_t n, int64_t k, int64_t lda, int64_t ldc);
OZ_SHIM_API double oz_brd_flops(int op, int cplx, char vect, char side, int64_t m, int64_t n,
                                int64_t k);
/* lapack/lapack_gels.c: the same for gelsy (the lwork check is the shim's). */
OZ_SHIM_API int64_t oz_gelsy_check(int64_t m, int64_t n, int64_t nrhs, int64_t lda, int64_t ldb);
OZ_SHIM_API double oz_gelsy_flops(int cplx, int64_t m, int64_t n, int64_t nrhs);
OZ_SHIM_API int64_t oz_gesdd_check(char jobz, int64_t m, int64_t n, int64_t lda, int64_t ldu,
                                   int64_t ldvt);
OZ_SHIM_API double oz_gesdd_flops(int cplx, char jobz, int64_t m, int64_t n);
OZ_SHIM_API double oz_gelsd_flops(int cplx, int64_t m, int64_t n, int64_t nrhs);
OZ_SHIM_API int64_t oz_gesvd_check(char jobu, char jobvt, int64_t m, int64_t n, int64_t lda,
                                   int64_t ldu, int64_t ldvt);
OZ_SHIM_API double oz_gesvd_flops(int cplx, char jobu, char jobvt, int64_t m, int64_t n);
/* lapack/lapack_geev.c: the same for geev (cplx: zgeev's argument numbers) and gees */
OZ_SHIM_API int64_t oz_geev_check(int cplx, char jobvl, char jobvr, int64_t n, int64_t lda,
                                  int64_t ldvl, int64_t ldvr);
OZ_SHIM_API double oz_geev_flops(int cplx, char jobvl, char jobvr, int64_t n);
OZ_SHIM_API int64_t oz_gees_check(int cplx, char jobvs, char sort, int have_select, int64_t n,
                                  int64_t lda, int64_t ldvs);
OZ_SHIM_API double oz_gees_flops(int cplx, char jobvs, int64_t n);
/* lapack/lapack_blas3.c: the same for symm, hemm, syr2k, her2k (column-major form; m, n:
 * C's; k: syr2k's inner dimension). */
enum { OZ_L3_SYMM, OZ_L3_HEMM, OZ_L3_SYR2K, OZ_L3_HER2K };
OZ_SHIM_API int64_t oz_l3_check(int op, int cplx, char side, char uplo, char trans, int64_t m,
                                int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc);
OZ_SHIM_API double oz_l3_flops(int op, int cplx, char side, int64_t m, int64_t n, int64_t k);
/* lapack/lapack_sygst.c, lapack/lapack_trsyl.c: netlib's argument checks of sygst/hegst and
 * trsyl (0, or -i; trana/tranb 'N', 'T', 'C' real, 'N', 'C' complex) and LAPACK's nominal
 * flops (sygst n^3, trsyl m n (m + n); 4x complex). */
OZ_SHIM_API int64_t oz_sygst_check(int64_t itype, char uplo, int64_t n, int64_t lda, int64_t ldb);
OZ_SHIM_API double oz_sygst_flops(int cplx, int64_t n);
OZ_SHIM_API int64_t oz_trsyl_check(int cplx, char trana, char tranb, int64_t isgn, int64_t m,
                                   int64_t n, int64_t lda, int64_t ldb, int64_t ldc);
OZ_SHIM_API double oz_trsyl_flops(int cplx, int64_t m, int64_t n);
/* lapack/lapack_eigen.c: netlib's argument checks of syevd/heevd (OZ_EV_SYEVD), syev/heev
 * (OZ_EV_SYEV) and syevr/heevr (OZ_EV_SYEVR): 0, or -i (ldz: syevr's; the lwork checks are
 * the shim's, the C entries allocate their own workspace); and the nominal flops reported:
 * the reduction (4/3 n^3) and, with eigenvectors, the back-transformation of m of them
 * (2 n^2 m), 4x for complex (the tridiagonal solver's are not counted: they depend on
 * the spectrum). */
enum { OZ_EV_SYEVD, OZ_EV_SYEV, OZ_EV_SYEVR };
OZ_SHIM_API int64_t oz_ev_check(int kind, char jobz, char range, char uplo, int64_t n,
                                int64_t lda, double vl, double vu, int64_t il, int64_t iu,
                                int64_t ldz);
OZ_SHIM_API double oz_ev_flops(int kind, int cplx, char jobz, int64_t n, int64_t m);
/* lapack/lapack_eigen.c: netlib's argument checks of sygvd/hegvd and sygv/hegv (itype,
 * jobz, uplo, n, lda, ldb: 0 or -i; the lwork checks are the shim's) and their nominal flops
 * (potrf, sygst, the standard problem as oz_ev_flops counts it, the TRSM with eigenvectors). */
OZ_SHIM_API int64_t oz_gv_check(int64_t itype, char jobz, char uplo, int64_t n, int64_t lda,
                                int64_t ldb);
OZ_SHIM_API double oz_gv_flops(int cplx, char jobz, int64_t n);
/* lapack/lapack_eigen.c: the same for sytrd/hetrd, ormtr/unmtr, orgtr/ungtr (netlib's
 * order; ormtr: side, uplo, trans, m, n, lda, ldc) and their nominal flops (sytrd 4/3 n^3,
 * orgtr 4/3 n^3, ormtr 2 m^2 n or 2 n^2 m). */
enum { OZ_TR_SYTRD, OZ_TR_ORMTR, OZ_TR_ORGTR };
OZ_SHIM_API int64_t oz_tr_check(int op, int cplx, char side, char uplo, char trans, int64_t m,
                                int64_t n, int64_t lda, int64_t ldc);
OZ_SHIM_API double oz_tr_flops(int op, int cplx, char side, int64_t m, int64_t n);
/* lapack/lapack_api.c: the one SYRK/HERK code (lapack_drivers.c) for the preload shim's host
 * entries, checked as ozblas_[dz]syrk/zherk (herm: HERK, cplx: complex; alpha and beta as two
 * doubles), the block size by the LAPACK layer's rule, and the products' GEMM reports merged
 * into product for the call's trace and counters. */
OZ_SHIM_API ozblas_status oz_syrk_call(ozblas_context *ctx, int cplx, int herm, char uplo,
                                       char trans, int64_t n, int64_t k, const double *alpha,
                                       const double *A, int64_t lda, const double *beta,
                                       double *C, int64_t ldc, const ozblas_options *opt,
                                       ozblas_report *product);

/* core/driver_ozaki2.c: HER2K's operand U (n x 3k, numerics/her2k.h) in host memory from P
 * and Q in host memory, for one product zgemm('N', 'C', n, n, 2k, ga, U, n, U + 2 n k, n) =
 * alpha op(P) op(Q)^H + conj(alpha) op(Q) op(P)^H (ga: oz_her2k_gain), which the driver runs
 * as one Hermitian product per modulus (oz_gemm_call.herm OZ_HERM_SWAP). */
void oz_her2k_operands(char trans, int64_t n, int64_t k, const double *alpha, const double *P,
                       int64_t ldp, const double *Q, int64_t ldq, double *U);

/* numerics/ozaki2_table.c: the moduli and CRT tables. */
int oz2_max_moduli(int engine); /* the moduli count's maximum on an engine (0: unknown) */
int oz2_auto_hint(int engine);  /* automatic precision's first count on an engine */
int oz2_modulus(int engine, int t);
/* cached, thread-safe; NULL outside 2..oz2_max_moduli(engine) */
const oz2_table *oz2_table_get(int engine, int n);
/* the table a call with moduli count n takes (complex on INT8: the complex set where it
 * reaches n's budget, numerics/ozaki2_table.c); NULL as oz2_table_get */
const oz2_table *oz2_table_call(int engine, int cx, int n);
/* automatic precision's ladder (ozaki2_table.c): the table of rung r, and the rung of the
 * real count n (the first whose budget reaches n's; n itself for real calls and FP4) */
const oz2_table *oz2_auto_table(int engine, int cx, int rung);
int oz2_auto_rung(int engine, int cx, int n);
const oz2_table *oz2_cx_table(int n); /* the complex set's n moduli; NULL outside 2..22 */

/* core/symbol_lookup.c: the first definition of a symbol among the loaded objects, skipping every ozblas library
 * (libozblas.so, libozblas_preload.so: those that export oz_ozblas_library_marker).
 * NULL when none defines it. path (may be NULL) receives the defining object's path.
 * Thread-safe; not cached (callers cache). */
OZ_SHIM_API void *oz_find_real_symbol(const char *name, char *path, size_t path_len);
/* Is the object defining the symbol at addr an ozblas library? */
int oz_in_ozblas_library(const void *addr);
/* The path of the object defining addr (fallback when dladdr cannot say) into path. */
void oz_defining_path(const void *addr, const char *fallback, char *path, size_t len);

#endif
