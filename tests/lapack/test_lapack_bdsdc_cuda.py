"""ozblas_dbdsdc and gesdd's divide and conquer (native/src/lapack/lapack_bdsdc.c) on the CUDA
executor: the merges' products staged from host memory, and U, VT as device pointers, give the
CPU executor's bits (automatic precision: with a fixed count a product whose rows span more
binades than the count covers runs natively, and native products are each executor's own).
Marked ``gpu``: runs where a CUDA executor is usable, and here on the CPU
emulation of the CUDA code (tests/cuda/emu/run_emu_tests.py).
"""

import numpy as np
import pytest
from test_lapack_bdsdc import _draw
from test_lapack_cuda import _bits, _host_and_device_runs

from ozblas import lapack as L
from ozblas._native import ffi, lib
from ozblas.api import _context, _options

pytestmark = pytest.mark.gpu
NB = 4


def _call(uplo, d, e, U, ldu, VT, ldvt, executor, rep):
    n = len(d)
    d, e = d.copy(), np.append(e, 0.0)
    info = ffi.new("int64_t *")
    c = lambda a: ffi.cast("double *", a.ctypes.data)  # noqa: E731
    st = lib.ozblas_dbdsdc(_context(), uplo, b"I", n, c(d), c(e), U, ldu, VT, ldvt, info, 0,
                           _options("ozaki2", None, None, executor, None, None, None), rep)
    assert st == 0 and info[0] == 0
    return d


@pytest.mark.parametrize("uplo", [b"U", b"L"])
@pytest.mark.parametrize("n,kind", [(60, "uniform"), (90, "clustered"), (77, "zero_diagonal")])
def test_dbdsdc_device_pointers_equal_cpu(n, kind, uplo):
    d, e = _draw(kind, n, np.random.default_rng(n))
    ld = n + 2
    rep = ffi.new("ozblas_lapack_report *")

    def calls(ptrs, ex):
        s = _call(uplo, d, e, ptrs[0], ld, ptrs[1], ld, ex, rep)
        assert rep.products > 0 and rep.emulated == rep.products
        return s, [rep.device]

    _host_and_device_runs(calls, [np.zeros((ld, n), order="F") for _ in range(2)])


@pytest.mark.parametrize("dt", [np.float64, np.complex128])
@pytest.mark.parametrize("shape", [(40, 40), (45, 33), (33, 45)])
def test_gesdd_divide_and_conquer_equal_cpu(dt, shape):
    rng = np.random.default_rng(list(shape))
    a = rng.uniform(-1, 1, shape)
    if dt == np.complex128:
        a = a + 1j * rng.uniform(-1, 1, shape)
    kw = dict(method="ozaki2", moduli=16, nb=NB, compute_uv=1, full_matrices=0)
    want = L.gesdd(a, executor="cpu", **kw)
    got = L.gesdd(a, executor="cuda", **kw)
    assert got[3] == want[3] == 0 and L.last_report()["executor"] == "cuda"
    for u, v in zip(want[:3], got[:3]):
        assert np.array_equal(_bits(u), _bits(v))
