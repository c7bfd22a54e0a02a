"""Native DGEMM vs Ozaki II (14 moduli, fast and accurate) on the CPU executor.

Median of interleaved runs in one process at n = 512, 1024, 2048; prints the ratio to
native and writes benchmarks/results/cpu_speed.json. Run with the host BLAS as it is set up
(OPENBLAS_CORETYPE is recorded in the JSON: it selects OpenBLAS's kernels).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ozblas  # noqa: E402
from _common import machine, table, write_json  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--sizes", type=int, nargs="+", default=[512, 1024, 2048])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--moduli", type=int, default=14)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    cases = [("native", {"method": "native"})] + [
        (f"ozaki2-{s}-{args.moduli}", {"method": "ozaki2", "moduli": args.moduli, "scaling": s})
        for s in ("fast", "accurate")]
    results = []
    for n in args.sizes:
        rng = np.random.default_rng(n)
        a = np.asfortranarray((rng.random((n, n)) - 0.5) * np.exp(0.5 * rng.standard_normal((n, n))))
        b = np.asfortranarray((rng.random((n, n)) - 0.5) * np.exp(0.5 * rng.standard_normal((n, n))))
        times = {name: [] for name, _ in cases}
        phases = {}
        for _, kw in cases:  # warm-up
            ozblas.matmul(a, b, executor="cpu", **kw)
        for _ in range(args.repeats):  # interleaved, so drift hits every case alike
            for name, kw in cases:
                t = time.perf_counter()
                _, info = ozblas.matmul(a, b, executor="cpu", return_info=True, **kw)
                times[name].append(time.perf_counter() - t)
                if info["phase_seconds"]:
                    phases[name] = info["phase_seconds"]
        native = statistics.median(times["native"])
        for name, _ in cases:
            med = statistics.median(times[name])
            results.append({"n": n, "case": name, "median_s": med, "ratio_to_native": med / native,
                            "gflops": 2 * n**3 / med / 1e9, "times_s": times[name],
                            "phase_seconds": phases.get(name)})
    rows = [[r["n"], r["case"], f"{r['median_s'] * 1e3:.1f}", f"{r['gflops']:.1f}", f"{r['ratio_to_native']:.1f}x"]
            for r in results]
    print(table(["n", "case", "median ms", "GFLOPS", "vs native"], rows))
    path = write_json("cpu_speed.json", {"machine": machine(), "moduli": args.moduli, "results": results}, args.out)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
