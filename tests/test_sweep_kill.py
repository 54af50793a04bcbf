"""A real `dcsim sweep` process killed (SIGKILL) or interrupted (SIGINT, SIGTERM) mid-run.

SIGKILL at any moment, then the same command again: the sweep completes, no finished run is
computed again, no row is corrupt or duplicated. Ctrl-C: the sweep stops promptly, keeps finished
runs, prints no traceback and exits 130 (SIGTERM: 143), leaving no worker process behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from dcsim.sweep import sweep

# 10 DCTCP flows for 40 ms: tens of ms per run, so that a kill lands while runs are in flight.
BASE = {
    "network": {"senders": 10, "bottleneck": "10Gbps", "rtt": "100us", "buffer": "500pkt", "aqm": {"kind": "threshold", "K": "65pkt"}},
    "flows": [{"count": 10, "protocol": "dctcp"}],
    "run": {"duration": "40ms", "warmup": "10ms", "seed": 1},
}
KS = [f"{k}pkt" for k in (20, 30, 40, 50, 60, 70, 80, 90)]
SEEDS = 4


def sweep_file(tmp_path: Path, duration: str = "40ms") -> Path:
    base = dict(BASE, run=dict(BASE["run"], duration=duration))
    (tmp_path / "base.json").write_text(json.dumps(base))
    f = tmp_path / "s.toml"
    f.write_text(f'base = "base.json"\nseeds = {SEEDS}\n[axes]\n"network.aqm.K" = {json.dumps(KS)}\n')
    return f


def start(f: Path, out: Path, *extra: str) -> subprocess.Popen:
    # Its own session: signals go to the sweep and its workers, as from a terminal's Ctrl-C.
    return subprocess.Popen(
        [sys.executable, "-m", "dcsim.cli", "sweep", str(f), "--out", str(out), "--jobs", "2", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        env={**os.environ, "COLUMNS": "200"},
    )


def finished(out: Path) -> dict[Path, tuple[int, int]]:
    """row.json of every finished run: (inode, mtime) proves it was not written again."""
    out_rows = {}
    for p in (out / "runs").glob("*/row.json"):
        st = p.stat()
        out_rows[p] = (st.st_ino, st.st_mtime_ns)
    return out_rows


def wait_for_rows(out: Path, n: int, proc: subprocess.Popen, limit_s: float = 60.0) -> bool:
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit_s:
        if proc.poll() is not None:
            return False
        if len(list((out / "runs").glob("*/row.json"))) >= n:
            return True
        time.sleep(0.005)
    return False


def group_gone(pgid: int, limit_s: float = 5.0) -> bool:
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit_s:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_sigkill_at_several_moments_then_resume(tmp_path):
    f = sweep_file(tmp_path)
    out = tmp_path / "out"
    total = len(KS) * SEEDS
    before: dict[Path, tuple[int, int]] = {}
    kills = 0
    for target in (3, 14):
        proc = start(f, out)
        running = wait_for_rows(out, target, proc)
        if running:
            os.killpg(proc.pid, signal.SIGKILL)  # the sweep and its workers, at once
            kills += 1
        proc.communicate(timeout=30)
        group_gone(proc.pid)
        now = finished(out)
        # A finished run is never written again by a later (killed) sweep.
        assert {p: now[p] for p in before} == before
        before = now
    assert kills >= 2, "the sweep finished before it could be killed: make the runs longer"

    proc = start(f, out)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert f"{total} runs: {total - len(before)} computed, {len(before)} cached, 0 failed" in stdout
    after = finished(out)
    assert {p: after[p] for p in before} == before and len(after) == total

    df = pd.read_parquet(out / "sweep.parquet")
    assert len(df) == total and df["run_id"].is_unique and set(df["status"]) == {"ok"}
    assert list(df["network.aqm.K"]) == [k for k in KS for _ in range(SEEDS)] and list(df["seed"]) == list(range(1, SEEDS + 1)) * len(KS)
    assert not list(out.rglob("*.tmp")), "a temporary file was left behind"
    # No corrupt row: the table equals a sweep that was never killed (wall-clock columns aside).
    ref = sweep(BASE, {"network.aqm.K": KS}, seeds=SEEDS, out=tmp_path / "ref", tables=False, progress=False).table
    cols = [c for c in ref.columns if "wall" not in c]
    pd.testing.assert_frame_equal(df[cols], ref[cols])
    # Every run's tables are whole Parquet files.
    for rid in df["run_id"]:
        pd.read_parquet(out / "runs" / rid / "queue.parquet")


# SIGHUP (a closed terminal) had been left to the command line's handler: it raised wherever the
# sweep was, and the sweep said Ctrl-C and exited 130 (a review, 2026-12-01).
@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_interrupt_stops_promptly_and_keeps_finished_runs(tmp_path, sig, code):
    f = sweep_file(tmp_path, duration="300ms")  # runs of a few hundred ms: some are always in flight
    out = tmp_path / "out"
    proc = start(f, out)
    assert wait_for_rows(out, 2, proc), proc.communicate()[1]
    t0 = time.monotonic()
    os.killpg(proc.pid, sig)
    # A hang check, not a benchmark: the sweep must stop, not finish its 32 runs (~5 s of work).
    _, stderr = proc.communicate(timeout=10)
    stopped_s = time.monotonic() - t0
    assert proc.returncode == code, (proc.returncode, stderr)
    assert "Traceback" not in stderr and "interrupted:" in stderr, stderr
    assert group_gone(proc.pid), "a worker process outlived the sweep"
    kept = finished(out)
    assert 2 <= len(kept) < len(KS) * SEEDS, (len(kept), stopped_s, stderr)
    assert not (out / "sweep.parquet").exists()
    assert not (out / "sweep.json").exists(), "the table's description is written with the table"
    # The next sweep counts them as finished.
    proc2 = start(f, out, "--dry-run")
    _, plan = proc2.communicate(timeout=30)
    assert f"{len(kept)} finished before" in plan, plan


def _zombie() -> subprocess.Popen:
    """A child that has exited but is not reaped: its pid still exists, as a worker's right after
    a SIGKILL when the sweep is started again at once."""
    p = subprocess.Popen(["true"])
    for _ in range(500):
        try:
            state = Path(f"/proc/{p.pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except OSError:
            pytest.skip("no /proc")
        if state == b"Z":
            return p
        time.sleep(0.01)
    pytest.fail("the child did not exit")


def test_stale_temp_files_of_cached_runs_are_removed_by_a_later_sweep(tmp_path):
    """Temporary files in a finished run's directory (a writer killed mid-write) are removed by the
    next sweep even though that run is cached and never written again: those of dead writers
    (zombies included), and any older than STALE_TMP_S; a fresh one of a live writer is kept until
    its writer is gone."""
    from dcsim.sweep.store import STALE_TMP_S

    base = dict(BASE, run=dict(BASE["run"], duration="15ms"))
    first = sweep(base, {"network.aqm.K": ["20pkt"]}, out=tmp_path, tables=False, jobs=1, progress=False)
    run_dir = first.run_dir(first.table["run_id"][0])
    zombie = _zombie()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        dead = run_dir / f".row.json.{zombie.pid}.tmp"
        old = run_dir / f".a.parquet.{sleeper.pid}.tmp"
        fresh = run_dir / f".b.parquet.{sleeper.pid}.tmp"
        top = tmp_path / f".sweep.json.{zombie.pid}.tmp"
        for p in (dead, old, fresh, top):
            p.write_bytes(b"partial")
        t = time.time() - 2 * STALE_TMP_S
        os.utime(old, (t, t))
        again = sweep(base, {"network.aqm.K": ["20pkt"]}, out=tmp_path, tables=False, jobs=1, progress=False)
        assert again.cached == 1 and again.computed == 0
        assert not dead.exists() and not old.exists() and not top.exists()
        assert fresh.exists()  # its writer may still be writing
    finally:
        sleeper.kill()
        sleeper.wait()
        zombie.wait()
    sweep(base, {"network.aqm.K": ["20pkt"]}, out=tmp_path, tables=False, jobs=1, progress=False)
    assert not list(tmp_path.rglob("*.tmp"))


def test_workers_die_with_a_sweep_killed_alone(tmp_path):
    """`kill -9 <the sweep's pid>` (not its process group, as a terminal's Ctrl-C would): the
    workers were left waiting on their pipes, holding OUT/.lock, and every later sweep of OUT said
    "another dcsim sweep is writing" until they were killed by hand. They now die with the sweep
    (the parent-death signal), and the next sweep resumes."""
    f = sweep_file(tmp_path, duration="300ms")
    out = tmp_path / "out"
    proc = start(f, out)
    assert wait_for_rows(out, 1, proc), proc.communicate()[1]
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    gone = group_gone(proc.pid, limit_s=10)
    if not gone:  # leave no orphan behind a failing test
        os.killpg(proc.pid, signal.SIGKILL)
    assert gone, "a worker outlived the sweep killed with SIGKILL"
    proc = start(f, out, "--dry-run")
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "another dcsim sweep" not in stderr, stderr


def test_a_failed_write_names_its_file_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    """A full disk during a sweep said "No space left on device (writing the output)" and left
    .<name>.<pid>.tmp files behind (a robustness probe): the error now names the file, and the
    temporary file is removed."""
    from dcsim.sweep import store

    def full(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store.os, "replace", full)
    target = tmp_path / "row.json"
    with pytest.raises(OSError) as e:
        store.atomic_write(target, b"{}")
    assert e.value.errno == 28 and e.value.filename == str(target)
    assert list(tmp_path.iterdir()) == []



# A `dcsim sweep` whose first Ctrl-C comes once two runs are finished, and whose second comes at a
# chosen moment of its stop: while its workers are stopped ("close"), or just after its signal
# handlers are given back ("restored"). Sent by the process to itself, at those exact points, so
# that the test does not depend on timing.
_SECOND_CTRL_C = """
import os, signal, sys, threading, time
from pathlib import Path
import dcsim.sweep.execute as ex
import dcsim.cli

when, out = sys.argv[1], Path(sys.argv[2])

def ctrl_c():
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.05)  # the handler runs in the main thread meanwhile

def first():
    while len(list((out / "runs").glob("*/row.json"))) < 2:
        time.sleep(0.005)
    os.kill(os.getpid(), signal.SIGINT)

if when == "close":
    close = ex.LocalPool.close
    def patched(self, *a, **k):
        ctrl_c()
        return close(self, *a, **k)
    ex.LocalPool.close = patched
else:
    leave = ex.StopSignals.__exit__
    def patched(self, *a):
        leave(self, *a)
        if self.received is not None:
            ctrl_c()
    ex.StopSignals.__exit__ = patched
threading.Thread(target=first, daemon=True).start()
sys.argv = ["dcsim", "sweep", sys.argv[3], "--out", str(out), "--jobs", "2"]
sys.exit(dcsim.cli.main())
"""


@pytest.mark.parametrize("when", ["close", "restored"])
def test_a_second_ctrl_c_while_the_sweep_stops_keeps_its_message(tmp_path, when):
    """Two Ctrl-C a moment apart (an impatient user): the second one, landing while the workers
    were stopped or once the sweep had given the signal handlers back, had replaced the sweep's
    message ("N of M runs finished and kept in OUT; run the same command again to resume") by the
    generic "no output directory was left half-written", or by nothing (a probe: 2 of 3 tries 0.1 s
    apart). The second waits for the stop: the sweep's message is printed, its runs are kept."""
    f = sweep_file(tmp_path, duration="300ms")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-c", _SECOND_CTRL_C, when, str(out), str(f)], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "COLUMNS": "200"})
    assert proc.returncode == 130, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "runs finished and kept in" in proc.stderr and "run the same command again to resume" in proc.stderr, proc.stderr
    # and not the generic line after it, which contradicted it (a probe of the Dask path)
    assert "no output directory was left half-written" not in proc.stderr, proc.stderr
    assert 2 <= len(finished(out)) < len(KS) * SEEDS
