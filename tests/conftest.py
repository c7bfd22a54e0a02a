import numpy as np
import pytest

import ozblas


def _cuda_available() -> bool:
    return ozblas.info()["executors"]["cuda"]["available"]


def pytest_collection_modifyitems(config, items):
    if _cuda_available():
        return
    reason = ozblas.info()["executors"]["cuda"]["reason"]
    skip = pytest.mark.skip(reason=f"no usable CUDA executor: {reason}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture(autouse=True, scope="session")
def _cpu_threads_at_every_size():
    """The CPU executor runs a product below its size rule on the calling thread
    (native/src/cpu/cpu_common.c, oz_cpu_threads); the tests that compare one and two threads
    use small matrices, so in the test process every product gets the threads it asks for
    (tests/cpu/test_thread_rule.py checks the rule itself)."""
    import ctypes

    from ozblas import _native

    hook = getattr(ctypes.CDLL(str(_native.library_path())), "oz_cpu_test_min_elements", None)
    if hook is None:  # a library built without the hook (the CUDA emulation harness's own)
        yield
        return
    hook.argtypes = [ctypes.c_int64]
    hook(0)
    yield
    hook(-1)
