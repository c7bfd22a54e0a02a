"""Where a product starts to gain from a second CPU-executor thread (docs/distributed.md, "Threads").

Times Ozaki II products (14 moduli, CPU executor) with 1 and with 2 OpenMP threads, the rule
that keeps small products on the calling thread switched off (the test-only hook
``oz_cpu_test_min_elements(0)``), for square shapes and the LAPACK layer's panel shapes
(k = 8 and 32). Each time is the median of interleaved batches of calls. Prints the table and
the crossover: the fewest elements (m k + k n + m n) from which 2 threads win at every larger
size measured; half of it is the elements a thread should get at least
(OZ_CPU_MIN_ELEMS_PER_THREAD in native/src/cpu/cpu_common.c). Then, with the rule on, the
issue's case: an emulated syevd at n = 48 (nb 8) with 1 and with 2 threads. Writes
benchmarks/results/cpu_threads.json. On a shared machine the crossover moves with the load:
the JSON records the machine and the load average.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ozblas  # noqa: E402
from ozblas import _native  # noqa: E402
from _common import machine, table, write_json  # noqa: E402


def _time(a, b, threads, budget):
    """Seconds per call: the median of 5 batches of calls that each last about budget s."""
    kw = {"method": "ozaki2", "moduli": 14, "executor": "cpu", "threads": threads}
    ozblas.matmul(a, b, **kw)
    t = time.perf_counter()
    ozblas.matmul(a, b, **kw)
    reps = max(1, int(budget / max(time.perf_counter() - t, 1e-6)))
    out = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(reps):
            ozblas.matmul(a, b, **kw)
        out.append((time.perf_counter() - t) / reps)
    return statistics.median(out)


def _eigh(n=48, nb=8):
    """The issue's case, with the rule on: ozblas.lapack.syevd at n = 48, nb = 8 (199 small
    products), 1 and 2 threads alternating, best of 5 calls each, three rounds."""
    from ozblas import lapack as L

    a = np.random.default_rng(0).uniform(-1, 1, (n, n))
    a = a + a.T
    out = {1: [], 2: []}
    for _ in range(3):
        for t in (1, 2):
            L.syevd(a, method="ozaki2", nb=nb, threads=t)
            best = float("inf")
            for _ in range(5):
                t0 = time.perf_counter()
                L.syevd(a, method="ozaki2", nb=nb, threads=t)
                best = min(best, time.perf_counter() - t0)
            out[t].append(best)
    print(f"syevd n={n} nb={nb}: 1 thread {out[1]} s, 2 threads {out[2]} s")
    return {"n": n, "nb": nb, "t1_s": out[1], "t2_s": out[2]}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--sizes", type=int, nargs="+", default=[16, 32, 48, 64, 96, 128, 192, 256, 384])
    p.add_argument("--budget", type=float, default=0.02, help="seconds per timed batch")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    hook = ctypes.CDLL(str(_native.library_path())).oz_cpu_test_min_elements
    hook.argtypes = [ctypes.c_int64]
    hook(0)
    rng = np.random.default_rng(0)
    rows = []
    try:
        for kb in (None, 8, 32):
            for n in args.sizes:
                k = n if kb is None else kb
                a = np.asfortranarray(rng.uniform(-1, 1, (n, k)))
                b = np.asfortranarray(rng.uniform(-1, 1, (k, n)))
                t1, t2 = _time(a, b, 1, args.budget), _time(a, b, 2, args.budget)
                rows.append({"m": n, "n": n, "k": k, "elements": n * k + k * n + n * n,
                             "t1_s": t1, "t2_s": t2, "speedup_2": t1 / t2})
    finally:
        hook(-1)
    eigh = _eigh()
    rows.sort(key=lambda r: r["elements"])
    cross = None
    for i, r in enumerate(rows):
        if all(s["speedup_2"] > 1.0 for s in rows[i:]):
            cross = r["elements"]
            break
    print(table(["m=n", "k", "elements", "1 thread us", "2 threads us", "speedup"],
                [[r["m"], r["k"], r["elements"], f"{r['t1_s'] * 1e6:.0f}", f"{r['t2_s'] * 1e6:.0f}",
                  f"{r['speedup_2']:.2f}"] for r in rows]))
    print(f"2 threads win from {cross} elements on (per thread: {cross // 2 if cross else None})")
    path = write_json("cpu_threads.json", {"machine": machine(), "loadavg": os.getloadavg(),
                                           "crossover_elements": cross, "results": rows,
                                           "syevd_rule_on": eigh}, args.out)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
