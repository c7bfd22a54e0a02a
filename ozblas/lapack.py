"""`ozblas.lapack`: LAPACK factorizations and solves whose O(n^3) part runs through ozblas.

The routines take and return what ``scipy.linalg.lapack``'s do (``getrf(a)`` returns
``(lu, piv, info)`` with 0-based pivots, ``potrf(a, lower=False, clean=True)`` returns
``(c, info)``, ``geqrf(a)`` ``(qr, tau, work, info)``, ...; the Level-3 BLAS ``trsm trmm symm
hemm syr2k her2k`` what ``scipy.linalg.blas``'s do), for float64 and complex128 NumPy arrays (other dtypes are converted:
real to float64, complex to complex128). They call the blocked drivers of
``native/src/lapack`` (ozblas.h "LAPACK layer"): panels and diagonal blocks by the host
LAPACK, every update an ozblas GEMM under the usual options (``method``, ``moduli``,
``executor``... as in ``ozblas.matmul``; unset ones come from the OZBLAS_* environment).
``nb`` is the block size (None: OZBLAS_LAPACK_NB, else the size rule of docs/lapack.md).
``last_report()`` describes the last call of this thread: products issued, how many ran
emulated, their flops and moduli (``moduli_histogram``: emulated products per count), and
where the matrices were (``device``); its time split into ``product_seconds`` (a monotonic
clock around each product) and ``host_seconds`` (the rest: the host remainder), the latter's
measured parts in ``host_parts`` (``panels``: the host QR/LQ panels, ``larft`` and ``lahr2``;
``chase``: the two-stage drivers' bulge chasing; ``solver``: their tridiagonal or bidiagonal
solver; ``back``: their back-transformations' host work (geev/gees: ``trevc3``, ``gebak``,
the normalization, ``trsen``); ``copies``: their own copies of the matrix, the band and the
vectors (geev/gees: the scaling and ``gebal`` too); each less the products and panels inside it), ``host_flops``, and ``band``, the two-stage
reductions' band width (``band_model``; None when none ran).

CuPy arrays are accepted too by every routine here (all of a call's matrices on one device):
the drivers then run on the device pointers, on the CUDA executor and CuPy's current stream,
and the results are CuPy arrays (pivots, tau and work too; pivots and tau given as CuPy or
NumPy arrays). With ``executor="cuda"``, NumPy matrices are uploaded once for the call and the
results copied back once (docs/lapack.md, "On the GPU").
"""

from __future__ import annotations

import functools
import threading

import numpy as np

from . import _constants, config
from ._native import OzblasError, ffi, lib
from .api import _context, _device_options, _on_device, _options, _ptr, _xp

__all__ = ["getrf", "getrs", "gesv", "getri", "potrf", "potrs", "posv", "potri", "trtri", "trtrs",
           "trsm", "trmm", "geqrf", "orgqr", "ungqr", "ormqr", "unmqr", "gelqf", "orglq", "unglq",
           "ormlq", "unmlq", "gehrd", "orghr", "unghr", "ormhr", "unmhr", "gels", "gelsy", "gelsd", "gelss", "gesdd", "gesvd", "geev", "gees", "gebrd",
           "orgbr", "ungbr", "ormbr", "unmbr", "symm", "hemm",
           "syr2k", "her2k", "sytrf", "sytrs", "sytri", "sysv", "hetrf", "hetrs", "hetri", "hesv",
           "sygst", "hegst", "trsyl", "syevd", "heevd", "syev", "heev", "syevr", "heevr", "sygvd",
           "hegvd", "sygv", "hegv", "sytrd", "hetrd", "ormtr", "unmtr", "orgtr", "ungtr",
           "stedc", "last_report", "band_model", "hseqr_chain"]

_local = threading.local()
_TRANS = {0: "N", 1: "T", 2: "C"}
_DEVICE = {0: "host", 1: "uploaded", 2: "device"}  # ozblas_lapack_report.device


def last_report() -> dict | None:
    """The report of this thread's last ozblas.lapack call (None before the first)."""
    return getattr(_local, "report", None)


def _report(r) -> dict:
    return {
        "nb": r.nb, "products": r.products, "emulated": r.emulated, "flops": r.flops,
        "product_flops": r.product_flops, "emulated_flops": r.emulated_flops,
        "method": _constants.METHODS[r.method], "executor": _constants.EXECUTORS[r.executor],
        "moduli": (r.min_moduli, r.max_moduli) if r.max_moduli else None,
        "bound": r.max_bound if r.max_bound >= 0 else None, "seconds": r.seconds,
        "device": _DEVICE[r.device], "device_short": bool(r.device_short),
        "moduli_histogram": {c: int(r.moduli_hist[c]) for c in range(64) if r.moduli_hist[c]},
        "host_flops": r.host_flops,
        "product_seconds": r.product_seconds, "host_seconds": r.host_seconds,
        "host_parts": {"panels": r.panel_seconds, "chase": r.chase_seconds,
                       "solver": r.solver_seconds, "back": r.back_seconds,
                       "copies": r.copy_seconds},
        "band": r.band or None,
    }


def _dtype(*arrays):
    """The element type of a call, and its array module (numpy, or cupy for device arrays)."""
    xp = _xp(*arrays)
    if xp is not np and not all(_on_device(a) for a in arrays):
        raise TypeError("ozblas.lapack: the matrices of a call must all be NumPy arrays or all "
                        "device (CuPy) arrays")
    cplx = any(a.dtype.kind == "c" if xp is not np else np.iscomplexobj(a) for a in arrays)
    return (np.complex128 if cplx else np.float64), xp


def _is_complex(v):
    return v.dtype.kind == "c" if _on_device(v) else np.iscomplexobj(v)


def _host_vector(v, dt):
    """A vector of scalars handed to the C API (tau: host memory), from NumPy or CuPy."""
    return np.ascontiguousarray(np.asarray(v.get() if _on_device(v) else v, dtype=dt).ravel())


def _fortran(a, dtype, overwrite=False, name="a", xp=np):
    a = xp.asarray(a)
    if a.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array, got shape {a.shape}")
    if overwrite and a.dtype == dtype and a.flags.f_contiguous and (xp is not np or a.flags.writeable):
        return a
    return xp.array(a, dtype=dtype, order="F", copy=True)


def _rhs(b, dtype, overwrite=False, xp=np):
    """b as a Fortran-ordered matrix, and whether it was a vector."""
    b = xp.asarray(b)
    if b.ndim == 1:
        return xp.array(b, dtype=dtype, order="F").reshape(-1, 1), True
    return _fortran(b, dtype, overwrite, "b", xp), False


def _choice(routine, name, value, accepted: dict):
    """What the C API takes for an option's value (accepted: the values taken -> that; a
    number equal to an integer key counts as it, as SciPy's wrappers read it), or a
    ValueError naming the routine, the argument, the value and the accepted values."""
    number = isinstance(value, (int, float, np.number)) and not isinstance(value, np.complexfloating)
    for k, v in accepted.items():
        if (isinstance(k, str) and isinstance(value, str) or isinstance(k, int) and number) \
                and value == k:
            return v
    raise ValueError(f"{routine}: {name}={value!r} is not valid; accepted: "
                     f"{', '.join(repr(k) if isinstance(k, str) else str(k) for k in accepted)}")


def _flag(routine, name, value) -> bool:
    """A 0/1 option as SciPy's wrappers take it (lower, side, unitdiag, diag, clean; also
    False/True)."""
    return _choice(routine, name, value, {0: False, 1: True})


def _trans(routine, name, value, allowed="NTC") -> bytes:
    """A transpose code 0 (N), 1 (T), 2 (C) among those the routine takes."""
    return _choice(routine, name, value, {i: t.encode() for i, t in _TRANS.items() if t in allowed})


def _letter(routine, name, value, allowed) -> bytes:
    """A LAPACK character option ("L"/"R", "N"/"T"/"C"), either case."""
    return _choice(routine, name, value, {c: c.upper().encode()
                                          for a in allowed for c in (a, a.lower())})


def _lwork(routine, lwork):
    """lwork: None, -1 (a workspace query) or a size (a nonnegative integer)."""
    if lwork is None:
        return None
    if isinstance(lwork, (bool, np.bool_)) or not isinstance(lwork, (int, np.integer)) or lwork < -1:
        raise ValueError(f"{routine}: lwork={lwork!r} is not valid; accepted: None, -1 (a "
                         "workspace query) or a nonnegative integer")
    return int(lwork)


def _ld(x):
    return max(1, x.shape[0])


def _square(a, name="a"):
    if a.shape[0] != a.shape[1]:
        raise ValueError(f"{name} must be square, got shape {a.shape}")


@functools.cache
def _routines() -> dict:
    """The address of each ozblas_<routine> entry -> its routine (OZBLAS_ROUTINES' names)."""
    return {int(ffi.cast("uintptr_t", getattr(lib, "ozblas_" + r))): r
            for r in config.routine_names() if hasattr(lib, "ozblas_" + r)}


def _left_native(fn) -> bool:
    """Whether OZBLAS_ROUTINES (or activate(routines=...)) leaves fn's routine native."""
    native = config.from_env().routines
    return bool(native) and _routines().get(int(ffi.cast("uintptr_t", fn))) in native


def _call(fn, *args, opts):
    """Run an ozblas_* LAPACK entry (last three arguments: nb, opt, report). A routine that
    OZBLAS_ROUTINES leaves native runs as one block, which is one call of the host routine
    (ozblas.h "LAPACK layer"), with native products where a driver has only products."""
    nb, o = opts["nb"], opts["opt"]
    if _left_native(fn):
        nb, o = opts["whole"], ffi.new("ozblas_options *", o[0])
        o.method = _constants.METHODS.index("native")
    info = ffi.new("int64_t *")
    rep = ffi.new("ozblas_lapack_report *")
    st = fn(_context(), *args, info, nb, o, rep)
    _local.report = _report(rep)
    if st != 0 and st != 1:  # 1: a bad argument, reported through info as LAPACK does
        name = ffi.string(lib.ozblas_status_name(st)).decode()
        raise OzblasError(name, ffi.string(lib.ozblas_status_message(st)).decode())
    return int(info[0])


def _opts(kw, xp=np, arrays=()):
    nb = kw.pop("nb", None)
    nb = config.parse("OZBLAS_LAPACK_NB", nb, "nb") if nb is not None else 0  # 0: the library's
    o = _options(kw.pop("method", None), kw.pop("moduli", None), kw.pop("scaling", None),
                 kw.pop("executor", None), kw.pop("threads", None), kw.pop("slices", None),
                 kw.pop("variant", None))
    if kw:
        raise TypeError(f"unexpected keyword arguments: {sorted(kw)}")
    _device_options(o, xp, arrays)
    # the largest dimension of the call: as nb, every order of it is one block
    whole = max((max(np.shape(a) if xp is np else a.shape, default=1) for a in arrays), default=1)
    return {"nb": nb, "opt": o, "whole": max(int(whole), 1)}


def _block_size(n, opts=None, executor=None) -> int:
    """The block size of a call of order n: its nb= (opts, from _opts), else the library's
    choice (OZBLAS_LAPACK_NB, else its size rule) for the executor the call's options plan
    for (ozblas_lapack_executor; device arrays run with executor cuda), or for executor."""
    if opts and opts["nb"]:
        return opts["nb"]
    if executor is None:
        executor = lib.ozblas_lapack_executor(opts["opt"], ffi.NULL)
    return int(lib.ozblas_lapack_block_size(n, executor))


def _start(kw, *arrays):
    """(dtype, array module, options) of a call on these matrices (None entries skipped)."""
    arrays = [a for a in arrays if a is not None]
    dt, xp = _dtype(*arrays)
    return dt, xp, _opts(kw, xp, arrays)


def _piv_out(ipiv, n, xp):
    p = (ipiv[:n] - 1).astype(np.int32)
    return p if xp is np else xp.asarray(p)


def _fn(name, dtype):
    return getattr(lib, "ozblas_" + ("z" if dtype == np.complex128 else "d") + name)


def _alpha(alpha, dtype):
    if dtype == np.complex128:
        return ffi.new("double[2]", [complex(alpha).real, complex(alpha).imag])
    return float(alpha)


def getrf(a, overwrite_a=False, **kw):
    """LU with partial pivoting: ``(lu, piv, info)``, piv 0-based (row i was swapped with piv[i])."""
    dt, xp, opts = _start(kw, a)
    lu = _fortran(a, dt, overwrite_a, xp=xp)
    m, n = lu.shape
    ipiv = np.zeros(max(1, min(m, n)), dtype=np.int64)
    info = _call(_fn("getrf", dt), m, n, _ptr(lu), _ld(lu),
                 ffi.cast("int64_t *", ipiv.ctypes.data), opts=opts)
    return lu, _piv_out(ipiv, min(m, n), xp), info


def _ipiv(piv, n):
    p = np.asarray(piv.get() if _on_device(piv) else piv, dtype=np.int64).ravel()
    if p.shape[0] != n:
        raise ValueError(f"piv must have {n} entries, got {p.shape[0]}")
    return np.ascontiguousarray(p + 1)


def getrs(lu, piv, b, trans=0, overwrite_b=False, **kw):
    """Solve op(A) x = b from getrf's factors: ``(x, info)``; trans 0, 1 (A^T) or 2 (A^H).
    A piv entry outside 0..n-1 gives info = -6 (LAPACK's position of ipiv), b unchanged."""
    t = _trans("getrs", "trans", trans)
    dt, xp, opts = _start(kw, lu, b)
    a = _fortran(lu, dt, xp=xp)
    _square(a, "lu")
    x, vec = _rhs(b, dt, overwrite_b, xp)
    n = a.shape[0]
    ip = _ipiv(piv, n)
    info = _call(_fn("getrs", dt), t, n, x.shape[1], _ptr(a), _ld(a),
                 ffi.cast("int64_t *", ip.ctypes.data), _ptr(x), _ld(x), opts=opts)
    return (x[:, 0] if vec else x), info


def gesv(a, b, overwrite_a=False, overwrite_b=False, **kw):
    """Solve a x = b by LU: ``(lu, piv, x, info)`` as scipy.linalg.lapack.dgesv."""
    dt, xp, opts = _start(kw, a, b)
    lu = _fortran(a, dt, overwrite_a, xp=xp)
    _square(lu)
    x, vec = _rhs(b, dt, overwrite_b, xp)
    n = lu.shape[0]
    ipiv = np.zeros(max(1, n), dtype=np.int64)
    info = _call(_fn("gesv", dt), n, x.shape[1], _ptr(lu), _ld(lu),
                 ffi.cast("int64_t *", ipiv.ctypes.data), _ptr(x), _ld(x), opts=opts)
    return lu, _piv_out(ipiv, n, xp), (x[:, 0] if vec else x), info


def getri(lu, piv, overwrite_lu=False, **kw):
    """inv(A) from getrf's factors: ``(inv_a, info)``; a piv entry outside 0..n-1 gives
    info = -4, nothing computed."""
    dt, xp, opts = _start(kw, lu)
    a = _fortran(lu, dt, overwrite_lu, xp=xp)
    _square(a, "lu")
    n = a.shape[0]
    ip = _ipiv(piv, n)
    info = _call(_fn("getri", dt), n, _ptr(a), _ld(a), ffi.cast("int64_t *", ip.ctypes.data),
                 opts=opts)
    return a, info


def _clean(c, lower, xp):
    """Zero the triangle LAPACK does not reference (SciPy's clean=1)."""
    return xp.tril(c) if lower else xp.triu(c)


def potrf(a, lower=False, clean=True, overwrite_a=False, **kw):
    """Cholesky: ``(c, info)`` with a = c^H c (upper) or c c^H (lower)."""
    lower, clean = _flag("potrf", "lower", lower), _flag("potrf", "clean", clean)
    dt, xp, opts = _start(kw, a)
    c = _fortran(a, dt, overwrite_a, xp=xp)
    _square(c)
    info = _call(_fn("potrf", dt), b"L" if lower else b"U", c.shape[0], _ptr(c), _ld(c),
                 opts=opts)
    if clean:
        c[...] = _clean(c, lower, xp)
    return c, info


def potrs(c, b, lower=False, overwrite_b=False, **kw):
    """Solve a x = b from potrf's factor: ``(x, info)``."""
    lower = _flag("potrs", "lower", lower)
    dt, xp, opts = _start(kw, c, b)
    f = _fortran(c, dt, xp=xp)
    _square(f, "c")
    x, vec = _rhs(b, dt, overwrite_b, xp)
    info = _call(_fn("potrs", dt), b"L" if lower else b"U", f.shape[0], x.shape[1], _ptr(f),
                 _ld(f), _ptr(x), _ld(x), opts=opts)
    return (x[:, 0] if vec else x), info


def posv(a, b, lower=False, overwrite_a=False, overwrite_b=False, **kw):
    """Solve a x = b by Cholesky: ``(c, x, info)``."""
    lower = _flag("posv", "lower", lower)
    dt, xp, opts = _start(kw, a, b)
    c = _fortran(a, dt, overwrite_a, xp=xp)
    _square(c)
    x, vec = _rhs(b, dt, overwrite_b, xp)
    info = _call(_fn("posv", dt), b"L" if lower else b"U", c.shape[0], x.shape[1], _ptr(c),
                 _ld(c), _ptr(x), _ld(x), opts=opts)
    return c, (x[:, 0] if vec else x), info


def potri(c, lower=False, overwrite_c=False, **kw):
    """inv(A) from potrf's factor: ``(inv_a, info)``, the referenced triangle only."""
    lower = _flag("potri", "lower", lower)
    dt, xp, opts = _start(kw, c)
    a = _fortran(c, dt, overwrite_c, xp=xp)
    _square(a, "c")
    info = _call(_fn("potri", dt), b"L" if lower else b"U", a.shape[0], _ptr(a), _ld(a),
                 opts=opts)
    return a, info


def trtri(c, lower=False, unitdiag=False, overwrite_c=False, **kw):
    """Inverse of a triangular matrix: ``(inv_c, info)``."""
    lower, unitdiag = _flag("trtri", "lower", lower), _flag("trtri", "unitdiag", unitdiag)
    dt, xp, opts = _start(kw, c)
    a = _fortran(c, dt, overwrite_c, xp=xp)
    _square(a, "c")
    info = _call(_fn("trtri", dt), b"L" if lower else b"U", b"U" if unitdiag else b"N",
                 a.shape[0], _ptr(a), _ld(a), opts=opts)
    return a, info


def trtrs(a, b, lower=False, trans=0, unitdiag=False, overwrite_b=False, **kw):
    """Solve op(a) x = b, a triangular: ``(x, info)``."""
    lower, unitdiag = _flag("trtrs", "lower", lower), _flag("trtrs", "unitdiag", unitdiag)
    t = _trans("trtrs", "trans", trans)
    dt, xp, opts = _start(kw, a, b)
    f = _fortran(a, dt, xp=xp)
    _square(f)
    x, vec = _rhs(b, dt, overwrite_b, xp)
    info = _call(_fn("trtrs", dt), b"L" if lower else b"U", t,
                 b"U" if unitdiag else b"N", f.shape[0], x.shape[1], _ptr(f), _ld(f), _ptr(x),
                 _ld(x), opts=opts)
    return (x[:, 0] if vec else x), info


def _tr3(name, alpha, a, b, side, lower, trans_a, diag, overwrite_b, kw):
    side, lower, diag = (_flag(name, arg, v)
                         for arg, v in (("side", side), ("lower", lower), ("diag", diag)))
    t = _trans(name, "trans_a", trans_a)
    dt, xp, opts = _start(kw, a, b)
    f = _fortran(a, dt, xp=xp)
    _square(f)
    x = _fortran(b, dt, overwrite_b, "b", xp)
    k = x.shape[0] if not side else x.shape[1]
    if f.shape[0] != k:
        raise ValueError(f"a is {f.shape} but op(a) must be {k} x {k} for b of shape {x.shape}")
    info = _call(_fn(name, dt), b"R" if side else b"L", b"L" if lower else b"U",
                 t, b"U" if diag else b"N", x.shape[0], x.shape[1],
                 _alpha(alpha, dt), _ptr(f), _ld(f), _ptr(x), _ld(x), opts=opts)
    if info:
        raise ValueError(f"{name}: argument {-info} is not valid")
    return x


def trsm(alpha, a, b, side=0, lower=0, trans_a=0, diag=0, overwrite_b=False, **kw):
    """alpha op(a)^-1 b (side 0) or alpha b op(a)^-1 (side 1), as scipy.linalg.blas.dtrsm."""
    return _tr3("trsm", alpha, a, b, side, lower, trans_a, diag, overwrite_b, kw)


def trmm(alpha, a, b, side=0, lower=0, trans_a=0, diag=0, overwrite_b=False, **kw):
    """alpha op(a) b (side 0) or alpha b op(a) (side 1), as scipy.linalg.blas.dtrmm."""
    return _tr3("trmm", alpha, a, b, side, lower, trans_a, diag, overwrite_b, kw)


def _work(lwork, n, nb, dt, xp=np):
    """SciPy's work array: max(lwork, 1) entries (lwork None: its default max(3n, 1)), the
    first LAPACK's optimal size for block size nb."""
    w = np.zeros(max(1, 3 * n if lwork is None else int(lwork)), dtype=dt)
    w[0] = max(1, n) * nb
    return w if xp is np else xp.asarray(w)


def _query(lwork):
    """lwork = -1: a workspace query, answered as the real routine does (nothing computed)."""
    return lwork is not None and int(lwork) == -1


def _geqrf(name, a, lwork, overwrite_a, kw):
    """geqrf or gelqf: (factors, tau, work, info); LAPACK's optimal work is n nb (geqrf) or m nb."""
    lwork = _lwork(name, lwork)
    dt, xp, opts = _start(kw, a)
    qr = _fortran(a, dt, overwrite_a, xp=xp)
    m, n = qr.shape
    tau = np.zeros(max(1, min(m, n)), dtype=dt)
    out = lambda t: t[:min(m, n)] if xp is np else xp.asarray(t[:min(m, n)])  # noqa: E731
    nb = _block_size(min(m, n), opts)
    nw = n if name == "geqrf" else m
    if _query(lwork):
        return qr, out(tau), _work(1, nw, nb, dt, xp), 0
    info = _call(_fn(name, dt), m, n, _ptr(qr), _ld(qr), _ptr(tau), opts=opts)
    return qr, out(tau), _work(lwork, nw, _local.report["nb"], dt, xp), info


def geqrf(a, lwork=None, overwrite_a=False, **kw):
    """QR factorization: ``(qr, tau, work, info)`` as scipy.linalg.lapack.dgeqrf (R on and above
    the diagonal, the Householder vectors below it). lwork -1 is a workspace query (work[0]:
    the optimal size); any other value only sizes the returned work array."""
    return _geqrf("geqrf", a, lwork, overwrite_a, kw)


def gelqf(a, lwork=None, overwrite_a=False, **kw):
    """LQ factorization a = L Q: ``(lq, tau, work, info)`` as LAPACK's dgelqf/zgelqf (L on and
    below the diagonal, the Householder vectors, conjugated, right of it); lwork as geqrf's."""
    return _geqrf("gelqf", a, lwork, overwrite_a, kw)


def _orgqr(name, a, tau, lwork, overwrite_a, kw):
    lwork = _lwork(name, lwork)
    dt, xp, opts = _start(kw, a)
    dt = np.complex128 if _is_complex(tau) else dt
    q = _fortran(a, dt, overwrite_a, xp=xp)
    m, n = q.shape
    t = _host_vector(tau, dt)
    k = t.shape[0]
    nb = _block_size(k, opts)
    nw = n if name in ("orgqr", "ungqr") else m  # LAPACK's optimal work: n nb, or m nb (LQ)
    if _query(lwork):
        return q, _work(1, nw, nb, dt, xp), 0
    info = _call(_fn(name, dt), m, n, k, _ptr(q), _ld(q), _ptr(t) if k else ffi.NULL, opts=opts)
    if info < 0:
        raise ValueError(f"{name}: argument {-info} is not valid (a {m} x {n}, {k} reflectors)")
    return q, _work(lwork, nw, _local.report["nb"], dt, xp), info


def _as_complex(a):
    """a as complex128, in its own array module."""
    return (_xp(a)).asarray(a, dtype=np.complex128)


def orgqr(a, tau, lwork=None, overwrite_a=False, **kw):
    """Q from geqrf's reflectors: ``(q, work, info)`` as scipy.linalg.lapack.dorgqr (the first
    n columns of Q = H(1) ... H(k), k = len(tau))."""
    return _orgqr("ungqr" if _is_complex(a) or _is_complex(tau) else "orgqr", a, tau, lwork,
                  overwrite_a, kw)


def ungqr(a, tau, lwork=None, overwrite_a=False, **kw):
    """The complex orgqr, as scipy.linalg.lapack.zungqr."""
    return _orgqr("ungqr", _as_complex(a), tau, lwork, overwrite_a, kw)


def _ormqr(name, side, trans, a, tau, c, lwork, overwrite_c, kw):
    lwork = _lwork(name, lwork)
    dt, xp, opts = _start(kw, a, c)
    dt = np.complex128 if _is_complex(tau) else dt
    side = _letter(name, "side", side, "LR")
    trans = _letter(name, "trans", trans, "NC" if dt == np.complex128 else "NT")
    f = _fortran(a, dt, xp=xp)
    x = _fortran(c, dt, overwrite_c, "c", xp)
    t = _host_vector(tau, dt)
    m, n = x.shape
    k = t.shape[0]
    nw = n if side == b"L" else m
    nb = _block_size(k, opts)
    if _query(lwork):
        return x, _work(1, nw, nb, dt, xp), 0
    info = _call(_fn(name, dt), side, trans, m, n, k, _ptr(f), _ld(f),
                 _ptr(t) if k else ffi.NULL, _ptr(x), _ld(x), opts=opts)
    if info < 0:
        raise ValueError(f"{name}: argument {-info} is not valid")
    return x, _work(lwork if lwork is not None else 1, nw, _local.report["nb"], dt, xp), info


def ormqr(side, trans, a, tau, c, lwork=None, overwrite_c=False, **kw):
    """op(Q) c (side "L") or c op(Q) ("R") with Q from geqrf's reflectors (a, tau), trans "N" or
    "T" ("C" complex): ``(cq, work, info)`` as scipy.linalg.lapack.dormqr."""
    cplx = any(_is_complex(v) for v in (a, tau, c))
    return _ormqr("unmqr" if cplx else "ormqr", side, trans, a, tau, c, lwork, overwrite_c, kw)


def unmqr(side, trans, a, tau, c, lwork=None, overwrite_c=False, **kw):
    """The complex ormqr, as scipy.linalg.lapack.zunmqr."""
    return _ormqr("unmqr", side, trans, _as_complex(a), tau, c, lwork, overwrite_c, kw)


def orglq(a, tau, lwork=None, overwrite_a=False, **kw):
    """Q from gelqf's reflectors: ``(q, work, info)`` as LAPACK's dorglq (the first m rows of
    Q = H(k)^H ... H(1)^H, k = len(tau), m <= n)."""
    return _orgqr("unglq" if _is_complex(a) or _is_complex(tau) else "orglq", a, tau, lwork,
                  overwrite_a, kw)


def unglq(a, tau, lwork=None, overwrite_a=False, **kw):
    """The complex orglq, as LAPACK's zunglq."""
    return _orgqr("unglq", _as_complex(a), tau, lwork, overwrite_a, kw)


def ormlq(side, trans, a, tau, c, lwork=None, overwrite_c=False, **kw):
    """op(Q) c (side "L") or c op(Q) ("R") with Q from gelqf's reflectors (a: k rows, tau),
    trans "N" or "T" ("C" complex): ``(cq, work, info)`` as LAPACK's dormlq."""
    cplx = any(_is_complex(v) for v in (a, tau, c))
    return _ormqr("unmlq" if cplx else "ormlq", side, trans, a, tau, c, lwork, overwrite_c, kw)


def unmlq(side, trans, a, tau, c, lwork=None, overwrite_c=False, **kw):
    """The complex ormlq, as LAPACK's zunmlq."""
    return _ormqr("unmlq", side, trans, _as_complex(a), tau, c, lwork, overwrite_c, kw)


def _lo_hi(lo, hi, n):
    """SciPy's 0-based lo, hi (hi None: n - 1) as LAPACK's 1-based ilo, ihi."""
    hi = n - 1 if hi is None else int(hi)
    return int(lo) + 1, hi + 1


def gehrd(a, lo=0, hi=None, lwork=None, overwrite_a=False, **kw):
    """Hessenberg reduction q^H a q = h: ``(ht, tau, info)`` as scipy.linalg.lapack.dgehrd (h on
    and above the subdiagonal, the reflectors below it; lo, hi 0-based, hi None: n - 1).
    lwork -1 is a workspace query (nothing computed); any other value is not needed."""
    dt, xp, opts = _start(kw, a)
    h = _fortran(a, dt, overwrite_a, xp=xp)
    _square(h)
    n = h.shape[0]
    tau = np.zeros(max(1, n - 1), dtype=dt)
    ilo, ihi = _lo_hi(lo, hi, n)
    if not _query(lwork):
        info = _call(_fn("gehrd", dt), n, ilo, ihi, _ptr(h), _ld(h), _ptr(tau), opts=opts)
        if info < 0:
            raise ValueError(f"gehrd: argument {-info} is not valid (n={n}, lo={lo}, hi={hi})")
    t = tau[:max(0, n - 1)]
    return h, (t if xp is np else xp.asarray(t)), 0 if _query(lwork) else info


def _orghr(name, a, tau, lo, hi, lwork, overwrite_a, kw):
    dt, xp, opts = _start(kw, a)
    dt = np.complex128 if _is_complex(tau) else dt
    q = _fortran(a, dt, overwrite_a, xp=xp)
    _square(q)
    n = q.shape[0]
    t = _host_vector(tau, dt)
    if t.shape[0] < n - 1:
        raise ValueError(f"tau must have n - 1 = {n - 1} entries, got {t.shape[0]}")
    ilo, ihi = _lo_hi(lo, hi, n)
    if _query(lwork):
        return q, 0
    t = np.concatenate([t, np.zeros(1, dtype=dt)])  # never empty: a valid pointer for n <= 1
    info = _call(_fn(name, dt), n, ilo, ihi, _ptr(q), _ld(q), _ptr(t), opts=opts)
    if info < 0:
        raise ValueError(f"{name}: argument {-info} is not valid (n={n}, lo={lo}, hi={hi})")
    return q, info


def orghr(a, tau, lo=0, hi=None, lwork=None, overwrite_a=False, **kw):
    """Q from gehrd's reflectors: ``(q, info)`` as scipy.linalg.lapack.dorghr."""
    return _orghr("unghr" if _is_complex(a) or _is_complex(tau) else "orghr", a, tau, lo, hi,
                  lwork, overwrite_a, kw)


def unghr(a, tau, lo=0, hi=None, lwork=None, overwrite_a=False, **kw):
    """The complex orghr, as scipy.linalg.lapack.zunghr."""
    return _orghr("unghr", _as_complex(a), tau, lo, hi, lwork, overwrite_a, kw)


def _ormhr(name, side, trans, a, tau, c, lo, hi, lwork, overwrite_c, kw):
    dt, xp, opts = _start(kw, a, c)
    dt = np.complex128 if _is_complex(tau) else dt
    f = _fortran(a, dt, xp=xp)
    _square(f)
    x = _fortran(c, dt, overwrite_c, "c", xp)
    m, n = x.shape
    nq = f.shape[0]
    t = _host_vector(tau, dt)
    if t.shape[0] < nq - 1:
        raise ValueError(f"tau must have {nq - 1} entries for a of order {nq}, got {t.shape[0]}")
    ilo, ihi = _lo_hi(lo, hi, nq)
    nw = n if str(side).upper() == "L" else m
    nb = _block_size(max(ihi - ilo, 0), opts)
    if _query(lwork):
        return x, _work(1, nw, nb, dt, xp), 0
    t = np.concatenate([t, np.zeros(1, dtype=dt)])
    info = _call(_fn(name, dt), str(side).encode(), str(trans).encode(), m, n, ilo, ihi, _ptr(f),
                 _ld(f), _ptr(t), _ptr(x), _ld(x), opts=opts)
    if info < 0:
        raise ValueError(f"{name}: argument {-info} is not valid")
    return x, _work(lwork if lwork is not None else 1, nw, _local.report["nb"], dt, xp), info


def ormhr(side, trans, a, tau, c, lo=0, hi=None, lwork=None, overwrite_c=False, **kw):
    """op(Q) c (side "L") or c op(Q) ("R") with Q from gehrd's reflectors (a, tau, lo, hi),
    trans "N" or "T" ("C" complex): ``(cq, work, info)`` as LAPACK's dormhr."""
    cplx = any(_is_complex(v) for v in (a, tau, c))
    return _ormhr("unmhr" if cplx else "ormhr", side, trans, a, tau, c, lo, hi, lwork, overwrite_c, kw)


def unmhr(side, trans, a, tau, c, lo=0, hi=None, lwork=None, overwrite_c=False, **kw):
    """The complex ormhr, as LAPACK's zunmhr."""
    return _ormhr("unmhr", side, trans, _as_complex(a), tau, c, lo, hi, lwork, overwrite_c, kw)


def _ls_operands(name, a, b, overwrite_a, overwrite_b, kw):
    """A least-squares routine's operands: ``(dt, xp, opts, f, x, vec)``, f a's Fortran copy
    (or a itself), x b's with max(m, n) rows (vec: b was a vector)."""
    dt, xp, opts = _start(kw, a, b)
    f = _fortran(a, dt, overwrite_a, xp=xp)
    x, vec = _rhs(b, dt, overwrite_b, xp)
    m, n = f.shape
    if x.shape[0] != max(m, n):
        raise ValueError(f"{name}: b must have max(m, n) = {max(m, n)} rows for a of shape {f.shape}, "
                         f"got {x.shape[0]}")
    return dt, xp, opts, f, x, vec


def gels(a, b, trans="N", lwork=None, overwrite_a=False, overwrite_b=False, **kw):
    """Least squares or minimum norm by QR/LQ: ``(lqr, x, info)`` as scipy.linalg.lapack.dgels
    (b and x have max(m, n) rows; x's first n (trans "N") or m rows are the solution; info > 0:
    a zero diagonal element of the triangular factor, A not of full rank). trans "N", "T" or,
    complex, "C". lwork -1 is a workspace query (nothing computed)."""
    dt, xp, opts, f, x, vec = _ls_operands("gels", a, b, overwrite_a, overwrite_b, kw)
    m, n = f.shape
    if not _query(lwork):
        info = _call(_fn("gels", dt), str(trans).encode(), m, n, x.shape[1], _ptr(f), _ld(f), _ptr(x),
                     _ld(x), opts=opts)
        if info < 0:
            raise ValueError(f"gels: argument {-info} is not valid (trans={trans!r})")
    return f, (x[:, 0] if vec else x), 0 if _query(lwork) else info


def gelsy(a, b, jptv=None, cond=None, lwork=None, overwrite_a=False, overwrite_b=False, **kw):
    """Minimum-norm least squares for an a of any rank by a complete orthogonal factorization:
    ``(v, x, j, rank, info)`` as scipy.linalg.lapack.dgelsy/zgelsy. b has max(m, n) rows (a
    vector: one right-hand side); x's first n rows are the solution. jptv (n entries, None:
    zeros): a nonzero entry moves that column to the front before pivoting; j: the column
    permutation, 1-based as LAPACK returns it (a p's column i is a's column j[i]). cond (None:
    machine epsilon): the rank is the order of the leading triangle of R whose estimated
    condition number stays below 1 / cond. lwork -1 is a workspace query (nothing computed)."""
    dt, xp, opts, f, x, vec = _ls_operands("gelsy", a, b, overwrite_a, overwrite_b, kw)
    m, n = f.shape
    jp = np.zeros(max(n, 1), dtype=np.int64)
    if jptv is not None:
        given = np.asarray(jptv.get() if _on_device(jptv) else jptv).ravel()
        if given.shape[0] != n:
            raise ValueError(f"jptv must have n = {n} entries, got {given.shape[0]}")
        jp[:n] = given
    cond = float(np.finfo(np.float64).eps if cond is None else cond)
    rank, info = 0, 0
    if not _query(lwork):
        r = ffi.new("int64_t *")
        info = _call(_fn("gelsy", dt), m, n, x.shape[1], _ptr(f), _ld(f), _ptr(x), _ld(x),
                     ffi.cast("int64_t *", jp.ctypes.data), cond, r, opts=opts)
        if info < 0:
            raise ValueError(f"gelsy: argument {-info} is not valid")
        rank = int(r[0])
    j = jp[:n].astype(np.int32)
    return f, (x[:, 0] if vec else x), (j if xp is np else xp.asarray(j)), rank, info


def _lstsq(name, a, b, cond, lwork, overwrite_a, overwrite_b, kw):
    """gelsd/gelss: ``(f, x, s, rank, info)``, f a's buffer (gelss: v^H in its first rows)."""
    dt, xp, opts, f, x, vec = _ls_operands(name, a, b, overwrite_a, overwrite_b, kw)
    m, n = f.shape
    s = np.zeros(max(min(m, n), 1))
    rank, info = 0, 0
    if not _query(lwork):
        r = ffi.new("int64_t *")
        info = _call(_fn(name, dt), m, n, x.shape[1], _ptr(f), _ld(f), _ptr(x), _ld(x),
                     ffi.cast("double *", s.ctypes.data), float(cond), r, opts=opts)
        if info < 0:
            raise ValueError(f"{name}: argument {-info} is not valid")
        rank = int(r[0])
    s = s[:min(m, n)]
    return f, (x[:, 0] if vec else x), (s if xp is np else xp.asarray(s)), rank, info


def gelsd(a, b, lwork=None, size_iwork=None, cond=-1.0, overwrite_a=False, overwrite_b=False, **kw):
    """Minimum-norm least squares for an a of any rank through its singular value
    decomposition (the bidiagonal problem by the divide and conquer with product merges and
    two products, or for few right-hand sides by the host lalsd): ``(x, s, rank, info)`` as scipy.linalg.lapack.dgelsd/zgelsd (numpy.linalg.lstsq's and
    scipy.linalg.lstsq's routine). b has max(m, n) rows (a vector: one right-hand side); x's
    first n rows are the solution (m > n, rank n: the squares of rows n..m-1 sum to the
    residual); s a's singular values, descending; rank the number above cond s[0] (cond < 0:
    machine epsilon); info > 0: the bidiagonal solver did not converge. The workspace is the
    driver's own: lwork and size_iwork are accepted for scipy's signature, lwork -1 is a
    query (nothing computed)."""
    _, x, s, rank, info = _lstsq("gelsd", a, b, cond, lwork, overwrite_a, overwrite_b, kw)
    return x, s, rank, info


def gelss(a, b, cond=-1.0, lwork=None, overwrite_a=False, overwrite_b=False, **kw):
    """gelsd with the bidiagonal problem by the host bdsqr (implicit QR): ``(v, x, s, rank,
    work, info)`` as scipy.linalg.lapack.dgelss/zgelss; v is a's buffer with the right singular
    vectors (v^H) in its first min(m, n) rows; work a one-element array (the driver's workspace
    is its own). lwork -1 is a query (nothing computed)."""
    f, x, s, rank, info = _lstsq("gelss", a, b, cond, lwork, overwrite_a, overwrite_b, kw)
    dt = f.dtype
    return f, x, s, rank, np.zeros(1, dtype=dt), info


def _svd(driver, a, compute_uv, full_matrices, lwork, overwrite_a, kw):
    """gesdd/gesvd: ``(u, s, vt, info)``, the jobs from compute_uv and full_matrices."""
    compute_uv, full_matrices = (_flag(driver, k, v) for k, v in (("compute_uv", compute_uv),
                                                                  ("full_matrices", full_matrices)))
    dt, xp, opts = _start(kw, a)
    f = _fortran(a, dt, overwrite_a, xp=xp)
    m, n = f.shape
    k = min(m, n)
    shape_u, shape_vt = ((m, m), (n, n)) if full_matrices else ((m, k), (k, n))
    if not compute_uv:
        shape_u = shape_vt = (1, 1)
    u = xp.zeros(shape_u, dtype=dt, order="F")
    vt = xp.zeros(shape_vt, dtype=dt, order="F")
    s = np.zeros(max(k, 1))
    info = 0
    if not _query(lwork):
        job = b"N" if not compute_uv else b"A" if full_matrices else b"S"
        jobs = (job, job) if driver == "gesvd" else (job,)
        info = _call(_fn(driver, dt), *jobs, m, n, _ptr(f), _ld(f), ffi.cast("double *", s.ctypes.data),
                     _ptr(u), _ld(u), _ptr(vt), _ld(vt), opts=opts)
        if info < 0:
            raise ValueError(f"{driver}: argument {-info} is not valid")
    s = s[:k]
    return u, (s if xp is np else xp.asarray(s)), vt, info


def gesdd(a, compute_uv=1, full_matrices=1, lwork=None, overwrite_a=False, **kw):
    """Singular value decomposition a = u diag(s) vt by the two-stage bidiagonal reduction:
    ``(u, s, vt, info)`` as scipy.linalg.lapack.dgesdd/zgesdd (numpy.linalg.svd's routine).
    compute_uv 0: s only (u and vt 1 x 1 zeros); full_matrices 1: u m x m and vt n x n, else
    m x min(m, n) and min(m, n) x n. s descending (real, NumPy); info > 0: the bidiagonal
    solver (dbdsdc) did not converge. lwork -1 is a workspace query (nothing computed)."""
    return _svd("gesdd", a, compute_uv, full_matrices, lwork, overwrite_a, kw)


def gesvd(a, compute_uv=1, full_matrices=1, lwork=None, overwrite_a=False, **kw):
    """gesdd with the bidiagonal problem by implicit QR (LAPACK's dbdsqr): ``(u, s, vt,
    info)`` as scipy.linalg.lapack.dgesvd/zgesvd (scipy.linalg.svd(lapack_driver="gesvd")'s
    routine); the same shapes and conventions as gesdd; info > 0: dbdsqr did not converge."""
    return _svd("gesvd", a, compute_uv, full_matrices, lwork, overwrite_a, kw)


def geev(a, compute_vl=1, compute_vr=1, lwork=None, overwrite_a=False, **kw):
    """Eigenvalues and left and right eigenvectors of a square nonsymmetric a (LAPACK's geev):
    real a ``(wr, wi, vl, vr, info)`` as scipy.linalg.lapack.dgeev (a complex pair in two
    columns of vl and vr, real and imaginary parts), complex a ``(w, vl, vr, info)`` as zgeev
    (numpy.linalg.eig's and scipy.linalg.eig's routine). The vectors are normalized as LAPACK's
    (unit 2-norm, the largest component real); not computed: 1 x n zeros. Balancing and the
    eigenvectors of T (trevc3) on the host; the Hessenberg reduction, Q, the QR iteration's
    updates of H and Z (multishift hseqr, d and z: the bulges' chase inside its windows on the
    host) and the back-transformation of the eigenvectors as products. NumPy arrays only (host memory). info > 0: the QR iteration
    did not converge (eigenvalues info..n-1 valid). lwork -1 is a workspace query (nothing
    computed)."""
    compute_vl, compute_vr = (_flag("geev", k, v) for k, v in (("compute_vl", compute_vl),
                                                              ("compute_vr", compute_vr)))
    dt, xp, opts = _start(kw, a)
    if xp is not np:
        raise ValueError("geev: host memory only (NumPy arrays)")
    f = _fortran(a, dt, overwrite_a)
    _square(f)
    n = f.shape[0]
    vl = np.zeros((n if compute_vl else 1, n), dtype=dt, order="F")
    vr = np.zeros((n if compute_vr else 1, n), dtype=dt, order="F")
    w = np.zeros(n, dtype=dt)
    wi = np.zeros(n)
    info = 0
    if not _query(lwork):
        jobs = (b"V" if compute_vl else b"N", b"V" if compute_vr else b"N")
        wargs = (_ptr(w),) if dt == np.complex128 else (_ptr(w), _ptr(wi))
        info = _call(_fn("geev", dt), *jobs, n, _ptr(f), _ld(f), *wargs, _ptr(vl), _ld(vl),
                     _ptr(vr), _ld(vr), opts=opts)
        if info < 0:
            raise ValueError(f"geev: argument {-info} is not valid")
    if dt == np.complex128:
        return w, vl, vr, info
    return w, wi, vl, vr, info


def _select_callback(select, cplx, extra, errors):
    """gees's select as the C API's ozblas_select_fn (an exception it raises kept in errors,
    the eigenvalue then not selected)."""
    @ffi.callback("int(void *, const double *, const double *)")
    def cb(_, w, wi):
        try:
            return 1 if (select(complex(w[0], w[1]), *extra) if cplx else select(w[0], wi[0], *extra)) else 0
        except BaseException as e:  # noqa: BLE001 - raised again once the driver returns
            errors.append(e)
            return 0
    return cb


def gees(select, a, compute_v=1, sort_t=0, lwork=None, select_extra_args=(), overwrite_a=False,
         **kw):
    """Schur factorization a = vs t vs^H (LAPACK's gees): real a ``(t, sdim, wr, wi, vs, work,
    info)`` as scipy.linalg.lapack.dgees (t upper quasi-triangular), complex a ``(t, sdim, w,
    vs, work, info)`` as zgees (scipy.linalg.schur's routine). sort_t 1: the eigenvalues for
    which ``select(wr, wi, *select_extra_args)`` (complex: ``select(w, ...)``) is true moved to the top
    left, sdim of them; 0: select is not called. compute_v 0: vs is 1 x n zeros. The
    reordering (trsen) on the host; the Hessenberg reduction, Q and the QR iteration's updates
    of H and Z (multishift hseqr) as products. NumPy arrays only (host memory). work: one element, a workspace size a caller
    may pass back (the driver's workspace is its own); lwork -1 is a query (nothing
    computed). info > 0 as LAPACK's (n + 1: the reordering failed; n + 2: rounding changed the
    selection)."""
    compute_v, sort_t = (_flag("gees", k, v) for k, v in (("compute_v", compute_v), ("sort_t", sort_t)))
    dt, xp, opts = _start(kw, a)
    if xp is not np:
        raise ValueError("gees: host memory only (NumPy arrays)")
    f = _fortran(a, dt, overwrite_a)
    _square(f)
    n = f.shape[0]
    cplx = dt == np.complex128
    vs = np.zeros((n if compute_v else 1, n), dtype=dt, order="F")
    w, wi = np.zeros(n, dtype=dt), np.zeros(n)
    work = np.zeros(1, dtype=dt)
    work[0] = max(1, 3 * n + n * _block_size(n, opts))
    info, sdim = 0, 0
    if not _query(lwork):
        errors = []
        cb = _select_callback(select, cplx, tuple(select_extra_args), errors) if sort_t else ffi.NULL
        sd = ffi.new("int64_t *")
        wargs = (_ptr(w),) if cplx else (_ptr(w), _ptr(wi))
        info = _call(_fn("gees", dt), b"V" if compute_v else b"N", b"S" if sort_t else b"N", cb,
                     ffi.NULL, n, _ptr(f), _ld(f), sd, *wargs, _ptr(vs), _ld(vs), opts=opts)
        if errors:
            raise errors[0]
        if info < 0:
            raise ValueError(f"gees: argument {-info} is not valid")
        sdim = int(sd[0])
    if cplx:
        return f, sdim, w, vs, work, info
    return f, sdim, w, wi, vs, work, info


def gebrd(a, lwork=None, overwrite_a=False, **kw):
    """Bidiagonal reduction q^H a p = b in LAPACK's one-stage format: ``(c, d, e, tauq, taup,
    info)`` as LAPACK's dgebrd/zgebrd (b upper bidiagonal for m >= n, lower for m < n; d its
    diagonal, e its off-diagonal, both real; the reflectors of q and p below and right of the
    bidiagonal, their scalars tauq and taup). lwork -1 is a workspace query (nothing computed)."""
    dt, xp, opts = _start(kw, a)
    c = _fortran(a, dt, overwrite_a, xp=xp)
    m, n = c.shape
    k = min(m, n)
    d, e = np.zeros(max(k, 1)), np.zeros(max(k, 1))
    tauq, taup = np.zeros(max(k, 1), dtype=dt), np.zeros(max(k, 1), dtype=dt)
    info = 0
    if not _query(lwork):
        info = _call(_fn("gebrd", dt), m, n, _ptr(c), _ld(c), _ptr(d), _ptr(e), _ptr(tauq),
                     _ptr(taup), opts=opts)
    out = (lambda v: v) if xp is np else xp.asarray
    return c, out(d[:k]), out(e[:max(k - 1, 0)]), out(tauq[:k]), out(taup[:k]), info


def _vect(routine, vect):
    return _letter(routine, "vect", vect, "QP")


def _orgbr(name, vect, a, tau, k, lwork, overwrite_a, kw):
    vect = _vect(name, vect)
    dt, xp, opts = _start(kw, a)
    dt = np.complex128 if _is_complex(tau) else dt
    q = _fortran(a, dt, overwrite_a, xp=xp)
    m, n = q.shape
    t = np.concatenate([_host_vector(tau, dt), np.zeros(1, dtype=dt)])  # never empty
    k = _count(name, "k", k)
    if t.shape[0] - 1 < min(m if vect == b"Q" else n, k):
        raise ValueError(f"{name}: tau must have min({'m' if vect == b'Q' else 'n'}, k) = "
                         f"{min(m if vect == b'Q' else n, k)} entries, got {t.shape[0] - 1}")
    nb = _block_size(min(m, n, k), opts)
    if _query(lwork):
        return q, _work(1, min(m, n), nb, dt, xp), 0
    info = _call(_fn(name, dt), vect, m, n, k, _ptr(q), _ld(q), _ptr(t), opts=opts)
    if info < 0:
        raise ValueError(f"{name}: argument {-info} is not valid (vect={vect.decode()}, a {m} x {n}, "
                         f"k={k})")
    return q, _work(lwork, min(m, n), _local.report["nb"], dt, xp), info


def _count(routine, name, v):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 0:
        raise ValueError(f"{routine}: {name}={v!r} is not valid; accepted: a nonnegative integer")
    return int(v)


def orgbr(vect, a, tau, k, lwork=None, overwrite_a=False, **kw):
    """Q or P^H from gebrd's reflectors: ``(q, work, info)`` as LAPACK's dorgbr. vect "Q": a is
    m x n (n <= m) and gebrd reduced an m x k matrix (tau: its tauq); vect "P": a is m x n
    (m <= n) and gebrd reduced a k x n matrix (tau: its taup)."""
    cplx = _is_complex(a) or _is_complex(tau)
    return _orgbr("ungbr" if cplx else "orgbr", vect, a, tau, k, lwork, overwrite_a, kw)


def ungbr(vect, a, tau, k, lwork=None, overwrite_a=False, **kw):
    """The complex orgbr, as LAPACK's zungbr."""
    return _orgbr("ungbr", vect, _as_complex(a), tau, k, lwork, overwrite_a, kw)


def _ormbr(name, vect, side, trans, a, tau, c, k, lwork, overwrite_c, kw):
    vect = _vect(name, vect)
    dt, xp, opts = _start(kw, a, c)
    dt = np.complex128 if _is_complex(tau) else dt
    side = _letter(name, "side", side, "LR")
    trans = _letter(name, "trans", trans, "NC" if dt == np.complex128 else "NT")
    f = _fortran(a, dt, xp=xp)
    x = _fortran(c, dt, overwrite_c, "c", xp)
    m, n = x.shape
    k = _count(name, "k", k)
    nq = m if side == b"L" else n
    t = np.concatenate([_host_vector(tau, dt), np.zeros(1, dtype=dt)])
    if t.shape[0] - 1 < min(nq, k):
        raise ValueError(f"{name}: tau must have min(nq, k) = {min(nq, k)} entries, got "
                         f"{t.shape[0] - 1}")
    nw = n if side == b"L" else m
    nb = _block_size(min(nq, k), opts)
    if _query(lwork):
        return x, _work(1, nw, nb, dt, xp), 0
    info = _call(_fn(name, dt), vect, side, trans, m, n, k, _ptr(f), _ld(f), _ptr(t), _ptr(x),
                 _ld(x), opts=opts)
    if info < 0:
        raise ValueError(f"{name}: argument {-info} is not valid")
    return x, _work(lwork if lwork is not None else 1, nw, _local.report["nb"], dt, xp), info


def ormbr(vect, side, trans, a, tau, c, k, lwork=None, overwrite_c=False, **kw):
    """op(Q) c, c op(Q), op(P) c or c op(P) with Q or P from gebrd's reflectors: ``(cq, work,
    info)`` as LAPACK's dormbr. vect "Q" or "P", side "L" or "R", trans "N" or "T" ("C"
    complex); k: the other dimension of the matrix gebrd reduced (columns for "Q", rows for
    "P"); a: gebrd's output (its first min(nq, k) columns for "Q", rows for "P")."""
    cplx = any(_is_complex(v) for v in (a, tau, c))
    return _ormbr("unmbr" if cplx else "ormbr", vect, side, trans, a, tau, c, k, lwork,
                  overwrite_c, kw)


def unmbr(vect, side, trans, a, tau, c, k, lwork=None, overwrite_c=False, **kw):
    """The complex ormbr, as LAPACK's zunmbr."""
    return _ormbr("unmbr", vect, side, trans, _as_complex(a), tau, c, k, lwork, overwrite_c, kw)


def _product(name, cplx_name, scalars, a, b, c, shape, overwrite_c, herm, kw):
    """The options, element type (complex for complex operands or scalars), array module, C
    (c None: zeros) and entry of a symm/syr2k-type call."""
    dt, xp, opts = _start(kw, a, b, c)
    dt = np.complex128 if herm or any(np.iscomplexobj(v) for v in scalars) else dt
    x = xp.zeros(shape, dtype=dt, order="F") if c is None else _fortran(c, dt, overwrite_c, "c", xp)
    if x.shape != shape:
        raise ValueError(f"c must have shape {shape}, got {x.shape}")
    return opts, dt, xp, x, getattr(lib, "ozblas_" + (cplx_name if dt == np.complex128 else name))


def _shape(x, name):
    """The shape of a 2-D operand (NumPy or CuPy; np.shape reads .shape first)."""
    if np.ndim(x) != 2:
        raise ValueError(f"{name} must be a 2-D array, got shape {np.shape(x)}")
    return np.shape(x)


def _symm(herm, alpha, a, b, beta, c, side, lower, overwrite_c, kw):
    name = "hemm" if herm else "symm"
    side, lower = _flag(name, "side", side), _flag(name, "lower", lower)
    opts, dt, xp, x, fn = _product("dsymm", "zhemm" if herm else "zsymm", (alpha, beta), a, b, c,
                                   _shape(b, "b"), overwrite_c, herm, kw)
    f, g = _fortran(a, dt, xp=xp), _fortran(b, dt, name="b", xp=xp)
    _square(f)
    m, n = x.shape
    if f.shape[0] != (n if side else m):
        raise ValueError(f"a is {f.shape} but must be {n if side else m} square for b of shape {g.shape}")
    info = _call(fn, b"R" if side else b"L", b"L" if lower else b"U", m, n, _alpha(alpha, dt),
                 _ptr(f), _ld(f), _ptr(g), _ld(g), _alpha(beta, dt), _ptr(x), _ld(x), opts=opts)
    if info:
        raise ValueError(f"{'hemm' if herm else 'symm'}: argument {-info} is not valid")
    return x


def symm(alpha, a, b, beta=0.0, c=None, side=0, lower=0, overwrite_c=False, **kw):
    """alpha a b + beta c (side 0) or alpha b a + beta c (side 1), a symmetric (its upper, or
    with lower its lower, triangle read), as scipy.linalg.blas.dsymm/zsymm."""
    return _symm(False, alpha, a, b, beta, c, side, lower, overwrite_c, kw)


def hemm(alpha, a, b, beta=0.0, c=None, side=0, lower=0, overwrite_c=False, **kw):
    """symm with a Hermitian a, as scipy.linalg.blas.zhemm."""
    return _symm(True, alpha, a, b, beta, c, side, lower, overwrite_c, kw)


def _syr2k(herm, alpha, a, b, beta, c, trans, lower, overwrite_c, kw):
    name = "her2k" if herm else "syr2k"
    cplx = herm or any(_is_complex(v) for v in (a, b) + ((c,) if c is not None else ())) or \
        any(np.iscomplexobj(v) for v in (alpha, beta))
    t = _trans(name, "trans", trans, "NC" if herm else "NT" if cplx else "NTC")
    lower = _flag(name, "lower", lower)
    n, k = _shape(a, "a")[:: -1 if t != b"N" else 1]
    opts, dt, xp, x, fn = _product("dsyr2k", "zher2k" if herm else "zsyr2k", (alpha, beta), a, b,
                                   c, (n, n), overwrite_c, herm, kw)
    f, g = _fortran(a, dt, xp=xp), _fortran(b, dt, name="b", xp=xp)
    if g.shape != f.shape:
        raise ValueError(f"a and b must have the same shape, got {f.shape} and {g.shape}")
    be = float(np.real(beta)) if herm else _alpha(beta, dt)
    info = _call(fn, b"L" if lower else b"U", t, n, k, _alpha(alpha, dt),
                 _ptr(f), _ld(f), _ptr(g), _ld(g), be, _ptr(x), _ld(x), opts=opts)
    if info:
        raise ValueError(f"{'her2k' if herm else 'syr2k'}: argument {-info} is not valid")
    return x


def syr2k(alpha, a, b, beta=0.0, c=None, trans=0, lower=0, overwrite_c=False, **kw):
    """alpha (a b^T + b a^T) + beta c (trans 0) or alpha (a^T b + b^T a) + beta c (trans 1),
    into the upper (lower) triangle of c only, as scipy.linalg.blas.dsyr2k/zsyr2k."""
    return _syr2k(False, alpha, a, b, beta, c, trans, lower, overwrite_c, kw)


def her2k(alpha, a, b, beta=0.0, c=None, trans=0, lower=0, overwrite_c=False, **kw):
    """alpha a b^H + conj(alpha) b a^H + beta c (trans 0; 2: a^H b ...), beta real, into one
    triangle of c with a real diagonal, as scipy.linalg.blas.zher2k."""
    return _syr2k(True, alpha, a, b, beta, c, trans, lower, overwrite_c, kw)


def _bk(kind, a, b, ipiv, lower, overwrite_a, overwrite_b, herm, kw):
    """The Bunch-Kaufman entries: kind trf, trs, tri or sv; zhe* for complex herm (real
    Hermitian is symmetric)."""
    lower = _flag(("he" if herm else "sy") + kind, "lower", lower)
    dt, xp, opts = _start(kw, a, b)
    f = _fortran(a, dt, overwrite_a, xp=xp)
    _square(f, "a" if ipiv is None else "ldu")
    n = f.shape[0]
    args = [b"L" if lower else b"U", n]
    if b is not None:
        x, vec = _rhs(b, dt, overwrite_b, xp)
        if x.shape[0] != n:
            raise ValueError(f"b has {x.shape[0]} rows, expected {n}")
        args.append(x.shape[1])
    # LAPACK's own ipiv (1-based, negative for 2x2 pivots), as SciPy's wrappers return it
    p = np.zeros(max(1, n), dtype=np.int64) if ipiv is None else np.ascontiguousarray(_ipiv(ipiv, n) - 1)
    args += [_ptr(f), _ld(f), ffi.cast("int64_t *", p.ctypes.data)]
    if b is not None:
        args += [_ptr(x), _ld(x)]
    prefix = "zhe" if herm and dt == np.complex128 else "zsy" if dt == np.complex128 else "dsy"
    info = _call(getattr(lib, "ozblas_" + prefix + kind), *args, opts=opts)
    piv = p[:n].astype(np.int32) if xp is np else xp.asarray(p[:n].astype(np.int32))
    if b is None:
        return (f, piv, info) if kind == "trf" else (f, info)
    x = x[:, 0] if vec else x
    return (x, info) if kind == "trs" else (f, piv, x, info)


def sytrf(a, lower=0, overwrite_a=False, **kw):
    """Bunch-Kaufman A = P L D L^T (or U D U^T): ``(ldu, ipiv, info)`` as
    scipy.linalg.lapack.dsytrf (LAPACK's 1-based ipiv, negative for 2x2 pivots)."""
    return _bk("trf", a, None, None, lower, overwrite_a, False, False, kw)


def hetrf(a, lower=0, overwrite_a=False, **kw):
    """Bunch-Kaufman A = P L D L^H: ``(ldu, ipiv, info)`` as scipy.linalg.lapack.zhetrf."""
    return _bk("trf", a, None, None, lower, overwrite_a, False, True, kw)


def sytrs(ldu, ipiv, b, lower=0, overwrite_b=False, **kw):
    """Solve A x = b from sytrf's factors: ``(x, info)``."""
    return _bk("trs", ldu, b, ipiv, lower, False, overwrite_b, False, kw)


def hetrs(ldu, ipiv, b, lower=0, overwrite_b=False, **kw):
    """Solve A x = b from hetrf's factors: ``(x, info)``."""
    return _bk("trs", ldu, b, ipiv, lower, False, overwrite_b, True, kw)


def sytri(ldu, ipiv, lower=0, overwrite_a=False, **kw):
    """inv(A) from sytrf's factors: ``(inv_a, info)``, the referenced triangle only."""
    return _bk("tri", ldu, None, ipiv, lower, overwrite_a, False, False, kw)


def hetri(ldu, ipiv, lower=0, overwrite_a=False, **kw):
    """inv(A) from hetrf's factors: ``(inv_a, info)``, the referenced triangle only."""
    return _bk("tri", ldu, None, ipiv, lower, overwrite_a, False, True, kw)


def sysv(a, b, lower=0, overwrite_a=False, overwrite_b=False, **kw):
    """Solve a x = b, a symmetric: ``(udut, ipiv, x, info)`` as scipy.linalg.lapack.dsysv."""
    return _bk("sv", a, b, None, lower, overwrite_a, overwrite_b, False, kw)


def hesv(a, b, lower=0, overwrite_a=False, overwrite_b=False, **kw):
    """Solve a x = b, a Hermitian: ``(uduh, ipiv, x, info)`` as scipy.linalg.lapack.zhesv."""
    return _bk("sv", a, b, None, lower, overwrite_a, overwrite_b, True, kw)


def _gst(a, b, itype, lower, overwrite_a, cplx, kw):
    """sygst/hegst; cplx: complex whatever the inputs' type."""
    if itype not in (1, 2, 3):
        raise ValueError(f"itype={itype!r} is not valid; accepted: 1, 2, 3")
    lower = _flag("hegst" if cplx else "sygst", "lower", lower)
    dt, xp, opts = _start(kw, a, b)
    dt = np.complex128 if cplx else dt
    c = _fortran(a, dt, overwrite_a, xp=xp)
    f = _fortran(b, dt, name="b", xp=xp)
    _square(c)
    if f.shape != c.shape:
        raise ValueError(f"b must have the shape of a, {c.shape}, got {f.shape}")
    info = _call(_fn("hegst" if dt == np.complex128 else "sygst", dt), int(itype),
                 b"L" if lower else b"U", c.shape[0], _ptr(c), _ld(c), _ptr(f), _ld(f), opts=opts)
    return c, info


def sygst(a, b, itype=1, lower=0, overwrite_a=False, **kw):
    """The generalized symmetric-definite problem in standard form: ``(c, info)`` as
    scipy.linalg.lapack.dsygst (zhegst for complex input). b is potrf's factor (upper, or with
    lower its lower triangle: b = U^H U or L L^H); c's triangle is inv(U^H) a inv(U) or
    inv(L) a inv(L^H) (itype 1: a x = lambda b x) or U a U^H or L^H a L (itype 2 and 3:
    a b x = lambda x, b a x = lambda x); only a's triangle is read and written."""
    return _gst(a, b, itype, lower, overwrite_a, False, kw)


def hegst(a, b, itype=1, lower=0, overwrite_a=False, **kw):
    """sygst for Hermitian a, as scipy.linalg.lapack.zhegst."""
    return _gst(a, b, itype, lower, overwrite_a, True, kw)


def _tran(t, name, cplx):
    t = (t.decode() if isinstance(t, bytes) else str(t)).upper()
    ok = ("N", "C") if cplx else ("N", "T", "C")
    if t not in ok:
        raise ValueError(f"{name}={t!r} is not valid; accepted: {', '.join(ok)}")
    return t.encode()


def trsyl(a, b, c, trana="N", tranb="N", isgn=1, overwrite_c=False, **kw):
    """The triangular Sylvester equation op(a) x + isgn x op(b) = scale c: ``(x, scale, info)``
    as scipy.linalg.lapack.dtrsyl/ztrsyl. a (m x m) and b (n x n) upper quasi-triangular
    (real Schur form; complex: triangular), trana/tranb "N", "T" or "C" (complex: "N" or "C"),
    isgn 1 or -1; scale <= 1 keeps x from overflowing; info 1 when a and -isgn b have close
    eigenvalues (perturbed values used)."""
    if isgn not in (1, -1):
        raise ValueError(f"isgn={isgn!r} is not valid; accepted: 1, -1")
    dt, xp, opts = _start(kw, a, b, c)
    f, g = _fortran(a, dt, xp=xp), _fortran(b, dt, name="b", xp=xp)
    _square(f)
    _square(g, "b")
    x = _fortran(c, dt, overwrite_c, "c", xp)
    if x.shape != (f.shape[0], g.shape[0]):
        raise ValueError(f"c must have shape {(f.shape[0], g.shape[0])} for a {f.shape} and b {g.shape},"
                         f" got {x.shape}")
    cplx = dt == np.complex128
    scale = ffi.new("double *")
    info = _call(_fn("trsyl", dt), _tran(trana, "trana", cplx), _tran(tranb, "tranb", cplx),
                 int(isgn), x.shape[0], x.shape[1], _ptr(f), _ld(f), _ptr(g), _ld(g), _ptr(x),
                 _ld(x), scale, opts=opts)
    return x, float(scale[0]), info


def _ev_start(a, overwrite_a, kw):
    dt, xp, opts = _start(kw, a)
    f = _fortran(a, dt, overwrite_a, xp=xp)
    _square(f)
    return dt, xp, opts, f


def _eigen(kind, a, compute_v, lower, overwrite_a, kw):
    """syevd/heevd and syev/heev: ``(w, v, info)``, v the eigenvectors (compute_v) or a's
    buffer (its stored triangle destroyed, as LAPACK leaves it)."""
    prefix = "zhe" if _is_complex(a) else "dsy"  # the routine called, for the messages
    compute_v, lower = (_flag(prefix + kind, k, v) for k, v in (("compute_v", compute_v),
                                                                ("lower", lower)))
    dt, xp, opts, f = _ev_start(a, overwrite_a, kw)
    n = f.shape[0]
    w = np.zeros(max(1, n))
    info = _call(getattr(lib, "ozblas_" + prefix + kind), b"V" if compute_v else b"N",
                 b"L" if lower else b"U", n, _ptr(f), _ld(f), ffi.cast("double *", w.ctypes.data),
                 opts=opts)
    if info < 0:
        raise ValueError(f"{prefix}{kind}: argument {-info} is not valid")
    w = w[:n]
    return (w if xp is np else xp.asarray(w)), f, info


def syevd(a, compute_v=1, lower=0, overwrite_a=False, **kw):
    """Eigenvalues (ascending) and, with compute_v, eigenvectors of a symmetric (complex:
    Hermitian) matrix from its upper (lower) triangle by the two-stage reduction: ``(w, v,
    info)`` as scipy.linalg.lapack.dsyevd/zheevd (numpy.linalg.eigh's routine)."""
    return _eigen("evd", a, compute_v, lower, overwrite_a, kw)


def heevd(a, compute_v=1, lower=0, overwrite_a=False, **kw):
    """The Hermitian syevd, as scipy.linalg.lapack.zheevd."""
    return _eigen("evd", _as_complex(a), compute_v, lower, overwrite_a, kw)


def syev(a, compute_v=1, lower=0, overwrite_a=False, **kw):
    """syevd with LAPACK's dsyev's tridiagonal solver (implicit QL/QR, steqr): ``(w, v, info)``
    as scipy.linalg.lapack.dsyev/zheev."""
    return _eigen("ev", a, compute_v, lower, overwrite_a, kw)


def heev(a, compute_v=1, lower=0, overwrite_a=False, **kw):
    """The Hermitian syev, as scipy.linalg.lapack.zheev."""
    return _eigen("ev", _as_complex(a), compute_v, lower, overwrite_a, kw)


def _gv(kind, a, b, itype, jobz, uplo, overwrite_a, overwrite_b, cplx, kw):
    """sygvd/hegvd (kind "gvd") and sygv/hegv ("gv"): ``(w, v, info)``."""
    name = ("zhe" if cplx else "dsy") + kind
    itype = _choice(name, "itype", itype, {1: 1, 2: 2, 3: 3})
    jobz, uplo = _letter(name, "jobz", jobz, "NV"), _letter(name, "uplo", uplo, "UL")
    dt, xp, opts = _start(kw, a, b)
    dt = np.complex128 if cplx else dt
    f = _fortran(a, dt, overwrite_a, xp=xp)
    g = _fortran(b, dt, overwrite_b, "b", xp)
    _square(f)
    if g.shape != f.shape:
        raise ValueError(f"{name}: b must have the shape of a, {f.shape}, got {g.shape}")
    n = f.shape[0]
    w = np.zeros(max(1, n))
    info = _call(getattr(lib, "ozblas_" + name), itype, jobz, uplo, n, _ptr(f), _ld(f), _ptr(g),
                 _ld(g), ffi.cast("double *", w.ctypes.data), opts=opts)
    if info < 0:
        raise ValueError(f"{name}: argument {-info} is not valid")
    w = w[:n]
    return (w if xp is np else xp.asarray(w)), f, info


def sygvd(a, b, itype=1, jobz="V", uplo="L", overwrite_a=False, overwrite_b=False, **kw):
    """The generalized symmetric-definite eigenproblem a x = w b x (itype 1), a b x = w x (2),
    b a x = w x (3), b positive definite (complex: hegvd): ``(w, v, info)`` as
    scipy.linalg.lapack.dsygvd (scipy.linalg.eigh(a, b)'s routine): b's Cholesky factor, the
    reduction to standard form, syevd's two-stage solver, the eigenvectors (b-orthonormal)
    back through the factor; info n + i when b's leading minor of order i is not positive
    definite."""
    return _gv("gvd", a, b, itype, jobz, uplo, overwrite_a, overwrite_b,
               _is_complex(a) or _is_complex(b), kw)


def hegvd(a, b, itype=1, jobz="V", uplo="L", overwrite_a=False, overwrite_b=False, **kw):
    """The Hermitian sygvd, as scipy.linalg.lapack.zhegvd."""
    return _gv("gvd", a, b, itype, jobz, uplo, overwrite_a, overwrite_b, True, kw)


def sygv(a, b, itype=1, jobz="V", uplo="L", overwrite_a=False, overwrite_b=False, **kw):
    """sygvd with syev's tridiagonal solver (steqr), as scipy.linalg.lapack.dsygv (zhegv for
    complex input)."""
    return _gv("gv", a, b, itype, jobz, uplo, overwrite_a, overwrite_b,
               _is_complex(a) or _is_complex(b), kw)


def hegv(a, b, itype=1, jobz="V", uplo="L", overwrite_a=False, overwrite_b=False, **kw):
    """The Hermitian sygv, as scipy.linalg.lapack.zhegv."""
    return _gv("gv", a, b, itype, jobz, uplo, overwrite_a, overwrite_b, True, kw)


def _evr(a, compute_v, range, lower, vl, vu, il, iu, abstol, overwrite_a, kw):
    prefix = "zhe" if _is_complex(a) else "dsy"  # the routine called, for the messages
    compute_v, lower = (_flag(prefix + "evr", k, v) for k, v in (("compute_v", compute_v),
                                                                 ("lower", lower)))
    rng = _letter(prefix + "evr", "range", range.decode() if isinstance(range, bytes) else range,
                  "AVI").decode()
    dt, xp, opts, f = _ev_start(a, overwrite_a, kw)
    n = f.shape[0]
    iu = n if iu is None else int(iu)
    cols = (iu - il + 1 if rng.upper() == "I" else max(1, n)) if compute_v else 0
    z = xp.zeros((n if compute_v else 0, max(cols, 0)), dtype=dt, order="F")
    w = np.zeros(max(1, n))
    sup = np.zeros(2 * max(1, n), dtype=np.int64)
    m = ffi.new("int64_t *")
    info = _call(getattr(lib, "ozblas_" + prefix + "evr"), b"V" if compute_v else b"N",
                 rng.encode(), b"L" if lower else b"U", n, _ptr(f), _ld(f), float(vl), float(vu),
                 int(il), iu, float(abstol), m, ffi.cast("double *", w.ctypes.data),
                 _ptr(z) if z.size else ffi.NULL, max(1, n), ffi.cast("int64_t *", sup.ctypes.data),
                 opts=opts)
    if info < 0:
        raise ValueError(f"{prefix}evr: argument {-info} is not valid")
    all_ = rng.upper() == "A" or (rng.upper() == "I" and iu - il + 1 == n)
    # SciPy's shapes: dsyevr's isuppz only where LAPACK sets it, zheevr's always 2 max(1, n)
    isuppz = sup[:2 * max(1, n) if dt == np.complex128 else 2 * n if compute_v and all_ else 0]
    isuppz = isuppz.astype(np.int32)
    w = w[:n]
    out = (lambda v: v) if xp is np else xp.asarray  # noqa: E731
    return out(w), z, int(m[0]), out(isuppz), info


def syevr(a, compute_v=1, range="A", lower=0, vl=0.0, vu=1.0, il=1, iu=None, abstol=0.0,
          overwrite_a=False, **kw):
    """Eigenvalues (and eigenvectors) of a symmetric (complex: Hermitian) matrix, all (range
    "A"), those in (vl, vu] ("V") or the il-th to iu-th (1-based, "I"), by the two-stage
    reduction with LAPACK's dsyevr's tridiagonal solvers: ``(w, z, m, isuppz, info)`` as
    scipy.linalg.lapack.dsyevr/zheevr (scipy.linalg.eigh's routine): the first m entries of w
    and columns of z are the ones found."""
    return _evr(a, compute_v, range, lower, vl, vu, il, iu, abstol, overwrite_a, kw)


def heevr(a, compute_v=1, range="A", lower=0, vl=0.0, vu=1.0, il=1, iu=None, abstol=0.0,
          overwrite_a=False, **kw):
    """The Hermitian syevr, as scipy.linalg.lapack.zheevr."""
    return _evr(_as_complex(a), compute_v, range, lower, vl, vu, il, iu, abstol, overwrite_a, kw)


def stedc(d, e, z=None, compz="I", overwrite_z=False, **kw):
    """Eigenvalues (ascending) and eigenvectors of the real symmetric tridiagonal matrix with
    diagonal d and off-diagonal e (LAPACK's dstedc): ``(w, z, info)``. compz "N": eigenvalues
    only (z None), "I": the tridiagonal matrix's eigenvectors, "V": z (n x n, orthogonal: the
    reduction's, NumPy or CuPy) times them. By divide and conquer, each merge's eigenvector
    update an ozblas product; deflation and the secular equations by the host LAPACK."""
    compz = _letter("dstedc", "compz", compz, "NIV")
    d = _host_vector(d, np.float64).copy()
    n = d.shape[0]
    e = np.concatenate([_host_vector(e, np.float64), np.zeros(1)])
    if e.shape[0] < max(1, n):
        raise ValueError(f"e must have {max(0, n - 1)} entries for {n} diagonal ones, got {e.shape[0] - 1}")
    if compz == b"V" and z is None:
        raise ValueError('dstedc: compz "V" needs z')
    dt, xp, opts = _start(kw, *(() if z is None else (z,)))
    if compz == b"V":
        f = _fortran(z, np.float64, overwrite_z, "z", xp)
        if f.shape != (n, n):
            raise ValueError(f"z must have shape {(n, n)}, got {f.shape}")
    else:
        f = xp.zeros((n, n) if compz == b"I" else (1, 1), dtype=np.float64, order="F")
    info = _call(lib.ozblas_dstedc, compz, n, ffi.cast("double *", d.ctypes.data),
                 ffi.cast("double *", e.ctypes.data), _ptr(f), _ld(f), opts=opts)
    if info < 0:
        raise ValueError(f"dstedc: argument {-info} is not valid")
    return (d if xp is np else xp.asarray(d)), (None if compz == b"N" else f), info


def _sytrd(a, lower, overwrite_a, kw):
    lower = _flag("sytrd", "lower", lower)
    dt, xp, opts, f = _ev_start(a, overwrite_a, kw)
    n = f.shape[0]
    d, e = np.zeros(max(1, n)), np.zeros(max(1, n))
    tau = np.zeros(max(1, n), dtype=dt)
    name = "zhetrd" if dt == np.complex128 else "dsytrd"
    info = _call(getattr(lib, "ozblas_" + name), b"L" if lower else b"U", n, _ptr(f), _ld(f),
                 ffi.cast("double *", d.ctypes.data), ffi.cast("double *", e.ctypes.data),
                 ffi.cast("double *", tau.ctypes.data), opts=opts)
    if info < 0:
        raise ValueError(f"{name}: argument {-info} is not valid")
    out = (lambda v: v) if xp is np else xp.asarray  # noqa: E731
    return f, out(d[:n]), out(e[:max(0, n - 1)]), out(tau[:max(0, n - 1)]), info


def sytrd(a, lower=0, overwrite_a=False, **kw):
    """Reduction of a symmetric (complex: Hermitian) matrix to tridiagonal form in LAPACK's
    one-stage format: ``(c, d, e, tau, info)`` as scipy.linalg.lapack.dsytrd/zhetrd (panels by
    the host latrd, the trailing updates by syr2k/her2k as products)."""
    return _sytrd(a, lower, overwrite_a, kw)


def hetrd(a, lower=0, overwrite_a=False, **kw):
    """The Hermitian sytrd, as scipy.linalg.lapack.zhetrd."""
    return _sytrd(_as_complex(a), lower, overwrite_a, kw)


def _ormtr(side, trans, a, tau, c, lower, overwrite_c, kw):
    side, trans = _letter("ormtr", "side", side, "LR"), _letter("ormtr", "trans", trans, "NTC")
    lower = _flag("ormtr", "lower", lower)
    dt, xp, opts = _start(kw, a, c)
    dt = np.complex128 if _is_complex(tau) else dt
    f = _fortran(a, dt, xp=xp)
    x = _fortran(c, dt, overwrite_c, "c", xp)
    t = _host_vector(tau, dt)
    m, n = x.shape
    name = "zunmtr" if dt == np.complex128 else "dormtr"
    info = _call(getattr(lib, "ozblas_" + name), side, b"L" if lower else b"U", trans, m, n, _ptr(f), _ld(f), _ptr(t) if t.size else ffi.NULL,
                 _ptr(x), _ld(x), opts=opts)
    if info < 0:
        raise ValueError(f"{name}: argument {-info} is not valid")
    return x, info


def ormtr(side, trans, a, tau, c, lower=0, overwrite_c=False, **kw):
    """op(Q) c (side "L") or c op(Q) ("R"), Q from sytrd's reflectors (a, tau; lower: its
    uplo), trans "N" or "T" ("C" complex): ``(cq, info)`` (LAPACK's dormtr/zunmtr; uplo "L" as
    ormqr's products, "U" one host call)."""
    cplx = any(_is_complex(v) for v in (a, tau, c))
    return _ormtr(side, trans, _as_complex(a) if cplx else a, tau, c, lower, overwrite_c, kw)


def unmtr(side, trans, a, tau, c, lower=0, overwrite_c=False, **kw):
    """The complex ormtr (LAPACK's zunmtr)."""
    return _ormtr(side, trans, _as_complex(a), tau, c, lower, overwrite_c, kw)


def _orgtr(a, tau, lower, overwrite_a, kw):
    lower = _flag("orgtr", "lower", lower)
    dt, xp, opts = _start(kw, a)
    dt = np.complex128 if _is_complex(tau) else dt
    q = _fortran(a, dt, overwrite_a, xp=xp)
    _square(q)
    t = _host_vector(tau, dt)
    name = "zungtr" if dt == np.complex128 else "dorgtr"
    info = _call(getattr(lib, "ozblas_" + name), b"L" if lower else b"U", q.shape[0], _ptr(q),
                 _ld(q), _ptr(t) if t.size else ffi.NULL, opts=opts)
    if info < 0:
        raise ValueError(f"{name}: argument {-info} is not valid")
    return q, info


def orgtr(a, tau, lower=0, overwrite_a=False, **kw):
    """Q from sytrd's reflectors (a, tau; lower: its uplo): ``(q, info)`` (LAPACK's
    dorgtr/zungtr; uplo "L" as orgqr's products, "U" one host call)."""
    return _orgtr(a, tau, lower, overwrite_a, kw)


def ungtr(a, tau, lower=0, overwrite_a=False, **kw):
    """The complex orgtr (LAPACK's zungtr)."""
    return _orgtr(_as_complex(a), tau, lower, overwrite_a, kw)


# --------------------------------------------------------------------------------------------
# `ozblas explain getrf N` / `ozblas explain potrf N` / `ozblas explain sytrf N`
# --------------------------------------------------------------------------------------------
EXPLAINED = ("getrf", "potrf", "sytrf", "syevd", "syevr", "gesdd", "gelsd", "geev", "gees")
MAX_EXPLAINED_STEPS = 65536


def explain(routine: str, n: int, dtype: str = "d", profile=None, nb: int | None = None,
            m: int | None = None, nrhs: int | None = None) -> dict:
    """What the LAPACK layer would do with an n x n factorization (host operands): the
    routing decision the shim takes (method auto's choice for an n x n x n product), the
    block size, and method auto's choice for each trailing-update product of the blocked
    driver (m x m x nb, m = n - j - nb: getrf one GEMM, potrf the SYRK/HERK strips, about
    half as many flops; sytrf the strips of L21 W21^T, its panels nb - 1 columns as
    LAPACK's dlasyf takes them when no 2x2 pivot ends one), with the model's predicted times;
    for the two-stage drivers (syevd, syevr, gesdd with jobz S and gelsd on an m x n matrix,
    m >= n, default n, with nrhs right-hand sides, default n/2) the band width and what the
    host keeps (``remainder``: predicted seconds of the products, panels, chase and solver).
    A plain dict."""
    from . import policy

    if routine not in EXPLAINED:
        raise ValueError(f"routine {routine!r} is not valid; accepted: {', '.join(EXPLAINED)}")
    if dtype not in ("d", "z"):
        raise ValueError(f"dtype {dtype!r} is not valid; accepted: d, z")
    policy.check_dims(n=n)
    p = policy._profile(profile)
    ex = 2 if p.has_device else 1
    nb = config.parse("OZBLAS_LAPACK_NB", nb, "nb") if nb is not None else _block_size(n, executor=ex)
    if m is not None and (routine not in ("gesdd", "gelsd") or m < n):
        raise ValueError(f"m={m} is not valid for {routine}; accepted: gesdd and gelsd "
                         f"with m >= n = {n}")
    if routine in ("syevd", "syevr", "gesdd", "gelsd"):
        return _explain_eigen(routine, n, dtype, p, nb, m, nrhs)
    if routine in ("geev", "gees"):
        return _explain_nonsym(routine, n, dtype, p, nb)
    whole = policy.choose(n, n, n, dtype, "host", p)
    half = 1.0 if routine == "getrf" else 0.5
    step = nb - 1 if routine == "sytrf" and nb > 1 else nb
    if -(-n // step) > MAX_EXPLAINED_STEPS:  # one cost-model call per step: bounded time
        raise ValueError(f"n={n} is not valid with nb={nb}: {-(-n // step)} block steps; "
                         f"accepted: n up to {MAX_EXPLAINED_STEPS * step} (at most "
                         f"{MAX_EXPLAINED_STEPS} steps of nb)")
    updates, emulated, t_blocked, f_updates = [], 0, 0.0, 0.0
    for j in range(0, n, step):
        jb = min(step, n - j)
        m = n - j - jb
        if m <= 0:
            break
        c = policy.choose(m, m, jb, dtype, "host", p)
        updates.append({"m": m, "k": jb, "choice": c["name"], "method": c["method"],
                        "seconds": half * c["seconds"]})
        emulated += c["method"] != "native"
        t_blocked += half * c["seconds"]
        f_updates += half * (8 if dtype == "z" else 2) * m * m * jb
    flops = (4 if dtype == "z" else 1) * (2 / 3 if routine == "getrf" else 1 / 3) * n**3
    rate = p.host_zgemm if dtype == "z" else p.host_dgemm
    # panels, diagonal blocks and the TRSMs beside them at the host BLAS's rate
    t_blocked += max(flops - f_updates, 0.0) / rate
    routed = whole["method"] != "native" and n > nb
    return {"routine": dtype + routine, "n": n, "nb": nb, "profile": p.name,
            "route": "blocked driver" if routed else "host LAPACK",
            "why": (f"method auto's choice for a {n} x {n} x {n} product is {whole['name']}"
                    + ("" if n > nb else f"; n <= nb = {nb}: one block")),
            "updates": updates, "emulated_updates": emulated, "flops": flops,
            "update_share": f_updates / flops, "native_seconds": flops / rate,
            "blocked_seconds": t_blocked}


def band_model(kind: str, n: int, m: int | None = None, ncols: int | None = None, nb: int = 256,
               dtype: str = "d", method: str = "auto", executor: str = "auto", profile=None) -> dict:
    """The band width the two-stage drivers take (lapack_model.c, ozblas_lapack_band_width:
    the library's one rule) for kind "eigen" (syevd, syevr, sygvd) or "svd" (gesdd, gesvd,
    gelsd, gelss; m x n, m >= n), ncols the columns the back-transformations act on (n with
    vectors, the default; gelsd's right-hand sides), with the predicted seconds of its parts:
    products (the cost model on the profile, for the method and executor), the host's panels
    and chase (at the profile's host rate times efficiencies measured here), solver (a model
    of the tridiagonal/bidiagonal solver: 4/3 n^3 at the host DGEMM rate with vectors)."""
    from . import policy

    p = policy._profile(profile)
    mod = ffi.new("ozblas_lapack_band_model *", {
        "kind": {"eigen": lib.OZBLAS_LAPACK_BAND_EIGEN, "svd": lib.OZBLAS_LAPACK_BAND_SVD}[kind],
        "cplx": dtype == "z", "m": n if m is None else m, "n": n, "ncols": n if ncols is None else ncols,
        "nb": nb, "method": _constants.METHODS.index(method),
        "executor": _constants.EXECUTORS.index(executor), "on_device": 0})
    lib.ozblas_lapack_band_width(policy._to_c(p), mod)
    return {"band": int(mod.band), "products": mod.products, "panels": mod.panels,
            "chase": mod.chase, "solver": mod.solver}


def _explain_eigen(routine, n, dtype, p, nb, m=None, nrhs=None):
    """explain() for the two-stage drivers with vectors: syevd/syevr (lapack_eigen.c) with
    the products listed (stage 1's per panel: the Hermitian product A22 V, m x b x m, and the
    her2k, m x m x b at half the flops; the back-transformations: stage 1's blocks as
    ormqr's, 2 (n - b - i) n nb flops each pair; stage 2's groups of vb sweeps, 2 (b + vb) n vb
    each pair, one line for all), gesdd (jobz S) and gelsd (m x n, nrhs right-hand sides) by
    the band model's totals; for each, the band model's split of the time (band_model): what
    the host keeps (panels, chase: the bulge chasing's 6 n^2 b flops, 8 n^2 b for the
    bidiagonal; the solver, a model) against the products."""
    from . import policy

    z = dtype == "z"
    f4 = 4 if z else 1
    svd = routine in ("gesdd", "gelsd")
    m = n if m is None else m
    ncols = (n // 2 if nrhs is None else nrhs) if routine == "gelsd" else n
    model = band_model("svd" if svd else "eigen", n, m, ncols, nb, dtype, profile=p)
    b = model["band"]
    vb = max(1, min(b // 2, 128))  # lapack_band.c group_sweeps
    whole = policy.choose(n, n, n, dtype, "host", p)
    updates, emulated, f_products = [], 0, 0.0

    def add(label, m_, n_, k_, times=1, half=False):
        nonlocal emulated, f_products
        c = policy.choose(m_, n_, k_, dtype, "host", p)
        share = 0.5 if half else 1.0
        updates.append({"m": m_, "k": k_, "shape": label, "choice": c["name"],
                        "method": c["method"], "seconds": share * times * c["seconds"]})
        emulated += times * (c["method"] != "native")
        f_products += share * times * (8 if z else 2) * m_ * n_ * k_

    if not svd:
        for j in range(0, max(n - b, 0), b):
            r = n - j - b
            add(f"stage 1 A22 V {r} x {min(r, b)} x {r}", r, min(r, b), r)
            add(f"stage 1 her2k {r} x {r} x {2 * min(r, b)}", r, r, 2 * min(r, b), half=True)
        for i in range(0, max(n - b, 0), nb):
            add(f"Q1 block {nb} x {n} x {n - b - i} (x2)", nb, n, n - b - i, times=2)
        groups = sum(max(0, -(-(n - s0 - 1) // b)) for s0 in range(0, n - 1, vb))
        if groups:
            add(f"Q2 groups {vb} x {n} x {b + vb - 1} (x{2 * groups})", vb, n, b + vb - 1,
                times=2 * groups)
        host = f4 * (n * n * b + 6.0 * n * n * b)  # QR panels, bulge chasing
        flops = f4 * (4 / 3 + 2) * n**3
    else:
        host = f4 * (3.0 * (m + n) * n * b / 2 + 8.0 * n * n * b)  # QR and LQ panels, chase
        # gebrd's 4 m n^2 - 4/3 n^3; gesdd jobz S: 4 n^3 more for U and V^H (square), gelsd
        # ormbr's Q^T B and P X
        flops = f4 * (4 * m * n * n - 4 / 3 * n**3 + (4 * n**3 if routine == "gesdd"
                                                       else 4 * (m + n) * n * ncols))
    rate = p.host_zgemm if z else p.host_dgemm
    predicted = model["products"] + model["panels"] + model["chase"] + model["solver"]
    routed = whole["method"] != "native" and n > nb
    name = (("zhe" if z else "dsy") + routine[2:]) if not svd else dtype + routine
    share = f_products / (f_products + host) if f_products else None
    return {"routine": name, "n": n, "m": m, "nrhs": ncols if routine == "gelsd" else None,
            "nb": nb, "band": b, "profile": p.name,
            "route": "two-stage driver" if routed else "host LAPACK",
            "why": (f"method auto's choice for a {n} x {n} x {n} product is {whole['name']}"
                    + ("" if n > nb else f"; n <= nb = {nb}: one block")),
            "updates": updates, "emulated_updates": emulated, "flops": flops,
            "update_share": share, "native_seconds": flops / rate,
            "blocked_seconds": predicted, "host_flops": host,
            "remainder": {"products": model["products"], "panels": model["panels"],
                          "chase": model["chase"], "solver": model["solver"],
                          "host": model["panels"] + model["chase"] + model["solver"]}}


def _hseqr_shifts(nh):
    """iparmq's number of shifts (lapack_hseqr.c's hs_nshifts)"""
    import math

    ns = (2 if nh < 30 else 4 if nh < 60 else 10 if nh < 150 else
          max(10, nh // round(math.log2(nh))) if nh < 590 else 64 if nh < 3000 else 128)
    return max(2, ns - ns % 2)


def hseqr_chain(n: int, dtype: str = "d", method: str = "auto", executor: str = "auto",
                profile=None, vectors: bool = True) -> dict:
    """The bulges per chain lapack_hseqr.c takes for a sweep through n rows (lapack_model.c,
    ozblas_lapack_hseqr_chain: the library's one rule), with one sweep's predicted seconds:
    the windows' products (the cost model on the profile, for the method and executor) and
    the host's chase inside them."""
    from . import policy

    p = policy._profile(profile)
    mod = ffi.new("ozblas_lapack_chain_model *", {
        "cplx": dtype == "z", "vectors": bool(vectors), "n": n, "nbm": _hseqr_shifts(n) // 2,
        "method": _constants.METHODS.index(method),
        "executor": _constants.EXECUTORS.index(executor), "on_device": 0})
    lib.ozblas_lapack_hseqr_chain(policy._to_c(p), mod)
    return {"chain": int(mod.chain), "products": mod.products, "chase": mod.chase}


def _explain_hseqr(n, nb, add, dtype, p):
    """The products of lapack_hseqr.c's sweeps and AED windows through add (counted once per
    kind, times their number: add's count) and its host flops (see _explain_nonsym). Its
    chains of g bulges (hseqr_chain, on profile p) chase in windows of 6 g + 8 rows that
    advance 3 g + 4; the last block of nmin = max(12, min(nb, 75)) rows is the host's."""
    ns = _hseqr_shifts(n)
    g = hseqr_chain(n, dtype, profile=p)["chain"]
    nw, naed = min(6 * g + 8, n), min(ns if n <= 500 else 3 * ns // 2, n)
    sweeps, windows = max(1, n // ns), (ns // 2 // g) * max(1, -(-n // (3 * g + 4)))
    add(f"hseqr windows: H right/above {nw} x {n} x {nw} ({sweeps} sweeps of {windows})",
        nw, n, nw, sweeps * windows)
    add(f"hseqr windows: Z {n} x {nw} x {nw}", n, nw, nw, sweeps * windows)
    add(f"hseqr AED: H and Z {n} x {naed} x {naed} ({sweeps} windows)", 2 * n, naed, naed, sweeps)
    return 12 * nw * n**2 + sweeps * 20 * naed**3 + 20 * min(max(12, min(nb, 75)), n) ** 3


# gehrd's panel width (lapack_hess.c's HR_PANEL): at most nb
_HESS_PANEL = 64


def _explain_nonsym(routine, n, dtype, p, nb):
    """explain() for geev (right eigenvectors) and gees (Schur vectors) (lapack_geev.c): the
    products of gehrd's panels (Y's rows above the panel, the update from the right, larfb's
    pair from the left), orgqr's blocks forming Q, geev's back-transformation Z X_T; the
    host's: hseqr by Golub and Van Loan's model (25 n^3 with Z, less the reduction's 10/3 n^3
    and orghr's 4/3 n^3), geev's trevc3 (n^3 / 3), lahr2's panels (2 r^2 ib each, r the
    trailing order). hseqr is lapack_hseqr.c's multishift QR (d and z), modeled with n / ns sweeps
    (ns shifts, iparmq's rule) of ns / 2g chains of g bulges in windows of w = 6 g + 8 rows
    that advance 3 g + 4 rows, each window's U applied to about 2 n columns and rows of H and
    Z, one AED window of 1.5 ns (ns below 590 rows) per sweep: its products, and on the host
    the windows' chase (12 w n^2), the AED windows' Schur forms (20 (1.5 ns)^3 each) and the
    last block's (20 nmin^3). The number of sweeps is the model's guess (random matrices take about that)."""
    from . import policy

    z = dtype == "z"
    f4 = 4 if z else 1
    whole = policy.choose(n, n, n, dtype, "host", p)
    updates, emulated, t_blocked, f_products = [], 0, 0.0, 0.0
    host = f4 * (25 - 10 / 3 - 4 / 3 + (1 / 3 if routine == "geev" else 0)) * n**3

    def add(label, m_, n_, k_, count=1):
        nonlocal emulated, t_blocked, f_products
        if min(m_, n_, k_) <= 0:
            return
        c = policy.choose(m_, n_, k_, dtype, "host", p)
        updates.append({"m": m_, "k": k_, "shape": label, "choice": c["name"],
                        "method": c["method"], "seconds": count * c["seconds"]})
        emulated += c["method"] != "native"
        t_blocked += count * c["seconds"]
        f_products += count * (8 if z else 2) * m_ * n_ * k_

    if n > nb:
        pw = min(nb, _HESS_PANEL)
        for q in range(0, n - 1, pw):
            ib, r = min(pw, n - 1 - q), n - q - 1
            host += f4 * 2 * r * r * ib
            add(f"gehrd panel {q}: Y above {q} x {ib} x {r}", q, ib, r)
            add(f"gehrd panel {q}: right {n} x {n - q - ib} x {ib}", n, n - q - ib, ib)
            add(f"gehrd panel {q}: left {ib} x {n - q - ib} x {r}", ib, n - q - ib, r)
            add(f"gehrd panel {q}: left {r} x {n - q - ib} x {ib}", r, n - q - ib, ib)
        for j in range(0, n - 1, nb):
            ib, r = min(nb, n - 1 - j), n - 1 - j
            add(f"orghr block {j}: {ib} x {r - ib} x {r}", ib, r - ib, r)
            add(f"orghr block {j}: {r} x {r - ib} x {ib}", r, r - ib, ib)
        if routine == "geev":
            add(f"back-transformation {n} x {n} x {n}", n, n, n)
        host -= f4 * (25 - 10 / 3 - 4 / 3) * n**3
        host += f4 * _explain_hseqr(n, nb, add, dtype, p)
    rate = p.host_zgemm if z else p.host_dgemm
    flops = f4 * (25 + (4 / 3 if routine == "geev" else 0)) * n**3
    t_blocked += host / rate
    routed = whole["method"] != "native" and n > nb
    return {"routine": dtype + routine, "n": n, "nb": nb, "band": "-", "profile": p.name,
            "route": "blocked driver, multishift hseqr" if routed else "host LAPACK",
            "why": (f"method auto's choice for a {n} x {n} x {n} product is {whole['name']}"
                    + ("" if n > nb else f"; n <= nb = {nb}: one block")),
            "updates": updates, "emulated_updates": emulated, "flops": flops,
            "update_share": f_products / (f_products + host), "native_seconds": flops / rate,
            "blocked_seconds": t_blocked, "host_flops": host, "product_flops": f_products}


def format_explain(d: dict) -> str:
    gf = f"{d['flops'] / 1e9:.3g} GFLOP"
    if "band" in d:  # the two-stage drivers (band a number) and geev/gees (band "-")
        nonsym = d["band"] == "-"
        what = "lahr2's panels, hseqr, trevc3" if nonsym else "panels and bulge chasing"
        host = f"host {d['host_flops'] / 1e9:.3g} GFLOP"
        if d["update_share"] is not None:
            work = (f"products: {len(d['updates'])} kinds, {d['emulated_updates']} of them emulated "
                    f"by method auto; {100 * d['update_share']:.0f}% of the driver's flops "
                    f"({'' if nonsym else 'band %s, ' % d['band']}{host}: {what}; LAPACK's count {gf})")
        else:
            work = f"band {d['band']} (the time model's choice); {host} in {what}; LAPACK's count {gf}"
    else:
        work = (f"trailing updates: {len(d['updates'])}, of which method auto emulates "
                f"{d['emulated_updates']}; they are {100 * d['update_share']:.0f}% of the {gf}")
    lines = [f"{d['routine']} n={d['n']}, host operands; profile {d['profile']}; block size nb={d['nb']}",
             f"route: {d['route']} ({d['why']})",
             work,
             f"predicted: host LAPACK {d['native_seconds'] * 1e3:.3g} ms (at the host DGEMM rate), "
             f"blocked driver {d['blocked_seconds'] * 1e3:.3g} ms"]
    if "remainder" in d:
        r = d["remainder"]
        lines.append(f"host remainder {r['host'] * 1e3:.3g} ms beside products {r['products'] * 1e3:.3g} ms: "
                     f"stage-1 panels {r['panels'] * 1e3:.3g} ms and bulge chase {r['chase'] * 1e3:.3g} ms "
                     f"(model: flops at measured shares of the host DGEMM rate), "
                     f"{'bidiagonal' if d['routine'][1:] in ('gesdd', 'gelsd') else 'tridiagonal'} "
                     f"solver {r['solver'] * 1e3:.3g} ms (model: 4/3 n^3 at the host DGEMM rate; "
                     f"deflation makes it less); measured per call: "
                     f"ozblas.lapack.last_report()['host_parts']")
    for u in d["updates"][:3] + (["..."] if len(d["updates"]) > 4 else []) + d["updates"][-1:][
            : 1 if len(d["updates"]) > 3 else 0]:
        lines.append("  ..." if u == "..." else
                     f"  {u.get('shape') or 'update %d x %d x %d' % (u['m'], u['m'], u['k'])}: "
                     f"{u['choice']} ({u['seconds'] * 1e3:.3g} ms)")
    return "\n".join(lines)


# ---- when memory runs out: the host routine (docs/lapack.md, "When memory runs out") ----------

_OZ_KEYWORDS = ("method", "moduli", "scaling", "executor", "threads", "slices", "variant", "nb")


def _host_call(name, fn, args, kw):
    """SciPy's routine for a call that the C layer refused with OZBLAS_ERR_ALLOCATION (its
    operands left as they were), with the same arguments; None where there is none: SciPy not
    installed, device arrays, or a signature SciPy's routine does not take."""
    import inspect

    try:
        from scipy.linalg import blas, lapack as host
    except ImportError:
        return None
    bound = inspect.signature(fn).bind(*args, **kw)
    given = {k: v for k, v in bound.arguments.items() if k != "kw"}
    given.update({k: v for k, v in bound.arguments.get("kw", {}).items() if k not in _OZ_KEYWORDS})
    arrays = [v for v in given.values() if hasattr(v, "dtype") and hasattr(v, "shape")]
    if any(_on_device(a) for a in arrays):
        return None
    cplx = name.startswith(("he", "un")) or any(np.iscomplexobj(a) for a in arrays)
    p = "z" if cplx else "d"
    # ozblas's real names also take complex input (syevd: zheevd, orgqr: zungqr)
    names = [p + name] + ([p + "he" + name[2:], p + "un" + name[2:]] if cplx else [])
    f = next((getattr(m, s) for s in names for m in (host, blas) if hasattr(m, s)), None)
    if f is None:
        return None
    given = {k: v for k, v in given.items() if v is not None}
    if name == "gelsd":  # SciPy's takes its workspace sizes as required arguments
        a, b = np.asarray(given["a"]), np.asarray(given["b"])
        sizes = getattr(host, p + "gelsd_lwork")(a.shape[0], a.shape[1],
                                                 1 if b.ndim == 1 else b.shape[1],
                                                 given.get("cond", -1.0))
        given["lwork"] = int(np.real(sizes[0]))
        given.update({"size_rwork": int(sizes[1]), "size_iwork": int(sizes[2])} if cplx
                     else {"size_iwork": int(sizes[1])})
        given.pop("lwork_query", None)
    if name == "gees":  # SciPy's names its callback by the type: dselect, zselect_extra_args
        given = {(p + k if k.startswith("select") else k): v for k, v in given.items()}
    try:
        return f(**given)
    except TypeError:  # an argument SciPy's routine does not have
        return None


def _host_on_allocation(fn):
    import functools

    @functools.wraps(fn)
    def routine(*args, **kw):
        try:
            return fn(*args, **kw)
        except OzblasError as e:
            if e.status != "OZBLAS_ERR_ALLOCATION":
                raise
            out = _host_call(fn.__name__, fn, args, kw)
            if out is None:
                raise
            return out

    return routine


for _name in __all__:
    if _name != "last_report":
        globals()[_name] = _host_on_allocation(globals()[_name])
del _name
