"""The preload shim's Bunch-Kaufman entries (sytrf sytrs sytri sysv, hetrf hetrs hetri hesv;
native/src/shim/shim_lapack.c) reached the way users reach them: scipy.linalg.solve and inv
on symmetric and Hermitian input (the default structure detection and assume_a), ldl, and
the LAPACK wrappers, under `ozblas run` and inside ozblas.activated(...), emulation forced
with small blocks (OZBLAS_LAPACK_NB=16) so that n = 53 runs the blocked driver. Each result
is held to native LAPACK's error on the same inputs in this (unrouted) process: at most 4x
it plus 1e-15; exactly singular input raises what it raises natively.
"""

import sys

import numpy as np
import pytest
import scipy.linalg as sl
from _lapack_child import run_child, run_preloaded, within as _within
from test_shim_lapack import CHILD as LAPACK_CHILD, _nrm
from ozblas.testing import standard_normal

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="LD_PRELOAD is Linux")

N = 53
# test_shim_lapack's child script with these calls in place of its own
CALLS = """
def calls():
    for dt in ("d", "z"):
        b = inp[dt + "b"]
        for kind in (("sym", "her") if dt == "z" else ("sym",)):
            m = inp[dt + kind]
            res[dt + kind + "_solve"] = sl.solve(m, b)
            res[dt + kind + "_solve_assume"] = sl.solve(m, b, assume_a=kind)
            res[dt + kind + "_inv"] = sl.inv(m)
            lu, d, _ = sl.ldl(m, hermitian=kind == "her")
            res[dt + kind + "_ldl"] = lu @ d @ (lu.conj().T if kind == "her" else lu.T)
            sv = getattr(sl.lapack, dt + ("hesv" if kind == "her" else "sysv"))
            res[dt + kind + "_sysv"] = sv(m, b, lower=1)[2]
            # a workspace below the optimum n * nb (SciPy asks lwork >= n): the driver's own
            trf = getattr(sl.lapack, dt + ("hetrf" if kind == "her" else "sytrf"))
            res[dt + kind + "_small_lwork"] = np.array_equal(trf(m, lwork=len(m))[0], trf(m)[0])
            nan = m.copy()
            nan[3, 4] = nan[4, 3] = np.nan
            trf(nan, lower=1)  # non-finite: the real routine
            for name, fn in [("solve", lambda: sl.solve(inp[dt + kind + "_sing"], b)),
                             ("inv", lambda: sl.inv(inp[dt + kind + "_sing"]))]:
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        fn()
                    errors[dt + kind + name] = None
                except Exception as e:
                    errors[dt + kind + name] = type(e).__name__ + ": " + str(e)

"""
CHILD = (LAPACK_CHILD[:LAPACK_CHILD.index("def calls():")] + CALLS
         + LAPACK_CHILD[LAPACK_CHILD.index('if mode == "activated"'):])


def _inputs(path):
    rng = np.random.default_rng(5)
    d = {}
    for dt in ("d", "z"):
        a, b = (standard_normal(rng, s) + (1j * standard_normal(rng, s) if dt == "z" else 0)
                for s in [(N, N), (N, 3)])
        d[dt + "b"] = b
        for kind, mat in [("sym", a + a.T), ("her", a + a.conj().T)]:
            sing = mat.copy()
            sing[:, 20] = 0
            sing[20, :] = 0
            d.update({dt + kind: mat, dt + kind + "_sing": sing})
    np.savez(path / "inputs.npz", **d)
    return d


def _check(d, res, out):
    errors = {}
    for dt in ("d", "z"):
        b = d[dt + "b"]
        for kind in (("sym", "her") if dt == "z" else ("sym",)):
            m = d[dt + kind]
            berr = lambda x: _nrm(m @ x - b) / (_nrm(m) * _nrm(x) + _nrm(b))  # noqa: E731
            sv = getattr(sl.lapack, dt + ("hesv" if kind == "her" else "sysv"))
            for name, native in [("solve", sl.solve(m, b)), ("solve_assume", sl.solve(m, b, assume_a=kind)),
                                 ("sysv", sv(m, b, lower=1)[2])]:
                _within(berr(res[dt + kind + "_" + name]), berr(native), dt + kind + name)
            assert res[dt + kind + "_small_lwork"], dt + kind + " lwork=n"
            cond = np.linalg.cond(m, 1)
            ierr = lambda v: _nrm(v @ m - np.eye(N)) / cond  # noqa: E731
            _within(ierr(res[dt + kind + "_inv"]), ierr(sl.inv(m)), dt + kind + "inv")
            lu, dd, _ = sl.ldl(m, hermitian=kind == "her")
            native = lu @ dd @ (lu.conj().T if kind == "her" else lu.T)
            _within(_nrm(res[dt + kind + "_ldl"] - m) / _nrm(m), _nrm(native - m) / _nrm(m), dt + kind + "ldl")
            for name, fn in [("solve", lambda: sl.solve(d[dt + kind + "_sing"], b)),
                             ("inv", lambda: sl.inv(d[dt + kind + "_sing"]))]:
                try:
                    fn()
                    errors[dt + kind + name] = None
                except Exception as e:
                    errors[dt + kind + name] = type(e).__name__ + ": " + str(e)
    assert out["errors"] == errors and all(errors.values())
    st = out["stats"]
    for r in ("dsytrf", "dsytrs", "dsytri", "dsysv", "zsytrf", "zsytrs", "zsytri", "zsysv",
              "zhetrf", "zhetrs", "zhetri", "zhesv"):
        assert st[r].get("ozblas: ozaki2/cpu", {}).get("calls", 0) > 0, (r, st.get(r))
    # SciPy's own workspace queries and non-finite input go to the real routine
    for r in ("dsytrf", "zsytrf", "zhetrf"):
        assert st[r]["native: workspace query"]["calls"] > 0
        assert st[r]["native: non-finite input"]["calls"] == 1


def test_symmetric_solvers_under_ozblas_run(tmp_path):
    d = _inputs(tmp_path)
    res, out = run_child(tmp_path, CHILD, "run")
    _check(d, res, out)
    lines = (tmp_path / "trace.log").read_text().splitlines()
    lap = [x for x in lines if " routine=dsytrf " in x and "route=ozblas" in x]
    assert lap and all("symbol=scipy_dsytrf_ " in x and "emulated=" in x and "nb=16" in x for x in lap)
    assert all(" emulated=0 " not in x for x in lap)


def test_symmetric_solvers_inside_activated(tmp_path):
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
    a = (ctypes.c_double * 16)()
    work = (ctypes.c_double * 16)()
    piv = (ctypes.c_int32 * 4)()
    for lda, lwork in [(2, 16), (4, 0)]:
        n, l, lw, info = i(4), i(lda), i(lwork), i(0)
        lib.scipy_dsytrf_(b"L", ctypes.byref(n), a, ctypes.byref(l), piv, work, ctypes.byref(lw),
                          ctypes.byref(info), ctypes.c_size_t(1))
        print("info", info.value, flush=True)
    """
    p = run_preloaded(tmp_path, body)
    assert "info -4" in p.stdout and "info -7" in p.stdout
    assert "DSYTRF" in (p.stdout + p.stderr).upper()
    trace = (tmp_path / "trace.log").read_text()
    assert trace.count('reason="argument error"') == 2 and "routine=dsytrf" in trace
