"""A dask.array product with its block GEMMs run by ozblas in every Dask worker.

    python -m ozblas.examples.dask_matmul                     # a LocalCluster of 2 worker processes
    python -m ozblas.examples.dask_matmul tcp://host:8786     # an existing scheduler

The workers need ozblas installed (the same version). Without a GPU method auto keeps every
call native, so this forces Ozaki II (`--method`, `--moduli` to choose). It prints what each
worker routed and the accuracy of the native and the ozblas computation of the same graph
against the exact product (`ozblas.testing.exact_matmul`).
"""

import argparse
import time


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("scheduler", nargs="?", help="scheduler address (default: a LocalCluster)")
    p.add_argument("--n", type=int, default=1024, help="the matrices are n x n (default 1024)")
    p.add_argument("--chunk", type=int, default=256, help="block size (default 256)")
    p.add_argument("--method", default="ozaki2")
    p.add_argument("--moduli", default="auto")
    args = p.parse_args(argv)

    import dask.array as da
    from distributed import Client, LocalCluster

    import ozblas.dask
    from ozblas.testing import err_ab, exact_matmul, make_matrix

    cluster = None if args.scheduler else LocalCluster(n_workers=2, threads_per_worker=1,
                                                       dashboard_address=None)
    with Client(args.scheduler or cluster) as client:
        a, b = make_matrix(args.n, args.n, 1.0, seed=1), make_matrix(args.n, args.n, 1.0, seed=2)
        x, y = da.from_array(a, chunks=args.chunk), da.from_array(b, chunks=args.chunk)
        t = time.perf_counter()
        native = (x @ y).compute()
        t_native = time.perf_counter() - t
        client.register_plugin(ozblas.dask.Activate(method=args.method, moduli=args.moduli,
                                                    min_size=0))
        t = time.perf_counter()
        routed = (x @ y).compute()
        t_routed = time.perf_counter() - t
        for worker, s in sorted(ozblas.dask.stats(client).items()):
            tot = s["total"]
            print(f"{worker}: {tot['calls']} GEMM calls, {tot['ozblas']} emulated, "
                  f"{tot['fallback']} fell back, {tot['native']} native")
        exact = exact_matmul(a, b)
        print(f"native dask: err_ab {err_ab(native, exact, a, b):.2e}, {t_native:.2f} s")
        print(f"ozblas dask: err_ab {err_ab(routed, exact, a, b):.2e}, {t_routed:.2f} s "
              f"({args.method}, moduli {args.moduli})")
    if cluster is not None:
        cluster.close()


if __name__ == "__main__":
    main()
