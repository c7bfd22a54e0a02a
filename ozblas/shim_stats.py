"""`ozblas.stats()`: the preload shim's call counts in this process.

The counters live in ``libozblas_preload.so`` (``ozblas_shim_stats`` in ozblas.h); they
count every DGEMM/ZGEMM/DSYRK/ZSYRK/ZHERK call that reached the shim, whether it was loaded
with ``LD_PRELOAD`` (``ozblas run``) or by in-process activation. This module only looks the
library up among the objects already loaded (``dlopen(RTLD_NOLOAD)``): asking for the counts
never loads the shim, and without it every count is zero.
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
from pathlib import Path

__all__ = ["stats", "ROUTINES", "LAPACK_ROUTINES", "ROUTES"]


@functools.cache
def _shim_lists() -> dict[str, tuple[str, ...]]:
    """The routine lists of shim_names.h (the shim's one table of names): for every X-macro
    ``#define NAME(X)`` whose lines are ``X(routine, ...)``, NAME -> its routines in order."""
    import ozblas

    here = Path(__file__).resolve().parent
    places = [Path(d) / "shim_names.h" for d in ozblas.__path__]  # installed with the library
    places.append(here.parent / "native" / "src" / "shim" / "shim_names.h")  # a source tree
    header = next((p for p in places if p.exists()), None)
    if header is None:
        raise ImportError(f"shim_names.h not found in {[str(p) for p in places]}")
    text = header.read_text().replace("\\\n", " ")
    lists = {}
    for name, param, body in re.findall(r"^#define\s+(\w+)\(\s*(\w+)\s*\)([^\n]*)", text, re.M):
        lists[name] = tuple(re.findall(r"\b" + param + r"\(\s*(\w+)\s*,", body))
    return lists


def __getattr__(name):
    # read from the header on first use, so importing ozblas never needs it
    if name == "ROUTINES":  # the BLAS products (OZ_SHIM_ROUTINES)
        return _shim_lists()["OZ_SHIM_ROUTINES"]
    if name == "LAPACK_ROUTINES":  # what the LAPACK layer computes (shim_lapack.c, shim_level3.c, shim_gen.c)
        lists = _shim_lists()
        return sum((lists[k] for k in ("OZ_SHIM_LAPACK_ROUTINES", "OZ_SHIM_QR_ROUTINES",
                                       "OZ_SHIM_BLAS3_ROUTINES", "OZ_SHIM_GEN_ROUTINES",
                                       "OZ_SHIM_EIGEN_ROUTINES", "OZ_SHIM_SVD_ROUTINES",
                                       "OZ_SHIM_NONSYM_ROUTINES")), ())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ozblas: emulated; fallback: routed, computed natively by ozblas (the detail says why);
# native: passed to the real routine (the detail says why); quick: a BLAS quick return.
ROUTES = ("ozblas", "fallback", "native", "quick")

_PRELOAD_NAME = "libozblas_preload.so"
_found = None  # (path, cffi library) once seen loaded; kept open, so it stays loaded


def _candidates() -> list[str]:
    """Paths of loaded copies of the shim (whichever install it came from), then ours."""
    paths = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                p = line.rstrip("\n").split(None, 5)[-1]
                if os.path.basename(p) == _PRELOAD_NAME and p not in paths:
                    paths.append(p)
    except OSError:
        pass
    try:
        from .shim import library_path

        paths.append(library_path())
    except Exception:  # not built: only a loaded copy can count
        pass
    return paths


def _loaded():
    global _found
    if _found is None:
        from . import _native

        _native.load()  # the cdef (ozblas.h) that declares ozblas_shim_stats
        flags = os.RTLD_NOW | os.RTLD_NOLOAD
        for path in _candidates():
            # Probed with ctypes first: cffi crashes on a failed RTLD_NOLOAD open (dlopen
            # returns NULL without a dlerror() message).
            try:
                ctypes.CDLL(path, mode=flags)
            except OSError:  # not loaded in this process
                continue
            _found = (path, _native.ffi.dlopen(path, flags))
            break
    return _found


def _zeros() -> dict:
    return {"calls": 0, "flops": 0.0, "seconds": 0.0}


def stats() -> dict:
    """Counts of the BLAS calls the preload shim has seen in this process.

    Returns ``{"loaded": bool, "library": path or None, "total": {...},
    "routines": {routine: {...}}}`` where ``total`` and each of the five BLAS routines
    (dgemm, zgemm, dsyrk, zsyrk, zherk) and the LAPACK ones (LAPACK_ROUTINES: dgetrf, zgetrf,
    ...; their flops are LAPACK's nominal counts, the blocked driver's products are not
    counted again) hold ``calls``, ``flops`` (nominal: 2mnk for DGEMM,
    8mnk for ZGEMM, k n(n+1) and 4k n(n+1) for SYRK/HERK), ``seconds`` (wall time in the
    shim; calls below OZBLAS_MIN_SIZE are timed only while OZBLAS_TRACE is on, since two
    clock reads would cost more than passing them through) and the calls per route (``ozblas``, ``fallback``, ``native``, ``quick``); each
    routine also has ``routes``, ``{"route: detail": {"calls", "flops", "seconds"}}``, e.g.
    ``"ozblas: ozaki2/cpu"`` (``"ozblas: ozaki2/cpu/fp4"`` on the FP4 engine),
    ``"native: below OZBLAS_MIN_SIZE"``,
    ``"fallback: nonfinite input"``; a route whose calls chose their moduli or slices
    automatically also has ``max_bound``, the largest error bound they reported. The same
    counts as ``OZBLAS_SUMMARY=1`` prints at exit.
    """
    routines = {r: dict(_zeros(), **{k: 0 for k in ROUTES}, routes={})
                for names in _shim_lists().values() for r in names}
    total = dict(_zeros(), **{k: 0 for k in ROUTES})
    found = _loaded()
    if found is not None:
        from ._native import ffi

        lib = found[1]
        n = lib.ozblas_shim_stats(ffi.NULL, 0)
        while True:  # cells can appear between the two calls (other threads)
            buf = ffi.new("ozblas_shim_stat[]", n + 8)
            got = lib.ozblas_shim_stats(buf, n + 8)
            if got <= n + 8:
                break
            n = got
        for cell in buf[0:got]:
            routine = ffi.string(cell.routine).decode()
            route = ffi.string(cell.route).decode()
            detail = ffi.string(cell.detail).decode()
            row = {"calls": int(cell.calls), "flops": float(cell.flops), "seconds": float(cell.seconds)}
            if cell.host_seconds > 0 or cell.host_flops > 0:  # a LAPACK routine the layer ran
                row.update(product_seconds=float(cell.product_seconds),
                           host_seconds=float(cell.host_seconds), host_flops=float(cell.host_flops))
            if cell.max_bound >= 0:
                row["max_bound"] = float(cell.max_bound)
            r = routines.setdefault(routine, dict(_zeros(), **{k: 0 for k in ROUTES}, routes={}))
            r["routes"][f"{route}: {detail}"] = row
            for d in (r, total):
                d[route] = d.get(route, 0) + row["calls"]
                for k in ("calls", "flops", "seconds"):
                    d[k] += row[k]
                for k in ("product_seconds", "host_seconds", "host_flops"):
                    if k in row:
                        d[k] = d.get(k, 0.0) + row[k]
    return {"loaded": found is not None, "library": found[0] if found else None,
            "total": total, "routines": routines}
