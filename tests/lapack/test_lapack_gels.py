"""Least squares by QR or LQ (native/src/lapack/lapack_gels.c through ozblas.lapack): gels.

Emulation forced (Ozaki II), small blocks (NB): square, tall (m = 3n), wide (n = 3m), m >> n,
n >> m, trans N and T (C), one and several right-hand sides. Each solution is held to the host
LAPACK's (SciPy's dgels/zgels, unrouted here) on the same inputs by LAPACK's test ratios
(dqrt16, dqrt17): ||B - op(A) X|| / (max(m, n) ||A|| ||X|| u) for the minimum-norm problems
(their residual is zero), ||op(A)^H (B - op(A) X)|| / (max(m, n, nrhs) ||A|| ||B|| u) for the
least-squares ones, at most 4x native's plus 1; the minimum-norm solution is unique, so it
must also agree with native's to the conditioning. Zero diagonal elements of the triangular
factor (a zero column or row of A) give LAPACK's info; A and B out of range are scaled as
LAPACK's.
"""

import numpy as np
import pytest
import scipy.linalg.lapack as la
from hypothesis import given, settings, strategies as st

from ozblas import lapack as L
from ozblas._native import ffi, lib
from ozblas.api import _context, _options
from ozblas.testing import exp, standard_normal

NB = 8
EMU = dict(method="ozaki2", nb=NB)
U = np.finfo(np.float64).eps / 2
DTYPES = [np.float64, np.complex128]
SHAPES = [(1, 1), (NB, NB), (NB + 1, NB + 1), (3 * NB + 5, 3 * NB + 5), (3 * (NB + 2), NB + 2),
          (NB + 2, 3 * (NB + 2)), (100, 7), (7, 100), (40, 2 * NB + 3)]


def _mat(rng, m, n, dt):
    a = standard_normal(rng, (m, n))
    return a + 1j * standard_normal(rng, (m, n)) if dt == np.complex128 else a


def _native(dt):
    return la.zgels if dt == np.complex128 else la.dgels


def _ct(dt):
    return "C" if dt == np.complex128 else "T"


def _ratio(a, b, x, trans):
    """dqrt16's residual ratio for a consistent (minimum-norm) problem, dqrt17's normal-equations
    ratio for a least-squares one; X: the solution rows."""
    m, n = a.shape
    op = a if trans == "N" else a.conj().T
    rows = op.shape[0]
    r = b[:rows] - op @ x
    an = np.linalg.norm(a, 1)
    if op.shape[0] <= op.shape[1]:  # underdetermined: minimum norm, residual zero
        return np.linalg.norm(r, 1) / max(max(m, n) * an * np.linalg.norm(x, 1) * U, 1e-300)
    return (np.linalg.norm(op.conj().T @ r, 1) /
            max(max(m, n, b.shape[1]) * an * np.linalg.norm(b[:rows], 1) * U, 1e-300))


# The ratios' floor: one rounding of x alone gives up to about 2 (an ulp is 2u), so a native
# ratio of exactly 0 (as 1 x 1 problems often have) leaves room for the rounding of ozblas's
# own different but equally accurate operations; LAPACK's own tests accept 30.
FLOOR = 4.0


def _check(a, b, trans, got, native):
    (f, x, info), (nf, nx, ninfo) = got, native
    assert info == ninfo == 0
    cols = a.shape[1] if trans == "N" else a.shape[0]
    r, nr = _ratio(a, b, x[:cols], trans), _ratio(a, b, nx[:cols], trans)
    assert r <= 4 * nr + FLOOR, f"gels {trans}: ratio {r:.3g} vs native {nr:.3g}"
    op = a if trans == "N" else a.conj().T
    if op.shape[0] <= op.shape[1]:  # the minimum-norm solution is unique
        cond = np.linalg.cond(a)
        diff = np.linalg.norm(x[:cols] - nx[:cols]) / np.linalg.norm(nx[:cols])
        assert diff <= 100 * cond * U, f"minimum-norm solution: {diff:.3g} from native's"


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("m,n", SHAPES)
@pytest.mark.parametrize("tr", ["N", "T"])
@pytest.mark.parametrize("nrhs", [1, 3])
def test_gels(rng, dt, m, n, tr, nrhs):
    trans = _ct(dt) if tr == "T" else "N"
    a = _mat(rng, m, n, dt)
    b = _mat(rng, max(m, n), nrhs, dt)
    got = L.gels(a, b, trans, **EMU)
    rep = L.last_report()
    assert got[0].dtype == got[1].dtype == dt and got[1].shape == (max(m, n), nrhs)
    if min(m, n) > NB:
        assert rep["emulated"] > 0 and rep["method"] == "ozaki2" and rep["moduli"]
    _check(a, b, trans, got, _native(dt)(a, b, trans))


@pytest.mark.parametrize("dt", DTYPES)
def test_vector_right_hand_side(rng, dt):
    a, b = _mat(rng, 30, 12, dt), _mat(rng, 30, 1, dt)[:, 0]
    f, x, info = L.gels(a, b, **EMU)
    assert x.shape == (30,) and info == 0
    nf, nx, _ = _native(dt)(a, b)
    assert np.allclose(x[:12], nx[:12], rtol=0, atol=1e-12 * np.abs(nx).max())


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("m,n,zero", [(40, 3 * NB + 2, 3), (40, 3 * NB + 2, 2 * NB + 1),
                                      (3 * NB + 2, 40, 0), (3 * NB + 2, 40, 2 * NB + 5)])
@pytest.mark.parametrize("tr", ["N", "T"])
def test_rank_deficient_gives_lapack_info(rng, dt, m, n, zero, tr):
    """A zero column (m >= n) or row (m < n) makes the triangular factor's diagonal element
    exactly zero, in the first panel or a later one: info is its position, as natively."""
    trans = _ct(dt) if tr == "T" else "N"
    a = _mat(rng, m, n, dt)
    if m >= n:
        a[:, zero] = 0
    else:
        a[zero, :] = 0
    b = _mat(rng, max(m, n), 2, dt)
    f, x, info = L.gels(a, b, trans, **EMU)
    nf, nx, ninfo = _native(dt)(a, b, trans)
    assert info == ninfo == zero + 1


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("sa,sb", [(1e-300, 1.0), (1e300, 1.0), (1.0, 1e-300), (1.0, 1e300),
                                   (1e-300, 1e-300), (1e300, 1e300)])
@pytest.mark.parametrize("m,n", [(3 * NB + 5, NB + 3), (NB + 3, 3 * NB + 5)])
def test_scaled_out_of_range(rng, dt, sa, sb, m, n):
    """A and B whose largest elements are beyond LAPACK's safe range are scaled first, the
    solution scaled back: the same ratios as natively (computed on the scaled-back problem)."""
    for trans in ("N", _ct(dt)):
        a, b = _mat(rng, m, n, dt), _mat(rng, max(m, n), 2, dt)
        got = L.gels(a * sa, b * sb, trans, **EMU)
        nat = _native(dt)(a * sa, b * sb, trans)
        assert got[2] == nat[2] == 0
        assert np.all(np.isfinite(got[1]))
        scale = sa / sb  # x of the scaled problem is x / scale
        _check(a, b, trans, (got[0], got[1] * scale, 0), (nat[0], nat[1] * scale, 0))


@pytest.mark.parametrize("dt", DTYPES)
def test_zero_matrix_and_quick_returns(rng, dt):
    b = _mat(rng, 20, 2, dt)
    f, x, info = L.gels(np.zeros((20, 12), dtype=dt), b, **EMU)
    assert info == 0 and not x.any()  # A = 0: X = 0, as LAPACK's
    for m, n, nrhs in ((0, 5, 2), (5, 0, 2), (5, 7, 0)):
        bb = np.ones((max(m, n, 1), nrhs), dtype=dt)
        f, x, info = L.gels(np.ones((m, n), dtype=dt), bb[:max(m, n)], **EMU)
        assert info == 0 and not x.any() and x.shape == (max(m, n), nrhs)


def test_leading_dimensions_larger_than_the_matrices(rng):
    """The C API on A and B inside larger buffers: the packed call's bits, the rows beyond
    untouched."""
    pad = 4
    for dt, fn, tr in ((np.float64, lib.ozblas_dgels, b"T"), (np.complex128, lib.ozblas_zgels, b"C")):
        for m, n, trans in ((31, 19, b"N"), (19, 31, b"N"), (31, 19, tr), (19, 31, tr)):
            a, b = _mat(rng, m, n, dt), _mat(rng, max(m, n), 3, dt)
            ba = np.full((m + pad, n), 7.0, dtype=dt, order="F")
            bb = np.full((max(m, n) + pad, 3), 7.0, dtype=dt, order="F")
            ba[:m], bb[:max(m, n)] = a, b
            info = ffi.new("int64_t *")
            o = _options("ozaki2", None, None, None, None)
            assert fn(_context(), trans, m, n, 3, ffi.cast("double *", ba.ctypes.data), m + pad,
                      ffi.cast("double *", bb.ctypes.data), max(m, n) + pad, info, NB, o,
                      ffi.NULL) == 0 and info[0] == 0
            f, x, _ = L.gels(a, b, trans.decode(), **EMU)
            assert np.array_equal(ba[:m], f) and np.array_equal(bb[:max(m, n)], x)
            assert np.all(ba[m:] == 7.0) and np.all(bb[max(m, n):] == 7.0)


def test_bad_arguments_give_lapack_info():
    info = ffi.new("int64_t *")
    a = np.zeros((8, 8), order="F")
    p = ffi.cast("double *", a.ctypes.data)
    z = ffi.NULL
    assert lib.ozblas_dgels(_context(), b"C", 4, 4, 1, p, 4, p, 4, info, 0, z, z) == 1
    assert info[0] == -1  # dgels takes 'N' or 'T'
    assert lib.ozblas_zgels(_context(), b"T", 4, 4, 1, p, 4, p, 4, info, 0, z, z) == 1
    assert info[0] == -1  # zgels takes 'N' or 'C'
    assert lib.ozblas_dgels(_context(), b"N", -1, 4, 1, p, 4, p, 4, info, 0, z, z) == 1 and info[0] == -2
    assert lib.ozblas_dgels(_context(), b"N", 4, -1, 1, p, 4, p, 4, info, 0, z, z) == 1 and info[0] == -3
    assert lib.ozblas_dgels(_context(), b"N", 4, 4, -1, p, 4, p, 4, info, 0, z, z) == 1 and info[0] == -4
    assert lib.ozblas_dgels(_context(), b"N", 4, 4, 1, p, 3, p, 4, info, 0, z, z) == 1 and info[0] == -6
    assert lib.ozblas_dgels(_context(), b"N", 4, 6, 1, p, 4, p, 5, info, 0, z, z) == 1 and info[0] == -8
    with pytest.raises(ValueError, match="argument 1"):
        L.gels(np.ones((3, 2)), np.ones((3, 1)), "C")
    with pytest.raises(ValueError, match="max"):
        L.gels(np.ones((3, 5)), np.ones((3, 1)))


@settings(max_examples=25, deadline=None)
@given(m=st.integers(1, 40), n=st.integers(1, 40), nrhs=st.integers(1, 4), nb=st.integers(1, 12),
       cplx=st.booleans(), tr=st.booleans(), phi=st.sampled_from([0.0, 1.0, 3.0]),
       seed=st.integers(0, 2**31 - 1))
def test_gels_property(m, n, nrhs, nb, cplx, tr, phi, seed):
    """Any shape, block size, transpose and dynamic range: the same test ratios as natively."""
    dt = np.complex128 if cplx else np.float64
    trans = _ct(dt) if tr else "N"
    r = np.random.default_rng(seed)
    a = _mat(r, m, n, dt) * exp(phi * standard_normal(r, (m, n)))
    b = _mat(r, max(m, n), nrhs, dt)
    got, nat = L.gels(a, b, trans, method="ozaki2", nb=nb), _native(dt)(a, b, trans)
    cols = n if trans == "N" else m
    rt, nr = _ratio(a, b, got[1][:cols], trans), _ratio(a, b, nat[1][:cols], trans)
    assert got[2] == nat[2] and rt <= 4 * nr + FLOOR, f"ratio {rt:.3g} vs native {nr:.3g}"
