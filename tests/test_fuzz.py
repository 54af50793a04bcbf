"""Property-based fuzzing of the scenario layer and the engine (issue 6 §6).

Random valid scenarios must run and keep the engine's invariants; random invalid ones must fail
with a ``field: message`` error and nothing else. Two profiles:

* the default (CI) profile runs a few hundred cases in well under two minutes;
* ``pytest -m fuzz`` runs the long profile: 10 000 cases per property (the README's reliability
  section gives the counts of its last run).

Invariants (first principles, no tolerance tuned to results):

* packet conservation: sent = delivered + dropped + in flight (whole run);
* every queue's maximum <= its buffer; utilization in [0, 1] on every port;
* bytes delivered to a host <= the capacity of the links into it x the run time (in-order delivery
  may burst above the rate for a moment, never above the total);
* a finished flow's FCT >= its ideal FCT (base RTT + serialisation of its bytes at the slowest link);
* a replay with the same seed gives bit-identical tables;
* the same holds for fabrics split into partitions (``run.partitions``), conservation over the
  worlds included;
* every sample of a switch queue's series <= its buffer (the summary's maximum starts after the
  warm-up; the series does not);
* L2 rate control (QCN, SMCC, DSM) through the Python API: frames conserved, every byte sample of
  a congestion point within its buffer, rates in (0, line rate], delivered <= sent, replays.

The scenarios draw every queue kind (CHOKe and modified CHOKe in one world only: a partitioned
fabric refuses them) and every transport the engine lists (NewReno, DCTCP, DCTCP-Improved
Fairness, DX; parameters drawn by unit) on dumbbells, graphs, trees (with a Poisson workload) and
fabrics.
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter
from typer.testing import CliRunner

import dcsim
from dcsim import Scenario, ScenarioError
from dcsim.scenario import _PARAM_TYPES, AQM_KINDS, AQM_TABLE, PROTOCOL_TABLE, PROTOCOLS, FlowGroup, _check_param, _core, _param_engine
from dcsim.cli import app

LONG = int(os.environ.get("DCSIM_FUZZ_EXAMPLES", "10000"))
COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large], derandomize=False)
CI_VALID = settings(max_examples=120, **COMMON)
CI_INVALID = settings(max_examples=300, **COMMON)
LONG_SETTINGS = settings(max_examples=LONG, **COMMON)

# --- strategies ------------------------------------------------------------------------------------

rates = st.sampled_from(["10Mbps", "100Mbps", "1Gbps", "2.5Gbps", "10Gbps", "40Gbps", "100Gbps", "133Gbps"])
times_us = st.integers(min_value=1, max_value=800)


#: The queue disciplines ``aqms`` draws, with parameters that fit the buffer (their constraints
#: between parameters, such as min_th < max_th <= buffer, are no unit's).
FUZZED_AQM_KINDS = ("droptail", "threshold", "red", "choke", "modified_choke")


def test_the_fuzz_draws_every_queue_discipline_the_engine_lists():
    """A discipline added to the engine (``AQM_KINDS``) must be added to ``aqms`` to be fuzzed."""
    assert set(AQM_KINDS) == set(FUZZED_AQM_KINDS), "a discipline the fuzz strategies do not draw: add it to aqms()"


@st.composite
def aqms(draw, buffer_pkt: int, choke: bool = True) -> dict:
    """Any queue kind (CHOKe and modified CHOKe only where `choke`: a partitioned fabric refuses them)."""
    kind = draw(st.sampled_from([k for k in FUZZED_AQM_KINDS if choke or not AQM_TABLE[k]["facts"]["reaches_into_queue"]]))
    if kind == "droptail":
        return {"kind": "droptail"}
    if kind == "threshold":
        return {"kind": "threshold", "K": f"{draw(st.integers(1, buffer_pkt))}pkt"}
    lo = draw(st.integers(0, max(buffer_pkt - 1, 0)))
    hi = draw(st.integers(lo + 1, buffer_pkt))
    aqm = {"kind": kind, "min_th": f"{lo}pkt", "max_th": f"{hi}pkt", "max_p": draw(st.sampled_from([0.01, 0.1, 0.5, 1.0])),
           "w_q": draw(st.sampled_from([0.002, 0.1, 1.0])), "gentle": draw(st.booleans()), "ecn": draw(st.booleans()),
           "wait": draw(st.booleans())}
    if kind != "red":
        if buffer_pkt < 7 or draw(st.booleans()):  # modified CHOKe draws m = 7 by default
            aqm["m"] = draw(st.integers(1, min(10, buffer_pkt)))
        if draw(st.booleans()):
            aqm["match"] = draw(st.sampled_from(["all", "any"]))
    return aqm


#: Every protocol the engine lists (``PROTOCOL_TABLE``), so a protocol added to the engine is fuzzed
#: without a change here; its parameters drawn by unit (values in range for the unit).
protocols = st.sampled_from(PROTOCOLS)
_BY_UNIT = {"gain": st.sampled_from([1 / 16, 0.5, 1.0]), "fraction": st.sampled_from([0.0, 0.5, 1.0]),
            "flag": st.booleans(), "base_rtt": st.sampled_from(["min", "path", "30us"]),
            "ps": st.sampled_from(["1us", "30us", "1ms"]), "number": st.sampled_from([0.5, 1.0, 4.0]),
            "weight": st.sampled_from([0.0, 2.0]), "probability": st.sampled_from([0.01, 1.0]),
            "count": st.integers(1, 8), "per_second": st.sampled_from([1e3, 1e5]),
            "bps": st.sampled_from(["1Mbps", "1Gbps"]), "bytes": st.sampled_from(["1500B", "64KB"]),
            "hz": st.sampled_from(["1kHz", "20kHz"])}


@st.composite
def protocol_params(draw, proto: str) -> dict:
    """Some of a protocol's parameters, drawn by unit. Python must accept every draw by its unit;
    only a range the protocol's own engine check narrows (``Protocol::check``, e.g. a fraction in
    (0, 1)) drops the draw, so that a wrong refusal on the Python side still fails the fuzz."""
    table = PROTOCOL_TABLE[proto]
    params = {p["name"]: draw(_BY_UNIT[p["unit"]]) for p in table["params"] if draw(st.booleans())}
    engine = {"kind": table["kind"]}
    for p in table["params"]:
        if p["name"] in params:
            value = TypeAdapter(_PARAM_TYPES[p["unit"]]).validate_python(params[p["name"]])
            _check_param(p["name"], p["unit"], value)  # raises (fails the test) if the unit's range refuses it
            engine[p["field"]] = _param_engine(p["unit"], value)
    if json.loads(_core.protocol_check(json.dumps(engine))) is not None:
        return {}
    FlowGroup(protocol=proto, **params)  # raises (fails the test) if Python refuses what the engine accepts
    return params


@st.composite
def flow_groups(draw, senders: int | None, hosts: list[str] | None) -> list[dict]:
    groups = []
    for _ in range(draw(st.integers(1, 3))):
        proto = draw(protocols)
        g = {"count": draw(st.integers(1, 4)), "protocol": proto,
             "start": f"{draw(st.integers(0, 500))}us", "stagger": f"{draw(st.integers(0, 50))}us",
             **draw(protocol_params(proto))}
        if draw(st.booleans()):
            g["size"] = draw(st.sampled_from(["1B", "1000B", "1460B", "1461B", "20KB", "5pkt", "150KB"]))
        if draw(st.booleans()):
            g["min_rto"] = draw(st.sampled_from(["1us", "200us", "1ms", "10ms"]))
        if draw(st.booleans()):
            g["delayed_ack"] = draw(st.sampled_from([True, {"segments": 3, "timeout": "40us"}]))
        if draw(st.booleans()):
            g["init_cwnd"] = draw(st.sampled_from([1, 2, 10, 64]))
            g["min_cwnd"] = draw(st.sampled_from([1, 2]))
        # Transport options: a profile, and some options flipped on their own (only combinations
        # the transport honours: ECT on ACKs only for ECN-capable data; the linux profile's
        # fixed-point DCTCP takes g = 2^-k, which every g above is; a CE quick ACK only with
        # delayed ACKs to cut short: given, or the linux profile's).
        if draw(st.booleans()):
            g["profile"] = draw(st.sampled_from(["ns2", "linux"]))
        delays_acks = "delayed_ack" in g or g.get("profile") == "linux"
        for opt in ("sack", "abc", "ce_quickack"):
            if draw(st.integers(0, 3)) == 0:
                g[opt] = draw(st.booleans()) if opt != "ce_quickack" or delays_acks else False
        if (proto.startswith("dctcp") or g.get("ecn")) and draw(st.booleans()):
            g["ect_acks"] = draw(st.booleans())
        if senders is not None and draw(st.booleans()):
            g["senders"] = draw(st.lists(st.integers(0, senders - 1), min_size=1, max_size=3))
        if hosts is not None:
            src = draw(st.sampled_from(hosts))
            dst = draw(st.sampled_from([h for h in hosts if h != src]))
            g["src"], g["dst"] = src, dst
        groups.append(g)
    return groups


@st.composite
def valid_scenarios(draw) -> dict:
    duration_us = draw(st.integers(100, 3000))
    run = {"duration": f"{duration_us}us", "warmup": f"{draw(st.integers(0, duration_us - 1))}us",
           "seed": draw(st.integers(0, 2**64 - 1))}
    metrics = {"queue_interval": f"{draw(st.sampled_from([1, 7, 10, 100]))}us",
               "throughput_interval": f"{draw(st.sampled_from([50, 100, 1000]))}us",
               "cwnd_interval": f"{draw(st.sampled_from([5, 10, 100]))}us"}
    pkt = draw(st.sampled_from([1500, 9000, 64]))
    workloads = []
    shape = draw(st.sampled_from(["dumbbell", "graph", "tree"]))
    if shape == "dumbbell":
        n = draw(st.integers(1, 6))
        buf = draw(st.integers(1, 300))
        net = {"topology": "dumbbell", "senders": n, "bottleneck": draw(rates), "access": draw(rates),
               "rtt": [f"{draw(times_us)}us" for _ in range(n)] if draw(st.booleans()) else f"{draw(times_us)}us",
               "buffer": f"{buf}pkt" if draw(st.booleans()) else f"{buf * pkt}B",
               "aqm": draw(aqms(buf)), "packet_bytes": pkt}
        flows = draw(flow_groups(n, None))
        # the last start must fall inside the run
        for f in flows:
            f["start"], f["stagger"] = "0us", "0us"
    elif shape == "graph":
        hosts = ["h0", "h1", "h2"]
        nodes = [{"name": h, "kind": "host"} for h in hosts] + [{"name": "s0", "kind": "switch"},
                                                               {"name": "s1", "kind": "switch"}]
        links = [{"a": "h0", "b": "s0"}, {"a": "h1", "b": "s0"}, {"a": "h2", "b": "s1"}, {"a": "s0", "b": "s1"}]
        if draw(st.booleans()):
            links.append({"a": "h1", "b": "s1"})  # a multi-homed host
        for link in links:
            link["rate"], link["delay"] = draw(rates), f"{draw(st.integers(0, 200))}us"
            if draw(st.booleans()):
                buf = draw(st.integers(1, 300))
                link["buffer"], link["aqm"] = f"{buf}pkt", draw(aqms(buf))
        net = {"topology": "graph", "nodes": nodes, "links": links, "packet_bytes": pkt}
        flows = draw(flow_groups(None, hosts))
        for f in flows:
            f["start"], f["stagger"] = "0us", "0us"
    else:  # racks of hosts under top-of-rack switches under one root; every switch port one buffer
        racks = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3).filter(lambda r: sum(r) >= 2))
        hosts = [f"h{i}" for i in range(sum(racks))]
        buf = draw(st.integers(2, 150))
        net = {"topology": "tree", "hosts": racks, "host_link": draw(rates), "rtt": f"{draw(times_us)}us",
               "buffer": f"{buf}pkt", "aqm": draw(aqms(buf)), "packet_bytes": pkt}
        if draw(st.booleans()):
            net["bottleneck"] = draw(rates)
        flows = [{**f, "start": "0us", "stagger": "0us"} for f in draw(flow_groups(None, hosts))]
        if draw(st.booleans()):  # receivers given: a tree without a bottleneck names none by default
            workloads = [{"kind": "poisson", "link": "hosts", "load": draw(st.sampled_from([0.1, 0.5, 0.9])),
                          "sizes": {"kind": "uniform", "min": "1KB", "max": "30KB"}, "receivers": hosts,
                          "protocol": draw(protocols)}]
    d = {"network": net, "flows": flows, "run": run, "metrics": metrics}
    if workloads:
        d["workloads"] = workloads
    return d


@st.composite
def partitioned_fabrics(draw) -> dict:
    """A small fat-tree (k = 2 or 4) or leaf-spine split into 1 .. (pods or leaves) partitions, with
    listed flows between random hosts and, or, a Poisson workload of short flows."""
    duration_us = draw(st.integers(100, 1500))
    pkt = draw(st.sampled_from([1500, 9000, 64]))
    buf = draw(st.integers(2, 200))
    common = {"host_link": draw(rates), "delay": f"{draw(st.integers(0, 20))}us", "buffer": f"{buf}pkt",
              "packet_bytes": pkt}
    if draw(st.booleans()):
        k = draw(st.sampled_from([2, 4]))
        net, hosts, most = {"topology": "fat_tree", "k": k, **common}, k**3 // 4, k
    else:
        leaves, per = draw(st.integers(2, 4)), draw(st.integers(1, 3))
        net = {"topology": "leaf_spine", "leaves": leaves, "spines": draw(st.integers(1, 3)), "hosts_per_leaf": per,
               **common}
        hosts, most = leaves * per, leaves
    partitions = draw(st.integers(1, most))
    net["aqm"] = draw(aqms(buf, choke=partitions == 1))  # CHOKe's random pick runs in one world only
    names = [f"h{i}" for i in range(hosts)]
    d = {"network": net, "run": {"duration": f"{duration_us}us", "seed": draw(st.integers(0, 2**64 - 1)),
                                 "partitions": partitions},
         "metrics": {"queue_interval": f"{draw(st.sampled_from([1, 10, 100]))}us"}}
    if draw(st.booleans()):
        d["flows"] = [{**f, "start": "0us", "stagger": "0us"} for f in draw(flow_groups(None, names))]
    if "flows" not in d or draw(st.booleans()):
        proto = draw(protocols)
        if draw(st.booleans()):
            d["workloads"] = [{"kind": "poisson", "load": draw(st.sampled_from([0.1, 0.5, 0.9])),
                               "sizes": {"kind": "uniform", "min": "1KB", "max": draw(st.sampled_from(["2KB", "50KB"]))},
                               "protocol": proto}]
        else:  # a trace: flows at drawn times (some past the end) between drawn hosts
            pairs = st.tuples(st.sampled_from(names), st.sampled_from(names)).filter(lambda p: p[0] != p[1])
            flows = draw(st.lists(st.tuples(st.integers(0, 2 * duration_us), pairs, st.integers(1, 60_000)),
                                  min_size=1, max_size=30))
            d["workloads"] = [{"kind": "trace", "protocol": proto, "arrivals": [
                {"start": f"{t}us", "src": a, "dst": b, "size": f"{n}B"} for t, (a, b), n in flows]}]
    return d


@st.composite
def l2_networks(draw) -> dict:
    """A parking lot of 2-4 switches with 1-4 QCN, SMCC or DSM sources (long-lived or of a size,
    starting at once or later) between hosts attached at random switches."""
    switches, pairs = draw(st.integers(2, 4)), draw(st.integers(1, 4))
    attach = {}
    for i in range(1, pairs + 1):
        attach[f"S{i}"], attach[f"R{i}"] = (f"C{draw(st.integers(1, switches))}" for _ in range(2))
    sources = []
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(1, pairs))
        src = {"src": f"S{i}", "dst": f"R{i}"}
        if draw(st.booleans()):
            src["size"] = f"{draw(st.integers(1000, 500_000))}B"
        if draw(st.booleans()):
            src["start"] = f"{draw(st.integers(0, 150))}us"
        sources.append(src)
    return {"network": {"topology": "parking_lot", "switches": switches,
                        # at least the schemes' default min_rate (100 Mbps; a slower link is refused)
                        "link": draw(st.sampled_from(["1Gbps", "2.5Gbps", "10Gbps", "40Gbps", "100Gbps"])),
                        "delay": f"{draw(st.integers(0, 5))}us", "host_delay": "1us",
                        "buffer": f"{draw(st.integers(64_000, 400_000))}B", "attach": attach},
            "l2": {"scheme": draw(st.sampled_from(["qcn", "smcc", "dsm"])),
                   "frame": f"{draw(st.sampled_from([64, 1000, 1500, 9000]))}B",
                   "feedback_latency": f"{draw(st.integers(0, 50))}us", "sources": sources},
            "run": {"duration": f"{draw(st.integers(200, 3000))}us", "seed": draw(st.integers(0, 2**64 - 1))},
            "metrics": {"queue_interval": f"{draw(st.sampled_from([1, 5, 20]))}us"}}


# --- invariants -------------------------------------------------------------------------------------


def check_invariants(sc: Scenario, res) -> None:
    c = res.counters.iloc[0]
    assert c["sent_pkts"] == c["delivered_pkts"] + c["dropped_pkts"] + c["in_flight_pkts"], "conservation"
    p = res.ports
    u = p["utilization"].to_numpy(dtype=float)
    assert np.all((u >= 0) & (u <= 1) | np.isnan(u)), f"utilization {u}"
    spec = res.engine_spec
    pb = spec["packet_bytes"]
    # Every flow's path runs from its source to its destination.
    for src, dst, path in zip(res.flows["src"].astype(str), res.flows["dst"].astype(str), res.flows["path"]):
        nodes = path.split("->")
        assert nodes[0] == src and nodes[-1] == dst, (src, dst, path)
    # A fabric's tiers partition its ports: their counts and drops add up, utilization in [0, 1].
    ts = res.tier_stats()
    if spec["topology"]["kind"] in ("fat_tree", "leaf_spine"):
        assert ts.ports.sum() == len(p) and ts.drops.sum() == p["drops"].sum(), "tiers partition the ports"
        assert ((0 <= ts.util_mean) & (ts.util_mean <= ts.util_max) & (ts.util_max <= 1)).all(), ts
    else:
        assert ts.empty
    # Queue <= buffer (the port knows its buffer through the spec): the run's maximum (after the
    # warm-up) and every sample of the queue series (the warm-up included).
    caps = _capacities_pkt(spec, res)
    qmax = p["q_max_pkt"].to_numpy(dtype=float)
    for (src, dst), qm in zip(zip(p["src"], p["dst"]), qmax):
        cap = caps.get((src, dst))
        if cap is not None and np.isfinite(qm):
            assert qm <= cap, f"{src}->{dst}: q_max {qm} > buffer {cap}"
    q = res.queue
    for label, series in q.groupby(q["port_label"].astype(str), observed=True):
        cap = caps.get(tuple(label.split("->")))
        if cap is not None:
            assert series["q_pkt"].max() <= cap, f"{label}: a sample of {series['q_pkt'].max()} > buffer {cap}"
    for (src, dst), b in _byte_buffers(spec).items():
        series = q[q["port_label"].astype(str) == f"{src}->{dst}"]
        assert series["q_bytes"].max() <= b if len(series) else True, f"{src}->{dst}: > buffer {b} B"
    # Bytes into a host <= capacity into it x run time (payload < wire bytes).
    dur = spec["duration_ps"] / 1e12
    into = p.groupby("dst")["rate_bps"].sum()
    got = res.flows.groupby("dst")["delivered_bytes_whole_run"].sum()
    for host, b in got.items():
        assert b * 8 <= into[host] * dur * (1 + 1e-9), f"{host}: {b} B in {dur} s over {into[host]} bit/s"
    # FCT >= ideal on a dumbbell: base RTT + every wire byte serialised at the slower of the links.
    if spec["topology"]["kind"] == "dumbbell":
        topo = spec["topology"]
        slow = min(topo["bottleneck_bps"], topo["access_bps"])
        rtts = topo["rtt_ps"]
        payload = pb - spec["header_bytes"]
        for _, f in res.flows.iterrows():
            if math.isfinite(f["fct_s"]):
                size = f["size_bytes"]
                segs = math.ceil(size / payload)
                wire = size + segs * spec["header_bytes"]
                i = int(f["src"][1:])
                rtt = (rtts[0] if len(rtts) == 1 else rtts[i]) / 1e12
                ideal = rtt + wire * 8 / slow
                assert f["fct_s"] >= ideal * (1 - 1e-9), f"FCT {f['fct_s']} < ideal {ideal}"


def _capacities_pkt(spec: dict, res) -> dict:
    """(src, dst) -> buffer in packets (a byte buffer holds at most bytes / smallest packet)."""
    topo = spec["topology"]
    smallest = spec["header_bytes"]

    def pkts(q):
        cap = q["capacity"]
        return cap["packets"] if "packets" in cap else cap["bytes"] / smallest

    out = {}
    if topo["kind"] in ("fat_tree", "leaf_spine"):
        # every switch port has its tier's buffer (these cases give no tier its own)
        caps = pkts(topo["host"]["queue"])
        for src, dst in zip(res.ports["src"], res.ports["dst"]):
            if not str(src).startswith("h"):
                out[(src, dst)] = caps
    elif topo["kind"] == "tree":  # every switch port has the one buffer
        for src, dst in zip(res.ports["src"], res.ports["dst"]):
            if not str(src).startswith("h"):
                out[(src, dst)] = pkts(topo["queue"])
    elif topo["kind"] == "dumbbell":
        out[("sw", "r")] = pkts(topo["bottleneck_queue"])
        for s in range(topo["senders"]):
            out[("sw", f"s{s}")] = pkts(topo.get("reverse_queue") or topo["bottleneck_queue"])
    else:
        kinds = {n["name"]: n["kind"] for n in topo["nodes"]}
        for link in topo["links"]:
            q = link.get("queue") or {"capacity": {"packets": 1000}}
            for a, b in ((link["a"], link["b"]), (link["b"], link["a"])):
                if kinds[a] == "switch":
                    out[(a, b)] = pkts(q)
    return out


def _byte_buffers(spec: dict) -> dict:
    """(src, dst) -> buffer in bytes, for a dumbbell's bottleneck given in bytes (its byte series
    must stay within it; `_capacities_pkt`'s packet bound is loose there)."""
    topo = spec["topology"]
    if topo["kind"] == "dumbbell" and "bytes" in topo["bottleneck_queue"]["capacity"]:
        return {("sw", "r"): topo["bottleneck_queue"]["capacity"]["bytes"]}
    return {}


#: Outcomes of this session's cases (written to $DCSIM_FUZZ_REPORT at the end, if set).
COUNTS: Counter = Counter()


@pytest.fixture(scope="module", autouse=True)
def _report_counts():
    yield
    path = os.environ.get("DCSIM_FUZZ_REPORT")
    if path:
        with open(path, "w") as fh:
            json.dump(dict(COUNTS), fh, indent=1, sort_keys=True)


def _run_valid(d: dict, replay: bool) -> None:
    try:
        sc = Scenario.from_dict(copy.deepcopy(d))
    except ScenarioError as e:
        _check_error(str(e))
        COUNTS["valid-strategy cases refused with a named field"] += 1
        return
    try:
        sc.check_resources()  # what simulate checks first: the run's memory bound, before anything runs
    except ScenarioError as e:  # e.g. 180 000 generated flows beyond metrics.max_memory (a long fuzz run found one)
        _check_error(str(e))
        COUNTS["valid-strategy cases refused by the memory bound with a named field"] += 1
        return
    # A validated scenario runs as it is (no second validation): it must be the run its written
    # form gives, as it was when every run was validated again from its dict.
    assert Scenario.from_dict(sc.to_dict()).to_engine_spec() == sc.to_engine_spec()
    res = dcsim.simulate(sc)
    check_invariants(sc, res)
    COUNTS["valid runs with invariants checked"] += 1
    spec = res.engine_spec
    COUNTS[f"runs on a {spec['topology']['kind']}"] += 1
    for proto in set(res.flows["protocol"].astype(str)):
        COUNTS[f"runs with {proto} flows"] += 1
    COUNTS["runs with a queue at its buffer"] += bool((res.ports["drops_whole_run"] > 0).any())
    COUNTS["runs in which CHOKe dropped a queued packet"] += bool((res.ports["evictions"] > 0).any())
    if replay:
        COUNTS["bit-identical replays"] += 1
        again = dcsim.simulate(Scenario.from_dict(copy.deepcopy(d)))
        for t in res.tables:
            pd.testing.assert_frame_equal(res.tables[t], again.tables[t], check_exact=True)


# --- invalid input ------------------------------------------------------------------------------------

JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12), st.sampled_from(["10GBPS", "100", "1e400s", "-5pkt", "0us", "1e30Gbps", "nan", "[[x]]",
                                           "10 Gbps", "1e21", "µs", "5e-13s", "1Mb", "kind"]),
    st.lists(st.integers(-3, 3), max_size=3), st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)
_SEG = r'(?:[A-Za-z_]\w*|"(?:[^"\\]|\\.)*")'
LINE = re.compile(rf"^(scenario|{_SEG}(\[\d+\])*(\.{_SEG}(\[\d+\])*)*): \S")


def _check_error(msg: str) -> None:
    for line in msg.splitlines():
        assert LINE.match(line), f"not a 'field: message' line: {line!r}"
    for leak in ("function-after", "function-plain", "Value error", "np.float64", "Traceback", "[type="):
        assert leak not in msg, f"internal detail {leak!r} in {msg!r}"


def _paths(d, prefix=()):
    if isinstance(d, dict):
        for k, v in d.items():
            yield prefix + (k,)
            yield from _paths(v, prefix + (k,))
    elif isinstance(d, list):
        for i, v in enumerate(d):
            yield prefix + (i,)
            yield from _paths(v, prefix + (i,))


@st.composite
def mutated_scenarios(draw) -> dict:
    d = draw(valid_scenarios())
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_paths(d))
        path = draw(st.sampled_from(paths))
        node = d
        for k in path[:-1]:
            node = node[k]
        if draw(st.integers(0, 9)) == 0 and isinstance(node, dict):
            node[draw(st.sampled_from(["bogus", "gain", "K", "max_memory"]))] = draw(JUNK)
        else:
            node[path[-1]] = draw(JUNK)
    return d


def _run_invalid(d: dict) -> None:
    try:
        sc = Scenario.from_dict(d)
        spec = sc.check_resources()
    except ScenarioError as e:
        _check_error(str(e))
        COUNTS["invalid cases refused with a named field"] += 1
        return
    # A mutation may still be valid: then it must run and keep the invariants (short runs only).
    COUNTS["mutated cases still valid"] += 1
    if spec["duration_ps"] <= 5_000_000_000:
        check_invariants(sc, dcsim.simulate(sc))


# --- the properties (CI profile) -------------------------------------------------------------------------


@CI_VALID
@given(valid_scenarios(), st.booleans())
def test_valid_scenarios_run_and_keep_the_invariants(d, replay):
    _run_valid(d, replay)


@settings(max_examples=40, **COMMON)
@given(partitioned_fabrics(), st.booleans())
def test_partitioned_fabrics_run_and_keep_the_invariants(d, replay):
    # Packets conserved over the worlds, queues within buffers, utilization in [0, 1], bytes into a
    # host within its links' capacity, and the same tables on a replay, whatever the split.
    _run_valid(d, replay)


@settings(max_examples=30, **COMMON)
@given(l2_networks(), st.booleans())
def test_l2_networks_run_and_keep_the_invariants(d, replay):
    """Rate-based L2 control through the Python API (the Rust fuzz_l2.rs draws default parameters
    only): frames conserved; every sample of a congestion point's queue within its byte buffer; a
    source delivers at most what it sent; every sampled rate in (0, line rate]; the same tables on
    a replay."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. a loop delay the scheme's gains were not tuned for
        try:
            sc = Scenario.from_dict(copy.deepcopy(d))
            sc.check_resources()
        except ScenarioError as e:
            _check_error(str(e))
            COUNTS["L2 cases refused with a named field"] += 1
            return
        res = dcsim.simulate(sc)
    c = res.counters.iloc[0]
    assert c["sent_pkts"] == c["delivered_pkts"] + c["dropped_pkts"] + c["in_flight_pkts"], "conservation"
    u = res.ports["utilization"].to_numpy(dtype=float)
    assert np.all((u >= 0) & (u <= 1) | np.isnan(u)), f"utilization {u}"
    buf = res.engine_spec["topology"]["queue"]["capacity"]["bytes"]
    q = res.queue
    assert q.empty or q["q_bytes"].max() <= buf, (q["q_bytes"].max(), buf)
    s = res.sources
    assert (s["delivered_bytes_whole_run"] <= s["sent_bytes_whole_run"]).all()
    r = res.rates
    if len(r):
        line = s.set_index("source")["line_rate_bps"].loc[r["source"]].to_numpy(dtype=float)
        assert ((r["rate_bps"] > 0) & (r["rate_bps"].to_numpy(dtype=float) <= line)).all()
    COUNTS[f"L2 runs ({d['l2']['scheme']}) with invariants checked"] += 1
    if replay:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            again = dcsim.simulate(Scenario.from_dict(copy.deepcopy(d)))
        for t in res.tables:
            pd.testing.assert_frame_equal(res.tables[t], again.tables[t], check_exact=True)


@CI_INVALID
@given(mutated_scenarios())
def test_invalid_scenarios_fail_with_a_named_field(d):
    _run_invalid(d)


@settings(max_examples=40, **COMMON)
@given(st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_cli_never_prints_a_traceback_on_any_file(tmp_path_factory, content):
    p = tmp_path_factory.mktemp("f") / "x.toml"
    p.write_bytes(content)
    r = CliRunner().invoke(app, ["run", str(p), "--out", str(p.parent / "o"), "--no-plots"])
    assert r.exit_code in (0, 2), r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.output


# --- the long profile: pytest -m fuzz ----------------------------------------------------------------------


@pytest.mark.fuzz
@LONG_SETTINGS
@given(valid_scenarios(), st.booleans())
def test_fuzz_long_valid(d, replay):
    _run_valid(d, replay)


@pytest.mark.fuzz
@LONG_SETTINGS
@given(partitioned_fabrics(), st.booleans())
def test_fuzz_long_partitioned(d, replay):
    _run_valid(d, replay)


@pytest.mark.fuzz
@LONG_SETTINGS
@given(mutated_scenarios())
def test_fuzz_long_invalid(d):
    _run_invalid(d)
