"""Sweeps over a trace file: the plan parses it once for every combination; a worker that cannot
read it (another machine) gets its content with the run; the store keeps it once, and each run's
directory links it beside a scenario.toml that names it and reads back as the scenario that ran."""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

import dcsim.scenario as scenario_mod
from dcsim.result import TRACE_FILE, Result
from dcsim.scenario import DataFiles, Scenario, TraceFlows, load_scenario, read_trace, reading_files
from dcsim.sweep import SweepError, make_spec, plan_sweep, run_sweep, sweep

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
AXES = {"network.aqm.K": ["20pkt", "65pkt"]}
SET = {"run.duration": "4500us"}  # the trace's last flow starts at ~4 ms


@pytest.fixture
def base(tmp_path: Path) -> Path:
    """examples/trace.toml and its trace file (141 flows on a 32-host leaf-spine), in a folder of its own."""
    d = tmp_path / "in"
    d.mkdir()
    shutil.copy(EXAMPLES / "trace.toml", d / "trace.toml")
    shutil.copy(EXAMPLES / "trace_flows.csv", d / "trace_flows.csv")
    return d / "trace.toml"


def wall_free(df: pd.DataFrame) -> pd.DataFrame:
    return df[[c for c in df.columns if "wall" not in c]]


def count_parses(monkeypatch) -> list:
    """A list that gets the path of each trace file parsed."""
    parsed: list = []
    original = scenario_mod._data_rows

    def counting(path, what, *a, **kw):
        if what == "trace":
            parsed.append(path)
        return original(path, what, *a, **kw)

    monkeypatch.setattr(scenario_mod, "_data_rows", counting)
    return parsed


def test_the_plan_parses_a_trace_once_for_every_combination(base, monkeypatch):
    parsed = count_parses(monkeypatch)
    axes = {"network.aqm.K": ["10pkt", "20pkt", "40pkt", "65pkt"], "run.seed": [1, 2]}
    plan = plan_sweep(make_spec(str(base), axes, set=SET))
    assert len(plan.runs) == 8 and parsed == [base.parent / "trace_flows.csv"]
    digest = hashlib.sha256((base.parent / "trace_flows.csv").read_bytes()).hexdigest()
    assert {str(plan.trace_files(r)) for r in plan.runs} == {str({0: (str(base.parent / "trace_flows.csv"), digest)})}
    # Each combination is still its own validated scenario: the flows are the file's.
    sc = Scenario.from_dict(plan.scenario(plan.runs[0]))
    assert sc.workloads[0].arrivals == read_trace(base.parent / "trace_flows.csv") and len(sc.workloads[0].arrivals) == 136


def test_the_combinations_share_the_traces_engine_columns(base, monkeypatch):
    """Each combination's engine spec takes the trace's times from one conversion (a million flows
    took ~2 s a combination), and each gets lists of its own."""
    calls = []
    original = scenario_mod.to_ps
    monkeypatch.setattr(scenario_mod, "to_ps", lambda s: calls.append(s) or original(s))
    plan = plan_sweep(make_spec(str(base), {"network.aqm.K": ["10pkt", "20pkt", "40pkt", "65pkt"]}, set=SET))
    flows = 136
    assert len(plan.runs) == 4 and flows <= len(calls) < 2 * flows  # without the memo: >= 4 x 136
    sc = Scenario.from_dict(plan.scenario(plan.runs[0]))
    a, b = sc.to_engine_spec(), sc.to_engine_spec()
    a["workloads"][0]["arrivals"]["at_ps"].append(1)
    assert len(b["workloads"][0]["arrivals"]["at_ps"]) == flows
    # Another start of the workload: other times, not the kept ones.
    later = Scenario.from_dict({**plan.scenario(plan.runs[0]), "workloads": [
        {**plan.scenario(plan.runs[0])["workloads"][0], "start": "1ms"}]}).to_engine_spec()
    first = b["workloads"][0]["arrivals"]["at_ps"]
    assert later["workloads"][0]["arrivals"]["at_ps"] == [t + 10**9 for t in first]


def test_data_files_parse_once_per_content_and_hold_only_the_last(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("0 h0 h1 1000\n")
    b.write_text("0 h1 h0 2000\n")
    files = DataFiles(keep=1)
    with reading_files(files):
        first, again = read_trace(a), read_trace(a)
        assert again is first  # shared: a TraceFlows is read-only
        a.write_text("0 h0 h1 3000\n")  # new content: parsed again, not the old flows
        assert read_trace(a)[0]["size"] == "3000B"
        read_trace(b)
    assert [k[0] for k in files.traces] == [str(b)]  # keep = 1: only the last
    # Content given for a path is read instead of the filesystem (a worker on another machine).
    with reading_files(DataFiles(given={str(tmp_path / "nowhere.csv"): b"0 h0 h1 42\n"})):
        assert read_trace(tmp_path / "nowhere.csv")[0]["size"] == "42B"
    with pytest.raises(ValueError, match="nowhere.csv: cannot read the trace file"):
        read_trace(tmp_path / "nowhere.csv")  # outside the scope: the filesystem, as before


def _no_trace_files() -> None:
    """A worker on a machine without the sweep's files: reading any data file fails."""

    def refuse(path, what):
        raise ValueError(f"{path}: cannot read the {what} file (not on this machine)")

    scenario_mod.read_data_file = refuse


def test_a_worker_without_the_file_gets_its_content_and_the_store_keeps_it_once(base, tmp_path):
    local = sweep(str(base), AXES, set=SET, seeds=2, out=tmp_path / "local", jobs=2, progress=False)
    assert (local.computed, local.failed) == (4, 0), local.failures
    with cf.ProcessPoolExecutor(max_workers=2, initializer=_no_trace_files) as ex:
        remote = sweep(str(base), AXES, set=SET, seeds=2, out=tmp_path / "remote", executor=ex, progress=False)
    assert (remote.computed, remote.failed) == (4, 0), remote.failures
    pd.testing.assert_frame_equal(wall_free(local.table), wall_free(remote.table), check_exact=True)

    trace = (base.parent / "trace_flows.csv").read_bytes()
    for res in (local, remote):
        stored = res.out / "traces" / f"{hashlib.sha256(trace).hexdigest()}.csv"
        assert stored.read_bytes() == trace and os.stat(stored).st_nlink == 1 + 4  # one copy, linked by 4 runs
        for run_id in res.table["run_id"]:
            d = res.run_dir(run_id)
            beside = d / TRACE_FILE.format(i=0)
            assert os.path.samefile(beside, stored)
            text = (d / "scenario.toml").read_text()
            assert f'file = "{beside.name}"' in text and "arrivals" not in text
            ran = res.result(run_id)  # scenario.toml and the linked file read back with the file's flows
            assert ran.scenario.workloads[0].arrivals == read_trace(base.parent / "trace_flows.csv")
    # Both stores hold the same bytes run for run (the tables, the scenario, the engine spec).
    for run_id in local.table["run_id"]:
        for f in sorted(local.run_dir(run_id).iterdir()):
            if f.name not in ("row.json", "summary.json"):
                assert f.read_bytes() == (remote.run_dir(run_id) / f.name).read_bytes(), f.name


def test_a_run_dir_reads_back_as_the_planned_scenario(base, tmp_path):
    res = sweep(str(base), AXES, set=SET, out=tmp_path / "out", jobs=1, progress=False)
    plan = plan_sweep(make_spec(str(base), AXES, set=SET))
    by_id = {r.run_id: Scenario.from_dict(plan.scenario(r)) for r in plan.runs}
    for run_id in res.table["run_id"]:
        back = load_scenario(res.run_dir(run_id) / "scenario.toml")
        assert back == by_id[run_id] and back.to_engine_json() == by_id[run_id].to_engine_json()
        assert Result.from_dir(res.run_dir(run_id)).scenario == by_id[run_id]


def test_a_trace_file_changed_after_planning_stops_the_sweep_and_says_so(base, tmp_path):
    csv = base.parent / "trace_flows.csv"

    def change(plan, counts):
        csv.write_text(csv.read_text().replace("68848", "68849"))

    with pytest.raises(SweepError, match=r"trace_flows.csv: the trace file changed after the sweep validated it"):
        run_sweep(make_spec(str(base), AXES, set=SET), tmp_path / "out", jobs=1, progress=False, on_plan=change)
    # Planned again, the sweep runs with the new content.
    res = sweep(str(base), AXES, set=SET, out=tmp_path / "out", jobs=1, progress=False)
    assert (res.computed, res.failed) == (2, 0)
    assert res.result(res.table["run_id"][0]).scenario.workloads[0].arrivals[0]["size"] == "68849B"
    # Without tables nothing is stored: each worker finds the change, and its run's error says so.
    res = run_sweep(make_spec(str(base), AXES, set=SET), tmp_path / "bare", jobs=1, tables=False, progress=False,
                    on_plan=lambda plan, counts: csv.write_text(csv.read_text().replace("68849", "68850")))
    assert (res.computed, res.failed) == (0, 2)
    assert all("trace_flows.csv: the trace file changed after the sweep validated it" in f["error"] for f in res.failures)


def test_a_trace_given_inline_stays_inline(tmp_path):
    d = {"network": {"topology": "leaf_spine", "leaves": 2, "spines": 1, "hosts_per_leaf": 2, "host_link": "10Gbps",
                     "buffer": "100pkt"},
         "workloads": [{"kind": "trace", "protocol": "dctcp",
                        "arrivals": [{"start": "0s", "src": "h0", "dst": "h3", "size": "20KB"}]}],
         "run": {"duration": "1ms", "seed": 1}}
    res = sweep(d, {"network.buffer": ["20pkt", "40pkt"]}, out=tmp_path / "out", jobs=1, progress=False)
    assert res.failed == 0 and not (res.out / "traces").exists()
    for run_id in res.table["run_id"]:
        assert not (res.run_dir(run_id) / TRACE_FILE.format(i=0)).exists()
        assert 'src = "h0"' in (res.run_dir(run_id) / "scenario.toml").read_text()
    assert isinstance(Scenario.from_dict(d).workloads[0].arrivals, TraceFlows)
