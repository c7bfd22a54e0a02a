"""The two-stage SVD (gesdd, gesvd) on the CUDA executor: host matrices uploaded once (stage 1,
the QR of m >> n and both back-transformations on the device pointers, the panels, the band,
the bulge chasing and dbdsdc or dbdsqr on host copies) and device matrices from the caller give the CPU
executor's bits. Marked ``gpu``: runs where a CUDA executor is usable, and here on the CPU
emulation of the CUDA code (tests/cuda/emu/run_emu_tests.py).
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
# one block (the host gesdd), square, tall and wide below and above the QR-first threshold
SHAPES = [(3, 2), (13, 13), (13, 11), (11, 13), (17, 9), (9, 17)]


def _mat(rng, m, n, dt):
    a = standard_normal(rng, (m, n))
    return a + 1j * standard_normal(rng, (m, n)) if dt == np.complex128 else a


@pytest.mark.parametrize("driver", ["gesdd", "gesvd"])
@pytest.mark.parametrize("dt", [np.float64, np.complex128])
@pytest.mark.parametrize("shape", SHAPES)
def test_gesdd_resident_equal_cpu(driver, dt, shape):
    a = _mat(np.random.default_rng(list(shape)), *shape, dt)
    f = getattr(L, driver)
    for cu, full in ((1, 0), (1, 1), (0, 0)):
        want = f(a, compute_uv=cu, full_matrices=full, executor="cpu", **KW)
        got = f(a, compute_uv=cu, full_matrices=full, executor="cuda", **KW)
        r = L.last_report()
        assert got[3] == want[3] == 0
        for u, v in zip(want[:3], got[:3]):
            assert np.array_equal(_bits(u), _bits(v))
        if min(shape) > NB:  # beyond one block: uploaded once, products emulated there
            assert r["executor"] == "cuda" and r["device"] == "uploaded" and r["emulated"] > 0


@pytest.mark.parametrize("cx", [0, 1])
@pytest.mark.parametrize("shape", [(17, 9), (11, 13)])
def test_gesdd_device_pointers_through_the_c_api(cx, shape):
    """jobz 'O' and 'S' on device pointers with leading dimensions beyond the matrices (s on
    the host): the CPU executor's bits, report device 2."""
    dt = np.complex128 if cx else np.float64
    m, n = shape
    k, ld = min(m, n), max(m, n) + 3
    a = np.zeros((ld, n), dtype=dt, order="F")
    a[:m] = _mat(np.random.default_rng(m), m, n, dt)
    a2, u, vt = a.copy(order="F"), np.zeros((ld, m), dtype=dt, order="F"), \
        np.zeros((ld, n), dtype=dt, order="F")
    info = ffi.new("int64_t *")
    rep = ffi.new("ozblas_lapack_report *")
    fn = lib.ozblas_zgesdd if cx else lib.ozblas_dgesdd

    def calls(ptrs, ex):
        A, A2, Um, VT = ptrs
        o = _options("ozaki2", 16, None, ex, None, None, None)
        s, s2 = np.zeros(k), np.zeros(k)
        devices = []
        for jobz, P, sv in ((b"O", A, s), (b"S", A2, s2)):
            assert fn(_context(), jobz, m, n, P, ld, ffi.cast("double *", sv.ctypes.data), Um,
                      ld, VT, ld, info, NB, o, rep) == 0 and info[0] == 0
            devices.append(rep.device)
        return np.concatenate([s, s2]), devices

    _host_and_device_runs(calls, [a, a2, u, vt])


def test_gesdd_cupy_arrays():
    """CuPy arrays in, CuPy arrays out (s too), the CPU executor's bits (CuPy cannot run on
    the emulation: skipped there)."""
    cp = pytest.importorskip("cupy")
    a = _mat(np.random.default_rng(7), 17, 9, np.float64)
    dev = L.gesdd(cp.asarray(a), full_matrices=0, **KW)
    assert dev[3] == 0 and L.last_report()["device"] == "device"
    _cupy_check(cp, dev[:3], L.gesdd(a, full_matrices=0, executor="cpu", **KW)[:3])

@pytest.mark.parametrize("cx", [0, 1])
@pytest.mark.parametrize("shape", [(3, 2), (17, 9), (11, 13)])
def test_gesvd_device_pointers_through_the_c_api(cx, shape):
    """(jobu, jobvt) with 'O' into A on either side, the other 'S' or 'N' (A is an output in
    each: without 'O' it is destroyed, its contents unspecified), on device pointers with
    leading dimensions beyond the matrices (s on the host), within one block (the host gesvd
    on host copies) and beyond it: the CPU executor's bits, report device 2."""
    dt = np.complex128 if cx else np.float64
    m, n = shape
    k, ld = min(m, n), max(m, n) + 3
    jobs = ((b"O", b"S"), (b"S", b"O"), (b"O", b"N"), (b"N", b"O"))
    a = np.zeros((ld, n), dtype=dt, order="F")
    a[:m] = _mat(np.random.default_rng([m, 2]), m, n, dt)
    u, vt = np.zeros((ld, m), dtype=dt, order="F"), np.zeros((ld, n), dtype=dt, order="F")
    info = ffi.new("int64_t *")
    rep = ffi.new("ozblas_lapack_report *")
    fn = lib.ozblas_zgesvd if cx else lib.ozblas_dgesvd

    def calls(ptrs, ex):
        *As, Um, VT = ptrs
        o = _options("ozaki2", 16, None, ex, None, None, None)
        ss, devices = [], []
        for (ju, jv), P in zip(jobs, As):
            s = np.zeros(k)
            assert fn(_context(), ju, jv, m, n, P, ld, ffi.cast("double *", s.ctypes.data), Um,
                      ld, VT, ld, info, NB, o, rep) == 0 and info[0] == 0
            ss.append(s)
            devices.append(rep.device)
        return np.concatenate(ss), devices

    _host_and_device_runs(calls, [a.copy(order="F") for _ in jobs] + [u, vt])
