/* The exported BLAS entries of the preload shim: each symbol of shim_names.h expanded in its
 * Fortran or CBLAS form, mapped to the column-major call with netlib's argument checks, then
 * handed to shim.c (decision, counters, trace) or to the real routine: a thin check-map-call
 * layer, the way BLIS keeps its compatibility layer, with no decisions in it. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../core/oz_internal.h"
#include "../lapack/lx_util.h" /* max1, up */
#include "shim_internal.h"

/* 'N', 'T' or 'C' */
static int is_trans(char t) { return t == 'N' || t == 'T' || t == 'C'; }

/* Netlib's checks, on the column-major form. NULL when valid. */
const char *check_gemm(const shim_call *c)
{
    if (!is_trans(c->ta) || !is_trans(c->tb) || c->m < 0 ||
        c->n < 0 || c->k < 0 || c->lda < max1(c->ta == 'N' ? c->m : c->k) ||
        c->ldb < max1(c->tb == 'N' ? c->k : c->n) || c->ldc < max1(c->m))
        return "argument error";
    return NULL;
}

static const char *check_syrk(const shim_call *c)
{
    const char *trans = c->kind == K_HERK ? "NC" : c->cplx ? "NT" : "NTC";
    if ((c->uplo != 'U' && c->uplo != 'L') || !c->ta || !strchr(trans, c->ta) || c->n < 0 ||
        c->k < 0 || c->lda < max1(c->ta == 'N' ? c->n : c->k) || c->ldc < max1(c->n))
        return "argument error";
    return NULL;
}

static void scalar(int cplx, const double *p, double out[2])
{
    out[0] = p[0];
    out[1] = cplx ? p[1] : 0.0;
}

void fill_gemm(shim_call *c, int cplx, char ta, char tb, int64_t m, int64_t n, int64_t k,
               const double *alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
               const double *beta, void *C, int64_t ldc)
{
    c->kind = K_GEMM;
    c->cplx = cplx;
    c->ta = up(ta);
    c->tb = up(tb);
    c->uplo = 0;
    c->m = m, c->n = n, c->k = k;
    scalar(cplx, alpha, c->alpha);
    scalar(cplx, beta, c->beta);
    c->A = A, c->lda = lda, c->B = B, c->ldb = ldb, c->C = C, c->ldc = ldc;
    c->batch = 1;
    c->on_device = 0;
    c->update = 1;
}

static void fill_syrk(shim_call *c, int kind, int cplx, char uplo, char trans, int64_t n,
                      int64_t k, const double *alpha, const void *A, int64_t lda,
                      const double *beta, void *C, int64_t ldc)
{
    c->kind = kind;
    c->cplx = cplx;
    c->uplo = up(uplo);
    c->ta = up(trans);
    c->tb = 0;
    c->m = n, c->n = n, c->k = k;
    scalar(cplx && kind == K_SYRK, alpha, c->alpha);
    scalar(cplx && kind == K_SYRK, beta, c->beta);
    c->A = A, c->lda = lda, c->B = A, c->ldb = lda, c->C = C, c->ldc = ldc;
    c->batch = 1;
    c->on_device = 0;
    c->update = 1;
}

enum { CB_ROW = 101, CB_COL = 102, CB_N = 111, CB_T = 112, CB_C = 113, CB_UP = 121, CB_LO = 122 };

static char cb_trans(int t) { return t == CB_N ? 'N' : t == CB_T ? 'T' : t == CB_C ? 'C' : 0; }

/* CBLAS to the column-major form: a row-major C = op(A) op(B) is C^T = op(B)^T op(A)^T. */
static const char *cblas_gemm(shim_call *c, int cplx, int order, int ta, int tb, int64_t m,
                              int64_t n, int64_t k, const double *alpha, const void *A,
                              int64_t lda, const void *B, int64_t ldb, const double *beta,
                              void *C, int64_t ldc)
{
    if (order == CB_COL)
        fill_gemm(c, cplx, cb_trans(ta), cb_trans(tb), m, n, k, alpha, A, lda, B, ldb, beta, C,
                  ldc);
    else if (order == CB_ROW)
        fill_gemm(c, cplx, cb_trans(tb), cb_trans(ta), n, m, k, alpha, B, ldb, A, lda, beta, C,
                  ldc);
    else {
        memset(c, 0, sizeof *c);
        return "argument error";
    }
    return check_gemm(c);
}

/* Row-major SYRK/HERK: C^T is the column-major view, the other triangle of op'd A^T A
 * (HERK: C^T = conj(C) = A_cm^H A_cm). */
static const char *cblas_syrk(shim_call *c, int kind, int cplx, int order, int uplo, int trans,
                              int64_t n, int64_t k, const double *alpha, const void *A,
                              int64_t lda, const double *beta, void *C, int64_t ldc)
{
    char u = uplo == CB_UP ? 'U' : uplo == CB_LO ? 'L' : 0;
    char t = cb_trans(trans);
    if (order == CB_ROW) {
        u = u == 'U' ? 'L' : u == 'L' ? 'U' : 0;
        if (kind == K_HERK)
            t = t == 'N' ? 'C' : t == 'C' ? 'N' : 0;
        else if (cplx)
            t = t == 'N' ? 'T' : t == 'T' ? 'N' : 0;
        else
            t = t == 'N' ? 'T' : (t == 'T' || t == 'C') ? 'N' : 0;
    } else if (order != CB_COL)
        return "argument error";
    fill_syrk(c, kind, cplx, u, t, n, k, alpha, A, lda, beta, C, ldc);
    return check_syrk(c);
}

/* ---- the exported entries ------------------------------------------------------------- */

/* Run the real routine with the caller's own arguments when the shim does not handle it. */
#define OZ_CALL(slot, c, bad, FN_T, ARGS)                     \
    shim_result r;                                            \
    c.routine = slot.index;                                   \
    double t0 = shim_begin(&r, &c);                           \
    if (!shim_handle(&c, bad, &r)) {                          \
        FN_T f = (FN_T)shim_real(&slot);                      \
        if (f)                                                \
            f ARGS;                                           \
        else                                                  \
            r.why = N_NO_REAL;                                \
    }                                                         \
    shim_end(&slot, &c, &r, t0);

/* Fortran: every argument by reference, the character lengths appended (forwarded as
 * received: C callers that omit them pass whatever is there, which BLAS ignores). */
#define F77_GEMM(sym, T, CPLX, R)                                                               \
    OZ_EXPORT void sym(const char *ta, const char *tb, const T *m, const T *n, const T *k,     \
                       const double *alpha, const double *A, const T *lda, const double *B,   \
                       const T *ldb, const double *beta, double *C, const T *ldc, size_t lta, \
                       size_t ltb)                                                             \
    {                                                                                          \
        static oz_slot slot = {#sym, #R, K_GEMM, CPLX, NULL, 0, RI_##R, 0};                     \
        typedef void (*fn_t)(const char *, const char *, const T *, const T *, const T *,      \
                             const double *, const double *, const T *, const double *,        \
                             const T *, const double *, double *, const T *, size_t, size_t);  \
        shim_call c;                                                                           \
        fill_gemm(&c, CPLX, *ta, *tb, *m, *n, *k, alpha, A, *lda, B, *ldb, beta, C, *ldc);     \
        const char *bad = check_gemm(&c);                                                      \
        OZ_CALL(slot, c, bad, fn_t, (ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, lta, ltb)) \
    }

#define F77_SYRK(sym, T, KIND, CPLX, R)                                                        \
    OZ_EXPORT void sym(const char *uplo, const char *trans, const T *n, const T *k,           \
                       const double *alpha, const double *A, const T *lda, const double *beta, \
                       double *C, const T *ldc, size_t lu, size_t lt)                          \
    {                                                                                          \
        static oz_slot slot = {#sym, #R, KIND, CPLX, NULL, 0, RI_##R, 0};                       \
        typedef void (*fn_t)(const char *, const char *, const T *, const T *, const double *, \
                             const double *, const T *, const double *, double *, const T *,   \
                             size_t, size_t);                                                  \
        shim_call c;                                                                           \
        fill_syrk(&c, KIND, CPLX, *uplo, *trans, *n, *k, alpha, A, *lda, beta, C, *ldc);       \
        const char *bad = check_syrk(&c);                                                      \
        OZ_CALL(slot, c, bad, fn_t, (uplo, trans, n, k, alpha, A, lda, beta, C, ldc, lu, lt))  \
    }

/* CBLAS scalars: double by value (DGEMM, DSYRK, ZHERK) or a pointer to (re, im). */
#define SC_T_val double
#define SC_P_val(x) ((const double[2]){(x), 0.0})
#define SC_T_ptr const void *
#define SC_P_ptr(x) ((const double *)(x))

#define CBLAS_GEMM(sym, T, CPLX, R, SC)                                                          \
    OZ_EXPORT void sym(int order, int ta, int tb, T m, T n, T k, SC_T_##SC alpha, const void *A, \
                       T lda, const void *B, T ldb, SC_T_##SC beta, void *C, T ldc)             \
    {                                                                                            \
        static oz_slot slot = {#sym, #R, K_GEMM, CPLX, NULL, 0, RI_##R, 0};                       \
        typedef void (*fn_t)(int, int, int, T, T, T, SC_T_##SC, const void *, T, const void *,   \
                             T, SC_T_##SC, void *, T);                                           \
        shim_call c;                                                                             \
        const char *bad = cblas_gemm(&c, CPLX, order, ta, tb, m, n, k, SC_P_##SC(alpha), A, lda, \
                                     B, ldb, SC_P_##SC(beta), C, ldc);                           \
        OZ_CALL(slot, c, bad, fn_t, (order, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)) \
    }

#define CBLAS_SYRK(sym, T, KIND, CPLX, R, SC)                                                    \
    OZ_EXPORT void sym(int order, int uplo, int trans, T n, T k, SC_T_##SC alpha, const void *A, \
                       T lda, SC_T_##SC beta, void *C, T ldc)                                   \
    {                                                                                            \
        static oz_slot slot = {#sym, #R, KIND, CPLX, NULL, 0, RI_##R, 0};                         \
        typedef void (*fn_t)(int, int, int, T, T, SC_T_##SC, const void *, T, SC_T_##SC, void *, \
                             T);                                                                 \
        shim_call c;                                                                             \
        const char *bad = cblas_syrk(&c, KIND, CPLX, order, uplo, trans, n, k, SC_P_##SC(alpha), \
                                     A, lda, SC_P_##SC(beta), C, ldc);                           \
        OZ_CALL(slot, c, bad, fn_t, (order, uplo, trans, n, k, alpha, A, lda, beta, C, ldc))     \
    }

/* Per routine: its Fortran and CBLAS entry shapes. */
#define OZ_DEF_F77_dgemm(sym, T) F77_GEMM(sym, T, 0, dgemm)
#define OZ_DEF_F77_zgemm(sym, T) F77_GEMM(sym, T, 1, zgemm)
#define OZ_DEF_F77_dsyrk(sym, T) F77_SYRK(sym, T, K_SYRK, 0, dsyrk)
#define OZ_DEF_F77_zsyrk(sym, T) F77_SYRK(sym, T, K_SYRK, 1, zsyrk)
#define OZ_DEF_F77_zherk(sym, T) F77_SYRK(sym, T, K_HERK, 1, zherk)
#define OZ_DEF_CBLAS_dgemm(sym, T) CBLAS_GEMM(sym, T, 0, dgemm, val)
#define OZ_DEF_CBLAS_zgemm(sym, T) CBLAS_GEMM(sym, T, 1, zgemm, ptr)
#define OZ_DEF_CBLAS_dsyrk(sym, T) CBLAS_SYRK(sym, T, K_SYRK, 0, dsyrk, val)
#define OZ_DEF_CBLAS_zsyrk(sym, T) CBLAS_SYRK(sym, T, K_SYRK, 1, zsyrk, ptr)
#define OZ_DEF_CBLAS_zherk(sym, T) CBLAS_SYRK(sym, T, K_HERK, 1, zherk, val)

#define OZ_DEFINE(r, sym, api, T) OZ_DEF_##api##_##r(sym, T)
#define OZ_DEFINE_ROUTINE(r, e) OZ_SHIM_VARIANTS(OZ_DEFINE, r)

OZ_SHIM_ROUTINES(OZ_DEFINE_ROUTINE)
