#!/usr/bin/env bash
# The one device check (docs/design/gpu-checking.md): on a machine with a CUDA GPU, build ozblas for
# sm_90, run the GPU tests, the speed and accuracy benchmark (its table gives each call's
# phase times: stats, residues, INT8 products, reduction, CRT + update), then the policy
# check, and the LAPACK layer against cuSOLVER (benchmarks/lapack_gpu.py). Everything is
# logged to $OUT/device_log.txt (the build to build_log.txt); the benchmark writes
# $OUT/gpu_results.json after every measurement, so a timeout still leaves what was measured. At most 7 files under $OUT. Fits in 5.5 minutes, build included.
#
#   OUT=/some/dir bash benchmarks/device_check.sh        (default OUT=benchmarks/results)
#   OZ_CHECK_SECONDS=330 caps the whole run (GPU tests at most 150 s) (the benchmark gets what the tests and the
#   policy check leave).
#   OZ_BENCH_ARGS: gpu_bench.py's arguments, "--device-arrays" unless set (Ozaki II on CuPy
#   arrays, device-event time, against CuPy's native; with 16384 also in one INT8 call per
#   product, to show what the 8192-column chunks gain; side by side with cuBLAS's own FP64
#   emulation, Ozaki II at 12-16 moduli and automatic precision, each one's accuracy against
#   the CPU oracle; the INT8 products through cuBLASLt's cached plans against cublasGemmEx,
#   every modulus in one product against one per modulus at n <= 4096; batched GEMMs on
#   CuPy stacks against CuPy's batched matmul and one call per product); OZ_BENCH_ARGS=
#   for host arrays.
#   OZ_POLICY_CHECK=0 leaves out benchmarks/policy_check.py (calibration, then the cost
#   model's predictions against the CPU and GPU candidates' times; at most 80 s here).
#   OZ_LAPACK_CHECK=0 leaves out benchmarks/lapack_gpu.py (getrf/potrf on CuPy arrays against
#   cuSOLVER, scipy.linalg.solve at n = 16384 against the host LAPACK; at most 45 s here).
# The machine is offline: cffi and pycparser (not in the CUDA image) travel as wheels in
# .whl/ (.whl is git-ignored; fetch them with the command printed below when missing).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-benchmarks/results}
mkdir -p "$OUT"
LOG="$OUT/device_log.txt"
export PYTHONUNBUFFERED=1
export OZBLAS_CUDA_VERBOSE=1 # failing CUDA/cuBLAS calls are named on stderr
TOTAL=${OZ_CHECK_SECONDS:-330}
POLICY=${OZ_POLICY_CHECK:-1}
POLICY_S=80 # the policy check's share, kept back from the benchmark
LAPACK=${OZ_LAPACK_CHECK:-1}
LAPACK_S=45 # the LAPACK benchmark's share, likewise
START=$SECONDS
elapsed() { echo $((SECONDS - START)); }

main() {

echo "== ozblas device check, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
COMMIT=$(git rev-parse --verify -q HEAD 2>/dev/null || echo "${OZBLAS_COMMIT:-unknown}")
export OZBLAS_COMMIT=$COMMIT
echo "commit: $COMMIT"
nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used,clocks.sm,clocks.max.sm,temperature.gpu \
    --format=csv 2>&1 || echo "nvidia-smi failed"
python3 --version
nvcc --version | tail -2

# cffi and pycparser travel as wheels (the machine is offline)
if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl &&
        export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
if ! python3 -c "import cffi, pycparser, scikit_build_core"; then
    echo "MISSING PYTHON PACKAGES: cffi and pycparser (and scikit-build-core) must import here."
    echo "Carry them as wheels: on the development machine, in the repository root:"
    echo "  python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \\"
    echo "    --implementation cp --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \\"
    echo "    -d .whl cffi pycparser"
    echo "and name .whl in the run's carry."
    return 2
fi

echo "== build (sm_90 only) [$(elapsed) s]"
# scikit-build-core passes CMAKE_ARGS to CMake (and -C cmake.define.* the same way)
export CMAKE_ARGS="-DCMAKE_CUDA_ARCHITECTURES=90"
if ! python3 -m pip install -v --no-build-isolation --no-deps -e . >"$OUT/build_log.txt" 2>&1; then
    tail -60 "$OUT/build_log.txt"
    echo "BUILD FAILED"
    return 1
fi
grep -E "ozblas: CUDA executor|error|warning" "$OUT/build_log.txt" | head -20
echo "build done [$(elapsed) s]"
python3 - <<'EOF'
import json, ozblas
i = ozblas.info()
print(json.dumps({k: i.get(k) for k in ("version", "library", "host_blas", "executors")}, indent=1))
for k, v in i.items():
    if k.startswith("cuda") and isinstance(v, str):
        print(f"{k}: {v}")
EOF

echo "== GPU tests (every test marked gpu: tests/cuda/test_cuda_executor.py, tests/cuda/test_device_arrays.py,"
echo "   tests/shim/test_shim_cublas.py (CuPy under the preload shim), tests/cuda/test_cuda_multi.py"
echo "   (cuda:all over this machine's GPUs: one GPU makes it a one-device list), tests/lapack/test_lapack_cuda.py"
echo "   (the LAPACK layer device-resident, on device pointers and CuPy arrays),"
echo "   tests/shim/test_shim_cublaslt.py (cuBLASLt: a raw FP64 cublasLtMatmul through ctypes on CuPy"
echo "   arrays, PyTorch's fused float64 addmm; never run on a GPU before), ...) [$(elapsed) s]"
timeout 150 python3 -m pytest -q -m gpu tests -rfE --durations=8 \
    --junitxml="$OUT/pytest_gpu.xml" -p no:cacheprovider
TEST_RC=$?
echo "GPU tests exit code: $TEST_RC [$(elapsed) s]"

echo "== benchmark [$(elapsed) s]"
LEFT=$((TOTAL - $(elapsed) - 15))
if [ "$POLICY" = 1 ]; then LEFT=$((LEFT - POLICY_S)); fi
if [ "$LAPACK" = 1 ]; then LEFT=$((LEFT - LAPACK_S)); fi
if [ "$LEFT" -gt 30 ]; then
    # gpu_bench.py stops starting measurements after --budget and is killed 10 s later
    timeout $((LEFT + 10)) python3 benchmarks/gpu_bench.py --out "$OUT/gpu_results.json" \
        --budget $((LEFT - 10)) ${OZ_BENCH_ARGS---device-arrays}
    echo "benchmark exit code: $? [$(elapsed) s]"
else
    echo "no time left for the benchmark"
fi

if [ "$POLICY" = 1 ]; then
    # the cost model against this GPU: calibrate, then time the device candidates (CuPy
    # arrays); writes policy_check.json and .png under $OUT
    echo "== policy check [$(elapsed) s]"
    timeout "$POLICY_S" python3 benchmarks/policy_check.py --sizes 256 512 --repeats 2 \
        --budget 20 --out "$OUT"
    echo "policy check exit code: $? [$(elapsed) s]"
fi

if [ "$LAPACK" = 1 ]; then
    echo "== LAPACK layer against cuSOLVER [$(elapsed) s]"
    timeout "$LAPACK_S" python3 benchmarks/lapack_gpu.py --out "$OUT/lapack_gpu.json" \
        --budget $((LAPACK_S - 15))
    echo "LAPACK benchmark exit code: $? [$(elapsed) s]"
fi

echo "== summary [$(elapsed) s]"
echo "GPU tests: exit code $TEST_RC ($(grep -o 'tests="[0-9]*"' "$OUT/pytest_gpu.xml" 2>/dev/null)" \
    "$(grep -o 'failures="[0-9]*"' "$OUT/pytest_gpu.xml" 2>/dev/null)" \
    "$(grep -o 'errors="[0-9]*"' "$OUT/pytest_gpu.xml" 2>/dev/null)" \
    "$(grep -o 'skipped="[0-9]*"' "$OUT/pytest_gpu.xml" 2>/dev/null))"
if [ -f "$OUT/gpu_results.json" ]; then
    python3 benchmarks/gpu_bench.py --table "$OUT/gpu_results.json"
fi
return "$TEST_RC"
}

main 2>&1 | tee -a "$LOG"
exit "${PIPESTATUS[0]}"
