"""One product over several GPUs (native/src/cuda/cuda_multi.cu): OZBLAS_DEVICE=cuda:all and
cuda:N,M,... give the one-device bits, which are the CPU executor's.

Marked ``gpu``. In the emulation harness, run with several emulated devices:

    OZ_EMU_DEVICES=3 python tests/cuda/emu/run_emu_tests.py /tmp/oe tests/cuda/test_cuda_multi.py -q

On a machine with one GPU, cuda:all runs on that one (the tests needing more devices skip).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ozblas
from ozblas.testing import exact_matmul, make_matrix

from _compare import assert_same_bits, cuda_state

_OK, _WHY = cuda_state()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not _OK, reason=f"CUDA executor unavailable: {_WHY}")]


def _device_count():
    """The devices the CUDA executor sees (emulated ones included): the one-device lists
    ozblas_devices_check accepts."""
    from ozblas._native import ffi, lib

    o = ffi.new("ozblas_options *")
    lib.ozblas_options_init(o)
    n = 0
    while n < 64:
        o.devices = 1 << n
        if lib.ozblas_devices_check(o, ffi.NULL, 0) != 0:
            break
        n += 1
    return n


NDEV = _device_count() if _OK else 0


def need(n):
    if NDEV < n:
        pytest.skip(f"needs {n} CUDA devices, {NDEV} here (emulated: OZ_EMU_DEVICES={n})")


def _op(x, t):
    return x if t == 0 else (x.T if t == 1 else x.conj().T)


def _gemm(dtype, executor, a, b, c, ta, tb, **kw):
    fn = ozblas.zgemm if dtype == np.complex128 else ozblas.dgemm
    return fn(0.75, a, b, -0.5, c.copy(), trans_a=ta, trans_b=tb, executor=executor,
              return_info=True, **kw)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("ta,tb", [(0, 0), (1, 2), (2, 1)])
@pytest.mark.parametrize("shape", [(40, 24, 100), (100, 24, 40)])  # column tiles, row tiles
def test_tiles_give_the_one_device_bits(dtype, ta, tb, shape):
    """alpha, beta, transposes (conjugate included), both split directions, automatic
    precision with accurate scaling (the bits of every row depend on every column)."""
    m, k, n = shape
    a0 = make_matrix(m, k, 2.0, seed=11, dtype=dtype)
    b0 = make_matrix(k, n, 2.0, seed=12, dtype=dtype)
    a, b = _op(a0, ta).copy(order="F"), _op(b0, tb).copy(order="F")  # op(a) = a0, op(b) = b0
    c = make_matrix(m, n, 0.0, seed=13, dtype=dtype)
    one, r1 = _gemm(dtype, "cuda:0", a, b, c, ta, tb, method="ozaki2")
    cpu, _ = _gemm(dtype, "cpu", a, b, c, ta, tb, method="ozaki2")
    many, rm = _gemm(dtype, "cuda:all", a, b, c, ta, tb, method="ozaki2")
    assert_same_bits(one, cpu, "cuda:0 vs cpu")
    assert_same_bits(many, one, "cuda:all vs cuda:0")
    for key in ("moduli", "scaling", "fallback", "bits_a", "bits_b", "bound", "int_gemms"):
        assert rm[key] == r1[key], (key, rm[key], r1[key])
    assert rm["executor"] == "cuda" and rm["devices"] == list(range(min(NDEV, 3))), rm
    exact = 0.75 * exact_matmul(a0, b0) - 0.5 * c
    scale = 0.75 * (np.abs(a0) @ np.abs(b0)) + 0.5 * np.abs(c)
    assert np.all(np.abs(many - exact) <= 1e-13 * scale)


@pytest.mark.parametrize("kw", [dict(method="ozaki2", moduli=9, scaling="fast"),
                                dict(method="ozaki1"), dict(method="ozaki1", slices=5,
                                                            variant="bitmask")])
def test_other_schemes_and_counts(kw):
    a, b = make_matrix(36, 40, 1.0, seed=3), make_matrix(40, 96, 1.0, seed=4)
    one, r1 = ozblas.matmul(a, b, executor="cuda:0", return_info=True, **kw)
    many, rm = ozblas.matmul(a, b, executor="cuda:all", return_info=True, **kw)
    assert_same_bits(many, one, str(kw))
    assert (rm["slices"], rm["moduli"], rm["fallback"]) == (r1["slices"], r1["moduli"], None)
    assert_same_bits(one, ozblas.matmul(a, b, executor="cpu", **kw), "cpu")


def test_a_device_list():
    need(3)
    a, b = make_matrix(40, 30, 1.0, seed=5), make_matrix(30, 80, 1.0, seed=6)
    one = ozblas.matmul(a, b, method="ozaki2", executor="cuda:0")
    for ex, used in (("cuda:0,2", [0, 2]), ("cuda:2,1", [1, 2])):
        got, rep = ozblas.matmul(a, b, method="ozaki2", executor=ex, return_info=True)
        assert_same_bits(got, one, ex)
        assert rep["devices"] == used, (ex, rep)


@pytest.mark.parametrize("n,tiles", [(40, 1), (70, 2)])
def test_fewer_tiles_than_devices(n, tiles):
    """Tiles are at least 32 columns (or rows) wide: a narrow product uses fewer devices."""
    need(3)
    a, b = make_matrix(20, 24, 1.0, seed=7), make_matrix(24, n, 1.0, seed=8)
    got, rep = ozblas.matmul(a, b, method="ozaki2", executor="cuda:all", return_info=True)
    assert rep["devices"] == list(range(tiles)), rep
    assert_same_bits(got, ozblas.matmul(a, b, method="ozaki2", executor="cpu"))


def test_a_missing_device_is_a_clear_error():
    a = make_matrix(8, 8, 0.0, seed=1)
    with pytest.raises(ozblas.config.ConfigError, match=f"device 63 is listed but this machine has {NDEV}"):
        ozblas.matmul(a, a, method="ozaki2", executor="cuda:0,63")


def test_quick_returns_and_native():
    a, b = np.zeros((0, 5)), np.ones((5, 70))
    assert ozblas.matmul(a, b, executor="cuda:all").shape == (0, 70)
    a = make_matrix(30, 20, 1.0, seed=2)
    b = make_matrix(20, 90, 1.0, seed=3)
    got, rep = ozblas.matmul(a, b, method="native", executor="cuda:all", return_info=True)
    assert rep["devices"] == [0] and np.allclose(got, exact_matmul(a, b), rtol=1e-13, atol=1e-13)


def test_local_rank_picks_the_device(monkeypatch):
    """OZBLAS_DEVICE=auto: the launcher's local rank modulo the devices (4 -> 1 of 3)."""
    need(3)
    a, b = make_matrix(20, 24, 1.0, seed=9), make_matrix(24, 20, 1.0, seed=10)
    for var in ("OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "LOCAL_RANK", "MPI_LOCALRANKID"):
        monkeypatch.delenv(var, raising=False)
    for rank, dev in ((0, 0), (2, 2), (4, 1)):
        monkeypatch.setenv("SLURM_LOCALID", str(rank))
        got, rep = ozblas.matmul(a, b, method="ozaki2", executor="auto", return_info=True)
        assert rep["devices"] == [dev], (rank, rep)
        assert_same_bits(got, ozblas.matmul(a, b, method="ozaki2", executor="cpu"))


def test_a_failing_device_loses_nothing():
    """Emulated only (OZ_EMU_DEVICES=3): device 2 cannot allocate. Its tile is redone on
    device 0; when the first device fails, the whole call runs on the CPU executor. Run in a
    fresh process: workspaces grown by earlier tests would need no allocation."""
    need(3)
    if "built for emulated" not in ozblas.info()["cuda"]:
        pytest.skip("needs the emulation harness (OZ_EMU_FAIL_DEVICE)")
    root = Path(__file__).resolve().parents[2]
    run = root / "tests" / "cuda" / "emu" / "run_emu_tests.py"
    dest = str(Path(ozblas.__file__).resolve().parents[1])
    env = dict(os.environ, OZ_TEST_FAILING_DEVICE_CHILD="1")
    r = subprocess.run([sys.executable, str(run), dest,
                        f"{Path(__file__).resolve()}::test_failing_device_child", "-q"],
                       cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and "1 passed" in r.stdout, r.stdout[-4000:] + r.stderr[-2000:]


def test_failing_device_child(monkeypatch):
    if os.environ.get("OZ_TEST_FAILING_DEVICE_CHILD") != "1":
        pytest.skip("run in a fresh process by test_a_failing_device_loses_nothing")
    a, b = make_matrix(64, 300, 1.0, seed=14), make_matrix(300, 99, 1.0, seed=15)
    c = make_matrix(64, 99, 1.0, seed=16)
    want, _ = _gemm(np.float64, "cpu", a, b, c, 0, 0, method="ozaki2")
    monkeypatch.setenv("OZ_EMU_FAIL_DEVICE", "2")  # larger than earlier tests: new workspaces
    got, rep = _gemm(np.float64, "cuda:all", a, b, c, 0, 0, method="ozaki2")
    assert rep["devices"] == [0, 1] and rep["executor"] == "cuda", rep
    assert_same_bits(got, want, "device 2 failed")
    monkeypatch.setenv("OZ_EMU_FAIL_DEVICE", "0")
    a, b = make_matrix(64, 400, 1.0, seed=14), make_matrix(400, 99, 1.0, seed=15)
    want, _ = _gemm(np.float64, "cpu", a, b, c, 0, 0, method="ozaki2")
    got, rep = _gemm(np.float64, "cuda:all", a, b, c, 0, 0, method="ozaki2")
    assert rep["executor"] == "cpu" and rep["devices"] == [], rep
    assert_same_bits(got, want, "device 0 failed")


@pytest.mark.parametrize("shape", [(40, 24, 100), (100, 24, 40)])  # column tiles, row tiles
def test_split_calls_give_the_one_device_bits(shape):
    """Issue 14: a call split by exponent band, each part (hi, lo pairs) spread as tiles."""
    need(2)
    m, k, n = shape
    s = np.ldexp(1.0, np.random.default_rng(4).integers(-150, 151, k))
    a = make_matrix(m, k, 0.5, seed=5) * s[None, :]
    b = make_matrix(k, n, 0.5, seed=6) / s[:, None]
    many, rm = ozblas.matmul(a, b, method="ozaki2", executor="cuda:all", return_info=True)
    cpu, rp = ozblas.matmul(a, b, method="ozaki2", executor="cpu", return_info=True)
    assert rp["split_parts"] >= 2 and rm["split_parts"] == rp["split_parts"], (rm, rp)
    assert len(rm["devices"]) >= 2, rm
    assert_same_bits(many, cpu, "cuda:all vs cpu")


@pytest.mark.parametrize("ta", [0, 2])
def test_a_hermitian_product_over_devices_gives_the_cpu_bits(ta):
    """op(A) op(A)^H from one array (the driver's Hermitian case): the whole product's equal
    bits on both sides reach every device's tile (a tile is no Hermitian product itself)."""
    need(2)
    a = np.asfortranarray(make_matrix(*((90, 24) if ta == 0 else (24, 90)), 2.0, seed=14,
                                      dtype=np.complex128))
    c = np.zeros((90, 90), dtype=np.complex128, order="F")
    kw = dict(method="ozaki2", scaling="accurate")
    cpu, rp = _gemm(np.complex128, "cpu", a, a, c, ta, 2 - ta, **kw)
    many, rm = _gemm(np.complex128, "cuda:all", a, a, c, ta, 2 - ta, **kw)
    assert rp["complex_products"] == 1
    assert_same_bits(many, cpu, "cuda:all vs cpu")
    for key in ("moduli", "bits_a", "bits_b", "bound"):
        assert rm[key] == rp[key], key
