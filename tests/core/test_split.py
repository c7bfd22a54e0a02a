"""Calls split by exponent band (core/driver_split.c, issue 14): where automatic precision
finds no count for the whole call, the forced method still emulates it, as parts with their
own scalings and counts summed in double-double and rounded once. Against the exact oracle:
err_ab <= max(native's, 2u), the stated bound above the error against the unrounded product
(matmul_dd), the report says how many parts. CPU executor; tests/cuda has GPU == CPU."""

import numpy as np
import pytest

import ozblas
from ozblas.testing import err_ab, exact_matmul, make_matrix

from _compare import dd_error, native_error

U = 2.0**-53
M, K, N = 8, 32, 6


def wide(name, span=0, cplx=False, seed=0):
    """Inputs whose small elements matter across many binades."""
    rng = np.random.default_rng(seed)
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(M, K, 0.5, seed=seed + 1, dtype=dt)
    b = make_matrix(K, N, 0.5, seed=seed + 2, dtype=dt)
    if name == "inner":  # rows of op(A), columns of op(B) spanning `span` binades each
        s = np.ldexp(1.0, rng.integers(-span // 2, span // 2 + 1, K))
        a, b = a * s[None, :], b / s[:, None]
    elif name == "one_row":  # row 0 from subnormal to near overflow, every product counting
        e = np.linspace(-1074, 1020, K).astype(int)
        a[0] = np.ldexp(1.0, e) * (1 + rng.random(K))
        b = b * np.ldexp(1.0, np.clip(-e - 40, -1074, 1000))[:, None]
    elif name == "huge_element":  # 2^1000 meeting zeros but for one 2^-1000, among zeros
        a[rng.random(a.shape) < 0.3] = 0
        b[rng.random(b.shape) < 0.3] = 0
        a[3, 5] = 2.0**1000
        b[5, :] = 0
        b[5, 2] = 2.0**-1000
    return a, b


def count(method):
    return {"moduli": "auto"} if method == "ozaki2" else {"slices": "auto"}


CASES = [("inner", 150), ("inner", 300), ("inner", 600), ("inner", 2000), ("one_row", 0),
         ("huge_element", 0)]


@pytest.mark.parametrize("cplx", [False, True], ids=["d", "z"])
@pytest.mark.parametrize("name,span", CASES)
@pytest.mark.parametrize("method", ["ozaki2", "ozaki1"])
def test_split_call_is_dgemm_level_with_a_true_bound(method, name, span, cplx):
    a, b = wide(name, span, cplx)
    c, info = ozblas.matmul(a, b, method=method, executor="cpu", return_info=True,
                            **count(method))
    assert info["fallback"] is None and info["method"] == method, info
    assert info["split_parts"] >= (2 if name == "inner" else 1), info
    exact = exact_matmul(a, b)
    err = err_ab(c, exact, a, b)
    assert err <= max(native_error(a, b, exact), 2 * U), (err, info)
    assert dd_error(c, a, b) <= info["bound"], info
    assert info["int_gemms"] >= info["split_parts"]


def parts_apart(off, seed=0, zeros=True):
    """Complex operands whose imaginary parts lie `off` binades below their real parts (op(B)'s
    real parts below its imaginary ones), with zeros so that some entries of |A||B| are
    exactly 0 (their row's and column's supports do not meet): automatic precision can prove
    those exact only where each row's exponent span is narrow, which a tiny part beside a
    large one in one element defeats (issue 24: such calls fell back to native)."""
    rng = np.random.default_rng(seed)
    a = make_matrix(M, K, 0.5, seed=seed + 1, dtype=np.complex128)
    b = make_matrix(K, N, 0.5, seed=seed + 2, dtype=np.complex128)
    a.imag = np.ldexp(a.imag, -off)
    b.real = np.ldexp(b.real, -off)
    if zeros:
        a[0, K // 2:] = 0
        b[:K // 2, 0] = 0
        a[rng.random(a.shape) < 0.2] = 0
        b[rng.random(b.shape) < 0.2] = 0
    return a, b


@pytest.mark.parametrize("off", [100, 600, 1000, 1060])
@pytest.mark.parametrize("method", ["ozaki2", "ozaki1"])
def test_complex_parts_far_apart_split(method, off):
    """The split bands a complex element's real and imaginary parts apart (issue 24), so these
    finite inputs are emulated (split), DGEMM-level, within the stated bound."""
    for seed in range(3):
        a, b = parts_apart(off, seed)
        c, info = ozblas.matmul(a, b, method=method, executor="cpu", return_info=True,
                                **count(method))
        assert info["fallback"] is None and info["method"] == method, info
        exact = exact_matmul(a, b)
        assert err_ab(c, exact, a, b) <= max(native_error(a, b, exact), 2 * U), info
        assert dd_error(c, a, b) <= info["bound"], info
    assert info["split_parts"] >= (2 if off >= 600 else 0), info  # 100: a count covers it


def test_the_whole_call_had_no_count():
    """The split is what makes these emulated: the same call with the largest count given
    explicitly keeps today's behaviour (elements lost entirely: native, nothing split)."""
    a, b = wide("inner", 300)
    _, info = ozblas.matmul(a, b, method="ozaki2", moduli=49, executor="cpu", return_info=True)
    assert info["fallback"] == "exponent range beyond the scaling" and info["split_parts"] == 0
    _, info = ozblas.matmul(a, b, method="ozaki1", slices=40, executor="cpu", return_info=True)
    assert info["fallback"] == "exponent range beyond the scaling" and info["split_parts"] == 0
    _, info = ozblas.matmul(a[:, :1], b[:1], method="ozaki2", executor="cpu", return_info=True)
    assert info["split_parts"] == 0  # one inner index: nothing to split, no fallback


@pytest.mark.parametrize("method", ["ozaki2", "ozaki1"])
def test_nonfinite_inputs_stay_native(method):
    a, b = wide("inner", 600)
    a[1, 2] = np.nan
    c, info = ozblas.matmul(a, b, method=method, executor="cpu", return_info=True)
    assert info["fallback"] == "nonfinite input" and info["split_parts"] == 0, info
    assert np.array_equal(np.isnan(c), np.isnan(a @ b))


@pytest.mark.parametrize("cplx", [False, True], ids=["d", "z"])
@pytest.mark.parametrize("ta,tb", [(0, 0), (1, 0), (0, 1), (2, 2), (1, 2)])
def test_transposes_and_alpha_beta_applied_once(ta, tb, cplx):
    """op(A) op(B) split the same whatever the storage; alpha and beta applied once to the
    rounded sum, as the executors apply them, and beta = 0 never reads C."""
    a, b = wide("inner", 600, cplx, seed=3)
    fn = ozblas.zgemm if cplx else ozblas.dgemm
    alpha, beta = (1.5 - 0.25j, -0.5 + 2j) if cplx else (1.5, -0.5)
    def stored(x, t):  # op(stored) = x
        return np.asfortranarray(x if t == 0 else x.T if t == 1 or not cplx else x.conj().T)

    sa, sb = stored(a, ta), stored(b, tb)
    x = np.asfortranarray(ozblas.matmul(a, b, method="ozaki2", executor="cpu"))
    c0 = np.asfortranarray(make_matrix(M, N, 0, seed=9, dtype=a.dtype))
    got, info = fn(alpha, sa, sb, beta, c0.copy(order="F"), ta, tb, method="ozaki2",
                   executor="cpu", return_info=True)
    assert info["fallback"] is None and info["split_parts"] >= 2, info
    if cplx:  # oz_update_complex's operations
        tr = alpha.real * x.real - alpha.imag * x.imag
        ti = alpha.real * x.imag + alpha.imag * x.real
        want = (tr + (beta.real * c0.real - beta.imag * c0.imag)) + 1j * (
            ti + (beta.real * c0.imag + beta.imag * c0.real))
    else:
        want = alpha * x + beta * c0
    assert np.array_equal(got, want)
    nan_c = np.full((M, N), np.nan, dtype=a.dtype, order="F")
    got0 = fn(1.0, sa, sb, 0.0, nan_c, ta, tb, method="ozaki2", executor="cpu")
    assert np.array_equal(got0, x)


def test_threads_give_the_same_bits():
    a, b = wide("one_row", cplx=True)
    one = ozblas.matmul(a, b, method="ozaki2", executor="cpu", threads=1)
    two = ozblas.matmul(a, b, method="ozaki2", executor="cpu", threads=2)
    assert np.array_equal(np.ascontiguousarray(one).view(np.uint64),
                          np.ascontiguousarray(two).view(np.uint64))


@pytest.fixture
def profile():
    """Dispatch on an injected profile (as tests/core/test_policy.py), restored afterwards."""
    from ozblas import policy

    yield lambda **kw: policy.set_local(policy.PROFILES["cpu"].replace(**kw))
    policy.set_local(None)


def test_method_auto_splits_only_where_the_parts_beat_native(profile):
    """Method auto sums the parts' predicted times (core/policy_model.c) against native."""
    a, b = wide("inner", 600)
    profile(cpu_int_gemm=1e16, cpu_pass_bw=1e13, host_dgemm=1e8, cpu_call_s=1e-7)
    c, info = ozblas.matmul(a, b, method="auto", executor="cpu", return_info=True)
    assert info["method"] == "ozaki2" and info["split_parts"] >= 2, info
    exact = exact_matmul(a, b)
    assert err_ab(c, exact, a, b) <= max(native_error(a, b, exact), 2 * U)
    # emulation only just faster than native for one product: the parts are not
    profile(host_dgemm=1e9, cpu_int_gemm=1.2e13, cpu_pass_bw=1.2e11, cpu_call_s=2e-6)
    _, one = ozblas.matmul(make_matrix(M, K, 0.5, seed=1), make_matrix(K, N, 0.5, seed=2),
                           method="auto", executor="cpu", return_info=True)
    assert one["method"] == "ozaki2", one
    c, info = ozblas.matmul(a, b, method="auto", executor="cpu", return_info=True)
    assert info["fallback"] == "auto chose native" and info["split_parts"] == 0, info
    assert np.array_equal(c, a @ b)
