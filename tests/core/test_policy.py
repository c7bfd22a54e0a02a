"""The cost model (C, core/policy.c, through ozblas.policy): choices with the built-in profiles,
the fit to the committed H200 measurements, the Python layer against the C library, method
auto's dispatch, explain and the `ozblas explain` command. No GPU."""

import json
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

import ozblas
from ozblas import cli, policy
from ozblas._native import ffi, lib, load

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
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
    # the same product emulates with device-resident data and stays native with host data
    n = 12288
    assert method("a100", n, "device") == "ozaki2"
    assert policy.choose(n, n, n, "d", "host", "a100")["name"] == "native host"
    assert policy.crossover("a100", "d", "host") > policy.crossover("a100", "d", "device")


def _named(cands, name):
    return next(c for c in cands if c["name"] == name)


def test_more_moduli_and_slices_cost_more():
    for prof, name in (("h200", "ozaki2 accurate {}"), ("rtx4090", "ozaki2 fast {}"),
                       ("cpu", "ozaki2 fast {} (cpu executor)")):
        t = [_named(policy.estimate(4096, 4096, 4096, "d", "host", prof, moduli=nm),
                    name.format(nm))["seconds"] for nm in (8, 12, 16, 20)]
        assert t == sorted(t) and len(set(t)) == 4
    for v in ("bitmask", "hybrid"):
        t = [_named(policy.estimate(4096, 4096, 4096, "z", "device", "h200", slices=s),
                    f"ozaki1 {v} {s}")["seconds"] for s in (6, 9, 11, 14)]
        assert t == sorted(t) and len(set(t)) == 4


def test_every_candidate_is_listed():
    names = {c["name"] for c in policy.estimate(1000, 1000, 1000, "d", "host", "h100")}
    for ex in ("", " (cpu executor)"):
        assert {f"ozaki2 {s} 16{ex}" for s in ("accurate", "fast")} <= names
        assert {f"ozaki1 {v} 11{ex}" for v in ("bitmask", "rn", "ef", "hybrid")} <= names
    assert {"native host", "native device"} <= names and len(names) == 14
    assert len(policy.estimate(1000, 1000, 1000, "d", "host", "cpu")) == 7  # no device rows


def test_grouped_ozaki1_variants_need_fewer_fp64_terms():
    # bitmask and rn accumulate every product in FP64 (66 terms at 11 slices), ef and hybrid
    # one term per group (11 while the group sums fit INT32): as the H200 phases show.
    c = policy.estimate(8192, 8192, 8192, "d", "device", "measured_h200", slices=11)
    acc = {v: _named(c, f"ozaki1 {v} 11")["breakdown"]["fp64_accumulation"] for v in policy._constants.VARIANTS}
    assert acc["bitmask"] == pytest.approx(6 * acc["hybrid"]) and acc["rn"] == acc["bitmask"]
    assert acc["ef"] == acc["hybrid"]
    assert "conversion" not in _named(c, "ozaki1 bitmask 11")["breakdown"]


def test_k_beyond_the_bounds_does_not_meet_the_target():
    c = policy.estimate(2, 2, 2**29, "d", "host", "h200")
    assert not any(x["meets_target"] for x in c if x["method"] != "native")
    assert policy.choose(2, 2, 2**29, "d", "host", "h200")["method"] == "native"


def test_complex_costs_more_than_real():
    """Four real products natively, three per modulus by Karatsuba; two per modulus on the
    INT8 complex set (issue 34), which still needs more moduli for the same bits."""
    for c_d, c_z in zip(policy.estimate(8192, 8192, 8192, "d", "device", "h200"),
                        policy.estimate(8192, 8192, 8192, "z", "device", "h200")):
        two = c_z["method"] == "ozaki2" and c_z["engine"] == "int8"
        assert c_z["seconds"] > (2.0 if two else 2.5) * c_d["seconds"], c_z["name"]


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
            if dt == "z" and lib.ozblas_ozaki2_complex_count(lib.OZBLAS_ENGINE_INT8, r["moduli"]):
                continue  # measured by Karatsuba; the model now prices the complex set (issue 34)
            cands = policy.estimate(n, n, n, dt, "device", p, moduli=r["moduli"])
            c = next(c for c in cands if c["scaling"] == r["scaling"])
            assert c["seconds"] == pytest.approx(r["seconds_median"], rel=0.25)
            for ph, measured in zip(PHASES, r["phase_seconds_median"]):
                assert c["breakdown"][ph] == pytest.approx(measured, rel=0.25), (r["n"], dt, ph)
            checked += 1
        elif r["kind"] == "ozblas_ozaki1_device_arrays":  # "scaling" holds the variant here
            c = next(c for c in policy.estimate(n, n, n, dt, "device", p, slices=r["moduli"])
                     if c["method"] == "ozaki1" and c["variant"] == r["scaling"])
            assert c["seconds"] == pytest.approx(r["seconds_median"], rel=0.25)
            checked += 1
    assert checked >= 20


def test_efficiency_factors_come_from_the_measurements():  # datasheet x measured efficiency
    e = policy.EFFICIENCY
    assert 0.8 < e["fp64"] < 0.9 and 0.6 < e["int8"] < 0.7 and 0.05 < e["link"] < 0.12
    h200 = policy.PROFILES["h200"]
    assert h200.fp64 == pytest.approx(policy.PROFILES["measured_h200"].fp64)
    assert h200.int8 == pytest.approx(policy.PROFILES["measured_h200"].int8)


# -- explain and the command --------------------------------------------------------------------
def test_explain_dict_and_table():
    d = ozblas.explain(16384, 16384, 16384, profile="h200")  # = policy.explain
    assert d["method"] == "ozaki2" and d["problem"]["where"] == "host"
    assert {"name", "seconds", "tflops", "breakdown", "meets_target"} <= set(d["candidates"][0])
    assert any("transfers" in r for r in d["reasons"])
    json.dumps(d)  # plain data
    text = policy.format_explain(d)
    assert f"* {d['choice']}" in text and "TFLOPS" in text and "choice:" in text


def test_explain_local_profile_says_it_is_not_calibrated(no_cache):
    d = policy.explain(512, 512, 512)
    assert "not calibrated" in d["profile_note"] and "ozblas calibrate" in d["profile_note"]
    assert d["profile"]["calibrated"] is False
    p, note = policy.load_profile("NVIDIA GeForce RTX 4090")
    assert p.name == "rtx4090" and "closest to NVIDIA GeForce RTX 4090" in note
    p, note = policy.load_profile("NVIDIA H200")
    assert p.name == "measured_h200"
    assert policy.load_profile("")[0].name == "cpu"


def test_explain_gives_the_accuracy_reasoning():
    d = policy.explain(4096, 4096, 4096, profile="h200", moduli=15, slices=9)
    r = d["reasons"]
    assert any("DGEMM-level" in x and "|A||B|" in x for x in r)
    # docs/accuracy.md table: accurate 15 and hybrid 9 reach native up to phi = 1 at both k, not at 2
    assert any("15 moduli" in x and "up to phi = 1 " in x for x in r)
    assert any("9 slices" in x and "up to phi = 1 " in x for x in r)
    r = "\n".join(policy.explain(64, 64, 64, profile="h200", moduli=14)["reasons"])
    assert "14 moduli" in r and "for none of the study's inputs" in r  # phi = 0 needs 15
    d = policy.explain(4096, 4096, 4096, profile="h200", moduli="auto", slices="auto")
    r = "\n".join(d["reasons"])
    assert "OZBLAS_MODULI=auto" in r and "plans with 16 moduli" in r and "up to phi = 2" in r
    assert "OZBLAS_SLICES=auto" in r and "plans with 11 slices" in r


def test_explain_marks_what_auto_may_not_use(monkeypatch):
    monkeypatch.setenv("OZBLAS_SCALING", "fast")
    d = policy.explain(16384, 16384, 16384, profile="h200", where="device")
    notes = {c["name"]: c["note"] for c in d["candidates"]}
    assert notes["ozaki2 fast 16"] is None and "OZBLAS_SCALING=accurate" in notes["ozaki2 accurate 16"]
    assert "device data" in notes["native host"]
    assert d["choice"] == "ozaki2 fast 16" and d["settings"]["scaling"] == "fast"


def test_main_explain_table(capsys):
    assert cli.cmd_explain(["--profile", "rtx4090", "4096", "4096", "4096"]) == 0
    out = capsys.readouterr().out
    assert "choice: ozaki2" in out and "native host" in out


def test_main_explain_json(capsys):
    assert cli.cmd_explain(["1024", "1024", "1024", "--profile", "h200", "--where", "device",
                                "--dtype", "z", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["method"] == "native" and d["problem"]["dtype"] == "z"


def test_main_explain_bad_profile(capsys):
    with pytest.raises(SystemExit) as e:
        cli.cmd_explain(["8", "8", "8", "--profile", "v100"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "v100" in err and "a100" in err and "measured_h200" in err


def test_main_explain_bad_where_for_cpu(capsys):
    with pytest.raises(SystemExit) as e:
        cli.cmd_explain(["8", "8", "8", "--profile", "cpu", "--where", "device"])
    assert e.value.code == 2 and "needs a device" in capsys.readouterr().err


@pytest.mark.parametrize("dims", [(10**20, 2, 3), (2, 2**63, 3), (2, 3, 0), (-4, 2, 3), (2.5, 2, 3),
                                  (True, 2, 3), ("8", 2, 3)])
def test_explain_refuses_dimensions_the_c_api_cannot_hold(dims):
    """Issue 24: a dimension that is not a positive int64 is a ValueError naming it (an
    OverflowError from the binding before), in explain, estimate and choose."""
    name = "mnk"[next(i for i, d in enumerate(dims) if type(d) is not int or d not in (2, 3))]
    for f in (ozblas.explain, policy.estimate, policy.choose):
        with pytest.raises(ValueError, match=rf"^{name}=.* is not valid; accepted: a positive "
                                             r"integer up to 2\^63 - 1$"):
            f(*dims, profile="h200")
    assert policy.choose(2**63 - 1, 2, 3, profile="h200")["method"] == "native"


@pytest.mark.parametrize("argv,says", [
    (["9223372036854775808", "2", "3"], "m=9223372036854775808 is not valid"),
    (["2", "0", "3"], "n=0 is not valid"),
    (["--", "2", "3", "-1"], "k=-1 is not valid"),
    (["getrf", "100000000000000000000"], "n=100000000000000000000 is not valid"),
    (["getrf", "9223372036854775807"], "at most 65536 steps of nb"),
    (["potrf", "100000", "--nb", "1"], "accepted: n up to 65536"),
])
def test_explain_command_gives_usage_errors(argv, says):
    """`ozblas explain` with sizes it cannot take: a usage error (exit 2, usage line), quickly,
    no traceback (a LAPACK explain's steps are bounded: one model call each)."""
    r = subprocess.run([sys.executable, "-m", "ozblas", "explain", *argv], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2 and "usage: ozblas explain" in r.stderr and says in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


# -- the Python layer is the C library's model -------------------------------------------------
def test_profile_fields_are_the_c_struct():
    load()
    c_fields = [name for name, _ in ffi.typeof("ozblas_profile").fields]
    assert [f.name for f in fields(policy.Profile)] == c_fields


def test_python_reports_the_c_model():
    """policy.estimate is the C function's output: same candidates, times and parts."""
    p = policy.PROFILES["rtx4090"]
    out = ffi.new("ozblas_candidate[16]")
    cnt = lib.ozblas_policy_estimate(policy._to_c(p), 1, 3000, 2000, 5000, 0, 13, 7, out, 16)
    py = policy.estimate(3000, 2000, 5000, "z", "host", p, moduli=13, slices=7)
    assert cnt == len(py) == 14
    for i, c in enumerate(py):
        assert c["seconds"] == out[i].seconds and (c["count"] or 0) == out[i].count
        assert sum(c["breakdown"].values()) == pytest.approx(c["seconds"], rel=1e-12)
        assert len(c["breakdown"]) == bin(out[i].parts_used).count("1")
    # one part by hand: native host is the host ZGEMM at its rate plus the fixed call cost
    nh = _named(py, "native host")
    assert nh["breakdown"]["host_gemm"] == pytest.approx(8 * 3000 * 2000 * 5000 / p.host_zgemm)


def test_profile_round_trips_through_c():
    for p in policy.PROFILES.values():
        assert policy._from_c(policy._to_c(p)) == p
    assert policy.PROFILES["cpu"].has_device is False and policy.PROFILES["a100"].peak_fp64 == 19.5e12


def test_a_synthetic_profile_moves_the_choice():
    """The model is a function of the profile: an FP64-poor host with a huge SGEMM rate emulates."""
    cpu = policy.PROFILES["cpu"]
    assert method(cpu, 2048) == "native"
    fast_int = cpu.replace(cpu_int_gemm=1e15, cpu_pass_bw=1e12, host_dgemm=1e9, cpu_call_s=1e-6)
    assert policy.choose(2048, 2048, 2048, "d", "host", fast_int)["name"] == "ozaki2 accurate 16 (cpu executor)"


# -- method auto in the C dispatcher (api.c) ------------------------------------------------------
@pytest.fixture
def no_cache(tmp_path, monkeypatch):
    """This process's local profile from an empty cache directory: the built-in estimate."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    policy.set_local(None)
    yield tmp_path
    policy.set_local(None)


@pytest.fixture
def synthetic_local():
    """Dispatch on an injected profile (ozblas_policy_set_local), restored afterwards."""
    yield policy.set_local
    policy.set_local(None)


def test_dispatch_follows_an_injected_profile(synthetic_local):
    a = np.asfortranarray(np.random.default_rng(0).random((96, 80)))
    b = np.asfortranarray(np.random.default_rng(1).random((80, 64)))
    cpu = policy.PROFILES["cpu"]
    synthetic_local(cpu.replace(cpu_int_gemm=1e16, cpu_pass_bw=1e13, host_dgemm=1e8, cpu_call_s=1e-7))
    c, info = ozblas.matmul(a, b, method="auto", executor="cpu", return_info=True)
    assert info["method"] == "ozaki2" and info["executor"] == "cpu" and info["fallback"] is None
    # the count automatic precision takes for these inputs (15: uniform values on a 2^-53
    # grid are truncated exactly there)
    auto = ozblas.matmul(a, b, method="ozaki2", executor="cpu", return_info=True)[1]
    assert info["moduli"] == auto["moduli"] and info["scaling"] == "accurate"
    np.testing.assert_allclose(c, a @ b, rtol=1e-13)
    # ZGEMM too (the host ZGEMM rate is the profile's host_zgemm)
    synthetic_local(cpu.replace(cpu_int_gemm=1e16, cpu_pass_bw=1e13, host_zgemm=1e8, cpu_call_s=1e-7))
    c, info = ozblas.zgemm(1.0, a + 1j, b - 1j, method="auto", executor="cpu", return_info=True)
    assert info["method"] == "ozaki2" and info["executor"] == "cpu"
    np.testing.assert_allclose(c, (a + 1j) @ (b - 1j), rtol=1e-13)
    # and native where the model says so, reported as auto's choice
    synthetic_local(cpu)
    c, info = ozblas.matmul(a, b, method="auto", return_info=True)
    assert info["method"] == "native" and info["fallback"] == "auto chose native"


def test_dispatch_equals_choose(synthetic_local):
    """api.c's auto and policy.choose are the same decision (one C function)."""
    cpu = policy.PROFILES["cpu"]
    # a slow host DGEMM and a costly emulated call: the crossover lies among the sizes tried
    prof = cpu.replace(host_dgemm=1e9, cpu_int_gemm=1.2e13, cpu_pass_bw=1.2e11, cpu_call_s=2e-3)
    synthetic_local(prof)
    seen = set()
    for m, n, k in ((8, 8, 8), (32, 32, 512), (64, 64, 512), (32, 32, 4096), (256, 256, 256)):
        a, b = np.ones((m, k), order="F"), np.ones((k, n), order="F")
        _, info = ozblas.matmul(a, b, method="auto", executor="cpu", return_info=True)
        want = policy.choose(m, n, k, "d", "host", prof)["method"]
        assert info["method"] == want, (m, n, k)
        seen.add(want)
    assert seen == {"native", "ozaki2"}


def test_auto_is_native_on_this_machine_without_a_cache(no_cache):
    if ozblas.info()["executors"]["cuda"]["available"]:
        pytest.skip("a CUDA executor is present")
    a = np.asfortranarray(np.random.default_rng(0).random((300, 300)))
    _, info = ozblas.matmul(a, a, method="auto", return_info=True)
    assert info["method"] == "native" and info["fallback"] == "auto chose native"
    p, note = policy.load_profile()
    assert p.name == "cpu" and not p.calibrated and "not calibrated" in note
