"""ozblas in every worker of a Dask cluster (dask.distributed).

    from dask.distributed import Client
    import ozblas.dask

    client = Client(...)
    client.register_plugin(ozblas.dask.Activate(method="ozaki2", moduli=16))
    (x @ y).compute()            # each block product runs through ozblas in its worker
    ozblas.dask.stats(client)    # {worker address: ozblas.stats() of that worker}

`Activate(**settings)` is a worker plugin: each worker, present and future (a worker that
joins or restarts later runs it too), calls `ozblas.activate(**settings)` with the settings
`ozblas.activate()` takes (method, moduli, min_size, scaling, slices, variant, device,
trace), so the block GEMMs of `dask.array` products and blocked linear algebra that NumPy
and SciPy run there are routed. Unregistering it (`client.unregister_worker_plugin("ozblas")`)
deactivates. `ozblas` itself never imports dask; this module needs `distributed`
(`pip install ozblas[dask]`).
"""

from __future__ import annotations

import inspect

try:
    from distributed import WorkerPlugin
except ImportError as e:  # pragma: no cover - exercised only without distributed
    raise ImportError("ozblas.dask needs dask.distributed: pip install 'ozblas[dask]' "
                      "(or dask and distributed)") from e

from . import activation

__all__ = ["Activate", "stats"]


class Activate(WorkerPlugin):
    """Worker plugin running ``ozblas.activate(**settings)`` in each worker. The settings
    are checked here, in the client, so that a bad one fails before any worker sees it."""

    name = "ozblas"  # registering again replaces the plugin (and its settings)
    idempotent = False

    def __init__(self, **settings):
        inspect.signature(activation.activate).bind(**settings)  # TypeError for an unknown key
        self.settings = {k: v for k, v in settings.items() if v is not None}
        # ozblas.ConfigError for a bad value or settings that cannot go together (judged
        # over the defaults: the workers' environment is theirs)
        activation._checked(self.settings, {})

    def setup(self, worker):
        activation.activate(**self.settings)

    def teardown(self, worker):
        activation.deactivate()

    def __repr__(self):
        return f"ozblas.dask.Activate({', '.join(f'{k}={v!r}' for k, v in self.settings.items())})"


def stats(client) -> dict:
    """``ozblas.stats()`` of every worker of the client's cluster, by worker address."""
    from .shim_stats import stats as worker_stats

    return client.run(worker_stats)
