"""Ozaki I on the CUDA executor against the CPU executor, bit for bit (needs a CUDA GPU).

The GPU executor must give exactly the CPU executor's bits for every variant (bitmask, rn,
ef, hybrid): the same slices, the same exact integer sums, the same FP64 accumulation order,
the same fallbacks and the same report. Every test is marked ``gpu`` and skipped with the
reason ``ozblas.info()`` gives where the CUDA executor is unavailable. Tests with "large" in
their name are for a real GPU (deselect them with -k "not large" on the CPU emulation).
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import ozblas
from ozblas.testing import make_matrix, standard_normal

import _compare
from _compare import _mats, _operand, assert_same_bits, both_gemm, both_matmul


def _cuda_state():
    try:
        ex = ozblas.info()["executors"]["cuda"]
        return bool(ex["available"]), ex.get("reason")
    except Exception as e:  # pragma: no cover
        return False, f"ozblas.info() failed: {e}"


_OK, _WHY = _cuda_state()
pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not _OK, reason=f"CUDA executor unavailable: {_WHY}"),
]

VARIANTS = ("bitmask", "rn", "ef", "hybrid")
_REPORT_KEYS = ("method", "slices", "variant", "fallback", "int_gemms", "fp64_passes",
                "bits_a", "bits_b")


def assert_same_report(rc, rp, what=""):
    _compare.assert_same_report(rc, rp, _REPORT_KEYS, what)
    if rc["fallback"] is None:
        ph = rc["phase_seconds"]
        assert ph is not None and len(ph) == 5 and all(p >= 0 for p in ph), (what, ph)


def assert_pair(cc, rc, cp, rp, a, b, what=""):
    """Same report; same bits, or, where both fell back to native (cuBLAS vs host BLAS),
    the same fallback and results close to a @ b."""
    assert_same_report(rc, rp, what)
    if rp["fallback"] is None:
        assert_same_bits(cc, cp, what)
    else:
        assert rc["method"] == "native"
        scale = np.abs(a) @ np.abs(b)
        scale[scale == 0] = 1.0
        assert np.max(np.abs(cc - a @ b) / scale) < 1e-12, what


def oz1(variant, slices):
    return dict(method="ozaki1", variant=variant, slices=slices)


_DT = {"d": np.float64, "z": np.complex128}


# ---- matmul: every variant, real and complex, awkward sizes ----------------------------------

_SIZES = [(1, 1, 1), (7, 7, 7), (33, 33, 33), (33, 5, 17), (1, 13, 1), (40, 1, 3), (7, 33, 1)]


@pytest.mark.parametrize("dt", ["d", "z"])
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("mkn", _SIZES, ids=lambda s: "x".join(map(str, s)))
def test_matmul_matches_cpu(mkn, variant, dt):
    m, k, n = mkn
    a, b = _mats(m, k, n, 1.0, _DT[dt], seed=m + 7 * k + 13 * n)
    cc, rc, cp, rp = both_matmul(a, b, **oz1(variant, 11))
    assert rp["fallback"] is None and rp["method"] == "ozaki1"
    assert_same_report(rc, rp, f"{mkn} {variant}")
    assert_same_bits(cc, cp, f"{mkn} {variant} {dt}")


@pytest.mark.parametrize("dt", ["d", "z"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_matmul_130x67x257(variant, dt):
    a, b = _mats(130, 67, 257, 1.0, _DT[dt], seed=5)
    for s in (9, 20):
        cc, rc, cp, rp = both_matmul(a, b, **oz1(variant, s))
        assert rp["fallback"] is None
        assert_same_report(rc, rp, f"130x67x257 {variant} s={s}")
        assert_same_bits(cc, cp, f"130x67x257 {variant} {dt} s={s}")


@pytest.mark.parametrize("dt", ["d", "z"])
@pytest.mark.parametrize("slices", [2, 9, 13, 20])
@pytest.mark.parametrize("phi", [0.5, 2.0])
@pytest.mark.parametrize("variant", VARIANTS)
def test_slices_and_spread(variant, phi, slices, dt):
    a, b = _mats(21, 43, 19, phi, _DT[dt], seed=slices + int(10 * phi))
    cc, rc, cp, rp = both_matmul(a, b, **oz1(variant, slices))
    if slices >= 9:
        assert rp["fallback"] is None
    assert_pair(cc, rc, cp, rp, a, b, f"{variant} phi={phi} s={slices} {dt}")


@pytest.mark.parametrize("k", [1, 2, 3, 5, 15, 17, 31, 33, 100, 1027])
def test_k_not_multiple_of_4(k):
    for dt in ("d", "z"):
        a, b = _mats(19, k, 23, 1.0, _DT[dt], seed=k)
        for variant in VARIANTS:
            cc, rc, cp, rp = both_matmul(a, b, **oz1(variant, 10))
            assert rp["fallback"] is None
            assert_same_report(rc, rp, f"k={k} {variant}")
            assert_same_bits(cc, cp, f"k={k} {variant} {dt}")


# ---- BLAS interface: transposes, alpha, beta, C ----------------------------------------------


@pytest.mark.parametrize("ta", [0, 1, 2])
@pytest.mark.parametrize("tb", [0, 1, 2])
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("dt", ["d", "z"])
def test_gemm_transposes(ta, tb, variant, dt):
    cplx = dt == "z"
    dtype = _DT[dt]
    m, k, n = 37, 29, 23
    a_shape = (m, k) if ta == 0 else (k, m)
    b_shape = (k, n) if tb == 0 else (n, k)
    a = _operand(*a_shape, 1.0, dtype, 10 * ta + tb, "F" if ta != 1 else "C")
    b = _operand(*b_shape, 1.0, dtype, 100 + 10 * ta + tb, "C" if tb != 1 else "F")
    c = np.asfortranarray(make_matrix(m, n, 1.0, seed=7, dtype=dtype))
    alpha = (0.75 - 1.25j) if cplx else -1.5
    beta = (0.5 + 0.25j) if cplx else 0.375
    fn = ozblas.zgemm if cplx else ozblas.dgemm
    cc, rc, cp, rp = both_gemm(fn, alpha, a, b, beta, c, ta, tb, **oz1(variant, 9))
    assert rp["fallback"] is None
    assert_same_report(rc, rp, f"ta={ta} tb={tb} {variant}")
    assert_same_bits(cc, cp, f"ta={ta} tb={tb} {variant} {dt}")


@pytest.mark.parametrize("dt", ["d", "z"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_beta_zero_never_reads_c(variant, dt):
    cplx = dt == "z"
    dtype = _DT[dt]
    a, b = _mats(20, 30, 10, 1.0, dtype, seed=3)
    c = np.full((20, 10), np.nan, dtype=dtype, order="F")
    fn = ozblas.zgemm if cplx else ozblas.dgemm
    alpha = (2.0 + 0.5j) if cplx else 2.0
    out = fn(alpha, a, b, 0.0, c, executor="cuda", **oz1(variant, 9))
    assert np.all(np.isfinite(out))
    want = fn(alpha, a, b, 0.0, c, executor="cpu", **oz1(variant, 9))
    assert_same_bits(out, want, f"beta=0 {variant}")


def test_leading_dimensions_larger_than_rows():
    """Through the C API: lda, ldb, ldc beyond the rows (2-D copies to and from the device)."""
    from ozblas._native import ffi, lib

    m, k, n = 13, 9, 11
    lda, ldb, ldc = 17, 12, 15
    rng = np.random.default_rng(5)
    A = np.asfortranarray(standard_normal(rng, (lda, k)))
    B = np.asfortranarray(standard_normal(rng, (ldb, n)))
    C0 = np.asfortranarray(standard_normal(rng, (ldc, n)))
    for variant in range(4):
        outs = {}
        for ex, code in (("cpu", 1), ("cuda", 2)):
            opt = ffi.new("ozblas_options *")
            lib.ozblas_options_init(opt)
            opt.method = 2  # OZBLAS_METHOD_OZAKI1
            opt.slices = 10
            opt.ozaki1_variant = variant
            opt.executor = code
            C = C0.copy(order="F")
            rep = ffi.new("ozblas_report *")
            st = lib.ozblas_dgemm(ffi.NULL, b"N", b"N", m, n, k, 1.25,
                                  ffi.cast("double *", A.ctypes.data), lda,
                                  ffi.cast("double *", B.ctypes.data), ldb, -0.5,
                                  ffi.cast("double *", C.ctypes.data), ldc, opt, rep)
            assert st == 0, ffi.string(lib.ozblas_status_name(st))
            assert rep.executor == code and rep.fallback == 0 and rep.method == 2
            outs[ex] = C
        assert_same_bits(outs["cuda"], outs["cpu"], f"ld > rows, variant {variant}")
        assert_same_bits(outs["cuda"][m:], C0[m:], "padding rows of C")


# ---- fallbacks and extreme exponents ------------------------------------------------------------


@pytest.mark.parametrize("dt", ["d", "z"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_nonfinite_falls_back_like_cpu(variant, dt):
    dtype = _DT[dt]
    for where, val in (("a", np.inf), ("b", np.nan), ("a", -np.inf)):
        a, b = _mats(9, 8, 7, 1.0, dtype, seed=1)
        if where == "a":
            a[3, 2] = val
        else:
            b[5, 6] = val
        cc, rc, cp, rp = both_matmul(a, b, **oz1(variant, 9))
        assert rp["fallback"] is not None and rp["method"] == "native"
        assert_same_report(rc, rp, f"{where} {val} {variant}")
        np.testing.assert_array_equal(np.isfinite(cc), np.isfinite(cp))


@pytest.mark.parametrize("dt", ["d", "z"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_exponent_range_falls_back_like_cpu(variant, dt):
    dtype = _DT[dt]
    # a nonzero element that no slice reaches
    a, b = _mats(6, 5, 4, 1.0, dtype, seed=2)
    a[1, 0] = 1e300
    a[1, 1] = 1e-300
    cc, rc, cp, rp = both_matmul(a, b, **oz1(variant, 8))
    assert rp["fallback"] is not None
    assert_pair(cc, rc, cp, rp, a, b, f"lost element {variant}")
    # a partial FP64 sum could overflow (row and column exponents too large together):
    # summed at a lower scale (oz1_acc_scale), no fallback, the same bits
    a, b = _mats(6, 5, 4, 1.0, dtype, seed=3)
    a[2] *= 2.0**990 / np.max(np.abs(a[2]))
    b[:, 1] *= 2.0**27 / np.max(np.abs(b[:, 1]))
    cc, rc, cp, rp = both_matmul(a, b, **oz1(variant, 12))
    assert rp["fallback"] is None
    assert_pair(cc, rc, cp, rp, a, b, f"overflow {variant}")
    # few slices for a wide spread: elements lost in some rows
    a, b = _mats(16, 40, 12, 4.0, dtype, seed=4)
    cc, rc, cp, rp = both_matmul(a, b, **oz1(variant, 2))
    assert_pair(cc, rc, cp, rp, a, b, f"2 slices phi=4 {variant}")


@pytest.mark.parametrize("variant", VARIANTS)
def test_tiny_and_huge_magnitudes(variant):
    """Rows far from 1 (subnormal and near-overflow scales), zero rows and columns still match
    the CPU bit for bit."""
    for dtype in (np.float64, np.complex128):
        a, b = _mats(17, 40, 9, 0.5, dtype, seed=4)
        a[0] *= 2.0**-1060
        a[1] *= 2.0**900
        a[3] *= 2.0**-1000
        b[:, 2] *= 2.0**-40
        b[:, 4] = 0.0
        a[2] = 0.0
        for s in (13, 20):
            cc, rc, cp, rp = both_matmul(a, b, **oz1(variant, s))
            assert rp["fallback"] is None, rp
            assert_same_report(rc, rp, f"{variant} s={s}")
            assert_same_bits(cc, cp, f"extreme rows {variant} s={s} {np.dtype(dtype).name}")


# ---- k blocking, threads, device arrays, a large product ----------------------------------------


@pytest.mark.parametrize("dt", ["d", "z"])
def test_k_beyond_one_block(dt):
    """k > 65536: the INT8 products are k-blocked and their blocks summed exactly; for complex
    EF/HYBRID (r = 2) chunks of two pairs span both blocks."""
    a, b = _mats(8, 70001, 8, 1.0, _DT[dt], seed=9)
    for variant in VARIANTS:
        cc, rc, cp, rp = both_matmul(a, b, **oz1(variant, 9))
        assert rp["fallback"] is None
        assert_same_report(rc, rp, f"k=70001 {variant}")
        assert_same_bits(cc, cp, f"k=70001 {variant} {dt}")


def test_four_threads_at_once():
    cases = []
    for t in range(4):
        dtype = np.complex128 if t % 2 else np.float64
        a, b = _mats(60 + 17 * t, 90 + t, 50 + 5 * t, 0.5 + 0.5 * t, dtype, seed=40 + t)
        kw = oz1(VARIANTS[t], 8 + 2 * t)
        want = ozblas.matmul(a, b, executor="cpu", **kw)
        cases.append((a, b, kw, want))
    errors = []

    def work(i):
        a, b, kw, want = cases[i]
        try:
            for _ in range(3):
                got = ozblas.matmul(a, b, executor="cuda", **kw)
                assert_same_bits(got, want, f"thread {i}")
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append((i, e))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors


@pytest.fixture(scope="module")
def cupy():
    return pytest.importorskip("cupy")


@pytest.mark.parametrize("variant", VARIANTS)
def test_cupy_device_arrays(cupy, variant):
    a, b = _mats(33, 70, 17, 1.0, np.float64, seed=1)
    want = ozblas.matmul(a, b, executor="cpu", **oz1(variant, 11))
    got, info = ozblas.matmul(cupy.asarray(a), cupy.asarray(b), return_info=True,
                              **oz1(variant, 11))
    assert isinstance(got, cupy.ndarray) and info["executor"] == "cuda"
    assert info["method"] == "ozaki1" and info["fallback"] is None
    assert_same_bits(cupy.asnumpy(got), want, f"cupy {variant}")
    # op(za) = za^H, op(zb) = zb^T: 9 x 21 times 21 x 9
    za = make_matrix(21, 9, 1.0, seed=3, dtype=np.complex128)
    zb = make_matrix(9, 21, 1.0, seed=4, dtype=np.complex128)
    c0 = make_matrix(9, 9, 1.0, seed=5, dtype=np.complex128)
    want = ozblas.zgemm(0.5 - 1j, za, zb, 2 + 0.25j, c0, 2, 1, executor="cpu",
                        **oz1(variant, 13))
    got = ozblas.zgemm(0.5 - 1j, cupy.asarray(za), cupy.asarray(zb), 2 + 0.25j,
                       cupy.asarray(c0), 2, 1, **oz1(variant, 13))
    assert isinstance(got, cupy.ndarray)
    assert_same_bits(cupy.asnumpy(got), want, f"cupy zgemm {variant}")


@pytest.mark.parametrize("variant", ["bitmask", "hybrid"])
def test_large_product(variant):
    a, b = _mats(1023, 1023, 1023, 1.0, np.float64, seed=21)
    cc, rc, cp, rp = both_matmul(a, b, **oz1(variant, 11))
    assert_same_report(rc, rp, f"1023^3 {variant}")
    assert_same_bits(cc, cp, f"1023^3 {variant}")


@pytest.mark.parametrize("variant", ["bitmask", "hybrid"])
@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("phi", [0.0, 2.0, 4.0])
@pytest.mark.parametrize("mkn", [(1, 1, 1), (7, 33, 5), (33, 300, 17)])
def test_auto_slices_same_count_bound_and_bits(variant, cplx, phi, mkn):
    """slices="auto": the GPU takes the CPU's slice count, states its bound to the bit, and
    gives its bits (or the same fallback)."""
    m, k, n = mkn
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(m, k, phi, seed=m + 5 * k, dtype=dt)
    b = make_matrix(k, n, phi, seed=n + 3, dtype=dt)
    kw = dict(method="ozaki1", slices="auto", variant=variant, return_info=True)
    cc, rc = ozblas.matmul(a, b, executor="cuda", **kw)
    cp, rp = ozblas.matmul(a, b, executor="cpu", **kw)
    assert rc["executor"] == "cuda" and rp["executor"] == "cpu"
    for key in ("method", "slices", "fallback", "int_gemms", "fp64_passes", "bound"):
        assert rc[key] == rp[key], (key, rc[key], rp[key])
    if rp["fallback"] is None:
        assert_same_bits(cc, cp, f"auto slices {mkn} phi={phi}")


@pytest.mark.parametrize("variant", VARIANTS)
def test_near_overflow_summed_scaled_down_like_cpu(variant):
    """Issue 14: partial sums that could overflow are summed at a lower scale on both
    executors (oz1_acc_scale), with the same bits and no fallback; 30 slices."""
    a = np.array([[1.5e308, -1.5e308], [1.0, 2.0]])
    b = np.array([[1.0, 2.0], [1.0, 1.0]])
    cc, rc, cp, rp = both_matmul(a, b, method="ozaki1", slices=30, variant=variant)
    assert rp["fallback"] is None and rc["fallback"] is None
    assert_same_bits(cc, cp, f"near overflow {variant}")
