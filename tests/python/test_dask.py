"""ozblas.dask: the worker plugin and the gathered stats, on a LocalCluster of worker
processes. Without a GPU method auto stays native, so the tests ask for ozaki2."""

import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("distributed", reason="dask.distributed is not installed (pip install 'ozblas[dask]')")
da = pytest.importorskip("dask.array", reason="dask.array is not installed")

import ozblas  # noqa: E402
import ozblas.dask  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402
from ozblas.testing import err_ab, exact_matmul, make_matrix  # noqa: E402

from _compare import native_error  # noqa: E402


@pytest.fixture(scope="module")
def client():
    # distributed sets OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, ... = 1 in this process's
    # environment for its nannies and leaves them: later tests' subprocesses would inherit
    # them (and compute native products with other bits than this process)
    saved = dict(os.environ)
    try:
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as c:
            yield c
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _routed(client) -> dict:
    return {w: s["total"]["ozblas"] for w, s in ozblas.dask.stats(client).items()}


def test_importing_ozblas_does_not_import_dask():
    code = "import sys, ozblas; print(any(m.split('.')[0] in ('dask', 'distributed') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         check=True).stdout
    assert out.strip() == "False"


def test_settings_are_checked_in_the_client():
    with pytest.raises(TypeError):
        ozblas.dask.Activate(modulii=16)
    with pytest.raises(ozblas.ConfigError, match="method"):
        ozblas.dask.Activate(method="ozaki3")
    assert ozblas.dask.Activate(method="ozaki2", moduli=None).settings == {"method": "ozaki2"}
    # issue 24: settings that cannot go together fail here too, not in the workers
    with pytest.raises(ozblas.ConfigError, match=r"^accuracy='correct' cannot be combined with "
                                                 r"moduli='16'"):
        ozblas.dask.Activate(accuracy="correct", moduli=16)
    with pytest.raises(ozblas.ConfigError, match="accuracy='correct' cannot be combined with method='native'"):
        ozblas.dask.Activate(accuracy="correct", method="native")


def test_block_products_run_in_the_workers_no_less_accurate(client):
    a, b = make_matrix(256, 512, 1.0, seed=1), make_matrix(512, 192, 1.0, seed=2)
    x, y = da.from_array(a, chunks=128), da.from_array(b, chunks=128)
    native = (x @ y).compute()  # the same graph, plugin not registered yet
    before = _routed(client)
    assert set(before) == set(client.scheduler_info()["workers"]) and len(before) == 2
    client.register_plugin(ozblas.dask.Activate(method="ozaki2", min_size=0))
    try:
        emulated = (x @ y).compute()
        after = _routed(client)
        # 2 x 2 blocks of C, each a sum over 4 k-blocks: 16 block DGEMMs, all emulated
        assert sum(after.values()) - sum(before.values()) == 16, after
        assert all(s["loaded"] for s in ozblas.dask.stats(client).values())
        exact = exact_matmul(a, b)
        e_native, e_ozblas = err_ab(native, exact, a, b), err_ab(emulated, exact, a, b)
        # DGEMM-level: against the textbook DGEMM's error (the host kernel's depends on
        # which one OpenBLAS loaded), with the automatic count's 2u floor
        assert e_ozblas <= max(native_error(a, b, exact), 2 * 2.0**-53), (e_ozblas, e_native)
    finally:
        client.unregister_worker_plugin("ozblas")
    # teardown deactivated every worker: the calls no longer reach the shim
    (x @ y).compute()
    assert _routed(client) == after
    assert not any(client.run(lambda: ozblas.activation.status()["active"]).values())


def test_matches_the_local_product_bit_for_bit(client):
    # one block: the worker's routed product is this process's routed product, to the bit
    a, b = make_matrix(96, 80, 0.5, seed=3), make_matrix(80, 64, 0.5, seed=4)
    client.register_plugin(ozblas.dask.Activate(method="ozaki2", moduli=14, min_size=0))
    try:
        got = (da.from_array(a, chunks=-1) @ da.from_array(b, chunks=-1)).compute()
    finally:
        client.unregister_worker_plugin("ozblas")
    with ozblas.activated(method="ozaki2", moduli=14, min_size=0):
        want = a @ b  # the same NumPy call through the same shim, in this process
    assert ozblas.stats()["total"]["ozblas"] >= 1
    np.testing.assert_array_equal(got, want)
    assert not np.array_equal(got, a @ b)  # and it is not the native product


def test_example_runs():
    r = subprocess.run([sys.executable, "-m", "ozblas.examples.dask_matmul", "--n", "256",
                        "--chunk", "128"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    lines = r.stdout.splitlines()
    assert sum(int(l.split(", ")[1].split()[0]) for l in lines if "GEMM calls" in l) == 8, r.stdout
    assert any(l.startswith("ozblas dask: err_ab") for l in lines)


def test_workers_that_join_later_are_activated(client):
    # last in this file: the module's cluster keeps its third worker until it closes
    client.register_plugin(ozblas.dask.Activate(method="ozaki2", min_size=0))
    try:
        client.cluster.scale(3)
        client.wait_for_workers(3, timeout=120)
        active = client.run(lambda: ozblas.activation.status())
        assert len(active) == 3
        assert all(s["active"] and s["settings"] == {"method": "ozaki2", "min_size": 0}
                   for s in active.values()), active
    finally:
        client.unregister_worker_plugin("ozblas")
