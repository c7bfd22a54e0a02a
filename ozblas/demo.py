"""`ozblas demo`: an unmodified NumPy/SciPy script, run natively and under the preload shim.

The script (ozblas/examples/demo_script.py) multiplies large matrices (``a @ b``,
``np.dot``, a complex product, ``s @ s.T``) and calls ``scipy.linalg.expm``; it saves its
inputs, results and step times to an .npz named on its command line. The demo runs it twice
in fresh processes, once plainly and once as ``ozblas run --trace FILE --summary -- python
demo_script.py``, then prints what the shim routed (its summary and the BLAS entry points
seen in the trace), the times, and the accuracy of both runs: for the products against the
exact oracle (``ozblas.testing.exact_matmul``: ``err_ab`` and the largest elementwise
relative error), for ``expm`` against exp(M) in extended precision.
"""

from __future__ import annotations

import collections
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

__all__ = ["SCRIPT", "STEPS", "LAPACK_STEPS", "run_demo", "expm_reference"]

SCRIPT = Path(__file__).resolve().parent / "examples" / "demo_script.py"

# step -> (what it computes, the operands of the product; None: expm of "m")
STEPS = {
    "matmul": ("a1 @ b1, phi 0.5", ("a1", "b1")),
    "dot": ("np.dot(a2, b2), phi 2", ("a2", "b2")),
    "zmatmul": ("complex za @ zb", ("za", "zb")),
    "gram": ("s @ s.T (SYRK)", ("s", "s.T")),
    "expm": ("scipy.linalg.expm(m)", None),
}
# The LAPACK-level steps: step -> (what it computes, its backward error from the inputs)
LAPACK_STEPS = {
    "solve": ("scipy.linalg.solve(g, rhs)", lambda d, x: _solve_error(d["g"], x, d["rhs"])),
    "cholesky": ("scipy.linalg.cholesky(spd)",
                 lambda d, c: np.linalg.norm(d["spd"] - c.T @ c, 1) / np.linalg.norm(d["spd"], 1)),
    "np_solve": ("numpy.linalg.solve(g, rhs)", lambda d, x: _solve_error(d["g"], x, d["rhs"])),
}


def _solve_error(a, x, b) -> float:
    """Normwise backward error of a solve: ||A x - b|| / (||A|| ||x|| + ||b||), 1-norms."""
    n = lambda v: np.linalg.norm(v, 1)
    return float(n(a @ x - b) / (n(a) * n(x) + n(b)))


def has_extended_precision() -> bool:
    """Whether long double is x86's 80-bit format (64-bit significand, hardware speed).
    Elsewhere it is either double itself or a software quad too slow for the reference."""
    return np.finfo(np.longdouble).nmant == 63


def expm_reference(m: np.ndarray) -> np.ndarray:
    """exp(M) in long double: Taylor series of M / 2^s (norm <= 1/4), squared s times.

    With a 64-bit significand its error is about 2^-60 relative, far below the errors of a
    double-precision expm that it judges. Returned as long double."""
    ld = np.longdouble
    a = m.astype(ld)
    norm = float(np.max(np.sum(np.abs(m), axis=0)))
    s = max(0, int(np.ceil(np.log2(norm / 0.25)))) if norm > 0 else 0
    a = a / ld(2.0) ** s
    term = np.eye(m.shape[0], dtype=ld)
    result = term.copy()
    eps = np.finfo(ld).eps
    for j in range(1, 60):
        term = term @ a / ld(j)
        result += term
        if np.max(np.abs(term)) <= eps * np.max(np.abs(result)):
            break
    for _ in range(s):
        result = result @ result
    return result


def _metrics(x: np.ndarray, ref: np.ndarray, den: np.ndarray | None) -> tuple[float, float]:
    """(err_ab, or the max-norm relative error when den is None; max elementwise relative)."""
    d = np.abs(x.astype(ref.dtype) - ref)
    err = float(np.max(d / den)) if den is not None else float(np.max(d) / np.max(np.abs(ref)))
    nz = ref != 0
    rel = float(np.max(d[nz] / np.abs(ref[nz]))) if nz.any() else 0.0
    return err, rel


def _table(headers, rows) -> str:
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    w = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    fmt = lambda r: "  ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(r))
    return "\n".join([fmt(cells[0]), fmt(["-" * x for x in w])] + [fmt(r) for r in cells[1:]])


def _native_env() -> dict:
    """The environment without any ozblas routing (no preload, no OZBLAS_* setting)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_")}
    kept = [p for p in env.get("LD_PRELOAD", "").replace(" ", ":").split(":")
            if p and os.path.basename(p) != "libozblas_preload.so"]
    if kept:
        env["LD_PRELOAD"] = ":".join(kept)
    else:
        env.pop("LD_PRELOAD", None)
    return env


def _run(cmd, env, label) -> tuple[subprocess.CompletedProcess, float]:
    t = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise RuntimeError(f"the {label} run failed (exit status {p.returncode}):\n{p.stdout}{p.stderr}")
    return p, dt


def _trace_entry_points(path: Path) -> str:
    seen = collections.Counter()
    if path.exists():
        for line in path.read_text().splitlines():
            f = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line))
            if "symbol" in f:
                seen[(f["symbol"], f["route"])] += 1
    return ", ".join(f"{sym} x{n} ({route})" for (sym, route), n in sorted(seen.items())) or "none"


def _trace_precision(path: Path) -> str:
    """The moduli (or slices) each routed call took and the largest bound it stated."""
    counts, bounds = collections.Counter(), []
    if path.exists():
        for line in path.read_text().splitlines():
            f = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line))
            if f.get("route") == "ozblas" and "products" not in f:  # LAPACK lines: _trace_lapack
                n = f["moduli"] if f["method"] == "ozaki2" else f["slices"]
                counts[f"{n} {'moduli' if f['method'] == 'ozaki2' else 'slices'}"] += 1
                if float(f["bound"]) >= 0:
                    bounds.append(float(f["bound"]))
    if not counts:
        return "no call was emulated"
    text = ", ".join(f"{k} x{v}" for k, v in sorted(counts.items()))
    return text + (f"; largest stated error bound {max(bounds):.2e} (relative to |A||B|)" if bounds
                   else " (counts fixed by the settings: no bound computed)")


def _trace_lapack(path: Path) -> str:
    """Per LAPACK routine routed: calls, products emulated, share of the product flops."""
    per = collections.defaultdict(lambda: [0, 0, 0, 0.0, 0.0])
    if path.exists():
        for line in path.read_text().splitlines():
            f = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line))
            if f.get("route") == "ozblas" and "products" in f:
                p = per[f["routine"]]
                p[0] += 1
                p[1] += int(f["emulated"])
                p[2] += int(f["products"])
                p[3] += float(f["emulated_flops"])
                p[4] += float(f["product_flops"])
    if not per:
        return "none routed"
    return ", ".join(f"{r} x{c} ({e} of {n} products emulated, {100 * ef / pf if pf else 0:.0f}% of "
                     "their flops)" for r, (c, e, n, ef, pf) in sorted(per.items()))


def run_demo(method: str | None = None, moduli: int | None = None, out=sys.stdout) -> int:
    from . import api
    from .testing import exact_matmul

    say = lambda *a: print(*a, file=out)
    try:
        import scipy  # noqa: F401  (the script uses it)
    except ImportError:
        say("ozblas demo: the example script needs SciPy (pip install scipy)")
        return 2
    gpu = api.info()["executors"]["cuda"]["available"]
    forced = method is None and not gpu
    method = method or ("auto" if gpu else "ozaki2")

    say(f"ozblas demo: {SCRIPT.name}, a plain NumPy/SciPy script (nothing in it knows ozblas),")
    say("run twice in fresh processes: as it is (native, the host BLAS) and under the shim:")
    run_args = ["--method", method] + (["--moduli", str(moduli)] if moduli else [])
    say(f"  ozblas run {' '.join(run_args)} --trace FILE --summary -- python {SCRIPT.name} OUT.npz")
    if forced:
        say("No usable GPU here, and method auto keeps every call on the host BLAS without one,")
        say("so the demo forces OZBLAS_METHOD=ozaki2 (Ozaki II on the CPU executor: the exact,")
        say("bit-reproducible path a GPU runs fast; on a CPU it is slower than native).")
    say("")

    with tempfile.TemporaryDirectory(prefix="ozblas-demo-") as tmp:
        tmp = Path(tmp)
        _, wall_native = _run([sys.executable, str(SCRIPT), str(tmp / "native.npz")], _native_env(),
                              "native")
        trace = tmp / "trace.log"
        env = {k: v for k, v in os.environ.items() if k not in ("OZBLAS_TRACE", "OZBLAS_SUMMARY")}
        cmd = [sys.executable, "-m", "ozblas", "run", *run_args, "--trace", str(trace), "--summary",
               "--", sys.executable, str(SCRIPT), str(tmp / "ozblas.npz")]
        emu, wall_emu = _run(cmd, env, "emulated")
        nat = dict(np.load(tmp / "native.npz"))
        ozb = dict(np.load(tmp / "ozblas.npz"))
        summary = [l for l in emu.stderr.splitlines() if l.startswith(("ozblas summary", "  "))]
        entry_points = _trace_entry_points(trace)
        precision = _trace_precision(trace)
        lapack = _trace_lapack(trace)

    for name in ("a1", "b1", "a2", "b2", "za", "zb", "s", "m", "g", "rhs", "spd"):
        if not np.array_equal(nat[name], ozb[name]):
            raise RuntimeError(f"the two runs drew different inputs ({name}); the comparison would be void")

    say("What the shim saw (its OZBLAS_SUMMARY table):")
    say("\n".join(summary) if summary else "  (no summary: no BLAS call reached the shim)")
    say(f"BLAS entry points called (from the trace): {entry_points}")
    say(f"Precision per emulated call (automatic unless --moduli is given): {precision}")
    say(f"LAPACK calls run by ozblas's blocked drivers (from the trace): {lapack}")
    say("")

    rows = []
    for step, (what, ops) in STEPS.items():
        if ops is None and not has_extended_precision():
            rows.append([what, "x".join(map(str, nat["m"].shape)), f"{nat['seconds_' + step] * 1e3:.1f}",
                         f"{ozb['seconds_' + step] * 1e3:.1f}", "-", "-", "-", "-"])
            continue
        if ops is None:
            ref = expm_reference(nat["m"])
            den, size = None, "x".join(map(str, nat["m"].shape))
        else:
            a = nat[ops[0]]
            b = nat["s"].T if ops[1] == "s.T" else nat[ops[1]]
            ref = exact_matmul(a, b)
            den = np.abs(a) @ np.abs(b)
            size = f"{a.shape[0]}x{b.shape[1]}x{a.shape[1]}"
        en, rn = _metrics(nat[step], ref, den)
        eo, ro = _metrics(ozb[step], ref, den)
        rows.append([what, size, f"{nat['seconds_' + step] * 1e3:.1f}", f"{ozb['seconds_' + step] * 1e3:.1f}",
                     f"{en:.2e}", f"{eo:.2e}", f"{rn:.2e}", f"{ro:.2e}"])
    say(_table(["step", "m x n x k", "native ms", "ozblas ms", "native err", "ozblas err",
                "native max_rel", "ozblas max_rel"], rows))
    say("err: err_ab = max |C - C_exact| / (|A||B|) against the exact product rounded once")
    say("     (ozblas.testing.exact_matmul); for expm, max |X - X_ref| / max |X_ref| against exp(M)")
    say("     in long double (Taylor, scaling and squaring). max_rel: max |C - C_ref| / |C_ref|.")
    if not has_extended_precision():
        say("     (no x86 long double here: expm has no reference, only its times are shown)")
    say("")
    rows = [[what, "x".join(map(str, nat["g"].shape)), f"{nat['seconds_' + step] * 1e3:.1f}",
             f"{ozb['seconds_' + step] * 1e3:.1f}", f"{err(nat, nat[step]):.2e}", f"{err(nat, ozb[step]):.2e}"]
            for step, (what, err) in LAPACK_STEPS.items()]
    say(_table(["step", "n", "native ms", "ozblas ms", "native err", "ozblas err"], rows))
    say("err: backward error, ||A x - b|| / (||A|| ||x|| + ||b||) for the solves and")
    say("     ||A - C^T C|| / ||A|| for the Cholesky factor (1-norms), both runs on the same inputs.")
    say(f"Wall time of each run, Python start-up included: native {wall_native:.1f} s, "
        f"under the shim {wall_emu:.1f} s.")
    return 0
