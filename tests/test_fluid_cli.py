"""`dcsim fluid dctcp | dx | dctcp-fig2`: files, units, JSON, errors (acceptance point 4 of issue 3)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from dcsim.cli import app

runner = CliRunner()
CD = 10e9 / (8 * 1500) * 100e-6  # 83.33 packets


def _csv(path):
    return pd.read_csv(path)  # a plain CSV: one header row, no comments


def test_fig2_command_writes_csv_and_png_per_N(tmp_path):
    r = runner.invoke(app, ["fluid", "dctcp-fig2", "--out", str(tmp_path), "--t-end", "20ms", "--json"])
    assert r.exit_code == 0, r.output
    summ = json.loads(r.output)
    assert set(summ) == {"2", "10", "100"}
    for N in (2, 10, 100):
        df = _csv(tmp_path / f"fig2_N{N}.csv")
        assert list(df.columns) == ["t_s", "W_pkt", "alpha", "q_pkt", "p", "R_s"]
        assert df.t_s.iloc[-1] >= 0.02 - 1e-9
        assert (tmp_path / f"fig2_N{N}.png").stat().st_size > 10_000
    # N = 100: the fixed point q = 2N - Cd = 116.7 packets, W = 2 (Section 3.1; Fig. 2 "about 120")
    df = _csv(tmp_path / "fig2_N100.csv")
    assert abs(df.q_pkt.iloc[-1] - (200 - CD)) < 0.1
    assert summ["100"]["regime"].startswith("fixed point")
    # N = 2, 10: limit cycle across K = 65 with full utilization
    for N in ("2", "10"):
        s = summ[N]
        assert s["regime"].startswith("limit cycle")
        assert s["q_pkt"]["min"] < 65 < s["q_pkt"]["max"]
        assert s["utilization"] == 1.0


def test_dctcp_command_table_has_units_and_files(tmp_path):
    csv, png = tmp_path / "o.csv", tmp_path / "o.png"
    r = runner.invoke(app, ["fluid", "dctcp", "--C", "10Gbps", "--d", "100us", "--K", "65pkt", "--g", "0.0625",
                            "--N", "10", "--t-end", "10ms", "--csv", str(csv), "--plot", str(png)])
    assert r.exit_code == 0, r.output
    assert "178 us" in r.output  # R* = 100 us + 65 pkt / (833333 pkt/s)
    assert "14.83 pkt" in r.output  # wbar = (83.33 + 65)/10
    assert csv.exists() and png.exists()


def test_dx_command_json(tmp_path):
    r = runner.invoke(app, ["fluid", "dx", "--N", "50", "--C", "10Gbps", "--R0", "80us", "--t-end", "10ms",
                            "--plot", str(tmp_path / "dx.png"), "--json"])
    assert r.exit_code == 0, r.output
    s = json.loads(r.output)
    # settles at the equilibrium of eqs. (6)-(8): Q0 = 8.78 us, W0 = C (R0 + Q0) / N = 1.48 packets
    assert abs(s["Q_s"]["mean"] - 8.7785e-6) < 1e-9
    assert abs(s["W_pkt"]["mean"] - 1.4796) < 1e-4
    assert (tmp_path / "dx.png").exists()


def test_bad_input_exit_code_and_message():
    r = runner.invoke(app, ["fluid", "dctcp", "--N", "0.5", "--t-end", "1ms"])
    assert r.exit_code == 2
    assert "--N" in r.output and "0.5" in r.output and "1 <= N" in r.output and "Traceback" not in r.output
    r = runner.invoke(app, ["fluid", "dx", "--R0", "80 parsecs"])
    assert r.exit_code == 2 and "--R0" in r.output


def test_an_unfloored_queue_below_zero_is_said_in_the_table_and_the_json():
    """`fluid dctcp --no-floor` printed a queue of -7.3 pkt and 99.3 % utilization with no word
    that the floor was off, and its JSON had no queue_floor (fluid dx has window_floor)."""
    args = ["fluid", "dctcp", "--K", "0pkt", "--N", "1", "--no-floor"]
    s = json.loads(runner.invoke(app, [*args, "--json"]).output)
    assert s["queue_floor"] is False and s["q_pkt"]["min"] < 0
    text = runner.invoke(app, args, env={"COLUMNS": "200"}).output
    assert "went below 0" in text and "outside the physical model" in " ".join(text.split())
    floored = json.loads(runner.invoke(app, ["fluid", "dctcp", "--K", "0pkt", "--N", "1", "--json"]).output)
    assert floored["queue_floor"] is True and floored["q_pkt"]["min"] >= 0


def test_every_file_written_is_listed(tmp_path):
    """--csv also writes NAME.params.json, and dctcp-fig2 fig2_N{N}.params.json: written, but
    listed neither in "files" nor in the help."""
    s = json.loads(runner.invoke(app, ["fluid", "dctcp", "--csv", str(tmp_path / "a.csv"), "--t-end", "2ms", "--json"]).output)
    assert sorted(s["files"]) == sorted(str(p) for p in tmp_path.iterdir())
    out = tmp_path / "fig2"
    fig2 = json.loads(runner.invoke(app, ["fluid", "dctcp-fig2", "-o", str(out), "--t-end", "2ms", "--json"]).output)
    listed = {f for s in fig2.values() for f in s["files"]}
    assert listed == {str(p) for p in out.iterdir()}


def test_the_summary_sees_every_step_whatever_the_sample_dt(tmp_path):
    """`--sample-dt` near the limit cycle's period (1 515 steps of R*/200 at N = 10, measured by
    test_fluid) makes the CSV's rows stroboscopic; the summary must not change (the windows
    are the same steps: --t-end is a whole number of samples of both spacings)."""
    R = 100e-6 + 65 / (10e9 / 12000)
    dt = R / 200
    period, t_end = 1515 * dt, 40 * 1515 * dt
    base = ["fluid", "dctcp", "--N", "10", "--t-end", f"{t_end}s", "--json"]
    every = json.loads(runner.invoke(app, [*base, "--sample-dt", f"{dt}s"]).output)
    strobe_csv = tmp_path / "s.csv"
    strobe = json.loads(runner.invoke(app, [*base, "--sample-dt", f"{period}s", "--csv", str(strobe_csv)]).output)
    rows = _csv(strobe_csv)
    rows = rows[rows.t_s >= strobe["window_from_s"] - dt / 2]
    assert abs(rows.p.mean() - every["marking_fraction"]) > 0.3  # the rows alias
    for k in ("marking_fraction", "utilization", "q_pkt", "W_pkt", "alpha", "window_from_s", "window_steps"):
        assert strobe[k] == every[k], k
    assert strobe["rows"] == 41 and strobe["sample_dt_s"] == pytest.approx(period, rel=1e-9)
    assert every["window_steps"] == 20 * 1515 + 1


def test_sample_dt_is_rounded_to_steps_and_bounded():
    s = json.loads(runner.invoke(app, ["fluid", "dx", "--sample-dt", "1ps", "--t-end", "1ms", "--json"]).output)
    assert s["sample_dt_s"] == pytest.approx(80e-6 / 200, rel=1e-9)  # one step of R0/200
    r = runner.invoke(app, ["fluid", "dctcp", "--t-end", "1000s", "--dt", "10us", "--sample-dt", "10us"])
    assert r.exit_code == 2 and "--sample-dt" in r.output and "rows" in r.output
    r = runner.invoke(app, ["fluid", "dx", "--sample-dt", "1s"])
    assert r.exit_code == 2 and "--sample-dt" in r.output and "20 ms" in r.output


def test_a_plot_of_rows_slower_than_the_cycle_draws_the_band_not_an_alias(tmp_path, monkeypatch):
    """1 s at the default ~4 000 rows: rows 250 us apart against a cycle of 1.35 ms, each row's
    band a large part of the queue's range; the plot must draw the band (the state's extremes
    between rows) and no line through the rows. The CSV keeps the rows only."""
    from dcsim.commands import fluid as cmd

    drawn = {}

    def spy(df, path, *a, **k):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots()
        t_ms = df.t_s * 1e3
        cmd._trace(ax, t_ms, df, "q_pkt")
        drawn["lines"], drawn["bands"] = len(ax.lines), len(ax.collections)
        plt.close(fig)
        return real(df, path, *a, **k)

    real = cmd.plot_dctcp
    monkeypatch.setattr(cmd, "plot_dctcp", spy)
    csv = tmp_path / "q.csv"
    r = runner.invoke(app, ["fluid", "dctcp", "--t-end", "1s", "--plot", str(tmp_path / "q.png"), "--csv", str(csv)])
    assert r.exit_code == 0, r.output
    assert drawn == {"lines": 0, "bands": 1}
    assert list(_csv(csv).columns) == ["t_s", "W_pkt", "alpha", "q_pkt", "p", "R_s"]
    drawn.clear()
    r = runner.invoke(app, ["fluid", "dctcp", "--t-end", "20ms", "--plot", str(tmp_path / "r.png")])
    assert r.exit_code == 0 and drawn["lines"] == 1  # 20 ms: rows every ~5 us, the line is the cycle


def test_the_summary_window_ends_at_t_end_whatever_the_rows():
    """A --sample-dt that does not divide --t-end runs on to the next whole row (20 -> 30 ms at 15 ms);
    the summary's window must stay the asked 10-20 ms (it had been 15-30 ms: 40.2 % marked against
    37.4 %, a probe)."""
    base = ["fluid", "dctcp", "--t-end", "20ms", "--json"]
    a = json.loads(runner.invoke(app, base).output)
    b = json.loads(runner.invoke(app, [*base, "--sample-dt", "15ms"]).output)
    assert b["t_end_s"] >= 0.03 - 1e-9 and a["t_end_s"] < 0.021
    for k in ("marking_fraction", "utilization", "q_pkt", "W_pkt", "alpha", "window_from_s", "window_to_s", "window_steps"):
        assert a[k] == b[k], k
    assert abs(a["window_to_s"] - 0.02) < 1e-6 and abs(a["window_from_s"] - 0.01) < 1e-6


def test_the_smallest_sample_dt_offered_is_accepted():
    """The row bound counts whole steps: the smallest --sample-dt the error offers must run, and the
    bound must be the CLI's, not the integrator's (a probe: 17.7999999 s reached the integrator)."""
    r = runner.invoke(app, ["fluid", "dctcp", "--t-end", "17.7999999s", "--sample-dt", "1ps"])
    assert r.exit_code == 2 and "--sample-dt" in r.output and "sample_dt =" not in r.output
    offered = r.output.split("allowed --sample-dt >= ")[1].split(" (")[0].replace(" ", "")
    r = runner.invoke(app, ["fluid", "dx", "--t-end", "1s", "--sample-dt", "1ps"])  # 2.5e6 rows: fine
    assert r.exit_code == 0, r.output
    assert offered == "1.78us", offered


def test_a_no_floor_plot_says_so_and_dx_busy_time_is_not_called_utilization(tmp_path, monkeypatch):
    """An audit of the fluid commands: --no-floor drew negative queues under the usual title, and
    `fluid dx`'s 'time with Q > 0' (85 % at R0 = 320 us) read as a utilization (the model's is ~100 %)."""
    from matplotlib.figure import Figure

    from dcsim import fluid as fl
    from dcsim.commands.fluid import plot_dctcp

    titles = []
    real = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda self, *a, **k: (titles.append(self._suptitle.get_text()),
                                                                  real(self, *a, **k))[1])
    for floor in (False, True):
        plot_dctcp(fl.dctcp(10e9, 100e-6, 65, 1 / 16, 10, t_end_s=0.005, queue_floor=floor), tmp_path / "nf.png")
    assert "no queue floor (--no-floor)" in titles[0] and "no queue floor" not in titles[1]
    res = CliRunner().invoke(app, ["fluid", "dx", "--t-end", "5ms"], env={"COLUMNS": "200"})
    assert res.exit_code == 0 and "not the utilization" in " ".join(res.output.split())


def test_a_file_that_cannot_be_written_costs_only_itself(tmp_path, split_runner):
    """A full disk under --csv had lost the run's summary and its plot (exit 2 with a message that
    named no file; a probe): the summary and the other file still come, each failed file gets a
    line naming its option and path, and the status is 1."""
    full = tmp_path / "full.csv"
    full.symlink_to("/dev/full")
    png = tmp_path / "ok.png"
    r = split_runner.invoke(app, ["fluid", "dctcp", "--t-end", "5ms", "--csv", str(full), "--plot", str(png), "--json"])
    assert r.exit_code == 1, r.stdout + r.stderr
    assert f"--csv: cannot write {full}: No space left on device" in " ".join(r.stderr.split())
    summary = json.loads(r.stdout)
    assert summary["files"] == [str(png)] and png.stat().st_size > 10_000
    assert summary["q_pkt"]["max"] > 0


def test_fig2_refuses_a_directory_in_the_way_before_it_runs_and_writes_around_a_failed_file(tmp_path):
    """A directory named like one of its files had stopped the command part-way, with Python's
    bare "[Errno 21] Is a directory" (N = 2 written, N = 100 never run: a probe)."""
    (tmp_path / "a" / "fig2_N10.png").mkdir(parents=True)
    r = runner.invoke(app, ["fluid", "dctcp-fig2", "--out", str(tmp_path / "a"), "--t-end", "2ms"])
    assert r.exit_code == 2 and "--out:" in r.output and "fig2_N10.png is a directory" in " ".join(r.output.split())
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["fig2_N10.png"]  # nothing run
    # A file the disk refuses as it is written: every other file and N still come.
    b = tmp_path / "b"
    b.mkdir()
    (b / "fig2_N10.csv").symlink_to("/dev/full")
    r = runner.invoke(app, ["fluid", "dctcp-fig2", "--out", str(b), "--t-end", "2ms", "--json"])
    assert r.exit_code == 1, r.output
    assert f"--out: cannot write {b / 'fig2_N10.csv'}: No space left on device" in " ".join(r.output.split())
    for N in (2, 100):
        assert (b / f"fig2_N{N}.csv").stat().st_size > 0 and (b / f"fig2_N{N}.png").stat().st_size > 10_000
    assert (b / "fig2_N10.png").stat().st_size > 10_000


def test_a_summary_says_when_it_describes_a_start_a_transient_or_a_longer_run():
    """A probe: a 20 ms run with a 1 s feedback delay printed "time marked 100 %" of its first 3
    steps, a 1e6-flow run still filling its queue was summarised as its fixed point, and a run with
    a 6 ms step went 20 % past --t-end, each without a word. Now notes say so (JSON "notes" too);
    the paper's settings (Fig. 2's N = 2, 10, 100; DX at N = 10, 50, 70) get none: a settled limit
    cycle's half-window means differ by < 1/4 of its range (2 periods a half), a fixed point's by
    < 1 % of the queue."""
    def notes(*args):
        r = runner.invoke(app, ["fluid", *args, "--json"])
        assert r.exit_code == 0, r.output
        return json.loads(r.output)["notes"]

    (n,) = notes("dctcp", "--d", "1s")
    assert n.startswith("the window of statistics spans 0.01 feedback delays (R* = d + K/C = 1 s)") and "--t-end >= 20 s" in n
    (n,) = notes("dctcp", "--N", "1e6")
    assert n.startswith("not settled: the mean q_pkt moved from 7.084e+04 pkt to 8.764e+04 pkt")
    start, late = notes("dctcp", "--K", "1e6pkt")
    assert late.startswith("the run went to 24 ms, 20 % past --t-end = 20 ms")
    assert notes("dx", "--R0", "1s")[0].startswith("the window of statistics spans 0.01 feedback delays (tau = 1 s)")
    # 10 .. 50 delays: too short to judge (a review: N = 1 000, 8 ms, a window of 22 R* with the
    # queue still rising to its fixed point said nothing); 100 R* = 17.8 ms lets it be judged
    (n,) = notes("dctcp", "--N", "1000", "--t-end", "8ms")
    assert n.startswith("the window of statistics spans 22.5 feedback delays (R* = d + K/C = 178 us): too short to "
                        "tell whether the run settled; give --t-end >= 17.8 ms"), n
    for args in (("dctcp", "--N", "2"), ("dctcp", "--N", "10"), ("dctcp", "--N", "100"), ("dx", "--N", "10"),
                 ("dx",), ("dx", "--N", "70", "--t-end", "50ms")):
        assert notes(*args) == [], args
    r = runner.invoke(app, ["fluid", "dctcp", "--d", "1s"], env={"COLUMNS": "200"})
    assert r.exit_code == 0 and "note: the window of statistics spans 0.01 feedback delays" in r.output, r.output


def test_a_step_refused_at_the_history_bound_is_shown_apart_from_the_bound():
    """"--dt: 20 ns makes the delay 1 s span 5e+07 steps; ... i.e. --dt >= 20 ns" refused a step the
    bound, rounded, seemed to allow (R* = 1.0000000078 s): the figures now carry the digits that
    tell them apart."""
    r = runner.invoke(app, ["fluid", "dctcp", "--C", "10Tbps", "--d", "1s", "--t-end", "10s", "--dt", "20ns"])
    assert r.exit_code == 2
    text = " ".join(r.output.split())
    assert "--dt: 20 ns makes the delay 1.0000001 s span 50000004 steps" in text and "--dt >= 20.000002 ns" in text, text


def test_a_plot_that_fails_in_its_backend_keeps_the_summary_and_the_csv(tmp_path, split_runner, monkeypatch):
    """A backend's own failure (the .pgf backend without xelatex raised RuntimeError) had ended
    the command with an internal error: no summary, and the CSV written but never listed (a
    review). It is one `--plot:` line now, with the summary, the CSV listed and status 1."""
    from dcsim.commands import fluid as cmd

    def broken(df, path):
        raise RuntimeError("the backend is missing its TeX")

    monkeypatch.setattr(cmd, "plot_dctcp", broken)
    csv, png = tmp_path / "y.csv", tmp_path / "y.png"
    r = split_runner.invoke(app, ["fluid", "dctcp", "--t-end", "2ms", "--csv", str(csv), "--plot", str(png), "--json"])
    assert r.exit_code == 1, r.stdout + r.stderr
    assert "--plot: cannot draw" in r.stderr and "RuntimeError: the backend is missing its TeX" in r.stderr
    summary = json.loads(r.stdout)
    assert str(csv) in summary["files"] and summary["q_pkt"]["max"] > 0


def test_pgf_is_offered_only_with_its_tex_system(monkeypatch, tmp_path):
    import shutil

    from dcsim.commands.inputs import plot_suffixes

    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert ".pgf" not in plot_suffixes() and ".png" in plot_suffixes()
    r = runner.invoke(app, ["fluid", "dctcp", "--t-end", "2ms", "--plot", str(tmp_path / "y.pgf")])
    assert r.exit_code == 2 and "--plot" in r.output and not (tmp_path / "y.pgf").exists()
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/" + name)
    assert ".pgf" in plot_suffixes()


def test_a_failed_write_leaves_the_earlier_files_whole(tmp_path, split_runner, monkeypatch):
    """A full disk had replaced a good CSV with a truncated one that still parsed, beside the
    parameters of the run before (a review, `ulimit -f`). Files are written beside and renamed
    into place: the earlier CSV and its parameters stay as they were, and no temporary file is left."""
    csv = tmp_path / "out.csv"
    assert runner.invoke(app, ["fluid", "dctcp", "--N", "2", "--t-end", "2ms", "--csv", str(csv)]).exit_code == 0
    before = csv.read_bytes(), (tmp_path / "out.params.json").read_bytes()
    real = pd.DataFrame.to_csv

    def half_then_full(self, path, *a, **kw):
        real(self.iloc[: len(self) // 2], path, *a, **kw)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_full)
    r = split_runner.invoke(app, ["fluid", "dctcp", "--N", "10", "--t-end", "2ms", "--csv", str(csv), "--json"])
    assert r.exit_code == 1 and "--csv: cannot write" in r.stderr, r.stdout + r.stderr
    assert (csv.read_bytes(), (tmp_path / "out.params.json").read_bytes()) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "out.params.json"]


def test_a_csv_to_a_device_is_written_through(tmp_path, split_runner):
    """`--csv /dev/stdout` (or a pipe) is written through, not replaced by a renamed file."""
    link = tmp_path / "to_null.csv"
    link.symlink_to("/dev/null")
    r = split_runner.invoke(app, ["fluid", "dctcp", "--t-end", "2ms", "--csv", str(link), "--json"])
    assert r.exit_code == 0, r.stdout + r.stderr
    assert link.is_symlink() and str(link.resolve()) == "/dev/null"
