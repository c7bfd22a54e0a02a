"""The library's test-only fault injection point (native/src/core/alloc.c): the N-th host or
device allocation from now fails. sweep(call) runs call once to count its allocations, then
once with each of them failing in turn."""

import ctypes

from ozblas import _native

_lib = ctypes.CDLL(str(_native.library_path()))
fail_at = _lib.oz_test_fail_allocation
fail_at.argtypes = [ctypes.c_int64]
allocations = _lib.oz_test_allocations
allocations.restype = ctypes.c_int64


def sweep(call):
    """[(N, call() with the N-th allocation failing)] for every allocation of one call (after
    a first call that sets up what a process keeps)."""
    call()
    fail_at(0)
    call()
    total = allocations()
    assert total > 0, "the call allocated nothing: the sweep would test nothing"
    out = []
    for n in range(1, total + 1):
        fail_at(n)
        try:
            out.append((n, call()))
        finally:
            fail_at(0)
    return out
