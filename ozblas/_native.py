"""cffi (ABI mode) binding of libozblas.so, loaded lazily on first use.

The declarations come from the block of ``ozblas.h`` between OZBLAS_CDEF_BEGIN and
OZBLAS_CDEF_END, so the C header stays the one description of the API.
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

import cffi

__all__ = ["OzblasError", "ffi", "lib", "load", "library_path", "check"]

_LIB_NAME = "libozblas.so"
_lock = threading.Lock()
_lib = None
_path: Path | None = None

ffi = cffi.FFI()


class OzblasError(RuntimeError):
    """A native ozblas call failed; ``status`` holds the status name (e.g. OZBLAS_ERR_DEVICE)."""

    def __init__(self, status: str, message: str):
        super().__init__(f"{status}: {message}")
        self.status = status


def _package_dirs() -> list[Path]:
    import ozblas

    # An editable install puts the built library in site-packages next to the sources.
    return [Path(p) for p in ozblas.__path__]


def _find(name: str) -> Path:
    for d in _package_dirs():
        if (d / name).exists():
            return d / name
    raise OzblasError(
        "OZBLAS_ERR_NOT_BUILT",
        f"{name} not found in {[str(d) for d in _package_dirs()]}; install ozblas with "
        "`pip install -e .` so that the native library is built",
    )


def load():
    """Parse the header's declarations and open the library (once)."""
    global _lib, _path
    with _lock:
        if _lib is not None:
            return _lib
        header = _find("ozblas.h") if _has("ozblas.h") else _source_header()
        text = header.read_text()
        m = re.search(r"/\* OZBLAS_CDEF_BEGIN \*/(.*)/\* OZBLAS_CDEF_END \*/", text, re.S)
        if not m:
            raise OzblasError("OZBLAS_ERR_NOT_BUILT", f"no cdef block in {header}")
        ffi.cdef(m.group(1))
        _path = _find(_LIB_NAME)
        # The host BLAS that the CPU executor looks up must be loaded before the first call.
        import numpy  # noqa: F401

        # OpenMP threads that spin between parallel regions steal the cores the host SGEMM
        # runs on; sleeping threads make the CPU executor about 1.3x faster. Only effective
        # when libgomp is not loaded yet, and never overrides the user's choice.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

        # Never unloaded: OpenMP worker threads of libgomp outlive any Python object.
        _lib = ffi.dlopen(str(_path), ffi.RTLD_NOW | ffi.RTLD_NODELETE)
        return _lib


def _has(name: str) -> bool:
    return any((d / name).exists() for d in _package_dirs())


def _source_header() -> Path:
    return Path(__file__).resolve().parent.parent / "native" / "include" / "ozblas.h"


class _LazyLib:
    def __getattr__(self, name):
        return getattr(load(), name)


lib = _LazyLib()


def library_path() -> str:
    load()
    return str(_path)


def check(status: int) -> None:
    """Raise OzblasError for a non-OK status."""
    if status != 0:
        name = ffi.string(lib.ozblas_status_name(status)).decode()
        msg = ffi.string(lib.ozblas_status_message(status)).decode()
        raise OzblasError(name, msg)
