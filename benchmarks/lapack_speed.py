"""The LAPACK layer on the CPU executor: host LAPACK against ozblas's blocked drivers.

getrf, potrf (upper), getrs and trsm (left, lower, no transpose) with n/2 right-hand sides,
sytrf (lower, symmetric indefinite) d and z, geqrf (square, d only), and the eigensolvers
syevd and syevr (z: heevd, heevr; all eigenvalues and eigenvectors, upper triangle; their
nominal count is sytrd's 4/3 n^3 and ormtr's 2 n^3, the driver's own, products and host
routines, is product_flops + host_flops, the tridiagonal solver excluded), one thread (the host
LAPACK limited by threadpoolctl, the CPU executor by threads=1). Cases: ``native`` (the host LAPACK routine, SciPy's wrapper), ``blocked-native``
(the blocked driver with every product native: the driver's own cost) and ``blocked-ozaki2``
(the blocked driver with Ozaki II products, automatic precision). For each: time, GFLOPS on
LAPACK's nominal flop count, and the share of those flops that ran in emulated products
(emulated_flops / flops of ozblas.lapack.last_report(); the products of a SYRK/HERK update
include whole diagonal blocks, so the share can exceed the nominal count slightly).
Writes benchmarks/results/lapack_speed.json and .png. One run per case (the machine is
shared; the figures are single measurements). ``--routines`` runs some of them only, their
rows replacing those of the same routine and n in an existing JSON (the others are kept).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import scipy.linalg.blas as sb
import scipy.linalg.lapack as sla

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, machine, table, write_json  # noqa: E402
from ozblas import lapack as L  # noqa: E402


def _inputs(n, dt, rng):
    def m(r, c):
        x = (rng.random((r, c)) - 0.5) * np.exp(0.5 * rng.standard_normal((r, c)))
        if dt == "z":
            x = x + 1j * (rng.random((r, c)) - 0.5) * np.exp(0.5 * rng.standard_normal((r, c)))
        return np.asfortranarray(x)

    a = m(n, n) + n ** 0.5 * np.eye(n)
    # SPD without a product: diagonally dominant Hermitian
    s = np.asfortranarray((a + a.conj().T) / 2 + n * np.eye(n))
    return a, s, m(n, n // 2)


def _cases(dt, a, s, b):
    nat = lambda name: getattr(sla, dt + name)
    lu, piv, _ = nat("getrf")(a)
    t = np.asfortranarray(np.tril(lu, -1) + np.eye(a.shape[0]))
    trsm = getattr(sb, dt + "trsm")
    cases = {
        "getrf": (lambda: nat("getrf")(a), lambda kw: L.getrf(a, **kw)),
        "potrf": (lambda: nat("potrf")(s), lambda kw: L.potrf(s, **kw)),
        "getrs": (lambda: nat("getrs")(lu, piv, b), lambda kw: L.getrs(lu, piv, b, **kw)),
        "trsm": (lambda: trsm(1.0, t, b, lower=1), lambda kw: L.trsm(1.0, t, b, lower=1, **kw)),
    }
    # symmetric indefinite: a's random part, symmetrized (a has n^0.5 on its diagonal)
    y = np.asfortranarray(a + a.T - 2 * a.shape[0] ** 0.5 * np.eye(a.shape[0]))
    ly = int(nat("sytrf_lwork")(y.shape[0], lower=1)[0].real)  # optimal, as for geqrf below
    cases["sytrf"] = (lambda: nat("sytrf")(y, lower=1, lwork=ly), lambda kw: L.sytrf(y, lower=1, **kw))
    # the eigensolvers with eigenvectors, native with LAPACK's optimal workspace (syevr's
    # default lwork 26n is below it: the unblocked sytrd)
    h = np.asfortranarray((a + a.conj().T) / 2)
    he = "he" if dt == "z" else "sy"
    q = getattr(sla, dt + he + "evr_lwork")(a.shape[0])
    evr = {"lwork": int(q[0].real)} if dt == "d" else {"lwork": int(q[0].real), "lrwork": int(q[1])}
    cases["syevd"] = (lambda: getattr(sla, dt + he + "evd")(h), lambda kw: L.syevd(h, **kw))
    cases["syevr"] = (lambda: getattr(sla, dt + he + "evr")(h, **evr), lambda kw: L.syevr(h, **kw))
    if dt == "d":
        # native with LAPACK's optimal workspace (SciPy's default lwork = 3n is the unblocked code)
        lw = int(nat("geqrf")(a, lwork=-1)[2][0])
        cases["geqrf"] = (lambda: nat("geqrf")(a, lwork=lw), lambda kw: L.geqrf(a, **kw))
    return cases


def _flops(routine, dt, n, nrhs):
    f = {"getrf": 2 / 3 * n**3, "potrf": n**3 / 3, "getrs": 2 * n * n * nrhs, "trsm": n * n * nrhs,
         "geqrf": 4 / 3 * n**3, "sytrf": n**3 / 3,
         "syevd": (4 / 3 + 2) * n**3, "syevr": (4 / 3 + 2) * n**3}  # sytrd + ormtr
    return f[routine] * (4 if dt == "z" else 1)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    # an empty list skips that element type (--zsizes alone: d only)
    p.add_argument("--sizes", type=int, nargs="*", default=[512, 1024, 2048])
    p.add_argument("--zsizes", type=int, nargs="*", default=[512, 1024])
    p.add_argument("--nb", type=int, default=None, help="block size (default: the size rule)")
    p.add_argument("--routines", nargs="+", default=None,
                   choices=["getrf", "potrf", "getrs", "trsm", "geqrf", "sytrf", "syevd", "syevr"],
                   help="default: all")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    from threadpoolctl import threadpool_limits

    results = []
    with threadpool_limits(1):
        for dt, sizes in (("d", args.sizes), ("z", args.zsizes)):
            for n in sizes:
                rng = np.random.default_rng(n)
                a, s, b = _inputs(n, dt, rng)
                for routine, (native, blocked) in _cases(dt, a, s, b).items():
                    if args.routines and routine not in args.routines:
                        continue
                    flops = _flops(routine, dt, n, b.shape[1])
                    z_he = dt == "z" and routine.startswith("syev")
                    name = dt + ("he" + routine[2:] if z_he else routine)
                    row = {"routine": name, "n": n, "nrhs": b.shape[1], "flops": flops}
                    t = time.perf_counter()
                    native()
                    row["native_s"] = time.perf_counter() - t
                    for case, method in (("blocked-native", "native"), ("blocked-ozaki2", "ozaki2")):
                        kw = dict(method=method, threads=1, executor="cpu", nb=args.nb)
                        t = time.perf_counter()
                        blocked(kw)
                        row[case + "_s"] = time.perf_counter() - t
                        rep = L.last_report()
                        row[case + "_nb"] = rep["nb"]
                        if method == "ozaki2":
                            row["emulated_share"] = rep["emulated_flops"] / rep["flops"]
                            row["products"] = rep["products"]
                            row["emulated_products"] = rep["emulated"]
                            row["moduli"] = rep["moduli"]
                            row["moduli_histogram"] = rep["moduli_histogram"]
                            # the driver's own flops: its products and its host routines'
                            # (panels, blocks; eigensolvers: the bulge chasing, not the
                            # tridiagonal solver), against LAPACK's nominal count
                            row["product_flops"] = rep["product_flops"]
                            row["host_flops"] = rep["host_flops"]
                            row["driver_flops"] = rep["product_flops"] + rep["host_flops"]
                            drv = row["driver_flops"]
                            row["emulated_share_of_driver"] = rep["emulated_flops"] / drv if drv else 0.0
                    results.append(row)
                    print(f"{name} n={n}: native {row['native_s']:.3f} s, blocked-native "
                          f"{row['blocked-native_s']:.3f} s, blocked-ozaki2 {row['blocked-ozaki2_s']:.3f} s, "
                          f"emulated {100 * row['emulated_share']:.1f}% of nominal, "
                          f"{100 * row['emulated_share_of_driver']:.1f}% of the driver's "
                          f"{row['driver_flops'] / 1e9:.3g} GFLOP, "
                          f"moduli {row['moduli_histogram']}",
                          flush=True)
    rows = [[r["routine"], r["n"], f"{r['native_s']:.3f}", f"{r['blocked-native_s']:.3f}",
             f"{r['blocked-ozaki2_s']:.3f}", f"{r['flops'] / r['native_s'] * 1e-9:.2f}",
             f"{r['flops'] / r['blocked-ozaki2_s'] * 1e-9:.2f}", f"{100 * r['emulated_share']:.1f}%",
             (f"{100 * r['emulated_share_of_driver']:.1f}%"
              if "emulated_share_of_driver" in r else "-"),
             (f"{r['driver_flops'] / r['flops']:.2f}" if "driver_flops" in r else "-"),
             f"{r['moduli'][0]}-{r['moduli'][1]}" if r.get("moduli") else "-",
             r["blocked-ozaki2_nb"]] for r in results]
    print(table(["routine", "n", "native s", "blocked-native s", "blocked-ozaki2 s", "native GFLOPS",
                 "ozaki2 GFLOPS", "emulated (nominal)", "emulated (driver)", "driver/nominal flops",
                 "moduli", "nb"], rows))
    if args.routines:  # the other routines' rows of an earlier run stay
        old = (args.out or RESULTS) / "lapack_speed.json"
        new = {(r["routine"], r["n"]) for r in results}
        if old.exists():
            kept = [r for r in json.loads(old.read_text())["results"] if (r["routine"], r["n"]) not in new]
            results = kept + results
    path = write_json("lapack_speed.json", {"machine": machine(), "threads": 1, "results": results},
                      args.out)
    print(f"wrote {path}")
    _plot(results, (args.out or RESULTS) / "lapack_speed.png")


def _plot(results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for r in sorted({x["routine"] for x in results}):
        xs = [x for x in results if x["routine"] == r]
        n = [x["n"] for x in xs]
        ax1.plot(n, [x["blocked-ozaki2_s"] / x["native_s"] for x in xs], "o-", label=r)
        ax2.plot(n, [100 * x["emulated_share"] for x in xs], "o-", label=r)
    ax1.set(xscale="log", yscale="log", xlabel="n", ylabel="time / native LAPACK",
            title="blocked driver, Ozaki II products (CPU, 1 thread)")
    ax2.set(xscale="log", xlabel="n", ylabel="% of nominal flops emulated", title="flops through emulated products")
    ax2.axhline(85, color="gray", ls=":")
    for ax in (ax1, ax2):
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
