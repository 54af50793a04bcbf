"""The coexistence paper's packet experiments (coexist-fig2 .. fig8) in quick mode: files written,
and the claims physics decides (not the paper's exact numbers) come out as first principles say:
drop-tail treats both protocols alike, threshold marking lets DCTCP dominate more as K grows,
RED's T_r follows the equal-marking model, CHOKe and modified CHOKe penalise the dominant flow,
incast rounds cannot beat the bottleneck, short flows see the offered load."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from dcsim.experiments.coexistence_packet import BOTTLENECK, base_rtt_s
from dcsim.experiments.registry import get


def run(id: str, out) -> dict:
    res = get(id).run(out, True)
    assert res.id == id and res.claims
    for f in res.files:
        assert f.exists() and f.stat().st_size > 0, f
    names = [f.name for f in res.files]
    assert any(n.endswith(".png") for n in names) and any(n.endswith(".csv") for n in names)
    # every table and figure it wrote is listed: the terminal's "files:" line left five CSVs out
    written = {f.name for f in out.iterdir() if f.is_file() and f.suffix in (".csv", ".png")}
    assert written <= set(names), written - set(names)
    params = json.loads((out / "parameters.json").read_text())
    assert params["rtt"] == "250us" and params["buffer"] == "250pkt" and params["mode"] == "quick"
    assert params["source"].startswith("as run")
    json.dumps([c.as_dict() for c in res.claims])
    return {c.statement: c for c in res.claims}


def _points(means, sems, xs=(10, 50, 90)):
    return pd.DataFrame({"n": list(xs), "mean": means, "sem": sems})


def test_trend_and_higher_tell_a_contradiction_from_noise():
    """An ordering or a trend within twice its standard errors is unresolved ("inconclusive"), not
    "differs": that word is kept for runs that go against the claim beyond their noise. The rows
    below are built by hand, their verdicts read off the stated rules."""
    from dcsim.experiments.coexistence_packet import higher, trend

    def h(a_means, b_means, se):
        return higher("s", "p", _points(a_means, [se] * 3), _points(b_means, [se] * 3), "n", a_name="A", b_name="B",
                      xname="n").verdict

    # SE 0.1 a point, so 2 SE of a difference = 0.28
    assert h([2.0, 2.0, 2.0], [1.0, 1.0, 1.0], 0.1) == "reproduced"  # above by 1.0 everywhere
    assert h([1.1, 1.1, 1.1], [1.0, 1.0, 1.0], 0.1) == "inconclusive"  # above, but within 0.28 everywhere
    assert h([1.1, 1.1, 0.5], [1.0, 1.0, 1.0], 0.1) == "differs"  # B above by 0.5 at one point
    assert h([2.0, 2.0, 0.5], [1.0, 1.0, 1.0], 0.1) == "reproduced"  # "generally": A above at most, on average
    assert h([1.0, float("nan"), 1.0], [1.0, 1.0, 1.0], 0.1) == "differs"  # a run without a number
    assert h([2.0, float("nan"), 2.0], [1.0, 1.0, 1.0], 0.1) == "differs"  # even where the rest shows it
    assert higher("s", "p", _points([], [], ()), _points([], [], ()), "n", a_name="A", b_name="B", xname="n").verdict \
        == "differs"
    # without standard errors (one run a point) nothing is resolved either way
    assert h([2.0, 2.0, 2.0], [1.0, 1.0, 1.0], float("nan")) == "inconclusive"

    def t(means, se, increasing=True):
        return trend("s", "p", _points(means, [se] * 3), "n", increasing, xname="n").verdict

    # 2 SE of the end-to-end change = 2 * 0.1 * sqrt(2) = 0.28; of a step the same
    assert t([1.0, 1.5, 2.0], 0.1) == "reproduced"
    assert t([1.0, 1.1, 1.2], 0.1) == "inconclusive"  # rises, within the noise
    assert t([1.2, 1.1, 1.0], 0.1) == "inconclusive"  # falls, within the noise: contradicts nothing
    assert t([2.0, 1.5, 1.0], 0.1) == "differs"  # falls beyond it
    assert t([1.0, 0.5, 2.0], 0.1) == "differs"  # rises overall, a step against it beyond the noise
    assert t([2.0, 1.5, 1.0], 0.1, increasing=False) == "reproduced"
    # one run a point: no standard error, so a step back is not "against the trend" (it had read as 0)
    assert t([1.0, 1.001, 0.9995], float("nan")) == "inconclusive"
    assert t([1.0, float("nan"), 2.0], 0.1) == "differs"


def test_base_rtt_and_bdp_from_first_principles():
    # 250 us + a 1500 B packet on three 10 Gbps hops (1.2 us each) and the 1 Gbps hop (12 us) + its
    # 40 B ACK back (0.32 us + 3 x 0.032 us) = 266.016 us; BDP = 1 Gbps x 266.016 us / 1500 B = 22.2.
    assert base_rtt_s() == pytest.approx(266.016e-6, rel=1e-12)


def test_fig2_droptail_is_fair(tmp_path):
    c = run("coexist-fig2", tmp_path)
    assert c["both flows converge to the same throughput values (drops halve both windows)"].verdict == "reproduced"
    assert c["RTT 250 us 'resulting in a BDP of ~22 packets'"].ours == "22.2 pkt"
    df = pd.read_csv(tmp_path / "coexist_fig2_runs.csv")
    assert (df[f"{BOTTLENECK}.utilization"] > 0.97).all()
    assert (df[f"{BOTTLENECK}.marks"] == 0).all()  # drop-tail never marks


def test_fig3_threshold_marking_lets_dctcp_dominate(tmp_path):
    c = run("coexist-fig3", tmp_path)
    assert c["as K increases, T_r increases"].verdict == "reproduced"
    assert c["T_a remains at 1 Gbps"].verdict == "reproduced"
    st = pd.read_csv(tmp_path / "coexist_fig3_Tr_vs_K.csv")
    assert (st["T_r_mean"] > 3).all()  # DCTCP takes most of the link at every K
    assert list(st.columns[:1]) == ["K_pkt"] and "runs" in st
    # the throughput panel's table names its quantity and unit; goodput of one flow <= the 1 Gbps link
    ts = pd.read_csv(tmp_path / "coexist_fig3_throughput.csv")
    assert list(ts.columns) == ["t_s", "DCTCP_goodput_bps", "TCP_goodput_bps"]
    # the aggregate goodput is printed in Mbps beside the utilization (not "utilization ... Gbps")
    assert "Mbps (payload)" in c["T_a remains at 1 Gbps"].ours


def test_fig4_red_follows_the_equal_marking_model(tmp_path):
    from dcsim.sweep import PROCESS_RUNS

    before = dict(PROCESS_RUNS)
    c = run("coexist-fig4", tmp_path)
    # each run fetched once: a second fetch counts as cached, and `reproduce` then does not record the
    # experiment's runtime (fig4's fluctuation row had fetched panel (a)'s run again: no shipped time)
    assert PROCESS_RUNS["cached"] == before["cached"] and PROCESS_RUNS["computed"] > before["computed"]
    assert c["(dcsim) RED's T_r follows from equal per-packet marking: T_r ~ 1.64 / sqrt(p)"].verdict == "reproduced"
    # The model's direction: a higher min_th marks less (p falls), so T_r ~ 1/sqrt(p) rises. The
    # quick run's 2 repetitions cannot always show it at the claim's 2 standard errors (+1.3
    # against 1.4 on 2026-11-29), so the test asks for the direction, not the verdict.
    tr = pd.read_csv(tmp_path / "coexist_fig4_Tr.csv")
    b = tr[tr["panel"] == "b"].set_index("min_th_pkt")["T_r_mean"]
    assert b.loc[b.index.max()] > b.loc[b.index.min()], b.to_dict()
    # The paper's comparison of RED with the DCTCP AQM is a claim row with both sides' numbers.
    red_vs_aqm = c["RED mitigates the unfairness: TCP does better than under the DCTCP AQM (abstract, IV-C)"]
    assert "DCTCP AQM (K = 65)" in red_vs_aqm.ours and "RED min_th 30" in red_vs_aqm.ours
    # The verdict follows its stated rule: lower at most settings and higher at none reproduces; higher
    # at one contradicts "mitigated"; lower at fewer than most and higher at none leaves it unresolved.
    lower, worse, n = map(int, re.search(r"at (\d+) and higher at (\d+) of (\d+) settings", red_vs_aqm.detail).groups())
    assert red_vs_aqm.verdict == ("differs" if worse else "reproduced" if lower > n / 2 else "inconclusive")


    # Fig. 4(a)'s "large fluctuations": its rule applied here to the two runs it used (cached: read again).
    from dcsim.experiments.coexistence_packet import K_FIG3A, _long, flow_bin_sd_mbps, one_run, red, threshold, tree

    fl = c["Fig. 4(a): under RED both flows show large fluctuations in throughput (probabilistic marking; IV-C)"]
    a = flow_bin_sd_mbps(one_run("fig4-panel", tree(red(50), _long(True), throughput_interval="1ms"), tmp_path))
    b = flow_bin_sd_mbps(one_run("fig3-panel", tree(threshold(K_FIG3A), _long(True), throughput_interval="1ms"), tmp_path))
    assert set(a) == set(b) == {0, 1}
    d = {f: a[f].mean() - b[f].mean() for f in a}
    se2 = {f: 2 * np.hypot(a[f].std(ddof=1), b[f].std(ddof=1)) / np.sqrt(len(a[f])) for f in a}
    assert fl.verdict == ("reproduced" if all(d[f] > se2[f] for f in a) else
                          "differs" if any(d[f] < -se2[f] for f in a) else "inconclusive"), (fl.ours, d, se2)
    assert "correlate" in fl.detail
    # "adapting the parameters does not improve fairness" is judged with "at least 2x" (one test)
    assert any(s.startswith("under RED, DCTCP outperforms TCP by at least 2x and adapting the parameters") for s in c)


class _Run:
    """What _fluctuations_claim reads of a Result: its throughput bins, warm-up and duration."""

    def __init__(self, per_flow: dict, warmup_s: float = 0.5, duration_s: float = 1.5, bin_s: float = 1e-3):
        n = round((duration_s - warmup_s) / bin_s)
        t = warmup_s + bin_s * np.arange(1, n + 1)
        self.throughput = pd.concat([pd.DataFrame({"t_s": t, "flow": f, "goodput_bps": fn(np.arange(n))})
                                     for f, fn in per_flow.items()], ignore_index=True)
        self.warmup_s, self.duration_s = warmup_s, duration_s


def _square(mean_mbps: float, swing_mbps: float):
    return lambda i: 1e6 * (mean_mbps + swing_mbps * np.where(i % 2 == 0, 1.0, -1.0))


def test_fig4a_fluctuations_are_the_bins_spread_and_the_verdict_follows_its_rule():
    """A bin series alternating mean +- x has, over a batch of n (even) bins, the sample standard
    deviation x sqrt(n / (n - 1)): 1 s after warm-up in 1 ms bins is 10 batches of 100 bins."""
    from dcsim.experiments.coexistence_packet import FLUCT_BATCHES, _fluctuations_claim, flow_bin_sd_mbps

    sd = flow_bin_sd_mbps(_Run({0: _square(600, 100), 1: _square(300, 40)}))
    assert FLUCT_BATCHES == 10 and set(sd) == {0, 1} and all(len(v) == 10 for v in sd.values())
    np.testing.assert_allclose(sd[0], 100 * np.sqrt(100 / 99), rtol=1e-9)
    np.testing.assert_allclose(sd[1], 40 * np.sqrt(100 / 99), rtol=1e-9)
    # warm-up bins are left out: a wild first half second changes nothing
    wild = _Run({0: lambda i: 1e6 * np.where(i < 0, 0, 600 + 100 * np.where(i % 2 == 0, 1.0, -1.0)),
                 1: _square(300, 40)}, warmup_s=0.5)
    wild.throughput = pd.concat([pd.DataFrame({"t_s": [0.1, 0.2], "flow": 0, "goodput_bps": [0.0, 2e9]}),
                                 wild.throughput], ignore_index=True)
    np.testing.assert_allclose(flow_bin_sd_mbps(wild)[0], sd[0], rtol=1e-9)

    big, small = _Run({0: _square(600, 100), 1: _square(300, 60)}), _Run({0: _square(800, 20), 1: _square(100, 20)})
    assert _fluctuations_claim(big, small).verdict == "reproduced"
    assert _fluctuations_claim(small, big).verdict == "differs"
    one_larger = _Run({0: _square(600, 100), 1: _square(100, 20)})
    assert _fluctuations_claim(one_larger, small).verdict == "inconclusive"  # equal for TCP: not shown
    missing = _fluctuations_claim(big, _Run({0: _square(800, 20)}))
    assert missing.verdict == "inconclusive" and "cannot judge: 1 of the 2 flows" in missing.ours
    # too few bins to measure a spread in each batch (< 2 a batch): left out, not a NaN verdict
    short = _Run({0: _square(600, 100), 1: _square(300, 40)}, warmup_s=0.5, duration_s=0.515)
    assert flow_bin_sd_mbps(short) == {}
    assert "nan" not in _fluctuations_claim(short, small).ours.lower()


def test_fig5_and_fig6_choke_penalises_the_dominant_flow(tmp_path):
    c5 = run("coexist-fig5", tmp_path / "5")
    # CHOKe's draws find DCTCP's packets (most of the queue): DCTCP is marked more than under RED
    assert c5["footnote 2: DCTCP's average alpha was larger under CHOKe than under RED"].verdict == "reproduced"
    d5 = pd.read_csv(tmp_path / "5" / "coexist_fig5_runs.csv").groupby("aqm")["T_r"].mean()
    assert d5["CHOKe"] < d5["RED"]
    c6 = run("coexist-fig6", tmp_path / "6")
    assert c6["modified CHOKe considerably improves fairness over RED"].verdict == "reproduced"
    # The quick grid has min_th = 40 (where T_r dips, a probe), so the claims the paper makes there are
    # measured there, with no note of another min_th.
    (stmt, c), = [(k, v) for k, v in c6.items() if k.startswith("T_r is lower than eq. (4) predicts")]
    assert c.verdict == "reproduced" and "measured at min_th" not in stmt
    assert sorted(pd.read_csv(tmp_path / "6" / "coexist_fig6_runs.csv")["min_th"].unique()) == [30, 40, 60, 90]
    d6 = pd.read_csv(tmp_path / "6" / "coexist_fig6_runs.csv")
    m = d6[d6["aqm"] == "modified CHOKe"]
    tcp = m["flow[1].ecn_cuts"] + m["flow[1].fast_retransmits"] + m["flow[1].timeouts"]
    assert (m["flow[0].ecn_cuts"] > tcp).all()  # the flow that backs off less backs off more often
    # Sect. IV-E compares DCTCP's back-offs with "before" (CHOKe, m = 1): those runs are in the table,
    # and the two claim rows show both sides at every min_th
    assert set(d6["aqm"]) == {"modified CHOKe", "CHOKe", "RED"}
    assert np.allclose(d6["dctcp_alpha_at_cuts"], 2 * d6["flow[0].ecn_cut_mean_frac"])
    assert (d6["dctcp_backoffs"] == d6["flow[0].ecn_cuts"] + d6["flow[0].fast_retransmits"] + d6["flow[0].timeouts"]).all()
    for prefix in ("Sect. IV-E: DCTCP observes a greater back-off frequency", "Sect. IV-E: ... and backs off by a greater"):
        (row,) = [v for k, v in c6.items() if k.startswith(prefix)]
        assert row.ours.startswith("modified CHOKe vs CHOKe at min_th = 30: "), row.ours
        assert row.ours.count(" vs ") == 1 + 4  # "a vs b at min_th = " and one "x vs y" per point


def test_fig7_incast_rounds_cannot_beat_the_link(tmp_path):
    c = run("coexist-fig7", tmp_path)
    assert c["(setup) every run completed its rounds"].verdict == "reproduced"
    # The background flows fill the link around the bursts: >= 95 % of the payload rate in every
    # run (a retransmission loop wasting the link on duplicates gave 68-98 %).
    [goodput] = [v for k, v in c.items() if k.startswith("(setup) the link carries new data")]
    assert goodput.verdict == "reproduced", goodput.ours
    df = pd.read_csv(tmp_path / "coexist_fig7_runs.csv")
    # 1 MB of payload is 685 packets, 1 027 400 B on the wire: 8.22 ms at 1 Gbps at the least
    assert (df["round_s"] >= 685 * 1500 * 8 / 1e9).all()
    assert set(df["protocol"]) == {"DCTCP", "TCP"} and set(df["aqm"]) == {"RED", "modified CHOKe"}
    # the client's port is the bottleneck and its columns are in the table: it carried every response
    # (1 MB of payload per round: at least a round's 685 packets through it after warm-up)
    assert (df["port[tor0->h0].tx_bytes"] >= 685 * 1500).all()
    assert (df["port[tor0->h0].q_mean_pkt"] > 0).all()


def test_fig8_short_flows(tmp_path):
    c = run("coexist-fig8", tmp_path)
    assert c["(setup) offered load of the short flows"].verdict == "reproduced"
    for proto in ("DCTCP", "TCP"):
        assert c[f"modified CHOKe: the AFCT of {proto} short flows decreases when min_th decreases"].verdict == "reproduced"
    st = pd.read_csv(tmp_path / "coexist_fig8_afct_ms.csv")
    # a 10-50 KB flow needs at least the 266 us RTT plus its serialisation at 1 Gbps (>= 82 us)
    assert (st["afct_mean_ms"] > 0.35).all()


def _seeds_per_combination(sweep_dir, axis_cols) -> set:
    t = pd.read_parquet(sweep_dir / "sweep.parquet")
    return set(t.groupby(axis_cols)["seed"].nunique())


def test_fig7_prints_the_scenario_it_ran_and_the_repetitions_it_ran(tmp_path):
    """The parameters (setup row, parameters.json) come from the scenarios run: one switch with
    every link 1 Gbps (not the tree's "1 Gbps into h2, 10 Gbps elsewhere"), and in quick mode the
    repetitions that ran (2), not the full mode's 10."""
    from dcsim.experiments.coexistence_packet import INCAST_RUN_QUICK, N_QUICK, incast_scenario
    from dcsim.scenario import Scenario

    run("coexist-fig7", tmp_path)
    params = json.loads((tmp_path / "parameters.json").read_text())
    executed = set()
    for proto in ("dctcp", "newreno"):
        executed |= _seeds_per_combination(tmp_path / f"sweep-fig7-{proto}", ["network.aqm.kind", "workloads[0].n"])
    assert executed == {2} and params["repetitions"] == 2
    assert params["runs"] == 2 * 2 * len(N_QUICK) * 2
    net = Scenario.from_dict(incast_scenario("dctcp", max(N_QUICK), INCAST_RUN_QUICK, 3)).to_dict(resolved=True)["network"]
    assert net["host_link"] == "1Gbps" and net["racks"] == 1
    assert params["links"] == "every link 1Gbps (one switch)"
    assert params["topology"] == f"tree, 1 rack, {3 + max(N_QUICK)} hosts"
    assert "10Gbps" not in json.dumps(params) and "10 Gbps" not in json.dumps(params)
    assert params["long_lived_flows"] == ["dctcp h1 -> h0", "newreno + ECN h2 -> h0"]
    assert params["run"]["duration"] == "550ms"
    setup = [c for c in get("coexist-fig7").run(tmp_path, True).claims if c.statement.startswith("(setup)")][0]
    assert "repetitions = 2;" in setup.detail and "every link 1Gbps (one switch)" in setup.detail


def test_throughput_panels_run_through_the_sweep(tmp_path, monkeypatch):
    """Fig. 3(a)'s long run goes through the sweep machinery (cache, progress, the executor of
    reproduce --jobs/--dask), not a direct simulate() call; a second run reuses it."""
    import dcsim

    def boom(*a, **k):
        raise AssertionError("simulate() called outside the sweep")

    monkeypatch.setattr(dcsim, "simulate", boom)
    run("coexist-fig3", tmp_path)
    rows = list((tmp_path / "sweep-fig3-panel" / "runs").glob("*/row.json"))
    assert len(rows) == 1 and (rows[0].parent / "throughput.parquet").exists()
    before = rows[0].stat().st_mtime_ns
    params = json.loads((tmp_path / "parameters.json").read_text())
    assert params["repetitions"] == 2 and params["axes"] == {"network.aqm.K": ["20pkt", "65pkt", "150pkt"]}
    get("coexist-fig3").run(tmp_path, True)
    assert rows[0].stat().st_mtime_ns == before  # cached, not computed again


def test_fig1_records_the_aimd_length_it_ran(tmp_path):
    """parameters.json of a --quick coexist-fig1 said the synchronized AIMD ran 100 000 RTTs (the
    function's default) while the run passed a literal 40 000 (a review): the lengths are now named
    settings, and the CSV's simulated ratios are those of the quick length."""
    from typer.testing import CliRunner

    from dcsim.cli import app
    from dcsim.experiments.coexistence import AIMD_RTTS_QUICK, synchronized_aimd

    res = CliRunner().invoke(app, ["reproduce", "coexist-fig1", "--quick", "-o", str(tmp_path)])
    assert res.exit_code == 0, res.output
    params = json.loads((tmp_path / "coexist-fig1" / "parameters.json").read_text())
    assert params["AIMD_RTTS_QUICK"] == AIMD_RTTS_QUICK == 40_000
    df = pd.read_csv(tmp_path / "coexist-fig1" / "coexist_fig1.csv")
    row = df[np.isclose(df.beta_dctcp, 0.9)].iloc[0]
    assert (row.sim_peak_ratio, row.sim_time_average_ratio) == synchronized_aimd(0.9, rtts=AIMD_RTTS_QUICK)
