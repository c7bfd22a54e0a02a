"""Double-double matrix products: ``matmul_dd(a, b) -> (hi, lo)``.

The product is computed exactly (Ozaki II with the host DGEMM as the exact integer engine,
native/src/numerics/exact.h) and rounded once to a double-double, entry by entry:
``hi = fl(p)``, ``lo = fl(p - hi)``, so ``|hi + lo - p| <= 2**-106 |p| + 2**-1075``
(the proof is at ``ozx_round_dd`` in exact.h). CPU only for now.
"""

from __future__ import annotations

import numpy as np

from . import config
from ._native import check, ffi, lib, load

__all__ = ["matmul_dd"]

_ACCEPTED = "a float64/complex128 array, or a tuple (hi, lo) of two of them"


def _dd_operand(x, name):
    """(hi, lo or None) of one operand; a tuple is a double-double, an array a plain operand."""
    if isinstance(x, tuple):
        if len(x) != 2:
            raise TypeError(f"{name} is a tuple of {len(x)} items; accepted: {_ACCEPTED}")
        hi, lo = (_array(p, f"{name}[{i}]") for i, p in enumerate(x))
        if hi.shape != lo.shape:
            raise ValueError(f"{name}: hi has shape {hi.shape} but lo has {lo.shape}")
        return hi, lo
    if isinstance(x, list):
        # np.asarray([hi, lo]) would silently become a stacked (2, m, k) product
        raise TypeError(f"{name} is a list, which is ambiguous (a pair, or a stack of two?); "
                        f"accepted: {_ACCEPTED} (a (2, m, k) array is a stacked product)")
    return _array(x, name), None


def _array(x, name):
    if hasattr(x, "__cuda_array_interface__"):
        raise TypeError(f"{name} is a device array; matmul_dd runs on the CPU only (no device "
                        "path yet): pass host arrays")
    x = np.asarray(x)
    if x.dtype not in (np.float64, np.complex128):
        raise TypeError(f"{name} has dtype {x.dtype}; accepted: {_ACCEPTED}")
    if x.ndim not in (2, 3):
        raise ValueError(f"{name} must be 2-D or 3-D (a stack); got shape {x.shape}")
    return x


def _extended(a, b):
    """One exact product for double-double operands: (ah + al)(bh + bl) is the product of
    [ah, ah, al, al] and [bh; bl; bh; bl] (or the two-term forms when one side is plain)."""
    (ah, al), (bh, bl) = a, b
    if al is None and bl is None:
        return ah, bh
    if bl is None:
        return np.concatenate([ah, al], axis=-1), np.concatenate([bh, bh], axis=-2)
    if al is None:
        return np.concatenate([ah, ah], axis=-1), np.concatenate([bh, bl], axis=-2)
    return (np.concatenate([ah, ah, al, al], axis=-1),
            np.concatenate([bh, bl, bh, bl], axis=-2))


def _dd_2d(a, b, opts, cplx):
    from .api import _blas_view, _ptr, _report_dict

    m, k = a.shape
    n = b.shape[1]
    A, ta, lda = _blas_view(a, "N")
    B, tb, ldb = _blas_view(b, "N")
    dt = np.complex128 if cplx else np.float64
    hi = np.empty((m, n), dtype=dt, order="F")
    lo = np.empty((m, n), dtype=dt, order="F")
    rep = ffi.new("ozblas_report *")
    f = lib.ozblas_zgemm_dd if cplx else lib.ozblas_dgemm_dd
    check(f(ffi.NULL, ta.encode(), tb.encode(), m, n, k, _ptr(A), lda, _ptr(B), ldb, _ptr(hi),
            max(1, m), _ptr(lo), max(1, m), opts, rep))
    info = _report_dict(rep)
    info["direct_entries"] = rep.direct_entries
    return hi, lo, info


def matmul_dd(a, b, *, threads=None, return_info=False):
    """The product a @ b as a double-double ``(hi, lo)``, exact up to one rounding.

    a and b: float64/complex128 arrays (2-D, or stacked 3-D with equal or one batch), or
    tuples ``(hi, lo)`` of such arrays standing for hi + lo. A list is refused (a pair or a
    stack of two would be a guess). Returns ``(hi, lo)`` with, entrywise,
    ``|hi + lo - a @ b| <= 2**-106 |a @ b| + 2**-1075`` (hence <= 2**-100 (|a| @ |b|) wherever
    that is above 2**-969). Inf/NaN in the inputs give each entry what its dot product gives
    under IEEE rules (lo = 0 there); an entry beyond the double range gives hi = +-inf, lo = 0.
    threads: CPU threads for the elementwise steps (0 or None: all cores); results do not
    depend on it. With return_info=True returns (hi, lo, info).
    """
    A = _dd_operand(a, "a")
    B = _dd_operand(b, "b")
    a2, b2 = _extended(A, B)
    if a2.shape[-1] != b2.shape[-2]:
        raise ValueError(f"inner dimensions differ: a is {A[0].shape}, b is {B[0].shape}")
    load()
    opts = ffi.new("ozblas_options *")
    lib.ozblas_options_init(opts)
    opts.executor = 1  # the CPU: no device path yet
    opts.threads = (config.parse_keyword("threads", threads) if threads is not None
                    else config.from_env().threads)
    cplx = np.complex128 in (a2.dtype, b2.dtype)
    dt = np.complex128 if cplx else np.float64
    a2 = a2.astype(dt, copy=False)
    b2 = b2.astype(dt, copy=False)
    if a2.ndim == 2 and b2.ndim == 2:
        hi, lo, info = _dd_2d(a2, b2, opts, cplx)
        return (hi, lo, info) if return_info else (hi, lo)
    ba = a2.shape[0] if a2.ndim == 3 else 1
    bb = b2.shape[0] if b2.ndim == 3 else 1
    if ba != bb and 1 not in (ba, bb):
        raise ValueError(f"batch sizes differ: a is {A[0].shape}, b is {B[0].shape}")
    nb = max(ba, bb)
    hi = np.empty((nb, a2.shape[-2], b2.shape[-1]), dtype=dt)
    lo = np.empty_like(hi)
    infos = []
    for i in range(nb):
        ai = a2[i if ba > 1 else 0] if a2.ndim == 3 else a2
        bi = b2[i if bb > 1 else 0] if b2.ndim == 3 else b2
        hi[i], lo[i], inf = _dd_2d(ai, bi, opts, cplx)
        infos.append(inf)
    if not return_info:
        return hi, lo
    info = dict(infos[0])
    info["batch"] = nb
    info["direct_entries"] = sum(x["direct_entries"] for x in infos)
    info["seconds"] = sum(x["seconds"] for x in infos)
    return hi, lo, info
