"""The preload shim's QR and Level-3 BLAS entries (native/src/shim/shim_level3.c), reached the
way users reach them: scipy.linalg.qr / qr_multiply, numpy.linalg.qr, scipy.linalg.blas's
symm, hemm, syr2k, her2k, trsm, trmm, and the CBLAS forms (row- and column-major, through
the shim's own scipy_cblas_*64_ names), under `ozblas run` and inside ozblas.activated(...),
emulation forced with small blocks (OZBLAS_LAPACK_NB=16). Each result is held to native's
error on the same inputs in this (unrouted) process: at most 4x it plus 1e-15; the products
against the exact oracle.
"""

import sys

import numpy as np
import pytest
import scipy.linalg as sl
import scipy.linalg.blas as sb

from ozblas.testing import exact_matmul, standard_normal

from _lapack_child import run_child, run_preloaded, within as _within

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="LD_PRELOAD is Linux")

CHILD = """
import ctypes, json, sys
import numpy as np, scipy.linalg as sl, scipy.linalg.blas as sb
import ozblas, ozblas.shim

out_dir, mode = sys.argv[1], sys.argv[2]
inp = dict(np.load(out_dir + "/inputs.npz"))
res = {}

def cblas():
    lib = ctypes.CDLL(ozblas.shim.library_path())
    i8, dbl = ctypes.c_int64, ctypes.c_double
    for order in (101, 102):  # row-major, column-major
        s = np.array(inp["ds"], order="C" if order == 101 else "F")
        b = np.array(inp["db"], order="C" if order == 101 else "F")
        c = np.zeros_like(b)
        m, n = b.shape
        ld = lambda x: x.shape[1] if order == 101 else x.shape[0]
        p = lambda x: x.ctypes.data_as(ctypes.c_void_p)
        # C = 1.5 S B, S symmetric from its lower triangle
        lib.scipy_cblas_dsymm64_(order, 141, 122, i8(m), i8(n), dbl(1.5), p(s), i8(ld(s)), p(b),
                                 i8(ld(b)), dbl(0.0), p(c), i8(ld(c)))
        res[f"cblas_dsymm_{order}"] = c.copy()
        # B := 1.5 inv(T^T) B, T upper
        t = np.array(inp["dt"], order="C" if order == 101 else "F")
        x = b.copy(order="K")
        lib.scipy_cblas_dtrsm64_(order, 141, 121, 112, 131, i8(m), i8(n), dbl(1.5), p(t),
                                 i8(ld(t)), p(x), i8(ld(x)))
        res[f"cblas_dtrsm_{order}"] = x
        # C := alpha Z W^H + conj(alpha) W Z^H + 0.5 C, upper
        zz = np.array(inp["zb"], order="C" if order == 101 else "F")
        zw = np.array(inp["zc"], order="C" if order == 101 else "F")
        cz = np.array(inp["zs"], order="C" if order == 101 else "F")
        al = (ctypes.c_double * 2)(0.5, -0.25)
        lib.scipy_cblas_zher2k64_(order, 121, 111, i8(zz.shape[0]), i8(zz.shape[1]), al, p(zz),
                                  i8(ld(zz)), p(zw), i8(ld(zw)), dbl(0.5), p(cz), i8(ld(cz)))
        res[f"cblas_zher2k_{order}"] = cz
        # B := 1.5 B T (side R, upper), and C := 0.5 (Z^T W + W^T Z) (zsyr2k, trans T, lower)
        y = b.T.copy(order="C" if order == 101 else "F")
        lib.scipy_cblas_dtrmm64_(order, 142, 121, 111, 131, i8(y.shape[0]), i8(y.shape[1]),
                                 dbl(1.5), p(t), i8(ld(t)), p(y), i8(ld(y)))
        res[f"cblas_dtrmm_{order}"] = y
        zt = np.array(zz.T, order="C" if order == 101 else "F")
        wt = np.array(zw.T, order="C" if order == 101 else "F")
        cs = np.array(inp["zs"], order="C" if order == 101 else "F")
        half = (ctypes.c_double * 2)(0.5, 0.0)
        lib.scipy_cblas_zsyr2k64_(order, 122, 112, i8(cs.shape[0]), i8(zt.shape[0]), half, p(zt),
                                  i8(ld(zt)), p(wt), i8(ld(wt)), half, p(cs), i8(ld(cs)))
        res[f"cblas_zsyr2k_{order}"] = cs

def calls():
    for dt in ("d", "z"):
        a, s, b, t, c = (inp[dt + k] for k in "asbtc")
        q, r = sl.qr(a)
        res[dt + "qr"] = q @ r
        res[dt + "qr_q"] = q
        q, r = sl.qr(a, mode="economic")
        res[dt + "qr_econ"] = q @ r
        res[dt + "qr_multiply"] = sl.qr_multiply(a, c.T.copy())[0]  # c^T Q: ormqr from the right
        q, r = np.linalg.qr(a)
        res[dt + "np_qr"] = q @ r
        res[dt + "np_qr_q"] = q
        q, r = np.linalg.qr(a, mode="complete")
        res[dt + "np_qr_complete_q"] = q
        res[dt + "symm"] = getattr(sb, dt + "symm")(1.5, s, b, 0.5, c, side=0, lower=1)
        res[dt + "syr2k"] = getattr(sb, dt + "syr2k")(1.5, b, c, 0.5, s, trans=0, lower=0)
        res[dt + "trmm"] = getattr(sb, dt + "trmm")(1.5, t, b, side=0, lower=0)
        res[dt + "trsm"] = getattr(sb, dt + "trsm")(1.5, t, b, side=0, lower=0, trans_a=1)
    res["zhemm"] = sb.zhemm(1.5, inp["zs"], inp["zb"], 0.5, inp["zc"], side=0, lower=0)
    res["zher2k"] = sb.zher2k(1.5 - 0.5j, inp["zb"], inp["zc"], 0.5, inp["zs"], trans=0, lower=1)
    cblas()

if mode == "activated":
    with ozblas.activated(method="ozaki2", min_size=0, moduli=16):
        calls()
else:
    calls()
np.savez(out_dir + "/results.npz", **res)
st = ozblas.stats()["routines"]
json.dump({r: v["routes"] for r, v in st.items() if v["calls"]}, open(out_dir + "/out.json", "w"))
"""

M, N = 53, 41


def _inputs(path):
    rng = np.random.default_rng(5)
    d = {}
    for dt in ("d", "z"):
        def m(r, c):
            x = standard_normal(rng, (r, c))
            return x + 1j * standard_normal(rng, (r, c)) if dt == "z" else x
        d.update({dt + "a": m(M, N), dt + "s": m(M, M), dt + "b": m(M, 30), dt + "c": m(M, 30),
                  dt + "t": np.triu(m(M, M)) + 8 * np.eye(M)})
    np.savez(path / "inputs.npz", **d)
    return d


def _run(tmp_path, mode):
    return run_child(tmp_path, CHILD, mode)


def _rel(x, ref):
    return np.linalg.norm(x - ref) / np.linalg.norm(ref)


def _orth(q):
    return np.linalg.norm(q.conj().T @ q - np.eye(q.shape[1]))


def _prod_err(y, exact, scale, mask=None):
    e = np.abs(y - exact) / scale
    return np.max(e if mask is None else e[mask])


def _sym(s, lower, herm=False):
    t = np.tril(s, -1) if lower else np.triu(s, 1)
    d = np.diag(np.diag(s).real if herm else np.diag(s))
    return d + t + (t.conj().T if herm else t.T)


def _check(d, res, st):
    for dt in ("d", "z"):
        a, s, b, t, c = (d[dt + k] for k in "asbtc")
        q, r = sl.qr(a)
        _within(_rel(res[dt + "qr"], a), _rel(q @ r, a), dt + "qr")
        _within(_orth(res[dt + "qr_q"]), _orth(q), dt + "qr Q")
        q, r = sl.qr(a, mode="economic")
        _within(_rel(res[dt + "qr_econ"], a), _rel(q @ r, a), dt + "qr economic")
        # Q's Householder vectors differ from native's by rounding: the products agree to it
        assert _rel(res[dt + "qr_multiply"], sl.qr_multiply(a, c.T.copy())[0]) < 1e-13, dt + "qr_multiply"
        q, r = np.linalg.qr(a)
        _within(_rel(res[dt + "np_qr"], a), _rel(q @ r, a), dt + "np qr")
        _within(_orth(res[dt + "np_qr_q"]), _orth(q), dt + "np qr Q")
        q, _ = np.linalg.qr(a, mode="complete")
        _within(_orth(res[dt + "np_qr_complete_q"]), _orth(q), dt + "np qr complete Q")
        full = _sym(s, 1)
        ex = 1.5 * exact_matmul(full, b) + 0.5 * c
        sc = 1.5 * np.abs(full) @ np.abs(b) + 0.5 * np.abs(c)
        nat = getattr(sb, dt + "symm")(1.5, s, b, 0.5, c, side=0, lower=1)
        _within(_prod_err(res[dt + "symm"], ex, sc), _prod_err(nat, ex, sc), dt + "symm")
        ex = 1.5 * (exact_matmul(b, c.T) + exact_matmul(c, b.T)) + 0.5 * s
        sc = 1.5 * (np.abs(b) @ np.abs(c.T) + np.abs(c) @ np.abs(b.T)) + 0.5 * np.abs(s)
        up = np.triu(np.ones((M, M), dtype=bool))
        nat = getattr(sb, dt + "syr2k")(1.5, b, c, 0.5, s, trans=0, lower=0)
        _within(_prod_err(res[dt + "syr2k"], ex, sc, up), _prod_err(nat, ex, sc, up), dt + "syr2k")
        assert np.array_equal(res[dt + "syr2k"][~up], s[~up])
        tt = np.triu(t)
        ex = 1.5 * exact_matmul(tt, b)
        sc = 1.5 * np.abs(tt) @ np.abs(b)
        nat = getattr(sb, dt + "trmm")(1.5, t, b, side=0, lower=0)
        _within(_prod_err(res[dt + "trmm"], ex, sc), _prod_err(nat, ex, sc), dt + "trmm")
        x, nx = res[dt + "trsm"], getattr(sb, dt + "trsm")(1.5, t, b, side=0, lower=0, trans_a=1)
        be = lambda y: np.linalg.norm(tt.T @ y - 1.5 * b) / (np.linalg.norm(tt) * np.linalg.norm(y))
        _within(be(x), be(nx), dt + "trsm")
    zs, zb, zc = d["zs"], d["zb"], d["zc"]
    full = _sym(zs, 0, herm=True)
    ex = 1.5 * exact_matmul(full, zb) + 0.5 * zc
    sc = 1.5 * np.abs(full) @ np.abs(zb) + 0.5 * np.abs(zc)
    nat = sb.zhemm(1.5, zs, zb, 0.5, zc, side=0, lower=0)
    _within(_prod_err(res["zhemm"], ex, sc), _prod_err(nat, ex, sc), "zhemm")
    al = 1.5 - 0.5j
    ex = al * exact_matmul(zb, zc.conj().T) + np.conj(al) * exact_matmul(zc, zb.conj().T) + 0.5 * zs
    np.fill_diagonal(ex, ex.diagonal().real - 0.5 * zs.diagonal().real + 0.5 * zs.diagonal().real)
    sc = 1.5 * (np.abs(zb) @ np.abs(zc.T) + np.abs(zc) @ np.abs(zb.T)) + 0.5 * np.abs(zs)
    lo = np.tril(np.ones((M, M), dtype=bool))
    nat = sb.zher2k(al, zb, zc, 0.5, zs, trans=0, lower=1)
    ex[np.diag_indices(M)] = nat.diagonal().real  # the diagonal: compared below, real
    _within(_prod_err(res["zher2k"], ex, sc, lo & ~np.eye(M, dtype=bool)),
            _prod_err(nat, ex, sc, lo & ~np.eye(M, dtype=bool)), "zher2k")
    assert np.all(res["zher2k"].diagonal().imag == 0) and np.array_equal(res["zher2k"][~lo], zs[~lo])
    # CBLAS, both orders: the same operation
    ds, db, dtt = d["ds"], d["db"], np.triu(d["dt"])
    for order in (101, 102):
        full = _sym(ds, 1)
        ex, sc = 1.5 * exact_matmul(full, db), 1.5 * np.abs(full) @ np.abs(db)
        _within(_prod_err(res[f"cblas_dsymm_{order}"], ex, sc),
                _prod_err(sb.dsymm(1.5, ds, db, side=0, lower=1), ex, sc), f"cblas_dsymm {order}")
        x = res[f"cblas_dtrsm_{order}"]
        assert np.linalg.norm(dtt.T @ x - 1.5 * db) / (np.linalg.norm(dtt) * np.linalg.norm(x)) < 1e-14
        y = res[f"cblas_zher2k_{order}"]
        ref = sb.zher2k(0.5 - 0.25j, zb, zc, 0.5, zs, trans=0, lower=0)
        assert np.allclose(np.triu(y), np.triu(ref), rtol=0, atol=1e-12) and np.array_equal(np.tril(y, -1), np.tril(zs, -1))
        y, ex = res[f"cblas_dtrmm_{order}"], 1.5 * exact_matmul(db.T, dtt)
        sc = 1.5 * np.abs(db.T) @ np.abs(dtt)
        _within(_prod_err(y, ex, sc), _prod_err(sb.dtrmm(1.5, dtt, db.T.copy(), side=1), ex, sc),
                f"cblas_dtrmm {order}")
        y = res[f"cblas_zsyr2k_{order}"]
        ref = sb.zsyr2k(0.5, zb, zc, 0.5, zs, trans=0, lower=1)
        assert np.allclose(np.tril(y), np.tril(ref), rtol=0, atol=1e-12) and np.array_equal(np.triu(y, 1), np.triu(zs, 1))
    for r in ("dgeqrf", "zgeqrf", "dorgqr", "zungqr", "dormqr", "zunmqr", "dsymm", "zsymm", "zhemm",
              "dsyr2k", "zsyr2k", "zher2k", "dtrsm", "ztrsm", "dtrmm", "ztrmm"):
        assert st[r].get("ozblas: ozaki2/cpu", {}).get("calls", 0) > 0, (r, st.get(r))


def test_qr_and_level3_under_ozblas_run(tmp_path):
    d = _inputs(tmp_path)
    res, st = _run(tmp_path, "run")
    _check(d, res, st)
    lines = (tmp_path / "trace.log").read_text().splitlines()
    routed = lambda sym: any(f"symbol={sym} " in x and "route=ozblas" in x for x in lines)
    # numpy.linalg.qr reaches the ILP64 names, SciPy the LP64 ones, the CBLAS calls their own
    for sym in ("scipy_dgeqrf_64_", "scipy_dorgqr_64_", "scipy_zgeqrf_64_", "scipy_zungqr_64_",
                "scipy_dgeqrf_", "scipy_dorgqr_", "scipy_dormqr_", "scipy_dsymm_", "scipy_zher2k_",
                "scipy_cblas_dsymm64_", "scipy_cblas_dtrsm64_", "scipy_cblas_zher2k64_",
                "scipy_cblas_dtrmm64_", "scipy_cblas_zsyr2k64_"):
        assert routed(sym), sym
    q = [x for x in lines if " routine=dgeqrf " in x and "route=ozblas" in x]
    assert q and all("products=" in x and "nb=16" in x for x in q)
    assert any(" routine=dgeqrf " in x and 'reason="workspace query"' in x for x in lines)


def test_qr_and_level3_inside_activated(tmp_path):
    d = _inputs(tmp_path)
    res, st = _run(tmp_path, "activated")
    _check(d, res, st)


def test_argument_errors_reach_the_real_xerbla(tmp_path):
    body = """
    import ctypes
    import scipy.linalg  # loads SciPy's LAPACK and BLAS, the real routines
    import ozblas.shim as s
    lib = ctypes.CDLL(s.library_path())
    i = ctypes.c_int32
    m, n, lda, lwork, info = i(4), i(4), i(4), i(1), i(0)
    a = (ctypes.c_double * 16)()
    w = (ctypes.c_double * 4)()
    lib.scipy_dgeqrf_(ctypes.byref(m), ctypes.byref(n), a, ctypes.byref(lda), w, w,
                      ctypes.byref(lwork), ctypes.byref(info))
    print("info", info.value, flush=True)
    one = ctypes.c_double(1.0)
    lib.scipy_dsymm_(b"X", b"U", ctypes.byref(m), ctypes.byref(n), ctypes.byref(one), a,
                     ctypes.byref(lda), a, ctypes.byref(lda), ctypes.byref(one), a, ctypes.byref(lda),
                     ctypes.c_size_t(1), ctypes.c_size_t(1))
    """
    p = run_preloaded(tmp_path, body)
    assert "info -7" in p.stdout  # lwork < n: the real routine's report
    out = (p.stdout + p.stderr).upper()
    assert "DGEQRF" in out and "DSYMM" in out
    trace = (tmp_path / "trace.log").read_text()
    for r in ("dgeqrf", "dsymm"):
        assert f"routine={r} " in trace
    assert trace.count('reason="argument error"') == 2
