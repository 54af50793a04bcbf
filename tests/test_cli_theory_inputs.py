"""Hostile input to `dcsim theory dctcp | dx` and `dcsim fluid dctcp | dx | dctcp-fig2` (issue 6):
every bad value exits with status 2 and a one-line message naming the option and its allowed range,
never a traceback; output paths are checked before anything is computed; the commands agree on
N (a real number in [1, 1e6]) and p (1e-6 <= p <= 1 - 1e-6)."""

from __future__ import annotations

import itertools
import json
import math

import pytest
from typer.testing import CliRunner

from dcsim.cli import app
from dcsim.theory import dctcp as th_dctcp
from dcsim.theory import dx as th_dx
from dcsim.theory import limits as L

runner = CliRunner()

BASE = {
    "theory dctcp": ["theory", "dctcp", "--C", "10Gbps", "--d", "100us", "--no-cycle"],
    "theory dx": ["theory", "dx", "--N", "50", "--C", "10Gbps", "--R0", "80us"],
    "fluid dctcp": ["fluid", "dctcp", "--t-end", "1ms"],
    "fluid dx": ["fluid", "dx", "--t-end", "1ms"],
}


def _run(args):
    res = runner.invoke(app, args)
    text = " ".join(res.output.split())  # Rich wraps long lines at the terminal width
    return res, text


def _bad(args, option):
    res, text = _run(args)
    assert res.exit_code == 2, (args, res.output)
    assert option in text, (args, text)
    assert "Traceback" not in res.output and "np.float64" not in text and "must have different signs" not in text
    return text


HOSTILE = {
    "--N": ["0", "-1", "1e-300", "0.5", "nan", "inf", "1e7"],
    "--C": ["1e30Gbps", "0Gbps", "-1Gbps", "1bps", "", "10GB", "nanGbps", "10"],
    "--d": ["1e-300s", "1e300s", "0us", "-5us", "", "80 parsecs"],
    "--R0": ["1e-300s", "1e300s", "0us", "-5us", "", "80 parsecs"],
    "--tau": ["1e-300s", "2s", "0us"],
    "--K": ["-1pkt", "1e300pkt", "", "5 elephants"],
    "--g": ["0", "-0.1", "1.5", "nan", "inf"],
    "--p": ["0", "1", "-0.5", "nan", "1e-300", "inf"],
    "--seg": ["1e300B", "1e-300B", "0B", "1pkt", "", "1500"],
    "--packet-size": ["1e300B", "0B", "1e-300B", "3pkt", ""],
    "--t-end": ["0s", "-1ms", "1e300s", "nans", ""],
    "--dt": ["0s", "-1us", "1s", "1e-300s"],
}
APPLIES = {
    "theory dctcp": ["--C", "--d", "--K", "--N", "--g", "--packet-size"],
    "theory dx": ["--N", "--C", "--R0", "--p", "--seg"],
    "fluid dctcp": ["--C", "--d", "--K", "--N", "--g", "--packet-size", "--t-end", "--dt"],
    "fluid dx": ["--N", "--C", "--R0", "--tau", "--p", "--packet-size", "--t-end", "--dt"],
}
#: The DX fluid model takes p = 0 and p = 1 (limits.FLUID_P; p = 1 gives the special state's Q*
#: exactly), as the Python API did; the closed forms of `theory dx` keep 1e-6 from both ends.
FLUID_P_OK = {"0", "1", "1e-300"}
CASES = [(cmd, opt, v) for cmd, opts in APPLIES.items() for opt in opts for v in HOSTILE[opt]
         if not (cmd == "fluid dx" and opt == "--p" and v in FLUID_P_OK)]


@pytest.mark.parametrize("cmd,option,value", CASES, ids=[f"{c}{o}={v}" for c, o, v in CASES])
def test_hostile_value_exits_2_naming_the_option(cmd, option, value):
    _bad([*BASE[cmd], option, value], option)


def test_out_of_range_message_names_the_range():
    text = _bad([*BASE["theory dx"][:2], "--N", "1e-300", "--C", "10Gbps", "--R0", "80us"], "--N")
    assert "1 <= N <= 1e+06 flows" in text
    text = _bad(["theory", "dx", "--N", "50", "--C", "1e30Gbps", "--R0", "80us"], "--C")
    assert "1 Mbps <= C <= 10 Tbps" in text and "1e30Gbps" in text
    text = _bad(["theory", "dx", "--N", "50", "--C", "10Gbps", "--R0", "80us", "--seg", "1e300B"], "--seg")
    assert "1 B <= seg <= 65535 B" in text
    text = _bad([*BASE["fluid dctcp"], "--t-end", "1e4s"], "--t-end")  # 1.1e10 steps: hours
    assert "steps" in text


# ------------------------------------------------------------------------- the commands agree


@pytest.mark.parametrize("cmd", list(BASE))
def test_N_is_a_real_number_in_every_command(cmd):
    args = [a for a in BASE[cmd]]
    if "--N" in args:
        i = args.index("--N")
        args = args[:i] + args[i + 2:]
    res, text = _run([*args, "--N", "2.5", *(["--json"])])
    assert res.exit_code == 0, text
    text = _bad([*args, "--N", "0.5"], "--N")
    assert L.N_FLOWS.text() in text


@pytest.mark.parametrize("p", ["0", "1"])
def test_p_ranges_of_the_dx_commands(p):
    """`theory dx` keeps p 1e-6 from both ends (its closed forms under- or overflow there);
    `fluid dx` takes both ends, as `dcsim.fluid.dx` does (a probe found the CLI refusing p = 1,
    with which the README's special state gives Q* exactly)."""
    text = _bad([*BASE["theory dx"], "--p", p], "--p")
    assert L.PROB_P.text() in text
    for bad in ("1.5", "-0.5"):
        assert L.FLUID_P.text() in _bad([*BASE["fluid dx"], "--p", bad], "--p")


# --------------------------------------------------------------------------------- output paths


@pytest.mark.parametrize("cmd", ["fluid dctcp", "fluid dx"])
@pytest.mark.parametrize("option,path", [("--csv", "/nonexistent-dir/x.csv"), ("--plot", "/nonexistent-dir/q.png"),
                                         ("--plot", "q.txt"), ("--csv", "q.parquet")])
def test_bad_output_path_fails_before_the_run(cmd, option, path, monkeypatch):
    from dcsim import fluid

    def boom(*a, **k):  # the integrator must never be reached
        raise AssertionError("integrated before checking the output path")

    monkeypatch.setattr(fluid, "dctcp", boom)
    monkeypatch.setattr(fluid, "dx", boom)
    text = _bad([*BASE[cmd], option, path], option)
    assert path in text


def test_fig2_out_that_is_a_file(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    _bad(["fluid", "dctcp-fig2", "--out", str(f), "--t-end", "1ms"], "--out")


def test_markup_in_a_path_is_printed_as_is(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = _bad([*BASE["fluid dctcp"], "--csv", "[[network.links]].txt"], "--csv")
    assert "[[network.links]].txt" in text


# ------------------------------------------------------------------------------ theory dx, N=1e5


def test_theory_dx_prints_theorem2_when_N_is_huge():
    """N = 1e5 (x = N seg/(C R0) = 1500): the critical delay is 188 ms, 2356 R0; the search used to
    stop at 64 R0 and the command exited without printing Theorem 2."""
    res, text = _run(["theory", "dx", "--N", "1e5", "--C", "10Gbps", "--R0", "80us"])
    assert res.exit_code == 0, text
    assert "Theorem 2" in text and "in the special state" in text and "critical delay, numerical" in text
    res, _ = _run(["theory", "dx", "--N", "1e5", "--C", "10Gbps", "--R0", "80us", "--json"])
    r = json.loads(res.output)
    assert r["theorem2"]["special_state"] is True
    t1 = r["theorem1"]
    assert t1["tau_critical_numerical_s"] == pytest.approx(t1["tau_bound_s"], rel=1e-9)
    # Theorem 2: Q* = (N seg - C R0)/C
    assert r["theorem2"]["Q_star_s"] == pytest.approx((1e5 * 12000 - 10e9 * 80e-6) / 10e9)


CORNERS = list(itertools.product([1.0, 1e6], [1e6, 1e13], [1e-6, 1.0], [1e-6, 1 - 1e-6], [1.0, 65535.0]))


def test_dx_analyze_is_finite_and_consistent_at_the_corners_of_the_ranges():
    """The corrected bound (17) and the characteristic-root search agree to 1e-9 everywhere in the
    documented ranges (they are the same delay margin, found two independent ways)."""
    for N, C, R0, p, seg in CORNERS:
        r = th_dx.analyze(N, C, R0, p, seg)
        t1 = r["theorem1"]
        for sec in ("equilibrium", "linearization"):
            assert all(math.isfinite(v) for v in r[sec].values()), (N, C, R0, p, seg, r[sec])
        assert t1["tau_bound_s"] > 0 and math.isfinite(t1["tau_bound_s"])
        assert t1["rel_diff_bound_vs_numerical"] < 1e-9, (N, C, R0, p, seg)
        # (6) and (5) hold at the equilibrium: N W0 = C (R0 + Q0), seg R0 (1-p) = p Q0 (W0 - seg)
        e = r["equilibrium"]
        W0 = e["W0_bytes"] * 8
        assert N * W0 == pytest.approx(C * (R0 + e["Q0_s"]), rel=1e-9)
        # (W0 - seg) cancels when W0 ~ seg (special state): compare on the scale of p Q0 W0
        assert abs(seg * 8 * R0 * (1 - p) - p * e["Q0_s"] * (W0 - seg * 8)) <= 1e-9 * p * e["Q0_s"] * W0


def test_dx_equilibrium_few_flows_fast_link_keeps_its_digits():
    """N seg << C R0: eq. (7) as printed subtracts two equal numbers; Q0 -> x (1-p)/p R0 as x -> 0."""
    N, C, R0, p, seg = 1.0, 1e13, 1.0, 0.95, 1.0
    x = N * seg * 8 / (C * R0)
    eq = th_dx.equilibrium(N, C, R0, p, seg)
    assert eq.Q0_s == pytest.approx(x * (1 - p) / p * R0, rel=1e-9)


def test_python_api_names_the_argument_and_range():
    with pytest.raises(ValueError, match=r"N: 1e-300 flows is out of range; allowed 1 <= N"):
        th_dx.analyze(1e-300, 10e9, 80e-6)
    with pytest.raises(ValueError, match=r"C_bps: .* allowed 1 Mbps <= C_bps <= 10 Tbps"):
        th_dctcp.analyze(1e40, 100e-6)
    with pytest.raises(ValueError, match=r"seg_bytes"):
        th_dx.analyze(50, 10e9, 80e-6, 0.95, 1e300)


# -------------------------------------------------------------------------- theory dctcp, wbar<=2


def test_theory_dctcp_prints_no_alpha_star_bounds_at_the_fixed_point():
    """wbar = (Cd + K)/N <= 2: the fixed point W = 2, alpha = 1 (eq. 15); the hybrid model and the
    bounds (46) (which need W* >= 2) do not apply."""
    res, text = _run(["theory", "dctcp", "--C", "10Gbps", "--d", "100us", "--K", "65pkt", "--N", "100"])
    assert res.exit_code == 0, text
    assert "fixed point" in text and "not applicable" in text and "alpha* (W* = wbar)" not in text
    res, _ = _run(["theory", "dctcp", "--C", "10Gbps", "--d", "100us", "--K", "65pkt", "--N", "100", "--json"])
    assert "alpha_star" not in res.output
    r = th_dctcp.analyze(10e9, 100e-6, 65.0, 100)
    assert "hybrid" not in r and "hybrid" in r["notes"]
    # just above wbar = 2 the bounds are printed
    r = th_dctcp.analyze(10e9, 100e-6, 65.0, 70, cycle=False)  # wbar = 148.3/70 = 2.12
    assert r["hybrid"]["alpha_star_lower"] < r["hybrid"]["alpha_star"] < r["hybrid"]["alpha_star_upper"]


def test_theory_dctcp_K0_gives_the_psi0_cycle():
    r = th_dctcp.analyze(10e9, 100e-6, 0.0, 2)
    assert r["psi"] == 0 and r["limit_cycle"]["q_min_pkt"] >= 0
    assert type(r["limit_cycle"]["converged"]) is bool  # was numpy's bool at psi = 0: --json failed


@pytest.mark.parametrize("args", [
    ["theory", "dctcp", "--C", "10Gbps", "--d", "100us", "--K", "0pkt", "--N", "2"],
    ["theory", "dctcp", "--C", "10Gbps", "--d", "100us", "--K", "65pkt", "--N", "10"],
    ["theory", "dx", "--N", "10", "--C", "10Gbps", "--R0", "80us"],
    ["theory", "dsm", "--C", "10Gbps", "--delay", "300us"],
    ["fluid", "dctcp", "--N", "10", "--K", "65pkt", "--t-end", "5ms"],
    ["fluid", "dx", "--N", "10", "--t-end", "5ms"],
])
def test_every_json_output_is_strict_json(args):
    """--json prints what any JSON reader parses: no NaN or Infinity, no numpy type left unconverted
    (which stopped `theory dctcp --K 0pkt --json` with an internal error)."""
    res, _ = _run([*args, "--json"])
    assert res.exit_code == 0, res.output
    json.loads(res.output, parse_constant=lambda c: pytest.fail(f"{c} in the JSON output"))


@pytest.mark.parametrize("call", [
    lambda: th_dx.equilibrium(1e300, 10e9, 80e-6),
    lambda: th_dx.theorem1(50, 1e-300, 80e-6),
    lambda: th_dx.stability_threshold_R0(50, 1e300),
    lambda: th_dctcp.alpha_star(1e-300, 0.0625),  # root at 1 to double precision, not a brentq failure
    lambda: th_dctcp.guidelines(float("nan"), 1e-4),
    lambda: th_dctcp.alpha_star(None, 0.1),
])
def test_low_level_functions_raise_value_errors_in_plain_words(call):
    try:
        call()
    except ValueError as e:
        assert "np.float64" not in str(e) and "different signs" not in str(e)


@pytest.mark.parametrize("args,option", [
    (["fluid", "dx", "--tau", "1s", "--R0", "1us", "--t-end", "1ms"], "--tau"),  # 1e8 steps of history
    (["fluid", "dctcp", "--d", "1s", "--dt", "1ns", "--t-end", "1us"], "--dt"),
])
def test_delay_longer_than_the_history_budget_names_the_option(args, option):
    text = _bad(args, option)
    assert "dt[0]" not in text and "steps" in text


@pytest.mark.parametrize("args,option", [
    (["theory", "dctcp", "--C", "10Gbps", "--d", "100us", "--packet-size", "1.5B"], "--packet-size"),
    (["theory", "dx", "--N", "10", "--C", "10Gbps", "--R0", "80us", "--seg", "1.5B"], "--seg"),
    (["theory", "dsm", "--C", "10Gbps", "--delay", "300us", "--frame", "1.5B"], "--frame"),
    (["fluid", "dctcp", "--packet-size", "1.5B"], "--packet-size"),
    (["fluid", "dx", "--seg", "1.5B"], "--packet-size"),
])
def test_a_packet_size_is_whole_bytes_in_every_command(args, option):
    """`theory dctcp --packet-size 1.5B` showed 1 B and computed C in packets/s with 1.5 B, while
    `fluid` refused it (a probe): every command now takes whole bytes."""
    assert "whole number of bytes" in _bad(args, option)


# --- theory dsm ----------------------------------------------------------------------------------

DSM_BASE = {"--C": "10Gbps", "--delay": "300us"}
DSM_HOSTILE = {
    "--C": HOSTILE["--C"] + ["1e-300bps"],
    "--q0": ["0B", "-5KB", "64pkt", "1e30KB", "1e-300B", "nanB", ""],
    "--p": ["0", "-0.5", "1.5", "nan", "inf", "1e-300"],
    "--m": ["-1", "100001"],
    "--delay": ["-1us", "2s", "1e300s", "nans", "", "80 parsecs"],
    "--frame": ["1e-300B", "0B", "1e300B", "1pkt", "1500", ""],
    "--omega": ["0", "-1", "nan", "inf", "1e300"],
    "--Ha": ["0", "-1", "1e-300", "nan", "inf", "1e300"],
    "--Hb": ["0", "1e-300", "inf"],
    "--Hc": ["0", "1e-300", "inf"],
    "--qf-max": ["0B", "1e-300B", "1e300B", "3pkt"],
    "--qv-max": ["-1B", "1e300B", "3pkt"],
    "--samples": ["0", "-1", "1000001"],
}
DSM_CASES = [(opt, v) for opt, vs in DSM_HOSTILE.items() for v in vs]


def _dsm(over: dict, *extra: str):
    args = {**DSM_BASE, **over}
    return _run(["theory", "dsm", *[x for kv in args.items() for x in kv], *extra])


@pytest.mark.parametrize("option,value", DSM_CASES, ids=[f"dsm{o}={v}" for o, v in DSM_CASES])
def test_theory_dsm_hostile_value_exits_2_naming_the_option(option, value):
    res, text = _dsm({option: value}, "--no-simulate")
    assert res.exit_code == 2, (option, value, res.output)
    assert option in text, text
    assert "Traceback" not in res.output and "internal error" not in text


def test_a_bare_zero_size_is_zero_bytes_as_its_help_says():
    """--qv-max's help allows "0 .. 1e12 B": a bare 0 (the one number a size takes without a unit)
    was refused as "0 is in packets; give the size in bytes" (a review). It is 0 B now: --qv-max 0
    computes what --qv-max 0B does, and --qf-max 0 is told --qf-max 0B's range."""
    zero, zero_b = (_dsm({"--qv-max": v}, "--json", "--no-simulate")[0] for v in ("0", "0B"))
    assert zero.exit_code == 0 and zero.output == zero_b.output, zero.output
    (res, text), (res_b, text_b) = (_dsm({"--qf-max": v}, "--no-simulate") for v in ("0", "0B"))
    assert res.exit_code == res_b.exit_code == 2 and "in packets" not in text, text
    assert text.replace("--qf-max: 0 ", "--qf-max: 0B ") == text_b, (text, text_b)


def test_theory_dsm_issue_cases_name_the_range():
    """Issue 6 audit: --frame 1e-300B gave "internal error: ZeroDivisionError" (exit 1); --C 1e-300bps
    exited 0 printing "2000 periods = inf s"."""
    res, text = _dsm({"--frame": "1e-300B"})
    assert res.exit_code == 2 and "--frame" in text and "1 B <= frame <= 65535 B" in text, text
    res, text = _dsm({"--C": "1e-300bps"})
    assert res.exit_code == 2 and "--C" in text and "1 Mbps <= C <= 10 Tbps" in text, text
    assert "inf" not in text


def _finite_except_unbounded_b(d: dict) -> list[str]:
    from dcsim.commands.theory_dsm import UNBOUNDED_OK

    bad = []

    def walk(x, path):
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, f"{path}.{k}" if path else k)
        elif x is None and path not in UNBOUNDED_OK and path != "simulation.settling_time_1pct_s":
            bad.append(path)  # JSON null: a non-finite float
        elif isinstance(x, float) and not math.isfinite(x):
            bad.append(path)

    walk(d, "")
    return bad


DSM_CORNERS = {
    "--C": [f"{L.CAPACITY.lo:g}bps", f"{L.CAPACITY.hi:g}bps"],
    "--p": [f"{L.DSM_P.lo:g}", f"{L.DSM_P.hi:g}"],
    "--frame": [f"{L.PACKET.lo:g}B", f"{L.PACKET.hi:g}B"],
    "--delay": ["0s", "1s"],
    "--q0": ["1B", "1e12B"],
    "--omega": ["1e-300", f"{L.DSM_OMEGA.hi:g}"],
    "--Hb": [f"{L.DSM_H.lo:g}", f"{L.DSM_H.hi:g}"],
}


@pytest.mark.parametrize("combo", list(itertools.product(*DSM_CORNERS.values())),
                         ids=lambda c: ",".join(c))
def test_theory_dsm_is_finite_at_the_corners_of_the_ranges(combo):
    """Every corner of the documented ranges either runs (exit 0, every number finite but eq. (31)'s
    unbounded b) or is refused because the delay spans more than MAX_M sampling periods."""
    res, text = _dsm(dict(zip(DSM_CORNERS, combo)), "--no-simulate", "--json")
    if res.exit_code == 2:
        assert "--delay" in text and "sampling periods" in text, text
        return
    assert res.exit_code == 0, res.output
    d = json.loads(res.output)
    assert not _finite_except_unbounded_b(d), d


@pytest.mark.parametrize("C,p,frame", [("1Mbps", "1e-6", "65535B"), ("10Tbps", "1", "1B")])
def test_theory_dsm_discrete_model_is_finite_at_the_extremes_of_T(C, p, frame):
    """T = 8 frame / (p C) at its largest (5.2e5 s) and smallest (8e-13 s): the model's run is finite."""
    res, text = _dsm({"--C": C, "--p": p, "--frame": frame, "--delay": "0s"}, "--json", "--samples", "2000")
    assert res.exit_code == 0, res.output
    assert not _finite_except_unbounded_b(json.loads(res.output))


def test_theory_dsm_refuses_a_non_finite_result(monkeypatch):
    from dcsim.theory import dsm as th

    real = th.analyze

    def with_inf(*a, **k):
        r = real(*a, **k)
        r["eq27"]["u_max_bps"] = float("inf")
        return r

    monkeypatch.setattr(th, "analyze", with_inf)
    res, text = _dsm({}, "--no-simulate")
    assert res.exit_code == 2 and "non-finite eq27.u_max_bps" in text, text


def test_theory_dx_title_keeps_each_quantity_on_one_line():
    """The equilibrium table's title lists the inputs; the table was narrower than it, so the
    title wrapped inside a quantity ("R0 = 80" / "us"). The table is now as wide as its title."""
    res = runner.invoke(app, ["theory", "dx", "--N", "10", "--C", "10Gbps", "--R0", "80us"], terminal_width=200)
    assert res.exit_code == 0, res.output
    title = next(line for line in res.output.splitlines() if "DX equilibrium" in line)
    assert "R0 = 80 us, p = 0.95, seg = 1500 B" in title, res.output


def test_an_emptied_queue_reads_zero_not_rounding_noise():
    """K = 8 pkt, N = 2 at 10 Gbps / 100 us: the limit cycle empties the queue (its computed
    minimum is ~1e-15 pkt); the table shows 0, not 1.776e-15 (a probe's finding)."""
    res, text = _run(["theory", "dctcp", "--C", "10Gbps", "--d", "100us", "--K", "8pkt", "--N", "2"])
    assert res.exit_code == 0, res.output
    assert "queue min .. max" in text and "e-1" not in text, text
    assert abs(th_dctcp.analyze(C_bps=10e9, d_s=100e-6, K_pkt=8, N=2)["limit_cycle"]["q_min_pkt"]) < 1e-9


# ------------------------------------------------------------- the fluid and theory probe (2026-11-29)


@pytest.mark.parametrize("args,option,shown", [
    (["theory", "dctcp", "--C", "10Gbps", "--d", "100us", "--g", "1.0000001"], "--g", "1.0000001"),
    ([*BASE["theory dx"], "--p", "0.9999991"], "--p", "0.9999991"),
    ([*BASE["fluid dctcp"], "--N", "1000000.5"], "--N", "1000000.5"),
    # times and rates went through their formatter's few digits: "0.9999999us = 1000 ns" (a probe)
    (["fluid", "dx", "--N", "50", "--C", "10Gbps", "--R0", "0.9999999us"], "--R0", "0.9999999us = 9.999999e-07 s"),
    (["fluid", "dx", "--N", "50", "--C", "10.00000001Tbps", "--R0", "80us"], "--C",
     "10.00000001Tbps = 10000000010000 bit/s"),
    (["theory", "dctcp", "--C", "10Gbps", "--d", "0.999999us"], "--d", "0.999999us = 9.99999e-07 s"),
])
def test_an_offending_value_is_shown_with_every_digit(args, option, shown):
    """"--g: 1 is out of range; allowed 0 < g <= 1" was said of 1.0000001: the value was rounded
    into the range it is outside of."""
    assert f"{option}: {shown}" in _bad(args, option)


def test_what_the_fluid_and_theory_commands_say_holds():
    """Four messages of the probe: an empty range of H_b offered as one, a queue of -1e-8 ps at
    the special state's threshold, a stability bound below the smallest N allowed, and a --dt
    suggested to a command without one; and --packet-size named as the API's packet_bytes."""
    res, text = _run(["theory", "dsm", "--C", "10Gbps", "--delay", "1s"])
    assert res.exit_code == 0 and "no H_b puts b inside at m = 12500" in text and "needs H_b in" not in text
    res, text = _run(["theory", "dx", "--N", "66.666666666666667", "--C", "10Gbps", "--R0", "80us"])
    assert "fixed point W*, Q* │ 1 pkt, 0 s = 0 pkt" in text, text
    res, text = _run(["theory", "dx", "--N", "1", "--C", "1Mbps", "--R0", "1us"])
    assert "every N >= 1 (the bound is 3.463e-05 flows)" in text
    text = _bad(["fluid", "dctcp-fig2", "--t-end", "1ns"], "--t-end")
    assert "--dt" not in text
    assert "--packet-size: 1.5B is not a whole number of bytes" in _bad([*BASE["fluid dctcp"], "--packet-size", "1.5B"],
                                                                        "--packet-size")


def test_the_fluid_api_refuses_what_it_read_as_something_else():
    """True read as 1, "no" as yes, a number where a pair belongs raised TypeError, and the DSM
    model's delay_samples was called m in its message."""
    from dcsim import fluid
    from dcsim.theory import dsm

    with pytest.raises(ValueError, match=r"^p must be a real number"):
        fluid.dx(80, 10e9, 80e-6, t_end_s=1e-3, p=True)
    with pytest.raises(ValueError, match=r"^queue_floor must be True or False, got 'no'"):
        fluid.dctcp(10e9, 100e-6, 65, 1 / 16, 10, t_end_s=1e-3, queue_floor="no")
    with pytest.raises(ValueError, match=r"^window_floor must be True or False"):
        fluid.dx(80, 10e9, 80e-6, t_end_s=1e-3, window_floor="no")
    with pytest.raises(ValueError, match=r"^init \(W0_pkt, alpha0, q0_pkt\) must be a sequence of 3, got 5"):
        fluid.dctcp(10e9, 100e-6, 65, 1 / 16, 10, t_end_s=1e-3, init=5)
    with pytest.raises(ValueError, match=r"^init\[0\] \(W0_pkt, Q0_s\) must be a sequence of 2, got None"):
        fluid.dx_batch([80], [10e9], [80e-6], t_end_s=1e-3, init=[None])
    with pytest.raises(ValueError, match=r"^delay_samples = 1000000000 is out of range"):
        dsm.simulate_discrete(C_bps=10e9, q0_bytes=64e3, p=0.01, m=4, a=1.0, b=1.0, c=1.0, omega=5.0,
                              delay_samples=10**9)


@pytest.mark.parametrize("args, says", [(["--N", "1000001"], "--N: 1000001 flows is out of range"),
                                        (["--K", "1000001pkt"], "--K: 1000001pkt is out of range")])
def test_a_whole_number_out_of_range_is_shown_as_written(args, says):
    """"--N: 1000001.0 flows" and "--K: 1000001pkt = 1000001.0 pkt" (a help probe): a whole
    number is shown with its digits, and the user's text alone when it says the same."""
    res = runner.invoke(app, ["theory", "dctcp", "--C", "10Gbps", "--d", "100us", *args])
    assert res.exit_code == 2 and says in res.output and ".0" not in res.output.split("allowed")[0], res.output


@pytest.mark.parametrize("command", [["theory", "dx"], ["fluid", "dx", "--t-end", "1ms"]])
@pytest.mark.parametrize("spelling", ["--seg", "--packet-size"])
def test_dx_segment_size_takes_either_spelling(command, spelling):
    """theory dx called it --seg and fluid dx --packet-size, each refusing the other's (a help
    probe): both take both, and the segment size reaches the output."""
    res = runner.invoke(app, [*command, "--N", "50", "--C", "10Gbps", "--R0", "80us", spelling, "1000B"],
                        env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    if command[0] == "theory":
        assert "seg = 1000 B" in res.output


def test_theory_dctcp_says_when_a_row_means_nothing_or_the_paper_fails():
    """An audit of `theory dctcp`: an empty g range (Cd + K < 25 pkt) printed as a range, eq. (46)'s
    bounds below 0 or above 1 printed as bounds, and beta_TCP / beta_DCTCP >= 1.4 with g large
    enough printed beside the paper's '< 1.4' without a word."""
    res, text = _run(["theory", "dctcp", "--C", "10Gbps", "--d", "300us"])
    assert res.exit_code == 0 and "lower < 0: no bound there, alpha lies in [0, 1]" in text
    h = th_dctcp.analyze(C_bps=10e9, d_s=300e-6)["hybrid"]
    assert h["limited_by"].startswith("gamma") and h["beta_ratio_tcp_over_dctcp"] >= 1.4
    assert "g is large enough here, and it is not below 1.4" in text
    res, text = _run(["theory", "dctcp", "--C", "1Gbps", "--d", "1ms", "--K", "97.5KB", "--packet-size", "9000B",
                      "--no-cycle"])
    assert "empty: Cd + K < 25 pkt, no g satisfies eq. (2)" in text


def test_the_theory_api_refuses_fractional_bytes_flags_that_are_not_bools_and_unphysical_starts():
    """dctcp.analyze(packet_bytes=1.5) reported 1 B and computed with 1.5 B; cycle="no" and
    simulate="no" were read as yes; a start of 1e308 packets returned NaN statistics or a queue of
    inf (a review). Each is a ValueError naming the field now."""
    from dcsim import fluid
    from dcsim.theory import dsm

    with pytest.raises(ValueError, match=r"^packet_bytes: 1.5 B is not a whole number of bytes"):
        th_dctcp.analyze(10e9, 1e-4, 65, 2, 0.1, 1.5, cycle=False)
    with pytest.raises(ValueError, match=r"^cycle must be True or False, got 'no'"):
        th_dctcp.analyze(10e9, 1e-4, 65, 2, 0.1, 1500, cycle="no")
    with pytest.raises(ValueError, match=r"^simulate must be True or False, got 'no'"):
        dsm.analyze(10e9, 64e3, 0.01, 1e-6, simulate="no")
    with pytest.raises(ValueError, match=r"^frame_bytes: 1.5 B is not a whole number"):
        dsm.analyze(10e9, 64e3, 0.01, 1e-6, frame_bytes=1.5)
    with pytest.raises(ValueError, match=r"^seg_bytes: 1.5 B is not a whole number"):
        th_dx.analyze(50, 10e9, 1e-4, seg_bytes=1.5)
    with pytest.raises(ValueError, match=r"^init.q0_pkt = 1e\+308 is out of range"):
        fluid.dctcp(10e9, 1e-4, 65, 1 / 16, 2, t_end_s=1e-3, init=(1, 0.5, 1e308))
    # DX's queueing delay: at most INIT_MAX packets at the link's rate (1e9 / 833 333 pkt/s = 1200 s)
    with pytest.raises(ValueError, match=r"^init.Q0_s = 1e\+308 is out of range: must be in \[0, 1200\] s"):
        fluid.dx(50, 10e9, 1e-4, t_end_s=1e-3, init=(1, 1e308))
