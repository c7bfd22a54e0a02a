"""ozblas.lapack and the blocked drivers of native/src/lapack (ozblas.h "LAPACK layer").

Emulation forced (Ozaki II), small blocks (NB) so that every size crosses block
boundaries: sizes 1, NB-1, NB, NB+1, 3NB+5. Each factorization, solve and inverse is held
to native LAPACK's own error on the same inputs (SciPy's wrappers, unrouted in this
process): at most 4x it plus 1e-15. The products themselves are checked against the exact
oracle in test_api; here trmm (a product) is, too.
"""

import numpy as np
import pytest
import scipy.linalg as sl
import scipy.linalg.lapack as la
from hypothesis import given, settings, strategies as st

from ozblas import lapack as L
from ozblas._native import ffi, lib
from ozblas.api import _context, _options
from ozblas.testing import exact_matmul, exp, standard_normal

NB = 8
SIZES = [1, NB - 1, NB, NB + 1, 3 * NB + 5]
EMU = dict(method="ozaki2", nb=NB)
DTYPES = [np.float64, np.complex128]


def _mat(rng, m, n, dt):
    a = standard_normal(rng, (m, n))
    if dt == np.complex128:
        a = a + 1j * standard_normal(rng, (m, n))
    return a


def _spd(rng, n, dt):
    a = _mat(rng, n, n, dt)
    return a @ a.conj().T + n * np.eye(n)


def _within(err, native, what):
    assert err <= 4 * native + 1e-15, f"{what}: {err:.3e} vs native {native:.3e}"


def _nrm(x):
    return np.linalg.norm(x, 1)


def _lu_error(a, lu, piv):
    m, n = a.shape
    k = min(m, n)
    l = np.tril(lu, -1)[:, :k] + np.eye(m, k)
    u = np.triu(lu)[:k, :]
    pa = a.copy()
    for i, p in enumerate(piv):
        pa[[i, p]] = pa[[p, i]]
    return _nrm(pa - l @ u) / _nrm(a)


def _native(name, dt):
    return getattr(la, ("z" if dt == np.complex128 else "d") + name)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("m,n", [(s, s) for s in SIZES] + [(29, 17), (17, 29)])
def test_getrf(rng, dt, m, n):
    a = _mat(rng, m, n, dt)
    lu, piv, info = L.getrf(a, **EMU)
    nlu, npiv, ninfo = _native("getrf", dt)(a)
    assert info == ninfo == 0
    assert lu.dtype == dt and piv.dtype == np.int32
    assert all(i <= p < m for i, p in enumerate(piv))  # LAPACK: row i swapped with a later one
    _within(_lu_error(a, lu, piv), _lu_error(a, nlu, npiv), "||PA - LU|| / ||A||")
    rep = L.last_report()
    if min(m, n) > NB:
        assert rep["emulated"] > 0 and rep["method"] == "ozaki2" and rep["moduli"]
    else:
        assert rep["products"] == 0  # one panel: the host routine alone


def _solve_error(a, x, b):
    return _nrm(a @ x - b) / (_nrm(a) * _nrm(x) + _nrm(b))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("trans", [0, 1, 2])
def test_getrs_gesv(rng, dt, n, trans):
    a = _mat(rng, n, n, dt) + 2 * np.eye(n)
    b = _mat(rng, n, 3, dt)
    lu, piv, info = L.getrf(a, **EMU)
    x, info = L.getrs(lu, piv, b, trans=trans, **EMU)
    nlu, npiv, _ = _native("getrf", dt)(a)
    nx, _ = _native("getrs", dt)(nlu, npiv, b, trans=trans)
    op = [a, a.T, a.conj().T][trans]
    _within(_solve_error(op, x, b), _solve_error(op, nx, b), "getrs backward error")
    if trans == 0:
        _, _, x2, info = L.gesv(a, b, **EMU)
        assert info == 0
        _within(_solve_error(a, x2, b), _solve_error(a, nx, b), "gesv backward error")
        x1, _ = L.getrs(lu, piv, b[:, 0], **EMU)  # a vector right-hand side stays a vector
        assert x1.shape == (n,)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("lower", [False, True])
def test_potrf_potrs_posv(rng, dt, n, lower):
    s = _spd(rng, n, dt)
    c, info = L.potrf(s, lower=lower, **EMU)
    nc, ninfo = _native("potrf", dt)(s, lower=lower)
    assert info == ninfo == 0

    def err(f):
        return _nrm(s - (f @ f.conj().T if lower else f.conj().T @ f)) / _nrm(s)

    _within(err(c), err(nc), "||A - U^H U|| / ||A||")
    if n > NB:
        assert L.last_report()["emulated"] > 0
    b = _mat(rng, n, 4, dt)
    x, _ = L.potrs(c, b, lower=lower, **EMU)
    nx, _ = _native("potrs", dt)(nc, b, lower=lower)
    _within(_solve_error(s, x, b), _solve_error(s, nx, b), "potrs backward error")
    _, x2, info = L.posv(s, b, lower=lower, **EMU)
    assert info == 0
    _within(_solve_error(s, x2, b), _solve_error(s, nx, b), "posv backward error")


def _inv_error(ai, a):
    return _nrm(ai @ a - np.eye(a.shape[0])) / np.linalg.cond(a, 1)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_inverses(rng, dt, n):
    a = _mat(rng, n, n, dt) + 3 * np.eye(n)
    lu, piv, _ = L.getrf(a, **EMU)
    ai, info = L.getri(lu, piv, **EMU)
    nlu, npiv, _ = _native("getrf", dt)(a)
    nai, _ = _native("getri", dt)(nlu, npiv)
    assert info == 0
    _within(_inv_error(ai, a), _inv_error(nai, a), "getri")
    s = _spd(rng, n, dt)
    for lower in (False, True):
        c, _ = L.potrf(s, lower=lower, **EMU)
        pi, info = L.potri(c, lower=lower, **EMU)
        nc, _ = _native("potrf", dt)(s, lower=lower)
        npi, _ = _native("potri", dt)(nc, lower=lower)

        def full(t):
            t = np.tril(t) if lower else np.triu(t)
            return t + np.tril(t, -1).conj().T if lower else t + np.triu(t, 1).conj().T

        assert info == 0
        _within(_inv_error(full(pi), s), _inv_error(full(npi), s), "potri")
    for lower in (False, True):
        for unit in (False, True):
            t = (np.tril(a) if lower else np.triu(a))
            ti, info = L.trtri(t, lower=lower, unitdiag=unit, **EMU)
            nti, _ = _native("trtri", dt)(t, lower=lower, unitdiag=unit)
            tt = t.copy()
            if unit:
                np.fill_diagonal(tt, 1)
                np.fill_diagonal(ti, 1)
                np.fill_diagonal(nti, 1)
            assert info == 0
            _within(_inv_error(ti, tt), _inv_error(nti, tt), "trtri")


def _op(a, t):
    return [a, a.T, a.conj().T][t]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("side", [0, 1])
@pytest.mark.parametrize("lower", [0, 1])
@pytest.mark.parametrize("trans", [0, 1, 2])
@pytest.mark.parametrize("diag", [0, 1])
def test_trsm_trmm_every_case(rng, dt, side, lower, trans, diag):
    n = 3 * NB + 5
    a = _mat(rng, n, n, dt) + 4 * np.eye(n)
    t = np.tril(a) if lower else np.triu(a)
    tt = t.copy()
    if diag:
        np.fill_diagonal(tt, 1)
    b = _mat(rng, n, 6, dt) if side == 0 else _mat(rng, 6, n, dt)
    alpha = 0.5 - 0.25j if dt == np.complex128 else 0.5
    x = L.trsm(alpha, t, b, side=side, lower=lower, trans_a=trans, diag=diag, **EMU)
    assert L.last_report()["emulated"] > 0
    pre = "z" if dt == np.complex128 else "d"
    nx = getattr(sl.blas, pre + "trsm")(alpha, t, b, side=side, lower=lower, trans_a=trans, diag=diag)
    op = _op(tt, trans)

    def err(y):
        r = op @ y - alpha * b if side == 0 else y @ op - alpha * b
        return _nrm(r) / (_nrm(op) * _nrm(y) + _nrm(alpha * b))

    _within(err(x), err(nx), "trsm backward error")
    # trmm is a product: held to the exact product rounded once (its blocks are emulated
    # products plus the host trmm's diagonal blocks, so a few roundings, not one)
    y = L.trmm(alpha, t, b, side=side, lower=lower, trans_a=trans, diag=diag, **EMU)
    ex = exact_matmul(op, b) if side == 0 else exact_matmul(b, op)
    ny = getattr(sl.blas, pre + "trmm")(alpha, t, b, side=side, lower=lower, trans_a=trans, diag=diag)
    scale = (np.abs(op) @ np.abs(b)) if side == 0 else (np.abs(b) @ np.abs(op))
    _within(np.max(np.abs(y - alpha * ex) / scale), np.max(np.abs(ny - alpha * ex) / scale), "trmm")


@pytest.mark.parametrize("dt", DTYPES)
def test_trtrs(rng, dt):
    n = 3 * NB + 5
    a = np.triu(_mat(rng, n, n, dt)) + 4 * np.eye(n)
    b = _mat(rng, n, 2, dt)
    for trans in (0, 1, 2):
        x, info = L.trtrs(a, b, trans=trans, **EMU)
        nx, _ = _native("trtrs", dt)(a, b, trans=trans)
        _within(_solve_error(_op(a, trans), x, b), _solve_error(_op(a, trans), nx, b), "trtrs")


@pytest.mark.parametrize("dt", DTYPES)
def test_singular_and_not_positive_definite_give_native_info(rng, dt):
    n = 3 * NB + 5
    a = _mat(rng, n, n, dt)
    a[:, 13] = 0  # a zero column: the pivot of column 13 is exactly zero
    assert L.getrf(a, **EMU)[2] == _native("getrf", dt)(a)[2] == 14
    r = np.arange(n * 4, dtype=float).reshape(n, 4) @ np.arange(4 * n, dtype=float).reshape(4, n)
    assert L.getrf(r.astype(dt), **EMU)[2] > 0 and _native("getrf", dt)(r.astype(dt))[2] > 0
    s = _spd(rng, n, dt)
    s[20, 20] = -1.0  # not positive definite from the 21st leading minor on (or earlier)
    assert L.potrf(s, **EMU)[1] == _native("potrf", dt)(s)[1] > 0
    t = np.triu(_mat(rng, n, n, dt))
    t[17, 17] = 0
    assert L.trtri(t, **EMU)[1] == _native("trtri", dt)(t)[1] == 18
    assert L.trtrs(t, _mat(rng, n, 1, dt), **EMU)[1] == 18
    lu, piv, _ = L.getrf(a, **EMU)
    assert L.getri(lu, piv, **EMU)[1] == 14


def test_leading_dimension_larger_than_the_matrix(rng):
    """The C API on a matrix inside a larger buffer: as accurate as native LAPACK, and the
    rows beyond m untouched. (Not the packed call's bits: the panels are the host LAPACK's,
    and some of OpenBLAS's kernels, Sandybridge's, round differently with another leading
    dimension.)"""
    m, n, pad = 29, 23, 5
    a = standard_normal(rng, (m, n))
    big = np.full((m + pad, n), 7.0, order="F")
    big[:m] = a
    ipiv = np.zeros(n, dtype=np.int64)
    info = ffi.new("int64_t *")
    o = _options("ozaki2", None, None, None, None)
    st = lib.ozblas_dgetrf(_context(), m, n, ffi.cast("double *", big.ctypes.data), m + pad,
                           ffi.cast("int64_t *", ipiv.ctypes.data), info, NB, o, ffi.NULL)
    assert st == 0 and info[0] == 0
    nlu, npiv, _ = la.dgetrf(a)
    _within(_lu_error(a, big[:m], ipiv[:n] - 1), _lu_error(a, nlu, npiv), "strided getrf")
    assert np.all(big[m:] == 7.0)
    b = standard_normal(rng, (n, 3))
    bb = np.full((n + pad, 3), 7.0, order="F")
    bb[:n] = b
    sq, sp, _ = L.getrf(a[:n], **EMU)  # a square factorization for the solve
    ip = (sp + 1).astype(np.int64)
    st = lib.ozblas_dgetrs(_context(), b"N", n, 3, ffi.cast("double *", sq.ctypes.data), n,
                           ffi.cast("int64_t *", ip.ctypes.data), ffi.cast("double *", bb.ctypes.data),
                           n + pad, info, NB, o, ffi.NULL)
    assert st == 0 and np.all(bb[n:] == 7.0)
    _within(_solve_error(a[:n], bb[:n], b), _solve_error(a[:n], L.getrs(sq, ip - 1, b, **EMU)[0], b),
            "strided getrs")


def test_bad_arguments_give_lapack_info():
    info = ffi.new("int64_t *")
    a = np.zeros((4, 4), order="F")
    p = ffi.cast("double *", a.ctypes.data)
    ipiv = ffi.new("int64_t[4]")
    assert lib.ozblas_dgetrf(_context(), 4, 4, p, 3, ipiv, info, 0, ffi.NULL, ffi.NULL) == 1
    assert info[0] == -4
    assert lib.ozblas_dpotrf(_context(), b"X", 4, p, 4, info, 0, ffi.NULL, ffi.NULL) == 1
    assert info[0] == -1
    assert lib.ozblas_dtrsm(_context(), b"L", b"U", b"N", b"Q", 4, 4, 1.0, p, 4, p, 4, info, 0,
                            ffi.NULL, ffi.NULL) == 1
    assert info[0] == -4
    with pytest.raises(ValueError, match="nb"):
        L.getrf(a, nb=0)
    with pytest.raises(ValueError, match="square"):
        L.potrf(np.zeros((3, 4)))


@pytest.mark.parametrize("dt", DTYPES)
def test_pivots_out_of_range_are_refused_in_c(rng, dt):
    """Issue 24: getrs and getri with a pivot outside 1..n (LAPACK's encoding) give info =
    -(ipiv's position), 6 and 4, with nothing changed, through the C API (so every caller)
    and ozblas.lapack (0-based piv there); they used to read and write outside the matrices.
    A NULL ipiv is refused the same way."""
    n = 3 * NB + 5
    a = _mat(rng, n, n, dt) + n * np.eye(n)
    lu, piv, info = L.getrf(a, **EMU)
    b = _mat(rng, n, 2, dt)
    good = L.getrs(lu, piv, b, **EMU)[0]
    for bad in (n, -1, 10**12, -(2**40)):
        p = piv.copy().astype(np.int64)
        p[n // 2] = bad
        x, info = L.getrs(lu, p, b, **EMU)
        assert info == -6 and np.array_equal(x, b), bad
        inv, info = L.getri(lu, p, **EMU)
        assert info == -4 and np.array_equal(inv, lu), bad
    assert np.allclose(L.getrs(lu, piv, b, **EMU)[0], good)
    z = dt == np.complex128
    info = ffi.new("int64_t *")
    f = np.asfortranarray(lu)
    x = np.asfortranarray(b)
    ptr = lambda v: ffi.cast("double *", v.ctypes.data)  # noqa: E731
    getrs, getri = (getattr(lib, f"ozblas_{'z' if z else 'd'}{r}") for r in ("getrs", "getri"))
    for ipiv in (ffi.NULL, ffi.new("int64_t[]", [n + 1] * n), ffi.new("int64_t[]", [0] * n)):
        assert getrs(_context(), b"N", n, 2, ptr(f), n, ipiv, ptr(x), n, info, NB, ffi.NULL,
                     ffi.NULL) == lib.OZBLAS_ERR_INVALID_ARGUMENT and info[0] == -6
        assert getri(_context(), n, ptr(f), n, ipiv, info, NB, ffi.NULL,
                     ffi.NULL) == lib.OZBLAS_ERR_INVALID_ARGUMENT and info[0] == -4
    assert np.array_equal(x, b) and np.array_equal(f, lu)


# Every ozblas.lapack routine with a bad value for each of its options: a ValueError naming
# the routine, the argument and the accepted values, before anything runs (issue 24).
def _bad_option_calls():
    a = np.eye(4) * 2.0
    b = np.ones((4, 2))
    piv = np.arange(4)
    tau = np.zeros(4)
    calls = []
    for name, call, arg, value, accepted in [
        ("getrs", lambda v: L.getrs(a, piv, b, trans=v), "trans", 5, "0, 1, 2"),
        ("getrs", lambda v: L.getrs(a, piv, b, trans=v), "trans", "T", "0, 1, 2"),
        ("potrf", lambda v: L.potrf(a, lower=v), "lower", 2, "0, 1"),
        ("potrf", lambda v: L.potrf(a, clean=v), "clean", -1, "0, 1"),
        ("potrs", lambda v: L.potrs(a, b, lower=v), "lower", "yes", "0, 1"),
        ("posv", lambda v: L.posv(a, b, lower=v), "lower", 1.5, "0, 1"),
        ("potri", lambda v: L.potri(a, lower=v), "lower", 7, "0, 1"),
        ("trtri", lambda v: L.trtri(a, unitdiag=v), "unitdiag", 3, "0, 1"),
        ("trtri", lambda v: L.trtri(a, lower=v), "lower", None, "0, 1"),
        ("trtrs", lambda v: L.trtrs(a, b, trans=v), "trans", 3, "0, 1, 2"),
        ("trtrs", lambda v: L.trtrs(a, b, unitdiag=v), "unitdiag", 2, "0, 1"),
        ("trsm", lambda v: L.trsm(1.0, a, b, side=v), "side", 2, "0, 1"),
        ("trsm", lambda v: L.trsm(1.0, a, b, trans_a=v), "trans_a", 3, "0, 1, 2"),
        ("trmm", lambda v: L.trmm(1.0, a, b, diag=v), "diag", 2, "0, 1"),
        ("trmm", lambda v: L.trmm(1.0, a, b, lower=v), "lower", -1, "0, 1"),
        ("geqrf", lambda v: L.geqrf(a, lwork=v), "lwork", -2, "-1"),
        ("orgqr", lambda v: L.orgqr(a, tau, lwork=v), "lwork", 2.5, "-1"),
        ("ormqr", lambda v: L.ormqr(v, "N", a, tau, b), "side", "X", "'L'"),
        ("ormqr", lambda v: L.ormqr("L", v, a, tau, b), "trans", "C", "'T'"),
        ("unmqr", lambda v: L.unmqr("L", v, a, tau, b), "trans", "T", "'C'"),
        ("symm", lambda v: L.symm(1.0, a, a, side=v), "side", 2, "0, 1"),
        ("hemm", lambda v: L.hemm(1.0, a, a, lower=v), "lower", 2, "0, 1"),
        ("syr2k", lambda v: L.syr2k(1.0, a, a, trans=v), "trans", 3, "0, 1, 2"),
        ("syr2k", lambda v: L.syr2k(1.0 + 1j, a, a, trans=v), "trans", 2, "0, 1"),
        ("her2k", lambda v: L.her2k(1.0, a, a, trans=v), "trans", 1, "0, 2"),
        ("sytrf", lambda v: L.sytrf(a, lower=v), "lower", 2, "0, 1"),
        ("hetrs", lambda v: L.hetrs(a, piv, b, lower=v), "lower", 2, "0, 1"),
        ("sysv", lambda v: L.sysv(a, b, lower=v), "lower", 9, "0, 1"),
        ("sygst", lambda v: L.sygst(a, a, lower=v), "lower", "U", "0, 1"),
        ("sygst", lambda v: L.sygst(a, a, lower=v), "lower", 2, "0, 1"),
        ("hegst", lambda v: L.hegst(a, a, lower=v), "lower", -1, "0, 1"),
    ]:
        calls.append(pytest.param(name, call, arg, value, accepted, id=f"{name}-{arg}-{value!r}"))
    return calls


@pytest.mark.parametrize("name,call,arg,value,accepted", _bad_option_calls())
def test_bad_option_values_name_the_argument(name, call, arg, value, accepted):
    with pytest.raises(ValueError, match=rf"^{name}: {arg}={value!r} is not valid; accepted: .*{accepted}"):
        call(value)


def test_threads_do_not_change_bits(rng):
    a = _mat(rng, 41, 41, np.complex128)
    one = L.getrf(a, threads=1, **EMU)
    two = L.getrf(a, threads=2, **EMU)
    assert np.array_equal(one[0], two[0]) and np.array_equal(one[1], two[1])
    s = _spd(rng, 41, np.float64)
    assert np.array_equal(L.potrf(s, threads=1, **EMU)[0], L.potrf(s, threads=2, **EMU)[0])


def test_block_size_from_the_environment(monkeypatch, rng):
    monkeypatch.setenv("OZBLAS_LAPACK_NB", "16")
    L.getrf(standard_normal(rng, (40, 40)), method="ozaki2")
    assert L.last_report()["nb"] == 16
    monkeypatch.setenv("OZBLAS_LAPACK_NB", "many")
    with pytest.raises(ValueError, match="OZBLAS_LAPACK_NB"):
        L.getrf(np.eye(3))
    monkeypatch.delenv("OZBLAS_LAPACK_NB")
    assert lib.ozblas_lapack_block_size(1000, 1) == 256


def test_block_size_of_a_query_is_the_runs(monkeypatch, rng):
    """A workspace query's block size is the one the call then runs with: nb= as given,
    else the library's (OZBLAS_LAPACK_NB, else the size rule for the executor the options
    plan for: the CUDA executor's under a forced method where a GPU is usable)."""
    a = standard_normal(rng, (40, 30))
    monkeypatch.delenv("OZBLAS_LAPACK_NB", raising=False)
    for kw in ({}, {"method": "ozaki2"}, {"executor": "cpu"}, {"nb": 7}):
        work = L.geqrf(a, lwork=-1, **kw)[2]
        L.geqrf(a, **kw)
        assert work[0] == 30 * L.last_report()["nb"], kw
    assert L.last_report()["nb"] == 7
    monkeypatch.setenv("OZBLAS_LAPACK_NB", "12")
    assert L.geqrf(a, lwork=-1)[2][0] == 30 * 12 and L.geqrf(a, lwork=-1, nb=5)[2][0] == 30 * 5
    with pytest.raises(ValueError, match="nb"):
        L.geqrf(a, lwork=-1, nb=0)


def test_lapack_executor_rule():
    """ozblas_lapack_executor: the executor asked for (cuda even where not built: its block
    size, and the run fails as unavailable); executor auto: the host's under method auto
    and for exact products, else the CUDA executor where usable."""
    gpu = lib.ozblas_executor_available(lib.OZBLAS_EXECUTOR_CUDA, ffi.NULL, 0)
    cpu, cuda = lib.OZBLAS_EXECUTOR_CPU, lib.OZBLAS_EXECUTOR_CUDA
    assert lib.ozblas_lapack_executor(ffi.NULL, ffi.NULL) == cpu
    cases = [(dict(executor="cpu"), cpu), (dict(executor="cpu", method="ozaki2"), cpu),
             (dict(executor="cuda"), cuda), (dict(), cpu), (dict(accuracy="correct"), cpu),
             (dict(method="ozaki2"), cuda if gpu else cpu),
             (dict(method="native"), cuda if gpu else cpu)]
    for kw, want in cases:
        o = _options(kw.get("method"), None, None, kw.get("executor"), None,
                     accuracy=kw.get("accuracy"))
        assert lib.ozblas_lapack_executor(o, ffi.NULL) == want, kw


@settings(max_examples=15, deadline=None)
@given(m=st.integers(1, 40), n=st.integers(1, 40), nb=st.integers(1, 12),
       phi=st.sampled_from([0.0, 1.0, 4.0]), seed=st.integers(0, 2**31))
def test_getrf_property(m, n, nb, phi, seed):
    """Any shape, block size and dynamic range: a valid partial-pivoting LU as accurate as
    native's."""
    r = np.random.default_rng(seed)
    a = (r.random((m, n)) - 0.5) * exp(phi * standard_normal(r, (m, n)))
    lu, piv, info = L.getrf(a, method="ozaki2", nb=nb)
    nlu, npiv, ninfo = la.dgetrf(a)
    assert info == ninfo
    assert np.all(np.abs(np.tril(lu, -1)) <= 1.0)  # partial pivoting: |l_ij| <= 1
    _within(_lu_error(a, lu, piv), _lu_error(a, nlu, npiv), "||PA - LU|| / ||A||")


@pytest.mark.parametrize("dt", DTYPES)
def test_panel_trsm_blocked_again(rng, dt):
    """nb = 64: the TRSMs beside the diagonal blocks run in blocks of 16 (products too)."""
    n = 150
    a = _mat(rng, n, n, dt)
    lu, piv, info = L.getrf(a, method="ozaki2", nb=64)
    nlu, npiv, _ = _native("getrf", dt)(a)
    _within(_lu_error(a, lu, piv), _lu_error(a, nlu, npiv), "||PA - LU|| / ||A||")
    s = _spd(rng, n, dt)
    for lower in (False, True):
        c, info = L.potrf(s, lower=lower, method="ozaki2", nb=64)
        nc, _ = _native("potrf", dt)(s, lower=lower)
        f = (lambda c: c @ c.conj().T) if lower else (lambda c: c.conj().T @ c)
        _within(_nrm(s - f(c)) / _nrm(s), _nrm(s - f(nc)) / _nrm(s), "||A - U^H U|| / ||A||")
        assert info == 0 and L.last_report()["emulated"] > 0


def test_explain_factorization():
    import json
    import subprocess
    import sys

    d = L.explain("getrf", 1000, "d", "h200", nb=256)
    assert d["nb"] == 256 and len(d["updates"]) == 3  # trailing updates after blocks 0, 1, 2
    assert [u["m"] for u in d["updates"]] == [744, 488, 232] and 0.5 < d["update_share"] < 1
    assert L.explain("potrf", 100, "z", "h200")["route"] == "host LAPACK"  # one block
    with pytest.raises(ValueError, match="accepted: getrf, potrf"):
        L.explain("geqrf", 10)
    r = subprocess.run([sys.executable, "-m", "ozblas", "explain", "potrf", "3000", "--profile",
                        "rtx4090", "--json"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["routine"] == "dpotrf" and out["updates"]


# ---- SYRK / HERK (ozblas_dsyrk, ozblas_zsyrk, ozblas_zherk) ---------------------------------

RK = [("dsyrk", np.float64, "TC"), ("zsyrk", np.complex128, "T"), ("zherk", np.complex128, "C")]


def _rk(name, uplo, trans, alpha, a, beta, c, lda_pad=2, nb=NB):
    """The C API on padded Fortran copies: (C after the call, info)."""
    n = c.shape[0]
    k = a.shape[1] if trans == "N" else a.shape[0]
    dt = c.dtype
    ap = np.zeros((a.shape[0] + lda_pad, a.shape[1]), dtype=dt, order="F")
    ap[: a.shape[0]] = a
    cp = np.asfortranarray(c.copy())
    info = ffi.new("int64_t *")
    pair = lambda v: ffi.new("double[2]", [complex(v).real, complex(v).imag])
    al, be = (pair(alpha), pair(beta)) if name == "zsyrk" else (float(np.real(alpha)), float(np.real(beta)))
    st = getattr(lib, "ozblas_" + name)(
        _context(), uplo.encode(), trans.encode(), n, k, al, ffi.cast("double *", ap.ctypes.data),
        max(1, ap.shape[0]), be, ffi.cast("double *", cp.ctypes.data), max(1, n), info, nb,
        _options("ozaki2", None, None, "cpu", None, None, None), ffi.NULL)
    assert st == (0 if info[0] == 0 else lib.OZBLAS_ERR_INVALID_ARGUMENT)
    return cp, int(info[0])


@pytest.mark.parametrize("name,dt,transposes", RK)
@pytest.mark.parametrize("n,k", [(1, 5), (NB + 1, 2 * NB + 3), (3 * NB + 5, NB - 1), (NB + 1, 0)])
def test_syrk_herk(rng, name, dt, transposes, n, k):
    """The referenced triangle within 4x native BLAS's error against the exact product (the
    other triangle untouched, HERK's diagonal real); beta = 0 does not read C (NaN there)."""
    herm = name == "zherk"
    for uplo in "UL":
        for trans in "N" + transposes:
            a = _mat(rng, n, k, dt) if trans == "N" else _mat(rng, k, n, dt)
            op = a.conj().T if trans == "C" and dt == np.complex128 else a.T
            for alpha, beta in ((1.5, 0.0), (-0.75, 0.5), (0.0, 2.0)):
                if name == "zsyrk":
                    alpha, beta = alpha * (1 - 0.5j), beta * (0.25 + 1j)
                c = _mat(rng, n, n, dt)
                if herm:
                    c = c + c.conj().T
                c_in = c.copy()
                if beta == 0:
                    c_in[np.triu_indices(n) if uplo == "U" else np.tril_indices(n)] = np.nan
                got, info = _rk(name, uplo, trans, alpha, a, beta, c_in)
                assert info == 0
                p = exact_matmul(a, op) if trans == "N" else exact_matmul(op, a)
                want = alpha * p + beta * c if beta != 0 else alpha * p
                nat = getattr(sl.blas, name)(alpha, a, beta=beta, c=c, trans=int(trans != "N"),
                                             lower=int(uplo == "L"))
                tri = np.triu(np.ones((n, n), bool)) if uplo == "U" else np.tril(np.ones((n, n), bool))
                scale = abs(alpha) * (np.abs(a) @ np.abs(op) if trans == "N" else np.abs(op) @ np.abs(a))
                scale = scale + abs(beta) * np.abs(c) + 1e-300
                e = np.max(np.abs(got - want)[tri] / scale[tri])
                en = np.max(np.abs(nat - want)[tri] / scale[tri])
                _within(e, en, f"{name} {uplo}{trans} n={n} k={k}")
                assert np.array_equal(got[~tri], c_in[~tri], equal_nan=True)
                if herm:
                    assert np.all(np.diag(got).imag == 0)


def test_syrk_argument_errors():
    a = np.ones((3, 3))
    for name, uplo, trans, lda_pad, want in (("dsyrk", "X", "N", 0, -1), ("dsyrk", "U", "X", 0, -2),
                                             ("zsyrk", "U", "C", 0, -2), ("zherk", "L", "T", 0, -2)):
        dt = np.float64 if name == "dsyrk" else np.complex128
        _, info = _rk(name, uplo, trans, 1.0, a.astype(dt), 0.0, a.astype(dt), lda_pad)
        assert info == want, (name, uplo, trans)
    info = ffi.new("int64_t *")
    st = lib.ozblas_dsyrk(_context(), b"U", b"N", 3, 2, 1.0, ffi.cast("double *", a.ctypes.data), 2,
                          0.0, ffi.cast("double *", a.ctypes.data), 3, info, NB, ffi.NULL, ffi.NULL)
    assert st == lib.OZBLAS_ERR_INVALID_ARGUMENT and info[0] == -7
