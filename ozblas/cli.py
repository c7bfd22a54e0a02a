"""The `ozblas` command (also `python -m ozblas`): info, demo, run, libpath, explain, calibrate,
bench. Every command's argument parser is here (the modules they call take plain values)."""

from __future__ import annotations

import argparse
import json
import os
import sys

from . import api, config

__all__ = ["main", "cmd_run", "cmd_libpath", "cmd_explain", "cmd_calibrate"]


def _option_type(name: str, label: str):
    """An argparse ``type=`` that checks an option with the variable's parser."""

    def check(text):
        config.parse(name, text, label)
        return text

    check.__name__ = label
    return check


def _table(headers: list[str], rows: list[list]) -> str:
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    fmt = lambda r: "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths)))
    return "\n".join([fmt(cells[0]), fmt(["-" * w for w in widths])] + [fmt(r) for r in cells[1:]])


def _shown(v) -> str:
    """A value for the terminal: bytes of a path that are not UTF-8 as \\xNN; the routines
    (api.info's routed and native lists) as the shorter side."""
    if isinstance(v, dict) and "native" in v:
        return ("all" if not v["native"] else "none" if not v["routed"]
                else "all but " + " ".join(v["native"]) if len(v["native"]) <= len(v["routed"])
                else "only " + " ".join(v["routed"]))
    return os.fsencode(v).decode("utf-8", "backslashreplace") if isinstance(v, str) else str(v)


def _policy_lines(pol: dict) -> list[str]:
    """The policy's view of this machine: where its profile comes from, the rates, the
    FP64:INT8 ratio and the crossovers."""
    from .calibrate import rate_lines
    from .policy import Profile

    p = Profile(**{k: v for k, v in pol["profile"].items() if k != "fp64_int8_ratio"})
    m = pol["machine"]
    out = [f"policy     device {m['device']} (driver {m['driver']}), host {m['host']}"]
    if pol["calibrated"]:
        out.append(f"           {pol['note']}; rates:")
        out += rate_lines(p)
    else:
        out.append(f"           {pol['note']}")
        out.append(f"           not calibrated: method auto uses the built-in estimate "
                   f"{p.name}'s figures:")
        out += rate_lines(p)
    xo = ", ".join(f"{k.replace('d ', 'DGEMM ').replace('z ', 'ZGEMM ')} data: "
                   f"{'never' if v is None else f'n >= {v}'}" for k, v in pol["crossover"].items())
    out.append(f"  {'auto emulates square products':<33} {xo}")
    return out


def _install_lines(b: dict, drv: dict) -> list[str]:
    """What was compiled (fixed at build time), then what this machine offers now."""
    if b["cuda"]:
        cuda = (f"CUDA executor for {' '.join(b['cuda_architectures'])}, CUDA {b['cuda_toolkit']} "
                f"from {b['cuda_toolkit_source']} ({b['nvcc']})")
    else:
        cuda = f"no CUDA executor ({b['cuda_note']})"
    arch = ", -march=native" if b["native_arch"] else ""
    out = [f"built      {cuda}; C: {b['c_compiler']}{arch}"]
    if drv["version"] is None:
        out.append(f"driver     {drv['error']}")
    else:
        devs = ", ".join(f"{x['index']}: {x['name']} (cc {x['compute_capability']})" for x in drv["devices"])
        out.append(f"driver     CUDA {drv['version']}; " + (devs or drv["error"] or "no device"))
    return out


def cmd_info(args) -> int:
    from .policy import profile_info

    d = api.info()
    try:
        d["policy"] = profile_info()
    except Exception as e:  # info must work on a broken setup; say why the policy is missing
        d["policy"] = {"error": f"{type(e).__name__}: {e}"}
    bad = 2 if d["config_error"] else 0  # as every other command refuses it
    if args.json:
        print(json.dumps(d, indent=2))
        return bad
    print(f"ozblas {d['version']}")
    print(f"library    {d['library']}")
    print("\n".join(_install_lines(d["build"], d["driver"])))
    print(f"host BLAS  {d['host_blas'] or 'none found'}")
    print(f"CUDA       {d['cuda']}")
    cx = d["complex"]
    print(f"complex    {cx['algorithm']}: {len(cx['moduli'])} moduli, for counts up to "
          f"{max(cx['counts'])} (ZGEMM int_gemms: 2 per modulus taken)")
    rows = [[name, "yes" if e["available"] else "no", e["reason"] or ""] for name, e in d["executors"].items()]
    print(_table(["executor", "available", "reason"], rows))
    if d["config_error"]:
        print(f"configuration error: {d['config_error']}")
        print(f"ozblas: {d['config_error']}", file=sys.stderr)
    else:
        print("configuration: " + ", ".join(f"{k}={_shown(v)}" for k, v in d["config"].items()))
    if "error" in d["policy"]:
        print(f"policy     unavailable: {d['policy']['error']}")
    else:
        print("\n".join(_policy_lines(d["policy"])))
    return bad


def cmd_demo(args) -> int:
    from .demo import run_demo

    return run_demo(method=args.method, moduli=args.moduli)


def cmd_bench(args) -> int:
    """Runs a study from the source tree's benchmarks/ (present in a source checkout)."""
    import runpy
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "benchmarks" / f"{args.study.replace('-', '_')}.py"
    if not script.exists():
        print(f"ozblas: {script} not found; the benchmarks ship with the source tree, not the wheel",
              file=sys.stderr)
        return 2
    sys.argv = [str(script)] + args.rest
    runpy.run_path(str(script), run_name="__main__")
    return 0


def cmd_run(argv) -> int:
    """`ozblas run [options] -- CMD ...`: execs CMD with the preload shim (ozblas/shim.py;
    returns only on an error)."""
    from .shim import preload_env

    p = argparse.ArgumentParser(
        prog="ozblas run",
        description="Run CMD with its DGEMM/ZGEMM/SYRK/HERK calls routed through ozblas "
                    "(the preload shim).")
    p.add_argument("--method", help="OZBLAS_METHOD: " + config.variable("OZBLAS_METHOD").accepted)
    p.add_argument("--moduli", help="OZBLAS_MODULI: " + config.variable("OZBLAS_MODULI").accepted)
    p.add_argument("--min-size", dest="min_size",
                   help="OZBLAS_MIN_SIZE: route when min(m, n, k) >= this (0: everything)")
    p.add_argument("--device", help="OZBLAS_DEVICE: " + config.variable("OZBLAS_DEVICE").accepted)
    p.add_argument("--routines", help="OZBLAS_ROUTINES: " + config.variable("OZBLAS_ROUTINES").accepted)
    p.add_argument("--trace", metavar="FILE|-", help="OZBLAS_TRACE: one line per BLAS call")
    p.add_argument("--summary", nargs="?", const=True, metavar="FILE",
                   help="OZBLAS_SUMMARY=1: the call counts per routine and route at exit, on "
                        "stderr or appended to FILE (OZBLAS_SUMMARY_FILE; %%r: the rank)")
    p.add_argument("cmd", nargs=argparse.REMAINDER, help="-- CMD ARGS...")
    args = p.parse_args(list(argv))
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        print("ozblas run: no command given (ozblas run [options] -- CMD ...)", file=sys.stderr)
        return 2
    try:
        env = preload_env(method=args.method, moduli=args.moduli, min_size=args.min_size,
                          trace=args.trace, device=args.device, summary=args.summary,
                          routines=args.routines)
    except config.ConfigError as e:
        print(f"ozblas: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # the library is not built
        print(f"ozblas: {e}", file=sys.stderr)
        return 1
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execvpe(cmd[0], cmd, env)
    except OSError as e:
        print(f"ozblas run: cannot run {cmd[0]!r}: {e.strerror}", file=sys.stderr)
        return 127
    return 0  # not reached


def cmd_libpath(argv=()) -> int:
    """`ozblas libpath`: print the preload library's path (for LD_PRELOAD=...); it takes no
    arguments (any is refused with status 2)."""
    from .shim import library_path

    argparse.ArgumentParser(prog="ozblas libpath",
                            description="Print the path of libozblas_preload.so.").parse_args(list(argv))
    try:
        print(library_path())
    except Exception as e:
        print(f"ozblas: {e}", file=sys.stderr)
        return 1
    return 0


def _explain_lapack(argv) -> int:
    """`ozblas explain getrf|potrf|sytrf|syevd|syevr|gesdd|gelsd|geev|gees N [--dtype d|z]
    [--profile NAME] [--nb NB] [--m M] [--nrhs K] [--json]`: the LAPACK layer's
    (ozblas.lapack.explain)."""
    from . import lapack, policy

    ap = argparse.ArgumentParser(prog=f"ozblas explain {argv[0]}",
                                 description="What the LAPACK layer would do with an N x N factorization.")
    ap.add_argument("n", type=int)
    ap.add_argument("--dtype", choices=["d", "z"], default="d")
    ap.add_argument("--profile", default="local", choices=policy.profile_names())
    ap.add_argument("--nb", type=int, default=None)
    ap.add_argument("--m", type=int, default=None, help="gesdd, gelsd: rows (m >= N; default N)")
    ap.add_argument("--nrhs", type=int, default=None, help="gelsd: right-hand sides (default N/2)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv[1:])
    try:
        d = lapack.explain(argv[0], a.n, a.dtype, a.profile, a.nb, a.m, a.nrhs)
    except ValueError as e:
        ap.error(str(e))
    print(json.dumps(d, indent=2) if a.json else lapack.format_explain(d))
    return 0


def cmd_explain(argv=None) -> int:
    """`ozblas explain M N K [--dtype d|z] [--where host|device] [--profile NAME]
    [--engine int8|fp4] [--json]` (ozblas.policy.explain); `ozblas explain getrf|potrf|sytrf
    N ...` is the LAPACK layer's."""
    from . import _constants, policy
    from .lapack import EXPLAINED

    argv = list(argv or [])
    if argv and argv[0] in EXPLAINED:
        return _explain_lapack(argv)
    ap = argparse.ArgumentParser(
        prog="ozblas explain",
        description="Predicted time of each way to compute an M x N x K product, and the choice "
                    "method auto makes.")
    ap.add_argument("m", type=int)
    ap.add_argument("n", type=int)
    ap.add_argument("k", type=int)
    ap.add_argument("--dtype", choices=["d", "z"], default="d")
    ap.add_argument("--where", choices=["host", "device"], default="host",
                    help="where the operands live (default host)")
    ap.add_argument("--profile", default="local",
                    help=f"device profile: {', '.join(policy.profile_names())} (default local: "
                         "this machine, calibrated by `ozblas calibrate`)")
    ap.add_argument("--engine", choices=list(_constants.ENGINES),
                    help="the product engine method auto may use (default OZBLAS_ENGINE)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if a.profile not in policy.profile_names():
        ap.error(f"unknown profile {a.profile!r}; accepted: {', '.join(policy.profile_names())}")
    try:
        d = policy.explain(a.m, a.n, a.k, a.dtype, a.where, a.profile, engine=a.engine)
    except ValueError as e:
        ap.error(str(e))
    print(json.dumps(d, indent=2) if a.json else policy.format_explain(d))
    return 0


def cmd_calibrate(argv=None) -> int:
    """`ozblas calibrate [--force] [--quick] [--json]` (ozblas.calibrate.calibrate)."""
    from .calibrate import CalibrationError, calibrate, rate_lines

    ap = argparse.ArgumentParser(prog="ozblas calibrate",
                                 description="Measure this machine's rates for method auto and "
                                             "cache them (docs/policy.md, \"Calibration cache\").")
    ap.add_argument("--force", action="store_true", help="measure even if a valid cache exists")
    ap.add_argument("--quick", action="store_true",
                    help="smaller sizes and fewer repeats: rougher, well under a second on a CPU")
    ap.add_argument("--json", action="store_true", help="print the profile as JSON")
    a = ap.parse_args(argv)
    try:
        p, path, details = calibrate(a.force, a.quick, progress=not a.json)
    except (CalibrationError, OSError) as e:
        print(f"ozblas calibrate: {e}", file=sys.stderr)
        return 1
    if a.json:
        print(json.dumps({"path": path, "measured": details is not None, "profile": p.as_dict(),
                          "details": details}, indent=2, default=str))
        return 0
    if details is None:
        print(f"already calibrated: {path} ({p.source}); --force measures again")
    elif path:
        print(f"calibrated in {details['seconds']:.1f} s{' (quick)' if a.quick else ''}; written to {path}")
    else:
        print("calibrated, but not cached: no cache directory (set HOME or XDG_CACHE_HOME)")
    print("\n".join(rate_lines(p)))
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="ozblas", description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    pi = sub.add_parser("info", help="executors, host BLAS, configuration")
    pi.add_argument("--json", action="store_true")
    pd = sub.add_parser("demo", help="an unmodified NumPy/SciPy script, native and under the shim: "
                        "what was routed, time, accuracy against the exact products")
    pd.add_argument("--method", type=_option_type("OZBLAS_METHOD", "--method"),
                    help="OZBLAS_METHOD for the shimmed run (default: auto with a GPU, ozaki2 without)")
    pd.add_argument("--moduli", type=_option_type("OZBLAS_MODULI", "--moduli"),
                    help="OZBLAS_MODULI for the shimmed run")
    pe = sub.add_parser("explain", help="what the cost model would do with a product, and why",
                        add_help=False)
    pe.add_argument("rest", nargs=argparse.REMAINDER)
    pc = sub.add_parser("calibrate", help="measure this machine's rates for method auto and cache them",
                        add_help=False)
    pc.add_argument("rest", nargs=argparse.REMAINDER)
    pb = sub.add_parser("bench", help="run a study from benchmarks/ (accuracy, cpu-speed)")
    pb.add_argument("study", choices=["accuracy", "cpu-speed"])
    pb.add_argument("rest", nargs=argparse.REMAINDER, help="arguments passed to the study")
    p.add_argument_group("more commands", "run [--method M] [--moduli N] [--trace FILE|-] [--summary[=FILE]] -- CMD ...: "
                         "CMD with its BLAS calls routed (preload shim); libpath: the shim's path")
    argv = sys.argv[1:] if argv is None else list(argv)
    # these parse their own arguments (so that `ozblas run -- cmd --help` reaches cmd)
    if argv[:1] == ["run"]:
        return cmd_run(argv[1:])
    if argv[:1] == ["libpath"]:
        return cmd_libpath(argv[1:])
    if argv[:1] in (["explain"], ["calibrate"]):
        args = argparse.Namespace(cmd=argv[0], rest=argv[1:])
    else:
        args = p.parse_args(argv)
    if args.cmd == "info":  # shows a bad configuration among the rest (and exits 2)
        return cmd_info(args)
    try:
        config.from_env()
    except config.ConfigError as e:
        print(f"ozblas: {e}", file=sys.stderr)
        return 2
    if args.cmd == "explain":  # its own parser, so that `ozblas explain --help` reaches it
        return cmd_explain(args.rest)
    if args.cmd == "calibrate":
        return cmd_calibrate(args.rest)
    return {"info": cmd_info, "demo": cmd_demo, "bench": cmd_bench}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
