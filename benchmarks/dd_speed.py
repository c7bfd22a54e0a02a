"""Double-double products and accuracy "correct": time and accuracy on the CPU, one thread.

For n in --sizes (square, a_ij = (rand - 0.5) exp(phi randn), phi 0.5):
  * host DGEMM (numpy a @ b under threadpool_limits(1));
  * ozblas.matmul_dd (exact products: Ozaki II on the host DGEMM, rounded once to hi + lo);
  * a double-double GEMM in NumPy from error-free transformations (Ozaki, Ogita, Oishi and
    Rump's error-free splitting: row/column slices whose products are exact DGEMMs, every
    product pair down to 2^-106 summed with TwoSum);
  * ozblas.matmul with the default DGEMM-level emulation (method ozaki2, automatic moduli)
    against the same call with accuracy="correct".
Medians of interleaved repeats. Accuracy of both double-double products: max over sampled
entries of |hi + lo - p| / |p| against the exact p (fractions). Writes
benchmarks/results/dd_speed.json and dd_speed.png.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ozblas  # noqa: E402
from _common import RESULTS, machine, table, write_json  # noqa: E402


def two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def eft_slices(x, axis, k, count):
    """Error-free splitting along rows (axis=1) or columns (axis=0): x = sum of the slices
    (plus a remainder below the last), each slice's dot products exact in FP64."""
    rho = math.ceil((53 + math.log2(k)) / 2)
    parts, r = [], x.copy()
    for _ in range(count):
        mu = np.max(np.abs(r), axis=axis, keepdims=True)
        if not mu.any():
            break
        e = np.ceil(np.log2(np.where(mu > 0, mu, 1.0)))
        sigma = np.where(mu > 0, np.ldexp(1.0, (e + rho).astype(int)), 0.0)
        p = (r + sigma) - sigma
        parts.append(p)
        r = r - p
    return parts


def eft_dd_gemm(a, b):
    """Double-double a @ b in NumPy: slices of beta = 53 - rho bits, the products A_p B_q with
    p + q <= s + 1 (the rest lies below 2^-106 relative to the rows' and columns' maxima),
    summed smallest first with TwoSum into (hi, lo)."""
    k = a.shape[1]
    beta = 53 - math.ceil((53 + math.log2(k)) / 2)
    s = math.ceil(108 / beta) + 1
    pa, pb = eft_slices(a, 1, k, s), eft_slices(b, 0, k, s)
    pairs = [(p, q) for p in range(len(pa)) for q in range(len(pb)) if p + q <= s - 1]
    hi = np.zeros((a.shape[0], b.shape[1]))
    lo = np.zeros_like(hi)
    for p, q in sorted(pairs, key=lambda t: -(t[0] + t[1])):
        hi, e = two_sum(hi, pa[p] @ pb[q])
        lo += e
    hi, lo = two_sum(hi, lo)
    return hi, lo, len(pairs)


def sampled_error(a, b, hi, lo, samples, rng):
    worst = 0.0
    m, n = hi.shape
    for _ in range(samples):
        i, j = int(rng.integers(m)), int(rng.integers(n))
        p = sum(Fraction(x) * Fraction(y) for x, y in zip(a[i].tolist(), b[:, j].tolist()))
        if p:
            worst = max(worst, float(abs(Fraction(hi[i, j]) + Fraction(lo[i, j]) - p) / abs(p)))
    return worst


def median_time(f, repeats):
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--sizes", type=int, nargs="+", default=[512, 1024, 1536, 2048])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--phi", type=float, default=0.5)
    p.add_argument("--samples", type=int, default=16)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    rows, results = [], []
    for n in args.sizes:
        rng = np.random.default_rng(n)
        a = np.asfortranarray((rng.random((n, n)) - 0.5) * np.exp(args.phi * rng.standard_normal((n, n))))
        b = np.asfortranarray((rng.random((n, n)) - 0.5) * np.exp(args.phi * rng.standard_normal((n, n))))
        with threadpool_limits(1):
            _, _, info = ozblas.matmul_dd(a, b, threads=1, return_info=True)
            _, _, pairs = eft_dd_gemm(a, b)
            cases = {
                "dgemm": lambda: a @ b,
                "matmul_dd": lambda: ozblas.matmul_dd(a, b, threads=1),
                "numpy_eft_dd": lambda: eft_dd_gemm(a, b),
                "emulation_dgemm_level": lambda: ozblas.matmul(a, b, method="ozaki2",
                                                               executor="cpu", threads=1),
                "emulation_correct": lambda: ozblas.matmul(a, b, method="ozaki2", executor="cpu",
                                                           threads=1, accuracy="correct"),
            }
            t = {name: [] for name in cases}
            for _ in range(args.repeats):  # interleaved: drift on the shared machine hits all
                for name, f in cases.items():
                    t[name].append(median_time(f, 1))
            t = {name: statistics.median(v) for name, v in t.items()}
            hi, lo = ozblas.matmul_dd(a, b, threads=1)
            eh, el, _ = eft_dd_gemm(a, b)
        err_dd = sampled_error(a, b, hi, lo, args.samples, rng)
        err_eft = sampled_error(a, b, eh, el, args.samples, rng)
        r = {"n": n, "seconds": t, "moduli": info["moduli"], "dgemms": info["int_gemms"],
             "phase_seconds": info["phase_seconds"], "numpy_eft_products": pairs,
             "max_rel_err_sampled": {"matmul_dd": err_dd, "numpy_eft_dd": err_eft},
             "samples": args.samples}
        results.append(r)
        d = t["dgemm"]
        rows.append([n, f"{d:.3f}", f"{t['matmul_dd']:.3f}", f"{t['matmul_dd'] / d:.1f}x",
                     info["moduli"], f"{t['numpy_eft_dd']:.3f}", f"{t['numpy_eft_dd'] / d:.1f}x",
                     f"{err_dd:.1e}", f"{err_eft:.1e}",
                     f"{t['emulation_correct'] / t['emulation_dgemm_level']:.2f}x"])
        print(table(["n", "dgemm s", "dd s", "dd/dgemm", "moduli", "eft s", "eft/dgemm",
                     "dd err", "eft err", "correct/dgemm-level"], rows[-1:]), flush=True)
    print(table(["n", "dgemm s", "dd s", "dd/dgemm", "moduli", "eft s", "eft/dgemm",
                 "dd err", "eft err", "correct/dgemm-level"], rows))
    data = {"machine": machine(), "threads": 1, "phi": args.phi, "repeats": args.repeats,
            "results": results}
    path = write_json("dd_speed.json", data, args.out)
    print(f"wrote {path}")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    ns = [r["n"] for r in results]
    for name, label in (("matmul_dd", "ozblas.matmul_dd"), ("numpy_eft_dd", "NumPy EFT double-double"),
                        ("emulation_correct", 'matmul accuracy="correct"'),
                        ("emulation_dgemm_level", "matmul (DGEMM-level emulation)")):
        ax.plot(ns, [r["seconds"][name] / r["seconds"]["dgemm"] for r in results], "o-", label=label)
    ax.axhline(16, ls="--", c="gray", lw=0.8, label="target 16x (matmul_dd, n = 2048)")
    ax.set_xlabel("n (square)")
    ax.set_ylabel("time / host DGEMM (one thread)")
    ax.set_title(f"double-double and correctly rounded products, phi = {args.phi}")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig((Path(args.out) if args.out else RESULTS) / "dd_speed.png", dpi=120)


if __name__ == "__main__":
    main()
