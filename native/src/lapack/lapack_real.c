/* The host LAPACK routines the blocked drivers hand their panels and diagonal blocks to.
 *
 * Found the way the host BLAS is (oz_find_real_symbol: a walk of the loaded objects, ozblas
 * libraries skipped, since the wheels' OpenBLAS is loaded RTLD_LOCAL): the first family of
 * names of which every routine is loaded, ILP64 first (NumPy's scipy_*_64_), then LP64
 * (SciPy's scipy_*_, plain *_). Fortran calling convention: arguments by reference, the
 * hidden character lengths appended. */
#include <pthread.h>
#include <stdio.h>

#include "../core/oz_internal.h"
#include "oz_lapack.h"

enum { F_GETRF, F_LASWP, F_POTRF, F_TRTRI, F_LAUUM, F_TRSM, F_TRMM, F_N };
static const char *const routine_names[F_N] = {"getrf", "laswp", "potrf", "trtri",
                                               "lauum", "trsm", "trmm"};

static const struct {
    const char *prefix, *suffix;
    int ilp64;
} families[] = {
    {"scipy_", "_64_", 1},
    {"", "_64_", 1},
    {"scipy_", "_", 0},
    {"", "_", 0},
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *fn[2][F_N]; /* [complex][routine] */
static int ilp64, ready; /* ready: atomic, set once the set is complete */
static size_t family;     /* the family the set was found in */

static void find(void)
{
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
        void *got[2][F_N];
        int all = 1;
        for (int c = 0; c < 2 && all; c++)
            for (int r = 0; r < F_N && all; r++) {
                char name[64];
                snprintf(name, sizeof name, "%s%c%s%s", families[f].prefix, c ? 'z' : 'd',
                         routine_names[r], families[f].suffix);
                got[c][r] = oz_find_real_symbol(name, NULL, 0);
                all = got[c][r] != NULL;
            }
        if (all) {
            for (int c = 0; c < 2; c++)
                for (int r = 0; r < F_N; r++)
                    fn[c][r] = got[c][r];
            ilp64 = families[f].ilp64;
            family = f;
            __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
            return;
        }
    }
}

/* Looked up again while none is found: a LAPACK may be loaded after the first call. */
int oz_real_lapack_ready(void)
{
    if (__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
        return 1;
    pthread_mutex_lock(&lock);
    if (!ready)
        find();
    pthread_mutex_unlock(&lock);
    return __atomic_load_n(&ready, __ATOMIC_ACQUIRE);
}

/* Integer arguments: LP64 routines take int32_t. Sizes here are panel and block sizes of
 * a matrix whose dimensions the caller already holds in its own integer type. */
typedef int32_t i32;
typedef int64_t i64;
#define FN(r) fn[x->cplx][r]

void lx_real_getrf(const oz_lx *x, int64_t m, int64_t n, double *A, int64_t lda, int64_t *ipiv,
                   int64_t *info)
{
    if (ilp64) {
        ((void (*)(const i64 *, const i64 *, double *, const i64 *, i64 *, i64 *))FN(F_GETRF))(
            &m, &n, A, &lda, ipiv, info);
        return;
    }
    i32 m4 = (i32)m, n4 = (i32)n, l4 = (i32)lda, inf4 = 0, mn = (i32)(m < n ? m : n);
    i32 *p4 = x->piv32;
    ((void (*)(const i32 *, const i32 *, double *, const i32 *, i32 *, i32 *))FN(F_GETRF))(
        &m4, &n4, A, &l4, p4, &inf4);
    for (i32 i = 0; i < mn; i++)
        ipiv[i] = p4[i];
    *info = inf4;
}

void lx_real_laswp(const oz_lx *x, int64_t n, double *A, int64_t lda, int64_t k1, int64_t k2,
                   const int64_t *ipiv, int64_t incx)
{
    if (n <= 0)
        return;
    if (ilp64) {
        ((void (*)(const i64 *, double *, const i64 *, const i64 *, const i64 *, const i64 *,
                   const i64 *))FN(F_LASWP))(&n, A, &lda, &k1, &k2, ipiv, &incx);
        return;
    }
    /* LP64: the pivots the routine reads (k1..k2) as int32_t */
    i32 *p4 = x->piv32;
    for (int64_t i = k1 - 1; i < k2; i++)
        p4[i] = (i32)ipiv[i];
    i32 n4 = (i32)n, l4 = (i32)lda, a = (i32)k1, b = (i32)k2, inc = (i32)incx;
    ((void (*)(const i32 *, double *, const i32 *, const i32 *, const i32 *, const i32 *,
               const i32 *))FN(F_LASWP))(&n4, A, &l4, &a, &b, p4, &inc);
}

/* uplo, n, A, lda, info (potrf, lauum) */
static void real_un(const oz_lx *x, int r, char uplo, int64_t n, double *A, int64_t lda,
                    int64_t *info)
{
    if (ilp64) {
        ((void (*)(const char *, const i64 *, double *, const i64 *, i64 *, size_t))FN(r))(
            &uplo, &n, A, &lda, info, 1);
        return;
    }
    i32 n4 = (i32)n, l4 = (i32)lda, inf4 = 0;
    ((void (*)(const char *, const i32 *, double *, const i32 *, i32 *, size_t))FN(r))(
        &uplo, &n4, A, &l4, &inf4, 1);
    *info = inf4;
}

void lx_real_potrf(const oz_lx *x, char uplo, int64_t n, double *A, int64_t lda, int64_t *info)
{
    real_un(x, F_POTRF, uplo, n, A, lda, info);
}

void lx_real_lauum(const oz_lx *x, char uplo, int64_t n, double *A, int64_t lda, int64_t *info)
{
    real_un(x, F_LAUUM, uplo, n, A, lda, info);
}

void lx_real_trtri(const oz_lx *x, char uplo, char diag, int64_t n, double *A, int64_t lda,
                   int64_t *info)
{
    if (ilp64) {
        ((void (*)(const char *, const char *, const i64 *, double *, const i64 *, i64 *,
                   size_t, size_t))FN(F_TRTRI))(&uplo, &diag, &n, A, &lda, info, 1, 1);
        return;
    }
    i32 n4 = (i32)n, l4 = (i32)lda, inf4 = 0;
    ((void (*)(const char *, const char *, const i32 *, double *, const i32 *, i32 *, size_t,
               size_t))FN(F_TRTRI))(&uplo, &diag, &n4, A, &l4, &inf4, 1, 1);
    *info = inf4;
}

/* trsm and trmm share their argument list */
static void real_tr3(const oz_lx *x, int r, char side, char uplo, char ta, char diag, int64_t m,
                     int64_t n, const double *alpha, const double *A, int64_t lda, double *B,
                     int64_t ldb)
{
    if (m <= 0 || n <= 0)
        return;
    if (ilp64) {
        ((void (*)(const char *, const char *, const char *, const char *, const i64 *,
                   const i64 *, const double *, const double *, const i64 *, double *,
                   const i64 *, size_t, size_t, size_t, size_t))FN(r))(
            &side, &uplo, &ta, &diag, &m, &n, alpha, A, &lda, B, &ldb, 1, 1, 1, 1);
        return;
    }
    i32 m4 = (i32)m, n4 = (i32)n, la = (i32)lda, lb = (i32)ldb;
    ((void (*)(const char *, const char *, const char *, const char *, const i32 *, const i32 *,
               const double *, const double *, const i32 *, double *, const i32 *, size_t,
               size_t, size_t, size_t))FN(r))(&side, &uplo, &ta, &diag, &m4, &n4, alpha, A, &la,
                                              B, &lb, 1, 1, 1, 1);
}

void lx_real_trsm(const oz_lx *x, char side, char uplo, char ta, char diag, int64_t m, int64_t n,
                  const double *alpha, const double *A, int64_t lda, double *B, int64_t ldb)
{
    real_tr3(x, F_TRSM, side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb);
}

void lx_real_trmm(const oz_lx *x, char side, char uplo, char ta, char diag, int64_t m, int64_t n,
                  const double *alpha, const double *A, int64_t lda, double *B, int64_t ldb)
{
    real_tr3(x, F_TRMM, side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb);
}

/* Other routines of the same family (lapack_qr.c's geqrf, larft, orgqr, ...): NULL before
 * oz_real_lapack_ready() or where the family's object lacks the name. */
void *lx_real_fn(int cplx, const char *routine)
{
    if (!oz_real_lapack_ready())
        return NULL;
    char name[64];
    snprintf(name, sizeof name, "%s%c%s%s", families[family].prefix, cplx ? 'z' : 'd', routine,
             families[family].suffix);
    return oz_find_real_symbol(name, NULL, 0);
}

void *lx_real_fn_cached(void **slot, int cplx, const char *routine)
{
    void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!f && (f = lx_real_fn(cplx, routine)))
        __atomic_store_n(slot, f, __ATOMIC_RELEASE);
    return f;
}

int lx_real_ilp64(void) { return ilp64; }
