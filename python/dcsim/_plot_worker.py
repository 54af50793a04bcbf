"""`dcsim run`'s plots, drawn in a process of their own (issue 12, section 5), in one of two modes.

**Background** (``dcsim run``'s default): :func:`start_background` starts the plotter once the
output directory is in place and returns at once; the command then exits while the plotter,
detached (a session of its own, stdout and stderr to /dev/null), draws. Its input is one pickle
in an unlinked temporary file that is its stdin, so nothing is left to hand over when the command
exits. Each PNG is drawn in a hidden sibling directory (``.<out>.plots-<run id>``) and renamed
into the output directory when complete; ``plots.json`` ({"run_id", "files", "errors"}) is
written the same way, last: when it is there, the plots are complete (or failed, named in
"errors"). The plotter writes only while the directory's manifest still names its run id, and a
later run into the same directory ends it first (:func:`stop_background`), so a rerun never
mixes old and new files.

**Waiting** (``--wait-plots`` and the Python API): :class:`PlotWorker` starts ``python -m
dcsim._plot_worker`` before the simulation, so that importing matplotlib (a third of a second)
overlaps the run; when the run is done the parent sends it the sampled columns and the
(temporary) output directory and goes on to print the summary and write the tables while the
worker draws, then waits for it. Tables are written by the parent whatever happens to the worker:
a plot that fails, or a worker that dies, is reported and costs nothing else.

Protocol: the parent writes one pickle to the worker's stdin: {"dir", "scenario", "tables",
"engine_spec", "wall_s"} (and "run_id" in the background mode); a waiting worker answers with one
JSON line on stdout: {"files": [...], "errors": [...]} (file names written in "dir", "name:
error" lines). End of input before the pickle (the parent stopped, e.g. an invalid scenario or
Ctrl-C) makes it exit quietly.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Optional

import numpy as np

#: Written by a background plotter into the output directory, last: {"run_id", "files", "errors"}.
PLOTS_RECORD = "plots.json"


def has_alpha(result) -> bool:
    """Whether the window traces hold α (DCTCP-like flows): the window plot then has an α panel."""
    return bool(np.isfinite(result._col("cwnd", "alpha").astype(float)).any())


def plot_names(result) -> list[str]:
    """The figures ``dcsim run`` draws for this result (without importing matplotlib): the queue
    of the monitored ports; windows and goodput when flows were traced (a workload's generated flows only
    when metrics.trace_flows names them: else their figures would be empty); the slowdown of finished finite flows when there are some; a
    fabric's tiers; the sources' rates when it has L2 sources; a permutation's goodput per flow."""
    names = ["queue.png"] if result._rows("queue") else []  # none without a monitored port (metrics.monitor = [])
    if result._rows("cwnd"):
        # named by content: cwnd_alpha.png with an α panel (DCTCP), cwnd.png without (NewReno, DX)
        names += ["cwnd_alpha.png" if has_alpha(result) else "cwnd.png"]
    if result._rows("throughput"):
        names += ["throughput.png"]
    if has_finished_finite_flows(result):
        names += ["fct.png"]
    from dcsim.scenario import FABRIC_TIERS  # loaded with the result (not at the CLI's start, before the plotter)

    if result.scenario.network.topology in FABRIC_TIERS and result._rows("ports"):
        names += ["tiers.png"]
    if result._rows("rates"):  # listed sources' rates (Poisson short flows have no series)
        names += ["rates.png"]
    if any(w.kind == "permutation" for w in result.scenario.workloads):
        names += ["permutation.png"]
    return names


def has_finished_finite_flows(result) -> bool:
    """Whether a flow whose completion time counts (:func:`dcsim.result.timed_mask`) finished
    (what fct.png draws)."""
    import numpy as np

    from dcsim.result import timed_mask

    if not result._rows("flows"):
        return False
    timed = timed_mask(result._col("flows", "size_bytes"), result._col("flows", "start_s"), result.warmup_s)
    return bool((timed & np.isfinite(result._col("flows", "fct_s").astype(float))).any())


def _payload(result, out_dir: Path) -> dict:
    """What the plots need: the columns of the sampled and summary tables (numpy arrays; the
    engine's, without the label columns), the scenario, the engine spec and what stopped the run
    (the footers say where a run that run.max_wall stopped ends)."""
    tables = {name: {c: result._col(name, c) for c in result.tables.columns(name)} for name in result.tables}
    return {"dir": str(out_dir), "scenario": result.scenario, "tables": tables,
            "engine_spec": result.engine_spec, "wall_s": result.wall_s, "stopped": result.stopped}


def result_from(msg: dict):
    """The Result a plot process draws, from :func:`_payload`'s message."""
    from dcsim.result import Result, _Tables

    result = Result(msg["scenario"], _Tables(msg["tables"], {}), wall_s=msg["wall_s"], engine_spec=msg["engine_spec"])
    result.stopped = msg.get("stopped")
    return result


class PlotWorker:
    """A running plot process of the waiting mode (see the module's docstring)."""

    #: The worker's command line after the interpreter (a test may run a variant of :func:`main`).
    args: tuple[str, ...] = ("-m", "dcsim._plot_worker")

    def __init__(self) -> None:
        self._writer: Optional[threading.Thread] = None
        self.proc: Optional[subprocess.Popen] = subprocess.Popen(
            [sys.executable, *self.args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def send(self, result, out_dir: Path) -> None:
        """Hand the worker what the plots need (:func:`_payload`)."""
        msg = _payload(result, out_dir)
        assert self.proc is not None and self.proc.stdin is not None
        stdin = self.proc.stdin

        def write() -> None:
            try:
                pickle.dump(msg, stdin, protocol=5)
            except (OSError, ValueError):
                pass  # the worker died (a broken pipe), or stop() closed the pipe: finish() reports it
            finally:  # closed either way (after a failure, the flush of the rest fails: dropped)
                with contextlib.suppress(OSError, ValueError):
                    stdin.close()

        # In a thread: the pipe holds 64 KB, and the worker reads only once its imports are done;
        # meanwhile this process prints the summary and writes the tables.
        self._writer = threading.Thread(target=write, name="dcsim-plot-data", daemon=True)
        self._writer.start()

    def finish(self) -> tuple[list[str], list[str]]:
        """Wait for the plots: (file names written, "name: error" lines)."""
        assert self.proc is not None
        self._join_writer(self.proc)
        out, err = self.proc.communicate()
        rc, self.proc = self.proc.returncode, None
        try:
            reply = json.loads(out.decode("utf-8").strip().splitlines()[-1])
            return list(reply["files"]), list(reply["errors"])
        except (ValueError, IndexError, KeyError):
            why = err.decode("utf-8", "replace").strip().splitlines()
            return [], [f"plots: the plotting process ended with status {rc} without drawing"
                        + (f" ({why[-1]})" if why else "")]

    def stop(self) -> None:
        """End the worker if it still runs (the run failed or was interrupted)."""
        if self.proc is None:
            return
        proc, self.proc = self.proc, None
        if proc.poll() is None:
            proc.kill()
        self._join_writer(proc)
        proc.communicate()

    def _join_writer(self, proc: subprocess.Popen) -> None:
        """Wait for the data to be written; the writer closed stdin (communicate() must not)."""
        if self._writer is not None:
            self._writer.join()
            self._writer = None
            proc.stdin = None


# --- the background mode ------------------------------------------------------------------------


def staging_dir(out_dir: Path, run_id: str) -> Path:
    """Where a background plotter draws before renaming each file into ``out_dir``: a hidden
    sibling (same file system, so the rename is atomic), never inside ``out_dir``."""
    out_dir = Path(out_dir)
    return out_dir.parent / f".{out_dir.name}.plots-{run_id}"


def start_background(result, out_dir: Path, run_id: str) -> int:
    """Start a detached plotter for ``result`` into the (final) ``out_dir``; returns its pid. The
    whole input is in the plotter's stdin (an unlinked file) before this returns."""
    msg = {**_payload(result, out_dir), "run_id": run_id}
    with tempfile.TemporaryFile() as fh:
        pickle.dump(msg, fh, protocol=5)
        fh.flush()
        fh.seek(0)
        # the run id on the command line identifies the process to stop_background()
        proc = subprocess.Popen([sys.executable, *PlotWorker.args, f"--dcsim-run-id={run_id}"], stdin=fh,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    return proc.pid


def _alive_plotter(pid: int, run_id: str) -> Optional[bool]:
    """Whether ``pid`` is the running plotter of ``run_id`` (Linux: /proc); None where that cannot
    be told. A zombie (ended, not yet reaped) has an empty command line: not alive."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return False if Path("/proc/self/cmdline").exists() else None
    except OSError:
        return None
    return f"--dcsim-run-id={run_id}".encode() in cmdline


def stop_background(out_dir: Path, manifest: dict, timeout_s: float = 5.0) -> None:
    """End the background plotter that a previous run into ``out_dir`` (its ``manifest``) started,
    if it still draws, and remove its staging directory: called before the directory is
    replaced. Where processes cannot be inspected (no /proc) it is left to see, at its next
    write, that the manifest names another run, and to stop there."""
    plotter = manifest.get("plotter") or {}
    pid, run_id = plotter.get("pid"), manifest.get("run_id")
    if not isinstance(pid, int) or not isinstance(run_id, str):
        return
    if _alive_plotter(pid, run_id):
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + timeout_s
        while _alive_plotter(pid, run_id) and time.monotonic() < deadline:
            time.sleep(0.002)  # a rename under way completes before the process ends
    shutil.rmtree(staging_dir(out_dir, run_id), ignore_errors=True)


def _current(out_dir: Path, run_id: str) -> bool:
    """Whether ``out_dir`` still holds the run ``run_id`` (its manifest names it)."""
    from dcsim.run import MANIFEST

    try:
        return json.loads((out_dir / MANIFEST).read_text(encoding="utf-8")).get("run_id") == run_id
    except (OSError, ValueError, AttributeError):
        return False


def _draw_in_background(result, msg: dict, error: Optional[str] = None) -> int:
    """Draw into the staging directory, rename each PNG into place, then write plots.json (with
    ``error`` alone when nothing could be drawn)."""
    out, run_id = Path(msg["dir"]), msg["run_id"]
    work = staging_dir(out, run_id)
    work.mkdir(parents=True, exist_ok=True)
    try:
        files, errors = [], [] if error is None else [error]
        if result is not None:
            from dcsim import plotting

            for name, fn in plotting.plots_for(result).items():
                try:
                    fn(result, work / name)
                except Exception as e:  # one plot must not cost the others
                    errors.append(f"{name}: {type(e).__name__}: {e}")
                    continue
                if not _current(out, run_id):
                    return 0  # another run owns the directory now: draw nothing into it
                os.replace(work / name, out / name)
                files.append(name)
        record = work / PLOTS_RECORD
        record.write_text(json.dumps({"run_id": run_id, "files": files, "errors": errors}, indent=2) + "\n",
                          encoding="utf-8")
        if _current(out, run_id):
            os.replace(record, out / PLOTS_RECORD)
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    # A background plotter's input is complete at its start (a file): read it first, so that a
    # failure of what follows (an import, say) is recorded in plots.json.
    background = any(a.startswith("--dcsim-run-id=") for a in sys.argv[1:])
    msg = pickle.load(sys.stdin.buffer) if background else None
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: F401  (the slow imports first)

        from dcsim import plotting

        if msg is None:
            try:
                msg = pickle.load(sys.stdin.buffer)
            except EOFError:
                return 0  # the parent stopped before the run ended: nothing to draw
        result = result_from(msg)
        if background:
            return _draw_in_background(result, msg)
        files, errors = [], []
        for name, fn in plotting.plots_for(result).items():
            try:
                fn(result, Path(msg["dir"]) / name)
                files.append(name)
            except Exception as e:  # one plot must not cost the others
                errors.append(f"{name}: {type(e).__name__}: {e}")
        sys.stdout.write(json.dumps({"files": files, "errors": errors}) + "\n")
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as e:
        if not background:
            raise
        return _draw_in_background(None, msg, error=f"plots: {type(e).__name__}: {e}")


if __name__ == "__main__":
    sys.exit(main())
