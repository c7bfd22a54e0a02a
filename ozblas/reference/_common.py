"""Pieces both references share."""

import numpy as np


def operands(a, b, alpha, beta):
    """(a, b, is_complex): complex128 when any of a, b, alpha, beta is complex."""
    a = np.asarray(a)
    b = np.asarray(b)
    cplx = np.iscomplexobj(a) or np.iscomplexobj(b) or np.iscomplexobj(alpha) or np.iscomplexobj(beta)
    if cplx:
        a = a.astype(np.complex128)
        b = b.astype(np.complex128)
    return a, b, cplx
