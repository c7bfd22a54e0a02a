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


def _imports_of(path, modules):
    """The modules of ozblas/ that the file imports, at module level or inside functions."""
    import ast

    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            out.update([node.module.split(".")[0]] if node.module else [a.name for a in node.names])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ozblas."):
            out.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            out.update(a.name.split(".")[1] for a in node.names if a.name.startswith("ozblas."))
    return (out & modules) - {path.stem}


def test_no_import_cycles():
    """No two modules of ozblas/ import each other, directly or through others (issue 26): a
    shared piece lives in a third module. Relative imports of the package's own modules only;
    subpackages (reference/, examples/) count as one module."""
    from pathlib import Path

    root = Path(ozblas.__file__).parent
    files = {p.stem: p for p in root.glob("*.py")}
    modules = set(files) | {p.name for p in root.iterdir() if (p / "__init__.py").exists()}
    graph = {m: _imports_of(p, modules) for m, p in files.items()}

    def reaches(a, b, seen=()):
        return any(n == b or (n not in seen and reaches(n, b, seen + (n,))) for n in graph.get(a, ()))

    cycles = sorted(m for m in graph if m != "__init__" and reaches(m, m))
    assert cycles == []
