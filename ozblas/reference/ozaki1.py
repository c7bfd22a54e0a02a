"""Ozaki scheme I in NumPy: the executable specification of the native executors.

`ozaki1(a, b, ...)` follows native/src/numerics/ozaki1.h on op(A) = a and op(B) = b given as
matrices, and its result equals the C executors' bit for bit. It favours clarity over speed:
slices as int64, exact integer products with NumPy int64 matmul, the FP64 accumulation as
elementwise float64 operations in the same fixed order as the C code. Intended for small
sizes (up to a few hundred).

Variants (x a row of op(A) or a column of op(B), real and imaginary parts sharing one scale;
K = k, or 2k for complex; beta = min(7, (31 - ceil(log2 K)) // 2)):

- ``bitmask``, ``ef``: E = ilogb(max |x|); T_p = trunc(|x| 2^(beta p - E - 1)),
  I_p = sign(x) (T_p - 2^beta T_{p-1}), weight 2^(E + 1 - beta p).
- ``rn``: per slice, c = ceil(log2 max |R|) of the residual R, weight mu = 2^(c + 1 - beta),
  I_p = RN(R / mu) by the magic constant 0.75 * 2^53, R -= I_p mu.
- ``hybrid``: as ``rn`` with the fixed weight 2^(c + 1 - beta p), c from the original row.

Products over the triangle p + q <= s + 1. FP64 terms: one per pair (``bitmask``, ``rn``) or
one per chunk of at most r = max(1, 2^(31 - 2 beta - ceil(log2 K))) consecutive pairs of one
group g = p + q (``ef``, ``hybrid``), each the exact integer times its power of two, added to
+0 in the order g = s + 1 down to 2, increasing p inside a group.
"""

from __future__ import annotations

import numpy as np

from .. import _constants
from . import fp4
from ._common import _ilogb, _parts, operands, update
from .ozaki2 import TARGET, _lower_product, _norm1, _stats, auto_count, norm_factor, norm_rootk

__all__ = ["ozaki1", "slice_width", "group_addends"]

VARIANTS = ("bitmask", "rn", "ef", "hybrid")
MAX_K = 1 << 28
MAGIC = 6755399441055744.0  # 0.75 * 2^53


def _clog2(K: int) -> int:
    return max(0, (int(K) - 1).bit_length())


def slice_width(K: int) -> int:
    """beta = min(7, floor((31 - log2 K) / 2)) for K = k (real) or 2k (complex)."""
    return min(7, (31 - _clog2(K)) // 2)


def group_addends(beta: int, K: int) -> int:
    """r = max(1, 2^(31 - 2 beta - ceil(log2 K))): pairs one INT32 accumulator sums exactly."""
    e = 31 - 2 * beta - _clog2(K)
    return 1 << e if e > 0 else 1


def _ceil_log2(x: np.ndarray) -> np.ndarray:
    f, e = np.frexp(x)
    return np.where(f == 0.5, e - 1, e).astype(np.int64)


def _split(parts: list[np.ndarray], s: int, beta: int, variant: str):
    """Rows of each part (rows x k). Returns (slices[p][t] int64, exps rows x s, top, lost)."""
    amax = np.max(np.stack([np.abs(p) for p in parts]), axis=0).max(axis=1)
    nz = amax > 0
    safe = np.where(nz, amax, 1.0)
    top = np.where(nz, _ilogb(safe), np.iinfo(np.int64).min)
    rows = amax.shape[0]
    pidx = np.arange(1, s + 1)
    zero_exp = 1 - beta * pidx  # zero rows, every variant
    slices = [[None] * len(parts) for _ in range(s)]
    if variant in ("bitmask", "ef"):
        E = np.where(nz, _ilogb(safe), 0)
        exps = E[:, None] + 1 - beta * pidx[None, :]
        lost = False
        for t, x in enumerate(parts):
            ax = np.abs(x)
            T_prev = np.zeros_like(ax)
            for p in range(s):
                T = np.trunc(np.ldexp(ax, (beta * (p + 1) - E - 1)[:, None]))
                d = T - np.ldexp(T_prev, beta)
                slices[p][t] = np.where(x < 0, -d, d).astype(np.int64)
                T_prev = T
            lost = lost or bool(np.any((x != 0) & (T_prev == 0)))
    else:
        R = [x.copy() for x in parts]
        exps = np.zeros((rows, s), dtype=np.int64)
        c0 = np.where(nz, _ceil_log2(safe), 0)
        for p in range(s):
            if variant == "hybrid":
                ep = c0 + 1 - beta * (p + 1)
            else:
                m = np.max(np.stack([np.abs(r) for r in R]), axis=0).max(axis=1)
                prev = exps[:, p - 1] - beta if p > 0 else np.full(rows, 1 - beta)
                ep = np.where(m > 0, _ceil_log2(np.where(m > 0, m, 1.0)) + 1 - beta, prev)
            exps[:, p] = ep
            for t in range(len(parts)):
                y = np.ldexp(R[t], -ep[:, None])
                I = (y + MAGIC) - MAGIC
                R[t] = R[t] - np.ldexp(I, ep[:, None])
                slices[p][t] = I.astype(np.int64)
        lost = any(bool(np.any((x != 0) & (r == x))) for x, r in zip(parts, R))
    exps = np.where(nz[:, None], exps, zero_exp[None, :])
    return slices, exps, top, lost


def _auto_slices(a, b, cplx, bw, K, target="entrywise"):
    """ozaki1.h automatic precision with ozaki2.py's statistics: (slices, ratio). The bound
    covers elements the count loses entirely (driver_auto.c meets). target "normwise":
    oz1_norm_ratio (no lower bound, no span form)."""
    pa, pb = _parts(a), _parts(b)
    Ea, emin_a, _ = _stats(pa, 1)
    Eb, emin_b, _ = _stats(pb, 0)
    Na, Nb = _norm1(pa, Ea, 1), _norm1(pb, Eb, 0)
    norm = target == "normwise"
    Glo = None if norm else _lower_product(pa, pb, Ea, Eb, emin_a, emin_b, Na, Nb)[0]
    k = a.shape[1]
    state = {}

    def meets(s):
        state["ratio"] = _max_ratio(s)
        return state["ratio"] <= TARGET

    def _max_ratio(s):
        c = 2.0 if cplx else 1.0
        kk = float(2 * k if cplx else k)
        zero = (Na == 0)[:, None] | (Nb == 0)[None, :]
        ea = np.where(Na == 0, Ea, emin_a)[:, None]
        eb = np.where(Nb == 0, Eb, emin_b)[None, :]
        EA, EB = Ea[:, None], Eb[None, :]
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            drop = kk * float(s - 1) * np.ldexp(1.0, 3 - bw * s)
            cross = kk * np.ldexp(1.0, 2 - 2 * bw * s)
            span = c * (np.ldexp(1.0, EA - ea + 1 - bw * s) + np.ldexp(1.0, EB - eb + 1 - bw * s)
                        + np.ldexp(1.0, EA - ea + EB - eb + 2 - 2 * bw * s)
                        + np.ldexp(drop / kk, EA - ea + EB - eb))
            if norm:  # ozaki1.h oz1_norm_ratio
                rk = norm_rootk(cplx, k)
                f = norm_factor(Na, rk)[:, None] + norm_factor(Nb, rk)[None, :]
                r = c * (np.ldexp(f, 1 - bw * s) + cross + drop)
            else:
                tot = Na.astype(np.float64)[:, None] + Nb.astype(np.float64)[None, :]
                r = c * np.ldexp(np.ldexp(tot, 1 - bw * s - 32) + cross + drop, 12) / Glo
                r = np.where(Glo == 0, span, np.minimum(r, span))
        return float(np.where(zero, 0.0, r).max())

    s = auto_count(2, _constants.MAX_SLICES, _constants.PLAN_SLICES, meets)
    return s, state["ratio"]


def report_bound(cplx, r, terms) -> float:
    """ozaki1.h oz1_report_bound."""
    u, n = 2.0**-53, float(terms + 1)
    return (r + (2.0 if cplx else 1.0) * (9.0 * n * u / (1.0 - n * u) + u) * (1.0 + r)) * (1.0 + 2.0**-40)


def _last_sum(acc, t, scale):
    """ozaki1.h oz1_accumulate_last: acc + t brought back from the scale, rounded once (the
    last addition's exact error breaks a tie of the scaled sum on the result's grid)."""
    with np.errstate(all="ignore"):
        s = acc + t
        bv = s - acc
        e = (acc - (s - bv)) + (t - bv)
        r = np.ldexp(s, -scale)
        d = s - np.ldexp(r, scale)
        half = np.ldexp(1.0, scale - 1075)
        r = np.where((scale > 0) & (d == half) & (e > 0), np.nextafter(r, np.inf), r)
        r = np.where((scale > 0) & (d == -half) & (e < 0), np.nextafter(r, -np.inf), r)
    return r  # scale <= 0: s brought back exactly (or an overflow to inf)


def ozaki1(a, b, *, slices=8, variant: str = "hybrid", alpha=1.0, beta=0.0, c=None,
           info: dict | None = None, engine: str = "int8", target: str = "entrywise"):
    """alpha a @ b + beta c by Ozaki I. Returns (result, fallback) where fallback is None or
    the reason the C executors would compute this call natively (result is then None).
    slices "auto" (or 0) takes the fewest slices whose bound meets the target ("entrywise":
    DGEMM-level; "normwise": OZBLAS_TARGET_NORMWISE); info, if given, receives the slice count
    and the bound, as the C report states them."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    a, b, cplx = operands(a, b, alpha, beta)
    m, k = a.shape
    n = b.shape[1]
    K = 2 * k if cplx else k
    if K > MAX_K:
        return None, "k too large for the scaling bounds"
    bw = slice_width(K)
    r = group_addends(bw, K) if variant in ("ef", "hybrid") else 1
    pa = _parts(a)
    pb = [p.T.copy() for p in _parts(b)]  # columns of op(B) as rows
    if any(not np.all(np.isfinite(p)) for p in pa + pb):
        return None, "nonfinite input"
    auto = str(slices).lower() in ("auto", "0")
    if auto:
        s, ratio = _auto_slices(a, b, cplx, bw, K, target)
        if info is not None:
            info.update(slices=s, bound=report_bound(cplx, ratio, 0))
        if not s:
            return None, "no count meets DGEMM-level accuracy"
    else:
        s = int(slices)
    Ia, ea, _, lost_a = _split(pa, s, bw, variant)
    Ib, eb, _, lost_b = _split(pb, s, bw, variant)
    if (lost_a or lost_b) and not auto:
        return None, "exponent range beyond the scaling"

    def mul(x, y):  # the engine's exact product (FP4: three limbs per INT8 slice value)
        return x @ y if engine == "int8" else fp4.product(x, y, 3).astype(np.int64)

    def pair(p, q):  # exact integer product(s) of A slice p and B slice q, per part
        if not cplx:
            return [mul(Ia[p][0], Ib[q][0].T)]
        rr, ii = mul(Ia[p][0], Ib[q][0].T), mul(Ia[p][1], Ib[q][1].T)
        ri, ir = mul(Ia[p][0], Ib[q][1].T), mul(Ia[p][1], Ib[q][0].T)
        return [rr - ii, ri + ir]

    np_ = 2 if cplx else 1
    acc = [np.zeros((m, n)) for _ in range(np_)]
    # ozaki1.h oz1_acc_scale: tiny products are summed 2^scale higher (no term subnormal),
    # huge ones lower (no partial sum overflows)
    base = ea[:, 0][:, None] + eb[:, 0][None, :]
    scale = np.where(base < -512, 512 - base, np.where(base > 976, 976 - base, 0))
    terms = 0
    for g in range(s - 1, -1, -1):  # p + q = g (0-based): group g + 2
        for c0 in range(0, g + 1, r):
            terms += 1
            X = [np.zeros((m, n), dtype=np.int64) for _ in range(np_)]
            for p in range(c0, min(c0 + r, g + 1)):
                for t, v in enumerate(pair(p, g - p)):
                    X[t] += v
            shift = ea[:, c0][:, None] + eb[:, g - c0][None, :] + scale
            for t in range(np_):
                term = np.ldexp(X[t].astype(np.float64), shift)
                acc[t] = _last_sum(acc[t], term, scale) if g == 0 else acc[t] + term
    xr, xi = acc if cplx else (acc[0], None)
    if auto and info is not None:
        info["bound"] = report_bound(cplx, ratio, terms)
    return update(xr, xi, alpha, beta, c, cplx), None
