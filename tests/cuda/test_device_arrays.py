"""CuPy (device) arrays through the Python API: results stay on the device, on the caller's
stream, and equal the CPU executor's bit for bit."""

import threading

import numpy as np
import pytest

import ozblas
from ozblas.testing import make_matrix

pytestmark = pytest.mark.gpu


def bits(x):
    return np.ascontiguousarray(x).view(np.uint64)


@pytest.fixture(scope="module")
def cp():
    return pytest.importorskip("cupy")


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("scaling", ["fast", "accurate"])
def test_matmul_device_arrays_equal_cpu(cp, cplx, scaling):
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(33, 70, 1.0, seed=1, dtype=dt)
    b = make_matrix(70, 17, 1.0, seed=2, dtype=dt)
    c_cpu = ozblas.matmul(a, b, method="ozaki2", moduli=14, scaling=scaling, executor="cpu")
    c_dev, info = ozblas.matmul(cp.asarray(a), cp.asarray(b), method="ozaki2", moduli=14, scaling=scaling,
                                return_info=True)
    assert isinstance(c_dev, cp.ndarray) and info["executor"] == "cuda"
    assert np.array_equal(bits(cp.asnumpy(c_dev)), bits(c_cpu))


@pytest.mark.parametrize("ta,tb", [(0, 0), (1, 0), (0, 2), (2, 1)])
def test_zgemm_device_transposes_alpha_beta(cp, ta, tb):
    a = make_matrix(9, 9, 1.0, seed=3, dtype=np.complex128)
    b = make_matrix(9, 9, 1.0, seed=4, dtype=np.complex128)
    c0 = make_matrix(9, 9, 1.0, seed=5, dtype=np.complex128)
    kw = dict(method="ozaki2", moduli=16)
    host = ozblas.zgemm(0.5 - 1j, a, b, 2 + 0.25j, c0, ta, tb, executor="cpu", **kw)
    dev = ozblas.zgemm(0.5 - 1j, cp.asarray(a), cp.asarray(b), 2 + 0.25j, cp.asarray(c0), ta, tb, **kw)
    assert isinstance(dev, cp.ndarray)
    assert np.array_equal(bits(cp.asnumpy(dev)), bits(host))


def test_non_default_stream(cp):
    a = make_matrix(500, 300, 0.5, seed=6)
    b = make_matrix(300, 400, 0.5, seed=7)
    host = ozblas.matmul(a, b, method="ozaki2", moduli=14, executor="cpu")
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        da, db = cp.asarray(a), cp.asarray(b)
        dc = ozblas.matmul(da, db, method="ozaki2", moduli=14)
        got = cp.asnumpy(dc, stream=stream)
    stream.synchronize()
    assert np.array_equal(bits(got), bits(host))


def test_threads_with_device_arrays(cp):
    results = {}

    def work(i):
        a = make_matrix(200, 150, 1.0, seed=10 + i)
        b = make_matrix(150, 120, 1.0, seed=20 + i)
        dev = cp.asnumpy(ozblas.matmul(cp.asarray(a), cp.asarray(b), method="ozaki2", moduli=15))
        results[i] = np.array_equal(bits(dev), bits(ozblas.matmul(a, b, method="ozaki2", moduli=15, executor="cpu")))

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert results == {0: True, 1: True, 2: True, 3: True}


def test_cpu_executor_refuses_device_arrays(cp):
    a = cp.ones((3, 3))
    with pytest.raises(ValueError, match="executor='cpu'"):
        ozblas.matmul(a, a, executor="cpu")


def test_device_arrays_tiled_then_refused_cleanly(cp):
    """Less device memory than the call needs, through the library's test-only cap on what a
    call plans with: device operands are tiled in place (k split too) with the CPU's bits;
    below the smallest tile the call fails with OZBLAS_ERR_DEVICE (no CPU fallback for
    device data)."""
    import ctypes

    lib = ctypes.CDLL(ozblas._native.library_path())
    lib.oz_cuda_test_cap_workspace.argtypes = [ctypes.c_size_t]
    lib.oz_cuda_test_last_plan.argtypes = [ctypes.POINTER(ctypes.c_int64)]
    plan = (ctypes.c_int64 * 9)()
    a = make_matrix(70, 150, 1.0, seed=1)
    b = make_matrix(150, 50, 1.0, seed=2)
    c0 = make_matrix(70, 50, 1.0, seed=3)
    kw = dict(method="ozaki2", moduli=14, scaling="accurate")
    want = ozblas.dgemm(1.5, a, b, 0.25, c0, executor="cpu", **kw)
    da, db = cp.asfortranarray(cp.asarray(a)), cp.asfortranarray(cp.asarray(b))
    split = refused = False
    cap = 1 << 20
    try:
        while cap > 256 and not refused:
            lib.oz_cuda_test_cap_workspace(cap)
            try:
                got = ozblas.dgemm(1.5, da, db, 0.25, cp.asfortranarray(cp.asarray(c0)), **kw)
            except ozblas.OzblasError as e:
                assert e.status == "OZBLAS_ERR_DEVICE"
                refused = True
                continue
            lib.oz_cuda_test_last_plan(plan)
            assert list(plan)[6:9] == [0, 0, 0]  # every operand in place
            if plan[5] > 1 and not split:
                split = True
                assert np.array_equal(bits(cp.asnumpy(got)), bits(want))
            cap = cap * 3 // 4
    finally:
        lib.oz_cuda_test_cap_workspace(0)
    assert split and refused
