"""What the shim's LAPACK-layer tests share (test_shim_lapack.py, test_shim_level3.py): a
child script run under `ozblas run` or inside ozblas.activated(...) (its second argument
says which) with small blocks (OZBLAS_LAPACK_NB=16) and a trace, and the criterion of at
most 4x native's error plus 1e-15."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

# tests/lapack: the host-LAPACK helpers the children import
LAPACK_TESTS = Path(__file__).resolve().parent.parent / "lapack"


def child_env(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_") and k != "LD_PRELOAD"}
    env.update(OZBLAS_LAPACK_NB="16", OMP_NUM_THREADS="2", OZBLAS_TRACE=str(tmp_path / "trace.log"))
    return env


def run_child(tmp_path, child, mode):
    """Runs child (source) as `child.py tmp_path mode`; mode "run": under `ozblas run` with
    Ozaki II forced. Returns its results.npz and out.json."""
    (tmp_path / "child.py").write_text(textwrap.dedent(child))
    cmd = [sys.executable, str(tmp_path / "child.py"), str(tmp_path), mode]
    env = child_env(tmp_path)
    if mode == "run":
        env.update(OZBLAS_METHOD="ozaki2", OZBLAS_MIN_SIZE="0", OZBLAS_MODULI="16")
        cmd = [sys.executable, "-c", "import sys, ozblas.cli as c; sys.exit(c.cmd_run(sys.argv[1:]))",
               "--", *cmd]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240)
    assert p.returncode == 0, p.stdout + p.stderr
    return np.load(tmp_path / "results.npz"), json.loads((tmp_path / "out.json").read_text())


def run_preloaded(tmp_path, body):
    """Runs the script body with the shim preloaded and Ozaki II forced; its completed
    process (exit status checked)."""
    from ozblas import shim

    (tmp_path / "c.py").write_text(textwrap.dedent(body))
    env = child_env(tmp_path)
    env.update(OZBLAS_METHOD="ozaki2", OZBLAS_MIN_SIZE="0", LD_PRELOAD=shim.library_path())
    p = subprocess.run([sys.executable, str(tmp_path / "c.py")], env=env, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return p


def within(err, native, what):
    assert err <= 4 * native + 1e-15, f"{what}: {err:.3e} vs native {native:.3e}"


# The end of a child script whose calls(numpy_too) fills res (tuples and the lwork dict
# flattened): run under `ozblas run` (NumPy's paths too) or inside activated(...), the
# results and the stats' routes saved for the parent.
CALLS_TAIL = """
if mode == "activated":
    with ozblas.activated(method="ozaki2", min_size=0, moduli=16):
        calls(False)
else:
    calls(True)
flat = {}
for k, v in res.items():
    if k == "lwork":
        flat["lwork"] = np.array([v[r] for r in sorted(v)])
    elif isinstance(v, tuple):
        for i, x in enumerate(v):
            flat[k + str(i)] = x
    else:
        flat[k] = v
np.savez(out_dir + "/results.npz", **flat)
st = ozblas.stats()["routines"]
json.dump({r: v["routes"] for r, v in st.items() if v["calls"]}, open(out_dir + "/out.json", "w"))
"""


def calls_head(native_module):
    """The start of such a child: its arguments, the tests/lapack helpers (native_module:
    their host-LAPACK module, imported as N), the inputs; calls(numpy_too) follows."""
    return ("import json, sys\n"
            "import numpy as np, scipy.linalg as sl, scipy.linalg.lapack as la\n"
            "import ozblas\n\n"
            "out_dir, mode = sys.argv[1], sys.argv[2]\n"
            f"sys.path.insert(0, {str(LAPACK_TESTS)!r})\n"
            f"import {native_module} as N\n"
            "inp = dict(np.load(out_dir + '/inputs.npz'))\n"
            "res = {}\n")
