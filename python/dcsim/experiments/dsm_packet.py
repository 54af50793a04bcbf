"""Converged Ethernet in the packet simulator: Section V of "Congestion Control in Converged
Ethernet with Heterogeneous and Time-Varying Delays" (Cheng et al.), DSM against QCN and SMCC.

* ``dsm-fig5``  Fig. 5, stability: N = 5 sources starting at line rate; the queue over time for
                loop delays of 100, 300, 500 us at 10 Gbps and 40, 80, 160 us at 100 Gbps.
* ``dsm-fig6``  Fig. 6, responsiveness: 3 sources at 0, two join 0.1 s apart, two stop at 0.3 s
                and 0.4 s.
* ``dsm-fig7``  Fig. 7, adaptability: utilization over {1, 10, 40, 100} Gbps x {80, 160, 320} us.
* ``dsm-fig8``  Fig. 8, heterogeneous and time-varying loop delays in [400, 800] us: repeated
                runs, the queue CDF, throughput and drops. The delays vary per feedback frame
                (a latency drawn uniformly for each, so every loop lies in [400, 800] us), alike
                for every source: the paper's links "randomly distributed" per source are not
                modelled apart (each source's mean loop is ~600 us), and per-frame draws can
                reorder feedback, which the paper does not say happens.
* ``dsm-fig9``  Fig. 9, multiple bottlenecks: the parking lot C1 - C2 - C3 with F1..F4 on the
                paper's schedule; the queue at both bottlenecks.
* ``dsm-fig10`` Fig. 10, mixed flows on the parking lot: 5 long-lived flows per source plus
                Poisson short flows (0-200 per second, 10 Mbit on average).

Setting (Section V-A): 1 KB frames (1000 B: T = 80 us is 100 frames at 10 Gbps with p = 0.01),
128 KB drop-tail buffers, q0 = 64 KB, every source starting at line rate. The single bottleneck is
the paper's Fig. 3 dumbbell as a two-switch chain: S_i on C1, R_i on C2, 1 us host links; the
loop delay is set by the feedback generation latency, so that the sampled frame's serialisation +
the host link out + the feedback frame's serialisation + the host link back + the latency is the
paper's delay exactly (the sources table reports the realised loop, checked in each table).

Parameters the paper leaves open, and ours:

* **DSM's m and T for other rates and delays.** Section V-A sets m = 4 for 10 Gbps and 300 us with
  T = 1/(p C) = 80 us. Section IV-C says m must bound every loop delay in sampling periods
  (eq. 6). We set T = 8 frame / (p C) and m = ceil(delay / T) for each run (m = 2, 4, 7 at
  10 Gbps for 100, 300, 500 us; 5, 10, 20 at 100 Gbps for 40, 80, 160 us). Ha = Hb = Hc = 20 kHz
  and omega = 5 throughout, as printed.
* **QCN** follows 802.1Qau's pseudo-code defaults (protocols.md §1: Qeq = 33 KB, w = 2,
  Gd = 1/128, BC_LIMIT 150 KB, a 10 ms timer with jitter, FR_TH = 5, R_AI = 5 Mbps,
  R_HAI = 50 Mbps). The paper's [22] is that pseudo-code; it aims at Qeq, not at q0. (The
  paper's Fig. 5 text has every scheme "around the desired point q0 = 64KB", as if its QCN had
  Qeq = 64 KB; it prints no Qeq. We keep the pseudo-code's value. Fig. 5's 100 us claim is
  judged as the paper words it, against q0 = 64 KB for every scheme, with a (dcsim) check row
  against QCN's own Qeq beside it; the claims that QCN fails (out of control, underflows, an
  intolerable delay) judge it against its own Qeq, since against q0 a QCN queue held at its Qeq
  would fail by construction.)
* **Trends** (Fig. 7's "the larger the bandwidth, the lower the utilization", Fig. 10's "the
  heavier the short flows, the more violent the oscillation") run every point with 2 seeds in
  --quick and 3 in a full run and are judged on the trend of the seeds' means against twice the
  standard error of each change, from the spread the seeds show (``seed_trend``), not on every step
  of one run a point. A trend the seeds neither show nor contradict beyond that is "inconclusive"
  (not "differs").
* **SMCC** is DSM with m = 0 and its own gains (a = 10 000, b = 6 667, c = 10 000 1/s, omega = 5):
  a reconstruction (see ``crates/dcsim-core/src/l2/smcc.rs``), since [21]'s settings are not public.
* **MinRate**: 100 Mb/s for all three (QCN's; DSM's paper has none, and a source at rate 0 is never
  sampled again).
* **Fig. 10's short flows** (not as the paper): the paper has every source generate them, with sizes
  "derived from [23]" (DCTCP's measured, heavy-tailed sizes) of mean 10 Mbit, at 0-200 per second
  for "0 % to 20 % of the bottleneck bandwidth". We send them from S1 to R1 only, across both
  bottlenecks, so that 200/s x 10 Mbit is the 20 % of each (one rate per source would put 60 % on
  C1 -> C2, which three sources cross), with exponential sizes of that mean: the L2 sources have no
  size distribution from a CDF. Burstier (heavy-tailed) sizes may make the queue's oscillation
  grow faster with the rate than here.

What we found, and report in the claims tables. With the printed gains (Hc = 20 kHz, so
c = 10 000 1/s), one DSM feedback moves one source by c q0 = 5.1 Gbps from the queue's term alone
(with the predictor's terms, eq. 25, up to the +-C clip of eq. 27): the paper's model
(eq. 5) lets the aggregate rate absorb any u, but a real source cannot go above its line rate
nor below MinRate, so the big steps saturate, the predictor (eq. 25) counts steps that never took
effect, and the queue underflows: in most settings of Figs. 5 and 7 DSM keeps 22-68 % utilization
(full runs before 2026-12-02, when DSM's CP began to sample the arrivals its queue drops too, as
the paper's does: the --quick numbers moved by a few points; it holds q0 at 100 Gbps with a 40 us
loop, and Fig. 7's 1 Gbps and 10 Gbps/80 us runs reach 86-98 %) where the paper shows ~100 %. The
discrete model of Section III (``dcsim.theory.dsm.simulate_discrete``) with the same gains holds
q0 from any start, so the gap is between the model and a packet network, not in our transcription
of eqs. (22)-(26). The same gap shows without any congestion (a review, 2026-12-02): one DSM
source alone at line rate on the 10 Gbps dumbbell, its queue always empty, ends at MinRate with
16 % utilization over 40 ms (SMCC and QCN: 100 %). The CP's first samples find q < q0 and send
increases the RP cannot apply (it is at line rate already); the predictor of eq. (25) counts them
all the same, predicts a queue that never comes (Q_v > 0 with Q_f < 0: StateB) and sends decreases;
with the source slowed, samples (one per 1/p frames) come rarer and the last m feedbacks span
milliseconds. The paper's model has no rate ceiling, so it cannot show this. Lowering only Hc ten-fold, to 2 kHz (one step <= c q0 = 0.5 Gbps, a tenth of a
source's fair share), DSM holds q0 = 64 KB at 100 % utilization with no drops at 10 Gbps for 100
and 300 us and at 100 Gbps for 40 and 80 us, as the paper describes; with m from eq. (6) it still
fails at 500 us (m = 7), and at 160 us at 100 Gbps (m = 20) the small a, b leave the buffer full
in a 0.12 s --quick run and reach q0 only in the 0.5 s full run, while Section V's m = 4 at 500 us
gave 98.8 % in our exploration. The tables show this variant
("DSM, Hc = 2 kHz") beside the printed one as dcsim's own exploration (a check, not a claim). We
chose 2 kHz after seeing the printed value fail (3.9 kHz, a step of C/(2N), gave 91-99 %); it is
an exploration, not a calibration of the verdicts, which are always judged on the printed
parameters. QCN (802.1Qau's defaults) holds its own Qeq = 33 KB at 100 us, not the q0 = 64 KB
the paper's Fig. 5 text puts every scheme at, and in a full run it still holds Qeq at 300 us
(mean 29.5 KB, empty 0.16 % of the time, 99.99 % utilization, sd 9.7 KB), so the paper's "out of
control" there differs (in the 0.12 s --quick run, measured after 0.06 s, its queue still
empties 7 % of the time, mean 22 KB, and the row reads reproduced).

--quick runs Fig. 5 for 0.12 s and measures after 0.06 s: QCN's recovery from the line-rate start
takes 50-60 ms (its 10 ms timer counts 5 fast-recovery cycles before any increase; a review
measured the queue empty 68-86 % of the time in 10 ms bins until 50 ms at 100 Gbps, 40 us, and
never after 60 ms), so the earlier 0.03 s warm-up judged QCN on its start-up.
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

from dcsim.experiments.registry import (  # noqa: E402
    Claim,
    ExperimentResult,
    all_of,
    check,
    experiment,
    monotone_trend,
    se_trend,
    ok,
    save_figure,
)
from dcsim.theory import dsm as th  # noqa: E402
from dcsim.units import count_shown, fmt_wall  # noqa: E402

PAPER = "Cheng et al., Congestion Control in Converged Ethernet with Heterogeneous and Time-Varying Delays"
FRAME_BYTES = 1000
FEEDBACK_BYTES = 64
BUFFER_BYTES = 128_000
Q0_BYTES = 64_000
P_SAMPLE = 0.01
HOST_DELAY_S = 1e-6
#: The schemes compared, each a (label, [l2] changes) pair; "dsm-hc2k" is dcsim's exploration.
SCHEMES = {
    "dsm": {"scheme": "dsm"},
    "qcn": {"scheme": "qcn"},
    "smcc": {"scheme": "smcc"},
    "dsm-hc2k": {"scheme": "dsm", "Hc": "2kHz"},
}
LABELS = {"dsm": "DSM", "qcn": "QCN", "smcc": "SMCC", "dsm-hc2k": "DSM, Hc = 2 kHz (dcsim)"}
COLORS = {"dsm": "tab:red", "qcn": "tab:blue", "smcc": "tab:green", "dsm-hc2k": "tab:purple"}
#: "Holds q0": the time-averaged queue within +-25 % of q0, the queue empty less than 1 % of the
#: time after warm-up (no underflow) and utilization >= 99 %. "Underflows": empty >= 1 % of the time.
#: HOLD_TOL is a definition, not a noise allowance: the paper prints no number ("stable around q0",
#: Fig. 5 shows the queue flat at 64 KB), and the mean queue hardly varies from run to run
#: (measured: sd 55 B = 0.09 % of q0 over seeds 1-5, 10 Gbps, 300 us, Hc = 2 kHz, 0.1 s runs), so
#: any spread-based band would be a fraction of a frame. From the model: the controller sees the
#: queue once per sampling period T = 1/(p C) = 80 us (100 frames at 10 Gbps, p = 0.01), and the
#: discrete model of eq. (9) (dcsim theory dsm) settles exactly at q0, so a mean off q0 is a
#: standing offset of the packet system. The band +-16 KB = +-16 frames (12.8 us of queue at
#: 10 Gbps, a sixth of T) separates a queue held at its target from one parked elsewhere in the
#: 128 KB buffer (0 .. 2 q0): empty (underflow) or full (the buffer, q0 + 100 %) are 4 bands away.
HOLD_TOL = 0.25
EMPTY_TOL = 0.01
#: Fig. 6's "keeps the buffer full": a mean queue of at least half the buffer (fixed 2026-11-29, when
#: the claim was found to rest on a ranking alone, before looking at a run against it).
FULL_SHARE = 0.5
UTIL_HOLD = 0.99


def base_loop_s(C_bps: float) -> float:
    """The loop delay of the two-switch chain without generation latency: the sampled frame's
    serialisation and its host link to C1, the feedback frame's serialisation and the link back."""
    return 8 * FRAME_BYTES / C_bps + HOST_DELAY_S + 8 * FEEDBACK_BYTES / C_bps + HOST_DELAY_S


def dsm_T_m(C_bps: float, delay_s: float) -> tuple[float, int]:
    """DSM's sampling period T = 8 frame / (p C) and m = ceil(delay / T) (eq. 6)."""
    T = th.sampling_period_s(C_bps, P_SAMPLE, FRAME_BYTES)
    return T, th.delay_bound_m(delay_s, T)


def us(x: float) -> str:
    return f"{x * 1e6:.6g}us"


def ps(x: float) -> str:
    """A time to the picosecond (the generation latencies make the loop delay exact)."""
    return f"{round(x * 1e12)}ps"


def dumbbell(n: int, C_bps: float, *, duration_s: float, warmup_s: float, seed: int = 1) -> dict:
    """The Fig. 3 dumbbell as a chain C1 -> C2: S1..Sn on C1, R1..Rn on C2."""
    attach = {**{f"S{i}": "C1" for i in range(1, n + 1)}, **{f"R{i}": "C2" for i in range(1, n + 1)}}
    return {
        "network": {"topology": "parking_lot", "switches": 2, "link": f"{C_bps / 1e9:g}Gbps", "delay": "1us",
                    "host_delay": us(HOST_DELAY_S), "buffer": f"{BUFFER_BYTES}B", "attach": attach},
        "l2": {"scheme": "dsm", "frame": f"{FRAME_BYTES}B",
               "sources": [{"src": f"S{i}", "dst": f"R{i}"} for i in range(1, n + 1)]},
        "run": {"duration": us(duration_s), "warmup": us(warmup_s), "seed": seed},
        "metrics": {"queue_interval": "20us"},
    }


def scheme_changes(key: str, C_bps: float, delay_s: float) -> dict:
    """[l2] changes for a scheme at this rate and loop delay (DSM: T and m per eq. 6)."""
    out = {f"l2.{k}": v for k, v in SCHEMES[key].items()}
    if SCHEMES[key]["scheme"] == "dsm":
        T, m = dsm_T_m(C_bps, delay_s)
        out.update({"l2.T": us(T), "l2.m": m})
    return out


def run_points(out_dir: Path, name: str, base: dict, points: list[dict], *, tables: bool = True, seeds=None):
    """One sweep over explicit points (each a {dotted path: value} dict with the same paths),
    through :func:`dcsim.sweep.sweep` (all cores, cached in ``out_dir/sweep-<name>``)."""
    from dcsim.sweep import sweep

    keys = list(points[0])
    axes = {", ".join(keys): [[p[k] for k in keys] for p in points]} if len(keys) > 1 else {keys[0]: [p[keys[0]] for p in points]}
    res = sweep(base, axes, out=Path(out_dir) / f"sweep-{name}", tables=tables, seeds=seeds,
                progress=sys.stderr.isatty())
    res.require_finished(name)
    return res.table, res


def stats(res, port: str = "C1->C2", warmup_s: float = 0.0) -> dict:
    """Bottleneck statistics of one run (after warm-up) and the realised loop delays."""
    p = res.ports
    row = p[(p["src"] + "->" + p["dst"]) == port].iloc[0]
    q = res.queue
    q = q[(q.port_label.astype(str) == port) & (q.t_s >= warmup_s)]
    src = res.sources
    sent = float(src.sent_frames.sum())
    return dict(util=float(row.utilization), q_mean_bytes=float(row.q_mean_bytes), q_empty=float(row.q_empty_frac),
                q_std_bytes=float(q.q_bytes.std()) if len(q) > 1 else float("nan"),
                drop_pct=100.0 * float(src.dropped_frames.sum()) / sent if sent else float("nan"),
                loop_min_s=float(src.loop_delay_min_s.min()), loop_max_s=float(src.loop_delay_max_s.max()))


def target_bytes(key: str) -> float:
    """The queue a scheme aims at: q0 for DSM and SMCC (the engine's default, the paper's 64 KB),
    Qeq for QCN (802.1Qau's pseudo-code: 33 KB). Judging QCN against q0 made every claim that it
    fails hold by construction (a probe: at 100 us it holds 33.5 KB at 100 % utilization)."""
    from dcsim.scenario import ENGINE_L2_DEFAULTS

    return float(ENGINE_L2_DEFAULTS["qcn_qeq_bytes"] if SCHEMES[key]["scheme"] == "qcn" else ENGINE_L2_DEFAULTS["q0_bytes"])


def holds(s: dict, target: float) -> bool:
    """Holds its target queue: mean within +-HOLD_TOL of it, empty < EMPTY_TOL, utilization >= UTIL_HOLD."""
    return abs(s["q_mean_bytes"] - target) <= HOLD_TOL * target and s["q_empty"] < EMPTY_TOL and s["util"] >= UTIL_HOLD


def holds_q0(s: dict) -> bool:
    return holds(s, Q0_BYTES)


def oscillates(s: dict, target: float) -> bool:
    """"Out of control and oscillate" (Fig. 5 at 300 us): the scheme does not hold its target,
    ``not holds(s, target)``. The paper sets this against "keep the queue stable around the desired
    point", which :func:`holds` judges, so the two must exclude each other: a queue that swings but
    keeps its mean inside the holding band, never empties and keeps the link 100 % busy is under
    control, whatever its sd. History, told plainly: until 2026-11-29 this was "does not hold"; after
    a full run failed it (QCN at 300 us: mean 29.5 KB of its 33 KB, empty 0.16 % of the time,
    utilization 99.99 %, sd 9.7 KB) it was replaced by "sd >= HOLD_TOL of the target", a rule chosen
    after seeing that run, under which the same run both held its target and was "out of control"
    (an audit, 2026-11-30). It is "does not hold" again; the claims table shows the mean, the empty
    share, the utilization and the sd, so a swing within the band reads as what it is."""
    return not holds(s, target)


def calm(s: dict) -> bool:
    """Neither underflows (empty < EMPTY_TOL of the time) nor overflows (no frame dropped)."""
    return s["q_empty"] < EMPTY_TOL and s["drop_pct"] == 0


#: Seeds of the trend claims (Fig. 7's "the larger the bandwidth, the lower the utilization", Fig. 10's
#: "the heavier the short flows, the more violent the oscillation"): every point runs once per seed and
#: the series is the mean over the seeds, judged against the seeds' spread (:func:`seed_trend`).
#: Decided 2026-11-30, before any seeded run was looked at, after an audit found the verdicts of a strict
#: step-by-step rule on one run a point flipping between --quick and full runs. Two seeds in --quick (a
#: spread needs two), three in a full run (runs of a few seconds each: affordable).
TREND_SEEDS_QUICK = (1, 2)
TREND_SEEDS_FULL = (1, 2, 3)


def seed_trend(per_point, sign: int) -> tuple[str, list[tuple[int, float, float]], list[float], float]:
    """A trend of a series run once a seed at each point (``per_point``: each point's values, one a
    seed, at least two), judged as every trend against sampling noise is
    (:func:`~dcsim.experiments.registry.se_trend`): the seeds' mean at each point, the change from
    the first point to the last and each step against twice the standard error of that difference
    (from the seeds' spread at its two points). Returns the verdict, the steps against the
    ``sign`` way beyond their margins as (index of the step's first point, change, margin), the
    means and the first-to-last margin.

    Until 2026-12-03 one margin served every step: the largest range over the seeds at any point,
    so one noisy point set it for all (dsm-fig7's QCN at 40G, 98.3 / 82.6 / 81.4 %, made a margin
    of 16.9 points under which its 1G -> 10G step up of 0.4 points passed: an audit)."""
    per_point = [[float(x) for x in v] for v in per_point]
    if not per_point or any(len(v) < 2 for v in per_point):
        raise ValueError("seed_trend: every point needs the values of at least two seeds")
    means = [float(np.mean(v)) for v in per_point]
    ses = [float(np.std(v, ddof=1)) / math.sqrt(len(v)) for v in per_point]
    verdict, against, end, steps = se_trend(means, ses, sign)
    return verdict, [(i, means[i + 1] - means[i], steps[i]) for i in against], means, end


def trend_text(means, against, end: float, labels, unit: str, scale: float = 1.0, digits: int = 1,
               change_unit: str = "") -> str:
    """A seeded trend as the claims tables show it: the means, the change from the first to the last
    beside its margin (2 SE), and the steps against the trend beyond theirs (changes in
    ``change_unit``, by default ``unit``: "points" of a percentage)."""
    f = lambda x: f"{scale * x:.{digits}f}"  # noqa: E731
    cu = change_unit or unit
    return (" -> ".join(f(m) for m in means) + f" {unit} ({labels[0]} -> {labels[-1]} "
            f"{scale * (means[-1] - means[0]):+.{digits}f} {cu}, 2 SE {f(end)} {cu}"
            + "".join(f"; {labels[i]} -> {labels[i + 1]} {scale * c:+.{digits}f} {cu} against it (2 SE {f(m)})"
                      for i, c, m in against) + ")")


def _every_step(values, sign: int) -> str:
    """Whether no step of a series goes against the ``sign`` way, with no margin ("yes" / "no"):
    beside a trend verdict, how near it is to the strict rule of before 2026-11-30 (a margin from
    the spread of 2 or 3 seeds is a rough estimate of the noise: a review)."""
    return "yes" if monotone_trend(values, sign, 0.0, 0.0)[0] else "no"


def trend_rule(words: str, margin_of: str) -> str:
    """The trend rule as the claims tables state it."""
    return (f"trend rule: {words} from the first grid point to the last by more than twice the standard error of "
            f"that change, and no step between neighbouring points against it by more than twice the standard error "
            f"of the step; standard errors from the seeds' spread of {margin_of} at each point (until 2026-12-03 one "
            "margin for every step, the largest range over the seeds at any point; until 2026-11-30 every step "
            "strictly in the direction, one run a point); the spread of 2 (--quick) or 3 seeds is a rough estimate of "
            "the noise, so the row also says whether every step of the seeds' mean goes the way without a margin; "
            "differs if the change or a step goes the other way beyond its 2 SE, inconclusive if neither")


def _against(s: dict, target: float) -> str:
    """A run's queue against a target: the mean and its offset, the empty share, the utilization,
    the sd and the drops (everything :func:`holds` and :func:`oscillates` read, and the swing)."""
    return (f"mean queue {s['q_mean_bytes'] / 1e3:.1f} KB vs {target / 1e3:g} KB "
            f"({100 * (s['q_mean_bytes'] / target - 1):+.0f} %), empty {100 * s['q_empty']:.2f} % of the time, "
            f"util {100 * s['util']:.2f} %, queue sd {s['q_std_bytes'] / 1e3:.1f} KB, drops {s['drop_pct']:.2f} %")


def _fmt(s: dict) -> str:
    return (f"util {100 * s['util']:.2f} %, mean queue {s['q_mean_bytes'] / 1e3:.1f} KB, empty {100 * s['q_empty']:.2f} % "
            f"of the time, drops {s['drop_pct']:.2f} %")


#: The paper's headline for DSM (Conclusion, Section VI: "DSM can always achieve 100% network
#: utilization and less than 5% packet drops"; Section IV: "always guarantees 100% utilization").
HEADLINE = "DSM: 100 % utilization and < 5 % drops (the paper's headline, Section VI)"
DROP_HEADLINE_PCT = 5.0


#: The CSVs' fractions say so in their names (a review: "util" and "q_empty" in 0-1 beside "drop_pct"
#: in percent, unsaid).
FRACTION_COLUMNS = {"util": "util_frac", "util_min": "util_min_frac", "util_max": "util_max_frac",
                    "util_sd": "util_sd_frac", "q_empty": "q_empty_frac"}


def _to_csv(df: pd.DataFrame, csv: Path) -> None:
    df.rename(columns=FRACTION_COLUMNS).to_csv(csv, index=False)


def headline(util: float, drop_pct: float, observed: str, how: str, key: str = "dsm") -> Claim:
    """The headline, judged on computed numbers: utilization >= 99 % ('100 %') and drops < 5 %."""
    text = HEADLINE if key == "dsm" else f"(dcsim) {LABELS[key].replace(' (dcsim)', '')}: 100 % utilization and < 5 % drops"
    good = util >= UTIL_HOLD and drop_pct < DROP_HEADLINE_PCT
    if key != "dsm":
        return check(text, observed, good, how)
    return Claim(text, "100 %, < 5 %", observed, ok(good), f"'100 %' read as >= {100 * UTIL_HOLD:g} %; " + how)


def gains_check(base: dict, points: list[dict]) -> Claim:
    """A check row: whether the printed DSM gains lie in the paper's own admissible ranges, eqs. (23)
    and (31), at every setting run (the runs print these warnings on the terminal and go ahead;
    the table said nothing of them: a probe)."""
    import copy

    from dcsim.scenario import Scenario, apply_changes

    found = []
    for pt in points:
        sc = Scenario.from_dict(apply_changes(copy.deepcopy(base), pt))
        found += [w.removeprefix("l2: ").split(" (gains")[0] for w in sc.warnings() if w.startswith("l2:")]
    distinct = list(dict.fromkeys(found))
    shown = "; ".join(distinct[:3]) + (f"; and {len(distinct) - 3} more" if len(distinct) > 3 else "")
    return check("(setup) the printed DSM gains lie in the paper's admissible ranges, eqs. (23) and (31)",
                 shown or "inside at every setting", not distinct,
                 f"{count_shown(len(found), 'bound')} violated over {count_shown(len(points), 'setting')}; the runs go "
                 "ahead (an unstable setting is what a figure may show), printed gains Ha = Hb = Hc = 20 kHz, omega = 5")


# ---------------------------------------------------------------------------------------------
# Fig. 5: stability
# ---------------------------------------------------------------------------------------------

#: Each figure's packet runs, s: (run length, warm-up) or the run length alone (its warm-up a fixed
#: share of it, in the function); Fig. 8: (repetitions, run length). Module constants, so that
#: parameters.json records both modes (registry.code_settings reads module constants).
FIG5_RUN_S = (0.5, 0.1)
FIG5_RUN_S_QUICK = (0.12, 0.06)
FIG7_DURATION_S = 0.3
FIG7_DURATION_S_QUICK = 0.1
FIG8_RUNS = (100, 5.0)
FIG8_RUNS_QUICK = (4, 0.5)
FIG9_DURATION_S = 5.0
FIG9_DURATION_S_QUICK = 1.0
FIG10_DURATION_S = 1.0
FIG10_DURATION_S_QUICK = 0.25
FIG5 = [(10e9, 100e-6), (10e9, 300e-6), (10e9, 500e-6), (100e9, 40e-6), (100e9, 80e-6), (100e9, 160e-6)]


@experiment("dsm-fig5", "Stability: queue of DSM, QCN and SMCC against the loop delay at 10 and 100 Gbps (Fig. 5)", PAPER)
def run_fig5(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    duration, warmup = FIG5_RUN_S_QUICK if quick else FIG5_RUN_S
    runs = {}
    for key in SCHEMES:
        base = dumbbell(5, 10e9, duration_s=duration, warmup_s=warmup)
        pts = []
        for C, d in FIG5:
            ch = {"network.link": f"{C / 1e9:g}Gbps", "l2.feedback_latency": ps(d - base_loop_s(C))}
            ch.update(scheme_changes(key, C, d))
            pts.append(ch)
        if SCHEMES[key]["scheme"] != "dsm":
            pts = [{k: v for k, v in p.items()} for p in pts]
        table, sres = run_points(out_dir, f"fig5-{key}", base, pts)
        if key == "dsm":
            gains = gains_check(base, pts)
        for (C, d), rid in zip(FIG5, table.run_id):
            res = sres.result(rid)
            runs[(key, C, d)] = (stats(res, warmup_s=warmup), res)
    rows = [dict(scheme=k, C_gbps=C / 1e9, loop_us=d * 1e6, **s) for (k, C, d), (s, _) in runs.items()]
    df = pd.DataFrame(rows)
    csv = out_dir / "dsm_fig5.csv"
    _to_csv(df, csv)

    # one row per scheme, one column per setting: four schemes in one panel buried each other
    # (SMCC's swings between 0 and the full buffer hid the rest)
    fig, axes = plt.subplots(len(SCHEMES), len(FIG5), figsize=(17, 2.1 * len(SCHEMES) + 1), sharex=True, sharey=True)
    for i, key in enumerate(SCHEMES):
        for j, (C, d) in enumerate(FIG5):
            ax = axes[i][j]
            res = runs[(key, C, d)][1]
            q = res.queue[res.queue.port_label.astype(str) == "C1->C2"]
            ax.plot(q.t_s, q.q_bytes / 1e3, lw=0.6, color=COLORS[key])
            ax.axhline(Q0_BYTES / 1e3, color="k", ls="--", lw=0.8)
            if i == 0:
                ax.set_title(f"{C / 1e9:g} Gbps, loop delay {d * 1e6:g} us", fontsize=9)
            ax.set_ylim(0, BUFFER_BYTES / 1e3 * 1.05)
            if j == 0:
                ax.set_ylabel(f"{LABELS[key]}\nqueue (KB)", fontsize=8)
            if i == len(SCHEMES) - 1:
                ax.set_xlabel("time (s)")
    fig.suptitle("DSM paper Fig. 5: queue at the bottleneck C1->C2, N = 5 sources from line rate "
                 f"(dashed: q0 = {Q0_BYTES / 1e3:g} KB; buffer {BUFFER_BYTES / 1e3:g} KB)")
    fig.tight_layout()
    png = save_figure(fig, out_dir, "dsm_fig5.png")

    s = {k: v[0] for k, v in runs.items()}
    claims = []
    for C, ds in ((10e9, (100e-6, 300e-6, 500e-6)), (100e9, (40e-6, 80e-6, 160e-6))):
        held = [holds_q0(s[("dsm", C, d)]) for d in ds]
        claims.append(Claim(
            f"DSM keeps the queue stable at q0 = 64 KB at {C / 1e9:g} Gbps for loop delays up to {ds[-1] * 1e6:g} us",
            f"stable around q0 = {Q0_BYTES / 1e3:g} KB", "; ".join(f"{d * 1e6:g} us: {_fmt(s[('dsm', C, d)])}" for d in ds),
            ok(all(held)),
            f"'stable at q0' = mean within +-{100 * HOLD_TOL:g} % of q0, empty < {100 * EMPTY_TOL:g} % of the time, "
            f"utilization >= {100 * UTIL_HOLD:g} %; printed gains (Hc = 20 kHz). See the module docstring for why "
            "the printed reaching gain saturates single sources."))
    dsm_all = [s[("dsm", C, d)] for C, d in FIG5]
    claims.append(headline(min(x["util"] for x in dsm_all), max(x["drop_pct"] for x in dsm_all),
                           "; ".join(f"{C / 1e9:g}G/{d * 1e6:g}us: {100 * x['util']:.2f} %, drops {x['drop_pct']:.2f} %"
                                     for (C, d), x in zip(FIG5, dsm_all)),
                           "worst utilization and worst drops over the six settings, printed gains"))
    q500 = s[("qcn", 10e9, 500e-6)]
    claims.append(Claim("at 500 us (10 Gbps) QCN underflows", "QCN underflows", _fmt(q500), ok(q500["q_empty"] >= EMPTY_TOL),
                        f"'underflows' = the queue empty >= {100 * EMPTY_TOL:g} % of the time after warm-up"))
    for key in ("qcn", "smcc"):
        target = target_bytes(key)
        aim = f"its target {target / 1e3:g} KB ({'Qeq' if SCHEMES[key]['scheme'] == 'qcn' else 'q0'})"
        rule = (f"mean within +-{100 * HOLD_TOL:g} % of it, empty < {100 * EMPTY_TOL:g} % of the time, "
                f"utilization >= {100 * UTIL_HOLD:g} %")
        held = f"'holds' = {rule.replace('of it', 'of ' + aim)}"
        sd = lambda x: f", queue sd {x['q_std_bytes'] / 1e3:.1f} KB"  # noqa: E731
        d100, d300, d500 = (s[(key, 10e9, d)] for d in (100e-6, 300e-6, 500e-6))
        # Fig. 5 text: "all the schemes are able to keep the queue stable around the desired point q0 = 64KB,
        # although QCN and SMCC oscillate slightly": judged as written, against q0, as DSM's rows are.
        own = (f"; QCN's own target is 802.1Qau's Qeq = {target / 1e3:g} KB (module docstring): the (dcsim) row below "
               "judges it against that" if SCHEMES[key]["scheme"] == "qcn" else "; q0 is also SMCC's own target")
        claims.append(Claim(f"at 100 us (10 Gbps) {LABELS[key]} keeps the queue stable around q0 = 64 KB "
                            "(oscillating slightly)", f"around q0 = {Q0_BYTES / 1e3:g} KB", _against(d100, Q0_BYTES),
                            ok(holds_q0(d100)), f"the paper's words (Fig. 5 text: every scheme 'around the desired point "
                            f"q0 = 64KB'): 'stable around q0' = {rule.replace('of it', 'of q0')}, the rule of DSM's rows"
                            + own))
        if SCHEMES[key]["scheme"] == "qcn":
            claims.append(check(f"(dcsim) at 100 us (10 Gbps) QCN keeps the queue stable around its own Qeq = "
                                f"{target / 1e3:g} KB", _against(d100, target), holds(d100, target),
                                f"the same rule against 802.1Qau's Qeq, the queue dcsim's QCN aims at (module docstring), "
                                f"not the paper's q0: {held}"))
        claims.append(Claim(f"at 300 us (10 Gbps) {LABELS[key]} oscillates, out of control", "out of control, oscillates",
                            _against(d300, target), ok(oscillates(d300, target)),
                            f"'out of control' = does not hold {aim}, the complement of the 'stable' rule ({held}); "
                            "'oscillates' is not judged (the paper gives the swing no size: the queue sd is shown): "
                            "a queue that swings but keeps its mean in the band, never empties and keeps the link busy "
                            "is under control, whatever its sd (from 2026-11-29 to 11-30 the rule was sd >= 25 % of the "
                            "target alone, chosen after a full run of QCN had failed 'does not hold'); at 100 us"
                            f"{sd(d100).removeprefix(',')}. Judged against the scheme's own target"
                            + (": against q0 a QCN queue held at its Qeq would be 'out of control' by construction"
                               if SCHEMES[key]["scheme"] == "qcn" else ", q0")
                            + (f". --quick measures {duration - warmup:g} s from {warmup:g} s: QCN's queue may still "
                               "carry its recovery from the line-rate start there, so this verdict may flip in a full "
                               f"run ({FIG5_RUN_S[0]:g} s from {FIG5_RUN_S[1]:g} s; module docstring)"
                               if quick and SCHEMES[key]["scheme"] == "qcn" else "")))
        claims.append(Claim(f"at 300 us (10 Gbps) {LABELS[key]}'s oscillations do not underflow or overflow",
                            "no underflow, no overflow", _fmt(d300), ok(calm(d300)),
                            f"no underflow = empty < {100 * EMPTY_TOL:g} % of the time; no overflow = no frame dropped"))
        if key == "smcc":
            claims.append(Claim("at 500 us (10 Gbps) SMCC oscillates so seriously that it becomes unstable", "unstable",
                                _against(d500, target), ok(oscillates(d500, target)), "unstable = does not hold " + aim
                                + f" ({held}); how seriously it oscillates is not judged (the paper gives the swing no "
                                "size: the queue sd is shown)"))
        # Sec. II-B: "when the link capacity grows to 100Gbps, both QCN and SMCC fail to work normally with
        # only 80us"; Sec. V-B: "the largest tolerable delay for QCN and SMCC are only tens of microseconds".
        # Judged at the paper's 80 us, and held at 40 us ("tens"). (Until 2026-12-02 the row judged the
        # failure at 160 us, DSM's delay in Fig. 5(b), and printed that as the paper's: a review.)
        d40, d80, d160 = (s[(key, 100e9, d)] for d in (40e-6, 80e-6, 160e-6))
        claims.append(Claim(f"at 100 Gbps {LABELS[key]} tolerates only tens of us: holds at 40 us, fails at 80 us",
                            "fails with only 80 us (Sec. II-B); largest tolerable delay tens of us (Sec. V-B)",
                            f"40 us: {_fmt(d40)}; 80 us: {_fmt(d80)}; 160 us: {_fmt(d160)}",
                            ok(holds(d40, target) and not holds(d80, target)),
                            held + "; fails = does not hold; 'holds at 40 us' is our reading of 'tens of microseconds'"))
    hc = [s[("dsm-hc2k", C, d)] for C, d in FIG5]
    claims.append(check("(dcsim) DSM with Hc lowered to 2 kHz holds q0 at every delay and rate",
                        "; ".join(f"{C / 1e9:g}G/{d * 1e6:g}us: {100 * x['util']:.1f} %, {x['q_mean_bytes'] / 1e3:.1f} KB, "
                                  f"empty {100 * x['q_empty']:.1f} %" for (C, d), x in zip(FIG5, hc)),
                        all(holds_q0(x) for x in hc),
                        "an exploration, not a claim of the paper: one step <= c q0 = 0.5 Gbps keeps single sources "
                        "inside [MinRate, line rate] (module docstring)"))
    loops = [(d, v[0]) for (k, C, d), v in runs.items()]
    worst = max(max(abs(x["loop_min_s"] - d), abs(x["loop_max_s"] - d)) for d, x in loops if np.isfinite(x["loop_min_s"]))
    claims.append(check("(setup) realised loop delay = the paper's delay", f"max |realised - set| {worst * 1e9:.3f} ns",
                        worst < 1e-9, "sampled frame's departure -> its feedback's arrival, every feedback frame"))
    claims.append(gains)
    return ExperimentResult("dsm-fig5", "Stability (Fig. 5)", claims, [png, csv])


# ---------------------------------------------------------------------------------------------
# Fig. 6: responsiveness
# ---------------------------------------------------------------------------------------------


@experiment("dsm-fig6", "Responsiveness: sources join and leave (Fig. 6)", PAPER)
def run_fig6(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    C, d = 10e9, 300e-6
    duration = 0.5
    base = dumbbell(5, C, duration_s=duration, warmup_s=0.0)
    # 3 sources at 0, the 4th at 0.1 s, the 5th at 0.2 s; two stop at 0.3 s and 0.4 s.
    sched = [(0.0, None), (0.0, None), (0.0, 0.4), (0.1, None), (0.2, 0.3)]
    base["l2"]["sources"] = [{"src": f"S{i + 1}", "dst": f"R{i + 1}", "start": us(a), **({"stop": us(b)} if b else {})}
                             for i, (a, b) in enumerate(sched)]
    base["l2"]["feedback_latency"] = ps(d - base_loop_s(C))
    runs = {}
    for key in SCHEMES:
        table, sres = run_points(out_dir, f"fig6-{key}", base, [scheme_changes(key, C, d)] if SCHEMES[key]["scheme"] == "dsm"
                                 else [{"l2.scheme": SCHEMES[key]["scheme"]}])
        runs[key] = sres.result(table.run_id.iloc[0])
    # one panel per scheme, with the sources' summed rate beside the queue (the claims are about
    # the link staying busy: one panel of four schemes buried all but SMCC's full-buffer swings)
    fig, axs = plt.subplots(len(runs), 1, figsize=(10, 1.9 * len(runs) + 0.8), sharex=True)
    phases = [(0.0, 0.1), (0.1, 0.2), (0.2, 0.3), (0.3, 0.4), (0.4, 0.5)]
    rows = []
    for ax, (key, res) in zip(axs, runs.items()):
        q = res.queue[res.queue.port_label.astype(str) == "C1->C2"]
        ax.plot(q.t_s, q.q_bytes / 1e3, lw=0.6, color=COLORS[key], label="queue C1->C2 (KB, left)")
        rates = res.rates.groupby("t_s").rate_bps.sum()
        ar = ax.twinx()
        ar.plot(rates.index, rates.to_numpy() / 1e9, lw=0.7, alpha=0.75, color="0.3",
                label="sum of the sources' rates (Gbps, right)")
        ar.set_ylim(0, 1.05 * max(20e9, float(rates.max())) / 1e9)  # 3 sources start at line rate: 30 Gbps
        ax.set_zorder(ar.get_zorder() + 1)  # the queue over the rate
        ax.patch.set_visible(False)
        ar.set_ylabel("Gbps", fontsize=8)
        for t, what in ((0.1, "+1"), (0.2, "+1"), (0.3, "-1"), (0.4, "-1")):
            ax.axvline(t, color="gray", lw=0.6, ls=":")
            ax.text(t, BUFFER_BYTES / 1e3 * 1.05, f" {what} source", fontsize=7, va="top", color="0.3")
        ax.axhline(Q0_BYTES / 1e3, color="k", ls="--", lw=0.8)
        ax.set_ylim(0, BUFFER_BYTES / 1e3 * 1.05)
        ax.set_ylabel(f"{LABELS[key]}\nqueue (KB)", fontsize=8)
        if key == next(iter(runs)):  # one legend for all panels, above them
            h1, l1 = ax.get_legend_handles_labels()
            h2, l2 = ar.get_legend_handles_labels()
            fig.legend(h1 + h2, l1 + l2, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, 0.955), ncol=2)
        for a, b in phases:
            # utilization proxy in each phase: departures are not sampled, so use the queue-empty
            # share of the phase and the sum of the sources' rates
            qq = q[(q.t_s >= a + 0.02) & (q.t_s < b)]
            rr = rates[(rates.index >= a + 0.02) & (rates.index < b)]
            rows.append(dict(scheme=key, phase=f"{a:.1f}-{b:.1f} s", measured=f"{a + 0.02:.2f}-{b:.1f} s",
                             q_mean_kb=float(qq.q_bytes.mean()) / 1e3,
                             q_empty_frac=float((qq.q_bytes == 0).mean()), rate_sum_gbps=float(rr.mean()) / 1e9))
    axs[-1].set_xlabel("time (s)")
    fig.suptitle("DSM paper Fig. 6: 3 sources at 0, +1 at 0.1 s and 0.2 s, -1 at 0.3 s and 0.4 s (10 Gbps, 300 us; "
                 f"dashed: q0 = {Q0_BYTES / 1e3:g} KB)", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    png = save_figure(fig, out_dir, "dsm_fig6.png")
    df = pd.DataFrame(rows)
    csv = out_dir / "dsm_fig6.csv"
    _to_csv(df, csv)
    ph = {(r["scheme"], r["phase"]): r for r in rows}
    after_leave = [ph[(k, "0.4-0.5 s")] for k in ("dsm", "qcn", "smcc")]
    claims = [
        Claim("when flows finish, DSM and SMCC converge fast to 100 % utilization; QCN wastes a little",
              "DSM, SMCC ~100 %; QCN < 100 %",
              "; ".join(f"{LABELS[r['scheme']]}: queue empty {100 * r['q_empty_frac']:.2f} % of 0.42-0.5 s, "
                        f"rates sum {r['rate_sum_gbps']:.2f} Gbps" for r in after_leave),
              ok(after_leave[0]["q_empty_frac"] < EMPTY_TOL and after_leave[2]["q_empty_frac"] < EMPTY_TOL
                 and after_leave[1]["q_empty_frac"] >= EMPTY_TOL),
              "a link is fully used while its queue is not empty; 'converges' = empty < 1 % of the phase (from 20 ms "
              "after the change), 'wastes' = empty >= 1 %"),
        Claim("in face of new flows DSM and QCN drain the buffer rapidly, SMCC keeps it full for long",
              "SMCC's queue stays high", "; ".join(
                  f"{LABELS[k]}: mean queue {ph[(k, '0.2-0.3 s')]['q_mean_kb']:.1f} KB, empty "
                  f"{100 * ph[(k, '0.2-0.3 s')]['q_empty_frac']:.1f} % in 0.22-0.3 s" for k in ("dsm", "qcn", "smcc")),
              ok(ph[("smcc", "0.2-0.3 s")]["q_mean_kb"] >= FULL_SHARE * BUFFER_BYTES / 1e3
                 and all(ph[(k, "0.2-0.3 s")]["q_mean_kb"] < ph[("smcc", "0.2-0.3 s")]["q_mean_kb"]
                         and ph[(k, "0.2-0.3 s")]["q_empty_frac"] < EMPTY_TOL for k in ("dsm", "qcn"))),
              f"after the last join: 'full' = SMCC's mean queue >= {FULL_SHARE:.0%} of the {BUFFER_BYTES / 1e3:g} KB "
              f"buffer; 'drain' = DSM's and QCN's lower, with the link kept busy (queue empty < {EMPTY_TOL:.0%}: a "
              "queue emptied by starving the link is no drained buffer)"),
    ]
    whole = {k: stats(res) for k, res in runs.items()}
    claims.append(headline(whole["dsm"]["util"], whole["dsm"]["drop_pct"], _fmt(whole["dsm"]),
                           "the whole 0.5 s (at least 3 sources at 10 Gbps want the link all the time); drops = "
                           "frames dropped / frames sent"))
    x = [ph[("dsm-hc2k", p)] for p in (f"{a:.1f}-{b:.1f} s" for a, b in phases)]
    claims.append(check("(dcsim) DSM with Hc = 2 kHz through every phase",
                        "; ".join(f"{r['phase']}: {r['q_mean_kb']:.1f} KB, empty {100 * r['q_empty_frac']:.2f} %" for r in x),
                        all(r["q_empty_frac"] < EMPTY_TOL for r in x), "an exploration (module docstring)"))
    claims.append(gains_check(base, [scheme_changes("dsm", C, d)]))
    return ExperimentResult("dsm-fig6", "Responsiveness (Fig. 6)", claims, [png, csv])


# ---------------------------------------------------------------------------------------------
# Fig. 7: adaptability
# ---------------------------------------------------------------------------------------------

FIG7_C = (1e9, 10e9, 40e9, 100e9)
FIG7_D = (80e-6, 160e-6, 320e-6)


@experiment("dsm-fig7", "Adaptability: utilization over link rates and loop delays (Fig. 7)", PAPER)
def run_fig7(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    seeds = TREND_SEEDS_QUICK if quick else TREND_SEEDS_FULL
    rows = []
    for key in SCHEMES:
        pts, idx = [], {}
        for C in FIG7_C:
            for d in FIG7_D:
                ch = {"network.link": f"{C / 1e9:g}Gbps", "l2.feedback_latency": ps(d - base_loop_s(C))}
                if SCHEMES[key]["scheme"] == "dsm":
                    ch.update(scheme_changes(key, C, d))
                else:
                    ch.update({"l2.scheme": SCHEMES[key]["scheme"], "l2.feedback_latency": ps(d - base_loop_s(C))})
                pts.append(ch)
                idx[(ch["network.link"], ch["l2.feedback_latency"])] = (C, d)
        # 0.3 s: ~30 k frames at 1 Gbps, ~3 M at 100 Gbps, and at least 700 loop delays after a
        # warm-up of 20 %.
        duration = FIG7_DURATION_S_QUICK if quick else FIG7_DURATION_S
        base = dumbbell(5, 10e9, duration_s=duration, warmup_s=duration / 5)
        table, _ = run_points(out_dir, f"fig7-{key}", base, pts, tables=False, seeds=list(seeds))
        if key == "dsm":
            gains = gains_check(base, pts)
        for _, r in table.iterrows():
            C, d = idx[(r["network.link"], r["l2.feedback_latency"])]
            rows.append(dict(scheme=key, C_gbps=C / 1e9, loop_us=d * 1e6, seed=int(r["seed"]),
                             util=float(r["port[C1->C2].utilization"]), q_empty=float(r["port[C1->C2].q_empty_frac"]),
                             drop_pct=float(r["l2_drop_pct"])))
    df = pd.DataFrame(rows)
    csv = out_dir / "dsm_fig7.csv"
    _to_csv(df, csv)
    agg = df.groupby(["scheme", "C_gbps", "loop_us"], sort=False).agg(
        util=("util", "mean"), util_min=("util", "min"), util_max=("util", "max"), drop_pct=("drop_pct", "mean")).reset_index()
    fig, axes = plt.subplots(1, len(SCHEMES), figsize=(14, 3.8), sharey=True)
    width = 0.25
    for ax, key in zip(axes, SCHEMES):
        d = agg[agg.scheme == key]
        for j, D in enumerate(FIG7_D):
            dd = d[d.loop_us == D * 1e6]
            x = np.arange(len(FIG7_C)) + (j - 1) * width
            ax.bar(x, 100 * dd.util, width, label=f"{D * 1e6:g} us",
                   yerr=[100 * (dd.util - dd.util_min), 100 * (dd.util_max - dd.util)], capsize=1.5,
                   error_kw=dict(lw=0.7))
            # a full link that drops frames is not a success: each bar says its drops from 1 %
            for xi, ui, di in zip(x, 100 * dd.util, dd.drop_pct):
                if di >= 1.0:
                    ax.text(xi, ui + 1, f"{di:.0f}", ha="center", va="bottom", fontsize=6, color="0.25")
        ax.set_xticks(range(len(FIG7_C)), [f"{c / 1e9:g}G" for c in FIG7_C])
        ax.set_xlabel("bottleneck link rate (bit/s)", fontsize=8)
        ax.set_title(LABELS[key], fontsize=10)
        ax.set_ylim(0, 112)
    axes[0].set_ylabel(f"bottleneck utilization (%), mean of {len(seeds)} seeds\n(bar: min-max over the seeds; "
                       "number above: frames dropped, %)", fontsize=8)
    axes[0].legend(fontsize=7, title="loop delay", title_fontsize=7)
    fig.suptitle("DSM paper Fig. 7: utilization, N = 5 sources from line rate")
    fig.tight_layout()
    png = save_figure(fig, out_dir, "dsm_fig7.png")
    # one value per (scheme, C, delay, seed)
    us_ = {(r["scheme"], r["C_gbps"], r["loop_us"], r["seed"]): r["util"] for r in rows}

    def per_seed(key: str, C: float) -> list[float]:
        """The utilization at bandwidth C averaged over the three delays, one value a seed."""
        return [float(np.mean([us_[(key, C / 1e9, D * 1e6, sd)] for D in FIG7_D])) for sd in seeds]

    def falls(key: str) -> tuple[str, str, str]:
        """'The larger C, the lower the utilization', judged on the trend against the seeds' spread
        (:func:`seed_trend`): until 2026-11-30 every step had to fall, one run a point, and the verdicts flipped
        between --quick and full runs (QCN 96.6 -> 96.4 % passed, 99.4 -> 99.9 % failed)."""
        vals = [per_seed(key, C) for C in FIG7_C]
        v, against, means, end = seed_trend(vals, -1)
        txt = (trend_text(means, against, end, [f"{C / 1e9:g}G" for C in FIG7_C], "%", 100.0, 2, "points")
               + f"; every step down without a margin: {_every_step(means, -1)}")
        per = "; ".join(f"{C / 1e9:g}G " + " / ".join(f"{100 * x:.1f}" for x in v) + " %" for C, v in zip(FIG7_C, vals))
        # where the fall is: the mean over the seeds at each delay (a review: QCN's came from 320 us alone)
        by_delay = "; ".join(
            f"{D * 1e6:g} us: " + " / ".join(f"{100 * np.mean([us_[(key, C / 1e9, D * 1e6, sd)] for sd in seeds]):.1f}"
                                           for C in FIG7_C) + " %" for D in FIG7_D)
        return v, txt, per + f"; by loop delay ({' / '.join(f'{C / 1e9:g}G' for C in FIG7_C)}): {by_delay}"

    n_runs = f"the 12 settings x {count_shown(len(seeds), 'seed')}"
    dsm_min = min(us_[("dsm", C / 1e9, D * 1e6, sd)] for C in FIG7_C for D in FIG7_D for sd in seeds)
    drops = {(r["scheme"], r["C_gbps"], r["loop_us"], r["seed"]): r["drop_pct"] for r in rows}
    dsm_drop = max(drops[("dsm", C / 1e9, D * 1e6, sd)] for C in FIG7_C for D in FIG7_D for sd in seeds)
    claims = [Claim("DSM remains almost 100 % utilization regardless of the delays and the bandwidth", ">= 99 % (almost 100 %)",
                    f"min over {n_runs} {100 * dsm_min:.2f} %", ok(dsm_min >= UTIL_HOLD),
                    "'almost 100 %' read as >= 99 %, every run; printed gains"),
              headline(dsm_min, dsm_drop, f"min utilization {100 * dsm_min:.2f} %, max drops {dsm_drop:.2f} % over {n_runs}",
                       "worst run of the 12 settings and the seeds, printed gains")]
    for key in ("qcn", "smcc"):
        t, txt, per = falls(key)
        claims.append(Claim(f"the larger the bandwidth, the lower {LABELS[key]}'s utilization", "decreasing with C",
                            f"mean over the three delays and {count_shown(len(seeds), 'seed')}: {txt}", t,
                            trend_rule("utilization lower", "the utilization (mean over the three delays)")
                            + f"; per seed ({', '.join(map(str, seeds))}): {per}"))
    hc_min = min(us_[("dsm-hc2k", C / 1e9, D * 1e6, sd)] for C in FIG7_C for D in FIG7_D for sd in seeds)
    hc_drop = max(drops[("dsm-hc2k", C / 1e9, D * 1e6, sd)] for C in FIG7_C for D in FIG7_D for sd in seeds)
    claims.append(check(f"(dcsim) DSM with Hc = 2 kHz: utilization and drops over {n_runs}",
                        f"min utilization {100 * hc_min:.2f} %, max drops {hc_drop:.2f} %",
                        hc_min >= UTIL_HOLD and hc_drop < DROP_HEADLINE_PCT,
                        "an exploration (module docstring); as in Figs. 8-10, a full link must also drop < 5 % of frames"))
    claims.append(gains)
    return ExperimentResult("dsm-fig7", "Adaptability (Fig. 7)", claims, [png, csv])


# ---------------------------------------------------------------------------------------------
# Fig. 8: heterogeneous, time-varying loop delays
# ---------------------------------------------------------------------------------------------


#: CPU seconds per simulated second of the Fig. 8 setting (5 sources, 10 Gbps), for the estimate.
FIG8_CPU_PER_SIM_S = 0.45


@experiment("dsm-fig8", "Heterogeneous, time-varying loop delays in [400, 800] us: queue CDF, throughput, drops (Fig. 8)", PAPER)
def run_fig8(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    C = 10e9
    reps, duration = FIG8_RUNS_QUICK if quick else FIG8_RUNS
    base = dumbbell(5, C, duration_s=duration, warmup_s=min(0.5, duration / 10))
    lo, hi = 400e-6 - base_loop_s(C), 800e-6 - base_loop_s(C)
    base["l2"]["feedback_latency"] = {"lo": ps(lo), "hi": ps(hi)}
    from dcsim.sweep.execute import default_jobs

    # ~0.45 s of CPU per simulated second (benchmarks/MEASUREMENTS.md); each scheme's runs are one sweep
    # over the cores, the schemes one after the other.
    jobs = default_jobs()
    cpu_s = len(SCHEMES) * reps * duration * FIG8_CPU_PER_SIM_S
    wall_s = len(SCHEMES) * math.ceil(reps / jobs) * duration * FIG8_CPU_PER_SIM_S
    print(f"dsm-fig8: {len(SCHEMES)} schemes x {count_shown(reps, 'run')} of {duration:g} s at 10 Gbps: about {cpu_s:.0f} s of CPU, "
          f"so about {fmt_wall(wall_s)} wall on {jobs} core(s) (cached runs are not repeated)", file=sys.stderr)
    rows, hists = [], {}
    for key in SCHEMES:
        ch = scheme_changes(key, C, 800e-6) if SCHEMES[key]["scheme"] == "dsm" else {"l2.scheme": SCHEMES[key]["scheme"]}
        table, sres = run_points(out_dir, f"fig8-{key}", base, [ch], tables=True, seeds=reps)
        if key == "dsm":
            gains = gains_check(base, [ch])
        h_all = None
        for rid, seed in zip(table.run_id, table.seed):
            res = sres.result(rid)
            st = stats(res)
            rows.append(dict(scheme=key, seed=int(seed), **st))
            qh = res.queue_hist
            qh = qh[qh.port.isin(res.ports[(res.ports.src + "->" + res.ports.dst) == "C1->C2"].port)]
            h = qh.groupby("q_pkt").time_s.sum()
            h_all = h if h_all is None else h_all.add(h, fill_value=0.0)
        hists[key] = h_all.sort_index()
    df = pd.DataFrame(rows)
    csv = out_dir / "dsm_fig8_runs.csv"
    _to_csv(df, csv)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4))
    for key, h in hists.items():
        cdf = h.cumsum() / h.sum()
        a1.step(h.index * FRAME_BYTES / 1e3, cdf, where="post", color=COLORS[key], label=LABELS[key])
    a1.axvline(Q0_BYTES / 1e3, color="k", ls="--", lw=0.8, label=f"target q0 = {Q0_BYTES / 1e3:g} KB")
    a1.set_xlabel("queue (KB)")
    a1.set_ylabel("CDF (fraction of time)")
    a1.legend(fontsize=7)
    g = df.groupby("scheme").agg(util=("util", "mean"), util_sd=("util", "std"), drops=("drop_pct", "mean"),
                                 drops_sd=("drop_pct", "std")).reindex(list(SCHEMES))
    x = np.arange(len(g))
    # both in per cent on one axis (a second axis had floated the drops' zero above the first's)
    a2.bar(x - 0.2, 100 * g.util, 0.4, yerr=100 * g.util_sd.fillna(0), label="throughput (% of C)")
    a2.bar(x + 0.2, g.drops, 0.4, yerr=g.drops_sd.fillna(0), color="tab:gray", label="drops (% of frames sent)")
    a2.set_xticks(x, [LABELS[k] for k in g.index], fontsize=8)
    a2.set_ylabel("per cent")
    a2.set_ylim(0, 110)
    a2.legend(fontsize=8, loc="upper right")
    a2.set_title(f"mean +- sd over {count_shown(reps, 'run')} of {duration:g} s")
    fig.suptitle("DSM paper Fig. 8: loop delays random in [400, 800] us, 10 Gbps, N = 5")
    fig.tight_layout()
    png = save_figure(fig, out_dir, "dsm_fig8.png")

    def p_empty(key: str) -> float:
        h = hists[key]
        return float(h.get(0, 0.0) / h.sum())

    def near_q0(key: str) -> float:
        h = hists[key]
        kb = h.index * FRAME_BYTES
        return float(h[(kb >= (1 - HOLD_TOL) * Q0_BYTES) & (kb <= (1 + HOLD_TOL) * Q0_BYTES)].sum() / h.sum())

    claims = [
        Claim("DSM holds the queue closer to q0 = 64 KB than QCN and SMCC, and rarely underflows",
              "DSM concentrated at q0; QCN, SMCC often empty",
              "; ".join(f"{LABELS[k]}: {100 * near_q0(k):.1f} % of the time within q0 +-25 %, empty {100 * p_empty(k):.1f} %"
                        for k in ("dsm", "qcn", "smcc")),
              ok(near_q0("dsm") > max(near_q0("qcn"), near_q0("smcc")) and p_empty("dsm") < min(p_empty("qcn"), p_empty("smcc"))),
              "pooled time-weighted queue distributions of all runs"),
        Claim("DSM has higher throughput than QCN and fewer drops than SMCC", "DSM > QCN (throughput); DSM < SMCC (drops)",
              f"throughput {100 * g.util['dsm']:.2f} vs QCN {100 * g.util['qcn']:.2f} %; drops {g.drops['dsm']:.2f} vs "
              f"SMCC {g.drops['smcc']:.2f} %", ok(g.util["dsm"] > g.util["qcn"] and g.drops["dsm"] < g.drops["smcc"]),
              f"means over {count_shown(reps, 'run')}"),
        Claim("DSM: 100 % utilization and < 5 % drops (the paper's headline)", "100 %, < 5 %",
              f"{100 * g.util['dsm']:.2f} %, {g.drops['dsm']:.2f} %", ok(g.util["dsm"] >= UTIL_HOLD and g.drops["dsm"] < DROP_HEADLINE_PCT),
              "'100 %' read as >= 99 %"),
    ]
    loops = df[["loop_min_s", "loop_max_s"]]
    claims.append(check("(setup) realised loop delays within [400, 800] us", f"{1e6 * loops.loop_min_s.min():.1f} .. "
                        f"{1e6 * loops.loop_max_s.max():.1f} us", loops.loop_min_s.min() >= 400e-6 - 1e-12
                        and loops.loop_max_s.max() <= 800e-6 + 1e-12,
                        "every feedback frame of every run; a latency drawn per feedback frame, alike for every source "
                        "(the paper's per-source link delays are not modelled apart: module docstring)"))
    claims.append(check("(dcsim) DSM with Hc = 2 kHz", f"throughput {100 * g.util['dsm-hc2k']:.2f} %, drops "
                        f"{g.drops['dsm-hc2k']:.2f} %, within q0 +-25 % {100 * near_q0('dsm-hc2k'):.1f} % of the time",
                        g.util["dsm-hc2k"] >= UTIL_HOLD and g.drops["dsm-hc2k"] < DROP_HEADLINE_PCT, "an exploration (module docstring)"))
    claims.append(gains)
    return ExperimentResult("dsm-fig8", "Heterogeneous and time-varying delays (Fig. 8)", claims, [png, csv])


# ---------------------------------------------------------------------------------------------
# Fig. 9: parking lot, long-lived flows
# ---------------------------------------------------------------------------------------------


def parking_lot(duration_s: float) -> dict:
    """Fig. 4: C1 - C2 - C3, 10 Gbps, 50 us per hop. F1: S1 -> R1 over C1 -> C2 -> C3; F2 likewise
    until 4 s; F3: S3 on C1 -> R3 on C2 during [1, 3] s; F4: S4 on C2 -> R4 on C3 from 2 s."""
    attach = {"S1": "C1", "S2": "C1", "S3": "C1", "S4": "C2", "R1": "C3", "R2": "C3", "R3": "C2", "R4": "C3"}
    f = duration_s / 5.0  # the paper's 5 s schedule, scaled for quick runs
    return {
        "network": {"topology": "parking_lot", "switches": 3, "link": "10Gbps", "delay": "50us", "host_delay": "1us",
                    "buffer": f"{BUFFER_BYTES}B", "attach": attach},
        "l2": {"scheme": "dsm", "frame": f"{FRAME_BYTES}B", "sources": [
            {"src": "S1", "dst": "R1"},
            {"src": "S2", "dst": "R2", "stop": us(4 * f)},
            {"src": "S3", "dst": "R3", "start": us(1 * f), "stop": us(3 * f)},
            {"src": "S4", "dst": "R4", "start": us(2 * f)}]},
        "run": {"duration": us(duration_s), "warmup": "0us"},
        "metrics": {"queue_interval": "50us"},
    }


#: Fig. 9's flows: (first hop's switch path as links, start, stop) in units of the schedule's second.
FIG9_FLOWS = {"F1": (("C1->C2", "C2->C3"), 0, 5), "F2": (("C1->C2", "C2->C3"), 0, 4),
              "F3": (("C1->C2",), 1, 3), "F4": (("C2->C3",), 2, 5)}


def max_min_load(flows: dict, t: float, C: float) -> dict:
    """Load of each link at schedule time t under max-min fair rates (progressive filling), in the
    unit of C: what a fair scheme that keeps every bottleneck full puts through each link. Every
    source is also capped at C (its own host link)."""
    active = {f: links for f, (links, a, b) in flows.items() if a <= t < b}
    rate, frozen = {f: 0.0 for f in active}, set()
    links = {l for ls in active.values() for l in ls}
    while len(frozen) < len(active):
        free = {f for f in active if f not in frozen}
        # the largest equal increment before a link (or a source's line rate) is full
        inc = min([C - rate[f] for f in free] + [
            (C - sum(rate[f] for f in active if l in active[f])) / sum(1 for f in free if l in active[f])
            for l in links if any(l in active[f] for f in free)])
        for f in free:
            rate[f] += inc
        for f in free:
            full = [l for l in active[f] if sum(rate[g] for g in active if l in active[g]) >= C * (1 - 1e-12)]
            if full or rate[f] >= C * (1 - 1e-12):
                frozen.add(f)
    return {l: sum(rate[f] for f in active if l in active[f]) for l in ("C1->C2", "C2->C3")}


def fig9_ideal_util() -> dict:
    """Each forward link's utilization over the 5 schedule seconds under max-min fair rates."""
    loads = [max_min_load(FIG9_FLOWS, k + 0.5, 1.0) for k in range(5)]
    return {port: float(np.mean([x[port] for x in loads])) for port in ("C1->C2", "C2->C3")}


@experiment("dsm-fig9", "Multiple bottlenecks: the parking lot with long-lived flows (Fig. 9)", PAPER)
def run_fig9(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    duration = FIG9_DURATION_S_QUICK if quick else FIG9_DURATION_S
    f = duration / 5.0
    base = parking_lot(duration)
    # Loops: S1's feedback from C2 ~ 2 x (1 + 50) us, from C1 ~ 2 us: m from the longest (eq. 6).
    d_max = 2 * (HOST_DELAY_S + 2 * 50e-6) + 2 * base_loop_s(10e9)
    runs = {}
    for key in SCHEMES:
        ch = scheme_changes(key, 10e9, d_max) if SCHEMES[key]["scheme"] == "dsm" else {"l2.scheme": SCHEMES[key]["scheme"]}
        table, sres = run_points(out_dir, f"fig9-{key}", base, [ch])
        runs[key] = sres.result(table.run_id.iloc[0])
    fig, axes = plt.subplots(2, 1, figsize=(10, 6), sharex=True)
    rows = []
    for key, res in runs.items():
        for ax, port in zip(axes, ("C1->C2", "C2->C3")):
            q = res.queue[res.queue.port_label.astype(str) == port]
            ax.plot(q.t_s, q.q_bytes / 1e3, lw=0.6, color=COLORS[key], label=LABELS[key])
            for k in range(5):
                qq = q[(q.t_s >= (k + 0.2) * f) & (q.t_s < (k + 1) * f)]
                # "second" k of the paper's 5 s schedule: [k f, (k + 1) f) s of this run (f = 0.2 s in --quick),
                # measured from 0.2 of a slot after each change
                rows.append(dict(scheme=key, port=port, second=k, slot_s=f"{k * f:g}-{(k + 1) * f:g}",
                                 measured_s=f"{(k + 0.2) * f:g}-{(k + 1) * f:g}", q_mean_kb=float(qq.q_bytes.mean()) / 1e3,
                                 q_sd_kb=float(qq.q_bytes.std()) / 1e3, q_empty=float((qq.q_bytes == 0).mean())))
    for ax, port in zip(axes, ("C1->C2", "C2->C3")):
        ax.axhline(Q0_BYTES / 1e3, color="k", ls="--", lw=0.8)
        ax.set_ylabel(f"queue {port} (KB)")
        ax.set_ylim(0, BUFFER_BYTES / 1e3 * 1.05)
        for t, what in ((1, "F3 joins"), (2, "F4 joins"), (3, "F3 leaves"), (4, "F2 leaves")):
            ax.axvline(t * f, color="gray", lw=0.6, ls=":")
            ax.text(t * f, BUFFER_BYTES / 1e3 * 1.04, f" {what}", fontsize=7, va="top", color="0.3")
    axes[0].legend(fontsize=7, loc="center right")
    axes[1].set_xlabel("time (s)")
    fig.suptitle("DSM paper Fig. 9: parking lot; F1, F2 from 0 (F2 ends at 4), F3 in [1, 3], F4 from 2 (schedule in units of "
                 f"{f:g} s)")
    fig.tight_layout()
    png = save_figure(fig, out_dir, "dsm_fig9.png")
    # Utilization of each bottleneck over the run against what max-min fair rates on the schedule put
    # through it (C1->C2 is not the bottleneck in [3, 5], C2->C3 not in [0, 2]): the reference of a fair
    # scheme that keeps every bottleneck full, not an upper bound (a scheme unfair to the long flow puts
    # more through one link: DSM with Hc = 2 kHz 110.6 % of it on C1->C2, a review).
    ideal = fig9_ideal_util()
    util, busy = {}, {}
    for key, res in runs.items():
        p = res.ports
        for port in ("C1->C2", "C2->C3"):
            busy[(key, port)] = float(p[(p.src + "->" + p.dst) == port].iloc[0].utilization)
            util[(key, port)] = busy[(key, port)] / ideal[port]
    drops = {key: stats(res)["drop_pct"] for key, res in runs.items()}
    for row in rows:
        row["util_of_ideal"] = util[(row["scheme"], row["port"])]
        row["drop_pct"] = drops[row["scheme"]]
    df = pd.DataFrame(rows)
    csv = out_dir / "dsm_fig9.csv"
    _to_csv(df, csv)
    r = {(x["scheme"], x["port"], x["second"]): x for x in rows}
    # Congested: C1->C2 in [0, 3], C2->C3 in [2, 5] (the paper's reading of its schedule).
    congested = [("C1->C2", k) for k in (0, 1, 2)] + [("C2->C3", k) for k in (2, 3, 4)]

    def sd(key):
        return float(np.mean([r[(key, p, k)]["q_sd_kb"] for p, k in congested]))

    def held(key) -> int:
        """Congested seconds in which the queue stays near the scheme's own target (target_bytes: QCN
        aims at Qeq = 33 KB, not q0: a probe) with the link busy: mean within +-HOLD_TOL of it and
        empty in < EMPTY_TOL of the samples. A queue pinned at 0 (or at the buffer) has a small sd but
        is not stable around its target."""
        target = target_bytes(key)
        return sum(abs(r[(key, p, k)]["q_mean_kb"] * 1e3 - target) <= HOLD_TOL * target
                   and r[(key, p, k)]["q_empty"] < EMPTY_TOL for p, k in congested)

    def stable_text(key) -> str:
        means = [r[(key, p, k)]["q_mean_kb"] for p, k in congested]
        empty = max(r[(key, p, k)]["q_empty"] for p, k in congested)
        return (f"{LABELS[key]}: near its target {target_bytes(key) / 1e3:g} KB with the link busy in {held(key)} of "
                f"{len(congested)} congested seconds, mean "
                f"{min(means):.1f}-{max(means):.1f} KB, empty up to {100 * empty:.0f} %, sd {sd(key):.1f} KB")

    def more_stable(key) -> bool:
        # stable itself, and steadier than every other scheme that is stable too
        others = [k for k in ("qcn", "smcc") if held(k) == len(congested)]
        return held(key) == len(congested) and all(sd(key) < sd(k) for k in others)

    def util_text(key) -> str:
        # The link's own utilization beside the ratio: above 100 % of the max-min fair load is not a
        # fuller link but a flow taking more than its fair share there (a review).
        return ", ".join(f"{port} {100 * busy[(key, port)]:.1f} % busy = {100 * util[(key, port)]:.1f} % of the max-min "
                         f"fair {100 * ideal[port]:.1f} %" + (" (above it: a flow over its fair share)"
                                                             if util[(key, port)] > 1.005 else "")
                         for port in ("C1->C2", "C2->C3"))

    surplus = [("C1->C2", 3), ("C1->C2", 4), ("C2->C3", 0), ("C2->C3", 1)]

    def shifts(key) -> bool:
        """The schedule's bottlenecks in this scheme's queues: a standing queue (mean > 0.5 KB, half a
        frame) in every congested second, none in the surplus ones."""
        return (all(r[(key, p, k)]["q_mean_kb"] > 0.5 for p, k in congested)
                and all(r[(key, p, k)]["q_mean_kb"] <= 0.5 for p, k in surplus))

    def shift_text(key) -> str:
        busy = [r[(key, p, k)]["q_mean_kb"] for p, k in congested]
        idle = [r[(key, p, k)]["q_mean_kb"] for p, k in surplus]
        return (f"{LABELS[key]}: {'shows it' if shifts(key) else 'does not'} (congested seconds {min(busy):.1f}-"
                f"{max(busy):.1f} KB, surplus seconds {min(idle):.1f}-{max(idle):.1f} KB)")

    printed = ("dsm", "qcn", "smcc")
    loads = [max_min_load(FIG9_FLOWS, k + 0.5, 1.0) for k in range(5)]

    def bottleneck(port: str, k: int) -> bool:
        """Full under max-min fair rates, and the first full link on the path of a flow through it (a
        link full only with what a full link upstream lets through builds no queue: C2->C3 in second 0)."""
        full = [p for p in ("C1->C2", "C2->C3") if loads[k][p] >= 1 - 1e-9]
        return any(a <= k + 0.5 < b and port in links and next(p for p in links if p in full) == port
                   for links, a, b in FIG9_FLOWS.values() if any(p in full for p in links))
    claims = [
        # "Predictably, ...": a property of the traffic schedule, not of a scheme, so a check of the
        # setup computed from it (max-min fair loads), not a claim: until 2026-12-02 it was a claim
        # reproduced if any scheme's queues showed it (a review: only QCN did, DSM's never).
        check("(setup) the schedule congests C1 -> C2 during [0, 3] s and C2 -> C3 during [2, 5] s, as the paper "
              "says ('Predictably, ...')",
              "max-min fair load per second (C1->C2 / C2->C3): "
              + ", ".join(f"{loads[k]['C1->C2']:.2f}/{loads[k]['C2->C3']:.2f}" for k in range(5)),
              {(p, k) for k in range(5) for p in ("C1->C2", "C2->C3") if bottleneck(p, k)} == set(congested),
              "congested = the max-min fair rates fill the link in that second of the schedule and it is the first "
              "full link of a flow through it; in the queues "
              "(a standing queue, mean > 0.5 KB, in every congested second and none in the others): "
              + "; ".join(shift_text(k) for k in printed), paper="C1->C2 in [0, 3] s, C2->C3 in [2, 5] s"),
        Claim("DSM achieves more stable queues than QCN and SMCC, regardless of bottleneck shifting", "DSM most stable",
              "; ".join(stable_text(k) for k in ("dsm", "qcn", "smcc")), ok(more_stable("dsm")),
              f"stable = in every congested second of the schedule (a slot of {f:g} s here, from {0.2 * f:g} s after each "
              f"change) the mean queue within +-{100 * HOLD_TOL:g} % of the scheme's own target (q0; QCN's Qeq) and "
              f"the queue empty in < {100 * EMPTY_TOL:g} % of the samples (the link busy); only then is the sd "
              "compared, with the other schemes that are stable too"),
        headline(min(util[("dsm", p)] for p in ("C1->C2", "C2->C3")), drops["dsm"],
                 util_text("dsm") + f"; drops {drops['dsm']:.2f} %",
                 "utilization of each bottleneck over the run relative to max-min fair rates on the schedule (a "
                 "bottleneck cannot be full while another link limits its flows); drops = frames dropped / sent"),
    ]
    claims.append(check("(dcsim) DSM with Hc = 2 kHz: more stable queues than QCN and SMCC", stable_text("dsm-hc2k"),
                        more_stable("dsm-hc2k"),
                        "an exploration (module docstring); the same test as the paper's claim above: near its target "
                        "in every congested second, and a smaller queue sd than each other scheme that is too"))
    claims.append(headline(min(util[("dsm-hc2k", p)] for p in ("C1->C2", "C2->C3")), drops["dsm-hc2k"],
                           util_text("dsm-hc2k") + f"; drops {drops['dsm-hc2k']:.2f} %", "as above", key="dsm-hc2k"))
    return ExperimentResult("dsm-fig9", "Parking lot, long-lived flows (Fig. 9)", claims, [png, csv])


# ---------------------------------------------------------------------------------------------
# Fig. 10: parking lot, mixed flows
# ---------------------------------------------------------------------------------------------

#: Short-flow arrival rates (per second) of Fig. 10; 10 Mbit each on average.
FIG10_RATES = (0, 50, 100, 150, 200)
FIG10_MEAN_BYTES = 1_250_000  # 10 Mbit


def mixed(duration_s: float, rate_per_s: float) -> dict:
    """Fig. 10's mixed traffic on the Fig. 4 parking lot. Each source holds 5 long-lived flows on
    its Fig. 9 path (S1, S2: C1 -> C3; S3: C1 -> C2; S4: C2 -> C3). Short flows (exponential sizes,
    mean 10 Mbit) arrive at ``rate_per_s`` from S1 to R1, so they cross both bottlenecks and take
    rate x 10 Mbit = 0-20 % of each, the paper's "0 % to 20 % of the bottleneck bandwidth".
    The 5 sources of a host share its line rate (host backpressure: a frame waits while the NIC
    holds 2 packets); until 2026-11-29 they sent up to 5x it into their host's queue, which no
    congestion point saw, so the bottlenecks stayed busy whatever the controllers did."""
    d = parking_lot(duration_s)
    d["l2"]["sources"] = [{"src": f"S{i}", "dst": f"R{i}", "count": 5} for i in range(1, 5)]
    if rate_per_s > 0:
        d["l2"]["poisson"] = [{"src": "S1", "dst": "R1", "rate": float(rate_per_s), "mean_size": f"{FIG10_MEAN_BYTES}B"}]
    d["run"]["warmup"] = us(duration_s / 5)
    return d


@experiment("dsm-fig10", "Multiple bottlenecks with mixed long-lived and Poisson short flows (Fig. 10)", PAPER)
def run_fig10(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    duration = FIG10_DURATION_S_QUICK if quick else FIG10_DURATION_S
    seeds = TREND_SEEDS_QUICK if quick else TREND_SEEDS_FULL
    d_max = 2 * (HOST_DELAY_S + 2 * 50e-6) + 2 * base_loop_s(10e9)
    rows = []
    for key in SCHEMES:
        ch = scheme_changes(key, 10e9, d_max) if SCHEMES[key]["scheme"] == "dsm" else {"l2.scheme": SCHEMES[key]["scheme"]}
        results = []
        t0, s0 = run_points(out_dir, f"fig10-{key}-0", mixed(duration, 0), [ch], seeds=list(seeds))
        results += [(0, int(r.seed), s0.result(r.run_id)) for r in t0.itertuples()]
        rates = [r for r in FIG10_RATES if r > 0]
        pts = [{**ch, "l2.poisson[0].rate": float(r)} for r in rates]
        t1, s1 = run_points(out_dir, f"fig10-{key}", mixed(duration, rates[0]), pts, seeds=list(seeds))
        results += [(int(round(float(r["l2.poisson[0].rate"]))), int(r["seed"]), s1.result(r["run_id"]))
                    for _, r in t1.iterrows()]
        for rate, seed, res in results:
            src = res.sources
            sent = float(src.sent_frames.sum())
            for port in ("C1->C2", "C2->C3"):
                p = res.ports[(res.ports.src + "->" + res.ports.dst) == port].iloc[0]
                q = res.queue[(res.queue.port_label.astype(str) == port) & (res.queue.t_s >= res.warmup_s)]
                rows.append(dict(scheme=key, rate_per_s=rate, seed=seed, port=port, q_mean_kb=float(q.q_bytes.mean()) / 1e3,
                                 q_sd_kb=float(q.q_bytes.std()) / 1e3, util=float(p.utilization),
                                 drop_pct=100.0 * float(src.dropped_frames.sum()) / sent if sent else float("nan"),
                                 short_flows=int(src.poisson.notna().sum()),
                                 short_finished=int((src.poisson.notna() & src.fct_s.notna()).sum())))
    df = pd.DataFrame(rows)
    csv = out_dir / "dsm_fig10.csv"
    _to_csv(df, csv)
    # the mean over the seeds of each (scheme, rate, port): the series the figure draws and the claims judge
    agg = df.groupby(["scheme", "rate_per_s", "port"], sort=False)[["q_mean_kb", "q_sd_kb", "util", "drop_pct"]].mean().reset_index()
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    for key in SCHEMES:
        for port, ls in (("C1->C2", "-"), ("C2->C3", "--")):
            d = agg[(agg.scheme == key) & (agg.port == port)]
            # mean +- sd, the lower bar stopped at an empty queue (a queue is never negative)
            axes[0].errorbar(d.rate_per_s, d.q_mean_kb, yerr=[np.minimum(d.q_sd_kb, d.q_mean_kb), d.q_sd_kb],
                             color=COLORS[key], ls=ls, marker="o", ms=3, capsize=2)
            axes[1].plot(d.rate_per_s, 100 * d.util, color=COLORS[key], ls=ls, marker="o", ms=3)
        dd = agg[(agg.scheme == key) & (agg.port == "C1->C2")]
        axes[2].plot(dd.rate_per_s, dd.drop_pct, color=COLORS[key], marker="o", ms=3, label=LABELS[key])
    axes[0].set_ylabel("queue (KB): mean, bars +- sd (down to 0)")
    axes[1].set_ylabel("utilization (%)")
    axes[2].set_ylabel("drops, all sources (% of frames sent)")
    for ax in axes:
        ax.set_xlabel("short flows per second (10 Mbit each)")
    from matplotlib.lines import Line2D

    axes[1].legend(handles=[Line2D([], [], color="k", ls="-", label="C1->C2"),
                            Line2D([], [], color="k", ls="--", label="C2->C3")], fontsize=8, title="congestion point",
                   title_fontsize=8, loc="center left")
    axes[2].legend(fontsize=8, title="scheme (colour)", title_fontsize=8)
    fig.suptitle(f"DSM paper Fig. 10: parking lot, 5 long-lived flows per source + Poisson short flows ({duration:g} s runs; "
                 f"mean of {count_shown(len(seeds), 'seed')})")
    fig.tight_layout()
    png = save_figure(fig, out_dir, "dsm_fig10.png")
    g = {(r.scheme, r.rate_per_s, r.port): r._asdict() for r in agg.itertuples(index=False)}
    runs = {(r["scheme"], r["rate_per_s"], r["port"], r["seed"]): r for r in rows}
    ports = ("C1->C2", "C2->C3")

    def sd_trend(key: str, p: str) -> tuple[str, str]:
        """'The heavier the short flows, the more violent the oscillation' on one curve (scheme, bottleneck):
        the queue sd over the rates, judged on the trend against the seeds' spread (:func:`seed_trend`).
        Until 2026-11-30 the sd had to rise at every step, one run a point: a full run 'differed' only
        because QCN's sd fell 0.2 KB at one step while all six curves rose strongly."""
        vals = [[runs[(key, r, p, sd)]["q_sd_kb"] for sd in seeds] for r in FIG10_RATES]
        v, against, means, end = seed_trend(vals, +1)
        txt = (f"{LABELS[key]} {p}: " + trend_text(means, against, end, [f"{r}/s" for r in FIG10_RATES], "KB")
               + f", every step up without a margin: {_every_step(means, +1)}")
        return v, txt

    curves = {(k, p): sd_trend(k, p) for k in ("dsm", "qcn", "smcc") for p in ports}
    per_seed = "; ".join(f"{LABELS[k]} {p}: " + ", ".join(
        f"{r}/s " + "/".join(f"{runs[(k, r, p, sd)]['q_sd_kb']:.1f}" for sd in seeds) for r in FIG10_RATES) + " KB"
        for k in ("dsm", "qcn", "smcc") for p in ports)

    def mean_sd(key: str) -> float:
        return float(np.mean([g[(key, r, p)]["q_sd_kb"] for r in FIG10_RATES for p in ports]))

    def mean_of(key: str, col: str) -> float:
        """The mean over every run: rates, bottlenecks and seeds."""
        return float(np.mean([runs[(key, r, p, sd)][col] for r in FIG10_RATES for p in ports for sd in seeds]))

    def worst(key: str, col: str, fn) -> float:
        """The worst value over every run: rates, bottlenecks and seeds."""
        return fn(runs[(key, r, p, sd)][col] for r in FIG10_RATES for p in ports for sd in seeds)

    claims = [
        Claim("the heavier the short flows, the more violent the oscillation of the queue", "sd grows with the rate",
              f"queue sd, mean of {count_shown(len(seeds), 'seed')}, 0 -> 50 -> 100 -> 150 -> 200/s: "
              + "; ".join(txt for _, txt in curves.values())
              + "".join(f"; {word}: {', '.join(f'{LABELS[k]} {p}' for (k, p), (v, _) in curves.items() if v == word)}"
                        for word in ("differs", "inconclusive") if any(v == word for v, _ in curves.values())),
              all_of(*(v for v, _ in curves.values())),
              trend_rule("the queue sd higher", "the queue sd") + "; short flows from S1 only, exponential sizes (the "
              "paper: every source, DCTCP's sizes; module docstring); every curve (DSM, QCN, SMCC at both bottlenecks) "
              f"must show the trend; per seed ({', '.join(map(str, seeds))}): {per_seed}"),
        Claim("DSM is more robust than QCN and SMCC to bursts of short flows", "DSM's queue oscillates least",
              "; ".join(f"{LABELS[k]}: mean sd {mean_sd(k):.1f} KB, mean queue {worst(k, 'q_mean_kb', min):.1f} .. "
                        f"{worst(k, 'q_mean_kb', max):.1f} KB" for k in ("dsm", "qcn", "smcc")),
              ok(mean_sd("dsm") < min(mean_sd("qcn"), mean_sd("smcc"))
                 and 0.1 * BUFFER_BYTES / 1e3 < worst("dsm", "q_mean_kb", min)
                 and worst("dsm", "q_mean_kb", max) < 0.9 * BUFFER_BYTES / 1e3),
              f"queue sd averaged over rates, bottlenecks and {count_shown(len(seeds), 'seed')}, and DSM's queue pinned at "
              "neither end (mean between 10 % and 90 % of the 128 KB buffer in every run): a queue stuck full or empty "
              "has a small sd but is not under control (a probe: a mean queue of 2-9 KB at 31 % utilization had passed)"),
        # Sec. V-C: "DSM can simultaneously achieve a high utilization and loss less packets, which is verified
        # in Fig.10(b)": a comparison with QCN and SMCC (until 2026-12-02 the row judged Section VI's absolute
        # "100 %, < 5 %" instead, and no comparison: a review; that is the headline row below).
        Claim("DSM simultaneously achieves a high utilization and loses fewer packets than QCN and SMCC (Fig. 10(b))",
              "DSM's utilization highest, its drops fewest",
              "; ".join(f"{LABELS[k]}: mean utilization {100 * mean_of(k, 'util'):.2f} %, mean drops "
                        f"{mean_of(k, 'drop_pct'):.2f} %" for k in ("dsm", "qcn", "smcc")),
              ok(all(mean_of("dsm", "util") >= mean_of(k, "util") and mean_of("dsm", "drop_pct") < mean_of(k, "drop_pct")
                     for k in ("qcn", "smcc"))),
              f"means over every rate, bottleneck and {count_shown(len(seeds), 'seed')}: reproduced if DSM's utilization "
              "is at least each other scheme's and its drops (frames dropped / sent) are fewer than each other's"),
        headline(worst("dsm", "util", min), worst("dsm", "drop_pct", max),
                 f"DSM: min utilization {100 * worst('dsm', 'util', min):.2f} %, max drops "
                 f"{worst('dsm', 'drop_pct', max):.2f} %", "the worst over every rate, bottleneck and seed"),
    ]
    claims.append(check("(dcsim) DSM with Hc = 2 kHz", f"min utilization {100 * worst('dsm-hc2k', 'util', min):.2f} %, "
                        f"max drops {worst('dsm-hc2k', 'drop_pct', max):.2f} %, mean sd {mean_sd('dsm-hc2k'):.1f} KB",
                        worst("dsm-hc2k", "util", min) >= UTIL_HOLD and worst("dsm-hc2k", "drop_pct", max) < DROP_HEADLINE_PCT,
                        "an exploration (module docstring)"))
    n = {(r, sd): runs[("qcn", r, "C1->C2", sd)]["short_flows"] for r in FIG10_RATES for sd in seeds}
    expect = {r: r * duration for r in FIG10_RATES}
    claims.append(check("(setup) short flows generated at their rate",
                        ", ".join(f"{r}/s: " + "/".join(str(n[(r, sd)]) for sd in seeds) for r in FIG10_RATES),
                        all(abs(n[(r, sd)] - expect[r]) <= 4 * math.sqrt(expect[r]) + 1 for r in FIG10_RATES for sd in seeds),
                        f"Poisson counts within 4 sd of rate x {duration:g} s, each seed ({', '.join(map(str, seeds))})"))
    return ExperimentResult("dsm-fig10", "Parking lot, mixed flows (Fig. 10)", claims, [png, csv])
