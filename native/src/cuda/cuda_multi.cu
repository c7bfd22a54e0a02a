/* Several GPUs for one product (OZBLAS_DEVICE=cuda:all, cuda:0,2,3; options.devices): the
 * CUDA executor's kernels, with C cut into one tile per device.
 *
 * Why the bits equal one device's (and the CPU executor's): everything the schemes decide
 * for the whole product is decided once, on the first listed device, by the one-device
 * kernels over the whole call: automatic precision's count (the probe), Inf/NaN, the
 * exponent-range fallbacks and, for Ozaki II, the bits kept per row and column (accurate
 * scaling's alpha_i is a min over every column j, beta_j over every row i). Each tile is
 * then the one-device computation of a sub-call (rows or columns of C, the matching rows of
 * op(A) or columns of op(B), all of k) that takes those bits (oz_multi_bits, read by
 * cuda_ozaki2.cu) instead of computing its own; a tile's statistics (E, emin: per row or
 * column), Ozaki I's slices (per row or column) and every later step depend only on its
 * own rows and columns, so each entry of C goes through the very same operations.
 *
 * Threads: one host thread per device (started on first use, kept: each keeps its cuBLAS
 * handle and workspace on its device, as any thread does); the calling thread runs the
 * first device's tile. Host operands are staged by each device for its own tile. Device
 * operands are not spread (no peer access): such a call runs on the first listed device,
 * as cuda:N does (api.c picks the one-device executor for it), as does method native.
 *
 * The report's phase times are the tiles' summed (device time), plus the whole product's
 * decisions timed on the host.
 *
 * A device that fails before writing any of its tile (no memory, a device error while
 * opening) has its tile redone on a device whose tile succeeded; when every device failed
 * that way, C is untouched and the call reports the first failure (no device memory: the
 * dispatcher then runs it on the CPU executor). A failure after a tile was partly written
 * gives OZBLAS_ERR_DEVICE, as on one device, unless beta = 0 (C is not read: redone). */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OZ_CUDA_FILE "cuda_multi.cu"
#include "cuda_common.cuh"
#include "oz_cuda.h"

#define OZ_MULTI_DEVICES 64  /* options.devices: one bit per device */
#define OZ_MULTI_MIN_SIDE 32 /* rows or columns of a tile at least: thinner ones cost more in
                                launches and copies than another device saves */

/* ---- the devices of a call -------------------------------------------------------------- */

typedef struct {
    int n;
    int dev[OZ_MULTI_DEVICES];
} dev_list;

/* The devices opt names (every usable one for cuda:all), first listed first. 0 when one of
 * them does not exist here (why: which). */
static int devices_of(const ozblas_options *opt, dev_list *L, char *why, size_t len)
{
    const int ndev = oz_cuda_device_count();
    const uint64_t mask = opt->devices;
    L->n = 0;
    for (int d = 0; d < OZ_MULTI_DEVICES; d++) {
        if (!(mask >> d & 1))
            continue;
        if (d >= ndev) {
            if (mask == UINT64_MAX)
                break; /* cuda:all: the devices there are */
            if (why && len)
                snprintf(why, len, "device %d is listed but this machine has %d CUDA device%s",
                         d, ndev, ndev == 1 ? "" : "s");
            return 0;
        }
        L->dev[L->n++] = d;
    }
    if (!L->n) {
        if (why && len)
            snprintf(why, len, "no CUDA device");
        return 0;
    }
    /* the first listed (options.device) runs the whole product's decisions and tile 0 */
    for (int i = 0; i < L->n; i++)
        if (L->dev[i] == opt->device) {
            L->dev[i] = L->dev[0];
            L->dev[0] = opt->device;
        }
    return 1;
}

extern "C" int oz_cuda_devices_check(const ozblas_options *opt, char *why, size_t len)
{
    dev_list L;
    return devices_of(opt, &L, why, len);
}

/* ---- one host thread per device ---------------------------------------------------------- */

typedef struct oz_job {
    void (*fn)(void *);
    void *arg;
    struct oz_job *next;
} oz_job;

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    oz_job *head, *tail;
    int started;
} worker;

static worker workers[OZ_MULTI_DEVICES];
static pthread_mutex_t start_mu = PTHREAD_MUTEX_INITIALIZER;

static void *worker_main(void *p)
{
    worker *w = (worker *)p;
    for (;;) {
        pthread_mutex_lock(&w->mu);
        while (!w->head)
            pthread_cond_wait(&w->cv, &w->mu);
        oz_job *j = w->head;
        w->head = j->next;
        if (!w->head)
            w->tail = NULL;
        pthread_mutex_unlock(&w->mu);
        j->fn(j->arg);
    }
    return NULL;
}

/* Queues j on device dev's thread (started on first use, with every signal blocked: the
 * program's signals are not ours to take); 0 when no thread can be started. */
static int submit(int dev, oz_job *j)
{
    worker *w = &workers[dev];
    pthread_mutex_lock(&start_mu);
    if (!w->started) {
        pthread_t th;
        pthread_attr_t at;
        sigset_t all, old;
        pthread_mutex_init(&w->mu, NULL);
        pthread_cond_init(&w->cv, NULL);
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        w->started = pthread_create(&th, &at, worker_main, w) == 0;
        pthread_attr_destroy(&at);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    const int ok = w->started;
    pthread_mutex_unlock(&start_mu);
    if (!ok)
        return 0;
    j->next = NULL;
    pthread_mutex_lock(&w->mu);
    if (w->tail)
        w->tail->next = j;
    else
        w->head = j;
    w->tail = j;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return 1;
}

/* ---- tiles ---------------------------------------------------------------------------------- */

typedef struct multi_run multi_run;

typedef struct {
    multi_run *o;
    oz_gemm_call c;     /* the tile's sub-call */
    ozblas_options opt; /* on its device */
    int64_t q0;         /* its first row (rows split) or column of C */
    ozblas_status st;
    int touched;        /* its C may be partly written */
    ozblas_report rep;  /* its phase times */
    oz_job job;
} part;

struct multi_run {
    const oz_gemm_call *c;
    ozblas_options opt;
    dev_list L;
    int cols; /* C split into column tiles (else row tiles) */
    void (*run)(part *p);
    const oz2_table *T; /* Ozaki II */
    int s, beta, chunk, terms; /* Ozaki I */
    int *hbuf;          /* the whole product's sides, copied */
    oz_side a, b;
    pthread_mutex_t mu; /* the tiles still running */
    pthread_cond_t cv;
    int pending;
};

/* The sub-call of rows (cols 0) or columns q0..q0+qn of C. */
static oz_gemm_call sub_call(const oz_gemm_call *c, int cols, int64_t q0, int64_t qn)
{
    oz_gemm_call s = *c;
    s.herm = 0; /* a part is not Hermitian; it takes the whole product's (equal) bits */
    const int64_t w = c->is_complex ? 2 : 1; /* doubles per element */
    if (cols) {
        s.n = qn;
        s.B = c->B + (c->transb == 'N' ? q0 * c->ldb : q0) * w;
        s.C = c->C + q0 * c->ldc * w * (c->dd ? 2 : 1);
    } else {
        s.m = qn;
        s.A = c->A + (c->transa == 'N' ? q0 : q0 * c->lda) * w;
        s.C = c->C + q0 * w * (c->dd ? 2 : 1);
    }
    return s;
}

static ozblas_options on_device(const ozblas_options *opt, int dev)
{
    ozblas_options o = *opt;
    o.device = dev;
    o.devices = 0;
    return o;
}

/* The bits of the tile the calling thread is computing (cuda_ozaki2.cu asks): the whole
 * product's, at its rows and columns; NULL outside a tile. */
static thread_local const int *share_a, *share_b;

int oz_multi_bits(run_ctx *r, int *bits_a, int64_t m, int *bits_b, int64_t n, cudaError_t *e)
{
    if (!share_a)
        return 0;
    *e = cudaMemcpyAsync(bits_a, share_a, 4 * (size_t)m, cudaMemcpyHostToDevice, r->st);
    if (*e == cudaSuccess)
        *e = cudaMemcpyAsync(bits_b, share_b, 4 * (size_t)n, cudaMemcpyHostToDevice, r->st);
    return 1;
}

static void part_done(void *arg)
{
    part *p = (part *)arg;
    multi_run *o = p->o;
    p->o->run(p);
    pthread_mutex_lock(&o->mu);
    if (--o->pending == 0)
        pthread_cond_signal(&o->cv);
    pthread_mutex_unlock(&o->mu);
}

/* Every tile on its device, then the failed ones again on a device that succeeded (see the
 * top of the file); the phase times and the devices used go into rep. */
static ozblas_status run_tiles(multi_run *o, ozblas_report *rep)
{
    const oz_gemm_call *c = o->c;
    o->cols = c->n >= c->m;
    const int64_t len = o->cols ? c->n : c->m;
    int64_t np = len / OZ_MULTI_MIN_SIDE;
    np = np < 1 ? 1 : np > o->L.n ? o->L.n : np;
    part *P = (part *)calloc((size_t)np, sizeof(part));
    if (!P)
        return OZBLAS_ERR_ALLOCATION;
    pthread_mutex_init(&o->mu, NULL);
    pthread_cond_init(&o->cv, NULL);
    o->pending = (int)np;
    for (int64_t i = 0; i < np; i++) {
        part *p = &P[i];
        const int64_t q0 = len * i / np, q1 = len * (i + 1) / np;
        p->o = o;
        p->q0 = q0;
        p->c = sub_call(c, o->cols, q0, q1 - q0);
        p->opt = on_device(&o->opt, o->L.dev[i]);
        p->job.fn = part_done;
        p->job.arg = p;
    }
    for (int64_t i = 1; i < np; i++)
        if (!submit(o->L.dev[i], &P[i].job))
            part_done(&P[i]); /* no thread: this one runs it */
    part_done(&P[0]);
    pthread_mutex_lock(&o->mu);
    while (o->pending)
        pthread_cond_wait(&o->cv, &o->mu);
    pthread_mutex_unlock(&o->mu);
    pthread_cond_destroy(&o->cv);
    pthread_mutex_destroy(&o->mu);

    int good = -1; /* a device whose tile succeeded */
    for (int64_t i = 0; i < np && good < 0; i++)
        if (P[i].st == OZBLAS_OK)
            good = P[i].opt.device;
    ozblas_status st = OZBLAS_OK;
    for (int64_t i = 0; i < np; i++) {
        part *p = &P[i];
        if (p->st != OZBLAS_OK && good >= 0 && (!p->touched || c->beta_zero)) {
            p->opt.device = good;
            memset(&p->rep, 0, sizeof p->rep);
            p->touched = 0;
            o->run(p);
        }
        if (p->st == OZBLAS_OK) {
            rep->devices_used |= 1ULL << p->opt.device;
            for (int k = 0; k < OZBLAS_PHASE_COUNT; k++)
                rep->phase_seconds[k] += p->rep.phase_seconds[k];
        } else if (st == OZBLAS_OK) {
            /* C untouched everywhere (nothing succeeded, nothing written), or not read: the
             * dispatcher may run it elsewhere; otherwise part of C is lost to the error */
            int clean = c->beta_zero;
            if (!clean && good < 0) {
                clean = 1;
                for (int64_t q = 0; q < np; q++)
                    clean = clean && !P[q].touched;
            }
            st = clean ? p->st : OZBLAS_ERR_DEVICE;
        }
    }
    free(P);
    return st;
}

/* ---- the whole product's decisions -------------------------------------------------------- */

/* Copies of the whole product's sides (the one-device run that made them is closed before
 * the tiles run, so that the first device's memory goes to its tile). s: Ozaki I's slices
 * (0: Ozaki II). */
static int keep_sides(multi_run *o, oz_side *a, oz_side *b, int s)
{
    const size_t per = 4 + (size_t)s, total = per * (size_t)(a->n + b->n);
    o->hbuf = (int *)malloc(sizeof(int) * (total ? total : 1));
    if (!o->hbuf)
        return 0;
    int *p = o->hbuf;
    oz_side *in[2] = {a, b}, *out[2] = {&o->a, &o->b};
    for (int i = 0; i < 2; i++) {
        const oz_side *x = in[i];
        const int *src[5] = {x->E, x->emin, x->bits, x->top, x->e};
        const int **dst[5] = {&out[i]->E, &out[i]->emin, &out[i]->bits, &out[i]->top,
                              &out[i]->e};
        out[i]->n = x->n;
        for (int f = 0; f < 5; f++) {
            const size_t cnt = (size_t)x->n * (f == 4 ? (size_t)s : 1);
            *dst[f] = NULL;
            if (!src[f])
                continue;
            memcpy(p, src[f], sizeof(int) * cnt);
            *dst[f] = p;
            p += cnt;
        }
        *in[i] = *out[i];
    }
    return 1;
}

template <typename F>
static ozblas_status multi_open(const oz_gemm_call *c, const ozblas_options *opt, void **run,
                                F open_whole)
{
    multi_run *o = (multi_run *)calloc(1, sizeof(multi_run));
    *run = o;
    if (!o)
        return OZBLAS_ERR_ALLOCATION;
    o->c = c;
    o->opt = *opt;
    if (!devices_of(opt, &o->L, NULL, 0))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    const ozblas_options first = on_device(opt, o->L.dev[0]);
    return open_whole(&first);
}

static void multi_close(void *run)
{
    multi_run *o = (multi_run *)run;
    if (o)
        free(o->hbuf);
    free(o);
}

/* ---- the kernels: the probe on the first device, the schemes in tiles ----------------------- */

/* opt on the first device it lists; 0 when a listed one is missing. */
static int first_of(const ozblas_options *opt, ozblas_options *first)
{
    dev_list L;
    if (!devices_of(opt, &L, NULL, 0))
        return 0;
    *first = on_device(opt, L.dev[0]);
    return 1;
}

static ozblas_status m_probe_open(const oz_gemm_call *c, const ozblas_options *opt,
                                  int bound_product, void **probe, int *bad, int *products)
{
    ozblas_options first;
    *probe = NULL;
    if (!first_of(opt, &first))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    return cuda_probe_open(c, &first, bound_product, probe, bad, products);
}

static void o2_tile(part *p)
{
    multi_run *o = p->o;
    void *sub = NULL;
    int bad = 0;
    oz_side a, b;
    share_a = o->a.bits + (o->cols ? 0 : p->q0);
    share_b = o->b.bits + (o->cols ? p->q0 : 0);
    p->st = cuda_o2_open(&p->c, &p->opt, o->T, NULL, &sub, &bad, &a, &b, &p->rep);
    share_a = share_b = NULL;
    if (p->st == OZBLAS_OK && bad) /* cannot be: the whole product was checked */
        p->st = OZBLAS_ERR_DEVICE;
    if (p->st == OZBLAS_OK) {
        p->touched = 1;
        p->st = cuda_o2_products(sub, &p->rep);
    }
    if (sub)
        cuda_o2_close(sub);
}

static ozblas_status m_o2_open(const oz_gemm_call *c, const ozblas_options *opt,
                               const oz2_table *T, void *probe, void **run, int *bad, oz_side *a,
                               oz_side *b, ozblas_report *rep)
{
    return multi_open(c, opt, run, [&](const ozblas_options *first) {
        multi_run *o = (multi_run *)*run;
        void *whole = NULL;
        const double t0 = oz_now();
        o->T = T;
        o->run = o2_tile;
        ozblas_status st = cuda_o2_open(c, first, T, probe, &whole, bad, a, b, rep);
        if (st == OZBLAS_OK && !*bad && !keep_sides(o, a, b, 0))
            st = OZBLAS_ERR_ALLOCATION;
        if (whole)
            cuda_o2_close(whole);
        /* its own timeline ends unread (no products): host-timed, uploads included */
        rep->phase_seconds[OZBLAS_PHASE_STATS] += oz_now() - t0;
        return st;
    });
}

static ozblas_status m_o2_products(void *run, ozblas_report *rep)
{
    return run_tiles((multi_run *)run, rep);
}

static void o1_tile(part *p)
{
    multi_run *o = p->o;
    void *sub = NULL;
    int bad = 0, lost = 0;
    oz_side a, b;
    p->st = cuda_o1_open(&p->c, &p->opt, o->s, o->beta, &sub, &bad, &lost, &a, &b, &p->rep);
    if (p->st == OZBLAS_OK && (bad || lost)) /* cannot be: the whole product was checked */
        p->st = OZBLAS_ERR_DEVICE;
    if (p->st == OZBLAS_OK) {
        p->touched = 1;
        p->st = cuda_o1_products(sub, o->chunk, o->terms, &p->rep);
    }
    if (sub)
        cuda_o1_close(sub);
}

static ozblas_status m_o1_open(const oz_gemm_call *c, const ozblas_options *opt, int s, int beta,
                               void **run, int *bad, int *lost, oz_side *a, oz_side *b,
                               ozblas_report *rep)
{
    return multi_open(c, opt, run, [&](const ozblas_options *first) {
        multi_run *o = (multi_run *)*run;
        void *whole = NULL;
        const double t0 = oz_now();
        o->s = s;
        o->beta = beta;
        o->run = o1_tile;
        ozblas_status st = cuda_o1_open(c, first, s, beta, &whole, bad, lost, a, b, rep);
        if (st == OZBLAS_OK && !*bad && !keep_sides(o, a, b, s))
            st = OZBLAS_ERR_ALLOCATION;
        if (whole)
            cuda_o1_close(whole);
        rep->phase_seconds[OZBLAS_PHASE_SPLIT] += oz_now() - t0; /* as in m_o2_open */
        return st;
    });
}

static ozblas_status m_o1_products(void *run, int chunk, int terms, ozblas_report *rep)
{
    multi_run *o = (multi_run *)run;
    o->chunk = chunk;
    o->terms = terms;
    return run_tiles(o, rep);
}

/* method native: on the first listed device (see the top of the file) */
static ozblas_status m_native(const oz_gemm_call *c, const ozblas_options *opt)
{
    ozblas_options first;
    if (!first_of(opt, &first))
        return OZBLAS_ERR_INVALID_ARGUMENT;
    return oz_cuda_executor()->native(c, &first);
}

static oz_kernels make_multi_kernels(void)
{
    oz_kernels k = OZ_KERNEL_TABLE(cuda_, oz_cuda_executor()->kernels->engines);
    k.probe_open = m_probe_open;
    k.o2_open = m_o2_open;
    k.o2_products = m_o2_products;
    k.o2_close = multi_close;
    k.o1_open = m_o1_open;
    k.o1_products = m_o1_products;
    k.o1_close = multi_close;
    return k;
}

static oz_executor make_multi_executor(void)
{
    static const oz_kernels kernels = make_multi_kernels();
    oz_executor e = *oz_cuda_executor();
    e.native = m_native;
    e.kernels = &kernels;
    e.batch = NULL; /* a device list spreads each product of a batch over its devices */
    return e;
}

extern "C" const oz_executor *oz_cuda_multi_executor(void)
{
    static const oz_executor e = make_multi_executor(); /* thread-safe static init (C++11) */
    return &e;
}
