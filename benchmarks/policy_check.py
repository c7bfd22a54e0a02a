"""How well the cost model predicts this machine: predicted against measured time per candidate.

Calibrates this machine first (ozblas.calibrate.measure, in this process; --use-cache takes
the valid cache instead), then for a sweep of sizes times each CPU candidate (host native
DGEMM, the CPU executor's Ozaki II at a few moduli counts and both scalings, its Ozaki I
hybrid and bitmask) and compares with what the C model predicts on that profile. Where a
GPU (a usable CUDA executor and CuPy) is present, the device candidates are timed on CuPy
arrays too (native, Ozaki II, Ozaki I), against the model with data on the device.

Prints the prediction-error table, writes benchmarks/results/policy_check.json and
policy_check.png (predicted against measured, and the ratio per size). The calibration uses
Ozaki II fast-16 at n = 1024 and Ozaki I hybrid-11 at n = 512 (in-sample rows, marked in the
JSON); every other row is out of sample. Times are the fastest of interleaved repeats after
a warm-up (as the calibration takes them), each the call's own report time (C wall time).

On a machine shared with other work, run it single-threaded: two-thread OpenBLAS calls stall
unpredictably when another process takes a core (10-20x on the project's 2-core machine),
which no model predicts:
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OZBLAS_NUM_THREADS=1 python benchmarks/policy_check.py
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ozblas  # noqa: E402
from _common import RESULTS, machine, table, write_json  # noqa: E402
from ozblas import calibrate, policy  # noqa: E402

CPU_CASES = [  # (candidate name in the model, matmul keywords)
    ("native host", dict(method="native")),
    ("ozaki2 fast 12 (cpu executor)", dict(method="ozaki2", moduli=12, scaling="fast")),
    ("ozaki2 fast 16 (cpu executor)", dict(method="ozaki2", moduli=16, scaling="fast")),
    ("ozaki2 accurate 16 (cpu executor)", dict(method="ozaki2", moduli=16, scaling="accurate")),
    ("ozaki2 accurate 20 (cpu executor)", dict(method="ozaki2", moduli=20, scaling="accurate")),
    ("ozaki1 hybrid 11 (cpu executor)", dict(method="ozaki1", slices=11, variant="hybrid")),
    ("ozaki1 bitmask 8 (cpu executor)", dict(method="ozaki1", slices=8, variant="bitmask")),
]
GPU_CASES = [
    ("native device", dict(method="native")),
    ("ozaki2 fast 14", dict(method="ozaki2", moduli=14, scaling="fast")),
    ("ozaki2 accurate 16", dict(method="ozaki2", moduli=16, scaling="accurate")),
    ("ozaki1 hybrid 11", dict(method="ozaki1", slices=11, variant="hybrid")),
]
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OZBLAS_NUM_THREADS")
IN_SAMPLE = {("ozaki2 fast 16 (cpu executor)", 1024), ("ozaki1 hybrid 11 (cpu executor)", 512)}


def _counts(kw):
    return kw.get("moduli", 16), kw.get("slices", 11)


def _predict(profile, name, kw, m, n, k, dtype, where):
    moduli, slices = _counts(kw)
    return next(c for c in policy.estimate(m, n, k, dtype, where, profile, moduli, slices)
                if c["name"] == name)


def _sweep(profile, cases, shapes, repeats, make, executor, where, budget):
    rows = []
    t_start = time.perf_counter()
    for m, n, k, dtype in shapes:
        a, b = make(m, k, 1, dtype == "z"), make(k, n, 2, dtype == "z")
        times = {name: [] for name, _ in cases}
        for _, kw in cases:  # warm-up
            ozblas.matmul(a, b, executor=executor, **kw)
        for _ in range(repeats):  # interleaved: drift and other load hit every case alike
            for name, kw in cases:
                _, info = ozblas.matmul(a, b, executor=executor, return_info=True, **kw)
                assert info["fallback"] is None, (name, info["fallback"])
                times[name].append(info["seconds"])
        for name, kw in cases:
            pred = _predict(profile, name, kw, m, n, k, dtype, where)
            meas = min(times[name])
            rows.append({"candidate": name, "dtype": dtype, "m": m, "n": n, "k": k, "measured_s": meas,
                         "times_s": times[name], "predicted_s": pred["seconds"],
                         "predicted_breakdown": pred["breakdown"],
                         "error": pred["seconds"] / meas - 1,
                         "in_sample": (name, n) in IN_SAMPLE and m == n == k and dtype == "d"})
        print(f"  {dtype} {m}x{n}x{k} done ({time.perf_counter() - t_start:.0f} s)", file=sys.stderr)
        if time.perf_counter() - t_start > budget:
            print("  time budget reached: larger sizes skipped", file=sys.stderr)
            break
    return rows


def _gpu(profile, args):
    ident, _ = policy.machine()
    if ident["device"] == "none":
        return None, "no usable CUDA executor"
    try:
        import cupy as cp
    except ImportError:
        return None, "CuPy is not installed"

    def make(r, c, seed, cplx):
        g = cp.random.default_rng(seed)
        a = g.random((r, c)) - 0.5
        return cp.asfortranarray(a + 1j * (g.random((r, c)) - 0.5) if cplx else a)

    shapes = [(n, n, n, "d") for n in args.gpu_sizes] + [(4096, 4096, 4096, "z")]
    return _sweep(profile, GPU_CASES, shapes, args.repeats, make, "cuda", "device", args.budget), None


def _summary(rows):
    out = []
    for name in dict.fromkeys(r["candidate"] for r in rows):
        e = [abs(r["error"]) for r in rows if r["candidate"] == name and not r["in_sample"]]
        if e:
            out.append({"candidate": name, "median_abs_error": statistics.median(e),
                        "max_abs_error": max(e), "rows": len(e)})
    return out


def _flops(r):
    return (8 if r.get("dtype") == "z" else 2) * r["m"] * r["n"] * r["k"]


def _plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 5))
    names = list(dict.fromkeys(r["candidate"] for r in rows))
    for i, name in enumerate(names):
        rr = [r for r in rows if r["candidate"] == name]
        mk = "o" if "cpu" in name or name == "native host" else "s"
        ax1.scatter([r["measured_s"] for r in rr], [r["predicted_s"] for r in rr], label=name,
                    marker=mk, color=f"C{i % 10}")
        rr = sorted(rr, key=_flops)
        ax2.plot([_flops(r) for r in rr], [r["predicted_s"] / r["measured_s"] for r in rr],
                 marker=mk, color=f"C{i % 10}", label=name)
    lo = min(min(r["measured_s"], r["predicted_s"]) for r in rows) / 1.5
    hi = max(max(r["measured_s"], r["predicted_s"]) for r in rows) * 1.5
    ax1.plot([lo, hi], [lo, hi], "k--", lw=0.8)
    ax1.set(xscale="log", yscale="log", xlabel="measured s", ylabel="predicted s",
            title="cost model vs measurement")
    ax2.axhline(1.0, color="k", ls="--", lw=0.8)
    ax2.set(xscale="log", yscale="log", xlabel="FLOP (2mnk, ZGEMM 8mnk)", ylabel="predicted / measured",
            title="prediction ratio by product size")
    ax1.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--sizes", type=int, nargs="+", default=[128, 256, 512, 1024])
    p.add_argument("--gpu-sizes", type=int, nargs="+", default=[1024, 2048, 4096, 8192])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--budget", type=float, default=120.0, help="seconds per sweep, roughly")
    p.add_argument("--use-cache", action="store_true",
                   help="the calibration cache instead of calibrating in this run")
    p.add_argument("--out", type=Path, default=None, help=f"folder (default {RESULTS})")
    args = p.parse_args(argv)

    if args.use_cache:
        prof, why = policy.read_cache()
        if prof is None:
            sys.exit(f"no valid calibration cache: {why}")
        cal = None
    else:
        print("calibrating ...", file=sys.stderr)
        prof, cal = calibrate.measure(quick=False, progress=False)
    print("\n".join(calibrate.rate_lines(prof)))

    def make(r, c, seed, cplx):
        g = np.random.default_rng(seed)
        a = g.random((r, c)) - 0.5
        return np.asfortranarray(a + 1j * (g.random((r, c)) - 0.5) if cplx else a)

    # square DGEMMs, one long-k product (several k-blocks) and one ZGEMM
    shapes = [(n, n, n, "d") for n in args.sizes] + [(256, 256, 4096, "d"), (512, 512, 512, "z")]
    print("timing the CPU candidates ...", file=sys.stderr)
    rows = _sweep(prof, CPU_CASES, shapes, args.repeats, make, "cpu", "host", args.budget)
    gpu_rows, gpu_skip = _gpu(prof, args)
    if gpu_skip:
        print(f"GPU section skipped: {gpu_skip}")
    allrows = rows + (gpu_rows or [])

    print(table(["candidate", "dtype", "m", "n", "k", "measured ms", "predicted ms", "error"],
                [[r["candidate"] + (" *" if r["in_sample"] else ""), r["dtype"], r["m"], r["n"], r["k"],
                  f"{r['measured_s'] * 1e3:.2f}", f"{r['predicted_s'] * 1e3:.2f}",
                  f"{r['error'] * 100:+.0f}%"] for r in allrows]))
    print("* in sample (the calibration measured this case)")
    summ = _summary(allrows)
    print(table(["candidate", "rows", "median |error|", "max |error|"],
                [[s["candidate"], s["rows"], f"{s['median_abs_error'] * 100:.0f}%",
                  f"{s['max_abs_error'] * 100:.0f}%"] for s in summ]))
    choices = {f"{n}": policy.choose(n, n, n, "d", "host", prof)["name"] for n in args.sizes}
    print("method auto on this profile:", choices)
    out = write_json("policy_check.json", {
        "machine": machine(), "threads": {v: os.environ.get(v) for v in THREAD_VARS},
        "profile": prof.as_dict(), "calibration": cal,
        "rows": allrows, "summary": summ, "gpu_skipped": gpu_skip, "auto_choices": choices,
    }, args.out)
    png = (args.out or RESULTS) / "policy_check.png"
    _plot(allrows, png)
    print(f"wrote {out} and {png}")


if __name__ == "__main__":
    main()
