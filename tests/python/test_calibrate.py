"""Calibration (ozblas.calibrate) and its cache, read and written by the C library only.

Every test points XDG_CACHE_HOME at its own directory and makes this process forget the local
profile before and after, so no test sees the user's cache or another test's. Calibrations run
with one thread (here and in child processes): on a machine shared with other work two-thread
BLAS calls stall unpredictably, which is the calibration's guard's business (tested on its
own), not these tests'."""

import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import ozblas
from ozblas import calibrate, policy

POLICY_DOCS = Path(__file__).resolve().parents[2] / "docs" / "policy.md"


ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "OZBLAS_NUM_THREADS": "1"}


@pytest.fixture(autouse=True)
def one_thread(monkeypatch):
    from threadpoolctl import threadpool_limits

    monkeypatch.setenv("OZBLAS_NUM_THREADS", "1")  # the CPU executor reads it per call
    with threadpool_limits(1, user_api="blas"):
        yield


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("OZBLAS_DEVICE", raising=False)
    policy.set_local(None)
    yield tmp_path
    policy.set_local(None)


@pytest.fixture(scope="module")
def measured():
    """One quick calibration of this machine, shared by the tests that only read it."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1, user_api="blas"):
        old = os.environ.get("OZBLAS_NUM_THREADS")
        os.environ["OZBLAS_NUM_THREADS"] = "1"
        try:
            return calibrate.measure(quick=True, progress=False)
        finally:
            if old is None:
                del os.environ["OZBLAS_NUM_THREADS"]
            else:
                os.environ["OZBLAS_NUM_THREADS"] = old


def test_implausible_host_rates_are_measured_again(monkeypatch):
    good = {"host_dgemm": 60e9, "host_zgemm": 62e9, "cpu_int_gemm": 117e9, "cpu_pass_bw": 3e9,
            "cpu_call_s": 1e-6}
    stalled = dict(good, host_dgemm=5e9)  # a DGEMM slowed down by other load
    assert calibrate._implausible(good) is None
    assert "SGEMM" in calibrate._implausible(stalled)
    assert "ZGEMM" in calibrate._implausible(dict(good, host_zgemm=10e9))
    # what OpenBLAS's own kernels give (Sandybridge's ZGEMM, Prescott's and Zen's DGEMM) is no
    # disturbance: issue 24
    assert calibrate._implausible(dict(good, host_zgemm=0.26 * 60e9)) is None
    assert calibrate._implausible(dict(good, cpu_int_gemm=3.8 * 60e9)) is None
    results = [stalled, good]
    monkeypatch.setattr(calibrate, "_host", lambda *a: dict(results.pop(0)))
    p, details = calibrate.measure(quick=True, progress=False)
    assert p.host_dgemm == 60e9 and len(details["host_retries"]) == 1
    monkeypatch.setattr(calibrate, "_host", lambda *a: dict(stalled))
    with pytest.raises(calibrate.CalibrationError, match="3 times.*one thread"):
        calibrate.measure(quick=True, progress=False)


def _write_valid(measured):
    ident, path = policy.machine()
    policy.write_cache(measured[0], path, ident)
    return Path(path)


def test_cache_path_is_per_machine_under_xdg(cache_home, monkeypatch):
    ident, path = policy.machine()
    assert path.startswith(str(cache_home / "ozblas") + "/") and path.endswith(".txt")
    assert ident["version"] == ozblas.__version__ and ident["host"]
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(cache_home / "home"))
    assert policy.machine()[1].startswith(str(cache_home / "home" / ".cache" / "ozblas"))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")  # invalid per the XDG spec: ignored
    assert policy.machine()[1].startswith(str(cache_home / "home" / ".cache" / "ozblas"))


def test_quick_calibration_writes_a_cache_c_reads_back(cache_home):
    p, path, details = calibrate.calibrate(quick=True, progress=False)
    assert details is not None and details["seconds"] < 10 and os.path.exists(path)
    assert p.calibrated and p.name == "local" and not p.has_device
    for f in ("host_dgemm", "host_zgemm", "cpu_int_gemm", "cpu_pass_bw", "cpu_call_s"):
        assert 0 < getattr(p, f) < 1e16
    # what the C library's dispatcher uses is that file, to the digits written
    local, note = policy.load_profile()
    assert local.calibrated and note.startswith("calibrated") and path in note
    assert local.host_dgemm == pytest.approx(p.host_dgemm, rel=1e-6)
    assert os.listdir(Path(path).parent) == [Path(path).name]  # atomic: no temporary left
    # a second run finds it and measures nothing
    p2, path2, details2 = calibrate.calibrate(quick=True, progress=False)
    assert details2 is None and path2 == path and p2 == p
    # --force measures again
    assert calibrate.calibrate(force=True, quick=True, progress=False)[2] is not None


def test_auto_is_native_here_with_the_calibrated_cpu_profile(cache_home, measured):
    """On this CPU-only machine the CPU executor's emulation is far slower than the host's
    DGEMM: the calibrated profile must say native at every typical size, and dispatch follow."""
    if ozblas.info()["executors"]["cuda"]["available"]:
        pytest.skip("a CUDA executor is present")
    _write_valid(measured)
    p, _ = policy.load_profile()
    assert p.calibrated
    for n in (64, 256, 1024, 4096, 16384):
        c = policy.estimate(n, n, n, "d", "host", p)
        native = next(x for x in c if x["name"] == "native host")
        emu = min(x["seconds"] for x in c if x["method"] != "native")
        assert emu > 3 * native["seconds"], n
        assert policy.choose(n, n, n, "d", "host", p)["method"] == "native"
    assert policy.crossover(p, "d", "host") is None and policy.crossover(p, "z", "host") is None
    a = np.asfortranarray(np.random.default_rng(0).random((512, 512)))
    _, info = ozblas.matmul(a, a, method="auto", return_info=True)
    assert info["method"] == "native" and info["fallback"] == "auto chose native"


def _mutations(text):
    lines = text.splitlines(keepends=True)
    drop = lambda key: "".join(l for l in lines if not l.startswith(key + " "))
    sub = lambda key, val: re.sub(rf"(?m)^{key} = .*$", f"{key} = {val}", text)
    return {
        "unparsable number": (sub("host_dgemm", "1.9e+1x"), "not a positive number"),
        "negative rate": (sub("cpu_pass_bw", "-3e9"), "not a positive number"),
        "infinite rate": (sub("host_zgemm", "inf"), "not a positive number"),
        "wrong version": (sub("ozblas_version", "0.0.1"), "stale: ozblas_version"),
        "wrong device": (sub("device", "NVIDIA H200"), "stale: device"),
        "wrong driver": (sub("driver", "12.4"), "stale: driver"),
        "wrong host": (sub("host", "Another CPU, 64 CPUs"), "stale: host"),
        "old format": (sub("format", "1"), "stale: format"),  # before dev_fp4
        "missing key": (drop("cpu_pass_bw"), 'the key "cpu_pass_bw" is missing'),
        "missing identity": (drop("driver"), 'the key "driver" is missing'),
        "unknown key": (text.replace("end = ok", "turbo = 1\nend = ok"), "unknown key"),
        "repeated key": (text.replace("end = ok", "host_dgemm = 1e9\nend = ok"), "appears twice"),
        "truncated in a line": (text[: text.index("host_zgemm") + 14], "truncated"),
        "truncated at a line end": (text[: text.index("cpu_call_s")], "truncated"),
        "last newline lost": (text[:-1], "truncated"),
        "empty": ("", "truncated"),
        "not key = value": (text.replace("end = ok", "garbage\nend = ok"), "not key = value"),
        "binary": ("\x00\x01\x02\n", "truncated"),
    }


def test_corrupt_or_stale_caches_are_rejected_by_the_c_reader(cache_home, measured):
    path = _write_valid(measured)
    good = path.read_text()
    assert policy.read_cache()[0] is not None
    for case, (text, why_part) in _mutations(good).items():
        path.write_text(text)
        p, why = policy.read_cache()
        assert p is None and why_part in why, (case, why)


@pytest.mark.parametrize("case", ["unparsable number", "wrong version", "wrong device",
                                  "missing key", "truncated in a line"])
def test_a_bad_cache_is_ignored_with_a_warning_and_rebuilt(cache_home, measured, case, capfd):
    path = _write_valid(measured)
    text, why_part = _mutations(path.read_text())[case]
    path.write_text(text)
    # the Python policy warns and uses the built-in estimate
    with pytest.warns(RuntimeWarning, match="ignored"):
        p, note = policy.load_profile()
    assert not p.calibrated and p.name == "cpu" and why_part in note
    # dispatch is not disturbed; the C library says it on stderr, once per process
    a = np.ones((64, 64), order="F")
    for _ in range(2):
        c, info = ozblas.matmul(a, a, method="auto", return_info=True)
        np.testing.assert_array_equal(c, a @ a)
    err = capfd.readouterr().err
    assert err.count("ozblas: calibration cache") == 1 and why_part in err
    # `ozblas calibrate` (no --force) warns, measures again and rewrites it
    with pytest.warns(RuntimeWarning, match="measuring again"):
        p2, path2, details = calibrate.calibrate(quick=True, progress=False)
    assert details is not None and path2 == str(path) and p2.calibrated
    assert policy.read_cache()[0] is not None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert policy.load_profile()[0].calibrated


def test_the_cache_format_is_documented(cache_home, measured):
    """Every key the C writer emits is in the documentation's description of the file."""
    text = _write_valid(measured).read_text()
    section = POLICY_DOCS.read_text().split("## Calibration cache", 1)[1].split("\n## ", 1)[0]
    keys = re.findall(r"(?m)^(\w+) = ", text)
    assert keys[0] == "format" and keys[-1] == "end"
    for k in keys + ["dev_dgemm", "dev_zgemm", "dev_int8", "dev_mem_bw", "h2d_bw", "d2h_bw",
                     "h2d_pinned_bw", "d2h_pinned_bw", "dev_call_s", "dev_emu_call_s"]:
        assert f"`{k}`" in section, k


def test_gpu_calibration_needs_cupy_and_says_so(cache_home, monkeypatch):
    """With a device to measure but no CuPy, calibration stops with a clear error; nothing is
    written (the GPU path itself is unverified without a GPU)."""
    ident, path = policy.machine()
    fake = dict(ident, device="NVIDIA Test GPU", driver="13.0")
    monkeypatch.setattr(policy, "machine", lambda: (fake, path))
    monkeypatch.setitem(sys.modules, "cupy", None)
    with pytest.raises(calibrate.CalibrationError, match="CuPy"):
        calibrate.calibrate(quick=True, progress=False)
    assert not os.path.exists(path)


def _cli(*args, env):
    return subprocess.run([sys.executable, "-m", "ozblas", *args], capture_output=True, text=True,
                          env=env, timeout=120)


def test_cli_calibrate_info_explain(cache_home):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_")}
    env.update(ONE_THREAD, XDG_CACHE_HOME=str(cache_home))
    r = _cli("info", env=env)
    assert r.returncode == 0 and "not calibrated" in r.stdout
    r = _cli("calibrate", "--quick", env=env)
    assert r.returncode == 0, r.stderr
    assert "written to" in r.stdout and "host DGEMM" in r.stdout and "FLOP/s" in r.stdout
    r = _cli("calibrate", "--quick", env=env)
    assert r.returncode == 0 and "already calibrated" in r.stdout
    r = _cli("info", env=env)
    assert r.returncode == 0 and "calibrated: measured by ozblas calibrate" in r.stdout
    assert "auto emulates square products" in r.stdout
    r = _cli("info", "--json", env=env)
    pol = json.loads(r.stdout)["policy"]
    assert pol["calibrated"] and pol["profile"]["host_dgemm"] > 0 and "d host" in pol["crossover"]
    r = _cli("explain", "--profile", "local", "1024", "1024", "1024", env=env)
    assert r.returncode == 0 and "profile local" in r.stdout and "choice: native host" in r.stdout


def _shim_trace(tmp_path, env):
    from ozblas import shim

    script = tmp_path / "child.py"
    script.write_text("import numpy as np\na = np.ones((300, 300))\nnp.save(%r, a @ a)\n"
                      % str(tmp_path / "out.npy"))
    env = dict(env, LD_PRELOAD=shim.library_path(), OZBLAS_TRACE=str(tmp_path / "trace.log"),
               OZBLAS_MIN_SIZE="0")
    r = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert np.array_equal(np.load(tmp_path / "out.npy"), np.full((300, 300), 300.0))
    lines = (tmp_path / "trace.log").read_text().splitlines()
    return [dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line)) for line in lines], r.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="LD_PRELOAD is Linux")
def test_shim_auto_says_which_profile_decided(cache_home, measured, tmp_path):
    if ozblas.info()["executors"]["cuda"]["available"]:
        pytest.skip("a CUDA executor is present")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_") and k != "LD_PRELOAD"}
    env["XDG_CACHE_HOME"] = str(cache_home)
    t, _ = _shim_trace(tmp_path, env)
    d = [x for x in t if x["routine"] == "dgemm"]
    assert d and d[0]["route"] == "native" and "built-in estimate" in d[0]["reason"]
    assert "ozblas calibrate" in d[0]["reason"]
    path = _write_valid(measured)
    t, _ = _shim_trace(tmp_path, env)
    d = [x for x in t if x["routine"] == "dgemm"]
    assert d[-1]["route"] == "native" and d[-1]["reason"] == '"auto chose native (calibrated profile)"'
    path.write_text("format = 1\n")  # truncated: the preloaded process warns once, stays native
    (tmp_path / "trace.log").unlink()
    t, err = _shim_trace(tmp_path, env)
    assert "built-in estimate" in t[-1]["reason"] and err.count("ozblas: calibration cache") == 1
