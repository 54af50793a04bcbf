"""`dcsim sweep FILE.toml`: validate every combination, run what is not cached, write OUT/sweep.parquet.

Exit status: 0 all runs finished; 1 some runs failed (recorded in the table, tried again next
time) or were stopped by metrics.max_memory (kept with what they simulated); 2 invalid input
(nothing ran), or a Dask cluster that could not be used or went away mid-sweep; 130 interrupted
by Ctrl-C (143 by SIGTERM); finished runs are kept and the same command resumes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer


def _default_out(sweep_file: Path) -> Path:
    return Path("dcsim-out") / Path(sweep_file).stem


#: Rows printed at most (the table holds them all).
RESULT_ROWS = 30
#: Distinct scenario warnings printed at most.
MAX_WARNINGS = 10


def _cell(v: float, fmt: str) -> str:
    """A results cell: "-" for none; counts (means over seeds) whole with thousands separators
    from 100 on, else to 3 significant digits."""
    if v != v:
        return "-"
    if fmt == "count":
        return f"{v:,.0f}" if abs(v) >= 100 or v == int(v) else f"{v:.3g}"
    return format(v, fmt)


def results_table(df, paths: list[str]):
    """The sweep's results at a glance: one row per combination of the axes, each headline
    column the mean over the combination's finished seeds (None if no run finished)."""
    from rich.markup import escape

    from dcsim._console import titled_table
    from dcsim.result import ROUGH_BELOW
    from dcsim.sweep.summary import finished_runs, headline_columns

    ok = finished_runs(df)
    if ok.empty:
        return None
    cols = headline_columns(ok)
    # every combination, also one whose seeds all failed (a row of "-", 0 seeds: it had vanished)
    every = df[paths].astype(str).drop_duplicates()
    index = list(map(tuple, every.to_numpy())) if len(paths) > 1 else list(every[paths[0]])
    keys = ok[paths].astype(str)  # an axis may take lists as values
    groups = ok.groupby([keys[p] for p in paths], sort=False)
    means = groups[[c for c, *_ in cols]].mean().reindex(index)
    seeds = groups.size().reindex(index).fillna(0).astype(int)
    # A p99 over fewer than ROUGH_BELOW[0] finished flows in some seed lies among that run's
    # largest few: marked "~" as `dcsim run` marks it (a review: per-seed p99s of ~100 flows and a
    # sweep.parquet p99.9 of 13 flows, unmarked).
    finished = "fct_group[all].finished"
    fewest = groups[finished].min().reindex(index) if finished in ok.columns else None
    p99 = next((j for j, (c, *_) in enumerate(cols) if c == "fct_group[all].slowdown_p99"), None)
    rough = 0
    asked = df.groupby([df[p].astype(str) for p in paths], sort=False).size()
    several = bool((asked > 1).any())  # the seeds column whenever a combination was asked for several
    title = "results after warm-up" + (" (mean over the finished seeds)" if several else "")
    t = titled_table(title)
    for p in paths:
        t.add_column(escape(p))
    if several:
        t.add_column("seeds", justify="right")
    for _, h, _, _ in cols:
        t.add_column(escape(h), justify="right")
    for i, ((key, row), n) in enumerate(zip(means.iterrows(), seeds)):
        if i == RESULT_ROWS:
            t.caption = f"first {RESULT_ROWS} of {len(means)} combinations; all in sweep.parquet"
            break
        key = key if isinstance(key, tuple) else (key,)
        cells = [_cell(row[c] * k, f) for c, _, k, f in cols]
        if p99 is not None and fewest is not None and fewest.iloc[i] < ROUGH_BELOW[0] and cells[p99] != "-":
            cells[p99], rough = "~" + cells[p99], rough + 1
        t.add_row(*(escape(str(k)) for k in key), *([str(n)] if several else []), *cells)
    if rough:
        t.caption = ((t.caption + "; ") if t.caption else "") + (
            f"~: a slowdown p99 over fewer than {ROUGH_BELOW[0]} finished flows in some seed, interpolated between "
            "the few largest: rough")
    return t


def _stale_figure_removed(out: Path, err_console) -> None:
    """An earlier sweep's OUT/sweep.png removed: it does not show this sweep's table."""
    from rich.markup import escape

    from dcsim.sweep.store import FIGURE

    try:
        (out / FIGURE).unlink(missing_ok=True)
    except OSError as e:
        err_console.print(f"[yellow]warning:[/] {escape(str(out / FIGURE))} is an earlier sweep's figure and could not "
                          f"be removed ({escape(e.strerror or str(e))}): it does not show this table")


def _draw(res, console, err_console, x: Optional[str]) -> None:
    """OUT/sweep.png (:meth:`SweepResult.plot`); a figure that cannot be drawn is said, and the
    sweep's table and exit status stand (they are written already)."""
    from rich.markup import escape

    from dcsim.sweep.store import FIGURE

    fig_path = res.out / FIGURE
    try:
        res.plot(fig_path, x=x)
    except (ValueError, OSError) as e:  # nothing to draw (every column 0), a full disk
        err_console.print(f"[yellow]warning:[/] no figure: {escape(str(e))}")
        return
    console.print(f"figure: {fig_path}")


def sweep(
    sweep_file: Path = typer.Argument(..., help="Sweep file (TOML): base scenario, axes table, combine, seeds."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Output directory (default: dcsim-out/<sweep file name>)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Local worker processes, 1 .. 256 (default: all cores); with --dask local, its workers."),
    dask: Optional[str] = typer.Option(None, "--dask", help='Run on the Dask scheduler at ADDRESS (tcp://HOST:PORT), or "local" for a LocalCluster. Needs: pip install \'dcsim[dask]\'.'),
    tables: bool = typer.Option(True, "--tables/--no-tables", help="Write each run's tables to OUT/runs/<run_id>/."),
    force: bool = typer.Option(False, "--force", help="Recompute runs that are already finished."),
    yes: bool = typer.Option(False, "--yes", help="Allow more than 100 000 runs."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Validate and print the plan; run nothing."),
    plots: bool = typer.Option(True, "--plots/--no-plots", help="Draw OUT/sweep.png: the headline results against the first numeric axis, a line for each combination of the others (--no-plots removes an earlier sweep's figure, which would not show this table)."),
    plot_x: Optional[str] = typer.Option(None, "--plot-x", help="The axis path sweep.png draws along x (default: the first axis with numbers)."),
) -> None:
    """Run a scenario over axes of dotted paths (grid or zip, seeds); cached and resumable."""
    from rich.markup import escape

    from dcsim._console import print_table
    from dcsim.cli import check_execution_options, console, err_console, fail
    from dcsim.sweep import SweepError, SweepInterrupted, load_sweep, run_sweep
    from dcsim.units import count_shown, fmt_time, fmt_wall

    check_execution_options(jobs, dask)  # by their option names, before the file is read
    if plot_x is not None and not plots:
        fail("--plot-x: it chooses sweep.png's x axis, and --no-plots draws none; give one of them")
    out = out if out is not None else _default_out(sweep_file)

    def on_plan(plan, c: dict) -> None:
        axes = " x ".join(f"{a.name} ({len(a)})" for a in plan.spec.axes) if plan.spec.combine == "grid" else (
            "zip of " + ", ".join(a.name for a in plan.spec.axes) + f" ({len(plan.combos)} steps)"
        )
        seeds = f" x {count_shown(len(plan.spec.seeds), 'seed')}" if plan.spec.seeds else ""
        where = f"Dask {dask}" if dask else (count_shown(jobs, "local process", "local processes") if jobs
                                              else "all local processes")
        shared = f"; {c['shared']} share an engine spec with another combination (run once)" if c["shared"] else ""
        err_console.print(
            f"[bold]{escape(sweep_file.name)}[/]: "
            + escape(f"{axes}{seeds} = {count_shown(c['runs'], 'run')}; {c['cached'] + c.get('forced', 0)} finished before"
                     + (f", {c['forced']} of them computed again (--force)" if c.get("forced") else "")
                     + f", {c['to_compute']} to run on {where}{shared}; out: {out}")
        )
        if c.get("replaces") is not None:
            from dcsim.sweep import replaced_warning

            err_console.print(f"[yellow]warning:[/] {escape(replaced_warning(out, c['replaces']))}")
        shown = list(plan.warnings.items())
        for msg, combos in shown[:MAX_WARNINGS]:
            err_console.print(f"[yellow]warning:[/] {escape(msg + plan.warning_scope(combos))}")
        if len(shown) > MAX_WARNINGS:
            err_console.print(f"[yellow]warning:[/] ... and {len(shown) - MAX_WARNINGS} more distinct warnings")

    try:
        spec = load_sweep(sweep_file)
        paths = [p for a in spec.axes for p in a.paths]
        if plot_x is not None and plot_x not in paths:  # before anything runs
            fail(f"--plot-x: {plot_x!r} is not an axis path of {sweep_file}; its axis paths: {', '.join(paths)}")
        res = run_sweep(spec, out, jobs=jobs, dask=dask, tables=tables, force=force, yes=yes,
                        console=err_console, dry_run=dry_run, on_plan=on_plan)
    except SweepError as e:
        msg = str(e)  # errors about the file itself name it already
        fail(msg if msg.startswith(f"{sweep_file}: ") else f"{sweep_file}: {msg}")
        return
    except SweepInterrupted as e:  # Ctrl-C, or SIGTERM from a batch scheduler
        from dcsim._signals import RECEIVED

        err_console.print(
            f"[yellow]interrupted:[/] {e.done} of {e.total} runs finished and kept in {escape(str(e.out))}; "
            f"run the same command again to resume"
        )
        # Said: the command line's generic "interrupted (...): stopped; no output directory was left
        # half-written" after it contradicted it (a probe of the Dask path).
        RECEIVED.clear()
        _stale_figure_removed(e.out, err_console)  # the table may be new already
        raise typer.Exit(code=128 + int(e.signum)) from None
    if dry_run:
        return
    mean = f", {fmt_time(res.mean_run_wall_s)} per run" if res.mean_run_wall_s is not None else ""
    on = f" on {res.ran_on}" if res.ran_on else ""
    # Runs whose scenarios differ only where the engine does not look (e.g. run.max_wall) share one
    # engine run: "computed" counts engine runs, "cached" and "failed" rows (a review: "6 runs: 2
    # computed, 0 cached, 0 failed" did not add up)
    shared = (f" ({res.runs - res.computed - res.cached - res.failed} more share their engine runs)"
              if res.computed and res.runs > res.computed + res.cached + res.failed else "")
    stopped = f" ({len(res.stopped)} of them stopped at metrics.max_memory)" if res.stopped else ""
    console.print(
        f"{count_shown(res.runs, 'run')}: {res.computed} computed{shared}, {res.cached} cached{stopped}, {res.failed} "
        f"failed in {fmt_wall(res.wall_s)}{on}{mean}"
    )
    shown = results_table(res.table, [p for a in spec.axes for p in a.paths])
    if shown is not None:
        print_table(console, shown)
    if (note := res.seeds_note()) is not None:
        err_console.print(f"[yellow]warning:[/] {escape(note)}")
    some = tables and res.failed < res.runs  # a failed run wrote no tables
    console.print(f"table: {res.table_path}" + (f"; each run's tables in {res.out / 'runs'}/<run_id>/" if some else ""))
    _stale_figure_removed(res.out, err_console)
    if plots and shown is not None:
        _draw(res, console, err_console, plot_x)
    for runs, word, status in ((res.stopped, "[yellow]stopped[/]", "stopped"), (res.failures, "[red]failed[/]", "error")):
        for f in runs[:10]:
            err_console.print(f"{word} {f['run_id']} ({escape(f['axes'])}, seed {f['seed']}): {escape(f['error'])}")
        if len(runs) > 10:
            err_console.print(f"... and {len(runs) - 10} more (status = '{status}' in the table)")
    if res.stopped:
        err_console.print(f"{count_shown(len(res.stopped), 'run')} stopped at metrics.max_memory: each keeps what it "
                          "simulated past its warm-up, if it got that far (its row"
                          + (f", and its tables in {res.out / 'runs'}/<run_id>/" if tables else "")
                          + ") and is not run again, as the same run stops at the same instant; raise "
                          "metrics.max_memory to run it further")
    if res.failures:
        err_console.print(f"details in {res.out / 'runs'}/<run_id>/error.json; failed runs are tried again by the next sweep")
    if res.unfinished:
        raise typer.Exit(code=1)
