/* The policy's machine profiles: the built-in ones (datasheet peaks times the efficiencies
 * measured on our H200, our H200 as measured, the development machine) and the estimate for
 * a device name. The cost model is in policy_model.c, the calibration cache and this
 * machine's profile in policy_cache.c. */
#include <ctype.h>
#include <string.h>

#include "policy_internal.h"

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

/* Fixed costs of the device profiles (launches, the small copies of the scaling data, the
 * host's waits): from the 1024 and 2048 device-array rows and cupy_native at 1024. */
#define DEVICE_CALL_S 20e-6
#define EMU_CALL_S 250e-6

/* ---- built-in profiles ------------------------------------------------------------------ */

/* Datasheet peaks (SXM parts; INT8 dense, without sparsity; link = PCIe per direction,
 * Gen4 x16 32 GB/s, Gen5 x16 64 GB/s):
 *   A100 80GB SXM: FP64 tensor core 19.5 TFLOPS, INT8 624 TOPS, HBM2e 2.039 TB/s, Gen4
 *   H100 SXM: FP64 tensor core 67, INT8 1979, HBM3 3.35 TB/s, Gen5
 *   H200 SXM: FP64 tensor core 67, INT8 1979, HBM3e 4.8 TB/s, Gen5
 *   H800 SXM: FP64 1, INT8 1979, HBM3 3.35 TB/s, Gen5
 *   GeForce RTX 4090 (Ada whitepaper): FP64 1.29 (1/64 of FP32), INT8 tensor 660.6, 1.008 TB/s, Gen4
 *   B200 (DGX B200 datasheet, per GPU): FP64 40, INT8 4500, FP4 9000 dense, HBM3e 8 TB/s, Gen5
 *   B300 (third-party spec tables, per GPU; not NVIDIA's datasheet): FP64 1.25, INT8 150,
 *     FP8 4500, FP4 about 14000 dense, HBM3e 7.7 TB/s; link Gen5 assumed (64 GB/s)
 *   RTX PRO 6000 Blackwell (the figures Hayashi, Mukunoki, Hoshino and Katagiri's FP4 Ozaki
 *     paper, 2026, states for its test card):
 *     FP64 1.85, INT8 1000, FP8 1000, FP4 2000, GDDR7 1.792 TB/s (NVIDIA's product page), Gen5
 * FP4 (E2M1 block-scaled, dense) has never been measured here: its effective rate is the
 * peak times the INT8 efficiency measured on our H200 (EFF_INT8), an assumption. The FP8
 * figures are recorded for an FP8 engine (policy_model.c engine_rate), not used yet.
 * Hosts (base clock, all cores: cores * DP FLOP per cycle * GHz):
 *   2x AMD EPYC 7742 (DGX A100): 128 * 16 * 2.25 = 4.61 TFLOPS
 *   2x Xeon Platinum 8480C (DGX H100/H200, HGX H800): 112 * 32 * 2.0 = 7.17
 *   2x Xeon Platinum 8570 (DGX B200): 112 * 32 * 2.1 = 7.53
 *   Core i9-13900K (a common RTX 4090 desktop): 8 P * 16 * 3.0 + 16 E * 8 * 2.2 = 0.67
 * (the b300 and rtx_pro_6000 hosts are not known: the DGX B200's and the RTX 4090 desktop's
 * stand in, and their descriptions say so)
 * A third-party check: GEMMul8 on an A100 SXM4 (UCHINO-Yuki/GEMMul8_numerical_results,
 * results_04) measured DGEMM at 17.3-18.1 TFLOPS and INT8 GEMM at 406-437 TOPS (0.65-0.70
 * of peak, like our H200's 0.64), and Ozaki II fast-16 ahead of native from 8192 on: an A100
 * with device-resident data does emulate large products, which this model reproduces. */
typedef struct {
    const char *name, *description, *host_name;
    double fp64_tflops, int8_tops, mem_tbs, link_gbs, host_tflops, fp4_tflops;
} datasheet;

static const datasheet DATASHEETS[] = {
    {"a100", "NVIDIA A100 80GB SXM, 2x EPYC 7742 host", "2x AMD EPYC 7742", 19.5, 624, 2.039, 32, 4.61, 0},
    {"h100", "NVIDIA H100 SXM, 2x Xeon 8480C host", "2x Intel Xeon Platinum 8480C", 67, 1979, 3.35, 64, 7.17, 0},
    {"h200", "NVIDIA H200 SXM, 2x Xeon 8480C host", "2x Intel Xeon Platinum 8480C", 67, 1979, 4.8, 64, 7.17, 0},
    {"h800", "NVIDIA H800 SXM, 2x Xeon 8480C host", "2x Intel Xeon Platinum 8480C", 1.0, 1979, 3.35, 64, 7.17, 0},
    {"rtx4090", "NVIDIA GeForce RTX 4090, Core i9-13900K host", "Intel Core i9-13900K", 1.29, 660.6, 1.008, 32, 0.67, 0},
    {"b200", "NVIDIA B200, 2x Xeon 8570 host", "2x Intel Xeon Platinum 8570", 40, 4500, 8.0, 64, 7.53, 9000},
    {"b300", "NVIDIA B300 (third-party spec figures), host assumed: 2x Xeon 8570",
     "2x Intel Xeon Platinum 8570 (assumed)", 1.25, 150, 7.7, 64, 7.53, 14000},
    {"rtx_pro_6000", "NVIDIA RTX PRO 6000 Blackwell (Hayashi et al. 2026's figures), host assumed: Core i9-13900K",
     "Intel Core i9-13900K (assumed)", 1.85, 1000, 1.792, 64, 0.67, 2000},
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
    oz_copy_str(p->name, sizeof p->name, d->name);
    oz_copy_str(p->description, sizeof p->description, d->description);
    oz_copy_str(p->source, sizeof p->source,
             "published peaks x the efficiency measured on our H200 (FP64 0.84, INT8 0.64 (also "
             "for FP4: not measured), link 0.09, host 0.84); CPU executor rates assumed from the "
             "development machine's ratios to DGEMM");
    oz_copy_str(p->host_name, sizeof p->host_name, d->host_name);
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
    p->peak_fp4 = d->fp4_tflops * 1e12;
    p->dev_fp4 = p->peak_fp4 * EFF_INT8;
    /* The pass costs are counted in units of the datasheet bandwidth (see above). */
    p->dev_mem_bw = p->peak_mem_bw;
    p->h2d_bw = p->d2h_bw = p->peak_link_bw * EFF_LINK;
    p->dev_call_s = DEVICE_CALL_S;
    p->dev_emu_call_s = EMU_CALL_S;
}

static void make_measured_h200(ozblas_profile *p)
{
    memset(p, 0, sizeof *p);
    oz_copy_str(p->name, sizeof p->name, "measured_h200");
    oz_copy_str(p->description, sizeof p->description,
             "the H200 this project measured (h200_run3, h200_run4)");
    oz_copy_str(p->source, sizeof p->source,
             "measured: benchmarks/results/h200_run3_*.json, h200_run4_device_arrays.json; "
             "memory bandwidth the datasheet's 4.8 TB/s (the pass costs' unit); its host was "
             "not measured: the development machine's figures stand in");
    oz_copy_str(p->host_name, sizeof p->host_name, "not measured (the cpu profile's figures)");
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
    oz_copy_str(p->name, sizeof p->name, "cpu");
    oz_copy_str(p->description, sizeof p->description,
             "host only: the project's 2-core development machine, one thread");
    oz_copy_str(p->source, sizeof p->source,
             "measured by ozblas calibrate on the development machine "
             "(benchmarks/results/policy_check.json)");
    oz_copy_str(p->host_name, sizeof p->host_name, "AMD EPYC, 2 CPUs, one thread (OpenBLAS)");
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
                                     {"a100", "a100"},    {"b200", "b200"}, {"b300", "b300"},
                                     {"pro 6000", "rtx_pro_6000"}};
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

