"""The LAPACK layer's products on the CUDA executor: the same bits as on the CPU executor.

The drivers (native/src/lapack) run their panels on the host LAPACK and each update as an
ozblas GEMM on the executor asked for; the CUDA executor stages the host operands of each
product itself. Every emulated product equals the CPU executor's bit for bit, so the whole
factorization does. Marked ``gpu``: runs where a CUDA executor is usable, and here on the
CPU emulation of the CUDA code (native/src/cuda/emu/run_emu_tests.py).
"""

import numpy as np
import pytest

from ozblas import lapack as L

pytestmark = pytest.mark.gpu
NB = 8


def _mat(rng, n, m, dt):
    a = rng.standard_normal((n, m))
    return a + 1j * rng.standard_normal((n, m)) if dt == np.complex128 else a


@pytest.mark.parametrize("dt", [np.float64, np.complex128])
def test_drivers_cuda_equal_cpu(rng, dt):
    n = 2 * NB + 5
    a = _mat(rng, n, n, dt)
    s = a @ a.conj().T + n * np.eye(n)
    b = _mat(rng, n, 3, dt)
    runs = {}
    for ex in ("cpu", "cuda"):
        kw = dict(method="ozaki2", moduli=16, nb=NB, executor=ex)
        lu, piv, _ = L.getrf(a, **kw)
        assert L.last_report()["executor"] == ex and L.last_report()["emulated"] > 0
        c, _ = L.potrf(s, lower=True, **kw)
        x, _ = L.getrs(lu, piv, b, trans=2, **kw)
        y = L.trsm(1.0, np.triu(a) + 4 * np.eye(n), b.T.copy(), side=1, trans_a=1, **kw)
        inv, _ = L.getri(lu, piv, **kw)
        runs[ex] = (lu, piv, c, x, y, inv)
    bits = lambda u: np.ascontiguousarray(u).view(np.uint64) if u.dtype.kind in "fc" else u
    for u, v in zip(runs["cpu"], runs["cuda"]):
        assert np.array_equal(bits(u), bits(v))
