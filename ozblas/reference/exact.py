"""Exact products in NumPy and Python integers: the executable specification of
native/src/numerics/exact.h and cpu/cpu_exact.c (accuracy "correct" and matmul_dd).

`exact(a, b)` follows the C steps on op(A) = a and op(B) = b: per row/column the lowest set
bit and the bits `top`, the moduli count, symmetric residues, exact products per k-block
(NumPy int64), the CRT (Python integers), one rounding; rows or columns with Inf/NaN or too
wide for the largest count by exact dot products (fractions). Complex products take the
complex family (moduli with a square root of -1: two products per modulus, A+- = A_r +- i A_i)
where it leaves no more entries direct than the real family and needs fewer products
(2 N' < 3 N), Karatsuba on the real family otherwise. Its results equal the C ones bit for
bit (both are the exact value rounded once), and its count, products per modulus and
direct-entry count equal the C report's. Small sizes only.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .._native import lib, load

__all__ = ["exact", "exact_moduli", "exact_moduli_cx", "KBLOCK"]

KBLOCK = 2048


def exact_moduli(n: int) -> list[int]:
    load()
    return [lib.ozblas_exact_modulus(t) for t in range(n)]


def exact_moduli_cx(n: int) -> list[int]:
    """The complex family's first n moduli (each with a square root of -1)."""
    load()
    return [lib.ozblas_exact_modulus_cx(t) for t in range(n)]


def _max_count(family) -> int:
    n = 0
    while family(n + 1)[-1]:
        n += 1
    return n


def _budget(n: int, family=exact_moduli) -> int:
    return math.prod(family(n)).bit_length() - 2


def _sqrt_minus_one(p: int) -> int:
    """An i with i^2 = -1 (mod p), p a prime 1 (mod 4): c^((p-1)/4) for a non-residue c."""
    c = 2
    while pow(c, (p - 1) // 2, p) != p - 1:
        c += 1
    i = pow(c, (p - 1) // 4, p)
    assert (i * i + 1) % p == 0
    return i


def _low_bit(x: float) -> int:
    num, den = abs(x).as_integer_ratio()  # den a power of two, num odd or x an integer
    return (num & -num).bit_length() - 1 - (den.bit_length() - 1)


def _stats(parts, axis):
    """Per outer index: (low, top, bad), as ozx_stat_element / ozx_top_bits."""
    outer = parts[0].shape[1 - axis]
    low, top, bad = [], [], []
    for o in range(outer):
        vals = [float(p[o, l] if axis == 1 else p[l, o]) for p in parts
                for l in range(parts[0].shape[axis])]
        fin = [v for v in vals if math.isfinite(v)]
        nz = [v for v in fin if v != 0.0]
        bad.append(len(fin) != len(vals))
        if not nz:
            low.append(0)
            top.append(0)
            continue
        lo = min(_low_bit(v) for v in nz)
        low.append(lo)
        top.append(math.frexp(max(abs(v) for v in nz))[1] - lo)  # ilogb(max) + 1 - low
    return low, top, bad


def _ceil_log2(v: int) -> int:
    return (v - 1).bit_length()


def _sym(x, m):
    r = x % m
    return np.where(r > m // 2, r - m, r)


def _scaled(p, low, axis):
    """The integers p * 2^-low (row-wise for axis=1, column-wise for axis=0), as objects."""
    out = np.empty(p.shape, dtype=object)
    for idx in np.ndindex(p.shape):
        v = float(p[idx])
        o = idx[0] if axis == 1 else idx[1]
        if v == 0.0 or not math.isfinite(v):
            out[idx] = 0
        else:
            f = Fraction(v) * Fraction(2) ** (-low[o])
            assert f.denominator == 1
            out[idx] = f.numerator
    return out


def _round(f: Fraction) -> float:
    try:
        return float(f)  # int / int true division: correctly rounded, subnormals included
    except OverflowError:
        return math.inf if f > 0 else -math.inf


def _finish(f: Fraction, dd: bool):
    hi = _round(f)
    if not dd:
        return hi, 0.0
    if not math.isfinite(hi):
        return hi, 0.0
    return hi, _round(f - Fraction(hi))


def _direct(ar, ai, br, bi, cx):
    """Exact dot products of one row and one column with IEEE special values."""
    terms = [[(ar, br)], []]
    if cx:
        terms = [[(ar, br), (-ai, bi)], [(ar, bi), (ai, br)]]
    out = []
    for part in terms[: 2 if cx else 1]:
        nan = pinf = ninf = False
        s = Fraction(0)
        for x, y in part:
            for u, v in zip(x, y):
                u, v = float(u), float(v)
                if not (math.isfinite(u) and math.isfinite(v)):
                    p = u * v
                    nan |= p != p
                    pinf |= p > 0
                    ninf |= p < 0
                else:
                    s += Fraction(u) * Fraction(v)
        if nan or (pinf and ninf):
            out.append(math.nan)
        elif pinf or ninf:
            out.append(math.inf if pinf else -math.inf)
        else:
            out.append(s)
    return out


def _count(family, clog, top_a, direct_a, top_b, direct_b):
    """Step 2 on a family of moduli: (N, direct_a, direct_b), the rows and columns too wide
    for its largest count made direct."""
    big = _budget(_max_count(family), family) - clog

    def maxtop(top, direct):
        return max([t for t, d in zip(top, direct) if not d], default=0)

    ta, tb = maxtop(top_a, direct_a), maxtop(top_b, direct_b)
    if ta + tb > big:
        cap_a, cap_b = big // 2, big - big // 2
        if tb <= cap_b:
            cap_a = big - tb
        elif ta <= cap_a:
            cap_b = big - ta
        direct_a = [d or t > cap_a for d, t in zip(direct_a, top_a)]
        direct_b = [d or t > cap_b for d, t in zip(direct_b, top_b)]
        ta, tb = maxtop(top_a, direct_a), maxtop(top_b, direct_b)
    N = 0
    if ta > 0 and tb > 0:
        N = 1
        while _budget(N, family) < clog + ta + tb:
            N += 1
    return N, direct_a, direct_b


def exact(a, b, *, dd: bool = False):
    """op(A) op(B) = a @ b exactly, rounded once: float64/complex128 array, or (hi, lo) with
    dd=True. Returns (result, info) with info = {"moduli": N, "direct_entries": count,
    "complex_products": 2 or 3 for complex, else None}."""
    a = np.asarray(a)
    b = np.asarray(b)
    cx = np.iscomplexobj(a) or np.iscomplexobj(b)
    if cx:
        a, b = a.astype(np.complex128), b.astype(np.complex128)
    pa = [a.real.copy(), a.imag.copy()] if cx else [a]
    pb = [b.real.copy(), b.imag.copy()] if cx else [b]
    m, k = a.shape
    n = b.shape[1]
    low_a, top_a, direct_a = _stats(pa, 1)
    low_b, top_b, direct_b = _stats(pb, 0)

    clog = _ceil_log2((2 if cx else 1) * k)
    N, direct_a2, direct_b2 = _count(exact_moduli, clog, top_a, direct_a, top_b, direct_b)
    family = exact_moduli
    if cx:
        N2, da, db = _count(exact_moduli_cx, clog, top_a, direct_a, top_b, direct_b)
        if 2 * N2 < 3 * N and (da, db) == (direct_a2, direct_b2):
            N, family = N2, exact_moduli_cx
    direct_a, direct_b = direct_a2, direct_b2

    # residues and exact products per modulus and k-block
    ia = [_scaled(p, low_a, 1) for p in pa]
    ib = [_scaled(p, low_b, 0) for p in pb]
    for i, d in enumerate(direct_a):
        if d:
            for p in ia:
                p[i, :] = 0
    for j, d in enumerate(direct_b):
        if d:
            for p in ib:
                p[:, j] = 0
    mods = family(N)
    res = []  # per modulus: [re, im] symmetric residues of X
    for mt in mods:
        ra = [_sym(p, mt).astype(np.int64) for p in ia]
        rb = [_sym(p, mt).astype(np.int64) for p in ib]
        prods = [np.zeros((m, n), dtype=np.int64) for _ in range(2 if cx else 1)]
        if family is exact_moduli_cx:
            ip = _sqrt_minus_one(mt)
            ra = [_sym(ra[0] + ip * ra[1], mt), _sym(ra[0] - ip * ra[1], mt)]
            rb = [_sym(rb[0] + ip * rb[1], mt), _sym(rb[0] - ip * rb[1], mt)]
        for l0 in range(0, k, KBLOCK):
            s = slice(l0, l0 + KBLOCK)
            if family is exact_moduli_cx:  # X_r = (P+ + P-) / 2, X_i = (P+ - P-) / (2 i)
                pp = _sym(ra[0][:, s] @ rb[0][s], mt)
                pm = _sym(ra[1][:, s] @ rb[1][s], mt)
                blk = [(pp + pm) * pow(2, -1, mt), (pp - pm) * pow(2 * ip, -1, mt)]
            elif cx:
                p1 = ra[0][:, s] @ rb[0][s]
                p2 = ra[1][:, s] @ rb[1][s]
                p3 = _sym(ra[0][:, s] + ra[1][:, s], mt) @ _sym(rb[0][s] + rb[1][s], mt)
                blk = [p1 - p2, p3 - p1 - p2]
            else:
                blk = [ra[0][:, s] @ rb[0][s]]
            for q in range(len(prods)):
                prods[q] = _sym(prods[q] + _sym(blk[q], mt), mt)
        res.append(prods)
    M = math.prod(mods)
    w = [(M // mt) * pow(M // mt, -1, mt) for mt in mods]

    dt = np.complex128 if cx else np.float64
    hi = np.zeros((m, n), dtype=dt)
    lo = np.zeros((m, n), dtype=dt)
    direct = 0
    for i in range(m):
        for j in range(n):
            if direct_a[i] or direct_b[j]:
                direct += 1
                vals = _direct(pa[0][i, :], pa[1][i, :] if cx else None,
                               pb[0][:, j], pb[1][:, j] if cx else None, cx)
                fin = [(_finish(v, dd) if isinstance(v, Fraction) else (v, 0.0)) for v in vals]
            elif N and top_a[i] and top_b[j]:
                fin = []
                for q in range(2 if cx else 1):
                    X = sum(int(res[t][q][i, j]) % mods[t] * w[t] for t in range(N)) % M
                    if X > M // 2:
                        X -= M
                    fin.append(_finish(Fraction(X) * Fraction(2) ** (low_a[i] + low_b[j]), dd))
            else:
                fin = [(0.0, 0.0)] * (2 if cx else 1)
            if cx:
                hi[i, j] = complex(fin[0][0], fin[1][0])
                lo[i, j] = complex(fin[0][1], fin[1][1])
            else:
                hi[i, j], lo[i, j] = fin[0]
    info = {"moduli": N, "direct_entries": direct,
            "complex_products": (2 if family is exact_moduli_cx else 3) if cx else None}
    return ((hi, lo) if dd else hi), info
