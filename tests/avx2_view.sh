#!/usr/bin/env bash
# Runs a command as a machine without AVX-512 sees this one: NumPy's AVX-512 dispatch targets
# disabled (NPY_DISABLE_CPU_FEATURES, the names asked of the NumPy installed, which change
# between NumPy versions) and OpenBLAS on its Haswell (AVX2) kernels. docs/testing.md.
#   bash tests/avx2_view.sh python -m pytest -q tests/cpu
set -euo pipefail
PY=${PYTHON:-python3}
feats=$("$PY" -c '
try:
    from numpy._core._multiarray_umath import __cpu_dispatch__ as d
except ImportError:  # NumPy 1.x
    from numpy.core._multiarray_umath import __cpu_dispatch__ as d
print(" ".join(f for f in d if "512" in f or f.startswith("X86_V4")))')
export NPY_DISABLE_CPU_FEATURES="$feats" OPENBLAS_CORETYPE=Haswell
exec "$@"
