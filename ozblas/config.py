"""OZBLAS_* settings in Python, parsed by the one parser, in C (native/src/core/config.c),
through the binding: values, messages and the accepted-values text are the C parser's, so
`ozblas run`, the preloaded shim, ``activate()`` and ``ozblas.matmul`` cannot disagree.
Keyword arguments (``moduli=14``) go through the same checks.

Every bad value raises ConfigError naming the variable (or keyword), the value and the
accepted values. Values are exact: lower-case names, ASCII digits, no surrounding spaces;
an empty variable is unset. Bytes that are not UTF-8 (a path) are passed on as they are.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

__all__ = ["ConfigError", "Options", "Variable", "variables", "variable", "routine_names", "parse",
           "setting_text",
           "keyword_variable", "parse_keyword", "from_env", "set_overrides",
           "options_struct", "check_conflict"]


class ConfigError(ValueError):
    """An OZBLAS_* setting or keyword has a value outside the accepted ones."""


@dataclass(frozen=True)
class Variable:
    """One row of the C parser's table."""

    name: str
    keyword: str
    kind: str            # token, int, switch, device, path (ozblas_setting_kind)
    tokens: tuple        # the names accepted; a name's index is its value
    lo: int
    hi: int
    accepted: str
    default: str
    meaning: str


def _str(p) -> str:
    from ._native import ffi

    return ffi.string(p).decode() if p else ""


@functools.cache
def variables() -> dict[str, Variable]:
    """Every OZBLAS_* variable, in the C table's order."""
    from . import _constants
    from ._native import lib, load

    load()
    out = {}
    for i in range(lib.ozblas_config_count()):
        v = lib.ozblas_config_variable(i)
        out[_str(v.name)] = Variable(_str(v.name), _str(v.keyword), _constants.SETTING_KINDS[v.kind],
                                     tuple(_str(v.tokens).split()), v.lo, v.hi, _str(v.accepted),
                                     _str(v.default_value), _str(v.meaning))
    return out


@functools.cache
def routine_names() -> tuple:
    """The routines ozblas routes, which OZBLAS_ROUTINES names ("dgemm", ..., "zgesdd")."""
    from ._native import ffi, lib, load

    load()
    return tuple(ffi.string(lib.ozblas_routine_name(i)).decode()
                 for i in range(lib.ozblas_routine_count()))


def variable(name: str) -> Variable:
    return variables()[name]


def _bytes(value) -> bytes:
    """The bytes the C parser reads: str and paths with os.fsencode (so that a value from
    os.environ holding bytes that are not UTF-8 comes back as those bytes), others as str()."""
    if isinstance(value, bytes):
        return value
    return os.fsencode(value if isinstance(value, (str, os.PathLike)) else str(value))


def _parse_c(name: str, value, label: str | None):
    from ._native import ffi, lib

    b = _bytes(value) if value is not None else b""
    out = ffi.new("ozblas_setting *")
    err = ffi.new("char[512]")
    st = lib.ozblas_config_parse(name.encode(), b, len(b), label.encode() if label else ffi.NULL,
                                 out, err, 512)
    if st != 0:
        raise ConfigError(ffi.string(err).decode("ascii", "backslashreplace"))
    return out


def _python_value(var: Variable, s):
    from ._native import ffi

    if var.kind == "token":
        return var.tokens[s.value]
    if var.kind == "switch":
        return s.value == 1
    if var.kind == "device":
        return var.tokens[s.value] if s.value < len(var.tokens) else "cuda", s.device, s.devices
    if var.kind == "path":
        return os.fsdecode(ffi.string(s.text)) or None
    if var.kind == "routines":  # the routines left native, in the C table's order
        bits = s.native_routines[0] | s.native_routines[1] << 64
        return tuple(r for i, r in enumerate(routine_names()) if bits >> i & 1)
    return s.value


def parse(name: str, value, label: str | None = None):
    """The value of the variable name given as value (a keyword's value: label names it in
    the message): a name (str), an int ("auto" counts: 0), a bool (0/1 switches), a path
    (str, None when empty), the routines OZBLAS_ROUTINES leaves native (a tuple, in the C
    table's order) or, for OZBLAS_DEVICE, (executor, ordinal, device list: a bit per device,
    ALL_DEVICES for cuda:all, 0 for none)."""
    raw = _bytes(value) if value is not None else b""
    # A relative path is made absolute in the working directory: part of the answer.
    cwd = os.getcwd() if raw and not raw.startswith(b"/") and variable(name).kind == "path" else None
    return _parse_cached(name, raw, label, cwd)


@functools.lru_cache(maxsize=4096)
def _parse_cached(name: str, raw: bytes, label: str | None, cwd: str | None):
    """The C parser's answer, remembered (it is a pure function of these): every
    ozblas.matmul call reads all the variables. Errors are raised again each time."""
    return _python_value(variable(name), _parse_c(name, raw, label))


def keyword_variable(key: str) -> Variable:
    """The variable a keyword argument sets (``executor=`` is OZBLAS_DEVICE's, as the array
    API names it)."""
    key = "device" if key == "executor" else key
    for var in variables().values():
        if var.keyword == key:
            return var
    raise TypeError(f"unknown setting {key!r}")


def parse_keyword(key: str, value):
    """A keyword argument's value, checked by its variable's parser (see parse)."""
    return parse(keyword_variable(key).name, value, key)


def setting_text(name: str, value, label: str | None = None) -> str:
    """The value as the parser keeps it (OZBLAS_TRACE: a relative path made absolute here),
    for passing it on as the variable."""
    from ._native import ffi

    return os.fsdecode(ffi.string(_parse_c(name, value, label).text))


class Options:
    """The settings in force: one attribute per variable's keyword (``method``, ``moduli``,
    ``trace``, ...), except OZBLAS_DEVICE, which gives ``executor`` (auto, cpu, cuda),
    ``device`` (the ordinal of cuda:N, the first of a list) and ``devices`` (a device list's
    bits, ALL_DEVICES for cuda:all, 0 for none). Unnamed ones take the C parser's defaults."""

    __slots__ = ("_values",)

    def __init__(self, **values):
        defaults = _defaults()
        unknown = set(values) - set(defaults)
        if unknown:
            raise TypeError(f"unknown settings {sorted(unknown)}; known: {sorted(defaults)}")
        object.__setattr__(self, "_values", {**defaults, **values})

    def __getattr__(self, key):
        try:
            return object.__getattribute__(self, "_values")[key]
        except KeyError:
            raise AttributeError(key) from None

    def __setattr__(self, key, value):
        raise AttributeError("Options are read-only")

    def __eq__(self, other):
        return isinstance(other, Options) and self._values == other._values

    def __repr__(self):
        return "Options(" + ", ".join(f"{k}={v!r}" for k, v in self._values.items()) + ")"

    def as_dict(self) -> dict:
        return dict(self._values)


def _fields(var: Variable, value) -> dict:
    if var.kind == "device":
        return {"executor": value[0], "device": value[1], "devices": value[2]}
    return {var.keyword: value}


ALL_DEVICES = (1 << 64) - 1  # cuda:all's device list


def device_text(executor: str, device: int, devices: int) -> str:
    """OZBLAS_DEVICE's value for parsed (executor, device, devices): the first listed first."""
    if executor != "cuda":
        return executor
    if devices == ALL_DEVICES:
        return "cuda:all"
    if not devices:
        return f"cuda:{device}"
    rest = [d for d in range(64) if devices >> d & 1 and d != device]
    return "cuda:" + ",".join(str(d) for d in [device, *rest])


@functools.cache
def _defaults() -> dict:
    out = {}
    for var in variables().values():
        out.update(_fields(var, parse(var.name, None)))
    return out


# While ozblas.activate(**settings) is in force, its keywords as OZBLAS_* values over the
# process environment, so that every default (ozblas.matmul, scipy_hook) follows them.
_overrides: dict[str, str] = {}


def set_overrides(values: dict[str, str]) -> None:
    """Replace the activation's OZBLAS_* values (an empty dict: the environment alone)."""
    global _overrides
    _overrides = dict(values)


def from_env(environ=None, keywords=()) -> Options:
    """Options from the environment (defaults for unset or empty variables); with no
    environ given, the process environment under the activation's keywords. keywords: the
    settings given as keywords (a conflict's message names them so)."""
    env = os.environ if environ is None else environ
    if environ is None and _overrides:
        env = {**os.environ, **_overrides}
    key = tuple(env.get(name) or None for name in variables()) + tuple(sorted(keywords))
    if any(v and not v.startswith("/") and variables()[n].kind == "path" for n, v in zip(variables(), key)):
        key += (os.getcwd(),)
    opts = _env_cache.get(key)
    if opts is None:
        values = {}
        for var in variables().values():
            values.update(_fields(var, parse(var.name, env.get(var.name) or None)))
        check_conflict(values, keywords)
        opts = Options(**values)
        if len(_env_cache) < 256:
            _env_cache[key] = opts
    return opts


_env_cache: dict = {}  # the environment's values -> Options (from_env is called per product)


# Options' keys -> (the ozblas_options field, the _constants tuple naming its values; None:
# a number as it is).
_STRUCT_FIELDS = {
    "method": ("method", "METHODS"), "moduli": ("moduli", None), "scaling": ("scaling", "SCALINGS"),
    "executor": ("executor", "EXECUTORS"), "device": ("device", None), "devices": ("devices", None),
    "threads": ("threads", None), "slices": ("slices", None),
    "variant": ("ozaki1_variant", "VARIANTS"), "accuracy": ("accuracy", "ACCURACIES"),
    "engine": ("engine", "ENGINES"),
}


def options_struct(values: dict):
    """An ozblas_options (cffi) holding values, fields of Options by their keys (method,
    moduli, ...; executor, device, devices as OZBLAS_DEVICE gives them): the one place Python
    builds the C options. Fields not in values keep ozblas_options_init's defaults; the keys
    of other settings (min_size, trace, ...) are not the struct's and are left out."""
    from . import _constants
    from ._native import ffi, lib, load

    load()
    o = ffi.new("ozblas_options *")
    lib.ozblas_options_init(o)
    for key, (field, names) in _STRUCT_FIELDS.items():
        if key in values:
            value = values[key]
            setattr(o, field, getattr(_constants, names).index(value) if names else value)
    return o


def check_conflict(values: dict, keywords=()) -> None:
    """Settings that cannot go together, as C's ozblas_options_conflict judges them (the one
    check of the library, `ozblas run`, activate() and the API). Its message names each
    setting OZBLAS_<NAME>='value'; those in keywords are named keyword='value' instead."""
    from ._native import ffi, lib

    err = ffi.new("char[512]")
    if lib.ozblas_options_conflict(options_struct(values), err, 512) != 0:
        msg = ffi.string(err).decode()
        for key in keywords:
            msg = msg.replace(f"{keyword_variable(key).name}=", f"{key}=")
        raise ConfigError(msg)
