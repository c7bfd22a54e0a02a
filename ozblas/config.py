"""The one Python place where OZBLAS_* variables are read and validated.

Same names and values as native/src/core/config.c. Every bad value raises ConfigError with
the variable, the value and the accepted values.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass

__all__ = ["ConfigError", "Options", "from_env", "set_overrides", "VARIABLES", "METHODS", "SCALINGS",
           "VARIANTS"]

METHODS = ("auto", "native", "ozaki1", "ozaki2")
VARIANTS = ("bitmask", "rn", "ef", "hybrid")
SCALINGS = ("accurate", "fast")
MAX_MODULI = 20
MAX_SLICES = 20

# name -> (default, accepted values as told to the user, meaning)
VARIABLES = {
    "OZBLAS_METHOD": ("auto", "auto, native, ozaki1, ozaki2",
                      "how products are computed; auto = the policy's fastest candidate per call"),
    "OZBLAS_MODULI": ("auto", "auto or an integer from 2 to 20",
                      "Ozaki II moduli count (more = more accurate); auto = the fewest whose error "
                      "bound for the call's inputs is DGEMM-level"),
    "OZBLAS_SCALING": ("accurate", "accurate, fast", "Ozaki II scaling bound"),
    "OZBLAS_SLICES": ("auto", "auto or an integer from 2 to 20",
                      "Ozaki I slice count (more = more accurate); auto = the fewest whose error "
                      "bound for the call's inputs is DGEMM-level"),
    "OZBLAS_OZAKI1_VARIANT": ("hybrid", "bitmask, rn, ef, hybrid", "Ozaki I slicing and accumulation"),
    "OZBLAS_DEVICE": ("auto", "auto, cpu, cuda, cuda:N", "executor (cuda:N picks the GPU)"),
    "OZBLAS_NUM_THREADS": ("0", "0 (all cores) or a positive integer", "CPU executor threads"),
    "OZBLAS_MIN_SIZE": ("256", "0 (route everything) or a positive integer",
                        "preload shim: route a call only when min(m, n, k) >= this"),
    "OZBLAS_DISABLE": ("0", "0, 1", "preload shim: 1 passes every call to the real BLAS"),
    "OZBLAS_TRACE": ("", "- (stderr) or a file path",
                     "preload shim: one line per call (routine, sizes, route, method, time, reason)"),
    "OZBLAS_SUMMARY": ("0", "0, 1", "preload shim: 1 prints the call counts per routine and route at exit"),
    "OZBLAS_ACTIVATE": ("0", "0, 1", "1 activates in-process routing at interpreter start"),
    "OZBLAS_LAPACK_NB": ("", "a positive integer (block size)",
                         "LAPACK layer: block size of the blocked drivers; unset = 256 on the CPU "
                         "executor, 1024 on the CUDA executor"),
}


class ConfigError(ValueError):
    """An OZBLAS_* setting or keyword has a value outside the accepted ones."""


@dataclass(frozen=True)
class Options:
    method: str = "auto"
    moduli: int = 0         # 0: automatic precision (OZBLAS_MODULI=auto)
    scaling: str = "accurate"
    slices: int = 0         # 0: automatic precision (OZBLAS_SLICES=auto)
    variant: str = "hybrid"
    executor: str = "auto"  # auto, cpu, cuda
    device: int = 0
    threads: int = 0
    min_size: int = 256     # preload shim (OZBLAS_MIN_SIZE)
    disable: bool = False   # preload shim (OZBLAS_DISABLE)
    trace: str | None = None  # preload shim (OZBLAS_TRACE): "-" or a path
    summary: bool = False   # preload shim (OZBLAS_SUMMARY)
    activate: bool = False  # OZBLAS_ACTIVATE: ozblas.activate() at interpreter start
    lapack_nb: int = 0      # OZBLAS_LAPACK_NB: the LAPACK layer's block size (0: its size rule)

    def as_dict(self) -> dict:
        return asdict(self)


def _bad(name: str, value, accepted: str) -> ConfigError:
    return ConfigError(f"{name}={value!r} is not valid; accepted: {accepted}")


def parse_method(value, name="method") -> str:
    v = str(value).strip().lower()
    if v not in METHODS:
        raise _bad(name, value, VARIABLES["OZBLAS_METHOD"][1])
    return v


def parse_moduli(value, name="moduli") -> int:
    """2..20, or 0 for "auto" (automatic precision)."""
    if str(value).strip().lower() == "auto":
        return 0
    try:
        v = int(str(value).strip())
    except ValueError:
        raise _bad(name, value, VARIABLES["OZBLAS_MODULI"][1]) from None
    if isinstance(value, float) or not 2 <= v <= MAX_MODULI:
        raise _bad(name, value, VARIABLES["OZBLAS_MODULI"][1])
    return v


def parse_slices(value, name="slices") -> int:
    """2..20, or 0 for "auto" (automatic precision)."""
    if str(value).strip().lower() == "auto":
        return 0
    try:
        v = int(str(value).strip())
    except ValueError:
        raise _bad(name, value, VARIABLES["OZBLAS_SLICES"][1]) from None
    if isinstance(value, float) or not 2 <= v <= MAX_SLICES:
        raise _bad(name, value, VARIABLES["OZBLAS_SLICES"][1])
    return v


def parse_variant(value, name="variant") -> str:
    v = str(value).strip().lower()
    if v not in VARIANTS:
        raise _bad(name, value, VARIABLES["OZBLAS_OZAKI1_VARIANT"][1])
    return v


def parse_scaling(value, name="scaling") -> str:
    v = str(value).strip().lower()
    if v not in SCALINGS:
        raise _bad(name, value, VARIABLES["OZBLAS_SCALING"][1])
    return v


def parse_device(value, name="executor") -> tuple[str, int]:
    v = str(value).strip().lower()
    if v in ("auto", "cpu", "cuda"):
        return v, 0
    if v.startswith("cuda:") and v[5:].isdigit():
        return "cuda", int(v[5:])
    raise _bad(name, value, VARIABLES["OZBLAS_DEVICE"][1])


def parse_threads(value, name="threads") -> int:
    try:
        v = int(str(value).strip())
    except ValueError:
        raise _bad(name, value, VARIABLES["OZBLAS_NUM_THREADS"][1]) from None
    if v < 0:
        raise _bad(name, value, VARIABLES["OZBLAS_NUM_THREADS"][1])
    return v


def parse_min_size(value, name="min_size") -> int:
    s = str(value)
    if isinstance(value, (bool, float)) or not (s.isascii() and s.isdigit()) or int(s) > 1 << 40:
        raise _bad(name, value, VARIABLES["OZBLAS_MIN_SIZE"][1])
    return int(s)


def parse_disable(value, name="disable") -> bool:
    s = str(value)
    if isinstance(value, float) or not (s.isascii() and s.isdigit()) or int(s) > 1:
        raise _bad(name, value, VARIABLES["OZBLAS_DISABLE"][1])
    return int(s) == 1


def parse_summary(value, name="summary") -> bool:
    s = str(value)
    if isinstance(value, float) or not (s.isascii() and s.isdigit()) or int(s) > 1:
        raise _bad(name, value, VARIABLES["OZBLAS_SUMMARY"][1])
    return int(s) == 1


def parse_trace(value, name="trace") -> str:
    s = str(value)
    if not s or len(s.encode()) >= 1024:
        raise _bad(name, value, VARIABLES["OZBLAS_TRACE"][1])
    return s


def parse_activate(value, name="OZBLAS_ACTIVATE") -> bool:
    s = str(value)
    if s not in ("0", "1"):
        raise _bad(name, value, VARIABLES["OZBLAS_ACTIVATE"][1])
    return s == "1"


def parse_lapack_nb(value, name="nb") -> int:
    s = str(value)
    if isinstance(value, (bool, float)) or not (s.isascii() and s.isdigit()) or not 1 <= int(s) <= 1 << 20:
        raise _bad(name, value, VARIABLES["OZBLAS_LAPACK_NB"][1])
    return int(s)


# While ozblas.activate(**settings) is in force, its keywords as OZBLAS_* values over the
# process environment, so that every default (ozblas.matmul, scipy_hook) follows them.
_overrides: dict[str, str] = {}


def set_overrides(values: dict[str, str]) -> None:
    """Replace the activation's OZBLAS_* values (an empty dict: the environment alone)."""
    global _overrides
    _overrides = dict(values)


def from_env(environ=None) -> Options:
    """Options from the environment (defaults for unset or empty variables); with no
    environ given, the process environment under the activation's keywords."""
    env = os.environ if environ is None else environ
    if environ is None and _overrides:
        env = {**os.environ, **_overrides}

    def get(name):
        v = env.get(name, "")
        return v if v.strip() else None

    kw = {}
    if (v := get("OZBLAS_METHOD")) is not None:
        kw["method"] = parse_method(v, "OZBLAS_METHOD")
    if (v := get("OZBLAS_MODULI")) is not None:
        kw["moduli"] = parse_moduli(v, "OZBLAS_MODULI")
    if (v := get("OZBLAS_SCALING")) is not None:
        kw["scaling"] = parse_scaling(v, "OZBLAS_SCALING")
    if (v := get("OZBLAS_SLICES")) is not None:
        kw["slices"] = parse_slices(v, "OZBLAS_SLICES")
    if (v := get("OZBLAS_OZAKI1_VARIANT")) is not None:
        kw["variant"] = parse_variant(v, "OZBLAS_OZAKI1_VARIANT")
    if (v := get("OZBLAS_DEVICE")) is not None:
        kw["executor"], kw["device"] = parse_device(v, "OZBLAS_DEVICE")
    if (v := get("OZBLAS_NUM_THREADS")) is not None:
        kw["threads"] = parse_threads(v, "OZBLAS_NUM_THREADS")
    # The preload shim's settings; read as C reads them (empty means unset, no stripping).
    if v := env.get("OZBLAS_MIN_SIZE", ""):
        kw["min_size"] = parse_min_size(v, "OZBLAS_MIN_SIZE")
    if v := env.get("OZBLAS_DISABLE", ""):
        kw["disable"] = parse_disable(v, "OZBLAS_DISABLE")
    if v := env.get("OZBLAS_TRACE", ""):
        kw["trace"] = parse_trace(v, "OZBLAS_TRACE")
    if v := env.get("OZBLAS_SUMMARY", ""):
        kw["summary"] = parse_summary(v, "OZBLAS_SUMMARY")
    if v := env.get("OZBLAS_ACTIVATE", ""):
        kw["activate"] = parse_activate(v, "OZBLAS_ACTIVATE")
    if v := env.get("OZBLAS_LAPACK_NB", ""):
        kw["lapack_nb"] = parse_lapack_nb(v, "OZBLAS_LAPACK_NB")
    return Options(**kw)
