"""Method auto on a machine without a GPU and without a calibration (issue 13 row 9): native
for every size, d and z, as docs/policy.md says. The built-in cpu profile took a 1 us fixed
cost per emulated call where `ozblas calibrate --quick` measures 10-32 us, so 2 x 2
products were emulated (145 us against 56 us native)."""

import itertools
import os
import subprocess
import sys

import pytest

import ozblas
from ozblas import policy

SIZES = (1, 2, 3, 5, 8, 16, 31, 64, 100, 128, 256, 512, 1000, 1024, 2048, 4096)
LARGE = [(8192, 8192, 8192), (16384, 16384, 16384), (65536, 65536, 65536), (1, 1, 1 << 27),
         (1 << 20, 1 << 20, 16), (100000, 8, 100000)]


def _no_gpu_estimate():
    p, note = policy.load_profile("")  # the built-in estimate for a host alone
    assert not p.has_device and not p.calibrated and p.name == "cpu", note
    return p


@pytest.mark.parametrize("dtype", ["d", "z"])
def test_auto_is_native_for_every_size(dtype):
    p = _no_gpu_estimate()
    grid = list(itertools.product(SIZES, repeat=3)) + LARGE
    chosen = {(m, n, k): policy.choose(m, n, k, dtype, "host", p)["method"] for m, n, k in grid}
    emulated = {mnk: c for mnk, c in chosen.items() if c != "native"}
    assert not emulated, sorted(emulated)[:10]


@pytest.mark.skipif(ozblas.info()["executors"]["cuda"]["available"], reason="a CUDA device is present")
def test_a_process_without_gpu_or_cache_keeps_tiny_products_native(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_") and k != "LD_PRELOAD"}
    env["XDG_CACHE_HOME"] = str(tmp_path)  # no calibration cache there
    body = ("import numpy as np, ozblas\n"
            "for n in (2, 3, 16, 300):\n"
            "    for dt in (np.float64, np.complex128):\n"
            "        a = np.random.rand(n, n).astype(dt)\n"
            "        _, i = ozblas.matmul(a, a, return_info=True)\n"
            "        print(n, i['method'], i['fallback'])\n")
    p = subprocess.run([sys.executable, "-c", body], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.split("\n")[:-1]
    assert len(lines) == 8 and all(x.endswith(" native auto chose native") for x in lines), p.stdout
