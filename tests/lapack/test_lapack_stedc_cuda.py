"""The tridiagonal divide and conquer (lapack_stedc.c) on the CUDA executor: its merges'
products (host operands: Q is the host's, as dlaed2 permutes it) on the device, the
eigenvectors into device memory (compz "I") or the device's Z times them (compz "V", products
on the device pointers), with the CPU executor's bits. Marked ``gpu``: runs where a CUDA
executor is usable, and here on the CPU emulation of the CUDA code
(tests/cuda/emu/run_emu_tests.py).
"""

import numpy as np
import pytest
from test_lapack_cuda import _bits, _host_and_device_runs

from ozblas import lapack as L
from ozblas._native import ffi, lib
from ozblas.api import _context, _options

pytestmark = pytest.mark.gpu
NB = 4
KW = dict(method="ozaki2", moduli=16, nb=NB)


def test_stedc_uploaded_equal_cpu():
    rng = np.random.default_rng(7)
    n = 3 * NB + 5
    d, e = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n - 1)
    q, _ = np.linalg.qr(rng.uniform(-1, 1, (n, n)))
    for compz, z in (("I", None), ("V", q)):
        want = L.stedc(d, e, z, compz=compz, executor="cpu", **KW)
        got = L.stedc(d, e, z, compz=compz, executor="cuda", **KW)
        rep = L.last_report()
        assert rep["executor"] == "cuda" and rep["device"] == "uploaded" and rep["emulated"] > 0
        for u, v in zip(want[:2], got[:2]):
            assert np.array_equal(_bits(u), _bits(v))


def test_stedc_device_pointers_through_the_c_api(rng):
    """compz "I" and "V" into device matrices with a leading dimension beyond the order (d
    and e on the host): the CPU executor's bits, report device 2."""
    n, ld = 3 * NB + 3, 3 * NB + 7
    d, e = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
    zi = np.zeros((ld, n), order="F")
    zv = np.zeros((ld, n), order="F")
    zv[:n], _ = np.linalg.qr(rng.uniform(-1, 1, (n, n)))
    info = ffi.new("int64_t *")
    rep = ffi.new("ozblas_lapack_report *")

    def calls(ptrs, ex):
        o = _options("ozaki2", 16, None, ex, None, None, None)
        out, devices = [], []
        for compz, z in zip((b"I", b"V"), ptrs):
            w, ee = d.copy(), e.copy()
            assert lib.ozblas_dstedc(_context(), compz, n, ffi.cast("double *", w.ctypes.data),
                                     ffi.cast("double *", ee.ctypes.data), z, ld, info, NB, o,
                                     rep) == 0 and info[0] == 0
            out.append(w)
            devices.append(rep.device)
        return np.concatenate(out), devices

    _host_and_device_runs(calls, [zi, zv])
