"""ns-3 against the dcsim engine, on one scenario, on this machine, in this run (issue 12's ns-3
ratio; not a test).

The scenario is `bench_engine.py`'s: one simulated second of DCTCP, N = 10 senders on 40 Gbps
access links, a 10 Gbps bottleneck, RTT 100 us, K = 65 packets, a 1 000-packet buffer, g = 1/16,
an ACK per segment. In ns-3 it is `benchmarks/ns3/dctcp_dumbbell.cc`: point-to-point links,
`TcpDctcp`, a `RedQueueDisc` with MinTh = MaxTh = K and QW = 1 (marking on the instantaneous
queue, as ns-3's own DCTCP example), `BulkSendApplication`s into a `PacketSink`, MSS 1460 B, and
the engine's TCP semantics (its ns2 profile): an ACK per segment (`DelAckCount` 1), no SACK, no
timestamps (ns-3 enables both by default); RED not gentle (marking at K), over a one-packet device
queue, and no queue discipline on the other devices (ns-3 would give each FqCoDel). Each of these
makes ns-3 faster or truer to the scenario: benchmarks/MEASUREMENTS.md has the times without them. It is compiled with g++ -O3 against each ns-3 given and
prints the wall time of `Simulator::Run` alone (no setup); the engine's time includes its setup.

ns-3 builds (any number, each measured):
  --ns3-python PY   the ns-3 of PyPI's `ns3` wheel installed in the environment of interpreter PY
                    (`python -m venv /tmp/ns3venv && /tmp/ns3venv/bin/pip install ns3==3.44.post0`:
                    ns-3 3.44, its release profile with logging and asserts compiled in)
  --ns3-prefix DIR[=NOTE]  an ns-3 with DIR/include/ns3*/ and its libns3*-core*.so in DIR/lib, DIR/lib64 or
                    DIR/lib/x86_64-linux-gnu: Debian's `libns3-dev` (DIR = /usr), or a source tree
                    built with `./ns3 configure --build-profile=optimized ...` (DIR = its build/);
                    NOTE is printed beside it (how it was built, when its files do not say)

Each run of every ns-3 and of the engine is repeated (--repeat, interleaved) and the best of each
is kept. Prints each one's time for the simulated second, its bottleneck goodput (the two must
simulate the same network: both near 9.5-9.7 Gbps), and the ratio ns-3 / engine, twice: against
the engine as `bench_engine.py` runs it (its sampled series: the bottleneck's queue and every
flow's window every 10 us, goodput every 1 ms) and against the engine sampling nothing during the
run, which is the work ns-3's `Simulator::Run` does here (the same simulation: the CE marks must
be equal).

Run: python benchmarks/bench_ns3.py --ns3-python /tmp/ns3venv/bin/python --ns3-prefix /usr [--duration 1] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "benchmarks" / "ns3" / "dctcp_dumbbell.cc"
MODULES = ("core", "network", "internet", "point-to-point", "traffic-control", "applications")

sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_engine import engine  # noqa: E402  (the engine run of bench_engine.py: same scenario)


@dataclass
class Ns3:
    """An ns-3 installation: where its headers and libraries are, and how it was built."""

    label: str
    include: Path
    libdir: Path
    lib_prefix: str  # "ns3.44-" in libns3.44-core.so
    lib_suffix: str  # "-optimized" in libns3.37-core-optimized.so
    defines: list[str] = field(default_factory=list)
    version: str = "?"

    @property
    def profile(self) -> str:
        d = set(self.defines)
        prof = next((x.removeprefix("NS3_BUILD_PROFILE_").lower() for x in d if x.startswith("NS3_BUILD_PROFILE_")),
                    self.lib_suffix.lstrip("-") or "?")
        extras = [w for w, flag in (("logging", "NS3_LOG_ENABLE"), ("asserts", "NS3_ASSERT_ENABLE")) if flag in d]
        return prof + (f" with {' and '.join(extras)} compiled in" if extras else "")


def _find(root: Path, label: str) -> Ns3:
    """The ns-3 whose headers and libraries are under ``root``."""
    libdir = next((d for d in (root / "lib", root / "lib64", root / "lib" / "x86_64-linux-gnu")
                   if list(d.glob("libns3*-core*.so"))), None)
    if libdir is None:
        raise SystemExit(f"{label}: no libns3*-core*.so in {root}/lib, lib64 or lib/x86_64-linux-gnu")
    core = sorted(libdir.glob("libns3*-core*.so"))[0].name
    m = re.fullmatch(r"lib(ns3[.0-9]*-)core(.*)\.so", core)
    if m is None:
        raise SystemExit(f"{label}: cannot read the library naming of {core}")
    include = next((d for d in (root / "include", root.parent / "include") if (d / "ns3" / "core-module.h").exists()), None)
    if include is None:
        raise SystemExit(f"{label}: no include/ns3/core-module.h under {root}")
    defines, version = [], (re.findall(r"ns(3\.[0-9.]+)-", m.group(1)) or ["?"])[0]
    for cmake in [d / "cmake" / "ns3" / "ns3Targets.cmake" for d in (libdir, root / "lib", root / "lib64")]:
        if not cmake.exists():
            continue
        hit = re.search(r'INTERFACE_COMPILE_DEFINITIONS "((?:[^"\\]|\\.)*)"', cmake.read_text())
        if hit:
            defines = [d for d in hit.group(1).split(";") if d.startswith("NS3_")]
            break
    header = include / "ns3" / "version-defines.h"  # a build with --enable-build-version records its profile
    prof = re.search(r'NS3_VERSION_BUILD_PROFILE "(\w+)"', header.read_text()) if header.exists() else None
    if prof and not any(d.startswith("NS3_BUILD_PROFILE_") for d in defines):
        defines.append(f"NS3_BUILD_PROFILE_{prof.group(1).upper()}")
    cfg = list(libdir.glob("cmake/ns3/ns3ConfigVersion.cmake"))
    if cfg:
        v = re.search(r'PACKAGE_VERSION "([^"]+)"', cfg[0].read_text())
        version = v.group(1) if v else version
    if version == "?":  # Debian's patches drop the version from the names: the tree's VERSION, or the soname
        tree, so = root.parent / "VERSION", sorted(libdir.glob(f"{core}.[0-9]*"))  # libns3-core.so.37: 3.37
        if tree.exists():
            version = tree.read_text().strip()
        elif so:
            version = "3." + so[0].name[len(core) + 1:].split(".")[0]
    return Ns3(label, include, libdir, m.group(1), m.group(2), defines, version)


def from_python(python: str) -> Ns3:
    """The ns-3 of PyPI's ``ns3`` wheel in the environment of interpreter ``python``."""
    code = "import sysconfig; print(sysconfig.get_paths()['platlib'])"
    try:
        site = Path(subprocess.run([python, "-c", code], check=True, capture_output=True, text=True).stdout.strip())
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit(f"--ns3-python {python}: not a Python interpreter that runs ({e})") from None
    if not (site / "ns3").is_dir():  # said as "no libns3*-core*.so in .../ns3/lib" before
        raise SystemExit(f"--ns3-python {python}: PyPI's ns3 is not installed in that environment (no {site / 'ns3'}); "
                         f"install it with `{python} -m pip install ns3`")
    return _find(site / "ns3", f"ns-3 wheel ({python})")


def compile_ns3(ns3: Ns3, out: Path) -> Path:
    """dctcp_dumbbell.cc compiled against ``ns3`` (C++20, or C++17 for older ns-3)."""
    libs = [f"-l{ns3.lib_prefix}{m}{ns3.lib_suffix}" for m in MODULES]
    for std in ("c++20", "c++17"):
        cmd = (["g++", "-O3", f"-std={std}", *[f"-D{d}" for d in ns3.defines], f"-I{ns3.include}", str(SOURCE),
                "-o", str(out), f"-L{ns3.libdir}", *libs, f"-Wl,-rpath,{ns3.libdir}"])
        if subprocess.run(cmd, capture_output=True, text=True).returncode == 0:
            return out
    r = subprocess.run(cmd, capture_output=True, text=True)
    raise SystemExit(f"{ns3.label}: compiling {SOURCE.name} failed:\n{r.stderr[-2000:]}")


def run_ns3(binary: Path, duration: float) -> dict:
    out = subprocess.run([str(binary), f"--duration={duration}", "--delack=1"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ns3-python", action="append", default=[], help="interpreter of an environment with PyPI's ns3")
    ap.add_argument("--ns3-prefix", action="append", default=[], help="an ns-3 install or build directory")
    ap.add_argument("--duration", type=float, default=1.0, help="simulated seconds (default 1)")
    ap.add_argument("--repeat", type=int, default=3, help="interleaved runs of each, best kept (default 3)")
    a = ap.parse_args()
    builds = [from_python(p) for p in a.ns3_python]
    for given in a.ns3_prefix:
        path, _, note = given.partition("=")
        b = _find(Path(path), f"ns-3 in {path}")
        b.label += f", {note}" if note else ""
        builds.append(b)
    if not builds:
        raise SystemExit("give at least one ns-3: --ns3-python PY (PyPI's ns3 wheel) or --ns3-prefix DIR (see --help)")
    with tempfile.TemporaryDirectory() as tmp:
        binaries = [compile_ns3(b, Path(tmp) / f"ns3_{i}") for i, b in enumerate(builds)]
        best_engine, best_quiet, best = None, None, [None] * len(builds)
        for r in range(a.repeat):
            e = engine(a.duration, 10, 1, echo=False)
            q = engine(a.duration, 10, 1, echo=False, series="none")
            if best_engine is None or e["wall_s"] < best_engine["wall_s"]:
                best_engine = e
            if best_quiet is None or q["wall_s"] < best_quiet["wall_s"]:
                best_quiet = q
            for i, binary in enumerate(binaries):
                n = run_ns3(binary, a.duration)
                print(f"run {r + 1}/{a.repeat}: dcsim engine {e['wall_s']:.3f} s ({q['wall_s']:.3f} s without series); "
                      f"{builds[i].label}: Simulator::Run {n['run_s']:.2f} s", flush=True)
                if best[i] is None or n["run_s"] < best[i]["run_s"]:
                    best[i] = n
    payload = 10e9 * 1460 / 1500
    print(f"== one simulated second of DCTCP, N = 10, 10 Gbps (x {a.duration:g}), best of {a.repeat} ==")
    print(f"dcsim engine: {best_engine['wall_s'] / a.duration:.3f} s (setup and the sampled series included); "
          f"bottleneck goodput {best_engine['utilization'] * payload / 1e9:.3f} Gbps (utilization "
          f"{best_engine['utilization']:.4f} x 1460/1500 of 10 Gbps), {best_engine['bottleneck_marks']:.0f} CE marks")
    print(f"dcsim engine without series (records nothing while it runs, as ns-3's Simulator::Run here): "
          f"{best_quiet['wall_s'] / a.duration:.3f} s; {best_quiet['bottleneck_marks']:.0f} CE marks")
    if best_quiet["bottleneck_marks"] != best_engine["bottleneck_marks"]:
        raise SystemExit("the engine's runs with and without series simulated different networks (CE marks differ)")
    for b, n in zip(builds, best):
        print(f"ns-3 {b.version} ({b.label}; {b.profile}): Simulator::Run {n['run_s'] / a.duration:.2f} s; "
              f"goodput {n['goodput_bps'] / 1e9:.3f} Gbps (its ceiling: 10 Gbps x 1460/1502 with PPP's 2-byte header "
              f"= 9.720), {n['marks']} CE marks, {n['drops']} drops; "
              f"ratio ns-3 / dcsim engine: {n['run_s'] / best_engine['wall_s']:.0f} x with the engine's series, "
              f"{n['run_s'] / best_quiet['wall_s']:.0f} x without (goal >= 150 x)")


if __name__ == "__main__":
    main()
