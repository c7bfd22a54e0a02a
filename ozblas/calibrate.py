"""`ozblas calibrate`: measure this machine's rates for the policy and cache them.

Measured, each after a warm-up on random inputs, the fastest of a few repeats:

- host: the host BLAS's DGEMM and ZGEMM (through ozblas's native method, a few sizes; the
  largest size's rate is kept), and the CPU executor's Ozaki II and Ozaki I: the rate of its
  exact integer products (host SGEMM, phase 2 of the report) and the bandwidth its
  elementwise passes reach in the cost model's byte counts (the other phases);
- with a usable CUDA executor (and CuPy): native DGEMM and ZGEMM on device arrays (device
  events), the INT8 GEMM rate (the INT8 product phase of an Ozaki II call, device-event
  timed by the executor), device memory bandwidth (a device copy), host <-> device bandwidth
  from pageable memory (what the executor's copies use) and from pinned memory, and the
  fixed costs of a native and an emulated call.

The result is this machine's `local` profile. It is written, by the C library's writer, to
the cache file ozblas.policy.machine() names (docs/policy.md, "Calibration cache"); the C
library and ozblas.policy read it from there. Fixed costs and the pass bandwidth are fitted through
the cost model itself (the C model evaluated with that rate set to zero or one), so the
model's own byte counts are what the measurements calibrate.
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np

from . import api, config, policy
from ._native import ffi, lib

__all__ = ["CalibrationError", "measure", "calibrate", "rate_lines"]


class CalibrationError(RuntimeError):
    """The machine could not be calibrated (e.g. a GPU to measure but no CuPy)."""


def _rand(n, m, cplx, seed):
    rng = np.random.default_rng(seed)
    a = rng.random((n, m)) - 0.5
    if cplx:
        a = a + 1j * (rng.random((n, m)) - 0.5)
    return np.asfortranarray(a)


def _best_call(fn, reps):
    """The fastest of reps calls by their own report time (C wall time: the Python wrapper
    excluded), and its report. The fastest, as timeit does: other load only slows a call down,
    and the profile is meant to describe the machine, not the moment."""
    fn()  # warm-up: thread pools, workspaces, page faults
    infos = [fn() for _ in range(reps)]
    best = min(infos, key=lambda i: i["seconds"])
    return best["seconds"], best


def _plan():
    """The counts the policy plans with (the C library's, numerics/ozaki2.h and ozaki1.h):
    INT8 moduli, Ozaki I slices, FP4 moduli. Calibration measures calls of these counts."""
    return (lib.ozblas_policy_planning_moduli(), lib.ozblas_policy_planning_slices(),
            lib.ozblas_ozaki2_engine_auto_hint(lib.OZBLAS_ENGINE_FP4))


def _model_part(profile, candidate, n, parts, dtype="d", where="host"):
    """Sum of the named parts of one candidate (a dict of the fields it has: method, executor,
    scaling or variant), predicted by the C model for an n^3 product at the planning counts."""
    moduli, slices, _ = _plan()
    c = next(c for c in policy.estimate(n, n, n, dtype, where, profile, moduli, slices)
             if all(c[key] == value for key, value in candidate.items()))
    return sum(c["breakdown"].get(p, 0.0) for p in parts)


OZ2_PASSES = ("stats", "residues", "reduction", "crt")   # report phases STATS, SPLIT, REDUCTION, FINAL
OZ1_PASSES = ("split", "conversion", "fp64_accumulation")  # report phases SPLIT, REDUCTION, FINAL
_O2_CPU_FAST = {"method": "ozaki2", "executor": "host", "scaling": "fast"}
_O1_CPU_HYBRID = {"method": "ozaki1", "executor": "host", "variant": "hybrid"}


def _host(quick, step, details):
    r = {}
    sizes = (128, 256) if quick else (256, 512, 1024, 2048)
    reps = 5 if quick else 3  # small quick sizes: more tries to get one free of other load
    for cplx, key, flop in ((False, "host_dgemm", 2), (True, "host_zgemm", 8)):
        step(f"host {'ZGEMM' if cplx else 'DGEMM'}")
        rates = {}
        for n in (sizes[:-1] if cplx and not quick else sizes):
            a, b = _rand(n, n, cplx, 1), _rand(n, n, cplx, 2)
            t, _ = _best_call(lambda: api.matmul(a, b, method="native", executor="cpu",
                                                 return_info=True)[1], reps)
            rates[n] = flop * n**3 / t
        details[key] = rates
        r[key] = max(rates.values())  # large products, where the choice matters, reach it

    # The CPU executor's Ozaki II and Ozaki I: integer product rate and pass bandwidth.
    reps = 2
    nm, ns, _ = _plan()
    step("CPU executor, Ozaki II")
    n2 = 256 if quick else 1024
    a, b = _rand(n2, n2, False, 3), _rand(n2, n2, False, 4)
    _, info = _best_call(lambda: api.matmul(a, b, method="ozaki2", moduli=nm, scaling="fast",
                                            executor="cpu", return_info=True)[1], reps)
    ph = info["phase_seconds"]
    r["cpu_int_gemm"] = nm * 2 * n2**3 / ph[lib.OZBLAS_PHASE_INT_PRODUCTS]
    step("CPU executor, Ozaki I")
    n1 = 128 if quick else 512
    a1, b1 = _rand(n1, n1, False, 5), _rand(n1, n1, False, 6)
    _, info1 = _best_call(lambda: api.matmul(a1, b1, method="ozaki1", slices=ns, variant="hybrid",
                                             executor="cpu", return_info=True)[1], reps)
    ph1 = info1["phase_seconds"]
    # Bytes the model counts for these passes: its prediction at a pass bandwidth of 1 B/s.
    unit = policy.PROFILES["cpu"].replace(cpu_pass_bw=1.0)
    b2 = _model_part(unit, _O2_CPU_FAST, n2, OZ2_PASSES)
    b1 = _model_part(unit, _O1_CPU_HYBRID, n1, OZ1_PASSES)
    passes2 = (lib.OZBLAS_PHASE_STATS, lib.OZBLAS_PHASE_SPLIT, lib.OZBLAS_PHASE_REDUCTION,
               lib.OZBLAS_PHASE_FINAL)
    passes1 = (lib.OZBLAS_PHASE_SPLIT, lib.OZBLAS_PHASE_REDUCTION, lib.OZBLAS_PHASE_FINAL)
    r["cpu_pass_bw"] = (b2 + b1) / (sum(ph[i] for i in passes2) + sum(ph1[i] for i in passes1))
    details["cpu_executor"] = {f"ozaki2_fast_{nm}_n": n2, "ozaki2_phase_seconds": ph,
                               f"ozaki1_hybrid_{ns}_n": n1, "ozaki1_phase_seconds": ph1}

    step("CPU executor, fixed cost")
    s = np.ones((16, 16), order="F")
    t, _ = _best_call(lambda: api.matmul(s, s, method="ozaki2", moduli=nm, scaling="fast",
                                           executor="cpu", return_info=True)[1], 5 if quick else 21)
    zero = policy.PROFILES["cpu"].replace(cpu_call_s=0.0, **{k: r[k] for k in r})
    rest = _model_part(zero, _O2_CPU_FAST, 16, OZ2_PASSES + ("int8_products",))
    r["cpu_call_s"] = max(t - rest, 1e-6)
    details["cpu_call_seconds_n16"] = t
    return r


# The CPU executor's integer products are host SGEMMs on the same cores as the host DGEMM,
# and ZGEMM runs near DGEMM's rate per flop, but how near depends on the kernel OpenBLAS picks
# for the CPU (OPENBLAS_CORETYPE), not only on the CPU: on the development machine (AVX-512,
# one thread, 512^3) SGEMM / DGEMM measured 2.3 with the SkylakeX and Haswell kernels and 3.5
# to 3.8 with the Zen and Prescott ones, ZGEMM / DGEMM 0.7 to 1.2, and 0.26 to 0.49 with the
# Sandybridge one (issue 24: 0.5 was refused there on every try). Figures outside these wider
# bounds mean other load disturbed a measurement (two-thread OpenBLAS calls stall when another
# process takes a core, by several times), and such a profile would send method auto the
# wrong way.
MAX_INT_TO_DGEMM = 6.0
ZGEMM_TO_DGEMM = (0.2, 4.0)
HOST_TRIES = 3


def _implausible(r) -> str | None:
    ratio = r["cpu_int_gemm"] / r["host_dgemm"]
    if ratio > MAX_INT_TO_DGEMM:
        return (f"the CPU executor's SGEMM products ran at {ratio:.1f}x the host DGEMM rate "
                f"(at most {MAX_INT_TO_DGEMM:g}x on any CPU)")
    z = r["host_zgemm"] / r["host_dgemm"]
    if not ZGEMM_TO_DGEMM[0] <= z <= ZGEMM_TO_DGEMM[1]:
        return f"host ZGEMM ran at {z:.2f}x the DGEMM rate (about 1x expected)"
    return None


def _device(quick, step, details, dev):
    """The device rates, measured with CuPy on device `dev` (runs only where a GPU is)."""
    try:
        import cupy as cp
    except ImportError:
        raise CalibrationError("the CUDA executor is usable here but CuPy is not installed; "
                               "calibrating the GPU needs it (pip install cupy-cuda12x or "
                               "cupy-cuda13x), or run with OZBLAS_DEVICE=cpu for the host alone")
    r = {}
    with cp.cuda.Device(dev):
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()

        def timed(fn, reps):  # device-event time, the fastest of reps after a warm-up
            fn()
            ts = []
            for _ in range(reps):
                e0.record()
                fn()
                e1.record()
                e1.synchronize()
                ts.append(cp.cuda.get_elapsed_time(e0, e1) * 1e-3)
            return min(ts)

        def rand(n, cplx, seed):
            g = cp.random.default_rng(seed)
            a = g.random((n, n)) - 0.5
            return cp.asfortranarray(a + 1j * (g.random((n, n)) - 0.5) if cplx else a)

        reps = 3
        sizes = (1024, 2048) if quick else (2048, 4096, 8192)
        for cplx, key, flop, ns in ((False, "dev_dgemm", 2, sizes),
                                    (True, "dev_zgemm", 8, sizes[:-1] if not quick else sizes[:1])):
            step(f"device {'ZGEMM' if cplx else 'DGEMM'}")
            rates = {}
            for n in ns:
                a, b = rand(n, cplx, 1), rand(n, cplx, 2)
                t = timed(lambda: api.matmul(a, b, method="native"), reps)
                rates[n] = flop * n**3 / t
                del a, b
            details[key] = rates
            r[key] = max(rates.values())

        step("device INT8 GEMM")
        n = sizes[-1]
        a, b = rand(n, False, 3), rand(n, False, 4)
        nm, _, nf = _plan()
        api.matmul(a, b, method="ozaki2", moduli=nm, scaling="fast")
        ph2 = min(api.matmul(a, b, method="ozaki2", moduli=nm, scaling="fast",
                             return_info=True)[1]["phase_seconds"][lib.OZBLAS_PHASE_INT_PRODUCTS]
                  for _ in range(reps))
        r["dev_int8"] = nm * 2 * n**3 / ph2
        details["dev_int8_n"] = n

        # the FP4 engine where the device passes its probe (else 0: no FP4 candidates)
        why = ffi.new("char[512]")
        if lib.ozblas_engine_available(lib.OZBLAS_EXECUTOR_CUDA, lib.OZBLAS_ENGINE_FP4, dev, why, 512):
            api.matmul(a, b, method="ozaki2", moduli=nf, scaling="fast", engine="fp4")
            runs = [api.matmul(a, b, method="ozaki2", moduli=nf, scaling="fast", engine="fp4",
                               return_info=True)[1] for _ in range(reps)]
            best = min(runs, key=lambda i: i["phase_seconds"][lib.OZBLAS_PHASE_INT_PRODUCTS])
            r["dev_fp4"] = (best["engine_products"] * 2 * n**3 /
                            best["phase_seconds"][lib.OZBLAS_PHASE_INT_PRODUCTS])
        else:
            r["dev_fp4"] = 0.0
        details["dev_fp4_note"] = ffi.string(why).decode()
        del a, b

        step("device memory bandwidth")
        nbytes = (256 if quick else 1024) << 20
        x = cp.ones(nbytes // 8)
        y = cp.empty_like(x)
        r["dev_mem_bw"] = 2 * nbytes / timed(lambda: cp.copyto(y, x), reps)
        del x, y

        step("host <-> device")
        nbytes = (64 if quick else 256) << 20
        d = cp.empty(nbytes, dtype=cp.uint8)
        rt = cp.cuda.runtime
        host = np.ones(nbytes, dtype=np.uint8)  # pageable, pages touched
        pinned_mem = cp.cuda.alloc_pinned_memory(nbytes)
        pinned = np.frombuffer(pinned_mem, np.uint8, nbytes)
        pinned[:] = 1
        for src, sfx in ((host, ""), (pinned, "_pinned")):
            r[f"h2d{sfx}_bw"] = nbytes / timed(
                lambda: rt.memcpy(d.data.ptr, src.ctypes.data, nbytes, rt.memcpyHostToDevice), reps)
            r[f"d2h{sfx}_bw"] = nbytes / timed(
                lambda: rt.memcpy(src.ctypes.data, d.data.ptr, nbytes, rt.memcpyDeviceToHost), reps)
        del d, pinned, pinned_mem

        step("device fixed costs")
        s = cp.ones((64, 64), order="F")
        calls = 5 if quick else 21
        t_nat, _ = _best_call(lambda: api.matmul(s, s, method="native", return_info=True)[1], calls)
        t_emu, _ = _best_call(lambda: api.matmul(s, s, method="ozaki2", moduli=nm, scaling="fast",
                                                   return_info=True)[1], calls)
    base = policy.PROFILES["measured_h200"].replace(**r, dev_call_s=0.0, dev_emu_call_s=0.0)
    r["dev_call_s"] = max(t_nat - _model_part(base, {"method": "native", "executor": "device"}, 64,
                                              ("device_gemm",), where="device"), 1e-6)
    r["dev_emu_call_s"] = max(t_emu - _model_part(
        base, dict(_O2_CPU_FAST, executor="device"), 64,
        OZ2_PASSES + ("int8_products", "overhead"), where="device"), 1e-6)
    details["device_call_seconds_n64"] = {"native": t_nat, f"ozaki2_fast_{nm}": t_emu}
    return r


def measure(quick=False, progress=True) -> tuple[policy.Profile, dict]:
    """Measure this machine (see the module doc). quick: smaller sizes and fewer repeats (a
    rougher calibration in well under a second, for tests). Returns (profile, details)."""
    ident, _ = policy.machine()
    has_dev = ident["device"] != "none"
    try:
        from tqdm import tqdm
    except ImportError:  # the progress bar is a convenience
        tqdm = None
    total = 5 + (6 if has_dev else 0)
    bar = tqdm(total=total, desc="ozblas calibrate", unit="step", file=sys.stderr,
               disable=not progress, leave=False) if tqdm else None
    t0 = time.perf_counter()

    def step(what):
        if bar:
            if step.started:
                bar.update(1)
            bar.set_postfix_str(what)
        step.started = True

    step.started = False
    details = {"quick": quick, "machine": ident}
    try:
        for _ in range(HOST_TRIES):
            rates = _host(quick, step, details)
            why = _implausible(rates)
            if why is None:
                break
            details.setdefault("host_retries", []).append(why)
            if bar:
                bar.reset(total)
            step.started = False
        else:
            raise CalibrationError(f"{why}, {HOST_TRIES} times: other load disturbs the "
                                   "measurements; calibrate on a quieter machine, or with one "
                                   "thread (OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "
                                   "OZBLAS_NUM_THREADS=1)")
        if has_dev:
            rates.update(_device(quick, step, details, config.from_env().device))
        if bar:
            bar.update(1)
    finally:
        if bar:
            bar.close()
    details["seconds"] = time.perf_counter() - t0
    p = policy.Profile(name="local", description=f"this machine ({ident['device']})",
                       source="measured by ozblas calibrate", host_name=ident["host"],
                       has_device=has_dev, calibrated=True, **rates)
    return p, details


def calibrate(force=False, quick=False, progress=True) -> tuple[policy.Profile, str, dict | None]:
    """The cached calibration when valid (unless force), else measure and write it.

    A cache that exists but is corrupt, truncated or stale (another version, device, driver
    or host) is warned about and rebuilt. Returns (profile, path, details; None when cached)."""
    ident, path = policy.machine()
    if path and not force:
        import os

        if os.path.exists(path):
            p, why = policy.read_cache(path, ident)
            if p is not None:
                return p, path, None
            warnings.warn(f"ozblas: calibration cache {path} ignored ({why}); measuring again",
                          RuntimeWarning, stacklevel=2)
    p, details = measure(quick, progress)
    if path:
        policy.write_cache(p, path, ident)
        policy.set_local(None)  # this process reads the new cache on its next auto call
        p, why = policy.read_cache(path, ident)
        if p is None:
            raise CalibrationError(f"the cache just written does not read back: {why}")
    return p, path, details


def _si(x, unit):
    for f, pre in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= f:
            return f"{x / f:.3g} {pre}{unit}"
    return f"{x:.3g} {unit}"


RATE_ROWS = (  # (field, label, unit or None for seconds), as `ozblas info` shows them too
    ("host_dgemm", "host DGEMM", "FLOP/s"), ("host_zgemm", "host ZGEMM", "FLOP/s"),
    ("cpu_int_gemm", "CPU executor integer products", "OP/s"),
    ("cpu_pass_bw", "CPU executor passes", "B/s"), ("cpu_call_s", "CPU executor fixed cost", None),
    ("dev_dgemm", "device DGEMM", "FLOP/s"), ("dev_zgemm", "device ZGEMM", "FLOP/s"),
    ("dev_int8", "device INT8 GEMM", "OP/s"),
    ("dev_fp4", "device FP4 GEMM (0: none)", "OP/s"), ("dev_mem_bw", "device memory", "B/s"),
    ("h2d_bw", "host to device (pageable)", "B/s"), ("d2h_bw", "device to host (pageable)", "B/s"),
    ("h2d_pinned_bw", "host to device (pinned)", "B/s"), ("d2h_pinned_bw", "device to host (pinned)", "B/s"),
    ("dev_call_s", "device native call fixed cost", None),
    ("dev_emu_call_s", "device emulated call fixed cost", None),
)


def rate_lines(p: policy.Profile) -> list[str]:
    out = []
    for f, label, unit in RATE_ROWS:
        if f.startswith(("dev_", "h2d", "d2h")) and not p.has_device:
            continue
        v = getattr(p, f)
        out.append(f"  {label:<33} {_si(v, unit) if unit else f'{v * 1e6:.0f} us'}")
    if p.has_device:
        out.append(f"  {'FP64:INT8':<33} 1:{p.fp64_int8_ratio:.0f}")
    return out
