"""ZHERK against DSYRK on Ozaki II, CPU executor (issue 34): time of the LAPACK layer's
SYRK entries (ozblas_dsyrk, ozblas_zherk; C = A A^T, A A^H, trans 'N', n x n from n x k).

At a fixed moduli count (14 by default: ZHERK then takes the bits of 14 real moduli on the
complex set) and the given scaling and block size (nb; 0: the layer's rule), median of
interleaved runs in one process; inputs from ozblas.testing.make_matrix (phi 0.5). Wall and
CPU time (one thread: the CPU time is what a loaded machine disturbs least). Writes
benchmarks/results/zherk_speed.json, keeping the runs of other labels already there.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ozblas._native import ffi, lib  # noqa: E402
from ozblas.api import _context, _options  # noqa: E402
from ozblas.testing import make_matrix  # noqa: E402
from _common import machine, speed_parser, table, write_json  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "zherk_speed.json"


def _rk(name, a, nb, opt):
    """C = A op(A) (lower triangle) through ozblas_<name>; the LAPACK report's products."""
    n, k = a.shape
    a = np.asfortranarray(a)
    c = np.zeros((n, n), dtype=a.dtype, order="F")
    info = ffi.new("int64_t *")
    rep = ffi.new("ozblas_lapack_report *")
    st = getattr(lib, "ozblas_" + name)(
        _context(), b"L", b"N", n, k, 1.0, ffi.cast("double *", a.ctypes.data), n, 0.0,
        ffi.cast("double *", c.ctypes.data), n, info, nb, opt, rep)
    assert st == 0 and info[0] == 0, (name, st, info[0])
    return c, rep


def main(argv=None):
    p = speed_parser(__doc__)
    p.add_argument("--nb", type=int, default=0)
    args = p.parse_args(argv)
    opt = _options("ozaki2", args.moduli, args.scaling, "cpu", args.threads)
    runs = []
    for n in args.sizes:
        a = make_matrix(n, n, 0.5, seed=1)
        cases = {"dsyrk": a, "zherk": a + 1j * make_matrix(n, n, 0.5, seed=3)}
        times = {c: [] for c in cases}
        cpu = {c: [] for c in cases}
        reps = {}
        for c, x in cases.items():  # warm-up
            _rk(c, x, args.nb, opt)
        for _ in range(args.repeats):  # interleaved, so drift hits both alike
            for c, x in cases.items():
                t, tc = time.perf_counter(), time.process_time()
                _, reps[c] = _rk(c, x, args.nb, opt)
                times[c].append(time.perf_counter() - t)
                cpu[c].append(time.process_time() - tc)
        med = {c: statistics.median(v) for c, v in times.items()}
        mcpu = {c: statistics.median(v) for c, v in cpu.items()}
        runs.append({"n": n, "nb": int(reps["zherk"].nb), "dsyrk_s": med["dsyrk"],
                     "zherk_s": med["zherk"], "time_ratio": med["zherk"] / med["dsyrk"],
                     "dsyrk_cpu_s": mcpu["dsyrk"], "zherk_cpu_s": mcpu["zherk"],
                     "cpu_time_ratio": mcpu["zherk"] / mcpu["dsyrk"],
                     "dsyrk_products": int(reps["dsyrk"].products),
                     "zherk_products": int(reps["zherk"].products),
                     "times_s": times, "cpu_times_s": cpu})
    print(table(["n", "nb", "dsyrk ms", "zherk ms", "ratio", "cpu ms d/z", "cpu ratio",
                 "products d/z"],
                [[r["n"], r["nb"], f"{r['dsyrk_s'] * 1e3:.0f}", f"{r['zherk_s'] * 1e3:.0f}",
                  f"{r['time_ratio']:.2f}x",
                  f"{r['dsyrk_cpu_s'] * 1e3:.0f}/{r['zherk_cpu_s'] * 1e3:.0f}",
                  f"{r['cpu_time_ratio']:.2f}x", f"{r['dsyrk_products']}/{r['zherk_products']}"]
                 for r in runs]))
    old = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    labels = old.get("labels", {})
    labels[args.label] = {"machine": machine(), "moduli": args.moduli, "scaling": args.scaling,
                          "threads": args.threads, "nb": args.nb, "runs": runs}
    print(f"wrote {write_json(RESULTS.name, {'machine': machine(), 'labels': labels}, None)}")


if __name__ == "__main__":
    main()
