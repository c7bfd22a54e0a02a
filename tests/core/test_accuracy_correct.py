"""accuracy="correct" (core/exact_gemm.c through api.c): every entry of op(A) op(B) is the exact
product rounded once, bit for bit equal to the exact oracle (ozblas.testing.exact_matmul), on
the paper's inputs and adversarial families, d and z, every transpose; alpha and beta applied
as BLAS does; threads; refused combinations; special values."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ozblas
from ozblas import config
from ozblas.reference._common import update
from ozblas.testing import exact_matmul, make_matrix, standard_normal

TRANS = {0: lambda x: x, 1: lambda x: x.T, 2: lambda x: x.conj().T}


def bits(x):
    return np.ascontiguousarray(x).view(np.uint64)


def same(x, y):
    return x.shape == y.shape and np.array_equal(bits(x), bits(y))


def family(name, dtype, rng):
    """op(A), op(B) of one input family (small: the oracle is exact)."""
    m, k, n = 9, 17, 7
    cx = dtype == np.complex128

    def rand(r, c, phi=1.0):
        return make_matrix(r, c, phi, seed=int(rng.integers(1 << 30)), dtype=dtype)

    a, b = rand(m, k), rand(k, n)
    if name.startswith("phi"):
        phi = float(name[3:])
        a, b = rand(m, k, phi), rand(k, n, phi)
    elif name == "huge_column":
        a[:, 3] *= 2.0**300
    elif name == "zero_rows":
        a[[0, 4]] = 0
        b[:, 2] = 0
    elif name == "rows_2pm40":
        a *= np.exp2(rng.choice([-40.0, 0.0, 40.0], size=(m, 1)))
    elif name == "inner_2pm40":
        s = np.exp2(rng.choice([-40.0, 40.0], size=k))
        a, b = a * s, (b.T / s).T
    elif name == "vandermonde":
        a = np.vander(np.linspace(0.3, 3.1, m), k, increasing=True).astype(dtype)
        b = np.vander(np.linspace(-2.0, 1.5, n), k, increasing=True).T.astype(dtype)
    elif name == "hilbert":
        idx = np.arange(1, m + k + 1, dtype=float)
        a = (1.0 / (idx[:m, None] + idx[None, :k] - 1)).astype(dtype)
        b = (1.0 / (idx[:k, None] + idx[None, :n] - 1)).astype(dtype)
    elif name == "subnormal_and_overflow":
        a[0] *= 2.0**-1060
        a[1, :3] = [1e-310, 5e-324, -2e-320]
        b[:, 0] *= 2.0**-30
        a[2] *= 2.0**500
        b[:, 1] *= 2.0**515  # products near the top of the range, some beyond it
    elif name == "integers_2p50":
        a = rng.integers(-(2**50), 2**50, size=(m, k)).astype(dtype)
        b = rng.integers(-(2**50), 2**50, size=(k, n)).astype(dtype)
    elif name == "cancellation":  # row 0 of the product nearly cancels in every column
        for j in range(n):
            b[-1, j] = -(a[0, :-1] @ b[:-1, j]) / a[0, -1]
    if cx and name in ("vandermonde", "hilbert", "integers_2p50"):
        a = a + 1j * np.roll(a.real, 1, axis=1)
        b = b - 1j * np.roll(b.real, 1, axis=0)
    return a, b


FAMILIES = ["phi0", "phi0.5", "phi1", "phi2", "phi4", "phi8", "huge_column", "zero_rows",
            "rows_2pm40", "inner_2pm40", "vandermonde", "hilbert", "subnormal_and_overflow",
            "integers_2p50", "cancellation"]


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("name", FAMILIES)
def test_bit_identical_to_the_exact_oracle(name, dtype):
    rng = np.random.default_rng(abs(hash(name)) % (1 << 32))
    a, b = family(name, dtype, rng)
    want = exact_matmul(a, b)
    gemm = ozblas.zgemm if dtype == np.complex128 else ozblas.dgemm
    ts = (0, 1, 2) if dtype == np.complex128 else (0, 1)
    for ta in ts:
        for tb in ts:
            # stored so that op(stored) is a (resp. b)
            sa, sb = TRANS[ta](a).copy(), TRANS[tb](b).copy()
            c, info = gemm(1.0, sa, sb, trans_a=ta, trans_b=tb, method="ozaki2",
                           accuracy="correct", return_info=True)
            assert same(np.asarray(c), want), (name, ta, tb)
            assert info["accuracy"] == "correct" and info["fallback"] is None


def test_the_tie_case():
    a = np.array([[1.0, 2.0**-53 + 2.0**-70]])
    b = np.array([[1.0], [1.0]])
    c = ozblas.matmul(a, b, accuracy="correct")
    assert c[0, 0] == 1 + 2.0**-52
    c = ozblas.matmul(a, b, method="ozaki2", accuracy="correct")
    assert c[0, 0] == 1 + 2.0**-52


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_alpha_beta_as_blas(dtype):
    a = make_matrix(6, 8, 2, seed=1, dtype=dtype)
    b = make_matrix(8, 5, 2, seed=2, dtype=dtype)
    c0 = make_matrix(6, 5, 1, seed=3, dtype=dtype)
    alpha, beta = (0.7 - 0.3j, 1.1 + 0.2j) if dtype == np.complex128 else (0.7, -1.3)
    gemm = ozblas.zgemm if dtype == np.complex128 else ozblas.dgemm
    c = gemm(alpha, a, b, beta, c0.copy(), method="ozaki2", accuracy="correct")
    p = exact_matmul(a, b)
    want = update(p.real, p.imag, alpha, beta, c0, dtype == np.complex128)
    assert same(np.asarray(c), np.asarray(want))
    c = gemm(alpha, a, b, 0.0, np.full((6, 5), np.nan, dtype=dtype), accuracy="correct")
    assert not np.isnan(c).any()  # beta = 0 does not read C


def test_threads_and_method_auto():
    a = make_matrix(30, 200, 4, seed=5)
    b = make_matrix(200, 20, 4, seed=6)
    one = ozblas.matmul(a, b, accuracy="correct", threads=1)
    two, info = ozblas.matmul(a, b, accuracy="correct", threads=2, return_info=True)
    auto = ozblas.matmul(a, b, method="auto", accuracy="correct")
    assert same(one, two) and same(one, auto) and same(one, exact_matmul(a, b))
    assert info["method"] == "ozaki2" and info["bound"] == 2.0**-53


def test_cuda_executor_gives_the_same_bits():
    from ozblas._native import ffi, lib

    why = ffi.new("char[256]")
    if not lib.ozblas_executor_available(2, why, 256):
        pytest.skip(f"no CUDA executor: {ffi.string(why).decode()}")
    a = make_matrix(20, 40, 2, seed=7, dtype=np.complex128)
    b = make_matrix(40, 10, 2, seed=8, dtype=np.complex128)
    c_cpu = ozblas.matmul(a, b, accuracy="correct", executor="cpu")
    c_gpu = ozblas.matmul(a, b, accuracy="correct", executor="cuda")
    assert same(c_cpu, c_gpu) and same(c_cpu, exact_matmul(a, b))


def test_refused_combinations():
    a = np.ones((3, 3))
    for kw in ({"method": "native"}, {"method": "ozaki1"}, {"moduli": 14}, {"slices": 8},
               {"engine": "fp4"}):
        (key, value), = kw.items()
        with pytest.raises(config.ConfigError,
                           match=f"^accuracy='correct' cannot be combined with {key}='{value}'"):
            ozblas.matmul(a, a, accuracy="correct", **kw)
    with pytest.raises(config.ConfigError, match="accepted: dgemm, correct"):
        ozblas.matmul(a, a, accuracy="exact")
    assert config.from_env({"OZBLAS_ACCURACY": "correct"}).accuracy == "correct"
    assert config.from_env({}).accuracy == "dgemm"
    with pytest.raises(config.ConfigError, match="OZBLAS_ACCURACY"):
        config.from_env({"OZBLAS_ACCURACY": "Correct"})
    with pytest.raises(config.ConfigError, match=r"^OZBLAS_ACCURACY='correct' cannot be combined "
                                                 r"with OZBLAS_MODULI='16' \(a moduli count\)"):
        config.from_env({"OZBLAS_ACCURACY": "correct", "OZBLAS_MODULI": "16"})
    r = subprocess.run([sys.executable, "-m", "ozblas", "run", "--", sys.executable, "-c", "pass"],
                       env={**os.environ, "OZBLAS_ACCURACY": "correct", "OZBLAS_METHOD": "native"},
                       capture_output=True, text=True)
    assert r.returncode == 2 and "OZBLAS_METHOD='native'" in r.stderr, r.stderr


def test_special_values_follow_ieee():
    a = np.array([[1.0, np.inf, 2.0], [np.nan, 1.0, 0.0], [1.0, 2.0, 3.0]])
    b = np.array([[1.0, 0.0], [1.0, -1.0], [0.5, 2.0]])
    c = ozblas.matmul(a, b, accuracy="correct")
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(c, a @ b)
    big = np.array([[1e308, 1e308]])
    assert ozblas.matmul(big, np.array([[4.0], [4.0]]), accuracy="correct")[0, 0] == np.inf
    # the exact value cancels: correctly rounded 0 where a native DGEMM overflows to NaN
    assert ozblas.matmul(big, np.array([[4.0], [-4.0]]), accuracy="correct")[0, 0] == 0.0


def test_activated_routes_numpy_products():
    from pathlib import Path

    if not (Path(ozblas.__file__).parent / "libozblas_preload.so").exists():
        pytest.skip("no preload library in this build (the CUDA emulation build has none)")
    a = make_matrix(40, 50, 2, seed=9)
    b = make_matrix(50, 30, 2, seed=10)
    with ozblas.activated(accuracy="correct"):  # method auto, the default OZBLAS_MIN_SIZE
        c = a @ b
        s = a @ a.T  # DSYRK under NumPy
        small = a[:3, :4] @ b[:4, :2]
    assert same(c, exact_matmul(a, b))
    assert same(s, exact_matmul(a, a.T))
    assert same(small, exact_matmul(a[:3, :4], b[:4, :2]))


def test_explain_says_it(monkeypatch):
    monkeypatch.setenv("OZBLAS_ACCURACY", "correct")
    d = ozblas.explain(2048, 2048, 2048)
    assert d["accuracy"] == "correct" and "exact product" in d["reasons"][-1]


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), st.integers(1, 40), st.integers(1, 6), st.booleans(),
       st.sampled_from([0, 20, 200, 1000]), st.integers(0, 2**32 - 1))
def test_property_correctly_rounded(m, k, n, cx, spread, seed):
    rng = np.random.default_rng(seed)

    def mat(r, c):
        x = standard_normal(rng, (r, c)) * np.exp2(rng.integers(-spread, spread + 1, (r, c)))
        x[rng.random((r, c)) < 0.2] = 0.0
        return x + 1j * standard_normal(rng, (r, c)) if cx else x

    a, b = mat(m, k), mat(k, n)
    assert same(ozblas.matmul(a, b, accuracy="correct"), exact_matmul(a, b))


def test_preloaded_script_under_the_environment_variable(tmp_path):
    """An unmodified script under `ozblas run` with OZBLAS_ACCURACY=correct: every product
    (any size, method auto) is the exact one rounded once, and the trace says so."""
    script = tmp_path / "s.py"
    script.write_text(
        "import numpy as np\n"
        "from ozblas.testing import exact_matmul, make_matrix\n"
        "a, b = make_matrix(30, 20, 4, seed=1), make_matrix(20, 10, 4, seed=2)\n"
        "z = make_matrix(5, 6, 2, seed=3, dtype=np.complex128)\n"
        "ok = [np.array_equal(a @ b, exact_matmul(a, b)), np.array_equal(a @ a.T, exact_matmul(a, a.T)),\n"
        "      np.array_equal(z @ z.conj().T, exact_matmul(z, z.conj().T))]\n"
        "print(ok)\n")
    trace = tmp_path / "t.log"
    env = {**os.environ, "OZBLAS_ACCURACY": "correct", "OZBLAS_TRACE": str(trace)}
    r = subprocess.run([sys.executable, "-m", "ozblas", "run", "--", sys.executable, str(script)],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[True, True, True]"
    lines = trace.read_text().splitlines()
    assert len(lines) == 3 and all("route=ozblas" in x and "accuracy=correct" in x for x in lines)
