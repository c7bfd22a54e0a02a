"""The bidiagonal SVD by divide and conquer with the merges' vector updates as ozblas products
(native/src/lapack/lapack_bdsdc.c through the C entry ozblas_dbdsdc; gesdd reaches it too).

Each result is held to the host dbdsdc's (SciPy's LAPACK through scipy.linalg.cython_lapack)
on the same bidiagonal: the residual ||B - U S VT||_F / ||B||_F and the orthogonality
||U^T U - I||_F, ||VT VT^T - I||_F at most 4x the host's plus n u (u = 2^-53: the order of one
rounding per inner-product term, which the host's own figure can undercut on one input); the
singular values within 8 u ||B||_F of the host's (each a backward-stable SVD of B, Weyl's
bound: |s_i - s'_i| <= ||E|| + ||E'||, each ||E|| a few u ||B|| by the residual and
orthogonality above). Inputs: uniform and integer draws, graded by exact powers of two
(np.ldexp), clustered and repeated values (heavy deflation in dlasd2), zero diagonal and
off-diagonal entries (dbdsdc's splits), orders below, at and above the leaf size 25, not
powers of two. Emulation forced (Ozaki II) on the products.
"""

import ctypes

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from scipy.linalg import cython_lapack

from ozblas._native import ffi, lib
from ozblas.api import _context, _options

U = 2.0**-53
LEAF = 25  # LAPACK's smlsiz: at most this order, the host dbdsdc alone


def _host_dbdsdc_fn():
    cap = cython_lapack.__pyx_capi__["dbdsdc"]
    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    ptr = api.PyCapsule_GetPointer(cap, api.PyCapsule_GetName(cap))
    dp, ip, cp = ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_int), ctypes.c_char_p
    return ctypes.CFUNCTYPE(None, cp, cp, ip, dp, dp, dp, ip, dp, ip, dp, ip, dp, ip, ip)(ptr)


_HOST = _host_dbdsdc_fn()


def host_dbdsdc(uplo, d, e):
    """(s, U, VT, info) of SciPy's dbdsdc, compq 'I' (LP64)."""
    n = len(d)
    d, e = d.copy(), np.append(e, 0.0)
    u, vt = np.zeros((n, n), order="F"), np.zeros((n, n), order="F")
    work, iwork = np.zeros(3 * n * n + 4 * n + 1), np.zeros(8 * n + 1, dtype=np.int32)
    nn, ld, info = ctypes.c_int(n), ctypes.c_int(max(n, 1)), ctypes.c_int(0)
    p = lambda a: a.ctypes.data_as(ctypes.POINTER(ctypes.c_double))  # noqa: E731
    _HOST(uplo.encode(), b"I", ctypes.byref(nn), p(d), p(e), p(u), ctypes.byref(ld), p(vt),
          ctypes.byref(ld), None, None, p(work), iwork.ctypes.data_as(ctypes.POINTER(ctypes.c_int)),
          ctypes.byref(info))
    return d, u, vt, info.value


def oz_dbdsdc(uplo, d, e, compq="I", method="ozaki2", ldu=None, ldvt=None):
    """(s, U, VT, info, status, report) of ozblas_dbdsdc."""
    n = len(d)
    d, e = d.copy(), np.append(e, 0.0)
    ldu, ldvt = ldu or max(n, 1), ldvt or max(n, 1)
    u, vt = np.zeros((ldu, max(n, 1)), order="F"), np.zeros((ldvt, max(n, 1)), order="F")
    info, rep = ffi.new("int64_t *"), ffi.new("ozblas_lapack_report *")
    c = lambda a: ffi.cast("double *", a.ctypes.data)  # noqa: E731
    st_ = lib.ozblas_dbdsdc(_context(), uplo.encode(), compq.encode(), n, c(d), c(e), c(u), ldu,
                            c(vt), ldvt, info, 0, _options(method, None, None, None, None, None, None),
                            rep)
    return d, u[:n, :n], vt[:n, :n], info[0], st_, rep


def _bidiagonal(uplo, d, e):
    b = np.diag(d)
    if len(d) > 1:
        b += np.diag(e, 1 if uplo == "U" else -1)
    return b


def _measures(b, s, u, vt):
    n = len(s)
    i = np.eye(n)
    nb = max(np.linalg.norm(b), np.finfo(float).tiny)
    return (np.linalg.norm(b - (u * s) @ vt) / nb, np.linalg.norm(u.T @ u - i),
            np.linalg.norm(vt @ vt.T - i))


def check_against_host(uplo, d, e, method="ozaki2"):
    n = len(d)
    b = _bidiagonal(uplo, d, e)
    s0, u0, vt0, info0 = host_dbdsdc(uplo, d, e)
    s, u, vt, info, st_, rep = oz_dbdsdc(uplo, d, e, method=method)
    assert st_ == 0 and info == info0 == 0
    assert np.all(s >= 0) and np.all(np.diff(s) <= 0)
    for got, want in zip(_measures(b, s, u, vt), _measures(b, s0, u0, vt0)):
        assert got <= 4 * want + n * U, (got, want)
    # each side's values are those of B + E with ||E|| = O(n u ||B||) (Weyl): a bound in n, not
    # a constant the host kernel's rounding can exceed (it did, at n = 37 under OpenBLAS Haswell)
    assert np.max(np.abs(s - s0), initial=0.0) <= 2 * n * U * np.linalg.norm(b)
    return rep


def _draw(kind, n, rng):
    d, e = rng.uniform(-1, 1, n), rng.uniform(-1, 1, max(n - 1, 0))
    if kind == "graded":  # exact powers of two from 1 down to 2^-(n/4)
        d, e = np.ldexp(d, -(np.arange(n) // 4)), np.ldexp(e, -(np.arange(n - 1) // 4))
    elif kind == "clustered":  # two values, tiny coupling: most z entries deflate
        d, e = rng.integers(1, 3, n).astype(float), rng.uniform(0, 1e-9, n - 1)
    elif kind == "repeated":  # Toeplitz: the halves' values coincide (dsigma deflation)
        d, e = np.ones(n), np.ones(n - 1)
    elif kind == "zero_diagonal":
        d[::7] = 0.0
    elif kind == "zero_offdiagonal":  # splits into pieces above and below the leaf size
        e[[n // 3, n - 2]] = 0.0
    elif kind == "integer":
        d, e = rng.integers(-3, 4, n).astype(float), rng.integers(-3, 4, n - 1).astype(float)
    return d, e


KINDS = ["uniform", "graded", "clustered", "repeated", "zero_diagonal", "zero_offdiagonal",
         "integer"]


@pytest.mark.parametrize("uplo", ["U", "L"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", [26, 51, 100, 203])
def test_against_host_dbdsdc(n, kind, uplo):
    d, e = _draw(kind, n, np.random.default_rng([n, KINDS.index(kind)]))
    rep = check_against_host(uplo, d, e)
    # the merges' products, emulated, where a piece between zero off-diagonal entries is
    # longer than a leaf
    pieces = np.diff(np.concatenate([[-1], np.flatnonzero(e == 0), [n - 1]]))
    assert (rep.products > 0) == (pieces.max() > LEAF) and rep.emulated == rep.products


@pytest.mark.parametrize("n", [0, 1, 2, 5, LEAF])
def test_small_orders_are_the_host_dbdsdc(n):
    d, e = _draw("uniform", n, np.random.default_rng(n))
    s, u, vt, info, st_, rep = oz_dbdsdc("U", d, e)
    s0, u0, vt0, info0 = host_dbdsdc("U", d, e)
    assert st_ == 0 and info == info0 == 0 and rep.products == 0
    for a, b in ((s, s0), (u, u0), (vt, vt0)):
        assert np.array_equal(a, b)


def test_native_products_and_values_only():
    d, e = _draw("uniform", 77, np.random.default_rng(77))
    check_against_host("U", d, e, method="native")
    s, _, _, info, st_, rep = oz_dbdsdc("U", d, e, compq="N")
    s0 = host_dbdsdc("U", d, e)[0]
    assert st_ == 0 and info == 0 and rep.products == 0
    assert np.max(np.abs(s - s0)) <= 2 * len(d) * U * np.linalg.norm(_bidiagonal("U", d, e))


def test_zero_bidiagonal_and_leading_dimensions():
    n = 40
    s, u, vt, info, st_, _ = oz_dbdsdc("U", np.zeros(n), np.zeros(n - 1))
    assert st_ == 0 and info == 0 and not s.any()
    assert np.array_equal(u, np.eye(n)) and np.array_equal(vt, np.eye(n))
    d, e = _draw("uniform", n, np.random.default_rng(3))
    packed = oz_dbdsdc("L", d, e)
    wide = oz_dbdsdc("L", d, e, ldu=n + 3, ldvt=n + 5)
    for a, b in zip(packed[:3], wide[:3]):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("uplo,compq,n,ldu,ldvt,want", [
    ("X", "I", 30, 30, 30, -1), ("U", "P", 30, 30, 30, -2), ("U", "Q", 30, 30, 30, -2),
    ("U", "I", -1, 1, 1, -3), ("U", "I", 30, 29, 30, -7), ("L", "I", 30, 30, 29, -9),
    ("U", "N", 30, 0, 1, -7), ("U", "N", 30, 1, 0, -9)])
def test_argument_errors(uplo, compq, n, ldu, ldvt, want):
    m = max(n, 1)
    d, e, u = np.zeros(m), np.zeros(m), np.zeros((max(ldu, ldvt, 1), m), order="F")
    info, rep = ffi.new("int64_t *"), ffi.new("ozblas_lapack_report *")
    c = lambda a: ffi.cast("double *", a.ctypes.data)  # noqa: E731
    st_ = lib.ozblas_dbdsdc(_context(), uplo.encode(), compq.encode(), n, c(d), c(e), c(u), ldu,
                            c(u), ldvt, info, 0, _options("ozaki2", None, None, None, None, None,
                                                          None), rep)
    assert st_ == lib.OZBLAS_ERR_INVALID_ARGUMENT and info[0] == want


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(LEAF + 1, 140), kind=st.sampled_from(KINDS), uplo=st.sampled_from("UL"),
       seed=st.integers(0, 2**31 - 1), zeros=st.integers(0, 3))
def test_drawn_bidiagonals(n, kind, uplo, seed, zeros):
    rng = np.random.default_rng(seed)
    d, e = _draw(kind, n, rng)
    d[rng.integers(0, n, zeros)] = 0.0  # zero diagonal entries anywhere
    e[rng.integers(0, n - 1, zeros)] = 0.0  # and splits anywhere
    check_against_host(uplo, d, e)
