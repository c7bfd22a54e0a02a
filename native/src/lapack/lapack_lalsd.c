/* gelsd's bidiagonal least-squares problem (LAPACK's dlalsd, zlalsd): the minimum-norm
 * solution of B X = C for the real bidiagonal B (d, e; upper or lower, order n) and C (n x
 * nrhs, the driver's element type, host memory), with gelsd's truncation (docs/lapack-svd.md,
 * "What stays on the host"). Two routes:
 *
 *   explicit vectors, for many right-hand sides: B = U_B S V_B^T by the divide and conquer of
 *     lapack_bdsdc.c (whose merges are products), then X = V_B S^+ U_B^T C as two products
 *     on the rank's r columns of U_B and rows of V_B^T, the host only dividing r rows by s_i;
 *   the host dlalsd, for few: its tree applies each merge's vectors to C column by column
 *     without forming them, O(n^2) per column; forming them costs the merges' O(n^3) products
 *     and the host's deflation and secular equations, repaid only by enough columns.
 *
 * The explicit route keeps dlalsd's rule and rank exactly: rcond <= 0 or >= 1 means
 * dlamch('Epsilon') (2^-53), s_i <= rcond s_1 is treated as zero, the rank counts the rest;
 * d returns the singular values descending; info > 0 is the divide and conquer's failure to
 * converge (dbdsdc's, as dlasda's in dlalsd). The bidiagonal of zgebrd is real, so its
 * vectors are real and a complex C is solved as its real and imaginary parts, one real
 * product each side (zlalsd's own split). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "oz_lapack.h"

int lx_lalsd_ready(int cplx) { return lx_host_fn(cplx, cplx ? LXH_zlalsd : LXH_dlalsd) != NULL; }

/* The explicit route from n/8 real columns of C (nrhs, twice for complex): from the parts
 * measured at n = 2048 (lapack_speed.py --remainder, 3n x n, n/2 right-hand sides, one
 * thread), the host dlalsd takes about 3.2 ms per column, the explicit route about 0.3 s of
 * host time (the merges' deflation and secular equations) and 18 GFLOP of merge products
 * (0.5 s at one thread's native DGEMM rate) plus 4 n^2 flops per column: equal near n/7
 * columns with native products, near n/20 counting the host alone (a GPU's products). */
static int explicit_route(int64_t n, int64_t ncols) { return 8 * ncols >= n; }

/* The host dlalsd (smlsiz 25, ilaenv's in the reference LAPACK and OpenBLAS). Its flops, a
 * model: it forms no singular vectors; each level of its tree costs the secular equations'
 * O(k^2) per node of order k and two k x k products per column of C, and the nodes' k^2 sum
 * to at most n^2 per level and 2 n^2 over all: 30 n^2 + 8 n^2 nrhs (twice the second term for
 * complex C, solved as its real and imaginary parts). */
static void host_lalsd(oz_lx *x, char uplo, int64_t n, int64_t nrhs, double *d, double *e,
                       double *C, int64_t ldc, double rcond, int64_t *rank, int64_t *info)
{
    const int64_t smlsiz = 25;
    int c = x->cplx;
    int64_t nlvl = (int64_t)(log((double)n / (double)(smlsiz + 1)) / log(2.0)) + 1; /* LAPACK's */
    nlvl = nlvl > 0 ? nlvl : 0;
    double dn = (double)n;
    x->rep->host_flops += 30.0 * dn * dn + (c ? 16.0 : 8.0) * dn * dn * (double)nrhs;
    int64_t s1 = (smlsiz + 1) * (smlsiz + 1);
    int64_t lw = 9 * n + 2 * n * smlsiz + 8 * n * (nlvl + 1) + n * nrhs + s1;
    int64_t lr = c ? 9 * n + 2 * n * smlsiz + 8 * n * (nlvl + 1) + 3 * smlsiz * nrhs +
                         max64(s1, n * (1 + nrhs) + 2 * nrhs)
                   : 0;
    int64_t li = 3 * n * (nlvl + 1) + 11 * n;
    double *work = oz_malloc(sizeof(double) * (size_t)((c ? 2 * n * nrhs : lw) + lr + 1));
    int64_t *iw = oz_malloc(sizeof(int64_t) * (size_t)(li + 1));
    if (!work || !iw) {
        x->failed = 1;
    } else {
        LX_F77(I s4 = (I)smlsiz, n4 = (I)n, r4 = (I)nrhs, l4 = (I)ldc, rk = 0, inf4 = 0;
            if (!c)
                LX_HOST(0, dlalsd)(&uplo, &s4, &n4, &r4, d, e, C, &l4, &rcond, &rk, work, (I *)iw,
                                   &inf4, 1);
            else
                LX_HOST(1, zlalsd)(&uplo, &s4, &n4, &r4, d, e, C, &l4, &rcond, &rk, work,
                                   work + 2 * n * nrhs, (I *)iw, &inf4, 1);
            *rank = rk;
            *info = inf4;);
    }
    free(work);
    free(iw);
}

/* R (n x 2 nrhs real, leading dimension n) := [Re C, Im C] for the complex C; back = 1: the
 * reverse. */
static void split(int back, int64_t n, int64_t nrhs, double *C, int64_t ldc, double *R)
{
    for (int64_t j = 0; j < nrhs; j++)
        for (int64_t i = 0; i < n; i++) {
            double *c = C + 2 * (i + j * ldc), *r = R + i + j * n;
            if (back) {
                c[0] = r[0];
                c[1] = r[n * nrhs];
            } else {
                r[0] = c[0];
                r[n * nrhs] = c[1];
            }
        }
}

/* The explicit route (see the top). U_B, V_B^T, Y and a complex C's parts R in one host
 * allocation; a real C is R itself. */
static void explicit_lalsd(oz_lx *x, char uplo, int64_t n, int64_t nrhs, double *d, double *e,
                           double *C, int64_t ldc, double rcond, int64_t *rank, int64_t *info)
{
    int cplx = x->cplx;
    int64_t nc = (cplx ? 2 : 1) * nrhs, ldr = cplx ? n : ldc;
    double *U = oz_malloc(sizeof(double) * (size_t)(2 * n * n + (cplx ? 2 : 1) * n * nc));
    if (!U) {
        x->failed = 1;
        return;
    }
    double *VT = U + n * n, *Y = VT + n * n, *R = cplx ? Y + n * nc : C;
    lx_bdsdc(x, uplo, 1, n, d, e, U, VT, info);
    if (*info == 0 && !x->failed) {
        double rcnd = rcond <= 0.0 || rcond >= 1.0 ? DBL_EPSILON / 2 : rcond;
        double tol = rcnd * d[0]; /* d descending, nonnegative */
        int64_t r = 0;
        while (r < n && d[r] > tol)
            r++;
        *rank = r;
        if (cplx)
            split(0, n, nrhs, C, ldc, R);
        /* real products at the normwise target: U_B and V_B orthogonal, so a per-column
           error eps ||c_j|| is dlalsd's own (numerics/ozaki2.h) */
        int target = x->o.target;
        x->cplx = 0;
        x->o.target = OZBLAS_TARGET_NORMWISE;
        if (r > 0) {
            lx_gemm(x, 'T', 'N', r, nc, n, ONE, U, n, R, ldr, ZERO, Y, r); /* U_B^T C */
            for (int64_t j = 0; j < nc; j++)
                for (int64_t i = 0; i < r; i++)
                    Y[i + j * r] /= d[i];
            lx_gemm(x, 'T', 'N', n, nc, r, ONE, VT, n, Y, r, ZERO, R, ldr); /* V_B (S^+ ...) */
            x->rep->host_flops += (double)(r * nc);
        } else {
            for (int64_t j = 0; j < nc; j++)
                memset(R + j * ldr, 0, sizeof(double) * (size_t)n);
        }
        x->cplx = cplx;
        x->o.target = target;
        if (cplx && !x->failed)
            split(1, n, nrhs, C, ldc, R);
    }
    free(U);
}

void lx_lalsd(oz_lx *x, char uplo, int64_t n, int64_t nrhs, double *d, double *e, double *C,
              int64_t ldc, double rcond, int64_t *rank, int64_t *info)
{
    *rank = 0;
    lx_clock clk = lx_tic(x); /* the products inside are not the solver's host time */
    if (nrhs >= 1 && explicit_route(n, (x->cplx ? 2 : 1) * nrhs))
        explicit_lalsd(x, uplo, n, nrhs, d, e, C, ldc, rcond, rank, info);
    else /* nrhs < 1 too: dlalsd's info -4 and its xerbla line */
        host_lalsd(x, uplo, n, nrhs, d, e, C, ldc, rcond, rank, info);
    lx_toc(x, clk, &x->rep->solver_seconds);
}
