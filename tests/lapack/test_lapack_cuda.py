"""The LAPACK layer on the CUDA executor: the same bits as on the CPU executor.

The drivers (native/src/lapack) run their panels and diagonal blocks on the host LAPACK and
each update as an ozblas GEMM on the executor asked for. With executor "cuda", host matrices
are uploaded once and the updates run on the device pointers (the blocks for the host
routines copied there and back through lapack_seam.c); device pointers from the caller are
used in place. Every emulated product equals the CPU executor's bit for bit, so the whole
factorization does. Marked ``gpu``: runs where a CUDA executor is usable, and here on the
CPU emulation of the CUDA code (tests/cuda/emu/run_emu_tests.py).
"""

import numpy as np
import pytest

from ozblas import lapack as L
from ozblas.testing import standard_normal

pytestmark = pytest.mark.gpu
NB = 8


def _mat(rng, n, m, dt):
    a = standard_normal(rng, (n, m))
    return a + 1j * standard_normal(rng, (n, m)) if dt == np.complex128 else a


@pytest.mark.parametrize("dt", [np.float64, np.complex128])
def test_drivers_cuda_equal_cpu(rng, dt):
    n = 2 * NB + 5
    a = _mat(rng, n, n, dt)
    s = a @ a.conj().T + n * np.eye(n)
    b = _mat(rng, n, 3, dt)
    runs = {}
    for ex in ("cpu", "cuda"):
        kw = dict(method="ozaki2", moduli=16, nb=NB, executor=ex)
        lu, piv, _ = L.getrf(a, **kw)
        assert L.last_report()["executor"] == ex and L.last_report()["emulated"] > 0
        c, _ = L.potrf(s, lower=True, **kw)
        x, _ = L.getrs(lu, piv, b, trans=2, **kw)
        y = L.trsm(1.0, np.triu(a) + 4 * np.eye(n), b.T.copy(), side=1, trans_a=1, **kw)
        inv, _ = L.getri(lu, piv, **kw)
        runs[ex] = (lu, piv, c, x, y, inv)
    bits = lambda u: np.ascontiguousarray(u).view(np.uint64) if u.dtype.kind in "fc" else u
    for u, v in zip(runs["cpu"], runs["cuda"]):
        assert np.array_equal(bits(u), bits(v))


# ---- device-resident runs: host operands uploaded once (docs/lapack.md, "On the GPU") ----

def _bits(u):
    u = np.asarray(u)
    return np.ascontiguousarray(u).view(np.uint64) if u.dtype.kind in "fc" else u


def _every_routine(rng, dt, n, kw):
    """Each routine of ozblas.lapack once (several uplo/trans/side/diag), its outputs."""
    a = _mat(rng, n, n, dt)
    s = a @ a.conj().T + n * np.eye(n)
    t = np.triu(a) + 4 * np.eye(n)
    b = _mat(rng, n, 3, dt)
    wide = _mat(rng, n - 4, n + 3, dt)
    out, reports = [], []

    def run(f, *args, **more):
        r = f(*args, **kw, **more)
        reports.append(L.last_report())
        out.extend(r if isinstance(r, tuple) else (r,))
        return r

    lu, piv, _ = run(L.getrf, a)
    run(L.getrf, wide)
    run(L.getrf, wide.T.copy())
    for trans in (0, 1, 2):
        run(L.getrs, lu, piv, b, trans=trans)
    run(L.gesv, a, b)
    run(L.getri, lu, piv)
    for lower in (False, True):
        c, _ = run(L.potrf, s, lower=lower)
        run(L.potrs, c, b, lower=lower)
        run(L.posv, s, b, lower=lower)
        run(L.potri, c, lower=lower)
        run(L.trtri, t.T.copy() if lower else t, lower=lower, unitdiag=lower)
    run(L.trtrs, t, b, trans=2)
    for side, lower, trans, diag in ((0, 0, 0, 0), (1, 1, 2, 1), (0, 1, 1, 0), (1, 0, 0, 1)):
        tt = t.T.copy() if lower else t
        bb = b if side == 0 else b.T.copy()
        run(L.trsm, 0.5 - 0.25j if dt == np.complex128 else 0.5, tt, bb, side=side,
            lower=lower, trans_a=trans, diag=diag)
        run(L.trmm, 1.5, tt, bb, side=side, lower=lower, trans_a=trans, diag=diag)
    run(L.trsm, 0.0, t, b)
    cx = dt == np.complex128
    al, be = (0.5 - 0.25j, 1.5 + 0.5j) if cx else (0.5, 1.5)
    for side, lower in ((0, 0), (1, 1)):
        bb = b if side == 0 else b.T.copy()
        for f in (L.symm, L.hemm) if cx else (L.symm,):
            run(f, al, a, bb, beta=be, c=2 * bb, side=side, lower=lower)
    run(L.symm, 0.0, a, b, beta=be, c=b)  # alpha = 0: C := beta C through the seam
    for trans, lower in ((0, 1), (1, 0)):
        bb = b if trans == 0 else b.T.copy()
        run(L.syr2k, al, bb, bb[::-1].copy(), beta=be, c=s, trans=trans, lower=lower)
        if cx:
            run(L.her2k, al, bb, bb[::-1].copy(), beta=1.5, c=s, trans=2 * trans, lower=lower)
    run(L.syr2k, 0.0, b, b, beta=be, c=s, lower=1)
    return out, reports


@pytest.mark.parametrize("dt", [np.float64, np.complex128])
def test_resident_runs_equal_cpu(rng, dt):
    """executor="cuda" with NumPy matrices: uploaded once, updates on the device pointers,
    panels and diagonal blocks through the host LAPACK, results copied back: every output
    equals the CPU executor's host run bit for bit."""
    n = 2 * NB + 5
    kw = dict(method="ozaki2", moduli=16, nb=NB)
    want, _ = _every_routine(np.random.default_rng(3), dt, n, dict(kw, executor="cpu"))
    got, reps = _every_routine(np.random.default_rng(3), dt, n, dict(kw, executor="cuda"))
    assert all(r["device"] == "uploaded" and not r["device_short"] for r in reps)
    assert sum(r["emulated"] for r in reps) > 0
    assert len(got) == len(want)
    for u, v in zip(want, got):
        assert np.array_equal(_bits(u), _bits(v))


def test_resident_short_of_memory_runs_on_host_path(rng):
    """Device copies that do not fit (the library's test-only cap on what a call may plan
    with) leave the call on the host blocked path, reported, with the same bits."""
    import ctypes

    import ozblas

    hook = ctypes.CDLL(ozblas._native.library_path()).oz_cuda_test_cap_workspace
    hook.argtypes = [ctypes.c_size_t]
    a = _mat(rng, 2 * NB + 5, 2 * NB + 5, np.float64)
    kw = dict(method="ozaki2", moduli=16, nb=NB)
    want = L.getrf(a, executor="cpu", **kw)
    hook(1 << 20)  # the copies may take half of it: they fit, and so do the products
    try:
        got = L.getrf(a, executor="cuda", **kw)
        assert L.last_report()["device"] == "uploaded"
        hook(a.nbytes)  # the products then run on the CPU executor (host operands)
        short = L.getrf(a, executor="cuda", **kw)
        r = L.last_report()
    finally:
        hook(0)
    assert r["device"] == "host" and r["device_short"] and r["emulated"] > 0
    for g in (got, short):
        assert all(np.array_equal(_bits(u), _bits(v)) for u, v in zip(want[:2], g[:2]))


def test_resident_singular_info_as_cpu(rng):
    n = 2 * NB + 5
    a = _mat(rng, n, n, np.float64)
    a[:, 11] = 0.0
    s = np.eye(n)
    s[13, 13] = -1.0
    kw = dict(method="ozaki2", moduli=16, nb=NB)
    for ex in ("cpu", "cuda"):
        assert L.getrf(a, executor=ex, **kw)[2] == 12
        assert L.potrf(s, executor=ex, **kw)[1] == 14
        assert L.getri(L.getrf(a, executor=ex, **kw)[0], np.arange(n), executor=ex, **kw)[1] == 12


# ---- the C API on device pointers (memory from the library's test-only hooks) ----------------

class _Dev:
    """Device copies of Fortran-ordered host matrices through the test hooks of
    native/src/cuda/lapack_device.cu (no CuPy needed; the same on a GPU)."""

    def __init__(self):
        import ctypes

        import ozblas

        self.c = ctypes
        lib = ctypes.CDLL(ozblas._native.library_path())
        self.malloc, self.free, self.copy = (lib.oz_cuda_test_malloc, lib.oz_cuda_test_free,
                                             lib.oz_cuda_test_memcpy)
        self.malloc.restype = ctypes.c_void_p
        self.malloc.argtypes = [ctypes.c_size_t]
        self.free.argtypes = [ctypes.c_void_p]
        self.copy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
        self.held = []

    def put(self, h):
        p = self.malloc(h.nbytes)
        assert p
        self.held.append(p)
        assert self.copy(p, h.ctypes.data, h.nbytes) == 0
        return p

    def get(self, p, like):
        h = np.empty_like(like, order="F")
        assert self.copy(h.ctypes.data, p, h.nbytes) == 0
        return h

    def close(self):
        for p in self.held:
            self.free(p)


def _cupy_check(cp, got, want):
    """CuPy results: CuPy arrays with the bits of the CPU executor's NumPy results."""
    for g, w in zip(got, want):
        assert isinstance(g, cp.ndarray)
        assert np.array_equal(_bits(cp.asnumpy(g)), _bits(w))


def _host_and_device_runs(calls, mats):
    """calls(pointers, executor) -> (a host-side result, each call's report.device), run on
    host copies of the Fortran-ordered matrices mats with the CPU executor and on device
    copies with executor auto: the device run reports device memory (2) throughout, and its
    results (the host-side one, the matrices) have the host run's bits."""
    from ozblas._native import ffi

    ptr = lambda p: ffi.cast("double *", p)  # noqa: E731
    hosts = [m.copy(order="F") for m in mats]
    want, dev_host = calls([ptr(h.ctypes.data) for h in hosts], "cpu")
    assert set(dev_host) == {0}
    d = _Dev()
    try:
        dps = [d.put(m) for m in mats]
        got, devices = calls([ptr(p) for p in dps], "auto")
        assert set(devices) == {2}
        assert np.array_equal(_bits(got), _bits(want))
        for dp, h in zip(dps, hosts):
            assert np.array_equal(_bits(d.get(dp, h)), _bits(h))
    finally:
        d.close()


@pytest.mark.parametrize("cx", [0, 1])
def test_device_pointers_through_the_c_api(rng, cx):
    """ozblas_[dz]getrf / potrf / getrs / trsm / syrk / symm / syr2k on device pointers, with leading dimensions
    beyond the rows: the results in device memory equal the CPU executor's host-pointer run
    bit for bit, and the report says device (2); host and device matrices mixed are refused."""
    from ozblas._native import ffi, lib
    from ozblas.api import _context, _options

    dt = np.complex128 if cx else np.float64
    n, nrhs, ld = 2 * NB + 5, 3, 2 * NB + 9
    a = np.asfortranarray(_mat(rng, ld, n, dt))
    s = _mat(rng, n, n, dt)
    s = np.asfortranarray(np.vstack([s @ s.conj().T + n * np.eye(n), np.zeros((ld - n, n))]))
    b = np.asfortranarray(_mat(rng, ld, nrhs, dt))
    z = "z" if cx else "d"
    f = lambda name: getattr(lib, f"ozblas_{z}{name}")
    ptr = lambda p: ffi.cast("double *", p)
    info = ffi.new("int64_t *")
    rep = ffi.new("ozblas_lapack_report *")
    alpha = ffi.new("double[2]", [0.5, 0.25]) if cx else 0.5
    beta = ffi.new("double[2]", [-1.5, 0.5]) if cx else -1.5

    def calls(A, S, B, ex):
        o = _options("ozaki2", 16, None, ex, None, None, None)
        ipiv = np.zeros(n, dtype=np.int64)
        pv = ffi.cast("int64_t *", ipiv.ctypes.data)
        devices = []
        for st in (f("getrf")(_context(), n, n, A, ld, pv, info, NB, o, rep),
                   f("getrs")(_context(), b"C", n, nrhs, A, ld, pv, B, ld, info, NB, o, rep),
                   f("potrf")(_context(), b"L", n, S, ld, info, NB, o, rep),
                   f("trsm")(_context(), b"L", b"L", b"N", b"N", n, nrhs, alpha, S, ld, B, ld,
                             info, NB, o, rep),
                   f("syrk")(_context(), b"U", b"N", n, nrhs, alpha, B, ld, beta, S, ld, info, NB,
                             o, rep),
                   f("symm")(_context(), b"L", b"U", n, nrhs, alpha, S, ld, B, ld, beta, A, ld,
                             info, NB, o, rep),
                   f("syr2k")(_context(), b"L", b"N", n, nrhs, alpha, B, ld, A, ld, beta, S, ld,
                              info, NB, o, rep)):
            assert st == 0 and info[0] == 0
            devices.append(rep.device)
        return ipiv, devices

    ha, hs, hb = a.copy(order="F"), s.copy(order="F"), b.copy(order="F")
    want_piv, dev_host = calls(ptr(ha.ctypes.data), ptr(hs.ctypes.data), ptr(hb.ctypes.data), "cpu")
    assert dev_host == [0] * 7
    d = _Dev()
    try:
        da, ds, db = d.put(a), d.put(s), d.put(b)
        piv, devices = calls(ptr(da), ptr(ds), ptr(db), "auto")
        assert devices == [2] * 7
        assert np.array_equal(piv, want_piv)
        for dp, h in ((da, ha), (ds, hs), (db, hb)):
            assert np.array_equal(_bits(d.get(dp, h)), _bits(h))
        o = _options("ozaki2", 16, None, "auto", None, None, None)
        st = f("getrs")(_context(), b"N", n, nrhs, ptr(da), ld,
                        ffi.cast("int64_t *", piv.ctypes.data), ptr(hb.ctypes.data), ld, info,
                        NB, o, rep)
        assert st == lib.OZBLAS_ERR_INVALID_ARGUMENT
    finally:
        d.close()


def test_cupy_arrays_in_ozblas_lapack():
    """ozblas.lapack on CuPy arrays (getrf, potrf, getrs, symm, syr2k) returns CuPy arrays equal
    to the CPU executor's bits (CuPy cannot run on the emulation: skipped there)."""
    cp = pytest.importorskip("cupy")
    rng = np.random.default_rng(5)
    n = 2 * NB + 5
    a = standard_normal(rng, (n, n))
    s = a @ a.T + n * np.eye(n)
    b = standard_normal(rng, (n, 2))
    kw = dict(method="ozaki2", moduli=16, nb=NB)
    lu, piv, info = L.getrf(cp.asarray(a), **kw)
    assert isinstance(lu, cp.ndarray) and isinstance(piv, cp.ndarray) and info == 0
    assert L.last_report()["device"] == "device"
    want = L.getrf(a, executor="cpu", **kw)
    assert np.array_equal(_bits(cp.asnumpy(lu)), _bits(want[0]))
    assert np.array_equal(cp.asnumpy(piv), want[1])
    c, _ = L.potrf(cp.asarray(s), lower=True, **kw)
    assert np.array_equal(_bits(cp.asnumpy(c)), _bits(L.potrf(s, lower=True, executor="cpu", **kw)[0]))
    x, _ = L.getrs(lu, piv, cp.asarray(b), **kw)
    assert isinstance(x, cp.ndarray)
    assert np.array_equal(_bits(cp.asnumpy(x)), _bits(L.getrs(*want[:2], b, executor="cpu", **kw)[0]))
    # symm and syr2k on CuPy arrays: CuPy results, the CPU executor's bits
    c = L.symm(0.5, cp.asarray(s), cp.asarray(b), beta=1.5, c=cp.asarray(b), side=0, lower=1, **kw)
    assert isinstance(c, cp.ndarray) and L.last_report()["device"] == "device"
    want = L.symm(0.5, s, b, beta=1.5, c=b, side=0, lower=1, executor="cpu", **kw)
    assert np.array_equal(_bits(cp.asnumpy(c)), _bits(want))
    c = L.syr2k(0.75, cp.asarray(a), cp.asarray(a[::-1].copy()), beta=0.5, c=cp.asarray(s), trans=1,
                **kw)
    want = L.syr2k(0.75, a, a[::-1].copy(), beta=0.5, c=s, trans=1, executor="cpu", **kw)
    assert np.array_equal(_bits(cp.asnumpy(c)), _bits(want))


def test_exact_products_run_where_oz_exact_run_puts_them(rng):
    """accuracy "correct": executor "auto" leaves host matrices on the host (exact products
    with host operands run on the CPU), executor "cuda" runs device-resident with every
    product exact on the device (none computed natively); all three give the same bits."""
    from ozblas._native import ffi, lib
    from ozblas.api import _context, _options

    n = 2 * NB + 5
    a = np.asfortranarray(_mat(rng, n, n, np.float64))
    s = np.asfortranarray(a @ a.T + n * np.eye(n))
    rep = ffi.new("ozblas_lapack_report *")
    info = ffi.new("int64_t *")
    ptr = lambda x: ffi.cast("double *", x.ctypes.data)
    out = {}
    for ex, where in (("cpu", 0), ("auto", 0), ("cuda", 1)):
        o = _options("ozaki2", None, None, ex, None, None, None, accuracy="correct")
        lu, c, ipiv = a.copy(order="F"), s.copy(order="F"), np.zeros(n, dtype=np.int64)
        assert lib.ozblas_dgetrf(_context(), n, n, ptr(lu), n, ffi.cast("int64_t *", ipiv.ctypes.data),
                                 info, NB, o, rep) == 0 and info[0] == 0
        assert rep.device == where and rep.products > 0 and rep.emulated == rep.products
        assert lib.ozblas_dsyrk(_context(), b"L", b"N", n, n, 1.0, ptr(a), n, 0.5, ptr(c), n, info, NB,
                                o, rep) == 0 and rep.device == where
        assert rep.emulated == rep.products
        out[ex] = (lu, ipiv, c)
    for u, v, w in zip(out["cpu"], out["auto"], out["cuda"]):
        assert np.array_equal(_bits(u), _bits(v)) and np.array_equal(_bits(u), _bits(w))
