"""Data-center fabrics from the scenario layer: leaf-spine and k-ary fat-tree, ECMP, all-to-all
workloads, FCT/slowdown percentiles; named-field errors before anything runs (TOML, Python API and
CLI alike). Expected values come from the topologies' definitions and binomial statistics, with
tolerances fixed before the run (written beside each assertion)."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from dcsim import simulate
from dcsim.cli import app
from dcsim.result import Result, fct_stats
from dcsim.scenario import Scenario, ScenarioError, load_scenario

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent


def leaf_spine(**net) -> dict:
    """2 leaves x 8 hosts at 10 Gbps, 4 spines (full bisection: 20 Gbps uplinks); fixed 14 600 B
    flows (10 segments) from leaf 0's hosts to leaf 1's at 10 % of their host links for 20 ms."""
    base = {"topology": "leaf_spine", "leaves": 2, "spines": 4, "hosts_per_leaf": 8, "host_link": "10Gbps",
            "buffer": "300pkt", "aqm": {"kind": "threshold", "K": "65pkt"}, "ecmp_seed": 1}
    base.update(net)
    return {
        "network": {k: v for k, v in base.items() if v is not None},
        "workloads": [{"kind": "poisson", "load": 0.1, "sizes": {"kind": "fixed", "size": "14600B"},
                       "senders": [f"h{i}" for i in range(8)], "receivers": [f"h{i}" for i in range(8, 16)],
                       "protocol": "dctcp"}],
        "run": {"duration": "20ms", "seed": 3},
    }


def fat_tree(**net) -> dict:
    base = {"topology": "fat_tree", "k": 4, "host_link": "10Gbps", "buffer": "300pkt", "delay": "1us"}
    base.update(net)
    return {"network": {k: v for k, v in base.items() if v is not None},
            "flows": [{"protocol": "dctcp", "src": "h0", "dst": "h15"}], "run": {"duration": "5ms"}}


def error(d: dict) -> str:
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(d)
    return str(e.value)


def uplink_shares(res) -> np.ndarray:
    p = res.ports
    up = p[(p["src"] == "leaf0") & p["dst"].astype(str).str.startswith("spine")].sort_values("dst")
    tx = up["tx_bytes"].to_numpy(dtype=float)
    return tx / tx.sum()


def test_ecmp_spreads_flows_over_the_spines_within_the_binomial_bound():
    # Every flow crosses leaf0 -> spine_j for one j drawn by the hash: given n flows, spine j's
    # count is Binomial(n, 1/4), its share of the (equal-size) flows' bytes sd sqrt(3/16 / n).
    # lambda = 0.1 x 8 x 10 Gbps / (8 x 14 600 B) = 68 493 /s: n ~ 1370 in 20 ms, sd 0.0117.
    # Allowed: 5 sd. (Flows still running at the end move the shares by a few flows' worth, well
    # inside the bound.)
    res = simulate(Scenario.from_dict(leaf_spine()))
    n = int(res.workloads["flows"].iloc[0])
    assert 1200 < n < 1550, n  # Poisson(1370): sd 37, 5 sd
    shares = uplink_shares(res)
    assert len(shares) == 4
    sd = np.sqrt(0.25 * 0.75 / n)
    assert np.all(np.abs(shares - 0.25) < 5 * sd), (shares, sd)
    # Packet conservation on the fabric.
    c = res.counters.iloc[0]
    assert c["sent_pkts"] == c["delivered_pkts"] + c["dropped_pkts"] + c["in_flight_pkts"]


def test_same_ecmp_seed_same_paths_another_seed_other_paths():
    a = uplink_shares(simulate(Scenario.from_dict(leaf_spine())))
    b = uplink_shares(simulate(Scenario.from_dict(leaf_spine())))
    c = uplink_shares(simulate(Scenario.from_dict(leaf_spine(ecmp_seed=2))))
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_fat_tree_k4_sizes_and_hop_counts_from_the_ideal_fct():
    # k = 4: 16 hosts, 20 switches, 48 links (96 ports). A one-segment flow's ideal FCT is, per
    # hop, the delay and the data packet's serialisation forward and the delay and the ACK's
    # serialisation back: hops x (2 d + 1500 B / C + 40 B / C). Hops: 2 within an edge switch
    # (h0 -> h1), 4 within a pod (h0 -> h2), 6 across pods (h0 -> h4).
    d = fat_tree()
    d["flows"] = [{"protocol": "dctcp", "src": "h0", "dst": dst, "size": "1460B"} for dst in ("h1", "h2", "h4")]
    sc = Scenario.from_dict(d)
    names = sc.network.node_names()
    assert len(sc.network.host_names()) == 16 and len(names) - 16 == 20
    res = simulate(sc)
    assert len(res.ports) == 96
    per_hop = 2e-6 + 1500 * 8 / 10e9 + 40 * 8 / 10e9
    ideal = res.flows["ideal_fct_s"].to_numpy(dtype=float)
    np.testing.assert_allclose(ideal, [2 * per_hop, 4 * per_hop, 6 * per_hop], rtol=1e-9)
    # The scenario layer's propagation RTTs agree (used for warnings and plots).
    rtts = [r for _, _, r in sc.path_rtts()]
    np.testing.assert_allclose(rtts, [4e-6, 8e-6, 12e-6], rtol=1e-12)


def test_leaf_spine_oversubscription_sets_the_uplink_rate_and_tiers_override():
    sc = Scenario.from_dict(leaf_spine(oversubscription=2.0))
    topo = sc.to_engine_spec()["topology"]
    # 8 hosts x 10 Gbps / (4 spines x 2) = 10 Gbps per uplink.
    assert topo["leaf_spine"]["rate_bps"] == 10_000_000_000
    assert topo["host"]["rate_bps"] == 10_000_000_000
    d = leaf_spine(tiers={"leaf_spine": {"rate": "40Gbps", "delay": "2us", "buffer": "1000pkt",
                                         "aqm": {"kind": "threshold", "K": "200pkt"}}})
    topo = Scenario.from_dict(d).to_engine_spec()["topology"]
    assert topo["leaf_spine"] == {"rate_bps": 40_000_000_000, "delay_ps": 2_000_000,
                                  "queue": {"capacity": {"packets": 1000}, "aqm": {"kind": "threshold", "k": {"packets": 200}}}}
    assert topo["host"]["delay_ps"] == 1_000_000 and topo["host"]["queue"]["capacity"] == {"packets": 300}
    # The ratio is of the hosts' rate as it is: with tiers.host.rate = 1 Gbps, 8 x 1 Gbps / (4 x 2)
    # = 1 Gbps uplinks, and the description says 2:1 of a fabric that is 2:1 (it derived 10 Gbps
    # from host_link, a fabric of 1:5 described as 2:1).
    sc = Scenario.from_dict(leaf_spine(oversubscription=2.0, tiers={"host": {"rate": "1Gbps"}}))
    topo = sc.to_engine_spec()["topology"]
    assert topo["host"]["rate_bps"] == 1_000_000_000 and topo["leaf_spine"]["rate_bps"] == 1_000_000_000
    assert "1Gbps hosts, 1Gbps uplinks (2:1)" in sc.describe()



def test_a_change_inside_a_tiers_inherited_queue_starts_from_the_queue_it_inherits(tmp_path):
    """`network.tiers.leaf_spine.aqm.K = 100pkt` on a tier that inherits threshold marking had
    made the tier a drop-tail queue with a K ("not a parameter of aqm kind 'droptail'": a
    review). It changes the inherited discipline, as `network.aqm.K` changes network.aqm, through
    `replace`, `--set` and a sweep's axis alike (the one `apply_changes`); a tier's own aqm is its own."""
    sc = Scenario.from_dict(leaf_spine())
    changed = sc.replace({"network.tiers.leaf_spine.aqm.K": "100pkt"})
    topo = changed.to_engine_spec()["topology"]
    assert topo["leaf_spine"]["queue"]["aqm"] == {"kind": "threshold", "k": {"packets": 100}}
    assert topo["host"]["queue"]["aqm"] == {"kind": "threshold", "k": {"packets": 65}}  # the rest inherit as before
    assert sc.network.tiers is None  # the original is not changed
    with pytest.raises(ScenarioError, match=r"network\.tiers\.leaf_spine\.aqm\.K: .*allowed 0 < K < buffer"):
        sc.replace({"network.tiers.leaf_spine.aqm.K": "400pkt"})  # still checked against the buffer
    # the tier starts from network.aqm as the other changes leave it, in either order (a review)
    red = {"kind": "red", "min_th": "20pkt", "max_th": "60pkt", "max_p": 0.1}
    for changes in ({"network.tiers.leaf_spine.aqm.max_p": 0.2, "network.aqm": red},
                    {"network.aqm": red, "network.tiers.leaf_spine.aqm.max_p": 0.2}):
        tier = sc.replace(changes).network.tiers["leaf_spine"].aqm
        assert (tier.kind, tier.max_p, tier.min_th.value) == ("red", 0.2, 20.0), changes
    own = sc.replace({"network.tiers.leaf_spine.aqm": {"kind": "droptail"}})
    with pytest.raises(ScenarioError, match="not a parameter of aqm kind 'droptail'"):
        own.replace({"network.tiers.leaf_spine.aqm.K": "10pkt"})
    path = tmp_path / "ls.toml"
    path.write_text(sc.replace({"run.duration": "1ms"}).to_toml())
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["run", str(path), "--no-plots", "--out", str(out),
                                   "--set", "network.tiers.leaf_spine.aqm.K=100pkt"])
    assert res.exit_code == 0, res.output
    spec = json.loads((out / "engine_spec.json").read_text())
    assert spec["topology"]["leaf_spine"]["queue"]["aqm"] == {"kind": "threshold", "k": {"packets": 100}}

BAD = [
    (fat_tree(k=3), "network.k", "even"),
    (fat_tree(k=1), "network.k", "even"),
    (fat_tree(k=0), "network.k", "even"),
    (fat_tree(k=-2), "network.k", "even"),
    (fat_tree(k=4.0), "network.k", "whole number"),
    (leaf_spine(hosts_per_leaf=0), "network.hosts_per_leaf", "allowed 1 .."),
    (leaf_spine(oversubscription=0), "network.oversubscription", "allowed > 0"),
    (leaf_spine(oversubscription=-1.5), "network.oversubscription", "allowed > 0"),
    (leaf_spine(oversubscription=1e12), "network.oversubscription", "leaves the leaf-spine links at"),
    (leaf_spine(oversubscription=2, tiers={"leaf_spine": {"rate": "10Gbps"}}), "network.oversubscription", "not both"),
    (leaf_spine(ecmp_seed="one"), "network.ecmp_seed", "whole number"),
    (leaf_spine(ecmp_seed=1.5), "network.ecmp_seed", "whole number"),
    (leaf_spine(ecmp_seed=True), "network.ecmp_seed", "whole number"),
    (leaf_spine(ecmp_seed=-1), "network.ecmp_seed", "out of range"),
    (leaf_spine(tiers={"core": {"rate": "1Gbps"}}), "network.tiers.core", "allowed: host, leaf_spine"),
    (leaf_spine(tiers={"host": {"rate": "0Gbps"}}), "network.tiers.host.rate", "out of range"),
    (fat_tree(oversubscription=2), "network.oversubscription", "not for topology"),
    (fat_tree(host_link=None), "network.host_link", "required"),
    # A tier's buffer below the network-wide K it inherits: the error names the key the user wrote.
    (leaf_spine(tiers={"leaf_spine": {"buffer": "50pkt"}}), "network.tiers.leaf_spine.buffer", "cannot hold network.aqm.K"),
    (leaf_spine(tiers={"leaf_spine": {"buffer": "50pkt", "aqm": {"kind": "threshold", "K": "60pkt"}}}),
     "network.tiers.leaf_spine.aqm.K", "0 < K < buffer"),
    # The list of keys a fabric takes includes those of every topology.
    (fat_tree(leaves=3), "network.leaves", "packet_bytes, header_bytes"),
]


@pytest.mark.parametrize("d,field,words", BAD, ids=[f"{b[1]}-{i}" for i, b in enumerate(BAD)])
def test_bad_fabrics_name_the_field_in_the_python_api_and_toml(d, field, words, tmp_path):
    msg = error(d)
    assert msg.startswith(f"{field}:") and words in msg, msg
    # The same from a TOML file (written by hand: the model cannot write an invalid scenario).
    path = tmp_path / "bad.toml"
    path.write_text(_toml(d))
    with pytest.raises(ScenarioError) as e:
        load_scenario(path)
    assert str(e.value).startswith(f"{field}:") and words in str(e.value)


def test_bad_fabrics_name_the_field_on_the_cli(tmp_path):
    for d, field, words in [BAD[0], BAD[5], BAD[8], BAD[10]]:
        path = tmp_path / "bad.toml"
        path.write_text(_toml(d))
        out = tmp_path / "out"
        res = runner.invoke(app, ["run", str(path), "--out", str(out)])
        assert res.exit_code == 2, res.output
        assert field in res.output and "Traceback" not in res.output
        assert not out.exists()


def test_a_load_of_the_senders_links_that_overloads_the_receivers_is_warned():
    # leaf_spine(): 8 senders to 8 receivers, all 10 Gbps: load x 8/8 <= 1, no warning. With 12
    # senders to 4 receivers at 0.5 the receivers are offered 0.5 x 12 / 4 = 150 % of payload (a
    # review: "poisson 0.5 of every host link" said nothing of it), x 15 000 / 14 600 on the wire
    # (10 packets of 40 B headers per 14 600 B flow) = 154 %; at 0.3, 92 %: no warning.
    def load_warnings(d):
        return [w for w in Scenario.from_dict(d).warnings() if "receivers' host links" in w]

    assert load_warnings(leaf_spine()) == []
    d = leaf_spine()
    d["workloads"][0].update(senders=[f"h{i}" for i in range(12)], receivers=[f"h{i}" for i in range(12, 16)], load=0.5)
    w, = load_warnings(d)
    assert w.startswith("workloads[0]:") and "154 %" in w and "12 hosts" in w and "4 hosts" in w
    d["workloads"][0]["load"] = 0.3
    assert load_warnings(d) == []
    assert "of the senders' host links" in Scenario.from_dict(d).workloads[0].describe()


def test_an_oversubscription_far_out_of_range_shows_the_rate_rounded():
    msg = error(leaf_spine(oversubscription=1e-30))  # a 16-host leaf's had been shown as 3.9999999999999996e+40bps
    assert msg.startswith("network.oversubscription:") and "2e+40bps" in msg and "99999" not in msg  # 8 x 10 Gbps / (4 x 1e-30)


def test_ecmp_seed_only_where_there_are_equal_cost_paths():
    d = {"network": {"topology": "dumbbell", "bottleneck": "1Gbps", "rtt": "100us", "buffer": "100pkt", "ecmp_seed": 1},
         "flows": [{"count": 1, "protocol": "dctcp"}], "run": {"duration": "1ms"}}
    msg = error(d)
    assert msg.startswith("network.ecmp_seed:") and "graph" in msg, msg


def test_all_to_all_default_and_fct_percentiles():
    # On a fabric a Poisson workload defaults to link = "hosts", every host sending to every other.
    d = fat_tree()
    d.pop("flows")
    d["workloads"] = [{"kind": "poisson", "load": 0.2, "sizes": {"kind": "uniform", "min": "10KB", "max": "50KB"},
                       "protocol": "dctcp"}]
    d["run"] = {"duration": "10ms"}
    sc = Scenario.from_dict(d)
    w = sc.to_engine_spec()["workloads"][0]
    assert w["link"] is None and len(w["senders"]) == len(w["receivers"]) == 16
    res = simulate(sc)
    assert res.workloads["link"].iloc[0] == "hosts"
    assert res.workloads["link_bps"].iloc[0] == 16 * 10e9
    # lambda = 0.2 x 16 x 10 Gbps / (8 x 30 kB) = 133 333 /s, 1333 flows in 10 ms: the realised
    # load's sd (compound Poisson) = 8 sqrt(lambda T E[S^2]) / (16 C T) = 0.0057; allowed 5 sd.
    e2 = (10e3**2 + 10e3 * 50e3 + 50e3**2) / 3
    sd = 8 * np.sqrt(133_333 * 0.01 * e2) / (16 * 10e9 * 0.01)
    assert abs(res.workloads["realised_load"].iloc[0] - 0.2) < 5 * sd
    fs = fct_stats(res.flows, [20e3], 0.0)
    allrow = fs[(fs["protocol"] == "all") & (fs["bucket"] == "all")].iloc[0]
    done = res.flows[np.isfinite(res.flows["fct_s"].to_numpy(dtype=float))]
    assert allrow["fct_p999_s"] == pytest.approx(np.percentile(done["fct_s"], 99.9), rel=1e-12)
    assert allrow["slowdown_p50"] == pytest.approx(np.percentile(done["slowdown"], 50), rel=1e-12)
    assert allrow["slowdown_p999"] == pytest.approx(np.percentile(done["slowdown"], 99.9), rel=1e-12)
    assert allrow["slowdown_p50"] >= 1.0 and allrow["slowdown_p999"] >= allrow["slowdown_p99"] >= allrow["slowdown_p50"]


def test_flows_of_one_host_share_its_nic_in_turn():
    # Host backpressure keeps at most 2 packets waiting in a host's NIC; the flows waiting for room
    # are served in turn (fq_codel-like). On an uncongested fat tree (k = 4, 10 Gbps) a 10 KB flow
    # (7 segments, within the initial window) that starts while a 10 MB flow of the same host keeps
    # the NIC busy gets every other packet slot: from first principles its FCT is at most its
    # ideal FCT plus 7 more serialisations of 1500 B at 10 Gbps (the other flow's packets between
    # its own), i.e. slowdown < 2; allowed 3 (DCTCP's ACK clock may shift a slot or two). Served by
    # who asked first instead, it waited for the whole 10 MB (8 ms, slowdown ~ 240).
    d = fat_tree()
    d["flows"] = [{"protocol": "dctcp", "src": "h0", "dst": "h4", "size": "10MB"},
                  {"protocol": "dctcp", "src": "h0", "dst": "h8", "size": "10KB", "start": "1ms"}]
    d["run"] = {"duration": "20ms"}
    f = simulate(Scenario.from_dict(d)).flows
    long_fct, short_fct = f["fct_s"].to_numpy(dtype=float)
    # The long flow cannot beat its host link: 10 MB of payload in 1460 B segments at 10 Gbps.
    assert long_fct >= np.ceil(10e6 / 1460) * 1500 * 8 / 10e9
    assert f["slowdown"].iloc[1] < 3.0, f[["fct_s", "ideal_fct_s", "slowdown"]]
    assert short_fct < 0.1 * (long_fct - 1e-3)


def test_long_flows_of_one_host_get_equal_shares_of_its_nic():
    # Three long-lived flows from h0 to receivers in three other pods: the host link (10 Gbps) is
    # the only bottleneck, and turn-taking at the NIC gives each a third, up to a packet per turn;
    # each goodput within 10 % of the mean (allowed for DCTCP's window dynamics at the receivers'
    # edge ports, which carry nothing else). A first-come NIC gave the first flow everything.
    d = fat_tree()
    d["flows"] = [{"protocol": "dctcp", "src": "h0", "dst": dst} for dst in ("h4", "h8", "h12")]
    d["run"] = {"duration": "20ms", "warmup": "5ms"}
    g = simulate(Scenario.from_dict(d)).flows["goodput_bps"].to_numpy(dtype=float)
    assert np.all(np.abs(g - g.mean()) < 0.10 * g.mean()), g
    # Together they fill the host link: payload 1460 of 1500 B on the wire, within 3 %.
    assert g.sum() == pytest.approx(10e9 * 1460 / 1500, rel=0.03)


@pytest.mark.parametrize("name", ["leaf_spine.toml", "fat_tree.toml", "trace.toml"])
def test_fabric_examples_run_from_the_cli(name, tmp_path):
    d = load_scenario(ROOT / "examples" / name).to_dict()
    d["run"]["duration"] = "3ms"
    short = tmp_path / name
    short.write_text(Scenario.from_dict(d).to_toml())
    out = tmp_path / "out"
    res = runner.invoke(app, ["run", str(short), "--out", str(out), "--wait-plots"])
    assert res.exit_code == 0, res.output
    assert "p99.9" in res.output and "ECMP" in res.output and "Fabric tiers" in res.output
    summary = json.loads((out / "summary.json").read_text())
    w = summary["workloads"][0]
    assert w["link"] == ("" if w["kind"] == "trace" else "hosts")
    assert (out / "tiers.png").exists() and (out / "fct.png").exists()


def partitioned(parts, **run) -> dict:
    """A k = 4 fat-tree split into ``parts`` (by pods) with all-to-all 10-50 KB DCTCP flows."""
    d = fat_tree()
    d.pop("flows")
    d["workloads"] = [{"kind": "poisson", "load": 0.3, "sizes": {"kind": "uniform", "min": "10KB", "max": "50KB"},
                       "protocol": "dctcp"}]
    d["run"] = {"duration": "10ms", "seed": 2, "partitions": parts, **run}
    return d


BAD_PARTITIONS = [
    (partitioned(0), "allowed 1 .. 64"),
    (partitioned(65), "allowed 1 .. 64"),
    (partitioned(5), "allowed 1 .. 4, the number of pods (k)"),
    (partitioned(1.5), "whole number"),
    ({**leaf_spine(), "run": {"duration": "20ms", "partitions": 3}}, "allowed 1 .. 2, the number of leaves"),
    ({"network": {"topology": "dumbbell", "bottleneck": "1Gbps", "rtt": "100us", "buffer": "100pkt"},
      "flows": [{"count": 2, "protocol": "dctcp"}], "run": {"duration": "1ms", "partitions": 2}}, "fat_tree or leaf_spine"),
    ({**partitioned(2), "network": {**partitioned(2)["network"], "aqm": {"kind": "modified_choke", "min_th": "5pkt",
                                                                           "max_th": "15pkt", "max_p": 0.1, "w_q": 0.002}}},
     "cannot run modified_choke queues (network.aqm), which drop packets already queued"),
]


@pytest.mark.parametrize("d,words", BAD_PARTITIONS, ids=range(len(BAD_PARTITIONS)))
def test_bad_partitions_name_the_field_before_anything_runs(d, words, tmp_path):
    msg = error(d)
    assert msg.startswith("run.partitions:") and words in msg, msg
    path = tmp_path / "bad.toml"
    path.write_text(_toml(d))
    out = tmp_path / "out"
    res = runner.invoke(app, ["run", str(path), "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert "run.partitions" in res.output and words in res.output and "Traceback" not in res.output
    assert not out.exists()


def test_partitioned_run_keeps_the_flows_and_physics_of_one_world():
    # The same generated flows (every world draws them alike), packets conserved over the worlds,
    # and each flow finished in both runs delivers exactly its size in both; the partitioned run
    # is reproducible (same scenario, same tables).
    one = simulate(Scenario.from_dict(partitioned(1)))
    two = simulate(Scenario.from_dict(partitioned(2)))
    again = simulate(Scenario.from_dict(partitioned(2)))
    f1, f2 = one.flows, two.flows
    assert len(f1) == len(f2) > 500
    for col in ("src", "dst", "start_s", "size_bytes", "ideal_fct_s"):
        assert f1[col].tolist() == f2[col].tolist(), col
    done = np.isfinite(f1["fct_s"].to_numpy(dtype=float)) & np.isfinite(f2["fct_s"].to_numpy(dtype=float))
    assert done.sum() > 0.9 * len(f1)
    assert np.array_equal(f2["delivered_bytes_whole_run"].to_numpy()[done], f2["size_bytes"].to_numpy()[done])
    c = two.counters.iloc[0]
    assert c.sent_pkts == c.delivered_pkts + c.dropped_pkts + c.in_flight_pkts
    for name in ("flows", "ports", "queue", "counters"):
        a, b = getattr(two, name), getattr(again, name)
        assert a.equals(b), name
    # Median slowdown within the one-world run's 40th .. 60th percentiles (the band is over 6
    # standard errors of a median's quantile either way for n > 500; see the engine's test).
    s1 = f1["slowdown"].to_numpy(dtype=float)
    s1 = s1[np.isfinite(s1)]
    m2 = np.nanmedian(f2["slowdown"].to_numpy(dtype=float))
    assert np.percentile(s1, 40) <= m2 <= np.percentile(s1, 60)


def test_sack_blocks_cross_partitions_with_their_acks():
    """A SACK flow (profile = "linux") whose receiver is in the other world: its ACKs' blocks must
    reach the sender, which then recovers its slow-start losses by fast retransmit (RFC 6675)
    as in one world, with no timeout. Before the blocks travelled with the ACKs, the partitioned
    sender saw none, stalled until its 1 ms RTO and delivered a quarter of the flow in 2 ms.
    Expected: the same loss recovery in both runs (equal retransmission counts, no timeout) and
    the same FCT within 1 % (only the order of same-picosecond events can differ)."""
    d = {
        "network": {"topology": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 1,
                    "host_link": "40Gbps", "delay": "1us", "buffer": "30pkt", "ecmp_seed": 0},
        "flows": [{"src": "h0", "dst": "h1", "protocol": "newreno", "profile": "linux", "min_rto": "1ms",
                   "size": "1MB", "delayed_ack": False}],
        "run": {"duration": "2ms", "seed": 954},
    }
    # Every segment ACKed: with delayed ACKs an odd last segment waits for its ACK until the RTO
    # (quick ACKs are not modelled), which would be counted as a timeout whatever the SACK blocks
    # did; which segment is last of a pair changed with the window's growth rule.
    # Two leaves: the ACKs cross from the receiver's world to the sender's. Four leaves (h0 and h1
    # on leaves 0 and 1, both in world 0), ECMP seeds 0-3: some paths go through a spine of world
    # 1, so the ACKs leave the world of both ends and come back.
    for leaves, seed in ((2, 0), (4, 0), (4, 1), (4, 2), (4, 3)):
        d["network"].update(leaves=leaves, ecmp_seed=seed)
        runs = {}
        for p in (1, 2):
            d["run"]["partitions"] = p
            runs[p] = simulate(Scenario.from_dict(copy.deepcopy(d))).flows.iloc[0]
        one, two = runs[1], runs[2]
        assert one.fast_retransmits >= 1 and one.timeouts_whole_run == 0, one  # the scenario recovers by SACK
        assert two.delivered_bytes_whole_run == 1_000_000, (leaves, seed)
        assert two.timeouts_whole_run == 0, (leaves, seed)
        for col in ("fast_retransmits", "retransmits_whole_run"):
            assert two[col] == one[col], (col, leaves, seed)
        assert abs(two.fct_s - one.fct_s) <= 0.01 * one.fct_s, (leaves, seed)


def test_a_lone_window_unlimited_flow_takes_exactly_its_ideal_fct_whatever_its_last_packet():
    """The ideal FCT is the FCT of the flow alone with no window limit: store-and-forward of its
    packets in order through every hop (the tandem-queue recursion), then the last ACK's return.
    So a lone flow with a window larger than the flow has slowdown 1 exactly (the rates here give
    every serialisation in whole picoseconds; elsewhere the engine's rounding of each hop's start
    can add a picosecond a hop), for sizes of whole packets and for a short last packet,
    on a path whose slowest hop (3 Gbps leaf-spine links) sits between faster ones (10 Gbps hosts).
    Before, the ideal charged only the smallest packet at the hops after the slowest and gave a
    lone 1 461-B flow slowdown 1.37. And the ideal of 1 461 B is above that of 1 460 B."""
    sizes = [1, 1459, 1460, 1461, 2920, 2921, 14_601, 100_000]
    d = {
        "network": {"topology": "leaf_spine", "leaves": 2, "spines": 1, "hosts_per_leaf": 1, "host_link": "10Gbps",
                    "buffer": "1000pkt", "tiers": {"leaf_spine": {"rate": "3Gbps"}}},
        "workloads": [{"kind": "trace", "protocol": "newreno", "init_cwnd": 1000,
                       "arrivals": [{"start": f"{i}ms", "src": "h0", "dst": "h1", "size": f"{b}B"}
                                    for i, b in enumerate(sizes)]}],
        "run": {"duration": f"{len(sizes)}ms"},
    }
    f = simulate(Scenario.from_dict(d)).flows.sort_values("start_s")
    assert f["size_bytes"].tolist() == sizes
    np.testing.assert_allclose(f["slowdown"].to_numpy(dtype=float), 1.0, rtol=1e-9)
    ideal = dict(zip(sizes, f["ideal_fct_s"]))
    assert ideal[1461] > ideal[1460] and ideal[2921] > ideal[2920]


def test_the_ideal_fct_stays_a_lower_bound_with_delayed_acks():
    """With delayed ACKs the receiver need not send ACK n - 1, so the ideal must not make ACK n
    wait behind it. The case that shows it (an audit's): 10 Gbps hosts, 5 Gbps leaf-spine links,
    an even number of packets whose last is short (13 160 B = 9 x 1 460 + 20 B: the last packet,
    60 B on the wire, arrives 48 ns after the one before, and an ACK takes 64 ns at 5 Gbps). Every
    packet ACKed: ACK 10 queues 16 ns behind ACK 9, which the ideal counts, so a lone
    window-unlimited flow takes its ideal exactly. Delayed ACKs (every 2nd segment): there is no
    ACK 9 and ACK 8 left 2.4 us earlier, so ACK 10 returns unqueued and the lone flow again takes
    exactly its ideal, now 16 ns lower; before, its slowdown was 0.99954, below the bound. 14 600 B
    (10 full packets) is the same either way. Tolerance: 1 ps a hop (the engine's integer
    picoseconds; the rates give whole picoseconds here, so the values are exact)."""
    def lone(delayed_ack: bool) -> dict[int, tuple[float, float]]:
        d = {
            "network": {"topology": "leaf_spine", "leaves": 2, "spines": 1, "hosts_per_leaf": 1, "host_link": "10Gbps",
                        "buffer": "1000pkt", "tiers": {"leaf_spine": {"rate": "5Gbps"}}},
            "workloads": [{"kind": "trace", "protocol": "dctcp", "init_cwnd": 1000, "delayed_ack": delayed_ack,
                           "arrivals": [{"start": f"{i}ms", "src": "h0", "dst": "h1", "size": f"{b}B"}
                                        for i, b in enumerate((13_160, 14_600))]}],
            "run": {"duration": "2ms"},
        }
        f = simulate(Scenario.from_dict(d)).flows
        return {int(r.size_bytes): (float(r.fct_s), float(r.ideal_fct_s)) for r in f.itertuples()}

    every, delayed = lone(False), lone(True)
    for size in (13_160, 14_600):
        for fct, ideal in (every[size], delayed[size]):
            assert abs(fct - ideal) <= 4e-12, (size, fct, ideal)
    assert abs((every[13_160][1] - delayed[13_160][1]) - 16e-9) <= 4e-12, (every[13_160], delayed[13_160])
    assert every[14_600][1] == delayed[14_600][1]


def test_a_lone_flow_whose_first_ack_returns_late_waits_once_for_it_the_readmes_worked_example():
    """The README's worked example, from first principles. k = 4 fat-tree, 10 Gbps, 1 us links but
    2 us between aggregation and core; h0 -> h15 crosses 6 hops (1, 1, 2, 2, 1, 1 us): propagation
    RTT 16 us. A 1 500-B packet takes T = 1.2 us a hop, a 40-B ACK 0.032 us. The first ACK returns
    after 6 T + 16 + 6 x 0.032 = 23.392 us; the 10 packets of the initial window take 10 T = 12 us
    to send, so slow start waits 11.392 us once (afterwards each ACK releases two packets, faster
    than the host link sends them). 100 000 B = 68 full packets and one of 720 + 40 B: ideal FCT
    (store-and-forward of all in order, then the last ACK) = 68 T (the full packets leave the
    host) + 5 T (the last full one's other hops) + 0.608 us (the short one behind it at the last
    hop) + 16 us + 6 x 0.032 us (the ACK back) = 104.400 us; so FCT = 115.792 us, slowdown 1.10912.
    10 MB (6 850 packets): ideal 8 241.392 us, slowdown 1.001382; with init_cwnd = 20 (24 us of
    sending > 23.392 us) it never waits: slowdown 1. Tolerance: 1 ps a hop (the engine's integer
    picoseconds)."""
    def lone(size: int, init_cwnd: int) -> tuple[float, float]:
        d = {
            "network": {"topology": "fat_tree", "k": 4, "host_link": "10Gbps", "delay": "1us", "buffer": "1000pkt",
                        "tiers": {"agg_core": {"delay": "2us"}}},
            "workloads": [{"kind": "trace", "protocol": "dctcp", "init_cwnd": init_cwnd,
                           "arrivals": [{"start": "0s", "src": "h0", "dst": "h15", "size": f"{size}B"}]}],
            "run": {"duration": "20ms"},
        }
        f = simulate(Scenario.from_dict(d)).flows.iloc[0]
        return float(f["fct_s"]), float(f["ideal_fct_s"])

    wait = 23.392e-6 - 12e-6
    fct, ideal = lone(100_000, 10)
    assert abs(ideal - 104.400e-6) <= 12e-12 and abs(fct - (104.400e-6 + wait)) <= 12e-12, (fct, ideal)
    fct, ideal = lone(10_000_000, 10)
    assert abs(ideal - 8241.392e-6) <= 12e-12 and abs(fct - (8241.392e-6 + wait)) <= 12e-12, (fct, ideal)
    fct, ideal = lone(10_000_000, 20)
    assert abs(fct - ideal) <= 12e-12, (fct, ideal)


def _flooding_queue(max_memory: str, duration: str = "2ms") -> dict:
    """A 1 Tbps host with a huge window into a 1 Gbps uplink whose buffer (10^9 packets, allowed)
    never drops: the queue grows by ~0.1 M packets per ms, bounded by nothing but metrics.max_memory."""
    return {
        "network": {"topology": "leaf_spine", "leaves": 2, "spines": 1, "hosts_per_leaf": 1, "host_link": "1Tbps",
                    "buffer": "1000000000pkt", "tiers": {"leaf_spine": {"rate": "1Gbps"}}},
        "workloads": [{"kind": "trace", "protocol": "newreno", "init_cwnd": 3_000_000,
                       "arrivals": [{"start": "0s", "src": "h0", "dst": "h1", "size": "1TB"}]}],
        "run": {"duration": duration},
        "metrics": {"max_memory": max_memory},
    }


def test_a_run_whose_queues_outgrow_max_memory_stops_naming_the_field(tmp_path):
    """metrics.max_memory bounds the run, also what the plan cannot foresee: the packets a queue
    holds (a 10^9-packet buffer is allowed). The world adds up its ports' rings and histograms
    every 65 536 events; past what the bound leaves, the run stops at the end of an instant with
    an error naming the field, in the API (RunLimitError, a ScenarioError) and in the CLI (one
    line, exit 2), keeping what it simulated, 0 .. t, as run.max_wall's stop does (it had kept
    nothing). With room for the queue (200 MB), the same run ends normally."""
    from dcsim import RunLimitError

    with pytest.raises(RunLimitError, match=r"^metrics\.max_memory: the run stopped at t = .* the network holds \d+ packets") as e:
        simulate(Scenario.from_dict(_flooding_queue("10MB")))
    part = e.value.partial
    assert part is not None and part.stopped["field"] == "metrics.max_memory" and part.stopped["duration_s"] == 2e-3
    t = part.stopped["simulated_s"]
    assert 0 < t < 2e-3 and part.duration_s == t
    # Conservation at t, with the packets the message names in flight; the 1 Gbps uplink has
    # sent without a pause since its first packet, so it was busy nearly all of 0 .. t (less the
    # first packet's way to it: a few us of t's hundreds).
    c = part.counters.iloc[0]
    held = int(str(e.value).split("the network holds ")[1].split()[0])
    assert c.in_flight_pkts == held and c.sent_pkts == c.delivered_pkts + c.dropped_pkts + c.in_flight_pkts
    assert c.now_s == t
    up = part.ports[part.ports["rate_bps"] == 1e9]
    assert up["utilization"].max() == pytest.approx(1.0, abs=0.05) and up["q_max_pkt"].max() > 10_000
    path, out = tmp_path / "flood.toml", tmp_path / "out"
    path.write_text(_toml(_flooding_queue("10MB")))
    res = runner.invoke(app, ["run", str(path), "--no-plots", "--out", str(out)], env={"COLUMNS": "300"})
    assert res.exit_code == 2, res.output
    assert "metrics.max_memory" in res.output and "Traceback" not in res.output and "internal error" not in res.output
    kept = Result.from_dir(out)
    assert kept.stopped == part.stopped and kept.flows.equals(part.flows)
    ok = simulate(Scenario.from_dict(_flooding_queue("200MB")))
    assert ok.counters.iloc[0].in_flight_pkts > 100_000


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads a process's peak from /proc (Linux)")
def test_a_run_stopped_by_its_queues_stays_within_max_memory(tmp_path):
    """`dcsim run` of the flooding queue above at 10 MB stops, writes what it simulated (exit 2),
    and peaks no more than 10 MB above the same scenario run for 10 us. No tolerance beyond the
    bound (decided before measuring): the stop comes when the rings and the histogram rows they
    will become reach what the bound leaves beside the plan, and the results free each port's
    packets as they take its row."""
    d = _flooding_queue("10MB")
    peaks = {}
    for name, duration in (("tiny", "10us"), ("run", "2ms")):
        path = tmp_path / f"{name}.toml"
        path.write_text(_toml({**d, "run": {"duration": duration}}))
        peaks[name] = _run_peak_bytes(path, tmp_path / name, ok=(0,) if name == "tiny" else (2,))
    assert Result.from_dir(tmp_path / "run").stopped["field"] == "metrics.max_memory"
    assert peaks["run"] - peaks["tiny"] <= 10_000_000, peaks


def _beside_arrivals(n: int, mb: float) -> int:
    """A budget of ``mb`` MB beside what the plan counts for n flows a trace lists (the engine's
    ``trace_arrival_bytes`` each, counted since 2026-12-02): the room the tests below were
    written for before the plan counted the listed flows themselves, bytes."""
    from dcsim.scenario import ENGINE_DEFAULTS

    return int(mb * 1e6) + n * ENGINE_DEFAULTS["trace_arrival_bytes"]


def _long_trace(n: int, max_memory_mb: float, duration: str = "2ms") -> dict:
    """n flows of 1 GB each, starting evenly over the first 1 ms on 4 hosts at 10 Gbps: none can
    finish in the run, so every one keeps its transport state (~1.2 KB) to the end. The budget is
    ``max_memory_mb`` beside the listed flows' own cost (:func:`_beside_arrivals`)."""
    max_memory = f"{_beside_arrivals(n, max_memory_mb)}B"
    arrivals = [{"start": f"{i * 1e-3 / n:.12f}s", "src": f"h{i % 4}", "dst": f"h{(i % 4 + 1 + (i // 4) % 3) % 4}",
                 "size": "1GB"} for i in range(n)]
    return {"network": {"topology": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 2,
                        "host_link": "10Gbps", "buffer": "100pkt"},
            "workloads": [{"kind": "trace", "protocol": "dctcp", "arrivals": arrivals}],
            "run": {"duration": duration}, "metrics": {"max_memory": max_memory}}


def test_a_partitioned_runs_memory_stop_is_the_same_whatever_the_threads_timing():
    """A partitioned run reports the first world's error of the window where one stopped. A
    world whose thread had not begun the window when another failed skipped its share, so its
    error came or not by timing: with the other core busy, one spec stopped at t = 316.9 us or at
    317 us from run to run (a review: 3 and 3 of 6; 13 and 7 of 20 here). Now every world runs its
    whole share: 16 runs beside a busy process give one message."""
    import subprocess
    import sys

    from dcsim import RunLimitError

    d = _long_trace(10_000, 40)
    d["run"]["partitions"] = 2
    sc = Scenario.from_dict(d)
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    messages = set()
    try:
        for _ in range(16):
            with pytest.raises(RunLimitError, match=r"^metrics\.max_memory: the run stopped") as e:
                simulate(sc)
            messages.add(str(e.value))
    finally:
        busy.kill()
        busy.wait()
    assert len(messages) == 1, messages


def test_generated_flows_running_past_max_memory_stop_the_run_keeping_what_it_simulated():
    """The plan counts each generated flow's result row but none of a trace's or a Poisson
    workload's flows running at once (how many depends on the run); each keeps ~1.2 KB of
    transport state until it finishes. 10 000 1-GB trace flows need ~12 MB of it by the end, and
    40 MB (beside the listed flows' own 7.2 MB, :func:`_beside_arrivals`) leaves ~3.5 MB beside the plan (16 MB + 2 KB a flow), with the plan's margin for flows
    running at once (a tenth of the flows' results, ~3.6 MB) ~7 MB: the run must stop naming
    metrics.max_memory once the running flows outgrow that (it had run to the end, and a 200 000-
    flow trace peaked 596 MB above the interpreter against a 450 MB bound), keeping the result of
    the time simulated as run.max_wall's stop does. With 60 MB the same run ends normally."""
    from dcsim import RunLimitError

    sc = Scenario.from_dict(_long_trace(10_000, 40))
    sc.check_resources()  # the plan accepts it: only the run can tell
    with pytest.raises(RunLimitError, match=r"^metrics\.max_memory: the run stopped at t = .*: generated flows still "
                                            r"running: up to \d+ ran at once") as e:
        simulate(sc)
    part = e.value.partial
    assert part is not None and part.stopped["field"] == "metrics.max_memory"
    assert part.stopped["max_memory_bytes"] == _beside_arrivals(10_000, 40) and part.stopped["duration_s"] == 2e-3
    t = part.stopped["simulated_s"]
    assert 0 < t < 1e-3 and part.duration_s == t
    # Every flow started by t is in the table, none finished; the ~7 MB held ~6 000 of them.
    assert len(part.flows) == sum(1 for i in range(10_000) if i * 1e-3 / 10_000 <= t + 1e-12)
    assert 4_000 < len(part.flows) < 8_000 and part.flows["fct_s"].isna().all()
    ok = simulate(Scenario.from_dict(_long_trace(10_000, 60)))
    assert len(ok.flows) == 10_000 and ok.stopped is None
    # In two partitions the worlds stop at different times: no run of 0 .. t to keep.
    d = _long_trace(10_000, 40)
    d["run"]["partitions"] = 2
    with pytest.raises(RunLimitError, match=r"^metrics\.max_memory: .*generated flows still running") as e:
        simulate(Scenario.from_dict(d))
    assert e.value.partial is None


def test_flows_starting_together_past_max_memory_stop_the_run_inside_their_instant():
    """The trace above with every flow at t = 0: a stop that waits for the end of the instant to
    keep the run of 0 .. t had created all 10 000 flows, where the bound held ~6 000 (a review).
    The run stops inside the instant once its flows pass what the bound holds, keeping nothing
    (the message says so), with the flows created then within what the spread trace reached."""
    import json

    from dcsim import RunLimitError, _core

    d = _long_trace(10_000, 40)
    for a in d["workloads"][0]["arrivals"]:
        a["start"] = "0s"
    sc = Scenario.from_dict(d)
    sim = _core.Simulation(sc.to_engine_json())
    with pytest.raises(ValueError, match=r"^metrics\.max_memory: the run stopped at t = 0") as e:
        sim.run()
    assert "keeps nothing" in str(e.value) and not sim.stop_keeps_run, str(e.value)
    assert 4_000 < sim.active_flows() < 8_000, sim.active_flows()
    with pytest.raises(RunLimitError) as e:
        simulate(sc)
    assert e.value.partial is None and "keeps nothing" in str(e.value)
    json.loads(sc.to_engine_json())  # the scenario itself stays valid: only the run could tell


def _memory_stop_cases() -> dict:
    """Scenarios a memory stop ends, by the queues or by running generated flows (see
    :func:`_flooding_queue`, :func:`_long_trace`), on three fabrics and queue disciplines, with a
    warm-up before t, and a queue stop at an instant where a trace flow starts."""
    ft = {"topology": "fat_tree", "k": 4, "host_link": "10Gbps", "buffer": "100pkt",
          "aqm": {"kind": "red", "min_th": "20pkt", "max_th": "60pkt", "max_p": 0.1, "w_q": 0.002}}
    tree = _long_trace(10_000, 40)
    tree["network"] = ft
    tree["run"]["warmup"] = "50us"
    for i, a in enumerate(tree["workloads"][0]["arrivals"]):
        a["src"], a["dst"] = f"h{i % 16}", f"h{(i % 16 + 1 + (i // 16) % 15) % 16}"
    dumbbell = {"network": {"topology": "dumbbell", "senders": 2, "bottleneck": "1Gbps", "access": "1Tbps",
                            "rtt": "20us", "buffer": "1000000000pkt", "aqm": {"kind": "threshold", "K": "65pkt"}},
                "flows": [{"count": 2, "protocol": "dctcp", "init_cwnd": 3_000_000}],
                "run": {"duration": "2ms", "warmup": "200us"}, "metrics": {"max_memory": "10MB"}}
    dense = _flooding_queue(f"{80_000_000}B")
    dense["workloads"][0]["arrivals"] += [{"start": f"{i * 0.1:.1f}us", "src": "h1", "dst": "h0", "size": "1KB"}
                                          for i in range(1, 20_000)]
    fat = _flooding_queue("10MB")
    fat["network"] = {"topology": "fat_tree", "k": 4, "host_link": "1Tbps", "buffer": "1000000000pkt",
                      "aqm": {"kind": "red", "min_th": "50pkt", "max_th": "100000000pkt", "max_p": 0.1, "w_q": 0.002},
                      "tiers": {"edge_agg": {"rate": "1Gbps"}, "agg_core": {"rate": "1Gbps"}}}
    fat["workloads"][0]["arrivals"] = [{"start": f"{i}us", "src": f"h{i}", "dst": f"h{15 - i}", "size": "1TB"}
                                       for i in range(4)]
    return {"queues, leaf-spine, drop-tail": _flooding_queue("10MB"),
            "queues, fat-tree, RED": fat,
            "queues, dumbbell, threshold, warm-up": dumbbell,
            "queues at a trace flow's start": dense,
            "running flows, leaf-spine, threshold": _long_trace(10_000, 40),
            "running flows, fat-tree, RED, warm-up": tree}


@pytest.mark.parametrize("case", list(_memory_stop_cases()))
def test_a_memory_stop_keeps_the_run_a_fresh_run_to_t_gives(case):
    """The partial Result of a metrics.max_memory stop is the run of 0 .. t: the engine spec it
    keeps (duration t), run afresh, gives the same tables, as a run.max_wall stop's does
    (tests/test_reliability.py). A stop by running flows comes at a flow's start, and a run to t
    starts no generated flow due at t: the partial had one flow more than the fresh run (6 014
    against 6 013 at t = 601.3 us), and the workloads, counters and series tables differed with
    it; a stop by the queues at an instant where a trace flow starts likewise. Such a stop now
    ends at t + 1 ps, the workloads' events of that instant left unfired, as a run to it does.
    And a queue stop's message names the packets the partial counts in flight (a fat-tree's had
    named those of the check, inside the instant: 65 523 against 65 524)."""
    import json

    from dcsim import RunLimitError, _core
    from dcsim.result import Result
    from test_reliability import TABLES_COMPARED

    sc = Scenario.from_dict(_memory_stop_cases()[case])
    with pytest.raises(RunLimitError, match=r"^metrics\.max_memory: the run stopped") as e:
        simulate(sc)
    part = e.value.partial
    assert part is not None, str(e.value)
    if "the network holds " in str(e.value):  # a queue stop names the packets the partial counts in flight
        held = int(str(e.value).split("the network holds ")[1].split()[0])
        assert part.counters["in_flight_pkts"].iloc[0] == held, str(e.value)
    spec = json.loads(json.dumps(part.engine_spec))
    assert spec["duration_ps"] == round(part.stopped["simulated_s"] * 1e12) < round(part.stopped["duration_s"] * 1e12)
    sim = _core.Simulation(json.dumps(spec))
    try:
        sim.run()
    except ValueError:  # the same queues at t pass the bound again: room for them, nothing else changes
        spec["metrics"]["max_memory_bytes"] *= 100
        sim = _core.Simulation(json.dumps(spec))
        sim.run()
    fresh = Result.from_engine(sc, sim.results(), wall_s=0.0, engine_spec=spec)
    for table in TABLES_COMPARED:
        assert part.tables[table].equals(fresh.tables[table]), table


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads a process's peak from /proc (Linux)")
def test_a_run_stopped_by_its_running_flows_stays_within_max_memory(tmp_path):
    """`dcsim run` of the trace above at 40 MB (+ 7.2 MB for its listed flows) stops, writes what it simulated (the exit status of a
    run.max_wall stop: 2), and peaks no more than its bound above the same scenario run for 10 us. No
    tolerance beyond the bound (decided before measuring): the stop comes when the running flows'
    state reaches what the bound leaves beside the plan, and the plan counts a result row for all
    10 000 flows where only those started (~6 000) are written."""
    d = _long_trace(10_000, 40)
    peaks = {}
    for name, duration in (("tiny", "10us"), ("run", "2ms")):
        path = tmp_path / f"{name}.toml"
        path.write_text(_toml({**d, "run": {"duration": duration}}))
        peaks[name] = _run_peak_bytes(path, tmp_path / name, ok=(0,) if name == "tiny" else (2,))
    stopped = Result.from_dir(tmp_path / "run")
    assert stopped.stopped["field"] == "metrics.max_memory" and len(stopped.flows) < 10_000
    assert peaks["run"] - peaks["tiny"] <= _beside_arrivals(10_000, 40), peaks


def _least_budget(d: dict) -> int:
    """The least metrics.max_memory the plan accepts for scenario ``d`` (Scenario.check_resources),
    bytes, by bisection, within 0.1 MB above it."""
    lo, hi = 1, 10**10
    while hi - lo > 10**5:
        mid = (lo + hi) // 2
        try:
            Scenario.from_dict({**d, "metrics": {"max_memory": f"{mid}B"}}).check_resources()
            hi = mid
        except ScenarioError:
            lo = mid
    return hi


def _run_peak_bytes(scenario_file: Path, out: Path, ok: tuple = (0,)) -> int:
    """Peak memory of `dcsim run SCENARIO --no-plots` in a child process, bytes: the child's own
    VmHWM. Not ru_maxrss, which Linux carries over a fork and exec from the parent: after a large
    test in this pytest process, runs reported pytest's size and checks on them held vacuously."""
    import subprocess
    import sys

    script = ("import sys\nfrom dcsim.cli import main\nrc = main()\n"
              "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0]\n"
              "print(int(hwm.split()[1]) * 1024)\nsys.exit(rc)")
    res = subprocess.run([sys.executable, "-c", script, "run", str(scenario_file), "--no-plots", "--out", str(out)],
                         capture_output=True, text=True, env={**os.environ, "MPLBACKEND": "Agg"})
    assert res.returncode in ok, res.stderr
    return int(res.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads a process's peak from /proc (Linux)")
@pytest.mark.parametrize("partitions", [1, 2])
def test_a_run_of_many_generated_flows_stays_within_the_max_memory_that_accepts_it(tmp_path, partitions):
    """The bound is checked before the run from a plan of what the run keeps, generated flows'
    results included. So `dcsim run` of a scenario accepted at max_memory = M must peak no more
    than M above the same scenario run for 10 us (the interpreter, the imports and the network).
    30 000 one-packet flows; M is the least budget the plan accepts, found by bisection on
    Scenario.check_resources. Before the per-flow figure was measured, such runs peaked ~30 %
    above their bound (a fuzz run). And the plan must not refuse what would fit: the run peaks at
    least half of M above the short one (the per-flow figures are upper bounds by 10-35 %, plus a
    fixed 16 MB; a partitioned run was planned at 3 x its flows' cost, ~3.5 x its peak, and a fuzz
    run found one refused at the default 1 GB that needed 0.54 GB)."""
    d = {
        "network": {"topology": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 2, "host_link": "100Gbps",
                    "buffer": "100pkt"},
        "workloads": [{"kind": "poisson", "load": 0.3, "sizes": {"kind": "fixed", "size": "1KB"}, "protocol": "dctcp"}],
        "run": {"duration": "2ms", "partitions": partitions},
    }
    hi = _least_budget(d)
    peaks = {}
    for name, duration in (("tiny", "10us"), ("run", "2ms")):
        path = tmp_path / f"{name}.toml"
        path.write_text(_toml({**d, "run": {"duration": duration, "partitions": partitions},
                               "metrics": {"max_memory": f"{hi}B"}}))
        peaks[name] = _run_peak_bytes(path, tmp_path / name)
    flows = len(Result.from_dir(tmp_path / "run").flows)
    assert flows > 25_000
    assert hi / 2 <= peaks["run"] - peaks["tiny"] <= hi, (peaks, hi, flows)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads a process's peak from /proc (Linux)")
def test_the_plan_counts_what_listed_flows_cost_at_the_peak(tmp_path):
    """Listed flows ([[flows]]) keep result rows, summary entries and the scenario's objects
    besides their state in the engine: 1 000 and 5 000 of them on a dumbbell for 1 us peak
    11.5 KB a flow apart (`dcsim run --no-plots`), where the plan had counted 3.45 KB (an audit:
    5 000 listed flows at 3.3 x their plan). The plan's growth per flow must cover the measured
    growth, and stay within twice it (not refuse what fits)."""
    peak, plan = {}, {}
    for n in (1000, 5000):
        sets = {"network.senders": n, "flows[0].count": n, "run.duration": "1us", "run.warmup": "0s",
                "metrics.queue_interval": "auto", "metrics.cwnd_interval": "auto", "metrics.throughput_interval": "auto"}
        sc = load_scenario(ROOT / "examples" / "dctcp_dumbbell.toml").replace(sets)
        # the engine's own plan, on the spec with a 1 MB bound written in (the scenario layer
        # refuses so many listed flows for 1 MB before building the spec, by their state alone,
        # without the plan's figure)
        import json

        from dcsim import _core

        spec = json.loads(sc.to_engine_json())
        spec["metrics"]["max_memory_bytes"] = 10**6
        with pytest.raises(ValueError) as e:
            _core.validate_spec(json.dumps(spec))
        plan[n] = float(str(e.value).split("allowed >= ")[1].split(" MB")[0]) * 1e6
        path = tmp_path / f"f{n}.toml"
        path.write_text(sc.to_toml())
        peak[n] = _run_peak_bytes(path, tmp_path / f"o{n}")
    grew, planned = peak[5000] - peak[1000], plan[5000] - plan[1000]
    assert grew <= planned <= 2 * grew, (peak, plan)


def _listed_trace(tmp_path: Path, n: int, max_memory: str = "4GB") -> dict:
    """A trace file of n one-packet flows (100-1 400 B) due evenly over the first 0.9 ms between 4
    hosts of a 2 x 2 x 2 leaf-spine at 100 Gbps, in a scenario run for 10 us: ~1 % of them start,
    the rest only listed (the measurements of benchmarks/MEASUREMENTS.md, 2026-12-02 16:00 UTC)."""
    import random

    rnd, lines = random.Random(1), ["start,src,dst,size"]
    for i in range(n):
        s = rnd.randrange(4)
        lines.append(f"{i * 0.9e-3 / n!r},h{s},h{(s + 1 + rnd.randrange(3)) % 4},{rnd.randrange(100, 1400)}")
    path = tmp_path / f"flows{n}.csv"
    path.write_text("\n".join(lines) + "\n")
    return {"network": {"topology": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 2,
                        "host_link": "100Gbps", "buffer": "100pkt"},
            "workloads": [{"kind": "trace", "file": str(path), "protocol": "dctcp"}],
            "run": {"duration": "10us"}, "metrics": {"max_memory": max_memory}}


def test_a_trace_whose_listed_flows_exceed_max_memory_is_refused_before_the_run(tmp_path):
    """A trace's flows cost memory at the run's peak whether they start or not (its columns, the
    engine spec and its JSON, the engine's copy): `dcsim run` of 40 000 listed flows of which ~1 %
    start peaked 23.0-23.4 MB above the same run of a 10-flow trace (measured, 2026-12-02), where
    the plan had counted only the started flows' rows (it accepted 1.8 MB for all of it). 20 MB
    cannot hold them: refused before the run, naming the workload and metrics.max_memory, by the
    scenario layer before the engine spec is built, and by the engine's own plan too (the same
    spec with the bound written into it)."""
    from dcsim import _core

    d = _listed_trace(tmp_path, 40_000, "20MB")
    with pytest.raises(ScenarioError, match=r"^workloads\[0\]: the traces list 40,000 flows.*metrics\.max_memory = 20\.0 MB"):
        Scenario.from_dict(d).check_resources()
    with pytest.raises(ScenarioError, match=r"metrics\.max_memory"):
        simulate(Scenario.from_dict(d))
    spec = json.loads(Scenario.from_dict({**d, "metrics": {"max_memory": "4GB"}}).to_engine_json())
    spec["metrics"]["max_memory_bytes"] = 20_000_000
    with pytest.raises(ValueError, match=r"^workloads\[0\]: the run would keep up to \d+ generated flows \(.* for the "
                                         r"40000 flows the trace lists; .*metrics\.max_memory = 20"):
        _core.validate_spec(json.dumps(spec))


def test_inline_arrivals_beyond_max_memory_are_refused_by_their_count_first():
    """An inline trace of 1.6 M arrivals took ~35 s and 1.7 GB to be refused by metrics.max_memory
    (each arrival was validated before the plan counted them: a review). They are counted first:
    2 000 arrivals at 720 B need 1.44 MB, more than 1 MB, so the refusal names the count before
    the broken last entry is reached; within the budget, that entry is named."""
    arrivals = [{"start": f"{i}us", "src": "h0", "dst": "h1", "size": "1KB"} for i in range(1999)] + ["junk"]
    d = {"network": {"topology": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 2, "host_link": "100Gbps"},
         "workloads": [{"kind": "trace", "arrivals": arrivals}], "run": {"duration": "10us"},
         "metrics": {"max_memory": "1MB"}}
    with pytest.raises(ScenarioError, match=r"^workloads\[0\]: the traces list 2,000 flows, .*max_memory = 1\.0 MB"):
        Scenario.from_dict(d)
    with pytest.raises(ScenarioError, match=r"arrivals\[1999\]"):
        Scenario.from_dict({**d, "metrics": {"max_memory": "10MB"}})
    with pytest.raises(ScenarioError, match=r"max_memory"):  # its own error, not the count's
        Scenario.from_dict({**d, "metrics": {"max_memory": "-1MB"}})


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads a process's peak from /proc (Linux)")
def test_the_plan_counts_what_a_traces_listed_flows_cost_at_the_peak(tmp_path):
    """`dcsim run --no-plots` of the 40 000-flow trace above at the least budget the plan accepts
    (bisection on Scenario.check_resources, within 0.1 MB; + 1 MB for the flows running at once) peaks no more above the 10-flow trace's
    run than that budget grew between them: the plan bounds the listed flows. Measured: 0.58 KB a
    flow at 10 000 and 40 000 flows, 0.24 KB at 100 000 and 200 000 (the allocator's), against the
    plan's 720 B (the largest + 25 %); the old plan grew by ~1.8 MB, so the run exceeded it ~12 x.
    And the plan is no more than 3.3 x the growth (the measurements lie at 0.33-0.82 of it), so
    that it does not refuse what fits by far more than measured."""
    peaks, least = {}, {}
    for n in (10, 40_000):
        d = _listed_trace(tmp_path, n)
        least[n] = max(_least_budget(d), 10**6)  # the least budget allowed is 1 MB
        path = tmp_path / f"t{n}.toml"
        # + 1 MB: the least budget leaves no room for the ~300 flows running at once (0.3 MB), whose
        # run-time check would stop the run
        path.write_text(_toml({**d, "metrics": {"max_memory": f"{least[n] + 10**6}B"}}))
        peaks[n] = _run_peak_bytes(path, tmp_path / f"o{n}")
    grew, planned = peaks[40_000] - peaks[10], least[40_000] - least[10]
    assert 10_000_000 < grew <= planned <= 3.3 * grew, (peaks, least)


def _graph(switches: int, links: int, hosts: int) -> dict:
    """A graph of a ring of switches plus seeded random switch links, host i on switch i, one flow
    across it, one port monitored, no flow traced (so that sampled series cost nothing)."""
    import random

    rnd, edges = random.Random(1), {(i, (i + 1) % switches) for i in range(switches)}
    while len(edges) < links:
        a, b = rnd.randrange(switches), rnd.randrange(switches)
        if a != b and (b, a) not in edges:
            edges.add((a, b))
    link = {"rate": "10Gbps", "delay": "1us", "buffer": "100pkt"}
    return {"network": {"topology": "graph",
                        "nodes": [{"name": f"s{i}", "kind": "switch"} for i in range(switches)]
                        + [{"name": f"h{i}", "kind": "host"} for i in range(hosts)],
                        "links": [{"a": f"s{a}", "b": f"s{b}", **link} for a, b in sorted(edges)]
                        + [{"a": f"h{i}", "b": f"s{i}", **link} for i in range(hosts)]},
            "flows": [{"protocol": "dctcp", "src": "h0", "dst": f"h{hosts - 1}"}],
            "run": {"duration": "1ms"}, "metrics": {"monitor": ["s0->s1"], "trace_flows": 0}}


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads a process's peak from /proc (Linux)")
def test_the_plan_counts_what_a_graphs_listed_links_cost_at_the_peak(tmp_path):
    """A graph's nodes and links are objects of the front end too (the scenario, its engine spec
    and JSON): 5 000 and 20 000 links peaked 5.8 KB a link apart, where the plan had grown by the
    engine's ~2 KB alone (a 201 000-link graph peaked at 1 278 MB under the default 1 GB: a
    probe). The plan's growth per link must cover the measured growth, and stay within twice it."""
    peak, plan = {}, {}
    for n in (5_000, 20_000):
        d = _graph(500, n, 20)
        with pytest.raises(ScenarioError) as e:
            Scenario.from_dict({**d, "metrics": {**d["metrics"], "max_memory": "1MB"}}).check_resources()
        plan[n] = float(str(e.value).split("allowed >= ")[1].split(" MB")[0]) * 1e6
        path = tmp_path / f"g{n}.toml"
        path.write_text(_toml(d))
        peak[n] = _run_peak_bytes(path, tmp_path / f"o{n}")
    grew, planned = peak[20_000] - peak[5_000], plan[20_000] - plan[5_000]
    assert grew <= planned <= 2 * grew, (peak, plan)


def test_a_budget_below_the_network_itself_names_max_memory_not_a_sampling_interval():
    """A k = 16 fat-tree (1 344 nodes, 6 144 ports: ~5 MB of state) under max_memory = 1 MB: no
    sampling interval can help, so the error names metrics.max_memory and the size needed, not
    the automatic queue interval the user never set (as it did before)."""
    d = {"network": {"topology": "fat_tree", "k": 16, "host_link": "10Gbps", "buffer": "100pkt"},
         "workloads": [{"kind": "permutation", "protocol": "dctcp", "size": "1KB"}],
         "run": {"duration": "1ms"}, "metrics": {"max_memory": "1MB"}}
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(d).check_resources()
    msg = str(e.value)
    assert msg.startswith("metrics.max_memory: 1.0 MB is too small: the network (1344 nodes, 6144 ports)"), msg
    assert "queue_interval" not in msg
    need = float(msg.rsplit("allowed >= ", 1)[1].split(" MB")[0])
    Scenario.from_dict({**d, "metrics": {"max_memory": f"{need + 0.1}MB"}}).check_resources()  # the size named fits


def test_python_callers_get_numpy_numbers_accepted_and_wrong_indices_and_keys_named(tmp_path):
    """From Python: NumPy integers and floats are numbers (a sweep axis built with np.arange); a
    workload index that does not exist is an error naming the range, not an empty result; a
    table key that is not a string is named as a key; a [[flows]] entry without src on a fabric
    is told about its topology, not about a graph."""
    sc = Scenario.from_dict(leaf_spine())
    assert sc.replace({"network.spines": np.int64(2)}).network.spines == 2
    assert sc.replace({"network.ecmp_seed": np.uint64(2**64 - 1)}).network.ecmp_seed == 2**64 - 1
    assert sc.replace({"network.oversubscription": np.float64(2.0)}).network.oversubscription == 2.0
    assert sc.replace({"metrics.trace_flows": [np.int64(0), np.int64(2)]}).metrics.trace_flows == [0, 2]
    assert sc.replace({"run.warmup": np.int64(0)}).run.warmup == 0
    assert sc.replace({"network.oversubscription": np.longdouble(2)}).network.oversubscription == 2.0
    with pytest.raises(ScenarioError, match="expected a whole number, got true"):
        sc.replace({"network.spines": np.True_})
    from dcsim.sweep import sweep

    short = sc.replace({"run.duration": "1ms"})
    table = sweep(short, {"network.spines": np.arange(1, 3)}, seeds=np.int64(1), out=tmp_path / "sw", jobs=1).table
    assert table["network.spines"].tolist() == [1, 2] and (table["seed"] == 1).all()
    res = simulate(sc)
    n = len(sc.workloads)
    for call in (res.trace, res.flow_paths, res.active_goodput):
        with pytest.raises(ValueError, match=rf"^workload: {n} is out of range; allowed 0 \.\. {n - 1}$"):
            call(n)
    d = leaf_spine(tiers={1: {"rate": "1Gbps"}})
    with pytest.raises(ScenarioError, match=r"^network\.tiers: key 1: expected a string, got 1$"):
        Scenario.from_dict(d)
    d = leaf_spine()
    d["flows"] = [{"protocol": "dctcp", "dst": "h1"}]
    d.pop("workloads", None)
    with pytest.raises(ScenarioError, match=r"flows\[0\]\.src: required with topology = 'leaf_spine'; allowed hosts"):
        Scenario.from_dict(d)


def test_a_linux_receiver_acks_the_end_of_a_flow_at_once():
    """Under profile = "linux" a receiver ACKs every second segment, else after 40 ms, but the
    segment that ends the sender's write (a flow's last, PSH) at once, as Linux does when the
    application reads it (tcp_measure_rcv_mss's ICSK_ACK_PUSHED, tcp_cleanup_rbuf): a review found
    a 1 KB flow's FCT at 40.1 ms, the delayed-ACK timer, where Linux (and ns2 here) take ~0.1 ms.
    So a flow of one or of an odd number of segments completes as under ns2, and nothing is warned."""
    def fct(profile, size):
        one = leaf_spine()
        one["workloads"] = [{"kind": "trace", "protocol": "dctcp", "profile": profile,
                             "arrivals": [{"start": "0s", "src": "h0", "dst": "h8", "size": size}]}]
        one["run"]["duration"] = "50ms"
        sc = Scenario.from_dict(one)
        assert not [w for w in sc.warnings() if "delay ACKs" in w]
        return simulate(sc).flows["fct_s"].iloc[0]

    # One segment: the same packet and its ACK, timer or not; 11 segments (odd) in slow start
    # under both profiles: the last ACK leaves at once (the rest may differ: linux grows by ABC).
    assert fct("linux", "1KB") == fct("ns2", "1KB") < 1e-3
    assert fct("linux", "16060B") < 1e-3
    # `delayed_ack = true` under the profile is the profile's delayed ACK (every 2 segments, 40 ms),
    # not the ns2 default's 1 ms timer; keys given keep their values.
    for given, want in ((True, (2, 0.040)), ({"segments": 3}, (3, 0.040)), ({"timeout": "5ms"}, (2, 0.005))):
        g = leaf_spine()
        g["workloads"][0].update(profile="linux", delayed_ack=given)
        da = Scenario.from_dict(g).workloads[0].classes()[0]._flow.delayed_ack
        assert (da.segments, da.timeout) == want, (given, da)


def _toml(d: dict) -> str:
    """A scenario dict as TOML, without validation (for invalid ones)."""
    from dcsim.scenario import _toml_dumps

    return _toml_dumps(copy.deepcopy(d))


def test_not_ect_acks_on_a_fabric_are_warned_about():
    """On a fabric, ACKs share switch queues with other flows' data; left Not-ECT (the ns2
    profile) a threshold queue drops them at K (tests/test_tcp_profile_physics.py). The warning
    names the group and the option; ECT ACKs (given, or the linux profile's) silence it, and a
    dumbbell, whose reverse ports carry only ACKs, never gets it."""
    text = (ROOT / "examples" / "fat_tree.toml").read_text()
    assert "ect_acks = true" in text
    ns2 = Scenario.from_toml_str(text.replace("ect_acks = true", "")).warnings()
    hits = [w for w in ns2 if "pure ACKs are Not-ECT" in w]
    assert len(hits) == 1 and hits[0].startswith("workloads[0]: ") and "set ect_acks = true" in hits[0], ns2
    assert not [w for w in Scenario.from_toml_str(text).warnings() if "Not-ECT" in w]
    linux = text.replace("ect_acks = true", 'profile = "linux"')
    assert not [w for w in Scenario.from_toml_str(linux).warnings() if "Not-ECT" in w]
    dumbbell = Scenario.from_toml(ROOT / "examples" / "dctcp_dumbbell.toml").warnings()
    assert not [w for w in dumbbell if "Not-ECT" in w], dumbbell


def test_fabric_tiers_partition_the_ports_and_conserve_bytes_in_path_order():
    """Every port is in exactly one tier. A packet from leaf 0 to leaf 1 (data; ACKs go the other
    way, the same tiers in the same order) crosses host up, leaf_spine up, leaf_spine down and
    host down in that order, so the bytes transmitted can only fall along it, and what the first
    tier sent that the last did not is still in flight at the end (no drops here: 300-packet
    buffers at 10 % load). Counts from the topology: 16 host links, 2 x 4 leaf-spine links."""
    sc = Scenario.from_dict(leaf_spine())
    res = simulate(sc)
    ts = res.tier_stats()
    assert ts.tier.tolist() == ["host up", "leaf_spine up", "leaf_spine down", "host down"]
    assert ts.ports.tolist() == [16, 8, 8, 16] and ts.ports.sum() == len(res.ports)
    assert ts.rate_bps.tolist() == [10e9, 20e9, 20e9, 10e9]  # full bisection: 8 x 10 Gbps over 4 spines
    s = res.summary()
    assert ts.drops.sum() == s["after_warmup"]["drops"] == 0
    assert ts.marks.sum() == s["after_warmup"]["marks"]
    tx = ts.tx_bytes.tolist()
    assert tx[0] >= tx[1] >= tx[2] >= tx[3] > 0, tx
    assert tx[0] - tx[3] <= s["packets"]["in_flight_pkts"] * sc.network.packet_bytes, (tx, s["packets"])
    assert ((0 <= ts.util_mean) & (ts.util_mean <= ts.util_max) & (ts.util_max <= 1)).all()
    assert [r["tier"] for r in s["tiers"]] == ts.tier.tolist()
    from dcsim.schema import SUMMARY_DERIVED

    assert all(set(r) == {c.name for c in SUMMARY_DERIVED["tiers"]} for r in s["tiers"])  # documented keys


def test_fat_tree_tiers_have_k_cubed_over_4_ports_each_and_are_printed():
    """A k-ary fat-tree has k^3/4 host links, k^3/4 edge-aggregation links (k pods x (k/2)^2) and
    k^3/4 aggregation-core links ((k/2)^2 cores x k): k = 4 gives 16 ports per tier and direction.
    `dcsim run` prints the tiers for a fabric, not for a dumbbell."""
    res = simulate(Scenario.from_dict(fat_tree()))
    ts = res.tier_stats()
    assert ts.tier.tolist() == ["host up", "edge_agg up", "agg_core up", "agg_core down", "edge_agg down", "host down"]
    assert ts.ports.tolist() == [16] * 6 and ts.ports.sum() == len(res.ports)
    from rich.console import Console

    from dcsim.run import print_tiers

    con = Console(record=True, width=200)
    print_tiers(res.summary(), con)
    text = con.export_text()
    assert "Fabric tiers" in text and "agg_core down" in text
    dumbbell = load_scenario(ROOT / "examples" / "dctcp_dumbbell.toml").replace({"run.duration": "2ms", "run.warmup": "0s"})
    one = simulate(dumbbell)
    assert one.tier_stats().empty and "tiers" not in one.summary()


@pytest.mark.parametrize("d", [leaf_spine(), leaf_spine(leaves=3, spines=5), fat_tree(), fat_tree(k=8)],
                         ids=["leaf_spine", "leaf_spine_3x5", "fat_tree_4", "fat_tree_8"])
def test_port_tiers_by_name_level_agree_with_the_fabrics_links(d):
    """fabric_port_tiers classifies a port by the levels of its ends' names; the fabric's link
    list (fabric_links: each link (a, b, tier) with a the lower end) defines the same thing apart:
    a -> b is "<tier> up", b -> a "<tier> down". Every port of the fabric must agree, and pairs
    that are no port of it (same level, two levels apart, names of no level) have none (-1)."""
    net = Scenario.from_dict(d).network
    order = net.fabric_tier_order()
    src, dst, want = [], [], []
    for a, b, tier in net.fabric_links():
        src += [a, b]
        dst += [b, a]
        want += [order.index(f"{tier} up"), order.index(f"{tier} down")]
    got = net.fabric_port_tiers(src, dst)
    assert got.tolist() == want
    top = net.fabric_switches()[-1]
    bad_src = ["h0", "h0", top, "x3", "h", "h0", net.fabric_switches()[0], "0"]
    bad_dst = ["h1", top, "h0", net.fabric_switches()[0], net.fabric_switches()[0], "h0x", net.fabric_switches()[1], "h0"]
    assert net.fabric_port_tiers(bad_src, bad_dst).tolist() == [-1] * len(bad_src)


def test_workload_payload_delivered_by_the_end():
    """summary workloads[].delivered_frac: the generated payload that arrived by the end. Flows of
    14 600 B that stop arriving 5 ms before the end of the run (each needs ~20 us) all finish, so
    all of it arrived (exactly 1); 1 MB flows (0.8 ms each at 10 Gbps) at 50 % load, cut at 3 ms
    with arrivals still coming, leave some on their way (< 1). The CLI line says it."""
    d = leaf_spine()
    d["workloads"][0]["stop"] = "15ms"
    res = simulate(Scenario.from_dict(d))
    w = res.summary()["workloads"][0]
    assert np.isfinite(res.flows["fct_s"].to_numpy(dtype=float)).all()
    assert w["delivered_frac"] == 1.0 and w["delivered_bytes"] == w["bytes"] > 0
    from dcsim.schema import SCHEMA, SUMMARY_DERIVED

    assert set(w) <= {c.name for c in SCHEMA["workloads"] + SUMMARY_DERIVED["workloads"]}  # documented keys
    d["workloads"][0].update(stop="3ms", load=0.5, sizes={"kind": "fixed", "size": "1MB"})
    d["run"]["duration"] = "3ms"
    short = simulate(Scenario.from_dict(d))
    w = short.summary()["workloads"][0]
    unfinished = ~np.isfinite(short.flows["fct_s"].to_numpy(dtype=float))
    assert unfinished.any() and 0 < w["delivered_frac"] < 1
    from rich.console import Console

    from dcsim.run import print_fct

    con = Console(record=True, width=200)
    print_fct(short.summary(), con)
    assert f"{100 * w['delivered_frac']:.1f} % of the payload delivered by the end" in con.export_text()


def test_flow_paths_account_for_every_packet_a_spine_uplink_sent():
    """flows.path is the route of the flow's data packets. Here every flow goes from leaf 0 to
    leaf 1 (so leaf0 -> spine ports carry data only; ACKs come back over spine -> leaf0) and all
    finish before the end (arrivals stop 5 ms early), so each uplink sent exactly the data packets
    of the flows whose path crosses it; and every path is src, the hops of the topology, dst."""
    d = leaf_spine()
    d["workloads"][0]["stop"] = "15ms"
    sc = Scenario.from_dict(d)
    res = simulate(sc)
    f, p = res.flows, res.ports
    assert res.counters.iloc[0]["in_flight_pkts"] == 0 and p["drops"].sum() == 0
    for src, dst, path in zip(f["src"].astype(str), f["dst"].astype(str), f["path"]):
        nodes = path.split("->")
        assert nodes[0] == src and nodes[-1] == dst and len(nodes) - 1 == len(sc.network.fabric_hops(src, dst))
    used = 0
    for j in range(4):
        hop = f"leaf0->spine{j}->"
        mine = f["path"].str.contains(hop, regex=False)
        port = p[(p["src"] == "leaf0") & (p["dst"] == f"spine{j}")]
        assert int(port["tx_pkts"].iloc[0]) == int(f.loc[mine, "sent_pkts_whole_run"].sum()), hop
        used += int(mine.sum())
    assert used == len(f) > 0


# --------------------------------------------------------------------------------------------
# Permutation traffic (kind = "permutation"): every sender one flow to its partner, the classic
# ECMP test.

def permutation(**w) -> dict:
    """2 leaves x 8 hosts, 8 spines at 10 Gbps (full bisection, 1:1); leaf 0's hosts each send one
    long-lived DCTCP flow to a distinct host of leaf 1; 20 ms, the first 5 ms warm-up."""
    d = leaf_spine(spines=8)
    d["workloads"] = [{"kind": "permutation", "senders": [f"h{i}" for i in range(8)],
                       "receivers": [f"h{i}" for i in range(8, 16)], "protocol": "dctcp", "ect_acks": True, **w}]
    d["run"] = {"duration": "20ms", "warmup": "5ms", "seed": 3}
    return d


def test_a_permutation_pairs_every_host_once_with_another_and_follows_the_seed():
    d = fat_tree()
    del d["flows"]
    d["workloads"] = [{"kind": "permutation", "size": "100KB", "start": "1ms", "protocol": "dctcp", "ect_acks": True}]
    d["run"] = {"duration": "5ms", "seed": 1}
    f = simulate(Scenario.from_dict(d)).flows
    hosts = {f"h{i}" for i in range(16)}  # both lists default to every host
    assert len(f) == 16 and set(f["src"].astype(str)) == hosts and set(f["dst"].astype(str)) == hosts
    assert (f["src"].astype(str) != f["dst"].astype(str)).all()
    assert (f["start_s"] == 1e-3).all() and (f["size_bytes"] == 100e3).all()
    pairs = lambda seed: list(zip(*(simulate(Scenario.from_dict({**d, "run": {**d["run"], "seed": seed}})).flows[c]  # noqa: E731
                                     .astype(str) for c in ("src", "dst"))))
    assert pairs(1) == list(zip(f["src"].astype(str), f["dst"].astype(str)))
    # Another seed, another permutation (two equal draws of 16 hosts' derangements: p = 1/D16 ~ 1.3e-13).
    assert pairs(2) != pairs(1)


def test_permutation_throughput_is_the_ecmp_collisions_of_its_flows():
    # Each flow takes leaf0 -> spine_j -> leaf1 for the j its hash picks; every host link carries
    # one flow each way, so the only shared links are the uplinks (and the spine's one link down
    # to leaf 1, the same flows). A used uplink is full: DCTCP with K = 65 pkt, well above the
    # ~8 us x 10 Gbps = 7 pkt BDP, never drains it (a flow alone on its spine is held at its own
    # 10 Gbps host link, which it keeps busy). Its flows share its payload rate, 10 Gbps x
    # 1460 / 1500 = 9.733 Gbps, so: the flows through a spine sum to 9.733 Gbps, a flow alone on
    # its spine gets all of it, and the aggregate is (spines used) x 9.733 Gbps. A link that never
    # idles delivers its payload rate over any window; measured at the receivers over the 15 ms
    # after warm-up, a flow's count is off by at most the packet in delivery at each edge (2 x 1460
    # B of 18 MB: 1.6e-4). Tolerance 1e-3.
    payload = 10e9 * 1460 / 1500
    used_counts = []
    for seed in (1, 2, 3):
        d = permutation()
        d["run"]["seed"] = seed
        res = simulate(Scenario.from_dict(d))
        f = res.flows
        spine = f["path"].astype(str).str.split("->").str[2]
        assert spine.str.startswith("spine").all()
        per_spine = f.groupby(spine)["goodput_bps"].sum().to_numpy(dtype=float)
        np.testing.assert_allclose(per_spine, payload, rtol=1e-3)
        alone = spine.map(spine.value_counts()) == 1
        np.testing.assert_allclose(f.loc[alone, "goodput_bps"].to_numpy(dtype=float), payload, rtol=1e-3)
        w = res.summary()["workloads"][0]
        assert w["kind"] == "permutation" and w["flows"] == 8
        np.testing.assert_allclose(w["goodput_mean_bps"] * 8, len(per_spine) * payload, rtol=1e-3)
        # The ports table agrees: exactly the spines on the flows' paths carried leaf 0's data.
        up = res.ports[(res.ports["src"].astype(str) == "leaf0") & res.ports["dst"].astype(str).str.startswith("spine")]
        assert set(up.loc[up["tx_bytes"] > 0, "dst"].astype(str)) == set(spine)
        used_counts.append(len(per_spine))
    # E[spines used] = 8 (1 - (7/8)^8) = 5.25 (Al-Fares et al.'s ECMP loss): none of three
    # seeds can use all 8 spines unless the hash is not spreading at random (p = 8!/8^8 = 0.24 %
    # each), and each uses at least 2.
    assert all(2 <= u < 8 for u in used_counts), used_counts


BAD_PERMUTATIONS = [
    ({"receivers": [f"h{i}" for i in range(8, 15)]}, "workloads[0].receivers", "7 hosts for 8 senders"),
    ({"senders": ["h0", "h1", "h0"], "receivers": ["h8", "h9", "h10"]}, "workloads[0].senders[2]", "appears twice"),
    ({"senders": ["h0"], "receivers": ["h0"]}, "workloads[0].receivers", "only sender"),
    ({"receivers": [f"h{i}" for i in range(9, 16)] + ["x"]}, "workloads[0].receivers[7]", "not a host"),
    ({"size": "0B"}, "workloads[0].size", "must be positive"),
    ({"size": "1.5B"}, "workloads[0].size", "whole number"),
    ({"start": "20ms"}, "workloads[0].start", "not before run.duration"),
    ({"load": 0.5}, "workloads[0].load", "not a parameter of a permutation workload"),
    # Found by a fuzz run: a start just below the end rounds to it in picoseconds; less than a
    # packet; a size in packets past the bound with jumbo packets.
    ({"start": "19.9999999999ms"}, "workloads[0].start", "whole picoseconds"),
    ({"size": "0.5pkt"}, "workloads[0].size", "less than one packet"),
]


@pytest.mark.parametrize("w,field,words", BAD_PERMUTATIONS, ids=[b[1] + "-" + b[2] for b in BAD_PERMUTATIONS])
def test_bad_permutations_name_the_field(w, field, words, tmp_path):
    msg = error(permutation(**w))
    assert msg.startswith(f"{field}:") and words in msg, msg
    path = tmp_path / "bad.toml"
    path.write_text(_toml(permutation(**w)))
    res = runner.invoke(app, ["run", str(path), "--out", str(tmp_path / "out")])
    assert res.exit_code == 2 and field in res.output and "Traceback" not in res.output, res.output
    assert not (tmp_path / "out").exists()


def test_the_engine_refuses_a_permutation_it_cannot_draw():
    """The engine checks its own spec too (a JSON spec written by hand never passes the scenario
    layer): unequal lists and a lone host paired with itself are errors naming the field."""
    from dcsim import _core

    spec = json.loads(Scenario.from_dict(permutation()).to_engine_json())
    for change, field in [({"receivers": ["h8"]}, "workloads[0].receivers"),
                          ({"senders": ["h3"], "receivers": ["h3"]}, "workloads[0].receivers"),
                          ({"size_bytes": 0}, "workloads[0].size")]:
        bad = copy.deepcopy(spec)
        bad["workloads"][0].update(change)
        with pytest.raises(ValueError) as e:
            _core.validate_spec(json.dumps(bad))
        assert str(e.value).startswith(field), e.value
    _core.validate_spec(json.dumps(spec))  # the unchanged spec passes


def test_a_size_in_jumbo_packets_past_the_bound_names_the_field():
    # 2e11 packets of 8 960 B payload = 1.8e15 B > 1e15 B (the bound at 1 500 B packets would pass it).
    for d, field in [(permutation(size="200000000000pkt"), "workloads[0].size"),
                     ({**fat_tree(), "flows": [{"protocol": "dctcp", "src": "h0", "dst": "h15", "size": "200000000000pkt"}]},
                      "flows[0].size")]:
        d["network"].update(packet_bytes=9000)
        msg = error(d)
        assert msg.startswith(f"{field}:") and "at most 1000000000000000 bytes" in msg, msg


def test_an_unconnected_pair_is_refused_before_the_run_however_many_pairs_come_first():
    """Found by a fuzz run: the engine checked only the first 10 000 sender-receiver pairs, and a
    graph whose 101st sender sat alone on another switch panicked mid-run. Every pair is checked
    now (one per class of hosts with the same switch and destination group), for a permutation the
    pairs it drew."""
    hosts = [f"h{i}" for i in range(101)]
    net = {"topology": "graph",
           "nodes": [{"name": h, "kind": "host"} for h in hosts + ["iso"]] + [{"name": s, "kind": "switch"} for s in "st"],
           "links": [{"a": h, "b": "s", "rate": "10Gbps", "delay": "1us", "buffer": "100pkt"} for h in hosts]
           + [{"a": "iso", "b": "t", "rate": "10Gbps", "delay": "1us", "buffer": "100pkt"}]}
    senders = hosts[:100] + ["iso"]
    for w in ({"kind": "permutation", "size": "10KB", "senders": senders, "receivers": hosts},
              {"kind": "poisson", "load": 0.1, "sizes": {"kind": "fixed", "size": "10KB"}, "senders": senders,
               "receivers": hosts, "link": "s->h0"}):
        sc = Scenario.from_dict({"network": net, "workloads": [{**w, "protocol": "dctcp"}], "run": {"duration": "0.2ms"}})
        with pytest.raises(ScenarioError) as e:
            simulate(sc)
        assert str(e.value).startswith("workloads[0]: no path between \"iso\" and"), e.value
    # A permutation that stays within the connected hosts runs.
    ok = {"kind": "permutation", "size": "10KB", "senders": hosts, "protocol": "dctcp"}
    res = simulate(Scenario.from_dict({"network": net, "workloads": [ok], "run": {"duration": "0.2ms"}}))
    assert len(res.flows) == 101


def test_permutation_goodput_counts_the_time_each_flow_ran():
    """Found by a fuzz run: flows started after warm-up were shown at the fraction of the time after
    warm-up they ran. A long-lived flow alone on its links, started at 3 ms of 4 ms with warm-up
    1 ms, must show about its rate over its own 1 ms, not a third of it."""
    d = permutation(senders=["h0"], receivers=["h8"], start="3ms")
    d["run"] = {"duration": "4ms", "warmup": "1ms", "seed": 1}
    res = simulate(Scenario.from_dict(d))
    w = res.summary()["workloads"][0]
    # One flow alone from h0 to h8: 9.733 Gbps of payload after a slow start from 10 packets over
    # a ~10 us RTT (doubling each RTT: full rate within ~10 RTTs = 0.1 ms, 10 % of its 1 ms).
    assert 0.85 * 9.733e9 < w["goodput_mean_bps"] <= 9.733e9 * 1.001, w
    assert res.flows["goodput_bps"].iloc[0] < 0.34 * 9.733e9  # the table's definition: over the 3 ms after warm-up


def test_active_goodput_divides_by_the_time_each_flow_ran_after_warm_up():
    from dcsim.result import active_goodput_bps

    # warm-up 1 s, end 10 s. (a) long-lived from 0: 9 s; (b) from 4 s, done after 2 s: 2 s;
    # (c) from 0.2 s, done at 0.7 s, before warm-up: none; (d) from 3 s, running at the end: 7 s.
    g = active_goodput_bps([9e9, 2e9, 5e8, 7e9], [0.0, 4.0, 0.2, 3.0], [np.nan, 2.0, 0.5, np.nan], 1.0, 10.0)
    np.testing.assert_allclose(g[[0, 1, 3]], [8e9, 8e9, 8e9], rtol=1e-12)
    assert np.isnan(g[2])


def test_a_fabric_flow_is_checked_against_its_hosts_and_needs_no_path_search(monkeypatch):
    """Every host of a leaf-spine reaches every other by construction, so validation looks the
    hosts up and builds no adjacency (which made a 20 000-host setup take ~0.5 s); a name that is
    not a host is still a named-field error."""
    import dcsim.scenario as scenario_module

    d = {"network": {"topology": "leaf_spine", "leaves": 3, "spines": 2, "hosts_per_leaf": 2,
                     "host_link": "10Gbps", "buffer": "100pkt"},
         "flows": [{"protocol": "dctcp", "src": "h0", "dst": "h5"}],
         "run": {"duration": "1ms"}}
    calls = []
    adjacency = scenario_module.Network.adjacency
    monkeypatch.setattr(scenario_module.Network, "adjacency", lambda self: calls.append(1) or adjacency(self))
    Scenario.from_dict(d).to_engine_spec()
    assert calls == []
    d["flows"][0]["dst"] = "h6"
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.dst: 'h6' is not a host; allowed: h0, h1, h2, h3, h4, h5"):
        Scenario.from_dict(d)
    # Monitored ports are looked up in the adjacency, built once for both.
    d["flows"][0]["dst"] = "h5"
    d["metrics"] = {"monitor": ["leaf0->spine1", "spine1->leaf2"]}
    calls.clear()
    Scenario.from_dict(d)
    assert calls == [1]
    d["metrics"] = {"monitor": ["leaf0->leaf1"]}
    with pytest.raises(ScenarioError, match=r"^metrics\.monitor\[0\]: no link 'leaf0' -> 'leaf1'"):
        Scenario.from_dict(d)
