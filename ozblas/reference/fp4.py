"""The FP4 (E2M1) product engine in NumPy (native/src/numerics/fp4.h): the greedy base-13
decomposition with digits in S = {0, +-1, +-2, +-3, +-4, +-6, +-8, +-12} (doubled E2M1
values) and the exact product of two small-integer matrices through limb products, each
accumulated in FP32 as an FP4 unit does (exact: every partial sum is a multiple of 1/4 below
2^22). The C executors give the same values bit for bit."""

from __future__ import annotations

import numpy as np

__all__ = ["DIGITS", "MAX_K", "digit", "limbs", "limb_range", "residue_limbs", "product"]

DIGITS = (0, 1, 2, 3, 4, 6, 8, 12, -1, -2, -3, -4, -6, -8, -12)
MAX_K = 116508  # 144 K <= 2^24
# the largest digit in S of each residue class modulo 13
_LARGEST = np.array([0, 1, 2, 3, 4, -8, 6, -6, 8, -4, -3, -2, 12], dtype=np.int64)


def limb_range(p: int) -> int:
    """(13^p - 1) / 3: the largest |N| that p limbs represent."""
    return (13 ** p - 1) // 3


def digit(N):
    """The greedy digit: for N >= 0 the largest c in S with c = N (mod 13), else -digit(-N)."""
    N = np.asarray(N, dtype=np.int64)
    return np.where(N >= 0, _LARGEST[np.abs(N) % 13], -_LARGEST[np.abs(N) % 13])


def limbs(N, p: int):
    """The p limbs of N, least significant first (an array of shape (p, *N.shape)), and what
    is left (0 where |N| <= limb_range(p))."""
    N = np.asarray(N, dtype=np.int64)
    out = []
    for _ in range(p):
        c = digit(N)
        out.append(c)
        N = (N - c) // 13
    return np.stack(out), N


def residue_limbs(m: int) -> int:
    """Limbs per residue modulo m (fp4.h oz_fp4_residue_limbs)."""
    if m == 13 or m <= 9:
        return 1
    return 2 if m <= 113 else 3


def product(x: np.ndarray, y: np.ndarray, nd: int) -> np.ndarray:
    """x @ y of integer matrices through nd limbs per value: each limb product in FP32 on
    K-blocks of at most MAX_K, combined exactly with weights 4 * 13^(i + j). With nd = 1 and
    residues modulo 13 the result is congruent to x @ y modulo 13."""
    lx, _ = limbs(x, nd)
    ly, _ = limbs(y, nd)
    k = x.shape[1]
    out = np.zeros((x.shape[0], y.shape[1]), dtype=np.float64)
    for l0 in range(0, k, MAX_K):
        sl = slice(l0, min(k, l0 + MAX_K))
        for i in range(nd):
            for j in range(nd):
                a = (0.5 * lx[i][:, sl]).astype(np.float32)
                b = (0.5 * ly[j][sl, :]).astype(np.float32)
                p = a @ b  # exact in FP32 whatever the order (see the module docstring)
                out += 4.0 * 13.0 ** (i + j) * p.astype(np.float64)
    return out
