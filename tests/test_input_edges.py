"""Edge cases of a user's input found by probing (session 35): each test fails on the code before
its fix. Files are read with a bound (a device never ends), names are printed as they are (never
as rich markup), and a failure while printing the summary keeps the files of the run."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dcsim.cli import app
from dcsim.scenario import ScenarioError, load_scenario

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "dctcp_dumbbell.toml"
runner = CliRunner()


def flat(text: str) -> str:
    return " ".join(text.split())  # rich wraps long lines


def poisson_tree(sizes: str) -> str:
    return f"""
[network]
topology = "tree"
racks = 1
hosts = 3
bottleneck_hosts = ["h2"]
host_link = "1Gbps"
[[workloads]]
kind = "poisson"
load = 0.2
protocol = "dctcp"
sizes = {sizes}
[run]
duration = "1ms"
"""


# -- files read with a bound ------------------------------------------------------------------

@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_device_as_a_data_file_is_refused_after_at_most_the_limit(tmp_path, monkeypatch):
    """/dev/zero has size 0 by stat and never ends: it was read whole (23 GB before the kernel
    killed it). A data file is read no further than MAX_DATA_FILE_BYTES + 1 (lowered here so the
    test reads 64 KiB), then refused naming the field."""
    import dcsim.scenario as scn

    monkeypatch.setattr(scn, "MAX_DATA_FILE_BYTES", 1 << 16)
    text = poisson_tree('{ kind = "cdf", file = "/dev/zero" }')
    (tmp_path / "s.toml").write_text(text)
    with pytest.raises(ScenarioError, match=r"workloads\[0\]\.sizes\.file: .*more than 65536 bytes"):
        load_scenario(tmp_path / "s.toml")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_device_as_the_scenario_file_is_refused_at_64_mib():
    """`dcsim run /dev/zero`: the scenario is read no further than 64 MiB + 1 bytes."""
    with pytest.raises(ScenarioError, match="more than 64 MiB is not a scenario file"):
        load_scenario("/dev/zero")
    res = runner.invoke(app, ["run", "/dev/zero"])
    assert res.exit_code == 2 and "more than 64 MiB" in flat(res.output), res.output


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_a_scenario_from_a_pipe_still_loads(tmp_path):
    """Reading in bounded chunks keeps pipes working (`dcsim run <(make-scenario)`): a FIFO fed
    by a thread gives the same scenario as the file."""
    fifo = tmp_path / "s.toml"
    os.mkfifo(fifo)
    text = DEMO.read_text()
    writer = threading.Thread(target=lambda: fifo.write_text(text))
    writer.start()
    try:
        got = load_scenario(fifo)
    finally:
        writer.join(timeout=10)
    assert got.to_dict() == load_scenario(DEMO).to_dict()


# -- names printed as they are ----------------------------------------------------------------

def graph_named(host: str) -> str:
    return f"""
[network]
topology = "graph"
nodes = [{{ name = '{host}', kind = "host" }}, {{ name = "h1", kind = "host" }}, {{ name = "sw", kind = "switch" }}]
links = [{{ a = '{host}', b = "sw", rate = "10Gbps", delay = "10us" }}, {{ a = "h1", b = "sw", rate = "10Gbps", delay = "10us" }}]
[[flows]]
protocol = "dctcp"
src = '{host}'
dst = "h1"
[run]
duration = "2ms"
warmup = "0s"
"""


@pytest.mark.parametrize("host", ["a[/]", "[red]x[/red]", "[bold"])
def test_node_names_that_look_like_markup_are_printed_as_written(tmp_path, host):
    """rich reads "[...]" in a string as markup: "a[/]" ended the run in "internal error:
    MarkupError" after the simulation (nothing written), "[red]x[/red]" was printed as "x". The
    summary shows every name as written, and the run's files are there."""
    (tmp_path / "s.toml").write_text(graph_named(host))
    res = runner.invoke(app, ["run", str(tmp_path / "s.toml"), "--out", str(tmp_path / "o"), "--no-plots"],
                        env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    assert f"{host}->h1" in res.output and f"sw->{host}" in res.output, res.output
    assert (tmp_path / "o" / "flows.parquet").exists()


def test_a_failure_while_printing_keeps_the_runs_files(tmp_path, monkeypatch):
    """Nothing a user computed is lost when a later step fails: a bug in printing the summary is
    reported (an internal error: it is one), after the run's directory is complete."""
    import dcsim.run as run_module

    def broken(*_a, **_k):
        raise RuntimeError("printing broke")

    monkeypatch.setattr(run_module, "print_summary", broken)
    out = tmp_path / "o"
    res = runner.invoke(app, ["run", str(DEMO), "--out", str(out), "--no-plots", "--set", "run.duration=5ms",
                              "--set", "run.warmup=0s"])
    # the CLI's entry point prints an exception that escapes as "internal error: ..."
    assert res.exit_code != 0 and "printing broke" in str(res.exception), res.output
    assert (out / "flows.parquet").exists() and (out / "summary.json").exists() and (out / "dcsim-manifest.json").exists()
