"""gelsd's bidiagonal least-squares solve (native/src/lapack/lapack_lalsd.c through
ozblas.lapack.gelsd): the explicit route (the bidiagonal's singular vectors by the divide and
conquer with product merges, then X_B = V_B S^+ U_B^T C as two products) from 8 nrhs >=
min(m, n) (2 nrhs for complex C), the host dlalsd below.

Both routes on either side of the crossover, upper (tall) and lower (wide) bidiagonals, d and
z, orders above LAPACK's leaf size 25 (the merges as products) and below, each held to the
host gelsd by test_lapack_lstsq's checks (singular values against mpmath's, the normal
equations, the rank, the solution within kappa u of native's). dlalsd's truncation rule
(rcond <= 0 or >= 1 means machine epsilon, s_i <= rcond s_1 counts as zero) on singular
values a factor of two apart: the rank equals native's for rcond -1, 0, 1, 2 and inside
gaps of the spectrum, and the solution is native's within the conditioning of the rank kept.
"""

import numpy as np
import pytest
from test_lapack_lstsq import EMU, _check, _rhs
from test_lapack_svd import _matrix, _orthonormal

from ozblas import lapack as L

DTYPES = [np.float64, np.complex128]


def _products(a, b):
    L.gelsd(a, b, cond=-1.0, **EMU)
    return L.last_report()["products"]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(40, 40), (90, 30), (30, 90), (20, 14)])
def test_lalsd_both_routes(dt, shape):
    """nrhs just below and at the crossover (8 nrhs = min(m, n) real columns): the explicit
    route issues the merges' and the two solve products on top of the same driver's."""
    a, sref = _matrix("random", *shape, dt)
    k = min(shape)
    at = -(-k // (16 if dt == np.complex128 else 8))  # the fewest columns taking it
    rng = np.random.default_rng(list(shape))
    counts = []
    for nrhs in (at - 1, at) if at > 1 else (at,):
        b = _rhs(rng, max(shape), nrhs, dt)
        _check("gelsd", dt, a, sref, b, -1.0, f"{shape} nrhs {nrhs}")
        counts.append(_products(a, b))
    if len(counts) == 2:
        assert counts[1] >= counts[0] + 2, counts


def _spread(m, n, dt):
    """A with singular values 2^0, 2^-1, ..., exact in binary, and their values."""
    rng = np.random.default_rng([m, n, dt == np.complex128])
    k = min(m, n)
    sv = np.ldexp(1.0, -np.arange(k))
    a = np.asfortranarray((_orthonormal(m, k, dt, rng) * sv) @ _orthonormal(n, k, dt, rng).conj().T)
    return a, sv


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(60, 30), (30, 45)])
def test_lalsd_rcond_rule(dt, shape):
    """dlalsd's rule on the explicit route: rcond <= 0 or >= 1 is machine epsilon (every
    value kept here), else the values above rcond s_1; rcond midway between 2^-j and 2^-j-1
    keeps j + 1 of them."""
    a, sv = _spread(*shape, dt)
    b = _rhs(np.random.default_rng(7), max(shape), 8, dt)
    for cond, rank in [(-1.0, len(sv)), (0.0, len(sv)), (1.0, len(sv)), (2.0, len(sv)),
                       (0.75 * 2.0**-5, 6), (0.75 * 2.0**-20, 21)]:
        x, s, r, info = L.gelsd(a, b, cond=cond, **EMU)
        assert info == 0 and r == rank, (cond, r, rank)
        _check("gelsd", dt, a, sv, b, cond, f"{shape} cond {cond:.3g}")
