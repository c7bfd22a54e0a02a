"""ozblas: FP64 matrix products emulated with the Ozaki schemes on integer matrix units."""

from ._native import OzblasError
from .api import dgemm, info, matmul, zgemm
from .config import ConfigError
from .policy import explain

__all__ = ["matmul", "dgemm", "zgemm", "info", "explain", "OzblasError", "ConfigError"]
__version__ = "0.1.0"
