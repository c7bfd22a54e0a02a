"""The C API's enums and constants, as the binding declares them (ozblas.h): the one place
Python modules get them from, so that none retypes an enum.

Names are the enum members' without their prefix, in lower case (OZBLAS_METHOD_OZAKI2 ->
"ozaki2"), in the enum's order: ``METHODS[OZBLAS_METHOD_OZAKI2] == "ozaki2"``. Built on first
use (the binding loads the library lazily).
"""

from __future__ import annotations

import functools

__all__ = ["METHODS", "SCALINGS", "VARIANTS", "EXECUTORS", "ENGINES", "ACCURACIES", "SETTING_KINDS",
           "MAX_MODULI", "MAX_SLICES", "PLAN_SLICES", "fallback_name", "enum"]

# name in this module -> (C enum type, prefix of its members)
_ENUMS = {
    "METHODS": ("ozblas_method", "OZBLAS_METHOD_"),
    "SCALINGS": ("ozblas_scaling", "OZBLAS_SCALING_"),
    "VARIANTS": ("ozblas_ozaki1_variant", "OZBLAS_OZAKI1_"),
    "EXECUTORS": ("ozblas_executor", "OZBLAS_EXECUTOR_"),
    "ENGINES": ("ozblas_engine", "OZBLAS_ENGINE_"),
    "ACCURACIES": ("ozblas_accuracy", "OZBLAS_ACCURACY_"),
    "SETTING_KINDS": ("ozblas_setting_kind", "OZBLAS_SETTING_"),
}


def enum(ctype: str, prefix: str) -> tuple[str, ...]:
    """The members of a C enum (values 0, 1, ...) as lower-case names without prefix."""
    from ._native import ffi, load

    load()
    elements = ffi.typeof(ctype).elements
    return tuple(elements[i][len(prefix):].lower() for i in range(len(elements)))


@functools.cache
def _value(name: str):
    from ._native import ffi, lib, load

    load()
    if name in _ENUMS:
        return enum(*_ENUMS[name])
    if name == "MAX_MODULI":
        return lib.ozblas_ozaki2_max_moduli()
    if name == "MAX_SLICES":  # the count OZBLAS_SLICES accepts at most (core/config.c's table)
        return next(v.hi for v in map(lib.ozblas_config_variable, range(lib.ozblas_config_count()))
                    if ffi.string(v.name) == b"OZBLAS_SLICES")
    if name == "PLAN_SLICES":  # automatic precision's first slice count (numerics/ozaki1.h)
        return lib.ozblas_policy_planning_slices()
    raise AttributeError(f"module 'ozblas._constants' has no attribute {name!r}")


def __getattr__(name: str):
    return _value(name)


def fallback_name(code: int) -> str | None:
    """OZBLAS_FALLBACK_* name of a report's fallback code, None for OZBLAS_FALLBACK_NONE."""
    from ._native import ffi, lib

    return None if code == 0 else ffi.string(lib.ozblas_fallback_name(code)).decode()
