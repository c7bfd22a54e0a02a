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
                       timeout=3600)
    assert r.returncode == 0 and "failures: 0" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]


def _child(code, **env):
    """code run in a fresh Python on this build (its library path in LIB)."""
    import os
    import sys
    lib = ozblas._native.library_path()
    return subprocess.run([sys.executable, "-c", f"LIB = {str(lib)!r}\n" + code],
                          env=dict(os.environ, **env), capture_output=True, text=True,
                          timeout=120)


_TOUCH = """
import ctypes
lib = ctypes.CDLL(LIB)
lib.oz_cuda_test_malloc.restype = ctypes.c_void_p
lib.oz_cuda_test_malloc.argtypes = [ctypes.c_size_t]
lib.oz_cuda_test_memcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
p = lib.oz_cuda_test_malloc(1000)
x = (ctypes.c_double * 125)(*range(125))
assert lib.oz_cuda_test_memcpy(p, x, 1000) == 0      # through a copy: fine
y = (ctypes.c_double * 125)()
assert lib.oz_cuda_test_memcpy(y, p, 1000) == 0
assert list(y) == list(x)
print("copies ok", flush=True)
print(ctypes.c_double.from_address(p + 8 * {index}).value, flush=True)   # the host reads it
"""


@pytest.mark.parametrize("index", [0, 124, 125 + 32])  # first, last, past the end
def test_the_host_touching_device_memory_faults(index):
    """Device memory is closed to the host outside device work: a host read of it (or past a
    buffer's end) is a segmentation fault, named on stderr, where the copies work."""
    r = _child(_TOUCH.replace("{index}", str(index)))
    assert "copies ok" in r.stdout and r.returncode == -11, (r.returncode, r.stdout, r.stderr)
    assert "cuda_emu: device memory touched outside" in r.stderr, r.stderr


def _selftest(case, **env):
    import os
    return subprocess.run([str(BUILD / "emu_selftest"), case], env=dict(os.environ, **env),
                          capture_output=True, text=True, timeout=120)


def _sums(seed):
    r = _selftest("race", OZ_EMU_SEED=str(seed))
    assert r.returncode == 0, r.stderr
    return {" ".join(line.split()[:2]): int(line.split()[2]) for line in r.stdout.splitlines()}


def test_a_race_changes_bits():
    """Threads run in a shuffled order between barriers and blocks in a shuffled order: a
    missing __syncthreads, or a block reading another block's writes, changes the result
    under every seed the tests use, while index order (seed 0) hides two of the three."""
    want = {"last_reads": 256 * 257 // 2, "tree": 3 * 255 * 256 // 2 + 256, "blocks": 64 * 65 // 2}
    in_order = _sums(0)
    assert in_order["last_reads racy"] == want["last_reads"]
    assert in_order["blocks racy"] == want["blocks"]
    for seed in (1, 2, 12345):
        got = _sums(seed)
        for case, value in want.items():
            assert got[f"{case} fixed"] == value, (seed, case, got)
            assert got[f"{case} racy"] != value, (seed, case, got)


def _errors(**env):
    r = _selftest("smem", **env)
    assert r.returncode == 0, r.stderr
    return {line.split()[0]: int(line.split()[1]) for line in r.stdout.splitlines()}


def test_shared_memory_limits():
    """Static plus dynamic shared memory per launch: 48 KB unless the kernel's
    cudaFuncAttributeMaxDynamicSharedMemorySize was raised, and never over the device's
    per-block maximum (227 KB on cc 9.0, 99 KB on cc 12.0); a launch over them fails (at the
    launch, or at the synchronisation on the kernel's first run, before which its static
    size is unknown), one within them runs. cudaErrorInvalidValue is 1."""
    fails_on_both = ["static40_dyn16", "static39_dyn16", "static39_dyn16_again",
                     "static1_dyn100", "static1_dyn101_raised", "static2_dynmax_raised"]
    hopper = _errors(OZ_EMU_CC="9.0")
    assert all(hopper[k] == 1 for k in fails_on_both), hopper
    assert hopper["static40_dyn0"] == hopper["static40_dyn8"] == 0, hopper
    assert hopper["raise_static1_100"] == hopper["static1_dyn100_raised"] == 0, hopper
    assert hopper["result"] == 31 + (100 << 10) // 8 - 1, hopper  # the raised launch ran
    assert hopper["raise_static1_max"] == 1 and hopper["raise_static0_max"] == 0, hopper
    rtx = _errors(OZ_EMU_CC="12.0")
    assert all(rtx[k] == 1 for k in fails_on_both), rtx
    assert rtx["raise_static1_100"] == rtx["static1_dyn100_raised"] == 1, rtx  # over 99 KB


def test_static_shared_memory_over_48_kb_does_not_build():
    """More than 48 KB of static shared memory: nvcc refuses the kernel; the emulation aborts."""
    r = _selftest("smem_big")
    assert r.returncode == -6 and "over 48 KB: nvcc refuses" in r.stderr, (r.returncode, r.stderr)


_CACHE = BUILD / "CMakeCache.txt"
SANITIZED = _CACHE.is_file() and "OZ_EMU_SANITIZE:BOOL=ON" in _CACHE.read_text()


@pytest.mark.skipif(not SANITIZED, reason="needs the sanitized build "
                    "(build_emu.sh DEST -DOZ_EMU_SANITIZE=ON)")
@pytest.mark.parametrize("case, says", [
    ("bounds_device", "AddressSanitizer: use-after-poison"),  # the slack after a buffer
    ("bounds_shared", "index 64 out of bounds"),
    ("overflow", "signed integer overflow"),
])
def test_the_sanitizers_stop_a_kernel_out_of_bounds(case, says):
    r = _selftest(case)
    assert r.returncode != 0 and "not caught" not in r.stdout and says in r.stderr, r.stderr


def test_threads_at_different_barriers_abort():
    """Half a block at one __syncthreads, half at another: a hang or garbage on a GPU, an
    abort naming both here (not one barrier, as before)."""
    r = _selftest("divergent")
    assert r.returncode == -6 and "wait at different barriers" in r.stderr, r.stderr


def test_device_work_touching_another_devices_memory_faults():
    """A pointer to device 1's memory hidden in a struct argument of a kernel on device 0 (the
    launch checks only pointer arguments): device work opens only its own device's memory."""
    r = _selftest("cross_device", OZ_EMU_DEVICES="2")
    assert r.returncode == -11 and "device memory touched outside its device's work" in r.stderr, r.stderr
