"""The CUDA emulation harness itself (this folder): run by run_emu_tests.py against a build of
build_emu.sh, skipped elsewhere. The C test of device pointers through the C API, and the
harness's own checks: each proves that a bug class the harness claims to catch is caught."""
import subprocess
from pathlib import Path

import pytest

import ozblas

EMULATED = "built for emulated" in ozblas.info()["cuda"]
pytestmark = pytest.mark.skipif(not EMULATED, reason="needs the CUDA emulation harness "
                                "(tests/cuda/emu/run_emu_tests.py)")
BUILD = Path(ozblas.__file__).resolve().parents[1] / "build"


def test_device_pointers_through_the_c_api():
    """test_device_pointers.cpp: device operands in place, mixed with host ones, tiled, on
    several devices; every result the host-pointer call's and the CPU executor's bits."""
    r = subprocess.run([str(BUILD / "test_device_pointers")], capture_output=True, text=True,
                       timeout=1200)
    assert r.returncode == 0 and "failures: 0" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
