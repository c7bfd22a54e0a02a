"""Cost of the preload shim on calls it passes through.

10^5 products of 4 x 4 matrices in a loop, in fresh processes with and without
libozblas_preload.so (OZBLAS_METHOD=ozaki2, so calls below OZBLAS_MIN_SIZE pass through
after the routing decision), interleaved; prints the median ratio and writes
benchmarks/results/shim_overhead.json.
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
a = np.random.default_rng(0).random((4, 4))
b = a.copy()
t = time.perf_counter()
for _ in range({n}):
    a @ b
print(time.perf_counter() - t)
"""


def run_once(n: int, preload: str | None) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_") and k != "LD_PRELOAD"}
    if preload:
        env.update(LD_PRELOAD=preload, OZBLAS_METHOD="ozaki2", OZBLAS_MIN_SIZE="256")
    out = subprocess.run([sys.executable, "-c", LOOP.format(n=n)], env=env, capture_output=True,
                         text=True, check=True).stdout
    return float(out.strip().splitlines()[-1])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--products", type=int, default=100_000)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    from ozblas.shim import library_path

    lib = library_path()
    plain, shim = [], []
    for _ in range(args.repeats):  # interleaved: drift hits both alike
        plain.append(run_once(args.products, None))
        shim.append(run_once(args.products, lib))
    ratio = statistics.median(s / p_ for s, p_ in zip(shim, plain))
    print(table(["case", "median s", f"{args.products} products of 4x4"],
                [["plain", f"{statistics.median(plain):.3f}", ""],
                 ["preloaded, passing through", f"{statistics.median(shim):.3f}", f"ratio {ratio:.3f}"]]))
    path = write_json("shim_overhead.json", {"machine": machine(), "products": args.products,
                                             "plain_s": plain, "preloaded_s": shim,
                                             "median_ratio": ratio}, args.out)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
