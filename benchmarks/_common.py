"""Shared helpers for the benchmark scripts: machine description, JSON output."""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).parent, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return os.environ.get("OZBLAS_COMMIT", "unknown")


def machine() -> dict:
    import numpy as np

    try:
        from threadpoolctl import threadpool_info

        blas = [{k: d.get(k) for k in ("internal_api", "version", "architecture", "num_threads")}
                for d in threadpool_info() if d.get("user_api") == "blas"]
    except ImportError:
        blas = None
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "commit": commit(),
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "numpy": np.__version__,
        "host_blas": blas,
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
    }


def write_json(name: str, data: dict, out: Path | None = None) -> Path:
    out = Path(out) if out else RESULTS
    out.mkdir(parents=True, exist_ok=True)
    path = out / name
    path.write_text(json.dumps(data, indent=2))
    return path


def table(headers, rows) -> str:
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    w = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    line = lambda r: "  ".join(c.rjust(x) for c, x in zip(r, w))
    return "\n".join([line(cells[0]), line(["-" * x for x in w])] + [line(r) for r in cells[1:]])


def speed_parser(doc):
    """The options of the fixed-count speed comparisons (zgemm_speed.py, zherk_speed.py)."""
    import argparse

    p = argparse.ArgumentParser(description=doc)
    p.add_argument("--sizes", type=int, nargs="+", default=[1024])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--moduli", type=int, default=14)
    p.add_argument("--scaling", default="fast")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--label", default="after")
    return p
