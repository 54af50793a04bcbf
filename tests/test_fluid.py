"""The fluid models against an independent solver (scipy, method of steps), their convergence
order, and the physics the papers' equations imply (numbers derived from the papers, not from
earlier runs of this code)."""

from __future__ import annotations

import math
import multiprocessing
import sys

import numpy as np
import pytest

from dcsim import fluid
from dcsim import reference as refsol  # independent scipy references (method of steps)

C_BPS, D_S, K_PKT, G = 10e9, 100e-6, 65.0, 1 / 16  # Fig. 2 of the DCTCP analysis paper
C_PPS = C_BPS / (8 * 1500)
CD = C_PPS * D_S  # bandwidth-delay product, 83.33 packets

# The independent references (scipy DOP853 + method of steps; DCTCP switching times located as
# solve_ivp events) live in dcsim.reference. The DCTCP one runs at rtol 1e-12 so that its own error
# (~1e-11) stays far below the smallest RK4 error the convergence-order test measures (~1e-9).
REF_TOL = dict(rtol=1e-12, atol=1e-14)


def dx_equilibrium(N, C_pps, R0, p):
    """Eqs. (7)-(8) of the DX paper with seg = 1 packet, C in packets/s; W0 from eq. (6)."""
    delta = (C_pps * p * R0 - p * N) ** 2 + 4 * C_pps * p * N * R0 * (1 - p)
    Q0 = (p * (N - C_pps * R0) + math.sqrt(delta)) / (2 * C_pps * p)
    return C_pps * (R0 + Q0) / N, Q0


# ------------------------------------------------------------------------------------------------
# agreement with the independent solver, and convergence order
# ------------------------------------------------------------------------------------------------

def _on(df, ts, col="t"):
    idx = np.searchsorted(df[col].to_numpy(), ts - 1e-9)
    assert np.allclose(df[col].to_numpy()[idx], ts, atol=1e-9)
    return df.iloc[idx]


def test_dctcp_normalized_agrees_with_scipy_method_of_steps():
    wbar, g = 10.0, 1 / 16  # the Fig. 4 limit cycle
    ref = refsol.dctcp_normalized(wbar, g, fluid.default_normalized_init(wbar), 30.0, **REF_TOL)
    ts = np.arange(0.0, 30.0 + 1e-9, 0.5)
    R = ref(ts).T
    df = _on(fluid.dctcp_normalized(wbar, g, t_end=30.0, dt=1e-2, sample_dt=0.5), ts)
    err = np.abs(df[["W", "alpha", "q"]].to_numpy() - R).max(axis=0)
    # the trajectory spans W in ~[8, 12], q~ in ~[-0.2, 0.2]; switching times are located exactly,
    # so the RK4 error at dt = 0.01 is ~1e-9, far below anything visible
    assert err.max() < 1e-7, err
    assert R[:, 2].min() < -0.05 and R[:, 2].max() > 0.05  # the run really crosses the threshold


def test_dctcp_normalized_convergence_order_is_four():
    wbar, g = 10.0, 1 / 16
    ref = refsol.dctcp_normalized(wbar, g, fluid.default_normalized_init(wbar), 20.0, **REF_TOL)
    ts = np.arange(0.0, 20.0 + 1e-9, 0.5)
    R = ref(ts).T
    dts = np.array([0.05, 0.025, 0.0125])
    errs = []
    for dt in dts:
        df = _on(fluid.dctcp_normalized(wbar, g, t_end=20.0, dt=dt, sample_dt=0.5 if dt != 0.0125 else 0.0125), ts)
        errs.append(np.abs(df[["W", "alpha", "q"]].to_numpy() - R).max())
    slope = np.polyfit(np.log(dts), np.log(errs), 1)[0]
    assert errs[-1] > 1e-10  # still above the reference's own error, so the slope is meaningful
    assert abs(slope - 4.0) < 0.6, (slope, errs)


def test_dx_agrees_with_scipy_method_of_steps():
    N, R0, p = 50, 80e-6, 0.95
    W0, Q0 = dx_equilibrium(N, C_PPS, R0, p)
    init = (W0 * 1.2, Q0 * 1.5)  # perturbed; Q stays > 0 (checked below), so no floor contact
    t_end = 40 * R0
    ref = refsol.dx(N, C_PPS, R0, R0, p, init, t_end)
    df = fluid.dx(N, C_BPS, R0, t_end_s=t_end, init=init, sample_dt_s=R0 / 10)
    R = ref(df.t_s.to_numpy())
    assert R[:, 1].min() > 0
    assert np.abs(df.W_pkt - R[:, 0]).max() < 1e-8 * W0
    assert np.abs(df.Q_s - R[:, 1]).max() < 1e-8 * Q0


# ------------------------------------------------------------------------------------------------
# physics of the DCTCP model (Sections 2.2, 3.1, 3.3.2 of the DCTCP analysis paper)
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("N", [2, 10])
def test_fig2_limit_cycle_around_K_with_full_utilization(N):
    """w̄ = (Cd + K)/N > 2: no fixed point, a limit cycle; q oscillates across K and (for K = 65,
    well above the 0.17 Cd guideline = 14 packets) never underflows, so the link stays busy."""
    df = fluid.dctcp(C_BPS, D_S, K_PKT, G, N, t_end_s=0.06)
    tail = df[df.t_s > 0.03]
    assert tail.q_pkt.min() < K_PKT < tail.q_pkt.max()
    assert tail.q_pkt.min() > 0  # 100 % utilization: the queue never empties
    assert 0 < tail.p.mean() < 1  # marking switches on and off
    # rate balance of eq. (7): mean of N W/R equals C over whole periods (no underflow)
    rate = N * tail.W_pkt / tail.R_s
    assert abs(rate.mean() / C_PPS - 1) < 0.02


def test_fig2_N100_fixed_point():
    """w̄ = 1.48 <= 2: the fixed point (W, alpha, q) = (2, 1, 2N - Cd) of Section 3.1.
    (The paper prints W = 2/w̄ for the unnormalized fixed point; since W~(t) = W(R* t), W = 2.)"""
    N = 100
    df = fluid.dctcp(C_BPS, D_S, K_PKT, G, N, t_end_s=0.05)
    last = df.iloc[-1]
    assert abs(last.q_pkt - (2 * N - CD)) < 0.05  # 116.67 packets
    assert abs(last.W_pkt - 2.0) < 1e-3
    assert abs(last.alpha - 1.0) < 1e-3
    assert (df.p.iloc[-100:] == 1).all()
    # RTT d + q/C = 240 us and per-flow rate W/RTT = 100 Mbps (footnote 2)
    assert abs(last.R_s - 2 * N / C_PPS) < 1e-7
    assert abs(last.W_pkt / last.R_s * 1500 * 8 / 1e6 - 100) < 0.1


def test_normalized_fixed_point_for_wbar_below_two():
    wbar = 1.5
    x = (2.0, 1.0, 2 / wbar - 1)
    df = fluid.dctcp_normalized(wbar, 0.1, t_end=50.0, init=x)
    assert np.abs(df[["W", "alpha", "q"]].to_numpy() - np.array(x)).max() < 1e-12
    df = fluid.dctcp_normalized(wbar, 0.1, t_end=400.0)  # from the default start it converges there
    assert np.abs(df[["W", "alpha", "q"]].iloc[-1].to_numpy() - np.array(x)).max() < 1e-4


def test_physical_and_normalized_models_are_the_same_equations():
    """Change of variables (10): W~(t) = W(R* t), q~ = (q - K)/(C R*), w̄ = (Cd + K)/N."""
    N = 10
    R_star = D_S + K_PKT / C_PPS
    wbar = (CD + K_PKT) / N
    W0, a0, qt0 = 12.0, 0.3, 0.05
    phys = fluid.dctcp(C_BPS, D_S, K_PKT, G, N, t_end_s=30 * R_star, dt_s=R_star / 200, sample_dt_s=R_star / 10,
                       init=(W0, a0, K_PKT + qt0 * C_PPS * R_star), queue_floor=False)
    norm = fluid.dctcp_normalized(wbar, G, t_end=30.0, dt=1 / 200, sample_dt=0.1, init=(W0, a0, qt0))
    assert len(phys) == len(norm)
    assert np.allclose(phys.t_s / R_star, norm.t, atol=1e-9)
    assert np.abs(phys.W_pkt - norm.W).max() < 1e-7
    assert np.abs(phys.alpha - norm.alpha).max() < 1e-9
    assert np.abs((phys.q_pkt - K_PKT) / (C_PPS * R_star) - norm.q).max() < 1e-9


def test_psi_floor_holds_and_binds():
    """Section 3.3.2: with psi = K/(Cd) the normalized queue never goes below -psi/(1+psi) (q = 0);
    at psi = 0.02 and the worst-case w̄ ~ 14 the unfloored queue dips well below it."""
    wbar, g, psi = 14.0, 0.05, 0.02
    floor = -psi / (1 + psi)
    free = fluid.dctcp_normalized(wbar, g, t_end=300.0)
    floored = fluid.dctcp_normalized(wbar, g, psi=psi, t_end=300.0)
    assert free.q.min() < floor - 0.05
    assert floored.q.min() >= floor
    assert (floored.q[floored.t > 150] <= floor + 1e-12).any()  # it sits on the floor part of the time


# ------------------------------------------------------------------------------------------------
# DX (eqs. 3-8 of the DX paper)
# ------------------------------------------------------------------------------------------------

def test_dx_equilibrium_is_a_fixed_point_and_attracts():
    N, R0, p = 50, 80e-6, 0.95
    W0, Q0 = dx_equilibrium(N, C_PPS, R0, p)
    still = fluid.dx(N, C_BPS, R0, t_end_s=0.01, init=(W0, Q0), p=p)
    assert np.abs(still.W_pkt / W0 - 1).max() < 1e-10
    assert np.abs(still.Q_s / Q0 - 1).max() < 1e-10
    moved = fluid.dx(N, C_BPS, R0, t_end_s=0.02, init=(1.0, 0.0), p=p)
    assert abs(moved.W_pkt.iloc[-1] / W0 - 1) < 1e-6
    assert abs(moved.Q_s.iloc[-1] / Q0 - 1) < 1e-6


def test_dx_window_floor_and_queue_floor():
    # N >= C R0 / seg = 66.7 at 10 Gbps / 80 us: Q stays positive, W near one segment
    df = fluid.dx(100, C_BPS, 80e-6, t_end_s=0.02)
    assert df.W_pkt.min() >= 1.0 and df.Q_s.min() >= 0.0
    W0, Q0 = dx_equilibrium(100, C_PPS, 80e-6, 0.95)
    assert 1.0 < W0 < 1.1
    assert abs(df.W_pkt.iloc[-1] / W0 - 1) < 1e-6
    # window below one segment is lifted to the floor immediately
    df = fluid.dx(10, C_BPS, 80e-6, t_end_s=1e-3, init=(1.0, 0.0))
    assert df.W_pkt.min() >= 1.0
    with pytest.raises(ValueError, match=r"init.W0_pkt"):
        fluid.dx(10, C_BPS, 80e-6, t_end_s=1e-3, init=(0.5, 0.0))
    df = fluid.dx(10, C_BPS, 80e-6, t_end_s=1e-3, init=(0.5, 0.0), window_floor=False)
    assert df.W_pkt.iloc[0] == 0.5


# ------------------------------------------------------------------------------------------------
# batch, determinism, input errors
# ------------------------------------------------------------------------------------------------

def test_batch_equals_single_runs_bit_for_bit():
    wbar = np.array([3.0, 10.0, 40.0])
    g = np.array([0.05, 1 / 16, 0.2])
    psi = np.array([0.1, 0.05, 0.2])
    runs = fluid.dctcp_normalized_batch(wbar, g, psi=psi, t_end=20.0, t_from=5.0)
    for w, gg, ps, r in zip(wbar, g, psi, runs):
        one = fluid.dctcp_normalized(w, gg, psi=ps, t_end=20.0, t_from=5.0)
        assert r["t"][0] == pytest.approx(5.0)
        for k in ("t", "W", "alpha", "q"):
            assert np.array_equal(r[k], one[k].to_numpy())
    b = fluid.dx_batch([20, 50], 10e9, [80e-6, 120e-6], t_end_s=2e-3)
    one = fluid.dx(50, 10e9, 120e-6, t_end_s=2e-3)
    assert np.array_equal(b[1]["Q_s"], one.Q_s.to_numpy())


def _dx_batch_queue_max(n: int) -> float:
    """A forked worker's batch (module level: sent to the worker by name)."""
    runs = fluid.dx_batch([n, n + 10], 10e9, [80e-6, 120e-6], t_end_s=2e-3)
    return float(max(np.max(r["q_pkt"]) for r in runs))


@pytest.mark.skipif(sys.platform != "linux", reason="fork is the start method in question (Linux's default)")
def test_batches_run_in_a_process_forked_after_a_batch():
    """A batch in a process forked after the parent ran one (Python's multiprocessing with "fork",
    Linux's default before 3.14) completes, with the parent's numbers: on rayon's global pool the
    child inherited a pool without threads and waited forever. Bounded by a timeout, so a
    regression fails instead of hanging the suite."""
    here = _dx_batch_queue_max(20)  # the parent's pool (if any) starts here
    with multiprocessing.get_context("fork").Pool(2) as pool:
        got = pool.map_async(_dx_batch_queue_max, [20, 30]).get(timeout=120)
    assert got[0] == here
    assert got[1] == _dx_batch_queue_max(30)


@pytest.mark.parametrize("call, name", [
    (lambda: fluid.dctcp_normalized(-1.0, 0.1), "wbar"),
    (lambda: fluid.dctcp_normalized(10.0, 1.5), "g"),
    (lambda: fluid.dctcp_normalized(10.0, 0.1, psi=0.0), "psi"),
    (lambda: fluid.dctcp_normalized(10.0, 0.1, dt=0.7), "dt"),
    (lambda: fluid.dctcp_normalized(10.0, 0.1, sample_dt=0.0015), "sample_dt"),
    (lambda: fluid.dctcp_normalized(10.0, 0.1, init=(10.0, 2.0, 0.0)), "init.alpha"),
    (lambda: fluid.dctcp_normalized_batch([10.0, 0.0], [0.1, 0.1]), r"wbar\[1\]"),
    (lambda: fluid.dctcp_normalized_batch([10.0], [0.1, 0.1]), "g has 2"),
    (lambda: fluid.dctcp(0, D_S, K_PKT, G, 2, t_end_s=1e-3), "C_bps"),
    (lambda: fluid.dctcp(C_BPS, D_S, K_PKT, G, 0.5, t_end_s=1e-3), "N"),
    (lambda: fluid.dctcp(C_BPS, D_S, K_PKT, G, 2, t_end_s=-1), "t_end_s"),
    (lambda: fluid.dx(50, C_BPS, 80e-6, t_end_s=1e-3, p=1.5), "p"),
    (lambda: fluid.dx_batch([10, 20], C_BPS, [80e-6, -1], t_end_s=1e-3), r"R0_s\[1\]"),
    (lambda: fluid.dx_batch([10, None], C_BPS, 80e-6, t_end_s=1e-3), "N must be a real number"),  # not "N = nan"
    (lambda: fluid.dx_batch([10, 20], C_BPS, 80e-6, t_end_s=1e-3, stats_from_s=[0.0, None]), "stats_from_s must be"),
    (lambda: fluid.dx(50, C_BPS, 80e-6, t_end_s=1e-3, stats_from_s=[0.0, 1e-4]), "stats_from_s must be a real number"),
    (lambda: fluid.dctcp(C_BPS, D_S, K_PKT, G, 2, t_end_s=1e-3, stats_from_s=2e-3), "stats_from_s = 0.002 is out of range"),
    # a sample interval longer than the run stretched it (100 s of 1 us steps for 5 ms: a probe)
    (lambda: fluid.dctcp(C_BPS, D_S, K_PKT, G, 10, t_end_s=0.005, dt_s=1e-6, sample_dt_s=100.0),
     r"sample_dt_s = 100 is out of range: must be in \[1e-06, 0.005\]"),
    (lambda: fluid.dx(50, C_BPS, 80e-6, t_end_s=0.005, dt_s=1e-6, sample_dt_s=10.0), r"sample_dt_s.* out of range"),
    (lambda: fluid.dctcp(C_BPS, D_S, K_PKT, G, 10, t_end_s=0.005, sample_dt_s=1e300), "sample_dt_s = 1e"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_a_run_shorter_than_its_delay_holds_only_its_own_history():
    """The delay line held the longest delay's history whatever the run's length: 281 steps of
    3.6 ps with a 100 us delay allocated 2.4 GB (a probe; now ~115 MB, the process). Holding the
    run's own steps must give the same trajectory, bit for bit, as a run past the delay."""
    from dcsim import fluid

    kw = dict(C_bps=10e9, d_s=100e-6, K_pkt=65, g=1 / 16, N=10, dt_s=1e-7, sample_dt_s=1e-7)
    short = fluid.dctcp(t_end_s=20e-6, **kw)     # 200 steps < R* / dt ~ 1 078 steps
    long = fluid.dctcp(t_end_s=300e-6, **kw)     # past the delay: the whole ring
    n = len(short)
    for col in ("W_pkt", "alpha", "q_pkt"):
        assert short[col].to_numpy().tobytes() == long[col].to_numpy()[:n].tobytes(), col


# ------------------------------------------------------------------------------------------------
# statistics at every integration step (df.attrs["stats"]): independent of the output's sampling
# ------------------------------------------------------------------------------------------------

def test_dctcp_statistics_see_every_step_whatever_the_sampling():
    """Sampled at its own limit-cycle period, a run's rows see the queue at one phase only: their
    marking fraction is 0 or 1 (a probe found 41.3 % against 39.7 % in an 89 s run decimated to
    4 000 rows). The statistics at every step must equal those of the undecimated rows (to
    rounding, 1e-12) whatever the sampling, bit for bit between samplings."""
    R = D_S + K_PKT / C_PPS
    dt = R / fluid.STEPS_PER_DELAY
    fine = fluid.dctcp(C_BPS, D_S, K_PKT, G, 10, t_end_s=0.05, dt_s=dt, sample_dt_s=dt)
    up = fine.t_s.to_numpy()[1:][np.diff(fine.p.to_numpy()) > 0]   # the marking's rising edges
    period = int(round(np.diff(up[len(up) // 2:]).mean() / dt))      # ~1 515 steps, 7.6 R*
    t_end, t0 = 40 * period * dt, 20 * period * dt
    kw = dict(t_end_s=t_end, dt_s=dt, stats_from_s=t0)
    stroboscopic = fluid.dctcp(C_BPS, D_S, K_PKT, G, 10, sample_dt_s=period * dt, **kw)
    every = fluid.dctcp(C_BPS, D_S, K_PKT, G, 10, sample_dt_s=dt, **kw)
    rows = stroboscopic[stroboscopic.t_s >= t0 - dt / 2]
    assert abs(rows.p.mean() - every.attrs["stats"]["p"]["mean"]) > 0.3  # the setting aliases
    assert stroboscopic.attrs["stats"] == every.attrs["stats"]
    tail = every[every.t_s >= every.attrs["stats"]["from_s"] - dt / 2]
    st = every.attrs["stats"]
    assert st["steps"] == len(tail)
    for col in ("W_pkt", "alpha", "q_pkt", "p"):
        assert st[col]["mean"] == pytest.approx(tail[col].mean(), rel=1e-12, abs=1e-12), col
        assert (st[col]["min"], st[col]["max"]) == (tail[col].min(), tail[col].max()), col
    assert 0 < st["p"]["mean"] < 1 and st["utilization"]["mean"] == 1.0  # a cycle across K, q > 0


def test_dx_statistics_at_its_equilibrium_and_the_window():
    """At the equilibrium (6)-(8) Q0 > 0: the link is busy at every step (busy = 1 exactly), the
    means are W0 and Q0, q = Q C; the window starts at the grid point at or after stats_from_s."""
    W0, Q0 = dx_equilibrium(50, C_PPS, 80e-6, 0.95)
    df = fluid.dx(50, C_BPS, 80e-6, t_end_s=4e-3, init=(W0, Q0), stats_from_s=1e-3)
    st = df.attrs["stats"]
    dt = 80e-6 / fluid.STEPS_PER_DELAY
    assert st["from_s"] == pytest.approx(1e-3, abs=dt) and st["from_s"] >= 1e-3 - 1e-12
    assert st["busy"] == {"min": 1.0, "mean": 1.0, "max": 1.0}
    assert st["W_pkt"]["mean"] == pytest.approx(W0, rel=1e-9)
    assert st["Q_s"]["mean"] == pytest.approx(Q0, rel=1e-9)
    assert st["q_pkt"]["mean"] == pytest.approx(Q0 * C_PPS, rel=1e-9)
    with pytest.raises(ValueError, match=r"stats_from_s = 0.5 is out of range"):
        fluid.dx(50, C_BPS, 80e-6, t_end_s=4e-3, stats_from_s=0.5)
    with pytest.raises(ValueError, match=r"stats_from_s\[1\]"):
        fluid.dx_batch([50, 60], C_BPS, 80e-6, t_end_s=4e-3, stats_from_s=[1e-3, -1.0])
    assert "stats" not in fluid.dx_batch([50], C_BPS, 80e-6, t_end_s=1e-3)[0]  # only when asked for


def test_the_envelope_holds_every_step_between_rows():
    """With envelope=True each row has the extremes of its state since the row before: together
    they are the extremes of the whole run (the statistics over every step from t = 0, exactly),
    each row's value lies within its own band, and a run output at every step has no band."""
    for df, cols in (
        (fluid.dctcp(C_BPS, D_S, K_PKT, G, 10, t_end_s=0.2, envelope=True, stats_from_s=0.0),
         ("W_pkt", "alpha", "q_pkt")),
        (fluid.dx(50, C_BPS, 80e-6, t_end_s=0.02, envelope=True, stats_from_s=0.0), ("W_pkt", "Q_s", "q_pkt")),
    ):
        st = df.attrs["stats"]
        assert sorted(fluid.envelope_columns(df)) == sorted(f"{c}{s}" for c in cols for s in ("_lo", "_hi"))
        for c in cols:
            assert df[f"{c}_lo"].min() == st[c]["min"] and df[f"{c}_hi"].max() == st[c]["max"], c
            assert (df[f"{c}_lo"] <= df[c]).all() and (df[c] <= df[f"{c}_hi"]).all(), c
    R = D_S + K_PKT / C_PPS
    every = fluid.dctcp(C_BPS, D_S, K_PKT, G, 10, t_end_s=2e-3, dt_s=R / 200, sample_dt_s=R / 200, envelope=True)
    assert (every.q_pkt_lo == every.q_pkt).all() and (every.q_pkt_hi == every.q_pkt).all()
    assert fluid.envelope_columns(fluid.dctcp(C_BPS, D_S, K_PKT, G, 10, t_end_s=2e-3)) == []


def test_the_normalized_model_s_default_spacing_fits_any_step():
    """dctcp_normalized(10, 1/16, dt=0.3) was refused with "sample_dt = 0.01 is out of range: must be in
    [0.3, 200]", an argument the caller never gave (a probe). The default spacing is now the multiple
    of dt nearest 0.01 R*: the same 0.01 for the default dt."""
    from dcsim import fluid

    for dt, want in ((0.3, 0.3), (1e-3, 0.01), (0.003, 0.009), (0.5, 0.5)):
        df = fluid.dctcp_normalized(10, 1 / 16, dt=dt, t_end=20)
        assert df.t.iloc[1] - df.t.iloc[0] == pytest.approx(want, rel=1e-12), dt
    (r,) = fluid.dctcp_normalized_batch([10.0], [1 / 16], dt=0.3, t_end=20)
    assert r["t"][1] == pytest.approx(0.3)


def test_dx_one_run_says_so_for_a_list_and_bounds_stats_from_by_the_run():
    """dx([50, 60], ...) was refused as "shape (1, 2)" (the batch's nesting) and stats_from_s = -1 as
    "must be in [0, inf]" though the bound is t_end_s (a review)."""
    with pytest.raises(ValueError, match=r"^N must be a real number \(one run\), got \[50, 60\]; for several runs use dx_batch"):
        fluid.dx([50, 60], 10e9, 80e-6, t_end_s=0.01)
    for bad in (-1, 0.02):
        with pytest.raises(ValueError, match=r"^stats_from_s = .* is out of range: must be in \[0, 0\.01\] s"):
            fluid.dx(50, 10e9, 80e-6, t_end_s=0.01, stats_from_s=bad)
    df = fluid.dx(50, 10e9, 80e-6, t_end_s=0.01, stats_from_s=0.005)
    assert df.attrs["stats"]["from_s"] == pytest.approx(0.005)


def test_a_sample_interval_off_the_steps_is_refused_with_the_nearest_that_are_on_them():
    """With the default step R*/200 (0.89 us at 10 Gbps, 100 us, K = 65) almost no round interval
    is a whole number of steps; the refusal had named only the rule (an API audit). It names the
    nearest intervals that are, and a step that makes the one asked for whole; each is accepted."""
    import re

    from dcsim import fluid as F

    args = dict(t_end_s=2e-3)
    with pytest.raises(ValueError, match=r"sample_dt_s = 2e-05 must be a positive integer multiple of dt_s") as e:
        F.dctcp(10e9, 100e-6, 65, 1 / 16, 10, sample_dt_s=20e-6, **args)
    msg = str(e.value)
    lo, hi = (float(x) for x in re.findall(r"([\d.]+e-05) \(\d+ steps\)", msg))
    assert lo < 20e-6 < hi
    dt = float(re.search(r"or dt_s = ([\d.e-]+) with this", msg).group(1))
    for kw in (dict(sample_dt_s=lo), dict(sample_dt_s=hi), dict(sample_dt_s=20e-6, dt_s=dt)):
        df = F.dctcp(10e9, 100e-6, 65, 1 / 16, 10, **kw, **args)
        assert np.allclose(np.diff(df.t_s.to_numpy()), kw["sample_dt_s"], rtol=1e-6)
