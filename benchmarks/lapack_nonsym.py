"""The nonsymmetric eigenproblem's drivers on the CPU executor, one thread: geev with right
eigenvectors and gees with Schur vectors (no sorting), d (and z with --zsizes), on a random
square matrix (uniform entries in [-0.5, 0.5)).

For each: the host LAPACK driver (SciPy's wrapper, LAPACK's optimal workspace: a query first),
ozblas's driver with Ozaki II products (automatic precision) and with native products (the
driver's own cost), the share of the flops in products (product_flops / (product_flops +
host_flops) of ozblas.lapack.last_report(); host_flops counts hseqr and trevc3 by Golub and Van
Loan's model, lahr2's panels by LAPACK's count) and of the nominal count emulated, and the host
remainder: the host routines the driver leaves on the host (gebal, hseqr with the Schur vectors
on the Hessenberg matrix and Q, geev: trevc3 on T with howmny 'A', gebak), timed alone through
scipy.linalg.cython_lapack on the same matrices, against the native driver's time (the
Hessenberg reduction's lahr2 panels, inside the routed gehrd, are not in it). One run per case
(the machine is shared). Writes benchmarks/results/lapack_nonsym.json.
"""

from __future__ import annotations

import argparse
import ctypes
import sys
import time
from pathlib import Path

import numpy as np
import scipy.linalg.lapack as sla
from scipy.linalg import cython_lapack

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, table, write_json  # noqa: E402
from ozblas import lapack as L  # noqa: E402

_I = ctypes.POINTER(ctypes.c_int)
_P = ctypes.c_void_p
_C = ctypes.c_char_p


def _fn(name, sig):
    cap = cython_lapack.__pyx_capi__[name]
    ctypes.pythonapi.PyCapsule_GetName.restype = ctypes.c_char_p
    ctypes.pythonapi.PyCapsule_GetName.argtypes = [ctypes.py_object]
    ctypes.pythonapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
    ctypes.pythonapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    ptr = ctypes.pythonapi.PyCapsule_GetPointer(cap, ctypes.pythonapi.PyCapsule_GetName(cap))
    return ctypes.CFUNCTYPE(None, *sig)(ptr)


def _openblas_fn(name, sig):
    """A routine cython_lapack does not export (trevc3), from SciPy's own LAPACK (LP64,
    scipy_ prefix, the hidden lengths of its two character arguments last)."""
    from threadpoolctl import threadpool_info

    path = [d["filepath"] for d in threadpool_info() if "scipy.libs" in d["filepath"]][0]
    f = getattr(ctypes.CDLL(path), "scipy_" + name + "_")
    f.argtypes, f.restype = sig + [ctypes.c_size_t, ctypes.c_size_t], None
    return f


def _i(v):
    return ctypes.byref(ctypes.c_int(v))


def _p(a):
    return ctypes.c_void_p(a.ctypes.data)


def _host_remainder(dt, a, vectors_of_t):
    """Seconds of gebal, hseqr (job S, compz V on H and Q), trevc3 (right, howmny A) when
    vectors_of_t, and gebak, on a's reduction (computed natively, not timed)."""
    n = a.shape[0]
    z = dt == "z"
    ty = np.complex128 if z else np.float64
    b = np.asfortranarray(a.astype(ty))
    info = ctypes.c_int(0)
    ilo, ihi = ctypes.c_int(0), ctypes.c_int(0)
    scale = np.zeros(n)
    t0 = time.perf_counter()
    _fn(dt + "gebal", [_C, _I, _P, _I, _I, _I, _P, _I])(b"B", _i(n), _p(b), _i(n), ctypes.byref(ilo),
                                                      ctypes.byref(ihi), _p(scale), ctypes.byref(info))
    t_bal = time.perf_counter() - t0
    lw = int(getattr(sla, dt + "gehrd_lwork")(n)[0].real)
    h, tau, _ = getattr(sla, dt + "gehrd")(b, lo=ilo.value - 1, hi=ihi.value - 1, lwork=lw)
    q = getattr(sla, dt + ("unghr" if z else "orghr"))(h, tau, lo=ilo.value - 1, hi=ihi.value - 1)[0]
    h, q = np.asfortranarray(np.triu(h, -1)), np.asfortranarray(q)
    w, wi = np.zeros(n, ty), np.zeros(n)
    sig = [_C, _C, _I, _I, _I, _P, _I, _P] + ([] if z else [_P]) + [_P, _I, _P, _I, _I]
    hseqr = _fn(dt + "hseqr", sig)
    wq = np.zeros(1, ty)
    wargs = [_p(w)] if z else [_p(w), _p(wi)]
    hseqr(b"S", b"V", _i(n), ctypes.byref(ilo), ctypes.byref(ihi), _p(h), _i(n), *wargs, _p(q), _i(n),
          _p(wq), _i(-1), ctypes.byref(info))
    work = np.zeros(max(int(wq[0].real), n), ty)
    t0 = time.perf_counter()
    hseqr(b"S", b"V", _i(n), ctypes.byref(ilo), ctypes.byref(ihi), _p(h), _i(n), *wargs, _p(q), _i(n),
          _p(work), _i(work.size), ctypes.byref(info))
    t_hseqr = time.perf_counter() - t0
    t_trevc = 0.0
    if vectors_of_t:
        x = np.zeros((n, n), ty, order="F")
        sig = [_C, _C, _P, _I, _P, _I, _P, _I, _P, _I, _I, _I, _P, _I] + ([_P, _I] if z else []) + [_I]
        lw = 3 * n + 2 * n * 64
        work, rw = np.zeros(lw, ty), np.zeros(n + 2 * n * 64)
        m = ctypes.c_int(0)
        sel = np.zeros(1, np.int32)
        t0 = time.perf_counter()
        _openblas_fn(dt + "trevc3", sig)(b"R", b"A", _p(sel), _i(n), _p(h), _i(n), _p(x), _i(1), _p(x),
                                         _i(n), _i(n), ctypes.byref(m), _p(work), _i(lw),
                                         *([_p(rw), _i(rw.size)] if z else []), ctypes.byref(info), 1, 1)
        t_trevc = time.perf_counter() - t0
    t0 = time.perf_counter()
    _fn(dt + "gebak", [_C, _C, _I, _I, _I, _P, _I, _P, _I, _I])(
        b"B", b"R", _i(n), ctypes.byref(ilo), ctypes.byref(ihi), _p(scale), _i(n), _p(q), _i(n),
        ctypes.byref(info))
    return {"gebal_s": t_bal, "hseqr_s": t_hseqr, "trevc3_s": t_trevc,
            "gebak_s": time.perf_counter() - t0}


def _row(dt, routine, n, a):
    if routine == "geev":
        lw = int(getattr(sla, dt + "geev_lwork")(n, compute_vl=0)[0].real)
        native = lambda: getattr(sla, dt + "geev")(a, compute_vl=0, lwork=lw)  # noqa: E731
        ours = lambda kw: L.geev(a, compute_vl=0, **kw)  # noqa: E731
    else:
        sel = (lambda x: None) if dt == "z" else (lambda x, y: None)
        lw = int(getattr(sla, dt + "gees")(sel, a, lwork=-1)[-2][0].real)
        native = lambda: getattr(sla, dt + "gees")(sel, a, lwork=lw)  # noqa: E731
        ours = lambda kw: L.gees(None, a, **kw)  # noqa: E731
    row = {"routine": dt + routine, "n": n}
    t = time.perf_counter()
    native()
    row["native_s"] = time.perf_counter() - t
    for case, method in (("products-native", "native"), ("ozaki2", "ozaki2")):
        t = time.perf_counter()
        ours(dict(method=method, threads=1, executor="cpu"))
        row[case + "_s"] = time.perf_counter() - t
        rep = L.last_report()
        if method == "ozaki2":
            row.update(nb=rep["nb"], flops=rep["flops"], product_flops=rep["product_flops"],
                       host_flops=rep["host_flops"], emulated_flops=rep["emulated_flops"],
                       moduli=rep["moduli"], products=rep["products"])
            row["product_share"] = rep["product_flops"] / (rep["product_flops"] + rep["host_flops"])
            row["emulated_share_of_nominal"] = rep["emulated_flops"] / rep["flops"]
    row.update(_host_remainder(dt, a, routine == "geev"))
    row["host_remainder_s"] = sum(row[k] for k in ("gebal_s", "hseqr_s", "trevc3_s", "gebak_s"))
    row["host_remainder_share_of_native"] = row["host_remainder_s"] / row["native_s"]
    return row


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--sizes", type=int, nargs="*", default=[1024])
    p.add_argument("--zsizes", type=int, nargs="*", default=[])
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    from threadpoolctl import threadpool_limits

    results = []
    with threadpool_limits(1):
        for dt, sizes in (("d", args.sizes), ("z", args.zsizes)):
            for n in sizes:
                rng = np.random.default_rng(n)
                a = rng.random((n, n)) - 0.5
                if dt == "z":
                    a = a + 1j * (rng.random((n, n)) - 0.5)
                a = np.asfortranarray(a)
                for routine in ("geev", "gees"):
                    r = _row(dt, routine, n, a)
                    results.append(r)
                    print(r, flush=True)
    rows = [[r["routine"], r["n"], f"{r['native_s']:.2f}", f"{r['ozaki2_s']:.2f}",
             f"{r['products-native_s']:.2f}", f"{100 * r['product_share']:.1f}%",
             f"{100 * r['emulated_share_of_nominal']:.1f}%", f"{r['host_remainder_s']:.2f}",
             f"{100 * r['host_remainder_share_of_native']:.0f}%",
             f"{r['moduli'][0]}-{r['moduli'][1]}" if r.get("moduli") else "-"] for r in results]
    print(table(["routine", "n", "native s", "ozaki2 s", "native products s", "flops in products",
                 "emulated (nominal)", "host remainder s", "remainder / native", "moduli"], rows))
    write_json("lapack_nonsym.json", {"machine": machine(), "threads": 1, "results": results}, args.out)


if __name__ == "__main__":
    main()
