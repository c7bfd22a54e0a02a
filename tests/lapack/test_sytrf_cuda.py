"""The Bunch-Kaufman family on the CUDA executor: the same bits as on the CPU executor (the
panel is the driver's own C on a host copy of its columns, each update an ozblas GEMM on the
device; host matrices uploaded once, device matrices used in place). Marked ``gpu``: runs where a CUDA executor is usable, and here on the
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
NB = 8


@pytest.mark.parametrize("kind", ["d", "zsy", "zhe"])
def test_sytrf_family_cuda_equal_cpu(rng, kind):
    n = 2 * NB + 5
    a = standard_normal(rng, (n, n)) + (1j * standard_normal(rng, (n, n)) if kind != "d" else 0)
    a = a + (a.conj().T if kind == "zhe" else a.T)
    b = standard_normal(rng, (n, 3)) + 0j * (kind != "d")
    p = "he" if kind == "zhe" else "sy"
    runs = {}
    for ex in ("cpu", "cuda"):
        kw = dict(method="ozaki2", moduli=16, nb=NB, executor=ex)
        out = []
        for lower in (0, 1):
            ldu, ipiv, _ = getattr(L, p + "trf")(a, lower=lower, **kw)
            assert L.last_report()["executor"] == ex and L.last_report()["emulated"] > 0
            x, _ = getattr(L, p + "trs")(ldu, ipiv, b, lower=lower, **kw)
            inv, _ = getattr(L, p + "tri")(ldu, ipiv, lower=lower, **kw)
            out += [ldu, ipiv, x, inv]
        runs[ex] = out
    bits = lambda u: np.ascontiguousarray(u).view(np.uint64) if u.dtype.kind in "fc" else u  # noqa: E731
    for u, v in zip(runs["cpu"], runs["cuda"]):
        assert np.array_equal(bits(u), bits(v))


# ---- device-resident runs and device pointers (docs/lapack.md, "On the GPU") -------------

def _sym(rng, n, kind, zero_diagonal=False):
    a = standard_normal(rng, (n, n)) + (1j * standard_normal(rng, (n, n)) if kind != "d" else 0)
    a = a + (a.conj().T if kind == "zhe" else a.T)
    if zero_diagonal:  # 2x2 pivots forced
        np.fill_diagonal(a, 0)
    return a


def _bk_calls(kind, n, lower, zero_diagonal, kw):
    """sytrf, sytrs, sytri and sysv (or the he forms): outputs and reports."""
    rng = np.random.default_rng(n * 10 + lower)
    a = _sym(rng, n, kind, zero_diagonal)
    b = standard_normal(rng, (n, 3)) + 0j * (kind != "d")
    p = "he" if kind == "zhe" else "sy"
    out, reps = [], []

    def run(name, *args):
        r = getattr(L, p + name)(*args, lower=lower, **kw)
        reps.append(L.last_report())
        out.extend(r)
        return r

    ldu, ipiv, _ = run("trf", a)
    run("trs", ldu, ipiv, b)
    run("tri", ldu, ipiv)
    run("sv", a, b)
    return out, reps


@pytest.mark.parametrize("kind", ["d", "zsy", "zhe"])
@pytest.mark.parametrize("n,zero_diagonal", [(NB + 1, False), (3 * NB + 5, False), (2 * NB + 5, True)])
def test_bunch_kaufman_resident_equal_cpu(kind, n, zero_diagonal):
    """executor="cuda" with NumPy matrices: uploaded once, the panel on a host copy of its
    columns (and of the pivot column beyond them), the updates on the device, the solve's
    and inverse's element work in strips through the seam: the CPU executor's bits, upper
    and lower, info included."""
    for lower in (0, 1):
        kw = dict(method="ozaki2", moduli=16, nb=NB)
        want, _ = _bk_calls(kind, n, lower, zero_diagonal, dict(kw, executor="cpu"))
        got, reps = _bk_calls(kind, n, lower, zero_diagonal, dict(kw, executor="cuda"))
        assert all(r["device"] == "uploaded" and r["executor"] == "cuda" for r in reps)
        assert reps[0]["emulated"] > 0
        assert len(got) == len(want)
        for u, v in zip(want, got):
            assert np.array_equal(_bits(u), _bits(v))


@pytest.mark.parametrize("kind", ["d", "zhe"])
def test_bunch_kaufman_resident_singular_info_as_cpu(rng, kind):
    n = 3 * NB + 5
    a = _sym(rng, n, kind)
    a[:, 11] = 0
    a[11, :] = 0
    p = "he" if kind == "zhe" else "sy"
    kw = dict(method="ozaki2", moduli=16, nb=NB)
    res = {}
    for ex in ("cpu", "cuda"):
        ldu, ipiv, info = getattr(L, p + "trf")(a, executor=ex, **kw)
        res[ex] = (info, getattr(L, p + "tri")(ldu, ipiv, executor=ex, **kw)[1], _bits(ldu), ipiv)
    assert res["cpu"][0] > 0 and res["cpu"][1] > 0
    assert res["cpu"][:2] == res["cuda"][:2]
    assert all(np.array_equal(u, v) for u, v in zip(res["cpu"][2:], res["cuda"][2:]))


@pytest.mark.parametrize("kind", ["d", "zsy", "zhe"])
def test_bunch_kaufman_device_pointers_through_the_c_api(rng, kind):
    """sytrf, sytrs, sytri on device pointers with leading dimensions beyond the rows (ipiv
    on the host): the CPU executor's bits, report device 2."""
    n, ld = 3 * NB + 5, 3 * NB + 8
    dt = np.float64 if kind == "d" else np.complex128
    a = np.asfortranarray(np.vstack([_sym(rng, n, kind), np.zeros((ld - n, n))]).astype(dt))
    b = np.asfortranarray(standard_normal(rng, (ld, 2)).astype(dt))
    p = {"d": "dsy", "zsy": "zsy", "zhe": "zhe"}[kind]
    f = lambda name: getattr(lib, f"ozblas_{p}{name}")  # noqa: E731
    info = ffi.new("int64_t *")
    rep = ffi.new("ozblas_lapack_report *")

    def calls(ptrs, ex):
        A, B = ptrs
        o = _options("ozaki2", 16, None, ex, None, None, None)
        ipiv = np.zeros(n, dtype=np.int64)
        pv = ffi.cast("int64_t *", ipiv.ctypes.data)
        devices = []
        for st in (f("trf")(_context(), b"U", n, A, ld, pv, info, NB, o, rep),
                   f("trs")(_context(), b"U", n, 2, A, ld, pv, B, ld, info, NB, o, rep),
                   f("tri")(_context(), b"U", n, A, ld, pv, info, NB, o, rep)):
            assert st == 0 and info[0] == 0
            devices.append(rep.device)
        return ipiv, devices

    _host_and_device_runs(calls, [a, b])


def test_bunch_kaufman_cupy_arrays():
    """CuPy arrays in, CuPy arrays out (pivots too), the CPU executor's bits (CuPy cannot run
    on the emulation: skipped there)."""
    cp = pytest.importorskip("cupy")
    rng = np.random.default_rng(9)
    n = 3 * NB + 5
    a = _sym(rng, n, "d")
    b = standard_normal(rng, (n, 2))
    kw = dict(method="ozaki2", moduli=16, nb=NB)
    dev = L.sytrf(cp.asarray(a), **kw)
    assert dev[2] == 0 and L.last_report()["device"] == "device"
    want = L.sytrf(a, executor="cpu", **kw)
    _cupy_check(cp, dev[:2], want[:2])
    _cupy_check(cp, L.sytrs(*dev[:2], cp.asarray(b), **kw)[:1],
                L.sytrs(*want[:2], b, executor="cpu", **kw)[:1])
    _cupy_check(cp, L.sytri(*dev[:2], **kw)[:1], L.sytri(*want[:2], executor="cpu", **kw)[:1])
