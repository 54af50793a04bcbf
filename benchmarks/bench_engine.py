"""Packet-engine benchmark (issue 2; not a test): one simulated second of DCTCP, N = 10,
10 Gbps bottleneck, 40 Gbps access links, 100 us RTT, K = 65 pkt, g = 1/16.

Runs, on this machine and in this run:
1. the Rust engine alone (`cargo run --release --example bench_engine`), which also times a
   same-machine baseline: a bare binary-heap event loop with the same number of events;
2. the same scenario through the Python package (`dcsim.simulate`), in a fresh process so that its
   peak memory is its own.

Prints wall time, events per second, simulated packets per wall second and peak memory, and the
ratios engine / bare heap loop and Python API / engine. Goals: < 0.4 s wall, < 50 MB.

Run: python benchmarks/bench_engine.py [--duration 1.0]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCENARIO = """
[network]
topology = "dumbbell"
senders = 10
bottleneck = "10Gbps"
access = "40Gbps"
rtt = "100us"
buffer = "1000pkt"
aqm = {{ kind = "threshold", K = "65pkt" }}
[[flows]]
count = 10
protocol = "dctcp"
g = 0.0625
{extra}
[run]
duration = "{duration}s"
warmup = "0s"
seed = 1
"""

CHILD = r"""
import json, resource, sys, time
import dcsim, dcsim.result  # imports (pandas, pyarrow) outside the timed part
sc = dcsim.Scenario.from_toml_str(sys.argv[1])
t0 = time.perf_counter()
r = dcsim.simulate(sc)
wall = time.perf_counter() - t0
c = r.counters.iloc[0]
print(json.dumps(dict(wall_s=wall, events=int(c.events), sent_pkts=int(c.sent_pkts),
                      peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)))
"""


def engine(duration: float) -> dict:
    out = subprocess.run(
        ["cargo", "run", "--quiet", "--release", "-p", "dcsim-core", "--example", "bench_engine", "--", str(duration)],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout
    print(out.rstrip())
    return {k: float(v) for k, v in (line.split("=", 1) for line in out.splitlines() if "=" in line and ":" not in line)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=float, default=1.0, help="simulated seconds (default 1)")
    a = ap.parse_args()
    print("== Rust engine ==")
    e = engine(a.duration)
    print("== Python API (dcsim.simulate, fresh process) ==")
    py = json.loads(subprocess.run([sys.executable, "-c", CHILD, SCENARIO.format(duration=a.duration, extra="")],
                                   check=True, capture_output=True, text=True).stdout)
    print(f"wall_s={py['wall_s']:.3f} events={py['events']} peak_rss_mb={py['peak_rss_mb']:.1f} "
          f"(interpreter + numpy + pandas included)")
    print("== summary ==")
    print(f"engine: {e['wall_s']:.3f} s wall for {a.duration:g} simulated s (goal < 0.4 s), "
          f"{e['events_per_s']:.3g} events/s, {e['packets_per_wall_s']:.3g} packets/s, peak {e['peak_rss_mb']:.1f} MB (goal < 50 MB)")
    print(f"ratio engine / bare heap loop of as many events: {e['wall_s'] / e['baseline_bare_heap_s']:.2f}")
    print(f"ratio Python API / engine: {py['wall_s'] / e['wall_s']:.2f}")


if __name__ == "__main__":
    main()
