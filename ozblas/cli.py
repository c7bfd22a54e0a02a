"""The `ozblas` command (also `python -m ozblas`): info, demo, run, libpath, explain, calibrate,
bench."""

from __future__ import annotations

import argparse
import json
import os
import sys

from . import api, config

__all__ = ["main"]


def _table(headers: list[str], rows: list[list]) -> str:
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    fmt = lambda r: "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths)))
    return "\n".join([fmt(cells[0]), fmt(["-" * w for w in widths])] + [fmt(r) for r in cells[1:]])


def _shown(v) -> str:
    """A value for the terminal: bytes of a path that are not UTF-8 as \\xNN."""
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


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="ozblas", description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    pi = sub.add_parser("info", help="executors, host BLAS, configuration")
    pi.add_argument("--json", action="store_true")
    pd = sub.add_parser("demo", help="an unmodified NumPy/SciPy script, native and under the shim: "
                        "what was routed, time, accuracy against the exact products")
    pd.add_argument("--method", type=config.argparse_type("OZBLAS_METHOD", "--method"),
                    help="OZBLAS_METHOD for the shimmed run (default: auto with a GPU, ozaki2 without)")
    pd.add_argument("--moduli", type=config.argparse_type("OZBLAS_MODULI", "--moduli"),
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
        from .shim import cmd_run

        return cmd_run(argv[1:])
    if argv[:1] == ["libpath"]:
        from .shim import cmd_libpath

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
        from .policy import main_explain

        return main_explain(args.rest)
    if args.cmd == "calibrate":
        from .calibrate import main as main_calibrate

        return main_calibrate(args.rest)
    return {"info": cmd_info, "demo": cmd_demo, "bench": cmd_bench}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
