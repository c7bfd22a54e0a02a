#!/usr/bin/env bash
# Builds the CUDA emulation harness (CMakeLists.txt here: libozblas.so with the CUDA executor
# compiled by g++ for the CPU emulation) and lays it out as a Python package folder, DEST, to
# run the GPU tests without a GPU (run_emu_tests.py). Needs gcc, g++ and CMake only.
#
#   bash tests/cuda/emu/build_emu.sh /tmp/oe                 # DEST; rebuilds incrementally
#   bash tests/cuda/emu/build_emu.sh /tmp/oe_san -DOZ_EMU_SANITIZE=ON   # ASan + UBSan
#   python tests/cuda/emu/run_emu_tests.py /tmp/oe tests/cuda -q -k "not large"
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
DEST=${1:-/tmp/ozblas_emu}
shift || true
GEN=()
if [ ! -f "$DEST/build/CMakeCache.txt" ] && command -v ninja >/dev/null; then
    GEN=(-G Ninja)
fi
cmake -S "$HERE" -B "$DEST/build" "${GEN[@]}" -DCMAKE_BUILD_TYPE= "$@" >/dev/null
cmake --build "$DEST/build" --parallel "$(nproc)"
rm -rf "$DEST/ozblas"
cp -r "$ROOT/ozblas" "$DEST/ozblas"
cp "$ROOT/native/include/ozblas.h" "$ROOT/native/src/shim/shim_names.h" \
    "$DEST/build/libozblas.so" "$DEST/build/libcublasLt_emu.so" "$DEST/ozblas/"
echo "built $DEST/ozblas/libozblas.so"
