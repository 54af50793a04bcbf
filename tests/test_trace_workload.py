"""Trace workloads ([[workloads]] kind = "trace"): flows replayed from a list or a file (as users
of HPCC's ns-3 fork or Parsimon bring a flow trace). Expected values come from the trace itself
(start times, sizes), from the ideal FCT on an empty network, and from binomial statistics for
the classes' shares."""

from __future__ import annotations

import json
import math
import numpy as np
import pandas as pd
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dcsim import simulate
from dcsim.cli import app
from dcsim.scenario import Scenario, ScenarioError, load_scenario

runner = CliRunner()


def fabric(arrivals=None, **workload) -> dict:
    """2 leaves x 2 hosts at 10 Gbps, 2 spines, 1 us links; a DCTCP trace with ECT ACKs."""
    w = {"kind": "trace", "protocol": "dctcp", "ect_acks": True, **workload}
    if arrivals is not None:
        w["arrivals"] = arrivals
    return {"network": {"topology": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 2,
                        "host_link": "10Gbps", "buffer": "300pkt", "aqm": {"kind": "threshold", "K": "65pkt"}},
            "workloads": [w], "run": {"duration": "5ms", "seed": 1}}


ARRIVALS = [{"start": "100us", "src": "h0", "dst": "h3", "size": "64KB"},
            {"start": "0s", "src": "h1", "dst": "h2", "size": "1000B"},
            {"start": "2ms", "src": "h2", "dst": "h0", "size": "10pkt"},
            {"start": "20ms", "src": "h3", "dst": "h1", "size": "5B"}]


def test_trace_flows_start_at_their_times_with_their_sizes():
    """Each flow starts at its listed time (in time order, whatever the listed order) between its
    hosts with its size (10pkt = 10 x 1460 B of payload); one due after the end of the run does
    not start and is warned about; all others finish, none faster than on an empty network, and
    the one-packet flow alone in the fabric takes exactly its ideal FCT."""
    sc = Scenario.from_dict(fabric(ARRIVALS))
    assert any("1 of the trace's 4 flows start at or after the end" in w for w in sc.warnings())
    res = simulate(sc)
    f = res.flows
    assert f["start_s"].tolist() == [0.0, 100e-6, 2e-3]
    assert list(zip(f["src"].astype(str), f["dst"].astype(str))) == [("h1", "h2"), ("h0", "h3"), ("h2", "h0")]
    assert f["size_bytes"].tolist() == [1000, 64000, 14600]
    assert np.isfinite(f["fct_s"]).all() and (f["slowdown"] >= 1 - 1e-12).all()
    assert math.isclose(f["slowdown"].iloc[0], 1.0, rel_tol=1e-12)
    w = res.summary()["workloads"][0]
    assert (w["kind"], w["flows"], w["arrivals"], w["bytes"], w["delivered_frac"]) == ("trace", 3, 4, 79600, 1.0)
    # A trace's load refers to no link: the workloads row says so with NaN, not a rate of 0 bit/s.
    row = res.workloads.iloc[0]
    assert row["link"] == "" and math.isnan(row["link_bps"]) and math.isnan(row["target_load"])


def test_a_trace_file_is_relative_to_the_scenario_and_kept_inline(tmp_path, monkeypatch):
    """The file is read when the scenario is loaded (plain numbers: seconds and bytes; a header,
    commas and comments allowed) and the scenario written with the run holds its flows, so it
    reproduces the run without the file."""
    d = tmp_path / "exp"
    d.mkdir()
    (d / "flows.csv").write_text("start,src,dst,size\n# seconds, bytes\n0.0001, h0, h3, 64000\n0 h1 h2 1000\n"
                                 "2ms h2 h0 10pkt\n0.02 h3 h1 5\n")
    (d / "trace.toml").write_text(
        '[network]\ntopology = "leaf_spine"\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\nhost_link = "10Gbps"\n'
        'buffer = "300pkt"\naqm = { kind = "threshold", K = "65pkt" }\n\n[[workloads]]\nkind = "trace"\n'
        'file = "flows.csv"\nprotocol = "dctcp"\nect_acks = true\n\n[run]\nduration = "5ms"\nseed = 1\n')
    monkeypatch.chdir(tmp_path)
    sc = load_scenario(d / "trace.toml")
    inline = Scenario.from_dict(fabric(ARRIVALS))
    assert sc.to_engine_json() == inline.to_engine_json()
    again = Scenario.from_toml_str(sc.to_toml())
    assert again.to_engine_json() == sc.to_engine_json() and "file" not in sc.to_toml()


def test_set_gives_another_trace_file_where_the_scenarios_own_is_missing(tmp_path, monkeypatch):
    """`dcsim run --set workloads[0].file=...` (relative to the current directory, as any path
    argument) is made to the file's tables before they are validated: the scenario's own trace
    file need not exist. Before, the file was validated first and the run refused for it."""
    d = tmp_path / "exp"
    d.mkdir()
    (d / "trace.toml").write_text(Scenario.from_dict(fabric(ARRIVALS)).to_toml().replace(
        "arrivals = [", 'file = "gone.csv"\nxarrivals = [', 1).replace("xarrivals", "# arrivals"))
    (tmp_path / "mine.csv").write_text("0.0001 h0 h3 64000\n")
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["run", str(d / "trace.toml"), "--no-plots", "-o", str(tmp_path / "out"),
                              "--set", "workloads[0].file=mine.csv"])
    assert res.exit_code == 0, res.output
    assert load_scenario(tmp_path / "out" / "scenario.toml").workloads[0].arrivals == [
        {"start": "0.0001s", "src": "h0", "dst": "h3", "size": "64000B"}]
    res = runner.invoke(app, ["run", str(d / "trace.toml"), "--no-plots", "-o", str(tmp_path / "out2")])
    assert res.exit_code == 2 and "gone.csv: cannot read the trace file" in " ".join(res.output.split())


def test_changes_made_before_validation_equal_a_replace_after_it(tmp_path):
    """load_scenario(path, changes) is the scenario load_scenario(path).replace(changes) gives,
    protocol switches (the old protocol's options dropped) included; a JSON scenario's files are
    relative to it, as a TOML one's."""
    from pathlib import Path as P

    demo = P(__file__).resolve().parent.parent / "examples" / "dctcp_dumbbell.toml"
    for changes in ({"network.aqm.K": "40pkt", "run.seed": 7}, {"flows[0].protocol": "newreno"},
                    {"flows[0].protocol": "dx", "metrics.max_memory": "2GB"}):
        assert load_scenario(demo, changes) == load_scenario(demo).replace(changes), changes
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "flows.csv").write_text("0.0001 h0 h3 64000\n")
    (tmp_path / "sub" / "t.json").write_text(json.dumps(fabric(None, file="flows.csv")))
    assert len(load_scenario(tmp_path / "sub" / "t.json").workloads[0].arrivals) == 1


def test_a_trace_or_cdf_file_saved_by_a_spreadsheet_reads_as_the_same_data(tmp_path):
    """A CSV saved by a spreadsheet starts with a UTF-8 byte-order mark and ends its lines with
    CR LF: the same flows (and CDF points) as the plain file, not 'line 1: cannot parse
    '\\ufeffstart''."""
    from dcsim.scenario import read_cdf, read_trace

    text = "start,src,dst,size\n0.0001,h0,h3,64000\n2ms,h1,h2,10pkt\n"
    (tmp_path / "plain.csv").write_text(text)
    (tmp_path / "excel.csv").write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    assert read_trace(tmp_path / "excel.csv") == read_trace(tmp_path / "plain.csv")
    assert len(read_trace(tmp_path / "excel.csv")) == 2  # the header was seen as one
    cdf = "1000 0\n2000 0.5\n20000 1\n"
    (tmp_path / "plain.cdf").write_text(cdf)
    (tmp_path / "excel.cdf").write_bytes(b"\xef\xbb\xbf" + cdf.replace("\n", "\r\n").encode())
    assert read_cdf(tmp_path / "excel.cdf") == read_cdf(tmp_path / "plain.cdf")


@pytest.mark.parametrize("text, words", [
    ("0 h0 h9 100\n", ["line 1", "dst", "'h9' is not a host"]),
    ("start,src,dst,size\n0 h0 h1\n", ["line 2", "expected 'start src dst size'"]),
    ("0 h0 h1 -5\n", ["line 1", "size", "out of range"]),
    ("x h0 h1 5\n", ["line 1", "start", "cannot parse 'x'"]),
    ("0 h0 h0 5\n", ["line 1", "also the source"]),
    ("# nothing\n", ["no flows"]),
    ("0 h0 h1 5.5\n", ["line 1", "whole number of bytes"]),
    ("0 h0 h1 5\n1e10 h0 h1 5\n", ["line 2", "start", "out of range", "at most 1e+06 s"]),
])
def test_a_bad_trace_file_is_named_with_its_line_before_anything_runs(tmp_path, text, words):
    (tmp_path / "flows.csv").write_text(text)
    path = tmp_path / "t.toml"
    path.write_text(Scenario.from_dict(fabric(ARRIVALS)).to_toml().replace(
        "arrivals = [", 'file = "flows.csv"\nxarrivals = [', 1).replace("xarrivals", "# arrivals"))
    res = runner.invoke(app, ["run", str(path), "--no-plots", "-o", str(tmp_path / "out")])
    assert res.exit_code == 2 and "Traceback" not in res.output, res.output
    assert "workloads[0].file" in res.output and all(w in res.output for w in words), res.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("arrivals, field, words", [
    ([{"start": "1us", "src": "h0", "dst": "h1"}], "workloads[0].arrivals[0]", ["missing size"]),
    ([{"start": "1", "src": "h0", "dst": "h1", "size": "5B"}], "workloads[0].arrivals[0].start", ["no unit"]),
    ([], "workloads[0].arrivals", ["empty"]),
    ([{"start": "1us", "src": "h0", "dst": "h1", "size": "0B"}], "workloads[0].arrivals[0].size", ["out of range"]),
    ([{"start": "1us", "src": "h0", "dst": "h9", "size": "5B"}], "workloads[0].arrivals[0].dst", ["not a host"]),
    ([{"start": "-1us", "src": "h0", "dst": "h1", "size": "5B"}], "workloads[0].arrivals[0].start", [">= 0 s"]),
    # beyond every time a scenario may hold (the engine's clock): not a JSON error about u64
    ([{"start": "1e10s", "src": "h0", "dst": "h1", "size": "5B"}], "workloads[0].arrivals[0].start",
     ["out of range", "at most 1e+06 s"]),
])
def test_bad_inline_arrivals_name_the_field(arrivals, field, words):
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(fabric(arrivals))
    assert field in str(e.value) and all(w in str(e.value) for w in words), str(e.value)


def test_file_and_arrivals_and_other_kinds_parameters_are_refused():
    with pytest.raises(ScenarioError, match=r"workloads\[0\]\.file: give the trace as file"):
        Scenario.from_dict(fabric(ARRIVALS, file="x.csv"))
    with pytest.raises(ScenarioError, match=r"workloads\[0\]\.load: not a parameter of a trace workload"):
        Scenario.from_dict(fabric(ARRIVALS, load=0.5))
    d = fabric(None)
    d["workloads"][0] = {"kind": "poisson", "load": 0.2, "sizes": {"kind": "fixed", "size": "10KB"},
                         "protocol": "dctcp", "arrivals": ARRIVALS}
    with pytest.raises(ScenarioError, match=r"workloads\[0\]\.arrivals: not a parameter of a poisson workload"):
        Scenario.from_dict(d)


def test_a_mix_draws_each_flows_class_by_share_from_the_seed():
    """400 one-packet flows, mix DCTCP / NewReno-ECN 0.5 / 0.5: the DCTCP count is binomial(400,
    0.5), within 5 sd (5 x 10 = 50) of 200; the same seed gives the same classes, bit for bit."""
    arr = [{"start": f"{10 * i}us", "src": f"h{i % 4}", "dst": f"h{(i + 1) % 4}", "size": "1000B"} for i in range(400)]
    d = fabric(arr)
    del d["workloads"][0]["protocol"], d["workloads"][0]["ect_acks"]
    d["workloads"][0]["mix"] = [{"protocol": "dctcp", "share": 0.5, "ect_acks": True},
                                {"protocol": "newreno", "ecn": True, "share": 0.5, "ect_acks": True}]
    a, b = simulate(Scenario.from_dict(d)), simulate(Scenario.from_dict(d))
    n = int((a.flows["protocol"] == "dctcp").sum())
    assert abs(n - 200) <= 50, n
    assert a.flows.equals(b.flows)
    d["run"]["seed"] = 2
    assert not simulate(Scenario.from_dict(d)).flows["protocol"].equals(a.flows["protocol"])


def test_a_trace_runs_on_two_partitions():
    """Split by leaves, each world replays the same trace: every flow starts at its time and
    finishes, as in one world."""
    arr = [{"start": f"{50 * i}us", "src": f"h{i % 4}", "dst": f"h{(i + 2) % 4}", "size": "30KB"} for i in range(40)]
    d = fabric(arr)
    one = simulate(Scenario.from_dict(d))
    d["run"]["partitions"] = 2
    two = simulate(Scenario.from_dict(d))
    for r in (one, two):
        assert len(r.flows) == 40 and np.isfinite(r.flows["fct_s"]).all()
    assert sorted(two.flows["start_s"]) == sorted(one.flows["start_s"])


def test_another_file_replaces_what_the_scenario_holds(tmp_path):
    """--set workloads[0].file=... (Scenario.replace) reads the new file in place of the flows the
    scenario holds from its first file, and a CDF's file in place of its points; on the CLI a
    relative path is the shell's (cwd)."""
    (tmp_path / "other.csv").write_text("0 h0 h3 5000\n1ms h1 h2 7000\n")
    sc = Scenario.from_dict(fabric(ARRIVALS)).replace({"workloads[0].file": str(tmp_path / "other.csv")})
    assert [a["size"] for a in sc.workloads[0].arrivals] == ["5000B", "7000B"]
    (tmp_path / "s.cdf").write_text("1000 0\n5000 1\n")
    d = fabric(None)
    d["workloads"][0] = {"kind": "poisson", "load": 0.2, "protocol": "dctcp", "ect_acks": True,
                         "sizes": {"kind": "cdf", "points": [[10, 0], [20, 1]]}}
    sc = Scenario.from_dict(d).replace({"workloads[0].sizes.file": str(tmp_path / "s.cdf")})
    assert sc.workloads[0].sizes.points == [[1000.0, 0.0], [5000.0, 1.0]]
    path = tmp_path / "t.toml"
    path.write_text(Scenario.from_dict(fabric(ARRIVALS)).to_toml())
    res = runner.invoke(app, ["run", str(path), "--no-plots", "-o", str(tmp_path / "out"),
                              "--set", f"workloads[0].file={tmp_path / 'other.csv'}"])
    assert res.exit_code == 0, res.output
    assert "trace of 2 flows" in res.output


def test_a_workloads_flows_replayed_as_a_trace_give_the_same_run_bit_for_bit(tmp_path):
    """A Poisson run's generated flows, written as a trace file and replayed (same network,
    protocol and seed), start at the same picoseconds between the same hosts with the same sizes,
    take the same ECMP paths and complete at the same times: the trace generator adds nothing of
    its own to the physics."""
    d = {"network": {"topology": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 4, "host_link": "10Gbps",
                     "buffer": "300pkt", "aqm": {"kind": "threshold", "K": "65pkt"}},
         "workloads": [{"kind": "poisson", "load": 0.4, "sizes": {"kind": "cdf", "name": "web_search"},
                        "protocol": "dctcp", "ect_acks": True}],
         "run": {"duration": "10ms", "seed": 3}}
    a = simulate(Scenario.from_dict(d))
    path = a.write_trace(tmp_path / "replay.csv")
    assert len(a.trace()) == len(a.flows) > 10
    d["workloads"] = [{"kind": "trace", "file": str(path), "protocol": "dctcp", "ect_acks": True}]
    b = simulate(Scenario.from_dict(d))
    cols = ["src", "dst", "start_s", "size_bytes", "fct_s", "slowdown", "path", "sent_pkts_whole_run"]
    assert a.flows[cols].equals(b.flows[cols])


def test_a_mixed_workload_s_trace_names_each_flow_s_protocol_and_replays_exactly(tmp_path):
    """A trace file of a mix names each flow's protocol (a fifth column), and a replay with the
    same mix runs each flow as the class of its protocol: the same flows table, bit for bit. Before
    the column, the replay drew each flow's class afresh by the shares (a probe of
    examples/websearch.toml's 50/50 mix: 57 % of the flows kept their protocol, and the FCTs
    differed). One protocol: no column, no warning. Two classes of one protocol with other options
    cannot be told apart by a file: a warning says so."""
    import warnings

    from dcsim import ScenarioWarning

    mix = [{"protocol": "dctcp", "share": 0.5}, {"protocol": "newreno", "ecn": True, "share": 0.5}]
    d = {"network": {"topology": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 4, "host_link": "10Gbps",
                     "buffer": "300pkt", "aqm": {"kind": "threshold", "K": "65pkt"}},
         "workloads": [{"kind": "poisson", "load": 0.4, "sizes": {"kind": "cdf", "name": "web_search"}, "mix": mix}],
         "run": {"duration": "10ms", "seed": 3}}
    a = simulate(Scenario.from_dict(d))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        path = a.write_trace(tmp_path / "replay.csv")
    lines = path.read_text().splitlines()
    assert lines[0] == "start,src,dst,size,protocol"
    assert {ln.rsplit(",", 1)[1] for ln in lines[1:]} == {"dctcp", "newreno"}
    d["workloads"] = [{"kind": "trace", "file": str(path), "mix": mix}]
    b = simulate(Scenario.from_dict(d))
    assert len(a.flows) > 10
    pd.testing.assert_frame_equal(a.flows, b.flows, check_exact=True)
    # The same file with the mix's classes in the other order: each flow still gets its protocol.
    d["workloads"][0]["mix"] = mix[::-1]
    c = simulate(Scenario.from_dict(d))
    pd.testing.assert_frame_equal(a.flows, c.flows, check_exact=True)
    # A replay whose transport lacks a protocol the file names is refused, naming the line.
    d["workloads"][0] = {"kind": "trace", "file": str(path), "protocol": "dctcp"}
    first = next(n for n, ln in enumerate(lines, start=1) if ln.endswith(",newreno"))
    with pytest.raises(ValueError, match=rf"workloads\[0\]\.file: .*replay\.csv line {first}: protocol: 'newreno' is "
                                         r"not a protocol of this workload \(dctcp\)"):
        Scenario.from_dict(d)
    single = simulate(Scenario.from_dict({**d, "workloads": [{**d["workloads"][0], "file": None,
                                                              "kind": "poisson", "load": 0.4,
                                                              "sizes": {"kind": "cdf", "name": "web_search"}}]}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        one = single.write_trace(tmp_path / "one.csv")  # one protocol: exact, no warning, no column
    assert one.read_text().splitlines()[0] == "start,src,dst,size"
    # Two classes of one protocol with other options (a review: their lines had named no protocol,
    # and 63 of 179 DCTCP flows replayed as NewReno): each flow keeps its protocol, the class among
    # that protocol's is drawn again, and a warning says the replay is not exact.
    alike = [{"protocol": "dctcp", "share": 0.3}, {"protocol": "dctcp", "g": 0.25, "share": 0.3},
             {"protocol": "newreno", "ecn": True, "share": 0.4}]
    d["workloads"] = [{"kind": "poisson", "load": 0.4, "sizes": {"kind": "cdf", "name": "web_search"}, "mix": alike}]
    e = simulate(Scenario.from_dict(d))
    with pytest.warns(ScenarioWarning, match=r"^write_trace: workloads\[0\]\.mix\[0\], workloads\[0\]\.mix\[1\] run dctcp "
                                             r"with different options; .* keeps each of these flows' protocol"):
        e.write_trace(tmp_path / "alike.csv")
    assert all(ln.count(",") == 4 for ln in (tmp_path / "alike.csv").read_text().splitlines())
    d["workloads"] = [{"kind": "trace", "file": str(tmp_path / "alike.csv"), "mix": alike}]
    f = simulate(Scenario.from_dict(d))
    assert len(e.flows) > 10 and f.flows["protocol"].tolist() == e.flows["protocol"].tolist()
    # Two classes alike in every option (one spelling a default out) are one class to a replay: no
    # warning, and the replay is exact (a review: it had been refused as ambiguous).
    same = [{"protocol": "dctcp", "share": 0.5}, {"protocol": "newreno", "ecn": True, "share": 0.3},
            {"protocol": "dctcp", "g": 0.0625, "share": 0.2}]
    d["workloads"] = [{"kind": "poisson", "load": 0.4, "sizes": {"kind": "cdf", "name": "web_search"}, "mix": same}]
    g = simulate(Scenario.from_dict(d))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g.write_trace(tmp_path / "same.csv")
    d["workloads"] = [{"kind": "trace", "file": str(tmp_path / "same.csv"), "mix": same}]
    pd.testing.assert_frame_equal(g.flows, simulate(Scenario.from_dict(d)).flows, check_exact=True)


def test_a_trace_whose_host_names_cannot_be_fields_is_refused_not_written_unreadable(tmp_path):
    """A graph's hosts may be named with a space or a comma; such a trace file would read back as
    other fields (a line of five), so write_trace refuses it, naming the host, and writes nothing."""
    link = {"rate": "10Gbps", "delay": "1us", "buffer": "100pkt"}
    d = {"network": {"topology": "graph", "nodes": [{"name": "rack 1", "kind": "host"}, {"name": "x,y", "kind": "host"},
                                                    {"name": "s1", "kind": "switch"}],
                     "links": [{"a": "rack 1", "b": "s1", **link}, {"a": "x,y", "b": "s1", **link}]},
         "workloads": [{"kind": "poisson", "load": 0.3, "link": "hosts", "sizes": {"kind": "fixed", "size": "10KB"},
                        "protocol": "dctcp", "senders": ["rack 1", "x,y"], "receivers": ["rack 1", "x,y"]}],
         "run": {"duration": "200us", "seed": 1}}
    res = simulate(Scenario.from_dict(d))
    assert len(res.trace()) > 0
    with pytest.raises(ValueError, match=r"host 'rack 1' cannot be a field of a trace file"):
        res.write_trace(tmp_path / "t.csv")
    assert not (tmp_path / "t.csv").exists()


def test_trace_size_is_bounded_before_it_is_read(tmp_path, monkeypatch):
    """A trace file larger than MAX_DATA_FILE_BYTES is refused before it is read, and one with
    more than MAX_TRACE_FLOWS flows when the next line would pass it (bounds lowered here)."""
    import dcsim.scenario as scn

    (tmp_path / "flows.csv").write_text("".join(f"{i}us h0 h1 100\n" for i in range(5)))
    d = fabric(None, file=str(tmp_path / "flows.csv"))
    monkeypatch.setattr(scn, "MAX_DATA_FILE_BYTES", 20)
    with pytest.raises(ScenarioError, match=r"workloads\[0\]\.file: .* bytes; allowed at most 20 bytes"):
        Scenario.from_dict(d)
    monkeypatch.setattr(scn, "MAX_DATA_FILE_BYTES", 1 << 20)
    monkeypatch.setattr(scn, "MAX_TRACE_FLOWS", 3)
    with pytest.raises(ScenarioError, match=r"more than 3 flows; allowed at most 3"):
        Scenario.from_dict(d)


@settings(max_examples=300, deadline=None)
@given(start=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10, 10**9)),
       size=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10, 10**12)),
       same=st.booleans())
def test_a_plain_trace_line_is_its_numbers_or_a_named_error(start, size, same):
    """A trace file's line of plain numbers (the common case) is the flow the format defines: start
    in seconds from 0 to every scenario time's bound (10^6 s), written back exactly ("<repr>s"),
    size in whole bytes >= 1 ("<n>B"); any other value is the ValueError of the general checks,
    naming the field."""
    from dcsim.scenario import MAX_TIME_S, TraceFlows, _arrival

    s_text, z_text, dst = repr(start), repr(size), "h0" if same else "h1"
    t, b = float(start), float(size)
    ok_start = math.isfinite(t) and 0 <= t <= MAX_TIME_S
    ok_size = math.isfinite(b) and b >= 1 and b.is_integer()
    if ok_start and ok_size and not same:
        r = _arrival(s_text, "h0", dst, z_text, plain=True)
        assert r == (t, "h0", "h1", b, False, None, None, None)  # a plain number's written form is its exact one
        flows = TraceFlows()
        flows.add(r)
        assert flows.written(0) == {"start": f"{t!r}s", "src": "h0", "dst": "h1", "size": f"{int(b)}B"}
        assert (flows.start_text, flows.size_text) == ({}, {})  # kept as numbers only
    else:
        field = "start" if not ok_start else "dst" if same else "size"
        with pytest.raises(ValueError, match=f"^{field}: "):
            _arrival(s_text, "h0", dst, z_text, plain=True)


def _trace_file(tmp_path, lines: list[str]) -> dict:
    (tmp_path / "flows.csv").write_text("".join(line + "\n" for line in lines))
    return fabric(None, file=str(tmp_path / "flows.csv"))


def test_a_trace_reads_as_the_read_only_list_of_flows_it_was_written_with(tmp_path):
    """The flows are kept by columns but read as the tables written: units as given ("2ms",
    "10pkt") or the exact form of a plain number ("0.0001s", "64000B"); indexing (also negative),
    slices and iteration; an in-place change is refused naming the flow and pointing to replace();
    equality, pickling and deep copies keep every flow."""
    import copy
    import pickle

    sc = Scenario.from_dict(_trace_file(tmp_path, ["0.0001 h0 h3 64000", "2ms h2 h0 10pkt", "0 h1 h2 1000B"]))
    tr = sc.workloads[0].arrivals
    written = [{"start": "0.0001s", "src": "h0", "dst": "h3", "size": "64000B"},
               {"start": "2ms", "src": "h2", "dst": "h0", "size": "10pkt"},
               {"start": "0.0s", "src": "h1", "dst": "h2", "size": "1000B"}]
    assert len(tr) == 3 and list(tr) == written and tr == written and tr[-1] == written[2] and tr[1:] == written[1:]
    assert sc.to_dict()["workloads"][0]["arrivals"] == written
    with pytest.raises(IndexError, match=r"workloads\[0\]\.arrivals\[3\]: the trace has 3 flows"):
        tr[3]
    with pytest.raises(TypeError, match=r"workloads\[0\]\.arrivals\[1\]: a table of a validated scenario cannot be "
                                        r"changed in place.*sc\.replace\("):
        tr[1]["size"] = "1MB"
    for other in (pickle.loads(pickle.dumps(sc)), copy.deepcopy(sc), Scenario.from_toml_str(sc.to_toml())):
        assert other == sc and list(other.workloads[0].arrivals) == written
        assert other.to_engine_json() == sc.to_engine_json()
    assert Scenario.from_dict(fabric(tr)) == sc  # a trace's flows given to another scenario, as they read
    assert Scenario.from_dict(fabric(written[:2])) != Scenario.from_dict(fabric(written[:1] + written[2:]))


def test_a_trace_holds_a_few_bytes_a_flow(tmp_path):
    """A loaded trace keeps its flows by columns: start (8 B), hosts (2 x 4 B), size (8 B) and
    its unit (1 B), 25 B a flow, or up to ~32 B with the arrays' growth (CPython over-allocates
    by ~1/8). Bound: 64 B a flow, the growth of what the scenario holds from 2 000 to 22 000 flows
    (traced allocations, so the fixed part of a scenario cancels). A table per flow, as the
    flows were kept before, held 620 B a flow by this measure."""
    import gc
    import random
    import tracemalloc

    rng = random.Random(3)

    def held(n: int) -> int:
        d = _trace_file(tmp_path, [f"{rng.random() * 1e-3!r} h{i % 4} h{(i + 1 + i // 4 % 3) % 4} {rng.randint(1, 10**6)}"
                                   for i in range(n)])
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            sc = Scenario.from_dict(d)
            gc.collect()
            return tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
            assert len(sc.workloads[0].arrivals) == n

    held(10)  # the first scenario of a process builds pydantic's validators (~0.5 MB, kept)
    per_flow = (held(22_000) - held(2_000)) / 20_000
    assert 25 <= per_flow <= 64, f"{per_flow:.1f} B a flow"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.floats(0, 1e-2), st.integers(0, 10_000).map(lambda u: f"{u}us")),
                          st.integers(0, 3), st.integers(1, 3),
                          st.one_of(st.integers(1, 10**7), st.integers(1, 500).map(lambda k: f"{k}KB"),
                                    st.integers(1, 20).map(lambda k: f"{k}pkt"))),
                min_size=1, max_size=30))
def test_a_trace_file_and_its_flows_written_inline_are_the_same_scenario(tmp_path_factory, rows):
    """Any trace file (plain numbers, times and sizes with units) loads to the scenario that its
    flows written inline give, the scenario written back (to_toml) loads to it again, and the
    engine gets each flow's start in whole picoseconds and its payload bytes (a packet: 1460 B)."""
    tmp = tmp_path_factory.mktemp("trace")
    lines = [f"{s if isinstance(s, str) else repr(s)} h{a} h{(a + k) % 4} {z}" for s, a, k, z in rows]
    sc = Scenario.from_dict(_trace_file(tmp, lines))
    inline = Scenario.from_dict(fabric([{"start": s if isinstance(s, str) else f"{s!r}s", "src": f"h{a}",
                                         "dst": f"h{(a + k) % 4}", "size": z if isinstance(z, str) else f"{z}B"}
                                        for s, a, k, z in rows]))
    again = Scenario.from_toml_str(sc.to_toml())
    assert sc == inline == again and sc.to_engine_json() == inline.to_engine_json() == again.to_engine_json()
    arr = json.loads(sc.to_engine_json())["workloads"][0]["arrivals"]
    hosts = arr["hosts"]
    for j, (s, a, k, z) in enumerate(rows):
        t = float(s[:-2]) * 1e-6 if isinstance(s, str) else s
        b = int(z[:-2]) * 1000 if isinstance(z, str) and z.endswith("KB") else (
            int(z[:-3]) * 1460 if isinstance(z, str) else z)
        assert (hosts[arr["src"][j]], hosts[arr["dst"][j]]) == (f"h{a}", f"h{(a + k) % 4}")
        assert arr["at_ps"][j] == round(t * 1e12) and arr["size_bytes"][j] == b


_FIELD = st.one_of(st.sampled_from(["0", "1e-3", "2ms", "-1", "nan", "inf", "1_000", "h0", "h1", "h3", "h9", "leaf0",
                                    "64KB", "10pkt", "0B", "5.5", "1e30", "x", "", "μs", "#", ",", "\t"]),
                   st.text(max_size=6))


_GOOD_LINE = st.builds(lambda t, a, b, z, p, sep, comment: sep.join([t, a, b, z, *p]) + comment,
                       st.sampled_from(["0", "1e-3", "2ms", "0.5us", "3"]), st.sampled_from(["h0", "h1", "h2", "h3"]),
                       st.sampled_from(["h0", "h1", "h2", "h3"]), st.sampled_from(["64KB", "10pkt", "100", "1000B"]),
                       st.sampled_from([[], [], ["dctcp"]]),  # the workload's protocol, named or not
                       st.sampled_from([" ", ",", "\t", ", "]), st.sampled_from(["", " # a comment", "#"]))
_ANY_LINE = st.lists(_FIELD, min_size=0, max_size=6).map(lambda f: " ".join(f))


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.one_of(_GOOD_LINE, _GOOD_LINE, _ANY_LINE), min_size=0, max_size=8), header=st.booleans())
def test_any_trace_file_loads_or_names_its_file_and_line(tmp_path_factory, lines, header):
    """Whatever a trace file holds, loading it gives the flows its good lines define, or one
    ScenarioError naming workloads[0].file, the file, and the line or the whole file's fault;
    never another exception."""
    tmp = tmp_path_factory.mktemp("anytrace")
    text = ("start,src,dst,size\n" if header else "") + "\n".join(lines) + "\n"  # a 4-field header allows 5-field lines
    (tmp / "flows.csv").write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        sc = Scenario.from_dict(_trace_file_named(tmp))
    except ScenarioError as e:
        msg = str(e)
        assert msg.startswith("workloads[0].file: ") and str(tmp / "flows.csv") in msg, msg
        assert " line " in msg or "no flows" in msg or "not a text file" in msg, msg
        event("refused")
        return
    event("loaded")
    tr = sc.workloads[0].arrivals
    assert 1 <= len(tr) <= len(lines)
    assert set(tr.hosts) <= {"h0", "h1", "h2", "h3"} and all(a["src"] != a["dst"] for a in tr)
    assert Scenario.from_toml_str(sc.to_toml()) == sc


def test_a_trace_s_protocol_column_reads_writes_and_names_its_errors(tmp_path):
    """A fifth field names a flow's protocol, in a file (header of four or five names, lines of
    four or five fields) and inline; the scenario writes it back (TOML, the trace file beside a
    run's scenario) and hands the engine each flow's protocol (null where none). A protocol that is
    none, a line of six fields, a header that is none (a review: "start,src,dst,size,proto" was
    read as a flow, "cannot parse 'start'") or a second header line is refused naming the file and
    line."""
    from dcsim.scenario import read_trace

    mix = [{"protocol": "newreno", "ecn": True, "share": 0.3, "ect_acks": True},
           {"protocol": "dctcp", "share": 0.7, "ect_acks": True}]
    lines = ["start,src,dst,size,protocol", "0 h0 h1 1000 dctcp", "1e-5,h1,h2,2KB", "2e-5 h2 h3 3000,newreno"]
    (tmp_path / "flows.csv").write_text("\n".join(lines) + "\n")
    tr = read_trace(tmp_path / "flows.csv")
    assert (tr.protocols, tr.proto.tolist()) == (["dctcp", "newreno"], [0, -1, 1])
    assert [a.get("protocol") for a in tr] == ["dctcp", None, "newreno"]
    assert list(tr.csv_lines()) == ["start,src,dst,size,protocol\n", "0.0,h0,h1,1000,dctcp\n", "1e-05,h1,h2,2KB\n",
                                    "2e-05,h2,h3,3000,newreno\n"]
    d = fabric(None, file=str(tmp_path / "flows.csv"))
    del d["workloads"][0]["protocol"], d["workloads"][0]["ect_acks"]
    d["workloads"][0]["mix"] = mix
    sc = Scenario.from_dict(d)
    arr = json.loads(sc.to_engine_json())["workloads"][0]["arrivals"]
    assert (arr["protocol"], arr["protocols"]) == ([0, None, 1], ["dctcp", "newreno"])
    inline = {**d["workloads"][0], "file": None, "arrivals": [a.copy() for a in tr]}
    assert Scenario.from_dict({**d, "workloads": [inline]}) == sc == Scenario.from_toml_str(sc.to_toml())
    assert 'protocol = "newreno" }' in sc.to_toml()
    res = simulate(sc)
    assert res.flows["protocol"].tolist()[0::2] == ["dctcp", "newreno"]  # the named ones; flow 1 drawn
    # A run's scenario with its trace written beside it (a large trace) keeps the column.
    written = tmp_path / "again.csv"
    written.write_text("".join(sc.workloads[0].arrivals.csv_lines()))
    assert read_trace(written) == tr
    for text, words in [("0 h0 h1 1000 cubic\n", ["line 1", "protocol: 'cubic' is not one of dctcp, newreno"]),
                        ("0 h0 h1 1000 dctcp x\n", ["line 1", "expected 'start src dst size' or 'start src dst size protocol'"]),
                        ("start,src,dst,size,protocol\n0 h0 h1 1000 dx\n", ["line 2", "protocol: 'dx' is not a protocol of "
                                                                             "this workload (newreno, dctcp)"]),
                        ("start,src,dst,size,proto\n0 h0 h1 1000\n", ["line 1", "a header line is 'start,src,dst,size,protocol' "
                                                                       "or 'start,src,dst,size', got"]),
                        ("start,src,dst,size\n# c\nstart,src,dst,size,protocol\n0 h0 h1 1000\n",
                         ["line 3", "a header line, allowed only as the first line"])]:
        (tmp_path / "bad.csv").write_text(text)
        with pytest.raises(ScenarioError) as e:
            Scenario.from_dict({**d, "workloads": [{**d["workloads"][0], "file": str(tmp_path / "bad.csv")}]})
        assert str(e.value).startswith("workloads[0].file: ") and all(w in str(e.value) for w in words), str(e.value)
    bad = [{"start": "0s", "src": "h0", "dst": "h1", "size": "1KB", "protocol": "dx"}]
    with pytest.raises(ScenarioError, match=r"workloads\[0\]\.arrivals\[0\]\.protocol: 'dx' is not a protocol of this workload"):
        Scenario.from_dict({**d, "workloads": [{**inline, "arrivals": bad}]})
    bad[0]["protocol"] = 5
    with pytest.raises(ScenarioError, match=r"workloads\[0\]\.arrivals\[0\]\.protocol: 5 is not one of"):
        Scenario.from_dict({**d, "workloads": [{**inline, "arrivals": bad}]})
    bad[0]["proto"] = bad[0].pop("protocol")
    with pytest.raises(ScenarioError, match=r"workloads\[0\]\.arrivals\[0\]: unknown proto; a flow of a trace is "
                                           r"\{start, src, dst, size\} and optionally its protocol"):
        Scenario.from_dict({**d, "workloads": [{**inline, "arrivals": bad}]})


def _trace_file_named(tmp) -> dict:
    return fabric(None, file=str(tmp / "flows.csv"))


def test_a_change_keeps_the_trace_and_the_trace_is_written_from_its_columns(tmp_path):
    """Scenario.replace hands a trace on as it is (the same read-only columns, not a table per
    flow read again) unless the change goes into its flows; the copy is the scenario its written
    form gives, and its flows are still checked against the changed network. to_toml writes the
    flows from the columns: the same text as the generic writer of its tables."""
    from dcsim.scenario import _toml_dumps

    sc = Scenario.from_dict(_trace_file(tmp_path, ["0.0001 h0 h3 64000", "2ms h2 h0 10pkt", "3e-3,h1,h2,1000B # c"]))
    longer = sc.replace({"run.duration": "7ms"})
    assert longer.workloads[0].arrivals is sc.workloads[0].arrivals
    assert longer == Scenario.from_toml_str(sc.to_toml().replace('duration = "5ms"', 'duration = "7ms"'))
    one = sc.replace({"workloads[0].arrivals[1].size": "5KB"})
    assert one.workloads[0].arrivals[1]["size"] == "5KB" and sc.workloads[0].arrivals[1]["size"] == "10pkt"
    assert one.workloads[0].arrivals[0] == sc.workloads[0].arrivals[0]
    with pytest.raises(ScenarioError, match=r"workloads\[0\]\.arrivals\[0\]\.dst: 'h3' is not a host"):
        sc.replace({"network.hosts_per_leaf": 1})
    for resolved in (False, True):
        assert sc.to_toml(resolved=resolved) == _toml_dumps(sc.to_dict(resolved=resolved))
    big = Scenario.from_dict(fabric([{"start": f"{i}us", "src": "h0", "dst": "h1", "size": "1KB"} for i in range(20)]))
    assert big.to_toml().count("\n  { start = ") == 20  # a long array of tables: one a line
    plain_lines = Scenario.from_dict(_trace_file(tmp_path, [f"{i * 1.1e-6!r} h{i % 4} h{(i + 1) % 4} {i + 1}" for i in range(12)]))
    for s in (big, plain_lines):  # written from the columns: their texts, or the exact forms of their numbers
        assert s.to_toml() == _toml_dumps(s.to_dict()) and Scenario.from_toml_str(s.to_toml()) == s


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",))))
def test_any_string_is_written_as_a_toml_string_that_reads_back(text):
    """Strings in a written scenario (host names, times, sizes, labels) read back the same,
    whatever characters they hold: quotes, backslashes, control characters, U+007F."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11 (the test extra installs tomli there)
        import tomli as tomllib

    from dcsim.scenario import _toml_str

    assert tomllib.loads(f"k = {_toml_str(text)}")["k"] == text


def test_a_runs_engine_spec_is_indented_unless_large(tmp_path, monkeypatch):
    """engine_spec.json is the spec the run used (it reads back equal), indented for reading;
    past PRETTY_SPEC_MAX_BYTES (lowered here) it is written compact, as Python indents with its
    pure-Python encoder (a million-flow trace's columns: seconds)."""
    import dcsim.result as result

    r = simulate(Scenario.from_dict(fabric(ARRIVALS[:3])))
    text = result.engine_spec_text(r.engine_spec)
    assert "\n  " in text and json.loads(text) == r.engine_spec
    monkeypatch.setattr(result, "PRETTY_SPEC_MAX_BYTES", 100)
    text = result.engine_spec_text(r.engine_spec)
    assert "\n" not in text and json.loads(text) == r.engine_spec
    r.to_dir(tmp_path / "out")
    assert json.loads((tmp_path / "out" / "engine_spec.json").read_text()) == r.engine_spec


def test_a_large_trace_is_written_beside_the_runs_scenario(tmp_path, monkeypatch):
    """A run of a trace of more than TRACE_INLINE_MAX_FLOWS flows (lowered here) writes it as a
    trace file beside scenario.toml, which names it (reading a million inline flows back took
    47 s of TOML); the run's manifest lists it, so the next run replaces the directory; read back
    (Result.from_dir, or the scenario file) it is the scenario that ran. A trace that cannot be a
    file's fields, or whose file cannot be written, stays inline and nothing is lost."""
    import dcsim.result as result
    from dcsim.result import Result, WriteError

    monkeypatch.setattr(result, "TRACE_INLINE_MAX_FLOWS", 5)
    arr = [{"start": f"{50 * i}us", "src": f"h{i % 4}", "dst": f"h{(i + 2) % 4}", "size": "3pkt" if i % 2 else f"{i + 1}KB"}
           for i in range(12)] + [{"start": "0.000123s", "src": "h1", "dst": "h0", "size": "777B"}]
    sc = Scenario.from_dict(fabric(arr))
    (tmp_path / "t.toml").write_text(sc.to_toml())
    out = tmp_path / "out"
    res = runner.invoke(app, ["run", str(tmp_path / "t.toml"), "--no-plots", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert 'file = "workload-0-flows.csv"' in (out / "scenario.toml").read_text()
    assert "arrivals" not in (out / "scenario.toml").read_text()
    assert "workload-0-flows.csv" in json.loads((out / "dcsim-manifest.json").read_text())["files"]
    assert Result.from_dir(out).scenario == sc == load_scenario(out / "scenario.toml")
    again = tmp_path / "again"
    res = runner.invoke(app, ["run", str(out / "scenario.toml"), "--no-plots", "-o", str(again)])
    assert res.exit_code == 0 and "trace of 13 flows" in res.output, res.output
    res = runner.invoke(app, ["run", str(tmp_path / "t.toml"), "--no-plots", "-o", str(out)])  # replaced, no --force
    assert res.exit_code == 0, res.output
    r = simulate(sc)
    from dcsim.scenario import TraceFlows, _arrival

    for host, fits in (("h1", True), ("h 1", False), ("h,1", False), ("h#1", False)):
        tf = TraceFlows()
        tf.add(_arrival("1us", host, "h2", "5B"))
        assert tf.fits_a_file() is fits, host
    monkeypatch.setattr(TraceFlows, "fits_a_file", lambda self: False)
    r.to_dir(tmp_path / "inline")
    assert not (tmp_path / "inline" / "workload-0-flows.csv").exists()
    assert Scenario.from_toml(tmp_path / "inline" / "scenario.toml") == sc
    monkeypatch.undo()
    monkeypatch.setattr(result, "TRACE_INLINE_MAX_FLOWS", 5)

    def full_disk(path, lines):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(result, "_write_lines", full_disk)
    with pytest.raises(WriteError) as e:
        r.to_dir(tmp_path / "failed")
    assert any(err.startswith("workload-0-flows.csv: OSError") for err in e.value.errors), e.value.errors
    assert Scenario.from_toml(tmp_path / "failed" / "scenario.toml") == sc  # every flow, inline


def test_the_memory_plan_counts_the_trace_flows_due_before_the_end(tmp_path):
    """The plan counted every line of a trace, also those due after run.duration (which never
    start), and advised "lower the load", which a trace does not have."""
    import dcsim

    n = 40_000  # one flow every 50 ns over 2 ms: 20 000 due in the 1 ms run
    (tmp_path / "t.csv").write_text("".join(f"{j * 5e-8:.8f} h{j % 4} h{4 + j % 4} 1000\n" for j in range(n)))
    from pathlib import Path

    d = dcsim.load_scenario(Path(__file__).resolve().parent.parent / "examples" / "leaf_spine.toml").to_dict()
    d["workloads"] = [{"kind": "trace", "file": str(tmp_path / "t.csv"), "protocol": "dctcp"}]
    d["run"] = {"duration": "1ms", "warmup": "0s"}
    # 50 MB: above the 40 000 listed flows' own 28.8 MB (refused before the spec is built), below
    # their result rows' and their 88 MB in all
    d["metrics"] = {"max_memory": "50MB"}
    with pytest.raises(dcsim.ScenarioError, match=r"up to 20000 generated flows .*give the trace fewer flows"):
        dcsim.Scenario.from_dict(d).check_resources()


def test_a_permutations_long_lived_flows_are_no_trace():
    """`trace()` of a permutation's long-lived flows ended in pandas' "cannot convert non-finite
    values" (an API probe); it names the workload."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    res = simulate(load_scenario(root / "examples" / "permutation.toml").replace({"run.duration": "2ms", "run.warmup": "0s"}))
    for call in (res.trace, lambda: res.trace(0), lambda: res.write_trace("never-written.csv")):
        with pytest.raises(ValueError, match=r"^trace: workloads\[0\] \(permutation\) generated long-lived flows"):
            call()
    assert not Path("never-written.csv").exists()
