"""Through the preload shim, a call whose workspace cannot be allocated at any point
(tests/_faults.py fails each allocation of the call in turn): the real routine's result for
the whole call, bit for bit with its info, and one warning line for the process (docs/lapack.md,
"When memory runs out"). GEMM, a factorization and the two-stage drivers. The real LAPACK
routine's own BLAS calls go through the shim as any others do."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from ozblas import shim

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="LD_PRELOAD is Linux")

_CHILD = r"""
import sys
import numpy as np, scipy.linalg.blas as sb, scipy.linalg.lapack as sl
sys.path.insert(0, TESTS)
rng = np.random.default_rng(9)
n = 20
a = rng.uniform(-1, 1, (n, n)); h = a + a.T; s = a @ a.T + n * np.eye(n)
b = rng.uniform(-1, 1, (n, 3)); c = rng.uniform(-1, 1, (n, n))
lw = [int(x) for x in sl.dgelsd_lwork(n, n, 3, -1.0)[:2]]
calls = {
    "dgemm": lambda: (sb.dgemm(0.5, a, c, 0.25, c),),
    "dgetrf": lambda: sl.dgetrf(a),
    "dpotrf": lambda: sl.dpotrf(s),
    "dsyevd": lambda: sl.dsyevd(h),
    "dgesdd": lambda: sl.dgesdd(a[:, :15]),
    "dgelsd": lambda: sl.dgelsd(a, b, *lw),
}
out = sys.argv[1]
if sys.argv[2] == "reference":
    np.savez(out, **{f"{k}_{i}": np.asarray(v) for k, f in calls.items() for i, v in enumerate(f())})
    sys.exit(0)
from _faults import sweep
want = dict(np.load(sys.argv[3]))  # dgemm: native DGEMM
want.update({k: v for k, v in np.load(out).items() if not k.startswith("dgemm")})
same = lambda got, ref: all(np.array_equal(np.asarray(v), ref[i]) for i, v in enumerate(got))
for name, f in calls.items():
    ref = [want[f"{name}_{i}"] for i in range(len(f()))]
    routed = [np.asarray(v) for v in f()]
    if same(routed, ref):
        print(name, "not routed")
    results = sweep(f)
    if name in ("dsyevd", "dgesdd", "dgelsd"):
        # the real routine's own BLAS calls are routed with OZBLAS_LAPACK_NB=8 here, which no
        # one-block run reproduces: the reference is the call whose first allocation (the
        # shim's, before anything is changed) failed, i.e. the real routine with the caller's
        # arguments, and it must differ from the routed result
        ref = [np.asarray(v) for v in results[0][1]]
        if same(f(), ref):
            print(name, "not routed")
    # or the routed result unchanged, where the run could do without that workspace (the
    # bulge chase's per-thread buffers: one thread, the same bits)
    bad = [n for n, got in results if not same(got, ref) and not same(got, routed)]
    print(name, "bad", bad[:5])
"""


def test_every_allocation_failing_gives_the_real_routine(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(_CHILD).replace(
        "TESTS", repr(str(Path(__file__).resolve().parent.parent))))
    env = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_") and k != "LD_PRELOAD"}
    env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    native, real = tmp_path / "native.npz", tmp_path / "real.npz"
    subprocess.run([sys.executable, str(script), str(native), "reference"], env=env, check=True,
                   timeout=120)
    # the real LAPACK routine as the shim runs it: its own BLAS calls are the shim's too
    # (routed and emulated), so its reference is a preloaded run in which every LAPACK call
    # is one block (n <= OZBLAS_LAPACK_NB: the real routine)
    env.update(OZBLAS_METHOD="ozaki2", OZBLAS_MIN_SIZE="0", LD_PRELOAD=shim.library_path())
    subprocess.run([sys.executable, str(script), str(real), "reference"], check=True,
                   env=dict(env, OZBLAS_LAPACK_NB="4096"), timeout=120)
    env.update(OZBLAS_LAPACK_NB="8")
    p = subprocess.run([sys.executable, str(script), str(real), "sweep", str(native)], env=env,
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    lines = p.stdout.split("\n")
    assert not [l for l in lines if "not routed" in l], p.stdout
    assert sorted(l for l in lines if l) == sorted(f"{k} bad []" for k in
                                                   ("dgemm", "dgetrf", "dpotrf", "dsyevd",
                                                    "dgesdd", "dgelsd")), p.stdout
    assert p.stderr.count("a workspace could not be allocated") == 1, p.stderr[-2000:]
