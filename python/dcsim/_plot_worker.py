"""`dcsim run`'s plots, drawn in a process of their own (issue 12, section 5).

:class:`PlotWorker` starts ``python -m dcsim._plot_worker`` before the simulation, so that
importing matplotlib (a third of a second) overlaps the run; when the run is done the parent
sends it the sampled columns and the output directory and goes on to print the summary and write
the tables while the worker draws. Tables are written by the parent whatever happens to the
worker: a plot that fails, or a worker that dies, is reported and costs nothing else.

Protocol: the parent writes one pickle to the worker's stdin: {"dir", "scenario", "tables",
"engine_spec", "wall_s"}; the worker answers with one JSON line on stdout: {"files": [...],
"errors": [...]} (file names written in "dir", "name: error" lines). End of input before the
pickle (the parent stopped, e.g. an invalid scenario or Ctrl-C) makes it exit quietly.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import threading
from pathlib import Path
from typing import Optional


class PlotWorker:
    """A running plot process (see the module's docstring)."""

    #: The worker's command line after the interpreter (a test may run a variant of :func:`main`).
    args: tuple[str, ...] = ("-m", "dcsim._plot_worker")

    def __init__(self) -> None:
        self._writer: Optional[threading.Thread] = None
        self.proc: Optional[subprocess.Popen] = subprocess.Popen(
            [sys.executable, *self.args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def send(self, result, out_dir: Path) -> None:
        """Hand the worker what the plots need: the columns of the sampled and summary tables (numpy
        arrays; the engine's, without the label columns), the scenario and the engine spec."""
        tables = {name: {c: result._col(name, c) for c in result.tables.columns(name)} for name in result.tables}
        msg = {"dir": str(out_dir), "scenario": result.scenario, "tables": tables,
               "engine_spec": result.engine_spec, "wall_s": result.wall_s}
        assert self.proc is not None and self.proc.stdin is not None
        stdin = self.proc.stdin

        def write() -> None:
            try:
                pickle.dump(msg, stdin, protocol=5)
                stdin.close()
            except (OSError, ValueError):
                pass  # the worker died (a broken pipe), or stop() closed the pipe: finish() reports it

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


def main() -> int:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: F401  (the slow imports first)

        from dcsim import plotting
        from dcsim.result import Result, _Tables

        try:
            msg = pickle.load(sys.stdin.buffer)
        except EOFError:
            return 0  # the parent stopped before the run ended: nothing to draw
        result = Result(msg["scenario"], _Tables(msg["tables"], {}), wall_s=msg["wall_s"],
                        engine_spec=msg["engine_spec"])
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


if __name__ == "__main__":
    sys.exit(main())
