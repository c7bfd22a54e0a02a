"""Double-double matrix products: ``matmul_dd(a, b) -> (hi, lo)``.

The product is computed exactly (Ozaki II with the host DGEMM as the exact integer engine,
native/src/numerics/exact.h) and rounded once to a double-double, entry by entry:
``hi = fl(p)``, ``lo = fl(p - hi)``, so ``|hi + lo - p| <= 2**-106 |p| + 2**-1075``
(the proof is at ``ozx_round_dd`` in exact.h). On the CPU executor the exact integer engine
is the host DGEMM; on the CUDA executor (executor="cuda", or device arrays) it is the INT8
units through INT8 moduli (native/src/cuda/cuda_exact.cu), with the same bits.
"""

from __future__ import annotations

import numpy as np

from . import config
from ._native import check, ffi, lib

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
    from .api import _operand

    x = _operand(x, name, _ACCEPTED)  # the API's one check: no masked arrays, either byte order
    if x.ndim not in (2, 3):
        raise ValueError(f"{name} must be 2-D or 3-D (a stack); got shape {x.shape}")
    return x


def _extended(a, b, xp):
    """One exact product for double-double operands: (ah + al)(bh + bl) is the product of
    [ah, ah, al, al] and [bh; bl; bh; bl] (or the two-term forms when one side is plain)."""
    (ah, al), (bh, bl) = a, b
    if al is None and bl is None:
        return ah, bh
    if bl is None:
        return xp.concatenate([ah, al], axis=-1), xp.concatenate([bh, bh], axis=-2)
    if al is None:
        return xp.concatenate([ah, ah], axis=-1), xp.concatenate([bh, bl], axis=-2)
    return (xp.concatenate([ah, ah, al, al], axis=-1),
            xp.concatenate([bh, bl, bh, bl], axis=-2))


def _dd_2d(a, b, opts, cplx, xp):
    from .api import _blas_view, _ptr, _report_dict

    m, k = a.shape
    n = b.shape[1]
    A, ta, lda = _blas_view(a, "N")
    B, tb, ldb = _blas_view(b, "N")
    dt = np.complex128 if cplx else np.float64
    hi = xp.empty((m, n), dtype=dt, order="F")
    lo = xp.empty((m, n), dtype=dt, order="F")
    rep = ffi.new("ozblas_report *")
    f = lib.ozblas_zgemm_dd if cplx else lib.ozblas_dgemm_dd
    check(f(ffi.NULL, ta.encode(), tb.encode(), m, n, k, _ptr(A), lda, _ptr(B), ldb, _ptr(hi),
            max(1, m), _ptr(lo), max(1, m), opts, rep))
    info = _report_dict(rep, opts.device)
    info["direct_entries"] = rep.direct_entries
    return hi, lo, info


def matmul_dd(a, b, *, executor=None, threads=None, return_info=False):
    """The product a @ b as a double-double ``(hi, lo)``, exact up to one rounding.

    a and b: float64/complex128 arrays (2-D, or stacked 3-D with equal or one batch), or
    tuples ``(hi, lo)`` of such arrays standing for hi + lo. A list is refused (a pair or a
    stack of two would be a guess). Returns ``(hi, lo)`` with, entrywise,
    ``|hi + lo - a @ b| <= 2**-106 |a @ b| + 2**-1075`` (hence ``<= 2**-100 (|a| @ |b|)`` wherever
    that is above 2**-969). Inf/NaN in the inputs give each entry what its dot product gives
    under IEEE rules (lo = 0 there); an entry beyond the double range gives hi = +-inf, lo = 0.
    executor (auto, cpu, cuda, cuda:N; default OZBLAS_DEVICE): where the product runs. auto
    runs host arrays on the CPU and device arrays (CuPy, or anything with
    __cuda_array_interface__: the results are then CuPy arrays) on their device; cuda runs
    host arrays on the GPU too. Every executor gives the same bits; info["executor"] says
    which ran. threads: CPU threads for the elementwise steps (0 or None: all cores); results
    do not depend on it. With return_info=True returns (hi, lo, info).
    """
    from .api import _device_options, _on_device, _xp

    A = _dd_operand(a, "a")
    B = _dd_operand(b, "b")
    parts = [p for p in (*A, *B) if p is not None]
    xp = _xp(*parts)
    if xp is not np and not all(_on_device(p) for p in parts):
        raise TypeError("a and b must all be host arrays or all device arrays")
    a2, b2 = _extended(A, B, xp)
    if a2.shape[-1] != b2.shape[-2]:
        raise ValueError(f"inner dimensions differ: a is {A[0].shape}, b is {B[0].shape}")
    env = config.from_env()
    ex, dev, _ = (config.parse_keyword("executor", executor) if executor is not None
                  else (env.executor, env.device, env.devices))
    opts = config.options_struct({
        "executor": ex, "device": dev,
        "threads": config.parse_keyword("threads", threads) if threads is not None else env.threads})
    _device_options(opts, xp, parts)
    cplx = np.complex128 in (a2.dtype, b2.dtype)
    dt = np.complex128 if cplx else np.float64
    a2 = a2.astype(dt, copy=False)
    b2 = b2.astype(dt, copy=False)
    if a2.ndim == 2 and b2.ndim == 2:
        hi, lo, info = _dd_2d(a2, b2, opts, cplx, xp)
        return (hi, lo, info) if return_info else (hi, lo)
    ba = a2.shape[0] if a2.ndim == 3 else 1
    bb = b2.shape[0] if b2.ndim == 3 else 1
    if ba != bb and 1 not in (ba, bb):
        raise ValueError(f"batch sizes differ: a is {A[0].shape}, b is {B[0].shape}")
    nb = max(ba, bb)
    hi = xp.empty((nb, a2.shape[-2], b2.shape[-1]), dtype=dt)
    lo = xp.empty_like(hi)
    infos = []
    for i in range(nb):
        ai = a2[i if ba > 1 else 0] if a2.ndim == 3 else a2
        bi = b2[i if bb > 1 else 0] if b2.ndim == 3 else b2
        hi[i], lo[i], inf = _dd_2d(ai, bi, opts, cplx, xp)
        infos.append(inf)
    if not return_info:
        return hi, lo
    info = dict(infos[0])
    info["batch"] = nb
    info["direct_entries"] = sum(x["direct_entries"] for x in infos)
    info["seconds"] = sum(x["seconds"] for x in infos)
    return hi, lo, info
