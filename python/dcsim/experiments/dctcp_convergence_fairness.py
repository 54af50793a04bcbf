"""Convergence and RTT-fairness in the packet simulator: Figs. 12 and 13 of "Analysis of DCTCP:
Stability, Convergence, and Fairness" (Alizadeh, Javanmard, Prabhakar, SIGMETRICS 2011).

* ``dctcp-fig12``  Fig. 12 / Section 4.3: convergence time of 2 flows, TCP and DCTCP with
                   g = 1/sqrt(W_max), 5/W_max, 1/W_max, packet simulation beside the Hybrid model
                   (Section 4.1, :mod:`dcsim.theory.dctcp`), and the claim "convergence up to ~2x TCP".
* ``dctcp-fig13``  Fig. 13 / Section 5: RTT-fairness of TCP–Drop-tail, TCP–RED, DCTCP and
                   DCTCP–Improved Fairness (eq. 36): throughput ratio of 2 groups of 2 flows against
                   the RTT ratio on log-log axes, with fitted slopes judged against RTT^-2, RTT^-1.

TCP is NewReno, ECN-capable, on the same switch: "TCP–Drop-tail" reacts to the DCTCP-style 0-1
marking at K (the paper's wording), "TCP–RED" to RED marking (0 to 10 % between an average queue of
30 and 100 packets, EWMA weight 0.1; footnote 7). The packet runs go through :mod:`dcsim.sweep`.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from dcsim.experiments.dctcp_analysis import _conv_time  # noqa: E402
from dcsim.experiments.dctcp_packet import PAPER, base_rtt_s  # noqa: E402
from dcsim.experiments.registry import (  # noqa: E402
    CHECK,
    DIFFERS,
    INCONCLUSIVE,
    Claim,
    ExperimentResult,
    all_of,
    by_noise,
    experiment,
    instruments,
    ok,
    quoted_tolerance,
    save_figure,
    verdict,
)
from dcsim.scenario import time_str  # noqa: E402
from dcsim.theory import dctcp as th  # noqa: E402
from dcsim.units import count_shown  # noqa: E402

C_BPS = 10e9
C_PPS = th.capacity_pps(C_BPS)


def _sweep(out_dir: Path, name: str, base: dict, axes: dict, *, tables: bool = False, combine: str = "grid"):
    from dcsim.sweep import sweep

    res = sweep(base, axes, out=Path(out_dir) / f"sweep-{name}", combine=combine, tables=tables,
                progress=sys.stderr.isatty())
    res.require_finished(name)
    return res.table, res


# ---------------------------------------------------------------------------------------------
# Fig. 13: RTT-fairness
# ---------------------------------------------------------------------------------------------

#: Fig. 13: (run length, warm-up), s (see run_fig13).
FIG13_RUN_S = (3.0, 0.5)
FIG13_RUN_S_QUICK = (0.6, 0.1)
RTT1_US = 100
#: RTT2 on a geometric grid (ratio ~1.26), the slopes fitted over many points rather than read
#: from a few.
FIG13_RTT2_US = (100, 125, 160, 200, 250, 320, 400, 500, 640, 800, 1000)
#: Each packet a sender host sends starts up to one bottleneck packet time later (1500 B at 10 Gbps,
#: network.host_jitter), uniform: ns-2's TCP ``overhead_`` against phase effects (Floyd & Jacobson
#: 1992). Without it the deterministic system phase-locked with threshold marking: DCTCP's ratio
#: zig-zagged by ~2x between neighbouring RTT ratios and fell below 1 (0.68 at RTT2 = 125 us: the
#: long-RTT flows got 1.47x the throughput), the same for any start pattern (a review). Chosen as
#: Floyd & Jacobson's bottleneck service time before looking at the verdicts.
HOST_JITTER13 = "1.2us"
FIG13_RTT2_US_QUICK = (100, 300, 1000)
K13 = 35
G13 = 1.0 / 16.0
#: The four schemes of Fig. 13: label -> (flows[0] settings, aqm).
SCHEMES = {
    "TCP–Drop-tail": (dict(protocol="newreno", ecn=True), dict(kind="threshold", K=f"{K13}pkt")),
    "TCP–RED": (dict(protocol="newreno", ecn=True),
                dict(kind="red", min_th="30pkt", max_th="100pkt", max_p=0.1, w_q=0.1, ecn=True)),
    "DCTCP": (dict(protocol="dctcp", g=G13), dict(kind="threshold", K=f"{K13}pkt")),
    "DCTCP–Improved Fairness": (dict(protocol="dctcp-improved-fairness", g=G13),
                                dict(kind="threshold", K=f"{K13}pkt")),
}
#: The paper's reading of Fig. 13 as a slope theta of throughput ratio against RTT ratio
#: (Throughput ∝ RTT^-theta): TCP–Drop-tail ~ 2, TCP–RED ~ 1, DCTCP in between, Improved ~ 1 (and
#: better than TCP–RED). "Approximately theta" = nearer to theta than to the neighbouring reading of
#: the three the paper uses (1 linear, "between" 1.5, 2 squared): |theta - predicted| < 0.25. (Until
#: 2026-11-29 +-0.3, "fixed before the runs" but from no reading of the paper: it let "linear" take
#: DCTCP's 1.25, which the paper calls worse than linear: a probe. No verdict changed.)
PREDICTED = {"TCP–Drop-tail": 2.0, "TCP–RED": 1.0, "DCTCP–Improved Fairness": 1.0}
TOL_THETA = 0.25


def tends_to_squared(moderate: float, large: float, moderate_se: float = 0.0, large_se: float = 0.0) -> str:
    """Sect. 5.1's reading of DCTCP's Fig. 13 curve, a verdict: its log-log slope over moderate RTT
    ratios above 1 (worse than linear), and over large ratios above that (rising), each judged
    beyond twice its standard error (:func:`local_slope_se`; registry.by_noise: the other way beyond
    it differs, within it is inconclusive), and the large ratios' slope below 2 + :data:`TOL_THETA`
    (towards squared, not past it: a slope of 2.6 is no "approximately squared"; a bound of the
    reading, judged as stated)."""
    if not (math.isfinite(moderate) and math.isfinite(large)):
        return DIFFERS
    rise, rise_se = large - moderate, math.hypot(moderate_se, large_se)
    return all_of(by_noise(moderate - 1.0 > 2 * moderate_se, 1.0 - moderate > 2 * moderate_se),
                  by_noise(rise > 2 * rise_se, -rise > 2 * rise_se),
                  ok(large < 2.0 + TOL_THETA))


def fig13_scenario(scheme: str, rtt2_us: float, duration_s: float, warmup_s: float) -> dict:
    flow, aqm = SCHEMES[scheme]
    return dict(
        network=dict(topology="dumbbell", senders=4, bottleneck="10Gbps", buffer="1000pkt", aqm=aqm,
                     rtt=[f"{RTT1_US}us", f"{RTT1_US}us", f"{rtt2_us:g}us", f"{rtt2_us:g}us"],
                     host_jitter=HOST_JITTER13),
        flows=[dict(count=4, stagger="50us", **flow)],
        run=dict(duration=time_str(duration_s), warmup=time_str(warmup_s)),
        metrics=dict(queue_interval="1ms", cwnd_interval="1ms", throughput_interval="10ms"),
    )


def fit_slope(rtt_ratio, tput_ratio) -> float:
    """Least-squares slope of log(throughput ratio) on log(RTT ratio), through the origin (equal RTTs
    share equally)."""
    x = np.log(np.asarray(rtt_ratio, float))
    y = np.log(np.asarray(tput_ratio, float))
    m = x > 0
    return float(np.sum(x[m] * y[m]) / np.sum(x[m] ** 2))


def slope_se(rtt_ratio, tput_ratio) -> float:
    """Standard error of :func:`fit_slope` (least squares through the origin, n - 1 degrees of
    freedom): sqrt(sum of squared residuals / (n - 1) / sum x^2), x = log RTT ratio; NaN with
    fewer than two points."""
    x = np.log(np.asarray(rtt_ratio, float))
    y = np.log(np.asarray(tput_ratio, float))
    m = x > 0
    x, y = x[m], y[m]
    if len(x) < 2:
        return math.nan
    b = np.sum(x * y) / np.sum(x * x)
    return float(math.sqrt(np.sum((y - b * x) ** 2) / (len(x) - 1) / np.sum(x * x)))


def below(a: str, b: str, slopes: dict, ses: dict) -> tuple[str, str]:
    """θ_a < θ_b by more than twice the standard error of the difference (the two fits are
    independent runs): reproduced; θ_a > θ_b by more than that: differs; within it: inconclusive
    (:func:`~dcsim.experiments.registry.by_noise`; no standard error, fewer than two points: a
    difference is not resolved). Returns the verdict and the numbers for the table."""
    diff, se = slopes[b] - slopes[a], math.hypot(ses[a], ses[b])
    v = by_noise(math.isfinite(diff) and diff > 2 * se, not math.isfinite(diff) or diff < -2 * se)
    return v, f"{a} {slopes[a]:.2f} ± {ses[a]:.2f} < {b} {slopes[b]:.2f} ± {ses[b]:.2f}: {diff:+.2f}, 2 SE {2 * se:.2f}"


def _in_range(rtt_ratio, lo: float, hi: float) -> np.ndarray:
    r = np.asarray(rtt_ratio, float)
    return (r >= lo * (1 - 1e-9)) & (r <= hi * (1 + 1e-9))


def local_slope(rtt_ratio, tput_ratio, lo: float, hi: float) -> float:
    """Least-squares slope (with intercept) of the log-log curve over the points with lo <= RTT ratio <= hi."""
    m = _in_range(rtt_ratio, lo, hi)
    if m.sum() < 2:
        return math.nan
    return float(np.polyfit(np.log(np.asarray(rtt_ratio, float)[m]), np.log(np.asarray(tput_ratio, float)[m]), 1)[0])


def local_slope_se(rtt_ratio, tput_ratio, lo: float, hi: float) -> float:
    """Standard error of :func:`local_slope` (least squares with intercept, n - 2 degrees of
    freedom): sqrt(sum of squared residuals / (n - 2) / sum (x - mean x)^2), x = log RTT ratio; the
    curve's scatter about a straight line is its noise. NaN with fewer than three points (two fix a
    line exactly and measure no scatter)."""
    m = _in_range(rtt_ratio, lo, hi)
    if m.sum() < 3:
        return math.nan
    x, y = np.log(np.asarray(rtt_ratio, float)[m]), np.log(np.asarray(tput_ratio, float)[m])
    b, a = np.polyfit(x, y, 1)
    return float(math.sqrt(np.sum((y - a - b * x) ** 2) / (len(x) - 2) / np.sum((x - x.mean()) ** 2)))


@experiment("dctcp-fig13", "RTT-fairness of TCP, DCTCP and DCTCP-Improved Fairness (Fig. 13)", PAPER)
def run_fig13(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    # TCP's sawtooth at RTT2 = 1 ms lasts ~W/2 = 200 RTTs = 0.2 s: 3 s hold >= 10 cycles of the slow
    # group (0.5 s warm-up). Quick: 0.6 s (0.1 s warm-up).
    duration, warmup = FIG13_RUN_S_QUICK if quick else FIG13_RUN_S
    rtts = FIG13_RTT2_US_QUICK if quick else FIG13_RTT2_US
    rows = []
    for scheme in SCHEMES:
        base = fig13_scenario(scheme, RTT1_US, duration, warmup)
        name = "fig13-" + scheme.split("–")[0].lower() + ("-if" if "Improved" in scheme else
                                                           ("-red" if "RED" in scheme else ""))
        t, _ = _sweep(out_dir, name, base, {"network.rtt": [[f"{RTT1_US}us"] * 2 + [f"{r}us"] * 2 for r in rtts]})
        for r2, (_, row) in zip(rtts, t.iterrows()):
            g = [float(row[f"flow[{i}].goodput_bps"]) for i in range(4)]
            rows.append(dict(scheme=scheme, rtt2_us=r2, rtt_ratio=r2 / RTT1_US, g1_bps=g[0] + g[1], g2_bps=g[2] + g[3],
                             tput_ratio=(g[0] + g[1]) / (g[2] + g[3]), util=float(row["port[sw->r].utilization"]),
                             q_mean_pkt=float(row["port[sw->r].q_mean_pkt"]), drops=int(row["port[sw->r].drops"]),
                             timeouts=int(row["after_warmup.timeouts"])))
    df = pd.DataFrame(rows)
    slopes = {s: fit_slope(d.rtt_ratio, d.tput_ratio) for s, d in df.groupby("scheme", sort=False)}
    ses = {s: slope_se(d.rtt_ratio, d.tput_ratio) for s, d in df.groupby("scheme", sort=False)}
    df["fitted_theta"] = df.scheme.map(slopes)
    df["fitted_theta_se"] = df.scheme.map(ses)
    csv = out_dir / "fig13_rtt_fairness.csv"
    df.to_csv(csv, index=False)

    fig, ax = plt.subplots(figsize=(6.5, 5))
    styles = {"TCP–Drop-tail": ("tab:red", "s"), "TCP–RED": ("tab:green", "^"), "DCTCP": ("tab:blue", "o"),
              "DCTCP–Improved Fairness": ("tab:purple", "D")}
    for s, d in df.groupby("scheme", sort=False):
        c, m = styles[s]
        ax.loglog(d.rtt_ratio, d.tput_ratio, marker=m, color=c, label=f"{s} (fitted θ = {slopes[s]:.2f})")
    x = np.array([1.0, 10.0])
    ax.loglog(x, x ** 2, "k--", lw=0.8, label="RTT ratio² (TCP-like AIMD)")
    ax.loglog(x, x, "k:", lw=0.8, label="RTT ratio¹ (linear; fluid model, eqs. 37-38)")
    ax.set_xlabel("RTT2 / RTT1  (RTT1 = 100 µs)")
    ax.set_ylabel("throughput ratio  group 1 / group 2")
    ax.set_title("Fig. 13: RTT-fairness, 2 groups of 2 flows, 10 Gbps, K = 35", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    png = save_figure(fig, out_dir, "fig13_rtt_fairness.png")

    claims: list[Claim] = []
    for s, pred in PREDICTED.items():
        words = {"TCP–Drop-tail": "approximately squared RTT-fairness", "TCP–RED": "approximately linear RTT-fairness",
                 "DCTCP–Improved Fairness": "linear RTT-fairness"}[s]
        claims.append(instruments(
            f"Sect. 5: {s}: {words}", f"Throughput ∝ RTT^-{pred:g}", ok(abs(slopes[s] - pred) < TOL_THETA),
            packet=f"fitted θ = {slopes[s]:.2f}; ratio at RTT ratio {rtts[-1] / RTT1_US:g}: "
                   f"{float(df[(df.scheme == s)].tput_ratio.iloc[-1]):.2f}",
            # The paper's reading of its fluid model (37)-(38), equal average windows, is a closed form
            # (queueing delay neglected), not a fluid integration: the theory column.
            theory={"TCP–Drop-tail": "θ = 2 (synchronized AIMD)", "TCP–RED": "θ = 1 (unsynchronized marks, "
                    "W ∝ 1/sqrt(p))", "DCTCP–Improved Fairness": "θ = 1 (eqs. 37-38 read as equal average "
                    "windows, queueing delay neglected)"}.get(s, ""),
            detail=f"least-squares slope of log ratio on log RTT ratio through the origin; tolerance ±{TOL_THETA} (nearer "
                   "to the paper's reading than to its neighbour: 1 linear, 1.5 between, 2 squared)"
                   + ("; below 2 but within [11]'s 1 <= θ <= 2: most likely the two groups' halvings are only partly "
                      "synchronized (each group cuts once per its own window), which moves AIMD towards θ = 1"
                      if s == "TCP–Drop-tail" and abs(slopes[s] - pred) > TOL_THETA else "")))
    # Orderings of fitted slopes: each step by more than twice the standard error of the difference
    # (the fits' residuals: the curves' scatter about a power law is their noise), fixed after a review found
    # "θ_IF < θ_RED" passing on 0.93 < 0.96 with standard errors 0.074 and 0.020.
    se_rule = ("each difference by more than twice its standard error (least-squares fits through the origin); one the "
               "other way by more: differs; one within: inconclusive")
    # DCTCP's fitted slopes move most between a quick and a full run (a review: its θ 1.85 in --quick,
    # 1.31 in full; both rows below flipped, in opposite directions): the rows that read them say so.
    quick_note = (f"; --quick: {duration - warmup:g} s measured at RTT ratios "
                  f"{', '.join(f'{r / RTT1_US:g}' for r in rtts)}: DCTCP's slopes are rough there and this verdict may "
                  f"differ from the full run's ({FIG13_RUN_S[0] - FIG13_RUN_S[1]:g} s, "
                  f"{len(FIG13_RTT2_US)} RTT ratios)" if quick else "")
    low, low_txt = below("TCP–RED", "DCTCP", slopes, ses)
    high, high_txt = below("DCTCP", "TCP–Drop-tail", slopes, ses)
    order = all_of(low, high)
    claims.append(instruments(
        "Sect. 5.1: DCTCP's RTT-fairness is better than TCP–Drop-tail but worse than TCP–RED", "θ_RED < θ_DCTCP < θ_DT",
        order, packet=f"θ: {low_txt}; {high_txt}",
        theory="θ = 1 for DCTCP from eqs. 37-38 (equal average windows; the fluid model misses the discrete "
               "cuts, Sect. 5.2)", detail=f"criterion: {se_rule}"
        + ("; not resolved: a difference within twice its standard error" if order == INCONCLUSIVE else "")
        + quick_note))
    d = df[df.scheme == "DCTCP"]
    split = 3.2
    hi_from = split if not quick else 3.0  # the quick grid has 3.0, not 3.2
    lo_s, lo_se = local_slope(d.rtt_ratio, d.tput_ratio, 1.0, split), local_slope_se(d.rtt_ratio, d.tput_ratio, 1.0, split)
    hi_s, hi_se = local_slope(d.rtt_ratio, d.tput_ratio, hi_from, 10.0), local_slope_se(d.rtt_ratio, d.tput_ratio,
                                                                                         hi_from, 10.0)
    lo_r = d.rtt_ratio[_in_range(d.rtt_ratio, 1.0, split)]
    hi_r = d.rtt_ratio[_in_range(d.rtt_ratio, hi_from, 10.0)]
    squared = tends_to_squared(lo_s, hi_s, lo_se, hi_se)
    claims.append(instruments(
        "Sect. 5.1: DCTCP is slightly worse than linear at moderate RTT ratios and tends to squared as the ratio "
        "grows", "slope rises from ~1 towards 2", squared,
        packet=f"fitted slope {lo_s:.2f} ± {lo_se:.2f} for RTT ratios {lo_r.min():g}-{lo_r.max():g} ({len(lo_r)} points), "
               f"{hi_s:.2f} ± {hi_se:.2f} for {hi_r.min():g}-{hi_r.max():g} ({len(hi_r)} points); rise "
               f"{hi_s - lo_s:+.2f}, 2 SE {2 * math.hypot(lo_se, hi_se):.2f}",
        detail=f"criterion: 1 < the slope over 1-{split:g} (worse than linear) < the slope over {hi_from:g}-10 (rising "
               f"towards squared), each beyond twice its standard error (the scatter about each line; two points "
               "measure none: NaN), and the latter < "
               f"{2 + TOL_THETA:g} (towards squared, not past it: the θ rows' tolerance about 2); differs if a slope "
               "goes the other way beyond twice its standard error or passes that bound, inconclusive if a step is "
               "within the noise"
               + ("; not resolved: a step within twice its standard error" if squared == INCONCLUSIVE else "") + ". "
               f"Least-squares slopes of the log-log curve over each range; the senders' packets start up to "
               f"{HOST_JITTER13} late at random (network.host_jitter: without it the deterministic system phase-"
               "locked and its curves zig-zagged by up to 2x between neighbouring RTT ratios)" + quick_note))
    ri = float(df[df.scheme == "DCTCP–Improved Fairness"].tput_ratio.iloc[-1])
    rd = float(d.tput_ratio.iloc[-1])
    better, better_txt = below("DCTCP–Improved Fairness", "DCTCP", slopes, ses)
    claims.append(instruments(
        "Sect. 5.2: the per-ACK change (36) significantly improves RTT-fairness, especially at high RTT ratios",
        "Improved below DCTCP", all_of(better, ok(ri < rd)),
        packet=f"θ: {better_txt}; ratio at {rtts[-1] / RTT1_US:g}x RTT: {ri:.2f} vs {rd:.2f}",
        detail="criterion: the slope lower by more than twice the standard error of the difference (higher by more: "
               "differs; within: inconclusive), and the ratio at the largest RTT ratio lower"))
    slight, slight_txt = below("DCTCP–Improved Fairness", "TCP–RED", slopes, ses)
    claims.append(instruments(
        "Sect. 5.2: DCTCP–Improved Fairness is even slightly better than TCP–RED", "θ_IF < θ_RED", slight,
        packet=f"θ: {slight_txt}",
        detail=f"criterion: {se_rule}" + ("; not resolved: a difference within twice its standard error does not show "
                                          "which is better" if slight == INCONCLUSIVE else "")))
    # No "link busy" in the check: TCP halving at K = 35 (below the BDP) leaves the link idle at times
    # (~93 %), as it should; the row had said "link busy" without testing it (a review).
    claims.append(Claim(
        "(setup) no drops, no timeouts", "—",
        f"drops {int(df.drops.sum())}; timeouts {int(df.timeouts.sum())}; utilization >= {100 * df.util.min():.2f} % "
        f"(not judged); {count_shown(len(df), 'run')} of {duration:g} s ({warmup:g} s warm-up)",
        ok(int(df.drops.sum()) == 0 and int(df.timeouts.sum()) == 0), kind=CHECK))
    return ExperimentResult("dctcp-fig13", "RTT-fairness (Fig. 13)", claims, [png, csv])


# ---------------------------------------------------------------------------------------------
# Fig. 12: convergence of 2 flows, packet simulation beside the Hybrid model
# ---------------------------------------------------------------------------------------------

#: Fig. 12 setting (Section 4.3): C = 10 Gbps, d = 200 us, K = 35 (17 % of the BDP), W_max ~ 200.
D12_S = 200e-6
K12 = 35
#: The paper's ns-2 convergence times (Section 4.3), s.
NS2_CONV_S = {"1/sqrt(W_max)": 55e-3, "5/W_max": 67e-3, "1/W_max": 185e-3}
#: The paper's alpha-vs-window convergence ratios ("about 5x", "about twice", "about the same").
NS2_ALPHA_RATIO = {"1/sqrt(W_max)": 5.0, "5/W_max": 2.0, "1/W_max": 1.0}
#: Convergence time against ns-2's, TOL_CONV: the sum of what separates two honest measurements of
#: the same quantity, rule fixed before measuring the spread (no rounding: see below):
#:   * the paper's printed precision: "55 ms", "67 ms", "185 ms", i.e. +-0.5 ms, <= 1 %;
#:   * the definition's resolution: the windows are sampled every 50 us (cwnd_interval), 0.1 %;
#:   * the model difference in the setting: our pipe W_max = C d' + K = 203.7 packets (d' includes
#:     serialisation) against the paper's ~200; an AIMD convergence time scales with W_max, 2 %;
#:   * twice the run-to-run spread: the convergence time depends on the phase of flow 1's sawtooth
#:     at which flow 2 joins (ns-2's phase is arbitrary). Measured with this module's definition
#:     over 8 join times T2 + k 0.25 ms, k = 0..7 (benchmarks/fig12_join_phase_spread.py), on
#:     2026-12-01 05:50 UTC with 40 Gbps access links (ACCESS12): relative sd 2.2 % (g =
#:     1/sqrt(W_max)), 1.4 % (5/W_max) and 1.1 % (1/W_max) with --quick (T2 = 0.1 s); 3.2 %, 1.2 %
#:     and 0.7 % in the full run (T2 = 0.3 s); the largest of each mode is taken. (With access =
#:     bottleneck, 2026-11-29: 2.2-2.7 % quick, 2.1-2.6 % full.)
#: Full: 1 + 0.1 + 2 + 2 x 3.2 = 9.5 %; quick: 1 + 0.1 + 2 + 2 x 2.2 = 7.5 %. (Until 2026-11-29
#: both were rounded up to 15 %, a margin no part of the sum asked for; the earlier 25 % was
#: borrowed from dctcp-hybrid, which no longer uses it.)
TOL_CONV_PRINTED = 0.01
TOL_CONV_SAMPLING = 0.001
TOL_CONV_MODEL = 0.02
#: The join-phase spread (relative sd), the larger of the measured variants, by mode.
CONV_SPREAD_SD = {"quick": 0.022, "full": 0.032}
#: The join-phase spread (relative sd over 8 join phases) of the ratio window time / alpha time of
#: the "alpha converges about k x faster" rows, by mode and g: `benchmarks/fig12_join_phase_spread.py`
#: (2026-12-03, Zen 5 VM). alpha's first passage within 10 % of alpha* moves with the join phase far
#: more than the windows' at g = 1/sqrt(W_max) (ratios 3.5 .. 4.9 in the full run); a band of the
#: windows' spread alone had been too narrow to say "differs" (a review).
RATIO_SPREAD_SD = {"quick": {"1/sqrt(W_max)": 0.073, "5/W_max": 0.026, "1/W_max": 0.011},
                   "full": {"1/sqrt(W_max)": 0.132, "5/W_max": 0.021, "1/W_max": 0.008}}
#: The hosts' links of Fig. 12, faster than the 10 Gbps bottleneck: flow 1 alone must queue at the
#: switch to be marked and settle at W_max ~ C d + K (Sect. 4.3: "its window size reaches 200").
#: With access = bottleneck (until 2026-12-01) flow 1 was paced by its own NIC, never marked, and
#: joined at ~342-400 packets, so every convergence started from a state the paper's does not (a
#: review).
ACCESS12 = "40Gbps"
#: TCP's convergence time depends on flow 1's sawtooth phase at the join far more than DCTCP's
#: (a probe at 40 Gbps access: 8 to 45 ms over one sawtooth): TCP runs at 8 join times T2 + k x 3 ms,
#: k = 0..7, one sawtooth period of W_max / 2 ~ 100 RTTs (~24 ms), and its mean is what DCTCP is
#: compared with, its standard error in the rule.
TCP_JOINS = 8
TCP_JOIN_STEP_S = 3e-3
#: Fig. 12: (flow 2's join time T2, the horizon after it), s: flow 1 alone settles for T2 first.
FIG12_JOIN_HORIZON_S = (0.3, 0.7)
FIG12_JOIN_HORIZON_S_QUICK = (0.1, 0.4)
#: "Up to about a factor of 2 longer than TCP" = 1 < t_DCTCP / t_TCP <= 2.5 for g in the range (27):
#: "about 2" is good to half its last digit (registry.quoted_tolerance, about=True); the ratio's
#: whole +-2 standard-error band must lie inside (DCTCP's join-phase spread, TCP's standard error
#: over its join phases).
MAX_TCP_RATIO = 2 + quoted_tolerance("2", about=True)


def tol_conv(quick: bool) -> float:
    """The tolerance of a convergence time against ns-2's: the sum above (0.075 quick, 0.095 full)."""
    return TOL_CONV_PRINTED + TOL_CONV_SAMPLING + TOL_CONV_MODEL + 2 * CONV_SPREAD_SD["quick" if quick else "full"]


def alpha_ratio_band(k: float) -> tuple[float, float]:
    """The ratios that read as "about k": k to half a unit of its last digit, as the paper prints it
    (registry.quoted_tolerance with about=True: "about 5" 4.5 .. 5.5, "about 2" 1.5 .. 2.5, "about the
    same" 0.5 .. 1.5), the reading of "up to about 2x" beside it (:data:`MAX_TCP_RATIO`); the three
    bands are disjoint. Until 2026-12-03 a band reached the geometric means of the neighbouring
    readings (3.16 .. 7.9 for "about 5": 3.95 was "about 5x"), which an audit found lenient beside
    MAX_TCP_RATIO's reading of "about 2"."""
    t = quoted_tolerance(f"{k:g}", about=True)
    return k - t, k + t


def _first_time(t: np.ndarray, good: np.ndarray) -> float:
    k = np.nonzero(good)[0]
    return float(t[k[0]]) if len(k) else math.inf


def _tcp_hybrid(W0, W_max: float, n_events: int) -> th.HybridRun:
    """The Hybrid model with TCP's constant decrease factor 1/2 (alpha = 1 at every event): eqs. (19)-(20)."""
    W = np.asarray(W0, float).copy()
    N = W.size
    t0 = (W_max - W.sum()) / N
    W = W + t0
    Ts, Ws = [t0], [W.copy()]
    one = np.ones(N)
    for _ in range(n_events):
        W, _, dT = th.hybrid_step(W, one, 1.0)
        Ts.append(Ts[-1] + dT)
        Ws.append(W.copy())
    return th.HybridRun(np.array(Ts), np.array(Ws), np.ones((len(Ts), N)), W_max, 1.0)


@experiment("dctcp-fig12", "Convergence of 2 flows, TCP and DCTCP: packet simulation vs Hybrid model (Fig. 12)", PAPER)
def run_fig12(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    d_eff = base_rtt_s(D12_S)
    W_max = C_PPS * d_eff + K12  # the engine's pipe: d' = d + serialisation (203.7 pkt; the paper ~200)
    W_star = W_max / 2
    R_s = d_eff + K12 / C_PPS  # R* = d + K/C, the hybrid model's time unit
    gs = {"1/sqrt(W_max)": 1 / math.sqrt(W_max), "5/W_max": 5 / W_max, "1/W_max": 1 / W_max}
    # flow 1 alone from t = 0 (alpha starts at 0), flow 2 joins at T2 with one segment and alpha = 1
    T2, horizon = FIG12_JOIN_HORIZON_S_QUICK if quick else FIG12_JOIN_HORIZON_S

    def us(x):
        return time_str(x)

    base = dict(
        network=dict(topology="dumbbell", senders=2, bottleneck="10Gbps", access=ACCESS12, rtt=us(D12_S),
                     buffer="1000pkt", aqm=dict(kind="threshold", K=f"{K12}pkt")),
        flows=[dict(count=1, protocol="dctcp", g=gs["1/sqrt(W_max)"], alpha_init=0.0, senders=[0]),
               dict(count=1, protocol="dctcp", g=gs["1/sqrt(W_max)"], alpha_init=1.0, init_cwnd=1, start=us(T2),
                    senders=[1])],
        run=dict(duration=us(T2 + horizon), warmup=us(T2)),
        metrics=dict(queue_interval="100us", cwnd_interval="50us", throughput_interval="5ms"),
    )
    t_dc, sres = _sweep(out_dir, "fig12-dctcp", base, {"flows[0].g, flows[1].g": [[g, g] for g in gs.values()]},
                        tables=True)
    tcp = {k: v for k, v in base.items()}
    tcp["flows"] = [dict(count=1, protocol="newreno", ecn=True, senders=[0]),
                    dict(count=1, protocol="newreno", ecn=True, init_cwnd=1, start=us(T2), senders=[1])]
    joins = [T2 + k * TCP_JOIN_STEP_S for k in range(TCP_JOINS)]
    t_tcp, sres_tcp = _sweep(out_dir, "fig12-tcp", tcp, {"flows[1].start, run.warmup, run.duration":
                                                        [[us(j), us(j), us(j + horizon)] for j in joins]}, tables=True)

    def converged(res, join: float):
        c = res.cwnd
        piv_w = c.pivot_table(index="t_s", columns="flow", values="cwnd_pkt")
        piv_a = c.pivot_table(index="t_s", columns="flow", values="alpha")
        piv_w = piv_w[piv_w.index >= join].dropna()
        piv_a = piv_a.reindex(piv_w.index)
        t = piv_w.index.to_numpy() - join
        W = piv_w.to_numpy()
        return t, W, piv_a, _first_time(t, np.all(np.abs(W - W_star) <= 0.1 * W_star, axis=1))

    tcp_runs = [sres_tcp.result(rid) for rid in t_tcp.run_id]
    tcp_times = np.array([converged(r, j)[3] for r, j in zip(tcp_runs, joins)])
    runs = [("TCP", None, tcp_runs[0])] + [(name, g, sres.result(rid)) for (name, g), rid in zip(gs.items(), t_dc.run_id)]

    rows, series = [], {}
    for name, g, res in runs:
        t, W, piv_a, t_w = converged(res, T2)
        if g is None:  # TCP: the mean over its join phases (the plot shows the first)
            t_w = float(np.mean(tcp_times))
        alpha1_at_T2 = float(piv_a.iloc[0, 0]) if g is not None else math.nan
        if g is not None:
            a_star = th.alpha_star(W_star, g)
            A = piv_a.to_numpy()
            t_a = _first_time(t, np.all(np.abs(A - a_star) <= 0.1 * a_star, axis=1))
            hy = th.hybrid_model([W_max - 1, 1.0], [0.0, 1.0], g, W_max, 4000)
            hy_meas = th.hybrid_model([W_max - 1, 1.0], [min(max(alpha1_at_T2, 0.0), 1.0), 1.0], g, W_max, 4000)
            t_hy, t_hy_meas = _conv_time(hy)[0] * R_s, _conv_time(hy_meas)[0] * R_s
        else:
            a_star, t_a = math.nan, math.nan
            hy = _tcp_hybrid([W_max - 1, 1.0], W_max, 4000)
            t_hy = t_hy_meas = _conv_time(hy)[0] * R_s
        rows.append(dict(case=name, g=g if g is not None else math.nan, conv_time_packet_s=t_w, alpha_conv_time_s=t_a,
                         alpha_star=a_star, alpha1_at_join=alpha1_at_T2, conv_time_hybrid_s=t_hy,
                         conv_time_hybrid_measured_alpha_s=t_hy_meas, conv_time_ns2_s=NS2_CONV_S.get(name, math.nan),
                         conv_time_packet_sd_s=float(np.std(tcp_times, ddof=1)) if g is None else math.nan,
                         joins=len(tcp_times) if g is None else 1, w1_at_join_pkt=float(W[0, 0]),
                         drops=int(res.monitored_ports().iloc[0].drops)
                         + (sum(int(r.monitored_ports().iloc[0].drops) for r in tcp_runs[1:]) if g is None else 0)))
        series[name] = (t, W, piv_a.to_numpy(), hy)
    df = pd.DataFrame(rows)
    csv = out_dir / "fig12_convergence.csv"
    df.to_csv(csv, index=False)

    fig, axes = plt.subplots(1, 4, figsize=(16, 3.6), sharey=True)
    for ax, (name, (t, W, A, hy)), tag in zip(axes, series.items(), "abcd"):
        ax.plot(1e3 * t, W[:, 0], color="tab:blue", lw=0.8, label="flow 1 (packet)")
        ax.plot(1e3 * t, W[:, 1], color="tab:orange", lw=0.8, label="flow 2 (packet)")
        th_ms = 1e3 * (hy.T - hy.T[0]) * R_s
        ax.step(th_ms, hy.W[:, 1], "k--", lw=0.9, where="post", label="flow 2, hybrid model (20)-(21)")
        ax.axhline(W_star, color="gray", ls=":", lw=0.8)
        tw = float(df[df.case == name].conv_time_packet_s.iloc[0]) if name != "TCP" else float(tcp_times[0])
        if math.isfinite(tw):
            ax.axvline(1e3 * tw, color="tab:red", lw=0.8, label=f"within 10 %: {1e3 * tw:.0f} ms"
                       + (f" (this join; mean of {TCP_JOINS}: {1e3 * np.mean(tcp_times):.0f} ms)" if name == "TCP" else ""))
        if name != "TCP":
            ax2 = ax.twinx()
            ax2.plot(1e3 * t, A[:, 0], color="tab:blue", lw=0.5, alpha=0.5)
            ax2.plot(1e3 * t, A[:, 1], color="tab:orange", lw=0.5, alpha=0.5)
            ax2.set_ylim(0, 1.05)
            if tag == "d":
                ax2.set_ylabel("α (thin)")
        ax.set_xlim(0, 1e3 * horizon)
        ax.set_xlabel("time since flow 2 starts [ms]")
        ax.set_title(f"({tag}) " + ("TCP" if name == "TCP" else f"DCTCP, g = {name}"), fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6.5, loc="upper right")
    axes[0].set_ylabel("window [packets]")
    w1 = df.set_index("case").w1_at_join_pkt
    fig.suptitle(f"Fig. 12: convergence of 2 flows (C = 10 Gbps, {ACCESS12} access, d = 200 µs, K = 35, W_max = "
                 f"{W_max:.0f} pkt)\nflow 1's window at the join: {w1.drop('TCP').min():.0f}-{w1.drop('TCP').max():.0f} "
                 f"pkt (DCTCP), {w1['TCP']:.0f} (TCP, first join); the paper's flow 1 reaches ~200", fontsize=9)
    fig.tight_layout()
    png = save_figure(fig, out_dir, "fig12_convergence.png")

    claims: list[Claim] = []
    dc = df[df.case != "TCP"].set_index("case")
    t_tcp_s = float(df[df.case == "TCP"].conv_time_packet_s.iloc[0])
    for name in gs:
        r = dc.loc[name]
        v, diff = verdict(NS2_CONV_S[name], r.conv_time_packet_s, tol_conv(quick))
        claims.append(instruments(
            f"Fig. 12 / Sect. 4.3: time for both windows to get within 10 % of the fair share, g = {name}",
            f"{1e3 * NS2_CONV_S[name]:.0f} ms (ns-2)", v, packet=f"{1e3 * r.conv_time_packet_s:.1f} ms",
            theory=f"hybrid model {1e3 * r.conv_time_hybrid_s:.1f} ms (alpha_1 = 0 at the join), "
                   f"{1e3 * r.conv_time_hybrid_measured_alpha_s:.1f} ms (with the simulated alpha_1 = "
                   f"{r.alpha1_at_join:.3f})",
            detail=f"{100 * diff:.1f} % from ns-2 (tolerance {100 * tol_conv(quick):.1f} %: the paper's digits, "
                   "sampling, the pipe's size and twice the join-phase spread). Flow 1 joins at window "
                   f"{r.w1_at_join_pkt:.0f} pkt (the paper's ~200) with alpha {r.alpha1_at_join:.3f} (the hybrid "
                   "model's worst case: 0)"))
    for name, k in NS2_ALPHA_RATIO.items():
        r = dc.loc[name]
        ratio = r.conv_time_packet_s / r.alpha_conv_time_s if r.alpha_conv_time_s > 0 else math.inf
        band = alpha_ratio_band(k)
        # the ratio's noise: its own join-phase spread, measured (RATIO_SPREAD_SD)
        sd = RATIO_SPREAD_SD["quick" if quick else "full"][name]
        lo_r, hi_r = ratio * (1 - 2 * sd), ratio * (1 + 2 * sd)
        claims.append(instruments(
            f"Sect. 4.3: with g = {name} alpha converges {'about the same time as' if k == 1 else f'about {k:g}x faster than'} "
            "the windows", f"ratio ~{k:g}",
            by_noise(math.isfinite(ratio) and band[0] <= lo_r and hi_r <= band[1],
                     not math.isfinite(ratio) or hi_r < band[0] or lo_r > band[1]),
            packet=f"window {1e3 * r.conv_time_packet_s:.1f} ms / alpha {1e3 * r.alpha_conv_time_s:.1f} ms = {ratio:.2f} "
                   f"(+-{200 * sd:.1f} %: {lo_r:.2f} .. {hi_r:.2f})",
            theory=f"rates (25): g = {r.g:.4f}, gamma = "
                   f"{th.gamma_rate(W_star, r.alpha_star):.4f} per RTT",
            detail=f"alpha converged = the first time both are within 10 % of alpha* (23) = {r.alpha_star:.3f}, the "
                   "paper's rule for the windows ('within 10 % of the fair share for the first time') applied to alpha "
                   "(the paper defines none for alpha; a first passage: with a large g alpha keeps swinging around "
                   f"alpha* by more than 10 % after it); 'about {k:g}' = {band[0]:g} .. {band[1]:g} (half a unit of "
                   f"its last digit, as 'up to about 2x' below); the ratio's +-2 sd band (its join-phase spread, "
                   f"{100 * sd:.1f} % over 8 join phases: RATIO_SPREAD_SD) inside it: reproduced, wholly outside: "
                   "differs, else inconclusive"))
    good = [dc.loc[n].conv_time_packet_s / t_tcp_s for n in ("1/sqrt(W_max)", "5/W_max")]
    # the ratio's relative standard error: DCTCP's join-phase spread, TCP's mean over its joins
    rel_se = math.hypot(CONV_SPREAD_SD["quick" if quick else "full"],
                        float(np.std(tcp_times, ddof=1)) / t_tcp_s / math.sqrt(len(tcp_times)))
    hy_tcp = float(df[df.case == "TCP"].conv_time_hybrid_s.iloc[0])
    resolved = all(1.0 < x * (1 - 2 * rel_se) and x * (1 + 2 * rel_se) <= MAX_TCP_RATIO for x in good)
    # Contradicted: a ratio's whole band outside (1, MAX]; neither shown nor contradicted (a band crosses a
    # limit): inconclusive (a review: 2.16 read "differs" with nothing saying that it lies inside, only not
    # resolvably; 2.61 +- 32 % likewise lies partly inside)
    # (a ratio that is not a number differs; without a standard error, nothing resolves: inconclusive)
    outside = any(not math.isfinite(x) or (math.isfinite(rel_se) and (x * (1 + 2 * rel_se) <= 1.0
                                                                    or x * (1 - 2 * rel_se) > MAX_TCP_RATIO))
                  for x in good)
    conv_verdict = by_noise(resolved, outside)
    claims.append(instruments(
        "Sect. 4.3: with g chosen by (27) DCTCP converges up to about a factor of 2 slower than TCP", "~2x TCP",
        conv_verdict,
        packet=f"TCP {1e3 * t_tcp_s:.1f} ms (mean of {len(tcp_times)} joins over one sawtooth: "
               + ", ".join(f"{1e3 * x:.1f}" for x in tcp_times)
               + f" ms); DCTCP / TCP = {good[0]:.2f} (1/sqrt(W_max)), {good[1]:.2f} (5/W_max), +-{200 * rel_se:.0f} % "
                 "(2 standard errors)",
        theory=f"hybrid: TCP {1e3 * hy_tcp:.1f} ms, ratios {dc.loc['1/sqrt(W_max)'].conv_time_hybrid_s / hy_tcp:.2f}, "
               f"{dc.loc['5/W_max'].conv_time_hybrid_s / hy_tcp:.2f}; asymptotic beta_TCP/beta_DCTCP = "
               f"{th.beta_tcp(W_star) / th.beta_dctcp(W_star, gs['1/sqrt(W_max)']):.2f}, "
               f"{th.beta_tcp(W_star) / th.beta_dctcp(W_star, gs['5/W_max']):.2f}",
        detail=f"criterion: 1 < ratio <= {MAX_TCP_RATIO} for the ratio's whole +-2 standard-error band (DCTCP's "
               f"join-phase spread {100 * CONV_SPREAD_SD['quick' if quick else 'full']:.1f} %, TCP's standard error over "
               f"its {len(tcp_times)} joins, whose times vary with flow 1's sawtooth phase)"
               + f"; differs if a ratio's whole band lies outside (1, {MAX_TCP_RATIO:g}]"
               + (f"; not resolved: a ratio's +-2 standard-error band crosses a limit of (1, {MAX_TCP_RATIO:g}], so the "
                  "run neither shows nor contradicts the claim (more joins would narrow it)"
                  if conv_verdict == INCONCLUSIVE else "")))
    slow = dc.loc["1/W_max"].conv_time_packet_s / dc.loc["1/sqrt(W_max)"].conv_time_packet_s
    claims.append(instruments(
        "Sect. 4.3: g = 1/W_max significantly increases the total convergence time", "185 vs 55 ms (3.4x)",
        ok(slow >= 2.0), packet=f"{slow:.2f}x the time of g = 1/sqrt(W_max)",
        theory=f"hybrid {dc.loc['1/W_max'].conv_time_hybrid_s / dc.loc['1/sqrt(W_max)'].conv_time_hybrid_s:.2f}x",
        detail="criterion: at least twice"))
    claims.append(Claim("(setup) no drops", "—", f"drops {int(df.drops.sum())}", ok(int(df.drops.sum()) == 0),
                        kind=CHECK))
    return ExperimentResult("dctcp-fig12", "Convergence of 2 flows (Fig. 12)", claims, [png, csv])
