"""The preload shim's LAPACK entries (native/src/shim/shim_lapack.c), reached the way users
reach them: scipy.linalg and numpy.linalg under `ozblas run` and inside
ozblas.activated(...), emulation forced with small blocks (OZBLAS_LAPACK_NB=16) so that
n = 53 runs the blocked drivers. Each result is held to native LAPACK's error on the same
inputs in this (unrouted) process: at most 4x it plus 1e-15.
"""

import sys

import numpy as np
import pytest
import scipy.linalg as sl

from ozblas.testing import exact_matmul, standard_normal

from _lapack_child import run_child, run_preloaded, within as _within

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="LD_PRELOAD is Linux")

N = 53
CHILD = """
import json, sys, warnings
import numpy as np, scipy.linalg as sl
import ozblas

out_dir, mode = sys.argv[1], sys.argv[2]
inp = np.load(out_dir + "/inputs.npz")
res, errors = {}, {}

def calls():
    for dt in ("d", "z"):
        a, b, s, t = (inp[dt + k] for k in "abst")
        res[dt + "solve"] = sl.solve(a, b)
        res[dt + "solve_pos"] = sl.solve(s, b, assume_a="pos")
        res[dt + "solve_sym_default"] = sl.solve(s, b)  # sytrf/hetrf: passed through
        res[dt + "lu_solve"] = sl.lu_solve(sl.lu_factor(a), b)
        res[dt + "cho_solve"] = sl.cho_solve(sl.cho_factor(s), b)
        res[dt + "cholesky"] = sl.cholesky(s)
        p, l, u = sl.lu(a)
        res[dt + "lu"] = p @ l @ u
        res[dt + "inv"] = sl.inv(a)
        res[dt + "solve_triangular"] = sl.solve_triangular(t, b)
        res[dt + "trsm"] = getattr(sl.blas, dt + "trsm")(1.5, t, b, side=0, lower=0, trans_a=1)
        res[dt + "trmm"] = getattr(sl.blas, dt + "trmm")(1.5, t, b.T.copy(), side=1, lower=0)
        res[dt + "det"] = np.array(sl.det(a))
        res[dt + "np_solve"] = np.linalg.solve(a, b)
        res[dt + "np_inv"] = np.linalg.inv(a)
        res[dt + "np_cholesky"] = np.linalg.cholesky(s)
        res[dt + "np_det"] = np.array(np.linalg.det(a))
        sign, logdet = np.linalg.slogdet(a)
        res[dt + "np_slogdet"] = np.array([sign, logdet])
        for name, fn in [("solve", lambda: sl.solve(inp[dt + "sing"], b)),
                         ("cholesky", lambda: sl.cholesky(inp[dt + "nonspd"])),
                         ("np_solve", lambda: np.linalg.solve(inp[dt + "sing"], b)),
                         ("np_cholesky", lambda: np.linalg.cholesky(inp[dt + "nonspd"]))]:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    fn()
                errors[dt + name] = None
            except Exception as e:
                errors[dt + name] = type(e).__name__ + ": " + str(e)
        nan = a.copy()
        nan[3, 4] = np.nan
        sl.lu_factor(nan, check_finite=False)

if mode == "activated":
    with ozblas.activated(method="ozaki2", min_size=0, moduli=16):
        calls()
else:
    calls()
np.savez(out_dir + "/results.npz", **res)
st = ozblas.stats()["routines"]
json.dump({"errors": errors, "stats": {r: v["routes"] for r, v in st.items() if v["calls"]}},
          open(out_dir + "/out.json", "w"))
"""


def _inputs(path):
    rng = np.random.default_rng(11)
    d = {}
    for dt in ("d", "z"):
        def m(r, c):
            x = standard_normal(rng, (r, c))
            return x + 1j * standard_normal(rng, (r, c)) if dt == "z" else x
        a = m(N, N) + 2 * np.eye(N)
        s = a @ a.conj().T + N * np.eye(N)
        sing = a.copy()
        sing[:, 20] = 0
        nonspd = s.copy()
        nonspd[30, 30] = -1.0
        d.update({dt + "a": a, dt + "b": m(N, 3), dt + "s": s, dt + "t": np.triu(a) + 4 * np.eye(N),
                  dt + "sing": sing, dt + "nonspd": nonspd})
    np.savez(path / "inputs.npz", **d)
    return d


def _run(tmp_path, mode):
    return run_child(tmp_path, CHILD, mode)


def _nrm(x):
    return np.linalg.norm(x, 1)


def _solve_err(a, x, b):
    return _nrm(a @ x - b) / (_nrm(a) * _nrm(x) + _nrm(b))


def _native_errors(d):
    """What the same calls give natively, in this process."""
    out = {}
    for dt in ("d", "z"):
        a, s = d[dt + "a"], d[dt + "s"]
        for name, fn in [("solve", lambda: sl.solve(d[dt + "sing"], d[dt + "b"])),
                         ("cholesky", lambda: sl.cholesky(d[dt + "nonspd"])),
                         ("np_solve", lambda: np.linalg.solve(d[dt + "sing"], d[dt + "b"])),
                         ("np_cholesky", lambda: np.linalg.cholesky(d[dt + "nonspd"]))]:
            try:
                fn()
                out[dt + name] = None
            except Exception as e:
                out[dt + name] = type(e).__name__ + ": " + str(e)
    return out


def _check(d, res, out):
    for dt in ("d", "z"):
        a, b, s, t = (d[dt + k] for k in "abst")
        for name, m in [("solve", a), ("solve_pos", s), ("solve_sym_default", s), ("lu_solve", a),
                        ("cho_solve", s), ("solve_triangular", t), ("np_solve", a)]:
            native = {"solve": sl.solve(a, b), "solve_pos": sl.solve(s, b, assume_a="pos"),
                      "solve_sym_default": sl.solve(s, b), "lu_solve": sl.lu_solve(sl.lu_factor(a), b),
                      "cho_solve": sl.cho_solve(sl.cho_factor(s), b),
                      "solve_triangular": sl.solve_triangular(t, b),
                      "np_solve": np.linalg.solve(a, b)}[name]
            _within(_solve_err(m, res[dt + name], b), _solve_err(m, native, b), dt + name)
        c, nc = res[dt + "cholesky"], sl.cholesky(s)
        _within(_nrm(s - c.conj().T @ c) / _nrm(s), _nrm(s - nc.conj().T @ nc) / _nrm(s), dt + "cholesky")
        c, nc = res[dt + "np_cholesky"], np.linalg.cholesky(s)
        _within(_nrm(s - c @ c.conj().T) / _nrm(s), _nrm(s - nc @ nc.conj().T) / _nrm(s), dt + "np_cholesky")
        x = res[dt + "trsm"]
        nx = getattr(sl.blas, dt + "trsm")(1.5, t, b, side=0, lower=0, trans_a=1)
        _within(_solve_err(t.T, x, 1.5 * b), _solve_err(t.T, nx, 1.5 * b), dt + "trsm")
        y, ny = res[dt + "trmm"], getattr(sl.blas, dt + "trmm")(1.5, t, b.T.copy(), side=1, lower=0)
        scale = np.abs(b.T) @ np.abs(t)
        exact = 1.5 * exact_matmul(b.T.copy(), t)
        _within(np.max(np.abs(y - exact) / scale), np.max(np.abs(ny - exact) / scale), dt + "trmm")
        p, l, u = sl.lu(a)
        _within(_nrm(res[dt + "lu"] - a) / _nrm(a), _nrm(p @ l @ u - a) / _nrm(a), dt + "lu")
        cond = np.linalg.cond(a, 1)
        for name, native in [("inv", sl.inv(a)), ("np_inv", np.linalg.inv(a))]:
            _within(_nrm(res[dt + name] @ a - np.eye(N)) / cond, _nrm(native @ a - np.eye(N)) / cond,
                    dt + name)
        # det: relative to native's within the condition number's reach
        for name, native in [("det", sl.det(a)), ("np_det", np.linalg.det(a))]:
            assert abs(res[dt + name] - native) <= 1e3 * cond * 2**-52 * abs(native), dt + name
        sign, logdet = np.linalg.slogdet(a)
        assert abs(res[dt + "np_slogdet"][0] - sign) < 1e-9 and abs(res[dt + "np_slogdet"][1] - logdet) < 1e-9
    # exactly singular and non-positive-definite inputs: the same exceptions, same messages
    assert out["errors"] == _native_errors(d)
    assert all(out["errors"].values())
    st = out["stats"]
    for r in ("getrf", "getrs", "getri", "gesv", "potrf", "potrs", "trtrs", "trsm", "trmm"):
        for dt in "dz":
            assert st[dt + r].get("ozblas: ozaki2/cpu", {}).get("calls", 0) > 0, (dt + r, st.get(dt + r))
    for dt in "dz":
        assert st[dt + "getrf"]["native: non-finite input"]["calls"] == 1


def test_scipy_and_numpy_linalg_under_ozblas_run(tmp_path):
    d = _inputs(tmp_path)
    res, out = _run(tmp_path, "run")
    _check(d, res, out)
    lines = (tmp_path / "trace.log").read_text().splitlines()
    lap = [x for x in lines if " routine=dgetrf " in x and "route=ozblas" in x]
    assert lap and all("products=" in x and "emulated=" in x and "nb=16" in x for x in lap)
    # numpy.linalg reaches the ILP64 names, SciPy the LP64 ones
    assert any("symbol=scipy_dgesv_64_ " in x for x in lines)
    assert any("symbol=scipy_dgetrf_64_ " in x for x in lines)
    assert any("symbol=scipy_dpotrf_64_ " in x for x in lines)
    assert any("symbol=scipy_dgetrf_ " in x for x in lines)


def test_scipy_and_numpy_linalg_inside_activated(tmp_path):
    d = _inputs(tmp_path)
    res, out = _run(tmp_path, "activated")
    _check(d, res, out)


def test_argument_errors_reach_the_real_xerbla(tmp_path):
    body = """
    import ctypes, sys
    import scipy.linalg  # loads SciPy's LAPACK, the real routine
    import ozblas.shim as s
    lib = ctypes.CDLL(s.library_path())
    i = ctypes.c_int32
    m, n, lda, info = i(4), i(4), i(2), i(0)
    a = (ctypes.c_double * 16)()
    piv = (ctypes.c_int32 * 4)()
    lib.scipy_dgetrf_(ctypes.byref(m), ctypes.byref(n), a, ctypes.byref(lda), piv, ctypes.byref(info))
    print("info", info.value)
    """
    p = run_preloaded(tmp_path, body)
    assert "info -4" in p.stdout
    assert "DGETRF" in (p.stdout + p.stderr).upper()
    trace = (tmp_path / "trace.log").read_text()
    assert 'routine=dgetrf' in trace and 'reason="argument error"' in trace
