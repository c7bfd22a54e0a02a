"""The FP4 engine on the CUDA executor (native/src/cuda/cuda_fp4.cu): cuBLASLt block-scaled FP4
products, bit for bit the CPU executor's FP4 model and the NumPy reference, and the
per-device probe that refuses the engine where it could give wrong bits.

Needs a Blackwell GPU (cc 10.x or 12.x) or the CPU emulation (tests/cuda/emu), where
this module selects an emulated cc 10.0 device (OZ_EMU_CC, read by the emulation only) unless
one is chosen already; the refusals run in subprocesses under the emulation's other settings
(cc 9.0, no cuBLASLt, an old cuBLASLt, an FP32 accumulation that drops bits). Every test is
marked ``gpu``.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import ozblas
from ozblas import reference
from ozblas._native import ffi, lib, load
from ozblas.testing import make_matrix

import _compare
from _compare import assert_same_bits

_EMULATED = "cublas_emu" in ozblas.info()["cuda"]  # the CPU emulation of tests/cuda/emu
if _EMULATED:
    os.environ.setdefault("OZ_EMU_CC", "10.0")


def _fp4_state(device=0):
    load()
    why = ffi.new("char[512]")
    ok = lib.ozblas_engine_available(lib.OZBLAS_EXECUTOR_CUDA, lib.OZBLAS_ENGINE_FP4, device,
                                     why, 512)
    return bool(ok), ffi.string(why).decode()


_OK, _WHY = _compare.cuda_state()
pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not _OK, reason=f"CUDA executor unavailable: {_WHY}"),
]


@pytest.fixture(scope="module")
def fp4():
    ok, why = _fp4_state()
    if not ok:
        if _EMULATED:
            pytest.fail(f"the emulated cc 10.0 device refused FP4: {why}")
        pytest.skip(f"FP4 engine unavailable on this GPU: {why}")
    return why


_KEYS = ("method", "moduli", "slices", "variant", "scaling", "fallback", "engine",
         "engine_products", "int_gemms", "fp64_passes", "bits_a", "bits_b", "bound")


def _stored(x, t):
    return x if t == "N" else (x.T.copy() if t == "T" else x.conj().T.copy())


def _case(cplx, ta, tb, phi, seed, m=23, k=41, n=17):
    dt = np.complex128 if cplx else np.float64
    a = make_matrix(m, k, phi, seed=seed, dtype=dt)
    b = make_matrix(k, n, phi, seed=seed + 1, dtype=dt)
    return a, b, _stored(a, ta), _stored(b, tb)


def _both(cplx, sa, sb, ta, tb, **kw):
    fn = ozblas.zgemm if cplx else ozblas.dgemm
    code = {"N": 0, "T": 1, "C": 2}
    alpha = (0.75 - 0.5j) if cplx else 1.25
    return _compare.both_gemm(fn, alpha, sa, sb, trans_a=code[ta], trans_b=code[tb],
                              engine="fp4", **kw)


def test_the_probe_passes_on_a_blackwell_device(fp4):
    assert "probe exact" in fp4 and "116508" in fp4


_O2 = [(cx, ta, tb, phi) for cx in (False, True)
       for ta, tb in (("N", "N"), ("T", "N"), ("N", "T")) + ((("C", "N"), ("N", "C")) if cx else ())
       for phi in (0.0, 2.0)]


@pytest.mark.parametrize("cplx,ta,tb,phi", _O2)
def test_ozaki2_fp4_equals_the_cpu_executor_and_the_reference(fp4, cplx, ta, tb, phi):
    a, b, sa, sb = _case(cplx, ta, tb, phi, seed=int(phi * 10) + 3 * cplx)
    what = f"ozaki2 fp4 {'z' if cplx else 'd'} {ta}{tb} phi={phi}"
    cc, rc, cp, rp = _both(cplx, sa, sb, ta, tb, method="ozaki2")  # automatic precision
    # the same INT8 products: the call takes the bits the probe set (no second bound product)
    assert rc["int_gemms"] == rp["int_gemms"], what
    _compare.assert_same_report(rc, rp, _KEYS, what)
    assert rc["fallback"] is None and rc["engine"] == "fp4", (what, rc)
    assert_same_bits(cc, cp, what)
    alpha = (0.75 - 0.5j) if cplx else 1.25
    ref, fb = reference.ozaki2(a, b, moduli=rc["moduli"], engine="fp4", alpha=alpha)
    assert fb is None
    assert_same_bits(cc, np.asarray(ref), what + " vs reference")


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("moduli,scaling", [(12, "fast"), (19, "accurate"), (28, "fast")])
def test_ozaki2_fp4_fixed_counts(fp4, cplx, moduli, scaling):
    _, _, sa, sb = _case(cplx, "N", "N", 1.0, seed=40 + moduli)
    cc, rc, cp, rp = _both(cplx, sa, sb, "N", "N", method="ozaki2", moduli=moduli,
                           scaling=scaling)
    _compare.assert_same_report(rc, rp, _KEYS, f"moduli {moduli}")
    assert rc["fallback"] is None, rc
    assert_same_bits(cc, cp, f"moduli {moduli} {scaling}")


_O1 = [(cx, ta, tb, var) for cx in (False, True)
       for ta, tb in (("N", "N"), ("T", "C" if cx else "T"))
       for var in ("bitmask", "hybrid")]


@pytest.mark.parametrize("cplx,ta,tb,variant", _O1)
def test_ozaki1_fp4_equals_the_cpu_executor_and_the_int8_engine(fp4, cplx, ta, tb, variant):
    a, b, sa, sb = _case(cplx, ta, tb, 1.0, seed=7 + cplx, m=13, k=29, n=9)
    what = f"ozaki1 fp4 {variant} {'z' if cplx else 'd'} {ta}{tb}"
    cc, rc, cp, rp = _both(cplx, sa, sb, ta, tb, method="ozaki1", variant=variant)
    _compare.assert_same_report(rc, rp, _KEYS, what)
    assert rc["fallback"] is None and rc["engine"] == "fp4", (what, rc)
    assert_same_bits(cc, cp, what)
    ref, fb = reference.ozaki1(a, b, slices=rc["slices"], variant=variant, engine="fp4",
                               alpha=(0.75 - 0.5j) if cplx else 1.25)
    assert fb is None
    assert_same_bits(cc, np.asarray(ref), what + " vs reference")
    # the slices' products are exact on either engine: the same bits as INT8
    fn = ozblas.zgemm if cplx else ozblas.dgemm
    code = {"N": 0, "T": 1, "C": 2}
    c8 = fn((0.75 - 0.5j) if cplx else 1.25, sa, sb, trans_a=code[ta], trans_b=code[tb],
            executor="cuda", method="ozaki1", variant=variant, slices=rc["slices"],
            engine="int8")
    assert_same_bits(cc, c8, what + " vs int8")


def test_fp4_products_in_tiles_equal_the_untiled_ones(fp4):
    """A cap on the device memory puts the FP4 work area in the tiling's plan."""
    import test_cuda_tiling as tiling
    a = np.asfortranarray(make_matrix(70, 90, 1.0, seed=5))
    b = np.asfortranarray(make_matrix(90, 50, 1.0, seed=6))
    for method in ("ozaki2", "ozaki1"):
        with tiling.workspace_cap(300_000):
            cc, rc = ozblas.matmul(a, b, executor="cuda", engine="fp4", method=method,
                                   return_info=True)
            plan = tiling.hooks().last_plan()
        cp = ozblas.matmul(a, b, executor="cpu", engine="fp4", method=method)
        assert plan["nI"] * plan["nJ"] * plan["nL"] > 1, (method, plan)
        assert rc["fallback"] is None
        assert_same_bits(cc, cp, f"{method} tiled {plan}")


# ---- refusals (emulated devices, one process each: the decision is made once per device) ----

_CHILD = r"""
import json, numpy as np, ozblas
from ozblas._native import ffi, lib, load
load()
why = ffi.new("char[512]")
ok = lib.ozblas_engine_available(lib.OZBLAS_EXECUTOR_CUDA, lib.OZBLAS_ENGINE_FP4, 0, why, 512)
a = np.arange(12.0).reshape(3, 4) / 7
c, info = ozblas.matmul(a, a.T, executor="cuda", method="ozaki2", engine="fp4", return_info=True)
exact = np.abs(c - a @ a.T).max() < 1e-14
print(json.dumps({"ok": ok, "why": ffi.string(why).decode(), "fallback": info["fallback"],
                  "method": info["method"], "note": info["engine_note"], "close": bool(exact)}))
"""


# this build of ozblas in the child, even where an editable install's import hook would win
_PRELUDE = """import sys
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__.lower()
                    and "skbc" not in type(f).__module__.lower()]
sys.path.insert(0, %r)
""" % os.path.dirname(os.path.dirname(ozblas.__file__))


def _child(**env):
    e = dict(os.environ, **env)
    p = subprocess.run([sys.executable, "-c", _PRELUDE + _CHILD], env=e, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    import json
    return json.loads(p.stdout.strip().splitlines()[-1])


_REFUSALS = [
    ({"OZ_EMU_CC": "9.0"}, "cc 9.0"),
    ({"OZ_EMU_CC": "12.0", "OZ_EMU_FP4_ACC_BITS": "23"}, "not exact"),
    ({"OZ_EMU_CC": "10.0", "OZ_EMU_CUBLASLT": "none"}, "cuBLASLt not found"),
    ({"OZ_EMU_CC": "10.0", "OZ_EMU_CUBLASLT_VERSION": "120700"}, "12.8 or newer"),
]


@pytest.mark.skipif(not _EMULATED, reason="needs the CPU emulation's device settings")
@pytest.mark.parametrize("env,reason", _REFUSALS, ids=["cc9", "dropped-bits", "no-lt", "old-lt"])
def test_the_engine_is_refused_with_its_reason(env, reason):
    r = _child(**env)
    assert not r["ok"] and reason in r["why"], r
    # the call falls back, says why, and computes the product natively
    assert r["fallback"] == "engine not available on this executor or device", r
    assert r["method"] == "native" and reason in r["note"], r
    assert r["close"], r


@pytest.mark.skipif(not _EMULATED, reason="needs the CPU emulation's device settings")
def test_a_full_fp32_accumulator_passes_on_cc_12():
    r = _child(OZ_EMU_CC="12.0", OZ_EMU_FP4_ACC_BITS="24")
    assert r["ok"] and r["fallback"] is None and r["method"] == "ozaki2", r
