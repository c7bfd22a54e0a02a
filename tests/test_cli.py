import json
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


def test_demo_prints_native_and_ozaki2_rows():
    r = run("demo", "--m", "16", "--k", "64", "--n", "8", "--moduli", "14", "18")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert sum("native" in l for l in lines) >= 2  # one row per phi (plus the header column)
    assert sum("ozaki2 accurate" in l and " 18 " in l for l in lines) == 2
    assert "<= native" in r.stdout


def test_bench_runs_a_study(tmp_path):
    r = run("bench", "cpu-speed", "--sizes", "64", "--repeats", "1", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "cpu_speed.json").read_text())["results"]


def test_explain_is_wired():
    r = run("explain", "16384", "16384", "16384", "--profile", "a100")
    assert r.returncode == 0, r.stderr
    assert "choice: native" in r.stdout
    assert run("explain", "--help").returncode == 0
