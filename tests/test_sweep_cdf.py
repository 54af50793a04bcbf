"""Sweeps over scenarios with CDF files: relative to the file that names them (as `dcsim run`), and
sent to workers as self-contained scenarios (no shared filesystem, no common current directory)."""

from __future__ import annotations

import concurrent.futures as cf
import json
import os
from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

from dcsim.cli import app
from dcsim.scenario import Scenario
from dcsim.sweep import load_sweep, make_spec, plan_sweep, sweep

runner = CliRunner()

CDF_A = "# bytes p\n1000 0\n2000 0.5\n20000 1\n"
CDF_B = "# bytes p\n5000 0\n30000 1\n"


def scenario_text(cdf_file: str) -> str:
    """A small tree with a Poisson workload whose sizes come from ``cdf_file`` (as written)."""
    d = {
        "network": {"topology": "tree", "hosts": [2, 1], "host_link": "10Gbps", "bottleneck": "1Gbps", "rtt": "250us",
                    "buffer": "250pkt"},
        "workloads": [{"kind": "poisson", "load": 0.3, "sizes": {"kind": "uniform", "min": "10KB", "max": "50KB"},
                       "mix": [{"protocol": "dctcp", "share": 1.0}]}],
        "run": {"duration": "20ms", "warmup": "2ms", "seed": 1},
    }
    text = Scenario.from_dict(d).to_toml()
    old = 'sizes = { kind = "uniform", min = "10000B", max = "50000B" }'
    assert old in text
    return text.replace(old, f'sizes = {{ kind = "cdf", file = "{cdf_file}" }}')


def wall_free(df: pd.DataFrame) -> pd.DataFrame:
    return df[[c for c in df.columns if "wall" not in c]]


def _chdir(path: str) -> None:
    os.chdir(path)


def test_workers_with_another_cwd_get_self_contained_scenarios(tmp_path, monkeypatch):
    """A worker whose current directory is elsewhere (as a Dask worker on another machine) runs a
    sweep whose base names a relative CDF file; the results equal the local pool's."""
    folder = tmp_path / "here"
    folder.mkdir()
    (folder / "sizes.cdf").write_text(CDF_A)
    (folder / "s.toml").write_text(scenario_text("sizes.cdf"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(folder)
    axes = {"workloads[0].load": [0.2, 0.4]}
    plan = plan_sweep(make_spec("s.toml", axes))
    for run in plan.runs:  # what is sent to a worker names no file
        sent = json.dumps(plan.scenario(run))
        assert "sizes.cdf" not in sent and '"points"' in sent
    local = sweep("s.toml", axes, out=tmp_path / "local", jobs=1, progress=False)
    assert local.failed == 0, local.failures
    with cf.ProcessPoolExecutor(max_workers=2, initializer=_chdir, initargs=(str(elsewhere),)) as ex:
        remote = sweep("s.toml", axes, out=tmp_path / "remote", executor=ex, progress=False)
    assert remote.failed == 0, remote.failures
    pd.testing.assert_frame_equal(wall_free(local.table), wall_free(remote.table))
    # The run's written scenario is self-contained too.
    run_dir = remote.run_dir(remote.table["run_id"][0])
    assert "file" not in (run_dir / "scenario.toml").read_text()


def test_cdf_files_are_relative_to_the_files_that_name_them(tmp_path, monkeypatch):
    """`dcsim sweep cdfdir/sw.toml` from the parent folder: the base scenario's CDF file is read
    from the base's folder, an axis's CDF files from the sweep file's folder."""
    cdfdir = tmp_path / "cdfdir"
    (cdfdir / "scen").mkdir(parents=True)
    (cdfdir / "scen" / "sizes.cdf").write_text(CDF_A)
    (cdfdir / "b.cdf").write_text(CDF_B)
    (cdfdir / "scen" / "s.toml").write_text(scenario_text("sizes.cdf"))
    (cdfdir / "sw.toml").write_text('base = "scen/s.toml"\n[axes]\n"run.seed" = [1, 2]\n')
    (cdfdir / "sw2.toml").write_text('base = "scen/s.toml"\n[axes]\n"workloads[0].sizes.file" = ["b.cdf"]\n')
    monkeypatch.chdir(tmp_path)
    for name in ("sw.toml", "sw2.toml"):
        res = runner.invoke(app, ["sweep", f"cdfdir/{name}", "--out", f"out-{name}", "--jobs", "1"])
        assert res.exit_code == 0, res.output
        assert "cannot read the CDF file" not in res.output
    # The points are those of the right files.
    plan = plan_sweep(load_sweep("cdfdir/sw.toml"))
    assert plan.scenario(plan.runs[0])["workloads"][0]["sizes"]["points"] == [[1000.0, 0.0], [2000.0, 0.5], [20000.0, 1.0]]
    plan = plan_sweep(load_sweep("cdfdir/sw2.toml"))
    assert plan.scenario(plan.runs[0])["workloads"][0]["sizes"]["points"] == [[5000.0, 0.0], [30000.0, 1.0]]


def test_a_missing_cdf_file_names_the_field_and_the_file(tmp_path, monkeypatch):
    (tmp_path / "s.toml").write_text(scenario_text("nope.cdf"))
    (tmp_path / "sw.toml").write_text('base = "s.toml"\n[axes]\n"run.seed" = [1]\n')
    monkeypatch.chdir(tmp_path.parent)
    res = runner.invoke(app, ["sweep", str(Path(tmp_path.name) / "sw.toml"), "--out", "o", "--dry-run"])
    assert res.exit_code == 2, res.output
    out = " ".join(res.output.split())
    assert "workloads[0].sizes.file" in out and "nope.cdf" in out and "cannot read the CDF file" in out, res.output
    assert str(tmp_path / "nope.cdf") in res.output.replace("\n", "").replace(" ", "") or "nope.cdf" in out
