#!/usr/bin/env bash
# Builds libozblas with the CUDA executor compiled for the CPU emulation (cuda_emu.h,
# cublas_emu.cpp, cublaslt_emu.cpp) into a Python package folder, to run the GPU tests without a GPU:
#
#   bash native/src/cuda/emu/build_emu.sh /tmp/ozblas_emu
#   PYTHONPATH=/tmp/ozblas_emu python3 -m pytest -q -p no:cacheprovider \
#       tests/cuda/test_cuda_executor.py -k "not large"
#
# (the emulation runs every GPU thread as a fiber: fine for small sizes, slow for big ones).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../../.." && pwd)
DEST=${1:-/tmp/ozblas_emu}
OBJ="$DEST/obj"
rm -rf "$DEST"
mkdir -p "$OBJ"
cp -r "$ROOT/ozblas" "$DEST/ozblas"
cp "$ROOT/native/include/ozblas.h" "$ROOT/native/src/shim/shim_names.h" "$DEST/ozblas/"
cd "$ROOT/native"
FLAGS="-O2 -fPIC -ffp-contract=off -fno-fast-math -fvisibility=hidden -fopenmp -Iinclude"
for f in $(find src -name '*.c' ! -name no_cuda.c ! -path '*/shim/*' | sort); do
    gcc -std=c11 $FLAGS -DOZBLAS_BUILD -DOZBLAS_VERSION='"emu"' -c "$f" -o "$OBJ/$(basename "$f" .c).o"
done
# every .cu of src/cuda but the cuBLAS loader (replaced by cublas_emu.cpp)
for f in $(find src/cuda -maxdepth 1 -name '*.cu' ! -name cublas_loader.cu | sort); do
    g++ -std=c++17 $FLAGS -Isrc -DOZ_CUDA_EMU -DOZBLAS_CUDA_ARCHS='"emulated"' -x c++ \
        -c "$f" -o "$OBJ/$(basename "$f" .cu).o"
done
for f in cublas_emu cublaslt_emu; do
    g++ -std=c++17 $FLAGS -O3 -march=native -Isrc -DOZ_CUDA_EMU -c "src/cuda/emu/$f.cpp" -o "$OBJ/$f.o"
done
g++ -shared -fopenmp -o "$DEST/ozblas/libozblas.so" "$OBJ"/*.o -ldl -lm -lpthread
echo "built $DEST/ozblas/libozblas.so"

# device pointers through the C API (one process, so "device" memory is shared)
g++ -std=c++17 -O1 -Iinclude -Isrc -Isrc/cuda/emu -DOZ_CUDA_EMU -fopenmp \
    src/cuda/emu/test_device_pointers.cpp "$OBJ"/*.o -o "$DEST/test_device_pointers" -ldl -lm -lpthread
"$DEST/test_device_pointers"
