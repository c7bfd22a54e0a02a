"""The preload shim's eigensolver entries (syevd syev syevr, heevd heev heevr, sygvd sygv,
hegvd hegv;
native/src/shim/shim_eigen.c) reached the way users reach them: numpy.linalg.eigh and eigvalsh
(scipy_dsyevd_64_), scipy.linalg.eigh and eigvalsh (scipy_dsyevr_ by default, its drivers
"evd" and "ev", subsets by index and by value) and the LAPACK wrappers, under `ozblas run`
and inside ozblas.activated(...), emulation forced with small blocks (OZBLAS_LAPACK_NB=16) so
that n = 53 runs the two-stage driver. Each result is held to native LAPACK's on the same
input in this (unrouted) process: residual, orthogonality and eigenvalue differences at most
4x native's plus 1e-15 (relative to ||A||).
"""

import sys

import numpy as np
import pytest
import scipy.linalg as sl
from _lapack_child import run_child, run_preloaded, within as _within
from test_shim_lapack import CHILD as LAPACK_CHILD
from ozblas.testing import standard_normal

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="LD_PRELOAD is Linux")

N = 53
CALLS = """
def calls():
    for dt in ("d", "z"):
        a = inp[dt + "a"]
        w, v = np.linalg.eigh(a)
        res[dt + "np_eigh_w"], res[dt + "np_eigh_v"] = w, v
        res[dt + "np_eigvalsh"] = np.linalg.eigvalsh(a)
        res[dt + "np_eigh_U_w"], res[dt + "np_eigh_U_v"] = np.linalg.eigh(a, UPLO="U")
        for drv in ("evr", "evd", "ev"):
            w, v = sl.eigh(a, driver=drv)
            res[dt + "sl_" + drv + "_w"], res[dt + "sl_" + drv + "_v"] = w, v
        res[dt + "sl_eigvalsh"] = sl.eigvalsh(a)
        w, v = sl.eigh(a, subset_by_index=[10, 30])
        res[dt + "sl_index_w"], res[dt + "sl_index_v"] = w, v
        w, v = sl.eigh(a, subset_by_value=[-2.0, 3.0])
        res[dt + "sl_value_w"], res[dt + "sl_value_v"] = w, v
        b = inp[dt + "b"]
        for drv, typ in (("gvd", 1), ("gv", 1), ("gvd", 2), ("gvd", 3)):  # eigh(a, b): sygvd
            w, v = sl.eigh(a, b, driver=drv, type=typ)
            res["%s%s%d_w" % (dt, drv, typ)], res["%s%s%d_v" % (dt, drv, typ)] = w, v
        trd = getattr(sl.lapack, "zhetrd" if dt == "z" else "dsytrd")
        for lower in (0, 1):
            c, d, e, tau, _ = trd(a, lower=lower)
            res[dt + "trd%d" % lower] = np.concatenate([d, e])
        nan = a.copy()
        nan[3, 4] = nan[4, 3] = np.nan
        try:
            np.linalg.eigvalsh(nan)  # non-finite: the real routine
        except Exception:
            pass

"""
CHILD = (LAPACK_CHILD[:LAPACK_CHILD.index("def calls():")] + CALLS
         + LAPACK_CHILD[LAPACK_CHILD.index('if mode == "activated"'):])


def _inputs(path):
    rng = np.random.default_rng(7)
    d = {}
    for dt in ("d", "z"):
        a = standard_normal(rng, (N, N)) + (1j * standard_normal(rng, (N, N)) if dt == "z" else 0)
        d[dt + "a"] = (a + a.conj().T) / 2
        g = standard_normal(rng, (N, N)) + (1j * standard_normal(rng, (N, N)) if dt == "z" else 0)
        d[dt + "b"] = g @ g.conj().T + N * np.eye(N)
    np.savez(path / "inputs.npz", **d)
    return d


def _errs(a, w, v):
    na = np.linalg.norm(a, 2)
    out = [np.linalg.norm(a @ v - v * w) / na, np.linalg.norm(v.conj().T @ v - np.eye(v.shape[1]))]
    return out


def _check(d, res, out):
    for dt in ("d", "z"):
        a = d[dt + "a"]
        na = np.linalg.norm(a, 2)
        natives = {"np_eigh": np.linalg.eigh(a), "np_eigh_U": np.linalg.eigh(a, UPLO="U"),
                   "sl_evr": sl.eigh(a, driver="evr"), "sl_evd": sl.eigh(a, driver="evd"),
                   "sl_ev": sl.eigh(a, driver="ev"),
                   "sl_index": sl.eigh(a, subset_by_index=[10, 30]),
                   "sl_value": sl.eigh(a, subset_by_value=[-2.0, 3.0])}
        for name, (nw, nv) in natives.items():
            w, v = res[dt + name + "_w"], res[dt + name + "_v"]
            assert w.shape == nw.shape and v.shape == nv.shape, name
            for e, ne, what in zip(_errs(a, w, v), _errs(a, nw, nv), ("residual", "orthogonality")):
                _within(e, ne, f"{dt} {name} {what}")
            _within(np.max(np.abs(w - nw)) / na, 1e-15, f"{dt} {name} eigenvalues")
        b = d[dt + "b"]
        nb_ = np.linalg.norm(b, 2)
        for drv, typ in (("gvd", 1), ("gv", 1), ("gvd", 2), ("gvd", 3)):
            w, v = res["%s%s%d_w" % (dt, drv, typ)], res["%s%s%d_v" % (dt, drv, typ)]
            nw, nv = sl.eigh(a, b, driver=drv, type=typ)
            for x, nx, what in ((w, nw, "eigenvalues"), (v, nv, "eigenvectors")):
                assert x.shape == nx.shape, (drv, typ, what)
            r = {1: lambda w, v: a @ v - (b @ v) * w, 2: lambda w, v: a @ (b @ v) - v * w,
                 3: lambda w, v: b @ (a @ v) - v * w}[typ]
            res_n = lambda w, v: np.linalg.norm(r(w, v)) / (na * nb_ * np.linalg.norm(v, 2))  # noqa: E731
            _within(res_n(w, v), res_n(nw, nv), f"{dt} eigh(a, b) {drv} type {typ} residual")
            _within(np.max(np.abs(w - nw)) / np.max(np.abs(nw)), 1e-13, f"{dt} {drv} {typ} eigenvalues")
        for lower in (0, 1):  # the tridiagonal's eigenvalues are A's
            td, te = np.split(res[dt + "trd%d" % lower], [N])
            t = np.diag(td) + np.diag(te, 1) + np.diag(te, -1)
            _within(np.max(np.abs(np.linalg.eigvalsh(t) - np.linalg.eigvalsh(a))) / na, 1e-15,
                    f"{dt} sytrd lower={lower}")
        for name in ("np_eigvalsh", "sl_eigvalsh"):
            _within(np.max(np.abs(res[dt + name] - np.linalg.eigvalsh(a))) / na, 1e-15, name)
    st = out["stats"]
    for r in ("dsyevd", "zheevd", "dsyevr", "zheevr", "dsyev", "zheev", "dsytrd", "zhetrd",
              "dsygvd", "zhegvd", "dsygv", "zhegv"):
        assert st[r].get("ozblas: ozaki2/cpu", {}).get("calls", 0) > 0, (r, st.get(r))
    # the layer's account of the host: its products' time and the rest, the host flops
    for r in ("dsyevd", "zheevd", "dsygvd"):
        cell = st[r]["ozblas: ozaki2/cpu"]
        assert cell["product_seconds"] > 0 and cell["host_seconds"] > 0 and cell["host_flops"] > 0, cell
    # SciPy's own workspace queries and the non-finite input go to the real routine
    for r in ("dsyevr", "zheevr", "dsyevd", "zheevd"):
        assert st[r]["native: workspace query"]["calls"] > 0, (r, st[r])
    for r in ("dsyevd", "zheevd"):
        assert st[r]["native: non-finite input"]["calls"] == 1


def test_eigh_under_ozblas_run(tmp_path):
    d = _inputs(tmp_path)
    res, out = run_child(tmp_path, CHILD, "run")
    _check(d, res, out)
    lines = (tmp_path / "trace.log").read_text().splitlines()
    evd = [x for x in lines if " routine=dsyevd " in x and "route=ozblas" in x]
    assert evd and all("nb=16" in x and " emulated=0 " not in x for x in evd)
    for x in evd:  # the products' time beside the host remainder, and the host flops
        f = dict(kv.split("=", 1) for kv in x.split() if "=" in kv)
        assert float(f["product_seconds"]) > 0 and float(f["host_seconds"]) > 0, x
        assert float(f["host_flops"]) > 0, x
    assert any("symbol=scipy_dsyevd_64_ " in x for x in evd)  # NumPy's
    assert any(" routine=dsyevr " in x and "symbol=scipy_dsyevr_ " in x and "route=ozblas" in x
               for x in lines)


def test_eigh_inside_activated(tmp_path):
    d = _inputs(tmp_path)
    res, out = run_child(tmp_path, CHILD, "activated")
    _check(d, res, out)


def test_argument_errors_reach_the_real_xerbla(tmp_path):
    body = """
    import ctypes
    import scipy.linalg  # loads SciPy's LAPACK, the real routine
    import ozblas.shim as s
    lib = ctypes.CDLL(s.library_path())
    i = ctypes.c_int32
    a = (ctypes.c_double * 64)()
    w = (ctypes.c_double * 8)()
    work = (ctypes.c_double * 400)()
    iwork = (ctypes.c_int32 * 100)()
    for lda, lwork in [(2, 400), (8, 3)]:
        n, l, lw, liw, info = i(8), i(lda), i(lwork), i(100), i(0)
        lib.scipy_dsyevd_(b"V", b"L", ctypes.byref(n), a, ctypes.byref(l), w, work,
                          ctypes.byref(lw), iwork, ctypes.byref(liw), ctypes.byref(info),
                          ctypes.c_size_t(1), ctypes.c_size_t(1))
        print("info", info.value, flush=True)
    """
    p = run_preloaded(tmp_path, body)
    assert "info -5" in p.stdout and "info -8" in p.stdout
    assert "DSYEVD" in (p.stdout + p.stderr).upper()
    trace = (tmp_path / "trace.log").read_text()
    assert trace.count('reason="argument error"') == 2 and "routine=dsyevd" in trace


def test_ormtr_orgtr_through_the_shim(tmp_path):
    """dormtr and dorgtr called by name (SciPy wraps neither): uplo L routed, with the real
    routine's result within 4x its error; uplo U (QL-form reflectors) passed to the real
    routine with its reason."""
    body = """
    import ctypes, json
    import numpy as np, scipy.linalg.lapack as la
    import ozblas.shim as s
    from ozblas.testing import standard_normal
    lib = ctypes.CDLL(s.library_path())
    i, n = ctypes.c_int32, 53
    rng = np.random.default_rng(3)
    a = standard_normal(rng, (n, n)); a = a + a.T
    x = standard_normal(rng, (n, 4))
    P = lambda v: v.ctypes.data_as(ctypes.POINTER(ctypes.c_double))  # noqa: E731
    one = ctypes.c_size_t(1)
    out = {}
    for uplo in (b"L", b"U"):
        c, d, e, tau, _ = la.dsytrd(a, lower=uplo == b"L")
        c, tau = np.asfortranarray(c), np.ascontiguousarray(tau)
        q = c.copy(order="F")
        work = np.zeros(64 * n)
        nn, lw, info = i(n), i(64 * n), i(0)
        lib.scipy_dorgtr_(uplo, ctypes.byref(nn), P(q), ctypes.byref(nn), P(tau), P(work),
                          ctypes.byref(lw), ctypes.byref(info), one)
        y = np.asfortranarray(x.copy())
        m4, c4 = i(n), i(4)
        lib.scipy_dormtr_(b"L", uplo, b"N", ctypes.byref(m4), ctypes.byref(c4), P(c),
                          ctypes.byref(nn), P(tau), P(y), ctypes.byref(nn), P(work),
                          ctypes.byref(lw), ctypes.byref(info), one, one, one)
        t = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
        out[uplo.decode()] = [float(np.linalg.norm(a - q @ t @ q.T) / np.linalg.norm(a)),
                              float(np.linalg.norm(q.T @ q - np.eye(n))),
                              float(np.linalg.norm(y - q @ x) / np.linalg.norm(x))]
    print(json.dumps(out), flush=True)
    """
    p = run_preloaded(tmp_path, body)
    out = __import__("json").loads(p.stdout.strip().splitlines()[-1])
    for uplo, (res, orth, apply) in out.items():
        assert res < 1e-13 and orth < 1e-13 and apply < 1e-13, (uplo, res, orth, apply)
    trace = (tmp_path / "trace.log").read_text()
    routed = [x for x in trace.splitlines() if "route=ozblas" in x]
    assert any("routine=dorgtr" in x for x in routed) and any("routine=dormtr" in x for x in routed)
    assert trace.count('reason="uplo U: QL-form reflectors, not routed"') == 2
