"""The Python API: matmul, dgemm, zgemm (SciPy's signature), info."""

from __future__ import annotations

import numpy as np

from . import _constants, config
from ._native import OzblasError, check, ffi, lib, library_path, load

__all__ = ["matmul", "dgemm", "zgemm", "info", "OzblasError"]

_TRANS = {0: "N", 1: "T", 2: "C"}
_ctx = None


def _context():
    global _ctx
    if _ctx is None:
        p = ffi.new("ozblas_context **")
        check(lib.ozblas_context_create(p))
        _ctx = ffi.gc(p[0], lib.ozblas_context_destroy)
    return _ctx


def _options(method, moduli, scaling, executor, threads, slices=None, variant=None,
             accuracy=None, engine=None):
    load()
    env = config.from_env().as_dict()
    given = dict(method=method, moduli=moduli, scaling=scaling, executor=executor,
                 threads=threads, slices=slices, variant=variant, accuracy=accuracy,
                 engine=engine)
    for key, value in given.items():
        if value is not None:
            parsed = config.parse_keyword(key, value)
            if key == "executor":
                env["executor"], env["device"], env["devices"] = parsed
            else:
                env[key] = parsed
    config.check_conflict(env, [k for k, v in given.items() if v is not None])
    o = config.options_struct(env)
    if o.devices:
        _check_devices(o)
    return o


def _check_devices(o):
    """A device list naming a device this machine lacks (ozblas_devices_check, in C)."""
    err = ffi.new("char[512]")
    if lib.ozblas_devices_check(o, err, 512) != 0:
        raise config.ConfigError(f"executor {config.device_text('cuda', o.device, o.devices)}: "
                                 + ffi.string(err).decode())


def _engine_note(r, device) -> str | None:
    """Why the engine of a call that fell back with fallback "engine" is not available."""
    if r.fallback != lib.OZBLAS_FALLBACK_ENGINE:
        return None
    why = ffi.new("char[256]")
    lib.ozblas_engine_available(r.executor, r.engine, device, why, 256)
    return ffi.string(why).decode()


def _report_dict(r, device=0) -> dict:
    method = _constants.METHODS[r.method]
    emulated = method in ("ozaki1", "ozaki2")
    executor = _constants.EXECUTORS[r.executor]
    return {
        "method": method,
        "moduli": r.moduli if method == "ozaki2" else None,
        "scaling": _constants.SCALINGS[r.scaling] if method == "ozaki2" else None,
        "slices": r.slices if method == "ozaki1" else None,
        "variant": _constants.VARIANTS[r.ozaki1_variant] if method == "ozaki1" else None,
        "executor": executor,
        # the real routine that computed a native result, named as the trace names it
        "blas": None if emulated else ("cublas" if executor == "cuda" else "host"),
        "fallback": _constants.fallback_name(r.fallback),
        "engine": _constants.ENGINES[r.engine] if emulated else None,
        "engine_products": r.engine_products if emulated else None,
        "engine_note": _engine_note(r, device),
        "int_gemms": r.int_gemms,
        # automatic precision split the call into this many part products (0: not split)
        "split_parts": r.split_parts,
        # Ozaki II on complex data: integer products per modulus (2: the complex set of
        # moduli 1 (mod 4); 3: Karatsuba)
        "complex_products": r.complex_products if method == "ozaki2" and r.complex_products else None,
        "fp64_passes": r.fp64_passes,
        "bound": r.bound if r.bound >= 0 else None,
        "bits_a": (r.min_bits_a, r.max_bits_a) if emulated else None,
        "bits_b": (r.min_bits_b, r.max_bits_b) if emulated else None,
        "seconds": r.seconds,
        "phase_seconds": list(r.phase_seconds) if emulated else None,
        "accuracy": _constants.ACCURACIES[r.accuracy],
        "direct_entries": r.direct_entries,
        # the CUDA devices that computed part of C (several with a device list)
        "devices": [d for d in range(64) if r.devices_used >> d & 1],
    }


def _on_device(x) -> bool:
    return hasattr(x, "__cuda_array_interface__")


def _xp(*arrays):
    """numpy, or cupy when an operand lives on a CUDA device (anything with
    __cuda_array_interface__ is wrapped by cupy without a copy)."""
    if not any(_on_device(x) for x in arrays if x is not None):
        return np
    try:
        import cupy
    except ImportError:
        raise TypeError("device arrays (__cuda_array_interface__) need CuPy installed") from None
    return cupy


def _device_options(opts, xp, arrays):
    """Device operands run on the CUDA executor, on their device and the current stream."""
    if xp is np:
        return
    devices = {x.device.id for x in arrays if x is not None}
    if len(devices) != 1:
        raise ValueError(f"operands live on different devices: {sorted(devices)}")
    if opts.executor == lib.OZBLAS_EXECUTOR_CPU:
        raise ValueError("executor='cpu' cannot read device arrays; accepted: auto, cuda, cuda:N")
    opts.executor = lib.OZBLAS_EXECUTOR_CUDA
    opts.device = devices.pop()
    opts.devices = 0  # not spread: device arrays run where they live (cuda:all included)
    opts.stream = ffi.cast("void *", xp.cuda.get_current_stream().ptr)


def _blas_view(x, trans: str):
    """(array to pass, trans flag, leading dimension) for a 2-D operand used as op(x).

    A C-ordered matrix is the transpose of a column-major one, so it is passed with the
    transpose flag flipped instead of being copied. Conjugation needs a column-major copy.
    """
    item = x.itemsize
    if x.flags.f_contiguous or x.shape[0] <= 1 and x.strides[1] % item == 0 and x.strides[1] > 0:
        ld = x.strides[1] // item if x.shape[1] > 1 else max(1, x.shape[0])
        return x, trans, max(ld, x.shape[0], 1)
    if x.flags.c_contiguous and trans != "C":
        ld = x.strides[0] // item if x.shape[0] > 1 else max(1, x.shape[1])
        return x, ("N" if trans == "T" else "T"), max(ld, x.shape[1], 1)
    y = _xp(x).asfortranarray(x)
    return y, trans, max(1, y.shape[0])


def _ptr(x):
    return ffi.cast("double *", x.data.ptr if _on_device(x) else x.ctypes.data)


def _gemm(alpha, a, b, beta, c, ta, tb, opts, cplx):
    """c (Fortran-ordered, writable) := alpha op(a) op(b) + beta c; returns the report."""
    m = a.shape[1] if ta != "N" else a.shape[0]
    k = a.shape[0] if ta != "N" else a.shape[1]
    n = b.shape[0] if tb != "N" else b.shape[1]
    A, ta2, lda = _blas_view(a, ta)
    B, tb2, ldb = _blas_view(b, tb)
    rep = ffi.new("ozblas_report *")
    ldc = max(1, c.shape[0])
    if cplx:
        al = ffi.new("double[2]", [alpha.real, alpha.imag])
        be = ffi.new("double[2]", [beta.real, beta.imag])
        st = lib.ozblas_zgemm(_context(), ta2.encode(), tb2.encode(), m, n, k, al, _ptr(A), lda,
                              _ptr(B), ldb, be, _ptr(c), ldc, opts, rep)
    else:
        st = lib.ozblas_dgemm(_context(), ta2.encode(), tb2.encode(), m, n, k, float(alpha),
                              _ptr(A), lda, _ptr(B), ldb, float(beta), _ptr(c), ldc, opts, rep)
    check(st)
    return _report_dict(rep, opts.device)


_ACCEPTED = "float64 or complex128 (either byte order)"


def _operand(x, name, accepted=_ACCEPTED):
    """The one input check of every array entry point (matmul, matmul_dd, dgemm/zgemm): a
    masked array is refused (its mask would be dropped), the array comes back (a host one,
    or CuPy's view of a device one) in native byte order. accepted: the text of the dtypes
    taken (float64 and complex128), or None for SciPy's rule (any number type, cast by the
    caller as f2py casts)."""
    if isinstance(x, np.ma.MaskedArray):
        raise TypeError(f"{name} is a masked array; ozblas computes plain products (pass "
                        f"{name}.filled(...) or use numpy.ma.dot)")
    x = _xp(x).asarray(x)
    if accepted is not None and (x.dtype.kind not in "fc" or
                                 x.dtype.itemsize != (8 if x.dtype.kind == "f" else 16)):
        raise TypeError(f"{name} has dtype {x.dtype}; accepted: {accepted}")
    return x if x.dtype.isnative else x.astype(x.dtype.newbyteorder("="))


def matmul(a, b, *, method=None, moduli=None, scaling=None, slices=None, variant=None,
           executor=None, threads=None, accuracy=None, engine=None, return_info=False):
    """a @ b for float64/complex128 matrices (2-D, or stacked 3-D with equal or one batch,
    broadcast as NumPy does, a batch of 0 included).

    Keyword options override the OZBLAS_* environment: method (auto, native, ozaki1,
    ozaki2), moduli (2..49) and scaling (accurate, fast) for Ozaki II, slices (2..40) and
    variant (bitmask, rn, ef, hybrid) for Ozaki I, executor (auto, cpu, cuda, cuda:N), threads,
    accuracy (dgemm: DGEMM-level; correct: every entry the exact product rounded once, the same
    bits on every executor: on the CPU for host arrays unless executor is cuda, on the device
    for device arrays; not with method native or ozaki1 or a moduli or slices count).
    engine (int8, fp4: the unit of the integer products).
    With return_info=True returns (c, info) where info says what the call did.
    """
    xp = _xp(a, b)
    a = _operand(a, "a")
    b = _operand(b, "b")
    if xp is not np and not (_on_device(a) and _on_device(b)):
        raise TypeError("a and b must both be host arrays or both device arrays")
    if a.ndim not in (2, 3) or b.ndim not in (2, 3):
        raise ValueError(f"a and b must be 2-D or 3-D; got shapes {a.shape} and {b.shape}")
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"inner dimensions differ: a is {a.shape}, b is {b.shape}")
    opts = _options(method, moduli, scaling, executor, threads, slices, variant, accuracy, engine)
    _device_options(opts, xp, (a, b))
    cplx = a.dtype == np.complex128 or b.dtype == np.complex128
    dt = np.complex128 if cplx else np.float64
    a = a.astype(dt, copy=False)
    b = b.astype(dt, copy=False)
    if a.ndim == 2 and b.ndim == 2:
        c = xp.empty((a.shape[0], b.shape[1]), dtype=dt, order="F")
        rep = _gemm(1.0, a, b, 0.0, c, "N", "N", opts, cplx)
        return (c, rep) if return_info else c
    ba = a.shape[0] if a.ndim == 3 else 1
    bb = b.shape[0] if b.ndim == 3 else 1
    if ba != bb and 1 not in (ba, bb):
        raise ValueError(f"batch sizes differ: a is {a.shape}, b is {b.shape}")
    nb = bb if ba == 1 else ba  # NumPy's broadcasting: a batch of 1 meets any, 0 included
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    # each C_i column-major (the 2-D product's orientation, so the same bits)
    out = xp.empty((nb, n, m), dtype=dt).transpose(0, 2, 1)
    A, ta, lda, sa = _batch_view(a, nb)
    B, tb, ldb, sb = _batch_view(b, nb)
    rep = ffi.new("ozblas_report *")
    args = (_context(), ta.encode(), tb.encode(), m, n, k)
    tail = (out if nb else xp.empty((1, 1), dtype=dt), max(1, m), m * n, nb, opts, rep)
    if cplx:
        al = ffi.new("double[2]", [1.0, 0.0])
        be = ffi.new("double[2]", [0.0, 0.0])
        st = lib.ozblas_zgemm_batched(*args, al, _ptr(A), lda, sa, _ptr(B), ldb, sb, be,
                                      _ptr(tail[0]), *tail[1:])
    else:
        st = lib.ozblas_dgemm_batched(*args, 1.0, _ptr(A), lda, sa, _ptr(B), ldb, sb, 0.0,
                                      _ptr(tail[0]), *tail[1:])
    check(st)
    if not return_info:
        return out
    info = _report_dict(rep, opts.device)
    info["batch"] = nb
    return out, info


def _batch_view(x, nb):
    """(array, trans, ld, stride) for x (2-D, or 3-D with a batch of nb or 1) as nb matrices
    of one layout, stride in elements between them (0: the same matrix for all). Stacks
    whose matrices are not each column- or row-contiguous with one stride are copied."""
    if x.ndim == 2 or (x.shape[0] == 1 and nb != 1):
        arr, t, ld = _blas_view(x if x.ndim == 2 else x[0], "N")
        return arr, t, ld, 0
    item = x.itemsize
    r, c = x.shape[1], x.shape[2]
    s0, s1, s2 = x.strides
    if s0 % item == 0:
        if (s1 == item or r <= 1) and s2 % item == 0 and s2 >= item * max(r, 1):
            return x, "N", max(s2 // item, r, 1), s0 // item
        if (s2 == item or c <= 1) and s1 % item == 0 and s1 >= item * max(c, 1):
            return x, "T", max(s1 // item, c, 1), s0 // item
    y = _xp(x).ascontiguousarray(x)
    return y, "T", max(c, 1), r * c


def _f2py_scalar(x, cplx, name):
    """A scalar argument as SciPy's f2py wrappers read it: the first element of an array or
    sequence, the real part of a complex number for dgemm, a number from a string."""
    if isinstance(x, (np.ndarray, list, tuple)) or _on_device(x):
        flat = np.asarray(x.get() if _on_device(x) else x).ravel()
        if flat.size == 0:
            raise ValueError(f"{name} is empty; accepted: a number")
        x = flat[0]
    try:
        v = complex(x) if cplx or isinstance(x, (complex, np.complexfloating)) else float(x)
    except (TypeError, ValueError):
        raise TypeError(f"{name}={x!r} cannot be converted to a number") from None
    return v if cplx else v.real


def _f2py_matrix(x, name, fname):
    """A rank-2 argument as f2py takes it: size-1 dimensions dropped from a 3-D (or higher)
    array, a 1-D array as one column, a 0-D one as 1 x 1."""
    if x.ndim == 2:
        return x
    dims = [d for d in x.shape if d != 1]
    if len(dims) > 2 or x.size == 0:
        raise ValueError(f"{fname}: {name} must be 2-D (or have size-1 dimensions beyond two); "
                         f"got shape {x.shape}")
    return x.reshape(tuple(dims) + (1,) * (2 - len(dims)))


def _trans_flag(t, fname, which):
    try:
        v = int(t)
    except (TypeError, ValueError):
        raise ValueError(f"{fname}: {which}={t!r}; accepted: 0, 1, 2") from None
    if v not in _TRANS:
        raise ValueError(f"{fname}: {which}={t!r}; accepted: 0, 1, 2")
    return _TRANS[v]


def _gemm_scipy(cplx, alpha, a, b, beta, c, trans_a, trans_b, overwrite_c, options, return_info):
    """SciPy's f2py semantics: operands cast to the routine's type (complex to real with
    NumPy's ComplexWarning, as SciPy does), shapes as f2py reads them."""
    dt = np.complex128 if cplx else np.float64
    name = "zgemm" if cplx else "dgemm"
    ta, tb = _trans_flag(trans_a, name, "trans_a"), _trans_flag(trans_b, name, "trans_b")
    if not cplx:
        ta, tb = ta.replace("C", "T"), tb.replace("C", "T")
    xp = _xp(a, b, c)
    arrs = []
    for nm, x in (("a", a), ("b", b)):
        x = _f2py_matrix(_operand(x, nm, None), nm, name)
        arrs.append(x.astype(dt, copy=False))
    a, b = arrs
    m, k = (a.shape[1], a.shape[0]) if ta != "N" else a.shape
    k2, n = (b.shape[1], b.shape[0]) if tb != "N" else b.shape
    if k != k2:
        raise ValueError(f"{name}: op(a) is {m}x{k} but op(b) is {k2}x{n}")
    alpha = _f2py_scalar(alpha, cplx, "alpha")
    beta = _f2py_scalar(beta, cplx, "beta")
    opts = _options(**options)
    _device_options(opts, xp, (a, b))
    if c is None:
        out = xp.zeros((m, n), dtype=dt, order="F")
    else:
        if isinstance(c, np.ma.MaskedArray):
            _operand(c, "c", None)  # refused: its mask would be dropped
        c0 = xp.asarray(c)
        c = _f2py_matrix(c0, "c", name)
        if c.shape != (m, n):
            raise ValueError(f"{name}: c has shape {c0.shape}; expected {(m, n)}")
        writeable = getattr(c.flags, "writeable", True)
        in_place = (overwrite_c and c is c0 and c.dtype == dt and c.flags.f_contiguous
                    and writeable)
        out = c if in_place else xp.array(c, dtype=dt, order="F")
    rep = _gemm(alpha, a, b, beta, out, ta, tb, opts, cplx)
    if c is not None and c0.shape != out.shape:  # f2py returns c in the shape it was given
        out = out.reshape(c0.shape)
    return (out, rep) if return_info else out


def dgemm(alpha, a, b, beta=0.0, c=None, trans_a=0, trans_b=0, overwrite_c=0, *, method=None,
          moduli=None, scaling=None, slices=None, variant=None, executor=None, threads=None,
          accuracy=None, engine=None, return_info=False):
    """SciPy's dgemm: alpha op(a) op(b) + beta c, with trans 0 = N, 1 = T, 2 = C (= T here)."""
    opts = dict(method=method, moduli=moduli, scaling=scaling, executor=executor, threads=threads,
                slices=slices, variant=variant, accuracy=accuracy,
                engine=engine)
    return _gemm_scipy(False, alpha, a, b, beta, c, trans_a, trans_b, overwrite_c, opts, return_info)


def zgemm(alpha, a, b, beta=0.0, c=None, trans_a=0, trans_b=0, overwrite_c=0, *, method=None,
          moduli=None, scaling=None, slices=None, variant=None, executor=None, threads=None,
          accuracy=None, engine=None, return_info=False):
    """SciPy's zgemm: alpha op(a) op(b) + beta c, with trans 0 = N, 1 = T, 2 = conjugate T."""
    opts = dict(method=method, moduli=moduli, scaling=scaling, executor=executor, threads=threads,
                slices=slices, variant=variant, accuracy=accuracy,
                engine=engine)
    return _gemm_scipy(True, alpha, a, b, beta, c, trans_a, trans_b, overwrite_c, opts, return_info)


def info() -> dict:
    """Plain dict: version, library path, what was built, the driver, executors and why one is
    missing, host BLAS, config."""
    load()
    executors = {}
    for code, name in enumerate(_constants.EXECUTORS):
        if name == "auto":
            continue
        why = ffi.new("char[256]")
        ok = bool(lib.ozblas_executor_available(code, why, 256))
        executors[name] = {"available": ok, "reason": None if ok else ffi.string(why).decode()}
    try:
        cfg = config.from_env().as_dict()
        for var in config.variables().values():  # counts left to automatic precision say so
            if var.kind == "int" and var.tokens and cfg[var.keyword] == 0:
                cfg[var.keyword] = var.tokens[0]
        devices = cfg["devices"]  # a device list as its devices, cuda:all as "all"
        cfg["devices"] = "all" if devices == config.ALL_DEVICES else [
            d for d in range(64) if devices >> d & 1]
        native = cfg["routines"]  # OZBLAS_ROUTINES: both sides of it, by name
        cfg["routines"] = {"routed": [r for r in config.routine_names() if r not in native],
                           "native": list(native)}
        cfg_error = None
    except config.ConfigError as e:
        cfg, cfg_error = None, str(e)
    from . import install_info

    return {
        "version": ffi.string(lib.ozblas_version()).decode(),
        "library": library_path(),
        "build": install_info.built(),    # what was compiled, whatever this machine has
        "driver": install_info.driver(),  # the NVIDIA driver and devices here, now
        "host_blas": ffi.string(lib.ozblas_host_blas_path()).decode() or None,
        "cuda": ffi.string(lib.ozblas_cuda_describe()).decode(),
        "executors": executors,
        "config": cfg,
        "config_error": cfg_error,
        "moduli": [lib.ozblas_ozaki2_modulus(i) for i in range(lib.ozblas_ozaki2_max_moduli())],
        "complex": _complex_info(),
    }


def _complex_info() -> dict:
    """How Ozaki II computes complex products (numerics/ozaki2.h OZ2_MAX_MODULI_CX)."""
    moduli, t = [], 0
    while lib.ozblas_ozaki2_complex_modulus(t):
        moduli.append(lib.ozblas_ozaki2_complex_modulus(t))
        t += 1
    counts = {n: lib.ozblas_ozaki2_complex_count(lib.OZBLAS_ENGINE_INT8, n)
              for n in range(2, lib.ozblas_ozaki2_max_moduli() + 1)}
    return {
        "algorithm": "two integer products per modulus on moduli 1 (mod 4) (INT8), Karatsuba's "
                     "three beyond their bits and on FP4",
        "moduli": moduli,
        # moduli count n (real-set bits) -> moduli of the complex set taken (absent: Karatsuba)
        "counts": {n: c for n, c in counts.items() if c},
    }
