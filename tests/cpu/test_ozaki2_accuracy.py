"""Ozaki II accuracy against the exact oracle, with the textbook DGEMM as the native
yardstick (_compare.native_error: the same on every machine, whatever the host BLAS kernel)."""

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st

import ozblas
from ozblas.testing import err_ab, exact_matmul, make_matrix

from _compare import native_error

U = 2.0**-53


def stored(x, t):
    return x if t == 0 else (x.T.copy() if t == 1 else x.conj().T.copy())


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("phi", [0.0, 0.5, 1.0, 2.0])
@pytest.mark.parametrize("mkn", [(9, 16, 13), (5, 257, 8), (6, 4096, 7)])
@pytest.mark.parametrize("scaling", ["fast", "accurate"])
def test_error_non_increasing_and_native_level(cplx, phi, mkn, scaling):
    m, k, n = mkn
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(m, k, phi, seed=k + int(10 * phi), dtype=dt)
    b = make_matrix(k, n, phi, seed=n + int(10 * phi) + 1, dtype=dt)
    exact = exact_matmul(a, b)
    native = native_error(a, b, exact)
    errs = []
    for moduli in range(12, 21):
        c, info = ozblas.matmul(a, b, method="ozaki2", moduli=moduli, scaling=scaling, executor="cpu",
                                return_info=True)
        assert info["fallback"] is None
        errs.append(err_ab(c, exact, a, b))
    for lo, hi in zip(errs, errs[1:]):
        assert hi <= max(lo, U), errs  # non-increasing down to the final rounding
    if scaling == "accurate" and phi <= 1:
        assert max(errs[4:]) <= max(native, U), (errs, native)  # 16+ moduli
    assert errs[-1] <= U  # 20 moduli: the exact product rounded once (up to one rounding)


@pytest.mark.parametrize("ta", [0, 1, 2])
@pytest.mark.parametrize("tb", [0, 1, 2])
@pytest.mark.parametrize("cplx", [False, True])
def test_all_transposes_reach_native_level(ta, tb, cplx):
    m, k, n = 11, 300, 6
    dt = np.complex128 if cplx else np.float64
    opa = make_matrix(m, k, 1.0, seed=1, dtype=dt)
    opb = make_matrix(k, n, 1.0, seed=2, dtype=dt)
    f = ozblas.zgemm if cplx else ozblas.dgemm
    if not cplx and 2 in (ta, tb):
        pytest.skip("dgemm: trans 2 is the same as 1")
    c = f(1.0, stored(opa, ta), stored(opb, tb), 0.0, None, ta, tb, method="ozaki2", moduli=16, executor="cpu")
    exact = exact_matmul(opa, opb)
    assert err_ab(c, exact, opa, opb) <= max(native_error(opa, opb, exact), U)


def test_k_beyond_one_block_is_exact_in_the_integer_products():
    """k > 1024 crosses the CPU executor's exact SGEMM blocks; 20 moduli then give the
    correctly rounded product for modest exponent spread."""
    a = make_matrix(4, 5000, 0.5, seed=1)
    b = make_matrix(5000, 3, 0.5, seed=2)
    c = ozblas.matmul(a, b, method="ozaki2", moduli=20, executor="cpu")
    assert err_ab(c, exact_matmul(a, b), a, b) <= U


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("scaling", ["fast", "accurate"])
@pytest.mark.parametrize("seed", [0, 1])
def test_auto_precision_against_the_oracle(cplx, scaling, seed):
    """moduli="auto": native-level err_ab or a native fallback saying why; the reported bound
    is never below the measured error; wider exponent ranges take more moduli. (After a
    fallback the bound is the maximum count's, not native's, so it is not compared.)"""
    m, k, n = 48, 1024, 40
    dt = np.complex128 if cplx else np.float64
    chosen = {}
    for phi in (0.0, 0.5, 1.0, 2.0, 4.0):
        a = make_matrix(m, k, phi, seed=100 * seed + int(10 * phi), dtype=dt)
        b = make_matrix(k, n, phi, seed=100 * seed + int(10 * phi) + 1, dtype=dt)
        exact = exact_matmul(a, b)
        c, info = ozblas.matmul(a, b, method="ozaki2", moduli="auto", scaling=scaling,
                                executor="cpu", return_info=True)
        err = err_ab(c, exact, a, b)
        assert info["bound"] is not None
        if info["fallback"] is None:
            assert err <= info["bound"] + U, (phi, err, info)  # + U: the oracle rounds too
            assert info["method"] == "ozaki2"
            assert err <= max(native_error(a, b, exact), U), (phi, err, info)
            chosen[phi] = info["moduli"]
        else:
            assert info["method"] == "native"
            assert info["fallback"] == "no count meets DGEMM-level accuracy"
            chosen[phi] = None
    assert chosen[0.0] is not None and chosen[2.0] is not None, chosen
    assert chosen[0.0] < chosen[2.0], chosen
    assert chosen[0.0] <= chosen[0.5] <= chosen[1.0] <= chosen[2.0], chosen


# ---- automatic precision's sharper bound (issue 14 item 1; numerics/ozaki2.h) ------------------

def _auto(a, b, **kw):
    return ozblas.matmul(a, b, method="ozaki2", moduli="auto", executor="cpu", return_info=True,
                         **kw)


def _lower_products(info):
    """The lower-bound levels a call took: its INT8 products less the moduli's and accurate
    scaling's bound product (real inputs)."""
    return info["int_gemms"] - info["moduli"] - 1


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 12), st.integers(1, 80), st.integers(1, 12), st.integers(1, 30),
       st.sampled_from([np.float64, np.complex128]), st.integers(0, 2**31))
def test_exact_truncation_is_seen_and_the_product_is_correctly_rounded(m, k, n, bits, dt, seed):
    """Inputs on a coarse grid (integers of up to `bits` bits, times a power of two): once the
    bits kept reach every element's last set bit the truncation is exact (oz2_lsb_element),
    the bound ratio is 0, so the count is the fewest with exact truncation and the result is
    the exact product rounded once, bit for bit."""
    rng = np.random.default_rng(seed)

    def draw(r, c):
        x = rng.integers(-(2**bits), 2**bits, (r, c)).astype(np.float64)
        if dt is np.complex128:
            x = x + 1j * rng.integers(-(2**bits), 2**bits, (r, c))
        return x * 2.0 ** int(rng.integers(-60, 60))

    a, b = draw(m, k), draw(k, n)
    c, info = _auto(a, b)
    assert info["fallback"] is None and info["moduli"] <= 16, info
    assert info["bound"] == (2.0 if dt is np.complex128 else 1.0) * U * (1 + 2.0**-40), info
    assert np.array_equal(c, exact_matmul(a, b))


def test_float32_data_takes_fewer_moduli_than_float64_data():
    """float32 values (24-bit significands) are truncated exactly with fewer bits kept."""
    a = make_matrix(24, 300, 0.5, seed=1)
    b = make_matrix(300, 20, 0.5, seed=2)
    a32, b32 = a.astype(np.float32).astype(np.float64), b.astype(np.float32).astype(np.float64)
    _, i64 = _auto(a, b)
    c32, i32 = _auto(a32, b32)
    assert i32["moduli"] < i64["moduli"], (i32, i64)
    exact = exact_matmul(a32, b32)
    assert err_ab(c32, exact, a32, b32) <= U


def test_lower_bound_levels_follow_the_inputs():
    """Level 0 alone where every entry's lower bound is resolved to 10 bits (phi = 0), more
    levels where entries would otherwise fall back to the exponent spans (phi = 8), and the
    count falls with them: at phi = 8 (16 x 512 x 16, seed 7) the two fixed products of
    before (shifts 6 and 13) took 41 moduli, the levels take 27."""
    a, b = make_matrix(32, 512, 0.0, seed=7), make_matrix(512, 32, 0.0, seed=8)
    _, info = _auto(a, b)
    assert _lower_products(info) == 1, info
    a, b = make_matrix(16, 512, 8.0, seed=7), make_matrix(512, 16, 8.0, seed=8)
    c, info = _auto(a, b)
    assert _lower_products(info) >= 3 and info["moduli"] <= 30, info
    c1, info1 = _auto(a, b, threads=1)  # the levels' decision does not depend on threads
    assert info1["int_gemms"] == info["int_gemms"] and info1["bound"] == info["bound"]
    assert np.array_equal(c1.view(np.uint64), c.view(np.uint64))
    exact = exact_matmul(a, b)
    assert err_ab(c, exact, a, b) <= max(native_error(a, b, exact), 2 * U)


def test_known_zero_entries_cost_no_moduli():
    """Block-diagonal operands: (|A||B|)_ij = 0 off the blocks. Once every element of a row
    and a column is resolved, a zero lower bound there is exact (oz2_lower_final) and those
    entries need no bits, so the product takes no more moduli than its blocks do (16; the
    exponent-span bound there would ask 19: rows span 8 to 16 binades)."""
    a1, b1 = make_matrix(8, 64, 1.0, seed=3), make_matrix(64, 6, 1.0, seed=4)
    a2, b2 = make_matrix(7, 50, 1.0, seed=5), make_matrix(50, 9, 1.0, seed=6)
    a, b = scipy.linalg.block_diag(a1, a2), scipy.linalg.block_diag(b1, b2)
    c, info = _auto(a, b)
    counts = [_auto(x, y)[1]["moduli"] for x, y in ((a1, b1), (a2, b2))]
    assert info["fallback"] is None and info["moduli"] <= max(counts), (info, counts)
    exact = exact_matmul(a, b)
    assert err_ab(c, exact, a, b) <= max(native_error(a, b, exact), 2 * U)
    assert np.all(c[:8, 6:] == 0) and np.all(c[8:, :6] == 0)
