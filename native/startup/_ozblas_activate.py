"""OZBLAS_ACTIVATE=1: ozblas.activate() at interpreter start (the way coverage starts).

ozblas_activate.pth, installed beside this module in site-packages, imports it only when
OZBLAS_ACTIVATE is set to something other than 0 (1, or a bad value that ozblas.config
reports). A .pth line runs while site is still adding directories to sys.path, when NumPy
or cffi may not be importable yet (a venv using the system's packages, a user install of
ozblas), so this module, which needs the standard library only, waits for the end of
site's work, its import of sitecustomize, to activate.
"""

import builtins
import sys


class _AtEndOfSite:
    """A meta path finder that finds nothing; seeing sitecustomize asked for, it activates."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == "sitecustomize" and _AtEndOfSite in sys.meta_path:
            sys.meta_path.remove(_AtEndOfSite)
            _activate()
        return None


def _activate():
    try:
        from ozblas.activation import _startup
    except Exception as e:  # noqa: BLE001 - a start-up hook must not stop the interpreter
        print(f"ozblas: cannot import ozblas ({e}); OZBLAS_ACTIVATE ignored", file=sys.stderr)
        return
    _startup()


# site sets builtins.help after the site directories and before sitecustomize: with it
# already there, this .pth was read later (site.addsitedir() by the program).
if hasattr(builtins, "help"):
    _activate()
else:
    sys.meta_path.insert(0, _AtEndOfSite)
