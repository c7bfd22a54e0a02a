"""The policy, seen from Python: which way to compute C = op(A) op(B) is fastest on a machine.

The cost model, the built-in profiles and the calibration cache live in C
(native/src/core/policy_*.c), where method auto (ozblas_dgemm, the preload shim) uses them;
this module is a thin layer over it: `estimate` lists the candidates with their predicted
times, `choose` is method auto's decision, `explain` and `format_explain` say why (the
`ozblas explain` command, whose parser is in ozblas/cli.py).

Profiles: the datasheet ones (a100, h100, h200, h800, rtx4090, b200, and, with FP4 rates,
b200, b300 (third-party spec tables) and rtx_pro_6000 (the figures of Hayashi et al.'s 2026 FP4
paper)) hold published peaks multiplied by the efficiency this project measured on an H200
(`EFFICIENCY`; FP4 borrows INT8's: no FP4 unit was measured); `measured_h200` holds the H200
figures themselves, `cpu` the project's development machine; `local` is this machine as
`ozblas calibrate` measured it (ozblas.calibrate), or a built-in estimate until it has been run.
All times are seconds, all rates effective (what a GEMM or pass achieves).
"""

from __future__ import annotations

import json
import operator
import os
import sys
import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace

import numpy as np

from . import _constants, config
from ._native import ffi, lib, load

__all__ = ["Profile", "PROFILES", "EFFICIENCY", "estimate", "choose", "explain", "format_explain",
           "crossover", "load_profile", "set_local", "machine", "read_cache", "write_cache",
           "profile_info"]

_WHERE = {"cpu": "host", "cuda": "device"}  # a candidate's executor, as the model names it


@dataclass(frozen=True)
class Profile:
    """A machine as the cost model sees it (the C struct ozblas_profile, field for field).

    Rates are effective, not peaks: FLOP/s for the GEMMs (ZGEMM counted as 8mnk), OP/s for
    integer products, B/s for bandwidths, seconds for fixed costs. peak_* are the datasheet
    figures a built-in profile comes from (0 for measured ones)."""

    name: str
    description: str
    source: str
    host_name: str
    has_device: bool
    calibrated: bool
    host_dgemm: float
    host_zgemm: float
    cpu_int_gemm: float
    cpu_pass_bw: float
    cpu_call_s: float
    dev_dgemm: float = 0.0
    dev_zgemm: float = 0.0
    dev_int8: float = 0.0
    dev_mem_bw: float = 0.0
    h2d_bw: float = 0.0
    d2h_bw: float = 0.0
    h2d_pinned_bw: float = 0.0
    d2h_pinned_bw: float = 0.0
    dev_call_s: float = 0.0
    dev_emu_call_s: float = 0.0
    peak_fp64: float = 0.0
    peak_int8: float = 0.0
    peak_mem_bw: float = 0.0
    peak_link_bw: float = 0.0
    peak_host_fp64: float = 0.0
    dev_fp4: float = 0.0
    peak_fp4: float = 0.0

    @property
    def fp64(self) -> float | None:
        return self.dev_dgemm if self.has_device else None

    @property
    def int8(self) -> float | None:
        return self.dev_int8 if self.has_device else None

    @property
    def link_bw(self) -> float | None:
        """Host to device bandwidth as the executor's copies reach it."""
        return self.h2d_bw if self.has_device else None

    @property
    def fp64_int8_ratio(self) -> float | None:
        return self.dev_int8 / self.dev_dgemm if self.has_device else None

    def replace(self, **changes) -> "Profile":
        return replace(self, **changes)

    def as_dict(self) -> dict:
        d = asdict(self)
        d["fp64_int8_ratio"] = self.fp64_int8_ratio
        return d


_STR_FIELDS = ("name", "description", "source", "host_name")
_BOOL_FIELDS = ("has_device", "calibrated")


def _from_c(cp) -> Profile:
    kw = {}
    for f in fields(Profile):
        v = getattr(cp, f.name)
        if f.name in _STR_FIELDS:
            v = ffi.string(v).decode(errors="replace")
        elif f.name in _BOOL_FIELDS:
            v = bool(v)
        kw[f.name] = v
    return Profile(**kw)


def _to_c(p: Profile):
    load()
    cp = ffi.new("ozblas_profile *")
    for f in fields(Profile):
        v = getattr(p, f.name)
        if f.name in _STR_FIELDS:
            size = ffi.sizeof(ffi.typeof(getattr(cp, f.name)))
            v = str(v).encode()[:size - 1]
        elif f.name in _BOOL_FIELDS:
            v = int(v)
        setattr(cp, f.name, v)
    return cp


class _Builtins(Mapping):
    """The built-in profiles of the C library, read on first use (no library load at import)."""

    _d: dict | None = None

    def _load(self) -> dict:
        if self._d is None:
            load()
            cp = ffi.new("ozblas_profile *")
            d = {}
            for i in range(lib.ozblas_policy_builtin_count()):
                lib.ozblas_policy_builtin(i, cp)
                p = _from_c(cp)
                d[p.name] = p
            type(self)._d = d
        return self._d

    def __getitem__(self, name):
        return self._load()[name]

    def __iter__(self):
        return iter(self._load())

    def __len__(self):
        return len(self._load())


PROFILES: Mapping[str, Profile] = _Builtins()


class _Efficiency(Mapping):
    """Measured / datasheet peak on our H200, per resource: what turns a datasheet figure into
    a built-in profile's rate (derived from the h200 profile, so it is the C library's)."""

    def _d(self) -> dict:
        h = PROFILES["h200"]
        return {"fp64": h.dev_dgemm / h.peak_fp64, "int8": h.dev_int8 / h.peak_int8,
                "link": h.h2d_bw / h.peak_link_bw, "host": h.host_dgemm / h.peak_host_fp64}

    def __getitem__(self, k):
        return self._d()[k]

    def __iter__(self):
        return iter(self._d())

    def __len__(self):
        return 4


EFFICIENCY: Mapping[str, float] = _Efficiency()


def profile_names() -> tuple:
    return tuple(PROFILES) + ("local",)


# --------------------------------------------------------------------------------------------
# The local machine and its calibration cache
# --------------------------------------------------------------------------------------------
def machine() -> tuple[dict, str]:
    """This machine's identity (version, device, driver, host) and its cache file's path
    ("" when no cache directory is known)."""
    load()
    mid = ffi.new("ozblas_machine_id *")
    path = ffi.new("char[1024]")
    lib.ozblas_policy_machine(mid, path, 1024)
    ident = {k: ffi.string(getattr(mid, k)).decode(errors="replace")
             for k in ("version", "device", "driver", "host")}
    return ident, os.fsdecode(ffi.string(path))  # any bytes $XDG_CACHE_HOME holds


def _machine_c(ident: dict):
    mid = ffi.new("ozblas_machine_id *")
    for k, v in ident.items():
        size = ffi.sizeof(ffi.typeof(getattr(mid, k)))
        setattr(mid, k, str(v).encode()[:size - 1])
    return mid


def read_cache(path: str | None = None, ident: dict | None = None) -> tuple[Profile | None, str]:
    """(profile, "") for a valid cache of this machine, else (None, why). Read by the C
    library's reader, the one the dispatcher uses."""
    if path is None or ident is None:
        ident2, path2 = machine()
        ident, path = ident or ident2, path or path2
    cp = ffi.new("ozblas_profile *")
    why = ffi.new("char[512]")
    st = lib.ozblas_policy_cache_read(os.fsencode(str(path)), _machine_c(ident), cp, why, 512)
    if st != 0:
        return None, ffi.string(why).decode(errors="replace")
    return _from_c(cp), ""


def write_cache(profile: Profile, path: str | None = None, ident: dict | None = None) -> str:
    """Writes profile as this machine's calibration cache (by the C writer); returns the path."""
    if path is None or ident is None:
        ident2, path2 = machine()
        ident, path = ident or ident2, path or path2
    if not path:
        raise OSError("no cache directory: neither XDG_CACHE_HOME nor HOME is set")
    why = ffi.new("char[512]")
    if lib.ozblas_policy_cache_write(os.fsencode(str(path)), _machine_c(ident), _to_c(profile), why, 512):
        raise OSError(ffi.string(why).decode(errors="replace"))
    return str(path)


def set_local(profile: Profile | None) -> None:
    """Replace the profile method auto uses in this process (None: read the cache again)."""
    load()
    lib.ozblas_policy_set_local(ffi.NULL if profile is None else _to_c(profile))


def load_profile(device_name=None) -> tuple[Profile, str]:
    """The profile method auto uses here and a note on where it comes from: the calibration
    cache when valid, else a built-in estimate (a cache that had to be ignored is warned
    about). With device_name: the built-in estimate for such a device ("" for a host alone)."""
    load()
    cp = ffi.new("ozblas_profile *")
    note = ffi.new("char[3072]")
    if device_name is not None:
        lib.ozblas_policy_estimate_profile(str(device_name).encode(), cp, note, 3072)
        return _from_c(cp), ffi.string(note).decode(errors="replace")
    state = lib.ozblas_policy_local(cp, note, 3072)
    text = ffi.string(note).decode(errors="replace")
    if state < 0:
        warnings.warn(f"ozblas: {text}", RuntimeWarning, stacklevel=2)
    return _from_c(cp), text


# --------------------------------------------------------------------------------------------
# The cost model (C) and the choice
# --------------------------------------------------------------------------------------------
def _profile(profile) -> Profile:
    if isinstance(profile, Profile):
        return profile
    if profile is None or profile == "local":
        return load_profile()[0]
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; accepted: {', '.join(profile_names())}")
    return PROFILES[profile]


def _count(v, key) -> int:
    """0 (the planning count of automatic precision) for None/0/'auto', else the count as the
    keyword's parser reads it."""
    return 0 if v in (None, 0, "auto") else config.parse_keyword(key, v)


INT64_MAX = 2**63 - 1  # the C API's dimensions are int64_t


def check_dims(**dims) -> None:
    """Each dimension a positive integer the C API can hold, else a ValueError naming it."""
    for name, v in dims.items():
        try:
            i = operator.index(v)
        except TypeError:
            i = None
        if i is None or isinstance(v, (bool, np.bool_)) or not 1 <= i <= INT64_MAX:
            raise ValueError(f"{name}={v!r} is not valid; accepted: a positive integer up to "
                             "2^63 - 1")


def _check(m, n, k, dtype, where, p: Profile):
    check_dims(m=m, n=n, k=k)
    if dtype not in ("d", "z"):
        raise ValueError(f"dtype {dtype!r} is not valid; accepted: d, z")
    if where not in ("host", "device"):
        raise ValueError(f"where {where!r} is not valid; accepted: host, device")
    if where == "device" and not p.has_device:
        raise ValueError(f"where='device' needs a device; profile {p.name!r} is a host alone")


def _cand_dict(c) -> dict:
    method = _constants.METHODS[c.method]
    ex = _WHERE[_constants.EXECUTORS[c.executor]]
    scaling = _constants.SCALINGS[c.scaling] if method == "ozaki2" else None
    variant = _constants.VARIANTS[c.variant] if method == "ozaki1" else None
    engine = _constants.ENGINES[c.engine] if method != "native" else None
    if method == "native":
        name = f"native {ex}"
    else:
        name = (f"{method} {scaling or variant} {c.count}" + (" fp4" if engine == "fp4" else "")
                + (" (cpu executor)" if ex == "host" else ""))
    breakdown = {ffi.string(lib.ozblas_policy_part_name(i)).decode(): c.parts[i]
                 for i in range(lib.OZBLAS_PART_COUNT) if c.parts_used & (1 << i)}
    return {"name": name, "method": method, "executor": ex, "count": c.count or None,
            "scaling": scaling, "variant": variant, "engine": engine, "seconds": c.seconds,
            "tflops": c.flops / c.seconds / 1e12, "breakdown": breakdown,
            "meets_target": bool(c.meets_target), "note": None}


def estimate(m, n, k, dtype="d", where="host", profile="h200", moduli=None, slices=None) -> list[dict]:
    """Predicted time of every way to compute C (m x n) = op(A) (m x k) op(B) (k x n), beta = 0.

    dtype 'd' (DGEMM) or 'z' (ZGEMM); where the operands live, 'host' or 'device' (the other
    side pays transfers: A, B in, C out). moduli / slices: the counts to assume (None or
    'auto': the planning counts of automatic precision, per engine). Returns candidate dicts
    (name, method, executor, count, scaling, variant, engine, seconds, tflops, breakdown,
    meets_target, note) in the C model's order: native host first."""
    p = _profile(profile)
    _check(m, n, k, dtype, where, p)
    load()
    top = lib.OZBLAS_POLICY_MAX_CANDIDATES
    out = ffi.new(f"ozblas_candidate[{top}]")
    cnt = lib.ozblas_policy_estimate(_to_c(p), dtype == "z", m, n, k, where == "device",
                                     _count(moduli, "moduli"),
                                     _count(slices, "slices"), out, top)
    if cnt < 0:
        raise ValueError(f"the cost model rejected m={m} n={n} k={k} moduli={moduli} slices={slices}")
    return [_cand_dict(out[i]) for i in range(cnt)]


def _settings(moduli=None, slices=None, scaling=None, variant=None, engine=None) -> dict:
    """The options method auto decides with: the arguments given, else the OZBLAS_* settings."""
    env = config.from_env()
    return {"moduli": moduli if moduli is not None else env.moduli,
            "slices": slices if slices is not None else env.slices,
            "scaling": env.scaling if scaling is None else config.parse_keyword("scaling", scaling),
            "variant": env.variant if variant is None else config.parse_keyword("variant", variant),
            "engine": env.engine if engine is None else config.parse_keyword("engine", engine)}


def _executors(p: Profile, where: str) -> int:
    """The executors dispatch lets compete (the C library's one rule, ozblas_policy_executors):
    device data stays with the device's."""
    return lib.ozblas_policy_executors(lib.OZBLAS_EXECUTOR_AUTO, where == "device", p.has_device)


def choose(m, n, k, dtype="d", where="host", profile="h200", moduli=None, slices=None,
           scaling=None, variant=None, engine=None) -> dict:
    """Method auto's choice (ozblas_policy_decide): the fastest candidate meeting the target
    that dispatch could run, with the scaling, Ozaki I variant, engine and counts given, else
    those of the OZBLAS_* settings. A candidate dict."""
    p = _profile(profile)
    _check(m, n, k, dtype, where, p)
    s = _settings(moduli, slices, scaling, variant, engine)
    opt = config.options_struct({"moduli": _count(s["moduli"], "moduli"),
                                 "slices": _count(s["slices"], "slices"), "scaling": s["scaling"],
                                 "variant": s["variant"], "engine": s["engine"]})
    ch = ffi.new("ozblas_candidate *")
    st = lib.ozblas_policy_decide(_to_c(p), dtype == "z", m, n, k, where == "device",
                                  _executors(p, where), opt, ch)
    if st != 0:
        raise ValueError(f"no candidate qualifies for m={m} n={n} k={k} on profile {p.name}")
    return _cand_dict(ch[0])


def crossover(profile, dtype="d", where="device", lo=256, hi=65536, step=256):
    """Smallest square n (a multiple of `step` in [lo, hi]) from which method auto emulates at
    every larger n of the grid; None if it never does."""
    p = _profile(profile)
    if where == "device" and not p.has_device:
        return None
    first = None
    for nn in range(lo, hi + 1, step):
        emu = choose(nn, nn, nn, dtype, where, p)["method"] != "native"
        if emu and first is None:
            first = nn
        elif not emu:
            first = None
    return first


# --------------------------------------------------------------------------------------------
# explain
# --------------------------------------------------------------------------------------------
# The accuracy study (docs/accuracy.md, benchmarks/results/accuracy.json, m = n = 128): the
# fewest counts reaching DGEMM-level err_ab, per (k, phi); None: not reached up to 20. Used to
# explain a count in words, never by the cost model.
_PHIS = (0, 0.5, 1, 2, 4)
_FEWEST = {  # k: {phi: (II fast, II accurate, I bitmask, I rn, I ef, I hybrid)}
    1024: {0: (15, 15, 8, 8, 8, 8), 0.5: (15, 15, 9, 9, 9, 9), 1: (15, 14, 9, 9, 9, 9),
           2: (16, 16, 10, 10, 10, 10), 4: (19, 18, 11, 11, 11, 11)},
    16384: {0: (15, 15, 8, 8, 8, 8), 0.5: (15, 15, 9, 9, 9, 9), 1: (15, 15, 10, 9, 10, 9),
            2: (16, 16, 11, 10, 11, 10), 4: (None, None, 13, 13, 13, 13)},
}


def _reach(count: int, column: int) -> str:
    """'up to phi = X' for the largest phi whose inputs the count served at both k studied."""
    best = None
    for phi in _PHIS:
        if all(_FEWEST[k][phi][column] is not None and count >= _FEWEST[k][phi][column]
               for k in _FEWEST):
            best = phi
        else:
            break
    return "for none of the study's inputs (phi >= 0)" if best is None else f"up to phi = {best:g}"


def _accuracy_reasons(s: dict) -> list[str]:
    plan_m, plan_s = lib.ozblas_policy_planning_moduli(), lib.ozblas_policy_planning_slices()
    col_ii = 1 if s["scaling"] == "accurate" else 0
    col_i = 2 + _constants.VARIANTS.index(s["variant"])
    out = ["accuracy target: DGEMM-level, err_ab = max |C - C_exact| / (|A||B|) no larger than "
           "native DGEMM's on the same inputs (docs/accuracy.md)"]
    nm = _count(s["moduli"], "moduli")
    if nm == 0:
        out.append(f"Ozaki II, OZBLAS_MODULI=auto: the count is chosen per call from the inputs' "
                   f"scaling data; the model plans with {plan_m} moduli, which reach the target "
                   f"{_reach(plan_m, col_ii)} in the accuracy study; the per-call bound takes "
                   "15-16 at phi <= 0.5, 16-17 at phi = 1, 17-19 at phi = 2, 20-23 at phi = 4 and "
                   "26-32 at phi = 8 (m = n = 128, k = 1024 and 16384), so such calls may cost more "
                   "than predicted; method auto caps the count at the largest the model still "
                   "predicts faster than native, and a call that no count up to the cap serves is "
                   "split by exponent band where the parts are predicted faster than native, "
                   "computed natively otherwise (docs/accuracy.md)")
    else:
        out.append(f"Ozaki II with {nm} moduli ({s['scaling']} scaling): reaches the target "
                   f"{_reach(nm, col_ii)} in the accuracy study; a count set by OZBLAS_MODULI or "
                   "the caller is taken as meeting the target")
    ns = _count(s["slices"], "slices")
    if ns == 0:
        out.append(f"Ozaki I, OZBLAS_SLICES=auto: the model plans with {plan_s} slices, which reach "
                   f"the target {_reach(plan_s, col_i)} ({s['variant']}); the per-call bound takes "
                   "9-12 slices for phi <= 2 and about 14 at phi = 4 (hybrid, 40 x 1024 x 36), under "
                   "the same cap and splitting as Ozaki II")
    else:
        out.append(f"Ozaki I with {ns} slices ({s['variant']}): reaches the target "
                   f"{_reach(ns, col_i)} in the accuracy study; a set count is taken as meeting it")
    out.append(f"method auto uses the {s['scaling']} scaling (OZBLAS_SCALING), the {s['variant']} "
               f"variant (OZBLAS_OZAKI1_VARIANT) and the {s['engine']} engine (OZBLAS_ENGINE); "
               "other rows are shown for comparison")
    return out


def _complex_reason(s: dict) -> str:
    """How a complex call's integer products are counted (ozaki2_table.c oz2_table_call)."""
    nm = _count(s["moduli"], "moduli") or lib.ozblas_policy_planning_moduli()
    if s["engine"] != "int8":
        return (f"complex on {s['engine']}: Karatsuba, 3 integer products per modulus (the "
                "two-product complex set, moduli 1 (mod 4), is INT8's)")
    cnt = lib.ozblas_ozaki2_complex_count(lib.OZBLAS_ENGINE_INT8, nm)
    if cnt:
        return (f"complex: the bits of {nm} moduli take {cnt} moduli 1 (mod 4), 2 integer "
                f"products each ({2 * cnt} products, against Karatsuba's {3 * nm})")
    return (f"complex: {nm} moduli need more bits than the 22 moduli 1 (mod 4) hold: Karatsuba, "
            f"3 integer products per modulus ({3 * nm} products)")


def _fp4_limb_products(moduli: int) -> int:
    """Limb products of one real Ozaki II product with that many FP4 moduli."""
    return sum(lib.ozblas_ozaki2_engine_limbs(lib.OZBLAS_ENGINE_FP4, t) ** 2 for t in range(moduli))


def _engine_reasons(p: Profile, s: dict, cands: list, best: dict) -> list[str]:
    """Why the FP4 candidates win or lose against INT8 (none without an FP4 rate)."""
    fp4 = [c for c in cands if c["engine"] == "fp4" and c["meets_target"]
           and not (c["note"] or "").startswith("not for device data")
           and (c["method"] != "ozaki2" or c["scaling"] == s["scaling"])
           and (c["method"] != "ozaki1" or c["variant"] == s["variant"])]
    if not fp4 or not p.has_device:
        return []
    f = min(fp4, key=lambda c: c["seconds"])
    o2 = next((c for c in fp4 if c["method"] == "ozaki2"), None)
    out = []
    if o2:
        lp = _fp4_limb_products(o2["count"])
        n8 = next((c["count"] for c in cands if c["method"] == "ozaki2" and c["engine"] == "int8"),
                  lib.ozblas_policy_planning_moduli())
        out.append(f"engine fp4: Ozaki II with {o2['count']} FP4 moduli issues {lp} limb products "
                   f"per product against INT8's {n8} (1 per modulus), so FP4 pays off where its rate "
                   f"exceeds {lp / n8:.2f}x INT8's: here {p.dev_fp4 / p.dev_int8:.3g}x")
    if s["engine"] == "fp4":
        if best["engine"] == "fp4":
            out.append(f"OZBLAS_ENGINE=fp4: {best['name']} is the fastest FP4 candidate "
                       "(the CUDA executor runs it only where the device passes the FP4 probe; "
                       "elsewhere the call falls back with the reason)")
    elif f["seconds"] < best["seconds"]:
        out.append(f"the fastest FP4 candidate, {f['name']}, would take {_fmt_s(f['seconds'])} ms, "
                   f"{best['seconds'] / f['seconds']:.2f}x faster than the choice: set "
                   "OZBLAS_ENGINE=fp4 (on a cc 10.x/12.x device that passes the FP4 probe)")
    else:
        out.append(f"the fastest FP4 candidate, {f['name']}, would take "
                   f"{f['seconds'] / best['seconds']:.2f}x as long as the choice")
    return out


def explain(m, n, k, dtype="d", where="host", profile=None, moduli=None, slices=None,
            scaling=None, variant=None, engine=None) -> dict:
    """Plain dict: the profile, the candidates with predicted times, the choice and why.

    profile None or 'local': this machine (calibrated, or the built-in estimate, said in
    profile_note). Counts, scaling, variant and engine default to the OZBLAS_* settings, as
    for method auto."""
    if profile is None or profile == "local":
        p, note = load_profile()
    else:
        p, note = _profile(profile), None
    _check(m, n, k, dtype, where, p)
    s = _settings(moduli, slices, scaling, variant, engine)
    cands = estimate(m, n, k, dtype, where, p, s["moduli"], s["slices"])
    best = choose(m, n, k, dtype, where, p, s["moduli"], s["slices"], s["scaling"], s["variant"],
                  s["engine"])
    for c in cands:
        if c["executor"] == "host" and where == "device":
            c["note"] = "not for device data (dispatch keeps it on the device)"
        elif c["engine"] not in (None, s["engine"]):
            c["note"] = f"engine {c['engine']}: set OZBLAS_ENGINE={c['engine']} to allow"
        elif c["method"] == "ozaki2" and c["scaling"] != s["scaling"]:
            c["note"] = f"scaling {c['scaling']}: set OZBLAS_SCALING={c['scaling']} to allow"
        elif c["method"] == "ozaki1" and c["variant"] != s["variant"]:
            c["note"] = f"set OZBLAS_OZAKI1_VARIANT={c['variant']} to allow"
        elif not c["meets_target"]:
            c["note"] = "k beyond the method's bounds (it would fall back to native)"
    cands.sort(key=lambda c: c["seconds"])
    eligible = [c for c in cands if c["note"] is None]
    reasons = [f"profile {p.name}: {p.description} ({p.source})"]
    if note:
        reasons.append(note)
    if p.has_device:
        fp4 = (f", FP4 {p.dev_fp4 / 1e12:.4g} TFLOPS: FP64:FP4 = 1:{p.dev_fp4 / p.dev_dgemm:.0f}"
               if p.dev_fp4 > 0 else ", no FP4 engine")
        reasons.append(f"device FP64 {p.dev_dgemm / 1e12:.3g} TFLOPS, INT8 {p.dev_int8 / 1e12:.4g} "
                       f"TOPS (effective): FP64:INT8 = 1:{p.fp64_int8_ratio:.0f}{fp4}")
    reasons += _accuracy_reasons(s)
    if dtype == "z":
        reasons.append(_complex_reason(s))
    if where == "host" and p.has_device:
        t = next(c for c in cands if c["executor"] == "device")["breakdown"]["transfers"]
        reasons.append(f"data on the host: device candidates pay {t * 1e3:.3g} ms of transfers")
    elif where == "device":
        t = next(c for c in cands if c["executor"] == "host")["breakdown"]["transfers"]
        reasons.append(f"data on the device: a host candidate would pay {t * 1e3:.3g} ms of transfers")
    if best["method"] == "native":
        emu = [c for c in eligible if c["method"] != "native"]
        if emu:
            reasons.append(f"{best['name']} is fastest; the best emulation ({emu[0]['name']}) would "
                           f"take {emu[0]['seconds'] / best['seconds']:.2f}x as long")
        else:
            reasons.append(f"{best['name']} is fastest")
    else:
        nat = next(c for c in eligible if c["method"] == "native")
        reasons.append(f"{best['name']} is fastest: {nat['seconds'] / best['seconds']:.2f}x faster "
                       f"than {nat['name']}")
    reasons += _engine_reasons(p, s, cands, best)
    accuracy = config.from_env().accuracy
    if accuracy == "correct":
        reasons.append("OZBLAS_ACCURACY=correct: every call is an exact product on the host "
                       "(Ozaki II over the host DGEMM, rounded once), whatever the choice above; "
                       "the cost model does not price it (benchmarks/dd_speed.py measures it)")
    return {
        "profile": p.as_dict(),
        "profile_note": note,
        "accuracy": accuracy,
        "problem": {"m": m, "n": n, "k": k, "dtype": dtype, "where": where},
        "settings": s,
        "candidates": cands,
        "choice": best["name"],
        "method": best["method"],
        "reasons": reasons,
    }


def _fmt_s(s: float) -> str:
    return f"{s * 1e3:.3f}" if s < 1 else f"{s * 1e3:.0f}"


def format_explain(d: dict) -> str:
    """`explain`'s dict as a text table."""
    pb = d["problem"]
    head = (f"C = A B, m={pb['m']} n={pb['n']} k={pb['k']}, {'ZGEMM' if pb['dtype'] == 'z' else 'DGEMM'}, "
            f"data on the {pb['where']}; profile {d['profile']['name']}")
    rows = []
    for c in d["candidates"]:
        main = max((v, kk) for kk, v in c["breakdown"].items())[1]
        rows.append([("* " if c["name"] == d["choice"] else "  ") + c["name"], c["executor"],
                     _fmt_s(c["seconds"]), f"{c['tflops']:.3g}", main, c["note"] or ""])
    headers = ["  candidate", "where", "ms", "TFLOPS", "largest part", "note"]
    cells = [headers] + rows
    w = [max(len(str(r[i])) for r in cells) for i in range(len(headers))]
    fmt = lambda r: "  ".join(str(x).rjust(w[i]) if i in (2, 3) else str(x).ljust(w[i])
                              for i, x in enumerate(r)).rstrip()
    lines = [head, "", fmt(headers), fmt(["-" * x for x in w])] + [fmt(r) for r in rows]
    lines += ["", f"choice: {d['choice']}"] + [f"  - {r}" for r in d["reasons"]]
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# ozblas info's policy section
# --------------------------------------------------------------------------------------------
def crossovers(p: Profile) -> dict:
    """{'d host': n or None, ...}: where method auto starts emulating square products."""
    out = {}
    for dt in ("d", "z"):
        for where in ("host", "device") if p.has_device else ("host",):
            out[f"{dt} {where}"] = crossover(p, dt, where)
    return out


def profile_info() -> dict:
    """This machine's profile for `ozblas info`: where it comes from, its rates, the FP64:INT8
    ratio and the crossovers."""
    p, note = load_profile()
    ident, path = machine()
    return {"machine": ident, "cache": path or None, "calibrated": p.calibrated, "note": note,
            "profile": p.as_dict(), "crossover": crossovers(p)}


def _crossover_table() -> str:  # python -m ozblas.policy: the crossover per profile
    rows = []
    for name, p in PROFILES.items():
        r = [name, f"1:{p.fp64_int8_ratio:.0f}" if p.has_device else "-"]
        for dt in ("d", "z"):
            for where in ("device", "host"):
                x = crossover(p, dt, where) if p.has_device else None
                r.append("never" if x is None else str(x))
        rows.append(r)
    headers = ["profile", "FP64:INT8", "d device", "d host", "z device", "z host"]
    cells = [headers] + rows
    w = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    return "\n".join("  ".join(x.ljust(w[i]) for i, x in enumerate(r)) for r in cells)


if __name__ == "__main__":
    print("smallest square n from which method auto emulates (n <= 65536, step 256)")
    print(_crossover_table())
