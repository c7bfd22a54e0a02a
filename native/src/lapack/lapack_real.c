/* The host LAPACK routines of lx_host.h's table, and the ones the blocked drivers hand
 * their panels and diagonal blocks to.
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

static const struct {
    const char *prefix, *suffix;
    int ilp64;
} families[] = {
    {"scipy_", "_64_", 1},
    {"", "_64_", 1},
    {"scipy_", "_", 0},
    {"", "_", 0},
};

#define LX_HOST_NAME(id, d, z, ret, args) {d, z},
static const char *const names[LXH_N][2] = {LX_HOST_ROUTINES(LX_HOST_NAME)};
#undef LX_HOST_NAME

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *fn[2][LXH_N]; /* [complex][routine]; atomic, NULL: not found (yet) */
static int ilp64, ready; /* ready: atomic, set once the core set is complete */
static size_t family;     /* the family the core set was found in */

static void *find_name(size_t f, const char *name)
{
    char full[64];
    snprintf(full, sizeof full, "%s%s%s", families[f].prefix, name, families[f].suffix);
    return oz_find_real_symbol(full, NULL, 0);
}

static void find(void)
{
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
        void *got[2][LXH_CORE_N];
        int all = 1;
        for (int c = 0; c < 2 && all; c++)
            for (int r = 0; r < LXH_CORE_N && all; r++)
                all = (got[c][r] = find_name(f, names[r][c])) != NULL;
        if (all) {
            for (int c = 0; c < 2; c++)
                for (int r = 0; r < LXH_CORE_N; r++)
                    __atomic_store_n(&fn[c][r], got[c][r], __ATOMIC_RELEASE);
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

void *lx_host_fn(int cplx, int id)
{
    void *f = __atomic_load_n(&fn[cplx][id], __ATOMIC_ACQUIRE);
    if (f || !*names[id][cplx] || !oz_real_lapack_ready())
        return f;
    if ((f = find_name(family, names[id][cplx])))
        __atomic_store_n(&fn[cplx][id], f, __ATOMIC_RELEASE);
    return f;
}

int lx_host_all(int cplx, const int *ids, int n)
{
    for (int i = 0; i < n; i++)
        if (!lx_host_fn(cplx, ids[i]))
            return 0;
    return 1;
}

int lx_real_ilp64(void) { return ilp64; }

/* Integer arguments: LP64 routines take int32_t (pivots through x->piv32). Sizes here are
 * panel and block sizes of a matrix whose dimensions the caller already holds in its own
 * integer type. */
void lx_real_getrf(const oz_lx *x, int64_t m, int64_t n, double *A, int64_t lda, int64_t *ipiv,
                   int64_t *info)
{
    LX_F77(I m4 = (I)m, n4 = (I)n, l4 = (I)lda, inf4 = 0;
           I *p = sizeof(I) == sizeof *ipiv ? (I *)ipiv : (I *)x->piv32;
           LX_HOST(x->cplx, getrf)(&m4, &n4, A, &l4, p, &inf4);
           for (int64_t i = 0; (void *)p != (void *)ipiv && i < min64(m, n); i++) ipiv[i] = p[i];
           *info = inf4;);
}

void lx_real_laswp(const oz_lx *x, int64_t n, double *A, int64_t lda, int64_t k1, int64_t k2,
                   const int64_t *ipiv, int64_t incx)
{
    if (n <= 0)
        return;
    LX_F77(I *p = sizeof(I) == sizeof *ipiv ? (I *)ipiv : (I *)x->piv32;
           /* LP64: the pivots the routine reads (k1..k2) as int32_t */
           for (int64_t i = k1 - 1; (const void *)p != (const void *)ipiv && i < k2; i++)
               p[i] = (I)ipiv[i];
           I n4 = (I)n, l4 = (I)lda, a = (I)k1, b = (I)k2, inc = (I)incx;
           LX_HOST(x->cplx, laswp)(&n4, A, &l4, &a, &b, p, &inc););
}

/* uplo, n, A, lda, info (potrf, lauum) */
static void real_un(const oz_lx *x, int r, char uplo, int64_t n, double *A, int64_t lda,
                    int64_t *info)
{
    LX_F77(I n4 = (I)n, l4 = (I)lda, inf4 = 0;
           LX_HOST_AS(x->cplx, potrf, r)(&uplo, &n4, A, &l4, &inf4, 1);
           *info = inf4;);
}

void lx_real_potrf(const oz_lx *x, char uplo, int64_t n, double *A, int64_t lda, int64_t *info)
{
    real_un(x, LXH_potrf, uplo, n, A, lda, info);
}

void lx_real_lauum(const oz_lx *x, char uplo, int64_t n, double *A, int64_t lda, int64_t *info)
{
    real_un(x, LXH_lauum, uplo, n, A, lda, info);
}

void lx_real_trtri(const oz_lx *x, char uplo, char diag, int64_t n, double *A, int64_t lda,
                   int64_t *info)
{
    LX_F77(I n4 = (I)n, l4 = (I)lda, inf4 = 0;
           LX_HOST(x->cplx, trtri)(&uplo, &diag, &n4, A, &l4, &inf4, 1, 1);
           *info = inf4;);
}

/* trsm and trmm share their argument list */
static void real_tr3(const oz_lx *x, int r, char side, char uplo, char ta, char diag, int64_t m,
                     int64_t n, const double *alpha, const double *A, int64_t lda, double *B,
                     int64_t ldb)
{
    if (m <= 0 || n <= 0)
        return;
    LX_F77(I m4 = (I)m, n4 = (I)n, la = (I)lda, lb = (I)ldb;
           LX_HOST_AS(x->cplx, trsm, r)(&side, &uplo, &ta, &diag, &m4, &n4, alpha, A, &la, B,
                                        &lb, 1, 1, 1, 1););
}

void lx_real_trsm(const oz_lx *x, char side, char uplo, char ta, char diag, int64_t m, int64_t n,
                  const double *alpha, const double *A, int64_t lda, double *B, int64_t ldb)
{
    real_tr3(x, LXH_trsm, side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb);
}

void lx_real_trmm(const oz_lx *x, char side, char uplo, char ta, char diag, int64_t m, int64_t n,
                  const double *alpha, const double *A, int64_t lda, double *B, int64_t ldb)
{
    real_tr3(x, LXH_trmm, side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb);
}
