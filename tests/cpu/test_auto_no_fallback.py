"""Automatic precision on wide and adversarial inputs (issue 14): with the method forced, a
finite input is emulated (no native fallback for range or accuracy), err_ab stays within
max(native's, 2u), and the stated bound is never below the error against the unrounded
exact product (matmul_dd's hi + lo, within 2^-106 of it). CPU executor, both schemes, d
and z; the NumPy reference makes the same choice, bit for bit."""

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st

import ozblas
from ozblas import reference
from ozblas.testing import err_ab, exact_matmul, ideal_moduli, make_matrix

from _compare import dd_error, native_error

U = 2.0**-53
M, K, N = 12, 48, 10


def _family(name, cplx, seed=0):
    rng = np.random.default_rng(seed)
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(M, K, 0.5, seed=seed + 1, dtype=dt)
    b = make_matrix(K, N, 0.5, seed=seed + 2, dtype=dt)
    if name.startswith("phi"):
        phi = float(name[3:])
        a = make_matrix(M, K, phi, seed=seed + 1, dtype=dt)
        b = make_matrix(K, N, phi, seed=seed + 2, dtype=dt)
    elif name == "huge_column":
        a[:, 3] *= 2.0**200
    elif name == "zero_rows":
        a[2] = 0
        b[:, 4] = 0
    elif name == "rows_2^40":
        a *= np.ldexp(1.0, rng.choice([-40, 0, 40], M))[:, None]
        b *= np.ldexp(1.0, rng.choice([-40, 0, 40], N))[None, :]
    elif name == "inner_2^40":  # rows of op(A) and columns of op(B) span 80 binades each
        s = np.ldexp(1.0, rng.choice([-40, 40], K))
        a = a * s[None, :]
        b = b / s[:, None]
    elif name == "vandermonde":
        a = np.vander(np.linspace(0.05, 1.5, M), K, increasing=True).astype(dt)
    elif name == "hilbert":
        a = scipy.linalg.hilbert(max(M, K))[:M, :K].astype(dt)
        b = scipy.linalg.hilbert(max(K, N))[:K, :N].astype(dt)
    elif name == "subnormal":
        a *= 1e-310
    elif name == "near_overflow":
        a *= 1e300
        b *= 1e7
    elif name == "integers_2^50":
        a = rng.integers(-(2**50), 2**50, (M, K)).astype(dt)
        b = rng.integers(-(2**50), 2**50, (K, N)).astype(dt)
    elif name == "cancellation":  # C = A B nearly 0: columns of B sum rows of A to 0
        b[K // 2:] = -b[:K // 2]
        a[:, K // 2:] = a[:, :K // 2] * (1 + 2.0**-30)
    return a, b


FAMILIES = ["phi0", "phi0.5", "phi1", "phi2", "phi4", "phi8", "huge_column", "zero_rows",
            "rows_2^40", "inner_2^40", "vandermonde", "hilbert", "subnormal", "near_overflow",
            "integers_2^50", "cancellation"]


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("method", ["ozaki2", "ozaki1"])
def test_forced_method_emulates_with_a_true_bound(method, family, cplx):
    a, b = _family(family, cplx)
    count = {"moduli": "auto"} if method == "ozaki2" else {"slices": "auto"}
    c, info = ozblas.matmul(a, b, method=method, executor="cpu", return_info=True, **count)
    assert info["fallback"] is None and info["method"] == method, info
    exact = exact_matmul(a, b)
    err = err_ab(c, exact, a, b)
    assert err <= max(native_error(a, b, exact), 2 * U), (err, info)
    assert dd_error(c, a, b) <= info["bound"], info


@pytest.mark.parametrize("family", ["inner_2^40", "huge_column", "vandermonde", "near_overflow"])
def test_reference_takes_the_same_count_and_bits(family):
    a, b = _family(family, False)
    c, info = ozblas.matmul(a, b, method="ozaki2", executor="cpu", return_info=True)
    ri = {}
    ref, fb = reference.ozaki2(a, b, moduli="auto", info=ri)
    assert fb is None and ri["moduli"] == info["moduli"] and ri["bound"] == info["bound"]
    assert np.array_equal(ref.view(np.uint64), c.view(np.uint64))
    c1, i1 = ozblas.matmul(a, b, method="ozaki1", executor="cpu", return_info=True)
    ref1, fb1 = reference.ozaki1(a, b, slices="auto", variant=i1["variant"], info=ri)
    assert fb1 is None and ri["slices"] == i1["slices"]
    assert np.array_equal(ref1.view(np.uint64), c1.view(np.uint64))


def test_more_than_20_moduli_where_rows_span_80_binades():
    """The inner dimension scaled by 2^+-40 needs about 2 x 133 bits per entry: more moduli
    than GEMMul8's 20 (each one INT8 product), where the call used to go native."""
    a, b = _family("inner_2^40", False)
    _, info = ozblas.matmul(a, b, method="ozaki2", executor="cpu", return_info=True)
    assert 20 < info["moduli"] <= 49 and info["int_gemms"] >= info["moduli"]


# chosen - minimum per phi at 32 x 512 x 32, seed 7, as measured against the textbook
# DGEMM's error (docs/accuracy.md, "Automatic precision"): issue 14 asks 0 in two thirds of
# the cells and never 2 or more; no rule that guarantees err_ab <= max(native's, 2u) without knowing native's
# error gets there (the fewest moduli within 2u are above the minimum wherever native's error
# is well above 2u), so this pins what the bound reaches. The yardstick is the textbook DGEMM
# (_compare.textbook_matmul), not the host BLAS: its error depends on the kernel OpenBLAS
# picks (at phi 0 SkylakeX's 2.5u lets 14 moduli qualify, Haswell's 1.3u does not). Measured on
# make_matrix's data, which have the same bits on every machine (at phi 8 two since they do:
# two above the minimum at phi 2 to 8, as docs/accuracy.md's table).
EXCESS = {0.0: 1, 0.5: 2, 1.0: 2, 2.0: 2, 4.0: 2, 8.0: 2}


@pytest.mark.parametrize("phi", sorted(EXCESS))
def test_count_against_the_empirical_minimum(phi):
    """The automatic count against the fewest moduli whose err_ab (against the exact oracle)
    reaches the textbook DGEMM's: never below it where that is above 2u (the bound is
    rigorous), at most EXCESS[phi] above it, and the chosen count's own error within the
    stated bound plus the final rounding. Counts that fall back to native are not
    emulations and do not count."""
    a = make_matrix(32, 512, phi, seed=7)
    b = make_matrix(512, 32, phi, seed=8)
    exact = exact_matmul(a, b)
    native = native_error(a, b, exact)
    _, info = ozblas.matmul(a, b, method="ozaki2", executor="cpu", return_info=True)
    chosen = info["moduli"]
    errs = {}
    for n in range(chosen - EXCESS[phi] - 1, chosen + 1):
        c, i = ozblas.matmul(a, b, method="ozaki2", moduli=n, executor="cpu", return_info=True)
        if i["fallback"] is None:
            errs[n] = err_ab(c, exact, a, b)
    assert native > 2 * U  # these inputs: the check below applies
    assert errs[chosen] <= min(native, info["bound"] + U), (errs, native, info["bound"])
    minimum = min(n for n, e in errs.items() if e <= native)
    assert chosen >= minimum, errs
    assert chosen - minimum <= EXCESS[phi], (chosen, minimum, errs)


@pytest.mark.parametrize("phi", [0.0, 0.5, 1.0, 2.0, 4.0, 8.0])
@pytest.mark.parametrize("scaling", ["accurate", "fast"])
def test_count_against_the_ideal_bound(phi, scaling):
    """The automatic count is never below the ideal rigorous bound's (the exact |dA||B| +
    |A'||dB| over |A||B|: no bound valid for every sign pattern does better), and at most
    one above it; at phi >= 2, where the refinement (ozaki2.h) decides, it equals it with
    accurate scaling (before the refinement: 1 to 3 above at phi 4 and 8)."""
    a = make_matrix(32, 512, phi, seed=7)
    b = make_matrix(512, 32, phi, seed=8)
    _, info = ozblas.matmul(a, b, method="ozaki2", scaling=scaling, executor="cpu",
                            return_info=True)
    ideal = ideal_moduli(a, b, scaling)
    assert ideal <= info["moduli"] <= ideal + 1, (info["moduli"], ideal)
    if phi >= 2 and scaling == "accurate":
        assert info["moduli"] == ideal


def _structured(draw, cplx):
    """Inputs where a few elements carry each entry: wide phi, a few columns or rows
    scaled far up or down, zeros, and exactly representable rows."""
    m, k, n = draw(st.integers(1, 24)), draw(st.integers(1, 90)), draw(st.integers(1, 24))
    phi = draw(st.sampled_from([1.0, 2.0, 4.0, 6.0, 8.0, 10.0]))
    seed = draw(st.integers(0, 2**16))
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(m, k, phi, seed=seed, dtype=dt)
    b = make_matrix(k, n, phi, seed=seed + 1, dtype=dt)
    rng = np.random.default_rng(seed)
    for _ in range(draw(st.integers(0, 3))):
        s = np.ldexp(1.0, int(rng.integers(-60, 61)))
        if rng.random() < 0.5:
            a[:, rng.integers(k)] *= s
        else:
            b[rng.integers(k), :] *= s
    if draw(st.booleans()):
        a[rng.random((m, k)) < 0.3] = 0
    if draw(st.booleans()):
        b[:, 0] = np.round(b[:, 0] * 2.0**20)
    return a, b


@settings(max_examples=40, deadline=None)
@given(st.data(), st.booleans())
def test_refined_bound_holds(data, cplx):
    """Where the refinement decides the count, the stated bound still covers the error
    against the unrounded product and err_ab stays within max(native's, 2u); the NumPy
    reference takes the same count and bound (where the call is not split)."""
    a, b = _structured(data.draw, cplx)
    c, info = ozblas.matmul(a, b, method="ozaki2", executor="cpu", return_info=True)
    assert info["fallback"] is None, info
    exact = exact_matmul(a, b)
    assert err_ab(c, exact, a, b) <= max(native_error(a, b, exact), 2 * U), info
    assert dd_error(c, a, b) <= info["bound"], info
    if info["split_parts"] > 1:
        return  # no count for the whole call: split by exponent band, which the reference is not
    ri = {}
    ref, fb = reference.ozaki2(a, b, moduli="auto", info=ri)
    assert fb is None and (ri["moduli"], ri["bound"]) == (info["moduli"], info["bound"])
    assert np.array_equal(ref, c)
