/* Ozaki II over a batch of products of one shape: the CUDA executor's batch kernels
 * (oz_batch_kernels, core/phase_kernels.h; the driver is core/driver_batch.c).
 *
 * Each matrix of the batch gets the kernels cuda_ozaki2.cu launches for it as a single,
 * untiled call, on its own data: statistics, exponents, sums of squares, the bits (fast,
 * accurate from its own bound product, or the probe's), its residues, the CRT and the
 * update of its C. The values are the single call's, so each C has the single call's bits
 * (and the CPU executor's). What the batch shares is memory and launches:
 *   - one workspace holds every matrix of the batch (as many as fit the device memory;
 *     the driver passes the rest again);
 *   - residue plane p of matrix b is at (p nb + b) plane: the integer products of one
 *     modulus of every matrix are one strided batched INT8 GEMM (gemm_i8_batched; ZGEMM's
 *     three Karatsuba products three of them), and the reduction of one modulus one launch
 *     over all matrices (its INT32 products are adjacent, matrix after matrix);
 *   - the per-row arrays of all matrices are contiguous, so that their initialisation, the
 *     exponents, fast scaling's bits and the host copies are one launch or copy each.
 * Host operands are uploaded whole (resident) and each C comes back as soon as its CRT is
 * done; a batch never tiles (a product that does not fit alone runs as a single call). */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define OZ_CUDA_FILE "cuda_batch.cu"
#include "cuda_ozaki2.cuh"

typedef struct {
    const oz_gemm_call *c;
    mat A, B, C;
    oz2_dside pa, pb;
} b_item;

typedef struct {
    run_ctx rc, *r; /* r: &rc */
    const oz2_table *T;
    int64_t nb;     /* matrices taken */
    b_item *it;
    int fast, cx, np, ushift;
    int64_t m, n, k, mp, npd, kp; /* mp, npd: m, n rounded up to 4; kp: k to 16 */
    int64_t plane_a, plane_b, plane_c;
    /* per-row arrays (oz2_dside_place), side a of every matrix then side b */
    unsigned long long *u8;
    int *i4;
    int *d_bad; /* per matrix */
    int8_t *RA, *RB, *R;
    int *C32;
    int *hbuf; /* host: i4's copy, then the bad flags */
    oz_timeline tl;
} b_run;

/* The workspace of the first nb matrices (cv->base NULL: only the size). */
static void b_carve(b_run *o, int64_t nb, carve *cv)
{
    const int64_t rows = nb * (o->m + o->n), N = o->T->n;
    for (int64_t i = 0; i < nb; i++) {
        mat_carve(&o->it[i].A, cv);
        mat_carve(&o->it[i].B, cv);
        mat_carve(&o->it[i].C, cv);
    }
    o->u8 = (unsigned long long *)carve_take(cv, 16 * (size_t)rows);
    o->i4 = (int *)carve_take(cv, 12 * (size_t)rows);
    o->d_bad = (int *)carve_take(cv, 4 * (size_t)nb);
    o->RA = (int8_t *)carve_take(cv, (size_t)(N * o->np * nb) * (size_t)o->plane_a);
    o->RB = (int8_t *)carve_take(cv, (size_t)(N * o->np * nb) * (size_t)o->plane_b);
    o->C32 = (int *)carve_take(cv, (size_t)(o->np * nb) * (size_t)o->plane_c * 4);
    o->R = (int8_t *)carve_take(cv, (size_t)(N * (o->cx ? 2 : 1) * nb) * (size_t)o->plane_c);
}

static size_t b_bytes(b_run *o, int64_t nb)
{
    carve cv = {NULL, 0};
    b_carve(o, nb, &cv);
    return cv.off;
}

/* Matrix i's sides on the carved arrays (device and host). */
static void b_sides(b_run *o, int64_t i)
{
    b_item *x = &o->it[i];
    const int64_t m = o->m, n = o->n, am = o->nb * m, rows = o->nb * (m + n);
    oz2_dside *sd[2] = {&x->pa, &x->pb};
    for (int s = 0; s < 2; s++) {
        oz2_dside *p = sd[s];
        p->cols = s ? n : m;
        p->cols_pad = s ? o->npd : o->mp;
        oz2_dside_place(p, o->u8, o->i4, o->hbuf, rows, s ? am + i * n : i * m);
        const mat *X = s ? &x->B : &x->A;
        p->lc = oz_op_view(x->c, !s, X->dev, X->ld, &p->v);
    }
}

/* Accurate scaling of the matrices not bad (cuda_ozaki2.cu's o2_bounds on one tile): each
 * bound product G = UA^T UB in one k-block, all of them one batched product. */
static ozblas_status b_bounds(b_run *o, const int *bad)
{
    ozblas_status st = OZBLAS_OK;
    run_ctx *r = o->r;
    const oz2_table *T = o->T;
    const int64_t m = o->m, n = o->n, rows = o->nb * (m + n), chunk = 1024;
    int *bits_a = o->i4 + 2 * rows, *bits_b = bits_a + o->nb * m;
    oz_launch(grid1(o->nb * m, 256), 256, r->st, oz_k_fill_int, bits_a, o->nb * m, OZ2_MAX_BITS);
    CKL();
    oz_launch(grid1(o->nb * n, 256), 256, r->st, oz_k_bits_fast,
              (const unsigned long long *)o->u8 + rows + o->nb * m, bits_b, o->nb * n,
              T->budget - T->budget / 2);
    CKL();
    for (int64_t i = 0; i < o->nb; i++) {
        if (bad[i])
            continue;
        const b_item *x = &o->it[i];
        OZ_DISPATCH(x->pa.lc, o->cx, launch_ubound, &x->pa, o->k, o->kp, o->ushift,
                    o->RA + i * o->plane_a, r->st);
        CKL();
        OZ_DISPATCH(x->pb.lc, o->cx, launch_ubound, &x->pb, o->k, o->kp, o->ushift,
                    o->RB + i * o->plane_b, r->st);
        CKL();
    }
    CKB(gemm_i8_batched(r, o->mp, o->npd, o->kp, o->RA, o->kp, o->plane_a, o->RB, o->kp,
                        o->plane_b, o->C32, o->mp, o->plane_c, o->nb));
    for (int64_t i = 0; i < o->nb; i++) {
        if (bad[i])
            continue;
        const b_item *x = &o->it[i];
        dim3 g((unsigned)grid1(m, 128), (unsigned)((n + chunk - 1) / chunk));
        oz_launch(g, 128, r->st, oz_k_bits_row<int>, (const int *)o->C32 + i * o->plane_c, o->mp,
                  m, n, chunk, T->budget, o->ushift, (const unsigned long long *)x->pa.S,
                  (const unsigned long long *)x->pb.S, (const int *)x->pb.bits, x->pa.bits);
        CKL();
    }
    oz_launch(grid1(o->nb * n, 256), 256, r->st, oz_k_fill_int, bits_b, o->nb * n, OZ2_MAX_BITS);
    CKL();
    for (int64_t i = 0; i < o->nb; i++) {
        if (bad[i])
            continue;
        const b_item *x = &o->it[i];
        oz_launch(grid1(n, 8), blk32x8(), r->st, oz_k_bits_col<int>,
                  (const int *)o->C32 + i * o->plane_c, o->mp, m, n, T->budget, o->ushift,
                  (const unsigned long long *)x->pa.S, (const unsigned long long *)x->pb.S,
                  (const int *)x->pa.bits, x->pb.bits);
        CKL();
    }
done:
    return st;
}

/* The matrices to take: as many as fit the device budget, and an allocation (halved
 * while it fails); 0 when not even one fits. */
static int64_t b_fit(b_run *o, int64_t nb, char **ws)
{
    const size_t budget = oz_device_budget(o->r), one = b_bytes(o, 1);
    if (one > budget)
        return 0;
    int64_t nt = (int64_t)(budget / one) < nb ? (int64_t)(budget / one) : nb;
    for (; nt >= 1; nt /= 2)
        if ((*ws = (char *)ws_get(o->r->s, b_bytes(o, nt))))
            return nt;
    return 0;
}

static ozblas_status cuda_o2b_open(const oz_gemm_call *const *calls, int64_t nb,
                                   const ozblas_options *opt, const oz2_table *T,
                                   const int *const *bits_a, const int *const *bits_b,
                                   void **run, int64_t *taken, int *bad, oz_side *a, oz_side *b)
{
    b_run *op;
    ozblas_status st = oz_run_new(run, opt, &op);
    if (st != OZBLAS_OK)
        return st;
    b_run &o = *op;
    run_ctx &r = o.rc;
    const oz_gemm_call *c = calls[0];
    char *ws = NULL;
    const mat *host[3] = {NULL, NULL, NULL};
    o.T = T;
    o.fast = opt->scaling == OZBLAS_SCALING_FAST;
    o.cx = c->is_complex;
    o.np = oz2_products_per_modulus(T, o.cx);
    o.ushift = o.cx ? 4 : 5;
    o.m = c->m, o.n = c->n, o.k = c->k;
    o.mp = oz_up4(o.m), o.npd = oz_up4(o.n), o.kp = oz_up16(o.k);
    o.plane_a = o.kp * o.mp, o.plane_b = o.kp * o.npd, o.plane_c = o.mp * o.npd;
    if (!bits_a && !o.fast && o.kp > OZ_KBLOCK_BOUND)
        return OZ_ERR_DEVICE_MEMORY; /* a bound product of several k-blocks: alone */
    o.it = (b_item *)calloc((size_t)nb, sizeof *o.it);
    if (!o.it)
        return OZBLAS_ERR_ALLOCATION;
    for (int64_t i = 0; i < nb; i++) {
        b_item *x = &o.it[i];
        x->c = calls[i];
        if (!mats_init(calls[i], r.dev, &x->A, &x->B, &x->C))
            return OZBLAS_ERR_INVALID_ARGUMENT;
        mat_stream(&x->C, (size_t)(o.m * o.n) * x->C.es, 1);
    }
    o.nb = b_fit(&o, nb, &ws);
    if (!o.nb)
        return OZ_ERR_DEVICE_MEMORY;
    *taken = o.nb;
    const int64_t rows = o.nb * (o.m + o.n);
    o.hbuf = (int *)malloc(sizeof(int) * (size_t)(3 * rows + o.nb));
    if (!o.hbuf || !tl_init(&o.tl, r.s, 1024))
        return OZBLAS_ERR_ALLOCATION;
    {
        carve cv = {ws, 0};
        b_carve(&o, o.nb, &cv);
    }
    for (int64_t i = 0; i < o.nb; i++) {
        const mat *X[3] = {&o.it[i].A, &o.it[i].B, &o.it[i].C};
        for (int s = 0; s < 3; s++)
            if (!host[s] && X[s]->mode != OZ_IN_PLACE)
                host[s] = X[s];
        b_sides(&o, i);
    }
    CK(stage_prepare(&r, host[0], host[1], host[2]));
    for (int64_t i = 0; i < o.nb; i++) {
        CK(mat_upload(&r, &o.it[i].A));
        CK(mat_upload(&r, &o.it[i].B));
    }

    /* ---- phase 0: every matrix's statistics, then its bits ---- */
    CK(tl_mark(&o.tl, -1, r.st));
    CK(cudaMemsetAsync(o.u8, 0, 16 * (size_t)rows, r.st)); /* amax and S */
    oz_launch(grid1(rows, 256), 256, r.st, oz_k_fill_int, o.i4 + rows, rows, INT_MAX); /* emin */
    CKL();
    CK(cudaMemsetAsync(o.d_bad, 0, 4 * (size_t)o.nb, r.st));
    for (int64_t i = 0; i < o.nb; i++) {
        const b_item *x = &o.it[i];
        OZ_DISPATCH(x->pa.lc, o.cx, launch_stats, &x->pa, o.k, o.d_bad + i, r.st);
        CKL();
        OZ_DISPATCH(x->pb.lc, o.cx, launch_stats, &x->pb, o.k, o.d_bad + i, r.st);
        CKL();
    }
    CK(cudaMemcpyAsync(o.hbuf + 3 * rows, o.d_bad, 4 * (size_t)o.nb, cudaMemcpyDeviceToHost,
                       r.st));
    CK(cudaStreamSynchronize(r.st));
    CK(tl_mark(&o.tl, OZBLAS_PHASE_STATS, r.st));
    for (int64_t i = 0; i < o.nb; i++)
        bad[i] = o.hbuf[3 * rows + i];
    oz_launch(grid1(rows, 256), 256, r.st, oz_k_exponents, (const unsigned long long *)o.u8,
              o.i4, rows);
    CKL();
    for (int64_t i = 0; i < o.nb; i++) {
        const b_item *x = &o.it[i];
        if (bad[i])
            continue;
        OZ_DISPATCH(x->pa.lc, o.cx, launch_sumsq, &x->pa, o.k, r.st);
        CKL();
        OZ_DISPATCH(x->pb.lc, o.cx, launch_sumsq, &x->pb, o.k, r.st);
        CKL();
    }
    if (bits_a) { /* the probe's, for T */
        for (int64_t i = 0; i < o.nb; i++) {
            if (bad[i])
                continue;
            CK(cudaMemcpyAsync(o.it[i].pa.bits, bits_a[i], 4 * (size_t)o.m,
                               cudaMemcpyHostToDevice, r.st));
            CK(cudaMemcpyAsync(o.it[i].pb.bits, bits_b[i], 4 * (size_t)o.n,
                               cudaMemcpyHostToDevice, r.st));
        }
    } else if (o.fast) {
        const int64_t am = o.nb * o.m;
        oz_launch(grid1(am, 256), 256, r.st, oz_k_bits_fast,
                  (const unsigned long long *)o.u8 + rows, o.i4 + 2 * rows, am, T->budget / 2);
        CKL();
        oz_launch(grid1(rows - am, 256), 256, r.st, oz_k_bits_fast,
                  (const unsigned long long *)o.u8 + rows + am, o.i4 + 2 * rows + am, rows - am,
                  T->budget - T->budget / 2);
        CKL();
    } else {
        st = b_bounds(&o, bad);
        if (st != OZBLAS_OK)
            goto done;
    }
    CK(tl_mark(&o.tl, OZBLAS_PHASE_STATS, r.st));
    CK(cudaMemcpyAsync(o.hbuf, o.i4, 12 * (size_t)rows, cudaMemcpyDeviceToHost, r.st));
    CK(cudaStreamSynchronize(r.st));
    for (int64_t i = 0; i < o.nb; i++) {
        oz2_dside_host(&o.it[i].pa, &a[i]);
        oz2_dside_host(&o.it[i].pb, &b[i]);
    }
done:
    return st;
}

/* Phases 1 to 4 of the matrices not skipped. */
static ozblas_status cuda_o2b_products(void *run, const unsigned char *skip,
                                       ozblas_report *rep)
{
    b_run *o = (b_run *)run;
    run_ctx *r = o->r;
    const oz2_table *T = o->T;
    const int N = T->n, np = o->np, cx = o->cx;
    const int64_t nb = o->nb, kp = o->kp;
    const int64_t pa = o->plane_a, pb = o->plane_b, pc = o->plane_c;
    ozblas_status st = OZBLAS_OK;
    CK(tl_mark(&o->tl, -1, r->st));
    for (int64_t i = 0; i < nb; i++) {
        const b_item *x = &o->it[i];
        if (skip[i]) { /* its products are computed with the others': zeros */
            for (int64_t p = 0; p < N * np; p++) {
                CK(cudaMemsetAsync(o->RA + (p * nb + i) * pa, 0, (size_t)pa, r->st));
                CK(cudaMemsetAsync(o->RB + (p * nb + i) * pb, 0, (size_t)pb, r->st));
            }
            continue;
        }
        OZ_DISPATCH(x->pa.lc, cx, launch_residues, &x->pa, o->k, kp, o->RA + i * pa, nb * pa, T,
                    r->st);
        CKL();
        OZ_DISPATCH(x->pb.lc, cx, launch_residues, &x->pb, o->k, kp, o->RB + i * pb, nb * pb, T,
                    r->st);
        CKL();
    }
    CK(tl_mark(&o->tl, OZBLAS_PHASE_SPLIT, r->st));
    for (int t = 0; t < N; t++)
        for (int64_t l0 = 0; l0 < kp; l0 += OZ_KBLOCK) {
            const int64_t kb = oz_min64(OZ_KBLOCK, kp - l0);
            for (int q = 0; q < np; q++)
                CKB(gemm_i8_batched(r, o->mp, o->npd, kb, o->RA + (t * np + q) * nb * pa + l0, kp,
                                    pa, o->RB + (t * np + q) * nb * pb + l0, kp, pb,
                                    o->C32 + q * nb * pc, o->mp, pc, nb));
            CK(tl_mark(&o->tl, OZBLAS_PHASE_INT_PRODUCTS, r->st));
            /* every matrix's product of this modulus: one plane of nb pc entries */
            const int64_t groups = nb * pc / 4;
            if (cx)
                oz_launch(grid1(groups, 256), 256, r->st, oz_k_reduce<true>, (const int *)o->C32,
                          nb * pc, groups, o->R + t * nb * pc, o->R + (N + t) * nb * pc, *T, t,
                          l0 == 0);
            else
                oz_launch(grid1(groups, 256), 256, r->st, oz_k_reduce<false>,
                          (const int *)o->C32, nb * pc, groups, o->R + t * nb * pc,
                          (int8_t *)NULL, *T, t, l0 == 0);
            CKL();
            CK(tl_mark(&o->tl, OZBLAS_PHASE_REDUCTION, r->st));
        }
    for (int64_t i = 0; i < nb; i++) {
        b_item *x = &o->it[i];
        const oz_gemm_call *c = x->c;
        if (skip[i])
            continue;
        const oz_blk bc = oz_whole(&x->C);
        mat_view vc;
        CK(mat_block(r, &x->C, &bc, !c->beta_zero, &vc));
        CK(tl_mark(&o->tl, -1, r->st));
        oz_launch(crt_grid(o->m, o->n), 256, r->st, cx ? oz_k_crt<true> : oz_k_crt<false>,
                  (const int8_t *)o->R + i * pc, o->mp, nb * pc, o->m, o->n,
                  (const int *)x->pa.E, (const int *)x->pa.bits, (const int *)x->pb.E,
                  (const int *)x->pb.bits, vc.p, vc.ld, c->alpha[0], c->alpha[1], c->beta[0],
                  c->beta[1], c->beta_zero, c->dd, *T);
        CKL();
        CK(tl_mark(&o->tl, OZBLAS_PHASE_FINAL, r->st));
        CK(mat_release(r, &x->C, &vc));
        CK(mat_store(r, &x->C, &vc, &bc));
    }
    if (run_sync(r) != cudaSuccess)
        return OZBLAS_ERR_DEVICE;
    tl_finish(&o->tl, rep);
done:
    return st;
}

static void cuda_o2b_close(void *run)
{
    b_run *o = (b_run *)run;
    if (!o)
        return;
    free(o->it);
    oz_run_free(o, o->r, o->hbuf, &o->tl);
}

/* The INT8 engine only (the FP4 engine's products run one call at a time). */
extern "C" const oz_batch_kernels cuda_batch_kernels = {cuda_o2b_open, cuda_o2b_products,
                                                        cuda_o2b_close,
                                                        1u << OZBLAS_ENGINE_INT8};
