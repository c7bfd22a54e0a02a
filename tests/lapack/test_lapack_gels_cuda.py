"""Least squares (gels) on the CUDA executor: host matrices uploaded once (the scaling's
strips, the panels, larft and the trmm with T on host copies of their blocks, every product
on the device pointers) and device matrices from the caller give the CPU executor's bits.
Marked ``gpu``: runs where a CUDA executor is usable, and here on the CPU emulation of the CUDA
code (tests/cuda/emu/run_emu_tests.py).
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


@pytest.mark.parametrize("dt", [np.float64, np.complex128])
@pytest.mark.parametrize("m,n", [(1, 1), (NB, NB), (3 * NB + 5, 2 * NB + 3), (2 * NB + 3, 3 * NB + 5)])
@pytest.mark.parametrize("scale", [1.0, 1e-300])
def test_gels_resident_equal_cpu(dt, m, n, scale):
    ct = "C" if dt == np.complex128 else "T"
    rng = np.random.default_rng(m * 100 + n)
    a, b = _mat(rng, m, n, dt) * scale, _mat(rng, max(m, n), 3, dt)
    for trans in ("N", ct):
        want = L.gels(a, b, trans, executor="cpu", **KW)
        got = L.gels(a, b, trans, executor="cuda", **KW)
        rep = L.last_report()
        for u, v in zip(want, got):
            assert np.array_equal(_bits(u), _bits(v))
        assert rep["executor"] == "cuda"
        if min(m, n) > NB:
            assert rep["device"] == "uploaded" and rep["emulated"] > 0


@pytest.mark.parametrize("cx", [0, 1])
def test_gels_device_pointers_through_the_c_api(rng, cx):
    """gels every way (m >= n and m < n, trans N and T/C) on device pointers with leading
    dimensions beyond the rows, and a rank-deficient one's info: the CPU executor's bits,
    report device 2."""
    dt = np.complex128 if cx else np.float64
    fn = getattr(lib, f"ozblas_{'z' if cx else 'd'}gels")
    ld = 3 * NB + 9
    mats = [np.asfortranarray(_mat(rng, ld, ld, dt)) for _ in range(2)]
    mats[0][:, 2 * NB + 1] = 0  # column 2 NB + 1: rank-deficient once used
    ct = b"C" if cx else b"T"

    def calls(ptrs, ex):
        A, B = ptrs
        o = _options("ozaki2", 16, None, ex, None, None, None)
        info = ffi.new("int64_t *")
        rep = ffi.new("ozblas_lapack_report *")
        infos, devices = [], []
        for m, n, trans in ((3 * NB + 5, 2 * NB, b"N"), (2 * NB, 3 * NB + 5, b"N"),
                            (3 * NB + 5, 2 * NB, ct), (2 * NB, 3 * NB + 5, ct),
                            (3 * NB + 5, 2 * NB + 3, b"N")):
            assert fn(_context(), trans, m, n, 3, A, ld, B, ld, info, NB, o, rep) == 0
            infos.append(info[0])
            devices.append(rep.device)
        assert infos[-1] == 2 * NB + 2
        return np.array(infos), devices

    _host_and_device_runs(calls, mats)


def test_gels_cupy_arrays():
    """CuPy arrays in, CuPy arrays out, the CPU executor's bits (skipped without CuPy)."""
    cp = pytest.importorskip("cupy")
    rng = np.random.default_rng(7)
    a, b = standard_normal(rng, (3 * NB + 5, 2 * NB + 3)), standard_normal(rng, (3 * NB + 5, 2))
    dev = L.gels(cp.asarray(a), cp.asarray(b), **KW)
    assert dev[2] == 0 and L.last_report()["device"] == "device"
    _cupy_check(cp, dev[:2], L.gels(a, b, executor="cpu", **KW)[:2])
