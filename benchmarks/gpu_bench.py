#!/usr/bin/env python3
"""Speed and accuracy of the CUDA executor on one GPU; writes a JSON of results.

Measured (most valuable first, the JSON rewritten after every measurement so that a
timeout still leaves what was done):
  * DGEMM n x n x n: native FP64 (CuPy ``a @ b`` on device arrays, timed with CUDA events:
    the true native figure; and ``ozblas.matmul(method="native", executor="cuda")`` on
    host arrays), Ozaki II fast/accurate with 14 and 16 moduli (12..16 at one size) for
    n = 1024 .. 16384 (16384: native, fast-14 and accurate-14 only);
  * ZGEMM Ozaki II fast-14 at 4096 and 8192 (16384 if time allows), and ZHERK's product
    A A^H (one array as both operands: one integer product per modulus where C is one tile)
    at 4096 and 8192;
  * accuracy (err_ab against the exact oracle of ozblas.testing) at 256 x 1024 x 256,
    phi = 0.5 and 1, for native cuBLAS and Ozaki II fast/accurate 14/16;
  * cuBLAS's own FP64 emulation (CUBLAS_EMULATE_DOUBLE_PRECISION=1, its default strategy and
    "eager") through CuPy in a subprocess, DGEMM and ZGEMM, whether it took effect, and its
    accuracy on the accuracy inputs against the exact oracle.
With --device-arrays (what benchmarks/device_check.sh runs) the operands are CuPy arrays and
the plan adds, side by side on the same inputs (issue 25): native cuBLAS (CuPy), Ozaki II
fast/accurate at 12-16 moduli and automatic precision, cuBLAS's emulation, the accuracy of
each against the CPU oracle; the kernels' paths (INT8 products through cuBLASLt's cached
plans or cublasGemmEx, every modulus in one batched product or one per modulus for n up to
4096, through the library's test hooks); and batched GEMMs (CuPy's batched matmul, ozblas
on 3-D CuPy stacks, and the same products one ozblas call each).

The Python API takes host arrays, so ozblas timings are end to end (host -> device copies
through pinned staging, overlapped with the product, device -> host); "device" figures use
the device-event phase times the report returns (info["phase_seconds"]): TFLOPS =
2 m n k / sum(phases) (8 m n k for complex). Each host-array run records the tiling the call
used ("plan"); "ozaki2_tiled" runs cap the device memory a call may plan with (the library's
test hook) so that n = 16384 takes the path of a product larger than the device.
Inputs: (rand - 0.5) * exp(phi * randn), phi = 0.5 (never zeros); one warm-up call, then the
median of at least 3 timed runs.

Usage: python3 benchmarks/gpu_bench.py --out results.json [--budget 280]
       python3 benchmarks/gpu_bench.py --table results.json   (print the table only)
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import textwrap
import time
import traceback

import numpy as np

T0 = time.monotonic()


def log(msg):
    print(f"[{time.monotonic() - T0:7.1f}s] {msg}", flush=True)


# ---- results file --------------------------------------------------------------------------


class Results:
    def __init__(self, path):
        self.path = path
        self.data = {"meta": {}, "runs": [], "accuracy": [], "cublas_emulation": None,
                     "skipped": [], "errors": []}

    def save(self):
        if not self.path:
            return
        d = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(d, exist_ok=True)
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.data, f, indent=1, default=_json_default)
        os.replace(tmp, self.path)

    def add(self, key, item):
        self.data[key].append(item)
        self.save()


def _json_default(o):
    if isinstance(o, (np.floating, np.integer)):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)


# ---- environment ---------------------------------------------------------------------------


def _run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception:  # noqa: BLE001
        return ""


def meta():
    import ozblas

    info = ozblas.info()
    m = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": platform.node(),
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "ozblas_version": info.get("version"),
        "ozblas_library": info.get("library"),
        "executors": info.get("executors"),
    }
    commit = _run(["git", "rev-parse", "--verify", "-q", "HEAD"])
    m["git_commit"] = commit or os.environ.get("OZBLAS_COMMIT") or "unknown"
    # the CUDA executor's own description, where the lead wired it into info()
    for key in ("cuda", "cuda_describe", "cuda_description"):
        if isinstance(info.get(key), str):
            m["ozblas_cuda"] = info[key]
    smi = _run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm",
                "--format=csv,noheader"])
    if smi:
        parts = [p.strip() for p in smi.splitlines()[0].split(",")]
        m["device_name"], m["driver_version"] = parts[0], parts[1]
        m["device_memory"] = parts[2] if len(parts) > 2 else None
        m["max_sm_clock"] = parts[3] if len(parts) > 3 else None
    try:
        import cupy as cp

        m["cupy"] = cp.__version__
        props = cp.cuda.runtime.getDeviceProperties(0)
        name = props["name"]
        m.setdefault("device_name", name.decode() if isinstance(name, bytes) else name)
        m["compute_capability"] = f"{props['major']}.{props['minor']}"
        m["sm_count"] = props["multiProcessorCount"]
        m["cuda_runtime_cupy"] = cp.cuda.runtime.runtimeGetVersion()
        m["cuda_driver"] = cp.cuda.runtime.driverGetVersion()
        try:
            from cupy_backends.cuda.libs import cublas as cpblas

            h = cp.cuda.device.get_cublas_handle()
            m["cublas_version_cupy"] = cpblas.getVersion(h)
        except Exception as e:  # noqa: BLE001
            m["cublas_version_cupy"] = f"unknown ({e})"
    except Exception as e:  # noqa: BLE001
        m["cupy"] = f"unavailable ({e})"
    return m


# ---- inputs --------------------------------------------------------------------------------


def make_input(m, n, phi, seed, cplx=False):
    """(rand - 0.5) * exp(phi * randn), Fortran order, on the host (generated on the GPU
    with CuPy when present: much faster at 16384^2)."""
    try:
        import cupy as cp
    except ImportError:
        cp = None
    if cp is not None:
        rs = cp.random.RandomState(seed)

        def draw():  # n x m, C order: its transpose is the m x n Fortran-ordered matrix
            return (rs.random_sample((n, m)) - 0.5) * cp.exp(phi * rs.standard_normal((n, m)))

        x = draw() + 1j * draw() if cplx else draw()
        h = cp.asnumpy(x).T
        del x
        cp.get_default_memory_pool().free_all_blocks()
        assert h.flags.f_contiguous
        return h
    rng = np.random.default_rng(seed)

    def draw():
        return (rng.random((n, m)) - 0.5) * np.exp(phi * rng.standard_normal((n, m)))

    x = draw() + 1j * draw() if cplx else draw()
    return x.T


_INPUTS = {}


def inputs(n, cplx):
    key = (n, cplx)
    if key not in _INPUTS:
        _INPUTS.clear()  # keep host memory bounded: one size at a time
        t = time.monotonic()
        _INPUTS[key] = (make_input(n, n, 0.5, 1, cplx), make_input(n, n, 0.5, 2, cplx))
        log(f"inputs {n} {'z' if cplx else 'd'}: {time.monotonic() - t:.1f}s")
    return _INPUTS[key]


# ---- measurements --------------------------------------------------------------------------


def flops(n, cplx):
    return (8.0 if cplx else 2.0) * float(n) ** 3


EXECUTOR = "cuda"
TILED_CAP = 6 << 30  # bytes: n = 16384 DGEMM, fast-14, needs about 11 GB untiled


class _Hooks:
    """The library's test-only hooks (absent from CPU-only builds): cap on the device memory
    a call plans with, the tiling the last call used, and the INT8 products' column chunk."""

    def __init__(self):
        import ctypes

        import ozblas

        try:
            lib = ctypes.CDLL(ozblas._native.library_path())
            self._cap, self._plan = lib.oz_cuda_test_cap_workspace, lib.oz_cuda_test_last_plan
        except (OSError, AttributeError):
            self._cap = self._plan = None
            return
        self._cap.argtypes = [ctypes.c_size_t]
        self._plan.argtypes = [ctypes.POINTER(ctypes.c_int64)]
        self._buf = (ctypes.c_int64 * 9)()
        self._cols = getattr(lib, "oz_cuda_test_i8_columns", None)
        if self._cols:
            self._cols.argtypes = [ctypes.c_int64]
            self._cols.restype = ctypes.c_int64

        self._lt = getattr(lib, "oz_cuda_test_i8_lt", None)
        if self._lt:
            self._lt.argtypes = [ctypes.c_int]
            self._lt.restype = ctypes.c_int64
        self._few = getattr(lib, "oz_cuda_test_few_launches", None)
        if self._few:
            self._few.argtypes = [ctypes.c_int]

    def cap(self, nbytes):
        if self._cap:
            self._cap(nbytes)

    def path(self, lt=True, few=True):
        """The kernels' paths: INT8 products through cuBLASLt's cached plans (else
        cublasGemmEx), every modulus in one batched product for n <= 4096 (else one per
        modulus); False where the library lacks a hook for a path asked off."""
        ok = True
        for hook, on in ((getattr(self, "_lt", None), lt), (getattr(self, "_few", None), few)):
            if hook:
                hook(int(on))
            elif not on:
                ok = False
        return ok

    def i8_columns(self, cols):
        """Column chunk of the INT8 products (0: the device's own; 2**40: one call per
        product); returns False where the library has no such hook."""
        if not getattr(self, "_cols", None):
            return False
        self._cols(cols)
        return True

    def plan(self):
        if not self._plan:
            return None
        self._plan(self._buf)
        p = dict(zip(("mb", "nb", "kc", "nI", "nJ", "nL", "a", "b", "c"), list(self._buf)))
        where = {0: "in place", 1: "resident", 2: "streamed"}
        for key in ("a", "b", "c"):
            p[key] = where.get(p[key], p[key])
        return p


_HOOKS = None


def hooks():
    global _HOOKS
    if _HOOKS is None:
        _HOOKS = _Hooks()
    return _HOOKS


def time_ozblas(n, cplx, method, moduli=None, scaling=None, reps=3, cap=0):
    import ozblas

    a, b = inputs(n, cplx)
    kw = dict(method=method, executor=EXECUTOR, return_info=True)
    if method == "ozaki2":
        kw.update(moduli=moduli, scaling=scaling)
    hooks().cap(cap)
    try:
        _, info = ozblas.matmul(a, b, **kw)  # warm-up (workspace, cuBLAS heuristics)
        times, phases = [], []
        for _ in range(reps):
            t = time.perf_counter()
            _, info = ozblas.matmul(a, b, **kw)
            times.append(time.perf_counter() - t)
            if info.get("phase_seconds"):
                phases.append(list(info["phase_seconds"]))
        plan = hooks().plan()
    finally:
        hooks().cap(0)
    med = statistics.median(times)
    run = {
        "kind": "ozblas_" + method + ("_tiled" if cap else ""),
        "workspace_cap": cap or None,
        "plan": plan,
        "dtype": "z" if cplx else "d",
        "layout": "NN (Fortran-ordered host arrays)",
        "n": n,
        "moduli": moduli,
        "scaling": scaling,
        "executor": info.get("executor"),
        "method_used": info.get("method"),
        "fallback": info.get("fallback"),
        "int_gemms": info.get("int_gemms"),
        # ZGEMM: the moduli taken and integer products per modulus (2: the complex set)
        "moduli_used": info.get("moduli"),
        "complex_products": info.get("complex_products"),
        "seconds": times,
        "seconds_median": med,
        "tflops_e2e": flops(n, cplx) / med / 1e12,
    }
    if phases:
        ph = [statistics.median(p[i] for p in phases) for i in range(5)]
        dev = statistics.median(sum(p) for p in phases)
        run.update(phase_seconds_median=ph, device_seconds=dev,
                   tflops_device=flops(n, cplx) / dev / 1e12 if dev > 0 else None)
    return run


def time_ozblas_herk(n, moduli, scaling, reps=3):
    """ZHERK's product C = A A^H on host arrays: ozblas.zgemm with A as both operands (the
    driver's Hermitian case: both sides' bits equal, P- = P+^T in one tile). TFLOPS count
    the full 8 n^3 it computes."""
    import ozblas

    a = np.asfortranarray(inputs(n, True)[0])
    c = np.zeros((n, n), dtype=np.complex128, order="F")
    kw = dict(method="ozaki2", moduli=moduli, scaling=scaling, executor=EXECUTOR,
              return_info=True)
    ozblas.zgemm(1.0, a, a, 0.0, c, 0, 2, **kw)  # warm-up
    times, phases = [], []
    for _ in range(reps):
        t = time.perf_counter()
        _, info = ozblas.zgemm(1.0, a, a, 0.0, c, 0, 2, **kw)
        times.append(time.perf_counter() - t)
        if info.get("phase_seconds"):
            phases.append(list(info["phase_seconds"]))
    med = statistics.median(times)
    run = {"kind": "ozblas_ozaki2_herk", "dtype": "z", "n": n, "moduli": moduli,
           "scaling": scaling, "plan": hooks().plan(), "executor": info.get("executor"),
           "fallback": info.get("fallback"), "int_gemms": info.get("int_gemms"),
           "moduli_used": info.get("moduli"), "complex_products": info.get("complex_products"),
           "seconds": times, "seconds_median": med, "tflops_e2e": flops(n, True) / med / 1e12}
    if phases:
        dev = statistics.median(sum(p) for p in phases)
        run.update(phase_seconds_median=[statistics.median(p[i] for p in phases)
                                         for i in range(5)],
                   device_seconds=dev, tflops_device=flops(n, True) / dev / 1e12)
    return run


def time_ozblas_device(n, cplx, moduli, scaling, reps=3, method="ozaki2", i8_columns=0,
                       path=None):
    """Ozaki II (or Ozaki I: moduli = slices, scaling = variant) on CuPy arrays already on
    the device: what a CuPy caller sees, timed with device events around the whole call
    (workspace reuse, all kernels and GEMMs). moduli None: automatic precision.
    i8_columns: the INT8 products' column chunk forced through the test hook (0: the
    library's choice, 8192 columns on sm_90). path: Hooks.path's keywords (a kernel path
    turned off)."""
    import cupy as cp
    import ozblas

    if i8_columns and not hooks().i8_columns(i8_columns):
        raise RuntimeError("this build has no oz_cuda_test_i8_columns hook")
    if path and not hooks().path(**path):
        raise RuntimeError(f"this build has no hook for the path {path}")
    try:
        run = _time_device(cp, ozblas, n, cplx, moduli, scaling, reps, method, i8_columns)
        if path:
            run["path"] = path
        return run
    finally:
        hooks().i8_columns(0)
        hooks().path()


def _time_device(cp, ozblas, n, cplx, moduli, scaling, reps, method, i8_columns):
    a, b = inputs(n, cplx)
    ad, bd = cp.asfortranarray(cp.asarray(a)), cp.asfortranarray(cp.asarray(b))
    if method == "ozaki1":
        kw = dict(method="ozaki1", slices=moduli, variant=scaling, return_info=True)
    else:
        kw = dict(method="ozaki2", moduli=moduli, scaling=scaling, return_info=True)
    c, info = ozblas.matmul(ad, bd, **kw)  # warm-up
    times, phases = [], []
    for _ in range(reps):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        c, info = ozblas.matmul(ad, bd, **kw)
        e.record()
        e.synchronize()
        times.append(cp.cuda.get_elapsed_time(s, e) * 1e-3)
        phases.append(list(info["phase_seconds"]))
    del ad, bd, c
    cp.get_default_memory_pool().free_all_blocks()
    med = statistics.median(times)
    return {"kind": f"ozblas_{method}_device_arrays", "dtype": "z" if cplx else "d", "n": n,
            "moduli": moduli, "moduli_used": info.get("moduli"), "scaling": scaling,
            "i8_columns": i8_columns or None, "executor": info.get("executor"),
            "method_used": info.get("method"), "fallback": info.get("fallback"),
            "seconds": times, "seconds_median": med, "tflops_device": flops(n, cplx) / med / 1e12,
            "phase_seconds_median": [statistics.median(p[i] for p in phases) for i in range(5)]}


def time_cupy_native(n, cplx, reps=5):
    import cupy as cp

    a, b = inputs(n, cplx)
    ad, bd = cp.asarray(a), cp.asarray(b)
    c = ad @ bd
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        c = ad @ bd
        e.record()
        e.synchronize()
        times.append(cp.cuda.get_elapsed_time(s, e) * 1e-3)
    del ad, bd, c
    cp.get_default_memory_pool().free_all_blocks()
    med = statistics.median(times)
    return {"kind": "cupy_native", "dtype": "z" if cplx else "d", "n": n, "seconds": times,
            "seconds_median": med, "tflops_device": flops(n, cplx) / med / 1e12}


def _stack(nb, n, cplx, seed):
    import cupy as cp

    rs = cp.random.RandomState(seed)

    def draw():
        return (rs.random_sample((nb, n, n)) - 0.5) * cp.exp(0.5 * rs.standard_normal((nb, n, n)))

    return draw() + 1j * draw() if cplx else draw()


def _device_time(cp, f, reps):
    f()  # warm-up
    times = []
    for _ in range(reps):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        f()
        e.record()
        e.synchronize()
        times.append(cp.cuda.get_elapsed_time(s, e) * 1e-3)
    return times


def time_batched(nb, n, cplx, moduli, scaling, reps=3):
    """nb products of n x n x n on CuPy stacks: CuPy's batched matmul (cuBLAS's strided
    batched GEMM), ozblas.matmul on the 3-D stacks (one batch: each matrix scaled alone,
    the INT8 products batched), and the same products one ozblas.matmul each."""
    import cupy as cp
    import ozblas

    a, b = _stack(nb, n, cplx, 3), _stack(nb, n, cplx, 4)
    kw = dict(method="ozaki2", moduli=moduli, scaling=scaling)
    out = {}
    for label, f in (("cupy_native", lambda: cp.matmul(a, b)),
                     ("ozblas_batched", lambda: ozblas.matmul(a, b, **kw)),
                     ("ozblas_one_by_one", lambda: [ozblas.matmul(a[i], b[i], **kw)
                                                    for i in range(nb)])):
        ts = _device_time(cp, f, reps)
        out[label] = {"seconds": ts, "seconds_median": statistics.median(ts),
                      "tflops_device": nb * flops(n, cplx) / statistics.median(ts) / 1e12}
    _, info = ozblas.matmul(a, b, return_info=True, **kw)
    del a, b
    cp.get_default_memory_pool().free_all_blocks()
    return {"kind": "batched_device_arrays", "dtype": "z" if cplx else "d", "n": n, "batch": nb,
            "moduli": moduli, "moduli_used": info.get("moduli"), "scaling": scaling,
            "fallback": info.get("fallback"), "int_gemms": info.get("int_gemms"),
            "seconds_median": out["ozblas_batched"]["seconds_median"],
            "tflops_device": out["ozblas_batched"]["tflops_device"], "timings": out}


_EMU_SCRIPT = textwrap.dedent(
    """
    import hashlib, json, sys, time
    import cupy as cp
    import numpy as np
    out = {}
    n, cplx, acc = int(sys.argv[1]), sys.argv[2] == "z", sys.argv[3]
    rs = cp.random.RandomState(1)
    def draw():
        return (rs.random_sample((n, n)) - 0.5) * cp.exp(0.5 * rs.standard_normal((n, n)))
    a = draw() + 1j * draw() if cplx else draw()
    b = draw() + 1j * draw() if cplx else draw()
    ins = np.load(acc + "/in.npz")  # the accuracy inputs (key_a, key_b): products back
    np.savez(acc + "/out.npz", **{k[:-2]: cp.asnumpy(cp.asarray(ins[k]) @
                                                    cp.asarray(ins[k[:-2] + "_b"]))
                                  for k in ins.files if k.endswith("_a")})
    c = a @ b
    cp.cuda.Device().synchronize()
    ts = []
    for _ in range(3):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record(); c = a @ b; e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e) * 1e-3)
    ts.sort()
    out["seconds_median"] = ts[1]
    out["tflops"] = (8.0 if cplx else 2.0) * n ** 3 / ts[1] / 1e12
    x = a[:512, :512] @ b[:512, :512]
    out["hash512"] = hashlib.sha1(cp.asnumpy(x).tobytes()).hexdigest()
    print("RESULT " + json.dumps(out))
    """
)


def cublas_emulation(n, cplx=False):
    """cuBLAS natively and with its own FP64 emulation (default strategy, and eager), each in
    a process of its own (the variables are read when cuBLAS starts): speed at n, and the
    accuracy inputs' products against the exact oracle."""
    import tempfile

    from ozblas.testing import accurate_matmul, err_ab

    res = {"n": n, "dtype": "z" if cplx else "d"}
    ins = _accuracy_inputs(cplx)
    with tempfile.TemporaryDirectory() as tmp:
        np.savez(os.path.join(tmp, "in.npz"), **{f"{k}_{s}": v for k, (a, b) in ins.items()
                                                 for s, v in (("a", a), ("b", b))})
        for label, extra in (("native", {"CUBLAS_EMULATE_DOUBLE_PRECISION": "0"}),
                             ("emulated", {"CUBLAS_EMULATE_DOUBLE_PRECISION": "1"}),
                             ("emulated_eager", {"CUBLAS_EMULATE_DOUBLE_PRECISION": "1",
                                                 "CUBLAS_EMULATION_STRATEGY": "eager"})):
            env = dict(os.environ, **extra)
            p = subprocess.run([sys.executable, "-c", _EMU_SCRIPT, str(n), res["dtype"], tmp],
                               env=env, capture_output=True, text=True, timeout=120)
            line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
            if not line:
                res[label] = {"error": (p.stderr or p.stdout)[-800:]}
                continue
            res[label] = dict(json.loads(line[0][7:]), env=extra)
            got = np.load(os.path.join(tmp, "out.npz"))
            res[label]["err_ab"] = {k: err_ab(got[k], accurate_matmul(a, b), a, b)
                                    for k, (a, b) in ins.items()}
    nat = res.get("native", {})
    for label in ("emulated", "emulated_eager"):
        emu = res.get(label, {})
        if "hash512" in nat and "hash512" in emu:
            emu["results_differ"] = nat["hash512"] != emu["hash512"]
            emu["speed_ratio"] = nat["seconds_median"] / emu["seconds_median"]
            emu["took_effect"] = bool(emu["results_differ"] or emu["speed_ratio"] > 1.2)
    return res


ACC_SHAPE = (256, 1024, 256)


def _accuracy_inputs(cplx):
    """The accuracy inputs, m x k x n = ACC_SHAPE, by phi."""
    from ozblas.testing import make_matrix

    m, k, n = ACC_SHAPE
    dt = np.complex128 if cplx else np.float64
    return {f"phi{phi}": (make_matrix(m, k, phi, seed=11, dtype=dt),
                          make_matrix(k, n, phi, seed=12, dtype=dt)) for phi in (0.5, 1.0)}


def accuracy(results, moduli_list=(14, 16), cplx=False):
    """err_ab against the exact oracle (ozblas.testing) of native cuBLAS, NumPy, and Ozaki II
    fast/accurate at each count of moduli_list (None: automatic precision), each checked bit
    for bit against the CPU executor."""
    import ozblas
    from ozblas.testing import accurate_matmul, err_ab

    m, k, n = ACC_SHAPE
    for key_in, (a, b) in _accuracy_inputs(cplx).items():
        phi = float(key_in[3:])
        exact = accurate_matmul(a, b)
        row = {"m": m, "k": k, "n": n, "phi": phi, "dtype": "z" if cplx else "d"}
        c = ozblas.matmul(a, b, method="native", executor=EXECUTOR)
        row["native_cuda"] = err_ab(c, exact, a, b)
        row["native_numpy"] = err_ab(a @ b, exact, a, b)
        for scaling in ("fast", "accurate"):
            for moduli in moduli_list:
                c, info = ozblas.matmul(a, b, method="ozaki2", moduli=moduli, scaling=scaling,
                                        executor=EXECUTOR, return_info=True)
                cc = ozblas.matmul(a, b, method="ozaki2", moduli=moduli, scaling=scaling,
                                   executor="cpu")
                key = f"ozaki2_{scaling}_{moduli or 'auto'}"
                row[key] = err_ab(c, exact, a, b)
                row[key + "_fallback"] = info["fallback"]
                row[key + "_moduli"] = info["moduli"]
                row[key + "_same_bits_as_cpu"] = bool(
                    np.array_equal(np.ascontiguousarray(c).view(np.uint64),
                                   np.ascontiguousarray(cc).view(np.uint64)))
        results.add("accuracy", row)
        log(f"accuracy {row['dtype']} phi={phi}: " + ", ".join(
            f"{kk}={v:.2e}" for kk, v in row.items() if isinstance(v, float) and kk != "phi"))


# ---- plan ----------------------------------------------------------------------------------


def estimate(kind, n, cplx, moduli=14):
    """Rough seconds for input generation, warm-up and timed runs (to skip what cannot fit
    the time budget): INT8 products at ~800 TOPS, FP64 at ~40 TFLOPS, pageable copies at
    ~8 GB/s."""
    es = 16.0 if cplx else 8.0
    transfer = 3 * es * n * n / 8e9
    gen = 2 * es * n * n / 4e9 if (n, cplx) not in _INPUTS else 0.0
    if kind == "cupy":
        return gen + 2 * es * n * n / 8e9 + 7 * flops(n, cplx) / 40e12 + 1.0
    if kind == "native":
        per = flops(n, cplx) / 40e12 + transfer
    else:
        per = 2.0 * n ** 3 * moduli * (3 if cplx else 1) / 8e14 + transfer + 0.05
    return gen + 4 * per + 1.0


def plan(quick, device_only=False):
    p = []
    add = p.append
    if device_only:
        for n, cplx in ((16384, False), (8192, False), (4096, False), (16384, True), (8192, True)):
            add(("cupy", n, cplx, None, None))
            for scaling in ("fast", "accurate"):
                add(("ozaki2_dev", n, cplx, 14, scaling))
            add(("ozaki2_dev", n, cplx, None, "accurate"))  # the defaults: automatic precision
            if n == 16384 and not cplx:  # what the 8192-column chunks of sm_90 gain
                add(("ozaki2_dev_onecall", n, cplx, 14, "fast"))
            if n in (16384, 4096) and not cplx:  # cuBLASLt's cached plans against GemmEx
                add(("ozaki2_dev_gemmex", n, cplx, 14, "fast"))
        add(("accuracy_moduli",))
        for n in (2048, 1024):
            add(("cupy", n, False, None, None))
            add(("ozaki2_dev", n, False, 14, "fast"))
        for n in (4096, 2048, 1024):  # every modulus in one product, or one per modulus
            add(("ozaki2_dev_per_modulus", n, False, 14, "fast"))
        add(("emulation", 8192, False))
        add(("emulation", 8192, True))
        for nb, n in ((64, 512), (16, 1024), (8, 2048)):
            add(("batched", n, False, 14, "fast", nb))
            add(("batched", n, False, None, "accurate", nb))
        add(("batched", 1024, True, 14, "fast", 16))
        for moduli in (12, 13, 15, 16):  # the side by side at 12-16 moduli
            for scaling in ("fast", "accurate"):
                add(("ozaki2_dev", 8192, False, moduli, scaling))
        add(("ozaki2_dev", 16384, False, 16, "accurate"))
        add(("ozaki2_dev", 8192, True, 16, "fast"))
        for n in (4096, 8192):
            for variant in ("hybrid", "bitmask"):
                add(("ozaki1_dev", n, False, 11, variant))
        return p
    # the headline figures first
    add(("cupy", 8192, False, None, None))
    add(("ozaki2", 8192, False, 14, "fast"))
    add(("ozaki2", 8192, False, 14, "accurate"))
    add(("native", 8192, False, None, None))
    add(("cupy", 16384, False, None, None))
    add(("ozaki2", 16384, False, 14, "fast"))
    add(("ozaki2", 16384, False, 14, "accurate"))
    add(("accuracy",))
    add(("ozaki2_tiled", 16384, False, 14, "fast"))
    add(("native", 16384, False, None, None))
    add(("ozaki2", 8192, False, 16, "fast"))
    add(("ozaki2", 8192, False, 16, "accurate"))
    add(("ozaki2", 4096, True, 14, "fast"))
    add(("cupy", 4096, True, None, None))
    add(("ozaki2", 8192, True, 14, "fast"))
    add(("ozaki2_herk", 4096, True, 14, "fast"))
    add(("ozaki2_herk", 8192, True, 14, "fast"))
    add(("emulation", 8192))
    for n in (4096, 2048, 1024):
        add(("cupy", n, False, None, None))
        add(("native", n, False, None, None))
        for moduli in (14, 16):
            for scaling in ("fast", "accurate"):
                add(("ozaki2", n, False, moduli, scaling))
    for moduli in (12, 13, 15):
        add(("ozaki2", 8192, False, moduli, "fast"))
    add(("ozaki2", 16384, True, 14, "fast"))
    if quick:
        p = [x for x in p if x[0] in ("accuracy", "emulation") or x[1] <= 2048]
    return p


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="benchmarks/results/gpu_results.json")
    ap.add_argument("--budget", type=float, default=280.0, help="seconds for all measurements")
    ap.add_argument("--quick", action="store_true", help="small sizes only (smoke run)")
    ap.add_argument("--device-arrays", action="store_true",
                    help="only CuPy-resident operands: ozblas on device arrays vs CuPy's native")
    ap.add_argument("--table", metavar="JSON", help="print the table of an existing JSON")
    ap.add_argument("--executor", default="cuda", help=argparse.SUPPRESS)  # cpu: dry runs
    args = ap.parse_args()
    global EXECUTOR
    EXECUTOR = args.executor
    if args.table:
        with open(args.table) as f:
            print_table(json.load(f))
        return 0

    import ozblas

    res = Results(args.out)
    res.data["meta"] = meta()
    res.save()
    m = res.data["meta"]
    log(f"device {m.get('device_name')} driver {m.get('driver_version')} "
        f"commit {m.get('git_commit')}")
    if EXECUTOR == "cuda" and not ozblas.info()["executors"]["cuda"]["available"]:
        res.add("errors", {"what": "cuda executor unavailable",
                           "reason": ozblas.info()["executors"]["cuda"]["reason"]})
        print_table(res.data)
        return 1
    try:
        import cupy  # noqa: F401

        have_cupy = True
    except ImportError:
        have_cupy = False

    deadline = T0 + args.budget
    for item in plan(args.quick, args.device_arrays):
        kind = item[0]
        left = deadline - time.monotonic()
        try:
            if kind == "accuracy":
                if left < 20:
                    res.add("skipped", {"what": "accuracy", "left_s": left})
                    continue
                accuracy(res)
                continue
            if kind == "accuracy_moduli":  # d and z at 12-16 moduli and automatic precision
                if left < 60:
                    res.add("skipped", {"what": "accuracy_moduli", "left_s": left})
                    continue
                for cplx in (False, True):
                    accuracy(res, (12, 13, 14, 15, 16, None), cplx)
                continue
            if kind == "emulation":
                if not have_cupy or left < 60:
                    res.add("skipped", {"what": "cublas_emulation", "left_s": left})
                    continue
                r = cublas_emulation(*item[1:])
                res.data.setdefault("cublas_emulations", []).append(r)
                if not item[2]:
                    res.data["cublas_emulation"] = r
                res.save()
                log(f"cuBLAS emulation: {json.dumps(r)[:300]}")
                continue
            if kind == "batched":
                _, n, cplx, moduli, scaling, nb = item
                est = 3 * estimate("ozaki2_dev", n, cplx, moduli or 14) * nb / 4
                if not have_cupy or est > left:
                    res.add("skipped", {"what": list(item), "estimate_s": est, "left_s": left})
                    continue
                t = time.monotonic()
                run = time_batched(nb, n, cplx, moduli, scaling)
                run["wall_s"] = time.monotonic() - t
                res.add("runs", run)
                tm = run["timings"]
                log(f"{_label(run)}: " + ", ".join(
                    f"{k} {v['seconds_median'] * 1e3:.2f} ms" for k, v in tm.items()))
                continue
            _, n, cplx, moduli, scaling = item
            est = estimate(kind, n, cplx, moduli or 14)
            if est > left or (kind != "cupy" and kind.endswith(("_dev", "_onecall", "_gemmex",
                                                               "_per_modulus")) and not have_cupy
                              or kind == "cupy" and not have_cupy):
                res.add("skipped", {"what": list(item), "estimate_s": est, "left_s": left})
                log(f"skip {item}: estimate {est:.0f}s, left {left:.0f}s")
                continue
            t = time.monotonic()
            if kind == "cupy":
                run = time_cupy_native(n, cplx)
            elif kind in ("ozaki2_dev", "ozaki1_dev"):
                run = time_ozblas_device(n, cplx, moduli, scaling, method=kind[:6])
            elif kind == "ozaki2_dev_onecall":
                run = time_ozblas_device(n, cplx, moduli, scaling, i8_columns=1 << 40)
            elif kind == "ozaki2_dev_gemmex":
                run = time_ozblas_device(n, cplx, moduli, scaling, path={"lt": False})
            elif kind == "ozaki2_dev_per_modulus":
                run = time_ozblas_device(n, cplx, moduli, scaling, path={"few": False})
            elif kind == "ozaki2_herk":
                run = time_ozblas_herk(n, moduli, scaling)
            elif kind == "ozaki2_tiled":
                run = time_ozblas(n, cplx, "ozaki2", moduli, scaling, cap=TILED_CAP)
            else:
                run = time_ozblas(n, cplx, kind, moduli, scaling,
                                  reps=3 if n >= 4096 else 5)
            run["wall_s"] = time.monotonic() - t
            res.add("runs", run)
            log(f"{_label(run)}: {run['seconds_median'] * 1e3:.1f} ms, "
                f"e2e {run.get('tflops_e2e') or float('nan'):.1f} TFLOPS, "
                f"device {run.get('tflops_device') or float('nan'):.1f} TFLOPS "
                f"(took {run['wall_s']:.1f}s)")
        except Exception as e:  # noqa: BLE001 - record and go on
            res.add("errors", {"what": list(item), "error": repr(e),
                               "traceback": traceback.format_exc()[-2000:]})
            log(f"ERROR {item}: {e!r}")
    res.data["meta"]["total_seconds"] = time.monotonic() - T0
    res.save()
    print_table(res.data)
    return 0


def _label(r):
    if r["kind"] == "cupy_native":
        return f"{r['dtype']} n={r['n']} native (CuPy, device)"
    if r["kind"] == "ozblas_native":
        return f"{r['dtype']} n={r['n']} native (ozblas cuda)"
    if r["kind"] == "batched_device_arrays":
        return (f"{r['dtype']} {r['batch']} x n={r['n']} batched ozaki2 "
                f"{r['scaling']}-{r['moduli'] or 'auto'}")
    where = " (CuPy arrays)" if r["kind"].endswith("_device_arrays") else ""
    if r.get("i8_columns"):
        where += " unchunked"
    path = r.get("path") or {}
    if path.get("lt") is False:
        where += " GemmEx"
    if path.get("few") is False:
        where += " per modulus"
    if r["kind"].endswith("_tiled"):
        where = f" (tiled, cap {r['workspace_cap'] / 2**30:.0f} GiB)"
    if r["kind"].endswith("_herk"):
        where = f" A A^H ({r.get('complex_products')} per modulus)"
    method = "ozaki1" if r["kind"].startswith("ozblas_ozaki1") else "ozaki2"
    moduli = r["moduli"] or f"auto({r.get('moduli_used')})"
    return f"{r['dtype']} n={r['n']} {method} {r['scaling']}-{moduli}{where}"


def print_table(d):
    m = d.get("meta", {})
    print()
    print(f"device: {m.get('device_name')}  driver: {m.get('driver_version')}  "
          f"cuBLAS(cupy): {m.get('cublas_version_cupy')}  commit: {m.get('git_commit')}  "
          f"date: {m.get('date')}")
    if m.get("ozblas_cuda"):
        print(f"ozblas cuda: {m['ozblas_cuda']}")
    print(f"{'case':<48} {'median ms':>10} {'e2e TF':>8} {'dev TF':>8} {'dev ms':>8}  "
          f"phases ms (stats, residues, gemm, reduce, crt)")
    for r in sorted(d.get("runs", []), key=lambda r: (r["dtype"], r["n"], r["kind"],
                                                      str(r.get("scaling")),
                                                      r.get("moduli") or 0)):
        ph = r.get("phase_seconds_median")
        phs = " ".join(f"{p * 1e3:.1f}" for p in ph) if ph else ""
        e2e = r.get("tflops_e2e")
        dev = r.get("tflops_device")
        dms = r.get("device_seconds")
        fb = f" FALLBACK {r['fallback']}" if r.get("fallback") else ""
        print(f"{_label(r):<48} {r['seconds_median'] * 1e3:>10.1f} "
              f"{(f'{e2e:.1f}' if e2e else '-'):>8} {(f'{dev:.1f}' if dev else '-'):>8} "
              f"{(f'{dms * 1e3:.1f}' if dms else '-'):>8}  {phs}{fb}")
    for row in d.get("accuracy", []):
        keys = [k for k, v in row.items() if isinstance(v, float) and k != "phi"]
        print(f"accuracy {row.get('dtype', 'd')} phi={row['phi']} {row['m']}x{row['k']}x{row['n']}: " +
              ", ".join(f"{k}={row[k]:.2e}" for k in keys))
        same = [k[:-len("_same_bits_as_cpu")] for k, v in row.items()
                if k.endswith("_same_bits_as_cpu") and v is False]
        if same:
            print(f"  NOT bit-identical to the CPU executor: {same}")
    for r in d.get("runs", []):
        if r["kind"] == "batched_device_arrays":
            print(f"{_label(r)}: " + ", ".join(
                f"{k} {v['seconds_median'] * 1e3:.2f} ms ({v['tflops_device']:.1f} TF)"
                for k, v in r["timings"].items()))
    for emu in d.get("cublas_emulations") or ([d["cublas_emulation"]]
                                              if d.get("cublas_emulation") else []):
        for label in ("native", "emulated", "emulated_eager"):
            e = emu.get(label)
            if e is None:
                continue
            acc = ", ".join(f"{k} err_ab {v:.2e}" for k, v in (e.get("err_ab") or {}).items())
            print(f"cuBLAS {emu.get('dtype', 'd')} n={emu.get('n')} {label}: "
                  f"{e.get('tflops', e.get('error', 'err'))} TFLOPS, took effect: "
                  f"{e.get('took_effect', '-')}; {acc}")
    for e in d.get("errors", []):
        print(f"error: {e.get('what')}: {e.get('error') or e.get('reason')}")
    if d.get("skipped"):
        print(f"skipped: {len(d['skipped'])} items (time budget)")


if __name__ == "__main__":
    sys.exit(main())
