"""dcsim.sweep: expansion, validation before any run, the table, the cache, failures, the CLI's errors.

Runs are tiny (2 DCTCP flows, 10 ms) so that all sweep tests together stay well under a minute.
"""

from __future__ import annotations

import concurrent.futures as cf
import importlib
import itertools
import json
import math
import re
import warnings
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import dcsim.sweep.spec as spec_mod
from dcsim import Result, Scenario, simulate
from dcsim.cli import app
from dcsim.sweep import SweepError, SweepWarning, load_sweep, make_spec, plan_sweep, run_sweep, sweep
from dcsim.sweep.worker import flatten_summary

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()
simulate_module = importlib.import_module("dcsim.simulate")  # the package binds dcsim.simulate to the function

N, C_BPS, RTT_S, PKT_BYTES = 2, 10e9, 100e-6, 1500
BASE = {
    "network": {"senders": N, "bottleneck": "10Gbps", "rtt": "100us", "buffer": "200pkt", "aqm": {"kind": "threshold", "K": "20pkt"}},
    "flows": [{"count": N, "protocol": "dctcp", "g": 0.0625}],
    "run": {"duration": "10ms", "warmup": "3ms", "seed": 1},
}


def wall_free(df: pd.DataFrame) -> pd.DataFrame:
    """Columns that do not depend on the wall clock (wall_s, events_per_wall_s, run_wall_s)."""
    return df[[c for c in df.columns if "wall" not in c]]


def col(df: pd.DataFrame, pattern: str) -> str:
    """The one column matching ``pattern`` (the summary's names are the Result's, not ours)."""
    found = [c for c in df.columns if re.fullmatch(pattern, c)]
    assert len(found) == 1, f"{pattern}: {found}"
    return found[0]


def tpool():
    """An in-process executor: monkeypatches reach the runs, and no process start-up."""
    return cf.ThreadPoolExecutor(max_workers=2)


# --------------------------------------------------------------------------------------------
# expansion


def test_grid_zip_linked_and_seeds_expand_in_order():
    s = make_spec(BASE, {"network.aqm.K": ["10pkt", "20pkt", "30pkt"], "flows[0].g": [0.0625, 0.125]}, seeds=2)
    plan = plan_sweep(s)
    assert len(plan.combos) == 6 and len(plan.runs) == 12
    # first axis outermost, seeds innermost
    assert [plan.axis_values(r.combo)["network.aqm.K"] for r in plan.runs[:4]] == ["10pkt"] * 4
    assert [r.seed for r in plan.runs[:4]] == [1, 2, 1, 2]
    assert plan.scenario(plan.runs[3])["flows"][0]["g"] == 0.125 and plan.scenario(plan.runs[3])["run"]["seed"] == 2

    z = plan_sweep(make_spec(BASE, {"network.aqm.K": ["10pkt", "30pkt"], "flows[0].g": [0.0625, 0.125]}, combine="zip", seeds=[5, 9]))
    assert [(z.axis_values(r.combo)["network.aqm.K"], z.axis_values(r.combo)["flows[0].g"], r.seed) for r in z.runs] == [
        ("10pkt", 0.0625, 5), ("10pkt", 0.0625, 9), ("30pkt", 0.125, 5), ("30pkt", 0.125, 9)]

    linked = plan_sweep(make_spec(BASE, {("network.senders", "flows[0].count"): [(1, 1), (3, 3)]}, seed_base=10, seeds=1))
    assert [(linked.scenario(r)["network"]["senders"], linked.scenario(r)["flows"][0]["count"], r.seed) for r in linked.runs] == [
        (1, 1, 10), (3, 3, 10)]
    # the same linked axis written as in a TOML file
    same = plan_sweep(make_spec(BASE, {"network.senders, flows[0].count": [[1, 1], [3, 3]]}, seed_base=10, seeds=1))
    assert [r.key for r in same.runs] == [r.key for r in linked.runs]


def test_run_key_is_the_engine_spec_and_version():
    plan = plan_sweep(make_spec(BASE, {"network.aqm.K": ["10pkt", "20pkt"]}, seeds=2))
    from dcsim.result import summary_inputs

    for r in plan.runs:
        sc = Scenario.from_dict(plan.scenario(r))
        assert r.key == spec_mod.run_key(sc.to_engine_spec(), None, summary_inputs(sc))
        assert r.run_id == r.key[:16]
    assert len({r.key for r in plan.runs}) == 4
    assert spec_mod.run_key({"a": 1, "b": 2}, "1") == spec_mod.run_key({"b": 2, "a": 1}, "1") != spec_mod.run_key({"a": 1, "b": 2}, "2")


def test_the_fct_buckets_and_the_code_are_in_the_run_key(monkeypatch, tmp_path):
    """What the row depends on beyond the engine spec is in the key: metrics.fct_buckets (read in
    Python, by the summary's FCT groups) and the code (the engine's sources and the Python
    files, :func:`code_id`): a cached row of other buckets or of other code is computed again."""
    axes = {"metrics.fct_buckets": [["50KB", "1MB"], ["20KB", "100KB", "150KB"]]}
    plan = plan_sweep(make_spec(BASE, axes))
    assert len({r.key for r in plan.runs}) == 2
    res = sweep(BASE, axes, out=tmp_path / "o", progress=False, tables=False)
    assert res.computed == 2
    again = sweep(BASE, {"metrics.fct_buckets": [["20KB", "150KB"]]}, out=tmp_path / "o", progress=False, tables=False)
    assert (again.computed, again.cached) == (1, 0)
    key = spec_mod.run_key({"a": 1}, "1")
    monkeypatch.setattr(spec_mod, "code_id", lambda: "engine other python other")
    assert spec_mod.run_key({"a": 1}, "1") != key


def test_the_code_id_is_the_engine_sources_and_the_python_files():
    import dcsim._core

    engine, ours, python, digest = spec_mod.code_id().split()
    assert (engine, python) == ("engine", "python")
    assert ours == dcsim._core.__engine_sources__ and len(ours) == 64 and int(ours, 16) >= 0
    assert len(digest) == 64 and int(digest, 16) >= 0


def test_the_python_digest_changes_with_any_source_and_ignores_hidden_directories(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "sub" / "b.py").write_text("y = 2\n")
    first = spec_mod.python_sources_digest(tmp_path)
    (tmp_path / ".ipynb_checkpoints").mkdir()
    (tmp_path / ".ipynb_checkpoints" / "a-checkpoint.py").write_text("x = 0\n")
    (tmp_path / "notes.txt").write_text("not code")
    assert spec_mod.python_sources_digest(tmp_path) == first
    (tmp_path / "sub" / "b.py").write_text("y = 3\n")
    changed = spec_mod.python_sources_digest(tmp_path)
    (tmp_path / "sub" / "b.py").rename(tmp_path / "b.py")  # the same bytes at another path
    assert len({first, changed, spec_mod.python_sources_digest(tmp_path)}) == 3


def test_runs_cached_by_an_older_results_format_run_again(monkeypatch):
    """A sweep's cache key holds the results' format: rows cached before a table or the summary
    changed are not mixed with new ones."""
    import dcsim.schema

    key = spec_mod.run_key({"a": 1}, "1")
    monkeypatch.setattr(dcsim.schema, "RESULTS_FORMAT", dcsim.schema.RESULTS_FORMAT + 1)
    assert spec_mod.run_key({"a": 1}, "1") != key


# --------------------------------------------------------------------------------------------
# bad input: every error names the axis, before anything runs


@pytest.mark.parametrize(
    "axes, kw, expect",
    [
        ({"network.aqm.KK": ["20pkt"]}, {}, r"^axis network.aqm.KK: no such scenario field: .*did you mean 'K'\?"),
        ({"flows[3].g": [0.1]}, {}, r"^axis flows\[3\].g: flows\[3\]: index out of range; flows has 1 entry"),
        ({"network.aqm.K": ["20ms"]}, {}, r"^axis network.aqm.K = \"20ms\": network.aqm.K: unknown size unit 'ms'"),
        ({"network.bottleneck": ["10pkt", "1Gbps"]}, {}, r"^axis network.bottleneck = \"10pkt\": network.bottleneck: unknown rate unit"),
        ({"network.aqm.K": []}, {}, r"^axis network.aqm.K: empty list of values"),
        ({"network.aqm.K": "20pkt"}, {}, r"^axis network.aqm.K: expected a list of values"),
        ({"network.aqm.K": ["10pkt", "20pkt"], "flows[0].g": [0.1]}, {"combine": "zip"},
         r"^axes: combine = \"zip\" needs axes of equal length; network.aqm.K has 2, flows\[0\].g has 1"),
        ({"network.aqm.K": ["10pkt"], "network.aqm": [{"kind": "droptail"}]}, {}, r"^axis network.aqm: overlaps axis network.aqm.K"),
        ({"run.seed": [1, 2]}, {"seeds": 2}, r"^axis run.seed: sets run.seed; give either run.seed in an axis or seeds"),
        ({"flows[0].protocol": ["newreno", "dctcp"], "flows[0].g": [0.1]}, {},
         r"^axis flows\[0\].g = 0.1: flows\[0\].g: only for protocol"),
        ({"network.buffer": ["100pkt", "10pkt"]}, {}, r"^axis network.buffer = \"10pkt\": network.aqm.K: marking threshold 20pkt is not below"),
        # tables as values replace the base's table: the axis is named, not the base (a probe)
        ({"network": [{"senders": 2}, {"senders": 3}]}, {},
         r"^axis network \(every value: a table as an axis value replaces the base's whole network table; give the "
         r"fields it keeps, or sweep the field itself, e.g. network.<field>\): network.bottleneck: required"),
        # ... but not "every value" when one value is valid (a review)
        ({"network": [{"senders": 2}, {"senders": 3}, dict(BASE["network"])]}, {},
         r"^combination network = \{'senders': 2\} \(and 1 more\): network.bottleneck: required"),
    ],
)
def test_bad_axes_are_reported_with_the_axis(axes, kw, expect):
    with pytest.raises(SweepError) as e:
        plan_sweep(make_spec(BASE, axes, **kw))
    assert re.search(expect, str(e.value)), str(e.value)


def test_the_plan_makes_the_engines_memory_check_as_dcsim_run_does():
    """The demo's 10 traced windows every 10 us for 50 ms need 11.1 MB, which the engine's memory
    plan refuses under metrics.max_memory = 1MB before `dcsim run` runs anything. The sweep's plan
    (and so --dry-run) had checked only the scenario layer: the combination was planned, and its
    run failed at run time (an audit)."""
    spec = make_spec(ROOT / "examples" / "dctcp_dumbbell.toml", {"metrics.max_memory": ["1GB", "1MB"]},
                     set={"run.duration": "50ms", "run.warmup": "10ms"})
    with pytest.raises(SweepError) as e:
        plan_sweep(spec)
    assert re.match(r'axis metrics.max_memory = "1MB": metrics.cwnd_interval: sampling every 10 us .* '
                    r"more than metrics.max_memory = 1.0 MB", str(e.value)), str(e.value)


def test_a_protocol_axis_drops_the_bases_options_of_the_old_protocol():
    """As `dcsim run --set` and Scenario.replace: switching the protocol drops the base's g (the
    sweep refused "flows[0].g: only for protocol = dctcp" for every newreno combination, so a base
    with g could never be swept over protocol); an axis that gives g keeps it."""
    plan = plan_sweep(make_spec(BASE, {"flows[0].protocol": ["dctcp", "newreno"]}))
    dctcp, newreno = (Scenario.from_dict(d) for d in plan.scenarios)
    assert dctcp.flows[0].g == 0.0625 and newreno.flows[0].protocol == "newreno" and newreno.flows[0].g is None
    plan = plan_sweep(make_spec(BASE, {"flows[0].protocol": ["dctcp"], "flows[0].g": [0.25]}))
    assert Scenario.from_dict(plan.scenarios[0]).flows[0].g == 0.25


def test_a_table_in_set_replaces_the_bases_table_as_run_set_does(tmp_path):
    """`"network.aqm" = { kind = "droptail" }` in [set] was merged into the base's threshold table
    (its K survived: "network.aqm.K: not a parameter of aqm kind 'droptail'"); a path key takes its
    value whole, as `dcsim run --set` does, while TOML's own tables still set the paths below them."""
    plan = plan_sweep(make_spec(BASE, {"flows[0].g": [0.0625]}, set={"network.aqm": {"kind": "droptail"}}))
    assert plan.scenarios[0]["network"]["aqm"] == {"kind": "droptail"}
    f = tmp_path / "s.toml"
    f.write_text('base = "b.json"\n[set]\n"network.aqm" = { kind = "droptail" }\n[axes]\n"flows[0].g" = [0.0625]\n')
    (tmp_path / "b.json").write_text(json.dumps(BASE))
    assert plan_sweep(load_sweep(f)).scenarios[0]["network"]["aqm"] == {"kind": "droptail"}
    f.write_text('base = "b.json"\n[set.network.aqm]\nK = "30pkt"\n[axes]\n"flows[0].g" = [0.0625]\n')  # a TOML table
    assert plan_sweep(load_sweep(f)).scenarios[0]["network"]["aqm"] == {"kind": "threshold", "K": "30pkt"}


def test_several_invalid_combinations_are_listed_once_per_error():
    with pytest.raises(SweepError) as e:
        plan_sweep(make_spec(BASE, {"network.aqm.K": ["500pkt", "20pkt", "20ms"], "flows[0].g": [0.1, 2.0]}))
    lines = str(e.value).splitlines()
    assert lines[0] == "5 of 6 combinations are invalid:"
    assert lines[1].startswith('axis network.aqm.K = "500pkt" (in 2 combinations): network.aqm.K: marking threshold 500pkt')
    assert lines[2].startswith("axis flows[0].g = 2.0 (in 3 combinations): flows[0].g: 2.0 is out of range")
    assert lines[3].startswith('axis network.aqm.K = "20ms" (in 2 combinations)')


@pytest.mark.parametrize("set_", [{"run.seed": 7}, {"run": {"seed": 7}}])
def test_seeds_and_a_run_seed_in_set_are_refused_as_a_run_seed_axis_is(set_):
    """seeds replace every run's seed, so a run.seed in [set] was dropped without a word (an
    audit); a run.seed axis beside seeds was already refused. Without seeds the set seed is kept."""
    with pytest.raises(SweepError, match=r"^set run.seed: give either run.seed in set or seeds, not both"):
        make_spec(BASE, {"flows[0].g": [0.0625]}, seeds=2, set=set_)
    plan = plan_sweep(make_spec(BASE, {"flows[0].g": [0.0625]}, set=set_))
    assert [r.seed for r in plan.runs] == [7]


def test_seeds_and_a_whole_run_table_axis_with_a_seed_are_refused():
    """An axis setting the whole run table with a seed in it beside seeds ran, the seeds silently
    replacing the axis's seed (a review); a run.seed in [set] had been refused already."""
    steps = [{"duration": "2ms", "warmup": "0ms", "seed": 5}, {"duration": "3ms", "warmup": "0ms"}]
    with pytest.raises(SweepError, match=r"^axis run: sets run.seed; give either run.seed in an axis or seeds"):
        make_spec(BASE, {"run": steps}, seeds=2)
    with pytest.raises(SweepError, match=r"^axis run.seed: sets run.seed"):
        make_spec(BASE, {"run.seed": [3, 4]}, seeds=2)
    # without seeds the axis's seed is the run's; a run table without a seed leaves seeds alone
    assert [r.seed for r in plan_sweep(make_spec(BASE, {"run": steps})).runs] == [5, 1]
    plan = plan_sweep(make_spec(BASE, {"run": [{"duration": "2ms", "warmup": "0ms"}]}, seeds=2))
    assert [r.seed for r in plan.runs] == [1, 2]


def test_the_table_columns_do_not_depend_on_the_order_runs_finish():
    """Runs of different topologies have different port columns: the table's columns came in the
    order the first-finished rows had them, so --jobs and resuming changed sweep.parquet (a review).
    They follow the plan's order now, whatever the completion order."""
    from dcsim.sweep.store import RowBuffer

    rows = {0: {"run_id": "a", "seed": 1, "port[x].q": 1.0, "port[y].q": 2.0},
            1: {"run_id": "b", "seed": 1, "port[z].q": 3.0, "port[x].q": 4.0},
            2: {"run_id": "c", "seed": 2, "port[w].q": 5.0}}
    tables = []
    for order in itertools.permutations(rows):
        buf = RowBuffer()
        for i in order:
            buf.add(i, rows[i])
        tables.append(buf.table())
    assert all(t.column_names == ["run_id", "seed", "port[x].q", "port[y].q", "port[z].q", "port[w].q"] for t in tables)
    assert all(t.equals(tables[0]) for t in tables)
    assert tables[0].column("run_id").to_pylist() == ["a", "b", "c"]
    # across chunks too (a large sweep's rows are kept 2 048 to an Arrow chunk)
    buf = RowBuffer()
    buf.CHUNK = 1
    for i in (2, 1, 0):
        buf.add(i, rows[i])
    assert buf.table().equals(tables[0])


def test_progress_in_a_log_file_is_a_plain_line_at_each_tenth(monkeypatch):
    """Without a terminal rich draws the bar once, at the end: a batch job's log saw nothing during
    a long sweep (a review). A plain line now says how far it is at each tenth of the runs (at most
    one per PLAIN_MIN_S) and at least every PLAIN_MAX_S."""
    import io

    from rich.console import Console

    from dcsim.sweep import _View
    from dcsim.sweep.execute import Stats

    clock = [100.0]
    monkeypatch.setattr("dcsim.sweep.time.perf_counter", lambda: clock[0])
    buf = io.StringIO()
    stats = Stats(total=20, to_compute=20, started=clock[0])
    with _View(stats, True, Console(file=buf, force_terminal=False, width=120)) as view:
        for i in range(20):
            clock[0] += 6.0  # a run every 6 s
            stats.done = stats.computed = i + 1
            view.tick()
    lines = [ln for ln in buf.getvalue().splitlines() if ln.startswith("sweep: ")]
    # tenths every 2 runs = 12 s apart, above the 10 s minimum: one line per tenth
    assert lines[0] == "sweep: 2/20 runs (0 cached), 0 failed, ETA 1.8 min", lines  # 12 s for 2 runs, 18 left: 108 s
    assert len(lines) == 10 and lines[-1].startswith("sweep: 20/20 runs"), lines
    # a slow sweep: a line at least every minute even within one tenth
    buf = io.StringIO()
    stats = Stats(total=1000, to_compute=1000, started=clock[0])
    with _View(stats, True, Console(file=buf, force_terminal=False, width=120)) as view:
        for i in range(5):
            clock[0] += 61.0
            stats.done = stats.computed = i + 1
            view.tick()
    assert sum(ln.startswith("sweep: ") for ln in buf.getvalue().splitlines()) == 5


def test_more_than_the_run_limit_needs_yes(monkeypatch, tmp_path):
    s = make_spec(BASE, {"network.aqm.K": ["10pkt", "20pkt"]}, seeds=3)
    monkeypatch.setattr(spec_mod, "MAX_RUNS_WITHOUT_YES", 5)
    with pytest.raises(SweepError, match=r"^axes: the sweep has 6 runs \(network.aqm.K \(2\) x 3 seeds\); more than 5 runs need --yes"):
        plan_sweep(s)
    assert len(plan_sweep(s, yes=True).runs) == 6


def test_no_sweep_has_more_than_max_runs_even_with_yes(monkeypatch):
    """10^9 combinations with --yes ran out of memory expanding the grid (3.85 GB, then
    MemoryError): the count is checked first, before anything is expanded."""
    s = make_spec(BASE, {"network.aqm.K": [f"{k}pkt" for k in range(1, 1001)],
                         "flows[0].g": [1 / k for k in range(1, 1001)]}, seeds=1000)
    with pytest.raises(SweepError, match=r"^axes: the sweep has 1,000,000,000 runs .*allowed at most 1,000,000"):
        plan_sweep(s, yes=True)
    monkeypatch.setattr(spec_mod, "MAX_RUNS", 5)
    with pytest.raises(SweepError, match=r"allowed at most 5 "):
        plan_sweep(make_spec(BASE, {"network.aqm.K": ["10pkt", "20pkt"]}, seeds=3), yes=True)


def test_a_sweep_leaves_the_users_own_temporary_files_alone(tmp_path):
    """OUT may be the user's directory (`-o .`): a sweep removed every ".<x>.tmp" whose "pid" was
    not a live process, the user's ".notes.tmp" too, even with --dry-run. It now removes only its
    own (".<file>.<pid>.tmp" of the files it writes) and a dry run nothing."""
    (tmp_path / ".notes.tmp").write_text("mine")
    (tmp_path / ".draft.12.tmp").write_text("mine too: no file of the sweep's")
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / ".todo.tmp").write_text("mine")
    dead = tmp_path / ".sweep.parquet.999999999.tmp"  # the sweep's own, of a writer long gone
    dead.write_bytes(b"partial")
    s = make_spec(BASE, {"network.aqm.K": ["20pkt"]})
    run_sweep(s, tmp_path, tables=False, jobs=1, progress=False, dry_run=True)
    assert dead.exists(), "a dry run removes nothing"
    run_sweep(s, tmp_path, tables=False, jobs=1, progress=False)
    assert not dead.exists()
    assert (tmp_path / ".notes.tmp").read_text() == "mine" and (tmp_path / ".draft.12.tmp").exists()
    assert (tmp_path / "traces" / ".todo.tmp").exists()


def test_bad_seeds_and_jobs(tmp_path):
    # a count beyond the sweep's run limit is refused before its list is built (10^9 had taken 24 GB;
    # 2^64 an OverflowError: a fuzz run)
    for seeds, expect in ((0, "seeds: 0 is out of range"), ([1, 1], "repeats a seed"), ([], "seeds: empty list"),
                          ("3", "is not a number of seeds"), (10**9, "seeds: 1,000,000,000 is out of range"),
                          (2**64, "allowed 1 .. 1,000,000 seeds")):
        with pytest.raises(SweepError, match=re.escape(expect)):
            make_spec(BASE, {"network.aqm.K": ["10pkt"]}, seeds=seeds)
    with pytest.raises(SweepError, match=r"^jobs: 0 is out of range"):
        sweep(BASE, {"network.aqm.K": ["10pkt"]}, out=tmp_path, jobs=0, progress=False)
    assert not (tmp_path / "runs").exists()
    # NumPy's integers are integers (as for seeds: "jobs: np.int64(1) is out of range", a probe); bools are not
    import numpy as np

    from dcsim.sweep import check_jobs
    assert check_jobs(np.int64(2)) == 2 and type(check_jobs(np.int64(2))) is int
    for bad in (True, np.bool_(True), 2.0, "2"):  # not integers: said so (a text "2" had read "out of range")
        with pytest.raises(SweepError, match=r"^jobs: expected an integer, got .*; allowed 1 \.\. 256"):
            check_jobs(bad)
    with pytest.raises(SweepError, match=r"^jobs: 0 is out of range; allowed an integer 1 \.\. 256"):
        check_jobs(np.int64(0))
    res = sweep(BASE, {"network.aqm.K": ["10pkt"]}, out=tmp_path / "np", jobs=np.int64(1), progress=False)
    assert res.computed == 1


# --------------------------------------------------------------------------------------------
# the table and the cache


def test_table_rows_equal_direct_simulation_and_follow_the_physics(tmp_path):
    Ks = [20, 40, 65]
    res = sweep(BASE, {"network.aqm.K": [f"{k}pkt" for k in Ks]}, seeds=2, out=tmp_path / "o", executor=tpool(), progress=False)
    assert (res.runs, res.computed, res.cached, res.failed) == (6, 6, 0, 0)
    df = res.table
    assert len(df) == 6 and df["run_id"].is_unique
    assert list(df["network.aqm.K"]) == ["20pkt", "20pkt", "40pkt", "40pkt", "65pkt", "65pkt"]
    assert list(df["network.aqm.K_pkt"]) == [20.0, 20.0, 40.0, 40.0, 65.0, 65.0]
    assert list(df["seed"]) == [1, 2] * 3 and set(df["status"]) == {"ok"}
    assert (df["run_wall_s"] > 0).all()

    # Every metric is exactly what simulate() + Result.summary() give for that run.
    for _, row in df.iterrows():
        sc = json.loads(json.dumps(BASE))
        sc["network"]["aqm"]["K"], sc["run"]["seed"] = row["network.aqm.K"], int(row["seed"])
        direct = flatten_summary(simulate(sc).summary())
        for k, v in direct.items():
            if "wall" in k or k == "seed":
                continue
            got = row[k]
            assert (v is None and (got is None or (isinstance(got, float) and math.isnan(got)))) or got == v, k

    # Physics (DCTCP analysis paper, Fig. 2 setting with N = 2): C*d = 10 Gbps * 100 us = 83 pkt,
    # the paper's guideline K > 0.17 C d = 14 pkt keeps the link busy, so every K here gives
    # utilization >= 0.99 (tolerance: one idle RTT in the 7 ms after warm-up would be 1.4 %);
    # the queue oscillates around K, so its time-averaged mean grows with K.
    util = df[col(df, r"port\[sw->r\]\.utilization")]
    q_mean = df[col(df, r"port\[sw->r\]\.q_mean_pkt")]
    assert (util >= 0.99).all()
    means = q_mean.groupby(df["network.aqm.K_pkt"]).mean()
    assert means.is_monotonic_increasing and means.iloc[-1] > means.iloc[0] + 20

    # Each run's tables sit beside the table and read back as a Result.
    back = res.result(df["run_id"][0])
    assert back.flows["goodput_bps"].sum() == pytest.approx(df[col(df, "goodput_total_bps")][0])
    assert json.loads((res.out / "sweep.json").read_text())["axes"] == {"network.aqm.K": ["20pkt", "40pkt", "65pkt"]}


def test_resume_recomputes_nothing_and_gives_the_same_table(tmp_path):
    out = tmp_path / "o"
    axes = {"network.aqm.K": ["20pkt", "40pkt"]}
    first = sweep(BASE, axes, seeds=2, out=out, executor=tpool(), progress=False)
    rows = {p: p.stat().st_mtime_ns for p in out.glob("runs/*/row.json")}
    with warnings.catch_warnings():
        warnings.simplefilter("error", SweepWarning)  # the same sweep again replaces no other's table
        again = sweep(BASE, axes, seeds=2, out=out, executor=tpool(), progress=False)
    assert (again.computed, again.cached) == (0, 4)
    pd.testing.assert_frame_equal(first.table, again.table)  # bit-identical, wall times included (stored)
    assert {p: p.stat().st_mtime_ns for p in out.glob("runs/*/row.json")} == rows

    # A new axis value computes only the new runs; the table holds exactly the current sweep.
    # Another sweep in the same OUT replaces the table and says so before it runs.
    with pytest.warns(SweepWarning, match=r"another sweep \(<inline> over network\.aqm\.K \(2\)\)"):
        more = sweep(BASE, {"network.aqm.K": ["20pkt", "40pkt", "65pkt"]}, seeds=2, out=out, executor=tpool(), progress=False)
    assert (more.computed, more.cached, len(more.table)) == (2, 4, 6)
    with pytest.warns(SweepWarning, match=r"network\.aqm\.K \(3\)"):
        fewer = sweep(BASE, {"network.aqm.K": ["40pkt"]}, seeds=2, out=out, executor=tpool(), progress=False)
    assert (fewer.computed, fewer.cached, list(fewer.table["network.aqm.K"])) == (0, 2, ["40pkt", "40pkt"])

    with warnings.catch_warnings():
        warnings.simplefilter("error", SweepWarning)
        forced = sweep(BASE, {"network.aqm.K": ["40pkt"]}, seeds=2, out=out, executor=tpool(), force=True, progress=False)
    assert (forced.computed, forced.cached) == (2, 0)
    pd.testing.assert_frame_equal(wall_free(forced.table), wall_free(fewer.table))


def test_the_result_of_a_run_without_tables_says_how_to_get_them(tmp_path):
    """SweepResult.result of a run the sweep kept without tables had said "no scenario.toml; not a
    run's directory" (an API audit); an id that is no run of the sweep is named as such."""
    from dcsim.result import ResultDirError

    res = sweep(BASE, {"network.aqm.K": ["20pkt"]}, out=tmp_path / "o", executor=tpool(), tables=False, progress=False)
    rid = res.table["run_id"][0]
    with pytest.raises(ResultDirError, match=r"kept only its summary row \(the sweep ran with tables=False"):
        res.result(rid)
    for bad in ("nope", 3, "../o"):
        with pytest.raises(ResultDirError, match=r"is not a finished run of this sweep"):
            res.result(bad)
    res = sweep(BASE, {"network.aqm.K": ["20pkt"]}, out=tmp_path / "o", executor=tpool(), tables=True, progress=False)
    assert res.result(rid).flows.shape[0] == 2


def test_tables_are_optional_and_asking_for_them_later_computes_them(tmp_path):
    out = tmp_path / "o"
    axes = {"network.aqm.K": ["20pkt", "40pkt"]}
    a = sweep(BASE, axes, out=out, tables=False, executor=tpool(), progress=False)
    assert sorted(p.name for p in (out / "runs" / a.table["run_id"][0]).iterdir()) == ["row.json"]
    b = sweep(BASE, axes, out=out, tables=False, executor=tpool(), progress=False)
    assert b.computed == 0
    c = sweep(BASE, axes, out=out, tables=True, executor=tpool(), progress=False)
    assert c.computed == 2 and (out / "runs" / a.table["run_id"][0] / "queue.parquet").exists()
    pd.testing.assert_frame_equal(wall_free(a.table), wall_free(c.table))


def test_one_rate_written_two_ways_is_refused_as_one_setting(tmp_path):
    # 10 Gbps written two ways is one setting: it had run once and shown two rows of one
    # combination (network.access_bps 10e9 twice), which the table counted as two seeds.
    with pytest.raises(SweepError, match=r'value \[1\] = "10000Mbps" is the same setting as value \[0\] = "10Gbps"'):
        sweep(BASE, {"network.access": ["10Gbps", "10000Mbps"]}, out=tmp_path / "o", executor=tpool(), progress=False)
    assert not (tmp_path / "o").exists()  # refused before anything ran or was written


def test_combinations_that_differ_only_in_max_wall_run_once_under_the_largest_bound(tmp_path):
    """run.max_wall is not in the engine spec, so such combinations share one computation. It ran
    under the first combination's bound: with ["1us", "100s"] the 100 s combination failed for a
    1 us bound it never set (an audit), and the bar counted 1 failure of 2. Now the shared run
    goes under the largest bound, whatever the order, and 1 us alone still stops its run."""
    for i, order in enumerate((["1us", "100s"], ["100s", "1us"])):
        res = sweep(BASE, {"run.max_wall": order}, out=tmp_path / f"o{i}", executor=tpool(), progress=False)
        assert (res.runs, res.computed, res.failed, res.shared) == (2, 1, 0, 1), res.failures
    res = sweep(BASE, {"run.max_wall": ["1us"]}, out=tmp_path / "alone", executor=tpool(), progress=False)
    assert res.failed == 1 and res.failures[0]["error"].startswith("RunLimitError: run.max_wall"), res.failures
    # the CLI's counts add up: "computed" counts engine runs, the others rows (a review: "6 runs: 2
    # computed, 0 cached, 0 failed")
    f = tmp_path / "mw.toml"
    f.write_text('base = "%s"\nseeds = 2\n[set]\n"run.duration" = "2ms"\n"run.warmup" = "0ms"\n'
                 '[axes]\n"run.max_wall" = ["10s", "20s", "30s"]\n' % (ROOT / "examples" / "dctcp_dumbbell.toml"))
    r = runner.invoke(app, ["sweep", str(f), "-o", str(tmp_path / "mw"), "--jobs", "1"])
    assert r.exit_code == 0, r.output
    assert "6 runs: 2 computed (4 more share their engine runs), 0 cached, 0 failed" in r.output, r.output
    r = runner.invoke(app, ["sweep", str(f), "-o", str(tmp_path / "mw"), "--jobs", "1"])
    assert "6 runs: 0 computed, 6 cached, 0 failed" in r.output, r.output


def test_a_failed_run_is_recorded_and_does_not_stop_the_sweep(tmp_path, monkeypatch):
    real = simulate_module.simulate

    def flaky(sc, **kw):
        if sc.run.seed == 2 and sc.network.aqm.K.value == 40:
            raise RuntimeError("engine exploded (test)")
        return real(sc, **kw)

    monkeypatch.setattr(simulate_module, "simulate", flaky)
    out = tmp_path / "o"
    res = sweep(BASE, {"network.aqm.K": ["20pkt", "40pkt"]}, seeds=2, out=out, executor=tpool(), progress=False)
    assert (res.computed, res.failed) == (3, 1)
    df = res.table
    bad = df[df["status"] == "error"]
    assert len(bad) == 1 and bad["error"].iloc[0] == "RuntimeError: engine exploded (test)"
    assert (bad["network.aqm.K"].iloc[0], bad["seed"].iloc[0]) == ("40pkt", 2)
    assert math.isnan(bad[col(df, "goodput_total_bps")].iloc[0])
    err = json.loads((out / "runs" / bad["run_id"].iloc[0] / "error.json").read_text())
    assert "engine exploded" in err["traceback"] and not (out / "runs" / bad["run_id"].iloc[0] / "row.json").exists()
    assert res.failures[0]["axes"] == 'network.aqm.K = "40pkt"'

    # The next sweep tries the failed run again (and only it).
    monkeypatch.setattr(simulate_module, "simulate", real)
    again = sweep(BASE, {"network.aqm.K": ["20pkt", "40pkt"]}, seeds=2, out=out, executor=tpool(), progress=False)
    assert (again.computed, again.cached, again.failed) == (1, 3, 0)
    assert not (out / "runs" / bad["run_id"].iloc[0] / "error.json").exists()


#: Two DCTCP flows with a 3 000 000-packet initial window into a 1 Gbps bottleneck with room for
#: them all: metrics.max_memory = 10 MB stops the run by its queues at t ~ 0.39 ms (a few tens of ms
#: of wall time), after a warm-up of 0.2 ms and before one of 0.5 ms.
FLOODED = {"network": {"topology": "dumbbell", "senders": 2, "bottleneck": "1Gbps", "access": "1Tbps", "rtt": "20us",
                       "buffer": "1000000000pkt", "aqm": {"kind": "threshold", "K": "65pkt"}},
           "flows": [{"count": 2, "protocol": "dctcp", "init_cwnd": 3_000_000}],
           "run": {"duration": "2ms", "warmup": "200us"}, "metrics": {"max_memory": "10MB"}}


def test_a_run_a_memory_bound_stops_is_kept_with_what_it_simulated_and_not_run_again(tmp_path, monkeypatch):
    """A metrics.max_memory stop is the run's own (the engine is deterministic and the bound is in
    the engine spec): the sweep had recorded it as an error, thrown away what it simulated and run
    it again on every resume, to the same stop. Now its row and tables are the partial Result's
    (status "stopped", the stop's message in `error`), a resume finds it cached, and an experiment
    asking for whole runs is refused; a stop before the warm-up ended keeps a row without metrics."""
    from dcsim import RunLimitError

    with pytest.raises(RunLimitError) as direct:
        simulate(Scenario.from_dict(FLOODED))
    part = direct.value.partial
    out = tmp_path / "o"
    axes = {"run.warmup": ["200us", "500us"]}
    res = sweep(FLOODED, axes, out=out, executor=tpool(), progress=False)
    assert (res.runs, res.computed, res.cached, res.failed) == (2, 2, 0, 0), res.failures
    df = res.table
    assert list(df["status"]) == ["stopped", "stopped"] and {s["run_id"] for s in res.stopped} == set(df["run_id"])
    assert df["error"].str.startswith("RunLimitError: metrics.max_memory: the run stopped at t = ").all()
    kept, early = df.iloc[0], df.iloc[1]
    # what it simulated: the same numbers as the partial Result of the same run outside a sweep
    assert kept[col(df, "goodput_total_bps")] == part.summary()["goodput_total_bps"] > 0
    assert kept["stopped.simulated_s"] == part.stopped["simulated_s"] < kept["stopped.duration_s"] == 2e-3
    assert math.isnan(early[col(df, "goodput_total_bps")])  # stopped before its warm-up: nothing measured
    from dcsim.result import ResultDirError

    with pytest.raises(ResultDirError, match=r"stopped by metrics.max_memory before its warm-up ended"):
        res.result(early["run_id"])
    back = res.result(kept["run_id"])
    assert back.stopped["field"] == "metrics.max_memory" and back.tables["flows"].equals(part.tables["flows"])
    with pytest.raises(RuntimeError, match=r"^fig: 2 of 2 packet run\(s\) did not finish; first .*max_memory"):
        res.require_finished("fig")

    # The resume computes nothing: the same spec would stop at the same instant.
    def not_again(sc, **kw):
        raise AssertionError("a kept stop was run again")

    monkeypatch.setattr(simulate_module, "simulate", not_again)
    again = sweep(FLOODED, axes, out=out, executor=tpool(), progress=False)
    assert (again.computed, again.cached, again.failed, len(again.stopped)) == (0, 2, 0, 2)
    pd.testing.assert_frame_equal(wall_free(again.table), wall_free(df))
    # The CLI says so, and exits 1: not every run ran to its end.
    f = tmp_path / "flooded.toml"
    f.write_text(Scenario.from_dict(FLOODED).to_toml())
    sf = tmp_path / "s.toml"
    sf.write_text(f'base = "{f}"\n[axes]\n"run.warmup" = ["200us", "500us"]\n')
    r = runner.invoke(app, ["sweep", str(sf), "-o", str(out), "--jobs", "1"])
    assert r.exit_code == 1, r.output
    assert "2 runs: 0 computed, 2 cached (2 of them stopped at metrics.max_memory), 0 failed" in r.output, r.output
    assert "2 runs stopped at metrics.max_memory" in r.output


def test_a_memory_stop_whose_results_could_not_be_built_is_tried_again(tmp_path, monkeypatch):
    """A memory stop keeps what it simulated and a sweep caches it (the same spec stops at the same
    instant); but where this machine could not build the partial's results (a MemoryError), the
    run had been cached as "stopped" with nothing, for good, though another machine would keep
    it (a review). It is a failure now, computed again on resume."""
    from dcsim.result import Result

    real = Result.from_engine.__func__

    def no_memory(cls, *a, **kw):
        raise MemoryError("no room for the tables")

    monkeypatch.setattr(Result, "from_engine", classmethod(no_memory))
    out = tmp_path / "o"
    axes = {"run.warmup": ["200us"]}
    res = sweep(FLOODED, axes, out=out, executor=tpool(), progress=False)
    assert (res.computed, res.failed, len(res.stopped)) == (0, 1, 0), res.failures
    assert "what it simulated could not be kept: MemoryError" in res.failures[0]["error"]
    monkeypatch.setattr(Result, "from_engine", classmethod(real))
    again = sweep(FLOODED, axes, out=out, executor=tpool(), progress=False)
    assert (again.computed, again.cached, again.failed, len(again.stopped)) == (1, 0, 0, 1)


@pytest.mark.parametrize("terminal", [True, False])
def test_the_progress_display_counts_the_runs_a_memory_bound_stopped(tmp_path, monkeypatch, terminal):
    """The bar counted stopped runs only among the done ones, as if they had run to their end. On
    a terminal one line above the bar now says so at the first stop (the bar has no room for a
    fourth count); a log's plain lines count them ("2 stopped"), as the summary does."""
    import io

    from rich.console import Console

    from dcsim.sweep import _View

    monkeypatch.setattr(_View, "PLAIN_MIN_S", 0.0)  # a plain line at every tenth of the runs
    con = Console(file=io.StringIO(), force_terminal=terminal, color_system=None, width=100)
    spec = make_spec(FLOODED, {"run.warmup": ["200us", "500us"]})
    res = run_sweep(spec, tmp_path / "o", executor=tpool(), progress=True, console=con)
    assert len(res.stopped) == 2
    text = con.file.getvalue()
    if terminal:
        assert len(re.findall(r"[12] runs? stopped at metrics\.max_memory: (it|each) is kept", text)) == 1, text
    else:
        assert "sweep: 2/2 runs (0 cached), 0 failed, 2 stopped" in text, text


def test_a_worker_that_dies_fails_only_its_own_run(tmp_path, monkeypatch):
    """Local pool (forked workers inherit the patch): the runs with seed 3 kill their worker
    process. The pool is restarted, the runs that were in flight beside them are run again one
    at a time, and only the killers are recorded as failed."""
    import os

    real = simulate_module.simulate

    def deadly(sc, **kw):
        if sc.run.seed == 3:
            os._exit(1)
        return real(sc, **kw)

    monkeypatch.setattr(simulate_module, "simulate", deadly)
    res = sweep(BASE, {"network.aqm.K": ["20pkt", "40pkt"]}, seeds=4, out=tmp_path / "o", jobs=2, tables=False, progress=False)
    df = res.table
    assert (len(df), res.computed, res.failed) == (8, 6, 2)
    died = df[df["status"] == "error"]
    assert list(died["seed"]) == [3, 3]
    assert died["error"].str.startswith("BrokenProcessPool: the worker process died while running this run alone").all()


def test_a_pool_that_breaks_between_two_submits_is_restarted_not_fatal(tmp_path, monkeypatch):
    """A worker that dies between two looks at the pool breaks it before the next submit, which
    then raises BrokenProcessPool: that ended the sweep with "cannot submit more runs" (a CI run
    of test_a_worker_that_dies_fails_only_its_own_run hit the race). Now the run goes back to be
    sent again, the pool is restarted, and nothing is recorded as failed. A stand-in pool raises
    at one submit, deterministically."""
    from concurrent.futures.process import BrokenProcessPool

    from dcsim.sweep import execute as ex

    real_start = ex.LocalPool.start
    raised = []

    def start(self):
        pool = real_start(self)
        real_submit = pool.submit

        def submit(fn, *a, **kw):
            if fn is ex.run_one and not raised:
                raised.append(fn)
                raise BrokenProcessPool("A child process terminated abruptly (stand-in)")
            return real_submit(fn, *a, **kw)

        pool.submit = submit
        return pool

    monkeypatch.setattr(ex.LocalPool, "start", start)
    res = sweep(BASE, {"network.aqm.K": ["20pkt", "40pkt"]}, seeds=2, out=tmp_path / "o", jobs=2, tables=False,
                progress=False)
    assert raised and (res.computed, res.failed) == (4, 0), res.table[["status", "error"]]


# --------------------------------------------------------------------------------------------
# sweep files and the CLI


def write_sweep(path: Path, body: str) -> Path:
    base = path.parent / "base.json"
    base.write_text(json.dumps(BASE))
    path.write_text(f'base = "base.json"\n{body}\n')
    return path


def test_example_sweep_file_loads():
    s = load_sweep(ROOT / "examples" / "sweep_k.toml")
    assert [a.name for a in s.axes] == ["network.aqm.K", "flows[0].g"] and s.seeds == [1, 2]
    assert s.set == {"run.duration": "50ms", "run.warmup": "10ms", "flows[0].start_jitter": "100us"}


def test_the_example_sweeps_seeds_give_different_runs(tmp_path):
    """sweep_k.toml asks for 2 seeds, but its base has nothing random: the two seeds gave
    bit-identical rows (an audit of the examples). Its random starts now make them differ."""
    spec = load_sweep(ROOT / "examples" / "sweep_k.toml")
    res = sweep(spec.base, {"network.aqm.K": ["65pkt"]}, seeds=2, set=spec.set, out=tmp_path / "o",
                executor=tpool(), progress=False)
    q = res.table["port[sw->r].q_mean_pkt"].to_numpy()
    assert len(q) == 2 and q[0] != q[1]


def test_every_example_sweep_plans_runs_the_scenario_layer_accepts():
    """Each examples/sweep_*.toml loads and every run it plans passes the scenario layer's checks (a
    dry run: what only the engine checks, such as paths in a graph, is not run here)."""
    for path in sorted((ROOT / "examples").glob("sweep_*.toml")):
        plan = plan_sweep(load_sweep(path))
        assert plan.runs, path.name
    perm = plan_sweep(load_sweep(ROOT / "examples" / "sweep_permutation.toml"))
    assert len(perm.runs) == 3 * 10  # k = 4, 6, 8 x ten seeds


def test_sweep_file_forms(tmp_path):
    f = write_sweep(tmp_path / "s.toml", 'seeds = 2\nseed_base = 4\n[set]\n"run.duration" = "5ms"\n[axes]\nnetwork.aqm.K = ["10pkt", "20pkt"]\n')
    s = load_sweep(f)
    assert [a.name for a in s.axes] == ["network.aqm.K"] and s.seeds == [4, 5] and s.set == {"run.duration": "5ms"}
    inline = tmp_path / "i.toml"
    inline.write_text('[base.network]\nbottleneck = "1Gbps"\nrtt = "100us"\nbuffer = "100pkt"\n[[base.flows]]\nprotocol = "newreno"\n'
                      '[base.run]\nduration = "5ms"\n[axes]\n"flows[0].count" = [1, 2]\n')
    s2 = load_sweep(inline)
    assert s2.base["network"]["bottleneck"] == "1Gbps" and len(plan_sweep(s2).runs) == 2


@pytest.mark.parametrize(
    "body, expect",
    [
        ('[axes]\n"network.aqm.KK" = ["20pkt"]', "axis network.aqm.KK: no such scenario field"),
        ('[axes]\n"network.aqm.K" = ["20us"]', 'axis network.aqm.K = "20us": network.aqm.K: unknown size unit'),
        ('[axes]\n"network.aqm.K" = []', "axis network.aqm.K: empty list of values"),
        ('combine = "zip"\n[axes]\n"network.aqm.K" = ["20pkt"]\n"flows[0].g" = [0.1, 0.2]', "axes: combine = \"zip\" needs axes of equal length"),
        ('sedes = 2\n[axes]\n"network.aqm.K" = ["20pkt"]', "sedes: unknown key in the sweep file; did you mean 'seeds'?"),
        ('combine = "cross"\n[axes]\n"network.aqm.K" = ["20pkt"]', "combine: 'cross' is not one of grid, zip"),
        ("seeds = 3", "axes: required"),
    ],
)
def test_cli_bad_input_exits_2_naming_the_axis(tmp_path, body, expect):
    f = write_sweep(tmp_path / "s.toml", body)
    res = runner.invoke(app, ["sweep", str(f), "--out", str(tmp_path / "o")], env={"COLUMNS": "300"})
    assert res.exit_code == 2, res.output
    assert expect in res.output and "Traceback" not in res.output
    assert not (tmp_path / "o" / "runs").exists()


def test_cli_more_than_100000_runs_needs_yes(tmp_path):
    f = write_sweep(tmp_path / "s.toml", 'seeds = 1001\n[axes]\n"network.aqm.K" = [' + ", ".join(f'"{k}pkt"' for k in range(1, 101)) + "]")
    res = runner.invoke(app, ["sweep", str(f), "--out", str(tmp_path / "o")], env={"COLUMNS": "300"})
    assert res.exit_code == 2 and "the sweep has 100,100 runs (network.aqm.K (100) x 1001 seeds)" in res.output
    assert "--yes" in res.output


def test_cli_runs_a_sweep_and_dry_run_plans_only(tmp_path):
    f = write_sweep(tmp_path / "s.toml", 'seeds = 2\n[axes]\n"network.aqm.K" = ["20pkt", "40pkt"]')
    out = tmp_path / "o"
    dry = runner.invoke(app, ["sweep", str(f), "--out", str(out), "--dry-run"], env={"COLUMNS": "300"})
    assert dry.exit_code == 0 and "= 4 runs; 0 finished before, 4 to run" in dry.output and not (out / "runs").exists()
    res = runner.invoke(app, ["sweep", str(f), "--out", str(out), "--jobs", "2"], env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    assert "4 runs: 4 computed, 0 cached, 0 failed" in res.output
    # The summary says where the runs ran (a probe: it had said so only in the plan line).
    assert re.search(r"4 runs: 4 computed, 0 cached, 0 failed in [^\n]* on 2 local processes", res.output), res.output
    assert len(pd.read_parquet(out / "sweep.parquet")) == 4
    again = runner.invoke(app, ["sweep", str(f), "--out", str(out)], env={"COLUMNS": "300"})
    assert "4 runs: 0 computed, 4 cached, 0 failed" in again.output
    assert " on " not in again.output.split("4 cached, 0 failed", 1)[1].splitlines()[0]  # none ran
    # --force said "0 finished before, 4 to run", hiding that it computes finished runs again (an audit)
    forced = runner.invoke(app, ["sweep", str(f), "--out", str(out), "--force"], env={"COLUMNS": "300"})
    assert "= 4 runs; 4 finished before, 4 of them computed again (--force), 4 to run" in forced.output, forced.output


def test_cli_warns_before_replacing_another_sweeps_table(tmp_path):
    """A sweep into an OUT that holds another sweep's table replaces sweep.parquet and sweep.json:
    the plan says so before anything runs (a dry run too), and a damaged sweep.json counts as
    another sweep's; the same sweep again says nothing."""
    out = tmp_path / "o"
    a = write_sweep(tmp_path / "a.toml", '[axes]\n"network.aqm.K" = ["20pkt", "40pkt"]')
    b = write_sweep(tmp_path / "b.toml", '[axes]\n"flows[0].g" = [0.0625]')
    first = runner.invoke(app, ["sweep", str(a), "--out", str(out), "--jobs", "1"], env={"COLUMNS": "300"})
    assert first.exit_code == 0 and "another sweep" not in first.output, first.output
    again = runner.invoke(app, ["sweep", str(a), "--out", str(out), "--dry-run"], env={"COLUMNS": "300"})
    assert again.exit_code == 0 and "another sweep" not in again.output, again.output
    other = runner.invoke(app, ["sweep", str(b), "--out", str(out), "--dry-run"], env={"COLUMNS": "300"})
    assert other.exit_code == 0, other.output
    said = " ".join(other.output.split())  # the console wraps long lines
    assert "warning: " in said and "base.json over network.aqm.K (2))" in said, said
    assert json.loads((out / "sweep.json").read_text())["axes"] == {"network.aqm.K": ["20pkt", "40pkt"]}  # dry run
    (out / "sweep.json").write_text("{not json")
    damaged = runner.invoke(app, ["sweep", str(a), "--out", str(out), "--jobs", "1"], env={"COLUMNS": "300"})
    assert damaged.exit_code == 0 and "another sweep (a damaged sweep.json)" in " ".join(damaged.output.split())
    assert json.loads((out / "sweep.json").read_text())["axes"] == {"network.aqm.K": ["20pkt", "40pkt"]}


def test_seeds_and_axis_values_up_to_2_64_reach_the_sweep_table(tmp_path):
    """run.seed and network.ecmp_seed take 0 .. 2^64 - 1; a sweep's table holds them exactly (as
    unsigned 64-bit integers), in one chunk of rows or across chunks typed differently. Values
    >= 2^63 once failed the table's writing after every run had finished."""
    from dcsim.sweep.store import RowBuffer

    base = (
        '[base.network]\ntopology = "leaf_spine"\nleaves = 2\nspines = 2\nhosts_per_leaf = 1\nhost_link = "10Gbps"\n'
        'buffer = "100pkt"\n[[base.workloads]]\nkind = "permutation"\nprotocol = "dctcp"\nsize = "10KB"\n'
        '[base.run]\nduration = "1ms"\n'
    )
    big = [2**63, 2**64 - 1]
    f = tmp_path / "s.toml"
    f.write_text(f"seeds = 1\nseed_base = {2**63}\n{base}[axes]\n\"network.ecmp_seed\" = {big}\n")
    out = tmp_path / "o"
    res = runner.invoke(app, ["sweep", str(f), "--out", str(out), "--jobs", "1"], env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    table = pd.read_parquet(out / "sweep.parquet")
    assert table[col(table, r".*ecmp_seed")].tolist() == big
    assert table["seed"].tolist() == [2**63, 2**63]
    rows = RowBuffer()
    rows.CHUNK = 1  # one chunk per row: int64 in one, uint64 in the other
    rows.add(0, {"x": 5})
    rows.add(1, {"x": 2**64 - 1})
    assert rows.table().column("x").to_pylist() == [5, 2**64 - 1]


def test_cli_prints_the_results_per_combination(tmp_path):
    """One row per value of the axis, each the mean over its seeds of the sweep table's columns;
    the utilization is a share of the link (0 .. 100 %), and DCTCP with K = 20 / 40 packets at
    10 Gbps x 100 us (C d = 83 pkt, K > 0.17 C d) keeps the bottleneck busy (>= 99 %)."""
    f = write_sweep(tmp_path / "s.toml", 'seeds = 2\n[axes]\n"network.aqm.K" = ["20pkt", "40pkt"]')
    out = tmp_path / "o"
    res = runner.invoke(app, ["sweep", str(f), "--out", str(out), "--jobs", "2"], env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    df = pd.read_parquet(out / "sweep.parquet")
    util, good = col(df, r"port\[.*\]\.utilization"), "goodput_total_bps"
    assert "results after warm-up (mean over the finished seeds)" in res.output, res.output
    rows = [line.split("│")[1:-1] for line in res.output.splitlines() if line.startswith("│")]
    assert [r[0].strip() for r in rows] == ["20pkt", "40pkt"], rows
    for r, k in zip(rows, ["20pkt", "40pkt"]):
        mine = df[df["network.aqm.K"] == k]
        cells = [c.strip() for c in r]
        assert cells[1] == "2"  # seeds
        assert cells[2] == f"{mine[good].mean() / 1e9:.3f}"
        shown_util = float(cells[cells.index(f"{100 * mine[util].mean():.2f}")])
        assert 99.0 <= shown_util <= 100.0, cells


def test_duckdb_reads_the_table(tmp_path):
    import duckdb  # a test dependency (pip install -e '.[test]'), not a core one
    res = sweep(BASE, {"network.aqm.K": ["20pkt", "40pkt"]}, seeds=2, out=tmp_path / "o", executor=tpool(), progress=False)
    q = col(res.table, r"port\[sw->r\]\.q_mean_pkt")
    rows = duckdb.sql(
        f'SELECT "network.aqm.K_pkt" AS K, avg("{q}") AS q FROM read_parquet(\'{res.table_path}\') GROUP BY 1 ORDER BY 1'
    ).fetchall()
    expect = res.table.groupby("network.aqm.K_pkt")[q].mean()
    assert [r[0] for r in rows] == [20.0, 40.0] and [r[1] for r in rows] == pytest.approx(list(expect))


class _OtherWorkerExecutor(cf.ThreadPoolExecutor):
    """Stands for a worker with another dcsim: its results carry another engine-spec key and the
    worker's fields ``other`` (another version, or other code of the same version)."""

    def __init__(self, other: dict) -> None:
        super().__init__(1)
        self.other = other

    def submit(self, fn, *args, **kwargs):
        def other(*a, **kw):
            return {**fn(*a, **kw), "key": "0" * 64, **self.other}

        return super().submit(other, *args, **kwargs)


@pytest.mark.parametrize("other, said", [
    ({"version": "9.9.9"}, "worker dcsim 9.9.9"),
    ({"code": "engine other python other"}, "the worker runs other dcsim code"),
    # a Dask worker that joined after the sweep's check is named (a review)
    ({"code": "engine other python other", "worker": "tcp://10.0.0.7:4000"},
     "the worker tcp://10.0.0.7:4000 runs other dcsim code (engine sources or Python files) than this sweep"),
])
def test_a_result_from_another_dcsim_is_refused(tmp_path, other, said):
    res = sweep(BASE, {"network.aqm.K": ["20pkt"]}, out=tmp_path / "o", executor=_OtherWorkerExecutor(other), progress=False)
    assert (res.computed, res.failed) == (0, 1)
    assert said in res.failures[0]["error"] and "install the same dcsim on every worker" in res.failures[0]["error"]
    assert not list((tmp_path / "o").glob("runs/*/row.json"))


def test_the_trace_content_is_sent_again_once_the_workers_holding_it_are_gone(tmp_path):
    """A trace's content goes to a Dask cluster once and is reused. Scattered, it was lost with
    the workers holding it: each run sent again asked for the lost data and failed "cancelled 3
    times", and a sweep hung at 59 of 60 runs (a review, workers killed on a real cluster). It is
    now a task the scheduler can compute again (tests/test_sweep_dask.py runs a cluster), and it
    is sent again after any cancelled run."""
    import hashlib

    from dcsim.sweep.execute import RunTraces

    f = tmp_path / "t.csv"
    f.write_text("0 h0 h1 1000\n")
    digest = hashlib.sha256(f.read_bytes()).hexdigest()

    class Future:
        pass

    class Client:
        def __init__(self):
            self.sent = []

        def submit(self, fn, data, key, pure):
            assert fn(data) == data == f.read_bytes() and key.startswith("dcsim-trace-") and not pure
            self.sent.append(Future())
            return self.sent[-1]

    class Plan:
        def trace_files(self, run):
            return {0: (str(f), digest)}

    client = Client()
    traces = RunTraces(Plan(), ship=True, client=client)
    first = traces(None)["data"][str(f)]
    assert traces(None)["data"][str(f)] is first and len(client.sent) == 1  # sent once, reused
    traces.forget()  # a cancelled run (execute's `cancelled`)
    assert traces(None)["data"][str(f)] is not first and len(client.sent) == 2


class _CancellingExecutor(cf.ThreadPoolExecutor):
    """Stands for a Dask cluster whose worker went away: it cancels each run's first ``cancels``
    submissions (the future is cancelled, as Dask's are), then runs it; after ``closed_after``
    submissions it refuses more with a ``ClosedClientError``, as a client whose scheduler went
    away (kill -9) does."""

    def __init__(self, cancels: int, closed_after: int = 10**9) -> None:
        super().__init__(1)
        self.cancels, self.closed_after, self.seen, self.n = cancels, closed_after, {}, 0

    def submit(self, fn, payload, *args, **kwargs):
        self.n += 1
        if self.n > self.closed_after:
            raise type("ClosedClientError", (Exception,), {})("Client is closed. Can't send update-graph message.")
        self.seen[payload] = self.seen.get(payload, 0) + 1
        if self.seen[payload] <= self.cancels:
            f = cf.Future()
            f.cancel()
            f.set_running_or_notify_cancel()  # as an executor does: the waiters see it done
            return f
        return super().submit(fn, payload, *args, **kwargs)


def test_a_run_the_executor_cancels_is_sent_again_and_not_counted_failed(tmp_path):
    """A Dask scheduler killed mid-sweep: the runs it held were cancelled and each was recorded as
    failed at once ("8 failed" though none had), and the next submit's ClosedClientError ended
    the CLI in "internal error" without a table (a probe). A cancelled run is now sent again, up to
    CANCELLED_TRIES times in all, and a closed client is a SweepError that says the finished runs
    are kept."""
    from dcsim.sweep.execute import CANCELLED_TRIES

    axes = {"network.aqm.K": ["20pkt", "40pkt"]}
    res = sweep(BASE, axes, out=tmp_path / "a", executor=_CancellingExecutor(cancels=CANCELLED_TRIES - 1), progress=False)
    assert (res.computed, res.failed) == (2, 0)
    res = sweep(BASE, axes, out=tmp_path / "b", executor=_CancellingExecutor(cancels=CANCELLED_TRIES), progress=False)
    assert (res.computed, res.failed) == (0, 2)
    assert all(f"cancelled this run {CANCELLED_TRIES} times" in f["error"] for f in res.failures)
    with pytest.raises(SweepError, match=r"dask: the connection to the Dask scheduler is closed \(Client is closed"
                                         r".*finished runs are kept"):
        sweep(BASE, {"network.aqm.K": ["20pkt", "40pkt", "65pkt"]}, out=tmp_path / "c",
              executor=_CancellingExecutor(cancels=0, closed_after=1), progress=False)
    again = sweep(BASE, {"network.aqm.K": ["20pkt", "40pkt", "65pkt"]}, out=tmp_path / "c", executor=tpool(),
                  progress=False)
    assert (again.cached + again.computed, again.failed) == (3, 0)


def test_a_sweep_table_that_cannot_be_written_says_the_runs_are_kept_and_how_to_resume(tmp_path, monkeypatch):
    """A full disk when the sweep table itself is written ended the CLI with only "No space left
    on device: .../sweep.parquet" (an audit). The error now says the runs are kept and that the
    same command writes the table without computing them again, which it does."""
    import errno

    import dcsim.sweep.store as store

    real = store.write_table

    def full_disk(out, table):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store, "write_table", full_disk)
    axes = {"network.aqm.K": ["10pkt", "20pkt"]}
    with pytest.raises(SweepError, match=r"^out: cannot write the sweep table in .* \(No space left on device\); the results "
                                         r"of 2 of the 2 runs are kept in .*runs: make room and run the same command again"):
        sweep(BASE, axes, out=tmp_path / "o", executor=tpool(), progress=False)
    monkeypatch.setattr(store, "write_table", real)
    again = sweep(BASE, axes, out=tmp_path / "o", executor=tpool(), progress=False)
    assert (again.computed, again.cached, again.failed) == (0, 2, 0)


@pytest.mark.parametrize("where", ["parent", "local pool"])
def test_a_run_whose_tables_cannot_be_written_keeps_its_summary_row(tmp_path, monkeypatch, where):
    """A full disk while a run's tables are written (here: every Parquet write fails with ENOSPC)
    loses no computed number: the run's summary row is in the sweep table beside its error, the
    sweep goes on to the end, and the next sweep computes the run again. ``parent``: an executor
    whose results the sweep's process writes (a Dask client); ``local pool``: the forked workers
    write their own runs."""
    import errno

    import dcsim.sweep.store as store

    real = store.atomic_write

    def full_disk(path, data):
        if str(path).endswith(".parquet") and "runs" in str(path):
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, data)

    monkeypatch.setattr(store, "atomic_write", full_disk)
    axes = {"network.aqm.K": ["10pkt", "20pkt"]}
    kw = {"executor": cf.ThreadPoolExecutor(1)} if where == "parent" else {"jobs": 1}
    res = sweep(BASE, axes, out=tmp_path / "o", progress=False, **kw)
    assert (res.computed, res.failed) == (0, 2)
    t = res.table
    assert list(t["status"]) == ["error", "error"]
    assert t["error"].str.contains("writing the run's files").all() and t["error"].str.contains("No space").all()
    assert t["goodput_total_bps"].gt(0).all() and t["duration_s"].notna().all()  # the summary rows, kept
    monkeypatch.setattr(store, "atomic_write", real)
    again = sweep(BASE, axes, out=tmp_path / "o", progress=False, jobs=1)
    assert (again.computed, again.cached, again.failed) == (2, 0, 0)
    cols = ["goodput_total_bps", "duration_s"]
    pd.testing.assert_frame_equal(again.table[cols], t[cols])


def test_base_as_scenario_or_file_and_bad_out(tmp_path):
    by_dict = plan_sweep(make_spec(BASE, {"network.aqm.K": ["10pkt", "20pkt"]}))
    by_model = plan_sweep(make_spec(Scenario.from_dict(BASE), {"network.aqm.K": ["10pkt", "20pkt"]}))
    (tmp_path / "b.json").write_text(json.dumps(BASE))
    by_file = plan_sweep(make_spec(tmp_path / "b.json", {"network.aqm.K": ["10pkt", "20pkt"]}))
    assert [r.key for r in by_dict.runs] == [r.key for r in by_model.runs] == [r.key for r in by_file.runs]
    # A base that only the axes complete is fine: every combination is what gets validated.
    partial = json.loads(json.dumps(BASE))
    del partial["flows"][0]["protocol"]
    assert len(plan_sweep(make_spec(partial, {"flows[0].protocol": ["dctcp"]})).runs) == 1
    for Ks in (["10pkt", "20pkt"], ["10pkt"]):
        with pytest.raises(SweepError) as e:
            plan_sweep(make_spec(partial, {"network.aqm.K": Ks}))
        assert str(e.value).startswith("every combination (the base with its set changes): flows[0].protocol: required")
    (tmp_path / "file").write_text("")
    with pytest.raises(SweepError, match=r"^out: cannot create the output directory"):
        sweep(BASE, {"network.aqm.K": ["10pkt"]}, out=tmp_path / "file" / "o", executor=tpool(), progress=False)


def test_two_sweeps_cannot_write_to_one_directory(tmp_path):
    from dcsim.sweep.store import sweep_lock

    with sweep_lock(tmp_path / "o"):
        with pytest.raises(SweepError, match=r"^out: another dcsim sweep is writing to .* \(pid \d+\)"):
            sweep(BASE, {"network.aqm.K": ["10pkt"]}, out=tmp_path / "o", executor=tpool(), progress=False)
    assert sweep(BASE, {"network.aqm.K": ["10pkt"]}, out=tmp_path / "o", executor=tpool(), progress=False).computed == 1


def test_partitioned_runs_take_their_cores_from_the_default_jobs(tmp_path, monkeypatch):
    # A run of 2 partitions keeps 2 cores busy: on a 4-core machine the local pool runs 2 at once
    # by default (an explicit --jobs is kept), and the rows are the runs' own results.
    import dcsim.sweep.execute as sw

    seen = []
    real = sw.LocalPool.__init__

    def spy(self, jobs):
        seen.append(jobs)
        real(self, jobs)

    monkeypatch.setattr(sw.LocalPool, "__init__", spy)
    monkeypatch.setattr(sw, "default_jobs", lambda: 4)
    base = {
        "network": {"topology": "fat_tree", "k": 4, "host_link": "10Gbps", "buffer": "100pkt", "delay": "1us"},
        "workloads": [{"kind": "poisson", "load": 0.3, "sizes": {"kind": "uniform", "min": "10KB", "max": "30KB"},
                       "protocol": "dctcp"}],
        "run": {"duration": "2ms", "seed": 1, "partitions": 2},
    }
    res = sweep(base, {"workloads[0].load": [0.2, 0.3, 0.4]}, out=tmp_path / "o", progress=False)
    assert seen == [2] and res.failed == 0 and res.computed == 3
    for _, row in res.table.iterrows():
        sc = json.loads(json.dumps(base))
        sc["workloads"][0]["load"] = row["workloads[0].load"]
        direct = flatten_summary(simulate(sc).summary())
        assert row[col(res.table, "goodput_total_bps")] == direct["goodput_total_bps"]
    sweep(base, {"workloads[0].load": [0.25]}, out=tmp_path / "p", jobs=3, progress=False)
    assert seen[-1] == 1  # min(jobs, runs to compute)


def test_scenario_warnings_are_said_once_by_the_sweep_not_by_each_worker(tmp_path):
    """A scenario warning (here: 500 us after warm-up are only 5 round trips of 100 us, in every
    combination) is printed once with "warning:", not once per run by each worker as a Python
    warning with a source path."""
    f = write_sweep(tmp_path / "s.toml", 'seeds = 2\n[set]\n"run.duration" = "500us"\n"run.warmup" = "0s"\n'
                                         '[axes]\n"network.aqm.K" = ["20pkt", "40pkt"]')
    res = runner.invoke(app, ["sweep", str(f), "--out", str(tmp_path / "o"), "--jobs", "1"], env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    lines = [line for line in res.output.splitlines() if "RTTs after warm-up" in line]
    assert len(lines) == 1 and lines[0].startswith("warning: run: only "), res.output
    assert "combinations" not in lines[0]  # it concerns every combination
    assert "ScenarioWarning" not in res.output and "worker.py" not in res.output, res.output
    assert "on 1 local process;" in res.output, res.output
    g = write_sweep(tmp_path / "t.toml", '[set]\n"run.warmup" = "0s"\n[axes]\n"run.duration" = ["500us", "5ms"]')
    res = runner.invoke(app, ["sweep", str(g), "--out", str(tmp_path / "o2"), "--dry-run"], env={"COLUMNS": "300"})
    lines = [line for line in res.output.splitlines() if "RTTs after warm-up" in line]
    assert len(lines) == 1 and lines[0].endswith('(in 1 of 2 combinations: run.duration = "500us")'), res.output


def test_a_workload_sweep_shows_the_slowdown_of_its_finished_flows(tmp_path):
    """With finite flows the results at a glance add the finished flows and the slowdown p50 / p99
    (of the "all" FCT group, as the sweep table holds it); slowdown >= 1 by definition."""
    root = Path(__file__).resolve().parent.parent / "examples"
    f = tmp_path / "w.toml"
    f.write_text(f'base = "{root / "fat_tree.toml"}"\n[set]\n"run.duration" = "3ms"\n'
                 '[axes]\n"workloads[0].load" = [0.2, 0.4]\n')
    res = runner.invoke(app, ["sweep", str(f), "--out", str(tmp_path / "o"), "--jobs", "2"], env={"COLUMNS": "400"})
    assert res.exit_code == 0, res.output
    df = pd.read_parquet(tmp_path / "o" / "sweep.parquet")
    head = next(line for line in res.output.splitlines() if line.startswith("┃"))
    names = [c.strip() for c in head.split("┃")[1:-1]]
    assert {"flows done", "slowdown p50", "slowdown p99"} <= set(names), names
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in res.output.splitlines() if line.startswith("│")]
    for r, load in zip(rows, [0.2, 0.4]):
        mine = df[df["workloads[0].load"] == load]
        p99 = float(mine["fct_group[all].slowdown_p99"].mean())
        rough = "~" if mine["fct_group[all].finished"].min() < 100 else ""  # among a seed's largest few
        assert r[names.index("slowdown p99")] == f"{rough}{p99:.2f}" and p99 >= 1.0, (r, p99)
    # A monitored port left idle by the load (a fabric's default monitors) gets no columns of "0.00".
    for i, name in enumerate(names):
        if name.endswith("util %"):
            assert any(r[i] != "0.00" for r in rows), (name, rows)


@pytest.mark.parametrize("call, expect", [
    (lambda tmp: make_spec(BASE, {5: ["10pkt"]}), r"^axes: key 5 is not a path"),
    (lambda tmp: make_spec(BASE, {"network.aqm.K": ["10pkt", "20pkt", "10pkt"]}),
     r"^axis network.aqm.K: value \[2\] = \"10pkt\" is the same setting as value \[0\]"),
    (lambda tmp: make_spec(BASE, {"network.aqm.K": ["10pkt"]}, set=[1]), r"^set: expected a table of path = value"),
    (lambda tmp: run_sweep(make_spec(BASE, {"network.aqm.K": ["10pkt"]}), None), r"^out: None is not a directory path"),
    (lambda tmp: run_sweep(make_spec(BASE, {"network.aqm.K": ["10pkt"]}), tmp, jobs=1000), r"^jobs: 1000 is out of range; allowed an integer 1 \.\. 256"),
    (lambda tmp: run_sweep(make_spec(BASE, {"network.aqm.K": ["10pkt"]}), tmp / "o", dask="http://x"),
     r"^dask: 'http://x' is not a scheduler address"),
])
def test_api_inputs_of_a_sweep_are_named(tmp_path, call, expect):
    """From Python these ended in TypeError ('int' object is not iterable; expected str, bytes or
    os.PathLike), AttributeError ('list' object has no attribute 'items'), or ran: a repeated
    axis value as two "seeds" of one combination, 1 000 local processes on 2 cores."""
    with pytest.raises(SweepError, match=expect):
        call(tmp_path)


@pytest.mark.parametrize("axes, expect", [
    ({"flows[0].g": [1, 1.0, 0.5]}, r"^axis flows\[0\].g: value \[1\] = 1.0 is the same setting as value \[0\] = 1;"),
    ({"network.aqm.K": ["10pkt", "10 pkt", "20pkt"]}, r"^axis network.aqm.K: value \[1\] = \"10 pkt\" is the same setting"),
    ({"run.duration": ["1ms", "1000us"]}, r"^axis run.duration: value \[1\] = \"1000us\" is the same setting"),
    ({("network.aqm.K", "flows[0].g"): [["10pkt", 1], ["10 pkt", 1.0]]}, r"^axis network.aqm.K, flows\[0\].g: value \[1\]"),
])
def test_one_setting_written_twice_in_an_axis_is_refused(axes, expect):
    """A review: g = [1, 1.0, 0.5] with 2 seeds ran g = 1 once and showed it as one combination of
    "4 seeds" (each run twice in sweep.parquet: its standard error too small by sqrt(2)); values were
    compared by their JSON text. They are now compared by what they set: numbers by value, a
    quantity by its amount."""
    with pytest.raises(SweepError, match=expect):
        make_spec(BASE, axes)
    make_spec(BASE, {"network.aqm.K": ["10pkt", "10KB"], "flows[0].g": [1, 0.5]})  # packets and bytes differ


def test_an_axis_too_long_or_without_order_is_refused_at_once():
    """A review: an axis of 5 x 10^6 values took 51 s and 1.2 GB before the run limit refused it, a
    range(10**9) ran out of memory; a Python set gave the runs and rows in another order in each
    process. The length is checked before anything is copied (a generator as it is read)."""
    with pytest.raises(SweepError, match=r"^axis flows\[0\].g: 999,999,999 values; a sweep has at most 1,000,000 runs"):
        make_spec(BASE, {"flows[0].g": range(1, 10**9)})
    with pytest.raises(SweepError, match=r"^axis flows\[0\].g: more than 1,000,000 values"):
        make_spec(BASE, {"flows[0].g": (k / 1e9 for k in itertools.count(1))})
    with pytest.raises(SweepError, match=r"^axis network.aqm.K: a set of values has no order"):
        make_spec(BASE, {"network.aqm.K": {"10pkt", "20pkt"}})


def test_a_sweep_file_as_the_base_is_named(tmp_path):
    """A review: a sweep file given as the base was told "seeds: unknown key; allowed keys: ...",
    once per sweep key."""
    sweep_file = Path(__file__).resolve().parent.parent / "examples" / "sweep_k.toml"
    with pytest.raises(SweepError, match=r"^base: .*sweep_k.toml is a sweep file \(it has axes\)"):
        make_spec(str(sweep_file), {"flows[0].g": [0.5]})


def test_a_cached_run_that_was_damaged_is_computed_again(tmp_path):
    """A finished run is trusted by its row.json; a row whose metrics were emptied gave a blank
    row in the table, and a cut Parquet file or a deleted scenario.toml stayed "cached" forever."""
    s = make_spec(BASE, {"network.aqm.K": ["10pkt", "20pkt", "40pkt"]})
    first = run_sweep(s, tmp_path, jobs=1, progress=False)
    ids = list(pd.read_parquet(first.table_path)["run_id"])
    rows = [tmp_path / "runs" / i / "row.json" for i in ids]
    rec = json.loads(rows[0].read_text())
    rows[0].write_text(json.dumps({**rec, "metrics": {}}))
    q = tmp_path / "runs" / ids[1] / "queue.parquet"
    q.write_bytes(q.read_bytes()[:-10])
    (tmp_path / "runs" / ids[2] / "scenario.toml").unlink()
    again = run_sweep(s, tmp_path, jobs=1, progress=False)
    assert again.computed == 3 and again.cached == 0
    df = pd.read_parquet(again.table_path)
    assert df["goodput_total_bps"].notna().all()
    third = run_sweep(s, tmp_path, jobs=1, progress=False)
    assert third.cached == 3 and third.computed == 0


def test_a_cached_run_with_a_table_missing_or_changed_in_place_or_an_edited_row_is_computed_again(tmp_path):
    """A robustness probe: a deleted cwnd.parquet, a queue.parquet with 60 bytes inverted in its
    middle (its magic bytes intact) and a valid row.json whose goodput was doubled were all trusted.
    Each run's row now lists its files' sizes and CRC-32 and carries a CRC-32 of itself."""
    s = make_spec(BASE, {"network.aqm.K": ["10pkt", "20pkt", "40pkt"]})
    first = run_sweep(s, tmp_path, jobs=1, progress=False)
    before = pd.read_parquet(first.table_path)
    ids = list(before["run_id"])
    runs = tmp_path / "runs"
    (runs / ids[0] / "cwnd.parquet").unlink()
    q = runs / ids[1] / "queue.parquet"
    data = bytearray(q.read_bytes())
    data[200:260] = bytes(b ^ 0xFF for b in data[200:260])
    q.write_bytes(bytes(data))
    row = runs / ids[2] / "row.json"
    rec = json.loads(row.read_text())
    rec["metrics"]["goodput_total_bps"] *= 2
    row.write_text(json.dumps(rec))
    again = run_sweep(s, tmp_path, jobs=1, progress=False)
    assert again.computed == 3 and again.cached == 0
    after = pd.read_parquet(again.table_path)
    assert list(after["goodput_total_bps"]) == list(before["goodput_total_bps"])
    for i in ids:
        Result.from_dir(runs / i)  # every table there and readable
    assert run_sweep(s, tmp_path, jobs=1, progress=False).cached == 3


def test_python_api_options_of_the_wrong_kind_are_named():
    """The Python API checks its options as TOML and the CLI do: a string where an executor goes
    (it raised AttributeError: 'str' object has no attribute 'submit') and a string where a flag
    goes (yes="no" meant yes) are errors naming the option, before anything runs."""
    with pytest.raises(SweepError, match=r"^executor: 'local' is not an executor; allowed a concurrent\.futures\.Executor"):
        sweep(BASE, {"network.aqm.K": ["20pkt"]}, out="unused", executor="local", progress=False)
    for name in ("yes", "tables", "force", "progress"):
        with pytest.raises(SweepError, match=rf"^{name}: expected True or False, got 'no'"):
            sweep(BASE, {"network.aqm.K": ["20pkt"]}, out="unused", **{"progress": False, name: "no"})
    assert not Path("unused").exists()


def test_a_signal_while_the_table_is_written_leaves_the_table(tmp_path, monkeypatch):
    """SIGTERM after the last run, while sweep.parquet is written: the table is written, then the
    sweep says it was interrupted (it used to die at once with no table)."""
    import os
    import signal

    import dcsim.sweep.store as store
    from dcsim.sweep import SweepInterrupted

    real = store.write_table

    def signalled(out, table):
        os.kill(os.getpid(), signal.SIGTERM)
        return real(out, table)

    monkeypatch.setattr(store, "write_table", signalled)
    with pytest.raises(SweepInterrupted) as e:
        sweep(BASE, {"network.aqm.K": ["20pkt"]}, out=tmp_path / "o", progress=False, jobs=1)
    assert e.value.signum == signal.SIGTERM and (e.value.done, e.value.total) == (1, 1)
    assert len(pd.read_parquet(tmp_path / "o" / "sweep.parquet")) == 1


@pytest.mark.parametrize("command", [["sweep", "examples/sweep_k.toml", "--dry-run"], ["reproduce", "dx-fig1", "--quick"]])
@pytest.mark.parametrize("opts, says", [(["-j", "0"], "--jobs: 0 is out of range; allowed an integer 1 .. 256"),
                                        (["--dask", "foo"], "--dask: 'foo' is not a scheduler address"),
                                        (["-j", "2", "--dask", "tcp://127.0.0.1:1"], "--jobs: not with --dask")])
def test_jobs_and_dask_are_refused_by_their_option_names_in_both_commands(tmp_path, command, opts, says):
    """`dcsim sweep -j 0` said "FILE: jobs: 0 is out of range" (blaming the sweep file, without the
    option's dashes) where `dcsim reproduce -j 0` said "--jobs: ..." (a help probe): both now check
    the two options in one place, by their names, before anything is read; and both --help texts
    give the range."""
    from dcsim.sweep import MAX_JOBS

    root = Path(__file__).resolve().parents[1]
    args = [str(root / a) if a.endswith(".toml") else a for a in command]
    res = runner.invoke(app, [*args, *opts, "--out", str(tmp_path / "o")], env={"COLUMNS": "300"})
    assert res.exit_code == 2 and res.output.startswith(f"error: {says}"), res.output
    assert not (tmp_path / "o").exists()
    helptext = " ".join(runner.invoke(app, [command[0], "--help"], env={"COLUMNS": "300"}).output.split())
    assert f"1 .. {MAX_JOBS} (default: all cores)" in helptext


def test_the_sweep_file_example_of_the_spec_docstring_plans(tmp_path):
    """The example in dcsim.sweep.spec's docstring, beside the demo scenario it names, must plan
    (it set a 50 ms duration on a base with a 50 ms warm-up, refused: a help probe)."""
    import shutil
    import textwrap

    doc = spec_mod.__doc__
    block = doc.split("A sweep file (TOML)::", 1)[1].split("\n\nEvery combination", 1)[0]
    (tmp_path / "sweep.toml").write_text(textwrap.dedent(block).strip() + "\n")
    shutil.copy(Path(__file__).resolve().parents[1] / "examples" / "dctcp_dumbbell.toml", tmp_path / "dctcp_dumbbell.toml")
    plan = plan_sweep(load_sweep(tmp_path / "sweep.toml"))
    assert len(plan.runs) == 3 * 2 * 2 * 3  # K x g x (senders, count) x seeds


def test_the_results_table_counts_every_combination_and_seed_as_asked():
    """An audit of the sweep's terminal table: a combination whose seeds all failed vanished; a run
    without a finished flow was skipped in 'flows done' (6 seeds, one with 1 flow: 1, not 1/6);
    the seeds column vanished when no combination had two finished seeds; an L2 run's frames
    were headed packets."""
    import pandas as pd
    from rich.console import Console

    from dcsim.commands.sweep import results_table

    def text(df):
        c = Console(record=True, width=250)
        c.print(results_table(df, ["K"]))
        return " ".join(c.export_text().split())

    df = pd.DataFrame({
        "K": ["10pkt"] * 3 + ["20pkt"] * 3 + ["30pkt"] * 3,
        "status": ["ok", "ok", "ok", "ok", "error", "error", "error", "error", "error"],
        "goodput_total_bps": [1e9] * 9, "fct_group[all].finished": [1.0, None, None, 2.0, None, None, None, None, None],
    })
    out = text(df)
    assert "│ 10pkt │ 3 │ 1.000 │ 0.333 │" in out, out  # (1 + 0 + 0) / 3 flows done over 3 finished seeds
    assert "│ 30pkt │ 0 │ - │ - │" in out and "mean over the finished seeds" in out  # all failed: still a row
    l2 = pd.DataFrame({"K": ["a", "a"], "status": ["ok", "error"], "goodput_total_bps": [0.0, 0.0],
                       "l2_goodput_total_bps": [5e9, 5e9], "after_warmup.drops": [3.0, None]})
    out = text(l2)
    assert "drops frames" in out and "drops pkt" not in out and "seeds" in out, out


def test_the_results_table_marks_a_p99_of_few_flows_rough():
    """The sweep's slowdown p99 is a mean of per-seed p99s; a seed with fewer than 100 finished
    flows has its p99 among its largest few, which `dcsim run` marks "~" and the sweep's table had
    printed plainly (a review). Marked now when any seed of the combination has so few."""
    import pandas as pd
    from rich.console import Console

    from dcsim.commands.sweep import results_table

    df = pd.DataFrame({
        "K": ["10pkt", "10pkt", "20pkt", "20pkt"], "status": ["ok"] * 4, "goodput_total_bps": [1e9] * 4,
        "fct_group[all].finished": [500.0, 99.0, 100.0, 2000.0],
        "fct_group[all].slowdown_p50": [1.5] * 4, "fct_group[all].slowdown_p99": [4.0, 6.0, 3.0, 5.0],
    })
    c = Console(record=True, width=250)
    c.print(results_table(df, ["K"]))
    out = " ".join(c.export_text().split())
    assert "│ 10pkt │ 2 │ 1.000 │ 300 │ 1.50 │ ~5.00 │" in out, out  # 99 < 100 in one seed
    assert "│ 20pkt │ 2 │ 1.000 │ 1,050 │ 1.50 │ 4.00 │" in out, out
    assert "~: a slowdown p99 over fewer than 100 finished flows in some seed" in out, out
    c = Console(record=True, width=250)
    c.print(results_table(df[df["K"] == "20pkt"], ["K"]))
    assert "~" not in c.export_text()


def test_an_output_directory_of_other_files_is_refused_before_anything_runs(tmp_path):
    """A sweep into a folder of the user's own files, or into a `dcsim run` directory, wrote its
    runs and table among them without a word (a probe; `dcsim run` refuses such a directory). It
    is refused before the plan, naming out and the files; an earlier sweep's directory (runs,
    traces, table, lock, temporary files) is still shared, and a file in the way is named."""
    f = write_sweep(tmp_path / "s.toml", '[axes]\nnetwork.aqm.K = ["10pkt"]\n')
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    r = runner.invoke(app, ["sweep", str(f), "--out", str(mine), "--yes"])
    assert r.exit_code == 2, r.output
    assert f"out: {mine} holds files a sweep does not write (notes.txt)" in " ".join(r.output.split())
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]
    (tmp_path / "afile").write_text("x")
    with pytest.raises(SweepError, match="exists and is not a directory"):
        sweep(BASE, {"network.aqm.K": ["10pkt"]}, out=tmp_path / "afile", executor=tpool(), progress=False)
    shared = tmp_path / "shared"
    for _ in range(2):  # the second sweep finds the first one's directory
        res = sweep(BASE, {"network.aqm.K": ["10pkt"]}, out=shared, executor=tpool(),
                    progress=False)
        assert res.failed == 0
    assert res.cached == 1


def test_an_axis_that_a_fabric_tier_overrides_is_warned_about_unless_the_tier_is_swept_too():
    """The leaf-spine example's leaf_spine tier sets its own aqm (K = 130pkt): an axis on
    network.aqm.K reaches the host links only, and every run's leaf-spine ports keep K = 130pkt (a
    README walkthrough swept it and was not told). A linked axis that moves the tier too is not
    warned, nor is an axis on a field no tier sets (network.host_link)."""
    from dcsim.scenario import load_scenario

    base = load_scenario(ROOT / "examples" / "leaf_spine.toml").to_dict()
    base["run"].update(duration="1ms", warmup="0.5ms")

    def warned(axes):
        return [w for w in plan_sweep(make_spec(base, axes)).warnings if "tier" in w]

    said = warned({"network.aqm.K": ["20pkt", "65pkt"]})
    assert said == ["axis network.aqm.K: 1 tier sets its own aqm (network.tiers.leaf_spine.aqm), which this axis does "
                    "not change: those links keep it in every run; move both with a linked axis (\"network.aqm.K, "
                    "network.tiers.leaf_spine.aqm.K\" = [[a, b], ...]), or drop the tier's value"], said
    assert len(warned({"network.buffer": ["200pkt", "300pkt"]})) == 1  # the tier's buffer = 600pkt
    assert warned({"network.aqm.K, network.tiers.leaf_spine.aqm.K": [["20pkt", "40pkt"], ["65pkt", "130pkt"]]}) == []
    assert warned({"network.host_link": ["10Gbps", "25Gbps"]}) == []


def test_seeds_that_gave_identical_metrics_are_said(tmp_path):
    """A review: three seeds of a scenario that draws nothing random (no start_jitter, no RED, ...)
    came back as three identical runs under three run ids, so a study's error bars over them were
    0 without a hint. The sweep says so (a SeedsWarning; the CLI prints it), and only then."""
    from dcsim.sweep import SeedsWarning

    axes = {"network.aqm.K": ["20pkt", "40pkt"]}
    with pytest.warns(SeedsWarning, match=r"the seeds of every point gave identical metrics.*start_jitter"):
        same = sweep(BASE, axes, seeds=2, out=tmp_path / "a", executor=tpool(), progress=False)
    assert same.same_over_seeds == ['network.aqm.K = "20pkt"', 'network.aqm.K = "40pkt"'] and same.seeded_points == 2
    goodput = col(same.table, "goodput_total_bps")
    assert same.table.groupby("network.aqm.K")[goodput].nunique().eq(1).all()  # what it says is so
    with warnings.catch_warnings():
        warnings.simplefilter("error", SeedsWarning)
        jittered = sweep(BASE, axes, seeds=2, set={"flows[0].start_jitter": "100us"}, out=tmp_path / "b",
                         executor=tpool(), progress=False)
        one = sweep(BASE, axes, out=tmp_path / "c", executor=tpool(), progress=False)  # one seed: nothing to say
    assert (jittered.same_over_seeds, jittered.seeded_points) == ([], 2)
    flow0 = col(jittered.table, r"flow\[0\]\.goodput_bps")
    assert jittered.table.groupby("network.aqm.K")[flow0].nunique().eq(2).all()  # the runs differ
    assert (one.same_over_seeds, one.seeded_points, one.seeds_note()) == ([], 0, None)
    assert '"flows[0].start_jitter" = "100us"' in same.seeds_note()  # a path the base has
    # a base without [[flows]] (a trace replayed twice): the hint is one it has, the hosts' send jitter
    trace = {"network": dict(BASE["network"]), "run": dict(BASE["run"]),
             "workloads": [{"kind": "trace", "protocol": "dctcp",
                            "arrivals": [{"src": "s0", "dst": "r", "start": "0s", "size": "30KB"}]}]}
    with pytest.warns(SeedsWarning) as got:
        replayed = sweep(trace, {"network.aqm.K": ["20pkt"]}, seeds=2, out=tmp_path / "e", executor=tpool(),
                         progress=False)
    assert '"network.host_jitter" = "1us"' in str(got[0].message) and replayed.same_over_seeds

    f = tmp_path / "s.toml"
    f.write_text('seeds = 2\n[base.network]\nsenders = 2\nbottleneck = "10Gbps"\nrtt = "100us"\nbuffer = "200pkt"\n'
                 'aqm = { kind = "threshold", K = "20pkt" }\n[[base.flows]]\ncount = 2\nprotocol = "dctcp"\n'
                 '[base.run]\nduration = "5ms"\n[axes]\n"network.aqm.K" = ["20pkt"]\n')
    res = runner.invoke(app, ["sweep", str(f), "--out", str(tmp_path / "d"), "--no-plots", "--jobs", "1"])
    assert res.exit_code == 0, res.output
    assert "warning: the seeds of every point gave identical metrics" in " ".join(res.output.split())
