"""The two-stage eigensolvers (syevd/heevd, syev/heev, syevr/heevr, and sygvd/hegvd, sygv/hegv
composed of them) on the CUDA executor:
host matrices uploaded once (stage 1 and both back-transformations on the device pointers,
the panels, the band, the bulge chasing and the tridiagonal solver on host copies) and device
matrices from the caller give the CPU executor's bits. Marked ``gpu``: runs where a CUDA
executor is usable, and here on the CPU emulation of the CUDA code
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


def _herm(rng, n, dt):
    a = standard_normal(rng, (n, n))
    if dt == np.complex128:
        a = a + 1j * standard_normal(rng, (n, n))
    return (a + a.conj().T) / 2


def _eigen_calls(n, dt, kw):
    """Every driver and form once: the outputs and each call's report."""
    rng = np.random.default_rng(n)
    a = _herm(rng, n, dt)
    out, reps = [], []

    def run(f, *args, **more):
        r = f(*args, **kw, **more)
        reps.append(L.last_report())
        out.extend(v for v in r if not isinstance(v, int))
        return r

    for lower in (0, 1):
        run(L.syevd, a, lower=lower)
        run(L.syev, a, lower=lower, compute_v=lower)
    run(L.syevd, a, compute_v=0)
    run(L.syevr, a)
    run(L.syevr, a, range="I", il=2, iu=n - 1, lower=1)
    w = np.linalg.eigvalsh(a)
    run(L.syevr, a, range="V", vl=w[1] - 1e-3, vu=w[n // 2] + 1e-3)
    run(L.syevr, a, compute_v=0, range="I", il=1, iu=2)
    g = standard_normal(rng, (n, n))
    b = g @ g.T + n * np.eye(n)  # the generalized problem: potrf, sygst, the eigensolver
    for itype, uplo in ((1, "L"), (2, "U"), (3, "L")):
        run(L.sygvd, a, b, itype=itype, uplo=uplo)
    run(L.sygv, a, b, jobz="N")
    return out, reps


@pytest.mark.parametrize("dt", [np.float64, np.complex128])
@pytest.mark.parametrize("n", [NB - 1, NB + 1, 3 * NB + 5])
def test_eigen_resident_equal_cpu(dt, n):
    want, _ = _eigen_calls(n, dt, dict(KW, executor="cpu"))
    got, reps = _eigen_calls(n, dt, dict(KW, executor="cuda"))
    assert len(got) == len(want)
    for u, v in zip(want, got):
        assert np.array_equal(_bits(u), _bits(v))
    if n > NB:  # beyond one block: uploaded once, products emulated there
        assert all(r["executor"] == "cuda" and r["device"] == "uploaded" and r["emulated"] > 0
                   for r in reps)


def test_eigen_automatic_precision_resident_equal_cpu():
    """The normwise target's counts on the device (automatic precision): the CPU's bits."""
    kw = dict(method="ozaki2", nb=NB)
    for dt in (np.float64, np.complex128):
        a = _herm(np.random.default_rng(5), 3 * NB + 5, dt)
        want = L.syevd(a, executor="cpu", **kw)
        rw = L.last_report()
        got = L.syevd(a, executor="cuda", **kw)
        rg = L.last_report()
        assert rw["moduli_histogram"] == rg["moduli_histogram"] and rg["emulated"] > 0
        for u, v in zip(want[:2], got[:2]):
            assert np.array_equal(_bits(u), _bits(v))


@pytest.mark.parametrize("cx", [0, 1])
def test_eigen_device_pointers_through_the_c_api(rng, cx):
    """syevd (A overwritten by the eigenvectors) and syevr (Z apart, range I) on device
    pointers with leading dimensions beyond the order (w, m, isuppz on the host): the CPU
    executor's bits, report device 2."""
    dt = np.complex128 if cx else np.float64
    n, ld = 3 * NB + 3, 3 * NB + 7
    a = np.zeros((ld, n), dtype=dt, order="F")
    a[:n] = _herm(rng, n, dt)
    a2, z = a.copy(order="F"), np.zeros((ld, n), dtype=dt, order="F")
    info, m = ffi.new("int64_t *"), ffi.new("int64_t *")
    rep = ffi.new("ozblas_lapack_report *")
    evd = lib.ozblas_zheevd if cx else lib.ozblas_dsyevd
    evr = lib.ozblas_zheevr if cx else lib.ozblas_dsyevr

    def calls(ptrs, ex):
        A, A2, Z = ptrs
        o = _options("ozaki2", 16, None, ex, None, None, None)
        w, w2 = np.zeros(n), np.zeros(n)
        sup = np.zeros(2 * n, dtype=np.int64)
        devices = []
        assert evd(_context(), b"V", b"U", n, A, ld, ffi.cast("double *", w.ctypes.data), info,
                   NB, o, rep) == 0 and info[0] == 0
        devices.append(rep.device)
        assert evr(_context(), b"V", b"I", b"L", n, A2, ld, 0.0, 0.0, 2, n - 2, 0.0, m,
                   ffi.cast("double *", w2.ctypes.data), Z, ld,
                   ffi.cast("int64_t *", sup.ctypes.data), info, NB, o, rep) == 0
        assert info[0] == 0 and m[0] == n - 3
        devices.append(rep.device)
        return np.concatenate([w, w2]), devices

    _host_and_device_runs(calls, [a, a2, z])


def test_eigen_cupy_arrays():
    """CuPy arrays in, CuPy arrays out (w and isuppz too), the CPU executor's bits (CuPy
    cannot run on the emulation: skipped there)."""
    cp = pytest.importorskip("cupy")
    a = _herm(np.random.default_rng(7), 3 * NB + 5, np.float64)
    dev = L.syevd(cp.asarray(a), **KW)
    assert dev[2] == 0 and L.last_report()["device"] == "device"
    _cupy_check(cp, dev[:2], L.syevd(a, executor="cpu", **KW)[:2])
    dev = L.syevr(cp.asarray(a), range="I", il=2, iu=5, **KW)
    want = L.syevr(a, range="I", il=2, iu=5, executor="cpu", **KW)
    assert dev[2] == want[2] == 4
    _cupy_check(cp, (dev[0], dev[1], dev[3]), (want[0], want[1], want[3]))


@pytest.mark.parametrize("dt", [np.float64, np.complex128])
def test_one_stage_resident_equal_cpu(dt):
    """sytrd (both triangles), orgtr and ormtr (uplo L: products; U: the host routine on
    whole-matrix host copies) uploaded once: the CPU executor's bits."""
    n = 3 * NB + 5
    a = _herm(np.random.default_rng(11), n, dt)
    x = standard_normal(np.random.default_rng(12), (n, 3)).astype(dt)
    for lower in (0, 1):
        outs = []
        for ex in ("cpu", "cuda"):
            c, d, e, tau, info = L.sytrd(a, lower=lower, executor=ex, **KW)
            q, _ = L.orgtr(c, tau, lower=lower, executor=ex, **KW)
            y, _ = L.ormtr("L", "N", c, tau, x, lower=lower, executor=ex, **KW)
            outs.append((c, d, e, tau, q, y))
        for u, v in zip(*outs):
            assert np.array_equal(_bits(u), _bits(v))
