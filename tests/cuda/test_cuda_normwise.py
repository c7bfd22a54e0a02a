"""Automatic precision's normwise target (OZBLAS_TARGET_NORMWISE, numerics/ozaki2.h) on the
CUDA executor: the CPU executor's count, bound and bits (needs a CUDA GPU, or the CPU
emulation of the CUDA code: tests/cuda/emu)."""

import numpy as np
import pytest

import ozblas
from ozblas.api import _gemm, _options
from ozblas.testing import standard_normal

pytestmark = [pytest.mark.gpu]


def _graded(m, k, seed, cplx, span):
    rng = np.random.default_rng(seed)
    a = standard_normal(rng, (m, k)) * 2.0 ** rng.integers(-span, 1, (m, k)).astype(float)
    if cplx:
        e = rng.integers(-span, 1, (m, k)).astype(float)
        a = a + 1j * standard_normal(rng, (m, k)) * 2.0**e
    return a


def _run(a, b, executor, method, ta="N"):
    cplx = np.iscomplexobj(a)
    o = _options(method, "auto" if method == "ozaki2" else None, None, executor, None,
                 slices="auto" if method == "ozaki1" else None)
    o.target = ozblas._native.lib.OZBLAS_TARGET_NORMWISE
    m = a.shape[1] if ta != "N" else a.shape[0]
    c = np.zeros((m, b.shape[1]), dtype=a.dtype, order="F")
    rep = _gemm(1.0, a, b, 0.0, c, ta, "N", o, cplx)
    return c, rep


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("method", ["ozaki2", "ozaki1"])
@pytest.mark.parametrize("span", [0, 200])
@pytest.mark.parametrize("ta", ["N", "T"])
def test_normwise_cpu_equals_cuda(cplx, method, span, ta):
    a = _graded(37, 45, 3 + span, cplx, span)
    if ta == "T":
        a = np.asfortranarray(a.T)
        if cplx:
            ta = "C"
    b = _graded(45, 19, 4 + span, cplx, span)
    b[:, 3] = 0.0  # a zero column
    cc, rc = _run(a, b, "cpu", method, ta)
    cg, rg = _run(a, b, "cuda", method, ta)
    assert rc["fallback"] is None and rg["fallback"] is None
    assert rg["executor"] == "cuda"
    for key in ("moduli", "slices", "bound", "bits_a", "bits_b"):
        assert rc[key] == rg[key], key
    bits = lambda x: np.ascontiguousarray(x).view(np.uint64)  # noqa: E731
    assert np.array_equal(bits(cc), bits(cg))
