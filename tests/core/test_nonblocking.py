"""Nothing blocks (issue 13 row 2): the files ozblas opens, the calibration cache and the
trace, are opened non-blocking and checked. A FIFO (or a directory) where the cache belongs
is ignored with one warning; a trace that is a FIFO without a reader is disabled with one
warning. Each child has a timeout: a hang fails the test instead of stopping the suite."""

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")

AUTO_CALL = "import numpy as np, ozblas; print(ozblas.matmul(np.ones((300, 300)), np.ones((300, 300)))[0, 0])"


def _env(tmp_path, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_") and k != "LD_PRELOAD"}
    env.update(XDG_CACHE_HOME=str(tmp_path / "cache"), OMP_NUM_THREADS="1", **extra)
    return env


def _run(args, env, timeout=90):
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout)


def _cache_path(env, monkeypatch) -> str:
    from ozblas import policy

    monkeypatch.setenv("XDG_CACHE_HOME", env["XDG_CACHE_HOME"])  # the C code reads it per call
    return policy.machine()[1]


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_cache_that_is_not_a_regular_file_is_ignored_with_one_warning(tmp_path, kind, monkeypatch):
    env = _env(tmp_path)
    path = _cache_path(env, monkeypatch)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.mkfifo(path) if kind == "fifo" else os.mkdir(path)
    what = "a FIFO" if kind == "fifo" else "a directory"
    info = _run([sys.executable, "-m", "ozblas", "info"], env)
    assert info.returncode == 0, info.stderr
    assert f"is not a regular file ({what})" in info.stdout and "truncated" not in info.stdout
    call = _run([sys.executable, "-c", AUTO_CALL], env)  # method auto reads the cache
    assert call.returncode == 0 and call.stdout.strip() == "300.0", call.stderr
    assert call.stderr.count("is not a regular file") == 1, call.stderr
    if kind != "fifo":
        return
    shim = _run([sys.executable, "-m", "ozblas", "run", "--min-size", "0", "--", sys.executable, "-c",
                 "import numpy as np; a = np.ones((4, 4)); print((a @ a)[0, 0])"], env)
    assert shim.returncode == 0 and shim.stdout.strip() == "4.0", shim.stderr


def test_trace_fifo_without_reader_is_disabled_with_one_warning(tmp_path):
    fifo = tmp_path / "trace.fifo"
    os.mkfifo(fifo)
    env = _env(tmp_path)
    body = "import numpy as np; a = np.ones((4, 4)); print(sum((a @ a)[0, 0] for _ in range(3)))"
    p = _run([sys.executable, "-m", "ozblas", "run", "--method", "ozaki2", "--min-size", "0",
              "--trace", str(fifo), "--", sys.executable, "-c", body], env)
    assert p.returncode == 0 and p.stdout.strip() == "12.0", p.stderr
    assert p.stderr.count("a FIFO without a reader") == 1, p.stderr
    act = _run([sys.executable, "-c", "import numpy as np, ozblas, sys\n"
                f"ozblas.activate(trace={str(fifo)!r}, min_size=0)\n" + body.split("; ", 1)[1]], env)
    assert act.returncode == 0 and act.stdout.strip() == "12.0", act.stderr
    assert act.stderr.count("a FIFO without a reader") == 1, act.stderr
