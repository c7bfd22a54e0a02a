"""The singular value decomposition by the two-stage bidiagonal reduction
(native/src/lapack/lapack_svd.c, lapack_band.c through ozblas.lapack and the C API): gesdd, d
and z, every jobz.

Emulation forced (Ozaki II), small blocks (NB) so that the shapes cross block boundaries
(min(m, n) <= NB is one call of the host gesdd; above it, stage 1 has panels). Each result is
held to native LAPACK's on the same input (SciPy's dgesdd/zgesdd, unrouted here): the residual
||A - U S V^H|| / (||A|| max(m, n) u), the orthogonality of U and V ||X^H X - I|| /
(max(m, n) u) and the singular value error max |s - s*| / (||A|| max(m, n) u) against singular
values computed by mpmath at 32 digits, each at most 4x native's plus 0.5 (in those units).
"""

import functools

import mpmath
import numpy as np
import pytest
import scipy.linalg.lapack as la
from hypothesis import HealthCheck, given, settings, strategies as st

from ozblas import lapack as L
from ozblas._native import ffi, lib
from ozblas.api import _context, _options
from ozblas.testing import standard_normal

NB = 8
EMU = dict(method="ozaki2", nb=NB)
DTYPES = [np.float64, np.complex128]
U = 2.0**-53
# square across the block boundary, tall below LAPACK's QR-first threshold (m < 11 n / 6) and
# above it (3n), wide likewise, very tall (10n), very wide, and one small dimension with a
# long other (the host gesdd)
SHAPES = [(1, 1), (NB, NB), (NB + 1, NB + 1), (29, 29), (20, 13), (13, 20), (39, 13), (13, 39),
          (90, 9), (9, 90), (40, 5)]
STRUCTURES = ["random", "rank_deficient", "zero", "graded", "clustered"]


def _gaussian(m, n, dt, rng):
    a = standard_normal(rng, (m, n))
    if dt == np.complex128:
        a = a + 1j * standard_normal(rng, (m, n))
    return a


def _orthonormal(m, k, dt, rng):
    q, _ = np.linalg.qr(_gaussian(m, k, dt, rng))
    return q


@functools.lru_cache(maxsize=None)
def _matrix(structure, m, n, dt, seed=5):
    """A test matrix (read-only) and its singular values by mpmath (descending)."""
    rng = np.random.default_rng([seed, m, n, STRUCTURES.index(structure), dt == np.complex128])
    k = min(m, n)
    if structure == "random":
        a = _gaussian(m, n, dt, rng)
    elif structure == "rank_deficient":
        r = max(k // 2, 1)
        a = _gaussian(m, r, dt, rng) @ _gaussian(r, n, dt, rng)
    elif structure == "zero":
        a = np.zeros((m, n), dtype=dt)
    else:
        i = np.arange(k)
        sv = {"graded": 10.0 ** (-15.0 * i / max(k - 1, 1)),
              "clustered": np.where(i < k // 2, 1.0 + 1e-12 * i, 2.0 + i)}[structure]
        a = (_orthonormal(m, k, dt, rng) * sv) @ _orthonormal(n, k, dt, rng).conj().T
    a = np.asfortranarray(a)
    a.setflags(write=False)
    mpmath.mp.dps = 32
    s = (mpmath.svd_c if dt == np.complex128 else mpmath.svd_r)(mpmath.matrix(a.tolist()),
                                                                compute_uv=False)
    return a, np.sort(np.array([float(x) for x in s]))[::-1]


def _errors(a, u, s, vt, sref):
    m, n = a.shape
    k = min(m, n)
    unit = max(np.linalg.norm(a, 2), np.finfo(float).tiny) * max(m, n) * U
    out = {"values": np.max(np.abs(s - sref), initial=0.0) / unit}
    if u is not None:
        out["residual"] = np.linalg.norm(a - (u[:, :k] * s) @ vt[:k]) / unit
        out["u"] = np.linalg.norm(u.conj().T @ u - np.eye(u.shape[1])) / (max(m, n) * U)
        out["v"] = np.linalg.norm(vt @ vt.conj().T - np.eye(vt.shape[0])) / (max(m, n) * U)
    return out


def _within(ours, native, what):
    for k, v in ours.items():
        assert v <= 4 * native[k] + 0.5, f"{what} {k}: {v:.3g} vs native {native[k]:.3g}"


def _native(dt, a, driver="gesdd", **kw):
    return getattr(la, ("z" if dt == np.complex128 else "d") + driver)(a, **kw)


def _check_report(m, n):
    rep = L.last_report()
    if min(m, n) > NB:
        assert rep["emulated"] > 0 and rep["method"] == "ozaki2" and rep["moduli"]
    else:
        assert rep["products"] == 0  # one block: the host gesdd alone


def _run(dt, a, sref, compute_uv, full_matrices, what, driver="gesdd"):
    m, n = a.shape
    k = min(m, n)
    u, s, vt, info = getattr(L, driver)(a, compute_uv=compute_uv, full_matrices=full_matrices, **EMU)
    _check_report(m, n)
    nu, ns, nvt, ninfo = _native(dt, a, driver, compute_uv=compute_uv, full_matrices=full_matrices)
    assert info == ninfo == 0
    assert (u.shape, u.dtype, s.shape, s.dtype, vt.shape, vt.dtype) == \
           (nu.shape, nu.dtype, ns.shape, ns.dtype, nvt.shape, nvt.dtype)
    assert np.all(np.diff(s) <= 0) and np.all(s >= 0)
    if not compute_uv:
        u = vt = nu = nvt = None
    else:
        assert u.shape == ((m, m) if full_matrices else (m, k))
    _within(_errors(a, u, s, vt, sref), _errors(a, nu, ns, nvt, sref), what)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("job", ["N", "S", "A"])
@pytest.mark.parametrize("driver", ["gesdd", "gesvd"])
def test_gesdd_shapes(dt, shape, job, driver):
    a, sref = _matrix("random", *shape, dt)
    _run(dt, a, sref, job != "N", job == "A", f"{driver} {shape} {job}", driver)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("structure", STRUCTURES[1:])
@pytest.mark.parametrize("shape", [(29, 29), (20, 13), (39, 13), (13, 39)])
@pytest.mark.parametrize("driver", ["gesdd", "gesvd"])
def test_gesdd_structures(dt, structure, shape, driver):
    a, sref = _matrix(structure, *shape, dt)
    _run(dt, a, sref, 1, 0, f"{driver} {structure} {shape}", driver)
    _run(dt, a, sref, 0, 0, f"{driver} {structure} {shape} values", driver)


def _c_gesdd(dt, jobz, a, ldu_rows, u_cols, vt_rows, pad=3):
    """The C API on a copy of a inside a larger buffer (every leading dimension + pad):
    (a's buffer, s, u, vt, info), the pad rows checked untouched."""
    m, n = a.shape
    k = min(m, n)
    fn = lib.ozblas_zgesdd if dt == np.complex128 else lib.ozblas_dgesdd
    big = np.full((m + pad, n), 7.0, dtype=dt, order="F")
    big[:m] = a
    u = np.full((ldu_rows + pad, max(u_cols, 1)), 5.0, dtype=dt, order="F")
    vt = np.full((vt_rows + pad, n), 3.0, dtype=dt, order="F")
    s = np.zeros(k)
    info = ffi.new("int64_t *")
    p = lambda x: ffi.cast("double *", x.ctypes.data)  # noqa: E731
    st = fn(_context(), jobz, m, n, p(big), m + pad, p(s), p(u), ldu_rows + pad, p(vt),
            vt_rows + pad, info, NB, _options("ozaki2", None, None, None, None), ffi.NULL)
    assert st == 0 and info[0] == 0
    assert np.all(big[m:] == 7.0) and np.all(u[ldu_rows:] == 5.0) and np.all(vt[vt_rows:] == 3.0)
    return big[:m], s, u[:ldu_rows, :u_cols], vt[:vt_rows], info[0]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(NB - 1, NB - 3), (39, 13), (13, 39), (20, 13), (13, 20),
                                   (29, 29)])
def test_gesdd_jobz_o(dt, shape):
    """jobz 'O' (only the C API has it): U overwrites A (m >= n) or V^H does (m < n), held to
    the bounds as the others; above one block the same bits as jobz 'S'."""
    a, sref = _matrix("random", *shape, dt)
    m, n = shape
    k = min(m, n)
    if m >= n:
        ao, so, _, vto, _ = _c_gesdd(dt, b"O", a, 1, 0, n)
        uo = ao
    else:
        ao, so, uo, _, _ = _c_gesdd(dt, b"O", a, m, m, 1)
        vto = ao
    _, ss, us, vts, _ = _c_gesdd(dt, b"S", a, m, k, k)
    nu, ns, nvt, _ = _native(dt, a, full_matrices=0)
    _within(_errors(a, uo, so, vto, sref), _errors(a, nu, ns, nvt, sref), f"gesdd O {shape}")
    if k > NB:
        assert np.array_equal(so, ss) and np.array_equal(uo, us) and np.array_equal(vto, vts)


def test_gesdd_leading_dimensions_match_packed():
    """The C API with leading dimensions beyond the matrices gives the packed call's bits."""
    for dt in DTYPES:
        a, _ = _matrix("random", 39, 13, dt)
        _, s, u, vt, _ = _c_gesdd(dt, b"A", a, 39, 39, 13)
        ru, rs, rvt, _ = L.gesdd(a, **EMU)
        assert np.array_equal(s, rs) and np.array_equal(u, ru) and np.array_equal(vt, rvt)


def test_gesdd_argument_errors():
    a = np.zeros((4, 3))
    p = ffi.cast("double *", a.ctypes.data)
    info = ffi.new("int64_t *")
    o = _options("ozaki2", None, None, None, None)
    cases = [(b"X", 4, 3, 4, 4, 3, -1), (b"N", -1, 3, 4, 4, 3, -2), (b"N", 4, -1, 4, 4, 3, -3),
             (b"N", 4, 3, 3, 4, 3, -5), (b"S", 4, 3, 4, 3, 3, -8), (b"A", 4, 3, 4, 4, 2, -10),
             (b"S", 4, 3, 4, 4, 2, -10), (b"O", 4, 3, 4, 1, 2, -10), (b"O", 3, 4, 3, 2, 1, -8)]
    for jobz, m, n, lda, ldu, ldvt, want in cases:
        st = lib.ozblas_dgesdd(_context(), jobz, m, n, p, lda, p, p, ldu, p, ldvt, info, NB, o,
                               ffi.NULL)
        assert st == lib.OZBLAS_ERR_INVALID_ARGUMENT and info[0] == want, (jobz, m, n)
    with pytest.raises(ValueError, match="compute_uv"):
        L.gesdd(np.eye(3), compute_uv=2)


def _side(a, q, s, left):
    """Columns of q (left: U) or rows (right: V^H) as a's singular vectors:
    ||Q^H A A^H Q - S^2|| / (s_1^2 max(m, n) u), and their orthogonality."""
    q = q if left else q.conj().T
    k = len(s)
    g = a.conj().T @ q[:, :k] if left else a @ q[:, :k]
    err = np.linalg.norm(g.conj().T @ g - np.diag(s ** 2)) / max(s[0] ** 2 * max(a.shape) * U, 1e-300)
    return {"vectors": err, "orth": np.linalg.norm(q.conj().T @ q - np.eye(q.shape[1])) / (max(a.shape) * U)}


def _c_gesvd(dt, ju, jv, a, nb):
    """ozblas_?gesvd through the C API, A, U and VT with two rows of padding below (filled
    with 7, 5, 3): (s, U's part written or None, V^H's likewise, info, the padded arrays)."""
    m, n = a.shape
    k = min(m, n)
    fn = lib.ozblas_zgesvd if dt == np.complex128 else lib.ozblas_dgesvd
    p = lambda x: ffi.cast("double *", x.ctypes.data)  # noqa: E731
    big = np.full((m + 2, n), 7.0, dtype=dt, order="F")
    big[:m] = a
    u = np.full((m + 2, m), 5.0, dtype=dt, order="F")
    vt = np.full((n + 2, n), 3.0, dtype=dt, order="F")
    s, info = np.zeros(k), ffi.new("int64_t *")
    assert fn(_context(), ju.encode(), jv.encode(), m, n, p(big), m + 2, p(s), p(u), m + 2,
              p(vt), n + 2, info, nb, _options("ozaki2", None, None, None, None), ffi.NULL) == 0
    got_u = {"A": u[:m, :m], "S": u[:m, :k], "O": big[:m, :k]}.get(ju)
    got_v = {"A": vt[:n, :n], "S": vt[:k, :n], "O": big[:k, :n]}.get(jv)
    assert np.all(big[m:] == 7.0)
    if ju == "N":
        assert np.all(u == 5.0)
    if jv == "N":
        assert np.all(vt == 3.0)
    return s, got_u, got_v, info[0]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(NB - 1, NB - 3), (29, 29), (20, 13), (13, 20), (39, 13), (13, 39)])
def test_gesvd_every_job_pair(dt, shape):
    """Every (jobu, jobvt) but ('O', 'O') through the C API, 'O' into A, leading dimensions
    beyond the matrices: the singular values, and each side's vectors, within 4x the host
    gesvd's (jobs 'S') plus 0.5."""
    a, sref = _matrix("random", *shape, dt)
    nu, ns, nvt, _ = _native(dt, a, "gesvd", full_matrices=0)
    for ju in "ASON":
        for jv in "ASON":
            if ju == jv == "O":
                continue
            s, got_u, got_v, info = _c_gesvd(dt, ju, jv, a, NB)
            assert info == 0
            what = f"gesvd {shape} {ju}{jv}"
            _within(_errors(a, None, s, None, sref), _errors(a, None, ns, None, sref), what)
            if got_u is not None:
                _within(_side(a, got_u, s, True), _side(a, nu, ns, True), what + " U")
            if got_v is not None:
                _within(_side(a, got_v, s, False), _side(a, nvt, ns, False), what + " V")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 40), n=st.integers(1, 40), nb=st.integers(2, 12), cplx=st.booleans(),
       jobs=st.sampled_from([(u, v) for u in "ASON" for v in "ASON" if u + v != "OO"]),
       seed=st.integers(0, 2**16))
def test_gesvd_drawn_shapes_blocks_and_jobs(m, n, nb, cplx, jobs, seed):
    """gesvd through the C API with shapes, block sizes and (jobu, jobvt) drawn ('O' into A):
    the singular values against the host's, and with both sides the residual ||A - U S V^H||,
    within 30 max(m, n) u ||A||; each side's orthogonality within 30 max(m, n) u."""
    rng = np.random.default_rng(seed)
    dt = np.complex128 if cplx else np.float64
    a = _gaussian(m, n, dt, rng)
    s, u, vt, info = _c_gesvd(dt, *jobs, a, nb)
    assert info == 0
    k, tol = min(m, n), 30 * max(m, n) * U
    assert np.max(np.abs(s - _native(dt, a, compute_uv=0)[1])) <= tol * np.linalg.norm(a, 2)
    if u is not None:
        assert np.linalg.norm(u.conj().T @ u - np.eye(u.shape[1])) <= tol
    if vt is not None:
        assert np.linalg.norm(vt @ vt.conj().T - np.eye(vt.shape[0])) <= tol
    if u is not None and vt is not None:
        assert np.linalg.norm(a - (u[:, :k] * s) @ vt[:k]) <= tol * np.linalg.norm(a, 2)


def test_gesvd_argument_errors():
    a = np.zeros((4, 3))
    p = ffi.cast("double *", a.ctypes.data)
    info = ffi.new("int64_t *")
    o = _options("ozaki2", None, None, None, None)
    cases = [(b"X", b"N", 4, 3, 4, 4, 3, -1), (b"N", b"X", 4, 3, 4, 4, 3, -2),
             (b"O", b"O", 4, 3, 4, 4, 3, -2), (b"N", b"N", -1, 3, 4, 4, 3, -3),
             (b"N", b"N", 4, -1, 4, 4, 3, -4), (b"N", b"N", 4, 3, 3, 4, 3, -6),
             (b"S", b"N", 4, 3, 4, 3, 3, -9), (b"N", b"N", 4, 3, 4, 0, 3, -9),
             (b"N", b"A", 4, 3, 4, 4, 2, -11), (b"N", b"S", 3, 4, 3, 3, 2, -11),
             (b"N", b"N", 4, 3, 4, 4, 0, -11)]
    for ju, jv, m, n, lda, ldu, ldvt, want in cases:
        st = lib.ozblas_dgesvd(_context(), ju, jv, m, n, p, lda, p, p, ldu, p, ldvt, info, NB, o,
                               ffi.NULL)
        assert st == lib.OZBLAS_ERR_INVALID_ARGUMENT and info[0] == want, (ju, jv, m, n)
    with pytest.raises(ValueError, match="gesvd: full_matrices"):
        L.gesvd(np.eye(3), full_matrices=3)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(6, 4), (29, 29), (39, 13), (13, 20)])
def test_nan_input(dt, shape):
    """A NaN in A, within one block (the host driver) and beyond: gesdd refuses it as LAPACK's
    (3.7 on) does, info -4 with s, U and V^H untouched; gesvd (LAPACK's has no such check)
    reports dbdsqr's failure to converge with vectors, info > 0 as the host's (values only:
    info 0, as the host's dqds), a NaN among the singular values either way."""
    m, n = shape
    a = _gaussian(m, n, dt, np.random.default_rng(3))
    a[2, 1] = np.nan
    assert _native(dt, a, compute_uv=0)[3] == -4
    fn = lib.ozblas_zgesdd if dt == np.complex128 else lib.ozblas_dgesdd
    p = lambda x: ffi.cast("double *", x.ctypes.data)  # noqa: E731
    w, u, vt = a.copy(order="F"), np.full((m, m), 5.0, dt, order="F"), np.full((n, n), 3.0, dt, order="F")
    s, info = np.full(min(m, n), 2.0), ffi.new("int64_t *")
    assert fn(_context(), b"A", m, n, p(w), m, p(s), p(u), m, p(vt), n, info, NB,
              _options("ozaki2", None, None, None, None), ffi.NULL) == 0
    assert info[0] == -4 and np.all(s == 2.0) and np.all(u == 5.0) and np.all(vt == 3.0)
    with pytest.raises(ValueError, match="gesdd: argument 4"):
        L.gesdd(a, **EMU)
    for cu in (0, 1):
        nat, ours = _native(dt, a, "gesvd", compute_uv=cu), L.gesvd(a, compute_uv=cu, **EMU)
        for _, s, _, info in (nat, ours):
            assert (info > 0 if cu else info == 0) and np.isnan(s).any()


def test_gesdd_empty_and_query():
    for shape in [(0, 0), (0, 4), (4, 0)]:
        u, s, vt, info = L.gesdd(np.zeros(shape), **EMU)
        nu, ns, nvt, _ = la.dgesdd(np.zeros(shape))
        assert info == 0 and s.shape == ns.shape == (0,) and u.shape == nu.shape
        assert vt.shape == nvt.shape
    u, s, vt, info = L.gesdd(np.eye(30), lwork=-1, **EMU)
    assert info == 0 and not s.any()  # a query computes nothing


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 40), n=st.integers(1, 40), nb=st.integers(2, 12),
       cplx=st.booleans(), job=st.sampled_from("NSA"), seed=st.integers(0, 2**16))
def test_gesdd_drawn_shapes_and_blocks(m, n, nb, cplx, job, seed):
    """Shapes, block sizes (so band widths) and jobs drawn: residual, orthogonality and the
    singular values (against the host gesdd's, whose own error is far below the bound) within
    LAPACK-style bounds of 30 max(m, n) u."""
    rng = np.random.default_rng(seed)
    dt = np.complex128 if cplx else np.float64
    a = _gaussian(m, n, dt, rng)
    u, s, vt, info = L.gesdd(a, compute_uv=job != "N", full_matrices=job == "A",
                             method="ozaki2", nb=nb)
    ns = _native(dt, a, compute_uv=0)[1]
    assert info == 0
    tol = 30 * max(m, n) * U * np.linalg.norm(a, 2)
    assert np.max(np.abs(s - ns)) <= tol
    if job != "N":
        k = min(m, n)
        assert np.linalg.norm(a - (u[:, :k] * s) @ vt[:k]) <= tol
        assert np.linalg.norm(u.conj().T @ u - np.eye(u.shape[1])) <= 30 * max(m, n) * U
        assert np.linalg.norm(vt @ vt.conj().T - np.eye(vt.shape[0])) <= 30 * max(m, n) * U


@pytest.mark.parametrize("dt", ["d", "z"])
def test_bidiagonal_chase_bits_for_any_thread_count(dt):
    """The bidiagonal chase's sweeps run pipelined on the host threads (lx_sweeps, lag 4):
    gesdd's factors and gelsd's solution are the same bits for 1, 2 and 3 threads."""
    rng = np.random.default_rng(12)
    m, n = 180, 120
    a = rng.random((m, n)) - 0.5 + (1j * (rng.random((m, n)) - 0.5) if dt == "z" else 0)
    b = rng.random((m, 3)) - 0.5
    runs = []
    for t in (1, 2, 3):
        u, s, vt, _ = L.gesdd(a, compute_uv=1, full_matrices=0, method="native", nb=8, threads=t)
        runs.append((u, s, vt, L.gelsd(a, b, method="native", nb=8, threads=t)[0]))
    assert L.last_report()["band"] == 8
    for r in runs[1:]:
        assert all(np.array_equal(x, y) for x, y in zip(r, runs[0]))
