"""The policy's cost model: which way to compute C = op(A) op(B) is fastest on a machine.

One pure function, `estimate`, predicts the time of every candidate (host native, device
native, Ozaki II with N moduli, Ozaki I with s slices, transfers included) from a device
profile; `choose` takes the fastest candidate that meets the accuracy target; `explain` and
`format_explain` say why; `main_explain` is the `ozblas explain` command.

Profiles are data. The datasheet ones (a100, h100, h200, h800, rtx4090, b200) hold vendor peak
figures, which are never reached: every datasheet rate is multiplied by the efficiency this
project *measured* on an H200 for the same resource (`EFFICIENCY`). `measured_h200` holds the
H200 figures themselves, `cpu` the project's development machine. None of them is a
calibration of the machine you run on: measuring the local rates (and a cache file shared with
the C library) is the next step of the policy; `load_profile()` is where it will plug in.

The accuracy target for now is what the default counts give (README, "Accuracy"): DGEMM-level
`err_ab` for inputs up to phi = 2 with 16 moduli (either scaling) or 11 Ozaki I slices. Choosing
the count per call from the inputs (automatic precision) is a later step.

All times are seconds; all rates are effective (what a GEMM or pass achieves), not peaks.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass

from . import config

__all__ = ["Profile", "PROFILES", "EFFICIENCY", "estimate", "choose", "explain", "format_explain",
           "crossover", "load_profile", "main_explain"]

# --------------------------------------------------------------------------------------------
# Efficiency: measured / datasheet peak, on the H200, per resource
# --------------------------------------------------------------------------------------------
# benchmarks/results/h200_run4_device_arrays.json (cupy_native, n = 16384 and 8192): 56.1 and
# 56.2 TFLOPS against the H200's 67 TFLOPS FP64 tensor-core peak.
_H200_FP64_MEASURED = 56.0e12
# Same file, ozblas_ozaki2_device_arrays n = 16384: phase 2 (the N INT8 products) took 95.7 ms
# for 14 products of 2 * 16384^3 (fast-14) and 111.8 ms for 16 (accurate-16): 1.29 and 1.26
# POPS, against 1979 TOPS dense INT8 peak. (At n <= 8192 the same phase runs at ~1.5 POPS; the
# lower, large-size figure is used, so the model is slightly pessimistic about emulation.)
_H200_INT8_MEASURED = 1.27e15
# benchmarks/results/h200_run3_host_arrays.json: host-array calls minus their device-event
# time (e.g. ozblas_native n = 16384: 1.209 s - 0.159 s for 8 * 3 * 16384^2 bytes; ozaki2
# fast-14: 1.276 - 0.127 s) give 5.2 to 6.1 GB/s, against PCIe Gen5 x16's 64 GB/s per
# direction. That is the executor's path today (pageable host memory, cudaMemcpy2DAsync).
_H200_LINK_MEASURED = 5.6e9

EFFICIENCY = {
    "fp64": _H200_FP64_MEASURED / 67.0e12,   # 0.84
    "int8": _H200_INT8_MEASURED / 1979e12,   # 0.64
    "link": _H200_LINK_MEASURED / 64.0e9,    # 0.09
    # Host DGEMM: no host peak was measured against; the GPU FP64 factor is borrowed.
    "host": _H200_FP64_MEASURED / 67.0e12,
}

# --------------------------------------------------------------------------------------------
# Pass costs, calibrated on the H200 (h200_run3/run4 phase_seconds_median, device arrays)
# --------------------------------------------------------------------------------------------
# Every non-GEMM phase is modelled as a memory-bound pass: (work per element, in bytes-
# equivalent) * elements / device memory bandwidth (the H200's 4.8 TB/s datasheet figure is the
# unit; the calibration folds the passes' real efficiency and arithmetic into the byte counts,
# and the same counts are applied to every device at its own bandwidth).
OZ2_STATS_AB = 21.8        # phase 0, fast: per element of A and B (2.44 ms at 16384, 0.63 at 8192)
OZ2_ACC_AB = 24.0          # phase 0, accurate: extra pass per element of A, B (+ one INT8 product G)
OZ2_RESIDUE_AB = 13.4      # phase 1: per element of A and B ...
OZ2_RESIDUE_AB_MOD = 5.5   # ... plus this per modulus (run3 8192, 12..16 moduli: +0.13 ms each)
OZ2_REDUCE_C_MOD = 7.0     # phase 3: per element of C per modulus (5.47 ms at 16384, 14 moduli)
OZ2_CRT_C = 96.0           # phase 4: per element of C ...
OZ2_CRT_C_MOD = 10.6       # ... plus this per modulus (14.98 ms at 16384, 3.26 at 8192, 14 moduli)
# Complex (ZGEMM, Karatsuba: 3 products per modulus), from the z runs at 8192 and 16384:
# A and B have two real parts (x2 per element), the residues make three sets per modulus
# (Re, Im, Re + Im), the reduction reads three int32 products per modulus into two outputs
# (x2.5 measured: 13.72 ms against 5.47), the CRT writes two outputs (x2: 29.5 ms against 15.0).
OZ2_Z_RESIDUE_MOD = 3.0
OZ2_Z_REDUCE = 2.5
OZ2_Z_CRT = 2.0
# Ozaki I (hybrid, the default variant), h200_run4 ozaki1 rows at 4096 and 8192, 11 slices:
OZ1_SPLIT_AB = 13.4        # split: per element of A and B ...
OZ1_SPLIT_AB_SLICE = 16.0  # ... plus this per slice (5.62 ms at 8192, 1.20 at 4096)
OZ1_CONVERT_C_PROD = 20.3  # per element of C per integer product (18.7 ms at 8192, 66 products)
OZ1_ACCUM_C_GROUP = 32.0   # FP64 accumulation per element of C per group (s groups; 4.96 ms)
# Fixed costs (launches, the small device-to-host copies of the scaling data and the host's
# wait for them): from the 1024 and 2048 device-array rows (0.60 and 1.22 ms per Ozaki II
# call, against ~0.15 and ~0.7 ms of modelled work) and cupy_native at 1024 (60 us).
DEVICE_CALL_S = 20e-6
EMU_CALL_S = 250e-6
EMU_PER_PRODUCT_S = 8e-6
HOST_CALL_S = 5e-6
# Native ZGEMM runs at 0.87 of the DGEMM rate (h200_run4: 48.3-49.0 against 56.1 TFLOPS).
ZGEMM_EFFICIENCY = 0.87
# The CPU executor's passes (cpu profile only): cpu_speed.json at n = 2048, fast-14, phases 0,
# 1, 3, 4 (67.7, 99.6, 176.4, 347.1 ms) against the byte counts above give 2.3 to 7.6 GB/s;
# 3 GB/s is the round middle. The CPU executor is the bit-exact fallback, never a winner.
CPU_PASS_BW = 3.0e9


@dataclass(frozen=True)
class Profile:
    """A machine as the cost model sees it. Rates are effective, not peaks.

    A profile without a device (`fp64 is None`) is a host alone. `peaks` keeps the datasheet
    figures the effective rates come from (empty for measured profiles)."""

    name: str
    description: str
    source: str
    fp64: float | None          # device FP64 GEMM, FLOP/s (tensor-core FP64 where the GEMM uses it)
    int8: float | None          # device INT8 GEMM, OP/s (dense)
    mem_bw: float | None        # device memory bandwidth, B/s
    link_bw: float | None       # host <-> device, B/s per direction
    host_dgemm: float           # host BLAS DGEMM, FLOP/s
    host_sgemm: float           # host BLAS SGEMM, FLOP/s (the CPU executor's integer products)
    host_name: str = ""
    peaks: tuple = ()
    calibrated: bool = False

    @property
    def has_device(self) -> bool:
        return self.fp64 is not None

    @property
    def fp64_int8_ratio(self) -> float | None:
        return self.int8 / self.fp64 if self.has_device else None

    def as_dict(self) -> dict:
        d = asdict(self)
        d["peaks"] = dict(self.peaks)
        d["fp64_int8_ratio"] = self.fp64_int8_ratio
        return d


def _datasheet(name, description, fp64_tflops, int8_tops, mem_tbs, link_gbs, host_name,
               host_fp64_tflops, source):
    """A profile from vendor peak figures, each multiplied by the measured efficiency."""
    e = EFFICIENCY
    host = host_fp64_tflops * 1e12 * e["host"]
    return Profile(
        name=name, description=description, source=source,
        fp64=fp64_tflops * 1e12 * e["fp64"], int8=int8_tops * 1e12 * e["int8"],
        mem_bw=mem_tbs * 1e12, link_bw=link_gbs * 1e9 * e["link"],
        host_dgemm=host, host_sgemm=2 * host, host_name=host_name,
        peaks=(("fp64_tflops", fp64_tflops), ("int8_tops", int8_tops), ("mem_tbs", mem_tbs),
               ("link_gbs", link_gbs), ("host_fp64_tflops", host_fp64_tflops)))


# Host peaks (datasheet, base clock, all cores): cores * DP FLOP per cycle * GHz.
#   2x AMD EPYC 7742 (DGX A100): 128 * 16 (2x256-bit FMA) * 2.25 = 4.61 TFLOPS
#   2x Intel Xeon Platinum 8480C (DGX H100/H200, HGX H800): 112 * 32 (2x512-bit FMA) * 2.0 = 7.17
#   2x Intel Xeon Platinum 8570 (DGX B200): 112 * 32 * 2.1 = 7.53
#   Intel Core i9-13900K (a common RTX 4090 desktop): 8 P * 16 * 3.0 + 16 E * 8 * 2.2 = 0.67
# Device peaks: NVIDIA datasheets (SXM parts; INT8 dense, i.e. without sparsity; link = PCIe
# per direction: Gen4 x16 32 GB/s, Gen5 x16 64 GB/s):
#   A100 80GB SXM: FP64 tensor core 19.5 TFLOPS, INT8 624 TOPS, HBM2e 2.039 TB/s, Gen4
#   H100 SXM: FP64 tensor core 67, INT8 1979, HBM3 3.35 TB/s, Gen5
#   H200 SXM: FP64 tensor core 67, INT8 1979, HBM3e 4.8 TB/s, Gen5
#   H800 SXM: FP64 (and FP64 tensor core) 1, INT8 1979, HBM3 3.35 TB/s, Gen5
#   GeForce RTX 4090 (Ada whitepaper): FP64 1.29 (1/64 of FP32), INT8 tensor 660.6, 1.008 TB/s, Gen4
#   B200 (DGX B200 datasheet, per GPU): FP64 (tensor core) 40, INT8 4500, HBM3e 8 TB/s, Gen5
# Check against published third-party runs: GEMMul8 on an A100 SXM4 80GB
# (UCHINO-Yuki/GEMMul8_numerical_results, results_04, d_time csv) measured DGEMM at 17.3-18.1
# TFLOPS, INT8 GEMM at 406-437 TOPS (0.65-0.70 of peak, like our H200's 0.64), and Ozaki II
# fast-16 behind native at 4096 (15.7 TFLOPS) but ahead at 8192 (20.3) and 16384 (21.7). So an
# A100 with device-resident data does emulate large products; this model says so from ~7400 on.
_DS = "datasheet peaks x measured H200 efficiency (policy.EFFICIENCY)"
PROFILES: dict[str, Profile] = {
    "a100": _datasheet("a100", "NVIDIA A100 80GB SXM, 2x EPYC 7742 host", 19.5, 624, 2.039, 32,
                       "2x AMD EPYC 7742", 4.61, _DS),
    "h100": _datasheet("h100", "NVIDIA H100 SXM, 2x Xeon 8480C host", 67, 1979, 3.35, 64,
                       "2x Intel Xeon Platinum 8480C", 7.17, _DS),
    "h200": _datasheet("h200", "NVIDIA H200 SXM, 2x Xeon 8480C host", 67, 1979, 4.8, 64,
                       "2x Intel Xeon Platinum 8480C", 7.17, _DS),
    "h800": _datasheet("h800", "NVIDIA H800 SXM, 2x Xeon 8480C host", 1.0, 1979, 3.35, 64,
                       "2x Intel Xeon Platinum 8480C", 7.17, _DS),
    "rtx4090": _datasheet("rtx4090", "NVIDIA GeForce RTX 4090, Core i9-13900K host", 1.29, 660.6,
                          1.008, 32, "Intel Core i9-13900K", 0.67, _DS),
    "b200": _datasheet("b200", "NVIDIA B200, 2x Xeon 8570 host", 40, 4500, 8.0, 64,
                       "2x Intel Xeon Platinum 8570", 7.53, _DS),
    # The project's development machine (benchmarks/results/cpu_speed.json, 2 cores, OpenBLAS):
    # native DGEMM 191.6 GFLOPS at n = 2048; the 14 SGEMMs of Ozaki II (phase 2) ran at 424-435
    # GFLOPS at n = 1024 and 2048.
    "cpu": Profile(name="cpu", description="host only: the project's 2-core development machine",
                   source="measured: benchmarks/results/cpu_speed.json", fp64=None, int8=None,
                   mem_bw=None, link_bw=None, host_dgemm=190e9, host_sgemm=430e9,
                   host_name="2-core AMD EPYC (OpenBLAS)"),
    # The H200 this project ran on: rates from h200_run3/run4 (see the constants above); the
    # memory bandwidth is the datasheet's 4.8 TB/s, the unit the pass costs were calibrated in.
    # Its host (a 16-core VM) was never measured: the cpu profile's host figures stand in.
    "measured_h200": Profile(
        name="measured_h200", description="the H200 this project measured (h200_run3, h200_run4)",
        source="measured: benchmarks/results/h200_run3_*.json, h200_run4_device_arrays.json",
        fp64=_H200_FP64_MEASURED, int8=_H200_INT8_MEASURED, mem_bw=4.8e12,
        link_bw=_H200_LINK_MEASURED, host_dgemm=190e9, host_sgemm=430e9,
        host_name="not measured (the cpu profile's figures)"),
}
PROFILE_NAMES = tuple(PROFILES) + ("local",)

# Counts that meet the accuracy target (DGEMM-level err_ab up to phi = 2, README "Accuracy"
# table: 16 moduli for either scaling, 10-11 Ozaki I slices). With OZBLAS_MODULI=auto a call
# takes 16-18 moduli for phi <= 2 (its bound is worst-case), so 16 is the typical count.
TARGET_MODULI = {"accurate": 16, "fast": 16}
TARGET_SLICES = 11  # with OZBLAS_SLICES=auto a call takes 9-12 slices for phi <= 2
# Shown for comparison only: 15 fast moduli meet DGEMM-level accuracy up to phi = 1.
FAST_15_NOTE = "meets DGEMM-level accuracy up to phi = 1 only (16 needed at phi = 2)"


# --------------------------------------------------------------------------------------------
# The cost model
# --------------------------------------------------------------------------------------------
def _profile(profile) -> Profile:
    if isinstance(profile, Profile):
        return profile
    if profile is None or profile == "local":
        return load_profile()[0]
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; accepted: {', '.join(PROFILE_NAMES)}")
    return PROFILES[profile]


def _cand(name, method, executor, breakdown, flops, meets, count=None, scaling=None, note=None):
    seconds = sum(breakdown.values())
    return {"name": name, "method": method, "executor": executor, "count": count,
            "scaling": scaling, "seconds": seconds, "tflops": flops / seconds / 1e12,
            "breakdown": breakdown, "meets_target": meets, "note": note}


def _oz2(p: Profile, m, n, k, cplx, moduli, scaling, bw, call_s, meets, executor, note=None):
    ab, c, mnk = m * k + k * n, m * n, m * n * k
    prods = moduli * (3 if cplx else 1)
    zf = 2 if cplx else 1
    gemm_rate = p.int8 if executor == "device" else p.host_sgemm
    stats = zf * ab * OZ2_STATS_AB / bw
    if scaling == "accurate":  # one more small-integer product (G = |A| |B|, real also for
        stats += zf * ab * OZ2_ACC_AB / bw + 2 * mnk / gemm_rate  # ZGEMM) and its pass
    mod_sets = OZ2_Z_RESIDUE_MOD if cplx else 1
    bd = {
        "stats": stats,
        "residues": ab * (zf * OZ2_RESIDUE_AB + mod_sets * moduli * OZ2_RESIDUE_AB_MOD) / bw,
        "int8_products": prods * 2 * mnk / gemm_rate,
        "reduction": c * moduli * OZ2_REDUCE_C_MOD * (OZ2_Z_REDUCE if cplx else 1) / bw,
        "crt": c * (OZ2_CRT_C + moduli * OZ2_CRT_C_MOD) * (OZ2_Z_CRT if cplx else 1) / bw,
        "overhead": call_s + (prods + (scaling == "accurate")) * EMU_PER_PRODUCT_S,
    }
    tag = "" if executor == "device" else " (cpu executor)"
    return bd, _cand(f"ozaki2 {scaling} {moduli}{tag}", "ozaki2", executor, bd,
                     (8 if cplx else 2) * mnk, meets, moduli, scaling, note)


def estimate(m, n, k, dtype="d", where="host", profile="h200", moduli=None, slices=None):
    """Predicted time of each way to compute C (m x n) = op(A) (m x k) op(B) (k x n).

    dtype 'd' (DGEMM) or 'z' (ZGEMM); where the operands live, 'host' or 'device' (data on the
    other side pays its transfers: A, B in, C out, at the profile's link bandwidth; beta = 0
    assumed). `moduli` / `slices` replace the target counts (then those candidates are taken
    as meeting the target: the caller asked for them). Returns a list of candidate dicts (name,
    method, executor, count, scaling, seconds, tflops, breakdown, meets_target, note)."""
    p = _profile(profile)
    if dtype not in ("d", "z"):
        raise ValueError(f"dtype {dtype!r} is not valid; accepted: d, z")
    if where not in ("host", "device"):
        raise ValueError(f"where {where!r} is not valid; accepted: host, device")
    if where == "device" and not p.has_device:
        raise ValueError(f"where='device' needs a device; profile {p.name!r} is a host alone")
    if min(m, n, k) <= 0:
        raise ValueError(f"dimensions must be positive, got m={m}, n={n}, k={k}")
    cplx = dtype == "z"
    es = 16 if cplx else 8
    mnk = m * n * k
    flops = (8 if cplx else 2) * mnk
    link = (m * k + k * n + m * n) * es / p.link_bw if p.has_device else 0.0
    out = []

    bd = {"host_dgemm": flops / p.host_dgemm, "overhead": HOST_CALL_S}
    if where == "device":
        bd["transfers"] = link
    out.append(_cand("native host", "native", "host", bd, flops, True))

    if p.has_device:
        bd = {"fp64_gemm": flops / (p.fp64 * (ZGEMM_EFFICIENCY if cplx else 1)),
              "overhead": DEVICE_CALL_S}
        if where == "host":
            bd["transfers"] = link
        out.append(_cand("native device", "native", "device", bd, flops, True))

    if p.has_device:
        counts = ([(moduli, "accurate", True), (moduli, "fast", True)] if moduli is not None else
                  [(TARGET_MODULI["accurate"], "accurate", True),
                   (TARGET_MODULI["fast"], "fast", True), (15, "fast", False)])
        for nmod, scaling, meets in counts:
            bd, c = _oz2(p, m, n, k, cplx, nmod, scaling, p.mem_bw, EMU_CALL_S, meets, "device",
                         None if meets else FAST_15_NOTE)
            if where == "host":
                bd["transfers"] = link
                c = _cand(c["name"], "ozaki2", "device", bd, flops, meets, nmod, scaling, c["note"])
            out.append(c)

        s = slices if slices is not None else TARGET_SLICES
        prods = s * (s + 1) // 2 * (4 if cplx else 1)
        zf = 2 if cplx else 1
        ab, cc = m * k + k * n, m * n
        bd = {"split": zf * ab * (OZ1_SPLIT_AB + s * OZ1_SPLIT_AB_SLICE) / p.mem_bw,
              "int8_products": prods * 2 * mnk / p.int8,
              "conversion": cc * prods * OZ1_CONVERT_C_PROD / p.mem_bw,
              "fp64_accumulation": zf * cc * s * OZ1_ACCUM_C_GROUP / p.mem_bw,
              "overhead": EMU_CALL_S + prods * EMU_PER_PRODUCT_S}
        if where == "host":
            bd["transfers"] = link
        out.append(_cand(f"ozaki1 hybrid {s}", "ozaki1", "device", bd, flops, True, s, "hybrid"))
    else:
        # No device: the CPU executor's Ozaki II (products on the host SGEMM). Shown so the
        # table says why the host stays native; it does not win (README "CPU speed").
        nmod = moduli if moduli is not None else TARGET_MODULI["fast"]
        out.append(_oz2(p, m, n, k, cplx, nmod, "fast", CPU_PASS_BW, 100e-6, True, "host")[1])
    return out


def choose(m, n, k, dtype="d", where="host", profile="h200", moduli=None, slices=None):
    """The fastest candidate of `estimate` that meets the accuracy target (a candidate dict)."""
    cands = estimate(m, n, k, dtype, where, profile, moduli, slices)
    return min((c for c in cands if c["meets_target"]), key=lambda c: c["seconds"])


def crossover(profile, dtype="d", where="device", lo=256, hi=65536, step=256):
    """Smallest square n (a multiple of `step` in [lo, hi]) from which the choice is an
    emulation at every larger n of the grid; None if it never is."""
    p = _profile(profile)
    if where == "device" and not p.has_device:
        return None
    first = None
    for nn in range(lo, hi + 1, step):
        emu = choose(nn, nn, nn, dtype, where, p)["method"] != "native"
        if emu and first is None:
            first = nn
        elif not emu:
            first = None
    return first


# --------------------------------------------------------------------------------------------
# The local machine (the seam for calibration)
# --------------------------------------------------------------------------------------------
_NAME_HINTS = (("4090", "rtx4090"), ("h800", "h800"), ("h200", "h200"), ("h100", "h100"),
               ("a100", "a100"), ("b200", "b200"))


def _local_device_name() -> str | None:
    """The first CUDA device's name, or None when the CUDA executor is not usable."""
    try:
        from . import api
        d = api.info()
    except Exception:  # no native library: the model still works, on the host profile
        return None
    if not d["executors"]["cuda"]["available"]:
        return None
    desc = d.get("cuda") or ""
    # "...; 1 device: 0: NVIDIA H200 (cc 9.0, 140 GiB)"
    if "0: " in desc:
        return desc.split("0: ", 1)[1].split(" (", 1)[0].strip()
    return desc or "unknown CUDA device"


def load_profile(device_name=None) -> tuple[Profile, str]:
    """The profile for this machine and a note on where it comes from.

    Calibration (measured local rates, cached per device, driver and version and read by the C
    library too) is not done yet: this returns a built-in profile and says so."""
    name = _local_device_name() if device_name is None else device_name
    if not name:
        return PROFILES["cpu"], ("no usable CUDA device; no calibration yet: using the cpu "
                                 "profile (the project's development machine)")
    low = name.lower()
    if "h200" in low:
        return PROFILES["measured_h200"], (f"{name}: no calibration of this machine yet; using "
                                           "measured_h200 (this project's H200 measurements)")
    for hint, prof in _NAME_HINTS:
        if hint in low:
            return PROFILES[prof], (f"no calibration yet; using the datasheet profile closest "
                                    f"to {name}: {prof}")
    return PROFILES["h100"], (f"no calibration yet and no datasheet profile for {name}; "
                              "using h100")


# --------------------------------------------------------------------------------------------
# explain
# --------------------------------------------------------------------------------------------
def explain(m, n, k, dtype="d", where="host", profile=None, moduli=None, slices=None) -> dict:
    """Plain dict: the profile, the candidates with predicted times, the choice and why."""
    if profile is None or profile == "local":
        p, note = load_profile()
    else:
        p, note = _profile(profile), None
    if where == "device" and not p.has_device:
        raise ValueError(f"where='device' needs a device; profile {p.name!r} is a host alone")
    cands = sorted(estimate(m, n, k, dtype, where, p, moduli, slices), key=lambda c: c["seconds"])
    best = min((c for c in cands if c["meets_target"]), key=lambda c: c["seconds"])
    natives = [c for c in cands if c["method"] == "native"]
    best_native = min(natives, key=lambda c: c["seconds"])
    reasons = [f"profile {p.name}: {p.description} ({p.source})"]
    if note:
        reasons.append(note)
    if p.has_device:
        reasons.append(f"device FP64 {p.fp64 / 1e12:.3g} TFLOPS, INT8 {p.int8 / 1e12:.4g} TOPS "
                       f"(effective): FP64:INT8 = 1:{p.fp64_int8_ratio:.0f}")
    if moduli is None and slices is None:
        reasons.append(f"accuracy target: DGEMM-level err_ab up to phi = 2, met by Ozaki II with "
                       f"{TARGET_MODULI['accurate']} moduli (either scaling) and Ozaki I with "
                       f"{TARGET_SLICES} slices (README accuracy table); automatic precision per "
                       "call is not done yet")
    else:
        reasons.append("counts given by the caller are taken as meeting the target")
    if where == "host" and p.has_device:
        t = next(c for c in cands if c["executor"] == "device")["breakdown"]["transfers"]
        reasons.append(f"data on the host: device candidates pay {t * 1e3:.3g} ms of transfers")
    elif where == "device":
        t = next(c for c in cands if c["executor"] == "host")["breakdown"]["transfers"]
        reasons.append(f"data on the device: the host candidate pays {t * 1e3:.3g} ms of transfers")
    if best["method"] == "native":
        emu = [c for c in cands if c["method"] != "native" and c["meets_target"]]
        if emu:
            e = min(emu, key=lambda c: c["seconds"])
            reasons.append(f"{best['name']} is fastest; the best emulation ({e['name']}) would "
                           f"take {e['seconds'] / best['seconds']:.2f}x as long")
        else:
            reasons.append(f"{best['name']} is fastest")
    else:
        reasons.append(f"{best['name']} is fastest: {best_native['seconds'] / best['seconds']:.2f}x "
                       f"faster than {best_native['name']}")
    return {
        "profile": p.as_dict(),
        "profile_note": note,
        "problem": {"m": m, "n": n, "k": k, "dtype": dtype, "where": where},
        "candidates": cands,
        "choice": best["name"],
        "method": best["method"],
        "reasons": reasons,
    }


def _fmt_s(s: float) -> str:
    return f"{s * 1e3:.3f}" if s < 1 else f"{s * 1e3:.0f}"


def format_explain(d: dict) -> str:
    """`explain`'s dict as a text table."""
    pb = d["problem"]
    head = (f"C = A B, m={pb['m']} n={pb['n']} k={pb['k']}, {'ZGEMM' if pb['dtype'] == 'z' else 'DGEMM'}, "
            f"data on the {pb['where']}; profile {d['profile']['name']}")
    rows = []
    for c in d["candidates"]:
        main = max((v, kk) for kk, v in c["breakdown"].items())[1]
        rows.append([("* " if c["name"] == d["choice"] else "  ") + c["name"], c["executor"],
                     _fmt_s(c["seconds"]), f"{c['tflops']:.3g}", "yes" if c["meets_target"] else "no",
                     main, c["note"] or ""])
    headers = ["  candidate", "where", "ms", "TFLOPS", "target", "largest part", "note"]
    cells = [headers] + rows
    w = [max(len(str(r[i])) for r in cells) for i in range(len(headers))]
    fmt = lambda r: "  ".join(str(x).rjust(w[i]) if i in (2, 3) else str(x).ljust(w[i])
                              for i, x in enumerate(r)).rstrip()
    lines = [head, "", fmt(headers), fmt(["-" * x for x in w])] + [fmt(r) for r in rows]
    lines += ["", f"choice: {d['choice']}"] + [f"  - {r}" for r in d["reasons"]]
    return "\n".join(lines)


def main_explain(argv=None) -> int:
    """`ozblas explain M N K [--dtype d|z] [--where host|device] [--profile NAME] [--json]`."""
    ap = argparse.ArgumentParser(
        prog="ozblas explain",
        description="Predicted time of each way to compute an M x N x K product, and the choice.")
    ap.add_argument("m", type=int)
    ap.add_argument("n", type=int)
    ap.add_argument("k", type=int)
    ap.add_argument("--dtype", choices=["d", "z"], default="d")
    ap.add_argument("--where", choices=["host", "device"], default="host",
                    help="where the operands live (default host)")
    ap.add_argument("--profile", default="local",
                    help=f"device profile: {', '.join(PROFILE_NAMES)} (default local)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if a.profile not in PROFILE_NAMES:
        ap.error(f"unknown profile {a.profile!r}; accepted: {', '.join(PROFILE_NAMES)}")
    if min(a.m, a.n, a.k) <= 0:
        ap.error(f"M, N and K must be positive, got {a.m} {a.n} {a.k}")
    try:
        d = explain(a.m, a.n, a.k, a.dtype, a.where, None if a.profile == "local" else a.profile)
    except ValueError as e:
        ap.error(str(e))
    print(json.dumps(d, indent=2) if a.json else format_explain(d))
    return 0


def _crossover_table() -> str:  # python -m ozblas.policy: the crossover per profile
    rows = []
    for name in PROFILES:
        p = PROFILES[name]
        r = [name, f"1:{p.fp64_int8_ratio:.0f}" if p.has_device else "-"]
        for dt in ("d", "z"):
            for where in ("device", "host"):
                x = crossover(p, dt, where) if p.has_device else None
                r.append("never" if x is None else str(x))
        rows.append(r)
    headers = ["profile", "FP64:INT8", "d device", "d host", "z device", "z host"]
    cells = [headers] + rows
    w = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    return "\n".join("  ".join(x.ljust(w[i]) for i, x in enumerate(r)) for r in cells)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        sys.exit(main_explain(sys.argv[1:]))
    print("smallest square n from which emulation is chosen (n <= 65536, step 256)")
    print(_crossover_table())
