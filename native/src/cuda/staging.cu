/* Host operands on the CUDA executor, and the tiling that lets a product larger than the
 * device's free memory run on it.
 *
 *   - Copies of host memory go through pinned chunks cached per (thread, device): a host
 *     thread packs the next chunk while the copy engine drains the previous one, on copy
 *     streams of their own (non-blocking, so that they overlap the call's stream even when
 *     that is the legacy default stream). Page-locked caller memory is copied directly.
 *   - A matrix reaches the kernels in place, uploaded whole, or block by block through two
 *     device slots (mat_*); events order each slot's upload, use and reuse.
 *   - The tiling is planned from the free device memory (oz_device_budget).
 *   - Phase times come from events on the call's stream (oz_timeline).
 * What the tiles compute, and why tiling keeps the CPU executor's bits, is in the methods
 * (cuda_native.cu, cuda_auto.cu, cuda_ozaki2.cu, cuda_ozaki1.cu).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define OZ_CUDA_FILE "staging.cu"
#include "cuda_common.cuh"

#define OZ_PIN_CHUNK ((size_t)16 << 20) /* ~0.3 ms of a PCIe 5 copy: fine-grained overlap */
#define OZ_PIN_GRAIN ((size_t)64 << 10)

/* ---- tests only (not in ozblas.h) -------------------------------------------------------------- */

static size_t test_cap; /* 0: none */
static thread_local int64_t last_plan[9];

/* Caps the device memory calls plan with (0: no cap), so that tests reach the tiled paths at
 * small sizes; also limits how much a call may allocate, hence what fits in one tile. */
OZ_TEST_API void oz_cuda_test_cap_workspace(size_t bytes)
{
    __atomic_store_n(&test_cap, bytes, __ATOMIC_SEQ_CST);
}

/* The calling thread's last tiling: mb, nb, kc, nI, nJ, nL, then how A, B and C reached the
 * device (OZ_IN_PLACE 0, OZ_RESIDENT 1, OZ_STREAMED 2); zeros when the last call planned
 * none (it fell back before, or ran on the CPU). */
OZ_TEST_API void oz_cuda_test_last_plan(int64_t out[9])
{
    memcpy(out, last_plan, sizeof last_plan);
}

void oz_plan_record(const oz_tiling *t, const mat *A, const mat *B, const mat *C)
{
    memset(last_plan, 0, sizeof last_plan);
    if (!t)
        return;
    int64_t v[9] = {t->mb, t->nb, t->kc, t->nI, t->nJ, t->nL, A->mode, B->mode, C->mode};
    memcpy(last_plan, v, sizeof v);
}

size_t oz_device_budget(const run_ctx *r)
{
    size_t fr = 0, tot = 0, b;
    if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) {
        (void)cudaGetLastError();
        b = r->s->ws_size;
    } else {
        /* the cached workspace is freed before a larger one is allocated */
        const size_t margin = ((size_t)256 << 20) + tot / 64;
        b = fr + r->s->ws_size;
        b = b > margin ? b - margin : 0;
    }
    size_t cap = __atomic_load_n(&test_cap, __ATOMIC_SEQ_CST);
    return cap && cap < b ? cap : b;
}

/* ---- phase timeline ------------------------------------------------------------------------- */

int tl_init(oz_timeline *t, dev_state *s, int cap)
{
    memset(t, 0, sizeof *t);
    t->label = (int *)malloc(sizeof(int) * (size_t)cap);
    if (!t->label || !events_get(s, cap)) {
        free(t->label);
        t->label = NULL;
        return 0;
    }
    t->ev = s->ev;
    t->cap = cap;
    return 1;
}

static void tl_add(oz_timeline *t)
{
    for (int i = 1; i < t->n; i++)
        if (t->label[i] >= 0)
            t->ms[t->label[i]] += elapsed(t->ev[i - 1], t->ev[i]);
}

cudaError_t tl_mark(oz_timeline *t, int phase, cudaStream_t st)
{
    if (t->n == t->cap) {
        cudaError_t e = cudaEventSynchronize(t->ev[t->n - 1]);
        if (e != cudaSuccess)
            return e;
        tl_add(t);
        cudaEvent_t last = t->ev[t->n - 1]; /* the start of what follows */
        t->ev[t->n - 1] = t->ev[0];
        t->ev[0] = last;
        t->n = 1;
    }
    t->label[t->n] = phase;
    return cudaEventRecord(t->ev[t->n++], st);
}

void tl_finish(oz_timeline *t, ozblas_report *rep)
{
    tl_add(t);
    t->n = 0;
    for (int i = 0; i < 5; i++)
        rep->phase_seconds[i] = 1e-3 * t->ms[i];
}

void tl_free(oz_timeline *t)
{
    free(t->label);
    t->label = NULL;
}

/* ---- staging through pinned memory ---------------------------------------------------------- */

/* The largest single copy of x: a slot, or the whole matrix (0 for NULL). */
static size_t copy_bytes(const mat *x)
{
    if (!x)
        return 0;
    if (x->mode == OZ_STREAMED)
        return x->slot_bytes;
    return x->mode == OZ_RESIDENT ? (size_t)(x->rows * x->cols) * x->es : 0;
}

cudaError_t stage_prepare(run_ctx *r, const mat *A, const mat *B, const mat *C)
{
    dev_state *s = r->s;
    size_t max_block = copy_bytes(A);
    max_block = copy_bytes(B) > max_block ? copy_bytes(B) : max_block;
    max_block = copy_bytes(C) > max_block ? copy_bytes(C) : max_block;
    if (!max_block)
        return cudaSuccess;
    if (!s->up) {
        cudaStream_t a = NULL, b = NULL;
        if (cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking) == cudaSuccess &&
            cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking) == cudaSuccess) {
            s->up = a;
            s->dn = b;
        } else { /* copies then run on the call's stream, without overlap */
            (void)cudaGetLastError();
            if (a)
                cudaStreamDestroy(a);
        }
    }
    r->up = s->up ? s->up : r->st;
    r->dn = s->dn ? s->dn : r->st;
    while (s->nsync < OZ_SYNC_EVENTS) {
        cudaError_t e = cudaEventCreateWithFlags(&s->sync[s->nsync], cudaEventDisableTiming);
        if (e != cudaSuccess)
            return e;
        s->nsync++;
    }
    size_t chunk = (max_block + OZ_PIN_GRAIN - 1) / OZ_PIN_GRAIN * OZ_PIN_GRAIN;
    if (chunk > OZ_PIN_CHUNK)
        chunk = OZ_PIN_CHUNK;
    if (chunk > s->pin_chunk) {
        if (s->pin) { /* no copy of an earlier call is pending: each one waits for its own */
            cudaFreeHost(s->pin);
            s->pin = NULL;
            s->pin_chunk = 0;
        }
        void *p = NULL;
        if (cudaHostAlloc(&p, 4 * chunk, cudaHostAllocDefault) == cudaSuccess) {
            s->pin = (char *)p;
            s->pin_chunk = chunk;
        } else { /* page-locked memory is short: pageable copies instead */
            (void)cudaGetLastError();
        }
    }
    return cudaSuccess;
}

/* A block cut into pieces of at most one pinned chunk: whole columns where one fits, else
 * runs of rows of a single column. */
typedef struct {
    int64_t rows_per, cols_per, nr, n;
} pieces;

static pieces pieces_of(const oz_blk *b, size_t es, size_t chunk)
{
    pieces p;
    if ((size_t)b->rows * es <= chunk) {
        p.rows_per = b->rows;
        p.cols_per = (int64_t)(chunk / ((size_t)b->rows * es));
        if (p.cols_per > b->cols)
            p.cols_per = b->cols;
    } else {
        p.rows_per = (int64_t)(chunk / es);
        p.cols_per = 1;
    }
    p.nr = (b->rows + p.rows_per - 1) / p.rows_per;
    p.n = p.nr * ((b->cols + p.cols_per - 1) / p.cols_per);
    return p;
}

/* Piece i: rows r0.. (nrows), columns c0.. (ncols), relative to the block. */
static void piece_at(const pieces *p, const oz_blk *b, int64_t i, int64_t *r0, int64_t *nrows,
                     int64_t *c0, int64_t *ncols)
{
    *r0 = (i % p->nr) * p->rows_per;
    *c0 = (i / p->nr) * p->cols_per;
    *nrows = b->rows - *r0 < p->rows_per ? b->rows - *r0 : p->rows_per;
    *ncols = b->cols - *c0 < p->cols_per ? b->cols - *c0 : p->cols_per;
}

static const char *host_at(const mat *x, int64_t r, int64_t c)
{
    return (const char *)x->host + ((size_t)r + (size_t)c * (size_t)x->ld_host) * x->es;
}

/* Block b of host matrix x -> dst (device, leading dimension b->rows), on the upload stream.
 * Returns once the caller's memory has been read (the copies may still be running). */
static cudaError_t stage_up(run_ctx *r, const mat *x, const oz_blk *b, double *dst)
{
    dev_state *s = r->s;
    const size_t es = x->es, dp = (size_t)b->rows * es, sp = (size_t)x->ld_host * es;
    if (x->pinned || !s->pin)
        return cudaMemcpy2DAsync(dst, dp, host_at(x, b->r0, b->c0), sp, dp, (size_t)b->cols,
                                 cudaMemcpyHostToDevice, r->up);
    pieces p = pieces_of(b, es, s->pin_chunk);
    for (int64_t i = 0; i < p.n; i++) {
        int64_t r0, nr, c0, nc;
        piece_at(&p, b, i, &r0, &nr, &c0, &nc);
        const int k = s->pin_next;
        s->pin_next ^= 1;
        char *pin = s->pin + (size_t)k * s->pin_chunk;
        const size_t w = (size_t)nr * es;
        cudaError_t e = cudaEventSynchronize(s->sync[k]); /* its previous copy is done */
        if (e != cudaSuccess)
            return e;
        oz_host_copy_2d(pin, w, host_at(x, b->r0 + r0, b->c0 + c0), sp, w, (size_t)nc);
        e = cudaMemcpy2DAsync((char *)dst + ((size_t)r0 + (size_t)c0 * b->rows) * es, dp, pin, w,
                              w, (size_t)nc, cudaMemcpyHostToDevice, r->up);
        if (e == cudaSuccess)
            e = cudaEventRecord(s->sync[k], r->up);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

/* src (device, leading dimension sld) -> block b of host matrix x, on the download stream
 * (which already waits for src's producer). Returns when the caller's memory holds it. */
static cudaError_t stage_down(run_ctx *r, const mat *x, const oz_blk *b, const double *src,
                              int64_t sld)
{
    dev_state *s = r->s;
    const size_t es = x->es, dp = (size_t)x->ld_host * es, sp = (size_t)sld * es;
    char *dst = (char *)host_at(x, b->r0, b->c0);
    if (x->pinned || !s->pin) {
        cudaError_t e = cudaMemcpy2DAsync(dst, dp, src, sp, (size_t)b->rows * es,
                                          (size_t)b->cols, cudaMemcpyDeviceToHost, r->dn);
        return e == cudaSuccess ? cudaStreamSynchronize(r->dn) : e;
    }
    pieces p = pieces_of(b, es, s->pin_chunk);
    cudaError_t e = cudaSuccess;
    /* two pieces in flight: the host unpacks one while the next one is copied */
    for (int64_t i = 0; i < p.n + 2 && e == cudaSuccess; i++) {
        int64_t r0, nr, c0, nc;
        if (i >= 2) { /* piece i - 2 has landed: unpack it */
            piece_at(&p, b, i - 2, &r0, &nr, &c0, &nc);
            const int k = 2 + (int)((i - 2) & 1);
            const size_t w = (size_t)nr * es;
            e = cudaEventSynchronize(s->sync[k]);
            if (e != cudaSuccess)
                break;
            oz_host_copy_2d(dst + ((size_t)r0 + (size_t)c0 * x->ld_host) * es, dp,
                            s->pin + (size_t)k * s->pin_chunk, w, w, (size_t)nc);
        }
        if (i < p.n) {
            piece_at(&p, b, i, &r0, &nr, &c0, &nc);
            const int k = 2 + (int)(i & 1);
            const size_t w = (size_t)nr * es;
            e = cudaMemcpy2DAsync(s->pin + (size_t)k * s->pin_chunk, w,
                                  (const char *)src + ((size_t)r0 + (size_t)c0 * sld) * es, sp,
                                  w, (size_t)nc, cudaMemcpyDeviceToHost, r->dn);
            if (e == cudaSuccess)
                e = cudaEventRecord(s->sync[k], r->dn);
        }
    }
    return e;
}

/* ---- operands ------------------------------------------------------------------------------ */

/* mem_where: cuda_common.cuh */
int mem_where(const void *p, int dev, int *pinned)
{
    cudaPointerAttributes a;
    *pinned = 0;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    if (a.type == cudaMemoryTypeManaged)
        return 1;
    if (a.type == cudaMemoryTypeDevice)
        return a.device == dev ? 1 : -1;
    *pinned = a.type == cudaMemoryTypeHost;
    return 0;
}

int mat_init(mat *x, const double *p, int64_t ld, int64_t rows, int64_t cols, size_t es,
             int dev, int id)
{
    memset(x, 0, sizeof *x);
    x->host = p;
    x->ld_host = ld;
    x->rows = rows;
    x->cols = cols;
    x->es = es;
    x->id = id;
    x->held[0].rows = x->held[1].rows = -1;
    const int w = mem_where(p, dev, &x->pinned);
    if (w < 0)
        return 0;
    x->on_dev = w;
    x->mode = w ? OZ_IN_PLACE : OZ_RESIDENT;
    x->dev = w ? (double *)p : NULL;
    x->ld = w ? ld : rows;
    return 1;
}

int mats_init(const oz_gemm_call *c, int dev, mat *A, mat *B, mat *C)
{
    const size_t es = c->is_complex ? 16 : 8;
    const int64_t ra = c->transa == 'N' ? c->m : c->k, ca = c->transa == 'N' ? c->k : c->m;
    const int64_t rb = c->transb == 'N' ? c->k : c->n, cb = c->transb == 'N' ? c->n : c->k;
    return mat_init(A, c->A, c->lda, ra, ca, es, dev, 0) &&
           mat_init(B, c->B, c->ldb, rb, cb, es, dev, 1) &&
           mat_init(C, c->C, c->ldc, c->m, c->n, c->dd ? 2 * es : es, dev, 2);
}

void mat_stream(mat *x, size_t slot_bytes, int nslots)
{
    if (x->on_dev)
        return;
    x->mode = nslots ? OZ_STREAMED : OZ_RESIDENT;
    x->slot_bytes = slot_bytes;
    x->nslots = nslots;
}

size_t mat_bytes(const mat *x)
{
    if (x->mode == OZ_RESIDENT)
        return align256((size_t)(x->rows * x->cols) * x->es);
    if (x->mode == OZ_STREAMED)
        return (size_t)x->nslots * align256(x->slot_bytes);
    return 0;
}

void mat_carve(mat *x, carve *cv)
{
    if (x->mode == OZ_RESIDENT)
        x->dev = (double *)carve_take(cv, (size_t)(x->rows * x->cols) * x->es);
    else if (x->mode == OZ_STREAMED)
        for (int i = 0; i < x->nslots; i++)
            x->slot[i] = (double *)carve_take(cv, x->slot_bytes);
}

static cudaEvent_t ev_loaded(const run_ctx *r, const mat *x, int slot)
{
    return r->s->sync[4 + 4 * x->id + slot];
}

static cudaEvent_t ev_freed(const run_ctx *r, const mat *x, int slot)
{
    return r->s->sync[4 + 4 * x->id + 2 + slot];
}

cudaError_t mat_upload(run_ctx *r, mat *x)
{
    if (x->mode != OZ_RESIDENT)
        return cudaSuccess;
    oz_blk b = oz_whole(x);
    cudaError_t e = stage_up(r, x, &b, x->dev);
    if (e == cudaSuccess)
        e = cudaEventRecord(ev_loaded(r, x, 0), r->up);
    if (e == cudaSuccess)
        e = cudaStreamWaitEvent(r->st, ev_loaded(r, x, 0), 0);
    return e;
}

static int same_blk(const oz_blk *a, const oz_blk *b)
{
    return a->r0 == b->r0 && a->c0 == b->c0 && a->rows == b->rows && a->cols == b->cols;
}

/* The slot holding b (with its data where load), or -1. */
static int find_slot(const mat *x, const oz_blk *b, int load)
{
    for (int s = 0; s < x->nslots; s++)
        if (same_blk(&x->held[s], b) && (x->has[s] || !load))
            return s;
    return -1;
}

cudaError_t mat_prefetch(run_ctx *r, mat *x, const oz_blk *b, int load)
{
    if (x->mode != OZ_STREAMED || find_slot(x, b, load) >= 0)
        return cudaSuccess;
    const int s = x->nslots == 2 ? 1 - x->cur : 0;
    x->held[s] = *b;
    x->has[s] = load;
    if (!load)
        return cudaSuccess; /* only written, by work queued after the slot's last use */
    /* the slot's last reader must be done before the copy overwrites it */
    cudaError_t e = cudaStreamWaitEvent(r->up, ev_freed(r, x, s), 0);
    if (e == cudaSuccess)
        e = stage_up(r, x, b, x->slot[s]);
    if (e == cudaSuccess)
        e = cudaEventRecord(ev_loaded(r, x, s), r->up);
    if (e != cudaSuccess)
        x->held[s].rows = -1;
    return e;
}

cudaError_t mat_block(run_ctx *r, mat *x, const oz_blk *b, int load, mat_view *v)
{
    if (x->mode != OZ_STREAMED) {
        const size_t w = x->es / 8;
        v->p = x->dev + ((size_t)b->r0 + (size_t)b->c0 * (size_t)x->ld) * w;
        v->ld = x->ld;
        v->slot = 0;
        return cudaSuccess;
    }
    int s = find_slot(x, b, load);
    if (s < 0) {
        cudaError_t e = mat_prefetch(r, x, b, load);
        if (e != cudaSuccess)
            return e;
        s = find_slot(x, b, load);
    }
    x->cur = s;
    v->p = x->slot[s];
    v->ld = b->rows;
    v->slot = s;
    return load ? cudaStreamWaitEvent(r->st, ev_loaded(r, x, s), 0) : cudaSuccess;
}

cudaError_t mat_release(run_ctx *r, mat *x, const mat_view *v)
{
    return x->mode == OZ_STREAMED ? cudaEventRecord(ev_freed(r, x, v->slot), r->st)
                                  : cudaSuccess;
}

cudaError_t mat_store(run_ctx *r, mat *x, const mat_view *v, const oz_blk *b)
{
    if (x->mode != OZ_STREAMED)
        return cudaSuccess;
    cudaError_t e = cudaStreamWaitEvent(r->dn, ev_freed(r, x, v->slot), 0);
    return e == cudaSuccess ? stage_down(r, x, b, v->p, v->ld) : e;
}

/* ---- tiling ---------------------------------------------------------------------------------- */

oz_blk oz_side_blk(const oz_gemm_call *c, int is_a, int64_t q0, int64_t qc, int64_t l0,
                   int64_t lc)
{
    const char tr = is_a ? c->transa : c->transb;
    const int l_rows = is_a ? tr != 'N' : tr == 'N'; /* l runs along the stored rows */
    oz_blk b;
    if (l_rows) {
        b.r0 = l0;
        b.rows = lc;
        b.c0 = q0;
        b.cols = qc;
    } else {
        b.r0 = q0;
        b.rows = qc;
        b.c0 = l0;
        b.cols = lc;
    }
    return b;
}

#define OZ_OVERLAP_TILES 4     /* column tiles of a host C that fits whole: copies overlap */
#define OZ_OVERLAP_COLS 1024   /* ... each at least this wide (products stay efficient) */
#define OZ_OVERLAP_BYTES ((size_t)32 << 20) /* ... for a C at least this large */

static void tiling_set(oz_tiling *t, int64_t m, int64_t n, int64_t k)
{
    t->mb = t->mb < m ? t->mb : m;
    t->nb = t->nb < n ? t->nb : n;
    t->kc = t->kc < k ? t->kc : k;
    t->nI = (m + t->mb - 1) / t->mb;
    t->nJ = (n + t->nb - 1) / t->nb;
    t->nL = (k + t->kc - 1) / t->kc;
}

/* Shrinks the tile until it fits: the longer side first, down to 256, then k (when allowed)
 * down to 1024, then the sides down to 16, then k down to 64. 0 when nothing fits. */
static int shrink(oz_tiling *t, int64_t m, int64_t n, int64_t k, int split_k, size_t budget,
                  oz_tile_bytes f, const void *ctx)
{
    static const int64_t floors[4][2] = {{256, INT64_MAX}, {256, 1024}, {16, 1024}, {16, 64}};
    for (int st = 0; st < 4; st++) {
        const int64_t tf = floors[st][0], kf = split_k ? floors[st][1] : INT64_MAX;
        for (;;) {
            if (f(t, ctx) <= budget)
                return 1;
            if (t->nb >= t->mb && t->nb > tf)
                t->nb = oz_up4((t->nb + 1) / 2);
            else if (t->mb > tf)
                t->mb = oz_up4((t->mb + 1) / 2);
            else if (t->nb > tf)
                t->nb = oz_up4((t->nb + 1) / 2);
            else if (t->kc > kf)
                t->kc = oz_up16((t->kc + 1) / 2);
            else
                break;
            tiling_set(t, m, n, k);
        }
    }
    return 0;
}

int oz_plan_tiles(int64_t m, int64_t n, int64_t k, int host_c, int split_k, size_t c_bytes,
                  size_t budget, oz_tile_bytes f, const void *ctx, oz_tiling *t)
{
    oz_tiling one = {m, n, k, 1, 1, 1, 1};
    if (f(&one, ctx) <= budget) {
        *t = one;
        if (host_c && c_bytes >= OZ_OVERLAP_BYTES && n >= 2 * OZ_OVERLAP_COLS) {
            oz_tiling cols = one;
            int64_t nb = oz_up4((n + OZ_OVERLAP_TILES - 1) / OZ_OVERLAP_TILES);
            cols.nb = nb > OZ_OVERLAP_COLS ? nb : OZ_OVERLAP_COLS;
            tiling_set(&cols, m, n, k);
            if (f(&cols, ctx) <= budget)
                *t = cols;
        }
        return 1;
    }
    oz_tiling res = one, str = one;
    str.res = 0;
    const int ok_res = shrink(&res, m, n, k, split_k, budget, f, ctx);
    const int ok_str = shrink(&str, m, n, k, split_k, budget, f, ctx);
    if (!ok_res && !ok_str)
        return 0;
    /* resident operands are copied once; streamed ones once per tile row or column, which
     * pays only for much larger tiles */
    const double v_res = (double)res.mb * res.nb * res.kc, v_str = (double)str.mb * str.nb * str.kc;
    *t = ok_res && (!ok_str || 4 * v_res >= v_str) ? res : str;
    return 1;
}

void *oz_tiled_workspace(run_ctx *r, const oz_gemm_call *c, int split_k, const mat *A,
                         const mat *B, const mat *C, oz_tile_bytes bytes, oz_tile_apply apply,
                         oz_tile_layout layout, void *ctx, const oz_tiling *applied)
{
    size_t budget = oz_device_budget(r);
    char *ws = NULL;
    for (int attempt = 0; attempt < 4 && !ws; attempt++) {
        oz_tiling t;
        if (!oz_plan_tiles(c->m, c->n, c->k, !C->on_dev, split_k, (size_t)(c->m * c->n) * C->es,
                           budget, bytes, ctx, &t))
            return NULL;
        apply(ctx, &t);
        carve cv = {NULL, 0};
        layout(ctx, &cv);
        ws = (char *)ws_get(r->s, cv.off);
        budget = cv.off / 2;
    }
    if (ws) {
        carve cv = {ws, 0};
        layout(ctx, &cv);
        oz_plan_record(applied, A, B, C);
    }
    return ws;
}

void oz_run_free(void *state, run_ctx *r, int *hbuf, oz_timeline *tl)
{
    if (r->s)
        (void)run_sync(r);
    run_end(r);
    free(hbuf);
    if (tl)
        tl_free(tl);
    free(state);
}
