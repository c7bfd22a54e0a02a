"""Pieces both references share."""

import numpy as np


def _ilogb(x: np.ndarray) -> np.ndarray:
    """Exponent e with 1 <= |x| 2^-e < 2 (x finite, nonzero; subnormals included)."""
    return np.frexp(x)[1].astype(np.int64) - 1


def _parts(x: np.ndarray) -> list[np.ndarray]:
    """The real parts of a matrix: [re, im] for complex, [x] (float64) for real."""
    if np.iscomplexobj(x):
        return [x.real.astype(np.float64), x.imag.astype(np.float64)]
    return [np.asarray(x, dtype=np.float64)]


def operands(a, b, alpha, beta):
    """(a, b, is_complex): complex128 when any of a, b, alpha, beta is complex."""
    a = np.asarray(a)
    b = np.asarray(b)
    cplx = np.iscomplexobj(a) or np.iscomplexobj(b) or np.iscomplexobj(alpha) or np.iscomplexobj(beta)
    if cplx:
        a = a.astype(np.complex128)
        b = b.astype(np.complex128)
    return a, b, cplx


def update(xr, xi, alpha, beta, c, cplx):
    """alpha X + beta C with the operations and order of oz_update_real/complex (C's beta == 0
    is not read); the complex result is assembled part by part, which is exact."""
    beta_zero = beta == 0
    if not cplx:
        out = float(alpha) * xr
        if not beta_zero:
            out = out + float(beta) * np.asarray(c, dtype=np.float64)
        return out
    al, be = complex(alpha), complex(beta)
    # as oz_update_complex: a real alpha scales each part alone, beta = 1 adds C as it is
    tr = al.real * xr if al.imag == 0 else al.real * xr - al.imag * xi
    ti = al.real * xi if al.imag == 0 else al.real * xi + al.imag * xr
    if not beta_zero:
        c = np.asarray(c, dtype=np.complex128)
        tr = tr + (c.real if be == 1 else be.real * c.real - be.imag * c.imag)
        ti = ti + (c.imag if be == 1 else be.real * c.imag + be.imag * c.real)
    out = np.empty(tr.shape, dtype=np.complex128)
    out.real = tr
    out.imag = ti
    return out
