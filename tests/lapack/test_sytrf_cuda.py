"""The Bunch-Kaufman driver's products on the CUDA executor: the same bits as on the CPU
executor (the panel is the driver's own C on the host, each update an ozblas GEMM on the
executor asked for). Marked ``gpu``: runs where a CUDA executor is usable, and here on the
CPU emulation of the CUDA code (native/src/cuda/emu/run_emu_tests.py).
"""

import numpy as np
import pytest

from ozblas import lapack as L

pytestmark = pytest.mark.gpu
NB = 8


@pytest.mark.parametrize("kind", ["d", "zsy", "zhe"])
def test_sytrf_family_cuda_equal_cpu(rng, kind):
    n = 2 * NB + 5
    a = rng.standard_normal((n, n)) + (1j * rng.standard_normal((n, n)) if kind != "d" else 0)
    a = a + (a.conj().T if kind == "zhe" else a.T)
    b = rng.standard_normal((n, 3)) + 0j * (kind != "d")
    p = "he" if kind == "zhe" else "sy"
    runs = {}
    for ex in ("cpu", "cuda"):
        kw = dict(method="ozaki2", moduli=16, nb=NB, executor=ex)
        out = []
        for lower in (0, 1):
            ldu, ipiv, _ = getattr(L, p + "trf")(a, lower=lower, **kw)
            assert L.last_report()["executor"] == ex and L.last_report()["emulated"] > 0
            x, _ = getattr(L, p + "trs")(ldu, ipiv, b, lower=lower, **kw)
            inv, _ = getattr(L, p + "tri")(ldu, ipiv, lower=lower, **kw)
            out += [ldu, ipiv, x, inv]
        runs[ex] = out
    bits = lambda u: np.ascontiguousarray(u).view(np.uint64) if u.dtype.kind in "fc" else u  # noqa: E731
    for u, v in zip(runs["cpu"], runs["cuda"]):
        assert np.array_equal(bits(u), bits(v))
