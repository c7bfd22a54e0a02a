"""The tridiagonal divide and conquer (native/src/lapack/lapack_stedc.c through
ozblas.lapack.stedc), each merge's eigenvector update a product.

Small blocks (nb 8: leaves of at most 8 by the host dstedc) so that small orders have several
levels of merges, emulation forced (Ozaki II) and native products. Each result is held to the
host LAPACK's dstedc on the same input (SciPy's dstevd: dstedc for a matrix in range): the
residual ||T Z - Z W|| / (||T|| n u) and the orthogonality ||Z^T Z - I|| / (n u) at most 4x the
host's plus 0.5 (in those units); the eigenvalues within 4x the host's error plus 0.5 against
mpmath's where those are exact (the 1-2-1 matrix) or affordable, else within 2 n u ||T|| of
the host's (both are backward stable: each eigenvalue is off by at most c u ||T||).
"""

import mpmath
import numpy as np
import pytest
import scipy.linalg.lapack as la
from hypothesis import given, settings, strategies as st

from ozblas import lapack as L

U = 2.0**-53
NB = 8
METHODS = ["ozaki2", "native"]
STRUCTURES = ["random", "wilkinson", "clustered", "toeplitz", "graded", "diagonal",
              "nearly_diagonal"]


def _wilkinson(n, glue):
    """Glued Wilkinson W21+ matrices (LAPACK's test of close eigenvalue pairs): copies of
    d = |i - 10|, e = 1, joined by off-diagonal entries glue, cut to order n."""
    d = np.tile(np.abs(np.arange(21.0) - 10.0), n // 21 + 1)[:n]
    e = np.ones(max(n - 1, 0))
    e[20::21] = glue
    return d, e


def _tridiagonal(structure, n, seed=5):
    rng = np.random.default_rng([seed, n, STRUCTURES.index(structure)])
    if structure == "random":
        return rng.uniform(-1, 1, n), rng.uniform(-1, 1, max(n - 1, 0))
    if structure == "wilkinson":
        return _wilkinson(n, 1e-8)
    if structure == "clustered":  # eigenvalues within 4e-10 of 1: deflation by rotations
        return 1.0 + 1e-12 * rng.uniform(-1, 1, n), 1e-10 * rng.uniform(0.5, 1, max(n - 1, 0))
    if structure == "toeplitz":
        return np.full(n, 2.0), np.ones(max(n - 1, 0))
    if structure == "graded":
        k = np.arange(n)
        return np.ldexp(1.0, -(k // 2)), np.ldexp(1.0, -(k[:-1] // 2) - 1)
    d = rng.uniform(1, 2, n) * rng.choice([-1.0, 1.0], n)
    if structure == "diagonal":
        return d, np.zeros(max(n - 1, 0))
    # above dstedc's split (eps sqrt|d_i d_i+1|, eps = u) yet deflated by every merge
    return d, 2 * U * np.sqrt(np.abs(d[:-1] * d[1:]))


def _exact(structure, n):
    """Eigenvalues exact to double precision, where known: the 1-2-1 matrix's
    2 - 2 cos(k pi / (n + 1)), by mpmath."""
    if structure != "toeplitz":
        return None
    mpmath.mp.dps = 40
    return np.sort([float(2 - 2 * mpmath.cos(k * mpmath.pi / (n + 1))) for k in range(1, n + 1)])


def _errors(d, e, w, z):
    n = d.shape[0]
    t = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
    nt = max(np.linalg.norm(t, 2), np.finfo(float).tiny)
    return {"residual": np.linalg.norm(t @ z - z * w) / (nt * n * U),
            "orthogonality": np.linalg.norm(z.T @ z - np.eye(n)) / (n * U)}, nt


def _host(d, e):
    w, z, info = la.dstevd(d, e if d.shape[0] > 1 else np.zeros(1))
    assert info == 0
    return w, z


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("structure", STRUCTURES)
@pytest.mark.parametrize("n", [1, 2, NB, NB + 1, 37, 64, 105, 257])
def test_against_host_dstedc(method, structure, n):
    d, e = _tridiagonal(structure, n)
    w, z, info = L.stedc(d, e, method=method, nb=NB)
    assert info == 0
    rep = L.last_report()
    wh, zh = _host(d, e)
    ours, nt = _errors(d, e, w, z)
    host, _ = _errors(d, e, wh, zh)
    for k, v in ours.items():
        assert v <= 4 * host[k] + 0.5, f"{k}: {v:.3g} vs host {host[k]:.3g}"
    exact = _exact(structure, n)
    if exact is not None:
        err = np.max(np.abs(w - exact)) / (nt * n * U)
        err_host = np.max(np.abs(wh - exact)) / (nt * n * U)
        assert err <= 4 * err_host + 0.5, (err, err_host)
    assert np.max(np.abs(w - wh), initial=0.0) <= 2 * n * U * nt
    assert np.all(np.diff(w) >= 0)
    if structure == "nearly_diagonal" or n <= NB:
        assert rep["products"] == 0  # every merge deflated everything; or one host dstedc
    elif structure in ("random", "toeplitz") and n > 2 * NB:
        assert rep["products"] > 0
        assert (rep["emulated"] == rep["products"]) == (method == "ozaki2")


@pytest.mark.parametrize("n", [NB + 1, 64, 200])
def test_compz_v_and_n(n):
    """compz "V": Z := Q Z_T for an orthogonal Q (a reduction's), so that Q T Q^T = Z W Z^T;
    compz "N": the eigenvalues alone (the host dsterf) agree with "I"'s."""
    rng = np.random.default_rng(n)
    d, e = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n - 1)
    q, _ = np.linalg.qr(rng.uniform(-1, 1, (n, n)))
    w, z, info = L.stedc(d, e, q, compz="V", method="ozaki2", nb=NB)
    assert info == 0
    a = q @ (np.diag(d) + np.diag(e, 1) + np.diag(e, -1)) @ q.T
    na = np.linalg.norm(a, 2)
    assert np.linalg.norm(a @ z - z * w) / (na * n * U) < 10
    assert np.linalg.norm(z.T @ z - np.eye(n)) / (n * U) < 10
    w0, z0, info = L.stedc(d, e, compz="N", nb=NB)
    assert info == 0 and z0 is None
    assert np.max(np.abs(w - w0)) <= 2 * n * U * na


def test_threads_give_the_same_bits():
    """The secular equations, z's recomputation and the normalization spread over host
    threads: the bits of one thread (the products are the executor's, deterministic too)."""
    d, e = _tridiagonal("random", 300)
    one = L.stedc(d, e, method="native", nb=32, threads=1)
    for t in (2, 3):
        many = L.stedc(d, e, method="native", nb=32, threads=t)
        for u, v in zip(one[:2], many[:2]):
            assert np.array_equal(u.view(np.uint64), v.view(np.uint64))


def test_arguments():
    with pytest.raises(ValueError, match="compz"):
        L.stedc(np.ones(3), np.ones(2), compz="X")
    with pytest.raises(ValueError, match="needs z"):
        L.stedc(np.ones(3), np.ones(2), compz="V")
    with pytest.raises(ValueError, match="z must have shape"):
        L.stedc(np.ones(3), np.ones(2), np.eye(2), compz="V")
    with pytest.raises(ValueError, match="e must have"):
        L.stedc(np.ones(3), np.ones(1))
    w, z, info = L.stedc(np.zeros(0), np.zeros(0))
    assert info == 0 and w.shape == (0,) and z.shape == (0, 0)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(NB + 1, 120), seed=st.integers(0, 2**16), scale=st.integers(-30, 30),
       glue=st.sampled_from([0.0, 1e-12, 1e-6, 1.0]))
def test_glued_blocks_property(n, seed, scale, glue):
    """Any order and scale, blocks of integer entries glued by small off-diagonal entries
    (repeated eigenvalues across blocks, heavy deflation): the backward error and the
    orthogonality within 4x the host dstedc's plus 0.5 (n u units)."""
    rng = np.random.default_rng(seed)
    d = rng.integers(-3, 4, n).astype(float) * 2.0**scale
    e = rng.integers(-2, 3, n - 1).astype(float) * 2.0**scale
    e[rng.integers(0, 2, n - 1) == 0] = glue * 2.0**scale
    w, z, info = L.stedc(d, e, method="ozaki2", nb=NB)
    assert info == 0
    ours, _ = _errors(d, e, w, z)
    host, _ = _errors(d, e, *_host(d, e))
    for k, v in ours.items():
        assert v <= 4 * host[k] + 0.5, f"{k}: {v:.3g} vs host {host[k]:.3g}"
