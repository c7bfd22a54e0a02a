"""`ozblas info`: what was built (ozblas/install_info.py, native/src/core/build_info.c) and the
driver present now."""

import json
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

import ozblas
from ozblas import install_info


def _info_json():
    r = subprocess.run([sys.executable, "-m", "ozblas", "info", "--json"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_build_facts_are_complete_and_agree_with_the_executor():
    d = _info_json()
    b = d["build"]
    assert set(b) == {"cuda", "cuda_architectures", "cuda_toolkit", "cuda_toolkit_source", "nvcc",
                      "cuda_note", "c_compiler", "native_arch"}
    assert b["c_compiler"]
    if b["cuda"]:
        # named whether or not a driver is present (this machine has none)
        assert b["cuda_architectures"], b
        assert all(re.fullmatch(r"\d+[a-z]?(-real|-virtual)?", a) for a in b["cuda_architectures"]), b
        assert re.match(r"\d+\.\d+", b["cuda_toolkit"]) and b["cuda_toolkit_source"] in ("system", "wheels")
        assert b["nvcc"] and b["cuda_note"] is None
        assert "not built" not in d["cuda"]
        if d["executors"]["cuda"]["available"]:
            assert f"built for {' '.join(b['cuda_architectures'])}" in d["cuda"]
    else:
        assert b["cuda_architectures"] == [] and b["cuda_toolkit"] is None and b["cuda_note"]
        assert not d["executors"]["cuda"]["available"]


def test_driver_part_is_separate_from_the_build():
    d = _info_json()
    drv = d["driver"]
    assert set(drv) == {"version", "devices", "error"}
    if drv["version"] is None:
        assert drv["error"] and drv["devices"] == [] and not d["executors"]["cuda"]["available"]
    else:
        assert re.fullmatch(r"\d+\.\d+", drv["version"])


def test_info_text_lists_build_and_driver():
    r = subprocess.run([sys.executable, "-m", "ozblas", "info"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    built = re.search(r"^built +(.*)$", r.stdout, re.M).group(1)
    b = ozblas.info()["build"]
    if b["cuda"]:
        assert " ".join(b["cuda_architectures"]) in built and b["cuda_toolkit"] in built
    else:
        assert b["cuda_note"] in built
    assert re.search(r"^driver +\S", r.stdout, re.M)


_FAKE_LIBCUDA = r"""
#include <string.h>
int cuDriverGetVersion(int *v) { *v = 13000; return 0; }
int cuInit(unsigned f) { (void)f; return 0; }
int cuDeviceGetCount(int *n) { *n = 2; return 0; }
int cuDeviceGet(int *d, int i) { *d = i; return 0; }
int cuDeviceGetName(char *s, int len, int d) { strncpy(s, d ? "Fake B" : "Fake A", len); return 0; }
int cuDeviceGetAttribute(int *v, int attr, int d) { *v = attr == 75 ? 9 : d; return 0; }
"""


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler for a stand-in libcuda")
def test_driver_devices_from_a_stand_in_libcuda(tmp_path):
    (tmp_path / "cuda.c").write_text(_FAKE_LIBCUDA)
    subprocess.run(["cc", "-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o", str(tmp_path / "libcuda.so.1"),
                    str(tmp_path / "cuda.c")], check=True)
    code = textwrap.dedent("""
        import ctypes, json, sys
        ctypes.CDLL(sys.argv[1])  # found by its soname when install_info opens libcuda.so.1
        from ozblas import install_info
        print(json.dumps(install_info.driver()))
    """)
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "libcuda.so.1")],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    assert json.loads(out) == {"version": "13.0", "error": None, "devices": [
        {"index": 0, "name": "Fake A", "compute_capability": "9.0"},
        {"index": 1, "name": "Fake B", "compute_capability": "9.1"}]}


def test_driver_without_libcuda_says_so(monkeypatch):
    import ctypes

    real = ctypes.CDLL

    def no_cuda(name, *a, **k):
        if name == "libcuda.so.1":
            raise OSError("not found")
        return real(name, *a, **k)

    monkeypatch.setattr(ctypes, "CDLL", no_cuda)
    assert install_info.driver() == {"version": None, "devices": [],
                                     "error": "no NVIDIA driver (libcuda.so.1 not found)"}
