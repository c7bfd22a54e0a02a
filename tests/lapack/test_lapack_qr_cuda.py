"""Blocked QR (geqrf, orgqr/ungqr, ormqr/unmqr) on the CUDA executor: host matrices uploaded
once (device-resident: the panels, larft and the trmm with T on host copies of their blocks,
every product on the device pointers) and device matrices from the caller give the CPU
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
SHAPES = [(1, 1), (NB - 1, NB - 1), (NB + 1, NB + 1), (3 * NB + 5, 3 * NB + 5),
          (3 * NB + 5, 2 * NB + 3), (2 * NB + 3, 3 * NB + 5)]


def _mat(rng, m, n, dt):
    a = standard_normal(rng, (m, n))
    return a + 1j * standard_normal(rng, (m, n)) if dt == np.complex128 else a


def _qr_calls(m, n, dt, kw):
    """geqrf, orgqr (the first k columns and, for m > n, the complete Q: columns beyond k),
    ormqr from both sides with both op(Q): the outputs and each call's report."""
    rng = np.random.default_rng(m * 100 + n)
    a = _mat(rng, m, n, dt)
    out, reps = [], []

    def run(f, *args):
        r = f(*args, **kw)
        reps.append(L.last_report())
        out.extend(v for v in r if not isinstance(v, int))
        return r

    qr, tau, _, _ = run(L.geqrf, a)
    k = min(m, n)
    run(L.orgqr, qr[:, :k], tau)
    if m > n:
        full = np.zeros((m, m), dtype=dt, order="F")
        full[:, :n] = qr
        run(L.orgqr, full, tau)
    ct = "C" if dt == np.complex128 else "T"
    for side, c in (("L", _mat(rng, m, 3, dt)), ("R", _mat(rng, 5, m, dt))):
        for trans in ("N", ct):
            run(L.ormqr, side, trans, qr[:, :k], tau, c)
    return out, reps


@pytest.mark.parametrize("dt", [np.float64, np.complex128])
@pytest.mark.parametrize("m,n", SHAPES)
def test_qr_resident_equal_cpu(dt, m, n):
    want, _ = _qr_calls(m, n, dt, dict(KW, executor="cpu"))
    got, reps = _qr_calls(m, n, dt, dict(KW, executor="cuda"))
    assert len(got) == len(want)
    for u, v in zip(want, got):
        assert np.array_equal(_bits(u), _bits(v))
    assert all(r["executor"] == "cuda" for r in reps)
    if min(m, n) > NB:  # more than one block: uploaded once, products emulated there
        assert reps[0]["device"] == "uploaded" and reps[0]["emulated"] > 0
        assert all(r["device"] == "uploaded" for r in reps[1:] if r["emulated"])


@pytest.mark.parametrize("cx", [0, 1])
def test_qr_device_pointers_through_the_c_api(rng, cx):
    """geqrf, orgqr (with columns beyond k) and ormqr on device pointers with leading
    dimensions beyond the rows (tau on the host): the CPU executor's bits, report device 2."""
    dt = np.complex128 if cx else np.float64
    z = "z" if cx else "d"
    m, n, ld = 3 * NB + 3, 2 * NB + 1, 3 * NB + 7
    a = np.asfortranarray(_mat(rng, ld, m, dt))  # m columns: orgqr forms all of Q
    c = np.asfortranarray(_mat(rng, ld, 3, dt))
    info = ffi.new("int64_t *")
    rep = ffi.new("ozblas_lapack_report *")

    def calls(ptrs, ex):
        A, C = ptrs
        o = _options("ozaki2", 16, None, ex, None, None, None)
        tau = np.zeros(n, dtype=dt)
        t = ffi.cast("double *", tau.ctypes.data)
        devices = []
        for st in (getattr(lib, f"ozblas_{z}geqrf")(_context(), m, n, A, ld, t, info, NB, o, rep),
                   getattr(lib, f"ozblas_{z}{'unmqr' if cx else 'ormqr'}")(
                       _context(), b"L", b"C" if cx else b"T", m, 3, n, A, ld, t, C, ld, info, NB, o,
                       rep),
                   getattr(lib, f"ozblas_{z}{'ungqr' if cx else 'orgqr'}")(
                       _context(), m, m, n, A, ld, t, info, NB, o, rep)):
            assert st == 0 and info[0] == 0
            devices.append(rep.device)
        return tau, devices

    _host_and_device_runs(calls, [a, c])


def test_qr_cupy_arrays():
    """CuPy arrays in, CuPy arrays out (tau and work too), the CPU executor's bits (CuPy
    cannot run on the emulation: skipped there)."""
    cp = pytest.importorskip("cupy")
    rng = np.random.default_rng(7)
    a = standard_normal(rng, (3 * NB + 5, 2 * NB + 3))
    c = standard_normal(rng, (3 * NB + 5, 2))
    dev = L.geqrf(cp.asarray(a), **KW)
    assert dev[3] == 0 and L.last_report()["device"] == "device"
    want = L.geqrf(a, executor="cpu", **KW)
    _cupy_check(cp, dev[:3], want[:3])
    _cupy_check(cp, L.orgqr(*dev[:2], **KW)[:1], L.orgqr(*want[:2], executor="cpu", **KW)[:1])
    # tau as NumPy: either is taken
    _cupy_check(cp, L.ormqr("L", "T", dev[0], want[1], cp.asarray(c), **KW)[:1],
                L.ormqr("L", "T", *want[:2], c, executor="cpu", **KW)[:1])
