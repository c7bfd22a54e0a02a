"""ozblas: FP64 matrix products emulated with the Ozaki schemes on integer matrix units."""

from ._native import OzblasError
from .activation import activate, activated, deactivate
from .api import dgemm, info, matmul, zgemm
from .config import ConfigError
from .shim_stats import stats

__all__ = ["matmul", "dgemm", "zgemm", "info", "activate", "deactivate", "activated", "OzblasError",
           "ConfigError", "stats"]
__version__ = "0.1.0"
