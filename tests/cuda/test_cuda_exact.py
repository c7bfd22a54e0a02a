"""Exact products on the CUDA executor (cuda/cuda_exact.cu, INT8 moduli) against the CPU
executor (cpu/cpu_exact.c, 22-bit moduli on the host DGEMM), bit for bit: accuracy
"correct" and matmul_dd. Both are the exact product rounded once, so any difference is a
bug. Skipped without a CUDA executor; run in the CPU emulation of the GPU with
tests/cuda/emu/run_emu_tests.py (small sizes: every GPU thread is a fiber there)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ozblas
from ozblas.testing import exact_matmul, make_matrix

from _compare import _operand, assert_same_bits, both_gemm, both_matmul, cuda_state

_OK, _WHY = cuda_state()
pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not _OK, reason=f"CUDA executor unavailable: {_WHY}"),
]

CORRECT = dict(accuracy="correct")


def _pair(m, k, n, phi, cplx, seed):
    dt = np.complex128 if cplx else np.float64
    return (make_matrix(m, k, phi, seed=seed, dtype=dt),
            make_matrix(k, n, phi, seed=seed + 1, dtype=dt))


def _check_matmul(a, b, what):
    cc, rc, cp, rp = both_matmul(a, b, **CORRECT)
    assert rc["executor"] == "cuda" and rp["executor"] == "cpu", (rc, rp)
    assert_same_bits(cc, cp, what)
    assert_same_bits(cp, exact_matmul(a, b), what + " (exact oracle)")
    return rc


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("phi", [0.0, 2.0, 8.0])
def test_correct_equals_cpu_and_oracle(cplx, phi):
    a, b = _pair(9, 37, 7, phi, cplx, seed=int(10 * phi) + cplx)
    rc = _check_matmul(a, b, f"cplx={cplx} phi={phi}")
    assert rc["moduli"] > 0 and rc["int_gemms"] == rc["moduli"] * (rc["complex_products"] or 1)
    # complex: two products per modulus where the INT8 complex family (22 moduli, 151 bits)
    # holds every row and column (phi 0: 16 moduli), Karatsuba on the 48 moduli beyond
    assert rc["complex_products"] == ((2 if phi == 0 else 3) if cplx else None)
    assert rc["accuracy"] == "correct" and rc["devices"] == [0]


def test_tie_case_of_issue_14():
    a = np.array([[1.0, 2.0**-53 + 2.0**-70]])
    b = np.array([[1.0], [1.0]])
    cc, _, cp, _ = both_matmul(a, b, **CORRECT)
    assert cc[0, 0] == 1 + 2.0**-52 and cp[0, 0] == cc[0, 0]


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("ta,tb", [(0, 0), (1, 0), (0, 1), (2, 2), (1, 2), (2, 0)])
def test_transposes_alpha_beta(cplx, ta, tb):
    m, k, n = 6, 11, 5
    if not cplx and 2 in (ta, tb):
        ta, tb = min(ta, 1), min(tb, 1)
    dt = np.complex128 if cplx else np.float64
    a = _operand(k if ta else m, m if ta else k, 1.0, dt, 3, "F")
    b = _operand(n if tb else k, k if tb else n, 1.0, dt, 4, "C")
    c0 = make_matrix(m, n, 1.0, seed=5, dtype=dt)
    fn = ozblas.zgemm if cplx else ozblas.dgemm
    for alpha, beta in ((1.0, 0.0), (0.75 - 0.5j, 2.0 + 0.25j), (-3.0, 1.0)):
        if not cplx:
            alpha, beta = alpha.real, beta.real
        cc, rc, cp, _ = both_gemm(fn, alpha, a, b, beta, c0.copy(), ta, tb, **CORRECT)
        assert rc["executor"] == "cuda"
        assert_same_bits(cc, cp, f"ta={ta} tb={tb} alpha={alpha} beta={beta}")


def _adversarial(name, cplx):
    rng = np.random.default_rng(7)
    m, k, n = 7, 13, 6
    a, b = _pair(m, k, n, 1.0, cplx, seed=20)
    if name == "subnormal":
        a[:3] *= 2.0**-1060
        b[:, :2] *= 2.0**-30
    elif name == "near_overflow":
        a[1] *= 2.0**1000
        b[:, 2] *= 2.0**20  # some entries overflow to inf, as the rounded product does
    elif name == "thousands_of_binades":  # rows wider than any count: direct entries
        a[0, ::2] *= 2.0**-1000
        a[0, 1::2] *= 2.0**1000
        b[::3, 1] *= 2.0**-1070
    elif name == "huge_column":
        a[:, 4] *= 2.0**400
    elif name == "zero_rows":
        a[2] = 0.0
        b[:, 3] = 0.0
    elif name == "integers":
        a = rng.integers(-2**50, 2**50, size=a.shape).astype(a.dtype)
        b = rng.integers(-2**50, 2**50, size=b.shape).astype(b.dtype)
    elif name == "cancellation":
        b[:, 0] = 0.0
        b[0, 0], b[1, 0] = 1.0, -1.0
        a[:, 1] = a[:, 0] * (1 + 2.0**-52)
    elif name == "nonfinite":
        a[1, 3] = np.inf
        b[5, 2] = np.nan
    return a, b


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("name", ["subnormal", "near_overflow", "thousands_of_binades",
                                  "huge_column", "zero_rows", "integers", "cancellation",
                                  "nonfinite"])
def test_adversarial(cplx, name):
    a, b = _adversarial(name, cplx)
    cc, rc, cp, rp = both_matmul(a, b, **CORRECT)
    assert_same_bits(cc, cp, name)
    if name != "nonfinite":
        with np.errstate(all="ignore"):
            assert_same_bits(cp, exact_matmul(a, b), name + " (exact oracle)")
    if name in ("thousands_of_binades", "nonfinite"):
        assert rc["direct_entries"] > 0


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("k", [2100, 65600])
def test_k_above_a_block(k, cplx):
    # 2100: two of the CPU's k-blocks (2048); 65600: two of the GPU's INT8 blocks (65536)
    a, b = _pair(2, k, 3, 0.5, cplx, seed=k)
    rc = _check_matmul(a, b, f"k={k} cplx={cplx}")
    assert rc["int_gemms"] == rc["moduli"] * (2 if k > 65536 else 1) * (rc["complex_products"] or 1)
    # complex at k = 65600: log2(2k) takes 18 of the complex family's 151 bits, too few
    assert rc["complex_products"] == ((2 if k < 65536 else 3) if cplx else None)


def _rn(p: Fraction) -> float:
    """p rounded once to the nearest double (ties to even), from the exact rational."""
    return float(p)  # Fraction.__float__ rounds correctly


def test_matmul_dd_equals_cpu_and_oracle():
    a, b = _pair(4, 9, 3, 4.0, False, seed=30)
    b[2, 1] = 2.0**-1070
    (hc, lc, ic) = ozblas.matmul_dd(a, b, executor="cuda", return_info=True)
    (hp, lp, ip) = ozblas.matmul_dd(a, b, executor="cpu", return_info=True)
    assert ic["executor"] == "cuda" and ip["executor"] == "cpu"
    assert_same_bits(hc, hp, "hi")
    assert_same_bits(lc, lp, "lo")
    for i, j in np.ndindex(hc.shape):
        p = sum(Fraction(a[i, l]) * Fraction(b[l, j]) for l in range(a.shape[1]))
        assert hc[i, j] == _rn(p)
        err = abs(Fraction(hc[i, j]) + Fraction(lc[i, j]) - p)
        assert err <= Fraction(2) ** -106 * abs(p) + Fraction(2) ** -1075


@pytest.mark.parametrize("cplx", [False, True])
def test_matmul_dd_pairs_and_stacks(cplx):
    a, b = _pair(5, 8, 4, 1.0, cplx, seed=40)
    al, bl = a * 2.0**-60, b * 2.0**-58
    for x, y in (((a, al), b), (a, (b, bl)), ((a, al), (b, bl))):
        hc, lc = ozblas.matmul_dd(x, y, executor="cuda")
        hp, lp = ozblas.matmul_dd(x, y, executor="cpu")
        assert_same_bits(hc, hp, "hi")
        assert_same_bits(lc, lp, "lo")
    s = np.stack([a, 2 * a])
    hc, lc = ozblas.matmul_dd(s, b, executor="cuda")
    hp, lp = ozblas.matmul_dd(s, b, executor="cpu")
    assert_same_bits(hc, hp, "stacked hi")
    assert_same_bits(lc, lp, "stacked lo")


def test_zgemm_dd_leading_dimensions_and_k0():
    from ozblas._native import ffi, lib

    a, b = _pair(3, 4, 2, 1.0, True, seed=50)
    out = {}
    for ex in (1, 2):
        opt = ffi.new("ozblas_options *")
        lib.ozblas_options_init(opt)
        opt.executor = ex
        A = np.asfortranarray(np.vstack([a, np.zeros((2, 4))]))  # lda = 5
        hi = np.full((4, 2), 7.0 + 7j, order="F")  # ldc 4: the extra row untouched
        lo = np.full((6, 2), 7.0 + 7j, order="F")
        p = lambda x: ffi.cast("double *", x.ctypes.data)  # noqa: E731
        B = np.asfortranarray(b)
        assert lib.ozblas_zgemm_dd(ffi.NULL, b"N", b"N", 3, 2, 4, p(A), 5, p(B), 4, p(hi), 4,
                                   p(lo), 6, opt, ffi.NULL) == 0
        assert np.all(hi[3] == 7 + 7j) and np.all(lo[3:] == 7 + 7j)
        out[ex] = (hi.copy(), lo.copy())
        assert lib.ozblas_zgemm_dd(ffi.NULL, b"N", b"N", 3, 2, 0, p(A), 5, p(B), 4, p(hi), 4,
                                   p(lo), 6, opt, ffi.NULL) == 0
        assert np.all(hi[:3] == 0) and np.all(lo[:3] == 0) and np.all(lo[3:] == 7 + 7j)
    assert_same_bits(out[2][0], out[1][0], "hi")
    assert_same_bits(out[2][1], out[1][1], "lo")


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(m=st.integers(1, 5), k=st.integers(1, 9), n=st.integers(1, 5), cplx=st.booleans(),
       phi=st.sampled_from([0.0, 1.0, 4.0, 16.0]), sa=st.integers(-1000, 1000),
       sb=st.integers(-60, 60), seed=st.integers(0, 2**16))
def test_property_cuda_equals_cpu(m, k, n, cplx, phi, sa, sb, seed):
    a, b = _pair(m, k, n, phi, cplx, seed)
    a = a * 2.0**sa
    b = b * 2.0**sb
    with np.errstate(all="ignore"):
        cc, _, cp, _ = both_matmul(a, b, **CORRECT)
        assert_same_bits(cc, cp, "property")
        hc, lc = ozblas.matmul_dd(a, b, executor="cuda")
        hp, lp = ozblas.matmul_dd(a, b, executor="cpu")
    assert_same_bits(hc, hp, "dd hi")
    assert_same_bits(lc, lp, "dd lo")


def test_device_arrays():
    cp = pytest.importorskip("cupy")
    a, b = _pair(6, 10, 4, 2.0, True, seed=60)
    c = ozblas.matmul(cp.asarray(a), cp.asarray(b), **CORRECT)
    assert isinstance(c, cp.ndarray)
    assert_same_bits(cp.asnumpy(c), ozblas.matmul(a, b, executor="cpu", **CORRECT), "matmul")
    hi, lo, info = ozblas.matmul_dd(cp.asarray(a), (cp.asarray(b), cp.asarray(b * 2.0**-55)),
                                    return_info=True)
    assert isinstance(hi, cp.ndarray) and isinstance(lo, cp.ndarray)
    assert info["executor"] == "cuda"
    hp, lp = ozblas.matmul_dd(a, (b, b * 2.0**-55), executor="cpu")
    assert_same_bits(cp.asnumpy(hi), hp, "dd hi")
    assert_same_bits(cp.asnumpy(lo), lp, "dd lo")
