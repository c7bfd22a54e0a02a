"""The nonsymmetric eigenproblem's driver geev (native/src/lapack/lapack_geev.c through
ozblas.lapack and the C API), d and z, left and right vectors.

Emulation forced (Ozaki II), small blocks (NB) so that the orders cross block boundaries (an
order within one block is one call of the host geev). Each result is held to native LAPACK's on
the same input (SciPy's dgeev/zgeev, unrouted here) by the backward-error measures
||A V - V diag(w)|| / (||A|| ||V||) (right) and ||W^H A - diag(w) W^H|| / (||A|| ||W||) (left),
in units of n u, each at most 4x native's plus 2; the eigenvalues matched to native's as sets
(an optimal assignment), each pair within the first-order bound from both residuals and the
eigenvalue's condition number 1 / |y^H x| (native's unit vectors): cond (r + r*) ||A||, times a
safety factor of 10, plus the same floor.
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
    x, y = _complex_vectors(vr, wi), _complex_vectors(vl, wi)
    nx, ny = _complex_vectors(nvr, nwi), _complex_vectors(nvl, nwi)
    ours, native = _residuals(a, w, x, y), _residuals(a, nw, nx, ny)
    for k, v in ours.items():
        assert v <= 4 * native[k] + 2.0, f"{kind} {n} {k}: {v:.3g} vs native {native[k]:.3g}"
    _check_values(a, w, nw, nx / np.linalg.norm(nx, axis=0), ny / np.linalg.norm(ny, axis=0),
                  ours, native)
    return w, wi, vl, vr


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
    assert np.allclose(vr, fvr, rtol=0, atol=1e-13)


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
