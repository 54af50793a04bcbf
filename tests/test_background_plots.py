"""`dcsim run` draws its plots in the background by default (issue 12, section 5): the command
returns once the tables are written; a detached plotter renames each PNG into the output
directory and writes plots.json last; the manifest rule accepts those files; a rerun into the
same directory never mixes old and new files.

The plotter in these tests waits for a gate file before drawing, so that "the command returned
before the PNGs exist" and "a rerun while the plotter draws" are facts, not races. Waits for the
plotter are bounded at 30 s (drawing takes ~1 s; the bound only guards a loaded CI machine).
"""

from __future__ import annotations

import importlib
import json
import re
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dcsim import Scenario
from dcsim.cli import app

run_module = importlib.import_module("dcsim.run")
worker_module = importlib.import_module("dcsim._plot_worker")
runner = CliRunner()
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
WAIT_S = 30.0

#: The plot process, held until the gate file exists; with DCSIM_TEST_BROKEN_QUEUE its queue plot fails.
GATED = """
import os, sys, time
from pathlib import Path
gate, t0 = Path(os.environ["DCSIM_TEST_PLOT_GATE"]), time.monotonic()
while not gate.exists() and time.monotonic() - t0 < 60:
    time.sleep(0.01)
import dcsim.plotting
if os.environ.get("DCSIM_TEST_BROKEN_QUEUE"):
    def broken(result, path):
        raise RuntimeError("no ink")
    dcsim.plotting.PLOTS["queue.png"] = broken
from dcsim._plot_worker import main
sys.exit(main())
"""


def short() -> dict:
    """A short DCTCP dumbbell (4 flows, 30 ms)."""
    return {
        "network": {"senders": 4, "bottleneck": "10Gbps", "rtt": "100us", "buffer": "1000pkt",
                    "aqm": {"kind": "threshold", "K": "65pkt"}},
        "flows": [{"count": 4, "protocol": "dctcp", "g": 0.0625}],
        "run": {"duration": "30ms", "warmup": "10ms", "seed": 3},
    }


@pytest.fixture
def gate(tmp_path, monkeypatch) -> Path:
    g = tmp_path / "gate"
    monkeypatch.setenv("DCSIM_TEST_PLOT_GATE", str(g))
    monkeypatch.setattr(worker_module.PlotWorker, "args", ("-c", GATED))
    return g


@pytest.fixture
def scenario(tmp_path) -> Path:
    sc = tmp_path / "s.toml"
    sc.write_text(Scenario.from_dict(short()).to_toml())
    return sc


def wait_for(path: Path) -> dict:
    t0 = time.monotonic()
    while not path.exists():
        assert time.monotonic() - t0 < WAIT_S, f"{path.name} did not appear within {WAIT_S} s"
        time.sleep(0.02)
    return json.loads(path.read_text())


def ended(pid: int) -> bool:
    """Ended or a zombie (Linux: a zombie's command line is empty)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes() == b""
    except FileNotFoundError:
        return True


def staging_dirs(tmp_path: Path) -> list[str]:
    return [p.name for p in tmp_path.iterdir() if ".plots-" in p.name]


def test_the_command_returns_before_the_plots_which_then_appear_with_plots_json(tmp_path, gate, scenario):
    out = tmp_path / "o"
    res = runner.invoke(app, ["run", str(scenario), "--out", str(out)])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    m = re.search(r"queue\.png, cwnd_alpha\.png, throughput\.png being drawn in the background \(pid (\d+)\): "
                  r"complete when plots\.json appears", text)
    assert m, text
    pid = int(m.group(1))
    manifest = json.loads((out / run_module.MANIFEST).read_text())
    assert manifest["plotter"]["pid"] == pid
    assert manifest["drawn_in_background"] == ["queue.png", "cwnd_alpha.png", "throughput.png", "plots.json"]
    # returned before drawing (the gate is shut): tables and summary there, no PNG, no plots.json
    assert (out / "summary.json").exists() and not list(out.glob("*.png")) and not (out / "plots.json").exists()
    assert not ended(pid)
    import os

    assert os.getsid(pid) == pid, "the plotter is not detached (a session of its own)"
    assert run_module.unexpected_files(out) == []
    gate.touch()
    record = wait_for(out / "plots.json")
    assert record == {"run_id": manifest["run_id"], "files": ["queue.png", "cwnd_alpha.png", "throughput.png"],
                      "errors": []}
    for name in record["files"]:
        assert (out / name).read_bytes()[:8] == PNG_MAGIC
    # the manifest rule: the background files are expected, anything else is not
    assert run_module.unexpected_files(out) == []
    assert not staging_dirs(tmp_path)
    (out / "notes.txt").write_text("mine")
    assert run_module.unexpected_files(out) == ["notes.txt"]


def test_a_failing_plot_in_the_background_is_recorded_in_plots_json(tmp_path, gate, scenario, monkeypatch):
    monkeypatch.setenv("DCSIM_TEST_BROKEN_QUEUE", "1")
    gate.touch()
    out = tmp_path / "o"
    res = runner.invoke(app, ["run", str(scenario), "--out", str(out)])
    assert res.exit_code == 0, res.output  # the command returned before the plot failed
    record = wait_for(out / "plots.json")
    assert record["errors"] == ["queue.png: RuntimeError: no ink"]
    assert record["files"] == ["cwnd_alpha.png", "throughput.png"]
    assert not (out / "queue.png").exists() and (out / "cwnd_alpha.png").exists()
    assert run_module.unexpected_files(out) == []


def test_a_rerun_ends_the_plotter_still_drawing_and_keeps_none_of_its_files(tmp_path, gate, scenario):
    out = tmp_path / "o"
    assert runner.invoke(app, ["run", str(scenario), "--out", str(out)]).exit_code == 0
    pid = json.loads((out / run_module.MANIFEST).read_text())["plotter"]["pid"]
    assert not ended(pid)
    res = runner.invoke(app, ["run", str(scenario), "--out", str(out), "--no-plots"])
    assert res.exit_code == 0, res.output
    assert ended(pid), "the previous run's plotter still runs"
    gate.touch()
    time.sleep(1.0)  # had it survived, it would now draw
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(json.loads((out / run_module.MANIFEST).read_text())["files"] + [run_module.MANIFEST])
    assert not staging_dirs(tmp_path)


def test_a_plotter_that_is_not_ended_writes_nothing_into_a_newer_runs_directory(tmp_path, gate, scenario,
                                                                                  monkeypatch):
    """Where a process cannot be inspected (no /proc), a rerun cannot end the old plotter: the
    plotter itself sees that the manifest names another run and writes nothing."""
    out = tmp_path / "o"
    assert runner.invoke(app, ["run", str(scenario), "--out", str(out)]).exit_code == 0
    pid = json.loads((out / run_module.MANIFEST).read_text())["plotter"]["pid"]
    monkeypatch.setattr(worker_module, "_alive_plotter", lambda pid, run_id: None)
    assert runner.invoke(app, ["run", str(scenario), "--out", str(out), "--no-plots"]).exit_code == 0
    assert not ended(pid)
    gate.touch()
    t0 = time.monotonic()
    while not ended(pid):
        assert time.monotonic() - t0 < WAIT_S, "the old plotter did not end"
        time.sleep(0.02)
    assert not list(out.glob("*.png")) and not (out / "plots.json").exists()
    assert not staging_dirs(tmp_path)


def test_the_python_api_replaces_a_runs_directory_whole_and_ends_its_plotter(tmp_path, gate, scenario):
    """Result.to_dir follows `dcsim run`'s rule: a robustness probe wrote an API result into a CLI
    run's directory and found the new tables beside the old manifest, then the old run's PNGs and
    plots.json arriving among them. Now the directory is replaced whole (the old plotter ended
    first), and a directory holding other files is refused, naming them, unless force=True."""
    from dcsim import simulate

    out = tmp_path / "o"
    assert runner.invoke(app, ["run", str(scenario), "--out", str(out)]).exit_code == 0
    pid = json.loads((out / run_module.MANIFEST).read_text())["plotter"]["pid"]
    assert not ended(pid)
    other = dict(short(), run={"duration": "20ms", "warmup": "5ms", "seed": 9})
    res = simulate(Scenario.from_dict(other))
    files = res.to_dir(out)
    assert ended(pid), "the previous run's plotter still runs"
    gate.touch()
    time.sleep(1.0)  # had it survived, it would now draw
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in files)
    assert all(p.parent == out for p in files) and files[-1].name == run_module.MANIFEST
    assert "plotter" not in json.loads(files[-1].read_text())  # the API draws nothing in the background
    assert Scenario.from_toml(out / "scenario.toml").run.seed == 9
    assert not staging_dirs(tmp_path) and not [p for p in tmp_path.iterdir() if ".partial-" in p.name]
    (out / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match=r"^out: .* holds files that a dcsim run did not write \(notes\.txt\).*force=True"):
        res.to_dir(out)
    assert (out / "notes.txt").read_text() == "mine"
    res.to_dir(out, force=True)
    assert not (out / "notes.txt").exists() and (out / "flows.parquet").exists()


def test_wait_plots_lists_the_pngs_and_writes_no_plots_json(tmp_path, scenario):
    out = tmp_path / "o"
    res = runner.invoke(app, ["run", str(scenario), "--out", str(out), "--wait-plots"])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "throughput.png" in text and "background" not in text
    assert (out / "queue.png").read_bytes()[:8] == PNG_MAGIC and not (out / "plots.json").exists()
    assert "plotter" not in json.loads((out / run_module.MANIFEST).read_text())
