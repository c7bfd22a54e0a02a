"""Bunch-Kaufman sytrf/sytrs/sytri/sysv and hetrf/hetrs/hetri/hesv of the LAPACK layer
(native/src/lapack/lapack_sytrf.c) through ozblas.lapack.

Emulation forced (Ozaki II), small blocks (NB) so that every size crosses block
boundaries. The factors are read back with SciPy's own ldl helpers (so SciPy's ldl accepts
them) and held to native LAPACK's error on the same inputs: ||A - P L D L^T P^T|| / ||A||,
the solve's backward error and ||inv(A) A - I|| / cond(A), at most 4x native plus 1e-15.
Real symmetric, complex symmetric and Hermitian; upper and lower; indefinite, exactly
singular and zero-diagonal (2x2 pivots forced) inputs.
"""

import numpy as np
import pytest
import scipy.linalg.lapack as la
from hypothesis import given, settings, strategies as st
from scipy.linalg._decomp_ldl import (_ldl_construct_tri_factor, _ldl_get_d_and_l,
                                      _ldl_sanitize_ipiv)

from ozblas import lapack as L
from ozblas._native import ffi, lib
from ozblas.api import _context, _options
from ozblas.testing import standard_normal

NB = 8
SIZES = [1, NB - 1, NB, NB + 1, 3 * NB + 5]
EMU = dict(method="ozaki2", nb=NB)
KINDS = ["d", "zsy", "zhe"]  # real symmetric, complex symmetric, Hermitian


def _nrm(x):
    return np.linalg.norm(x, 1)


def _within(err, native, what):
    assert err <= 4 * native + 1e-15, f"{what}: {err:.3e} vs native {native:.3e}"


def _sym(rng, n, kind):
    a = standard_normal(rng, (n, n))
    if kind != "d":
        a = a + 1j * standard_normal(rng, (n, n))
    return a + (a.conj().T if kind == "zhe" else a.T)


def _ours(kind, name):
    return getattr(L, ("he" if kind == "zhe" else "sy") + name)


def _native(kind, name):
    return getattr(la, {"d": "dsy", "zsy": "zsy", "zhe": "zhe"}[kind] + name)


def _full(tri, lower, kind):
    """The whole matrix from its referenced triangle."""
    t = np.tril(tri) if lower else np.triu(tri)
    off = np.tril(tri, -1) if lower else np.triu(tri, 1)
    if kind == "zhe":
        return t + off.conj().T - np.diag(np.diag(t).imag) * 1j
    return t + off.T


def _ldl_error(a, ldu, ipiv, lower, kind):
    herm = kind == "zhe"
    swap, piv = _ldl_sanitize_ipiv(ipiv, lower=lower)
    d, lu = _ldl_get_d_and_l(ldu, piv, lower=lower, hermitian=herm)
    lu, _ = _ldl_construct_tri_factor(lu, swap, piv, lower=lower)
    return _nrm(a - lu @ d @ (lu.conj().T if herm else lu.T)) / _nrm(a)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n,zero_diagonal", [(n, z) for n in SIZES for z in (0, 1) if n > 1 or not z])
@pytest.mark.parametrize("lower", [0, 1])
def test_factor_solve_inverse(rng, kind, n, zero_diagonal, lower):
    """Indefinite input; with a zero diagonal, 2x2 pivots forced ([[0]] is singular: n > 1)."""
    a = _sym(rng, n, kind)
    if zero_diagonal:
        a[np.diag_indices(n)] = 0
    b = standard_normal(rng, (n, 3)) + (1j * standard_normal(rng, (n, 3)) if kind != "d" else 0)
    ldu, ipiv, info = _ours(kind, "trf")(a, lower=lower, **EMU)
    rep = L.last_report()
    nldu, nipiv, ninfo = _native(kind, "trf")(a, lower=lower)
    assert info == ninfo == 0 and ipiv.dtype == np.int32 and ldu.dtype == a.dtype
    assert not zero_diagonal or (ipiv < 0).sum() >= 2
    _within(_ldl_error(a, ldu, ipiv, lower, kind), _ldl_error(a, nldu, nipiv, lower, kind),
            "||A - P L D L^T P^T|| / ||A||")
    if n > NB:
        assert rep["emulated"] > 0 and rep["method"] == "ozaki2" and rep["moduli"]
    else:
        assert rep["products"] == 0  # one panel
    x, info = _ours(kind, "trs")(ldu, ipiv, b, lower=lower, **EMU)
    nx, _ = _native(kind, "trs")(nldu, nipiv, b, lower=lower)
    berr = lambda x: _nrm(a @ x - b) / (_nrm(a) * _nrm(x) + _nrm(b))  # noqa: E731
    _within(berr(x), berr(nx), "sytrs backward error")
    ldu2, ipiv2, x2, info = _ours(kind, "sv")(a, b, lower=lower, **EMU)
    assert info == 0 and np.array_equal(ldu2, ldu) and np.array_equal(ipiv2, ipiv)
    assert np.array_equal(x2, x)
    inv, info = _ours(kind, "tri")(ldu, ipiv, lower=lower, **EMU)
    ninv, _ = _native(kind, "tri")(nldu, nipiv, lower=lower)
    cond = np.linalg.cond(a, 1)
    ierr = lambda v: _nrm(_full(v, lower, kind) @ a - np.eye(n)) / cond  # noqa: E731
    _within(ierr(inv), ierr(ninv), "||inv(A) A - I|| / cond(A)")
    # the other triangle is not referenced, hence unchanged
    other = (lambda m: np.triu(m, 1)) if lower else (lambda m: np.tril(m, -1))
    assert np.array_equal(other(inv), other(ldu))


@pytest.mark.parametrize("kind", KINDS)
def test_leading_dimension_larger_than_the_matrix(rng, kind):
    """The C API on matrices inside larger buffers: the same bits as the packed calls, the
    rows beyond n untouched."""
    n, pad = 3 * NB + 5, 5
    a = _sym(rng, n, kind)
    b = standard_normal(rng, (n, 3)) + 0 * a[:, :3]
    big, bb = (np.full((n + pad, m.shape[1]), 7.0, dtype=a.dtype, order="F") for m in (a, b))
    big[:n], bb[:n] = a, b
    p = {"d": "dsy", "zsy": "zsy", "zhe": "zhe"}[kind]
    ptr = lambda x: ffi.cast("double *", x.ctypes.data)  # noqa: E731
    ipiv = np.zeros(n, dtype=np.int64)
    info = ffi.new("int64_t *")
    o = _options("ozaki2", None, None, None, None)
    assert getattr(lib, f"ozblas_{p}sv")(_context(), b"L", n, 3, ptr(big), n + pad,
                                         ffi.cast("int64_t *", ipiv.ctypes.data), ptr(bb), n + pad,
                                         info, NB, o, ffi.NULL) == 0 and info[0] == 0
    ldu, piv, x, _ = _ours(kind, "sv")(a, b, lower=1, **EMU)
    assert np.array_equal(big[:n], ldu) and np.array_equal(ipiv, piv) and np.array_equal(bb[:n], x)
    assert np.all(big[n:] == 7.0) and np.all(bb[n:] == 7.0)


def test_bad_arguments_give_lapack_info():
    info = ffi.new("int64_t *")
    a = np.zeros((4, 4), order="F")
    ptr = ffi.cast("double *", a.ctypes.data)
    ipiv = ffi.new("int64_t[4]")
    assert lib.ozblas_dsytrf(_context(), b"X", 4, ptr, 4, ipiv, info, 0, ffi.NULL, ffi.NULL) == 1
    assert info[0] == -1
    assert lib.ozblas_zhetrf(_context(), b"L", 4, ptr, 3, ipiv, info, 0, ffi.NULL, ffi.NULL) == 1
    assert info[0] == -4
    assert lib.ozblas_dsytrs(_context(), b"U", 4, -1, ptr, 4, ipiv, ptr, 4, info, 0, ffi.NULL,
                             ffi.NULL) == 1 and info[0] == -3
    assert lib.ozblas_zsysv(_context(), b"U", 4, 1, ptr, 4, ipiv, ptr, 2, info, 0, ffi.NULL,
                            ffi.NULL) == 1 and info[0] == -8


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("lower", [0, 1])
def test_singular_gives_native_info(rng, kind, lower):
    n = 3 * NB + 5
    a = _sym(rng, n, kind)
    a[:, 11] = 0
    a[11, :] = 0
    ldu, ipiv, info = _ours(kind, "trf")(a, lower=lower, **EMU)
    nldu, nipiv, ninfo = _native(kind, "trf")(a, lower=lower)
    # the zero row may move with a 2x2 pivot (kp), so info is where it ends, as natively
    assert info == ninfo > 0 and np.array_equal(ipiv, nipiv)
    inv, info = _ours(kind, "tri")(ldu, ipiv, lower=lower, **EMU)
    assert info == _native(kind, "tri")(nldu, nipiv, lower=lower)[1] > 0  # the zero 1x1 pivot
    _, _, _, info = _ours(kind, "sv")(a, np.ones(n), lower=lower, **EMU)
    assert info == ninfo


def test_invalid_pivots_and_shapes(rng):
    a = _sym(rng, 20, "d")
    ldu, ipiv, _ = L.sytrf(a, **EMU)
    bad = ipiv.copy()
    bad[3] = 99
    x, info = L.sytrs(ldu, bad, np.ones(20), **EMU)  # ipiv's position, b untouched
    assert info == -6 and np.array_equal(x, np.ones(20))
    bad[3:5] = [-7, 5]  # a 2x2 pivot on one row only
    assert L.sytri(ldu, bad, **EMU)[1] == -5
    with pytest.raises(ValueError, match="square"):
        L.sytrf(np.ones((3, 4)))
    with pytest.raises(ValueError, match="piv must have 20 entries"):
        L.sytri(ldu, ipiv[:5])
    # nothing to do
    ldu, ipiv, info = L.sytrf(np.zeros((0, 0)), **EMU)
    assert ldu.shape == (0, 0) and ipiv.shape == (0,) and info == 0


def test_threads_do_not_change_bits(rng):
    for kind in ("d", "zhe"):
        a = _sym(rng, 3 * NB + 5, kind)
        one = _ours(kind, "trf")(a, threads=1, **EMU)
        two = _ours(kind, "trf")(a, threads=2, **EMU)
        assert all(np.array_equal(u, v) for u, v in zip(one, two))


def test_explain_sytrf():
    d = L.explain("sytrf", 1000, "d", "h200", nb=256)
    # panels of nb - 1 columns: updates after columns 255, 510, 765
    assert d["routine"] == "dsytrf" and [u["k"] for u in d["updates"]] == [255] * 3
    assert [u["m"] for u in d["updates"]] == [745, 490, 235] and 0.4 < d["update_share"] < 1


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 30), nb=st.integers(2, 9), kind=st.sampled_from(KINDS), lower=st.booleans(),
       structure=st.sampled_from(["random", "integers", "zero diagonal", "rank deficient"]),
       seed=st.integers(0, 2**32 - 1))
def test_bunch_kaufman_property(n, nb, kind, lower, structure, seed):
    """Any order and block size, inputs with ties (small integers), 2x2 pivots or exact
    singularity: a factorization SciPy's ldl reads back as accurately as native's, and the
    first pivot (chosen from unrounded values: ties broken as idamax breaks them, in A's
    order under either uplo) the same as native's."""
    rng = np.random.default_rng(seed)
    a = _sym(rng, n, kind)
    if structure == "integers":
        a = np.round(a * 2)
    elif structure == "zero diagonal":
        a[np.diag_indices(n)] = 0
    elif structure == "rank deficient" and n > 2:
        v = a[:, : n // 2]
        a = v @ (v.conj().T if kind == "zhe" else v.T)
    ldu, ipiv, info = _ours(kind, "trf")(a, lower=lower, method="ozaki2", nb=nb)
    nldu, nipiv, ninfo = _native(kind, "trf")(a, lower=lower)
    if not np.any(a):
        assert info == ninfo
        return
    _within(_ldl_error(a, ldu, ipiv, lower, kind), _ldl_error(a, nldu, nipiv, lower, kind),
            "||A - P L D L^T P^T|| / ||A||")
    first = 0 if lower else n - 1
    assert ipiv[first] == nipiv[first]
