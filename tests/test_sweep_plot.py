"""The sweep figure (`dcsim.plotting.plot_sweep`, `SweepResult.plot`, `dcsim sweep`'s OUT/sweep.png).

What a figure shows is read back from its artists (the errorbar containers' line and bar data) and
compared with what the table says, computed here independently with numpy: each point the mean
over a combination's finished seeds, its bar their least .. largest value, exactly (the same
floating-point sums: tolerance 1e-12 relative).
"""

from __future__ import annotations

import itertools
import json
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.container import ErrorbarContainer
from typer.testing import CliRunner

from dcsim.cli import app
from dcsim.plotting import MAX_SWEEP_LINES, plot_sweep
from dcsim.sweep import load_sweep, run_sweep

runner = CliRunner()

KS = [10.0, 20.0, 40.0, 65.0, 100.0]
GS = [0.0625, 0.25]
SEEDS = [1, 2, 3]


def goodput(k: float, g: float, seed: int) -> float:
    """A made-up goodput (bps) whose spread over seeds is known."""
    return 9e9 + 1e7 * k + 1e8 * g + 3e6 * seed**2  # mean != median over seeds 1, 2, 3


def synthetic() -> pd.DataFrame:
    rows = []
    for k, g, s in itertools.product(KS, GS, SEEDS):
        rows.append({"network.aqm.K": f"{k:g}pkt", "network.aqm.K_pkt": k, "flows[0].g": g, "seed": s,
                     "status": "ok", "goodput_total_bps": goodput(k, g, s), "jain_index": 0.9 + g / 10,
                     "after_warmup.drops": 0.0, "port[sw->r].utilization": 0.5, "port[sw->r].q_mean_pkt": k * 0.9})
    rows.append({**rows[0], "seed": 4, "status": "error", "goodput_total_bps": None})  # failed: not drawn
    return pd.DataFrame(rows)


def drawn(ax) -> list[ErrorbarContainer]:
    return [c for c in ax.containers if isinstance(c, ErrorbarContainer)]


def footer(fig) -> str:
    return " ".join(t.get_text() for t in fig.texts)


def test_each_point_is_the_mean_over_seeds_and_its_bar_their_range():
    df = synthetic()
    fig = plot_sweep(df, ["network.aqm.K", "flows[0].g"], title="k")
    panels = {ax.get_title(): ax for ax in fig.axes}
    # the columns with values that are not 0 everywhere; drops are 0 in every run: named, not drawn
    assert set(panels) == {"goodput Gbps", "Jain", "sw->r util %", "sw->r q mean pkt"}, set(panels)
    assert "not drawn, 0 in every finished run: drops pkt" in footer(fig)
    assert "1 of 31 runs did not run to their end" in footer(fig)
    lines = drawn(panels["goodput Gbps"])
    assert [c.get_label() for c in lines] == [f"flows[0].g = {g}" for g in GS]
    for c, g in zip(lines, GS):
        x, y = c.lines[0].get_data()
        assert list(x) == KS  # numbers in the axis's unit (pkt), ascending
        want = [np.mean([goodput(k, g, s) for s in SEEDS]) * 1e-9 for k in KS]
        np.testing.assert_allclose(y, want, rtol=1e-12)
        # the bar of each point spans the seeds' least .. largest value
        segs = c.lines[2][0].get_segments()
        lo = [min(goodput(k, g, s) for s in SEEDS) * 1e-9 for k in KS]
        hi = [max(goodput(k, g, s) for s in SEEDS) * 1e-9 for k in KS]
        np.testing.assert_allclose([s[0][1] for s in segs], lo, rtol=1e-12)
        np.testing.assert_allclose([s[1][1] for s in segs], hi, rtol=1e-12)
    assert fig.axes[-1].get_xlabel() == "network.aqm.K (pkt)"
    assert "mean over the finished seeds (up to 3)" in fig._suptitle.get_text()


def test_the_x_axis_can_be_chosen_and_a_wrong_one_is_named():
    df = synthetic()
    fig = plot_sweep(df, ["network.aqm.K", "flows[0].g"], x="flows[0].g")
    lines = drawn(fig.axes[0])
    assert len(lines) == len(KS)  # one line for each K now
    assert list(lines[0].lines[0].get_data()[0]) == GS
    with pytest.raises(ValueError, match=r"^x: 'K' is not an axis path of this sweep; its axis paths: network.aqm.K, "):
        plot_sweep(df, ["network.aqm.K", "flows[0].g"], x="K")
    with pytest.raises(ValueError, match=r"^axes: 'network.K' is not a column of the sweep table"):
        plot_sweep(df, ["network.K"])
    with pytest.raises(ValueError, match=r"^table: no run of this sweep ran to its end"):
        plot_sweep(df.assign(status="error"), ["network.aqm.K", "flows[0].g"])


def test_values_without_numbers_are_categories_in_the_sweeps_order():
    protos = ["dctcp", "newreno", "dx"]
    df = pd.DataFrame({"flows[0].protocol": protos * 2, "seed": [1, 1, 1, 2, 2, 2], "status": ["ok"] * 6,
                       "goodput_total_bps": [1e9, 2e9, 3e9, 3e9, 4e9, 5e9]})
    fig = plot_sweep(df, ["flows[0].protocol"])
    (c,) = drawn(fig.axes[0])
    x, y = c.lines[0].get_data()
    assert list(x) == [0.0, 1.0, 2.0]
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == protos
    np.testing.assert_allclose(y, [2.0, 3.0, 4.0], rtol=1e-12)


def test_wide_numeric_ranges_are_logarithmic_and_times_take_a_unit():
    df = pd.DataFrame({"network.delay": ["1us", "10us", "100us", "1ms"], "network.delay_s": [1e-6, 1e-5, 1e-4, 1e-3],
                       "status": ["ok"] * 4, "goodput_total_bps": [4e9, 3e9, 2e9, 1e9]})
    fig = plot_sweep(df, ["network.delay"])
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"  # 1000 x from the least to the largest
    np.testing.assert_allclose(drawn(ax)[0].lines[0].get_data()[0], [1e-3, 1e-2, 1e-1, 1.0], rtol=1e-12)
    assert ax.get_xlabel() == "network.delay (ms)"
    narrow = plot_sweep(df.iloc[1:3], ["network.delay"])  # 10 x: linear
    assert narrow.axes[0].get_xscale() == "linear"


def test_many_combinations_draw_the_first_lines_and_say_so():
    combos = list(itertools.product([1, 2, 3], ["a", "b", "c", "d"]))  # 12 > MAX_SWEEP_LINES
    df = pd.DataFrame([{"x": x, "m": m, "n": n, "status": "ok", "goodput_total_bps": 1e9 * x}
                       for x in [1.0, 2.0] for m, n in combos])
    fig = plot_sweep(df, ["x", "m", "n"])
    assert len(drawn(fig.axes[0])) == MAX_SWEEP_LINES
    assert f"the first {MAX_SWEEP_LINES} of 12 combinations of m, n" in footer(fig)


def test_a_zip_sweep_is_one_line_through_its_steps_with_its_linked_paths_named():
    """A review: a zip sweep of 10 steps was drawn as 8 one-point "lines" (the other zipped axis
    taken for lines), and a linked path never appeared in the figure."""
    ks, gs = [10.0, 20.0, 40.0], [0.01, 0.02, 0.03]
    df = pd.DataFrame({"network.aqm.K": [f"{k:g}pkt" for k in ks], "network.aqm.K_pkt": ks, "flows[0].g": gs,
                       "seed": [1] * 3, "status": ["ok"] * 3, "goodput_total_bps": [1e9, 2e9, 3e9]})
    fig = plot_sweep(df, ["network.aqm.K", "flows[0].g"], combine="zip")
    (c,) = drawn(fig.axes[0])
    assert list(c.lines[0].get_data()[0]) == ks
    assert fig.axes[-1].get_xlabel() == "network.aqm.K (pkt), with flows[0].g"
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["10\n0.01", "20\n0.02", "40\n0.03"]
    # read back and given as a grid, the rows are 3 of 3 x 3 combinations: refused, naming the cure
    # (they had been drawn as three lines of one point each: a review)
    with pytest.raises(ValueError, match=r'^axes: the table\'s rows are 3 of the 9 combinations of 3 x 3 axis values: a '
                                         r'zip sweep \(give combine="zip"'):
        plot_sweep(df, ["network.aqm.K", "flows[0].g"])
    with pytest.raises(ValueError, match=r"give every axis of the sweep"):  # one axis left out
        plot_sweep(pd.concat([df, df.assign(**{"flows[0].g": gs[::-1]})]), ["network.aqm.K"])


def test_linked_paths_are_one_axis_and_numbers_they_share_are_categories():
    """A linked axis written as in the sweep file ("a, b") is one axis; where two of its steps
    share x's number the steps are drawn as categories, never averaged together."""
    df = pd.DataFrame({"flows[0].protocol": ["dctcp", "newreno", "dctcp"], "network.aqm.K": ["20pkt", "20pkt", "100pkt"],
                       "network.aqm.K_pkt": [20.0, 20.0, 100.0], "seed": [1] * 3, "status": ["ok"] * 3,
                       "goodput_total_bps": [1e9, 2e9, 3e9]})
    fig = plot_sweep(df, ["flows[0].protocol, network.aqm.K"], x="network.aqm.K")
    (c,) = drawn(fig.axes[0])
    np.testing.assert_allclose(c.lines[0].get_data()[1], [1.0, 2.0, 3.0])
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["20pkt\ndctcp", "20pkt\nnewreno", "100pkt\ndctcp"]
    assert c.lines[0].get_linestyle() == "None"  # categories: points, no line between them


def test_categories_keep_their_labels_and_tables_are_told_apart_by_what_differs():
    aqms = [json.dumps({"kind": "threshold", "K": f"{k}pkt"}) for k in range(5, 185, 5)]  # 36 values
    df = pd.DataFrame({"network.aqm": aqms, "status": ["ok"] * 36, "goodput_total_bps": np.arange(1, 37) * 1e9})
    fig = plot_sweep(df, ["network.aqm"])
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == [f"K={k}pkt" for k in range(5, 185, 5)]
    # one table: its own keys, not "{}" (nothing differs between the values it is told apart from)
    one = pd.DataFrame({"network.aqm": aqms[:1] * 2, "x": [1.0, 2.0], "status": ["ok"] * 2,
                        "goodput_total_bps": [1e9, 2e9]})
    fig = plot_sweep(one, ["x", "network.aqm"])
    assert [c.get_label() for c in drawn(fig.axes[0])] == ["network.aqm = kind=threshold, K=5pkt"]
    flags = pd.DataFrame({"flows[0].ecn": [True, False], "status": ["ok"] * 2, "goodput_total_bps": [1e9, 2e9]})
    fig = plot_sweep(flags, "flows[0].ecn")  # one path as a bare string
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["true", "false"]  # as the sweep file writes them


def test_linked_values_stay_under_the_ticks_of_many_numeric_steps():
    """Past 10 numeric steps the ticks had been matplotlib's own, and a linked path's values were
    nowhere (a review: a zip of 12 steps)."""
    ks = [float(k) for k in range(10, 130, 10)]
    df = pd.DataFrame({"network.aqm.K": [f"{k:g}pkt" for k in ks], "network.aqm.K_pkt": ks,
                       "flows[0].g": [k / 1000 for k in ks], "status": ["ok"] * 12, "goodput_total_bps": ks})
    fig = plot_sweep(df, ["network.aqm.K, flows[0].g"])
    # twelve pairs do not fit side by side: slanted, each on one line
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == [f"{k:g} / {k / 1000:g}" for k in ks]


def test_the_default_x_is_an_axis_whose_numbers_tell_its_steps_apart():
    """A linked axis whose K repeats (drawn as categories) had been taken for x ahead of a plain
    numeric axis (a review)."""
    rows = [{"network.aqm.K": k, "network.aqm.K_pkt": float(k[:-3]), "flows[0].protocol": p, "network.buffer": b,
             "network.buffer_pkt": float(b[:-3]), "status": "ok", "goodput_total_bps": 1e9}
            for k, p in (("20pkt", "dctcp"), ("20pkt", "newreno")) for b in ("100pkt", "200pkt")]
    fig = plot_sweep(pd.DataFrame(rows), ["network.aqm.K, flows[0].protocol", "network.buffer"])
    assert fig.axes[-1].get_xlabel() == "network.buffer (pkt)"


def test_a_title_with_dollars_is_drawn_as_written(tmp_path):
    """An output folder named cost_$5_$10 had no figure: matplotlib's math mode (a review)."""
    df = synthetic()
    fig = plot_sweep(df, ["network.aqm.K", "flows[0].g"], path=tmp_path / "f.png", title="cost_$5_$10")
    assert (tmp_path / "f.png").stat().st_size > 10_000
    assert fig._suptitle.get_text().startswith(r"cost_\$5_\$10")


def test_the_api_refuses_what_it_cannot_draw_honestly(tmp_path):
    df = synthetic()
    # an axis left out: its values would be averaged as if they were seeds
    with pytest.raises(ValueError, match=r"^axes: \d+ rows share their values of network.aqm.K and their seed"):
        plot_sweep(df, ["network.aqm.K"])
    with pytest.raises(ValueError, match=r"^table: no status column"):
        plot_sweep(df.drop(columns="status"), ["network.aqm.K", "flows[0].g"])
    with pytest.raises(ValueError, match=r"is a folder; give a file name"):
        plot_sweep(df, ["network.aqm.K", "flows[0].g"], path=tmp_path)
    with pytest.raises(ValueError, match=r"names no figure format; give a name ending in one of .*\.png"):
        plot_sweep(df, ["network.aqm.K", "flows[0].g"], path=tmp_path / "noext")
    with pytest.raises(ValueError, match=r"names no figure format"):
        plot_sweep(df, ["network.aqm.K", "flows[0].g"], path=tmp_path / "made" / "here" / "noext")
    assert not list(tmp_path.iterdir())  # nothing written beside what was asked, no folder made for it
    plot_sweep(df, ["network.aqm.K", "flows[0].g"], path="/dev/null")  # a device: written to, as a PNG
    with pytest.raises(ValueError, match=r"^combine: 'lines'"):
        plot_sweep(df, ["network.aqm.K", "flows[0].g"], combine="lines")


def test_rough_p99s_are_open_markers_and_lines_keep_their_colour():
    df = pd.DataFrame({"x": [1.0, 1.0, 2.0, 2.0], "m": ["a", "b", "a", "b"], "seed": [1] * 4, "status": ["ok"] * 4,
                       "goodput_total_bps": [1e9] * 4, "fct_group[all].finished": [50.0, 500.0, 500.0, 500.0],
                       "fct_group[all].slowdown_p99": [3.0, 4.0, 5.0, 6.0]})
    fig = plot_sweep(df, ["x", "m"])
    p99 = next(ax for ax in fig.axes if ax.get_title() == "slowdown p99")
    opened = [ln for ln in p99.lines if ln.get_markerfacecolor() == "white"]
    assert len(opened) == 1 and list(opened[0].get_data()[0]) == [1.0]  # the point with 50 finished flows
    assert "open markers: a slowdown p99 over fewer than 100 finished flows" in footer(fig)
    for ax in fig.axes:  # line "m = b" is C1 in every panel (an overlay had moved the colour cycle on)
        assert [c.lines[0].get_color() for c in drawn(ax)] == ["C0", "C1"]


def test_a_value_without_a_finished_run_keeps_its_tick_and_breaks_the_line():
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0], "seed": [1] * 3, "status": ["ok", "error", "ok"],
                       "goodput_total_bps": [1e9, None, 3e9]})
    fig = plot_sweep(df, ["x"])
    (c,) = drawn(fig.axes[0])
    y = c.lines[0].get_data()[1]
    assert list(c.lines[0].get_data()[0]) == [1.0, 2.0, 3.0] and np.isnan(y[1]) and list(y[[0, 2]]) == [1.0, 3.0]


BASE = textwrap.dedent("""
    [network]
    senders = 2
    bottleneck = "10Gbps"
    rtt = "100us"
    buffer = "200pkt"
    aqm = { kind = "threshold", K = "20pkt" }
    [[flows]]
    count = 2
    protocol = "dctcp"
    [run]
    duration = "6ms"
    warmup = "2ms"
""")


def write_sweep(tmp_path: Path) -> Path:
    (tmp_path / "base.toml").write_text(BASE)
    f = tmp_path / "s.toml"
    f.write_text('base = "base.toml"\nseeds = 2\n[set]\n"flows[0].start_jitter" = "50us"\n'
                 '[axes]\n"network.aqm.K" = ["10pkt", "40pkt"]\n')
    return f


def test_a_sweeps_figure_draws_its_table(tmp_path):
    """SweepResult.plot on a real sweep: the queue panel's points are the table's means by K."""
    res = run_sweep(load_sweep(write_sweep(tmp_path)), tmp_path / "out", jobs=1, progress=False)
    assert res.axes == (("network.aqm.K",),)
    fig = res.plot()
    panels = {ax.get_title(): ax for ax in fig.axes}
    df = res.table
    q = "port[sw->r].q_mean_pkt"
    want = [df[df["network.aqm.K_pkt"] == k][q].mean() for k in (10.0, 40.0)]
    (c,) = drawn(panels["sw->r q mean pkt"])
    np.testing.assert_allclose(c.lines[0].get_data()[1], want, rtol=1e-12)
    # DCTCP keeps its queue around K (the analysis paper's limit cycle): a larger K, a larger queue
    assert want[1] > want[0]


def test_the_command_writes_the_figure_unless_told_not_to(tmp_path):
    f = write_sweep(tmp_path)
    r = runner.invoke(app, ["sweep", str(f), "--out", str(tmp_path / "a"), "--jobs", "1"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "a" / "sweep.png").stat().st_size > 10_000
    assert "figure:" in r.output and "sweep.png" in r.output
    r = runner.invoke(app, ["sweep", str(f), "--out", str(tmp_path / "b"), "--jobs", "1", "--no-plots"])
    assert r.exit_code == 0, r.output
    assert not (tmp_path / "b" / "sweep.png").exists() and "figure:" not in r.output
    # the directory of a sweep with its figure is a sweep's directory; again without plots, the
    # earlier figure, which would not show the table written now, is gone
    r = runner.invoke(app, ["sweep", str(f), "--out", str(tmp_path / "a"), "--jobs", "1", "--no-plots"])
    assert r.exit_code == 0, r.output
    assert "4 cached" in r.output and not (tmp_path / "a" / "sweep.png").exists()
    r = runner.invoke(app, ["sweep", str(f), "--out", str(tmp_path / "a"), "--plot-x", "K"])
    out = " ".join(r.output.split())
    assert r.exit_code == 2 and out.startswith("error: --plot-x: 'K' is not an axis path of") and "its axis paths: network.aqm.K" in out
    r = runner.invoke(app, ["sweep", str(f), "--out", str(tmp_path / "a"), "--plot-x", "network.aqm.K"])
    assert r.exit_code == 0 and (tmp_path / "a" / "sweep.png").exists(), r.output


def test_a_dry_runs_result_has_nothing_to_draw(tmp_path):
    """Also where an earlier sweep's table sits in its output directory: that is not this plan's."""
    spec = load_sweep(write_sweep(tmp_path))
    res = run_sweep(spec, tmp_path / "out", jobs=1, progress=False, dry_run=True)
    with pytest.raises(ValueError, match=r"^a dry run ran nothing: nothing to draw"):
        res.plot()
    run_sweep(spec, tmp_path / "out", jobs=1, progress=False)
    res = run_sweep(spec, tmp_path / "out", jobs=1, progress=False, dry_run=True)
    with pytest.raises(ValueError, match=r"^a dry run ran nothing"):
        res.plot()


def test_whole_numbers_are_ticked_in_full():
    """1000000 had been ticked "1e+06" (a review)."""
    df = pd.DataFrame({"n": [1e5, 1e6, 2.5e6], "status": ["ok"] * 3, "goodput_total_bps": [1e9, 2e9, 3e9]})
    fig = plot_sweep(df, ["n"])
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["100000", "1000000", "2500000"]


# --------------------------------------------------------------------------------------------
# property: whatever a grid sweep's table holds, the figure draws its means, or says why not

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_VALUES = {
    "num": st.lists(st.floats(0.001, 1e6, allow_nan=False), min_size=1, max_size=5, unique=True),
    "pkt": st.lists(st.integers(1, 500).map(lambda k: f"{k}pkt"), min_size=1, max_size=5, unique=True),
    "word": st.lists(st.sampled_from(["dctcp", "newreno", "dx", "dctcp-improved-fairness"]), min_size=1, max_size=4,
                     unique=True),
    "flag": st.lists(st.booleans(), min_size=1, max_size=2, unique=True),
    "table": st.lists(st.integers(1, 90).map(lambda k: json.dumps({"kind": "threshold", "K": f"{k}pkt"})),
                      min_size=1, max_size=4, unique=True),
}


@st.composite
def grid_tables(draw):
    kinds = draw(st.lists(st.sampled_from(sorted(_VALUES)), min_size=1, max_size=3))
    axes = {f"a{i}": draw(_VALUES[k]) for i, k in enumerate(kinds)}
    seeds = draw(st.integers(1, 3))
    rows = []
    for combo in itertools.product(*axes.values()):
        for seed in range(1, seeds + 1):
            row = dict(zip(axes, combo), seed=seed, status=draw(st.sampled_from(["ok", "ok", "ok", "error"])))
            row["goodput_total_bps"] = (draw(st.floats(0, 1e11, allow_nan=False)) if row["status"] == "ok"
                                        else float("nan"))
            rows.append(row)
    df = pd.DataFrame(rows)
    for name, k in zip(axes, kinds):
        if k == "pkt":  # the number column a sweep adds beside values with a unit
            df[name + "_pkt"] = df[name].str[:-3].astype(float)
    return df, list(axes)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grid_tables())
def test_any_grid_table_draws_its_means_or_says_why_not(case):
    """Each drawn point is the mean over its combination's finished seeds (pandas' group-by,
    computed here), at most MAX_SWEEP_LINES lines; anything else is a ValueError naming a field."""
    df, axes = case
    ok = df[df.status == "ok"]
    drawable = bool((ok["goodput_total_bps"] != 0).any())  # a finished run with a value to draw
    try:
        fig = plot_sweep(df, axes, x=axes[0])
    except ValueError as e:
        assert not drawable and str(e).startswith("table: "), e
        return
    assert drawable
    panel = next(ax for ax in fig.axes if ax.get_title() == "goodput Gbps")
    means = sorted(ok.groupby([ok[a].astype(str) for a in axes])["goodput_total_bps"].mean().to_numpy() * 1e-9)
    drawn_y = sorted(y for c in drawn(panel) for y in c.lines[0].get_data()[1] if not np.isnan(y))
    lines = {tuple(r) for r in ok[axes[1:]].astype(str).to_numpy()}  # the other axes' finished combinations
    assert len(drawn(panel)) == min(len(lines), MAX_SWEEP_LINES)
    if len(lines) <= MAX_SWEEP_LINES:
        np.testing.assert_allclose(drawn_y, means, rtol=1e-9, atol=1e-12)  # every line drawn: every mean
    else:
        assert set(np.round(drawn_y, 6)) <= set(np.round(means, 6))


def test_a_long_axis_label_is_wrapped_within_its_panel():
    """A zip of three linked paths had its x label ("workloads[0].protocol, with
    workloads[0].ect_acks, network.aqm") run into the next panel's (a review): each label's drawn
    extent stays within its panel's column, so neighbouring labels cannot overlap."""
    df = synthetic().rename(columns={"flows[0].g": "workloads[0].ect_acks_and_a_rather_long_name_of_a_path"})
    linked = ("network.aqm.K", "workloads[0].ect_acks_and_a_rather_long_name_of_a_path")
    df = df[(df["network.aqm.K_pkt"] == 10.0) == (df["workloads[0].ect_acks_and_a_rather_long_name_of_a_path"] == GS[0])]
    fig = plot_sweep(df, [linked], title="zip")
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    labelled = [ax for ax in fig.axes if ax.get_xlabel()]
    assert len(labelled) >= 2
    for ax in labelled:
        text = ax.xaxis.label
        assert "\n" in text.get_text()  # it was wrapped
        box, panel = text.get_window_extent(renderer), ax.get_window_extent(renderer)
        gap = fig.get_figwidth() * fig.dpi * 0.05  # the space between columns, at most
        assert box.x0 >= panel.x0 - gap and box.x1 <= panel.x1 + gap, (box, panel)
