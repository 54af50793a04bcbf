"""Figs. 4, 12 and 13 of the DCTCP analysis paper (quick variants): the phase diagram of the
normalized fluid model, convergence of 2 flows in the packet simulator beside the Hybrid model, and
RTT-fairness with DCTCP–Improved Fairness (eq. 36)."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from dcsim.experiments.dctcp_convergence_fairness import (MAX_TCP_RATIO, NS2_ALPHA_RATIO, alpha_ratio_band, below, fit_slope, local_slope,
                                                           slope_se, tol_conv)
from dcsim.experiments.registry import DIFFERS, INCONCLUSIVE, REPRODUCED, get


def _run(id, out):
    res = get(id).run(out, True)
    assert res.id == id and res.claims
    for f in res.files:
        assert f.exists() and f.stat().st_size > 0
    json.dumps([c.as_dict() for c in res.claims])
    return {c.statement: c for c in res.claims}


def test_slope_fits():
    r = np.array([1.0, 2.0, 4.0, 10.0])
    assert fit_slope(r, r ** 2) == pytest.approx(2.0)
    assert fit_slope(r, r) == pytest.approx(1.0)
    assert local_slope(r, r ** 1.5, 2.0, 10.0) == pytest.approx(1.5)
    assert math.isnan(local_slope(r, r, 20.0, 30.0))


def test_slope_orderings_need_twice_the_standard_error():
    """A review: "θ_IF < θ_RED" passed on 0.93 < 0.96 with standard errors 0.074 and 0.020. An exact
    power law has no error; an ordering is judged beyond twice the standard error of the difference."""
    r = np.array([1.0, 2.0, 4.0, 10.0])
    assert slope_se(r, r ** 2) == pytest.approx(0.0, abs=1e-12)
    zig = r * np.array([1.0, 1.6, 0.7, 1.3])  # a zig-zag around slope 1
    slopes = {"a": fit_slope(r, zig), "b": fit_slope(r, r ** 1.05), "c": fit_slope(r, r ** 2)}
    ses = {"a": slope_se(r, zig), "b": slope_se(r, r ** 1.05), "c": slope_se(r, r ** 2)}
    assert ses["a"] > 0.05
    v, txt = below("a", "b", slopes, ses)
    assert v == INCONCLUSIVE and "2 SE" in txt  # within the noise: neither shown nor contradicted
    assert below("b", "c", slopes, ses)[0] == REPRODUCED  # 1.05 < 2 with exact fits
    assert below("c", "b", slopes, ses)[0] == DIFFERS  # 2 < 1.05 is contradicted beyond the noise
    # a slope that is not finite is no ordering (it had made the rule both shown and contradicted)
    assert below("a", "b", {"a": 1.0, "b": math.inf}, {"a": 0.1, "b": 0.1})[0] == DIFFERS
    assert below("a", "b", {"a": 1.0, "b": math.nan}, {"a": 0.1, "b": 0.1})[0] == DIFFERS


def test_alpha_ratio_readings_are_the_quoted_tolerance_and_disjoint():
    """'About the same', 'about twice', 'about 5x': k to half a unit of its last digit (0.5 .. 1.5,
    1.5 .. 2.5, 4.5 .. 5.5), as 'up to about 2x' reads (MAX_TCP_RATIO = 2.5); every ratio supports at
    most one reading. (Until 2026-12-03 the bands met at the geometric means sqrt(2) and sqrt(10), so
    3.95 was "about 5x": an audit.)"""
    bands = sorted(alpha_ratio_band(k) + (k,) for k in NS2_ALPHA_RATIO.values())
    assert [b[:2] for b in bands] == [(0.5, 1.5), (1.5, 2.5), (4.5, 5.5)]
    assert bands[1][1] == MAX_TCP_RATIO
    for r in np.geomspace(0.5, 10, 200):
        assert sum(lo <= r < hi for lo, hi, _ in bands) <= 1


def test_convergence_tolerance_is_the_derived_sum_not_rounded():
    """1 % printed digits + 0.1 % sampling + 2 % pipe size + twice the join-phase sd, the largest of the
    three g (2.2 % quick, 3.2 % full, benchmarks/fig12_join_phase_spread.py, 2026-12-01 with 40 Gbps
    access links): 7.5 % and 9.5 %, not a rounded-up 15 %."""
    assert tol_conv(True) == pytest.approx(0.075, abs=1e-12)
    assert tol_conv(False) == pytest.approx(0.095, abs=1e-12)


def test_fig4_orbits_attracted(tmp_path):
    claims = _run("dctcp-fig4", tmp_path)
    assert all(c.verdict == REPRODUCED for c in claims.values()), {s: c.ours for s, c in claims.items()}
    st = pd.read_csv(tmp_path / "fig4_orbits.csv")
    assert (st.dist_start > 10 * st.dist_end).all()
    # the plotted orbits are saved, starting where fig4_orbits.csv says they start
    paths = pd.read_csv(tmp_path / "fig4_orbit_paths.csv")
    first = paths.groupby("orbit").first()
    assert (first.t_Rstar == 0).all() and np.allclose(first.W_pkt, st.set_index("orbit").W0_pkt)


def test_fig12_convergence(tmp_path):
    claims = _run("dctcp-fig12", tmp_path)
    df = pd.read_csv(tmp_path / "fig12_convergence.csv").set_index("case")
    assert (df.drops == 0).all()
    # every run converges within its horizon; smaller g is slower (Theorem 2: rate min(g, gamma))
    assert np.isfinite(df.conv_time_packet_s).all()
    assert df.loc["1/W_max"].conv_time_packet_s > df.loc["1/sqrt(W_max)"].conv_time_packet_s
    # DCTCP cuts by alpha/2 < 1/2: it converges slower than TCP (TCP's time: the mean over its joins)
    assert (df.drop(index="TCP").conv_time_packet_s > df.loc["TCP"].conv_time_packet_s).all()
    assert df.loc["TCP"].joins == 8 and df.loc["TCP"].conv_time_packet_sd_s > 0
    # flow 1 queues at the switch (40 Gbps hosts) and joins near W_max = C d' + K ~ 204 packets, as the
    # paper's "reaches 200" (a review: with access = bottleneck it was never marked, ~342 packets)
    w1 = df.drop(index="TCP").w1_at_join_pkt
    assert ((w1 > 0.8 * 204) & (w1 <= 1.05 * 204)).all(), w1
    assert claims["Sect. 4.3: g = 1/W_max significantly increases the total convergence time"].verdict == REPRODUCED
    # "up to about a factor of 2 slower than TCP": each ratio's +-2 standard-error band inside (1, 2.5]
    # reproduces, a band wholly outside it contradicts, a band across a limit leaves it unresolved. The
    # band from the CSV: DCTCP's join-phase spread (2.2 % in --quick) and TCP's standard error over its joins.
    tcp = df.loc["TCP"]
    rel = math.hypot(0.022, tcp.conv_time_packet_sd_s / tcp.conv_time_packet_s / math.sqrt(tcp.joins))
    bands = [(x * (1 - 2 * rel), x * (1 + 2 * rel))
             for x in df.loc[["1/sqrt(W_max)", "5/W_max"]].conv_time_packet_s / tcp.conv_time_packet_s]
    want = (REPRODUCED if all(1 < lo and hi <= 2.5 for lo, hi in bands)
            else DIFFERS if any(hi <= 1 or lo > 2.5 for lo, hi in bands) else INCONCLUSIVE)
    assert claims["Sect. 4.3: with g chosen by (27) DCTCP converges up to about a factor of 2 slower than TCP"].verdict \
        == want, bands
    # "alpha converges about k x faster than the windows": the ratio's +-2 sd band (its measured join-phase
    # spread, RATIO_SPREAD_SD) inside k +- half a unit reproduces, wholly outside differs, else inconclusive,
    # recomputed from the CSV (a review: a band of the windows' spread alone had made 3.95 "differ")
    from dcsim.experiments.dctcp_convergence_fairness import NS2_ALPHA_RATIO, RATIO_SPREAD_SD

    for name, k in NS2_ALPHA_RATIO.items():
        x = df.loc[name].conv_time_packet_s / df.loc[name].alpha_conv_time_s
        sd = RATIO_SPREAD_SD["quick"][name]
        lo, hi = x * (1 - 2 * sd), x * (1 + 2 * sd)
        want = (REPRODUCED if k - 0.5 <= lo and hi <= k + 0.5 else DIFFERS if hi < k - 0.5 or lo > k + 0.5
                else INCONCLUSIVE)
        (row,) = [c for s_, c in claims.items() if s_.startswith(f"Sect. 4.3: with g = {name} alpha converges")]
        assert row.verdict == want, (name, x, lo, hi)


def test_fig13_rtt_fairness(tmp_path):
    claims = _run("dctcp-fig13", tmp_path)
    df = pd.read_csv(tmp_path / "fig13_rtt_fairness.csv")
    assert set(df.scheme) == {"TCP–Drop-tail", "TCP–RED", "DCTCP", "DCTCP–Improved Fairness"}
    # equal RTTs share equally (within 10 %)
    assert (df[df.rtt_ratio == 1.0].tput_ratio.between(0.9, 1.1)).all()
    theta = df.groupby("scheme").fitted_theta.first()
    assert 0.5 < theta.min() and theta.max() < 2.5
    # the per-ACK decrease (36) improves on DCTCP; every scheme favours the shorter RTT more as the
    # RTT ratio grows (with the hosts' random send delays: no phase-locked inversions). DCTCP against
    # TCP–Drop-tail is the full run's claim: the quick run's 0.5 s after warm-up is not stationary at
    # 10x RTT (1 ms), where DCTCP's ratio is still far above the full run's.
    assert theta["DCTCP–Improved Fairness"] < theta["DCTCP"]
    for scheme, d in df.groupby("scheme"):
        r = d.sort_values("rtt_ratio").tput_ratio.to_numpy()
        assert (np.diff(r) > 0).all(), (scheme, r)
    assert claims["Sect. 5: TCP–RED: approximately linear RTT-fairness"].verdict == REPRODUCED
    assert claims["(setup) no drops, no timeouts"].verdict == REPRODUCED


def test_fig13_tends_to_squared_reads_a_rise_from_above_1_towards_2():
    """Sect. 5.1: "slightly worse than linear at moderate RTT ratios and tends to squared as the
    ratio grows". The rule had no upper end: a slope rising to 3 read as tending to squared. Each
    step is judged beyond twice its standard error: within it, the curve shows neither way."""
    from dcsim.experiments.dctcp_convergence_fairness import TOL_THETA, local_slope, local_slope_se, tends_to_squared

    assert tends_to_squared(1.2, 1.8) == REPRODUCED and tends_to_squared(1.05, 2.0 + TOL_THETA - 0.01) == REPRODUCED
    assert tends_to_squared(1.2, 2.0 + TOL_THETA + 0.01) == DIFFERS  # past squared
    assert tends_to_squared(1.44, 1.32) == DIFFERS  # falling, with no noise to hide in
    assert tends_to_squared(0.98, 1.5) == DIFFERS  # linear at moderate ratios
    # the full run of 2026-12-03: 1.44 +- 0.13 and 1.32 +- 0.18: worse than linear beyond the noise, the
    # fall of 0.12 within its 2 SE of 0.44: neither rising nor shown falling
    assert tends_to_squared(1.44, 1.32, 0.134, 0.176) == INCONCLUSIVE
    # 2 SE of the rise = 2 hypot(0.134, 0.176) = 0.442: a rise of 0.41 is within it, one of 0.51 beyond it
    assert tends_to_squared(1.44, 1.85, 0.134, 0.176) == INCONCLUSIVE
    assert tends_to_squared(1.44, 1.95, 0.134, 0.176) == REPRODUCED
    assert tends_to_squared(1.2, 2.0, 0.05, 0.05) == REPRODUCED
    assert tends_to_squared(1.05, 2.0, 0.05, 0.05) == INCONCLUSIVE  # 1.05 is not beyond 1 + 2 SE
    assert tends_to_squared(float("nan"), 2.0) == DIFFERS
    # the local slope's standard error: none for an exact power law or two points, the scatter otherwise
    r = np.array([1.0, 1.5, 2.0, 3.0])
    assert local_slope(r, r ** 1.5, 1.0, 3.0) == pytest.approx(1.5) and local_slope_se(r, r ** 1.5, 1.0, 3.0) < 1e-12
    assert math.isnan(local_slope_se(r[:2], r[:2], 1.0, 3.0))
    y = r ** 1.5 * np.array([1.0, 1.1, 0.9, 1.0])
    x, ly = np.log(r), np.log(y)  # the textbook formula, computed apart: s^2 = SSR / (n - 2), se = s / sqrt(Sxx)
    b = np.sum((x - x.mean()) * (ly - ly.mean())) / np.sum((x - x.mean()) ** 2)
    resid = ly - (ly.mean() + b * (x - x.mean()))
    want = math.sqrt(np.sum(resid ** 2) / 2 / np.sum((x - x.mean()) ** 2))
    assert local_slope_se(r, y, 1.0, 3.0) == pytest.approx(want, rel=1e-9)


def test_fig13_long_rtt_flows_never_take_more_than_the_short_ones():
    """Without random send times the deterministic system phase-locked with threshold marking: at
    RTT2 = 125 us the long-RTT DCTCP flows got 1.47x the short ones' throughput (ratio 0.68), the same
    for any start pattern (a review). With the hosts' random start delay (network.host_jitter, one
    bottleneck packet time) the longer RTT is no longer favoured: ratio >= 0.9 (10 % for the noise of a
    0.6 s run, as the equal-RTT check above) at the RTT ratios the phase-locked run inverted."""
    import dcsim
    from dcsim.experiments.dctcp_convergence_fairness import fig13_scenario

    for rtt2 in (125, 132):
        r = dcsim.simulate(dcsim.Scenario.from_dict(fig13_scenario("DCTCP", rtt2, 0.6, 0.1)))
        g = r.flows.goodput_bps.to_numpy()
        assert (g[0] + g[1]) / (g[2] + g[3]) >= 0.9, (rtt2, g)
