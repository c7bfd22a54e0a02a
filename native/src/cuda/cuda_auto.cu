/* Automatic precision's probe on the CUDA executor (both schemes): the CPU executor's
 * procedure (cpu/cpu_ozaki2.c, numerics/ozaki2.h "automatic precision") with the same
 * element functions: statistics, 1-norms, the exact lower-bound products (and accurate
 * scaling's bound product), then per count the driver tries (core/driver_auto.c) the bits
 * on the device and the max bound ratio over C (refined where few entries exceed the
 * target, from lists built on the device once per probe; the normwise target takes neither
 * the lower-bound products nor the refinement). The call itself then runs with
 * that count and the bits the probe set for it (its statistics computed again: a few
 * percent of the call; accurate scaling's bound product not). */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define OZ_CUDA_FILE "cuda_auto.cu"
#include "cuda_ozaki2.cuh"

typedef struct {
    run_ctx rc, *r;      /* r: &rc */
    oz2_dside pa, pb;
    int fast, cx, ushift, norm; /* norm: the normwise target (ozaki2.h), no lower bound */
    int herm;                   /* oz_gemm_call.herm: both sides' bits equal */
    int64_t mpad, k;
    long long *G64;      /* accurate scaling's bound product (NULL when not asked for) */
    double *Glo;         /* combined lower-bound product */
    unsigned long long *N1a, *N1b, *d_ratio; /* d_ratio: the max ratio, then the count above */
    oz2_dtops ta, tb;    /* the refinement's lists (ozaki2.h): carved, built on first use */
    double *pkey;        /* their segments' lists (top_segments), one side at a time */
    int64_t *pidx;
    int *pcnt;
    int tops_built;
    int *hbuf;           /* the sides' host arrays */
    const oz2_table *T;  /* the table the bits were set for last */
} cuda_probe;

/* The segments a side's lists are built from (oz_k_top_part): of OZ_TOP_SEG elements,
 * fewer where their lists would take more than OZ_TOP_PART_BYTES; their length in *seg. */
#define OZ_TOP_SEG 4096
#define OZ_TOP_PART_BYTES ((int64_t)32 << 20)
#define OZ_TOP_PART_ENTRY (OZ2_TOP * 16 + 4) /* a segment's keys, indices and count */
static int64_t top_segments(int64_t cols, int64_t k, int64_t *seg)
{
    int64_t nseg = (k + OZ_TOP_SEG - 1) / OZ_TOP_SEG;
    const int64_t cap = OZ_TOP_PART_BYTES / (OZ_TOP_PART_ENTRY * (cols > 1 ? cols : 1));
    nseg = nseg < cap ? nseg : cap;
    nseg = nseg > 1 ? nseg : 1;
    *seg = (k + nseg - 1) / nseg;
    return nseg;
}

void cuda_probe_close(void *probe)
{
    cuda_probe *a = (cuda_probe *)probe;
    if (a)
        oz_run_free(a, a->r, a->hbuf, NULL);
}

/* An exact small-integer product X_A^T X_B over k-blocks of kblock: into G64 (the bound
 * product) or, G64 NULL, into G (a lower-bound level). */
static ozblas_status small_product(const run_ctx *r, int64_t mpad, int64_t npad, int64_t kpad,
                                   int64_t kblock, const int8_t *XA, const int8_t *XB, int *C32,
                                   long long *G64, double *G)
{
    ozblas_status st = OZBLAS_OK;
    const int64_t plane = mpad * npad;
    for (int64_t l0 = 0; l0 < kpad; l0 += kblock) {
        const int64_t kb = kpad - l0 < kblock ? kpad - l0 : kblock;
        CKB(gemm_i8(r, mpad, npad, kb, XA + l0, kpad, XB + l0, kpad, C32, mpad));
        if (G64)
            oz_launch(grid1(plane, 256), 256, r->st, oz_k_acc64, C32, G64, plane, l0 == 0);
        else
            oz_launch(grid1(plane, 256), 256, r->st, oz_k_acc_lower, C32, G, plane, l0 == 0);
        CKL();
    }
done:
    return st;
}

/* The probe's device workspace besides the sides' and lists' (carved with them). */
typedef struct {
    int *d_bad;
    int8_t *XA, *XB; /* a bound's slices of op(A), op(B) */
    int *C32;
    double *G2;      /* a lower-bound level's product */
} probe_ws;

/* One pass of the carve (cv->base NULL: a dry run that only counts) of the matrices, the
 * sides, the refinement's lists and w. */
static void probe_carve(cuda_probe *au, carve *cv, mat *A, mat *B, int64_t m, int64_t n,
                        int64_t k, int64_t mpad, int64_t npad, int64_t kpad, int fast,
                        probe_ws *w)
{
    const int64_t plane_c = mpad * npad;
    mat_carve(A, cv);
    mat_carve(B, cv);
    oz2_dside *sd[2] = {&au->pa, &au->pb};
    for (int s = 0; s < 2; s++) {
        oz2_dside *p = sd[s];
        p->cols = s ? n : m;
        p->cols_pad = s ? npad : mpad;
        p->amax = (unsigned long long *)carve_take(cv, 8 * p->cols);
        p->S = (unsigned long long *)carve_take(cv, 8 * p->cols);
        p->E = (int *)carve_take(cv, 4 * p->cols);
        p->emin = (int *)carve_take(cv, 4 * p->cols);
        p->bits = (int *)carve_take(cv, 4 * p->cols);
        p->lsb = (int *)carve_take(cv, 4 * p->cols);
    }
    au->N1a = (unsigned long long *)carve_take(cv, 8 * m);
    au->N1b = (unsigned long long *)carve_take(cv, 8 * n);
    au->d_ratio = (unsigned long long *)carve_take(cv, 16);
    oz2_dtops *td[2] = {&au->ta, &au->tb};
    for (int s = 0; s < 2; s++) {
        td[s]->idx = (int64_t *)carve_take(cv, 8 * OZ2_TOP * sd[s]->cols);
        td[s]->cnt = (int *)carve_take(cv, 4 * sd[s]->cols);
        td[s]->rest = (unsigned long long *)carve_take(cv, 8 * sd[s]->cols);
    }
    int64_t seg, parts = top_segments(m, k, &seg) * m, parts_b = top_segments(n, k, &seg) * n;
    parts = parts > parts_b ? parts : parts_b; /* one side at a time */
    au->pkey = (double *)carve_take(cv, 8 * OZ2_TOP * parts);
    au->pidx = (int64_t *)carve_take(cv, 8 * OZ2_TOP * parts);
    au->pcnt = (int *)carve_take(cv, 4 * parts);
    w->d_bad = (int *)carve_take(cv, 4);
    w->XA = (int8_t *)carve_take(cv, (size_t)kpad * mpad);
    w->XB = (int8_t *)carve_take(cv, (size_t)kpad * npad);
    w->C32 = (int *)carve_take(cv, (size_t)plane_c * 4);
    au->G64 = fast ? NULL : (long long *)carve_take(cv, (size_t)plane_c * 8);
    au->Glo = (double *)carve_take(cv, (size_t)plane_c * 8);
    w->G2 = (double *)carve_take(cv, (size_t)plane_c * 8);
}

/* The lower-bound levels (a level more while an entry asks for one: cpu_ozaki2.c
 * lower_product), combined into au->Glo; their count in *levels. */
static ozblas_status lower_levels(cuda_probe *au, const probe_ws *w, int64_t m, int64_t n,
                                  int64_t k, int64_t npad, int64_t kpad, int *levels)
{
    ozblas_status st = OZBLAS_OK;
    run_ctx &r = au->rc;
    oz2_dside &pa = au->pa, &pb = au->pb;
    const int cx = au->cx;
    const int64_t mpad = au->mpad;
    for (int more = !au->norm; more && *levels < OZ2_MAX_LEVELS; (*levels)++) {
        const int p = *levels;
        OZ_DISPATCH(pa.lc, cx, launch_lbound, &pa, k, kpad, oz2_level_shift(p), w->XA, r.st);
        CKL();
        OZ_DISPATCH(pb.lc, cx, launch_lbound, &pb, k, kpad, oz2_level_shift(p), w->XB, r.st);
        CKL();
        st = small_product(&r, mpad, npad, kpad, OZ_KBLOCK, w->XA, w->XB, w->C32, NULL,
                           p ? w->G2 : au->Glo);
        if (st != OZBLAS_OK)
            goto done;
        CK(cudaMemsetAsync(w->d_bad, 0, 4, r.st));
        oz_launch(grid1(m * n, 256), 256, r.st, oz_k_lower_level, au->Glo, p ? w->G2 : NULL, p, m,
                  m * n, mpad, pa.E, pa.emin, au->N1a, pb.E, pb.emin, au->N1b, w->d_bad);
        CKL();
        CK(cudaMemcpyAsync(&more, w->d_bad, 4, cudaMemcpyDeviceToHost, r.st));
        CK(cudaStreamSynchronize(r.st));
    }
    if (!au->norm) {
        oz_launch(grid1(m * n, 256), 256, r.st, oz_k_lower_final, au->Glo, *levels - 1, m, m * n,
                  mpad, pa.E, pa.emin, pb.E, pb.emin);
        CKL();
    }
done:
    return st;
}

ozblas_status cuda_probe_open(const oz_gemm_call *c, const ozblas_options *opt,
                              int bound_product, void **probe, int *bad, int *products)
{
    const int64_t m = c->m, n = c->n, k = c->k;
    const int fast = !bound_product, cx = c->is_complex;
    const int ushift = cx ? 4 : 5;
    const int64_t kpad = (k + 15) / 16 * 16, mpad = (m + 3) / 4 * 4, npad = (n + 3) / 4 * 4;
    cuda_probe *au;
    ozblas_status st = oz_run_new(probe, opt, &au);
    if (!au)
        return st;
    run_ctx &r = au->rc;
    oz2_dside &pa = au->pa, &pb = au->pb;
    mat A, B, C; /* C: only where it lives */
    probe_ws w = {NULL, NULL, NULL, NULL, NULL};
    int levels = 0;
    size_t total;
    char *ws = NULL;
    if (st != OZBLAS_OK)
        return st;
    if (!mats_init(c, r.dev, &A, &B, &C))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    for (int pass = 0; pass < 2; pass++) { /* a dry run of the carve, then the real one */
        carve cv = {pass ? ws : NULL, 0};
        probe_carve(au, &cv, &A, &B, m, n, k, mpad, npad, kpad, fast, &w);
        if (pass)
            break;
        total = cv.off;
        ws = (char *)ws_get(r.s, total);
        au->hbuf = (int *)malloc(sizeof(int) * 3 * (size_t)(m + n) + 16);
        if (!ws || !au->hbuf)
            return OZ_ERR_DEVICE_MEMORY;
    }
    pa.hE = au->hbuf;
    pa.hemin = au->hbuf + m;
    pa.hbits = au->hbuf + 2 * m;
    pb.hE = au->hbuf + 3 * m;
    pb.hemin = au->hbuf + 3 * m + n;
    pb.hbits = au->hbuf + 3 * m + 2 * n;
    au->fast = fast;
    au->herm = c->herm;
    au->norm = opt->target == OZBLAS_TARGET_NORMWISE;
    au->cx = cx;
    au->ushift = ushift;
    au->mpad = mpad;
    au->k = k;

    CK(stage_prepare(&r, &A, &B, NULL));
    CK(mat_upload(&r, &A));
    CK(mat_upload(&r, &B));
    pa.lc = oz_op_view(c, 1, A.dev, A.ld, &pa.v);
    pb.lc = oz_op_view(c, 0, B.dev, B.ld, &pb.v);
    au->ta.v = pa.v;
    au->ta.lc = pa.lc;
    au->tb.v = pb.v;
    au->tb.lc = pb.lc;
    for (int s = 0; s < 2; s++) {
        oz2_dside *p = s ? &pb : &pa;
        CK(cudaMemsetAsync(p->amax, 0, 8 * p->cols, r.st));
        CK(cudaMemsetAsync(p->S, 0, 8 * p->cols, r.st));
        CK(cudaMemsetAsync(s ? au->N1b : au->N1a, 0, 8 * p->cols, r.st));
        oz_launch(grid1(p->cols, 256), 256, r.st, oz_k_fill_int, p->emin, p->cols, INT_MAX);
        CKL();
        oz_launch(grid1(p->cols, 256), 256, r.st, oz_k_fill_int, p->lsb, p->cols, INT_MAX);
        CKL();
    }
    CK(cudaMemsetAsync(w.d_bad, 0, 4, r.st));
    OZ_DISPATCH(pa.lc, cx, launch_stats, &pa, k, w.d_bad, r.st);
    CKL();
    OZ_DISPATCH(pb.lc, cx, launch_stats, &pb, k, w.d_bad, r.st);
    CKL();
    CK(cudaMemcpyAsync(bad, w.d_bad, 4, cudaMemcpyDeviceToHost, r.st));
    CK(cudaStreamSynchronize(r.st));
    if (*bad)
        goto done;
    oz_launch(grid1(m, 256), 256, r.st, oz_k_exponents, pa.amax, pa.E, m);
    CKL();
    oz_launch(grid1(n, 256), 256, r.st, oz_k_exponents, pb.amax, pb.E, n);
    CKL();
    OZ_DISPATCH(pa.lc, cx, launch_sumsq, &pa, k, r.st);
    CKL();
    OZ_DISPATCH(pb.lc, cx, launch_sumsq, &pb, k, r.st);
    CKL();
    OZ_DISPATCH(pa.lc, cx, launch_norm1, &pa, k, au->N1a, r.st);
    CKL();
    OZ_DISPATCH(pb.lc, cx, launch_norm1, &pb, k, au->N1b, r.st);
    CKL();
    /* accurate scaling's bound product, then the lower-bound levels (a level more while an
     * entry asks for one: cpu_ozaki2.c lower_product) */
    if (!fast) {
        OZ_DISPATCH(pa.lc, cx, launch_ubound, &pa, k, kpad, ushift, w.XA, r.st);
        CKL();
        OZ_DISPATCH(pb.lc, cx, launch_ubound, &pb, k, kpad, ushift, w.XB, r.st);
        CKL();
        st = small_product(&r, mpad, npad, kpad, OZ_KBLOCK_BOUND, w.XA, w.XB, w.C32, au->G64, NULL);
        if (st != OZBLAS_OK)
            goto done;
    }
    st = lower_levels(au, &w, m, n, k, npad, kpad, &levels);
    if (st != OZBLAS_OK)
        goto done;
    CK(cudaMemcpyAsync(pa.hE, pa.E, 4 * m, cudaMemcpyDeviceToHost, r.st));
    CK(cudaMemcpyAsync(pa.hemin, pa.emin, 4 * m, cudaMemcpyDeviceToHost, r.st));
    CK(cudaMemcpyAsync(pb.hE, pb.E, 4 * n, cudaMemcpyDeviceToHost, r.st));
    CK(cudaMemcpyAsync(pb.hemin, pb.emin, 4 * n, cudaMemcpyDeviceToHost, r.st));
    CK(cudaStreamSynchronize(r.st));
    *products = levels; /* the bound product is the call's (it takes the bits it gave) */
done:
    return st;
}

/* Ozaki II: the bits for T on the device, then on the host for the driver. */
ozblas_status cuda_probe_bits(void *probe, const oz2_table *T)
{
    cuda_probe *a = (cuda_probe *)probe;
    const run_ctx *rr = a->r;
    oz2_dside *pa = &a->pa, *pb = &a->pb;
    const int64_t m = pa->cols, n = pb->cols;
    ozblas_status st = OZBLAS_OK;
    oz_launch(grid1(n, 256), 256, rr->st, oz_k_bits_fast, pb->S, pb->bits, n,
              T->budget - T->budget / 2);
    CKL();
    if (a->fast) {
        oz_launch(grid1(m, 256), 256, rr->st, oz_k_bits_fast, pa->S, pa->bits, m, T->budget / 2);
        CKL();
    } else {
        const int64_t chunk = 1024;
        dim3 grow_grid((unsigned)grid1(m, 128), (unsigned)((n + chunk - 1) / chunk));
        oz_launch(grid1(m, 256), 256, rr->st, oz_k_fill_int, pa->bits, m, OZ2_MAX_BITS);
        CKL();
        oz_launch(grow_grid, 128, rr->st, oz_k_bits_row<long long>, a->G64, a->mpad, m, n, chunk,
                  T->budget, a->ushift, pa->S, pb->S, pb->bits, pa->bits);
        CKL();
        oz_launch(grid1(n, 256), 256, rr->st, oz_k_fill_int, pb->bits, n, OZ2_MAX_BITS);
        CKL();
        oz_launch(grid1(n, 8), blk32x8(), rr->st, oz_k_bits_col<long long>, a->G64, a->mpad, m, n,
                  T->budget, a->ushift, pa->S, pb->S, pa->bits, pb->bits);
        CKL();
    }
    if (a->herm) {
        oz_launch(grid1(m, 256), 256, rr->st, oz_k_bits_herm, pa->bits, pb->bits, m);
        CKL();
    }
    CK(cudaMemcpyAsync(pa->hbits, pa->bits, 4 * m, cudaMemcpyDeviceToHost, rr->st));
    CK(cudaMemcpyAsync(pb->hbits, pb->bits, 4 * n, cudaMemcpyDeviceToHost, rr->st));
    CK(cudaStreamSynchronize(rr->st));
    a->T = T;
done:
    return st;
}

template <bool LC, bool CX>
static void launch_top(const cuda_probe *a, const oz2_dtops *t, int64_t cols, const int *E,
                       const unsigned long long *N1, cudaStream_t st)
{
    int64_t seg, nseg = top_segments(cols, a->k, &seg);
    oz_launch(grid1(cols * nseg, 256), 256, st, oz_k_top_part<LC, CX>, t->v, a->k, cols, seg,
              nseg, a->pkey, a->pidx, a->pcnt);
    oz_launch(grid1(cols, 256), 256, st, oz_k_top_merge<LC, CX>, *t, cols, nseg,
              (const double *)a->pkey, (const int64_t *)a->pidx, (const int *)a->pcnt, E, N1);
}

/* One pass of the max ratio over C (refine: the second, ozaki2.h); *ratio and *over back. */
static ozblas_status ratio_pass(const cuda_probe *a, int beta, int count, int refine,
                                double *ratio, int64_t *over)
{
    const run_ctx *rr = a->r;
    const oz2_dside *pa = &a->pa, *pb = &a->pb;
    const int64_t m = pa->cols, n = pb->cols;
    ozblas_status st = OZBLAS_OK;
    unsigned long long h[2] = {0, 0};
    CK(cudaMemsetAsync(a->d_ratio, 0, 16, rr->st));
    oz_launch(grid1(m * n, 256), 256, rr->st, a->cx ? oz_k_ratio<true> : oz_k_ratio<false>,
              beta, count, a->k, m, m * n, a->mpad, a->Glo, pa->E, pa->emin, pa->lsb, pa->bits,
              a->N1a, pb->E, pb->emin, pb->lsb, pb->bits, a->N1b, a->d_ratio, a->d_ratio + 1,
              refine, a->norm, a->ta, a->tb);
    CKL();
    CK(cudaMemcpyAsync(h, a->d_ratio, 16, cudaMemcpyDeviceToHost, rr->st));
    CK(cudaStreamSynchronize(rr->st));
    memcpy(ratio, &h[0], 8);
    *over = (int64_t)h[1];
done:
    return st;
}

/* The CPU's max_ratio (cpu_ozaki2.c): the first bound, refined where few entries exceed the
 * target, the lists built once per probe when a count first asks for them. */
ozblas_status cuda_probe_ratio(void *probe, int beta, int count, double *ratio)
{
    cuda_probe *a = (cuda_probe *)probe;
    const run_ctx *rr = a->r;
    const int64_t m = a->pa.cols, n = a->pb.cols;
    int64_t over = 0;
    ozblas_status st = ratio_pass(a, beta, count, 0, ratio, &over);
    if (st != OZBLAS_OK || beta || a->norm || !oz2_refine_asked(*ratio, over, m * n))
        return st;
    if (!a->tops_built) {
        OZ_DISPATCH(a->pa.lc, a->cx, launch_top, a, &a->ta, m, a->pa.E, a->N1a, rr->st);
        CKL();
        OZ_DISPATCH(a->pb.lc, a->cx, launch_top, a, &a->tb, n, a->pb.E, a->N1b, rr->st);
        CKL();
        a->tops_built = 1;
    }
    st = ratio_pass(a, beta, count, 1, ratio, &over);
done:
    return st;
}

int cuda_probe_host_bits(void *probe, const oz2_table *T, const int **bits_a,
                         const int **bits_b)
{
    const cuda_probe *p = (const cuda_probe *)probe;
    *bits_a = p->pa.hbits;
    *bits_b = p->pb.hbits;
    return p->T == T;
}

void cuda_probe_sides(void *probe, oz_side *a, oz_side *b)
{
    cuda_probe *p = (cuda_probe *)probe;
    oz2_dside_host(&p->pa, a);
    oz2_dside_host(&p->pb, b);
}
