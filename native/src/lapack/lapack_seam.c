/* Where the drivers touch a matrix themselves: the host routines of the panels and
 * diagonal blocks, the row interchanges, and the few element loops (lapack_drivers.c). With
 * host memory each goes straight to the host; with device memory (x->dev) the block is
 * copied to a host buffer, handed to the same host routine and copied back (the MAGMA way),
 * and laswp runs on the device, each through that executor's entries (x->devex). The host
 * routine is the same in both, so a device run gives the host run's bits wherever its
 * products do. A failed copy sets x->failed: the run's result is then not to be used
 * (lapack_api.c reports OZBLAS_ERR_DEVICE). */
#include <string.h>
#include <time.h>

#include "oz_lapack.h"

static size_t es(const oz_lx *x) { return x->cplx ? 16 : 8; }

void lx_host_flops(const oz_lx *x, double f)
{
    x->rep->host_flops += (x->cplx ? 4.0 : 1.0) * f;
}

double lx_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

lx_clock lx_tic(const oz_lx *x)
{
    return (lx_clock){lx_now(), x->rep->product_seconds, x->rep->panel_seconds};
}

void lx_toc(const oz_lx *x, lx_clock c, double *part)
{
    double inner = x->rep->product_seconds - c.p0 + x->rep->panel_seconds - c.h0;
    *part += lx_now() - c.t0 - inner;
}

double *lx_fetch(oz_lx *x, int slot, const double *A, int64_t lda, int64_t rows, int64_t cols,
                 int64_t *ldh, int copy)
{
    if (!x->dev) {
        *ldh = lda;
        return (double *)A;
    }
    double *H = x->hbuf[slot];
    *ldh = rows > 1 ? rows : 1;
    if (x->failed || rows * cols > x->hcap) { /* sized for every block the drivers fetch */
        x->failed = 1;
        return H;
    }
    if (copy && rows > 0 && cols > 0 &&
        x->devex->copy(x->opt, H, (size_t)*ldh * es(x), A, (size_t)lda * es(x),
                        (size_t)rows * es(x), (size_t)cols))
        x->failed = 1;
    return H;
}

void lx_store(oz_lx *x, const double *H, int64_t ldh, double *A, int64_t lda, int64_t rows,
              int64_t cols)
{
    if (!x->dev || rows <= 0 || cols <= 0 || x->failed)
        return;
    if (x->devex->copy(x->opt, A, (size_t)lda * es(x), H, (size_t)ldh * es(x),
                        (size_t)rows * es(x), (size_t)cols))
        x->failed = 1;
}

void lx_blk_getrf(oz_lx *x, int64_t m, int64_t n, double *A, int64_t lda, int64_t *ipiv,
                  int64_t *info)
{
    int64_t ld;
    double *H = lx_fetch(x, 0, A, lda, m, n, &ld, 1);
    if (x->failed)
        return;
    lx_real_getrf(x, m, n, H, ld, ipiv, info);
    double k = (double)(m < n ? m : n);
    lx_host_flops(x, 2.0 * ((double)m * (double)n * k - ((double)m + (double)n) * k * k / 2.0 +
                            k * k * k / 3.0));
    lx_store(x, H, ld, A, lda, m, n);
}

void lx_blk_laswp(oz_lx *x, int64_t n, double *A, int64_t lda, int64_t k1, int64_t k2,
                  const int64_t *ipiv, int64_t incx)
{
    if (x->failed) /* the pivots of a failed run are not to be trusted (lx_blk_getrf) */
        return;
    if (!x->dev) {
        lx_real_laswp(x, n, A, lda, k1, k2, ipiv, incx);
        return;
    }
    if (n <= 0 || k2 < k1)
        return;
    if (x->devex->copy(x->opt, x->dpiv + k1 - 1, sizeof(int64_t), ipiv + k1 - 1,
                        sizeof(int64_t), sizeof(int64_t), (size_t)(k2 - k1 + 1)) ||
        x->devex->laswp(x->opt, x->cplx, n, A, lda, k1, k2, x->dpiv, incx))
        x->failed = 1;
}

/* potrf and lauum: a square block, uplo, info */
static void blk_un(oz_lx *x,
                   void (*f)(const oz_lx *, char, int64_t, double *, int64_t, int64_t *),
                   char uplo, int64_t n, double *A, int64_t lda, int64_t *info)
{
    int64_t ld;
    double *H = lx_fetch(x, 0, A, lda, n, n, &ld, 1);
    if (x->failed)
        return;
    f(x, uplo, n, H, ld, info);
    lx_host_flops(x, (double)n * (double)n * (double)n / 3.0);
    lx_store(x, H, ld, A, lda, n, n);
}

void lx_blk_potrf(oz_lx *x, char uplo, int64_t n, double *A, int64_t lda, int64_t *info)
{
    blk_un(x, lx_real_potrf, uplo, n, A, lda, info);
}

void lx_blk_lauum(oz_lx *x, char uplo, int64_t n, double *A, int64_t lda, int64_t *info)
{
    blk_un(x, lx_real_lauum, uplo, n, A, lda, info);
}

void lx_blk_trtri(oz_lx *x, char uplo, char diag, int64_t n, double *A, int64_t lda,
                  int64_t *info)
{
    int64_t ld;
    double *H = lx_fetch(x, 0, A, lda, n, n, &ld, 1);
    if (x->failed)
        return;
    lx_real_trtri(x, uplo, diag, n, H, ld, info);
    lx_host_flops(x, (double)n * (double)n * (double)n / 3.0);
    lx_store(x, H, ld, A, lda, n, n);
}

/* trsm and trmm on a diagonal block: the triangle in slot 0, B in slot 1 */
void lx_blk_tr3(oz_lx *x, int mult, char side, char uplo, char ta, char diag, int64_t m,
                int64_t n, const double *alpha, const double *A, int64_t lda, double *B,
                int64_t ldb)
{
    if (m <= 0 || n <= 0)
        return;
    int64_t K = side == 'L' ? m : n, la, lb;
    const double *HA = lx_fetch(x, 0, A, lda, K, K, &la, 1);
    double *HB = lx_fetch(x, 1, B, ldb, m, n, &lb, 1);
    if (x->failed)
        return;
    (mult ? lx_real_trmm : lx_real_trsm)(x, side, uplo, ta, diag, m, n, alpha, HA, la, HB, lb);
    lx_host_flops(x, (double)m * (double)n * (double)K);
    lx_store(x, HB, lb, B, ldb, m, n);
}

/* ---- QR and the sytrf family on device memory (lapack_qr.c, lapack_sytrf.c) ---------------- */

double *lx_fetch_to(oz_lx *x, double *H, int64_t ldh, const double *A, int64_t lda,
                    int64_t rows, int64_t cols, int64_t *ld)
{
    if (!x->dev) {
        *ld = lda;
        return (double *)A;
    }
    *ld = ldh;
    if (!x->failed && rows > 0 && cols > 0 &&
        x->devex->copy(x->opt, H, (size_t)ldh * es(x), A, (size_t)lda * es(x),
                        (size_t)rows * es(x), (size_t)cols))
        x->failed = 1;
    return H;
}

double *lx_scratch(oz_lx *x, double *host, int64_t elems)
{
    if (!x->dev)
        return host;
    double *d = x->devex->mem_alloc(x->opt, (size_t)(elems > 0 ? elems : 1) * es(x));
    if (!d)
        x->failed = 1;
    return d;
}

void lx_scratch_free(oz_lx *x, double *d)
{
    if (x->dev && d)
        x->devex->mem_free(x->opt, d);
}
