"""The cost model (ozblas.policy): choices with the built-in profiles, the fit to the committed
H200 measurements, explain and the `ozblas explain` command. Pure Python, no GPU."""

import json
from pathlib import Path

import pytest

from ozblas import policy

RESULTS = Path(__file__).resolve().parent.parent / "benchmarks" / "results"
PHASES = ("stats", "residues", "int8_products", "reduction", "crt")


def method(profile, n, where="host", dtype="d"):
    return policy.choose(n, n, n, dtype, where, profile)["method"]


# -- the choices the issue names (explain's default: data on the host) ---------------------------
def test_a100_native_at_16384():
    assert method("a100", 16384) == "native"


def test_rtx4090_emulates_at_4096():
    assert method("rtx4090", 4096) in ("ozaki2", "ozaki1")


def test_h200_native_small_ozaki2_large():
    assert method("h200", 1024) == "native"
    assert method("h200", 16384) == "ozaki2"
    assert method("h200", 1024, "device") == "native"
    assert method("h200", 16384, "device") == "ozaki2"


def test_h800_and_rtx4090_emulate_from_moderate_sizes_on_device_data():
    for prof in ("h800", "rtx4090"):
        assert method(prof, 4096, "device") == "ozaki2"
        assert policy.crossover(prof, "d", "device") <= 4096


def test_a100_device_data_native_below_8192():
    # GEMMul8's published A100 runs (UCHINO-Yuki/GEMMul8_numerical_results, results_04) have
    # native DGEMM ahead at 4096 and Ozaki II fast-16 ahead at 8192 and 16384; so does the model.
    assert method("a100", 1024, "device") == "native"
    assert method("a100", 4096, "device") == "native"


def test_small_products_stay_native_everywhere():
    for prof in policy.PROFILES:
        assert method(prof, 64) == "native"


def test_cpu_profile_is_native():
    for n in (256, 2048, 8192):
        assert method("cpu", n) == "native"
    with pytest.raises(ValueError, match="needs a device"):
        policy.estimate(64, 64, 64, "d", "device", "cpu")


def test_host_data_pays_transfers():
    n = 13312
    dev = policy.estimate(n, n, n, "d", "device", "h200")
    host = policy.estimate(n, n, n, "d", "host", "h200")
    link = 8 * 3 * n * n / policy.PROFILES["h200"].link_bw
    for a, b in zip(dev, host):
        assert a["name"] == b["name"]
        if a["executor"] == "device":
            assert b["seconds"] == pytest.approx(a["seconds"] + link)
        else:
            assert a["seconds"] == pytest.approx(b["seconds"] + link)
    # the same product emulates with device-resident data and stays native on the host
    assert method("h200", n, "device") == "ozaki2"
    assert policy.choose(n, n, n, "d", "host", "h200")["name"] == "native host"
    assert policy.crossover("h200", "d", "host") > policy.crossover("h200", "d", "device")


def test_more_moduli_and_slices_cost_more():
    for prof in ("h200", "rtx4090", "cpu"):
        t = [policy.estimate(4096, 4096, 4096, "d", "host", prof, moduli=nm)[-1]["seconds"]
             if prof == "cpu" else
             min(c["seconds"] for c in policy.estimate(4096, 4096, 4096, "d", "host", prof, moduli=nm)
                 if c["method"] == "ozaki2")
             for nm in (8, 12, 16, 20)]
        assert t == sorted(t) and len(set(t)) == 4
    t = [next(c for c in policy.estimate(4096, 4096, 4096, "z", "device", "h200", slices=s)
              if c["method"] == "ozaki1")["seconds"] for s in (6, 9, 11, 14)]
    assert t == sorted(t) and len(set(t)) == 4


def test_complex_costs_more_than_real():
    for c_d, c_z in zip(policy.estimate(8192, 8192, 8192, "d", "device", "h200"),
                        policy.estimate(8192, 8192, 8192, "z", "device", "h200")):
        assert c_z["seconds"] > 2.5 * c_d["seconds"]


# -- the fit to our H200 measurements ---------------------------------------------------------
def _h200_rows():
    for name in ("h200_run3_device_arrays.json", "h200_run4_device_arrays.json"):
        for r in json.loads((RESULTS / name).read_text())["runs"]:
            if r["n"] in (8192, 16384):
                yield r


def test_model_reproduces_measured_h200_phases():
    p = policy.PROFILES["measured_h200"]
    checked = 0
    for r in _h200_rows():
        n, dt = r["n"], r["dtype"]
        if r["kind"] == "cupy_native":
            c = next(c for c in policy.estimate(n, n, n, dt, "device", p) if c["name"] == "native device")
            assert c["seconds"] == pytest.approx(r["seconds_median"], rel=0.25)
            checked += 1
        elif r["kind"] == "ozblas_ozaki2_device_arrays":
            cands = policy.estimate(n, n, n, dt, "device", p, moduli=r["moduli"])
            c = next(c for c in cands if c["scaling"] == r["scaling"])
            assert c["seconds"] == pytest.approx(r["seconds_median"], rel=0.25)
            for ph, measured in zip(PHASES, r["phase_seconds_median"]):
                assert c["breakdown"][ph] == pytest.approx(measured, rel=0.25), (r["n"], dt, ph)
            checked += 1
        elif r["kind"] == "ozblas_ozaki1_device_arrays" and r["scaling"] == "hybrid":
            c = next(c for c in policy.estimate(n, n, n, dt, "device", p, slices=r["moduli"])
                     if c["method"] == "ozaki1")
            assert c["seconds"] == pytest.approx(r["seconds_median"], rel=0.25)
            checked += 1
    assert checked >= 20


def test_efficiency_factors_come_from_the_measurements():
    e = policy.EFFICIENCY
    assert 0.8 < e["fp64"] < 0.9 and 0.6 < e["int8"] < 0.7 and 0.05 < e["link"] < 0.12
    h200 = policy.PROFILES["h200"]
    assert h200.fp64 == pytest.approx(policy.PROFILES["measured_h200"].fp64)
    assert h200.int8 == pytest.approx(policy.PROFILES["measured_h200"].int8)


# -- explain and the command --------------------------------------------------------------------
def test_explain_dict_and_table():
    d = policy.explain(16384, 16384, 16384, profile="h200")
    assert d["method"] == "ozaki2" and d["problem"]["where"] == "host"
    assert {"name", "seconds", "tflops", "breakdown", "meets_target"} <= set(d["candidates"][0])
    assert any("transfers" in r for r in d["reasons"])
    json.dumps(d)  # plain data
    text = policy.format_explain(d)
    assert f"* {d['choice']}" in text and "TFLOPS" in text and "choice:" in text


def test_explain_local_profile_says_it_is_not_calibrated():
    d = policy.explain(512, 512, 512)
    assert d["profile_note"] and "calibration" in d["profile_note"]
    p, note = policy.load_profile("NVIDIA GeForce RTX 4090")
    assert p.name == "rtx4090" and "closest to NVIDIA GeForce RTX 4090" in note
    p, note = policy.load_profile("NVIDIA H200")
    assert p.name == "measured_h200"
    assert policy.load_profile("")[0].name == "cpu"


def test_main_explain_table(capsys):
    assert policy.main_explain(["--profile", "rtx4090", "4096", "4096", "4096"]) == 0
    out = capsys.readouterr().out
    assert "choice: ozaki2" in out and "native host" in out


def test_main_explain_json(capsys):
    assert policy.main_explain(["1024", "1024", "1024", "--profile", "h200", "--where", "device",
                                "--dtype", "z", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["method"] == "native" and d["problem"]["dtype"] == "z"


def test_main_explain_bad_profile(capsys):
    with pytest.raises(SystemExit) as e:
        policy.main_explain(["8", "8", "8", "--profile", "v100"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "v100" in err and "a100" in err and "measured_h200" in err


def test_main_explain_bad_where_for_cpu(capsys):
    with pytest.raises(SystemExit) as e:
        policy.main_explain(["8", "8", "8", "--profile", "cpu", "--where", "device"])
    assert e.value.code == 2 and "needs a device" in capsys.readouterr().err
