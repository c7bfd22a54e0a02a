"""Automatic precision (moduli="auto") against the exact oracle.

The accuracy study's protocol (m = n = 128, k in {1024, 16384}, phi in {0, 0.5, 1, 2, 4, 8},
several seeds): for each input the moduli count Ozaki II chose (fast and accurate scaling),
the bound it reported, its measured err_ab and native DGEMM's, whether it fell back, and the
empirical minimum: the fewest moduli whose err_ab reaches native's (--no-minimum skips it).
Writes benchmarks/results/auto_precision.json and auto_precision.png (bound and measured
error against phi, native's error for comparison) and prints the table and, per (k, phi),
the count chosen against the minimum.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ozblas  # noqa: E402
from _common import RESULTS, machine, table, write_json  # noqa: E402
from ozblas._constants import MAX_MODULI  # noqa: E402
from ozblas.testing import err_ab, exact_matmul, ideal_moduli, make_matrix  # noqa: E402

PHIS = (0.0, 0.5, 1.0, 2.0, 4.0, 8.0)


def empirical_minimum(a, b, exact, native, scaling, start=12):
    """The fewest moduli from start whose err_ab is at most native's, and the fewest whose
    err_ab is at most 2u (what a rule that guarantees max(native's, 2u) without knowing
    native's error could take at best); None: not within the maximum. 12 moduli are far
    from native here (err_ab about 1e-11 at phi = 0)."""
    found = [None, None]
    for n in range(start, MAX_MODULI + 1):
        c, info = ozblas.matmul(a, b, method="ozaki2", moduli=n, scaling=scaling, executor="cpu",
                                return_info=True)
        if info["fallback"] is not None:
            continue
        e = err_ab(c, exact, a, b)
        for t, tol in enumerate((native, 2.0**-52)):
            if found[t] is None and e <= tol:
                found[t] = n
        if None not in found:
            break
    return found


def run(ks, phis, m, seeds, progress, minimum=True):
    rows = []
    bar = progress(total=len(ks) * len(phis) * len(seeds), desc="auto precision")
    for k in ks:
        for phi in phis:
            for seed in seeds:
                a = make_matrix(m, k, phi, seed=seed)
                b = make_matrix(k, m, phi, seed=seed + 1)
                exact = exact_matmul(a, b)
                native = err_ab(ozblas.matmul(a, b, method="native", executor="cpu"), exact, a, b)
                for scaling in ("fast", "accurate"):
                    mins = (empirical_minimum(a, b, exact, native, scaling) if minimum
                            else (None, None))
                    c, info = ozblas.matmul(a, b, method="ozaki2", moduli="auto", scaling=scaling,
                                            executor="cpu", return_info=True)
                    rows.append({"k": k, "phi": phi, "seed": seed, "scaling": scaling,
                                 "moduli": info["moduli"] if info["fallback"] is None else None,
                                 "fallback": info["fallback"], "bound": info["bound"],
                                 "err_ab": err_ab(c, exact, a, b), "native_err_ab": native,
                                 "int_gemms": info["int_gemms"], "seconds": info["seconds"],
                                 "minimum": mins[0], "fewest_2u": mins[1],
                                 "ideal": ideal_moduli(a, b, scaling) if minimum else None})
                bar.update()
    bar.close()
    return rows


def plot(rows, m, path):
    """Per k: err_ab and the reported bound against phi (native's error for comparison), and
    the moduli chosen against the empirical minimum and the ideal bound's count."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = sorted({r["k"] for r in rows})
    fig, axes = plt.subplots(2, len(ks), figsize=(5.5 * len(ks), 7.5), squeeze=False)
    for col, k in enumerate(ks):
        ax, cx = axes[0][col], axes[1][col]
        sel = [r for r in rows if r["k"] == k and r["scaling"] == "accurate"]
        emu = [r for r in sel if r["fallback"] is None]
        ax.scatter([r["phi"] for r in sel], [r["native_err_ab"] for r in sel], marker="_", s=200,
                   color="k", label="native err_ab")
        ax.scatter([r["phi"] for r in emu], [max(r["err_ab"], 1e-20) for r in emu], marker="o",
                   label="auto err_ab (0 drawn at 1e-20)")
        ax.scatter([r["phi"] for r in emu], [r["bound"] for r in emu], marker="^", label="reported bound")
        for r in sel:
            ax.annotate(str(r["moduli"] or "native"), (r["phi"], r["native_err_ab"]), fontsize=7,
                        xytext=(4, 4), textcoords="offset points")
        ax.set_yscale("log")
        ax.set_xlabel("phi")
        ax.set_ylabel("err_ab")
        ax.set_title(f"accurate scaling, m = n = {m}, k = {k}")
        ax.legend(fontsize=7)
        for key, mk, lab in (("moduli", "o", "chosen"), ("minimum", "_", "empirical minimum"),
                             ("ideal", "x", "ideal rigorous bound")):
            pts = [(r["phi"], r[key]) for r in sel if r.get(key) is not None]
            if pts:
                cx.scatter(*zip(*pts), marker=mk, s=80 if mk == "_" else 30, label=lab)
        cx.set_xlabel("phi")
        cx.set_ylabel("moduli")
        cx.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def summary(rows):
    """Per (scaling, k, phi): the counts chosen and the empirical minima over the seeds,
    chosen - minimum per seed (a fallback or no minimum within the maximum counts as None)
    and the INT8 products per call (the moduli's, the bound's and the lower-bound levels')."""
    cells = []
    for sc in ("accurate", "fast"):
        for k in sorted({r["k"] for r in rows}):
            for phi in sorted({r["phi"] for r in rows}):
                sel = [r for r in rows if (r["scaling"], r["k"], r["phi"]) == (sc, k, phi)]
                if not sel:
                    continue
                cells.append({"scaling": sc, "k": k, "phi": phi,
                              "chosen": [r["moduli"] for r in sel],
                              "minimum": [r["minimum"] for r in sel],
                              "int_gemms": [r["int_gemms"] for r in sel],
                              "ideal": [r["ideal"] for r in sel],
                              "fewest_2u": [r["fewest_2u"] for r in sel],
                              "excess": [None if r["moduli"] is None or r["minimum"] is None
                                         else r["moduli"] - r["minimum"] for r in sel]})
    return cells


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--k", type=int, nargs="+", default=[1024, 16384])
    p.add_argument("--phi", type=float, nargs="+", default=list(PHIS))
    p.add_argument("--m", type=int, default=128)
    p.add_argument("--seeds", type=int, nargs="+", default=[7, 8, 9])
    p.add_argument("--out", type=Path, default=RESULTS)
    p.add_argument("--no-minimum", action="store_true", help="skip the empirical minimum scan")
    p.add_argument("--name", default="auto_precision",
                   help="the JSON and PNG files' name, without extension")
    args = p.parse_args(argv)
    from tqdm import tqdm

    rows = run(args.k, args.phi, args.m, args.seeds, tqdm, not args.no_minimum)
    print(table(["k", "phi", "seed", "scaling", "moduli", "minimum", "bound", "err_ab",
                 "native err_ab"],
                [[r["k"], r["phi"], r["seed"], r["scaling"], r["moduli"] or "native (fallback)",
                  r["minimum"], f"{r['bound']:.2e}", f"{r['err_ab']:.2e}",
                  f"{r['native_err_ab']:.2e}"] for r in rows]))
    cells = summary(rows)
    if not args.no_minimum:
        print(table(["scaling", "k", "phi", "chosen", "minimum", "chosen - minimum",
                     "INT8 products", "ideal bound's count", "fewest within 2u"],
                    [[c["scaling"], c["k"], c["phi"], c["chosen"], c["minimum"], c["excess"],
                      c["int_gemms"], c["ideal"], c["fewest_2u"]] for c in cells]))
        for sc in ("accurate", "fast"):
            sel = [c for c in cells if c["scaling"] == sc]
            eq = sum(all(e == 0 for e in c["excess"]) for c in sel)
            known = [e for c in sel for e in c["excess"] if e is not None]
            ideal = sum(all(i == mn for i, mn in zip(c["ideal"], c["minimum"])) for c in sel)
            f2u = sum(all(f == mn for f, mn in zip(c["fewest_2u"], c["minimum"])) for c in sel)
            at_ideal = sum(all(ch == i for ch, i in zip(c["chosen"], c["ideal"])) for c in sel)
            print(f"{sc}: chosen == minimum for every seed in {eq} of {len(sel)} cells "
                  f"(the ideal bound's count in {ideal}, the fewest within 2u in {f2u}); "
                  f"chosen == the ideal bound's count in {at_ideal}; "
                  f"largest excess {max(known, default=None)}; "
                  f"{sum(e is None for c in sel for e in c['excess'])} inputs without both")
    write_json(f"{args.name}.json", {"machine": machine(), "m": args.m, "rows": rows,
                                       "cells": cells}, args.out)
    plot(rows, args.m, Path(args.out) / f"{args.name}.png")
    print(f"wrote {args.out}/{args.name}.json and {args.name}.png")


if __name__ == "__main__":
    main()
