"""Reference tools for testing FP64 matrix-product emulation.

This module is the *oracle* used by the test-suite and the accuracy benchmarks:

* :func:`make_matrix` builds the test matrices of the Ozaki-scheme papers,
  ``a_ij = (rand - 0.5) * exp(phi * randn)``, whose exponent spread grows
  with ``phi``.
* :func:`exact_matmul` returns ``a @ b`` computed *exactly* and then rounded
  once (round to nearest, ties to even) to float64 / complex128.
* :func:`accurate_matmul` is the same oracle under the name used for large
  problem sizes (it is an alias, see its docstring).
* :func:`err_ab` and :func:`max_rel` are the error metrics.

It depends only on NumPy and the Python standard library on purpose: the
oracle must not share code (or bugs) with the library it judges.

How :func:`exact_matmul` is exact
---------------------------------
Every finite double is ``M * 2**e`` with an integer ``|M| < 2**53`` and
``e >= -1074``.  For each row ``i`` of ``a`` we take the smallest exponent
``sa_i`` of the lowest set bit among its entries, so the row is an integer
vector times ``2**sa_i`` (likewise each column ``j`` of ``b`` with ``sb_j``).
Then ``(a @ b)_ij = C_ij * 2**(sa_i + sb_j)`` with ``C`` the integer product.

``C`` is computed exactly by splitting each integer matrix into limbs of
``L`` bits, ``A = sum_p A_p 2**(L p)``, ``B = sum_q B_q 2**(L q)``, with
``|A_p|, |B_q| < 2**L`` and ``k * 2**(2L) <= 2**53``.  Every partial sum that
a float64 GEMM forms from ``A_p @ B_q`` is then an integer of magnitude at
most ``k * (2**L - 1)**2 < 2**53``, hence representable, so the BLAS result
is exact whatever its summation order or use of FMA.  The limb products are
gathered per ``d = p + q`` in int64 (no overflow, see ``_MAX_PAIRS``) and
recombined with Python integers.  When the bit widths are so large that the
limb approach would need too many GEMMs (entries of wildly different
magnitudes in one row/column), the integer product is computed directly with
NumPy object arrays of Python ints, which is exact by construction.

The final rounding of ``C_ij * 2**s`` uses CPython's ``float(int)`` (for
``s >= 0``) and ``int / int`` true division by ``2**-s`` (for ``s < 0``).
Both are correctly rounded (ties to even) in CPython, including subnormal
results, and raise ``OverflowError`` exactly when the rounded value would be
infinite, which we map to ``±inf``.  ``math.ldexp(float(C), s)`` is *not*
used because it rounds twice when the result is subnormal.
"""

from __future__ import annotations

import math
import os
import sys

import numpy as np

__all__ = ["make_matrix", "standard_normal", "exp", "exact_matmul", "accurate_matmul", "err_ab", "max_rel", "ideal_moduli"]

# Significand bits of a double.
_P = 53
# Largest k handled by one GEMM pass; longer inner dimensions are split into
# chunks so that the limbs stay reasonably wide (L >= 16 bits).
_K_CHUNK = 1 << 20
# Above this many (nonzero A limb, nonzero B limb) pairs the object-array
# fallback is used.  It also bounds the number of pairs sharing one d = p + q
# by sqrt(_MAX_PAIRS) = 64, so |S_d| <= 64 * 2**53 = 2**59 fits in int64.
_MAX_PAIRS = 4096



def _routed() -> bool:
    """Whether this process's BLAS calls may be routed through ozblas (the preload shim, or
    in-process activation): then the oracle's own float64 products must not be BLAS calls."""
    if "libozblas_preload" in os.environ.get("LD_PRELOAD", ""):
        return True
    act = sys.modules.get("ozblas.activation")
    return act is not None and act.status()["active"]


def _matmul(x, y):
    """x @ y for the oracle: the host BLAS, or NumPy's own loops (einsum without
    optimize never calls the BLAS) while the BLAS may be routed. The oracle's products
    are sums of small integers, exact in any order, so both give the same bits."""
    return np.einsum("ik,kj->ij", x, y) if _routed() else x @ y


# ---------------------------------------------------------------------------
# Test matrices
# ---------------------------------------------------------------------------


# The test data's elementary functions, by IEEE arithmetic alone. NumPy's np.exp/np.log run
# AVX-512 kernels where the CPU has them and libm elsewhere, which differ in the last bit (4.6%
# of np.exp's results at phi = 2 on one machine), and NumPy's normal sampler calls libm in its
# tails: test data drawn through them differ between machines, and so did the tests' verdicts.
# Here every step is a correctly rounded +, -, *, /, sqrt, floor, frexp or ldexp of NumPy's
# elementwise ufuncs (never fused), so the bits are the same on every machine; the functions
# need not be accurate, only reproducible (they are within a few ulps all the same).
_LN2 = 0.6931471805599453
_LN2_HI, _LN2_LO = 0.693145751953125, 1.4286068203094172e-06  # ln 2 = HI + LO, n HI exact
_EXP_TAYLOR = [1.0 / math.factorial(i) for i in range(18)]  # e^f on [0, ln 2): remainder < 1e-19
_ATANH_ODD = [1.0 / (2 * i + 1) for i in range(18)]  # atanh(t)/t on |t| <= 1/3: remainder < 1e-18


def _horner(coef, x):
    p = np.full_like(x, coef[-1])
    for c in coef[-2::-1]:
        p = p * x + c
    return p


def exp(x):
    """e**x elementwise, the same bits on every machine (for test data; within a few ulps of
    the true value): 2**n e**f, n = floor(x / ln 2), f = x - n ln 2 in about [0, ln 2]."""
    n = np.floor(x / _LN2)
    f = (x - n * _LN2_HI) - n * _LN2_LO
    return np.ldexp(_horner(_EXP_TAYLOR, f), n.astype(np.int32))


def _log(s):
    """log s for s > 0: s = m 2**e (frexp, m in [1/2, 1)), log m = 2 atanh((m - 1) / (m + 1))."""
    m, e = np.frexp(s)
    t = (m - 1.0) / (m + 1.0)
    return e * _LN2 + 2.0 * t * _horner(_ATANH_ODD, t * t)


def standard_normal(rng, size=None):
    """Standard normal draws from the Generator rng, the same bits on every machine (unlike
    rng.standard_normal, whose tails call libm): a float for size None, else an array of shape
    size; by Marsaglia's polar method on rng.random() pairs (a uniform double is 53 random bits
    times 2**-53, the same on every machine)."""
    if size is None:
        return float(standard_normal(rng, 1)[0])
    out = np.empty(size)
    flat, got = out.reshape(-1), 0
    while got < flat.size:
        want = flat.size - got
        uv = 2.0 * rng.random((2, want // 2 + 8 + want // 4)) - 1.0
        s = uv[0] * uv[0] + uv[1] * uv[1]
        ok = (s > 0.0) & (s < 1.0)
        u, v, s = uv[0][ok], uv[1][ok], s[ok]
        r = np.sqrt(-2.0 * _log(s) / s)
        g = np.stack([u * r, v * r], axis=1).reshape(-1)[:want]
        flat[got:got + g.size] = g
        got += g.size
    return out


def make_matrix(m, n, phi, seed=0, dtype=np.float64):
    """Random ``m x n`` test matrix of the Ozaki-scheme papers.

    ``a_ij = (rand - 0.5) * exp(phi * randn)`` with ``rand`` uniform on
    [0, 1) and ``randn`` standard normal, drawn from
    ``numpy.random.default_rng(seed)``.  Larger ``phi`` gives a wider spread
    of exponents (harder for the emulation).  For ``dtype=np.complex128`` the
    real part and then the imaginary part are drawn independently the same
    way.  The result is C-contiguous, with the same bits on every machine:
    ``randn`` and ``exp`` are computed by IEEE arithmetic alone (Marsaglia's
    polar method, a Taylor series), never by libm or NumPy's SIMD kernels,
    whose last bits differ between CPUs.
    """
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float64), np.dtype(np.complex128)):
        raise ValueError(f"dtype must be float64 or complex128, got {dt}")
    rng = np.random.default_rng(seed)

    def draw():
        u = rng.random((m, n))
        g = standard_normal(rng, (m, n))
        return (u - 0.5) * exp(phi * g)

    if dt == np.complex128:
        out = np.empty((m, n), dtype=np.complex128)
        out.real = draw()
        out.imag = draw()
    else:
        out = draw()
    return np.ascontiguousarray(out)


# ---------------------------------------------------------------------------
# Exact product
# ---------------------------------------------------------------------------


def _as_operand(x, name):
    """Validate one input: 2-D, finite, converted *exactly* to float64/complex128."""
    x = np.asarray(x)
    if x.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got shape {x.shape}")
    kind = x.dtype.kind
    if kind == "c":
        if x.dtype.itemsize > 16:  # long double complex would be rounded
            raise TypeError(f"{name}: unsupported dtype {x.dtype}")
        x = x.astype(np.complex128, copy=False)
    elif kind == "f":
        if x.dtype.itemsize > 8:  # long double would be rounded
            raise TypeError(f"{name}: unsupported dtype {x.dtype}")
        x = x.astype(np.float64, copy=False)
    elif kind in "biu":
        xf = x.astype(np.float64)
        # Integers of magnitude < 2**53 convert exactly; anything at or above
        # it converts to a float >= 2**53 (rounding is monotone), so this test
        # rejects every integer input that float64 cannot hold exactly.
        if xf.size and not np.all(np.abs(xf) < 2.0**_P):
            raise ValueError(f"{name}: integer entries must satisfy |x| < 2**53")
        x = xf
    else:
        raise TypeError(f"{name}: unsupported dtype {x.dtype}")
    if not np.isfinite(x).all():
        raise ValueError(f"{name} contains Inf or NaN; the exact oracle needs finite inputs")
    return x


def _decompose(x):
    """Write each row of a real float64 matrix as integers times 2**scale.

    Returns ``(sign, mant, off, top, scale)`` such that, exactly,
    ``x[i, j] == sign[i, j] * (mant[i, j] << off[i, j]) * 2**scale[i]``, with
    ``mant`` odd (or 0) and ``top[i, j]`` the bit length of
    ``mant[i, j] << off[i, j]``.
    """
    ax = np.abs(x)
    f, e = np.frexp(ax)  # ax = f * 2**e, f in [0.5, 1): f has <= 53 significant bits
    mant = np.ldexp(f, _P).astype(np.uint64)  # exact integer < 2**53 (subnormals too)
    expo = e.astype(np.int64) - _P
    nz = mant != 0
    # Strip trailing zero bits: the narrower the integers, the fewer limbs.
    low = mant & (~mant + np.uint64(1))  # lowest set bit (two's complement trick)
    tz = np.frexp(low.astype(np.float64))[1].astype(np.int64) - 1  # exact: power of 2
    tz = np.where(nz, tz, 0)
    mant >>= tz.astype(np.uint64)
    expo += tz
    bits = np.frexp(mant.astype(np.float64))[1].astype(np.int64)  # bit length, exact < 2**53
    big = np.iinfo(np.int64).max
    if x.shape[1]:
        scale = np.where(nz, expo, big).min(axis=1)
        scale = np.where(scale == big, 0, scale)  # all-zero rows
    else:
        scale = np.zeros(x.shape[0], dtype=np.int64)
    off = np.where(nz, expo - scale[:, None], 0)
    top = np.where(nz, off + bits, 0)
    sign = np.sign(x)
    return sign, mant, off, top, scale


def _occupied_limbs(off, top, L, nlimbs):
    """Indices of the L-bit limbs in which at least one entry has a set bit."""
    nzmask = top > 0
    lo = off[nzmask] // L
    hi = (top[nzmask] - 1) // L
    # Difference-array marking of the ranges [lo, hi] (bincount is fast).
    cover = np.bincount(lo, minlength=nlimbs + 1) - np.bincount(hi + 1, minlength=nlimbs + 1)
    return np.flatnonzero(np.cumsum(cover[:nlimbs]) > 0)


def _limb(dec, p, L):
    """Limb p (bits [pL, pL+L) of |integer|, with the sign) as float64."""
    sign, mant, off, _, _ = dec
    sh = p * L - off
    # Shifts are clipped to [0, 63] (NumPy shifts by >= 64 are undefined).
    # Clipping is harmless: mant < 2**53 so a right shift by >= 53 gives 0,
    # and a left shift by >= L leaves no bit below L for the mask.  A left
    # shift may wrap modulo 2**64, which does not affect the low L bits.
    r = np.clip(sh, 0, 63).astype(np.uint64)
    s = np.clip(-sh, 0, 63).astype(np.uint64)
    v = ((mant >> r) << s) & np.uint64((1 << L) - 1)
    return v.astype(np.float64) * sign


def _to_object_ints(dec):
    """The signed integer matrix ``sign * (mant << off)`` as Python ints."""
    sign, mant, off, _, _ = dec
    mag = np.left_shift(mant.astype(object), off.astype(object))
    return mag * sign.astype(np.int64).astype(object)


def _int_matmul(a, b):
    """Exact integer part of ``a @ b`` for real float64 ``a`` (m, k), ``b`` (k, n).

    Returns ``(C, sa, sb)``: ``C`` an (m, n) object array of Python ints and
    int64 vectors such that ``(a @ b)[i, j] == C[i, j] * 2**(sa[i] + sb[j])``
    exactly.
    """
    m, k = a.shape
    n = b.shape[1]
    da = _decompose(a)
    db = _decompose(b.T)  # columns of b share one scale each
    C = np.zeros((m, n), dtype=object)  # Python int 0 everywhere
    wa = int(da[3].max()) if da[3].size else 0
    wb = int(db[3].max()) if db[3].size else 0
    if wa == 0 or wb == 0:  # k == 0 or an all-zero operand
        return C, da[4], db[4]

    kc = min(k, _K_CHUNK)
    # Largest L with k * 2**(2L) <= 2**53: all GEMM partial sums stay exact.
    L = (_P - (kc - 1).bit_length()) // 2
    pa = _occupied_limbs(da[2], da[3], L, -(-wa // L))
    pb = _occupied_limbs(db[2], db[3], L, -(-wb // L))

    if len(pa) * len(pb) > _MAX_PAIRS:
        # Very wide integers: too many GEMMs; Python-int arithmetic is exact.
        C = _to_object_ints(da) @ _to_object_ints(db).T
        return C, da[4], db[4]

    nd = int(pa[-1] + pb[-1]) + 1
    # B limbs stacked as (len(pb) * n, k) so that one GEMM per A limb yields
    # the products with all B limbs at once.
    bstack = np.concatenate([_limb(db, int(q), L) for q in pb], axis=0)
    for k0 in range(0, k, kc):
        k1 = min(k, k0 + kc)
        S = np.zeros((nd, m, n), dtype=np.int64)
        bs = bstack[:, k0:k1]
        for p in pa:
            ap = _limb(da, int(p), L)[:, k0:k1]
            P = _matmul(ap, bs.T).reshape(m, len(pb), n)  # exact integers, |.| < 2**53
            for qi, q in enumerate(pb):
                S[p + q] += P[:, qi, :].astype(np.int64)
        # Horner recombination C += sum_d S_d 2**(L d) in Python ints.
        acc = np.zeros((m, n), dtype=object)
        shift = 1 << L
        for d in range(nd - 1, -1, -1):
            acc = acc * shift + S[d].astype(object)
        C = C + acc
    return C, da[4], db[4]


def _round_scaled(c, e):
    """Correctly rounded (ties to even) double nearest to ``c * 2**e``.

    ``c``, ``e`` are Python ints.  Overflow gives ``±inf``; underflow gives
    the correctly rounded subnormal or a signed zero.
    """
    if not c:
        return 0.0
    if e >= 0:
        if c.bit_length() + e > 1025:  # |c 2**e| >= 2**1024: certainly inf
            return (math.inf if c > 0 else -math.inf)
        try:
            return float(c << e)  # correctly rounded int -> float
        except OverflowError:  # raised exactly when the rounded value is inf
            return (math.inf if c > 0 else -math.inf)
    try:
        # CPython's int true division is correctly rounded, subnormals included.
        return c / (1 << -e)
    except OverflowError:
        return (math.inf if c > 0 else -math.inf)


_round_ufunc = np.frompyfunc(_round_scaled, 2, 1)


def _exact_real(a, b):
    """Exact-then-rounded ``a @ b`` for real float64 2-D arrays."""
    C, sa, sb = _int_matmul(a, b)
    m, n = C.shape
    if m == 0 or n == 0:
        return np.zeros((m, n), dtype=np.float64)
    # astype(object) turns the int64 exponents into Python ints (no overflow
    # in the shifts done by _round_scaled).
    E = (sa[:, None] + sb[None, :]).astype(object)
    return np.ascontiguousarray(_round_ufunc(C, E).astype(np.float64))


def exact_matmul(a, b):
    """Exact ``a @ b`` rounded once to the nearest double (ties to even).

    Parameters
    ----------
    a, b : array_like, 2-D, shapes (m, k) and (k, n)
        float64 or complex128 (also exactly representable smaller types);
        any memory order.  All entries must be finite.

    Returns
    -------
    numpy.ndarray, shape (m, n), C order
        float64, or complex128 when either input is complex.  For complex
        inputs the real part ``ar br - ai bi`` and the imaginary part
        ``ar bi + ai br`` are each computed exactly and rounded once.
        An exactly zero result is ``+0.0``; a result that overflows is
        ``±inf`` and one that underflows is the correctly rounded subnormal
        (or zero), as IEEE round-to-nearest would give.  ``k == 0`` gives
        zeros.

    Raises
    ------
    ValueError
        If an input is not 2-D, the shapes do not match, or an input holds
        Inf or NaN.
    """
    a = _as_operand(a, "a")
    b = _as_operand(b, "b")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"shape mismatch: {a.shape} @ {b.shape}")
    a_c = a.dtype.kind == "c"
    b_c = b.dtype.kind == "c"
    if not (a_c or b_c):
        return _exact_real(a, b)

    ar, ai = (a.real, a.imag) if a_c else (a, None)
    br, bi = (b.real, b.imag) if b_c else (b, None)
    # Each part is one exact real product of concatenated operands, so that
    # the sum of the two products is exact before the single rounding
    # (negating a double is exact).
    re_terms = [(ar, br)]
    im_terms = []
    if a_c and b_c:
        re_terms.append((-ai, bi))
    if b_c:
        im_terms.append((ar, bi))
    if a_c:
        im_terms.append((ai, br))

    def part(terms):
        A = np.concatenate([t[0] for t in terms], axis=1)
        B = np.concatenate([t[1] for t in terms], axis=0)
        return _exact_real(A, B)

    out = np.empty((a.shape[0], b.shape[1]), dtype=np.complex128)
    out.real = part(re_terms)
    out.imag = part(im_terms)
    return out


def accurate_matmul(a, b):
    """Reference product for large sizes: an alias of :func:`exact_matmul`.

    The exact path is fast enough for the large reference sizes
    (e.g. 128 x 16384 x 128 in well under 30 s), so no approximate method is
    needed: this function returns exactly what :func:`exact_matmul` returns
    (exact product, rounded once).
    """
    return exact_matmul(a, b)


# ---------------------------------------------------------------------------
# Error metrics
# ---------------------------------------------------------------------------


def _max_ratio(c_hat, c, den):
    """max_ij |c_hat - c|_ij / den_ij with the equal -> 0, x/0 -> inf rules."""
    with np.errstate(all="ignore"):
        diff = np.abs(c_hat - c).astype(np.float64)
        ratio = diff / den
        # |c_hat - c| can overflow although both are finite (e.g. 1e308 and
        # -1e308); redo those entries with halved operands (exact scaling
        # barring subnormals, which cannot be involved in an overflow).
        redo = ~np.isfinite(diff) & np.isfinite(c_hat) & np.isfinite(c)
        if np.any(redo):
            h = np.abs(np.broadcast_to(c_hat, redo.shape)[redo] * 0.5
                       - np.broadcast_to(c, redo.shape)[redo] * 0.5)
            ratio[redo] = (h / den[redo]) * 2.0
    equal = c_hat == c  # also covers equal infinities and 0/0
    ratio = np.where(equal, 0.0, ratio)
    # Unequal entries with a zero denominator, and unequal entries involving
    # NaN / Inf (which give nan ratios), count as infinitely wrong.
    ratio = np.where(~equal & ((den == 0) | np.isnan(ratio)), np.inf, ratio)
    return float(ratio.max()) if ratio.size else 0.0


def err_ab(c_hat, c, a, b):
    """Error relative to ``|a||b|``: ``max_ij |c_hat - c|_ij / (|a||b|)_ij``.

    ``|a||b|`` is computed in float64 from the elementwise absolute values
    (complex modulus for complex inputs).  Entries with ``(|a||b|)_ij == 0``
    contribute 0 if ``c_hat_ij == c_ij`` and inf otherwise; unequal entries
    involving NaN/Inf also count as inf.  Returns a Python float (0.0 for an
    empty product).
    """
    c_hat = np.asarray(c_hat)
    c = np.asarray(c)
    a = np.asarray(a)
    b = np.asarray(b)
    with np.errstate(all="ignore"):
        den = _matmul(np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))
    if c_hat.shape != den.shape or c.shape != den.shape:
        raise ValueError(
            f"shape mismatch: c_hat {c_hat.shape}, c {c.shape}, |a||b| {den.shape}")
    return _max_ratio(c_hat, c, den)


def max_rel(c_hat, c):
    """Maximum elementwise relative error ``max |c_hat - c| / |c|``.

    ``0/0`` (equal entries, ``c == 0``) counts as 0 and ``x/0`` (``x != 0``)
    as inf; unequal entries involving NaN/Inf count as inf.  Returns a Python
    float (0.0 for empty arrays).
    """
    c_hat = np.asarray(c_hat)
    c = np.asarray(c)
    if c_hat.shape != c.shape:
        raise ValueError(f"shape mismatch: c_hat {c_hat.shape}, c {c.shape}")
    den = np.abs(c).astype(np.float64)
    return _max_ratio(c_hat, c, den)


def ideal_moduli(a, b, scaling="accurate"):
    """The moduli count of an ideal rigorous bound of Ozaki II's truncation, for comparison
    with automatic precision (real float64 inputs): the fewest moduli whose bound
    ``max_ij (|dA||B| + |A'||dB|)_ij / (|A||B|)_ij`` is at most ``u = 2^-53``, from the exact
    remainders dA, dB of the executors' bits (the NumPy reference's, the same bits) against
    ``|A||B|`` in float64 (relative error below ``k u``: not itself rigorous). Any bound
    that holds for every sign pattern of the remainders is at least this one, so no such
    bound chooses fewer. None when no count up to the maximum reaches it."""
    import importlib

    from ._constants import MAX_MODULI

    ref = importlib.import_module("ozblas.reference.ozaki2")  # the module, not its function
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    pa, pb = [a], [b]
    Ea, _, _ = ref._stats(pa, 1)
    Eb, _, _ = ref._stats(pb, 0)
    cs_a, cs_b = ref._cs_half(pa, Ea, 1), ref._cs_half(pb, Eb, 0)
    G = None if scaling == "fast" else ref._ubound(pa, Ea, 1, 5) @ ref._ubound(pb, Eb, 0, 5)
    AB = np.abs(a) @ np.abs(b)
    for n in range(2, MAX_MODULI + 1):
        ba, bb = ref._bits(ref.lib.ozblas_ozaki2_engine_budget_bits(0, n), scaling, cs_a, cs_b,
                           G, 5)
        ua, ub = np.ldexp(1.0, Ea - ba)[:, None], np.ldexp(1.0, Eb - bb)[None, :]
        at, bt = np.trunc(a / ua) * ua, np.trunc(b / ub) * ub
        num = np.abs(a - at) @ np.abs(b) + np.abs(at) @ np.abs(b - bt)
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where(AB > 0, num / np.where(AB > 0, AB, 1.0), 0.0)
        if r.max() <= 2.0**-53:
            return n
    return None
