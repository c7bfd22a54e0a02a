"""Ozaki scheme II in NumPy: the executable specification of the native executors.

`ozaki2(a, b, ...)` follows the steps of native/src/numerics/ozaki2.h on op(A) = a and
op(B) = b given as matrices, and its result equals the C executors' bit for bit. It favours
clarity over speed: exact integer products with NumPy int64, the CRT with Python integers.
Intended for small sizes (up to ~128).
"""

from __future__ import annotations

import numpy as np

from .._native import lib, load
from ._common import operands, update

__all__ = ["ozaki2", "moduli"]

MAX_BITS = 94
MAX_K = 1 << 28


def moduli(n: int) -> list[int]:
    load()
    return [lib.ozblas_ozaki2_modulus(t) for t in range(n)]


def _ilogb(x: np.ndarray) -> np.ndarray:
    """Exponent e with 1 <= |x| 2^-e < 2 (x finite, nonzero; subnormals included)."""
    return np.frexp(x)[1].astype(np.int64) - 1


def _parts(x: np.ndarray) -> list[np.ndarray]:
    return [x.real.astype(np.float64), x.imag.astype(np.float64)] if np.iscomplexobj(x) else [x]


def _stats(parts: list[np.ndarray], axis: int):
    """Per row (axis=1) or column (axis=0): E, smallest nonzero exponent, nonfinite flag."""
    bad = any(not np.all(np.isfinite(p)) for p in parts)
    amax = np.max(np.stack([np.abs(p) for p in parts]), axis=0).max(axis=axis)
    E = np.where(amax > 0, _ilogb(np.where(amax > 0, amax, 1.0)), 0)
    big = np.iinfo(np.int64).max
    emin = np.full(amax.shape, big, dtype=np.int64)
    for p in parts:
        nz = p != 0
        e = np.where(nz, _ilogb(np.where(nz, p, 1.0)), big)
        emin = np.minimum(emin, e.min(axis=axis))
    return E, emin, bad


def _expand(v: np.ndarray, axis: int) -> np.ndarray:
    return v[:, None] if axis == 1 else v[None, :]


def _bitlen(v: np.ndarray) -> np.ndarray:
    return np.vectorize(lambda x: int(x).bit_length(), otypes=[np.int64])(v)


ZERO_CS = -4096


def _cs_half(parts, E, axis):
    """Half the exponent of the Cauchy-Schwarz bound from the integer sum of squares."""
    S = np.zeros(E.shape, dtype=np.uint64)
    for p in parts:
        y = np.ldexp(np.abs(p), -_expand(E, axis))
        t = np.ceil(np.ldexp(y * y, 32)).astype(np.uint64) + np.uint64(1)
        S += np.where(p != 0, t, np.uint64(0)).sum(axis=axis, dtype=np.uint64)
    return np.where(S == 0, ZERO_CS, (_bitlen(S) + 1) // 2)


def _bits_fast(cs, half_budget):
    return np.where(cs == ZERO_CS, MAX_BITS, np.minimum(half_budget + 16 - cs, MAX_BITS))


def _ubound(parts, E, axis, ushift):
    s = ushift - _expand(E, axis)
    return sum(np.ceil(np.ldexp(np.abs(p), s)).astype(np.int64) for p in parts)


def _residue(x: np.ndarray, m: int) -> np.ndarray:
    """Symmetric residue of integer-valued doubles (fmod is exact); 128 -> -128 for m = 256."""
    r = np.fmod(x, float(m))
    r = np.where(r > m / 2, r - m, r)
    r = np.where(r < -m / 2, r + m, r)
    return np.where(r >= m / 2, r - m, r).astype(np.int64)


def _sym(x: np.ndarray, m: int) -> np.ndarray:
    r = np.mod(x, m)
    return np.where(r >= (m + 1) // 2, r - m, r) if m % 2 else np.where(r >= m // 2, r - m, r)


def _crt(res: list[np.ndarray], ms: list[int], shift: np.ndarray) -> np.ndarray:
    M = 1
    for m in ms:
        M *= m
    weights = [(M // m) * pow(M // m, -1, m) % M for m in ms]
    out = np.empty(res[0].shape, dtype=np.float64)
    for idx in np.ndindex(out.shape):
        X = sum(int(r[idx]) % m * w for r, m, w in zip(res, ms, weights)) % M
        if X >= M // 2:
            X -= M
        out[idx] = np.ldexp(float(X), int(shift[idx]))
    return out


def ozaki2(a, b, *, moduli: int = 16, scaling: str = "accurate", alpha=1.0, beta=0.0, c=None):
    """alpha a @ b + beta c by Ozaki II. Returns (result, fallback) where fallback is None or
    the reason the C executors would compute this call natively (result is then None)."""
    a, b, cplx = operands(a, b, alpha, beta)
    m, k = a.shape
    n = b.shape[1]
    if k > (MAX_K // 2 if cplx else MAX_K):
        return None, "k too large for the scaling bounds"
    ms = globals()["moduli"](moduli)
    load()
    budget = lib.ozblas_ozaki2_budget_bits(moduli)
    pa, pb = _parts(a), _parts(b)
    Ea, emin_a, bad_a = _stats(pa, 1)
    Eb, emin_b, bad_b = _stats(pb, 0)
    if bad_a or bad_b:
        return None, "nonfinite input"
    cs_a, cs_b = _cs_half(pa, Ea, 1), _cs_half(pb, Eb, 0)
    if scaling == "fast":
        bits_a = _bits_fast(cs_a, budget // 2)
        bits_b = _bits_fast(cs_b, budget - budget // 2)
    else:
        ushift = 4 if cplx else 5
        G = _ubound(pa, Ea, 1, ushift) @ _ubound(pb, Eb, 0, ushift)
        h = np.minimum(_bitlen(G) - 2 * ushift, cs_a[:, None] + cs_b[None, :] - 32)
        beta0 = _bits_fast(cs_b, budget - budget // 2)
        bits_a = np.minimum((budget - h - beta0[None, :]).min(axis=1), MAX_BITS)
        bits_b = np.minimum((budget - h - bits_a[:, None]).min(axis=0), MAX_BITS)
    big = np.iinfo(np.int64).max
    if np.any((emin_a != big) & (emin_a < Ea - bits_a)) or np.any((emin_b != big) & (emin_b < Eb - bits_b)):
        return None, "exponent range beyond the scaling"
    ea = bits_a - Ea
    eb = bits_b - Eb
    sa = [np.trunc(np.ldexp(p, ea[:, None])) for p in pa]
    sb = [np.trunc(np.ldexp(p, eb[None, :])) for p in pb]
    res_re, res_im = [], []
    for mt in ms:
        ra = [_residue(p, mt) for p in sa]
        rb = [_residue(p, mt) for p in sb]
        if not cplx:
            res_re.append(_sym(ra[0] @ rb[0], mt))
        else:
            t1, t2 = ra[0] @ rb[0], ra[1] @ rb[1]
            t3 = _sym(ra[0] + ra[1], mt) @ _sym(rb[0] + rb[1], mt)
            res_re.append(_sym(t1 - t2, mt))
            res_im.append(_sym(t3 - t1 - t2, mt))
    shift = -ea[:, None] - eb[None, :]
    xr = _crt(res_re, ms, shift)
    xi = _crt(res_im, ms, shift) if cplx else None
    return update(xr, xi, alpha, beta, c, cplx), None
