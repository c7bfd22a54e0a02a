"""The nonsymmetric eigenproblem's drivers geev and gees (native/src/lapack/lapack_geev.c through
ozblas.lapack and the C API), d and z, left and right vectors.

Emulation forced (Ozaki II), small blocks (NB) so that the orders cross block boundaries (an
order within one block is one call of the host geev). Each result is held to native LAPACK's on
the same input (SciPy's dgeev/zgeev, unrouted here) by the backward-error measures
||A V - V diag(w)|| / (||A|| ||V||) (right) and ||W^H A - diag(w) W^H|| / (||A|| ||W||) (left),
in units of n u, each at most 4x native's plus 2; the eigenvalues matched to native's as sets
(an optimal assignment), each pair within the first-order bound from both residuals and the
eigenvalue's condition number 1 / |y^H x| (native's unit vectors): cond (r + r*) ||A||, times a
safety factor of 10, plus the same floor. gees: ||Z^H A Z - T|| / ||A|| and ||Z^H Z - I|| in
units of n u within 4x native's plus 2, sdim and info native's, select called as often as
LAPACK calls it, the selected eigenvalues first.
"""

import numpy as np
import pytest
import scipy.linalg.lapack as la
from scipy.optimize import linear_sum_assignment

from ozblas import lapack as L
from ozblas._native import ffi, lib
from ozblas.api import _context, _options
from ozblas.testing import make_matrix

NB = 8
EMU = dict(method="ozaki2", nb=NB)
DTYPES = [np.float64, np.complex128]
U = 2.0**-53
KINDS = ["random", "graded", "near_defective", "companion", "complex_pairs"]
ORDERS = [1, NB, NB + 1, 30, 57]


def _uniform(n, dt, rng):
    a = rng.uniform(-1.0, 1.0, (n, n))
    if dt == np.complex128:
        a = a + 1j * rng.uniform(-1.0, 1.0, (n, n))
    return a


def _matrix(kind, n, dt, seed=3):
    rng = np.random.default_rng([seed, n, KINDS.index(kind), dt == np.complex128])
    if kind == "random":
        a = make_matrix(n, n, 1.0, seed=seed + n, dtype=dt)
    elif kind == "graded":  # D R D, D's entries 2^0 .. 2^-(n-1) step 1/2 (exact)
        d = np.ldexp(1.0, -(np.arange(n) // 2))
        a = d[:, None] * _uniform(n, dt, rng) * d[None, :]
    elif kind == "near_defective":  # Jordan blocks of order 4 (integer eigenvalues), 1e-10 noise
        a = np.diag(np.repeat(np.arange(1.0, n // 4 + 2), 4)[:n]).astype(dt)
        a += np.diag([0.0 if (i + 1) % 4 == 0 else 1.0 for i in range(n - 1)], 1)
        a = a + 1e-10 * _uniform(n, dt, rng)
    elif kind == "companion":  # of a polynomial with integer coefficients in [-5, 5]
        c = rng.integers(-5, 6, n).astype(dt)
        a = np.diag(np.ones(n - 1, dtype=dt), -1)
        a[0, :] = -c
    else:  # Q B Q^T, B block diagonal with 2 x 2 rotation-scalings: complex pairs (real Q)
        b = np.zeros((n, n))
        for i in range(0, n - 1, 2):
            x, y = rng.uniform(-2.0, 2.0, 2)
            b[i:i + 2, i:i + 2] = [[x, y], [-y, x]]
        if n % 2:
            b[-1, -1] = 0.5
        q, _ = np.linalg.qr(rng.uniform(-1.0, 1.0, (n, n)))
        a = (q @ b @ q.T).astype(dt)
    return np.asfortranarray(a)


def _complex_vectors(v, wi):
    """dgeev's vectors as complex columns (a pair j, j+1: v_j +- i v_{j+1})."""
    if wi is None:
        return v
    out = v.astype(np.complex128)
    for j in np.nonzero(wi > 0)[0]:
        out[:, j] = v[:, j] + 1j * v[:, j + 1]
        out[:, j + 1] = out[:, j].conj()
    return out


def _unpack(res, dt):
    if dt == np.complex128:
        w, vl, vr, info = res
        return w, None, vl, vr, info
    wr, wi, vl, vr, info = res
    return wr + 1j * wi, wi, vl, vr, info


def _residuals(a, w, x, y):
    n = a.shape[0]
    na = max(np.linalg.norm(a), np.finfo(float).tiny)
    rr = np.linalg.norm(a @ x - x * w) / (na * np.linalg.norm(x)) / (n * U)
    rl = np.linalg.norm(y.conj().T @ a - w[:, None] * y.conj().T) / (na * np.linalg.norm(y)) / (n * U)
    return {"right": rr, "left": rl}


def _check_values(a, w, nw, nx, ny, r_ours, r_nat):
    """w and nw matched as sets, each pair within the first-order bound."""
    n = a.shape[0]
    i, j = linear_sum_assignment(np.abs(w[:, None] - nw[None, :]))
    cond = 1.0 / np.maximum(np.abs(np.sum(ny.conj() * nx, axis=0)), 1e-300)  # unit vectors
    eta = (max(r_ours.values()) + max(r_nat.values()) + 2.0) * n * U * np.linalg.norm(a)
    bound = 10.0 * cond[j] * eta
    err = np.abs(w[i] - nw[j])
    assert np.all(err <= bound), f"eigenvalue error {err.max():.3g} vs bound {bound[np.argmax(err - bound)]:.3g}"


def _run(kind, n, dt):
    a = _matrix(kind, n, dt)
    w, wi, vl, vr, info = _unpack(L.geev(a, **EMU), dt)
    rep = L.last_report()
    if n > NB:
        assert rep["emulated"] > 0 and rep["method"] == "ozaki2" and rep["host_flops"] > 0
    else:
        assert rep["products"] == 0  # one block: the host geev alone
    nat = _unpack(getattr(la, ("z" if dt == np.complex128 else "d") + "geev")(a), dt)
    nw, nwi, nvl, nvr, ninfo = nat
    assert info == ninfo == 0
    assert (vl.shape, vl.dtype, vr.shape, vr.dtype) == (nvl.shape, nvl.dtype, nvr.shape, nvr.dtype)
    against_native(f"{kind} {n}", a, (w, wi, vl, vr), (nw, nwi, nvl, nvr))
    return w, wi, vl, vr


def against_native(label, a, ours, nat):
    """geev's (w, wi, vl, vr) against native's on a: the residuals within 4x native's plus 2,
    the eigenvalues within the first-order bound"""
    (w, wi, vl, vr), (nw, nwi, nvl, nvr) = ours, nat
    x, y = _complex_vectors(vr, wi), _complex_vectors(vl, wi)
    nx, ny = _complex_vectors(nvr, nwi), _complex_vectors(nvl, nwi)
    ours, native = _residuals(a, w, x, y), _residuals(a, nw, nx, ny)
    for k, v in ours.items():
        assert v <= 4 * native[k] + 2.0, f"{label} {k}: {v:.3g} vs native {native[k]:.3g}"
    _check_values(a, w, nw, nx / np.linalg.norm(nx, axis=0), ny / np.linalg.norm(ny, axis=0),
                  ours, native)


def _normalized(v, wi):
    """LAPACK's normalization: unit 2-norm, the largest component real (a pair: its largest
    |v_j + i v_{j+1}| with v_{j+1} zero there)."""
    x = _complex_vectors(v, wi)
    assert np.allclose(np.linalg.norm(x, axis=0), 1.0, rtol=0, atol=64 * x.shape[0] * U)
    k = np.argmax(np.abs(x), axis=0)
    assert np.all(x[k, np.arange(x.shape[1])].imag == 0.0)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", ORDERS)
def test_geev_kinds(dt, kind, n):
    w, wi, vl, vr = _run(kind, n, dt)
    _normalized(vr, wi)
    _normalized(vl, wi)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("jobs", [(0, 0), (0, 1), (1, 0)])
def test_geev_one_side_or_values(dt, jobs):
    a = _matrix("random", 30, dt)
    cl, cr = jobs
    w, wi, vl, vr, info = _unpack(L.geev(a, compute_vl=cl, compute_vr=cr, **EMU), dt)
    nw, _, nvl, nvr, _ = _unpack(getattr(la, ("z" if dt == np.complex128 else "d") + "geev")(
        a, compute_vl=cl, compute_vr=cr), dt)
    assert info == 0 and vl.shape == nvl.shape and vr.shape == nvr.shape
    fw, fwi, fvl, fvr, _ = _unpack(L.geev(a, **EMU), dt)
    # the values do not depend on the vectors asked for only through hseqr's job: both
    # within the bound of the full run's
    assert np.allclose(np.sort_complex(w), np.sort_complex(fw), rtol=0, atol=1e3 * 30 * U * np.linalg.norm(a))
    if cr:
        assert np.array_equal(vr, fvr)  # the same Z, the same product
    if cl:
        assert np.array_equal(vl, fvl)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("factor", [2.0**-1000, 2.0**1000])
def test_geev_scaled_into_range(dt, factor):
    """A far outside [smlnum, bignum] is scaled as dgeev does: the eigenvalues of c A are c
    times A's (powers of two: exact), the vectors A's."""
    a = _matrix("random", 20, dt)
    w, wi, vl, vr, info = _unpack(L.geev(a * factor, **EMU), dt)
    fw, fwi, fvl, fvr, _ = _unpack(L.geev(a, **EMU), dt)
    assert info == 0
    assert np.allclose(w / factor, fw, rtol=1e-13, atol=0)
    # the scaling into range is not a power of two: the QR iteration's rounding differs, and
    # a vector (a complex pair's two columns together) may come out negated
    for j in range(vr.shape[1]):
        k = j - 1 if j > 0 and dt != np.complex128 and wi[j] < 0 else j
        sgn = np.sign(np.vdot(fvr[:, k], vr[:, k]).real)
        assert np.allclose(sgn * vr[:, j], fvr[:, j], rtol=0, atol=1e-13)


def test_geev_argument_errors_and_query():
    a = np.zeros((4, 4))
    p = ffi.cast("double *", a.ctypes.data)
    info = ffi.new("int64_t *")
    o = _options("ozaki2", None, None, None, None)
    # (jobvl, jobvr, n, lda, ldvl, ldvr): dgeev's argument numbers; zgeev's one less from vl
    cases = [(b"X", b"N", 4, 4, 1, 1, -1, -1), (b"N", b"X", 4, 4, 1, 1, -2, -2),
             (b"N", b"N", -1, 4, 1, 1, -3, -3), (b"N", b"N", 4, 3, 1, 1, -5, -5),
             (b"V", b"N", 4, 4, 3, 1, -9, -8), (b"N", b"V", 4, 4, 1, 3, -11, -10),
             (b"N", b"N", 4, 4, 0, 1, -9, -8)]
    for jl, jr, n, lda, ldvl, ldvr, dwant, zwant in cases:
        st = lib.ozblas_dgeev(_context(), jl, jr, n, p, lda, p, p, p, ldvl, p, ldvr, info, NB, o,
                              ffi.NULL)
        assert st == lib.OZBLAS_ERR_INVALID_ARGUMENT and info[0] == dwant, (jl, jr, n)
        st = lib.ozblas_zgeev(_context(), jl, jr, n, p, lda, p, p, ldvl, p, ldvr, info, NB, o,
                              ffi.NULL)
        assert st == lib.OZBLAS_ERR_INVALID_ARGUMENT and info[0] == zwant, (jl, jr, n)
    with pytest.raises(ValueError, match="compute_vl"):
        L.geev(np.eye(3), compute_vl=2)
    with pytest.raises(ValueError, match="square"):
        L.geev(np.zeros((3, 4)))
    w, wi, vl, vr, info = L.geev(np.eye(30), lwork=-1, **EMU)  # a query computes nothing
    assert info == 0 and not w.any() and not vr.any()
    w, wi, vl, vr, info = L.geev(np.zeros((0, 0)), **EMU)
    assert info == 0 and w.shape == (0,) and vr.shape == (0, 0)


# ---- gees ---------------------------------------------------------------------------------

def _schur_measures(a, t, z):
    """||Z^H A Z - T|| / ||A|| and ||Z^H Z - I||, in units of n u; T's part below its
    (sub)diagonal exactly zero."""
    n = a.shape[0]
    na = max(np.linalg.norm(a), np.finfo(float).tiny)
    assert not np.tril(t, -2).any()
    return {"schur": np.linalg.norm(z.conj().T @ a @ z - t) / na / (n * U),
            "orth": np.linalg.norm(z.conj().T @ z - np.eye(n)) / (n * U)}


def _lhp(cplx):
    return (lambda w: w.real < 0) if cplx else (lambda x, y: x < 0)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", ORDERS)
@pytest.mark.parametrize("sort", [0, 1])
def test_gees_kinds(dt, kind, n, sort):
    a = _matrix(kind, n, dt)
    cplx = dt == np.complex128
    calls, ncalls = [], []
    def counted(log):  # f2py reads the callback's arity: spelled out
        if cplx:
            return lambda w: log.append(w) or w.real < 0
        return lambda x, y: log.append((x, y)) or x < 0
    r = L.gees(counted(calls), a, sort_t=sort, **EMU)
    rep = L.last_report()
    nr = (la.zgees if cplx else la.dgees)(counted(ncalls), a, sort_t=sort)
    t, sdim, vs, info = r[0], r[1], r[-3], r[-1]
    nt, nsdim, nvs, ninfo = nr[0], nr[1], nr[-3], nr[-1]
    if n > NB:
        assert rep["emulated"] > 0 and rep["host_flops"] > 0
    else:
        assert rep["products"] == 0
    assert info == ninfo and sdim == nsdim
    # select called as LAPACK calls it: never without sorting; else once per eigenvalue, and
    # (d) once more per eigenvalue in the recount
    assert len(calls) == len(ncalls) == (0 if not sort else n * (1 if cplx else 2))
    ours, native = _schur_measures(a, t, vs), _schur_measures(a, nt, nvs)
    for k, v in ours.items():
        assert v <= 4 * native[k] + 2.0, f"{kind} {n} {k}: {v:.3g} vs native {native[k]:.3g}"
    w = r[2] + 1j * r[3] if not cplx else r[2]
    assert np.array_equal(w, np.diag(t) if cplx else w)  # z: w is T's diagonal
    if sort:  # the selected eigenvalues first
        wr = w.real
        assert np.all(wr[:sdim] < 0) and np.all(wr[sdim:] >= 0)


def test_gees_values_and_standard_blocks():
    """d: wr, wi read off T's standardized 2 x 2 blocks (equal diagonal, off-diagonal of
    opposite signs), as LAPACK's"""
    a = _matrix("complex_pairs", 31, np.float64)
    t, sdim, wr, wi, vs, work, info = L.gees(None, a, **EMU)
    assert info == 0 and sdim == 0
    for i in np.nonzero(wi > 0)[0]:
        b = t[i:i + 2, i:i + 2]
        assert b[0, 0] == b[1, 1] == wr[i] == wr[i + 1] and b[0, 1] * b[1, 0] < 0
        assert wi[i] == -wi[i + 1] and abs(wi[i] - np.sqrt(abs(b[0, 1] * b[1, 0]))) <= 8 * U * abs(wi[i])
    assert np.array_equal(wr[wi == 0], np.diag(t)[wi == 0])


def test_gees_select_extra_args_errors_and_query():
    a = _matrix("random", 20, np.float64)
    t, sdim, wr, wi, vs, work, info = L.gees(lambda x, y, c: x < c, a, sort_t=1,
                                             select_extra_args=(0.25,), **EMU)
    assert info == 0 and np.all(wr[:sdim] < 0.25) and np.all(wr[sdim:] >= 0.25)

    def boom(x, y):
        raise KeyError("select")
    with pytest.raises(KeyError):
        L.gees(boom, a, sort_t=1, **EMU)
    t, sdim, wr, wi, vs, work, info = L.gees(None, a, compute_v=0, **EMU)
    assert info == 0 and vs.shape == (1, 20) and not vs.any()
    r = L.gees(None, np.eye(30), lwork=-1, **EMU)
    assert r[-1] == 0 and not r[2].any() and r[-2][0] >= 3 * 30
    a4 = np.zeros((4, 4))
    p = ffi.cast("double *", a4.ctypes.data)
    info, sd = ffi.new("int64_t *"), ffi.new("int64_t *")
    o = _options("ozaki2", None, None, None, None)
    cases = [(b"X", b"N", 4, 4, 1, -1, -1), (b"N", b"X", 4, 4, 1, -2, -2),
             (b"N", b"S", 4, 4, 1, -3, -3),  # sort without select
             (b"N", b"N", -1, 4, 1, -4, -4), (b"N", b"N", 4, 3, 1, -6, -6),
             (b"V", b"N", 4, 4, 3, -11, -10), (b"N", b"N", 4, 4, 0, -11, -10)]
    for jv, so, n, lda, ldvs, dwant, zwant in cases:
        st = lib.ozblas_dgees(_context(), jv, so, ffi.NULL, ffi.NULL, n, p, lda, sd, p, p, p, ldvs,
                              info, NB, o, ffi.NULL)
        assert st == lib.OZBLAS_ERR_INVALID_ARGUMENT and info[0] == dwant, (jv, so, n)
        st = lib.ozblas_zgees(_context(), jv, so, ffi.NULL, ffi.NULL, n, p, lda, sd, p, p, ldvs,
                              info, NB, o, ffi.NULL)
        assert st == lib.OZBLAS_ERR_INVALID_ARGUMENT and info[0] == zwant, (jv, so, n)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("factor", [2.0**-1000, 2.0**1000])
def test_gees_scaled_into_range(dt, factor):
    a = _matrix("complex_pairs", 20, dt)
    cplx = dt == np.complex128
    r = L.gees(_lhp(cplx), a * factor, sort_t=1, **EMU)
    f = L.gees(_lhp(cplx), a, sort_t=1, **EMU)
    nr = (la.zgees if cplx else la.dgees)(_lhp(cplx), a * factor, sort_t=1)
    assert r[-1] == f[-1] == nr[-1] == 0 and r[1] == f[1] == nr[1]
    # the measures of T / c against A (c a power of two: T / c exact but for T's subnormal
    # elements at 2^-1000, off by at most 2^-74 each; a 2 x 2 block's signs may differ from
    # A's own run: so do native's)
    ours, native = _schur_measures(a, r[0] / factor, r[-3]), _schur_measures(a, nr[0] / factor, nr[-3])
    for k, v in ours.items():
        assert v <= 4 * native[k] + 2.0, f"{k}: {v:.3g} vs native {native[k]:.3g}"
    # A is normal (Q B Q^T): its eigenvalues' condition numbers are 1
    w = (lambda x: x[2] if cplx else x[2] + 1j * x[3])
    i, j = linear_sum_assignment(np.abs(w(r)[:, None] / factor - w(f)[None, :]))
    assert np.all(np.abs(w(r)[i] / factor - w(f)[j]) <= 100 * 20 * U * np.linalg.norm(a))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("routine", ["geev", "gees"])
@pytest.mark.parametrize("n, nb", [(64, 8), (100, 16), (300, 128)])
def test_explain_matches_the_run(dt, routine, n, nb):
    """`ozblas explain geev|gees N`: its products' and host flops those of the run within a
    factor 2 (hseqr's multishift QR takes as many sweeps as the matrix needs: explain's model
    guesses n / ns), hseqr's windows among its products; nb 128: gehrd's panels of 64
    columns."""
    import subprocess
    import sys

    a = _matrix("random", n, dt)
    if routine == "geev":
        L.geev(a, compute_vl=0, nb=nb, method="native")
    else:
        L.gees(None, a, nb=nb, method="native")
    rep = L.last_report()
    p = "z" if dt == np.complex128 else "d"
    d = L.explain(routine, n, p, "h200", nb=nb)
    assert d["routine"] == p + routine and d["nb"] == nb and d["updates"]
    assert 0.5 * rep["product_flops"] <= d["product_flops"] <= 2 * rep["product_flops"]
    assert 0.5 * rep["host_flops"] <= d["host_flops"] <= 2 * rep["host_flops"]
    assert any(u["shape"].startswith("hseqr") for u in d["updates"])
    assert L.explain(routine, 100, "z", "h200")["route"] == "host LAPACK"  # one block
    r = subprocess.run([sys.executable, "-m", "ozblas", "explain", routine, "3000", "--profile",
                        "h200", "--dtype", "z"], capture_output=True, text=True)
    assert r.returncode == 0 and f"z{routine} n=3000" in r.stdout and "hseqr" in r.stdout


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("step", [0.5, 0.02])
def test_geev_strongly_balanced_runs_on_the_host(dt, step):
    """Columns graded by 10^(-step j): gebal's D spans about 10^(step n) (n = 64: 1e31 at step
    0.5, 1e2 at 0.02). gebak scales the vectors' rows by D, so the products' normwise error
    would reach their small entries: beyond a spread of 2^20 the host geev runs, and either way
    the residuals stay within 4x native's plus 2."""
    n = 64
    g = 10.0 ** (-step * np.arange(n))
    a = np.asfortranarray(make_matrix(n, n, 1.0, seed=n, dtype=dt) * g[None, :])
    w, wi, vl, vr, info = _unpack(L.geev(a, **EMU), dt)
    rep = L.last_report()
    assert info == 0
    if step == 0.5:
        assert rep["products"] == 0 and rep["emulated"] == 0
    else:
        assert rep["emulated"] > 0
    nat = _unpack(getattr(la, ("z" if dt == np.complex128 else "d") + "geev")(a), dt)
    against_native(f"graded columns {step}", a, (w, wi, vl, vr), nat[:4])


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("factor", [2.0**-900, 2.0**900])  # outside [smlnum, bignum], D A normal
def test_geev_graded_and_scaled_falls_back_on_the_callers_matrix(dt, factor):
    """The graded check is the real gebal's, after the scaling into range: the host geev then
    gets the caller's A (kept meanwhile), not the scaled and balanced one, so its eigenvalues
    are factor times those of the unscaled matrix's host run (powers of two: exact up to the
    host's own rounding) and its vectors pass the residual checks against native."""
    n = 64
    g = 10.0 ** (-0.5 * np.arange(n))
    a = np.asfortranarray(make_matrix(n, n, 1.0, seed=n, dtype=dt) * g[None, :])
    w, wi, vl, vr, info = _unpack(L.geev(a * factor, **EMU), dt)
    rep = L.last_report()
    assert info == 0 and rep["products"] == 0
    nat = _unpack(getattr(la, ("z" if dt == np.complex128 else "d") + "geev")(a), dt)
    against_native(f"graded, scaled by {factor}", a, (w / factor, None if wi is None else wi / factor, vl, vr),
                   nat[:4])


@pytest.mark.parametrize("dt", DTYPES)
def test_geev_gees_host_parts_name_the_remainder(dt):
    """Outside hseqr the blocked drivers' host work is named: the scaling, gebal and the copy
    of the reflectors into Z as copies, trevc3/gebak/normalization (geev) and gebak (gees) as
    back, gehrd's lahr2 as panels; each part within host_seconds."""
    a = _matrix("random", 40, dt)
    for run in (lambda: L.geev(a, **EMU), lambda: L.gees(None, a, **EMU)):
        run()
        rep = L.last_report()
        parts = rep["host_parts"]
        assert parts["copies"] > 0 and parts["back"] > 0 and parts["panels"] > 0
        assert sum(parts.values()) <= rep["host_seconds"] * (1 + 1e-9) + 1e-6
