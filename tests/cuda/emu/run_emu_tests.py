"""Runs pytest against the emulated build of build_emu.sh (a package folder), even where an
editable install of ozblas (whose import hook wins over PYTHONPATH) is present.

    python3 tests/cuda/emu/run_emu_tests.py /tmp/ozblas_emu tests/cuda/test_cuda_executor.py -q
"""
import sys

dest = sys.argv[1]
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__.lower()
                    and "skbc" not in type(f).__module__.lower()]
sys.path.insert(0, dest)
import ozblas  # noqa: E402

assert ozblas.__file__.startswith(dest), ozblas.__file__
import pytest  # noqa: E402

sys.exit(pytest.main(["-p", "no:cacheprovider", *sys.argv[2:]]))
