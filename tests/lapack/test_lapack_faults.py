"""A LAPACK-layer call that cannot get a workspace (its own, or one of its products'), at any
point (tests/_faults.py fails each allocation of the call in turn): ozblas.lapack returns the
host routine's result for the whole call, bit for bit and with its info, or, where the run can
do without that workspace, its own result unchanged (docs/lapack.md, "When
memory runs out"), and the C API returns OZBLAS_ERR_ALLOCATION with the operands as passed."""

import numpy as np
import pytest
import scipy.linalg.lapack as host

from _faults import fail_at, sweep
from ozblas import lapack as L
from ozblas._native import ffi, lib
from ozblas.api import _context

N, EMU = 20, dict(method="ozaki2", nb=8)


@pytest.fixture(autouse=True)
def _products_by_the_rule():
    """The library's own thread rule for these sweeps (tests/conftest.py shares every product
    between threads so that thread counts can be compared): thousands of runs of tiny products
    would otherwise each wake a team."""
    import ctypes

    from ozblas import _native

    hook = getattr(ctypes.CDLL(str(_native.library_path())), "oz_cpu_test_min_elements", None)
    if hook is None:
        yield
        return
    hook.argtypes = [ctypes.c_int64]
    hook(-1)
    yield
    hook(0)


def _mats(dt):
    rng = np.random.default_rng(5)
    a = rng.uniform(-1, 1, (N, N))
    if dt == np.complex128:
        a = a + 1j * rng.uniform(-1, 1, (N, N))
    spd = a @ a.conj().T + N * np.eye(N)
    return a, spd, a + a.conj().T, rng.uniform(-1, 1, (N, 3)).astype(dt)


def _gelsd_host(p, a, b):
    sizes = getattr(host, p + "gelsd_lwork")(N, N, 3, -1.0)
    extra = [int(s) for s in sizes[1:-1]]
    return getattr(host, p + "gelsd")(a, b, int(np.real(sizes[0])), *extra)


CASES = {  # ours, the host routine called directly
    "getrf": (lambda m, p: L.getrf(m[0], **EMU), lambda m, p: getattr(host, p + "getrf")(m[0])),
    "potrf": (lambda m, p: L.potrf(m[1], **EMU), lambda m, p: getattr(host, p + "potrf")(m[1])),
    "syevd": (lambda m, p: L.syevd(m[2], **EMU),
              lambda m, p: getattr(host, "dsyevd" if p == "d" else "zheevd")(m[2])),
    "gesdd": (lambda m, p: L.gesdd(m[0][:, :15], **EMU),
              lambda m, p: getattr(host, p + "gesdd")(m[0][:, :15])),
    "gelsd": (lambda m, p: L.gelsd(m[0], m[3], **EMU), lambda m, p: _gelsd_host(p, m[0], m[3])),
    "syevr": (lambda m, p: L.syevr(m[2], **EMU),
              lambda m, p: getattr(host, "dsyevr" if p == "d" else "zheevr")(m[2])),
    "sygvd": (lambda m, p: L.sygvd(m[2], m[1], **EMU),
              lambda m, p: getattr(host, "dsygvd" if p == "d" else "zhegvd")(m[2], m[1])),
    "gesvd": (lambda m, p: L.gesvd(m[0][:, :15], **EMU),
              lambda m, p: getattr(host, p + "gesvd")(m[0][:, :15])),
    "gelss": (lambda m, p: L.gelss(m[0], m[3], **EMU),
              lambda m, p: getattr(host, p + "gelss")(m[0], m[3])),
    "geev": (lambda m, p: L.geev(m[0], **EMU), lambda m, p: getattr(host, p + "geev")(m[0])),
    "gees": (lambda m, p: L.gees(lambda *w: 0, m[0], **EMU),
             lambda m, p: getattr(host, p + "gees")(lambda *w: 0, m[0])),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dt", [np.float64, np.complex128], ids=["d", "z"])
def test_every_allocation_failing_gives_the_host_routine(name, dt):
    m, p = _mats(dt), "z" if dt == np.complex128 else "d"
    ours, native = CASES[name]
    want = native(m, p)
    emulated = ours(m, p)
    assert not all(np.array_equal(g, w) for g, w in zip(emulated, want))  # the test can tell
    same = lambda got, ref: len(got) == len(ref) and all(  # noqa: E731
        np.array_equal(np.asarray(g), np.asarray(w)) for g, w in zip(got, ref))
    for n, got in sweep(lambda: ours(m, p)):
        # the host routine's result, or the emulated one unchanged where the run could do
        # without that workspace (the bulge chase's per-thread buffers: one thread, same bits)
        assert same(got, want) or same(got, emulated), (name, n)


def test_c_api_leaves_the_operands_as_passed():
    a = np.asfortranarray(_mats(np.float64)[0])
    opt = ffi.new("ozblas_options *")
    lib.ozblas_options_init(opt)
    opt.method = lib.OZBLAS_METHOD_OZAKI2
    info, ipiv = ffi.new("int64_t *"), np.zeros(N, dtype=np.int64)
    refused = 0

    def call():
        x = a.copy(order="F")
        st = lib.ozblas_dgetrf(_context(), N, N, ffi.cast("double *", x.ctypes.data), N,
                               ffi.cast("int64_t *", ipiv.ctypes.data), info, 8, opt, ffi.NULL)
        return st, x

    for n, (st, x) in sweep(call):
        assert st in (lib.OZBLAS_OK, lib.OZBLAS_ERR_ALLOCATION), (n, st)
        if st == lib.OZBLAS_ERR_ALLOCATION:
            refused += 1
            assert np.array_equal(x, a), n
    assert refused > 0
    fail_at(0)
