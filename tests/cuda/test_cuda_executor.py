"""The CUDA executor against the CPU executor, bit for bit (needs a CUDA GPU).

Ozaki II on the GPU must give exactly the CPU executor's bits: same element functions,
integer reductions only. Every test is marked ``gpu`` and skipped with the reason
``ozblas.info()`` gives where the CUDA executor is unavailable.
"""

from __future__ import annotations

import ctypes
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

_REPORT_KEYS = ("method", "moduli", "scaling", "fallback", "int_gemms", "fp64_passes",
                "bits_a", "bits_b", "complex_products")


def assert_same_report(rc, rp, what=""):
    _compare.assert_same_report(rc, rp, _REPORT_KEYS, what)


def assert_pair(cc, rc, cp, rp, a, b, what=""):
    """Same report; same bits, or, where both fell back to native (cuBLAS vs host BLAS),
    the same fallback and results close to a @ b."""
    assert_same_report(rc, rp, what)
    if rp["fallback"] is None:
        assert_same_bits(cc, cp, what)
    else:
        scale = np.abs(a) @ np.abs(b)
        assert np.max(np.abs(cc - a @ b) / scale) < 1e-12, what


# ---- availability --------------------------------------------------------------------------


def test_info_lists_cuda_available():
    ex = ozblas.info()["executors"]["cuda"]
    assert ex["available"] is True and ex["reason"] is None


# ---- matmul, both scalings, real and complex, awkward sizes ---------------------------------

_SIZES = [(1, 1, 1), (7, 7, 7), (33, 5, 17), (1, 13, 1), (40, 1, 3), (7, 33, 1),
          (130, 67, 257), (1023, 1023, 1023)]


@pytest.mark.parametrize("dtype", [np.float64, np.complex128], ids=["d", "z"])
@pytest.mark.parametrize("scaling", ["fast", "accurate"])
@pytest.mark.parametrize("mkn", _SIZES, ids=lambda s: "x".join(map(str, s)))
def test_matmul_matches_cpu(mkn, scaling, dtype):
    m, k, n = mkn
    if dtype == np.complex128 and m * k * n > 2e8:
        k = 129  # keep the complex CPU reference quick
    a, b = _mats(m, k, n, 1.0, dtype, seed=m + 7 * k + 13 * n)
    cc, rc, cp, rp = both_matmul(a, b, method="ozaki2", moduli=14, scaling=scaling)
    assert rc["fallback"] is None
    assert_same_report(rc, rp, f"{mkn} {scaling}")
    assert_same_bits(cc, cp, f"{mkn} {scaling}")
    ph = rc["phase_seconds"]
    assert ph is not None and len(ph) == 5 and all(p >= 0 for p in ph)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128], ids=["d", "z"])
@pytest.mark.parametrize("moduli", [2, 8, 14, 16, 20])
@pytest.mark.parametrize("phi", [0.5, 2.0])
@pytest.mark.parametrize("scaling", ["fast", "accurate"])
def test_moduli_and_spread(moduli, phi, scaling, dtype):
    a, b = _mats(61, 203, 45, phi, dtype, seed=moduli)
    cc, rc, cp, rp = both_matmul(a, b, method="ozaki2", moduli=moduli, scaling=scaling)
    # 2 moduli keep too few bits for these inputs: both executors fall back (exponent range)
    assert (rp["fallback"] is not None) == (moduli == 2)
    assert_pair(cc, rc, cp, rp, a, b, f"moduli {moduli} phi {phi} {scaling}")


@pytest.mark.parametrize("k", [1, 2, 3, 5, 15, 17, 31, 33, 100, 1027])
def test_k_not_multiple_of_4(k):
    for dtype in (np.float64, np.complex128):
        a, b = _mats(19, k, 23, 1.0, dtype, seed=k)
        for scaling in ("fast", "accurate"):
            cc, rc, cp, rp = both_matmul(a, b, method="ozaki2", moduli=16, scaling=scaling)
            assert_same_report(rc, rp, f"k={k}")
            assert_same_bits(cc, cp, f"k={k} {scaling} {np.dtype(dtype).name}")


# ---- BLAS interface: transposes, alpha, beta, C ----------------------------------------------


@pytest.mark.parametrize("ta", [0, 1, 2])
@pytest.mark.parametrize("tb", [0, 1, 2])
@pytest.mark.parametrize("scaling", ["fast", "accurate"])
@pytest.mark.parametrize("cplx", [False, True], ids=["d", "z"])
def test_gemm_transposes(ta, tb, scaling, cplx):
    dtype = np.complex128 if cplx else np.float64
    m, k, n = 37, 29, 23
    a_shape = (m, k) if ta == 0 else (k, m)
    b_shape = (k, n) if tb == 0 else (n, k)
    a = _operand(*a_shape, 1.0, dtype, 10 * ta + tb, "F" if ta != 1 else "C")
    b = _operand(*b_shape, 1.0, dtype, 100 + 10 * ta + tb, "C" if tb != 1 else "F")
    c = np.asfortranarray(make_matrix(m, n, 1.0, seed=7, dtype=dtype))
    alpha = (0.75 - 1.25j) if cplx else -1.5
    beta = (0.5 + 0.25j) if cplx else 0.375
    fn = ozblas.zgemm if cplx else ozblas.dgemm
    cc, rc, cp, rp = both_gemm(fn, alpha, a, b, beta, c, ta, tb, method="ozaki2", moduli=14,
                               scaling=scaling)
    assert_same_report(rc, rp, f"ta={ta} tb={tb}")
    assert_same_bits(cc, cp, f"ta={ta} tb={tb} {scaling}")


@pytest.mark.parametrize("cplx", [False, True], ids=["d", "z"])
@pytest.mark.parametrize("method", ["ozaki2", "native"])
def test_beta_zero_never_reads_c(cplx, method):
    dtype = np.complex128 if cplx else np.float64
    a, b = _mats(20, 30, 10, 1.0, dtype, seed=3)
    c = np.full((20, 10), np.nan, dtype=dtype, order="F")
    fn = ozblas.zgemm if cplx else ozblas.dgemm
    alpha = (2.0 + 0.5j) if cplx else 2.0
    out = fn(alpha, a, b, 0.0, c, method=method, executor="cuda", moduli=14)
    assert np.all(np.isfinite(out))
    if method == "ozaki2":
        want = fn(alpha, a, b, 0.0, c, method=method, executor="cpu", moduli=14)
        assert_same_bits(out, want, "beta=0")


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("method", ["native", "ozaki2", "auto"])
def test_alpha_zero_reads_neither_a_nor_b(cplx, method):
    """Issue 24: alpha = 0 is C := beta C on the CUDA executor too, with host arrays and with
    A, B and C in device memory (the C API on the library's test-only allocations): NaN and
    Inf in A and B do not reach C, beta = 0 does not read C, and the bits are the CPU
    executor's (exact here: small integers times beta)."""
    from ozblas._native import ffi, lib
    from ozblas.api import _context, _options

    dt = np.complex128 if cplx else np.float64
    fn = ozblas.zgemm if cplx else ozblas.dgemm
    a = np.full((7, 5), np.nan, dtype=dt, order="F")
    b = np.full((5, 3), np.inf, dtype=dt, order="F")
    c = np.asfortranarray(np.arange(21.0).reshape(7, 3) - 4 + (1j if cplx else 0))
    beta = (0.5 - 2j) if cplx else -1.5
    kw = dict(method=method, moduli=14 if method == "ozaki2" else None)
    assert_same_bits(fn(0.0, a, b, beta, c, executor="cuda", **kw), beta * c, "host arrays")
    so = ctypes.CDLL(ozblas._native.library_path())
    so.oz_cuda_test_malloc.restype = ctypes.c_void_p
    so.oz_cuda_test_malloc.argtypes = [ctypes.c_size_t]
    so.oz_cuda_test_free.argtypes = [ctypes.c_void_p]
    so.oz_cuda_test_memcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    held = []
    try:
        def put(h):
            p = so.oz_cuda_test_malloc(h.nbytes)
            held.append(p)
            assert p and so.oz_cuda_test_memcpy(p, h.ctypes.data, h.nbytes) == 0
            return p

        opts = _options(method, kw["moduli"], None, "cuda", None)
        cases = [(0.0, 5, beta, c, beta * c), (0.0, 5, 0.0, np.full_like(c, np.nan), np.zeros_like(c)),
                 (1.5, 0, beta, c, beta * c)]  # k = 0: the same C := beta C
        for al, k, be, c0, want in cases:
            dA, dB, dC = (ffi.cast("double *", put(x)) for x in (a, b, c0))
            if cplx:
                ap, bp = ffi.new("double[2]", [al, 0.0]), ffi.new("double[2]", [be.real, be.imag])
                st = lib.ozblas_zgemm(_context(), b"N", b"N", 7, 3, k, ap, dA, 7, dB, 5, bp, dC, 7,
                                      opts, ffi.NULL)
            else:
                st = lib.ozblas_dgemm(_context(), b"N", b"N", 7, 3, k, al, dA, 7, dB, 5, be, dC, 7,
                                      opts, ffi.NULL)
            assert st == 0
            got = np.empty_like(c)
            assert so.oz_cuda_test_memcpy(got.ctypes.data, held[-1], got.nbytes) == 0
            assert_same_bits(got, want, f"device pointers alpha={al} k={k} beta={be}")
    finally:
        for p in held:
            so.oz_cuda_test_free(p)


def test_leading_dimensions_larger_than_rows():
    """Through the C API: lda, ldb, ldc beyond the rows (2-D copies to and from the device)."""
    from ozblas._native import ffi, lib

    m, k, n = 13, 9, 11
    lda, ldb, ldc = 17, 12, 15
    rng = np.random.default_rng(5)
    A = np.asfortranarray(standard_normal(rng, (lda, k)))
    B = np.asfortranarray(standard_normal(rng, (ldb, n)))
    C0 = np.asfortranarray(standard_normal(rng, (ldc, n)))
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
        st = lib.ozblas_dgemm(ffi.NULL, b"N", b"N", m, n, k, 1.25,
                              ffi.cast("double *", A.ctypes.data), lda,
                              ffi.cast("double *", B.ctypes.data), ldb, -0.5,
                              ffi.cast("double *", C.ctypes.data), ldc, opt, rep)
        assert st == 0, ffi.string(lib.ozblas_status_name(st))
        assert rep.executor == code and rep.fallback == 0
        outs[ex] = C
    assert_same_bits(outs["cuda"], outs["cpu"], "ld > rows")
    # rows beyond m of C are untouched
    assert_same_bits(outs["cuda"][m:], C0[m:], "padding rows of C")


# ---- fallbacks ----------------------------------------------------------------------------------


@pytest.mark.parametrize("scaling", ["fast", "accurate"])
def test_nonfinite_falls_back_like_cpu(scaling):
    a, b = _mats(9, 8, 7, 1.0, np.float64, seed=1)
    a[3, 2] = np.inf
    cc, rc, cp, rp = both_matmul(a, b, method="ozaki2", moduli=14, scaling=scaling)
    assert rc["fallback"] == rp["fallback"] is not None
    assert rc["method"] == "native"
    np.testing.assert_array_equal(np.isfinite(cc), np.isfinite(cp))


@pytest.mark.parametrize("scaling", ["fast", "accurate"])
def test_exponent_range_falls_back_like_cpu(scaling):
    a, b = _mats(6, 5, 4, 1.0, np.float64, seed=2)
    a[1, 0] = 1e300
    a[1, 1] = 1e-300
    cc, rc, cp, rp = both_matmul(a, b, method="ozaki2", moduli=8, scaling=scaling)
    assert rp["fallback"] is not None
    assert_pair(cc, rc, cp, rp, a, b, "exponent range")


def test_tiny_and_huge_magnitudes():
    """Rows far from 1 (subnormal and near-overflow scales) still match the CPU bit for bit."""
    a, b = _mats(17, 40, 9, 0.5, np.float64, seed=4)
    a[0] *= 2.0 ** -1060
    a[1] *= 2.0 ** 1000
    b[:, 2] *= 2.0 ** -40
    a[2] = 0.0
    for scaling in ("fast", "accurate"):
        cc, rc, cp, rp = both_matmul(a, b, method="ozaki2", moduli=20, scaling=scaling)
        assert rp["fallback"] is None
        assert_same_report(rc, rp, scaling)
        assert_same_bits(cc, cp, f"extreme rows {scaling}")


# ---- k blocking, threads, a large product -------------------------------------------------------


@pytest.mark.parametrize("cplx", [False, True], ids=["d", "z"])
def test_k_beyond_one_block(cplx):
    """k > 65536 exercises the k-blocked INT8 products and their residue accumulation."""
    dtype = np.complex128 if cplx else np.float64
    a, b = _mats(8, 70001, 8, 1.0, dtype, seed=9)
    for scaling in ("fast", "accurate"):
        cc, rc, cp, rp = both_matmul(a, b, method="ozaki2", moduli=16, scaling=scaling)
        assert_same_report(rc, rp, scaling)
        assert_same_bits(cc, cp, f"k=70001 {scaling}")


def test_bound_product_beyond_one_block():
    """k > 262144: the accurate scaling's bound product is k-blocked and summed in int64."""
    a, b = _mats(4, 270000, 4, 1.0, np.float64, seed=11)
    cc, rc, cp, rp = both_matmul(a, b, method="ozaki2", moduli=14, scaling="accurate")
    assert_same_report(rc, rp, "k=270000")
    assert_same_bits(cc, cp, "k=270000 accurate")


def test_four_threads_at_once():
    cases = []
    for t in range(4):
        dtype = np.complex128 if t % 2 else np.float64
        a, b = _mats(100 + 17 * t, 150 + t, 90 + 5 * t, 0.5 + 0.5 * t, dtype, seed=40 + t)
        scaling = "fast" if t < 2 else "accurate"
        want = ozblas.matmul(a, b, method="ozaki2", moduli=12 + 2 * t, scaling=scaling,
                             executor="cpu")
        cases.append((a, b, scaling, 12 + 2 * t, want))
    errors = []

    def work(i):
        a, b, scaling, moduli, want = cases[i]
        try:
            for _ in range(3):
                got = ozblas.matmul(a, b, method="ozaki2", moduli=moduli, scaling=scaling,
                                    executor="cuda")
                assert_same_bits(got, want, f"thread {i}")
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append((i, e))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors


def test_large_product():
    n = 4097
    a, b = _mats(n, n, n, 1.0, np.float64, seed=21)
    cc, rc, cp, rp = both_matmul(a, b, method="ozaki2", moduli=14, scaling="fast")
    assert_same_report(rc, rp, "4097^3")
    assert_same_bits(cc, cp, "4097^3 fast")


# ---- native -------------------------------------------------------------------------------------


@pytest.mark.parametrize("cplx", [False, True], ids=["d", "z"])
@pytest.mark.parametrize("ta", [0, 1, 2])
def test_native_matches_numpy(cplx, ta):
    dtype = np.complex128 if cplx else np.float64
    m, k, n = 65, 47, 33
    a = make_matrix(*((m, k) if ta == 0 else (k, m)), 1.0, seed=ta, dtype=dtype)
    b = make_matrix(k, n, 1.0, seed=5, dtype=dtype)
    c = np.asfortranarray(make_matrix(m, n, 1.0, seed=6, dtype=dtype))
    alpha, beta = ((1.5 - 0.5j), (0.25 + 1j)) if cplx else (1.5, 0.25)
    fn = ozblas.zgemm if cplx else ozblas.dgemm
    out, rep = fn(alpha, a, b, beta, c, ta, 0, method="native", executor="cuda",
                  return_info=True)
    assert rep["executor"] == "cuda" and rep["method"] == "native"
    opa = a if ta == 0 else (a.T if ta == 1 or not cplx else a.conj().T)
    want = alpha * (opa @ b) + beta * c
    scale = np.abs(alpha) * (np.abs(opa) @ np.abs(b)) + np.abs(beta) * np.abs(c)
    assert np.max(np.abs(out - want) / scale) < 1e-12


def test_native_matmul_large():
    a, b = _mats(512, 300, 257, 1.0, np.float64, seed=8)
    out = ozblas.matmul(a, b, method="native", executor="cuda")
    want = a @ b
    scale = np.abs(a) @ np.abs(b)
    assert np.max(np.abs(out - want) / scale) < 1e-12


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("scaling", ["fast", "accurate"])
@pytest.mark.parametrize("phi", [0.0, 2.0, 4.0])
@pytest.mark.parametrize("mkn", [(1, 1, 1), (7, 33, 5), (33, 300, 17)])
def test_auto_precision_same_count_bound_and_bits(cplx, scaling, phi, mkn):
    """moduli="auto": the GPU takes the CPU's count, states its bound to the bit, and gives
    its bits (or the same fallback)."""
    m, k, n = mkn
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(m, k, phi, seed=m + 7 * k, dtype=dt)
    b = make_matrix(k, n, phi, seed=n + 11, dtype=dt)
    if m > 1:
        a[0, 0] *= 2.0**30
    cc, rc, cp, rp = both_matmul(a, b, method="ozaki2", moduli="auto", scaling=scaling)
    assert rc["bound"] == rp["bound"], (rc["bound"], rp["bound"])
    # the same products too: the call takes the bits the probe set (no second bound product)
    assert_pair(cc, rc, cp, rp, a, b, f"auto {mkn} phi={phi}")


# Issue 14's refined bound (ozaki2.h, automatic precision's refinement): the moduli each input
# took before it (main at fdb12e6, CPU executor; fast, accurate scaling). A count below these
# shows that the refinement ran on the input; the GPU must then take the same count. Real
# counts: a complex call's count on the complex set is compared by its bits (_budget).
_UNREFINED = {("phi4", False): (21, 21), ("phi4", True): (21, 21), ("phi8", False): (29, 28),
              ("phi8", True): (28, 28), ("k12", False): (32, 32), ("k12", True): (26, 26),
              ("zeros", False): (27, 27), ("zeros", True): (29, 29), ("long", False): (21, 21),
              ("long", True): (21, 21)}


def _budget_of_real(count):
    from ozblas._native import lib

    return lib.ozblas_ozaki2_engine_budget_bits(0, count)


def _budget(rep):
    """The bits of the table a report's count names: a complex call that took two products
    per modulus walked the complex set (oz2_auto_table), whose counts are not real counts."""
    from ozblas._native import lib

    if rep.get("complex_products") == 2:
        return lib.ozblas_ozaki2_complex_budget_bits(rep["moduli"])
    return _budget_of_real(rep["moduli"])


def _papers_matrix(m, n, phi, seed, dt):
    """make_matrix's formula through NumPy's own normal draws and np.exp, as before make_matrix
    drew machine-independent bits: _UNREFINED's counts were measured on these inputs (this
    test compares two executors on one machine, so a CPU's last bits do not decide it)."""
    rng = np.random.default_rng(seed)

    def draw():
        return (rng.random((m, n)) - 0.5) * np.exp(phi * rng.standard_normal((m, n)))

    if dt == np.complex128:
        out = np.empty((m, n), dtype=dt)
        out.real = draw()
        out.imag = draw()
        return out
    return draw()


def _refine_inputs(case, cplx):
    """op(A) 40 x k, op(B) k x 36 at phi = 4 or 8; k12: fewer elements than a list holds;
    zeros: zero rows, a zero column, a run of zero elements in every row and rows and a column
    of small integers (truncated exactly: no remainder on that side); long: 8 x 9000 x 6, the
    lists built from segments (cuda_auto.cu top_segments), each row of op(A) with 20 elements
    of its largest magnitude spread over them (ties across segments)."""
    dt = np.complex128 if cplx else np.float64
    m, k, n, phi = {"phi4": (40, 700, 36, 4.0), "phi8": (40, 700, 36, 8.0),
                    "k12": (40, 12, 36, 8.0), "zeros": (40, 700, 36, 8.0),
                    "long": (8, 9000, 6, 4.0)}[case]
    a = _papers_matrix(m, k, phi, 3, dt)
    b = _papers_matrix(k, n, phi, 4, dt)
    rng = np.random.default_rng(5)
    if case == "zeros":
        a[[5, 17], :] = 0.0
        b[:, 3] = 0.0
        a[:, 100:140] = 0.0
        a[20:24, :] = rng.integers(-3, 4, (4, k))
        b[:, 30] = rng.integers(-3, 4, k)
    if case == "long":
        for row in a:
            top = np.max(np.abs(row.real))
            row[rng.choice(k, 20, replace=False)] = top * rng.choice([-1, 1], 20)
    return a, b


def _op_stored(x, t):
    """The stored operand whose op(.) for trans t is x (Fortran order)."""
    return np.asfortranarray(x if t == 0 else (x.T if t == 1 else x.conj().T))


@pytest.mark.parametrize("cplx", [False, True], ids=["d", "z"])
@pytest.mark.parametrize("case", ["phi4", "phi8", "k12", "zeros", "long"])
def test_auto_precision_refined_bound_like_cpu(case, cplx):
    """Where few entries exceed the target the bound is refined from each row's and column's
    16 largest elements: the GPU's probe takes the CPU's count and bound, and the call its
    bits, for every transpose pair (both layouts of each side; the CPU packs op(A) and op(B),
    so its call is made once), both scalings and over several devices."""
    a0, b0 = _refine_inputs(case, cplx)
    fn = ozblas.zgemm if cplx else ozblas.dgemm
    kw = dict(method="ozaki2", moduli="auto", return_info=True)
    cpu = {}
    for accurate, scaling in enumerate(("fast", "accurate")):
        cpu[scaling] = cp, rp = fn(1.0, a0, b0, executor="cpu", scaling=scaling, **kw)
        assert rp["fallback"] is None, rp
        assert _budget(rp) < _budget_of_real(_UNREFINED[case, cplx][accurate]), rp
    ts = range(3) if cplx else range(2)  # 'C' is 'T' for real operands
    pairs = [(ta, tb) for ta in ts for tb in ts] if case in ("phi4", "phi8") else [(0, 0), (1, 1)]
    for ta, tb in pairs:
        a, b = _op_stored(a0, ta), _op_stored(b0, tb)
        for scaling in ("fast", "accurate") if (ta, tb) == (0, 0) else ("fast",):
            what = f"{case} trans {ta}{tb} {scaling}"
            cc, rc = fn(1.0, a, b, trans_a=ta, trans_b=tb, executor="cuda", scaling=scaling, **kw)
            cp, rp = cpu[scaling]
            assert rc["bound"] == rp["bound"], (what, rc["bound"], rp["bound"])
            assert_pair(cc, rc, cp, rp, a0, b0, what)
    many, rm = fn(1.0, a0, b0, executor="cuda:all", scaling="fast", **kw)
    cp, rp = cpu["fast"]
    assert (rm["moduli"], rm["bound"]) == (rp["moduli"], rp["bound"]), (rm, rp)
    assert_same_bits(many, cp, f"{case} cuda:all")


@pytest.mark.parametrize("cplx", [False, True], ids=["d", "z"])
def test_wide_rows_take_more_than_20_moduli_like_cpu(cplx):
    """Issue 14: the inner dimension scaled by 2^+-30 (rows spanning 60 binades) takes more
    moduli than GEMMul8's 20 (residues beyond 2^96, up to 12 CRT limbs), and a lost element
    no longer disqualifies a count: the GPU takes the CPU's count, bound and bits."""
    dt = np.complex128 if cplx else np.float64
    a, b = _mats(9, 24, 7, 0.5, dt, seed=5)
    s = np.ldexp(1.0, np.random.default_rng(1).choice([-30, 30], 24))
    a, b = a * s[None, :], b / s[:, None]
    cc, rc, cp, rp = both_matmul(a, b, method="ozaki2", moduli="auto", scaling="accurate")
    assert rp["fallback"] is None and rp["moduli"] > 20, rp
    assert rc["bound"] == rp["bound"]
    assert_same_report(rc, rp, "wide auto")
    assert_same_bits(cc, cp, "wide auto")
    cc, rc, cp, rp = both_matmul(a, b, method="ozaki2", moduli=49, scaling="fast")
    assert_pair(cc, rc, cp, rp, a, b, "49 moduli")
    a, b = _mats(9, 24, 7, 0.5, dt, seed=6)
    a[:, 0] *= 2.0**200  # the other elements of each row are lost entirely by the count
    cc, rc, cp, rp = both_matmul(a, b, method="ozaki2", moduli="auto", scaling="accurate")
    assert rp["fallback"] is None and rc["bound"] == rp["bound"], rp
    assert_same_bits(cc, cp, "lost elements")


# ---- the INT8 products in column chunks (gemm_i8; 8192 columns on sm_90) ----------------------


def _i8_columns(cols):
    """Sets the test hook's column chunk; returns the INT8 product calls issued before."""
    lib = ctypes.CDLL(ozblas._native.library_path())
    lib.oz_cuda_test_i8_columns.argtypes = [ctypes.c_int64]
    lib.oz_cuda_test_i8_columns.restype = ctypes.c_int64
    return lib.oz_cuda_test_i8_columns(cols)


@pytest.mark.parametrize("method,kw", [("ozaki2", {"moduli": 13, "scaling": "accurate"}),
                                       ("ozaki2", {}), ("ozaki1", {"slices": 5})],
                         ids=["ozaki2-accurate", "ozaki2-auto", "ozaki1"])
@pytest.mark.parametrize("cplx", [False, True], ids=["d", "z"])
def test_int8_products_in_column_chunks(cplx, method, kw):
    """Products issued in chunks of 12 or 8 columns (a ragged last one: n pads to 52) give
    the one-call bits, in more calls."""
    dt = np.complex128 if cplx else np.float64
    a, b = _mats(37, 45, 50, 1.0, dt, 40)
    _i8_columns(0)
    one, r1 = ozblas.matmul(a, b, method=method, executor="cuda", return_info=True, **kw)
    calls = {0: _i8_columns(12)}
    try:
        for cols in (12, 8):
            got, rg = ozblas.matmul(a, b, method=method, executor="cuda", return_info=True,
                                    **kw)
            calls[cols] = _i8_columns(8 if cols == 12 else 0)
            assert rg["fallback"] is None
            assert rg["moduli"] == r1["moduli"] and rg["slices"] == r1["slices"]
            assert_same_bits(got, one, f"{cols} columns")
    finally:
        _i8_columns(0)
    assert calls[8] > calls[12] > calls[0] > 0, calls
    cp = ozblas.matmul(a, b, method=method, executor="cpu", **kw)
    assert_same_bits(one, cp, "cpu")


def _hook(name, argtype, restype=None):
    f = getattr(ctypes.CDLL(ozblas._native.library_path()), name)
    f.argtypes = [argtype]
    f.restype = restype
    return f


@pytest.mark.parametrize("cplx", [False, True], ids=["d", "z"])
def test_int8_products_through_cached_cublaslt_plans(cplx):
    """cuBLASLt's plan (descriptor, layouts, the heuristic's algorithm) for a shape is built
    once per thread and device and reused by the next call of that shape; cublasGemmEx
    (the hook turning the plans off) gives the same bits, the CPU executor's."""
    dt = np.complex128 if cplx else np.float64
    a, b = _mats(41, 29, 53, 1.0, dt, 44)
    lt = _hook("oz_cuda_test_i8_lt", ctypes.c_int, ctypes.c_int64)
    kw = dict(method="ozaki2", moduli=11, scaling="accurate", executor="cuda")
    lt(1)
    try:
        first = ozblas.matmul(a, b, **kw)
        built = lt(1)
        again = ozblas.matmul(a, b, **kw)
        assert built > 0 and lt(0) == 0, built  # the second call built none
        gemmex = ozblas.matmul(a, b, **kw)
        assert lt(1) == 0
    finally:
        lt(1)
    assert_same_bits(again, first, "cached plan")
    assert_same_bits(gemmex, first, "cublasGemmEx")
    assert_same_bits(first, ozblas.matmul(a, b, **dict(kw, executor="cpu")), "cpu")


@pytest.mark.parametrize("cplx,moduli", [(False, 12), (True, 12), (True, 20)],
                         ids=["d", "z", "z-karatsuba"])
def test_every_modulus_in_one_product(cplx, moduli):
    """A product that fits whole (n <= 4096): every modulus' INT8 products one batched call
    and one reduction launch (plus accurate scaling's bound product), against one per
    modulus with the hook off: the same bits. Complex: 12 moduli take the complex set's 13,
    two products each; 20 Karatsuba's three."""
    dt = np.complex128 if cplx else np.float64
    a, b = _mats(30, 44, 26, 1.0, dt, 46)
    few = _hook("oz_cuda_test_few_launches", ctypes.c_int)
    kw = dict(method="ozaki2", moduli=moduli, scaling="accurate", executor="cuda")
    _i8_columns(0)
    one = ozblas.matmul(a, b, **kw)
    calls_one = _i8_columns(0)
    few(0)
    try:
        per = ozblas.matmul(a, b, **kw)
        calls_per = _i8_columns(0)
    finally:
        few(1)
    products = {(False, 12): 12, (True, 12): 13 * 2, (True, 20): 20 * 3}[cplx, moduli]
    assert (calls_one, calls_per) == (2, products + 1)
    assert_same_bits(one, per, "one product per modulus")
    assert_same_bits(one, ozblas.matmul(a, b, **dict(kw, executor="cpu")), "cpu")


@pytest.mark.parametrize("cplx", [False, True], ids=["d", "z"])
@pytest.mark.parametrize("method", ["ozaki2", "ozaki1"])
def test_split_calls_like_cpu(cplx, method):
    """Issue 14: a call no count meets, split by exponent band above the executor
    (core/driver_split.c; Ozaki II parts handed back unrounded as hi, lo): the GPU gives
    the CPU's parts, counts, bound and bits (its accurate scaling's bound product counted
    once more per part, as above)."""
    dt = np.complex128 if cplx else np.float64
    a, b = _mats(7, 20, 5, 0.5, dt, seed=8)
    s = np.ldexp(1.0, np.random.default_rng(2).integers(-300, 301, 20))
    a, b = a * s[None, :], b / s[:, None]
    kw = {"moduli": "auto"} if method == "ozaki2" else {"slices": "auto"}
    cc, rc, cp, rp = both_matmul(a, b, method=method, **kw)
    assert rp["fallback"] is None and rp["split_parts"] >= 2, rp
    assert rc["split_parts"] == rp["split_parts"] and rc["bound"] == rp["bound"]
    keys = ("method", "moduli", "slices", "fallback", "bits_a", "bits_b")
    _compare.assert_same_report(rc, rp, keys, f"split {method}")
    assert_same_bits(cc, cp, f"split {method}")


@pytest.mark.parametrize("method", ["ozaki2", "ozaki1"])
def test_split_complex_parts_apart_like_cpu(method):
    """Issue 24: complex operands whose real and imaginary parts lie 1000 binades apart split
    with the parts banded apart (they fell back to native): the GPU gives the CPU's parts,
    counts, bound and bits."""
    rng = np.random.default_rng(3)
    a, b = _mats(7, 20, 5, 0.5, np.complex128, seed=9)
    a.imag = np.ldexp(a.imag, -1000)
    b.real = np.ldexp(b.real, -1000)
    a[0, 10:] = 0
    b[:10, 0] = 0
    a[rng.random(a.shape) < 0.2] = 0
    kw = {"moduli": "auto"} if method == "ozaki2" else {"slices": "auto"}
    cc, rc, cp, rp = both_matmul(a, b, method=method, **kw)
    assert rp["fallback"] is None and rp["split_parts"] >= 2, rp
    assert rc["split_parts"] == rp["split_parts"] and rc["bound"] == rp["bound"]
    keys = ("method", "moduli", "slices", "fallback", "bits_a", "bits_b")
    _compare.assert_same_report(rc, rp, keys, f"split {method}")
    assert_same_bits(cc, cp, f"split {method}")


# ---- Hermitian products (op(B) = op(A)^H from one array: ozaki2.h oz2_herm_bits) --------------


def _herm(a, ta, executor, **kw):
    """op(A) op(A)^H through ozblas.zgemm with a passed as both operands."""
    n = a.shape[0] if ta == 0 else a.shape[1]
    c = np.zeros((n, n), dtype=np.complex128, order="F")
    return ozblas.zgemm(1.0, a, a, 0.0, c, ta, 2 - ta, executor=executor, **kw)


@pytest.mark.parametrize("scaling", ["fast", "accurate"])
@pytest.mark.parametrize("moduli", [13, 20, "auto"])
@pytest.mark.parametrize("ta", [0, 2])
def test_hermitian_product_like_cpu(ta, moduli, scaling):
    """Both sides' bits equal, one product per modulus on the complex set (P- = P+^T: a
    transpose of P+ instead of the second product), Karatsuba's three beyond it: the CPU
    executor's bits and report."""
    a = np.asfortranarray(make_matrix(*((37, 53) if ta == 0 else (53, 37)), 1.0, seed=5,
                                      dtype=np.complex128))
    kw = dict(method="ozaki2", moduli=moduli, scaling=scaling, return_info=True)
    cc, rc = _herm(a, ta, "cuda", **kw)
    cp, rp = _herm(a, ta, "cpu", **kw)
    assert rp["fallback"] is None
    assert rp["complex_products"] == (3 if moduli == 20 else 1)
    assert_same_report(rc, rp, f"ta={ta}")
    assert_same_bits(cc, cp, f"ta={ta}")
    assert np.all(np.diag(cc).imag == 0)


@pytest.mark.parametrize("scaling", ["fast", "accurate"])
@pytest.mark.parametrize("moduli", [13, "auto"])
def test_her2k_form_like_cpu(moduli, scaling):
    """HER2K's form (op(B)^H = op(A) J, core/driver_ozaki2.c): the CUDA executor keeps both
    sides' bits equal and takes its two products, the CPU executor one (P- = P+^T): the
    same bits."""
    n, k = 29, 24
    u = np.asfortranarray(make_matrix(n, 3 * k, 1.0, seed=8, dtype=np.complex128))
    u[:, 2 * k:] = u[:, :k]
    out = {}
    for ex in ("cuda", "cpu"):
        c = np.zeros((n, n), dtype=np.complex128, order="F")
        out[ex] = ozblas.zgemm(1.0, u[:, :2 * k], u[:, k:], 0.0, c, 0, 2, executor=ex,
                               method="ozaki2", moduli=moduli, scaling=scaling,
                               return_info=True)
    assert out["cpu"][1]["fallback"] is None and out["cpu"][1]["complex_products"] == 1
    assert out["cuda"][1]["complex_products"] == 2
    assert_same_bits(out["cuda"][0], out["cpu"][0], "her2k form")
    assert np.all(np.diag(out["cuda"][0]).imag == 0)


@pytest.mark.parametrize("alike", [True, False])
def test_her2k_form_in_device_memory_like_cpu(alike):
    """HER2K's form with U in device memory (the LAPACK layer's resident runs): the executor's
    same_cols finds the copied columns there, so the CUDA result keeps the CPU executor's
    bits for U on the host; with one entry of the copy changed the form is not taken on
    either side, and the two still agree."""
    from ozblas._native import ffi, lib
    from ozblas.api import _context, _options

    n, k = 29, 24
    u = np.asfortranarray(make_matrix(n, 3 * k, 1.0, seed=8, dtype=np.complex128))
    u[:, 2 * k:] = u[:, :k]
    if not alike:
        u[n - 1, 3 * k - 1] += 0.5
    want = np.zeros((n, n), dtype=np.complex128, order="F")
    want = ozblas.zgemm(1.0, u[:, :2 * k], u[:, k:], 0.0, want, 0, 2, executor="cpu",
                        method="ozaki2", moduli=13)
    so = ctypes.CDLL(ozblas._native.library_path())
    so.oz_cuda_test_malloc.restype = ctypes.c_void_p
    so.oz_cuda_test_malloc.argtypes = [ctypes.c_size_t]
    so.oz_cuda_test_free.argtypes = [ctypes.c_void_p]
    so.oz_cuda_test_memcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    got = np.empty((n, n), dtype=np.complex128, order="F")
    dU, dC = so.oz_cuda_test_malloc(u.nbytes), so.oz_cuda_test_malloc(got.nbytes)
    try:
        assert dU and dC and so.oz_cuda_test_memcpy(dU, u.ctypes.data, u.nbytes) == 0
        U = ffi.cast("double *", dU)
        one, zero = ffi.new("double[2]", [1.0, 0.0]), ffi.new("double[2]", [0.0, 0.0])
        st = lib.ozblas_zgemm(_context(), b"N", b"C", n, n, 2 * k, one, U, n, U + 2 * n * k, n,
                              zero, ffi.cast("double *", dC), n,
                              _options("ozaki2", 13, None, "cuda", None), ffi.NULL)
        assert st == 0 and so.oz_cuda_test_memcpy(got.ctypes.data, dC, got.nbytes) == 0
    finally:
        so.oz_cuda_test_free(dU)
        so.oz_cuda_test_free(dC)
    assert_same_bits(got, want, f"her2k form in device memory, copy alike {alike}")
    if alike:
        assert np.all(np.diag(got).imag == 0)


def test_hermitian_product_in_one_launch_or_one_per_modulus():
    """A Hermitian product that fits whole: every modulus' P+ one batched call (then P- by
    transposes), or one product per modulus with the hook off; the same bits as the CPU."""
    a = np.asfortranarray(make_matrix(30, 44, 1.0, seed=46, dtype=np.complex128))
    few = _hook("oz_cuda_test_few_launches", ctypes.c_int)
    kw = dict(method="ozaki2", moduli=12, scaling="accurate")
    _i8_columns(0)
    one = _herm(a, 0, "cuda", **kw)
    calls_one = _i8_columns(0)
    few(0)
    try:
        per = _herm(a, 0, "cuda", **kw)
        calls_per = _i8_columns(0)
    finally:
        few(1)
    assert (calls_one, calls_per) == (2, 13 + 1)  # the complex set's 13 moduli, one each
    assert_same_bits(one, per, "one product per modulus")
    assert_same_bits(one, _herm(a, 0, "cpu", **kw), "cpu")
