"""The work of one sweep run, as a top-level function any executor can ship to a worker.

:func:`run_one` takes the scenario as JSON (the TOML shape) and returns plain values: the
summary row and the run's files as bytes (tables as Parquet). Nothing is read from or written
to a filesystem (a trace file's content comes with the run where the worker may not have it), so
a Dask worker on another machine needs only ``pip install dcsim``.
"""

from __future__ import annotations

import json
import time
import traceback
import warnings
from typing import Any, Mapping, Optional

__all__ = ["run_one", "flatten_summary", "worker_info", "dask_setup", "MEMORY_STOP"]

#: The bound whose stop a sweep keeps as the run's result (status "stopped", not tried again): the
#: engine is deterministic, so the same engine spec (its max_memory_bytes included) stops at the same
#: instant. A run.max_wall stop depends on the machine and is an error, tried again.
MEMORY_STOP = "metrics.max_memory"


def dask_setup(worker: Any = None) -> None:  # noqa: ARG001
    """Dask's preload hook, run in each worker process of a ``--dask local`` cluster as it starts:
    the worker leaves Ctrl-C to the sweep, which stops the cluster itself. The cluster runs in a
    session of its own (:mod:`dcsim.sweep.local_cluster`), which a terminal's Ctrl-C does not
    reach; this keeps a worker running when SIGINT is sent to that session's process group."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _singular(key: str) -> str:
    return key[:-1] if key.endswith("s") and len(key) > 1 else key


def flatten_summary(summary: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """:meth:`Result.summary` as one flat row; the summary's keys (and their units) are kept.

    Nested tables join with dots (``packets.sent_pkts``). A list of tables becomes one column
    per entry and key, the entry labelled by its own singular key when it has one
    (``ports`` -> ``port[sw->r].q_mean_pkt``, ``flows`` -> ``flow[0].goodput_bps``), else by its
    index; a list of values becomes ``key[i]``.
    """
    out: dict[str, Any] = {}
    for k, v in summary.items():
        name = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, Mapping):
            out.update(flatten_summary(v, name))
        elif isinstance(v, (list, tuple)):
            label_key = _singular(str(k))
            stem = f"{prefix}.{label_key}" if prefix else label_key
            for i, item in enumerate(v):
                if isinstance(item, Mapping):
                    label = item.get(label_key, i)
                    rest = {kk: vv for kk, vv in item.items() if kk != label_key}
                    out.update(flatten_summary(rest, f"{stem}[{label}]"))
                else:
                    out[f"{name}[{i}]"] = item
        else:
            out[name] = v
    return out


def trace_bytes(data: bytes) -> bytes:
    """A trace file's content as a Dask task's result (:class:`dcsim.sweep.execute.RunTraces`)."""
    return data


def _dask_worker_address() -> Optional[str]:
    """The address of the Dask worker running this (None elsewhere), for errors that name it."""
    import sys

    if "distributed" not in sys.modules:  # not under Dask: nothing to import
        return None
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except Exception:  # noqa: BLE001 - not inside a Dask worker's task
        return None


class SweepStopped(Exception):
    """The sweep that sent this run was stopped (Ctrl-C or a signal) while it ran on a Dask worker."""


#: The stop names of the sweeps stopped, as told to this (Dask worker) process by :func:`mark_stopped`.
_STOPPED: set = set()


def mark_stopped(name: str) -> None:
    """Run in every worker process of a Dask cluster by a stopped sweep
    (:func:`dcsim.sweep.execute.stop_running_runs`, through ``Client.run``, which a worker's event
    loop answers while its task threads run): its runs here stop at their next look."""
    _STOPPED.add(name)


def _stop_check(name: str):
    """A ``simulate`` progress callback that raises :class:`SweepStopped` once this process was told
    that the sweep named ``name`` stopped (:func:`mark_stopped`: Dask cannot stop a running task, so
    the run stops itself). It looks at a set in this process, after each of the engine's steps (at
    least every 2^20 events): no request to the scheduler while the run runs."""

    def check(now_s: float, duration_s: float) -> None:
        if name in _STOPPED:
            raise SweepStopped(f"the sweep that sent this run was stopped; the run stopped at t = {now_s:g} s of "
                               f"{duration_s:g} s")

    return check


def _one_line(e: BaseException) -> str:
    """An error as the sweep table shows it: its type and its message's first line."""
    first = str(e).strip().splitlines()[0] if str(e).strip() else ""
    return f"{type(e).__name__}: {first}" if first else type(e).__name__


def run_one(scenario_json: str, tables: bool = True, save_to: Optional[str] = None, expected_key: Optional[str] = None,
            data: Optional[Mapping[str, bytes]] = None, links: Optional[Mapping[int, str]] = None,
            digests: Optional[Mapping[str, str]] = None, stop_name: Optional[str] = None) -> dict:
    """Simulate one scenario; never raises for a failed run (the error is returned).

    Returns ``{"key", "version", "seed", "row", "files", "links", "wall_s", "error", "traceback",
    "saved", "stopped"}``: ``key`` is :func:`~dcsim.sweep.spec.run_key` of the engine spec this worker built
    (the caller checks it against its own, which catches a worker running another dcsim version),
    ``row`` the flattened summary, ``files`` the run's files (``<table>.parquet``,
    ``scenario.toml``, ``engine_spec.json``, ``summary.json``; empty without ``tables``),
    ``links`` the run's files that are files of the sweep's OUT (:meth:`RunStore.save_ok`),
    ``wall_s`` the worker's wall time for the run (simulation, summary, encoding of the tables).
    ``stopped`` (else None): ``{"field", "message"}`` of a :data:`MEMORY_STOP` stop, whose row and
    files are those of what it simulated (``RunLimitError.partial``; none if it kept nothing).

    ``data``: the content of the trace files the scenario names, by path (a worker that may not
    have them); else they are read here. A worker parses each trace once for all its runs
    (:class:`~dcsim.scenario.DataFiles`). ``digests``: path -> the SHA-256 of the content the
    sweep planned with (a file changed since is this run's error, which says so). ``links``:
    workload index -> the trace's file in OUT
    (:meth:`~dcsim.sweep.store.RunStore.keep_trace`); the run's scenario.toml names it as
    ``workload-<i>-flows.csv`` beside it instead of holding its flows.

    ``save_to`` (a local worker, which shares the sweep's filesystem): if the run succeeds and
    its key is ``expected_key``, the worker writes the run into ``save_to/runs/<run_id>/`` itself
    (:meth:`RunStore.save_ok`: tables, then row.json), returns no file bytes and ``saved = True``.

    ``stop_name`` (a run on a Dask cluster): the name its sweep gives :func:`mark_stopped` in every
    worker process when it is stopped; the run then stops itself after the engine's current step and
    returns a :class:`SweepStopped` error (Dask cannot stop a running task: without it a Ctrl-C'd
    sweep's runs had kept their workers busy to the end).
    """
    t0 = time.perf_counter()
    from dcsim import __version__

    out: dict[str, Any] = {"key": None, "version": __version__, "seed": None, "row": None, "files": {}, "links": {},
                           "error": None, "traceback": None, "saved": False, "stopped": None}
    try:
        from dcsim.result import TRACE_FILE, engine_spec_text, summary_inputs
        from dcsim.scenario import RunLimitError, Scenario, ScenarioWarning, reading_files
        from dcsim.simulate import simulate
        from dcsim.sweep.spec import code_id, run_key

        with reading_files(_files().with_given(data)) as files:
            sc = Scenario.from_dict(json.loads(scenario_json))
        for path, digest in (digests or {}).items():
            if files.digests.get(path) != digest:
                raise ValueError(f"{path}: the trace file changed after the sweep validated it; run the sweep "
                                 "again to plan with its new content")
        with warnings.catch_warnings():  # the sweep says them once, when planning (Plan.warnings)
            warnings.simplefilter("ignore", ScenarioWarning)
            try:
                res = simulate(sc, progress=_stop_check(stop_name) if stop_name is not None else None)
                spec = res.engine_spec
            except RunLimitError as e:
                if e.field != MEMORY_STOP or e.engine_spec is None or e.partial_lost:
                    # run.max_wall: the machine's time, not the run's; a partial the results could
                    # not be built for (MemoryError): this machine's memory. Tried again next time.
                    raise
                res, spec = e.partial, e.engine_spec
                out["stopped"] = {"field": e.field, "message": _one_line(e)}
        out["key"] = run_key(spec, __version__, summary_inputs(sc))
        out["code"] = code_id()
        out["worker"] = _dask_worker_address()
        out["seed"] = int(spec["seed"])
        # A stop before its warm-up ended, or of a partitioned run, kept nothing: no row, no tables.
        summary = res.summary() if res is not None else None
        out["row"] = flatten_summary(summary) if summary is not None else {}
        if tables and res is not None:
            files = {f"{name}.parquet": res.tables.parquet_bytes(name) for name in res.tables}
            beside = {int(i): TRACE_FILE.format(i=i) for i in links or {}}
            files["scenario.toml"] = sc.to_toml(trace_files=beside).encode()
            files["engine_spec.json"] = engine_spec_text(res.engine_spec).encode()
            files["summary.json"] = json.dumps(summary, indent=2, allow_nan=False).encode()
            out["files"] = files
            out["links"] = {beside[int(i)]: src for i, src in (links or {}).items()}
    except Exception as e:  # one failed run is recorded and does not stop the sweep
        out["error"] = _one_line(e)
        out["traceback"] = traceback.format_exc()
    out["wall_s"] = time.perf_counter() - t0
    if save_to is not None and out["error"] is None and out["key"] == expected_key:
        from dcsim.sweep.store import RunStore, run_record

        rec = run_record(out["key"], __version__, out["seed"], tables, out["wall_s"], out["row"], out["stopped"])
        try:
            RunStore(save_to).save_ok(rec["run_id"], rec, out["files"], out["links"])
            out["files"], out["links"], out["saved"] = {}, {}, True
        except OSError as e:  # e.g. a full disk: the run is recorded as failed, and tried again next time
            out["error"] = f"{type(e).__name__}: writing the run's files: {e}"
            out["traceback"] = traceback.format_exc()
            out["files"], out["links"] = {}, {}
    return out


#: This process's :class:`~dcsim.scenario.DataFiles` for its runs (made on first use; a local
#: pool forked after :func:`use_plan_files` starts with the plan's parsed traces).
_FILES = None


def _files():
    global _FILES
    if _FILES is None:
        from dcsim.scenario import DataFiles

        _FILES = DataFiles()
    return _FILES


def use_plan_files(files: Any) -> None:
    """Runs in this process, and in local workers forked after this, use ``files`` (a plan's
    :class:`~dcsim.scenario.DataFiles`: they parse none of its traces again); None lets them go."""
    global _FILES
    _FILES = files


def worker_info() -> dict:
    """What a worker has: dcsim version, the code it runs (:func:`~dcsim.sweep.spec.code_id`) and
    whether its engine loads (checked before a Dask sweep).

    It also imports what a run needs, so that no run's wall time includes the imports.
    """
    import dcsim.result  # noqa: F401
    from dcsim import __version__
    from dcsim.simulate import engine
    from dcsim.sweep.spec import code_id

    engine()
    return {"version": __version__, "code": code_id()}


def _noop() -> None:
    """Submitted once per local worker to start the processes before the progress bar."""
