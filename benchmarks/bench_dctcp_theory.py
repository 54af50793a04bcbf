"""Benchmark: DCTCP limit-cycle theory (issue 3, "Must show" 5).

* dctcp-fig7 curves: 3 values of g x 40 values of wbar (goal < 10 s on the 2-core machine);
* dctcp-fig6 grid: 30 x 30 (g, wbar) points, limit cycle + rho(Z1 Z2) (goal < 30 s);
* baseline in the same process: the same limit cycle (wbar = 10, g = 1/16, 400 R*) by the scipy
  solve_ivp method-of-steps reference (dcsim.reference.dctcp_normalized) vs the Rust integrator.

Run: python benchmarks/bench_dctcp_theory.py   (prints the numbers; no assertions)
"""

from __future__ import annotations

import time

import numpy as np

from dcsim import fluid, reference
from dcsim.experiments.dctcp_analysis import fig6_grid, fig7_curves
from dcsim.theory import dctcp as th


def main() -> None:
    import argparse

    # no options; --help explains, where it had run the whole 23 s benchmark (a review)
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    wbar, g, t_end = 10.0, 1 / 16, 400.0
    t0 = time.perf_counter()
    t, W, a, q = reference.dctcp_normalized(wbar, g, [wbar, float(np.sqrt(2 / wbar)), 0.0], t_end).sample(1e-2)
    c_ref = th.limit_cycle_from_trajectory(t, W, a, q, wbar, g)
    t_scipy = time.perf_counter() - t0
    t0 = time.perf_counter()
    tr = fluid.dctcp_normalized(wbar, g, t_end=t_end, dt=1e-2, sample_dt=1e-2)
    c = th.limit_cycle_from_trajectory(tr.t.to_numpy(), tr.W.to_numpy(), tr.alpha.to_numpy(), tr.q.to_numpy(), wbar, g)
    t_rust = time.perf_counter() - t0
    print(f"one limit cycle (wbar = {wbar:g}, g = {g:g}, {t_end:g} R*): scipy method of steps {t_scipy:.3f} s, "
          f"Rust dt = 0.01 R* {t_rust:.4f} s, speed-up {t_scipy / t_rust:.0f}x; "
          f"period {c.T:.6f} vs {c_ref.T:.6f} R*")

    t0 = time.perf_counter()
    df7 = fig7_curves(n_w=40)
    t7 = time.perf_counter() - t0
    print(f"dctcp-fig7 curves, 3 g x 40 wbar = {len(df7)} limit cycles: {t7:.2f} s (goal < 10 s); "
          f"{t7 / len(df7) * 1e3:.1f} ms per cycle vs {t_scipy * 1e3:.0f} ms for one scipy cycle of 400 R* "
          f"(ratio {t_scipy / (t7 / len(df7)):.0f}x)")

    t0 = time.perf_counter()
    df6 = fig6_grid(30, 30)
    t6 = time.perf_counter() - t0
    print(f"dctcp-fig6 grid 30 x 30 = {len(df6)} cycles + Z1 Z2: {t6:.2f} s (goal < 30 s); max rho {df6.rho.max():.4f}")


if __name__ == "__main__":
    main()
