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

* dumbbells with generated flows (``dumbbell_workloads``): DX mixed with the other protocols in one
  scenario, CHOKe and modified CHOKe beside the other queues, Poisson workloads (web-search,
  data-mining, inline-CDF, uniform or fixed sizes; their loads lowered to at most
  MOST_POISSON_FLOWS expected flows) and incast rounds, a host jitter; one draw in ten puts one
  field out of range and must be refused naming it;
* with no warm-up, each port's counts add up: arrivals = drops + sent + held, held >= 0, within a
  switch port's buffer + 1, and all held packets among those in flight (the engine checks the
  exact form; its tables do not give the held packets);
* a run.max_wall stop at a chunk's end keeps, table for table, what a fresh run of the partial's
  engine spec gives (``dumbbell_workloads`` and ``fabric_workloads``, 1-3 partitions);
* a partitioned fabric's flows are its one-world run's (``fabric_workloads``; src, dst, start,
  size and ideal FCT: what tests/test_fabric.py and run.partitions' docs promise; the rest is
  physics, not bit for bit, held to the invariants only);

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
from dcsim.scenario import (_PARAM_TYPES, AQM_KINDS, AQM_TABLE, PROTOCOL_TABLE, PROTOCOL_UNITS, PROTOCOLS, FlowGroup,
                            ENGINE_DEFAULTS, Sizes, Workload, _check_param, _core, _param_engine)
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


# --- dumbbells with generated flows, and fabrics against their one-world run ----------------------------

#: Mixes of flow classes whose shares add up to 1 exactly in binary (0.1 + 0.2 would not).
_SHARES = st.sampled_from([[1.0], [0.5, 0.5], [0.25, 0.75], [0.25, 0.25, 0.5], [0.125, 0.375, 0.5]])


def _host_jitters(pkt_us: float):
    """``network.host_jitter``: mostly none, else up to a few packet times (in ps, as the engine's
    fuzzers draw host_jitter_ps); the one past the limit is drawn as an out-of-range case."""
    most = max(1, int(pkt_us * 5e6))
    return st.one_of(st.none(), st.none(), st.just("0us"), st.integers(1, most).map(lambda ps: f"{ps}ps"))


@st.composite
def _transport(draw, dx_first: bool = False) -> dict:
    """A ``protocol`` or a ``mix`` of classes (DX among them at least as often as the others),
    each with some of its protocol's parameters drawn by unit."""
    shares = draw(_SHARES)
    classes = []
    for i, share in enumerate(shares):
        proto = "dx" if dx_first and i == 0 else draw(protocols)
        c = {"protocol": proto, **draw(protocol_params(proto))}
        if draw(st.integers(0, 3)) == 0:
            c["init_cwnd"] = draw(st.sampled_from([1, 2, 10]))
        if draw(st.integers(0, 3)) == 0:
            c["min_rto"] = draw(st.sampled_from(["200us", "1ms"]))
        if draw(st.integers(0, 3)) == 0:
            c["profile"] = draw(st.sampled_from(["ns2", "linux"]))
        classes.append((c, share))
    if len(classes) == 1 and draw(st.booleans()):
        return classes[0][0]
    return {"mix": [{**c, "share": s} for c, s in classes]}


#: The most flows a Poisson workload is expected to generate in a case (its load lowered to fit):
#: a tiny size at a high rate would otherwise generate millions in a millisecond.
MOST_POISSON_FLOWS = 200


def _fit_load(w: dict, bps: float, duration_us: int, pkt: int) -> None:
    """Lower a Poisson workload's load so that it is expected to generate at most
    MOST_POISSON_FLOWS flows over the run (``bps``: the capacity its load is a fraction of)."""
    mean = Sizes(**w["sizes"]).mean_bytes(pkt, ENGINE_DEFAULTS["header_bytes"])
    most = MOST_POISSON_FLOWS * 8 * mean / (bps * duration_us * 1e-6)
    if w["load"] > most:
        w["load"] = float(f"{most:.3g}")


def _bps(rate: str) -> float:
    return float(TypeAdapter(_PARAM_TYPES["bps"]).validate_python(rate))


def _sizes():
    return st.one_of(
        st.builds(lambda n: {"kind": "cdf", "name": n}, st.sampled_from(["web_search", "data_mining"])),
        st.builds(lambda lo, w: {"kind": "uniform", "min": f"{lo}B", "max": f"{lo + w}B"},
                  st.integers(1, 20_000), st.integers(0, 50_000)),
        st.builds(lambda s: {"kind": "fixed", "size": s}, st.sampled_from(["1B", "1460B", "3pkt", "64KB"])),
        st.just({"kind": "cdf", "points": [[1000, 0.0], [10_000, 0.5], [200_000, 1.0]]}),
    )


#: Out-of-range draws of ``dumbbell_workloads``: (the field the error must name, how to break it).
def _break_jitter(d):
    d["network"]["host_jitter"] = "1.000000001s"
    return "host_jitter"


def _break_partitions(d):
    d["run"]["partitions"] = 2
    return "run.partitions"


def _break_workload(key, value):
    def brk(d):
        if not d.get("workloads"):
            d["workloads"] = [{"kind": "poisson", "load": 0.1, "sizes": {"kind": "cdf", "name": "web_search"},
                               "protocol": "dx"}]
        w = d["workloads"][0]
        field = key
        if key == "load":
            w.update(kind="poisson", load=value, sizes=w.get("sizes") or {"kind": "cdf", "name": "web_search"})
            for k in ("client", "servers", "n", "total", "rounds", "gap"):
                w.pop(k, None)
        elif key == "min":
            w.update(kind="poisson", load=w.get("load") or 0.1, sizes={"kind": "uniform", "min": value, "max": "1KB"})
            for k in ("client", "servers", "n", "total", "rounds", "gap"):
                w.pop(k, None)
        elif key == "mix":
            for k in ("protocol", *Workload._TRANSPORT):
                w.pop(k, None)
            w["mix"] = [{"protocol": "dx", "share": 0.5}, {"protocol": "dctcp", "share": value}]
        return field
    return brk


def _break_aqm(d):
    d["network"]["aqm"] = {"kind": "modified_choke", "min_th": "1pkt", "max_th": "2pkt", "max_p": 1.5}
    return "max_p"


def _break_dx(d):
    d["flows"] = d.get("flows", []) + [{"count": 1, "protocol": "dx", "R0": "-1us"}]
    return "R0"


_BREAKS = [_break_jitter, _break_partitions, _break_workload("load", 1.0), _break_workload("load", 0.0),
           _break_workload("min", "0B"), _break_workload("mix", 0.4), _break_aqm, _break_dx]


@st.composite
def dumbbell_workloads(draw) -> tuple[dict, str | None, dict | None]:
    """A dumbbell whose flows mix every protocol (DX always among them when a DX draw comes up),
    every queue discipline (CHOKe and modified CHOKe included), listed flows and generated ones
    (Poisson arrivals at small loads with web-search, data-mining, uniform, fixed or inline-CDF
    sizes, and incast rounds into r), with a host jitter; and, one case in ten, one field out of
    range. Returns the scenario, the field its error must name (None: a valid draw) and the draw
    before the field was put out of range (None: a valid draw)."""
    n = draw(st.integers(1, 6))
    pkt = draw(st.sampled_from([1500, 9000, 64]))
    buf = draw(st.one_of(st.integers(1, 20), st.integers(1, 300)))  # small buffers: drops, CHOKe's evictions
    bottleneck = draw(rates)
    net = {"topology": "dumbbell", "senders": n, "bottleneck": bottleneck, "access": draw(rates),
           "rtt": [f"{draw(times_us)}us" for _ in range(n)] if draw(st.booleans()) else f"{draw(times_us)}us",
           "buffer": f"{buf}pkt" if draw(st.booleans()) else f"{buf * pkt}B",
           "aqm": draw(aqms(buf)), "packet_bytes": pkt}
    jitter = draw(_host_jitters(pkt * 8 / 10e9 * 1e6))  # packet times at 10 Gbps
    if jitter is not None:
        net["host_jitter"] = jitter
    duration_us = draw(st.integers(100, 2000))
    run = {"duration": f"{duration_us}us", "seed": draw(st.integers(0, 2**64 - 1))}
    if draw(st.integers(0, 3)) == 0:  # else warm-up 0, where each port's counts must add up whole
        run["warmup"] = f"{draw(st.integers(0, duration_us - 1))}us"
    d = {"network": net, "run": run,
         "metrics": {"queue_interval": f"{draw(st.sampled_from([1, 10, 100]))}us"}}
    senders = [f"s{i}" for i in range(n)]
    dx_first = draw(st.booleans())
    if draw(st.booleans()):
        flows = draw(flow_groups(n, None))
        if dx_first:
            flows[0] = {k: v for k, v in flows[0].items() if k not in PROTOCOL_UNITS and k != "ect_acks"}
            flows[0].update(protocol="dx", **draw(protocol_params("dx")))
        d["flows"] = [{**f, "start": "0us", "stagger": "0us"} for f in flows]
    workloads = []
    for _ in range(draw(st.integers(0 if "flows" in d else 1, 2))):
        start = f"{draw(st.integers(0, duration_us // 2))}us"
        if draw(st.booleans()):
            w = {"kind": "poisson", "load": draw(st.sampled_from([0.01, 0.05, 0.1, 0.3])), "sizes": draw(_sizes()),
                 "start": start}
            if draw(st.booleans()):
                w["senders"] = sorted(set(draw(st.lists(st.sampled_from(senders), min_size=1, max_size=n))))
            if draw(st.booleans()):
                w["stop"] = f"{draw(st.integers(int(start[:-2]) + 1, duration_us + 100))}us"
            _fit_load(w, _bps(bottleneck), duration_us, pkt)  # the load is of the bottleneck (sw->r)
        else:
            servers = sorted(set(draw(st.lists(st.sampled_from(senders), min_size=1, max_size=n))))
            w = {"kind": "incast", "client": "r", "servers": servers, "start": start,
                 "total": draw(st.sampled_from(["1B", "10KB", "100KB", "1MB"])), "rounds": draw(st.integers(1, 3)),
                 "gap": f"{draw(st.integers(0, 50))}us"}
        w.update(draw(_transport(dx_first and not workloads and "flows" not in d)))
        workloads.append(w)
    if workloads:
        d["workloads"] = workloads
    expect, base = None, None
    if draw(st.integers(0, 9)) == 0:
        base = copy.deepcopy(d)
        expect = draw(st.sampled_from(_BREAKS))(d)
    return d, expect, base


def check_port_counts(res) -> None:
    """Per port, with no warm-up (the port counts then cover the whole run): arrivals = drops +
    sent + held, where held (queued or being sent) >= 0, within the buffer plus the one on the wire
    at a switch port, and all the ports' held packets are among the packets in flight."""
    spec = res.engine_spec
    if spec.get("warmup_ps", 0) != 0:
        return
    p = res.ports
    assert (p["drops"] == p["drops_whole_run"]).all(), "no warm-up: the run's drops are the window's"
    held = p["arrivals"].astype(np.int64) - p["drops"].astype(np.int64) - p["tx_pkts"].astype(np.int64)
    bad = p[held < 0]
    assert bad.empty, f"more dropped + sent than arrived: {bad[['port_label', 'arrivals', 'drops', 'tx_pkts']]}"
    caps = _capacities_pkt(spec, res)
    for (src, dst), h in zip(zip(p["src"], p["dst"]), held):
        cap = caps.get((src, dst))
        if cap is not None:
            assert h <= cap + 1, f"{src}->{dst}: {h} held > buffer {cap} + 1 on the wire"
    c = res.counters.iloc[0]
    assert held.sum() <= c["in_flight_pkts"], f"{held.sum()} held at ports > {c['in_flight_pkts']} in flight"


def _run_expecting(d: dict, expect: str | None, base: dict | None, replay: bool) -> None:
    """A valid draw runs with every invariant checked (and a replay bit-identical); a draw with a
    field out of range fails with a ScenarioError that names it, and nothing else (if the draw
    before it was broken was valid: a draw may be refused by a rule between fields, such as K below
    the buffer, which `_run_valid` checks is named)."""
    import warnings

    if expect is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                Scenario.from_dict(copy.deepcopy(base)).check_resources()
            except ScenarioError as e:
                _check_error(str(e))
                COUNTS["out-of-range draws whose draw was refused already"] += 1
                return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(ScenarioError) as e:
                Scenario.from_dict(copy.deepcopy(d)).check_resources()
        _check_error(str(e.value))
        assert expect in str(e.value), f"expected an error naming {expect!r}: {e.value}"
        COUNTS[f"out-of-range draws refused naming {expect}"] += 1
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. DX flows through an ECN-marking queue
        res = _run_valid(d, replay)
    if res is not None:
        parts = d["run"].get("partitions", 1)
        COUNTS[f"generated-flow draws run on a {d['network']['topology']} with {parts} partition(s)"] += 1
        COUNTS[f"generated-flow draws run with {d['network'].get('aqm', {}).get('kind', 'droptail')} queues"] += 1
        COUNTS["generated-flow draws run with a host jitter"] += "host_jitter" in d["network"]
        for w in d.get("workloads", []):
            sizes = w.get("sizes", {})
            what = sizes.get("name", sizes.get("kind", ""))
            COUNTS[f"generated-flow draws run with a {w['kind']} workload {what}"] += 1
            COUNTS["generated-flow draws run with a mix"] += "mix" in w
        COUNTS["generated flows run"] += int(res.flows["workload"].notna().sum())
        evicted = bool((res.ports["evictions"] > 0).any())
        COUNTS["generated-flow draws in which CHOKe dropped a queued packet"] += evicted
        COUNTS["generated-flow draws with drops"] += bool((res.ports["drops_whole_run"] > 0).any())
    return res


@st.composite
def fabric_workloads(draw) -> tuple[dict, str | None, dict | None]:
    """A partitioned fabric (``partitioned_fabrics``) whose generated flows draw their sizes from a
    CDF (web search, data mining) or as there, their transport from a mix (DX among the draws),
    its hosts a host jitter; one case in ten, a partition count the topology refuses (more parts
    than pods or leaves, CHOKe queues or an incast split into worlds)."""
    d = draw(partitioned_fabrics())
    net = d["network"]
    jitter = draw(_host_jitters(net["packet_bytes"] * 8 / 10e9 * 1e6))
    if jitter is not None:
        net["host_jitter"] = jitter
    for w in d.get("workloads", []):
        for k in ("protocol",):
            w.pop(k, None)
        w.update(draw(_transport(dx_first=draw(st.booleans()))))
        if w["kind"] == "poisson":
            w["load"] = draw(st.sampled_from([0.01, 0.05, 0.1, 0.3]))
            if draw(st.booleans()):
                w["sizes"] = draw(_sizes())
            hosts = net["k"] ** 3 // 4 if net["topology"] == "fat_tree" else net["leaves"] * net["hosts_per_leaf"]
            _fit_load(w, _bps(net["host_link"]) * hosts, int(d["run"]["duration"][:-2]), net["packet_bytes"])
    expect, base = None, None
    if draw(st.integers(0, 9)) == 0:
        base = copy.deepcopy(d)
        most = net["k"] if net["topology"] == "fat_tree" else net["leaves"]
        how = draw(st.sampled_from(["too_many", "choke", "incast"]))
        if how == "too_many":
            d["run"]["partitions"] = most + 1
        else:
            d["run"]["partitions"] = draw(st.integers(2, most))
            if how == "choke":
                net["aqm"] = {"kind": draw(st.sampled_from(["choke", "modified_choke"])), "min_th": "1pkt",
                              "max_th": "2pkt", "max_p": 0.1, "m": 1}
            else:
                d.setdefault("workloads", []).append({"kind": "incast", "client": "h0", "servers": ["h1"],
                                                      "total": "10KB", "protocol": "dx"})
        expect = "run.partitions"
    return d, expect, base


#: The columns of the flows table a partitioned run promises equal to its one-world run's: the
#: same generated flows, every world drawing them alike (tests/test_fabric.py's
#: test_partitioned_run_keeps_the_flows_and_physics_of_one_world; run.partitions' docs: the
#: one-world run's physics, not bit for bit, so the rest is only held to the invariants).
SAME_FLOWS = ("src", "dst", "start_s", "size_bytes", "ideal_fct_s")


def _run_partitioned_against_one_world(d: dict, expect: str | None, base: dict | None, replay: bool) -> None:
    import warnings

    parts = _run_expecting(d, expect, base, replay)
    if parts is None or d["run"]["partitions"] == 1:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one_d = copy.deepcopy(d)
        one_d["run"]["partitions"] = 1
        one = dcsim.simulate(Scenario.from_dict(one_d))
    check_invariants(Scenario.from_dict(one_d), one)
    check_port_counts(one)
    f1, fp = one.flows, parts.flows
    assert len(f1) == len(fp), f"{len(fp)} flows in {d['run']['partitions']} partitions, {len(f1)} in one world"
    for col in SAME_FLOWS:
        pd.testing.assert_series_equal(fp[col], f1[col], check_exact=True, obj=f"flows.{col} against one world's")
    COUNTS["partitioned runs with the one-world run's flows"] += 1


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


def _run_valid(d: dict, replay: bool):
    """Run a drawn scenario and check the invariants; its Result, None if it was refused (with a named field)."""
    try:
        sc = Scenario.from_dict(copy.deepcopy(d))
    except ScenarioError as e:
        _check_error(str(e))
        COUNTS["valid-strategy cases refused with a named field"] += 1
        return None
    try:
        sc.check_resources()  # what simulate checks first: the run's memory bound, before anything runs
    except ScenarioError as e:  # e.g. 180 000 generated flows beyond metrics.max_memory (a long fuzz run found one)
        _check_error(str(e))
        COUNTS["valid-strategy cases refused by the memory bound with a named field"] += 1
        return None
    # A validated scenario runs as it is (no second validation): it must be the run its written
    # form gives, as it was when every run was validated again from its dict.
    assert Scenario.from_dict(sc.to_dict()).to_engine_spec() == sc.to_engine_spec()
    res = dcsim.simulate(sc)
    check_invariants(sc, res)
    check_port_counts(res)
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
    return res


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


@settings(max_examples=60, **COMMON)
@given(dumbbell_workloads(), st.integers(0, 3))
def test_dumbbells_with_generated_flows_keep_the_invariants(case, replay):
    """DX beside the other protocols, CHOKe beside the other queues, Poisson (CDF sizes) and incast
    workloads, a host jitter; a replay (one case in four) bit-identical; out-of-range draws named."""
    _run_expecting(*case, replay == 0)


@settings(max_examples=25, **COMMON)
@given(fabric_workloads(), st.integers(0, 3))
def test_partitioned_fabrics_keep_the_one_world_flows(case, replay):
    _run_partitioned_against_one_world(*case, replay == 0)


def _stop_keeps_the_fresh_run(d: dict, chunks: int) -> None:
    """A run.max_wall stop at the first of ``chunks`` chunks' ends keeps the run of 0 .. t, table
    for table what a fresh run of the partial's engine spec gives (t + 1 ps where a workload fired
    at t). Reviews found it broken three times by hand-picked cases (a trace flow due at t, a
    running-flow stop, an incast round due at t + 1 ps); drawn here over generated workloads."""
    import json
    import warnings

    from dcsim import RunLimitError
    from dcsim.result import Result

    d = copy.deepcopy(d)
    d["run"]["max_wall"] = "1ns"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            sc = Scenario.from_dict(d)
            sc.check_resources()
        except ScenarioError as e:
            _check_error(str(e))
            return
        try:
            dcsim.simulate(sc, chunks=chunks)
        except RunLimitError as e:
            part = e.partial
        else:
            raise AssertionError("run.max_wall = 1 ns did not stop the run")
    if part is None:  # stopped before its warm-up: nothing measured, nothing kept
        COUNTS["stops before the warm-up"] += 1
        return
    fresh = _core.Simulation(json.dumps(part.engine_spec))
    fresh.run()
    fresh = Result.from_engine(sc, fresh.results(), wall_s=0.0, engine_spec=part.engine_spec)
    for t in part.tables:
        pd.testing.assert_frame_equal(part.tables[t], fresh.tables[t], check_exact=True, obj=t)
    COUNTS[f"stops kept as a fresh run ({d['run'].get('partitions', 1)} partition(s))"] += 1


@settings(max_examples=80, **COMMON)
@given(dumbbell_workloads() | fabric_workloads(), st.integers(2, 8))
def test_a_stop_keeps_what_a_fresh_run_to_its_end_gives(case, chunks):
    d, expect, _ = case
    if expect is None:
        _stop_keeps_the_fresh_run(d, chunks)


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


@pytest.mark.fuzz
@LONG_SETTINGS
@given(dumbbell_workloads(), st.integers(0, 3))
def test_fuzz_long_dumbbell_workloads(case, replay):
    _run_expecting(*case, replay == 0)


@pytest.mark.fuzz
@LONG_SETTINGS
@given(fabric_workloads(), st.integers(0, 3))
def test_fuzz_long_fabric_workloads(case, replay):
    _run_partitioned_against_one_world(*case, replay == 0)
