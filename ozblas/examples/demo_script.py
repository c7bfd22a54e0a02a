"""An ordinary NumPy/SciPy program: the workload of `ozblas demo`: products, expm, and the
LAPACK-level solvers scipy.linalg.solve, scipy.linalg.cholesky and numpy.linalg.solve.

Nothing in it knows about ozblas. `ozblas demo` runs it twice, as it is and under the
preload shim (`ozblas run --method ozaki2 -- python demo_script.py OUT.npz`), and compares
the results of both runs with the exact products.

    python demo_script.py [OUT.npz]

Prints the time of each step; OUT.npz receives the inputs, the results and the times.
"""

import sys
import time

import numpy as np
import scipy.linalg


def test_matrix(rng, shape, phi):
    """(rand - 0.5) * exp(phi * randn): the Ozaki-scheme papers' test matrices (a larger phi
    spreads the exponents wider)."""
    return (rng.random(shape) - 0.5) * np.exp(phi * rng.standard_normal(shape))


def main(out=None):
    rng = np.random.default_rng(20240601)
    a1, b1 = test_matrix(rng, (1024, 768), 0.5), test_matrix(rng, (768, 1024), 0.5)
    a2, b2 = test_matrix(rng, (768, 1024), 2.0), test_matrix(rng, (1024, 768), 2.0)
    za = test_matrix(rng, (512, 384), 0.5) + 1j * test_matrix(rng, (512, 384), 0.5)
    zb = test_matrix(rng, (384, 512), 0.5) + 1j * test_matrix(rng, (384, 512), 0.5)
    s = test_matrix(rng, (768, 512), 1.0)
    m = rng.standard_normal((256, 256)) / 16.0
    g = test_matrix(rng, (640, 640), 0.5) + np.eye(640)
    rhs = test_matrix(rng, (640, 4), 0.5)
    h = test_matrix(rng, (640, 640), 0.5)
    spd = (h + h.T) / 2 + 640 * np.eye(640)  # diagonally dominant: SPD (no product, same bits in both runs)

    data = dict(a1=a1, b1=b1, a2=a2, b2=b2, za=za, zb=zb, s=s, m=m, g=g, rhs=rhs, spd=spd)
    steps = [("matmul", lambda: a1 @ b1), ("dot", lambda: np.dot(a2, b2)),
             ("zmatmul", lambda: za @ zb), ("gram", lambda: s @ s.T),
             ("expm", lambda: scipy.linalg.expm(m)),
             ("solve", lambda: scipy.linalg.solve(g, rhs)),
             ("cholesky", lambda: scipy.linalg.cholesky(spd)),
             ("np_solve", lambda: np.linalg.solve(g, rhs))]
    for name, f in steps:
        t = time.perf_counter()
        data[name] = f()
        data["seconds_" + name] = time.perf_counter() - t
        print(f"{name:8s} {data['seconds_' + name] * 1e3:9.1f} ms")
    if out:
        np.savez(out, **data)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
