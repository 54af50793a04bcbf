"""Parameter sweeps: many runs of one scenario over axes of dotted paths, cached and resumable.

From Python::

    import dcsim.sweep
    res = dcsim.sweep.sweep(
        "examples/dctcp_dumbbell.toml",
        {"network.aqm.K": ["20pkt", "40pkt", "65pkt"], "flows[0].g": [0.0625, 0.125]},
        seeds=3, set={"run.duration": "50ms", "run.warmup": "10ms"}, out="dcsim-out/k_sweep",
    )
    res.table            # pandas DataFrame: one row per run (also OUT/sweep.parquet)

From the shell: ``dcsim sweep examples/sweep_k.toml`` (the file format is in
:mod:`dcsim.sweep.spec`). The table has, per run: ``run_id``, one column per axis path with the
value as written (plus ``<path>_s`` / ``_bps`` / ``_pkt`` / ``_bytes`` with the number when every
value of the axis has a unit of one kind: none for ``["100pkt", "1MB"]``), ``seed``, ``status`` (``ok`` / ``stopped`` / ``error``), ``error``,
``run_wall_s`` (worker wall time of the run, s), then :meth:`Result.summary` flattened by
:func:`~dcsim.sweep.worker.flatten_summary` (units in the column names). Each run's tables sit in
OUT/runs/<run_id>/ (readable with :meth:`Result.from_dir`).

A run's id is the first 16 hex digits of a SHA-256 over its engine spec, the dcsim version, the
code that computes it (:func:`code_id`) and the summary's own inputs (``metrics.fct_buckets``): a
finished run is never computed again (unless ``force``), whichever sweep asks for it in the same
OUT; changing the buckets computes the runs again. Failed runs
are recorded (``status = "error"``) and tried again by the next sweep. A run that
``metrics.max_memory`` stopped is kept (``status = "stopped"``, the stop's message in ``error``,
its row and tables those of what it simulated: :class:`~dcsim.RunLimitError`'s ``partial``) and
not tried again: the engine is deterministic, so the same spec stops at the same instant. A
``run.max_wall`` stop is the machine's, not the run's: an error, tried again.
"""

from __future__ import annotations

import contextlib

import concurrent.futures as cf
import hashlib
import json
import numbers
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Union

from dcsim._files import dir_path
from dcsim.sweep.spec import (
    MAX_RUNS_WITHOUT_YES,
    RUN_ID_HEX,
    Axis,
    Plan,
    PlannedRun,
    SweepError,
    SweepSpec,
    code_id,
    count_runs,
    load_sweep,
    make_spec,
    plan_sweep,
    run_key,
)
from dcsim.units import count_shown

__all__ = [
    "sweep",
    "run_sweep",
    "execution",
    "load_sweep",
    "make_spec",
    "plan_sweep",
    "run_key",
    "SweepSpec",
    "SweepResult",
    "SweepError",
    "SweepInterrupted",
    "SeedsWarning",
    "SweepWarning",
    "Axis",
    "MAX_JOBS",
    "check_jobs",
    "MAX_RUNS_WITHOUT_YES",
]

#: Columns the sweep adds around the summary metrics.
RESERVED = ("run_id", "seed", "status", "error", "run_wall_s")


#: A run's summary entries that are not results of its simulation: the seed itself, the scenario's
#: description (which names the seed) and the wall times.
NOT_RESULTS = frozenset({"seed", "scenario", "wall_s", "events_per_wall_s"})


class SweepWarning(UserWarning):
    """This sweep will replace the table (sweep.parquet, sweep.json, sweep.png) of another sweep in its OUT."""


class SeedsWarning(UserWarning):
    """A sweep's seeds gave identical metrics at some points (:meth:`SweepResult.seeds_note`)."""


def replaced_warning(out: Path, other: str) -> str:
    """The warning for a sweep that replaces the table of ``other`` (described by
    :meth:`RunStore.other_sweep`) in ``out``."""
    return (f"{out} holds the table of another sweep ({other}); this sweep replaces its sweep.parquet, "
            f"sweep.json and sweep.png (its finished runs stay in {out / 'runs'} and are reused); use another output directory to keep both")


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) or SIGTERM during a sweep; finished runs are kept on disk."""

    def __init__(self, out: Path, done: int, total: int, signum: int) -> None:
        super().__init__(f"sweep interrupted: {done} of {total} runs finished")
        self.out, self.done, self.total, self.signum = out, done, total, signum


@dataclass
class SweepResult:
    """What a sweep did; :attr:`table` is the sweep table (OUT/sweep.parquet) as a DataFrame."""

    out: Path
    table_path: Path
    runs: int
    computed: int
    cached: int
    failed: int
    wall_s: float
    mean_run_wall_s: Optional[float]
    failures: list[dict] = field(default_factory=list)
    shared: int = 0  # runs whose engine spec equals another combination's (computed once)
    #: Where this sweep's runs ran, e.g. "2 local processes", "4 Dask workers" ("" if none ran).
    ran_on: str = ""
    #: The runs (computed or cached) a metrics.max_memory bound stopped, as ``failures`` lists
    #: theirs: status "stopped", kept with what they simulated, not tried again (the same engine
    #: spec stops at the same instant; raise metrics.max_memory, which makes them other runs).
    stopped: list[dict] = field(default_factory=list)
    #: The sweep's axes in order, each as its paths (one, or several linked paths).
    axes: tuple[tuple[str, ...], ...] = ()
    #: How the axes combine: "grid" (every combination) or "zip" (they move together).
    combine: str = "grid"
    #: The base scenario's name (its file, or "<inline>").
    base: str = ""
    #: A dry run's result: its plan only (an earlier sweep's table may sit at table_path).
    dry_run: bool = False
    #: The points (their axes' labels) whose seeds, two or more, all gave the same metrics: their
    #: scenarios draw nothing from run.seed, so their spread over the seeds is 0, not noise measured.
    same_over_seeds: list[str] = field(default_factory=list)
    #: Points with two or more seeds that finished (what ``same_over_seeds`` is out of).
    seeded_points: int = 0
    #: What ``seeds_note`` suggests to make the seeds independent (a path the base scenario has).
    seed_hint: str = '"network.host_jitter" = "1us"'

    def seeds_note(self) -> Optional[str]:
        """A warning when seeds gave identical metrics (:attr:`same_over_seeds`); None otherwise."""
        if not self.same_over_seeds:
            return None
        n, of = len(self.same_over_seeds), self.seeded_points
        which = "every point" if n == of else f"{n} of {of} points ({self.same_over_seeds[0]}" + (", ..." if n > 1 else "") + ")"
        return (f"the seeds of {which} gave identical metrics: nothing in {'that scenario' if n == 1 else 'those scenarios'} "
                "draws from run.seed (a flow's start_jitter, network.host_jitter, RED or CHOKe, a random workload or "
                "ECMP over several paths would), so the spread over the seeds is 0, not noise measured; e.g. "
                f"{self.seed_hint} in the sweep's [set] makes the seeds independent runs")

    @property
    def unfinished(self) -> list[dict]:
        """The runs that did not run to their end: ``failures``, then ``stopped``."""
        return self.failures + self.stopped

    def require_finished(self, what: str) -> None:
        """A RuntimeError naming ``what`` and the first unfinished run, unless every run ran to its
        end (an experiment's figures and claims need whole runs, not what a bound left of one)."""
        runs = self.unfinished
        if runs:
            first = runs[0]
            raise RuntimeError(f"{what}: {len(runs)} of {self.runs} packet run(s) did not finish; first "
                               f"({first['axes']}, seed {first['seed']}): {first['error']}")

    @property
    def table(self):
        import pandas as pd

        with open(self.table_path, "rb") as f:  # a path that is not UTF-8 is a str Arrow refuses
            return pd.read_parquet(f)

    def plot(self, path=None, x: Optional[str] = None):
        """The headline results against axis path ``x`` (default: the first axis with numbers), a
        line for each combination of the other axes: :func:`dcsim.plotting.plot_sweep`, titled
        with the output directory's name; written to ``path`` if given. Returns the Figure."""
        from dcsim.plotting import plot_sweep

        if self.dry_run:  # an earlier sweep's table at table_path is not this plan's
            raise ValueError("a dry run ran nothing: nothing to draw (run the sweep, then plot its result)")
        if not self.table_path.is_file():
            raise ValueError(f"no sweep table at {self.table_path}: nothing to draw")
        name = self.out.resolve().name or str(self.out.resolve())
        notes = [f"base scenario: {self.base}; axes combined by {self.combine}; the whole sweep: "
                 f"{self.table_path.name} and sweep.json beside this figure"] if self.base else []
        return plot_sweep(self.table, self.axes, path=path, x=x, title=name, combine=self.combine, notes=notes)

    def run_dir(self, run_id: str) -> Path:
        return self.out / "runs" / run_id

    def result(self, run_id: str):
        """The :class:`~dcsim.result.Result` of one run (needs the run's tables: ``tables=True``)."""
        from dcsim.result import Result, ResultDirError
        from dcsim.sweep.store import ROW

        d = self.run_dir(run_id) if isinstance(run_id, str) and run_id and "/" not in run_id else None
        if d is None or not (d / ROW).is_file():
            raise ResultDirError(f"run_id: {run_id!r} is not a finished run of this sweep (see the table's run_id column)")
        if not (d / "scenario.toml").is_file():  # the sweep ran with tables=False: only its row was kept
            if _stopped_early(d):
                raise ResultDirError(f"run_id: run {run_id} was stopped by metrics.max_memory before its warm-up "
                                     "ended, inside an instant, or with its worlds at different times: it kept no "
                                     "result (see its error column)")
            raise ResultDirError(f"run_id: run {run_id} kept only its summary row (the sweep ran with tables=False, "
                                 "dcsim sweep --no-tables); run the sweep again with tables=True, which computes "
                                 "its tables")
        return Result.from_dir(d)


# --------------------------------------------------------------------------------------------
# Axis columns


def _unit_column(values: list) -> Optional[tuple[str, dict]]:
    """If every value is a string with a unit of one kind: (suffix, {value: number in SI / pkt})."""
    from dcsim.units import UnitError, parse_rate, parse_size, parse_time

    if not values or not all(isinstance(v, str) for v in values):
        return None
    found = []
    for suffix, fn in (("_s", parse_time), ("_bps", parse_rate), ("size", parse_size)):
        try:
            found.append((suffix, [fn(v, "axis") for v in values]))
        except UnitError:
            continue
    if len(found) != 1:  # none, or ambiguous (a bare number parses as every kind)
        return None
    suffix, nums = found[0]
    if suffix == "size":
        units = {s.unit for s in nums}
        if len(units) != 1:
            return None  # packets and bytes mixed: no common number without the packet size
        suffix = "_pkt" if units == {"pkt"} else "_bytes"
        nums = [float(s.value) for s in nums]
    return suffix, dict(zip(values, nums))


def _cell_fn(values: list) -> Callable[[Any], Any]:
    """How an axis value goes into its column: scalars of one kind as they are, else as JSON text."""
    kinds = set()
    for v in values:
        if isinstance(v, bool):
            kinds.add("bool")
        elif isinstance(v, (int, float)):
            kinds.add("num")
        elif isinstance(v, str):
            kinds.add("str")
        else:
            kinds.add("other")
    if len(kinds) == 1 and "other" not in kinds:
        return lambda v: v
    return lambda v: v if isinstance(v, str) else json.dumps(v)


class _AxisColumns:
    def __init__(self, spec: SweepSpec) -> None:
        self.cols: list[tuple[int, int, str, Callable, Optional[tuple[str, dict]]]] = []
        for ai, a in enumerate(spec.axes):
            for pi, p in enumerate(a.paths):
                vals = [s[pi] for s in a.steps]
                self.cols.append((ai, pi, p, _cell_fn(vals), _unit_column(vals)))
        self.spec = spec

    def names(self) -> list[str]:
        out = []
        for _, _, p, _, unit in self.cols:
            out.append(p)
            if unit:
                out.append(p + unit[0])
        return out

    def row(self, combo: tuple[int, ...]) -> dict:
        out: dict[str, Any] = {}
        for ai, pi, p, cell, unit in self.cols:
            v = self.spec.axes[ai].steps[combo[ai]][pi]
            out[p] = cell(v)
            if unit:
                out[p + unit[0]] = unit[1][v]
        return out


# --------------------------------------------------------------------------------------------
# Progress bar


class _View:
    """done / total, failures, ETA and mean wall time per run (rich, on stderr)."""

    def __init__(self, stats, enabled: bool, console=None, where: str = "") -> None:
        self.stats, self.enabled, self.console, self.where = stats, enabled, console, where
        self.bar = None
        self.inline = False
        self.last = 0.0
        # Not a terminal (a batch job's log): rich draws the bar once, at the end; a plain line then
        # says how far the sweep is, at each tenth of its runs (at most one per PLAIN_MIN_S) and at
        # least every PLAIN_MAX_S (a review: a log saw nothing during a long sweep).
        self.plain = False
        self.plain_last = 0.0
        self.plain_tenth = 0
        self.told_stop = False  # the first stopped run said above the bar (see _tell_stop)

    def __enter__(self) -> "_View":
        if not self.enabled:
            return self
        from dcsim._console import bar_fits, bar_width, status_note

        self.inline = status_note(self._note())  # inside a command's status line (`dcsim reproduce`)
        if self.inline:
            return self
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        console = self.console or Console(stderr=True)
        # Beside the fields as wide as they get in a sweep's course ("sweep", "160/320 runs (0
        # cached)", "0 failed", "ETA 13.52 min"; then "633.9 ms/run" and where, "0:00:07"); where a
        # 3-character bar leaves no room for the last two, they are left out, and where it leaves
        # none for the bar either, one line of text remains ("sweep 160/320, 0 failed, ETA 13.52
        # min"): rich had squeezed every column instead, and left "sw… 9/20 runs (0 cach… 0 fai…
        # ETA 193.4…" at 40 columns (a probe).
        core = 5 + (2 * len(str(self.stats.total)) + 17) + 8 + 13 + 4  # and the spaces between
        full = core + (12 + len(self.where)) + 7 + 2
        if not bar_fits(console, core):
            columns = [TextColumn("[bold]sweep[/] {task.fields[done]}/{task.total:.0f}, {task.fields[failed]}, "
                                  "ETA {task.fields[eta]}")]
        else:
            wide = bar_fits(console, full)
            columns = [
                TextColumn("[bold]sweep[/]"),
                BarColumn(bar_width=bar_width(console, full if wide else core)),
                TextColumn("{task.fields[counts]}"),
                TextColumn("{task.fields[failed]}"),
                TextColumn("ETA {task.fields[eta]}"),
                *([TextColumn("{task.fields[mean]}"), TimeElapsedColumn()] if wide else []),
            ]
        # A dumb terminal (TERM=dumb) cannot redraw a bar: rich printed its last state and an
        # empty line at the end, below which the summary says the same.
        self.bar = Progress(*columns, console=console, transient=False, disable=console.is_dumb_terminal)
        self.plain = not console.is_terminal
        self.plain_last = time.perf_counter()
        self.console = console
        self.bar.__enter__()
        self.task = self.bar.add_task("sweep", total=self.stats.total, **self._fields())
        self.bar.update(self.task, completed=self.stats.done)
        return self

    def _fields(self) -> dict:
        from dcsim.units import fmt_time, fmt_wall

        s = self.stats
        eta = s.eta_s()
        mean = s.mean_run_wall_s
        return {
            "done": s.done,
            "counts": f"{s.done}/{s.total} runs ({s.cached} cached)",
            "failed": f"[red]{s.failed_rows} failed[/]" if s.failed_rows else "0 failed",
            "eta": "-" if eta is None else ("0 s" if eta == 0 else fmt_wall(eta)),
            "mean": "-" if mean is None else f"{fmt_time(mean)}/run{self.where}",
        }

    def _note(self) -> str:
        """The sweep's progress in a status line: " (sweep 12/20 runs, ETA 3.2 s)"."""
        eta = self._fields()["eta"]
        return f" (sweep {self.stats.done}/{self.stats.total} runs" + (f", ETA {eta})" if eta != "-" else ")")

    def tick(self, force: bool = False) -> None:
        if self.bar is None and not self.inline:
            return
        now = time.perf_counter()
        if force or now - self.last >= 0.1:
            self.last = now
            if self.inline:
                from dcsim._console import status_note

                status_note(self._note())
            else:
                self.bar.update(self.task, completed=self.stats.done, **self._fields())
                if self.stats.stopped_rows and not self.told_stop:
                    self._tell_stop()
                if self.plain:
                    self._plain_line(now)

    def _tell_stop(self) -> None:
        """One line above the bar at the first run metrics.max_memory stopped (the bar has no room
        for a fourth count; the plain lines and the summary count them all)."""
        self.told_stop = True
        n = self.stats.stopped_rows
        self.console.print(f"[yellow]{count_shown(n, 'run')} stopped at metrics.max_memory[/]: "
                           f"{'each is' if n > 1 else 'it is'} kept with what it simulated (status \"stopped\"); "
                           "the summary counts such runs", highlight=False)

    #: Plain progress lines (see ``plain``): at most one per this many seconds at a tenth of the runs,
    #: and one at least this often.
    PLAIN_MIN_S, PLAIN_MAX_S = 10.0, 60.0

    def _plain_line(self, now: float) -> None:
        s = self.stats
        tenth = 10 * s.done // max(s.total, 1)
        since = now - self.plain_last
        if (tenth > self.plain_tenth and since >= self.PLAIN_MIN_S) or since >= self.PLAIN_MAX_S:
            self.plain_tenth, self.plain_last = tenth, now
            f = self._fields()
            eta = "" if f["eta"] == "-" else f", ETA {f['eta']}"
            stopped = f", {s.stopped_rows} stopped" if s.stopped_rows else ""
            self.console.print(f"sweep: {f['counts']}, {s.failed_rows} failed{stopped}{eta}", markup=False, highlight=False)

    def __exit__(self, *exc: Any) -> None:
        if self.inline:
            from dcsim._console import status_note

            status_note("")
        elif self.bar is not None:
            self.tick(force=True)
            self.bar.__exit__(*exc)


# --------------------------------------------------------------------------------------------
# The sweep


def _validation_columns(console, n_combos: int) -> list:
    """The validation's progress: "validating", a bar, "2816/3000 combinations" and the time left.
    The bar (rich's 40 by default) had filled an 80-column line to its last column; where even 3
    characters of bar do not fit, there is no bar and no "combinations"."""
    from rich.progress import BarColumn, TextColumn, TimeRemainingColumn

    from dcsim._console import bar_fits, bar_width

    beside = 10 + 1 + (2 * len(str(n_combos)) + 14) + 1 + 7 + 1
    if bar_fits(console, beside):
        head = [TextColumn("validating"), BarColumn(bar_width=bar_width(console, beside)),
                TextColumn("{task.completed}/{task.total} combinations")]
    else:
        head = [TextColumn("validating {task.completed}/{task.total}")]
    return [*head, TimeRemainingColumn()]


#: Dask's loggers that print tracebacks and warnings while a cluster this sweep connected to
#: loses a worker or its scheduler, or while the sweep stops it ("Exception in callback ...
#: FutureCancelledError", "Couldn't gather 1 keys, rescheduling", "Failed to reconnect to
#: scheduler"; a probe): the sweep says what happened itself, in one line.
DASK_LOGGERS = ("distributed", "tornado", "asyncio", "concurrent.futures")


def quiet_dask_logs(held: dict) -> None:
    """Raise :data:`DASK_LOGGERS` and every logger below them (Dask gives some their own levels)
    to CRITICAL; their levels go into ``held`` for :func:`restore_logs`."""
    import logging

    names = [n for n in list(logging.Logger.manager.loggerDict)
             if any(n == p or n.startswith(p + ".") for p in DASK_LOGGERS)]
    for name in {*DASK_LOGGERS, *names}:
        lg = logging.getLogger(name)
        held.setdefault(name, lg.level)
        lg.setLevel(logging.CRITICAL)


def restore_logs(held: dict) -> None:
    import logging

    for name, level in held.items():
        logging.getLogger(name).setLevel(level)
    held.clear()


def _plan(spec: SweepSpec, yes: bool, progress: bool, console) -> Plan:
    """plan_sweep, with a progress bar when validation takes a while (> 2000 combinations)."""
    n_combos = count_runs(spec) // (len(spec.seeds) if spec.seeds else 1)
    if not progress or n_combos <= 2000:
        return plan_sweep(spec, yes=yes)
    from rich.console import Console
    from rich.progress import Progress

    console = console or Console(stderr=True)
    with Progress(*_validation_columns(console, n_combos), console=console, transient=True,
                  disable=console.is_dumb_terminal) as bar:
        task = bar.add_task("validate", total=n_combos)
        return plan_sweep(spec, yes=yes, progress=lambda done, total: bar.update(task, completed=done))


#: Where sweeps run when a caller names no executor (see :func:`execution`).
_DEFAULTS: dict[str, Any] = {"executor": None, "jobs": None}

#: Packet runs (engine specs, as ``runs/<id>/row.json``) that this process's sweeps took from their
#: stores ("cached") or computed and kept ("computed"), counted as they happen: how `dcsim
#: reproduce` tells an experiment's measured runtime from a cached rerun's, and how many finished
#: runs an interrupted one keeps for the same command (a review: counting every row.json in its
#: directory took the other mode's, --quick or full, which that command does not reuse).
PROCESS_RUNS: dict[str, int] = {"cached": 0, "computed": 0}


@contextlib.contextmanager
def execution(*, jobs: Optional[int] = None, executor: Optional[Any] = None):
    """Within the block, sweeps that name no executor run on ``executor`` (e.g. a Dask client's)
    or on a local pool of ``jobs`` processes: how ``dcsim reproduce --jobs / --dask`` sends every
    experiment's packet runs to the same place."""
    jobs = check_jobs(jobs)
    if executor is not None and jobs is not None:
        raise SweepError("executor: give an executor or jobs, not both")
    old = dict(_DEFAULTS)
    _DEFAULTS.update(executor=executor, jobs=jobs)
    try:
        yield
    finally:
        _DEFAULTS.clear()
        _DEFAULTS.update(old)


def check_sweep_out(out: Path) -> None:
    """A sweep's output directory, checked before the plan: new, empty, or one that holds only what
    sweeps write there (their runs, traces, tables, lock and hidden temporary files), which a sweep
    shares with earlier ones. A folder of the user's own files, or a `dcsim run` directory, had the
    sweep's files written among them (a probe): refused, naming ``out`` and a few of the files."""
    from dcsim.sweep.store import FIGURE, SPEC, TABLE, TRACES

    if out.exists() and not out.is_dir():
        raise SweepError(f"out: {out} exists and is not a directory; give a directory")
    if not out.is_dir():
        return
    own = {"runs", TRACES, SPEC, TABLE, FIGURE}
    try:
        foreign = sorted(n for n in os.listdir(out) if n not in own and not n.startswith("."))
    except OSError as e:
        raise SweepError(f"out: {out}: {e.strerror or e}") from None
    if foreign:
        shown = ", ".join(foreign[:5]) + (f", ... ({len(foreign)} in all)" if len(foreign) > 5 else "")
        raise SweepError(f"out: {out} holds files a sweep does not write ({shown}); a sweep would put its runs "
                         f"and table among them: give a new directory, or one an earlier sweep wrote")


def check_jobs(jobs: Any, field: str = "jobs") -> Optional[int]:
    """``jobs`` as a Python int (None stays None), or a :class:`SweepError` naming ``field`` (the
    API's ``jobs``, the CLI's ``--jobs``) unless it is an integer 1 .. MAX_JOBS (NumPy's too, as for
    seeds; never a bool)."""
    if jobs is None:
        return None
    # NumPy's bool is no numbers.Integral; Python's bool is one, and refused too
    if isinstance(jobs, bool) or not isinstance(jobs, numbers.Integral):  # "2" is no count (an API audit)
        raise SweepError(f"{field}: expected an integer, got {jobs!r}; allowed 1 .. {MAX_JOBS} (default: all cores)")
    if not 1 <= jobs <= MAX_JOBS:
        raise SweepError(f"{field}: {int(jobs)} is out of range; allowed an integer 1 .. {MAX_JOBS} (default: all cores)")
    return int(jobs)


def check_dask_address(address: Any, field: str = "dask") -> None:
    """A :class:`SweepError` naming ``field`` if ``address`` is not one :func:`_dask_address_ok` accepts."""
    if not _dask_address_ok(address):
        raise SweepError(f"{field}: {address!r} is not a scheduler address; allowed \"local\" or tcp://HOST:PORT "
                         "(tls://, ucx://, ws://, wss:// too)")


def _dask_address_ok(address: Any) -> bool:
    """"local", or a scheduler address Dask can dial: [SCHEME://]HOST:PORT with one of its
    schemes (checked before the plan: a typo used to be found after validating every run)."""
    import re

    if not isinstance(address, str) or not address.strip():
        return False
    if address == "local":
        return True
    m = re.fullmatch(r"(?:(tcp|tls|ucx|ws|wss)://)?([^/\s:]+|\[[0-9A-Fa-f:]+\]):([0-9]{1,5})/?", address.strip())
    return m is not None and 0 < int(m[3]) < 65536


#: Local worker processes at most: each is a process with the engine imported (~60 MB).
MAX_JOBS = 256


def run_sweep(
    spec: SweepSpec,
    out: Union[str, Path],
    *,
    executor: Optional[Any] = None,
    jobs: Optional[int] = None,
    dask: Optional[str] = None,
    tables: bool = True,
    force: bool = False,
    yes: bool = False,
    progress: bool = True,
    console=None,
    dry_run: bool = False,
    on_plan: Optional[Callable[[Plan, dict], None]] = None,
) -> SweepResult:
    """Validate every combination of ``spec``, then run what is not cached into ``out``.

    ``executor``: any ``concurrent.futures.Executor`` (or a ``dask.distributed.Client``); else
    ``dask`` (``"local"`` or a scheduler address); else a local process pool of ``jobs``
    processes (default: all cores). ``on_plan(plan, counts)`` is called once the plan is known
    (the CLI prints it). Raises :class:`SweepError` for invalid input (nothing has run then) and
    :class:`SweepInterrupted` on Ctrl-C (finished runs are kept).
    """
    import signal

    from dcsim import __version__
    from dcsim.sweep.execute import (LocalPool, RunTraces, Stats, StopSignals, check_jobs_with_dask, connect_dask,
                                     default_jobs, execute, served_dashboard)
    from dcsim.sweep.worker import use_plan_files
    from dcsim.sweep.store import ROW, TABLE, RowBuffer, RunStore, run_record, sweep_lock, write_table

    if executor is None and jobs is None and dask is None:
        executor, jobs = _DEFAULTS["executor"], _DEFAULTS["jobs"]
    jobs = check_jobs(jobs)
    if executor is not None and (jobs is not None or dask is not None):
        raise SweepError("executor: give an executor, or jobs / dask, not both")
    if dask is not None:  # before the plan, not after it
        check_dask_address(dask)
        check_jobs_with_dask(dask, jobs)
    try:
        dir_path(out)
    except ValueError as e:
        raise SweepError(str(e)) from None
    check_sweep_out(Path(out))
    if executor is not None and not (isinstance(executor, cf.Executor) or hasattr(executor, "get_executor")):
        raise SweepError(f"executor: {executor!r} is not an executor; allowed a concurrent.futures.Executor or a "
                         "dask.distributed.Client (for a LocalCluster: dask=\"local\")")
    for name, flag in (("tables", tables), ("force", force), ("yes", yes), ("progress", progress), ("dry_run", dry_run)):
        if not isinstance(flag, bool):
            raise SweepError(f"{name}: expected True or False, got {flag!r}")
    t0 = time.perf_counter()
    plan = _plan(spec, yes, progress, console)
    out = Path(out)
    store = RunStore(out)
    axis_cols = _AxisColumns(spec)
    clash = set(axis_cols.names()) & set(RESERVED)
    if clash:
        raise SweepError(f"axes: the column name {sorted(clash)[0]!r} is reserved by the sweep table")

    groups: dict[str, list[PlannedRun]] = {}
    for r in plan.runs:
        groups.setdefault(r.key, []).append(r)
    ids: dict[str, str] = {}
    for key in groups:
        other = ids.setdefault(key[:RUN_ID_HEX], key)
        if other != key:  # pragma: no cover - a 64-bit prefix collision
            raise SweepError(f"run ids: two runs share the id {key[:RUN_ID_HEX]}; this needs a longer id")
    shared = len(plan.runs) - len(groups)

    stats = Stats(total=len(plan.runs))
    rows = RowBuffer()
    failures: list[dict] = []
    stopped: list[dict] = []

    # Each point's finished seeds: seed -> a digest of its metrics, to tell seeds that changed nothing
    # (a digest, not the JSON: a 5 000-flow run's metrics are 3.5 MB, and a sweep keeps its rows small).
    by_point: dict[int, dict[int, bytes]] = {}
    several_seeds = len(spec.seeds or ()) > 1

    def add_rows(key: str, rec: Optional[dict], error: Optional[str], wall_s: Optional[float]) -> None:
        metrics = (rec or {}).get("metrics") or {}
        stop = None if error else (rec or {}).get("stopped")
        if several_seeds and not error and not stop and metrics:
            text = json.dumps({k: v for k, v in metrics.items() if k not in NOT_RESULTS}, sort_keys=True, default=str)
            seen = hashlib.blake2b(text.encode(), digest_size=16).digest()
            for r in groups[key]:
                by_point.setdefault(r.combo, {})[r.seed] = seen
        for r in groups[key]:
            row = {"run_id": r.run_id, **axis_cols.row(plan.combos[r.combo]), "seed": r.seed,
                   "status": "error" if error else "stopped" if stop else "ok",
                   "error": error or (stop["message"] if stop else None), "run_wall_s": wall_s}
            for k, v in metrics.items():
                if k == "seed":
                    continue  # the engine's seed: the same as the sweep's (the run key proves it)
                row[k if k not in row else f"summary.{k}"] = v
            rows.add(r.index, row)
            stats.done += 1
            if error or stop:
                stats.failed_rows += bool(error)
                stats.stopped_rows += not error
                (failures if error else stopped).append(
                    {"run_id": r.run_id, "seed": r.seed, "axes": plan.label(r.combo), "error": row["error"]})

    replaces: Optional[str] = None  # the other sweep whose table in OUT this one replaces

    forced = 0  # runs finished before that --force computes again

    def report_plan(cached: int, to_compute: int) -> None:
        if on_plan is not None:
            on_plan(plan, {"runs": len(plan.runs), "combinations": len(plan.combos), "cached": cached,
                           "to_compute": to_compute, "shared": shared, "replaces": replaces, "forced": forced})
        else:  # the API: each scenario warning once, as a ScenarioWarning
            import warnings

            from dcsim.scenario import ScenarioWarning

            for msg, combos in plan.warnings.items():
                warnings.warn(f"{msg}{plan.warning_scope(combos)}", ScenarioWarning, stacklevel=4)
            if replaces is not None:
                warnings.warn(replaced_warning(out, replaces), SweepWarning, stacklevel=4)

    def planned(cached: int, to_compute: int) -> SweepResult:
        """Report the plan and return the result of a dry run."""
        report_plan(cached, to_compute)
        return SweepResult(out=out, table_path=out / TABLE, runs=len(plan.runs), computed=0, cached=cached,
                           failed=0, wall_s=time.perf_counter() - t0, mean_run_wall_s=None, shared=shared,
                           axes=tuple(a.paths for a in spec.axes), combine=spec.combine, base=spec.base_name,
                           dry_run=dry_run)

    if dry_run and not out.exists():
        return planned(0, len(groups))  # nothing is cached where nothing was written: create nothing
    created = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise SweepError(f"out: cannot create the output directory {out} ({e.strerror or e})") from None
    if not os.access(out, os.W_OK):
        raise SweepError(f"out: the output directory {out} is not writable")
    with sweep_lock(out), _removed_if_left_empty(out, created):
        if not dry_run:  # a dry run writes and removes nothing
            store.clean_tmp()
        replaces = store.other_sweep(spec.to_dict())
        todo: list[PlannedRun] = []
        cached_specs = 0
        for key, runs in groups.items():
            rec = None if force else store.load_row(runs[0].run_id, key, need_tables=tables)
            if rec is None:
                todo.append(plan.runner(runs))
                if force and (store.run_dir(runs[0].run_id) / ROW).is_file():
                    forced += len(runs)
            else:
                stats.cached += len(runs)
                cached_specs += 1
                add_rows(key, rec, None, rec.get("run_wall_s"))
        stats.to_compute = len(todo)
        if dry_run:
            return planned(stats.cached, len(todo))
        PROCESS_RUNS["cached"] += cached_specs
        report_plan(stats.cached, len(todo))

        close: Optional[Callable[[], None]] = None
        local: Optional[LocalPool] = None
        where = ""
        ran_on = ""
        stop = StopSignals()
        held_logs: dict = {}  # the Dask loggers quietened for a cluster this sweep connects to
        try:
            if todo:
                stop.__enter__()
                client = None  # a Dask client, which sends trace files to every worker once
                if executor is not None:
                    if hasattr(executor, "get_executor") and not isinstance(executor, cf.Executor):
                        client = executor
                        nthreads = sum(executor.nthreads().values()) or 1
                        ran_on = count_shown(len(executor.nthreads()), "Dask worker")
                        executor = executor.get_executor()
                    else:
                        nthreads = getattr(executor, "_max_workers", None) or default_jobs()
                        ran_on = f"{type(executor).__name__} ({count_shown(nthreads, 'worker')})"
                elif dask is not None:
                    try:
                        client, close = connect_dask(dask.strip(), jobs, should_stop=lambda: stop.received is not None)
                    except SweepError:
                        if stop.received is not None:  # a signal while the cluster started (it may have failed then)
                            raise KeyboardInterrupt from None
                        raise
                    if stop.received is not None:  # Ctrl-C while it started: no run is sent
                        raise KeyboardInterrupt
                    quiet_dask_logs(held_logs)
                    nthreads = sum(client.nthreads().values()) or 1
                    executor = client.get_executor()
                    ran_on = count_shown(len(client.nthreads()), "Dask worker")
                    where = f" on {ran_on}"
                    if progress and (link := served_dashboard(client)):
                        from rich.console import Console

                        (console or Console(stderr=True)).print(f"Dask dashboard: {link}", highlight=False)
                else:
                    # A partitioned run keeps `partitions` cores busy: by default as many runs at
                    # once as the cores hold (two runs of 2 partitions on 2 cores took 1.4 x their
                    # one-world time, spinning for each other's windows).
                    parts = max((int(plan.scenario(r).get("run", {}).get("partitions", 1)) for r in todo), default=1)
                    local = LocalPool(min(jobs or max(1, default_jobs() // max(1, parts)), len(todo)))
                    use_plan_files(plan.files)  # forked workers start with the plan's parsed traces
                    local.start()
                    nthreads = local.jobs
                    ran_on = count_shown(local.jobs, "local process", "local processes")
                max_in_flight = max(2, 2 * nthreads)

                def on_result(run: PlannedRun, res: dict) -> None:
                    error = res.get("error")
                    if error is None and res.get("key") != run.key:
                        other_code = res.get("code") not in (None, code_id())
                        at = f" {res['worker']}" if res.get("worker") else ""
                        # (a worker that joined after the sweep's check: its code, not its spec, is
                        # what differs, and it is named: a review)
                        error = (
                            (f"the worker{at} runs other dcsim code (engine sources or Python files) than this sweep "
                             f"(worker dcsim {res.get('version')}, here {__version__})" if other_code else
                             f"the worker{at} built another engine spec (key {str(res.get('key'))[:16]}, expected "
                             f"{run.run_id}; worker dcsim {res.get('version')}, here {__version__})")
                            + ": install the same dcsim on every worker"
                        )
                    wall = res.get("wall_s")
                    if wall is not None:
                        stats.run_wall_s += wall
                    # The summary row of a run this code computed (a failure after it, e.g. in
                    # writing the tables, keeps it in the sweep table beside the error).
                    row = res.get("row") if res.get("key") == run.key else None
                    if error is None:
                        rec = run_record(run.key, res["version"], run.seed, tables, wall, row, res.get("stopped"))
                        try:
                            if not res.get("saved"):
                                store.save_ok(run.run_id, rec, res.get("files") or {}, res.get("links"))
                        except OSError as e:  # e.g. a full disk: recorded as failed, computed again next time
                            error = f"{type(e).__name__}: writing the run's files: {e}"
                        else:
                            stats.computed += 1
                            PROCESS_RUNS["computed"] += 1
                            add_rows(run.key, rec, None, wall)
                            return
                    try:
                        store.save_error(run.run_id, {"run_id": run.run_id, "key": run.key, "seed": run.seed,
                                                      "axes": plan.label(run.combo), "error": error,
                                                      "traceback": res.get("traceback"), "run_wall_s": wall})
                    except OSError:
                        pass  # the error is in the sweep table and the failures either way
                    stats.failed += 1
                    add_rows(run.key, {"metrics": row} if row else None, error, wall)

                stats.started = time.perf_counter()
                with _View(stats, progress, console, where) as view:
                    if stop.received is None:
                        execute(plan, todo, executor=executor, local=local, max_in_flight=max_in_flight, tables=tables,
                                on_result=on_result, on_tick=view.tick, stop=stop,
                                save_to=str(out) if local is not None else None,
                                traces=RunTraces(plan, store if tables else None, ship=local is None, client=client),
                                workers=(lambda: None if client.status == "closed" else len(client.nthreads()))
                                if client is not None else None,
                                local_cluster=dask is not None and dask.strip() == "local", client=client)
                if stop.received is not None:
                    raise KeyboardInterrupt
                if client is not None and client.status != "closed":
                    # the workers at the end: they may have come and gone since the start (a review)
                    with contextlib.suppress(Exception):
                        ran_on = count_shown(len(client.nthreads()), "Dask worker")
        except KeyboardInterrupt:
            raise SweepInterrupted(out, stats.done, stats.total, stop.received or signal.SIGINT) from None
        finally:
            stop.hold()  # a signal while the workers stop waits for them (see StopSignals.hold)
            try:
                if local is not None:
                    local.close()
                    use_plan_files(None)
                if close is not None:
                    close()
            finally:
                stop.__exit__(None, None, None)
                restore_logs(held_logs)
        held = stop.received  # the runs all done, a signal while the workers stopped: as `late` below

        # A signal while the table is written waits for it (the runs are all done): the table is
        # there, then the sweep says it was interrupted.
        with StopSignals() as late:
            meta = {"dcsim.sweep": {**spec.to_dict(), "dcsim_version": __version__}}
            try:
                table_path = write_table(out, rows.table(metadata=meta))
                # The table's description beside it, written with it: a sweep that failed or was
                # stopped left a sweep.json describing it beside the table of the sweep before.
                store.write_json("sweep.json", {**spec.to_dict(), "dcsim_version": __version__, "tables": tables})
            except OSError as e:  # e.g. a full disk: what the runs computed is in OUT/runs
                finished = stats.done - len(failures)
                failed = f"; the {len(failures)} that failed are computed again then" if failures else ""
                raise SweepError(
                    f"out: cannot write the sweep table in {out} ({e.strerror or e}); the results of {finished} of the "
                    f"{len(plan.runs)} runs are kept in {out / 'runs'}: make room and run the same command again, which "
                    f"writes the table without computing them again{failed}"
                ) from None
        if late.received is not None or held is not None:
            raise SweepInterrupted(out, stats.done, stats.total, late.received or held)
    n_new = stats.computed + stats.failed
    seeded = [c for c, seen in by_point.items() if len(seen) > 1]
    same = [plan.label(c) for c in sorted(seeded) if len(set(by_point[c].values())) == 1]
    result = SweepResult(
        out=out,
        table_path=table_path,
        runs=len(plan.runs),
        computed=stats.computed,
        cached=stats.cached,
        failed=len(failures),
        wall_s=time.perf_counter() - t0,
        mean_run_wall_s=(stats.run_wall_s / n_new) if n_new else None,
        failures=failures,
        shared=shared,
        ran_on=ran_on,
        stopped=stopped,
        axes=tuple(a.paths for a in spec.axes),
        combine=spec.combine,
        base=spec.base_name,
        same_over_seeds=same,
        seeded_points=len(seeded),
        # a listed flow's random start where the base has [[flows]], else the hosts' send jitter
        seed_hint='"flows[0].start_jitter" = "100us"' if spec.base.get("flows") else SweepResult.seed_hint,
    )
    if on_plan is None and (note := result.seeds_note()) is not None:  # the API; the CLI prints it
        import warnings

        warnings.warn(note, SeedsWarning, stacklevel=3)
    return result


def _stopped_early(d: Path) -> bool:
    """Whether run directory ``d``'s row is a metrics.max_memory stop that kept no metrics."""
    from dcsim.sweep.store import ROW

    try:
        rec = json.loads((d / ROW).read_bytes())
    except (OSError, ValueError):
        return False
    return isinstance(rec, dict) and bool(rec.get("stopped")) and not rec.get("metrics")


@contextlib.contextmanager
def _removed_if_left_empty(out: Path, created: bool):
    """A sweep that created OUT and wrote nothing there but its lock (it stopped before any run: an
    unreachable Dask scheduler, Ctrl-C at the start) removes it again, instead of leaving an empty
    directory with a .lock in it (a review). The lock file goes while its lock is still held (the
    next sweep's lock sees the file it locked was deleted and takes a new one)."""
    try:
        yield
    finally:
        if created:
            with contextlib.suppress(OSError):
                if [p.name for p in out.iterdir()] == [".lock"]:
                    (out / ".lock").unlink()
                    out.rmdir()


def sweep(
    base: Any,
    axes: Mapping[Any, Any],
    *,
    out: Union[str, Path],
    combine: str = "grid",
    seeds: Any = None,
    seed_base: Optional[int] = None,
    set: Optional[Mapping[str, Any]] = None,
    executor: Optional[Any] = None,
    jobs: Optional[int] = None,
    dask: Optional[str] = None,
    tables: bool = True,
    force: bool = False,
    yes: bool = False,
    progress: bool = True,
) -> SweepResult:
    """Run ``base`` (a Scenario, a TOML-shaped dict, or a scenario file) over ``axes``.

    ``axes``: ``{path: [values]}``, a path like ``"network.aqm.K"`` or ``"flows[1].protocol"``;
    a tuple of paths (or ``"p1, p2"``) makes a linked axis whose values are tuples.
    ``combine``: ``"grid"`` (every combination) or ``"zip"`` (the i-th values together).
    ``seeds``: a count (seeds ``seed_base`` .. ``seed_base + seeds - 1``, ``seed_base`` = 1) or
    a list; ``None`` keeps the base's ``run.seed``. ``set``: fixed ``{path: value}`` changes to
    the base. More than 100 000 runs need ``yes=True``. See :func:`run_sweep` for the rest.
    """
    spec = make_spec(base, axes, combine=combine, seeds=seeds, seed_base=seed_base, set=set)
    return run_sweep(spec, out, executor=executor, jobs=jobs, dask=dask, tables=tables, force=force, yes=yes, progress=progress)
