"""ZGEMM against DGEMM on Ozaki II, CPU executor (issue 34): time and integer products.

At a fixed moduli count (14 by default: ZGEMM then takes the bits of 14 real moduli, on the
complex set's two products per modulus where the build has it, Karatsuba's three before)
and the given scaling, median of interleaved runs in one process; inputs from
ozblas.testing.make_matrix (phi 0.5). Wall time and the process's CPU time (one thread: the
CPU time is what a loaded machine disturbs least) are both recorded. Writes benchmarks/results/zgemm_speed.json, keeping the
runs of other labels already there (--label before: the build without the complex set).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ozblas  # noqa: E402
from ozblas.testing import make_matrix  # noqa: E402
from _common import machine, speed_parser, table, write_json  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "zgemm_speed.json"


def main(argv=None):
    p = speed_parser(__doc__)
    args = p.parse_args(argv)
    kw = dict(method="ozaki2", moduli=args.moduli, scaling=args.scaling, executor="cpu",
              threads=args.threads, return_info=True)
    runs = []
    for n in args.sizes:
        a = make_matrix(n, n, 0.5, seed=1)
        b = make_matrix(n, n, 0.5, seed=2)
        za = a + 1j * make_matrix(n, n, 0.5, seed=3)
        zb = b + 1j * make_matrix(n, n, 0.5, seed=4)
        cases = {"dgemm": (a, b), "zgemm": (za, zb)}
        times = {c: [] for c in cases}
        cpu = {c: [] for c in cases}
        info = {}
        for c, (x, y) in cases.items():  # warm-up
            ozblas.matmul(x, y, **kw)
        for _ in range(args.repeats):  # interleaved, so drift hits both alike
            for c, (x, y) in cases.items():
                t, tc = time.perf_counter(), time.process_time()
                _, info[c] = ozblas.matmul(x, y, **kw)
                times[c].append(time.perf_counter() - t)
                cpu[c].append(time.process_time() - tc)
        med = {c: statistics.median(v) for c, v in times.items()}
        mcpu = {c: statistics.median(v) for c, v in cpu.items()}
        runs.append({"n": n, "dgemm_s": med["dgemm"], "zgemm_s": med["zgemm"],
                     "time_ratio": med["zgemm"] / med["dgemm"],
                     "dgemm_cpu_s": mcpu["dgemm"], "zgemm_cpu_s": mcpu["zgemm"],
                     "cpu_time_ratio": mcpu["zgemm"] / mcpu["dgemm"],
                     "zgemm_phase_seconds": info["zgemm"]["phase_seconds"],
                     "dgemm_phase_seconds": info["dgemm"]["phase_seconds"],
                     "dgemm_int_gemms": info["dgemm"]["int_gemms"],
                     "zgemm_int_gemms": info["zgemm"]["int_gemms"],
                     "int_gemms_ratio": info["zgemm"]["int_gemms"] / info["dgemm"]["int_gemms"],
                     "zgemm_moduli": info["zgemm"]["moduli"],
                     "zgemm_complex_products": info["zgemm"].get("complex_products"),
                     "times_s": times, "cpu_times_s": cpu})
    print(table(["n", "dgemm ms", "zgemm ms", "ratio", "cpu ms d/z", "cpu ratio", "int_gemms d/z",
                 "z moduli"],
                [[r["n"], f"{r['dgemm_s'] * 1e3:.0f}", f"{r['zgemm_s'] * 1e3:.0f}",
                  f"{r['time_ratio']:.2f}x", f"{r['dgemm_cpu_s'] * 1e3:.0f}/{r['zgemm_cpu_s'] * 1e3:.0f}",
                  f"{r['cpu_time_ratio']:.2f}x", f"{r['dgemm_int_gemms']}/{r['zgemm_int_gemms']}",
                  r["zgemm_moduli"]] for r in runs]))
    old = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    labels = old.get("labels", {})
    labels[args.label] = {"machine": machine(), "moduli": args.moduli, "scaling": args.scaling,
                          "threads": args.threads, "runs": runs}
    print(f"wrote {write_json(RESULTS.name, {'machine': machine(), 'labels': labels}, None)}")


if __name__ == "__main__":
    main()
