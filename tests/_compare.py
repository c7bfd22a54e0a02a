"""Comparisons shared by the tests: the CUDA executor against the CPU executor, and errors
against the unrounded product."""

import numpy as np

import ozblas
from ozblas.testing import make_matrix


def cuda_state():
    """(available, reason) of the CUDA executor, as ozblas.info() reports it."""
    try:
        ex = ozblas.info()["executors"]["cuda"]
        return bool(ex["available"]), ex.get("reason")
    except Exception as e:  # pragma: no cover
        return False, f"ozblas.info() failed: {e}"


def textbook_matmul(a, b):
    """a @ b by the textbook DGEMM: each entry's products a_il b_lj added in the order of l,
    every product and every sum rounded once (no FMA; complex products as re = ar br - ai bi,
    im = ar bi + ai br). NumPy's elementwise float64 ufuncs compute it, so it has the same
    bits on every machine, unlike `a @ b`, whose host BLAS kernel (SkylakeX, Haswell, Zen, ...
    as OpenBLAS picks it for the CPU) fixes its own order and use of FMA: the tests' native
    yardstick, so that no verdict depends on the kernel loaded (issue 24)."""
    a, b = np.asarray(a), np.asarray(b)
    cplx = np.iscomplexobj(a) or np.iscomplexobj(b)
    ar, br = np.ascontiguousarray(a.real, np.float64), np.ascontiguousarray(b.real, np.float64)
    re = np.zeros((a.shape[0], b.shape[1]))
    if not cplx:
        for l in range(a.shape[1]):
            re = re + ar[:, l, None] * br[None, l, :]
        return re
    ai, bi = np.ascontiguousarray(a.imag, np.float64), np.ascontiguousarray(b.imag, np.float64)
    im = np.zeros_like(re)
    for l in range(a.shape[1]):
        x, y, u, v = ar[:, l, None], ai[:, l, None], br[None, l, :], bi[None, l, :]
        re = re + (x * u - y * v)
        im = im + (x * v + y * u)
    out = np.empty(re.shape, np.complex128)
    out.real, out.imag = re, im
    return out


def native_error(a, b, exact=None):
    """err_ab of the textbook DGEMM (textbook_matmul) against the exact product: what "no
    less accurate than native" is checked against."""
    from ozblas.testing import err_ab, exact_matmul

    return err_ab(textbook_matmul(a, b), exact_matmul(a, b) if exact is None else exact, a, b)


def dd_error(c, a, b):
    """max |c - AB| / (|A||B|) against matmul_dd's hi + lo (|hi + lo - AB| <= 2^-106 |AB|),
    so the unrounded product, not the oracle's rounding of it."""
    hi, lo = ozblas.matmul_dd(a, b)
    den = np.abs(a) @ np.abs(b)
    d = np.abs((c - hi) - lo)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(den > 0, d / np.where(den > 0, den, 1.0), np.where(d == 0, 0.0, np.inf))
    return float(r.max()) * (1 + 2.0**-40) + 2.0**-100


def _bits(x):
    return np.ascontiguousarray(x).view(np.uint64)


def assert_same_bits(got, want, what=""):
    assert got.shape == want.shape and got.dtype == want.dtype, what
    g, w = _bits(got), _bits(want)
    if not np.array_equal(g, w):
        bad = np.argwhere(g != w)
        i = tuple(bad[0])
        raise AssertionError(
            f"{what}: {len(bad)} of {g.size} words differ; first at {i}: "
            f"cuda {np.ascontiguousarray(got).view(np.float64)[i]!r} "
            f"cpu {np.ascontiguousarray(want).view(np.float64)[i]!r}")


def assert_same_report(rc, rp, keys, what=""):
    assert rc["executor"] == "cuda", (what, rc)
    assert rp["executor"] == "cpu", (what, rp)
    for key in keys:
        assert rc[key] == rp[key], (what, key, rc[key], rp[key])


def both_matmul(a, b, **kw):
    """The same product on the CUDA and the CPU executor: (cuda, its report, cpu, its report)."""
    cc, rc = ozblas.matmul(a, b, executor="cuda", return_info=True, **kw)
    cp, rp = ozblas.matmul(a, b, executor="cpu", return_info=True, **kw)
    return cc, rc, cp, rp


def both_gemm(fn, *args, **kw):
    """As both_matmul for ozblas.dgemm / zgemm."""
    cc, rc = fn(*args, executor="cuda", return_info=True, **kw)
    cp, rp = fn(*args, executor="cpu", return_info=True, **kw)
    return cc, rc, cp, rp


def _mats(m, k, n, phi, dtype, seed):
    return (make_matrix(m, k, phi, seed=seed, dtype=dtype),
            make_matrix(k, n, phi, seed=seed + 1, dtype=dtype))


def _operand(rows, cols, phi, dtype, seed, order):
    x = make_matrix(rows, cols, phi, seed=seed, dtype=dtype)
    return np.asfortranarray(x) if order == "F" else np.ascontiguousarray(x)


def gemm_batched(cplx, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc, nb,
                 offsets=(0, 0, 0), single=False, addresses=None, **options):
    """ozblas_dgemm_batched / ozblas_zgemm_batched on flat buffers a, b and c (float64 or
    complex128; c is written in place), product i's A at element offsets[0] + i sa of a, B and
    C likewise; with single=True the same products by one ozblas_dgemm / ozblas_zgemm each.
    addresses: the buffers' addresses to use instead (device copies). options:
    ozblas.matmul's keywords. Returns the status and the report dict (single: the first
    failing status and the list of reports)."""
    from ozblas import api
    from ozblas._native import ffi, lib

    opts = api._options(options.get("method"), options.get("moduli"), options.get("scaling"),
                        options.get("executor"), options.get("threads"))
    w = 2 if cplx else 1
    where = dict(zip(map(id, (a, b, c)), addresses)) if addresses else {}

    def ptr(x, off):
        return ffi.cast("double *", where.get(id(x), x.ctypes.data) + 8 * w * off)

    al = ffi.new("double[2]", [complex(alpha).real, complex(alpha).imag])
    be = ffi.new("double[2]", [complex(beta).real, complex(beta).imag])
    if not single:
        rep = ffi.new("ozblas_report *")
        head = (api._context(), ta.encode(), tb.encode(), m, n, k)
        ops = (ptr(a, offsets[0]), lda, sa, ptr(b, offsets[1]), ldb, sb)
        if cplx:
            st = lib.ozblas_zgemm_batched(*head, al, *ops, be, ptr(c, offsets[2]), ldc, sc, nb,
                                          opts, rep)
        else:
            st = lib.ozblas_dgemm_batched(*head, float(alpha), *ops, float(beta),
                                          ptr(c, offsets[2]), ldc, sc, nb, opts, rep)
        return st, api._report_dict(rep)
    reps, first = [], 0
    for i in range(nb):
        rep = ffi.new("ozblas_report *")
        args = (ptr(a, offsets[0] + i * sa), lda, ptr(b, offsets[1] + i * sb), ldb)
        if cplx:
            st = lib.ozblas_zgemm(api._context(), ta.encode(), tb.encode(), m, n, k, al, *args, be,
                                  ptr(c, offsets[2] + i * sc), ldc, opts, rep)
        else:
            st = lib.ozblas_dgemm(api._context(), ta.encode(), tb.encode(), m, n, k, float(alpha),
                                  *args, float(beta), ptr(c, offsets[2] + i * sc), ldc, opts, rep)
        first = first or st
        reps.append(api._report_dict(rep))
    return first, reps
