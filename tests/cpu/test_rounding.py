"""Rounded once means once, also at the bottom and the top of the range (issue 13 row 8).

Ozaki II forms the exact integer X of every entry and converts X 2^shift to double with one
rounding (oz2_limbs_to_double); Ozaki I sums its terms in FP64 and rounds the sum once into
the subnormal range (oz1_acc_scale / oz1_accumulate_last). Inputs: full 53-bit significands
(so products need about 106 bits and a second rounding shows), scaled so that the exact
products land in the subnormal range, at the subnormal/normal boundary, in the normal range
and at the overflow threshold; d and z; every method; both executors' C code (CPU here, the
CUDA code through the emulation harness) and the NumPy references.
"""

import numpy as np
import pytest

import ozblas
from ozblas import reference
from ozblas.testing import err_ab, exact_matmul

VARIANTS = ("bitmask", "rn", "ef", "hybrid")
# exponents of the two inputs, so that the exact products land in each region
REGIONS = {"subnormal": (-540, -537), "boundary": (-520, -505), "normal": (-20, 10),
           "overflow": (511, 510)}


def _full(shape, e, rng, cplx):
    """+-(1 + u 2^-52) 2^(e + 0..2): every significand bit may be set."""
    def part():
        u = rng.integers(0, 2**52, shape).astype(np.float64)
        sign = np.where(rng.random(shape) < 0.5, -1.0, 1.0)
        return np.ldexp(sign * (1.0 + u * 2.0**-52), e + rng.integers(0, 3, shape))
    return part() + 1j * part() if cplx else part()


def _pair(region, k, cplx, seed=0):
    rng = np.random.default_rng(seed)
    ea, eb = REGIONS[region]
    return _full((6, k), ea, rng, cplx), _full((k, 5), eb, rng, cplx)


@pytest.mark.parametrize("cplx", [False, True], ids=["d", "z"])
def test_issue_example_rounds_once_every_method(cplx):
    """(1 + 2^-52) 2^-538 * (1 - 2^-53) 2^-537 is just above half of 2^-1074: 5e-324, as
    native and the oracle; Ozaki I and II gave 0.0 (a 53-bit rounding, then ldexp)."""
    a = np.array([[(1 + 2**-52) * 2.0**-538]])
    b = np.array([[(1 - 2**-53) * 2.0**-537]])
    if cplx:
        a, b = a + 0j, b * (1 + 0j)
    want = exact_matmul(a, b)
    assert want.real[0, 0] == 5e-324
    runs = [dict(method="native"), dict(method="auto")]
    runs += [dict(method="ozaki2", moduli=n, scaling=s) for n in (16, 20) for s in ("accurate", "fast")]
    runs += [dict(method="ozaki1", slices=s, variant=v) for s in (11, 20) for v in VARIANTS]
    for kw in runs:
        c, info = ozblas.matmul(a, b, return_info=True, **kw)
        assert np.array_equal(c, want), (kw, c, info)
    for n in (16, 20):
        assert np.array_equal(reference.ozaki2(a, b, moduli=n)[0], want)
    for v in VARIANTS:
        assert np.array_equal(reference.ozaki1(a, b, slices=20, variant=v)[0], want)


@pytest.mark.parametrize("cplx", [False, True], ids=["d", "z"])
@pytest.mark.parametrize("region", sorted(REGIONS))
@pytest.mark.parametrize("k", [1, 3])
def test_ozaki2_is_the_exact_product_rounded_once(region, k, cplx):
    """With 20 moduli the scaling keeps every bit of these inputs, so Ozaki II's X is the
    exact integer product: the result must be exact_matmul's, bit for bit, in every region
    (near overflow too, where a part that overflows stays Inf in that part alone)."""
    a, b = _pair(region, k, cplx)
    want = exact_matmul(a, b)
    for scaling in ("accurate", "fast"):
        c, info = ozblas.matmul(a, b, method="ozaki2", moduli=20, scaling=scaling, return_info=True)
        assert info["fallback"] is None and np.array_equal(c, want), (scaling, info)
        ref, why = reference.ozaki2(a, b, moduli=20, scaling=scaling)
        assert why is None and np.array_equal(ref, c)


def _round_to(x, shift):
    """x 2^shift rounded once (np.ldexp rounds correctly into the subnormal range), and
    whether x 2^shift lies halfway between two results (a tie the last addition's error
    breaks, which only the scaled computation knows)."""
    r = np.ldexp(x, shift)
    half = np.ldexp(1.0, -1075 - shift)
    return r, np.abs(x - np.ldexp(r, -shift)) == half


@pytest.mark.parametrize("cplx", [False, True], ids=["d", "z"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_ozaki1_sums_as_in_the_normal_range_then_rounds_once(variant, cplx):
    """No loss beyond Ozaki I's FP64 sums: the same inputs scaled down by 2^t (into products
    at and below 2^-1022) give the normal-range result scaled by 2^-t and rounded once,
    never a term or partial sum rounded into the subnormal range on the way."""
    a, b = _pair("normal", 3, cplx, seed=1)
    c_n = ozblas.matmul(a, b, method="ozaki1", slices=20, variant=variant)
    for t in (1012, 1018, 1040, 1060, 1075):
        ta, tb = t // 2, t - t // 2
        at, bt = np.ldexp(a.real, -ta), np.ldexp(b.real, -tb)
        if cplx:
            at, bt = at + 1j * np.ldexp(a.imag, -ta), bt + 1j * np.ldexp(b.imag, -tb)
        c_t, info = ozblas.matmul(at, bt, method="ozaki1", slices=20, variant=variant, return_info=True)
        assert info["fallback"] is None
        ref, why = reference.ozaki1(at, bt, slices=20, variant=variant)
        assert why is None and np.array_equal(ref, c_t)
        for part in ((np.real, np.imag) if cplx else (np.real,)):
            want, tie = _round_to(part(c_n), -t)
            got = part(c_t)
            ok = (got == want) | (tie & (np.abs(got - want) <= 5e-324))
            assert ok.all(), (t, got[~ok], want[~ok])


@pytest.mark.parametrize("cplx", [False, True], ids=["d", "z"])
def test_ozaki1_near_overflow_is_summed_scaled_down(cplx):
    """Partial FP64 sums could overflow where the product need not: they are summed at a
    lower scale (oz1_acc_scale) and brought back exactly, no fallback, the reference's bits."""
    a, b = _pair("overflow", 3, cplx)
    exact = exact_matmul(a, b)
    for v in VARIANTS:
        c, info = ozblas.matmul(a, b, method="ozaki1", slices=20, variant=v, return_info=True)
        assert info["fallback"] is None
        ref, why = reference.ozaki1(a, b, slices=20, variant=v)
        assert why is None and np.array_equal(ref, c)
        assert np.array_equal(np.isinf(c), np.isinf(exact))
        assert err_ab(c, exact, a, b) <= 4 * 2.0**-53, v


def test_native_single_products_are_the_oracle():
    """k = 1 real: one multiply per entry, so native is the oracle in every region (a check
    of the inputs and the oracle themselves)."""
    for region in REGIONS:
        a, b = _pair(region, 1, False)
        with np.errstate(over="ignore"):
            assert np.array_equal(ozblas.matmul(a, b, method="native"), exact_matmul(a, b))
