"""The Dask cluster of ``--dask local``, in a process of its own session (started by
:func:`dcsim.sweep.execute.connect_dask`).

A terminal's Ctrl-C reaches every process of its foreground process group. Started in the sweep's
own process, the cluster's worker processes were in that group: they had to ignore SIGINT from
birth (inherited from the sweep, which therefore ignored it while the cluster started, and lost a
Ctrl-C pressed in that second or two: the sweep then ran every run, a probe of 2026-12-01), or
they took it while importing Dask (tracebacks, and a start that failed after 10 s). In a session
of its own neither this process nor its workers get the terminal's signals; the sweep keeps its
handler throughout and stops the cluster itself.

The sweep starts it with its own module path (``sys.path``, as multiprocessing gives the
processes it spawns) and Dask configuration (``DASK_INTERNAL_INHERIT_CONFIG``, as Dask gives its
workers), so that it and its workers import the dcsim and the settings the sweep has.

Protocol, over the pipes: once the cluster is up, one JSON line on stdout,
``{"address": "tcp://127.0.0.1:PORT"}`` (or ``{"error": "..."}`` and exit status 1 if it could
not start); then it runs until its stdin ends (the sweep closes it, or the sweep died), closes
the cluster and exits. Dask's error logs go to the inherited stderr, as they did.
"""

from __future__ import annotations

import json
import sys

__all__ = ["main", "command"]


def command(workers: int) -> list[str]:
    """The command line that runs :func:`main` for ``workers`` workers with this process's module
    path (``-m`` would put the current directory first: a ``dcsim.py`` there broke it, a probe)."""
    code = ("import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
            "from dcsim.sweep.local_cluster import main; sys.exit(main(sys.argv[2:]))")
    return [sys.executable, "-c", code, json.dumps(sys.path), str(workers)]


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
        _say({"error": f"{type(e).__name__}: {e}"})
        return 1
    try:
        if _say({"address": cluster.scheduler_address}):
            sys.stdin.read()  # until the sweep closes its end, or exits
    finally:
        from dcsim.sweep import quiet_dask_logs  # imported already: this module's package

        quiet_dask_logs({})  # the sweep has said what happened; what Dask logs as its cluster goes is noise
        cluster.close(timeout=5)
    return 0


def _say(answer: dict) -> bool:
    """Write the answer line; False if nobody reads it any more (the sweep stopped waiting)."""
    try:
        print(json.dumps(answer), flush=True)
        return True
    except OSError:  # BrokenPipeError: the sweep is gone
        import os

        # Python flushes stdout again as it exits: to nowhere, not into a second BrokenPipeError.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return False


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
