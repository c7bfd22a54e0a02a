"""Property-based tests (issue 13 item 5): the API and the preload shim against NumPy's and
SciPy's semantics over shapes (empty and broadcast included), strides, orders, dtypes, byte
orders, alpha/beta with NaN and Inf, and trans codes. Values are checked against the exact
oracle (err_ab at Ozaki II's level with 20 moduli), special values against the host BLAS.
Small sizes and modest example counts keep them fast."""

import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import ozblas
from ozblas.testing import err_ab, exact_matmul, exp, standard_normal

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TOL = 2.0**-50
dims = st.integers(0, 6)
seeds = st.integers(0, 2**32 - 1)


def _matrix(rng, shape, cplx, order, byteorder, stride):
    """A matrix of that shape, memory order and byte order, a strided view when stride > 1."""
    full = (shape[0], shape[1] * stride)
    x = standard_normal(rng, full) * exp(standard_normal(rng, full))
    if cplx:
        x = x + 1j * standard_normal(rng, full)
    x = np.asarray(x, order=order)[:, ::stride]
    return x.astype(x.dtype.newbyteorder(byteorder)) if byteorder != "=" else x


operand = st.tuples(st.booleans(), st.sampled_from("CF"), st.sampled_from(["=", ">", "<"]),
                    st.integers(1, 2))


def _stack(x, batch, how):
    """x as one operand of a stacked product: 2-D (broadcast), with a batch of 1, or batch copies."""
    return x if how == "2d" else x[None] if how == "1" else np.repeat(x[None], batch, axis=0)


@FAST
@given(m=dims, k=dims, n=dims, batch=st.sampled_from([None, 0, 1, 3]),
       how=st.sampled_from([("2d", "n"), ("1", "n"), ("n", "2d"), ("n", "1"), ("n", "n")]),
       oa=operand, ob=operand, method=st.sampled_from(["native", "ozaki2", "ozaki1", "auto"]), seed=seeds)
def test_matmul_as_numpy(m, k, n, batch, how, oa, ob, method, seed):
    rng = np.random.default_rng(seed)
    a = _matrix(rng, (m, k), oa[0], oa[1], oa[2], oa[3])
    b = _matrix(rng, (k, n), ob[0], ob[1], ob[2], ob[3])
    if batch is not None:
        a, b = _stack(a, batch, how[0]), _stack(b, batch, how[1])
    kw = dict(moduli=20) if method == "ozaki2" else dict(slices=20) if method == "ozaki1" else {}
    want = np.matmul(a, b)
    got = ozblas.matmul(a, b, method=method, **kw)
    assert got.shape == want.shape and got.dtype == want.dtype.newbyteorder("=")
    a3, b3 = (a if a.ndim == 3 else a[None]), (b if b.ndim == 3 else b[None])
    for i, ci in enumerate(got if got.ndim == 3 else got[None]):
        ai, bi = a3[i if len(a3) > 1 else 0], b3[i if len(b3) > 1 else 0]
        assert err_ab(ci, exact_matmul(ai, bi), ai, bi) <= (TOL if method != "native" else 2.0**-40)


special = st.sampled_from([0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, 1e300, 5e-324])


@FAST
@given(m=dims, k=dims, n=dims, ta=st.integers(0, 2), tb=st.integers(0, 2), cplx=st.booleans(),
       alpha=special, beta=special, with_c=st.booleans(), c_order=st.sampled_from("CF"),
       poison=st.sampled_from([None, "a", "b", "c"]), method=st.sampled_from(["native", "ozaki2", "ozaki1"]),
       seed=seeds)
@example(m=3, k=2, n=2, ta=0, tb=0, cplx=False, alpha=0.0, beta=0.0, with_c=False, c_order="C",
         poison="a", method="native", seed=0)  # NaN in A, alpha = 0 (SkylakeX's kernel reads A)
@example(m=3, k=2, n=2, ta=1, tb=0, cplx=True, alpha=-0.0, beta=-2.5, with_c=True, c_order="F",
         poison="b", method="ozaki2", seed=1)
def test_gemm_as_scipy(m, k, n, ta, tb, cplx, alpha, beta, with_c, c_order, poison, method, seed):
    """dgemm/zgemm against scipy.linalg.blas: alpha/beta with 0, -0, Inf, NaN; NaN/Inf in an
    operand; trans codes; c given or not, in either order. beta = 0 never reads C; alpha = 0
    (or k = 0) is the reference BLAS's C := beta C, computed here without a BLAS (the host's
    kernel may read A and B anyway: OpenBLAS's SkylakeX ones do); other special values give
    the host BLAS's results."""
    from scipy.linalg import blas

    rng = np.random.default_rng(seed)
    name = "zgemm" if cplx else "dgemm"
    sa = (k, m) if ta else (m, k)
    sb = (n, k) if tb else (k, n)
    a = _matrix(rng, sa, cplx, "C", "=", 1)
    b = _matrix(rng, sb, cplx, "C", "=", 1)
    c = np.asarray(_matrix(rng, (m, n), cplx, "C", "=", 1), order=c_order) if with_c else None
    for x, nm in ((a, "a"), (b, "b"), (c, "c")):
        if poison == nm and x is not None and x.size:
            x.flat[rng.integers(x.size)] = rng.choice([np.nan, np.inf, -np.inf])
    args = (alpha, a, b, beta) + ((c,) if with_c else ())
    kw = dict(trans_a=ta, trans_b=tb)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        got = getattr(ozblas, name)(*args, **kw, method=method)
        try:
            want = getattr(blas, name)(*args, **kw)
        except ValueError:  # f2py refuses some empty c; ozblas computes them
            assert m * n == 0 and with_c and got.shape == (m, n)
            return
        if alpha == 0 or k == 0:  # the reference BLAS: A and B not referenced
            c0 = c if with_c else np.zeros((m, n), want.dtype)
            # beta = 1 is a quick return: C untouched (NaN + 0j stays so; 1 * it would not)
            want = (np.zeros_like(want) if beta == 0 else np.array(c0, dtype=want.dtype) if beta == 1
                    else (beta * c0).astype(want.dtype))
    assert got.shape == want.shape and got.dtype == want.dtype
    got, want = (np.ascontiguousarray(x).view(np.float64) for x in (got, want))  # parts apart
    finite = np.isfinite(want)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
    fin = lambda x: np.abs(x[np.isfinite(x)]).sum()  # noqa: E731
    with np.errstate(all="ignore"):
        scale = np.nan_to_num(np.abs(alpha) * (fin(a) * fin(b) + 1) + np.abs(beta) * (fin(c) if with_c else 0),
                              nan=np.inf)
        assert np.all(np.abs(got[finite] - want[finite]) <= 1e-13 * scale + 1e-300)


SHIM_CHILD = r"""
import sys, numpy as np
from hypothesis import example, given, settings, strategies as st, HealthCheck
from ozblas.testing import exact_matmul, err_ab, standard_normal

# derandomized, and one real A A^T always drawn: the trace must hold a dsyrk line
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None,
          derandomize=True)
@example(m=4, k=3, n=2, cplx=False, order="C", t="T", seed=1)
@given(m=st.integers(0, 5), k=st.integers(0, 5), n=st.integers(0, 5), cplx=st.booleans(),
       order=st.sampled_from("CF"), t=st.sampled_from(["", "T", "H"]), seed=st.integers(0, 2**32 - 1))
def check(m, k, n, cplx, order, t, seed):
    rng = np.random.default_rng(seed)
    a = standard_normal(rng, (m, k)) + (1j * standard_normal(rng, (m, k)) if cplx else 0)
    a = np.asarray(a, order=order)
    b = standard_normal(rng, (k, n)) + (1j * standard_normal(rng, (k, n)) if cplx else 0)
    if t == "T":
        got, want = a @ a.T, exact_matmul(a, a.T)        # SYRK's route
        assert err_ab(got, want, a, a.T) <= 2.0**-50, (m, k)
    elif t == "H":
        got, want = a @ a.conj().T, exact_matmul(a, a.conj().T)  # HERK's route for complex
        assert err_ab(got, want, a, a.conj().T) <= 2.0**-50, (m, k)
    else:
        got = a @ b
        assert got.shape == (m, n) and err_ab(got, exact_matmul(a, b), a, b) <= 2.0**-50
    x = np.ones((m, k)); x[...] = np.nan if m * k else 0
    assert np.isnan(x @ np.ones((k, n))).all() == bool(m * k * n) or not (m * n)

check()
print("OK")
"""


def test_shim_as_numpy(tmp_path):
    """The preload shim (every call routed: method ozaki2, 20 moduli, min size 0) behind
    NumPy's @ for GEMM, SYRK and HERK routes; the oracle itself is not routed (row 13)."""
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(SHIM_CHILD))
    env = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_") and k != "LD_PRELOAD"}
    env.update(OMP_NUM_THREADS="1", OZBLAS_MODULI="20", OZBLAS_TRACE=str(tmp_path / "t.log"))
    p = subprocess.run([sys.executable, "-m", "ozblas", "run", "--method", "ozaki2", "--min-size", "0",
                        "--", sys.executable, str(script)], env=env, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0 and p.stdout.strip() == "OK", p.stdout + p.stderr
    routes = (tmp_path / "t.log").read_text()
    assert "route=ozblas" in routes and "routine=dsyrk" in routes
