"""SciPy's and NumPy's own LAPACK-level test modules, natively and under forced emulation.

Each module runs twice in fresh processes: plainly, and under
``ozblas run`` with OZBLAS_METHOD=ozaki2, OZBLAS_MIN_SIZE=0 and a small OZBLAS_LAPACK_NB
(default 4, so that their small matrices reach the blocked drivers; ``--nb 0`` leaves it
unset, the layer's own size rule). The pytest outcome
counts (passed, failed, skipped, xfailed, ...) of the two runs must be the same; the
script prints both, the shim's summary line, and writes benchmarks/results/lapack_suites.json.
Too slow for the test suite on this machine (minutes), hence a script.

Deselected in both runs: SciPy's test_int_overflow tests (they allocate matrices of 2^31
elements and crash natively here) and tests marked slow. ``-k EXPR`` keeps only the tests
pytest's -k selects (e.g. ``-k qr``: the QR tests of test_decomp and test_linalg, minutes
less); the JSON is then lapack_suites_EXPR.json.

The shim's summary table is kept too, with the calls that fell back per reason summed over
the processes of a module ("fallbacks"), and drawn next to the JSON (.png); --name writes
the JSON under another name, e.g. for SciPy's BLAS suites (issue 14's fallback share):
    python benchmarks/lapack_suites.py --name blas_suites.json --modules \
        scipy.linalg.tests.test_blas scipy.linalg.tests.test_fblas scipy.linalg.tests.test_matfuncs
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, write_json  # noqa: E402

MODULES = ["scipy.linalg.tests.test_decomp_lu", "scipy.linalg.tests.test_decomp_cholesky",
           "scipy.linalg.tests.test_decomp_ldl", "scipy.linalg.tests.test_basic",
           "scipy.linalg.tests.test_decomp", "scipy.linalg.tests.test_blas",
           "numpy.linalg.tests.test_linalg"]
DESELECT = "not int_overflow and not slow"


def _path(module):
    import importlib.util

    return importlib.util.find_spec(module).origin


def _counts(text):
    last = [l for l in text.splitlines() if re.search(r"\d+ (passed|failed|error)", l)]
    return dict((k, int(v)) for v, k in re.findall(r"(\d+) (\w+)", last[-1])) if last else {"crashed": 1}


def _run(module, emulated, nb, timeout, keyword=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_") and k != "LD_PRELOAD"}
    select = f"({DESELECT}) and ({keyword})" if keyword else DESELECT
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", select,
           "-m", "not slow", _path(module)]
    if emulated:
        env.update(OZBLAS_METHOD="ozaki2", OZBLAS_MIN_SIZE="0")
        if nb:
            env["OZBLAS_LAPACK_NB"] = str(nb)
        cmd = [sys.executable, "-m", "ozblas", "run", "--summary", "--", *cmd]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, cwd="/")
    lines = p.stderr.splitlines()
    summary = next((l for l in lines if l.startswith("ozblas summary")), None)
    return _counts(p.stdout), summary, _table(lines)


def _table(lines):
    """Calls per (routine, route, detail) of every summary table in the output, summed."""
    out, inside = {}, False
    for line in lines:
        if line.startswith("ozblas summary"):
            inside = True
            continue
        cells = line.split(None, 5)
        if not inside or not line.startswith("  ") or len(cells) < 5 or cells[0] == "routine":
            inside = inside and line.startswith("  ")
            continue
        key = " ".join([cells[0], cells[1]] + cells[5:])
        out[key] = out.get(key, 0) + int(cells[2])
    return out


def _fallbacks(table):
    """Calls that fell back, per reason, and all calls the shim counted."""
    fb, total = {}, 0
    for key, calls in table.items():
        total += calls
        parts = key.split(" ", 2)
        if parts[1] == "fallback":
            reason = parts[2] if len(parts) > 2 else "?"
            fb[reason] = fb.get(reason, 0) + calls
    return fb, total


def plot(rows, path):
    """Routed calls per module and route (emulated, fell back per reason, real BLAS, quick)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    routes = {}
    for r in rows:
        for key, calls in r["table"].items():
            parts = key.split(" ", 2)
            label = parts[1] if parts[1] != "fallback" else "fallback: " + (parts[2] if len(parts) > 2 else "?")
            routes.setdefault(label, {}).setdefault(r["module"], 0)
            routes[label][r["module"]] += calls
    mods = [r["module"].rsplit(".", 1)[-1] for r in rows]
    fig, ax = plt.subplots(figsize=(7, 3.5))
    h = 0.8 / max(1, len(routes))
    for i, (label, per) in enumerate(sorted(routes.items())):
        vals = [per.get(r["module"], 0) for r in rows]
        ys = [y + i * h for y in range(len(rows))]
        ax.barh(ys, vals, height=h, label=label)
        for y, v in zip(ys, vals):
            if v:
                ax.text(v, y, f" {v}", va="center", fontsize=7)
    ax.set_yticks([y + 0.4 - h / 2 for y in range(len(rows))], mods)
    ax.set_xscale("log")
    ax.set_xlabel("BLAS calls under forced emulation, per route")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--modules", nargs="+", default=MODULES)
    ap.add_argument("--nb", type=int, default=4, help="OZBLAS_LAPACK_NB (0: unset, the layer's size rule)")
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("-k", dest="keyword", default=None, help="pytest -k expression (default: all)")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--name", default=None, help="the JSON file's name (default: from -k)")
    a = ap.parse_args(argv)
    rows, same = [], True
    for m in a.modules:
        native, _, _ = _run(m, False, a.nb, a.timeout, a.keyword)
        emulated, summary, tab = _run(m, True, a.nb, a.timeout, a.keyword)
        same &= native == emulated
        fb, total = _fallbacks(tab)
        rows.append({"module": m, "native": native, "emulated": emulated, "summary": summary,
                     "table": tab, "calls": total, "fallbacks": fb})
        print(f"{m}: native {native}, emulated {emulated}{'' if native == emulated else '  DIFFERENT'}")
        print(f"    {summary}\n    fallbacks {fb} of {total} calls", flush=True)
    name = a.name or ("lapack_suites.json" if not a.keyword
                      else f"lapack_suites_{re.sub(r'[^A-Za-z0-9]+', '_', a.keyword)}.json")
    path = write_json(name, {"machine": machine(), "nb": a.nb, "deselect": DESELECT, "keyword": a.keyword,
                             "same_counts": same, "results": rows}, a.out)
    plot(rows, path.with_suffix(".png"))
    print(f"wrote {path} and its .png; same counts everywhere: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
