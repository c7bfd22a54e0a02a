/* The policy's cost model: one pure function (ozblas_policy_estimate) from (m, n, k, real or
 * complex, where the data lives, a profile, the counts assumed) to the candidates with their
 * predicted times; ozblas_policy_decide takes the fastest one method auto may use. Every
 * elementwise pass is modelled as memory-bound: a byte-equivalent count per element divided
 * by a bandwidth. The CUDA executor's counts were fitted to the phase times of the H200 runs
 * in benchmarks/results/ (h200_run3/run4, device arrays; the model is within 25% of every row
 * at n = 8192 and 16384, tests/core/test_policy.py) with the H200's datasheet 4.8 TB/s as the
 * unit; the CPU executor's to its phase times on the development machine, in the unit of its
 * pass bandwidth (cpu_pass_bw, which `ozblas calibrate` measures in these counts). Integer
 * products run at their engine's rate (engine_rate): INT8 or FP4 on the device, SGEMM on the
 * CPU. oz_policy_max_count caps automatic precision's count for method auto where native
 * becomes faster. */
#include <math.h>
#include <string.h>

#include "policy_internal.h"
#include "../numerics/ozaki1.h"

/* ---- pass costs: bytes-equivalent per element, per executor ------------------------------ */
/* Each executor has its own implementation of the passes, so its own counts; a profile's
 * bandwidth (dev_mem_bw, cpu_pass_bw) turns them into seconds. */
typedef struct {
    double kblock;             /* k per exact integer-product block */
    double stats_ab;           /* Ozaki II fast stats: per element of A and B */
    double acc_ab, acc_c;      /* accurate scaling's extra pass: per element of A, B and of C
                                  (entry bounds), besides its product G = |A||B| */
    double residue_ab, residue_ab_mod; /* residues: per element of A, B, plus per modulus */
    double reduce_c_mod;       /* reduction: per element of C per modulus ... */
    double reduce_c_mod_block; /* ... plus this per k-block (the exact block sums) */
    double crt_c, crt_c_mod;   /* CRT and update: per element of C, plus per modulus */
    double split_ab, split_ab_slice; /* Ozaki I split: per element of A, B, plus per slice */
    double convert_c_prod;     /* Ozaki I product conversion / exact group sums: per element of
                                  C per product per k-block */
    int convert_all;           /* 1: every variant converts; 0: only the grouped ones (ef, hybrid) */
    double accum_c_term;       /* Ozaki I FP64 accumulation: per element of C per FP64 term ... */
    double accum_c_pair;       /* ... plus per pair read */
    double fp4_pack_ab;        /* FP4 engine: limb packing per element of A, B per engine call */
    double fp4_acc_c;          /* ... and the weighted sum per element of C per limb product */
} pass_costs;

/* CUDA executor: fitted to the H200 phase times with the datasheet's 4.8 TB/s as the unit
 * (h200_run3/run4, device arrays, n = 1024 to 16384). */
static const pass_costs DEVICE_COSTS = {
    .kblock = 65536,
    .stats_ab = 21.8,        /* 2.44 ms at 16384 */
    .acc_ab = 24.0,          /* accurate - fast stats, less G, at 16384 and 8192 */
    .acc_c = 0,
    .residue_ab = 13.4,
    .residue_ab_mod = 5.5,   /* run3 8192, 12..16 moduli: +0.13 ms each */
    .reduce_c_mod = 7.0,     /* 5.47 ms at 16384, 14 moduli */
    .reduce_c_mod_block = 0, /* no k > 65536 measured */
    .crt_c = 96.0,
    .crt_c_mod = 10.6,       /* 14.98 ms at 16384, 3.26 at 8192, 14 moduli */
    .split_ab = 13.4,
    .split_ab_slice = 16.0,  /* hybrid: 5.62 ms at 8192, 1.20 at 4096, 11 slices */
    .convert_c_prod = 20.3,  /* hybrid: 18.7 ms at 8192, 66 products; bitmask converts in the
                                accumulation */
    .convert_all = 0,
    .accum_c_term = 32.0,    /* hybrid 4.96 ms for 11 terms, bitmask 26.2 ms for 66, at 8192 */
    .accum_c_pair = 0,
    /* cuda_fp4.cu, never measured (no Blackwell GPU): its bytes, read int8 (1) and write
     * the limb planes (1.5); read F (4), read and write C32 (8) */
    .fp4_pack_ab = 2.5,
    .fp4_acc_c = 12.0,
};

/* CPU executor: fitted to one-thread phase times on the development machine (n = 256 to
 * 1024 and 256 x 256 x 4096; docs/policy.md), where its passes reach 3.46 GB/s in these
 * counts. It blocks k by 1024 (exact SGEMM), does its CRT in multi-word integers (no fixed
 * part, 10.3 ns per modulus and element there) and sums each pair's blocks in double. */
static const pass_costs CPU_COSTS = {
    .kblock = 1024,
    .stats_ab = 29.2,
    .acc_ab = 8.6,
    .acc_c = 141.0,          /* the bound of every entry (i, j) */
    .residue_ab = 13.4,
    .residue_ab_mod = 2.8,
    .reduce_c_mod = 4.4,
    .reduce_c_mod_block = 2.6,
    .crt_c = 0,
    .crt_c_mod = 35.6,
    .split_ab = 13.4,
    .split_ab_slice = 16.0,
    .convert_c_prod = 5.5,
    .convert_all = 1,
    .accum_c_term = 8.3,
    .accum_c_pair = 3.6,
};

/* ZGEMM (Karatsuba, 3 products per modulus; h200 z runs at 8192 and 16384): A and B have two
 * parts; three residue sets per modulus; the reduction reads three products into two outputs
 * (x2.5 measured); the CRT writes two outputs (x2). */
#define OZ2_Z_RESIDUE_MOD 3.0
#define OZ2_Z_REDUCE 2.5
#define OZ2_Z_CRT 2.0
/* On the complex set (two products per modulus, oz2_table_call): two residue sets per
 * modulus, and a reduction reading two products (Karatsuba's factors scaled by the sets and
 * products read: not measured on a GPU yet). */
#define OZ2_Z2_RESIDUE_MOD 2.0
#define OZ2_Z2_REDUCE (OZ2_Z_REDUCE * 4.0 / 5.0)

#define EMU_PER_PRODUCT_S 8e-6  /* per integer product launched on the device */

/* Counts assumed for automatic precision (moduli/slices 0): automatic precision's first
 * counts (numerics/ozaki2.h, ozaki1.h). */
#define PLAN_MODULI OZ2_PLAN_MODULI_INT8
#define PLAN_SLICES OZ1_PLAN_SLICES

/* ---- the cost model ------------------------------------------------------------------- */

static const char *PART_NAMES[OZBLAS_PART_COUNT] = {
    "host_gemm", "device_gemm", "stats",     "residues",          "split",    "int8_products",
    "conversion", "reduction",  "crt",       "fp64_accumulation", "overhead", "transfers"};

const char *ozblas_policy_part_name(int part)
{
    return part >= 0 && part < OZBLAS_PART_COUNT ? PART_NAMES[part] : "unknown";
}

int ozblas_policy_planning_moduli(void) { return PLAN_MODULI; }
int ozblas_policy_planning_slices(void) { return PLAN_SLICES; }

typedef struct {
    const ozblas_profile *p;
    int cx, on_device;
    double m, n, k, ab, cc, mnk, flops, es;
} problem;

static void part(ozblas_candidate *c, int i, double s)
{
    c->parts[i] += s;
    c->parts_used |= 1u << i;
}

static void finish(const problem *q, ozblas_candidate *c, int executor)
{
    c->executor = executor;
    c->flops = q->flops;
    /* Operands on the other side go over the link: A and B in, C back (beta = 0). */
    int dev = executor == OZBLAS_EXECUTOR_CUDA;
    if (dev != q->on_device) {
        double in = dev ? q->p->h2d_bw : q->p->d2h_bw, back = dev ? q->p->d2h_bw : q->p->h2d_bw;
        part(c, OZBLAS_PART_TRANSFERS, q->ab * q->es / in + q->cc * q->es / back);
    }
    c->seconds = 0;
    for (int i = 0; i < OZBLAS_PART_COUNT; i++)
        if (c->parts_used & (1u << i))
            c->seconds += c->parts[i];
}

static void native(const problem *q, int executor, ozblas_candidate *c)
{
    memset(c, 0, sizeof *c);
    c->method = OZBLAS_METHOD_NATIVE;
    c->meets_target = 1;
    const ozblas_profile *p = q->p;
    if (executor == OZBLAS_EXECUTOR_CPU) {
        part(c, OZBLAS_PART_HOST_GEMM, q->flops / (q->cx ? p->host_zgemm : p->host_dgemm));
        part(c, OZBLAS_PART_OVERHEAD, HOST_CALL_S);
    } else {
        part(c, OZBLAS_PART_DEVICE_GEMM, q->flops / (q->cx ? p->dev_zgemm : p->dev_dgemm));
        part(c, OZBLAS_PART_OVERHEAD, p->dev_call_s);
    }
    finish(q, c, executor);
}

static double kblocks(const problem *q, const pass_costs *pc)
{
    return ceil(q->k / pc->kblock);
}

/* The one place an engine meets a profile rate: engine g's integer products on the device
 * (dev) or the CPU executor, OP/s; 0: not a candidate there. An FP8 engine adds its rate
 * here and its limbs in engine_limbs. */
static double engine_rate(const ozblas_profile *p, int dev, int g)
{
    if (!dev) /* the CPU executor's FP4 engine models the bits, not the speed */
        return g == OZBLAS_ENGINE_INT8 ? p->cpu_int_gemm : 0;
    return g == OZBLAS_ENGINE_FP4 ? p->dev_fp4 : g == OZBLAS_ENGINE_INT8 ? p->dev_int8 : 0;
}

/* Engine products per INT8-valued product (Ozaki I's slices): FP4 writes each in three
 * limbs, nine limb products. */
static int engine_limbs(int g) { return g == OZBLAS_ENGINE_FP4 ? 9 : 1; }

/* The FP4 engine's own passes: packing the operands of each of calls products and the
 * weighted sum of each of its limb products (INT8: none). */
static double engine_passes(const problem *q, const pass_costs *pc, int g, double calls,
                            double limb_products, double bw)
{
    if (g != OZBLAS_ENGINE_FP4)
        return 0;
    return (q->ab * calls * pc->fp4_pack_ab + q->cc * limb_products * pc->fp4_acc_c) / bw;
}

static void ozaki2(const problem *q, int executor, int engine, int moduli, int scaling,
                   ozblas_candidate *c)
{
    memset(c, 0, sizeof *c);
    const ozblas_profile *p = q->p;
    int dev = executor == OZBLAS_EXECUTOR_CUDA, acc = scaling == OZBLAS_SCALING_ACCURATE;
    const pass_costs *pc = dev ? &DEVICE_COSTS : &CPU_COSTS;
    /* the bound product G stays on INT8 (its values exceed the FP4 limbs' range) */
    double bw = dev ? p->dev_mem_bw : p->cpu_pass_bw, rate8 = engine_rate(p, dev, OZBLAS_ENGINE_INT8);
    /* the table the call takes: on INT8 a complex call's moduli count maps to the complex set */
    const oz2_table *T = oz2_table_call(engine, q->cx, moduli);
    const int per = oz2_products_per_modulus(T, q->cx);
    double N = T->n, rate = engine_rate(p, dev, engine), calls = N * per;
    double zf = q->cx ? 2 : 1, prods = T->products * per;
    double zres = !q->cx ? 1 : T->cx2 ? OZ2_Z2_RESIDUE_MOD : OZ2_Z_RESIDUE_MOD;
    double zred = !q->cx ? 1 : T->cx2 ? OZ2_Z2_REDUCE : OZ2_Z_REDUCE;
    c->method = OZBLAS_METHOD_OZAKI2;
    c->engine = engine;
    c->count = moduli;
    c->scaling = scaling;
    c->meets_target = q->k <= (double)(1LL << 28); /* beyond, the scaling bounds fall back */
    double stats = zf * q->ab * pc->stats_ab / bw;
    if (acc) /* one more pass and one small-integer product G = |A||B| (real also for ZGEMM) */
        stats += (zf * q->ab * pc->acc_ab + q->cc * pc->acc_c) / bw + 2 * q->mnk / rate8;
    part(c, OZBLAS_PART_STATS, stats);
    part(c, OZBLAS_PART_RESIDUES,
         q->ab * (zf * pc->residue_ab + zres * N * pc->residue_ab_mod) / bw);
    part(c, OZBLAS_PART_INT_PRODUCTS,
         prods * 2 * q->mnk / rate + engine_passes(q, pc, engine, calls, prods, bw));
    part(c, OZBLAS_PART_REDUCTION,
         q->cc * N * (pc->reduce_c_mod + kblocks(q, pc) * pc->reduce_c_mod_block) * zred / bw);
    part(c, OZBLAS_PART_CRT, q->cc * (pc->crt_c + N * pc->crt_c_mod) * (q->cx ? OZ2_Z_CRT : 1) / bw);
    part(c, OZBLAS_PART_OVERHEAD,
         dev ? p->dev_emu_call_s + (prods + acc) * EMU_PER_PRODUCT_S : p->cpu_call_s);
    c->meets_target = c->meets_target && rate > 0;
    finish(q, c, executor);
}

static void ozaki1(const problem *q, int executor, int engine, int slices, int variant,
                   ozblas_candidate *c)
{
    memset(c, 0, sizeof *c);
    const ozblas_profile *p = q->p;
    int dev = executor == OZBLAS_EXECUTOR_CUDA;
    int grouped = variant == OZBLAS_OZAKI1_EF || variant == OZBLAS_OZAKI1_HYBRID;
    const pass_costs *pc = dev ? &DEVICE_COSTS : &CPU_COSTS;
    double bw = dev ? p->dev_mem_bw : p->cpu_pass_bw, rate = engine_rate(p, dev, engine);
    int64_t K = (int64_t)q->k * (q->cx ? 2 : 1);
    double zf = q->cx ? 2 : 1;
    int pairs = slices * (slices + 1) / 2;
    double prods = pairs * (q->cx ? 4 : 1);
    c->method = OZBLAS_METHOD_OZAKI1;
    c->engine = engine;
    c->count = slices;
    c->variant = variant;
    c->meets_target = K <= OZ1_MAX_K;
    /* FP64 terms per element, as the executors form them (ozaki1.h): one per pair, or for
     * the grouped variants one per chunk of at most r pairs of a group. */
    int r = c->meets_target ? oz1_chunk(variant, oz1_beta(K), K) : 1;
    int terms = oz1_terms(slices, r);
    part(c, OZBLAS_PART_SPLIT, zf * q->ab * (pc->split_ab + slices * pc->split_ab_slice) / bw);
    /* the CUDA executor's products are of the stacked parts (one call per pair) */
    part(c, OZBLAS_PART_INT_PRODUCTS,
         prods * engine_limbs(engine) * 2 * q->mnk / rate +
             engine_passes(q, pc, engine, pairs, prods * engine_limbs(engine), bw));
    /* The CUDA executor converts each product on its own only for the grouped variants (exact
     * group sums); the CPU executor always sums the k-blocks of each pair in double. */
    if (grouped || pc->convert_all)
        part(c, OZBLAS_PART_CONVERSION, q->cc * prods * kblocks(q, pc) * pc->convert_c_prod / bw);
    part(c, OZBLAS_PART_FP64_ACCUMULATION,
         zf * q->cc * (terms * pc->accum_c_term + pairs * pc->accum_c_pair) / bw);
    part(c, OZBLAS_PART_OVERHEAD,
         dev ? p->dev_emu_call_s + prods * engine_limbs(engine) * EMU_PER_PRODUCT_S : p->cpu_call_s);
    finish(q, c, executor);
}

int ozblas_policy_estimate(const ozblas_profile *p, int is_complex, int64_t m, int64_t n,
                           int64_t k, int on_device, int moduli, int slices,
                           ozblas_candidate *out, int max_out)
{
    if (!p || !out || max_out < 0 || m < 1 || n < 1 || k < 1 || (on_device && !p->has_device) ||
        moduli < 0 || moduli > OZ2_MAX_MODULI || moduli == 1 || slices < 0 ||
        slices > OZ1_MAX_SLICES || slices == 1)
        return -1;
    problem q = {p, is_complex != 0, on_device != 0, (double)m, (double)n, (double)k, 0, 0, 0, 0, 0};
    q.ab = q.m * q.k + q.k * q.n;
    q.cc = q.m * q.n;
    q.mnk = q.m * q.n * q.k;
    q.flops = (q.cx ? 8 : 2) * q.mnk;
    q.es = q.cx ? 16 : 8;
    const int ns = slices ? slices : PLAN_SLICES;
    /* Native host first: ties go to it (ozblas_policy_decide keeps the first minimum). */
    ozblas_candidate all[OZBLAS_POLICY_MAX_CANDIDATES];
    int cnt = 0;
    native(&q, OZBLAS_EXECUTOR_CPU, &all[cnt++]);
    if (p->has_device)
        native(&q, OZBLAS_EXECUTOR_CUDA, &all[cnt++]);
    for (int e = p->has_device ? 0 : 1; e < 2; e++) {
        int ex = e ? OZBLAS_EXECUTOR_CPU : OZBLAS_EXECUTOR_CUDA;
        for (int g = OZBLAS_ENGINE_INT8; g <= OZBLAS_ENGINE_FP4; g++) {
            /* INT8's planning count stays PLAN_MODULI (= its automatic-precision start) */
            const int nm = moduli ? moduli : g == OZBLAS_ENGINE_INT8 ? PLAN_MODULI : oz2_auto_hint(g);
            if (engine_rate(p, !e, g) <= 0 || nm > oz2_max_moduli(g))
                continue;
            ozaki2(&q, ex, g, nm, OZBLAS_SCALING_ACCURATE, &all[cnt++]);
            ozaki2(&q, ex, g, nm, OZBLAS_SCALING_FAST, &all[cnt++]);
            for (int v = OZBLAS_OZAKI1_BITMASK; v <= OZBLAS_OZAKI1_HYBRID; v++)
                ozaki1(&q, ex, g, ns, v, &all[cnt++]);
        }
    }
    int w = cnt < max_out ? cnt : max_out;
    memcpy(out, all, (size_t)w * sizeof *out);
    return w;
}

ozblas_status ozblas_policy_decide(const ozblas_profile *p, int is_complex, int64_t m,
                                   int64_t n, int64_t k, int on_device, int executors,
                                   const ozblas_options *opt, ozblas_candidate *choice)
{
    ozblas_profile local;
    if (!opt || !choice)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    if (!p) {
        oz_policy_local_dispatch(&local);
        p = &local;
    }
    ozblas_candidate c[OZBLAS_POLICY_MAX_CANDIDATES];
    int cnt = ozblas_policy_estimate(p, is_complex, m, n, k, on_device, opt->moduli, opt->slices,
                                     c, OZBLAS_POLICY_MAX_CANDIDATES);
    int best = -1;
    for (int i = 0; i < cnt; i++) {
        if (!c[i].meets_target || !(executors & (1 << c[i].executor)))
            continue;
        if (c[i].method == OZBLAS_METHOD_OZAKI2 && c[i].scaling != opt->scaling)
            continue;
        if (c[i].method == OZBLAS_METHOD_OZAKI1 && c[i].variant != opt->ozaki1_variant)
            continue;
        if (c[i].method != OZBLAS_METHOD_NATIVE && c[i].engine != opt->engine)
            continue;
        if (best < 0 || c[i].seconds < c[best].seconds)
            best = i;
    }
    if (best < 0)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    *choice = c[best];
    return OZBLAS_OK;
}


/* The predicted seconds of the choice's method, executor, engine and scaling (variant) at
 * count on profile p (emu), and of the fastest native candidate among executors (native);
 * INFINITY where none is estimated. */
static void count_seconds(const ozblas_profile *p, int is_complex, int64_t m, int64_t n, int64_t k,
                          int on_device, int executors, const ozblas_candidate *choice, int cnt,
                          double *emu, double *native)
{
    const int o2 = choice->method == OZBLAS_METHOD_OZAKI2;
    ozblas_candidate c[OZBLAS_POLICY_MAX_CANDIDATES];
    int w = ozblas_policy_estimate(p, is_complex, m, n, k, on_device, o2 ? cnt : 0, o2 ? 0 : cnt,
                                   c, OZBLAS_POLICY_MAX_CANDIDATES);
    *native = *emu = INFINITY;
    for (int i = 0; i < w; i++) {
        if (!c[i].meets_target || !(executors & (1 << c[i].executor)))
            continue;
        if (c[i].method == OZBLAS_METHOD_NATIVE)
            *native = fmin(*native, c[i].seconds);
        else if (c[i].method == choice->method && c[i].executor == choice->executor &&
                 c[i].engine == choice->engine &&
                 (o2 ? c[i].scaling == choice->scaling : c[i].variant == choice->variant))
            *emu = c[i].seconds;
    }
}

int oz_policy_max_count(int is_complex, int64_t m, int64_t n, int64_t k, int on_device,
                        int executors, const ozblas_candidate *choice)
{
    ozblas_profile p;
    oz_policy_local_dispatch(&p);
    const int o2 = choice->method == OZBLAS_METHOD_OZAKI2;
    const int hi = o2 ? oz2_max_moduli(choice->engine) : OZ1_MAX_SLICES;
    int best = choice->count;
    for (int cnt = choice->count + 1; cnt <= hi; cnt++) {
        double native, emu;
        count_seconds(&p, is_complex, m, n, k, on_device, executors, choice, cnt, &emu, &native);
        if (!(emu < native))
            break; /* the time grows with the count */
        best = cnt;
    }
    return best;
}

void oz_policy_part_seconds(int is_complex, int64_t m, int64_t n, int64_t k,
                            const oz_auto_plan *plan, int count, double *emu, double *native)
{
    ozblas_profile p;
    oz_policy_local_dispatch(&p);
    count_seconds(&p, is_complex, m, n, k, plan->on_device, plan->executors, &plan->choice,
                  count, emu, native);
}
