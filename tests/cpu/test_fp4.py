"""The FP4 (E2M1) product engine (native/src/numerics/fp4.h, cpu/cpu_engine.c, the Ozaki II
driver on engine fp4): the base-13 limbs, exact limb products, Ozaki II on FP4 against the
exact oracle, the NumPy reference bit for bit, and INT8 products through FP4."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ozblas
from ozblas import reference
from ozblas._native import ffi, lib, load
from ozblas.reference import fp4
from ozblas.testing import err_ab, exact_matmul, make_matrix

from _compare import native_error

U = 2.0**-53
S = set(fp4.DIGITS)


def bits(x):
    return np.ascontiguousarray(x).view(np.uint64)


def stored(x, t):
    return x if t == 0 else (x.T.copy() if t == 1 else x.conj().T.copy())


# ---- the base-13 decomposition ----------------------------------------------------------

def test_digits_are_the_doubled_e2m1_values_and_cover_every_residue_mod_13():
    e2m1 = {0, 0.5, 1, 1.5, 2, 3, 4, 6}
    assert S == {2 * v for v in e2m1} | {-2 * v for v in e2m1}
    assert {d % 13 for d in S} == set(range(13))
    assert [fp4.limb_range(p) for p in (1, 2, 3)] == [4, 56, 732]


@pytest.mark.parametrize("p", [1, 2, 3])
def test_every_integer_in_the_p_limb_range_decomposes_and_recomposes(p):
    R = fp4.limb_range(p)
    N = np.arange(-R, R + 1)
    c, rest = fp4.limbs(N, p)
    assert np.all(rest == 0)
    assert set(np.unique(c)) <= S
    assert np.array_equal(sum(13**i * c[i] for i in range(p)), N)
    # tight: the greedy needs one more limb just outside the range
    _, rest = fp4.limbs(np.array([R + 1, -R - 1]), p)
    assert np.all(rest != 0)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=-(10**15), max_value=10**15))
def test_greedy_terminates_and_recomposes_beyond(N):
    p = 1
    while fp4.limb_range(p) < abs(N):
        p += 1
    c, rest = fp4.limbs(np.array([N]), p)
    assert rest[0] == 0
    assert sum(13**i * int(c[i][0]) for i in range(p)) == N
    assert all(int(x) in S for x in c[:, 0])


def test_limb_products_and_k_blocks_are_exact_at_the_bound():
    """144 K <= 2^24: the worst case (every limb 12, K = 116,508) sums exactly in FP32, one
    more block's worth does not fit one accumulator, and the engine's K blocking stays exact."""
    assert 144 * fp4.MAX_K <= 2**24 < 144 * (fp4.MAX_K + 1)
    x = np.full((1, fp4.MAX_K), 6.0, dtype=np.float32)  # E2M1 value of the digit 12
    assert float((x @ x.T)[0, 0]) * 4 == 144 * fp4.MAX_K
    assert [int(c) for c in fp4.limbs(np.array([168]), 2)[0][:, 0]] == [12, 12]
    for k in (fp4.MAX_K, fp4.MAX_K + 3):
        a = np.full((2, k), 168, dtype=np.int64)  # every limb 12
        a[1, ::2] = -168
        got = fp4.product(a, a.T, 2)
        assert np.array_equal(got.astype(np.int64), a @ a.T)


def test_the_c_engine_blocks_k_at_the_bound():
    """INT8 through FP4 across the 116,508 K-block: -128 everywhere, the largest INT32 sum."""
    k = (1 << 17) - 5
    A = np.full((k, 2), -128)
    A[::3, 1] = 127
    C = _engine_gemm(lib.OZBLAS_ENGINE_FP4, A, A)
    assert np.array_equal(C.astype(np.int64), A.T @ A)


# ---- INT8 products through the FP4 engine -----------------------------------------------

def _engine_gemm(engine, A, B):
    load()
    k, m = A.shape
    n = B.shape[1]
    A = np.asfortranarray(A, dtype=np.int8)
    B = np.asfortranarray(B, dtype=np.int8)
    C = np.zeros((m, n), dtype=np.int32, order="F")
    st_ = lib.ozblas_engine_gemm_int8(
        engine, m, n, k, ffi.cast("const int8_t *", A.ctypes.data), max(k, 1),
        ffi.cast("const int8_t *", B.ctypes.data), max(k, 1),
        ffi.cast("int32_t *", C.ctypes.data), max(m, 1))
    assert st_ == lib.OZBLAS_OK
    return C


@pytest.mark.parametrize("k", [1, 37, 1500])
def test_int8_products_through_fp4_equal_the_int8_engine(k):
    rng = np.random.default_rng(k)
    A = rng.integers(-128, 128, size=(k, 7))
    B = rng.integers(-128, 128, size=(k, 5))
    A[:, 0] = -128  # the extremes: |N| = 128 needs three limbs
    B[:, 0] = -128
    A[:, 1] = 127
    via_fp4 = _engine_gemm(lib.OZBLAS_ENGINE_FP4, A, B)
    via_int8 = _engine_gemm(lib.OZBLAS_ENGINE_INT8, A, B)
    assert np.array_equal(via_fp4, via_int8)
    assert np.array_equal(via_fp4.astype(np.int64), A.T @ B)


def test_engine_gemm_rejects_bad_arguments():
    load()
    nul = ffi.NULL
    assert lib.ozblas_engine_gemm_int8(7, 1, 1, 1, nul, 1, nul, 1, nul, 1) == \
        lib.OZBLAS_ERR_INVALID_ARGUMENT
    assert lib.ozblas_engine_gemm_int8(1, 1, 1, (1 << 17) + 1, nul, 1 << 18, nul, 1 << 18,
                                       nul, 1) == lib.OZBLAS_ERR_INVALID_ARGUMENT


# ---- Ozaki II on FP4 ----------------------------------------------------------------------

def test_fp4_moduli_are_coprime_with_residues_in_the_limb_range():
    import math
    load()
    top = lib.ozblas_ozaki2_engine_max_moduli(1)
    ms = reference.moduli(top, "fp4")
    assert all(math.gcd(x, y) == 1 for i, x in enumerate(ms) for y in ms[i + 1:])
    for t, m in enumerate(ms):
        nd = lib.ozblas_ozaki2_engine_limbs(1, t)
        assert nd == fp4.residue_limbs(m)
        # every symmetric residue has nd limbs (a one-limb 13 uses its digit modulo 13)
        r = np.arange(-(m // 2), (m + 1) // 2)
        c, rest = fp4.limbs(r, nd)
        assert np.all(rest == 0) or m == 13
        assert np.all((c[0] - r) % 13 == 0) if m == 13 else True
    # as many bits as INT8's 20 moduli (within one modulus)
    assert lib.ozblas_ozaki2_engine_budget_bits(1, top) >= lib.ozblas_ozaki2_budget_bits(20) - 7


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("phi", [0.0, 0.5, 1.0, 2.0])
def test_fp4_auto_reaches_native_level_and_equals_the_reference(cplx, phi):
    m, k, n = 7, 40, 5
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(m, k, phi, seed=3 + int(10 * phi), dtype=dt)
    b = make_matrix(k, n, phi, seed=4 + int(10 * phi), dtype=dt)
    exact = exact_matmul(a, b)
    native = native_error(a, b, exact)
    c, info = ozblas.matmul(a, b, method="ozaki2", engine="fp4", executor="cpu", return_info=True)
    c8, info8 = ozblas.matmul(a, b, method="ozaki2", engine="int8", executor="cpu",
                              return_info=True)
    assert info["engine"] == "fp4" and info8["engine"] == "int8"
    if info["fallback"] is not None:
        assert info["fallback"] == "no count meets DGEMM-level accuracy"
        return
    assert err_ab(c, exact, a, b) <= max(native, 2 * U)
    # more moduli than INT8 (fewer bits each); products reported per limb
    assert info["moduli"] >= info8["moduli"]
    ms = reference.moduli(info["moduli"], "fp4")
    assert info["engine_products"] == sum(fp4.residue_limbs(x) ** 2 for x in ms) * (3 if cplx else 1)
    # INT8's complex calls: two products per modulus where the complex set holds the bits
    assert info["complex_products"] == (3 if cplx else None)
    assert info8["engine_products"] == info8["moduli"] * (info8["complex_products"] or 1)
    ref_info = {}
    ref, fb = reference.ozaki2(a, b, moduli="auto", engine="fp4", info=ref_info)
    assert fb is None and ref_info["moduli"] == info["moduli"]
    assert np.array_equal(bits(ref), bits(c))


@pytest.mark.parametrize("ta", [0, 1, 2])
@pytest.mark.parametrize("tb", [0, 1, 2])
@pytest.mark.parametrize("cplx", [False, True])
def test_fp4_every_transpose(ta, tb, cplx):
    if not cplx and 2 in (ta, tb):
        pytest.skip("dgemm: trans 2 is the same as 1")
    m, k, n = 6, 30, 4
    dt = np.complex128 if cplx else np.float64
    opa = make_matrix(m, k, 1.0, seed=ta + 1, dtype=dt)
    opb = make_matrix(k, n, 1.0, seed=tb + 7, dtype=dt)
    f = ozblas.zgemm if cplx else ozblas.dgemm
    alpha = 0.5 - 0.25j if cplx else 0.5
    c, info = f(alpha, stored(opa, ta), stored(opb, tb), 0.0, None, ta, tb, method="ozaki2",
                engine="fp4", executor="cpu", return_info=True)
    assert info["fallback"] is None and info["engine"] == "fp4"
    exact = exact_matmul(opa, opb)
    assert err_ab(c / alpha, exact, opa, opb) <= max(native_error(opa, opb, exact), 2 * U)
    ref, _ = reference.ozaki2(opa, opb, moduli=info["moduli"], engine="fp4", alpha=alpha)
    assert np.array_equal(bits(ref), bits(c))


@pytest.mark.parametrize("scaling", ["fast", "accurate"])
@pytest.mark.parametrize("moduli", [6, 19, 28])
def test_fp4_fixed_moduli_threads_and_reference(scaling, moduli):
    a = make_matrix(9, 50, 0.5, seed=moduli, dtype=np.complex128)
    b = make_matrix(50, 6, 0.5, seed=moduli + 1, dtype=np.complex128)
    out = [ozblas.matmul(a, b, method="ozaki2", engine="fp4", moduli=moduli, scaling=scaling,
                         executor="cpu", threads=t, return_info=True) for t in (1, 2)]
    assert np.array_equal(bits(out[0][0]), bits(out[1][0]))
    ref, fb = reference.ozaki2(a, b, moduli=moduli, scaling=scaling, engine="fp4")
    assert fb == out[0][1]["fallback"]
    if fb is None:
        assert np.array_equal(bits(ref), bits(out[0][0]))
    else:  # 6 moduli hold 26 bits: too few for these exponents
        assert moduli == 6


def test_fp4_k_beyond_the_int8_block():
    a = make_matrix(3, 3000, 0.5, seed=1)
    b = make_matrix(3000, 2, 0.5, seed=2)
    c = ozblas.matmul(a, b, method="ozaki2", engine="fp4", moduli=28, executor="cpu")
    assert err_ab(c, exact_matmul(a, b), a, b) <= U


def test_engine_option_errors_and_refusals():
    from ozblas import config

    a = make_matrix(4, 5, 0.0, seed=1)
    with pytest.raises(Exception, match="fp4"):
        ozblas.matmul(a, a.T, engine="fp8")
    with pytest.raises(config.ConfigError, match=r"^moduli='30' is beyond the 28 moduli of engine='fp4'"):
        ozblas.matmul(a, a.T, method="ozaki2", moduli=30, engine="fp4")
    c, info = ozblas.matmul(a, a.T, method="ozaki2", moduli=24, engine="fp4", executor="cpu",
                            return_info=True)
    assert info["moduli"] == 24 and info["engine_products"] == 4 + 4 * 20


def test_engine_from_the_environment(monkeypatch):
    from ozblas import config

    monkeypatch.setenv("OZBLAS_ENGINE", "fp4")
    assert config.from_env().engine == "fp4"
    a = make_matrix(4, 5, 0.0, seed=2)
    _, info = ozblas.matmul(a, a.T, method="ozaki2", executor="cpu", return_info=True)
    assert info["engine"] == "fp4"
    monkeypatch.setenv("OZBLAS_ENGINE", "int4")
    with pytest.raises(config.ConfigError, match="int8, fp4"):
        config.from_env()


# ---- Ozaki I on FP4: the INT8 slices in three limbs each ---------------------------------

@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("variant", ["bitmask", "hybrid"])
def test_ozaki1_on_fp4_equals_int8_and_the_reference(cplx, variant):
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(7, 45, 1.0, seed=11, dtype=dt)
    b = make_matrix(45, 5, 1.0, seed=12, dtype=dt)
    c4, i4 = ozblas.matmul(a, b, method="ozaki1", variant=variant, engine="fp4", executor="cpu",
                           return_info=True)
    c8, i8 = ozblas.matmul(a, b, method="ozaki1", variant=variant, engine="int8", executor="cpu",
                           return_info=True)
    assert i4["fallback"] is None and i4["engine"] == "fp4" and i4["slices"] == i8["slices"]
    assert i4["engine_products"] == 9 * i8["engine_products"]
    assert np.array_equal(bits(c4), bits(c8))
    ref, fb = reference.ozaki1(a, b, slices=i4["slices"], variant=variant, engine="fp4")
    assert fb is None and np.array_equal(bits(ref), bits(c4))
    two = ozblas.matmul(a, b, method="ozaki1", variant=variant, engine="fp4", executor="cpu",
                        threads=2)
    assert np.array_equal(bits(two), bits(c4))
    assert err_ab(c4, exact_matmul(a, b), a, b) <= max(native_error(a, b), 2 * U)
