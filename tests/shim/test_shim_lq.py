"""The preload shim's LQ, Hessenberg and least-squares entries (native/src/shim/shim_level3.c:
gelqf, orglq/unglq, ormlq/unmlq, gehrd, orghr/unghr, ormhr/unmhr, gels), reached the way users
reach them: scipy.linalg.hessenberg, scipy.linalg.lapack's dgels/zgels, the routines through
scipy.linalg.cython_lapack, and (under `ozblas run` only: the wheels' LAPACK calls them
through its own exported names) numpy.linalg's eig, whose geev calls gehrd and orghr (its svd
and lstsq reach gesdd and gelsd, routed whole: test_shim_svd.py). Emulation forced with small blocks
(OZBLAS_LAPACK_NB=16). Each result is held to native's on the same inputs in this (unrouted)
process by LAPACK-style ratios, at most 4x native's plus 1; LAPACK's smallest lwork and one
less give the real routine's info (the latter through its xerbla).
"""

import sys

import numpy as np
import pytest
import scipy.linalg as sl
import scipy.linalg.lapack as la

from _lapack_child import CALLS_TAIL, LAPACK_TESTS, calls_head, run_child

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="LD_PRELOAD is Linux")
sys.path.insert(0, str(LAPACK_TESTS))
import _native as N  # noqa: E402
from ozblas.testing import standard_normal

U = np.finfo(np.float64).eps / 2

CHILD = calls_head("_native") + """

def calls(numpy_too):
    for dt in ("d", "z"):
        a, w, b = inp[dt + "a"], inp[dt + "w"], inp[dt + "b"]
        res[dt + "hess_h"], res[dt + "hess_q"] = sl.hessenberg(a, calc_q=True)
        ct = "T" if dt == "d" else "C"
        for tr in ("N", ct):
            for name, m in (("tall", w.conj().T.copy()), ("wide", w)):
                res[dt + "gels_" + name + tr] = getattr(la, dt + "gels")(m, b, trans=tr)[1]
        lq, tau, _ = N.gelqf(w)
        res[dt + "lq"], res[dt + "lq_q"] = lq, N.orglq(lq, tau)[0]
        res[dt + "ormlq"] = N.ormlq("R", ct, lq, tau, b.T.copy())[0]
        h, tau, _ = getattr(la, dt + "gehrd")(a)
        res[dt + "ormhr"] = N.ormhr("L", ct, h, tau, b[:a.shape[0]], 0, a.shape[0] - 1)[0]
        if numpy_too:
            res[dt + "svd"] = np.linalg.svd(w, full_matrices=False)
            res[dt + "lstsq"] = np.linalg.lstsq(w, b[:w.shape[0]], rcond=None)[0]
            res[dt + "eig"] = np.linalg.eig(a)
    res["lwork"] = N.lwork_infos()

""" + CALLS_TAIL

ROUTINES = ("dgelqf", "zgelqf", "dorglq", "zunglq", "dormlq", "zunmlq", "dgehrd", "zgehrd",
            "dorghr", "zunghr", "dormhr", "zunmhr", "dgels", "zgels")


def _inputs(path):
    rng = np.random.default_rng(7)
    d = {}
    for dt in ("d", "z"):
        def m(r, c):
            x = standard_normal(rng, (r, c))
            return x + 1j * standard_normal(rng, (r, c)) if dt == "z" else x
        d.update({dt + "a": m(53, 53), dt + "w": m(37, 70), dt + "b": m(70, 3)})
    np.savez(path / "inputs.npz", **d)
    return d


def _within(r, nr, what):
    assert r <= 4 * nr + 1.0, f"{what}: {r:.3g} vs native {nr:.3g}"


def _fact(a, x, y, z):
    """||A - X Y Z|| / (||A|| max(m, n) u)"""
    return np.linalg.norm(a - x @ y @ z) / (np.linalg.norm(a) * max(a.shape) * U)


def _orth(q, rows=False):
    q = q.conj().T if rows else q
    return np.linalg.norm(q.conj().T @ q - np.eye(q.shape[1])) / (max(q.shape) * U)


def _ls(a, b, x, minimum_norm):
    """gels's test ratios (test_lapack_gels.py): the residual of a minimum-norm problem, the
    normal equations of a least-squares one"""
    r = b - a @ x
    if minimum_norm:
        return np.linalg.norm(r, 1) / (max(a.shape) * np.linalg.norm(a, 1) * np.linalg.norm(x, 1) * U)
    return np.linalg.norm(a.conj().T @ r, 1) / (max(a.shape) * np.linalg.norm(a, 1) * np.linalg.norm(b, 1) * U)


def _check(d, res, st, numpy_too):
    for dt in ("d", "z"):
        a, w, b = d[dt + "a"], d[dt + "w"], d[dt + "b"]
        h, q = sl.hessenberg(a, calc_q=True)
        _within(_fact(a, res[dt + "hess_q"], res[dt + "hess_h"], res[dt + "hess_q"].conj().T),
                _fact(a, q, h, q.conj().T), dt + " hessenberg")
        _within(_orth(res[dt + "hess_q"]), _orth(q), dt + " hessenberg Q")
        ct = "T" if dt == "d" else "C"
        for tr in ("N", ct):
            for name, m in (("tall", w.conj().T.copy()), ("wide", w)):
                op = m if tr == "N" else m.conj().T
                rows, cols = op.shape
                nx = getattr(la, dt + "gels")(m, b, trans=tr)[1]
                x = res[dt + "gels_" + name + tr]
                _within(_ls(op, b[:rows], x[:cols], rows < cols), _ls(op, b[:rows], nx[:cols], rows < cols),
                        f"{dt}gels {name} {tr}")
        lq, tau, _ = N.gelqf(w)
        nq = N.orglq(lq, tau)[0]
        k = w.shape[0]
        _within(_fact(w, np.tril(res[dt + "lq"])[:, :k], res[dt + "lq_q"], np.eye(w.shape[1])),
                _fact(w, np.tril(lq)[:, :k], nq, np.eye(w.shape[1])), dt + " gelqf")
        _within(_orth(res[dt + "lq_q"], rows=True), _orth(nq, rows=True), dt + " orglq")
        # the products against native's: the reflectors differ by rounding
        assert np.linalg.norm(res[dt + "ormlq"] - N.ormlq("R", ct, lq, tau, b.T.copy())[0]) < 1e-12 * np.linalg.norm(b)
        h, tau, _ = getattr(la, dt + "gehrd")(a)
        n = a.shape[0]
        assert np.linalg.norm(res[dt + "ormhr"] - N.ormhr("L", ct, h, tau, b[:n], 0, n - 1)[0]) < 1e-12 * np.linalg.norm(b)
        if numpy_too:
            u, s, vt = np.linalg.svd(w, full_matrices=False)
            gu, gs, gvt = (res[dt + "svd" + i] for i in "012")
            _within(_fact(w, gu, np.diag(gs), gvt), _fact(w, u, np.diag(s), vt), dt + " svd")
            _within(_orth(gvt, rows=True), _orth(vt, rows=True), dt + " svd V")
            x = np.linalg.lstsq(w, b[:w.shape[0]], rcond=None)[0]
            _within(_ls(w, b[:w.shape[0]], res[dt + "lstsq"], True), _ls(w, b[:w.shape[0]], x, True),
                    dt + " lstsq")
            ev, vec = np.linalg.eig(a)
            gev, gvec = res[dt + "eig0"], res[dt + "eig1"]
            be = lambda e, v: np.linalg.norm(a @ v - v * e) / (np.linalg.norm(a) * np.linalg.norm(v) * n * U)
            _within(be(gev, gvec), be(ev, vec), dt + " eig")
    # LAPACK's lwork bounds: the real routine's info either way (the smaller through its xerbla)
    native = N.lwork_infos()
    assert res["lwork"].tolist() == [native[r] for r in sorted(native)]
    assert all(lo < 0 and ok == 0 for lo, ok in native.values())
    for r in ROUTINES:
        assert st[r].get("ozblas: ozaki2/cpu", {}).get("calls", 0) > 0, (r, st.get(r))
        assert st[r].get("native: argument error", {}).get("calls", 0) == 1, (r, st.get(r))


def test_lq_hessenberg_gels_under_ozblas_run(tmp_path):
    d = _inputs(tmp_path)
    res, st = run_child(tmp_path, CHILD, "run")
    _check(d, res, st, True)
    lines = (tmp_path / "trace.log").read_text().splitlines()
    routed = lambda sym: any(f"symbol={sym} " in x and "route=ozblas" in x for x in lines)  # noqa: E731
    # NumPy's eig and lstsq reach the ILP64 geev and gelsd themselves (geev routed whole: its
    # gehrd is the layer's own); SciPy's wrappers and cython_lapack the LP64 names
    for sym in ("scipy_dgelsd_64_", "scipy_zgelsd_64_", "scipy_dgeev_64_",
                "scipy_zgeev_64_", "scipy_dgehrd_", "scipy_dorghr_",
                "scipy_zunghr_", "scipy_dgels_", "scipy_zgels_", "scipy_dgelqf_", "scipy_zunmlq_",
                "scipy_dormhr_"):
        assert routed(sym), sym
    g = [x for x in lines if " routine=dgehrd " in x and "route=ozblas" in x]
    assert g and all("ilo=" in x and "nb=16" in x and "emulated=" in x for x in g)
    assert any(" routine=dgels " in x and 'reason="argument error"' in x for x in lines)


def test_lq_hessenberg_gels_inside_activated(tmp_path):
    d = _inputs(tmp_path)
    res, st = run_child(tmp_path, CHILD, "activated")
    _check(d, res, st, False)
