"""Python API: BLAS semantics, quick returns, special values, argument errors."""

import numpy as np
import pytest

import ozblas
from ozblas.testing import exact_matmul, make_matrix

EMU = dict(method="ozaki2", moduli=16, executor="cpu")


def bits(x):
    return np.ascontiguousarray(x).view(np.uint64)


@pytest.mark.parametrize("cplx", [False, True])
def test_matmul_c_and_f_order_and_noncontiguous(cplx):
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(20, 30, 0.5, seed=1, dtype=dt)
    b = make_matrix(30, 10, 0.5, seed=2, dtype=dt)
    ref = ozblas.matmul(a, b, **EMU)
    assert ref.shape == (20, 10) and ref.dtype == dt
    for aa in (np.asfortranarray(a), a.copy()):
        for bb in (np.asfortranarray(b), b.copy(), np.repeat(b, 2, axis=1)[:, ::2]):
            assert np.array_equal(bits(ozblas.matmul(aa, bb, **EMU)), bits(ref))


def test_matmul_stacked():
    a = make_matrix(3 * 8, 9, 1.0, seed=1).reshape(3, 8, 9)
    b = make_matrix(9, 5, 1.0, seed=2)
    c, info = ozblas.matmul(a, b, return_info=True, **EMU)
    assert c.shape == (3, 8, 5) and info["batch"] == 3
    for i in range(3):
        assert np.array_equal(bits(c[i]), bits(ozblas.matmul(a[i], b, **EMU)))
    b3 = np.stack([b, 2 * b, 3 * b])
    c3 = ozblas.matmul(a, b3, **EMU)
    assert np.array_equal(bits(c3[2]), bits(ozblas.matmul(a[2], 3 * b, **EMU)))


def test_return_info_fields():
    a = make_matrix(10, 10, 0.5)
    c, info = ozblas.matmul(a, a, method="ozaki2", moduli=14, scaling="fast", executor="cpu", return_info=True)
    assert info["method"] == "ozaki2" and info["moduli"] == 14 and info["scaling"] == "fast"
    assert info["executor"] == "cpu" and info["fallback"] is None
    assert info["int_gemms"] == 14 and info["fp64_passes"] == 1
    c, info = ozblas.matmul(a, a, method="native", return_info=True)
    assert info["method"] == "native" and info["moduli"] is None


def test_auto_without_gpu_is_native_and_says_so():
    if ozblas.info()["executors"]["cuda"]["available"]:
        pytest.skip("a CUDA executor is present: auto emulates")
    a = make_matrix(10, 10, 0.5)
    c, info = ozblas.matmul(a, a, method="auto", return_info=True)
    assert info["method"] == "native" and info["fallback"] == "auto chose native"
    np.testing.assert_allclose(c, a @ a, rtol=1e-14)


@pytest.mark.parametrize("ta", [0, 1, 2])
@pytest.mark.parametrize("tb", [0, 1, 2])
def test_zgemm_transposes_alpha_beta(ta, tb):
    m, n, k = 7, 5, 9
    opa = make_matrix(m, k, 1.0, seed=3, dtype=np.complex128)
    opb = make_matrix(k, n, 1.0, seed=4, dtype=np.complex128)
    stored = lambda x, t: x if t == 0 else (x.T.copy() if t == 1 else x.conj().T.copy())
    c0 = make_matrix(m, n, 1.0, seed=5, dtype=np.complex128)
    alpha, beta = 0.75 - 1.25j, -0.5 + 2.0j
    c = ozblas.zgemm(alpha, stored(opa, ta), stored(opb, tb), beta, c0, ta, tb, **EMU)
    expect = alpha * exact_matmul(opa, opb) + beta * c0
    np.testing.assert_allclose(c, expect, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("ta", [0, 1])
@pytest.mark.parametrize("tb", [0, 1])
def test_dgemm_matches_scipy(ta, tb):
    scipy_blas = pytest.importorskip("scipy.linalg.blas")
    a = make_matrix(6, 6, 1.0, seed=1)
    b = make_matrix(6, 6, 1.0, seed=2)
    c0 = make_matrix(6, 6, 1.0, seed=3)
    ours = ozblas.dgemm(1.5, a, b, 0.5, c0, ta, tb, **EMU)
    theirs = scipy_blas.dgemm(1.5, a, b, 0.5, c0, ta, tb)
    np.testing.assert_allclose(ours, theirs, rtol=1e-13)
    assert ozblas.dgemm(1.0, a, b).shape == (6, 6)


def test_dgemm_overwrite_c_in_place():
    a = make_matrix(4, 4, 0.5, seed=1)
    c = np.asfortranarray(make_matrix(4, 4, 0.5, seed=2))
    c_before = c.copy()
    out = ozblas.dgemm(1.0, a, a, 1.0, c, overwrite_c=1, **EMU)
    assert out is c
    out2 = ozblas.dgemm(1.0, a, a, 1.0, c_before, overwrite_c=0, **EMU)
    assert out2 is not c_before


@pytest.mark.parametrize("method", ["ozaki2", "native"])
@pytest.mark.parametrize("cplx", [False, True])
def test_beta_zero_never_reads_c(method, cplx):
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(5, 6, 0.5, dtype=dt)
    b = make_matrix(6, 4, 0.5, dtype=dt)
    c = np.full((5, 4), np.nan, dtype=dt)
    f = ozblas.zgemm if cplx else ozblas.dgemm
    out = f(1.0, a, b, 0.0, c, method=method, executor="cpu")
    assert np.all(np.isfinite(out))
    out = f(0.0, a, b, 0.0, c, method=method, executor="cpu")
    assert np.all(out == 0)


def test_alpha_zero_and_empty_dimensions():
    a = make_matrix(3, 4, 0.5)
    b = make_matrix(4, 2, 0.5)
    c = make_matrix(3, 2, 0.5, seed=7)
    a_nan = np.full_like(a, np.nan)
    out = ozblas.dgemm(0.0, a_nan, b, 2.0, c, **EMU)  # alpha = 0: A and B are not read
    np.testing.assert_array_equal(out, 2.0 * c)
    assert ozblas.matmul(np.zeros((0, 4)), b, **EMU).shape == (0, 2)
    assert ozblas.matmul(a, np.zeros((4, 0)), **EMU).shape == (3, 0)
    out = ozblas.dgemm(1.0, np.zeros((3, 0)), np.zeros((0, 2)), 0.5, c, **EMU)  # k = 0
    np.testing.assert_array_equal(out, 0.5 * c)
    np.testing.assert_array_equal(ozblas.matmul(np.zeros((3, 0)), np.zeros((0, 2)), **EMU), np.zeros((3, 2)))


@pytest.mark.parametrize("cplx", [False, True])
def test_inf_nan_inputs_match_native_pattern(cplx):
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(6, 5, 0.5, seed=1, dtype=dt)
    b = make_matrix(5, 4, 0.5, seed=2, dtype=dt)
    a[1, 2] = np.inf
    a[3, 0] = -np.inf
    b[4, 1] = np.nan
    c, info = ozblas.matmul(a, b, return_info=True, **EMU)
    assert info["fallback"] == "nonfinite input" and info["method"] == "native"
    with np.errstate(invalid="ignore"):  # numpy warns about the Inf/NaN it propagates
        ref = a @ b
    np.testing.assert_array_equal(np.isnan(c), np.isnan(ref))
    np.testing.assert_array_equal(np.isinf(c), np.isinf(ref))
    fin = np.isfinite(ref)
    np.testing.assert_allclose(c[fin], ref[fin], rtol=1e-13)


def test_extreme_exponent_row_falls_back_exactly():
    a = make_matrix(4, 3, 0.5, seed=1)
    a[2, :] = [1e300, 1e-300, 0.0]
    b = make_matrix(3, 3, 0.5, seed=2)
    b[0, 1] = 0.0
    c, info = ozblas.matmul(a, b, return_info=True, **EMU)
    assert info["fallback"] == "exponent range beyond the scaling"
    np.testing.assert_array_equal(c[2, 1], exact_matmul(a, b)[2, 1])  # 1e-300 * b[1,1], not lost


def test_subnormal_and_huge_values():
    rng = np.random.default_rng(3)
    a = (rng.random((6, 8)) - 0.5) * 1e-310  # subnormal rows
    b = (rng.random((8, 5)) - 0.5) * 1e300
    c, info = ozblas.matmul(a, b, return_info=True, **EMU)
    assert info["fallback"] is None
    np.testing.assert_allclose(c, exact_matmul(a, b), rtol=1e-10)
    a = (rng.random((6, 8)) + 0.5) * 1e200
    b = (rng.random((8, 5)) + 0.5) * 1e200  # the products overflow, as native's do
    c = ozblas.matmul(a, b, **EMU)
    with np.errstate(over="ignore"):
        assert np.all(np.isinf(c)) and np.all(np.isinf(a @ b))


def test_zero_rows_and_columns():
    a = make_matrix(5, 6, 1.0, seed=1)
    b = make_matrix(6, 4, 1.0, seed=2)
    a[2] = 0
    b[:, 1] = 0
    c, info = ozblas.matmul(a, b, return_info=True, **EMU)
    assert info["fallback"] is None
    assert np.all(c[2] == 0) and np.all(c[:, 1] == 0)
    np.testing.assert_allclose(c, exact_matmul(a, b), rtol=1e-14, atol=1e-300)


@pytest.mark.parametrize("cplx", [False, True])
def test_same_bits_for_one_and_two_threads(cplx):
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(150, 1100, 1.0, seed=1, dtype=dt)
    b = make_matrix(1100, 90, 1.0, seed=2, dtype=dt)
    for scaling in ("fast", "accurate"):
        c1 = ozblas.matmul(a, b, method="ozaki2", scaling=scaling, executor="cpu", threads=1)
        c2 = ozblas.matmul(a, b, method="ozaki2", scaling=scaling, executor="cpu", threads=2)
        assert np.array_equal(bits(c1), bits(c2))


def test_bad_arguments():
    a = make_matrix(3, 4, 0.5)
    b = make_matrix(4, 2, 0.5)
    with pytest.raises(TypeError, match="float32.*float64 or complex128"):
        ozblas.matmul(a.astype(np.float32), b)
    with pytest.raises(ValueError, match="inner dimensions"):
        ozblas.matmul(a, a)
    with pytest.raises(ValueError, match="2-D or 3-D"):
        ozblas.matmul(np.ones(3), b)
    with pytest.raises(ValueError, match="moduli"):
        ozblas.matmul(a, b, method="ozaki2", moduli=1)
    with pytest.raises(ValueError, match="method"):
        ozblas.matmul(a, b, method="fastest")
    with pytest.raises(ValueError, match="scaling"):
        ozblas.matmul(a, b, scaling="exact")
    with pytest.raises(ValueError, match="trans"):
        ozblas.dgemm(1.0, a, b, trans_a=3)
    with pytest.raises(ValueError, match="c has shape"):
        ozblas.dgemm(1.0, a, b, 1.0, np.zeros((2, 2)))
    with pytest.warns(np.exceptions.ComplexWarning):  # SciPy's dgemm casts, and warns
        assert (ozblas.dgemm(1.0, a + 1j, b, method="native") == ozblas.dgemm(1.0, a, b, method="native")).all()


def test_native_errors_raise_ozblas_error_with_status():
    from ozblas._native import check, ffi, lib

    c = np.zeros((2, 2), order="F")
    p = ffi.cast("double *", c.ctypes.data)
    st = lib.ozblas_dgemm(ffi.NULL, b"N", b"N", 2, 2, 2, 1.0, p, 1, p, 2, 0.0, p, 2, ffi.NULL, ffi.NULL)
    with pytest.raises(ozblas.OzblasError) as e:
        check(st)
    assert e.value.status == "OZBLAS_ERR_INVALID_ARGUMENT"
    with pytest.raises(ozblas.OzblasError, match="EXECUTOR_UNAVAILABLE"):
        if ozblas.info()["executors"]["cuda"]["available"]:
            raise ozblas.OzblasError("OZBLAS_ERR_EXECUTOR_UNAVAILABLE", "skip: GPU present")
        ozblas.matmul(c, c, executor="cuda")


def test_info_is_plain_dict():
    d = ozblas.info()
    assert set(d) >= {"version", "library", "executors", "config", "host_blas"}
    assert d["executors"]["cpu"]["available"] is True
    assert d["moduli"][:3] == [256, 255, 253]


def _child_matmul(q):
    a = make_matrix(300, 300, 1.0, seed=1)
    q.put(ozblas.matmul(a, a, method="ozaki2", executor="cpu", threads=2).tobytes())


def test_forked_child_after_parallel_regions():
    """libgomp's pool does not survive fork(): the child must not hang, and must compute
    the same bits (it runs the CPU executor on one thread)."""
    import multiprocessing as mp

    a = make_matrix(300, 300, 1.0, seed=1)
    want = ozblas.matmul(a, a, method="ozaki2", executor="cpu", threads=2)
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_child_matmul, args=(q,))
    p.start()
    got = q.get(timeout=60)  # before join: the child blocks until its result is read
    p.join(10)
    assert p.exitcode == 0, "child hung or failed"
    assert got == want.tobytes()


@pytest.mark.parametrize("sa,sb", [((0, 4, 3), (3, 2)), ((1, 4, 3), (0, 3, 2)), ((0, 4, 3), (0, 3, 2)),
                                   ((4, 3), (0, 3, 2)), ((0, 4, 3), (1, 3, 2))])
def test_empty_batches_broadcast_as_numpy(sa, sb):
    """Issue 13 row 3: an empty batch raised IndexError (nb = max(ba, bb), reps[0])."""
    a, b = np.ones(sa), np.ones(sb)
    c, info = ozblas.matmul(a, b, method="ozaki2", return_info=True)
    assert c.shape == np.matmul(a, b).shape and info["batch"] == 0
    assert info["method"] == "native" and info["fallback"] is None  # nothing computed
    assert ozblas.matmul(a, b).shape == c.shape
    with pytest.raises(ValueError, match="batch sizes"):
        ozblas.matmul(np.ones((2, 4, 3)), np.ones((0, 3, 2)))


def test_byte_orders_and_masked_arrays():
    """Issue 13 row 12: '>f8' was refused although dgemm and exact_matmul accept it; masked
    arrays had their masks dropped silently."""
    x = make_matrix(5, 5, 0.5, seed=3)
    want = ozblas.matmul(x, x, **EMU)
    for dt in (">f8", "<f8"):
        assert np.array_equal(bits(ozblas.matmul(x.astype(dt), x.astype(dt), **EMU)), bits(want))
    z = x + 1j * x
    assert np.array_equal(ozblas.matmul(z.astype(">c16"), z, **EMU), ozblas.matmul(z, z, **EMU))
    assert np.array_equal(exact_matmul(x.astype(">f8"), x), exact_matmul(x, x))
    with pytest.raises(TypeError, match="masked"):
        ozblas.matmul(np.ma.array(x, mask=x > 0), x)
    with pytest.raises(TypeError, match="float32"):
        ozblas.matmul(x.astype(np.float32), x)


def _entry_points():
    """(name, f(a, b, c) -> result arrays) for every array entry point, one product each."""
    return [
        ("matmul", lambda a, b, c: [ozblas.matmul(a, b, **EMU)]),
        ("matmul_dd", lambda a, b, c: list(ozblas.matmul_dd(a, b))),
        ("matmul_dd pairs", lambda a, b, c: list(ozblas.matmul_dd((a, a), (b, b)))),
        ("dgemm", lambda a, b, c: [ozblas.dgemm(0.5, a.real, b.real, -1.0, c.real, **EMU)]),
        ("zgemm", lambda a, b, c: [ozblas.zgemm(0.5, a, b, -1.0, c, trans_a=2, **EMU)]),
    ]


@pytest.mark.parametrize("name,f", _entry_points(), ids=[n for n, _ in _entry_points()])
@pytest.mark.parametrize("cplx", [False, True])
def test_every_entry_point_validates_inputs_alike(name, f, cplx):
    """Issue 24: one input check for every entry point. A masked array is refused as any
    operand (its mask would be dropped); big-endian operands give the native-order operands'
    bits."""
    dt = np.complex128 if cplx or name == "zgemm" else np.float64
    a = make_matrix(6, 6, 0.5, seed=1, dtype=dt)
    b = make_matrix(6, 6, 0.5, seed=2, dtype=dt)
    c = make_matrix(6, 6, 0.5, seed=3, dtype=dt)
    want = f(a, b, c)
    swapped = np.dtype(dt).newbyteorder(">")
    for which in range(3):
        args = [a, b, c]
        args[which] = args[which].astype(swapped)
        got = f(*args)
        assert all(np.array_equal(bits(g), bits(w)) for g, w in zip(got, want)), (name, which)
        if which == 2 and not name.endswith("gemm"):
            continue  # no c
        args = [a, b, c]
        args[which] = np.ma.array(args[which], mask=np.eye(6, dtype=bool))
        with pytest.raises(TypeError, match=f"^{'abc'[which]}.* is a masked array"):
            f(*args)


def test_dgemm_reads_arguments_as_scipy():
    """Issue 13 row 10: what scipy.linalg.blas.dgemm casts or accepts, ozblas.dgemm (and so
    scipy_hook) does too: array and complex scalars, complex operands (with NumPy's
    ComplexWarning), 1-D and 0-D operands, size-1 extra dimensions, any real dtype."""
    import warnings

    from scipy.linalg import blas

    a, b = make_matrix(2, 3, 0.5, seed=1), make_matrix(3, 4, 0.5, seed=2)
    c = make_matrix(2, 4, 0.5, seed=3)
    cases = [
        ("dgemm", (np.array([2.0]), a, b), {}), ("dgemm", (np.array([2.0, 3.0]), a, b), {}),
        ("dgemm", (2 + 1j, a, b), {}), ("dgemm", ("2", a, b), {}), ("dgemm", (1.0, a + 1j, b), {}),
        ("dgemm", (1.0, a, b, 1.0, c + 1j), {}), ("dgemm", (1.0, a, b, 1j, c), {}),
        ("dgemm", (1.0, a, np.arange(3.0)), {}), ("dgemm", (1.0, np.ones((1, 1, 3)), np.ones((1, 4))), {}),
        ("dgemm", (1.0, a[None], b), {}), ("dgemm", (1.0, a[:, :, None], b), {}),
        ("dgemm", (1.0, np.array(2.0), np.ones((1, 4))), {}), ("dgemm", (1.0, a.astype(int), b), {}),
        ("dgemm", (1.0, a > 0, b), {}), ("dgemm", (1.0, a.astype(np.float32), b), {}),
        ("dgemm", (1.0, a.astype(">f8"), b), {}), ("dgemm", (1.0, a.tolist(), b), {}),
        ("dgemm", (1.0, a.T, b), {"trans_a": True}), ("dgemm", (1.0, a.T, b), {"trans_a": 1.5}),
        ("dgemm", (1.0, np.ones((2, 1)), np.ones((1, 4)), 1.0, np.ones((2, 1, 4))), {}),
        ("zgemm", (np.array([2.0 + 1j]), a, b), {}), ("zgemm", (1, a, b, 1, c), {}),
        ("zgemm", (1j, a + 1j, b, 2.0, c), {"trans_b": 0}),
    ]
    for name, args, kw in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            want = getattr(blas, name)(*args, **kw)
            got = getattr(ozblas, name)(*args, **kw, method="native")
        assert got.shape == want.shape and got.dtype == want.dtype, (name, args, kw)
        np.testing.assert_allclose(got, want, rtol=1e-15, atol=0, err_msg=str((name, kw)))
    for bad in [dict(trans_a=3), dict(trans_a=-1), dict(trans_a="N")]:
        with pytest.raises(ValueError, match="trans_a"):
            ozblas.dgemm(1.0, a, b, **bad)
    with pytest.raises(ValueError):
        ozblas.dgemm(1.0, np.ones((2, 2, 3)), b)  # not 2-D once size-1 dimensions are dropped
    with pytest.raises(ValueError, match="c has shape"):
        ozblas.dgemm(1.0, a, b, 1.0, np.ones(8))
    with pytest.raises(TypeError, match="alpha"):
        ozblas.dgemm(None, a, b)


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("kw", [dict(method="native"), dict(method="ozaki1", slices=9),
                                dict(method="ozaki2", moduli=16), dict(method="auto"),
                                dict(accuracy="correct")])
def test_alpha_zero_reads_neither_a_nor_b(kw, cplx):
    """Issue 24: alpha = 0 is the reference BLAS's C := beta C on every method (A and B not
    referenced: NaN and Inf there do not leak, whatever the host kernel would give), beta = 0
    writes zeros without reading C, and alpha = 0 with beta = 1 leaves C as it is (NaN
    included). C's entries are small integers, so beta C is exact and the expected bits
    are known without any BLAS."""
    dt = np.complex128 if cplx else np.float64
    f = ozblas.zgemm if cplx else ozblas.dgemm
    a = np.full((6, 5), np.nan, dtype=dt)
    b = np.full((5, 4), np.inf, dtype=dt)
    c = np.arange(24, dtype=dt).reshape(6, 4) - 11.0 + (3j * np.ones((6, 4)) if cplx else 0)
    beta = (0.5 - 2j) if cplx else -2.5
    for ta in (0, 1, 2):
        aa = a if ta == 0 else np.full((5, 6), np.nan, dtype=dt)
        got, info = f(0.0, aa, b, beta, c, ta, return_info=True, **kw)
        np.testing.assert_array_equal(got, beta * c)
        assert info["method"] == "native" and info["int_gemms"] == 0
    zeros = f(0.0, a, b, 0.0, np.full((6, 4), np.nan, dtype=dt), **kw)
    assert np.all(zeros == 0) and not np.any(np.signbit(zeros.real) | np.signbit(zeros.imag))
    c_nan = c.copy()
    c_nan[2, 3] = np.nan
    got = f(0.0, a, b, 1.0, c_nan, **kw)
    assert np.array_equal(got, c_nan, equal_nan=True)
    # alpha = 0 given as -0.0 and (for zgemm) 0j is the same zero
    np.testing.assert_array_equal(f(-0.0, a, b, beta, c, **kw), beta * c)


def test_alpha_zero_in_place_and_leading_dimension():
    """alpha = 0 updates a Fortran-ordered c in place (overwrite_c), and through the C API
    honours ldc beyond the rows: the rows below m are not touched, A and B (NULL here) are
    not read."""
    from ozblas._native import ffi, lib
    from ozblas.api import _context, _options

    c = np.asfortranarray(np.arange(24.0).reshape(6, 4))
    want = 3.0 * c
    out = ozblas.dgemm(0.0, np.full((6, 3), np.nan), np.ones((3, 4)), 3.0, c, overwrite_c=1)
    assert out is c and np.array_equal(c, want)
    big = np.asfortranarray(np.arange(40.0).reshape(8, 5))
    before = big.copy()
    ptr = ffi.cast("double *", big.ctypes.data)
    null = ffi.NULL
    for method in ("native", "ozaki2"):
        big[:] = before
        st = lib.ozblas_dgemm(_context(), b"N", b"N", 6, 4, 3, 0.0, null, 6, null, 3, 3.0, ptr, 8,
                              _options(method, None, None, "cpu", None), ffi.NULL)
        assert st == 0
        np.testing.assert_array_equal(big[:6, :4], 3.0 * before[:6, :4])
        np.testing.assert_array_equal(big[6:, :], before[6:, :])
        np.testing.assert_array_equal(big[:, 4], before[:, 4])


def test_report_names_the_real_routine_and_states_no_bound_for_native():
    """Issue 13 row 14: a native result names the real routine ("host", as the trace says),
    and states no bound (it was inf after an exponent-range fallback)."""
    a = make_matrix(8, 8, 0.5, seed=1)
    _, info = ozblas.matmul(a, a, method="native", return_info=True)
    assert (info["executor"], info["blas"], info["bound"]) == ("cpu", "host", None)
    _, info = ozblas.matmul(a, a, **EMU, return_info=True)
    assert info["blas"] is None
    wide = a.copy()
    wide[0, 0], wide[0, 1] = 1e300, 1e-300  # one row spanning more than any count holds
    for method, count in (("ozaki1", {"slices": 20}), ("ozaki2", {"moduli": 20})):
        _, info = ozblas.matmul(wide, a, method=method, return_info=True, **count)
        assert info["fallback"] == "exponent range beyond the scaling" and info["bound"] is None, info
    _, info = ozblas.matmul(make_matrix(64, 64, 4.0, seed=1), make_matrix(64, 64, 4.0, seed=2),
                            method="ozaki2", return_info=True)
    if info["fallback"] == "no count meets DGEMM-level accuracy":  # the maximum count's, finite
        assert 0 < info["bound"] < 1


def test_info_says_auto_for_automatic_counts(monkeypatch):
    monkeypatch.delenv("OZBLAS_MODULI", raising=False)
    monkeypatch.delenv("OZBLAS_SLICES", raising=False)
    cfg = ozblas.info()["config"]
    assert cfg["moduli"] == "auto" and cfg["slices"] == "auto"
    monkeypatch.setenv("OZBLAS_MODULI", "14")
    assert ozblas.info()["config"]["moduli"] == 14


def test_a_device_list_without_cuda_is_refused():
    if ozblas.info()["executors"]["cuda"]["available"]:
        pytest.skip("a usable CUDA executor: tests/cuda/test_cuda_multi.py")
    a = np.ones((4, 4))
    with pytest.raises(ozblas.config.ConfigError, match="executor cuda:all: a device list needs the CUDA executor"):
        ozblas.matmul(a, a, executor="cuda:all")


def test_info_shows_device_lists(monkeypatch):
    for value, want in (("cuda:all", (0, "all")), ("cuda:2,0", (2, [0, 2])), ("cpu", (0, []))):
        monkeypatch.setenv("OZBLAS_DEVICE", value)
        cfg = ozblas.info()["config"]
        assert (cfg["device"], cfg["devices"]) == want, value
