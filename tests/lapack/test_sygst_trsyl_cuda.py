"""sygst/hegst and trsyl (lapack_sygst.c, lapack_trsyl.c) on the CUDA executor: host
matrices uploaded once (device-resident: the host sygst/trsyl blocks, the norms and the
rescaling on host copies, every product on the device pointers) and device matrices from the
caller give the CPU executor's bits. Marked ``gpu``: runs where a CUDA executor is usable, and
here on the CPU emulation of the CUDA code (tests/cuda/emu/run_emu_tests.py).
"""

import numpy as np
import pytest
import scipy.linalg as sl
from test_lapack_cuda import _bits, _cupy_check, _host_and_device_runs

from ozblas import lapack as L
from ozblas._native import ffi, lib
from ozblas.api import _context, _options
from ozblas.testing import standard_normal

pytestmark = pytest.mark.gpu
NB = 4
KW = dict(method="ozaki2", moduli=16, nb=NB)
SIZES = [1, NB - 1, NB + 1, 3 * NB + 5]


def _mat(rng, m, n, dt):
    a = standard_normal(rng, (m, n))
    return a + 1j * standard_normal(rng, (m, n)) if dt == np.complex128 else a


def _schur(rng, n, dt):
    return sl.schur(_mat(rng, n, n, dt), output="complex" if dt == np.complex128 else "real")[0]


def _calls(n, dt, kw):
    """sygst (every itype and uplo) and trsyl (m = n, n + 3, every trans, both signs, and a
    scale < 1): the outputs and each call's report."""
    rng = np.random.default_rng(n)
    a = _mat(rng, n, n, dt)
    a = a + a.conj().T
    g = _mat(rng, n, n, dt)
    b = g @ g.conj().T + n * np.eye(n)
    out, reps = [], []
    for itype in (1, 2, 3):
        for lower in (0, 1):
            r = L.sygst(a, sl.cholesky(b, lower=bool(lower)), itype=itype, lower=lower, **kw)
            reps.append(L.last_report())
            out.append(r[0])
    ta, tb, c = _schur(rng, n, dt), _schur(rng, n + 3, dt), _mat(rng, n, n + 3, dt)
    trans = "NC" if dt == np.complex128 else "NT"
    for tra in trans:
        for trb in trans:
            for isgn, big in ((1, 1.0), (-1, 1e306)):
                x, scale, info = L.trsyl(ta, tb, big * c, trana=tra, tranb=trb, isgn=isgn, **kw)
                reps.append(L.last_report())
                out += [x, np.array([scale, info])]
    return out, reps


@pytest.mark.parametrize("dt", [np.float64, np.complex128])
@pytest.mark.parametrize("n", SIZES)
def test_resident_equal_cpu(dt, n):
    want, _ = _calls(n, dt, dict(KW, executor="cpu"))
    got, reps = _calls(n, dt, dict(KW, executor="cuda"))
    assert len(got) == len(want)
    for u, v in zip(want, got):
        assert np.array_equal(_bits(u), _bits(v))
    if n > NB:  # more than one block: uploaded once, products emulated there
        assert all(r["device"] == "uploaded" and r["emulated"] > 0 for r in reps)
        assert all(r["executor"] == "cuda" for r in reps)


@pytest.mark.parametrize("cx", [0, 1])
def test_device_pointers_through_the_c_api(rng, cx):
    """sygst and trsyl on device pointers with leading dimensions beyond the rows (scale and
    info on the host): the CPU executor's bits, report device 2."""
    dt = np.complex128 if cx else np.float64
    z = "z" if cx else "d"
    n, nc, ld = 3 * NB + 3, 2 * NB + 1, 3 * NB + 7
    a = np.zeros((ld, n), dtype=dt, order="F")
    h = _mat(rng, n, n, dt)
    a[:n] = h + h.conj().T
    b = np.zeros((ld, n), dtype=dt, order="F")
    g = _mat(rng, n, n, dt)
    b[:n] = sl.cholesky(g @ g.conj().T + n * np.eye(n))
    t = np.zeros((ld, n), dtype=dt, order="F")
    t[:n] = _schur(rng, n, dt)
    s = np.zeros((ld, nc), dtype=dt, order="F")
    s[:nc] = _schur(rng, nc, dt)
    c = np.asfortranarray(_mat(rng, ld, nc, dt))
    info = ffi.new("int64_t *")
    scale = ffi.new("double *")
    rep = ffi.new("ozblas_lapack_report *")

    def calls(ptrs, ex):
        A, B, T, S, C = ptrs
        o = _options("ozaki2", 16, None, ex, None, None, None)
        devices, scales = [], []
        gst = getattr(lib, "ozblas_zhegst" if cx else "ozblas_dsygst")
        for st in (gst(_context(), 1, b"U", n, A, ld, B, ld, info, NB, o, rep),
                   getattr(lib, f"ozblas_{z}trsyl")(_context(), b"C" if cx else b"T", b"N", -1, n, nc,
                                                    T, ld, S, ld, C, ld, scale, info, NB, o, rep)):
            assert st == 0 and info[0] == 0
            devices.append(rep.device)
            scales.append(scale[0])
        return np.array(scales), devices

    _host_and_device_runs(calls, [a, b, t, s, c])


def test_cupy_arrays():
    """CuPy arrays in, CuPy arrays out, the CPU executor's bits (CuPy cannot run on the
    emulation: skipped there)."""
    cp = pytest.importorskip("cupy")
    rng = np.random.default_rng(7)
    n = 3 * NB + 5
    a = standard_normal(rng, (n, n))
    a = a + a.T
    c = sl.cholesky(a @ a + n * np.eye(n))
    got = L.sygst(cp.asarray(a), cp.asarray(c), itype=2, **KW)
    assert L.last_report()["device"] == "device"
    _cupy_check(cp, got[:1], L.sygst(a, c, itype=2, executor="cpu", **KW)[:1])
    t, s = _schur(rng, n, np.float64), _schur(rng, n - 3, np.float64)
    q = standard_normal(rng, (n, n - 3))
    x, scale, info = L.trsyl(cp.asarray(t), cp.asarray(s), cp.asarray(q), tranb="T", **KW)
    want = L.trsyl(t, s, q, tranb="T", executor="cpu", **KW)
    _cupy_check(cp, [x], want[:1])
    assert (scale, info) == want[1:]
