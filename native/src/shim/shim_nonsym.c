/* The preload shim's entries for the nonsymmetric eigenproblem's drivers (geev, gees, d and z)
 * in the LAPACK forms of OZ_SHIM_LAPACK_VARIANTS (shim_names.h: OZ_SHIM_NONSYM_ROUTINES).
 * numpy.linalg.eig and scipy.linalg.eig call geev, scipy.linalg.schur gees (its select, a
 * Fortran LOGICAL function, called by the driver through the trampolines below exactly as
 * LAPACK calls it).
 *
 * shim_lapack.c's rules (shim_lapack.h): netlib's argument check (an error, or an lwork below
 * netlib's minimum, goes to the real routine and its xerbla), workspace queries and quick
 * returns to the real routine, the routing decision (an n x n x n product), an order within
 * one block to the real routine (the driver would be that one call), a non-finite element of
 * A to the real routine, then the driver of src/lapack/lapack_geev.c with its own workspace
 * whatever lwork the caller gave, and the real routine's optimal size in work[0]
 * (LAP_QUERY_ENTRY). */
#define _GNU_SOURCE
#include <stdio.h>

#include "../core/oz_internal.h"
#include "shim_lapack.h"

/* geev: lwork at least dgeev's max(1, 4 n) with vectors, max(1, 3 n) without; zgeev's
 * max(1, 2 n). w: wr (z: w), wi unused for z. */
static int h_geev(lap_call *L, int cplx, char jobvl, char jobvr, int64_t n, double *A,
                  int64_t lda, double *w, double *wi, double *VL, int64_t ldvl, double *VR,
                  int64_t ldvr, int64_t lwork, int64_t *info)
{
    int vec = jobvl == 'V' || jobvr == 'V';
    int64_t lw = cplx ? 2 * n : (vec ? 4 : 3) * n;
    int query = lwork == -1, quick = n == 0;
    int bad = oz_geev_check(cplx, jobvl, jobvr, n, lda, ldvl, ldvr) != 0 ||
              (lwork < max1(lw) && !query);
    double flops = bad || query ? 0.0 : oz_geev_flops(cplx, jobvl, jobvr, n);
    int go = lap_begin(L, cplx, n, n, n, n, flops, bad, quick);
    snprintf(L->dims, sizeof L->dims, "n=%lld jobvl=%c jobvr=%c", (long long)n,
             jobvl ? jobvl : '?', jobvr ? jobvr : '?');
    if (!go)
        return 0;
    if (query)
        return lap_query(L);
    if (!lap_finite(L, cplx, 'A', n, n, A, lda))
        return 0;
    if (cplx)
        return LAP_RUN(ozblas_zgeev(shim_context(), jobvl, jobvr, n, A, lda, w, VL, ldvl, VR,
                                    ldvr, info, 0, LAP_OPT));
    return LAP_RUN(ozblas_dgeev(shim_context(), jobvl, jobvr, n, A, lda, w, wi, VL, ldvl, VR,
                                ldvr, info, 0, LAP_OPT));
}

#define S_DGEEV(rtn, sym, api, T)                                                             \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                             \
                    (CH jobvl, CH jobvr, const T *n, double *A, const T *lda, double *wr,    \
                     double *wi, double *VL, const T *ldvl, double *VR, const T *ldvr,       \
                     double *work, const T *lwork, T *info, SZ l1, SZ l2),                   \
                    (CH, CH, const T *, double *, const T *, double *, double *, double *,   \
                     const T *, double *, const T *, double *, const T *, T *, SZ, SZ),      \
                    h_geev(&L, C, up(*jobvl), up(*jobvr), *n, A, *lda, wr, wi, VL, *ldvl,    \
                           VR, *ldvr, *lwork, &inf),                                         \
                    (jobvl, jobvr, n, A, lda, wr, wi, VL, ldvl, VR, ldvr, work, lwork, info, \
                     l1, l2),                                                                \
                    (jobvl, jobvr, n, A, lda, wr, wi, VL, ldvl, VR, ldvr, work, &mone,       \
                     &qinfo, l1, l2))
/* zgeev: rwork (2 n) before info, unused by the driver */
#define S_ZGEEV(rtn, sym, api, T)                                                             \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                             \
                    (CH jobvl, CH jobvr, const T *n, double *A, const T *lda, double *w,     \
                     double *VL, const T *ldvl, double *VR, const T *ldvr, double *work,     \
                     const T *lwork, double *rwork, T *info, SZ l1, SZ l2),                  \
                    (CH, CH, const T *, double *, const T *, double *, double *, const T *,  \
                     double *, const T *, double *, const T *, double *, T *, SZ, SZ),       \
                    h_geev(&L, C, up(*jobvl), up(*jobvr), *n, A, *lda, w, NULL, VL, *ldvl,   \
                           VR, *ldvr, *lwork, &inf),                                         \
                    (jobvl, jobvr, n, A, lda, w, VL, ldvl, VR, ldvr, work, lwork, rwork,     \
                     info, l1, l2),                                                          \
                    (jobvl, jobvr, n, A, lda, w, VL, ldvl, VR, ldvr, work, &mone, rwork,     \
                     &qinfo, l1, l2))

/* the caller's select (arg) called as LAPACK calls it, its LOGICAL result of the caller's
 * integer width */
static int sel_d32(void *f, const double *w, const double *wi)
{
    return ((int32_t (*)(const double *, const double *))f)(w, wi) != 0;
}
static int sel_d64(void *f, const double *w, const double *wi)
{
    return ((int64_t (*)(const double *, const double *))f)(w, wi) != 0;
}
static int sel_z32(void *f, const double *w, const double *wi)
{
    (void)wi;
    return ((int32_t (*)(const double *))f)(w) != 0;
}
static int sel_z64(void *f, const double *w, const double *wi)
{
    (void)wi;
    return ((int64_t (*)(const double *))f)(w) != 0;
}

/* gees: lwork at least dgees's max(1, 3 n), zgees's max(1, 2 n); sdim in the caller's integer
 * type (wide: 8 bytes). LAPACK does not check select: neither does this. */
static int h_gees(lap_call *L, int cplx, int wide, char jobvs, char sort, void *select, int64_t n,
                  double *A, int64_t lda, void *sdim, double *w, double *wi, double *VS,
                  int64_t ldvs, int64_t lwork, int64_t *info)
{
    int64_t lw = (cplx ? 2 : 3) * n, sd = 0;
    int query = lwork == -1, quick = n == 0;
    int bad = oz_gees_check(cplx, jobvs, sort, 1, n, lda, ldvs) != 0 || (lwork < max1(lw) && !query);
    double flops = bad || query ? 0.0 : oz_gees_flops(cplx, jobvs, n);
    int go = lap_begin(L, cplx, n, n, n, n, flops, bad, quick);
    snprintf(L->dims, sizeof L->dims, "n=%lld jobvs=%c sort=%c", (long long)n, jobvs ? jobvs : '?',
             sort ? sort : '?');
    if (!go)
        return 0;
    if (query)
        return lap_query(L);
    if (!lap_finite(L, cplx, 'A', n, n, A, lda))
        return 0;
    ozblas_select_fn f = cplx ? (wide ? sel_z64 : sel_z32) : (wide ? sel_d64 : sel_d32);
    int ok = cplx ? LAP_RUN(ozblas_zgees(shim_context(), jobvs, sort, f, select, n, A, lda, &sd, w,
                                         VS, ldvs, info, 0, LAP_OPT))
                  : LAP_RUN(ozblas_dgees(shim_context(), jobvs, sort, f, select, n, A, lda, &sd, w,
                                         wi, VS, ldvs, info, 0, LAP_OPT));
    if (ok) {
        if (wide)
            *(int64_t *)sdim = sd;
        else
            *(int32_t *)sdim = (int32_t)sd;
    }
    return ok;
}

#define S_DGEES(rtn, sym, api, T)                                                             \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                             \
                    (CH jobvs, CH sort, void *select, const T *n, double *A, const T *lda,   \
                     T *sdim, double *wr, double *wi, double *VS, const T *ldvs,             \
                     double *work, const T *lwork, T *bwork, T *info, SZ l1, SZ l2),         \
                    (CH, CH, void *, const T *, double *, const T *, T *, double *, double *, \
                     double *, const T *, double *, const T *, T *, T *, SZ, SZ),            \
                    h_gees(&L, C, W8(T), up(*jobvs), up(*sort), select, *n, A, *lda, sdim,   \
                           wr, wi, VS, *ldvs, *lwork, &inf),                                 \
                    (jobvs, sort, select, n, A, lda, sdim, wr, wi, VS, ldvs, work, lwork,    \
                     bwork, info, l1, l2),                                                   \
                    (jobvs, sort, select, n, A, lda, sdim, wr, wi, VS, ldvs, work, &mone,    \
                     bwork, &qinfo, l1, l2))
/* zgees: rwork (n) before bwork, unused by the driver */
#define S_ZGEES(rtn, sym, api, T)                                                             \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                             \
                    (CH jobvs, CH sort, void *select, const T *n, double *A, const T *lda,   \
                     T *sdim, double *w, double *VS, const T *ldvs, double *work,            \
                     const T *lwork, double *rwork, T *bwork, T *info, SZ l1, SZ l2),        \
                    (CH, CH, void *, const T *, double *, const T *, T *, double *, double *, \
                     const T *, double *, const T *, double *, T *, T *, SZ, SZ),            \
                    h_gees(&L, C, W8(T), up(*jobvs), up(*sort), select, *n, A, *lda, sdim,   \
                           w, NULL, VS, *ldvs, *lwork, &inf),                                \
                    (jobvs, sort, select, n, A, lda, sdim, w, VS, ldvs, work, lwork, rwork,  \
                     bwork, info, l1, l2),                                                   \
                    (jobvs, sort, select, n, A, lda, sdim, w, VS, ldvs, work, &mone, rwork,  \
                     bwork, &qinfo, l1, l2))

#define S_DEFINE_ROUTINE(rtn, e, shape) OZ_SHIM_LAPACK_VARIANTS(S_##shape, rtn)
OZ_SHIM_NONSYM_ROUTINES(S_DEFINE_ROUTINE)
