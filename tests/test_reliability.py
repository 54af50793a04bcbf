"""Issue 6: runs that end, statistics that mean what they say, and input that fails cleanly.

Every expected number here comes from first principles (a link with a non-empty queue is busy;
post-warm-up counts are whole-run counts minus those before warm-up) or by hand, not from an
earlier run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Optional

import numpy as np
import pytest
from typer.testing import CliRunner

import dcsim
from dcsim import Scenario, ScenarioError
from dcsim.cli import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]


def dumbbell(**over) -> dict:
    d = {
        "network": {"senders": 10, "bottleneck": "1Gbps", "access": "10Gbps", "rtt": "100us",
                    "buffer": "1000pkt", "aqm": {"kind": "threshold", "K": "65pkt"}},
        "flows": [{"count": 10, "protocol": "dctcp"}],
        "run": {"duration": "10ms", "warmup": "9.994ms", "seed": 1},
    }
    for path, v in over.items():
        node = d
        keys = path.split(".")
        for k in keys[:-1]:
            node = node[k]
        node[keys[-1]] = v
    return d


# --- §3 warm-up and statistics -------------------------------------------------------------------


def test_link_busy_through_a_short_window_reads_exactly_one():
    """1 Gbps bottleneck, 10 ms run, 9.994 ms warm-up (issue 6's case; it read 0). Ten DCTCP flows
    keep a standing queue around K = 65 at a 1 Gbps link, so the link is busy for the whole 6 us
    window: utilization is 1 by definition (busy time / time), up to float rounding."""
    res = dcsim.simulate(dumbbell())
    port = res.monitored_ports().iloc[0]
    assert port["q_min_pkt"] >= 1, "precondition: the queue never empties in the window"
    assert port["utilization"] == pytest.approx(1.0, abs=1e-12)
    assert port["idle_s"] == 0.0
    assert port["busy_s"] == pytest.approx(6e-6, abs=1e-15)
    # The level the queue already had at warm-up counts: min and max are real lengths.
    assert 1 <= port["q_min_pkt"] <= port["q_mean_pkt"] <= port["q_max_pkt"] <= 1000


def test_utilization_is_in_unit_interval_for_every_port():
    res = dcsim.simulate(dumbbell(**{"run.warmup": "3.3333ms"}))
    u = res.ports["utilization"].to_numpy()
    assert np.all((u >= 0) & (u <= 1)), u
    # busy + idle = the post-warm-up span on every port.
    span = 10e-3 - 3.3333e-3
    np.testing.assert_allclose(res.ports["busy_s"] + res.ports["idle_s"], span, rtol=1e-12)


def test_counts_after_warmup_exclude_slow_start_losses():
    """Ten DCTCP flows start together with 10-packet windows into a 30-packet buffer (K = 10): the
    slow-start burst overflows the buffer in the first milliseconds. At 1 Gbps with K = 10 the
    steady state needs N·2 = 20 < 30 packets (window floor 2), so nothing is dropped after a
    20 ms warm-up. Post-warm-up counts must be 0 and whole-run counts positive."""
    d = dumbbell(**{"network.buffer": "30pkt", "network.aqm": {"kind": "threshold", "K": "10pkt"},
                    "run.duration": "60ms", "run.warmup": "20ms"})
    res = dcsim.simulate(d)
    p = res.monitored_ports().iloc[0]
    assert p["drops_whole_run"] > 0, "precondition: slow start overflowed the buffer"
    assert p["drops"] == 0
    f = res.flows
    assert f["retransmits_whole_run"].sum() > 0
    assert f["retransmits"].sum() == 0
    assert (f["timeouts"] <= f["timeouts_whole_run"]).all()
    assert (f["marks"] <= f["marks_whole_run"]).all()
    s = res.summary()
    assert s["after_warmup"]["drops"] == 0 and s["whole_run"]["drops"] == p["drops_whole_run"]
    # With no warm-up, post-warm-up and whole-run counts are the same numbers.
    res0 = dcsim.simulate(dict(d, run={"duration": "60ms", "warmup": "0s", "seed": 1}))
    p0 = res0.monitored_ports().iloc[0]
    assert p0["drops"] == p0["drops_whole_run"] == p["drops_whole_run"]


def test_queue_distribution_is_time_weighted_and_consistent():
    res = dcsim.simulate(dumbbell(**{"run.duration": "40ms", "run.warmup": "10ms"}))
    p = res.monitored_ports().iloc[0]
    h = res.queue_hist[res.queue_hist["port"] == p["port"]]
    assert h["frac"].sum() == pytest.approx(1.0, abs=1e-12)
    assert h["time_s"].sum() == pytest.approx(30e-3, abs=1e-12)
    # The time-weighted mean of the distribution is the exact mean.
    assert (h["q_pkt"] * h["frac"]).sum() == pytest.approx(p["q_mean_pkt"], rel=1e-9)
    assert h["q_pkt"].min() == p["q_min_pkt"] and h["q_pkt"].max() == p["q_max_pkt"]
    cdf = h.sort_values("q_pkt")["frac"].cumsum().to_numpy()
    q50 = h.sort_values("q_pkt")["q_pkt"].to_numpy()[np.searchsorted(cdf, 0.5 - 1e-12)]
    assert p["q_p50_pkt"] == q50


# --- §1 stopping ----------------------------------------------------------------------------------

LONG = textwrap.dedent("""
    [network]
    senders = 10
    bottleneck = "10Gbps"
    rtt = "100us"
    buffer = "1000pkt"
    aqm = { kind = "threshold", K = "65pkt" }

    [[flows]]
    count = 10
    protocol = "dctcp"

    [run]
    duration = "60s"

    [metrics]
    queue_interval = "100us"  # 600 000 rows: the default 10 us would exceed the 1 GB memory bound
""")


def _sigint_after(cmd: list[str], wait_for: Optional[str], cwd: Path, sig: int = signal.SIGINT,
                  settle_s: float = 0.5) -> tuple[int, str, float]:
    """Start cmd, wait until `wait_for` appears on stderr (None: a command that prints nothing
    before it is done), then `settle_s` more, send `sig` (Ctrl-C's SIGINT unless given); (exit
    code, stderr, seconds to exit)."""
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    buf = ""
    deadline = time.monotonic() + 60
    while wait_for is not None and wait_for not in buf and time.monotonic() < deadline:
        line = p.stderr.readline()
        if not line:
            break
        buf += line
    time.sleep(settle_s)  # well inside the run (60 simulated s take ~10 s)
    t0 = time.monotonic()
    p.send_signal(sig)
    try:
        _, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        pytest.fail("the process did not stop on Ctrl-C")
    return p.returncode, buf + err, time.monotonic() - t0


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: signal.Signals(s).name)
def test_ctrl_c_stops_the_cli_and_leaves_no_half_written_directory(tmp_path, sig):
    """Ctrl-C, and SIGTERM (a batch scheduler, `timeout`) or SIGHUP (a closed terminal) alike: a
    probe found SIGTERM in the write phase killed the process where it stood, its finished tables
    left in a hidden .out.partial-<pid> directory that nothing removed."""
    sc = tmp_path / "long.toml"
    sc.write_text(LONG)
    out = tmp_path / "out"
    out.mkdir()
    (out / "engine_spec.json").write_text("{}")  # a previous run's directory: it would be replaced
    (out / "queue.png").write_text("previous run")  # only files a run writes (else: refused, exit 2)
    rc, err, dt = _sigint_after([sys.executable, "-c", "import sys; from dcsim.cli import main; sys.exit(main())",
                                 "run", str(sc), "--out", str(out), "--json"], "long.toml", tmp_path, sig)
    assert rc == 128 + sig, err
    assert "interrupted" in err and "Traceback" not in err
    assert ("Ctrl-C" if sig == signal.SIGINT else signal.Signals(sig).name) in err
    # Issue 6 asks for < 1 s; 3 s here only guards against a hang on a loaded CI machine.
    assert dt < 3.0, f"took {dt:.2f} s to stop"
    assert sorted(p.name for p in out.iterdir()) == ["engine_spec.json", "queue.png"], "the previous output was touched"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.")], "a partial directory was left"


# A signal while `dcsim.cli` imports (its first ~0.2 s): the import of typer is made to receive it,
# so that the test does not depend on when a real Ctrl-C would land.
_SIGNAL_AT_IMPORT = """
import builtins, os, signal, sys
sig = int(sys.argv[1])
real_import = builtins.__import__
def imp(name, *a, **k):
    if name == "typer":
        builtins.__import__ = real_import
        os.kill(os.getpid(), sig)
    return real_import(name, *a, **k)
builtins.__import__ = imp
sys.argv = ["dcsim", "--version"]
from dcsim.__main__ import entry
entry()
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: signal.Signals(s).name)
def test_a_signal_while_the_cli_starts_is_one_line_not_a_traceback(tmp_path, sig):
    """A robustness probe's Ctrl-C in the first ~0.2 s of `dcsim` printed Python's
    KeyboardInterrupt traceback: the console script (dcsim.__main__:entry) now imports the command
    line under the same rule as the command itself (one line, status 128 + signal)."""
    r = subprocess.run([sys.executable, "-c", _SIGNAL_AT_IMPORT, str(int(sig))], capture_output=True, text=True,
                       cwd=tmp_path, timeout=60)
    assert r.returncode == 128 + sig, r.stderr
    assert "Traceback" not in r.stderr and "dcsim " not in r.stdout, (r.stdout, r.stderr)
    how = "Ctrl-C" if sig == signal.SIGINT else signal.Signals(sig).name
    assert r.stderr == f"interrupted ({how}) while starting: stopped before reading or writing anything\n"


def test_python_m_dcsim_is_the_command(tmp_path):
    r = subprocess.run([sys.executable, "-m", "dcsim", "--version"], capture_output=True, text=True, cwd=tmp_path,
                       timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == f"dcsim {dcsim.__version__}", r


def test_an_invalid_mplbackend_changes_nothing_dcsim_draws(tmp_path):
    """dcsim draws its figures into files with Agg, whatever the user's MPLBACKEND (set for their
    own sessions); an invalid one made `import matplotlib` fail: `dcsim reproduce` ended in
    "internal error", the run's plotter in "plot failed" (a robustness probe)."""
    env = {**os.environ, "MPLBACKEND": "nonsense"}
    sc = tmp_path / "s.toml"
    sc.write_text(Scenario.model_validate(dumbbell(**{"run.duration": "2ms", "run.warmup": "0s"})).to_toml())
    r = subprocess.run([sys.executable, "-m", "dcsim", "run", str(sc), "-o", str(tmp_path / "run"), "--wait-plots"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "run" / "queue.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    r = subprocess.run([sys.executable, "-m", "dcsim", "reproduce", "dx-thresholds", "--quick", "-o", str(tmp_path / "rep")],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert "internal error" not in r.stderr


def test_two_runs_into_one_directory_the_second_is_refused(tmp_path):
    """A robustness probe started two `dcsim run -o same` at once: both reported success, the last
    one's files winning. The second is now refused before it runs (exit 2, naming --out and the
    process that writes there); the first's output is whole."""
    sc = tmp_path / "long.toml"
    sc.write_text(LONG)
    out = tmp_path / "out"
    first = subprocess.Popen([sys.executable, "-m", "dcsim", "run", str(sc), "--out", str(out), "--json"],
                             cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        buf = ""
        deadline = time.monotonic() + 60
        while "long.toml" not in buf and time.monotonic() < deadline:  # it says so once it holds the lock
            buf += first.stderr.readline()
        second = subprocess.run([sys.executable, "-m", "dcsim", "run", str(sc), "--out", str(out)], cwd=tmp_path,
                                capture_output=True, text=True, timeout=120)
        assert first.poll() is None, "precondition: the first run still runs"
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=60)
    assert second.returncode == 2, second.stderr
    assert f"--out: {out} is being written by another dcsim process (pid {first.pid})" in " ".join(second.stderr.split())
    assert "Traceback" not in second.stderr and not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["long.toml"], "a lock or partial directory was left"


def test_the_python_api_is_refused_while_a_run_writes_the_directory(tmp_path):
    from dcsim.run import out_dir_lock

    res = dcsim.simulate(dumbbell(**{"run.duration": "1ms", "run.warmup": "0s"}))
    out = tmp_path / "out"
    with out_dir_lock(out):
        with pytest.raises(ValueError, match=rf"^out: .*out is being written by another dcsim process \(pid {os.getpid()}\)"):
            res.to_dir(out)
        assert not out.exists()
        sc = tmp_path / "s.toml"
        sc.write_text(Scenario.model_validate(dumbbell(**{"run.duration": "1ms", "run.warmup": "0s"})).to_toml())
        r = runner.invoke(app, ["run", str(sc), "--out", str(out), "--no-plots"])
        assert r.exit_code == 2 and "is being written by another dcsim process" in " ".join(r.output.split())
        assert not out.exists()
        sc.unlink()
    assert [p.name for p in res.to_dir(out)][0] == "queue.parquet"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


_HOLD_LOCK = """
import sys, time
from pathlib import Path
from dcsim._files import exclusive_lock
with exclusive_lock(Path(sys.argv[1]), remove=True):
    print("held", flush=True)
    time.sleep(600)
"""


def test_a_killed_writer_leaves_no_lock_behind(tmp_path):
    """The lock is the system's (flock): a process killed (SIGKILL: no clean-up) holds it no
    longer, and the file it left is taken over."""
    from dcsim._files import LockBusy, exclusive_lock

    path = tmp_path / ".out.lock"
    p = subprocess.Popen([sys.executable, "-c", _HOLD_LOCK, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline() == "held\n"
        with pytest.raises(LockBusy) as e:
            with exclusive_lock(path):
                pass
        assert e.value.holder == f"pid {p.pid}"
    finally:
        p.kill()
        p.wait(timeout=60)
    assert path.exists()
    with exclusive_lock(path, remove=True):
        assert path.read_text() == f"pid {os.getpid()}"
    assert not path.exists()


def test_ctrl_c_stops_the_python_api(tmp_path):
    sc = tmp_path / "long.toml"
    sc.write_text(LONG)
    code = ("import sys, dcsim\nprint('started', file=sys.stderr, flush=True)\n"
            "try:\n    dcsim.simulate(sys.argv[1])\nexcept KeyboardInterrupt:\n    print('KI', file=sys.stderr); sys.exit(3)\n")
    rc, err, dt = _sigint_after([sys.executable, "-c", code, str(sc)], "started", tmp_path)
    assert rc == 3 and "KI" in err, err
    assert dt < 3.0, f"took {dt:.2f} s to stop"


# --- §4 input that fails cleanly ------------------------------------------------------------------


def _cli(*args) -> tuple[int, str]:
    r = runner.invoke(app, list(args))
    return r.exit_code, r.output


@pytest.mark.parametrize("content,words", [
    (b"\x89PNG\r\n\x1a\n\x00\x00binary", "not a text file"),
    (b"[network]\nsenders = 10\xff\n", "byte 0xff at offset 22 is not UTF-8"),
    (b"[network\n", "not valid TOML"),
])
def test_bad_files_exit_2_with_a_plain_message(tmp_path, content, words):
    p = tmp_path / "x.toml"
    p.write_bytes(content)
    code, out = _cli("run", str(p), "--out", str(tmp_path / "o"))
    assert code == 2, out
    assert words in " ".join(out.split()) and "Traceback" not in out
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("content,words", [
    (b"\x89PNG\r\n\x1a\n\x00\x00binary", "not a text file"),
    (b"[network]\nsenders = 10\xff\n", "byte 0xff at offset 22 is not UTF-8"),
])
def test_a_sweep_file_or_its_base_that_is_not_text_exits_2_naming_it(tmp_path, content, words):
    """Not an 'internal error' (a UnicodeDecodeError reached the CLI's last resort before)."""
    (tmp_path / "bad.toml").write_bytes(content)
    (tmp_path / "sweep.toml").write_text('base = "bad.toml"\n[axes]\n"run.seed" = [1, 2]\n')
    (tmp_path / "badsweep.toml").write_bytes(b'base = "x.toml"\n# caf\xe9\n' + content)
    for sweep_file, named in (("sweep.toml", "base: "), ("badsweep.toml", "badsweep.toml: ")):
        code, out = _cli("sweep", str(tmp_path / sweep_file), "--out", str(tmp_path / "o"), "--dry-run")
        flat = " ".join(out.split())
        assert code == 2 and named in flat and "not a text file" in flat and "internal error" not in flat, out


def test_files_saved_with_a_byte_order_mark_read_as_without(tmp_path):
    """Windows editors start a UTF-8 file with a byte-order mark, which TOML parsers refuse."""
    from dcsim.scenario import load_scenario

    text = _toml(dumbbell())
    (tmp_path / "plain.toml").write_text(text)
    (tmp_path / "bom.toml").write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert load_scenario(tmp_path / "bom.toml") == load_scenario(tmp_path / "plain.toml")
    (tmp_path / "sweep.toml").write_bytes(b'\xef\xbb\xbfbase = "bom.toml"\n[axes]\n"run.seed" = [1, 2]\n')
    code, out = _cli("sweep", str(tmp_path / "sweep.toml"), "--out", str(tmp_path / "o"), "--dry-run")
    assert code == 0 and "2 runs" in " ".join(out.split()), out


def test_error_text_is_shown_verbatim_not_as_markup(tmp_path):
    d = dumbbell()
    d["network"] = {"topology": "graph", "nodes": [{"name": "a"}, {"name": "b"}]}
    p = tmp_path / "x.toml"
    p.write_text(_toml(d))
    code, out = _cli("run", str(p))
    assert code == 2
    assert "[[network.links]]" in " ".join(out.split()), out


def _toml(d: dict) -> str:
    from dcsim.scenario import _toml_dumps

    return _toml_dumps(d)


def test_units_follow_b_for_bit_and_B_for_byte():
    from dcsim.units import parse_rate, parse_size

    assert parse_rate("10Gbps") == 10e9
    assert parse_rate("1.25GBps") == 10e9  # gigabytes per second = 10 Gbit/s
    assert parse_size("1Mb").bytes() == 125_000  # a megabit
    assert parse_size("1MB").bytes() == 1_000_000
    assert parse_size("1MiB").bytes() == 2**20


def test_validation_never_expands_a_huge_scenario(monkeypatch):
    """count = 10^7 and senders = 2^32 are refused before any flow or node list is built."""
    import dcsim.scenario as sc_mod

    calls = []
    monkeypatch.setattr(sc_mod.Scenario, "expanded_flows", lambda self: calls.append(1) or [])
    for over in ({"flows": [{"count": 10_000_000, "protocol": "dctcp"}]}, {"network.senders": 2**32}):
        d = dumbbell()
        if "flows" in over:
            d["flows"] = over["flows"]
        else:
            d["network"]["senders"] = over["network.senders"]
        t0 = time.perf_counter()
        with pytest.raises(ScenarioError, match="out of range"):
            Scenario.from_dict(d)
        assert time.perf_counter() - t0 < 5  # a hang guard, not a speed goal
    assert not calls


@pytest.mark.parametrize("args", [["theory", "dctcp", "--N", "abc"], ["run"], ["nosuch"], ["theory", "dx", "--N", "1e-300"],
                                  ["run", "/nonexistent/x.toml"]])
def test_usage_errors_exit_2_without_traceback(args):
    """Through the real entry point (not CliRunner): click/typer usage errors and our own."""
    r = subprocess.run([sys.executable, "-c", "import sys; from dcsim.cli import main; sys.exit(main())", *args],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr + r.stdout


# --- §1 no-op sampling ---------------------------------------------------------------------------


@pytest.mark.parametrize("series", ["queue_interval", "throughput_interval", "cwnd_interval"])
def test_a_series_with_nothing_to_record_fires_no_event(series):
    """trace_flows = 0 and no monitored port: no sampling event fires, whatever the interval (at
    1 ps over 1 us each would add 10^6 events). Bound from the link rate: one sender on a 10 Gbps
    access link serialises at most 1 us / 1.2 us + 1 = 1 data packet in 1 us; each data packet
    costs at most 6 events (2 hops, its ACK's 2 hops, a NIC wake-up, a timer), plus the flow's
    start, the warm-up and a few to spare."""
    d = dumbbell(**{"network.senders": 1, "flows": [{"count": 1, "protocol": "dctcp"}],
                    "run": {"duration": "1us", "warmup": "0s", "seed": 1}})
    d["metrics"] = {"trace_flows": 0, "monitor": [], series: "1ps"}
    res = dcsim.simulate(d)
    events = int(res.counters["events"].iloc[0])
    max_data_pkts = int(1e-6 / (1500 * 8 / 10e9)) + 1
    assert events <= 6 * max_data_pkts + 2 + 8, events


@pytest.mark.parametrize("value,ok", [("1e30B", False), ("999999B", False), ("1MB", True), ("1TB", True),
                                      ("1.000001TB", False), ("0B", False)])
def test_max_memory_has_a_documented_range(value, ok):
    """metrics.max_memory: 1MB .. 1TB (README's maxima). 1e30B once reached the engine and failed
    as "invalid type: floating point 1e+30, expected u64", naming no field."""
    d = dumbbell(**{"run": {"duration": "1ms", "seed": 1}})
    d["metrics"] = {"max_memory": value}
    if ok:
        Scenario.from_dict(d).check_resources()
        return
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(d).check_resources()
    msg = str(e.value)
    assert msg.startswith("metrics.max_memory:"), msg
    if value != "0B":
        assert "allowed 1MB .. 1TB" in msg, msg


def test_max_memory_out_of_range_exits_2_in_the_cli(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text('[network]\nsenders = 1\nbottleneck = "1Gbps"\naccess = "10Gbps"\nrtt = "100us"\nbuffer = "100pkt"\n'
                 '[[flows]]\nprotocol = "dctcp"\n[run]\nduration = "1ms"\n[metrics]\nmax_memory = "1e30B"\n')
    res = runner.invoke(app, ["run", str(p), "--out", str(tmp_path / "out")])
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert "metrics.max_memory" in text and "1MB .. 1TB" in text and "u64" not in text, text


# --- §1 the memory bound is a bound ------------------------------------------------------------

MEM_CASE = """
[network]
senders = 10
bottleneck = "10Gbps"
access = "10Gbps"
rtt = "100us"
buffer = "250pkt"
aqm = { kind = "threshold", K = "65pkt" }

[[flows]]
count = 10
protocol = "dctcp"

[run]
duration = "10ms"
seed = 1

[metrics]
max_memory = "200MB"
"""


def _peak_rss_bytes(args: list[str]) -> tuple[int, str]:
    """Peak RSS of `dcsim ARGS` (plots and Parquet files included), bytes: the command's own peak
    plus its plot process's (they run at the same time, so their sum bounds what the run takes),
    each from getrusage (ru_maxrss, kB on Linux) in the process that runs the command; the callers
    pass --wait-plots, so that the plot process is a waited-for child."""
    cli = ("import io, resource, sys\n"
           "from dcsim.cli import main\n"
           "out = io.StringIO(); real = sys.stdout; sys.stdout = out\n"
           "rc = main()\n"
           "sys.stdout = real\n"
           "kb = sum(resource.getrusage(w).ru_maxrss for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))\n"
           "print(rc, kb); print(out.getvalue())\n")
    r = subprocess.run([sys.executable, "-c", cli, *args], capture_output=True, text=True, check=True)
    head, _, text = r.stdout.partition("\n")
    rc, kb = (int(x) for x in head.split())
    assert rc == 0, text + r.stderr
    return kb * 1024, text


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in kB on Linux")
def test_memory_bound_holds_near_the_bound(tmp_path):
    """Issue 6 audit: 10 DCTCP flows for 10 ms with the window sampled at the interval the error
    suggests were accepted under max_memory = 200MB and peaked at 566 MB against a 153 MB
    baseline. Now the run's peak RSS (`dcsim run`, with its Parquet files and plots; the command
    and its plot process added up) stays within max_memory of a baseline: the same command with a
    tiny window series (every 100 us: 1 000 rows). The baseline is what max_memory does not
    cover, the interpreters, numpy / pyarrow / matplotlib, the engine library and the plots' fixed
    cost (measured 196 MB: 102 MB for the command, 94 MB for the plot process); the world of 10
    flows, which max_memory does cover, is under 1 MB in both. So the margin is the measured
    baseline itself, nothing added."""
    sc = tmp_path / "mem.toml"
    sc.write_text(MEM_CASE)
    # The interval the error message suggests for 1 ns.
    res = runner.invoke(app, ["run", str(sc), "--out", str(tmp_path / "x"), "--set", "metrics.cwnd_interval=1ns"])
    assert res.exit_code == 2
    text = " ".join(res.output.split())
    suggested = text.split("lengthen metrics.cwnd_interval to at least ")[1].split(",")[0].replace(" ", "")
    base, _ = _peak_rss_bytes(["run", str(sc), "--wait-plots", "--out", str(tmp_path / "base"), "--set", "metrics.cwnd_interval=100us"])
    peak, out = _peak_rss_bytes(["run", str(sc), "--wait-plots", "--out", str(tmp_path / "near"), "--set",
                                 f"metrics.cwnd_interval={suggested}"])
    import pandas as pd

    rows = len(pd.read_parquet(tmp_path / "near" / "cwnd.parquet"))
    # Near the bound: the window series alone takes over a tenth of max_memory in its columns (40 B a row).
    assert rows * 40 > 0.1 * 200e6, rows
    assert peak <= base + 200e6, f"peak {peak / 1e6:.0f} MB > baseline {base / 1e6:.0f} MB + 200 MB ({suggested})"


def test_threads_reading_one_result_get_the_same_tables():
    """A Result's tables are built on first read (the engine's columns become a DataFrame): four
    threads reading the same tables at once build the one DataFrame, not a KeyError (the table
    had left the columns before it reached the frames)."""
    import threading

    scenario = Scenario.from_dict(dumbbell(**{"run.warmup": "1ms"}))
    for _ in range(5):
        r = dcsim.simulate(scenario)
        got: list = []
        errors: list = []
        start = threading.Barrier(4)

        def read() -> None:
            start.wait()
            try:
                assert len(r.cwnd) and len(r.queue) and len(r.flows)  # each a frame of its own (Result._table)
                got.append((id(r.tables["cwnd"]), id(r.tables["queue"]), id(r.tables["flows"])))
            except Exception as e:  # noqa: BLE001 - any failure is the finding
                errors.append(repr(e))

        threads = [threading.Thread(target=read) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors and len(set(got)) == 1, (errors, got)


def test_a_run_removes_the_temporary_directories_of_dead_processes_only(tmp_path):
    """A run killed outright (SIGKILL, a crash) leaves .<out>.partial-<pid>; the next run into the
    same place removes those of processes that no longer exist, and leaves a live one's alone."""
    sc = tmp_path / "s.toml"
    sc.write_text(FAST)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # its pid exists no more
    orphan = tmp_path / f".out.partial-{dead.pid}"
    old = tmp_path / f".out.old-{dead.pid}"
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    live = tmp_path / f".out.partial-{alive.pid}"  # another run, still writing
    for d in (orphan, old, live):
        d.mkdir()
        (d / "queue.parquet").write_bytes(b"PAR1")
    try:
        code, output = _cli("run", str(sc), "--out", str(tmp_path / "out"), "--no-plots")
    finally:
        alive.kill()
        alive.wait()
    assert code == 0, output
    assert not orphan.exists() and not old.exists()
    assert live.exists(), "a live process's directory was removed"


def test_closed_standard_streams_are_not_an_error(tmp_path):
    """`dcsim run ... >&-` (stdout closed) or `2>&-`: the files are written and the status is 0, not
    a traceback from flushing a stream that is not there."""
    sc = tmp_path / "s.toml"
    sc.write_text(FAST)
    for fd in (1, 2):
        out = tmp_path / f"o{fd}"
        r = subprocess.run([sys.executable, "-c", "from dcsim.cli import entry; entry()", "run", str(sc), "--out", str(out),
                            "--no-plots"], capture_output=True, text=True, timeout=120,
                           preexec_fn=lambda fd=fd: os.close(fd))  # the interpreter starts without it
        assert r.returncode == 0, (fd, r.stdout, r.stderr)
        assert "Traceback" not in r.stderr + r.stdout
        assert (out / "flows.parquet").exists()


#: A run of a fraction of a second.
FAST = textwrap.dedent("""
    [network]
    topology = "dumbbell"
    senders = 2
    bottleneck = "10Gbps"
    rtt = "100us"
    buffer = "1000pkt"
    [[flows]]
    count = 2
    protocol = "dctcp"
    [run]
    duration = "5ms"
    warmup = "1ms"
""")


def test_a_result_pickles_and_copies_whole():
    """A Result sent between processes (multiprocessing, Dask) or deep-copied: every table and the
    summary come back equal, whether or not a table was read before (a probe found `cannot pickle
    '_thread.RLock'`)."""
    import copy
    import pickle

    import dcsim

    r = dcsim.simulate(dcsim.Scenario.from_toml_str(FAST))
    fresh = pickle.loads(pickle.dumps(r))
    _ = r.flows  # read one table first: it moves from the engine's columns to a DataFrame
    for other in (fresh, pickle.loads(pickle.dumps(r)), copy.deepcopy(r)):
        assert other.summary() == r.summary()
        for name in ("flows", "ports", "queue", "cwnd", "counters"):
            assert other.tables[name].equals(r.tables[name]), name


@pytest.mark.skipif(sys.platform != "linux", reason="a file name of arbitrary bytes (Linux)")
def test_output_paths_that_are_not_utf8_work_everywhere_a_table_is_written_or_read(tmp_path):
    """A probe gave `dcsim sweep` and `dcsim reproduce` an --out with the byte 0xff: the runs were
    written, then reading the sweep's table (Arrow takes a str path as UTF-8) ended in an internal
    error. Every Parquet file now goes through a file Python opened."""
    import pandas as pd

    import dcsim
    from dcsim.cli import parquet_beside_csvs
    from dcsim.sweep import sweep

    odd = Path(os.fsdecode(bytes(tmp_path) + b"/out\xff"))
    base = {"network": {"senders": 2, "bottleneck": "10Gbps", "rtt": "100us", "buffer": "200pkt"},
            "flows": [{"count": 2, "protocol": "dctcp"}], "run": {"duration": "3ms", "warmup": "1ms", "seed": 1}}
    s = sweep(base, {"network.buffer": ["100pkt", "200pkt"]}, out=odd / "sweep", jobs=1, progress=False)
    assert len(s.table) == 2
    r = dcsim.simulate(dcsim.Scenario.from_dict(base))
    _ = r.flows  # a DataFrame now; a user column of its own makes pandas write it
    r.tables["flows"] = r.flows.assign(note=pd.Series([{"a": 1}] * len(r.flows), dtype=object))
    r.to_dir(odd / "run")
    back = dcsim.Result.from_dir(odd / "run")
    assert len(back.flows) == 2
    csv = odd / "t.csv"
    csv.write_text("a,b\n1,2\n")
    assert [p.name for p in parquet_beside_csvs([csv])] == ["t.parquet"]


def test_run_max_wall_bounds_a_run_in_wall_clock_time(tmp_path):
    """run.max_wall: a run that takes longer stops with a RunLimitError naming the field, soon after
    the bound (the engine returns at least every EVENTS_PER_CALL = 2^20 events, ~0.1-0.2 s here),
    and the CLI says it with exit status 2, having written what was simulated (see the next test).
    The bound is not in the engine spec (a run that ends gives the same results), and a bound that
    is not positive is refused before anything runs."""
    import time

    from typer.testing import CliRunner

    from dcsim import RunLimitError, Scenario, ScenarioError, simulate
    from dcsim.cli import app

    base = {"network": {"senders": 10, "bottleneck": "10Gbps", "rtt": "100us", "buffer": "200pkt",
                        "aqm": {"kind": "threshold", "K": "65pkt"}},
            "flows": [{"count": 10, "protocol": "dctcp"}],
            "run": {"duration": "1000s", "max_wall": "0.3s"}}
    t0 = time.perf_counter()
    with pytest.raises(RunLimitError, match=r"^run\.max_wall: the run stopped at t = .* m?s of 1000 s simulated after .* more "
                                            r"than run\.max_wall = 300ms"):
        simulate(Scenario.from_dict(base))
    # ~1 s of a 2-core machine's slack on top of the bound: the check runs between engine calls
    assert time.perf_counter() - t0 < 0.3 + 2.0
    sc = Scenario.from_dict({**base, "run": {"duration": "5ms"}})
    bounded = Scenario.from_dict({**base, "run": {"duration": "5ms", "max_wall": "3600s"}})
    assert sc.to_engine_spec() == bounded.to_engine_spec()
    with pytest.raises(ScenarioError, match=r"run\.max_wall: 0s is not positive; allowed > 0 s"):
        Scenario.from_dict({**base, "run": {"duration": "5ms", "max_wall": "0s"}})
    path, out = tmp_path / "long.toml", tmp_path / "out"
    path.write_text(Scenario.from_dict(base).to_toml())
    res = CliRunner().invoke(app, ["run", str(path), "--no-plots", "--out", str(out)], env={"COLUMNS": "300"})
    assert res.exit_code == 2 and "run.max_wall" in res.output and "Traceback" not in res.output, res.output
    assert f"of 1000 s, is in {out}/" in " ".join(res.output.split()), res.output
    stopped = json.loads((out / "summary.json").read_text())["stopped"]
    assert stopped["field"] == "run.max_wall" and stopped["duration_s"] == 1000 and 0 < stopped["simulated_s"] < 1000


def _stopped_at_first_return(sc):
    """The partial Result of ``sc`` stopped by run.max_wall = 1 ns at the engine's first return
    (EVENTS_PER_CALL events with chunks = 1: the same stop on every machine)."""
    import dcsim
    from dcsim import RunLimitError

    with pytest.raises(RunLimitError, match=r"^run\.max_wall: the run stopped at t = ") as e:
        dcsim.simulate(sc.replace({"run.max_wall": "1ns"}), chunks=1)
    return e.value.partial


def _fresh_run_of(sc, part):
    """``sc`` run afresh to the partial's t, sampled at the intervals the stopped run used."""
    import dcsim

    m = part.engine_spec["metrics"]
    return dcsim.simulate(sc.replace({"run.duration": f"{part.engine_spec['duration_ps']}ps", **{
        f"metrics.{k}": f"{m[k + '_ps']}ps" for k in ("queue_interval", "throughput_interval", "cwnd_interval")}}),
        chunks=1)


TABLES_COMPARED = ("flows", "ports", "counters", "queue", "queue_hist", "cwnd", "throughput", "workloads")


def test_a_run_that_max_wall_stopped_keeps_what_it_simulated(tmp_path):
    """Nothing a user already computed is lost: a run stopped by run.max_wall past its warm-up
    returns the Result of 0 .. t as RunLimitError.partial, and `dcsim run` writes it (exit status
    2). The partial Result is the run of 0 .. t: a fresh run with run.duration = t (and the
    sampling intervals the stopped run used) gives the same tables, bit for bit. Its scenario is
    the one given; before the warm-up ended nothing is kept."""
    import dcsim
    from dcsim import Result, RunLimitError
    from dcsim.simulate import EVENTS_PER_CALL

    sc = dcsim.load_scenario(ROOT / "examples" / "dctcp_dumbbell.toml").replace(
        {"run.duration": "1s", "run.warmup": "1ms"})
    part = _stopped_at_first_return(sc)
    t_ps = part.engine_spec["duration_ps"]
    assert part.stopped == {"field": "run.max_wall", "max_wall_s": 1e-9, "duration_s": 1.0, "simulated_s": t_ps / 1e12}
    assert 1e9 < t_ps < 1e12 and part.duration_s == t_ps / 1e12 and part.scenario.run.duration == 1.0
    assert int(part.counters["events"].iloc[0]) == EVENTS_PER_CALL
    fresh = _fresh_run_of(sc, part)
    for table in TABLES_COMPARED:
        assert part.tables[table].equals(fresh.tables[table]), table
    # What it derives divides by the time simulated: the bottleneck, full after warm-up (DCTCP
    # keeps ~K packets queued), is busy the whole time from warm-up to t; 10 flows share it.
    sw_r = part.ports[part.ports["port_label"].astype(str) == "sw->r"]
    assert float(sw_r["utilization"].iloc[0]) == pytest.approx(1.0, abs=1e-3)
    summary = part.summary()
    assert summary["duration_s"] == t_ps / 1e12 and summary["stopped"] == part.stopped
    assert summary["goodput_total_bps"] == pytest.approx(10e9 * 1460 / 1500, rel=0.02)  # payload share of 10 Gbps
    part.to_dir(tmp_path / "out")
    back = Result.from_dir(tmp_path / "out")
    assert back.stopped == part.stopped and back.duration_s == part.duration_s
    # The figures say where they end: drawn from the Result, read back, or in `dcsim run`'s plot
    # process (which had been handed the Result without `stopped`: a README probe).
    import pickle

    from dcsim._plot_worker import _payload, result_from

    drawn = result_from(pickle.loads(pickle.dumps(_payload(part, tmp_path))))
    for r in (part, back, drawn):
        footer = " ".join(" ".join(t.get_text() for t in r.plot("queue").texts).split())
        assert "stopped by run.max_wall at" in footer and "(this figure's end)" in footer, footer
    # Stopped before the warm-up ended: nothing measured, nothing kept, and the message says why.
    with pytest.raises(RunLimitError, match=r"before the warm-up ended at 0\.9 s: nothing was measured") as e:
        dcsim.simulate(sc.replace({"run.max_wall": "1ns", "run.warmup": "900ms"}), chunks=1)
    assert e.value.partial is None


def test_a_stopped_run_keeps_flows_that_start_after_it_and_its_last_instant_whole():
    """Two probe findings. (1) The partial Result's scenario had been the given one with
    run.duration = t, validated again: a flow or workload starting after t was refused in it, and
    the partial was lost. (2) The engine paused inside an instant: a one-world fat-tree's partial
    lacked one packet of the instant t against a fresh run to t (161 693 against 161 694 sent).
    The engine now finishes an instant before it returns."""
    import dcsim

    late = dcsim.Scenario.from_dict({
        "network": {"senders": 10, "bottleneck": "10Gbps", "rtt": "100us", "buffer": "200pkt",
                    "aqm": {"kind": "threshold", "K": "65pkt"}},
        "flows": [{"count": 5, "protocol": "dctcp", "ect_acks": True},
                  {"count": 5, "protocol": "dctcp", "ect_acks": True, "start": "1s"}],
        "run": {"duration": "2s", "warmup": "10ms"}})
    part = _stopped_at_first_return(late)
    assert part is not None and part.duration_s < 1.0 and len(part.flows) == 10
    assert (part.flows["sent_pkts"].to_numpy()[5:] == 0).all()  # not started by t
    fabric = dcsim.load_scenario(ROOT / "examples" / "fat_tree.toml").replace(
        {"run.duration": "1s", "run.warmup": "100us"})
    part = _stopped_at_first_return(fabric)
    fresh = _fresh_run_of(fabric, part)
    for table in TABLES_COMPARED:
        assert part.tables[table].equals(fresh.tables[table]), table


@pytest.mark.parametrize("partitions", [1, 2])
def test_a_max_wall_stop_where_a_trace_flow_starts_keeps_the_run_a_fresh_run_to_t_gives(partitions):
    """A run to t starts no generated flow due at t, but a run.max_wall stop at a chunk's end (20 us
    of 2 ms in 100 chunks) where a trace flow was due kept it: 201 flows against the 200 of a
    fresh run of the partial's engine spec, and the workloads, counters and series with it. The
    run now ends 1 ps later there (`Simulation.end_here`), as a run to that time does; split in
    two worlds (each leaf with its hosts and one spine), every world fires the flow and every
    world now ends 1 ps later together (it had kept the flow there too)."""
    import json

    import dcsim
    from dcsim import RunLimitError, _core
    from dcsim.result import Result

    arrivals = [{"start": f"{i * 100}ns", "src": f"h{i % 4}", "dst": f"h{(i + 1) % 4}", "size": "1GB"}
                for i in range(1_000)]
    sc = dcsim.Scenario.from_dict({
        "network": {"topology": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 2,
                    "host_link": "10Gbps", "buffer": "100pkt"},
        "workloads": [{"kind": "trace", "protocol": "dctcp", "arrivals": arrivals}],
        "run": {"duration": "2ms", "max_wall": "1ns", "partitions": partitions}, "metrics": {"max_memory": "100MB"}})
    with pytest.raises(RunLimitError, match=r"^run\.max_wall") as e:
        dcsim.simulate(sc)
    part = e.value.partial
    t_ps = part.engine_spec["duration_ps"]
    assert t_ps in (20_000_000, 20_000_001), t_ps  # the first chunk's end, where flow 200 is due
    assert part.engine_spec["partitions"] == partitions
    fresh = _core.Simulation(json.dumps(part.engine_spec))
    fresh.run()
    fresh = Result.from_engine(sc, fresh.results(), wall_s=0.0, engine_spec=part.engine_spec)
    assert len(part.flows) == len(fresh.flows) == 200 + (t_ps > 20_000_000)
    for table in TABLES_COMPARED:
        assert part.tables[table].equals(fresh.tables[table]), table


def test_a_stop_where_an_incast_round_is_due_next_keeps_the_run_a_fresh_run_to_t_gives():
    """A stop at t ends the run at t + 1 ps with that instant's workload events unfired, as a run
    to t + 1 ps leaves them; but an incast's next round was scheduled without the run's end in
    view, so a fresh run of the partial's engine spec started a round due exactly at its end (13
    flows and 2 rounds against the partial's 7 and 1: a review). No round starts at or after the
    end now, as no trace flow or Poisson arrival does. Round 0 (6 x 20 KB) ends at R1 - 50 us; a
    trace flow due at R1 - 1 ps, the first chunk's end, makes the stop end there + 1 ps = R1."""
    import json

    import dcsim
    from dcsim import RunLimitError, _core
    from dcsim.result import Result

    r1 = 255_984_000  # ps: round 1's start in this scenario (round 0's last response + 50 us)
    t = r1 - 1
    sc = dcsim.Scenario.from_dict({
        "network": {"topology": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 4,
                    "host_link": "10Gbps", "buffer": "100pkt"},
        "workloads": [{"kind": "incast", "client": "h0", "n": 6, "total": "120KB", "rounds": 5, "gap": "50us",
                       "start": "100us", "protocol": "dctcp"},
                      {"kind": "trace", "protocol": "dctcp",
                       "arrivals": [{"start": f"{t}ps", "src": "h7", "dst": "h1", "size": "10KB"}]}],
        "run": {"duration": f"{2 * t}ps", "warmup": "10us", "max_wall": "1ns"},
        "metrics": {"queue_interval": "10us", "throughput_interval": "20us", "cwnd_interval": "20us"}})
    with pytest.raises(RunLimitError, match=r"^run\.max_wall") as e:
        dcsim.simulate(sc, chunks=2)
    part = e.value.partial
    assert part.engine_spec["duration_ps"] == r1
    assert list(part.tables["rounds"]["round"]) == [0]  # round 1 is due at the end: not started
    fresh = _core.Simulation(json.dumps(part.engine_spec))
    fresh.run()
    fresh = Result.from_engine(sc, fresh.results(), wall_s=0.0, engine_spec=part.engine_spec)
    assert len(part.flows) == len(fresh.flows) == 7
    for table in (*TABLES_COMPARED, "rounds"):
        assert part.tables[table].equals(fresh.tables[table]), table


def test_run_max_wall_never_rejects_a_run_that_ended():
    """The bound is checked each time the engine returns, also after its last step: a run that
    reached its end is kept however long it took (a 2 ms run with max_wall = 1 ns)."""
    import dcsim

    sc = dcsim.load_scenario(Path(__file__).resolve().parents[1] / "examples" / "dctcp_dumbbell.toml").replace(
        {"run.duration": "2ms", "run.warmup": "1ms", "run.max_wall": "1ns"})
    res = dcsim.simulate(sc, chunks=1)
    assert res.flows["delivered_bytes_whole_run"].sum() > 0


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: signal.Signals(s).name)
def test_a_signal_stops_a_long_fluid_integration_in_one_line(tmp_path, sig):
    """`dcsim fluid dx --t-end 40s` integrated for ~7.5 s off the GIL: Ctrl-C (or SIGTERM) was seen
    only when the run was done, and then NumPy's import, with the interrupt pending, panicked in
    the extension (a Rust backtrace and a Python traceback, status 1; a probe). The run now stops
    within its poll of the signals (50 ms) and says so in one line, status 128 + signal."""
    # 1 s: imported (~0.3 s) and integrating
    rc, err, dt = _sigint_after([sys.executable, "-c", "import sys; from dcsim.cli import main; sys.exit(main())",
                                 "fluid", "dx", "--t-end", "40s"], None, tmp_path, sig, settle_s=1.0)
    assert rc == 128 + sig, err
    assert "interrupted" in err and "Traceback" not in err and "panicked" not in err, err
    assert "output directory" not in err, err  # it writes none (it had been told about one)
    # The run (40 s simulated, the most at its step) has ~6 s to go; 3 s only guards against a hang on a loaded CI machine.
    assert dt < 3.0, f"took {dt:.2f} s to stop"


def test_a_stopped_run_whose_results_cannot_be_taken_still_reports_the_stop(monkeypatch):
    """If taking the partial results fails (here: the engine's results() raises), the stop is still
    a RunLimitError naming run.max_wall, without a partial, and the message says what was lost."""
    import importlib

    import dcsim
    from dcsim import RunLimitError

    simulate_mod = importlib.import_module("dcsim.simulate")  # the module (dcsim.simulate is the function)
    core = simulate_mod.engine()

    class Failing:
        def __init__(self, text):
            self._sim = core.Simulation(text)

        def __getattr__(self, name):
            return getattr(self._sim, name)

        def results(self):
            raise ValueError("results: a failure for the test")

    monkeypatch.setattr(simulate_mod, "engine", lambda: type("Core", (), {"Simulation": Failing}))
    sc = dcsim.load_scenario(ROOT / "examples" / "dctcp_dumbbell.toml").replace(
        {"run.duration": "1s", "run.warmup": "1ms", "run.max_wall": "1ns"})
    with pytest.raises(RunLimitError, match=r"^run\.max_wall: .*what it simulated could not be kept: ValueError: "
                                            r"results: a failure for the test") as e:
        dcsim.simulate(sc, chunks=1)
    assert e.value.partial is None


def test_a_lock_whose_folder_its_holder_removed_is_taken_in_a_new_folder(tmp_path, monkeypatch):
    """A sweep that wrote nothing removes its lock file and its folder as it lets go; a second one
    that had opened the old file and locked it after that re-opened the lock file in a folder that
    was gone: FileNotFoundError instead of a lock (a review). The folder is made again."""
    import fcntl
    import shutil

    from dcsim._files import exclusive_lock

    path = tmp_path / "out" / ".lock"
    path.parent.mkdir()
    real = fcntl.flock
    calls = []

    def flock(fd, op):
        if not calls:  # the first holder lets go and removes its file and folder just now
            calls.append(1)
            shutil.rmtree(path.parent)
        return real(fd, op)

    monkeypatch.setattr(fcntl, "flock", flock)
    with exclusive_lock(path):
        assert path.is_file() and path.read_text().startswith("pid ")
