"""The Dask cluster of ``--dask local``, in a process of its own session (``python -m
dcsim.sweep.local_cluster N``, started by :func:`dcsim.sweep.execute.connect_dask`).

A terminal's Ctrl-C reaches every process of its foreground process group. Started in the sweep's
own process, the cluster's worker processes were in that group: they had to ignore SIGINT from
birth (inherited from the sweep, which therefore ignored it while the cluster started, and lost a
Ctrl-C pressed in that second or two: the sweep then ran every run, a probe of 2026-12-01), or
they took it while importing Dask (tracebacks, and a start that failed after 10 s). In a session
of its own neither this process nor its workers get the terminal's signals; the sweep keeps its
handler throughout and stops the cluster itself.

Protocol, over the pipes: once the cluster is up, one JSON line on stdout,
``{"address": "tcp://127.0.0.1:PORT"}`` (or ``{"error": "..."}`` and exit status 1 if it could
not start); then it runs until its stdin ends (the sweep closes it, or the sweep died), closes
the cluster and exits. Dask's own error logs go to the inherited stderr, as they did.
"""

from __future__ import annotations

import json
import sys

__all__ = ["main"]


def main(argv: list[str]) -> int:
    """Start a LocalCluster of ``argv[0]`` single-threaded worker processes, say its address,
    and keep it until stdin ends."""
    import logging

    try:
        import distributed

        n = int(argv[0])
        cluster = distributed.LocalCluster(
            n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
            silence_logs=logging.ERROR, preload=["dcsim.sweep.worker"],
        )
    except Exception as e:  # said by the sweep: "--dask local: cannot start a Dask LocalCluster (...)"
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}), flush=True)
        return 1
    try:
        print(json.dumps({"address": cluster.scheduler_address}), flush=True)
        sys.stdin.read()  # until the sweep closes its end, or exits
    finally:
        cluster.close(timeout=5)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
