/* The host BLAS, found at run time among the objects already loaded (NumPy's and SciPy's
 * OpenBLAS are loaded RTLD_LOCAL, so dlsym(RTLD_DEFAULT) does not see them): walk the
 * loaded objects, reopen each with RTLD_NOLOAD and look the names up there.
 * Library names are never hard-coded; ozblas libraries (this one and the preload shim,
 * which exports the same BLAS names) are skipped (core/symbol_lookup.c). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cpu_common.h"

typedef struct {
    const char *s, *d, *z;
    int ilp64;
} blas_names;

static const blas_names candidates[] = {
    {"scipy_cblas_sgemm64_", "scipy_cblas_dgemm64_", "scipy_cblas_zgemm64_", 1},
    {"cblas_sgemm64_", "cblas_dgemm64_", "cblas_zgemm64_", 1},
    {"scipy_cblas_sgemm", "scipy_cblas_dgemm", "scipy_cblas_zgemm", 0},
    {"cblas_sgemm", "cblas_dgemm", "cblas_zgemm", 0},
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static oz_host_blas found;
static int have;

static int visit(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const void *self_base = data;
    if (!info->dlpi_name || !info->dlpi_name[0])
        return 0;
    if ((const void *)info->dlpi_addr == self_base)
        return 0;
    void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return 0;
    for (size_t c = 0; c < sizeof candidates / sizeof candidates[0]; c++) {
        void *s = dlsym(h, candidates[c].s), *d = dlsym(h, candidates[c].d),
             *z = dlsym(h, candidates[c].z);
        if (s && d && z && !oz_in_ozblas_library(d)) {
            found.sgemm = s;
            found.dgemm = d;
            found.zgemm = z;
            found.ilp64 = candidates[c].ilp64;
            oz_defining_path(d, info->dlpi_name, found.path, sizeof found.path);
            dlclose(h);
            return 1;
        }
    }
    dlclose(h);
    return 0;
}

const oz_host_blas *oz_host_blas_get(void)
{
    pthread_mutex_lock(&lock);
    if (!have) {
        Dl_info self;
        void *base = NULL;
        if (dladdr((void *)&oz_host_blas_get, &self))
            base = self.dli_fbase;
        /* dlpi_addr is the load bias; for a shared object it equals its base address */
        have = dl_iterate_phdr(visit, base) == 1;
    }
    pthread_mutex_unlock(&lock);
    return have ? &found : NULL;
}

const char *ozblas_host_blas_path(void)
{
    const oz_host_blas *b = oz_host_blas_get();
    return b ? b->path : "";
}

enum { COL_MAJOR = 102, NO_TRANS = 111, TRANS = 112, CONJ_TRANS = 113 };
typedef void (*sgemm32_t)(int, int, int, int, int, int, float, const float *, int, const float *,
                          int, float, float *, int);
typedef void (*sgemm64_t)(int, int, int, int64_t, int64_t, int64_t, float, const float *,
                          int64_t, const float *, int64_t, float, float *, int64_t);
typedef void (*dgemm32_t)(int, int, int, int, int, int, double, const double *, int,
                          const double *, int, double, double *, int);
typedef void (*dgemm64_t)(int, int, int, int64_t, int64_t, int64_t, double, const double *,
                          int64_t, const double *, int64_t, double, double *, int64_t);
typedef void (*zgemm32_t)(int, int, int, int, int, int, const void *, const void *, int,
                          const void *, int, const void *, void *, int);
typedef void (*zgemm64_t)(int, int, int, int64_t, int64_t, int64_t, const void *, const void *,
                          int64_t, const void *, int64_t, const void *, void *, int64_t);

static int cblas_trans(char t) { return t == 'N' ? NO_TRANS : t == 'T' ? TRANS : CONJ_TRANS; }

ozblas_status oz_host_gemm(char prec, char transa, char transb, int64_t m, int64_t n, int64_t k,
                           const void *alpha, const void *A, int64_t lda, const void *B,
                           int64_t ldb, const void *beta, void *C, int64_t ldc)
{
    const oz_host_blas *b = oz_host_blas_get();
    if (!b)
        return OZBLAS_ERR_NO_HOST_BLAS;
    const int ta = cblas_trans(transa), tb = cblas_trans(transb);
    if (b->ilp64) {
        if (prec == 's')
            ((sgemm64_t)b->sgemm)(COL_MAJOR, ta, tb, m, n, k, *(const float *)alpha, A, lda, B,
                                  ldb, *(const float *)beta, C, ldc);
        else if (prec == 'd')
            ((dgemm64_t)b->dgemm)(COL_MAJOR, ta, tb, m, n, k, *(const double *)alpha, A, lda, B,
                                  ldb, *(const double *)beta, C, ldc);
        else
            ((zgemm64_t)b->zgemm)(COL_MAJOR, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
        return OZBLAS_OK;
    }
    if (m > INT_MAX || n > INT_MAX || k > INT_MAX || lda > INT_MAX || ldb > INT_MAX ||
        ldc > INT_MAX)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    const int mi = (int)m, ni = (int)n, ki = (int)k, la = (int)lda, lb = (int)ldb, lc = (int)ldc;
    if (prec == 's')
        ((sgemm32_t)b->sgemm)(COL_MAJOR, ta, tb, mi, ni, ki, *(const float *)alpha, A, la, B, lb,
                              *(const float *)beta, C, lc);
    else if (prec == 'd')
        ((dgemm32_t)b->dgemm)(COL_MAJOR, ta, tb, mi, ni, ki, *(const double *)alpha, A, la, B,
                              lb, *(const double *)beta, C, lc);
    else
        ((zgemm32_t)b->zgemm)(COL_MAJOR, ta, tb, mi, ni, ki, alpha, A, la, B, lb, beta, C, lc);
    return OZBLAS_OK;
}
