"""The host LAPACK's dgeev and zgeev through scipy.linalg.cython_lapack (so through the shim
where one is loaded), for the lwork and argument-error checks of tests/shim/test_shim_geev.py."""

import ctypes

import numpy as np
from scipy.linalg import cython_lapack

from _native import _get_name, _get_ptr, _i, _p

_I = ctypes.POINTER(ctypes.c_int)
_P = ctypes.c_void_p
_C = ctypes.c_char_p


def _geev(cplx):
    cap = cython_lapack.__pyx_capi__["zgeev" if cplx else "dgeev"]
    sig = [_C, _C, _I, _P, _I, _P] + ([] if cplx else [_P]) + [_P, _I, _P, _I, _P, _I] + \
        ([_P] if cplx else []) + [_I]
    return ctypes.CFUNCTYPE(None, *sig)(_get_ptr(cap, _get_name(cap)))


def geev_minwork(cplx, jobvl, jobvr, n):
    """LAPACK's smallest lwork of dgeev (4 n with vectors, 3 n without) and zgeev (2 n)."""
    return max(1, 2 * n if cplx else (4 if "V" in jobvl + jobvr else 3) * n)


def geev_call(cplx, jobvl, jobvr, a, lwork, ldv=None):
    """One call on a copy of a (n x n): (info, w, vl, vr, work[0])."""
    n = a.shape[0]
    dt = np.complex128 if cplx else np.float64
    f = np.asfortranarray(a.astype(dt))
    ldv = n if ldv is None else ldv
    w, wi = np.zeros(n, dt), np.zeros(n)
    vl, vr = np.zeros((max(ldv, 1), n), dt, order="F"), np.zeros((max(ldv, 1), n), dt, order="F")
    work, rw = np.zeros(max(lwork, 1), dt), np.zeros(2 * n + 1)
    info = ctypes.c_int(0)
    args = [jobvl.encode(), jobvr.encode(), _i(n), _p(f), _i(n), _p(w)] + ([] if cplx else [_p(wi)]) + \
        [_p(vl), _i(ldv), _p(vr), _i(ldv), _p(work), _i(lwork)] + ([_p(rw)] if cplx else [])
    _geev(cplx)(*args, ctypes.byref(info))
    return info.value, (w if cplx else w + 1j * wi), vl, vr, work[0].real


def geev_lwork_infos(n=40, seed=6):
    """dgeev and zgeev, jobs NN, NV, VV, with one less than geev_minwork and with it, then
    ldvr n - 1 with jobvr V: [info, ...] in that order; and the workspace queries' answers."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1.0, 1.0, (n, n))
    infos, queries = [], []
    for cplx in (0, 1):
        for jl, jr in (("N", "N"), ("N", "V"), ("V", "V")):
            least = geev_minwork(cplx, jl, jr, n)
            infos += [geev_call(cplx, jl, jr, a, lw)[0] for lw in (least - 1, least)]
            queries.append(geev_call(cplx, jl, jr, a, -1)[4])
        infos.append(geev_call(cplx, "N", "V", a, 4 * n, ldv=n - 1)[0])
    return infos, queries


_DSEL = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double))
_ZSEL = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_double))


def gees_call(cplx, jobvs, sort, a, lwork, ldvs=None):
    """One call on a copy of a with select "real part < 0" counting its calls: (info, sdim,
    calls, t, w, vs, work[0])."""
    n = a.shape[0]
    dt = np.complex128 if cplx else np.float64
    cap = cython_lapack.__pyx_capi__["zgees" if cplx else "dgees"]
    sig = [_C, _C, _P, _I, _P, _I, _I, _P] + ([] if cplx else [_P]) + [_P, _I, _P, _I] + \
        ([_P] if cplx else []) + [_P, _I]
    f = ctypes.CFUNCTYPE(None, *sig)(_get_ptr(cap, _get_name(cap)))
    calls = []

    def dsel(wr, wi):
        calls.append((wr[0], wi[0]))
        return int(wr[0] < 0)

    def zsel(w):
        calls.append((w[0], w[1]))
        return int(w[0] < 0)
    sel = _ZSEL(zsel) if cplx else _DSEL(dsel)
    t = np.asfortranarray(a.astype(dt))
    ldvs = n if ldvs is None else ldvs
    w, wi = np.zeros(n, dt), np.zeros(n)
    vs = np.zeros((max(ldvs, 1), n), dt, order="F")
    work, rw, bw = np.zeros(max(lwork, 1), dt), np.zeros(n + 1), np.zeros(n + 1, np.int32)
    info, sdim = ctypes.c_int(0), ctypes.c_int(0)
    args = [jobvs.encode(), sort.encode(), ctypes.cast(sel, _P), _i(n), _p(t), _i(n), ctypes.byref(sdim),
            _p(w)] + ([] if cplx else [_p(wi)]) + [_p(vs), _i(ldvs), _p(work), _i(lwork)] + \
        ([_p(rw)] if cplx else []) + [_p(bw)]
    f(*args, ctypes.byref(info))
    return info.value, sdim.value, len(calls), t, (w if cplx else w + 1j * wi), vs, work[0].real


def gees_lwork_infos(n=40, seed=7):
    """dgees and zgees, jobvs N and V with sort S, with one less than LAPACK's smallest lwork
    (3 n, z: 2 n) and with it (info, sdim, select's calls), then ldvs n - 1 with jobvs V:
    [..., info], and the workspace queries' answers."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1.0, 1.0, (n, n))
    out, queries = [], []
    for cplx in (0, 1):
        least = (2 if cplx else 3) * n
        for jv in "NV":
            for lw in (least - 1, least):
                out += list(gees_call(cplx, jv, "S", a, lw)[:3])
            queries.append(gees_call(cplx, jv, "S", a, -1)[6])
        out.append(gees_call(cplx, "V", "N", a, least, ldvs=n - 1)[0])
    return out, queries
