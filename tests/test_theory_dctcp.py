"""Tests of dcsim.theory.dctcp against the DCTCP analysis paper and first principles.

The scipy reference (dcsim.reference.dctcp_normalized) is an independent solution of the normalized
model (11)-(14): exact event location, no shared code with the Rust integrator.
"""

import json
import math
import re

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from dcsim import fluid
from dcsim import reference as refsol
from dcsim.theory import dctcp as th


# ---------------------------------------------------------------------------------------------
# guidelines, eqs. (1)-(2)
# ---------------------------------------------------------------------------------------------


def test_guidelines_paper_example_10G_300us():
    gl = th.guidelines(10e9, 300e-6)
    assert gl.C_pps == pytest.approx(10e9 / 12000)
    assert gl.Cd_pkt == pytest.approx(250.0)
    assert 41.5 <= gl.K_guideline_pkt <= 43.0  # paper: "about 42 packets"
    assert round(gl.g_min, 2) == 0.02 and round(gl.g_max, 2) == 0.06  # paper: 0.02 <~ g <~ 0.06
    assert gl.g_min == pytest.approx(5 / (250 + 42.5)) and gl.g_max == pytest.approx((250 + 42.5) ** -0.5)


def test_K_guideline_follows_from_Q_min_minus_0_15():
    # Section 3.3.1: K > 0.15 (Cd + K)  =>  K > 0.15/0.85 Cd = 0.176 Cd, printed "0.17"
    assert th.K_from_Q_min(-0.15, 1.0) == pytest.approx(0.15 / 0.85)
    assert th.K_from_Q_min(-0.15, 1.0) == pytest.approx(th.K_COEFF, rel=0.05)


def test_bad_inputs_name_the_field():
    with pytest.raises(ValueError, match="C_bps"):
        th.guidelines(0, 1e-4)
    with pytest.raises(ValueError, match="d_s"):
        th.guidelines(1e9, -1)
    with pytest.raises(ValueError, match="g must be in"):
        th.alpha_star(10, 0)
    with pytest.raises(ValueError, match="N must be"):
        th.regime(1e6, 1e-4, 10, 0)
    with pytest.raises(ValueError, match="wbar must be"):
        th.limit_cycle(1.5, 0.1)
    with pytest.raises(ValueError, match="wbar must be <= 2"):
        th.fixed_point(3.0)
    # A probe: gamma_rate(10, 3) raised a bare "math domain error", gamma_rate(-10, .5) returned
    # -0.19, hybrid_assumptions(2, 0, .1) a ZeroDivisionError and (2, nan, .1) "none violated".
    nan = float("nan")
    for args, words in [((10, 3), "alpha_s must be in (0, 1]"), ((-10, 0.5), "W_star must be a finite number > 0"),
                        ((nan, 0.5), "W_star must be"), ((10, 0), "alpha_s must be in (0, 1]")]:
        with pytest.raises(ValueError, match=re.escape(words)):
            th.gamma_rate(*args)
    for args, words in [((2, 0, 0.1), "W_max must be a finite number > 0, got 0"), ((2, nan, 0.1), "W_max must be"),
                        ((nan, 10, 0.1), "N must be"), ((2, 10, 1.5), "g must be in (0, 1]")]:
        with pytest.raises(ValueError, match=re.escape(words)):
            th.hybrid_assumptions(*args)
    assert th.hybrid_assumptions(1, 1, 1.0) == ["N = 1 < 2", "W_max = 1 pkt < 2N = 2"]  # reported, not refused
    # A review: NaN windows or alphas of the Hybrid model had run to NaN results.
    for W0, a0, words in [([nan], [0.5], "W0 must be finite numbers >= 0"), ([10], [nan], "alpha0 must be in [0, 1], got nan"),
                          ([float("inf")], [0.5], "W0 must be finite"), ([10], [1.5], "alpha0 must be in [0, 1], got 1.5")]:
        with pytest.raises(ValueError, match=re.escape(words)):
            th.hybrid_model(W0, a0, 0.1, 100, 5)


# ---------------------------------------------------------------------------------------------
# the wbar <= 2 fixed point (Section 3.1)
# ---------------------------------------------------------------------------------------------


def test_fixed_point_closed_form_and_fig2_N100():
    assert th.fixed_point(1.5) == pytest.approx((2.0, 1.0, 1.0 / 3.0))
    C = th.capacity_pps(10e9)
    r = th.regime(C, 100e-6, 65, 100)  # Fig. 2, N = 100
    assert r.kind == "fixed point"
    assert r.W_pkt == 2.0 and r.alpha == 1.0
    assert r.q_pkt == pytest.approx(2 * 100 - C * 100e-6)  # 2N - Cd = 116.7 ("about 120 packets")
    assert r.rtt_s == pytest.approx(240e-6, rel=1e-3)  # footnote 2
    assert th.regime(C, 100e-6, 65, 10).kind == "limit cycle"


def test_wbar_at_2_is_the_fixed_point_boundary_whichever_way_it_rounds():
    """wbar = (Cd + K)/N = 2 exactly in exact arithmetic: at N = 48.75 (10 Gbps, 100 us, the guideline
    K = 0.17 Cd) it
    computes to 2.0000000000000004 and read as a limit cycle that could not be computed; at N = 74.1(6)
    with K = 65 to 2.0 exactly, where the hybrid model was refused though (22) W_max >= 2N and (46)
    W* >= 2 hold with equality (a review). Both are the boundary now, with the hybrid model."""
    C = th.capacity_pps(10e9)
    for K, N in ((0.17 * C * 100e-6, 48.75), (65.0, (C * 100e-6 + 65) / 2)):
        wbar = th.wbar_of(C, 100e-6, K, N)
        assert abs(wbar - 2) < 1e-14
        assert th.regime(C, 100e-6, K, N).kind == "fixed point"
        r = th.analyze(10e9, 100e-6, K, N, 1 / 16)
        assert r["regime"] == "fixed point" and "hybrid" in r, r["notes"]
        assert r["hybrid"]["alpha_star"] == pytest.approx(th.alpha_star(2.0, 1 / 16), rel=1e-9)
        assert "limit_cycle" not in r
    # just off it, the regimes of either side
    assert th.regime(C, 100e-6, 65, (C * 100e-6 + 65) / 2.001).kind == "limit cycle"
    r = th.analyze(10e9, 100e-6, 65, (C * 100e-6 + 65) / 1.999, 1 / 16)
    assert r["regime"] == "fixed point" and "hybrid" not in r


def test_fluid_model_converges_to_the_fixed_point():
    wbar = 1.5
    df = fluid.dctcp_normalized(wbar, 0.2, t_end=300.0, dt=1e-2, sample_dt=1e-2, t_from=290.0)
    W, a, q = th.fixed_point(wbar)
    assert df.W.iloc[-1] == pytest.approx(W, abs=1e-4)
    assert df.alpha.iloc[-1] == pytest.approx(a, abs=1e-4)
    assert df.q.iloc[-1] == pytest.approx(q, abs=1e-4)


# ---------------------------------------------------------------------------------------------
# limit cycle and Theorem 1
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ref_cycle_10():
    """Limit cycle at wbar = 10, g = 1/16 from the scipy reference (and its exact crossings)."""
    wbar, g = 10.0, 1 / 16
    ref = refsol.dctcp_normalized(wbar, g, [wbar, math.sqrt(2 / wbar), 0.0], 400.0)
    t, W, a, q = ref.sample(1e-2)
    downs = ref.downs
    return th.limit_cycle_from_trajectory(t, W, a, q, wbar, g), downs


def test_limit_cycle_matches_scipy_reference(ref_cycle_10):
    ref, downs = ref_cycle_10
    c = th.limit_cycle(10.0, 1 / 16)
    T_exact = downs[-1][0] - downs[-2][0]
    assert c.T == pytest.approx(T_exact, rel=1e-5)
    assert c.x_alpha[:2] == pytest.approx(downs[-1][1][:2], rel=1e-5)
    assert c.Q_min == pytest.approx(ref.Q_min, abs=1e-5)
    assert c.Q_max == pytest.approx(ref.Q_max, abs=1e-5)
    # no floor: the queue never idles the link, throughput 1 up to quadrature error
    assert c.throughput == pytest.approx(1.0, abs=1e-5)
    assert c.converged and c.h_alpha > 0 and c.h_beta > 0
    assert c.T == pytest.approx(2 + c.h_alpha + c.h_beta)


def _fd_poincare(wbar, g, x):
    """Finite-difference Jacobian of the Poincare map on S in (W, alpha), by the scipy reference."""
    def P(y):
        dn = refsol.dctcp_normalized(wbar, g, [y[0], y[1], 0.0], 60.0, at_down_crossing=True).downs
        return dn[0][1][:2]
    A = np.zeros((2, 2))
    for j in range(2):
        e = np.zeros(2)
        e[j] = 1e-5 * max(abs(x[j]), 1e-3)
        A[:, j] = (P(x + e) - P(x - e)) / (2 * e[j])
    return A


@pytest.mark.parametrize("wbar,g", [(10.0, 1 / 16), (100.0, 0.05), (14.0, 0.3)])
def test_Z1Z2_is_the_jacobian_of_the_poincare_map(wbar, g):
    c = th.limit_cycle(wbar, g)
    P = th.poincare_jacobian(c)
    # x_alpha is a fixed point of the Poincare map (reference solver)
    dn = refsol.dctcp_normalized(wbar, g, [c.x_alpha[0], c.x_alpha[1], 0.0], 60.0, at_down_crossing=True).downs
    assert dn[0][1][:2] == pytest.approx(c.x_alpha[:2], rel=1e-4)
    A = _fd_poincare(wbar, g, c.x_alpha[:2])
    fd = np.sort(np.abs(np.linalg.eigvals(A)))
    ours = np.sort(np.abs(P.eig))  # one eigenvalue is 0: Z1 Z2 maps into the plane S
    assert ours[0] < 1e-8
    assert ours[1:] == pytest.approx(fd, rel=2e-3, abs=1e-5)
    assert P.rho == pytest.approx(fd.max(), rel=1e-3)


def test_printed_exp_int_J_form_is_not_the_transition_matrix():
    # Theorem 1 prints exp(int J_F); J_F(s) do not commute, so it differs from the true Jacobian
    P = th.poincare_jacobian(th.limit_cycle(14.0, 0.3))
    assert abs(P.rho_paper - P.rho) > 0.01


def test_rho_below_one_on_coarse_paper_grid():
    gs = np.logspace(-3, 0, 4)
    ws = np.logspace(np.log10(2.01), 3, 4)
    G, Wb = np.meshgrid(gs, ws, indexing="ij")
    cycles = th.limit_cycles(Wb.ravel(), G.ravel())
    rho = np.array([th.poincare_jacobian(c).rho for c in cycles])
    assert np.all(rho < 1.0)
    assert all(c.drift < 1e-3 for c in cycles)


def test_Q_min_above_minus_0_15_for_small_g():
    ws = np.array([6.0, 8.0, 10.0, 12.0, 14.0, 16.0, 20.0, 30.0])
    cs = th.limit_cycles(ws, [0.01] * len(ws))
    qmin = np.array([c.Q_min for c in cs])
    assert qmin.min() >= -0.15  # Section 3.3.1
    assert qmin.min() <= -0.10  # and the undershoot is real (K ~ 0.17 Cd is not slack by 2x)
    assert 8.0 <= ws[np.argmin(qmin)] <= 16.0  # worst case wbar "about 12-16"


def test_worst_case_throughput_small_g():
    ws = [6.0, 9.0, 12.0, 14.0, 18.0, 25.0]
    df = th.worst_case_throughput([0.001, 0.2], 0.05, ws)
    assert df.throughput.iloc[0] >= 0.94  # "always at least 94 % for g < 0.1"
    assert df.throughput.iloc[0] < 0.97  # and the loss at psi -> 0 is real
    df2 = th.worst_case_throughput([0.2], 0.01, ws)
    assert df2.throughput.iloc[0] == pytest.approx(1.0, abs=1e-4)  # psi >~ 0.17: 100 %


def test_floor_cycle_matches_reference():
    wbar, g, psi = 14.0, 0.05, 0.01
    c = th.limit_cycle(wbar, g, psi=psi)
    t, W, a, q = refsol.dctcp_normalized(wbar, g, [wbar, math.sqrt(2 / wbar), 0.0], 300.0, psi=psi).sample(1e-2)
    r = th.limit_cycle_from_trajectory(t, W, a, q, wbar, g, psi)
    assert c.throughput == pytest.approx(r.throughput, abs=1e-5)
    assert c.T == pytest.approx(r.T, rel=1e-4)
    assert c.Q_min == pytest.approx(-psi / (1 + psi))


def test_limit_cycle_is_deterministic():
    a, b = th.limit_cycle(20.0, 0.05), th.limit_cycle(20.0, 0.05)
    assert a.T == b.T and np.array_equal(a.X, b.X)


# ---------------------------------------------------------------------------------------------
# Sawtooth model ([1] via Section 2.2)
# ---------------------------------------------------------------------------------------------


def test_sawtooth_closed_form():
    C = th.capacity_pps(10e9)
    s = th.sawtooth(C, 100e-6, 65, 2)
    assert s.W_star == pytest.approx((C * 100e-6 + 65) / 2)
    assert s.alpha == pytest.approx(th.sawtooth_alpha_exact(s.W_star), rel=0.03)
    assert s.Q_max_pkt == 67 and s.Q_min_pkt == pytest.approx(67 - 2 * (s.W_star + 1) * s.alpha / 2)
    # normalized worst case: 1/w - 1/sqrt(2w) is minimal at w = 8 with -1/8 -> K > Cd/7 ([1])
    w = np.linspace(2.5, 50, 20000)
    qn = 1 / w - 1 / np.sqrt(2 * w)
    assert w[np.argmin(qn)] == pytest.approx(8.0, abs=0.01)
    assert th.K_from_Q_min(qn.min(), 1.0) == pytest.approx(1 / 7, rel=1e-4)
    q = th.sawtooth_queue(np.linspace(0, 0.01, 1000), C, 100e-6, 65, 2)
    assert q.max() <= 67 + 1e-9 and q.min() >= 0


# ---------------------------------------------------------------------------------------------
# Hybrid model (19)-(21), alpha* (23), beta (25), bounds (46)
# ---------------------------------------------------------------------------------------------


def test_hybrid_step_preserves_W_max_and_matches_ode_for_alpha():
    W = np.array([150.0, 50.0])
    a = np.array([0.1, 0.7])
    g = 0.05
    W2, a2, dT = th.hybrid_step(W, a, g)
    assert W2.sum() == pytest.approx(W.sum())
    assert dT == pytest.approx(1 + (150 * 0.1 + 50 * 0.7) / 4)
    # (21) is the solution of d alpha/dt = g (p - alpha), p = 1 on [0, 1), 0 after
    sol = solve_ivp(lambda t, x: g * ((1.0 if t < 1 else 0.0) - x), (0, dT), a, rtol=1e-12, atol=1e-14,
                    max_step=0.01)
    assert a2 == pytest.approx(sol.y[:, -1], rel=1e-8)


@pytest.mark.parametrize("g", [1 / 200, 1 / math.sqrt(200)])  # g < gamma and g > gamma
def test_hybrid_converges_at_predicted_rate(g):
    W_max = 200.0
    run = th.hybrid_model([W_max - 1, 1.0], [0.0, 1.0], g, W_max, 5000)
    W_star = W_max / 2
    a_s = th.alpha_star(W_star, g)
    assert run.alpha[-1] == pytest.approx([a_s, a_s], abs=1e-10)
    err = np.max(np.abs(run.W - W_star), axis=1) / W_star
    rate = th.measured_rate(run.T, err, 1e-11, 1e-5)
    assert rate == pytest.approx(th.beta_dctcp(W_star, g), rel=0.01)


def test_alpha_star_solves_23_and_bounds_46():
    for W_star in [2.0, 10.0, 100.0, 1000.0]:
        W_max = 2 * W_star
        for g in np.logspace(np.log10(1 / W_max), np.log10(1 / math.sqrt(W_max)), 5):
            a = th.alpha_star(W_star, g)
            assert a == pytest.approx(math.exp(-g * (1 + W_star * a / 2)) * (math.exp(g) - 1 + a), abs=1e-13)
            lo, hi = th.alpha_star_bounds(W_star, g)
            assert lo < a < hi
            gam = th.gamma_rate(W_star, a)
            beta = min(g, gam)
            assert beta < th.beta_tcp(W_star)  # beta_DCTCP < beta_TCP
            assert gam < 2 * math.log(2) / W_star  # upper bound of (26)


def test_beta_ratio_tends_to_2log2_but_exceeds_1_4_at_fig12():
    # the paper's 1.4 = 2 log 2 holds asymptotically; at W* = 100 the exact ratio is ~1.5
    def ratio(W_star):
        g = 1 / math.sqrt(2 * W_star)
        return th.beta_tcp(W_star) / th.beta_dctcp(W_star, g)
    assert 1.45 < ratio(100.0) < 1.6
    assert abs(ratio(1e7) - 2 * math.log(2)) < 0.01


# ---------------------------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------------------------


def test_cli_json_and_errors():
    from typer.testing import CliRunner

    from dcsim.cli import app

    runner = CliRunner()
    res = runner.invoke(app, ["theory", "dctcp", "--C", "10Gbps", "--d", "300us", "--N", "10", "--json"])
    assert res.exit_code == 0, res.output
    r = json.loads(res.output)
    assert 41.5 <= r["K_guideline_pkt"] <= 43
    assert r["regime"] == "limit cycle" and r["wbar_pkt"] == pytest.approx(29.25)
    assert r["limit_cycle"]["throughput"] == pytest.approx(1.0, abs=1e-3)
    assert r["hybrid"]["alpha_star"] == pytest.approx(th.alpha_star(29.25, 1 / 16))
    res = runner.invoke(app, ["theory", "dctcp", "--C", "10Gbps", "--d", "100us", "--K", "65pkt", "--N", "100"])
    assert res.exit_code == 0 and "fixed point" in res.output and "pkt" in res.output
    res = runner.invoke(app, ["theory", "dctcp", "--C", "10Gbps", "--d", "300us", "--g", "1.5"])
    assert res.exit_code == 2 and "--g" in res.output


def test_psi_zero_is_the_limit_of_the_floored_cycle():
    """Fig. 9 starts at psi = 0 (K = 0): the floor -psi/(1+psi) is then the threshold itself. psi = 0 is
    integrated as the physical model with K = 0; it must be the psi -> 0 limit of the floored model.
    Tolerances: the period is located from crossings of q~ = 0, which at psi = 0 coincide with floor
    contacts and are resolved only to the sample step (0.01 R*) at each end; the throughput integral
    moves by the same relative amount (2 x 0.01 / T)."""
    c0 = th.limit_cycle(14.0, 0.05, psi=0.0)
    c1 = th.limit_cycle(14.0, 0.05, psi=1e-9)
    assert c0.Q_min == 0.0 and c0.psi == 0.0
    assert abs(c0.T - c1.T) <= 2 * 0.01
    assert c0.throughput == pytest.approx(c1.throughput, rel=2 * 0.01 / c1.T)
    assert c0.throughput < 0.95  # the floor binds: throughput is lost (Fig. 9 at psi = 0)
    with pytest.raises(ValueError, match="psi"):
        th.limit_cycle(14.0, 0.05, psi=-0.1)


def test_psi_zero_cycle_counts_as_converged_within_its_sampling_resolution():
    """At psi = 0 the Poincare section q~ = 0 is the floor: crossings are located to one sample, and the
    integrator places floor contacts and lift-offs on its step grid (dde.rs), so each crossing is off by
    up to sample_dt + dt and the period-to-period drift T - T_prev (three crossings) by up to
    2 (sample_dt + dt) / T; `converged` must not flag that as a transient."""
    for w in (3.5, 14.0, 60.0):
        c = th.limit_cycle(w, 0.05, psi=0.0)
        assert c.drift_resolution == pytest.approx(2 * (0.01 + 0.01) / c.T, rel=0.01)
        assert c.converged, (w, c.drift)


def test_every_cycle_of_the_full_fig9_grid_at_psi_zero_is_converged():
    """dctcp-fig9's full grid (24 wbar in [3, 100] pkt) at psi = 0: at wbar = 34.4, g = 0.01 the periods
    were 7.04-7.07 R* from one to the next (3 sample steps apart: the integrator's floor contacts jitter
    by a step beside the samples' step), a drift of 0.0043 against the 0.0038 that the sample step
    alone allowed, and the full run's numerics check failed. With dt = 1e-3 the same cycle's periods
    agree to 0.002 R*: the orbit has converged."""
    wb = np.logspace(math.log10(3.0), math.log10(100.0), 24)
    cs = th.limit_cycles(wb, [0.01] * len(wb), psi=[0.0] * len(wb))
    assert all(c.converged for c in cs), [(round(c.wbar, 2), c.drift, c.drift_resolution) for c in cs if not c.converged]


def test_a_finer_integration_step_narrows_the_floor_resolution():
    """The drift allowance counts the integration step given (samples lie on its grid, so without it
    the sample step stands in for it, the largest it can be)."""
    wbar, g = 14.0, 0.05
    tr = th._normalized_run(wbar, g, 0.0, 300.0, 1e-3, 1e-2, 200.0)
    fine = th.limit_cycle_from_trajectory(tr["t"], tr["W"], tr["alpha"], tr["q"], wbar, g, 0.0, dt=1e-3)
    unknown = th.limit_cycle_from_trajectory(tr["t"], tr["W"], tr["alpha"], tr["q"], wbar, g, 0.0)
    assert fine.drift_resolution == pytest.approx(2 * (0.01 + 0.001) / fine.T, rel=0.01)
    assert unknown.drift_resolution == pytest.approx(2 * (0.01 + 0.01) / unknown.T, rel=0.01)


def test_a_floor_shallower_than_one_sample_step_counts_as_the_psi_zero_floor():
    """K = 1e-6 pkt at C d = 83.3 pkt (psi = 1.2e-8): the floor is far shallower than the queue falls in
    one sample, so the crossing lands on the floor as at psi = 0 and is located to one sample only
    (drift 0.0019 per period, as at psi = 0); it was reported "not converged". A deep floor
    (psi = 0.01) is crossed between two falling samples and gets no such allowance."""
    shallow = th.limit_cycle(8.3333333, 0.0625, psi=1.2e-8)
    assert shallow.drift_resolution == pytest.approx(2 * (0.01 + 0.01) / shallow.T, rel=0.01)
    assert shallow.converged, shallow.drift
    deep = th.limit_cycle(8.3333333, 0.0625, psi=0.01)
    assert deep.drift_resolution == 0.0 and deep.converged


@pytest.mark.parametrize("g", [1e-9, 1e-14, 1e-15, 1e-17, 1e-18, 1e-300, 5e-324])
def test_alpha_star_tends_to_its_first_order_root_as_g_vanishes(g):
    """Eq. (23) to first order in g: alpha* -> the root of 1 - a - W* a^2/2, i.e.
    (sqrt(1 + 2 W*) - 1) / W*, with an error O(g). The printed form lost every digit below
    g ~ 1e-13 (0.1378 at g = 1e-17, 1.0 at g = 1e-300 against 0.1831 for W* = 48.75).
    Tolerance: the O(g) term (g x a few) plus 1e-13 relative for the root finder."""
    from dcsim.theory.dctcp import alpha_star

    for W in (2.0, 48.75, 1e4):
        limit = (math.sqrt(1 + 2 * W) - 1) / W
        assert abs(alpha_star(W, g) - limit) <= 1e-13 * limit + 10 * g * W, (W, g, alpha_star(W, g), limit)


def test_a_limit_cycle_at_small_g_is_not_called_converged_before_alpha_settles():
    """At g = 1e-6 the 6000 R* run left alpha at its start value (0.1433 against the cycle's 0.1458)
    while two consecutive periods already agreed to 4e-7, and the cycle was reported converged with
    a queue swing 1.7 % off. Converged now also asks g t >= 6 (alpha's slow mode ~exp(-2 g t))."""
    from dcsim.theory.dctcp import ALPHA_SETTLED_GT, limit_cycle

    slow = limit_cycle(8.0, 1e-6)
    assert slow.alpha_relaxation == pytest.approx(1e-6 * 6000.0) and not slow.converged
    fast = limit_cycle(8.0, 1.0 / 16)
    assert fast.alpha_relaxation >= ALPHA_SETTLED_GT and fast.converged


def test_the_k0_cycle_is_converged_in_the_step():
    """At K = 0 the psi floor sits on the marking threshold and dt = 0.01 R* is good to ~0.5 %
    only (a probe: Q_max 4.417 against 4.435 pkt, period 6.150 against 6.161 R*, its own
    integration agreeing with the finer step). `theory dctcp` takes 0.001 R* there; halving that
    step must change Q_max and the period by less than 1e-3 of themselves (numerical convergence,
    the tolerance an order below the 0.5 % error it replaces)."""
    r = th.analyze(10e9, 240e-6, 0.0, N=10, g=0.05)
    lc, scale = r["limit_cycle"], r["C_pps"] * r["R_star_s"]  # q = K + Q~ C R*, eq. (10), K = 0
    finer = th.limit_cycle(r["wbar_pkt"], 0.05, psi=0.0, dt=5e-4, sample_dt=5e-4)
    assert lc["period_rtt"] == pytest.approx(finer.T, rel=1e-3)
    assert lc["q_max_pkt"] / scale == pytest.approx(finer.Q_max, rel=1e-3)
    coarse = th.limit_cycle(r["wbar_pkt"], 0.05, psi=0.0)
    assert abs(coarse.Q_max - finer.Q_max) / finer.Q_max > 1e-3, "precondition: the default step is off here"


def test_a_cycle_longer_than_the_first_horizon_is_found():
    """At wbar ~ 1e6 (C 10 Gbps, d 1 s, N 1, K by the guideline, g 1/16) the period is ~1.6e4 R*,
    past the first horizon's cap of 6 000 R*: `theory dctcp` said "not computed" (a probe). The
    retries lengthen the run within the step budget. Checks: the period equals the spacing of the
    down-crossings of q~ = 0 in a run sampled independently (every R*; tolerance 2 samples), and
    the queue never empties (Q_min above the floor -psi/(1+psi)), so the throughput is 1."""
    psi = 0.17
    wbar = (1 + psi) * 10e9 / 12000 * 1.0  # (C d + K)/N with K = 0.17 C d
    c = th.limit_cycle(wbar, 1 / 16, psi=psi)
    assert c.T > 6000
    tr = fluid.dctcp_normalized(wbar, 1 / 16, psi=psi, t_end=6 * c.T, dt=1e-2, sample_dt=1.0,
                                t_from=2 * c.T)
    q, t = tr.q.to_numpy(), tr.t.to_numpy()
    downs = t[1:][(q[1:] <= 0) & (q[:-1] > 0)]
    assert len(downs) >= 3
    assert abs(np.diff(downs)[-1] - c.T) <= 2.0
    assert c.Q_min > -psi / (1 + psi) and c.throughput == pytest.approx(1.0, abs=1e-9)
    # alpha's relaxation counts the time integrated (16 x the first 6 000 R*), not the first horizon
    assert c.alpha_relaxation == pytest.approx((1 / 16) * 16 * 6000, rel=1e-12)


def test_a_cycle_beyond_the_step_budget_is_said_to_be_longer_than_it():
    """wbar ~ 1e7 at g = 1/16: the period (~g wbar / 4 R*) exceeds what 1e8 steps can show three times;
    the error says so and by how much, not "integrate longer (wbar must be > 2)" alone (a probe)."""
    with pytest.raises(ValueError, match=r"no limit cycle found at wbar = 9\.75e\+06.*period exceeds ~6\.4e\+04 R\*"):
        th.limit_cycle(9.75e6, 1 / 16, psi=0.17)


def test_a_period_beyond_the_step_budget_is_not_searched_for():
    """At wbar ~ 1e8 (10 Tbps x 1 s, N = 1) the period is ~ g wbar / 4 R*, far beyond what any run
    within the budget can show; the long search integrated 1, 4, 16, 64 times the horizon to find
    nothing (minutes, a probe). It is now refused without those runs, and the message says why."""
    from dcsim.theory.dctcp import PERIOD_GUESS_LOW, _period_guess

    wbar, g = 8.0e8, 1.0
    with pytest.raises(ValueError, match=r"no limit cycle found at wbar = 8e\+08, g = 1: its period, ~.* R\* or more, "
                                         r"exceeds what a run within the budget .* not integrated"):
        th.limit_cycle(wbar, g)
    assert PERIOD_GUESS_LOW * _period_guess(wbar, g) == pytest.approx(0.25 * g * wbar / 4)
    # the lower bound holds where the period is known (Fig. 8's cycles: T >= 0.45 x the guess)
    for w, gg in ((10.0, 0.01), (1000.0, 0.01), (1e4, 0.01), (100.0, 0.1), (14.0, 0.3)):
        assert th.limit_cycle(w, gg).T >= PERIOD_GUESS_LOW * _period_guess(w, gg)


def test_a_limit_cycles_throughput_is_a_fraction_of_C_and_tiny_g_warns_nothing():
    """A cycle that never empties the queue has throughput 1 exactly ((13) over a period): the
    trapezoid gave 1.00000007 at g = 1e-320 and 1.0000000007 at g = 1e-6, a fraction of C above 1,
    and 6/g overflowed with a RuntimeWarning on the terminal (a probe)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning fails the test
        for g in (1e-320, 1e-6, 1 / 16):
            c = th.limit_cycle(10.0, g)
            assert 0.0 <= c.throughput <= 1.0, (g, c.throughput)


def test_the_sawtooth_model_needs_a_window_of_two_packets():
    """alpha = sqrt(2/W*) is a marked fraction: W* = 1 gave alpha = 1.41 with no error (a review).
    W* = 2 is the model's edge (alpha = 1)."""
    from dcsim.theory import dctcp as th

    with pytest.raises(ValueError, match=r"^sawtooth: W\* = \(C d \+ K\)/N = 1 packets; the model needs W\* >= 2"):
        th.sawtooth(1e3, 1e-3, 0, 1)
    assert th.sawtooth(1e3, 1e-3, 1, 1).alpha == 1.0


@pytest.mark.parametrize("psi, grid, name", [([0.1], [], "wbar_grid"), ([], [10.0], "psi")])
def test_worst_case_throughput_refuses_an_empty_grid_by_name(psi, grid, name):
    """An empty wbar grid raised numpy's "attempt to get argmin of an empty sequence"; no psi gave a
    table without columns (a review)."""
    from dcsim.theory import dctcp as th

    with pytest.raises(ValueError, match=rf"^{name}: give at least one value"):
        th.worst_case_throughput(psi, 0.05, grid)
