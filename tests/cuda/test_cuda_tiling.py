"""The CUDA executor on products larger than the device memory it may use (needs a CUDA GPU,
or the CPU emulation of tests/cuda/emu).

A test-only hook of the library (``oz_cuda_test_cap_workspace``, not part of the API) caps
the device memory a call plans with, so that small products take the paths of very large
ones: C in tiles with op(A), op(B) uploaded whole ("tiles"), op(A), op(B) streamed block by
block ("streamed"), k split into blocks as well ("ksplit-*"), or, below the smallest tile,
the CPU executor. Another hook (``oz_cuda_test_last_plan``) reports the tiling a call used,
so every test checks that it reached the regime it is about. Results must equal the CPU
executor's bit for bit, as untiled ones do.
"""

from __future__ import annotations

import contextlib
import ctypes
import threading

import numpy as np
import pytest

import ozblas
from ozblas.testing import make_matrix, standard_normal

import _compare
from _compare import assert_same_bits

_OK, _WHY = _compare.cuda_state()
pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not _OK, reason=f"CUDA executor unavailable: {_WHY}"),
]

_REPORT_KEYS = ("method", "moduli", "slices", "variant", "scaling", "fallback",
                "int_gemms", "fp64_passes", "bits_a", "bits_b")

IN_PLACE, RESIDENT, STREAMED = 0, 1, 2

# (m, k, n) of every test below, and the caps (bytes) that put it in each regime
M, K, N = 70, 90, 50
CAPS = {
    ("d", "ozaki2"): {"tiles": 200_000, "streamed": 100_000, "ksplit-resident": 120_000,
                      "ksplit-streamed": 80_000, "cpu": 30_000},
    # complex: two residue planes per modulus on the complex set (issue 34), 15 moduli for 14
    ("z", "ozaki2"): {"tiles": 340_000, "ksplit-resident": 260_000,
                      "ksplit-streamed": 130_000, "cpu": 50_000},
    ("d", "ozaki1"): {"tiles": 200_000, "streamed": 100_000, "cpu": 40_000},
    ("z", "ozaki1"): {"tiles": 300_000, "streamed": 200_000, "cpu": 100_000},
}


class _Hooks:
    def __init__(self):
        lib = ctypes.CDLL(ozblas._native.library_path())
        self.cap = lib.oz_cuda_test_cap_workspace
        self.cap.argtypes = [ctypes.c_size_t]
        self.cap.restype = None
        self._plan = lib.oz_cuda_test_last_plan
        self._plan.argtypes = [ctypes.POINTER(ctypes.c_int64)]
        self._plan.restype = None

    def last_plan(self):
        out = (ctypes.c_int64 * 9)()
        self._plan(out)
        keys = ("mb", "nb", "kc", "nI", "nJ", "nL", "a", "b", "c")
        return dict(zip(keys, list(out)))


_HOOKS = None


def hooks():
    global _HOOKS
    if _HOOKS is None:
        _HOOKS = _Hooks()
    return _HOOKS


@contextlib.contextmanager
def workspace_cap(nbytes):
    hooks().cap(nbytes)
    try:
        yield
    finally:
        hooks().cap(0)


def assert_regime(plan, regime, what=""):
    tiles = plan["nI"] * plan["nJ"]
    streamed = STREAMED in (plan["a"], plan["b"])
    ok = {
        "tiles": tiles > 1 and plan["nL"] == 1 and plan["a"] == plan["b"] == RESIDENT,
        "streamed": tiles > 1 and plan["nL"] == 1 and streamed,
        "ksplit-resident": plan["nL"] > 1 and plan["a"] == plan["b"] == RESIDENT,
        "ksplit-streamed": plan["nL"] > 1 and streamed,
    }[regime]
    assert ok, (what, regime, plan)
    # ragged tiles: the edges are not multiples of the tile
    assert M % plan["mb"] or N % plan["nb"], (what, plan)


def _dt(cplx):
    return np.complex128 if cplx else np.float64


def _operands(ta, tb, cplx, seed, phi=1.0):
    dt = _dt(cplx)
    a = make_matrix(*((M, K) if ta == 0 else (K, M)), phi, seed=seed, dtype=dt)
    b = make_matrix(*((K, N) if tb == 0 else (N, K)), phi, seed=seed + 1, dtype=dt)
    c = np.asfortranarray(make_matrix(M, N, 1.0, seed=seed + 2, dtype=dt))
    return np.asfortranarray(a), np.asfortranarray(b), c


def tiled_vs_cpu(cplx, regime, ta, tb, *, beta=None, c=None, seed=0, phi=1.0, **kw):
    """The same gemm on the CUDA executor under the regime's cap and on the CPU executor;
    returns (cuda result, cuda report, cpu result, cpu report, plan)."""
    a, b, c0 = _operands(ta, tb, cplx, seed, phi)
    c = c0 if c is None else c
    alpha = (0.75 - 1.25j) if cplx else -1.5
    if beta is None:
        beta = (0.5 + 0.25j) if cplx else 0.375
    fn = ozblas.zgemm if cplx else ozblas.dgemm
    key = ("z" if cplx else "d", kw["method"])
    with workspace_cap(CAPS[key][regime]):
        cc, rc = fn(alpha, a, b, beta, c.copy(order="F"), ta, tb, executor="cuda",
                    return_info=True, **kw)
        plan = hooks().last_plan()
    cp, rp = fn(alpha, a, b, beta, c.copy(order="F"), ta, tb, executor="cpu", return_info=True,
                **kw)
    return cc, rc, cp, rp, plan


# ---- Ozaki II ---------------------------------------------------------------------------------

_O2_CASES = [(cplx, regime, scaling)
             for cplx in (False, True)
             for regime in CAPS[("z" if cplx else "d", "ozaki2")] if regime != "cpu"
             for scaling in ("fast", "accurate")]


@pytest.mark.parametrize("cplx,regime,scaling", _O2_CASES,
                         ids=[f"{'z' if c else 'd'}-{r}-{s}" for c, r, s in _O2_CASES])
def test_ozaki2_tiled_equals_cpu(cplx, regime, scaling):
    i = list(CAPS[("z" if cplx else "d", "ozaki2")]).index(regime)
    ta, tb = [(0, 0), (1, 2), (2, 1), (0, 1)][i]
    cc, rc, cp, rp, plan = tiled_vs_cpu(cplx, regime, ta, tb, seed=10 * i, method="ozaki2",
                                        moduli=14, scaling=scaling)
    what = f"{regime} {scaling} ta={ta} tb={tb}"
    assert_regime(plan, regime, what)
    assert rc["fallback"] is None
    _compare.assert_same_report(rc, rp, _REPORT_KEYS, what)
    assert_same_bits(cc, cp, what)


@pytest.mark.parametrize("ta", [0, 1, 2])
@pytest.mark.parametrize("tb", [0, 1, 2])
@pytest.mark.parametrize("cplx", [False, True], ids=["d", "z"])
def test_ozaki2_tiled_transposes(cplx, ta, tb):
    cc, rc, cp, rp, plan = tiled_vs_cpu(cplx, "ksplit-streamed", ta, tb, seed=3 * ta + tb,
                                        method="ozaki2", moduli=16, scaling="fast")
    assert_regime(plan, "ksplit-streamed")
    _compare.assert_same_report(rc, rp, _REPORT_KEYS, f"ta={ta} tb={tb}")
    assert_same_bits(cc, cp, f"ta={ta} tb={tb}")


def test_ozaki2_tiled_wide_exponent_spread():
    """Rows and columns of very different magnitudes: each tile must use the scaling of the
    whole product (accurate scaling's alpha_i is a min over all columns)."""
    a, b, c = _operands(0, 0, False, 5, phi=2.0)
    a[3] *= 2.0 ** 300
    a[M - 1] *= 2.0 ** -200
    b[:, N - 1] *= 2.0 ** 250
    b[:, 7] = 0.0
    for scaling in ("fast", "accurate"):
        with workspace_cap(CAPS[("d", "ozaki2")]["ksplit-streamed"]):
            cc, rc = ozblas.matmul(a, b, method="ozaki2", moduli=20, scaling=scaling,
                                   executor="cuda", return_info=True)
            plan = hooks().last_plan()
        cp, rp = ozblas.matmul(a, b, method="ozaki2", moduli=20, scaling=scaling,
                               executor="cpu", return_info=True)
        assert_regime(plan, "ksplit-streamed", scaling)
        assert rp["fallback"] is None
        _compare.assert_same_report(rc, rp, _REPORT_KEYS, scaling)
        assert_same_bits(cc, cp, scaling)


# ---- Ozaki I ----------------------------------------------------------------------------------

_O1_CASES = [(cplx, variant, regime)
             for cplx, variants in ((False, ("bitmask", "rn", "ef", "hybrid")),
                                    (True, ("hybrid", "rn")))
             for variant in variants
             for regime in ("tiles", "streamed")]


@pytest.mark.parametrize("cplx,variant,regime", _O1_CASES,
                         ids=[f"{'z' if c else 'd'}-{v}-{r}" for c, v, r in _O1_CASES])
def test_ozaki1_tiled_equals_cpu(cplx, variant, regime):
    ta, tb = (1, 0) if regime == "tiles" else (0, 2)
    cc, rc, cp, rp, plan = tiled_vs_cpu(cplx, regime, ta, tb, seed=7, method="ozaki1",
                                        slices=7, variant=variant)
    what = f"{variant} {regime}"
    assert_regime(plan, regime, what)
    assert plan["nL"] == 1  # slicing looks at whole rows and columns: k is never split
    assert rc["fallback"] is None
    _compare.assert_same_report(rc, rp, _REPORT_KEYS, what)
    assert_same_bits(cc, cp, what)


# ---- BLAS semantics and fallbacks under tiling --------------------------------------------------


@pytest.mark.parametrize("method,regime", [("ozaki2", "ksplit-streamed"), ("ozaki1", "streamed")])
@pytest.mark.parametrize("cplx", [False, True], ids=["d", "z"])
def test_beta_zero_never_reads_c_tiled(cplx, method, regime):
    c = np.full((M, N), np.nan, dtype=_dt(cplx), order="F")
    kw = dict(moduli=14) if method == "ozaki2" else dict(slices=7)
    cc, rc, cp, rp, plan = tiled_vs_cpu(cplx, regime, 0, 0, beta=0.0, c=c, method=method, **kw)
    assert_regime(plan, regime)
    assert np.all(np.isfinite(cc))
    assert_same_bits(cc, cp, "beta=0")


def _native(alpha, a, b, beta, c):
    return alpha * (a @ b) + beta * c


@pytest.mark.parametrize("method,regime", [("ozaki2", "ksplit-streamed"), ("ozaki2", "tiles"),
                                           ("ozaki1", "streamed")])
@pytest.mark.parametrize("bad", ["nan", "range"])
def test_fallback_is_decided_before_any_tile_is_written(method, regime, bad):
    """A NaN, or an exponent span the scaling cannot hold, in the last block of op(B):
    the call falls back to the native product as the CPU's does, with C still intact (beta
    != 0 reads it), so no tile may have been written before the whole product was checked."""
    a, b, c = _operands(0, 0, False, 21)
    if bad == "nan":
        b[K - 1, N - 1] = np.nan
    else:
        b[K - 2, N - 1] = 1e300
        b[K - 1, N - 1] = 1e-300
    kw = dict(moduli=14) if method == "ozaki2" else dict(slices=7)
    with workspace_cap(CAPS[("d", method)][regime]):
        cc, rc = ozblas.dgemm(2.0, a, b, 0.5, c.copy(order="F"), method=method, executor="cuda",
                              return_info=True, **kw)
        plan = hooks().last_plan()
    _, rp = ozblas.dgemm(2.0, a, b, 0.5, c.copy(order="F"), method=method, executor="cpu",
                         return_info=True, **kw)
    assert_regime(plan, regime)
    assert rc["fallback"] == rp["fallback"] is not None
    assert rc["executor"] == "cuda" and rc["method"] == "native"
    want = _native(2.0, a, b, 0.5, c)
    ok = np.isfinite(want)
    assert np.array_equal(ok, np.isfinite(cc))
    scale = 2.0 * (np.abs(a) @ np.abs(b)) + 0.5 * np.abs(c)
    assert np.max(np.abs(cc - want)[ok] / scale[ok]) < 1e-12


@pytest.mark.parametrize("method", ["ozaki2", "ozaki1"])
def test_smaller_than_the_smallest_tile_runs_on_the_cpu(method):
    a, b, c = _operands(0, 1, False, 31)
    kw = dict(moduli=14) if method == "ozaki2" else dict(slices=7)
    with workspace_cap(CAPS[("d", method)]["cpu"]):
        cc, rc = ozblas.dgemm(1.5, a, b, -0.25, c.copy(order="F"), 0, 1, method=method,
                              executor="cuda", return_info=True, **kw)
        plan = hooks().last_plan()
    cp = ozblas.dgemm(1.5, a, b, -0.25, c.copy(order="F"), 0, 1, method=method, executor="cpu",
                      **kw)
    assert rc["executor"] == "cpu" and rc["fallback"] is None
    assert plan["nI"] == 0  # no tiling was planned
    assert_same_bits(cc, cp, "cpu fallback")


def test_leading_dimensions_larger_than_rows_tiled():
    """Through the C API: lda, ldb, ldc beyond the rows, so every streamed block of A, B and
    C is a strided piece of the caller's matrix; rows of C beyond m stay untouched."""
    from ozblas._native import ffi, lib

    lda, ldb, ldc = M + 5, K + 3, M + 7
    rng = np.random.default_rng(5)
    A = np.asfortranarray(standard_normal(rng, (lda, K)))
    B = np.asfortranarray(standard_normal(rng, (ldb, N)))
    C0 = np.asfortranarray(standard_normal(rng, (ldc, N)))
    outs = {}
    for ex, code in (("cpu", 1), ("cuda", 2)):
        opt = ffi.new("ozblas_options *")
        lib.ozblas_options_init(opt)
        opt.method = 3
        opt.moduli = 14
        opt.scaling = 0
        opt.executor = code
        C = C0.copy(order="F")
        rep = ffi.new("ozblas_report *")
        with workspace_cap(CAPS[("d", "ozaki2")]["ksplit-streamed"] if code == 2 else 0):
            st = lib.ozblas_dgemm(ffi.NULL, b"N", b"N", M, N, K, 1.25,
                                  ffi.cast("double *", A.ctypes.data), lda,
                                  ffi.cast("double *", B.ctypes.data), ldb, -0.5,
                                  ffi.cast("double *", C.ctypes.data), ldc, opt, rep)
            plan = hooks().last_plan()
        assert st == 0, ffi.string(lib.ozblas_status_name(st))
        assert rep.executor == code and rep.fallback == 0
        if code == 2:
            assert_regime(plan, "ksplit-streamed")
        outs[ex] = C
    assert_same_bits(outs["cuda"], outs["cpu"], "ld > rows")
    assert_same_bits(outs["cuda"][M:], C0[M:], "padding rows of C")


def test_four_threads_tiled_at_once():
    """Each thread has its own workspace, pinned chunks, copy streams and events."""
    cases = []
    for t in range(4):
        cplx = bool(t % 2)
        method = "ozaki1" if t == 2 else "ozaki2"
        kw = dict(method=method, moduli=13 + t) if method == "ozaki2" else dict(
            method=method, slices=6)
        a, b, c = _operands(t % 3, (t + 1) % 3, cplx, 50 + t)
        fn = ozblas.zgemm if cplx else ozblas.dgemm
        want = fn(1.0, a, b, 0.5, c, t % 3, (t + 1) % 3, executor="cpu", **kw)
        cases.append((fn, a, b, c, t % 3, (t + 1) % 3, kw, want))
    errors = []

    def work(i):
        fn, a, b, c, ta, tb, kw, want = cases[i]
        try:
            for _ in range(2):
                got, rep = fn(1.0, a, b, 0.5, c, ta, tb, executor="cuda", return_info=True, **kw)
                plan = hooks().last_plan()
                assert rep["executor"] == "cuda" and plan["nI"] * plan["nJ"] > 1, (i, plan)
                assert_same_bits(got, want, f"thread {i}")
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append((i, e))

    # one cap for all threads, small enough to tile every case
    with workspace_cap(CAPS[("z", "ozaki2")]["ksplit-streamed"]):
        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    assert not errors, errors


def test_split_call_tiled_equals_cpu():
    """Issue 14: a split call's parts (C staged as hi, lo pairs: twice the element width)
    in tiles of C give the CPU executor's bits."""
    a, b, _ = _operands(0, 0, False, 5)
    s = np.ldexp(1.0, np.random.default_rng(3).integers(-80, 81, K))
    a, b = np.asfortranarray(a * s[None, :]), np.asfortranarray(b / s[:, None])
    with workspace_cap(CAPS[("d", "ozaki2")]["tiles"]):
        cc, rc = ozblas.matmul(a, b, method="ozaki2", executor="cuda", return_info=True)
        plan = hooks().last_plan()
    cp, rp = ozblas.matmul(a, b, method="ozaki2", executor="cpu", return_info=True)
    assert rp["fallback"] is None and rp["split_parts"] >= 2, rp
    assert plan["nI"] * plan["nJ"] > 1 and rc["executor"] == "cuda", (plan, rc)
    assert rc["split_parts"] == rp["split_parts"] and rc["bound"] == rp["bound"]
    assert_same_bits(cc, cp, "split tiled")


@pytest.mark.parametrize("regime", ["tiles", "ksplit-streamed"])
@pytest.mark.parametrize("scaling", ["fast", "accurate"])
def test_hermitian_product_tiled_equals_cpu(regime, scaling):
    """op(A) op(A)^H from one array in tiles: the Hermitian product's equal bits on both
    sides (taken from the whole product), two products per modulus as C is in several tiles
    (P- of a tile is P+ of another); the CPU's bits, which take one."""
    a = np.asfortranarray(make_matrix(M, K, 1.0, seed=7, dtype=np.complex128))
    c = np.zeros((M, M), dtype=np.complex128, order="F")
    kw = dict(method="ozaki2", moduli=14, scaling=scaling, return_info=True)
    with workspace_cap(CAPS[("z", "ozaki2")][regime]):
        cc, rc = ozblas.zgemm(1.0, a, a, 0.0, c.copy(order="F"), 0, 2, executor="cuda", **kw)
        plan = hooks().last_plan()
    cp, rp = ozblas.zgemm(1.0, a, a, 0.0, c.copy(order="F"), 0, 2, executor="cpu", **kw)
    assert rp["complex_products"] == 1
    assert plan["nI"] * plan["nJ"] > 1, plan  # (one tile: test_cuda_executor's)
    assert rc["complex_products"] == 2
    for key in ("moduli", "bits_a", "bits_b", "fallback"):
        assert rc[key] == rp[key], key
    assert_same_bits(cc, cp, regime)
