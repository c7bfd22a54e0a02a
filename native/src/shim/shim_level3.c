/* The preload shim's QR-family entries (geqrf, orgqr/ungqr, ormqr/unmqr, gelqf, orglq/unglq,
 * ormlq/unmlq, gehrd, orghr/unghr, ormhr/unmhr, gels: the LAPACK forms of
 * OZ_SHIM_LAPACK_VARIANTS) and the Level-3 BLAS ones the LAPACK layer computes (trsm, trmm,
 * symm, hemm, syr2k, her2k: every Fortran and CBLAS form of OZ_SHIM_VARIANTS), d and z.
 *
 * Each entry follows shim_lapack.c's rules (shim_lapack.h): netlib's argument check (an
 * error, and for the QR family an lwork below netlib's minimum, goes to the real routine and
 * its xerbla; a quick return's lwork is the real routine's to judge; the workspace is the
 * drivers' own, whatever lwork the caller gives), quick returns and workspace queries to the
 * real routine, the routing decision, a non-finite input to the real routine, then the driver
 * of src/lapack/, one trace line and one counter cell under the routine's own name. The QR
 * family's decision weighs the m x n x k product (geqrf, gelqf, gels: k = min(m, n); orgqr,
 * orglq, ormqr, ormlq: their k; gehrd, orghr: the order of the active part, cubed; ormhr:
 * m x n x nh), a k within one block going to the real routine (but for ormqr, ormlq and
 * ormhr: one block of reflectors is still two GEMMs); the Level-3 products'
 * decision is their GEMM's (symm: m x n x the order of A; syr2k: n x n x k), without the
 * one-block rule (each is products only); trsm/trmm keep theirs (min(m, n) cubed, the
 * triangle's order within one block to the real routine). alpha = 0 (and syr2k's k = 0)
 * is BLAS's C := beta C (trsm/trmm: B := 0), computed by the driver on the host whatever
 * the size and method, as for GEMM (shim_decide). CBLAS forms are mapped to the
 * column-major call: a row-major operand is its transpose, so side and uplo swap, m and n
 * swap, syr2k's trans flips (and her2k's alpha is conjugated). */
#define _GNU_SOURCE
#include <stdio.h>

#include "../core/oz_internal.h"
#include "shim_lapack.h"

static int is_zero(int cplx, const double *a) { return a[0] == 0.0 && (!cplx || a[1] == 0.0); }
static int is_one(int cplx, const double *a) { return a[0] == 1.0 && (!cplx || a[1] == 0.0); }

/* LAPACK's optimal workspace after a routed call, as the real routine reports it */
static void opt_work(double *work, int cplx, int64_t n, int64_t nb)
{
    work[0] = (double)(max1(n) * nb);
    if (cplx)
        work[1] = 0.0;
}

/* ---- QR, LQ, Hessenberg, least squares ------------------------------------------------ */

/* geqrf (row 0) and gelqf (row 1): lwork at least n (geqrf) or m (gelqf) */
static int h_geqrf(lap_call *L, int cplx, int row, int64_t m, int64_t n, double *A, int64_t lda,
                   double *tau, double *work, int64_t lwork, int64_t *info)
{
    int64_t k = m < n ? m : n, nw = row ? m : n;
    int op = row ? OZ_QR_GELQF : OZ_QR_GEQRF, query = lwork == -1;
    int quick = k == 0, bad = oz_qr_check(op, cplx, 0, 0, m, n, 0, lda, 0) != 0 ||
                                (!quick && lwork < max1(nw) && !query);
    double flops = query ? 0.0 : oz_qr_flops(op, cplx, 0, m, n, 0);
    if (!lap_begin(L, cplx, m, n, k, k, flops, bad, quick))
        return 0;
    if (query)
        return lap_query(L);
    if (!lap_finite(L, cplx, 'A', m, n, A, lda))
        return 0;
    int ok = LAP_RUN((row ? (cplx ? ozblas_zgelqf : ozblas_dgelqf)
                          : (cplx ? ozblas_zgeqrf : ozblas_dgeqrf))(shim_context(), m, n, A, lda,
                                                                   tau, info, 0, LAP_OPT));
    if (ok)
        opt_work(work, cplx, nw, L->rep.nb);
    return ok;
}

/* orgqr (row 0: Q's first n columns, n <= m) and orglq (row 1: its first m rows, m <= n) */
static int h_orgqr(lap_call *L, int cplx, int row, int64_t m, int64_t n, int64_t k, double *A,
                   int64_t lda, const double *tau, double *work, int64_t lwork, int64_t *info)
{
    int64_t nw = row ? m : n;
    int op = row ? OZ_QR_ORGLQ : OZ_QR_ORGQR, query = lwork == -1;
    int quick = nw <= 0, bad = oz_qr_check(op, cplx, 0, 0, m, n, k, lda, 0) != 0 ||
                                 (!quick && lwork < max1(nw) && !query);
    double flops = query ? 0.0 : oz_qr_flops(op, cplx, 0, m, n, k);
    if (!lap_begin(L, cplx, m, n, k, k, flops, bad, quick))
        return 0;
    if (query)
        return lap_query(L);
    /* the reflectors (below the diagonal of the first k columns, or right of it in the first
       k rows) and tau */
    if (!lap_finite(L, cplx, row ? 'U' : 'L', row ? k : m, row ? n : k, A, lda) ||
        !lap_finite(L, cplx, 'A', k, 1, tau, k))
        return 0;
    int ok = LAP_RUN((row ? (cplx ? ozblas_zunglq : ozblas_dorglq)
                          : (cplx ? ozblas_zungqr : ozblas_dorgqr))(shim_context(), m, n, k, A,
                                                                   lda, tau, info, 0, LAP_OPT));
    if (ok)
        opt_work(work, cplx, nw, L->rep.nb);
    return ok;
}

/* ormqr (row 0) and ormlq (row 1: A holds k rows) */
static int h_ormqr(lap_call *L, int cplx, int row, char side, char trans, int64_t m, int64_t n,
                   int64_t k, const double *A, int64_t lda, const double *tau, double *C,
                   int64_t ldc, double *work, int64_t lwork, int64_t *info)
{
    int64_t nq = side == 'L' ? m : n, nw = side == 'L' ? n : m;
    int op = row ? OZ_QR_ORMLQ : OZ_QR_ORMQR, query = lwork == -1;
    int quick = m == 0 || n == 0 || k == 0;
    int bad = oz_qr_check(op, cplx, side, trans, m, n, k, lda, ldc) != 0 ||
              (!quick && lwork < max1(nw) && !query);
    double flops = query ? 0.0 : oz_qr_flops(op, cplx, side, m, n, k);
    if (!lap_begin(L, cplx, m, n, k, -1, flops, bad, quick))
        return 0;
    if (query)
        return lap_query(L);
    if (!lap_finite(L, cplx, row ? 'U' : 'L', row ? k : nq, row ? nq : k, A, lda) ||
        !lap_finite(L, cplx, 'A', k, 1, tau, k) || !lap_finite(L, cplx, 'A', m, n, C, ldc))
        return 0;
    int ok = LAP_RUN((row ? (cplx ? ozblas_zunmlq : ozblas_dormlq)
                          : (cplx ? ozblas_zunmqr : ozblas_dormqr))(
        shim_context(), side, trans, m, n, k, A, lda, tau, C, ldc, info, 0, LAP_OPT));
    if (ok)
        opt_work(work, cplx, nw, L->rep.nb);
    return ok;
}

/* gehrd and orghr: the decision weighs the active part's order (gehrd: ihi - ilo + 1; orghr:
 * nh = ihi - ilo, the order of its orgqr) cubed, one block to the real routine */
static int h_gehrd(lap_call *L, int cplx, int gen, int64_t n, int64_t ilo, int64_t ihi,
                   double *A, int64_t lda, double *tau, double *work, int64_t lwork,
                   int64_t *info)
{
    int op = gen ? OZ_HR_ORGHR : OZ_HR_GEHRD, query = lwork == -1;
    int64_t h = gen ? ihi - ilo : ihi - ilo + 1, nw = gen ? h : n;
    int quick = gen ? n == 0 : h <= 1;
    int bad = oz_hr_check(op, cplx, 0, 0, n, n, ilo, ihi, lda, 0) != 0 ||
              (lwork < max1(nw) && !query);
    double flops = bad || query ? 0.0 : oz_hr_flops(op, cplx, 0, n, n, ilo, ihi);
    int go = lap_begin(L, cplx, h, h, h, h, flops, bad, quick);
    snprintf(L->dims, sizeof L->dims, "n=%lld ilo=%lld ihi=%lld", (long long)n, (long long)ilo,
             (long long)ihi);
    if (!go)
        return 0;
    if (query)
        return lap_query(L);
    /* gehrd: the matrix; orghr: the reflectors (below the diagonal) and their h scalars */
    if (!lap_finite(L, cplx, gen ? 'L' : 'A', n, n, A, lda) ||
        (gen && !lap_finite(L, cplx, 'A', h, 1, tau + (cplx ? 2 : 1) * (ilo - 1), h)))
        return 0;
    int ok = gen ? LAP_RUN((cplx ? ozblas_zunghr : ozblas_dorghr)(shim_context(), n, ilo, ihi, A,
                                                                  lda, tau, info, 0, LAP_OPT))
                 : LAP_RUN((cplx ? ozblas_zgehrd : ozblas_dgehrd)(shim_context(), n, ilo, ihi, A,
                                                                  lda, tau, info, 0, LAP_OPT));
    if (ok)
        opt_work(work, cplx, nw, L->rep.nb);
    return ok;
}

/* ormhr: as ormqr with k = nh = ihi - ilo */
static int h_ormhr(lap_call *L, int cplx, char side, char trans, int64_t m, int64_t n,
                   int64_t ilo, int64_t ihi, const double *A, int64_t lda, const double *tau,
                   double *C, int64_t ldc, double *work, int64_t lwork, int64_t *info)
{
    int64_t nq = side == 'L' ? m : n, nw = side == 'L' ? n : m, nh = ihi - ilo;
    int query = lwork == -1, quick = m == 0 || n == 0 || nh <= 0;
    int bad = oz_hr_check(OZ_HR_ORMHR, cplx, side, trans, m, n, ilo, ihi, lda, ldc) != 0 ||
              (lwork < max1(nw) && !query);
    double flops = bad || query ? 0.0 : oz_hr_flops(OZ_HR_ORMHR, cplx, side, m, n, ilo, ihi);
    int go = lap_begin(L, cplx, m, n, nh, -1, flops, bad, quick);
    snprintf(L->dims, sizeof L->dims, "m=%lld n=%lld ilo=%lld ihi=%lld", (long long)m,
             (long long)n, (long long)ilo, (long long)ihi);
    if (!go)
        return 0;
    if (query)
        return lap_query(L);
    if (!lap_finite(L, cplx, 'L', nq, nq, A, lda) ||
        !lap_finite(L, cplx, 'A', nh, 1, tau + (cplx ? 2 : 1) * (ilo - 1), nh) ||
        !lap_finite(L, cplx, 'A', m, n, C, ldc))
        return 0;
    int ok = LAP_RUN((cplx ? ozblas_zunmhr : ozblas_dormhr)(shim_context(), side, trans, m, n,
                                                            ilo, ihi, A, lda, tau, C, ldc, info,
                                                            0, LAP_OPT));
    if (ok)
        opt_work(work, cplx, nw, L->rep.nb);
    return ok;
}

/* gels: lwork at least min(m, n) + max(min(m, n), nrhs); the decision geqrf's (m x n x
 * min(m, n), one block to the real routine) */
static int h_gels(lap_call *L, int cplx, char trans, int64_t m, int64_t n, int64_t nrhs,
                  double *A, int64_t lda, double *B, int64_t ldb, double *work, int64_t lwork,
                  int64_t *info)
{
    int64_t mn = m < n ? m : n, mw = mn + (mn > nrhs ? mn : nrhs);
    int query = lwork == -1, quick = mn == 0 || nrhs == 0;
    int bad = oz_gels_check(cplx, trans, m, n, nrhs, lda, ldb) != 0 ||
              (lwork < max1(mw) && !query);
    double flops = bad || query ? 0.0 : oz_gels_flops(cplx, m, n, nrhs);
    int go = lap_begin(L, cplx, m, n, mn, mn, flops, bad, quick);
    snprintf(L->dims, sizeof L->dims, "m=%lld n=%lld nrhs=%lld", (long long)m, (long long)n,
             (long long)nrhs);
    if (!go)
        return 0;
    if (query)
        return lap_query(L);
    if (!lap_finite(L, cplx, 'A', m, n, A, lda) ||
        !lap_finite(L, cplx, 'A', trans == 'N' ? m : n, nrhs, B, ldb))
        return 0;
    int ok = LAP_RUN((cplx ? ozblas_zgels : ozblas_dgels)(shim_context(), trans, m, n, nrhs, A,
                                                          lda, B, ldb, info, 0, LAP_OPT));
    if (ok) /* LAPACK's optimal size: the factors' scalars and the blocked applications */
        opt_work(work, cplx, 1, max1(mn + (mn > nrhs ? mn : nrhs) * L->rep.nb));
    return ok;
}

#define Q_FACT(rtn, sym, T, ROW)                                                              \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (const T *m, const T *n, double *A, const T *lda, double *tau, double *work,   \
               const T *lwork, T *info),                                                     \
              (const T *, const T *, double *, const T *, double *, double *, const T *, T *), \
              h_geqrf(&L, C, ROW, *m, *n, A, *lda, tau, work, *lwork, &inf),                 \
              (m, n, A, lda, tau, work, lwork, info))
#define Q_GEN(rtn, sym, T, ROW)                                                               \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (const T *m, const T *n, const T *k, double *A, const T *lda, const double *tau, \
               double *work, const T *lwork, T *info),                                       \
              (const T *, const T *, const T *, double *, const T *, const double *, double *, \
               const T *, T *),                                                              \
              h_orgqr(&L, C, ROW, *m, *n, *k, A, *lda, tau, work, *lwork, &inf),             \
              (m, n, k, A, lda, tau, work, lwork, info))
#define Q_APPLY(rtn, sym, T, ROW)                                                             \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (CH side, CH tr, const T *m, const T *n, const T *k, const double *A,          \
               const T *lda, const double *tau, double *Cm, const T *ldc, double *work,      \
               const T *lwork, T *info, SZ l1, SZ l2),                                       \
              (CH, CH, const T *, const T *, const T *, const double *, const T *,           \
               const double *, double *, const T *, double *, const T *, T *, SZ, SZ),       \
              h_ormqr(&L, C, ROW, up(*side), up(*tr), *m, *n, *k, A, *lda, tau, Cm, *ldc,    \
                      work, *lwork, &inf),                                                   \
              (side, tr, m, n, k, A, lda, tau, Cm, ldc, work, lwork, info, l1, l2))
#define Q_GEQRF(rtn, sym, api, T) Q_FACT(rtn, sym, T, 0)
#define Q_GELQF(rtn, sym, api, T) Q_FACT(rtn, sym, T, 1)
#define Q_ORGQR(rtn, sym, api, T) Q_GEN(rtn, sym, T, 0)
#define Q_ORGLQ(rtn, sym, api, T) Q_GEN(rtn, sym, T, 1)
#define Q_ORMQR(rtn, sym, api, T) Q_APPLY(rtn, sym, T, 0)
#define Q_ORMLQ(rtn, sym, api, T) Q_APPLY(rtn, sym, T, 1)
#define Q_HRD(rtn, sym, T, GEN, TAU)                                                          \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (const T *n, const T *ilo, const T *ihi, double *A, const T *lda, TAU *tau,    \
               double *work, const T *lwork, T *info),                                       \
              (const T *, const T *, const T *, double *, const T *, TAU *, double *,        \
               const T *, T *),                                                              \
              h_gehrd(&L, C, GEN, *n, *ilo, *ihi, A, *lda, (double *)tau, work, *lwork,      \
                      &inf),                                                                 \
              (n, ilo, ihi, A, lda, tau, work, lwork, info))
#define Q_GEHRD(rtn, sym, api, T) Q_HRD(rtn, sym, T, 0, double)
#define Q_ORGHR(rtn, sym, api, T) Q_HRD(rtn, sym, T, 1, const double)
#define Q_ORMHR(rtn, sym, api, T)                                                             \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (CH side, CH tr, const T *m, const T *n, const T *ilo, const T *ihi,           \
               const double *A, const T *lda, const double *tau, double *Cm, const T *ldc,   \
               double *work, const T *lwork, T *info, SZ l1, SZ l2),                         \
              (CH, CH, const T *, const T *, const T *, const T *, const double *,           \
               const T *, const double *, double *, const T *, double *, const T *, T *, SZ, \
               SZ),                                                                          \
              h_ormhr(&L, C, up(*side), up(*tr), *m, *n, *ilo, *ihi, A, *lda, tau, Cm,       \
                      *ldc, work, *lwork, &inf),                                             \
              (side, tr, m, n, ilo, ihi, A, lda, tau, Cm, ldc, work, lwork, info, l1, l2))
#define Q_GELS(rtn, sym, api, T)                                                              \
    LAP_ENTRY(sym, rtn, T,                                                                   \
              (CH tr, const T *m, const T *n, const T *nrhs, double *A, const T *lda,        \
               double *B, const T *ldb, double *work, const T *lwork, T *info, SZ l1),       \
              (CH, const T *, const T *, const T *, double *, const T *, double *,           \
               const T *, double *, const T *, T *, SZ),                                     \
              h_gels(&L, C, up(*tr), *m, *n, *nrhs, A, *lda, B, *ldb, work, *lwork, &inf),   \
              (tr, m, n, nrhs, A, lda, B, ldb, work, lwork, info, l1))

#define Q_DEFINE_ROUTINE(rtn, e, shape) OZ_SHIM_LAPACK_VARIANTS(Q_##shape, rtn)
OZ_SHIM_QR_ROUTINES(Q_DEFINE_ROUTINE)

/* ---- Level-3 BLAS ---------------------------------------------------------------------- */

/* trsm and trmm */
static int h_tr3(lap_call *L, int cplx, int mult, char side, char uplo, char ta, char diag,
                 int64_t m, int64_t n, const double *alpha, const double *A, int64_t lda,
                 double *B, int64_t ldb)
{
    int64_t K = side == 'L' ? m : n, mn = m < n ? m : n, info = 0;
    int bad = oz_lapack_check(&(oz_lapack_args){.op = OZ_LF_TRSM, .side = side, .uplo = uplo,
                                                 .trans = ta, .diag = diag, .m = m, .n = n,
                                                 .lda = lda, .ldb = ldb}) != 0;
    double flops = bad ? 0.0 : oz_lapack_flops(OZ_LF_TRSM, cplx, m, n, K);
    int go = lap_begin_update(L, cplx, mn, mn, mn, K, flops, bad, m == 0 || n == 0, alpha);
    snprintf(L->dims, sizeof L->dims, "m=%lld n=%lld nrhs=%lld", (long long)m, (long long)n,
             (long long)K);
    if (!go)
        return 0;
    if (!L->r.zero &&
        (!lap_finite(L, cplx, uplo, K, K, A, lda) || !lap_finite(L, cplx, 'A', m, n, B, ldb)))
        return 0;
    ozblas_context *ctx = shim_context();
    if (cplx)
        return LAP_RUN((mult ? ozblas_ztrmm : ozblas_ztrsm)(ctx, side, uplo, ta, diag, m, n, alpha,
                                                            A, lda, B, ldb, &info, 0, LAP_OPT));
    return LAP_RUN((mult ? ozblas_dtrmm : ozblas_dtrsm)(ctx, side, uplo, ta, diag, m, n, alpha[0],
                                                        A, lda, B, ldb, &info, 0, LAP_OPT));
}

/* symm and hemm */
static int h_symm(lap_call *L, int cplx, int herm, char side, char uplo, int64_t m, int64_t n,
                  const double *alpha, const double *A, int64_t lda, const double *B,
                  int64_t ldb, const double *beta, double *C, int64_t ldc)
{
    int op = herm ? OZ_L3_HEMM : OZ_L3_SYMM;
    int64_t K = side == 'L' ? m : n, info = 0;
    int bad = oz_l3_check(op, cplx, side, uplo, 0, m, n, 0, lda, ldb, ldc) != 0;
    int quick = m == 0 || n == 0 || (is_zero(cplx, alpha) && is_one(cplx, beta));
    if (!lap_begin_update(L, cplx, m, n, K, -1, oz_l3_flops(op, cplx, side, m, n, 0), bad, quick,
                          alpha))
        return 0;
    if (!L->r.zero &&
        (!lap_finite(L, cplx, uplo, K, K, A, lda) || !lap_finite(L, cplx, 'A', m, n, B, ldb) ||
         (!is_zero(cplx, beta) && !lap_finite(L, cplx, 'A', m, n, C, ldc))))
        return 0;
    ozblas_context *ctx = shim_context();
    if (!cplx)
        return LAP_RUN(ozblas_dsymm(ctx, side, uplo, m, n, alpha[0], A, lda, B, ldb, beta[0], C,
                                    ldc, &info, 0, LAP_OPT));
    return LAP_RUN((herm ? ozblas_zhemm : ozblas_zsymm)(ctx, side, uplo, m, n, alpha, A, lda, B,
                                                        ldb, beta, C, ldc, &info, 0, LAP_OPT));
}

/* syr2k and her2k (her2k: beta real, beta[1] ignored) */
static int h_syr2k(lap_call *L, int cplx, int herm, char uplo, char trans, int64_t n, int64_t k,
                   const double *alpha, const double *A, int64_t lda, const double *B,
                   int64_t ldb, const double *beta, double *C, int64_t ldc)
{
    int op = herm ? OZ_L3_HER2K : OZ_L3_SYR2K;
    int64_t rows = trans == 'N' ? n : k, cols = trans == 'N' ? k : n, info = 0;
    int bc = cplx && !herm; /* a complex beta */
    int bad = oz_l3_check(op, cplx, 0, uplo, trans, n, n, k, lda, ldb, ldc) != 0;
    int quick = n == 0 || ((is_zero(cplx, alpha) || k == 0) && is_one(bc, beta));
    if (!lap_begin_update(L, cplx, n, n, k, -1, oz_l3_flops(op, cplx, 0, n, n, k), bad, quick,
                          alpha))
        return 0;
    if (!L->r.zero && (!lap_finite(L, cplx, 'A', rows, cols, A, lda) ||
                       !lap_finite(L, cplx, 'A', rows, cols, B, ldb) ||
                       (!is_zero(bc, beta) && !lap_finite(L, cplx, uplo, n, n, C, ldc))))
        return 0;
    ozblas_context *ctx = shim_context();
    if (!cplx)
        return LAP_RUN(ozblas_dsyr2k(ctx, uplo, trans, n, k, alpha[0], A, lda, B, ldb, beta[0], C,
                                     ldc, &info, 0, LAP_OPT));
    if (herm)
        return LAP_RUN(ozblas_zher2k(ctx, uplo, trans, n, k, alpha, A, lda, B, ldb, beta[0], C,
                                     ldc, &info, 0, LAP_OPT));
    return LAP_RUN(ozblas_zsyr2k(ctx, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                 &info, 0, LAP_OPT));
}

/* CBLAS's enumerations to the column-major characters (0: not valid) */
enum { CB_ROW = 101, CB_COL = 102 };
static char cb_trans(int t) { return t == 111 ? 'N' : t == 112 ? 'T' : t == 113 ? 'C' : 0; }
static char cb_uplo(int u, int row) { return u == 121 ? "UL"[row] : u == 122 ? "LU"[row] : 0; }
static char cb_side(int s, int row) { return s == 141 ? "LR"[row] : s == 142 ? "RL"[row] : 0; }
static char cb_diag(int d) { return d == 131 ? 'N' : d == 132 ? 'U' : 0; }
/* syr2k's trans of the row-major call: the transpose of its operands (dsyr2k: 'C' is 'T') */
static char cb_trans2k(int t, int row, int cplx, int herm)
{
    char c = cb_trans(t);
    if (!row || !c)
        return c;
    char other = herm ? 'C' : 'T';
    if (c == 'N')
        return other;
    return c == other || (!cplx && c == 'C') ? 'N' : 0;
}

/* Level-3 BLAS entries have no info */
#define B3_ENTRY(sym, rtn, PARAMS, FN_PARAMS, HANDLER, ARGS) \
    LX_ENTRY(sym, rtn, PARAMS, FN_PARAMS, HANDLER, ARGS, (void)0, (void)0)

/* CBLAS scalars: double by value (d; her2k's beta) or a pointer to (re, im) */
#define B3_T_val double
#define B3_P_val(x) ((const double[2]){(x), 0.0})
#define B3_T_ptr const void *
#define B3_P_ptr(x) ((const double *)(x))
/* Row-major; an invalid order gives side or uplo 0, which fails the check (the real
 * routine then reports it) */
#define B3_ROW(o) ((o) == CB_ROW)
#define B3_BADORD(o) ((o) != CB_ROW && (o) != CB_COL)

#define B3_TR3_F77(rtn, sym, T, MULT)                                                         \
    B3_ENTRY(sym, rtn,                                                                       \
             (CH side, CH uplo, CH ta, CH diag, const T *m, const T *n, const double *alpha, \
              const double *A, const T *lda, double *B, const T *ldb, SZ l1, SZ l2, SZ l3,   \
              SZ l4),                                                                        \
             (CH, CH, CH, CH, const T *, const T *, const double *, const double *,          \
              const T *, double *, const T *, SZ, SZ, SZ, SZ),                               \
             h_tr3(&L, C, MULT, up(*side), up(*uplo), up(*ta), up(*diag), *m, *n, alpha, A,  \
                   *lda, B, *ldb),                                                           \
             (side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb, l1, l2, l3, l4))
#define B3_TR3_CBLAS(rtn, sym, T, MULT, SC)                                                   \
    B3_ENTRY(sym, rtn,                                                                       \
             (int o, int side, int uplo, int ta, int diag, T m, T n, B3_T_##SC alpha,        \
              const void *A, T lda, void *B, T ldb),                                         \
             (int, int, int, int, int, T, T, B3_T_##SC, const void *, T, void *, T),         \
             h_tr3(&L, C, MULT, B3_BADORD(o) ? 0 : cb_side(side, B3_ROW(o)),                 \
                   cb_uplo(uplo, B3_ROW(o)), cb_trans(ta), cb_diag(diag), B3_ROW(o) ? n : m,  \
                   B3_ROW(o) ? m : n, B3_P_##SC(alpha), A, lda, B, ldb),                     \
             (o, side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb))

#define B3_SYMM_F77(rtn, sym, T, HERM)                                                        \
    B3_ENTRY(sym, rtn,                                                                       \
             (CH side, CH uplo, const T *m, const T *n, const double *alpha, const double *A, \
              const T *lda, const double *B, const T *ldb, const double *beta, double *Cm,   \
              const T *ldc, SZ l1, SZ l2),                                                   \
             (CH, CH, const T *, const T *, const double *, const double *, const T *,       \
              const double *, const T *, const double *, double *, const T *, SZ, SZ),       \
             h_symm(&L, C, HERM, up(*side), up(*uplo), *m, *n, alpha, A, *lda, B, *ldb, beta, \
                    Cm, *ldc),                                                               \
             (side, uplo, m, n, alpha, A, lda, B, ldb, beta, Cm, ldc, l1, l2))
#define B3_SYMM_CBLAS(rtn, sym, T, HERM, SC)                                                  \
    B3_ENTRY(sym, rtn,                                                                       \
             (int o, int side, int uplo, T m, T n, B3_T_##SC alpha, const void *A, T lda,    \
              const void *B, T ldb, B3_T_##SC beta, void *Cm, T ldc),                        \
             (int, int, int, T, T, B3_T_##SC, const void *, T, const void *, T, B3_T_##SC,   \
              void *, T),                                                                    \
             h_symm(&L, C, HERM, B3_BADORD(o) ? 0 : cb_side(side, B3_ROW(o)),                \
                    cb_uplo(uplo, B3_ROW(o)), B3_ROW(o) ? n : m, B3_ROW(o) ? m : n,          \
                    B3_P_##SC(alpha), A, lda, B, ldb, B3_P_##SC(beta), Cm, ldc),             \
             (o, side, uplo, m, n, alpha, A, lda, B, ldb, beta, Cm, ldc))

#define B3_SYR2K_F77(rtn, sym, T, HERM)                                                       \
    B3_ENTRY(sym, rtn,                                                                       \
             (CH uplo, CH tr, const T *n, const T *k, const double *alpha, const double *A,  \
              const T *lda, const double *B, const T *ldb, const double *beta, double *Cm,   \
              const T *ldc, SZ l1, SZ l2),                                                   \
             (CH, CH, const T *, const T *, const double *, const double *, const T *,       \
              const double *, const T *, const double *, double *, const T *, SZ, SZ),       \
             h_syr2k(&L, C, HERM, up(*uplo), up(*tr), *n, *k, alpha, A, *lda, B, *ldb, beta,  \
                     Cm, *ldc),                                                              \
             (uplo, tr, n, k, alpha, A, lda, B, ldb, beta, Cm, ldc, l1, l2))
/* her2k row-major: alpha conjugated (the row-major C is the conjugate of the column-major
 * view's, which is Hermitian) */
#define B3_SYR2K_CBLAS(rtn, sym, T, HERM, SC, SB)                                             \
    B3_ENTRY(sym, rtn,                                                                       \
             (int o, int uplo, int tr, T n, T k, B3_T_##SC alpha, const void *A, T lda,      \
              const void *B, T ldb, B3_T_##SB beta, void *Cm, T ldc),                        \
             (int, int, int, T, T, B3_T_##SC, const void *, T, const void *, T, B3_T_##SB,   \
              void *, T),                                                                    \
             h_syr2k(&L, C, HERM, B3_BADORD(o) ? 0 : cb_uplo(uplo, B3_ROW(o)),               \
                     cb_trans2k(tr, B3_ROW(o), C, HERM), n, k,                               \
                     HERM && B3_ROW(o) ? (const double[2]){B3_P_##SC(alpha)[0],              \
                                                           -B3_P_##SC(alpha)[1]}             \
                                       : B3_P_##SC(alpha),                                   \
                     A, lda, B, ldb, B3_P_##SB(beta), Cm, ldc),                              \
             (o, uplo, tr, n, k, alpha, A, lda, B, ldb, beta, Cm, ldc))

/* Per routine: its Fortran and CBLAS entries. */
#define B3_DEF_dtrsm_F77(sym, T) B3_TR3_F77(dtrsm, sym, T, 0)
#define B3_DEF_ztrsm_F77(sym, T) B3_TR3_F77(ztrsm, sym, T, 0)
#define B3_DEF_dtrmm_F77(sym, T) B3_TR3_F77(dtrmm, sym, T, 1)
#define B3_DEF_ztrmm_F77(sym, T) B3_TR3_F77(ztrmm, sym, T, 1)
#define B3_DEF_dsymm_F77(sym, T) B3_SYMM_F77(dsymm, sym, T, 0)
#define B3_DEF_zsymm_F77(sym, T) B3_SYMM_F77(zsymm, sym, T, 0)
#define B3_DEF_zhemm_F77(sym, T) B3_SYMM_F77(zhemm, sym, T, 1)
#define B3_DEF_dsyr2k_F77(sym, T) B3_SYR2K_F77(dsyr2k, sym, T, 0)
#define B3_DEF_zsyr2k_F77(sym, T) B3_SYR2K_F77(zsyr2k, sym, T, 0)
#define B3_DEF_zher2k_F77(sym, T) B3_SYR2K_F77(zher2k, sym, T, 1)
#define B3_DEF_dtrsm_CBLAS(sym, T) B3_TR3_CBLAS(dtrsm, sym, T, 0, val)
#define B3_DEF_ztrsm_CBLAS(sym, T) B3_TR3_CBLAS(ztrsm, sym, T, 0, ptr)
#define B3_DEF_dtrmm_CBLAS(sym, T) B3_TR3_CBLAS(dtrmm, sym, T, 1, val)
#define B3_DEF_ztrmm_CBLAS(sym, T) B3_TR3_CBLAS(ztrmm, sym, T, 1, ptr)
#define B3_DEF_dsymm_CBLAS(sym, T) B3_SYMM_CBLAS(dsymm, sym, T, 0, val)
#define B3_DEF_zsymm_CBLAS(sym, T) B3_SYMM_CBLAS(zsymm, sym, T, 0, ptr)
#define B3_DEF_zhemm_CBLAS(sym, T) B3_SYMM_CBLAS(zhemm, sym, T, 1, ptr)
#define B3_DEF_dsyr2k_CBLAS(sym, T) B3_SYR2K_CBLAS(dsyr2k, sym, T, 0, val, val)
#define B3_DEF_zsyr2k_CBLAS(sym, T) B3_SYR2K_CBLAS(zsyr2k, sym, T, 0, ptr, ptr)
#define B3_DEF_zher2k_CBLAS(sym, T) B3_SYR2K_CBLAS(zher2k, sym, T, 1, ptr, val)

#define B3_DEFINE(r, sym, api, T) B3_DEF_##r##_##api(sym, T)
#define B3_DEFINE_ROUTINE(r, e, shape) OZ_SHIM_VARIANTS(B3_DEFINE, r)
OZ_SHIM_BLAS3_ROUTINES(B3_DEFINE_ROUTINE)
