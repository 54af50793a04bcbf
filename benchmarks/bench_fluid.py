"""Wall time of the Rust DDE integrator on the normalized DCTCP model (eqs. 11-14).

Prints, with a baseline run in the same process:
* one run (w̄ = 10, g = 1/16, 200 R*, dt = 1e-3 R*) against scipy DOP853 + method of steps
  (dcsim.reference.dctcp_normalized, the independent reference of the tests) over the same horizon;
* the dctcp-fig7 workload (3 values of g x 40 values of w̄) and a 30 x 30 dctcp-fig6 grid as
  batches (rayon, all cores) against the same runs one by one (goals of issue 3: < 10 s, < 30 s).

Run: python benchmarks/bench_fluid.py [--t-end 200] [--dt 1e-3]. Never a timed assertion.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from dcsim import fluid, reference


def _timed(f, repeat=1):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--t-end", type=float, default=200.0, help="horizon, units of R* (default 200)")
    ap.add_argument("--dt", type=float, default=1e-3, help="step, units of R* (default 1e-3)")
    a = ap.parse_args()
    T, dt = a.t_end, a.dt
    print(f"cores: {os.cpu_count()}, horizon {T:g} R*, dt {dt:g} R* ({T / dt:.0f} steps per run)")

    wbar, g = 10.0, 1 / 16
    t_one, df = _timed(lambda: fluid.dctcp_normalized(wbar, g, t_end=T, dt=dt, sample_dt=0.1), repeat=3)
    t_ref, ref = _timed(lambda: reference.dctcp_normalized(wbar, g, fluid.default_normalized_init(wbar), T,
                                                           rtol=1e-10, atol=1e-12))
    err = max(abs(df.q.iloc[i] - ref(df.t.iloc[i])[2]) for i in range(0, len(df), 50))
    print(f"single run   dcsim RK4: {t_one * 1e3:8.1f} ms | scipy DOP853 method of steps: {t_ref * 1e3:8.1f} ms "
          f"| ratio scipy/dcsim = {t_ref / t_one:.2f} | max |q~ diff| = {err:.1e}")

    defaults = (T, dt) == (200.0, 1e-3)  # the horizon and step the goals are stated for
    for name, gs, ws, goal_s in (
        ("dctcp-fig7 (3 g x 40 wbar)", np.array([0.01, 0.05, 0.1]), np.geomspace(2.5, 1000, 40), 10.0),
        ("dctcp-fig6 (30 x 30 grid)", np.geomspace(1e-3, 1.0, 30), np.geomspace(2.01, 1000, 30), 30.0),
    ):
        G, W = np.meshgrid(gs, ws, indexing="ij")
        G, W = G.ravel(), W.ravel()
        t_batch, runs = _timed(lambda: fluid.dctcp_normalized_batch(W, G, t_end=T, dt=dt, sample_dt=0.1, t_from=T / 2))
        n_serial = min(len(W), 12)
        t_ser, _ = _timed(lambda: [fluid.dctcp_normalized(W[i], G[i], t_end=T, dt=dt, sample_dt=0.1, t_from=T / 2)
                                   for i in range(n_serial)])
        t_ser_all = t_ser / n_serial * len(W)
        print(f"{name:28s}: batch {t_batch:7.2f} s for {len(W)} runs ({t_batch / len(W) * 1e3:.1f} ms/run) "
              f"| one by one (extrapolated from {n_serial}) {t_ser_all:7.2f} s | speedup {t_ser_all / t_batch:.2f}x | "
              + (f"goal < {goal_s:g} s: {'met' if t_batch < goal_s else 'NOT met'}" if defaults
                 else f"goal < {goal_s:g} s at --t-end 200 --dt 1e-3: not judged"))


if __name__ == "__main__":
    main()
