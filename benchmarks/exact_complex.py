"""Exact complex products (accuracy "correct" and matmul_dd) on the CPU executor, one thread:
integer products and time, for this build and optionally others (issue 34: two integer
products per modulus on the complex family of moduli against Karatsuba's three).

For n in --sizes (square, complex a_ij from ozblas.testing.make_matrix, phi --phi), each
build measures ozblas.matmul(accuracy="correct") on complex and, as the yardstick, on real
operands of the same size, and ozblas.matmul_dd on complex ones. A build is a package folder
holding ozblas/ with its libozblas.so (as tests/cuda/emu/build_emu.sh lays one out), run in a
child process; "this" is the installed one. The builds alternate within each repeat, so
their times are comparable (medians). Times are the child's CPU seconds (time.process_time:
one thread, so its work, and robust to other jobs sharing the cores, unlike wall-clock time,
which is recorded too). Writes benchmarks/results/exact_complex.json and exact_complex.png.

    python benchmarks/exact_complex.py --sizes 512 1024 --builds before=/tmp/base
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, machine, table, write_json  # noqa: E402

CHILD = r"""
import json, sys, time
folder, n, phi = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
if folder != "this":  # the folder's package, not an editable install's import hook
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__.lower()
                        and "skbc" not in type(f).__module__.lower()]
    sys.path.insert(0, folder)
import numpy as np
import ozblas
from ozblas.testing import make_matrix
for dt in (np.complex128, np.float64):  # first-call costs (host BLAS lookup, tables) aside
    w = make_matrix(8, 8, phi, seed=3, dtype=dt)
    ozblas.matmul(w, w, accuracy="correct", executor="cpu", threads=1)
    ozblas.matmul_dd(w, w, executor="cpu", threads=1)
out = {}
for kind, dt in (("zcorrect", np.complex128), ("dcorrect", np.float64), ("zdd", np.complex128)):
    a = make_matrix(n, n, phi, seed=1, dtype=dt)
    b = make_matrix(n, n, phi, seed=2, dtype=dt)
    t0, c0 = time.perf_counter(), time.process_time()
    if kind == "zdd":
        info = ozblas.matmul_dd(a, b, executor="cpu", threads=1, return_info=True)[2]
    else:
        info = ozblas.matmul(a, b, accuracy="correct", executor="cpu", threads=1,
                             return_info=True)[1]
    out[kind] = {"seconds": time.process_time() - c0, "wall": time.perf_counter() - t0,
                 "moduli": info["moduli"],
                 "int_gemms": info["int_gemms"],
                 "complex_products": info.get("complex_products")}
print(json.dumps(out))
"""


def run_child(folder: str, n: int, phi: float) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    r = subprocess.run([sys.executable, "-c", CHILD, folder, str(n), str(phi)],
                       capture_output=True, text=True, check=True, env=env)
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[512, 1024])
    ap.add_argument("--phi", type=float, default=0.5)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--builds", nargs="*", default=[],
                    help="label=folder pairs measured beside this build")
    args = ap.parse_args()
    builds = dict(b.split("=", 1) for b in args.builds)
    builds["this"] = "this"
    runs: dict = {label: {n: [] for n in args.sizes} for label in builds}
    for _ in range(args.repeats):
        for n in args.sizes:
            for label, folder in builds.items():
                runs[label][n].append(run_child(folder, n, args.phi))
    rows, data = [], []
    for label in builds:
        for n in args.sizes:
            reps = runs[label][n]
            med = {k: statistics.median(r[k]["seconds"] for r in reps) for k in reps[0]}
            wall = {k: statistics.median(r[k]["wall"] for r in reps) for k in reps[0]}
            last = reps[-1]
            entry = {"build": label, "n": n, "phi": args.phi,
                     **{f"{k}_cpu_seconds": med[k] for k in med},
                     **{f"{k}_wall_seconds": wall[k] for k in wall},
                     **{f"{k}_{f}": last[k][f] for k in last
                        for f in ("moduli", "int_gemms", "complex_products")}}
            data.append(entry)
            rows.append([label, n, last["zcorrect"]["moduli"], last["zcorrect"]["int_gemms"],
                         last["dcorrect"]["int_gemms"], f"{med['zcorrect']:.3f}",
                         f"{med['dcorrect']:.3f}", f"{med['zcorrect'] / med['dcorrect']:.2f}",
                         last["zdd"]["int_gemms"], f"{med['zdd']:.3f}"])
    print(table(["build", "n", "z moduli", "z int_gemms", "d int_gemms", "z correct cpu s",
                 "d correct cpu s", "z/d", "z dd int_gemms", "z dd cpu s"], rows))
    path = write_json("exact_complex.json", {"machine": machine(), "threads": 1,
                                             "repeats": args.repeats, "builds": builds,
                                             "results": data})
    print(f"wrote {path}")
    plot(data, args.sizes, list(builds))


def plot(data, sizes, labels) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / len(labels)
    for i, label in enumerate(labels):
        ys = [next(d["zcorrect_cpu_seconds"] / d["dcorrect_cpu_seconds"] for d in data
                   if d["build"] == label and d["n"] == n) for n in sizes]
        ax.bar([x + i * width for x in range(len(sizes))], ys, width, label=label)
    ax.set_xticks([x + width * (len(labels) - 1) / 2 for x in range(len(sizes))])
    ax.set_xticklabels([f"n = {n}" for n in sizes])
    ax.set_ylabel("complex / real CPU time, accuracy correct")
    ax.set_title("Exact complex products, CPU executor, one thread")
    ax.legend()
    fig.tight_layout()
    fig.savefig(RESULTS / "exact_complex.png", dpi=120)


if __name__ == "__main__":
    main()
