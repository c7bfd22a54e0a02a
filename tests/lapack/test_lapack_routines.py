"""ozblas.lapack under OZBLAS_ROUTINES (issue 31): a routine left native is the host LAPACK
routine (the whole call one block), so its result is native's bit for bit: NumPy's own calls
of the same routines (numpy.linalg: dgesdd, dsyevd, zheevd, dpotrf, dgesv, dgeqrf) are the
reference (SciPy's are not: its wheel's OpenBLAS is another build, whose dgetrf differs)."""

import numpy as np
import pytest

import ozblas
import ozblas.lapack as L

FORCED = dict(method="ozaki2", nb=32)  # emulated, in blocks, unless the routine is left native


@pytest.fixture(scope="module")
def mats():
    rng = np.random.default_rng(310)
    n = 160
    a = rng.integers(-8, 9, (n, n)).astype(float)
    spd = a @ a.T + n * np.eye(n)
    z = a + 1j * rng.integers(-8, 9, (n, n))
    return dict(a=a, spd=spd, hpd=z @ z.conj().T + n * np.eye(n), b=rng.uniform(-1, 1, (n, 3)))


def _calls(m):
    """(routine of OZBLAS_ROUTINES, ozblas.lapack's result, numpy.linalg's) per case."""
    return {
        "gesdd": (lambda: L.gesdd(m["a"], **FORCED)[:3], lambda: np.linalg.svd(m["a"])),
        "syevd": (lambda: L.syevd(m["spd"], lower=True, **FORCED)[:2], lambda: np.linalg.eigh(m["spd"])),
        "heevd": (lambda: L.heevd(m["hpd"], lower=True, **FORCED)[:2], lambda: np.linalg.eigh(m["hpd"])),
        "potrf": (lambda: L.potrf(m["spd"], lower=True, **FORCED)[:1],
                  lambda: (np.linalg.cholesky(m["spd"]),)),
        "gesv": (lambda: L.gesv(m["a"], m["b"], **FORCED)[2:3], lambda: (np.linalg.solve(m["a"], m["b"]),)),
        "geqrf": (lambda: L.geqrf(m["a"], **FORCED)[:2],
                  lambda: (lambda h, tau: (h.T, tau))(*np.linalg.qr(m["a"], mode="raw"))),
    }


def _same(x, y):
    return all(np.array_equal(np.asarray(u), np.asarray(v)) for u, v in zip(x, y))


@pytest.mark.parametrize("case", ["gesdd", "syevd", "heevd", "potrf", "gesv", "geqrf"])
def test_a_routine_left_native_is_the_host_routine(monkeypatch, mats, case):
    ours, numpys = _calls(mats)[case]
    routed = ours()
    assert L.last_report()["method"] == "ozaki2" and L.last_report()["nb"] == 32
    assert not _same(routed, numpys())  # emulated: other bits (the reference is not trivial)
    monkeypatch.setenv("OZBLAS_ROUTINES", f"-{case}")
    kept = ours()
    rep = L.last_report()
    assert rep["method"] == "native" and rep["nb"] == 160 and rep["emulated"] == 0
    ref = numpys()
    if case == "heevd":
        # the host zheevd's vectors depend on the workspace it is given (ozblas gives its own,
        # NumPy the size a query returns) in the last bits; its eigenvalues do not
        assert _same(kept[:1], ref[:1]) and np.abs(kept[1] - ref[1]).max() <= 1e-14
    else:
        assert _same(kept, ref)


def test_an_include_list_leaves_the_others_native(monkeypatch, mats):
    monkeypatch.setenv("OZBLAS_ROUTINES", "potrf")
    calls = _calls(mats)
    calls["potrf"][0]()
    assert L.last_report()["method"] == "ozaki2"
    assert _same(calls["gesdd"][0](), calls["gesdd"][1]())
    assert L.last_report()["method"] == "native"


def test_the_keyword_of_activated_applies_to_ozblas_lapack(monkeypatch, mats):
    """activated(routines=...) sets OZBLAS_ROUTINES for every ozblas default while it is in force
    (without patching anything here: ozblas.config's overrides, which activation sets)."""
    from ozblas import config

    ours, numpys = _calls(mats)["gesdd"]
    config.set_overrides({"OZBLAS_ROUTINES": config.setting_text("OZBLAS_ROUTINES", "-gesdd")})
    try:
        assert _same(ours(), numpys())
    finally:
        config.set_overrides({})
    ours()
    assert L.last_report()["method"] == "ozaki2"


def test_a_bad_value_is_refused(monkeypatch, mats):
    monkeypatch.setenv("OZBLAS_ROUTINES", "-gesdd,-svd")
    with pytest.raises(ozblas.ConfigError, match=r"OZBLAS_ROUTINES='-gesdd,-svd' is not valid \('-svd' names no routine\)"):
        L.gesdd(mats["a"])
