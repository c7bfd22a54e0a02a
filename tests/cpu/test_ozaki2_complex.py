"""Ozaki II's complex products in two integer products per modulus (numerics/ozaki2.h
OZ2_MAX_MODULI_CX): the complex set's moduli, the count a call takes, the products it
issues, and its accuracy against the exact oracle (mpmath), automatic precision included."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ozblas
from ozblas import reference
from ozblas._native import ffi, lib, load
from ozblas.api import _context, _options
from ozblas.testing import err_ab, exact_matmul, make_matrix

from _compare import assert_same_bits, native_error

U = 2.0**-53
INT8, FP4 = 0, 1


def _primes(m):
    out, p = [], 2
    while p * p <= m:
        while m % p == 0:
            out.append(p)
            m //= p
        p += 1
    return out + ([m] if m > 1 else [])


def _complex_set():
    load()
    ms = []
    while lib.ozblas_ozaki2_complex_modulus(len(ms)):
        ms.append(lib.ozblas_ozaki2_complex_modulus(len(ms)))
    return ms


def test_the_complex_set_has_a_square_root_of_minus_one_and_fits_int8():
    ms = _complex_set()
    assert len(ms) == 22
    for i, m in enumerate(ms):
        assert m % 2 == 1 and m <= 255  # 2 invertible; symmetric residues in [-127, 127]
        assert all(p % 4 == 1 for p in _primes(m))  # -1 is a square mod m
        assert any((x * x + 1) % m == 0 for x in range(m))
        assert all(math.gcd(m, q) == 1 for q in ms[:i])
    assert ms == sorted(ms, reverse=True)  # the most bits per product first
    for c in range(2, 23):
        assert lib.ozblas_ozaki2_complex_budget_bits(c) == math.prod(ms[:c]).bit_length() - 2
    assert lib.ozblas_ozaki2_complex_budget_bits(23) == -1


def test_a_complex_call_takes_the_fewest_moduli_reaching_the_real_budget():
    load()
    for n in range(2, lib.ozblas_ozaki2_engine_max_moduli(INT8) + 1):
        want = lib.ozblas_ozaki2_engine_budget_bits(INT8, n)
        c = lib.ozblas_ozaki2_complex_count(INT8, n)
        reach = [x for x in range(2, 23) if lib.ozblas_ozaki2_complex_budget_bits(x) >= want]
        assert c == (reach[0] if reach else 0), n
        assert (c != 0) == (n <= 19), n  # 22 moduli: 151 bits, the real set's 19 have 146
    assert all(lib.ozblas_ozaki2_complex_count(FP4, n) == 0 for n in range(2, 29))


@pytest.mark.parametrize("scaling", ["fast", "accurate"])
@pytest.mark.parametrize("moduli", [8, 14, 19, 20])
def test_int_gemms_two_per_modulus_and_karatsuba_beyond(moduli, scaling):
    a = make_matrix(9, 70, 1.0, seed=1, dtype=np.complex128)
    b = make_matrix(70, 5, 1.0, seed=2, dtype=np.complex128)
    c, info = ozblas.matmul(a, b, method="ozaki2", moduli=moduli, scaling=scaling,
                            executor="cpu", return_info=True)
    assert info["fallback"] is None
    cnt = lib.ozblas_ozaki2_complex_count(INT8, moduli)
    per = 2 if cnt else 3
    assert info["complex_products"] == per
    assert info["moduli"] == (cnt or moduli)
    assert info["int_gemms"] == per * info["moduli"] + (scaling == "accurate")
    assert info["engine_products"] == per * info["moduli"]
    _, real = ozblas.matmul(a.real, b.real, method="ozaki2", moduli=moduli, scaling=scaling,
                            executor="cpu", return_info=True)
    assert real["complex_products"] is None
    exact = exact_matmul(a, b)
    if moduli >= 19:  # 146+ bits: native level at phi = 1
        assert err_ab(c, exact, a, b) <= max(native_error(a, b, exact), U)


def _parts(m, n, phi, seed, re_scale, im_scale):
    """A complex matrix whose real and imaginary parts differ in magnitude (exact powers of
    two, so the oracle sees the same values)."""
    re = make_matrix(m, n, phi, seed=seed)
    im = make_matrix(m, n, phi, seed=seed + 7)
    return np.ldexp(re, re_scale) + 1j * np.ldexp(im, im_scale)


@pytest.mark.parametrize("phi", [0.5, 1.0, 2.0, 4.0, 8.0])
@pytest.mark.parametrize("scales", [(0, 0), (0, -30), (20, -20), (-40, 5)])
@pytest.mark.parametrize("scaling", ["fast", "accurate"])
def test_auto_precision_keeps_the_dgemm_level_bound(phi, scales, scaling):
    m, k, n = 24, 300, 20
    a = _parts(m, k, phi, 11, *scales)
    b = _parts(k, n, phi, 23, scales[1], scales[0])
    exact = exact_matmul(a, b)
    c, info = ozblas.matmul(a, b, method="ozaki2", moduli="auto", scaling=scaling,
                            executor="cpu", return_info=True)
    assert info["bound"] is not None
    err = err_ab(c, exact, a, b)
    if info["fallback"] is None:
        assert info["complex_products"] in (2, 3)
        assert err <= info["bound"] + U, (err, info)
        assert err <= max(native_error(a, b, exact), U), (err, info)
        assert info["int_gemms"] >= info["complex_products"] * info["moduli"]
    else:  # the call split by exponent band, or native with the reason
        assert info["fallback"] in ("no count meets DGEMM-level accuracy",), info


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 9), st.integers(1, 40), st.integers(1, 7), st.sampled_from([4, 9, 15, 19]),
       st.sampled_from(["fast", "accurate"]), st.integers(-60, 60), st.integers(0, 2**31))
def test_the_executor_equals_the_reference_bit_for_bit(m, k, n, moduli, scaling, shift, seed):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (m, k)) + 1j * np.ldexp(rng.uniform(-1, 1, (m, k)), shift)
    b = np.ldexp(rng.uniform(-1, 1, (k, n)), -shift) + 1j * rng.uniform(-1, 1, (k, n))
    ref, fallback = reference.ozaki2(a, b, moduli=moduli, scaling=scaling)
    c, info = ozblas.matmul(a, b, method="ozaki2", moduli=moduli, scaling=scaling,
                            executor="cpu", return_info=True)
    if fallback is not None:
        assert info["fallback"] is not None
        return
    assert info["complex_products"] == 2
    assert_same_bits(c, ref)


# ---- Hermitian products: one integer product per modulus (ozaki2.h oz2_products_per_call_modulus)


def _zgemm_same(a, trans, moduli, scaling):
    """C = op(A) op(A)^H through ozblas_zgemm with A passed as both operands (the driver's
    Hermitian case): (C, report)."""
    af = np.asfortranarray(a)
    n = a.shape[0] if trans == "N" else a.shape[1]
    k = a.shape[1] if trans == "N" else a.shape[0]
    c = np.zeros((n, n), dtype=np.complex128, order="F")
    rep = ffi.new("ozblas_report *")
    one, zero = ffi.new("double[2]", [1.0, 0.0]), ffi.new("double[2]", [0.0, 0.0])
    p = ffi.cast("double *", af.ctypes.data)
    ta, tb = (b"N", b"C") if trans == "N" else (b"C", b"N")
    st = lib.ozblas_zgemm(ffi.NULL, ta, tb, n, n, k, one, p, max(1, a.shape[0]), p,
                          max(1, a.shape[0]), zero, ffi.cast("double *", c.ctypes.data), n,
                          _options("ozaki2", moduli, scaling, "cpu", None), rep)
    assert st == 0
    return c, rep


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 12), st.integers(1, 40), st.sampled_from([4, 9, 14, 19, "auto"]),
       st.sampled_from(["fast", "accurate"]), st.sampled_from("NC"), st.integers(-60, 60),
       st.integers(0, 2**31))
def test_a_hermitian_product_takes_one_product_per_modulus(n, k, moduli, scaling, trans, shift,
                                                           seed):
    """op(A) op(A)^H from one array: the reference's one-product algorithm bit for bit (the
    same as its two products with the smaller bits on both sides), an exactly real diagonal,
    one product per modulus on the complex set, within the reported bound of the oracle."""
    shape = (n, k) if trans == "N" else (k, n)
    a = make_matrix(*shape, 1.0, seed=seed % 1000) + 1j * np.ldexp(
        make_matrix(*shape, 1.0, seed=seed % 1000 + 1), shift)
    x = a if trans == "N" else a.conj().T
    c, rep = _zgemm_same(a, trans, moduli, scaling)
    cx2 = moduli == "auto" or lib.ozblas_ozaki2_complex_count(INT8, moduli) != 0
    _hermitian_checks(c, rep, x, x.conj().T, moduli, scaling, True, {1 if cx2 else 3})


def _hermitian_checks(c, rep, a, b, moduli, scaling, herm, products):
    """A Hermitian product's C against the reference's one-product algorithm (herm: True or
    "swap") bit for bit, its exactly real diagonal, its products per modulus (one of
    products), and the reported bound of the oracle."""
    ref, fallback = reference.ozaki2(a, b, moduli=moduli, scaling=scaling, herm=herm)
    if fallback is not None:
        assert rep.fallback != 0
        return
    assert rep.fallback == 0
    assert_same_bits(c, ref)
    assert np.all(np.diag(c).imag == 0)
    assert rep.complex_products in products
    assert rep.int_gemms >= rep.complex_products * rep.moduli
    exact = exact_matmul(a, b)
    assert err_ab(c, exact, a, b) <= (rep.bound if rep.bound > 0 else 1.0) + U


def test_zherk_in_one_block_is_the_hermitian_product():
    """ZHERK of one block (nb >= n: the LAPACK layer's diagonal-block product) is the
    Hermitian product's triangle, and costs one product per modulus."""
    from ozblas._native import ffi
    from ozblas.api import _context, _options

    n, k = 33, 70
    a = _parts(n, k, 1.0, 5, 0, -20)
    want, rep = _zgemm_same(a, "N", 14, "fast")
    assert rep.complex_products == 1 and rep.int_gemms == rep.moduli
    af = np.asfortranarray(a)
    c = np.zeros((n, n), dtype=np.complex128, order="F")
    info = ffi.new("int64_t *")
    lrep = ffi.new("ozblas_lapack_report *")
    st = lib.ozblas_zherk(_context(), b"L", b"N", n, k, 1.0, ffi.cast("double *", af.ctypes.data),
                          n, 0.0, ffi.cast("double *", c.ctypes.data), n, info, n,
                          _options("ozaki2", 14, "fast", "cpu", None), lrep)
    assert st == 0 and info[0] == 0 and lrep.emulated == 1
    low = np.tril(np.ones((n, n), bool))
    assert_same_bits(c[low], want[low])
    assert np.all(c[~low] == 0)


def test_auto_precision_walks_the_complex_set_itself():
    """Automatic precision walks the complex set's own counts (ozaki2_table.c oz2_auto_table),
    so it can stop at a count no real count maps to (6, 17 and 22 are no real count's fewest
    reaching moduli): here 17, where real count 15 maps to 16 and 16 to 18. The reference's
    walk gives the same count and bits, within the bound and native's error."""
    load()
    assert 17 not in {lib.ozblas_ozaki2_complex_count(INT8, n) for n in range(2, 20)}
    a = make_matrix(64, 1024, 0.5, seed=1) + 1j * np.ldexp(make_matrix(64, 1024, 0.5, seed=2), -30)
    b = make_matrix(1024, 64, 0.5, seed=3) + 1j * np.ldexp(make_matrix(1024, 64, 0.5, seed=4), -30)
    c, info = ozblas.matmul(a, b, method="ozaki2", moduli="auto", scaling="fast",
                            executor="cpu", return_info=True)
    assert (info["moduli"], info["complex_products"]) == (17, 2)
    rinfo = {}
    ref, fallback = reference.ozaki2(a, b, moduli="auto", scaling="fast", info=rinfo)
    assert fallback is None and rinfo["moduli"] == 17
    assert_same_bits(c, ref)
    exact = exact_matmul(a, b)
    assert err_ab(c, exact, a, b) <= min(info["bound"], max(native_error(a, b, exact), U))


def _zgemm_swap(u, moduli, scaling, alpha=1.0):
    """zgemm('N', 'C', n, n, 2k, alpha, U, n, U + k columns, n) with U = [Z, Z(:, :k)]: the
    driver's HER2K form (op(B)^H = Z J): (C, report)."""
    n, k3 = u.shape
    uf = np.asfortranarray(u)
    c = np.zeros((n, n), dtype=np.complex128, order="F")
    rep = ffi.new("ozblas_report *")
    al, be = ffi.new("double[2]", [alpha.real, alpha.imag] if isinstance(alpha, complex)
                     else [alpha, 0.0]), ffi.new("double[2]", [0.0, 0.0])
    base = ffi.cast("double *", uf.ctypes.data)
    k = 2 * k3 // 3
    st = lib.ozblas_zgemm(_context(), b"N", b"C", n, n, k, al, base, n, base + 2 * n * (k // 2),
                          n, be, ffi.cast("double *", c.ctypes.data), n,
                          _options("ozaki2", moduli, scaling, "cpu", None), rep)
    assert st == 0
    return c, rep


@settings(deadline=None, max_examples=25)
@given(st.integers(1, 12), st.integers(1, 30), st.sampled_from([4, 9, 14, 19, "auto"]),
       st.sampled_from(["fast", "accurate"]), st.integers(-60, 60), st.integers(0, 2**31))
def test_her2k_form_takes_one_product_of_2k_per_modulus(n, k, moduli, scaling, shift, seed):
    """[X, Y] J [X, Y]^H = X Y^H + Y X^H from one array U = [X, Y, X]: the reference's
    one-product algorithm (herm "swap") bit for bit, an exactly real diagonal, one product
    per modulus on the complex set, within the reported bound of the oracle."""
    x = _parts(n, k, 1.0, seed % 1000, 0, shift)
    y = _parts(n, k, 1.0, seed % 1000 + 7, 0, -shift // 2)
    z = np.hstack([x, y])
    c, rep = _zgemm_swap(np.hstack([z, x]), moduli, scaling)
    # automatic precision may walk past the complex set's counts (then Karatsuba's three)
    cx2 = {1, 3} if moduli == "auto" else {1 if lib.ozblas_ozaki2_complex_count(INT8, moduli)
                                            else 3}
    _hermitian_checks(c, rep, z, np.hstack([y, x]).conj().T, moduli, scaling, "swap", cx2)


def test_her2k_form_needs_the_copy():
    """The same layout whose last columns are not a copy of the first is no HER2K form: two
    products per modulus, the reference's general algorithm bit for bit."""
    n, k = 9, 6
    x, y = _parts(n, k, 1.0, 3, 0, -5), _parts(n, k, 1.0, 4, 0, 3)
    u = np.hstack([x, y, x])
    u[2, 2 * k + 1] += 1.0
    c, rep = _zgemm_swap(u, 14, "fast")
    assert rep.complex_products == 2
    ref, _ = reference.ozaki2(u[:, :2 * k], u[:, k:].conj().T, moduli=14, scaling="fast")
    assert_same_bits(c, ref)


@pytest.mark.parametrize("trans", "NC")
@pytest.mark.parametrize("alpha", [-1.0, 0.75 - 0.5j])
def test_zher2k_in_one_block_is_one_hermitian_product(trans, alpha):
    """ZHER2K of one block (nb >= n: the LAPACK layer's diagonal-block product) is the
    HER2K form's triangle (the reference's operands, one product per modulus, bit for bit),
    and no less accurate against the exact result than the two products' path at the same
    count, also with op(P) and op(Q) of very different magnitudes."""
    n, k = 21, 40
    p, q = _parts(n, k, 1.0, 11, 0, -20), _parts(n, k, 1.0, 12, 0, 9)
    x, y = (p, q) if trans == "N" else (p.conj().T, q.conj().T)  # op(P), op(Q) stored
    z, w, ga = reference.her2k_operands(p, q, alpha)
    want, rep = _zgemm_swap(np.hstack([z, w[:, k:]]), 14, "fast", ga)
    assert rep.complex_products == 1 and rep.int_gemms == rep.moduli
    np.fill_diagonal(want, want.diagonal().real)  # HER2K stores +0 (alpha -1 gives -0)
    c = np.zeros((n, n), dtype=np.complex128, order="F")
    info = ffi.new("int64_t *")
    lrep = ffi.new("ozblas_lapack_report *")
    xf, yf = np.asfortranarray(x), np.asfortranarray(y)
    ld = n if trans == "N" else k
    st_ = lib.ozblas_zher2k(_context(), b"L", trans.encode(), n, k,
                            ffi.new("double[2]", [complex(alpha).real, complex(alpha).imag]),
                            ffi.cast("double *", xf.ctypes.data), ld,
                            ffi.cast("double *", yf.ctypes.data), ld, 0.0,
                            ffi.cast("double *", c.ctypes.data), n, info, n,
                            _options("ozaki2", 14, "fast", "cpu", None), lrep)
    assert st_ == 0 and info[0] == 0 and lrep.emulated == 1
    low = np.tril(np.ones((n, n), bool))
    assert_same_bits(c[low], want[low])
    assert np.all(c[~low] == 0)
    exact = alpha * exact_matmul(p, q.conj().T)
    exact = exact + exact.conj().T
    two = sum(reference.ozaki2(l, r, moduli=14, scaling="fast", alpha=al)[0]
              for l, r, al in ((p, q.conj().T, alpha), (q, p.conj().T, np.conj(alpha))))
    scale = (np.abs(p) @ np.abs(q).T + np.abs(q) @ np.abs(p).T)[low]
    assert np.max(np.abs(c - exact)[low] / scale) <= 4 * np.max(
        np.abs(two - exact)[low] / scale) + 4 * U
