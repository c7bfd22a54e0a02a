"""The bulge chase's time by band width (lapack_band.c, lapack_svd.c's gb2bd): syevd and gesdd
(jobz S) with method native, one thread, nb = each of --bands (the band the model then takes,
at most nb, is printed beside it), the report's chase_seconds, best of --repeats. The data
lapack_model.c's CHASE_EFF and CHASE_STEP_S are fitted to (docs/lapack-eigen.md "What stays on
the host"). On a shared machine, run it under a preload that maps CLOCK_MONOTONIC to the
calling thread's CPU time (the report's clock; one thread runs the whole chase): wall time
counts the other jobs. Writes chase_bands_TAG.json.
"""

from __future__ import annotations

import argparse

import numpy as np
from threadpoolctl import threadpool_limits

from _common import machine, write_json
from ozblas import lapack as L
from ozblas.testing import standard_normal


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048])
    p.add_argument("--bands", type=int, nargs="+", default=[16, 32, 64, 128])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--tag", default="run")
    args = p.parse_args(argv)
    rows = []
    with threadpool_limits(1):
        for n in args.sizes:
            a = np.asfortranarray(standard_normal(np.random.default_rng(n), (n, n)))
            h = np.asfortranarray((a + a.T) / 2)
            for nb in args.bands:
                for routine in ("syevd", "gesdd"):
                    kw = dict(method="native", threads=1, executor="cpu", nb=nb)
                    times = []
                    for _ in range(args.repeats):
                        L.syevd(h, **kw) if routine == "syevd" else L.gesdd(a, full_matrices=0, **kw)
                        times.append(L.last_report()["host_parts"]["chase"])
                    row = {"routine": "d" + routine, "n": n, "nb": nb, "band": L.last_report()["band"],
                           "chase_s": min(times)}
                    rows.append(row)
                    print(routine, n, row["band"], f"{row['chase_s']:.4f}", flush=True)
    print("wrote", write_json(f"chase_bands_{args.tag}.json", {"machine": machine(), "threads": 1,
                                                                 "results": rows}))


if __name__ == "__main__":
    main()
