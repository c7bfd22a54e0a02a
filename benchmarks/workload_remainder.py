"""How much of a workload's native BLAS/LAPACK time the shim takes away (issues 32 and 35's
measure): each workload runs twice under ``perf record`` (cpu-clock), natively and under
``ozblas run`` with emulation forced (``--method ozaki2 --min-size 0``), one thread. Samples are
attributed by shared object and symbol:

- **native BLAS/LAPACK**: the host OpenBLAS's symbols (NumPy's and SciPy's bundled copies),
  except its SGEMM kernels, which are the CPU executor's integer products (``oz_cpu_sgemm_tn``:
  exact for the small integers it multiplies);
- **the layer's host code**: libozblas's functions defined in ``native/src/lapack/`` (bulge
  chasing, the divide-and-conquer's secular-equation steps, copies): FP64 host work like the
  above, counted with it as still native;
- the rest (the products' splitting and accumulation in libozblas, the shim, Python, NumPy,
  libc, the kernel) is not counted on either side; libozblas samples without a symbol name
  (a stripped library) or in a static function whose name is also defined outside
  ``native/src/lapack/`` are reported apart, not counted.

``converted`` is 1 - (still native under the shim) / (native BLAS/LAPACK of the native run).
CPU time, not wall time: the 2-core machine may be shared. Writes
``results/workload_remainder_TAG.json`` and a PNG. Needs ``perf`` (Linux) and its permission
to sample one's own processes (``perf_event_paranoid`` at most 2).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, machine, table, write_json  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
N = 1200

# name: (what the row stands for, the code; `a`, `b` (SPD), `c`, `y` exist)
SETUP = f"""
import numpy as np, scipy.linalg as sl
rng = np.random.default_rng(0)
n = {N}
a = rng.standard_normal((n, n)); s = (a + a.T) / 2
b = a @ a.T / n + np.eye(n)
c = rng.standard_normal((n, n))
x = rng.standard_normal((3 * n, n)); y = rng.standard_normal((3 * n, n // 2))
q = c @ c.T
"""
WORKLOADS = {
    "numpy.linalg.eigh": ("syevd", "np.linalg.eigh(s)"),
    "scipy.linalg.eigh": ("syevr", "sl.eigh(s)"),
    "scipy.linalg.eigh(a, b)": ("sygvd", "sl.eigh(s, b)"),
    "numpy.linalg.svd": ("gesdd", "np.linalg.svd(a)"),
    "scipy.linalg.svd": ("gesdd", "sl.svd(a)"),
    "numpy.linalg.lstsq": ("gelsd", "np.linalg.lstsq(x, y, rcond=None)"),
    "scipy.linalg.lstsq": ("gelsd", "sl.lstsq(x, y)"),
    "numpy.linalg.pinv": ("gesdd", "np.linalg.pinv(a)"),
    "scipy.linalg.polar": ("gesdd", "sl.polar(a)"),
    "PCA (centred svd, thin)": ("gesdd", "np.linalg.svd(x - x.mean(0), full_matrices=False)"),
    "numpy.linalg.eig": ("geev", "np.linalg.eig(a)"),
    "scipy.linalg.schur": ("gees", "sl.schur(a)"),
    "scipy.linalg.sqrtm": ("gees", "sl.sqrtm(q)"),
    "scipy.linalg.logm": ("gees", "sl.logm(q)"),
    "scipy.linalg.solve_sylvester": ("gees+trsyl", "sl.solve_sylvester(a, c, q)"),
    "scipy.linalg.solve_continuous_lyapunov": ("gees+trsyl", "sl.solve_continuous_lyapunov(a, q)"),
}

_SUFFIX = re.compile(r"(\._omp_fn\.\d+|\.part\.\d+|\.constprop\.\d+|\.isra\.\d+|\.cold)+$")
_DEF = re.compile(r"^(?:static\s+)?(?:inline\s+)?[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\([^;]*$")


def _defined(files) -> set[str]:
    names = set()
    for f in files:
        for line in f.read_text().splitlines():
            m = _DEF.match(line)
            if m and not line.startswith(("return", "typedef", "#")):
                names.add(m.group(1))
    return names


def layer_functions() -> tuple[set[str], set[str]]:
    """The names of the functions defined in native/src/lapack/*.c (definitions start at
    column 0 in this code base), and those of them also defined elsewhere in native/src (a
    static function of the same name: their samples cannot be told apart)."""
    src = ROOT / "native" / "src"
    lapack = _defined(sorted((src / "lapack").glob("*.c")))
    other = _defined(f for f in sorted(src.rglob("*.c")) if f.parent.name != "lapack")
    return lapack - other, lapack & other


def classify(dso: str, sym: str, layer: tuple[set[str], set[str]]) -> str | None:
    base = _SUFFIX.sub("", sym)
    if "openblas" in dso.lower():
        return "products" if "sgemm" in base.lower() else "native"
    if "libozblas.so" not in dso:
        return None
    if base.startswith("0x"):
        return "unresolved"  # a stripped library: install.strip = false keeps the names
    return "layer" if base in layer[0] else "ambiguous" if base in layer[1] else None


def profile(code: str, shim: bool, layer: set[str], tmp: Path) -> dict:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", OZBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    data = tmp / "perf.data"
    cmd = [sys.executable, "-c", SETUP + code]
    if shim:
        cmd = [sys.executable, "-m", "ozblas", "run", "--method", "ozaki2", "--min-size", "0", "--"] + cmd
    subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "999", "-o", str(data), "--"] + cmd,
                   env=env, check=True, stdout=subprocess.DEVNULL)
    rep = subprocess.run(["perf", "report", "-i", str(data), "--stdio", "--sort", "dso,sym",
                          "-F", "period,dso,sym", "--field-separator", "\t"],
                         capture_output=True, text=True, check=True).stdout
    sec = {"native": 0.0, "layer": 0.0, "products": 0.0, "unresolved": 0.0, "ambiguous": 0.0}
    for line in rep.splitlines():
        if not line or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) < 3:
            continue
        sym = parts[2].split("] ", 1)[-1].strip()
        cat = classify(parts[1], sym, layer)
        if cat:
            sec[cat] += int(parts[0]) * 1e-9  # cpu-clock periods are nanoseconds
    return sec


def plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 0.35 * len(rows) + 1.5))
    names = [r["workload"] for r in rows]
    y = range(len(rows))
    ax.barh([i + 0.2 for i in y], [r["native_s"] for r in rows], 0.4, label="native run: BLAS/LAPACK")
    ax.barh([i - 0.2 for i in y], [r["still_native_s"] for r in rows], 0.4,
            label="under the shim: still native (OpenBLAS + the layer's host code)")
    ax.set_yticks(list(y), names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("CPU seconds (perf samples), one thread")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="*", help="workload names (substrings) to run")
    ap.add_argument("--tag", default="latest", help="results/workload_remainder_TAG.json")
    args = ap.parse_args(argv)
    if not shutil.which("perf"):
        sys.exit("perf is not installed")
    layer = layer_functions()
    rows = []
    with tempfile.TemporaryDirectory() as td:
        for name, (routine, code) in WORKLOADS.items():
            if args.only and not any(o in name for o in args.only):
                continue
            nat = profile(code, False, layer, Path(td))
            sh = profile(code, True, layer, Path(td))
            still = sh["native"] + sh["layer"]
            rows.append({"workload": name, "routine": routine, "n": N, "native_s": nat["native"],
                         "still_native_s": still, "openblas_s": sh["native"], "layer_host_s": sh["layer"],
                         "products_sgemm_s": sh["products"], "libozblas_unresolved_s": sh["unresolved"],
                         "layer_ambiguous_s": sh["ambiguous"],
                         "converted": 1.0 - still / nat["native"] if nat["native"] > 0 else None})
            r = rows[-1]
            print(f"{name}: native {r['native_s']:.2f} s, still native {still:.2f} s "
                  f"(OpenBLAS {sh['native']:.2f} + layer {sh['layer']:.2f}), converted {r['converted']:.0%}",
                  flush=True)
            if sh["unresolved"] > 0.05 * still:
                print(f"  warning: {sh['unresolved']:.2f} s in libozblas without symbol names (a stripped "
                      "library): the layer's host code is undercounted", flush=True)
    tot_n = sum(r["native_s"] for r in rows)
    tot_s = sum(r["still_native_s"] for r in rows)
    print(table(["workload", "routine", "native s", "still native s", "OpenBLAS", "layer host", "converted"],
                [[r["workload"], r["routine"], f"{r['native_s']:.2f}", f"{r['still_native_s']:.2f}",
                  f"{r['openblas_s']:.2f}", f"{r['layer_host_s']:.2f}", f"{r['converted']:.0%}"] for r in rows]))
    if tot_n:
        print(f"all: native {tot_n:.2f} s, still native {tot_s:.2f} s, converted {1 - tot_s / tot_n:.0%}")
    out = write_json(f"workload_remainder_{args.tag}.json",
                     {"machine": machine(), "threads": 1, "n": N, "method": "ozaki2", "min_size": 0,
                      "note": "perf cpu-clock samples per shared object and symbol; CPU seconds",
                      "results": rows})
    plot(rows, out.with_suffix(".png"))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
