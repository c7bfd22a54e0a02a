# The library's source lists, read by CMakeLists.txt and by the CUDA emulation harness
# (tests/cuda/emu/CMakeLists.txt, which compiles the same files with g++): one list.
# Paths are made absolute so that either project can use them.
set(OZ_SOURCES
  src/core/api.c
  src/core/dispatch.c
  src/core/config.c
  src/core/status.c
  src/core/alloc.c
  src/core/policy_profiles.c
  src/core/policy_model.c
  src/core/policy_cache.c
  src/core/build_info.c
  src/core/launcher.c
  src/executor_table.c
  src/core/executors.c
  src/core/symbol_lookup.c
  src/core/version.c
  src/core/driver_auto.c
  src/core/driver_ozaki2.c
  src/core/driver_batch.c
  src/core/driver_split.c
  src/core/driver_ozaki1.c
  src/numerics/ozaki2_table.c
  src/numerics/exact_table.c
  src/core/exact_gemm.c
  src/cpu/cpu_executor.c
  src/cpu/cpu_exact.c
  src/cpu/cpu_ozaki2.c
  src/cpu/cpu_common.c
  src/cpu/cpu_ozaki1.c
  src/cpu/cpu_engine.c
  src/cpu/host_blas.c
  src/lapack/lapack_api.c
  src/lapack/lapack_sytrf.c
  src/lapack/lapack_drivers.c
  src/lapack/lapack_real.c
  src/lapack/lapack_seam.c
  src/lapack/lapack_qr.c
  src/lapack/lapack_hess.c
  src/lapack/lapack_gels.c
  src/lapack/lapack_svd.c
  src/lapack/lapack_geev.c
  src/lapack/lapack_hseqr.c
  src/lapack/lapack_bdsdc.c
  src/lapack/lapack_lalsd.c
  src/lapack/lapack_brd.c
  src/lapack/lapack_blas3.c
  src/lapack/lapack_sygst.c
  src/lapack/lapack_trsyl.c
  src/lapack/lapack_band.c
  src/lapack/lapack_model.c
  src/lapack/lapack_eigen.c
  src/lapack/lapack_stedc.c)
# The CUDA executor: every .cu file of src/cuda, and its C files (host_copy.c: the staging's
# host-side copies, C for the library's OpenMP flags).
file(GLOB OZ_CUDA_SOURCES CONFIGURE_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/src/cuda/*.cu")
set(OZ_CUDA_C_SOURCES src/cuda/host_copy.c)
# A build without the CUDA executor instead.
set(OZ_NO_CUDA_SOURCES src/cuda/no_cuda.c)
foreach(list OZ_SOURCES OZ_CUDA_C_SOURCES OZ_NO_CUDA_SOURCES)
  list(TRANSFORM ${list} PREPEND "${CMAKE_CURRENT_LIST_DIR}/")
endforeach()
