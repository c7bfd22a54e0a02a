"""What this installation was built with, and what the machine offers now (`ozblas info`).

`built()` reports the build's facts, kept in the library (ozblas_build_get): whether the
CUDA executor is compiled in, its architectures, the toolkit and where it came from. They
hold whatever the machine has. `driver()` asks the NVIDIA driver itself (libcuda), so that a
CPU-only build on a GPU machine can say what it is missing.
"""

from __future__ import annotations

import ctypes

from ._native import ffi, lib, load

__all__ = ["built", "driver"]


def built() -> dict:
    load()
    b = ffi.new("ozblas_build_info *")
    lib.ozblas_build_get(b)
    text = lambda field: ffi.string(field).decode() or None
    return {
        "cuda": bool(b.cuda),
        "cuda_architectures": ffi.string(b.cuda_archs).decode().split(),
        "cuda_toolkit": text(b.cuda_version),
        "cuda_toolkit_source": text(b.cuda_source),
        "nvcc": text(b.cuda_compiler),
        "cuda_note": text(b.cuda_note),
        "c_compiler": text(b.c_compiler),
        "native_arch": bool(b.native_arch),
    }


_CU_ATTR_CC_MAJOR, _CU_ATTR_CC_MINOR = 75, 76  # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_*


def driver() -> dict:
    """The driver's CUDA version and devices ({"version": None, ...} without a driver)."""
    out = {"version": None, "devices": [], "error": None}
    try:
        cu = ctypes.CDLL("libcuda.so.1")
    except OSError:
        out["error"] = "no NVIDIA driver (libcuda.so.1 not found)"
        return out
    v = ctypes.c_int(0)
    if cu.cuDriverGetVersion(ctypes.byref(v)) == 0:
        out["version"] = f"{v.value // 1000}.{v.value % 1000 // 10}"
    n = ctypes.c_int(0)
    rc = cu.cuInit(0)
    if rc != 0 or cu.cuDeviceGetCount(ctypes.byref(n)) != 0:
        out["error"] = f"cuInit failed (CUresult {rc})" if rc else "cuDeviceGetCount failed"
        return out
    for i in range(n.value):
        d, name = ctypes.c_int(), ctypes.create_string_buffer(256)
        major, minor = ctypes.c_int(), ctypes.c_int()
        if cu.cuDeviceGet(ctypes.byref(d), i) or cu.cuDeviceGetName(name, 256, d):
            continue
        cu.cuDeviceGetAttribute(ctypes.byref(major), _CU_ATTR_CC_MAJOR, d)
        cu.cuDeviceGetAttribute(ctypes.byref(minor), _CU_ATTR_CC_MINOR, d)
        out["devices"].append({"index": i, "name": name.value.decode(errors="replace"),
                               "compute_capability": f"{major.value}.{minor.value}"})
    return out
