"""The preload shim's sygst/hegst and trsyl entries (native/src/shim/shim_gen.c), reached the
way users reach them: scipy.linalg.solve_sylvester, solve_continuous_lyapunov,
solve_discrete_lyapunov (trsyl after their Schur decompositions), scipy.linalg.eigh(a, b)
(the wheel's sygvd calls sygst through its own exported name, so the preloaded shim catches
it; in-process activation leaves calls inside the LAPACK library alone) and the
scipy.linalg.lapack wrappers, under `ozblas run` and inside ozblas.activated(...), emulation
forced with small blocks (OZBLAS_LAPACK_NB=16). Each result is held to native's on the same
inputs in this (unrouted) process: at most 4x its error plus a small floor.
"""

import sys

import numpy as np
import pytest
import scipy.linalg as sl

from _lapack_child import run_child, run_preloaded, within as _within
from ozblas.testing import standard_normal

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="LD_PRELOAD is Linux")

N = 53
CHILD = """
import json, sys
import numpy as np, scipy.linalg as sl, scipy.linalg.lapack as la
import ozblas

out_dir, mode = sys.argv[1], sys.argv[2]
inp = np.load(out_dir + "/inputs.npz")
res = {}

def calls():
    for dt in ("d", "z"):
        a, b, q, s, h = (inp[dt + k] for k in ("a", "b", "q", "s", "h"))
        res[dt + "sylvester"] = sl.solve_sylvester(a, b, q)
        res[dt + "lyapunov"] = sl.solve_continuous_lyapunov(a, q[:, :a.shape[0]])
        res[dt + "discrete"] = sl.solve_discrete_lyapunov(a / 20, q[:, :a.shape[0]])
        ta, tb = sl.schur(a, output="complex" if dt == "z" else "real")[0], inp[dt + "tb"]
        x, scale, info = getattr(la, dt + "trsyl")(ta, tb, q, trana="C" if dt == "z" else "T", isgn=-1)
        res[dt + "trsyl"], res[dt + "trsyl_scale"], res[dt + "ta"] = x, np.array([scale, info]), ta
        c = sl.cholesky(s, lower=True)
        res[dt + "sygst"] = getattr(la, "zhegst" if dt == "z" else "dsygst")(h, c, itype=2, lower=1)[0]
        res[dt + "eigh"] = sl.eigh(h, s, eigvals_only=True)
        nan = q.copy()
        nan[2, 3] = np.nan
        getattr(la, dt + "trsyl")(ta, tb, nan)

if mode == "activated":
    with ozblas.activated(method="ozaki2", min_size=0, moduli=16):
        calls()
else:
    calls()
np.savez(out_dir + "/results.npz", **res)
st = ozblas.stats()["routines"]
json.dump({"stats": {r: v["routes"] for r, v in st.items() if v["calls"]}}, open(out_dir + "/out.json", "w"))
"""


def _inputs(path):
    rng = np.random.default_rng(17)
    d = {}
    for dt in ("d", "z"):
        def m(r, c):
            x = standard_normal(rng, (r, c))
            return x + 1j * standard_normal(rng, (r, c)) if dt == "z" else x
        a, b = m(N, N), m(N + 7, N + 7)
        g = m(N, N)
        h = m(N, N)
        d.update({dt + "a": a, dt + "b": b, dt + "q": m(N, N + 7), dt + "s": g @ g.conj().T + N * np.eye(N),
                  dt + "h": h + h.conj().T,
                  dt + "tb": sl.schur(b, output="complex" if dt == "z" else "real")[0]})
    np.savez(path / "inputs.npz", **d)
    return d


def _nrm(x):
    return np.linalg.norm(x)


def _check(d, res, out, mode):
    for dt in ("d", "z"):
        a, b, q, s, h = (d[dt + k] for k in ("a", "b", "q", "s", "h"))
        qs = q[:, :N]
        syl = lambda x: _nrm(a @ x + x @ b - q) / ((_nrm(a) + _nrm(b)) * _nrm(x))  # noqa: E731
        _within(syl(res[dt + "sylvester"]), syl(sl.solve_sylvester(a, b, q)), dt + "sylvester")
        lya = lambda x: _nrm(a @ x + x @ a.conj().T - qs) / (2 * _nrm(a) * _nrm(x))  # noqa: E731
        _within(lya(res[dt + "lyapunov"]), lya(sl.solve_continuous_lyapunov(a, qs)), dt + "lyapunov")
        ad = a / 20
        dis = lambda x: _nrm(ad @ x @ ad.conj().T - x + qs) / (_nrm(qs) + _nrm(x))  # noqa: E731
        _within(dis(res[dt + "discrete"]), dis(sl.solve_discrete_lyapunov(ad, qs)), dt + "discrete")
        # the child's Schur form: its schur is routed too (gehrd, orghr), and a real Schur form
        # is not unique (2 x 2 blocks), so native's need not be the same matrix
        ta, tb = res[dt + "ta"], d[dt + "tb"]
        x, (scale, info) = res[dt + "trsyl"], res[dt + "trsyl_scale"]
        nx, nscale, ninfo = getattr(sl.lapack, dt + "trsyl")(ta, tb, q, trana="C" if dt == "z" else "T", isgn=-1)
        assert scale == nscale == 1.0 and info == ninfo == 0
        tr = lambda x: _nrm(ta.conj().T @ x - x @ tb - q) / ((_nrm(ta) + _nrm(tb)) * _nrm(x))  # noqa: E731
        _within(tr(x), tr(nx), dt + "trsyl")
        c = sl.cholesky(s, lower=True)
        got = np.tril(res[dt + "sygst"])
        want = np.tril(getattr(sl.lapack, "zhegst" if dt == "z" else "dsygst")(h, c, itype=2, lower=1)[0])
        assert _nrm(got - want) <= 16 * N * 2.0**-53 * np.linalg.cond(s) * _nrm(want), dt + "sygst"
        w, nw = res[dt + "eigh"], sl.eigh(h, s, eigvals_only=True)
        assert np.max(np.abs(w - nw)) <= 4 * N * 2.0**-53 * np.linalg.cond(s) * np.max(np.abs(nw)), dt + "eigh"
    st = out["stats"]
    for r in ("dtrsyl", "ztrsyl", "dsygst", "zhegst", "dsygvd", "zhegvd"):
        routed = st[r].get("ozblas: ozaki2/cpu", {}).get("calls", 0)
        # solve_sylvester, the continuous and discrete Lyapunov solvers, the direct call;
        # eigh(a, b)'s sygvd (its sygst is the driver's own, not the exported entry's)
        assert routed >= (4 if r.endswith("trsyl") else 1), (r, st[r])
    for r in ("dtrsyl", "ztrsyl"):
        assert st[r]["native: non-finite input"]["calls"] == 1


@pytest.mark.parametrize("mode", ["run", "activated"])
def test_scipy_solvers_routed(tmp_path, mode):
    d = _inputs(tmp_path)
    res, out = run_child(tmp_path, CHILD, mode)
    _check(d, res, out, mode)
    if mode == "run":
        lines = (tmp_path / "trace.log").read_text().splitlines()
        assert any("routine=dtrsyl symbol=scipy_dtrsyl_ m=53 n=60 isgn=1 route=ozblas" in x for x in lines)
        assert any("routine=zhegst symbol=scipy_zhegst_ n=53 itype=2 route=ozblas" in x for x in lines)
        assert any("routine=zhegvd symbol=scipy_zhegvd_ n=53 itype=1 jobz=N route=ozblas" in x for x in lines)


def test_argument_errors_reach_the_real_xerbla(tmp_path):
    body = """
    import ctypes
    import scipy.linalg  # loads SciPy's LAPACK, the real routine
    import ozblas.shim as s
    lib = ctypes.CDLL(s.library_path())
    i = ctypes.c_int32
    m, isgn, ld, info, scale = i(4), i(2), i(4), i(0), ctypes.c_double(0)
    a = (ctypes.c_double * 16)()
    lib.scipy_dtrsyl_(b"N", b"N", ctypes.byref(isgn), ctypes.byref(m), ctypes.byref(m), a,
                      ctypes.byref(ld), a, ctypes.byref(ld), a, ctypes.byref(ld), ctypes.byref(scale),
                      ctypes.byref(info), 1, 1)
    print("info", info.value)
    itype, n = i(4), i(4)
    lib.scipy_dsygst_(ctypes.byref(itype), b"U", ctypes.byref(n), a, ctypes.byref(ld), a,
                      ctypes.byref(ld), ctypes.byref(info), 1)
    print("info", info.value)
    """
    p = run_preloaded(tmp_path, body)
    assert "info -3" in p.stdout and "info -1" in p.stdout
    text = (p.stdout + p.stderr).upper()
    assert "DTRSYL" in text and "DSYGST" in text
    trace = (tmp_path / "trace.log").read_text()
    assert trace.count('reason="argument error"') == 2
