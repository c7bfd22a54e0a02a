"""Ozaki II accuracy against the exact oracle, with native DGEMM as the yardstick."""

import numpy as np
import pytest

import ozblas
from ozblas.testing import err_ab, exact_matmul, make_matrix

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
    native = err_ab(a @ b, exact, a, b)
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
    assert err_ab(c, exact, opa, opb) <= max(err_ab(opa @ opb, exact, opa, opb), U)


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
            assert err <= max(err_ab(a @ b, exact, a, b), U), (phi, err, info)
            chosen[phi] = info["moduli"]
        else:
            assert info["method"] == "native"
            assert info["fallback"] == "no count meets DGEMM-level accuracy"
            chosen[phi] = None
    assert chosen[0.0] is not None and chosen[2.0] is not None, chosen
    assert chosen[0.0] < chosen[2.0], chosen
    assert chosen[0.0] <= chosen[0.5] <= chosen[1.0] <= chosen[2.0], chosen
