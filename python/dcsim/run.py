"""``dcsim run FILE.toml``: validate, simulate with a progress bar, print a summary, write files.

Order matters: the scenario is validated before anything runs (exit 2 on a bad file); after the
run every table is written as Parquet plus summary.json by this process, the plots by another
one (:mod:`dcsim._plot_worker`), so a plot failure loses nothing computed. By default (the CLI)
that process draws in the background and the command returns once the tables are written; the
plotter records its outcome in plots.json. With ``wait_plots`` (``--wait-plots``, the Python
API's default) the plots are drawn while the tables are written and waited for; a failure is
reported and the exit status is 1.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
import uuid
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional, Sequence

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from dcsim._console import bar_fits, bar_width, print_table, say, silence, slow_step, wide_console
from dcsim._files import MANIFEST, atomic_dir, atomic_write_bytes, file_checks, read_manifest
from dcsim._preload import import_in_background

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib
from dcsim.scenario import DataFiles, RunLimitError, Scenario, ScenarioError, ScenarioWarning, load_scenario, reading_files
from dcsim.simulate import simulate
from dcsim.units import count_shown, fmt_time

if TYPE_CHECKING:  # numpy: imported while the engine runs (dcsim._preload)
    from dcsim.result import Result

__all__ = ["run_scenario_file", "default_out_dir", "print_summary"]

#: The flow table lists at most this many flows; the rest are summarised in one line.
MAX_FLOW_ROWS = 20
#: The port table lists at most this many monitored ports, the busiest (largest mean queue, then
#: utilization) in their order; the rest are summarised in one line (a tree of 5 000 hosts
#: monitors 5 100 ports by default: the table had printed every one).
MAX_PORT_ROWS = 20


def default_out_dir(scenario_path: Path) -> Path:
    return Path("dcsim-out") / Path(scenario_path).stem


def _num(x, fmt: str, unit: str = "") -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    return f"{x:{fmt}}{(' ' + unit) if unit else ''}"


def _gbps(x) -> str:
    return _num(None if x is None else x / 1e9, ".3f", "Gbps")


def _time(x) -> str:
    return "-" if x is None or not math.isfinite(x) else fmt_time(x)


def busiest_ports(rows: list) -> tuple[list, list]:
    """The port rows the summary table shows, in their order, and the rest: all of them, or the
    MAX_PORT_ROWS with the largest mean queue, then utilization (a missing number counts as 0)."""
    if len(rows) <= MAX_PORT_ROWS:
        return list(rows), []
    def load(i: int) -> tuple:
        r = rows[i]
        return (-(r["q_mean_pkt"] or 0.0), -(r["utilization"] or 0.0), i)
    keep = set(sorted(range(len(rows)), key=load)[:MAX_PORT_ROWS])
    return [r for i, r in enumerate(rows) if i in keep], [r for i, r in enumerate(rows) if i not in keep]


def print_summary(summary: dict, console: Console) -> None:
    """The summary as rich tables; the unit of every number is in its column header."""
    ports = Table(title="Ports (after warm-up)")
    shown, rest = busiest_ports(summary["ports"])
    # idle time in us, or in ms once some port idles 10 ms or more (a walkthrough read "idle us 1148193.0")
    idle_max = max((p["idle_s"] for p in shown if p["idle_s"] is not None and math.isfinite(p["idle_s"])), default=0.0)
    idle_unit, idle_scale = ("ms", 1e3) if idle_max >= 0.01 else ("us", 1e6)
    heads = ("port", "rate Gbps", "util %", "q mean pkt", "q p50 pkt", "q p99 pkt", "q max pkt", f"idle {idle_unit}",
             "drops pkt", "marks pkt")
    for col in heads:
        ports.add_column(col, justify="left" if col == "port" else "right")
    if rest:
        ports.title = f"Ports (after warm-up; the {len(shown)} busiest of {len(shown) + len(rest)} monitored)"
    for p in shown:
        ports.add_row(
            escape(p["port"]),
            _num(p["rate_bps"] / 1e9, ".4g"),
            _num(None if p["utilization"] is None else 100 * p["utilization"], ".2f"),
            _num(p["q_mean_pkt"], ".1f"),
            _num(p["q_p50_pkt"], ".0f"),
            _num(p["q_p99_pkt"], ".0f"),
            _num(p["q_max_pkt"], ".0f"),
            _num(None if p["idle_s"] is None else p["idle_s"] * idle_scale, ".1f"),
            _num(p["drops"], "d"),
            _num(p["marks"], "d"),
        )
    if rest:
        util = [r["utilization"] for r in rest if r["utilization"] is not None]
        qmax = [r["q_max_pkt"] for r in rest if r["q_max_pkt"] is not None]
        ports.add_row(f"+{len(rest)} more ports", "", _num(100 * max(util), ".2f") + " (max)" if util else "",
                      "", "", "", _num(max(qmax), ".0f") + " (max)" if qmax else "", "",
                      _num(sum(r["drops"] or 0 for r in rest), "d"), _num(sum(r["marks"] or 0 for r in rest), "d"))
        ports.caption = "every monitored port: summary.json and ports.parquet"
    print_table(console, ports)
    print_tiers(summary, console)

    flows = Table(title="Flows (after warm-up; FCT over the whole run)")
    heads = ("flow", "src->dst", "protocol", "goodput Gbps", "cwnd pkt", "alpha", "retx pkt", "RTOs", "CE pkt", "FCT ms")
    rows = summary["flows"]
    # a controller deciding once per RTT (DX): the paper's p and its measured queueing delay Q
    rounds = any(f.get("rtt_rounds") for f in rows)
    if rounds:
        heads += ("p", "Q us")
    for col in heads:
        flows.add_column(col, justify="left" if col in ("src->dst", "protocol") else "right")
    for f in rows[:MAX_FLOW_ROWS]:
        extra = ()
        if rounds:
            q = f.get("q_delay_mean_s")
            extra = (_num(f.get("p_decrease"), ".3f"), _num(None if q is None else q * 1e6, ".2f"))
        flows.add_row(
            str(f["flow"]),
            escape(f"{f['src']}->{f['dst']}"),
            f["protocol"],
            _num(None if f["goodput_bps"] is None else f["goodput_bps"] / 1e9, ".3f"),
            _num(f["cwnd_mean_pkt"], ".1f"),
            _num(f["alpha_mean"], ".3f"),
            _num(f["retransmits"], "d"),
            _num(f["timeouts"], "d"),
            _num(f["marks"], "d"),
            _num(None if f["fct_s"] is None else f["fct_s"] * 1e3, ".3f"),
            *extra,
        )
    if len(rows) > MAX_FLOW_ROWS:
        rest = rows[MAX_FLOW_ROWS:]
        g = [r["goodput_bps"] for r in rest if r["goodput_bps"] is not None]
        mean = sum(g) / len(g) / 1e9 if g else None
        flows.add_row(f"+{len(rest)}", "more flows", "", _num(mean, ".3f") + " (mean)", *[""] * (len(heads) - 4))
    flows.caption = "cwnd and alpha: exact time-weighted means after warm-up (cwnd_mean_pkt, alpha_mean)" + (
        "; p: fraction of the once-per-RTT window decisions that took the decrease branch (DX: queueing delay Q > 0; "
        "at its floor of 1 segment the window stays), Q: the mean queueing delay the controller measured"
        if rounds else "")
    if rows:
        print_table(console, flows)
    print_fct(summary, console)
    print_sources(summary, console)

    pk = summary["packets"]
    aw, wr = summary["after_warmup"], summary["whole_run"]
    # With workloads beside listed flows the aggregate counts both, the mean and Jain's index the
    # listed ones only (a README walkthrough read the incast example's mean as of every flow)
    listed = " of the listed flows" if summary.get("workloads") or summary.get("fct_groups") else ""
    per_flow = (f", mean per flow{listed} {_gbps(summary['goodput_mean_bps'])}, Jain's fairness index{listed} "
                f"{_num(summary['jain_index'], '.4f')}" if summary["goodput_mean_bps"] is not None else
                " (of the generated flows; the scenario lists no flows of its own, whose mean and Jain's index this line gives when "
                "it does)")
    lines = [
        f"aggregate goodput {_gbps(summary['goodput_total_bps'])}{per_flow}" if rows or not summary.get("sources") else
        f"L2 sources: aggregate goodput {_gbps(summary['l2_goodput_total_bps'])}, Jain's fairness index of the "
        f"long-lived ones {_num(summary['l2_jain_index'], '.4f')}, "
        f"{summary['l2_dropped_frames']} frames dropped ({_num(summary['l2_drop_pct'], '.2f', '%')} of those sent)",
        f"after warm-up: retransmitted {aw['retransmits']} pkt, timeouts {aw['timeouts']}, "
        f"drops {_drops(aw, summary)}, ECN marks {aw['marks']} pkt",
        f"whole run: retransmitted {wr['retransmits']} pkt, timeouts {wr['timeouts']}, drops {_drops(wr, summary)}, "
        f"ECN marks {wr['marks']} pkt; packets sent {_num(pk['sent_pkts'], 'd')}, delivered "
        f"{_num(pk['delivered_pkts'], 'd')}, dropped {_num(pk['dropped_pkts'], 'd')}, in flight {_num(pk['in_flight_pkts'], 'd')}",
        f"simulated {_time(summary['duration_s'])} (warm-up {_time(summary['warmup_s'])}) in {_time(summary['wall_s'])} wall; "
        f"{_num(summary['events'], ',d')} events, {_num(summary['events_per_wall_s'], ',.0f', 'events/s')}",
    ]
    for line in lines:
        console.print(line)


def _drops(part: dict, summary: dict) -> str:
    """Packets dropped, and how many of them were not TCP data (pure ACKs: Not-ECT, a threshold
    queue drops them at K; or L2 frames): "47 pkt (47 of them ACKs)"."""
    other = part["drops"] - part["data_drops"]
    # TCP runs in listed flows and in every workload (a permutation's long flows have no FCT
    # groups: its ACK drops went unsaid, a README walkthrough found); L2 sources send frames.
    kinds = [what for what, present in (("ACKs", summary.get("flows") or summary.get("fct_groups")
                                          or summary.get("workloads")), ("L2 frames", summary.get("sources"))) if present]
    if other <= 0 or not kinds:
        return f"{part['drops']} pkt"
    return f"{part['drops']} pkt ({other} of them {' or '.join(kinds)})"


def print_sources(summary: dict, console: Console) -> None:
    """L2 rate sources: rate, goodput, drops, feedback and the realised loop delay."""
    rows = summary.get("sources") or []
    if not rows:
        return
    t = Table(title="L2 sources (after warm-up; rate at the end, loop and FCT over the whole run)")
    heads = ("source", "src->dst", "scheme", "rate end Gbps", "goodput Gbps", "sent frames", "dropped frames", "feedback frames",
             "loop us mean", "loop us min..max", "FCT ms")
    for col in heads:
        t.add_column(col, justify="left" if col in ("src->dst", "scheme") else "right")
    us = lambda x: None if x is None else 1e6 * x  # noqa: E731
    for r in rows[:MAX_FLOW_ROWS]:
        t.add_row(str(r["source"]), escape(r["label"]), r["scheme"], _num(r["rate_final_bps"] / 1e9, ".3f"),
                  _num(None if r["goodput_bps"] is None else r["goodput_bps"] / 1e9, ".3f"), _num(r["sent_frames"], "d"),
                  _num(r["dropped_frames"], "d"), _num(r["feedback_frames"], "d"), _num(us(r["loop_delay_mean_s"]), ".1f"),
                  f"{_num(us(r['loop_delay_min_s']), '.1f')}..{_num(us(r['loop_delay_max_s']), '.1f')}",
                  _num(None if r["fct_s"] is None else 1e3 * r["fct_s"], ".3f"))
    if len(rows) > MAX_FLOW_ROWS:
        t.add_row(f"+{len(rows) - MAX_FLOW_ROWS}", "more sources", *[""] * (len(heads) - 2))
    t.caption = ("loop: the sampled frame's departure -> its feedback's arrival at the source; "
                 f"L2 drops after warm-up: {summary.get('l2_dropped_frames', 0)} frames, "
                 f"{_num(summary.get('l2_drop_pct'), '.2f', '%')} of the frames sent")
    print_table(console, t)


def print_tiers(summary: dict, console: Console) -> None:
    """A fabric's ports by tier and direction, in path order (summary "tiers"; nothing otherwise)."""
    tiers = summary.get("tiers")
    if not tiers:
        return
    t = Table(title="Fabric tiers (after warm-up; every port)")
    for col in ("tier", "ports", "rate Gbps", "util % mean", "util % max", "q mean pkt", "q max pkt", "drops pkt",
                "marks pkt"):
        t.add_column(col, justify="left" if col == "tier" else "right")
    pct = lambda x: _num(None if x is None else 100 * x, ".2f")  # noqa: E731
    for r in tiers:
        t.add_row(r["tier"], _num(r["ports"], "d"), _num(None if r["rate_bps"] is None else r["rate_bps"] / 1e9, ".4g"),
                  pct(r["util_mean"]), pct(r["util_max"]), _num(r["q_mean_pkt"], ".2f"), _num(r["q_max_pkt"], ".0f"),
                  _num(r["drops"], "d"), _num(r["marks"], "d"))
    t.caption = "up: towards the spines or cores; util % max and q max pkt: the busiest port of the tier"
    print_table(console, t)


def _delivered(w: dict) -> str:
    """How much of a workload's generated payload arrived by the end of the run (a heavy-tailed
    size CDF over a short run leaves much of it unsent: its realised load is not what the
    network carried)."""
    f = w.get("delivered_frac")
    return "" if f is None else f", {_num(100 * f, '.1f', '%')} of the payload delivered by the end"


def print_fct(summary: dict, console: Console) -> None:
    """Generated flows: offered vs realised load, incast rounds, FCT per protocol and size bucket."""
    for w in summary.get("workloads", []):
        if w["kind"] == "poisson":
            console.print(
                f"workload {w['workload']} (poisson on {escape(w['link'])}): offered load {_num(100 * w['target_load'], '.1f', '%')}, "
                f"realised {_num(None if w['realised_load'] is None else 100 * w['realised_load'], '.2f', '%')}; "
                f"{count_shown(w['flows'], 'flow')}, {_num(w['bytes'] / 1e6, '.3f', 'MB')}{_delivered(w)}"
            )
        elif w["kind"] == "trace":
            console.print(
                f"workload {w['workload']} (trace): {w['flows']} of {count_shown(w.get('arrivals', w['flows']), 'flow')} "
                f"started, {_num(w['bytes'] / 1e6, '.3f', 'MB')}{_delivered(w)}"
            )
        elif w["kind"] == "permutation":
            gbps = lambda x: _num(None if x is None else x / 1e9, ".3f")  # noqa: E731
            console.print(
                f"workload {w['workload']} (permutation): {count_shown(w['flows'], 'flow')}; goodput per flow after warm-up "
                f"mean {gbps(w['goodput_mean_bps'])}, min {gbps(w['goodput_min_bps'])}, max {gbps(w['goodput_max_bps'])} "
                f"Gbps, Jain's index {_num(w['goodput_jain'], '.3f')}{_delivered(w)}"
            )
        else:
            asked = w.get("rounds_requested", w["rounds"])
            started = "" if asked == w["rounds"] else f" ({w['rounds']} started)"
            console.print(
                f"workload {w['workload']} (incast): {w['rounds_completed']} of {count_shown(asked, 'round')} completed{started}, "
                f"round completion mean {_time(w['round_completion_mean_s'])}, max {_time(w['round_completion_max_s'])}; "
                f"{count_shown(w['flows'], 'response')}{_delivered(w)}"
            )
    # rows of empty size buckets (0 flows: summary.json keeps them, so that a sweep's table has a 0
    # there) are not printed
    groups = [g for g in summary.get("fct_groups", []) if g.get("flows")]
    if not groups:
        return
    from dcsim.result import ROUGH_BELOW

    t = Table(title="Flow completion times (finite flows started after warm-up)")
    for col in ("traffic: protocol / size" if any(": " in g["fct_group"] for g in groups) else "protocol / size", "flows", "finished", "AFCT ms", "p50 ms", "p99 ms", "p99.9 ms", "slowdown mean",
                "slowdown p50", "slowdown p99", "slowdown p99.9"):
        t.add_column(col, justify="left" if col.endswith("protocol / size") else "right")
    ms = lambda x: _num(None if x is None else 1e3 * x, ".3f")  # noqa: E731
    # Rows by traffic source ("workload 1 (incast): dctcp all"; one block when there is one
    # source), a line between blocks. A row over the same flows as the one row it sums is printed
    # once (summary.json keeps both): a protocol's "all" over its one size bucket, a block's "all"
    # and its buckets over all protocols ("all <=10KB") beside its one protocol.
    blocks: dict[str, list[dict]] = {}
    shown_groups: list[dict] = []
    for g in groups:
        source, _, rest = g["fct_group"].rpartition(": ")
        blocks.setdefault(source, []).append({**g, "_rest": rest})
    for i, rows in enumerate(blocks.values()):
        protocols = [r["_rest"][: -len(" all")] for r in rows if r["_rest"].endswith(" all")]
        sums = [p for p in protocols if sum(r["_rest"].startswith(p + " ") for r in rows) == 2]  # one bucket + all
        drop = {f"{p} all" for p in sums} | ({"all"} if len(protocols) == 1 else set())
        over_all = {r["_rest"] for r in rows if r["_rest"].startswith("all ")}
        if len(protocols) == 1 or len(over_all) == 1:  # each is that protocol's bucket, or the one is "all"
            drop |= over_all
        rows = [r for r in rows if r["_rest"] not in drop]
        if i:
            t.add_section()
        for g in rows:
            shown_groups.append(g)
            # A tail percentile of too few flows is interpolated between the largest few: marked "~".
            p99, p999 = (lambda text, need=need: f"~{text}" if g["finished"] < need and text != "-" else text
                         for need in ROUGH_BELOW)
            t.add_row(escape(g["fct_group"]), _num(g["flows"], "d"), _num(g["finished"], "d"), ms(g["afct_s"]),
                      ms(g["fct_p50_s"]), p99(ms(g["fct_p99_s"])), p999(ms(g["fct_p999_s"])),
                      _num(g["slowdown_mean"], ".2f"), _num(g["slowdown_p50"], ".2f"),
                      p99(_num(g["slowdown_p99"], ".2f")), p999(_num(g["slowdown_p999"], ".2f")))
    caption = ("slowdown = FCT / FCT alone on an empty network with no window limit (propagation RTT + serialisation, "
               "store-and-forward); statistics over the finished flows")
    # Unfinished flows are left out, and they are the slow ones: a group most of whose flows had not
    # finished shows statistics biased low (a probe's ">10MB: 10 flows, 1 finished, p99.9 slowdown 1.45").
    few = [g["fct_group"] for g in shown_groups if g["finished"] < 0.9 * g["flows"]]
    if few:
        # (the first 3 and "..." had hidden the incast and "all" rows of a leaf-spine's 8: a probe)
        shown = ", ".join(escape(x) for x in few[:8]) + (f" and {len(few) - 8} more" if len(few) > 8 else "")
        caption += (f"; under 90 % of the flows finished in {shown}: their statistics are biased low "
                    "(run longer, or stop the arrivals earlier)")
    if any(g["finished"] < ROUGH_BELOW[1] for g in shown_groups):
        caption += (f"; ~: a p99 over fewer than {ROUGH_BELOW[0]} finished flows or a p99.9 over fewer than "
                    f"{ROUGH_BELOW[1]:,}".replace(",", " ") + ", interpolated between the few largest: rough")
    t.caption = caption
    print_table(console, t)


def _print_summary(result: Result, summary: dict, console: Console, fmt: str) -> Optional[str]:
    """The summary on stdout as a table, JSON or CSV (the flows table); None, or why stdout could
    not take it. Either way the output directory is written: a reader that went away (`dcsim run
    ... | head -1`) is no error, and stdout on a full disk (`> /dev/full`) is reported by the
    caller (exit 1), not taken for a bug. Further writes to stdout then go nowhere, so that
    Python's exit does not fail on them."""
    try:
        if fmt == "json":
            console.print_json(json.dumps(summary))
        elif fmt == "csv":
            # A scenario of L2 sources alone has no flows: its sources table, not an empty header
            # (a probe on examples/dsm_dumbbell.toml)
            only_l2 = len(result.flows) == 0 and summary.get("sources")
            (result.sources if only_l2 else result.flows).to_csv(sys.stdout, index=False)
        else:
            print_summary(summary, console)
        console.file.flush()
        return None
    except OSError as e:
        silence(sys.stdout)
        return None if isinstance(e, BrokenPipeError) else f"the summary to stdout: {type(e).__name__}: {e}"


def parse_set(item: str) -> tuple[str, object]:
    """``"network.aqm.K=40pkt"`` -> ("network.aqm.K", "40pkt"); the value is read as a TOML value
    when it is one (``4``, ``true``, ``["100us", "200us"]``, ``"x"``), else as a plain string."""
    if "=" not in item:
        raise ValueError(f"--set {item!r}: write PATH=VALUE, e.g. --set network.aqm.K=40pkt")
    path, text = (x.strip() for x in item.split("=", 1))
    if not path:
        raise ValueError(f"--set {item!r}: the path before '=' is empty")
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        value = text
    return path, value


def _run_file_names() -> set[str]:
    """Every file name a `dcsim run` (of this or an older version) may write: for directories
    written before the manifest existed."""
    from dcsim.plotting import PLOTS
    from dcsim.result import TABLES

    return ({f"{t}.parquet" for t in TABLES} | {"scenario.toml", "engine_spec.json", "summary.json", MANIFEST}
            | set(PLOTS) | {"cwnd_alpha.png", "cwnd.png"})


def unexpected_files(path: Path) -> list[str]:
    """The entries of directory ``path`` that a dcsim run did not write (sorted names; a
    subdirectory counts): compared with the run's manifest (the files it wrote, and those its
    background plotter writes: "drawn_in_background"), or, for a directory written before
    manifests (it holds engine_spec.json), with the names a run writes. [] means that the
    directory may be replaced whole."""
    path = Path(path)
    names = sorted(p.name for p in path.iterdir())
    if (path / MANIFEST).is_file():
        m = read_manifest(path)
        try:
            listed = set(m["files"]) | set(m.get("drawn_in_background", ())) | {MANIFEST}
        except (KeyError, TypeError):
            return names  # an unreadable manifest proves nothing
    elif (path / "engine_spec.json").is_file():
        listed = _run_file_names()
    else:
        return names
    return [n for n in names if n not in listed or not (path / n).is_file()]


def write_manifest(out: Path, files: Sequence[Path], *, run_id: Optional[str] = None,
                   background: Sequence[str] = (), plotter_pid: Optional[int] = None,
                   checks: Optional[dict[str, list[int]]] = None) -> Path:
    """List the files a run wrote into ``out`` (so that the next run may replace them, and only
    them), with the run's id, and each file's size and CRC-32 (``checks``, else read back here:
    :meth:`Result.from_dir` reads only files that are one run's); ``background``: the files its
    background plotter (``plotter_pid``) is to write there, plots.json last."""
    import dcsim

    doc = {"written_by": f"dcsim {dcsim.__version__}", "run_id": run_id or uuid.uuid4().hex,
           "files": sorted(Path(f).name for f in files),
           "sizes_crc32": checks if checks is not None else file_checks(files)}
    if background:
        doc["drawn_in_background"] = list(background)
        doc["plotter"] = {"pid": plotter_pid}
    path = Path(out) / MANIFEST
    atomic_write_bytes(path, (json.dumps(doc, indent=2) + "\n").encode("utf-8"))
    return path


def stop_previous_plotter(out: Path) -> None:
    """End the background plotter of the run whose directory ``out`` is (if any still draws)."""
    manifest = read_manifest(out) if Path(out).is_dir() else None
    if manifest and manifest.get("plotter"):
        from dcsim._plot_worker import stop_background

        stop_background(out, manifest)


def check_out_dir(out: Path, force: bool, reads: Sequence[Path] = (), *, names: tuple[str, str] = ("--out", "--force")) -> None:
    """The output rule, checked before the run: a new (creatable) directory, or an empty one, or a
    previous run's that holds nothing but that run's files (replaced whole); any other directory
    only with --force, and never one that holds a file the run ``reads`` (its scenario, a trace:
    --force would delete it). Raises ValueError naming --out (and the files that would be lost);
    ``names``: what the output and the force option are called where the call comes from (the
    Python API's ``Result.to_dir``: ``out`` and ``force=True``)."""
    try:
        _check_out_dir(Path(out), force, reads, *names)
    except OSError as e:  # a name too long, a directory that cannot be listed
        raise ValueError(f"{names[0]}: {out}: {e.strerror or e}") from None


def _check_out_dir(out: Path, force: bool, reads: Sequence[Path], opt: str, force_opt: str) -> None:
    if out.exists() and not out.is_dir():
        raise ValueError(f"{opt}: {out} exists and is not a directory")
    where = Path(os.path.abspath(out))
    here = Path(os.path.abspath(os.curdir))
    if where == here or here.is_relative_to(where):  # "-o .", "-o ..", "-o /": it would be renamed away
        raise ValueError(f"{opt}: {out} is {'the current directory' if where == here else 'above the current directory'}"
                         f"; a run replaces its output directory whole, so give a new directory, e.g. {opt} dcsim-out/run1")
    anc = out.parent
    while not anc.exists() and anc != anc.parent:
        anc = anc.parent
    if anc.exists() and not anc.is_dir():
        raise ValueError(f"{opt}: {anc} is a file, not a directory, so {out} cannot be created; give another {opt}")
    if out.is_dir() and force:
        root, extra = out.resolve(), set(unexpected_files(out))
        for p in (Path(p).resolve() for p in reads):
            if p != root and p.is_relative_to(root) and p.relative_to(root).parts[0] in extra:
                raise ValueError(f"{opt}: {out} holds {p.relative_to(root)}, which this run reads; the run replaces the "
                                 f"directory whole, so {force_opt} would delete it. Give another {opt}")
    if out.is_dir() and any(out.iterdir()) and not force:
        extra = unexpected_files(out)
        if extra:
            shown = ", ".join(extra[:8]) + (f" and {len(extra) - 8} more" if len(extra) > 8 else "")
            raise ValueError(
                f"{opt}: {out} holds files that a dcsim run did not write ({shown}); the run replaces the "
                f"directory whole, so they would be deleted. Give another {opt}, or {force_opt} to replace it"
            )
    # Can the directory be made there? (Before the run, not after it.)
    probe = out.parent / f".{out.name}.probe-{os.getpid()}"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        probe.mkdir()
        probe.rmdir()
    except OSError as e:
        raise ValueError(f"{opt}: cannot create {out}: {e.strerror or e}") from None


def out_dir_lock(out: Path, *, opt: str = "--out") -> contextlib.AbstractContextManager:
    """Held from the output check until a run's directory is in place: a second run (or
    :meth:`Result.to_dir`) into the same ``out`` meanwhile is refused at once with a ValueError
    naming ``opt`` and the process that writes there (two runs into one directory both reported
    success, the last one's files winning: a robustness probe). The lock is the hidden file
    ``.<name>.lock`` beside ``out`` (inside, it would be replaced with the directory), removed when
    the run is done: :func:`dcsim._files.exclusive_lock`."""
    from dcsim._files import exclusive_lock

    out = Path(os.path.abspath(out))

    def busy(holder: str) -> ValueError:
        return ValueError(f"{opt}: {out} is being written by another dcsim process ({holder}); "
                          f"wait for it to finish, or give another {opt}")

    return exclusive_lock(out.parent / f".{out.name}.lock", remove=True, busy=busy)


def run_scenario_file(
    scenario: Path,
    out: Optional[Path],
    *,
    plots: bool = True,
    wait_plots: bool = True,
    console: Console,
    fail: Callable[[str], None],
    fmt: str = "table",
    sets: Sequence[str] = (),
    force: bool = False,
    plot_worker=None,
) -> Result:
    """Validate ``scenario`` (exit 2 via ``fail`` if invalid), apply ``--set`` changes, run it,
    print the summary (``fmt``: table, json or csv), and write everything into ``out``, which
    replaces the previous run's directory whole (never a mix of old and new files).

    With ``plots``, a separate process draws them (:mod:`dcsim._plot_worker`). With
    ``wait_plots`` (``plot_worker``: one the caller started already, as the CLI does before
    importing this module) it imports matplotlib while this one validates and runs, and draws
    while this one prints the summary and writes the tables; this one waits for it and exits 1 if
    a plot failed. Without, it is started once the directory is in place and draws in the
    background, after this function returns: the PNGs, then plots.json, appear in ``out``."""
    worker = plot_worker
    if plots and wait_plots and worker is None:
        from dcsim._plot_worker import PlotWorker

        worker = PlotWorker()
    try:
        return _run_scenario_file(scenario, out, worker=worker, background=plots and not wait_plots,
                                  console=console, fail=fail, fmt=fmt, sets=sets, force=force)
    finally:
        if worker is not None:
            worker.stop()


def _run_scenario_file(scenario: Path, out: Optional[Path], *, worker, background: bool, console: Console,
                       fail: Callable[[str], None], fmt: str, sets: Sequence[str], force: bool) -> Result:
    # Progress and messages go to stderr when stdout carries data.
    info = wide_console(stderr=True) if fmt != "table" else console
    try:
        changes: dict = {}
        for item in sets:
            path, value = parse_set(item)
            if path in changes:  # the last had silently won; the Python API refuses a repeated path too
                raise ValueError(f"--set {item!r}: {path} is already set by an earlier --set; give each path once")
            changes[path] = value
    except ValueError as e:  # the option is malformed, not the scenario
        fail(str(e))
        raise
    try:
        with slow_step(info, "reading and checking the scenario"):  # a large trace file takes a while
            # The changes are made to the file's tables before they are validated (they may
            # replace what the file names: another trace file where its own is missing).
            inputs = DataFiles()  # the data files it reads: --force must not delete them
            with reading_files(inputs):
                sc = load_scenario(scenario, changes)
            sc.check_resources()  # the engine's size and memory checks, before anything is printed
    except (ScenarioError, ValueError) as e:
        # The file itself (missing, binary, too large) is one line that names it; a scenario that
        # was read but is wrong gets the header and one line per field.
        msg = str(e)
        fail(msg if msg.startswith(f"{scenario}: ") else f"{scenario}: invalid scenario\n{msg}")
        raise  # fail() exits; this keeps type checkers honest
    out = Path(out) if out is not None else default_out_dir(scenario)
    with contextlib.ExitStack() as held:
        try:
            check_out_dir(out, force, reads=[Path(scenario), *map(Path, inputs.read_paths)])
            held.enter_context(out_dir_lock(out))  # until the directory is in place
        except ValueError as e:
            fail(str(e))
        return _simulate_and_write(sc, scenario, out, worker=worker, background=background, console=console,
                                   info=info, fail=fail, fmt=fmt)


def _run_bar_columns(info: Console) -> list:
    """The run's progress bar: "simulating", the bar, "6.713 s / 30 s", the time elapsed, "ETA" and
    the time left, 51 characters beside the bar; where a 3-character bar leaves no room, the bar
    and the time elapsed are left out (rich had cut the times to "0:…" and "ETA -:…" at 40
    columns: a probe)."""
    beside = 51
    if bar_fits(info, beside):
        head = [TextColumn("simulating"), BarColumn(bar_width=bar_width(info, beside)),
                TextColumn("{task.fields[now]} / {task.fields[total_s]}"), TimeElapsedColumn()]
    else:
        head = [TextColumn("simulating {task.fields[now]} / {task.fields[total_s]},")]
    return [*head, TextColumn("ETA"), TimeRemainingColumn()]


def _simulate_and_write(sc: Scenario, scenario: Path, out: Path, *, worker, background: bool, console: Console,
                        info: Console, fail: Callable[[str], None], fmt: str) -> Result:
    info.print(f"[bold]{escape(Path(scenario).name)}[/]: {escape(sc.describe())}")
    for w in sc.warnings():
        info.print(f"[yellow]warning:[/] {escape(w)}")
    with Progress(
        *_run_bar_columns(info),
        console=info,
        transient=True,
        disable=info.is_dumb_terminal,  # it cannot redraw there: it only left an empty line
    ) as bar:
        task = bar.add_task("run", total=1.0, now="0 s", total_s=fmt_time(sc.run.duration))

        def progress(now_s: float, duration_s: float) -> None:
            bar.update(task, completed=now_s / duration_s, now=fmt_time(now_s) if now_s > 0 else "0 s")

        importing = import_in_background()  # on the other core while the engine runs
        stopped: Optional[RunLimitError] = None
        try:
            with warnings.catch_warnings():  # printed above already, once
                warnings.simplefilter("ignore", ScenarioWarning)
                # One step of simulated time: the bar moves each time the engine returns to
                # Python (every EVENTS_PER_CALL events, ~0.1 s). 100 steps made a short run
                # return 100 times, each waiting for the GIL from the importing thread (the
                # demo: ~7 ms more, alternated runs of benchmarks/bench_cli.py's command).
                result = simulate(sc, progress=progress, chunks=1)
        except RunLimitError as e:  # a bound the run reached as it ran
            if e.partial is None:
                fail(f"{scenario}: the run stopped at a bound of the scenario; nothing was written\n{e}")
                raise
            # run.max_wall, or metrics.max_memory by the queues or the running flows (one world), past
            # the warm-up: what was simulated is printed and written (the scenario
            # as given; engine_spec.json's duration and summary.json's "stopped" say where it
            # stopped), then the command fails as above.
            stopped, result = e, e.partial
        except ScenarioError as e:  # the engine's own validation (Python should have caught it first)
            fail(f"{scenario}: invalid scenario\n{e}")
            raise
        finally:
            if importing is not None:
                importing.join()
    summary = result.summary()
    plot_errors: list[str] = []
    write_errors: list[str] = []
    stdout_error: list[Optional[str]] = []
    run_id = uuid.uuid4().hex
    planned: list[str] = []
    if background:
        from dcsim._plot_worker import PLOTS_RECORD, plot_names

        planned = [*plot_names(result), PLOTS_RECORD]
    from dcsim.result import WriteError  # imported already (dcsim._preload)

    # Everything is written into a temporary directory that replaces `out` only when complete:
    # Ctrl-C or a crash never leaves a half-written directory, nor stale files of an older run.
    with atomic_dir(out) as tmp:
        if worker is not None:
            worker.send(result, tmp)  # it draws while the summary is printed and the tables written
        # The tables are written (other threads; the engine's writer releases the GIL) while the summary is
        # printed; a file that cannot be written loses none of the others (reported below, exit 1).
        printing: list[BaseException] = []

        def show() -> None:  # a bug in printing must not cost the files: raised once they are in place
            try:
                stdout_error.append(_print_summary(result, summary, console, fmt))
            except Exception as e:  # noqa: BLE001 (re-raised below)
                printing.append(e)

        try:
            files = result.write_into(tmp, summary=summary, meanwhile=show)
        except WriteError as e:
            files, write_errors = list(e.written), e.errors
        if worker is not None:
            drawn, plot_errors = worker.finish()
            files += [tmp / name for name in drawn]
        written, checks = list(files), None
        try:
            checks = file_checks(written)  # ~2 ms for the demo's 1.6 MB
            files.append(write_manifest(tmp, written, run_id=run_id, background=planned, checks=checks))
        except OSError as e:  # a full disk: the tables written are kept all the same
            write_errors.append(f"{MANIFEST}: {type(e).__name__}: {e}")
        stop_previous_plotter(out)  # a plotter still drawing into the directory about to be replaced
    if printing:
        raise printing[0]
    shown = ", ".join(p.name for p in files)
    if background:
        from dcsim._plot_worker import start_background

        try:
            pid = start_background(result, out, run_id)
        except OSError as e:
            plot_errors.append(f"plots: cannot start the plotting process: {e.strerror or e}")
        else:
            try:
                write_manifest(out, written, run_id=run_id, background=planned, plotter_pid=pid, checks=checks)
            except OSError as e:
                write_errors.append(f"{MANIFEST}: {type(e).__name__}: {e}")
            shown += (f"; {', '.join(planned[:-1])} being drawn in the background (pid {pid}): complete when "
                      f"{planned[-1]} appears, which names any plot that failed")
    say(info, f"files in {out}/: {shown}")
    for msg in write_errors:
        say(info, f"[bold red]error:[/] could not write {escape(msg)}")
    for msg in filter(None, stdout_error):  # on stderr: stdout failed
        write_errors.append(msg)
        say(wide_console(stderr=True), f"[bold red]error:[/] could not write {escape(msg)}; the files are written")
    for msg in plot_errors:
        info.print(f"[bold red]plot failed:[/] {escape(msg)}")
    if stopped is not None:
        fail(f"{scenario}: the run stopped at a bound of the scenario; what it simulated, 0 .. "
             f"{fmt_time(result.duration_s)} of {fmt_time(stopped.partial.stopped['duration_s'])}, is in {out}/ "
             f"(summary.json: \"stopped\")\n{stopped}")
    if write_errors or plot_errors:
        raise typer.Exit(code=1)
    return result
