"""A product whose workspace cannot be allocated, at any point (tests/_faults.py fails each
allocation of the call in turn): computed natively as a whole, the report says why, C as
native DGEMM/ZGEMM leaves it (docs/lapack.md, "When memory runs out"). Under a memory
ulimit a large product falls back and the process survives."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ozblas
from _faults import sweep
from ozblas.testing import make_matrix

CASES = [dict(method="ozaki2"), dict(method="ozaki2", scaling="accurate"), dict(method="ozaki1"),
         dict(method="ozaki2", engine="fp4", moduli=8)]


@pytest.mark.parametrize("kw", CASES, ids=lambda k: "-".join(map(str, k.values())))
@pytest.mark.parametrize("cplx", [False, True])
def test_every_allocation_failing_gives_native(kw, cplx):
    dt = np.complex128 if cplx else np.float64
    a, b = make_matrix(33, 41, 1.0, seed=1, dtype=dt), make_matrix(41, 27, 1.0, seed=2, dtype=dt)
    c = make_matrix(33, 27, 1.0, seed=3, dtype=dt)
    f = ozblas.zgemm if cplx else ozblas.dgemm
    native = f(0.5, a, b, 0.25, c.copy(), method="native")
    emulated = f(0.5, a, b, 0.25, c.copy(), **kw)
    assert not np.array_equal(emulated, native)  # so that a half-emulated C would show
    for n, (got, info) in sweep(lambda: ozblas.matmul(a, b, return_info=True, executor="cpu",
                                                      **kw)):
        assert info["fallback"] == "workspace could not be allocated", (n, info)
        assert info["method"] == "native"
    for n, got in sweep(lambda: f(0.5, a, b, 0.25, c.copy(), **kw)):
        assert np.array_equal(got, native), n


_ULIMIT = r"""
import resource, sys, numpy as np, ozblas
n = 1500
a = np.random.default_rng(0).uniform(-1, 1, (n, n))
native = ozblas.matmul(a, a, method="native")
# the operands are here; now no more than about 150 MB of new address space (Ozaki II with
# 14 moduli wants several n x n workspaces of 8 bytes, about 18 MB each, and more)
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
used = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (used + 40 * 2**20, hard))
c, info = ozblas.matmul(a, a, method="ozaki2", executor="cpu", threads=1, return_info=True)
print(info["fallback"], np.array_equal(c, native), flush=True)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs /proc and RLIMIT_AS")
def test_a_memory_ulimit_falls_back_and_the_process_survives():
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(_ULIMIT)], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["workspace", "could", "not", "be", "allocated", "True"], r.stdout
    assert r.stderr.count("a workspace could not be allocated") == 1, r.stderr
