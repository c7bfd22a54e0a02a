"""Blocked QR (geqrf, orgqr/ungqr, ormqr/unmqr) and LQ (gelqf, orglq/unglq, ormlq/unmlq: the
same drivers on the view A^H) on the CUDA executor: host matrices uploaded
once (device-resident: the panels, larft and the trmm with T on host copies of their blocks,
every product on the device pointers) and device matrices from the caller give the CPU
executor's bits. Marked ``gpu``: runs where a CUDA executor is usable, and here on the CPU
emulation of the CUDA code (tests/cuda/emu/run_emu_tests.py).
"""

import numpy as np
import pytest
from test_lapack_cuda import _bits, _cupy_check, _host_and_device_runs

from ozblas import lapack as L
from ozblas._native import ffi, lib
from ozblas.api import _context, _options
from ozblas.testing import standard_normal

pytestmark = pytest.mark.gpu
NB = 4
KW = dict(method="ozaki2", moduli=16, nb=NB)
SHAPES = [(1, 1), (NB - 1, NB - 1), (NB + 1, NB + 1), (3 * NB + 5, 3 * NB + 5),
          (3 * NB + 5, 2 * NB + 3), (2 * NB + 3, 3 * NB + 5), (NB + 2, 6 * NB)]
# each factorization: its routines, whether its reflectors are rows, the C API's names
KINDS = {"qr": (L.geqrf, L.orgqr, L.ormqr, 0, ("geqrf", "orgqr", "ungqr", "ormqr", "unmqr")),
         "lq": (L.gelqf, L.orglq, L.ormlq, 1, ("gelqf", "orglq", "unglq", "ormlq", "unmlq"))}


def _mat(rng, m, n, dt):
    a = standard_normal(rng, (m, n))
    return a + 1j * standard_normal(rng, (m, n)) if dt == np.complex128 else a


def _calls(kind, m, n, dt, kw):
    """The factorization, the generation of Q (the first k reflectors and, when Q's order q
    exceeds k, the complete Q), the application from both sides with both op(Q): the outputs
    and each call's report."""
    factor, generate, apply, row, _ = KINDS[kind]
    rng = np.random.default_rng(m * 100 + n)
    a = _mat(rng, m, n, dt)
    out, reps = [], []

    def run(f, *args):
        r = f(*args, **kw)
        reps.append(L.last_report())
        out.extend(v for v in r if not isinstance(v, int))
        return r

    f, tau, _, _ = run(factor, a)
    k, q = min(m, n), n if row else m
    first = f[:k] if row else f[:, :k]
    run(generate, first, tau)
    if q > k:
        full = np.zeros((q, q), dtype=dt, order="F")
        if row:
            full[:m] = f
        else:
            full[:, :n] = f
        run(generate, full, tau)
    ct = "C" if dt == np.complex128 else "T"
    for side, c in (("L", _mat(rng, q, 3, dt)), ("R", _mat(rng, 5, q, dt))):
        for trans in ("N", ct):
            run(apply, side, trans, first, tau, c)
    return out, reps


@pytest.mark.parametrize("kind", ["qr", "lq"])
@pytest.mark.parametrize("dt", [np.float64, np.complex128])
@pytest.mark.parametrize("m,n", SHAPES)
def test_resident_equal_cpu(kind, dt, m, n):
    want, _ = _calls(kind, m, n, dt, dict(KW, executor="cpu"))
    got, reps = _calls(kind, m, n, dt, dict(KW, executor="cuda"))
    assert len(got) == len(want)
    for u, v in zip(want, got):
        assert np.array_equal(_bits(u), _bits(v))
    assert all(r["executor"] == "cuda" for r in reps)
    if min(m, n) > NB:  # more than one block: uploaded once, products emulated there
        assert reps[0]["device"] == "uploaded" and reps[0]["emulated"] > 0
        assert all(r["device"] == "uploaded" for r in reps[1:] if r["emulated"])


@pytest.mark.parametrize("kind", ["qr", "lq"])
@pytest.mark.parametrize("cx", [0, 1])
def test_device_pointers_through_the_c_api(rng, kind, cx):
    """The factorization, the application and the generation of all of Q on device pointers
    with leading dimensions beyond the rows (tau on the host): the CPU executor's bits,
    report device 2."""
    _, _, _, row, (fname, gd, gz, ad, az) = KINDS[kind]
    dt = np.complex128 if cx else np.float64
    z = "z" if cx else "d"
    k, q, ld = 2 * NB + 1, 3 * NB + 3, 3 * NB + 7
    m, n = (k, q) if row else (q, k)
    a = np.asfortranarray(_mat(rng, ld, q, dt))  # q columns: all of Q is formed in place
    c = np.asfortranarray(_mat(rng, ld, 3, dt))

    def calls(ptrs, ex):
        A, C = ptrs
        o = _options("ozaki2", 16, None, ex, None, None, None)
        tau = np.zeros(k, dtype=dt)
        t = ffi.cast("double *", tau.ctypes.data)
        info = ffi.new("int64_t *")
        rep = ffi.new("ozblas_lapack_report *")
        devices = []
        for st in (getattr(lib, f"ozblas_{z}{fname}")(_context(), m, n, A, ld, t, info, NB, o, rep),
                   getattr(lib, f"ozblas_{z}{az if cx else ad}")(
                       _context(), b"L", b"C" if cx else b"T", q, 3, k, A, ld, t, C, ld, info, NB, o,
                       rep),
                   getattr(lib, f"ozblas_{z}{gz if cx else gd}")(
                       _context(), q, q, k, A, ld, t, info, NB, o, rep)):
            assert st == 0 and info[0] == 0
            devices.append(rep.device)
        return tau, devices

    _host_and_device_runs(calls, [a, c])


@pytest.mark.parametrize("kind", ["qr", "lq"])
def test_cupy_arrays(kind):
    """CuPy arrays in, CuPy arrays out (tau and work too), the CPU executor's bits (CuPy
    cannot run on the emulation: skipped there)."""
    cp = pytest.importorskip("cupy")
    factor, generate, apply, row, _ = KINDS[kind]
    rng = np.random.default_rng(7)
    a = standard_normal(rng, (3 * NB + 5, 2 * NB + 3))
    a = a.T.copy() if row else a
    c = standard_normal(rng, (3 * NB + 5, 2))
    dev = factor(cp.asarray(a), **KW)
    assert dev[3] == 0 and L.last_report()["device"] == "device"
    want = factor(a, executor="cpu", **KW)
    _cupy_check(cp, dev[:3], want[:3])
    _cupy_check(cp, generate(*dev[:2], **KW)[:1], generate(*want[:2], executor="cpu", **KW)[:1])
    # tau as NumPy: either is taken
    _cupy_check(cp, apply("L", "T", dev[0], want[1], cp.asarray(c), **KW)[:1],
                apply("L", "T", *want[:2], c, executor="cpu", **KW)[:1])
