/* The preload shim's entries for the bidiagonal reduction in LAPACK's one-stage format
 * (gebrd, orgbr/ungbr, ormbr/unmbr), least squares by a complete orthogonal factorization
 * (gelsy) and through the SVD (gelsd, gelss), and the singular value decomposition (gesdd,
 * gesvd), d and z, in the LAPACK forms of OZ_SHIM_LAPACK_VARIANTS (shim_names.h:
 * OZ_SHIM_SVD_ROUTINES). SciPy's lstsq calls gelsd, gelsy or gelss, NumPy's lstsq gelsd;
 * NumPy's svd and SciPy's svd call gesdd, SciPy's svd(lapack_driver="gesvd") gesvd.
 *
 * shim_lapack.c's rules (shim_lapack.h): netlib's argument check (an error, or an lwork below
 * netlib's minimum, goes to the real routine and its xerbla), workspace queries and quick
 * returns to the real routine, the routing decision (gebrd: an m x n x min(m, n) product;
 * orgbr: m x n x min(m, n, k); ormbr: m x n x k; gelsy, gelsd, gelss: m x nrhs x min(m, n);
 * gesdd, gesvd: m x n x min(m, n)), an order within one block to the real routine (gebrd,
 * orgbr, the least-squares drivers, gesdd, gesvd: the driver would be one host call),
 * a non-finite element of what the routine reads to the real routine, then the driver of
 * src/lapack/ with its own workspace whatever lwork the caller gave, and LAPACK's optimal
 * size in work[0]. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../core/oz_internal.h"
#include "shim_lapack.h"

/* LAPACK's optimal workspace after a routed call, as the real routine reports it */
static void opt_work(double *work, int cplx, int64_t size)
{
    work[0] = (double)max1(size);
    if (cplx)
        work[1] = 0.0;
}

/* gebrd: lwork at least max(1, m, n) */
static int h_gebrd(lap_call *L, int cplx, int64_t m, int64_t n, double *A, int64_t lda,
                   double *d, double *e, double *tauq, double *taup, double *work,
                   int64_t lwork, int64_t *info)
{
    int64_t mn = min64(m, n), query = lwork == -1;
    int quick = mn == 0;
    int bad = oz_brd_check(OZ_BR_GEBRD, cplx, 0, 0, 0, m, n, 0, lda, 0) != 0 ||
              (lwork < max1(m > n ? m : n) && !query);
    double flops = bad || query ? 0.0 : oz_brd_flops(OZ_BR_GEBRD, cplx, 0, 0, m, n, 0);
    if (!lap_begin(L, cplx, m, n, mn, mn, flops, bad, quick))
        return 0;
    if (query)
        return lap_query(L);
    if (!lap_finite(L, cplx, 'A', m, n, A, lda))
        return 0;
    int ok = LAP_RUN((cplx ? ozblas_zgebrd : ozblas_dgebrd)(shim_context(), m, n, A, lda, d, e,
                                                            tauq, taup, info, 0, LAP_OPT));
    if (ok)
        opt_work(work, cplx, (m + n) * L->rep.nb);
    return ok;
}

/* orgbr: lwork at least max(1, min(m, n)); the reflectors and their min(m, k) (vect 'Q') or
 * min(n, k) ('P') scalars read */
static int h_orgbr(lap_call *L, int cplx, char vect, int64_t m, int64_t n, int64_t k, double *A,
                   int64_t lda, const double *tau, double *work, int64_t lwork, int64_t *info)
{
    int64_t mn = min64(m, n), kk = min64(mn, k), nt = min64(vect == 'Q' ? m : n, k);
    int query = lwork == -1, quick = m == 0 || n == 0;
    int bad = oz_brd_check(OZ_BR_ORGBR, cplx, vect, 0, 0, m, n, k, lda, 0) != 0 ||
              (lwork < max1(mn) && !query);
    double flops = bad || query ? 0.0 : oz_brd_flops(OZ_BR_ORGBR, cplx, vect, 0, m, n, k);
    int go = lap_begin(L, cplx, m, n, kk, kk, flops, bad, quick);
    snprintf(L->dims, sizeof L->dims, "vect=%c m=%lld n=%lld k=%lld", vect ? vect : '?',
             (long long)m, (long long)n, (long long)k);
    if (!go)
        return 0;
    if (query)
        return lap_query(L);
    if (!lap_finite(L, cplx, 'A', m, n, A, lda) || !lap_finite(L, cplx, 'A', nt, 1, tau, max1(nt)))
        return 0;
    int ok = LAP_RUN((cplx ? ozblas_zungbr : ozblas_dorgbr)(shim_context(), vect, m, n, k, A, lda,
                                                            tau, info, 0, LAP_OPT));
    if (ok)
        opt_work(work, cplx, mn * L->rep.nb);
    return ok;
}

/* ormbr: lwork at least max(1, nw); A's min(nq, k) columns ('Q') or rows ('P') and their
 * scalars read */
static int h_ormbr(lap_call *L, int cplx, char vect, char side, char trans, int64_t m,
                   int64_t n, int64_t k, const double *A, int64_t lda, const double *tau,
                   double *C, int64_t ldc, double *work, int64_t lwork, int64_t *info)
{
    int64_t nq = side == 'L' ? m : n, nw = side == 'L' ? n : m, kk = min64(nq, k);
    int query = lwork == -1, quick = m == 0 || n == 0 || k == 0;
    int bad = oz_brd_check(OZ_BR_ORMBR, cplx, vect, side, trans, m, n, k, lda, ldc) != 0 ||
              (lwork < max1(nw) && !query);
    double flops = bad || query ? 0.0 : oz_brd_flops(OZ_BR_ORMBR, cplx, vect, side, m, n, k);
    int go = lap_begin(L, cplx, m, n, kk, -1, flops, bad, quick);
    snprintf(L->dims, sizeof L->dims, "vect=%c m=%lld n=%lld k=%lld", vect ? vect : '?',
             (long long)m, (long long)n, (long long)k);
    if (!go)
        return 0;
    if (query)
        return lap_query(L);
    if (!lap_finite(L, cplx, 'A', vect == 'Q' ? nq : kk, vect == 'Q' ? kk : nq, A, lda) ||
        !lap_finite(L, cplx, 'A', kk, 1, tau, max1(kk)) || !lap_finite(L, cplx, 'A', m, n, C, ldc))
        return 0;
    int ok = LAP_RUN((cplx ? ozblas_zunmbr : ozblas_dormbr)(shim_context(), vect, side, trans, m,
                                                            n, k, A, lda, tau, C, ldc, info, 0,
                                                            LAP_OPT));
    if (ok)
        opt_work(work, cplx, nw * L->rep.nb);
    return ok;
}

/* The least-squares entries' start: the argument check (gelsy's codes; lwork below least),
 * the decision on an m x nrhs x min(m, n) product, queries, a non-finite element of A or of
 * B's first m rows. -1: go on; else what the entry returns. */
static int ls_begin(lap_call *L, int cplx, int64_t m, int64_t n, int64_t nrhs, const double *A,
                    int64_t lda, const double *B, int64_t ldb, int64_t lwork, int64_t least,
                    double flops)
{
    int64_t mn = min64(m, n);
    int query = lwork == -1, quick = mn == 0 || nrhs == 0;
    int bad = oz_gelsy_check(m, n, nrhs, lda, ldb) != 0 || (lwork < least && !query);
    int go = lap_begin(L, cplx, m, nrhs, mn, mn, bad || query ? 0.0 : flops, bad, quick);
    snprintf(L->dims, sizeof L->dims, "m=%lld n=%lld nrhs=%lld", (long long)m, (long long)n,
             (long long)nrhs);
    if (!go)
        return 0;
    if (query)
        return lap_query(L);
    if (!lap_finite(L, cplx, 'A', m, n, A, lda) || !lap_finite(L, cplx, 'A', m, nrhs, B, ldb))
        return 0;
    return -1;
}

/* rank in the caller's integer type (wide: 8 bytes) */
static void put_rank(void *rank, int wide, int64_t r)
{
    if (wide)
        *(int64_t *)rank = r;
    else
        *(int32_t *)rank = (int32_t)r;
}

/* gelsy: lwork at least min(m, n) + max(2 min(m, n), n + 1, min(m, n) + nrhs); A and B's
 * first m rows read; jpvt in the caller's integer type (wide: 8 bytes) */
static int h_gelsy(lap_call *L, int cplx, int64_t m, int64_t n, int64_t nrhs, double *A,
                   int64_t lda, double *B, int64_t ldb, void *jpvt, int wide, double rcond,
                   void *rank, double *work, int64_t lwork, int64_t *info)
{
    int64_t mn = min64(m, n), a = 2 * mn, b = n + 1, c = mn + nrhs;
    int64_t mw = mn + (a > b ? (a > c ? a : c) : (b > c ? b : c));
    int go = ls_begin(L, cplx, m, n, nrhs, A, lda, B, ldb, lwork, mw, oz_gelsy_flops(cplx, m, n, nrhs));
    if (go >= 0)
        return go;
    int64_t *p = oz_malloc(sizeof(int64_t) * (size_t)max1(n)), r = 0;
    for (int64_t i = 0; p && i < n; i++)
        p[i] = wide ? ((const int64_t *)jpvt)[i] : ((const int32_t *)jpvt)[i];
    int ok = p && LAP_RUN((cplx ? ozblas_zgelsy : ozblas_dgelsy)(shim_context(), m, n, nrhs, A, lda, B,
                                                            ldb, p, rcond, &r, info, 0, LAP_OPT));
    if (ok) {
        for (int64_t i = 0; i < n; i++)
            if (wide)
                ((int64_t *)jpvt)[i] = p[i];
            else
                ((int32_t *)jpvt)[i] = (int32_t)p[i];
        put_rank(rank, wide, r);
        int64_t nbw = L->rep.nb; /* dgelsy's optimum with the layer's block size */
        int64_t o1 = mn + 2 * n + nbw * (n + 1), o2 = 2 * mn + nbw * nrhs;
        opt_work(work, cplx, o1 > o2 ? o1 : o2);
    }
    free(p);
    return ok;
}

/* gelsd's and gelss's minimum lwork (sq: gelss), mn = min(m, n), mx the other, mm = n on the
 * QR-first path (m >= ilaenv's 1.6 n), else mx: dgelsd's 3 mn + wlalsd (its smlsiz 25),
 * zgelsd's 2 mn + max(mm, mn nrhs), dgelss's 3 mn + max(2 mn, mm, nrhs), zgelss's 2 mn +
 * max(mx, nrhs) (checked against the reference LAPACK's). LAPACK lowers dgelsd's to its optimum
 * where that is smaller: such an lwork goes to the real routine, which takes it. */
static int64_t lstsq_minwork(int cplx, int sq, int64_t m, int64_t n, int64_t nrhs)
{
    int64_t mn = min64(m, n), mx = m > n ? m : n, mm = m >= n && m >= 8 * mn / 5 ? n : mx;
    if (mn == 0)
        return 1;
    if (sq)
        return cplx ? 2 * mn + (mx > nrhs ? mx : nrhs)
                    : 3 * mn + (2 * mn > mm ? (2 * mn > nrhs ? 2 * mn : nrhs) : (mm > nrhs ? mm : nrhs));
    if (cplx)
        return 2 * mn + (mm > mn * nrhs ? mm : mn * nrhs);
    int64_t nlvl = (int64_t)(log((double)mn / 26.0) / log(2.0)) + 1;
    nlvl = nlvl > 0 ? nlvl : 0;
    return 12 * mn + 50 * mn + 8 * mn * nlvl + mn * nrhs + 26 * 26;
}

/* gelsd and gelss (sq): lwork at least lstsq_minwork; A and B's first m rows read; rank in
 * the caller's integer type; the optimal sizes written afterwards by the real routine's
 * query (LAP_QUERY_ENTRY). */
static int h_lstsq(lap_call *L, int cplx, int sq, int64_t m, int64_t n, int64_t nrhs, double *A,
                   int64_t lda, double *B, int64_t ldb, double *s, double rcond, void *rank,
                   int wide, int64_t lwork, int64_t *info)
{
    int go = ls_begin(L, cplx, m, n, nrhs, A, lda, B, ldb, lwork, lstsq_minwork(cplx, sq, m, n, nrhs),
                      oz_gelsd_flops(cplx, m, n, nrhs));
    if (go >= 0)
        return go;
    int64_t r = 0;
    ozblas_status (*f)(ozblas_context *, int64_t, int64_t, int64_t, double *, int64_t, double *,
                       int64_t, double *, double, int64_t *, int64_t *, int64_t,
                       const ozblas_options *, ozblas_lapack_report *) =
        sq ? (cplx ? ozblas_zgelss : ozblas_dgelss) : (cplx ? ozblas_zgelsd : ozblas_dgelsd);
    int ok = LAP_RUN(f(shim_context(), m, n, nrhs, A, lda, B, ldb, s, rcond, &r, info, 0, LAP_OPT));
    if (ok)
        put_rank(rank, wide, r);
    return ok;
}

/* dgesdd's and zgesdd's minimum lwork (LAPACK 3.7 on: its path's, mn = min(m, n), mx the
 * other; the QR/LQ-first paths from mx >= 11 mn / 6 (d) or 17 mn / 9 (z)). */
static int64_t gesdd_minwork(int cplx, char jobz, int64_t m, int64_t n)
{
    int64_t mn = min64(m, n), mx = m > n ? m : n;
    if (mn == 0)
        return 1;
    if (cplx) {
        if (mx >= mn * 17 / 9)
            return jobz == 'N' ? 3 * mn : jobz == 'O' ? 2 * mn * mn + 3 * mn
                 : jobz == 'S' ? mn * mn + 3 * mn : mn * mn + (3 * mn > mn + mx ? 3 * mn : mn + mx);
        return 2 * mn + mx + (jobz == 'O' ? mn * mn : 0);
    }
    int64_t bd = jobz == 'N' ? 7 * mn : 3 * mn * mn + 4 * mn;
    if (mx >= mn * 11 / 6) {
        int64_t a = bd + 3 * mn > mn + mx ? bd + 3 * mn : mn + mx;
        return jobz == 'N' ? bd + mn : jobz == 'O' ? bd + 2 * mn * mn + 3 * mn
             : jobz == 'S' ? bd + mn * mn + 3 * mn : mn * mn + a;
    }
    int64_t b = jobz == 'O' ? mn * mn + bd : bd;
    return 3 * mn + (mx > b ? mx : b);
}

/* gesdd: lwork at least gesdd_minwork; A read; the optimal sizes written afterwards by the
 * real routine's query (LAP_QUERY_ENTRY). */
static int h_gesdd(lap_call *L, int cplx, char jobz, int64_t m, int64_t n, double *A,
                   int64_t lda, double *s, double *U, int64_t ldu, double *VT, int64_t ldvt,
                   int64_t lwork, int64_t *info)
{
    int64_t mn = min64(m, n), lw = gesdd_minwork(cplx, jobz, m, n);
    int query = lwork == -1, quick = mn == 0;
    int bad = oz_gesdd_check(jobz, m, n, lda, ldu, ldvt) != 0 || (lwork < max1(lw) && !query);
    double flops = bad || query ? 0.0 : oz_gesdd_flops(cplx, jobz, m, n);
    int go = lap_begin(L, cplx, m, n, mn, mn, flops, bad, quick);
    snprintf(L->dims, sizeof L->dims, "m=%lld n=%lld jobz=%c", (long long)m, (long long)n,
             jobz ? jobz : '?');
    if (!go)
        return 0;
    if (query)
        return lap_query(L);
    if (!lap_finite(L, cplx, 'A', m, n, A, lda))
        return 0;
    return LAP_RUN((cplx ? ozblas_zgesdd : ozblas_dgesdd)(shim_context(), jobz, m, n, A, lda, s, U,
                                                          ldu, VT, ldvt, info, 0, LAP_OPT));
}

/* gesvd: lwork at least LAPACK's documented minimum (d: max(3 mn + mx, 5 mn); z: 2 mn + mx;
 * its QR-first paths take less: such a call goes to the real routine); A read; the optimal
 * size written afterwards by the real routine's query. On info > 0 the unconverged
 * superdiagonal LAPACK leaves in work (rwork for z) is not written. */
static int h_gesvd(lap_call *L, int cplx, char jobu, char jobvt, int64_t m, int64_t n,
                   double *A, int64_t lda, double *s, double *U, int64_t ldu, double *VT,
                   int64_t ldvt, int64_t lwork, int64_t *info)
{
    int64_t mn = min64(m, n), mx = m > n ? m : n;
    int64_t lw = cplx ? 2 * mn + mx : (3 * mn + mx > 5 * mn ? 3 * mn + mx : 5 * mn);
    int query = lwork == -1, quick = mn == 0;
    int bad = oz_gesvd_check(jobu, jobvt, m, n, lda, ldu, ldvt) != 0 ||
              (lwork < max1(lw) && !query);
    double flops = bad || query ? 0.0 : oz_gesvd_flops(cplx, jobu, jobvt, m, n);
    int go = lap_begin(L, cplx, m, n, mn, mn, flops, bad, quick);
    snprintf(L->dims, sizeof L->dims, "m=%lld n=%lld jobu=%c jobvt=%c", (long long)m, (long long)n,
             jobu ? jobu : '?', jobvt ? jobvt : '?');
    if (!go)
        return 0;
    if (query)
        return lap_query(L);
    if (!lap_finite(L, cplx, 'A', m, n, A, lda))
        return 0;
    return LAP_RUN((cplx ? ozblas_zgesvd : ozblas_dgesvd)(shim_context(), jobu, jobvt, m, n, A, lda,
                                                          s, U, ldu, VT, ldvt, info, 0, LAP_OPT));
}

#define S_DGESVD(rtn, sym, api, T)                                                            \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                             \
                    (CH jobu, CH jobvt, const T *m, const T *n, double *A, const T *lda,     \
                     double *s, double *U, const T *ldu, double *VT, const T *ldvt,          \
                     double *work, const T *lwork, T *info, SZ l1, SZ l2),                   \
                    (CH, CH, const T *, const T *, double *, const T *, double *, double *,  \
                     const T *, double *, const T *, double *, const T *, T *, SZ, SZ),      \
                    h_gesvd(&L, C, up(*jobu), up(*jobvt), *m, *n, A, *lda, s, U, *ldu, VT,   \
                            *ldvt, *lwork, &inf),                                            \
                    (jobu, jobvt, m, n, A, lda, s, U, ldu, VT, ldvt, work, lwork, info, l1,  \
                     l2),                                                                    \
                    (jobu, jobvt, m, n, A, lda, s, U, ldu, VT, ldvt, work, &mone, &qinfo,    \
                     l1, l2))
/* zgesvd: rwork (5 min(m, n)) before info, unused by the driver */
#define S_ZGESVD(rtn, sym, api, T)                                                            \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                             \
                    (CH jobu, CH jobvt, const T *m, const T *n, double *A, const T *lda,     \
                     double *s, double *U, const T *ldu, double *VT, const T *ldvt,          \
                     double *work, const T *lwork, double *rwork, T *info, SZ l1, SZ l2),    \
                    (CH, CH, const T *, const T *, double *, const T *, double *, double *,  \
                     const T *, double *, const T *, double *, const T *, double *, T *, SZ, \
                     SZ),                                                                    \
                    h_gesvd(&L, C, up(*jobu), up(*jobvt), *m, *n, A, *lda, s, U, *ldu, VT,   \
                            *ldvt, *lwork, &inf),                                            \
                    (jobu, jobvt, m, n, A, lda, s, U, ldu, VT, ldvt, work, lwork, rwork,     \
                     info, l1, l2),                                                          \
                    (jobu, jobvt, m, n, A, lda, s, U, ldu, VT, ldvt, work, &mone, rwork,     \
                     &qinfo, l1, l2))
#define S_DGESDD(rtn, sym, api, T)                                                            \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                             \
                    (CH jobz, const T *m, const T *n, double *A, const T *lda, double *s,    \
                     double *U, const T *ldu, double *VT, const T *ldvt, double *work,       \
                     const T *lwork, T *iwork, T *info, SZ l1),                              \
                    (CH, const T *, const T *, double *, const T *, double *, double *,      \
                     const T *, double *, const T *, double *, const T *, T *, T *, SZ),     \
                    h_gesdd(&L, C, up(*jobz), *m, *n, A, *lda, s, U, *ldu, VT, *ldvt,        \
                            *lwork, &inf),                                                   \
                    (jobz, m, n, A, lda, s, U, ldu, VT, ldvt, work, lwork, iwork, info, l1), \
                    (jobz, m, n, A, lda, s, U, ldu, VT, ldvt, work, &mone, iwork, &qinfo,    \
                     l1))
/* zgesdd: rwork before iwork, unused by the driver */
#define S_ZGESDD(rtn, sym, api, T)                                                            \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                             \
                    (CH jobz, const T *m, const T *n, double *A, const T *lda, double *s,    \
                     double *U, const T *ldu, double *VT, const T *ldvt, double *work,       \
                     const T *lwork, double *rwork, T *iwork, T *info, SZ l1),               \
                    (CH, const T *, const T *, double *, const T *, double *, double *,      \
                     const T *, double *, const T *, double *, const T *, double *, T *,     \
                     T *, SZ),                                                               \
                    h_gesdd(&L, C, up(*jobz), *m, *n, A, *lda, s, U, *ldu, VT, *ldvt,        \
                            *lwork, &inf),                                                   \
                    (jobz, m, n, A, lda, s, U, ldu, VT, ldvt, work, lwork, rwork, iwork,     \
                     info, l1),                                                              \
                    (jobz, m, n, A, lda, s, U, ldu, VT, ldvt, work, &mone, rwork, iwork,     \
                     &qinfo, l1))
#define S_DGELSD(rtn, sym, api, T)                                                            \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                             \
                    (const T *m, const T *n, const T *nrhs, double *A, const T *lda,         \
                     double *B, const T *ldb, double *s, const double *rcond, T *rank,       \
                     double *work, const T *lwork, T *iwork, T *info),                       \
                    (const T *, const T *, const T *, double *, const T *, double *,         \
                     const T *, double *, const double *, T *, double *, const T *, T *,     \
                     T *),                                                                   \
                    h_lstsq(&L, C, 0, *m, *n, *nrhs, A, *lda, B, *ldb, s, *rcond, rank,      \
                            W8(T), *lwork, &inf),                                            \
                    (m, n, nrhs, A, lda, B, ldb, s, rcond, rank, work, lwork, iwork, info),  \
                    (m, n, nrhs, A, lda, B, ldb, s, rcond, rank, work, &mone, iwork,         \
                     &qinfo))
/* zgelsd: rwork before iwork, unused by the driver */
#define S_ZGELSD(rtn, sym, api, T)                                                            \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                             \
                    (const T *m, const T *n, const T *nrhs, double *A, const T *lda,         \
                     double *B, const T *ldb, double *s, const double *rcond, T *rank,       \
                     double *work, const T *lwork, double *rwork, T *iwork, T *info),        \
                    (const T *, const T *, const T *, double *, const T *, double *,         \
                     const T *, double *, const double *, T *, double *, const T *,          \
                     double *, T *, T *),                                                    \
                    h_lstsq(&L, C, 0, *m, *n, *nrhs, A, *lda, B, *ldb, s, *rcond, rank,      \
                            W8(T), *lwork, &inf),                                            \
                    (m, n, nrhs, A, lda, B, ldb, s, rcond, rank, work, lwork, rwork, iwork,  \
                     info),                                                                  \
                    (m, n, nrhs, A, lda, B, ldb, s, rcond, rank, work, &mone, rwork, iwork,  \
                     &qinfo))
#define S_DGELSS(rtn, sym, api, T)                                                            \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                             \
                    (const T *m, const T *n, const T *nrhs, double *A, const T *lda,         \
                     double *B, const T *ldb, double *s, const double *rcond, T *rank,       \
                     double *work, const T *lwork, T *info),                                 \
                    (const T *, const T *, const T *, double *, const T *, double *,         \
                     const T *, double *, const double *, T *, double *, const T *, T *),    \
                    h_lstsq(&L, C, 1, *m, *n, *nrhs, A, *lda, B, *ldb, s, *rcond, rank,      \
                            W8(T), *lwork, &inf),                                            \
                    (m, n, nrhs, A, lda, B, ldb, s, rcond, rank, work, lwork, info),         \
                    (m, n, nrhs, A, lda, B, ldb, s, rcond, rank, work, &mone, &qinfo))
/* zgelss: rwork (5 min(m, n)) before info, unused by the driver */
#define S_ZGELSS(rtn, sym, api, T)                                                            \
    LAP_QUERY_ENTRY(sym, rtn, T,                                                             \
                    (const T *m, const T *n, const T *nrhs, double *A, const T *lda,         \
                     double *B, const T *ldb, double *s, const double *rcond, T *rank,       \
                     double *work, const T *lwork, double *rwork, T *info),                  \
                    (const T *, const T *, const T *, double *, const T *, double *,         \
                     const T *, double *, const double *, T *, double *, const T *,          \
                     double *, T *),                                                         \
                    h_lstsq(&L, C, 1, *m, *n, *nrhs, A, *lda, B, *ldb, s, *rcond, rank,      \
                            W8(T), *lwork, &inf),                                            \
                    (m, n, nrhs, A, lda, B, ldb, s, rcond, rank, work, lwork, rwork, info),  \
                    (m, n, nrhs, A, lda, B, ldb, s, rcond, rank, work, &mone, rwork,         \
                     &qinfo))
#define S_GEBRD(rtn, sym, api, T)                                                             \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (const T *m, const T *n, double *A, const T *lda, double *d, double *e,        \
               double *tauq, double *taup, double *work, const T *lwork, T *info),           \
              (const T *, const T *, double *, const T *, double *, double *, double *,      \
               double *, double *, const T *, T *),                                          \
              h_gebrd(&L, C, *m, *n, A, *lda, d, e, tauq, taup, work, *lwork, &inf),         \
              (m, n, A, lda, d, e, tauq, taup, work, lwork, info))
#define S_ORGBR(rtn, sym, api, T)                                                             \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (CH vect, const T *m, const T *n, const T *k, double *A, const T *lda,         \
               const double *tau, double *work, const T *lwork, T *info, SZ l1),             \
              (CH, const T *, const T *, const T *, double *, const T *, const double *,     \
               double *, const T *, T *, SZ),                                                \
              h_orgbr(&L, C, up(*vect), *m, *n, *k, A, *lda, tau, work, *lwork, &inf),       \
              (vect, m, n, k, A, lda, tau, work, lwork, info, l1))
#define S_ORMBR(rtn, sym, api, T)                                                             \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (CH vect, CH side, CH tr, const T *m, const T *n, const T *k, const double *A, \
               const T *lda, const double *tau, double *Cm, const T *ldc, double *work,      \
               const T *lwork, T *info, SZ l1, SZ l2, SZ l3),                                \
              (CH, CH, CH, const T *, const T *, const T *, const double *, const T *,       \
               const double *, double *, const T *, double *, const T *, T *, SZ, SZ, SZ),   \
              h_ormbr(&L, C, up(*vect), up(*side), up(*tr), *m, *n, *k, A, *lda, tau, Cm,    \
                      *ldc, work, *lwork, &inf),                                             \
              (vect, side, tr, m, n, k, A, lda, tau, Cm, ldc, work, lwork, info, l1, l2, l3))
#define S_DGELSY(rtn, sym, api, T)                                                            \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (const T *m, const T *n, const T *nrhs, double *A, const T *lda, double *B,    \
               const T *ldb, T *jpvt, const double *rcond, T *rank, double *work,            \
               const T *lwork, T *info),                                                     \
              (const T *, const T *, const T *, double *, const T *, double *, const T *,    \
               T *, const double *, T *, double *, const T *, T *),                          \
              h_gelsy(&L, C, *m, *n, *nrhs, A, *lda, B, *ldb, jpvt, W8(T), *rcond, rank,     \
                      work, *lwork, &inf),                                                   \
              (m, n, nrhs, A, lda, B, ldb, jpvt, rcond, rank, work, lwork, info))
/* zgelsy: rwork (2 n) before info, unused by the driver */
#define S_ZGELSY(rtn, sym, api, T)                                                            \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (const T *m, const T *n, const T *nrhs, double *A, const T *lda, double *B,    \
               const T *ldb, T *jpvt, const double *rcond, T *rank, double *work,            \
               const T *lwork, double *rwork, T *info),                                      \
              (const T *, const T *, const T *, double *, const T *, double *, const T *,    \
               T *, const double *, T *, double *, const T *, double *, T *),                \
              h_gelsy(&L, C, *m, *n, *nrhs, A, *lda, B, *ldb, jpvt, W8(T), *rcond, rank,     \
                      work, *lwork, &inf),                                                   \
              (m, n, nrhs, A, lda, B, ldb, jpvt, rcond, rank, work, lwork, rwork, info))

#define S_DEFINE_ROUTINE(rtn, e, shape) OZ_SHIM_LAPACK_VARIANTS(S_##shape, rtn)
OZ_SHIM_SVD_ROUTINES(S_DEFINE_ROUTINE)
