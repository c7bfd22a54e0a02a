"""Least squares by a complete orthogonal factorization (native/src/lapack/lapack_gels.c
through ozblas.lapack): gelsy.

Emulation forced (Ozaki II), small blocks (NB). geqp3, the rank's condition estimates, tzrzf
and ormrz are the host's own routines on the same (scaled) matrix, so the column permutation
and the rank must be native's exactly (SciPy's dgelsy/zgelsy, unrouted here); the solution,
the minimum-norm one of the rank-r problem, is held to native's by the normal-equations ratio
of LAPACK's dqrt17, ||A^H (B - A X)|| / (max(m, n, nrhs) ||A|| ||B|| u) (for the rank-r
truncation: within 4x native's plus a floor) and by its distance from native's. Rank-
deficient, zero, fixed-column (jpvt in) and out-of-range (scaled) matrices; m >= n and m < n.
"""

import numpy as np
import pytest
import scipy.linalg.lapack as la
from hypothesis import given, settings, strategies as st

from ozblas import lapack as L
from ozblas.testing import exp, standard_normal

NB = 4
EMU = dict(method="ozaki2", nb=NB)
U = np.finfo(np.float64).eps / 2
DTYPES = [np.float64, np.complex128]
FLOOR = 4.0


def _mat(rng, m, n, dt):
    a = standard_normal(rng, (m, n))
    return a + 1j * standard_normal(rng, (m, n)) if dt == np.complex128 else a


def _low_rank(rng, m, n, r, dt):
    return _mat(rng, m, r, dt) @ _mat(rng, r, n, dt)


def _native(a, b, jpvt, cond):
    cx = np.iscomplexobj(a) or np.iscomplexobj(b)
    m, n = a.shape
    lw = (la.zgelsy_lwork if cx else la.dgelsy_lwork)(m, n, b.shape[1], cond)[0]
    f = la.zgelsy if cx else la.dgelsy
    return f(a, b, np.array(jpvt, dtype=np.int32), cond, int(np.real(lw)))


def _ratio(a, b, x):
    m, n = a.shape
    r = b[:m] - a @ x
    return np.linalg.norm(a.conj().T @ r, 1) / max(
        max(m, n, b.shape[1]) * np.linalg.norm(a, 1) * np.linalg.norm(b[:m], 1) * U, 1e-300)


def _check(a, b, cond, jpvt=None, kw=EMU):
    m, n = a.shape
    jp = np.zeros(n, dtype=np.int32) if jpvt is None else np.asarray(jpvt, dtype=np.int32)
    v, x, j, rank, info = L.gelsy(a, b, jp, cond, **kw)
    nv, nx, nj, nrank, ninfo = _native(a, b, jp, cond)
    assert info == ninfo == 0
    assert rank == nrank and np.array_equal(j, nj)
    assert x.shape == b.shape and x.dtype == np.result_type(a, b)
    # the rank-r problem both solved: A truncated to its leading rank columns of A P's R
    r, nr = _ratio(a, b, x[:n]), _ratio(a, b, nx[:n])
    if rank == min(m, n):
        assert r <= 4 * nr + FLOOR, f"gelsy: ratio {r:.3g} vs native {nr:.3g}"
    scale = max(np.linalg.norm(nx[:n]), 1e-300)
    assert np.linalg.norm(x[:n] - nx[:n]) <= 1e-8 * scale
    return rank


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("m,n,r", [(1, 1, 1), (3 * NB + 5, 2 * NB + 3, 2 * NB + 3),
                                   (2 * NB + 3, 3 * NB + 5, 2 * NB + 3), (30, 20, 7),
                                   (20, 30, 7), (4 * NB, 4 * NB, 3 * NB + 1), (25, 25, 1)])
@pytest.mark.parametrize("nrhs", [1, 3])
def test_gelsy_rank_deficient(rng, dt, m, n, r, nrhs):
    a = _low_rank(rng, m, n, r, np.float64).astype(dt)  # real rank r, also for complex
    b = _mat(rng, max(m, n), nrhs, dt)
    assert _check(a, b, 1e-10) == r
    if min(m, n) > NB:
        assert L.last_report()["emulated"] > 0


@pytest.mark.parametrize("dt", DTYPES)
def test_gelsy_fixed_columns_and_rcond(rng, dt):
    """jpvt in: nonzero entries move their columns to the front; rcond moves the rank."""
    a = _mat(rng, 3 * NB + 2, 2 * NB + 1, dt) @ np.diag(exp(np.linspace(0.0, -12.0, 2 * NB + 1) * 2.302585092994046))
    b = _mat(rng, 3 * NB + 2, 2, dt)
    jp = np.zeros(2 * NB + 1, dtype=np.int32)
    jp[[1, 2 * NB]] = 1
    _check(a, b, 1e-6, jp)
    ranks = [_check(a, b, c) for c in (1e-3, 1e-7, 1e-14)]
    assert ranks[0] < ranks[1] < ranks[2]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("sa,sb", [(1e-300, 1.0), (1e300, 1.0), (1.0, 1e-300), (1.0, 1e300)])
def test_gelsy_scaled_out_of_range(rng, dt, sa, sb):
    a = _low_rank(rng, 3 * NB + 5, 2 * NB + 3, NB + 2, np.float64).astype(dt) * sa
    b = _mat(rng, 3 * NB + 5, 2, dt) * sb
    v, x, j, rank, info = L.gelsy(a, b, None, 1e-10, **EMU)
    nv, nx, nj, nrank, ninfo = _native(a, b, np.zeros(a.shape[1]), 1e-10)
    assert rank == nrank == NB + 2 and np.array_equal(j, nj) and np.all(np.isfinite(x))
    s = sa / sb  # the solution of the unscaled problem is x s; compared there (no overflow)
    n = a.shape[1]  # rows n.. hold what LAPACK leaves there, not scaled back
    assert np.linalg.norm((x[:n] - nx[:n]) * s) <= 1e-8 * np.linalg.norm(nx[:n] * s)
    # A's R triangle is scaled back as LAPACK's
    r, nr = np.triu(v[:rank, :rank]) / sa, np.triu(nv[:rank, :rank]) / sa
    assert np.linalg.norm(r - nr) <= 1e-10 * np.linalg.norm(nr)


@pytest.mark.parametrize("dt", DTYPES)
def test_gelsy_zero_and_quick(rng, dt):
    a, b = np.zeros((7, 5), dtype=dt), _mat(rng, 7, 2, dt)
    v, x, j, rank, info = L.gelsy(a, b, None, 1e-10, **EMU)
    assert rank == 0 and info == 0 and not x.any()
    v, x, j, rank, info = L.gelsy(np.zeros((0, 5), dtype=dt), np.ones((5, 2), dtype=dt), **EMU)
    assert rank == 0 and info == 0 and (x == 1).all()  # quick return: B untouched
    v, x, j, rank, info = L.gelsy(_mat(rng, 4, 3, dt), _mat(rng, 4, 1, dt)[:, 0], **EMU)
    assert x.shape == (4,) and rank == 3


@settings(max_examples=20, deadline=None)
@given(m=st.integers(1, 24), n=st.integers(1, 24), r=st.integers(0, 24), cx=st.booleans(),
       seed=st.integers(0, 2**32 - 1))
def test_gelsy_shapes(m, n, r, cx, seed):
    rng = np.random.default_rng(seed)
    r = min(r, m, n)
    dt = np.complex128 if cx else np.float64
    a = _low_rank(rng, m, n, r, np.float64).astype(dt) if r else np.zeros((m, n), dtype=dt)
    b = _mat(rng, max(m, n), 2, dt)
    _check(a, b, 1e-9, kw=dict(method="ozaki2", nb=3))


def test_gelsy_bad_arguments(rng):
    a, b = _mat(rng, 5, 4, np.float64), _mat(rng, 4, 1, np.float64)
    with pytest.raises(ValueError, match="rows"):
        L.gelsy(a, b)
    with pytest.raises(ValueError, match="jptv"):
        L.gelsy(a, _mat(rng, 5, 1, np.float64), np.zeros(3))
