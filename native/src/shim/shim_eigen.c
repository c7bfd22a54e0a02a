/* The preload shim's eigensolver entries: dsyevd zheevd, dsyev zheev, dsyevr zheevr, in
 * every LAPACK form of OZ_SHIM_LAPACK_VARIANTS (NumPy's eigh imports scipy_dsyevd_64_,
 * SciPy's eigh scipy_dsyevr_), on the two-stage drivers of src/lapack/lapack_eigen.c; the
 * generalized problem's dsygvd zhegvd, dsygv zhegv (SciPy's eigh(a, b)) composed of them; and
 * LAPACK's one-stage format, dsytrd zhetrd, dormtr zunmtr, dorgtr zungtr (ormtr and orgtr
 * with uplo 'U', QL-form reflectors, go to the real routine).
 *
 * Each entry follows shim_lapack.c's rules (shim_lapack.h): netlib's argument checks, with
 * LAPACK's minimum workspaces (an error goes to the real routine and its xerbla), workspace
 * queries and n = 0 to the real routine, the decision on an n x n x n product, an order
 * within one block to the real routine, non-finite input to the real routine, then the
 * driver with its own workspace (SciPy passes the lwork the real routine's query returned;
 * the driver needs none of it), the optimal sizes the real routine's query reports written
 * to work, rwork and iwork afterwards, as the real routine leaves them. One trace line and
 * one counter cell under the routine's own name. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "../core/oz_internal.h"
#include "shim_lapack.h"

/* LAPACK's minimum workspaces (work, rwork, iwork) of a routine, and whether the call is
 * a query; -1 where the routine has no such argument. */
static void minimum(int kind, int cplx, int wantz, int64_t n, int64_t *lw, int64_t *lrw,
                    int64_t *liw)
{
    int small = n <= 1;
    *lrw = *liw = -1;
    if (kind == OZ_EV_SYEVD) {
        *lw = small ? 1 : cplx ? (wantz ? 2 * n + n * n : n + 1)
                               : (wantz ? 1 + 6 * n + 2 * n * n : 2 * n + 1);
        *liw = small ? 1 : wantz ? 3 + 5 * n : 1;
        if (cplx)
            *lrw = small ? 1 : wantz ? 1 + 5 * n + 2 * n * n : n;
    } else if (kind == OZ_EV_SYEV) {
        *lw = max1(cplx ? 2 * n - 1 : 3 * n - 1);
    } else {
        *lw = small ? 1 : cplx ? 2 * n : 26 * n;
        *liw = small ? 1 : 10 * n;
        if (cplx)
            *lrw = small ? 1 : 24 * n;
    }
}

/* Integers of the caller's type (4 or 8 bytes) from int64_t. */
static void ints_out(void *p, int wide, const int64_t *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (wide)
            ((int64_t *)p)[i] = v[i];
        else
            ((int32_t *)p)[i] = (int32_t)v[i];
}

/* The call's arguments as the handler reads them. */
typedef struct {
    int kind;
    char jobz, range, uplo;
    int64_t n, lda, il, iu, ldz, lwork, lrwork, liwork; /* -1: absent (not a query) */
    double vl, vu, abstol;
    double *A, *w, *Z;
} ev_call;

/* The start of every driver entry: netlib's argument check (arg_bad) and LAPACK's minimum
 * workspaces (those of kind's driver), a workspace query to the real routine, the decision
 * (lap_begin, which the call's dims follow). 1 when the driver may run. */
static int ev_begin(lap_call *L, int cplx, int kind, char jobz, int64_t n, int arg_bad,
                    int64_t lwork, int64_t lrwork, int64_t liwork, double flops)
{
    int64_t lw, lrw, liw;
    minimum(kind, cplx, jobz == 'V', n, &lw, &lrw, &liw);
    int query = lwork == -1 || (lrw >= 0 && lrwork == -1) || (liw >= 0 && liwork == -1);
    int bad = arg_bad || (!query && (lwork < lw || lrwork < lrw || liwork < liw));
    int go = lap_begin(L, cplx, n, n, n, n, bad || query ? 0.0 : flops, bad, n == 0);
    if (go && query)
        return lap_query(L);
    return go;
}

/* 1 when ozblas computed the call; syevr's m and isuppz (wide: 8-byte integers) written
 * back as the real routine writes them. */
static int h_ev(lap_call *L, int cplx, const ev_call *c, void *m, void *isuppz, int wide,
                int64_t *info)
{
    int wantz = c->jobz == 'V', r = c->kind == OZ_EV_SYEVR;
    int64_t n = c->n, cols = r && c->range == 'I' ? c->iu - c->il + 1 : n;
    int bad = oz_ev_check(c->kind, c->jobz, c->range, c->uplo, n, c->lda, c->vl, c->vu, c->il,
                          c->iu, r ? c->ldz : 1) != 0;
    int go = ev_begin(L, cplx, c->kind, c->jobz, n, bad, c->lwork, c->lrwork, c->liwork,
                      bad ? 0.0 : oz_ev_flops(c->kind, cplx, c->jobz, n, cols));
    if (r)
        snprintf(L->dims, sizeof L->dims, "n=%lld jobz=%c range=%c", (long long)n, c->jobz,
                 c->range);
    else
        snprintf(L->dims, sizeof L->dims, "n=%lld jobz=%c", (long long)n, c->jobz);
    if (!go || !lap_finite(L, cplx, c->uplo, n, n, c->A, c->lda))
        return 0;
    ozblas_context *ctx = shim_context();
    if (c->kind == OZ_EV_SYEVD)
        return LAP_RUN((cplx ? ozblas_zheevd : ozblas_dsyevd)(ctx, c->jobz, c->uplo, n, c->A,
                                                               c->lda, c->w, info, 0, LAP_OPT));
    if (c->kind == OZ_EV_SYEV)
        return LAP_RUN((cplx ? ozblas_zheev : ozblas_dsyev)(ctx, c->jobz, c->uplo, n, c->A,
                                                             c->lda, c->w, info, 0, LAP_OPT));
    int64_t m64 = 0, *sup = oz_malloc(sizeof(int64_t) * (size_t)(2 * max1(n)));
    int ok = sup && LAP_RUN((cplx ? ozblas_zheevr : ozblas_dsyevr)(
                        ctx, c->jobz, c->range, c->uplo, n, c->A, c->lda, c->vl, c->vu, c->il,
                        c->iu, c->abstol, &m64, c->w, c->Z, c->ldz, sup, info, 0, LAP_OPT));
    if (ok) {
        int64_t one = 1;
        ints_out(m, wide, &m64, one);
        if (wantz && (c->range == 'A' || (c->range == 'I' && c->iu - c->il + 1 == n)))
            ints_out(isuppz, wide, sup, 2 * m64);
    }
    free(sup);
    return ok;
}

#define EV_CALL(kind, range, lwork, lrwork, liwork, vl, vu, il, iu, abstol, Z, ldz)          \
    (&(ev_call){(kind), up(*jobz), (range), up(*uplo), *n, *lda, (il), (iu), (ldz), (lwork), \
                (lrwork), (liwork), (vl), (vu), (abstol), A, w, (Z)})

#define E_SYEVD(rtn, sym, api, T)                                                             \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                                \
             (CH jobz, CH uplo, const T *n, double *A, const T *lda, double *w, double *work, \
              const T *lwork, T *iwork, const T *liwork, T *info, SZ l1, SZ l2),             \
             (CH, CH, const T *, double *, const T *, double *, double *, const T *, T *,    \
              const T *, T *, SZ, SZ),                                                       \
             h_ev(&L, C, EV_CALL(OZ_EV_SYEVD, 'A', *lwork, -1, *liwork, 0, 0, 1, 1, 0, NULL, 1), \
                  NULL, NULL, 0, &inf),                                                      \
             (jobz, uplo, n, A, lda, w, work, lwork, iwork, liwork, info, l1, l2),           \
             (jobz, uplo, n, A, lda, w, work, &mone, iwork, &mone, &qinfo, l1, l2))
#define E_HEEVD(rtn, sym, api, T)                                                             \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                                \
             (CH jobz, CH uplo, const T *n, double *A, const T *lda, double *w, double *work, \
              const T *lwork, double *rwork, const T *lrwork, T *iwork, const T *liwork,     \
              T *info, SZ l1, SZ l2),                                                        \
             (CH, CH, const T *, double *, const T *, double *, double *, const T *,         \
              double *, const T *, T *, const T *, T *, SZ, SZ),                             \
             h_ev(&L, C, EV_CALL(OZ_EV_SYEVD, 'A', *lwork, *lrwork, *liwork, 0, 0, 1, 1, 0,  \
                                 NULL, 1),                                                   \
                  NULL, NULL, 0, &inf),                                                      \
             (jobz, uplo, n, A, lda, w, work, lwork, rwork, lrwork, iwork, liwork, info, l1, \
              l2),                                                                           \
             (jobz, uplo, n, A, lda, w, work, &mone, rwork, &mone, iwork, &mone, &qinfo, l1, \
              l2))
#define E_SYEV(rtn, sym, api, T)                                                              \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                                \
             (CH jobz, CH uplo, const T *n, double *A, const T *lda, double *w, double *work, \
              const T *lwork, T *info, SZ l1, SZ l2),                                        \
             (CH, CH, const T *, double *, const T *, double *, double *, const T *, T *, SZ, \
              SZ),                                                                           \
             h_ev(&L, C, EV_CALL(OZ_EV_SYEV, 'A', *lwork, -1, -1, 0, 0, 1, 1, 0, NULL, 1),   \
                  NULL, NULL, 0, &inf),                                                      \
             (jobz, uplo, n, A, lda, w, work, lwork, info, l1, l2),                          \
             (jobz, uplo, n, A, lda, w, work, &mone, &qinfo, l1, l2))
#define E_HEEV(rtn, sym, api, T)                                                              \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                                \
             (CH jobz, CH uplo, const T *n, double *A, const T *lda, double *w, double *work, \
              const T *lwork, double *rwork, T *info, SZ l1, SZ l2),                         \
             (CH, CH, const T *, double *, const T *, double *, double *, const T *,         \
              double *, T *, SZ, SZ),                                                        \
             h_ev(&L, C, EV_CALL(OZ_EV_SYEV, 'A', *lwork, -1, -1, 0, 0, 1, 1, 0, NULL, 1),   \
                  NULL, NULL, 0, &inf),                                                      \
             (jobz, uplo, n, A, lda, w, work, lwork, rwork, info, l1, l2),                   \
             (jobz, uplo, n, A, lda, w, work, &mone, rwork, &qinfo, l1, l2))
#define E_SYEVR(rtn, sym, api, T)                                                             \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                                \
             (CH jobz, CH range, CH uplo, const T *n, double *A, const T *lda,               \
              const double *vl, const double *vu, const T *il, const T *iu,                  \
              const double *abstol, T *m, double *w, double *Z, const T *ldz, T *isuppz,     \
              double *work, const T *lwork, T *iwork, const T *liwork, T *info, SZ l1,       \
              SZ l2, SZ l3),                                                                 \
             (CH, CH, CH, const T *, double *, const T *, const double *, const double *,    \
              const T *, const T *, const double *, T *, double *, double *, const T *, T *, \
              double *, const T *, T *, const T *, T *, SZ, SZ, SZ),                         \
             h_ev(&L, C, EV_CALL(OZ_EV_SYEVR, up(*range), *lwork, -1, *liwork, *vl, *vu,     \
                                 *il, *iu, *abstol, Z, *ldz),                                \
                  m, isuppz, W8(T), &inf),                                                   \
             (jobz, range, uplo, n, A, lda, vl, vu, il, iu, abstol, m, w, Z, ldz, isuppz,    \
              work, lwork, iwork, liwork, info, l1, l2, l3),                                 \
             (jobz, range, uplo, n, A, lda, vl, vu, il, iu, abstol, m, w, Z, ldz, isuppz,    \
              work, &mone, iwork, &mone, &qinfo, l1, l2, l3))
#define E_HEEVR(rtn, sym, api, T)                                                             \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                                \
             (CH jobz, CH range, CH uplo, const T *n, double *A, const T *lda,               \
              const double *vl, const double *vu, const T *il, const T *iu,                  \
              const double *abstol, T *m, double *w, double *Z, const T *ldz, T *isuppz,     \
              double *work, const T *lwork, double *rwork, const T *lrwork, T *iwork,        \
              const T *liwork, T *info, SZ l1, SZ l2, SZ l3),                                \
             (CH, CH, CH, const T *, double *, const T *, const double *, const double *,    \
              const T *, const T *, const double *, T *, double *, double *, const T *, T *, \
              double *, const T *, double *, const T *, T *, const T *, T *, SZ, SZ, SZ),    \
             h_ev(&L, C, EV_CALL(OZ_EV_SYEVR, up(*range), *lwork, *lrwork, *liwork, *vl,     \
                                 *vu, *il, *iu, *abstol, Z, *ldz),                           \
                  m, isuppz, W8(T), &inf),                                                   \
             (jobz, range, uplo, n, A, lda, vl, vu, il, iu, abstol, m, w, Z, ldz, isuppz,    \
              work, lwork, rwork, lrwork, iwork, liwork, info, l1, l2, l3),                  \
             (jobz, range, uplo, n, A, lda, vl, vu, il, iu, abstol, m, w, Z, ldz, isuppz,    \
              work, &mone, rwork, &mone, iwork, &mone, &qinfo, l1, l2, l3))

/* sygvd/hegvd (kind OZ_EV_SYEVD) and sygv/hegv (OZ_EV_SYEV): as h_ev, LAPACK's minimum
 * workspaces those of syevd/heevd and syev/heev; A's and B's triangles read. */
static int h_gv(lap_call *L, int cplx, int kind, int64_t itype, char jobz, char uplo,
                int64_t n, double *A, int64_t lda, double *B, int64_t ldb, double *w,
                int64_t lwork, int64_t lrwork, int64_t liwork, int64_t *info)
{
    int bad = oz_gv_check(itype, jobz, uplo, n, lda, ldb) != 0;
    int go = ev_begin(L, cplx, kind, jobz, n, bad, lwork, lrwork, liwork,
                      bad ? 0.0 : oz_gv_flops(cplx, jobz, n));
    snprintf(L->dims, sizeof L->dims, "n=%lld itype=%lld jobz=%c", (long long)n,
             (long long)itype, jobz);
    if (!go || !lap_finite(L, cplx, uplo, n, n, A, lda) || !lap_finite(L, cplx, uplo, n, n, B, ldb))
        return 0;
    ozblas_context *ctx = shim_context();
    if (kind == OZ_EV_SYEVD)
        return LAP_RUN((cplx ? ozblas_zhegvd : ozblas_dsygvd)(ctx, itype, jobz, uplo, n, A, lda,
                                                               B, ldb, w, info, 0, LAP_OPT));
    return LAP_RUN((cplx ? ozblas_zhegv : ozblas_dsygv)(ctx, itype, jobz, uplo, n, A, lda, B,
                                                         ldb, w, info, 0, LAP_OPT));
}

#define GV_CALL(kind, lwork, lrwork, liwork)                                                  \
    h_gv(&L, C, (kind), *itype, up(*jobz), up(*uplo), *n, A, *lda, B, *ldb, w, (lwork),      \
         (lrwork), (liwork), &inf)
#define E_SYGVD(rtn, sym, api, T)                                                             \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                                \
             (const T *itype, CH jobz, CH uplo, const T *n, double *A, const T *lda,         \
              double *B, const T *ldb, double *w, double *work, const T *lwork, T *iwork,    \
              const T *liwork, T *info, SZ l1, SZ l2),                                       \
             (const T *, CH, CH, const T *, double *, const T *, double *, const T *,        \
              double *, double *, const T *, T *, const T *, T *, SZ, SZ),                   \
             GV_CALL(OZ_EV_SYEVD, *lwork, -1, *liwork),                                      \
             (itype, jobz, uplo, n, A, lda, B, ldb, w, work, lwork, iwork, liwork, info, l1, \
              l2),                                                                           \
             (itype, jobz, uplo, n, A, lda, B, ldb, w, work, &mone, iwork, &mone, &qinfo,    \
              l1, l2))
#define E_HEGVD(rtn, sym, api, T)                                                             \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                                \
             (const T *itype, CH jobz, CH uplo, const T *n, double *A, const T *lda,         \
              double *B, const T *ldb, double *w, double *work, const T *lwork,              \
              double *rwork, const T *lrwork, T *iwork, const T *liwork, T *info, SZ l1,     \
              SZ l2),                                                                        \
             (const T *, CH, CH, const T *, double *, const T *, double *, const T *,        \
              double *, double *, const T *, double *, const T *, T *, const T *, T *, SZ,   \
              SZ),                                                                           \
             GV_CALL(OZ_EV_SYEVD, *lwork, *lrwork, *liwork),                                 \
             (itype, jobz, uplo, n, A, lda, B, ldb, w, work, lwork, rwork, lrwork, iwork,    \
              liwork, info, l1, l2),                                                         \
             (itype, jobz, uplo, n, A, lda, B, ldb, w, work, &mone, rwork, &mone, iwork,     \
              &mone, &qinfo, l1, l2))
#define E_SYGV(rtn, sym, api, T)                                                              \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                                \
             (const T *itype, CH jobz, CH uplo, const T *n, double *A, const T *lda,         \
              double *B, const T *ldb, double *w, double *work, const T *lwork, T *info,     \
              SZ l1, SZ l2),                                                                 \
             (const T *, CH, CH, const T *, double *, const T *, double *, const T *,        \
              double *, double *, const T *, T *, SZ, SZ),                                   \
             GV_CALL(OZ_EV_SYEV, *lwork, -1, -1),                                            \
             (itype, jobz, uplo, n, A, lda, B, ldb, w, work, lwork, info, l1, l2),           \
             (itype, jobz, uplo, n, A, lda, B, ldb, w, work, &mone, &qinfo, l1, l2))
#define E_HEGV(rtn, sym, api, T)                                                              \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                                \
             (const T *itype, CH jobz, CH uplo, const T *n, double *A, const T *lda,         \
              double *B, const T *ldb, double *w, double *work, const T *lwork,              \
              double *rwork, T *info, SZ l1, SZ l2),                                         \
             (const T *, CH, CH, const T *, double *, const T *, double *, const T *,        \
              double *, double *, const T *, double *, T *, SZ, SZ),                         \
             GV_CALL(OZ_EV_SYEV, *lwork, -1, -1),                                            \
             (itype, jobz, uplo, n, A, lda, B, ldb, w, work, lwork, rwork, info, l1, l2),    \
             (itype, jobz, uplo, n, A, lda, B, ldb, w, work, &mone, rwork, &qinfo, l1, l2))

/* sytrd (kind OZ_TR_SYTRD), ormtr, orgtr: as h_ev, with LAPACK's minimum workspaces (sytrd
 * 1, ormtr its other dimension, orgtr n - 1). */
static int h_tr(lap_call *L, int cplx, int op, char side, char uplo, char trans, int64_t m,
                int64_t n, double *A, int64_t lda, double *d, double *e, double *tau, double *C,
                int64_t ldc, int64_t lwork, int64_t *info)
{
    int64_t nq = op == OZ_TR_ORMTR ? (side == 'L' ? m : n) : n;
    int64_t lw = op == OZ_TR_SYTRD   ? 1
                 : op == OZ_TR_ORMTR ? max1(side == 'L' ? n : m)
                                     : max1(n - 1);
    int query = lwork == -1;
    int bad = oz_tr_check(op, cplx, side, uplo, trans, m, n, lda, ldc) != 0 ||
              (!query && lwork < lw);
    int quick = op == OZ_TR_ORMTR ? m == 0 || n == 0 || nq <= 1 : n == 0;
    double flops = bad || query ? 0.0 : oz_tr_flops(op, cplx, side, m, n);
    int go = lap_begin(L, cplx, op == OZ_TR_ORMTR ? m : n, n, nq, nq, flops, bad, quick);
    if (op == OZ_TR_ORMTR)
        snprintf(L->dims, sizeof L->dims, "m=%lld n=%lld side=%c uplo=%c", (long long)m,
                 (long long)n, side, uplo);
    else
        snprintf(L->dims, sizeof L->dims, "n=%lld uplo=%c", (long long)n, uplo);
    if (!go)
        return 0;
    if (query)
        return lap_query(L);
    if (op != OZ_TR_SYTRD && uplo == 'U') {
        L->r.why = N_QL_FORM;
        return 0;
    }
    /* sytrd reads its triangle; ormtr and orgtr the reflectors below the subdiagonal, tau,
       and ormtr C */
    if (!lap_finite(L, cplx, uplo, nq, nq, A, lda) ||
        (op != OZ_TR_SYTRD && !lap_finite(L, cplx, 'A', nq - 1, 1, tau, max1(nq - 1))) ||
        (op == OZ_TR_ORMTR && !lap_finite(L, cplx, 'A', m, n, C, ldc)))
        return 0;
    ozblas_context *ctx = shim_context();
    if (op == OZ_TR_SYTRD)
        return LAP_RUN((cplx ? ozblas_zhetrd : ozblas_dsytrd)(ctx, uplo, n, A, lda, d, e, tau,
                                                               info, 0, LAP_OPT));
    if (op == OZ_TR_ORMTR)
        return LAP_RUN((cplx ? ozblas_zunmtr : ozblas_dormtr)(ctx, side, uplo, trans, m, n, A,
                                                               lda, tau, C, ldc, info, 0,
                                                               LAP_OPT));
    return LAP_RUN((cplx ? ozblas_zungtr : ozblas_dorgtr)(ctx, uplo, n, A, lda, tau, info, 0,
                                                           LAP_OPT));
}

#define E_SYTRD(rtn, sym, api, T)                                                             \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                                \
             (CH uplo, const T *n, double *A, const T *lda, double *d, double *e, double *tau, \
              double *work, const T *lwork, T *info, SZ l1),                                 \
             (CH, const T *, double *, const T *, double *, double *, double *, double *,    \
              const T *, T *, SZ),                                                           \
             h_tr(&L, C, OZ_TR_SYTRD, 0, up(*uplo), 0, *n, *n, A, *lda, d, e, tau, NULL, 1,  \
                  *lwork, &inf),                                                             \
             (uplo, n, A, lda, d, e, tau, work, lwork, info, l1),                            \
             (uplo, n, A, lda, d, e, tau, work, &mone, &qinfo, l1))
#define E_ORMTR(rtn, sym, api, T)                                                             \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                                \
             (CH side, CH uplo, CH tr, const T *m, const T *n, const double *A, const T *lda, \
              const double *tau, double *Cm, const T *ldc, double *work, const T *lwork,     \
              T *info, SZ l1, SZ l2, SZ l3),                                                 \
             (CH, CH, CH, const T *, const T *, const double *, const T *, const double *,   \
              double *, const T *, double *, const T *, T *, SZ, SZ, SZ),                    \
             h_tr(&L, C, OZ_TR_ORMTR, up(*side), up(*uplo), up(*tr), *m, *n, (double *)A,    \
                  *lda, NULL, NULL, (double *)tau, Cm, *ldc, *lwork, &inf),                  \
             (side, uplo, tr, m, n, A, lda, tau, Cm, ldc, work, lwork, info, l1, l2, l3),    \
             (side, uplo, tr, m, n, A, lda, tau, Cm, ldc, work, &mone, &qinfo, l1, l2, l3))
#define E_ORGTR(rtn, sym, api, T)                                                             \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                                \
             (CH uplo, const T *n, double *A, const T *lda, const double *tau, double *work, \
              const T *lwork, T *info, SZ l1),                                               \
             (CH, const T *, double *, const T *, const double *, double *, const T *, T *,  \
              SZ),                                                                           \
             h_tr(&L, C, OZ_TR_ORGTR, 0, up(*uplo), 0, *n, *n, A, *lda, NULL, NULL,          \
                  (double *)tau, NULL, 1, *lwork, &inf),                                     \
             (uplo, n, A, lda, tau, work, lwork, info, l1),                                  \
             (uplo, n, A, lda, tau, work, &mone, &qinfo, l1))

#define E_DEFINE_ROUTINE(rtn, e, shape) OZ_SHIM_LAPACK_VARIANTS(E_##shape, rtn)
OZ_SHIM_EIGEN_ROUTINES(E_DEFINE_ROUTINE)
