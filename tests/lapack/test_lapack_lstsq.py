"""Least squares through the singular value decomposition (native/src/lapack/lapack_svd.c
through ozblas.lapack): gelsd (the bidiagonal problem by lapack_lalsd.c: explicit vectors and
two products, or the host lalsd for few right-hand sides) and gelss (by the host bdsqr, V^H
into a).

Emulation forced (Ozaki II), small blocks (NB), d and z; square, tall and wide below and
above the QR-first threshold (1.6), very tall and very wide, one small dimension (the host
routine); random, rank-deficient, zero, graded and clustered matrices (test_lapack_svd's, with
their singular values by mpmath at 32 digits). Each result is held to the host's gelsd/gelss
on the same input (SciPy's, unrouted here) by LAPACK-style ratios, at most 4x native's plus a
floor: the singular values' error against mpmath's / (||A|| max(m, n) u), the normal
equations ||A^H (B - A X)|| / (||A||^2 ||X|| max(m, n) u); the rank, with rcond in a wide gap
of the spectrum, equal to native's; the solution of a consistent integer system against its
exact solution (mpmath at 40 digits: X itself, or the minimum-norm one for m < n) in units of
kappa u; the residual rows n..m-1 of B as LAPACK's contract gives them.
"""

import mpmath
import numpy as np
import pytest
import scipy.linalg.lapack as la
from hypothesis import HealthCheck, given, settings, strategies as st
from test_lapack_svd import STRUCTURES, _matrix

from ozblas import lapack as L
from ozblas._native import ffi, lib
from ozblas.api import _context, _options
from ozblas.testing import standard_normal

NB = 8
EMU = dict(method="ozaki2", nb=NB)
DTYPES = [np.float64, np.complex128]
DRIVERS = ["gelsd", "gelss"]
U = 2.0**-53
FLOOR = 4.0
# square across the block boundary, tall below the QR-first threshold (1.6 n) and above it,
# wide likewise, very tall, very wide, one small dimension (the host routine)
SHAPES = [(NB + 1, NB + 1), (29, 29), (20, 14), (14, 20), (39, 13), (13, 39), (90, 9), (9, 90),
          (40, 5)]


def _rhs(rng, rows, nrhs, dt):
    b = standard_normal(rng, (rows, nrhs))
    return b + 1j * standard_normal(rng, (rows, nrhs)) if dt == np.complex128 else b


def _native(driver, a, b, cond):
    cx = np.iscomplexobj(a)
    m, n = a.shape
    if driver == "gelsd":
        f, q = (la.zgelsd, la.zgelsd_lwork) if cx else (la.dgelsd, la.dgelsd_lwork)
        sizes = [int(np.real(v)) for v in q(m, n, b.shape[1], cond)[:-1]]
        x, s, rank, info = f(a, b, *sizes, cond=cond)
        return None, x, s, rank, info
    v, x, s, rank, _, info = (la.zgelss if cx else la.dgelss)(a, b, cond=cond)
    return v, x, s, rank, info


def _ours(driver, a, b, cond, **kw):
    if driver == "gelsd":
        x, s, rank, info = L.gelsd(a, b, cond=cond, **kw)
        return None, x, s, rank, info
    v, x, s, rank, work, info = L.gelss(a, b, cond=cond, **kw)
    assert work.shape == (1,)
    return v, x, s, rank, info


def _normal(a, b, x):
    m, n = a.shape
    return np.linalg.norm(a.conj().T @ (b[:m] - a @ x[:n])) / max(
        np.linalg.norm(a) ** 2 * np.linalg.norm(x[:n]) * max(m, n) * U, 1e-300)


def _vh(a, v, s):
    """gelss's v: its first k rows V^H, so (A V)^H (A V) = diag(s^2); the error / (s_1^2
    max(m, n) u)"""
    k = min(a.shape)
    w = a @ v[:k].conj().T
    return np.linalg.norm(w.conj().T @ w - np.diag(s ** 2)) / max(s[0] ** 2 * max(a.shape) * U, 1e-300)


def _check(driver, dt, a, sref, b, cond, what):
    m, n = a.shape
    k = min(m, n)
    v, x, s, rank, info = _ours(driver, a, b, cond, **EMU)
    rep = L.last_report()
    if k > NB and sref[0] > 0.0:  # (a zero A is answered before any product)
        assert rep["emulated"] > 0 and rep["method"] == "ozaki2"
    elif k <= NB:
        assert rep["products"] == 0  # one block: the host routine alone
    nv, nx, ns, nrank, ninfo = _native(driver, a, b, cond)
    assert info == ninfo == 0
    assert (x.shape, x.dtype, s.shape, s.dtype) == (nx.shape, nx.dtype, ns.shape, ns.dtype)
    assert rank == nrank, f"{what}: rank {rank} vs native {nrank}"
    assert np.all(np.diff(s) <= 0) and np.all(s >= 0)
    unit = max(sref[0], np.finfo(float).tiny) * max(m, n) * U
    es, ens = np.abs(s - sref).max() / unit, np.abs(ns - sref).max() / unit
    assert es <= 4 * ens + 0.5, f"{what} values: {es:.3g} vs native {ens:.3g}"
    if sref[0] == 0.0:
        assert not np.any(x) and rank == 0
        return
    if rank == k:
        r, nr = _normal(a, b, x), _normal(a, b, nx)
        assert r <= 4 * nr + FLOOR, f"{what} normal equations: {r:.3g} vs native {nr:.3g}"
        if m > n:  # rows n..m-1: Q^H B's, their squares the residual
            res = np.linalg.norm(b - a @ x[:n], axis=0)
            assert np.allclose(np.linalg.norm(x[n:], axis=0), res, rtol=1e-8 * sref[0] / sref[-1])
    # the rank-r solution: conditioned by s_1 / s_r
    kappa = sref[0] / sref[rank - 1]
    assert np.linalg.norm(x[:n] - nx[:n]) <= 100 * kappa * max(m, n) * U * np.linalg.norm(nx[:n])
    if driver == "gelss" and rank == k:
        e, ne = _vh(a, v, s), _vh(a, nv, ns)
        assert e <= 4 * ne + 0.5, f"{what} V^H: {e:.3g} vs native {ne:.3g}"


def _gap_cond(sref):
    """An rcond in the widest relative gap of the spectrum's upper part (a rank both agree
    on), or -1 when the smallest value is far above machine epsilon."""
    if sref[0] == 0.0:
        return -1.0
    s = sref[sref > 1e-13 * sref[0]]
    if len(s) == len(sref) and sref[-1] > 1e-10 * sref[0]:
        return -1.0
    if len(s) < 2:
        return 1e-13
    j = int(np.argmax(s[:-1] / s[1:]))
    return float(np.sqrt(s[j] * s[j + 1]) / sref[0])


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_lstsq_shapes(driver, dt, shape):
    a, sref = _matrix("random", *shape, dt)
    rng = np.random.default_rng(list(shape))
    for nrhs in (1, 3):
        b = _rhs(rng, max(shape), nrhs, dt)
        _check(driver, dt, a, sref, b, -1.0, f"{driver} {shape} nrhs {nrhs}")


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("structure", STRUCTURES[1:])
@pytest.mark.parametrize("shape", [(29, 29), (39, 13), (13, 20)])
def test_lstsq_structures(driver, dt, structure, shape):
    a, sref = _matrix(structure, *shape, dt)
    b = _rhs(np.random.default_rng(3), max(shape), 2, dt)
    cond = _gap_cond(sref)
    _check(driver, dt, a, sref, b, cond, f"{driver} {structure} {shape} cond {cond:.2g}")


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(30, 12), (12, 30), (25, 25)])
def test_lstsq_consistent_against_exact(driver, dt, shape):
    """A consistent system of small integers (exact in doubles): the exact solution (m >= n:
    X; m < n: the minimum-norm A^H (A A^H)^-1 B) at 40 digits; the error / (kappa u) within
    4x native's plus a floor."""
    m, n = shape
    rng = np.random.default_rng([m, n, 9])
    ints = lambda r, c: rng.integers(-4, 5, (r, c)) + (1j * rng.integers(-4, 5, (r, c))  # noqa: E731
                                                        if dt == np.complex128 else 0)
    a = np.asfortranarray(ints(m, n).astype(dt))
    xt = ints(n, 2)
    b = np.zeros((max(m, n), 2), dtype=dt)
    b[:m] = a @ xt  # integers: exact
    mpmath.mp.dps = 40
    A = mpmath.matrix(a.tolist())
    if m >= n:
        exact = np.array(xt, dtype=dt)
    else:
        AH = A.H if dt == np.complex128 else A.T
        cols = [AH * mpmath.lu_solve(A * AH, mpmath.matrix(b[:m, j].tolist())) for j in range(2)]
        exact = np.array([[complex(c[i]) for c in cols] for i in range(n)])
        exact = exact if dt == np.complex128 else exact.real
    sv = np.linalg.svd(a, compute_uv=False)
    unit = sv[0] / sv[-1] * U * np.linalg.norm(exact)
    err = np.linalg.norm(_ours(driver, a, b.copy(), -1.0, **EMU)[1][:n] - exact) / unit
    nerr = np.linalg.norm(_native(driver, a, b.copy(), -1.0)[1][:n] - exact) / unit
    assert err <= 4 * nerr + 10 * max(m, n), f"{driver} {shape}: {err:.3g} vs native {nerr:.3g}"


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("sa,sb", [(1e-300, 1.0), (1e300, 1.0), (1.0, 1e-300), (1.0, 1e300)])
def test_lstsq_scaled_out_of_range(driver, dt, sa, sb):
    a0, sref = _matrix("random", 29, 13, dt)
    a = a0 * sa
    b = _rhs(np.random.default_rng(5), 29, 2, dt) * sb
    v, x, s, rank, info = _ours(driver, a, b, -1.0, **EMU)
    nv, nx, ns, nrank, ninfo = _native(driver, a, b, -1.0)
    assert info == ninfo == 0 and rank == nrank == 13
    assert np.allclose(s / sa, sref, rtol=1e-13, atol=0)
    assert np.linalg.norm((x[:13] - nx[:13]) / sb) <= 1e-12 * np.linalg.norm(nx[:13] / sb)


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("dt", DTYPES)
def test_lstsq_zero_empty_and_query(driver, dt):
    b = _rhs(np.random.default_rng(1), 20, 2, dt)
    # zero A: X = 0, s = 0, rank 0; zero B: X = 0, rank min(m, n)
    v, x, s, rank, info = _ours(driver, np.zeros((20, 12), dtype=dt), b, -1.0, **EMU)
    assert info == 0 and rank == 0 and not np.any(x) and not np.any(s)
    v, x, s, rank, info = _ours(driver, _matrix("random", 20, 12, dt)[0], np.zeros_like(b), -1.0, **EMU)
    assert info == 0 and rank == 12 and not np.any(x)
    # an empty A: LAPACK's quick return (rank 0, B as given, as dgelsd/dgelss; not gels's X = 0)
    for shape in ((0, 5), (5, 0)):
        v, x, s, rank, info = _ours(driver, np.zeros(shape, dtype=dt), np.ones((5, 2), dtype=dt), -1.0, **EMU)
        assert info == 0 and rank == 0 and s.shape == (0,) and np.array_equal(x, np.ones((5, 2)))
    # a vector b; lwork -1: a query, b returned as given
    a = _matrix("random", 20, 12, dt)[0]
    xv = _ours(driver, a, b[:, 0], -1.0, **EMU)[1]
    assert xv.shape == (20,) and np.array_equal(xv, _ours(driver, a, b[:, :1], -1.0, **EMU)[1][:, 0])
    q = L.gelsd(a, b, lwork=-1) if driver == "gelsd" else L.gelss(a, b, lwork=-1)
    assert np.array_equal(q[0] if driver == "gelsd" else q[1], b)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(7, 5), (20, 12), (12, 20)])
def test_lstsq_no_rhs(shape, dt):
    """nrhs 0 as LAPACK's: gelsd's lalsd refuses it (info -4, its xerbla's line on stderr), gelss
    gives s and the rank; within one block and beyond."""
    a = _matrix("random", *shape, dt)[0]
    b = np.zeros((max(shape), 0), dtype=dt)
    assert _native("gelsd", a, b, -1.0)[4] == -4
    with pytest.raises(ValueError, match="argument 4"):
        L.gelsd(a, b, cond=-1.0, **EMU)
    _, _, sn, rn, _ = _native("gelss", a, b, -1.0)
    v, x, s, rank, info = _ours("gelss", a, b, -1.0, **EMU)
    assert info == 0 and rank == rn == min(shape) and x.shape == b.shape
    assert np.max(np.abs(s - sn)) <= 64 * np.finfo(float).eps * sn[0]


def test_lstsq_argument_errors():
    info, rank = ffi.new("int64_t *"), ffi.new("int64_t *")
    a = np.zeros((8, 8))
    p, s = ffi.cast("double *", a.ctypes.data), ffi.new("double[8]")
    o = _options("ozaki2", 16, None, "cpu", None, None, None)
    for fn in (lib.ozblas_dgelsd, lib.ozblas_zgelsd, lib.ozblas_dgelss, lib.ozblas_zgelss):
        for args, want in [((-1, 4, 1, p, 4, p, 4), -1), ((4, -1, 1, p, 4, p, 4), -2),
                           ((4, 4, -1, p, 4, p, 4), -3), ((4, 4, 1, p, 3, p, 4), -5),
                           ((4, 6, 1, p, 4, p, 5), -7), ((6, 4, 1, p, 6, p, 5), -7)]:
            assert fn(_context(), *args, s, -1.0, rank, info, 0, o, ffi.NULL) != 0
            assert info[0] == want, (fn, args)
    with pytest.raises(ValueError, match="max"):
        L.gelsd(np.ones((5, 3)), np.ones((3, 1)))
    with pytest.raises(ValueError, match="max"):
        L.gelss(np.ones((3, 5)), np.ones((3, 1)))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 40), n=st.integers(1, 40), nrhs=st.integers(1, 4), nb=st.sampled_from([4, 8]),
       cplx=st.booleans(), driver=st.sampled_from(DRIVERS), seed=st.integers(0, 2**16))
def test_lstsq_drawn_shapes_and_blocks(m, n, nrhs, nb, cplx, driver, seed):
    dt = np.complex128 if cplx else np.float64
    rng = np.random.default_rng(seed)
    a = np.asfortranarray(_rhs(rng, m, n, dt))
    b = _rhs(rng, max(m, n), nrhs, dt)
    v, x, s, rank, info = _ours(driver, a, b, -1.0, method="ozaki2", nb=nb)
    nv, nx, ns, nrank, ninfo = _native(driver, a, b, -1.0)
    assert info == ninfo == 0 and rank == nrank
    assert np.abs(s - ns).max() <= 50 * max(m, n) * U * ns[0]
    r, nr = _normal(a, b, x), _normal(a, b, nx)
    assert r <= 4 * nr + FLOOR
