"""SciPy's and NumPy's own LAPACK-level test modules, natively and under forced emulation.

Each module runs twice in fresh processes: plainly, and under
``ozblas run`` with OZBLAS_METHOD=ozaki2, OZBLAS_MIN_SIZE=0 and a small OZBLAS_LAPACK_NB
(default 4, so that their small matrices reach the blocked drivers). The pytest outcome
counts (passed, failed, skipped, xfailed, ...) of the two runs must be the same; the
script prints both, the shim's summary line, and writes benchmarks/results/lapack_suites.json.
Too slow for the test suite on this machine (minutes), hence a script.

Deselected in both runs: SciPy's test_int_overflow tests (they allocate matrices of 2^31
elements and crash natively here) and tests marked slow. ``-k EXPR`` keeps only the tests
pytest's -k selects (e.g. ``-k qr``: the QR tests of test_decomp and test_linalg, minutes
less); the JSON is then lapack_suites_EXPR.json.
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
        env.update(OZBLAS_METHOD="ozaki2", OZBLAS_MIN_SIZE="0", OZBLAS_LAPACK_NB=str(nb))
        cmd = [sys.executable, "-m", "ozblas", "run", "--summary", "--", *cmd]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, cwd="/")
    summary = next((l for l in p.stderr.splitlines() if l.startswith("ozblas summary")), None)
    return _counts(p.stdout), summary


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--modules", nargs="+", default=MODULES)
    ap.add_argument("--nb", type=int, default=4)
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("-k", dest="keyword", default=None, help="pytest -k expression (default: all)")
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args(argv)
    rows, same = [], True
    for m in a.modules:
        native, _ = _run(m, False, a.nb, a.timeout, a.keyword)
        emulated, summary = _run(m, True, a.nb, a.timeout, a.keyword)
        same &= native == emulated
        rows.append({"module": m, "native": native, "emulated": emulated, "summary": summary})
        print(f"{m}: native {native}, emulated {emulated}{'' if native == emulated else '  DIFFERENT'}")
        print(f"    {summary}", flush=True)
    name = "lapack_suites.json" if not a.keyword else f"lapack_suites_{re.sub(r'[^A-Za-z0-9]+', '_', a.keyword)}.json"
    path = write_json(name, {"machine": machine(), "nb": a.nb, "deselect": DESELECT, "keyword": a.keyword,
                             "same_counts": same, "results": rows}, a.out)
    print(f"wrote {path}; same counts everywhere: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
