"""Blocked Hessenberg reduction (gehrd, orghr/unghr, ormhr/unmhr) on the CUDA executor: host
matrices uploaded once (the panel's trailing matrix copied to the host for lahr2, the panel
copied back, every product on the device pointers) and device matrices from the caller give
the CPU executor's bits. Marked ``gpu``: runs where a CUDA executor is usable, and here on the
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
CASES = [(1, 0, 0), (NB, 0, NB - 1), (NB + 1, 0, NB), (3 * NB + 5, 0, 3 * NB + 4),
         (3 * NB + 5, 2, 3 * NB + 1), (3 * NB + 5, 1, NB)]


def _mat(rng, m, n, dt):
    a = standard_normal(rng, (m, n))
    return a + 1j * standard_normal(rng, (m, n)) if dt == np.complex128 else a


def _hess_calls(n, lo, hi, dt, kw):
    rng = np.random.default_rng(n * 100 + lo)
    a = _mat(rng, n, n, dt)
    i, j = np.indices((n, n))
    a[(i > j) & ((j < lo) | (i > hi))] = 0
    out, reps = [], []

    def run(f, *args):
        r = f(*args, **kw)
        reps.append(L.last_report())
        out.extend(v for v in r if not isinstance(v, int))
        return r

    h, tau, _ = run(L.gehrd, a, lo, hi)
    run(L.orghr, h, tau, lo, hi)
    ct = "C" if dt == np.complex128 else "T"
    for side, c in (("L", _mat(rng, n, 3, dt)), ("R", _mat(rng, 5, n, dt))):
        for trans in ("N", ct):
            run(L.ormhr, side, trans, h, tau, c, lo, hi)
    return out, reps


@pytest.mark.parametrize("dt", [np.float64, np.complex128])
@pytest.mark.parametrize("n,lo,hi", CASES)
def test_hess_resident_equal_cpu(dt, n, lo, hi):
    want, _ = _hess_calls(n, lo, hi, dt, dict(KW, executor="cpu"))
    got, reps = _hess_calls(n, lo, hi, dt, dict(KW, executor="cuda"))
    assert len(got) == len(want)
    for u, v in zip(want, got):
        assert np.array_equal(_bits(u), _bits(v))
    assert all(r["executor"] == "cuda" for r in reps)
    if hi - lo + 1 > NB:  # more than one block: uploaded once, products emulated there
        assert reps[0]["device"] == "uploaded" and reps[0]["emulated"] > 0
    if hi - lo > NB:  # orghr's and ormhr's order nh = hi - lo (within one block: host memory)
        assert all(r["device"] == "uploaded" for r in reps[1:] if r["emulated"])


@pytest.mark.parametrize("cx", [0, 1])
@pytest.mark.parametrize("lo,hi", [(1, 3 * NB + 1), (1, 2)])
def test_hess_device_pointers_through_the_c_api(rng, cx, lo, hi):
    """gehrd (several panels, and one block: the host gehrd on a host copy), ormhr and orghr on
    device pointers with a leading dimension beyond the rows: the CPU executor's bits, report
    device 2."""
    dt = np.complex128 if cx else np.float64
    z = "z" if cx else "d"
    n, ld = 3 * NB + 3, 3 * NB + 7
    a = np.asfortranarray(_mat(rng, ld, n, dt))
    c = np.asfortranarray(_mat(rng, ld, 3, dt))

    def calls(ptrs, ex):
        A, C = ptrs
        o = _options("ozaki2", 16, None, ex, None, None, None)
        tau = np.zeros(n - 1, dtype=dt)
        t = ffi.cast("double *", tau.ctypes.data)
        info = ffi.new("int64_t *")
        rep = ffi.new("ozblas_lapack_report *")
        devices = []
        for st in (getattr(lib, f"ozblas_{z}gehrd")(_context(), n, lo, hi, A, ld, t, info, NB, o, rep),
                   getattr(lib, f"ozblas_{z}{'unmhr' if cx else 'ormhr'}")(
                       _context(), b"L", b"C" if cx else b"T", n, 3, lo, hi, A, ld, t, C, ld, info, NB,
                       o, rep),
                   getattr(lib, f"ozblas_{z}{'unghr' if cx else 'orghr'}")(
                       _context(), n, lo, hi, A, ld, t, info, NB, o, rep)):
            assert st == 0 and info[0] == 0
            devices.append(rep.device)
        return tau, devices

    _host_and_device_runs(calls, [a, c])


def test_hess_cupy_arrays():
    """CuPy arrays in, CuPy arrays out, the CPU executor's bits (skipped without CuPy)."""
    cp = pytest.importorskip("cupy")
    a = standard_normal(np.random.default_rng(7), (3 * NB + 5, 3 * NB + 5))
    dev = L.gehrd(cp.asarray(a), **KW)
    assert dev[2] == 0 and L.last_report()["device"] == "device"
    want = L.gehrd(a, executor="cpu", **KW)
    _cupy_check(cp, dev[:2], want[:2])
    _cupy_check(cp, L.orghr(*dev[:2], **KW)[:1], L.orghr(*want[:2], executor="cpu", **KW)[:1])
