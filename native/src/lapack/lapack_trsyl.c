/* The triangular Sylvester equation op(A) X + isgn X op(B) = scale C (LAPACK's dtrsyl,
 * ztrsyl), A (m x m) and B (n x n) upper quasi-triangular (real Schur form: 1x1 and 2x2
 * diagonal blocks; complex: triangular), written once for double and complex double.
 *
 * LAPACK's trsyl is Level 1 (a dot product per entry of X). Here it is Jonsson and Kågström's
 * recursive blocking: the larger of the two orders (counted in blocks of nb) is split in
 * half, at a block boundary moved by one where a 2x2 diagonal block would be cut; the half
 * that op(A) (op(B)) makes independent is solved first, its solution enters the other half's
 * right-hand side through one product (C2 -= op(A21) X1, or C2 -= isgn X1 op(B12)), then
 * the other half is solved. Below nb x nb (nb at most 256, lx_trsyl) the host trsyl solves
 * the block. All of the coupling, m n (m + n) flops less the blocks' 2 m n nb, is ozblas
 * products.
 *
 * scale as LAPACK defines it: at most 1, chosen so that X does not overflow. A block's host
 * trsyl returns its own scale; the recursion keeps one scale for its whole subproblem, so a
 * factor s < 1 from one half rescales the other half's right-hand side (solved first) or
 * solution (solved second) before they meet. Each coupling product is made overflow-safe as
 * LAPACK 3.10's trsyl3 does it (dlarmm): from the infinity norms of op(A21) (op(B12)), of the
 * solved half and of the right-hand side it updates, a factor f <= 1 such that
 * f C2 - op(A21) (f X1) cannot overflow scales both first (and the scale). info = 1 when a
 * block's host trsyl perturbed close eigenvalues of A and -isgn B (every pair of them meets
 * in exactly one block). A scale below the smallest double flushes to zero, as trsyl's own
 * product of factors would.
 *
 * Device memory (lapack_seam.c): the blocks for the host trsyl, the norms and the rescaling
 * work on host copies; the products run on the device pointers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/oz_internal.h"
#include "oz_lapack.h"

/* One solve. */
typedef struct {
    oz_lx *x;
    char ta, tb; /* 'N', or the element type's transpose */
    int isgn;
    const double *A, *B;
    double *C;
    int64_t lda, ldb, ldc;
    int64_t nb;    /* the host trsyl's blocks' largest order */
    double *hbuf;  /* a device run: host copies of a block's A, B and C (nb x nb each) */
    double *sums;  /* the norms' row sums, max(m, n) */
    int64_t info;
} syl;

#define AT(M, i, j, ld) LX_AT(s->x, M, i, j, ld)

/* The block of the host trsyl: C(i0:i0+m, j0:j0+n) with the diagonal blocks of A and B. */
static double leaf(syl *s, int64_t i0, int64_t m, int64_t j0, int64_t n)
{
    oz_lx *x = s->x;
    int64_t e = (x->cplx ? 2 : 1) * s->nb * s->nb, la, lb, lc, info = 0;
    const double *HA = lx_fetch_to(x, s->hbuf, m, AT(s->A, i0, i0, s->lda), s->lda, m, m, &la);
    const double *HB = lx_fetch_to(x, s->hbuf + e, n, AT(s->B, j0, j0, s->ldb), s->ldb, n, n,
                                   &lb);
    double *Cb = AT(s->C, i0, j0, s->ldc);
    double *HC = lx_fetch_to(x, s->hbuf + 2 * e, m, Cb, s->ldc, m, n, &lc);
    double scale = 1.0;
    if (x->failed)
        return scale;
    LX_F77(I isgn = s->isgn, m4 = (I)m, n4 = (I)n, la4 = (I)la, lb4 = (I)lb, lc4 = (I)lc, i4 = 0;
           LX_HOST(x->cplx, trsyl)(&s->ta, &s->tb, &isgn, &m4, &n4, HA, &la4, HB, &lb4, HC, &lc4,
                                   &scale, &i4, 1, 1);
           info = i4;);
    lx_store(x, HC, lc, Cb, s->ldc, m, n);
    if (info > s->info)
        s->info = info;
    return scale;
}

/* The infinity norm of op(M), M rows x cols: its largest row sum (op 'N') or column sum,
 * of |re| + |im| (an upper bound of the modulus), read in strips of the run's nb columns. */
static double norm_inf(syl *s, char op, const double *M, int64_t ld, int64_t rows, int64_t cols)
{
    oz_lx *x = s->x;
    int w = x->cplx ? 2 : 1;
    double best = 0.0;
    for (int64_t i = 0; i < rows && op == 'N'; i++)
        s->sums[i] = 0.0;
    for (int64_t c = 0; c < cols; c += x->nb) { /* the seam's buffers hold nb columns */
        int64_t cb = cols - c < x->nb ? cols - c : x->nb, lh;
        const double *H = lx_fetch(x, 0, AT(M, 0, c, ld), ld, rows, cb, &lh, 1);
        if (x->failed)
            return 0.0;
        for (int64_t j = 0; j < cb; j++) {
            double col = 0.0;
            for (int64_t i = 0; i < rows; i++) {
                const double *v = LX_AT(x, H, i, j, lh);
                double a = w == 2 ? fabs(v[0]) + fabs(v[1]) : fabs(v[0]);
                if (op == 'N')
                    s->sums[i] += a;
                else
                    col += a;
            }
            best = col > best ? col : best;
        }
    }
    for (int64_t i = 0; i < rows && op == 'N'; i++)
        best = s->sums[i] > best ? s->sums[i] : best;
    return best;
}

/* LAPACK's dlarmm: f in (0, 1] such that f C - A (f X) cannot overflow for the norms given
 * (2^968 = (1 / (safe minimum / precision)) / 4, its bound). */
static double robust_factor(double anorm, double xnorm, double cnorm)
{
    const double big = 0x1p968;
    if (xnorm <= 1.0)
        return anorm * xnorm > big - cnorm ? 0.5 : 1.0;
    return anorm > (big - cnorm) / xnorm ? 0.5 / xnorm : 1.0;
}

static void rescale(syl *s, int64_t i0, int64_t m, int64_t j0, int64_t n, double f)
{
    if (f != 1.0)
        lx_scale(s->x, m, n, (const double[2]){f, 0.0}, AT(s->C, i0, j0, s->ldc), s->ldc);
}

/* Where to split the range [k0, k0 + k) of the quasi-triangular T (k > nb): after half of
 * its blocks of nb, moved by one (forward if it can) where T(p, p-1) != 0 would cut a 2x2
 * block, as trsyl reads them. */
static int64_t split(syl *s, const double *T, int64_t ldt, int64_t k0, int64_t k)
{
    int64_t blocks = (k + s->nb - 1) / s->nb, p = k0 + s->nb * ((blocks + 1) / 2), l;
    if (!s->x->cplx) {
        double sub;
        const double *h = lx_fetch_to(s->x, &sub, 1, AT(T, p, p - 1, ldt), ldt, 1, 1, &l);
        if (!s->x->failed && *h != 0.0)
            p = p + 1 < k0 + k ? p + 1 : p - 1;
    }
    return p;
}

/* X for C(i0:i0+m, j0:j0+n) with the diagonal blocks A(i0.., i0..) and B(j0.., j0..) in
 * place of C; returns its scale. f0.. is the half solved first, g0.. the other; A12 (B12),
 * the stored block above the diagonal that couples them, enters the product transposed as
 * op(A) (op(B)) is. */
static double solve(syl *s, int64_t i0, int64_t m, int64_t j0, int64_t n)
{
    oz_lx *x = s->x;
    if (x->failed)
        return 1.0;
    int64_t nb = s->nb;
    if (m <= nb && n <= nb)
        return leaf(s, i0, m, j0, n);
    double s1, s2, f;
    if ((m + nb - 1) / nb >= (n + nb - 1) / nb) { /* split op(A): rows of X */
        int64_t p = split(s, s->A, s->lda, i0, m), mt = p - i0, mb = m - mt;
        int top = s->ta != 'N'; /* op(A) lower: the top rows first */
        int64_t f0 = top ? i0 : p, fm = top ? mt : mb, g0 = top ? p : i0, gm = top ? mb : mt;
        const double *A12 = AT(s->A, i0, p, s->lda);
        s1 = solve(s, f0, fm, j0, n);
        rescale(s, g0, gm, j0, n, s1);
        f = robust_factor(norm_inf(s, s->ta, A12, s->lda, mt, mb),
                          norm_inf(s, 'N', AT(s->C, f0, j0, s->ldc), s->ldc, fm, n),
                          norm_inf(s, 'N', AT(s->C, g0, j0, s->ldc), s->ldc, gm, n));
        rescale(s, f0, fm, j0, n, f);
        rescale(s, g0, gm, j0, n, f);
        lx_gemm(x, s->ta, 'N', gm, n, fm, MONE, A12, s->lda, AT(s->C, f0, j0, s->ldc), s->ldc,
                ONE, AT(s->C, g0, j0, s->ldc), s->ldc);
        s2 = solve(s, g0, gm, j0, n);
        rescale(s, f0, fm, j0, n, s2);
    } else { /* split op(B): columns of X */
        int64_t p = split(s, s->B, s->ldb, j0, n), nl = p - j0, nr = n - nl;
        int left = s->tb == 'N'; /* op(B) upper: the left columns first */
        int64_t f0 = left ? j0 : p, fn = left ? nl : nr, g0 = left ? p : j0, gn = left ? nr : nl;
        const double *B12 = AT(s->B, j0, p, s->ldb);
        const double msgn[2] = {-(double)s->isgn, 0.0};
        s1 = solve(s, i0, m, f0, fn);
        rescale(s, i0, m, g0, gn, s1);
        f = robust_factor(norm_inf(s, s->tb, B12, s->ldb, nl, nr),
                          norm_inf(s, 'N', AT(s->C, i0, f0, s->ldc), s->ldc, m, fn),
                          norm_inf(s, 'N', AT(s->C, i0, g0, s->ldc), s->ldc, m, gn));
        rescale(s, i0, m, f0, fn, f);
        rescale(s, i0, m, g0, gn, f);
        lx_gemm(x, 'N', s->tb, m, gn, fn, msgn, AT(s->C, i0, f0, s->ldc), s->ldc, B12, s->ldb,
                ONE, AT(s->C, i0, g0, s->ldc), s->ldc);
        s2 = solve(s, i0, m, g0, gn);
        rescale(s, i0, m, f0, fn, s2);
    }
    return s1 * f * s2;
}

ozblas_status lx_trsyl(oz_lx *x, char ta, char tb, int isgn, int64_t m, int64_t n,
                       const double *A, int64_t lda, const double *B, int64_t ldb, double *C,
                       int64_t ldc, double *scale, int64_t *info)
{
    *scale = 1.0;
    *info = 0;
    if (!lx_host_fn(x->cplx, LXH_trsyl))
        return OZBLAS_ERR_NO_HOST_BLAS;
    if (m <= 0 || n <= 0)
        return OZBLAS_OK;
    /* The blocks of the host trsyl: nb, at most 256. Its Level-1 loops leave the cache beyond
       that (the 2-core development machine, one thread, loaded: 0.19 GFLOPS on 256 x 256,
       0.02 GFLOPS on 1024 x 1024), so the CUDA executor's nb = 1024 would make the blocks
       cost more than the whole of the products. At least 2: a 2x2 block is never split. */
    int64_t blk = x->nb < 256 ? x->nb : 256;
    syl s = {x, ta, tb, isgn, A, B, C, lda, ldb, ldc, max64(blk, 2), NULL, NULL, 0};
    int64_t e = (x->cplx ? 2 : 1) * s.nb * s.nb;
    s.sums = oz_malloc(sizeof(double) * (size_t)max64(m, n));
    s.hbuf = x->dev ? oz_malloc(sizeof(double) * (size_t)(3 * e)) : NULL;
    if (!s.sums || (x->dev && !s.hbuf)) {
        free(s.sums);
        free(s.hbuf);
        return OZBLAS_ERR_ALLOCATION;
    }
    *scale = solve(&s, 0, m, 0, n);
    *info = s.info;
    free(s.sums);
    free(s.hbuf);
    return OZBLAS_OK;
}

int64_t oz_trsyl_check(int cplx, char trana, char tranb, int64_t isgn, int64_t m, int64_t n,
                       int64_t lda, int64_t ldb, int64_t ldc)
{
    const char *ok = cplx ? "NC" : "NTC";
    trana = up(trana), tranb = up(tranb);
    return !trana || !strchr(ok, trana) ? -1 : !tranb || !strchr(ok, tranb) ? -2
         : isgn != 1 && isgn != -1 ? -3 : m < 0 ? -4 : n < 0 ? -5 : lda < max1(m) ? -7
         : ldb < max1(n) ? -9 : ldc < max1(m) ? -11 : 0;
}

double oz_trsyl_flops(int cplx, int64_t m, int64_t n)
{
    return (cplx ? 4.0 : 1.0) * (double)m * (double)n * (double)(m + n);
}

static ozblas_status trsyl_body(ozblas_context *ctx, int cplx, char trana, char tranb,
                                int64_t isgn, int64_t m, int64_t n, double *A, int64_t lda,
                                double *B, int64_t ldb, double *C, int64_t ldc, double *scale,
                                int64_t *info, int64_t nb, const ozblas_options *opt,
                                ozblas_lapack_report *report)
{
    if ((*info = oz_trsyl_check(cplx, trana, tranb, isgn, m, n, lda, ldb, ldc)))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    /* dtrsyl reads 'C' as 'T' */
    char ta = up(trana) == 'N' ? 'N' : cplx ? 'C' : 'T', tb = up(tranb) == 'N' ? 'N' : cplx ? 'C' : 'T';
    *scale = 1.0;
    BEGIN(cplx, max64(m, n), oz_trsyl_flops(cplx, m, n), max64(max64(m, n), 1),
          LX_OP(A, lda, m, m, 0), LX_OP(B, ldb, n, n, 0), LX_OP(C, ldc, m, n, 1))
    END_WITH(lx_trsyl(&x, ta, tb, (int)isgn, m, n, A, lda, B, ldb, C, ldc, scale, info));
}

LX_DZ(trsyl, trsyl,
      (char trana, char tranb, int64_t isgn, int64_t m, int64_t n, const double *A, int64_t lda,
       const double *B, int64_t ldb, double *C, int64_t ldc, double *scale, int64_t *info),
      trsyl_body, trana, tranb, isgn, m, n, (double *)A, lda, (double *)B, ldb, C, ldc, scale,
      info)
