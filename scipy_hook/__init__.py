"""Route SciPy's gemm through ozblas: ``install()``, ``uninstall()``, ``installed()``.

The code is ``ozblas.scipy_routing`` (so that ``ozblas`` never imports this package); see its
documentation.
"""

from ozblas.scipy_routing import _Gemm, install, installed, uninstall  # noqa: F401 (_Gemm: the type)

__all__ = ["install", "uninstall", "installed"]
