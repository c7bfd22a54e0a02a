"""The preload shim from Python: what `ozblas run` and `ozblas libpath` (ozblas/cli.py) do.

``ozblas run [--method M] [--moduli N] [--min-size S] [--routines LIST] [--trace FILE|-]
[--summary[=FILE]] -- CMD ...``
checks every OZBLAS_* setting (the options given become those variables), puts
``libozblas_preload.so`` in front of ``LD_PRELOAD`` (keeping what was there) and execs CMD, so
CMD's exit status is the command's. A bad value stops it with status 2 and a message naming
the variable, the value and the accepted values.

The library itself (native/src/shim/) routes DGEMM, ZGEMM, DSYRK, ZSYRK and ZHERK calls of an
unmodified program, under every name NumPy, SciPy and C programs use, to ozblas or to the
real BLAS (see OZBLAS_METHOD, OZBLAS_MIN_SIZE, OZBLAS_DISABLE, OZBLAS_TRACE, OZBLAS_SUMMARY).
"""

from __future__ import annotations

import os

from . import config

__all__ = ["PRELOAD_NAME", "library_path", "preload_env"]

PRELOAD_NAME = "libozblas_preload.so"


def library_path() -> str:
    """Path of libozblas_preload.so (next to libozblas.so in the package's directories)."""
    from ._native import _find

    return str(_find(PRELOAD_NAME))


def preload_env(environ=None, *, method=None, moduli=None, min_size=None, trace=None,
                device=None, summary=None, routines=None) -> dict:
    """The environment `ozblas run` gives its command: the options as OZBLAS_* variables,
    the shim first in LD_PRELOAD (summary: True, or where it goes, OZBLAS_SUMMARY_FILE).
    Raises config.ConfigError for a bad setting."""
    env = dict(os.environ if environ is None else environ)
    if isinstance(summary, (str, os.PathLike)):
        env["OZBLAS_SUMMARY_FILE"] = os.fspath(summary)
    for name, value in (("OZBLAS_METHOD", method), ("OZBLAS_MODULI", moduli),
                        ("OZBLAS_MIN_SIZE", min_size), ("OZBLAS_DEVICE", device),
                        ("OZBLAS_TRACE", trace), ("OZBLAS_ROUTINES", routines),
                        ("OZBLAS_SUMMARY", None if summary is None else int(bool(summary)))):
        if value is not None:
            env[name] = str(value)
    config.from_env(env)  # every OZBLAS_* setting, before anything starts
    for name in ("OZBLAS_TRACE", "OZBLAS_SUMMARY_FILE"):
        if env.get(name):  # absolute, as the parser made it: CMD may change directory
            env[name] = config.setting_text(name, env[name])
    lib = library_path()
    kept = [p for p in env.get("LD_PRELOAD", "").replace(" ", ":").split(":") if p and p != lib]
    env["LD_PRELOAD"] = ":".join([lib] + kept)
    # As ozblas/_native.py does: idle OpenMP threads must not spin on the host BLAS's cores.
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    return env
