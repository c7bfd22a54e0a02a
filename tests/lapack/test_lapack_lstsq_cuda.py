"""Least squares through the SVD (gelsd, gelss) on the CUDA executor: host matrices uploaded
once (the QR of a QR-first shape, stage 1 of the bidiagonal reduction, Q^H B, P X_B and
gelss's products on the device, the panels, the chase and the bidiagonal solver on host
copies) and device matrices from the caller give the CPU executor's bits. Marked ``gpu``:
runs where a CUDA executor is usable, and here on the CPU emulation of the CUDA code
(tests/cuda/emu/run_emu_tests.py).
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
# one block (the host routine), square, tall and wide below and above the QR-first threshold
SHAPES = [(3, 2), (13, 13), (13, 10), (10, 13), (17, 6), (6, 17)]


def _mat(rng, m, n, dt):
    a = standard_normal(rng, (m, n))
    return a + 1j * standard_normal(rng, (m, n)) if dt == np.complex128 else a


@pytest.mark.parametrize("driver", ["gelsd", "gelss"])
@pytest.mark.parametrize("dt", [np.float64, np.complex128])
@pytest.mark.parametrize("shape", SHAPES)
def test_lstsq_resident_equal_cpu(driver, dt, shape):
    rng = np.random.default_rng(list(shape))
    a, b = _mat(rng, *shape, dt), _mat(rng, max(shape), 3, dt)
    f = getattr(L, driver)
    want = f(a, b, executor="cpu", **KW)
    got = f(a, b, executor="cuda", **KW)
    r = L.last_report()
    assert got[-1] == want[-1] == 0
    for u, v in zip(want, got):
        if isinstance(u, np.ndarray):
            assert np.array_equal(_bits(u), _bits(v))
        else:
            assert u == v
    if min(shape) > NB:  # beyond one block: uploaded once, products emulated there
        assert r["executor"] == "cuda" and r["device"] == "uploaded" and r["emulated"] > 0


@pytest.mark.parametrize("cx", [0, 1])
@pytest.mark.parametrize("shape", [(17, 9), (9, 17)])
def test_lstsq_device_pointers_through_the_c_api(cx, shape):
    """gelsd and gelss on device pointers with leading dimensions beyond the matrices (s on
    the host): the CPU executor's bits, report device 2."""
    dt = np.complex128 if cx else np.float64
    m, n = shape
    k, ld = min(m, n), max(m, n) + 3
    rng = np.random.default_rng(m)
    a = np.zeros((ld, n), dtype=dt, order="F")
    a[:m] = _mat(rng, m, n, dt)
    b = np.zeros((ld, 2), dtype=dt, order="F")
    b[:m] = _mat(rng, m, 2, dt)
    a2, b2 = a.copy(order="F"), b.copy(order="F")
    info, rank = ffi.new("int64_t *"), ffi.new("int64_t *")
    rep = ffi.new("ozblas_lapack_report *")
    fns = (lib.ozblas_zgelsd, lib.ozblas_zgelss) if cx else (lib.ozblas_dgelsd, lib.ozblas_dgelss)

    def calls(ptrs, ex):
        A, B, A2, B2 = ptrs
        o = _options("ozaki2", 16, None, ex, None, None, None)
        s, s2 = np.zeros(k), np.zeros(k)
        devices = []
        for fn, P, Q, sv in ((fns[0], A, B, s), (fns[1], A2, B2, s2)):
            assert fn(_context(), m, n, 2, P, ld, Q, ld, ffi.cast("double *", sv.ctypes.data), -1.0,
                      rank, info, NB, o, rep) == 0 and info[0] == 0 and rank[0] == k
            devices.append(rep.device)
        return np.concatenate([s, s2]), devices

    _host_and_device_runs(calls, [a, b, a2, b2])


def test_gelsd_cupy_arrays():
    """CuPy arrays in, CuPy arrays out (s too), the CPU executor's bits (CuPy cannot run on
    the emulation: skipped there)."""
    cp = pytest.importorskip("cupy")
    rng = np.random.default_rng(7)
    a, b = _mat(rng, 17, 9, np.float64), _mat(rng, 17, 2, np.float64)
    dev = L.gelsd(cp.asarray(a), cp.asarray(b), **KW)
    assert dev[3] == 0 and L.last_report()["device"] == "device"
    _cupy_check(cp, dev[:2], L.gelsd(a, b, executor="cpu", **KW)[:2])
