"""The host LAPACK's routines that scipy.linalg.lapack does not wrap (gelqf, orglq/unglq,
ormlq/unmlq, ormhr/unmhr), called through scipy.linalg.cython_lapack's function pointers:
the native reference of the LQ and Hessenberg tests (no shim is loaded in the test process).
Each returns what the ozblas.lapack routine of the same name returns, less the work array."""

import ctypes

import numpy as np
from scipy.linalg import cython_lapack
from ozblas.testing import standard_normal

_get_name = ctypes.pythonapi.PyCapsule_GetName
_get_name.restype, _get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
_get_ptr = ctypes.pythonapi.PyCapsule_GetPointer
_get_ptr.restype, _get_ptr.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
_I = ctypes.POINTER(ctypes.c_int)
_P = ctypes.c_void_p
_C = ctypes.c_char_p
_SIG = {"gelqf": [_I, _I, _P, _I, _P, _P, _I, _I], "orglq": [_I, _I, _I, _P, _I, _P, _P, _I, _I],
        "ormlq": [_C, _C, _I, _I, _I, _P, _I, _P, _P, _I, _P, _I, _I],
        "ormhr": [_C, _C, _I, _I, _I, _I, _P, _I, _P, _P, _I, _P, _I, _I]}
_Z = {"orglq": "unglq", "ormlq": "unmlq", "ormhr": "unmhr"}


def _fn(name, cplx):
    cap = cython_lapack.__pyx_capi__[("z" + _Z.get(name, name)) if cplx else "d" + name]
    return ctypes.CFUNCTYPE(None, *_SIG[name])(_get_ptr(cap, _get_name(cap)))


def _i(v):
    return ctypes.byref(ctypes.c_int(int(v)))


def _p(a):
    return a.ctypes.data_as(ctypes.c_void_p)


def _call(name, cplx, *args):
    """Calls the routine with a workspace query first (LAPACK's optimal lwork); its info."""
    info = ctypes.c_int(0)
    dt = np.complex128 if cplx else np.float64
    w = np.zeros(1, dtype=dt)
    f = _fn(name, cplx)
    f(*args, _p(w), _i(-1), ctypes.byref(info))
    w = np.zeros(max(1, int(w[0].real)), dtype=dt)
    f(*args, _p(w), _i(w.shape[0]), ctypes.byref(info))
    return info.value


def gelqf(a):
    a = np.array(a, order="F", dtype=np.complex128 if np.iscomplexobj(a) else np.float64)
    m, n = a.shape
    tau = np.zeros(max(1, min(m, n)), dtype=a.dtype)
    info = _call("gelqf", np.iscomplexobj(a), _i(m), _i(n), _p(a), _i(max(1, m)), _p(tau))
    return a, tau[:min(m, n)], info


def orglq(a, tau):
    a = np.array(a, order="F", dtype=np.complex128 if np.iscomplexobj(a) else np.float64)
    tau = np.ascontiguousarray(tau, dtype=a.dtype)
    m, n = a.shape
    info = _call("orglq", np.iscomplexobj(a), _i(m), _i(n), _i(tau.shape[0]), _p(a), _i(max(1, m)),
                 _p(tau))
    return a, info


def ormlq(side, trans, a, tau, c):
    cplx = np.iscomplexobj(a) or np.iscomplexobj(c)
    dt = np.complex128 if cplx else np.float64
    a, c = np.array(a, order="F", dtype=dt), np.array(c, order="F", dtype=dt)
    tau = np.ascontiguousarray(tau, dtype=dt)
    m, n = c.shape
    info = _call("ormlq", cplx, side.encode(), trans.encode(), _i(m), _i(n), _i(tau.shape[0]), _p(a),
                 _i(max(1, a.shape[0])), _p(tau), _p(c), _i(max(1, m)))
    return c, info


def ormhr(side, trans, a, tau, c, lo, hi):
    cplx = np.iscomplexobj(a) or np.iscomplexobj(c)
    dt = np.complex128 if cplx else np.float64
    a, c = np.array(a, order="F", dtype=dt), np.array(c, order="F", dtype=dt)
    tau = np.concatenate([np.ascontiguousarray(tau, dtype=dt), np.zeros(1, dtype=dt)])
    m, n = c.shape
    info = _call("ormhr", cplx, side.encode(), trans.encode(), _i(m), _i(n), _i(lo + 1), _i(hi + 1),
                 _p(a), _i(max(1, a.shape[0])), _p(tau), _p(c), _i(max(1, m)))
    return c, info


_LW = {"gelqf": [_I, _I, _P, _I, _P, _P, _I, _I], "orglq": [_I, _I, _I, _P, _I, _P, _P, _I, _I],
       "ormlq": _SIG["ormlq"], "gehrd": [_I, _I, _I, _P, _I, _P, _P, _I, _I],
       "orghr": [_I, _I, _I, _P, _I, _P, _P, _I, _I], "ormhr": _SIG["ormhr"],
       "gels": [_C, _I, _I, _I, _P, _I, _P, _I, _P, _I, _I]}
_ZW = dict(_Z, orghr="unghr")


def lwork_infos(n=40, seed=3):
    """Each of gelqf, orglq, ormlq, gehrd, orghr, ormhr, gels (d and z) called with the
    smallest lwork LAPACK accepts and with one less, on n x n (and n x (n + 10)) inputs: name ->
    [info with lwork = min - 1, info with lwork = min]. Through cython_lapack, so through the
    shim where one is loaded."""
    rng = np.random.default_rng(seed)
    out = {}
    for cplx in (0, 1):
        dt = np.complex128 if cplx else np.float64
        for name, sig in _LW.items():
            cap = cython_lapack.__pyx_capi__["z" + _ZW.get(name, name) if cplx else "d" + name]
            f = ctypes.CFUNCTYPE(None, *sig)(_get_ptr(cap, _get_name(cap)))
            infos = []
            for less in (1, 0):
                a = np.asfortranarray(standard_normal(rng, (n, n + 10)).astype(dt))
                c = np.asfortranarray(standard_normal(rng, (n + 10, 3)).astype(dt))
                tau = np.full(n + 10, 0.5, dtype=dt)
                info = ctypes.c_int(0)
                if name in ("gelqf", "orglq"):
                    args, least = [_i(n), _i(n + 10)] + ([_i(n)] if name == "orglq" else []) + [
                        _p(a), _i(n), _p(tau)], n
                elif name == "ormlq":
                    args, least = [b"L", b"N", _i(n + 10), _i(3), _i(n), _p(a), _i(n), _p(tau), _p(c),
                                   _i(n + 10)], 3
                elif name in ("gehrd", "orghr"):
                    args, least = [_i(n), _i(1), _i(n), _p(a), _i(n), _p(tau)], n - (name == "orghr")
                elif name == "ormhr":
                    args, least = [b"L", b"N", _i(n), _i(3), _i(1), _i(n), _p(a), _i(n), _p(tau), _p(c),
                                   _i(n + 10)], 3
                else:  # gels: the n x (n + 10) minimum-norm problem
                    args, least = [b"N", _i(n), _i(n + 10), _i(3), _p(a), _i(n), _p(c), _i(n + 10)], 2 * n
                w = np.zeros(max(1, least - less), dtype=dt)
                f(*args, _p(w), _i(least - less), ctypes.byref(info))
                infos.append(info.value)
            out["z" + _ZW.get(name, name) if cplx else "d" + name] = infos
    return out
