"""The bidiagonal SVD with vectors: the host dbdsdc against ozblas_dbdsdc (divide and conquer,
the merges' vector updates as ozblas products: native_src/lapack/lapack_bdsdc.c), and gesdd
(square, jobz S) around it.

Input: the upper bidiagonal of a uniform random n x n matrix (SciPy's dgebrd), which deflates
as little as a dense problem's does. Cases, one thread (run with OZBLAS_NUM_THREADS=1
OPENBLAS_NUM_THREADS=1; threadpoolctl limits SciPy's LAPACK too): ``host dbdsdc`` (SciPy's
LAPACK through scipy.linalg.cython_lapack), ``ozblas_dbdsdc`` with native products and with
Ozaki II products (its report: products, product flops, host flops as the layer's model), and
``gesdd`` through ozblas.lapack with native and Ozaki II products (Ozaki II at
``--ozaki2-sizes`` only: emulation on the CPU is slow). Run it under the build
before the change (``--label before``: gesdd only, it has no ozblas_dbdsdc) and after
(``--label after``): rows of a label and size replace those in the JSON. One run per case
(shared machine: single measurements).

    OZBLAS_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bdsdc_speed.py --label after
"""

from __future__ import annotations

import argparse
import ctypes
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy.linalg import cython_lapack
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, commit, machine, table, write_json  # noqa: E402
from ozblas import lapack as L  # noqa: E402
from ozblas._native import ffi, lib  # noqa: E402
from ozblas.api import _context, _options  # noqa: E402

DP, IP, CP = ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_int), ctypes.c_char_p


def _scipy_fn(name, *args):
    cap = cython_lapack.__pyx_capi__[name]
    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return ctypes.CFUNCTYPE(None, *args)(api.PyCapsule_GetPointer(cap, api.PyCapsule_GetName(cap)))


def _p(a):
    return a.ctypes.data_as(DP)


def bidiagonal(n, rng):
    """(d, e) of dgebrd on a uniform random n x n matrix."""
    f = _scipy_fn("dgebrd", IP, IP, DP, IP, DP, DP, DP, DP, DP, IP, IP)
    a = np.asfortranarray(rng.uniform(-1, 1, (n, n)))
    d, e, tq, tp = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)
    lw = 64 * n
    w, nn, lwork, info = np.zeros(lw), ctypes.c_int(n), ctypes.c_int(lw), ctypes.c_int(0)
    f(ctypes.byref(nn), ctypes.byref(nn), _p(a), ctypes.byref(nn), _p(d), _p(e), _p(tq), _p(tp),
      _p(w), ctypes.byref(lwork), ctypes.byref(info))
    assert info.value == 0
    return d, e[: n - 1].copy()


def host_dbdsdc(d, e):
    f = _scipy_fn("dbdsdc", CP, CP, IP, DP, DP, DP, IP, DP, IP, DP, IP, DP, IP, IP)
    n = len(d)
    d, e = d.copy(), np.append(e, 0.0)
    u, vt = np.zeros((n, n), order="F"), np.zeros((n, n), order="F")
    w, iw = np.zeros(3 * n * n + 4 * n + 1), np.zeros(8 * n + 1, dtype=np.int32)
    nn, info = ctypes.c_int(n), ctypes.c_int(0)
    t = time.perf_counter()
    f(b"U", b"I", ctypes.byref(nn), _p(d), _p(e), _p(u), ctypes.byref(nn), _p(vt), ctypes.byref(nn),
      None, None, _p(w), iw.ctypes.data_as(IP), ctypes.byref(info))
    t = time.perf_counter() - t
    assert info.value == 0
    return t, d, u, vt


def oz_dbdsdc(d, e, method):
    n = len(d)
    d, e = d.copy(), np.append(e, 0.0)
    u, vt = np.zeros((n, n), order="F"), np.zeros((n, n), order="F")
    info, rep = ffi.new("int64_t *"), ffi.new("ozblas_lapack_report *")
    c = lambda a: ffi.cast("double *", a.ctypes.data)  # noqa: E731
    o = _options(method, None, None, None, 1, None, None)
    t = time.perf_counter()
    st = lib.ozblas_dbdsdc(_context(), b"U", b"I", n, c(d), c(e), c(u), n, c(vt), n, info, 0, o,
                           rep)
    t = time.perf_counter() - t
    assert st == 0 and info[0] == 0
    return t, d, u, vt, rep


def quality(d, e, s, u, vt):
    b = np.diag(d) + np.diag(e, 1)
    i = np.eye(len(d))
    return {"residual": float(np.linalg.norm(b - (u * s) @ vt) / np.linalg.norm(b)),
            "orth_u": float(np.linalg.norm(u.T @ u - i)),
            "orth_vt": float(np.linalg.norm(vt @ vt.T - i))}


def run(n, label, rows, methods):
    rng = np.random.default_rng(n)
    if hasattr(lib, "ozblas_dbdsdc"):
        d, e = bidiagonal(n, rng)
        t, s, u, vt = host_dbdsdc(d, e)
        rows.append({"label": label, "case": "host dbdsdc", "n": n, "seconds": t,
                     **quality(d, e, s, u, vt)})
        for method in methods:
            t, s2, u, vt, rep = oz_dbdsdc(d, e, method)
            rows.append({"label": label, "case": f"ozblas_dbdsdc {method}", "n": n, "seconds": t,
                         "products": rep.products, "emulated": rep.emulated,
                         "product_flops": rep.product_flops, "host_flops": rep.host_flops,
                         "max_value_diff": float(np.max(np.abs(s2 - s))),
                         **quality(d, e, s2, u, vt)})
    a = rng.uniform(-1, 1, (n, n))
    for method in methods:
        t = time.perf_counter()
        _, s, _, info = L.gesdd(a, compute_uv=1, full_matrices=0, method=method, threads=1)
        t = time.perf_counter() - t
        r = L.last_report()
        assert info == 0
        rows.append({"label": label, "case": f"gesdd S {method}", "n": n, "seconds": t,
                     "products": r["products"], "product_flops": r["product_flops"],
                     "host_flops": r["host_flops"]})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--label", required=True, help="before or after")
    ap.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048])
    ap.add_argument("--ozaki2-sizes", type=int, nargs="*", default=[1024],
                    help="the sizes also run with Ozaki II products (slow on the CPU)")
    args = ap.parse_args()
    rows = []
    with threadpool_limits(1):
        for n in args.sizes:
            run(n, args.label, rows, ("native", "ozaki2") if n in args.ozaki2_sizes else ("native",))
    path = RESULTS / "bdsdc_speed.json"
    old = json.loads(path.read_text()) if path.exists() else {"rows": [], "machines": {}}
    old["rows"] = [r for r in old["rows"]
                   if r["label"] != args.label or r["n"] not in args.sizes] + rows
    old["machines"][args.label] = {**machine(), "commit": commit()}
    write_json("bdsdc_speed.json", old)
    keys = ["label", "case", "n", "seconds", "products", "product_flops", "host_flops"]
    print(table(keys, [[r.get(k, "") if not isinstance(r.get(k), float) else f"{r[k]:.4g}"
                        for k in keys] for r in rows]))


if __name__ == "__main__":
    main()
