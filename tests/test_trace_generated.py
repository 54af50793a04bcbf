"""Tracing a workload's flows (issue 12, section 3: "per-flow time series are kept for a bounded
number of flows, chosen or the first k").

``metrics.trace_flows`` names flows by their id in the ``flows`` table: the listed ``[[flows]]``
first, then the generated flows in the order they start. A traced generated flow has window rows
only while it runs, and its goodput rows carry every byte it delivered exactly once (its last
bytes in the sample after it finished, when its state is freed). Everything below is checked
against the flows table of the same run, not against earlier output.
"""

from __future__ import annotations

import math

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


def run(parts: int = 1, traced=None):
    return dcsim.simulate(Scenario.from_toml_str(FABRIC.format(parts=parts, traced=traced or TRACED + [NEVER])))


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


def test_traced_generated_flows_have_window_rows_only_while_they_run(result):
    r = result
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
    text = FABRIC.format(parts=1, traced="[0, 1]")
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
        t = FABRIC.format(parts=1, traced=traced).replace('duration = "5ms"', f'duration = "{duration}"')
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
