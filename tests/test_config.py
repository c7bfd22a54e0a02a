import os
import subprocess
import sys

import pytest

from ozblas import config


def test_defaults():
    o = config.from_env({})
    assert o == config.Options()
    assert o.method == "auto" and o.moduli == 0 and o.scaling == "accurate"  # 0: auto


def test_values_parsed():
    o = config.from_env({"OZBLAS_METHOD": "OZAKI2", "OZBLAS_MODULI": " 14 ", "OZBLAS_SCALING": "fast",
                         "OZBLAS_DEVICE": "cuda:1", "OZBLAS_NUM_THREADS": "2"})
    assert (o.method, o.moduli, o.scaling, o.executor, o.device, o.threads) == ("ozaki2", 14, "fast", "cuda", 1, 2)


@pytest.mark.parametrize("name,value,accepted", [
    ("OZBLAS_METHOD", "fastest", "auto, native, ozaki1, ozaki2"),
    ("OZBLAS_SLICES", "1", "2 to 20"),
    ("OZBLAS_OZAKI1_VARIANT", "best", "bitmask, rn, ef, hybrid"),
    ("OZBLAS_MODULI", "1", "2 to 20"),
    ("OZBLAS_MODULI", "21", "2 to 20"),
    ("OZBLAS_MODULI", "x", "2 to 20"),
    ("OZBLAS_SCALING", "exact", "accurate, fast"),
    ("OZBLAS_DEVICE", "gpu", "cuda:N"),
    ("OZBLAS_NUM_THREADS", "-1", "positive integer"),
])
def test_bad_values_name_variable_value_and_accepted(name, value, accepted):
    with pytest.raises(config.ConfigError) as e:
        config.from_env({name: value})
    msg = str(e.value)
    assert name in msg and repr(value) in msg and accepted in msg


def test_c_and_python_parsers_agree(monkeypatch):
    """The C parser (ozblas_options_from_env) accepts and rejects the same values."""
    from ozblas._native import ffi, lib, load

    load()
    cases = {"OZBLAS_METHOD": ["auto", "native", "ozaki2", "bogus"], "OZBLAS_MODULI": ["2", "20", "auto", "AUTO", "1", "21", "a"],
             "OZBLAS_SCALING": ["fast", "accurate", "x"], "OZBLAS_SLICES": ["2", "20", "auto", "21", "1"],
             "OZBLAS_OZAKI1_VARIANT": ["rn", "EF", "hybrid", "bitmask", "nope"], "OZBLAS_DEVICE": ["cpu", "cuda", "cuda:3", "gpu", "cuda:x"],
             "OZBLAS_NUM_THREADS": ["0", "4", "-2"]}
    for name, values in cases.items():
        for v in values:
            monkeypatch.setenv(name, v)
            opt = ffi.new("ozblas_options *")
            err = ffi.new("char[256]")
            c_ok = lib.ozblas_options_from_env(opt, err, 256) == 0
            try:
                config.from_env()
                py_ok = True
            except config.ConfigError:
                py_ok = False
            assert c_ok == py_ok, (name, v)
            if not c_ok:
                assert name in ffi.string(err).decode()
            monkeypatch.delenv(name)


def test_cli_refuses_bad_value():
    env = dict(os.environ, OZBLAS_MODULI="99")  # keep PYTHONPATH etc. of machines that need them
    r = subprocess.run([sys.executable, "-m", "ozblas", "info"], env=env, capture_output=True, text=True)
    assert r.returncode == 2
    assert "OZBLAS_MODULI" in r.stderr and "'99'" in r.stderr
