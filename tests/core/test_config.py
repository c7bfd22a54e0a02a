"""The one parser of OZBLAS_* variables (native/src/core/config.c) and its Python face
(ozblas/config.py)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ozblas import config

README = Path(__file__).resolve().parents[2] / "README.md"


def test_defaults():
    o = config.from_env({})
    assert o == config.Options()
    assert o.method == "auto" and o.moduli == 0 and o.scaling == "accurate"  # 0: auto
    assert (o.threads, o.min_size, o.trace, o.disable) == (0, 256, None, False)


def test_values_parsed():
    o = config.from_env({"OZBLAS_METHOD": "ozaki2", "OZBLAS_MODULI": "14", "OZBLAS_SCALING": "fast",
                         "OZBLAS_DEVICE": "cuda:1", "OZBLAS_NUM_THREADS": "2", "OZBLAS_SUMMARY": "1"})
    assert (o.method, o.moduli, o.scaling, o.executor, o.device, o.threads, o.summary) == \
        ("ozaki2", 14, "fast", "cuda", 1, 2, True)


@pytest.mark.parametrize("name,value,accepted", [
    ("OZBLAS_METHOD", "fastest", "auto, native, ozaki1, ozaki2"),
    ("OZBLAS_SLICES", "1", "2 to 40"),
    ("OZBLAS_OZAKI1_VARIANT", "best", "bitmask, rn, ef, hybrid"),
    ("OZBLAS_MODULI", "1", "2 to 49"),
    ("OZBLAS_MODULI", "50", "2 to 49"),
    ("OZBLAS_MODULI", "x", "2 to 49"),
    ("OZBLAS_SCALING", "exact", "accurate, fast"),
    ("OZBLAS_DEVICE", "gpu", "cuda:N"),
    ("OZBLAS_NUM_THREADS", "-1", "4096"),
])
def test_bad_values_name_variable_value_and_accepted(name, value, accepted):
    with pytest.raises(config.ConfigError) as e:
        config.from_env({name: value})
    msg = str(e.value)
    assert name in msg and repr(value) in msg and accepted in msg


# Row 5 of issue 13: values one parser took and the other refused. Exact tokens, ASCII digits.
ROW5 = [("OZBLAS_MODULI", "16 "), ("OZBLAS_MODULI", "1_6"), ("OZBLAS_MODULI", "\u0661\u0666"),
        ("OZBLAS_MODULI", "+16"), ("OZBLAS_METHOD", " ozaki2"), ("OZBLAS_METHOD", "ozaki2 "),
        ("OZBLAS_METHOD", "OZAKI2"), ("OZBLAS_METHOD", " "), ("OZBLAS_NUM_THREADS", "5000"),
        ("OZBLAS_NUM_THREADS", "1 "), ("OZBLAS_DEVICE", "cuda:5000"), ("OZBLAS_DEVICE", " cpu"),
        ("OZBLAS_SCALING", "fast\t"), ("OZBLAS_SLICES", "auto "), ("OZBLAS_MIN_SIZE", "0x10"),
        ("OZBLAS_DISABLE", "01 "), ("OZBLAS_ACTIVATE", "yes"), ("OZBLAS_CUDA_VERBOSE", "2")]


@pytest.mark.parametrize("name,value", ROW5)
def test_inexact_values_refused_by_the_one_parser(name, value, monkeypatch):
    from ozblas._native import ffi, lib

    with pytest.raises(config.ConfigError, match=name):
        config.from_env({name: value})
    if config.variable(name).keyword in ("method", "moduli", "scaling", "slices", "variant", "device",
                                         "threads"):
        monkeypatch.setenv(name, value)
        err = ffi.new("char[512]")
        assert lib.ozblas_options_from_env(ffi.new("ozblas_options *"), err, 512) == 1
        assert name in ffi.string(err).decode()


def test_ozblas_run_refuses_inexact_value():
    """Issue 13 row 5: `ozblas run` exits 0 with every call native; now it refuses (2)."""
    env = dict(os.environ, OZBLAS_MODULI="16 ")
    r = subprocess.run([sys.executable, "-m", "ozblas", "run", "--method", "ozaki2", "--", sys.executable,
                        "-c", "pass"], env=env, capture_output=True, text=True)
    assert r.returncode == 2 and "OZBLAS_MODULI='16 '" in r.stderr, r.stderr


def test_threads_bound_named_for_keywords_and_variables():
    """Issue 13 row 1: threads=10**9 reached libgomp (out of memory, or a crash)."""
    import numpy as np

    import ozblas

    for t in (100000, 10**9, 4097, -1, 2.0, True):
        with pytest.raises(config.ConfigError, match="4096"):
            ozblas.matmul(np.ones((4, 3)), np.ones((3, 2)), method="ozaki2", threads=t)
    with pytest.raises(config.ConfigError, match="OZBLAS_NUM_THREADS='100000'.*4096"):
        config.from_env({"OZBLAS_NUM_THREADS": "100000"})
    assert config.parse_keyword("threads", "4096") == 4096


def test_unset_and_empty_are_the_default():
    assert config.from_env({k: "" for k in config.variables()}) == config.Options()


def test_nul_byte_in_a_keyword_refused():
    with pytest.raises(config.ConfigError, match="NUL"):
        config.parse_keyword("moduli", "16\0junk")
    with pytest.raises(config.ConfigError, match="NUL"):
        config.parse_keyword("trace", "/tmp/a\0b")


def test_trace_path_not_utf8_accepted(tmp_path):
    """Issue 13 row 6: a trace path whose bytes are not UTF-8 gave UnicodeEncodeError
    tracebacks, even from ozblas.matmul, which never traces."""
    import numpy as np

    import ozblas

    raw = os.fsencode(str(tmp_path)) + b"/t\xff.log"
    path = os.fsdecode(raw)
    o = config.from_env({"OZBLAS_TRACE": path})
    assert os.fsencode(o.trace) == raw
    env = dict(os.environ, OZBLAS_TRACE=path)
    r = subprocess.run([sys.executable, "-m", "ozblas", "info"], env=env, capture_output=True)
    assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr
    assert b"trace=" + os.fsencode(str(tmp_path)) + b"/t\\xff.log" in r.stdout  # shown, escaped
    r = subprocess.run([sys.executable, "-m", "ozblas", "run", "--method", "ozaki2", "--min-size", "0", "--",
                        sys.executable, "-c", "import numpy as np; a = np.ones((3, 3)); a @ a"],
                       env=env, capture_output=True)
    assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr
    assert b"route=ozblas" in open(raw, "rb").read()  # the shim wrote to those very bytes
    old = os.environ.get("OZBLAS_TRACE")
    os.environ["OZBLAS_TRACE"] = path
    try:
        c = ozblas.matmul(np.eye(2), np.eye(2), method="ozaki2")
    finally:
        if old is None:
            del os.environ["OZBLAS_TRACE"]
        else:
            os.environ["OZBLAS_TRACE"] = old
    assert (c == np.eye(2)).all()


def test_relative_trace_length_checked_after_making_it_absolute(tmp_path, monkeypatch):
    """Issue 13 row 7: a relative trace path fits, its absolute form does not: the shim
    used to flag a bad setting at the first call and run the whole process native."""
    deep = tmp_path
    while len(os.fsencode(str(deep))) < 1000:
        deep = deep / ("d" * 100)
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    with pytest.raises(config.ConfigError, match="once made absolute"):
        config.from_env({"OZBLAS_TRACE": "trace-file.log"})
    r = subprocess.run([sys.executable, "-m", "ozblas", "run", "--trace", "trace-file.log", "--",
                        sys.executable, "-c", "pass"], capture_output=True, text=True)
    assert r.returncode == 2 and "OZBLAS_TRACE" in r.stderr, r.stderr
    monkeypatch.chdir(tmp_path)
    assert config.from_env({"OZBLAS_TRACE": "t.log"}).trace == str(tmp_path / "t.log")


def test_readme_summary_is_the_c_table():
    """Every variable of the C table has a line in the README's configuration summary, and
    nothing else does (the full table, docs/configuration.md, is generated from the C table)."""
    text = README.read_text()
    section = text[text.index("## Configuration"):]
    section = section[:section.index("\n## ", 3)]
    items = set()
    for names in re.findall(r"^- ((?:`OZBLAS_\w+`(?:, )?)+):", section, re.M):
        items |= set(re.findall(r"`(OZBLAS_\w+)`", names))
    assert items == set(config.variables())
    docs = (README.parent / "docs" / "configuration.md").read_text()
    assert "```{ozblas-config-table}" in docs


def test_every_ozblas_name_in_the_sources_is_documented():
    """A newcomer finds every OZBLAS_* name the code uses: the environment variables in the
    README's summary, and no other name there; the C API's constants on docs/api/c.md (its
    reference is generated from the header's declaration block; its text names the rest)."""
    root = README.parent
    names = set()
    for folder in ("ozblas", "native", "scipy_hook"):
        for path in (root / folder).rglob("*"):
            if path.suffix in (".py", ".c", ".h", ".cu", ".cuh"):
                names |= set(re.findall(r"OZBLAS_[A-Z0-9_]+", path.read_text(errors="replace")))
    variables = set(config.variables())
    assert set(re.findall(r"OZBLAS_[A-Z0-9_]+", README.read_text())) == variables
    header = (root / "native" / "include" / "ozblas.h").read_text()
    block = re.search(r"/\* OZBLAS_CDEF_BEGIN \*/(.*)/\* OZBLAS_CDEF_END \*/", header, re.S).group(1)
    capi = block + (root / "docs" / "api" / "c.md").read_text()
    assert names and not {n for n in names - variables if not re.search(rf"\b{n}\b", capi)}


def test_options_fields_follow_the_table():
    keys = {v.keyword for v in config.variables().values()} - {"device"} | {"executor", "device", "devices"}
    assert set(config.Options().as_dict()) == keys


def test_constants_come_from_the_header():
    from ozblas import _constants
    from ozblas._native import lib

    assert _constants.METHODS[lib.OZBLAS_METHOD_OZAKI2] == "ozaki2"
    assert _constants.VARIANTS[lib.OZBLAS_OZAKI1_HYBRID] == "hybrid"
    # the parser's names are the enums' (a name's index is its C value)
    assert config.variable("OZBLAS_METHOD").tokens == _constants.METHODS
    assert config.variable("OZBLAS_SCALING").tokens == _constants.SCALINGS
    assert config.variable("OZBLAS_OZAKI1_VARIANT").tokens == _constants.VARIANTS
    assert config.variable("OZBLAS_DEVICE").tokens == _constants.EXECUTORS
    assert _constants.MAX_MODULI == 49  # INT8's; FP4 moduli carry fewer bits, 28 of them
    assert config.variable("OZBLAS_MODULI").hi == lib.ozblas_ozaki2_engine_max_moduli(0) == 49
    assert lib.ozblas_ozaki2_engine_max_moduli(1) == 28


def _model(var: config.Variable, raw: bytes):
    """What docs/configuration.md says a variable accepts, written independently of the parser."""
    text = raw.decode("ascii") if raw.isascii() else None
    if var.kind == "path":
        return b"\0" not in raw
    if text is None:
        return False
    if var.kind == "routines":
        return _routines_model(text) is not None
    if var.kind == "token":
        return text in var.tokens
    if var.kind == "device":
        return text in var.tokens or (text.startswith("cuda:") and re.fullmatch(r"[0-9]{1,18}", text[5:])
                                      is not None and int(text[5:]) <= var.hi)
    if text in var.tokens:
        return True
    return re.fullmatch(r"[0-9]{1,18}", text) is not None and var.lo <= int(text) <= var.hi


# ---- OZBLAS_ROUTINES (issue 31) ----------------------------------------------------------------

# Written out from the table of docs/configuration.md, not from the parser: the routines ozblas
# routes, and the operations LAPACK spells sy/he or or/un.
ROUTINES = """dgemm zgemm dsyrk zsyrk zherk dgetrf zgetrf dgetrs zgetrs dgesv zgesv dgetri zgetri
dpotrf zpotrf dpotrs zpotrs dposv zposv dpotri zpotri dtrtri ztrtri dtrtrs ztrtrs dsytrf zsytrf
zhetrf dsytrs zsytrs zhetrs dsytri zsytri zhetri dsysv zsysv zhesv dgeqrf zgeqrf dorgqr zungqr
dormqr zunmqr dgelqf zgelqf dorglq zunglq dormlq zunmlq dgehrd zgehrd dorghr zunghr dormhr zunmhr
dgels zgels dtrsm ztrsm dtrmm ztrmm dsymm zsymm zhemm dsyr2k zsyr2k zher2k dsygst zhegst dtrsyl
ztrsyl dsyevd zheevd dsyev zheev dsyevr zheevr dsygvd zhegvd dsygv zhegv dsytrd zhetrd dormtr
zunmtr dorgtr zungtr dgebrd zgebrd dorgbr zungbr dormbr zunmbr dgelsy zgelsy dgesdd zgesdd dgesvd
zgesvd dgelsd zgelsd dgelss zgelss dgeev zgeev dgees zgees""".split()


def _spellings(routine):
    """The names that stand for routine: itself, and without its prefix in either spelling."""
    op = routine[1:]
    out = {routine, op}
    for a, b in (("sy", "he"), ("he", "sy"), ("or", "un"), ("un", "or")):
        if op.startswith(a):
            out.add(b + op[2:])
    return out


def _named(pattern, routine):
    if pattern.endswith("*"):
        return any(s.startswith(pattern[:-1]) for s in _spellings(routine))
    return pattern in _spellings(routine)


def _routines_model(text):
    """The routines OZBLAS_ROUTINES=text leaves native (a set), None when it is refused."""
    include, exclude = set(), set()
    for item in text.split(","):
        minus = item.startswith("-")
        pattern = item[minus:]
        if not re.fullmatch(r"[a-z0-9]*\*?", pattern) or not pattern:
            return None
        hit = {r for r in ROUTINES if _named(pattern, r)}
        if not hit:
            return None
        (exclude if minus else include).update(hit)
    any_include = any(not item.startswith("-") for item in text.split(","))
    return (set(ROUTINES) - include if any_include else set()) | exclude


def test_routine_table_is_the_shims():
    assert list(config.routine_names()) == ROUTINES
    assert config.variable("OZBLAS_ROUTINES").kind == "routines"
    assert config.from_env({}).routines == () and config.from_env({"OZBLAS_ROUTINES": ""}).routines == ()


@pytest.mark.parametrize("value,native", [
    ("-gesdd,-gesvd", {"dgesdd", "zgesdd", "dgesvd", "zgesvd"}),
    ("-dgesdd", {"dgesdd"}),
    ("-syevd", {"dsyevd", "zheevd"}),
    ("-heevd", {"dsyevd", "zheevd"}),
    ("-sytrf", {"dsytrf", "zsytrf", "zhetrf"}),
    ("-orgqr", {"dorgqr", "zungqr"}),
    ("-syev*", {"dsyevd", "zheevd", "dsyev", "zheev", "dsyevr", "zheevr"}),
    ("-*", set(ROUTINES)),
    ("*", set()),
    ("gemm,potrf", set(ROUTINES) - {"dgemm", "zgemm", "dpotrf", "zpotrf"}),
    ("zgemm", set(ROUTINES) - {"zgemm"}),
    ("potr*,-potri", set(ROUTINES) - {"dpotrf", "zpotrf", "dpotrs", "zpotrs"}),
    ("-gemm,-gemm", {"dgemm", "zgemm"}),
])
def test_routines_values(value, native):
    got = config.parse("OZBLAS_ROUTINES", value)
    assert set(got) == native == _routines_model(value)
    assert list(got) == [r for r in ROUTINES if r in native]  # in the table's order


@pytest.mark.parametrize("value,why", [
    ("-gesdx", "('-gesdx' names no routine)"), ("sgemm", "('sgemm' names no routine)"),
    ("gemm,daxpy", "('daxpy' names no routine)"), ("gemm,", "(an empty item)"),
    (",gemm", "(an empty item)"), ("-", "('-' is not a name)"), ("GEMM", "('GEMM' is not a name)"),
    ("gemm potrf", "('gemm potrf' is not a name)"), (" gemm", "(' gemm' is not a name)"),
    ("ge*mm", "('ge*mm' is not a name)"), ("--gemm", "('--gemm' is not a name)"),
    ("x*", "('x*' names no routine)"), ("-gesdd,g\xe9mm", "('g\\xc3\\xa9mm' is not a name)"),
])
def test_routines_refused(value, why):
    with pytest.raises(config.ConfigError) as e:
        config.from_env({"OZBLAS_ROUTINES": value})
    msg = str(e.value)
    shown = value.encode().decode("ascii", "backslashreplace")  # other bytes as \xNN
    assert msg.startswith(f"OZBLAS_ROUTINES='{shown}' is not valid {why}; accepted: "), msg
    assert config.variable("OZBLAS_ROUTINES").accepted in msg
    assert _routines_model(value) is None


def test_routines_keyword_is_named_in_the_message():
    with pytest.raises(config.ConfigError, match=r"^routines='-nope' is not valid"):
        config.parse_keyword("routines", "-nope")


_names = st.sampled_from(sorted(config.variables()))
_values = st.one_of(
    st.binary(max_size=12),
    st.text(max_size=8).map(os.fsencode),
    st.sampled_from(["auto", "16", "0", "1", "4096", "4097", "cuda:0", "cuda:1023", "cuda:1024",
                     "-", "ozaki2", "hybrid", "fast", "cpu", "20", "21", "2", "1099511627776",
                     "1099511627777", "00016", "cuda:", "9" * 19, "-gesdd,-gesvd", "gemm,potrf",
                     "syev*", "-", "gemm,", "-*", "he*", "-un*,gemm", "d*", "sy", "-zgesdd"]).map(str.encode),
)


@settings(max_examples=300, deadline=None)
@given(name=_names, raw=_values)
def test_parser_against_arbitrary_strings(name, raw):
    var = config.variable(name)
    want = not raw or _model(var, raw)  # empty: unset, the default
    try:
        config.parse(name, raw)
        got = True
    except config.ConfigError as e:
        got = False
        msg = str(e)
        assert msg.isascii() and "\n" not in msg and name in msg and var.accepted in msg
    assert got == want, (name, raw)


def test_cli_refuses_bad_value():
    env = dict(os.environ, OZBLAS_MODULI="99")  # keep PYTHONPATH etc. of machines that need them
    r = subprocess.run([sys.executable, "-m", "ozblas", "info"], env=env, capture_output=True, text=True)
    assert r.returncode == 2
    assert "OZBLAS_MODULI" in r.stderr and "'99'" in r.stderr


@pytest.mark.parametrize("value,device,devices", [
    ("cuda:all", 0, config.ALL_DEVICES), ("cuda:0,2,3", 0, 0b1101), ("cuda:3,1", 3, 0b1010),
    ("cuda:63,0", 63, 1 | 1 << 63), ("cuda:2", 2, 0), ("cuda", 0, 0)])
def test_device_lists(value, device, devices):
    o = config.from_env({"OZBLAS_DEVICE": value})
    assert (o.executor, o.device, o.devices) == ("cuda", device, devices)
    assert config.device_text(o.executor, o.device, o.devices) == {"cuda": "cuda:0"}.get(value, value)


@pytest.mark.parametrize("value,why", [
    ("cuda:1,1", "a device listed twice"), ("cuda:0,64", "devices 0 to 63"), ("cuda:1,", "devices 0 to 63"),
    ("cuda:,1", "devices 0 to 63"), ("cuda:all,1", "devices 0 to 63"), ("cuda:0, 1", "devices 0 to 63"),
    ("cuda:ALL", "cuda:all")])
def test_bad_device_lists(value, why):
    with pytest.raises(config.ConfigError, match="OZBLAS_DEVICE") as e:
        config.from_env({"OZBLAS_DEVICE": value})
    assert why in str(e.value) and "cuda:N,M,..." in str(e.value)


# ---- options that cannot go together: one check for the library, `ozblas run`, activate() and
# the API (issue 24) --------------------------------------------------------------------------

CONFLICT_GRID = [dict(method=m, moduli=n, slices=s, accuracy=a, engine=e)
                 for m in ("auto", "native", "ozaki1", "ozaki2") for n in (0, 16, 28, 29, 49)
                 for s in (0, 8) for a in ("dgemm", "correct") for e in ("int8", "fp4")]


def _library_refuses(kw) -> bool:
    """What the C library itself answers for these options: a 1 x 1 x 1 DGEMM with them (its
    own struct, filled here field by field, not by ozblas.config)."""
    import numpy as np

    from ozblas import _constants
    from ozblas._native import ffi, lib
    from ozblas.api import _context

    o = ffi.new("ozblas_options *")
    lib.ozblas_options_init(o)
    o.method = _constants.METHODS.index(kw["method"])
    o.moduli, o.slices = kw["moduli"], kw["slices"]
    o.accuracy = _constants.ACCURACIES.index(kw["accuracy"])
    o.engine = _constants.ENGINES.index(kw["engine"])
    x = np.ones(1)
    p = ffi.cast("double *", x.ctypes.data)
    st = lib.ozblas_dgemm(_context(), b"N", b"N", 1, 1, 1, 1.0, p, 1, p, 1, 0.0, p, 1, o, ffi.NULL)
    assert st in (0, lib.OZBLAS_ERR_INVALID_ARGUMENT)
    return st != 0


def _as_env(kw) -> dict:
    names = {"method": "OZBLAS_METHOD", "moduli": "OZBLAS_MODULI", "slices": "OZBLAS_SLICES",
             "accuracy": "OZBLAS_ACCURACY", "engine": "OZBLAS_ENGINE"}
    return {names[k]: ("auto" if v == 0 else str(v)) for k, v in kw.items()}


def test_every_refused_combination_is_refused_everywhere():
    """Each combination of method, moduli, slices, accuracy and engine the library refuses
    (ozblas_dgemm's own answer) is refused by `ozblas run`'s check (shim.preload_env), by
    activate()'s (as keywords and over the environment), by ozblas.dask.Activate's and by
    the API's, with a message naming keywords as keywords and variables as variables; every
    combination it accepts is accepted by all of them."""
    import numpy as np

    import ozblas
    from ozblas import activation, shim

    refused = 0
    for kw in CONFLICT_GRID:
        env = _as_env(kw)
        lib_no = _library_refuses(kw)
        refused += lib_no
        keywords = {k: ("auto" if v == 0 and k in ("moduli", "slices") else v) for k, v in kw.items()}
        checks = {
            "ozblas run": lambda: shim.preload_env(env),
            "environment": lambda: activation._checked({}, env),
            "activate keywords": lambda: activation._checked(
                {k: v for k, v in keywords.items() if k != "engine"}, {"OZBLAS_ENGINE": env["OZBLAS_ENGINE"]}),
            "api keywords": lambda: ozblas.matmul(np.ones((2, 2)), np.ones((2, 2)), executor="cpu", **keywords),
        }
        for where, check in checks.items():
            try:
                check()
                got = None
            except config.ConfigError as e:
                got = str(e)
            assert (got is not None) == lib_no, (kw, where, got)
            if got and where == "api keywords":
                assert "OZBLAS_" not in got and "=" in got, got
            if got and where in ("ozblas run", "environment"):
                assert re.match(r"^OZBLAS_[A-Z]+='", got), got
    assert 0 < refused < len(CONFLICT_GRID)


def test_conflicts_name_what_was_given(monkeypatch):
    """A keyword is named as the keyword, a variable as the variable, in one message."""
    import numpy as np

    import ozblas

    a = np.ones((2, 2))
    with pytest.raises(config.ConfigError, match=r"^moduli='29' is beyond the 28 moduli of engine='fp4'; "
                                                 r"accepted with engine fp4: auto or an integer from 2 to 28$"):
        ozblas.matmul(a, a, moduli=29, engine="fp4")
    monkeypatch.setenv("OZBLAS_ENGINE", "fp4")
    with pytest.raises(config.ConfigError, match=r"^moduli='29' is beyond the 28 moduli of "
                                                 r"OZBLAS_ENGINE='fp4'"):
        ozblas.matmul(a, a, moduli=29)
    with pytest.raises(config.ConfigError, match=r"^accuracy='correct' cannot be combined with "
                                                 r"OZBLAS_ENGINE='fp4'"):
        ozblas.matmul(a, a, accuracy="correct")
    assert np.array_equal(ozblas.matmul(a, a, accuracy="correct", engine="int8"), a @ a)
