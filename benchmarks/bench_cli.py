"""`dcsim` command latency (issue 12, section 5; not a test): whole-process wall time of

* ``python -c pass`` (the interpreter's own start-up, the baseline of this run),
* ``dcsim --version`` and ``dcsim --help`` (goal < 0.3 s),
* ``dcsim run examples/dctcp_dumbbell.toml`` with plots (goal < 0.6 s; drawn in the background,
  so this is the time until the command returns) and with ``--no-plots`` (goal < 0.35 s),
* ``plots complete (background)``: from the start of that command until ``plots.json`` appears
  (each run waits for it, and for the plotter's process to end, untimed, before the next command
  starts, so that no plotter competes with the next measurement),
* ``dcsim run --wait-plots`` (the plots drawn and waited for, the behaviour before issue 12),

each the median of ``--repeat`` runs (after one warm-up run each), printed in seconds and as a
ratio to the baseline measured in the same run, with the machine's load average (the goals are
for an otherwise idle machine; on 2 cores, other work shows directly in these numbers). Also
checks what ``import dcsim.cli`` loads: matplotlib, pandas and pyarrow must not be among it.

Nearly all of a run's time before and after the engine is Python executing library code (typer,
rich, pydantic), so it scales with the interpreter's own speed, which depends on how it was
built: on one machine, pyenv's default build of CPython 3.11 (no profile-guided optimisation)
took 1.29 x as long as Debian's python3.11 for the same pure-Python loop, and `dcsim run` took
0.65 s against 0.51 s. The benchmark therefore names the interpreter and times such a loop
(``interpreter loop``, best of 5, in a process of its own) in the same run, so that figures from
different interpreters or machines can be compared.

The package's bytecode is compiled first (``compileall``), as ``pip install`` does for an
installed wheel: an editable install run with PYTHONDONTWRITEBYTECODE would otherwise compile
dcsim's sources on every start.

Run: python benchmarks/bench_cli.py [--repeat 7] [--json]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "examples" / "dctcp_dumbbell.toml"
BACKGROUND = "plots complete (background)"
GOALS_S = {"dcsim --version": 0.3, "dcsim --help": 0.3, "dcsim run (plots)": 0.6, "dcsim run --no-plots": 0.35}
HEAVY = ("matplotlib", "pandas", "pyarrow")


def wall_s(cmd: list[str], cwd: Path, plots_json: Path | None = None) -> tuple[float, float | None]:
    """Wall time of ``cmd``, and (``plots_json``) the time from its start until that file appears."""
    others = plotters()  # another job's background plotters are not this command's (a review)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    t = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr.decode()[-500:]}")
    if plots_json is None:
        return t, None
    while not plots_json.exists():
        if time.perf_counter() - t0 > 60:
            raise SystemExit(f"{plots_json} did not appear within 60 s")
        time.sleep(0.002)
    if json.loads(plots_json.read_text())["errors"]:
        raise SystemExit(f"background plots failed: {plots_json.read_text()}")
    done = time.perf_counter() - t0
    # The plotter still exits (its interpreter's teardown) after writing plots.json: wait for it,
    # or it competes with the next command (2 cores) and the --no-plots figure measured it too.
    while plotters() - others:
        if time.perf_counter() - t0 > 60:
            raise SystemExit("the background plotter did not exit within 60 s")
        time.sleep(0.002)
    return t, done


#: A fixed pure-Python workload (dict updates in a loop, 10^6 iterations): the interpreter's own
#: speed, apart from any library. Prints its best time of 5 in seconds, then whether the process
#: runs the interpreter from a shared libpython (Linux: its memory map; "?" elsewhere).
INTERPRETER_LOOP = """
import time
def work():
    d = {}
    for i in range(1_000_000):
        d[i & 1023] = d.get(i & 1023, 0) + i
    return d
best = float("inf")
for _ in range(5):
    t0 = time.perf_counter()
    work()
    best = min(best, time.perf_counter() - t0)
try:
    with open("/proc/self/maps") as maps:
        shared = "yes" if "libpython" in maps.read() else "no"
except OSError:
    shared = "?"
print(best, shared)
"""


def interpreter() -> dict:
    """The interpreter running this benchmark (and the `dcsim` script beside it): its version,
    prefix, whether it runs from a shared libpython (as pyenv's default build does; calls into
    a shared library cost more), and the time of :data:`INTERPRETER_LOOP`."""
    import platform

    loop, shared = subprocess.run([sys.executable, "-c", INTERPRETER_LOOP], capture_output=True, text=True,
                                  check=True).stdout.split()
    return {"implementation": platform.python_implementation(), "version": platform.python_version(),
            "executable": sys.executable, "base_prefix": sys.base_prefix,
            "shared_libpython": {"yes": True, "no": False}.get(shared), "loop_s": float(loop)}


def plotters() -> set[str]:
    """The process ids of the background plotters running (command line with --dcsim-run-id=;
    Linux: /proc)."""
    found = set()
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if b"--dcsim-run-id=" in cmdline.read_bytes():
                found.add(cmdline.parent.name)
        except OSError:  # ended meanwhile
            continue
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = ap.parse_args()
    import dcsim

    compileall.compile_dir(str(Path(dcsim.__file__).parent), quiet=1)
    py = sys.executable
    # The console script pip installed (dcsim.cli:entry, which skips the interpreter's module
    # teardown), so that this times the command users run, not `main()` through `python -c`.
    script = Path(py).with_name("dcsim")
    if not script.is_file():
        raise SystemExit(f"{script} not found: install the project into this interpreter's environment "
                         "(pip install -e .) before timing its command")
    dcsim_cmd = [str(script)]
    work = Path(tempfile.mkdtemp(prefix="bench-cli-"))
    cases = {
        "python -c pass": [py, "-c", "pass"],
        "dcsim --version": [*dcsim_cmd, "--version"],
        "dcsim --help": [*dcsim_cmd, "--help"],
        "dcsim run (plots)": [*dcsim_cmd, "run", str(DEMO), "--out", str(work / "plots")],
        "dcsim run --no-plots": [*dcsim_cmd, "run", str(DEMO), "--no-plots", "--out", str(work / "noplots")],
        "dcsim run --wait-plots": [*dcsim_cmd, "run", str(DEMO), "--wait-plots", "--out", str(work / "wait")],
    }
    plots_json = {"dcsim run (plots)": work / "plots" / "plots.json"}
    try:
        times: dict[str, list[float]] = {k: [] for k in [*cases, BACKGROUND]}
        for k, cmd in cases.items():
            wall_s(cmd, work, plots_json.get(k))  # warm-up: file cache, font cache
        for _ in range(args.repeat):  # interleaved, so that a burst of load hits every case alike
            for k, cmd in cases.items():
                t, t_plots = wall_s(cmd, work, plots_json.get(k))
                times[k].append(t)
                if t_plots is not None:
                    times[BACKGROUND].append(t_plots)
        loaded = subprocess.run([py, "-c", "import sys, dcsim.cli; print(' '.join(m for m in %r if m in sys.modules))"
                                 % (HEAVY,)], capture_output=True, text=True, check=True).stdout.split()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    interp = interpreter()
    base = statistics.median(times["python -c pass"])
    rows = {k: {"median_s": statistics.median(v), "min_s": min(v), "ratio_to_python": statistics.median(v) / base,
                "goal_s": GOALS_S.get(k)} for k, v in times.items()}
    out = {"load_average": os.getloadavg(), "cpus": os.cpu_count(), "repeat": args.repeat, "interpreter": interp,
           "cases": rows, "import_dcsim_cli_loads": loaded}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"load average {out['load_average'][0]:.2f} on {out['cpus']} CPUs; medians of {args.repeat} runs")
    print(f"interpreter: {interp['implementation']} {interp['version']} ({interp['base_prefix']}; libpython "
          f"{ {True: 'shared', False: 'linked in', None: '?'}[interp['shared_libpython']]}); interpreter loop {interp['loop_s'] * 1e3:.0f} ms")
    print(f"{'case':<28}{'median s':>10}{'min s':>9}{'x python':>10}{'goal s':>8}  met")
    for k, r in rows.items():
        goal = r["goal_s"]
        met = "" if goal is None else ("yes" if r["median_s"] < goal else "NO")
        print(f"{k:<28}{r['median_s']:>10.3f}{r['min_s']:>9.3f}{r['ratio_to_python']:>10.1f}"
              f"{'' if goal is None else f'{goal:.2f}':>8}  {met}")
    print("import dcsim.cli loads: " + (", ".join(loaded) if loaded else f"none of {', '.join(HEAVY)}"))


if __name__ == "__main__":
    main()
