"""`dcsim reproduce` when part of an experiment fails: what it computed is kept, and the folder
never mixes one run's verdicts with another run's tables.

* A figure that cannot be written (a full disk, a backend that is missing) no longer loses the
  tables and claims the experiment computes after it: the experiment runs to the end, its CSVs,
  claims and parameters are written, and it is reported as failed, naming the figure.
* An experiment that fails midway after writing some files has the claims and parameters an
  earlier run left beside them removed (they no longer describe the folder), and its page lists
  the files it did write; one that wrote nothing leaves the earlier run's files as they were.
"""

from __future__ import annotations

import json

import matplotlib.figure
import pandas as pd
import pytest
from typer.testing import CliRunner

from dcsim.cli import app
from dcsim.experiments import registry
from dcsim.experiments.registry import CHECK, Claim, ExperimentResult, ok, save_figure
from dcsim.report import Entry, verdict_counts

runner = CliRunner()


@pytest.fixture
def own_registry(monkeypatch):
    """A copy of the registry that the test may add experiments to (the shipped ones loaded first:
    loaded into the copy, they would be gone with it)."""
    registry.all_experiments()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    return registry._REGISTRY


def _reproduce(tmp_path, *ids):
    return runner.invoke(app, ["reproduce", *ids, "--out", str(tmp_path / "o"), "--html", str(tmp_path / "h")],
                         env={"COLUMNS": "300"})


def test_a_figure_that_cannot_be_written_keeps_the_tables_and_claims(tmp_path, own_registry, monkeypatch):
    import matplotlib.pyplot as plt

    @registry.experiment("zz-figure", "a figure, then a table", "none")
    def figure_then_table(out_dir, quick):
        fig, ax = plt.subplots()
        ax.plot([0, 1], [0, 1])
        png = save_figure(fig, out_dir, "zz_figure.png")
        csv = out_dir / "zz_table.csv"
        pd.DataFrame({"x_s": [0.0, 1.0]}).to_csv(csv, index=False)
        return ExperimentResult("zz-figure", "t", [Claim("2 > 1", "holds", "2 > 1", ok(2 > 1))], [png, csv])

    save = matplotlib.figure.Figure.savefig

    def full_disk(self, fname, *a, **k):
        if "zz_figure" in str(fname):
            raise OSError(28, "No space left on device")
        return save(self, fname, *a, **k)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", full_disk)
    res = _reproduce(tmp_path, "zz-figure")
    assert res.exit_code == 1, res.output
    out = tmp_path / "o" / "zz-figure"
    # the table written after the figure, the claims, the parameters; no figure, not even half of one
    assert pd.read_csv(out / "zz_table.csv").x_s.tolist() == [0.0, 1.0]
    assert json.loads((out / "claims.json").read_text())[0]["verdict"] == "reproduced"
    assert (out / "parameters.json").exists() and (out / "zz_table.parquet").exists()
    assert not [p for p in out.iterdir() if "zz_figure" in p.name], list(out.iterdir())
    text = " ".join(res.output.split())
    assert "zz_figure.png" in text and "No space left on device" in text, text
    page = (tmp_path / "h" / "zz-figure.html").read_text()
    assert "Failed" in page and "zz_figure.png" in page and "2 &gt; 1" in page and "zz_table.csv" in page
    # not "draws no figure": it drew one that could not be written (a review)
    assert "draws no figure" not in page and "No figure was written (see above)" in page
    index = (tmp_path / "h" / "index.html").read_text()
    assert 'class="failed"' in index and "0 of 0 claims of the papers reproduced" in index  # not counted


def test_a_file_written_with_a_time_stamp_before_the_start_still_counts_as_written(tmp_path, own_registry):
    """The kernel stamps files from a coarse clock: a CSV written just after the start can carry an
    earlier time, and was left out of what the failed experiment wrote, its Parquet copy stale (the
    test below failed once, run in some order). What it wrote is now what changed in the folder."""
    import os
    import time

    fail = {"now": False}

    @registry.experiment("zz-stamp", "a table stamped in the past, then maybe a failure", "none")
    def stamped(out_dir, quick):
        csv = out_dir / "zz_rows.csv"
        pd.DataFrame({"n": [2 if fail["now"] else 1]}).to_csv(csv, index=False)
        past = time.time() - 5  # as if stamped before the experiment started
        os.utime(csv, (past, past))
        if fail["now"]:
            raise RuntimeError("simulated failure after the table")
        return ExperimentResult("zz-stamp", "t", [Claim("1 = 1", "holds", "1 = 1", ok(True))], [csv])

    assert _reproduce(tmp_path, "zz-stamp").exit_code == 0
    fail["now"] = True
    res = _reproduce(tmp_path, "zz-stamp")
    assert res.exit_code == 1, res.output
    out = tmp_path / "o" / "zz-stamp"
    assert pd.read_parquet(out / "zz_rows.parquet").n.tolist() == [2]
    assert not (out / "claims.json").exists()
    assert "zz_rows.csv" in " ".join(res.output.split())


def test_a_failure_midway_removes_the_earlier_runs_verdicts_and_lists_what_it_wrote(tmp_path, own_registry):
    fail = {"now": False}

    @registry.experiment("zz-midway", "a table, then maybe a failure", "none")
    def table_then_failure(out_dir, quick):
        csv = out_dir / "zz_rows.csv"
        pd.DataFrame({"n": [2 if fail["now"] else 1]}).to_csv(csv, index=False)
        if fail["now"]:
            raise RuntimeError("simulated failure after the table")
        return ExperimentResult("zz-midway", "t", [Claim("1 = 1", "holds", "1 = 1", ok(True))], [csv])

    assert _reproduce(tmp_path, "zz-midway").exit_code == 0
    out = tmp_path / "o" / "zz-midway"
    assert (out / "claims.json").exists() and (out / "parameters.json").exists()
    fail["now"] = True
    res = _reproduce(tmp_path, "zz-midway")
    assert res.exit_code == 1, res.output
    # the new table and its Parquet copy; the first run's verdicts and parameters gone
    assert pd.read_csv(out / "zz_rows.csv").n.tolist() == [2]
    assert pd.read_parquet(out / "zz_rows.parquet").n.tolist() == [2]
    assert not (out / "claims.json").exists() and not (out / "parameters.json").exists()
    assert not (out / "claims.parquet").exists()
    text = " ".join(res.output.split())
    assert "zz_rows.csv" in text and "claims.json" in text and "no longer describe" in text, text
    page = (tmp_path / "h" / "zz-midway.html").read_text()
    assert "simulated failure after the table" in page and 'href="zz-midway/zz_rows.csv"' in page
    assert (tmp_path / "h" / "zz-midway" / "zz_rows.csv").exists()


def test_a_failure_that_wrote_nothing_keeps_the_earlier_run(tmp_path, own_registry):
    fail = {"now": False}

    @registry.experiment("zz-early", "fails before writing", "none")
    def early(out_dir, quick):
        if fail["now"]:
            raise RuntimeError("simulated failure before any file")
        csv = out_dir / "zz_rows.csv"
        pd.DataFrame({"n": [1]}).to_csv(csv, index=False)
        return ExperimentResult("zz-early", "t", [Claim("1 = 1", "holds", "1 = 1", ok(True))], [csv])

    assert _reproduce(tmp_path, "zz-early").exit_code == 0
    fail["now"] = True
    assert _reproduce(tmp_path, "zz-early").exit_code == 1
    out = tmp_path / "o" / "zz-early"
    assert (out / "claims.json").exists() and (out / "parameters.json").exists() and (out / "zz_rows.csv").exists()


def test_no_claim_of_the_paper_is_neither_reproduced_nor_differing_and_failing_checks_are_yellow(tmp_path):
    r = ExperimentResult("zz", "t", [Claim("(dcsim) a check", "—", "x", ok(False), kind=CHECK)])
    kind, said, checks = verdict_counts(Entry("zz", "t", "p", tmp_path, 1.0, result=r))
    assert (kind, said, checks) == ("none", "no claim of the paper", "0 of 1 pass")
    from dcsim.report import _claims_table

    row = _claims_table(r.checks, "check")
    assert 'class="checkfails">fails<' in row and 'class="differs"' not in row


def test_experiments_without_a_claim_of_the_paper_end_in_a_tally_and_a_report(tmp_path, own_registry):
    """verdict_counts' kind "none" had no colour in the terminal's tally: a KeyError there, in the
    finally block, lost the HTML report of every experiment of the batch (a review)."""
    for i in ("zz-a", "zz-b"):
        registry.experiment(i, "no claim", "none")(lambda out_dir, quick, i=i: ExperimentResult(i, "no claim"))
    res = _reproduce(tmp_path, "zz-a", "zz-b")
    assert res.exit_code == 0, res.output
    assert "no claim of the paper" in res.output
    index = (tmp_path / "h" / "index.html").read_text()
    assert "zz-a.html" in index and "zz-b.html" in index and 'class="none"' in index


def test_a_ctrl_c_exits_130_whatever_signal_an_earlier_in_process_sweep_received(tmp_path, own_registry):
    """An in-process sweep stopped by SIGTERM earlier (an API call, another test) leaves it in
    RECEIVED; a Ctrl-C in reproduce then exited 143, as if it were that SIGTERM (the order of a
    test run found it)."""
    import signal

    from dcsim._signals import RECEIVED

    RECEIVED.append(signal.SIGTERM)
    try:
        def ctrl_c(out_dir, quick):
            raise KeyboardInterrupt

        registry.experiment("zz-ctrl-c", "stopped", "none")(ctrl_c)
        assert _reproduce(tmp_path, "zz-ctrl-c").exit_code == 130
    finally:
        RECEIVED.clear()


def test_a_stale_claims_file_that_cannot_be_removed_does_not_stop_the_batch(tmp_path, own_registry):
    """A failed experiment removes an earlier run's claims.json; one that could not be removed (a
    directory in its place) raised out of the loop: the experiments after it did not run and the
    tally said "0 failed" (a review)."""

    @registry.experiment("zz-a", "writes a table, then fails", "none")
    def fails(out_dir, quick):
        (out_dir / "zz.csv").write_text("n\n1\n")
        raise RuntimeError("simulated failure")

    @registry.experiment("zz-b", "runs after it", "none")
    def runs(out_dir, quick):
        return ExperimentResult("zz-b", "t", [Claim("1 = 1", "holds", "1 = 1", ok(True))], [])

    (tmp_path / "o" / "zz-a" / "claims.json").mkdir(parents=True)
    res = _reproduce(tmp_path, "zz-a", "zz-b")
    assert res.exit_code == 1, res.output
    text = " ".join(res.output.split())
    assert "zz-a failed: RuntimeError: simulated failure" in text
    assert (tmp_path / "o" / "zz-b" / "claims.json").is_file()
    assert "1 failed" in text and "not run" not in text, text


def test_a_sweep_leaves_an_ignored_signal_ignored():
    """Under nohup SIGHUP is ignored, yet a sweep's handler took it and a hangup stopped the sweep
    (exit 129; a review). Signals the process ignores stay ignored while a sweep runs."""
    import signal

    from dcsim.sweep.execute import StopSignals

    old_hup, old_int = signal.getsignal(signal.SIGHUP), signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with StopSignals():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGINT) not in (old_int, signal.SIG_IGN)  # taken: a Ctrl-C stops it
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN and signal.getsignal(signal.SIGINT) is old_int
    finally:
        signal.signal(signal.SIGHUP, old_hup)
