"""The preload shim's bidiagonal, least-squares and SVD entries (native/src/shim/shim_svd.c:
gebrd, orgbr/ungbr, ormbr/unmbr, gelsy, gelsd, gelss, gesdd, gesvd), reached the way users
reach them: scipy.linalg.lstsq with lapack_driver "gelsy", "gelsd" and "gelss" (tall, wide,
rank 9), scipy.linalg.svd with lapack_driver "gesvd" (tall, wide), the routines through
scipy.linalg.cython_lapack, and under `ozblas run` numpy.linalg's svd (gesdd) and lstsq
(gelsd), which the wheel's LAPACK reaches through its own exported names; gesdd's minimum
lwork for each of its paths and one less, and gelsd's, gelss's and gesvd's off their
QR-first paths, against the real routine's info.
Emulation forced with small blocks (OZBLAS_LAPACK_NB=16). Each result is held to native's on
the same inputs in this (unrouted) process by LAPACK-style ratios, at most 4x native's plus a
floor; gelsy's rank and permutation must be native's; LAPACK's smallest lwork and one less
give the real routine's info (the latter through its xerbla).
"""

import sys

import numpy as np
import pytest
import scipy.linalg as sl

from _lapack_child import CALLS_TAIL, LAPACK_TESTS, calls_head, run_child

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="LD_PRELOAD is Linux")
sys.path.insert(0, str(LAPACK_TESTS))
import _native_brd as N  # noqa: E402
from ozblas.testing import standard_normal

U = np.finfo(np.float64).eps / 2
FLOOR = 4.0

CHILD = calls_head("_native_brd") + """

def calls(numpy_too):
    for dt in ("d", "z"):
        t, low, b = inp[dt + "t"], inp[dt + "low"], inp[dt + "b"]
        k = t.shape[1]
        c, d, e, tq, tp, _ = N.gebrd(t)
        res[dt + "brd_c"], res[dt + "brd_d"], res[dt + "brd_e"] = c, d, e
        res[dt + "brd_tq"], res[dt + "brd_tp"] = tq, tp
        res[dt + "brd_q"] = N.orgbr("Q", c[:, :k], tq, k)[0]
        res[dt + "brd_pt"] = N.orgbr("P", c[:k, :], tp, t.shape[0])[0]
        ct = "T" if dt == "d" else "C"
        res[dt + "ormbr"] = N.ormbr("P", "R", ct, c[:k, :], tp, b[:5, :k].copy(), t.shape[0])[0]
        x, res[dt + "gelsy_rank"] = sl.lstsq(low, b[:low.shape[0]], cond=1e-10,
                                              lapack_driver="gelsy")[::2]
        res[dt + "gelsy"] = x
        for drv in ("gelsd", "gelss"):  # full rank (tall, wide) and rank 9
            for name, a, bb in (("t", t, b), ("w", t[:20].conj().T, b[:37]), ("low", low, b[:60])):
                x, _, rank, sv = sl.lstsq(a, bb, lapack_driver=drv)
                res[dt + drv + name], res[dt + drv + name + "_rank"] = x, rank
                res[dt + drv + name + "_s"] = sv
        res[dt + "gesvd"] = sl.svd(t, lapack_driver="gesvd")
        res[dt + "gesvd_w"] = sl.svd(t[:20].conj().T.copy(), full_matrices=False, lapack_driver="gesvd")
        if numpy_too:
            res[dt + "svd"] = np.linalg.svd(t, full_matrices=False)
            res[dt + "svd_full"] = np.linalg.svd(t)
            res[dt + "lstsq"] = np.linalg.lstsq(t, b, rcond=None)[0]
    res["lwork"] = N.lwork_infos()
    res["gesdd_lwork"] = N.gesdd_lwork_infos()
    res["lstsq_lwork"] = N.lstsq_lwork_infos()
    res["gesvd_lwork"] = N.gesvd_lwork_infos()

""" + CALLS_TAIL

ROUTINES = ("dgebrd", "zgebrd", "dorgbr", "zungbr", "dormbr", "zunmbr", "dgelsy", "zgelsy")


def _inputs(path):
    rng = np.random.default_rng(11)
    d = {}
    for dt in ("d", "z"):
        def m(r, c):
            x = standard_normal(rng, (r, c))
            return x + 1j * standard_normal(rng, (r, c)) if dt == "z" else x
        d.update({dt + "t": m(70, 37), dt + "low": (standard_normal(rng, (60, 9)) @
                                                   standard_normal(rng, (9, 40))).astype(m(1, 1).dtype),
                  dt + "b": m(70, 3)})
    np.savez(path / "inputs.npz", **d)
    return d


def _within(r, nr, what):
    assert r <= 4 * nr + FLOOR, f"{what}: {r:.3g} vs native {nr:.3g}"


def _fact(a, x, y, z):
    """||A - X Y Z|| / (||A|| max(m, n) u)"""
    return np.linalg.norm(a - x @ y @ z) / (np.linalg.norm(a) * max(a.shape) * U)


def _orth(q, rows=False):
    q = q.conj().T if rows else q
    return np.linalg.norm(q.conj().T @ q - np.eye(q.shape[1])) / (max(q.shape) * U)


def _lsq(a, b, x):
    """||A^H (B - A X)|| / (||A||^2 ||X|| max(m, n) u): zero at the least-squares solution (for a
    rank-deficient A, within its numerical range)"""
    return np.linalg.norm(a.conj().T @ (b - a @ x)) / (np.linalg.norm(a) ** 2 * np.linalg.norm(x) * max(a.shape) * U)


def _svd_check(a, got, want, what):
    gu, gs, gvt = got
    u, s, vt = want
    k = min(a.shape)
    _within(_fact(a, gu[:, :k], np.diag(gs), gvt[:k]), _fact(a, u[:, :k], np.diag(s), vt[:k]), what)
    _within(_orth(gu), _orth(u), what + " U")
    _within(_orth(gvt, rows=True), _orth(vt, rows=True), what + " V")
    assert np.abs(gs - s).max() <= 20 * max(a.shape) * U * s[0]


def _check(d, res, st, numpy_too):
    for dt in ("d", "z"):
        t, low, b = d[dt + "t"], d[dt + "low"], d[dt + "b"]
        m, k = t.shape
        nc, nd, ne, ntq, ntp, _ = N.gebrd(t)
        nq, npt = N.orgbr("Q", nc[:, :k], ntq, k)[0], N.orgbr("P", nc[:k, :], ntp, m)[0]
        bd = lambda dd, ee: np.diag(dd) + np.diag(ee, 1)  # noqa: E731
        _within(_fact(t, res[dt + "brd_q"], bd(res[dt + "brd_d"], res[dt + "brd_e"]), res[dt + "brd_pt"]),
                _fact(t, nq, bd(nd, ne), npt), dt + " gebrd")
        _within(_orth(res[dt + "brd_q"]), _orth(nq), dt + " orgbr Q")
        _within(_orth(res[dt + "brd_pt"], rows=True), _orth(npt, rows=True), dt + " orgbr P")
        # ormbr against native's on the child's own reflectors (the shifted P of a tall matrix)
        ct = "T" if dt == "d" else "C"
        c, tp = res[dt + "brd_c"], res[dt + "brd_tp"]
        want = N.ormbr("P", "R", ct, c[:k, :], tp, b[:5, :k].copy(), m)[0]
        assert np.linalg.norm(res[dt + "ormbr"] - want) <= 50 * k * U * np.linalg.norm(b[:5, :k])
        nx, _, nrank, _ = sl.lstsq(low, b[:low.shape[0]], cond=1e-10, lapack_driver="gelsy")
        assert int(res[dt + "gelsy_rank"]) == nrank == 9
        assert np.linalg.norm(res[dt + "gelsy"] - nx) <= 1e-8 * np.linalg.norm(nx)
        for drv in ("gelsd", "gelss"):
            for name, a, bb in (("t", t, b), ("w", t[:20].conj().T, b[:37]), ("low", low, b[:60])):
                x, _, rank, sv = sl.lstsq(a, bb, lapack_driver=drv)
                ours_s, ours_rank, tol = res[dt + drv + name + "_s"], int(res[dt + drv + name + "_rank"]), \
                    20 * max(a.shape) * U * sv[0]
                assert np.abs(ours_s - sv).max() <= tol
                # the rank is rcond's rule (rcond -1: eps s_1) on each side's own singular values;
                # those within the values' tolerance of the threshold (rank 9's noise, about
                # eps s_1) may fall either side
                eps = 2 * U
                assert ours_rank == int(np.sum(ours_s > eps * ours_s[0])), (dt, drv, name)
                assert np.sum(sv > eps * sv[0] + tol) <= ours_rank <= np.sum(sv > eps * sv[0] - tol)
                assert rank == ours_rank or name == "low", (dt, drv, name)
                _within(_lsq(a, bb, res[dt + drv + name]), _lsq(a, bb, x), f"{dt} {drv} {name}")
        _svd_check(t, [res[dt + "gesvd" + i] for i in "012"], sl.svd(t, lapack_driver="gesvd"),
                   dt + " gesvd")
        w = t[:20].conj().T.copy()
        _svd_check(w, [res[dt + "gesvd_w" + i] for i in "012"],
                   sl.svd(w, full_matrices=False, lapack_driver="gesvd"), dt + " gesvd wide")
        if numpy_too:
            _svd_check(t, [res[dt + "svd" + i] for i in "012"], np.linalg.svd(t, full_matrices=False),
                       dt + " svd")
            _svd_check(t, [res[dt + "svd_full" + i] for i in "012"], np.linalg.svd(t), dt + " svd full")
            _within(_lsq(t, b, res[dt + "lstsq"]), _lsq(t, b, np.linalg.lstsq(t, b, rcond=None)[0]),
                    dt + " lstsq")
    native = N.lwork_infos()
    assert res["lwork"].tolist() == [native[r] for r in sorted(native)]
    assert all(lo < 0 and ok == 0 for lo, ok in native.values())
    # gesdd: LAPACK's minimum lwork for each path, one less to the real routine's xerbla
    native_sdd = N.gesdd_lwork_infos()
    assert res["gesdd_lwork"].tolist() == native_sdd == [-12, 0] * (len(native_sdd) // 2)
    for r in ("dgesdd", "zgesdd"):  # 4 shapes x 4 jobz each way, the valid ones computed by ozblas
        assert st[r].get("native: argument error", {}).get("calls", 0) == 16, (r, st.get(r))
        assert st[r].get("ozblas: ozaki2/cpu", {}).get("calls", 0) >= 16, (r, st.get(r))
    # gelsd, gelss: their minimum lwork (one QR-first shape), one less to the real routine
    assert res["lstsq_lwork"].tolist() == N.lstsq_lwork_infos() == [-12, 0] * 16
    # gesvd: LAPACK's documented minimum off the QR-first paths, one less to the real routine
    assert res["gesvd_lwork"].tolist() == N.gesvd_lwork_infos() == [-13, 0] * 20
    for r in ("dgesvd", "zgesvd"):  # 2 shapes x 5 job pairs with one less
        assert st[r].get("native: argument error", {}).get("calls", 0) == 10, (r, st.get(r))
        assert st[r].get("ozblas: ozaki2/cpu", {}).get("calls", 0) >= 12, (r, st.get(r))
    for r in ("dgelsd", "zgelsd", "dgelss", "zgelss"):  # 4 shapes each with one less
        assert st[r].get("native: argument error", {}).get("calls", 0) == 4, (r, st.get(r))
        assert st[r].get("ozblas: ozaki2/cpu", {}).get("calls", 0) >= 4, (r, st.get(r))
    for r in ROUTINES:
        assert st[r].get("ozblas: ozaki2/cpu", {}).get("calls", 0) > 0, (r, st.get(r))
        assert st[r].get("native: argument error", {}).get("calls", 0) == 1, (r, st.get(r))


def test_brd_gelsy_under_ozblas_run(tmp_path):
    d = _inputs(tmp_path)
    res, st = run_child(tmp_path, CHILD, "run")
    _check(d, res, st, True)
    lines = (tmp_path / "trace.log").read_text().splitlines()
    routed = lambda sym: any(f"symbol={sym} " in x and "route=ozblas" in x for x in lines)  # noqa: E731
    # NumPy's gesdd and gelsd reach the ILP64 names (routed whole); SciPy's wrappers and
    # cython_lapack the LP64 ones
    for sym in ("scipy_dgebrd_", "scipy_dorgbr_", "scipy_zungbr_", "scipy_dormbr_", "scipy_dgelsy_",
                "scipy_zgelsy_", "scipy_dgesdd_64_", "scipy_zgesdd_64_", "scipy_dgelsd_64_",
                "scipy_zgelsd_64_", "scipy_dgelsd_", "scipy_zgelsd_", "scipy_dgelss_", "scipy_zgelss_",
                "scipy_dgesvd_", "scipy_zgesvd_"):
        assert routed(sym), sym
    # numpy.linalg.svd: gesdd itself (two-stage, products emulated), with and without U, V
    for r in ("dgesdd", "zgesdd"):
        assert st[r].get("ozblas: ozaki2/cpu", {}).get("calls", 0) >= 2, (r, st.get(r))


def test_brd_gelsy_inside_activated(tmp_path):
    d = _inputs(tmp_path)
    res, st = run_child(tmp_path, CHILD, "activated")
    _check(d, res, st, False)
