/* The one table of names the preload shim exports.
 *
 * OZ_SHIM_ROUTINES lists the routines; OZ_SHIM_VARIANTS lists, for one routine r, every
 * exported form a real program may call: plain Fortran (dgemm_), the ILP64 Fortran that
 * OpenBLAS builds with a 64_ suffix (dgemm_64_), the renamed Fortran of the NumPy/SciPy
 * wheels (scipy_dgemm_ LP64, scipy_dgemm_64_ ILP64), plain CBLAS (cblas_dgemm), suffixed
 * ILP64 CBLAS (cblas_dgemm64_) and the wheels' CBLAS (scipy_cblas_dgemm LP64,
 * scipy_cblas_dgemm64_ ILP64). shim.c expands the product of the two lists.
 *
 *   X(r, element)          element: d (double) or z (complex double)
 *   V(r, symbol, api, int) api: F77 or CBLAS; int: int32_t (LP64) or int64_t (ILP64)
 */
#ifndef OZ_SHIM_NAMES_H
#define OZ_SHIM_NAMES_H

#define OZ_SHIM_ROUTINES(X) \
    X(dgemm, d)             \
    X(zgemm, z)             \
    X(dsyrk, d)             \
    X(zsyrk, z)             \
    X(zherk, z)

#define OZ_SHIM_VARIANTS(V, r)                    \
    V(r, r##_, F77, int32_t)                      \
    V(r, r##_64_, F77, int64_t)                   \
    V(r, scipy_##r##_, F77, int32_t)              \
    V(r, scipy_##r##_64_, F77, int64_t)           \
    V(r, cblas_##r, CBLAS, int32_t)               \
    V(r, cblas_##r##64_, CBLAS, int64_t)          \
    V(r, scipy_cblas_##r, CBLAS, int32_t)         \
    V(r, scipy_cblas_##r##64_, CBLAS, int64_t)

/* The LAPACK routines the blocked drivers compute (shim_lapack.c), in the forms the wheels import: SciPy's LP64
 * scipy_dgetrf_, NumPy's ILP64 scipy_dgetrf_64_, and plain Fortran for other programs
 * (dgetrf_ LP64, dgetrf_64_ ILP64).
 *
 *   L(r, element, shape)   shape: the argument list, one entry macro per shape there
 *   V(r, symbol, api, int) api: F77 */
#define OZ_SHIM_LAPACK_ROUTINES(L) \
    L(dgetrf, d, GETRF)            \
    L(zgetrf, z, GETRF)            \
    L(dgetrs, d, GETRS)            \
    L(zgetrs, z, GETRS)            \
    L(dgesv, d, GESV)              \
    L(zgesv, z, GESV)              \
    L(dgetri, d, GETRI)            \
    L(zgetri, z, GETRI)            \
    L(dpotrf, d, POTRF)            \
    L(zpotrf, z, POTRF)            \
    L(dpotrs, d, POTRS)            \
    L(zpotrs, z, POTRS)            \
    L(dposv, d, POSV)              \
    L(zposv, z, POSV)              \
    L(dpotri, d, POTRI)            \
    L(zpotri, z, POTRI)            \
    L(dtrtri, d, TRTRI)            \
    L(ztrtri, z, TRTRI)            \
    L(dtrtrs, d, TRTRS)            \
    L(ztrtrs, z, TRTRS)            \
    L(dsytrf, d, SYTRF)            \
    L(zsytrf, z, SYTRF)            \
    L(zhetrf, z, SYTRF)            \
    L(dsytrs, d, SYTRS)            \
    L(zsytrs, z, SYTRS)            \
    L(zhetrs, z, SYTRS)            \
    L(dsytri, d, SYTRI)            \
    L(zsytri, z, SYTRI)            \
    L(zhetri, z, SYTRI)            \
    L(dsysv, d, SYSV)              \
    L(zsysv, z, SYSV)              \
    L(zhesv, z, SYSV)

#define OZ_SHIM_LAPACK_VARIANTS(V, r)   \
    V(r, r##_, F77, int32_t)            \
    V(r, r##_64_, F77, int64_t)         \
    V(r, scipy_##r##_, F77, int32_t)    \
    V(r, scipy_##r##_64_, F77, int64_t)

/* QR, LQ, Hessenberg and least squares (shim_level3.c), in the LAPACK forms above
 * (OZ_SHIM_LAPACK_VARIANTS). */
#define OZ_SHIM_QR_ROUTINES(L) \
    L(dgeqrf, d, GEQRF)        \
    L(zgeqrf, z, GEQRF)        \
    L(dorgqr, d, ORGQR)        \
    L(zungqr, z, ORGQR)        \
    L(dormqr, d, ORMQR)        \
    L(zunmqr, z, ORMQR)        \
    L(dgelqf, d, GELQF)        \
    L(zgelqf, z, GELQF)        \
    L(dorglq, d, ORGLQ)        \
    L(zunglq, z, ORGLQ)        \
    L(dormlq, d, ORMLQ)        \
    L(zunmlq, z, ORMLQ)        \
    L(dgehrd, d, GEHRD)        \
    L(zgehrd, z, GEHRD)        \
    L(dorghr, d, ORGHR)        \
    L(zunghr, z, ORGHR)        \
    L(dormhr, d, ORMHR)        \
    L(zunmhr, z, ORMHR)        \
    L(dgels, d, GELS)          \
    L(zgels, z, GELS)

/* The generalized symmetric-definite problem's reduction and the triangular Sylvester
 * equation (shim_gen.c), in the LAPACK forms above (OZ_SHIM_LAPACK_VARIANTS). */
#define OZ_SHIM_GEN_ROUTINES(L) \
    L(dsygst, d, SYGST)         \
    L(zhegst, z, SYGST)         \
    L(dtrsyl, d, TRSYL)         \
    L(ztrsyl, z, TRSYL)

/* The symmetric/Hermitian eigensolvers, the generalized problem's drivers and LAPACK's
 * one-stage tridiagonal format (shim_eigen.c), in the LAPACK forms above. */
#define OZ_SHIM_EIGEN_ROUTINES(L) \
    L(dsyevd, d, SYEVD)           \
    L(zheevd, z, HEEVD)           \
    L(dsyev, d, SYEV)             \
    L(zheev, z, HEEV)             \
    L(dsyevr, d, SYEVR)           \
    L(zheevr, z, HEEVR)           \
    L(dsygvd, d, SYGVD)           \
    L(zhegvd, z, HEGVD)           \
    L(dsygv, d, SYGV)             \
    L(zhegv, z, HEGV)             \
    L(dsytrd, d, SYTRD)           \
    L(zhetrd, z, SYTRD)           \
    L(dormtr, d, ORMTR)           \
    L(zunmtr, z, ORMTR)           \
    L(dorgtr, d, ORGTR)           \
    L(zungtr, z, ORGTR)

/* The bidiagonal reduction's one-stage format, least squares by a complete orthogonal
 * factorization and the SVD (shim_svd.c), in the LAPACK forms above (OZ_SHIM_LAPACK_VARIANTS). */
#define OZ_SHIM_SVD_ROUTINES(L) \
    L(dgebrd, d, GEBRD)         \
    L(zgebrd, z, GEBRD)         \
    L(dorgbr, d, ORGBR)         \
    L(zungbr, z, ORGBR)         \
    L(dormbr, d, ORMBR)         \
    L(zunmbr, z, ORMBR)         \
    L(dgelsy, d, DGELSY)        \
    L(zgelsy, z, ZGELSY)        \
    L(dgesdd, d, DGESDD)        \
    L(zgesdd, z, ZGESDD)        \
    L(dgesvd, d, DGESVD)        \
    L(zgesvd, z, ZGESVD)        \
    L(dgelsd, d, DGELSD)        \
    L(zgelsd, z, ZGELSD)        \
    L(dgelss, d, DGELSS)        \
    L(zgelss, z, ZGELSS)

/* The nonsymmetric eigenproblem's drivers (shim_nonsym.c), in the LAPACK forms above
 * (OZ_SHIM_LAPACK_VARIANTS). */
#define OZ_SHIM_NONSYM_ROUTINES(L) \
    L(dgeev, d, DGEEV)             \
    L(zgeev, z, ZGEEV)             \
    L(dgees, d, DGEES)             \
    L(zgees, z, ZGEES)

/* The Level-3 BLAS routines the LAPACK layer's drivers compute (shim_level3.c), in every
 * form of OZ_SHIM_VARIANTS (Fortran and CBLAS, as the GEMMs). */
#define OZ_SHIM_BLAS3_ROUTINES(L) \
    L(dtrsm, d, TRSM)             \
    L(ztrsm, z, TRSM)             \
    L(dtrmm, d, TRMM)             \
    L(ztrmm, z, TRMM)             \
    L(dsymm, d, SYMM)             \
    L(zsymm, z, SYMM)             \
    L(zhemm, z, HEMM)             \
    L(dsyr2k, d, SYR2K)           \
    L(zsyr2k, z, SYR2K)           \
    L(zher2k, z, HER2K)

/* Every routine the shim knows, in one order: the counters' rows (RI_* in shim_internal.h)
 * and OZBLAS_ROUTINES' bits (core/config.c). B(r, element) for OZ_SHIM_ROUTINES, L(r,
 * element, shape) for the others. */
#define OZ_SHIM_ALL_ROUTINES(B, L)                                                        \
    OZ_SHIM_ROUTINES(B) OZ_SHIM_LAPACK_ROUTINES(L) OZ_SHIM_QR_ROUTINES(L)                 \
        OZ_SHIM_BLAS3_ROUTINES(L) OZ_SHIM_GEN_ROUTINES(L) OZ_SHIM_EIGEN_ROUTINES(L)       \
            OZ_SHIM_SVD_ROUTINES(L) OZ_SHIM_NONSYM_ROUTINES(L)

#endif
