"""ZGEMM's automatic precision (moduli="auto") on the CPU executor (issue 34): the moduli and
integer products it takes, per phi, real and imaginary parts of equal or very different
magnitudes, with its err_ab against the exact oracle and native's (k up to --oracle-k).

Run once per build with a label (--label before: the build with Karatsuba only); writes
benchmarks/results/zgemm_auto.json, keeping the other labels' rows.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import ozblas  # noqa: E402
from ozblas.testing import err_ab, exact_matmul, make_matrix  # noqa: E402
from _common import machine, table, write_json  # noqa: E402
from _compare import native_error  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "zgemm_auto.json"
PARTS = {"equal": 0, "im_2^-30": -30}  # the imaginary parts' scale against the real parts'


def operands(m, k, n, phi, im_shift, seed):
    def one(r, c, s):
        return make_matrix(r, c, phi, seed=s) + 1j * np.ldexp(make_matrix(r, c, phi, seed=s + 1),
                                                             im_shift)
    return one(m, k, seed), one(k, n, seed + 2)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--m", type=int, default=64)
    p.add_argument("--k", type=int, nargs="+", default=[1024, 16384])
    p.add_argument("--phi", type=float, nargs="+", default=[0.5, 1.0, 2.0, 4.0, 8.0])
    p.add_argument("--oracle-k", type=int, default=1024, help="largest k checked against the oracle")
    p.add_argument("--label", default="after")
    args = p.parse_args(argv)
    rows = []
    for k in args.k:
        for phi in args.phi:
            for parts, shift in PARTS.items():
                a, b = operands(args.m, k, args.m, phi, shift, seed=int(10 * phi) + k)
                exact = exact_matmul(a, b) if k <= args.oracle_k else None
                for scaling in ("fast", "accurate"):
                    c, info = ozblas.matmul(a, b, method="ozaki2", moduli="auto", scaling=scaling,
                                            executor="cpu", return_info=True)
                    rows.append({"k": k, "phi": phi, "parts": parts, "scaling": scaling,
                                 "moduli": info["moduli"], "fallback": info["fallback"],
                                 "complex_products": info.get("complex_products"),
                                 "int_gemms": info["int_gemms"], "bound": info["bound"],
                                 "err_ab": err_ab(c, exact, a, b) if exact is not None else None,
                                 "native_err_ab": (native_error(a, b, exact)
                                                   if exact is not None else None)})
    print(table(["k", "phi", "parts", "scaling", "moduli", "per modulus", "int_gemms", "err_ab",
                 "native"],
                [[r["k"], r["phi"], r["parts"], r["scaling"], r["moduli"], r["complex_products"],
                  r["int_gemms"], "-" if r["err_ab"] is None else f"{r['err_ab']:.2e}",
                  "-" if r["native_err_ab"] is None else f"{r['native_err_ab']:.2e}"]
                 for r in rows]))
    old = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    labels = old.get("labels", {})
    labels[args.label] = {"machine": machine(), "m": args.m, "rows": rows}
    print(f"wrote {write_json(RESULTS.name, {'machine': machine(), 'labels': labels}, None)}")


if __name__ == "__main__":
    main()
