#!/usr/bin/env python3
"""The LAPACK layer on a GPU (issue 10's H200 benchmark); never run on a GPU yet.

Measured, most valuable first, the JSON rewritten after every measurement so that a timeout
still leaves what was done:
  * ``ozblas.lapack.getrf`` and ``potrf`` on CuPy arrays (method ozaki2, automatic precision,
    the CUDA executor) against cuSOLVER through CuPy (``cupyx.scipy.linalg.lu_factor``,
    ``cupy.linalg.cholesky``), n = 4096, 8192, 16384 (``--sizes``);
  * ``scipy.linalg.solve`` on host arrays, n = 16384 (``--solve-sizes``), inside
    ``ozblas.activated(method="ozaki2")`` (gesv device-resident on the CUDA executor) against
    the host LAPACK, with the backward error ||A x - b|| / (||A|| ||x||) of both;
  * ``ozblas.lapack.syevd`` on CuPy arrays (the two-stage eigensolver, eigenvectors) against
    ``cupy.linalg.eigh`` (cuSOLVER), n = 4096, 8192, 16384 (``--eig-sizes``), with both
    residuals ||A Z - Z W|| / (||A|| n u) and orthogonalities ||Z^T Z - I|| / (n u), the
    driver's emulated share and moduli histogram; and ``numpy.linalg.eigh`` on host arrays
    (``--eig-host-sizes``, 4096) inside ``ozblas.activated(method="ozaki2")`` against the
    host LAPACK;
  * ``ozblas.lapack.gesdd`` on CuPy arrays (the two-stage SVD, thin vectors) against
    ``cupy.linalg.svd`` (cuSOLVER), n = 4096, 8192 (``--svd-sizes``), with the residuals
    ||A - U S V^T|| / (||A|| n u) and the orthogonalities of U and V; and ``numpy.linalg.svd``
    on host arrays (``--svd-host-sizes``, 4096) inside ``ozblas.activated(method="ozaki2")``
    against the host LAPACK.
Times are wall clock around one call after a warm-up at n = 1024, the device synchronized
(single measurements: the GPU's time is scarce). GFLOPS on LAPACK's nominal counts.

Usage: python3 benchmarks/lapack_gpu.py --out lapack_gpu.json [--budget 60]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine  # noqa: E402

T0 = time.monotonic()


def _timed(f, sync):
    sync()
    t = time.perf_counter()
    out = f()
    sync()
    return time.perf_counter() - t, out


def _spd(cp, n, rng):
    a = cp.asarray(rng.random((n, n)) - 0.5)
    return a, a @ a.T + n * cp.eye(n)


def _eigen(routine, n, rng, cp, L, kw, sync):
    """syevd on CuPy arrays against cupy.linalg.eigh, or numpy.linalg.eigh routed against
    the host LAPACK: times, residuals, orthogonalities (units of n u) and the report."""
    import ozblas

    u = 2.0**-53
    row = {"flops": (4 / 3 + 2) * n**3}  # sytrd + ormtr, LAPACK's nominal count

    def quality(xp, a, w, z):
        na = float(xp.linalg.norm(a, 2)) if n <= 4096 else float(xp.linalg.norm(a))
        res = float(xp.linalg.norm(a @ z - z * w)) / (na * n * u)
        orth = float(xp.linalg.norm(z.T @ z - xp.eye(n))) / (n * u)
        return res, orth

    if routine == "syevd":
        h = rng.random((n, n)) - 0.5
        a = cp.asarray((h + h.T) / 2)
        row["cusolver_s"], (w0, z0) = _timed(lambda: cp.linalg.eigh(a), sync)
        row["ozblas_s"], (w1, z1, _) = _timed(lambda: L.syevd(a, **kw), sync)
        rep = L.last_report()
        row["cusolver_res"], row["cusolver_orth"] = quality(cp, a, w0, z0)
        row["ozblas_res"], row["ozblas_orth"] = quality(cp, a, w1, z1)
    else:
        h = rng.random((n, n)) - 0.5
        a = (h + h.T) / 2
        row["native_s"], (w0, z0) = _timed(lambda: np.linalg.eigh(a), sync)
        with ozblas.activated(method="ozaki2"):
            row["ozblas_s"], (w1, z1) = _timed(lambda: np.linalg.eigh(a), sync)
        row["native_res"], row["native_orth"] = quality(np, a, w0, z0)
        row["ozblas_res"], row["ozblas_orth"] = quality(np, a, w1, z1)
        row["routed"] = ozblas.stats().get("routines", {}).get("dsyevd")
        return row
    return _driver_share(row, rep)


def _driver_share(row, rep):
    """The two-stage drivers' report: the share of their own flops that ran emulated."""
    drv = rep["product_flops"] + rep["host_flops"]
    row["emulated_share_of_driver"] = rep["emulated_flops"] / drv if drv else 0.0
    row["moduli_histogram"] = rep["moduli_histogram"]
    row["device"] = rep["device"]
    return row


def _svd(routine, n, rng, cp, L, kw, sync):
    """gesdd on CuPy arrays against cupy.linalg.svd, or numpy.linalg.svd routed against the
    host LAPACK (thin vectors): times, residuals and orthogonalities (units of n u)."""
    import ozblas

    u = 2.0**-53
    row = {"flops": (8 / 3 + 4) * n**3}  # gebrd + the back-transformations, LAPACK's nominal

    def quality(xp, a, uu, s, vt):
        res = float(xp.linalg.norm(a - (uu * s) @ vt)) / (float(xp.linalg.norm(a)) * n * u)
        eye = xp.eye(n)
        orth = max(float(xp.linalg.norm(uu.T @ uu - eye)), float(xp.linalg.norm(vt @ vt.T - eye)))
        return res, orth / (n * u)

    h = rng.random((n, n)) - 0.5
    if routine == "gesdd":
        a = cp.asarray(h)
        row["cusolver_s"], (u0, s0, v0) = _timed(lambda: cp.linalg.svd(a, full_matrices=False), sync)
        row["ozblas_s"], (u1, s1, v1, _) = _timed(lambda: L.gesdd(a, full_matrices=0, **kw), sync)
        rep = L.last_report()
        row["cusolver_res"], row["cusolver_orth"] = quality(cp, a, u0, s0, v0)
        row["ozblas_res"], row["ozblas_orth"] = quality(cp, a, u1, s1, v1)
        return _driver_share(row, rep)
    row["native_s"], (u0, s0, v0) = _timed(lambda: np.linalg.svd(h, full_matrices=False), sync)
    with ozblas.activated(method="ozaki2"):
        row["ozblas_s"], (u1, s1, v1) = _timed(lambda: np.linalg.svd(h, full_matrices=False), sync)
    row["native_res"], row["native_orth"] = quality(np, h, u0, s0, v0)
    row["ozblas_res"], row["ozblas_orth"] = quality(np, h, u1, s1, v1)
    row["routed"] = ozblas.stats().get("routines", {}).get("dgesdd")
    return row


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--sizes", type=int, nargs="*", default=[4096, 8192, 16384])
    p.add_argument("--solve-sizes", type=int, nargs="*", default=[16384])
    p.add_argument("--eig-sizes", type=int, nargs="*", default=[4096, 8192, 16384])
    p.add_argument("--eig-host-sizes", type=int, nargs="*", default=[4096])
    p.add_argument("--svd-sizes", type=int, nargs="*", default=[4096, 8192])
    p.add_argument("--svd-host-sizes", type=int, nargs="*", default=[4096])
    p.add_argument("--budget", type=float, default=60.0, help="seconds: no measurement starts after")
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    import cupy as cp
    import cupyx.scipy.linalg as cpl
    import scipy.linalg as sl

    import ozblas
    from ozblas import lapack as L

    data = {"machine": machine(), "runs": [], "errors": [], "skipped": []}

    def save():
        args.out.write_text(json.dumps(data, indent=1))

    sync = cp.cuda.Device().synchronize
    kw = dict(method="ozaki2", executor="cuda")
    rng = np.random.default_rng(0)
    warm_a, warm_s = _spd(cp, 1024, rng)
    L.getrf(warm_a, **kw), L.potrf(warm_s, **kw), cpl.lu_factor(warm_a)
    cases = [("getrf", n) for n in args.sizes] + [("potrf", n) for n in args.sizes]
    cases += [("solve", n) for n in args.solve_sizes]
    cases += [("syevd", n) for n in args.eig_sizes]
    cases += [("eigh_host", n) for n in args.eig_host_sizes]
    cases += [("gesdd", n) for n in args.svd_sizes] + [("svd_host", n) for n in args.svd_host_sizes]
    for routine, n in cases:
        if time.monotonic() - T0 > args.budget:
            data["skipped"].append(f"{routine} {n}")
            continue
        try:
            row = {"routine": routine, "n": n}
            if routine in ("syevd", "eigh_host"):
                row.update(_eigen(routine, n, rng, cp, L, kw, sync))
            elif routine in ("gesdd", "svd_host"):
                row.update(_svd(routine, n, rng, cp, L, kw, sync))
            elif routine == "solve":
                a = rng.random((n, n)) - 0.5 + n ** 0.5 * np.eye(n)
                b = rng.random((n, 1)) - 0.5
                row["flops"] = 2 / 3 * n**3
                row["native_s"], x0 = _timed(lambda: sl.solve(a, b, assume_a="gen"), sync)
                with ozblas.activated(method="ozaki2"):
                    row["ozblas_s"], x1 = _timed(lambda: sl.solve(a, b, assume_a="gen"), sync)
                nrm = np.linalg.norm(a, 1)
                for key, x in (("native_berr", x0), ("ozblas_berr", x1)):
                    row[key] = float(np.linalg.norm(a @ x - b, 1) / (nrm * np.linalg.norm(x, 1)))
                row["routed"] = ozblas.stats().get("routines", {}).get("dgesv")
            else:
                a, s = _spd(cp, n, rng)
                row["flops"] = (2 / 3 if routine == "getrf" else 1 / 3) * n**3
                if routine == "getrf":
                    row["cusolver_s"], _ = _timed(lambda: cpl.lu_factor(a), sync)
                    row["ozblas_s"], _ = _timed(lambda: L.getrf(a, **kw), sync)
                else:
                    row["cusolver_s"], _ = _timed(lambda: cp.linalg.cholesky(s), sync)
                    row["ozblas_s"], _ = _timed(lambda: L.potrf(s, lower=True, **kw), sync)
                rep = L.last_report()
                row["emulated_share"] = rep["emulated_flops"] / rep["flops"]
                row["moduli"] = rep["moduli"]
            for k in [k for k in row if k.endswith("_s")]:
                row[k[:-2] + "_gflops"] = row["flops"] / row[k] * 1e-9
            data["runs"].append(row)
            print(json.dumps(row), flush=True)
        except Exception:  # one failing case must not lose the others' figures
            data["errors"].append({"case": f"{routine} {n}", "traceback": traceback.format_exc()})
            print(data["errors"][-1]["traceback"], flush=True)
        save()
    save()
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
