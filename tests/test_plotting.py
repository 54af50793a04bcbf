"""Plots (issue 11 §4): Result.plot, compare, zoom on the oscillation, footer, no clipping/overlap."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from matplotlib.figure import Figure

import dcsim
from dcsim.plotting import KINDS, compare, oscillation_period
from dcsim.scenario import ScenarioWarning


def _run(protocol: str = "dctcp", aqm: dict | None = None, duration: str = "30ms") -> dcsim.Result:
    flows = {"count": 4, "protocol": protocol}
    if protocol == "newreno":
        flows["ecn"] = aqm is None
    return dcsim.simulate({
        "network": {"senders": 4, "bottleneck": "10Gbps", "rtt": "100us", "buffer": "300pkt",
                    "aqm": aqm or {"kind": "threshold", "K": "40pkt"}},
        "flows": [flows],
        "run": {"duration": duration, "warmup": "10ms"},
    })


@pytest.fixture(scope="module")
def dctcp():
    return _run()


def test_oscillation_period_of_a_sawtooth():
    # A sawtooth of period 0.17 s (a NewReno cycle) sampled every 1 ms, with noise 1 % of its swing.
    t = np.arange(0, 2.0, 1e-3)
    y = 100 + 50 * ((t / 0.17) % 1.0) + np.random.default_rng(1).normal(0, 0.5, t.size)
    assert oscillation_period(t, y) == pytest.approx(0.17, abs=2e-3)  # one sample of resolution
    assert oscillation_period(t, np.full_like(t, 3.0)) is None  # constant: no oscillation


def _sawtooth(t, period, phase=0.0, spikes=False):
    """A NewReno-like window: linear growth from 70 to 140 packets, halved once per period;
    with ``spikes``, as in a real trace, the window is cut, inflated to 200 for 2 ms (fast
    recovery of several losses), then cut again."""
    x = ((t - phase) / period) % 1.0
    y = 70 + 70 * x
    if spikes:
        y = np.where((x > 0.001 / period) & (x < 0.003 / period), 200.0, y)
    return y


def test_oscillation_period_is_not_halved_by_short_excursions_or_two_flows():
    """Issue 11 (audit): NewReno's cwnd, with a fast-recovery spike at each cut, gave about half its
    period; two flows in antiphase have each period P, and their sum, truly, P/2."""
    P = 0.174
    t = np.arange(0.1, 1.0, 250e-6)
    a = _sawtooth(t, P, spikes=True)
    b = _sawtooth(t, P, phase=P / 2, spikes=True)
    assert oscillation_period(t, a) == pytest.approx(P, rel=0.01)
    assert oscillation_period(t, b) == pytest.approx(P, rel=0.01)
    assert oscillation_period(t, (a + b) / 2) == pytest.approx(P / 2, rel=0.01)
    # not an oscillation: noise, a trend, fewer than 2 periods in the record
    rng = np.random.default_rng(3)
    assert oscillation_period(t, rng.normal(size=t.size)) is None
    assert oscillation_period(t, t) is None
    assert oscillation_period(t, _sawtooth(t, 0.6)) is None


def _synthetic(tables: dict, duration: str = "1s", warmup: str = "100ms", protocol: str = "newreno") -> dcsim.Result:
    """A Result holding given tables (the others empty), for plots of known signals."""
    import pandas as pd

    from dcsim.result import TABLES

    sc = dcsim.Scenario.from_dict({
        "network": {"senders": 2, "bottleneck": "1Gbps", "rtt": "250us", "buffer": "250pkt", "aqm": {"kind": "droptail"}},
        "flows": [{"count": 2, "protocol": protocol}],
        "run": {"duration": duration, "warmup": warmup},
    })
    full = {t: pd.DataFrame() for t in TABLES}
    full.update(tables)
    return dcsim.Result(sc, full)


def test_cwnd_zoom_shows_whole_periods_of_each_flow():
    """Two flows' windows in antiphase, period 174 ms: the zoom says 174 ms and spans 4 of them."""
    import pandas as pd

    P = 0.174
    t = np.arange(0, 1.0, 250e-6)
    rows = [pd.DataFrame({"t_s": t, "flow": f, "cwnd_pkt": _sawtooth(t, P, phase=f * P / 2, spikes=True),
                          "alpha": np.nan, "srtt_s": 250e-6}) for f in (0, 1)]
    res = _synthetic({"cwnd": pd.concat(rows, ignore_index=True)})
    fig = res.plot("cwnd")
    zx = fig.axes[1]
    z0, z1 = zx.get_xlim()
    assert "last 4 periods (period ≈ 174 ms)" in zx.get_title()
    assert z1 - z0 == pytest.approx(4 * P * 1e3, rel=0.01)


def test_the_demos_window_zoom_shows_the_sawtooth_not_the_slow_wander():
    """The demo's 10 DCTCP windows wander over tens of ms with the sawtooth a ripple on it: the
    zoom had taken 3 flows' wander (33-55 ms) for their period and showed 110 ms of dense band.
    It now follows the queue's oscillation; its period must be within 20 % of the median interval
    between a flow's window cuts (each flow cuts about once a queue cycle; 20 %: the cut interval
    of one flow against the cycle of the sum, measured 0.69 against 0.78 ms)."""
    from pathlib import Path

    import dcsim

    res = dcsim.simulate(dcsim.Scenario.from_toml(Path(__file__).parents[1] / "examples" / "dctcp_dumbbell.toml"))
    c = res.cwnd[res.cwnd.t_s >= res.warmup_s]
    cut_gaps = []
    for _, d in c.groupby("flow"):
        t, w = d.t_s.to_numpy(), d.cwnd_pkt.to_numpy()
        cuts = t[1:][np.diff(w) < -0.5]
        cut_gaps.append(np.median(np.diff(cuts)))
    fig = res.plot("cwnd")
    title = " ".join(" ".join(a.get_title() for a in fig.axes).split())  # the zoom's (the others have none)
    assert "of the first monitored queue" in title, title
    period_ms = float(title.split("period ≈ ")[1].split(" ms")[0])
    assert period_ms == pytest.approx(1e3 * float(np.median(cut_gaps)), rel=0.2), (title, cut_gaps)


@pytest.mark.parametrize("queue", ["flat", "periodic"])
def test_cwnd_zoom_without_most_windows_rhythm_follows_the_queue_or_else_the_windows(queue):
    """One of three windows is a sawtooth (174 ms), two are noise: the zoom follows the queue's
    oscillation (57 ms) when it has one; a flat queue gives none, and the one window's period is
    kept rather than dropped for 'the last 50 RTTs' (a review)."""
    import pandas as pd

    t = np.arange(0, 1.0, 250e-6)
    rng = np.random.default_rng(1)
    rows = [pd.DataFrame({"t_s": t, "flow": f, "alpha": np.nan, "srtt_s": 250e-6,
                          "cwnd_pkt": _sawtooth(t, 0.174) if f == 0 else 50 + rng.normal(size=t.size)}) for f in (0, 1, 2)]
    q = np.full(t.size, 30.0) if queue == "flat" else 100 + 50 * ((t / 0.057) % 1.0)
    res = _synthetic({"cwnd": pd.concat(rows, ignore_index=True),
                      "queue": pd.DataFrame({"t_s": t, "port": 0, "q_pkt": q, "q_bytes": 1500 * q})})
    title = " ".join(" ".join(a.get_title() for a in res.plot("cwnd").axes).split())
    if queue == "flat":
        assert "period ≈ 174 ms" in title and "queue" not in title, title
    else:
        assert "period ≈ 57 ms" in title and "of the first monitored queue" in title, title


def test_compare_zoom_scales_to_the_slowest_run():
    """Runs of very different periods (1 ms and 57 ms, 150 ms after warm-up: fewer than 4 slow
    cycles): the zoom shows whole periods of the slow one and names each run's own period."""
    import pandas as pd

    t = np.arange(0, 0.2, 50e-6)
    fast = _synthetic({"queue": pd.DataFrame({"t_s": t, "port": 0, "q_pkt": 50 + 20 * np.sin(2 * np.pi * t / 1e-3)})},
                      duration="200ms", warmup="50ms", protocol="dctcp")
    slow = _synthetic({"queue": pd.DataFrame({"t_s": t, "port": 0, "q_pkt": 500 + 500 * ((t / 0.057) % 1.0)})},
                      duration="200ms", warmup="50ms")
    fig = compare([fast, slow], "queue", labels=["fast", "slow"])
    zx = fig.axes[1]
    z0, z1 = zx.get_xlim()
    assert z1 - z0 == pytest.approx(2 * 57, rel=0.02)  # ms: 2 whole slow periods fit in 150 ms
    title = " ".join(zx.get_title().split())
    assert "2 periods of slow" in title and "fast ≈ 1 ms" in title and "slow ≈ 57" in title
    ys = [line.get_ydata() for line in zx.get_lines()]
    assert np.ptp(ys[1]) > 400, "the slow run is not flat in the zoom"


def _inside(fig: Figure) -> None:
    """Every text (title, footer, legend) lies inside the figure: nothing is cut."""
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    fb = fig.bbox
    texts = list(fig.texts) + ([fig._suptitle] if fig._suptitle else [])
    for lg in fig.legends:
        texts.append(lg)
    for t in texts:
        bb = t.get_window_extent(r)
        assert bb.x0 >= fb.x0 - 1 and bb.x1 <= fb.x1 + 1 and bb.y0 >= fb.y0 - 1 and bb.y1 <= fb.y1 + 1, t
    # Legends never cover an axes.
    for lg in fig.legends:
        lb = lg.get_window_extent(r)
        for ax in fig.axes:
            assert not lb.overlaps(ax.get_window_extent(r)), "a legend covers data"


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture(scope="module")
def runs(dctcp):
    """A result that fills each table: DCTCP (flows, ports, ...), incast (rounds), web search
    (Poisson workload), the DSM parking lot (L2 sources, rates, congestion points) and a fat-tree
    (tiers)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ScenarioWarning)
        short = {"run.duration": "150ms", "run.warmup": "20ms"}
        incast = dcsim.simulate(dcsim.load_scenario(EXAMPLES / "incast.toml").replace(
            {"run.duration": "300ms", "run.warmup": "50ms"}))
        web = dcsim.simulate(dcsim.load_scenario(EXAMPLES / "websearch.toml").replace(short))
        l2 = dcsim.simulate(dcsim.load_scenario(EXAMPLES / "dsm_dumbbell.toml").replace(
            {"run.duration": "30ms", "run.warmup": "10ms"}))
        fab = dcsim.simulate(dcsim.load_scenario(EXAMPLES / "fat_tree.toml").replace(
            {"network.k": 4, "run.duration": "5ms"}))
        perm = dcsim.simulate(dcsim.load_scenario(EXAMPLES / "permutation.toml").replace(
            {"run.duration": "3ms", "run.warmup": "1ms"}))
    out = {k: dctcp for k in KINDS}
    out.update(rounds=incast, workloads=web, rates=l2, sources=l2, cps=l2, fct=web, tiers=fab, permutation=perm)
    return out


def test_link_sharing_counts_the_flows_on_each_flows_busiest_link():
    from dcsim.result import link_sharing

    # a and b share leaf0->spine1; c crosses spine1 upwards too but in the other direction only
    # on the way down (spine1->leaf0 is not leaf0->spine1); d is alone.
    paths = ["h0->leaf0->spine1->leaf1->h8", "h1->leaf0->spine1->leaf1->h9",
             "h10->leaf1->spine1->leaf0->h2", "h3->leaf0->spine0->leaf1->h11"]
    assert link_sharing(paths).tolist() == [2, 2, 1, 1]
    assert link_sharing(paths[:1] * 3).tolist() == [3, 3, 3]


def _drawn(ax) -> bool:
    return bool(ax.get_lines() or ax.patches or ax.collections)


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_table_plots_with_footer_units_and_nothing_cut(runs, kind, tmp_path):
    """Issue 11 (audit): every table has a plot (counters, workloads, rounds, sources and cps too):
    a file is written, the axes hold data and units, the standard footer names the scenario."""
    res = runs[kind]
    fig = res.plot(kind, tmp_path / f"{kind}.png")
    assert (tmp_path / f"{kind}.png").stat().st_size > 1000
    assert (tmp_path / f"{kind}.png").read_bytes()[:4] == b"\x89PNG"
    footer = " ".join(t.get_text() for t in fig.texts)
    assert f"dcsim {dcsim.__version__}" in footer and res.scenario.describe()[:30] in footer
    assert any(_drawn(ax) for ax in fig.axes)
    for ax in fig.axes:
        if _drawn(ax):
            label = ax.get_ylabel()
            assert label and ("(" in label or label == "α"), f"{kind}: y axis without a unit: {label!r}"
    _inside(fig)


def test_the_new_plots_show_what_they_say(runs):
    c = runs["counters"].plot("counters").axes[0]
    assert [t.get_text() for t in c.get_xticklabels()] == ["sent", "delivered", "dropped", "in flight"]
    counters = runs["counters"].counters.iloc[0]
    assert [p.get_height() for p in c.patches] == [counters["sent_pkts"], counters["delivered_pkts"],
                                                    counters["dropped_pkts"], counters["in_flight_pkts"]]
    w = runs["workloads"].plot("workloads").axes[0]
    heights = [p.get_height() for p in w.patches]
    row = runs["workloads"].workloads.iloc[0]
    assert heights == pytest.approx([100 * row["target_load"], 100 * row["realised_load"]])
    r = runs["rounds"].plot("rounds").axes[0]
    comp = runs["rounds"].rounds["completion_s"].to_numpy(dtype=float)
    assert r.get_lines()[0].get_ydata() == pytest.approx(1e3 * comp[np.isfinite(comp)])
    cps = runs["cps"].plot("cps").axes[0]
    assert [p.get_height() for p in cps.patches] == [float(x) for x in runs["cps"].cps["samples"]] + [
        float(x) for x in runs["cps"].cps["feedback_frames"]]


@pytest.mark.parametrize("kind", ["workloads", "rounds", "sources", "rates", "cps"])
def test_an_empty_table_is_a_clear_error(dctcp, kind):
    with pytest.raises(ValueError, match=rf"plot\('{kind}'\): the {kind} table of this run is empty"):
        dctcp.plot(kind)


def test_every_plot_function_refuses_a_run_without_its_data():
    """An API probe called the plot functions directly, and compare(), on runs without the data:
    empty figures, matplotlib's "Axis limits cannot be NaN or Inf", and plot_sources calling a run
    without any L2 one "only Poisson short flows". Each now says which table is empty."""
    import dcsim.plotting as pl

    root = Path(__file__).resolve().parent.parent / "examples"
    work = dcsim.simulate(dcsim.Scenario.from_toml(root / "fat_tree.toml").replace({"run.duration": "2ms"}))
    blind = _run().scenario.replace({"metrics.monitor": [], "run.duration": "12ms"})
    unmonitored = dcsim.simulate(blind)
    cases = [(work, pl.plot_cwnd_alpha, "cwnd"), (work, pl.plot_throughput, "throughput"),
             (work, pl.plot_rates, "rates"), (work, pl.plot_sources, "sources"), (work, pl.plot_cps, "cps"),
             (work, pl.plot_rounds, "rounds"), (unmonitored, pl.plot_queue, "queue"),
             (unmonitored, pl.plot_queue_cdf, "queue_hist"), (_run(), pl.plot_workloads, "workloads")]
    for res, draw, table in cases:
        with pytest.raises(ValueError, match=rf"the {table} table of this run is empty, nothing to draw"):
            draw(res)
    with pytest.raises(ValueError, match=r"plot\('ports'\): this run monitored no port"):
        pl.plot_ports(unmonitored)
    assert "queue.png" not in pl.plots_for(unmonitored)
    for kind, res in (("cwnd", work), ("throughput", work), ("queue", unmonitored)):
        with pytest.raises(ValueError, match=rf"compare\('{kind}'\): mine: the {kind} table of this run is empty"):
            compare([_run(), res], kind, labels=["yours", "mine"])
    with pytest.raises(ValueError, match=r"kind \['queue'\] is not one of"):
        work.plot(["queue"])


def test_many_flows_are_drawn_as_points_and_a_partial_aggregate_says_so():
    """6 195 flows' bars took 28 s to draw (an API probe): beyond MAX_FLOW_BARS flows each is a
    point. The goodput figure's black line sums the traced flows only, and says so when some are
    not traced."""
    from dcsim.plotting import MAX_FLOW_BARS

    many = MAX_FLOW_BARS + 40
    res = dcsim.simulate({
        "network": {"senders": many, "bottleneck": "10Gbps", "rtt": "100us", "buffer": "2000pkt",
                    "aqm": {"kind": "threshold", "K": "40pkt"}},
        "flows": [{"count": many, "protocol": "dctcp"}],
        "metrics": {"trace_flows": 5},
        "run": {"duration": "4ms", "warmup": "1ms"},
    })
    fig = res.plot("flows")
    assert all(len(ax.patches) == 0 for ax in fig.axes[:2])
    pts = fig.axes[0].get_lines()[0]
    assert len(pts.get_xdata()) == many and pts.get_ydata() == pytest.approx(res.flows["goodput_bps"] / 1e9)
    fig = compare([res, res], "flows")
    assert len(fig.axes[0].patches) == 0
    assert len(_run().plot("flows").axes[0].patches) == 4  # a few flows: bars
    labels = [line.get_label() for line in res.plot("throughput").axes[0].get_lines()]
    assert f"aggregate of the 5 traced flows (of {many})" in labels


def test_plot_rejects_unknown_kinds(dctcp):
    with pytest.raises(ValueError, match="kind 'nope' is not one of queue, cwnd.*counters, workloads, rounds, sources, cps"):
        dctcp.plot("nope")


def test_the_window_plot_is_named_by_content():
    """NewReno has no α: its window plot is cwnd.png, DCTCP's (with α) cwnd_alpha.png."""
    from dcsim.plotting import plots_for

    assert "cwnd.png" in plots_for(_run("newreno")) and "cwnd_alpha.png" not in plots_for(_run("newreno"))
    assert "cwnd_alpha.png" in plots_for(_run()) and "cwnd.png" not in plots_for(_run())


def test_no_alpha_in_the_title_without_an_alpha_panel():
    reno = _run("newreno")
    fig = reno.plot("cwnd")
    assert "α" not in fig._suptitle.get_text() and len(fig.axes) == 2  # window only: full + zoom
    assert "α" in _run().plot("cwnd")._suptitle.get_text()


def test_compare_overlays_runs_and_zooms_on_whole_periods(dctcp, tmp_path):
    reno = _run("newreno", {"kind": "droptail"}, duration="120ms")
    fig = compare([dctcp, reno], "queue", labels=["DCTCP", "NewReno"], path=tmp_path / "c.png")
    ax, zx = fig.axes
    assert [line.get_label() for line in ax.get_lines()] == ["DCTCP", "NewReno"]
    # runs whose curves overlap stay apart by their line styles too, in both panels
    for panel in (ax, zx):
        assert [line.get_linestyle() for line in panel.get_lines()] == ["-", "--"]
    footer = " ".join(t.get_text() for t in fig.texts)
    assert "DCTCP: 4 x dctcp" in footer and "NewReno: 4 x newreno" in footer
    _inside(fig)
    for kind in ("cwnd", "throughput", "queue_hist", "flows"):
        compare([dctcp, reno], kind, labels=["a", "b"])
    with pytest.raises(ValueError, match="2 labels for 1 results"):
        compare([dctcp], "queue", labels=["a", "b"])
    with pytest.raises(ValueError, match="kind 'ports' is not one of"):
        compare([dctcp], "ports")


def test_zoom_follows_the_oscillation():
    """A NewReno drop-tail cycle lasts tens of ms: the zoom shows whole periods, not 50 RTTs (5 ms)."""
    reno = _run("newreno", {"kind": "droptail"}, duration="300ms")
    fig = reno.plot("queue")
    zx = fig.axes[1]
    z0, z1 = zx.get_xlim()
    assert "periods" in zx.get_title()
    assert z1 - z0 > 10 * 5.0  # ms: far wider than 50 RTTs of 100 us


def test_envelope_keeps_every_extreme_in_at_most_two_points_per_bin():
    """Issue 12 §5: plotted series are decimated to what a figure can show. The envelope keeps,
    per time bin, the bin's min and max (so each pixel column is covered as by the full series):
    a one-sample spike of 10^6 samples survives, and the result has at most 2 x bins points."""
    from dcsim.plotting import ENVELOPE_BINS, envelope

    rng = np.random.default_rng(1)
    t = np.arange(1_000_000) * 1e-6
    y = rng.normal(50, 5, t.size)
    y[123_457] = 1e4  # a spike of one sample
    y[876_543] = -1e4
    y[500_000:500_010] = np.nan
    tt, yy = envelope(t, y)
    assert len(tt) <= 2 * ENVELOPE_BINS and np.all(np.diff(tt) >= 0)
    assert np.nanmax(yy) == 1e4 and np.nanmin(yy) == -1e4
    # Bin by bin: the envelope's min and max are the series' own (exact, no interpolation).
    edges = np.linspace(t[0], t[-1], ENVELOPE_BINS + 1)
    k = 417
    inside = (t >= edges[k]) & (t < edges[k + 1])
    assert yy[2 * k] == np.nanmin(y[inside]) and yy[2 * k + 1] == np.nanmax(y[inside])
    short_t, short_y = t[:2 * ENVELOPE_BINS], y[:2 * ENVELOPE_BINS]
    a, b = envelope(short_t, short_y)
    assert np.array_equal(a, short_t) and np.array_equal(b, short_y)  # small series: unchanged


def test_a_drawn_series_has_the_envelope_of_the_samples(dctcp):
    """The queue line drawn over the whole run spans exactly the sampled minimum and maximum."""
    fig = dctcp.plot("queue")
    line = fig.axes[0].get_lines()[0]
    q = dctcp.queue["q_pkt"].to_numpy(dtype=float)
    assert len(line.get_ydata()) <= 2 * 800 < len(q) or len(q) <= 1600
    assert np.nanmax(line.get_ydata()) == q.max() and np.nanmin(line.get_ydata()) == q.min()


def test_workload_runs_draw_the_slowdown_not_empty_window_plots():
    """A workload's generated flows are not traced by default: a fabric run with only workloads drew empty
    window and goodput figures. It draws the queue and fct.png instead; the slowdown it plots is
    FCT / FCT on an empty network, so no flow lies below 1 (first principles: nothing beats an
    empty network), and the dumbbell demo (long-lived, traced flows) keeps its three figures."""
    from dcsim.plotting import plots_for

    root = Path(__file__).resolve().parent.parent / "examples"
    fab = dcsim.simulate(dcsim.Scenario.from_toml(root / "fat_tree.toml").replace({"run.duration": "5ms"}))
    assert list(plots_for(fab)) == ["queue.png", "fct.png", "tiers.png"]
    fig = fab.plot("fct")
    cdf = fig.axes[0]
    xs = np.concatenate([line.get_xdata() for line in cdf.get_lines()])
    assert xs.size and xs.min() >= 1.0 - 1e-9, xs.min()
    assert {t.get_text() for t in fig.axes[1].get_xticklabels()} >= {"<=10KB", "all"}
    assert list(plots_for(_run())) == ["queue.png", "cwnd_alpha.png", "throughput.png"]
    # long-lived flows only: said as such (it had read "no finite flow ... finished", as if some were slow)
    with pytest.raises(ValueError, match="this run has no finite flow that started after warm-up"):
        _run().plot("fct")


def test_a_fabric_draws_its_tiers():
    """tiers.png: one utilization CDF per tier and direction of a fat-tree, each over its k^3/4
    ports (k = 4: 16; the topology's definition) and ending at 1, and the tiers' drops and marks
    as the summary counts them; a dumbbell has no tiers and says so."""
    root = Path(__file__).resolve().parent.parent / "examples"
    fab = dcsim.simulate(dcsim.Scenario.from_toml(root / "fat_tree.toml").replace({"network.k": 4, "run.duration": "5ms"}))
    fig = fab.plot("tiers")
    lines = fig.axes[0].get_lines()
    assert [ln.get_label().split(" (")[0] for ln in lines] == list(fab.tier_stats()["tier"])
    assert all(len(ln.get_xdata()) == 16 and ln.get_ydata()[-1] == 1.0 for ln in lines)
    u = np.concatenate([ln.get_xdata() for ln in lines])
    assert u.min() >= 0 and u.max() <= 100
    heights = [r.get_height() for r in fig.axes[1].patches]
    ts = fab.tier_stats()
    assert heights == [*ts["drops"], *ts["marks"]]
    with pytest.raises(ValueError, match="has no tiers"):
        _run().plot("tiers")


def test_the_goodput_title_says_how_many_flows_are_drawn():
    """Past MAX_FLOWS_DRAWN the per-flow lines are a subset and carry no legend entry each: the
    title says how many of the traced flows are drawn (as the window figure's does)."""
    from dcsim.plotting import MAX_FLOWS_DRAWN

    n = MAX_FLOWS_DRAWN + 4
    r = dcsim.simulate({
        "network": {"senders": n, "bottleneck": "10Gbps", "rtt": "100us", "buffer": "300pkt",
                    "aqm": {"kind": "threshold", "K": "40pkt"}},
        "flows": [{"count": n, "protocol": "dctcp"}],
        "run": {"duration": "5ms", "warmup": "0ms"},
    })
    title = " ".join(r.plot("throughput")._suptitle.get_text().split())
    assert f"({MAX_FLOWS_DRAWN} of {n} traced flows, evenly spaced by id)" in title, title
    assert "(4 flows)" in _run(duration="12ms").plot("throughput")._suptitle.get_text()


def test_figure_audit_fixes_flows_alpha_mean_warmup_scale_and_in_order_goodput():
    """An audit of the run figures: plot('flows') divided a short flow's bytes by the whole time
    after warm-up (every web-search flow at ~0 Gbps); the alpha 'mean of 2 traced flows' of a
    DCTCP/NewReno pair was the DCTCP flow's own alpha; a warm-up slow-start peak set the window
    axis (0-730 packets for windows under 100); an in-order goodput above the link rate went
    unexplained."""
    from dcsim.result import active_goodput_bps

    web = dcsim.simulate(dcsim.load_scenario(Path(__file__).parents[1] / "examples" / "websearch.toml").replace(
        {"run.duration": "150ms", "run.warmup": "50ms"}))
    fig = web.plot("flows")
    f = web.flows
    want = active_goodput_bps(f.delivered_bytes, f.start_s, f.fct_s, web.warmup_s, web.duration_s) / 1e9
    heights = np.array([b.get_height() for b in fig.axes[0].patches])
    assert heights.size == len(f) and np.nanmax(heights) == pytest.approx(np.nanmax(want))
    assert np.nanmax(heights) > 5 * np.nanmax(f.goodput_bps / 1e9)  # a short flow's rate, not its bytes / 100 ms
    red = dcsim.simulate(dcsim.load_scenario(Path(__file__).parents[1] / "examples" / "red.toml").replace(
        {"run.duration": "300ms"}))
    fig = red.plot("cwnd")
    w_ax, a_ax = fig.axes[0], fig.axes[1]
    labels = [ln.get_label() for ln in a_ax.get_lines()]
    assert not any(lab.startswith("mean of") for lab in labels), labels  # one flow has alpha: no mean of it
    after = red.cwnd[red.cwnd.t_s >= red.warmup_s].cwnd_pkt.max()
    assert w_ax.get_ylim()[1] == pytest.approx(1.3 * after) and "cut off" in w_ax.get_title()
    title = red.plot("throughput")._suptitle.get_text()
    assert ("can exceed the link rate" in title) == bool(red.flows.retransmits_whole_run.sum() > 0)


def test_a_queue_figure_of_idle_monitored_ports_says_so():
    """fat_tree.toml's 9 default monitored ports stay empty while its other ports queue: the figure
    drew flat lines at 0 under the title "Queue length" (an audit of the figures)."""
    fab = dcsim.simulate(dcsim.load_scenario(Path(__file__).parents[1] / "examples" / "fat_tree.toml").replace(
        {"run.duration": "5ms"}))
    if float(fab.queue.q_pkt.max()) == 0:
        title = fab.plot("queue")._suptitle.get_text()
        # "all empty" only when the monitored ports' exact maxima (after warm-up) are 0 too: the
        # samples can miss a 1-packet queue between them (a review)
        exact = float(fab.ports[fab.ports.monitored].q_max_pkt.max())
        if exact == 0:
            assert f"all empty; the run has {len(fab.ports)} ports" in title and "tiers figure" in title
        else:
            assert f"no queue in the {len(fab.queue)} samples, but up to {exact:g} pkt between them" in title, title
    assert _run(duration="12ms").plot("queue")._suptitle.get_text() == "Queue length at the monitored port"


def test_a_queue_figure_whose_samples_missed_the_queue_does_not_call_it_empty():
    """A queue_interval longer than the run leaves one sample, at t = 0: the title said "all empty"
    over a queue of 75 packets (a review). The exact maximum is said, and the scenario warns."""
    sc = dcsim.load_scenario(EXAMPLES / "dctcp_dumbbell.toml").replace(
        {"run.duration": "2ms", "run.warmup": "1ms", "metrics.queue_interval": "10ms"})
    assert any(w.startswith("metrics.queue_interval: 10ms is longer than the run after warm-up (1ms)")
               for w in sc.warnings()), sc.warnings()
    with pytest.warns(ScenarioWarning, match="metrics.queue_interval"):
        r = dcsim.simulate(sc)
    assert len(r.queue) == 1 and r.queue.q_pkt.max() == 0
    qmax = float(r.ports[r.ports.monitored].q_max_pkt.max())
    assert qmax > 0  # 10 DCTCP flows at 10 Gbps queue at K = 65 packets
    title = r.plot("queue")._suptitle.get_text()
    assert "all empty" not in title
    assert f"no queue in the 1 sample, but up to {qmax:g} pkt between them after warm-up (samples every 10 ms" in title


def test_the_fct_figure_counts_unfinished_flows_and_marks_percentiles():
    """An audit: unfinished flows vanished from the FCT figure (a bucket of 3 flows, none finished,
    was not there), one bucket's CDF hid under an identical 'all', and percentile bars on a log
    axis made 2.0 look five times 1.25. Now each bucket's legend counts its unfinished flows, a
    bucket no flow of which finished is named in the title, 'all' appears only beside several
    buckets, and the percentiles are markers with their values."""
    ls = dcsim.simulate(dcsim.load_scenario(Path(__file__).parents[1] / "examples" / "leaf_spine.toml"))
    fig = ls.plot("fct")
    ax1, ax2 = fig.axes[:2]
    f = ls.flows
    timed = f[np.isfinite(f.size_bytes) & (f.start_s >= ls.warmup_s)]
    left = int(timed.fct_s.isna().sum())
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    finished = int(timed.fct_s.notna().sum())  # the legend had said "709 flows; 106 unfinished" of 815 (a probe)
    assert left > 0 and f"all ({finished} finished, {left} unfinished)" in labels, labels
    assert f"{left} unfinished flows (counted in the legend) have no FCT" in fig._suptitle.get_text()
    assert not ax2.patches and {ln.get_label() for ln in ax2.get_lines()} >= {"p50", "p99", "p99.9"}
    inc = dcsim.simulate(dcsim.load_scenario(Path(__file__).parents[1] / "examples" / "incast.toml").replace(
        {"run.duration": "300ms"}))
    names = [t.get_text() for t in inc.plot("fct").legends[0].get_texts()]
    assert not any(n.startswith("all (") for n in names), names  # one bucket: no identical 'all'


def test_an_unfinished_incast_round_is_drawn_as_the_lower_bound_it_is():
    """leaf_spine.toml's second round runs 8.1 ms to the end without completing: it was an ✗ at
    1.1 x the longest completion (12 ms), read as a completion time, and 3 never-started rounds
    went unmentioned (an audit of the figures)."""
    r = dcsim.simulate(dcsim.load_scenario(Path(__file__).parents[1] / "examples" / "leaf_spine.toml"))
    fig = r.plot("rounds")
    rd = r.rounds
    left = rd[rd.completion_s.isna()]
    assert len(left) >= 1
    (tri,) = [ln for ln in fig.axes[0].get_lines() if ln.get_label().startswith("not completed by the end")]
    assert tri.get_ydata() == pytest.approx((r.duration_s - left.start_s.to_numpy()) * 1e3)
    asked = r.scenario.workloads[int(rd.workload.iloc[0])].rounds
    assert (f"({len(rd)} of {asked} rounds started by the end)" in fig._suptitle.get_text()) == (len(rd) < asked)


def test_a_fabric_queue_figure_draws_each_ports_threshold():
    """K and the buffer were drawn for dumbbells and trees only: a leaf-spine's host port sat at its
    full 300-packet buffer with no line, and no K anywhere (an audit). Each drawn port's K now comes
    from its tier (leaf_spine.toml: 65 packets at the hosts, 130 on the uplinks), once per setting."""
    r = dcsim.simulate(dcsim.load_scenario(Path(__file__).parents[1] / "examples" / "leaf_spine.toml"))
    labels = [ln.get_label() for ln in r.plot("queue").axes[0].get_lines() if not ln.get_label().startswith("queue")]
    net = r.scenario.network
    k_host = net.tier_queue("host")[1].K.packets(net.packet_bytes)
    k_up = net.tier_queue("leaf_spine")[1].K.packets(net.packet_bytes)
    assert f"K = {k_host:g} pkt (leaf0->h0)" in labels and any(lab.startswith(f"K = {k_up:g} pkt (") for lab in labels)
    assert [lab for lab in _run(duration="12ms").plot("queue").axes[0].get_lines()
            if lab.get_label() == "K = 40 pkt"]  # one shared setting: once, unlabelled by port


def test_the_zoom_period_is_measured_next_to_the_zoom():
    """incast.toml's queue zoom quoted 'period ≈ 39.9 ms' for a 23 ms sawtooth: the period was
    measured over all the time after warm-up, incast burst included. It is now measured on the
    second half (next to the zoom at the end), and the first autocorrelation peak near the highest
    is taken (not a multiple of the period)."""
    from types import SimpleNamespace

    from dcsim.plotting import _zoom_period

    t = np.arange(0, 0.6, 1e-4)
    saw = 50 + 30 * ((t / 0.023) % 1.0)  # a 23 ms sawtooth
    burst = (t > 0.2) & (t < 0.34)
    y = np.where(burst, 250 * (np.sin(2 * np.pi * t / 0.046) > 0), saw)  # a slower, bigger disturbance
    res = SimpleNamespace(warmup_s=0.2, duration_s=0.6)
    assert _zoom_period(res, t, y) == pytest.approx(0.023, rel=0.03)
    # a clean record that only the whole time after warm-up holds twice: still found
    slow = 50 + 30 * ((t / 0.16) % 1.0)
    assert _zoom_period(SimpleNamespace(warmup_s=0.0, duration_s=0.6), t, slow) == pytest.approx(0.16, rel=0.03)


def test_a_zoom_with_nothing_at_the_end_goes_to_the_last_activity():
    """trace.toml's traffic ends at ~4 ms of a 6 ms run: the zoom on the last 1 ms was an empty
    panel (an audit). With no oscillation and nothing in the last stretch, the zoom now shows the
    same width around the last time the queue was above zero, and says so."""
    r = dcsim.simulate(dcsim.load_scenario(Path(__file__).parents[1] / "examples" / "trace.toml"))
    fig = r.plot("queue")
    zx = fig.axes[1]
    q = r.queue[r.queue.port == r.queue.port.iloc[0]]
    last = q[q.q_pkt > 0].t_s.max()
    z0, z1 = (v / 1e3 for v in zx.get_xlim())
    assert "around the last non-zero value" in zx.get_title() and z0 <= last <= z1 and z1 < r.duration_s


def test_compare_of_runs_of_different_lengths_zooms_where_every_run_is():
    """A 1 s and a 200 ms run: the zoom ended at 1 s, so the short run was absent from it while its
    period was quoted (an audit). It now ends at the shortest run's end and says so."""
    a, b = _run(duration="40ms"), _run(duration="25ms")
    fig = compare([a, b], "queue", labels=["long", "short"])
    zx = fig.axes[1]
    assert zx.get_xlim()[1] == pytest.approx(25.0) and "the shortest run's end" in zx.get_title()
    assert all(len(ln.get_xdata()) for ln in zx.get_lines())  # both runs drawn in the zoom


def test_the_fct_legend_counts_every_entry_alike_and_the_compare_zoom_says_what_it_shows(tmp_path):
    """A probe of the figures: the fct legend's per-workload entries said "(652 flows)" of 751 (the
    finished ones) beside "(116 finished, 4 unfinished)"; compare()'s queue zoom, cut to the shortest
    run's 150 ms, said "4 periods of NewReno" (period 174 ms), and its title ran off the figure."""
    from dcsim.plotting import compare

    root = Path(__file__).resolve().parent.parent / "examples"
    fab = dcsim.simulate(dcsim.Scenario.from_toml(root / "leaf_spine.toml").replace({"run.duration": "10ms"}))
    fig = fab.plot("fct")
    labels = [t.get_text() for t in fig.legends[0].get_texts()] if fig.legends else \
        [t.get_text() for ax in fig.axes for leg in [ax.get_legend()] if leg for t in leg.get_texts()]
    workload = [x for x in labels if x.startswith("workload ")]
    assert len(workload) == 2, labels
    f = fab.flows
    for x in workload:
        w = int(x.split()[1])
        timed = f[(f.workload == w) & np.isfinite(f.size_bytes.astype(float)) & (f.start_s >= fab.warmup_s)]
        done = int(np.isfinite(timed.fct_s.astype(float)).sum())
        left = len(timed) - done
        assert x.endswith(f"({done} finished, {left} unfinished)" if left else f"({done} flows)"), (x, len(timed))
    dc = dcsim.simulate(dcsim.Scenario.from_toml(root / "dctcp_dumbbell.toml"))
    nr = dcsim.simulate(dcsim.Scenario.from_toml(root / "newreno_droptail.toml"))
    fig = compare([dc, nr], "queue", labels=["DCTCP", "NewReno"], path=tmp_path / "q.png")
    title = fig.axes[1].get_title()
    flat = " ".join(title.split())
    assert ": 4 periods" not in flat and "less than one period of NewReno" in flat, title
    assert max(len(line) for line in title.split("\n")) <= 52, title
