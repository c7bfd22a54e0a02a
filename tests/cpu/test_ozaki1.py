"""Ozaki scheme I (variants bitmask, rn, ef, hybrid) on the CPU executor: accuracy against
the exact oracle, bit equality with the NumPy reference and across thread counts, the report,
special values and BLAS semantics."""

import numpy as np
import pytest

import ozblas
from ozblas import reference
from ozblas.reference.ozaki1 import group_addends, slice_width
from ozblas.testing import err_ab, exact_matmul, make_matrix

from _compare import native_error

U = 2.0**-53
# The floor where native DGEMM is (nearly) correctly rounded (tiny k; k = 1: one rounded
# multiplication, err_ab 0): Ozaki I's result is then faithful, not correctly rounded. Its
# FP64 sum ends with the largest pair's term T; the partial sum S before it holds pairs at
# least 2^-beta smaller (beta = 7 here), so its rounding errors add up to well under half an
# ulp of C = S + T, and fl(S~ + T) is within one ulp of C. Against the oracle's fl(C), one
# ulp is at most 2u |C| <= 2u (|A||B|)_ij: a floor of 2U, not the u (1 + 2^-beta) of an
# unrounded C (which the oracle's own rounding hides).
FLOOR = 2 * U
# Down there, adding slices changes which terms round: when rows span many binades several
# terms are as large as |A||B|, and err_ab moves within about 2U (e.g. 1.14U -> 1.47U).
ACC_FLOOR = 2 * U
VARIANTS = ("bitmask", "rn", "ef", "hybrid")
# Slices for err_ab <= native DGEMM at phi = 0.5 (benchmarks/accuracy.py, k = 1024 and 16384).
SLICES_PHI_05 = {"bitmask": 9, "rn": 9, "ef": 9, "hybrid": 9}


def bits(x):
    return np.ascontiguousarray(x).view(np.uint64)


def stored(x, t):
    return x if t == 0 else (x.T.copy() if t == 1 else x.conj().T.copy())


def emu(variant, slices, **kw):
    return dict(method="ozaki1", variant=variant, slices=slices, executor="cpu", **kw)


def native_level(native):
    """The yardstick: native DGEMM's err_ab, or the FP64 accumulation floor when native is
    (nearly) correctly rounded (tiny k): a sum of FP64 terms cannot promise correct rounding."""
    return max(native, FLOOR)


# ---- accuracy ------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("mkn", [(3, 1, 17), (17, 257, 3), (1, 257, 257), (257, 17, 1)])
@pytest.mark.parametrize("phi", [0.5, 2.0])
def test_error_non_increasing_and_native_level(variant, cplx, mkn, phi):
    m, k, n = mkn
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(m, k, phi, seed=k + m + int(10 * phi), dtype=dt)
    b = make_matrix(k, n, phi, seed=n + int(10 * phi) + 1, dtype=dt)
    exact = exact_matmul(a, b)
    native = native_error(a, b, exact)
    errs, started = {}, False
    for s in range(2, 21):
        c, info = ozblas.matmul(a, b, return_info=True, **emu(variant, s))
        if info["fallback"] is not None:
            # only low slice counts lose elements; the slices are nested, so never again later
            assert not started and info["fallback"] == "exponent range beyond the scaling", (s, info)
            continue
        started = True
        assert info["method"] == "ozaki1" and info["slices"] == s and info["variant"] == variant
        errs[s] = err_ab(c, exact, a, b)
    assert 12 in errs, errs  # at phi <= 2 nothing is lost with 12 slices
    ss = sorted(errs)
    for lo, hi in zip(ss, ss[1:]):
        assert errs[hi] <= max(errs[lo], ACC_FLOOR), errs  # non-increasing down to the FP64 floor
    if phi == 0.5:
        assert errs[SLICES_PHI_05[variant]] <= native_level(native), (errs, native)
    assert errs[20] <= native_level(native)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("ta", [0, 1, 2])
@pytest.mark.parametrize("tb", [0, 1, 2])
@pytest.mark.parametrize("cplx", [False, True])
def test_all_transposes_reach_native_level(variant, ta, tb, cplx):
    if not cplx and 2 in (ta, tb):
        pytest.skip("dgemm: trans 2 is the same as 1")
    m, k, n = 17, 257, 3
    dt = np.complex128 if cplx else np.float64
    opa = make_matrix(m, k, 0.5, seed=1, dtype=dt)
    opb = make_matrix(k, n, 0.5, seed=2, dtype=dt)
    f = ozblas.zgemm if cplx else ozblas.dgemm
    s = SLICES_PHI_05[variant]
    c = f(1.0, stored(opa, ta), stored(opb, tb), 0.0, None, ta, tb, **emu(variant, s))
    exact = exact_matmul(opa, opb)
    assert err_ab(c, exact, opa, opb) <= native_level(native_error(opa, opb, exact))
    ref, fallback = reference.ozaki1(opa, opb, slices=s, variant=variant)
    assert fallback is None and np.array_equal(bits(ref), bits(c))


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("phi", [0.5, 2.0])
def test_rn_ef_hybrid_at_least_as_accurate_as_bitmask(cplx, phi):
    """The papers' finding, above the final-rounding floor. EF has bitmask's slices and only
    rounds less often, so it matches bitmask up to the FP64 floor. RN/HYBRID slices have the
    same worst case as bitmask's (half a unit of a grid twice as coarse) but a centred error,
    so they are about twice as accurate on average, not at every single slice count (no bound
    orders the two at one count: one count's ratio reached 1.9 on these inputs)."""
    dt = np.complex128 if cplx else np.float64
    ratios = {"rn": [], "hybrid": []}
    for seed in (3, 5, 7, 9):  # an average over 17-20 counts: one pair of inputs is too few
        a = make_matrix(32, 1024, phi, seed=seed, dtype=dt)
        b = make_matrix(1024, 32, phi, seed=seed + 1, dtype=dt)
        exact = exact_matmul(a, b)
        for s in range(4, 12):
            e = {}
            for v in VARIANTS:
                c, info = ozblas.matmul(a, b, return_info=True, **emu(v, s))
                e[v] = None if info["fallback"] else err_ab(c, exact, a, b)
            if e["bitmask"] is None:
                assert e["ef"] is None  # the same slices
                continue
            assert e["ef"] <= e["bitmask"] + ACC_FLOOR, (s, e)
            for v in ratios:
                assert e[v] is not None, (s, e)  # no element lost where bitmask loses none
                if e["bitmask"] > 4 * U:
                    ratios[v].append(e[v] / e["bitmask"])
    for v, r in ratios.items():
        assert len(r) >= 12 and np.exp(np.mean(np.log(r))) <= 0.8, (v, r)


# ---- bit equality ----------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("shape", [(1, 1, 1), (3, 17, 257), (257, 3, 17), (17, 257, 3), (6, 1100, 5)])
@pytest.mark.parametrize("slices", [3, 8, 20])
def test_reference_equals_c_executor(variant, cplx, shape, slices):
    m, k, n = shape
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(m, k, 1.0, seed=m + k, dtype=dt)
    b = make_matrix(k, n, 1.0, seed=n, dtype=dt)
    ref, fallback = reference.ozaki1(a, b, slices=slices, variant=variant)
    c, info = ozblas.matmul(a, b, return_info=True, **emu(variant, slices))
    assert fallback == info["fallback"]
    if fallback is None:
        assert np.array_equal(bits(ref), bits(c))


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("cplx", [False, True])
def test_reference_equals_c_executor_tiles_and_alpha_beta(variant, cplx):
    """m > 256 and 20 slices: several tiles of C; complex alpha and beta with the old C."""
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(300, 40, 2.0, seed=1, dtype=dt)
    b = make_matrix(8, 40, 2.0, seed=2, dtype=dt)  # used transposed
    c0 = make_matrix(300, 8, 2.0, seed=3, dtype=dt)
    alpha, beta = (0.3 - 1.1j, 2.5 + 0.5j) if cplx else (0.3, -2.5)
    f = ozblas.zgemm if cplx else ozblas.dgemm
    trans_b = 2 if cplx else 1
    opb = b.conj().T if cplx else b.T
    c = f(alpha, a, b, beta, c0, 0, trans_b, **emu(variant, 20))
    ref, fallback = reference.ozaki1(a, opb, slices=20, variant=variant, alpha=alpha, beta=beta, c=c0)
    assert fallback is None
    assert np.array_equal(bits(ref), bits(c))


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("cplx", [False, True])
def test_groups_larger_than_r_and_narrow_slices(variant, cplx):
    """K = 9000 or 18000 (K = k, or 2k for complex): r = 8 or 4 < the largest groups, so
    EF/HYBRID sum a group in several INT32 chunks. K = 140000 > 2^17: beta = 6, r = 2."""
    for k, s in ((9000, 20), (70000 if cplx else 140000, 12)):
        K = 2 * k if cplx else k
        dt = np.complex128 if cplx else np.float64
        a = make_matrix(2, k, 1.0, seed=5, dtype=dt)
        b = make_matrix(k, 3, 1.0, seed=6, dtype=dt)
        c, info = ozblas.matmul(a, b, return_info=True, **emu(variant, s))
        ref, fallback = reference.ozaki1(a, b, slices=s, variant=variant)
        assert fallback is None and info["fallback"] is None
        assert np.array_equal(bits(ref), bits(c))
        beta = slice_width(K)
        r = group_addends(beta, K) if variant in ("ef", "hybrid") else 1
        assert info["fp64_passes"] == sum(-(-g // r) for g in range(1, s + 1))
        assert info["int_gemms"] == s * (s + 1) // 2 * (4 if cplx else 1)
    assert slice_width(140000) == 6 and group_addends(6, 140000) == 2
    assert group_addends(7, 9000) == 8 and group_addends(7, 18000) == 4


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("cplx", [False, True])
def test_same_bits_for_one_and_two_threads(variant, cplx):
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(150, 1100, 1.0, seed=1, dtype=dt)
    b = make_matrix(1100, 90, 1.0, seed=2, dtype=dt)
    c1 = ozblas.matmul(a, b, **emu(variant, 10, threads=1))
    c2 = ozblas.matmul(a, b, **emu(variant, 10, threads=2))
    assert np.array_equal(bits(c1), bits(c2))


# ---- the report --------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("cplx", [False, True])
def test_report_counts(variant, cplx):
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(10, 30, 0.5, seed=1, dtype=dt)
    c, info = ozblas.matmul(a, a.T.copy(), return_info=True, **emu(variant, 8))
    assert info["method"] == "ozaki1" and info["variant"] == variant and info["slices"] == 8
    assert info["executor"] == "cpu" and info["fallback"] is None
    assert info["int_gemms"] == 36 * (4 if cplx else 1)
    assert info["fp64_passes"] == (8 if variant in ("ef", "hybrid") else 36)  # r >= 8 here
    assert info["bits_a"][1] >= 7 * 8 - 1 and len(info["phase_seconds"]) == 5


def test_options_from_environment(monkeypatch):
    a = make_matrix(5, 7, 0.5, seed=1)
    monkeypatch.setenv("OZBLAS_METHOD", "ozaki1")
    monkeypatch.setenv("OZBLAS_SLICES", "5")
    monkeypatch.setenv("OZBLAS_OZAKI1_VARIANT", "ef")
    c, info = ozblas.matmul(a, a.T, executor="cpu", return_info=True)
    assert (info["method"], info["slices"], info["variant"]) == ("ozaki1", 5, "ef")
    assert np.array_equal(bits(c), bits(ozblas.matmul(a, a.T, **emu("ef", 5))))


# ---- special values and BLAS semantics -----------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("cplx", [False, True])
def test_beta_zero_alpha_zero_and_empty_dimensions(variant, cplx):
    dt = np.complex128 if cplx else np.float64
    f = ozblas.zgemm if cplx else ozblas.dgemm
    kw = emu(variant, 9)
    a = make_matrix(5, 6, 0.5, dtype=dt)
    b = make_matrix(6, 4, 0.5, dtype=dt)
    c = np.full((5, 4), np.nan, dtype=dt)
    out = f(1.0, a, b, 0.0, c, **kw)
    assert np.all(np.isfinite(out))
    assert np.all(f(0.0, a, b, 0.0, c, **kw) == 0)
    c0 = make_matrix(5, 4, 0.5, seed=7, dtype=dt)
    np.testing.assert_array_equal(f(0.0, np.full_like(a, np.nan), b, 2.0, c0, **kw), 2.0 * c0)
    assert ozblas.matmul(np.zeros((0, 6), dt), b, **kw).shape == (0, 4)
    assert ozblas.matmul(a, np.zeros((6, 0), dt), **kw).shape == (5, 0)
    np.testing.assert_array_equal(f(1.0, np.zeros((5, 0), dt), np.zeros((0, 4), dt), 0.5, c0, **kw), 0.5 * c0)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("cplx", [False, True])
def test_inf_nan_inputs_match_native_pattern(variant, cplx):
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(6, 5, 0.5, seed=1, dtype=dt)
    b = make_matrix(5, 4, 0.5, seed=2, dtype=dt)
    a[1, 2] = np.inf
    a[3, 0] = -np.inf
    b[4, 1] = np.nan
    c, info = ozblas.matmul(a, b, return_info=True, **emu(variant, 9))
    assert info["fallback"] == "nonfinite input" and info["method"] == "native"
    assert info["int_gemms"] == 0 and info["fp64_passes"] == 0
    assert reference.ozaki1(a, b, slices=9, variant=variant)[1] == "nonfinite input"
    with np.errstate(invalid="ignore"):  # numpy warns about the Inf/NaN it propagates
        ref = a @ b
    np.testing.assert_array_equal(np.isnan(c), np.isnan(ref))
    np.testing.assert_array_equal(np.isinf(c), np.isinf(ref))
    fin = np.isfinite(ref)
    np.testing.assert_allclose(c[fin], ref[fin], rtol=1e-13)


@pytest.mark.parametrize("variant", VARIANTS)
def test_extreme_exponent_row_falls_back_exactly(variant):
    a = make_matrix(4, 3, 0.5, seed=1)
    a[2, :] = [1e300, 1e-300, 0.0]
    b = make_matrix(3, 3, 0.5, seed=2)
    b[0, 1] = 0.0
    c, info = ozblas.matmul(a, b, return_info=True, **emu(variant, 20))
    ref, fallback = reference.ozaki1(a, b, slices=20, variant=variant)
    assert fallback == info["fallback"]
    exact = exact_matmul(a, b)
    if variant == "rn":  # rescaled per slice: 1e-300 gets the slices after 1e300's 53 bits
        assert fallback is None and np.array_equal(bits(ref), bits(c))
        assert err_ab(c, exact, a, b) <= FLOOR and abs(c[2, 1] - exact[2, 1]) <= np.spacing(exact[2, 1])
    else:
        assert info["fallback"] == "exponent range beyond the scaling"
        np.testing.assert_array_equal(c[2, 1], exact[2, 1])  # 1e-300 * b[1,1], not lost


@pytest.mark.parametrize("variant", VARIANTS)
def test_lost_element_falls_back_only_when_slices_do_not_reach_it(variant):
    a = np.array([[1.0, 2.0**-40, 0.5]])
    b = np.array([[1.0], [2.0**40], [1.0]])  # a[0, 1] b[1, 0] = 1: losing it would be silent
    for s, lost in ((5, variant != "rn"), (7, False)):  # 35 bits do not reach 2^-40; 49 do
        # rn rescales each slice to its residual: its second slice already holds 2^-40
        c, info = ozblas.matmul(a, b, return_info=True, **emu(variant, s))
        assert (info["fallback"] == "exponent range beyond the scaling") == lost, (s, info)
        assert c[0, 0] == 2.5


@pytest.mark.parametrize("variant", VARIANTS)
def test_near_overflow_is_summed_scaled_down_and_exact(variant):
    """Partial sums that would overflow FP64 are summed at a lower scale (oz1_acc_scale):
    1.5e308 * 2 - 1.5e308 is 1.5e308 (native DGEMM overflows to inf), no fallback."""
    a = np.array([[1.5e308, -1.5e308], [1.0, 2.0]])
    b = np.array([[1.0, 2.0], [1.0, 1.0]])
    c, info = ozblas.matmul(a, b, return_info=True, **emu(variant, 9))
    assert info["fallback"] is None
    np.testing.assert_array_equal(c, exact_matmul(a, b))
    assert np.array_equal(bits(c), bits(reference.ozaki1(a, b, slices=9, variant=variant)[0]))


@pytest.mark.parametrize("variant", VARIANTS)
def test_subnormal_huge_zero_rows_and_columns(variant):
    rng = np.random.default_rng(3)
    kw = emu(variant, 12)
    a = (rng.random((6, 8)) - 0.5) * 1e-310  # subnormal rows
    b = (rng.random((8, 5)) - 0.5) * 1e300
    c, info = ozblas.matmul(a, b, return_info=True, **kw)
    assert info["fallback"] is None
    np.testing.assert_allclose(c, exact_matmul(a, b), rtol=1e-10)
    assert np.array_equal(bits(c), bits(reference.ozaki1(a, b, slices=12, variant=variant)[0]))
    a = make_matrix(5, 6, 1.0, seed=1)
    b = make_matrix(6, 4, 1.0, seed=2)
    a[2] = 0
    b[:, 1] = 0
    c, info = ozblas.matmul(a, b, return_info=True, **kw)
    assert info["fallback"] is None
    assert np.all(c[2] == 0) and np.all(c[:, 1] == 0)
    np.testing.assert_allclose(c, exact_matmul(a, b), rtol=1e-11, atol=1e-300)
    z = np.zeros((3, 4))
    c, info = ozblas.matmul(z, z.T, return_info=True, **kw)
    assert info["fallback"] is None and np.all(c == 0) and not np.any(np.signbit(c))


# ---- automatic precision (slices="auto") ------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("phi", [0.0, 2.0, 4.0])
@pytest.mark.parametrize("shape", [(1, 1, 1), (17, 257, 3), (6, 1100, 5)])
def test_auto_slices_reference_equals_c_executor(variant, cplx, phi, shape):
    """The same slice count, bound (to the bit) and result as the NumPy reference."""
    m, k, n = shape
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(m, k, phi, seed=m + k, dtype=dt)
    b = make_matrix(k, n, phi, seed=n, dtype=dt)
    info_ref = {}
    ref, fallback = reference.ozaki1(a, b, slices="auto", variant=variant, info=info_ref)
    c, info = ozblas.matmul(a, b, return_info=True, **emu(variant, "auto"))
    assert fallback == info["fallback"]
    assert info["bound"] == info_ref["bound"]
    if fallback is None:
        assert info["slices"] == info_ref["slices"]
        assert np.array_equal(bits(ref), bits(c))


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("cplx", [False, True])
def test_auto_slices_against_the_oracle(variant, cplx):
    """Native-level err_ab or a fallback saying why; the bound is never below the measured
    error; wider exponent ranges take more slices."""
    m, k, n = 40, 1024, 36
    dt = np.complex128 if cplx else np.float64
    chosen = {}
    for phi in (0.0, 0.5, 1.0, 2.0, 4.0):
        a = make_matrix(m, k, phi, seed=5 + int(10 * phi), dtype=dt)
        b = make_matrix(k, n, phi, seed=6 + int(10 * phi), dtype=dt)
        exact = exact_matmul(a, b)
        c, info = ozblas.matmul(a, b, return_info=True, **emu(variant, "auto"))
        err = err_ab(c, exact, a, b)
        if info["fallback"] is None:
            assert err <= info["bound"] + U, (phi, err, info)
            assert err <= native_level(native_error(a, b, exact)), (phi, err, info)
            chosen[phi] = info["slices"]
        else:
            assert info["fallback"] == "no count meets DGEMM-level accuracy"
            chosen[phi] = None
    assert chosen[0.0] is not None and chosen[2.0] is not None, chosen
    assert chosen[0.0] < chosen[2.0], chosen
    assert chosen[0.0] <= chosen[0.5] <= chosen[1.0] <= chosen[2.0], chosen
