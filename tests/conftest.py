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
