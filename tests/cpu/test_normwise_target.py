"""Automatic precision's normwise target (ozblas_options.target = OZBLAS_TARGET_NORMWISE,
numerics/ozaki2.h "the normwise target"), the LAPACK layer's Householder products' target:
the CPU executor equals the NumPy reference bit for bit (count, bound, result), the stated
bound holds against the exact product (|C^ - C|_ij <= bound ||a_i||_2 ||b_j||_2 plus the final
rounding), and its count is a well-scaled product's (at most one modulus above the entrywise
target's there), far below the entrywise one where the entries span many binades
(eigenvector-like operands)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ozblas import reference
from ozblas._native import lib
from ozblas.api import _gemm, _options
from ozblas.testing import exact_matmul, make_matrix, standard_normal

U = 2.0**-53


def _call(a, b, target, method="ozaki2"):
    cplx = np.iscomplexobj(a) or np.iscomplexobj(b)
    dt = np.complex128 if cplx else np.float64
    o = _options(method, "auto" if method == "ozaki2" else None, None, "cpu", None,
                 slices="auto" if method == "ozaki1" else None)
    o.target = target
    c = np.zeros((a.shape[0], b.shape[1]), dtype=dt, order="F")
    rep = _gemm(1.0, a.astype(dt), b.astype(dt), 0.0, c, "N", "N", o, cplx)
    return c, rep


def _bits(x):
    return np.ascontiguousarray(x).view(np.uint64)


def _graded(m, k, seed, dt, span=300):
    """Rows whose entries span `span` binades (eigenvector-like), and ordinary columns."""
    rng = np.random.default_rng(seed)
    a = standard_normal(rng, (m, k)) * 2.0 ** rng.integers(-span, 1, (m, k)).astype(float)
    if dt == np.complex128:
        e = rng.integers(-span, 1, (m, k)).astype(float)
        a = a + 1j * standard_normal(rng, (m, k)) * 2.0**e
    return a


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("phi", [0.0, 1.0, 4.0])
@pytest.mark.parametrize("shape", [(1, 1, 1), (17, 33, 9), (12, 300, 10)])
def test_cpu_equals_reference(cplx, phi, shape):
    m, k, n = shape
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(m, k, phi, seed=3 * m + k, dtype=dt)
    b = make_matrix(k, n, phi, seed=n + 1, dtype=dt)
    if m > 1:
        a[1] = 0.0          # a zero row: exact zeros
        a[0, 0] *= 2.0**40  # one large element in a row
    info = {}
    ref, fallback = reference.ozaki2(a, b, moduli="auto", info=info, target="normwise")
    c, rep = _call(a, b, 1)
    assert fallback is None and rep["fallback"] is None
    assert rep["moduli"] == info["moduli"] and rep["bound"] == info["bound"]
    assert np.array_equal(_bits(ref), _bits(c))


@pytest.mark.parametrize("cplx", [False, True])
def test_ozaki1_count_equals_reference(cplx):
    dt = np.complex128 if cplx else np.float64
    a, b = _graded(14, 40, 1, dt, 60), _graded(40, 9, 2, dt, 60)
    info = {}
    reference.ozaki1(a, b, slices="auto", info=info, target="normwise")
    _, rep = _call(a, b, 1, method="ozaki1")
    assert rep["slices"] == info["slices"] and rep["bound"] == info["bound"]


def _check_bound(a, b, c, rep):
    exact = exact_matmul(a, b)
    ra, rb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=0)
    scale = ra[:, None] * rb[None, :]
    err = np.abs(c - exact)
    allowed = rep["bound"] * scale * (1 + 1e-12) + 2 * U * np.abs(exact)
    ok = (scale == 0) & (err == 0) | (err <= allowed)
    assert ok.all(), float(np.max(err / np.where(scale > 0, scale, 1)))


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("span", [0, 60, 300])
def test_bound_holds_and_count_below_entrywise(cplx, span):
    dt = np.complex128 if cplx else np.float64
    a = _graded(24, 96, span + 1, dt, span)
    b = _graded(96, 16, span + 2, dt, span).T.copy().T  # columns span as much
    c, rep = _call(a, b, 1)
    _, rep_e = _call(a, b, 0)
    # the target u plus the final rounding (oz2_report_bound: doubled for complex)
    assert rep["fallback"] is None and rep["bound"] <= 1.001 * U * (3 if cplx else 2)
    _check_bound(a, b, c, rep)
    if rep_e["fallback"] is None:
        assert rep["moduli"] <= rep_e["moduli"] + 1
    assert rep["moduli"] <= 18  # a well-scaled product's count, whatever the span
    if span >= 300:
        assert rep_e["fallback"] is not None or rep_e["moduli"] >= rep["moduli"] + 5


@settings(max_examples=25, deadline=None)
@given(m=st.integers(1, 12), k=st.integers(1, 60), n=st.integers(1, 12), span=st.integers(0, 200),
       seed=st.integers(0, 2**16), cplx=st.booleans())
def test_bound_property(m, k, n, span, seed, cplx):
    dt = np.complex128 if cplx else np.float64
    a, b = _graded(m, k, seed, dt, span), _graded(k, n, seed + 1, dt, span)
    c, rep = _call(a, b, 1)
    assert rep["fallback"] is None
    _check_bound(a, b, c, rep)


def test_invalid_target_is_refused():
    a = np.ones((2, 2))
    o = _options("ozaki2", None, None, "cpu", None)
    o.target = 2
    with pytest.raises(Exception, match="INVALID_ARGUMENT"):
        _gemm(1.0, a, a, 0.0, np.zeros((2, 2), order="F"), "N", "N", o, False)
    assert lib.ozblas_ozaki2_max_moduli() >= 20
