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
