"""The L2 family in the scenario layer: `[l2]` (QCN, DSM, SMCC), rate sources, congestion points,
feedback latency, and the parking-lot topology; named-field errors before anything runs; the
numbers of a run checked from first principles."""

from __future__ import annotations

import copy
import warnings
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import dcsim
from dcsim import Scenario
from dcsim.cli import app
from dcsim.scenario import ScenarioError, ScenarioWarning

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()
GBPS = 1e9
#: The exact loop of a two-switch lot with 1 us host links at 10 Gbps, without the generation
#: latency: the sampled frame's serialisation at its NIC (1000 B: 0.8 us) + 1 us to C1, and the
#: feedback frame's serialisation on C1 -> S (64 B: 51.2 ns) + 1 us back.
BASE_LOOP_S = 0.8e-6 + 1e-6 + 51.2e-9 + 1e-6


def lot(n: int = 5, scheme: str = "qcn", latency="97us", duration: str = "50ms", **l2) -> dict:
    attach = {**{f"S{i}": "C1" for i in range(1, n + 1)}, **{f"R{i}": "C2" for i in range(1, n + 1)}}
    return {
        "network": {"topology": "parking_lot", "switches": 2, "link": "10Gbps", "delay": "1us", "buffer": "128KB",
                    "attach": attach},
        "l2": {"scheme": scheme, "feedback_latency": latency,
               "sources": [{"src": f"S{i}", "dst": f"R{i}"} for i in range(1, n + 1)], **l2},
        "run": {"duration": duration, "warmup": "10ms"},
    }


def error(d: dict) -> str:
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(d)
    return str(e.value)


def test_engine_spec_of_the_example_and_a_toml_round_trip():
    sc = dcsim.load_scenario(ROOT / "examples" / "dsm_dumbbell.toml")
    spec = sc.to_engine_spec()
    top = spec["topology"]
    assert top["kind"] == "parking_lot" and top["switches"] == 2 and top["rate_bps"] == 10_000_000_000
    assert top["queue"]["capacity"] == {"bytes": 128_000}
    assert [h["at"] for h in top["hosts"]] == ["C1"] * 5 + ["C2"] * 5
    l2 = spec["l2"]
    assert l2["scheme"] == {"kind": "dsm"}  # the paper's defaults live in the engine
    assert l2["frame_bytes"] == 1000 and l2["feedback_latency"] == {"kind": "fixed", "ps": 297_148_800}
    assert Scenario.from_toml_str(sc.to_toml()).to_engine_spec() == spec
    # A parameter given is passed with its unit converted.
    d = lot(scheme="dsm", q0="50KB", T="40us", Ha="15kHz", Hb=10000, m=2, min_rate="1Gbps")
    s = Scenario.from_dict(d).to_engine_spec()["l2"]["scheme"]
    assert s == {"kind": "dsm", "q0_bytes": 50_000, "t_ps": 40_000_000, "h_a_hz": 15_000.0, "h_b_hz": 10_000.0, "m": 2,
                 "min_rate_bps": 1_000_000_000}
    lat = Scenario.from_dict(lot(latency={"lo": "400us", "hi": "800us"})).to_engine_spec()["l2"]["feedback_latency"]
    assert lat == {"kind": "uniform", "lo_ps": 400_000_000, "hi_ps": 800_000_000}


@pytest.mark.parametrize(
    "change, field, words",
    [
        ({"l2.feedback_latency": {"lo": "800us", "hi": "400us"}}, "l2.feedback_latency", "allowed lo <= hi"),
        ({"l2.scheme": "dsm", "l2.p": 0}, "l2.p", "0 < p <= 1"),
        ({"l2.scheme": "dsm", "l2.p": 1.5}, "l2.p", "0 < p <= 1"),
        ({"l2.scheme": "dsm", "l2.q0": "200KB"}, "l2.q0", "larger than the buffer of congestion point C1->C2"),
        ({"l2.qeq": "130KB"}, "l2.qeq", "larger than the buffer"),
        # a buffer in packets holds that many frames (1000 B): the engine had been left to refuse
        # it inside simulate (a fuzz run); 64 frames hold q0 = 64 KB exactly, so 63 do not
        ({"network.buffer": "2pkt", "l2.scheme": "dsm"}, "l2.q0", "(2pkt of 1000B frames = 2000 B)"),
        ({"network.buffer": "63pkt", "l2.scheme": "dsm"}, "l2.q0", "larger than the buffer of congestion point"),
        ({"l2.cps": ["S1->C1"]}, "l2.cps[0]", "host port"),
        # Counted in bytes: a bare 0 is 0 bytes, not "0pkt", and no unit shows byte forms (an audit).
        ({"l2.scheme": "dsm", "l2.q0": 0}, "l2.q0", "0B: give a whole number of bytes"),
        ({"l2.frame": 5}, "l2.frame", '5 has no unit; write a number and a unit such as "1500B"'),
        ({"l2.cps": ["C1->C3"]}, "l2.cps[0]", "no link"),
        ({"l2.sources[0].initial_rate": "0bps"}, "l2.sources[0].initial_rate", "out of range"),
        ({"l2.scheme": "dcqcn"}, "l2.scheme", "qcn, dsm, smcc"),
        ({"l2.q0": "64KB"}, "l2.q0", "not a parameter of qcn"),
        ({"l2.scheme": "dsm", "l2.qeq": "33KB"}, "l2.qeq", "not a parameter of dsm"),
        ({"l2.sources[0].src": "C1"}, "l2.sources[0].src", "not a host"),
        ({"l2.sources[0].dst": "S1"}, "l2.sources[0].dst", "two different hosts"),
        ({"l2.feedback_latency": ["1us", "2us"]}, "l2.feedback_latency", "one per source"),
        # per-source latencies: a short flow's host must have a listed source to take it from
        ({"l2.feedback_latency": ["1us"] * 5, "l2.poisson": [{"src": "R1", "dst": "S1", "rate": 10, "mean_size": "1MB"}]},
         "l2.poisson[0].src", "no listed source"),
        ({"l2.frame": "10B"}, "l2.frame", "out of range"),
        ({"network.attach.R5": "C7"}, "network.attach.R5", "not a switch of the chain"),
        ({"network.switches": 0}, "network.switches", "out of range"),
        ({"network.rtt": "100us"}, "network.rtt", 'not for topology = "parking_lot"'),
        ({"l2.sources": []}, "l2.sources", "no sources"),
        ({"l2.scheme": "dsm", "l2.periodic": "yes"}, "l2.periodic", "true or false"),
        ({"l2.periodic": True}, "l2.periodic", "not a parameter of qcn"),
        # the engine's own ranges, refused when the scenario is read (a review: Ha = 1e300 and m =
        # 200000 passed Scenario.from_dict and were refused by simulate only)
        ({"l2.scheme": "dsm", "l2.Ha": "1e300Hz"}, "l2.Ha", "H_a = 1e300 is out of range; allowed in (0, 1e15)"),
        ({"l2.scheme": "dsm", "l2.m": 200000}, "l2.m", "allowed 0 <= m <= 100000"),
        ({"l2.scheme": "smcc", "l2.a": 1e300}, "l2.a", "out of range"),
    ],
)
def test_bad_input_names_the_field(change, field, words):
    d = lot()
    for path, value in change.items():
        node, *keys = path.split(".")
        target = d[node]
        for k in keys[:-1]:
            if "[" in k:
                name, i = k[:-1].split("[")
                target = target[name][int(i)]
            else:
                target = target.setdefault(k, {})
        last = keys[-1]
        if "[" in last:
            name, i = last[:-1].split("[")
            target[name][int(i)] = value
        else:
            target[last] = value
    msg = error(d)
    assert msg.startswith(f"{field}:"), msg
    assert words in msg, msg


def test_cli_refuses_bad_l2_input_with_exit_2_and_no_traceback(tmp_path):
    text = (ROOT / "examples" / "dsm_dumbbell.toml").read_text().replace('scheme = "dsm"', 'scheme = "dsm"\np = 2')
    f = tmp_path / "bad.toml"
    f.write_text(text)
    res = runner.invoke(app, ["run", str(f), "--out", str(tmp_path / "o")], env={"COLUMNS": "300"})
    assert res.exit_code == 2, res.output
    assert "l2.p:" in res.output and "Traceback" not in res.output
    assert not (tmp_path / "o").exists()


def test_a_lone_source_below_qeq_gets_no_feedback_and_fills_the_link():
    # One QCN source alone at line rate: its frames never wait (at most one at C1 while the previous
    # is on the wire), far below Qeq = 33 KB, so the CP never sends feedback (QCN sends only for
    # Fb < 0) and the source keeps 10 Gbps. Goodput after warm-up = C up to one frame at each end
    # of the window: 2 x 8000 bit / 40 ms = 4e-7 of C.
    res = dcsim.simulate(lot(n=1, latency="0us"))
    s = res.sources.iloc[0]
    assert s.feedback_frames_whole_run == 0 and s.dropped_frames_whole_run == 0
    assert abs(s.goodput_bps - 10 * GBPS) <= 2 * 8000 / 0.040
    assert s.rate_final_bps == 10 * GBPS
    assert res.cps.feedback_frames_whole_run.iloc[0] == 0


def test_realised_loop_delay_is_the_links_plus_the_latency_exactly():
    # Five sources at line rate overload C1 -> C2 five times: QCN samples and sends feedback.
    res = dcsim.simulate(lot(n=5, latency="97us"))
    want = BASE_LOOP_S + 97e-6
    src = res.sources
    assert (src.feedback_frames > 0).all()
    for col in ("loop_delay_mean_s", "loop_delay_min_s", "loop_delay_max_s"):
        assert (abs(src[col] - want) < 1e-12).all(), (col, src[col].tolist(), want)
    # Conservation: every frame sent is delivered, dropped or still in the network.
    c = res.counters.iloc[0]
    assert c.sent_pkts == c.delivered_pkts + c.dropped_pkts + c.in_flight_pkts
    assert int(res.sources.dropped_frames_whole_run.sum()) == int(res.ports.drops_whole_run.sum())
    assert (res.ports.q_max_pkt.dropna() <= 128).all()  # 128 KB of 1000 B frames


def test_the_papers_defaults_break_eq23_and_a_warning_names_the_bound():
    # Section V: m = 4, Hb = 20 kHz gives b = Hb/(2m+3) = 1818 1/s, but eq. (23) asks
    # b > 1/((omega+1) T) = 1/(6 x 80 us) = 2083 1/s. Allowed (the paper ran it), but said.
    sc = Scenario.from_dict(lot(scheme="dsm"))
    ws = [w for w in sc.warnings() if w.startswith("l2:")]
    assert any("eq. (23)" in w and "b = 1818" in w and "2083" in w for w in ws), ws
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        dcsim.simulate(copy.deepcopy(lot(scheme="dsm", duration="12ms")))
    assert any(issubclass(w.category, ScenarioWarning) and "eq. (23)" in str(w.message) for w in got)
    # QCN has no such bounds.
    assert not [w for w in Scenario.from_dict(lot()).warnings() if w.startswith("l2:")]


def test_tcp_flows_run_on_a_parking_lot():
    d = lot(n=2)
    del d["l2"]
    d["flows"] = [{"count": 1, "protocol": "dctcp", "src": "S1", "dst": "R1"},
                  {"count": 1, "protocol": "dctcp", "src": "S2", "dst": "R2"}]
    d["network"]["aqm"] = {"kind": "threshold", "K": "30pkt"}
    d["network"]["buffer"] = "300pkt"
    res = dcsim.simulate(d)
    p = res.monitored_ports().iloc[0]
    assert f"{p.src}->{p.dst}" == "C1->C2"
    assert p.utilization > 0.95 and len(res.sources) == 0


def test_per_source_latency_with_poisson_flows_runs_and_short_flows_take_their_hosts_latency():
    # Was an engine panic ("internal error"). S1's latency is 50 us, S2's 150 us; short flows
    # from S1 take S1's, so their loop is BASE + 50 us (up to 0.8 us less when the sampled frame
    # was a flow's last, shorter frame), 100 us away from S2's.
    d = lot(n=2, scheme="dsm", latency=["50us", "150us"], duration="100ms")
    d["l2"]["poisson"] = [{"src": "S1", "dst": "R1", "rate": 500, "mean_size": "125KB"}]
    src = dcsim.simulate(d).sources
    got = src[src.feedback_frames_whole_run > 0]
    short = got[got.poisson.notna()]
    assert len(short) > 5
    for col in ("loop_delay_min_s", "loop_delay_max_s"):
        assert ((short[col] <= BASE_LOOP_S + 50e-6 + 1e-12) & (short[col] >= BASE_LOOP_S + 50e-6 - 0.8e-6 - 1e-12)).all()
        assert abs(src[src.source == 1][col].iloc[0] - (BASE_LOOP_S + 150e-6)) < 1e-12


def test_parking_lot_buffer_defaults_to_the_papers_128KB_from_the_engine():
    # The issue: "drop-tail at the buffer (128 KB by default)" (DSM paper Section V-A). Left out,
    # the buffer is 128 000 B (KB = 1000 B, as for frames), drop-tail, in Python and in the engine.
    d = lot(n=5, latency="0us", duration="20ms")
    del d["network"]["buffer"]
    sc = Scenario.from_dict(d)
    assert sc.network.buffer.value == 128_000 and sc.network.buffer.unit == "B"
    assert "buffer" not in sc.to_dict()["network"]  # a default, not written back
    top = sc.to_engine_spec()["topology"]
    assert top["queue"] == {"capacity": {"bytes": 128_000}, "aqm": {"kind": "drop_tail"}}
    # Python reads the value from the engine (one place for the default).
    import json
    from dcsim import _core
    assert json.loads(_core.engine_defaults())["parking_lot_buffer_bytes"] == 128_000
    # A run: the queue never exceeds 128 frames of 1000 B.
    res = dcsim.simulate(d)
    assert (res.ports.q_max_pkt.dropna() <= 128).all()
    # qeq / q0 are checked against the default buffer too.
    d["l2"]["qeq"] = "130KB"
    assert error(d).startswith("l2.qeq:")
    # ... and against a buffer in packets as the engine counts it, 64 frames of 1000 B: accepted.
    d["l2"].pop("qeq")
    d["network"]["buffer"] = "64pkt"
    d["l2"]["scheme"] = "dsm"
    assert Scenario.from_dict(d).check_resources()["topology"]["queue"]["capacity"] == {"packets": 64}


def test_smcc_with_only_some_gains_given_is_checked_with_the_defaults_for_the_rest():
    # c = 30 000 1/s alone: T = 8 x 1000 B / (0.01 x 10 Gbps) = 80 us, and eq. (23) asks
    # c < 2/T = 25 000 1/s. The unset a, b take SMCC's defaults (inside the ranges, so no word on them).
    ws = [w for w in Scenario.from_dict(lot(scheme="smcc", c=30000)).warnings() if w.startswith("l2:")]
    assert any("c = 3e+04" in w and "2/T = 2.5e+04" in w for w in ws), ws
    assert not any(w.startswith("l2: a =") or w.startswith("l2: b =") for w in ws), ws
    # The defaults alone are inside every bound.
    assert not [w for w in Scenario.from_dict(lot(scheme="smcc")).warnings() if w.startswith("l2:")]


def _graph(core: str) -> dict:
    nodes = [{"name": n, "kind": "switch" if n.startswith("C") else "host"} for n in ("S1", "S2", "C1", "C2", "R1", "R2")]
    links = [{"a": "S1", "b": "C1", "rate": "100Gbps", "delay": "1us"}, {"a": "S2", "b": "C1", "rate": "100Gbps", "delay": "1us"},
             {"a": "C1", "b": "C2", "rate": core, "delay": "1us", "buffer": "1MB"},
             {"a": "C2", "b": "R1", "rate": "100Gbps", "delay": "1us"}, {"a": "C2", "b": "R2", "rate": "100Gbps", "delay": "1us"}]
    return {"network": {"topology": "graph", "nodes": nodes, "links": links},
            "l2": {"scheme": "dsm", "cps": ["C1->C2"], "sources": [{"src": "S1", "dst": "R1"}, {"src": "S2", "dst": "R2"}]},
            "run": {"duration": "10ms"}}


def test_graph_topologies_get_the_eq23_warning_with_C_of_the_congestion_points_link():
    # DSM's defaults give b = Hb / (2m + 3) = 20 kHz / 11 = 1818 1/s. Eq. (23) asks b > 1/((omega+1) T)
    # with T = 8 frame / (p C): at C = 10 Gbps T = 80 us and the bound is 2083 1/s; at 100 Gbps
    # T = 8 us and it is 20 833 1/s. C is the CP's link (C1->C2), not the 100 Gbps host links.
    for core, bound in (("10Gbps", "2083"), ("100Gbps", "2.083e+04")):
        ws = [w for w in Scenario.from_dict(_graph(core)).warnings() if w.startswith("l2:")]
        assert any("b = 1818" in w and f"= {bound} 1/s" in w and core in w for w in ws), (core, ws)


def test_schemes_and_parameters_come_from_the_engines_table():
    # One table in the engine (names, fields, units, defaults): every parameter of every scheme is a
    # field of [l2], converted to the engine's unit and field; a scheme added to the engine needs
    # no change here.
    import json
    from dcsim import _core
    from dcsim.scenario import L2, L2_PARAMS, L2_SCHEMES

    table = json.loads(_core.engine_defaults())["l2_schemes"]
    assert L2_SCHEMES == tuple(s["name"] for s in table)
    assert L2_SCHEMES[:3] == ("qcn", "dsm", "smcc")  # the papers' schemes first; others may follow
    as_written = {"bytes": lambda d: f"{d}B", "ps": lambda d: f"{d}ps", "bps": lambda d: f"{d}bps"}
    for s in table:
        assert set(L2_PARAMS[s["name"]]) == {p["name"] for p in s["params"]}
        given = {p["name"]: as_written.get(p["unit"], lambda d: d)(p["default"]) for p in s["params"]}
        sc = Scenario.from_dict(lot(scheme=s["name"], **given))
        eng = sc.to_engine_spec()["l2"]["scheme"]
        assert eng == {"kind": s["name"], **{p["field"]: p["default"] for p in s["params"]}}, eng
        assert sc.l2.target_bytes() == (s["target"], next(p["default"] for p in s["params"] if p["name"] == s["target"]))
        for p in s["params"]:
            assert p["name"] in L2.model_fields
    # A parameter of another scheme is refused, naming the field.
    assert error(lot(scheme="smcc", Ha="10kHz")).startswith("l2.Ha:")


def _one_host_lot(tcp: bool) -> dict:
    """Three QCN sources (and maybe a DCTCP flow) on host S1, whose 10 Gbps link is the only way out;
    the sources start at line rate, so together they offer 3x what S1's link carries."""
    d = {
        "network": {"topology": "parking_lot", "switches": 2, "link": "10Gbps", "delay": "1us", "buffer": "128KB",
                    "attach": {"S1": "C1", "R1": "C2", "R2": "C2"}},
        "l2": {"scheme": "qcn", "feedback_latency": "10us", "sources": [{"src": "S1", "dst": "R1", "count": 3}]},
        "run": {"duration": "20ms", "warmup": "5ms"},
    }
    if tcp:
        d["flows"] = [{"protocol": "dctcp", "src": "S1", "dst": "R2"}]
    return d


@pytest.mark.parametrize("tcp", [False, True])
def test_sources_of_one_host_share_its_line_rate(tcp):
    """Host backpressure for L2 sources (found by probing): three sources on one 10 Gbps host sent
    30 Gbps into it, so its queue grew without bound (750 003 frames after 300 ms), no congestion
    point saw the excess, and a TCP flow on the host got 2 packets through. A NIC carries its line
    rate: the host queue stays within host_backlog_pkt (2), the frame being sent not counted, the sources
    together send at most the link's 10 Gbps in equal shares (served in turn: within one frame),
    and a TCP flow of the host gets turns as well (one packet per turn: 1500 B against 1000 B
    frames gives it 60 % of the link; asked here only to get at least a quarter)."""
    res = dcsim.simulate(_one_host_lot(tcp))
    span_s = res.duration_s - res.warmup_s
    host = res.ports[(res.ports.src == "S1") & (res.ports.dst == "C1")].iloc[0]
    assert host.q_max_pkt <= 2
    src = res.sources
    sent_bps = src.sent_frames.to_numpy() * 1000 * 8 / span_s
    assert sent_bps.sum() <= 10e9 * 1.001  # one frame of slack at the window's edges
    assert sent_bps.max() - sent_bps.min() <= 2 * 1000 * 8 / span_s  # equal turns, within a frame each
    if tcp:
        assert float(res.flows.goodput_bps.iloc[0]) >= 0.25 * 10e9
    else:
        assert sent_bps.sum() >= 0.99 * 10e9  # and the link is used whole


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize("example, changes", [
    ("dctcp_dumbbell.toml", {}),
    ("graph.toml", {}),
    ("coexist_tree.toml", {}),
    ("coexist_tree.toml", {"network.bottleneck": None}),  # no slow link: no bottleneck hosts
    ("incast.toml", {}),
    ("leaf_spine.toml", {}),
    ("fat_tree.toml", {}),
    ("dsm_dumbbell.toml", {"network.switches": 3}),
])
def test_the_default_monitored_ports_are_the_engines(example, changes):
    """Network.default_monitored_ports (the default L2 congestion points) lists the ports the
    engine monitors without metrics.ports, in its order: the two are written apart (Python needs
    them before the engine runs), so this compares them on every topology."""
    d = dcsim.load_scenario(EXAMPLES / example).to_dict()
    d.get("metrics", {}).pop("monitor", None)  # the default, not the example's choice
    # The network alone decides them: one flow across it, briefly.
    hosts = Scenario.from_dict(d).network.host_names()
    if d["network"].get("topology", "dumbbell") != "dumbbell":
        d["flows"] = [{"protocol": "newreno", "src": hosts[0], "dst": hosts[-1]}]
    d.update(workloads=[], run={"duration": "100us"})
    d.pop("l2", None)
    for path in [p for p, v in changes.items() if v is None]:  # left out (bottleneck_hosts = [] is refused)
        node, key = path.split(".")
        d[node].pop(key, None)
    sc = Scenario.from_dict(d).replace({p: v for p, v in changes.items() if v is not None})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ports = dcsim.simulate(sc).ports
    engine = [(s, d) for s, d, m in zip(ports.src, ports.dst, ports.monitored) if m]
    assert sorted(engine) == sorted(sc.network.default_monitored_ports())


@pytest.mark.parametrize("network", [
    {"topology": "tree", "hosts": 4, "host_link": "10Gbps", "rtt": "100us", "buffer": "128KB"},
    {"topology": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 2, "host_link": "10Gbps", "buffer": "128KB"},
])
def test_l2_congestion_points_default_to_the_monitored_switch_ports_on_any_topology(network):
    """The default cps ("the monitored switch ports") existed only on a parking lot of >= 2
    switches; a tree or a fabric was refused with 'give cps = ["C1->C2", ...]', a port it lacks."""
    d = {"network": network, "l2": {"scheme": "qcn", "sources": [{"src": "h0", "dst": "h3"}]},
         "run": {"duration": "1ms"}}
    res = dcsim.simulate(d)
    assert len(res.cps) > 0 and res.sources.sent_frames.iloc[0] > 0


def test_a_lot_of_one_switch_names_the_ports_it_could_use_as_congestion_points():
    """A fuzz run: a one-switch parking lot with L2 sources was refused with "the network has no
    switch port to switch or host that metrics monitors", though C1 -> R1 exists: the default
    congestion points are the monitored ports, a lot's links between switches, and it has none."""
    d = lot(1)
    d["network"].update(switches=1, attach={"S1": "C1", "R1": "C1"})
    msg = error(d)
    assert msg.startswith("l2.cps: no congestion point: without l2.cps they are the switch ports that metrics "
                          "monitors, and it monitors none here (a parking lot of one switch"), msg
    assert '"C1->R1"' in msg, msg
    d["l2"]["cps"] = ["C1->R1"]
    res = dcsim.simulate(d)
    assert res.sources.sent_frames.iloc[0] > 0 and len(res.cps) == 1


def test_the_default_congestion_points_do_not_depend_on_how_many_ports_the_budget_samples():
    """A budget too small for every default port's queue series samples the first that fit
    (metrics.monitor_first); the default congestion points stay every default switch port, so that
    max_memory cannot change what the network does."""
    d = {"network": {"topology": "tree", "hosts": 10, "racks": 10, "host_link": "10Gbps", "rtt": "20us",
                     "buffer": "100pkt"},
         "l2": {"scheme": "qcn", "sources": [{"src": "h0", "dst": "h99"}]},
         "run": {"duration": "10ms"}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ScenarioWarning)
        cut = dcsim.simulate({**d, "metrics": {"max_memory": "10MB"}})
        whole = dcsim.simulate(d)
    assert 0 < cut.ports.monitored.sum() < whole.ports.monitored.sum() == 120
    assert len(cut.cps) == len(whole.cps) == 120
    # The same run: the sources, the congestion points and every port's counts; only the queue
    # distributions of the ports no longer sampled are gone (NaN), the others' the same.
    assert cut.sources.equals(whole.sources) and cut.cps.equals(whole.cps)
    dist = ["monitored", "q_p50_pkt", "q_p99_pkt", "q_empty_frac"]
    assert cut.ports.drop(columns=dist).equals(whole.ports.drop(columns=dist))
    kept = cut.ports.monitored
    assert cut.ports[kept][dist].equals(whole.ports[kept][dist])
    assert cut.ports[~kept].q_p50_pkt.isna().all()


def test_an_l2_run_of_short_flows_only_is_described_and_plotted_as_such():
    """It was described as "0 x qcn rate sources" and drew an empty rates.png (short flows have no
    rate series)."""
    from dcsim._plot_worker import plot_names

    d = {"network": {"topology": "parking_lot", "switches": 2, "link": "10Gbps", "delay": "1us", "buffer": "128KB",
                     "attach": {"S1": "C1", "R1": "C2"}},
         "l2": {"scheme": "qcn", "poisson": [{"src": "S1", "dst": "R1", "rate": 1000.0, "mean_size": "10KB"}]},
         "run": {"duration": "5ms"}}
    sc = Scenario.from_dict(d)
    assert "qcn Poisson short flows (1000/s)" in sc.describe() and "0 x" not in sc.describe()
    res = dcsim.simulate(sc)
    assert res._rows("rates") == 0 and res._rows("sources") > 0 and "rates.png" not in plot_names(res)


def test_the_rates_table_starts_at_each_sources_start():
    """A source starting at 2 ms had rows from t = 0 at its line rate (the table is each *sending*
    listed source's rate)."""
    d = {"network": {"topology": "parking_lot", "switches": 2, "link": "10Gbps", "delay": "1us", "buffer": "128KB",
                     "attach": {"S1": "C1", "S2": "C1", "R1": "C2", "R2": "C2"}},
         "l2": {"scheme": "qcn", "sources": [{"src": "S1", "dst": "R1"}, {"src": "S2", "dst": "R2", "start": "2ms"}]},
         "run": {"duration": "5ms"}}
    rates = dcsim.simulate(d).rates
    first = rates.groupby("source")["t_s"].min()
    assert first[0] == 0.0 and 2e-3 <= first[1] <= 2e-3 + 100e-6  # the next sample at or after its start


def test_dsm_sampled_every_period_holds_q0_where_its_model_says():
    """The DSM paper's model samples once per period T (Section III.A: "the switch transmit 1/p
    packets during the sampling interval, the sampling period T is deterministic"); its discrete
    model (eq. 9 closed by eqs. 22/25) settles at q0 when the loop delay is m periods. A packet run
    with that sampling (periodic = true: every 100th frame at p = 0.01), m = 1 and a loop of ~80 us
    (one T = 80 us at 10 Gbps with 1 KB frames), where the gains meet eq. (23) (b = 20 kHz / 5 =
    4 000 1/s > 2 083), must hold the queue at q0 = 64 KB: the mean within 10 % of q0 (the paper's
    "around q0"; the model's own tail error is 1e-10 B, so the band is the packets' granularity
    and the five sources' phases), the link busy (>= 99 %: the queue never empties at q0), and
    no drop (the 128 KB buffer is twice q0)."""
    d = lot(scheme="dsm", latency="77.1488us", duration="200ms", m=1, periodic=True)
    d["run"]["warmup"] = "100ms"
    r = dcsim.simulate(Scenario.from_dict(d))
    q = r.queue[(r.queue.port_label == "C1->C2") & (r.queue.t_s >= 0.1)].q_bytes
    port = r.ports.set_index("port_label").loc["C1->C2"]
    assert abs(q.mean() - 64_000) <= 6_400, q.describe()
    assert port.utilization >= 0.99 and port.drops == 0, port


def test_a_detector_period_that_is_not_the_links_sampling_period_is_warned():
    """Eq. (25) counts time in the configured T; the sampling period it stands for is 1/(pC)
    (Section III.A): 80 us at 10 Gbps with p = 0.01 and 1 KB frames, 8 us at 100 Gbps. DSM's
    default T (80 us, Section V's 10 Gbps value) on a 100 Gbps lot is warned, naming the period to
    set; with T = "8us" it is not (a probe: the eq. (23) warning had shown 8 us while the CP used
    80 us). With m = 0 (SMCC, or DSM with m = 0) eq. (25) has no T term, so nothing is said."""
    def warned(scheme="dsm", **l2):
        d = lot(scheme=scheme, **l2)
        d["network"]["link"] = "100Gbps"
        return [w for w in Scenario.from_dict(d).warnings() if "sampling period 1/(pC)" in w]
    w = warned()
    assert len(w) == 1 and "T = 80us" in w[0] and "= 8us of a 100Gbps congestion point" in w[0], w
    assert warned(T="8us") == [] and warned(m=0) == [] and warned("smcc") == []


def test_the_warned_period_is_shown_rounded_and_the_gains_said_as_they_were_given():
    """1500 B frames at 10 Gbps with p = 0.01: 1/(pC) = 120 us, shown as such (it was
    "119.99999999999999us", a float's noise: a review). SMCC's gains at 1 Gbps break eq. (31):
    the warnings said "gains as given, the others the defaults" when none was given; now they say
    which were given and which are the defaults."""
    w = [x for x in Scenario.from_dict(lot(scheme="dsm", frame="1500B")).warnings() if "sampling period" in x]
    assert len(w) == 1 and "1/(pC) = 120us of a 10Gbps congestion point" in w[0], w

    def gains(**l2):
        d = lot(scheme="smcc", **l2)
        d["network"]["link"] = "1Gbps"
        found = {x.split("(gains ")[1].split(";")[0] for x in Scenario.from_dict(d).warnings() if "(gains " in x}
        assert len(found) == 1, found
        return found.pop()
    assert gains() == "at their defaults"
    assert gains(a=20000.0) == "as given, b, c the defaults"
    assert gains(a=20000.0, b=20000.0, c=20000.0) == "as given"


@pytest.mark.parametrize("min_rate, says", [(None, "100Mbps (the default of qcn) is above"), ("20Mbps", "20Mbps is above")])
def test_a_min_rate_above_a_sources_line_rate_is_refused_when_the_scenario_is_read(tmp_path, min_rate, says):
    """QCN's reaction point never goes below min_rate (100 Mbps by default), so a 10 Mbps host
    cannot carry it. The engine refused it when the world was built, so `Scenario.from_dict` and a
    sweep's plan accepted the scenario and `simulate` failed (a fuzzing round found it): now the
    scenario layer refuses it, naming l2.min_rate, the source and both rates."""
    d = {"network": {"topology": "parking_lot", "switches": 2, "link": "10Mbps", "delay": "5us", "buffer": "64000B",
                     "attach": {"S1": "C1", "R1": "C2"}},
         "l2": {"scheme": "qcn", "frame": "1000B", "sources": [{"src": "S1", "dst": "R1"}]},
         "run": {"duration": "1ms"}}
    if min_rate is not None:
        d["l2"]["min_rate"] = min_rate
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(copy.deepcopy(d))
    msg = str(e.value)
    assert msg.startswith("l2.min_rate: ") and says in msg and "l2.sources[0].src = 'S1', 10Mbps" in msg, msg
    toml = tmp_path / "s.toml"
    toml.write_text(Scenario.from_dict({**d, "l2": {**d["l2"], "min_rate": "1Mbps"}}).to_toml()
                    .replace('min_rate = "1Mbps"', f'min_rate = "{min_rate}"' if min_rate else ""))
    res = runner.invoke(app, ["run", str(toml), "--no-plots", "-o", str(tmp_path / "o")])
    assert res.exit_code == 2 and "l2.min_rate: " in res.output and "Traceback" not in res.output, res.output
    assert not (tmp_path / "o").exists()
    d["l2"]["min_rate"] = "1Mbps"  # within the line rate: runs
    assert dcsim.simulate(Scenario.from_dict(d)).counters["sent_pkts"].iloc[0] > 0


@pytest.mark.parametrize("case", ["tcp over RED", "qcn"])
def test_the_order_of_attachs_keys_changes_nothing(case):
    """A TOML table has no order, but the engine numbered the hosts' ports in attach's order and
    keys each port's random stream by its number: the same parking lot with its attach keys
    reversed gave S1 39 against 186 Mbit/s over RED, and QCN 19 100 against 40 714 frames sent (a
    determinism probe). The hosts now go in one order (by switch, then by name); every table of
    the two runs is the same, bit for bit."""
    attach = {"S1": "C1", "S2": "C1", "S3": "C1", "S10": "C1", "R1": "C2", "R2": "C2"}
    net = {"topology": "parking_lot", "switches": 2, "link": "40Gbps", "host_link": "10Gbps", "delay": "5us"}
    if case == "qcn":
        d = {"network": {**net, "buffer": "150KB"},
             "l2": {"scheme": "qcn", "sources": [{"src": s, "dst": "R1" if s < "S3" else "R2"} for s in ("S1", "S2", "S3", "S10")],
                    "cps": ["C2->R1", "C2->R2"]}, "run": {"duration": "5ms", "seed": 3}}
    else:
        d = {"network": {**net, "buffer": "200pkt", "aqm": {"kind": "red", "min_th": "20pkt", "max_th": "80pkt",
                                                            "max_p": 0.1, "w_q": 0.002}},
             "flows": [{"protocol": "newreno", "ecn": True, "src": s, "dst": "R1"} for s in ("S1", "S2", "S3", "S10")],
             "run": {"duration": "20ms", "seed": 1}}
    runs = []
    for order in (attach, dict(reversed(list(attach.items())))):
        d["network"]["attach"] = order
        sc = Scenario.from_dict(copy.deepcopy(d))
        assert list(sc.network.attach) == ["S1", "S2", "S3", "S10", "R1", "R2"]
        runs.append(dcsim.simulate(sc))
    assert runs[0].counters["dropped_pkts"].iloc[0] + runs[0].ports["marks"].sum() > 0  # randomness was drawn
    for t in runs[0].tables:
        pd.testing.assert_frame_equal(runs[0].tables[t], runs[1].tables[t], check_exact=True)


def test_attach_is_ordered_whatever_names_it_holds():
    """Names equal as numbers (S1, S01) are ordered by their text; a digit that is not a decimal
    one (S1², a superscript) is text (int() refused it: 'invalid literal for int()')."""
    attach = {"S1": "C1", "S01": "C1", "S1²": "C1", "S10": "C1", "S2": "C1", "R1": "C2"}
    d = {"network": {"topology": "parking_lot", "switches": 2, "link": "10Gbps", "delay": "5us", "attach": attach},
         "flows": [{"protocol": "dctcp", "src": "S1", "dst": "R1"}], "run": {"duration": "1ms"}}
    orders = []
    for a in (attach, dict(reversed(list(attach.items())))):
        d["network"]["attach"] = a
        orders.append(list(Scenario.from_dict(copy.deepcopy(d)).network.attach))
    assert orders[0] == orders[1] == ["S01", "S1", "S1²", "S2", "S10", "R1"], orders


def test_a_fabric_congestion_point_is_checked_against_its_tiers_buffer():
    """On a fabric a congestion point's buffer is its tier's: q0 = 64 KB fits the leaf-spine tier's
    600 frames though the network's default is 10, and does not fit a tier of 10 frames under a
    default of 600 (an audit: the network's buffer had been read for every port)."""
    d = {"network": {"topology": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 2, "host_link": "10Gbps",
                     "buffer": "10pkt", "tiers": {"leaf_spine": {"buffer": "600pkt"}}},
         "l2": {"scheme": "dsm", "cps": ["leaf0->spine0"], "sources": [{"src": "h0", "dst": "h2"}]},
         "run": {"duration": "1ms"}}
    assert Scenario.from_dict(d).check_resources()
    d["network"].update(buffer="600pkt", tiers={"leaf_spine": {"buffer": "10pkt"}})
    assert error(d).startswith("l2.q0: 64000 B is larger than the buffer of congestion point leaf0->spine0 (10pkt")


def test_a_source_crossing_no_congestion_point_and_a_congestion_point_no_source_crosses_are_warned(tmp_path):
    """A review ran `l2.cps = ["C2->C1"]` (the reverse port: 80 % of the frames dropped, no source
    controlled) and a source S1 -> S2 that crosses no congestion point, both without a word. Each
    is now warned (a port is on a path if it lies on a shortest one: hop-count routing, ECMP among
    equals); the paper's setting gets no such warning."""
    def path_warnings(d):
        return [w for w in Scenario.from_dict(d).warnings() if "congestion point" in w or "no source's path" in w]

    assert path_warnings(lot()) == []
    reverse = path_warnings(lot(n=2, cps=["C2->C1"]))
    assert reverse == ["l2.sources[0]: S1 -> R1 crosses no congestion point (C2->C1): its rate is never controlled",
                       "l2.sources[1]: S2 -> R2 crosses no congestion point (C2->C1): its rate is never controlled",
                       "l2.cps[0]: C2->C1 is on no source's path: it sends no feedback"]
    d = lot(n=2)
    d["l2"]["sources"][1] = {"src": "S1", "dst": "S2"}  # both on C1: never through C1 -> C2
    assert path_warnings(d) == ["l2.sources[1]: S1 -> S2 crosses no congestion point (C1->C2): its rate is never "
                                "controlled"]
    res = runner.invoke(app, ["run", str(ROOT / "examples" / "dsm_dumbbell.toml"), "--set", 'l2.cps=["C2->C1"]',
                              "--set", "run.duration=2ms", "--set", "run.warmup=1ms", "--no-plots", "-o",
                              str(tmp_path / "o")])
    assert res.exit_code == 0 and "l2.cps[0]: C2->C1 is on no source's path" in " ".join(res.output.split()), res.output


def test_an_initial_rate_above_the_hosts_line_rate_is_refused_when_the_scenario_is_read():
    """`initial_rate = "40Gbps"` on a 10 Gbps host passed `Scenario.from_dict` and was refused by the
    engine only (a review), as min_rate below it is refused at once."""
    d = lot(n=1)
    d["l2"]["sources"][0]["initial_rate"] = "40Gbps"
    msg = error(d)
    assert msg.startswith("l2.sources[0].initial_rate: 40Gbps is above the line rate of 'S1', 10Gbps"), msg
    d["l2"]["sources"][0]["initial_rate"] = "10Gbps"
    Scenario.from_dict(d)


def test_the_l2_sources_fairness_index_is_reported():
    """An L2-only run's summary had Jain's index null (of the listed [[flows]], none) and
    Result.jain_index() raised: the long-lived L2 sources now have theirs, the index of their
    goodputs after warm-up, recomputed here by its definition (sum x)^2 / (n sum x^2)."""
    d = lot(n=3, latency="0us", duration="20ms")
    d["l2"]["sources"].append({"src": "S1", "dst": "R1", "size": "100KB"})  # a sized transfer: not in the index
    res = dcsim.simulate(d)
    x = res.sources.goodput_bps[res.sources.size_bytes.isna()].to_numpy(dtype=float)
    want = x.sum() ** 2 / (len(x) * (x * x).sum())
    assert len(x) == 3 and res.jain_index(of="l2") == pytest.approx(want, rel=1e-12)
    assert res.summary()["l2_jain_index"] == pytest.approx(want, rel=1e-12)
    with pytest.raises(ValueError, match=r'for the L2 sources: of="l2"'):
        res.jain_index()
    with pytest.raises(ValueError, match=r"window applies to the flows"):
        res.jain_index(0.01, of="l2")
    with pytest.raises(ValueError, match=r'allowed "flows" or "l2"'):
        res.jain_index(of="sources")


def test_a_qeq_whose_full_buffer_quantizes_to_no_feedback_is_warned():
    """QCN at a full, steady queue computes |Fb| = buffer - Qeq, quantized floor(64 |Fb| / (Qeq (2w+1))):
    with qeq = 120KB in a 128KB buffer that is 0, so the CP sends nothing while the queue stays full
    (a review: five 10 Gbps sources kept sending at line rate, 80 % of the frames dropped at 100 %
    utilization). Allowed (qeq <= buffer), but said; qeq = 118KB still quantizes to 1."""
    d = lot(duration="20ms", latency="0us", qeq="120KB")
    said = [w for w in Scenario.from_dict(d).warnings() if w.startswith("l2.qeq:")]
    assert len(said) == 1 and "C1->C2" in said[0] and "at least 129375 B" in said[0]
    res = dcsim.simulate(d)
    src = res.sources
    assert src.dropped_frames.sum() > 0.5 * src.sent_frames.sum()  # the physics the warning names
    for quiet in (lot(qeq="118KB"), lot()):
        assert not [w for w in Scenario.from_dict(quiet).warnings() if w.startswith("l2.qeq:")]


@pytest.mark.parametrize("scheme", ["smcc", "qcn", "dsm"])
def test_a_source_waiting_for_its_nic_does_not_send_when_a_feedback_repaces_it(scheme):
    """A source waiting for its host NIC (host backpressure) whose rate a feedback changed was
    re-paced, and the re-paced send event sent the frame past the wait (`L2World::handle` checked
    only the armed time), then kept sending at its own rate until its turn: eight SMCC sources on
    one 10 Gbps host held 3 frames waiting in the NIC, above host_backlog_pkt = 2, and DSM with
    5 sources on each of 5 hosts (dsm-fig10's long-lived flows) 265 316: the sources, waiting for
    turns that a NIC flooded by those sends never gave, free-ran at their own rates (a review).
    The NIC's waiting frames stay within the limit."""
    attach = {"S0": "C1", "S1": "C1", "R0": "C2", "R1": "C2"}
    d = {
        "network": {"topology": "parking_lot", "switches": 2, "link": "10Gbps", "delay": "1us", "buffer": "300KB",
                    "attach": attach},
        # 16 sources on S0: with 8, the QCN and DSM cases held 2 frames on the engine before the fix too
        "l2": {"scheme": scheme, "sources": [{"src": "S0", "dst": "R0", "count": 16}, {"src": "S1", "dst": "R1", "count": 2}]},
        "run": {"duration": "30ms", "warmup": "5ms"},
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ScenarioWarning)
        res = dcsim.simulate(d)
    ports = res.ports.set_index("port_label")
    assert ports.loc["S0->C1", "q_max_pkt"] <= 2  # host_backlog_pkt
    assert ports.loc["S1->C1", "q_max_pkt"] <= 2
