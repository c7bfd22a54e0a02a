"""Route SciPy's gemm through ozblas (the top-level ``scipy_hook`` package is its public face).

`install()` makes `scipy.linalg.get_blas_funcs` / `scipy.linalg.blas.get_blas_funcs` return
ozblas callables for real and complex double gemm, and replaces `scipy.linalg.blas.dgemm`
and `zgemm`; the callables keep SciPy's signature `c = dgemm(alpha, a, b, beta=0.0, c=None,
trans_a=0, trans_b=0, overwrite_c=0)` and the attributes SciPy sets (`typecode`, `dtype`,
`prefix`, `module_name`), and run with the OZBLAS_* settings (CuPy arrays run on the GPU;
a gemm that OZBLAS_ROUTINES leaves native runs SciPy's routine).
Every other routine is SciPy's, untouched. `uninstall()` restores exactly what was there.
"""

from __future__ import annotations

import functools
import threading

import numpy as np

__all__ = ["install", "uninstall", "installed"]

_lock = threading.Lock()
_saved: dict | None = None


class _Gemm:
    """An ozblas gemm with the face of SciPy's f2py wrapper."""

    def __init__(self, original):
        from . import api

        self._f = api.zgemm if original.typecode == "z" else api.dgemm
        self._original = original
        self.typecode = original.typecode
        self.dtype = original.dtype
        self.prefix = original.prefix
        self.module_name = original.module_name
        self.__name__ = getattr(original, "__name__", self.prefix + "gemm")
        self.__doc__ = original.__doc__

    def __call__(self, alpha, a, b, beta=0.0, c=None, trans_a=0, trans_b=0, overwrite_c=0):
        # SciPy's f2py wrapper reads a masked array's data and ignores its mask (ozblas.dgemm
        # refuses it): a routed program gets what it got without ozblas
        a, b, c = (np.ma.getdata(x) if isinstance(x, np.ma.MaskedArray) else x for x in (a, b, c))
        from . import config

        if self.typecode + "gemm" in config.from_env().routines:  # left native: SciPy's own
            return self._original(alpha, a, b, beta, c, trans_a, trans_b, overwrite_c)
        return self._f(alpha, a, b, beta, c, trans_a, trans_b, overwrite_c)

    def __repr__(self):
        return f"<ozblas function {self.__name__} (routing SciPy's {self._original!r})>"


def _routine(func) -> str:
    """'dgemm' for SciPy's f2py objects, whose __name__ reads 'function dgemm'."""
    return getattr(func, "__name__", "").split()[-1] if getattr(func, "__name__", "") else ""


def _wrap(func):
    if getattr(func, "typecode", None) in ("d", "z") and _routine(func)[1:] == "gemm":
        return _Gemm(func)
    return func


def install() -> None:
    """Route SciPy's double and double-complex gemm through ozblas (idempotent)."""
    global _saved
    import scipy.linalg
    import scipy.linalg.blas as blas

    with _lock:
        if _saved is not None:
            return
        original_get = blas.get_blas_funcs

        @functools.wraps(original_get)
        def get_blas_funcs(names, arrays=(), dtype=None, ilp64=False):
            funcs = original_get(names, arrays, dtype, ilp64)
            if isinstance(funcs, (list, tuple)):
                return [_wrap(f) for f in funcs]
            return _wrap(funcs)

        _saved = {"blas.get_blas_funcs": original_get,
                  "linalg.get_blas_funcs": scipy.linalg.get_blas_funcs,
                  "blas.dgemm": blas.dgemm, "blas.zgemm": blas.zgemm}
        blas.get_blas_funcs = get_blas_funcs
        scipy.linalg.get_blas_funcs = get_blas_funcs
        blas.dgemm = _Gemm(original_get("gemm", dtype=np.float64))
        blas.zgemm = _Gemm(original_get("gemm", dtype=np.complex128))


def uninstall() -> None:
    """Put back SciPy's own functions (idempotent)."""
    global _saved
    import scipy.linalg
    import scipy.linalg.blas as blas

    with _lock:
        if _saved is None:
            return
        blas.get_blas_funcs = _saved["blas.get_blas_funcs"]
        scipy.linalg.get_blas_funcs = _saved["linalg.get_blas_funcs"]
        blas.dgemm = _saved["blas.dgemm"]
        blas.zgemm = _saved["blas.zgemm"]
        _saved = None


def installed() -> bool:
    return _saved is not None
