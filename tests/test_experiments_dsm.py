"""The DSM paper's Section V as packet experiments (quick variants): parameters from the paper's
own numbers, files written, the realised loop delays equal to the set ones, physics bounds."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from dcsim.experiments.dsm_packet import (FIG9_FLOWS, FRACTION_COLUMNS, HEADLINE, SCHEMES, TREND_SEEDS_FULL, TREND_SEEDS_QUICK, base_loop_s,
                                          dsm_T_m, fig9_ideal_util, headline, holds, holds_q0, max_min_load, oscillates,
                                          seed_trend, target_bytes)
from dcsim.experiments.registry import DIFFERS, INCONCLUSIVE, REPRODUCED, get


def test_parameters_follow_the_paper():
    # Section V-A: 10 Gbps, 1 KB frames, p = 0.01 -> T = 80 us; 300 us loop -> m = 4 (eq. 6).
    T, m = dsm_T_m(10e9, 300e-6)
    assert T == pytest.approx(80e-6, rel=1e-12) and m == 4
    # Section II-B: "the sampling period shrinks to 20 us and 8 us" at 40 and 100 Gbps.
    assert dsm_T_m(40e9, 1e-6)[0] == pytest.approx(20e-6, rel=1e-12)
    assert dsm_T_m(100e9, 1e-6)[0] == pytest.approx(8e-6, rel=1e-12)
    # The chain's own loop at 10 Gbps: 1000 B (0.8 us) + 1 us + 64 B (51.2 ns) + 1 us.
    assert base_loop_s(10e9) == pytest.approx(2.8512e-6, rel=1e-12)


def _run(exp_id, out):
    res = get(exp_id).run(out, True)
    for f in res.files:
        assert f.exists() and f.stat().st_size > 0
    json.dumps([c.as_dict() for c in res.claims])
    return res


def test_fig5_runs_every_scheme_with_the_exact_loop_delays(tmp_path):
    res = _run("dsm-fig5", tmp_path)
    setup = [c for c in res.checks if c.statement.startswith("(setup) realised loop delay")]
    assert setup and setup[0].verdict == REPRODUCED, setup
    df = pd.read_csv(tmp_path / "dsm_fig5.csv")
    assert set(df.scheme) == set(SCHEMES) and len(df) == 6 * len(SCHEMES)
    # fractions say so in their names, beside drop_pct in percent (a review)
    assert {"util_frac", "q_empty_frac", "drop_pct"} <= set(df.columns) and "util" not in df.columns
    # the experiment's own names (holds() reads them)
    df = df.rename(columns={v: k for k, v in FRACTION_COLUMNS.items()})
    assert ((df.util >= 0) & (df.util <= 1)).all()
    assert (df.q_mean_bytes <= 128_000).all()  # the buffer
    assert (df.drop_pct >= 0).all() and (df.drop_pct < 100).all()
    # Every claim of the paper is judged (a verdict with our numbers), none silently skipped.
    assert len(res.paper_claims) == 13 and all(c.ours for c in res.paper_claims)
    # The headline is judged on the worst DSM setting: >= 99 % utilization and < 5 % drops.
    (h,) = [c for c in res.paper_claims if c.statement == HEADLINE]
    dsm = df[df.scheme == "dsm"]
    want = REPRODUCED if dsm.util.min() >= 0.99 and dsm.drop_pct.max() < 5 else DIFFERS
    assert h.verdict == want, (h, dsm)
    # Fig. 5's 100 us rows are judged around q0 = 64 KB as the paper's text says (QCN's Qeq in a check
    # row), the 300 us 'out of control' rows as not holding the scheme's own target: recomputed from the CSV
    at = lambda k, d: df[(df.scheme == k) & (df.C_gbps == 10) & (df.loop_us == d)].iloc[0].to_dict()  # noqa: E731
    for key, label in (("qcn", "QCN"), ("smcc", "SMCC")):
        (c100,) = [c for c in res.paper_claims if c.statement.startswith(f"at 100 us (10 Gbps) {label} keeps")]
        assert c100.paper == "around q0 = 64 KB" and "vs 64 KB" in c100.ours
        assert (c100.verdict == REPRODUCED) == holds_q0(at(key, 100)), c100
        (c300,) = [c for c in res.paper_claims if c.statement == f"at 300 us (10 Gbps) {label} oscillates, out of control"]
        assert (c300.verdict == REPRODUCED) == (not holds(at(key, 300), target_bytes(key))), c300
        assert all(w in c300.ours for w in ("mean queue", "empty", "util", "queue sd"))
        # Sec. II-B: at 100 Gbps QCN and SMCC "fail to work normally with only 80us" (a review: the row
        # had judged the failure at 160 us, DSM's delay, and printed that as the paper's)
        (c100g,) = [c for c in res.paper_claims if c.statement.startswith(f"at 100 Gbps {label} tolerates")]
        at100 = lambda d: df[(df.scheme == key) & (df.C_gbps == 100) & (df.loop_us == d)].iloc[0].to_dict()  # noqa: E731
        want = holds(at100(40), target_bytes(key)) and not holds(at100(80), target_bytes(key))
        assert (c100g.verdict == REPRODUCED) == want and "80 us" in c100g.paper, c100g
    (own,) = [c for c in res.checks if c.statement.startswith("(dcsim) at 100 us (10 Gbps) QCN keeps the queue stable "
                                                              "around its own Qeq = 33 KB")]
    assert (own.verdict == REPRODUCED) == holds(at("qcn", 100), 33_000) and "vs 33 KB" in own.ours


def test_each_scheme_is_judged_against_its_own_target():
    """QCN aims at Qeq = 33 KB (802.1Qau's pseudo-code), DSM and SMCC at q0 = 64 KB: a QCN queue
    steady at 33.5 KB, never empty, at full rate holds its target (judged against q0 it 'failed',
    so every claim that QCN fails held by construction: a probe)."""
    assert target_bytes("qcn") == 33_000 and target_bytes("smcc") == target_bytes("dsm") == 64_000
    steady_qcn = {"q_mean_bytes": 33_494.0, "q_empty": 0.0, "util": 1.0}
    assert holds(steady_qcn, target_bytes("qcn")) and not holds(steady_qcn, target_bytes("dsm"))
    assert not holds({**steady_qcn, "q_empty": 0.25}, target_bytes("qcn"))  # underflows


def test_out_of_control_excludes_holding_the_target():
    """'Oscillates, out of control' (Fig. 5 at 300 us) is 'does not hold': a run that holds its target
    (the 100 us 'stable' rule) cannot also be out of control. The audit's case: QCN at 300 us in a full
    run, mean 29.5 KB of its 33 KB, empty 0.16 % of the time, 99.99 % utilization, sd 9.7 KB, had passed
    as 'out of control' under a rule on the sd alone."""
    qcn = target_bytes("qcn")
    swing_in_band = {"q_mean_bytes": 29_500.0, "q_empty": 0.0016, "util": 0.9999, "q_std_bytes": 9_700.0}
    assert holds(swing_in_band, qcn) and not oscillates(swing_in_band, qcn)
    # a big swing that stays within the band, never empties and keeps the link busy is not 'out of control'
    assert not oscillates({**swing_in_band, "q_mean_bytes": 33_000.0, "q_empty": 0.0, "util": 1.0,
                           "q_std_bytes": 20_000.0}, qcn)
    # out of control: the mean parked off the band, or the queue emptying (link idle), whatever the sd
    assert oscillates({**swing_in_band, "q_mean_bytes": 12_200.0}, qcn)
    assert oscillates({**swing_in_band, "q_empty": 0.37, "util": 0.86, "q_std_bytes": 1_000.0}, qcn)
    assert oscillates({**swing_in_band, "util": 0.95}, qcn)
    for s in ({**swing_in_band, "q_mean_bytes": m, "q_empty": e, "util": u}
              for m in (5e3, 29.5e3, 40e3, 64e3) for e in (0.0, 0.005, 0.02) for u in (0.9, 0.995, 1.0)):
        assert oscillates(s, qcn) != holds(s, qcn), s


def test_fig5_stable_at_100us_is_judged_around_q0_as_the_paper_says():
    """Fig. 5 text: at 100 us "all the schemes ... keep the queue stable around the desired point q0 =
    64KB". QCN held at its own Qeq = 33 KB holds Qeq, not q0: the claim row (holds_q0) says differs,
    a (dcsim) check row says it holds its Qeq."""
    at_qeq = {"q_mean_bytes": 33_494.0, "q_empty": 0.0, "util": 1.0, "q_std_bytes": 1_500.0}
    assert not holds_q0(at_qeq) and holds(at_qeq, target_bytes("qcn"))
    assert holds_q0({**at_qeq, "q_mean_bytes": 63_000.0})


def test_seed_trend_judges_each_change_against_twice_its_standard_error():
    """Means over seeds, each change against 2 SE of the difference (registry.se_trend), the SEs from
    the seeds' spread at each point, computed here by hand: with two seeds a point's SE is half its range."""
    # Fig. 7's case of the audit: one noisy point (40G: 98.3 / 82.6 / 81.4 %) had set a 16.9-point margin
    # for every step, so the 1G -> 10G step up (99.4 -> 99.8 %) passed. Each step has its own margin now.
    quiet = [[0.994, 0.993, 0.995], [0.998, 0.9975, 0.9985], [0.983, 0.826, 0.814], [0.70, 0.71, 0.69]]
    v, against, means, end = seed_trend(quiet, -1)
    se = [float(np.std(x, ddof=1) / np.sqrt(3)) for x in quiet]
    assert means == pytest.approx([float(np.mean(x)) for x in quiet])
    assert end == pytest.approx(2 * math.hypot(se[0], se[-1]))
    assert v == DIFFERS and [(i, round(c, 4)) for i, c, _ in against] == [(0, 0.004)]
    assert against[0][2] == pytest.approx(2 * math.hypot(se[0], se[1]))
    # a strong rise with one small step against it within its 2 SE is a trend (Fig. 10, full run: QCN's sd
    # fell 0.2 KB at one step while all six curves rose strongly) ...
    rise = [[15.0, 16.8], [19.2, 21.0], [18.9, 20.9], [25.1, 26.9], [31.4, 33.2]]  # SE 0.9 at each point
    assert seed_trend(rise, +1)[:2] == (REPRODUCED, [])
    # ... but not if that step goes against it beyond its 2 SE (2 hypot(0.9, 0.9) = 2.55 KB)
    v, against, _, _ = seed_trend([[15.0, 16.8], [19.2, 21.0], [16.1, 17.9], [25.1, 26.9], [31.4, 33.2]], +1)
    assert v == DIFFERS and [i for i, _, _ in against] == [1] and against[0][1] == pytest.approx(-3.1)
    # a noisy flat series is no trend either way: neither shown nor contradicted (inconclusive)
    flat = [[96.0, 97.2], [95.8, 97.0], [96.3, 97.5], [95.9, 97.1]]
    assert seed_trend(flat, -1)[0] == INCONCLUSIVE and seed_trend(flat, +1)[0] == INCONCLUSIVE
    # the first-to-last change must exceed its 2 SE, not only be of the right sign
    assert seed_trend([[1.0, 2.0], [1.5, 2.5], [2.0, 3.0]], +1)[0] == INCONCLUSIVE  # +1.0 against 2 SE 1.41
    assert seed_trend([[1.0, 2.0], [1.6, 2.6], [2.5, 3.5]], +1)[0] == REPRODUCED  # +1.5
    # seeds that agree exactly measure no noise: every step counts, as it goes
    assert seed_trend([[1.0, 1.0], [1.0, 1.0], [2.0, 2.0]], +1)[0] == REPRODUCED
    assert seed_trend([[1.0, 1.0], [0.99, 0.99], [2.0, 2.0]], +1)[0] == DIFFERS
    # one run a point measures no spread: refused
    with pytest.raises(ValueError):
        seed_trend([[1.0], [2.0, 2.1]], +1)
    # the trend claims run at least two seeds in every variant
    assert len(set(TREND_SEEDS_QUICK)) >= 2 and len(set(TREND_SEEDS_FULL)) >= len(set(TREND_SEEDS_QUICK))


def test_headline_verdict_is_computed_from_both_halves():
    assert headline(0.995, 4.9, "", "").verdict == REPRODUCED
    assert headline(0.98, 0.0, "", "").verdict == DIFFERS  # utilization below 99 %
    assert headline(1.0, 5.0, "", "").verdict == DIFFERS  # not fewer than 5 % drops


def test_fig9_max_min_loads_by_hand():
    # Fig. 4 / Fig. 9 schedule, C = 1: [0,1) F1, F2 share C1->C2 (1/2 each) and both go on to
    # C2->C3: both links full. [1,2) F3 joins C1->C2: 1/3 each, C2->C3 carries 2/3. [2,3) F4 joins
    # C2->C3: C1->C2 gives F1, F2, F3 1/3 each, F4 takes the 1/3 left on C2->C3: both full.
    # [3,4) F3 gone: C2->C3 is the bottleneck of F1, F2, F4 (1/3 each), C1->C2 carries 2/3.
    # [4,5) F2 gone: F1 and F4 share C2->C3 (1/2 each), C1->C2 carries 1/2.
    want = [(1, 1), (1, 2 / 3), (1, 1), (2 / 3, 1), (1 / 2, 1)]
    for k, (a, b) in enumerate(want):
        got = max_min_load(FIG9_FLOWS, k + 0.5, 1.0)
        assert got["C1->C2"] == pytest.approx(a, abs=1e-12) and got["C2->C3"] == pytest.approx(b, abs=1e-12), (k, got)
    u = fig9_ideal_util()
    assert u["C1->C2"] == pytest.approx((3 + 2 / 3 + 1 / 2) / 5) and u["C2->C3"] == pytest.approx((4 + 2 / 3) / 5)


def test_fig9_parking_lot_shifts_its_bottleneck(tmp_path):
    res = _run("dsm-fig9", tmp_path)
    df = pd.read_csv(tmp_path / "dsm_fig9.csv")
    # Utilization can never exceed 1: relative to the fair load it is at most 1 / ideal.
    ideal = fig9_ideal_util()
    for port, x in ideal.items():
        assert (df[df.port == port].util_of_ideal <= 1 / x + 1e-9).all()
    # "More stable queues" needs a queue near q0 = 64 KB with the link busy: if DSM's queue is far
    # from q0 (or empty >= 1 %) in a congested second, the claim cannot be reproduced on its sd alone.
    (stab,) = [c for c in res.paper_claims if c.statement.startswith("DSM achieves more stable queues")]
    congested = df[(df.scheme == "dsm") & (((df.port == "C1->C2") & (df.second <= 2)) | ((df.port == "C2->C3") & (df.second >= 2)))]
    near = ((congested.q_mean_kb - 64).abs() <= 16) & (congested.q_empty_frac < 0.01)
    if not near.all():
        assert stab.verdict == DIFFERS, (stab, congested)
    assert any(c.statement == HEADLINE for c in res.paper_claims)
    # Before F4 starts (seconds 0-1 of the schedule) nothing crosses C2 -> C3 but F1 and F2, which
    # C1 -> C2 already limits to 10 Gbps in all: C2 -> C3 cannot build a standing queue, whatever
    # the scheme (first principles: its arrival rate is at most its capacity).
    early = df[(df.port == "C2->C3") & (df.second <= 1)]
    assert (early.q_mean_kb < 2.0).all(), early
    # "Predictably, C1 -> C2 is congested in [0, 3] s, C2 -> C3 in [2, 5] s": the schedule's property, a
    # setup check computed from max-min fair loads, not a claim reproduced when some scheme's queues show
    # it (a review). By hand from the schedule (F1, F2 on both links, F3 on C1->C2 in [1, 3), F4 on C2->C3
    # from 2): C2->C3 is full in second 0 only with what C1->C2 lets through, so it is no bottleneck there.
    assert not [c for c in res.paper_claims if "congested during" in c.statement]
    (sched,) = [c for c in res.checks if c.statement.startswith("(setup) the schedule congests C1 -> C2")]
    assert sched.verdict == REPRODUCED and "1.00/1.00, 1.00/0.67, 1.00/1.00, 0.67/1.00, 0.50/1.00" in sched.ours, sched
    assert res.paper_claims


def test_fig10_generates_short_flows_at_their_rate(tmp_path):
    res = _run("dsm-fig10", tmp_path)
    setup = [c for c in res.checks if c.statement.startswith("(setup) short flows")]
    assert setup and setup[0].verdict == REPRODUCED, setup
    df = pd.read_csv(tmp_path / "dsm_fig10.csv")
    assert ((df.util_frac >= 0) & (df.util_frac <= 1)).all() and (df.q_mean_kb <= 128).all()
    assert (df[df.rate_per_s == 0].short_flows == 0).all()
    # every point ran once per seed; the trend claim's verdict follows its stated rule on the CSV's numbers
    assert sorted(df.seed.unique()) == sorted(TREND_SEEDS_QUICK)
    assert (df.groupby(["scheme", "rate_per_s", "port"]).seed.nunique() == len(TREND_SEEDS_QUICK)).all()
    (c,) = [c for c in res.paper_claims if c.statement.startswith("the heavier the short flows")]
    curves = []
    for (_, _), d in df[df.scheme.isin(["dsm", "qcn", "smcc"])].groupby(["scheme", "port"]):
        vals = [list(d[d.rate_per_s == r].q_sd_kb) for r in sorted(d.rate_per_s.unique())]
        curves.append(seed_trend(vals, +1)[0])
    # every curve must show the trend; one that contradicts it decides "differs", else one unresolved "inconclusive"
    want = DIFFERS if DIFFERS in curves else (INCONCLUSIVE if INCONCLUSIVE in curves else REPRODUCED)
    assert c.verdict == want and "2 SE" in c.ours and "standard error" in c.detail and "per seed" in c.detail
    # Fig. 10(b)'s "DSM can simultaneously achieve a high utilization and loss less packets" is a comparison
    # with QCN and SMCC, judged on the means over every run (a review: it had judged the conclusion's
    # absolute 100 % / 5 %, which is the headline row)
    (cmp_,) = [c for c in res.paper_claims if c.statement.startswith("DSM simultaneously achieves a high utilization")]
    m = df.rename(columns={"util_frac": "util"}).groupby("scheme")[["util", "drop_pct"]].mean()
    want = all(m.util["dsm"] >= m.util[k] and m.drop_pct["dsm"] < m.drop_pct[k] for k in ("qcn", "smcc"))
    assert (cmp_.verdict == REPRODUCED) == want, (cmp_.ours, m)
    (h,) = [c for c in res.paper_claims if c.statement == HEADLINE]
    dsm = df[df.scheme == "dsm"]
    assert (h.verdict == REPRODUCED) == (dsm.util_frac.min() >= 0.99 and dsm.drop_pct.max() < 5), (h, dsm)


def test_fig7_trend_verdicts_follow_the_stated_rule(tmp_path):
    res = _run("dsm-fig7", tmp_path)
    df = pd.read_csv(tmp_path / "dsm_fig7.csv")
    assert ((df.util_frac >= 0) & (df.util_frac <= 1)).all()
    assert (df.groupby(["scheme", "C_gbps", "loop_us"]).seed.nunique() == len(TREND_SEEDS_QUICK)).all()
    for key, label in (("qcn", "QCN"), ("smcc", "SMCC")):
        (c,) = [c for c in res.paper_claims if c.statement == f"the larger the bandwidth, the lower {label}'s utilization"]
        d = df[df.scheme == key]
        per_c = d.groupby(["C_gbps", "seed"]).util_frac.mean()  # over the three delays
        vals = [list(per_c.loc[C]) for C in sorted(d.C_gbps.unique())]
        v, _, _, end = seed_trend(vals, -1)
        assert c.verdict == v, c
        assert f"2 SE {100 * end:.2f} points" in c.ours


def test_fig6_drain_claim_asks_for_a_full_smcc_queue_and_busy_links(tmp_path):
    """"DSM and QCN drain the buffer rapidly, SMCC keeps it full" was reproduced on a ranking alone
    (SMCC's 38.9 KB of a 128 KB buffer, DSM's low queue with its link idle 64 % of the time). The
    verdict now follows the rule its detail states, recomputed here from the experiment's table."""
    from dcsim.experiments.dsm_packet import BUFFER_BYTES, EMPTY_TOL, FULL_SHARE

    res = _run("dsm-fig6", tmp_path)
    (c,) = [c for c in res.claims if c.statement.startswith("in face of new flows DSM and QCN drain")]
    df = pd.read_csv(tmp_path / "dsm_fig6.csv").set_index(["scheme", "phase"])
    at = lambda k: df.loc[(k, "0.2-0.3 s")]  # noqa: E731
    rule = at("smcc").q_mean_kb >= FULL_SHARE * BUFFER_BYTES / 1e3 and all(
        at(k).q_mean_kb < at("smcc").q_mean_kb and at(k).q_empty_frac < EMPTY_TOL for k in ("dsm", "qcn"))
    assert (c.verdict == "reproduced") == bool(rule) and "50%" in c.detail


def test_the_printed_gains_check_names_eq_23s_bound():
    """At 10 Gbps, 300 us (T = 80 us, m = 4) the printed gains give b below eq. (23)'s 1/((omega+1)T) =
    1/(6 x 80 us) = 2083 1/s: the claims tables say so in a check row (the runs only warned on the
    terminal: a probe)."""
    from dcsim.experiments.dsm_packet import dumbbell, gains_check, scheme_changes
    from dcsim.experiments.registry import CHECK

    c = gains_check(dumbbell(5, 10e9, duration_s=0.01, warmup_s=0.0), [scheme_changes("dsm", 10e9, 300e-6)])
    assert c.kind == CHECK and c.verdict == DIFFERS
    assert "eq. (23)'s 1/((omega+1)T) = 2083 1/s" in c.ours and "1 bound violated over 1 setting" in c.detail
