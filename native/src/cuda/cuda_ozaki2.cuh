/* What the CUDA executor's Ozaki II kernels (cuda_ozaki2.cu) and automatic precision's
 * probe (cuda_auto.cu) share: the per-side device arrays and the launches of the column
 * kernels of kernels_ozaki2.cuh. */
#ifndef OZ_CUDA_OZAKI2_CUH
#define OZ_CUDA_OZAKI2_CUH

#include "cuda_common.cuh"
#include "kernels_ozaki2.cuh"

#define OZ_KBLOCK_BOUND 262144 /* bound product: 262144 * 64 * 64 = 2^30 < 2^31 */

/* Per packed column of op(A) or op(B): device arrays and their host copies. */
typedef struct {
    int64_t cols, cols_pad; /* m or n; rounded up to a multiple of 4 for the products */
    unsigned long long *amax, *S;
    int *E, *emin, *bits;
    int *lsb;                /* automatic precision's probe only (NULL in a call) */
    int *hE, *hemin, *hbits; /* host */
    oz_opv v;
    int lc; /* l-contiguous layout */
} oz2_dside;

/* Grid of the column reductions (stats, sums of squares): 8 or 32 columns a block, k split
 * into chunks along y (at most 65535 of them). */
template <bool LC>
static dim3 column_grid(const oz2_dside *p, int64_t k, int64_t *chunk)
{
    *chunk = LC ? 2048 : 512;
    int64_t ny = (k + *chunk - 1) / *chunk;
    if (ny > 65535) {
        *chunk = (k + 65534) / 65535;
        ny = (k + *chunk - 1) / *chunk;
    }
    return dim3((unsigned)((p->cols + (LC ? 7 : 31)) / (LC ? 8 : 32)), (unsigned)ny);
}

template <bool LC, bool CX>
static void launch_stats(const oz2_dside *p, int64_t k, int *bad, cudaStream_t st)
{
    int64_t chunk;
    dim3 grid = column_grid<LC>(p, k, &chunk);
    oz_launch(grid, blk32x8(), st, oz_k_stats<LC, CX>, p->v, k, p->cols, chunk, p->amax, p->emin,
              p->lsb, bad);
}

template <bool LC, bool CX>
static void launch_sumsq(const oz2_dside *p, int64_t k, cudaStream_t st)
{
    int64_t chunk;
    dim3 grid = column_grid<LC>(p, k, &chunk);
    oz_launch(grid, blk32x8(), st, oz_k_sumsq<LC, CX, false>, p->v, k, p->cols, chunk, p->E, p->S);
}

template <bool LC, bool CX>
static void launch_norm1(const oz2_dside *p, int64_t k, unsigned long long *N1, cudaStream_t st)
{
    int64_t chunk;
    dim3 grid = column_grid<LC>(p, k, &chunk);
    oz_launch(grid, blk32x8(), st, oz_k_sumsq<LC, CX, true>, p->v, k, p->cols, chunk, p->E, N1);
}

template <bool LC, bool CX, int MODE>
static void launch_pack(const oz2_dside *p, int64_t k, int64_t kpad, int ushift, int8_t *out,
                        int64_t plane, const oz2_table &T, cudaStream_t st)
{
    int64_t tl = (kpad + 31) / 32, tq = (p->cols_pad + 31) / 32;
    oz_launch((unsigned)(tl * tq), blk32x8(), st, oz_k_pack<LC, CX, MODE>, 
        p->v, k, kpad, p->cols, p->cols_pad, tl, p->E, p->bits, ushift, out, plane, T);
}

/* The bound modes read no table: they get an empty one. */
template <bool LC, bool CX>
static void launch_ubound(const oz2_dside *p, int64_t k, int64_t kpad, int ushift, int8_t *out,
                          cudaStream_t st)
{
    launch_pack<LC, CX, OZ_PACK_UBOUND>(p, k, kpad, ushift, out, 0, oz2_table(), st);
}

template <bool LC, bool CX>
static void launch_lbound(const oz2_dside *p, int64_t k, int64_t kpad, int shift, int8_t *out,
                          cudaStream_t st)
{
    launch_pack<LC, CX, OZ_PACK_LBOUND>(p, k, kpad, shift, out, 0, oz2_table(), st);
}

template <bool LC, bool CX>
static void launch_residues(const oz2_dside *p, int64_t k, int64_t kpad, int8_t *out, int64_t plane,
                            const oz2_table *T, cudaStream_t st)
{
    launch_pack<LC, CX, OZ_PACK_RESIDUE>(p, k, kpad, 0, out, plane, *T, st);
}

/* C32 (m x n, ldc) = A^T B for int8 A (kb x m, lda), B (kb x n, ldb): TN, IMMA. */

/* cuda_auto.cu: the bits automatic precision's probe set last (host copies: the call reuses
 * the probe's workspace); 1 when they were set for T (the count the driver chose). */
int cuda_probe_host_bits(void *probe, const oz2_table *T, const int **bits_a,
                         const int **bits_b);

/* Per-row arrays of several sides (total rows) laid out kind by kind, so that each kind is
 * contiguous over all of them and its initialisation, exponents or host copy is one launch
 * or copy: u8 holds amax then S, i4 holds E, emin then bits (each total rows), h is i4's
 * host copy; the side whose rows start at row off of that total gets its parts (u8, i4 or
 * h NULL: those stay NULL, as in a dry run of the carve). */
static inline void oz2_dside_place(oz2_dside *p, unsigned long long *u8, int *i4, int *h,
                                   int64_t total, int64_t off)
{
    if (u8) {
        p->amax = u8 + off;
        p->S = u8 + total + off;
    }
    if (i4) {
        p->E = i4 + off;
        p->emin = i4 + total + off;
        p->bits = i4 + 2 * total + off;
    }
    if (h) {
        p->hE = h + off;
        p->hemin = h + total + off;
        p->hbits = h + 2 * total + off;
    }
}

/* The host side of a side: E, emin and bits as the driver reads them. */
static inline void oz2_dside_host(const oz2_dside *p, oz_side *s)
{
    memset(s, 0, sizeof *s);
    s->n = p->cols;
    s->E = p->hE;
    s->emin = p->hemin;
    s->bits = p->hbits;
}

#endif
