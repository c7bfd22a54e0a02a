import json
import os
import re
import subprocess
import sys


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "ozblas", *args], capture_output=True, text=True, env=env)


def test_info_json():
    r = run("info", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["executors"]["cpu"]["available"] and d["library"].endswith("libozblas.so")


def test_info_table():
    r = run("info")
    assert r.returncode == 0 and "executor" in r.stdout and "cpu" in r.stdout


def test_conflicting_settings_stop_run_and_show_in_info():
    """Issue 24: OZBLAS_ENGINE=fp4 with OZBLAS_MODULI=40 (beyond fp4's 28 moduli), and
    accuracy correct with engine fp4, are refused by the library; `ozblas run` refuses them
    too (exit 2, the message on stderr, the command never started) and `ozblas info` shows
    everything else and the conflict, exiting 2."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_")}
    for bad, says in (({"OZBLAS_ENGINE": "fp4", "OZBLAS_MODULI": "40"},
                       "OZBLAS_MODULI='40' is beyond the 28 moduli of OZBLAS_ENGINE='fp4'"),
                      ({"OZBLAS_ENGINE": "fp4", "OZBLAS_ACCURACY": "correct"},
                       "OZBLAS_ACCURACY='correct' cannot be combined with OZBLAS_ENGINE='fp4'")):
        env = {**base, **bad}
        r = run("run", "--", sys.executable, "-c", "print('started')", env=env)
        assert r.returncode == 2 and says in r.stderr and "started" not in r.stdout, r
        r = run("info", env=env)
        assert r.returncode == 2 and f"configuration error: {says}" in r.stdout, r
        assert "executor" in r.stdout and "host BLAS" in r.stdout
        r = run("info", "--json", env=env)
        assert r.returncode == 2 and says in json.loads(r.stdout)["config_error"]


def test_demo_runs_the_script_under_the_shim():
    import ozblas

    env = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_") and k != "LD_PRELOAD"}
    r = subprocess.run([sys.executable, "-m", "ozblas", "demo"], capture_output=True, text=True,
                       env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    if not ozblas.info()["executors"]["cuda"]["available"]:
        assert "forces OZBLAS_METHOD=ozaki2" in out and "--method ozaki2" in out
    # what was routed: the shim's summary (every call emulated) and NumPy's and SciPy's entry points
    head = next(l for l in out.splitlines() if l.startswith("ozblas summary (pid "))
    # expm's getrf/getrs (n = 256, one block) pass through; the solvers' are emulated; solve on
    # the symmetric matrix asks dsytrf for its workspace (passed through) before its Cholesky
    assert "21 BLAS calls" in head and "18 emulated, 0 fell back" in head, head
    for routine, calls in (("dgemm", 12), ("zgemm", 1), ("dsyrk", 1), ("dgetrf", 1), ("dgetrs", 1),
                           ("dpotrf", 1), ("dgesv", 1)):
        assert re.search(rf"^  {routine} +ozblas +{calls} .*ozaki2/(cpu|cuda)$", out, re.M), routine
    for sym in ("scipy_cblas_dgemm64_", "scipy_cblas_zgemm64_", "scipy_cblas_dsyrk64_", "scipy_dgemm_",
                "scipy_dgetrf_", "scipy_dpotrf_", "scipy_dgesv_64_"):
        assert f"{sym} x" in out
    # automatic precision: every emulated call took a count and stated a bound below 2^-50
    m = re.search(r"^Precision per emulated call .*: (.*); largest stated error bound (\S+)", out, re.M)
    assert m and "moduli x" in m.group(1) and 0 < float(m.group(2)) < 2.0**-50, out
    # one row per step: times of both runs, and the emulation at least as accurate as native
    from ozblas.demo import STEPS, has_extended_precision

    for step, (label, _) in STEPS.items():
        row = next(l for l in out.splitlines() if l.startswith(label))
        f = row[len(label):].split()
        assert float(f[1]) > 0 and float(f[2]) > 0  # ms, native and under the shim
        if step != "expm" or has_extended_precision():
            err_native, err_ozblas = float(f[3]), float(f[4])
            assert err_ozblas <= err_native, row
    # the LAPACK steps: blocked drivers with emulated products, as accurate as native
    from ozblas.demo import LAPACK_STEPS

    assert re.search(r"^LAPACK calls run by .*dgetrf x1 \(\d+ of \d+ products emulated", out, re.M), out
    for step, (label, _) in LAPACK_STEPS.items():
        f = next(l for l in out.splitlines() if l.startswith(label))[len(label):].split()
        assert float(f[4]) <= 4 * float(f[3]) + 1e-15, f
    assert "Wall time of each run" in out


def test_bench_runs_a_study(tmp_path):
    r = run("bench", "cpu-speed", "--sizes", "64", "--repeats", "1", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "cpu_speed.json").read_text())["results"]


def test_explain_is_wired():
    r = run("explain", "16384", "16384", "16384", "--profile", "a100")
    assert r.returncode == 0, r.stderr
    assert "choice: native" in r.stdout
    assert run("explain", "--help").returncode == 0


def test_info_shows_the_routines_routed_and_run_refuses_an_unknown_one():
    """Issue 31: `ozblas info` names the routines OZBLAS_ROUTINES leaves native (the shorter
    side in the table, both in --json); a name that is no routine stops `ozblas run`."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_")}
    r = run("info", env=base)
    assert r.returncode == 0 and "routines=all," in r.stdout
    r = run("info", env={**base, "OZBLAS_ROUTINES": "-gesdd,-gesvd"})
    assert r.returncode == 0 and "routines=all but dgesdd zgesdd dgesvd zgesvd," in r.stdout, r.stdout
    r = run("info", env={**base, "OZBLAS_ROUTINES": "gemm"})
    assert r.returncode == 0 and "routines=only dgemm zgemm," in r.stdout
    r = run("info", "--json", env={**base, "OZBLAS_ROUTINES": "-syev*"})
    routines = json.loads(r.stdout)["config"]["routines"]
    assert routines["native"] == ["dsyevd", "zheevd", "dsyev", "zheev", "dsyevr", "zheevr"]
    from ozblas.config import routine_names

    assert routines["routed"] == [x for x in routine_names() if x not in routines["native"]]
    assert "dgesdd" in routines["routed"]
    bad = {**base, "OZBLAS_ROUTINES": "-gesdd,-eig"}
    says = "OZBLAS_ROUTINES='-gesdd,-eig' is not valid ('-eig' names no routine)"
    r = run("info", env=bad)
    assert r.returncode == 2 and says in r.stdout
    r = run("run", "--", sys.executable, "-c", "print('started')", env=bad)
    assert r.returncode == 2 and says in r.stderr and "started" not in r.stdout
