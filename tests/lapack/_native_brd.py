"""The host LAPACK's gebrd, orgbr/ungbr and ormbr/unmbr (which scipy.linalg.lapack does not
wrap), called through scipy.linalg.cython_lapack's function pointers: the native reference of
the bidiagonal tests (no shim is loaded in the test process; under one, these calls go through
it). Each returns what the ozblas.lapack routine of the same name returns, less the work array."""

import ctypes

import numpy as np
from scipy.linalg import cython_lapack

from _native import _get_name, _get_ptr, _i, _p
from ozblas.testing import standard_normal

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


_LW = {"gebrd": _SIG["gebrd"], "orgbr": _SIG["orgbr"], "ormbr": _SIG["ormbr"],
       "gelsy": [_I, _I, _I, _P, _I, _P, _I, _P, _P, _I, _P, _I, _I],
       "zgelsy": [_I, _I, _I, _P, _I, _P, _I, _P, _P, _I, _P, _I, _P, _I]}


def lwork_infos(m=30, n=20, seed=3):
    """gebrd, orgbr, ormbr and gelsy (d and z) called with one less than the smallest lwork
    LAPACK's check accepts and with the smallest that works: name -> [info with the former,
    info with the latter]. Through cython_lapack, so through the shim where one is loaded."""
    rng = np.random.default_rng(seed)
    out = {}
    for cplx in (0, 1):
        dt = np.complex128 if cplx else np.float64
        for name in ("gebrd", "orgbr", "ormbr", "gelsy"):
            key = ("z" + _Z.get(name, name)) if cplx else "d" + name
            cap = cython_lapack.__pyx_capi__[key]
            sig = _LW["zgelsy" if key == "zgelsy" else name]
            f = ctypes.CFUNCTYPE(None, *sig)(_get_ptr(cap, _get_name(cap)))
            infos = []
            for less in (1, 0):
                a = np.asfortranarray(standard_normal(rng, (m, n)).astype(dt))
                c = np.asfortranarray(standard_normal(rng, (m, 3)).astype(dt))
                v = np.full(m, 0.5, dtype=dt)
                r = np.zeros(m)
                jp = np.zeros(n, dtype=np.int32)
                rank = ctypes.c_int(0)
                info = ctypes.c_int(0)
                if name == "gebrd":
                    args, least = [_i(m), _i(n), _p(a), _i(m), _p(r), _p(r.copy()), _p(v), _p(v.copy())], m
                elif name == "orgbr":
                    args, least = [b"Q", _i(m), _i(n), _i(n), _p(a), _i(m), _p(v)], n
                elif name == "ormbr":
                    args, least = [b"Q", b"L", b"N", _i(m), _i(3), _i(n), _p(a), _i(m), _p(v), _p(c),
                                   _i(m)], 3
                else:
                    args = [_i(m), _i(n), _i(3), _p(a), _i(m), _p(c), _i(m), jp.ctypes.data_as(_P),
                            ctypes.byref(ctypes.c_double(1e-10)), ctypes.byref(rank)]
                    least = n + max(2 * n, n + 1, n + 3)
                # gelsy's check admits less than its geqp3 needs (3 n + 1 beyond the scalars:
                # the documented minimum); given the check's least, the host gelsy runs on
                # and writes past the workspace. Its valid call takes the documented one.
                lw = least - 1 if less else (max(n + 3 * n + 1, 2 * n + 3) if name == "gelsy" else least)
                w = np.zeros(max(1, lw), dtype=dt)
                if key == "zgelsy":
                    f(*args, _p(w), _i(lw), _p(np.zeros(2 * n)), ctypes.byref(info))
                else:
                    f(*args, _p(w), _i(lw), ctypes.byref(info))
                infos.append(info.value)
            out[key] = infos
    return out


def gesdd_minwork(cplx, jobz, m, n):
    """LAPACK 3.7's minimum lwork of dgesdd/zgesdd for its path (the shim's gesdd_minwork)."""
    mn, mx = min(m, n), max(m, n)
    if cplx:
        if mx >= mn * 17 // 9:
            return {"N": 3 * mn, "O": 2 * mn * mn + 3 * mn, "S": mn * mn + 3 * mn,
                    "A": mn * mn + max(3 * mn, mn + mx)}[jobz]
        return 2 * mn + mx + (mn * mn if jobz == "O" else 0)
    bd = 7 * mn if jobz == "N" else 3 * mn * mn + 4 * mn
    if mx >= mn * 11 // 6:
        return {"N": bd + mn, "O": bd + 2 * mn * mn + 3 * mn, "S": bd + mn * mn + 3 * mn,
                "A": mn * mn + max(bd + 3 * mn, mn + mx)}[jobz]
    return 3 * mn + max(mx, mn * mn + bd if jobz == "O" else bd)


def gesdd_lwork_infos(shapes=((30, 20), (20, 30), (70, 20), (20, 70)), seed=4):
    """dgesdd and zgesdd, every jobz, on these shapes (both sides of the QR-first thresholds),
    with one less than gesdd_minwork and with it: [info, info, ...] in that order. Through
    cython_lapack, so through the shim where one is loaded."""
    rng = np.random.default_rng(seed)
    out = []
    for cplx in (0, 1):
        dt = np.complex128 if cplx else np.float64
        cap = cython_lapack.__pyx_capi__["zgesdd" if cplx else "dgesdd"]
        sig = [_C, _I, _I, _P, _I, _P, _P, _I, _P, _I, _P, _I] + ([_P] if cplx else []) + [_P, _I]
        f = ctypes.CFUNCTYPE(None, *sig)(_get_ptr(cap, _get_name(cap)))
        for m, n in shapes:
            for jobz in "NOSA":
                least = gesdd_minwork(cplx, jobz, m, n)
                for lw in (least - 1, least):
                    a = np.asfortranarray(standard_normal(rng, (m, n)).astype(dt))
                    s = np.zeros(min(m, n))
                    u, vt = np.zeros((m, m), dt, order="F"), np.zeros((n, n), dt, order="F")
                    w, iw = np.zeros(lw, dtype=dt), np.zeros(8 * min(m, n), dtype=np.int32)
                    rw = np.zeros(5 * min(m, n) ** 2 + 7 * min(m, n) + 2 * max(m, n) * min(m, n))
                    info = ctypes.c_int(0)
                    args = [jobz.encode(), _i(m), _i(n), _p(a), _i(m), _p(s), _p(u), _i(m),
                            _p(vt), _i(n), _p(w), _i(lw)] + ([_p(rw)] if cplx else [])
                    f(*args, _p(iw), ctypes.byref(info))
                    out.append(info.value)
    return out


def lstsq_minwork(name, m, n, nrhs):
    """The smallest lwork the host dgelsd/zgelsd/dgelss/zgelss takes (smlsiz 25; mm: n on
    the QR-first path, m >= 1.6 n; the shim's lstsq_minwork)."""
    mn, mx = min(m, n), max(m, n)
    mm = n if m >= n and m >= 8 * mn // 5 else mx
    nlvl = max(int(np.log2(mn / 26)) + 1, 0)  # int() truncates toward zero, as Fortran's INT
    return {"dgelsd": 12 * mn + 50 * mn + 8 * mn * nlvl + mn * nrhs + 26 * 26,
            "zgelsd": 2 * mn + max(mm, mn * nrhs), "dgelss": 3 * mn + max(2 * mn, mm, nrhs),
            "zgelss": 2 * mn + max(mx, nrhs)}[name]


def lstsq_lwork_infos(shapes=((30, 20), (20, 30), (20, 70), (60, 20)), nrhs=2, seed=5):
    """gelsd and gelss, d and z, on these shapes, with one less than lstsq_minwork and with it:
    [info, info, ...] in that order. Through cython_lapack, so through the shim where one is
    loaded."""
    rng = np.random.default_rng(seed)
    out = []
    for name in ("dgelsd", "zgelsd", "dgelss", "zgelss"):
        cplx = name[0] == "z"
        dt = np.complex128 if cplx else np.float64
        cap = cython_lapack.__pyx_capi__[name]
        sig = [_I, _I, _I, _P, _I, _P, _I, _P, _P, _I, _P, _I] + ([_P] if cplx else []) + \
            ([_P] if name.endswith("lsd") else []) + [_I]
        f = ctypes.CFUNCTYPE(None, *sig)(_get_ptr(cap, _get_name(cap)))
        for m, n in shapes:
            least = lstsq_minwork(name, m, n, nrhs)
            for lw in (least - 1, least):
                a = np.asfortranarray(standard_normal(rng, (m, n)).astype(dt))
                b = np.asfortranarray(standard_normal(rng, (max(m, n), nrhs)).astype(dt))
                s, rank, info = np.zeros(min(m, n)), ctypes.c_int(0), ctypes.c_int(0)
                w, iw = np.zeros(lw, dtype=dt), np.zeros(10000, dtype=np.int32)
                rw = np.zeros(100000)
                args = [_i(m), _i(n), _i(nrhs), _p(a), _i(m), _p(b), _i(max(m, n)), _p(s),
                        ctypes.byref(ctypes.c_double(-1.0)), ctypes.byref(rank), _p(w), _i(lw)]
                args += ([_p(rw)] if cplx else []) + ([_p(iw)] if name.endswith("lsd") else [])
                f(*args, ctypes.byref(info))
                out.append(info.value)
    return out


def gesvd_lwork_infos(shapes=((30, 20), (20, 30)), jobs=("NN", "SS", "AA", "OS", "NO"), seed=6):
    """dgesvd and zgesvd on these shapes (below the QR-first threshold) and jobs, with one
    less than LAPACK's documented minimum lwork (d: max(3 mn + mx, 5 mn), z: 2 mn + mx) and
    with it: [info, info, ...] in that order. Through cython_lapack, so through the shim where
    one is loaded."""
    rng = np.random.default_rng(seed)
    out = []
    for name in ("dgesvd", "zgesvd"):
        cplx = name[0] == "z"
        dt = np.complex128 if cplx else np.float64
        cap = cython_lapack.__pyx_capi__[name]
        sig = [_C, _C, _I, _I, _P, _I, _P, _P, _I, _P, _I, _P, _I] + ([_P] if cplx else []) + [_I]
        f = ctypes.CFUNCTYPE(None, *sig)(_get_ptr(cap, _get_name(cap)))
        for m, n in shapes:
            mn, mx = min(m, n), max(m, n)
            least = 2 * mn + mx if cplx else max(3 * mn + mx, 5 * mn)
            for ju, jv in jobs:
                for lw in (least - 1, least):
                    a = np.asfortranarray(standard_normal(rng, (m, n)).astype(dt))
                    s, info = np.zeros(mn), ctypes.c_int(0)
                    u, vt = np.zeros((m, m), dt, order="F"), np.zeros((n, n), dt, order="F")
                    w, rw = np.zeros(lw, dtype=dt), np.zeros(5 * mn)
                    args = [ju.encode(), jv.encode(), _i(m), _i(n), _p(a), _i(m), _p(s), _p(u),
                            _i(m), _p(vt), _i(n), _p(w), _i(lw)] + ([_p(rw)] if cplx else [])
                    f(*args, ctypes.byref(info))
                    out.append(info.value)
    return out
