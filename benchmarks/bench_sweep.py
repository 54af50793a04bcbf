"""Sweep benchmark (issue 10; not a test): 64 runs of 50 ms DCTCP dumbbells (the DCTCP analysis
paper's Fig. 2 setting: N = 10, 10 Gbps, RTT 100 us, g = 1/16; K in 8 values x 8 seeds), with
each run's tables written (the default).

Measured in this run, on this machine:
1. local process pool: wall time with --jobs 1 and --jobs 2, the speed-up (goal >= 1.8x on 2 cores);
2. Dask: overhead per run beyond the run itself, on a running LocalCluster of 2 worker processes
   (goal < 50 ms), next to the local pool's; and the one-off start-up of `--dask local`;
3. resuming the finished sweep: `dcsim sweep` in a fresh process, start-up included (goal < 2 s);
4. Ctrl-C: time from SIGINT to the exit of `dcsim sweep` while runs are in flight (goal ~1 s).

Overhead per run = wall x workers / runs - mean worker wall time per run (the run itself:
simulate, summary, Parquet encoding). Each sweep is timed `--repeat` times into a fresh
directory, --jobs 1 and --jobs 2 alternating; the best (least disturbed) and the median are
reported, ratios are of values measured in this same run. The machine is shared: before each
pair, a calibration measures how much parallelism it offers right now (two busy processes vs
one; 2.0 = two free cores), the ceiling for the speed-up.

Run: python benchmarks/bench_sweep.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KS = [f"{k}pkt" for k in (20, 30, 40, 50, 60, 65, 80, 100)]
SEEDS = 8
N_RUNS = len(KS) * SEEDS

SWEEP_TOML = f"""
base = "{(ROOT / 'examples' / 'dctcp_dumbbell.toml').as_posix()}"
seeds = {SEEDS}
[set]
"run.duration" = "50ms"
"run.warmup" = "10ms"
[axes]
"network.aqm.K" = {json.dumps(KS)}
"""


def _busy(n: int) -> float:
    t0 = time.perf_counter()
    x = 0
    for i in range(n):
        x += i * i
    return time.perf_counter() - t0


def machine_parallelism(n: int = 3_000_000) -> float:
    """2 x (time of one busy process) / (time of two at once): 2.0 when two cores are free."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(2) as pool:
        pool.map(_busy, [1000, 1000])  # start the processes
        t0 = time.perf_counter()
        pool.apply(_busy, (n,))
        one = time.perf_counter() - t0
        t0 = time.perf_counter()
        pool.map(_busy, [n, n], chunksize=1)
        two = time.perf_counter() - t0
    return 2 * one / two


def timed_sweep(spec, out: Path, **kw) -> tuple[float, float]:
    """(wall s, mean worker wall per run s) of one fresh sweep."""
    from dcsim.sweep import run_sweep

    t0 = time.perf_counter()
    res = run_sweep(spec, out, progress=False, **kw)
    wall = time.perf_counter() - t0
    assert res.computed == N_RUNS and res.failed == 0, (res.computed, res.failed)
    return wall, res.mean_run_wall_s


def median_sweeps(spec, root: Path, name: str, repeat: int, **kw) -> tuple[float, float]:
    walls, means = [], []
    for i in range(repeat):
        w, m = timed_sweep(spec, root / f"{name}-{i}", **kw)
        walls.append(w)
        means.append(m)
    return statistics.median(walls), statistics.median(means)


def cli(args: list[str], **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "dcsim.cli", "sweep", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "COLUMNS": "200"}, **kw)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="timed sweeps per configuration (median reported)")
    args = ap.parse_args()

    load_before = os.getloadavg()[0]
    import distributed

    from dcsim.sweep import load_sweep

    # Output beside the project, like dcsim-out/ (on this machine /tmp creates files ~8x slower).
    with tempfile.TemporaryDirectory(dir=ROOT, prefix=".bench_sweep-") as tmp:
        root = Path(tmp)
        f = root / "bench_sweep.toml"
        f.write_text(SWEEP_TOML)
        spec = load_sweep(f)
        timed_sweep(spec, root / "warm", jobs=2)  # page cache, lazy imports

        # 1. local pool: --jobs 1 vs --jobs 2 (alternating, so that machine noise hits both)
        w1s, w2s, m1s, m2s, pars = [], [], [], [], []
        for i in range(args.repeat):
            pars.append(machine_parallelism())
            w, m = timed_sweep(spec, root / f"j1-{i}", jobs=1)
            w1s.append(w), m1s.append(m)
            w, m = timed_sweep(spec, root / f"j2-{i}", jobs=2)
            w2s.append(w), m2s.append(m)
        w1, w2 = min(w1s), min(w2s)
        m1, m2 = m1s[w1s.index(w1)], m2s[w2s.index(w2)]
        ratios = [a / b for a, b in zip(w1s, w2s)]

        # 2. Dask: a running LocalCluster of 2 single-threaded worker processes
        t0 = time.perf_counter()
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                           silence_logs=logging.ERROR)
        start_s = time.perf_counter() - t0
        try:
            timed_sweep(spec, root / "dask-warm", dask=cluster.scheduler_address)
            wd, md = median_sweeps(spec, root, "dask", args.repeat, dask=cluster.scheduler_address)
        finally:
            cluster.close()

        # 3. resume the finished sweep in a fresh process (interpreter and imports included)
        done = root / "j2-0"
        resume = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            p = cli([str(f), "--out", str(done)])
            out, err = p.communicate(timeout=60)
            resume.append(time.perf_counter() - t0)
            assert p.returncode == 0 and f"{N_RUNS} runs: 0 computed, {N_RUNS} cached" in out, (out, err)
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, "-c", "import dcsim.cli"], capture_output=True)
        import_s = time.perf_counter() - t0

        # 4. Ctrl-C while runs are in flight
        stops = []
        for i in range(args.repeat):
            out_dir = root / f"int-{i}"
            p = cli([str(f), "--out", str(out_dir), "--jobs", "2"], start_new_session=True)
            t_end = time.monotonic() + 60
            while len(list(out_dir.glob("runs/*/row.json"))) < 4 and time.monotonic() < t_end:
                time.sleep(0.005)
            t0 = time.perf_counter()
            os.killpg(p.pid, signal.SIGINT)
            p.communicate(timeout=30)
            stops.append(time.perf_counter() - t0)
            assert p.returncode == 130, p.returncode

    ms = lambda s: f"{1e3 * s:.1f} ms"  # noqa: E731
    over = lambda wall, mean, workers: wall * workers / N_RUNS - mean  # noqa: E731
    rows = [
        ("machine parallelism now (2.0 = two free cores)", f"{statistics.median(pars):.2f} (min {min(pars):.2f}, max {max(pars):.2f})", ""),
        ("local pool --jobs 1: wall, 64 runs (best)", f"{w1:.2f} s (mean run {ms(m1)})", ""),
        ("local pool --jobs 2: wall, 64 runs (best)", f"{w2:.2f} s (mean run {ms(m2)})", ""),
        ("speed-up --jobs 2 / --jobs 1 (best / best)", f"{w1 / w2:.2f} x", ">= 1.8 x"),
        ("speed-up, median of the pairs", f"{statistics.median(ratios):.2f} x (pairs: {', '.join(f'{r:.2f}' for r in ratios)})", ""),
        ("overhead per run, local pool --jobs 1", ms(over(w1, m1, 1)), ""),
        ("overhead per run, local pool --jobs 2", ms(over(w2, m2, 2)), ""),
        ("Dask LocalCluster (2 workers): wall, 64 runs (median)", f"{wd:.2f} s (mean run {ms(md)})", ""),
        ("overhead per run, Dask", ms(over(wd, md, 2)), "< 50 ms"),
        ("start of a LocalCluster (once per --dask local)", f"{start_s:.2f} s", ""),
        ("resume finished 64-run sweep, `dcsim sweep` process", f"{statistics.median(resume):.2f} s (max {max(resume):.2f} s)", "< 2 s"),
        ("  of which `import dcsim.cli` in a fresh process", f"{import_s:.2f} s", ""),
        ("Ctrl-C to exit, runs in flight", f"{statistics.median(stops):.2f} s (max {max(stops):.2f} s)", "~1 s"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"sweep benchmark: {N_RUNS} runs of 50 ms DCTCP dumbbells (N = 10, 10 Gbps, 100 us), tables on; "
          f"{args.repeat} repeats; {os.cpu_count()} cores; load average before: {load_before:.2f}")
    for name, value, goal in rows:
        print(f"  {name:<{width}}  {value:<28} {('goal ' + goal) if goal else ''}")


if __name__ == "__main__":
    main()
