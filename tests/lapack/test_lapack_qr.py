"""Blocked QR (native/src/lapack/lapack_qr.c through ozblas.lapack): geqrf, orgqr/ungqr,
ormqr/unmqr.

Emulation forced (Ozaki II), small blocks (NB) so that the sizes cross block boundaries,
square and not (both ways). Each result is held to native LAPACK's own error on the same
inputs (SciPy's wrappers, unrouted here): ||A - QR|| / ||A|| and ||Q^H Q - I|| at most 4x
native's plus 1e-15; ormqr's products against the exact product with native's Q; on the CUDA executor the CPU
executor's bits.
"""

import numpy as np
import pytest
import scipy.linalg.lapack as la
from hypothesis import given, settings, strategies as st

from ozblas import lapack as L
from ozblas._native import ffi, lib
from ozblas.api import _context, _options
from ozblas.testing import exact_matmul, exp, standard_normal

NB = 8
EMU = dict(method="ozaki2", nb=NB)
DTYPES = [np.float64, np.complex128]
SHAPES = [(1, 1), (NB - 1, NB - 1), (NB, NB), (NB + 1, NB + 1), (3 * NB + 5, 3 * NB + 5),
          (3 * NB + 5, 2 * NB + 3), (2 * NB + 3, 3 * NB + 5), (40, 1)]


def _mat(rng, m, n, dt):
    a = standard_normal(rng, (m, n))
    return a + 1j * standard_normal(rng, (m, n)) if dt == np.complex128 else a


def _native(name, dt):
    z = dt == np.complex128
    return getattr(la, {"orgqr": "zungqr" if z else "dorgqr", "ormqr": "zunmqr" if z else "dormqr"}
                   .get(name, ("z" if z else "d") + name))


def _within(err, native, what):
    assert err <= 4 * native + 1e-15, f"{what}: {err:.3e} vs native {native:.3e}"


def _errors(a, qr, q):
    """||A - QR|| / ||A|| and ||Q^H Q - I|| for Q (m x k, from orgqr) and R from qr."""
    k = min(a.shape)
    r = np.triu(qr)[:k]
    return (np.linalg.norm(a - q[:, :k] @ r) / np.linalg.norm(a),
            np.linalg.norm(q.conj().T @ q - np.eye(q.shape[1])))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("m,n", SHAPES)
def test_geqrf_orgqr(rng, dt, m, n):
    a = _mat(rng, m, n, dt)
    qr, tau, work, info = L.geqrf(a, **EMU)
    rep = L.last_report()
    nqr, ntau, nwork, ninfo = _native("geqrf", dt)(a)
    assert info == ninfo == 0
    assert qr.dtype == tau.dtype == work.dtype == dt
    assert qr.shape == nqr.shape and tau.shape == ntau.shape and work.shape == nwork.shape
    if min(m, n) > NB:
        assert rep["emulated"] > 0 and rep["method"] == "ozaki2" and rep["moduli"]
    else:
        assert rep["products"] == 0  # one panel: the host geqrf alone
    k = min(m, n)
    q, qwork, info = L.orgqr(qr[:, :k], tau, **EMU)
    nq, _, _ = _native("orgqr", dt)(nqr[:, :k], ntau)
    assert info == 0 and q.shape == (m, k)
    err, orth = _errors(a, qr, q)
    nerr, north = _errors(a, nqr, nq)
    _within(err, nerr, "||A - QR|| / ||A||")
    _within(orth, north, "||Q^H Q - I||")
    if m > n:  # the complete Q: m columns from the n reflectors
        full = np.zeros((m, m), dtype=dt, order="F")
        full[:, :n] = qr
        qc, _, _ = L.orgqr(full, tau, **EMU)
        nfull = full.copy()
        nfull[:, :n] = nqr
        nqc, _, _ = _native("orgqr", dt)(nfull, ntau)
        _within(np.linalg.norm(qc.conj().T @ qc - np.eye(m)), np.linalg.norm(nqc.conj().T @ nqc - np.eye(m)),
                "complete Q")
        assert np.allclose(qc[:, :n], q, atol=1e-13)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("side", ["L", "R"])
@pytest.mark.parametrize("trans", ["N", "T"])
@pytest.mark.parametrize("m,n,k", [(3 * NB + 5, 6, 2 * NB + 3), (3 * NB + 5, 3 * NB + 5, 3 * NB + 5),
                                   (NB + 1, 2 * NB, NB + 1)])
def test_ormqr_every_case(rng, dt, side, trans, m, n, k):
    if dt == np.complex128 and trans == "T":
        trans = "C"
    nq = m if side == "L" else n
    if k > nq:
        k = nq
    a = _mat(rng, nq, k, dt)
    qr, tau, _, _ = _native("geqrf", dt)(a)
    full = np.zeros((nq, nq), dtype=dt)
    full[:, :k] = qr
    qf, _, _ = _native("orgqr", dt)(full, tau)
    opq = qf if trans == "N" else qf.conj().T
    c = _mat(rng, m, n, dt)
    cq, work, info = L.ormqr(side, trans, qr, tau, c, **EMU)
    assert info == 0 and L.last_report()["emulated"] > 0
    ncq, _, _ = _native("ormqr", dt)(side, trans, qr, tau, c, lwork=64 * max(m, n))
    exact = exact_matmul(opq, c) if side == "L" else exact_matmul(c, opq)
    scale = np.abs(opq) @ np.abs(c) if side == "L" else np.abs(c) @ np.abs(opq)
    _within(np.max(np.abs(cq - exact) / scale), np.max(np.abs(ncq - exact) / scale), "ormqr")


def test_workspace_query_and_scipy_shapes(rng):
    a = standard_normal(rng, (30, 20))
    qr, tau, work, info = L.geqrf(a, lwork=-1, nb=NB)
    assert info == 0 and work.shape == (1,) and work[0] >= 20  # at least a correct size
    assert np.array_equal(qr, a)  # nothing computed
    qr, tau, work, info = L.geqrf(a, lwork=100, **EMU)
    assert work.shape == (100,) and work[0] == 20 * NB
    q, work, info = L.orgqr(qr, tau, lwork=-1, nb=NB)
    assert info == 0 and work[0] >= 20


def test_leading_dimension_larger_than_the_matrix(rng):
    """The C API on matrices inside larger buffers: the same bits as the packed calls, the rows
    beyond m untouched."""
    m, n, pad = 29, 23, 5
    for dt, fn, org in ((np.float64, lib.ozblas_dgeqrf, lib.ozblas_dorgqr),
                        (np.complex128, lib.ozblas_zgeqrf, lib.ozblas_zungqr)):
        a = _mat(rng, m, n, dt)
        big = np.full((m + pad, n), 7.0, dtype=dt, order="F")
        big[:m] = a
        tau = np.zeros(n, dtype=dt)
        info = ffi.new("int64_t *")
        o = _options("ozaki2", None, None, None, None)
        p = ffi.cast("double *", big.ctypes.data)
        assert fn(_context(), m, n, p, m + pad, ffi.cast("double *", tau.ctypes.data), info, NB, o,
                  ffi.NULL) == 0 and info[0] == 0
        qr, t, _, _ = L.geqrf(a, **EMU)
        assert np.array_equal(big[:m], qr) and np.array_equal(tau, t) and np.all(big[m:] == 7.0)
        assert org(_context(), m, n, n, p, m + pad, ffi.cast("double *", tau.ctypes.data), info, NB,
                   o, ffi.NULL) == 0 and info[0] == 0
        assert np.array_equal(big[:m], L.orgqr(qr, t, **EMU)[0]) and np.all(big[m:] == 7.0)


def test_bad_arguments_give_lapack_info():
    info = ffi.new("int64_t *")
    a = np.zeros((4, 4), order="F")
    p = ffi.cast("double *", a.ctypes.data)
    t = ffi.new("double[8]")
    assert lib.ozblas_dgeqrf(_context(), 4, 4, p, 3, t, info, 0, ffi.NULL, ffi.NULL) == 1
    assert info[0] == -4
    assert lib.ozblas_dorgqr(_context(), 4, 5, 4, p, 4, t, info, 0, ffi.NULL, ffi.NULL) == 1
    assert info[0] == -2  # n > m
    assert lib.ozblas_dorgqr(_context(), 4, 3, 4, p, 4, t, info, 0, ffi.NULL, ffi.NULL) == 1
    assert info[0] == -3  # k > n
    assert lib.ozblas_dormqr(_context(), b"L", b"C", 4, 4, 4, p, 4, t, p, 4, info, 0, ffi.NULL,
                             ffi.NULL) == 1
    assert info[0] == -2  # dormqr takes 'N' or 'T'
    assert lib.ozblas_zunmqr(_context(), b"L", b"T", 4, 4, 4, p, 4, t, p, 4, info, 0, ffi.NULL,
                             ffi.NULL) == 1
    assert info[0] == -2  # zunmqr takes 'N' or 'C'
    assert lib.ozblas_dormqr(_context(), b"R", b"N", 4, 3, 4, p, 4, t, p, 4, info, 0, ffi.NULL,
                             ffi.NULL) == 1
    assert info[0] == -5  # k > n for side R
    assert lib.ozblas_dormqr(_context(), b"L", b"N", 4, 4, 2, p, 4, t, p, 3, info, 0, ffi.NULL,
                             ffi.NULL) == 1
    assert info[0] == -10


def test_threads_do_not_change_bits(rng):
    a = _mat(rng, 41, 33, np.complex128)
    one = L.geqrf(a, threads=1, **EMU)
    two = L.geqrf(a, threads=2, **EMU)
    assert np.array_equal(one[0], two[0]) and np.array_equal(one[1], two[1])


@settings(max_examples=25, deadline=None)
@given(m=st.integers(1, 40), n=st.integers(1, 40), nb=st.integers(1, 12), cplx=st.booleans(),
       phi=st.sampled_from([0.0, 1.0, 4.0]), seed=st.integers(0, 2**31 - 1))
def test_geqrf_orgqr_property(m, n, nb, cplx, phi, seed):
    """Any shape, block size and dynamic range: Q R reproduces A and Q is orthonormal as
    natively."""
    dt = np.complex128 if cplx else np.float64
    r = np.random.default_rng(seed)
    a = _mat(r, m, n, dt) * exp(phi * standard_normal(r, (m, n)))
    qr, tau, _, info = L.geqrf(a, method="ozaki2", nb=nb)
    k = min(m, n)
    q, _, _ = L.orgqr(qr[:, :k], tau, method="ozaki2", nb=nb)
    nqr, ntau, _, _ = _native("geqrf", dt)(a)
    nq, _, _ = _native("orgqr", dt)(nqr[:, :k], ntau)
    for e, ne, what in zip(_errors(a, qr, q), _errors(a, nqr, nq), ("||A - QR||", "||Q^H Q - I||")):
        _within(e, ne, what)


@pytest.mark.gpu
@pytest.mark.parametrize("dt", DTYPES)
def test_qr_and_products_cuda_equal_cpu(rng, dt):
    """The CUDA executor (host panels, host larft/trmm, every product an ozblas GEMM there):
    the CPU executor's bits. Runs where a CUDA executor is usable, and here on the CPU
    emulation of the CUDA code (tests/cuda/emu/run_emu_tests.py)."""
    m, n = 2 * NB + 5, 2 * NB + 1
    a, c, s = _mat(rng, m, n, dt), _mat(rng, m, 3, dt), _mat(rng, m, m, dt)
    runs = {}
    for ex in ("cpu", "cuda"):
        kw = dict(method="ozaki2", moduli=16, nb=NB, executor=ex)
        qr, tau, _, _ = L.geqrf(a, **kw)
        assert L.last_report()["executor"] == ex and L.last_report()["emulated"] > 0
        q, _, _ = L.orgqr(qr, tau, **kw)
        cq, _, _ = L.ormqr("L", "N" if dt == np.float64 else "C", qr, tau, c, **kw)
        y = (L.hemm if dt == np.complex128 else L.symm)(0.5, s, c, 2.0, c, lower=1, **kw)
        w = (L.her2k if dt == np.complex128 else L.syr2k)(0.5, c, c[::-1].copy(), 1.0, s, **kw)
        runs[ex] = (qr, tau, q, cq, y, w)
    for u, v in zip(runs["cpu"], runs["cuda"]):
        assert np.array_equal(np.ascontiguousarray(u).view(np.uint64), np.ascontiguousarray(v).view(np.uint64))
