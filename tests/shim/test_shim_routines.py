"""OZBLAS_ROUTINES under the preload shim and in-process activation (issue 31): a routine left
native reaches the real routine, and so do the calls that real routine makes through the
shim's names, so that its result is native's bit for bit; the counters and the trace say why.
"""

import json
import subprocess
import sys

import numpy as np
import pytest

from test_shim import _base_env, _ok, _run_script, _trace

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="LD_PRELOAD is Linux")

REASON = "OZBLAS_ROUTINES leaves it (or its caller) native"

PRODUCTS = """
    import json, sys, numpy as np, ozblas
    d = dict(np.load(sys.argv[1] + "/in.npz"))
    np.savez(sys.argv[1] + "/out.npz", d=d["a"] @ d["b"], z=d["za"] @ d["zb"])
    print(json.dumps(ozblas.stats()["routines"]))
"""


@pytest.fixture(scope="module")
def inputs():
    rng = np.random.default_rng(31)
    return dict(a=rng.uniform(-1, 1, (40, 56)), b=rng.uniform(-1, 1, (56, 48)),
                za=rng.uniform(-1, 1, (40, 56)) + 1j * rng.uniform(-1, 1, (40, 56)),
                zb=rng.uniform(-1, 1, (56, 48)) - 1j * rng.uniform(-1, 1, (56, 48)))


@pytest.mark.parametrize("value,native", [("-dgemm", "d"), ("-gemm", "dz"), ("zgemm", "d"),
                                          ("-*", "dz"), ("dgemm,-gemm", "dz")])
def test_a_routine_left_native_reaches_the_real_routine(tmp_path, inputs, value, native):
    np.savez(tmp_path / "in.npz", **inputs)
    p = _run_script(tmp_path, PRODUCTS, _base_env(tmp_path, OZBLAS_ROUTINES=value))
    _ok(p)
    st = json.loads(p.stdout)
    out = np.load(tmp_path / "out.npz")
    for e, x, want in (("d", out["d"], inputs["a"] @ inputs["b"]),
                       ("z", out["z"], inputs["za"] @ inputs["zb"])):
        routes = st[e + "gemm"]["routes"]
        if e in native:
            assert np.array_equal(x, want), e
            assert routes == {f"native: {REASON}": routes[f"native: {REASON}"]}, routes
        else:  # routed: Ozaki II's bits, not native's
            assert list(routes) == ["ozblas: ozaki2/cpu"], routes
            assert not np.array_equal(x, want)
    traced = {t["routine"]: t for t in _trace(tmp_path)}
    for e in native:
        assert traced[e + "gemm"]["route"] == "native"
        assert traced[e + "gemm"]["reason"] == f'"{REASON}"'


def test_a_bad_value_warns_once_and_stays_native(tmp_path, inputs):
    np.savez(tmp_path / "in.npz", **inputs)
    p = _run_script(tmp_path, PRODUCTS, _base_env(tmp_path, OZBLAS_ROUTINES="-gemm,-gesdx"))
    _ok(p)
    assert p.stderr.count("OZBLAS_ROUTINES='-gemm,-gesdx' is not valid ('-gesdx' names no "
                          "routine); accepted: ") == 1, p.stderr
    out = np.load(tmp_path / "out.npz")
    assert np.array_equal(out["d"], inputs["a"] @ inputs["b"])
    assert np.array_equal(out["z"], inputs["za"] @ inputs["zb"])
    st = json.loads(p.stdout)  # (no trace: the shim's settings, OZBLAS_TRACE among them, are refused)
    assert [list(st[r]["routes"]) for r in ("dgemm", "zgemm")] == [["native: bad OZBLAS_* setting"]] * 2


def test_ozblas_run_refuses_a_routine_it_does_not_know(tmp_path):
    cmd = [sys.executable, "-m", "ozblas", "run", "--routines=-gesdd,-foo", "--", sys.executable, "-c", "1"]
    p = subprocess.run(cmd, env=_base_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert p.returncode == 2
    assert "OZBLAS_ROUTINES='-gesdd,-foo' is not valid ('-foo' names no routine)" in p.stderr


def test_ozblas_run_passes_the_option_on(tmp_path, inputs):
    np.savez(tmp_path / "in.npz", **inputs)
    p = _run_script(tmp_path, PRODUCTS, _base_env(tmp_path), via_run=True, run_args=["--routines=-zgemm"])
    _ok(p)
    st = json.loads(p.stdout)
    assert list(st["zgemm"]["routes"]) == [f"native: {REASON}"]
    assert list(st["dgemm"]["routes"]) == ["ozblas: ozaki2/cpu"]


# ---- the Kalman-filter case: numpy.random.Generator.multivariate_normal factors the
# covariance with dgesdd, whose singular vectors' signs LAPACK leaves unspecified --------------

MVN = """
    import json, sys, numpy as np
    d = np.load(sys.argv[1] + "/in.npz")
    x = np.random.default_rng(2026).multivariate_normal(d["mean"], d["cov"], size=4)
    np.save(sys.argv[1] + "/x_" + sys.argv[2] + ".npy", x)
    try:
        import ozblas
        print(json.dumps(ozblas.stats()["routines"]))
    except ImportError:
        print("{}")
"""


def _mvn(tmp_path, tag, env):
    (tmp_path / "mvn.py").write_text(__import__("textwrap").dedent(MVN))
    p = subprocess.run([sys.executable, str(tmp_path / "mvn.py"), str(tmp_path), tag], env=env,
                       capture_output=True, text=True, timeout=300)
    _ok(p)
    return np.load(tmp_path / f"x_{tag}.npy"), json.loads(p.stdout)


def test_multivariate_normal_with_gesdd_left_native_gives_natives_samples(tmp_path):
    from ozblas import shim

    n = 300
    rng = np.random.default_rng(9)
    g = rng.integers(-8, 9, (n, n)).astype(float)
    cov = g @ g.T / 64 + np.eye(n)  # symmetric positive definite, computed here (unrouted)
    np.savez(tmp_path / "in.npz", mean=rng.uniform(-1, 1, n), cov=cov)
    # gesdd's order 300 over the LAPACK block size 64: the two-stage SVD; the 4 x 300 sample
    # product below OZBLAS_MIN_SIZE stays native whatever OZBLAS_ROUTINES says
    env = _base_env(tmp_path, OZBLAS_MIN_SIZE="64", OZBLAS_LAPACK_NB="64", OZBLAS_NUM_THREADS="1")
    del env["OZBLAS_TRACE"]
    plain = {k: v for k, v in env.items() if not k.startswith("OZBLAS_")}
    native, _ = _mvn(tmp_path, "native", plain)
    routed, st = _mvn(tmp_path, "routed", dict(env, LD_PRELOAD=shim.library_path()))
    assert st["dgesdd"]["ozblas"] == 1, st["dgesdd"]  # the SVD really was routed ...
    assert not np.array_equal(routed, native)          # ... and gave other samples
    kept, st = _mvn(tmp_path, "kept", dict(env, LD_PRELOAD=shim.library_path(), OZBLAS_ROUTINES="-gesdd"))
    assert np.array_equal(kept, native)
    assert st["dgesdd"]["ozblas"] == 0 and f"native: {REASON}" in st["dgesdd"]["routes"]
    # the host dgesdd's own calls (dgebrd, dormbr, ...) came through the shim and stayed native
    inner = {r: v for r, v in st.items() if r not in ("dgesdd", "dgemm") and v["calls"]}
    assert inner and all(list(v["routes"]) == [f"native: {REASON}"] for v in inner.values()), inner


# ---- in-process activation ------------------------------------------------------------------

ACTIVATED = """
    import json, sys, numpy as np, ozblas
    d = dict(np.load(sys.argv[1] + "/in.npz"))
    with ozblas.activated(method="ozaki2", moduli=16, min_size=0, routines="-dgemm"):
        kept = d["a"] @ d["b"], d["za"] @ d["zb"]
    with ozblas.activated(method="ozaki2", moduli=16, min_size=0):
        routed = d["a"] @ d["b"]
    np.savez(sys.argv[1] + "/out.npz", d=kept[0], z=kept[1], routed=routed)
"""


def test_activation_keyword_leaves_a_routine_native(tmp_path, inputs):
    np.savez(tmp_path / "in.npz", **inputs)
    env = _base_env(tmp_path)
    env = {k: v for k, v in env.items() if not k.startswith("OZBLAS_")}
    env["OZBLAS_TRACE"] = str(tmp_path / "trace.log")
    (tmp_path / "child.py").write_text(__import__("textwrap").dedent(ACTIVATED))
    p = subprocess.run([sys.executable, str(tmp_path / "child.py"), str(tmp_path)], env=env,
                       capture_output=True, text=True, timeout=120)
    _ok(p)
    out = np.load(tmp_path / "out.npz")
    assert np.array_equal(out["d"], inputs["a"] @ inputs["b"])
    assert not np.array_equal(out["z"], inputs["za"] @ inputs["zb"])  # zgemm was routed
    assert not np.array_equal(out["routed"], inputs["a"] @ inputs["b"])
    t = [(x["routine"], x["route"], x.get("reason")) for x in _trace(tmp_path)]
    assert t == [("dgemm", "native", f'"{REASON}"'), ("zgemm", "ozblas", None), ("dgemm", "ozblas", None)]
