"""Bidiagonal reduction in LAPACK's one-stage format (native/src/lapack/lapack_brd.c through
ozblas.lapack): gebrd, orgbr/ungbr, ormbr/unmbr.

Emulation forced (Ozaki II), small blocks (NB): square, tall, wide, m >> n, shapes across the
block boundaries. gebrd is held to the host LAPACK's (through cython_lapack, unrouted here) by
LAPACK's test ratios (dbdt01, dort01): ||A - Q B P^H|| / (||A|| max(m, n) u) and the
orthogonality of Q and P^H, at most 4x native's plus a floor; B's singular values are A's
(to ||A|| max(m, n) u). orgbr and ormbr are checked on the host gebrd's reflectors in every
one of LAPACK's cases (Q of an m x k reduction with m >= k and m < k, P^H of a k x n one with
k < n and k >= n; ormbr's side, trans, and nq >= k or nq < k) against the host orgbr and
ormbr on the same reflectors (their rounding differs: to a small multiple of u).
"""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import _native_brd as N
from ozblas import lapack as L
from ozblas._native import ffi, lib
from ozblas.api import _context, _options
from ozblas.testing import standard_normal

NB = 4
EMU = dict(method="ozaki2", nb=NB)
U = np.finfo(np.float64).eps / 2
DTYPES = [np.float64, np.complex128]
FLOOR = 4.0
SHAPES = [(1, 1), (1, 6), (6, 1), (NB, NB), (NB + 1, NB + 1), (3 * NB + 5, 2 * NB + 3),
          (2 * NB + 3, 3 * NB + 5), (4 * NB + 1, 4 * NB + 1), (40, 7), (7, 40)]


def _mat(rng, m, n, dt):
    a = standard_normal(rng, (m, n))
    return a + 1j * standard_normal(rng, (m, n)) if dt == np.complex128 else a


def _bidiag(d, e, m, n):
    k = len(d)
    b = np.diag(d).astype(complex if np.iscomplexobj(d) else float)
    if k > 1:
        b += np.diag(e, 1) if m >= n else np.diag(e, -1)
    return b


def _fact(a, q, b, pt):
    return np.linalg.norm(a - q @ b @ pt) / (np.linalg.norm(a) * max(a.shape) * U)


def _orth(q, rows=False):
    q = q.conj().T if rows else q
    return np.linalg.norm(q.conj().T @ q - np.eye(q.shape[1])) / (max(q.shape) * U)


def _explicit(mod, c, tq, tp, m, n, **kw):
    """Q (m x k) and P^H (k x n) of an m x n reduction, k = min(m, n)."""
    k = min(m, n)
    q = mod.orgbr("Q", c[:, :k].copy(), tq, n, **kw)[0]
    pt = mod.orgbr("P", c[:k, :].copy(), tp, m, **kw)[0]
    return q, pt


def _check_gebrd(a, got):
    m, n = a.shape
    c, d, e, tq, tp, info = got
    assert info == 0 and d.dtype == e.dtype == np.float64
    assert d.shape == (min(m, n),) and e.shape == (max(min(m, n) - 1, 0),)
    nc, nd, ne, ntq, ntp, _ = N.gebrd(a)
    q, pt = _explicit(L, c, tq, tp, m, n, **EMU)
    nq, npt = _explicit(N, nc, ntq, ntp, m, n)
    r, nr = _fact(a, q, _bidiag(d, e, m, n), pt), _fact(a, nq, _bidiag(nd, ne, m, n), npt)
    assert r <= 4 * nr + FLOOR, f"||A - Q B P^H||: {r:.3g} vs native {nr:.3g}"
    for x, nx, rows in ((q, nq, False), (pt, npt, True)):
        assert _orth(x, rows) <= 4 * _orth(nx, rows) + FLOOR
    sv = np.linalg.svd(a, compute_uv=False)
    assert np.abs(np.linalg.svd(_bidiag(d, e, m, n), compute_uv=False) - sv).max() <= \
        20 * max(m, n) * U * max(sv.max(), 1e-300)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("m,n", SHAPES)
def test_gebrd(rng, dt, m, n):
    a = _mat(rng, m, n, dt)
    got = L.gebrd(a, **EMU)
    rep = L.last_report()
    assert got[0].dtype == dt and got[3].dtype == got[4].dtype == dt
    if min(m, n) > NB:  # the trailing updates are products
        assert rep["emulated"] > 0 and rep["method"] == "ozaki2"
    _check_gebrd(a, got)


@settings(max_examples=25, deadline=None)
@given(m=st.integers(1, 30), n=st.integers(1, 30), nb=st.integers(2, 9), cx=st.booleans(),
       seed=st.integers(0, 2**32 - 1))
def test_gebrd_shapes(m, n, nb, cx, seed):
    a = _mat(np.random.default_rng(seed), m, n, np.complex128 if cx else np.float64)
    got = L.gebrd(a, method="ozaki2", nb=nb)
    _check_gebrd(a, got)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("vect,ma,na,rows,cols", [
    ("Q", 13, 5, 13, 5), ("Q", 13, 5, 13, 9), ("Q", 13, 5, 13, 13),  # m >= k, n from k to m
    ("Q", 9, 13, 9, 9),                                                # m < k: the shifted form
    ("P", 5, 13, 5, 13), ("P", 5, 13, 9, 13), ("P", 5, 13, 13, 13),  # k < n
    ("P", 13, 9, 9, 9), ("P", 9, 9, 9, 9)])                          # k >= n: the shifted form
def test_orgbr_every_case(rng, dt, vect, ma, na, rows, cols):
    """Q (or P^H) from the host gebrd's reflectors of an ma x na matrix: rows x cols of it, as
    the host orgbr forms them; k is the reduced matrix's other dimension."""
    a = _mat(rng, ma, na, dt)
    c, d, e, tq, tp, _ = N.gebrd(a)
    tau, k = (tq, na) if vect == "Q" else (tp, ma)
    f = np.zeros((rows, cols), dtype=dt)
    r, s = min(rows, ma), min(cols, na)
    f[:r, :s] = c[:r, :s]
    got, work, info = L.orgbr(vect, f, tau, k, **EMU)
    want, ninfo = N.orgbr(vect, f, tau, k)
    assert info == ninfo == 0 and got.shape == (rows, cols)
    assert np.linalg.norm(got - want) <= 50 * max(rows, cols) * U * np.sqrt(min(rows, cols))
    assert _orth(got, vect == "P") <= 4 * _orth(want, vect == "P") + FLOOR


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("ma,na", [(13, 9), (9, 13), (9, 9), (3 * NB + 5, 1)])
@pytest.mark.parametrize("vect", ["Q", "P"])
@pytest.mark.parametrize("side", ["L", "R"])
@pytest.mark.parametrize("tr", ["N", "T"])
def test_ormbr_every_case(rng, dt, ma, na, vect, side, tr):
    """op(Q) C, C op(Q), op(P) C, C op(P) with the host gebrd's reflectors of an ma x na
    matrix: Q is ma x ma (k = na: nq >= k or the shifted nq < k), P na x na (k = ma)."""
    trans = ("C" if dt == np.complex128 else "T") if tr == "T" else "N"
    a = _mat(rng, ma, na, dt)
    c, d, e, tq, tp, _ = N.gebrd(a)
    nq, k, tau = (ma, na, tq) if vect == "Q" else (na, ma, tp)
    refl = c[:, :min(nq, k)] if vect == "Q" else c[:min(nq, k), :]
    x = _mat(rng, nq, 5, dt) if side == "L" else _mat(rng, 5, nq, dt)
    got, work, info = L.ormbr(vect, side, trans, refl, tau, x, k, **EMU)
    want, ninfo = N.ormbr(vect, side, trans, refl, tau, x, k)
    assert info == ninfo == 0
    assert np.linalg.norm(got - want) <= 50 * nq * U * np.linalg.norm(x)


def test_complex_names_and_queries(rng):
    a = _mat(rng, 9, 7, np.complex128)
    c, d, e, tq, tp, info = L.gebrd(a, **EMU)
    assert L.ungbr("Q", c[:, :7].copy(), tq, 7, **EMU)[0].dtype == np.complex128
    x = _mat(rng, 9, 2, np.complex128)
    assert np.array_equal(L.unmbr("Q", "L", "N", c, tq, x, 7, **EMU)[0],
                          L.ormbr("Q", "L", "N", c, tq, x, 7, **EMU)[0])
    # workspace queries compute nothing
    q, work, info = L.gebrd(a, lwork=-1)[0], None, L.gebrd(a, lwork=-1)[-1]
    assert info == 0 and np.array_equal(q, a)
    same, work, info = L.orgbr("Q", c[:, :7].copy(), tq, 7, lwork=-1, **EMU)
    assert info == 0 and np.array_equal(same, c[:, :7]) and work[0] >= 7


@pytest.mark.parametrize("call, match", [
    (lambda c, t: L.orgbr("X", c, t, 7), "vect"),
    (lambda c, t: L.orgbr("Q", c, t, -1), "k=-1"),
    (lambda c, t: L.orgbr("Q", c[:5, :], t, 7), "argument 3"),  # n > m for vect Q
    (lambda c, t: L.orgbr("P", c, t, 9), "argument 3"),         # m > n for vect P
    (lambda c, t: L.ormbr("Q", "X", "N", c, t, c, 7), "side"),
    (lambda c, t: L.ormbr("Q", "L", "C", c, t, c, 7), "trans"),
    (lambda c, t: L.orgbr("Q", c, t[:3], 7), "tau"),
])
def test_bad_arguments(rng, call, match):
    c, d, e, tq, tp, _ = N.gebrd(_mat(rng, 9, 7, np.float64))
    with pytest.raises(ValueError, match=match):
        call(c, tq)


def test_c_api_info_and_quick_returns():
    """netlib's argument checks through the C API (info = -i, status 1), and quick returns."""
    o = _options("ozaki2", None, None, "cpu", None, None, None)
    info, rep = ffi.new("int64_t *"), ffi.new("ozblas_lapack_report *")
    a = np.zeros((4, 4), order="F")
    p = ffi.cast("double *", a.ctypes.data)
    ctx = _context()
    assert lib.ozblas_dgebrd(ctx, -1, 4, p, 4, p, p, p, p, info, 0, o, rep) == 1 and info[0] == -1
    assert lib.ozblas_dgebrd(ctx, 4, 4, p, 3, p, p, p, p, info, 0, o, rep) == 1 and info[0] == -4
    assert lib.ozblas_dorgbr(ctx, b"Q", 4, 4, 4, p, 3, p, info, 0, o, rep) == 1 and info[0] == -6
    assert lib.ozblas_dormbr(ctx, b"P", b"L", b"N", 4, 4, 6, p, 3, p, p, 4, info, 0, o, rep) == 1 \
        and info[0] == -8  # lda >= min(nq, k) = 4 for P
    assert lib.ozblas_dormbr(ctx, b"Q", b"L", b"N", 4, 4, 2, p, 4, p, p, 3, info, 0, o, rep) == 1 \
        and info[0] == -11
    assert lib.ozblas_dgebrd(ctx, 0, 4, p, 1, p, p, p, p, info, 0, o, rep) == 0 and info[0] == 0
    assert lib.ozblas_dormbr(ctx, b"Q", b"L", b"N", 4, 0, 2, p, 4, p, p, 4, info, 0, o, rep) == 0
