"""Batched products through the C API (ozblas_dgemm_batched, ozblas_zgemm_batched) and
ozblas.matmul on 3-D stacks: every product equals the single call's bits, whatever the
strides (gaps, 0 for a shared operand, negative), transposes, alpha and beta; argument
errors, empty batches and the batch's report. The CPU executor runs the products one by one;
tests/cuda/test_cuda_batched.py checks the CUDA executor's batches against it."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ozblas
from ozblas.testing import make_matrix

from _compare import assert_same_bits, gemm_batched

CPU = dict(executor="cpu")


def _buffer(n, cplx, seed, phi=1.0):
    x = make_matrix(1, max(n, 1), phi, seed=seed, dtype=np.complex128 if cplx else np.float64)
    return np.ascontiguousarray(x.ravel())


def _span(rows, cols, ld, stride, nb):
    """Elements a batch of nb rows x cols matrices (leading dimension ld) spans, and the
    offset of the first one (a negative stride starts at the end)."""
    one = ld * max(cols - 1, 0) + rows if rows and cols else 0
    extent = one + abs(stride) * max(nb - 1, 0)
    return max(extent, 1), (abs(stride) * max(nb - 1, 0) if stride < 0 else 0)


def _case(cplx, ta, tb, m, n, k, nb, gaps, strides, seed):
    """Buffers and arguments of one batched call: leading dimensions with gaps, strides given
    as 'gap' (the matrix plus a gap), 0 (shared) or 'neg' (backwards with a gap)."""
    ra, ca = (m, k) if ta == "N" else (k, m)
    rb, cb = (k, n) if tb == "N" else (n, k)
    lda, ldb, ldc = max(ra, 1) + gaps[0], max(rb, 1) + gaps[1], max(m, 1) + gaps[2]
    sizes = (lda * ca, ldb * cb, ldc * n)
    ss = []
    for size, s, g in zip(sizes, strides, (3, 2, 5)):
        ss.append(0 if s == 0 else (size + g) * (-1 if s == "neg" else 1))
    bufs, offs = [], []
    for i, (rows, cols, ld, s) in enumerate(((ra, ca, lda, ss[0]), (rb, cb, ldb, ss[1]),
                                             (m, n, ldc, ss[2]))):
        span, off = _span(rows, cols, ld, s, nb)
        bufs.append(_buffer(span, cplx, seed + i))
        offs.append(off)
    return bufs, (lda, ldb, ldc), ss, tuple(offs)


def _both(cplx, ta, tb, m, n, k, alpha, beta, nb, gaps=(0, 0, 0), strides=("gap",) * 3,
          seed=1, nan_c=False, **opts):
    """The batched call and the single calls on copies of the same buffers: (status, C
    buffer, report) of each."""
    (a, b, c), (lda, ldb, ldc), (sa, sb, sc), offs = _case(cplx, ta, tb, m, n, k, nb, gaps,
                                                           strides, seed)
    if nan_c:
        c[:] = np.nan
    c1, c2 = c.copy(), c.copy()
    s1, r1 = gemm_batched(cplx, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c1, ldc,
                          sc, nb, offs, **opts)
    s2, r2 = gemm_batched(cplx, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c2, ldc,
                          sc, nb, offs, single=True, **opts)
    return (s1, c1, r1), (s2, c2, r2)


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("ta,tb", [("N", "N"), ("T", "N"), ("N", "C"), ("C", "T")])
@pytest.mark.parametrize("method", [dict(method="ozaki2"), dict(method="ozaki2", moduli=9,
                                                                  scaling="fast"),
                                    dict(method="ozaki1", slices=5), dict(method="native")])
def test_batched_equals_single_calls(cplx, ta, tb, method):
    (s1, c1, r1), (s2, c2, r2) = _both(cplx, ta, tb, 7, 5, 9, 0.75 - 0.5j if cplx else 0.75,
                                       1.25, 4, gaps=(1, 0, 2), **method, **CPU)
    assert s1 == s2 == 0
    assert_same_bits(c1, c2, "batched vs single")
    assert r1["method"] == method["method"] and r1["executor"] == "cpu"
    assert r1["int_gemms"] == sum(r["int_gemms"] for r in r2)


@pytest.mark.parametrize("strides", [(0, "gap", "gap"), ("gap", 0, "gap"), (0, 0, "gap"),
                                     ("neg", "gap", "neg"), ("gap", "neg", "gap")])
def test_strides_zero_and_negative(strides):
    (s1, c1, _), (s2, c2, _) = _both(False, "T", "N", 6, 4, 8, 1.0, -0.5, 3, strides=strides,
                                     method="ozaki2", moduli=12, **CPU)
    assert s1 == s2 == 0
    assert_same_bits(c1, c2, str(strides))


def test_beta_zero_never_reads_c_and_quick_returns():
    (s1, c1, _), (s2, c2, _) = _both(True, "N", "N", 5, 4, 3, 2.0, 0.0, 3, nan_c=True,
                                     method="ozaki2", **CPU)
    entries = [i * (5 * 4 + 5) + j * 5 + r for i in range(3) for j in range(4) for r in range(5)]
    assert s1 == 0 and not np.isnan(c1[entries]).any()
    assert np.isnan(np.delete(c1, entries)).all()  # the gaps between the C_i: untouched
    assert_same_bits(c1, c2, "beta = 0")
    # m = 0, n = 0 and alpha = 0 with beta = 1: nothing is read or written
    for m, n, alpha in ((0, 4, 1.0), (4, 0, 1.0), (3, 3, 0.0)):
        (s1, c1, r1), (s2, c2, _) = _both(False, "N", "N", m, n, 2, alpha, 1.0, 3, nan_c=True,
                                          method="ozaki2", **CPU)
        assert s1 == s2 == 0 and r1["method"] == "native"
        assert_same_bits(c1, c2, f"quick {m} {n} {alpha}")
    # k = 0: C := beta C
    (s1, c1, _), (s2, c2, _) = _both(False, "N", "N", 3, 3, 0, 1.0, 0.5, 2, method="ozaki2",
                                     **CPU)
    assert s1 == 0
    assert_same_bits(c1, c2, "k = 0")


def test_empty_batch_and_argument_errors():
    a, b, c = _buffer(64, False, 1), _buffer(64, False, 2), _buffer(64, False, 3)
    keep = c.copy()
    st, rep = gemm_batched(False, "N", "N", 4, 4, 4, 1.0, a, 4, 16, b, 4, 16, 0.0, c, 4, 16, 0,
                           method="ozaki2", **CPU)
    assert st == 0 and rep["method"] == "native" and rep["executor"] == "cpu"
    bad = ozblas._native.lib.OZBLAS_ERR_INVALID_ARGUMENT
    for args in (("N", "N", 4, 4, 4, 4, 4, 4, -1), ("X", "N", 4, 4, 4, 4, 4, 4, 2),
                 ("N", "N", 4, 4, 4, 3, 4, 4, 2), ("N", "T", 4, 4, 4, 4, 3, 4, 2),
                 ("N", "N", 4, 4, 4, 4, 4, 3, 2), ("N", "N", -1, 4, 4, 4, 4, 4, 2)):
        ta, tb, m, n, k, lda, ldb, ldc, nb = args
        st, _ = gemm_batched(False, ta, tb, m, n, k, 1.0, a, lda, 16, b, ldb, 16, 0.0, c, ldc,
                             16, nb, method="ozaki2", **CPU)
        assert st == bad, args
    assert_same_bits(c, keep, "an argument error changes nothing")


def test_report_merges_the_products():
    """Automatic precision chooses per product: the batch reports the largest count and
    bound, the bits over all products and the sums of int_gemms."""
    m = n = k = 12
    a = np.concatenate([make_matrix(m, k, phi, seed=3 + i).ravel(order="F")
                        for i, phi in enumerate((0.0, 4.0, 1.0))])
    b = np.concatenate([make_matrix(k, n, phi, seed=9 + i).ravel(order="F")
                        for i, phi in enumerate((0.0, 4.0, 1.0))])
    c = np.zeros(3 * m * n)
    st, rep = gemm_batched(False, "N", "N", m, n, k, 1.0, a, m, m * k, b, k, k * n, 0.0, c, m,
                           m * n, 3, method="ozaki2", **CPU)
    st2, reps = gemm_batched(False, "N", "N", m, n, k, 1.0, a, m, m * k, b, k, k * n, 0.0,
                             np.zeros_like(c), m, m * n, 3, single=True, method="ozaki2", **CPU)
    assert st == st2 == 0
    assert len({r["moduli"] for r in reps}) > 1  # the counts differ
    assert rep["moduli"] == max(r["moduli"] for r in reps)
    assert rep["bound"] == max(r["bound"] for r in reps)
    assert rep["int_gemms"] == sum(r["int_gemms"] for r in reps)
    assert rep["bits_a"] == (min(r["bits_a"][0] for r in reps), max(r["bits_a"][1] for r in reps))
    assert rep["fallback"] is None


def test_report_names_the_first_fallback():
    a = np.concatenate([make_matrix(6, 6, 1.0, seed=i).ravel(order="F") for i in range(3)])
    a[36 + 7] = np.inf  # the second product's A
    b = make_matrix(6, 6, 1.0, seed=5).ravel(order="F")
    c = np.zeros(3 * 36)
    st, rep = gemm_batched(False, "N", "N", 6, 6, 6, 1.0, a, 6, 36, b, 6, 0, 0.0, c, 6, 36, 3,
                           method="ozaki2", **CPU)
    assert st == 0
    assert rep["fallback"] == "nonfinite input" and rep["method"] == "native"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cplx=st.booleans(), ta=st.sampled_from("NTC"), tb=st.sampled_from("NTC"),
       m=st.integers(0, 9), n=st.integers(0, 9), k=st.integers(0, 9), nb=st.integers(0, 5),
       gaps=st.tuples(*[st.integers(0, 2)] * 3),
       strides=st.tuples(*[st.sampled_from(["gap", 0, "neg"])] * 2 + [st.sampled_from(["gap", "neg"])]),
       alpha=st.sampled_from([1.0, -2.5, 0.0]), beta=st.sampled_from([0.0, 1.0, 0.5]),
       method=st.sampled_from(["ozaki2", "native"]), seed=st.integers(0, 100))
def test_batched_property(cplx, ta, tb, m, n, k, nb, gaps, strides, alpha, beta, method, seed):
    (s1, c1, _), (s2, c2, _) = _both(cplx, ta, tb, m, n, k, alpha, beta, nb, gaps, strides,
                                     seed, nan_c=beta == 0.0, method=method, **CPU)
    assert s1 == s2 == 0
    assert_same_bits(c1, c2, "batched vs single")


# ---- ozblas.matmul on 3-D stacks ---------------------------------------------------------------


def _stack(nb, r, c, seed, dtype=np.float64):
    return np.stack([make_matrix(r, c, 1.0, seed=seed + i, dtype=dtype) for i in range(nb)])


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_matmul_stacks_equal_2d_products(dtype):
    a, b = _stack(4, 9, 7, 1, dtype), _stack(4, 7, 6, 11, dtype)
    cases = [(a, b), (a, b[:1]), (a[:1], b), (a, b[0]), (a[0], b), (a.transpose(0, 2, 1).copy()
                                                                   .transpose(0, 2, 1), b),
             (a[:, ::2, :], b), (a[::-1], b[::2].repeat(2, axis=0)), (np.asfortranarray(a), b)]
    for x, y in cases:
        for kw in (dict(method="ozaki2"), dict(method="ozaki2", moduli=8, scaling="fast")):
            got, info = ozblas.matmul(x, y, return_info=True, **kw, **CPU)
            assert got.shape == np.broadcast_shapes(x.shape[:-2], y.shape[:-2]) + (x.shape[-2], 6)
            assert info["batch"] == got.shape[0]
            for i in range(got.shape[0]):
                xi = x[i if x.ndim == 3 and x.shape[0] > 1 else 0] if x.ndim == 3 else x
                yi = y[i if y.ndim == 3 and y.shape[0] > 1 else 0] if y.ndim == 3 else y
                assert_same_bits(got[i], ozblas.matmul(xi, yi, **kw, **CPU), str(kw))


def test_matmul_empty_stacks():
    got, info = ozblas.matmul(np.zeros((0, 3, 4)), np.zeros((0, 4, 5)), return_info=True)
    assert got.shape == (0, 3, 5) and info["batch"] == 0 and info["method"] == "native"
    got = ozblas.matmul(np.ones((2, 3, 0)), np.ones((2, 0, 5)), method="ozaki2", **CPU)
    assert got.shape == (2, 3, 5) and not got.any()
    with pytest.raises(ValueError, match="batch sizes differ"):
        ozblas.matmul(np.ones((2, 3, 4)), np.ones((3, 4, 5)))
