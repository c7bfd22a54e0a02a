"""The generalized symmetric-definite problem's reduction (native/src/lapack/lapack_sygst.c
through ozblas.lapack.sygst/hegst and the C API), emulation forced with small blocks (NB) so
that the orders cross block boundaries.

Each reduction is held to native LAPACK's (SciPy's dsygst/zhegst, unrouted here) on the same
inputs: normwise within 16 n u cond(B) of it, and, with the host eigensolver on the result
and the back-transformation LAPACK's sygv does, the generalized eigenproblem's residual
within 4x native's (+ a small floor).
"""

import numpy as np
import pytest
import scipy.linalg as sl
import scipy.linalg.lapack as la
from hypothesis import given, settings, strategies as st

from ozblas import lapack as L
from ozblas._native import ffi, lib
from ozblas.api import _context, _options
from ozblas.testing import standard_normal

NB = 8
EMU = dict(method="ozaki2", nb=NB)
DTYPES = [np.float64, np.complex128]
SIZES = [1, 2, NB - 1, NB, NB + 1, 3 * NB + 5]
U = 2.0**-53


def _mat(rng, n, m, dt):
    a = standard_normal(rng, (n, m))
    return a + 1j * standard_normal(rng, (n, m)) if dt == np.complex128 else a


def _problem(rng, n, dt, cond=None):
    """A Hermitian a, a Hermitian positive definite b (cond: its condition number)."""
    a = _mat(rng, n, n, dt)
    a = a + a.conj().T
    if cond is None:
        g = _mat(rng, n, n, dt)
        b = g @ g.conj().T + n * np.eye(n)
    else:
        q, _ = np.linalg.qr(_mat(rng, n, n, dt))
        b = (q * np.geomspace(1.0, 1.0 / cond, n)) @ q.conj().T
        b = (b + b.conj().T) / 2
    return a, b


def _native(dt):
    return la.zhegst if dt == np.complex128 else la.dsygst


def _full(c, lower):
    """The Hermitian matrix of which c holds the triangle."""
    t = np.tril(c, -1) if lower else np.triu(c, 1)
    return t + t.conj().T + np.diag(np.diag(c).real)


def _eig_residual(a, b, fac, c, itype, lower):
    """The host eigensolver on the reduced c, eigenvectors back-transformed as LAPACK's sygv
    does, and max over the eigenpairs of ||residual|| / ((||a|| + ||b|| |w|) ||x||)."""
    w, z = np.linalg.eigh(_full(c, lower))
    if itype in (1, 2):  # x = inv(U) z or inv(L^H) z
        x = sl.solve_triangular(fac, z, lower=lower, trans=2 if lower else 0)
    else:  # x = U^H z or L z
        x = (fac.conj().T if not lower else fac) @ z
    na, nb = np.linalg.norm(a, 2), np.linalg.norm(b, 2)
    if itype == 1:
        r = a @ x - (b @ x) * w
        den = (na + nb * np.abs(w)) * np.linalg.norm(x, axis=0)
    elif itype == 2:
        r = a @ (b @ x) - x * w
        den = (na * nb + np.abs(w)) * np.linalg.norm(x, axis=0)
    else:
        r = b @ (a @ x) - x * w
        den = (na * nb + np.abs(w)) * np.linalg.norm(x, axis=0)
    return np.max(np.linalg.norm(r, axis=0) / den)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("itype", [1, 2, 3])
@pytest.mark.parametrize("lower", [0, 1])
def test_sygst_against_native(rng, dt, n, itype, lower):
    a, b = _problem(rng, n, dt)
    fac = sl.cholesky(b, lower=bool(lower))
    want, ninfo = _native(dt)(a, fac, itype=itype, lower=lower)
    got, info = L.sygst(a, fac, itype=itype, lower=lower, **EMU)
    rep = L.last_report()
    assert info == ninfo == 0 and got.dtype == dt and got.shape == (n, n)
    if n > NB:
        assert rep["emulated"] > 0 and rep["emulated"] == rep["products"] and rep["moduli"]
    else:
        assert rep["products"] == 0  # one block: the host sygst alone
    tri = np.tril if lower else np.triu
    diff = np.linalg.norm(tri(got - want)) / np.linalg.norm(tri(want))
    assert diff <= 16 * n * U * np.linalg.cond(b), diff
    # the other triangle of a is not touched
    other = np.triu(a, 1) if lower else np.tril(a, -1)
    assert np.array_equal(np.triu(got, 1) if lower else np.tril(got, -1), other)
    mine = _eig_residual(a, b, fac, got, itype, lower)
    native = _eig_residual(a, b, fac, want, itype, lower)
    assert mine <= 4 * native + 1e-15, (mine, native)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("itype", [1, 2, 3])
def test_sygst_ill_conditioned_b(dt, itype):
    """cond(B) = 1e8. With itype 1 the eigen-residual is about cond(B) u and varies by several
    times between equally valid blockings (LAPACK's own unblocked and blocked codes differ
    so): the emulated products are held to the same blocked algorithm with native products,
    within 4x of it."""
    rng = np.random.default_rng(7)
    n = 3 * NB + 5
    a, b = _problem(rng, n, dt, cond=1e8)
    for lower in (0, 1):
        fac = sl.cholesky(b, lower=bool(lower))
        got, _ = L.sygst(a, fac, itype=itype, lower=lower, **EMU)
        assert L.last_report()["emulated"] > 0
        ref, _ = L.sygst(a, fac, itype=itype, lower=lower, method="native", nb=NB)
        mine = _eig_residual(a, b, fac, got, itype, lower)
        native = _eig_residual(a, b, fac, ref, itype, lower)
        assert mine <= 4 * native + 1e-15, (mine, native)


@pytest.mark.parametrize("cx", [0, 1])
def test_c_api_leading_dimensions_and_unreferenced_triangles(rng, cx):
    """lda, ldb beyond n: the result equals ozblas.lapack's bit for bit, the rows beyond n
    and the other triangles (NaN here) are neither read nor written."""
    dt = np.complex128 if cx else np.float64
    n, ld = 3 * NB + 5, 3 * NB + 9
    a, b = _problem(rng, n, dt)
    for itype, lower in ((1, 0), (2, 1), (3, 0)):
        fac = sl.cholesky(b, lower=bool(lower))
        want, _ = L.sygst(a, fac, itype=itype, lower=lower, **EMU)
        big_a = np.full((ld, n), np.nan, dtype=dt, order="F")
        big_b = np.full((ld, n), np.nan, dtype=dt, order="F")
        tri = np.tril if lower else np.triu
        mask = tri(np.ones((n, n), dtype=bool))
        big_a[:n][mask] = a[mask]
        big_b[:n][mask] = fac[mask]
        info = ffi.new("int64_t *")
        ptr = lambda x: ffi.cast("double *", x.ctypes.data)  # noqa: E731
        st = (lib.ozblas_zhegst if cx else lib.ozblas_dsygst)(
            _context(), itype, b"L" if lower else b"U", n, ptr(big_a), ld, ptr(big_b), ld, info, NB,
            _options("ozaki2", None, None, None, None, None, None), ffi.NULL)
        assert st == 0 and info[0] == 0
        got = big_a[:n]
        assert np.array_equal(got[mask].view(np.uint64), want[mask].view(np.uint64))
        assert np.isnan(got[~mask]).all() and np.isnan(big_a[n:]).all()


def test_argument_errors(rng):
    a = np.eye(4)
    p = ffi.cast("double *", a.ctypes.data)
    info = ffi.new("int64_t *")
    for args, want in (((0, b"U", 4, p, 4, p, 4), -1), ((4, b"U", 4, p, 4, p, 4), -1),
                       ((1, b"X", 4, p, 4, p, 4), -2), ((1, b"U", -1, p, 4, p, 4), -3),
                       ((1, b"L", 4, p, 3, p, 4), -5), ((2, b"u", 4, p, 4, p, 3), -7)):
        assert lib.ozblas_dsygst(_context(), *args, info, 0, ffi.NULL, ffi.NULL) == \
            lib.OZBLAS_ERR_INVALID_ARGUMENT
        assert info[0] == want
    assert lib.ozblas_zhegst(_context(), 1, b"U", 0, p, 1, p, 1, info, 0, ffi.NULL, ffi.NULL) == 0
    assert info[0] == 0
    with pytest.raises(ValueError, match="itype"):
        L.sygst(a, a, itype=4)
    with pytest.raises(ValueError, match="shape"):
        L.sygst(a, np.eye(3))


@settings(max_examples=12, deadline=None)
@given(n=st.integers(1, 30), nb=st.integers(1, 12), itype=st.integers(1, 3),
       lower=st.booleans(), cx=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_sygst_property(n, nb, itype, lower, cx, seed):
    """Any order and block size (nb 1 included): the eigen-residual within 4x native's."""
    dt = np.complex128 if cx else np.float64
    rng = np.random.default_rng(seed)
    a, b = _problem(rng, n, dt)
    fac = sl.cholesky(b, lower=lower)
    got, info = L.sygst(a, fac, itype=itype, lower=int(lower), method="ozaki2", nb=nb)
    want, _ = _native(dt)(a, fac, itype=itype, lower=int(lower))
    assert info == 0
    mine = _eig_residual(a, b, fac, got, itype, lower)
    native = _eig_residual(a, b, fac, want, itype, lower)
    assert mine <= 4 * native + 1e-15, (mine, native)
