"""The host LAPACK's gebrd, orgbr/ungbr and ormbr/unmbr (which scipy.linalg.lapack does not
wrap), called through scipy.linalg.cython_lapack's function pointers: the native reference of
the bidiagonal tests (no shim is loaded in the test process; under one, these calls go through
it). Each returns what the ozblas.lapack routine of the same name returns, less the work array."""

import ctypes

import numpy as np
from scipy.linalg import cython_lapack

from _native import _get_name, _get_ptr, _i, _p

_I = ctypes.POINTER(ctypes.c_int)
_P = ctypes.c_void_p
_C = ctypes.c_char_p
_SIG = {"gebrd": [_I, _I, _P, _I, _P, _P, _P, _P, _P, _I, _I],
        "orgbr": [_C, _I, _I, _I, _P, _I, _P, _P, _I, _I],
        "ormbr": [_C, _C, _C, _I, _I, _I, _P, _I, _P, _P, _I, _P, _I, _I]}
_Z = {"orgbr": "ungbr", "ormbr": "unmbr"}


def _f(name, cplx):
    cap = cython_lapack.__pyx_capi__["z" + _Z.get(name, name) if cplx else "d" + name]
    return ctypes.CFUNCTYPE(None, *_SIG[name])(_get_ptr(cap, _get_name(cap)))


def _run(name, cplx, *args):
    """A workspace query, then the call with LAPACK's optimal lwork; its info."""
    dt = np.complex128 if cplx else np.float64
    info, w = ctypes.c_int(0), np.zeros(1, dtype=dt)
    f = _f(name, cplx)
    f(*args, _p(w), _i(-1), ctypes.byref(info))
    w = np.zeros(max(1, int(w[0].real)), dtype=dt)
    f(*args, _p(w), _i(w.shape[0]), ctypes.byref(info))
    return info.value


def gebrd(a):
    cplx = np.iscomplexobj(a)
    a = np.array(a, order="F", dtype=np.complex128 if cplx else np.float64)
    m, n = a.shape
    k = max(1, min(m, n))
    d, e = np.zeros(k), np.zeros(k)
    tq, tp = np.zeros(k, dtype=a.dtype), np.zeros(k, dtype=a.dtype)
    info = _run("gebrd", cplx, _i(m), _i(n), _p(a), _i(max(1, m)), _p(d), _p(e), _p(tq), _p(tp))
    k = min(m, n)
    return a, d[:k], e[:max(k - 1, 0)], tq[:k], tp[:k], info


def orgbr(vect, a, tau, k):
    cplx = np.iscomplexobj(a) or np.iscomplexobj(tau)
    dt = np.complex128 if cplx else np.float64
    a = np.array(a, order="F", dtype=dt)
    tau = np.concatenate([np.asarray(tau, dtype=dt).ravel(), np.zeros(1, dtype=dt)])
    m, n = a.shape
    info = _run("orgbr", cplx, vect.encode(), _i(m), _i(n), _i(k), _p(a), _i(max(1, m)), _p(tau))
    return a, info


def ormbr(vect, side, trans, a, tau, c, k):
    cplx = any(np.iscomplexobj(v) for v in (a, tau, c))
    dt = np.complex128 if cplx else np.float64
    a, c = np.array(a, order="F", dtype=dt), np.array(c, order="F", dtype=dt)
    tau = np.concatenate([np.asarray(tau, dtype=dt).ravel(), np.zeros(1, dtype=dt)])
    m, n = c.shape
    info = _run("ormbr", cplx, vect.encode(), side.encode(), trans.encode(), _i(m), _i(n), _i(k),
                _p(a), _i(max(1, a.shape[0])), _p(tau), _p(c), _i(max(1, m)))
    return c, info
