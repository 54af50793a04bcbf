"""Spread of dctcp-fig12's convergence time over the join phase of flow 2 (the measurement behind
CONV_SPREAD_SD and tol_conv in dcsim/experiments/dctcp_convergence_fairness.py). Usage: python benchmarks/fig12_join_phase_spread.py quick|full

Flow 2 joins at T2 + k 0.25 ms, k = 0..7; the convergence time is the module's: the first window
sample from which both windows are within 10 % of the fair share W* = W_max / 2. Also alpha's (the
first sample from which both alphas are within 10 % of alpha* (23)) and the ratio window / alpha
time of the "alpha converges about k x faster" rows, whose relative sd is RATIO_SPREAD_SD.
"""
import argparse
import math

import numpy as np

import dcsim
from dcsim.experiments import dctcp_convergence_fairness as m

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("mode", choices=("quick", "full"), help="the join horizon of dctcp-fig12's --quick or full run")
quick = ap.parse_args().mode == "quick"  # (any word had run the full measurement, --help too: a review)
d_eff = m.base_rtt_s(m.D12_S)
W_max = m.C_PPS * d_eff + m.K12
W_star = W_max / 2
T2, horizon = m.FIG12_JOIN_HORIZON_S_QUICK if quick else m.FIG12_JOIN_HORIZON_S
us = m.time_str
for gname in ("1/sqrt(W_max)", "5/W_max", "1/W_max"):
    g = {"1/sqrt(W_max)": 1 / math.sqrt(W_max), "5/W_max": 5 / W_max, "1/W_max": 1 / W_max}[gname]
    ts, ta = [], []
    a_star = m.th.alpha_star(W_star, g)
    for k in range(8):  # join phases spread over 2 ms (a few sawtooth periods of flow 1 alone)
        t2 = T2 + k * 0.25e-3
        sc = dict(network=dict(topology="dumbbell", senders=2, bottleneck="10Gbps", access=m.ACCESS12, rtt=us(m.D12_S),
                               buffer="1000pkt", aqm=dict(kind="threshold", K=f"{m.K12}pkt")),
                  flows=[dict(count=1, protocol="dctcp", g=g, alpha_init=0.0, senders=[0]),
                         dict(count=1, protocol="dctcp", g=g, alpha_init=1.0, init_cwnd=1, start=us(t2), senders=[1])],
                  run=dict(duration=us(t2 + horizon), warmup=us(t2)),
                  metrics=dict(queue_interval="100us", cwnd_interval="50us", throughput_interval="5ms"))
        c = dcsim.simulate(sc).cwnd
        pw = c.pivot_table(index="t_s", columns="flow", values="cwnd_pkt")
        pw = pw[pw.index >= t2].dropna()
        pa = c.pivot_table(index="t_s", columns="flow", values="alpha").reindex(pw.index)
        t = pw.index.to_numpy() - t2
        tw = m._first_time(t, np.all(np.abs(pw.to_numpy() - W_star) <= 0.1 * W_star, axis=1))
        t_alpha = m._first_time(t, np.all(np.abs(pa.to_numpy() - a_star) <= 0.1 * a_star, axis=1))
        ts.append(tw)
        ta.append(t_alpha)
        print(gname, f"join {1e3*t2:.2f} ms: windows {1e3*tw:.2f} ms, alpha {1e3*t_alpha:.2f} ms", flush=True)
    a = np.array(ts)
    print(f"{gname}: convergence time over the 8 join phases: mean {1e3 * a.mean():.3f} ms, sd {1e3 * a.std(ddof=1):.3f} ms "
          f"(relative {a.std(ddof=1) / a.mean():.3f}), min {1e3 * a.min():.3f} ms, max {1e3 * a.max():.3f} ms")
    r = a / np.array(ta)
    print(f"{gname}: window / alpha time over the 8 join phases: mean {r.mean():.3f}, sd {r.std(ddof=1):.3f} "
          f"(relative {r.std(ddof=1) / r.mean():.3f}), min {r.min():.3f}, max {r.max():.3f}")
