"""ZHERK against DSYRK and ZHER2K against DSYR2K on Ozaki II, CPU executor (issue 34): time
of the LAPACK layer's entries (ozblas_dsyrk, ozblas_zherk: C = A A^T, A A^H; ozblas_dsyr2k,
ozblas_zher2k: C = A B^T + B A^T, A B^H + B A^H; trans 'N', n x n from n x k).

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


def _rk(name, a, nb, opt, b=None):
    """C = A op(A) (or A op(B) + B op(A), b given; lower triangle) through ozblas_<name>;
    the LAPACK report's products."""
    n, k = a.shape
    a = np.asfortranarray(a)
    c = np.zeros((n, n), dtype=a.dtype, order="F")
    info = ffi.new("int64_t *")
    rep = ffi.new("ozblas_lapack_report *")
    p = lambda x: ffi.cast("double *", x.ctypes.data)  # noqa: E731
    if b is None:
        args = (1.0, p(a), n)
    else:
        b = np.asfortranarray(b)
        args = (ffi.new("double[2]", [1.0, 0.0]) if name == "zher2k" else 1.0, p(a), n, p(b), n)
    st = getattr(lib, "ozblas_" + name)(_context(), b"L", b"N", n, k, *args, 0.0, p(c), n, info,
                                         nb, opt, rep)
    assert st == 0 and info[0] == 0, (name, st, info[0])
    return c, rep


PAIRS = (("dsyrk", "zherk"), ("dsyr2k", "zher2k"))


def main(argv=None):
    p = speed_parser(__doc__)
    p.add_argument("--nb", type=int, default=0)
    args = p.parse_args(argv)
    opt = _options("ozaki2", args.moduli, args.scaling, "cpu", args.threads)
    runs = []
    for n in args.sizes:
        a = make_matrix(n, n, 0.5, seed=1)
        z = a + 1j * make_matrix(n, n, 0.5, seed=3)
        b = make_matrix(n, n, 0.5, seed=5)
        cases = {"dsyrk": (a, None), "zherk": (z, None), "dsyr2k": (a, b),
                 "zher2k": (z, b + 1j * make_matrix(n, n, 0.5, seed=7))}
        times = {c: [] for c in cases}
        cpu = {c: [] for c in cases}
        reps = {}
        for c, (x, y) in cases.items():  # warm-up
            _rk(c, x, args.nb, opt, y)
        for _ in range(args.repeats):  # interleaved, so drift hits all alike
            for c, (x, y) in cases.items():
                t, tc = time.perf_counter(), time.process_time()
                _, reps[c] = _rk(c, x, args.nb, opt, y)
                times[c].append(time.perf_counter() - t)
                cpu[c].append(time.process_time() - tc)
        med = {c: statistics.median(v) for c, v in times.items()}
        mcpu = {c: statistics.median(v) for c, v in cpu.items()}
        run = {"n": n, "nb": int(reps["zherk"].nb), "times_s": times, "cpu_times_s": cpu}
        for d, z_ in PAIRS:
            run.update({f"{d}_s": med[d], f"{z_}_s": med[z_],
                        f"{d}_cpu_s": mcpu[d], f"{z_}_cpu_s": mcpu[z_],
                        f"{d}_products": int(reps[d].products),
                        f"{z_}_products": int(reps[z_].products)})
            run["time_ratio" if d == "dsyrk" else f"{z_}_time_ratio"] = med[z_] / med[d]
            run["cpu_time_ratio" if d == "dsyrk" else f"{z_}_cpu_time_ratio"] = (
                mcpu[z_] / mcpu[d])
        runs.append(run)
    print(table(["n", "nb", "pair", "real ms", "complex ms", "ratio", "cpu ms r/c", "cpu ratio",
                 "products r/c"],
                [[r["n"], r["nb"], f"{d}/{z_}", f"{r[d + '_s'] * 1e3:.0f}",
                  f"{r[z_ + '_s'] * 1e3:.0f}", f"{r[z_ + '_s'] / r[d + '_s']:.2f}x",
                  f"{r[d + '_cpu_s'] * 1e3:.0f}/{r[z_ + '_cpu_s'] * 1e3:.0f}",
                  f"{r[z_ + '_cpu_s'] / r[d + '_cpu_s']:.2f}x",
                  f"{r[d + '_products']}/{r[z_ + '_products']}"]
                 for r in runs for d, z_ in PAIRS]))
    old = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    labels = old.get("labels", {})
    labels[args.label] = {"machine": machine(), "moduli": args.moduli, "scaling": args.scaling,
                          "threads": args.threads, "nb": args.nb, "runs": runs}
    print(f"wrote {write_json(RESULTS.name, {'machine': machine(), 'labels': labels}, None)}")


if __name__ == "__main__":
    main()
