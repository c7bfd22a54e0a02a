"""Writes benchmarks/results/RESULTS.md from the JSON beside it: for every result file its date,
commit and machine as the file records them, and a short table of its headline figures.

    python benchmarks/results_md.py            # rewrites benchmarks/results/RESULTS.md
    python benchmarks/results_md.py --check    # exit 1 if RESULTS.md is not what the JSON gives

Every figure is read from the JSON, none is typed here; a file whose layout this script does not
know is still listed (date, commit), without a headline. The PNGs are the benchmark scripts'
own; benchmarks/results/README.md says which script made which file.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
OUT = RESULTS / "RESULTS.md"


def _g(x, digits=3):
    """A number as the tables print it."""
    if x is None:
        return "-"
    if isinstance(x, float):
        if math.isinf(x):
            return "inf"
        return f"{x:.{digits}g}"
    return str(x)


def _table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(_g(c) for c in r) + " |" for r in rows]
    return out


def _accuracy(d):
    """The fewest moduli (Ozaki II) and slices (Ozaki I) reaching native's err_ab."""
    cells = {}
    for r in d.get("needed", []):
        col = r.get("scaling") or r.get("variant")
        cells.setdefault((r["k"], r["phi"], r["native_err_ab"]), {})[col] = (
            r.get("moduli_needed", r.get("slices_needed")))
    cols = ["fast", "accurate", "bitmask", "rn", "ef", "hybrid"]
    rows = [[k, phi, nat] + [v.get(c) for c in cols] for (k, phi, nat), v in sorted(cells.items())]
    return _table(["k", "phi", "native err_ab", "II fast", "II accurate", "I bitmask", "I rn", "I ef",
                   "I hybrid"], rows)


def _engines(d):
    rows = [[r["phi"], r["engine"], r["asked"], r["moduli"], r["engine_products"], r["bits"],
             r["native_bits"], r["fallback"] or ""] for r in d.get("rows", [])]
    return _table(["phi", "engine", "moduli asked", "moduli", "engine products", "bits",
                   "native bits", "fallback"], rows)


def _auto(d):
    rows = [[c["scaling"], c["k"], c["phi"], ", ".join(map(str, c["chosen"])),
             ", ".join(map(str, c["minimum"])), ", ".join(map(str, c["ideal"]))]
            for c in d.get("cells", [])]
    return _table(["scaling", "k", "phi", "moduli chosen", "minimum", "ideal bound's"], rows)


def _speed(d):
    rows = [[r["n"], r["case"], r["median_s"], r["ratio_to_native"]] for r in d.get("results", [])]
    return _table(["n", "case", "median s", "x native"], rows)


def _dd(d):
    rows = []
    for r in d.get("results", []):
        s = r["seconds"]
        rows.append([r["n"], s.get("dgemm"), s.get("matmul_dd"), s.get("numpy_eft_dd"), r.get("moduli")])
    return _table(["n", "host DGEMM s", "matmul_dd s", "NumPy EFT s", "moduli"], rows)


def _overhead(d):
    keys = ["median_ratio", "min_ratio", "activated_median_ratio", "activated_min_ratio"]
    return _table(["products"] + keys, [[d.get("products")] + [d.get(k) for k in keys]])


def _policy(d):
    rows = [[s["candidate"], s["median_abs_error"], s["max_abs_error"], s["rows"]]
            for s in d.get("summary", [])]
    return _table(["candidate", "median |error|", "largest |error|", "sizes"], rows)


def _lapack_speed(d):
    rows = [[r["routine"], r["n"], r["native_s"], r.get("blocked-native_s"),
             r.get("blocked-ozaki2_s"), r.get("emulated_share")] for r in d.get("results", []) if r["n"] >= 2048]
    return _table(["routine", "n", "native s", "blocked, native products s", "blocked, Ozaki II s",
                   "emulated share"], rows)


def _suites(d):
    def counts(c):
        return ", ".join(f"{v} {k}" for k, v in sorted(c.items()))
    rows = [[r["module"], counts(r["native"]), counts(r["emulated"])] for r in d.get("results", [])]
    return _table(["module", "native", "under ozblas"], rows) + [
        "", (f"OZBLAS_LAPACK_NB {d['nb'] or 'unset (the size rule)'}. " if "nb" in d else "")
        + f"Same outcome counts both ways: {d.get('same_counts')}."]


def _gpu(d):
    rows = [[r["kind"], r["dtype"], r["n"], r.get("moduli") or "", r.get("scaling") or "",
             r.get("tflops_device"), r.get("seconds_median")] for r in d.get("runs", [])
            if r.get("n", 0) >= 8192]
    return _table(["kind", "dtype", "n", "moduli/slices", "scaling/variant", "TFLOPS", "median s"], rows)


def _zgemm_speed(d):
    rows = [[label, r["n"], r["dgemm_int_gemms"], r["zgemm_int_gemms"], f"{r['cpu_time_ratio']:.2f}",
             f"{r['time_ratio']:.2f}"] for label, v in d.get("labels", {}).items() for r in v["runs"]]
    return _table(["build", "n", "DGEMM int_gemms", "ZGEMM int_gemms", "ZGEMM/DGEMM CPU time",
                   "ZGEMM/DGEMM wall"], rows)


def _zgemm_auto(d):
    rows = [[label, r["k"], r["phi"], r["parts"], r["moduli"], r.get("complex_products") or "-",
             r["int_gemms"]] for label, v in d.get("labels", {}).items() for r in v["rows"]
            if r["scaling"] == "accurate"]
    return _table(["build", "k", "phi", "parts", "moduli", "products per modulus", "int_gemms"],
                  rows)


def _exact_complex(d):
    rows = [[r["build"], r["n"], r["zcorrect_int_gemms"], r["zcorrect_complex_products"],
             f"{r['zcorrect_cpu_seconds']:.3f}", r["dcorrect_int_gemms"],
             f"{r['dcorrect_cpu_seconds']:.3f}", r["zdd_int_gemms"], f"{r['zdd_cpu_seconds']:.3f}"]
            for r in d.get("results", [])]
    return _table(["build", "n", "complex int_gemms", "products per modulus", "complex CPU s",
                   "real int_gemms", "real CPU s", "complex dd int_gemms", "complex dd CPU s"],
                  rows)


def _remainder(d):
    rows = [[r["routine"], r["n"], f"{r['native_s']:.3f}", f"{r['products_s']:.3f}", f"{r['host_s']:.3f}",
             f"{r['host_over_native']:.2f}", r.get("band", "-")] for r in d.get("results", [])]
    return _table(["routine", "n", "native s", "products s", "host remainder s", "remainder / native",
                   "band"], rows)


def _workloads(d):
    rows = [[r["workload"], r["routine"], f"{r['native_s']:.2f}", f"{r['still_native_s']:.2f}",
             f"{r['converted']:.0%}"] for r in d.get("results", [])]
    return _table(["workload", "routine", "native BLAS/LAPACK s", "still native under the shim s",
                   "converted"], rows)


HEADLINES = [  # (file name prefix, what the file holds, headline)
    ("accuracy_engines", "Ozaki II on the INT8 and FP4 engines (CPU model), bits of accuracy", _engines),
    ("accuracy", "the fewest moduli and slices reaching native DGEMM's err_ab, m = n = 128", _accuracy),
    ("auto_precision", "automatic precision: moduli chosen against the minimum and the ideal bound", _auto),
    ("cpu_speed", "native DGEMM against Ozaki II on the CPU executor", _speed),
    ("dd_speed", "matmul_dd against the host DGEMM and a NumPy double-double GEMM, one thread", _dd),
    ("shim_overhead", "pass-through overhead of the preload shim and of in-process activation", _overhead),
    ("policy_check", "the cost model's predicted times against measured ones, CPU candidates", _policy),
    ("lapack_speed", "the LAPACK layer's blocked drivers against the host LAPACK (n >= 2048)", _lapack_speed),
    ("lapack_remainder", "the host remainder of the LAPACK layer's drivers (native products), one thread", _remainder),
    ("workload_remainder", "native BLAS/LAPACK CPU time of workloads, natively and under the shim (perf)", _workloads),
    ("lapack_suites", "SciPy's and NumPy's test modules natively and under ozblas", _suites),
    ("blas_suites", "SciPy's BLAS and matrix-function test modules natively and under ozblas", _suites),
    ("zgemm_speed", "ZGEMM against DGEMM on Ozaki II, CPU executor, one thread, 14 moduli", _zgemm_speed),
    ("zgemm_auto", "ZGEMM's automatic precision, accurate scaling, 64 x k x 64", _zgemm_auto),
    ("exact_complex", "exact complex products (accuracy correct, matmul_dd), CPU executor, one thread", _exact_complex),
    ("h200_", "a device check on an NVIDIA H200 (products with n >= 8192)", _gpu),
]


def _where(meta: dict) -> str:
    if meta.get("device_name"):
        return f"{meta['device_name']} (driver {meta.get('driver_version', '?')})"
    if meta.get("cores"):
        return f"{meta.get('cpu', 'CPU')}, {meta['cores']} cores"
    return meta.get("host", "-")


def render() -> str:
    lines = ["# Benchmark results", "",
             "Generated by `python benchmarks/results_md.py` from the JSON files of this folder; do "
             "not edit. Each", "section gives the date, commit and machine the file records, then "
             "its headline figures.", "`README.md` here says which script produced which file; the "
             "documentation discusses them.", ""]
    for path in sorted(RESULTS.glob("*.json")):
        d = json.loads(path.read_text())
        meta = d.get("machine") or d.get("meta") or {}
        commit = (meta.get("commit") or meta.get("git_commit") or "-")[:7]
        kind = next(((what, fn) for prefix, what, fn in HEADLINES if path.stem.startswith(prefix)), None)
        lines += [f"## {path.name}", ""]
        if kind:
            lines += [kind[0][0].upper() + kind[0][1:] + ".", ""]
        lines += [f"Date {meta.get('date', '-')}, commit {commit}, {_where(meta)}.", ""]
        if kind:
            lines += kind[1](d) + [""]
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="compare instead of writing")
    args = p.parse_args(argv)
    text = render()
    if args.check:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT} is stale: run python benchmarks/results_md.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
