"""geev and gees on the CUDA executor: host memory only. Host matrices stay on the host (the
products stage their own operands on the executor) and give the CPU executor's bits; device
pointers are refused (OZBLAS_ERR_INVALID_ARGUMENT, device memory untouched). Marked ``gpu``:
runs where a CUDA executor is usable, and here on the CPU emulation of the CUDA code
(tests/cuda/emu/run_emu_tests.py).
"""

import numpy as np
import pytest
from test_lapack_cuda import _bits, _Dev

from ozblas import lapack as L
from ozblas._native import ffi, lib
from ozblas.api import _context, _options

pytestmark = pytest.mark.gpu
NB = 4
# automatic counts: with a fixed count a product whose operand spans more binades than the count's
# bits (hseqr's window U: entries down to 1e-21 next to 1) falls back to the executor's native
# GEMM, whose bits are the executor's own
KW = dict(method="ozaki2", nb=NB)


def _mat(n, dt, seed):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1.0, 1.0, (n, n))
    return a + 1j * rng.uniform(-1.0, 1.0, (n, n)) if dt == np.complex128 else a


@pytest.mark.parametrize("dt", [np.float64, np.complex128])
@pytest.mark.parametrize("n", [3, 13, 40])
def test_host_matrices_equal_cpu(dt, n):
    a = _mat(n, dt, n)
    want = L.geev(a, executor="cpu", **KW)
    got = L.geev(a, executor="cuda", **KW)
    r = L.last_report()
    for u, v in zip(want, got):
        assert np.array_equal(_bits(np.asarray(u)), _bits(np.asarray(v)))
    if n > NB:
        assert r["executor"] == "cuda" and r["device"] == "host" and r["emulated"] > 0
    sel = (lambda w: w.real < 0) if dt == np.complex128 else (lambda x, y: x < 0)
    want = L.gees(sel, a, sort_t=1, executor="cpu", **KW)
    got = L.gees(sel, a, sort_t=1, executor="cuda", **KW)
    for u, v in zip(want, got):
        assert np.array_equal(_bits(np.asarray(u)), _bits(np.asarray(v)))


@pytest.mark.parametrize("cx", [0, 1])
def test_device_pointers_refused(cx):
    dt = np.complex128 if cx else np.float64
    n = 13
    a = np.asfortranarray(_mat(n, dt, 1))
    v = np.zeros((n, n), dtype=dt, order="F")
    w, wi = np.zeros(n, dtype=dt), np.zeros(n)
    d = _Dev()
    try:
        pa, pv = d.put(a), d.put(v)
        P = lambda p: ffi.cast("double *", p)  # noqa: E731
        hw, hwi = ffi.cast("double *", w.ctypes.data), ffi.cast("double *", wi.ctypes.data)
        info, sd = ffi.new("int64_t *"), ffi.new("int64_t *")
        o = _options("ozaki2", 16, None, "auto", None, None, None)
        if cx:
            st = lib.ozblas_zgeev(_context(), b"N", b"V", n, P(pa), n, hw, P(pv), n, P(pv), n, info,
                                  NB, o, ffi.NULL)
            st2 = lib.ozblas_zgees(_context(), b"V", b"N", ffi.NULL, ffi.NULL, n, P(pa), n, sd, hw,
                                   P(pv), n, info, NB, o, ffi.NULL)
        else:
            st = lib.ozblas_dgeev(_context(), b"N", b"V", n, P(pa), n, hw, hwi, P(pv), n, P(pv), n,
                                  info, NB, o, ffi.NULL)
            st2 = lib.ozblas_dgees(_context(), b"V", b"N", ffi.NULL, ffi.NULL, n, P(pa), n, sd, hw,
                                   hwi, P(pv), n, info, NB, o, ffi.NULL)
        assert st == st2 == lib.OZBLAS_ERR_INVALID_ARGUMENT
        assert np.array_equal(_bits(d.get(pa, a)), _bits(a)) and not d.get(pv, v).any()
    finally:
        d.close()
