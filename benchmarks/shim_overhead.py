"""Cost of the preload shim and of in-process activation on calls they pass through.

10^5 products of 4 x 4 matrices in a loop, in fresh processes with and without
libozblas_preload.so (OZBLAS_METHOD=ozaki2, so calls below OZBLAS_MIN_SIZE pass through
after the routing decision), and with ozblas imported, with and without
ozblas.activate(method="ozaki2") (default min_size: the calls pass through the same way),
interleaved; prints the median ratios (and the ratios of the fastest runs, which other load
on the machine disturbs least) and writes benchmarks/results/shim_overhead.json.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, table, write_json  # noqa: E402

LOOP = """
import time, numpy as np
{setup}
a = np.random.default_rng(0).random((4, 4))
b = a.copy()
t = time.perf_counter()
for _ in range({n}):
    a @ b
print(time.perf_counter() - t)
"""


# case -> what the process does before the timed loop
SETUP = {"plain": "", "preloaded": "", "imported": "import ozblas",
         "activated": "import ozblas; ozblas.activate(method='ozaki2'); "
                      "assert ozblas.activation.status()['slots'] > 0"}


def run_once(n: int, case: str, preload: str) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_") and k != "LD_PRELOAD"}
    if case == "preloaded":
        env.update(LD_PRELOAD=preload, OZBLAS_METHOD="ozaki2", OZBLAS_MIN_SIZE="256")
    out = subprocess.run([sys.executable, "-c", LOOP.format(n=n, setup=SETUP[case])], env=env,
                         capture_output=True, text=True, check=True).stdout
    return float(out.strip().splitlines()[-1])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--products", type=int, default=100_000)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    from ozblas.shim import library_path

    lib = library_path()
    times = {case: [] for case in SETUP}
    for _ in range(args.repeats):  # interleaved: drift hits every case alike
        for case in SETUP:
            times[case].append(run_once(args.products, case, lib))

    def ratio(case, base):
        return statistics.median(x / y for x, y in zip(times[case], times[base]))

    def min_ratio(case, base):  # other load only adds time: the fastest runs are the cleanest
        return min(times[case]) / min(times[base])

    pairs = {"preloaded": "plain", "activated": "imported"}
    rows = []
    for case in SETUP:
        base = pairs.get(case)
        rows.append([case, f"{statistics.median(times[case]):.4f}", f"{min(times[case]):.4f}",
                     f"{ratio(case, base):.3f} / {min_ratio(case, base):.3f} to {base}" if base else ""])
    print(table(["case", "median s", "min s", "ratio: median / of minima"], rows))
    path = write_json("shim_overhead.json", {
        "machine": machine(), "products": args.products,
        "plain_s": times["plain"], "preloaded_s": times["preloaded"],
        "median_ratio": ratio("preloaded", "plain"), "min_ratio": min_ratio("preloaded", "plain"),
        "imported_s": times["imported"], "activated_s": times["activated"],
        "activated_median_ratio": ratio("activated", "imported"),
        "activated_min_ratio": min_ratio("activated", "imported"),
        "activated_to_plain_median_ratio": ratio("activated", "plain")}, args.out)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
