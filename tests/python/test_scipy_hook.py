"""scipy_hook: SciPy's gemm routed through ozblas, with SciPy's face; the rest untouched."""

import numpy as np
import pytest

import ozblas
import scipy_hook
from ozblas.testing import make_matrix

sl = pytest.importorskip("scipy.linalg")
blas = pytest.importorskip("scipy.linalg.blas")


@pytest.fixture
def hooked():
    originals = (blas.get_blas_funcs, sl.get_blas_funcs, blas.dgemm, blas.zgemm)
    scipy_hook.install()
    yield originals
    scipy_hook.uninstall()


def test_install_uninstall_restore_exactly():
    before = (blas.get_blas_funcs, sl.get_blas_funcs, blas.dgemm, blas.zgemm)
    scipy_hook.install()
    scipy_hook.install()  # idempotent
    assert scipy_hook.installed() and blas.dgemm is not before[2]
    scipy_hook.uninstall()
    scipy_hook.uninstall()
    assert (blas.get_blas_funcs, sl.get_blas_funcs, blas.dgemm, blas.zgemm) == before
    assert not scipy_hook.installed()


@pytest.mark.parametrize("dtype,name", [(np.float64, "dgemm"), (np.complex128, "zgemm")])
def test_gemm_has_scipys_attributes(hooked, dtype, name):
    original = hooked[0]("gemm", (np.ones((2, 2), dtype),))
    for f in (sl.get_blas_funcs("gemm", (np.ones((2, 2), dtype),)),
              blas.get_blas_funcs(("gemm",), dtype=dtype)[0], getattr(blas, name)):
        assert isinstance(f, scipy_hook._Gemm)
        for attr in ("typecode", "dtype", "prefix", "module_name", "__name__", "__doc__"):
            assert getattr(f, attr) == getattr(original, attr), attr


def test_other_routines_untouched(hooked):
    original_get = hooked[0]
    for names, arr in ((("axpy",), np.ones(3)), (("gemm",), np.ones((2, 2), np.float32)),
                       (("gemm",), np.ones((2, 2), np.complex64)), (("syrk",), np.ones((2, 2)))):
        got = sl.get_blas_funcs(names, (arr,))[0]
        assert got is original_get(names, (arr,))[0]


@pytest.mark.parametrize("kw", [dict(), dict(beta=0.5), dict(trans_a=1), dict(trans_b=1),
                                dict(trans_a=1, trans_b=1, beta=2.0)])
def test_same_results_and_defaults_as_scipy(hooked, kw):
    a = make_matrix(6, 6, 0.5, seed=1)
    b = make_matrix(6, 6, 0.5, seed=2)
    c = make_matrix(6, 6, 0.5, seed=3) if "beta" in kw else None
    ours = blas.dgemm(1.5, a, b, c=c, **kw)
    theirs = hooked[2](1.5, a, b, c=c, **kw)
    np.testing.assert_allclose(ours, theirs, rtol=1e-14, atol=1e-15)
    zc = (c + 1j * c) if c is not None else None
    z = blas.zgemm(1.5 - 0.5j, a + 1j * b, b - 1j * a, c=zc, **kw)
    np.testing.assert_allclose(z, hooked[3](1.5 - 0.5j, a + 1j * b, b - 1j * a, c=zc, **kw),
                               rtol=1e-14, atol=1e-14)


def test_overwrite_c_in_place_like_scipy(hooked):
    a = make_matrix(4, 4, 0.5, seed=1)
    c = np.asfortranarray(make_matrix(4, 4, 0.5, seed=2))
    assert blas.dgemm(1.0, a, a, 1.0, c, overwrite_c=1) is c


def test_really_routed(hooked, monkeypatch):
    monkeypatch.setenv("OZBLAS_METHOD", "ozaki2")
    monkeypatch.setenv("OZBLAS_MODULI", "13")
    a = make_matrix(20, 30, 1.0, seed=1)
    b = make_matrix(30, 10, 1.0, seed=2)
    got = sl.get_blas_funcs("gemm", (a, b))(1.0, a, b)
    want = ozblas.dgemm(1.0, a, b, method="ozaki2", moduli=13)
    assert np.array_equal(got, want)
    assert not np.array_equal(got, hooked[2](1.0, a, b))  # 13 moduli differ from native


def test_masked_arrays_as_scipy_reads_them(hooked):
    """ozblas.dgemm refuses a masked array (issue 24), but SciPy's dgemm reads its data and
    ignores the mask: the routed SciPy function does what SciPy's does."""
    a = make_matrix(5, 5, 0.5, seed=1)
    m = np.ma.array(a, mask=np.eye(5, dtype=bool))
    c = np.ma.array(np.ones((5, 5)), mask=True)
    got = blas.dgemm(1.0, m, a, 2.0, c)
    want = hooked[2](1.0, m, a, 2.0, c)
    assert type(got) is type(want) is np.ndarray
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15)
    np.testing.assert_array_equal(got, blas.dgemm(1.0, a, a, 2.0, np.ones((5, 5))))
    with pytest.raises(TypeError, match="masked"):
        ozblas.dgemm(1.0, m, a)


def test_a_gemm_left_native_is_scipys(hooked, monkeypatch):
    """OZBLAS_ROUTINES=-dgemm: the routed dgemm calls SciPy's own; zgemm stays routed."""
    monkeypatch.setenv("OZBLAS_METHOD", "ozaki2")
    monkeypatch.setenv("OZBLAS_MODULI", "13")
    monkeypatch.setenv("OZBLAS_ROUTINES", "-dgemm")
    rng = np.random.default_rng(31)
    a, b = rng.uniform(-1, 1, (20, 30)), rng.uniform(-1, 1, (30, 10))
    c = rng.uniform(-1, 1, (20, 10))
    got = sl.get_blas_funcs("gemm", (a, b))(1.5, a, b, 0.5, c, trans_a=0, trans_b=0)
    assert np.array_equal(got, hooked[2](1.5, a, b, 0.5, c))
    za, zb = a + 1j * a[:, ::-1], b - 1j * b[::-1]
    z = sl.get_blas_funcs("gemm", (za, zb))(1.0, za, zb)
    assert np.array_equal(z, ozblas.zgemm(1.0, za, zb, method="ozaki2", moduli=13))
    assert not np.array_equal(z, hooked[3](1.0, za, zb))
