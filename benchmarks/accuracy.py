"""Accuracy study, following the papers' protocol.

m = n = 128, k in {1024, 16384}, phi in {0, 0.5, 1, 2, 4}; Ozaki II (fast and accurate
scaling) over its moduli range, Ozaki I (variants bitmask, rn, ef, hybrid) over its slice
range, and native DGEMM, against the exact oracle. Reports err_ab =
max |C - C_exact| / (|A||B|) and the max relative error; writes
benchmarks/results/accuracy.json, accuracy.png (Ozaki II error against moduli, one panel per
phi, native as a horizontal line), accuracy_ozaki1.png (the same for Ozaki I against slices)
and prints the moduli and slices needed for DGEMM-level accuracy. Ozaki I costs s(s+1)/2
integer products, so each of its curves stops once it has flattened out at or below native
(see at_floor; --full runs the whole slice range).

--engines instead compares the product engines (docs/fp4.md, docs/design/engines.md): Ozaki II
on INT8 and on FP4 (E2M1 base-13 limbs), phi up to 32, with automatic precision (the moduli and
engine products each needs) and with each engine's most moduli (bits of accuracy, -log2 err_ab);
writes accuracy_engines.json and accuracy_engines.png. The FP4 products are an exact model
run on the CPU: their cost here is not a speed claim. Hayashi, Mukunoki, Hoshino and Katagiri
(base-13 E2M1 limbs, 2026) report 58.2 bits at phi = 0 falling to 52.3 at phi = 32 (their own
moduli and inputs).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ozblas  # noqa: E402
from _common import RESULTS, machine, table, write_json  # noqa: E402
from ozblas.testing import err_ab, exact_matmul, make_matrix, max_rel  # noqa: E402

PHIS = (0.0, 0.5, 1.0, 2.0, 4.0)
VARIANTS = ("bitmask", "rn", "ef", "hybrid")


def at_floor(errs, native):
    """Ozaki I has reached its floor (the FP64 accumulation's rounding) at or below native:
    the last three slice counts were computed without fallback, the last is <= native, and
    neither of the last two steps halved the error. More slices then change nothing but the
    cost (s(s+1)/2 integer products), so the study stops there unless --full."""
    e = errs[-3:]
    return (len(e) == 3 and None not in e and e[2] <= native
            and (e[2] == 0 or (e[2] >= e[1] / 2 and e[1] >= e[0] / 2)))


def run(ks, phis, moduli, m, seed, progress, slices=(), variants=VARIANTS, full=False):
    rows = []
    steps = len(ks) * len(phis) * (1 + 2 * len(moduli) + len(variants) * len(slices))
    bar = progress(total=steps, desc="accuracy")
    for k in ks:
        for phi in phis:
            a = make_matrix(m, k, phi, seed=seed)
            b = make_matrix(k, m, phi, seed=seed + 1)
            exact = exact_matmul(a, b)
            native = ozblas.matmul(a, b, method="native", executor="cpu")
            rows.append({"k": k, "phi": phi, "method": "native", "scaling": None, "moduli": None,
                         "err_ab": err_ab(native, exact, a, b), "max_rel": max_rel(native, exact),
                         "fallback": None})
            nat = rows[-1]["err_ab"]
            bar.update()
            for scaling in ("fast", "accurate"):
                for n in moduli:
                    c, info = ozblas.matmul(a, b, method="ozaki2", moduli=n, scaling=scaling,
                                            executor="cpu", return_info=True)
                    rows.append({"k": k, "phi": phi, "method": "ozaki2", "scaling": scaling, "moduli": n,
                                 "err_ab": err_ab(c, exact, a, b), "max_rel": max_rel(c, exact),
                                 "fallback": info["fallback"]})
                    bar.update()
            for variant in variants:
                errs = []
                for i, n in enumerate(slices):
                    c, info = ozblas.matmul(a, b, method="ozaki1", slices=n, variant=variant,
                                            executor="cpu", return_info=True)
                    e = err_ab(c, exact, a, b)
                    rows.append({"k": k, "phi": phi, "method": "ozaki1", "variant": variant, "slices": n,
                                 "scaling": None, "moduli": None,
                                 "err_ab": e, "max_rel": max_rel(c, exact),
                                 "fallback": info["fallback"], "int_gemms": info["int_gemms"],
                                 "fp64_passes": info["fp64_passes"]})
                    bar.update()
                    errs.append(e if info["fallback"] is None else None)
                    if not full and at_floor(errs, nat):
                        bar.update(len(slices) - 1 - i)
                        break
    bar.close()
    return rows


def needed(rows):
    """Fewest moduli whose err_ab is no larger than native's, per (k, phi, scaling)."""
    out = []
    for k in sorted({r["k"] for r in rows}):
        for phi in sorted({r["phi"] for r in rows}):
            nat = next(r["err_ab"] for r in rows if r["k"] == k and r["phi"] == phi and r["method"] == "native")
            for scaling in ("fast", "accurate"):
                ok = [r["moduli"] for r in rows if r["k"] == k and r["phi"] == phi and r["scaling"] == scaling
                      and r["fallback"] is None and r["err_ab"] <= nat]
                out.append({"k": k, "phi": phi, "scaling": scaling, "native_err_ab": nat,
                            "moduli_needed": min(ok) if ok else None})
            for variant in VARIANTS:
                sel = [r for r in rows if r["k"] == k and r["phi"] == phi and r["method"] == "ozaki1"
                       and r["variant"] == variant]
                if not sel:
                    continue
                ok = [r["slices"] for r in sel if r["fallback"] is None and r["err_ab"] <= nat]
                out.append({"k": k, "phi": phi, "method": "ozaki1", "variant": variant, "native_err_ab": nat,
                            "slices_needed": min(ok) if ok else None,
                            "max_slices": max(r["slices"] for r in sel)})
    return out


def plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = sorted({r["k"] for r in rows})
    phis = sorted({r["phi"] for r in rows})
    fig, axes = plt.subplots(len(ks), len(phis), figsize=(3.2 * len(phis), 3.0 * len(ks)), squeeze=False,
                             sharey=True)
    for i, k in enumerate(ks):
        for j, phi in enumerate(phis):
            ax = axes[i][j]
            sel = [r for r in rows if r["k"] == k and r["phi"] == phi]
            nat = next(r["err_ab"] for r in sel if r["method"] == "native")
            for scaling, style in (("fast", "o-"), ("accurate", "s--")):
                pts = [(r["moduli"], max(r["err_ab"], 1e-20)) for r in sel if r["scaling"] == scaling]
                if pts:
                    ax.semilogy(*zip(*pts), style, ms=3, label=f"Ozaki II {scaling}")
            ax.axhline(max(nat, 1e-20), color="k", lw=1, label="native DGEMM")
            ax.set_title(f"k={k}, phi={phi}", fontsize=9)
            ax.set_xlabel("moduli")
            if j == 0:
                ax.set_ylabel("err_ab")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def plot_ozaki1(rows, path):
    """err_ab against slices for each Ozaki I variant (fallback points, computed natively,
    are left out), one panel per (k, phi), native as a horizontal line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = sorted({r["k"] for r in rows})
    phis = sorted({r["phi"] for r in rows})
    fig, axes = plt.subplots(len(ks), len(phis), figsize=(3.2 * len(phis), 3.0 * len(ks)), squeeze=False,
                             sharey=True)
    styles = {"bitmask": "o-", "rn": "s--", "ef": "^:", "hybrid": "d-."}
    for i, k in enumerate(ks):
        for j, phi in enumerate(phis):
            ax = axes[i][j]
            sel = [r for r in rows if r["k"] == k and r["phi"] == phi]
            nat = next(r["err_ab"] for r in sel if r["method"] == "native")
            for variant, style in styles.items():
                pts = [(r["slices"], max(r["err_ab"], 1e-20)) for r in sel
                       if r["method"] == "ozaki1" and r["variant"] == variant and r["fallback"] is None]
                if pts:
                    ax.semilogy(*zip(*pts), style, ms=3, label=f"Ozaki I {variant}")
            ax.axhline(max(nat, 1e-20), color="k", lw=1, label="native DGEMM")
            ax.set_title(f"k={k}, phi={phi}", fontsize=9)
            ax.set_xlabel("slices")
            if j == 0:
                ax.set_ylabel("err_ab")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


ENGINE_PHIS = (0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)


def _bits(e):
    return None if e is None else (float("inf") if e == 0 else float(-np.log2(e)))


def engines(phis, k, m, seed):
    """Rows per (phi, engine, moduli "auto" or the engine's maximum)."""
    from ozblas._native import lib

    rows = []
    for phi in phis:
        a = make_matrix(m, k, phi, seed=seed)
        b = make_matrix(k, m, phi, seed=seed + 1)
        exact = exact_matmul(a, b)
        nat = err_ab(a @ b, exact, a, b)
        for g, engine in enumerate(("int8", "fp4")):
            for moduli in ("auto", lib.ozblas_ozaki2_engine_max_moduli(g)):
                c, info = ozblas.matmul(a, b, method="ozaki2", engine=engine, moduli=moduli,
                                        executor="cpu", return_info=True)
                e = err_ab(c, exact, a, b)
                rows.append({"phi": phi, "k": k, "engine": engine, "asked": moduli,
                             "moduli": info["moduli"], "engine_products": info["engine_products"],
                             "fallback": info["fallback"], "err_ab": e, "bits": _bits(e),
                             "native_bits": _bits(nat)})
    return rows


def plot_engines(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for engine, mark in (("int8", "o"), ("fp4", "s")):
        for asked, style in (("auto", "-"), ("max", "--")):
            sel = [r for r in rows if r["engine"] == engine and (r["asked"] == "auto") == (asked == "auto")
                   and r["fallback"] is None]
            pts = [(r["phi"], min(r["bits"], 64)) for r in sel]
            if pts:
                ax.plot(*zip(*pts), style, marker=mark,
                        label=f"{engine} {'auto' if asked == 'auto' else str(sel[0]['moduli']) + ' moduli'}")
    nat = sorted({(r["phi"], r["native_bits"]) for r in rows})
    ax.plot(*zip(*nat), ":", color="k", label="native DGEMM")
    ax.set_xscale("symlog", linthresh=1)
    ax.set_xlabel("phi")
    ax.set_ylabel("bits of accuracy (-log2 err_ab, capped at 64)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main_engines(args):
    rows = engines(args.phi if args.phi != list(PHIS) else list(ENGINE_PHIS), args.k[0], args.m,
                   args.seed)
    print(table(["phi", "engine", "moduli asked", "moduli", "engine products", "bits", "native bits",
                 "fallback"],
                [[r["phi"], r["engine"], r["asked"], r["moduli"], r["engine_products"],
                  "-" if r["bits"] is None else f"{r['bits']:.1f}", f"{r['native_bits']:.1f}",
                  r["fallback"] or ""] for r in rows]))
    write_json("accuracy_engines.json", {"machine": machine(), "m": args.m, "n": args.m, "rows": rows},
               args.out)
    plot_engines(rows, Path(args.out) / "accuracy_engines.png")
    print(f"wrote {args.out}/accuracy_engines.json and accuracy_engines.png")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--k", type=int, nargs="+", default=[1024, 16384])
    p.add_argument("--phi", type=float, nargs="+", default=list(PHIS))
    p.add_argument("--moduli", type=int, nargs="+", default=list(range(8, 21)))
    p.add_argument("--slices", type=int, nargs="*", default=list(range(2, 21)),
                   help="Ozaki I slice counts (none: skip Ozaki I)")
    p.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    p.add_argument("--full", action="store_true",
                   help="run every slice count, also past the point where Ozaki I stops improving")
    p.add_argument("--m", type=int, default=128)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--out", type=Path, default=RESULTS)
    p.add_argument("--engines", action="store_true",
                   help="compare the INT8 and FP4 product engines (Ozaki II) over phi up to 32")
    args = p.parse_args(argv)
    if args.engines:
        return main_engines(args)
    from tqdm import tqdm

    rows = run(args.k, args.phi, args.moduli, args.m, args.seed, tqdm, args.slices, args.variants, args.full)
    need = needed(rows)
    print(table(["k", "phi", "scaling", "native err_ab", "moduli for <= native"],
                [[r["k"], r["phi"], r["scaling"], f"{r['native_err_ab']:.2e}", r["moduli_needed"] or "none <= 20"]
                 for r in need if r.get("method") != "ozaki1"]))
    o1 = [r for r in need if r.get("method") == "ozaki1"]
    if o1:
        keys = sorted({(r["k"], r["phi"]) for r in o1})
        cell = {(r["k"], r["phi"], r["variant"]): r for r in o1}
        vs = [v for v in VARIANTS if any(r["variant"] == v for r in o1)]
        print()
        print(table(["k", "phi", "native err_ab"] + [f"slices {v}" for v in vs],
                    [[k, phi, f"{cell[(k, phi, vs[0])]['native_err_ab']:.2e}"]
                     + [cell[(k, phi, v)]["slices_needed"] or f"none <= {cell[(k, phi, v)]['max_slices']}"
                        for v in vs] for k, phi in keys]))
    write_json("accuracy.json", {"machine": machine(), "m": args.m, "n": args.m, "rows": rows, "needed": need},
               args.out)
    plot(rows, Path(args.out) / "accuracy.png")
    written = "accuracy.json and accuracy.png"
    if o1:
        plot_ozaki1(rows, Path(args.out) / "accuracy_ozaki1.png")
        written = "accuracy.json, accuracy.png and accuracy_ozaki1.png"
    print(f"wrote {args.out}/{written}")


if __name__ == "__main__":
    main()
