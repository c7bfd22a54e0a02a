"""In-process activation: route a running interpreter's BLAS calls without LD_PRELOAD.

``activate(**settings)`` loads the preload shim (libozblas_preload.so) ``RTLD_LOCAL``, so
that its BLAS names interpose nothing, and has it point the GOT slots of DGEMM, ZGEMM,
DSYRK, ZSYRK and ZHERK (every name of native/src/shim/shim_names.h) in the loaded
extension modules at its entries (native/src/shim/activate.c). Extension modules imported
later are patched right after they load (a wrapper around
``ExtensionFileLoader.create_module``); a library loaded some other way (ctypes) is
patched by calling ``activate()`` again, which patches nothing twice. SciPy's
``get_blas_funcs`` and ``blas.dgemm/zgemm`` are routed with ``scipy_hook``: at once if
``scipy.linalg`` is imported, otherwise as soon as it is (SciPy is not imported for it).

The keywords override the OZBLAS_* environment while activation is in force, for the
shim's calls and for every ozblas default (``ozblas.matmul``, ``scipy_hook``).
``deactivate()`` writes every slot's original value back and undoes the rest;
``activated(...)`` is the context manager that restores the state it found.
``OZBLAS_ACTIVATE=1`` calls ``activate()`` at interpreter start (ozblas_activate.pth).
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import threading

from . import config
from ._native import OzblasError

__all__ = ["activate", "deactivate", "activated", "status"]

_lock = threading.RLock()
_lib = None             # libozblas_preload.so; never closed: patched slots point into it
_settings = None        # the keywords in force; None while not active
_base = None            # what activate()/deactivate() last asked for (None: inactive): the
                        # state once no activated() block is open
_blocks = []            # the open activated() blocks, in the order they were entered: one
                        # [settings] list each (its identity is the block's)
_scipy_ours = False     # scipy_hook was installed by activate(), so deactivate() removes it
_create_module = None   # ExtensionFileLoader.create_module as it was before activate()


def _preload():
    global _lib
    if _lib is None:
        if not sys.platform.startswith("linux"):
            raise OSError("in-process activation rewrites ELF GOT slots: Linux only")
        from ._native import ffi, load
        from .shim import library_path

        load()  # the declarations (ozblas.h), libozblas.so and NumPy's BLAS
        _lib = ffi.dlopen(library_path(), ffi.RTLD_NOW | ffi.RTLD_LOCAL | ffi.RTLD_NODELETE)
    return _lib


def _overrides(settings: dict) -> dict:
    """The keywords as OZBLAS_* values, each checked by its variable's C parser (which makes
    a relative trace path absolute, and checks its length after that)."""
    out = {}
    for key, value in settings.items():
        var = config.keyword_variable(key)
        out[var.name] = config.setting_text(var.name, value, key)
    return out


def _checked(settings: dict, environ) -> tuple[dict, config.Options]:
    """The keywords as OZBLAS_* values and the options they give over environ (a mapping of
    OZBLAS_* values): ozblas.ConfigError for a bad value or for settings that cannot go
    together (naming the keywords), as activate() would raise it."""
    overrides = _overrides(settings)
    return overrides, config.from_env({**environ, **overrides}, keywords=tuple(settings))


def _configure(lib, opts: config.Options) -> None:
    """Hands the parsed options to the shim as they are (the C options struct, no text)."""
    from .api import _check_devices

    o = config.options_struct(opts.as_dict())
    if o.devices:
        _check_devices(o)
    routines = ",".join(f"-{r}" for r in opts.routines)  # the routines left native, named
    lib.ozblas_preload_configure(o, opts.min_size, int(opts.disable), os.fsencode(opts.trace or ""),
                                 routines.encode())


def _patch_after_load(create_module):
    def create_module_and_patch(self, spec):
        module = create_module(self, spec)
        if _settings is not None:
            _lib.ozblas_activate_patch()
        return module

    create_module_and_patch.__wrapped__ = create_module
    return create_module_and_patch


class _ScipyLinalgFinder(importlib.abc.MetaPathFinder):
    """Installs scipy_hook once ``scipy.linalg`` has been executed (one shot)."""

    def __init__(self):
        self._busy = threading.local()

    def find_spec(self, name, path=None, target=None):
        if name != "scipy.linalg" or getattr(self._busy, "on", False):
            return None
        self._busy.on = True
        try:
            spec = importlib.util.find_spec(name)  # the other finders' answer
        finally:
            self._busy.on = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None
        spec.loader = _InstallAfter(spec.loader)
        return spec


class _InstallAfter(importlib.abc.Loader):
    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        # The module keeps its own loader; this wrapper leaves no trace on it.
        module.__loader__ = module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        with _lock:
            _remove_finder()
            if _settings is not None:
                _install_scipy_hook()


def _install_scipy_hook():
    global _scipy_ours
    from . import scipy_routing as scipy_hook  # the code behind the scipy_hook package

    if not scipy_hook.installed():
        scipy_hook.install()
        _scipy_ours = True


def _remove_finder():
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _ScipyLinalgFinder)]


def _given(**settings) -> dict:
    return {k: v for k, v in settings.items() if v is not None}


def activate(*, method=None, moduli=None, min_size=None, scaling=None, slices=None, variant=None,
             device=None, trace=None, accuracy=None, routines=None) -> None:
    """Route this process's DGEMM/ZGEMM/SYRK/HERK calls through ozblas from now on.

    Keywords (unset ones come from the OZBLAS_* variables): method, moduli, min_size,
    scaling, slices, variant, device, trace, accuracy, routines (OZBLAS_ROUTINES' value, e.g.
    ``"-gesdd,-gesvd"``: those routines stay native). A bad value raises ``ozblas.ConfigError``
    naming it and the accepted values; so does a bad OZBLAS_* variable. Calling it again
    replaces the settings and patches only what was loaded since. While ``activated()``
    blocks are open it applies at once, and it is also the state the process returns to
    when the last block exits.
    """
    global _base
    given = _given(method=method, moduli=moduli, min_size=min_size, scaling=scaling,
                   slices=slices, variant=variant, device=device, trace=trace, accuracy=accuracy,
                   routines=routines)
    with _lock:
        _apply(given)
        _base = given


def _apply(given: dict) -> None:
    """Activation with these keywords (checked first: nothing changes on an error)."""
    global _settings, _create_module
    config.from_env(os.environ)  # a bad variable stops it, as it stops `ozblas run`
    overrides, opts = _checked(given, os.environ)
    with _lock:
        lib = _preload()
        _configure(lib, opts)
        if lib.ozblas_activate_patch() < 0:
            raise OzblasError("OZBLAS_ERR_INTERNAL", "in-process activation is not available "
                              "here (the reason is on stderr); nothing was patched")
        config.set_overrides(overrides)
        _settings = dict(given)
        if _create_module is None:
            loader = importlib.machinery.ExtensionFileLoader
            _create_module = loader.create_module
            loader.create_module = _patch_after_load(_create_module)
            lib.ozblas_activate_patch()  # what another thread loaded before the wrapper was there
        if "scipy.linalg" in sys.modules:
            _install_scipy_hook()
        elif not any(isinstance(f, _ScipyLinalgFinder) for f in sys.meta_path):
            sys.meta_path.insert(0, _ScipyLinalgFinder())


def deactivate() -> None:
    """Put every patched slot back and undo the rest of activate(); nothing when inactive.
    While ``activated()`` blocks are open it applies at once, and the process stays inactive
    when the last block exits."""
    global _base
    with _lock:
        _base = None
        _unapply()


def _unapply() -> None:
    global _settings, _create_module, _scipy_ours
    from ._native import ffi

    with _lock:
        if _settings is None:
            return
        _settings = None
        loader = importlib.machinery.ExtensionFileLoader
        if getattr(loader.create_module, "__wrapped__", None) is _create_module:
            loader.create_module = _create_module  # left wrapped (inert) if wrapped again since
            _create_module = None
        _remove_finder()
        _lib.ozblas_activate_restore()
        config.set_overrides({})
        # Back to the environment's settings: they apply when the shim is also preloaded.
        _lib.ozblas_preload_configure(ffi.NULL, 0, 0, ffi.NULL, ffi.NULL)
        if _scipy_ours:
            from . import scipy_routing as scipy_hook

            scipy_hook.uninstall()
            _scipy_ours = False


@contextlib.contextmanager
def activated(**settings):
    """``with ozblas.activated(method="ozaki2", moduli=16): ...``. Activation is one state of
    the process, shared by its threads, and reference-counted by the blocks: while blocks
    are open (nested, or in several threads at once) the settings in force are those of the
    block entered last among them; when a block exits, those of the last one still open;
    when the last one exits, the state activate()/deactivate() set (inactive unless
    activate() was called), so that a block never unhooks another thread's block and the
    process is never left activated by blocks that have all exited."""
    given = _given(**settings)
    block = [given]
    with _lock:
        _apply(given)
        _blocks.append(block)
    try:
        yield
    finally:
        with _lock:
            _blocks[:] = [b for b in _blocks if b is not block]
            latest = _blocks[-1][0] if _blocks else _base
            if latest is None:
                _unapply()
            elif latest != _settings:
                _apply(latest)


def status() -> dict:
    """``active``, the keyword ``settings`` in force and the number of GOT ``slots`` patched."""
    with _lock:
        return {"active": _settings is not None, "settings": dict(_settings or {}),
                "slots": _lib.ozblas_activate_count() if _lib is not None else 0}


def _startup() -> None:
    """ozblas_activate.pth: OZBLAS_ACTIVATE=1 activates at start. Never raises: a problem is
    reported in one line and the program runs with native BLAS."""
    try:
        if config.from_env().activate:
            activate()
    except Exception as e:  # noqa: BLE001 - a start-up hook must not stop the interpreter
        print(f"ozblas: {e}; OZBLAS_ACTIVATE ignored, BLAS calls stay native", file=sys.stderr)
