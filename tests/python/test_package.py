"""The package itself (ozblas/__init__.py): what `import ozblas` gives."""

import importlib.util
import subprocess
import sys

import ozblas


def test_submodules_are_attributes_imported_on_first_use():
    """Issue 24: after `import ozblas` alone, ozblas.lapack, ozblas.testing, ozblas.policy and
    ozblas.dask (as the README writes them) are the submodules, imported when first asked for:
    `import ozblas` itself imports none of them (dask stays optional and unimported)."""
    names = ["lapack", "testing", "policy", "reference", "calibrate", "shim"]
    if importlib.util.find_spec("distributed") is not None:
        names.append("dask")
    code = f"""
import sys, types, ozblas
names = {names!r}
before = [n for n in names if "ozblas." + n in sys.modules]
heavy = [m for m in sys.modules if m.split(".")[0] in ("dask", "distributed", "scipy")]
got = [isinstance(getattr(ozblas, n), types.ModuleType) and getattr(ozblas, n) is sys.modules["ozblas." + n]
       for n in names]
print(before, heavy, all(got), callable(ozblas.lapack.getrf), callable(ozblas.testing.exact_matmul))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[]", "[]", "True", "True", "True"], out.stdout


def test_unknown_attribute_is_an_attribute_error():
    try:
        ozblas.no_such_thing
    except AttributeError as e:
        assert "no_such_thing" in str(e)
    else:
        raise AssertionError("no AttributeError")
    assert not hasattr(ozblas, "no_such_thing")
    assert {"lapack", "testing", "policy", "dask", "explain", "matmul"} <= set(dir(ozblas))
