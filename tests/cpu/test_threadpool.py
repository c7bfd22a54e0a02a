"""threadpoolctl sees and limits the CPU executor (ozblas/_threadpool.py)."""

import json
import os
import subprocess
import sys

import pytest

threadpoolctl = pytest.importorskip("threadpoolctl", reason="threadpoolctl is not installed")
if not hasattr(threadpoolctl, "register"):
    pytest.skip("this threadpoolctl takes no third-party controllers", allow_module_level=True)

import ozblas  # noqa: E402
from ozblas import _native  # noqa: E402


def _ozblas_entries():
    return [d for d in threadpoolctl.threadpool_info() if d["internal_api"] == "ozblas"]


def test_listed_once_as_blas_after_import():
    entries = _ozblas_entries()
    assert len(entries) == 1, entries  # not a second time for libozblas_preload.so
    e = entries[0]
    assert e["user_api"] == "blas"
    assert os.path.realpath(e["filepath"]) == os.path.realpath(_native.library_path())
    assert e["version"] == ozblas.info()["version"]
    assert e["num_threads"] == _native.lib.ozblas_get_num_threads() >= 1


def test_listed_once_with_the_shim_loaded():
    with ozblas.activated(method="ozaki2"):
        assert len(_ozblas_entries()) == 1


def test_listed_in_a_process_activated_by_the_startup_hook():
    # OZBLAS_ACTIVATE=1: the .pth hook imports ozblas, which registers the controller
    code = ("import threadpoolctl, json; print(json.dumps([d['internal_api'] for d in "
            "threadpoolctl.threadpool_info()]))")
    env = dict(os.environ, OZBLAS_ACTIVATE="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert "ozblas" in json.loads(out.strip().splitlines()[-1])


def test_limits_and_restores():
    before = _native.lib.ozblas_get_num_threads()
    with threadpoolctl.threadpool_limits(1, user_api="blas"):
        assert _native.lib.ozblas_get_num_threads() == 1
        assert _ozblas_entries()[0]["num_threads"] == 1
    assert _native.lib.ozblas_get_num_threads() == before
    with threadpoolctl.threadpool_limits(limits={"libozblas": 1}):
        assert _native.lib.ozblas_get_num_threads() == 1


def test_cap_applies_to_explicit_thread_counts(monkeypatch):
    monkeypatch.setenv("OZBLAS_NUM_THREADS", "3")
    assert _native.lib.ozblas_get_num_threads() == 3
    with threadpoolctl.threadpool_limits(limits={"libozblas": 2}):
        assert _native.lib.ozblas_get_num_threads() == 2
    assert _native.lib.ozblas_get_num_threads() == 3


# In a fresh process, libgomp starts its worker threads at the first parallel region of
# more than one thread: a call limited to one thread starts none, an unlimited one does.
_THREADS_SCRIPT = r"""
import json, os, numpy as np, ozblas, threadpoolctl
tasks = lambda: len(os.listdir("/proc/self/task"))
a = np.random.default_rng(0).standard_normal((160, 160))  # above the one-thread size (cpu_common.c)
ozblas.matmul(a, a, method="native")  # the host BLAS's own threads, if it starts any
n0 = tasks()
with threadpoolctl.threadpool_limits(limits={"libozblas": 1}):
    ozblas.matmul(a, a, method="ozaki2", moduli=8, executor="cpu")
n1 = tasks()
ozblas.matmul(a, a, method="ozaki2", moduli=8, executor="cpu")
print(json.dumps([n0, n1, tasks()]))
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux /proc")
def test_limit_reaches_the_executor_calls():
    env = dict(os.environ, OZBLAS_NUM_THREADS="2", OMP_WAIT_POLICY="PASSIVE")
    out = subprocess.run([sys.executable, "-c", _THREADS_SCRIPT], env=env, capture_output=True,
                         text=True, timeout=120, check=True).stdout
    n0, n1, n2 = json.loads(out.strip().splitlines()[-1])
    assert n1 == n0, "a call limited to one thread started threads"
    assert n2 > n1, "the unlimited two-thread call started no OpenMP thread"
