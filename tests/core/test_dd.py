"""Double-double products (ozblas/dd.py, native/src/core/exact_gemm.c, numerics/exact.h):
against an exact rational oracle, the NumPy reference (ozblas/reference/exact.py) bit for bit,
transposes and leading dimensions through the C API, threads, special values, shapes."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ozblas
from ozblas._native import ffi, lib
from ozblas.reference.exact import exact
from ozblas.testing import make_matrix, standard_normal

BOUND = Fraction(1, 2**106)
ETA = Fraction(1, 2**1075)


def bits(x):
    return np.ascontiguousarray(x).view(np.uint64)


def same(x, y):
    return x.shape == y.shape and np.array_equal(bits(x), bits(y))


def oracle(a, b):
    """Exact a @ b as Fractions (complex: pairs of Fractions)."""
    m, k = a.shape
    n = b.shape[1]
    if np.iscomplexobj(a) or np.iscomplexobj(b):
        a, b = a.astype(np.complex128), b.astype(np.complex128)
        out = np.empty((m, n), dtype=object)
        for i in range(m):
            for j in range(n):
                re = sum(Fraction(a[i, l].real) * Fraction(b[l, j].real)
                         - Fraction(a[i, l].imag) * Fraction(b[l, j].imag) for l in range(k))
                im = sum(Fraction(a[i, l].real) * Fraction(b[l, j].imag)
                         + Fraction(a[i, l].imag) * Fraction(b[l, j].real) for l in range(k))
                out[i, j] = (Fraction(re), Fraction(im))
        return out
    out = np.empty((m, n), dtype=object)
    for i in range(m):
        for j in range(n):
            out[i, j] = (sum((Fraction(a[i, l]) * Fraction(b[l, j]) for l in range(k)),
                             Fraction(0)),)
    return out


def rn(p: Fraction) -> float:
    try:
        return float(p)  # correctly rounded
    except OverflowError:
        return math.inf if p > 0 else -math.inf


def check_dd(hi, lo, P):
    """hi = RN(p) and |hi + lo - p| <= 2^-106 |p| + 2^-1075 for every entry (and part);
    beyond the double range hi = +-inf and lo = 0."""
    for idx in np.ndindex(P.shape):
        for q, p in enumerate(P[idx]):
            h = hi[idx].imag if q else hi[idx].real
            l_ = lo[idx].imag if q else lo[idx].real
            assert h == rn(p), (idx, q)
            if math.isinf(h):
                assert l_ == 0.0
                continue
            assert abs(Fraction(h) + Fraction(l_) - p) <= BOUND * abs(p) + ETA, (idx, q)


def dd_c(a, b, transa="N", transb="N", pad=3, threads=0):
    """The C API on op(a) op(b) with the stored operands transposed as asked and leading
    dimensions padded."""
    cx = np.iscomplexobj(a) or np.iscomplexobj(b)
    dt = np.complex128 if cx else np.float64
    a, b = a.astype(dt), b.astype(dt)
    m, k = a.shape
    n = b.shape[1]

    def store(x, t):
        s = x if t == "N" else (x.conj().T if t == "C" else x.T)
        buf = np.zeros((s.shape[0] + pad, max(s.shape[1], 1)), dtype=dt, order="F")
        buf[: s.shape[0], : s.shape[1]] = s
        return buf

    A, B = store(a, transa), store(b, transb)
    hi = np.full((m + pad, n), np.nan, dtype=dt, order="F")
    lo = np.full((m + 1, n), np.nan, dtype=dt, order="F")
    opt = ffi.new("ozblas_options *")
    lib.ozblas_options_init(opt)
    opt.threads = threads
    rep = ffi.new("ozblas_report *")
    f = lib.ozblas_zgemm_dd if cx else lib.ozblas_dgemm_dd
    p = lambda x: ffi.cast("double *", x.ctypes.data)  # noqa: E731
    st_ = f(ffi.NULL, transa.encode(), transb.encode(), m, n, k, p(A), A.shape[0], p(B),
            B.shape[0], p(hi), hi.shape[0], p(lo), lo.shape[0], opt, rep)
    assert st_ == 0
    return hi[:m], lo[:m], rep


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("phi", [0, 1, 4, 8])
def test_against_rational_oracle(dtype, phi):
    a = make_matrix(5, 11, phi, seed=1, dtype=dtype)
    b = make_matrix(11, 4, phi, seed=2, dtype=dtype)
    hi, lo = ozblas.matmul_dd(a, b)
    check_dd(hi, lo, oracle(a, b))


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("ta,tb", [("N", "N"), ("T", "N"), ("N", "T"), ("C", "T"), ("T", "C"),
                                   ("C", "C")])
def test_transposes_and_leading_dimensions(dtype, ta, tb):
    a = make_matrix(4, 7, 2, seed=3, dtype=dtype)
    b = make_matrix(7, 6, 2, seed=4, dtype=dtype)
    hi, lo, _ = dd_c(a, b, ta, tb)
    check_dd(hi, lo, oracle(a, b))  # dd_c stores each operand so that op(stored) is it


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_equals_reference_and_counts(dtype):
    a = make_matrix(6, 9, 4, seed=5, dtype=dtype)
    b = make_matrix(9, 5, 4, seed=6, dtype=dtype)
    a[1, 2] = 1e300
    a[1, 3] = 5e-324  # row 1 spans more than the largest count holds: exact dot products
    (rh, rl), rinfo = exact(a, b, dd=True)
    hi, lo, info = ozblas.matmul_dd(a, b, return_info=True)
    assert same(hi, rh) and same(lo, rl)
    assert info["moduli"] == rinfo["moduli"]
    assert info["complex_products"] == rinfo["complex_products"]
    assert info["direct_entries"] == rinfo["direct_entries"] == 5
    check_dd(hi, lo, oracle(a, b))
    # issue 24: the report says what the pair promises (it said accuracy "dgemm", no bound)
    assert info["accuracy"] == "double_double" and info["bound"] == 2.0**-106
    for x, y in ((a[:0], b), (a[None], b)):  # a quick return and a stack say it too
        info = ozblas.matmul_dd(x, y, return_info=True)[2]
        assert info["accuracy"] == "double_double" and info["bound"] == 2.0**-106


def test_threads_do_not_change_bits():
    a = make_matrix(40, 300, 2, seed=7)
    b = make_matrix(300, 30, 2, seed=8)
    one = ozblas.matmul_dd(a, b, threads=1)
    two = ozblas.matmul_dd(a, b, threads=2)
    assert same(one[0], two[0]) and same(one[1], two[1])


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_long_inner_dimension_is_blocked(dtype):
    a = make_matrix(2, 2500, 1, seed=9, dtype=dtype)
    b = make_matrix(2500, 3, 1, seed=10, dtype=dtype)
    hi, lo, info = ozblas.matmul_dd(a, b, return_info=True)
    # two k-blocks of at most 2048; complex: two products per modulus (the complex family)
    per = 2 if dtype == np.complex128 else 1
    assert info["complex_products"] == (2 if per == 2 else None)
    assert info["int_gemms"] == 2 * per * info["moduli"]
    check_dd(hi, lo, oracle(a, b))
    (rh, rl), rinfo = exact(a, b, dd=True)
    assert same(hi, rh) and same(lo, rl) and info["moduli"] == rinfo["moduli"]


def test_double_double_operands():
    a = make_matrix(3, 5, 1, seed=11)
    b = make_matrix(5, 4, 1, seed=12)
    al, bl = a * 2.0**-60, b * 2.0**-57
    hi, lo = ozblas.matmul_dd((a, al), (b, bl))
    P = oracle(np.concatenate([a, a, al, al], 1), np.concatenate([b, bl, b, bl], 0))
    check_dd(hi, lo, P)
    hi1, lo1 = ozblas.matmul_dd((a, al), b)
    check_dd(hi1, lo1, oracle(np.concatenate([a, al], 1), np.concatenate([b, b], 0)))


def test_stacked_and_ambiguous_inputs():
    a = make_matrix(2 * 3, 4, 1, seed=13).reshape(2, 3, 4)  # a stack of two products
    b = make_matrix(4, 5, 1, seed=14)
    hi, lo = ozblas.matmul_dd(a, b)
    assert hi.shape == (2, 3, 5)
    for i in range(2):
        h, l_ = ozblas.matmul_dd(a[i], b)
        assert same(hi[i], h) and same(lo[i], l_)
    with pytest.raises(TypeError, match="ambiguous"):
        ozblas.matmul_dd([a[0], a[1]], b)
    with pytest.raises(TypeError, match="tuple of 3"):
        ozblas.matmul_dd((a[0], a[0], a[0]), b)
    with pytest.raises(ValueError, match="hi has shape"):
        ozblas.matmul_dd((a[0], a[0][:, :2]), b)
    with pytest.raises(TypeError, match="float32"):
        ozblas.matmul_dd(a[0].astype(np.float32), b)
    with pytest.raises(ValueError, match="inner"):
        ozblas.matmul_dd(a[0], b[:3])


def test_empty_shapes():
    for m, k, n in [(0, 3, 2), (2, 3, 0), (2, 0, 3)]:
        hi, lo = ozblas.matmul_dd(np.ones((m, k)), np.ones((k, n)))
        assert hi.shape == lo.shape == (m, n)
        assert not hi.any() and not lo.any()


def test_special_values_follow_ieee():
    a = np.array([[1.0, np.inf], [2.0, 3.0], [np.nan, 1.0], [np.inf, 1.0]])
    b = np.array([[1.0, 0.0], [1.0, -1.0]])
    hi, lo = ozblas.matmul_dd(a, b)
    with np.errstate(invalid="ignore"):
        native = a @ b
    np.testing.assert_array_equal(hi, native)  # inf, -inf; 5, -3; nan, nan; inf, nan (inf 0)
    assert not lo.any()
    big = np.array([[1e308, 1e308]])
    hi, lo = ozblas.matmul_dd(big, np.array([[4.0], [4.0]]))
    assert hi[0, 0] == np.inf and lo[0, 0] == 0.0
    hi, lo = ozblas.matmul_dd(big, np.array([[4.0], [-4.0]]))  # overflow cancels exactly
    assert hi[0, 0] == 0.0 and lo[0, 0] == 0.0


def test_subnormal_results():
    a = np.array([[2.0**-1000, 3 * 2.0**-1070]])
    b = np.array([[2.0**-60 + 2.0**-112], [2.0**-3]])
    hi, lo = ozblas.matmul_dd(a, b)
    check_dd(hi, lo, oracle(a, b))


def test_cuda_executor_without_cuda_and_bad_arguments():
    a = np.ones((2, 2))
    opt = ffi.new("ozblas_options *")
    lib.ozblas_options_init(opt)
    opt.executor = 2
    hi, lo = np.empty((2, 2), order="F"), np.empty((2, 2), order="F")
    p = lambda x: ffi.cast("double *", x.ctypes.data)  # noqa: E731
    st_ = lib.ozblas_dgemm_dd(ffi.NULL, b"N", b"N", 2, 2, 2, p(a), 2, p(a), 2, p(hi), 2, p(lo), 2,
                              opt, ffi.NULL)
    if not ozblas.info()["executors"]["cuda"]["available"]:
        assert ffi.string(lib.ozblas_status_name(st_)) == b"OZBLAS_ERR_EXECUTOR_UNAVAILABLE"
    st_ = lib.ozblas_dgemm_dd(ffi.NULL, b"X", b"N", 2, 2, 2, p(a), 2, p(a), 2, p(hi), 2, p(lo), 2,
                              ffi.NULL, ffi.NULL)
    assert ffi.string(lib.ozblas_status_name(st_)) == b"OZBLAS_ERR_INVALID_ARGUMENT"
    opt.executor = 7
    st_ = lib.ozblas_dgemm_dd(ffi.NULL, b"N", b"N", 2, 2, 2, p(a), 2, p(a), 2, p(hi), 2, p(lo), 2,
                              opt, ffi.NULL)
    assert ffi.string(lib.ozblas_status_name(st_)) == b"OZBLAS_ERR_INVALID_ARGUMENT"
    with pytest.raises(ValueError, match="executor"):
        ozblas.matmul_dd(a, a, executor="gpu")


class _FakeDevice:
    """Looks like a device array to the API; without CuPy it is refused before any use."""
    __cuda_array_interface__ = {}


def test_device_arrays_need_cupy():
    try:
        import cupy  # noqa: F401
        pytest.skip("CuPy present: tests/cuda/test_device_arrays.py covers device arrays")
    except ImportError:
        pass
    with pytest.raises(TypeError, match="CuPy"):
        ozblas.matmul_dd(_FakeDevice(), np.ones((2, 2)))


@st.composite
def operands(draw):
    m, k, n = (draw(st.integers(1, 5)) for _ in range(3))
    cx = draw(st.booleans())
    spread = draw(st.sampled_from([0, 10, 60, 400, 1000]))

    def mat(r, c):
        seed = draw(st.integers(0, 2**32 - 1))
        rng = np.random.default_rng(seed)
        x = standard_normal(rng, (r, c)) * np.exp2(rng.integers(-spread, spread + 1, (r, c)))
        x[rng.random((r, c)) < 0.2] = 0.0
        if cx:
            y = standard_normal(rng, (r, c)) * np.exp2(rng.integers(-spread, spread + 1, (r, c)))
            return x + 1j * y
        return x

    return mat(m, k), mat(k, n)


@settings(max_examples=40, deadline=None)
@given(operands())
def test_property_exact_then_rounded(ab):
    a, b = ab
    hi, lo = ozblas.matmul_dd(a, b)
    check_dd(hi, lo, oracle(a, b))
    (rh, rl), _ = exact(a, b, dd=True)
    assert same(hi, rh) and same(lo, rl)
