"""`dcsim run`: files written, summary consistent with first principles, bad input exits 2 before running."""

from __future__ import annotations

import importlib
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from dcsim import Scenario, simulate
from dcsim.cli import app
from dcsim.result import TABLES, Result

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "dctcp_dumbbell.toml"
runner = CliRunner()


def stdout_runner() -> CliRunner:
    """A runner whose `stdout` holds what the command wrote to stdout only: click >= 8.2 keeps
    stderr apart always, older clicks (Python 3.9's newest typer uses click 8.1) only when told."""
    try:
        return CliRunner(mix_stderr=False)
    except TypeError:
        return CliRunner()


run_module = importlib.import_module("dcsim.run")
simulate_module = importlib.import_module("dcsim.simulate")

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def short(duration: str = "30ms", warmup: str = "10ms", n: int = 4) -> dict:
    """A short DCTCP dumbbell (DCTCP analysis paper's Fig. 2 setting, fewer flows, shorter)."""
    return {
        "network": {"senders": n, "bottleneck": "10Gbps", "rtt": "100us", "buffer": "1000pkt",
                    "aqm": {"kind": "threshold", "K": "65pkt"}},
        "flows": [{"count": n, "protocol": "dctcp", "g": 0.0625}],
        "run": {"duration": duration, "warmup": warmup, "seed": 3},
    }


def test_demo_run_writes_tables_summary_and_plots(tmp_path):
    out = tmp_path / "out"
    res = runner.invoke(app, ["run", str(DEMO), "--out", str(out), "--wait-plots"])
    assert res.exit_code == 0, res.output
    for t in TABLES:
        assert (out / f"{t}.parquet").stat().st_size > 0
    for png in ("queue.png", "cwnd_alpha.png", "throughput.png"):
        assert (out / png).read_bytes()[:8] == PNG_MAGIC
    summary = json.loads((out / "summary.json").read_text())  # strict JSON: NaN written as null
    assert Scenario.from_toml(out / "scenario.toml") == Scenario.from_toml(DEMO)

    # First principles on the demo (C = 10 Gbps, 10 long-lived flows, 1500 B packets, 40 B headers).
    C_bps, payload = 10e9, 1460 / 1500
    (port,) = summary["ports"]
    assert port["port"] == "sw->r"
    assert 0 < port["utilization"] <= 1 + 1e-9
    assert len(summary["flows"]) == 10
    assert summary["goodput_total_bps"] <= C_bps * payload * (1 + 1e-3)
    assert summary["goodput_total_bps"] == pytest.approx(sum(f["goodput_bps"] for f in summary["flows"]))
    pk = summary["packets"]
    assert pk["sent_pkts"] == pk["delivered_pkts"] + pk["dropped_pkts"] + pk["in_flight_pkts"]
    assert 1 / 10 <= summary["jain_index"] <= 1 + 1e-12

    # The tables read back are what the summary was computed from.
    back = Result.from_dir(out)
    assert back.summary()["goodput_total_bps"] == summary["goodput_total_bps"]
    assert len(back.queue) > 0 and set(back.queue.columns) >= {"t_s", "port", "q_pkt", "q_bytes"}

    # Units on the numbers printed.
    for unit in ("Gbps", "pkt", "%", "ms", "events/s"):
        assert unit in res.output, unit


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize(
    "old,new,message",
    [
        ('protocol = "dctcp"', 'protocol = "dctpc"', "flows[0].protocol: 'dctpc' is not one of dctcp, newreno"),
        ('bottleneck = "10Gbps"', 'bottleneck = "10Gbs"', "network.bottleneck: unknown rate unit 'Gbs'"),
        ('K = "65pkt"', 'K = "1200pkt"', "network.aqm.K: marking threshold 1200pkt is not below the buffer 1000pkt"),
        ('g = 0.0625', 'gg = 0.0625', "flows[0].gg: unknown key; did you mean 'g'?"),
    ],
)
def test_bad_file_exits_2_with_the_message_and_runs_nothing(tmp_path, monkeypatch, old, new, message):
    text = DEMO.read_text()
    assert old in text
    bad = write(tmp_path, "bad.toml", text.replace(old, new))

    def no_engine():
        raise AssertionError("the engine was started for an invalid scenario")

    monkeypatch.setattr(simulate_module, "engine", no_engine)
    out = tmp_path / "out"
    res = runner.invoke(app, ["run", str(bad), "--out", str(out)])
    assert res.exit_code == 2, res.output
    text_out = " ".join(res.output.split())  # rich may wrap long lines
    assert message in text_out
    assert "Traceback" not in res.output
    assert not out.exists()


def test_missing_file_exits_2(tmp_path):
    res = runner.invoke(app, ["run", str(tmp_path / "nope.toml")])
    assert res.exit_code == 2
    assert "cannot read the scenario file" in " ".join(res.output.split())
    # One line naming the file: not "invalid scenario" (it was never read).
    assert "invalid scenario" not in res.output, res.output
    assert res.output.strip().splitlines() == [f"error: {tmp_path / 'nope.toml'}: cannot read the scenario file "
                                               "(No such file or directory)"], res.output


def test_a_file_name_too_long_to_open_is_a_scenario_error_naming_it(tmp_path):
    """A name longer than the filesystem allows (255 bytes a component on Linux) fails to open
    with ENAMETOOLONG; the check for a run's output directory made after it fails the same way,
    and must not replace the ScenarioError with a raw OSError (the Python API's caller catches
    ScenarioError; the CLI prints it as one line, exit 2)."""
    from dcsim.scenario import ScenarioError, load_scenario

    long = tmp_path / ("a" * 300 + ".toml")
    with pytest.raises(ScenarioError, match="cannot read the scenario file"):
        load_scenario(long)
    res = runner.invoke(app, ["run", str(long)])
    assert res.exit_code == 2 and "cannot read the scenario file" in " ".join(res.output.split()), res.output


def test_a_sweep_file_given_to_run_or_a_scenario_given_to_sweep_names_the_other_command(tmp_path):
    """The two file kinds are easy to mix up; each command says which one the file is and what runs
    it, before anything runs (exit 2, nothing written), instead of listing unknown keys."""
    out = tmp_path / "o"
    res = runner.invoke(app, ["run", str(ROOT / "examples" / "sweep_k.toml"), "--out", str(out)], env={"COLUMNS": "300"})
    text = " ".join(res.output.split())
    assert res.exit_code == 2 and "dcsim sweep" in text and "unknown key" not in text, res.output
    assert "Traceback" not in res.output and not out.exists()
    res = runner.invoke(app, ["sweep", str(DEMO), "--out", str(out)], env={"COLUMNS": "300"})
    text = " ".join(res.output.split())
    assert res.exit_code == 2 and f"dcsim run {DEMO}" in text and "unknown key" not in text, res.output
    assert "Traceback" not in res.output and not out.exists()


def test_a_runs_engine_spec_or_summary_given_to_run_points_to_its_scenario_toml(tmp_path):
    """engine_spec.json and summary.json sit beside scenario.toml in every run's output; given to
    `dcsim run` (which reads .json scenarios), each is named for what it is, with the file to run."""
    first = tmp_path / "first"
    assert runner.invoke(app, ["run", str(DEMO), "--out", str(first), "--no-plots"]).exit_code == 0
    for name, key in (("engine_spec.json", "engine spec"), ("summary.json", "summary")):
        out = tmp_path / name
        res = runner.invoke(app, ["run", str(first / name), "--out", str(out)], env={"COLUMNS": "300"})
        text = " ".join(res.output.split())
        assert res.exit_code == 2 and key in text and "scenario.toml" in text and "unknown key" not in text, res.output
        assert "Traceback" not in res.output and not out.exists()
    # a run's directory itself names the scenario.toml in it
    res = runner.invoke(app, ["run", str(first), "--out", str(tmp_path / "dir")], env={"COLUMNS": "300"})
    assert res.exit_code == 2 and str(first / "scenario.toml") in " ".join(res.output.split()), res.output
    # and the scenario.toml beside them runs
    assert runner.invoke(app, ["run", str(first / "scenario.toml"), "--out", str(tmp_path / "again"), "--no-plots"]).exit_code == 0


def test_json_summary_and_no_plots(tmp_path):
    sc = write(tmp_path, "short.toml", Scenario.from_dict(short()).to_toml())
    res = stdout_runner().invoke(app, ["run", str(sc), "--out", str(tmp_path / "o"), "--json", "--no-plots"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["duration_s"] == pytest.approx(0.03) and summary["warmup_s"] == pytest.approx(0.01)
    assert [f["src"] for f in summary["flows"]] == ["s0", "s1", "s2", "s3"]
    assert not list((tmp_path / "o").glob("*.png"))


#: The plot process with a queue plot that fails (the worker's own main() otherwise).
BROKEN_QUEUE_PLOT = """
import sys
import dcsim.plotting
def broken(result, path):
    raise RuntimeError("no ink")
dcsim.plotting.PLOTS["queue.png"] = broken
from dcsim._plot_worker import main
sys.exit(main())
"""


def test_a_failing_plot_keeps_the_tables_and_exits_1(tmp_path, monkeypatch):
    from dcsim._plot_worker import PlotWorker

    monkeypatch.setattr(PlotWorker, "args", ("-c", BROKEN_QUEUE_PLOT))
    sc = write(tmp_path, "short.toml", Scenario.from_dict(short()).to_toml())
    out = tmp_path / "o"
    res = runner.invoke(app, ["run", str(sc), "--out", str(out), "--wait-plots"])
    assert res.exit_code == 1
    assert "queue.png: RuntimeError: no ink" in " ".join(res.output.split())
    for t in TABLES:
        assert (out / f"{t}.parquet").exists()
    assert (out / "summary.json").exists() and (out / "cwnd_alpha.png").exists()
    assert "queue.png" not in json.loads((out / "dcsim-manifest.json").read_text())["files"]


def test_a_plot_process_that_dies_keeps_the_tables_and_exits_1(tmp_path, monkeypatch):
    from dcsim._plot_worker import PlotWorker

    monkeypatch.setattr(PlotWorker, "args", ("-c", "import os; os._exit(3)"))
    pipes = []  # the pipe the data went into is closed, not left to the garbage collector
    real_send = PlotWorker.send
    monkeypatch.setattr(PlotWorker, "send", lambda self, *a: (pipes.append(self.proc.stdin), real_send(self, *a)))
    sc = write(tmp_path, "short.toml", Scenario.from_dict(short()).to_toml())
    out = tmp_path / "o"
    res = runner.invoke(app, ["run", str(sc), "--out", str(out), "--wait-plots"])
    assert res.exit_code == 1
    assert len(pipes) == 1 and pipes[0].closed
    assert "the plotting process ended with status 3" in " ".join(res.output.split())
    for t in TABLES:
        assert (out / f"{t}.parquet").exists()
    assert (out / "summary.json").exists() and not list(out.glob("*.png"))


def _disk_full_for(table: str, monkeypatch) -> None:
    """The engine's Parquet writer fails for ``table`` after writing part of it (as a full disk
    would: the error is the one it raises for /dev/full, see test_the_parquet_writer_reports_a_full_disk)."""
    import errno

    from dcsim import _core

    real = _core.write_parquet

    def write_parquet(where, columns):
        if Path(where).name == f"{table}.parquet":
            Path(where).write_bytes(b"PAR1 half a file")
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(where, columns)

    monkeypatch.setattr(_core, "write_parquet", write_parquet)


def test_a_table_that_cannot_be_written_loses_none_of_the_others_and_exits_1(tmp_path, monkeypatch):
    """The tables are written by several threads: one that fails must not stop or lose the others
    (each is compared with a normal run's), its partial file is removed, and the error names it."""
    sc = write(tmp_path, "short.toml", Scenario.from_dict(short()).to_toml())
    good = tmp_path / "good"
    assert runner.invoke(app, ["run", str(sc), "--out", str(good), "--no-plots"]).exit_code == 0
    _disk_full_for("cwnd", monkeypatch)
    out = tmp_path / "o"
    res = runner.invoke(app, ["run", str(sc), "--out", str(out), "--no-plots"])
    text = " ".join(res.output.split())
    assert res.exit_code == 1, res.output
    assert "could not write cwnd.parquet: OSError: [Errno 28] No space left on device" in text, text
    assert "Traceback" not in res.output and "internal error" not in text
    assert not (out / "cwnd.parquet").exists()
    for t in TABLES:
        if t != "cwnd":
            pd.testing.assert_frame_equal(pd.read_parquet(out / f"{t}.parquet"), pd.read_parquet(good / f"{t}.parquet"))
    for name in ("scenario.toml", "engine_spec.json"):
        assert (out / name).read_text() == (good / name).read_text()
    assert json.loads((out / "summary.json").read_text())["flows"] == json.loads((good / "summary.json").read_text())["flows"]
    listed = json.loads((out / "dcsim-manifest.json").read_text())["files"]
    assert "cwnd.parquet" not in listed and "queue.parquet" in listed and "summary.json" in listed
    # the summary was printed all the same
    assert "Flows (after warm-up; FCT over the whole run)" in res.output


def test_to_dir_reports_every_file_that_failed_after_writing_the_rest(tmp_path, monkeypatch):
    from dcsim.result import WriteError

    res = simulate(short())
    _disk_full_for("queue", monkeypatch)
    real_write_text = Path.write_text

    def write_text(self, *a, **kw):
        if self.name == "engine_spec.json":
            raise PermissionError(13, "Permission denied", str(self))  # as the OS names the file
        return real_write_text(self, *a, **kw)

    monkeypatch.setattr(Path, "write_text", write_text)
    with pytest.raises(WriteError) as e:
        res.to_dir(tmp_path / "r")
    # the file named where it is now, not in the temporary sibling the files were written into (a review)
    assert e.value.errors == ["queue.parquet: OSError: [Errno 28] No space left on device",
                              f"engine_spec.json: PermissionError: [Errno 13] Permission denied: "
                              f"'{tmp_path / 'r' / 'engine_spec.json'}'"]
    names = [p.name for p in e.value.written]
    assert names == [f"{t}.parquet" for t in TABLES if t != "queue"] + ["scenario.toml", "summary.json",
                                                                         run_module.MANIFEST]
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == sorted(names)
    assert isinstance(e.value, OSError) and "queue.parquet" in str(e.value)


def test_a_full_disk_loses_only_what_does_not_fit(tmp_path, monkeypatch):
    """A robustness probe's full disk: while the largest table filled it, the files the other
    thread wrote meanwhile failed too, though they fit once the partial table was removed. A disk
    of a capacity that holds every file but the window table (the largest) must end with every
    file but that one written, each byte-identical to a normal run's."""
    import errno
    import threading

    from dcsim import _core
    from dcsim.result import WriteError

    res = simulate(short())
    good = tmp_path / "good"
    res.to_dir(good)
    sizes = {p.name: p.stat().st_size for p in good.iterdir()}
    out = tmp_path / "out"
    capacity = sum(sizes.values()) - sizes["cwnd.parquet"] // 2  # everything but the window table fits
    lock = threading.Lock()

    def disk_write(path: Path, data: bytes, linger: float = 0.0) -> None:
        """Write ``data`` as a disk of ``capacity`` bytes would: as much as is free, then ENOSPC."""
        with lock:
            used = sum(p.stat().st_size for p in path.parent.iterdir() if p != path)
            path.write_bytes(data[: max(0, capacity - used)])
        if used + len(data) > capacity:
            time.sleep(linger)  # the large file holds the space for a while before its write fails
            raise OSError(errno.ENOSPC, "No space left on device")

    real_parquet, real_text = _core.write_parquet, Path.write_text

    def write_parquet(where, columns):
        scratch = tmp_path / "scratch" / Path(where).name
        scratch.parent.mkdir(exist_ok=True)
        real_parquet(scratch, columns)
        disk_write(Path(where), scratch.read_bytes(), linger=0.5 if scratch.name == "cwnd.parquet" else 0.0)

    def write_text(self, text, encoding=None, **kw):
        if self.parent.name.startswith(".out.partial-"):
            return disk_write(self, text.encode(encoding or "utf-8"))
        return real_text(self, text, encoding=encoding, **kw)

    monkeypatch.setattr(_core, "write_parquet", write_parquet)
    monkeypatch.setattr(Path, "write_text", write_text)
    with pytest.raises(WriteError) as e:
        res.to_dir(out)
    assert e.value.errors == ["cwnd.parquet: OSError: [Errno 28] No space left on device"]
    assert sorted(p.name for p in out.iterdir()) == sorted(n for n in sizes if n != "cwnd.parquet")
    for p in out.iterdir():
        if p.name != run_module.MANIFEST:  # it names the run (a new id) and lists the files written
            assert p.read_bytes() == (good / p.name).read_bytes(), p.name
    listed = json.loads((out / run_module.MANIFEST).read_text())["files"]
    assert sorted(listed) == sorted(n for n in sizes if n not in ("cwnd.parquet", run_module.MANIFEST))


def test_the_largest_tables_are_written_first_and_listed_in_table_order(tmp_path):
    """The writer threads start with the largest table (rows x columns: the window table of the
    demo), so that it is not begun last while the other thread idles; results and files are
    still listed in the tables' order."""
    import threading

    from dcsim.result import WRITER_THREADS, _write_in_threads

    started: list[str] = []
    jobs = [(tmp_path / n, lambda path, n=n: started.append(n)) for n in ("a", "b", "c", "d")]
    done = _write_in_threads(jobs, 1, lambda: {}, sizes=[5, 40, 5, 7])
    assert started == ["b", "d", "a", "c"]  # largest first; equal sizes in the given order
    assert list(done) == [p for p, _ in jobs] and set(done.values()) == {None}

    res = simulate(short())
    started.clear()
    lock = threading.Lock()
    real = res.tables.parquet_writer

    def recording(name):
        write = real(name)

        def w(path):
            with lock:
                started.append(name)
            write(path)
        return w

    res.tables.parquet_writer = recording
    files = res.to_dir(tmp_path / "r")
    cells = {t: res.tables.rows(t) * len(res.tables.columns(t)) for t in TABLES}
    assert max(cells, key=cells.get) == "cwnd" and "cwnd" in started[:WRITER_THREADS], (started, cells)
    assert [p.name for p in files][:len(TABLES)] == [f"{t}.parquet" for t in TABLES]


def test_plots_from_the_plot_process_are_those_drawn_in_process(tmp_path):
    """The worker draws, from the columns it is sent, the very pixels Result.plot draws in process."""
    from matplotlib.image import imread

    from dcsim.plotting import plots_for

    sc = write(tmp_path, "short.toml", Scenario.from_dict(short()).to_toml())
    out = tmp_path / "o"
    res = runner.invoke(app, ["run", str(sc), "--out", str(out), "--wait-plots"])
    assert res.exit_code == 0, res.output
    r = simulate(Scenario.from_dict(short()))
    names = plots_for(r)
    assert set(names) == {"queue.png", "cwnd_alpha.png", "throughput.png"}
    for name, fn in names.items():
        fn(r, tmp_path / f"here-{name}")
        assert np.array_equal(imread(out / name), imread(tmp_path / f"here-{name}")), name


def test_progress_is_reported_up_to_the_end_and_runs_are_deterministic():
    seen = []
    a = simulate(short(), progress=lambda now, total: seen.append((now, total)))
    assert len(seen) == 100
    assert all(t == pytest.approx(0.03) for _, t in seen)
    assert [x for x, _ in seen] == sorted(x for x, _ in seen)  # time never goes back
    assert seen[-1][0] == pytest.approx(0.03)
    b = simulate(Scenario.from_dict(short()), chunks=7)  # chunking must not change anything
    for t in TABLES:
        pd.testing.assert_frame_equal(a.tables[t], b.tables[t], check_exact=True)


@pytest.mark.parametrize("chunks", [0, -1, True, 2.0, "3", 10**6 + 1])
def test_chunks_must_be_a_positive_integer(chunks):
    """simulate(chunks=...) names the argument and the allowed range (a bool is not a count; 10^12
    chunks would be 10^12 returns to Python)."""
    with pytest.raises(ValueError, match=r"chunks: .* out of range; allowed an integer 1 \.\. 1000000"):
        simulate(short(), chunks=chunks)


def test_chunks_may_be_numpys_integer():
    import numpy as np

    a, b = simulate(short(), chunks=np.int64(3)), simulate(short(), chunks=3)
    assert a.summary()["flows"] == b.summary()["flows"]


def test_changing_a_table_a_result_returned_leaves_the_result_as_the_run_left_it(tmp_path):
    """An API probe's `f = res.flows; f["goodput_bps"] /= 1e9` (a step to show Gbps) changed
    summary(), jain_index() and the files to_dir wrote; dropping `res.ports`' rows in place wrote
    an empty ports table. Each table a Result returns is now a DataFrame of its own."""
    r = simulate(short(duration="20ms", warmup="5ms"))
    summary, jain = json.dumps(r.summary(), sort_keys=True), r.jain_index()
    f = r.flows
    f["goodput_bps"] *= 2
    f["goodput_bps"] /= 1e9
    f.loc[f.index[0], "delivered_bytes"] = 1
    p = r.ports
    del p["utilization"]
    q = r.queue
    q.iloc[0, q.columns.get_loc("q_pkt")] = 12345
    assert json.dumps(r.summary(), sort_keys=True) == summary and r.jain_index() == jain
    assert r.flows["delivered_bytes"].iloc[0] != 1 and "utilization" in r.ports and r.queue["q_pkt"].max() < 12345
    r.to_dir(tmp_path / "a")
    simulate(short(duration="20ms", warmup="5ms")).to_dir(tmp_path / "b")  # the same run, untouched
    for t in TABLES:
        assert (tmp_path / "a" / f"{t}.parquet").read_bytes() == (tmp_path / "b" / f"{t}.parquet").read_bytes(), t


def test_jain_index_over_a_window_uses_the_throughput_series():
    r = simulate(short(duration="40ms", warmup="10ms"))
    tp = r.throughput
    last = tp[tp["t_s"] > 0.02 + 1e-12]  # 1 ms intervals wholly inside the last 20 ms
    x = last.groupby("flow")["goodput_bps"].mean().to_numpy()
    assert r.jain_index(0.02) == pytest.approx(x.sum() ** 2 / (len(x) * (x**2).sum()))
    assert r.jain_index((0.02, 0.04)) == pytest.approx(r.jain_index(0.02))
    with pytest.raises(ValueError, match="empty"):
        r.jain_index((0.03, 0.03))
    # A window beyond the run was averaged over what there was (the README's window=0.5 on the
    # 0.2 s demo returned the index of the whole run): refused, naming the run's span.
    for window in (0.05, (0.01, 0.05), (-0.01, 0.02)):
        with pytest.raises(ValueError, match=r"reaches beyond the run \[0, 0\.04\] s; allowed a length in \(0, 0\.04\] s"):
            r.jain_index(window)
    assert r.jain_index(0.04) == pytest.approx(r.jain_index((0.0, 0.04)))
    for window in ((0, 0.01, 0.02), "0.01", True, [0.01]):
        with pytest.raises(ValueError, match=r"neither a length in s .* nor a pair \(t0, t1\)"):
            r.jain_index(window)


def test_jain_index_over_a_window_refuses_flows_without_a_goodput_series():
    """With more listed flows than metrics.trace_flows traces, the untraced flows were counted at
    0 bit/s (an API probe: 0.595 for 150 DCTCP flows whose 100 traced ones alone give 0.893)."""
    sc = short(duration="20ms", warmup="5ms")
    sc["metrics"] = {"trace_flows": 3}
    r = simulate(sc)
    assert r.flows["goodput_bps"].min() > 0, "precondition: every flow sends"
    with pytest.raises(ValueError, match=r"window: 1 of the 4 listed flows have no goodput series .*trace_flows"):
        r.jain_index(0.01)
    assert 0 < r.jain_index() <= 1  # the flows table has every flow


# --- issue 11: the CLI's manners ------------------------------------------------------------------


def test_set_overrides_fields_before_the_run(tmp_path):
    sc = tmp_path / "s.toml"
    sc.write_text(Scenario.from_dict(short()).to_toml())
    out = tmp_path / "o"
    res = runner.invoke(app, ["run", str(sc), "--out", str(out), "--no-plots", "--set", "network.aqm.K=40pkt",
                              "--set", "flows[0].protocol=newreno", "--set", "flows[0].ecn=true", "--set", "run.seed=9"])
    assert res.exit_code == 0, res.output
    back = Scenario.from_toml(out / "scenario.toml")
    assert back.network.aqm.K.value == 40 and back.flows[0].protocol == "newreno" and back.flows[0].ecn is True
    assert back.run.seed == 9 and back.flows[0].g is None
    bad = runner.invoke(app, ["run", str(sc), "--out", str(tmp_path / "x"), "--set", "flows[0].g=3"])
    assert bad.exit_code == 2 and "flows[0].g" in bad.output and not (tmp_path / "x").exists()
    bad = runner.invoke(app, ["run", str(sc), "--set", "network.aqm.K"])
    assert bad.exit_code == 2 and "PATH=VALUE" in bad.output


def test_output_directory_rule(tmp_path):
    sc = tmp_path / "s.toml"
    sc.write_text(Scenario.from_dict(short()).to_toml())
    out = tmp_path / "o"
    assert runner.invoke(app, ["run", str(sc), "--out", str(out), "--wait-plots"]).exit_code == 0
    assert (out / "queue.png").exists()
    # A previous run's directory is replaced whole: no stale plot beside the new tables.
    r = runner.invoke(app, ["run", str(sc), "--out", str(out), "--no-plots"])
    assert r.exit_code == 0, r.output
    assert not (out / "queue.png").exists() and (out / "flows.parquet").exists()
    # Someone else's directory is refused without --force, and left alone.
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    r = runner.invoke(app, ["run", str(sc), "--out", str(other), "--no-plots"])
    assert r.exit_code == 2 and "--force" in r.output and (other / "notes.txt").exists()
    r = runner.invoke(app, ["run", str(sc), "--out", str(other), "--no-plots", "--force"])
    assert r.exit_code == 0 and not (other / "notes.txt").exists()


def test_a_users_file_in_a_previous_runs_directory_is_kept(tmp_path):
    """Issue 11 (audit): a run's directory is replaced only if it holds nothing but what that run
    wrote (its manifest); a user's notes.txt in it makes the next run refuse, naming the file."""
    sc = tmp_path / "s.toml"
    sc.write_text(Scenario.from_dict(short()).to_toml())
    out = tmp_path / "o"
    assert runner.invoke(app, ["run", str(sc), "--out", str(out), "--no-plots"]).exit_code == 0
    manifest = json.loads((out / run_module.MANIFEST).read_text())
    assert sorted(manifest["files"]) == sorted(p.name for p in out.iterdir() if p.name != run_module.MANIFEST)
    assert run_module.unexpected_files(out) == []
    (out / "notes.txt").write_text("keep me")
    (out / "mine").mkdir()
    assert run_module.unexpected_files(out) == ["mine", "notes.txt"]
    r = runner.invoke(app, ["run", str(sc), "--out", str(out), "--no-plots"])
    text = " ".join(r.output.split())
    assert r.exit_code == 2 and "--out" in text and "mine, notes.txt" in text and "--force" in text
    assert (out / "notes.txt").read_text() == "keep me"
    # A file the run did not list (a plot of another run, say) is unexpected too.
    (out / "notes.txt").unlink()
    (out / "mine").rmdir()
    (out / "queue.png").write_bytes(b"x")
    assert run_module.unexpected_files(out) == ["queue.png"]
    (out / "queue.png").unlink()
    # Only its own files: replaced whole.
    assert runner.invoke(app, ["run", str(sc), "--out", str(out), "--wait-plots"]).exit_code == 0
    assert (out / "queue.png").exists()
    # A directory an older dcsim wrote (no manifest, engine_spec.json and known names) is replaced too.
    (out / run_module.MANIFEST).unlink()
    assert run_module.unexpected_files(out) == []
    (out / "notes.txt").write_text("keep me")
    assert run_module.unexpected_files(out) == ["notes.txt"]


@pytest.mark.parametrize("bad", ["/proc/nope/x", "FILE/sub"])
def test_an_impossible_output_path_exits_2_before_running(tmp_path, monkeypatch, bad):
    """Issue 11 (audit): -o under a missing unwritable place or under a file is refused before the
    run (nothing simulated), exit 2 with a message naming --out."""
    sc = tmp_path / "s.toml"
    sc.write_text(Scenario.from_dict(short()).to_toml())
    (tmp_path / "FILE").write_text("a file")
    out = bad.replace("FILE", str(tmp_path / "FILE"))
    ran = []
    monkeypatch.setattr(run_module, "simulate", lambda *a, **k: ran.append(1))
    r = runner.invoke(app, ["run", str(sc), "--out", out])
    assert r.exit_code == 2, r.output
    assert "--out" in r.output and "internal error" not in r.output and not ran


@pytest.mark.parametrize("fmt", ["csv", "table"])
def test_a_closed_pipe_still_writes_the_output_directory(tmp_path, fmt):
    """`dcsim run ... | head -1`: the reader goes away; the run exits 0, quietly, and its output
    directory is complete (the summary table is printed by rich, whose own reaction to a closed
    pipe was to exit with status 1 and discard the directory). Messages on stderr are not wrapped
    at 80 columns."""
    import subprocess
    import sys

    sc = tmp_path / "s.toml"
    sc.write_text(Scenario.from_dict(short(n=60)).to_toml())
    out = tmp_path / "o"
    code = "import sys; from dcsim.cli import main; sys.exit(main())"
    p = subprocess.Popen([sys.executable, "-c", code, "run", str(sc), "--out", str(out), "--no-plots",
                          "--format", fmt], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = p.stdout.readline()
    p.stdout.close()  # like `head -1`
    with p.stderr:
        err = p.stderr.read().decode()
    assert p.wait(timeout=120) == 0, err
    assert first.startswith(b"flow,flow_label," if fmt == "csv" else b"s.toml: 60 x dctcp")
    assert "Traceback" not in err and "BrokenPipe" not in err and "error" not in err
    assert (out / "flows.parquet").exists() and (out / run_module.MANIFEST).exists()
    if fmt == "csv":  # the scenario line on stderr is one line, however long
        line = next(x for x in err.splitlines() if x.startswith("s.toml:"))
        assert len(line) > 80 and line.rstrip().endswith("seed 3"), err


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("fmt", ["json", "table"])
def test_stdout_on_a_full_disk_is_an_error_of_the_environment_not_a_bug(tmp_path, fmt):
    """`dcsim run ... > /dev/full`: exit 1 with one line on stderr that says why, never "internal
    error"; with --format json (the scenario line goes to stderr) the run is done and its output
    directory is written, and only the summary is missing."""
    import subprocess
    import sys

    sc = tmp_path / "s.toml"
    sc.write_text(Scenario.from_dict(short()).to_toml())
    out = tmp_path / "o"
    code = "import sys; from dcsim.cli import main; sys.exit(main())"
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-c", code, "run", str(sc), "--out", str(out), "--no-plots",
                            "--format", fmt], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert r.returncode == 1, r.stderr
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr
    assert "No space left on device" in r.stderr, r.stderr
    if fmt == "json":
        assert "could not write the summary to stdout" in r.stderr
        assert (out / "flows.parquet").exists() and (out / "summary.json").exists()
        listed = json.loads((out / run_module.MANIFEST).read_text())["files"]
        assert "summary.json" in listed and "cwnd.parquet" in listed


def test_version_help_and_formats(tmp_path):
    import dcsim

    r = runner.invoke(app, ["--version"])
    assert r.exit_code == 0 and r.output.strip() == f"dcsim {dcsim.__version__}"
    h = runner.invoke(app, ["run", "--help"])
    assert "<bool>" not in h.output and "--set" in h.output
    sc = tmp_path / "s.toml"
    sc.write_text(Scenario.from_dict(short()).to_toml())
    r = stdout_runner().invoke(app, ["run", str(sc), "--out", str(tmp_path / "o"), "--no-plots", "--format", "csv"])
    assert r.exit_code == 0
    rows = [line for line in r.stdout.splitlines() if line.count(",") > 5]
    assert rows[0].startswith("flow,flow_label,src,dst,protocol") and len(rows) == 1 + 4
    r = runner.invoke(app, ["run", str(sc), "--out", str(tmp_path / "o"), "--format", "yaml"])
    assert r.exit_code == 2 and "--format" in r.output


def test_tables_are_not_cut_when_not_a_terminal(tmp_path):
    """Through a pipe (not a terminal) the summary table keeps every column header whole."""
    import subprocess
    import sys

    sc = tmp_path / "s.toml"
    sc.write_text(Scenario.from_dict(short()).to_toml())
    r = subprocess.run([sys.executable, "-c", "import sys; from dcsim.cli import main; sys.exit(main())",
                        "run", str(sc), "--out", str(tmp_path / "o"), "--no-plots"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert "…" not in r.stdout, r.stdout
    assert "marks pkt" in r.stdout and "goodput Gbps" in r.stdout
    # the flows table's cwnd and alpha are the exact time-weighted means, and the caption says so
    assert "exact time-weighted means after warm-up" in r.stdout and "sampled trace" not in r.stdout


def test_names_are_printed_as_written_not_as_emoji(tmp_path):
    """A file named with colons prints as named: ``:cd:`` is one of rich's emoji codes, which the
    consoles do not expand (the name would otherwise show a compact disc)."""
    sc = write(tmp_path, "my:cd:run.toml", Scenario.from_dict(short(duration="5ms", warmup="1ms")).to_toml())
    res = stdout_runner().invoke(app, ["run", str(sc), "--out", str(tmp_path / "o"), "--no-plots"])
    assert res.exit_code == 0, res.output
    assert "my:cd:run.toml" in res.stdout and "\N{OPTICAL DISC}" not in res.stdout, res.stdout


def test_summary_says_which_drops_were_acks(tmp_path):
    """Pure ACKs are Not-ECT under the ns-2 profile: a threshold queue that DCTCP holds at K drops
    them there (tests/test_tcp_profile_physics.py). The summary's drop count then says how many of
    the drops were not data, so that "drops 1745 pkt" next to "retransmitted 1 pkt" is not read as
    lost data; the numbers come from the tables (ports' drops, flows' data drops)."""
    import sys

    sys.path.insert(0, str(ROOT / "tests"))
    from test_tcp_profile_physics import ACKS_THROUGH_K

    f = tmp_path / "acks.toml"
    f.write_text(ACKS_THROUGH_K.replace("ECT", "false").replace('duration = "50ms"', 'duration = "20ms"'))
    res = runner.invoke(app, ["run", str(f), "--out", str(tmp_path / "o"), "--no-plots"], env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    ports = pd.read_parquet(tmp_path / "o" / "ports.parquet")
    flows = pd.read_parquet(tmp_path / "o" / "flows.parquet")
    drops, data = int(ports.drops.sum()), int(flows.drops.sum())
    assert drops > data == 0, (drops, data)
    assert f"drops {drops} pkt ({drops} of them ACKs)" in res.output, res.output
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["after_warmup"]["data_drops"] == 0 and summary["after_warmup"]["drops"] == drops
    # Without ACK drops the count stands alone.
    f.write_text(ACKS_THROUGH_K.replace("ECT", "true").replace('duration = "50ms"', 'duration = "20ms"'))
    res = runner.invoke(app, ["run", str(f), "--out", str(tmp_path / "o2"), "--no-plots"], env={"COLUMNS": "300"})
    assert res.exit_code == 0 and "drops 0 pkt, ECN marks" in res.output, res.output


def test_a_workload_runs_drop_count_says_which_drops_were_acks(tmp_path):
    """A permutation of long-lived flows (no listed flows, no finished flows) with Not-ECT ACKs
    printed "drops 1061 pkt" although no data packet was dropped (a README walkthrough)."""
    res = runner.invoke(app, ["run", str(ROOT / "examples" / "permutation.toml"), "--out", str(tmp_path / "o"),
                              "--no-plots", "--set", "workloads[0].ect_acks=false", "--set", "run.duration=5ms"],
                        env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    drops = int(pd.read_parquet(tmp_path / "o" / "ports.parquet").drops_whole_run.sum())
    assert drops > 0, "precondition: ACKs are dropped at K"
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["whole_run"]["data_drops"] == 0 and summary["whole_run"]["drops"] == drops
    assert f"drops {drops} pkt ({drops} of them ACKs)" in " ".join(res.output.split()), res.output


def test_a_workload_run_says_whose_goodput_it_is_without_empty_per_flow_fields(tmp_path):
    """Only listed [[flows]] have a mean per flow and Jain's index; a fabric run with workloads
    printed "mean per flow -, Jain's fairness index -". It now says what the aggregate is of."""
    res = runner.invoke(app, ["run", str(ROOT / "examples" / "fat_tree.toml"), "--out", str(tmp_path / "o"), "--no-plots",
                              "--set", "run.duration=5ms"], env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    line = next(x for x in res.output.splitlines() if x.startswith("aggregate goodput"))
    # (not "a mean per flow and Jain's index are for the scenario's listed flows", where there were none: a review)
    assert line.endswith("(of the generated flows; the scenario lists no flows of its own, whose mean and Jain's index this "
                         "line gives when it does)"), line
    assert " -" not in line, line
