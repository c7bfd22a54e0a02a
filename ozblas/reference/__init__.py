"""NumPy implementations of the schemes: the executable specification of the native
executors, whose results they equal bit for bit (small sizes; clarity over speed)."""

from .ozaki2 import moduli, ozaki2

__all__ = ["ozaki2", "moduli"]
