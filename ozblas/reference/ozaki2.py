"""Ozaki scheme II in NumPy: the executable specification of the native executors.

`ozaki2(a, b, ...)` follows the steps of native/src/numerics/ozaki2.h on op(A) = a and
op(B) = b given as matrices, and its result equals the C executors' bit for bit. It favours
clarity over speed: exact integer products with NumPy int64, the CRT with Python integers.
Intended for small sizes (up to ~128).
"""

from __future__ import annotations

import math

import numpy as np

from .._native import lib, load
from . import fp4
from ._common import _ilogb, _parts, operands, update

__all__ = ["ozaki2", "moduli"]

MAX_BITS = 320  # ozaki2.h OZ2_MAX_BITS
MAX_K = 1 << 28


ENGINES = ("int8", "fp4")
CX_MODULI = 22  # ozaki2.h OZ2_MAX_MODULI_CX


def moduli(n: int, engine: str = "int8") -> list[int]:
    load()
    return [lib.ozblas_ozaki2_engine_modulus(ENGINES.index(engine), t) for t in range(n)]


def _table(eng: int, cplx: bool, n: int):
    """ozaki2_table.c oz2_table_call: (moduli, budget, two) of the table a call with moduli
    count n takes; two: the complex set's two products per modulus (ozaki2.h
    OZ2_MAX_MODULI_CX), else the engine's set (Karatsuba for complex)."""
    cnt = lib.ozblas_ozaki2_complex_count(eng, n) if cplx else 0
    if cnt:
        return ([lib.ozblas_ozaki2_complex_modulus(t) for t in range(cnt)],
                lib.ozblas_ozaki2_complex_budget_bits(cnt), True)
    return (moduli(n, ENGINES[eng]), lib.ozblas_ozaki2_engine_budget_bits(eng, n), False)


def _rung(eng: int, cplx: bool, r: int):
    """ozaki2_table.c oz2_auto_table: automatic precision's rung r as _table's triple. A
    complex call on INT8 walks the complex set's counts (2 to 22), then Karatsuba on the real
    counts past it (rung 23: the first real count the complex set cannot hold); every other
    call the real counts."""
    if not (cplx and eng == 0):
        return _table(eng, cplx, r)
    if r <= CX_MODULI:
        return ([lib.ozblas_ozaki2_complex_modulus(t) for t in range(r)],
                lib.ozblas_ozaki2_complex_budget_bits(r), True)
    return _table(eng, False, _first_karatsuba(eng) + r - CX_MODULI - 1)


def _first_karatsuba(eng: int) -> int:
    n = 2
    while n < lib.ozblas_ozaki2_engine_max_moduli(eng) and lib.ozblas_ozaki2_complex_count(eng, n):
        n += 1
    return n


def auto_rung(eng: int, cplx: bool, n: int) -> int:
    """ozaki2_table.c oz2_auto_rung: the rung of real count n."""
    if not (cplx and eng == 0) or n < 2:
        return n
    k = _first_karatsuba(eng)
    return lib.ozblas_ozaki2_complex_count(eng, n) if n < k else CX_MODULI + 1 + n - k


def _i_m(m: int) -> int:
    """The smallest i with i^2 = -1 (mod m) (any root gives the same parts of C)."""
    return next(i for i in range(1, m) if (i * i + 1) % m == 0)


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
        out[idx] = _round_once(X, int(shift[idx]))
    return out


def _round_once(X: int, shift: int) -> float:
    """X 2^shift rounded once to the nearest double, subnormal and overflowing results
    included (np.ldexp(float(X), shift) rounds twice below 2^-1022). CPython's int true
    division and int -> float conversion are correctly rounded; each raises OverflowError
    exactly when the rounded value is infinite."""
    try:
        return X / (1 << -shift) if shift < 0 else float(X << shift)
    except OverflowError:
        return math.copysign(math.inf, X)


def _bits(budget, scaling, cs_a, cs_b, G, ushift):
    """Step 2 for a moduli budget: fast, or accurate from the product bound G."""
    beta0 = _bits_fast(cs_b, budget - budget // 2)
    if scaling == "fast":
        return _bits_fast(cs_a, budget // 2), beta0
    h = np.minimum(_bitlen(G) - 2 * ushift, cs_a[:, None] + cs_b[None, :] - 32)
    bits_a = np.minimum((budget - h - beta0[None, :]).min(axis=1), MAX_BITS)
    bits_b = np.minimum((budget - h - bits_a[:, None]).min(axis=0), MAX_BITS)
    return bits_a, bits_b


def _herm_bits(herm, bits_a, bits_b):
    """ozaki2.h oz2_herm_bits: a Hermitian product keeps the smaller bits on both sides."""
    if not herm:
        return bits_a, bits_b
    both = np.minimum(bits_a, bits_b)
    return both, both.copy()


def _loses(E, emin, bits) -> bool:
    big = np.iinfo(np.int64).max
    return bool(np.any((emin != big) & (emin < E - bits)))


# Automatic precision (ozaki2.h: oz2_abs_term, oz2_lbound, the lower-bound levels,
# oz2_bound_ratio)
TARGET = 2.0 ** -53
LSHIFT, LSHIFT2, LSTEP, MAX_LEVELS, LEVEL1_BELOW = 6, 11, 7, 6, 1024.0


def _level_shift(p):
    return LSHIFT if p == 0 else LSHIFT2 + LSTEP * (p - 1)


def _norm1(parts, E, axis):
    """Fixed-point 1-norm per row/column: sum of ceil(|x| 2^(32 - E)) + 1 over nonzeros."""
    N = np.zeros(E.shape, dtype=np.uint64)
    for p in parts:
        t = np.ceil(np.ldexp(np.abs(p), 32 - _expand(E, axis))).astype(np.uint64) + np.uint64(1)
        N += np.where(p != 0, t, np.uint64(0)).sum(axis=axis, dtype=np.uint64)
    return N


def _lbound(parts, E, axis, shift):
    ax = np.max(np.stack([np.abs(p) for p in parts]), axis=0)
    return np.minimum(np.floor(np.ldexp(ax, shift - _expand(E, axis))), 127).astype(np.int64)


def _lower_product(pa, pb, Ea, Eb, emin_a, emin_b, Na, Nb):
    """The combined lower-bound levels (cpu_ozaki2.c lower_product, a level more while an
    entry asks for one: oz2_lower_unresolved): (G, levels taken)."""
    big = np.iinfo(np.int64).max
    nz = (Na != 0)[:, None] & (Nb != 0)[None, :]
    G = None
    for p in range(MAX_LEVELS):
        sh = _level_shift(p)
        P = (_lbound(pa, Ea, 1, sh) @ _lbound(pb, Eb, 0, sh)).astype(np.float64)
        G = P if G is None else np.maximum(G, np.ldexp(P, -2 * (sh - LSHIFT)))
        res = ((emin_a == big) | (Ea - emin_a <= sh))[:, None] & \
              ((emin_b == big) | (Eb - emin_b <= sh))[None, :]
        known_zero = (G == 0) & res  # oz2_lower_unresolved
        ask = (G < LEVEL1_BELOW) if p == 0 else ((G == 0) & ~res)
        if not np.any(ask & nz & ~known_zero):
            break
    return np.where((G == 0) & res, np.inf, G), p + 1


def _lsb(parts, axis):
    """oz2_lsb_element per row/column: the smallest exponent of a lowest set bit (big: none)."""
    big = np.iinfo(np.int64).max
    out = None
    for p in parts:
        f, e = np.frexp(np.abs(p))
        M = np.ldexp(f, 53).astype(np.uint64)
        low = np.where(p != 0, e.astype(np.int64) - 53 + _bitlen(M & (~M + np.uint64(1))) - 1, big)
        low = low.min(axis=axis)
        out = low if out is None else np.minimum(out, low)
    return out


# The refinement (ozaki2.h "automatic precision's refinement": oz2_top_*, oz2_refine_term,
# oz2_refined_ratio, oz2_refine_asked), in the C executors' order of operations
TOP, REFINE_SHARE, TINY = 16, 16, 2.0 ** -900


def _top(parts, E, N, axis):
    """Per row (axis=1) or column (axis=0): the indices of its TOP largest nonzero elements
    by the larger part's magnitude, ties to the smaller index (-1 past the count), and its
    1-norm without them (N1's fixed point)."""
    X = [p if axis == 0 else p.T for p in parts]  # k x cols
    key = np.max(np.stack([np.abs(x) for x in X]), axis=0)
    order = np.argsort(-key, axis=0, kind="stable")[:TOP]
    taken = np.take_along_axis(key, order, 0) > 0
    idx = np.full((key.shape[1], TOP), -1, dtype=np.int64)  # cols x TOP
    idx[:, :order.shape[0]] = np.where(taken, order, -1).T
    rest = N.copy()
    Ec = E[None, :]
    for x in X:
        t = np.ceil(np.ldexp(np.abs(x), 32 - Ec)).astype(np.uint64) + np.uint64(1)
        t = np.where(x != 0, t, np.uint64(0))
        rest -= np.where(taken, np.take_along_axis(t, order, 0), np.uint64(0)).sum(
            axis=0, dtype=np.uint64)
    return idx, rest


def _rel_up(x, E):
    y = np.ldexp(np.abs(x), -E)
    return np.where(y < TINY, np.where(x == 0, 0.0, 2 * TINY), y)


def _rel_down(x, E):
    y = np.ldexp(np.abs(x), -E)
    return np.where(y < TINY, 0.0, y)


def _rel_rem(x, E, bits):
    y = np.ldexp(np.abs(x), -E)
    with np.errstate(over="ignore", invalid="ignore"):
        r = y - np.ldexp(np.trunc(np.ldexp(y, bits)), -bits)
    return np.where(y < TINY, np.where(x == 0, 0.0, 2 * TINY), r)


def _refine(cplx, pa, pb, tops, Ea, Eb, ba, bb, ua, ub, Glo, r0, I, J):
    """Refined ratios of entries (I, J) (arrays of indices) with first ratios r0."""
    (ia, ra), (ib, rb) = tops
    up = np.zeros(len(I))
    lo = [np.zeros(len(I)), np.zeros(len(I))]
    E, F = Ea[I], Eb[J]
    bits_a, bits_b = ba[I], bb[J]
    rem_a, rem_b = ua[I] != 0, ub[J] != 0  # oz2_refine_term's OZ2_EXACT: no remainder
    for side, lists in ((1, ib[J]), (0, ia[I])):  # column j's list first (a's remainders)
        for s in range(TOP):
            L = lists[:, s]
            ok = L >= 0
            Ls = np.where(ok, L, 0)
            av = [p[I, Ls] for p in pa]
            bv = [p[Ls, J] for p in pb]
            if side:
                x = sum(np.where(rem_a, _rel_rem(v, E, bits_a), 0.0) for v in av)
                y = sum(_rel_up(v, F) for v in bv)
            else:
                x = sum(_rel_up(v, E) for v in av)
                y = sum(np.where(rem_b, _rel_rem(v, F, bits_b), 0.0) for v in bv)
            la = np.max(np.stack([_rel_down(v, E) for v in av]), axis=0)
            lb = np.max(np.stack([_rel_down(v, F) for v in bv]), axis=0)
            up = up + np.where(ok, x * y, 0.0)
            lo[side] = lo[side] + np.where(ok, la * lb, 0.0)
    c = 2.0 if cplx else 1.0
    num = up * (1.0 + 2.0 ** -40) + c * np.ldexp(rb[J].astype(np.float64) * ua[I] +
                                                 ra[I].astype(np.float64) * ub[J], -32)
    den = np.maximum(np.ldexp(Glo[I, J], -12), np.maximum(lo[0], lo[1]) * (1.0 - 2.0 ** -40))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = num / den
    return np.where(den > 0, np.minimum(r, r0), r0)


def norm_rootk(cplx, k):
    """ozaki2.h oz2_norm_rootk: sqrt(K) rounded up, K = k real or 2k complex parts."""
    return float(np.sqrt(float(2 * k if cplx else k))) * (1.0 + 2.0**-52)


def norm_factor(N, rootk):
    """min(2^-32 N, sqrt K) per row or column (oz2_norm_ratio's factors)."""
    return np.minimum(np.ldexp(N.astype(np.float64), -32), rootk)


def _max_ratio(cplx, bits_a, bits_b, Ea, Eb, emin_a, emin_b, Na, Nb, Glo, lsb_a, lsb_b,
               refine=None, rootk=None) -> float:
    """The bound ratio's max over C; refine: (pa, pb, cache) to refine it where few entries
    exceed the target (the cache keeps the lists). Glo None: the normwise target
    (ozaki2.h oz2_norm_ratio, rootk its sqrt K; no lower bound, nothing refined)."""
    c = 2.0 if cplx else 1.0
    big = np.iinfo(np.int64).max
    zero = (Na == 0)[:, None] | (Nb == 0)[None, :]
    # oz2_ratio_terms: an exact truncation (every element a multiple of its unit) has no term
    exact_a = (lsb_a != big) & (lsb_a >= Ea - bits_a)
    exact_b = (lsb_b != big) & (lsb_b >= Eb - bits_b)
    # zero rows/columns have no nonzero exponent; any finite stand-in is masked out below
    ea = np.where(Na == 0, Ea, emin_a)
    eb = np.where(Nb == 0, Eb, emin_b)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        ua = np.where(exact_a, 0.0, np.ldexp(1.0, -bits_a))
        ub = np.where(exact_b, 0.0, np.ldexp(1.0, -bits_b))
        sa = np.where(exact_a, 0.0, np.ldexp(1.0, Ea - ea - bits_a))
        sb = np.where(exact_b, 0.0, np.ldexp(1.0, Eb - eb - bits_b))
        span = c * (sa[:, None] + sb[None, :])
        if Glo is None:
            fa, fb = norm_factor(Na, rootk), norm_factor(Nb, rootk)
            r = np.where(zero, 0.0, c * (ua[:, None] * fb[None, :] + ub[None, :] * fa[:, None]))
            return float(r.max()) if r.size else 0.0
        s = Nb.astype(np.float64)[None, :] * ua[:, None] + Na.astype(np.float64)[:, None] * ub[None, :]
        r = c * np.ldexp(s, -20) / Glo
    r = np.where(zero, 0.0, np.where(Glo == 0, span, np.minimum(r, span)))
    rmax = float(r.max()) if r.size else 0.0
    over = int(np.count_nonzero(r > TARGET))
    if refine is None or not (rmax > TARGET and over * REFINE_SHARE <= r.size):
        return rmax
    pa, pb, cache = refine
    if "tops" not in cache:
        cache["tops"] = (_top(pa, Ea, Na, 1), _top(pb, Eb, Nb, 0))
    I, J = np.nonzero(r > TARGET)
    r[I, J] = _refine(cplx, pa, pb, cache["tops"], Ea, Eb, bits_a, bits_b, ua, ub, Glo,
                      r[I, J], I, J)
    return float(r.max())


def auto_count(lo, hi, hint, meets) -> int:
    """oz_defs.h oz_auto_count: the same walk from hint, the last call for the returned count."""
    n = hint
    if meets(n):
        while n > lo and meets(n - 1):
            n -= 1
        if n > lo:
            meets(n)
        return n
    while n < hi:
        n += 1
        if meets(n):
            return n
    return 0




def _report_bound(cplx, r) -> float:
    u = 2.0 ** -53
    return (r + (2.0 if cplx else 1.0) * u * (1.0 + r)) * (1.0 + 2.0 ** -40)


def _product(x, y, m, engine):
    """The residue product on the engine: INT8 exactly, or FP4 limbs (fp4.product)."""
    return x @ y if engine == "int8" else fp4.product(x, y, fp4.residue_limbs(m)).astype(np.int64)


def her2k_operands(x, y, alpha):
    """core/driver_ozaki2.c oz_her2k_operands: (Z, W, ga) with Z W^H ga = alpha x y^H +
    conj(alpha) y x^H, W = Z J (W^H is ozaki2's b for herm "swap"): Z = [a x 2^s, y 2^-s],
    a = alpha when complex (rounded into x), ga = alpha when real; s balances the halves'
    largest magnitudes where powers of two stay exact."""
    alpha = complex(alpha)
    real = alpha.imag == 0.0
    x = np.asarray(x, np.complex128)
    xa = x if real else (alpha.real * x.real - alpha.imag * x.imag) + 1j * (
        alpha.real * x.imag + alpha.imag * x.real)  # as C's, no fused complex product
    y = np.asarray(y, np.complex128)

    def extent(v):
        m = np.abs(np.concatenate([v.real.ravel(), v.imag.ravel()]))
        nz = m[m > 0]
        return (m.max() if m.size else 0.0), (nz.min() if nz.size else np.finfo(float).max)

    (hx, lx), (hy, ly) = extent(xa), extent(y)
    s = 0
    if hx > 0 and hy > 0 and np.isfinite(hx) and np.isfinite(hy):
        s = int((_ilogb(hy) - _ilogb(hx)) / 2)  # C's division truncates toward zero
    big = np.finfo(float).max
    if (np.ldexp(ly if s > 0 else lx, -abs(s)) < np.finfo(float).tiny
            or np.ldexp(hx if s > 0 else hy, abs(s)) > big / 4):
        s = 0
    z = np.hstack([np.ldexp(xa.real, s) + 1j * np.ldexp(xa.imag, s),
                   np.ldexp(y.real, -s) + 1j * np.ldexp(y.imag, -s)])
    k = xa.shape[1]
    return z, np.hstack([z[:, k:], z[:, :k]]), (alpha.real if real else 1.0)


def ozaki2(a, b, *, moduli=16, scaling: str = "accurate", alpha=1.0, beta=0.0, c=None,
           info: dict | None = None, engine: str = "int8", target: str = "entrywise",
           herm: bool | str = False):
    """alpha a @ b + beta c by Ozaki II. Returns (result, fallback) where fallback is None or
    the reason the C executors would compute this call natively (result is then None).
    moduli "auto" (or 0) takes the fewest moduli whose bound meets the target ("entrywise":
    DGEMM-level; "normwise": ozblas_options.target's OZBLAS_TARGET_NORMWISE); info, if given,
    receives the moduli count and the bound, as the C report states them. herm: b is a's
    conjugate transpose read from the same memory (C's oz_gemm_call.herm): both sides keep
    the smaller bits (ozaki2.h oz2_herm_bits), and on the complex set one product per
    modulus, P = A+ (A-)^T, gives P+ = P and P- = P^T. herm "swap": b is (a J)^H, J swapping
    the two halves of the inner index (HER2K's [alpha A, B] [B, alpha A]^H, C's herm 2): the
    same with P = A+ (A- J)^T (ozaki2.h oz2_products_per_call_modulus)."""
    if target not in ("entrywise", "normwise"):
        raise ValueError(f"target must be 'entrywise' or 'normwise', got {target!r}")
    a, b, cplx = operands(a, b, alpha, beta)
    m, k = a.shape
    n = b.shape[1]
    if k > (MAX_K // 2 if cplx else MAX_K):
        return None, "k too large for the scaling bounds"
    load()
    eng = ENGINES.index(engine)
    pa, pb = _parts(a), _parts(b)
    Ea, emin_a, bad_a = _stats(pa, 1)
    Eb, emin_b, bad_b = _stats(pb, 0)
    if bad_a or bad_b:
        return None, "nonfinite input"
    cs_a, cs_b = _cs_half(pa, Ea, 1), _cs_half(pb, Eb, 0)
    ushift = 4 if cplx else 5
    G = None if scaling == "fast" else _ubound(pa, Ea, 1, ushift) @ _ubound(pb, Eb, 0, ushift)
    if str(moduli).lower() in ("auto", "0"):
        Na, Nb = _norm1(pa, Ea, 1), _norm1(pb, Eb, 0)
        Glo = (None if target == "normwise"
               else _lower_product(pa, pb, Ea, Eb, emin_a, emin_b, Na, Nb)[0])
        lsb_a, lsb_b = _lsb(pa, 1), _lsb(pb, 0)
        state = {}

        def meets(nmod):
            ba, bb = _herm_bits(herm, *_bits(_rung(eng, cplx, nmod)[1], scaling, cs_a, cs_b,
                                             G, ushift))
            # the bound covers elements the count loses entirely (driver_auto.c meets)
            state["bits"] = (ba, bb)
            state["ratio"] = _max_ratio(cplx, ba, bb, Ea, Eb, emin_a, emin_b, Na, Nb, Glo, lsb_a,
                                        lsb_b, (pa, pb, state), norm_rootk(cplx, k))
            return state["ratio"] <= TARGET

        rung = auto_count(2, auto_rung(eng, cplx, lib.ozblas_ozaki2_engine_max_moduli(eng)),
                          auto_rung(eng, cplx, lib.ozblas_ozaki2_engine_auto_hint(eng)), meets)
        if info is not None:
            info.update(moduli=len(_rung(eng, cplx, rung)[0]) if rung else 0,
                        bound=_report_bound(cplx, state["ratio"]))
        if not rung:
            return None, "no count meets DGEMM-level accuracy"
        bits_a, bits_b = state["bits"]
        ms, _, two = _rung(eng, cplx, rung)
    else:
        bits_a, bits_b = _herm_bits(herm, *_bits(_table(eng, cplx, moduli)[1], scaling, cs_a,
                                                 cs_b, G, ushift))
        if _loses(Ea, emin_a, bits_a) or _loses(Eb, emin_b, bits_b):
            return None, "exponent range beyond the scaling"
        ms, _, two = _table(eng, cplx, moduli)
    ea = bits_a - Ea
    eb = bits_b - Eb
    sa = [np.trunc(np.ldexp(p, ea[:, None])) for p in pa]
    sb = [np.trunc(np.ldexp(p, eb[None, :])) for p in pb]
    res_re, res_im = [], []
    for mt in ms:
        ra = [_residue(p, mt) for p in sa]
        rb = [_residue(p, mt) for p in sb]
        if not cplx:
            res_re.append(_sym(_product(ra[0], rb[0], mt, engine), mt))
        elif two:  # A+- = A_r +- i A_i; C_r = (P+ + P-) / 2, C_i = (P+ - P-) / (2 i)
            i = _i_m(mt)
            if herm:  # b's B+ is (A-)^T (or (A- J)^T): one product, P- = P+^T
                am = _sym(ra[0] - i * ra[1], mt)
                if herm == "swap":
                    am = np.roll(am, k // 2, axis=1)
                pp = _product(_sym(ra[0] + i * ra[1], mt), am.T, mt, engine)
                pm = pp.T
            else:
                pp = _product(_sym(ra[0] + i * ra[1], mt), _sym(rb[0] + i * rb[1], mt), mt,
                              engine)
                pm = _product(_sym(ra[0] - i * ra[1], mt), _sym(rb[0] - i * rb[1], mt), mt,
                              engine)
            res_re.append(_sym((pp + pm) * pow(2, -1, mt), mt))
            res_im.append(_sym((pp - pm) * pow(2 * i, -1, mt), mt))
        else:
            t1 = _product(ra[0], rb[0], mt, engine)
            t2 = _product(ra[1], rb[1], mt, engine)
            t3 = _product(_sym(ra[0] + ra[1], mt), _sym(rb[0] + rb[1], mt), mt, engine)
            res_re.append(_sym(t1 - t2, mt))
            res_im.append(_sym(t3 - t1 - t2, mt))
    shift = -ea[:, None] - eb[None, :]
    xr = _crt(res_re, ms, shift)
    xi = _crt(res_im, ms, shift) if cplx else None
    return update(xr, xi, alpha, beta, c, cplx), None
