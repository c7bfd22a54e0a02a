"""The preload shim's nonsymmetric eigenproblem entries (native/src/shim/shim_nonsym.c: dgeev,
zgeev, dgees, zgees), reached the way users reach them: scipy.linalg.eig with left and right
vectors, numpy.linalg.eig and eigvals (under `ozblas run`: the wheel's LAPACK reaches the ILP64
names), scipy.linalg.schur (output real and complex, unsorted, sort="lhp", a callable), and
geev and gees through scipy.linalg.cython_lapack with LAPACK's smallest lwork, one less (the
real routine's xerbla), a bad ldvr/ldvs, and the workspace query (answered by the real
routine); gees's select (a C function given as LAPACK's LOGICAL function) called as often as
the real routine calls it. Schur forms: ||Z^H A Z - T|| / ||A|| and ||Z^H Z - I|| in units of
n u at most 4x native's plus 2.
Emulation forced with small blocks (OZBLAS_LAPACK_NB=16). Each result is held to native's on
the same inputs in this (unrouted) process by the backward errors ||A V - V diag(w)|| /
(||A|| ||V||) and ||W^H A - diag(w) W^H|| / (||A|| ||W||) in units of n u, at most 4x
native's plus 2, and the eigenvalues matched as sets within 1e3 n u ||A|| times their
condition number.
"""

import sys

import numpy as np
import pytest
import scipy.linalg as sl
from scipy.optimize import linear_sum_assignment

from _lapack_child import CALLS_TAIL, LAPACK_TESTS, calls_head, run_child

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="LD_PRELOAD is Linux")
sys.path.insert(0, str(LAPACK_TESTS))
import _native_geev as N  # noqa: E402

U = np.finfo(np.float64).eps / 2
KINDS = ("random", "companion", "graded")

CHILD = calls_head("_native_geev") + """

def calls(numpy_too):
    for dt in ("d", "z"):
        for kind in ("random", "companion", "graded"):
            a = inp[dt + kind]
            res[dt + kind + "_eig"] = sl.eig(a, left=True, right=True)
            if numpy_too:
                res[dt + kind + "_np"] = np.linalg.eig(a)
                res[dt + kind + "_npvals"] = np.linalg.eigvals(a)
            for out in ("real", "complex"):
                if dt == "z" and out == "real":
                    continue
                res[dt + kind + out + "_schur"] = sl.schur(a, output=out)
                res[dt + kind + out + "_lhp"] = sl.schur(a, output=out, sort="lhp")
                res[dt + kind + out + "_iuc"] = sl.schur(a, output=out, sort=lambda x, y=None: abs(x if y is None else x + 1j * y) <= 1.5)
    infos, queries = N.geev_lwork_infos()
    res["infos"], res["queries"] = np.array(infos), np.array(queries)
    infos, queries = N.gees_lwork_infos()
    res["gees_infos"], res["gees_queries"] = np.array(infos), np.array(queries)

""" + CALLS_TAIL


def _inputs(path):
    rng = np.random.default_rng(12)
    d = {}
    n = 40
    for dt in ("d", "z"):
        def m():
            x = rng.uniform(-1.0, 1.0, (n, n))
            return x + 1j * rng.uniform(-1.0, 1.0, (n, n)) if dt == "z" else x
        comp = np.diag(np.ones(n - 1), -1).astype(m().dtype)
        comp[0, :] = rng.integers(-5, 6, n)
        g = np.ldexp(1.0, -(np.arange(n) // 2))
        d.update({dt + "random": m(), dt + "companion": comp, dt + "graded": g[:, None] * m() * g})
    np.savez(path / "inputs.npz", **d)
    return d


def _resid(a, w, x, left=False):
    n = a.shape[0]
    r = x.conj().T @ a - w[:, None] * x.conj().T if left else a @ x - x * w
    return np.linalg.norm(r) / (np.linalg.norm(a) * np.linalg.norm(x) * n * U)


def _check_eig(a, w, vl, vr, nw, nvl, nvr, what):
    n = a.shape[0]
    if vr is not None:
        assert _resid(a, w, vr) <= 4 * _resid(a, nw, nvr) + 2, what
        assert np.allclose(np.linalg.norm(vr, axis=0), 1.0, atol=64 * n * U), what
    if vl is not None:
        assert _resid(a, w, vl, True) <= 4 * _resid(a, nw, nvl, True) + 2, what
    i, j = linear_sum_assignment(np.abs(w[:, None] - nw[None, :]))
    x, y = nvr / np.linalg.norm(nvr, axis=0), nvl / np.linalg.norm(nvl, axis=0)
    cond = 1.0 / np.abs(np.sum(y.conj() * x, axis=0))
    assert np.all(np.abs(w[i] - nw[j]) <= 1e3 * n * U * np.linalg.norm(a) * cond[j]), what


def _schur(a, t, z):
    n = a.shape[0]
    assert not np.tril(t, -2).any()
    return (np.linalg.norm(z.conj().T @ a @ z - t) / (np.linalg.norm(a) * n * U),
            np.linalg.norm(z.conj().T @ z - np.eye(n)) / (n * U))


def _check_schur(d, res):
    iuc = lambda x, y=None: abs(x if y is None else x + 1j * y) <= 1.5  # noqa: E731
    for dt in ("d", "z"):
        for kind in KINDS:
            a = d[dt + kind]
            for out in (("complex",) if dt == "z" else ("real", "complex")):
                for how, sort in (("_schur", None), ("_lhp", "lhp"), ("_iuc", iuc)):
                    key = dt + kind + out + how
                    want = sl.schur(a, output=out, sort=sort)
                    for m, nm in zip(_schur(a, res[key + "0"], res[key + "1"]), _schur(a, *want[:2])):
                        assert m <= 4 * nm + 2, (key, m, nm)
                    if sort is not None:
                        assert int(res[key + "2"]) == want[2], key


def _check(d, res, st, numpy_too):
    _check_schur(d, res)
    # gees through cython_lapack: one less than the smallest lwork the real routine's -13 (d) /
    # -12 (z) (select never called), the smallest computed with native's sdim and select
    # called as often (d: 2n, z: n); a bad ldvs: -11 / -10
    out, queries = N.gees_lwork_infos()
    assert res["gees_infos"].tolist() == out
    assert out[:3] == [-13, 0, 0] and out[12] == -11 and out[13:16] == [-12, 0, 0] and out[-1] == -10
    assert out[3] == 0 and out[5] == 80 and out[16] == 0 and out[18] == 40
    assert res["gees_queries"].tolist() == queries
    for r in ("dgees", "zgees"):
        assert st[r].get("native: argument error", {}).get("calls", 0) == 3, (r, st.get(r))
        assert st[r].get("ozblas: ozaki2/cpu", {}).get("calls", 0) >= 4, (r, st.get(r))
    for dt in ("d", "z"):
        for kind in KINDS:
            a = d[dt + kind]
            nw, nvl, nvr = sl.eig(a, left=True, right=True)
            w, vl, vr = (res[dt + kind + "_eig" + i] for i in "012")
            _check_eig(a, w, vl, vr, nw, nvl, nvr, f"{dt} {kind} scipy eig")
            if numpy_too:
                _check_eig(a, res[dt + kind + "_np0"], None, res[dt + kind + "_np1"], nw, nvl, nvr,
                           f"{dt} {kind} numpy eig")
                _check_eig(a, res[dt + kind + "_npvals"], None, None, nw, nvl, nvr,
                           f"{dt} {kind} numpy eigvals")
    infos, queries = N.geev_lwork_infos()
    # one less than LAPACK's smallest lwork: the real routine's -13 (d) / -12 (z); a bad ldvr
    # its -11 / -10; the smallest: computed by ozblas
    assert res["infos"].tolist() == infos == [-13, 0] * 3 + [-11] + [-12, 0] * 3 + [-10]
    assert res["queries"].tolist() == queries  # the real routine's answers
    for r in ("dgeev", "zgeev"):
        assert st[r].get("native: argument error", {}).get("calls", 0) == 4, (r, st.get(r))
        assert st[r].get("ozblas: ozaki2/cpu", {}).get("calls", 0) >= 6, (r, st.get(r))


def test_geev_under_ozblas_run(tmp_path):
    d = _inputs(tmp_path)
    res, st = run_child(tmp_path, CHILD, "run")
    _check(d, res, st, True)
    lines = (tmp_path / "trace.log").read_text().splitlines()
    routed = lambda sym: any(f"symbol={sym} " in x and "route=ozblas" in x for x in lines)  # noqa: E731
    # NumPy's eig reaches the ILP64 names; SciPy's wrappers and cython_lapack the LP64 ones
    for sym in ("scipy_dgeev_", "scipy_zgeev_", "scipy_dgeev_64_", "scipy_zgeev_64_", "scipy_dgees_",
                "scipy_zgees_"):
        assert routed(sym), sym


def test_geev_inside_activated(tmp_path):
    d = _inputs(tmp_path)
    res, st = run_child(tmp_path, CHILD, "activated")
    _check(d, res, st, False)
