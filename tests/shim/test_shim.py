"""The preload shim (libozblas_preload.so) and `ozblas run`, on the CPU.

Every test runs a child process under the shim with emulation forced
(OZBLAS_METHOD=ozaki2, OZBLAS_MIN_SIZE=0 unless said otherwise), reads its trace, and
checks its results against the exact oracle in this (unpreloaded) process.
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

from ozblas import cli, config, shim
from ozblas._native import lib
from ozblas.testing import err_ab, exact_matmul, exp, standard_normal

TOL = 1e-15  # err_ab of Ozaki II with 16 moduli (exact product rounded once)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="LD_PRELOAD is Linux")


def _base_env(tmp_path, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_") and k != "LD_PRELOAD"}
    env.update(OZBLAS_METHOD="ozaki2", OZBLAS_MIN_SIZE="0", OZBLAS_MODULI="16",
               OZBLAS_TRACE=str(tmp_path / "trace.log"), OMP_NUM_THREADS="2")
    env.update(extra)
    return env


def _preloaded(env):
    env = dict(env)
    env["LD_PRELOAD"] = shim.library_path()
    return env


def _trace(tmp_path):
    p = tmp_path / "trace.log"
    if not p.exists():
        return []
    out = []
    for line in p.read_text().splitlines():
        assert line.startswith("ozblas-trace "), line
        out.append(dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line)))
    return out


def _run_script(tmp_path, body, env, via_run=False, timeout=60, run_args=()):
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(body))
    cmd = [sys.executable, str(script), str(tmp_path)]
    if via_run:  # through `ozblas run`, the way a user starts it
        cmd = [sys.executable, "-c", "import sys, ozblas.cli as c; sys.exit(c.cmd_run(sys.argv[1:]))",
               *run_args, "--", *cmd]
    else:
        env = _preloaded(env)
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)


def _ok(proc):
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def inputs():
    rng = np.random.default_rng(7)
    d = dict(a=standard_normal(rng, (40, 56)), b=standard_normal(rng, (56, 48)),
             za=standard_normal(rng, (40, 56)) + 1j * standard_normal(rng, (40, 56)),
             zb=standard_normal(rng, (56, 48)) - 1j * standard_normal(rng, (56, 48)),
             s=standard_normal(rng, (48, 64)) * exp(standard_normal(rng, (48, 64))))
    return d


def test_library_exports_the_table():
    out = subprocess.run(["nm", "-D", "--defined-only", shim.library_path()], capture_output=True,
                         text=True).stdout if shutil.which("nm") else ""
    if not out:
        pytest.skip("nm not available")
    names = set(line.split()[-1] for line in out.splitlines())
    for r in ("dgemm", "zgemm", "dsyrk", "zsyrk", "zherk"):
        for form in (f"{r}_", f"{r}_64_", f"scipy_{r}_", f"scipy_{r}_64_", f"cblas_{r}",
                     f"cblas_{r}64_", f"scipy_cblas_{r}", f"scipy_cblas_{r}64_"):
            assert form in names
    for r in ("dtrsm", "ztrmm", "dsymm", "zsymm", "zhemm", "dsyr2k", "zsyr2k", "zher2k"):
        for form in (f"{r}_", f"{r}_64_", f"scipy_{r}_", f"scipy_{r}_64_", f"cblas_{r}",
                     f"cblas_{r}64_", f"scipy_cblas_{r}", f"scipy_cblas_{r}64_"):
            assert form in names
    for r in ("dgeqrf", "zgeqrf", "dorgqr", "zungqr", "dormqr", "zunmqr"):
        for form in (f"{r}_", f"{r}_64_", f"scipy_{r}_", f"scipy_{r}_64_"):
            assert form in names
    assert not any(n.startswith("ozblas_dgemm") for n in names)  # only BLAS names and markers


def test_routed_products_agree_with_the_oracle(tmp_path, inputs):
    np.savez(tmp_path / "in.npz", **inputs)
    body = """
        import sys, numpy as np, scipy.linalg.blas as sb
        d = dict(np.load(sys.argv[1] + "/in.npz"))
        a, b, za, zb, s = d["a"], d["b"], d["za"], d["zb"], d["s"]
        c0 = np.full((48, 48), 7.0, order="F")
        z0 = np.full((48, 48), 7.0 + 7.0j, order="F")
        out = dict(
            matmul=a @ b, dot=np.dot(a, b), zmatmul=za @ zb, syrk=s @ s.T,
            stacked=np.stack([a, 2 * a]) @ np.stack([b, b]),
            fdgemm=sb.dgemm(1.0, a, b),
            fdgemm_t=sb.get_blas_funcs("gemm", (a,))(1.0, b, a, trans_a=1, trans_b=1),
            fdsyrk=sb.dsyrk(1.0, s, beta=0.0, c=c0, lower=0),
            fzsyrk=sb.zsyrk(1.0, s + 1j * s[::-1], beta=0.0, c=z0, lower=1),
            fzherk=sb.zherk(1.0, s + 1j * s[::-1], beta=0.0, c=z0, lower=0),
        )
        np.savez(sys.argv[1] + "/out.npz", **out)
    """
    _ok(_run_script(tmp_path, body, _base_env(tmp_path), via_run=True))
    o = np.load(tmp_path / "out.npz")
    a, b, za, zb, s = (inputs[k] for k in ("a", "b", "za", "zb", "s"))
    assert err_ab(o["matmul"], exact_matmul(a, b), a, b) <= TOL
    assert err_ab(o["dot"], exact_matmul(a, b), a, b) <= TOL
    assert err_ab(o["zmatmul"], exact_matmul(za, zb), za, zb) <= TOL
    assert err_ab(o["syrk"], exact_matmul(s, s.T), s, s.T) <= TOL
    assert err_ab(o["stacked"][1], exact_matmul(2 * a, b), 2 * a, b) <= TOL
    assert err_ab(o["fdgemm"], exact_matmul(a, b), a, b) <= TOL
    assert err_ab(o["fdgemm_t"], exact_matmul(b.T, a.T), b.T, a.T) <= TOL
    # SYRK/HERK: the referenced triangle is the product, the other one untouched
    iu, il = np.triu_indices(48), np.tril_indices(48, -1)
    ss = exact_matmul(s, s.T)
    assert np.max(np.abs(o["fdsyrk"][iu] - ss[iu]) / (np.abs(s) @ np.abs(s.T))[iu]) <= TOL
    assert np.all(o["fdsyrk"][il] == 7.0)
    zs = s + 1j * s[::-1]
    den = np.abs(zs) @ np.abs(zs.T)
    zz = exact_matmul(zs, zs.T)
    jl, ju = np.tril_indices(48), np.triu_indices(48, 1)
    assert np.max(np.abs(o["fzsyrk"][jl] - zz[jl]) / den[jl]) <= TOL
    assert np.all(o["fzsyrk"][ju] == 7.0 + 7.0j)
    zh = exact_matmul(zs, zs.conj().T)
    assert np.max(np.abs(o["fzherk"][iu] - zh[iu]) / den[iu]) <= TOL
    assert np.all(np.diag(o["fzherk"]).imag == 0.0)
    assert np.all(o["fzherk"][il] == 7.0 + 7.0j)

    t = _trace(tmp_path)
    routed = {(x["routine"], x["symbol"]) for x in t if x["route"] == "ozblas"}
    for want in [("dgemm", "scipy_cblas_dgemm64_"), ("zgemm", "scipy_cblas_zgemm64_"),
                 ("dsyrk", "scipy_cblas_dsyrk64_"), ("dgemm", "scipy_dgemm_"),
                 ("dsyrk", "scipy_dsyrk_"), ("zsyrk", "scipy_zsyrk_"), ("zherk", "scipy_zherk_")]:
        assert want in routed, (want, t)
    # complex calls: 16 moduli's bits on the complex set (two products per modulus)
    zmod = str(lib.ozblas_ozaki2_complex_count(lib.OZBLAS_ENGINE_INT8, 16))
    for x in t:
        if x["route"] == "ozblas":
            want_m = "16" if x["routine"].startswith("d") else zmod
            assert x["method"] == "ozaki2" and x["moduli"] == want_m and x["executor"] == "cpu"
            assert x["fallback"] == '"none"'


def test_below_min_size_passes_through(tmp_path, inputs):
    np.savez(tmp_path / "in.npz", **inputs)
    body = """
        import json, sys, numpy as np, ozblas
        d = dict(np.load(sys.argv[1] + "/in.npz"))
        np.save(sys.argv[1] + "/out.npy", d["a"] @ d["b"])
        print(json.dumps(ozblas.stats()))
    """
    p = _run_script(tmp_path, body, _base_env(tmp_path, OZBLAS_MIN_SIZE="41"))
    _ok(p)
    out = np.load(tmp_path / "out.npy")
    assert np.array_equal(out, inputs["a"] @ inputs["b"])  # the same OpenBLAS, natively
    t = [x for x in _trace(tmp_path) if x["routine"] == "dgemm"]
    assert t and all(x["route"] == "native" for x in t)
    assert t[0]["reason"] == '"below OZBLAS_MIN_SIZE=41"'
    assert (t[0]["m"], t[0]["n"], t[0]["k"]) == ("48", "40", "56")  # row-major: C^T = B^T A^T
    st = json.loads(p.stdout)["routines"]["dgemm"]
    assert (st["calls"], st["native"], st["ozblas"]) == (1, 1, 0)
    assert st["routes"]["native: below OZBLAS_MIN_SIZE"]["calls"] == 1


def test_run_rejects_a_bad_setting(tmp_path):
    env = _base_env(tmp_path, OZBLAS_MODULI="abc")
    p = subprocess.run([sys.executable, "-c", "import sys, ozblas.cli as c; sys.exit(c.cmd_run(sys.argv[1:]))",
                        "--", sys.executable, "-c", "print('started')"], env=env,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2
    assert "started" not in p.stdout
    assert "OZBLAS_MODULI" in p.stderr and "'abc'" in p.stderr and "2 to 49" in p.stderr
    p = subprocess.run([sys.executable, "-c", "import sys, ozblas.cli as c; sys.exit(c.cmd_run(sys.argv[1:]))",
                        "--moduli", "50", "--", sys.executable, "-c", "print('started')"],
                       env=_base_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "OZBLAS_MODULI" in p.stderr


def test_run_passes_exit_code_and_keeps_ld_preload(tmp_path):
    env = _base_env(tmp_path)
    env["LD_PRELOAD"] = "libm.so.6"
    code = "import os, sys; print(os.environ['LD_PRELOAD']); sys.exit(7)"
    p = subprocess.run([sys.executable, "-c", "import sys, ozblas.cli as c; sys.exit(c.cmd_run(sys.argv[1:]))",
                        "--", sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 7
    assert p.stdout.strip() == shim.library_path() + ":libm.so.6"


def test_libpath_prints_the_library(capsys):
    assert cli.cmd_libpath() == 0
    path = capsys.readouterr().out.strip()
    assert path.endswith("libozblas_preload.so") and Path(path).exists()


def test_preloaded_bad_value_warns_once_and_stays_native(tmp_path, inputs):
    np.savez(tmp_path / "in.npz", **inputs)
    body = """
        import sys, numpy as np
        d = dict(np.load(sys.argv[1] + "/in.npz"))
        np.save(sys.argv[1] + "/out.npy", np.stack([d["a"] @ d["b"] for _ in range(3)]))
    """
    p = _run_script(tmp_path, body, _base_env(tmp_path, OZBLAS_MODULI="99"))
    _ok(p)
    assert p.stderr.count("OZBLAS_MODULI='99' is not valid") == 1, p.stderr
    out = np.load(tmp_path / "out.npy")
    assert all(np.array_equal(x, inputs["a"] @ inputs["b"]) for x in out)
    t = [x for x in _trace(tmp_path) if x["routine"] == "dgemm"]
    assert len(t) == 3 and all(x["route"] == "native" for x in t)


def test_disable_passes_everything_through(tmp_path, inputs):
    np.savez(tmp_path / "in.npz", **inputs)
    body = """
        import sys, numpy as np
        d = dict(np.load(sys.argv[1] + "/in.npz"))
        np.save(sys.argv[1] + "/out.npy", d["a"] @ d["b"])
    """
    _ok(_run_script(tmp_path, body, _base_env(tmp_path, OZBLAS_DISABLE="1")))
    assert np.array_equal(np.load(tmp_path / "out.npy"), inputs["a"] @ inputs["b"])
    t = [x for x in _trace(tmp_path) if x["routine"] == "dgemm"]
    assert t and all(x["route"] == "native" and x["reason"] == '"OZBLAS_DISABLE=1"' for x in t)


def test_eight_threads_at_once(tmp_path):
    rng = np.random.default_rng(3)
    a = standard_normal(rng, (8, 32, 40))
    b = standard_normal(rng, (8, 40, 36))
    np.savez(tmp_path / "in.npz", a=a, b=b)
    body = """
        import sys, threading, numpy as np
        d = np.load(sys.argv[1] + "/in.npz"); a, b = d["a"], d["b"]
        out = [None] * 8
        start = threading.Barrier(8)
        def work(i):
            start.wait()
            out[i] = [a[i] @ b[i] for _ in range(4)]
        ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        [t.start() for t in ts]; [t.join() for t in ts]
        np.save(sys.argv[1] + "/out.npy", np.array(out))
        import ozblas
        print(ozblas.stats()["routines"]["dgemm"]["routes"]["ozblas: ozaki2/cpu"]["calls"])
    """
    p = _run_script(tmp_path, body, _base_env(tmp_path))
    _ok(p)
    assert p.stdout.split() == ["32"]  # the counters lose no concurrent call
    out = np.load(tmp_path / "out.npy")
    for i in range(8):
        ex = exact_matmul(a[i], b[i])
        for j in range(4):
            assert err_ab(out[i, j], ex, a[i], b[i]) <= TOL
    t = [x for x in _trace(tmp_path) if x["routine"] == "dgemm"]
    assert len(t) == 32 and all(x["route"] == "ozblas" for x in t)


def test_forked_child_computes_correctly(tmp_path, inputs):
    np.savez(tmp_path / "in.npz", **inputs)
    body = """
        import sys, multiprocessing as mp, numpy as np, ozblas
        d = dict(np.load(sys.argv[1] + "/in.npz"))
        def child(q):
            c = d["a"] @ d["b"]
            q.put((c, ozblas.stats()["total"]["calls"]))
        if __name__ == "__main__":
            parent = d["a"] @ d["b"]  # the shim and ozblas are initialised before the fork
            ctx = mp.get_context("fork")
            q = ctx.Queue()
            p = ctx.Process(target=child, args=(q,))
            p.start(); c, child_calls = q.get(timeout=30); p.join(30)
            assert p.exitcode == 0
            np.savez(sys.argv[1] + "/out.npz", parent=parent, child=c)
            print(ozblas.stats()["total"]["calls"], child_calls)
    """
    p = _run_script(tmp_path, body, _base_env(tmp_path))
    _ok(p)
    assert p.stdout.split() == ["1", "1"]  # each process counts its own calls only
    o = np.load(tmp_path / "out.npz")
    ex = exact_matmul(inputs["a"], inputs["b"])
    for k in ("parent", "child"):
        assert err_ab(o[k], ex, inputs["a"], inputs["b"]) <= TOL
    t = [x for x in _trace(tmp_path) if x["routine"] == "dgemm"]
    assert len({x["pid"] for x in t}) == 2 and all(x["route"] == "ozblas" for x in t)


def test_python_and_c_parse_the_shim_variables_alike(monkeypatch):
    """config.c's oz_shim_env_from_env (internal, exported for the shim) and config.py agree."""
    import cffi

    from ozblas import _native

    _native.load()
    ffi = cffi.FFI()
    ffi.cdef("typedef struct { int64_t min_size; int disable; char trace[1024]; int summary; "
             "char summary_file[1024]; int64_t lapack_nb; uint64_t native_routines[2]; } oz_shim_env;"
             "int oz_shim_env_from_env(oz_shim_env *e, char *err, size_t err_len);")
    clib = ffi.dlopen(_native.library_path())
    cases = {"OZBLAS_MIN_SIZE": ["0", "1", "4096", "-1", "x", "1.5", " 3", "+3", "01"],
             "OZBLAS_DISABLE": ["0", "1", "2", "yes", "-1"], "OZBLAS_TRACE": ["-", "/tmp/x.log"],
             "OZBLAS_SUMMARY": ["0", "1", "2", "yes", " 1"], "OZBLAS_SUMMARY_FILE": ["-", "/tmp/s.%r"],
             "OZBLAS_ROUTINES": ["-gesdd", "gemm,-zgemm", "-nope", "*", "-"]}
    for name, values in cases.items():
        for v in values:
            monkeypatch.setenv(name, v)
            e = ffi.new("oz_shim_env *")
            err = ffi.new("char[512]")
            c_ok = clib.oz_shim_env_from_env(e, err, 512) == 0
            try:
                o = config.from_env()
                py_ok = True
            except config.ConfigError as ex:
                py_ok = False
                assert name in str(ex) and repr(v) in str(ex)
            assert c_ok == py_ok, (name, v)
            if c_ok:
                bits = e.native_routines[0] | e.native_routines[1] << 64
                native = tuple(r for i, r in enumerate(config.routine_names()) if bits >> i & 1)
                assert (e.min_size, bool(e.disable), ffi.string(e.trace).decode() or None,
                        bool(e.summary), ffi.string(e.summary_file).decode() or None, native) == \
                    (o.min_size, o.disable, o.trace, o.summary, o.summary_file, o.routines)
            else:
                assert name in ffi.string(err).decode()
        monkeypatch.delenv(name)
    assert config.from_env({}).min_size == 256


XERBLA_PROG = r"""
#include <stdio.h>
extern void scipy_dgemm_(const char *, const char *, const int *, const int *, const int *,
                         const double *, const double *, const int *, const double *,
                         const int *, const double *, double *, const int *);
int main(void)
{
    double a[16] = {0}, b[16] = {0}, c[16] = {0}, one = 1.0, zero = 0.0;
    int m = 4, n = 4, k = 4, bad_lda = 1, ld = 4;
    scipy_dgemm_("N", "N", &m, &n, &k, &one, a, &bad_lda, b, &ld, &zero, c, &ld);
    printf("returned\n");
    return 0;
}
"""


def test_invalid_lda_gives_the_real_xerbla_report(tmp_path):
    gcc = shutil.which("gcc") or shutil.which("cc")
    if not gcc:
        pytest.skip("no C compiler")
    import scipy.linalg  # noqa: F401  (loads SciPy's OpenBLAS)

    libs = [line.split()[-1] for line in Path("/proc/self/maps").read_text().splitlines()
            if "libscipy_openblas-" in line and line.split()[-1].endswith(".so")]
    if not libs:
        pytest.skip("SciPy's bundled LP64 OpenBLAS (scipy_dgemm_) not found")
    lib = libs[0]
    (tmp_path / "prog.c").write_text(XERBLA_PROG)
    exe = tmp_path / "prog"
    r = subprocess.run([gcc, str(tmp_path / "prog.c"), "-o", str(exe), lib,
                        f"-Wl,-rpath,{Path(lib).parent}"], capture_output=True, text=True)
    if r.returncode:
        pytest.skip(f"cannot link against {lib}: {r.stderr[-300:]}")
    env = _base_env(tmp_path)
    plain = subprocess.run([str(exe)], env=env, capture_output=True, text=True, timeout=30)
    pre = subprocess.run([str(exe)], env=_preloaded(env), capture_output=True, text=True, timeout=30)
    assert "DGEMM" in plain.stdout + plain.stderr and "8" in plain.stdout + plain.stderr
    assert (pre.stdout, pre.stderr, pre.returncode) == (plain.stdout, plain.stderr, plain.returncode)
    t = _trace(tmp_path)
    assert t and t[-1]["route"] == "native" and t[-1]["reason"] == '"argument error"'


NO_BLAS_PROG = r"""
#include <dlfcn.h>
#include <stdio.h>
typedef void (*dgemm_t)(const char *, const char *, const int *, const int *, const int *,
                        const double *, const double *, const int *, const double *,
                        const int *, const double *, double *, const int *);
int main(void)
{
    dgemm_t f = (dgemm_t)dlsym(RTLD_DEFAULT, "dgemm_");
    if (!f) { printf("no dgemm_\n"); return 0; }
    double a[16], b[16], c[16], one = 1.0, zero = 0.0;
    for (int i = 0; i < 16; i++) a[i] = b[i] = 1.0, c[i] = 5.0;
    int n = 4;
    f("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n);
    f("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n);
    printf("c0=%g\n", c[0]);
    return 0;
}
"""


def test_missing_real_routine_is_a_message_not_a_crash(tmp_path):
    gcc = shutil.which("gcc") or shutil.which("cc")
    if not gcc:
        pytest.skip("no C compiler")
    (tmp_path / "noblas.c").write_text(NO_BLAS_PROG)
    exe = tmp_path / "noblas"
    r = subprocess.run([gcc, str(tmp_path / "noblas.c"), "-o", str(exe), "-ldl"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    p = subprocess.run([str(exe)], env=_preloaded(_base_env(tmp_path, OZBLAS_MIN_SIZE="256")),
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "c0=5"  # C left unchanged
    assert p.stderr.count("no real dgemm_ found among the loaded objects") == 1, p.stderr
    t = _trace(tmp_path)
    assert len(t) == 2 and all(x["route"] == "native" for x in t)


def test_expm_is_routed_and_accurate(tmp_path):
    from ozblas.demo import expm_reference, has_extended_precision

    m = standard_normal(np.random.default_rng(5), (64, 64)) / 4
    np.save(tmp_path / "m.npy", m)
    body = """
        import sys, numpy as np, scipy.linalg
        np.save(sys.argv[1] + "/out.npy", scipy.linalg.expm(np.load(sys.argv[1] + "/m.npy")))
    """
    _ok(_run_script(tmp_path, body, _base_env(tmp_path), via_run=True))
    # the products; expm's LU solve (getrf/getrs, n = 64: one LAPACK block) passes through
    t = [x for x in _trace(tmp_path) if "nrhs" not in x]
    assert any(x["symbol"] == "scipy_dgemm_" for x in t), t  # SciPy's Pade step
    assert t and all(x["route"] == "ozblas" and x["method"] == "ozaki2" for x in t)
    import scipy.linalg

    out, native = np.load(tmp_path / "out.npy"), scipy.linalg.expm(m)
    if not has_extended_precision():
        assert np.max(np.abs(out - native)) <= 1e-13 * np.max(np.abs(native))
        return
    ref = expm_reference(m)
    err = lambda x: float(np.max(np.abs(x.astype(ref.dtype) - ref)) / np.max(np.abs(ref)))
    assert err(out) <= max(err(native), 2.0**-53)  # 3.6e-16 against native's 7.4e-16


def test_syrk_in_strips_is_one_traced_call(tmp_path, inputs):
    """The shim's SYRK/HERK run the LAPACK layer's SYRK: with OZBLAS_LAPACK_NB=16 a 48 x 48
    triangle is three column strips of products, traced and counted as one call; the other
    triangle is untouched, HERK's diagonal real, the result the exact product rounded."""
    np.savez(tmp_path / "in.npz", **inputs)
    body = """
        import sys, numpy as np, scipy.linalg.blas as sb
        s = np.load(sys.argv[1] + "/in.npz")["s"]
        zs = s + 1j * s[::-1]
        c = np.full((48, 48), 7.0, order="F")
        np.savez(sys.argv[1] + "/out.npz", d=sb.dsyrk(1.5, s, beta=0.5, c=c, lower=1),
                 z=sb.zherk(1.0, zs, beta=0.0, c=c + 0j, lower=0))
    """
    _ok(_run_script(tmp_path, body, _base_env(tmp_path, OZBLAS_LAPACK_NB="16")))
    o = np.load(tmp_path / "out.npz")
    s = inputs["s"]
    zs = s + 1j * s[::-1]
    il, iu = np.tril_indices(48), np.triu_indices(48)
    want = 1.5 * exact_matmul(s, s.T) + 3.5
    assert np.max(np.abs(o["d"][il] - want[il]) / (1.5 * np.abs(s) @ np.abs(s.T) + 3.5)[il]) <= TOL
    assert np.all(o["d"][np.triu_indices(48, 1)] == 7.0)
    zh = exact_matmul(zs, zs.conj().T)
    assert np.max(np.abs(o["z"][iu] - zh[iu]) / (np.abs(zs) @ np.abs(zs.T))[iu]) <= TOL
    assert np.all(np.diag(o["z"]).imag == 0.0) and np.all(o["z"][np.tril_indices(48, -1)] == 7.0)
    t = _trace(tmp_path)  # the strips' products are not traced again as dgemm/zgemm
    zmod = str(lib.ozblas_ozaki2_complex_count(lib.OZBLAS_ENGINE_INT8, 16))  # the complex set's
    assert [(x["routine"], x["route"], x["method"], x["moduli"], x["fallback"]) for x in t] == [
        ("dsyrk", "ozblas", "ozaki2", "16", '"none"'), ("zherk", "ozblas", "ozaki2", zmod, '"none"')]


# One of each route: 2 routed DGEMMs, a ZGEMM, a DSYRK, a DGEMM below OZBLAS_MIN_SIZE (8),
# one that ozblas gives back to native (Inf in A: native raises no flag on it, and neither
# may the emulation's steps before the fallback), and a BLAS quick return (alpha 0, beta 1).
ROUTES_BODY = """
    import json, sys, numpy as np, scipy.linalg.blas as sb, ozblas
    d = dict(np.load(sys.argv[1] + "/in.npz"))
    a, b, za, zb, s = d["a"], d["b"], d["za"], d["zb"], d["s"]
    a @ b; np.dot(a, b); za @ zb; s @ s.T
    a[:4, :4] @ b[:4, :4]
    inf = np.ones((8, 8)); inf[0, 0] = np.inf
    np.seterr(all="raise"); inf @ inf; np.seterr(all="warn")  # no flag of the emulation leaks
    sb.dgemm(0.0, a, b, beta=1.0, c=np.ones((40, 48), order="F"), overwrite_c=1)
    print(json.dumps(ozblas.stats()))
"""
ROUTE_CALLS = {("dgemm", "ozblas: ozaki2/cpu"): 2, ("zgemm", "ozblas: ozaki2/cpu"): 1,
               ("dsyrk", "ozblas: ozaki2/cpu"): 1, ("dgemm", "native: below OZBLAS_MIN_SIZE"): 1,
               ("dgemm", "fallback: nonfinite input"): 1, ("dgemm", "quick: quick return"): 1}


def _cells(st):
    return {(r, k): v for r, d in st["routines"].items() for k, v in d["routes"].items()}


def test_stats_count_every_route_and_the_summary_matches(tmp_path, inputs):
    np.savez(tmp_path / "in.npz", **inputs)
    env = _base_env(tmp_path, OZBLAS_MIN_SIZE="8")
    del env["OZBLAS_TRACE"]  # so that the small call is counted but not timed
    p = _run_script(tmp_path, ROUTES_BODY, env, via_run=True, run_args=["--summary"])
    _ok(p)
    st = json.loads(p.stdout)
    assert st["loaded"] and Path(st["library"]).name == "libozblas_preload.so"
    cells = _cells(st)
    assert {k: v["calls"] for k, v in cells.items()} == ROUTE_CALLS
    assert cells[("dgemm", "ozblas: ozaki2/cpu")]["flops"] == 2 * 2.0 * 40 * 56 * 48
    assert cells[("zgemm", "ozblas: ozaki2/cpu")]["flops"] == 8.0 * 40 * 56 * 48
    assert cells[("dsyrk", "ozblas: ozaki2/cpu")]["flops"] == 64.0 * 48 * 49
    assert cells[("dgemm", "native: below OZBLAS_MIN_SIZE")]["seconds"] == 0.0  # untimed
    assert cells[("dgemm", "quick: quick return")]["flops"] == 0.0
    assert all(cells[k]["seconds"] > 0 for k in cells if k[1].startswith("ozblas"))
    dg = st["routines"]["dgemm"]
    assert (dg["calls"], dg["ozblas"], dg["fallback"], dg["native"], dg["quick"]) == (5, 2, 1, 1, 1)
    assert st["total"]["calls"] == 7 and st["routines"]["zherk"]["calls"] == 0

    # the table printed at exit says the same
    err = p.stderr.splitlines()
    head = [l for l in err if l.startswith("ozblas summary (pid ")]
    assert len(head) == 1 and "7 BLAS calls" in head[0] and "4 emulated, 1 fell back" in head[0]
    rows = {}
    for l in err[err.index(head[0]) + 2:]:
        f = l.split(None, 5)
        rows[(f[0], f"{f[1]}: {f[5]}")] = (int(f[2]), float(f[3]))
    assert {k: v[0] for k, v in rows.items()} == ROUTE_CALLS
    assert all(abs(rows[k][1] - cells[k]["flops"] * 1e-9) < 1e-3 for k in rows)


def test_trace_lines_carry_every_field(tmp_path, inputs):
    np.savez(tmp_path / "in.npz", **inputs)
    p = _run_script(tmp_path, ROUTES_BODY, _base_env(tmp_path, OZBLAS_MIN_SIZE="8"), via_run=True)
    _ok(p)
    assert "ozblas summary" not in p.stderr  # OZBLAS_SUMMARY unset
    t = _trace(tmp_path)
    common = ["pid", "routine", "symbol", "m", "n", "k", "route", "method", "moduli", "slices",
              "bound", "executor", "seconds"]
    for x in t:
        assert list(x)[:len(common)] == common, x
        assert list(x)[len(common):] == (["fallback", "policy", "accuracy", "direct", "engine",
                                          "engine_products", "split_parts"]
                                         if x["route"] in ("ozblas", "fallback") else ["reason"])
        assert int(x["m"]) >= 0 and int(x["n"]) >= 0 and int(x["k"]) >= 0 and float(x["seconds"]) >= 0
    # the trace and the counters agree call for call
    st = json.loads(p.stdout)
    got = {}
    for x in t:
        detail = {"ozblas": f"{x['method']}/{x['executor']}", "quick": "quick return",
                  "fallback": x.get("fallback", "").strip('"'),
                  "native": x.get("reason", "").strip('"').split("=")[0]}[x["route"]]
        key = (x["routine"], f"{x['route']}: {detail}")
        got[key] = got.get(key, 0) + 1
    assert got == {k: v["calls"] for k, v in _cells(st).items()} == ROUTE_CALLS
    by = {x["route"]: x for x in t}
    assert (by["ozblas"]["moduli"], by["ozblas"]["slices"], by["ozblas"]["fallback"]) == ("16", "0", '"none"')
    assert float(by["ozblas"]["bound"]) == -1  # a fixed moduli count computes no bound
    assert by["fallback"]["method"] == "native" and by["fallback"]["fallback"] == '"nonfinite input"'
    assert by["native"]["reason"] == '"below OZBLAS_MIN_SIZE=8"' and by["native"]["executor"] == "host"
    assert (by["native"]["m"], by["native"]["n"], by["native"]["k"]) == ("4", "4", "4")
    assert by["quick"]["reason"] == '"quick return"' and by["quick"]["symbol"] == "scipy_dgemm_"


def test_stats_without_the_shim_are_zero():
    # a fresh interpreter: this one may have loaded the shim (in-process activation tests)
    code = "import json, ozblas; print(json.dumps(ozblas.stats()))"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_") and k != "LD_PRELOAD"}
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    _ok(p)
    st = json.loads(p.stdout)
    assert st["loaded"] is False and st["library"] is None
    from ozblas.shim_stats import LAPACK_ROUTINES

    assert st["total"]["calls"] == 0 and sorted(st["routines"]) == sorted(
        ["dgemm", "zgemm", "dsyrk", "zsyrk", "zherk", *LAPACK_ROUTINES])
    assert all(r["calls"] == 0 and r["routes"] == {} for r in st["routines"].values())


def test_stats_of_a_shim_loaded_in_process(tmp_path):
    """Loaded with dlopen (as in-process activation does), not preloaded: stats() finds it."""
    body = """
        import ctypes, json, sys, numpy as np, ozblas
        from ozblas.shim import library_path
        assert not ozblas.stats()["loaded"]
        lib = ctypes.CDLL(library_path())  # RTLD_LOCAL, like a Python extension
        a = np.asfortranarray(np.arange(12.0).reshape(3, 4)); c = np.zeros((3, 3), order="F")
        p = lambda x: x.ctypes.data_as(ctypes.c_void_p)
        lib.cblas_dgemm(102, 111, 112, 3, 3, 4, ctypes.c_double(1.0), p(a), 3, p(a), 3,
                        ctypes.c_double(0.0), p(c), 3)  # column-major A A^T
        assert np.array_equal(c, a @ a.T)
        print(json.dumps(ozblas.stats()))
    """
    (tmp_path / "child.py").write_text(textwrap.dedent(body))
    p = subprocess.run([sys.executable, str(tmp_path / "child.py")], env=_base_env(tmp_path),
                       capture_output=True, text=True, timeout=60)  # no LD_PRELOAD
    _ok(p)
    st = json.loads(p.stdout)
    assert st["loaded"] and st["routines"]["dgemm"]["routes"]["ozblas: ozaki2/cpu"]["calls"] == 1


def test_auto_precision_bound_in_trace_and_stats(tmp_path, inputs):
    """OZBLAS_MODULI=auto: each routed call states its count and bound in the trace, and
    stats() keeps the largest bound per route."""
    np.savez(tmp_path / "in.npz", **inputs)
    body = """
        import json, sys, numpy as np, ozblas
        d = dict(np.load(sys.argv[1] + "/in.npz"))
        d["a"] @ d["b"]; d["za"] @ d["zb"]
        print(json.dumps(ozblas.stats()))
    """
    p = _run_script(tmp_path, body, _base_env(tmp_path, OZBLAS_MODULI="auto"))
    _ok(p)
    t = [x for x in _trace(tmp_path) if x["route"] == "ozblas"]
    assert len(t) == 2
    bounds = [float(x["bound"]) for x in t]
    assert all(2 <= int(x["moduli"]) <= 20 for x in t) and all(0 < b < 1e-15 for b in bounds), t
    cells = _cells(json.loads(p.stdout))
    assert cells[("dgemm", "ozblas: ozaki2/cpu")]["max_bound"] == pytest.approx(bounds[0], rel=0.01)
