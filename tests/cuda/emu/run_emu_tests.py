"""Runs pytest against the emulated build of build_emu.sh (a package folder), even where an
editable install of ozblas (whose import hook wins over PYTHONPATH) is present.

    python3 tests/cuda/emu/run_emu_tests.py /tmp/ozblas_emu tests/cuda -q -k "not large"

A build with -DOZ_EMU_SANITIZE=ON needs AddressSanitizer's runtime loaded before anything
else in the process: this script starts itself again with it preloaded (and leak checks off,
Python's own allocations being leaks to it; segmentation faults left to the harness's
handler, so that a host access to device memory reads the same as without sanitizers).
"""
import os
import subprocess
import sys
from pathlib import Path

dest = os.path.abspath(sys.argv[1])
cache = Path(dest, "build", "CMakeCache.txt")
if cache.is_file() and "OZ_EMU_SANITIZE:BOOL=ON" in cache.read_text():
    asan = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True,
                          text=True, check=True).stdout.strip()
    if asan not in os.environ.get("LD_PRELOAD", ""):
        env = dict(os.environ, LD_PRELOAD=asan,
                   ASAN_OPTIONS="detect_leaks=0:handle_segv=0:" + os.environ.get("ASAN_OPTIONS", ""),
                   UBSAN_OPTIONS="print_stacktrace=1:" + os.environ.get("UBSAN_OPTIONS", ""))
        os.execve(sys.executable, [sys.executable, *sys.argv], env)

sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__.lower()
                    and "skbc" not in type(f).__module__.lower()]
sys.path.insert(0, dest)
import ozblas  # noqa: E402

assert ozblas.__file__.startswith(dest), ozblas.__file__
import pytest  # noqa: E402

sys.exit(pytest.main(["-p", "no:cacheprovider", *sys.argv[2:]]))
