"""Parallel launchers (native/src/core/launcher.c): the local rank's GPU for
OZBLAS_DEVICE=auto, "%r" in trace paths, and two MPI ranks traced to their own files."""

import ctypes
import os
import re
import shutil
import subprocess
import sys

import pytest

import ozblas
from ozblas import _native

LOCAL = ["OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "LOCAL_RANK", "MPI_LOCALRANKID"]
GLOBAL = ["OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID", "RANK"]


@pytest.fixture
def lib(monkeypatch):
    for v in LOCAL + GLOBAL:
        monkeypatch.delenv(v, raising=False)
    c = ctypes.CDLL(_native.library_path())
    c.oz_expand_rank.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
    return c


@pytest.mark.parametrize("var", LOCAL)
def test_each_launchers_local_rank(lib, monkeypatch, var):
    assert lib.oz_launcher_local_rank() == -1
    monkeypatch.setenv(var, "3")
    assert lib.oz_launcher_local_rank() == 3


def test_local_rank_order_and_bad_values(lib, monkeypatch):
    for i, var in enumerate(LOCAL):
        monkeypatch.setenv(var, str(10 + i))
    for i, var in enumerate(LOCAL):  # the first set one wins, in docs/distributed.md's order
        assert lib.oz_launcher_local_rank() == 10 + i
        monkeypatch.delenv(var)
    for bad in ("", "x", "-1", "2x", " 1", "+1"):
        monkeypatch.setenv("LOCAL_RANK", bad)
        assert lib.oz_launcher_local_rank() == -1, bad


@pytest.mark.parametrize("var", GLOBAL)
def test_each_launchers_rank(lib, monkeypatch, var):
    assert lib.oz_launcher_rank() == -1
    monkeypatch.setenv(var, "17")
    assert lib.oz_launcher_rank() == 17


@pytest.mark.parametrize("local_rank, ndev, want", [
    (-1, 4, 0), (0, 4, 0), (1, 4, 1), (3, 4, 3), (4, 4, 0), (7, 4, 3), (5, 1, 0), (2, 0, 0)])
def test_local_rank_modulo_devices(lib, local_rank, ndev, want):
    assert lib.oz_auto_device_for(local_rank, ndev) == want


def test_device_for_options(lib, monkeypatch):
    o = _native.ffi.new("ozblas_options *")
    _native.lib.ozblas_options_init(o)
    o.executor, o.device = 2, 3  # cuda:3 is kept, whatever the launcher says
    monkeypatch.setenv("LOCAL_RANK", "1")
    assert _native.lib.ozblas_device_for(o) == 3
    o.executor = 0  # auto: the local rank modulo the usable devices
    ndev = len(ozblas.info()["driver"]["devices"]) if ozblas.info()["executors"]["cuda"]["available"] else 0
    assert _native.lib.ozblas_device_for(o) == (1 % ndev if ndev else 0)


@pytest.mark.gpu
def test_auto_runs_on_the_local_ranks_gpu(lib, monkeypatch):
    """A local rank beyond the device count wraps around (the emulation harness has one
    device: rank 3 takes device 0, where a rank used as an ordinal would fail)."""
    if not ozblas.info()["executors"]["cuda"]["available"]:
        pytest.skip("no usable CUDA executor (run it in the emulation harness or on a GPU)")
    import numpy as np

    from ozblas.testing import make_matrix

    a, b = make_matrix(40, 48, 1.0, seed=5), make_matrix(48, 36, 1.0, seed=6)
    want = ozblas.matmul(a, b, method="ozaki2", moduli=14, executor="cpu")
    o = _native.ffi.new("ozblas_options *")
    _native.lib.ozblas_options_init(o)
    for rank in (0, 1, 3):
        monkeypatch.setenv("OMPI_COMM_WORLD_LOCAL_RANK", str(rank))
        got, rep = ozblas.matmul(a, b, method="ozaki2", moduli=14, executor="auto",
                                 return_info=True)
        assert rep["executor"] == "cuda" and rep["fallback"] is None, rep
        np.testing.assert_array_equal(got, want)
        ndev = _native.lib.ozblas_device_for(o)  # executor auto
        assert 0 <= ndev and (rank > 0 or ndev == 0)


def _expand(lib, text, size=256):
    out = ctypes.create_string_buffer(size)
    ok = lib.oz_expand_rank(text.encode(), out, size)
    return out.value.decode() if ok else None


def test_rank_expansion(lib, monkeypatch):
    assert _expand(lib, "/t/trace.%r.log") == f"/t/trace.{os.getpid()}.log"
    monkeypatch.setenv("PMI_RANK", "12")
    assert _expand(lib, "/t/trace.%r.%r") == "/t/trace.12.12"
    assert _expand(lib, "no rank, 100%") == "no rank, 100%"
    assert _expand(lib, "%r", size=3) == "12" and _expand(lib, "%r", size=2) is None
    assert _expand(lib, "x" * 10, size=10) is None


_APP = "import numpy as np; a = np.ones((64, 64)); a @ a; np.dot(a, a)"


def _rank_env(tmp_path, rank_vars):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("OZBLAS_") and k != "LD_PRELOAD" and k not in LOCAL + GLOBAL}
    env.update(rank_vars)
    return env


def _trace_lines(path):
    return [l for l in path.read_text().splitlines() if l.startswith("ozblas-trace")]


def test_each_rank_traces_to_its_own_file(tmp_path):
    for rank in (0, 1):  # what mpirun sets for two ranks, without mpirun
        env = _rank_env(tmp_path, {"OMPI_COMM_WORLD_RANK": str(rank),
                                   "OMPI_COMM_WORLD_LOCAL_RANK": str(rank)})
        r = subprocess.run([sys.executable, "-m", "ozblas", "run", "--method", "ozaki2", "--min-size",
                            "0", "--trace", str(tmp_path / "t.%r.log"), "--", sys.executable, "-c",
                            _APP], env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
    for rank in (0, 1):
        lines = _trace_lines(tmp_path / f"t.{rank}.log")
        assert len(lines) == 2 and all("route=ozblas" in l for l in lines), lines
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.0.log", "t.1.log"]


def test_without_a_launcher_the_trace_is_per_process(tmp_path):
    env = _rank_env(tmp_path, {})
    code = _APP + "; import os; print(os.getpid())"
    r = subprocess.run([sys.executable, "-m", "ozblas", "run", "--method", "ozaki2", "--min-size", "0",
                        "--trace", str(tmp_path / "t.%r.log"), "--", sys.executable, "-c", code],
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    pid = r.stdout.split()[-1]
    assert len(_trace_lines(tmp_path / f"t.{pid}.log")) == 2


@pytest.mark.skipif(shutil.which("mpirun") is None, reason="mpirun not found (e.g. apt-get install openmpi-bin)")
def test_two_mpi_ranks_routed_and_traced_per_rank(tmp_path):
    env = _rank_env(tmp_path, {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                               "OMPI_MCA_rmaps_base_oversubscribe": "1"})
    r = subprocess.run(["mpirun", "-n", "2", sys.executable, "-m", "ozblas", "run", "--method",
                        "ozaki2", "--min-size", "0", "--trace", str(tmp_path / "t.%r.log"), "--",
                        sys.executable, "-c", _APP], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    pids = set()
    for rank in (0, 1):
        lines = _trace_lines(tmp_path / f"t.{rank}.log")
        assert len(lines) == 2 and all("route=ozblas" in l for l in lines), lines
        pids |= {re.search(r"pid=(\d+)", l).group(1) for l in lines}
    assert len(pids) == 2  # two processes, one file each


def _summary_head(path):
    return [l for l in path.read_text().splitlines() if l.startswith("ozblas summary (pid ")]


def test_each_rank_summarizes_to_its_own_file(tmp_path):
    """--summary=FILE (OZBLAS_SUMMARY_FILE): %r expanded as in the trace, appended to, the
    relative path taken in the directory ozblas run started in."""
    (tmp_path / "sub").mkdir()
    for rank in (0, 1, 1):  # rank 1 twice: appended
        env = _rank_env(tmp_path, {"SLURM_PROCID": str(rank)})
        r = subprocess.run([sys.executable, "-m", "ozblas", "run", "--method", "ozaki2", "--min-size",
                            "0", "--summary=s.%r.txt", "--", sys.executable, "-c",
                            "import os; os.chdir('sub'); " + _APP], env=env, cwd=tmp_path,
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0 and "ozblas summary" not in r.stderr, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.0.txt", "s.1.txt", "sub"]
    for rank, runs in ((0, 1), (1, 2)):
        text = (tmp_path / f"s.{rank}.txt").read_text()
        assert len(_summary_head(tmp_path / f"s.{rank}.txt")) == runs, text
        assert text.count("ozaki2/cpu") == runs and "2 BLAS calls" in text


def test_summary_to_a_fifo_without_reader_does_not_hang(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    env = _rank_env(tmp_path, {"OZBLAS_SUMMARY": "1", "OZBLAS_SUMMARY_FILE": str(fifo)})
    r = subprocess.run([sys.executable, "-m", "ozblas", "run", "--method", "ozaki2", "--min-size", "0",
                        "--", sys.executable, "-c", _APP], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and "(a FIFO without a reader); no summary" in r.stderr, r.stderr


_MPI_APP = """
import sys
import numpy as np
from mpi4py import MPI
comm = MPI.COMM_WORLD
a = np.full((64, 64), comm.rank + 1.0)
c = a @ a  # routed in each rank
total = comm.allreduce(float(c[0, 0]))
with open(f"out.{comm.rank}", "w") as f:  # not stdout: the ranks' lines may interleave
    f.write(f"{comm.size} {total}")
"""


def _mpi4py_missing():
    if shutil.which("mpirun") is None:
        return "mpirun not found (e.g. apt-get install openmpi-bin libopenmpi-dev)"
    r = subprocess.run([sys.executable, "-c", "import mpi4py"], capture_output=True)
    return "mpi4py not installed (pip install mpi4py)" if r.returncode else None


@pytest.mark.skipif(_mpi4py_missing() is not None, reason=str(_mpi4py_missing()))
def test_mpi4py_app_two_ranks_traced_and_summarized_per_rank(tmp_path):
    """mpirun -n 2 ozblas run --trace t.%r --summary=s.%r -- python app.py, with mpi4py."""
    (tmp_path / "app.py").write_text(_MPI_APP)
    env = _rank_env(tmp_path, {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                               "OMPI_MCA_rmaps_base_oversubscribe": "1"})
    r = subprocess.run(["mpirun", "-n", "2", sys.executable, "-m", "ozblas", "run", "--method", "ozaki2",
                        "--min-size", "0", "--trace", "t.%r", "--summary=s.%r", "--", sys.executable,
                        "app.py"], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    for rank in (0, 1):
        # rank r squares (r + 1) * ones(64): c[0, 0] = 64 (r + 1)^2, summed over both ranks
        assert (tmp_path / f"out.{rank}").read_text() == f"2 {64.0 * (1 + 4)}"
        lines = _trace_lines(tmp_path / f"t.{rank}")
        assert len(lines) == 1 and "route=ozblas" in lines[0] and "m=64 n=64 k=64" in lines[0], lines
        assert len(_summary_head(tmp_path / f"s.{rank}")) == 1
    pids = {re.search(r"pid=(\d+)", _trace_lines(tmp_path / f"t.{rank}")[0]).group(1) for rank in (0, 1)}
    assert len(pids) == 2
