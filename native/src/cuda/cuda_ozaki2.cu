/* Ozaki II's phase kernels on the CUDA executor: the integer products on INT8 tensor cores
 * (gemm_i8), the elementwise steps in the kernels of kernels_ozaki2.cuh.
 *
 * They give the CPU executor's bits (cpu/cpu_ozaki2.c): the same element functions, integer
 * reductions only. The integer products differ only in their k-blocking (65536 here, 1024
 * there, and the k-blocks of a tiling); each block's product is exact in INT32 (65536 * 128
 * * 128 = 2^30) and is reduced to the canonical symmetric residue, so the accumulated residue
 * is the same on both. A product larger than the device memory runs in tiles of C (o2_run
 * below). The driver (core/driver_ozaki2.c) decides the fallbacks between open and products.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define OZ_CUDA_FILE "cuda_ozaki2.cu"
#include "cuda_ozaki2.cuh"

/* One Ozaki II call on the device. C is computed in tiles (oz_plan_tiles: one tile when
 * everything fits) with scalings taken from the whole product, so every tile gives the
 * untiled bits:
 *   - phase 0 runs over all of op(A) and op(B), block by block where they are streamed:
 *     max |x|, smallest exponent, Inf/NaN and the sums of squares are integer max/min/sums
 *     (any blocking gives the same values); accurate scaling's alpha_i = min over all j and
 *     beta_j = min over all i are mins over tiles of G = UA^T UB (atomicMin), G's k-blocks
 *     summed exactly in int64; every fallback is decided before any of C is written;
 *   - a tile's residues use those global E and bits; its k-blocks' products are reduced to
 *     canonical residues and accumulated modulo m_t exactly as the untiled k-blocks are;
 *   - CRT and the update read a tile's rows' and columns' exponents only. */
typedef struct {
    const oz_gemm_call *c;
    const oz2_table *T;
    run_ctx rc, *r; /* r: &rc */
    int fast, cx, np, nr, ushift;
    int herm; /* a Hermitian product in one tile on the complex set: P- = P+^T, one product
                 per modulus (ozaki2.h oz2_products_per_call_modulus) */
    mat A, B, C;
    oz2_dside pa, pb;
    oz_tiling t;
    int multi_g; /* the bound product spans several k-blocks: G summed in int64 */
    int all;     /* every modulus' integer products one batched call, one reduction launch
                    (o2_few_launches) */
    int *d_bad;
    int8_t *RA, *RB, *R;
    int *C32;
    void *W4; /* the engine's work area (FP4: limb planes, cuda_fp4.cu) */
    long long *G64;
    oz_timeline tl;
    unsigned long long *u8; /* the sides' per-row arrays (oz2_dside_place) */
    int *i4;
    int *hbuf; /* i4's host copy */
} o2_run;

/* Operand modes and slot sizes for tiling t. */
static void o2_apply(void *ctx, const oz_tiling *t)
{
    o2_run *o = (o2_run *)ctx;
    const size_t es = o->A.es;
    o->t = *t;
    mat_stream(&o->A, t->res ? 0 : (size_t)(t->mb * t->kc) * es, t->res ? 0 : (t->nI * t->nL > 1 ? 2 : 1));
    mat_stream(&o->B, t->res ? 0 : (size_t)(t->nb * t->kc) * es, t->res ? 0 : (t->nJ * t->nL > 1 ? 2 : 1));
    mat_stream(&o->C, (size_t)(t->mb * t->nb) * o->C.es, t->nI * t->nJ > 1 ? 2 : 1);
    o->multi_g = t->nL > 1 || oz_up16(t->kc) > OZ_KBLOCK_BOUND;
}

/* The workspace, laid out for o->t (cv->base NULL: only the size). */
static void o2_carve(void *ctx, carve *cv)
{
    o2_run *o = (o2_run *)ctx;
    const int64_t mbp = oz_up4(o->t.mb), nbp = oz_up4(o->t.nb), kcp = oz_up16(o->t.kc);
    const int64_t plane_c = mbp * nbp;
    const int N = o->T->n;
    mat_carve(&o->A, cv);
    mat_carve(&o->B, cv);
    mat_carve(&o->C, cv);
    const int64_t rows = o->pa.cols + o->pb.cols;
    o->u8 = (unsigned long long *)carve_take(cv, 16 * (size_t)rows);
    o->i4 = (int *)carve_take(cv, 12 * (size_t)rows);
    oz2_dside_place(&o->pa, o->u8, o->i4, NULL, rows, 0);
    oz2_dside_place(&o->pb, o->u8, o->i4, NULL, rows, o->pa.cols);
    o->d_bad = (int *)carve_take(cv, 4);
    o->RA = (int8_t *)carve_take(cv, (size_t)(N * o->np) * (size_t)(kcp * mbp));
    o->RB = (int8_t *)carve_take(cv, (size_t)(N * o->np) * (size_t)(kcp * nbp));
    o->C32 = (int *)carve_take(cv, (size_t)((o->all ? N : 1) * o->np * plane_c) * 4);
    int nd = 0;
    for (int t = 0; t < N; t++)
        nd = oz_max_int(nd, o->T->digits[t]);
    o->W4 = carve_take(cv, oz_engine_work_bytes(o->T->engine, nd, mbp, nbp, oz_min64(kcp, OZ_KBLOCK)));
    size_t sz_r = (size_t)(N * o->nr) * (size_t)plane_c;
    if (!o->fast && o->multi_g && (size_t)plane_c * 8 > sz_r)
        sz_r = (size_t)plane_c * 8;
    o->R = (int8_t *)carve_take(cv, sz_r);
    o->G64 = (long long *)o->R; /* the bound product's int64 sums, before R is written */
}

/* A product of at most this many rows and columns, one tile and one k-block, has every
 * modulus' INT8 products issued as one strided batched call and reduced by one launch
 * (their INT32 planes held at once): 2N - 2 launches fewer (6N - 2 for ZGEMM), where
 * launches are a visible part of the time. */
#define OZ_FEW_LAUNCHES_N 4096

static int few_off; /* test hook: one product and one reduction launch per modulus always */

/* Tests and benchmarks: 0 turns the one-call path off (1, the default: on). */
OZ_TEST_API void oz_cuda_test_few_launches(int on)
{
    __atomic_store_n(&few_off, !on, __ATOMIC_SEQ_CST);
}

static int o2_few_launches(const o2_run *o)
{
    const oz_tiling *t = &o->t;
    return !__atomic_load_n(&few_off, __ATOMIC_SEQ_CST) && o->T->engine == OZBLAS_ENGINE_INT8 && t->nI * t->nJ * t->nL == 1 &&
           oz_up16(t->kc) <= OZ_KBLOCK && o->c->m <= OZ_FEW_LAUNCHES_N &&
           o->c->n <= OZ_FEW_LAUNCHES_N && o->T->n * o->np > 1;
}

/* The part of side p over packed columns q0..q0+qc, its view at block v. */
static oz2_dside side_part(const oz2_dside *p, const oz_gemm_call *c, int is_a, const mat_view *v,
                      int64_t q0, int64_t qc)
{
    oz2_dside s = *p;
    s.lc = oz_op_view(c, is_a, v->p, v->ld, &s.v);
    s.cols = qc;
    s.cols_pad = oz_up4(qc);
    s.amax += q0;
    s.S += q0;
    s.E += q0;
    s.emin += q0;
    s.bits += q0;
    return s;
}

/* Phase 0 over one side, block by block (one block unless streamed): pass 0 max |x|,
 * smallest exponent and Inf/NaN, pass 1 (E known) the sums of squares. */
static ozblas_status o2_column_pass(o2_run *o, int is_a, int pass)
{
    ozblas_status st = OZBLAS_OK;
    const oz_gemm_call *c = o->c;
    run_ctx *r = o->r;
    mat *X = is_a ? &o->A : &o->B;
    const oz2_dside *p = is_a ? &o->pa : &o->pb;
    const int stream = X->mode == OZ_STREAMED;
    const int64_t cols = p->cols, k = c->k;
    const int64_t qb = stream ? (is_a ? o->t.mb : o->t.nb) : cols, kb = stream ? o->t.kc : k;
    const int64_t nl = (k + kb - 1) / kb, steps = (cols + qb - 1) / qb * nl;
    for (int64_t s = 0; s < steps; s++) {
        const int64_t q0 = s / nl * qb, l0 = s % nl * kb;
        const int64_t qc = oz_min64(qb, cols - q0), lc = oz_min64(kb, k - l0);
        const oz_blk b = oz_side_blk(c, is_a, q0, qc, l0, lc);
        mat_view v;
        CK(mat_block(r, X, &b, 1, &v));
        const oz2_dside sp = side_part(p, c, is_a, &v, q0, qc);
        if (pass == 0)
            OZ_DISPATCH(sp.lc, o->cx, launch_stats, &sp, lc, o->d_bad, r->st);
        else
            OZ_DISPATCH(sp.lc, o->cx, launch_sumsq, &sp, lc, r->st);
        CKL();
        CK(mat_release(r, X, &v));
        if (s + 1 < steps) {
            const int64_t q1 = (s + 1) / nl * qb, l1 = (s + 1) % nl * kb;
            const oz_blk nb = oz_side_blk(c, is_a, q1, oz_min64(qb, cols - q1), l1,
                                          oz_min64(kb, k - l1));
            CK(mat_prefetch(r, X, &nb, 1));
        }
    }
done:
    return st;
}

/* Step s of a sweep over the tiles (I-major, then J, then the k-blocks L). */
typedef struct {
    int64_t I, J, L, i0, mi, j0, nj, l0, lc;
} o2_step;

static o2_step step_at(const oz_tiling *t, const oz_gemm_call *c, int64_t s)
{
    o2_step x;
    x.L = s % t->nL;
    x.J = s / t->nL % t->nJ;
    x.I = s / t->nL / t->nJ;
    x.i0 = x.I * t->mb;
    x.j0 = x.J * t->nb;
    x.l0 = x.L * t->kc;
    x.mi = oz_min64(t->mb, c->m - x.i0);
    x.nj = oz_min64(t->nb, c->n - x.j0);
    x.lc = oz_min64(t->kc, c->k - x.l0);
    return x;
}

/* A step packs op(A)'s block unless it is the one packed last (one k-block, same rows), and
 * op(B)'s unless B has a single block already packed. */
static int needs_a(const oz_tiling *t, const o2_step *x) { return t->nL > 1 || x->J == 0; }
static int needs_b(const oz_tiling *t, int64_t s)
{
    return t->nL > 1 || t->nJ > 1 || s == 0;
}

static oz_blk blk_a(const o2_run *o, const o2_step *x)
{
    return oz_side_blk(o->c, 1, x->i0, x->mi, x->l0, x->lc);
}
static oz_blk blk_b(const o2_run *o, const o2_step *x)
{
    return oz_side_blk(o->c, 0, x->j0, x->nj, x->l0, x->lc);
}

enum { O2_BOUND_ROWS = 0, O2_BOUND_COLS = 1, O2_PRODUCTS = 2 };

/* Accurate scaling on one tile's G (ld mipad): alpha_i over the tile's columns (rows pass)
 * or beta_j over its rows (columns pass). */
static void o2_bits_tile(o2_run *o, int mode, const o2_step *x)
{
    const oz2_table *T = o->T;
    const int64_t mip = oz_up4(x->mi), chunk = 1024;
    const unsigned long long *Sa = o->pa.S + x->i0, *Sb = o->pb.S + x->j0;
    int *ba = o->pa.bits + x->i0, *bb = o->pb.bits + x->j0;
    cudaStream_t st = o->r->st;
    dim3 rows((unsigned)grid1(x->mi, 128), (unsigned)((x->nj + chunk - 1) / chunk));
    if (mode == O2_BOUND_ROWS) {
        if (o->multi_g)
            oz_launch(rows, 128, st, oz_k_bits_row<long long>, (const long long *)o->G64, mip,
                      x->mi, x->nj, chunk, T->budget, o->ushift, Sa, Sb, (const int *)bb, ba);
        else
            oz_launch(rows, 128, st, oz_k_bits_row<int>, (const int *)o->C32, mip, x->mi, x->nj,
                      chunk, T->budget, o->ushift, Sa, Sb, (const int *)bb, ba);
    } else {
        if (o->multi_g)
            oz_launch(grid1(x->nj, 8), blk32x8(), st, oz_k_bits_col<long long>,
                      (const long long *)o->G64, mip, x->mi, x->nj, T->budget, o->ushift, Sa,
                      Sb, (const int *)ba, bb);
        else
            oz_launch(grid1(x->nj, 8), blk32x8(), st, oz_k_bits_col<int>, (const int *)o->C32,
                      mip, x->mi, x->nj, T->budget, o->ushift, Sa, Sb, (const int *)ba, bb);
    }
}

/* P- = P+^T for count planes of a Hermitian product (C32: P+, P- of each modulus). */
static void herm_transpose(const o2_run *o, int64_t mp, int64_t plane_c, int count)
{
    dim3 grid((unsigned)((mp + 31) / 32), (unsigned)((mp + 7) / 8), (unsigned)count);
    oz_launch(grid, blk32x8(), o->r->st, oz_k_herm_transpose, o->C32, mp, plane_c, 2 * plane_c);
}

/* One side's block of step x (is_a: A's rows x.i0.., else B's columns x.j0..; view v) cut
 * into residues (products sweep) or the bound's slices, then released. */
static ozblas_status o2_cut(o2_run *o, int prod, int is_a, mat_view *v, const o2_step *x,
                            int64_t lcp, int64_t plane)
{
    ozblas_status st = OZBLAS_OK;
    run_ctx *r = o->r;
    const int cx = o->cx;
    int8_t *R = is_a ? o->RA : o->RB;
    const oz2_dside sp = is_a ? side_part(&o->pa, o->c, 1, v, x->i0, x->mi)
                              : side_part(&o->pb, o->c, 0, v, x->j0, x->nj);
    if (prod)
        OZ_DISPATCH(sp.lc, cx, launch_residues, &sp, x->lc, lcp, R, plane, o->T, r->st);
    else
        OZ_DISPATCH(sp.lc, cx, launch_ubound, &sp, x->lc, lcp, o->ushift, R, r->st);
    CKL();
    CK(mat_release(r, is_a ? &o->A : &o->B, v));
done:
    return st;
}

/* Step x's blocks of A and B (those it does not share with the previous step) uploaded
 * and cut (o2_cut). */
static ozblas_status o2_step_sides(o2_run *o, int prod, int64_t s, const o2_step *x,
                                   int64_t lcp, int64_t plane_a, int64_t plane_b)
{
    ozblas_status st = OZBLAS_OK;
    run_ctx *r = o->r;
    const int na = needs_a(&o->t, x), nb = needs_b(&o->t, s);
    mat_view va, vb;
    const oz_blk ba = blk_a(o, x), bb = blk_b(o, x);
    if (na)
        CK(mat_block(r, &o->A, &ba, 1, &va));
    if (nb)
        CK(mat_block(r, &o->B, &bb, 1, &vb));
    CK(tl_mark(&o->tl, -1, r->st)); /* the waits for uploads are no phase's */
    if (na && (st = o2_cut(o, prod, 1, &va, x, lcp, plane_a)) != OZBLAS_OK)
        goto done;
    if (nb && (st = o2_cut(o, prod, 0, &vb, x, lcp, plane_b)) != OZBLAS_OK)
        goto done;
    CK(tl_mark(&o->tl, prod ? OZBLAS_PHASE_SPLIT : OZBLAS_PHASE_STATS, r->st));
done:
    return st;
}

/* Step x's integer products, in sub-blocks of kblock exact in INT32: reduced modulo each
 * m_t (products sweep), or accumulated into the bound's G. */
static ozblas_status o2_step_products(o2_run *o, int prod, const o2_step *xp, int64_t mip,
                                      int64_t njp, int64_t lcp, int64_t plane_a,
                                      int64_t plane_b, int64_t plane_c)
{
    ozblas_status st = OZBLAS_OK;
    const oz2_table *T = o->T;
    run_ctx *r = o->r;
    const int N = T->n, np = o->np, cx = o->cx;
    const int64_t kblock = prod ? OZ_KBLOCK : OZ_KBLOCK_BOUND;
    const o2_step x = *xp;
    const int64_t nsub = (lcp + kblock - 1) / kblock;
    const int rounds = !prod ? 1 : o->all ? 0 : N; /* one per modulus, or the bound's */
    if (prod && o->all && o->herm) { /* one k-block: every P+ at once, then P- */
        CKB(gemm_i8_batched(r, mip, njp, lcp, o->RA, lcp, 2 * plane_a, o->RB, lcp,
                            2 * plane_b, o->C32, mip, 2 * plane_c, (int64_t)N));
        herm_transpose(o, mip, plane_c, N);
        CKL();
    } else if (prod && o->all) { /* one k-block: every residue plane's product at once */
        CKB(gemm_i8_batched(r, mip, njp, lcp, o->RA, lcp, plane_a, o->RB, lcp, plane_b,
                            o->C32, mip, plane_c, (int64_t)N * np));
    }
    if (prod && o->all) {
        CK(tl_mark(&o->tl, OZBLAS_PHASE_INT_PRODUCTS, r->st));
        const int64_t groups = plane_c / 4;
        dim3 grid((unsigned)grid1(groups, 256), (unsigned)N);
        if (cx)
            oz_launch(grid, 256, r->st, oz_k_reduce_moduli<true>, (const int *)o->C32,
                      plane_c, groups, o->R, *T);
        else
            oz_launch(grid, 256, r->st, oz_k_reduce_moduli<false>, (const int *)o->C32,
                      plane_c, groups, o->R, *T);
        CKL();
        CK(tl_mark(&o->tl, OZBLAS_PHASE_REDUCTION, r->st));
    }
    for (int tm = 0; tm < rounds; tm++)
        for (int64_t b = 0; b < nsub; b++) {
            const int64_t l0 = b * kblock, kb = oz_min64(kblock, lcp - l0);
            const int first = x.L == 0 && b == 0;
            for (int q = 0; q < (prod ? np : 1); q++) {
                if (q == 1 && o->herm) { /* P- = P+^T */
                    herm_transpose(o, mip, plane_c, 1);
                    CKL();
                    continue;
                }
                CKB(gemm_engine(r, prod ? T->engine : OZBLAS_ENGINE_INT8, T->digits[tm], o->W4,
                                mip, njp, kb, o->RA + (size_t)(tm * np + q) * plane_a + l0, lcp,
                                o->RB + (size_t)(tm * np + q) * plane_b + l0, lcp,
                                o->C32 + (size_t)q * plane_c, mip));
            }
            CK(tl_mark(&o->tl, prod ? OZBLAS_PHASE_INT_PRODUCTS : OZBLAS_PHASE_STATS, r->st));
            if (prod) {
                const int64_t groups = plane_c / 4;
                if (cx)
                    oz_launch(grid1(groups, 256), 256, r->st, oz_k_reduce<true>, (const int *)o->C32,
                              plane_c, groups, o->R + (size_t)tm * plane_c,
                              o->R + (size_t)(N + tm) * plane_c, *T, tm, first);
                else
                    oz_launch(grid1(groups, 256), 256, r->st, oz_k_reduce<false>, (const int *)o->C32,
                              plane_c, groups, o->R + (size_t)tm * plane_c, (int8_t *)NULL,
                              *T, tm, first);
                CKL();
                CK(tl_mark(&o->tl, OZBLAS_PHASE_REDUCTION, r->st));
            } else if (o->multi_g) {
                oz_launch(grid1(plane_c, 256), 256, r->st, oz_k_acc64, (const int *)o->C32,
                          o->G64, plane_c, first);
                CKL();
            }
        }
done:
    return st;
}

/* One sweep over the tiles. Bound sweeps: G = UA^T UB per tile, then the tile's part of
 * the accurate scaling. Products sweep: residues, integer products reduced modulo each m_t
 * (k-blocks accumulated), CRT and the update of the tile of C. While step s runs on the
 * device, the host uploads step s + 1's blocks and downloads the previous tile of C. */

static ozblas_status o2_sweep(o2_run *o, int mode)
{
    ozblas_status st = OZBLAS_OK;
    const oz_gemm_call *c = o->c;
    const oz2_table *T = o->T;
    const oz_tiling *t = &o->t;
    run_ctx *r = o->r;
    const int prod = mode == O2_PRODUCTS, cx = o->cx;
    const int64_t steps = t->nI * t->nJ * t->nL;
    mat_view vc = {NULL, 0, 0}, vprev = {NULL, 0, 0};
    oz_blk bprev = {0, 0, 0, 0};
    int pending = 0;
    if (prod) {
        const o2_step x0 = step_at(t, c, 0);
        const oz_blk b0 = {x0.i0, x0.j0, x0.mi, x0.nj};
        CK(mat_prefetch(r, &o->C, &b0, !c->beta_zero));
    }
    for (int64_t s = 0; s < steps; s++) {
        const o2_step x = step_at(t, c, s);
        const int64_t mip = oz_up4(x.mi), njp = oz_up4(x.nj), lcp = oz_up16(x.lc);
        const int64_t plane_a = lcp * mip, plane_b = lcp * njp, plane_c = mip * njp;
        st = o2_step_sides(o, prod, s, &x, lcp, plane_a, plane_b);
        if (st == OZBLAS_OK)
            st = o2_step_products(o, prod, &x, mip, njp, lcp, plane_a, plane_b, plane_c);
        if (st != OZBLAS_OK)
            goto done;
        if (x.L == t->nL - 1) {
            if (!prod) {
                o2_bits_tile(o, mode, &x);
                CKL();
                CK(tl_mark(&o->tl, OZBLAS_PHASE_STATS, r->st));
            } else {
                const oz_blk bc = {x.i0, x.j0, x.mi, x.nj};
                CK(mat_block(r, &o->C, &bc, !c->beta_zero, &vc));
                CK(tl_mark(&o->tl, -1, r->st));
                oz_launch(crt_grid(x.mi, x.nj), 256, r->st, cx ? oz_k_crt<true> : oz_k_crt<false>,
                          (const int8_t *)o->R, mip, plane_c, x.mi, x.nj,
                          (const int *)o->pa.E + x.i0, (const int *)o->pa.bits + x.i0,
                          (const int *)o->pb.E + x.j0, (const int *)o->pb.bits + x.j0, vc.p,
                          vc.ld, c->alpha[0], c->alpha[1], c->beta[0], c->beta[1], c->beta_zero,
                          c->dd, *T);
                CKL();
                CK(tl_mark(&o->tl, OZBLAS_PHASE_FINAL, r->st));
                CK(mat_release(r, &o->C, &vc));
            }
        }
        /* overlap: queue step s + 1's uploads, then bring the previous tile of C home */
        if (s + 1 < steps) {
            const o2_step y = step_at(t, c, s + 1);
            if (needs_a(t, &y)) {
                const oz_blk b1 = blk_a(o, &y);
                CK(mat_prefetch(r, &o->A, &b1, 1));
            }
            if (needs_b(t, s + 1)) {
                const oz_blk b1 = blk_b(o, &y);
                CK(mat_prefetch(r, &o->B, &b1, 1));
            }
        }
        if (prod && x.L == t->nL - 1) {
            if (pending)
                CK(mat_store(r, &o->C, &vprev, &bprev));
            vprev = vc;
            bprev.r0 = x.i0;
            bprev.c0 = x.j0;
            bprev.rows = x.mi;
            bprev.cols = x.nj;
            pending = 1;
            if (s + 1 < steps) {
                const o2_step y = step_at(t, c, s + 1);
                const oz_blk b1 = {y.i0, y.j0, y.mi, y.nj};
                CK(mat_prefetch(r, &o->C, &b1, !c->beta_zero));
            }
        }
    }
    if (pending)
        CK(mat_store(r, &o->C, &vprev, &bprev));
done:
    return st;
}

/* Accurate scaling: alpha_i from every tile (bits_b holding the fast scaling's beta_j),
 * then beta_j from every tile once alpha is final; with one tile, G is still in place. */
static ozblas_status o2_bounds(o2_run *o)
{
    ozblas_status st = OZBLAS_OK;
    const oz2_table *T = o->T;
    run_ctx *r = o->r;
    const int64_t m = o->c->m, n = o->c->n;
    oz_launch(grid1(m, 256), 256, r->st, oz_k_fill_int, o->pa.bits, m, OZ2_MAX_BITS);
    CKL();
    oz_launch(grid1(n, 256), 256, r->st, oz_k_bits_fast, (const unsigned long long *)o->pb.S,
              o->pb.bits, n, T->budget - T->budget / 2);
    CKL();
    st = o2_sweep(o, O2_BOUND_ROWS);
    if (st != OZBLAS_OK)
        return st;
    oz_launch(grid1(n, 256), 256, r->st, oz_k_fill_int, o->pb.bits, n, OZ2_MAX_BITS);
    CKL();
    if (o->t.nI * o->t.nJ == 1) {
        const o2_step x = step_at(&o->t, o->c, 0);
        o2_bits_tile(o, O2_BOUND_COLS, &x);
        CKL();
    } else {
        st = o2_sweep(o, O2_BOUND_COLS);
    }
done:
    return st;
}

/* Phase 0 over the whole product, then the bits; the driver reads E, emin and bits. */
ozblas_status cuda_o2_open(const oz_gemm_call *c, const ozblas_options *opt, const oz2_table *T,
                           void *probe, void **run, int *bad, oz_side *a, oz_side *b,
                           ozblas_report *rep /* the phase times come with the products */)
{
    /* probe (automatic precision): its workspace is the one this call reuses, so only its
     * host copies of the bits for T are taken over */
    const int64_t m = c->m, n = c->n;
    o2_run *op;
    ozblas_status st = oz_run_new(run, opt, &op);
    if (st != OZBLAS_OK)
        return st;
    o2_run &o = *op;
    run_ctx &r = o.rc;
    o.c = c;
    o.T = T;
    o.fast = opt->scaling == OZBLAS_SCALING_FAST;
    o.cx = c->is_complex;
    o.np = oz2_products_per_modulus(T, o.cx);
    o.nr = o.cx ? 2 : 1;
    o.ushift = o.cx ? 4 : 5;
    o.pa.cols = m;
    o.pb.cols = n;
    if (!mats_init(c, r.dev, &o.A, &o.B, &o.C))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    /* the tiling is planned for T's moduli; a product that fits whole then takes the room
     * for every modulus' INT32 products at once where it may (o2_few_launches) */
    void *ws = oz_tiled_ws<o2_run, o2_apply, o2_carve>(&r, c, 1, &o);
    o.herm = c->herm == OZ_HERM_SAME && o.np == 2 && o.t.nI == 1 && o.t.nJ == 1; /* P+ and P- in one tile */
    if (ws && o2_few_launches(&o)) {
        o.all = 1;
        size_t all = oz_tile_bytes_of<o2_run, o2_apply, o2_carve>(&o.t, &o);
        if (all > oz_device_budget(&r) || !(ws = ws_get(r.s, all))) {
            o.all = 0;
            ws = ws_get(r.s, oz_tile_bytes_of<o2_run, o2_apply, o2_carve>(&o.t, &o));
        }
        if (ws) {
            carve cv = {(char *)ws, 0};
            o2_carve(&o, &cv);
        }
    }
    o.hbuf = (int *)malloc(sizeof(int) * 3 * (size_t)(m + n) + 16);
    if (!ws || !o.hbuf || !tl_init(&o.tl, r.s, 1024))
        return OZ_ERR_DEVICE_MEMORY; /* not even the smallest tiles fit */
    oz2_dside *pa = &o.pa, *pb = &o.pb;
    oz2_dside_place(pa, NULL, NULL, o.hbuf, m + n, 0);
    oz2_dside_place(pb, NULL, NULL, o.hbuf, m + n, m);

    CK(stage_prepare(&r, &o.A, &o.B, &o.C));
    CK(mat_upload(&r, &o.A));

    /* ---- phase 0: statistics over the whole product, then the bits ---- */
    CK(tl_mark(&o.tl, -1, r.st));
    CK(cudaMemsetAsync(o.u8, 0, 16 * (size_t)(m + n), r.st)); /* amax and S, both sides */
    oz_launch(grid1(m + n, 256), 256, r.st, oz_k_fill_int, pa->emin, m + n, INT_MAX);
    CKL();
    CK(cudaMemsetAsync(o.d_bad, 0, 4, r.st));
    st = o2_column_pass(&o, 1, 0);
    if (st != OZBLAS_OK)
        goto done;
    /* a resident op(B) is staged while op(A)'s statistics run */
    CK(tl_mark(&o.tl, OZBLAS_PHASE_STATS, r.st));
    CK(mat_upload(&r, &o.B));
    CK(tl_mark(&o.tl, -1, r.st));
    st = o2_column_pass(&o, 0, 0);
    if (st != OZBLAS_OK)
        goto done;
    CK(tl_mark(&o.tl, OZBLAS_PHASE_STATS, r.st));
    CK(cudaMemcpyAsync(bad, o.d_bad, 4, cudaMemcpyDeviceToHost, r.st));
    CK(cudaStreamSynchronize(r.st));
    if (*bad)
        goto done;
    CK(tl_mark(&o.tl, -1, r.st));
    oz_launch(grid1(m + n, 256), 256, r.st, oz_k_exponents, (const unsigned long long *)pa->amax,
              pa->E, m + n); /* both sides */
    CKL();
    st = o2_column_pass(&o, 1, 1);
    if (st == OZBLAS_OK)
        st = o2_column_pass(&o, 0, 1);
    if (st != OZBLAS_OK)
        goto done;
    /* The statistics (E, S) of the whole product are complete here; the workspace holds up
     * to T->n moduli. A tile of a product spread over several devices takes the whole
     * product's bits instead (cuda_multi.cu). */
    cudaError_t shared_e;
    const int *ha, *hb;
    if (oz_multi_bits(&r, pa->bits, m, pb->bits, n, &shared_e)) {
        CK(shared_e);
    } else if (probe && cuda_probe_host_bits(probe, T, &ha, &hb)) {
        /* the bits the probe set for T: no second bound product */
        CK(cudaMemcpyAsync(pa->bits, ha, 4 * m, cudaMemcpyHostToDevice, r.st));
        CK(cudaMemcpyAsync(pb->bits, hb, 4 * n, cudaMemcpyHostToDevice, r.st));
    } else if (o.fast) {
        oz_launch(grid1(m, 256), 256, r.st, oz_k_bits_fast, (const unsigned long long *)pa->S,
                  pa->bits, m, T->budget / 2);
        CKL();
        oz_launch(grid1(n, 256), 256, r.st, oz_k_bits_fast, (const unsigned long long *)pb->S,
                  pb->bits, n, T->budget - T->budget / 2);
        CKL();
    } else {
        st = o2_bounds(&o);
        if (st != OZBLAS_OK)
            goto done;
    }
    if (c->herm) {
        oz_launch(grid1(m, 256), 256, r.st, oz_k_bits_herm, pa->bits, pb->bits, m);
        CKL();
    }
    CK(tl_mark(&o.tl, OZBLAS_PHASE_STATS, r.st));
    CK(cudaMemcpyAsync(o.hbuf, o.i4, 12 * (size_t)(m + n), cudaMemcpyDeviceToHost, r.st));
    rep->complex_products = o.cx ? (o.herm ? 1 : o.np) : 0;
    CK(cudaStreamSynchronize(r.st));
    oz2_dside_host(pa, a);
    oz2_dside_host(pb, b);
done:
    return st;
}

/* Phases 1 to 4, tile by tile. */
ozblas_status cuda_o2_products(void *run, ozblas_report *rep)
{
    o2_run *o = (o2_run *)run;
    ozblas_status st = o2_sweep(o, O2_PRODUCTS);
    if (st != OZBLAS_OK)
        return st;
    if (run_sync(o->r) != cudaSuccess)
        return OZBLAS_ERR_DEVICE;
    tl_finish(&o->tl, rep);
    return OZBLAS_OK;
}

void cuda_o2_close(void *run)
{
    o2_run *o = (o2_run *)run;
    if (o)
        oz_run_free(o, o->r, o->hbuf, &o->tl);
}
