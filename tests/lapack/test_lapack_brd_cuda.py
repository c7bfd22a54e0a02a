"""gebrd, orgbr/ungbr, ormbr/unmbr and gelsy on the CUDA executor: host matrices uploaded once
(labrd's trailing blocks, the host gebd2, geqp3, tzrzf, ormrz and the reflector shifts on host
copies, every product on the device pointers) and device matrices from the caller give the
CPU executor's bits. Marked ``gpu``: runs where a CUDA executor is usable, and here on the
CPU emulation of the CUDA code (tests/cuda/emu/run_emu_tests.py).
"""

import numpy as np
import pytest
from test_lapack_cuda import _bits, _cupy_check, _host_and_device_runs

from ozblas import lapack as L
from ozblas._native import ffi, lib
from ozblas.api import _context, _options
from ozblas.testing import standard_normal

pytestmark = pytest.mark.gpu
NB = 4
KW = dict(method="ozaki2", moduli=16, nb=NB)


def _mat(rng, m, n, dt):
    a = standard_normal(rng, (m, n))
    return a + 1j * standard_normal(rng, (m, n)) if dt == np.complex128 else a


def _same(want, got):
    for u, v in zip(want, got):
        assert np.array_equal(_bits(u), _bits(v))


@pytest.mark.parametrize("dt", [np.float64, np.complex128])
@pytest.mark.parametrize("m,n", [(1, 1), (3 * NB + 5, 2 * NB + 3), (2 * NB + 3, 3 * NB + 5),
                                 (3 * NB + 1, 3 * NB + 1)])
def test_brd_resident_equal_cpu(dt, m, n):
    """gebrd, then Q and P^H (orgbr, in the shifted form for the square case's P^H from a k >= n
    reduction) and ormbr every way, uploaded: the CPU executor's bits."""
    rng = np.random.default_rng(m * 100 + n)
    a = _mat(rng, m, n, dt)
    ct = "C" if dt == np.complex128 else "T"
    want = L.gebrd(a, executor="cpu", **KW)
    got = L.gebrd(a, executor="cuda", **KW)
    rep = L.last_report()
    _same(want, got)
    assert rep["executor"] == "cuda"
    if min(m, n) > NB:
        assert rep["device"] == "uploaded" and rep["emulated"] > 0
    c, d, e, tq, tp, _ = want
    k = min(m, n)
    for vect, f, tau, kk in (("Q", c[:, :k], tq, n), ("P", c[:k, :], tp, m),
                             ("Q", c[:k, :k], tq, n), ("P", c[:k, :k], tp, m)):
        _same(L.orgbr(vect, f, tau, kk, executor="cpu", **KW),
              L.orgbr(vect, f, tau, kk, executor="cuda", **KW))
    for vect, side, tr in (("Q", "L", "N"), ("Q", "R", ct), ("P", "L", ct), ("P", "R", "N")):
        nq, kk, tau = (m, n, tq) if vect == "Q" else (n, m, tp)
        refl = c[:, :min(nq, kk)] if vect == "Q" else c[:min(nq, kk), :]
        x = _mat(rng, nq, 3, dt) if side == "L" else _mat(rng, 3, nq, dt)
        _same(L.ormbr(vect, side, tr, refl, tau, x, kk, executor="cpu", **KW),
              L.ormbr(vect, side, tr, refl, tau, x, kk, executor="cuda", **KW))


@pytest.mark.parametrize("dt", [np.float64, np.complex128])
@pytest.mark.parametrize("m,n,r", [(3 * NB + 5, 2 * NB + 3, NB + 1), (2 * NB + 3, 3 * NB + 5, 2 * NB + 3)])
@pytest.mark.parametrize("scale", [1.0, 1e-300])
def test_gelsy_resident_equal_cpu(dt, m, n, r, scale):
    rng = np.random.default_rng(m * 100 + n)
    a = (_mat(rng, m, r, np.float64) @ _mat(rng, r, n, np.float64)).astype(dt) * scale
    b = _mat(rng, max(m, n), 3, dt)
    want = L.gelsy(a, b, None, 1e-10, executor="cpu", **KW)
    got = L.gelsy(a, b, None, 1e-10, executor="cuda", **KW)
    rep = L.last_report()
    _same(want, got)
    assert want[3] == got[3] == r and rep["device"] == "uploaded" and rep["emulated"] > 0


@pytest.mark.parametrize("cx", [0, 1])
def test_gebrd_device_pointers_through_the_c_api(rng, cx):
    """gebrd (m >= n and m < n) on device pointers with leading dimensions beyond the rows:
    the CPU executor's bits, report device 2."""
    dt = np.complex128 if cx else np.float64
    fn = getattr(lib, f"ozblas_{'z' if cx else 'd'}gebrd")
    ld = 3 * NB + 9
    mats = [np.asfortranarray(_mat(rng, ld, ld, dt))]

    def calls(ptrs, ex):
        (A,) = ptrs
        o = _options("ozaki2", 16, None, ex, None, None, None)
        info = ffi.new("int64_t *")
        rep = ffi.new("ozblas_lapack_report *")
        outs, devices = [], []
        for m, n in ((3 * NB + 5, 2 * NB + 3), (2 * NB + 1, 3 * NB + 5)):
            k = min(m, n)
            d, e = np.zeros(k), np.zeros(k)
            tq, tp = np.zeros(k, dtype=dt), np.zeros(k, dtype=dt)
            p = lambda v: ffi.cast("double *", v.ctypes.data)  # noqa: E731
            assert fn(_context(), m, n, A, ld, p(d), p(e), p(tq), p(tp), info, NB, o, rep) == 0
            outs += [d, e, tq.view(np.float64), tp.view(np.float64)]
            devices.append(rep.device)
        return np.concatenate(outs), devices

    _host_and_device_runs(calls, mats)


def test_brd_cupy_arrays():
    """CuPy arrays in, CuPy arrays out, the CPU executor's bits (skipped without CuPy)."""
    cp = pytest.importorskip("cupy")
    rng = np.random.default_rng(7)
    a = standard_normal(rng, (3 * NB + 5, 2 * NB + 3))
    dev = L.gebrd(cp.asarray(a), **KW)
    assert dev[-1] == 0 and L.last_report()["device"] == "device"
    _cupy_check(cp, dev[:5], L.gebrd(a, executor="cpu", **KW)[:5])
    b = standard_normal(rng, (3 * NB + 5, 2))
    dev = L.gelsy(cp.asarray(a), cp.asarray(b), None, 1e-10, **KW)
    _cupy_check(cp, dev[:3], L.gelsy(a, b, None, 1e-10, executor="cpu", **KW)[:3])
