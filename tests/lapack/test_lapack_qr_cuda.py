"""QR and the Level-3 products on the CUDA executor: the same bits as on the CPU executor
(host panels and host larft/trmm, every product an ozblas GEMM on the executor asked for).
Marked ``gpu``: runs where a CUDA executor is usable, and here on the CPU emulation of the
CUDA code (native/src/cuda/emu/run_emu_tests.py)."""

import numpy as np
import pytest

from ozblas import lapack as L

pytestmark = pytest.mark.gpu
NB = 8


def _mat(rng, n, m, dt):
    a = rng.standard_normal((n, m))
    return a + 1j * rng.standard_normal((n, m)) if dt == np.complex128 else a


@pytest.mark.parametrize("dt", [np.float64, np.complex128])
def test_qr_and_products_cuda_equal_cpu(rng, dt):
    m, n = 2 * NB + 5, 2 * NB + 1
    a, c, s = _mat(rng, m, n, dt), _mat(rng, m, 3, dt), _mat(rng, m, m, dt)
    runs = {}
    for ex in ("cpu", "cuda"):
        kw = dict(method="ozaki2", moduli=16, nb=NB, executor=ex)
        qr, tau, _, _ = L.geqrf(a, **kw)
        assert L.last_report()["executor"] == ex and L.last_report()["emulated"] > 0
        q, _, _ = L.orgqr(qr, tau, **kw)
        cq, _, _ = L.ormqr("L", "N" if dt == np.float64 else "C", qr, tau, c, **kw)
        y = (L.hemm if dt == np.complex128 else L.symm)(0.5, s, c, 2.0, c, lower=1, **kw)
        w = (L.her2k if dt == np.complex128 else L.syr2k)(0.5, c, c[::-1].copy(), 1.0, s, **kw)
        runs[ex] = (qr, tau, q, cq, y, w)
    bits = lambda u: np.ascontiguousarray(u).view(np.uint64)
    for u, v in zip(runs["cpu"], runs["cuda"]):
        assert np.array_equal(bits(u), bits(v))
