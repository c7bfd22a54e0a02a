"""The triangular Sylvester equation (native/src/lapack/lapack_trsyl.c through
ozblas.lapack.trsyl and the C API): op(A) X + isgn X op(B) = scale C with A and B in Schur
form (real: 2x2 blocks), emulation forced with small blocks (NB) so that the orders cross
block boundaries (and the split points fall on 2x2 blocks).

Each solution is held to native LAPACK's (SciPy's dtrsyl/ztrsyl, unrouted here) on the same
inputs: the residual ||op(A) X + isgn X op(B) - scale C||_F / ((||A||_F + ||B||_F) ||X||_F),
computed exactly (one product through the exact oracle) and rounded once, within 4x
native's plus 1e-16; info as native's; scale 1 where native's is, below 1 where native's is
(huge C, a solution beyond the overflow threshold), info 1 for common eigenvalues.
"""

import numpy as np
import pytest
import scipy.linalg as sl
import scipy.linalg.lapack as la
from hypothesis import given, settings, strategies as st

from ozblas import lapack as L
from ozblas._native import ffi, lib
from ozblas.api import _context, _options
from ozblas.testing import exact_matmul, standard_normal

NB = 8
EMU = dict(method="ozaki2", nb=NB)
SIZES = [(1, 1), (2, NB + 1), (NB - 1, 3 * NB + 5), (NB, NB), (NB + 1, 2), (3 * NB + 5, NB - 1),
         (3 * NB + 5, 3 * NB + 5)]
TRANS = {np.float64: ["N", "T", "C"], np.complex128: ["N", "C"]}


def _mat(rng, n, m, dt):
    a = standard_normal(rng, (n, m))
    return a + 1j * standard_normal(rng, (n, m)) if dt == np.complex128 else a


def _schur(rng, n, dt):
    """A Schur form: real quasi-triangular with 2x2 blocks, or complex triangular."""
    t = sl.schur(_mat(rng, n, n, dt), output="complex" if dt == np.complex128 else "real")[0]
    return np.asfortranarray(t)


def _op(m, t):
    return m if t == "N" else m.conj().T


def _residual(a, b, c, x, scale, ta, tb, isgn):
    """The residual, exactly: [op(A), X, C] [X; isgn op(B); -scale I] rounded once."""
    n = b.shape[0]
    left = np.hstack([_op(a, ta), x, c])
    right = np.vstack([x, isgn * _op(b, tb), -scale * np.eye(n)])
    r = exact_matmul(left, right)
    den = (np.linalg.norm(a) + np.linalg.norm(b)) * np.linalg.norm(x)
    return np.linalg.norm(r) / den if den else np.linalg.norm(r)


def _native(dt):
    return la.ztrsyl if dt == np.complex128 else la.dtrsyl


def _check(a, b, c, ta, tb, isgn, **kw):
    dt = np.complex128 if np.iscomplexobj(c) else np.float64
    want, nscale, ninfo = _native(dt)(a, b, c, trana=ta, tranb=tb, isgn=isgn)
    got, scale, info = L.trsyl(a, b, c, trana=ta, tranb=tb, isgn=isgn, **dict(EMU, **kw))
    assert got.dtype == dt and got.shape == c.shape
    assert info == ninfo and np.isfinite(got).all()
    assert 0.0 < scale <= 1.0 and (scale == 1.0) == (nscale == 1.0), (scale, nscale)
    mine = _residual(a, b, c, got, scale, ta, tb, isgn)
    native = _residual(a, b, c, want, nscale, ta, tb, isgn)
    assert mine <= 4 * native + 1e-16, (mine, native)
    return got, scale, info


@pytest.mark.parametrize("dt", [np.float64, np.complex128])
@pytest.mark.parametrize("m,n", SIZES)
@pytest.mark.parametrize("isgn", [1, -1])
def test_trsyl_against_native(dt, m, n, isgn):
    rng = np.random.default_rng(m * 100 + n)
    a, b, c = _schur(rng, m, dt), _schur(rng, n, dt), _mat(rng, m, n, dt)
    for ta in TRANS[dt]:
        for tb in TRANS[dt]:
            _check(a, b, c, ta, tb, isgn)
            rep = L.last_report()
            if max(m, n) > NB:
                assert rep["emulated"] > 0 and rep["emulated"] == rep["products"] and rep["moduli"]
            else:
                assert rep["products"] == 0  # one block: the host trsyl alone


def _split_on_2x2(rng, n):
    """A real Schur form with a 2x2 block on every block boundary of NB (rows p-1, p)."""
    t = np.triu(standard_normal(rng, (n, n)))
    for p in range(NB, n, NB):
        t[p - 1, p - 1] = t[p, p] = standard_normal(rng)
        t[p - 1, p], t[p, p - 1] = 2.0, -0.5  # complex eigenvalues t_pp +- i
    return np.asfortranarray(t)


@pytest.mark.parametrize("ta", ["N", "T"])
@pytest.mark.parametrize("tb", ["N", "T"])
def test_trsyl_2x2_blocks_on_the_boundaries(ta, tb):
    """Where a block boundary would cut a 2x2 block the split moves by one."""
    rng = np.random.default_rng(3)
    m, n = 4 * NB + 3, 3 * NB + 1
    a, b = _split_on_2x2(rng, m), _split_on_2x2(rng, n)
    _check(a, b, standard_normal(rng, (m, n)), ta, tb, 1)
    _check(a, b, standard_normal(rng, (m, n)), ta, tb, -1)


@pytest.mark.parametrize("dt", [np.float64, np.complex128])
def test_trsyl_scale_below_one(dt):
    """A huge C, and a solution beyond the overflow threshold (A scaled down): scale < 1 as
    native's, X finite, the residual within 4x native's."""
    rng = np.random.default_rng(11)
    m, n = 3 * NB + 5, 2 * NB + 3
    a, b = _schur(rng, m, dt), _schur(rng, n, dt)
    c = _mat(rng, m, n, dt)
    for ta, tb, isgn in (("N", "N", 1), (TRANS[dt][-1], "N", -1), ("N", TRANS[dt][-1], 1)):
        _, scale, _ = _check(a, b, 1e306 * c, ta, tb, isgn)
        assert scale < 1.0
        _, scale, _ = _check(1e-8 * a, 1e-8 * b, 1e300 * c, ta, tb, isgn)
        assert scale < 1.0


@pytest.mark.parametrize("dt", [np.float64, np.complex128])
@pytest.mark.parametrize("isgn", [1, -1])
def test_trsyl_common_eigenvalues(dt, isgn):
    """B = -isgn A (every eigenvalue common) and B = -isgn A + 1e-14 (close ones): info as
    native's (1: perturbed values used), the residual within 4x native's."""
    rng = np.random.default_rng(5)
    n = 3 * NB + 5
    a = _schur(rng, n, dt)
    c = _mat(rng, n, n, dt)
    _, _, info = _check(a, -isgn * a, c, "N", "N", isgn)
    assert info == 1
    _check(a, -isgn * a - isgn * 1e-14 * np.eye(n), c, TRANS[dt][-1], "N", isgn)


@pytest.mark.parametrize("cx", [0, 1])
def test_c_api_leading_dimensions(cx):
    """lda, ldb, ldc beyond the orders: ozblas.lapack's bits, the rows beyond untouched and
    the strictly lower part of A and B below the first subdiagonal (NaN here) never read."""
    dt = np.complex128 if cx else np.float64
    rng = np.random.default_rng(9)
    m, n, pad = 3 * NB + 5, 2 * NB + 1, 4
    a, b, c = _schur(rng, m, dt), _schur(rng, n, dt), _mat(rng, m, n, dt)
    want, wscale, _ = L.trsyl(a, b, c, trana="N", tranb="C", isgn=-1, **EMU)

    def padded(x, quasi):
        p = np.full((x.shape[0] + pad, x.shape[1]), np.nan, dtype=dt, order="F")
        # quasi-triangular: NaN below the first subdiagonal (real) or the diagonal (complex)
        unread = np.tril(np.ones(x.shape, bool), -2 if dt == np.float64 else -1) & quasi
        p[:x.shape[0]] = np.where(unread, np.nan, x)
        return p

    pa, pb, pc = padded(a, True), padded(b, True), padded(c, False)
    scale = ffi.new("double *")
    info = ffi.new("int64_t *")
    ptr = lambda x: ffi.cast("double *", x.ctypes.data)  # noqa: E731
    st = (lib.ozblas_ztrsyl if cx else lib.ozblas_dtrsyl)(
        _context(), b"N", b"C", -1, m, n, ptr(pa), m + pad, ptr(pb), n + pad, ptr(pc), m + pad,
        scale, info, NB, _options("ozaki2", None, None, None, None, None, None), ffi.NULL)
    assert st == 0 and info[0] == 0 and scale[0] == wscale
    bits = lambda x: np.ascontiguousarray(x).view(np.uint64)  # noqa: E731
    assert np.array_equal(bits(pc[:m]), bits(want))
    assert np.isnan(pc[m:]).all()


def test_argument_errors():
    a = np.eye(4)
    p = ffi.cast("double *", a.ctypes.data)
    scale = ffi.new("double *")
    info = ffi.new("int64_t *")
    cases = [((b"X", b"N", 1, 4, 4, p, 4, p, 4, p, 4), -1), ((b"N", b"X", 1, 4, 4, p, 4, p, 4, p, 4), -2),
             ((b"N", b"N", 0, 4, 4, p, 4, p, 4, p, 4), -3), ((b"N", b"N", 1, -1, 4, p, 4, p, 4, p, 4), -4),
             ((b"N", b"N", 1, 4, -1, p, 4, p, 4, p, 4), -5), ((b"N", b"N", 1, 4, 4, p, 3, p, 4, p, 4), -7),
             ((b"N", b"N", 1, 4, 4, p, 4, p, 3, p, 4), -9), ((b"N", b"t", 1, 4, 4, p, 4, p, 4, p, 3), -11)]
    for args, want in cases:
        assert lib.ozblas_dtrsyl(_context(), *args, scale, info, 0, ffi.NULL, ffi.NULL) == \
            lib.OZBLAS_ERR_INVALID_ARGUMENT
        assert info[0] == want
    # ztrsyl takes 'N' or 'C' only
    assert lib.ozblas_ztrsyl(_context(), b"T", b"N", 1, 2, 2, p, 2, p, 2, p, 2, scale, info, 0,
                             ffi.NULL, ffi.NULL) == lib.OZBLAS_ERR_INVALID_ARGUMENT
    assert info[0] == -1
    # m = 0: the quick return, scale 1
    scale[0] = 0.5
    assert lib.ozblas_dtrsyl(_context(), b"N", b"N", 1, 0, 3, p, 1, p, 3, p, 1, scale, info, 0,
                             ffi.NULL, ffi.NULL) == 0
    assert info[0] == 0 and scale[0] == 1.0
    with pytest.raises(ValueError, match="isgn"):
        L.trsyl(a, a, a, isgn=2)
    with pytest.raises(ValueError, match="trana"):
        L.trsyl(a + 0j, a, a, trana="T")
    with pytest.raises(ValueError, match="shape"):
        L.trsyl(a, a, np.eye(3))


@settings(max_examples=12, deadline=None)
@given(m=st.integers(1, 30), n=st.integers(1, 30), nb=st.integers(1, 12),
       ta=st.sampled_from("NT"), tb=st.sampled_from("NT"), isgn=st.sampled_from([1, -1]),
       cx=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_trsyl_property(m, n, nb, ta, tb, isgn, cx, seed):
    """Any orders and block size (nb 1 is taken as 2: a 2x2 block is never split)."""
    dt = np.complex128 if cx else np.float64
    if cx:
        ta, tb = ta.replace("T", "C"), tb.replace("T", "C")
    rng = np.random.default_rng(seed)
    _check(_schur(rng, m, dt), _schur(rng, n, dt), _mat(rng, m, n, dt), ta, tb, isgn, nb=nb)


LP64_PROG = r"""
#include <dlfcn.h>
#include <stdio.h>
#include "ozblas.h"
/* argv: the host LAPACK, then the inputs and outputs as raw doubles */
int main(int argc, char **argv) {
    if (!dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL))
        return 2;
    enum { M = 29, N = 21 };
    static double A[M * M], B[N * N], C[M * N], S[N * N], U[N * N];
    FILE *f = fopen(argv[2], "rb");
    if (!f || fread(A, 8, M * M, f) != M * M || fread(B, 8, N * N, f) != N * N ||
        fread(C, 8, M * N, f) != M * N || fread(S, 8, N * N, f) != N * N ||
        fread(U, 8, N * N, f) != N * N)
        return 3;
    fclose(f);
    ozblas_options o;
    ozblas_options_init(&o);
    o.method = OZBLAS_METHOD_OZAKI2;
    ozblas_lapack_report r1, r2;
    double scale;
    int64_t i1, i2;
    if (ozblas_dtrsyl(NULL, 'T', 'N', -1, M, N, A, M, B, N, C, M, &scale, &i1, 8, &o, &r1) ||
        ozblas_dsygst(NULL, 2, 'L', N, S, N, U, N, &i2, 8, &o, &r2) || i1 || i2 ||
        !r1.emulated || !r2.emulated)
        return 4;
    f = fopen(argv[3], "wb");
    fwrite(&scale, 8, 1, f);
    fwrite(C, 8, M * N, f);
    fwrite(S, 8, N * N, f);
    fclose(f);
    return 0;
}
"""


@pytest.mark.parametrize("family", ["lp64", "ilp64"])
def test_host_lapack_families(tmp_path, family):
    """A C program whose only LAPACK is SciPy's LP64 OpenBLAS (scipy_dtrsyl_, 32-bit
    integers) or NumPy's ILP64 one (scipy_dtrsyl_64_): the host trsyl and sygst blocks are
    called with the family's integers; trsyl's residual and sygst's result as native's."""
    import glob
    import os
    import shutil
    import subprocess

    import ozblas._native

    cc = shutil.which("cc") or shutil.which("gcc")
    site = os.path.dirname(os.path.dirname(np.__file__))
    pattern = {"lp64": "scipy.libs/libscipy_openblas-*.so",
               "ilp64": "numpy.libs/libscipy_openblas64_*.so"}
    libs = glob.glob(os.path.join(site, pattern[family]))
    if not cc or not libs:
        pytest.skip("no C compiler or no wheel OpenBLAS")
    lib = os.path.dirname(ozblas._native.library_path())
    (tmp_path / "p.c").write_text(LP64_PROG)
    subprocess.run([cc, "-O1", f"-I{lib}", str(tmp_path / "p.c"), "-o", str(tmp_path / "p"),
                    f"-L{lib}", "-l:libozblas.so", f"-Wl,-rpath,{lib}", "-ldl"], check=True)
    rng = np.random.default_rng(2)
    m, n = 29, 21
    a, b, c = _schur(rng, m, np.float64), _schur(rng, n, np.float64), standard_normal(rng, (m, n))
    s = standard_normal(rng, (n, n))
    s = s + s.T
    g = standard_normal(rng, (n, n))
    u = sl.cholesky(g @ g.T + n * np.eye(n), lower=True)
    with open(tmp_path / "in", "wb") as f:
        for x in (a, b, c, s, u):
            f.write(np.asfortranarray(x).tobytes(order="F"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_")}
    p = subprocess.run([str(tmp_path / "p"), libs[0], str(tmp_path / "in"), str(tmp_path / "out")],
                       env=env, timeout=120)
    assert p.returncode == 0
    out = np.fromfile(tmp_path / "out")
    scale, x = out[0], out[1:1 + m * n].reshape((m, n), order="F")
    red = out[1 + m * n:].reshape((n, n), order="F")
    want, nscale, _ = la.dtrsyl(a, b, c, trana="T", isgn=-1)
    assert scale == nscale == 1.0
    native = _residual(a, b, c, want, 1.0, "T", "N", -1)
    assert _residual(a, b, c, x, 1.0, "T", "N", -1) <= 4 * native + 1e-16
    nred = np.tril(la.dsygst(s, u, itype=2, lower=1)[0])
    cond = np.linalg.cond(u) ** 2
    assert np.linalg.norm(np.tril(red) - nred) <= 16 * n * 2.0**-53 * cond * np.linalg.norm(nred)
