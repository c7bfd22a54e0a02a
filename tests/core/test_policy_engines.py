"""The product engine as a dimension of the cost model (core/policy_model.c engine_rate,
core/policy_profiles.c): the FP4 profiles' published figures, FP4 candidates where a profile
has an FP4 rate (the device only), method auto restricted to the engine in force, and
`ozblas explain --profile b300` saying why FP4 wins or loses. No GPU."""

import pytest

from ozblas import cli, policy
from ozblas._native import lib, load

N = 16384


def names(profile, where="device", **kw):
    return {c["name"]: c for c in policy.estimate(N, N, N, "d", where, profile, **kw)}


@pytest.mark.parametrize("name,fp64,int8,fp4,mem", [
    ("rtx_pro_6000", 1.85, 1000, 2000, 1.792),
    ("b300", 1.25, 150, 14000, 7.7),
    ("b200", 40, 4500, 9000, 8.0),
])
def test_fp4_profiles_hold_the_published_figures(name, fp64, int8, fp4, mem):
    p = policy.PROFILES[name]
    assert (p.peak_fp64, p.peak_int8, p.peak_fp4, p.peak_mem_bw) == pytest.approx(
        (fp64 * 1e12, int8 * 1e12, fp4 * 1e12, mem * 1e12))
    # no FP4 unit was measured: its efficiency is INT8's on our H200, and the source says so
    assert p.dev_fp4 == pytest.approx(p.peak_fp4 * policy.EFFICIENCY["int8"])
    assert "FP4: not measured" in p.source


def test_profiles_without_fp4_have_no_fp4_candidates():
    for name in ("a100", "h100", "h200", "h800", "rtx4090", "measured_h200", "cpu"):
        assert policy.PROFILES[name].dev_fp4 == 0
        where = "device" if policy.PROFILES[name].has_device else "host"
        assert all(c["engine"] != "fp4" for c in names(name, where).values()), name


def test_fp4_candidates_run_on_the_device_only_with_the_fp4_planning_count():
    load()
    c = names("b300")
    fp4 = [x for x in c.values() if x["engine"] == "fp4"]
    assert {x["executor"] for x in fp4} == {"device"} and len(fp4) == 6
    hint = lib.ozblas_ozaki2_engine_auto_hint(lib.OZBLAS_ENGINE_FP4)
    assert c[f"ozaki2 fast {hint} fp4"]["count"] == hint == 22
    assert c["ozaki2 fast 16"]["engine"] == "int8" and c["native device"]["engine"] is None
    # a count beyond one engine's moduli leaves only the other engine's Ozaki II rows
    m8, m4 = (lib.ozblas_ozaki2_engine_max_moduli(g)
              for g in (lib.OZBLAS_ENGINE_INT8, lib.OZBLAS_ENGINE_FP4))
    if m8 != m4:
        over, other = (m4 + 1, "int8") if m8 > m4 else (m8 + 1, "fp4")
        o2 = [x for x in names("b300", moduli=over).values() if x["method"] == "ozaki2"]
        assert o2 and all(x["engine"] == other and x["count"] == over for x in o2)


def test_the_fp4_rate_moves_only_the_fp4_candidates():
    p = policy.PROFILES["b300"]
    base = names(p)
    fast = names(p.replace(dev_fp4=4 * p.dev_fp4))
    for n, c in base.items():
        if c["engine"] == "fp4":
            assert fast[n]["breakdown"]["int8_products"] < c["breakdown"]["int8_products"], n
        else:
            assert fast[n]["seconds"] == c["seconds"], n
    # limb products: 76 of them for 22 moduli, at the FP4 rate, plus the engine's own passes
    prod = base["ozaki2 fast 22 fp4"]["breakdown"]["int8_products"]
    assert prod > 76 * 2 * N**3 / p.dev_fp4
    assert prod < 1.5 * 76 * 2 * N**3 / p.dev_fp4


def test_method_auto_takes_the_engine_in_force():
    best8 = policy.choose(N, N, N, "d", "device", "b300", engine="int8")
    best4 = policy.choose(N, N, N, "d", "device", "b300", engine="fp4")
    assert best8["engine"] == "int8" and best8["method"] == "ozaki2"
    assert best4["engine"] == "fp4" and best4["name"] == "ozaki2 accurate 22 fp4"
    assert best4["seconds"] < best8["seconds"] / 5
    # no FP4 rate (h200; the CPU executor's FP4 is a bit model): nothing emulated on fp4
    assert policy.choose(N, N, N, "d", "device", "h200", engine="fp4")["method"] == "native"
    assert policy.choose(4096, 4096, 4096, "d", "host", "cpu", engine="fp4")["method"] == "native"


def test_explain_b300_shows_the_fp4_candidates_and_why(capsys):
    assert cli.cmd_explain(["--profile", "b300", str(N), str(N), str(N)]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if " fp4 " in line and "device" in line]
    assert len(rows) == 6 and all("set OZBLAS_ENGINE=fp4 to allow" in r for r in rows)
    assert "FP4 8984 TFLOPS" in out
    assert "22 FP4 moduli issues 76 limb products per product against INT8's 16" in out
    assert "exceeds 4.75x INT8's: here 93.3x" in out
    assert "the fastest FP4 candidate, ozaki2 accurate 22 fp4" in out

    d = policy.explain(N, N, N, "d", "device", "b300", engine="fp4")
    assert d["choice"] == "ozaki2 accurate 22 fp4" and d["settings"]["engine"] == "fp4"
    assert any("is the fastest FP4 candidate" in r for r in d["reasons"])
    assert all("OZBLAS_ENGINE=fp4" not in (c["note"] or "") for c in d["candidates"])
    assert any("OZBLAS_ENGINE=int8" in (c["note"] or "") for c in d["candidates"])
    # on the RTX PRO 6000 FP4 is only 2x INT8, less than the 4.75x its limbs cost
    d = policy.explain(N, N, N, "d", "device", "rtx_pro_6000")
    assert d["choice"] == "ozaki2 accurate 16"
    assert any("as long as the choice" in r for r in d["reasons"])
