"""L2 (Converged Ethernet) engine benchmark (issue 9; not a test).

The DSM paper's single-bottleneck setting: 5 rate sources S_i -> R_i through a two-switch chain,
1000 B frames, 128 KB drop-tail buffer, a 300 us feedback loop, every source starting at line
rate. One simulated second at 10 Gbps is about 1.25 M frames through the bottleneck (goal:
< 0.3 s wall), at 100 Gbps about 12.5 M (goal: < 3 s). A 5 s run checks that memory stays
bounded (peak RSS of the 5 s run against the 1 s run, same process kind).

The engine is driven directly through ``dcsim._core`` with an engine spec (the scenario layer is
not timed). Each case runs in a fresh process; the best and the median of --repeat runs are
printed, with events/s and frames/s.

Run: python benchmarks/bench_l2.py [--repeat 3] [--scheme dsm|qcn|smcc]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
from dcsim.simulate import engine
spec = json.loads(sys.argv[1])
core = engine()
t0 = time.perf_counter()
sim = core.Simulation(json.dumps(spec))
while not sim.run_until(int(sim.duration_ps), 1 << 22):
    pass
raw = sim.results()
wall = time.perf_counter() - t0
ports = raw["ports"]
b = list(ports["monitored"]).index(True)
print(json.dumps(dict(wall_s=wall, events=int(raw["counters"]["events"][0]),
                      frames=int(ports["tx_pkts"][b]), util=float(ports["utilization"][b]),
                      peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)))
"""

US = 1_000_000


def spec(rate_bps: int, scheme: str, duration_s: float, loop_us: float = 300.0) -> dict:
    hosts = [{"name": f"S{i}", "at": "C1"} for i in range(1, 6)] + [{"name": f"R{i}", "at": "C2"} for i in range(1, 6)]
    # Loop = frame serialisation + 2 x 1 us host link + feedback serialisation + latency.
    base_ps = 1000 * 8 * 10**12 // rate_bps + 2 * US + 64 * 8 * 10**12 // rate_bps
    return {
        "seed": 1,
        "duration_ps": int(duration_s * 1e12),
        "warmup_ps": int(duration_s * 1e12) // 10,
        "packet_bytes": 1000,
        "header_bytes": 40,
        "topology": {"kind": "parking_lot", "switches": 2, "rate_bps": rate_bps, "delay_ps": US,
                     "host_rate_bps": rate_bps, "host_delay_ps": US, "hosts": hosts,
                     "queue": {"capacity": {"bytes": 128_000}, "aqm": {"kind": "drop_tail"}}},
        "flows": [],
        "l2": {"scheme": {"kind": scheme}, "frame_bytes": 1000,
               "feedback_latency": {"kind": "fixed", "ps": int(loop_us * US) - base_ps},
               "sources": [{"src": f"S{i}", "dst": f"R{i}"} for i in range(1, 6)],
               "rate_interval_ps": 100 * US},
    }


def measure(s: dict, repeat: int) -> list[dict]:
    out = []
    for _ in range(repeat):
        p = subprocess.run([sys.executable, "-c", CHILD, json.dumps(s)], capture_output=True, text=True, check=True)
        out.append(json.loads(p.stdout))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scheme", default="dsm", choices=["dsm", "qcn", "smcc"])
    a = ap.parse_args()
    cases = [("10 Gbps, 1 s", 10**10, 1.0, 0.3), ("100 Gbps, 1 s", 10**11, 1.0, 3.0), ("10 Gbps, 5 s", 10**10, 5.0, None)]
    print(f"scheme {a.scheme}, 5 sources, 1000 B frames, 128 KB buffer, 300 us loop; {a.repeat} runs each")
    print(f"{'case':<16}{'wall best':>11}{'median':>9}{'goal':>8}{'events/s':>12}{'frames/s':>12}{'util':>8}{'peak RSS':>10}")
    for name, rate, dur, goal in cases:
        rs = measure(spec(rate, a.scheme, dur), a.repeat)
        walls = [r["wall_s"] for r in rs]
        best = min(rs, key=lambda r: r["wall_s"])
        g = f"< {goal} s" if goal else "bounded"
        print(f"{name:<16}{min(walls):>10.3f}s{statistics.median(walls):>8.3f}s{g:>8}"
              f"{best['events'] / best['wall_s']:>12.3g}{best['frames'] / best['wall_s']:>12.3g}"
              f"{best['util']:>8.3f}{best['peak_rss_mb']:>8.0f} MB")


if __name__ == "__main__":
    main()
