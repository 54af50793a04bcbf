"""dsm-theory (python/dcsim/experiments/dsm_theory.py) against hand computation from the paper's
equations (papers/dsm-converged-ethernet-delays.md, Section III and Appendix A).

Eq. (17) with xi = 0: Q̂_v(k+1) = Q̂_v(k) + T u(k), Q̂_f(k+1) = Q̂_f(k) + Q̂_v(k+1). §V: T = 80 us,
m = 4, omega = 5, a = 20 kHz/34, b = 20 kHz/11, c = 20 kHz/2.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dcsim.experiments import dsm_theory as dt
from dcsim.experiments.registry import DIFFERS, REPRODUCED, get
from dcsim.theory import dsm as th

T = 80e-6
OMEGA = 5.0


def by_hand(u_of, f, v):
    """One step of eq. (17), xi = 0, with the control u(Q̂_f, Q̂_v) written out."""
    v2 = v + T * u_of(f, v)
    return f + v2, v2


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("dsm_theory")
    res = get("dsm-theory").run(out, True)
    return res, pd.read_csv(out / "dsm_theory_criteria.csv"), out


@pytest.mark.parametrize("aT", [20e3 / 34 * T, 0.3, 1.0, 1.7, 1.99])
def test_state_a_is_a_clockwise_rotation_by_arccos_computed_independently(aT):
    a = aT / T
    # the matrix written from eq. (17) with u = -a Q̂_f: columns are the images of (1, 0) and (0, 1)
    e1 = by_hand(lambda f, v: -a * f, 1.0, 0.0)
    e2 = by_hand(lambda f, v: -a * f, 0.0, 1.0)
    A = np.array([[e1[0], e2[0]], [e1[1], e2[1]]])
    assert A == pytest.approx(np.array([[1 - aT, 1.0], [-aT, 1.0]]), abs=1e-15)
    assert dt.state_a_matrix(a, T) == pytest.approx(A, abs=1e-15)
    lam = np.linalg.eigvals(A)
    assert np.abs(lam) == pytest.approx([1.0, 1.0], abs=1e-12)
    assert np.abs(np.angle(lam)) == pytest.approx([math.acos((2 - aT) / 2)] * 2, abs=1e-12)
    # the paper's G^-1 R G is this A (and not eq. (34)'s printed [[1 - aT, 0], [-aT, 1]])
    s = math.sqrt(1 / aT - 0.25)
    G = np.array([[1.0, -0.5], [0.0, s]])
    w = math.sqrt(4 * aT - aT * aT) / 2
    R = np.array([[(2 - aT) / 2, w], [-w, (2 - aT) / 2]])
    assert np.linalg.inv(G) @ R @ G == pytest.approx(A, abs=1e-12)
    assert np.max(np.abs(np.linalg.inv(G) @ R @ G - np.array([[1 - aT, 0.0], [-aT, 1.0]]))) > 0.5
    # clockwise (Q̂_f across, Q̂_v up): from the negative Q̂_f axis the state moves up
    X = np.array([-1.0, 0.0])
    Y = A @ X
    assert Y[1] > 0 and X[0] * Y[1] - X[1] * Y[0] < 0
    assert dt.rotation_row(aT)["ok"]


def test_a_gain_beyond_the_rotation_makes_claim_1_differ(monkeypatch, tmp_path):
    # 2/T < a < 4/T still rotates (the paper's bound is sufficient, not sharp); a > 4/T does not
    assert dt.rotation_row(3.0)["ok"]
    bad = dt.rotation_row(5.0)
    assert not bad["ok"] and bad["eig_mod_err"] > 1  # eigenvalues of [[-4, 1], [-5, 1]]: real, -1.5 +- 1.1
    assert np.sort(np.linalg.eigvals(dt.state_a_matrix(5.0 / T, T))) == pytest.approx(
        np.sort(np.roots([1, -(2 - 5.0), 1])), abs=1e-12)
    monkeypatch.setattr(dt, "AT_GRID", (0.5, 5.0))
    res = get("dsm-theory").run(tmp_path, True)
    assert res.claims[0].statement.startswith("Prop. 1: in StateA") and res.claims[0].verdict == DIFFERS


@pytest.mark.parametrize("bT", [0.05, 20e3 / 11 * T, 0.5, 0.9])
def test_state_b_moves_on_lines_of_slope_minus_bt_over_1_minus_bt(bT):
    b = bT / T
    f, v = -3.0, 2.0
    pts = [(f, v)]
    for _ in range(10):
        f, v = by_hand(lambda f, v: -b * v, f, v)
        pts.append((f, v))
    P = np.array(pts)
    slopes = (P[1:, 1] - P[0, 1]) / (P[1:, 0] - P[0, 0])
    assert slopes == pytest.approx(np.full(10, -bT / (1 - bT)), rel=1e-12)
    assert dt.state_b_matrix(b, T) @ np.array([-3.0, 2.0]) == pytest.approx(P[1], rel=1e-15)
    assert dt.line_row(bT)["ok"]


@pytest.mark.parametrize("f,v", [(-20e3, 2e3), (-5e3, 3e3), (10e3, 5e3), (10e3, -1e3), (2e3, -3e3), (-10e3, -5e3)])
def test_one_step_of_the_rule_is_the_map_of_its_region(f, v):
    a, b, c = th.gains_from_h(4, 20e3, 20e3, 20e3)
    region, f2, v2 = dt.rule_step(f, v, a, b, c)
    # the regions of eq. (22) by hand
    d = f + OMEGA * v
    hand = "C" if f * v > 0 else ("A" if v * d < 0 else "B")
    assert region == hand
    u = {"A": -a * f, "B": -b * v, "C": -c * f}[region]
    assert (f2, v2) == pytest.approx(by_hand(lambda *_: u, f, v), rel=1e-15)
    M = {"A": dt.state_a_matrix(a, T), "B": dt.state_b_matrix(b, T), "C": dt.state_c_matrix(c, T)}[region]
    assert M @ np.array([f, v]) == pytest.approx([f2, v2], rel=1e-12)


def test_section_v_b_is_below_the_lower_bound_of_23_and_stateb_then_moves_away_from_the_line():
    b = 20e3 / 11
    bound = 1 / ((OMEGA + 1) * T)
    assert b == pytest.approx(1818.18, abs=0.01) and bound == pytest.approx(2083.33, abs=0.01) and b < bound
    assert dt.B_SV == pytest.approx(b, rel=1e-15)
    # StateB in quadrant II (Q̂_f < 0, Q̂_v > 0, delta > 0): delta(k+1) - delta(k) = Q̂_v (1 - (omega+1) b T)
    f, v = -2.0, 1.0
    f2, v2 = by_hand(lambda f, v: -b * v, f, v)
    assert (f2 + OMEGA * v2) - (f + OMEGA * v) == pytest.approx(v * (1 - (OMEGA + 1) * b * T), rel=1e-12)
    assert (f + OMEGA * v) * ((f2 + OMEGA * v2) - (f + OMEGA * v)) > 0  # condition (20) fails
    b_in = dt.B_RAISED
    assert bound < b_in < 1 / (T * (1.5 + 4))  # inside (23) and the corrected (31)
    f2, v2 = by_hand(lambda f, v: -b_in * v, f, v)
    assert (f + OMEGA * v) * ((f2 + OMEGA * v2) - (f + OMEGA * v)) < 0  # (20) holds


def test_the_maps_are_validated_against_the_queue_model():
    a, b, c = th.gains_from_h(4, 20e3, 20e3, 20e3)
    r = dt.validate_maps(a, b, c)
    assert r["ok"] and r["n_A"] and r["n_B"] and r["n_C"]


def test_verdicts_follow_their_criteria_in_the_csv(quick_run):
    res, crit, _ = quick_run
    rel = {"<=": lambda x, y: x <= y, "<": lambda x, y: x < y, ">": lambda x, y: x > y, ">=": lambda x, y: x >= y,
           "==": lambda x, y: x == y}
    recomputed = [rel[r.relation](r.value, r.bound) for r in crit.itertuples()]
    assert recomputed == list(crit.passed)
    assert set(crit.row) == set(range(len(res.claims)))  # every row of the table rests on criteria
    for i, claim in enumerate(res.claims):
        rows = crit[crit.row == i]
        assert (rows.statement == claim.statement).all()
        assert claim.verdict == (REPRODUCED if rows.passed.all() else DIFFERS), claim.statement


def test_the_quick_verdicts(quick_run):
    res, _, out = quick_run
    assert len(res.paper_claims) == 6 and len(res.checks) == 7
    # §II-B's sampling periods, T = 1/(p C) with 1 000-byte frames and p = 0.01, by hand: 8e3/(0.01 x 10^10) s
    (sp,) = [c for c in res.paper_claims if c.statement.startswith("§II-B")]
    assert sp.verdict == REPRODUCED and "10 Gbps: T = 1/(p C) = 80 us" in sp.ours and "100 Gbps: T = 1/(p C) = 8 us" in sp.ours
    assert res.paper_claims[0].verdict == REPRODUCED  # StateA rotation
    assert res.paper_claims[1].verdict == REPRODUCED  # StateB lines
    assert res.paper_claims[3].verdict == REPRODUCED  # (23): reaches (0, 0), (20) holds
    (sv,) = [c for c in res.checks if c.statement.startswith("(setup) §V's printed gains")]
    assert sv.verdict == DIFFERS  # §V's b violates (23): a check, the paper never says they satisfy it
    pp = pd.read_csv(out / "dsm_theory_phase_plane.csv")
    assert set(pp.panel) == {"maps", "rule"} and set(pp.region) <= {"A", "B", "C"}
    assert (out / "dsm_theory_phase_plane.png").stat().st_size > 0
