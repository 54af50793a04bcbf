"""Tracing a workload's flows (issue 12, section 3: "per-flow time series are kept for a bounded
number of flows, chosen or the first k").

``metrics.trace_flows`` names flows by their id in the ``flows`` table: the listed ``[[flows]]``
first, then the generated flows in the order they start. A traced generated flow has window rows
only while it runs, and its goodput rows carry every byte it delivered exactly once (its last
bytes in the sample after it finished, when its state is freed). Everything below is checked
against the flows table of the same run, not against earlier output.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import dcsim
from dcsim import Scenario, ScenarioError

#: A small leaf-spine with all-to-all web-search traffic and one listed flow (flow 0), so that the
#: generated flows are 1, 2, ... Partitions split it by leaves.
FABRIC = """
[network]
topology = "leaf_spine"
leaves = 2
spines = 2
hosts_per_leaf = 4
host_link = "10Gbps"
delay = "1us"
buffer = "200pkt"
aqm = {{ kind = "threshold", K = "65pkt" }}
[[flows]]
protocol = "dctcp"
src = "h0"
dst = "h7"
start = "{start}"
ect_acks = true
[[workloads]]
kind = "poisson"
load = 0.3
sizes = {{ kind = "uniform", min = "10KB", max = "300KB" }}
protocol = "dctcp"
ect_acks = true
[run]
duration = "5ms"
seed = 3
partitions = {parts}
[metrics]
trace_flows = {traced}
cwnd_interval = "2us"
throughput_interval = "50us"
"""

#: Generated flows to trace (ids in the flows table), and one that no 5 ms run reaches.
TRACED = [0, 1, 4, 9, 25, 60, 80]
NEVER = 10**6


def run(parts: int = 1, traced=None, start: str = "0s"):
    return dcsim.simulate(Scenario.from_toml_str(FABRIC.format(parts=parts, traced=traced or TRACED + [NEVER],
                                                               start=start)))


@pytest.fixture(scope="module", params=[1, 2], ids=["one world", "two partitions"])
def result(request):
    """The run in one world, and split into two worlds by leaves (then a traced flow's window is
    sampled where its sender runs, its goodput where its receiver runs, and the rows merged)."""
    return run(request.param)


def test_traced_generated_flows_deliver_every_byte_once_in_their_goodput_rows(result):
    r = result
    dt_s = r.engine_spec["metrics"]["throughput_interval_ps"] / 1e12
    flows = r.flows.set_index("flow")
    got = r.throughput.groupby("flow")["goodput_bps"].sum() * dt_s / 8  # bytes
    done = [f for f in TRACED[1:] if np.isfinite(flows.loc[f, "fct_s"])]
    assert len(done) >= 3, "the scenario should finish most traced generated flows within 5 ms"
    for f in done:
        # Each row is (bytes in the interval) x 8 / dt; summing them back is exact to float
        # rounding (1e-9 relative: a few hundred rows of ~1e-16 error each).
        assert got[f] == pytest.approx(flows.loc[f, "size_bytes"], rel=1e-9), f
    assert NEVER not in set(r.throughput["flow"]) and NEVER not in set(r.cwnd["flow"])


@pytest.fixture(scope="module", params=[("0s", 1), ("3ms", 1), ("3ms", 2)],
                ids=["listed flow from 0", "listed flow from 3 ms", "listed flow from 3 ms, two partitions"])
def windows(request):
    """Runs whose traced listed flow starts at 0 or late: a late one had set the first window
    sample at its start, and the generated flows that ran before it had no window rows (a probe)."""
    start, parts = request.param
    return run(parts, start=start)


def test_traced_generated_flows_have_window_rows_only_while_they_run(windows):
    r = windows
    iv_s = r.engine_spec["metrics"]["cwnd_interval_ps"] / 1e12
    flows = r.flows.set_index("flow")
    for f in TRACED[1:]:
        t = r.cwnd.loc[r.cwnd["flow"] == f, "t_s"].to_numpy()
        start, fct = flows.loc[f, "start_s"], flows.loc[f, "fct_s"]
        end = start + fct if np.isfinite(fct) else r.duration_s
        assert len(t) > 0, f
        # Sampled on the interval's grid from the first instant at or after the start until it
        # finishes: the rows lie in [start, end] and number the grid points there, +-1 at the
        # two ends (a sample at the start instant may come before the flow's first packet).
        assert start - 1e-12 <= t.min() and t.max() <= end + 1e-12, f
        grid = math.floor(end / iv_s + 1e-9) - math.ceil(start / iv_s - 1e-9) + 1
        assert abs(len(t) - grid) <= 1, (f, len(t), grid)
        assert np.allclose(np.diff(t), iv_s), f
        labels = set(r.cwnd.loc[r.cwnd["flow"] == f, "flow_label"].astype(str))
        assert labels == {str(flows.loc[f, "flow_label"])}


def test_the_listed_flow_keeps_its_series_beside_the_generated_ones(result):
    r = result
    # flow 0 is listed and runs for the whole 5 ms: window rows over the whole run.
    t = r.cwnd.loc[r.cwnd["flow"] == 0, "t_s"]
    assert t.min() <= 0.001 and t.max() >= r.duration_s - 0.001
    assert (r.throughput["flow"] == 0).sum() == round(r.duration_s / 50e-6)


def test_rows_come_in_time_then_in_the_order_trace_flows_lists_them(result):
    # A partitioned run is the one-world run's physics, not its bits (README, "Fabrics on several
    # cores"), so its rows are checked for order, not compared with the one-world run's.
    for table in ("cwnd", "throughput"):
        df = result.tables[table]
        place = df["flow"].map({f: i for i, f in enumerate(TRACED)})
        key = list(zip(df["t_s"], place))
        assert key == sorted(key) and len(set(key)) == len(key), table


def test_trace_flows_past_the_listed_flows_need_a_workload():
    text = FABRIC.format(parts=1, traced="[0, 1]", start="0s")
    no_workload = text.split("[[workloads]]")[0] + "[run]" + text.split("[run]")[1]
    with pytest.raises(ScenarioError, match=r"metrics\.trace_flows\[1\]: flow 1 does not exist; "
                                            r"allowed 0 \.\. 0 \(the listed \[\[flows\]\]\)"):
        dcsim.simulate(Scenario.from_toml_str(no_workload))
    # With a workload the ids go up to the listed flows plus the most flows a run generates (1e9).
    with pytest.raises(ScenarioError, match=r"metrics\.trace_flows\[0\]: flow 1000000001 does not exist; "
                                            r"allowed 0 \.\. 1000000000 \(the 1 listed"):
        run(1, traced=[10**9 + 1])


def test_the_figures_aggregates_lie_on_the_sampling_grid_with_gaps_where_no_traced_flow_ran(result):
    """The goodput figure's aggregate had joined samples milliseconds apart with a line at the
    level of the last flow (and the window's mean likewise): between a workload's traced flows
    the aggregate goodput is 0 and the mean window has no value."""
    from dcsim.plotting import _aggregate, plot_cwnd_alpha, plot_throughput

    r = result
    iv_s = r.engine_spec["metrics"]["throughput_interval_ps"] / 1e12
    tp = r.throughput[r.throughput["flow"] != 0]  # the generated flows' rows (flow 0 runs throughout)
    t, g = _aggregate(r, "throughput", tp["t_s"].to_numpy(), tp["goodput_bps"].to_numpy())
    # every sampling instant iv, 2 iv, ... of the run, and the bytes of the traced flows once
    assert len(t) == round(r.duration_s / iv_s) and np.allclose(np.diff(t), iv_s)
    assert (g * iv_s / 8).sum() == pytest.approx((tp["goodput_bps"] * iv_s / 8).sum(), rel=1e-12)
    assert (g == 0).any()  # instants between the traced flows
    cw = r.cwnd[r.cwnd["flow"] != 0]
    t, w = _aggregate(r, "cwnd", cw["t_s"].to_numpy(), cw["cwnd_pkt"].to_numpy())
    assert np.isnan(w).any() and np.isfinite(w).sum() == cw["t_s"].nunique()
    plot_cwnd_alpha(r), plot_throughput(r)  # drawn without error


def test_many_traced_generated_flows_with_an_auto_window_interval_are_warned_about():
    """The plan counts each traced flow for the whole run (a generated flow's life is not known
    before it runs), so tracing thousands of them lengthens the automatic window interval past
    the life of short flows: said, with the interval used and the one preferred."""
    def text(traced, cwnd_interval=None, duration="1s"):
        t = FABRIC.format(parts=1, traced=traced, start="0s").replace('duration = "5ms"', f'duration = "{duration}"')
        t = t.replace('throughput_interval = "50us"\n', "")
        return t.replace('"2us"', f'"{cwnd_interval}"') if cwnd_interval else t.replace('cwnd_interval = "2us"\n', "")

    many = list(range(2_000))
    assert not [w for w in Scenario.from_toml_str(text(TRACED, duration="5ms")).warnings() if w.startswith("metrics.cwnd_interval")]
    sc = Scenario.from_toml_str(text(many))
    lines = [w for w in sc.warnings() if w.startswith("metrics.cwnd_interval")]
    assert len(lines) == 1 and "the 1999 generated ones of metrics.trace_flows" in lines[0], lines
    fitted_ps = sc.check_resources()["metrics"]["cwnd_interval_ps"]
    assert f'"auto" is {dcsim.units.fmt_time(fitted_ps / 1e12, 12)}, not ' in lines[0]
    # a window interval written out is the user's: no warning
    assert not [w for w in Scenario.from_toml_str(text(many, "10ms")).warnings() if w.startswith("metrics.cwnd_interval")]


def test_series_the_system_cannot_reserve_are_refused_naming_max_memory(tmp_path):
    """A budget beyond the machine (max_memory = 1 TB) with a million traced ids let the plan
    admit 195 GB of window series, whose reservation aborted the process (SIGABRT, "memory
    allocation of 39032000000 bytes failed": a probe). The reservation is now checked: where the
    system refuses it (a 24 GB machine without overcommit of that size), the run is refused naming
    metrics.max_memory, status 2; a machine that grants the address space runs it (only written
    rows become memory). Either way the process is not killed. In a subprocess: an abort would
    take pytest with it."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    path = tmp_path / "huge.toml"
    path.write_text((root / "examples" / "leaf_spine.toml").read_text() + '\n[metrics]\nmax_memory = "1TB"\n'
                    f"trace_flows = {json.dumps(list(range(1_000_000)))}\n")
    res = subprocess.run([sys.executable, "-m", "dcsim", "run", str(path), "--no-plots", "--out", str(tmp_path / "out")],
                         capture_output=True, text=True, timeout=600)
    out = res.stdout + res.stderr
    assert res.returncode in (0, 2), (res.returncode, out[-2000:])
    assert "memory allocation" not in out and "Traceback" not in out, out[-2000:]
    if res.returncode == 2:
        assert "metrics.max_memory: the system refused the address space of the window series" in " ".join(out.split())


@pytest.mark.parametrize("value, message", [
    ("[true]", "metrics.trace_flows: [true]: give a number of listed flows"),  # had been "[True]"
    ("true", "metrics.trace_flows: true: give a number of listed flows"),
    ("[-1]", "metrics.trace_flows[0]: -1 is not a flow id; allowed 0 .. 2^64-1 (the ids of the flows table"),
])
def test_bad_trace_flows_are_named_in_toml_spelling(value, message):
    from typer.testing import CliRunner

    from dcsim.cli import app

    root = Path(__file__).resolve().parents[1]
    res = CliRunner().invoke(app, ["run", str(root / "examples" / "websearch.toml"), "--no-plots",
                                   "--set", f"metrics.trace_flows={value}"], env={"COLUMNS": "300"})
    assert res.exit_code == 2 and message in " ".join(res.output.split()), res.output


def test_the_window_figure_of_traced_flows_that_never_ran_together():
    """Flows 1, 60 and 80 never run at the same time (0-0.5, 2.8-2.9 and 4.0-4.1 ms): the figure
    listed a "mean of 3 traced flows" that was single points (invisible), and with flows 1 and 60
    it zoomed on the last 1 ms of the run, where no traced flow ran (an empty panel: a probe).
    Now no mean, and the zoom shows the last traced flow's life."""
    from dcsim.plotting import plot_cwnd_alpha

    fig = plot_cwnd_alpha(run(1, traced=[1, 60, 80]))
    labels = [line.get_label() for ax in fig.axes for line in ax.get_lines()]
    assert not [lab for lab in labels if str(lab).startswith("mean of")], labels
    r = run(1, traced=[1, 60])
    t60 = r.cwnd.loc[r.cwnd["flow"] == 60, "t_s"] * 1e3  # ms, the zoom's unit
    assert t60.max() < r.duration_s * 1e3 - 1  # before the last 1 ms
    zooms = plot_cwnd_alpha(r).axes[2:]
    for zoom in zooms:
        lo, hi = zoom.get_xlim()
        assert lo <= t60.min() and t60.max() <= hi and hi - lo < 1.2 * (t60.max() - t60.min()) + 0.01, (lo, hi)
    assert zooms[0].get_title().startswith("flow 60, the last traced")
