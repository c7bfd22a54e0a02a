/* What the preload shim's LAPACK-layer entries share (shim_lapack.c: LU, Cholesky,
 * triangular; shim_level3.c: QR and the Level-3 BLAS): the call's state, the decision, the
 * finiteness check, the outcome and the trace line. Internal. */
#ifndef OZ_SHIM_LAPACK_H
#define OZ_SHIM_LAPACK_H

#include "../lapack/lx_util.h" /* max1, up, ... */
#include "shim_internal.h"

typedef struct {
    shim_call c; /* the decision's sizes */
    shim_result r;
    double t0;
    ozblas_lapack_report rep;
    char dims[96]; /* the trace line's sizes */
    ozblas_options opt; /* the settings, with the executor method auto chose for the call */
} lap_call;

/* The decision: 1 when the driver is to run; 0 with the route (quick or native) set.
 * m, n, k: the product the decision (OZBLAS_MIN_SIZE, method auto) weighs; order: at most
 * the LAPACK block size sends the call to the real routine (the driver would be that one
 * call), -1 for none; flops: the call's nominal count; bad: an argument error; quick: a
 * quick return. The trace's sizes are "m= n= k=" unless the caller rewrites L->dims. */
int lap_begin(lap_call *L, int cplx, int64_t m, int64_t n, int64_t k, int64_t order,
              double flops, int bad, int quick);
/* The same for a Level-3 BLAS update with its alpha: alpha = 0 (or k = 0) is BLAS's C :=
 * beta C (B := 0 for trsm/trmm), for the driver on the host with L->r.zero set (A and B
 * not referenced: no finiteness check) whatever the size and method (shim_decide). */
int lap_begin_update(lap_call *L, int cplx, int64_t m, int64_t n, int64_t k, int64_t order,
                     double flops, int bad, int quick, const double *alpha);
/* A workspace query (lwork = -1): to the real routine, its flops not counted; returns 0. */
int lap_query(lap_call *L);
/* Every element of the referenced part finite ('A' all, 'U'/'L' a triangle); otherwise
 * 0 and the call goes to the real routine (IEEE semantics, LAPACK's own info). */
int lap_finite(lap_call *L, int cplx, char uplo, int64_t m, int64_t n, const double *A,
               int64_t ld);
/* The driver's outcome: routed (1), or native when it failed before changing anything. */
int lap_done(lap_call *L, ozblas_status st);
/* Counts the call and writes its trace line (info: the call's LAPACK info). */
void lap_end(const oz_slot *s, const lap_call *L, int64_t info);

#define LAP_RUN(call) (lap_done(L, (call)))
#define LAP_OPT &L->opt, &L->rep

/* An exported entry: the handler, else the real routine with the caller's own arguments
 * (Fortran: all by reference, the hidden character lengths forwarded as received), then the
 * count and the trace line. DONE follows a call the handler computed, PASSED the real
 * routine's (the LAPACK entries' info out and in); C is the element type in HANDLER. */
#define LX_ENTRY(sym, rtn, PARAMS, FN_PARAMS, HANDLER, ARGS, DONE, PASSED)      \
    OZ_EXPORT void sym PARAMS                                                  \
    {                                                                          \
        static oz_slot slot = {#sym, #rtn, K_LAPACK, 0, NULL, 0, RI_##rtn, 0}; \
        const int C = #rtn[0] == 'z';                                          \
        typedef void(*fn_t) FN_PARAMS;                                         \
        lap_call L;                                                            \
        int64_t inf = 0;                                                       \
        (void)C;                                                               \
        L.c.routine = RI_##rtn;                                                \
        if (HANDLER) {                                                         \
            DONE;                                                              \
        } else {                                                               \
            fn_t f = (fn_t)shim_real(&slot);                                   \
            if (f)                                                             \
                f ARGS;                                                        \
            else                                                               \
                L.r.why = N_NO_REAL;                                           \
            PASSED;                                                            \
        }                                                                      \
        lap_end(&slot, &L, inf);                                               \
    }
#define LAP_ENTRY(sym, rtn, T, PARAMS, FN_PARAMS, HANDLER, ARGS) \
    LX_ENTRY(sym, rtn, PARAMS, FN_PARAMS, HANDLER, ARGS, *info = (T)inf, inf = *info)

/* After a routed call, the optimal workspace sizes where the real routine's query puts
 * them (QARGS: its arguments with lwork = liwork = lrwork = -1; the query changes nothing
 * else). */
#define LAP_QUERY_ENTRY(sym, rtn, T, PARAMS, FN_PARAMS, HANDLER, ARGS, QARGS)                   \
    LX_ENTRY(sym, rtn, PARAMS, FN_PARAMS, HANDLER, ARGS,                                     \
             do {                                                                            \
                 T mone = -1;                                                                \
                 T qinfo = 0;                                                                \
                 fn_t f = (fn_t)shim_real(&slot);                                            \
                 *info = (T)inf;                                                             \
                 if (f)                                                                      \
                     f QARGS;                                                                \
             } while (0),                                                                    \
             inf = *info)

/* The entries' element type is the routine name's first letter (C in the bodies). */
#define CH const char *
#define SZ size_t
#define W8(T) (sizeof(T) == 8)

#endif
