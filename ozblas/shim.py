"""The preload shim from Python: `ozblas run` and `ozblas libpath`.

``ozblas run [--method M] [--moduli N] [--min-size S] [--trace FILE|-] [--summary[=FILE]] -- CMD ...``
checks every OZBLAS_* setting (the options given become those variables), puts
``libozblas_preload.so`` in front of ``LD_PRELOAD`` (keeping what was there) and execs CMD, so
CMD's exit status is the command's. A bad value stops it with status 2 and a message naming
the variable, the value and the accepted values.

The library itself (native/src/shim/) routes DGEMM, ZGEMM, DSYRK, ZSYRK and ZHERK calls of an
unmodified program, under every name NumPy, SciPy and C programs use, to ozblas or to the
real BLAS (see OZBLAS_METHOD, OZBLAS_MIN_SIZE, OZBLAS_DISABLE, OZBLAS_TRACE, OZBLAS_SUMMARY).
"""

from __future__ import annotations

import argparse
import os
import sys

from . import config

__all__ = ["PRELOAD_NAME", "library_path", "preload_env", "cmd_run", "cmd_libpath"]

PRELOAD_NAME = "libozblas_preload.so"


def library_path() -> str:
    """Path of libozblas_preload.so (next to libozblas.so in the package's directories)."""
    from ._native import _find

    return str(_find(PRELOAD_NAME))


def preload_env(environ=None, *, method=None, moduli=None, min_size=None, trace=None,
                device=None, summary=None) -> dict:
    """The environment `ozblas run` gives its command: the options as OZBLAS_* variables,
    the shim first in LD_PRELOAD (summary: True, or where it goes, OZBLAS_SUMMARY_FILE).
    Raises config.ConfigError for a bad setting."""
    env = dict(os.environ if environ is None else environ)
    if isinstance(summary, (str, os.PathLike)):
        env["OZBLAS_SUMMARY_FILE"] = os.fspath(summary)
    for name, value in (("OZBLAS_METHOD", method), ("OZBLAS_MODULI", moduli),
                        ("OZBLAS_MIN_SIZE", min_size), ("OZBLAS_DEVICE", device),
                        ("OZBLAS_TRACE", trace),
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


def _run_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ozblas run",
        description="Run CMD with its DGEMM/ZGEMM/SYRK/HERK calls routed through ozblas "
                    "(the preload shim).")
    p.add_argument("--method", help="OZBLAS_METHOD: " + config.variable("OZBLAS_METHOD").accepted)
    p.add_argument("--moduli", help="OZBLAS_MODULI: " + config.variable("OZBLAS_MODULI").accepted)
    p.add_argument("--min-size", dest="min_size",
                   help="OZBLAS_MIN_SIZE: route when min(m, n, k) >= this (0: everything)")
    p.add_argument("--device", help="OZBLAS_DEVICE: " + config.variable("OZBLAS_DEVICE").accepted)
    p.add_argument("--trace", metavar="FILE|-", help="OZBLAS_TRACE: one line per BLAS call")
    p.add_argument("--summary", nargs="?", const=True, metavar="FILE",
                   help="OZBLAS_SUMMARY=1: the call counts per routine and route at exit, on "
                        "stderr or appended to FILE (OZBLAS_SUMMARY_FILE; %%r: the rank)")
    p.add_argument("cmd", nargs=argparse.REMAINDER, help="-- CMD ARGS...")
    return p


def cmd_run(argv) -> int:
    """`ozblas run [options] -- CMD ...`: execs CMD (returns only on an error)."""
    args = _run_parser().parse_args(list(argv))
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        print("ozblas run: no command given (ozblas run [options] -- CMD ...)", file=sys.stderr)
        return 2
    try:
        env = preload_env(method=args.method, moduli=args.moduli, min_size=args.min_size,
                          trace=args.trace, device=args.device, summary=args.summary)
    except config.ConfigError as e:
        print(f"ozblas: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # the library is not built
        print(f"ozblas: {e}", file=sys.stderr)
        return 1
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execvpe(cmd[0], cmd, env)
    except OSError as e:
        print(f"ozblas run: cannot run {cmd[0]!r}: {e.strerror}", file=sys.stderr)
        return 127
    return 0  # not reached


def cmd_libpath(argv=()) -> int:
    """`ozblas libpath`: print the preload library's path (for LD_PRELOAD=...); it takes no
    arguments (any is refused with status 2)."""
    argparse.ArgumentParser(prog="ozblas libpath",
                            description="Print the path of libozblas_preload.so.").parse_args(list(argv))
    try:
        print(library_path())
    except Exception as e:
        print(f"ozblas: {e}", file=sys.stderr)
        return 1
    return 0
