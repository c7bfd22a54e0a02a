"""Comparisons shared by the GPU tests: the CUDA executor against the CPU executor."""

import numpy as np

import ozblas


def cuda_state():
    """(available, reason) of the CUDA executor, as ozblas.info() reports it."""
    try:
        ex = ozblas.info()["executors"]["cuda"]
        return bool(ex["available"]), ex.get("reason")
    except Exception as e:  # pragma: no cover
        return False, f"ozblas.info() failed: {e}"


def _bits(x):
    return np.ascontiguousarray(x).view(np.uint64)


def assert_same_bits(got, want, what=""):
    assert got.shape == want.shape and got.dtype == want.dtype, what
    g, w = _bits(got), _bits(want)
    if not np.array_equal(g, w):
        bad = np.argwhere(g != w)
        i = tuple(bad[0])
        raise AssertionError(
            f"{what}: {len(bad)} of {g.size} words differ; first at {i}: "
            f"cuda {np.ascontiguousarray(got).view(np.float64)[i]!r} "
            f"cpu {np.ascontiguousarray(want).view(np.float64)[i]!r}")


def assert_same_report(rc, rp, keys, what=""):
    assert rc["executor"] == "cuda", (what, rc)
    assert rp["executor"] == "cpu", (what, rp)
    for key in keys:
        assert rc[key] == rp[key], (what, key, rc[key], rp[key])
