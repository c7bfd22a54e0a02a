/* The policy: device profiles, the cost model, and the calibration cache.
 *
 * The cost model is one pure function (ozblas_policy_estimate) from (m, n, k, real or
 * complex, where the data lives, a profile, the counts assumed) to the candidates with their
 * predicted times; ozblas_policy_decide takes the fastest one method auto may use. Every
 * elementwise pass is modelled as memory-bound: a byte-equivalent count per element divided
 * by a bandwidth. The CUDA executor's counts were fitted to the phase times of the H200 runs
 * in benchmarks/results/ (h200_run3/run4, device arrays; the model is within 25% of every row
 * at n = 8192 and 16384, tests/test_policy.py) with the H200's datasheet 4.8 TB/s as the
 * unit; the CPU executor's to its phase times on the development machine, in the unit of its
 * pass bandwidth (cpu_pass_bw, which `ozblas calibrate` measures in these counts). Integer
 * products run at the INT8 (device) or SGEMM (CPU) rate.
 *
 * The calibration cache (README "Calibration cache") is read and written here only: Python
 * reads it through ozblas_policy_cache_read, so the C library and the Python policy agree. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "oz_internal.h"
#include "policy_internal.h"
#include "../cuda/oz_cuda.h"
#include "../numerics/ozaki1.h"

/* ---- efficiencies measured on the H200 (benchmarks/results/) ------------------------------ */
/* h200_run4_device_arrays.json, cupy_native n = 16384 and 8192: 56.1 and 56.2 TFLOPS against
 * the 67 TFLOPS FP64 tensor-core peak. */
#define H200_FP64_MEASURED 56.0e12
/* Same file, Ozaki II phase 2 at n = 16384: 14 products of 2 * 16384^3 in 95.7 ms (fast-14)
 * and 16 in 111.8 ms (accurate-16): 1.29 and 1.26 POPS against 1979 TOPS dense INT8. (At
 * n <= 8192 the phase runs at ~1.5 POPS: the model is slightly pessimistic about emulation.) */
#define H200_INT8_MEASURED 1.27e15
/* h200_run3_host_arrays.json: host-array calls minus their device time give 5.2-6.1 GB/s
 * against PCIe Gen5 x16's 64 GB/s: the executor copies from pageable memory. */
#define H200_LINK_MEASURED 5.6e9
/* h200_run4: native ZGEMM 48.3-49.0 TFLOPS against DGEMM's 56.1. */
#define H200_ZGEMM_RATIO 0.87
#define EFF_FP64 (H200_FP64_MEASURED / 67.0e12)   /* 0.84 */
#define EFF_INT8 (H200_INT8_MEASURED / 1979e12)   /* 0.64 */
#define EFF_LINK (H200_LINK_MEASURED / 64.0e9)    /* 0.09 */
#define EFF_HOST EFF_FP64 /* no host peak was measured against: the GPU's FP64 factor is borrowed */

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
};

/* CPU executor: fitted to one-thread phase times on the development machine (n = 256 to
 * 1024 and 256 x 256 x 4096; README "Policy"), where its passes reach 3.46 GB/s in these
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

/* Fixed costs (launches, the small copies of the scaling data, the host's waits): from the
 * 1024 and 2048 device-array rows and cupy_native at 1024. */
#define DEVICE_CALL_S 20e-6
#define EMU_CALL_S 250e-6
#define EMU_PER_PRODUCT_S 8e-6  /* per integer product launched on the device */
#define HOST_CALL_S 5e-6

/* Counts assumed for automatic precision (moduli/slices 0): 16 moduli and 11 slices reach
 * DGEMM-level err_ab up to phi = 2 at k = 1024 and 16384 (README "Accuracy"). */
#define PLAN_MODULI 16
#define PLAN_SLICES 11

/* ---- built-in profiles ------------------------------------------------------------------ */

/* Datasheet peaks (SXM parts; INT8 dense, without sparsity; link = PCIe per direction,
 * Gen4 x16 32 GB/s, Gen5 x16 64 GB/s):
 *   A100 80GB SXM: FP64 tensor core 19.5 TFLOPS, INT8 624 TOPS, HBM2e 2.039 TB/s, Gen4
 *   H100 SXM: FP64 tensor core 67, INT8 1979, HBM3 3.35 TB/s, Gen5
 *   H200 SXM: FP64 tensor core 67, INT8 1979, HBM3e 4.8 TB/s, Gen5
 *   H800 SXM: FP64 1, INT8 1979, HBM3 3.35 TB/s, Gen5
 *   GeForce RTX 4090 (Ada whitepaper): FP64 1.29 (1/64 of FP32), INT8 tensor 660.6, 1.008 TB/s, Gen4
 *   B200 (DGX B200 datasheet, per GPU): FP64 40, INT8 4500, HBM3e 8 TB/s, Gen5
 * Hosts (base clock, all cores: cores * DP FLOP per cycle * GHz):
 *   2x AMD EPYC 7742 (DGX A100): 128 * 16 * 2.25 = 4.61 TFLOPS
 *   2x Xeon Platinum 8480C (DGX H100/H200, HGX H800): 112 * 32 * 2.0 = 7.17
 *   2x Xeon Platinum 8570 (DGX B200): 112 * 32 * 2.1 = 7.53
 *   Core i9-13900K (a common RTX 4090 desktop): 8 P * 16 * 3.0 + 16 E * 8 * 2.2 = 0.67
 * A third-party check: GEMMul8 on an A100 SXM4 (UCHINO-Yuki/GEMMul8_numerical_results,
 * results_04) measured DGEMM at 17.3-18.1 TFLOPS and INT8 GEMM at 406-437 TOPS (0.65-0.70
 * of peak, like our H200's 0.64), and Ozaki II fast-16 ahead of native from 8192 on: an A100
 * with device-resident data does emulate large products, which this model reproduces. */
typedef struct {
    const char *name, *description, *host_name;
    double fp64_tflops, int8_tops, mem_tbs, link_gbs, host_tflops;
} datasheet;

static const datasheet DATASHEETS[] = {
    {"a100", "NVIDIA A100 80GB SXM, 2x EPYC 7742 host", "2x AMD EPYC 7742", 19.5, 624, 2.039, 32, 4.61},
    {"h100", "NVIDIA H100 SXM, 2x Xeon 8480C host", "2x Intel Xeon Platinum 8480C", 67, 1979, 3.35, 64, 7.17},
    {"h200", "NVIDIA H200 SXM, 2x Xeon 8480C host", "2x Intel Xeon Platinum 8480C", 67, 1979, 4.8, 64, 7.17},
    {"h800", "NVIDIA H800 SXM, 2x Xeon 8480C host", "2x Intel Xeon Platinum 8480C", 1.0, 1979, 3.35, 64, 7.17},
    {"rtx4090", "NVIDIA GeForce RTX 4090, Core i9-13900K host", "Intel Core i9-13900K", 1.29, 660.6, 1.008, 32, 0.67},
    {"b200", "NVIDIA B200, 2x Xeon 8570 host", "2x Intel Xeon Platinum 8570", 40, 4500, 8.0, 64, 7.53},
};
#define N_DATASHEETS ((int)(sizeof DATASHEETS / sizeof DATASHEETS[0]))

/* The project's 2-core development machine, one thread (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS
 * and OZBLAS_NUM_THREADS 1: two threads stall unpredictably when other work shares its
 * cores), as `ozblas calibrate` measured it in benchmarks/results/policy_check.json. The
 * fixed cost of an emulated call is not that file's floor value (1 us, which made method
 * auto emulate 2 x 2 products, at 145 us against 56 us native): `ozblas calibrate --quick`
 * measures 10-32 us there, so the estimate takes the low end, 10 us, above the host BLAS's
 * 5 us (HOST_CALL_S). */
#define DEV_HOST_DGEMM 59.9e9
#define DEV_HOST_ZGEMM 61.8e9
#define DEV_CPU_INT_GEMM 117e9
#define DEV_CPU_PASS_BW 3.33e9
#define DEV_CPU_CALL_S 10e-6

static void copy_str(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
}

static void host_dev_machine(ozblas_profile *p)
{
    p->host_dgemm = DEV_HOST_DGEMM;
    p->host_zgemm = DEV_HOST_ZGEMM;
    p->cpu_int_gemm = DEV_CPU_INT_GEMM;
    p->cpu_pass_bw = DEV_CPU_PASS_BW;
    p->cpu_call_s = DEV_CPU_CALL_S;
}

static void make_datasheet(const datasheet *d, ozblas_profile *p)
{
    memset(p, 0, sizeof *p);
    copy_str(p->name, sizeof p->name, d->name);
    copy_str(p->description, sizeof p->description, d->description);
    copy_str(p->source, sizeof p->source,
             "datasheet peaks x the efficiency measured on our H200 (FP64 0.84, INT8 0.64, "
             "link 0.09, host 0.84); CPU executor rates assumed from the development machine's "
             "ratios to DGEMM");
    copy_str(p->host_name, sizeof p->host_name, d->host_name);
    p->has_device = 1;
    p->peak_fp64 = d->fp64_tflops * 1e12;
    p->peak_int8 = d->int8_tops * 1e12;
    p->peak_mem_bw = d->mem_tbs * 1e12;
    p->peak_link_bw = d->link_gbs * 1e9;
    p->peak_host_fp64 = d->host_tflops * 1e12;
    p->host_dgemm = p->peak_host_fp64 * EFF_HOST;
    p->host_zgemm = p->host_dgemm;
    p->cpu_int_gemm = p->host_dgemm * (DEV_CPU_INT_GEMM / DEV_HOST_DGEMM);
    p->cpu_pass_bw = p->host_dgemm * (DEV_CPU_PASS_BW / DEV_HOST_DGEMM);
    p->cpu_call_s = DEV_CPU_CALL_S;
    p->dev_dgemm = p->peak_fp64 * EFF_FP64;
    p->dev_zgemm = p->dev_dgemm * H200_ZGEMM_RATIO;
    p->dev_int8 = p->peak_int8 * EFF_INT8;
    /* The pass costs are counted in units of the datasheet bandwidth (see above). */
    p->dev_mem_bw = p->peak_mem_bw;
    p->h2d_bw = p->d2h_bw = p->peak_link_bw * EFF_LINK;
    p->dev_call_s = DEVICE_CALL_S;
    p->dev_emu_call_s = EMU_CALL_S;
}

static void make_measured_h200(ozblas_profile *p)
{
    memset(p, 0, sizeof *p);
    copy_str(p->name, sizeof p->name, "measured_h200");
    copy_str(p->description, sizeof p->description,
             "the H200 this project measured (h200_run3, h200_run4)");
    copy_str(p->source, sizeof p->source,
             "measured: benchmarks/results/h200_run3_*.json, h200_run4_device_arrays.json; "
             "memory bandwidth the datasheet's 4.8 TB/s (the pass costs' unit); its host was "
             "not measured: the development machine's figures stand in");
    copy_str(p->host_name, sizeof p->host_name, "not measured (the cpu profile's figures)");
    p->has_device = 1;
    host_dev_machine(p);
    p->dev_dgemm = H200_FP64_MEASURED;
    p->dev_zgemm = H200_FP64_MEASURED * H200_ZGEMM_RATIO;
    p->dev_int8 = H200_INT8_MEASURED;
    p->dev_mem_bw = 4.8e12;
    p->h2d_bw = p->d2h_bw = H200_LINK_MEASURED;
    p->dev_call_s = DEVICE_CALL_S;
    p->dev_emu_call_s = EMU_CALL_S;
}

static void make_cpu(ozblas_profile *p)
{
    memset(p, 0, sizeof *p);
    copy_str(p->name, sizeof p->name, "cpu");
    copy_str(p->description, sizeof p->description,
             "host only: the project's 2-core development machine, one thread");
    copy_str(p->source, sizeof p->source,
             "measured by ozblas calibrate on the development machine "
             "(benchmarks/results/policy_check.json)");
    copy_str(p->host_name, sizeof p->host_name, "AMD EPYC, 2 CPUs, one thread (OpenBLAS)");
    host_dev_machine(p);
}

int ozblas_policy_builtin_count(void) { return N_DATASHEETS + 2; }

int ozblas_policy_builtin(int i, ozblas_profile *out)
{
    if (!out || i < 0 || i >= ozblas_policy_builtin_count())
        return 0;
    if (i < N_DATASHEETS)
        make_datasheet(&DATASHEETS[i], out);
    else if (i == N_DATASHEETS)
        make_measured_h200(out);
    else
        make_cpu(out);
    return 1;
}

static int builtin_by_name(const char *name, ozblas_profile *out)
{
    for (int i = 0; i < ozblas_policy_builtin_count(); i++) {
        ozblas_policy_builtin(i, out);
        if (!strcmp(out->name, name))
            return 1;
    }
    return 0;
}

void ozblas_policy_estimate_profile(const char *device_name, ozblas_profile *out, char *note,
                                    size_t note_len)
{
    static const char *hints[][2] = {{"4090", "rtx4090"}, {"h800", "h800"}, {"h100", "h100"},
                                     {"a100", "a100"},    {"b200", "b200"}};
    char low[128];
    size_t i = 0;
    for (; device_name && device_name[i] && i + 1 < sizeof low; i++)
        low[i] = (char)tolower((unsigned char)device_name[i]);
    low[i] = 0;
    char buf[512];
    if (!low[0]) {
        make_cpu(out);
        snprintf(buf, sizeof buf, "no usable CUDA device: built-in estimate cpu (the project's "
                                  "development machine)");
    } else if (strstr(low, "h200")) {
        make_measured_h200(out);
        snprintf(buf, sizeof buf, "%s: built-in estimate measured_h200 (this project's H200 "
                                  "measurements)", device_name);
    } else {
        const char *prof = NULL;
        for (size_t h = 0; h < sizeof hints / sizeof hints[0] && !prof; h++)
            if (strstr(low, hints[h][0]))
                prof = hints[h][1];
        builtin_by_name(prof ? prof : "h100", out);
        if (prof)
            snprintf(buf, sizeof buf, "%s: built-in estimate %s (the datasheet profile closest "
                                      "to %s)", device_name, prof, device_name);
        else
            snprintf(buf, sizeof buf, "%s: built-in estimate h100 (no datasheet profile "
                                      "matches %s)", device_name, device_name);
    }
    if (note && note_len)
        snprintf(note, note_len, "%s", buf);
}

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

static void ozaki2(const problem *q, int executor, int moduli, int scaling, ozblas_candidate *c)
{
    memset(c, 0, sizeof *c);
    const ozblas_profile *p = q->p;
    int dev = executor == OZBLAS_EXECUTOR_CUDA, acc = scaling == OZBLAS_SCALING_ACCURATE;
    const pass_costs *pc = dev ? &DEVICE_COSTS : &CPU_COSTS;
    double bw = dev ? p->dev_mem_bw : p->cpu_pass_bw, rate = dev ? p->dev_int8 : p->cpu_int_gemm;
    double zf = q->cx ? 2 : 1, prods = moduli * (q->cx ? 3 : 1), N = moduli;
    c->method = OZBLAS_METHOD_OZAKI2;
    c->count = moduli;
    c->scaling = scaling;
    c->meets_target = q->k <= (double)(1LL << 28); /* beyond, the scaling bounds fall back */
    double stats = zf * q->ab * pc->stats_ab / bw;
    if (acc) /* one more pass and one small-integer product G = |A||B| (real also for ZGEMM) */
        stats += (zf * q->ab * pc->acc_ab + q->cc * pc->acc_c) / bw + 2 * q->mnk / rate;
    part(c, OZBLAS_PART_STATS, stats);
    part(c, OZBLAS_PART_RESIDUES,
         q->ab * (zf * pc->residue_ab + (q->cx ? OZ2_Z_RESIDUE_MOD : 1) * N * pc->residue_ab_mod) / bw);
    part(c, OZBLAS_PART_INT_PRODUCTS, prods * 2 * q->mnk / rate);
    part(c, OZBLAS_PART_REDUCTION,
         q->cc * N * (pc->reduce_c_mod + kblocks(q, pc) * pc->reduce_c_mod_block) *
             (q->cx ? OZ2_Z_REDUCE : 1) / bw);
    part(c, OZBLAS_PART_CRT, q->cc * (pc->crt_c + N * pc->crt_c_mod) * (q->cx ? OZ2_Z_CRT : 1) / bw);
    part(c, OZBLAS_PART_OVERHEAD,
         dev ? p->dev_emu_call_s + (prods + acc) * EMU_PER_PRODUCT_S : p->cpu_call_s);
    finish(q, c, executor);
}

static void ozaki1(const problem *q, int executor, int slices, int variant, ozblas_candidate *c)
{
    memset(c, 0, sizeof *c);
    const ozblas_profile *p = q->p;
    int dev = executor == OZBLAS_EXECUTOR_CUDA;
    int grouped = variant == OZBLAS_OZAKI1_EF || variant == OZBLAS_OZAKI1_HYBRID;
    const pass_costs *pc = dev ? &DEVICE_COSTS : &CPU_COSTS;
    double bw = dev ? p->dev_mem_bw : p->cpu_pass_bw, rate = dev ? p->dev_int8 : p->cpu_int_gemm;
    int64_t K = (int64_t)q->k * (q->cx ? 2 : 1);
    double zf = q->cx ? 2 : 1;
    int pairs = slices * (slices + 1) / 2;
    double prods = pairs * (q->cx ? 4 : 1);
    c->method = OZBLAS_METHOD_OZAKI1;
    c->count = slices;
    c->variant = variant;
    c->meets_target = K <= OZ1_MAX_K;
    /* FP64 terms per element, as the executors form them (ozaki1.h): one per pair, or for
     * the grouped variants one per chunk of at most r pairs of a group. */
    int r = c->meets_target ? oz1_chunk(variant, oz1_beta(K), K) : 1;
    int terms = oz1_terms(slices, r);
    part(c, OZBLAS_PART_SPLIT, zf * q->ab * (pc->split_ab + slices * pc->split_ab_slice) / bw);
    part(c, OZBLAS_PART_INT_PRODUCTS, prods * 2 * q->mnk / rate);
    /* The CUDA executor converts each product on its own only for the grouped variants (exact
     * group sums); the CPU executor always sums the k-blocks of each pair in double. */
    if (grouped || pc->convert_all)
        part(c, OZBLAS_PART_CONVERSION, q->cc * prods * kblocks(q, pc) * pc->convert_c_prod / bw);
    part(c, OZBLAS_PART_FP64_ACCUMULATION,
         zf * q->cc * (terms * pc->accum_c_term + pairs * pc->accum_c_pair) / bw);
    part(c, OZBLAS_PART_OVERHEAD, dev ? p->dev_emu_call_s + prods * EMU_PER_PRODUCT_S : p->cpu_call_s);
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
    int nm = moduli ? moduli : PLAN_MODULI, ns = slices ? slices : PLAN_SLICES;
    /* Native host first: ties go to it (ozblas_policy_decide keeps the first minimum). */
    ozblas_candidate all[2 * (1 + 2 + 4)];
    int cnt = 0;
    native(&q, OZBLAS_EXECUTOR_CPU, &all[cnt++]);
    if (p->has_device)
        native(&q, OZBLAS_EXECUTOR_CUDA, &all[cnt++]);
    for (int e = p->has_device ? 0 : 1; e < 2; e++) {
        int ex = e ? OZBLAS_EXECUTOR_CPU : OZBLAS_EXECUTOR_CUDA;
        ozaki2(&q, ex, nm, OZBLAS_SCALING_ACCURATE, &all[cnt++]);
        ozaki2(&q, ex, nm, OZBLAS_SCALING_FAST, &all[cnt++]);
        for (int v = OZBLAS_OZAKI1_BITMASK; v <= OZBLAS_OZAKI1_HYBRID; v++)
            ozaki1(&q, ex, ns, v, &all[cnt++]);
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
    ozblas_candidate c[16];
    int cnt = ozblas_policy_estimate(p, is_complex, m, n, k, on_device, opt->moduli, opt->slices,
                                     c, 16);
    int best = -1;
    for (int i = 0; i < cnt; i++) {
        if (!c[i].meets_target || !(executors & (1 << c[i].executor)))
            continue;
        if (c[i].method == OZBLAS_METHOD_OZAKI2 && c[i].scaling != opt->scaling)
            continue;
        if (c[i].method == OZBLAS_METHOD_OZAKI1 && c[i].variant != opt->ozaki1_variant)
            continue;
        if (best < 0 || c[i].seconds < c[best].seconds)
            best = i;
    }
    if (best < 0)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    *choice = c[best];
    return OZBLAS_OK;
}

/* ---- this machine's identity and the cache path ------------------------------------------ */

static void host_identity(char *out, size_t len)
{
    char model[160] = "";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) && strncmp(line, "Model", 5) &&
                strncmp(line, "Hardware", 8))
                continue;
            char *v = strchr(line, ':');
            if (!v)
                continue;
            for (v++; *v == ' ' || *v == '\t'; v++)
                ;
            v[strcspn(v, "\r\n")] = 0;
            copy_str(model, sizeof model, v);
            break;
        }
        fclose(f);
    }
    if (!model[0]) {
        struct utsname u;
        copy_str(model, sizeof model, uname(&u) == 0 ? u.machine : "unknown CPU");
    }
    int cpus = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        cpus = CPU_COUNT(&set);
    if (cpus <= 0)
        cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(out, len, "%s, %d CPU%s", model, cpus, cpus == 1 ? "" : "s");
}

static uint32_t fnv1a(const char *s, uint32_t h)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void slug(const char *s, char *out, size_t len)
{
    size_t j = 0;
    int dash = 1;
    for (; *s && j + 1 < len && j < 40; s++) {
        if (isalnum((unsigned char)*s)) {
            out[j++] = (char)tolower((unsigned char)*s);
            dash = 0;
        } else if (!dash) {
            out[j++] = '-';
            dash = 1;
        }
    }
    while (j && out[j - 1] == '-')
        j--;
    out[j] = 0;
}

ozblas_status ozblas_policy_machine(ozblas_machine_id *id, char *path, size_t path_len)
{
    if (!id)
        return OZBLAS_ERR_INVALID_ARGUMENT;
    memset(id, 0, sizeof *id);
    copy_str(id->version, sizeof id->version, ozblas_version());
    copy_str(id->device, sizeof id->device, "none");
    copy_str(id->driver, sizeof id->driver, "none");
    ozblas_options opt;
    if (ozblas_options_from_env(&opt, NULL, 0) != OZBLAS_OK)
        ozblas_options_init(&opt);
    char name[128];
    int drv = 0;
    if (opt.executor != OZBLAS_EXECUTOR_CPU &&
        oz_cuda_device_identity(opt.device, name, sizeof name, &drv)) {
        copy_str(id->device, sizeof id->device, name);
        snprintf(id->driver, sizeof id->driver, "%d.%d", drv / 1000, (drv % 1000) / 10);
    }
    host_identity(id->host, sizeof id->host);
    if (!path || !path_len)
        return OZBLAS_OK;
    path[0] = 0;
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char dir[1024];
    if (xdg && xdg[0] == '/') /* the XDG spec: a relative path is invalid, ignore it */
        snprintf(dir, sizeof dir, "%s/ozblas", xdg);
    else if (home && *home)
        snprintf(dir, sizeof dir, "%s/.cache/ozblas", home);
    else
        return OZBLAS_OK;
    char sl[48];
    slug(strcmp(id->device, "none") ? id->device : "cpu", sl, sizeof sl);
    uint32_t h = fnv1a(id->device, fnv1a("\n", fnv1a(id->host, 2166136261u)));
    if ((size_t)snprintf(path, path_len, "%s/%s-%08x.txt", dir, sl[0] ? sl : "machine", h) >= path_len)
        path[0] = 0;
    return OZBLAS_OK;
}

/* ---- the cache file ------------------------------------------------------------------- */

/* The keys in the order written; identity keys are strings, the rest rates. dev: a device
 * key, required (and written) only when the device is not "none". */
typedef struct {
    const char *key;
    int kind; /* 0 string, 1 rate */
    int dev;
    size_t off;
} cache_key;

#define RATE(f, d) {#f, 1, d, offsetof(ozblas_profile, f)}
static const cache_key KEYS[] = {
    {"format", 0, 0, 0},  {"ozblas_version", 0, 0, 0}, {"device", 0, 0, 0},
    {"driver", 0, 0, 0},  {"host", 0, 0, 0},           {"date", 0, 0, 0},
    RATE(host_dgemm, 0),  RATE(host_zgemm, 0),         RATE(cpu_int_gemm, 0),
    RATE(cpu_pass_bw, 0), RATE(cpu_call_s, 0),         RATE(dev_dgemm, 1),
    RATE(dev_zgemm, 1),   RATE(dev_int8, 1),           RATE(dev_mem_bw, 1),
    RATE(h2d_bw, 1),      RATE(d2h_bw, 1),             RATE(h2d_pinned_bw, 1),
    RATE(d2h_pinned_bw, 1), RATE(dev_call_s, 1),       RATE(dev_emu_call_s, 1),
    {"end", 0, 0, 0},
};
#undef RATE
#define N_KEYS ((int)(sizeof KEYS / sizeof KEYS[0]))
#define CACHE_FORMAT "1"
#define CACHE_MAX_BYTES 16384

/* The value an identity key must have for this machine; NULL for the other keys. */
static const char *id_value(const ozblas_machine_id *id, const char *k)
{
    return !strcmp(k, "format")           ? CACHE_FORMAT
           : !strcmp(k, "ozblas_version") ? id->version
           : !strcmp(k, "device")         ? id->device
           : !strcmp(k, "driver")         ? id->driver
           : !strcmp(k, "host")           ? id->host
                                          : NULL;
}

static ozblas_status fail(char *why, size_t len, const char *fmt, const char *a, const char *b)
{
    if (why && len)
        snprintf(why, len, fmt, a, b);
    return OZBLAS_ERR_INVALID_ARGUMENT;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        *--e = 0;
    return s;
}

ozblas_status ozblas_policy_cache_read(const char *path, const ozblas_machine_id *id,
                                       ozblas_profile *out, char *why, size_t why_len)
{
    if (!path || !*path || !id || !out)
        return fail(why, why_len, "no cache path%s%s", "", "");
    /* Non-blocking, and only a regular file: a FIFO or a device there must not hang the
     * first call of a process (O_NONBLOCK does nothing to the read of a regular file). */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return fail(why, why_len, "cannot be read (%s)%s", strerror(errno), "");
    struct stat sb = {0};
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return fail(why, why_len, "is not a regular file (%s)%s",
                    S_ISDIR(sb.st_mode) ? "a directory" : S_ISFIFO(sb.st_mode) ? "a FIFO"
                                                                                : "not a file",
                    "");
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return fail(why, why_len, "cannot be read (%s)%s", strerror(errno), "");
    }
    char *buf = malloc(CACHE_MAX_BYTES + 1);
    if (!buf) {
        fclose(f);
        return OZBLAS_ERR_ALLOCATION;
    }
    size_t len = fread(buf, 1, CACHE_MAX_BYTES + 1, f);
    fclose(f);
    ozblas_status st = OZBLAS_OK;
    if (len > CACHE_MAX_BYTES) {
        st = fail(why, why_len, "larger than %s bytes%s", "16384", "");
        goto done;
    }
    buf[len] = 0;
    if (len == 0 || buf[len - 1] != '\n' || memchr(buf, 0, len)) {
        st = fail(why, why_len, "truncated (the last line is incomplete)%s%s", "", "");
        goto done;
    }
    char vals[N_KEYS][256];
    int seen[N_KEYS];
    memset(seen, 0, sizeof seen);
    int last = -1;
    for (char *line = buf, *next; *line; line = next) {
        next = strchr(line, '\n');
        *next++ = 0;
        char *l = trim(line);
        if (!*l || *l == '#')
            continue;
        char *eq = strchr(l, '=');
        if (!eq) {
            st = fail(why, why_len, "line \"%.60s\" is not key = value%s", l, "");
            goto done;
        }
        *eq = 0;
        char *key = trim(l), *val = trim(eq + 1);
        int i = 0;
        while (i < N_KEYS && strcmp(KEYS[i].key, key))
            i++;
        if (i == N_KEYS) {
            st = fail(why, why_len, "unknown key \"%.60s\"%s", key, "");
            goto done;
        }
        if (seen[i]) {
            st = fail(why, why_len, "key \"%s\" appears twice%s", key, "");
            goto done;
        }
        if (last >= 0 && !strcmp(KEYS[last].key, "end")) {
            st = fail(why, why_len, "key \"%s\" after the end line%s", key, "");
            goto done;
        }
        seen[i] = 1;
        last = i;
        copy_str(vals[i], sizeof vals[i], val);
    }
    if (last < 0 || strcmp(KEYS[last].key, "end") || strcmp(vals[last], "ok")) {
        st = fail(why, why_len, "truncated (no final \"end = ok\" line)%s%s", "", "");
        goto done;
    }
    /* Whose cache it is first (a stale file says so), then the rates. */
    int has_dev = 0;
    for (int i = 0; i < N_KEYS; i++) {
        const char *k = KEYS[i].key;
        const char *want = id_value(id, k);
        if (!want)
            continue;
        if (!seen[i]) {
            st = fail(why, why_len, "the key \"%s\" is missing%s", k, "");
            goto done;
        }
        if (strcmp(vals[i], want)) {
            char msg[512];
            snprintf(msg, sizeof msg, "stale: %s is \"%.150s\", this machine's is \"%.150s\"", k,
                     vals[i], want);
            st = fail(why, why_len, "%s%s", msg, "");
            goto done;
        }
        if (!strcmp(k, "device"))
            has_dev = strcmp(vals[i], "none") != 0;
    }
    ozblas_profile p;
    memset(&p, 0, sizeof p);
    for (int i = 0; i < N_KEYS; i++) {
        const char *k = KEYS[i].key, *v = vals[i];
        if (KEYS[i].dev && !has_dev)
            continue;
        if (!seen[i]) {
            st = fail(why, why_len, "the key \"%s\" is missing%s", k, "");
            goto done;
        }
        if (KEYS[i].kind != 1)
            continue;
        char *end;
        errno = 0;
        double x = strtod(v, &end);
        if (end == v || *end || errno || !isfinite(x) || x <= 0) {
            st = fail(why, why_len, "%s = \"%.60s\" is not a positive number", k, v);
            goto done;
        }
        *(double *)((char *)&p + KEYS[i].off) = x;
    }
    copy_str(p.name, sizeof p.name, "local");
    snprintf(p.description, sizeof p.description, "this machine (%.100s)",
             has_dev ? id->device : "host only");
    for (int i = 0; i < N_KEYS; i++)
        if (!strcmp(KEYS[i].key, "date"))
            snprintf(p.source, sizeof p.source, "measured by ozblas calibrate on %.40s (%.180s)",
                     vals[i], path);
    copy_str(p.host_name, sizeof p.host_name, id->host);
    p.has_device = has_dev;
    p.calibrated = 1;
    *out = p;
done:
    free(buf);
    return st;
}

static int mkdirs(const char *file)
{
    char d[1024];
    copy_str(d, sizeof d, file);
    for (char *s = d + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(d, 0755) != 0 && errno != EEXIST)
            return 0;
        *s = '/';
    }
    return 1;
}

ozblas_status ozblas_policy_cache_write(const char *path, const ozblas_machine_id *id,
                                        const ozblas_profile *p, char *why, size_t why_len)
{
    if (!path || !*path || !id || !p)
        return fail(why, why_len, "no cache path%s%s", "", "");
    int has_dev = strcmp(id->device, "none") != 0;
    for (int i = 0; i < N_KEYS; i++) {
        if (KEYS[i].kind != 1 || (KEYS[i].dev && !has_dev))
            continue;
        double x = *(const double *)((const char *)p + KEYS[i].off);
        if (!isfinite(x) || x <= 0)
            return fail(why, why_len, "%s is not a positive number%s", KEYS[i].key, "");
    }
    if (!mkdirs(path))
        return fail(why, why_len, "cannot create the directory of %s (%s)", path, strerror(errno));
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
    /* A fresh regular file (never a FIFO or a link left there), replaced atomically below. */
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NONBLOCK | O_CLOEXEC, 0644);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return fail(why, why_len, "cannot write %s (%s)", tmp, strerror(e));
    }
    char date[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    fprintf(f, "# ozblas calibration cache: written by `ozblas calibrate`, read by libozblas\n"
               "# (README \"Calibration cache\"). Rates in FLOP/s, OP/s or B/s; times in s.\n");
    for (int i = 0; i < N_KEYS; i++) {
        const char *k = KEYS[i].key;
        if (KEYS[i].kind == 1) {
            if (!KEYS[i].dev || has_dev)
                fprintf(f, "%s = %.6e\n", k, *(const double *)((const char *)p + KEYS[i].off));
            continue;
        }
        const char *v = id_value(id, k);
        if (!v)
            v = !strcmp(k, "date") ? date : "ok";
        fprintf(f, "%s = %s\n", k, v);
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return fail(why, why_len, "cannot write %s (%s)", path, strerror(e));
    }
    return OZBLAS_OK;
}

/* ---- the local profile ------------------------------------------------------------------ */

static pthread_mutex_t L_lock = PTHREAD_MUTEX_INITIALIZER;
static int L_loaded, L_state, L_warned;
static ozblas_profile L_prof;
static char L_note[3072];

/* Reads the cache once; the estimate when there is none or it is bad. Caller holds L_lock. */
static void local_load(void)
{
    ozblas_machine_id id;
    char path[1024], why[512];
    ozblas_policy_machine(&id, path, sizeof path);
    const char *dev = strcmp(id.device, "none") ? id.device : NULL;
    char est[512];
    ozblas_profile p;
    ozblas_policy_estimate_profile(dev, &p, est, sizeof est);
    if (!path[0]) {
        L_state = 0;
        snprintf(L_note, sizeof L_note, "not calibrated (no cache directory: HOME unset); %s", est);
    } else if (access(path, F_OK) != 0) {
        L_state = 0;
        snprintf(L_note, sizeof L_note, "not calibrated (no %s; run `ozblas calibrate`); %s",
                 path, est);
    } else if (ozblas_policy_cache_read(path, &id, &p, why, sizeof why) != OZBLAS_OK) {
        L_state = -1; /* p is still the estimate: a failed read leaves it untouched */
        snprintf(L_note, sizeof L_note,
                 "calibration cache %s ignored: %s; until `ozblas calibrate` rebuilds it, %s",
                 path, why, est);
    } else {
        L_state = 1;
        snprintf(L_note, sizeof L_note, "calibrated: %s", p.source);
    }
    L_prof = p;
    L_loaded = 1;
}

int ozblas_policy_local(ozblas_profile *out, char *note, size_t note_len)
{
    pthread_mutex_lock(&L_lock);
    if (!L_loaded)
        local_load();
    int s = L_state;
    if (out)
        *out = L_prof;
    if (note && note_len)
        snprintf(note, note_len, "%s", L_note);
    pthread_mutex_unlock(&L_lock);
    return s;
}

int oz_policy_local_dispatch(ozblas_profile *out)
{
    pthread_mutex_lock(&L_lock);
    if (!L_loaded)
        local_load();
    int s = L_state;
    *out = L_prof;
    /* A bad cache is said once per process, where the user's calls are decided. */
    if (s < 0 && !L_warned) {
        L_warned = 1;
        fprintf(stderr, "ozblas: %s\n", L_note);
    }
    pthread_mutex_unlock(&L_lock);
    return s;
}

void ozblas_policy_set_local(const ozblas_profile *p)
{
    pthread_mutex_lock(&L_lock);
    if (p) {
        L_prof = *p;
        L_state = p->calibrated ? 1 : 0;
        snprintf(L_note, sizeof L_note, "set by ozblas_policy_set_local: profile %s", p->name);
        L_loaded = 1;
    } else {
        L_loaded = 0;
        L_warned = 0;
    }
    pthread_mutex_unlock(&L_lock);
}
