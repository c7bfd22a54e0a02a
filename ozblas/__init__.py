"""ozblas: FP64 matrix products emulated with the Ozaki schemes on integer matrix units."""

from ._native import OzblasError
from .activation import activate, activated, deactivate
from .api import dgemm, info, matmul, zgemm
from .dd import matmul_dd
from .config import ConfigError
from .shim_stats import stats
from ._threadpool import register as _register_threadpool

_register_threadpool()  # threadpoolctl lists and limits the CPU executor

__all__ = ["matmul", "matmul_dd", "dgemm", "zgemm", "info", "explain", "activate", "deactivate", "activated",
           "OzblasError", "ConfigError", "stats"]
__version__ = "0.1.0"


# Submodules reachable as attributes (ozblas.lapack.getrf(a), as the README writes it),
# imported on first use: `import ozblas` stays cheap, and ozblas.dask (which needs
# dask.distributed) is imported only when asked for.
_SUBMODULES = ("activation", "api", "calibrate", "cli", "config", "dask", "demo", "install_info",
               "lapack", "policy", "reference", "shim", "shim_stats", "testing")


def __getattr__(name):
    # ozblas.explain is ozblas.policy.explain, imported on first use (so that
    # `python -m ozblas.policy` does not find the module already imported)
    if name == "explain":
        from .policy import explain

        return explain
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'ozblas' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_SUBMODULES) | {"explain"})
