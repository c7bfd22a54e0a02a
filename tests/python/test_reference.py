"""The NumPy reference (ozblas.reference) and the C CPU executor agree bit for bit."""

import numpy as np
import pytest

import ozblas
from ozblas import reference
from ozblas.testing import make_matrix


def bits(x):
    return np.ascontiguousarray(x).view(np.uint64)


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("scaling", ["fast", "accurate"])
@pytest.mark.parametrize("shape", [(1, 1, 1), (5, 7, 3), (17, 33, 9), (12, 300, 10)])
@pytest.mark.parametrize("moduli", [6, 12, 16, 20])
def test_reference_equals_c_executor(cplx, scaling, shape, moduli):
    m, k, n = shape
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(m, k, 1.0, seed=m + k, dtype=dt)
    b = make_matrix(k, n, 1.0, seed=n, dtype=dt)
    ref, fallback = reference.ozaki2(a, b, moduli=moduli, scaling=scaling)
    c, info = ozblas.matmul(a, b, method="ozaki2", moduli=moduli, scaling=scaling, executor="cpu",
                            return_info=True)
    assert fallback == info["fallback"]
    if fallback is None:
        assert np.array_equal(bits(ref), bits(c))


@pytest.mark.parametrize("cplx", [False, True])
def test_reference_alpha_beta_transposes(cplx):
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(9, 11, 2.0, seed=1, dtype=dt)
    b = make_matrix(8, 11, 2.0, seed=2, dtype=dt)  # used transposed
    c0 = make_matrix(9, 8, 2.0, seed=3, dtype=dt)
    alpha, beta = (0.3 - 1.1j, 2.5 + 0.5j) if cplx else (0.3, -2.5)
    f = ozblas.zgemm if cplx else ozblas.dgemm
    trans_b = 2 if cplx else 1
    opb = b.conj().T if cplx else b.T
    c = f(alpha, a, b, beta, c0, 0, trans_b, method="ozaki2", moduli=15, executor="cpu")
    ref, fallback = reference.ozaki2(a, opb, moduli=15, alpha=alpha, beta=beta, c=c0)
    assert fallback is None
    assert np.array_equal(bits(ref), bits(c))


def test_reference_reports_fallbacks():
    a = make_matrix(3, 3, 0.5)
    a[0, 0] = np.nan
    assert reference.ozaki2(a, a)[1] == "nonfinite input"
    a[0, 0] = 1e300
    a[0, 1] = 1e-300
    assert reference.ozaki2(a, a)[1] == "exponent range beyond the scaling"


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("scaling", ["fast", "accurate"])
@pytest.mark.parametrize("phi", [0.0, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("shape", [(1, 1, 1), (17, 33, 9), (12, 300, 10)])
def test_reference_auto_precision_equals_c_executor(cplx, scaling, phi, shape):
    """Automatic precision: the same count, the same bound (to the bit) and the same result."""
    m, k, n = shape
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(m, k, phi, seed=3 * m + k, dtype=dt)
    b = make_matrix(k, n, phi, seed=n + 1, dtype=dt)
    if m > 1:
        a[1] = 0.0          # a zero row: exact zeros, never binding
        a[0, 0] *= 2.0**40  # one large element in a row
    info_ref = {}
    ref, fallback = reference.ozaki2(a, b, moduli="auto", scaling=scaling, info=info_ref)
    c, info = ozblas.matmul(a, b, method="ozaki2", moduli="auto", scaling=scaling, executor="cpu",
                            return_info=True)
    assert fallback == info["fallback"]
    assert info["bound"] == info_ref["bound"]
    if fallback is None:
        assert info["moduli"] == info_ref["moduli"]
        assert np.array_equal(bits(ref), bits(c))
