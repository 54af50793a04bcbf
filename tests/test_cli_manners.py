"""Issue 11 (audit): the CLI's manners, tested directly: option aliases of the theory and fluid
commands, no "<bool>" on any help screen, `dcsim reproduce` writes Parquet, and the column names
the issue asked for."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import dcsim
from dcsim.cli import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent


def _json(args: list[str]) -> dict:
    r = runner.invoke(app, args)
    assert r.exit_code == 0, (args, r.output)
    return json.loads(r.stdout)


@pytest.mark.parametrize(
    "cmd,symbols,aliases",
    [
        (["theory", "dctcp"], ["--C", "10Gbps", "--d", "300us", "--K", "65pkt", "--N", "10", "--g", "0.0625"],
         [["--c", "10Gbps", "--rtt", "300us", "--k", "65pkt", "--n", "10", "--gain", "0.0625"],
          ["--capacity", "10Gbps", "--d", "300us", "--threshold", "65pkt", "--flows", "10", "--g", "0.0625"]]),
        (["theory", "dx"], ["--N", "10", "--C", "10Gbps", "--R0", "80us"],
         [["--n", "10", "--c", "10Gbps", "--r0", "80us"], ["--flows", "10", "--capacity", "10Gbps", "--base-rtt", "80us"]]),
        (["theory", "dsm"], ["--C", "10Gbps", "--delay", "300us", "--Ha", "20000", "--Hb", "20000", "--Hc", "20000",
                             "--samples", "100"],
         [["--c", "10Gbps", "--delay", "300us", "--ha", "20000", "--hb", "20000", "--hc", "20000", "--samples", "100"],
          ["--capacity", "10Gbps", "--delay", "300us", "--samples", "100"]]),
        (["fluid", "dctcp"], ["--C", "10Gbps", "--d", "100us", "--K", "65pkt", "--N", "10", "--g", "0.0625",
                              "--t-end", "2ms"],
         [["--c", "10Gbps", "--rtt", "100us", "--k", "65pkt", "--n", "10", "--gain", "0.0625", "--t-end", "2ms"],
          ["--capacity", "10Gbps", "--d", "100us", "--threshold", "65pkt", "--flows", "10", "--t-end", "2ms"]]),
        (["fluid", "dx"], ["--N", "50", "--C", "10Gbps", "--R0", "80us", "--tau", "80us", "--t-end", "2ms"],
         [["--n", "50", "--c", "10Gbps", "--r0", "80us", "--feedback-delay", "80us", "--t-end", "2ms"],
          ["--flows", "50", "--capacity", "10Gbps", "--base-rtt", "80us", "--t-end", "2ms"]]),
    ],
    ids=["theory-dctcp", "theory-dx", "theory-dsm", "fluid-dctcp", "fluid-dx"],
)
def test_theory_and_fluid_aliases_give_the_same_answer(cmd, symbols, aliases):
    """Lower-case and spelled-out names (--c, --capacity, --r0, --base-rtt, ...) are the paper's symbols."""
    want = _json([*cmd, *symbols, "--json"])
    for alt in aliases:
        assert _json([*cmd, *alt, "--json"]) == want, alt


def _commands(cmd, path=()):
    """Every command path of the CLI (groups and leaves)."""
    yield path
    for name, sub in getattr(cmd, "commands", {}).items():
        yield from _commands(sub, (*path, name))


def test_no_bool_placeholder_on_any_help_screen():
    import typer

    paths = list(_commands(typer.main.get_command(app)))
    assert len(paths) >= 10 and ("run",) in paths and ("theory", "dsm") in paths and ("fluid", "dx") in paths
    for path in paths:
        r = runner.invoke(app, [*path, "--help"])
        assert r.exit_code == 0, (path, r.output)
        assert "<bool>" not in r.output and "BOOLEAN" not in r.output, (path, r.output)


def test_command_lists_show_whole_first_sentences():
    """A group's list of commands shows each command's first sentence, which click ends at the
    first word ending in "." ("theory dsm" read "Admissible a, b, c, omega (eq." and "fluid
    dctcp-fig2" read "Fig."): no first sentence may end inside parentheses or on an abbreviation."""
    import typer

    root = typer.main.get_command(app)
    for path in _commands(root):
        cmd = root
        for name in path:
            cmd = cmd.commands[name]
        short = cmd.get_short_help_str(limit=1000)
        assert short.count("(") == short.count(")"), (path, short)
        assert not short.endswith(("eq.", "eqs.", "Fig.", "e.g.", "i.e.", "cf.")), (path, short)


def test_reproduce_writes_parquet_beside_every_csv(tmp_path, monkeypatch):
    monkeypatch.setenv("DCSIM_CACHE", str(tmp_path / "cache"))
    r = runner.invoke(app, ["reproduce", "dx-thresholds", "--quick", "--out", str(tmp_path / "o")])
    assert r.exit_code == 0, r.output
    out = tmp_path / "o" / "dx-thresholds"
    csvs = sorted(out.glob("*.csv"))
    assert csvs
    for csv in csvs:
        pq = csv.with_suffix(".parquet")
        assert pq.exists(), pq
        pd.testing.assert_frame_equal(pd.read_parquet(pq), pd.read_csv(csv))
    claims = pd.read_parquet(out / "claims.parquet")
    assert len(claims) == len(json.loads((out / "claims.json").read_text()))


def test_claims_parquet_holds_what_claims_json_holds(tmp_path):
    """A check row has no packet / fluid / theory: claims.parquet held the text "nan" there under
    pandas 2 (a review), where claims.json has no such key. Both must say the same."""
    from dcsim.cli import write_claims
    from dcsim.experiments.registry import REPRODUCED, ExperimentResult, check, instruments

    res = ExperimentResult("x", "t", [instruments("a", "1 pkt", REPRODUCED, packet="1.0 pkt", fluid="1.1 pkt"),
                                      check("(dcsim) b", "3 pkt", True)])
    js, pq = write_claims(res, tmp_path, quick=True)
    rows, df = json.loads(js.read_text()), pd.read_parquet(pq)
    assert len(rows) == len(df) == 2
    for i, row in enumerate(rows):
        for col in df.columns:
            got = df[col].iloc[i]
            assert (got == str(row[col])) if col in row else pd.isna(got), (i, col, got)


def test_claims_json_says_the_verdicts_the_tables_print(tmp_path):
    """claims.json stored a check's verdict as "reproduced" / "differs", the words of the paper's
    claims, where the terminal and the HTML report print "passes" / "fails" (a check reproduces
    nothing of the paper). Both files now hold the printed word."""
    from dcsim.cli import write_claims
    from dcsim.experiments.registry import DIFFERS, REPRODUCED, Claim, ExperimentResult, check
    from dcsim.report import claims_layout

    rows = [Claim("a", "1", "1", REPRODUCED), Claim("b", "1", "2", DIFFERS), check("(setup) c", "0", True),
            check("(edge) d", "9", False)]
    js, pq = write_claims(ExperimentResult("x", "t", rows), tmp_path)
    printed = [word for _, word, _ in claims_layout(rows)[1]]
    assert printed == ["reproduced", "differs", "passes", "fails"]
    assert [r["verdict"] for r in json.loads(js.read_text())] == printed
    assert list(pd.read_parquet(pq)["verdict"]) == printed


def test_tables_have_the_names_the_issue_asked_for():
    res = dcsim.simulate(dcsim.load_scenario(ROOT / "examples" / "dctcp_dumbbell.toml").replace(
        {"run.duration": "60ms", "run.warmup": "20ms"}))
    f = res.flows
    for col in ("cwnd_final_pkt", "cwnd_mean_pkt", "alpha_final", "alpha_mean", "flow_label"):
        assert col in f.columns, col
    assert "cwnd_pkt" not in f.columns and "alpha" not in f.columns  # no ambiguous names
    assert "goodput_bps" in res.throughput.columns and "rate_bps" not in res.throughput.columns
    assert res.ports["monitored"].dtype == bool
    assert "port_label" in res.ports.columns and "port_label" in res.queue.columns
    assert set(res.summary()["flows"][0]) >= {"cwnd_mean_pkt", "alpha_mean", "goodput_bps"}


_BLAS_PROBE = """
import os, sys
from dcsim._preload import blas_single_threaded as _blas_single_threaded
with _blas_single_threaded():
    inside = os.environ.get("OPENBLAS_NUM_THREADS")
    import numpy
tasks = len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else None
print(inside, os.environ.get("OPENBLAS_NUM_THREADS"), tasks)
"""


_BACKGROUND_PROBE = """
import os, sys, time
from dcsim._preload import AFTER_RUN, import_in_background
interval = sys.getswitchinterval()
t = import_in_background()
t.join()
assert all(m in sys.modules for m in AFTER_RUN), [m for m in AFTER_RUN if m not in sys.modules]
assert sys.getswitchinterval() == interval, sys.getswitchinterval()
assert import_in_background() is None  # nothing left to import

def threads():
    # this process's threads but pyarrow's allocator's (jemalloc_bg_thd)
    names = []
    for t in os.listdir("/proc/self/task"):
        try:
            names.append(open(f"/proc/self/task/{t}/comm").read().strip())
        except FileNotFoundError:  # a thread that just ended (the joined importer)
            pass
    return sum(n != "jemalloc_bg_thd" for n in names)


tasks = None
if os.path.isdir("/proc/self/task"):
    for _ in range(100):  # the joined importer's OS thread may take a moment to go
        tasks = threads()
        if tasks == 1:
            break
        time.sleep(0.01)
import numpy.linalg
print("-", os.environ.get("OPENBLAS_NUM_THREADS"), tasks)
"""


@pytest.mark.parametrize("probe", [_BLAS_PROBE, _BACKGROUND_PROBE], ids=["import", "in_background"])
@pytest.mark.parametrize("user_value", [None, "2"])
def test_run_imports_numpy_with_one_blas_thread_and_leaves_the_environment_as_it_was(user_value, probe):
    """`dcsim run` imports numpy with one OpenBLAS thread (the thread pool's start cost 0.06 s with
    the other core busy) unless the user chose a number, and children see the user's environment."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if user_value is not None:
        env["OPENBLAS_NUM_THREADS"] = user_value
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    inside, after, tasks = out.stdout.split()
    assert inside in ("-", user_value or "1")
    assert after == (user_value or "None")
    if user_value is None and tasks != "None":
        assert tasks == "1", "numpy started threads besides the main one"


_ENTRY_PROBE = """
import atexit, sys, threading, time
from pathlib import Path
out = Path(sys.argv[1])
def late():
    time.sleep(0.3)
    (out / "thread.txt").write_text("joined")
threading.Thread(target=late).start()  # not a daemon: the exit waits for it
import concurrent.futures
pool = concurrent.futures.ThreadPoolExecutor(1)  # never shut down: its idle worker waits for work
pool.submit(lambda: (out / "pool.txt").write_text("done"))  # until threading's exit callback stops it
atexit.register(lambda: sys.stdout.write("exit handler ran\\n"))  # buffered: flushed on the way out
sys.stdout.write("x" * 100000)  # more than a buffer's worth, partly unflushed
sys.argv = ["dcsim", *sys.argv[2:]]
from dcsim.cli import entry
entry()
"""


@pytest.mark.parametrize("args,status", [(["--version"], 0), (["run", "missing.toml"], 2), (["nosuchcommand"], 2)])
def test_console_script_exits_with_the_status_after_threads_exit_handlers_and_flushing(tmp_path, args, status):
    """`dcsim` (dcsim.cli:entry) skips only the interpreter's module teardown: a thread that is not
    a daemon is waited for, an executor never shut down does not hang the exit, exit handlers run,
    stdout is flushed whole, and the status is main()'s."""
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", _ENTRY_PROBE, str(tmp_path), *args], capture_output=True, text=True,
                       cwd=tmp_path, timeout=60)
    assert r.returncode == status, r.stderr
    assert r.stdout.startswith("x" * 100000)
    assert r.stdout.endswith("exit handler ran\n")
    assert (tmp_path / "thread.txt").read_text() == "joined"
    assert (tmp_path / "pool.txt").read_text() == "done"
    if status == 0:
        assert f"dcsim {dcsim.__version__}" in r.stdout


def test_the_console_script_is_entry():
    """The installed `dcsim` command runs dcsim.__main__:entry, which imports dcsim.cli:entry (the
    packaging metadata says so)."""
    from importlib.metadata import entry_points

    eps = entry_points()
    # Python >= 3.10 selects a group by keyword; 3.9 returns a dict of groups.
    scripts = eps.select(group="console_scripts") if hasattr(eps, "select") else eps.get("console_scripts", [])
    (ep,) = [e for e in scripts if e.name == "dcsim"]
    assert ep.value == "dcsim.__main__:entry"


def test_every_output_directory_option_is_spelled_alike():
    """`dcsim run -o DIR` worked, `dcsim sweep -o DIR` and `dcsim reproduce -o DIR` were refused
    ("No such option: -o"): every command that takes an output directory takes -o and --out."""
    import typer

    root = typer.main.get_command(app)
    with_out = []
    for path in _commands(root):
        cmd = root
        for name in path:
            cmd = cmd.commands[name]
        for p in cmd.params:
            if "--out" in p.opts:
                with_out.append(path)
                assert "-o" in p.opts, (path, p.opts)
    assert {("run",), ("sweep",), ("reproduce",)} <= set(with_out), with_out

def test_a_dry_run_of_a_sweep_creates_nothing(tmp_path):
    """`dcsim sweep --dry-run` validates and prints the plan; it used to create the output
    directory (and its lock file) on the way. It takes -o like every command with an output."""
    out = tmp_path / "never"
    r = runner.invoke(app, ["sweep", str(ROOT / "examples" / "sweep_k.toml"), "-o", str(out), "--dry-run"])
    assert r.exit_code == 0, r.output
    assert "20 runs" in " ".join(r.output.split()), r.output  # 5 K x 2 g x 2 seeds, none cached
    assert not out.exists(), sorted(p.name for p in out.iterdir())


def test_a_mistyped_experiment_id_gets_the_nearest_one_and_a_missing_sweep_file_one_line(tmp_path):
    code = runner.invoke(app, ["reproduce", "dx-tabel1"])
    text = " ".join(code.output.split())
    assert code.exit_code == 2 and "unknown experiment id 'dx-tabel1' (did you mean dx-table1?); known ids:" in text, text
    far = runner.invoke(app, ["reproduce", "zzz"])
    assert far.exit_code == 2 and "did you mean" not in far.output, far.output
    nope = tmp_path / "nope.toml"
    r = runner.invoke(app, ["sweep", str(nope)])
    assert r.exit_code == 2, r.output
    # The path once, not "nope.toml: nope.toml: cannot read ...".
    assert " ".join(r.output.split()) == f"error: {nope}: cannot read the sweep file (No such file or directory)", r.output


def test_scenario_warnings_reach_a_cli_user_once_as_warning_lines(capsys):
    """`dcsim reproduce dsm-fig6` printed "/.../dsm_packet.py:156: ScenarioWarning: l2: b = ..."
    (twice): a source path is not for a CLI user, and one warning is enough. Other warnings keep
    Python's form; the hook is removed when the command ends."""
    import warnings

    from dcsim.cli import _scenario_warnings_as_lines
    from dcsim.scenario import ScenarioWarning

    others: list = []
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, category, *a, **k: others.append((category, str(message)))
        before = warnings.showwarning
        previous = _scenario_warnings_as_lines()
        try:
            for _ in range(2):
                warnings.warn("l2: b is below eq. (23)", ScenarioWarning)
            warnings.warn("something else", UserWarning)
        finally:
            warnings.showwarning = previous
        assert warnings.showwarning is before
    err = capsys.readouterr().err
    assert err.count("warning: l2: b is below eq. (23)") == 1, err
    assert "ScenarioWarning" not in err, err
    assert others == [(UserWarning, "something else")]


def test_dask_version_table_reaches_a_cli_user_as_one_warning_line(capsys):
    """A sweep on a cluster whose workers lack a package or run other versions showed Dask's
    VersionMismatchWarning: a source path and a table as wide as the terminal (a probe). Now one
    "warning:" line names each package with its three versions, once."""
    import warnings

    distributed = pytest.importorskip("distributed")
    from distributed.versions import VersionMismatchWarning, error_message

    from dcsim.cli import _scenario_warnings_as_lines

    here = {"packages": {"python": "3.11.7", "numpy": "2.0.1", "pandas": "2.2.0", "msgpack": "1.0.0"}}
    workers = {
        "tcp://a:1": {"packages": {"python": "3.11.7", "numpy": "1.26.4", "pandas": None, "msgpack": "1.0.0"}},
        "tcp://b:1": {"packages": {"python": "3.11.7", "numpy": "1.26.4", "pandas": None, "msgpack": "1.0.0"}},
    }
    table = error_message(here, workers, here)["warning"]
    assert "+----" in table and distributed  # the form Dask gives it
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        previous = _scenario_warnings_as_lines()
        try:
            for _ in range(2):
                warnings.warn(table, VersionMismatchWarning)
        finally:
            warnings.showwarning = previous
    err = capsys.readouterr().err
    assert err.count("warning: dask: ") == 1 and err.lstrip().startswith("warning: dask: "), err
    err = " ".join(err.split())  # a terminal may wrap the line between words
    assert "numpy here 2.0.1, scheduler 2.0.1, workers 1.26.4" in err and "pandas here 2.2.0, scheduler 2.2.0, workers lack it" in err, err
    assert "+--" not in err and "VersionMismatchWarning" not in err and "python here" not in err and "msgpack" not in err


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_terminal_that_cannot_show_greek_letters_gets_stand_ins_not_an_error(encoding):
    """`dcsim theory dctcp` prints an em dash (and α, µ elsewhere). On a stream whose encoding
    cannot write them (PYTHONIOENCODING=ascii, a Latin-1 locale) it ended in "internal error:
    UnicodeEncodeError"; such characters now come out as one-column ASCII stand-ins ("-" for
    the dash) and the command succeeds."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONIOENCODING": encoding}
    env.pop("DCSIM_DEBUG", None)
    code = "import sys; from dcsim.cli import main; sys.exit(main())"
    r = subprocess.run([sys.executable, "-c", code, "theory", "dctcp", "--C", "10Gbps", "--d", "100us", "--N", "10"],
                       env=env, capture_output=True, timeout=120)
    out, err = r.stdout.decode(encoding), r.stderr.decode(encoding)
    assert r.returncode == 0, err
    assert "internal error" not in err and "Traceback" not in err
    assert "DCTCP theory - Alizadeh" in out  # the em dash, replaced
    assert "K guideline 0.17 C d" in out


def test_a_table_keeps_its_borders_on_a_stream_that_cannot_write_its_symbols():
    """With PYTHONIOENCODING=ascii, `dcsim theory dsm` wrote "?" for the combining circumflex of
    "Q̂" (which rich counts as no column) and its rows came out one column too wide, the right
    border wrapped onto a line of its own at 80 columns; ω, ², § were all "?" (the ω gain's row
    had no name). Every line now has the table's width, and the stand-ins are one column each."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONIOENCODING": "ascii", "COLUMNS": "80"}
    code = ("import sys, dcsim._console as c; c.wide_console = lambda stderr=False: "
            "c._Console(stderr=stderr, width=80, emoji=False, color_system=None); "
            "from dcsim.cli import main; sys.exit(main())")
    r = subprocess.run([sys.executable, "-c", code, "theory", "dsm", "--C", "10Gbps", "--delay", "100us"],
                       env=env, capture_output=True, timeout=120)
    out = r.stdout.decode("ascii")
    assert r.returncode == 0, r.stderr
    rows = [line for line in out.splitlines() if line.startswith(("|", "+"))]
    assert rows and all(len(line) == 80 for line in rows), [line for line in rows if len(line) != 80]
    assert "| w    |" in out and "?" not in out.replace("(?)", ""), out

    from dcsim._console import _ascii_stand_in

    def written(text: str) -> str:
        return text.encode("ascii", errors="dcsim-ascii").decode("ascii")

    import codecs

    codecs.register_error("dcsim-ascii", _ascii_stand_in)
    assert written("Q̂_f ω² §V — µs 宽") == "Q_f w2 SV - us ??"


_RUN_IMPORTS_PROBE = """
import sys
from dcsim.cli import main
sys.argv = ["dcsim", "run", sys.argv[1], "--no-plots", "-o", sys.argv[2]]
code = main()
heavy = [m for m in ("pyarrow", "pandas", "matplotlib") if m in sys.modules]
print(code, ",".join(heavy) or "-")
"""


def test_dcsim_run_imports_neither_pyarrow_pandas_nor_matplotlib(tmp_path):
    """`dcsim run --no-plots` writes its Parquet tables with the engine's writer: pyarrow's import
    (~50 ms holding the GIL) and pandas' (~0.3 s) are not on its path (issue 12, `dcsim run`
    latency); the files it wrote read back with pandas."""
    import subprocess
    import sys

    import pandas as pd

    sc = tmp_path / "short.toml"
    sc.write_text((ROOT / "examples" / "dctcp_dumbbell.toml").read_text(encoding="utf-8")
                  .replace('duration = "200ms"', 'duration = "20ms"').replace('warmup = "50ms"', 'warmup = "5ms"'),
                  encoding="utf-8")
    out = subprocess.run([sys.executable, "-c", _RUN_IMPORTS_PROBE, str(sc), str(tmp_path / "out")],
                         capture_output=True, text=True, check=True)
    assert out.stdout.split()[-2:] == ["0", "-"], out.stdout + out.stderr
    assert len(pd.read_parquet(tmp_path / "out" / "flows.parquet")) == 10


def test_a_slow_step_shows_a_spinner_only_once_it_is_slow():
    """`dcsim run` shows "reading and checking the scenario" while a large trace is read (~25 s
    for a million flows), and nothing for the demo's 0.1 s: the spinner appears after `after_s`
    and is gone when the step ends, also when the step fails."""
    import io
    import time

    import threading

    from rich.console import Console

    from dcsim._console import slow_step

    def console():
        return Console(file=io.StringIO(), force_terminal=True, width=60)

    def settles(before: set) -> bool:
        """No thread started since ``before`` is left within 2 s (rich's refresh thread ends at its
        next tick); threads of other tests may end meanwhile."""
        deadline = time.monotonic() + 2.0
        while set(threading.enumerate()) - before and time.monotonic() < deadline:
            time.sleep(0.01)
        return not set(threading.enumerate()) - before

    threads = set(threading.enumerate())
    fast = console()
    with slow_step(fast, "reading and checking the scenario", after_s=0.5):
        pass
    assert fast.file.getvalue() == ""
    slow = console()
    with slow_step(slow, "reading and checking the scenario", after_s=0.05):
        time.sleep(0.5)
    assert "reading and checking the scenario" in slow.file.getvalue()
    assert settles(threads)  # the spinner's refresh thread and the timer are gone
    failing = console()
    with pytest.raises(ValueError):
        with slow_step(failing, "x", after_s=0.0):
            time.sleep(0.2)
            raise ValueError("bad scenario")
    assert settles(threads)


@pytest.mark.parametrize("args, words", [
    (["--no-plots", "--wait-plots"], "--wait-plots: it waits for the plots, and --no-plots draws none"),
    (["--format", "csv", "--json"], "--json: it means --format json"),
])
def test_run_refuses_options_that_contradict_each_other_before_it_runs(tmp_path, args, words):
    """`dcsim run --no-plots --wait-plots` had exited 0 with no plots and no word (a probe)."""
    res = runner.invoke(app, ["run", str(ROOT / "examples" / "dctcp_dumbbell.toml"),
                              "--out", str(tmp_path / "o"), *args])
    assert res.exit_code == 2 and words in " ".join(res.output.split()), res.output
    assert not (tmp_path / "o").exists()


def test_csv_of_a_scenario_of_l2_sources_alone_is_its_sources_table(tmp_path, split_runner):
    """`--format csv` printed the flows table's empty header for examples/dsm_dumbbell.toml, which
    has L2 sources and no flows (a probe): it prints the sources table there."""
    import io

    res = split_runner.invoke(app, ["run", str(ROOT / "examples" / "dsm_dumbbell.toml"), "--out", str(tmp_path / "o"),
                              "--no-plots", "--format", "csv", "--set", "run.duration=20ms", "--set", "run.warmup=5ms"])
    assert res.exit_code == 0, res.output
    table = pd.read_csv(io.StringIO(res.stdout))
    assert len(table) == 5 and {"source", "goodput_bps", "sent_frames"} <= set(table.columns), res.stdout[:300]


def test_the_summary_tables_cut_no_number_in_a_narrow_terminal(tmp_path):
    """In an 80-column terminal rich narrowed every column of the summary alike and cut what no
    longer fit: the ports row read "100.…" for 100.00 % and "390…" for 39 097 marks (a README
    walkthrough). Every number of the summary must be printed whole at 80 and at 40 columns."""
    import io
    import re

    from rich.console import Console

    from dcsim.run import print_summary

    sc = dcsim.Scenario.from_toml(ROOT / "examples" / "dctcp_dumbbell.toml").replace(
        {"run.duration": "20ms", "run.warmup": "5ms"})
    summary = dcsim.simulate(sc).summary()
    port, flow = summary["ports"][0], summary["flows"][0]
    whole = [f"{100 * port['utilization']:.2f}", str(port["marks"]), f"{flow['goodput_bps'] / 1e9:.3f}", str(flow["marks"])]
    for width in (250, 80, 40):
        con = Console(file=io.StringIO(), force_terminal=True, color_system=None, width=width)
        print_summary(summary, con)
        text = con.file.getvalue()
        assert "…" not in text, (width, text)
        assert max(len(line) for line in text.splitlines()) <= width, (width, text)
        words = set(re.findall(r"[\d.]+", text))
        assert all(w in words for w in whole), (width, whole, text)


def test_a_table_too_wide_for_its_console_is_printed_in_parts_with_its_first_column():
    """`print_table`: a table whose columns cannot stand side by side is split into tables of the
    same rows, each led by the first column; one that fits is printed as rich prints it."""
    import io

    from rich.console import Console
    from rich.table import Table

    from dcsim._console import print_table

    def table():
        t = Table(title="wide", caption="the end")
        for i in range(8):
            t.add_column(f"column {i} pkt", justify="right")
        t.add_row(*(f"{123456 + i}" for i in range(8)))
        return t

    def printed(width):
        con = Console(file=io.StringIO(), color_system=None, width=width)
        print_table(con, table())
        return con.file.getvalue()

    wide, narrow = printed(200), printed(40)
    assert wide.count("┏") == 1 and "continued" not in wide
    ref = Console(file=io.StringIO(), color_system=None, width=200)
    ref.print(table())
    assert wide == ref.file.getvalue()
    # at 40 columns each column needs 6 (its widest word) + 2 (padding) + 1 (a line), and a table
    # one line more: the first column and k more take 9 k + 10 <= 40, so k = 3: parts of 3, 3 and 1
    assert narrow.count("┏") == 3 and narrow.count("(continued)") == 2, narrow
    assert narrow.count("123456") == 3 and all(f"{123456 + i}" in narrow for i in range(8)), narrow
    assert narrow.count("the end") == 1 and narrow.rstrip().endswith("the end"), narrow
    assert "…" not in narrow and max(len(line) for line in narrow.splitlines()) <= 40


def test_a_tables_room_is_shared_so_that_short_columns_stand_on_one_line():
    """Max-min fair widths: a column whose natural width is under the common level gets all of it,
    the long ones share the rest (a 400-character detail had taken all the room, folding the value
    beside it to one word a line)."""
    from dcsim._console import _fitted

    # least 5 each; natural 30, 400, 10: room 100 -> the 10 and the 30 whole, the detail the rest
    assert _fitted([5, 5, 5], [30, 400, 10], 100) == [30, 60, 10]
    # not room for every short one: a common level, the spare character to the first column short of it
    assert _fitted([5, 5, 5], [30, 400, 40], 70) == [24, 23, 23]
    assert _fitted([5, 5], [30, 400], 8) == [5, 5]  # below the least widths: the least (the caller splits)
    assert _fitted([5, 5], [6, 7], 100) == [6, 7]  # never past the natural widths
    assert _fitted([], [], 10) == []
    assert _fitted([10, 1, 1], [20, 20, 20], 15) == [10, 3, 2]  # the spare to a column at the level, not above it
    for least, natural, room in [([3, 8, 1], [50, 9, 200], 90), ([2] * 6, [5, 80, 3, 40, 7, 200], 120)]:
        w = _fitted(least, natural, room)
        assert sum(w) == min(room, sum(natural)) and all(lw <= x <= n for lw, x, n in zip(least, w, natural))


@pytest.mark.parametrize("width, total, where",
                         [(80, 320, ""), (120, 32_000, " on 2 Dask workers"), (60, 320, ""), (40, 320, "")])
def test_the_sweep_bar_ends_short_of_the_line_and_cuts_no_field(width, total, where):
    """The sweep's bar had filled the line to its last column (a terminal's "^C" echo then
    wrapped the cursor, and the bar's cleanup left a stale bar above the message) and, short of
    room, rich squeezed every column ("0 ca… 0 fa… ET…" at 40 columns). Drawn at the widest its
    fields get as a sweep goes (its ETA and mean per run known), every line now ends before the
    line's last column and no field is cut; at 60 columns the mean per run and the time elapsed
    are left out, and at 40, where no bar fits beside the counts, one line of text remains."""
    import io
    import re

    from rich.console import Console

    from dcsim.sweep import _View
    from dcsim.sweep.execute import Stats

    stats = Stats(total=total, to_compute=total)
    con = Console(file=io.StringIO(), force_terminal=True, color_system=None, width=width)
    with _View(stats, True, con, where=where) as view:
        stats.done = stats.computed = total // 2
        stats.run_wall_s = total // 2 * 0.6338
        stats.started -= total * 0.6338 * 4  # a long ETA: "x.xxx h" or "xx.xx min"
        view.tick(force=True)
    lines = [re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", x) for x in re.split(r"[\r\n]", con.file.getvalue())]
    shown = [x for x in lines if x.startswith("sweep")]
    assert shown and all(len(x.rstrip()) < width for x in shown), (width, shown)
    assert "…" not in "".join(shown), shown
    if width >= 60:
        assert f"{total // 2}/{total} runs (0 cached)" in shown[-1], shown
    else:
        assert shown[-1].startswith(f"sweep {total // 2}/{total}, 0 failed, ETA "), shown
    assert (f"ms/run{where}" in shown[-1]) == (width > 60), shown
    # a person's wait in min or h (fmt_wall): 160 runs in 811 s, 160 to go; 16 000 in 81 130 s
    assert {320: "ETA 13.52 min", 32_000: "ETA 22.54 h"}[total] in shown[-1], shown


def _progress_lines(columns, width: int, first: str, total: float, completed: float, **fields) -> list:
    """The lines a rich Progress of ``columns(console)`` draws on a ``width``-column terminal for one
    task at ``completed`` of ``total`` (its ``fields`` given), without colour codes: those that
    start with ``first``."""
    import io
    import re

    from rich.console import Console
    from rich.progress import Progress

    con = Console(file=io.StringIO(), force_terminal=True, color_system=None, width=width)
    with Progress(*columns(con), console=con, transient=False, auto_refresh=False) as bar:
        task = bar.add_task("task", total=total, **fields)
        bar.update(task, completed=completed)
        bar.refresh()
    lines = [re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", x) for x in re.split(r"[\r\n]", con.file.getvalue())]
    return [x for x in lines if x.startswith(first)]


@pytest.mark.parametrize("width", [40, 80, 120])
def test_the_run_bar_ends_short_of_the_line_and_cuts_no_field(width):
    """The run's bar at 40 columns had its times cut to "0:…" and "ETA -:…" by rich (a probe);
    every field is now whole and the line ends before the terminal's last column: below ~55
    columns without the bar and the time elapsed."""
    import re

    from dcsim.run import _run_bar_columns

    shown = _progress_lines(_run_bar_columns, width, "simulating", 1.0, 0.2237, now="6.713 s", total_s="30 s")
    assert shown and all(len(x.rstrip()) < width for x in shown), (width, shown)
    assert "…" not in "".join(shown) and "6.713 s / 30 s" in shown[-1], shown
    assert re.search(r"ETA (\d+:\d\d:\d\d|-:--:--)$", shown[-1].rstrip()), shown  # "-:--:--" until rich has a rate
    assert (re.search(r"30 s \d+:\d\d:\d\d ETA", shown[-1]) is not None) == (width > 55), shown


@pytest.mark.parametrize("width", [40, 80, 120])
def test_the_validation_bar_ends_short_of_the_line_and_cuts_no_field(width):
    """A sweep of over 2 000 combinations shows its validation; rich's 40-character bar had filled
    an 80-column line to its last column. Every field is now whole and the line ends before the
    terminal's last column: at 40 columns without the bar."""
    from dcsim.sweep import _validation_columns

    shown = _progress_lines(lambda con: _validation_columns(con, 30_000), width, "validating", 30_000, 28_160)
    assert shown and all(len(x.rstrip()) < width for x in shown), (width, shown)
    assert "…" not in "".join(shown) and "28160/30000" in shown[-1], shown
    assert ("combinations" in shown[-1]) == (width >= 80), shown


def test_a_dumb_terminal_gets_no_bar_and_no_empty_line():
    """TERM=dumb: a terminal that cannot redraw a line. rich printed the sweep bar's last state
    and an empty line after it, and a transient bar or spinner left the empty line alone (a
    probe); there the progress displays are now off, and the summary that follows says it all."""
    import io
    import time

    from rich.console import Console

    from dcsim._console import slow_step
    from dcsim.sweep import _View
    from dcsim.sweep.execute import Stats

    def console():
        return Console(file=io.StringIO(), force_terminal=True, color_system=None, width=80,
                       _environ={"TERM": "dumb"})

    con = console()
    assert con.is_dumb_terminal
    stats = Stats(total=20, to_compute=20)
    with _View(stats, True, con) as view:
        stats.done = stats.computed = 20
        view.tick(force=True)
    assert con.file.getvalue() == ""
    con = console()
    with slow_step(con, "reading the trace", after_s=0.0):
        time.sleep(0.3)
    assert con.file.getvalue() == ""
    # a terminal that can redraw keeps its bar
    con = Console(file=io.StringIO(), force_terminal=True, color_system=None, width=80, _environ={"TERM": "xterm"})
    with _View(stats, True, con) as view:
        view.tick(force=True)
    assert "20/20 runs" in con.file.getvalue()


def test_a_message_wraps_between_words_on_a_terminal_and_stays_one_line_elsewhere():
    """Errors, warnings and "files in ..." were printed for the terminal to wrap at its last
    column: "at least 11." / "1786 us", "flows.pa" / "rquet" at 80 columns (a probe). On a
    terminal a message now wraps between words; to a pipe or a file it stays one line."""
    import io

    from rich.console import Console

    from dcsim._console import say

    text = ("metrics.cwnd_interval: sampling every 10 us records up to 500001 rows each (1000.0 MB in all); "
            "lengthen metrics.cwnd_interval to at least 11.1786 us, or raise metrics.max_memory")
    term = Console(file=io.StringIO(), force_terminal=True, color_system=None, width=40)
    say(term, text)
    lines = term.file.getvalue().splitlines()
    assert len(lines) > 1 and all(len(x) <= 40 for x in lines), lines
    assert [w for x in lines for w in x.split()] == text.split(), lines  # no word broken
    pipe = Console(file=io.StringIO(), force_terminal=False, width=40)
    say(pipe, text)
    assert pipe.file.getvalue() == text + "\n"


def test_a_sweep_inside_a_status_line_shows_its_progress_there(tmp_path, capsys):
    """Inside `dcsim reproduce`, an experiment's sweep drew its bar on a console of its own while
    the experiment's spinner held the same lines: the two overwrote each other on every refresh
    and left unlabelled "sweep ━━━ 6/6 runs" lines behind (a probe). Now the sweep's progress
    goes into the command's status line ("reproducing x (sweep 1/2 runs, ETA ...): title") and
    it draws nothing of its own."""
    import io

    from rich.console import Console
    from rich.progress import Progress

    from dcsim._console import status_line
    from dcsim.sweep import sweep

    base = {"network": {"senders": 2, "bottleneck": "1Gbps", "rtt": "100us", "buffer": "100pkt",
                        "aqm": {"kind": "threshold", "K": "20pkt"}},
            "flows": [{"count": 2, "protocol": "dctcp"}], "run": {"duration": "2ms"}}
    said = []
    con = Console(file=io.StringIO(), force_terminal=True, color_system=None, width=100)
    with Progress(console=con, transient=True) as bar:
        task = bar.add_task("", total=None)
        update = bar.update
        bar.update = lambda t, **kw: (said.append(kw.get("description")), update(t, **kw))[1]
        with status_line(bar, task, "reproducing x{note}: title"):
            sweep(base, {"network.aqm.K": ["10pkt", "20pkt"]}, out=tmp_path / "s", tables=False, jobs=1,
                  progress=True)
    notes = [d for d in said if d and "(sweep" in d]
    assert notes and notes[0] == "reproducing x (sweep 0/2 runs): title", said
    assert all(d.endswith(": title") for d in notes), said
    assert said[-1] == "reproducing x: title", said  # the note is gone once the sweep is done
    assert "━" not in capsys.readouterr().err
    # (ticks are at most every 0.1 s, so a fast sweep may show no more: the count and ETA as a
    # tick writes them, forced)
    import re

    from dcsim.sweep import _View
    from dcsim.sweep.execute import Stats

    stats = Stats(total=2, to_compute=2)
    with Progress(console=con, transient=True) as bar:
        task = bar.add_task("", total=None)
        with status_line(bar, task, "reproducing x{note}: title"), _View(stats, True) as view:
            stats.done = stats.computed = 1
            stats.run_wall_s = 0.5
            view.tick(force=True)
            shown = bar.tasks[0].description
    assert re.fullmatch(r"reproducing x \(sweep 1/2 runs, ETA [\d.]+ (us|ms|s)\): title", shown), shown


def test_reproduce_without_ids_refuses_the_options_of_a_run(tmp_path):
    """`dcsim reproduce $IDS --html rep` with an empty $IDS printed the list and exited 0, writing no
    report and saying nothing of its options (a review); bare `dcsim reproduce` still lists."""
    res = runner.invoke(app, ["reproduce", "--quick", "-j", "0", "--html", str(tmp_path / "rep")])
    assert res.exit_code == 2, res.output
    assert "no experiment to run: --quick, --jobs, --html apply to a run; give experiment ids or --all" in " ".join(
        res.output.split())
    assert not (tmp_path / "rep").exists()
    listed = runner.invoke(app, ["reproduce"], env={"COLUMNS": "300"})
    assert listed.exit_code == 0 and "dctcp-fig2" in listed.output


def test_a_pipe_is_wide_whatever_columns_says():
    """Piped output is 250 columns wide (a log reads a table whole), whatever COLUMNS says: GNU
    readline, which pytest and Python's prompt import, writes COLUMNS = 80 into its process's
    environment, and every child inherits it, so honouring it in a pipe wrapped output nobody asked
    to wrap (a review of a change that had honoured it: a test's stderr then wrapped at 76)."""
    import os
    import subprocess
    import sys

    def lines(columns):
        env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
        if columns is not None:
            env["COLUMNS"] = columns
        r = subprocess.run([sys.executable, "-c", "from dcsim.cli import entry; entry()", "reproduce", "--list"],
                           env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        return r.stdout.splitlines()

    wide = max(len(line) for line in lines(None))
    assert wide > 80  # its rows are ~240 wide
    assert max(len(line) for line in lines("70")) == wide
