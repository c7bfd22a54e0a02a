"""In-process activation: ozblas.activate(), deactivate(), activated(), OZBLAS_ACTIVATE=1.

Each test runs a fresh interpreter (activation rewrites the process's GOT slots) with
emulation forced (method ozaki2, min_size 0), and checks in this process that routed
results are ozblas's bits for the same call (and not native's), that they agree with the exact
oracle, and that deactivation gives native bits back. GOT slots are read in the child at
the offsets readelf gives, so their values are checked independently of the patcher.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import ozblas
from ozblas import activation
from ozblas._native import lib
from ozblas.testing import err_ab, exact_matmul, exp, standard_normal

TOL = 1e-15  # err_ab of Ozaki II with 16 moduli (exact product rounded once)
ROUTED = dict(method="ozaki2", moduli=16)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF GOT patching is Linux")

# Reads a GOT slot of a loaded object at an offset readelf gave (used by the children).
SLOTS = """
import ctypes, os

def load_bias(path, first_load):
    real = os.path.realpath(path)
    starts = [int(f[0].split("-")[0], 16) for f in (l.split() for l in open("/proc/self/maps"))
              if len(f) == 6 and f[5] == real and int(f[2], 16) == 0]
    return min(starts) - first_load

def slot(addr):
    return ctypes.c_void_p.from_address(addr).value or 0

def perms(addr):
    for f in (l.split() for l in open("/proc/self/maps")):
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        if lo <= addr < hi:
            return f[1]

def shim_entries(names):
    from ozblas import shim
    pre = ctypes.CDLL(shim.library_path(), mode=os.RTLD_NOLOAD)
    return {n: ctypes.cast(getattr(pre, n), ctypes.c_void_p).value for n in names}
"""


def _env(tmp_path, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_") and k != "LD_PRELOAD"}
    env.update(OMP_NUM_THREADS="2")
    env.update(extra)
    return env


def _run(tmp_path, body, env=None, args=()):
    script = tmp_path / "child.py"
    script.write_text(SLOTS + textwrap.dedent(body))
    p = subprocess.run([sys.executable, str(script), str(tmp_path), *args], env=env or _env(tmp_path),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    return p


def _trace(path):
    if not Path(path).exists():
        return []
    return [dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line)) for line in Path(path).read_text().splitlines()]


def _readelf(args, path):
    if not shutil.which("readelf"):
        pytest.skip("readelf (binutils) not available")
    return subprocess.run(["readelf", *args, str(path)], capture_output=True, text=True, check=True).stdout


def _got_offsets(path, names):
    """{name: offset} of the JUMP_SLOT/GLOB_DAT relocations of names in the ELF file."""
    out = {}
    for f in (line.split() for line in _readelf(["-rW"], path).splitlines()):
        if len(f) >= 5 and re.fullmatch(r"R_(X86_64|AARCH64)_(JUMP_SLOT|GLOB_DAT)", f[2]):
            name = f[4].split("@")[0]
            if name in names:
                out[name] = int(f[0], 16)
    return out


def _first_load(path) -> int:
    for f in (line.split() for line in _readelf(["-lW"], path).splitlines()):
        if f and f[0] == "LOAD":
            return int(f[2], 16) & ~0xFFF
    raise AssertionError(f"no PT_LOAD in {path}")


@pytest.fixture(scope="module")
def inputs():
    rng = np.random.default_rng(11)
    return dict(a=standard_normal(rng, (40, 56)), b=standard_normal(rng, (56, 48)),
                za=standard_normal(rng, (40, 56)) + 1j * standard_normal(rng, (40, 56)),
                zb=standard_normal(rng, (56, 48)) - 1j * standard_normal(rng, (56, 48)),
                s=standard_normal(rng, (48, 64)) * exp(standard_normal(rng, (48, 64))))


def _multiarray_path() -> str:
    try:
        from numpy._core import _multiarray_umath as mu
    except ImportError:  # NumPy 1.x
        from numpy.core import _multiarray_umath as mu
    return mu.__file__


NUMPY_NAMES = ["scipy_cblas_dgemm64_", "scipy_cblas_zgemm64_", "scipy_cblas_dsyrk64_", "scipy_cblas_zsyrk64_"]

PRODUCTS = """
import json, sys, numpy as np
out = sys.argv[1]
d = dict(np.load(out + "/in.npz")); meta = json.load(open(out + "/meta.json"))
a, b, za, zb, s = (d[k] for k in ("a", "b", "za", "zb", "s"))
def products():
    return dict(matmul=a @ b, dot=np.dot(a, b), zmatmul=za @ zb, syrk=s @ s.T)
addr = {n: load_bias(meta["path"], meta["first_load"]) + off for n, off in meta["offsets"].items()}
def slots():
    return {n: slot(p) for n, p in addr.items()}
"""


def _numpy_meta(tmp_path, inputs):
    path = _multiarray_path()
    offsets = _got_offsets(path, NUMPY_NAMES)
    if set(offsets) != set(NUMPY_NAMES):
        pytest.skip(f"this NumPy does not call {NUMPY_NAMES} (found {sorted(offsets)})")
    np.savez(tmp_path / "in.npz", **inputs)
    (tmp_path / "meta.json").write_text(json.dumps({"path": path, "first_load": _first_load(path),
                                                    "offsets": offsets}))


def _as_numpy_calls(a, b, **kw):
    """ozblas's bits for NumPy's a @ b: the row-major C = A B reaches BLAS as the
    column-major C^T = B^T A^T, which ozblas.matmul of the transposes computes (Ozaki
    scaling treats rows and columns differently, so the orientation shows in the bits)."""
    return ozblas.matmul(b.T, a.T, **kw).T


def _check_routed(o, inputs, prefix=""):
    a, b, za, zb, s = (inputs[k] for k in ("a", "b", "za", "zb", "s"))
    ref = _as_numpy_calls(a, b, **ROUTED)
    iu = np.triu_indices(s.shape[0])
    assert np.array_equal(o[prefix + "matmul"], ref) and np.array_equal(o[prefix + "dot"], ref)
    assert np.array_equal(o[prefix + "zmatmul"], _as_numpy_calls(za, zb, **ROUTED))
    syrk = o[prefix + "syrk"]  # NumPy's SYRK: the upper triangle computed, mirrored
    assert np.array_equal(syrk[iu], _as_numpy_calls(s, s.T, **ROUTED)[iu])
    assert np.array_equal(syrk, syrk.T)
    assert err_ab(o[prefix + "matmul"], exact_matmul(a, b), a, b) <= TOL
    assert err_ab(o[prefix + "zmatmul"], exact_matmul(za, zb), za, zb) <= TOL
    assert err_ab(syrk, exact_matmul(s, s.T), s, s.T) <= TOL


def _check_native(o, inputs, prefix=""):
    a, b, za, zb, s = (inputs[k] for k in ("a", "b", "za", "zb", "s"))
    assert np.array_equal(o[prefix + "matmul"], a @ b)  # the same OpenBLAS as this process's
    assert np.array_equal(o[prefix + "zmatmul"], za @ zb)
    assert np.array_equal(o[prefix + "syrk"], s @ s.T)


def test_activate_in_a_live_interpreter_routes_and_deactivate_restores(tmp_path, inputs):
    _numpy_meta(tmp_path, inputs)
    body = PRODUCTS + """
native, before = products(), slots()          # NumPy imported and used before ozblas
import ozblas
from ozblas.activation import status
ozblas.activate(method="ozaki2", moduli=16, min_size=0, trace=out + "/trace.log")
during, ours, n_active = slots(), shim_entries(addr), status()["slots"]
global_names = hasattr(ctypes.CDLL(None), "scipy_cblas_dgemm64_")  # the shim interposes nothing
routed = products()
n_lines = len(open(out + "/trace.log").read().splitlines())
ozblas.deactivate()
after, n_after = slots(), status()["slots"]
restored = products()
np.savez(out + "/out.npz", **{"native_" + k: v for k, v in native.items()},
         **{"routed_" + k: v for k, v in routed.items()}, **{"restored_" + k: v for k, v in restored.items()})
json.dump(dict(before=before, during=during, ours=ours, after=after, n_lines=n_lines,
               n_active=n_active, n_after=n_after, global_names=global_names),
          open(out + "/slots.json", "w"))
"""
    _run(tmp_path, body)
    o = np.load(tmp_path / "out.npz")
    s = json.loads((tmp_path / "slots.json").read_text())
    _check_native(o, inputs, "native_")
    _check_routed(o, inputs, "routed_")
    for k in ("matmul", "zmatmul", "syrk"):
        assert not np.array_equal(o["routed_" + k], o["native_" + k]), k
    _check_native(o, inputs, "restored_")
    assert s["during"] == s["ours"] and all(s["before"][n] != s["ours"][n] for n in NUMPY_NAMES)
    assert s["after"] == s["before"]  # every slot holds its original value again
    assert s["n_active"] >= len(NUMPY_NAMES) and s["n_after"] == 0
    assert not s["global_names"]  # loaded RTLD_LOCAL: dlsym(RTLD_DEFAULT) does not see it
    t = _trace(tmp_path / "trace.log")
    assert len(t) == s["n_lines"]  # nothing reaches the shim after deactivate()
    routed = {(x["routine"], x["symbol"]) for x in t if x["route"] == "ozblas"}
    assert {("dgemm", "scipy_cblas_dgemm64_"), ("zgemm", "scipy_cblas_zgemm64_"),
            ("dsyrk", "scipy_cblas_dsyrk64_")} <= routed
    zmod = str(lib.ozblas_ozaki2_complex_count(lib.OZBLAS_ENGINE_INT8, 16))  # the complex set's
    assert all(x["route"] == "ozblas" and x["method"] == "ozaki2"
               and x["moduli"] == ("16" if x["routine"].startswith("d") else zmod) for x in t)


def test_activate_twice_patches_nothing_new(tmp_path, inputs):
    _numpy_meta(tmp_path, inputs)
    body = PRODUCTS + """
native, before = products(), slots()
import ozblas
from ozblas import activation
ozblas.activate(method="ozaki2", moduli=16, min_size=0)
first = activation.status()["slots"]
newly = activation._lib.ozblas_activate_patch()
ozblas.activate(method="ozaki2", moduli=16, min_size=0)
second = activation.status()["slots"]
routed = products()
ozblas.deactivate()
restored, after = products(), slots()
np.savez(out + "/out.npz", **{"routed_" + k: v for k, v in routed.items()},
         **{"restored_" + k: v for k, v in restored.items()})
json.dump(dict(first=first, second=second, newly=newly, same=after == before), open(out + "/r.json", "w"))
"""
    _run(tmp_path, body)
    o = np.load(tmp_path / "out.npz")
    r = json.loads((tmp_path / "r.json").read_text())
    assert r["first"] >= len(NUMPY_NAMES) and r["second"] == r["first"] and r["newly"] == 0
    assert r["same"]  # one deactivate() restores the originals, not a slot patched twice
    _check_routed(o, inputs, "routed_")
    _check_native(o, inputs, "restored_")


def test_modules_imported_after_activation_are_routed(tmp_path):
    x = standard_normal(np.random.default_rng(5), (30, 30)) / 8
    np.save(tmp_path / "x.npy", x)
    body = """
import sys, numpy as np
out = sys.argv[1]
x = np.load(out + "/x.npy")
import ozblas, scipy_hook
ozblas.activate(method="ozaki2", moduli=16, min_size=0, trace=out + "/trace.log")
assert "scipy" not in sys.modules
import scipy.linalg                     # its extension modules load after activate()
hook = scipy_hook.installed() and type(scipy.linalg.blas.dgemm).__name__ == "_Gemm"
routed = scipy.linalg.expm(x)           # _matfuncs_expm -> cython_blas -> scipy_dgemm_
ozblas.deactivate()
unhooked = not scipy_hook.installed() and type(scipy.linalg.blas.dgemm).__name__ == "fortran"
np.savez(out + "/out.npz", routed=routed, restored=scipy.linalg.expm(x), hook=hook, unhooked=unhooked)
"""
    _run(tmp_path, body)
    import scipy.linalg

    o = np.load(tmp_path / "out.npz")
    native = scipy.linalg.expm(x)
    assert bool(o["hook"]) and bool(o["unhooked"])
    assert np.array_equal(o["restored"], native)
    assert not np.array_equal(o["routed"], native)
    assert np.max(np.abs(o["routed"] - native)) <= 1e-14 * np.max(np.abs(native))
    # the products; expm's LU solve (getrf/getrs, n = 30: one LAPACK block) passes through
    t = [x for x in _trace(tmp_path / "trace.log") if "nrhs" not in x]
    assert t and all(x["route"] == "ozblas" and x["symbol"] == "scipy_dgemm_" for x in t)


def test_activated_restores_the_state_it_found(tmp_path, inputs):
    np.savez(tmp_path / "in.npz", **inputs)
    body = """
import sys, numpy as np, ozblas
from ozblas.activation import status
out = sys.argv[1]
d = np.load(out + "/in.npz"); a, b = d["a"], d["b"]
native = a @ b
with ozblas.activated(method="ozaki2", moduli=16, min_size=0):
    r16 = a @ b
    default = ozblas.matmul(a, b)       # ozblas's own defaults follow the activation too
    with ozblas.activated(method="ozaki2", moduli=12, min_size=0):
        r12 = a @ b
    r16b = a @ b
    try:
        with ozblas.activated(method="native"):
            raise KeyError
    except KeyError:
        pass
    r16c = a @ b
    inner = status()
after, final = a @ b, status()
np.savez(out + "/out.npz", native=native, r16=r16, default=default, r12=r12, r16b=r16b, r16c=r16c,
         after=after, active_inside=inner["active"], settings_inside=str(inner["settings"]),
         active_after=final["active"], slots_after=final["slots"])
"""
    _run(tmp_path, body)
    o = np.load(tmp_path / "out.npz")
    a, b = inputs["a"], inputs["b"]
    ref16 = _as_numpy_calls(a, b, **ROUTED)
    ref12 = _as_numpy_calls(a, b, method="ozaki2", moduli=12)
    assert np.array_equal(o["native"], a @ b) and np.array_equal(o["after"], a @ b)
    for k in ("r16", "r16b", "r16c"):
        assert np.array_equal(o[k], ref16), k
    assert np.array_equal(o["default"], ozblas.matmul(a, b, **ROUTED))
    assert np.array_equal(o["r12"], ref12) and not np.array_equal(ref12, ref16)
    assert bool(o["active_inside"]) and "'moduli': 16" in str(o["settings_inside"])
    assert not bool(o["active_after"]) and int(o["slots_after"]) == 0


def test_activated_blocks_in_threads_are_reference_counted(tmp_path, inputs):
    """Issue 24: two threads' activated() blocks that overlap. When the first exits, the
    second's block stays routed (with its settings, the block entered last); when both have
    exited the process is inactive again, with identical settings too; nested blocks and an
    explicit activate() (the state to return to) keep their meaning."""
    np.savez(tmp_path / "in.npz", **inputs)
    body = """
import json, sys, threading, numpy as np, ozblas
from ozblas.activation import status
d = np.load(sys.argv[1] + "/in.npz"); a, b = d["a"], d["b"]
def moduli():  # which settings route a @ b now: 12, 16 or None (native)
    st = status()
    return st["settings"].get("moduli") if st["active"] and st["slots"] else None
def product():
    return (a @ b).tolist()
log = []
def overlap(s1, s2):
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    def second():
        first_in.wait()
        with ozblas.activated(**s2):
            log.append(("second inside", moduli()))
            second_in.set()
            first_out.wait()
            log.append(("second after first exit", moduli(), product()))
    t = threading.Thread(target=second)
    t.start()
    with ozblas.activated(**s1):
        log.append(("first inside", moduli()))
        first_in.set()
        second_in.wait()
    first_out.set()
    t.join()
    log.append(("after both", moduli(), status()["active"], status()["slots"]))
overlap(dict(method="ozaki2", moduli=16, min_size=0), dict(method="ozaki2", moduli=12, min_size=0))
overlap(dict(method="ozaki2", moduli=16, min_size=0), dict(method="ozaki2", moduli=16, min_size=0))
with ozblas.activated(method="ozaki2", moduli=16, min_size=0):
    with ozblas.activated(method="ozaki2", moduli=12, min_size=0):
        log.append(("nested inner", moduli()))
    log.append(("nested outer", moduli()))
log.append(("nested after", moduli()))
ozblas.activate(method="ozaki2", moduli=12, min_size=0)
with ozblas.activated(method="ozaki2", moduli=16, min_size=0):
    log.append(("under activate", moduli()))
log.append(("back to activate", moduli()))
ozblas.deactivate()
log.append(("deactivated", moduli(), status()["slots"]))
print("OUT" + json.dumps(log))
"""
    log = json.loads(_run(tmp_path, SLOTS + body).stdout.split("OUT", 1)[1])
    ref12 = _as_numpy_calls(inputs["a"], inputs["b"], method="ozaki2", moduli=12).tolist()
    ref16 = _as_numpy_calls(inputs["a"], inputs["b"], method="ozaki2", moduli=16).tolist()
    assert ref12 != ref16
    first, second = log[:4], log[4:8]
    assert first[0] == ["first inside", 16] and first[1] == ["second inside", 12]
    assert first[2] == ["second after first exit", 12, ref12]  # not unhooked by the first's exit
    assert first[3] == ["after both", None, False, 0]  # not left activated
    assert second[2] == ["second after first exit", 16, ref16]
    assert second[3] == ["after both", None, False, 0]
    assert log[8:] == [["nested inner", 12], ["nested outer", 16], ["nested after", None],
                       ["under activate", 16], ["back to activate", 12], ["deactivated", None, 0]]


def test_ozblas_activate_variable_routes_an_unmodified_script(tmp_path, inputs):
    np.savez(tmp_path / "in.npz", **inputs)
    code = ("import sys, numpy as np; d = np.load(sys.argv[1] + '/in.npz'); "
            "np.save(sys.argv[1] + '/out.npy', d['a'] @ d['b']); "
            "print('ozblas' in sys.modules)")
    trace = tmp_path / "trace.log"
    env = _env(tmp_path, OZBLAS_METHOD="ozaki2", OZBLAS_MODULI="16", OZBLAS_MIN_SIZE="0", OZBLAS_TRACE=str(trace))
    a, b = inputs["a"], inputs["b"]

    def run(value):
        trace.unlink(missing_ok=True)
        p = subprocess.run([sys.executable, "-c", code, str(tmp_path)], env=dict(env, OZBLAS_ACTIVATE=value),
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        return p, np.load(tmp_path / "out.npy")

    p, c = run("1")
    assert p.stdout.strip() == "True"
    assert np.array_equal(c, _as_numpy_calls(a, b, **ROUTED)) and not np.array_equal(c, a @ b)
    t = _trace(trace)
    assert [(x["routine"], x["route"]) for x in t] == [("dgemm", "ozblas")]

    p, c = run("0")  # the start-up hook does not even import ozblas
    assert p.stdout.strip() == "False" and np.array_equal(c, a @ b) and not trace.exists()

    p, c = run("yes")
    assert "OZBLAS_ACTIVATE='yes' is not valid; accepted: 0, 1" in p.stderr
    assert np.array_equal(c, a @ b) and not trace.exists()


@pytest.mark.parametrize("kw,accepted", [
    (dict(method="fastest"), "auto, native, ozaki1, ozaki2"),
    (dict(moduli=99), "2 to 49"),
    (dict(min_size=-1), "positive integer"),
    (dict(device="gpu"), "cuda:N"),
    (dict(variant="best"), "bitmask, rn, ef, hybrid"),
])
def test_bad_keyword_value_raises_and_changes_nothing(kw, accepted):
    (key, value), = kw.items()
    with pytest.raises(ozblas.ConfigError) as e:
        ozblas.activate(**kw)
    assert key in str(e.value) and repr(value) in str(e.value) and accepted in str(e.value)
    assert activation.status() == {"active": False, "settings": {}, "slots": 0}


def test_bad_environment_value_raises(monkeypatch):
    monkeypatch.setenv("OZBLAS_MODULI", "99")
    with pytest.raises(ozblas.ConfigError, match="OZBLAS_MODULI='99'"):
        ozblas.activate(method="ozaki2")
    assert not activation.status()["active"]


RELRO_LIB = r"""
#include <stdint.h>
void scipy_cblas_dgemm64_(int, int, int, int64_t, int64_t, int64_t, double, const double *,
                          int64_t, const double *, int64_t, double, double *, int64_t);
/* Row-major C = A B, the call NumPy makes for a @ b. */
void product(int64_t m, int64_t n, int64_t k, const double *a, const double *b, double *c)
{
    scipy_cblas_dgemm64_(101, 111, 111, m, n, k, 1.0, a, k, b, n, 0.0, c, n);
}
"""


def test_full_relro_library_loaded_later_is_patched_on_the_next_activate(tmp_path, inputs):
    """A library linked with -z now -z relro -fno-plt (GLOB_DAT slot on a read-only page),
    loaded with ctypes after activate(): the next activate() patches it, the page stays
    read-only, deactivate() puts the original back."""
    gcc = shutil.which("gcc") or shutil.which("cc")
    if not gcc:
        pytest.skip("no C compiler")
    blas = ozblas.info()["host_blas"]
    import ctypes

    if not blas or not hasattr(ctypes.CDLL(blas), "scipy_cblas_dgemm64_"):
        pytest.skip("the host BLAS does not define scipy_cblas_dgemm64_")
    (tmp_path / "prod.c").write_text(RELRO_LIB)
    so = tmp_path / "libprod.so"
    r = subprocess.run([gcc, "-shared", "-fPIC", "-fno-plt", "-O1", "-Wl,-z,relro,-z,now", str(tmp_path / "prod.c"),
                        "-o", str(so), blas, f"-Wl,-rpath,{Path(blas).parent}"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "BIND_NOW" in _readelf(["-d"], so)
    off = _got_offsets(so, ["scipy_cblas_dgemm64_"])
    assert "GLOB_DAT" in _readelf(["-rW"], so) and off
    np.savez(tmp_path / "in.npz", **inputs)
    meta = {"path": str(so), "first_load": _first_load(so), "offset": off["scipy_cblas_dgemm64_"]}
    (tmp_path / "meta.json").write_text(json.dumps(meta))
    body = """
import json, sys, ctypes, numpy as np, ozblas
out = sys.argv[1]
d = np.load(out + "/in.npz"); a, b = d["a"], d["b"]; meta = json.load(open(out + "/meta.json"))
ozblas.activate(method="ozaki2", moduli=16, min_size=0, trace=out + "/trace.log")
lib = ctypes.CDLL(meta["path"])         # not an extension module: not patched yet
p = load_bias(meta["path"], meta["first_load"]) + meta["offset"]
def product():
    c = np.empty((a.shape[0], b.shape[1]))
    lib.product(ctypes.c_int64(a.shape[0]), ctypes.c_int64(b.shape[1]), ctypes.c_int64(a.shape[1]),
                a.ctypes.data_as(ctypes.c_void_p), b.ctypes.data_as(ctypes.c_void_p),
                c.ctypes.data_as(ctypes.c_void_p))
    return c
orig, perm0 = slot(p), perms(p)
unpatched = product()
ozblas.activate(method="ozaki2", moduli=16, min_size=0, trace=out + "/trace.log")
patched, perm1, ours = slot(p), perms(p), shim_entries(["scipy_cblas_dgemm64_"])["scipy_cblas_dgemm64_"]
routed = product()
ozblas.deactivate()
restored, perm2 = slot(p), perms(p)
np.savez(out + "/out.npz", unpatched=unpatched, routed=routed, after=product())
json.dump(dict(orig=orig, patched=patched, ours=ours, restored=restored, perms=[perm0, perm1, perm2]),
          open(out + "/r.json", "w"))
"""
    _run(tmp_path, body)
    o = np.load(tmp_path / "out.npz")
    r = json.loads((tmp_path / "r.json").read_text())
    a, b = inputs["a"], inputs["b"]
    assert np.array_equal(o["unpatched"], a @ b) and np.array_equal(o["after"], a @ b)
    assert np.array_equal(o["routed"], _as_numpy_calls(a, b, **ROUTED))  # the same CBLAS call
    assert r["patched"] == r["ours"] != r["orig"] and r["restored"] == r["orig"]
    assert r["perms"] == ["r--p"] * 3  # the RELRO page is read-only before, while and after
    t = _trace(tmp_path / "trace.log")
    assert [(x["symbol"], x["route"]) for x in t] == [("scipy_cblas_dgemm64_", "ozblas")]


def test_activation_releases_its_trace_descriptor(tmp_path):
    """Issue 13 row 4: 1000 activate(trace=...) / deactivate() cycles held 1000 descriptors
    (with `ulimit -n 100` the application got "Too many open files"). The count is flat:
    deactivation closes the trace, a new trace replaces the old one."""
    p = _run(tmp_path, """
        import os, sys, resource
        import numpy as np, ozblas
        fds = lambda: len(os.listdir("/proc/self/fd"))
        a = np.ones((4, 4))
        ozblas.activate(trace=sys.argv[1] + "/x.log", min_size=0); a @ a; ozblas.deactivate()
        before = fds()
        resource.setrlimit(resource.RLIMIT_NOFILE, (before + 20, before + 20))
        for i in range(300):
            ozblas.activate(trace=sys.argv[1] + f"/t{i % 3}.log", min_size=0)
            a @ a
            ozblas.deactivate()
        print("FDS", before, fds())
    """)
    before, after = map(int, re.search(r"FDS (\d+) (\d+)", p.stdout).groups())
    assert after == before, p.stdout
    lines = (tmp_path / "t0.log").read_text().splitlines()
    assert len(lines) == 100 and all(x.startswith("ozblas-trace") for x in lines)


def test_exact_oracle_is_exact_under_activation(tmp_path):
    """Issue 13 row 13: the oracle's own float64 products went through the shim, so under
    activated(method="ozaki1", slices=4) every entry was wrong."""
    p = _run(tmp_path, """
        import numpy as np, ozblas
        from ozblas.testing import exact_matmul, err_ab, make_matrix
        a, b = make_matrix(60, 300, 1.0, seed=1), make_matrix(300, 50, 1.0, seed=2)
        want = exact_matmul(a, b)
        with ozblas.activated(method="ozaki1", slices=4, min_size=0):
            got = exact_matmul(a, b)
            den = err_ab(a @ b, want, a, b)  # the routed product is 4 slices' worth
            routed = not np.array_equal(a @ b, np.asarray(ozblas.matmul(a, b, method="native")))
        print("SAME", np.array_equal(got, want), "ROUTED", routed, "ERR", den)
    """)
    assert "SAME True ROUTED True" in p.stdout, p.stdout


def test_alpha_zero_is_beta_c_on_every_path_whatever_the_host_kernel(tmp_path):
    """Issue 24: alpha = 0 is the reference BLAS's C := beta C (trsm/trmm: B := 0), A and B
    not referenced, on every path ozblas answers: ozblas.dgemm, the preload shim (GEMM,
    SYRK/HERK, and the Level-3 entries trsm trmm symm hemm syr2k her2k, whatever the size,
    below OZBLAS_MIN_SIZE included, and with OZBLAS_METHOD=native) and in-process activation
    (scipy_hook and the patched slots). NaN and Inf in A and B never reach C, so no host BLAS
    kernel can change the result: where the CPU has AVX-512, OpenBLAS's SkylakeX kernels
    (which do multiply when alpha = 0) are forced. The expected values are exact (small
    integers times beta), computed without any BLAS. Calls with alpha = 0 and beta = 1 leave
    C as it is."""
    body = """
        import json, sys, numpy as np, scipy.linalg.blas as blas, ozblas
        nan = np.full((40, 30), np.nan); b = np.full((30, 20), np.inf); c = np.arange(800.0).reshape(40, 20)
        z = np.full((4, 3), np.inf + 1j); zb = np.full((3, 2), np.nan + 0j)
        zc = (np.arange(8.0) - 3 + 2j).reshape(4, 2)
        sq = np.arange(36.0).reshape(6, 6) - 7; zsq = sq + 1j * sq.T
        an = np.full((6, 6), np.nan); azn = np.full((6, 6), np.nan + 1j)
        def calls():
            return {
                "dgemm": blas.dgemm(0.0, nan, b, beta=2.0, c=c),
                "dgemm0": blas.dgemm(0.0, nan, b),
                "zgemm": blas.zgemm(0.0, z, zb, beta=1j, c=zc),
                "ozblas": ozblas.dgemm(0.0, nan, b, beta=2.0, c=c, method="ozaki2"),
                "dsyrk": blas.dsyrk(0.0, an, beta=-0.5, c=sq),
                "zherk": blas.zherk(0.0, azn, beta=2.0, c=zsq, lower=1),
                "dtrsm": blas.dtrsm(0.0, an, sq),
                "ztrmm": blas.ztrmm(0.0, azn, zsq, side=1),
                "dsymm": blas.dsymm(0.0, an, an, beta=3.0, c=sq),
                "zhemm": blas.zhemm(0.0, azn, azn, beta=0.5 - 1j, c=zsq),
                "dsyr2k": blas.dsyr2k(0.0, an, an, beta=0.25, c=sq),
                "zher2k": blas.zher2k(0.0, azn, azn, beta=-1.0, c=zsq, lower=1),
                "beta1": blas.dgemm(0.0, nan, b, beta=1.0, c=c),
            }
        def want():
            up, lo = np.triu(np.ones((6, 6), bool)), np.tril(np.ones((6, 6), bool))
            herk = np.where(lo, 2.0 * zsq, zsq); np.fill_diagonal(herk, 2.0 * np.diag(zsq).real)
            her2k = np.where(lo, -zsq, zsq); np.fill_diagonal(her2k, -np.diag(zsq).real)
            return {"dgemm": 2.0 * c, "dgemm0": np.zeros((40, 20)), "zgemm": 1j * zc,
                    "ozblas": 2.0 * c, "dsyrk": np.where(up, -0.5 * sq, sq), "zherk": herk,
                    "dtrsm": np.zeros((6, 6)), "ztrmm": np.zeros((6, 6), complex),
                    "dsymm": 3.0 * sq, "zhemm": (0.5 - 1j) * zsq,
                    "dsyr2k": np.where(up, 0.25 * sq, sq), "zher2k": her2k, "beta1": c}
        mode = sys.argv[2]
        got = calls()
        if mode == "activated":
            with ozblas.activated(method="ozaki2", moduli=16):
                assert type(blas.dgemm).__name__ == "_Gemm"
                got = calls()
        w = want()
        bad = {k: str(got[k]) for k in w if not np.array_equal(got[k], w[k])}
        if mode == "plain":  # the host kernel's own reading, for the record only
            bad = {"NaN in dgemm": bool(np.isnan(got["dgemm"]).any())}
        print("OUT" + json.dumps(bad))
    """
    avx512 = "avx512f" in Path("/proc/cpuinfo").read_text()
    script = tmp_path / "child.py"
    script.write_text(SLOTS + textwrap.dedent(body))

    def run(mode, *pre, **env):
        e = _env(tmp_path, **({"OPENBLAS_CORETYPE": "SkylakeX"} if avx512 else {}), **env)
        p = subprocess.run([*pre, sys.executable, str(script), str(tmp_path), mode], env=e,
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stdout + p.stderr
        return json.loads(p.stdout.split("OUT", 1)[1])

    ozblas_run = (sys.executable, "-m", "ozblas", "run", "--")
    trace = tmp_path / "trace.txt"
    assert run("activated") == {}
    assert run("shim", *ozblas_run, OZBLAS_METHOD="ozaki2", OZBLAS_TRACE=str(trace)) == {}
    assert run("shim", *ozblas_run, OZBLAS_METHOD="native") == {}
    assert run("shim", *ozblas_run, OZBLAS_MIN_SIZE="100000") == {}
    lines = _trace(trace)
    zero = [t for t in lines if t.get("reason") == '"alpha or k zero: C := beta C by ozblas"']
    assert {t["routine"] for t in zero} == {"dgemm", "zgemm", "dsyrk", "zherk", "dtrsm", "ztrmm",
                                            "dsymm", "zhemm", "dsyr2k", "zher2k"}, lines
    assert all(t["route"] == "quick" for t in zero)
    beta1 = [t for t in lines
             if t["routine"] == "dgemm" and t["m"] == "40" and t.get("reason") == '"quick return"']
    assert beta1, lines  # alpha = 0, beta = 1: BLAS's quick return, C not touched
    if avx512:  # what ozblas protects from: the host kernel multiplies NaN by zero
        assert run("plain") == {"NaN in dgemm": True}
