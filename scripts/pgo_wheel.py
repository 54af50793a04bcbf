#!/usr/bin/env python3
"""Build a profile-guided (PGO) wheel of dcsim: the same code and the same results, a faster engine.

    python scripts/pgo_wheel.py            # -> target/wheels/dcsim-*.whl
    pip install --force-reinstall target/wheels/dcsim-*.whl

Three steps, as the rustc book's PGO chapter describes them: build the extension with
``-Cprofile-generate``, run a training workload through it (dcsim.simulate on the example
scenarios: dumbbells with DCTCP, NewReno, RED and DX, a fabric with a workload, an L2 run, and a
1 000-flow dumbbell), merge the profile with the ``llvm-profdata`` of this rustc's LLVM, and build
again with ``-Cprofile-use``. On the project's 2-core machine this takes ~6 minutes; the engine is
14-17 % faster than `pip install .`'s (benchmarks/MEASUREMENTS.md, 2026-12-01). A profile applies
only to the build it was trained on (the same rustc, the same crate graph), which is why
`pip install .` does not do this itself: it would build twice, with LLVM tools a plain Rust
install lacks.

Needs: Rust with ``rustup component add llvm-tools``, pip, and network access to PyPI for the
build backend (maturin), as `pip install .` does.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: What the instrumented build runs: every engine path the examples take, at sizes that keep the
#: training under a minute. Only which branches and calls are hot matters, not the results.
TRAINING = r"""
import sys, warnings
warnings.simplefilter("ignore")
import dcsim
from dcsim.scenario import Scenario
root = sys.argv[1]
runs = [
    ("dctcp_dumbbell.toml", "1s"), ("newreno_droptail.toml", None), ("red.toml", None),
    ("dx_special_state.toml", None), ("leaf_spine.toml", "10ms"), ("fat_tree.toml", "20ms"),
    ("dsm_dumbbell.toml", None), ("incast.toml", None), ("permutation.toml", "20ms"),
]
for name, duration in runs:
    sc = Scenario.from_toml(f"{root}/examples/{name}", {"run.duration": duration} if duration else None)
    dcsim.simulate(sc)
    print("  trained on", name, flush=True)
# The large case: the demo with 1 000 flows (benchmarks/bench_engine.py's scaling runs).
many = {"network.senders": 1000, "flows[0].count": 1000}
dcsim.simulate(Scenario.from_toml(f"{root}/examples/dctcp_dumbbell.toml", many))
print("  trained on a 1 000-flow dumbbell", flush=True)
"""


def fail(msg: str) -> None:
    print(f"error: {msg}", file=sys.stderr)
    sys.exit(1)


def llvm_profdata() -> Path:
    """The llvm-profdata of the rustc that builds the wheel (its LLVM writes the raw profiles)."""
    try:
        sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True, check=True).stdout.strip()
        host = next(line.split(": ", 1)[1] for line in subprocess.run(
            ["rustc", "-vV"], capture_output=True, text=True, check=True).stdout.splitlines() if line.startswith("host: "))
    except (OSError, subprocess.CalledProcessError, StopIteration) as e:
        fail(f"cannot ask rustc for its sysroot ({e}); install Rust: https://rustup.rs")
    tool = Path(sysroot) / "lib" / "rustlib" / host / "bin" / "llvm-profdata"
    if not tool.exists():
        fail(f"{tool} is missing: this rustc's LLVM tools are not installed; run: rustup component add llvm-tools")
    return tool


def build_wheel(out: Path, rustflags: str) -> Path:
    """`pip wheel .` (maturin, release) with these RUSTFLAGS; the wheel's path."""
    env = {**os.environ, "RUSTFLAGS": (os.environ.get("RUSTFLAGS", "") + " " + rustflags).strip()}
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)], env=env, check=True)
    wheels = sorted(glob.glob(str(out / "dcsim-*.whl")))
    if len(wheels) != 1:
        fail(f"expected one dcsim wheel in {out}, found {wheels}")
    print(f"  built {Path(wheels[0]).name} in {time.perf_counter() - t0:.0f} s ({rustflags})", flush=True)
    return Path(wheels[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "target" / "wheels", help="where the PGO wheel goes (default: target/wheels)")
    args = ap.parse_args()
    profdata = llvm_profdata()
    with tempfile.TemporaryDirectory(prefix="dcsim-pgo-") as tmp:
        tmp = Path(tmp)
        raw = tmp / "raw"
        print("1/3 the instrumented build", flush=True)
        gen = build_wheel(tmp / "gen", f"-Cprofile-generate={raw}")
        site = tmp / "site"
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(gen)], check=True)
        print("2/3 training (dcsim.simulate on the example scenarios)", flush=True)
        env = {**os.environ, "PYTHONPATH": str(site) + os.pathsep + os.environ.get("PYTHONPATH", ""), "MPLBACKEND": "Agg"}
        subprocess.run([sys.executable, "-c", TRAINING, str(ROOT)], env=env, check=True, cwd=tmp)
        profiles = list(raw.glob("*.profraw"))
        if not profiles:
            fail(f"the training wrote no profile into {raw}")
        merged = tmp / "dcsim.profdata"
        subprocess.run([str(profdata), "merge", "-o", str(merged), *map(str, profiles)], check=True)
        print(f"3/3 the build with the profile ({len(profiles)} raw profiles merged)", flush=True)
        final = build_wheel(tmp / "use", f"-Cprofile-use={merged}")
        args.out.mkdir(parents=True, exist_ok=True)
        dest = args.out / final.name
        shutil.copy2(final, dest)
    print(f"wheel: {dest}\ninstall it with: pip install --force-reinstall {dest}")


if __name__ == "__main__":
    main()
