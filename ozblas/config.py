"""The one Python place where OZBLAS_* variables are read and validated.

Same names and values as native/src/core/config.c. Every bad value raises ConfigError with
the variable, the value and the accepted values.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass

__all__ = ["ConfigError", "Options", "from_env", "VARIABLES", "METHODS", "SCALINGS", "VARIANTS"]

METHODS = ("auto", "native", "ozaki1", "ozaki2")
VARIANTS = ("bitmask", "rn", "ef", "hybrid")
SCALINGS = ("accurate", "fast")
MAX_MODULI = 20
MAX_SLICES = 20

# name -> (default, accepted values as told to the user, meaning)
VARIABLES = {
    "OZBLAS_METHOD": ("auto", "auto, native, ozaki1, ozaki2",
                      "how products are computed; auto = Ozaki II on a CUDA GPU, native otherwise"),
    "OZBLAS_MODULI": ("16", "an integer from 2 to 20", "Ozaki II moduli count (more = more accurate)"),
    "OZBLAS_SCALING": ("accurate", "accurate, fast", "Ozaki II scaling bound"),
    "OZBLAS_SLICES": ("11", "an integer from 2 to 20", "Ozaki I slice count (more = more accurate)"),
    "OZBLAS_OZAKI1_VARIANT": ("hybrid", "bitmask, rn, ef, hybrid", "Ozaki I slicing and accumulation"),
    "OZBLAS_DEVICE": ("auto", "auto, cpu, cuda, cuda:N", "executor (cuda:N picks the GPU)"),
    "OZBLAS_NUM_THREADS": ("0", "0 (all cores) or a positive integer", "CPU executor threads"),
}


class ConfigError(ValueError):
    """An OZBLAS_* setting or keyword has a value outside the accepted ones."""


@dataclass(frozen=True)
class Options:
    method: str = "auto"
    moduli: int = 16
    scaling: str = "accurate"
    slices: int = 11
    variant: str = "hybrid"
    executor: str = "auto"  # auto, cpu, cuda
    device: int = 0
    threads: int = 0

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
    try:
        v = int(str(value).strip())
    except ValueError:
        raise _bad(name, value, VARIABLES["OZBLAS_MODULI"][1]) from None
    if isinstance(value, float) or not 2 <= v <= MAX_MODULI:
        raise _bad(name, value, VARIABLES["OZBLAS_MODULI"][1])
    return v


def parse_slices(value, name="slices") -> int:
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


def from_env(environ=None) -> Options:
    """Options from the environment (defaults for unset or empty variables)."""
    env = os.environ if environ is None else environ

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
    return Options(**kw)
