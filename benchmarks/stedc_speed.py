"""The tridiagonal divide and conquer (ozblas.lapack.stedc, lapack_stedc.c) against the host
dstedc, and syevd's total, on one thread.

For each n: a random symmetric matrix (uniform entries), its tridiagonal form by the host
dsytrd (what syevd's tridiagonal solver sees: a matrix with little early deflation), then
- host: the host LAPACK's dstedc with eigenvectors (SciPy's dstevd, which is dstedc for a
  matrix in range), the solve syevd called before the divide and conquer was ozblas's;
- stedc-native, stedc-ozaki2: ozblas.lapack.stedc with native or Ozaki II products: time, the
  merge products (count, flops, emulated flops), the host flops (the leaves' dstedc and the
  rank-one eigenvectors), and the residual and orthogonality (n u units) beside the host's;
- syevd-native, syevd-ozaki2: the whole driver (ozblas.lapack.syevd) and its products.
``--driver-only`` times syevd alone (for a build without stedc: the "before" rows, run from a
checkout of the previous commit with ``--label before``). Seconds are the process's CPU time
on one thread (the machine is shared and oversubscribed: wall time would count the other jobs);
one run per case (single measurements). Writes (merges into) benchmarks/results/stedc_speed.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import scipy.linalg.lapack as sla

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, commit, machine, table, write_json  # noqa: E402
from ozblas import lapack as L  # noqa: E402

U = 2.0**-53


def _errors(d, e, w, z):
    n = d.shape[0]
    t = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
    nt = np.linalg.norm(t, 2)
    return (float(np.linalg.norm(t @ z - z * w) / (nt * n * U)),
            float(np.linalg.norm(z.T @ z - np.eye(n)) / (n * U)))


def _timed(f):
    """The process's CPU seconds of f() (one thread: on a shared, oversubscribed machine its
    wall time measures the other jobs too), and its result."""
    t = time.process_time()
    out = f()
    return time.process_time() - t, out


def _report(prefix, row):
    rep = L.last_report()
    for k in ("products", "emulated", "product_flops", "emulated_flops", "host_flops", "nb"):
        row[f"{prefix}_{k}"] = rep[k]
    row[f"{prefix}_moduli"] = rep["moduli"]


def _dgemm_rate(n):
    """The host DGEMM's rate (FLOP/s) on n x n operands, one thread: the products' time at
    it bounds the host remainder of a native-products run (the issue's measure)."""
    rng = np.random.default_rng(0)
    x, y = rng.uniform(-1, 1, (n, n)), rng.uniform(-1, 1, (n, n))
    t, _ = _timed(lambda: x @ y)
    return 2.0 * n**3 / t


def run(n, label, driver_only, methods):
    rng = np.random.default_rng(n)
    a = rng.uniform(-1, 1, (n, n))
    a = np.asfortranarray(a + a.T)
    row = {"n": n, "label": label, "commit": commit()}
    if not driver_only:
        row["dgemm_flops_per_s"] = _dgemm_rate(n)
        c, d, e, tau, info = sla.dsytrd(a)
        assert info == 0
        row["host_s"], (wh, zh, info) = _timed(lambda: sla.dstevd(d, e))
        assert info == 0
        row["host_residual"], row["host_orthogonality"] = _errors(d, e, wh, zh)
        for method in ("native", "ozaki2"):
            kw = dict(method=method, threads=1, executor="cpu")
            row[f"stedc-{method}_s"], (w, z, info) = _timed(lambda: L.stedc(d, e, **kw))
            assert info == 0
            _report(f"stedc-{method}", row)
            row[f"stedc-{method}_residual"], row[f"stedc-{method}_orthogonality"] = \
                _errors(d, e, w, z)
        # the host's share of stedc-native: its time less its products' at the DGEMM rate
        row["stedc-native_host_remainder_s"] = \
            row["stedc-native_s"] - row["stedc-native_product_flops"] / row["dgemm_flops_per_s"]
    for method in methods:
        kw = dict(method=method, threads=1, executor="cpu")
        row[f"syevd-{method}_s"], (w, v, info) = _timed(lambda: L.syevd(a, **kw))
        assert info == 0
        _report(f"syevd-{method}", row)
    return row


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--sizes", type=int, nargs="*", default=[1024, 2048])
    p.add_argument("--label", default="after")
    p.add_argument("--driver-only", action="store_true")
    p.add_argument("--driver-methods", nargs="*", default=["native", "ozaki2"],
                   help="the methods syevd is timed with (ozaki2 takes minutes at n = 2048 here)")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        rows = [run(n, args.label, args.driver_only, args.driver_methods) for n in args.sizes]

    def g(r, k, f="{:.3f}"):
        return f.format(r[k]) if r.get(k) is not None else "-"

    print(table(["label", "n", "host dstedc s", "stedc native s", "its host remainder s", "stedc ozaki2 s",
                 "merge products",
                 "product GFLOP", "syevd native s", "syevd ozaki2 s"],
                [[r["label"], r["n"], g(r, "host_s"), g(r, "stedc-native_s"),
                  g(r, "stedc-native_host_remainder_s"), g(r, "stedc-ozaki2_s"),
                  g(r, "stedc-ozaki2_products", "{}"),
                  (f"{r['stedc-ozaki2_product_flops'] / 1e9:.2f}" if "stedc-ozaki2_product_flops" in r
                   else "-"), g(r, "syevd-native_s"), g(r, "syevd-ozaki2_s")] for r in rows]))
    old = (args.out or RESULTS) / "stedc_speed.json"
    new = {(r["label"], r["n"]) for r in rows}
    if old.exists():
        rows = [r for r in json.loads(old.read_text())["results"] if (r["label"], r["n"]) not in new] + rows
    path = write_json("stedc_speed.json", {"machine": machine(), "threads": 1, "results": rows}, args.out)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
