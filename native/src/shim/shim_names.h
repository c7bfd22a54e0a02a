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

#endif
