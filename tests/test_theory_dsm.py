"""DSM theory (dcsim.theory.dsm) against hand computation from the paper's formulas.

Paper: papers/dsm-converged-ethernet-delays.md. §V setting: C = 10 Gbps, 1 KB (1000 B) frames,
p = 0.01, so T = 1/(pC) = 100 frames * 8000 bit / 1e10 bit/s = 80 us and 2/T = 25 kHz; loop delay
300 us; m = 4; H_a = H_b = H_c = 20 kHz; omega = 5.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from dcsim.cli import app
from dcsim.theory import dsm

T = 80e-6
C = 10e9


# ------------------------------------------------------------------------------ T and m (eq. 6)


def test_sampling_period_matches_the_paper_at_10_40_100_gbps():
    # §II.B: "about 80 us" at 10 Gbps; "the sampling period shrinks to 20 us and 8 us" at 40/100 Gbps.
    assert dsm.sampling_period_s(10e9, 0.01) == pytest.approx(80e-6, rel=1e-12)
    assert dsm.sampling_period_s(40e9, 0.01) == pytest.approx(20e-6, rel=1e-12)
    assert dsm.sampling_period_s(100e9, 0.01) == pytest.approx(8e-6, rel=1e-12)
    # 1500 B frames: 100 * 12000 bit / 1e10 = 120 us.
    assert dsm.sampling_period_s(10e9, 0.01, 1500) == pytest.approx(120e-6, rel=1e-12)


@pytest.mark.parametrize("delay_s,T_s,m", [
    (300e-6, 80e-6, 4),     # §V: 300 us loop delay -> m = 4 (3.75 rounded up)
    (320e-6, 80e-6, 4),     # an exact multiple stays
    (800e-6, 80e-6, 10),    # §V.B heterogeneous delays in [400, 800] us
    (160e-6, 8e-6, 20),     # 100 Gbps, 160 us
    (0.0, 80e-6, 1),        # m is in N+ (eq. 6)
    (1e-9, 80e-6, 1),
])
def test_delay_bound_eq6(delay_s, T_s, m):
    assert dsm.delay_bound_m(delay_s, T_s) == m


# ------------------------------------------------------------------------------ gains and ranges


def test_gains_from_h_section_v():
    a, b, c = dsm.gains_from_h(4, 20e3, 20e3, 20e3)
    # m² + 4m + 2 = 34, 2m + 3 = 11, 2
    assert (a, b, c) == pytest.approx((20e3 / 34, 20e3 / 11, 10e3), rel=1e-15)
    assert dsm.h_factors(0) == (2.0, 3.0, 2.0)


def test_ranges_at_section_v_by_hand():
    r = dsm.admissible_ranges(C, 0.01, 4, 5.0)
    # §V reading: p max Q_f = 1, p max Q_v = 3/2 frames.
    assert (r.p_qf_max, r.p_qv_max) == pytest.approx((1.0, 1.5), rel=1e-12)
    # eq. (23): a, c < 2/T = 25000 1/s; 1/((omega+1)T) = 1/(6 * 80 us) = 2083.33 < b < 1/T = 12500.
    assert r.a_max_eq23 == pytest.approx(25_000, rel=1e-12)
    assert r.c_max_eq23 == pytest.approx(25_000, rel=1e-12)
    assert r.b_min_eq23 == pytest.approx(1 / (6 * T), rel=1e-12) == pytest.approx(2083.333333, rel=1e-9)
    assert r.b_max_eq23 == pytest.approx(12_500, rel=1e-12)
    # eq. (31) (corrected): a < 1/(T (1 + 4*1.5 + 10)) = 1/(17 T) = 735.29; b < 1/(T (1.5 + 4)) = 2272.73;
    # c < min(1/(1 * T), 2/T) = 12500; omega > 4 + 1.5 - 1 = 4.5.
    assert r.a_max_eq31 == pytest.approx(1 / (17 * T), rel=1e-12)
    assert r.b_max_eq31 == pytest.approx(1 / (5.5 * T), rel=1e-12)
    assert r.c_max_eq31 == pytest.approx(12_500, rel=1e-12)
    assert r.omega_min_eq31 == pytest.approx(4.5, rel=1e-12)
    # §V's printed form: a -> [2/((m²+4m+2) T)]^-, b -> [2/((2m+3) T)]^-, c -> [(1/2)(2/T)]^-.
    assert r.a_max == pytest.approx(2 / (34 * T), rel=1e-12)
    assert r.b_max == pytest.approx(2 / (11 * T), rel=1e-12)
    assert r.c_max == pytest.approx(1 / T, rel=1e-12)
    # ... i.e. H_a, H_b, H_c < 2/T = 25 kHz.
    for H in (r.H_a_max_hz, r.H_b_max_hz, r.H_c_max_hz):
        assert H == pytest.approx(25e3, rel=1e-12)


@pytest.mark.parametrize("m", [0, 1, 2, 3, 4, 6, 10, 25])
def test_corrected_eq31_gives_section_v_h_form_for_every_m(m):
    """With p max Q_f = 1 and p max Q_v = 3/2 the corrected (31) is §V's H < 2/T for any m (and the
    same T); this is what pins our reading of the maxima."""
    r = dsm.admissible_ranges(C, 0.01, m, omega=m + 1.0)
    assert r.H_a_max_hz == pytest.approx(2 / T, rel=1e-12)
    assert r.H_b_max_hz == pytest.approx(2 / T, rel=1e-12)
    assert r.H_c_max_hz == pytest.approx(2 / T, rel=1e-12)


def test_ranges_with_physical_maxima_by_hand():
    # max Q_f = q0 = 64 KB (empty queue: Q_f = -q0), max Q_v = 20 KB; p = 0.01, 1000 B frames:
    # p max Q_f = 0.64, p max Q_v = 0.2; m = 2:
    # a < 1/(T (0.64 + 2*0.2 + 3)) = 1/(4.04 T); b < 1/(T (0.2 + 2)); c < min(1/(0.64 T), 2/T) = 1/(0.64 T);
    # omega > 2 + 0.2 - 1 = 1.2.
    r = dsm.admissible_ranges(C, 0.01, 2, 5.0, qf_max_bytes=64e3, qv_max_bytes=20e3)
    assert r.a_max_eq31 == pytest.approx(1 / (4.04 * T), rel=1e-12)
    assert r.b_max_eq31 == pytest.approx(1 / (2.2 * T), rel=1e-12)
    assert r.c_max_eq31 == pytest.approx(1 / (0.64 * T), rel=1e-12)
    assert r.omega_min_eq31 == pytest.approx(1.2, rel=1e-12)


def test_paper_parameters_against_the_ranges():
    """The paper's §V choice (H = 20 kHz, m = 4, omega = 5) satisfies every bound but one: b = 20 kHz/11
    = 1818.2 1/s is below eq. (23)'s lower bound 1/((omega+1) T) = 2083.3 1/s (even with xi = 0).
    Reported as a finding (README / report), not adjusted."""
    r = dsm.admissible_ranges(C, 0.01, 4, 5.0)
    a, b, c = dsm.gains_from_h(4, 20e3, 20e3, 20e3)
    ck = dsm.check_parameters(r, a, b, c)
    assert ck == {"a_eq23": True, "a_eq31": True, "b_eq23_lower": False, "b_eq23_upper": True, "b_eq31": True,
                  "c_eq23": True, "c_eq31": True, "omega_eq31": True}
    assert b == pytest.approx(1818.18, rel=1e-5) and r.b_min_eq23 == pytest.approx(2083.33, rel=1e-5)
    # b inside would need H_b in (11 * 2083.3, 25000) = (22917, 25000) Hz.
    assert r.b_min_eq23 * 11 == pytest.approx(22916.67, rel=1e-6)


def test_smcc_defaults_satisfy_the_m0_ranges():
    """The engine's SMCC defaults (l2/smcc.rs: a = c = 10^4, b = 20000/3 1/s, omega = 5) are inside
    eq. (23) and (31) at m = 0 with the §V reading, as its docstring claims."""
    r = dsm.admissible_ranges(C, 0.01, 0, 5.0)
    ck = dsm.check_parameters(r, 10e3, 20e3 / 3, 10e3)
    assert all(ck.values()), ck
    assert dsm.gains_from_h(0, 20e3, 20e3, 20e3) == pytest.approx((10e3, 20e3 / 3, 10e3))


def test_eq27_u_max():
    # §V reading: |Q̂_f|max = C T (1 + 1.5 m + m(m+1)/2) = C T (m²+4m+2)/2, so a |Q̂_f|max = H_a C T / 2
    # (bytes/s with C T in bytes): at H = 2/T exactly C, at the paper's 20 kHz 0.8 C = 8 Gbps.
    qf, qv = dsm.section_v_maxima(C, 0.01)
    assert (qf, qv) == pytest.approx((100e3, 150e3), rel=1e-12)
    a, b, c = dsm.gains_from_h(4, 2 / T, 2 / T, 2 / T)
    e = dsm.u_max_bps(a, b, c, C, 0.01, 4, qf, qv)
    assert e["qf_hat_max_bytes"] == pytest.approx(100e3 * 17, rel=1e-12)   # 100 + 4*150 + 10*100 KB
    assert e["qv_hat_max_bytes"] == pytest.approx(150e3 + 400e3, rel=1e-12)
    for k in ("u_max_A_bps", "u_max_B_bps", "u_max_C_bps"):
        assert e[k] == pytest.approx(C, rel=1e-12)
    a, b, c = dsm.gains_from_h(4, 20e3, 20e3, 20e3)
    e = dsm.u_max_bps(a, b, c, C, 0.01, 4, qf, qv)
    assert e["u_max_bps"] == pytest.approx(8e9, rel=1e-12) and e["ok"]
    e = dsm.u_max_bps(a, b, 2 * c, C, 0.01, 4, qf, qv)  # c = 20000: 8 * 20000 * 100 KB = 16 Gbps > C
    assert e["u_max_C_bps"] == pytest.approx(16e9, rel=1e-12) and not e["ok"]


# ------------------------------------------------------------------------------ the sliding rule


def test_sliding_rule_regions():
    rule = lambda qf, qv: dsm.sliding_rule(qf, qv, 1.0, 2.0, 3.0, 5.0)  # noqa: E731
    assert rule(-10e3, 1e3) == ("A", 10e3)
    assert rule(-10e3, 3e3) == ("B", -6e3)
    assert rule(10e3, 1e3) == ("C", -30e3)
    assert rule(-10e3, -1e3) == ("C", 30e3)
    assert rule(10e3, -1e3) == ("A", -10e3)
    assert rule(10e3, -3e3) == ("B", 6e3)


# ------------------------------------------------------------------------------ discrete model (eq. 9)


def _gains(Hb=24e3):
    # H_b = 24 kHz puts b = 2181.8 1/s inside eq. (23)'s (2083.3, 2272.7) at m = 4, omega = 5.
    return dsm.gains_from_h(4, 20e3, Hb, 20e3)


def test_predictor_is_exact_for_constant_delays():
    """Eq. (13)-(14): with every loop delay equal to m, xi = 0 and (Q̂_f(k), Q̂_v(k)) = (Q_f(k+m), Q_v(k+m))."""
    a, b, c = _gains()
    run = dsm.simulate_discrete(C_bps=C, q0_bytes=64e3, p=0.01, m=4, a=a, b=b, c=c, omega=5.0, n_samples=300,
                                q_init_bytes=20e3, rate_init_bps=1.3 * C)
    qf = run.q_bytes - 64e3
    # Q_v(0) = T (R(0) - C) = 80 us * 0.3 * 10 Gbps / 8 = 30 KB (the initial rate was in effect before).
    qv = np.diff(run.q_bytes, prepend=20e3 - 30e3)
    # Rounding only: values are O(1e5) bytes, double precision -> 1e-6 B is generous.
    np.testing.assert_allclose(run.qf_hat_bytes[:-4], qf[4:], atol=1e-6)
    np.testing.assert_allclose(run.qv_hat_bytes[:-4], qv[4:], atol=1e-6)
    # With a longer true delay the prediction is not exact (xi != 0).
    run2 = dsm.simulate_discrete(C_bps=C, q0_bytes=64e3, p=0.01, m=4, a=a, b=b, c=c, omega=5.0, n_samples=300,
                                 q_init_bytes=20e3, rate_init_bps=1.3 * C, delay_samples=6)
    qf2 = run2.q_bytes - 64e3
    assert np.max(np.abs(run2.qf_hat_bytes[:-4] - qf2[4:])) > 1e3


@pytest.mark.parametrize("m, d", [(13, 13), (5, 9), (9, 2)])
def test_the_predictor_sums_are_eq25s_sums(m, d):
    """Eq. (25)'s sums over the last m controls are kept as running sums (O(1) a period; a probe's
    m = 1e5 took minutes as a dot product): Q̂_f(k) = Q_f(k) + m Q_v(k) + T sum_{i=1..m} i u(k-i)
    and Q̂_v(k) = Q_v(k) + T sum_{i=1..m} u(k-i), summed here directly from the run's own u."""
    a, b, c = _gains()
    run = dsm.simulate_discrete(C_bps=C, q0_bytes=64e3, p=0.01, m=m, a=a, b=b, c=c, omega=5.0, n_samples=400,
                                q_init_bytes=20e3, rate_init_bps=1.3 * C, delay_samples=d)
    T = dsm.sampling_period_s(C, 0.01)
    u = run.u_bps / 8.0
    qv = np.diff(run.q_bytes, prepend=20e3 - T * 0.3 * C / 8.0)
    for k in range(run.q_bytes.size):
        past = [u[k - i] if k - i >= 0 else 0.0 for i in range(1, m + 1)]
        want_f = run.q_bytes[k] - 64e3 + m * qv[k] + T * sum(i * x for i, x in enumerate(past, start=1))
        want_v = qv[k] + T * sum(past)
        # Rounding only: terms of O(1e6) B, double precision: 1e-6 B is ~1e-12 relative.
        assert run.qf_hat_bytes[k] == pytest.approx(want_f, abs=1e-6) and run.qv_hat_bytes[k] == pytest.approx(want_v, abs=1e-6)


def test_queue_converges_to_q0_under_eq22():
    """Parameters inside eq. (23), constant delays (xi = 0): the state reaches the line delta = 0 and
    slides to the origin. On the line Q̂_f(k+1) - Q̂_f(k) = Q̂_v(k+1) with Q̂_f = -omega Q̂_v gives
    Q̂_v(k+1) = omega/(omega+1) Q̂_v(k): an initial offset of q0 = 64 KB falls below 1 B after
    ln(64000)/ln(6/5) = 61 periods on the line. We allow 2000 periods (160 ms) for reaching, the
    4-period delay and chattering, and require |q - q0| < 1 B over the last 100 periods."""
    a, b, c = _gains()
    run = dsm.simulate_discrete(C_bps=C, q0_bytes=64e3, p=0.01, m=4, a=a, b=b, c=c, omega=5.0, n_samples=2000)
    assert np.max(np.abs(run.q_bytes[-100:] - 64e3)) < 1.0
    assert np.max(np.abs(run.rate_bps[-100:] - C)) < 1.0 / 80e-6 * 8  # < 1 B per period of rate mismatch
    # and it used more than the reaching law: the state visited the sliding regions.
    assert {"A", "B", "C"} <= set(run.region.tolist())
    # Same with the queue floored at 0 (the floor is never active once the queue has risen).
    run_f = dsm.simulate_discrete(C_bps=C, q0_bytes=64e3, p=0.01, m=4, a=a, b=b, c=c, omega=5.0, n_samples=2000,
                                  queue_floor=True)
    assert np.max(np.abs(run_f.q_bytes[-100:] - 64e3)) < 1.0


def test_model_validates_input():
    a, b, c = _gains()
    for kw in (dict(p=0.0), dict(p=1.5), dict(m=-1), dict(q0_bytes=0.0), dict(q0_bytes=math.nan), dict(n_samples=0),
               dict(a=-1.0)):
        args = dict(C_bps=C, q0_bytes=64e3, p=0.01, m=4, a=a, b=b, c=c, omega=5.0)
        args.update(kw)
        with pytest.raises(ValueError):
            dsm.simulate_discrete(**args)
    with pytest.raises(ValueError, match="delay_s"):
        dsm.delay_bound_m(-1e-6, T)


# ------------------------------------------------------------------------------ CLI


runner = CliRunner()


def _cli(*args):
    return runner.invoke(app, ["theory", "dsm", *args])


def test_the_discrete_model_says_when_it_rounds_the_delay_up(monkeypatch):
    """Eq. (6) counts the loop delay in whole sampling periods (T = 80 us at 10 Gbps): 100 us runs
    as 2 T = 160 us, which the table says beside "2 T"; 320 us is 4 T exactly and says nothing more."""
    from dcsim.cli import console

    monkeypatch.setattr(console, "_width", 250)
    said = " ".join(_cli("--C", "10Gbps", "--delay", "100us").output.split())
    assert "constant loop delay 2 T = 160 us, --delay 100 us rounded up to whole periods (eq. 6)" in said, said
    said = " ".join(_cli("--C", "10Gbps", "--delay", "320us").output.split())
    assert "constant loop delay 4 T = 320 us, start" in said and "rounded" not in said, said


def test_cli_table_and_json(monkeypatch):
    from dcsim.cli import console

    monkeypatch.setattr(console, "_width", 200)  # no wrapping of the table cells
    r = _cli("--C", "10Gbps", "--q0", "64KB", "--p", "0.01", "--m", "4", "--delay", "300us")
    assert r.exit_code == 0, r.output
    for s in ("80 us", "25 kHz", "588.24 1/s", "1818.2 1/s", "2083.3 1/s", "8 Gbps", "64 KB"):
        assert s in r.output, s
    r = _cli("--C", "10Gbps", "--delay", "300us", "--json", "--no-simulate")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["m"] == 4 and d["m_from_delay"] == 4 and not d["m_given"]
    assert d["T_s"] == pytest.approx(80e-6, rel=1e-12)
    assert d["checks"]["b_eq23_lower"] is False
    assert "simulation" not in d
    # m below the delay bound is reported.
    r = _cli("--C", "10Gbps", "--delay", "300us", "--m", "2", "--json", "--no-simulate")
    assert json.loads(r.output)["m_below_delay_bound"] is True
    assert json.loads(r.output)["all_ok"] is False  # it said true with m below the delay bound (an audit)
    # m = 0 with max Q_v = 0: eq. (31) does not bound b (1/(T (0 + 0))); JSON says null, not Infinity.
    r = _cli("--C", "10Gbps", "--delay", "0us", "--m", "0", "--qv-max", "0B", "--json", "--no-simulate")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["ranges"]["b_max_eq31_per_s"] is None


@pytest.mark.parametrize("args,opt", [
    (["--p", "0"], "--p"),
    (["--p", "1.5"], "--p"),
    (["--p", "nan"], "--p"),
    (["--q0", "0KB"], "--q0"),
    (["--q0", "-5KB"], "--q0"),
    (["--q0", "64pkt"], "--q0"),
    (["--q0", "1e30KB"], "--q0"),
    (["--delay", "-1us"], "--delay"),
    (["--delay", "1e9s"], "--delay"),
    (["--m", "-1"], "--m"),
    (["--m", "100000000"], "--m"),
    (["--C", "0Gbps"], "--C"),
    (["--C", "1e30Gbps"], "--C"),
    (["--C", "nanGbps"], "--C"),
    (["--omega", "inf"], "--omega"),
    (["--Hb", "-1"], "--Hb"),
    (["--frame", "0B"], "--frame"),
    (["--samples", "0"], "--samples"),
    (["--delay", "100s"], "--delay"),   # 1.25e6 sampling periods > MAX_M
])
def test_cli_bad_input_exits_2_naming_the_option(args, opt):
    base = {"--C": "10Gbps", "--delay": "300us"}
    for i in range(0, len(args), 2):
        base[args[i]] = args[i + 1]
    flat = [x for kv in base.items() for x in kv]
    r = _cli(*flat, "--no-simulate")
    assert r.exit_code == 2, r.output
    err = r.stderr if r.stderr_bytes is not None else ""
    assert opt in r.output or opt in err
    assert "Traceback" not in r.output + err


def test_a_model_queue_below_zero_is_flagged_not_shown_as_a_queue():
    """The discrete model is the paper's eq. (7) without a floor, so a badly tuned m (here 10^5
    periods against a 300 us loop of ~37 periods) drives its queue below 0, which `theory dsm`
    printed as a plain "queue range" of -483 KB. The summary flags it and the CLI says what it means."""
    bad = dsm.analyze(10e9, 64e3, 0.01, 300e-6, m=100_000)["simulation"]  # the CLI's defaults: q0 64 KB, p 0.01
    assert bad["q_min_bytes"] < 0 and bad["q_below_zero"] is True and bad["queue_floor"] is False
    good = dsm.analyze(10e9, 64e3, 0.01, 300e-6)["simulation"]
    assert good["q_min_bytes"] >= 0 and good["q_below_zero"] is False
    res = CliRunner().invoke(app, ["theory", "dsm", "--C", "10Gbps", "--delay", "300us", "--m", "100000"],
                             env={"COLUMNS": "200"})
    assert res.exit_code == 0 and "went below 0" in res.output and "not floored at 0" in res.output


@pytest.mark.parametrize("kw, says", [({"C_bps": 1}, "C_bps: 1 bps is out of range; allowed 1 Mbps <= C_bps <= 10 Tbps"),
                                      ({"p": 0}, "p: 0 is out of range; allowed 1e-06 <= p <= 1"),
                                      ({"H_b_hz": 0.5}, "H_b_hz: 0.5 Hz is out of range"),
                                      ({"n_samples": 0}, "n_samples: 0 is out of range"),
                                      ({"n_samples": 2.7}, "n_samples: 2.7 is not an integer"),
                                      ({"n_samples": 10**400}, "n_samples: an integer of 401 digits is out of range"),
                                      ({"frame_bytes": 65535.01}, "frame_bytes: 65535.01 B is out of range")])
def test_analyze_checks_the_ranges_the_cli_checks(kw, says):
    """dcsim.theory.dsm.analyze took C = 1 bit/s, which `dcsim theory dsm --C` refuses (1 Mbps ..
    10 Tbps; a help probe): the Python entry point checks the ranges of theory.limits as the CLI does."""
    from dcsim.theory import dsm

    args = dict(C_bps=10e9, q0_bytes=64e3, p=0.01, delay_s=100e-6, simulate=False)
    with pytest.raises(ValueError, match="^" + re.escape(says)):
        dsm.analyze(**{**args, **kw})


def test_eq27_states_c_with_and_without_the_m_terms_and_json_ranges_carry_units():
    """An audit of `theory dsm`: StateC's |u| used max Q_f (the paper drops the m terms for c) in a
    table titled 'bounds of eq. 29', where eq. (29)'s |Q̂_f|max gives 136 Gbps at the defaults;
    and the JSON's ranges had keys without units although the help promises them."""
    r = dsm.analyze(10e9, 64e3, 0.01, 300e-6, simulate=False)
    e = r["eq27"]
    assert e["u_max_C_with_m_terms_bps"] == pytest.approx(8 * r["c_per_s"] * e["qf_hat_max_bytes"], rel=1e-12)
    assert e["u_max_C_with_m_terms_bps"] > 10e9 > e["u_max_C_bps"] and e["ok_with_m_terms"] is False
    assert all(k.endswith(("_per_s", "_frames", "_s", "_hz")) or k in ("m", "omega", "omega_min_eq31")
               for k in r["ranges"]), r["ranges"].keys()
    text = " ".join(_cli("--C", "10Gbps", "--delay", "300us", "--no-simulate").output.split())
    assert "with eq. (29)'s |Q̂_f|max: 136 Gbps, which changes the verdict: above C" in text
    omega = " ".join(_cli("--C", "100Gbps", "--delay", "100us", "--no-simulate").output.split())
    assert "ω = 5 is at or below eq. (31)'s m + p max(Q_v) - 1 = 13.5 at m = 13" in omega
