"""The emulated QR iteration dhseqr and zhseqr (native/src/lapack/lapack_hseqr.c: small-bulge
multishift QR with aggressive early deflation, the windows' updates of H and Z as products),
through the drivers that call it: dgeev/zgeev and dgees/zgees.

With nb = NB the active block goes to the host whole at NB rows (at least 12), so the orders
below cross that threshold, the shift counts' steps (2 shifts below 30 rows, 4 below 60, 10
below 150, n / log2 n beyond) and the windows' sizes. Each result is held to native LAPACK's on the same input
(SciPy's dgeev/dgees) by the backward errors ||A V - V diag(w)|| / (||A|| ||V||), ||Z^T A Z - T||
/ ||A|| and ||Z^T Z - I|| in units of n u: at most 4x native's plus 2; T quasi-triangular with
standardized 2 x 2 blocks; the eigenvalues matched to native's as sets within the first-order
bound (test_lapack_geev's measures). z: the same measures against SciPy's zgeev/zgees, T upper
triangular with w its diagonal, on test_lapack_geev's kinds in complex and a Hermitian-ish kind
(a Hermitian matrix plus a small non-Hermitian part: clustered real eigenvalues)."""

import numpy as np
import pytest
import scipy.linalg.lapack as la
from hypothesis import given, settings
from hypothesis import strategies as st

from ozblas import lapack as L
from ozblas.testing import make_matrix
from test_lapack_geev import KINDS, U, _matrix, _schur_measures, _unpack, against_native

NB = 8
EMU = dict(method="ozaki2", nb=NB)


def _quasi_triangular(t, wr, wi):
    """T upper quasi-triangular, its 2 x 2 blocks standardized, wr/wi read off them"""
    assert not np.tril(t, -2).any()
    sub = np.diag(t, -1)
    assert not np.any((sub[:-1] != 0) & (sub[1:] != 0))  # no two adjacent: blocks of 2 at most
    for i in np.nonzero(sub)[0]:
        b = t[i:i + 2, i:i + 2]
        assert b[0, 0] == b[1, 1] == wr[i] == wr[i + 1] and b[0, 1] * b[1, 0] < 0
        assert wi[i] > 0 and wi[i] == -wi[i + 1]
    assert np.array_equal(wr[wi == 0], np.diag(t)[wi == 0])


ZKINDS = KINDS + ["hermitian_ish"]


def _zmatrix(kind, n, seed=3):
    if kind != "hermitian_ish":
        return _matrix(kind, n, np.complex128, seed=seed)
    b = make_matrix(n, n, 1.0, seed=seed + n, dtype=np.complex128)
    c = make_matrix(n, n, 1.0, seed=seed + n + 1, dtype=np.complex128)
    return np.asfortranarray((b + b.conj().T) / 2 + 1e-6 * c)


def _check(kind, n, seed=3, method="ozaki2", z=False):
    """gees and geev on kind (z: complex, _zmatrix's kinds) against native's"""
    a = _zmatrix(kind, n, seed) if z else _matrix(kind, n, np.float64, seed=seed)
    # gees: the Schur form and vectors
    r = L.gees(None, a, **dict(EMU, method=method))
    rep = L.last_report()
    nr = la.zgees(lambda x: None, a) if z else la.dgees(lambda x, y: None, a)
    t, vs, info, nt, nvs, ninfo = r[0], r[-3], r[-1], nr[0], nr[-3], nr[-1]
    assert info == ninfo == 0
    if n > NB:
        assert rep["products"] > 0 and (rep["emulated"] > 0) == (method != "native")
    if z and n >= 29:  # the iteration's windows among the products (gehrd, unghr: 19 n^3 of 100 n^3)
        assert rep["product_flops"] > 0.4 * rep["flops"]
    ours, native = _schur_measures(a, t, vs), _schur_measures(a, nt, nvs)
    for k, v in ours.items():
        assert v <= 4 * native[k] + 2.0, f"{kind} {n} {k}: {v:.3g} vs native {native[k]:.3g}"
    if z:
        assert not np.tril(t, -1).any() and np.array_equal(r[2], np.diag(t))
    else:
        _quasi_triangular(t, r[2], r[3])
    # geev: right and left vectors
    dt = np.complex128 if z else np.float64
    w, wi, vl, vr, info = _unpack(L.geev(a, **dict(EMU, method=method)), dt)
    nw, nwi, nvl, nvr, ninfo = _unpack((la.zgeev if z else la.dgeev)(a), dt)
    assert info == ninfo == 0
    against_native(f"{kind} {n}", a, (w, wi, vl, vr), (nw, nwi, nvl, nvr))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", [12, 13, 29, 30, 61])
def test_hseqr_kinds_around_thresholds(kind, n):
    _check(kind, n)


def test_hseqr_twenty_shifts():
    """n / log2 n shifts from 150 rows (20 here: a chain of 8 bulges and one of 2), native
    products: the algorithm's test"""
    _check("complex_pairs", 151, method="native")


@settings(max_examples=6, deadline=None)
@given(kind=st.sampled_from(KINDS), n=st.integers(9, 64), seed=st.integers(0, 2**16))
def test_hseqr_property(kind, n, seed):
    _check(kind, n, seed)


def test_hseqr_values_only_and_isolated_rows():
    """job 'E' (geev without vectors: only the active block's rows updated) gives the
    eigenvalues of the full run; a matrix gebal splits (zero rows and columns: ilo > 1,
    ihi < n) keeps the isolated eigenvalues exactly"""
    a = _matrix("random", 40, np.float64)
    wr, wi, _, _, info = L.geev(a, compute_vl=0, compute_vr=0, **EMU)
    fwr, fwi, _, _, _ = L.geev(a, **EMU)
    assert info == 0
    assert np.allclose(np.sort_complex(wr + 1j * wi), np.sort_complex(fwr + 1j * fwi),
                       rtol=0, atol=1e3 * 40 * U * np.linalg.norm(a))
    b = np.zeros((44, 44))
    b[2:42, 2:42] = a
    b[0, 0], b[1, 1], b[42, 42], b[43, 43] = 7.0, -3.0, 0.25, 5.0
    b[0, 5], b[30, 43] = 1.0, 2.0
    t, sdim, wr, wi, vs, work, info = L.gees(None, np.asfortranarray(b), **EMU)
    assert info == 0
    for v in (7.0, -3.0, 0.25, 5.0):
        assert np.any((wr == v) & (wi == 0))
    ours = _schur_measures(b, t, vs)
    assert ours["schur"] <= 50 and ours["orth"] <= 50


# ---- z: zhseqr through zgees and zgeev -------------------------------------------------------

@pytest.mark.parametrize("kind", ZKINDS)
@pytest.mark.parametrize("n", [12, 13, 29, 30, 61])
def test_zhseqr_kinds_around_thresholds(kind, n):
    _check(kind, n, z=True)


def test_zhseqr_twenty_shifts():
    """n / log2 n shifts from 150 rows (20 here: a chain of 8 bulges and one of 2), native
    products: the algorithm's test"""
    _check("random", 151, method="native", z=True)


@settings(max_examples=6, deadline=None)
@given(kind=st.sampled_from(ZKINDS), n=st.integers(9, 64), seed=st.integers(0, 2**16))
def test_zhseqr_property(kind, n, seed):
    _check(kind, n, seed, z=True)


def test_zhseqr_values_only_and_isolated_rows():
    """z as the d test above: job 'E' gives the full run's eigenvalues; gebal's isolated rows
    keep their eigenvalues exactly"""
    a = _zmatrix("random", 40)
    w, _, _, info = L.geev(a, compute_vl=0, compute_vr=0, **EMU)
    fw, _, _, _ = L.geev(a, **EMU)
    assert info == 0
    assert np.allclose(np.sort_complex(w), np.sort_complex(fw), rtol=0,
                       atol=1e3 * 40 * U * np.linalg.norm(a))
    b = np.zeros((44, 44), dtype=np.complex128)
    b[2:42, 2:42] = a
    b[0, 0], b[1, 1], b[42, 42], b[43, 43] = 7.0 + 1j, -3.0, 0.25j, 5.0
    b[0, 5], b[30, 43] = 1.0, 2.0j
    t, sdim, w, vs, work, info = L.gees(None, np.asfortranarray(b), **EMU)
    assert info == 0
    for v in (7.0 + 1j, -3.0, 0.25j, 5.0):
        assert np.any(w == v)
    ours = _schur_measures(b, t, vs)
    assert ours["schur"] <= 50 and ours["orth"] <= 50


@pytest.mark.parametrize("dt", ["d", "z"])
@pytest.mark.parametrize("n", [200, 1024, 4096])
def test_chain_rule(dt, n):
    """hseqr's bulges per chain (lapack_model.c): one of ns / 2 and its halvings down to 4,
    the least predicted sweep time among them; a shorter chain predicts a shorter chase, and
    Ozaki II products on the CPU (dearer per flop as their inner dimension shrinks) never take a
    shorter chain than native ones."""
    nbm = L._hseqr_shifts(n) // 2
    allowed = {nbm} | {g for g in (nbm // 2, nbm // 4, nbm // 8, nbm // 16) if g >= 4}
    nat = L.hseqr_chain(n, dt, "native", "cpu", profile="cpu")
    emu = L.hseqr_chain(n, dt, "ozaki2", "cpu", profile="cpu")
    assert nat["chain"] in allowed and emu["chain"] in allowed
    assert nat["chain"] <= emu["chain"]
    assert nat["products"] > 0 and nat["chase"] > 0
    if nat["chain"] < emu["chain"]:
        assert nat["chase"] < L.hseqr_chain(n, dt, "ozaki2", "cpu", profile="cpu")["chase"]
