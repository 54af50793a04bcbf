"""Coexistence benchmark (issue 8; not a test).

1. One run at 1 Gbps: the coexistence paper's tree (1 Gbps bottleneck, 10 Gbps elsewhere, 250 us
   RTT, 250-packet buffers, modified CHOKe), 2 long-lived flows (DCTCP, TCP) plus Poisson short
   flows (20 % of the bottleneck, uniform 10-50 KB, half DCTCP, half TCP). Reports simulated
   seconds per wall second, events per second, flows generated, the most flows holding transport
   state at once and the peak memory, through ``dcsim.simulate`` in a fresh process. Then the same
   with the web-search CDF at 40 % load (heavy-tailed: a few flows of tens of MB).
2. ``--experiments``: each of ``coexist-fig2`` .. ``coexist-fig8`` through ``dcsim reproduce``
   (independent runs in parallel on the local cores), wall time each. Goal: < 3 min each on this
   2-core machine.

Run: python benchmarks/bench_coexist.py [--duration 10] [--experiments]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time

SCENARIO = """
[network]
topology = "tree"
hosts = [2, 1]
host_link = "10Gbps"
bottleneck = "1Gbps"
rtt = "250us"
buffer = "250pkt"
aqm = {{ kind = "modified_choke", min_th = "40pkt", max_th = "100pkt", max_p = 0.1, w_q = 0.002 }}

[[flows]]
protocol = "dctcp"
src = "h0"
dst = "h2"

[[flows]]
protocol = "newreno"
ecn = true
src = "h1"
dst = "h2"

[[workloads]]
kind = "poisson"
load = {load}
sizes = {sizes}
mix = [{{ protocol = "dctcp", share = 0.5, init_cwnd = 2 }}, {{ protocol = "newreno", ecn = true, share = 0.5, init_cwnd = 2 }}]

[run]
duration = "{duration}s"
warmup = "0s"
seed = 1

[metrics]
queue_interval = "1ms"
throughput_interval = "10ms"
cwnd_interval = "1ms"
"""

CHILD = r"""
import json, resource, sys, time
import dcsim, dcsim.result
from dcsim.simulate import EVENTS_PER_CALL, engine
sc = dcsim.Scenario.from_toml_str(sys.argv[1])
core = engine()
spec = sc.check_resources()
sim = core.Simulation(json.dumps(spec))
end, most, t0 = int(sim.duration_ps), 0, time.perf_counter()
for k in range(1, 201):          # 200 steps: sample how many flows hold state
    while not sim.run_until(end * k // 200, EVENTS_PER_CALL):
        pass
    most = max(most, int(sim.active_flows()))
wall = time.perf_counter() - t0
c = sim.counters()
tables = sim.results()
print(json.dumps(dict(wall_s=wall, events=int(c["events"]), sent_pkts=int(c["sent_pkts"]),
                      flows=len(tables["flows"]["flow"]), most_active=most,
                      peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)))
"""


def one(duration: float, load: float, sizes: str, label: str) -> None:
    sc = SCENARIO.format(duration=duration, load=load, sizes=sizes)
    r = json.loads(subprocess.run([sys.executable, "-c", CHILD, sc], check=True, capture_output=True, text=True).stdout)
    print(f"{label}: {duration:g} simulated s in {r['wall_s']:.3f} s wall = {duration / r['wall_s']:.1f} simulated s "
          f"per wall s; {r['events'] / r['wall_s']:.3g} events/s; {r['flows']} flows ({r['flows'] - 2} generated), "
          f"at most {r['most_active']} with transport state at once; peak {r['peak_rss_mb']:.0f} MB "
          "(interpreter + numpy included)")


def experiments() -> None:
    with tempfile.TemporaryDirectory() as out:
        for f in range(2, 9):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "dcsim.cli", "reproduce", f"coexist-fig{f}", "--out", out],
                           check=True, capture_output=True)
            print(f"coexist-fig{f}: {time.perf_counter() - t0:.1f} s wall (goal < 180 s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=float, default=10.0, help="simulated seconds per run (default 10)")
    ap.add_argument("--experiments", action="store_true", help="also time coexist-fig2 .. fig8")
    a = ap.parse_args()
    one(a.duration, 0.2, '{ kind = "uniform", min = "10KB", max = "50KB" }', "2 long flows + Poisson 20 %, 10-50 KB")
    one(a.duration, 0.4, '{ kind = "cdf", name = "web_search" }', "2 long flows + Poisson 40 %, web search")
    if a.experiments:
        experiments()


if __name__ == "__main__":
    main()
