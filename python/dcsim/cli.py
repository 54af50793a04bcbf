"""Command line: ``dcsim run | reproduce | theory | fluid``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from dcsim._console import print_table, say, status_line, wide_console
from dcsim._signals import RECEIVED, signal_name, take_stop_signals
from dcsim.units import count_shown, fmt_time, fmt_wall
from rich.markup import escape
from rich.table import Table

# Plain help (rich_markup_mode=None): no "<bool>" placeholders, brackets shown as typed.
_TYPER = dict(no_args_is_help=True, rich_markup_mode=None)
app = typer.Typer(help="dcsim: data-center congestion-control laboratory.", add_completion=False, **_TYPER)
theory_app = typer.Typer(help="Closed-form theory of the reference papers.", **_TYPER)
fluid_app = typer.Typer(help="Integrate the papers' fluid (delay-differential) models.", **_TYPER)
app.add_typer(theory_app, name="theory")
app.add_typer(fluid_app, name="fluid")


console = wide_console()
err_console = wide_console(stderr=True)


def _version(value: bool) -> None:
    if value:
        import dcsim

        console.print(f"dcsim {dcsim.__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """dcsim: data-center congestion-control laboratory."""


#: An error message's longest line, characters: a value echoed in it is cut in the middle beyond
#: this (a 20 MB rtt string had been printed whole, in 18 s: a fuzz run).
MAX_ERROR_LINE = 1000


def clip_message(msg: str, width: int = MAX_ERROR_LINE) -> str:
    """``msg`` with each line longer than ``width`` cut in its middle, saying how much was cut."""
    def clip(line: str) -> str:
        if len(line) <= width:
            return line
        keep = width // 2
        return f"{line[:keep]} ... ({len(line) - 2 * keep:,} characters cut) ... {line[-keep:]}"

    return "\n".join(clip(line) for line in str(msg).split("\n"))


def fail(msg: str) -> None:
    """Print a clear error and exit with status 2 (the message is shown as is, never as markup:
    "[[network.links]]" stays visible; over-long lines cut, :func:`clip_message`)."""
    say(err_console, f"[bold red]error:[/] {escape(clip_message(str(msg)))}")
    raise typer.Exit(code=2)


@app.command()
def run(
    scenario: Path = typer.Argument(..., help="Scenario file (TOML)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Output directory (default: dcsim-out/<scenario name>)."),
    set_: list[str] = typer.Option(
        [], "--set", "-s", metavar="PATH=VALUE",
        help='Change a field before running, e.g. --set network.aqm.K=40pkt --set "flows[0].protocol=newreno" '
             "(values as in the file; repeatable).",
    ),
    plots: bool = typer.Option(True, "--plots/--no-plots", help="Write PNG plots."),
    wait_plots: bool = typer.Option(
        False, "--wait-plots",
        help="Wait for the plots, list them, and exit 1 if one fails. By default they are drawn in the background "
             "after the command returns: plots.json appears in the output directory when they are complete, "
             "naming any that failed."),
    force: bool = typer.Option(False, "--force", help="Replace an existing output directory that is not a dcsim run."),
    fmt: str = typer.Option("table", "--format", help="Summary on stdout: table, json or csv (csv: the flows table; with L2 sources alone, the sources table)."),
    json_: bool = typer.Option(False, "--json", help="Same as --format json (progress goes to stderr)."),
) -> None:
    """Run a packet-level scenario: summary table, Parquet tables, summary.json, PNG plots."""
    if fmt not in ("table", "json", "csv"):
        fail(f"--format: {fmt!r} is not one of table, json, csv")
    if json_ and fmt not in ("table", "json"):
        fail(f"--json: it means --format json, and --format {fmt} was given; give one of them")
    if wait_plots and not plots:  # it had exited 0 with no plots, saying nothing (a probe)
        fail("--wait-plots: it waits for the plots, and --no-plots draws none; give one of them")
    worker = None
    if plots and wait_plots:  # first of all: the plot process imports matplotlib while this one imports the rest
        from dcsim._plot_worker import PlotWorker

        worker = PlotWorker()
    try:
        from dcsim.run import run_scenario_file  # numpy is imported while the engine runs

        run_scenario_file(scenario, out, plots=plots, wait_plots=wait_plots, console=console, fail=fail, fmt="json" if json_ else fmt,
                          sets=set_, force=force, plot_worker=worker)
    finally:
        if worker is not None:
            worker.stop()


def check_execution_options(jobs: Optional[int], dask: Optional[str]) -> None:
    """--jobs and --dask of `dcsim sweep` and `dcsim reproduce`, checked before anything is read or
    made, by their option names (one error wording for both commands)."""
    from dcsim.sweep import SweepError, check_dask_address, check_jobs
    from dcsim.sweep.execute import check_jobs_with_dask

    try:
        check_jobs(jobs, "--jobs")
        if dask is not None:
            check_dask_address(dask, "--dask")
            check_jobs_with_dask(dask, jobs, cli=True)
    except SweepError as e:
        fail(str(e))


def print_claims(result, quick: bool = False) -> None:
    """The paper's claims, then dcsim's own checks (shown apart, never counted), then the tally.

    Experiments that lay the packet simulation, the fluid model and the theory side by side get one
    column per instrument instead of one "dcsim" column."""
    from dcsim.report import QUICK_NOTE, claims_layout

    for rows, title, head in (
        (result.paper_claims, f"{result.id}: {result.title}", "claim (paper)"),
        (result.checks, f"{result.id}: checks (dcsim's own, not claims of the paper, not counted)", "check"),
    ):
        if not rows:
            continue
        cols, laid = claims_layout(rows)  # the HTML report's layout too
        table = Table(title=escape(title), show_lines=True)
        for col in (head, "paper", *cols, "verdict", "detail"):
            table.add_column(col, overflow="fold")
        for c, (ours, word, good) in zip(rows, laid):
            table.add_row(escape(c.statement), escape(c.paper), *(escape(x) for x in ours),
                          f"[{'green' if good else ('cyan' if c.inconclusive else 'yellow')}]{word}[/]",
                          escape(c.detail))
        print_table(console, table)

    console.print(escape(result.summary()) + (f" [yellow]({escape(QUICK_NOTE)})[/]" if quick else ""))


def print_tally(entries, not_run, quick: bool) -> None:
    """After more than one experiment: each one's verdicts in a table, then the tally over all
    (the HTML report's index, in the terminal)."""
    from dcsim.report import tally, verdict_counts

    table = Table(title="all experiments of this run")
    for col in ("experiment", "claims of the paper", "dcsim's checks", "wall time"):
        table.add_column(col, overflow="fold")
    styles = {"reproduced": "green", "differs": "yellow", "inconclusive": "cyan", "failed": "red", "none": "dim"}
    for e in entries:
        kind, said, checks = verdict_counts(e)
        style = styles[kind]
        table.add_row(escape(e.id), f"[{style}]{escape(said)}[/]", escape(checks), fmt_wall(e.wall_s))
    print_table(console, table)
    left = f"; not run: {', '.join(not_run)}" if not_run else ""
    console.print(escape(tally(entries) + left) + (" [yellow](--quick)[/]" if quick else ""))


@app.command()
def reproduce(
    ids: Optional[list[str]] = typer.Argument(None, help="Experiment ids; see --list.", show_default=False),
    all_: bool = typer.Option(False, "--all", help="Every experiment, one after the other."),
    list_: bool = typer.Option(False, "--list", help="List experiment ids."),
    out: Path = typer.Option(Path("dcsim-out"), "--out", "-o", help="Output root; files go to OUT/ID/."),
    quick: bool = typer.Option(False, "--quick", help="Coarser grids and fewer repetitions, for a fast look."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Local processes for the packet runs, 1 .. 256 (default: all cores)."),
    dask: Optional[str] = typer.Option(None, "--dask", help='Run the packet runs on a Dask scheduler: an address, or "local".'),
    html_dir: Optional[Path] = typer.Option(None, "--html", help="Also write a static HTML report into this directory."),
) -> None:
    """Reproduce figures and tables of the reference papers: PNG + CSV + Parquet and a claims table
    each; with --html, one report with every figure and claims table."""
    from dcsim.experiments.registry import all_experiments, get

    run_options = [name for name, given in (("--quick", quick), ("--jobs", jobs is not None), ("--dask", dask is not None),
                                            ("--html", html_dir is not None), ("--out", out != Path("dcsim-out")))
                   if given]
    if list_ and (ids or all_ or run_options):
        # --list with anything to run had listed and exited 0, the rest ignored (a review)
        given = (["ids"] if ids else []) + (["--all"] if all_ else []) + run_options
        fail(f"--list only lists the experiments; not with {', '.join(given)} (leave out --list to run them)")
    if not list_ and not ids and not all_ and run_options:
        # A script's `dcsim reproduce $IDS --html rep` with an empty $IDS had printed the list and
        # exited 0, with no report and no word about its options (a review).
        verb = "applies" if len(run_options) == 1 else "apply"
        fail(f"no experiment to run: {', '.join(run_options)} {verb} to a run; give experiment ids or --all "
             "(dcsim reproduce --list shows them)")
    if list_ or (not ids and not all_):
        from dcsim.experiments.registry import runtime, runtimes, shipped_runtimes

        mine, shipped = runtimes(), shipped_runtimes()
        table = Table(title="experiments (runtime, full / --quick: last measured on this machine; * typical, shipped)")
        for col in ("id", "paper", "what", "runtime"):
            table.add_column(col, overflow="fold")
        for e in all_experiments():
            shown = []
            for q in (False, True):
                t, src = runtime(e.id, q, mine, shipped)
                shown.append("—" if t is None else fmt_time(t) + ("*" if src == "shipped" else ""))
            table.add_row(e.id, e.paper, e.title, " / ".join(shown))
        print_table(console, table)
        if shipped:
            console.print(f"* typical: measured on {shipped.get('machine')} ({shipped.get('date')}, dcsim "
                          f"{shipped.get('dcsim')}; {shipped.get('load')})", highlight=False)
        return
    if all_ and ids:
        fail("give experiment ids or --all, not both")
    check_execution_options(jobs, dask)
    exps = all_experiments() if all_ else []
    for i in dict.fromkeys(ids or []):  # an id given twice runs once
        try:
            exps.append(get(i))
        except KeyError as e:
            fail(str(e.args[0]))
    from dcsim.commands.inputs import output_dir

    for option, d in (("--out", out), ("--html", html_dir)):  # before anything runs: made, and writable
        if d is not None:  # (an existing read-only --out had failed each experiment in turn: a probe)
            output_dir(d, option)
    for exp in exps:  # a file in the way of an experiment's directory had stopped the whole batch
        if (out / exp.id).exists() and not (out / exp.id).is_dir():
            fail(f"--out: {out / exp.id} is a file, in the way of the directory of experiment {exp.id}; remove it "
                 f"or give another --out")
    import time
    import traceback

    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
    from rich.table import Column

    from dcsim.experiments.registry import FigureFailed, record_runtime
    from dcsim.report import Entry, write_report
    import warnings

    from dcsim.sweep import PROCESS_RUNS, SweepError, SweepWarning, execution

    close = None
    executor = None
    if dask is not None:
        from dcsim.sweep.execute import connect_dask

        try:
            executor, close = connect_dask(dask, jobs)
            jobs = None
        except SweepError as e:
            fail(str(e))
    entries: list[Entry] = []
    failed = 0
    signals_before = len(RECEIVED)
    try:
        with execution(jobs=jobs, executor=executor), warnings.catch_warnings():
            # An experiment's sweep replacing its table of the other mode (--quick or full) in the
            # same directory is what reproduce does to all of an experiment's files; the warning's
            # advice ("use another output directory") was for a user's own sweep (a review).
            warnings.simplefilter("ignore", SweepWarning)
            for k, exp in enumerate(exps, 1):
                out_dir = out / exp.id
                t0, before = time.perf_counter(), {}
                runs_before = dict(PROCESS_RUNS)
                what = f"[{k}/{len(exps)}] " if len(exps) > 1 else ""
                try:
                    out_dir.mkdir(parents=True, exist_ok=True)  # an experiment of its own that fails
                    before = _files_state(out_dir)
                    # The spinner and the time first, the title last and cut to the line: a title
                    # longer than the line had pushed both off it at 80 columns (dctcp-fig7's), so a
                    # long experiment looked hung (a probe).
                    with Progress(SpinnerColumn(), TimeElapsedColumn(),
                                  TextColumn("{task.description}", table_column=Column(
                                      no_wrap=True, overflow="ellipsis", max_width=max(10, err_console.width - 12))),
                                  console=err_console, transient=True, disable=err_console.is_dumb_terminal) as bar:
                        task = bar.add_task("", total=None)
                        with status_line(bar, task, f"{what}reproducing {escape(exp.id)}{{note}}: {escape(exp.title)}"):
                            try:
                                result = exp.run(out_dir, quick)  # its sweeps show their progress in {note}
                                unwritten = None
                            except FigureFailed as ff:  # it ran to the end: its claims and tables are kept
                                result, unwritten = ff.result, ff
                    wall = time.perf_counter() - t0
                    # Inside the try: a Ctrl-C or a failure while the claims are written counts this
                    # experiment as interrupted or failed, never as missing from the tally.
                    print_claims(result, quick)
                    files = [*result.files, *write_claims(result, out_dir, quick), *parquet_beside_csvs(result.files)]
                    if unwritten is not None:
                        failed += 1
                        msg = f"{type(unwritten).__name__}: {unwritten}"
                        say(err_console, f"[bold red]error:[/] {escape(exp.id)} failed: {escape(msg)}")
                        console.print("files: " + ", ".join(str(p) for p in files))
                        entries.append(Entry(exp.id, exp.title, exp.paper, out_dir, wall, result=result, files=files,
                                             error=msg))
                        continue  # counted in `failed`: exit status 1 after the report
                    # Bookkeeping, after the results are written; a rerun that took packet runs from
                    # the cache did not measure what the experiment costs (a review: dx-table1
                    # "4.6 s" became "1.03 s", below its --quick time).
                    if _runs_since(runs_before)[0] == 0:
                        record_runtime(exp.id, quick, wall)
                    console.print("files: " + ", ".join(str(p) for p in files))
                except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM in one of its sweeps (SweepInterrupted)
                    wall = time.perf_counter() - t0
                    done = f"{k - 1} of {len(exps)} experiments finished before it; " if len(exps) > 1 else ""
                    kept = sum(_runs_since(runs_before))
                    msg = (f"{exp.id} was interrupted after {wall:.1f} s; {done}"
                           + (f"{count_shown(kept, 'finished packet run')} kept in {out_dir}: run the same command "
                              f"again to resume" if kept else "no finished packet run was kept (none had finished, or it keeps none): "
                              "the same command runs it from the start"))
                    say(err_console, f"[yellow]interrupted:[/] {escape(msg)}")
                    entries.append(Entry(exp.id, exp.title, exp.paper, out_dir, wall, error=msg, interrupted=True))
                    import signal

                    # a signal this command received (an in-process sweep stopped earlier, as an
                    # API call, leaves its own in RECEIVED: a SIGTERM of a test before had turned a
                    # Ctrl-C here into exit 143, run in another order)
                    mine = RECEIVED[signals_before:]
                    signum = getattr(e, "signum", mine[-1] if mine else signal.SIGINT)
                    RECEIVED.clear()  # said above: main() need not say it again
                    raise typer.Exit(code=128 + int(signum)) from None
                except Exception as e:  # one failed experiment must not lose the others
                    wall = time.perf_counter() - t0
                    failed += 1
                    msg = f"{type(e).__name__}: {e}"
                    say(err_console, f"[bold red]error:[/] {escape(exp.id)} failed: {escape(msg)}")
                    written, note = _after_failure(out_dir, before)
                    if note:
                        say(err_console, escape(note))
                    entries.append(Entry(exp.id, exp.title, exp.paper, out_dir, wall, files=written,
                                         error=msg + "\n\n" + (note + "\n\n" if note else "")
                                         + "".join(traceback.format_exception(type(e), e, e.__traceback__))))
                    if len(exps) == 1:
                        raise typer.Exit(code=1)
                    continue
                entries.append(Entry(exp.id, exp.title, exp.paper, out_dir, wall, result=result, files=list(result.files)))
    finally:
        if close is not None:
            close()
        # One entry per experiment that started, in order: those after them did not run (also when
        # the loop was left between two experiments).
        not_run = [x.id for x in exps[len(entries):]]
        if len(exps) > 1 and entries:
            print_tally(entries, not_run, quick)
        if html_dir is not None and entries:
            import dcsim

            index = write_report(entries, html_dir, quick=quick, version=dcsim.__version__, not_run=not_run)
            console.print(f"report: {index}")
    if failed:
        raise typer.Exit(code=1)


#: Files up to this size are also told apart by their content (see :func:`_files_state`).
STATE_CRC_MAX_BYTES = 8 << 20


def _files_state(out_dir: Path) -> dict[str, tuple]:
    """Each file of ``out_dir``: (modification time ns, size, inode, CRC-32 of its content up to
    STATE_CRC_MAX_BYTES), to tell what an experiment wrote by comparing before and after. (A
    modification time against the clock read at the start missed files: the kernel stamps them from
    a coarse clock, a tick behind, and a CSV written just after the start was left out, its Parquet
    copy stale: a test, run in some order. The content catches a file rewritten in place, at its
    size, within one tick.)"""
    from dcsim._files import size_crc32

    state = {}
    try:
        for p in Path(out_dir).iterdir():
            try:
                st = p.stat()
                if not p.is_file():
                    continue
                crc = size_crc32(p.read_bytes())[1] if st.st_size <= STATE_CRC_MAX_BYTES else None
            except OSError:
                continue
            state[p.name] = (st.st_mtime_ns, st.st_size, st.st_ino, crc)
    except OSError:
        pass
    return state


def _after_failure(out_dir: Path, before: dict[str, tuple]) -> tuple[list[Path], str]:
    """What a failed experiment leaves in ``out_dir``: the files it wrote (new or changed since
    ``before``, :func:`_files_state` as it started; its sweeps' folders apart) with a Parquet copy of
    each CSV among them, and a note saying so. If it wrote any, the claims and parameters an earlier
    run left there no longer describe the folder and are removed (a review: a failed full run had
    left a quick run's claims.json and parameters.json beside its own new CSVs)."""
    written = sorted(Path(out_dir) / name for name, st in _files_state(out_dir).items() if before.get(name) != st)
    if not written:
        return [], ""
    stale = [p for p in (Path(out_dir) / n for n in ("claims.json", "claims.parquet", "parameters.json"))
             if p.exists() and p not in written]
    for p in stale:
        try:
            p.unlink(missing_ok=True)
        except OSError:  # e.g. a directory in its place: the failure is reported already (a review)
            pass
    copies: list[Path] = []
    try:
        copies = parquet_beside_csvs(written)
    except Exception:  # noqa: BLE001 - the note below lists what is there; the failure is reported already
        pass
    files = list(dict.fromkeys([*written, *copies]))
    note = (f"it wrote {count_shown(len(files), 'file')} before it failed: " + ", ".join(p.name for p in files)
            + (f"; removed the earlier run's {', '.join(p.name for p in stale)} (they no longer describe the folder)"
               if stale else ""))
    return files, note


def write_claims(result, out_dir: Path, quick: bool = False) -> list[Path]:
    """claims.json and claims.parquet (one row per claim or check, each with the run's mode:
    "quick" or "full")."""
    import pandas as pd

    from dcsim._files import atomic_write_bytes, frame_to_parquet

    rows = [{**c.as_dict(), "mode": "quick" if quick else "full"} for c in result.claims]
    js, pq = out_dir / "claims.json", out_dir / "claims.parquet"
    atomic_write_bytes(js, json.dumps(rows, indent=2).encode("utf-8"), fsync=False)
    # Text columns with nulls where a row has no such key (a check row has no packet / fluid /
    # theory): astype(str) wrote the text "nan" there under pandas 2 (a review), null under pandas 3.
    frame_to_parquet(pd.DataFrame(rows).astype("string"), pq)
    return [js, pq]


def parquet_beside_csvs(files) -> list[Path]:
    """A Parquet copy of every CSV an experiment wrote (like `dcsim run`, tables as Parquet)."""
    import pandas as pd

    from dcsim._files import frame_to_parquet

    out = []
    for p in map(Path, files):
        if p.suffix.lower() == ".csv" and p.exists():
            q = p.with_suffix(".parquet")
            frame_to_parquet(pd.read_csv(p), q)
            out.append(q)
    return out


from dcsim.commands import theory_dctcp  # noqa: E402
theory_app.command("dctcp")(theory_dctcp.dctcp)
from dcsim.commands import theory_dx  # noqa: E402
theory_app.command("dx")(theory_dx.dx)
from dcsim.commands import theory_dsm  # noqa: E402
theory_app.command("dsm")(theory_dsm.dsm)
from dcsim.commands import fluid as fluid_cmds  # noqa: E402
fluid_app.command("dctcp")(fluid_cmds.dctcp)
fluid_app.command("dx")(fluid_cmds.dx)
fluid_app.command("dctcp-fig2")(fluid_cmds.dctcp_fig2)
from dcsim.commands import sweep as sweep_cmd  # noqa: E402
app.command("sweep")(sweep_cmd.sweep)


#: The cyclic garbage collector while a command runs: a collection of the youngest objects every
#: this many allocations (CPython's default, 700, suits long-lived programs). A command's start-up
#: creates ~50 000 objects that live until it exits (modules, classes, the scenario models'
#: validators), and each collection walks the young ones again: 113 + 10 collections, ~20 ms of
#: `dcsim run`'s ~0.45 s. At exit every object is frozen (``gc.freeze``), so that the interpreter's
#: final collections skip them (~60 ms; the process's memory goes back to the system anyway);
#: exit handlers, flushing and module teardown run as before. Both measured with
#: benchmarks/bench_cli.py (benchmarks/MEASUREMENTS.md, command latency).
GC_THRESHOLD_0 = 20_000


def _version_mismatch_line(message: str) -> str:
    """Dask's VersionMismatchWarning (a table of the packages whose versions differ between this
    machine, the scheduler and the workers) as one line: "numpy here 2.0.1, scheduler 2.0.1,
    workers {'1.26.4', '1.26.0'}; ...". The table, a probe found, filled the terminal."""
    rows = []
    for line in message.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if len(cells) == 4 and cells[0] != "Package":
            pkg, here, scheduler, workers = cells
            workers = "lack it" if workers in ("None", "MISSING") else workers
            rows.append(f"{pkg} here {here}, scheduler {scheduler}, workers {workers}")
    if not rows:
        return f"dask: {message.strip()}"
    return ("dask: the cluster's Python packages differ from this machine's: " + "; ".join(rows)
            + " (dcsim's own version is checked: a run a worker cannot do is listed as failed)")


def _scenario_warnings_as_lines():
    """Show scenario warnings to a CLI user as "warning: message" lines, each once (a sweep's or
    an experiment's runs raise the same one many times), without Python's source path, and Dask's
    version table as one such line; other warnings as Python shows them. Returns the previous
    ``warnings.showwarning``."""
    import warnings

    shown: set[str] = set()
    previous = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        # By name: dcsim.scenario (and Dask) are not imported yet.
        if category.__name__ == "VersionMismatchWarning":  # Dask's, as a sweep connects to a cluster
            text = _version_mismatch_line(str(message))
        elif category.__name__ == "ScenarioWarning":
            text = str(message)
        else:
            return previous(message, category, filename, lineno, file, line)
        if text not in shown:
            shown.add(text)
            say(err_console, f"[yellow]warning:[/] {escape(text)}")

    warnings.showwarning = show
    return previous


def _runs_since(before: dict[str, int]) -> tuple[int, int]:
    """(cached, computed): the packet runs the sweeps of this process took from their stores and
    computed since ``before`` (a copy of :data:`dcsim.sweep.PROCESS_RUNS`). Their sum is what an
    interrupted experiment keeps for the same command (at least: its sweeps that had not started
    yet may hold more from earlier). An experiment with none (a fluid or theory figure, or one
    stopped before its first run) had been said to keep "the runs it finished ... run the same
    command again to resume" all the same (a probe)."""
    from dcsim.sweep import PROCESS_RUNS

    return PROCESS_RUNS["cached"] - before["cached"], PROCESS_RUNS["computed"] - before["computed"]


def main() -> int:
    """Console-script entry point. Ctrl-C exits with 130 and one line, a usage error with 2, and
    no traceback reaches the user (set DCSIM_DEBUG=1 to see one for a bug report)."""
    import atexit
    import gc
    import os
    import signal

    from dcsim._console import tolerate_narrow_encodings

    tolerate_narrow_encodings()
    # typer >= 0.26 vendors its own click (typer._click) and raises only its errors; older typers
    # (the newest for Python 3.9 is 0.23) use click itself, and only 0.28 has typer.exceptions: typer.Abort
    # and typer.Exit are the public names in both. Catch the usage errors of whichever typer uses
    # (importing click beside a vendored one would cost ~5 ms of start-up for errors that never come).
    click_errors: tuple = ()
    aborts: tuple = (KeyboardInterrupt, typer.Abort)
    exits: tuple = (typer.Exit,)
    for name in ("typer._click", "click"):
        try:
            mod = __import__(name, fromlist=["exceptions"])
        except ImportError:
            continue
        exc = mod.exceptions
        click_errors += (exc.ClickException,)
        aborts += tuple(getattr(exc, n) for n in ("Abort",) if hasattr(exc, n))
        exits += tuple(getattr(exc, n) for n in ("Exit",) if hasattr(exc, n))
        break

    interrupted = RECEIVED  # typer would turn the KeyboardInterrupt into a silent exit 130
    interrupted.clear()

    def on_sigint(signum, frame):  # remember it: typer turns KeyboardInterrupt into a silent exit
        interrupted.append(signum)
        # A second signal while the command stops on the first waits for that stop (its cleanup,
        # and its message of what was kept: a sweep's "9 of 20 runs finished and kept ...; run the
        # same command again to resume" had been replaced by the generic line, or by nothing, when
        # a second Ctrl-C came 0.1 s after the first: a probe); a third stops at once.
        if len(interrupted) == 2:
            return
        signal.default_int_handler(signum, frame)

    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, on_sigint)
    # SIGTERM and SIGHUP stop a command as Ctrl-C does: partial output removed, one line, status
    # 128 + the signal's number (their default action left a run's finished tables in a hidden
    # temporary directory). A sweep takes SIGTERM over while it runs (finished runs kept).
    take_stop_signals(on_sigint)
    threshold = gc.get_threshold()
    gc.set_threshold(GC_THRESHOLD_0, *threshold[1:])
    atexit.unregister(gc.freeze)  # once per process, however often main() is called
    atexit.register(gc.freeze)  # see GC_THRESHOLD_0
    import warnings

    show_warning = _scenario_warnings_as_lines()
    try:
        rv = app(standalone_mode=False)
        if interrupted:
            raise KeyboardInterrupt
        return rv if isinstance(rv, int) else 0
    except aborts:
        signum = interrupted[-1] if interrupted else signal.SIGINT
        # Said of the commands that write an output directory (a probe: `theory dctcp`, which
        # writes none, was told about one).
        writes_dir = bool({"run", "sweep", "reproduce", "dctcp-fig2"} & set(sys.argv[1:3]))
        err_console.print(f"[bold red]interrupted[/] ({signal_name(signum)}): stopped"
                          + ("; no output directory was left half-written" if writes_dir else ""))
        return 128 + int(signum)
    except exits as e:
        return e.exit_code
    except click_errors as e:
        e.show()
        return e.exit_code
    except Exception as e:  # a bug: one line, not a traceback
        if os.environ.get("DCSIM_DEBUG"):
            raise
        if isinstance(e, OSError) and e.errno is not None:
            # The system refused a file or a stream (stdout on a full disk, a file without
            # permission): the environment's doing, not a bug, and said so in one line.
            where = f": {e.filename}" if e.filename else " (writing the output)"
            say(err_console, f"[bold red]error:[/] {escape(e.strerror or str(e))}{escape(where)}")
            return 1
        err_console.print(
            f"[bold red]internal error[/] (please report it with the command and scenario): "
            f"{escape(type(e).__name__)}: {escape(str(e))}. Set DCSIM_DEBUG=1 for the traceback."
        )
        return 1
    finally:
        gc.set_threshold(*threshold)
        warnings.showwarning = show_warning


def entry() -> None:
    """The ``dcsim`` console script: :func:`main`, then the interpreter's shutdown without its
    module teardown. What Python does at exit that matters is done here, in its order: wait for
    the threads that are not daemons (after threading's own exit callbacks, which tell executors'
    threads to stop), run the exit handlers, flush stdout and stderr (a flush
    that fails makes the status 120 when it was 0, as Python's own exit does). Only the teardown
    of the modules and their objects (numpy, the scenario models) is skipped, and the
    system takes the memory back whole: `dcsim run` of the demo 336.4 -> 330.0 ms (medians of 30
    alternated runs, benchmarks/MEASUREMENTS.md, command latency)."""
    import atexit
    import os
    import threading

    # Every figure dcsim draws is a file drawn with Agg (the experiments select it; the plots use
    # its canvas), so the user's MPLBACKEND, for their own sessions, changes nothing here, but an
    # invalid one made `import matplotlib` fail: `dcsim reproduce` ended in "internal error" and
    # the run's plotter in "plot failed" (a robustness probe). The plotter process inherits this.
    os.environ["MPLBACKEND"] = "agg"
    code = main()
    # CPython's own shutdown steps; on an interpreter without them, exit as usual.
    wait_for_threads = getattr(threading, "_shutdown", None)
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    if wait_for_threads is None or run_exit_handlers is None:
        sys.exit(code)
    wait_for_threads()  # as at exit: threading's exit callbacks (executors), then the non-daemon threads
    run_exit_handlers()
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # started with the stream closed (`dcsim run ... >&-`): nothing to flush
            continue
        try:
            stream.flush()
        except (OSError, ValueError):
            code = code or 120
    os._exit(code)


if __name__ == "__main__":
    entry()
