"""Blocked QR and LQ (native/src/lapack/lapack_qr.c through ozblas.lapack): geqrf,
orgqr/ungqr, ormqr/unmqr, and gelqf, orglq/unglq, ormlq/unmlq, which run the same drivers on
the view A^H (A = L Q is A^H = Q^H L^H): every test below runs for both, its checks on the
view.

Emulation forced (Ozaki II), small blocks (NB) so that the sizes cross block boundaries:
square, tall, wide, m >> n, n >> m. Each result is held to the host LAPACK's own on the same
inputs (SciPy's geqrf/orgqr/ormqr wrappers; gelqf/orglq/ormlq through
scipy.linalg.cython_lapack: _native.py; unrouted here): LAPACK's test ratios
||A - QR|| / (||A|| max(m, n) u) and ||Q^H Q - I|| / (n u) at most 4x native's plus 1 (the
ratios are of order 1), ormqr's and ormlq's products against the exact product with native's
Q at most 4x native's error plus 1e-15.
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
SHAPES = [(1, 1), (NB - 1, NB - 1), (NB, NB), (NB + 1, NB + 1), (3 * NB + 5, 3 * NB + 5),
          (3 * NB + 5, 2 * NB + 3), (2 * NB + 3, 3 * NB + 5), (40, 1), (3 * (NB + 2), NB + 2),
          (NB + 2, 3 * (NB + 2)), (100, 7), (7, 100), (2 * NB + 3, 90)]


def _mat(rng, m, n, dt):
    a = standard_normal(rng, (m, n))
    return a + 1j * standard_normal(rng, (m, n)) if dt == np.complex128 else a


def _la(name, dt):
    z = dt == np.complex128
    return getattr(la, ("z" if z else "d") + ({"orgqr": "ungqr", "ormqr": "unmqr"}.get(name, name)
                                              if z else name))


class QR:
    """The routines of one factorization and the view its checks are written on."""

    factor, generate, apply = L.geqrf, L.orgqr, L.ormqr
    c_api = ((np.float64, lib.ozblas_dgeqrf, lib.ozblas_dorgqr),
             (np.complex128, lib.ozblas_zgeqrf, lib.ozblas_zungqr))

    @staticmethod
    def view(x):
        return x

    @staticmethod
    def store(full, f, k):
        """full's first k reflectors := f's"""
        full[:, :k] = f[:, :k]

    @staticmethod
    def native_factor(a):
        f, tau, _, info = _la("geqrf", a.dtype)(a)
        return f, tau, info

    @staticmethod
    def native_generate(f, tau):
        return _la("orgqr", f.dtype)(f, tau)[0]

    @staticmethod
    def native_apply(side, trans, f, tau, c):
        return _la("ormqr", c.dtype)(side, trans, f, tau, c, lwork=64 * max(c.shape))[0]


class LQ(QR):
    factor, generate, apply = L.gelqf, L.orglq, L.ormlq
    c_api = ((np.float64, lib.ozblas_dgelqf, lib.ozblas_dorglq),
             (np.complex128, lib.ozblas_zgelqf, lib.ozblas_zunglq))

    @staticmethod
    def view(x):
        return x.conj().T

    @staticmethod
    def store(full, f, k):
        full[:k] = f[:k]

    @staticmethod
    def native_factor(a):
        return N.gelqf(a)

    @staticmethod
    def native_generate(f, tau):
        return N.orglq(f, tau)[0]

    @staticmethod
    def native_apply(side, trans, f, tau, c):
        return N.ormlq(side, trans, f, tau, c)[0]


KINDS = [pytest.param(QR, id="qr"), pytest.param(LQ, id="lq")]


def _first(kind, f, k):
    """The first k reflectors of f as stored (QR: columns, LQ: rows)."""
    return kind.view(kind.view(f)[:, :k])


def _within(ratio, native, what, floor=1.0):
    assert ratio <= 4 * native + floor, f"{what}: {ratio:.3g} vs native {native:.3g}"


def _ratios(kind, a, f, q):
    """LAPACK's test ratios on the view (m x n): ||A - Q R|| / (||A|| max(m, n) u) and
    ||Q^H Q - I|| / (m u), Q the first k = min(m, n) columns, R from f's upper triangle."""
    a, f, q = kind.view(a), kind.view(f), kind.view(q)
    m, n = a.shape
    k = min(m, n)
    r = np.triu(f)[:k]
    return (np.linalg.norm(a - q[:, :k] @ r) / (np.linalg.norm(a) * max(m, n) * U),
            np.linalg.norm(q.conj().T @ q - np.eye(q.shape[1])) / (m * U))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("m,n", SHAPES)
def test_factor_and_generate(rng, kind, dt, m, n):
    a = _mat(rng, m, n, dt)
    f, tau, work, info = kind.factor(a, **EMU)
    rep = L.last_report()
    nf, ntau, ninfo = kind.native_factor(a)
    k = min(m, n)
    assert info == ninfo == 0
    assert f.dtype == tau.dtype == work.dtype == dt and f.shape == (m, n) and tau.shape == (k,)
    if k > NB:
        assert rep["emulated"] > 0 and rep["method"] == "ozaki2" and rep["moduli"]
        if k >= 3 * NB:  # most flops in products once the panels are a small part
            assert rep["emulated_flops"] > 0.5 * rep["flops"]
    else:
        assert rep["products"] == 0  # one panel: the host geqrf/gelqf alone
    q, _, info = kind.generate(_first(kind, f, k), tau, **EMU)
    nq = kind.native_generate(_first(kind, nf, k), ntau)
    assert info == 0 and kind.view(q).shape == (kind.view(a).shape[0], k)
    for r, nr, what in zip(_ratios(kind, a, f, q), _ratios(kind, a, nf, nq), ("A - QR", "Q^H Q - I")):
        _within(r, nr, what)
    vm, vn = kind.view(a).shape
    if vm > vn:  # the complete Q: all vm columns of the view from the vn reflectors
        full, nfull = np.zeros((vm, vm), dtype=dt, order="F"), np.zeros((vm, vm), dtype=dt, order="F")
        kind.store(full, f, vn)
        kind.store(nfull, nf, vn)
        qc, _, _ = kind.generate(full, tau, **EMU)
        nqc = kind.native_generate(nfull, ntau)
        eye = np.eye(vm)
        _within(np.linalg.norm(kind.view(qc).conj().T @ kind.view(qc) - eye) / (vm * U),
                np.linalg.norm(kind.view(nqc).conj().T @ kind.view(nqc) - eye) / (vm * U),
                "complete Q")
        assert np.allclose(kind.view(qc)[:, :vn], kind.view(q), atol=1e-13)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("side", ["L", "R"])
@pytest.mark.parametrize("trans", ["N", "T"])
@pytest.mark.parametrize("m,n,k", [(3 * NB + 5, 6, 2 * NB + 3), (3 * NB + 5, 3 * NB + 5, 3 * NB + 5),
                                   (NB + 1, 2 * NB, NB + 1), (5, 4 * NB, 5)])
def test_apply_every_case(rng, kind, dt, side, trans, m, n, k):
    if dt == np.complex128 and trans == "T":
        trans = "C"
    nq = m if side == "L" else n
    k = min(k, nq)
    a = kind.view(_mat(rng, nq, k, dt)).copy(order="F")  # k reflectors of order nq
    f, tau, _ = kind.native_factor(a)
    full = np.zeros((nq, nq), dtype=dt, order="F")
    kind.store(full, f, k)
    qf = kind.native_generate(full, tau)
    opq = qf if trans == "N" else qf.conj().T
    c = _mat(rng, m, n, dt)
    cq, work, info = kind.apply(side, trans, f, tau, c, **EMU)
    assert info == 0 and L.last_report()["emulated"] > 0
    ncq = kind.native_apply(side, trans, f, tau, c)
    exact = exact_matmul(opq, c) if side == "L" else exact_matmul(c, opq)
    scale = np.abs(opq) @ np.abs(c) if side == "L" else np.abs(c) @ np.abs(opq)
    _within(np.max(np.abs(cq - exact) / scale), np.max(np.abs(ncq - exact) / scale), "apply",
            floor=1e-15)


@pytest.mark.parametrize("kind", KINDS)
def test_workspace_query_and_lapack_shapes(rng, kind):
    a = kind.view(standard_normal(rng, (30, 20))).copy()  # 20 reflectors of order 30
    f, tau, work, info = kind.factor(a, lwork=-1, nb=NB)
    assert info == 0 and work.shape == (1,) and work[0] >= 20  # at least a correct size
    assert np.array_equal(f, a)  # nothing computed
    f, tau, work, info = kind.factor(a, lwork=100, **EMU)
    assert work.shape == (100,) and work[0] == 20 * NB  # LAPACK's optimal size
    q, work, info = kind.generate(f, tau, lwork=-1, nb=NB)
    assert info == 0 and work[0] >= 20
    c = standard_normal(rng, (30, 4))
    cq, work, info = kind.apply("L", "T", f, tau, c, lwork=-1, nb=NB)
    assert info == 0 and np.array_equal(cq, c)


@pytest.mark.parametrize("kind", KINDS)
def test_leading_dimension_larger_than_the_matrix(rng, kind):
    """The C API on matrices inside larger buffers: the same bits as the packed calls, the rows
    beyond m untouched."""
    m, n, pad = kind.view(np.zeros((29, 23))).shape + (5,)
    k = min(m, n)
    for dt, fn, gen in kind.c_api:
        a = _mat(rng, m, n, dt)
        big = np.full((m + pad, n), 7.0, dtype=dt, order="F")
        big[:m] = a
        tau = np.zeros(k, dtype=dt)
        info = ffi.new("int64_t *")
        o = _options("ozaki2", None, None, None, None)
        p = ffi.cast("double *", big.ctypes.data)
        assert fn(_context(), m, n, p, m + pad, ffi.cast("double *", tau.ctypes.data), info, NB, o,
                  ffi.NULL) == 0 and info[0] == 0
        f, t, _, _ = kind.factor(a, **EMU)
        assert np.array_equal(big[:m], f) and np.array_equal(tau, t) and np.all(big[m:] == 7.0)
        assert gen(_context(), m, n, k, p, m + pad, ffi.cast("double *", tau.ctypes.data), info,
                   NB, o, ffi.NULL) == 0 and info[0] == 0
        assert np.array_equal(big[:m], kind.generate(f, t, **EMU)[0]) and np.all(big[m:] == 7.0)


def test_bad_arguments_give_lapack_info_qr():
    info = ffi.new("int64_t *")
    a = np.zeros((4, 4), order="F")
    p = ffi.cast("double *", a.ctypes.data)
    t = ffi.new("double[8]")
    n = ffi.NULL
    assert lib.ozblas_dgeqrf(_context(), 4, 4, p, 3, t, info, 0, n, n) == 1 and info[0] == -4
    assert lib.ozblas_dorgqr(_context(), 4, 5, 4, p, 4, t, info, 0, n, n) == 1
    assert info[0] == -2  # n > m
    assert lib.ozblas_dorgqr(_context(), 4, 3, 4, p, 4, t, info, 0, n, n) == 1
    assert info[0] == -3  # k > n
    assert lib.ozblas_dormqr(_context(), b"L", b"C", 4, 4, 4, p, 4, t, p, 4, info, 0, n, n) == 1
    assert info[0] == -2  # dormqr takes 'N' or 'T'
    assert lib.ozblas_zunmqr(_context(), b"L", b"T", 4, 4, 4, p, 4, t, p, 4, info, 0, n, n) == 1
    assert info[0] == -2  # zunmqr takes 'N' or 'C'
    assert lib.ozblas_dormqr(_context(), b"R", b"N", 4, 3, 4, p, 4, t, p, 4, info, 0, n, n) == 1
    assert info[0] == -5  # k > n for side R
    assert lib.ozblas_dormqr(_context(), b"L", b"N", 4, 4, 2, p, 4, t, p, 3, info, 0, n, n) == 1
    assert info[0] == -10


def test_bad_arguments_give_lapack_info_lq():
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


def test_threads_do_not_change_bits(rng):
    a = _mat(rng, 41, 33, np.complex128)
    for kind in (QR, LQ):
        one = kind.factor(a, threads=1, **EMU)
        two = kind.factor(a, threads=2, **EMU)
        assert np.array_equal(one[0], two[0]) and np.array_equal(one[1], two[1])


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=25, deadline=None)
@given(m=st.integers(1, 40), n=st.integers(1, 40), nb=st.integers(1, 12), cplx=st.booleans(),
       phi=st.sampled_from([0.0, 1.0, 4.0]), seed=st.integers(0, 2**31 - 1))
def test_factor_and_generate_property(kind, m, n, nb, cplx, phi, seed):
    """Any shape, block size and dynamic range: the factors reproduce A and Q is orthonormal
    as natively."""
    dt = np.complex128 if cplx else np.float64
    r = np.random.default_rng(seed)
    a = _mat(r, m, n, dt) * exp(phi * standard_normal(r, (m, n)))
    f, tau, _, info = kind.factor(a, method="ozaki2", nb=nb)
    k = min(m, n)
    q, _, _ = kind.generate(_first(kind, f, k), tau, method="ozaki2", nb=nb)
    nf, ntau, _ = kind.native_factor(a)
    nq = kind.native_generate(_first(kind, nf, k), ntau)
    for e, ne, what in zip(_ratios(kind, a, f, q), _ratios(kind, a, nf, nq), ("A - QR", "Q^H Q - I")):
        _within(e, ne, what)


def _recursive_panel_case(kind, a, nb, same_r=True):
    """geqrf/gelqf with native products and panels wider than the recursive panel QR's leaf
    of 32 columns (lapack_qr.c rqrt): its V, tau and R reproduce A with an orthonormal Q as
    the host's do, and its T is right since the next panel is updated through it; same_r: R
    is the host's up to the signs of its rows."""
    k = min(a.shape)
    f, tau, _, info = kind.factor(a, method="native", nb=nb)
    rep = L.last_report()
    q, _, _ = kind.generate(_first(kind, f, k), tau, method="native", nb=nb)
    nf, ntau, _ = kind.native_factor(a)
    nq = kind.native_generate(_first(kind, nf, k), ntau)
    assert info == 0
    for e, ne, what in zip(_ratios(kind, a, f, q), _ratios(kind, a, nf, nq), ("A - QR", "Q^H Q - I")):
        _within(e, ne, what)
    if not same_r:
        return rep
    r, nr = np.triu(kind.view(f)[:k]), np.triu(kind.view(nf)[:k])
    d = np.diag(r) / np.diag(nr)
    assert np.allclose(np.abs(d), 1.0, atol=1e-12)
    assert np.linalg.norm(r - d[:, None] * nr) <= 1e-12 * np.linalg.norm(nr) * k
    return rep


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("m,n,nb", [(300, 160, 75), (163, 160, 75), (200, 130, 64)])
def test_recursive_panel_native(rng, kind, dt, m, n, nb):
    """Tall and nearly square, panels split once or twice (75: 37 + 38, then leaves of 18
    and 19; 64: two leaves of 32): most of the panels' flops run as products."""
    a = kind.view(_mat(rng, m, n, dt)).copy() if kind is LQ else _mat(rng, m, n, dt)
    rep = _recursive_panel_case(kind, a, nb)
    assert rep["host_flops"] < 0.5 * rep["flops"]


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=15, deadline=None)
@given(m=st.integers(33, 130), n=st.integers(33, 100), nb=st.integers(33, 90),
       cplx=st.booleans(), phi=st.sampled_from([0.0, 1.0, 4.0]), seed=st.integers(0, 2**31 - 1))
def test_recursive_panel_property(kind, m, n, nb, cplx, phi, seed):
    """Any split of the panel QR (widths across the leaf, odd halves, wide views whose last
    panel is no QR panel) and dynamic range: as the host's."""
    dt = np.complex128 if cplx else np.float64
    r = np.random.default_rng(seed)
    _recursive_panel_case(kind, _mat(r, m, n, dt) * exp(phi * standard_normal(r, (m, n))), nb,
                          same_r=False)


def test_complex_tau_makes_the_call_complex(rng):
    """orglq and orgqr with real reflectors but complex tau: the complex routine, as SciPy's
    dtype promotion would pick."""
    a = _mat(rng, 5, 9, np.complex128)
    lq, tau, _, _ = L.gelqf(a)
    q, _, info = L.orglq(lq.real.copy(), tau)
    assert info == 0 and q.dtype == np.complex128
    qr, tau, _, _ = L.geqrf(a.T.copy())
    q, _, info = L.orgqr(qr.real.copy(), tau)
    assert info == 0 and q.dtype == np.complex128


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
