"""symm, hemm, syr2k, her2k as products (native/src/lapack/lapack_blas3.c through
ozblas.lapack), emulation forced with small strips (NB) so that several GEMMs make up each.

Each result is held to the exact product (ozblas.testing.exact_matmul of the expanded
operands), at most 4x the error of SciPy's native BLAS on the same inputs plus 1e-15
(relative to |alpha| |A| |B| + |beta| |C|); BLAS semantics: only the stored triangle read,
beta = 0 never reads C, syr2k/her2k leave the other triangle untouched, her2k's diagonal
real.
"""

import numpy as np
import pytest
import scipy.linalg.blas as sb

from ozblas import lapack as L
from ozblas._native import ffi, lib
from ozblas.api import _context
from ozblas.testing import exact_matmul, standard_normal

NB = 8
EMU = dict(method="ozaki2", nb=NB)


def _mat(rng, m, n, z):
    a = standard_normal(rng, (m, n))
    return a + 1j * standard_normal(rng, (m, n)) if z else a


def _within(err, native, what):
    assert err <= 4 * native + 1e-15, f"{what}: {err:.3e} vs native {native:.3e}"


def _full(a, lower, herm):
    """The symmetric (Hermitian) matrix of a's stored triangle."""
    t = np.tril(a) if lower else np.triu(a)
    off = np.tril(a, -1) if lower else np.triu(a, 1)
    d = np.diag(np.diag(t).real if herm else np.diag(t))
    return d + off + (off.conj().T if herm else off.T)


def _err(y, exact, scale):
    return np.max(np.abs(y - exact) / scale)


@pytest.mark.parametrize("kind", ["dsymm", "zsymm", "zhemm"])
@pytest.mark.parametrize("side", [0, 1])
@pytest.mark.parametrize("lower", [0, 1])
def test_symm_hemm_every_case(rng, kind, side, lower):
    z, herm = kind[0] == "z", kind == "zhemm"
    m, n = 3 * NB + 5, 2 * NB + 1
    K = n if side else m
    a = _mat(rng, K, K, z)
    a[(np.triu_indices(K, 1) if lower else np.tril_indices(K, -1))] = np.nan  # never read
    b, c = _mat(rng, m, n, z), _mat(rng, m, n, z)
    alpha, beta = (0.5 - 0.25j, 2.0 + 1j) if z else (0.5, 2.0)
    fn = L.hemm if herm else L.symm
    y = fn(alpha, a, b, beta, c, side=side, lower=lower, **EMU)
    assert L.last_report()["emulated"] > 1  # several strips
    ny = getattr(sb, kind)(alpha, a, b, beta, c, side=side, lower=lower)
    full = _full(a, lower, herm)
    prod = exact_matmul(full, b) if side == 0 else exact_matmul(b, full)
    exact = alpha * prod + beta * c
    scale = abs(alpha) * (np.abs(full) @ np.abs(b) if side == 0 else np.abs(b) @ np.abs(full)) + abs(beta) * np.abs(c)
    _within(_err(y, exact, scale), _err(ny, exact, scale), kind)
    # beta = 0: C is not read (NaN there stays out of the result)
    cn = np.full_like(c, np.nan)
    y0 = fn(alpha, a, b, 0.0, cn, side=side, lower=lower, **EMU)
    assert np.all(np.isfinite(y0))
    _within(_err(y0, alpha * prod, scale), _err(getattr(sb, kind)(alpha, a, b, 0.0, cn, side=side, lower=lower),
                                             alpha * prod, scale), kind + " beta=0")


@pytest.mark.parametrize("kind", ["dsyr2k", "zsyr2k", "zher2k"])
@pytest.mark.parametrize("trans", [0, 1])
@pytest.mark.parametrize("lower", [0, 1])
def test_syr2k_her2k_every_case(rng, kind, trans, lower):
    z, herm = kind[0] == "z", kind == "zher2k"
    t = 2 if herm and trans else trans
    n, k = 3 * NB + 5, NB + 3
    a = _mat(rng, *((n, k) if t == 0 else (k, n)), z)
    b = _mat(rng, *a.shape, z)
    c = _mat(rng, n, n, z)
    alpha = 0.5 - 0.25j if z else 0.5
    beta = 2.0 if herm or not z else 2.0 + 1j
    fn = L.her2k if herm else L.syr2k
    y = fn(alpha, a, b, beta, c, trans=t, lower=lower, **EMU)
    assert L.last_report()["emulated"] > 1
    ny = getattr(sb, kind)(alpha, a, b, beta, c, trans=t, lower=lower)
    op = (lambda x: x.conj().T) if herm else (lambda x: x.T)
    A, B = (a, b) if t == 0 else (op(a), op(b))  # n x k
    a2 = np.conj(alpha) if herm else alpha
    prod = alpha * exact_matmul(A, op(B)) + a2 * exact_matmul(B, op(A))
    exact = prod + beta * c
    if herm:  # the diagonal: the real product plus beta Re(c_jj)
        d = np.diag_indices(n)
        exact[d] = prod[d].real + beta * c[d].real
    scale = abs(alpha) * (np.abs(A) @ np.abs(op(B)) + np.abs(B) @ np.abs(op(A))) + abs(beta) * np.abs(c)
    mask = (np.tril if lower else np.triu)(np.ones((n, n), dtype=bool))

    def e(v):
        return np.max((np.abs(v - exact) / scale)[mask])

    _within(e(y), e(ny), kind)
    other = ~mask
    assert np.array_equal(y[other], c[other])  # the other triangle untouched
    if herm:
        assert np.all(y.diagonal().imag == 0)
    cn = np.where(mask, np.nan, c)
    y0 = fn(alpha, a, b, 0.0, cn, trans=t, lower=lower, **EMU)
    assert np.all(np.isfinite(y0[mask])) and np.array_equal(y0[other], c[other])


def test_alpha_zero_and_quick_returns(rng):
    c = _mat(rng, 9, 9, True)
    a = _mat(rng, 9, 9, True)
    assert np.array_equal(L.symm(0.0, a, c, 1.0, c, **EMU), c)
    assert np.array_equal(L.symm(0.0, a, c, 0.5, c, **EMU), 0.5 * c)
    y = L.her2k(0.0, a, a, 0.5, c, **EMU)
    assert np.array_equal(np.triu(y, 1), np.triu(0.5 * c, 1)) and np.all(y.diagonal() == 0.5 * c.diagonal().real)
    assert np.array_equal(L.her2k(0.0, a, a, 1.0, c, **EMU), c)  # quick return: untouched
    y = L.syr2k(1.0, np.zeros((9, 0)), np.zeros((9, 0)), 0.0, c, **EMU)  # k = 0
    assert np.array_equal(np.triu(y), np.zeros((9, 9))) and np.array_equal(np.tril(y, -1), np.tril(c, -1))
    assert L.symm(1.0, np.zeros((0, 0)), np.zeros((0, 4))).shape == (0, 4)


def test_bad_arguments_give_blas_info():
    info = ffi.new("int64_t *")
    a = np.zeros((4, 4), order="F")
    p = ffi.cast("double *", a.ctypes.data)
    call = lambda *args: lib.ozblas_dsymm(_context(), *args, info, 0, ffi.NULL, ffi.NULL)
    assert call(b"X", b"U", 4, 4, 1.0, p, 4, p, 4, 0.0, p, 4) == 1 and info[0] == -1
    assert call(b"L", b"X", 4, 4, 1.0, p, 4, p, 4, 0.0, p, 4) == 1 and info[0] == -2
    assert call(b"R", b"U", 4, 5, 1.0, p, 4, p, 4, 0.0, p, 4) == 1 and info[0] == -7
    assert call(b"L", b"U", 4, 4, 1.0, p, 4, p, 3, 0.0, p, 4) == 1 and info[0] == -9
    assert call(b"L", b"U", 4, 4, 1.0, p, 4, p, 4, 0.0, p, 3) == 1 and info[0] == -12
    z = ffi.new("double[2]", [1.0, 0.0])
    assert lib.ozblas_zher2k(_context(), b"U", b"T", 4, 4, z, p, 4, p, 4, 0.0, p, 4, info, 0,
                             ffi.NULL, ffi.NULL) == 1 and info[0] == -2  # her2k: 'N' or 'C'
    assert lib.ozblas_zsyr2k(_context(), b"U", b"C", 4, 4, z, p, 4, p, 4, z, p, 4, info, 0,
                             ffi.NULL, ffi.NULL) == 1 and info[0] == -2  # zsyr2k: 'N' or 'T'
    assert lib.ozblas_dsyr2k(_context(), b"U", b"C", 4, 2, 1.0, p, 2, p, 2, 0.0, p, 4, info, 0,
                             ffi.NULL, ffi.NULL) == 0 and info[0] == 0  # dsyr2k: 'C' is 'T'
    assert lib.ozblas_dsyr2k(_context(), b"U", b"N", 4, 2, 1.0, p, 3, p, 4, 0.0, p, 4, info, 0,
                             ffi.NULL, ffi.NULL) == 1 and info[0] == -7


def test_threads_do_not_change_bits(rng):
    a, b = _mat(rng, 29, 29, True), _mat(rng, 29, 11, True)
    for fn, args in ((L.hemm, (0.5, a, b)), (L.syr2k, (0.5, b, b[::-1].copy()))):
        assert np.array_equal(fn(*args, threads=1, **EMU), fn(*args, threads=2, **EMU))


NO_LAPACK_PROG = r"""
#include <stdio.h>
#include "ozblas.h"
int main(void)
{
    ozblas_context *ctx;
    ozblas_context_create(&ctx);
    ozblas_options o;
    ozblas_options_init(&o);
    o.method = OZBLAS_METHOD_OZAKI2;
    o.executor = OZBLAS_EXECUTOR_CPU;
    static double A[64], B[64], C[64];
    int64_t info = 0, ipiv[8];
    for (int i = 0; i < 64; i++)
        A[i] = (i % 7) - 3.0, B[i] = (i % 5) - 2.0;
    printf("%d %d %d %d\n", ozblas_dsyrk(ctx, 'U', 'N', 8, 8, 1.0, A, 8, 0.0, C, 8, &info, 2, &o, NULL),
           ozblas_dsymm(ctx, 'L', 'U', 8, 8, 1.0, A, 8, B, 8, 0.5, C, 8, &info, 2, &o, NULL),
           ozblas_dsyr2k(ctx, 'L', 'T', 8, 8, 1.0, A, 8, B, 8, 0.5, C, 8, &info, 2, &o, NULL),
           ozblas_dgetrf(ctx, 8, 8, A, 8, ipiv, &info, 2, &o, NULL));
    return 0;
}
"""


def test_products_need_no_host_lapack(tmp_path):
    """syrk, symm and syr2k are products only: in a program that loads no LAPACK (a C program
    linked to libozblas alone, emulated products on the CPU) they run, where getrf reports
    OZBLAS_ERR_NO_HOST_BLAS. The preload shim's SYRK relies on this."""
    import os
    import shutil
    import subprocess

    from ozblas._native import library_path

    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "native")
    lib_dir = os.path.dirname(library_path())
    (tmp_path / "p.c").write_text(NO_LAPACK_PROG)
    r = subprocess.run([cc, "-O1", f"-I{root}/include", str(tmp_path / "p.c"), "-o", str(tmp_path / "p"),
                        f"-L{lib_dir}", "-l:libozblas.so", f"-Wl,-rpath,{lib_dir}"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    env = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_") and k != "LD_PRELOAD"}
    p = subprocess.run([str(tmp_path / "p")], capture_output=True, text=True, timeout=60, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["0", "0", "0", str(lib.OZBLAS_ERR_NO_HOST_BLAS)]
