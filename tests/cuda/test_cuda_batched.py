"""Batched products on the CUDA executor (cuda/cuda_batch.cu, core/driver_batch.c) against
the CPU executor's single calls, bit for bit: each matrix scaled on its own, the integer
products of one modulus of every matrix one batched INT8 GEMM. Marked ``gpu`` (run in the
CUDA emulation harness where there is none)."""

import ctypes

import numpy as np
import pytest

import ozblas
from ozblas._native import lib
from ozblas.testing import make_matrix

from _compare import assert_same_bits, cuda_state, gemm_batched

_OK, _WHY = cuda_state()
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not _OK, reason=f"CUDA executor unavailable: {_WHY}")]


def _hook(name, argtype, restype=None):
    f = getattr(ctypes.CDLL(ozblas._native.library_path()), name)
    f.argtypes = [argtype]
    f.restype = restype
    return f


def _int8_products():
    """cuBLAS INT8 products (batched ones count once) issued since the last ask."""
    return _hook("oz_cuda_test_i8_columns", ctypes.c_int64, ctypes.c_int64)(0)


class _cap:
    """Caps the device memory calls plan with (the tiling tests' hook)."""

    def __init__(self, nbytes):
        self.nbytes = nbytes
        self.f = _hook("oz_cuda_test_cap_workspace", ctypes.c_size_t)

    def __enter__(self):
        self.f(self.nbytes)

    def __exit__(self, *exc):
        self.f(0)


def _stack(nb, rows, cols, phis, cplx, seed):
    """nb column-major rows x cols matrices one after another (phi per matrix), flat."""
    dt = np.complex128 if cplx else np.float64
    return np.concatenate([make_matrix(rows, cols, phis[i % len(phis)], seed=seed + i, dtype=dt)
                           .ravel(order="F") for i in range(max(nb, 1))])


def _run(cplx, ta, tb, m, n, k, nb, alpha=1.0, beta=0.0, phis=(1.0,), shared=(), c0=None,
         **opts):
    """The batch on the CUDA executor and the single calls on the CPU executor (and on
    the CUDA executor): (status and C of each, the batch's report, the single reports, INT8
    products the batch issued)."""
    ra, ca = (m, k) if ta == "N" else (k, m)
    rb, cb = (k, n) if tb == "N" else (n, k)
    a = _stack(1 if "a" in shared else nb, ra, ca, phis, cplx, 1)
    b = _stack(1 if "b" in shared else nb, rb, cb, phis[::-1], cplx, 100)
    c = _stack(nb, m, n, (1.0,), cplx, 200) if c0 is None else c0
    sa, sb = (0 if "a" in shared else ra * ca), (0 if "b" in shared else rb * cb)
    args = (cplx, ta, tb, m, n, k, alpha, a, max(ra, 1), sa, b, max(rb, 1), sb, beta)
    cg, cc, cs = c.copy(), c.copy(), c.copy()
    _int8_products()
    sg, rg = gemm_batched(*args, cg, max(m, 1), m * n, nb, executor="cuda", **opts)
    products = _int8_products()
    sc, rcs = gemm_batched(*args, cc, max(m, 1), m * n, nb, single=True, executor="cpu", **opts)
    ss, rss = gemm_batched(*args, cs, max(m, 1), m * n, nb, single=True, executor="cuda", **opts)
    assert sg == sc == ss == 0
    return cg, cc, cs, rg, rcs, rss, products


def _taken(cplx, n):
    """The moduli a call with count n takes and its products per modulus: ZGEMM on INT8 the
    complex set's, two each (ozblas_ozaki2_complex_count), where it holds n's bits."""
    cnt = lib.ozblas_ozaki2_complex_count(lib.OZBLAS_ENGINE_INT8, n) if cplx else 0
    return (cnt, 2) if cnt else (n, 3 if cplx else 1)


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("scaling", ["fast", "accurate"])
@pytest.mark.parametrize("ta,tb", [("N", "N"), ("T", "C")])
def test_batch_equals_cpu_single_calls(cplx, scaling, ta, tb):
    nb, N = 4, 10
    cg, cc, cs, rg, rcs, _, products = _run(cplx, ta, tb, 23, 17, 31, nb, 0.5 - 1j if cplx else 0.5,
                                           1.5, method="ozaki2", moduli=N, scaling=scaling)
    assert_same_bits(cg, cc, "batch on cuda vs single calls on cpu")
    taken, per = _taken(cplx, N)
    assert rg["executor"] == "cuda" and rg["fallback"] is None and rg["moduli"] == taken
    assert rg["int_gemms"] == sum(r["int_gemms"] for r in rcs)
    # one batched product per residue product, plus the bound product
    assert products == taken * per + (scaling == "accurate")


@pytest.mark.parametrize("cplx", [False, True])
def test_automatic_precision_groups_by_count(cplx):
    """Automatic precision per matrix (different phi, so different counts): the batch runs
    one group per count, each matrix with its probe's count and bits."""
    cg, cc, _, rg, rcs, _, _ = _run(cplx, "N", "T", 20, 12, 40, 5, phis=(0.0, 3.0, 1.0),
                                    method="ozaki2")
    assert len({r["moduli"] for r in rcs}) > 1
    assert_same_bits(cg, cc, "automatic precision")
    assert rg["moduli"] == max(r["moduli"] for r in rcs)
    assert rg["bound"] == max(r["bound"] for r in rcs)


@pytest.mark.parametrize("shared", [("a",), ("b",), ("a", "b")])
def test_shared_operands(shared):
    cg, cc, _, _, _, _, _ = _run(False, "T", "N", 9, 10, 33, 3, beta=-1.0, shared=shared,
                                 method="ozaki2", moduli=12)
    assert_same_bits(cg, cc, str(shared))


def test_nonfinite_matrix_falls_back_alone():
    """An Inf in one matrix: that product runs alone and falls back to cuBLAS (as its single
    call does), the others keep the batch's bits."""
    m = n = k = 8
    cplx, nb = False, 3
    a = _stack(nb, m, k, (1.0,), cplx, 1)
    a[m * k + 3] = np.inf
    b = _stack(nb, k, n, (1.0,), cplx, 50)
    c = _stack(nb, m, n, (1.0,), cplx, 70)
    out = {}
    for tag, ex, single in (("batch", "cuda", False), ("cuda", "cuda", True), ("cpu", "cpu", True)):
        x = c.copy()
        st, rep = gemm_batched(cplx, "N", "N", m, n, k, 1.0, a, m, m * k, b, k, k * n, 0.5, x, m,
                               m * n, nb, single=single, executor=ex, method="ozaki2", moduli=14)
        assert st == 0
        out[tag] = (x, rep)
    x, rep = out["batch"]
    assert rep["fallback"] == "nonfinite input"
    assert_same_bits(x[m * n:2 * m * n], out["cuda"][0][m * n:2 * m * n], "the fallback")
    for i in (0, 2):
        assert_same_bits(x[i * m * n:(i + 1) * m * n], out["cpu"][0][i * m * n:(i + 1) * m * n], i)


def test_beta_zero_alpha_zero_k_zero_and_empty():
    m, n, k, nb = 6, 5, 4, 3
    c = np.full(nb * m * n, np.nan)
    cg, cc, _, _, _, _, _ = _run(False, "N", "N", m, n, k, nb, c0=c, method="ozaki2", moduli=9)
    assert not np.isnan(cg).any()
    assert_same_bits(cg, cc, "beta = 0")
    for kk, alpha in ((0, 1.0), (k, 0.0)):  # C := beta C (by cuBLAS here), alpha = 0
        cg, _, cs, _, _, _, _ = _run(False, "N", "N", m, n, kk, nb, alpha=alpha, beta=0.5,
                                     method="ozaki2", moduli=9)
        assert_same_bits(cg, cs, f"k {kk} alpha {alpha}")
    _, _, _, rg, _, _, products = _run(False, "N", "N", m, n, k, 0, method="ozaki2", moduli=9)
    assert products == 0 and rg["method"] == "native"


def test_overlapping_c_does_not_crash():
    """C strides of 0 (every product into one C): undefined, as in cuBLAS; no failure."""
    a = _stack(3, 5, 5, (1.0,), False, 1)
    c = np.zeros(25)
    st, _ = gemm_batched(False, "N", "N", 5, 5, 5, 1.0, a, 5, 25, a, 5, 25, 1.0, c, 5, 0, 3,
                         executor="cuda", method="ozaki2", moduli=8)
    assert st == 0 and np.isfinite(c).all()


def test_device_memory_splits_the_batch():
    """A device budget for a few matrices at a time: the batch runs in parts (more batched
    products than one part's, fewer than one per matrix), the bits unchanged; with room for
    one, each product runs alone."""
    m, n, k, nb, N = 16, 12, 24, 5, 8
    _, cc, _, _, _, _, whole = _run(False, "N", "N", m, n, k, nb, method="ozaki2", moduli=N,
                                    scaling="fast")
    assert whole == N
    # about a matrix's workspace: residues, INT32 products and residues of C, operands
    per = N * k * (m + n) + 5 * m * n + 8 * (m * k + k * n + m * n) + 40 * (m + n)
    for cap, parts in ((3 * per, True), (int(1.5 * per), False)):
        with _cap(cap):
            cg, _, _, rg, _, _, products = _run(False, "N", "N", m, n, k, nb, method="ozaki2",
                                                moduli=N, scaling="fast")
        assert_same_bits(cg, cc, f"cap {cap}")
        assert rg["fallback"] is None and rg["executor"] == "cuda"
        if parts:
            assert N < products < nb * N, products
        else:
            assert products == nb * N, products


class _device:
    """Device copies of host buffers through the library's test-only allocation hooks."""

    def __enter__(self):
        lib = ctypes.CDLL(ozblas._native.library_path())
        self.malloc, self.free, self.copy = (lib.oz_cuda_test_malloc, lib.oz_cuda_test_free,
                                             lib.oz_cuda_test_memcpy)
        self.malloc.restype = ctypes.c_void_p
        self.malloc.argtypes = [ctypes.c_size_t]
        self.free.argtypes = [ctypes.c_void_p]
        self.copy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
        self.held = []
        return self

    def put(self, h):
        p = self.malloc(h.nbytes)
        assert p
        self.held.append(p)
        assert self.copy(p, h.ctypes.data, h.nbytes) == 0
        return p

    def get(self, p, h):
        assert self.copy(h.ctypes.data, p, h.nbytes) == 0

    def __exit__(self, *exc):
        for p in self.held:
            self.free(p)


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("moduli", [None, 11])
def test_device_pointers_in_place(cplx, moduli):
    """Operands in device memory (the cuBLAS callers' case: used in place), A shared."""
    m, n, k, nb = 13, 10, 21, 4
    a = _stack(1, k, m, (1.0,), cplx, 1)
    b = _stack(nb, k, n, (0.0, 2.0), cplx, 30)
    c = _stack(nb, m, n, (1.0,), cplx, 60)
    kw = dict(method="ozaki2", moduli=moduli)
    args = (cplx, "C" if cplx else "T", "N", m, n, k, 0.75, a, k, 0, b, k, k * n, -0.25)
    want = c.copy()
    assert gemm_batched(*args, want, m, m * n, nb, single=True, executor="cpu", **kw)[0] == 0
    got = c.copy()
    with _device() as d:
        addresses = (d.put(a), d.put(b), d.put(c))
        _int8_products()
        st, rep = gemm_batched(*args, got, m, m * n, nb, addresses=addresses, executor="cuda", **kw)
        products = _int8_products()
        d.get(addresses[2], got)
    assert st == 0 and rep["executor"] == "cuda" and rep["fallback"] is None
    assert_same_bits(got, want, "device pointers")
    if moduli:
        taken, per = _taken(cplx, moduli)
        assert products == taken * per + 1


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_matmul_stacks_on_cuda(dtype):
    a = np.stack([make_matrix(14, 9, 1.0, seed=i, dtype=dtype) for i in range(3)])
    b = np.stack([make_matrix(9, 11, 2.0, seed=10 + i, dtype=dtype) for i in range(3)])
    for kw in (dict(method="ozaki2"), dict(method="ozaki2", moduli=13, scaling="fast")):
        got, info = ozblas.matmul(a, b, executor="cuda", return_info=True, **kw)
        want = ozblas.matmul(a, b, executor="cpu", **kw)
        assert info["executor"] == "cuda" and info["batch"] == 3
        assert_same_bits(got, want, str(kw))


# ---- device (CuPy) stacks: on a GPU only ---------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_cupy_stacks_equal_cpu(dtype):
    cp = pytest.importorskip("cupy")
    a = np.stack([make_matrix(70, 40, 1.0, seed=i, dtype=dtype) for i in range(5)])
    b = np.stack([make_matrix(40, 50, 1.0, seed=20 + i, dtype=dtype) for i in range(5)])
    got, info = ozblas.matmul(cp.asarray(a), cp.asarray(b), method="ozaki2", moduli=14,
                              return_info=True)
    assert isinstance(got, cp.ndarray) and info["executor"] == "cuda"
    assert_same_bits(cp.asnumpy(got), ozblas.matmul(a, b, method="ozaki2", moduli=14,
                                                    executor="cpu"), dtype.__name__)
