"""Blocked Hessenberg reduction (native/src/lapack/lapack_hess.c through ozblas.lapack): gehrd,
orghr/unghr, ormhr/unmhr.

Emulation forced (Ozaki II), small blocks (NB) so that the active part crosses block
boundaries, the whole matrix (lo = 0, hi = n - 1) and a part of it (A upper triangular
outside rows and columns lo..hi, as gebal leaves it). Each result is held to the host
LAPACK's on the same inputs (SciPy's dgehrd/dorghr wrappers, ormhr through
scipy.linalg.cython_lapack; unrouted here): ||A - Q H Q^H|| / (||A|| n u) and
||Q^H Q - I|| / (n u) at most 4x native's plus 1; ormhr's products against the exact product
with native's Q.
"""

import numpy as np
import pytest
import scipy.linalg.lapack as la
from hypothesis import given, settings, strategies as st

import _native as N
from ozblas import lapack as L
from ozblas._native import ffi, lib
from ozblas.api import _context, _options
from ozblas.testing import exact_matmul, exp, standard_normal

NB = 8
EMU = dict(method="ozaki2", nb=NB)
U = np.finfo(np.float64).eps / 2
DTYPES = [np.float64, np.complex128]
CASES = [(1, 0, 0), (2, 0, 1), (NB, 0, NB - 1), (NB + 1, 0, NB), (NB + 2, 0, NB + 1),
         (3 * NB + 5, 0, 3 * NB + 4), (60, 0, 59), (40, 3, 33), (40, 5, 6), (40, 0, 20),
         (25, 12, 24), (30, 29, 29)]


def _mat(rng, m, n, dt):
    a = standard_normal(rng, (m, n))
    return a + 1j * standard_normal(rng, (m, n)) if dt == np.complex128 else a


def _balanced(rng, n, lo, hi, dt, phi=0.0):
    """A random matrix, zero below the diagonal outside rows and columns lo..hi."""
    a = _mat(rng, n, n, dt) * exp(phi * standard_normal(rng, (n, n)))
    i, j = np.indices((n, n))
    a[(i > j) & ((j < lo) | (i > hi))] = 0
    return np.asfortranarray(a)


def _native(name, dt):
    return getattr(la, ("z" if dt == np.complex128 else "d") + {"orghr": "unghr" if dt == np.complex128
                                                                 else "orghr"}.get(name, name))


def _within(ratio, native, what):
    assert ratio <= 4 * native + 1.0, f"{what}: {ratio:.3g} vs native {native:.3g}"


def _ratios(a, h, q):
    n = a.shape[0]
    hh = np.triu(h, -1)
    return (np.linalg.norm(a - q @ hh @ q.conj().T) / (max(np.linalg.norm(a), 1e-300) * max(n, 1) * U),
            np.linalg.norm(q.conj().T @ q - np.eye(n)) / (max(n, 1) * U))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n,lo,hi", CASES)
def test_gehrd_orghr(rng, dt, n, lo, hi):
    a = _balanced(rng, n, lo, hi, dt)
    h, tau, info = L.gehrd(a, lo, hi, **EMU)
    rep = L.last_report()
    nh, ntau, ninfo = _native("gehrd", dt)(a, lo, hi)
    assert info == ninfo == 0 and h.dtype == tau.dtype == dt
    assert h.shape == (n, n) and tau.shape == ntau.shape == (max(n - 1, 0),)
    outside = np.ones(max(n - 1, 0), dtype=bool)
    outside[lo:hi] = False
    assert np.all(tau[outside] == 0)  # as dgehrd: no reflectors outside lo..hi-1
    if hi - lo + 1 > NB:
        assert rep["emulated"] > 0 and rep["method"] == "ozaki2" and rep["moduli"]
        if hi - lo + 1 >= 3 * NB:
            assert rep["emulated_flops"] > 0.5 * rep["flops"]
    else:
        assert rep["products"] == 0  # one block: the host gehrd alone
    q, info = L.orghr(h, tau, lo, hi, **EMU)
    nq, _ = _native("orghr", dt)(nh, ntau, lo, hi) if n > 1 else (np.eye(n, dtype=dt), 0)  # SciPy: n > 1
    assert info == 0 and q.dtype == dt
    for r, nr, what in zip(_ratios(a, h, q), _ratios(a, nh, nq), ("||A - QHQ^H||", "||Q^HQ - I||")):
        _within(r, nr, what)
    # what orghr leaves outside the active part: the identity's rows and columns
    eye = np.eye(n)
    assert np.array_equal(q[:, :lo + 1], eye[:, :lo + 1]) and np.array_equal(q[:, hi + 1:], eye[:, hi + 1:])
    assert np.array_equal(q[:lo + 1], eye[:lo + 1]) and np.array_equal(q[hi + 1:], eye[hi + 1:])


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("side", ["L", "R"])
@pytest.mark.parametrize("trans", ["N", "T"])
@pytest.mark.parametrize("nq,lo,hi,other", [(3 * NB + 5, 0, 3 * NB + 4, 6), (30, 4, 25, 2 * NB + 1)])
def test_ormhr_every_case(rng, dt, side, trans, nq, lo, hi, other):
    if dt == np.complex128 and trans == "T":
        trans = "C"
    a = _balanced(rng, nq, lo, hi, dt)
    h, tau, _ = _native("gehrd", dt)(a, lo, hi)
    qf, _ = _native("orghr", dt)(h, tau, lo, hi)
    opq = qf if trans == "N" else qf.conj().T
    c = _mat(rng, nq, other, dt) if side == "L" else _mat(rng, other, nq, dt)
    cq, work, info = L.ormhr(side, trans, h, tau, c, lo, hi, **EMU)
    assert info == 0 and L.last_report()["emulated"] > 0
    ncq, _ = N.ormhr(side, trans, h, tau, c, lo, hi)
    exact = exact_matmul(opq, c) if side == "L" else exact_matmul(c, opq)
    scale = np.abs(opq) @ np.abs(c) if side == "L" else np.abs(c) @ np.abs(opq)
    err, nerr = np.max(np.abs(cq - exact) / scale), np.max(np.abs(ncq - exact) / scale)
    assert err <= 4 * nerr + 1e-15, f"ormhr: {err:.3e} vs native {nerr:.3e}"


def test_workspace_query_changes_nothing(rng):
    a = standard_normal(rng, (30, 30))
    h, tau, info = L.gehrd(a, lwork=-1, nb=NB)
    assert info == 0 and np.array_equal(h, a) and not tau.any()
    q, info = L.orghr(a, np.ones(29), lwork=-1, nb=NB)
    assert info == 0 and np.array_equal(q, a)


def test_leading_dimension_larger_than_the_matrix(rng):
    """The C API on a matrix inside a larger buffer: the packed call's bits, the rows beyond n
    untouched."""
    n, pad = 29, 5
    for dt, fn, org in ((np.float64, lib.ozblas_dgehrd, lib.ozblas_dorghr),
                        (np.complex128, lib.ozblas_zgehrd, lib.ozblas_zunghr)):
        a = _mat(rng, n, n, dt)
        big = np.full((n + pad, n), 7.0, dtype=dt, order="F")
        big[:n] = a
        tau = np.zeros(n - 1, dtype=dt)
        info = ffi.new("int64_t *")
        o = _options("ozaki2", None, None, None, None)
        p, t = ffi.cast("double *", big.ctypes.data), ffi.cast("double *", tau.ctypes.data)
        assert fn(_context(), n, 1, n, p, n + pad, t, info, NB, o, ffi.NULL) == 0 and info[0] == 0
        h, ht, _ = L.gehrd(a, **EMU)
        assert np.array_equal(big[:n], h) and np.array_equal(tau, ht) and np.all(big[n:] == 7.0)
        assert org(_context(), n, 1, n, p, n + pad, t, info, NB, o, ffi.NULL) == 0 and info[0] == 0
        assert np.array_equal(big[:n], L.orghr(h, ht, **EMU)[0]) and np.all(big[n:] == 7.0)


def test_bad_arguments_give_lapack_info():
    info = ffi.new("int64_t *")
    a = np.zeros((6, 6), order="F")
    p = ffi.cast("double *", a.ctypes.data)
    t = ffi.new("double[8]")
    z = ffi.NULL
    assert lib.ozblas_dgehrd(_context(), -1, 1, 0, p, 6, t, info, 0, z, z) == 1 and info[0] == -1
    assert lib.ozblas_dgehrd(_context(), 6, 0, 6, p, 6, t, info, 0, z, z) == 1 and info[0] == -2
    assert lib.ozblas_dgehrd(_context(), 6, 7, 6, p, 6, t, info, 0, z, z) == 1 and info[0] == -2
    assert lib.ozblas_dgehrd(_context(), 6, 3, 2, p, 6, t, info, 0, z, z) == 1 and info[0] == -3
    assert lib.ozblas_dorghr(_context(), 6, 1, 7, p, 6, t, info, 0, z, z) == 1 and info[0] == -3
    assert lib.ozblas_zunghr(_context(), 6, 1, 6, p, 5, t, info, 0, z, z) == 1 and info[0] == -5
    assert lib.ozblas_dgehrd(_context(), 0, 1, 0, p, 1, t, info, 0, z, z) == 0 and info[0] == 0
    assert lib.ozblas_dormhr(_context(), b"L", b"C", 6, 6, 1, 6, p, 6, t, p, 6, info, 0, z, z) == 1
    assert info[0] == -2  # dormhr takes 'N' or 'T'
    assert lib.ozblas_zunmhr(_context(), b"R", b"T", 6, 6, 1, 6, p, 6, t, p, 6, info, 0, z, z) == 1
    assert info[0] == -2
    assert lib.ozblas_dormhr(_context(), b"L", b"N", 6, 4, 1, 7, p, 6, t, p, 6, info, 0, z, z) == 1
    assert info[0] == -6  # ihi beyond the order of Q (m for side L)
    assert lib.ozblas_dormhr(_context(), b"R", b"N", 6, 4, 1, 4, p, 3, t, p, 6, info, 0, z, z) == 1
    assert info[0] == -8
    assert lib.ozblas_dormhr(_context(), b"R", b"N", 6, 4, 1, 4, p, 4, t, p, 5, info, 0, z, z) == 1
    assert info[0] == -11


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n,lo,hi", [(200, 0, 199), (230, 7, 221)])
def test_gehrd_panels_narrower_than_nb(rng, dt, n, lo, hi):
    """nb 150: gehrd's panels are 64 columns wide (lapack_hess.c's HR_PANEL), the last one
    partial, the active part past one block; the same bounds as test_gehrd_orghr."""
    a = _balanced(rng, n, lo, hi, dt)
    h, tau, info = L.gehrd(a, lo, hi, method="ozaki2", nb=150)
    rep = L.last_report()
    assert info == 0 and rep["emulated"] > 0
    q, info = L.orghr(h, tau, lo, hi, method="ozaki2", nb=150)
    nh, ntau, _ = _native("gehrd", dt)(a, lo, hi)
    nq, _ = _native("orghr", dt)(nh, ntau, lo, hi)
    for r, nr, what in zip(_ratios(a, h, q), _ratios(a, nh, nq), ("||A - QHQ^H||", "||Q^HQ - I||")):
        _within(r, nr, what)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 40), lo=st.integers(0, 39), hi=st.integers(0, 39), nb=st.integers(1, 12),
       cplx=st.booleans(), phi=st.sampled_from([0.0, 1.0, 4.0]), seed=st.integers(0, 2**31 - 1))
def test_gehrd_orghr_property(n, lo, hi, nb, cplx, phi, seed):
    """Any order, active part, block size and dynamic range: Q H Q^H reproduces A and Q is
    orthonormal as natively."""
    lo, hi = min(lo, n - 1), min(hi, n - 1)
    lo, hi = min(lo, hi), max(lo, hi)
    dt = np.complex128 if cplx else np.float64
    a = _balanced(np.random.default_rng(seed), n, lo, hi, dt, phi)
    h, tau, _ = L.gehrd(a, lo, hi, method="ozaki2", nb=nb)
    q, _ = L.orghr(h, tau, lo, hi, method="ozaki2", nb=nb)
    nh, ntau, _ = _native("gehrd", dt)(a, lo, hi)
    nq, _ = _native("orghr", dt)(nh, ntau, lo, hi) if n > 1 else (np.eye(n, dtype=dt), 0)
    for r, nr, what in zip(_ratios(a, h, q), _ratios(a, nh, nq), ("||A - QHQ^H||", "||Q^HQ - I||")):
        _within(r, nr, what)
