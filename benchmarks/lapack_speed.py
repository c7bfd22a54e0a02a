"""The LAPACK layer on the CPU executor: host LAPACK against ozblas's blocked drivers.

getrf, potrf (upper), getrs and trsm (left, lower, no transpose) with n/2 right-hand sides,
sytrf (lower, symmetric indefinite) d and z, geqrf (square, d only), gelqf (square), gehrd
(the whole matrix) and gels (the n x n/2 least-squares problem, n/2 right-hand sides) d and z,
sygst/hegst (itype 1, upper) and trsyl (m = n, no transposes, isgn 1: two synthetic Schur
forms) d and z, the eigensolvers syevd and syevr (z: heevd, heevr; all eigenvalues and
eigenvectors, upper triangle; their nominal count is sytrd's 4/3 n^3 and ormtr's 2 n^3, the
driver's own, products and host routines, is product_flops + host_flops, the tridiagonal
solver excluded) and sygvd (z: hegvd; itype 1, eigenvectors, lower triangle; its nominal
count adds potrf's n^3/3, sygst's n^3 and trsm's n^3), gesdd (square, jobz S; gesdd_n: values
only; nominal: gebrd's 8/3 n^3, with vectors 4 n^3 more for U and V^H; dbdsdc in host_flops as
4/3 n^3 with vectors, 30 n^2 without; gesdd_tall: the 3n x n matrix, jobz S, nominal as
dgesdd's QR-first path: geqrf, orgqr, gebrd and ormbr on R, the product Q U_R), gelsd (the
n x n and 3n x n matrices, n/2 right-hand sides; nominal: gebrd of the whole matrix, Q^T B
and P X as ormbr counts them), geev (right eigenvectors; nominal 25 n^3 + 4/3 n^3) and gees
(Schur vectors, unsorted; 25 n^3), one thread (the host LAPACK limited by threadpoolctl, the CPU executor by
threads=1); the native cases with LAPACK's optimal workspace (a query first). Cases: ``native`` (the host LAPACK routine, SciPy's wrapper), ``blocked-native``
(the blocked driver with every product native: the driver's own cost) and ``blocked-ozaki2``
(the blocked driver with Ozaki II products, automatic precision). For each: time, GFLOPS on
LAPACK's nominal flop count, and the share of those flops that ran in emulated products
(emulated_flops / flops of ozblas.lapack.last_report(); the products of a SYRK/HERK update
include whole diagonal blocks, so the share can exceed the nominal count slightly).
Every blocked row also has the report's ``host_s`` and ``products_s`` (wall time outside and
inside the products). ``--remainder TAG``: the host remainder alone (syevd, gesdd jobz S,
gelsd_tall unless --routines says otherwise; native and blocked-native only, the median of
--repeats runs each): driver seconds, products' seconds, host remainder and its measured parts
(panels, chase, solver, back, copies), against the native driver, into lapack_remainder_TAG.json and .png.
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

import ctypes

import numpy as np
import scipy.linalg.blas as sb
import scipy.linalg.lapack as sla
from scipy.linalg import cython_lapack

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


def _host_gelqf(dt, a):
    """The host LAPACK's gelqf (SciPy does not wrap it) through scipy.linalg.cython_lapack's
    pointer, on a copy of a, with the optimal workspace of a query."""
    get_name, get_ptr = ctypes.pythonapi.PyCapsule_GetName, ctypes.pythonapi.PyCapsule_GetPointer
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    get_ptr.restype, get_ptr.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    cap = cython_lapack.__pyx_capi__[dt + "gelqf"]
    f = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * 8)(get_ptr(cap, get_name(cap)))
    ref = lambda v: ctypes.byref(ctypes.c_int(v))  # noqa: E731
    m, n = a.shape
    w, info = np.zeros(1, dtype=a.dtype), ctypes.c_int(0)
    tau = np.zeros(min(m, n), dtype=a.dtype)
    f(ref(m), ref(n), a.ctypes.data, ref(m), tau.ctypes.data, w.ctypes.data, ref(-1), ctypes.byref(info))
    w = np.zeros(int(w[0].real), dtype=a.dtype)

    def run():
        c = np.array(a, order="F")
        f(ref(m), ref(n), c.ctypes.data, ref(m), tau.ctypes.data, w.ctypes.data, ref(w.shape[0]),
          ctypes.byref(info))
    return run


def _sq(n, dt, rng):
    x = rng.random((n, n)) - 0.5
    return np.asfortranarray(x + 1j * (rng.random((n, n)) - 0.5) if dt == "z" else x)


def _schur_like(n, dt, rng):
    """An upper (quasi-)triangular matrix in Schur form without a Schur decomposition (minutes
    at n = 4096 here): diagonal in [1, 2] (so A + B is far from singular), entries above it
    of order n^-1/2, and for d a standardized 2x2 block (equal diagonal, off-diagonals 0.5 and
    -0.5) every 8 rows."""
    t = np.triu(_sq(n, dt, rng), 1) / n ** 0.5
    t[np.diag_indices(n)] = 1.0 + rng.random(n)
    if dt == "d":
        for i in range(0, n - 1, 8):
            t[i + 1, i + 1] = t[i, i]
            t[i, i + 1], t[i + 1, i] = 0.5, -0.5
    return np.asfortranarray(t)


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
    # the generalized problem's reduction: a's Hermitian part with s's Cholesky factor
    h = np.asfortranarray((a + a.conj().T) / 2)
    fac = np.asfortranarray(nat("potrf")(s)[0])
    gst = nat("hegst" if dt == "z" else "sygst")
    cases["sygst"] = (lambda: gst(h, fac, itype=1), lambda kw: L.sygst(h, fac, itype=1, **kw))
    # Sylvester: two Schur forms of order n, an n x n right-hand side
    rng = np.random.default_rng(a.shape[0] + 1)
    ta, tb, c = _schur_like(a.shape[0], dt, rng), _schur_like(a.shape[0], dt, rng), _sq(a.shape[0], dt, rng)
    cases["trsyl"] = (lambda: nat("trsyl")(ta, tb, c), lambda kw: L.trsyl(ta, tb, c, **kw))
    # the eigensolvers with eigenvectors, native with LAPACK's optimal workspace (syevr's
    # default lwork 26n is below it: the unblocked sytrd)
    he = "he" if dt == "z" else "sy"
    q = getattr(sla, dt + he + "evr_lwork")(a.shape[0])
    evr = {"lwork": int(q[0].real)} if dt == "d" else {"lwork": int(q[0].real), "lrwork": int(q[1])}
    cases["syevd"] = (lambda: getattr(sla, dt + he + "evd")(h), lambda kw: L.syevd(h, **kw))
    cases["syevr"] = (lambda: getattr(sla, dt + he + "evr")(h, **evr), lambda kw: L.syevr(h, **kw))
    # the generalized problem h x = w s x (itype 1, eigenvectors): potrf, sygst, syevd, trsm
    cases["sygvd"] = (lambda: getattr(sla, dt + he + "gvd")(h, s), lambda kw: L.sygvd(h, s, **kw))
    if dt == "d":
        # native with LAPACK's optimal workspace (SciPy's default lwork = 3n is the unblocked code)
        lw = int(nat("geqrf")(a, lwork=-1)[2][0])
        cases["geqrf"] = (lambda: nat("geqrf")(a, lwork=lw), lambda kw: L.geqrf(a, **kw))
    cases["gelqf"] = (_host_gelqf(dt, a), lambda kw: L.gelqf(a, **kw))
    lw = int(nat("gehrd_lwork")(a.shape[0])[0].real)
    cases["gehrd"] = (lambda: nat("gehrd")(a, lwork=lw), lambda kw: L.gehrd(a, **kw))
    t = np.asfortranarray(a[:, : a.shape[0] // 2])  # tall: n x n/2, n/2 right-hand sides
    lw = int(nat("gels_lwork")(*t.shape, b.shape[1])[0].real)
    cases["gels"] = (lambda: nat("gels")(t, b, lwork=lw), lambda kw: L.gels(t, b, **kw))
    # the SVD, square: with the first n columns of U and rows of V^H (jobz S), and values only
    # (jobz N), native with LAPACK's optimal workspace
    for name, cu in (("gesdd", 1), ("gesdd_n", 0)):
        lw = int(nat("gesdd_lwork")(*a.shape, compute_uv=cu, full_matrices=0)[0].real)
        cases[name] = ((lambda cu=cu, lw=lw: nat("gesdd")(a, compute_uv=cu, full_matrices=0, lwork=lw)),
                       (lambda kw, cu=cu: L.gesdd(a, compute_uv=cu, full_matrices=0, **kw)))
    # tall, 3n x n (above LAPACK's QR-first threshold 11n/6), jobz S
    g = np.random.default_rng(a.shape[0] + 2)
    tall = np.asfortranarray(np.vstack([a, _sq(a.shape[0], dt, g), _sq(a.shape[0], dt, g)]))
    lw = int(nat("gesdd_lwork")(*tall.shape, compute_uv=1, full_matrices=0)[0].real)
    cases["gesdd_tall"] = (lambda: nat("gesdd")(tall, compute_uv=1, full_matrices=0, lwork=lw),
                           lambda kw: L.gesdd(tall, compute_uv=1, full_matrices=0, **kw))
    # least squares through the SVD (gelsd): square and tall (3n x n, QR first), n/2
    # right-hand sides, native with LAPACK's optimal workspace
    for name, mat in (("gelsd", a), ("gelsd_tall", tall)):
        rhs = np.asfortranarray(np.vstack([b] * (mat.shape[0] // b.shape[0])))
        q = nat("gelsd_lwork")(*mat.shape, rhs.shape[1], -1)
        sizes = [int(np.real(v)) for v in q[:-1]]
        cases[name] = ((lambda mat=mat, rhs=rhs, sizes=sizes: nat("gelsd")(mat, rhs, *sizes)),
                       (lambda kw, mat=mat, rhs=rhs: L.gelsd(mat, rhs, **kw)))
    # the nonsymmetric eigenproblem: geev with right vectors, gees with Schur vectors (unsorted),
    # native with LAPACK's optimal workspace (benchmarks/lapack_nonsym.py adds the host remainder)
    lw = int(nat("geev_lwork")(a.shape[0], compute_vl=0)[0].real)
    cases["geev"] = (lambda: nat("geev")(a, compute_vl=0, lwork=lw), lambda kw: L.geev(a, compute_vl=0, **kw))
    sel = (lambda x: None) if dt == "z" else (lambda x, y: None)
    lws = int(nat("gees")(sel, a, lwork=-1)[-2][0].real)
    cases["gees"] = (lambda: nat("gees")(sel, a, lwork=lws), lambda kw: L.gees(None, a, **kw))
    return cases


def _flops(routine, dt, n, nrhs):
    k = n // 2  # gels: geqrf of n x k, Q^T applied to n x nrhs, the k x k solve (LAPACK's counts)
    f = {"getrf": 2 / 3 * n**3, "potrf": n**3 / 3, "getrs": 2 * n * n * nrhs, "trsm": n * n * nrhs,
         "geqrf": 4 / 3 * n**3, "sytrf": n**3 / 3, "gelqf": 4 / 3 * n**3, "gehrd": 10 / 3 * n**3,
         "gels": 2 * n * k * k - 2 / 3 * k**3 + 2 * nrhs * k * (2 * n - k) + k * k * nrhs,
         "sygst": n**3, "trsyl": 2 * n**3,
         "syevd": (4 / 3 + 2) * n**3, "syevr": (4 / 3 + 2) * n**3,  # sytrd + ormtr
         "sygvd": (1 / 3 + 1 + 4 / 3 + 2 + 1) * n**3,  # potrf, sygst, sytrd + ormtr, trsm
         "gesdd": (8 / 3 + 4) * n**3, "gesdd_n": 8 / 3 * n**3,  # gebrd (+ ormbr's U and V)
         # m = 3n, dgesdd's path for m >> n: geqrf and orgqr (2 m n^2 - 2/3 n^3 each), gebrd and
         # ormbr on R (8/3 n^3 + 4 n^3), the m x n x n product Q U_R
         "gesdd_tall": 6 * 3 * n**3 + 16 / 3 * n**3,
         # dgelsd's gebrd (4 m n^2 - 4/3 n^3), Q^T B and P X (ormbr's), m = n or 3n
         "gelsd": 8 / 3 * n**3 + 4 * nrhs * n**2, "gelsd_tall": (12 - 4 / 3) * n**3 + 12 * nrhs * n**2,
         # Golub and Van Loan's: T and Z 25 n^3; geev's right vectors 4/3 n^3 more (the layer's count)
         "geev": (25 + 4 / 3) * n**3, "gees": 25 * n**3}
    return f[routine] * (4 if dt == "z" else 1)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    # an empty list skips that element type (--zsizes alone: d only)
    p.add_argument("--sizes", type=int, nargs="*", default=[512, 1024, 2048])
    p.add_argument("--zsizes", type=int, nargs="*", default=[512, 1024])
    p.add_argument("--nb", type=int, default=None, help="block size (default: the size rule)")
    p.add_argument("--routines", nargs="+", default=None,
                   choices=["getrf", "potrf", "getrs", "trsm", "geqrf", "sytrf", "gelqf", "gehrd", "gels",
                            "sygst", "trsyl", "syevd", "syevr", "sygvd", "gesdd", "gesdd_n", "gesdd_tall",
                            "gelsd", "gelsd_tall", "geev", "gees"],
                   help="default: all")
    p.add_argument("--native-max", type=int, default=None,
                   help="time the host LAPACK routine only up to this n (trsyl's Level-1 code takes hours "
                        "at n = 4096 here); above it native_s is null")
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--remainder", metavar="TAG", default=None,
                   help="the host remainder of syevd, gesdd, gelsd_tall only (lapack_remainder_TAG.json)")
    p.add_argument("--repeats", type=int, default=3, help="--remainder: runs per case (median)")
    args = p.parse_args(argv)
    from threadpoolctl import threadpool_limits

    if args.remainder:
        return remainder(args)

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
                    name = {("z", "sygst"): "hegst", ("z", "syevd"): "heevd",
                            ("z", "syevr"): "heevr", ("z", "sygvd"): "hegvd"}.get((dt, routine), routine)
                    row = {"routine": dt + name, "n": n, "nrhs": b.shape[1], "flops": flops}
                    row["native_s"] = None
                    if args.native_max is None or n <= args.native_max:
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
                        row[case + "_host_s"] = rep["host_seconds"]
                        row[case + "_products_s"] = rep["product_seconds"]
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
                    print(f"{dt}{name} n={n}: native {_s(row['native_s'])} s, blocked-native "
                          f"{row['blocked-native_s']:.3f} s, blocked-ozaki2 {row['blocked-ozaki2_s']:.3f} s, "
                          f"emulated {100 * row['emulated_share']:.1f}% of nominal, "
                          f"{100 * row['emulated_share_of_driver']:.1f}% of the driver's "
                          f"{row['driver_flops'] / 1e9:.3g} GFLOP, "
                          f"moduli {row['moduli_histogram']}",
                          flush=True)
    rows = [[r["routine"], r["n"], _s(r["native_s"]), f"{r['blocked-native_s']:.3f}",
             f"{r['blocked-ozaki2_s']:.3f}",
             f"{r['flops'] / r['native_s'] * 1e-9:.2f}" if r["native_s"] else "-",
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


def remainder(args):
    """--remainder: per routine and n, the native driver's time and the blocked driver's
    (method native, one thread) split by its report into products and host remainder."""
    from threadpoolctl import threadpool_limits

    routines = args.routines or ["syevd", "gesdd", "gelsd_tall"]
    med = lambda v: float(np.median(v))  # noqa: E731
    results = []
    with threadpool_limits(1):
        for n in args.sizes:
            a, s, b = _inputs(n, "d", np.random.default_rng(n))
            cases = _cases("d", a, s, b)
            for routine in routines:
                native, blocked = cases[routine]
                nat_t, runs = [], []
                for _ in range(args.repeats):
                    t = time.perf_counter()
                    native()
                    nat_t.append(time.perf_counter() - t)
                    t = time.perf_counter()
                    blocked(dict(method="native", threads=1, executor="cpu", nb=args.nb))
                    rep = dict(L.last_report(), wall=time.perf_counter() - t)
                    runs.append(rep)
                row = {"routine": "d" + routine, "n": n, "repeats": args.repeats,
                       "native_s": med(nat_t), "driver_s": med([r["wall"] for r in runs]),
                       "products_s": med([r["product_seconds"] for r in runs]),
                       "host_s": med([r["host_seconds"] for r in runs]),
                       "host_parts_s": {k: med([r["host_parts"][k] for r in runs])
                                        for k in runs[0]["host_parts"]},
                       "nb": runs[0]["nb"], "band": runs[0].get("band"), "products": runs[0]["products"],
                       "product_flops": runs[0]["product_flops"], "host_flops": runs[0]["host_flops"]}
                row["host_over_native"] = row["host_s"] / row["native_s"]
                results.append(row)
                print(f"d{routine} n={n}: native {row['native_s']:.3f} s, driver {row['driver_s']:.3f} s "
                      f"= products {row['products_s']:.3f} + host {row['host_s']:.3f} "
                      f"({100 * row['host_over_native']:.0f}% of native; parts "
                      + ", ".join(f"{k} {v:.3f}" for k, v in row["host_parts_s"].items()) + ")",
                      flush=True)
    name = f"lapack_remainder_{args.remainder}"
    note = ("timings on a shared 2-core machine (other agents running), one thread, median of "
            f"{args.repeats} runs; products and host from ozblas.lapack.last_report()")
    path = write_json(name + ".json", {"machine": machine(), "threads": 1, "note": note,
                                       "results": results}, args.out)
    print(f"wrote {path}")
    _plot_remainder(results, (args.out or RESULTS) / (name + ".png"), args.remainder)


def _plot_remainder(results, path, tag):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # as shares of the native driver measured beside each (the machine's load varies)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    labels = [f"{r['routine']}\nn={r['n']} b={r.get('band')}" for r in results]
    x = np.arange(len(results))
    nat = np.array([r["native_s"] for r in results])
    ax.bar(x - 0.2, np.ones(len(results)), 0.4, label="native LAPACK driver", color="gray")
    bottom = np.zeros(len(results))
    for key, color in (("panels", "tab:orange"), ("chase", "tab:red"), ("solver", "tab:purple"),
                       ("back", "tab:green"), ("copies", "tab:brown")):
        # results written before a part existed hold it in "other"
        v = np.array([r["host_parts_s"].get(key, 0.0) for r in results]) / nat
        ax.bar(x + 0.2, v, 0.4, bottom=bottom, color=color, label=f"host: {key}")
        bottom += v
    other = np.array([r["host_s"] for r in results]) / nat - bottom
    ax.bar(x + 0.2, other, 0.4, bottom=bottom, color="tab:pink", label="host: other")
    bottom += other
    ax.bar(x + 0.2, np.array([r["products_s"] for r in results]) / nat, 0.4, bottom=bottom,
           color="tab:blue", label="products (native)")
    ax.set(xticks=x, xticklabels=labels, ylabel="time / native driver's",
           title=f"ozblas.lapack, method native, 1 thread: host remainder ({tag})")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


def _s(seconds):
    return "-" if seconds is None else f"{seconds:.3f}"


def _plot(results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    for i, r in enumerate(sorted({x["routine"] for x in results})):
        xs = [x for x in results if x["routine"] == r]
        timed = [x for x in xs if x["native_s"]]
        style = dict(ls=["-", "--", ":"][i // 10 % 3], marker="os^"[i // 10 % 3], label=r)
        ax1.plot([x["n"] for x in timed], [x["blocked-ozaki2_s"] / x["native_s"] for x in timed], **style)
        ax2.plot([x["n"] for x in xs], [100 * x["emulated_share"] for x in xs], **style)
    ax1.set(xscale="log", yscale="log", xlabel="n", ylabel="time / native LAPACK",
            title="blocked driver, Ozaki II products (CPU, 1 thread)")
    ax2.set(xscale="log", xlabel="n", ylabel="% of nominal flops emulated", title="flops through emulated products")
    ax2.axhline(85, color="gray", ls=":")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
    ax2.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
