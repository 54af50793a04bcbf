"""Generated flows, the tree topology and CHOKe from the scenario layer: named-field errors before
anything runs (TOML, Python API and CLI alike), the shipped CDFs, realised load against the
target, FCT statistics against the flows table, bit-identical runs per seed."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from dcsim import simulate
from dcsim.cli import app
from dcsim.result import Result, bucket_labels, fct_stats
from dcsim.scenario import Scenario, ScenarioError, Sizes, cdf_path, load_scenario, read_cdf

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent


def tree(**aqm) -> dict:
    """The coexistence paper's tree: h0, h1 in rack 0, receiver h2 in rack 1 (1 Gbps), 250 us, 250 pkt."""
    net = {"topology": "tree", "hosts": [2, 1], "host_link": "10Gbps", "bottleneck": "1Gbps", "rtt": "250us",
           "buffer": "250pkt"}
    if aqm:
        net["aqm"] = aqm
    return {
        "network": net,
        "flows": [{"protocol": "dctcp", "src": "h0", "dst": "h2"},
                  {"protocol": "newreno", "ecn": True, "src": "h1", "dst": "h2"}],
        "workloads": [{"kind": "poisson", "load": 0.2, "sizes": {"kind": "uniform", "min": "10KB", "max": "50KB"},
                       "mix": [{"protocol": "dctcp", "share": 0.5}, {"protocol": "newreno", "ecn": True, "share": 0.5}]}],
        "run": {"duration": "200ms", "warmup": "20ms", "seed": 2},
    }


def error(d: dict) -> str:
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(d)
    return str(e.value)


def with_(d: dict, path: str, value) -> dict:
    d = copy.deepcopy(d)
    keys = path.split(".")
    x = d
    for k in keys[:-1]:
        x = x[int(k)] if isinstance(x, list) else x[k]
    last = keys[-1]
    if isinstance(x, list):
        x[int(last)] = value
    elif value is None:
        x.pop(last, None)
    else:
        x[last] = value
    return d


CHOKE = {"kind": "modified_choke", "min_th": "40pkt", "max_th": "100pkt", "max_p": 0.1}


@pytest.mark.parametrize(
    "path, value, field, words",
    [
        ("workloads.0.load", 1.0, "workloads[0].load", "0 < load < 1"),
        ("workloads.0.load", 1.5, "workloads[0].load", "0 < load < 1"),
        ("workloads.0.load", 0, "workloads[0].load", "0 < load < 1"),
        ("workloads.0.load", -0.2, "workloads[0].load", "0 < load < 1"),
        ("network.aqm", dict(CHOKE, m=0), "network.aqm.m", "1 <= m <= buffer"),
        ("network.aqm", dict(CHOKE, m=251), "network.aqm.m", "1 <= m <= buffer (250pkt: 250 packets)"),
        ("network.aqm", dict(CHOKE, match="some"), "network.aqm.match", "all, any"),
        ("network.hosts", 0, "network.hosts", "a tree with no hosts"),
        ("network.hosts", [0, 0], "network.hosts", "a tree with no hosts"),
        ("workloads.0.sizes", {"kind": "uniform", "min": "50KB", "max": "10KB"}, "workloads[0].sizes.max", "smaller than min"),
        ("workloads.0.sizes", {"kind": "cdf", "points": [[1000, 0.5], [500, 1.0]]}, "workloads[0].sizes.points[1]", "not monotone"),
        ("workloads.0.sizes", {"kind": "cdf", "points": [[1000, 0.5], [5000, 0.9]]}, "workloads[0].sizes.points[1]", "not at 1"),
        ("workloads.0.sizes", {"kind": "cdf", "points": [[-5, 0], [5000, 1]]}, "workloads[0].sizes.points[0]", "negative"),
        ("workloads.0.sizes", {"kind": "cdf", "name": "websearch"}, "workloads[0].sizes.name", "web_search, data_mining"),
        ("workloads.0.link", "tor0->h2", "workloads[0].link", "no link"),
        ("workloads.0.mix", [{"protocol": "dctcp", "share": 0.5}], "workloads[0].mix", "add up to 0.5"),
        ("workloads.0.senders", ["h9"], "workloads[0].senders[0]", "not a host"),
        # every host a receiver: the default senders leave none, which had read as if senders = []
        # had been written (a fuzz run)
        ("workloads.0.receivers", ["h0", "h1", "h2"], "workloads[0].senders",
         "not given, and the default (every host but the receivers) leaves none"),
        ("network.bottleneck_hosts", ["h7"], "network.bottleneck_hosts[0]", "not a host of the tree"),
    ],
)
def test_bad_input_names_the_field(path, value, field, words):
    msg = error(with_(tree(**CHOKE), path, value))
    assert msg.startswith(f"{field}:"), msg
    assert words in msg, msg


def incast(**kw) -> dict:
    d = tree()
    d["network"]["hosts"] = [4, 1]
    d["flows"] = []
    d["workloads"] = [{"kind": "incast", "client": "h4", "protocol": "dctcp", **kw}]
    return d


def test_incast_errors_name_the_field():
    assert error(incast(n=0, total="1MB")).startswith("workloads[0].n: 0 servers; allowed n >= 1")
    msg = error(incast(n=3, total="2B"))
    assert msg.startswith("workloads[0].total:") and "total >= n" in msg, msg
    msg = error(incast(n=9, total="1MB"))
    assert msg.startswith("workloads[0].n:") and "only 4 hosts are free" in msg, msg
    msg = error(incast(servers=["h1", "h4"], total="1MB"))
    assert msg.startswith("workloads[0].servers[1]:") and "client" in msg, msg
    # Defaults: the first n free hosts; rounds 1, gap 0.
    sc = Scenario.from_dict(incast(n=3, total="1MB"))
    w = sc.to_engine_spec()["workloads"][0]
    assert (w["servers"], w["rounds"], w["gap_ps"], w["total_bytes"]) == (["h0", "h1", "h2"], 1, 0, 1_000_000)


def write_cdf(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "sizes.cdf"
    p.write_text(text)
    return p


@pytest.mark.parametrize(
    "text, words",
    [
        ("1000 0.2\n500 0.6\n2000 1\n", "line 2: (500, 0.6) after (1000, 0.2): the CDF is not monotone"),
        ("1000 0.2\n1500 0.1\n2000 1\n", "line 2"),
        ("# comment\n1000 0.2\n2000 0.9\n", "line 3: the CDF ends at 0.9, not at 1"),
        ("1000 20\n2000 100\n", "line 1: probability 20 is out of range; allowed [0, 1] (not percent)"),
        ("-10 0\n2000 1\n", "line 1: size -10 is negative"),
        ("1000 0.5 7\n", "line 1: expected two numbers"),
        ("1000 0.5\n2000 x\n", "line 2: '2000 x' is not two numbers"),
        ("# only a comment\n", "no points; a CDF file has lines 'size_bytes probability'"),
    ],
)
def test_malformed_cdf_file_is_refused_before_anything_runs(tmp_path, text, words):
    cdf = write_cdf(tmp_path, text)
    d = tree()
    d["workloads"][0]["sizes"] = {"kind": "cdf", "file": "sizes.cdf"}
    scen = tmp_path / "s.toml"
    scen.write_text(Scenario.from_dict(tree()).to_toml().replace(
        'sizes = { kind = "uniform", min = "10000B", max = "50000B" }', 'sizes = { kind = "cdf", file = "sizes.cdf" }'))
    assert 'file = "sizes.cdf"' in scen.read_text()
    with pytest.raises(ScenarioError) as e:
        load_scenario(scen)
    msg = str(e.value)
    assert msg.startswith("workloads[0].sizes.file:") and str(cdf) in msg and words in msg, msg
    # The CLI: exit 2, the message, no traceback, nothing written.
    out = tmp_path / "out"
    res = runner.invoke(app, ["run", str(scen), "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert "workloads[0].sizes.file" in res.output and "Traceback" not in res.output
    assert not out.exists()


def test_a_good_cdf_file_is_relative_to_the_scenario_and_kept_inline(tmp_path):
    write_cdf(tmp_path, "# bytes p\n1000 0\n1000 0.5\n20000 1\n")
    scen = tmp_path / "s.toml"
    scen.write_text(Scenario.from_dict(tree()).to_toml().replace(
        'sizes = { kind = "uniform", min = "10000B", max = "50000B" }', 'sizes = { kind = "cdf", file = "sizes.cdf" }'))
    sc = load_scenario(scen)
    assert sc.workloads[0].sizes.points == [[1000.0, 0.0], [1000.0, 0.5], [20000.0, 1.0]]
    assert "file" not in sc.to_toml()  # the written scenario is self-contained
    assert Scenario.from_toml_str(sc.to_toml()) == sc


def test_shipped_cdfs_have_the_means_of_protocols_md():
    # protocols.md §6: web search mean about 1.71 MB; data mining 5117 packets of 1460 B, about 7.47 MB.
    web, dm = (Sizes(kind="cdf", name=n).mean_bytes(1500, 40) for n in ("web_search", "data_mining"))
    assert web == pytest.approx(1.71e6, rel=0.005)
    assert dm == pytest.approx(5117 * 1460, rel=0.001)
    assert read_cdf(cdf_path("data_mining"))[1] == (1460.0, 0.5)  # half of all flows are one packet


def test_realised_load_and_fct_statistics():
    # Uniform 10-50 KB at 20 % of 1 Gbps for 2 s: lambda = 0.2e9 / (8 x 30 000 B) = 833 flows/s;
    # the realised load L = 8 sum(S) / (C T) of the compound Poisson sum has
    # sd = 8 sqrt(lambda T E[S^2]) / (C T) = 0.0052 (E[S^2] = 1.033e9 B^2). Allow 5 sd.
    d = tree(**CHOKE)
    d["run"] = {"duration": "2s", "warmup": "100ms", "seed": 4}
    res = simulate(d)
    w = res.workloads.iloc[0]
    lam, T, C = 0.2e9 / (8 * 30_000), 2.0, 1e9
    ES2 = (10_000**2 + 10_000 * 50_000 + 50_000**2) / 3
    sd = 8 * math.sqrt(lam * T * ES2) / (C * T)
    assert abs(w.realised_load - 0.2) < 5 * sd, (w.realised_load, sd)
    assert w.target_load == 0.2 and w.link == "tor1->h2" and w.window_s == 2.0
    # The statistics are what the flows table says (recomputed here directly).
    fs = res.fct_stats().set_index(["protocol", "bucket"])
    f = res.flows
    gen = f[np.isfinite(f.workload) & (f.start_s >= 0.1)]
    for proto in ("dctcp", "newreno"):
        g = gen[gen.protocol == proto]
        done = g.fct_s.dropna()
        row = fs.loc[(proto, "10KB-100KB")]
        assert row.flows == len(g) and row.finished == len(done)
        assert row.afct_s == pytest.approx(done.mean(), rel=1e-12)
        assert row.fct_p99_s == pytest.approx(np.percentile(done, 99), rel=1e-12)
        assert (g.slowdown.dropna() >= 1 - 1e-9).all()
    assert fs.loc[("all", "all")].flows == len(gen)
    # the summary carries them, labelled, and lists only the two [[flows]]
    s = res.summary()
    assert [x["flow"] for x in s["flows"]] == [0, 1]
    groups = {g["fct_group"]: g for g in s["fct_groups"]}
    assert groups["dctcp 10KB-100KB"]["afct_s"] == pytest.approx(fs.loc[("dctcp", "10KB-100KB")].afct_s)
    assert s["workloads"][0]["realised_load"] == pytest.approx(w.realised_load)


def test_realised_load_of_a_cdf_with_mass_below_one_byte():
    # A review: 90 % of the mass at 0 B (drawn as 1 B), the rest uniform on (0, 10] B. By hand the
    # drawn sizes have E[S] = 0.9 x 1 + 0.1 x 5.05 = 1.405 B (the segment rounds to 0..10 with mean 5,
    # and its first 5 % rounds to 0, raised to 1), not the CDF's 0.5 B: the rate divided by 0.5 B
    # had given 2.87 % of an offered 1 %. Here load 0.01 of 1 Gbps for 20 ms: lambda T = 0.01e9 x
    # 0.02 / (8 x 1.405) = 17 794 flows; E[S^2] = 0.9 + 0.1 x E[max(round(U),1)^2] (< 4.5 B^2), so the
    # realised load's relative sd is sqrt(E[S^2] / (lambda T)) / E[S] < 1.2 %. Allow 6 %.
    assert Sizes(kind="cdf", points=[[0, 0.9], [10, 1]]).mean_bytes(1500, 40) == pytest.approx(1.405, rel=1e-12)
    d = tree()
    d["flows"] = []
    d["workloads"] = [{"kind": "poisson", "load": 0.01, "sizes": {"kind": "cdf", "points": [[0, 0.9], [10, 1]]},
                       "protocol": "dctcp"}]
    d["run"] = {"duration": "20ms", "seed": 3}
    w = simulate(d).workloads.iloc[0]
    assert w.realised_load == pytest.approx(0.01, rel=0.06), w.realised_load


def test_a_workload_size_below_one_packet_is_refused_as_a_flow_size_is():
    # 0.5pkt is 730 B of payload, not "below 1 byte" (the message had said so); as a flow's size: give bytes.
    msg = error(with_(tree(), "workloads.0.sizes", {"kind": "fixed", "size": "0.5pkt"}))
    assert "workloads[0].sizes.size" in msg and "less than one packet" in msg and "100B" in msg
    assert Scenario.from_dict(with_(tree(), "workloads.0.sizes", {"kind": "fixed", "size": "1.5pkt"}))


def test_runs_are_bit_identical_per_seed_and_start_jitter_draws_from_the_seed(tmp_path):
    d = tree(**CHOKE)
    d["flows"][0]["start_jitter"] = "5ms"
    d["flows"][1]["start_jitter"] = "5ms"
    a, b = simulate(d), simulate(d)
    for t in ("flows", "ports", "workloads"):
        assert a.tables[t].equals(b.tables[t]), t
    # The engine draws each listed flow's start in [0, 5 ms) from the flow's stream: same seed, same starts.
    starts = a.flows.start_s.iloc[:2].tolist()
    assert all(0 <= s < 5e-3 for s in starts) and starts[0] != starts[1]
    assert simulate(with_(d, "run.seed", 3)).flows.start_s.iloc[:2].tolist() != starts
    # written and read back with the new tables
    a.to_dir(tmp_path / "r")
    back = Result.from_dir(tmp_path / "r")
    assert back.workloads.equals(a.workloads) and back.rounds.equals(a.rounds)


def test_fct_buckets():
    assert bucket_labels([10e3, 100e3, 1e6]) == ["<=10KB", "10KB-100KB", "100KB-1MB", ">1MB"]
    import pandas as pd

    flows = pd.DataFrame({"protocol": ["a", "a", "a", "b"], "size_bytes": [10e3, 10001, np.nan, 2e6],
                          "start_s": [1.0, 1.0, 1.0, 0.0], "fct_s": [1.0, np.nan, 5.0, 3.0], "slowdown": [2.0, np.nan, 1, 1]})
    st = fct_stats(flows, [10e3, 100e3], warmup_s=0.5).set_index(["protocol", "bucket"])
    # the long-lived flow (no size) and the flow started before warm-up are not counted; an empty
    # bucket has its row with 0 flows (a sweep's table then holds 0, not a missing value)
    assert list(st.index) == [("a", "<=10KB"), ("a", "10KB-100KB"), ("a", ">100KB"), ("a", "all"),
                              ("all", "<=10KB"), ("all", "10KB-100KB"), ("all", ">100KB"), ("all", "all")]
    assert (st.loc[("a", "10KB-100KB")].flows, st.loc[("a", "10KB-100KB")].finished) == (1, 0)
    assert math.isnan(st.loc[("a", "10KB-100KB")].afct_s)
    assert (st.loc[("a", ">100KB")].flows, st.loc[("a", ">100KB")].finished) == (0, 0)
    assert math.isnan(st.loc[("a", ">100KB")].slowdown_p99)
    # Each bucket over every protocol (a review: a sweep over the protocol had no common column
    # per bucket): the flows of both protocols in it, their statistics together.
    two = pd.DataFrame({"protocol": ["a", "a", "b", "b"], "size_bytes": [5e3, 5e3, 5e3, 50e3],
                        "start_s": [1.0] * 4, "fct_s": [1.0, 2.0, 4.0, 8.0], "slowdown": [1.0, 2.0, 4.0, 8.0]})
    st = fct_stats(two, [10e3, 100e3], warmup_s=0.5).set_index(["protocol", "bucket"])
    small = st.loc[("all", "<=10KB")]
    assert (small.flows, small.finished, small.afct_s, small.slowdown_p50) == (3, 3, 7.0 / 3, 2.0)
    assert st.loc[("all", "10KB-100KB")].flows == 1 and st.loc[("all", ">100KB")].flows == 0


def test_tree_example_runs_from_the_cli(tmp_path):
    out = tmp_path / "tree"
    ex = ROOT / "examples" / "coexist_tree.toml"
    d = load_scenario(ex).to_dict()
    d["run"]["duration"] = "300ms"
    d["run"]["warmup"] = "50ms"
    short = tmp_path / "tree.toml"
    short.write_text(Scenario.from_dict(d).to_toml())
    res = runner.invoke(app, ["run", str(short), "--out", str(out), "--wait-plots"])
    assert res.exit_code == 0, res.output
    assert "Flow completion times" in res.output and "realised" in res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["ports"][0]["port"] == "tor1->h2"
    assert (out / "workloads.parquet").exists() and (out / "queue.png").exists()


def test_fct_table_prints_the_overall_row_once():
    """A row over the same flows as the one row it sums is printed once (the summary keeps both):
    with one protocol its "all" row is the overall one; with one size bucket the protocol's "all"
    row is that bucket's. With two protocols the overall row is printed as well."""
    from rich.console import Console

    from dcsim.run import print_fct

    def group(name: str, flows: int) -> dict:
        return {"fct_group": name, "flows": flows, "finished": flows, "afct_s": 1e-3, "fct_p50_s": 1e-3,
                "fct_p99_s": 2e-3, "fct_p999_s": 2e-3, "slowdown_mean": 1.5, "slowdown_p50": 1.2,
                "slowdown_p99": 3.0, "slowdown_p999": 3.0}

    def printed(groups: list[dict]) -> list[str]:
        con = Console(record=True, width=200)
        print_fct({"fct_groups": groups}, con)
        return [line.split("│")[1].strip() for line in con.export_text().splitlines() if line.startswith("│")]

    one = [group("dctcp <=10KB", 3), group("dctcp 10KB-100KB", 1), group("dctcp all", 4), group("all", 4)]
    assert printed(one) == ["dctcp <=10KB", "dctcp 10KB-100KB", "dctcp all"]
    # one bucket: the protocol's "all" row is that bucket's too
    assert printed([group("dctcp <=10KB", 3), group("dctcp all", 3), group("all", 3)]) == ["dctcp <=10KB"]
    two = [group("dctcp <=10KB", 3), group("dctcp all", 3), group("newreno <=10KB", 2), group("newreno 1MB-10MB", 1),
           group("newreno all", 3), group("all", 6)]
    assert printed(two) == ["dctcp <=10KB", "newreno <=10KB", "newreno 1MB-10MB", "newreno all", "all"]
    # several traffic sources: a block each, then the row over all of them
    sources = [group("workload 0 (poisson): dctcp <=10KB", 5), group("workload 0 (poisson): dctcp 10KB-100KB", 2),
               group("workload 0 (poisson): dctcp all", 7), group("workload 0 (poisson): all", 7),
               group("workload 1 (incast): dctcp 10KB-100KB", 4), group("workload 1 (incast): dctcp all", 4),
               group("workload 1 (incast): all", 4), group("all", 11)]
    assert printed(sources) == ["workload 0 (poisson): dctcp <=10KB", "workload 0 (poisson): dctcp 10KB-100KB",
                                "workload 0 (poisson): dctcp all", "workload 1 (incast): dctcp 10KB-100KB", "all"]


def test_fct_table_says_when_few_flows_of_a_group_finished():
    """The statistics cover the finished flows; unfinished ones are the slow ones, so a group with
    under 90 % finished is named in the table's caption as biased low (a probe read ">10MB: 10
    flows, 1 finished, slowdown p99.9 1.45" with no word); 90 % of 10 finished is not."""
    from rich.console import Console

    from dcsim.run import print_fct

    def group(name: str, flows: int, finished: int) -> dict:
        return {"fct_group": name, "flows": flows, "finished": finished, "afct_s": 1e-3, "fct_p50_s": 1e-3,
                "fct_p99_s": 2e-3, "fct_p999_s": 2e-3, "slowdown_mean": 1.5, "slowdown_p50": 1.2,
                "slowdown_p99": 3.0, "slowdown_p999": 3.0}

    def caption(groups: list[dict]) -> str:
        con = Console(record=True, width=400)
        print_fct({"fct_groups": groups}, con)
        return " ".join(con.export_text().split())

    few = caption([group("dctcp <=10KB", 10, 10), group("dctcp >10MB", 10, 1), group("dctcp all", 20, 11),
                   group("all", 20, 11)])
    assert "under 90 % of the flows finished in dctcp >10MB, dctcp all: their statistics are biased low" in few, few
    assert "statistics over the finished flows" in few
    enough = caption([group("dctcp <=10KB", 10, 9), group("dctcp all", 10, 9), group("all", 10, 9)])
    assert "under 90 %" not in enough and "statistics over the finished flows" in enough, enough


def test_fct_stats_per_traffic_source():
    """Flows from several sources (an incast beside a Poisson workload, a finite [[flows]] entry)
    get a block of rows each and a last row over them all; the blocks' flows add up to it. One
    source keeps traffic "all" (the table as before)."""
    import pandas as pd

    flows = pd.DataFrame({"protocol": ["dctcp"] * 5, "size_bytes": [5e3, 50e3, 30e3, 30e3, 2e6],
                          "start_s": [0.0] * 5, "fct_s": [1e-4, 1e-3, 5e-3, np.nan, 1e-2],
                          "slowdown": [1.5, 2.0, 50.0, np.nan, 1.2], "workload": [0, 0, 1, 1, np.nan]})
    st = fct_stats(flows, [10e3, 100e3], 0.0, {0: "poisson", 1: "incast"})
    blocks = st[(st.protocol == "all") & (st.bucket == "all")]
    assert blocks.traffic.tolist() == ["[[flows]]", "workload 0 (poisson)", "workload 1 (incast)", "all"]
    assert blocks.flows.tolist() == [1, 2, 2, 5] and blocks.finished.tolist() == [1, 2, 1, 4]
    incast = st[(st.traffic == "workload 1 (incast)") & (st.bucket == "10KB-100KB")].iloc[0]
    assert (incast.flows, incast.finished, incast.slowdown_p50) == (2, 1, 50.0)
    one = fct_stats(flows[flows.workload == 0], [10e3, 100e3], 0.0, {0: "poisson"})
    # 3 buckets (">100KB" empty), dctcp all, the 3 buckets over all protocols, all
    assert set(one.traffic) == {"all"} and len(one) == 8


def test_an_incast_beside_background_traffic_is_reported_apart(tmp_path):
    """The summary names the incast's responses apart from the Poisson flows: as many as its
    servers times the rounds started (the definition of an incast round)."""
    d = {"network": {"topology": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 4, "host_link": "10Gbps",
                     "buffer": "300pkt", "aqm": {"kind": "threshold", "K": "65pkt"}},
         "workloads": [{"kind": "poisson", "load": 0.2, "sizes": {"kind": "fixed", "size": "20KB"}, "protocol": "dctcp",
                        "ect_acks": True},
                       {"kind": "incast", "client": "h0", "n": 6, "total": "600KB", "rounds": 3, "protocol": "dctcp",
                        "ect_acks": True}],
         "run": {"duration": "10ms", "seed": 2}}
    res = simulate(Scenario.from_dict(d))
    groups = {g["fct_group"]: g for g in res.summary()["fct_groups"]}
    rounds = len(res.rounds)
    assert groups["workload 1 (incast): all"]["flows"] == 6 * rounds > 0
    assert groups["workload 0 (poisson): all"]["flows"] + 6 * rounds == groups["all"]["flows"]
    path = tmp_path / "mixed.toml"
    path.write_text(Scenario.from_dict(d).to_toml())
    out = runner.invoke(app, ["run", "--no-plots", "-o", str(tmp_path / "o"), str(path)])
    assert out.exit_code == 0, out.output
    assert "workload 1 (incast): dctcp 10KB-100KB" in out.output


def test_a_cdf_file_with_more_points_than_allowed_is_refused_naming_the_bound(tmp_path, monkeypatch):
    # The bound is lowered here (MAX_CDF_POINTS); the file is refused when a point would pass it.
    import dcsim.scenario as scn

    p = tmp_path / "many.cdf"
    p.write_text("".join(f"{1000 * (i + 1)} {(i + 1) / 5}\n" for i in range(5)))
    assert len(scn.read_cdf(p)) == 5
    monkeypatch.setattr(scn, "MAX_CDF_POINTS", 4)
    with pytest.raises(ValueError, match=r"many\.cdf: more than 4 points; allowed at most 4"):
        scn.read_cdf(p)


def test_an_empty_size_bucket_is_a_zero_in_a_sweeps_row_not_a_missing_value():
    """Flows of 20 KB only: the <=10KB bucket is empty. Its flows and finished are 0 in the
    flattened summary a sweep's table holds (they were missing, so a mean over seeds skipped the
    runs without such flows and overstated the count: a probe); its percentiles are NaN, and the
    terminal table leaves the empty row out."""
    from dcsim.sweep.worker import flatten_summary

    d = {"network": {"topology": "leaf_spine", "leaves": 2, "spines": 1, "hosts_per_leaf": 2, "host_link": "10Gbps",
                     "buffer": "200pkt"},
         "workloads": [{"kind": "poisson", "load": 0.3, "sizes": {"kind": "fixed", "size": "20KB"}, "protocol": "dctcp"}],
         "run": {"duration": "3ms", "seed": 1}}
    res = simulate(Scenario.from_dict(d))
    row = flatten_summary(res.summary())
    assert row["fct_group[dctcp <=10KB].flows"] == 0 and row["fct_group[dctcp <=10KB].finished"] == 0
    p99 = row["fct_group[dctcp <=10KB].slowdown_p99"]
    assert p99 is None or math.isnan(p99)  # no value (JSON's null in summary.json)
    assert row["fct_group[dctcp 10KB-100KB].flows"] > 0
    from rich.console import Console

    from dcsim.run import print_fct

    con = Console(record=True, width=200)
    print_fct(res.summary(), con)
    assert "<=10KB" not in con.export_text()


def test_fct_table_marks_tail_percentiles_of_too_few_flows_as_rough():
    """A p99 of 10 finished flows is their largest but interpolated; a p99.9 needs 1 000 to be more
    than the largest of a few (a review read ">10MB: 1 flow, p50 = p99 = p99.9" with no caveat).
    Such cells carry a "~" and the caption says why; well-sampled ones are printed plainly."""
    from rich.console import Console

    from dcsim.run import print_fct

    def group(name: str, finished: int) -> dict:
        return {"fct_group": name, "flows": finished, "finished": finished, "afct_s": 1e-3, "fct_p50_s": 1e-3,
                "fct_p99_s": 2e-3, "fct_p999_s": 3e-3, "slowdown_mean": 1.5, "slowdown_p50": 1.2,
                "slowdown_p99": 3.5, "slowdown_p999": 4.5}

    con = Console(record=True, width=400)
    print_fct({"fct_groups": [group("dctcp <=10KB", 5_000), group("dctcp >10MB", 50), group("dctcp all", 5_050),
                              group("newreno all", 500), group("all", 5_550)]}, con)
    text = con.export_text()
    rows = {line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:-1]]
            for line in text.splitlines() if line.count("│") > 5}
    # columns: flows, finished, AFCT, p50, p99, p99.9, slowdown mean, p50, p99, p99.9
    assert rows["dctcp <=10KB"][4:6] == ["2.000", "3.000"] and rows["dctcp <=10KB"][8:10] == ["3.50", "4.50"], rows
    assert rows["dctcp >10MB"][4:6] == ["~2.000", "~3.000"] and rows["dctcp >10MB"][8:10] == ["~3.50", "~4.50"], rows
    assert rows["newreno all"][4:6] == ["2.000", "~3.000"], rows  # 500 flows: p99 fine, p99.9 rough
    caption = " ".join(text.split())
    assert "~: a p99 over fewer than 100 finished flows or a p99.9 over fewer than 1 000" in caption, caption


def _tree8(**run) -> dict:
    """8 hosts under one ToR at 10 Gbps (the review's network for the workload edges)."""
    return {"network": {"topology": "tree", "hosts": 8, "host_link": "10Gbps", "rtt": "20us", "buffer": "100pkt",
                        "aqm": {"kind": "threshold", "K": "20pkt"}},
            "run": {"duration": "5ms", "seed": 1, **run}}


def test_a_flow_1_ps_before_warm_up_is_not_counted_in_the_fcts():
    """The FCT statistics count flows that started at or after warm-up; a tolerance of 1 ps had
    counted one that started 1 ps before it, which the engine counts before warm-up (its packets
    are not among the post-warm-up counts: a review). Compared in whole picoseconds now."""
    d = _tree8(warmup="1ms")
    d["workloads"] = [{"kind": "trace", "protocol": "dctcp", "arrivals": [
        {"start": "0.999999998ms", "src": "h1", "dst": "h0", "size": "1KB"},
        {"start": "0.999999999ms", "src": "h2", "dst": "h0", "size": "1KB"},
        {"start": "1ms", "src": "h3", "dst": "h0", "size": "1KB"}]}]
    st = simulate(d).fct_stats()
    row = st[(st.protocol == "all") & (st.bucket == "all")].iloc[0]
    assert (row.flows, row.finished) == (1, 1), st


def test_the_fct_groups_are_the_scenarios_whatever_a_seed_draws():
    """An incast beside a Poisson workload that draws no flow in some seeds: those seeds had
    labelled the incast's rows "dctcp all" and the others "workload 0 (incast): dctcp all", so a
    sweep averaged each column over a subset of its seeds (a review). The sources and protocols
    come from the scenario now: the same labels in every seed, 0 flows where none came."""
    d = _tree8(duration="2ms")
    d["workloads"] = [
        {"kind": "incast", "client": "h0", "servers": ["h1", "h2"], "total": "20KB", "rounds": 5, "protocol": "dctcp"},
        {"kind": "poisson", "load": 0.3, "link": "tor0->h7", "sizes": {"kind": "cdf", "name": "web_search"},
         "senders": ["h3", "h4"], "receivers": ["h7"], "protocol": "dctcp"}]
    labels, poisson_flows = set(), []
    for seed in range(1, 6):
        d["run"]["seed"] = seed
        groups = {g["fct_group"]: g for g in simulate(copy.deepcopy(d)).summary()["fct_groups"]}
        labels.add(tuple(groups))
        poisson_flows.append(groups["workload 1 (poisson): all"]["flows"])
    assert len(labels) == 1 and "workload 0 (incast): dctcp all" in next(iter(labels)), labels
    assert 0 in poisson_flows and max(poisson_flows) > 0, poisson_flows  # the case the review found


def test_a_start_or_trace_flow_at_the_end_in_whole_picoseconds_is_said():
    """Times are compared as the engine does, in whole picoseconds: a trace flow at start + t =
    0.004999999999999999 s (float) is at 5 000 000 000 ps, the end: it does not run, and the
    warning says so (it had not); an incast's start that rounds to the end is refused as a
    permutation's was (it had run with no round)."""
    import warnings

    d = _tree8()
    d["workloads"] = [{"kind": "trace", "protocol": "dctcp", "start": "4us", "arrivals": [
        {"start": "0us", "src": "h1", "dst": "h0", "size": "1B"},
        {"start": "4996us", "src": "h1", "dst": "h0", "size": "1B"}]}]
    assert any("1 of the trace's 2 flows start at or after the end" in w for w in Scenario.from_dict(d).warnings())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert len(simulate(d).flows) == 1
    d["workloads"] = [{"kind": "incast", "client": "h0", "servers": ["h1"], "total": "1KB",
                       "start": "4.9999999999999ms", "protocol": "dctcp"}]
    with pytest.raises(ScenarioError, match=r"^workloads\[0\]\.start: 4\.9999999999999ms is not before run\.duration = "
                                            r"5ms in the engine's whole picoseconds"):
        Scenario.from_dict(d)


def test_a_traces_arrival_window_starts_at_its_start():
    """window_s is the part of a workload's arrival window [start, end) that has passed: a trace
    starting at 1 ms of a 3 ms run had 3 ms (the engine took its window from 0: a review)."""
    d = _tree8(duration="3ms")
    d["workloads"] = [{"kind": "trace", "protocol": "dctcp", "start": "1ms",
                       "arrivals": [{"start": "0us", "src": "h1", "dst": "h0", "size": "10KB"}]},
                      {"kind": "incast", "client": "h0", "servers": ["h2", "h3"], "total": "20KB", "start": "0.9ms",
                       "protocol": "dctcp"}]
    w = simulate(d).workloads
    assert w["window_s"].tolist() == pytest.approx([2e-3, 2.1e-3], rel=1e-12)


def test_the_printed_fct_table_shows_a_row_over_the_same_flows_once():
    """`dcsim run`'s FCT table prints a row over the same flows as another once: the buckets over
    all protocols ("all <=10KB") only beside two or more protocols with flows in two or more
    buckets (a review: two protocols in one bucket printed "all <=10KB" beside "all", the same 4
    flows twice)."""
    import io

    import pandas as pd
    from rich.console import Console

    from dcsim.result import fct_group_label
    from dcsim.run import print_fct

    def printed(flows: pd.DataFrame) -> list[str]:
        st = fct_stats(flows, [10e3, 100e3], 0.0)
        groups = [{"fct_group": fct_group_label(r), **{k: r[k] for k in st.columns if k not in ("traffic", "protocol", "bucket")}}
                  for r in st.to_dict("records")]
        con = Console(file=io.StringIO(), width=300, color_system=None)
        print_fct({"fct_groups": groups}, con)
        return [line.split("│")[1].strip() for line in con.file.getvalue().splitlines() if line.count("│") > 2]

    def flows(protocols, sizes):
        n = len(protocols)
        return pd.DataFrame({"protocol": protocols, "size_bytes": sizes, "start_s": [0.0] * n,
                             "fct_s": [1e-3 * (i + 1) for i in range(n)], "slowdown": [1.0 + i for i in range(n)]})

    one_bucket = printed(flows(["dctcp", "dctcp", "newreno", "newreno"], [5e3] * 4))
    assert "all <=10KB" not in one_bucket and "all" in one_bucket and "dctcp <=10KB" in one_bucket
    two_buckets = printed(flows(["dctcp", "dctcp", "newreno", "newreno"], [5e3, 50e3, 5e3, 50e3]))
    assert {"all <=10KB", "all 10KB-100KB", "all"} <= set(two_buckets)
    one_protocol = printed(flows(["dctcp"] * 4, [5e3, 50e3, 5e3, 50e3]))
    assert not [r for r in one_protocol if r.startswith("all ")]
