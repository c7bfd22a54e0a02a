"""threadpoolctl sees and limits the CPU executor's threads.

`threadpoolctl.threadpool_info()` lists libozblas.so as user_api "blas", internal_api
"ozblas", and `threadpool_limits(n)` (or `threadpool_limits(n, user_api="blas")`) caps the
threads of every CPU executor call in the process at n, through ozblas_set_num_threads
(ozblas.h), the way scikit-learn and joblib limit OpenBLAS and OpenMP.
"""

from __future__ import annotations

import ctypes
import os

__all__ = ["register"]

_registered = False


def register() -> None:
    """Registers the controller with threadpoolctl (where it is installed) and loads the
    native library, so that a limit set before ozblas's first call already applies to it.
    Does nothing without threadpoolctl or without a built library."""
    global _registered
    if _registered:
        return
    try:
        import threadpoolctl
    except ImportError:
        return
    if not hasattr(threadpoolctl, "register"):  # an old threadpoolctl: no third-party controllers
        return
    from . import _native

    try:
        _native.load()
    except Exception:  # noqa: BLE001 - not built or not loadable: the first call will say why
        return

    class OzblasController(threadpoolctl.LibController):
        user_api = "blas"
        internal_api = "ozblas"
        filename_prefixes = ("libozblas",)  # also the key of threadpool_limits({"libozblas": n})
        check_symbols = ("ozblas_set_num_threads", "ozblas_get_num_threads")

        def set_additional_attributes(self):
            # libozblas_preload.so matches the prefix and reaches these symbols through its
            # dependency libozblas.so; threadpoolctl skips a library whose controller
            # raises OSError, so the one thread setting is listed once.
            if os.path.basename(self.filepath) != os.path.basename(_native.library_path()):
                raise OSError(f"{self.filepath} is not the library of ozblas's settings")

        def get_num_threads(self):
            return self.dynlib.ozblas_get_num_threads()

        def set_num_threads(self, num_threads):
            self.dynlib.ozblas_set_num_threads(int(num_threads))

        def get_version(self):
            f = self.dynlib.ozblas_version
            f.restype = ctypes.c_char_p
            return f().decode()

    threadpoolctl.register(OzblasController)
    _registered = True
