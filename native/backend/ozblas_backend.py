"""PEP 517 build backend: scikit-build-core, plus NVIDIA's CUDA compiler wheels where the
build needs them (pyproject.toml: build-backend = "ozblas_backend", backend-path).

The CUDA executor is compiled by nvcc. Where no CUDA toolkit is installed but an NVIDIA
driver is (a cloud node with PyTorch or CuPy wheels), `get_requires_for_build_wheel` (and
`_editable`) asks pip for NVIDIA's CUDA 13 compiler wheels, `nvidia-cuda-nvcc`,
`nvidia-nvvm` (cicc), `nvidia-cuda-crt`, `nvidia-cuda-runtime` (headers,
libcudart_static.a) and `nvidia-cuda-cccl`, at the driver's minor version or below, and
native/CMakeLists.txt takes nvcc from there (site-packages/nvidia/cu13). CUDA 12 has no such
path: its `nvidia-cuda-nvcc-cu12` wheels hold ptxas but no nvcc.

The one setting is a config-setting (never read at run time):
    pip install . -C cuda=auto     the default: an installed nvcc (CUDACXX, PATH,
                                   CUDA_HOME, /usr/local/cuda), else the wheels when a
                                   driver of CUDA 13 or later is present, else CPU only
    pip install . -C cuda=wheels   the wheels, even where an installed nvcc exists, and
                                   without a driver (the newest CUDA 13 then)
    pip install . -C cuda=off      CPU only
It reaches CMake as OZBLAS_CUDA; every other config-setting goes to scikit-build-core as is.
With --no-build-isolation pip installs no build requirement, so the wheels are used only if
they are already in the environment (CMake looks there in modes auto and wheels).
"""

from __future__ import annotations

import ctypes
import os
import shutil
import sys

from scikit_build_core import build as _skbuild

__all__ = ["build_editable", "build_sdist", "build_wheel", "get_requires_for_build_editable",
           "get_requires_for_build_sdist", "get_requires_for_build_wheel",
           "prepare_metadata_for_build_editable", "prepare_metadata_for_build_wheel"]

SETTING = "cuda"
MODES = ("auto", "wheels", "off")
WHEELS = ("nvidia-cuda-nvcc", "nvidia-nvvm", "nvidia-cuda-crt", "nvidia-cuda-runtime",
          "nvidia-cuda-cccl")
WHEEL_MAJOR = 13  # the first CUDA whose wheels carry nvcc


def _say(text: str) -> None:
    print(f"ozblas build: {text}", file=sys.stderr, flush=True)


def _mode(config_settings) -> str:
    value = (config_settings or {}).get(SETTING, "auto")
    if isinstance(value, list):  # given more than once: the last one
        value = value[-1] if value else "auto"
    value = value.strip().lower()
    if value not in MODES:
        raise ValueError(f"-C {SETTING}={value} is not valid; accepted: {', '.join(MODES)}")
    return value


def _for_skbuild(config_settings) -> dict:
    """The settings scikit-build-core gets: ours replaced by the CMake definition."""
    out = {k: v for k, v in (config_settings or {}).items() if k != SETTING}
    out["cmake.define.OZBLAS_CUDA"] = _mode(config_settings)
    return out


def system_nvcc() -> str | None:
    """The installed nvcc CMake's check_language(CUDA) would find, or None."""
    for path in (os.environ.get("CUDACXX"), shutil.which("nvcc"),
                 *(os.path.join(os.environ[v], "bin", "nvcc") for v in ("CUDA_HOME", "CUDA_PATH")
                   if os.environ.get(v)),
                 "/usr/local/cuda/bin/nvcc"):
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def driver_version() -> int | None:
    """The NVIDIA driver's CUDA version (13000 for 13.0), or None without a driver."""
    try:
        cu = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    v = ctypes.c_int(0)
    return v.value if cu.cuDriverGetVersion(ctypes.byref(v)) == 0 and v.value > 0 else None


def cuda_wheels(mode: str) -> list[str]:
    """The wheel requirements for mode (none when CMake needs none), saying why."""
    if mode == "off":
        _say("cuda=off: CPU-only build")
        return []
    drv = driver_version()
    drv_text = f"driver CUDA {drv // 1000}.{drv % 1000 // 10}" if drv else "no NVIDIA driver"
    if mode == "auto":
        nvcc = system_nvcc()
        if nvcc:
            _say(f"cuda=auto: using the installed {nvcc}")
            return []
        if drv is None or drv // 1000 < WHEEL_MAJOR:
            _say(f"cuda=auto: no nvcc and {drv_text}: CPU-only build (NVIDIA's compiler wheels "
                 f"need a CUDA {WHEEL_MAJOR} driver; -C cuda=wheels forces them)")
            return []
    if drv and drv // 1000 == WHEEL_MAJOR:
        # no newer than the driver: code from a newer toolkit may need a newer driver
        spec = f">={WHEEL_MAJOR}.0,<{WHEEL_MAJOR}.{drv % 1000 // 10 + 1}"
    else:
        spec = f">={WHEEL_MAJOR}.0,<{WHEEL_MAJOR + 1}"
        if drv and drv // 1000 < WHEEL_MAJOR:
            _say(f"warning: cuda=wheels with a {drv_text}: the CUDA executor will not run here "
                 f"(it needs a CUDA {WHEEL_MAJOR} driver)")
    reqs = [f"{name}{spec}" for name in WHEELS]
    _say(f"cuda={mode} ({drv_text}): NVIDIA's compiler wheels {' '.join(reqs)}")
    return reqs


def get_requires_for_build_wheel(config_settings=None):
    return (_skbuild.get_requires_for_build_wheel(_for_skbuild(config_settings))
            + cuda_wheels(_mode(config_settings)))


def get_requires_for_build_editable(config_settings=None):
    return (_skbuild.get_requires_for_build_editable(_for_skbuild(config_settings))
            + cuda_wheels(_mode(config_settings)))


def get_requires_for_build_sdist(config_settings=None):
    return _skbuild.get_requires_for_build_sdist(_for_skbuild(config_settings))


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _skbuild.prepare_metadata_for_build_wheel(metadata_directory, _for_skbuild(config_settings))


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return _skbuild.prepare_metadata_for_build_editable(metadata_directory,
                                                        _for_skbuild(config_settings))


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _skbuild.build_wheel(wheel_directory, _for_skbuild(config_settings), metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _skbuild.build_editable(wheel_directory, _for_skbuild(config_settings), metadata_directory)


def build_sdist(sdist_directory, config_settings=None):
    return _skbuild.build_sdist(sdist_directory, _for_skbuild(config_settings))
