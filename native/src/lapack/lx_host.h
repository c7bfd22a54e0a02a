/* The host LAPACK (and BLAS) routines the LAPACK layer calls, each declared once here:
 * X(id, d name, z name, return type, argument list), "" where a family has no such routine
 * (real-only auxiliaries; d and z with different argument lists are two lines), LXI in the
 * argument lists standing for LAPACK's integer (int32_t LP64, int64_t ILP64), the hidden
 * lengths of character arguments (size_t) last. lapack_real.c finds the family (prefix,
 * suffix, integer width) from the first LXH_CORE_N lines, then every routine on first use
 * (lx_host_fn). A call: inside LX_F77, where I is the family's integer,
 * LX_HOST(cplx, id)(arguments...), typed by this table. */
#ifndef LX_HOST_H
#define LX_HOST_H

#include <stddef.h>
#include <stdint.h>

/* clang-format off */
#define LX_HOST_ROUTINES(X)                                                                    \
    /* the core set, every one needed (the family is the first that has them all) */          \
    X(getrf, "dgetrf", "zgetrf", void, (const LXI *, const LXI *, double *, const LXI *,       \
                                        LXI *, LXI *))                                         \
    X(laswp, "dlaswp", "zlaswp", void, (const LXI *, double *, const LXI *, const LXI *,       \
                                        const LXI *, const LXI *, const LXI *))                \
    X(potrf, "dpotrf", "zpotrf", void, (const char *, const LXI *, double *, const LXI *,      \
                                        LXI *, size_t))                                        \
    X(trtri, "dtrtri", "ztrtri", void, (const char *, const char *, const LXI *, double *,     \
                                        const LXI *, LXI *, size_t, size_t))                   \
    X(lauum, "dlauum", "zlauum", void, (const char *, const LXI *, double *, const LXI *,      \
                                        LXI *, size_t))                                        \
    X(trsm, "dtrsm", "ztrsm", void, (const char *, const char *, const char *, const char *,   \
                                     const LXI *, const LXI *, const double *, const double *, \
                                     const LXI *, double *, const LXI *, size_t, size_t,       \
                                     size_t, size_t))                                          \
    X(trmm, "dtrmm", "ztrmm", void, (const char *, const char *, const char *, const char *,   \
                                     const LXI *, const LXI *, const double *, const double *, \
                                     const LXI *, double *, const LXI *, size_t, size_t,       \
                                     size_t, size_t))                                          \
    /* BLAS */                                                                                 \
    X(syrk, "dsyrk", "zherk", void, (const char *, const char *, const LXI *, const LXI *,     \
                                     const double *, const double *, const LXI *,              \
                                     const double *, double *, const LXI *, size_t, size_t))   \
    X(gemv, "dgemv", "zgemv", void, (const char *, const LXI *, const LXI *, const double *,   \
                                     const double *, const LXI *, const double *, const LXI *, \
                                     const double *, double *, const LXI *, size_t))           \
    /* Householder: QR, LQ, Hessenberg, bidiagonal, tridiagonal */                             \
    X(geqrf, "dgeqrf", "zgeqrf", void, (const LXI *, const LXI *, double *, const LXI *,       \
                                        const double *, double *, const LXI *, LXI *))         \
    X(gelqf, "dgelqf", "zgelqf", void, (const LXI *, const LXI *, double *, const LXI *,       \
                                        const double *, double *, const LXI *, LXI *))         \
    X(orgqr, "dorgqr", "zungqr", void, (const LXI *, const LXI *, const LXI *, double *,       \
                                        const LXI *, const double *, double *, const LXI *,    \
                                        LXI *))                                                \
    X(orglq, "dorglq", "zunglq", void, (const LXI *, const LXI *, const LXI *, double *,       \
                                        const LXI *, const double *, double *, const LXI *,    \
                                        LXI *))                                                \
    X(larft, "dlarft", "zlarft", void, (const char *, const char *, const LXI *, const LXI *,  \
                                        const double *, const LXI *, const double *, double *, \
                                        const LXI *, size_t, size_t))                          \
    X(geqrt3, "dgeqrt3", "zgeqrt3", void, (const LXI *, const LXI *, double *, const LXI *,    \
                                           double *, const LXI *, LXI *))                      \
    X(larfg, "dlarfg", "zlarfg", void, (const LXI *, double *, double *, const LXI *,          \
                                        double *))                                             \
    X(larfx, "dlarfx", "zlarfx", void, (const char *, const LXI *, const LXI *,                \
                                        const double *, const double *, double *, const LXI *, \
                                        double *, size_t))                                     \
    X(lahr2, "dlahr2", "zlahr2", void, (const LXI *, const LXI *, const LXI *, double *,       \
                                        const LXI *, double *, double *, const LXI *,          \
                                        double *, const LXI *))                                \
    X(gehrd, "dgehrd", "zgehrd", void, (const LXI *, const LXI *, const LXI *, double *,       \
                                        const LXI *, double *, double *, const LXI *, LXI *))  \
    X(labrd, "dlabrd", "zlabrd", void, (const LXI *, const LXI *, const LXI *, double *,       \
                                        const LXI *, double *, double *, double *, double *,   \
                                        double *, const LXI *, double *, const LXI *))         \
    X(gebd2, "dgebd2", "zgebd2", void, (const LXI *, const LXI *, double *, const LXI *,       \
                                        double *, double *, double *, double *, double *,      \
                                        LXI *))                                                \
    X(latrd, "dlatrd", "zlatrd", void, (const char *, const LXI *, const LXI *, double *,      \
                                        const LXI *, double *, double *, double *,             \
                                        const LXI *, size_t))                                  \
    X(sytd2, "dsytd2", "zhetd2", void, (const char *, const LXI *, double *, const LXI *,      \
                                        double *, double *, double *, LXI *, size_t))          \
    X(sytrd, "dsytrd", "zhetrd", void, (const char *, const LXI *, double *, const LXI *,      \
                                        double *, double *, double *, double *, const LXI *,   \
                                        LXI *, size_t))                                        \
    X(ormtr, "dormtr", "zunmtr", void, (const char *, const char *, const char *, const LXI *, \
                                        const LXI *, const double *, const LXI *,              \
                                        const double *, double *, const LXI *, double *,       \
                                        const LXI *, LXI *, size_t, size_t, size_t))           \
    X(orgtr, "dorgtr", "zungtr", void, (const char *, const LXI *, double *, const LXI *,      \
                                        const double *, double *, const LXI *, LXI *, size_t)) \
    /* least squares */                                                                        \
    X(lange, "dlange", "zlange", double, (const char *, const LXI *, const LXI *,              \
                                          const double *, const LXI *, double *, size_t))      \
    X(lascl, "dlascl", "zlascl", void, (const char *, const LXI *, const LXI *,                \
                                        const double *, const double *, const LXI *,           \
                                        const LXI *, double *, const LXI *, LXI *, size_t))    \
    X(dgeqp3, "dgeqp3", "", void, (const LXI *, const LXI *, double *, const LXI *, void *,    \
                                   double *, double *, const LXI *, LXI *))                    \
    X(zgeqp3, "", "zgeqp3", void, (const LXI *, const LXI *, double *, const LXI *, void *,    \
                                   double *, double *, const LXI *, double *, LXI *))          \
    X(laic1, "dlaic1", "zlaic1", void, (const LXI *, const LXI *, const double *,              \
                                        const double *, const double *, const double *,        \
                                        double *, double *, double *))                         \
    X(tzrzf, "dtzrzf", "ztzrzf", void, (const LXI *, const LXI *, double *, const LXI *,       \
                                        double *, double *, const LXI *, LXI *))               \
    X(ormrz, "dormrz", "zunmrz", void, (const char *, const char *, const LXI *, const LXI *,  \
                                        const LXI *, const LXI *, const double *, const LXI *, \
                                        const double *, double *, const LXI *, double *,       \
                                        const LXI *, LXI *, size_t, size_t))                   \
    X(dlalsd, "dlalsd", "", void, (const char *, const LXI *, const LXI *, const LXI *,        \
                                   double *, double *, double *, const LXI *, const double *,  \
                                   LXI *, double *, LXI *, LXI *, size_t))                     \
    X(zlalsd, "", "zlalsd", void, (const char *, const LXI *, const LXI *, const LXI *,        \
                                   double *, double *, double *, const LXI *, const double *,  \
                                   LXI *, double *, double *, LXI *, LXI *, size_t))           \
    X(dgelsd, "dgelsd", "", void, (const LXI *, const LXI *, const LXI *, double *,          \
                                   const LXI *, double *, const LXI *, double *,               \
                                   const double *, LXI *, double *, const LXI *, LXI *, LXI *)) \
    X(zgelsd, "", "zgelsd", void, (const LXI *, const LXI *, const LXI *, double *,          \
                                   const LXI *, double *, const LXI *, double *,               \
                                   const double *, LXI *, double *, const LXI *, double *, LXI *,  \
                                   LXI *))                                                     \
    X(dgelss, "dgelss", "", void, (const LXI *, const LXI *, const LXI *, double *,          \
                                   const LXI *, double *, const LXI *, double *,               \
                                   const double *, LXI *, double *, const LXI *, LXI *))       \
    X(zgelss, "", "zgelss", void, (const LXI *, const LXI *, const LXI *, double *,          \
                                   const LXI *, double *, const LXI *, double *,               \
                                   const double *, LXI *, double *, const LXI *, double *, LXI *)) \
    /* the generalized problem, Sylvester */                                                   \
    X(sygst, "dsygst", "zhegst", void, (const LXI *, const char *, const LXI *, double *,      \
                                        const LXI *, const double *, const LXI *, LXI *,       \
                                        size_t))                                               \
    X(trsyl, "dtrsyl", "ztrsyl", void, (const char *, const char *, const LXI *, const LXI *,  \
                                        const LXI *, const double *, const LXI *,              \
                                        const double *, const LXI *, double *, const LXI *,    \
                                        double *, LXI *, size_t, size_t))                      \
    /* the symmetric tridiagonal and bidiagonal problems (real) */                             \
    X(sterf, "dsterf", "", void, (const LXI *, double *, double *, LXI *))                     \
    X(steqr, "dsteqr", "", void, (const char *, const LXI *, double *, double *, double *,     \
                                  const LXI *, double *, LXI *, size_t))                       \
    X(stemr, "dstemr", "", void, (const char *, const char *, const LXI *, double *, double *, \
                                  const double *, const double *, const LXI *, const LXI *,    \
                                  LXI *, double *, double *, const LXI *, const LXI *, LXI *,  \
                                  LXI *, double *, const LXI *, LXI *, const LXI *, LXI *,     \
                                  size_t, size_t))                                             \
    X(stebz, "dstebz", "", void, (const char *, const char *, const LXI *, const double *,     \
                                  const double *, const LXI *, const LXI *, const double *,    \
                                  const double *, const double *, LXI *, LXI *, double *,      \
                                  LXI *, LXI *, double *, LXI *, LXI *, size_t, size_t))       \
    X(stein, "dstein", "", void, (const LXI *, const double *, const double *, const LXI *,    \
                                  const double *, const LXI *, const LXI *, double *,          \
                                  const LXI *, double *, LXI *, LXI *, LXI *))                 \
    X(stedc, "dstedc", "", void, (const char *, const LXI *, double *, double *, double *,     \
                                  const LXI *, double *, const LXI *, LXI *, const LXI *,      \
                                  LXI *, size_t))                                              \
    X(laed2, "dlaed2", "", void, (LXI *, const LXI *, const LXI *, double *, double *,         \
                                  const LXI *, LXI *, double *, double *, double *, double *,  \
                                  double *, LXI *, LXI *, LXI *, LXI *, LXI *))                \
    X(laed4, "dlaed4", "", void, (const LXI *, const LXI *, const double *, const double *,    \
                                  double *, const double *, double *, LXI *))                  \
    X(lamrg, "dlamrg", "", void, (const LXI *, const LXI *, const double *, const LXI *,       \
                                  const LXI *, LXI *))                                         \
    X(bdsdc, "dbdsdc", "", void, (const char *, const char *, const LXI *, double *, double *, \
                                  double *, const LXI *, double *, const LXI *, double *,      \
                                  LXI *, double *, LXI *, LXI *, size_t, size_t))              \
    X(lasdq, "dlasdq", "", void, (const char *, const LXI *, const LXI *, const LXI *,         \
                                  const LXI *, const LXI *, double *, double *, double *,      \
                                  const LXI *, double *, const LXI *, double *, const LXI *,   \
                                  double *, LXI *, size_t))                                    \
    X(lasdt, "dlasdt", "", void, (const LXI *, LXI *, LXI *, LXI *, LXI *, LXI *,              \
                                  const LXI *))                                                \
    X(lasd4, "dlasd4", "", void, (const LXI *, const LXI *, const double *, const double *,    \
                                  double *, const double *, double *, double *, LXI *))        \
    X(bdsqr, "dbdsqr", "zbdsqr", void, (const char *, const LXI *, const LXI *, const LXI *,   \
                                        const LXI *, double *, double *, double *,             \
                                        const LXI *, double *, const LXI *, double *,          \
                                        const LXI *, double *, LXI *, size_t))                 \
    /* the drivers, for an order within one block */                                          \
    X(dsyevd, "dsyevd", "", void, (const char *, const char *, const LXI *, double *,          \
                                   const LXI *, double *, double *, const LXI *, LXI *,        \
                                   const LXI *, LXI *, size_t, size_t))                        \
    X(zheevd, "", "zheevd", void, (const char *, const char *, const LXI *, double *,          \
                                   const LXI *, double *, double *, const LXI *, double *,     \
                                   const LXI *, LXI *, const LXI *, LXI *, size_t, size_t))    \
    X(dsyev, "dsyev", "", void, (const char *, const char *, const LXI *, double *,            \
                                 const LXI *, double *, double *, const LXI *, LXI *, size_t,  \
                                 size_t))                                                      \
    X(zheev, "", "zheev", void, (const char *, const char *, const LXI *, double *,            \
                                 const LXI *, double *, double *, const LXI *, double *,       \
                                 LXI *, size_t, size_t))                                       \
    X(dsyevr, "dsyevr", "", void, (const char *, const char *, const char *, const LXI *,      \
                                   double *, const LXI *, const double *, const double *,      \
                                   const LXI *, const LXI *, const double *, LXI *, double *,  \
                                   double *, const LXI *, LXI *, double *, const LXI *, LXI *, \
                                   const LXI *, LXI *, size_t, size_t, size_t))                \
    X(zheevr, "", "zheevr", void, (const char *, const char *, const char *, const LXI *,      \
                                   double *, const LXI *, const double *, const double *,      \
                                   const LXI *, const LXI *, const double *, LXI *, double *,  \
                                   double *, const LXI *, LXI *, double *, const LXI *,        \
                                   double *, const LXI *, LXI *, const LXI *, LXI *, size_t,   \
                                   size_t, size_t))                                            \
    X(dgesvd, "dgesvd", "", void, (const char *, const char *, const LXI *, const LXI *,       \
                                   double *, const LXI *, double *, double *, const LXI *,     \
                                   double *, const LXI *, double *, const LXI *, LXI *,        \
                                   size_t, size_t))                                            \
    X(zgesvd, "", "zgesvd", void, (const char *, const char *, const LXI *, const LXI *,       \
                                   double *, const LXI *, double *, double *, const LXI *,     \
                                   double *, const LXI *, double *, const LXI *, double *,     \
                                   LXI *, size_t, size_t))                                     \
    X(dgesdd, "dgesdd", "", void, (const char *, const LXI *, const LXI *, double *,           \
                                   const LXI *, double *, double *, const LXI *, double *,     \
                                   const LXI *, double *, const LXI *, LXI *, LXI *, size_t))  \
    X(zgesdd, "", "zgesdd", void, (const char *, const LXI *, const LXI *, double *,           \
                                   const LXI *, double *, double *, const LXI *, double *,     \
                                   const LXI *, double *, const LXI *, double *, LXI *, LXI *, \
                                   size_t))                                                    \
    /* the nonsymmetric eigenproblem */                                                        \
    X(gebal, "dgebal", "zgebal", void, (const char *, const LXI *, double *, const LXI *,      \
                                        LXI *, LXI *, double *, LXI *, size_t))                \
    X(gebak, "dgebak", "zgebak", void, (const char *, const char *, const LXI *, const LXI *,  \
                                        const LXI *, const double *, const LXI *, double *,    \
                                        const LXI *, LXI *, size_t, size_t))                   \
    X(dhseqr, "dhseqr", "", void, (const char *, const char *, const LXI *, const LXI *,       \
                                   const LXI *, double *, const LXI *, double *, double *,     \
                                   double *, const LXI *, double *, const LXI *, LXI *,        \
                                   size_t, size_t))                                            \
    X(zhseqr, "", "zhseqr", void, (const char *, const char *, const LXI *, const LXI *,       \
                                   const LXI *, double *, const LXI *, double *, double *,     \
                                   const LXI *, double *, const LXI *, LXI *, size_t, size_t)) \
    X(trexc, "dtrexc", "", void, (const char *, const LXI *, double *, const LXI *, double *,    \
                                  const LXI *, LXI *, LXI *, double *, LXI *, size_t))          \
    X(ztrexc, "", "ztrexc", void, (const char *, const LXI *, double *, const LXI *,         \
                                   double *, const LXI *, const LXI *, const LXI *, LXI *,     \
                                   size_t))                                                    \
    X(ormhr, "dormhr", "zunmhr", void, (const char *, const char *, const LXI *, const LXI *,  \
                                        const LXI *, const LXI *, const double *, const LXI *, \
                                        const double *, double *, const LXI *, double *,       \
                                        const LXI *, LXI *, size_t, size_t))                   \
    X(dtrevc3, "dtrevc3", "", void, (const char *, const char *, const LXI *, const LXI *,     \
                                     double *, const LXI *, double *, const LXI *, double *,   \
                                     const LXI *, const LXI *, LXI *, double *, const LXI *,   \
                                     LXI *, size_t, size_t))                                   \
    X(ztrevc3, "", "ztrevc3", void, (const char *, const char *, const LXI *, const LXI *,     \
                                     double *, const LXI *, double *, const LXI *, double *,   \
                                     const LXI *, const LXI *, LXI *, double *, const LXI *,   \
                                     double *, const LXI *, LXI *, size_t, size_t))            \
    X(dgeev, "dgeev", "", void, (const char *, const char *, const LXI *, double *,            \
                                 const LXI *, double *, double *, double *, const LXI *,       \
                                 double *, const LXI *, double *, const LXI *, LXI *, size_t,  \
                                 size_t))                                                      \
    X(zgeev, "", "zgeev", void, (const char *, const char *, const LXI *, double *,            \
                                 const LXI *, double *, double *, const LXI *, double *,       \
                                 const LXI *, double *, const LXI *, double *, LXI *, size_t,  \
                                 size_t))                                                      \
    X(dgees, "dgees", "", void, (const char *, const char *, void *, const LXI *, double *,    \
                                 const LXI *, LXI *, double *, double *, double *,             \
                                 const LXI *, double *, const LXI *, LXI *, LXI *, size_t,     \
                                 size_t))                                                      \
    X(zgees, "", "zgees", void, (const char *, const char *, void *, const LXI *, double *,    \
                                 const LXI *, LXI *, double *, double *, const LXI *,          \
                                 double *, const LXI *, double *, LXI *, LXI *, size_t,        \
                                 size_t))                                                      \
    X(dtrsen, "dtrsen", "", void, (const char *, const char *, const LXI *, const LXI *,       \
                                   double *, const LXI *, double *, const LXI *, double *,     \
                                   double *, LXI *, double *, double *, double *, const LXI *, \
                                   LXI *, const LXI *, LXI *, size_t, size_t))                 \
    X(ztrsen, "", "ztrsen", void, (const char *, const char *, const LXI *, const LXI *,       \
                                   double *, const LXI *, double *, const LXI *, double *,     \
                                   LXI *, double *, double *, double *, const LXI *, LXI *,    \
                                   size_t, size_t))
/* clang-format on */

#define LX_HOST_ID(id, d, z, ret, args) LXH_##id,
enum lx_host_id { LX_HOST_ROUTINES(LX_HOST_ID) LXH_N, LXH_CORE_N = LXH_trmm + 1 };
#undef LX_HOST_ID

/* The table's routines typed for each integer width (never instantiated: LX_HOST's types) */
#define LX_HOST_MEMBER(id, d, z, ret, args) ret(*id) args;
#define LXI int32_t
struct lx_host32 {
    LX_HOST_ROUTINES(LX_HOST_MEMBER)
};
#undef LXI
#define LXI int64_t
struct lx_host64 {
    LX_HOST_ROUTINES(LX_HOST_MEMBER)
};
#undef LXI
#undef LX_HOST_MEMBER

/* Routine id of the d (cplx 0) or z (1) family: NULL before the family is found or where the
 * family's object lacks it (looked up again next time: a library may be loaded later). */
void *lx_host_fn(int cplx, int id);
/* 1 when every routine of ids (n of them) is there for cplx */
int lx_host_all(int cplx, const int *ids, int n);
/* Whether the family found is ILP64. */
int lx_real_ilp64(void);

/* A call of host routines with LAPACK's integers as int64_t (ILP64) or int32_t: body spelled
 * once, with I the integer type and LX_HOST typed for it. */
#define LX_F77(...)                                  \
    do {                                             \
        if (lx_real_ilp64()) {                       \
            typedef int64_t I;                       \
            typedef struct lx_host64 lx_host_typed_; \
            __VA_ARGS__                              \
        } else {                                     \
            typedef int32_t I;                       \
            typedef struct lx_host32 lx_host_typed_; \
            __VA_ARGS__                              \
        }                                            \
    } while (0)
/* Inside LX_F77: the routine id of the d (cplx 0) or z family, typed by the table;
 * LX_HOST_AS: routine rid (an id known at run time) with id's type. */
#define LX_HOST_AS(cplx, id, rid) ((__typeof__(((lx_host_typed_ *)0)->id))lx_host_fn((cplx), (rid)))
#define LX_HOST(cplx, id) LX_HOST_AS(cplx, id, LXH_##id)

#endif
