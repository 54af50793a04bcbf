"""The DX paper's Section 4 as packet experiments (quick variants): files written, the claims the
physics guarantees come out "reproduced", numbers checked from Theorem 2 and first principles.

The packet flows know their base RTT exactly (R0 = "path"), so the special stable state must be
exact: W = 1 segment, p = 1, and a queue of N - C R0'/seg packets (R0' = R0 + 2.464 us, the engine's
base RTT at 10 Gbps)."""

import json
import math

import pandas as pd
import pytest

from dcsim.experiments.dx_packet import TABLE1, base_rtt_s, flow_stat, q_star_s
from dcsim.experiments.registry import REPRODUCED, get

C_PPS = 10e9 / 12000


def _run(id, out):
    res = get(id).run(out, True)
    assert res.id == id and res.claims
    for f in res.files:
        assert f.exists() and f.stat().st_size > 0
    assert any(str(f).endswith(".png") for f in res.files) and any(str(f).endswith(".csv") for f in res.files)
    json.dumps([c.as_dict() for c in res.claims])
    # every row of these experiments names our number per instrument or is one of our checks
    assert all(c.packet or c.fluid or c.theory or c.kind == "check" for c in res.claims)
    return {c.statement: c for c in res.claims}


def test_base_rtt_and_q_star():
    assert base_rtt_s(20e-6) == pytest.approx(22.464e-6, rel=1e-12)
    # Theorem 2 at N = 50, R0 = 20 us: (50 x 12000 bit - 10 Gbps x 20 us) / 10 Gbps = 40 us
    assert q_star_s(50, 10e9, 20e-6) == pytest.approx(40e-6, rel=1e-12)


def test_table1(tmp_path):
    claims = _run("dx-table1", tmp_path)
    assert claims["Sect. 4.1: in the special stable state p is even greater than 0.99"].verdict == REPRODUCED
    assert claims["(setup) no drops, runs after warm-up"].verdict == REPRODUCED
    df = pd.read_csv(tmp_path / "dx_table1.csv")
    assert set(df.R0_us) == set(TABLE1) and len(df) == 9
    # N = 100 at 80 us is in the special state (N >= C R0'/seg = 68.7): every round decreases
    assert df[(df.R0_us == 80) & (df.N == 100)].p_packet.iloc[0] == 1.0
    # elsewhere the queue drains now and then: some rounds increase
    assert (df[df.state != "special"].p_packet < 1.0).all() and (df.p_packet > 0.5).all()
    layout = pd.read_csv(tmp_path / "dx_table1_layout.csv", index_col=0)
    assert list(layout.index) == [80, 200, 400]


def test_fig2_special_state_and_oscillation(tmp_path):
    claims = _run("dx-fig2", tmp_path)
    for s in ("Fig. 2(a), N = 50, R0 = 20 us (special stable state): the fluid model is close to the simulation",
              "Theorem 2 at N = 50, R0 = 20 us: every window stays at one segment",
              "Theorem 2 at N = 50, R0 = 20 us: the link is fully utilized",
              "Theorem 2 at N = 50, R0 = 20 us: queueing delay Q* = (N seg - C R0)/C"):
        assert claims[s].verdict == REPRODUCED, (s, claims[s].ours)
    st = pd.read_csv(tmp_path / "dx_fig2_stats.csv").set_index("R0_us")
    a, b = st.loc[20.0], st.loc[80.0]
    assert a.q_mean_packet_pkt == pytest.approx(50 - C_PPS * base_rtt_s(20e-6), abs=1.0)  # 31.3 pkt
    # (b): below the threshold the packet queue cycles (it empties, so p < 1) with a finite period of a
    # few RTTs; the linearized model's natural period is of the same order
    assert b.p_packet < 1.0 and 0 < b.util_packet < 1.0
    rtt = base_rtt_s(80e-6)
    assert 2 * rtt < b.period_packet_s < 20 * rtt
    assert 2 * rtt < b.period_linear_s < 20 * rtt


def test_fig3_states(tmp_path):
    claims = _run("dx-fig3", tmp_path)
    assert claims["Sect. 4.2/Fig. 3: in the special stable state the link utilization is 99.9 %"].verdict == REPRODUCED
    df = pd.read_csv(tmp_path / "dx_fig3.csv")
    assert set(df.panel) == {"a", "b"}
    assert (df[df.state_R0_eff == "special"].util_packet >= 0.999).all()


def test_fig4_windows(tmp_path):
    claims = _run("dx-fig4", tmp_path)
    s = "Fig. 4: the average window size is indeed 1 when N >= 100 (R0 = 120 us) / R0 <= 60 us (N = 50)"
    assert claims[s].verdict == REPRODUCED, claims[s].ours
    df = pd.read_csv(tmp_path / "dx_fig4.csv")
    assert set(df.R0_mode) == {"path", "min"}
    # outside the special state the total window carries at least the pipe C R0'
    ns = df[(~df.special) & (df.R0_mode == "path")]
    assert (ns.cwnd_mean_pkt >= 0.9 * ns.pipe_per_flow_pkt).all()


def test_fig5_queueing_delay(tmp_path):
    claims = _run("dx-fig5", tmp_path)
    assert claims["Fig. 5 / Theorem 2: in the special stable state the queueing delay is Q* = (N seg - C R0)/C"].verdict \
        == REPRODUCED
    df = pd.read_csv(tmp_path / "dx_fig5.csv")
    # one more flow, one more packet queued: slope seg/C = 1.2 us per flow
    slope = (df.q_delay_packet_s.iloc[-1] - df.q_delay_packet_s.iloc[0]) / (df.N.iloc[-1] - df.N.iloc[0])
    assert slope == pytest.approx(12000 / 10e9, rel=0.05)


def test_fig6_queue_cdf(tmp_path):
    claims = _run("dx-fig6", tmp_path)
    assert claims["Fig. 6: the queue size is constantly larger than 30 packets when R0 = 20 us"].verdict == REPRODUCED
    cdf = pd.read_csv(tmp_path / "dx_fig6_cdf.csv")
    for _, c in cdf.groupby("R0_us"):
        assert c.cdf.iloc[-1] == pytest.approx(1.0, abs=1e-9)


def test_sec43_measured(tmp_path):
    claims = _run("dx-sec4.3", tmp_path)
    df = pd.read_csv(tmp_path / "dx_sec43.csv")
    assert len(df) == 9
    # the special-state points (R0 = 20 us at 10 Gbps; 1 Gbps at 120 us) keep the link busy
    assert (df[df.state_R0_eff == "special"].util_packet >= 0.999).all()
    assert claims["Sect. 4.3 vary R0: utilization at R0 = 20 us (N = 50, R0 = 20 us, C = 10 Gbps)"].verdict == REPRODUCED
    assert all(math.isfinite(x) for x in df.util_packet)


def test_flow_stat_means_over_flows():
    t = pd.DataFrame({"flow[0].p_decrease": [0.5, 1.0], "flow[1].p_decrease": [1.0, float("nan")], "x": [0, 0]})
    assert list(flow_stat(t, "p_decrease")) == [0.75, 1.0]
    with pytest.raises(KeyError):
        flow_stat(t, "nothing")
