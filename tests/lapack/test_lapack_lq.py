"""Blocked LQ (native/src/lapack/lapack_qr.c's drivers on the view A^H, through
ozblas.lapack): gelqf, orglq/unglq, ormlq/unmlq.

Emulation forced (Ozaki II), small blocks (NB) so that the sizes cross block boundaries:
square, tall (m = 3n), wide (n = 3m), m >> n, n >> m. Each result is held to the host
LAPACK's own on the same inputs (its gelqf/orglq/ormlq through scipy.linalg.cython_lapack,
unrouted here): ||A - L Q|| / (||A|| max(m, n) u) and ||Q Q^H - I|| / (n u) at most 4x
native's plus 1 (LAPACK's test ratios, of order 1), ormlq's products against the exact
product with native's Q. The QR drivers run the same code (row 0): test_lapack_qr.py.
"""

import numpy as np
import pytest
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
SHAPES = [(1, 1), (NB - 1, NB - 1), (NB, NB), (NB + 1, NB + 1), (3 * NB + 5, 3 * NB + 5),
          (3 * (NB + 2), NB + 2), (NB + 2, 3 * (NB + 2)), (100, 7), (7, 100), (2 * NB + 3, 90)]


def _mat(rng, m, n, dt):
    a = standard_normal(rng, (m, n))
    return a + 1j * standard_normal(rng, (m, n)) if dt == np.complex128 else a


def _within(ratio, native, what):
    assert ratio <= 4 * native + 1.0, f"{what}: {ratio:.3g} vs native {native:.3g}"


def _ratios(a, lq, q):
    """LAPACK's test ratios: ||A - L Q|| / (||A|| max(m, n) u), ||Q Q^H - I|| / (n u), Q the
    first k = min(m, n) rows."""
    m, n = a.shape
    k = min(m, n)
    l = np.tril(lq)[:, :k]
    return (np.linalg.norm(a - l @ q[:k]) / (np.linalg.norm(a) * max(m, n) * U),
            np.linalg.norm(q @ q.conj().T - np.eye(q.shape[0])) / (n * U))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("m,n", SHAPES)
def test_gelqf_orglq(rng, dt, m, n):
    a = _mat(rng, m, n, dt)
    lq, tau, work, info = L.gelqf(a, **EMU)
    rep = L.last_report()
    nlq, ntau, ninfo = N.gelqf(a)
    assert info == ninfo == 0
    assert lq.dtype == tau.dtype == work.dtype == dt and lq.shape == (m, n) and tau.shape == (min(m, n),)
    k = min(m, n)
    if k > NB:
        assert rep["emulated"] > 0 and rep["method"] == "ozaki2" and rep["moduli"]
        if k >= 3 * NB:  # most flops in products once the panels are a small part
            assert rep["emulated_flops"] > 0.5 * rep["flops"]
    else:
        assert rep["products"] == 0  # one panel: the host gelqf alone
    q, _, info = L.orglq(lq[:k], tau, **EMU)
    nq, _ = N.orglq(nlq[:k], ntau)
    assert info == 0 and q.shape == (k, n)
    for r, nr, what in zip(_ratios(a, lq, q), _ratios(a, nlq, nq), ("||A - LQ||", "||QQ^H - I||")):
        _within(r, nr, what)
    if n > m:  # the complete Q: n rows from the m reflectors
        full = np.zeros((n, n), dtype=dt, order="F")
        full[:m] = lq
        qc, _, _ = L.orglq(full, tau, **EMU)
        nfull = full.copy()
        nfull[:m] = nlq
        nqc, _ = N.orglq(nfull, ntau)
        _within(np.linalg.norm(qc @ qc.conj().T - np.eye(n)) / (n * U),
                np.linalg.norm(nqc @ nqc.conj().T - np.eye(n)) / (n * U), "complete Q")
        assert np.allclose(qc[:m], q, atol=1e-13)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("side", ["L", "R"])
@pytest.mark.parametrize("trans", ["N", "T"])
@pytest.mark.parametrize("m,n,k", [(3 * NB + 5, 6, 2 * NB + 3), (3 * NB + 5, 3 * NB + 5, 3 * NB + 5),
                                   (NB + 1, 2 * NB, NB + 1), (5, 4 * NB, 5)])
def test_ormlq_every_case(rng, dt, side, trans, m, n, k):
    if dt == np.complex128 and trans == "T":
        trans = "C"
    nq = m if side == "L" else n
    k = min(k, nq)
    a = _mat(rng, k, nq, dt)
    lq, tau, _ = N.gelqf(a)
    full = np.zeros((nq, nq), dtype=dt)
    full[:k] = lq
    qf, _ = N.orglq(full, tau)
    opq = qf if trans == "N" else qf.conj().T
    c = _mat(rng, m, n, dt)
    cq, work, info = L.ormlq(side, trans, lq, tau, c, **EMU)
    assert info == 0 and L.last_report()["emulated"] > 0
    ncq, _ = N.ormlq(side, trans, lq, tau, c)
    exact = exact_matmul(opq, c) if side == "L" else exact_matmul(c, opq)
    scale = np.abs(opq) @ np.abs(c) if side == "L" else np.abs(c) @ np.abs(opq)
    err, nerr = np.max(np.abs(cq - exact) / scale), np.max(np.abs(ncq - exact) / scale)
    assert err <= 4 * nerr + 1e-15, f"ormlq: {err:.3e} vs native {nerr:.3e}"


def test_workspace_query_and_lapack_shapes(rng):
    a = standard_normal(rng, (20, 30))
    lq, tau, work, info = L.gelqf(a, lwork=-1, nb=NB)
    assert info == 0 and work.shape == (1,) and work[0] >= 20  # at least a correct size
    assert np.array_equal(lq, a)  # nothing computed
    lq, tau, work, info = L.gelqf(a, lwork=100, **EMU)
    assert work.shape == (100,) and work[0] == 20 * NB  # LAPACK's optimal m nb
    q, work, info = L.orglq(lq, tau, lwork=-1, nb=NB)
    assert info == 0 and work[0] >= 20
    c = standard_normal(rng, (30, 4))
    cq, work, info = L.ormlq("L", "T", lq, tau, c, lwork=-1, nb=NB)
    assert info == 0 and np.array_equal(cq, c)


def test_leading_dimension_larger_than_the_matrix(rng):
    """The C API on matrices inside larger buffers: the same bits as the packed calls, the rows
    beyond m untouched."""
    m, n, pad = 23, 29, 5
    for dt, fn, org in ((np.float64, lib.ozblas_dgelqf, lib.ozblas_dorglq),
                        (np.complex128, lib.ozblas_zgelqf, lib.ozblas_zunglq)):
        a = _mat(rng, m, n, dt)
        big = np.full((m + pad, n), 7.0, dtype=dt, order="F")
        big[:m] = a
        tau = np.zeros(m, dtype=dt)
        info = ffi.new("int64_t *")
        o = _options("ozaki2", None, None, None, None)
        p = ffi.cast("double *", big.ctypes.data)
        assert fn(_context(), m, n, p, m + pad, ffi.cast("double *", tau.ctypes.data), info, NB, o,
                  ffi.NULL) == 0 and info[0] == 0
        lq, t, _, _ = L.gelqf(a, **EMU)
        assert np.array_equal(big[:m], lq) and np.array_equal(tau, t) and np.all(big[m:] == 7.0)
        assert org(_context(), m, n, m, p, m + pad, ffi.cast("double *", tau.ctypes.data), info, NB,
                   o, ffi.NULL) == 0 and info[0] == 0
        assert np.array_equal(big[:m], L.orglq(lq, t, **EMU)[0]) and np.all(big[m:] == 7.0)


def test_bad_arguments_give_lapack_info():
    info = ffi.new("int64_t *")
    a = np.zeros((4, 6), order="F")
    p = ffi.cast("double *", a.ctypes.data)
    t = ffi.new("double[8]")
    n = ffi.NULL
    assert lib.ozblas_dgelqf(_context(), 4, 4, p, 3, t, info, 0, n, n) == 1 and info[0] == -4
    assert lib.ozblas_dgelqf(_context(), 4, -1, p, 4, t, info, 0, n, n) == 1 and info[0] == -2
    assert lib.ozblas_dorglq(_context(), 4, 3, 3, p, 4, t, info, 0, n, n) == 1
    assert info[0] == -2  # n < m
    assert lib.ozblas_dorglq(_context(), 4, 6, 5, p, 4, t, info, 0, n, n) == 1
    assert info[0] == -3  # k > m
    assert lib.ozblas_dormlq(_context(), b"L", b"C", 4, 4, 4, p, 4, t, p, 4, info, 0, n, n) == 1
    assert info[0] == -2  # dormlq takes 'N' or 'T'
    assert lib.ozblas_zunmlq(_context(), b"R", b"T", 4, 4, 4, p, 4, t, p, 4, info, 0, n, n) == 1
    assert info[0] == -2  # zunmlq takes 'N' or 'C'
    assert lib.ozblas_dormlq(_context(), b"X", b"N", 4, 4, 4, p, 4, t, p, 4, info, 0, n, n) == 1
    assert info[0] == -1
    assert lib.ozblas_dormlq(_context(), b"L", b"N", 4, 4, 5, p, 5, t, p, 4, info, 0, n, n) == 1
    assert info[0] == -5  # k > m for side L
    # LQ's A holds k rows: lda >= k (not the order of Q, as ormqr's)
    assert lib.ozblas_dormlq(_context(), b"L", b"N", 6, 4, 3, p, 3, t, p, 6, info, 0, n, n) == 0
    assert lib.ozblas_dormlq(_context(), b"L", b"N", 6, 4, 3, p, 2, t, p, 6, info, 0, n, n) == 1
    assert info[0] == -7
    assert lib.ozblas_dormlq(_context(), b"R", b"N", 4, 6, 2, p, 4, t, p, 3, info, 0, n, n) == 1
    assert info[0] == -10


@settings(max_examples=25, deadline=None)
@given(m=st.integers(1, 40), n=st.integers(1, 40), nb=st.integers(1, 12), cplx=st.booleans(),
       phi=st.sampled_from([0.0, 1.0, 4.0]), seed=st.integers(0, 2**31 - 1))
def test_gelqf_orglq_property(m, n, nb, cplx, phi, seed):
    """Any shape, block size and dynamic range: L Q reproduces A and Q's rows are orthonormal
    as natively."""
    dt = np.complex128 if cplx else np.float64
    r = np.random.default_rng(seed)
    a = _mat(r, m, n, dt) * exp(phi * standard_normal(r, (m, n)))
    lq, tau, _, info = L.gelqf(a, method="ozaki2", nb=nb)
    k = min(m, n)
    q, _, _ = L.orglq(lq[:k], tau, method="ozaki2", nb=nb)
    nlq, ntau, _ = N.gelqf(a)
    nq, _ = N.orglq(nlq[:k], ntau)
    for r_, nr, what in zip(_ratios(a, lq, q), _ratios(a, nlq, nq), ("||A - LQ||", "||QQ^H - I||")):
        _within(r_, nr, what)


def test_complex_tau_makes_the_call_complex(rng):
    """orglq (and orgqr) with real reflectors but complex tau: the complex routine, as SciPy's
    dtype promotion would pick."""
    a = _mat(rng, 5, 9, np.complex128)
    lq, tau, _, _ = L.gelqf(a)
    q, _, info = L.orglq(lq.real.copy(), tau)
    assert info == 0 and q.dtype == np.complex128
    qr, tau, _, _ = L.geqrf(a.T.copy())
    q, _, info = L.orgqr(qr.real.copy(), tau)
    assert info == 0 and q.dtype == np.complex128
