"""NumPy implementations of the schemes: the executable specification of the native
executors, whose results they equal bit for bit (small sizes; clarity over speed)."""

from .exact import exact
from .ozaki1 import ozaki1
from .ozaki2 import her2k_operands, moduli, ozaki2

__all__ = ["ozaki1", "ozaki2", "her2k_operands", "moduli", "exact"]
