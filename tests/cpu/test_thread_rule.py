"""How many threads the CPU executor gives a product (native/src/cpu/cpu_common.c,
oz_cpu_threads; docs/distributed.md, "Threads"): one per OZ_CPU_MIN_ELEMS_PER_THREAD elements
(m k + k n + m n, twice for complex) up to OZBLAS_NUM_THREADS, and a product below twice that
runs on the calling thread without entering an OpenMP region (no futex call)."""

import ctypes
import os
import shutil
import subprocess
import sys

import pytest

from ozblas import _native

PER = 32768  # OZ_CPU_MIN_ELEMS_PER_THREAD
_lib = ctypes.CDLL(str(_native.library_path()))
_min = _lib.oz_cpu_test_min_elements
_min.argtypes = [ctypes.c_int64]
_threads = _lib.oz_cpu_test_threads
_threads.argtypes = [ctypes.c_int64] * 3 + [ctypes.c_int]


@pytest.fixture
def rule():
    _min(-1)  # the rule as shipped (tests/conftest.py switches it off for the other tests)
    yield
    _min(0)


@pytest.mark.parametrize("m,n,k,cplx,cap,want", [
    (48, 48, 48, 0, 2, 1),          # the LAPACK layer's n = 48, nb = 8 products and below
    (48, 8, 48, 0, 2, 1),
    (100, 100, 100, 0, 2, 1),       # 30000 elements
    (100, 100, 100, 1, 2, 1),       # 60000 (complex counts twice)
    (120, 120, 120, 1, 2, 2),       # 86400
    (148, 148, 148, 0, 2, 2),       # 65712: the first square real product with two threads
    (147, 147, 147, 0, 2, 1),       # 64827
    (1024, 1024, 1024, 0, 2, 2),
    (1024, 1024, 1024, 0, 1, 1),
    (128, 128, 128, 0, 8, 1),       # 49152: one thread whatever the setting
    (256, 256, 256, 0, 8, 6),       # 196608 / 32768
    (4096, 4096, 4096, 0, 8, 8),
])
def test_threads_by_size(rule, monkeypatch, m, n, k, cplx, cap, want):
    monkeypatch.setenv("OZBLAS_NUM_THREADS", str(cap))
    assert _threads(m, n, k, cplx) == want


def test_switch_off_gives_every_product_its_threads(monkeypatch):
    monkeypatch.setenv("OZBLAS_NUM_THREADS", "2")
    assert _threads(8, 8, 8, 0) == 2  # the test process's setting (tests/conftest.py)


_FUTEX_SCRIPT = r"""
import sys, numpy as np, ozblas
a = np.random.default_rng(0).uniform(-1, 1, (64, 64))
ozblas.matmul(a, a, method="native")
for _ in range(int(sys.argv[1])):
    ozblas.matmul(a, a, method="ozaki2", executor="cpu", threads=2)
"""


def _futex_calls(products):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_WAIT_POLICY="PASSIVE")
    r = subprocess.run(["strace", "-f", "-c", "-e", "trace=futex", sys.executable, "-c",
                        _FUTEX_SCRIPT, str(products)], env=env, capture_output=True, text=True,
                       timeout=300)
    if r.returncode != 0 or "total" not in r.stderr:
        pytest.skip(f"strace cannot trace here: {r.stderr.strip()[-200:]}")
    return int(r.stderr.strip().splitlines()[-1].split()[3])  # % time, seconds, usecs/call, calls


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")
def test_small_products_make_no_futex_call():
    # 64 x 64 x 64 (12288 elements) with two threads asked for: each product with an OpenMP
    # region made dozens of futex calls (libgomp's barrier wake, even for a team of one)
    base, many = _futex_calls(0), _futex_calls(40)
    assert many - base < 10, (base, many)
