"""The DCTCP-analysis experiments run (quick grids), write PNG + CSV, and reproduce the paper's
central claims: rho < 1 (Fig. 6), Q_min >~ -0.15 (Fig. 7), >= 94 % throughput (Fig. 9),
convergence at rate (25) (Section 4)."""

import json
import math

import pandas as pd
import pytest

from dcsim.experiments.registry import get


def _run(id, tmp_path):
    res = get(id).run(tmp_path, True)
    assert res.id == id and res.claims
    for f in res.files:
        assert f.exists() and f.stat().st_size > 0
    assert any(str(f).endswith(".png") for f in res.files) and any(str(f).endswith(".csv") for f in res.files)
    json.dumps([c.as_dict() for c in res.claims])
    return {c.statement: c for c in res.claims}, res


def test_fig6(tmp_path):
    claims, res = _run("dctcp-fig6", tmp_path)
    c = next(v for k, v in claims.items() if k.startswith("rho(Z1 Z2) < 1"))
    assert c.verdict == "reproduced"
    df = pd.read_csv(tmp_path / "fig6_rho.csv")
    assert (df.rho < 1).all() and len(df) == 36
    # the printed exp(int J_F) is not the transition matrix (test_theory_dctcp): the row must say so,
    # and the conclusion that survives it is dcsim's own check, not a second reproduced claim
    printed = next(v for k, v in claims.items() if k.startswith("Theorem 1's Z1, Z2 as printed"))
    assert printed.verdict == "differs" and printed.kind == "claim"
    assert claims["(dcsim) with the printed Z1 Z2, rho < 1 still holds everywhere (Fig. 6's conclusion)"].kind == "check"


def test_fig7_and_fig8(tmp_path):
    claims, _ = _run("dctcp-fig7", tmp_path)
    assert claims["Q_min >~ -0.15 for small g"].verdict == "reproduced"
    df = pd.read_csv(tmp_path / "fig7_queue.csv")
    assert df[df.g == 0.01].Q_min.min() >= -0.15
    claims8, _ = _run("dctcp-fig8", tmp_path)
    c = claims8["period grows as sqrt(wbar) for small g; g = 0.01"]
    assert c.kind == "claim"
    # judged inside the figure (w̄ <= 1000): the local exponent there, recomputed from the cycles, decides
    from dcsim.theory import dctcp as th
    lo, hi = th.limit_cycles([500.0, 1000.0], [0.01, 0.01])
    k = math.log(hi.T / lo.T) / math.log(2.0)
    assert f"local exponent {k:.3f} over the figure's top octave" in c.ours
    assert c.verdict == ("reproduced" if abs(k - 0.5) <= 0.05 else "differs")
    # beyond the figure the growth approaches sqrt(w̄) (Sawtooth [1]: T ~ 0.71 sqrt(w̄)): an edge check
    assert claims8["(edge) period vs wbar beyond the figure, up to wbar = 1/g^2; g = 0.01"].verdict == "reproduced"
    # at larger g the fitted exponent is not 0.5: shown as (edge) checks, not counted
    assert all(v.kind == "check" for k, v in claims8.items() if k.startswith("(edge)"))


def test_fig9(tmp_path):
    claims, _ = _run("dctcp-fig9", tmp_path)
    # "always at least 94 %" is a bound: checked as stated (it had passed by rounding at 93.83 %:
    # an audit), inside "g < 0.1" (a review: it had been judged at g = 0.1): the figure's curves with
    # g < 0.1 and g = 0.09 at psi = 0, recomputed here, decide
    df = pd.read_csv(tmp_path / "fig9_throughput.csv")
    c = claims["throughput always >= 94 % for g < 0.1"]
    at09 = float(c.ours.split("g = 0.09 at psi = 0: ")[1].split(" %")[0])
    worst = min(100 * df[df.g < 0.1].throughput.min(), at09)
    assert c.verdict == ("reproduced" if worst >= 94 else "differs") and f"worst {worst:.2f} %" in c.ours, c.ours
    assert f"the g = 0.1 curve: {100 * df[df.g == 0.1].throughput.min():.2f} %" in c.ours
    # first principles: the worst case falls as g grows (93.85 % at 0.1 against 94.08 % at 0.05), so
    # g = 0.09 lies between the two curves around it
    assert 100 * df[df.g == 0.1].throughput.min() - 0.005 <= at09 <= 100 * df[df.g == 0.05].throughput.min() + 0.005
    assert claims["100 % throughput for psi >~ 0.17 (small g)"].verdict == "reproduced"


def test_hybrid(tmp_path):
    claims, _ = _run("dctcp-hybrid", tmp_path)
    rates = [c for k, c in claims.items() if k.startswith("convergence rate beta")]
    assert len(rates) == 3 and all(c.verdict == "reproduced" for c in rates)
    assert claims["beta_DCTCP < beta_TCP"].verdict == "reproduced"
    # the paper's 1.4 factor does not hold at finite W*: we must say so
    assert claims["beta_TCP < 1.4 beta_DCTCP for g large enough (g >= gamma)"].verdict == "differs"
    # bound (24): a row with no event where the bound lies between the resolution 1e-10 W* and 2 W_max
    # tests nothing and is inconclusive, never "reproduced" (an audit); the others are judged. Every g here
    # has such events (g = 1/W_max: T_P2 = 7 594 RTT, hundreds of events after it: a review)
    bounds = {k: c for k, c in claims.items() if k.startswith("bound (24)")}
    assert len(bounds) == 3
    for c in bounds.values():
        empty = "tests nothing of (24)" in c.detail
        assert (c.verdict == "inconclusive") == empty, c
        assert not empty and c.verdict == "reproduced", c
        assert int(c.detail.split("; ")[1].split()[0]) > 100, c.detail  # events where it can fail


def test_fig7_worst_wbar_is_a_refined_minimum_judged_by_rounding(tmp_path):
    """(ii) used to pass with 10.82 pkt against a limit of 0.9 x 12 = 10.8 chosen after the fact. Now the
    argmin is refined and the paper's whole-packet range 12-16 allows 11.5-16.5."""
    from dcsim.experiments import dctcp_analysis as da
    from dcsim.theory import dctcp as th

    w, q = da._worst_wbar(0.01)
    for f in (0.97, 1.03):  # a local minimum of Q_min, resolved to better than 3 %
        assert th.limit_cycle(w * f, 0.01).Q_min >= q - 1e-6
    claims, _ = _run("dctcp-fig7", tmp_path)
    c = claims["(ii) worst-case wbar (largest undershoot) about 12-16 packets"]
    ws = [float(x.split(": ")[1].split()[0]) for x in c.ours.split(", ")]
    assert (c.verdict == "reproduced") == all(11.5 <= x <= 16.5 for x in ws)


def test_fig9_starts_at_psi_zero(tmp_path):
    claims, _ = _run("dctcp-fig9", tmp_path)
    df = pd.read_csv(tmp_path / "fig9_throughput.csv")
    assert df.psi.min() == 0.0
    at0 = df[df.psi == 0]
    # psi = 0: the queue floor is the threshold; the worst case still loses throughput, < 100 %
    assert (at0.throughput < 1).all() and (at0.throughput > 0.9).all()
    # 100 % where no cycle touches the floor, up to the trapezoid rule on 0.01 R* samples (O(h^2) ~ 1e-5)
    assert (abs(df[df.floor_gap > 0].throughput - 1) < 1e-5).all()


def test_hybrid_rate_tolerance_and_ns2_band(tmp_path):
    claims, _ = _run("dctcp-hybrid", tmp_path)
    df = pd.read_csv(tmp_path / "hybrid_rates.csv")
    # the measured decay rate matches (25) to the fit's own resolution (rounding + neglected mode), < 1e-3
    assert (df.rate_resolution < 1e-3).all()
    assert (abs(df.measured_rate_per_rtt - df.beta_per_rtt) / df.beta_per_rtt <= df.rate_resolution).all()
    # the curves the figure draws are saved beside it: the error falls from O(1) to below 1e-9 of W*
    curves = pd.read_csv(tmp_path / "hybrid_convergence.csv")
    assert set(curves.g_name) == set(df.g_name)
    for _, c in curves.groupby("g_name"):
        assert c.err_rel.iloc[0] > 0.5 and c.err_rel.min() < 1e-9 and (c.bound_rel > 0).all()
    # the ns2 times are judged against the hybrid model's band [lower wall time of T_(k-1), T_k R*] +- 0.5 ms,
    # whose lower end lies between the extremes RTT = d (an empty queue) and RTT = R* (the queue at K)
    ns2 = {"1/sqrt(W_max)": 55e-3, "5/W_max": 67e-3, "1/W_max": 185e-3}
    R = 200e-6 + 35 / (10e9 / 12000)
    for r in df.itertuples():
        assert r.conv_time_prev_event_rtt * 200e-6 <= r.conv_time_lo_s <= r.conv_time_prev_event_rtt * R
        assert r.conv_time_hi_s == pytest.approx(r.conv_time_rtt * R, rel=1e-12)
        c = claims[f"(dcsim) time to within 10 % of fair share, g = {r.g_name}: hybrid model vs ns2 (Fig. 12)"]
        assert not c.is_claim  # a cross-check of two instruments: the paper does not claim it (a review)
        inside = r.conv_time_lo_s - 5e-4 <= ns2[r.g_name] <= r.conv_time_hi_s + 5e-4
        assert (c.verdict == "reproduced") == inside


def test_the_hybrid_models_wall_time_follows_its_queue():
    """Epoch j lasts dT_j RTTs of at least d + max(0, K - D_j)/C (D_j the cut at T_j): no cut (alpha = 0)
    keeps the queue at K, RTT = R* throughout; cuts of K or more allow an empty queue, RTT = d."""
    import numpy as np

    from dcsim.experiments.dctcp_analysis import _wall_time_lower_s
    from dcsim.theory.dctcp import HybridRun

    d, K, C = 200e-6, 35.0, 10e9 / 12000
    T = np.array([0.0, 1.0, 3.0, 6.0])
    W = np.full((4, 2), 100.0)
    none = _wall_time_lower_s(HybridRun(T, W, np.zeros((4, 2)), 200.0, 0.1), d, K, C)
    assert none == pytest.approx(T * (d + K / C), rel=1e-12)
    deep = _wall_time_lower_s(HybridRun(T, W, np.full((4, 2), 0.5), 200.0, 0.1), d, K, C)  # D = 50 > K
    assert deep == pytest.approx(T * d, rel=1e-12)
    half = _wall_time_lower_s(HybridRun(T, W, np.full((4, 2), 0.175), 200.0, 0.1), d, K, C)  # D = 17.5 = K/2
    assert half == pytest.approx(T * (d + K / 2 / C), rel=1e-12)


def test_checks_are_shown_apart(tmp_path):
    for id in ("dctcp-fig6", "dctcp-fig8"):
        _, res = _run(id, tmp_path)
        for c in res.claims:
            if c.statement.startswith(("(edge)", "(setup)", "(dcsim)", "the cycle is reached")):
                assert c.kind == "check", c.statement
        assert res.all_reproduced == all(c.verdict == "reproduced" for c in res.paper_claims)


def test_fig1_dctcp_keeps_a_small_full_queue_where_tcp_fills_the_buffer(tmp_path):
    """Fig. 1 (from DCTCP, SIGCOMM 2010): two long flows into one 1 Gbps port with ~600 KB of buffer.
    From first principles: DCTCP's queue stays within the Sawtooth model's K + N - A .. K + N (the
    sampled queue to a packet either side, and a packet on the wire), so it never empties and the link
    stays full; drop-tail TCP's window grows until the buffer overflows. The verdicts follow the
    stated criteria on the CSV's numbers."""
    from dcsim.experiments import dctcp_packet as dp
    from dcsim.theory import dctcp as th

    claims, _ = _run("dctcp-fig1", tmp_path)
    df = pd.read_csv(tmp_path / "dctcp_fig1.csv").set_index("protocol")
    d, t = df.loc["DCTCP"], df.loc["TCP"]
    saw = th.sawtooth(1e9 / 12000, dp.base_rtt_s(100e-6, (1e9, 1e9)), 20, 2)
    assert (saw.Q_min_pkt - 1) * 1.5 <= d.q_mean_kb <= (saw.Q_max_pkt + 1) * 1.5
    assert d.q_max_kb <= (saw.Q_max_pkt + 2) * 1.5 and d.drops == 0
    assert d.util >= 0.999 and d.empty == 0.0
    assert t.q_max_kb == pytest.approx(600.0, abs=1.5) and t.drops > 0 and t.util >= 0.99
    full = claims["DCTCP achieves full throughput (the buffer does not underflow)"]
    assert (full.verdict == "reproduced") == (d.util >= dp.FIG1_UTIL and d.empty < dp.FIG1_EMPTY)
    low = claims["... while maintaining a very low buffer occupancy compared to TCP"]
    assert (low.verdict == "reproduced") == (t.q_mean_kb >= dp.FIG1_RATIO * d.q_mean_kb)


def test_the_worked_example_of_section_1_2_is_evaluated_not_quoted():
    """Sect. 1.2: 10 Gbps, 300 us, 1500 B: K about 42 packets, 0.02 <~ g <~ 0.06. By hand: C d = 10^10 /
    12 000 x 3e-4 = 250 packets, K = 0.17 x 250 = 42.5, W_max = 292.5, 5/292.5 = 0.0171, 1/sqrt(292.5) =
    0.0585: each within half a unit of the paper's last digit."""
    from dcsim.experiments import dctcp_analysis as da

    row = da._worked_example()
    assert row.verdict == "reproduced" and row.kind == "claim"
    for printed in ("K = 42.5 pkt", "g_min = 5/(Cd + K) = 0.01709", "g_max = 1/sqrt(Cd + K) = 0.05847", "C d = 250 pkt"):
        assert printed in row.ours, row.ours
