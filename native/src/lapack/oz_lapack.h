/* The LAPACK layer's internals: one set of blocked drivers for double and complex double
 * (the element type is a field of the run, as BLIS instantiates one definition per type),
 * the host LAPACK routines the panels and diagonal blocks go to, and the products.
 *
 * Every driver works on the caller's pointers, host or device memory alike, and issues its
 * O(n^3) part as ozblas_dgemm/ozblas_zgemm calls through lx_gemm, which counts them into the
 * report; whatever else touches a matrix goes through the seam of lapack_seam.c (lx_blk_*,
 * lx_fetch/lx_store), which moves device blocks to the host routines and back. */
#ifndef OZ_LAPACK_H
#define OZ_LAPACK_H

#include <stdint.h>

#include "ozblas.h"
#include "../core/oz_internal.h" /* oz_malloc */

/* One driver run. */
typedef struct {
    ozblas_context *ctx;
    const ozblas_options *opt;
    int cplx;   /* 0: double, 1: complex double (two doubles per element) */
    int64_t nb; /* block size */
    ozblas_lapack_report *rep;
    double *work;     /* workspace, allocated before anything is changed: nb x nb elements
                         (SYRK/HERK diagonal blocks), n x nb more for getri */
    int32_t *piv32;   /* LP64 host LAPACK: pivots as int32_t, max(n, nb) of them */
    /* device memory: the matrices are the device's (the caller's, or copies uploaded for
       the call); blocks for the host reach it through two host buffers of hcap elements,
       pivots for laswp through dpiv (device memory, max(n, nb) of them) */
    int dev;
    const oz_executor *devex; /* the executor whose memory that is (x->dev) */
    int failed; /* a device copy or a product failed: the result is not to be used */
    ozblas_status fail_status; /* the product's status (OK: a copy failed) */
    double *hbuf[2];
    int64_t hcap;
    int64_t *dpiv;
    ozblas_options o; /* opt with its device resolved (opt points here) */
    ozblas_report *product; /* NULL, or the products' GEMM reports merged (lx_gemm) for a
                               caller that traces the run as one product (the shim's SYRK) */
    int exec; /* the executor the block size was chosen for (the band width's too) */
    double *kept; /* a host run: its operands as the caller passed them, put back when the
                     run ends with OZBLAS_ERR_ALLOCATION (for the host routine) */
} oz_lx;

/* Element (i, j) of a column-major matrix with leading dimension ld. */
#define LX_AT(x, A, i, j, ld) ((A) + ((x)->cplx ? 2 : 1) * ((i) + (int64_t)(j) * (ld)))

/* The run's element type's transpose: conjugate for complex. */
static inline char ct(const oz_lx *x) { return x->cplx ? 'C' : 'T'; }

#include "lx_host.h" /* the host routines' table, LX_F77 */
#include "lx_util.h" /* min64, up, ONE, ..., the d/z entries' pattern */

/* The host LAPACK's routines (lapack_real.c): 1 when a complete set is loaded. */
int oz_real_lapack_ready(void);
void lx_real_getrf(const oz_lx *x, int64_t m, int64_t n, double *A, int64_t lda, int64_t *ipiv,
                   int64_t *info);
void lx_real_laswp(const oz_lx *x, int64_t n, double *A, int64_t lda, int64_t k1, int64_t k2,
                   const int64_t *ipiv, int64_t incx);
void lx_real_potrf(const oz_lx *x, char uplo, int64_t n, double *A, int64_t lda, int64_t *info);
void lx_real_trtri(const oz_lx *x, char uplo, char diag, int64_t n, double *A, int64_t lda,
                   int64_t *info);
void lx_real_lauum(const oz_lx *x, char uplo, int64_t n, double *A, int64_t lda, int64_t *info);
void lx_real_trsm(const oz_lx *x, char side, char uplo, char ta, char diag, int64_t m, int64_t n,
                  const double *alpha, const double *A, int64_t lda, double *B, int64_t ldb);
void lx_real_trmm(const oz_lx *x, char side, char uplo, char ta, char diag, int64_t m, int64_t n,
                  const double *alpha, const double *A, int64_t lda, double *B, int64_t ldb);

/* The seam (lapack_seam.c). lx_fetch: the rows x cols block at A readable on the host, with
 * its leading dimension in *ldh: A itself for host memory, else a copy in buffer slot (0 or
 * 1; copy 0: the buffer only, for a block about to be overwritten). lx_store: the block back
 * where it came from (nothing for host memory). The lx_blk_* are the host routines of
 * lapack_real.c on such blocks (laswp on the device itself). */
double *lx_fetch(oz_lx *x, int slot, const double *A, int64_t lda, int64_t rows, int64_t cols,
                 int64_t *ldh, int copy);
void lx_store(oz_lx *x, const double *H, int64_t ldh, double *A, int64_t lda, int64_t rows,
              int64_t cols);
void lx_blk_getrf(oz_lx *x, int64_t m, int64_t n, double *A, int64_t lda, int64_t *ipiv,
                  int64_t *info);
void lx_blk_laswp(oz_lx *x, int64_t n, double *A, int64_t lda, int64_t k1, int64_t k2,
                  const int64_t *ipiv, int64_t incx);
void lx_blk_potrf(oz_lx *x, char uplo, int64_t n, double *A, int64_t lda, int64_t *info);
void lx_blk_lauum(oz_lx *x, char uplo, int64_t n, double *A, int64_t lda, int64_t *info);
void lx_blk_trtri(oz_lx *x, char uplo, char diag, int64_t n, double *A, int64_t lda,
                  int64_t *info);
/* The report's host_flops += f (4 f for complex): a host routine's count. */
void lx_host_flops(const oz_lx *x, double f);
/* The monotonic clock, s. lx_tic/lx_toc: *part (one of the report's host parts,
 * panel/chase/solver/back_seconds) += the wall time between them less the products' and the
 * panels' inside (the parts do not overlap). */
double lx_now(void);
typedef struct {
    double t0, p0, h0;
} lx_clock;
lx_clock lx_tic(const oz_lx *x);
void lx_toc(const oz_lx *x, lx_clock c, double *part);
/* trsm (mult 0) or trmm (mult 1) with op(A) of order at most nb */
void lx_blk_tr3(oz_lx *x, int mult, char side, char uplo, char ta, char diag, int64_t m,
                int64_t n, const double *alpha, const double *A, int64_t lda, double *B,
                int64_t ldb);

/* The drivers (lapack_drivers.c). Arguments are checked by the callers. */
void lx_gemm(oz_lx *x, char ta, char tb, int64_t m, int64_t n, int64_t k, const double *alpha,
             const double *A, int64_t lda, const double *B, int64_t ldb, const double *beta,
             double *C, int64_t ldc);
void lx_trsm(oz_lx *x, char side, char uplo, char ta, char diag, int64_t m, int64_t n,
             const double *alpha, const double *A, int64_t lda, double *B, int64_t ldb);
void lx_trmm(oz_lx *x, char side, char uplo, char ta, char diag, int64_t m, int64_t n,
             const double *alpha, const double *A, int64_t lda, double *B, int64_t ldb);
void lx_getrf(oz_lx *x, int64_t m, int64_t n, double *A, int64_t lda, int64_t *ipiv,
              int64_t *info);
void lx_getrs(oz_lx *x, char trans, int64_t n, int64_t nrhs, const double *A, int64_t lda,
              const int64_t *ipiv, double *B, int64_t ldb);
void lx_potrf(oz_lx *x, char uplo, int64_t n, double *A, int64_t lda, int64_t *info);
void lx_potrs(oz_lx *x, char uplo, int64_t n, int64_t nrhs, const double *A, int64_t lda,
              double *B, int64_t ldb);
void lx_trtri(oz_lx *x, char uplo, char diag, int64_t n, double *A, int64_t lda, int64_t *info);
/* 0, or the 1-based index of the first exact zero on the diagonal. */
int64_t lx_zero_diagonal(oz_lx *x, int64_t n, const double *A, int64_t lda);
/* The largest |a_ij| of the m x n A through the seam, strip by strip (NaN when one is, as
 * lange 'M'; lapack_gels.c) */
double lx_max_abs(oz_lx *x, int64_t m, int64_t n, const double *A, int64_t lda);
void lx_getri(oz_lx *x, int64_t n, double *A, int64_t lda, const int64_t *ipiv, int64_t *info);
void lx_potri(oz_lx *x, char uplo, int64_t n, double *A, int64_t lda, int64_t *info);
/* SYRK (herm 0) and HERK (herm 1) on the triangle uplo of C: alpha P op(P) + beta C
 * (trans 'N') or alpha op(P) P + beta C; alpha, beta as two doubles (lx_syr2k: the same
 * code, rank 2k) */
void lx_syrk(oz_lx *x, int herm, char uplo, char trans, int64_t n, int64_t k,
             const double *alpha, const double *P, int64_t ldp, const double *beta, double *C,
             int64_t ldc);
/* B := 0 (m x n), as trsm/trmm with alpha = 0 */
void lx_zero(oz_lx *x, int64_t m, int64_t n, double *B, int64_t ldb);

/* A matrix the call reads (and, when out, writes; out 2: writes whole without reading, so
 * that a host run need not keep it for the fallback): its caller-side pointer and leading
 * dimension, which a device-resident run replaces by its device copy's. */
typedef struct {
    double **p;
    int64_t *ld, rows, cols;
    int out;
    double *host; /* the caller's pointer, kept while the copy stands in */
    int64_t host_ld;
} lx_operand;

/* lx_begin's flags: n x nb more workspace (getri); a routine of products only (SYRK, symm,
 * syr2k), which needs no host LAPACK */
enum { LX_INVERSE = 1, LX_PRODUCTS = 2 };

/* The run of a public entry (lapack_api.c): options (defaults when NULL), block size (nb
 * 0: the size rule for n and the run's executor), an emptied report with the nominal flops,
 * the workspace of the SYRK/HERK blocks (and n x nb more with LX_INVERSE), the operands placed
 * (docs/lapack.md, "On the GPU"; big: their largest dimension);
 * OZBLAS_ERR_NO_HOST_BLAS without a host LAPACK (but for LX_PRODUCTS), OZBLAS_ERR_ALLOCATION,
 * OZBLAS_ERR_DEVICE.
 * lx_end: device results copied back, the time, everything freed, the report out; returns
 * st, or the run's failure. */
ozblas_status lx_begin(oz_lx *x, ozblas_context *ctx, int cplx, int64_t n, int64_t nb,
                       int flags, const ozblas_options *opt, ozblas_lapack_report *rep,
                       double flops, lx_operand *ops, int nops, int64_t big);
ozblas_status lx_end(oz_lx *x, ozblas_status st, lx_operand *ops, int nops,
                     ozblas_lapack_report *out);

/* Bunch-Kaufman (lapack_sytrf.c): herm selects Hermitian (complex only). OZBLAS_OK, or
 * (before anything is changed) OZBLAS_ERR_ALLOCATION, or OZBLAS_ERR_INVALID_ARGUMENT when
 * ipiv is no sytrf pivot sequence. sytrs changes A while it runs and restores it exactly. */
ozblas_status lx_sytrf(oz_lx *x, char uplo, int herm, int64_t n, double *A, int64_t lda,
                       int64_t *ipiv, int64_t *info);
ozblas_status lx_sytrs(oz_lx *x, char uplo, int herm, int64_t n, int64_t nrhs, double *A,
                       int64_t lda, const int64_t *ipiv, double *B, int64_t ldb);
ozblas_status lx_sytri(oz_lx *x, char uplo, int herm, int64_t n, double *A, int64_t lda,
                       const int64_t *ipiv, int64_t *info);
/* Each entry (arguments ctx, nb, opt, report): checks, then BEGIN with the matrices it reads
 * (LX_OP(pointer variable, leading dimension variable, rows, cols, written): a
 * device-resident run points those variables at its copies), the work, END (or END_WITH a
 * status). */
#define LX_OP(p, ld, rows, cols, out) {&(p), &(ld), (rows), (cols), (out), NULL, 0}
#define BEGIN_INV(cplx, n, flops, flags, big, ...)                                            \
    oz_lx x;                                                                                 \
    ozblas_lapack_report rep;                                                                \
    lx_operand ops_[] = {__VA_ARGS__};                                                       \
    const int nops_ = (int)(sizeof ops_ / sizeof ops_[0]);                                   \
    ozblas_status st0 =                                                                      \
        lx_begin(&x, ctx, cplx, n, nb, flags, opt, &rep, flops, ops_, nops_, big);           \
    if (st0 != OZBLAS_OK)                                                                    \
        return lx_end(&x, st0, ops_, nops_, report);
#define BEGIN(cplx, n, flops, big, ...) BEGIN_INV(cplx, n, flops, 0, big, __VA_ARGS__)
#define BEGIN_PRODUCTS(cplx, n, flops, big, ...)                                              \
    BEGIN_INV(cplx, n, flops, LX_PRODUCTS, big, __VA_ARGS__)
#define END_WITH(st) return lx_end(&x, (st), ops_, nops_, report)
#define END() END_WITH(OZBLAS_OK)

/* SYR2K (herm 0) and HER2K (herm 1) on the triangle uplo of C: alpha A op(B) + alpha' B op(A)
 * + beta C (trans 'N') or alpha op(A) B + alpha' op(B) A + beta C, alpha' = alpha, or
 * conj(alpha) for HER2K (lapack_drivers.c: SYRK's code with a second product) */
void lx_syr2k(oz_lx *x, int herm, char uplo, char trans, int64_t n, int64_t k,
              const double *alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
              const double *beta, double *C, int64_t ldc);
/* B := beta B (m x n) through the seam, in strips of nb columns; beta = 0 does not read B */
void lx_scale(oz_lx *x, int64_t m, int64_t n, const double *beta, double *B, int64_t ldb);

/* QR and the sytrf family on device memory (lapack_seam.c). lx_fetch_to: lx_fetch into a
 * host buffer of the caller's (H, leading dimension ldh, no capacity check; *ld the one to
 * use), A itself for host memory. lx_scratch: a workspace of elems elements where the run's
 * matrices are: host itself for host memory, else device memory (NULL and x->failed when
 * none); lx_scratch_free frees what it allocated. */
double *lx_fetch_to(oz_lx *x, double *H, int64_t ldh, const double *A, int64_t lda,
                    int64_t rows, int64_t cols, int64_t *ld);
double *lx_scratch(oz_lx *x, double *host, int64_t elems);
void lx_scratch_free(oz_lx *x, double *d);

/* ---- The Householder machinery (lapack_qr.c): QR, LQ, Hessenberg, least squares ---------
 * A block of ib reflectors is I - V T V^H with V (r x ib) unit lower trapezoidal, made
 * explicit on the host (its unit diagonal and zeros written in) from the reflectors as
 * stored: columnwise below the diagonal (row 0: QR, Hessenberg) or conjugated in rows right
 * of the diagonal (row 1: LQ). The drivers are written for QR on a view of A: A itself
 * (row 0), or A^H (row 1), whose QR is A's LQ (A = L Q: A^H = Q^H L^H); m, n, (i, j) are
 * the view's, C := op(H) C of the view is C := C op(H)^H of A. */
typedef struct {
    double *V;  /* the explicit V of one block: rows x nb (host) */
    double *T;  /* nb x nb (host) */
    double *rw; /* the host routines' workspace */
    int64_t lrw;
    double *dV, *dT; /* V and T where the products read them (themselves for host memory) */
    double *W;       /* the products' middle term: nb x wdim (or wdim x nb) */
    double *VT, *dVT; /* V T of the last block (host, where the products read it), r x ib */
    int64_t vt_r;     /* VT's rows; 0: not made for the last block */
    int64_t vrows;    /* V's rows at most (lx_hh_alloc's) */
    double *Tp;       /* the last panel's T from the host geqrt3 (host, nb x nb, ld tpk) */
    int64_t tpk, tpr; /* its order (0: none; lx_hh_panel_block then runs larft), its rows */
    int tpcol;        /* 1: VT holds that LQ panel's reflectors as columns (its view's QR) */
} lx_hh;

/* 1 when the host geqrf, larft, orgqr/ungqr, gelqf and orglq/unglq are loaded */
int lx_hh_ready(int cplx);
/* V of up to vrows rows, W of nb x wdim elements, a host workspace of at least lrw elements
 * (0: enough for the host QR routines' own blocking); OZBLAS_ERR_ALLOCATION or
 * OZBLAS_ERR_DEVICE (free with lx_hh_free either way). */
ozblas_status lx_hh_alloc(oz_lx *x, lx_hh *q, int64_t vrows, int64_t wdim, int64_t lrw);
void lx_hh_free(oz_lx *x, lx_hh *q);
/* The block reflector of the ib reflectors at Vh (host memory, storage row as above, the
 * reflectors of order r) made explicit with its T: the host larft's (T NULL), or T (ib x ib,
 * leading dimension ldt, host memory) as given; then both where the products read them. */
void lx_hh_block(oz_lx *x, lx_hh *q, int row, const double *Vh, int64_t ldv, int64_t r,
                 int64_t ib, const double *tau, const double *T, int64_t ldt);
/* lx_hh_block for the panel the last lx_hh_host (gen 0) factored, at H, ldh as it returned:
 * with the T that the panel's factorization made, where it made one. */
void lx_hh_panel_block(oz_lx *x, lx_hh *q, int row, const double *H, int64_t ldh, int64_t r,
                       int64_t ib, const double *tau);
/* C (mr x nc) := op(H) C (side 'L', H of order mr) or C op(H) ('R', order nc), trans 'N' or
 * the conjugate transpose, H the last lx_hh_block's (ib reflectors): two GEMMs around a trmm
 * with T (LAPACK's larfb), or, where C is wider than H's order, two GEMMs with V and V T
 * (V T made once per block: order x ib^2 host flops instead of the trmm's width x ib^2). */
void lx_larfb(oz_lx *x, lx_hh *q, char side, char trans, int64_t mr, int64_t nc, int64_t ib,
              double *C, int64_t ldc);
/* The host geqrf (gen LX_HH_QR) or orgqr (LX_HH_GEN) on the view's m x n block at A (gelqf,
 * orglq of A's n x m for row), through the seam; its host copy (valid until the next fetch of
 * slot 0) in *H, *ldh. LX_HH_PANEL, a panel of a blocked driver: where m >= n and the host has
 * geqrt3, the recursive QR (lapack_qr.c's rqrt: with native products its updates are
 * products, else the host geqrt3 whole; its T kept for lx_hh_panel_block; an LQ as the QR of a
 * copy of the view), other bits than geqrf's; else geqrf's. */
enum { LX_HH_QR = 0, LX_HH_GEN = 1, LX_HH_PANEL = 2 };
void lx_hh_host(oz_lx *x, lx_hh *q, int row, int gen, int64_t m, int64_t n, int64_t k,
                double *A, int64_t lda, const double *tau, int64_t *info, double **H,
                int64_t *ldh);
/* Columns j0 to j1 of the view (m rows) := those of the identity. */
void lx_unit_columns(oz_lx *x, int row, int64_t m, int64_t j0, int64_t j1, double *A,
                     int64_t lda);
/* LAPACK's geqrf, orgqr, ormqr on the view (row 1: gelqf, orglq, ormlq of A; ormqr's trans
 * is the view's: ormlq's flipped). ormqr's C is not a view: m, n are C's. */
void lx_geqrf(oz_lx *x, lx_hh *q, int row, int64_t m, int64_t n, double *A, int64_t lda,
              double *tau, int64_t *info);
void lx_orgqr(oz_lx *x, lx_hh *q, int row, int64_t m, int64_t n, int64_t k, double *A,
              int64_t lda, const double *tau, int64_t *info);
void lx_ormqr(oz_lx *x, lx_hh *q, int row, char side, char trans, int64_t m, int64_t n,
              int64_t k, const double *A, int64_t lda, const double *tau, double *C,
              int64_t ldc);

/* LAPACK's dorghr on the view (lapack_hess.c): the reflectors of rows and columns ilo+1..ihi
 * (1-based) moved one column of the view right, the identity's columns outside, orgqr's
 * driver on the rest; row 1 (the view A transposed) is dorgbr's P^H of a square reduction. */
void lx_orghr(oz_lx *x, lx_hh *q, int row, int64_t n, int64_t ilo, int64_t ihi, double *A,
              int64_t lda, const double *tau, int64_t *info);

/* The factor that brings a largest element nrm into [small, 1 / small] as LAPACK's drivers
 * scale (1 for 0, NaN, or nrm in range; lapack_svd.c). */
double lx_into_range(double nrm, double small);

/* LAPACK's dgehrd (lapack_hess.c): the reduction to upper Hessenberg form of rows and columns
 * ilo..ihi (1-based), its workspace its own; q: lx_hh_alloc'd with vrows, wdim >= n and the host
 * gehrd's workspace (n 64 + 65 64 elements). OZBLAS_OK, OZBLAS_ERR_ALLOCATION or
 * OZBLAS_ERR_DEVICE. */
ozblas_status lx_gehrd_run(oz_lx *x, lx_hh *q, int64_t n, int64_t ilo, int64_t ihi, double *A,
                           int64_t lda, double *tau, int64_t *info);

/* LAPACK's dhseqr and zhseqr (lapack_hseqr.c: the small-bulge multishift QR with aggressive
 * early deflation, the updates of H and Z beyond its small windows as products) for x->cplx
 * on host memory: job 'E' or 'S', compz 'N' or 'V', ilo and ihi 1-based, the eigenvalues in wr,
 * wi (z: wr as n complex, wi unused), *info as hseqr's; x->failed when its workspace cannot
 * be had. lx_hseqr_ready: its host routines found for cplx; lx_hseqr_takes: those,
 * 1 <= ilo <= ihi <= n and H's Hessenberg part of rows and columns ilo..ihi finite (else the
 * host routine's: its argument errors, its answer to NaN). */
int lx_hseqr_ready(int cplx);
int lx_hseqr_takes(int cplx, int64_t n, int64_t ilo, int64_t ihi, const double *H, int64_t ldh);
void lx_hseqr(oz_lx *x, char job, char compz, int64_t n, int64_t ilo, int64_t ihi, double *H,
              int64_t ldh, double *wr, double *wi, double *Z, int64_t ldz, int64_t *info);

/* dbdsdc (lapack_bdsdc.c) on the real bidiagonal (d, e) of order n, uplo 'U' or 'L', with
 * vectors (vec: compq 'I', U and VT n x n, leading dimension n, host memory) or without:
 * beyond LAPACK's leaf size 25 with vectors, divide and conquer whose merges' vector updates
 * are real products at the normwise target (where the host exports dlasdq, dlasd4,
 * ...); else the host dbdsdc. *info as dbdsdc's; x->failed on an allocation failure.
 * lx_bdsdc_ready: the host dbdsdc found. */
int lx_bdsdc_ready(void);
void lx_bdsdc(oz_lx *x, char uplo, int vec, int64_t n, double *d, double *e, double *U,
              double *VT, int64_t *info);

/* gelsd's bidiagonal least-squares solve (lapack_lalsd.c, LAPACK's dlalsd/zlalsd): C (host,
 * n x nrhs, the element type's) := the minimum-norm solution for the real bidiagonal (d, e;
 * uplo 'U' or 'L', order n), d := its singular values descending, the rank by dlalsd's rcond
 * rule; for many right-hand sides by the singular vectors of lx_bdsdc and two products, else
 * the host dlalsd. *info as dlalsd's; x->failed on an allocation failure. lx_lalsd_ready:
 * the host dlalsd/zlalsd found. */
int lx_lalsd_ready(int cplx);
void lx_lalsd(oz_lx *x, char uplo, int64_t n, int64_t nrhs, double *d, double *e, double *C,
              int64_t ldc, double rcond, int64_t *rank, int64_t *info);

/* After BEGIN: the Householder workspace (lx_hh_ready checked), or the entry returns
 * (HH_END_WITH frees it). */
#define HH_WORK(vrows, wdim, lrw)                                                         \
    lx_hh q = {0};                                                                        \
    x.o.target = OZBLAS_TARGET_NORMWISE; /* Householder products (numerics/ozaki2.h) */   \
    ozblas_status st1 = !lx_hh_ready(cplx) ? OZBLAS_ERR_NO_HOST_BLAS                      \
                                           : lx_hh_alloc(&x, &q, vrows, wdim, lrw);       \
    if (st1 != OZBLAS_OK) {                                                               \
        lx_hh_free(&x, &q);                                                               \
        END_WITH(st1);                                                                    \
    }
#define HH_END_WITH(st)  \
    lx_hh_free(&x, &q);  \
    END_WITH(st)

/* symm (herm 0) and hemm (herm 1), checked by the caller (lapack_blas3.c): S is a host
 * workspace of K x min(nb, K) elements, K the order of A */
void lx_symm(oz_lx *x, double *S, int herm, char side, char uplo, int64_t m, int64_t n,
             const double *alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
             const double *beta, double *C, int64_t ldc);
/* trsm (mult 0) or trmm (mult 1) with alpha = 1 and op(A) of order at most nb, blocked
 * again with nb/4 (at least 16) so that most of its flops are products (lapack_drivers.c:
 * the factorizations' panel TRSMs) */
void lx_tr3_panel(oz_lx *x, int mult, char side, char uplo, char ta, char diag, int64_t m,
                  int64_t n, const double *A, int64_t lda, double *B, int64_t ldb);

/* The generalized symmetric-definite reduction (lapack_sygst.c, LAPACK's dsygst/zhegst):
 * A := inv(op(B)) A inv(B) (itype 1) or op(B) A B (itype 2, 3) on the triangle uplo, B the
 * potrf factor in its triangle uplo, Hermitian for complex. OZBLAS_OK, or before anything
 * is changed OZBLAS_ERR_NO_HOST_BLAS (no host sygst/hegst) or OZBLAS_ERR_ALLOCATION. For
 * drivers that compose it (sygvd): arguments checked by the caller. */
ozblas_status lx_sygst(oz_lx *x, int itype, char uplo, int64_t n, double *A, int64_t lda,
                       const double *B, int64_t ldb);
/* The triangular Sylvester equation (lapack_trsyl.c, LAPACK's dtrsyl/ztrsyl): C := X with
 * op(A) X + isgn X op(B) = scale C; ta, tb 'N' or the element type's transpose ('T' real,
 * 'C' complex); *info 1 when perturbed eigenvalues were used. OZBLAS_OK, or before
 * anything is changed OZBLAS_ERR_NO_HOST_BLAS or OZBLAS_ERR_ALLOCATION. */
ozblas_status lx_trsyl(oz_lx *x, char ta, char tb, int isgn, int64_t m, int64_t n,
                       const double *A, int64_t lda, const double *B, int64_t ldb, double *C,
                       int64_t ldc, double *scale, int64_t *info);

/* ---- Two-stage reductions (lapack_band.c; docs/design/lapack.md "Two-stage reductions") ----
 * Stage 1 reduces a full matrix to a band of width b with QR panels (the host geqrf) whose
 * block reflectors reach the rest of the matrix through products; stage 2 chases the band
 * down to tridiagonal on the host, keeping every reflector; the back-transformations apply
 * stage 2's reflectors in blocks (lx_hous_apply) and stage 1's as ormqr does. For the
 * singular value drivers the same pieces serve: lx_hh_* for the QR and LQ panels, lx_band for the band on the host, lx_hous for the reflectors of a
 * bulge chase and their blocked application from either side. */

/* 1 when the host larfg and larfx of stage 2 are loaded. */
int lx_band_ready(int cplx);
/* The host larfg: H^H (alpha; x) = (beta; 0), beta real, H = I - tau v v^H, v = (1; x) on
 * return (x: n - 1 elements at v). larfx: C (m x n) := H C (side 'L') or C H ('R'), work:
 * n (side 'L') or m elements (the bidiagonal chase's). Both count their flops into the
 * report. */
void lx_larfg(const oz_lx *x, int64_t n, double *alpha, double *v, double *tau);
void lx_larfx(const oz_lx *x, char side, int64_t m, int64_t n, const double *v,
              const double *tau, double *C, int64_t ldc, double *work);

/* The band width of a two-stage reduction (lapack_model.c): ozblas_lapack_band_width for
 * the run (kind OZBLAS_LAPACK_BAND_EIGEN or _SVD, m x n, ncols as there), at most n - 1. */
int64_t lx_band_width(const oz_lx *x, int kind, int64_t m, int64_t n, int64_t ncols);
/* hseqr's bulges per chain for a sweep of nbm bulges through n rows (ozblas_lapack_hseqr_chain
 * for x's method and executor; lapack_model.c) */
int64_t lx_hseqr_chain(const oz_lx *x, int64_t n, int64_t nbm, int vectors);

/* Stage 1 for a Hermitian (symmetric) A of order n, its lower triangle stored (LAPACK's
 * dsytrd_sy2sb/zhetrd_he2hb, uplo 'L'): A := Q1^H A Q1 with a band of width b (b >= 1; the
 * lower triangle only is read and written), Q1's reflectors below the band: reflector c
 * (0 <= c < n - b) has its unit at row c + b of column c, tau (n - b scalars), so that Q1 C
 * is lx_ormqr('L', 'N', n - b, ..., n - b, A + b, lda, tau, C + b rows) as in dormtr. Every
 * panel is b columns: the host geqrf on the block below the band, then the two-sided update
 * of the trailing matrix as products (a tiled Hermitian product from the lower triangle, a
 * her2k). q: lx_hh_alloc'd with vrows >= n - b. OZBLAS_OK or OZBLAS_ERR_ALLOCATION (its
 * workspace) or OZBLAS_ERR_DEVICE. */
ozblas_status lx_he2hb(oz_lx *x, lx_hh *q, int64_t n, int64_t b, double *A, int64_t lda,
                       double *tau);

/* A band matrix on the host: a lower band of order n and width b, column j at
 * ab + j * ld elements (complex: pairs), its diagonal first: ab[r + j ld] = A(j + r, j),
 * r = 0..2b (the b rows beyond the band hold the bulges of stage 2). With ld - 1 as leading
 * dimension, ab is the matrix itself, A(i, j) = ab[i + j (ld - 1)] for 0 <= i - j <= 2b, so
 * host routines work on its blocks as on a general matrix. */
typedef struct {
    int64_t n, b, ld;
    double *ab;
} lx_band;
ozblas_status lx_band_alloc(const oz_lx *x, lx_band *B, int64_t n, int64_t b);
void lx_band_free(lx_band *B);
/* B := the band (width B->b) of the lower triangle of A, through the seam. */
void lx_band_get(oz_lx *x, lx_band *B, const double *A, int64_t lda);

/* The reflectors of a bulge chase, in the order they were made: sweep s = 0, 1, ...,
 * sweeps - 1 makes reflectors k = 0, 1, ..., reflector (s, k) acting on rows
 * s + off + k b onward, min(b, n - that) of them: H(s, k) = I - tau v v^H with v's first
 * element 1 (stored). Sweep s's vectors are stored one after the other from
 * v + lx_hous_pos(h, s) (n - off - s elements: chunk k at k b), its taus at
 * tau + s kmax (elements; complex: pairs). Q = H(0, 0) H(0, 1) ... H(1, 0) ... */
typedef struct {
    int64_t n, b, off, sweeps, kmax;
    double *v, *tau;
} lx_hous;
ozblas_status lx_hous_alloc(const oz_lx *x, lx_hous *h, int64_t n, int64_t b, int64_t off,
                            int64_t sweeps);
void lx_hous_free(lx_hous *h);
int64_t lx_hous_pos(const lx_hous *h, int64_t s);

/* Stage 2 (LAPACK's dsytrd_sb2st/zhetrd_hb2st, uplo 'L', the sweeps pipelined on the host
 * threads by lx_sweeps, the same bits for any count): the Hermitian
 * band B := Q2^H B Q2 real symmetric tridiagonal, its diagonal in d (n), subdiagonal in e
 * (n - 1); h (n, B->b, off 1, n - 1 sweeps): Q2's reflectors; work: b elements. */
void lx_hb2st(const oz_lx *x, lx_band *B, double *d, double *e, lx_hous *h, double *work);

/* A bulge chase's sweeps on the run's host threads (lapack_band.c): step(x', ctx, s, k,
 * work) does step k of sweep s and returns 0 after the sweep's last; sweep s's step k runs
 * once sweep s - 1 has done its steps 0..k + lag - 1 (all that can touch step k's rows and
 * columns), each step the same arithmetic as in sequential order; x' counts host flops on
 * its own (added to x's); work: wlen elements per thread, work1 those of one. */
typedef int (*lx_step_fn)(const oz_lx *x, void *ctx, int64_t s, int64_t k, double *work);
void lx_sweeps(const oz_lx *x, int64_t sweeps, int64_t lag, lx_step_fn step, void *ctx,
               int64_t wlen, double *work1);

/* The symmetric/Hermitian eigensolvers on an open run (lapack_eigen.c; the generalized
 * problem's drivers reuse them): kind OZ_EV_SYEVD, OZ_EV_SYEV or OZ_EV_SYEVR (oz_internal.h),
 * jobz 'N'/'V', range 'A'/'V'/'I' (syevr; 'A' otherwise), uplo 'U'/'L', all upper case and
 * checked by the caller (oz_ev_check). An order at most x->nb is one call of the host driver,
 * else the two-stage reduction; its products take the normwise target (the run's own is
 * restored after). Z: the eigenvectors (syevd, syev: pass A and lda), n x *m. */
typedef struct {
    int kind;
    char jobz, range, uplo;
    double vl, vu, abstol;
    int64_t il, iu;
} lx_ev;
ozblas_status lx_heev(oz_lx *x, const lx_ev *a, int64_t n, double *A, int64_t lda, int64_t *m,
                      double *w, double *Z, int64_t ldz, int64_t *isuppz, int64_t *info);

/* The two-stage bidiagonal reduction of a tall matrix (lapack_svd.c), shared by the SVD and
 * least-squares drivers: W (m x n, m >= n > 0, the run's memory) := Q^H W P real upper
 * bidiagonal (d: n, bd->e: n - 1), W keeping stage 1's reflectors, Q = Q1 diag(Q2, I),
 * P = P1 P2 (stage 1's QR and LQ panels, stage 2's bulge chase); the band width by
 * lx_band_width for vectors (1: the caller forms singular vectors, 0: it applies Q and P to
 * wdim columns only, none when 0).
 * wdim: the most columns (rows) a later lx_bd_* application acts on besides Q's or P's. Free
 * with lx_bd_free whatever the outcome. */
typedef struct {
    int64_t m, n, b;
    double *W;
    int64_t ldw;
    double *tau; /* tauq (n), taup (n) */
    double *e;
    double *Vh; /* lx_hous_apply's host workspace */
    lx_hous hl, hr;
    lx_hh q;
} lx_bd;
ozblas_status lx_bd_reduce(oz_lx *x, lx_bd *bd, int vectors, int64_t m, int64_t n, double *W,
                           int64_t ldw, int64_t wdim, double *d);
void lx_bd_free(oz_lx *x, lx_bd *bd);
/* As ormbr: C := op(Q) C, C op(Q) (vect 'Q': C has m rows, columns) or op(P) C, C op(P)
 * ('P': n); trans 'N' or the element type's transpose; nother: C's other dimension, at most
 * wdim. lx_bd_stage1 and lx_bd_stage2 apply one stage's factor alone (stage 2's acts on the
 * first n rows or columns). */
void lx_bd_apply(oz_lx *x, lx_bd *bd, char vect, char side, char trans, int64_t nother,
                 double *C, int64_t ldc);
void lx_bd_stage1(oz_lx *x, lx_bd *bd, char vect, char side, char trans, int64_t nother,
                  double *C, int64_t ldc);
void lx_bd_stage2(oz_lx *x, lx_bd *bd, char vect, char side, char trans, int64_t nother,
                  double *C, int64_t ldc);

/* The real symmetric tridiagonal eigenproblem by divide and conquer (lapack_stedc.c,
 * LAPACK's dstedc with compz 'I'): d (n) := the eigenvalues ascending, e (n - 1) destroyed,
 * Q (n x n, host memory, ldq) := the eigenvectors; each merge's eigenvector update is a real
 * product at the normwise target (the run's type and target restored after). *info:
 * dstedc's. OZBLAS_ERR_NO_HOST_BLAS (no host dstedc, dlaed2, dlaed4, dlamrg) or
 * OZBLAS_ERR_ALLOCATION before anything is changed. */
ozblas_status lx_stedc(oz_lx *x, int64_t n, double *d, double *e, double *Q, int64_t ldq,
                       int64_t *info);
/* ZT (n x m, real, host memory, leading dimension n) into Z (complex: zero imaginary parts),
 * through the seam in strips of nb columns: a tridiagonal or bidiagonal solver's vectors. */
void lx_put_real(oz_lx *x, int64_t n, int64_t m, const double *ZT, double *Z, int64_t ldz);
/* Most sweeps of one block of lx_hous_apply. */
enum { LX_HOUS_VB = 128 };
/* C := Q C or Q^H C (side 'L', trans 'N' or 'C'/'T': C has h->n rows, ncols columns) or
 * C Q, C Q^H (side 'R': ncols rows, h->n columns), Q = the product of h's reflectors: blocks
 * of consecutive sweeps at one k, each larfb's products. q: lx_hh_alloc'd with vrows >= h->n
 * and wdim >= ncols; Vh: (h->b + LX_HOUS_VB) LX_HOUS_VB
 * elements and taus: LX_HOUS_VB elements of host memory. */
void lx_hous_apply(oz_lx *x, lx_hh *q, const lx_hous *h, char side, char trans,
                   int64_t ncols, double *C, int64_t ldc, double *Vh, double *taus);

#endif
