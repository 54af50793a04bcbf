"""DX in the packet simulator beside the fluid model and the theory: Section 4 of "Modeling and
Analysis of the Latency-Based Congestion Control Algorithm DX" (Jiang et al.).

* ``dx-table1``  Table 1: p, the fraction of RTTs in which the window decreases, for R0 = 80, 200,
                 400 us and N = 10 .. 100.
* ``dx-fig2``    Fig. 2: the queue over time, fluid model against packet simulation, (a) N = 50,
                 R0 = 20 us (special stable state), (b) N = 50, R0 = 80 us.
* ``dx-fig3``    Fig. 3: the three states, as utilization against R0 (N = 50) and against N
                 (R0 = 80 us), with the Theorem 1 boundary and the Theorem 2 threshold.
* ``dx-fig4``    Fig. 4: mean cwnd against N (R0 = 120 us) and against R0 (N = 50).
* ``dx-fig5``    Fig. 5: queueing delay against N > 70 (R0 = 80 us) with Q* of Theorem 2.
* ``dx-fig6``    Fig. 6: CDF of the queue size for several base RTTs (N = 50).
* ``dx-sec4.3``  Section 4.3: the utilizations it quotes against R0, N and C, each one measured (the
                 point the three sweeps share, 96.11 % in each, is one run and one claim).

Setting (Section 4): many-to-one dumbbell, 10 Gbps links, 256 KB drop-tail buffer, 1500-byte
segments. The paper's ns-3 run lengths and start-up are not given; ours: flows start 100 us apart
with a window of one segment (no losses at start-up), statistics after a warm-up (50 ms; 30 ms in
quick mode) over the rest of the run.

Base RTT. R0 is the paper's base RTT: the round trip without queueing. The engine's round trip adds
to the configured propagation delay the serialisation of a data packet and of its ACK on the two
hops, 2 (1500 + 40) 8/C (2.464 us at 10 Gbps), so the experiments configure the propagation as
R0 - 2 (1500 + 40) 8/C (:func:`propagation_s`): the engine's base RTT of every path is then R0
exactly (DX's ``R0 = "path"`` reports it, ``flows.base_rtt_s``), and Q*, the thresholds (N >= 66.7
at 80 us, R0 <= 60 us at N = 50) and the fluid model all use the paper's R0.

R0 of the controller. The analysis (eqs. 2-8, Theorems 1-2) assumes the sources know the base RTT R0.
Our DX flows get it exactly (``R0 = "path"``; every claims row that depends on it says so). DX's own
estimator (``R0 = "min"``, the smallest RTT seen) is shown beside it in ``dx-fig4`` and ``dx-fig5``
with a start-up that lets every flow see the empty network: flow i starts at i x seg/C (1.2 us at
10 Gbps, :data:`STAGGER_MIN_S`), so each flow's first packet reaches the bottleneck as the previous
one leaves it and finds no queue until the aggregate exceeds the pipe; the flows after that see
less than the final standing queue (their first packets queue behind at most N - C R0/seg - 1
others), so Q > 0 stays visible to every flow and Theorem 2 holds with "min" too (mean cwnd 1.000 at
N = 50, R0 = 20 us and N = 80, R0 = 80 us). With the 100 us stagger the flows that start into the
standing queue take R0 + (queue at their start) for the base RTT (mean cwnd 1.02, one flow at 2.67).

Fig. 2(b), N = 50, R0 = 80 us: the packet system keeps a limit cycle of ~4 RTTs (every flow sees the
empty queue in the same round and adds a whole segment, +50 packets at once), p = 0.77 and a mean
queue 2x the fluid model's (14.4 vs 7.3 packets). We tested readings of DX that the paper leaves
open (scratch runs, 300 ms, 50 ms warm-up, R0 = "path"; p at N = 50 and Table 1's 80 us row):

================================================  =====  ======  ======  ========================
hypothesis (changed in the engine for the run)      p    q pkt   util %  p, R0 = 80 us, N = 10..100
================================================  =====  ======  ======  ========================
as implemented: +1 at the round end, floor(W) sent  0.772  14.4    94.09   .70 .74 .78 .80 .77 .70 1 1 1 1
(a) send round(W) packets                          0.785  19.4    94.03   .72 .77 .79 .89 .79 .75 1 1 1 1
(a) send ceil(W) packets                           1.000  12.3   100.00   .74 .78 .80 1 1 1 1 1 1 1
(b) +1/W per ACK whose sample shows no queue       0.728  13.9    92.83   .86 .95 .95 .93 .73 .67 1 1 1 1
(b) +1 decided per RTT, spread +1/W per ACK        0.617  14.4    89.80   .69 .75 .71 .66 .62 .55 1 1 1 1
(c) round = floor(W) ACK samples, not snd_nxt      0.687  18.1    93.99   .80 .71 .70 .72 .69 .68 1 1 1 1
(d) Q = 0 when the mean is below 100 ns            0.771  14.5    94.12   .65 .74 .78 .79 .77 .70 1 1 1 1
(d) Q = 0 when the mean is below 1.2 us (1 pkt)    0.737  16.3    94.32   .52 .67 .74 .79 .74 .70 1 1 1 1
(e) byte window as pacing: cwnd/srtt, ceil(W)      0.986  2.5     93.46   .98 .98 .98 .98 .99 .98 .95 1 1 1
(e) same, paced at 1.2 cwnd/srtt                   0.992  3.2     96.16   .98 .98 .98 .99 .99 .99 1 1 1 1
(f) floor(W) whole packets paced at cwnd/srtt      0.965  3.2     95.77   .98 .98 .98 .97 .96 .97 1 1 1 1
(f) same, paced at 1.2 cwnd/srtt                   0.971  3.1     96.08   .98 .98 .98 .97 .97 .90 1 1 1 1
(g) Q from ns-3's smoothed RTT (m_lastRtt)         0.997  0.55    99.67   .97 .99 .99 1 1 1 1 1 1 1
(g) socket timestamps (sample has NIC wait)        0.771  14.4    94.08   .69 .74 .81 .79 .77 .70 1 1 1 1
(g) ns-3 delayed ACK: 2 segments / 200 ms          1.000  0.00    0.10    1 1 1 1 1 1 1 1 1 1
(g) R0 = propagation (base RTT 82.46 us)           0.777  14.0    93.27   .66 .74 .77 .84 .78 .70 1 1 1 1
paper (ns-3, Table 1) / fluid model                .973    7.3      —     .80 .89 .93 .96 .97 .98 .995 1 1 1
================================================  =====  ======  ======  ========================

(e)-(g) are ns-3 semantics checked in ns-3's source (``src/internet/model/tcp-socket-base.cc``
and ``rtt-estimator.cc`` of an ns-3-dev tree of 2018-19, e.g. GitHub Viyom/ns-3-dev-git at
4c43c56). (e) A byte window does not put 1.3 x 1500 B per RTT on the wire in ns-3:
``SendPendingData`` sends no short segment while the available window is below one segment and
more data waits ("Preventing Silly Window Syndrome"), whatever ``TcpNoDelay`` (which only turns
off Nagle's rule); a bulk sender has floor(cwnd/seg) whole segments in flight, as our transport.
We therefore emulated the reading by pacing (ceil(W) allowed in flight, one packet every
srtt/W) instead of carrying byte sequence numbers (the transport counts segments; short segments
would touch the sender, the receiver, the SACK scoreboard and the Segmenter). (f) Pacing ns-3
leaves off by default (``TcpSocketState::EnablePacing`` false); the paper does not mention it.
Pacing desynchronises the flows (a brief empty queue is seen by few flows per round) and lifts p
to 0.97, but the queue falls to 3 pkt (-57 % against 7.3; the fluid model at the simulated p =
0.965 gives 5.5) and p at N = 10 becomes 0.98 (paper 0.80). (g) ns-3's ``EstimateRtt`` sets
``m_lastRtt`` to the RttEstimator's smoothed estimate (RttMeanDeviation, gain 1/8, integer update
at ns resolution) and hands ``m_lastRtt`` to the congestion control's ``PktsAcked``, so a DX
written on ns-3's congestion-ops interface (as ns-3's TcpVegas) would see srtt, not samples: srtt
stays above R0 for some 50-70 samples after a queue, every flow decreases nearly every round
(p = 0.997) and the queue is 0.55 pkt. ns-3 stamps a segment when the socket sends it (its
``RttHistory``), so a sample includes the sender's own NIC wait: no change. ns-3's delayed-ACK
defaults (``DelAckCount`` 2, ``DelAckTimeout`` 200 ms) hold the single packet of a W < 2 flow for
200 ms: utilization 0.1 %, which the paper's Figs. 3-5 (>= 89 %) rule out. Taking the paper's
R0 as the propagation only (base RTT 82.46 us, fluid 7.0 pkt) changes nothing.

None meets the issue's criteria (mean queue within 20 % of the fluid's, p within 0.05 of 0.95):
the per-ACK increases (b) spread the +N step but still let all flows see the same empty queue, and
raise p only for N <= 40; ceil(W) puts 2 packets in flight at W = 1.x, i.e. a window larger than
cwnd, and turns N = 50 into a special state (q = N - C R0/seg = 12.3 pkt) - not a reading of DX; a
threshold on Q can only lower p; the readings that bring p to 0.95-1 (pacing, a smoothed RTT)
shrink the queue to 0.5-3 pkt, far below the fluid model's 7.3. So the default stays eq. (1) as
the issue states it (+1 once per RTT, floor(W) packets, exact Q = 0, per-packet NIC timestamps),
and dx-fig2 says "differs" with these numbers.

Every grid of packet runs goes through :mod:`dcsim.sweep` (both cores, progress, content-hash cache
in ``out_dir/sweep-*``); DX runs are deterministic, so one run per point (seeds would give
bit-identical copies).
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

from dcsim import fluid  # noqa: E402
from dcsim.experiments.dctcp_packet import cycle_stats  # noqa: E402
from dcsim.experiments.dx_analysis import PAPER  # noqa: E402
from dcsim.experiments.registry import (  # noqa: E402
    CHECK,
    Claim,
    ExperimentResult,
    all_of,
    check,
    experiment,
    instruments,
    ok,
    save_figure,
    se_trend,
)
from dcsim.scenario import ScenarioError, rate_str, time_str  # noqa: E402
from dcsim.theory import dx as th  # noqa: E402
from dcsim.units import capacity_pps, count_shown  # noqa: E402

C_BPS = 10e9
SEG_BYTES = 1500
ACK_BYTES = 40
BUFFER = "256KB"
#: Flow i starts at i * STAGGER_S with a window of one segment (R0 = "path").
STAGGER_S = 100e-6
#: With DX's own estimator (R0 = "min"): flow i starts at i x seg/C, one packet's service time at
#: the bottleneck, so every flow's first packet sees the empty network until the aggregate exceeds
#: the pipe (module docstring).
STAGGER_MIN_S = SEG_BYTES * 8 / C_BPS
#: Start patterns (flow i starts at i x stagger, us) whose spread measures a cell's run-to-run
#: variation: DX's runs are deterministic given their start, so the start is their noise. Every
#: pattern's start-up (N x 150 us <= 15 ms) ends inside the warm-up (:func:`durations`).
START_PATTERNS_US = (50, 100, 150)
#: Table 1's patterns; --quick two of them (the least that measures a spread).
TABLE1_STAGGERS_US = START_PATTERNS_US
TABLE1_STAGGERS_US_QUICK = START_PATTERNS_US[:2]
#: The fluid model's constant p (Section 4.1: "the average value 0.95").
P_FLUID = th.DEFAULT_P
#: Table 1 of the paper (rows R0 in us, columns N = 10 .. 100), as printed.
TABLE1_N = tuple(range(10, 101, 10))
TABLE1 = {
    80: ("0.79599", "0.887787", "0.934742", "0.956067", "0.973239", "0.982844", "0.995288", "0.999902",
         "0.999896", "0.999891"),
    200: ("0.782627", "0.835583", "0.869653", "0.898591", "0.914323", "0.922147", "0.933485", "0.944501",
          "0.953232", "0.960271"),
    400: ("0.743014", "0.827145", "0.876389", "0.881062", "0.889631", "0.890585", "0.898752", "0.901909",
          "0.913419", "0.920201"),
}
PORT = "port[sw->r]"


# ---------------------------------------------------------------------------------------------
# scenarios, sweeps, fluid runs
# ---------------------------------------------------------------------------------------------


def serialisation_s(C_bps: float = C_BPS) -> float:
    """What the engine's round trip adds to the propagation delay: a data packet and its ACK
    serialised on both hops of the dumbbell (access links at the bottleneck's rate), s."""
    return 2 * (SEG_BYTES + ACK_BYTES) * 8.0 / C_bps


def propagation_s(R0_s: float, C_bps: float = C_BPS) -> float:
    """The round-trip propagation delay (``network.rtt``) that makes the engine's base RTT equal the
    paper's R0: R0 - :func:`serialisation_s`. ScenarioError when R0 is not larger than it."""
    if isinstance(R0_s, bool) or not isinstance(R0_s, (int, float)) or not (R0_s > 0 and math.isfinite(R0_s)):
        raise ScenarioError(f"network.rtt: R0 = {R0_s!r} s is not a positive time; allowed R0 > 0, e.g. 80e-6")
    prop = R0_s - serialisation_s(C_bps)
    if not prop > 0:
        raise ScenarioError(f"network.rtt: R0 = {time_str(R0_s)} is not above the serialisation of a packet and its "
                            f"ACK on both hops ({time_str(serialisation_s(C_bps))} at {rate_str(C_bps)})")
    return prop


def rtt_str(R0_us: float, C_bps: float = C_BPS) -> str:
    """``network.rtt`` for base RTT R0 (us) at C: the propagation of :func:`propagation_s`."""
    ps = round(propagation_s(R0_us * 1e-6, C_bps) * 1e12)  # exact to the picosecond, the engine's unit
    return f"{ps / 1e6:.6f}".rstrip("0").rstrip(".") + "us"


def r0_us_of(table: pd.DataFrame) -> np.ndarray:
    """The base RTT R0 (us) of each run of a sweep table: propagation plus the serialisation at the
    run's bottleneck rate, rounded to the picosecond."""
    C = table["network.bottleneck_bps"].to_numpy(float) if "network.bottleneck_bps" in table else C_BPS
    return np.round((table["network.rtt_s"].to_numpy(float) + serialisation_s(C)) * 1e6, 6)


#: (run length, warm-up), s, of every DX packet run (:func:`durations`).
RUN_S = (0.3, 0.05)
RUN_S_QUICK = (0.08, 0.03)


def durations(quick: bool) -> tuple[float, float]:
    """(run length, warm-up), s: 50 ms warm-up covers the staggered start (N x 150 us <= 15 ms) and the
    growth of W from one segment at +1 per RTT (<= 35 RTTs of <= 0.45 ms); 250 ms measured hold 550 to
    3000 RTTs (~100 oscillation periods of 4-6 RTTs). Quick: 30 + 50 ms."""
    return RUN_S_QUICK if quick else RUN_S


def scenario(N: int, R0_s: float, *, C_bps: float = C_BPS, duration_s: float, warmup_s: float, R0: str = "path",
             queue_interval_s: float = 100e-6, cwnd_interval_s: float = 50e-6) -> dict:
    """N long-lived DX flows through the paper's dumbbell (10 Gbps, 256 KB drop-tail buffer) whose base
    RTT is the paper's R0 exactly (propagation :func:`propagation_s`), DX's base-RTT mode ``R0`` (the
    stagger of :func:`stagger_for`); validated (ScenarioError names the field)."""
    sc = dict(
        network=dict(topology="dumbbell", senders=N, bottleneck=rate_str(C_bps), rtt=rtt_str(R0_s * 1e6, C_bps),
                     buffer=BUFFER),
        flows=[dict(count=N, protocol="dx", R0=R0, init_cwnd=1, stagger=stagger_for(R0, C_bps))],
        run=dict(duration=time_str(duration_s), warmup=time_str(warmup_s)),
        metrics=dict(queue_interval=time_str(queue_interval_s), cwnd_interval=time_str(cwnd_interval_s),
                     throughput_interval="10ms"),
    )
    from dcsim.scenario import Scenario

    Scenario.from_dict(sc)  # every mistake named before anything runs
    return sc


def stagger_for(R0: str, C_bps: float = C_BPS) -> str:
    """Start spacing: 100 us with R0 known ("path"); one packet's service time seg/C with DX's own
    estimator ("min"), so that every flow sees the empty network (module docstring)."""
    return time_str(SEG_BYTES * 8 / C_bps if R0 == "min" else STAGGER_S)


#: The sweep axis that runs both base-RTT modes, each with its start-up (flows[0].stagger).
MODES_AXIS = {"flows[0].R0, flows[0].stagger": [["path", stagger_for("path")], ["min", stagger_for("min")]]}


def run_sweep(out_dir: Path, name: str, base: dict, axes: dict, *, combine: str = "grid", tables: bool = False):
    """The packet runs of one experiment through :func:`dcsim.sweep.sweep` (all cores, cached in
    ``out_dir/sweep-<name>``). Returns (table, SweepResult); a failed run is an error here."""
    from dcsim.sweep import sweep

    res = sweep(base, axes, out=Path(out_dir) / f"sweep-{name}", combine=combine, tables=tables,
                progress=sys.stderr.isatty())
    res.require_finished(name)
    return res.table, res


def flow_stat(table: pd.DataFrame, metric: str, how: str = "mean") -> np.ndarray:
    """Per run (row) of a sweep table, the mean (or min / max) over flows of ``flow[i].<metric>``."""
    cols = [c for c in table.columns if c.startswith("flow[") and c.endswith("]." + metric)]
    if not cols:
        raise KeyError(f"no per-flow column {metric!r} in the sweep table")
    v = table[cols].to_numpy(dtype=float)
    return {"mean": np.nanmean, "min": np.nanmin, "max": np.nanmax}[how](v, axis=1)


def fluid_points(points: list[tuple[float, float, float]], duration_s: float, warmup_s: float,
                 p: float = P_FLUID, series: bool = False) -> list[dict]:
    """The DX fluid model (3)-(4) at (N, C_bps, R0_s) points, tau = R0 (the packet runs' base RTT is R0
    exactly), constant p (a number, or one per point), from W = 1 segment and an empty queue;
    statistics over [warmup, duration].

    Returns per point: q_mean_pkt, W_mean_pkt, util (busy fraction: 1 while Q > 0, else the arrival
    rate N W/(R0 + Q(t - tau)) over C), p5/p50/p95 of q, period_s of the oscillation (cycle_stats;
    NaN when it settles), and with ``series`` the trajectory after warm-up."""
    R0p = [R0 for _, _, R0 in points]
    sample = []
    for R0 in R0p:
        dt = fluid._dx_dt(R0, R0)
        sample.append(dt * max(1, round(R0 / 40 / dt)))
    runs = fluid.dx_batch([n for n, _, _ in points], [c for _, c, _ in points], R0p, t_end_s=duration_s, p=p,
                          sample_dt_s=sample, t_from_s=warmup_s, packet_bytes=SEG_BYTES)
    out = []
    for (N, C, _), R0, r in zip(points, R0p, runs):
        t, W, Q, q = (np.asarray(r[k]) for k in ("t_s", "W_pkt", "Q_s", "q_pkt"))
        Qtau = np.interp(t - R0, t, Q, left=Q[0])
        rate = N * W / (R0 + Qtau) / capacity_pps(C, SEG_BYTES)
        busy = np.where(Q > 0, 1.0, np.minimum(rate, 1.0))
        cs = cycle_stats(t, q)
        d = dict(q_mean_pkt=float(q.mean()), W_mean_pkt=float(W.mean()), util=float(busy.mean()),
                 q_p5_pkt=cs["p5"], q_p95_pkt=cs["p95"], q_p50_pkt=float(np.median(q)),
                 period_s=cs["period_s"], q_min_pkt=float(q.min()),
                 q_max_pkt=float(q.max()))
        if series:
            d["series"] = pd.DataFrame({"t_s": t, "q_pkt": q, "W_pkt": W})
        out.append(d)
    return out


def linear_period_s(N: float, C_bps: float, R0_s: float, p: float = P_FLUID) -> tuple[float, float]:
    """Period (s) and decay rate (1/s, > 0 = damped) of the rightmost characteristic root of the
    linearized model (9) at (N, C, R0), tau = R0; (nan, nan) where the equilibrium is not defined."""
    R0 = R0_s
    try:
        lin = th.linearization(th.equilibrium(N, C_bps, R0, p, SEG_BYTES))
    except ValueError:
        return math.nan, math.nan
    s = th.rightmost_root(lin, R0)
    return (2 * math.pi / abs(s.imag) if s.imag else math.inf), -s.real


def theory_state(N: float, C_bps: float, R0_s: float) -> str:
    """Theorem 2 (special: N > C R0/seg, Q* > 0) / its boundary N = C R0/seg ("boundary": Q* = 0, the
    queue is empty at the fixed point, so eq. (1) increases and the packet system is not frozen at one
    segment) / Theorem 1 corrected (stable or not certified), tau = R0, p = 0.95."""
    ss = th.special_state(N, C_bps, R0_s, SEG_BYTES)
    if ss.active:
        return "special" if ss.q_star_pkt > 1e-9 else "boundary"
    return "stable" if th.theorem1(N, C_bps, R0_s, P_FLUID, SEG_BYTES).stable else "unstable"


def q_star_s(N: float, C_bps: float, R0_s: float) -> float:
    """Theorem 2: Q* = (N seg - C R0)/C, s (negative below the threshold)."""
    return th.special_state(N, C_bps, R0_s, SEG_BYTES).Q_star_s


def _us(x: float, digits: int = 2) -> str:
    return f"{x * 1e6:.{digits}f} us"


def _pct(x: float, digits: int = 2) -> str:
    return f"{100 * x:.{digits}f} %"


# ---------------------------------------------------------------------------------------------
# Table 1: p
# ---------------------------------------------------------------------------------------------


@experiment("dx-table1", "DX Table 1: probability p of decreasing windows, packet simulation", PAPER)
def run_table1(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    duration, warmup = durations(quick)
    Ns = (10, 50, 100) if quick else TABLE1_N
    R0s_us = tuple(TABLE1)
    staggers = TABLE1_STAGGERS_US_QUICK if quick else TABLE1_STAGGERS_US
    base = scenario(10, 80e-6, duration_s=duration, warmup_s=warmup, cwnd_interval_s=1e-3, queue_interval_s=1e-3)
    table, _ = run_sweep(out_dir, "table1", base, {"network.rtt": [rtt_str(r) for r in R0s_us],
                                                   "network.senders, flows[0].count": [[n, n] for n in Ns],
                                                   "flows[0].stagger": [f"{s}us" for s in staggers]})
    table = table.assign(R0_us=r0_us_of(table).round().astype(int), N=table["network.senders"],
                         p=flow_stat(table, "p_decrease"), p_min=flow_stat(table, "p_decrease", "min"),
                         p_max=flow_stat(table, "p_decrease", "max"),
                         p_per_ack=flow_stat(table, "p_queued_per_ack"),
                         utilization=table[f"{PORT}.utilization"], q_mean_pkt=table[f"{PORT}.q_mean_pkt"])
    rows = []
    # a cell: the mean over its start patterns, and their spread as its noise (standard error of the mean)
    for (R0, N), runs in table.groupby(["R0_us", "N"], sort=True):
        paper = float(TABLE1[R0][TABLE1_N.index(N)])
        n = len(runs)
        # a pattern without a p (no decision round) leaves the cell without a number: the trend rules then say
        # "differs" rather than average it away over the others (a review)
        sd = float(runs.p.std(ddof=1, skipna=False)) if n > 1 else math.nan
        rows.append(dict(R0_us=R0, N=N, p_paper=paper, p_packet=float(runs.p.mean(skipna=False)), p_sd_patterns=sd,
                         p_sem=sd / math.sqrt(n), patterns=n, p_min=float(runs.p_min.min()),
                         p_max=float(runs.p_max.max()), p_per_ack=float(runs.p_per_ack.mean()),
                         utilization=float(runs.utilization.mean()), q_mean_pkt=float(runs.q_mean_pkt.mean()),
                         state=theory_state(N, C_BPS, R0 * 1e-6), p_fluid=P_FLUID))
    df = pd.DataFrame(rows)
    csv = out_dir / "dx_table1.csv"
    df.to_csv(csv, index=False)
    # the paper's layout: rows = RTT, columns = N
    layout = df.pivot(index="R0_us", columns="N", values="p_packet")
    csv2 = out_dir / "dx_table1_layout.csv"
    layout.to_csv(csv2)

    fig, ax = plt.subplots(figsize=(7, 4.5))
    colors = {80: "tab:blue", 200: "tab:orange", 400: "tab:green"}
    for R0 in R0s_us:
        d = df[df.R0_us == R0]
        ax.plot(d.N, d.p_packet, "o-", color=colors[R0], label=f"R0 = {R0} µs, dcsim packet sim")
        ax.fill_between(d.N, d.p_min, d.p_max, color=colors[R0], alpha=0.12)
        ax.plot(TABLE1_N, [float(x) for x in TABLE1[R0]], "s--", color=colors[R0], mfc="white", ms=4,
                label=f"R0 = {R0} µs, paper (ns-3)")
    ax.axhline(P_FLUID, color="k", ls=":", lw=1, label="fluid model's p = 0.95")
    n_special = th.special_state_threshold_N(C_BPS, 80e-6, SEG_BYTES)
    ax.axvline(n_special, color=colors[80], ls=":", lw=0.8, label=f"R0 = 80 µs: special state from N = {n_special:.1f}")
    ax.set_xlabel("number of flows N")
    ax.set_ylabel("p (fraction of RTTs in which W decreases)")
    ax.set_title(f"Table 1: probability of decreasing windows (mean of {len(staggers)} start patterns; band: min-max "
                 "over flows and patterns)", fontsize=9)
    ax.set_ylim(0.5, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2, loc="lower right")
    png = save_figure(fig, out_dir, "dx_table1.png")

    claims: list[Claim] = []
    # Tolerance of a cell: 0.05, the one the issue sets for N = 50, R0 = 80 us; it is also the spread
    # of the paper's own values around its 0.95 (0.90-0.9999 where it calls the system stable).
    tol = 0.05
    diff = (df.p_packet - df.p_paper).abs()
    within = int((diff <= tol).sum())
    worst = df.loc[diff.idxmax()]
    claims.append(instruments(
        "Table 1: p for R0 = 80, 200, 400 us and N = 10..100 (each cell)", "Table 1 (ns-3)",
        ok(within == len(df)),
        packet=f"{within} of {len(df)} cells within {tol} of the paper; mean p {df.p_packet.mean():.3f} (paper "
               f"{df.p_paper.mean():.3f}); worst N = {int(worst.N)}, R0 = {int(worst.R0_us)} us: {worst.p_packet:.3f} "
               f"vs {worst.p_paper:.3f}",
        fluid=f"p is a constant input ({P_FLUID})",
        detail="p = rtt_decreases / rtt_rounds per flow (rounds = DX's once-per-RTT decisions after warm-up), mean "
               f"over flows and over {len(staggers)} start patterns (flows {', '.join(map(str, staggers))} us apart); "
               "tolerance 0.05 per cell. Where we are lower: in the packet system all N flows see "
               "the empty queue in the same round and add one segment each (+N packets at once), so the queue "
               "cycles every 4-6 RTTs with one increase round per cycle (p ~ 0.75-0.85); the paper's ns-3 DX "
               "evidently saw Q = 0 far less often; the readings of DX the paper leaves open that we tested (integer "
               "window, +1/W per ACK, the round's definition, a threshold on Q = 0) do not bring p to its values at "
               f"N >= 50 (dx-fig2, dx_packet's docstring); {R0_PATH}. Counted per ACK instead (fraction of RTT samples above the "
               f"base RTT) p would be {df.p_per_ack.mean():.3f} on average."))
    stable = df[df.state == "stable"]
    if len(stable):
        claims.append(instruments(
            "Sect. 4.1: all values of p are greater than 0.9 when the system is stable", "p > 0.9",
            ok(bool((stable.p_packet > 0.9).all())),
            packet=f"p in [{stable.p_packet.min():.3f}, {stable.p_packet.max():.3f}] over the {len(stable)} "
                   f"cells Theorem 1 calls stable",
            theory="stable (Theorem 1, corrected, tau = R0, p = 0.95): N > 27.7 at 80 us, > 69.3 at 200 us, "
                   "> 139 at 400 us",
            detail="below 0.9 in our packet runs (see the first row for why)"))
    special = df[df.state == "special"]
    if len(special):
        claims.append(instruments(
            "Sect. 4.1: in the special stable state p is even greater than 0.99", "p > 0.99",
            ok(bool((special.p_packet > 0.99).all())),
            packet=f"p in [{special.p_packet.min():.4f}, {special.p_packet.max():.4f}] (N = "
                   f"{', '.join(str(int(n)) for n in special.N)} at {int(special.R0_us.iloc[0])} us)",
            theory="special for N >= C R0/seg = 66.7 at 80 us (Theorem 2): Q > 0 in every round",
            detail="every round sees the standing queue; the paper's 0.9999 = one round with Q = 0 per flow in ~1 s "
                   "(the first, in an empty network: 1 - 1/10417 rounds at N = 80)"))
    # "Using the average value 0.95, p represents those values in the two states" (Sect. 4.1): the
    # stable and the special state, not every cell (a review: the paper's own table averages 0.909
    # over all its cells, which this rule would fail, and 0.968 over the two states).
    two = df[df.state.isin(("stable", "special"))]
    claims.append(instruments(
        "Sect. 4.1: the average value 0.95 represents p in both states basically", "p ~ 0.95",
        ok(len(two) > 0 and abs(two.p_packet.mean() - P_FLUID) <= tol),
        packet=(f"mean over the {len(two)} cells in the stable or the special state {two.p_packet.mean():.3f} (the "
                f"paper's same cells: {two.p_paper.mean():.3f}); over all cells {df.p_packet.mean():.3f}") if len(two)
               else "no cell in the stable or the special state",
        fluid=f"{P_FLUID} (constant)",
        detail=f"tolerance {tol}; the two states as Theorem 1 (corrected, tau = R0) and Theorem 2 classify the cells"))
    # Trends of the paper's table: p grows with N at each R0 (its rows are monotone, also below the
    # special state) and falls with R0 at each N (mostly). Until 2026-12-03 one start pattern a cell
    # and a Spearman rank correlation >= 0.7 a row (tightened 2026-12-01 after a review: a full run
    # passed on the 80 us row's jump to p = 1 at N >= 70, the special state, while its cells
    # N = 10..60 were flat; so the rule holds without the special state's cells too). Now each cell
    # is the mean over START_PATTERNS_US, and a row is judged as the other experiments' trends are,
    # against twice the standard errors (registry.se_trend): the rise from the first N to the
    # last beyond them, no step against it beyond them (differs), else inconclusive.
    def row_trend(rows: pd.DataFrame, sign: int) -> tuple[str, str]:
        rows = rows.sort_values("N")
        p, n = rows.p_packet.to_numpy(float), rows.N.to_numpy()
        v, steps, end, margins = se_trend(p, rows.p_sem, sign)
        txt = (f"{p[0]:.3f} (N = {n[0]}) -> {p[-1]:.3f} (N = {n[-1]}), {p[-1] - p[0]:+.3f} against 2 SE {end:.3f}"
               + "".join(f"; N = {n[i]} -> {n[i + 1]}: {p[i + 1] - p[i]:+.3f} (2 SE {margins[i]:.3f})" for i in steps))
        return v, txt

    judged = {R0: row_trend(df[df.R0_us == R0], +1) for R0 in R0s_us}
    below = {R0: row_trend(df[(df.R0_us == R0) & (df.state != "special")], +1) for R0 in R0s_us
             if (df[df.R0_us == R0].state == "special").any() and (df[(df.R0_us == R0)].state != "special").sum() >= 2}
    grows = all_of(*(v for v, _ in judged.values()), *(v for v, _ in below.values()))
    claims.append(instruments(
        "Table 1: p grows with N at every R0", "monotone rows", grows,
        packet="; ".join(f"{R0} us: {txt} ({v})" for R0, (v, txt) in judged.items())
               + "".join(f"; {R0} us without the special state's cells (N < "
                         f"{th.special_state_threshold_N(C_BPS, R0 * 1e-6, SEG_BYTES):.1f}): {txt} ({v})"
                         for R0, (v, txt) in below.items()),
        detail=f"each cell the mean p over {len(staggers)} start patterns (flows {', '.join(map(str, staggers))} us "
               f"apart), its standard error from their spread ({len(staggers) - 1} degree(s) of freedom: a rough noise "
               "level, so a margin of 2 standard errors is narrower than a 95 % interval would be); criterion: in every row the rise from the first N to the "
               "last beyond twice its standard error and no step between neighbouring N against it beyond twice its "
               "own (differs if the change or a step goes the other way beyond them, inconclusive if neither), and so "
               "in a row with special-state cells also without them (a row whose only rise is the jump to p ~ 1 into "
               "Theorem 2's state does not show the growth the paper's rows do)"))
    # The row means, and where a row has special-state cells, the means over the N no row has in it.
    common = sorted(set(df.N) - set(df[df.state == "special"].N))
    means = [float(df[df.R0_us == R0].p_packet.mean()) for R0 in R0s_us]
    paper_means = [float(df[df.R0_us == R0].p_paper.mean()) for R0 in R0s_us]
    in_common = lambda col: [float(df[(df.R0_us == R0) & df.N.isin(common)][col].mean()) for R0 in R0s_us]  # noqa: E731
    apart = (df.state == "special").any() and len(common) > 0

    def mean_se(mask) -> list[float]:
        """Standard error of each row's mean over the cells ``mask`` picks (independent cells)."""
        return [float(np.sqrt((df[(df.R0_us == R0) & mask].p_sem ** 2).sum())) / max(1, int(((df.R0_us == R0) & mask).sum()))
                for R0 in R0s_us]

    def falls_with_r0(ms: list[float], ses: list[float]) -> tuple[str, str]:
        """The row means' fall from 80 to 400 us judged against their standard errors, and the change
        and the margins as the rule reads them."""
        v, _, end, margins = se_trend(ms, ses, -1)
        return v, (f"80 -> 400 us {ms[-1] - ms[0]:+.4f} against 2 SE {end:.4f}; 2 SE of the steps "
                   + ", ".join(f"{m:.4f}" for m in margins))

    def chain(ms: list[float]) -> str:
        """The means joined by the relation that holds between neighbours, to as many digits as it takes
        to show it (a probe: "0.822 > 0.822" where the means were 0.8218 < 0.8221)."""
        # every mean to the digits the closest pair needs ("0.8218 < 0.8221 > 0.7710", not "0.822 < 0.8221 > 0.771")
        d = max((next((k for k in range(3, 10) if f"{a:.{k}f}" != f"{b:.{k}f}"), 10) for a, b in zip(ms, ms[1:])), default=3)
        out = f"{ms[0]:.{d}f}"
        for a, b in zip(ms, ms[1:]):
            out += f" {'>' if a > b else '<' if a < b else '='} {b:.{d}f}"
        return out

    below_special = f"; over N = {', '.join(str(int(n)) for n in common)} (no special-state cell): "
    every = falls_with_r0(means, mean_se(df.N > 0))
    few = falls_with_r0(in_common("p_packet"), mean_se(df.N.isin(common))) if apart else None
    falls = all_of(every[0], *([few[0]] if few else []))

    claims.append(instruments(
        "Table 1: p falls as R0 grows (row means)", chain(paper_means) + f" (row means{_cells(df)})"
        + (below_special + chain(in_common("p_paper")) if apart else ""),
        falls,
        packet=chain(means) + f" (80, 200, 400 us; {every[1]})"
               + (below_special + chain(in_common("p_packet")) + f" ({few[1]})" if few else ""),
        detail="criterion: the row means falling from 80 to 400 us beyond twice the standard errors and no step against "
               "it beyond them (a step the other way beyond them differs, within them is inconclusive), and so over the "
               "N where no row is in the special state (tightened 2026-12-01: the 80 us row's mean had been lifted by "
               "its p = 1 cells alone); the standard errors from the cells' start patterns"))
    claims.append(Claim(
        "(setup) no drops, runs after warm-up", "—",
        f"drops {int(table[f'{PORT}.drops'].sum())}; {count_shown(len(table), 'run')} of {1e3 * (duration - warmup):g} ms after "
        f"{1e3 * warmup:g} ms", ok(int(table[f"{PORT}.drops"].sum()) == 0), kind=CHECK))
    return ExperimentResult("dx-table1", "DX Table 1: probability p of decreasing windows", claims, [png, csv, csv2])


def _cells(df: pd.DataFrame) -> str:
    """" over N = 10, 50, 100 of its 7 columns" when a (quick) run used only some of Table 1's N: the
    paper's means are then over those cells, not the table's."""
    used = sorted(int(n) for n in df.N.unique())
    return "" if len(used) == len(TABLE1_N) else f" over N = {', '.join(map(str, used))} of its {len(TABLE1_N)} columns"


# ---------------------------------------------------------------------------------------------
# Fig. 2: queue over time, fluid model against packet simulation
# ---------------------------------------------------------------------------------------------

FIG2 = ((50, 20e-6), (50, 80e-6))
#: Tolerances of Fig. 2, fixed before the runs. The 2 %, 10 % and 20 % below are the project's
#: acceptance criteria for DX, stated in the DX issue (mean cwnd within 2 % of one segment,
#: queueing delay within 10 % of Q*, simulated mean queue within 20 % of the fluid model's); they
#: stay the criteria, and the model shows each is resolvable, i.e. wider than the granularity of
#: what it judges:
#: (a) Theorem 2: Q* = (N seg - C R0)/C = (50 x 12000 b - 10 Gbps x 20 us)/10 Gbps = 40 us, and one
#: packet of queue is 1.2 us at 10 Gbps, 3 % of Q*: the 10 % band (TOL_Q_SPECIAL) is +-3.3 packets.
#: The fluid model's mean queue within the same 10 % of the simulation's: at the fixed point both
#: are set by N - C R0/seg, and p moves the fluid's by 5 % ((7) with p = 0.95 vs 1), half the band.
#: A window of one segment is the floor; a mean within 2 % of it (TOL_W_SPECIAL) allows a flow to
#: leave the floor by one segment for 2 % of the time. Utilization >= 99.9 %: a standing queue of
#: 33 packets never empties, so any idle time is a defect, 0.1 % the float and warm-up slack.
#: (b) q0 = 7.3 packets (eq. 7, N = 50, R0 = 80 us, p = 0.95), so the 20 % band (TOL_Q_FIG2B) is
#: +-1.5 packets: wider than one packet (14 % of q0), the finest difference the mean queue of a
#: window-based system can be expected to resolve, so the criterion is meaningful and not loose.
#: p within 0.05 of the fluid model's 0.95 (the paper's Table 1 spreads 0.78 .. 1.0 over N and R0);
#: the oscillation period within 20 % of the linearized model's (a check of ours: the paper does
#: not quote periods).
TOL_W_SPECIAL = 0.02
UTIL_SPECIAL = 0.999
#: Said in every claims row that depends on the flows knowing R0 (the analysis' assumption).
R0_PATH = 'R0 = "path" (the flows know the base RTT, as the analysis assumes)'
#: Measured evidence for Fig. 2(b) (scratch runs with the engine changed per hypothesis; the table
#: in the module docstring): p / mean queue (packets) / utilization (%) at N = 50, R0 = 80 us.
HYPOTHESES_FIG2B = ("as implemented 0.772 / 14.4 / 94.1; (a) round(W) packets 0.785 / 19.4 / 94.0; (a) ceil(W) "
                    "1.000 / 12.3 / 100 (a window above cwnd, not DX); (b) +1/W per ACK with a zero-queue sample "
                    "0.728 / 13.9 / 92.8; (b) +1 per RTT spread over the ACKs 0.617 / 14.4 / 89.8; (c) round = "
                    "floor(W) ACKs 0.687 / 18.1 / 94.0; (d) Q = 0 below 100 ns 0.771 / 14.5 / 94.1, below 1.2 us "
                    "0.737 / 16.3 / 94.3; (e) a byte window as pacing at cwnd/srtt with ceil(W) in flight 0.986 / 2.5 / 93.5 "
                    "(ns-3 sends no short segment: SWS avoidance); (f) floor(W) paced at cwnd/srtt 0.965 / 3.2 / 95.8; "
                    "(g) Q from ns-3's smoothed RTT 0.997 / 0.55 / 99.7, socket timestamps 0.771 / 14.4 / 94.1, "
                    "ns-3's delayed ACK (2 segments, 200 ms) 1.000 / 0 / 0.1")
TOL_Q_SPECIAL = 0.10
TOL_Q_FIG2B = 0.20
TOL_P = 0.05


def _p_one_note(p_sim, restates: str) -> str:
    """What a check of the fluid model at the simulated p is worth when that p is 1 everywhere: from
    W = 1 the model's dW/dt is then 0 (eq. 3 has no increase term and the decrease stops at one
    segment), so its queue is Q* by construction and the check restates ``restates`` (a review)."""
    p = np.asarray(p_sim, dtype=float)
    if len(p) and bool(np.all(p >= 1 - 1e-12)):
        return (f"the simulated p is 1 at every point: the fluid model then sits at Q* by construction (eq. 3 with "
                f"p = 1, W = 1 segment), so this row restates {restates}, it is no independent agreement; ")
    return ""


def _dx_flows(res) -> tuple[float, float, float]:
    """(mean over flows of the exact time-weighted cwnd after warm-up, mean p, mean DX-measured Q in s)."""
    f = res.flows
    return float(f.cwnd_mean_pkt.mean()), float(f.p_decrease.mean()), float(f.q_delay_mean_s.mean())


@experiment("dx-fig2", "DX Fig. 2: queue over time, fluid model vs packet simulation", PAPER)
def run_fig2(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    duration, warmup = durations(quick)
    span = 0.003  # plotted: 3 ms after warm-up (6-7 oscillation periods in (b))
    base = scenario(50, 20e-6, duration_s=duration, warmup_s=warmup, queue_interval_s=1e-6, cwnd_interval_s=10e-6)
    table, sres = run_sweep(out_dir, "fig2", base, {"network.rtt": [rtt_str(r * 1e6) for _, r in FIG2]},
                              tables=True)
    results = [sres.result(rid) for rid in table.run_id]
    C_pps = capacity_pps(C_BPS, SEG_BYTES)
    sims = []
    for (N, R0), res in zip(FIG2, results):
        q = res.queue[res.queue.t_s >= warmup]
        port = res.monitored_ports().iloc[0]
        w, p, qd = _dx_flows(res)
        cs = cycle_stats(q.t_s.to_numpy(), q.q_pkt.to_numpy().astype(float))
        sims.append(dict(N=N, R0_us=R0 * 1e6, q=q, q_mean_pkt=float(port.q_mean_pkt), util=float(port.utilization),
                         cwnd_mean=w, p=p, q_dx_s=qd, period_s=cs["period_s"], drops=int(port.drops),
                         base_rtt_s=float(res.flows.base_rtt_s.mean())))
    fl = fluid_points([(N, C_BPS, R0) for N, R0 in FIG2], duration, warmup, series=True)
    fl_psim = fluid_points([(N, C_BPS, R0) for N, R0 in FIG2], duration, warmup, p=[s["p"] for s in sims],
                           series=True)

    rows = []
    for s, f, fp in zip(sims, fl, fl_psim):
        lin_T, lin_decay = linear_period_s(s["N"], C_BPS, s["R0_us"] * 1e-6)
        rows.append(dict(N=s["N"], R0_us=s["R0_us"], base_rtt_engine_us=1e6 * s["base_rtt_s"],
                         q_mean_packet_pkt=s["q_mean_pkt"], q_mean_fluid_pkt=f["q_mean_pkt"],
                         q_mean_fluid_p_sim_pkt=fp["q_mean_pkt"], period_packet_s=s["period_s"],
                         period_fluid_s=f["period_s"], period_linear_s=lin_T, linear_decay_per_s=lin_decay,
                         util_packet=s["util"], util_fluid=f["util"], cwnd_mean_packet=s["cwnd_mean"],
                         W_mean_fluid=f["W_mean_pkt"], p_packet=s["p"], p_fluid=P_FLUID,
                         q_star_pkt=q_star_s(s["N"], C_BPS, s["R0_us"] * 1e-6) * C_pps,
                         state=theory_state(s["N"], C_BPS, s["R0_us"] * 1e-6)))  # Q* < 0: Theorem 2 does not apply
    stats = pd.DataFrame(rows)
    csv = out_dir / "dx_fig2_stats.csv"
    stats.to_csv(csv, index=False)
    series = []
    for s, f in zip(sims, fl):
        a = s["q"][s["q"].t_s <= warmup + span][["t_s", "q_pkt"]].assign(source="packet", R0_us=s["R0_us"])
        b = f["series"][f["series"].t_s <= warmup + span][["t_s", "q_pkt"]].assign(source="fluid", R0_us=s["R0_us"])
        series += [a, b]
    csv2 = out_dir / "dx_fig2_series.csv"
    pd.concat(series).to_csv(csv2, index=False)

    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    for ax, s, f, fp, tag in zip(axes, sims, fl, fl_psim, "ab"):
        q = s["q"][s["q"].t_s <= warmup + span]
        ff = f["series"][f["series"].t_s <= warmup + span]
        ax.plot((q.t_s - warmup) * 1e3, q.q_pkt, color="tab:blue", lw=0.7, label="dcsim packet simulation")
        ax.plot((ff.t_s - warmup) * 1e3, ff.q_pkt, "k", lw=1.6, label=f"fluid model (p = {P_FLUID})")
        if tag == "b":
            fs = fp["series"][fp["series"].t_s <= warmup + span]
            ax.plot((fs.t_s - warmup) * 1e3, fs.q_pkt, "k--", lw=1, label=f"fluid model at the simulated p = {s['p']:.3f}")
        if s["R0_us"] < 50:
            qs = q_star_s(s["N"], C_BPS, s["R0_us"] * 1e-6) * C_pps
            ax.axhline(qs, color="tab:red", ls=":", lw=1, label=f"Q* (Theorem 2) = {qs:.1f} pkt")
        ax.set_title(f"({tag}) N = {s['N']}, R0 = {s['R0_us']:g} µs", fontsize=10)
        ax.set_xlabel(f"time after warm-up ({1e3 * warmup:g} ms) [ms]")
        ax.set_ylabel("queue length [packets]")
        # room above the highest curve (a constant fluid queue at the top had sat on the frame) and
        # below it for the legend
        top = max(float(q.q_pkt.max()), float(ff.q_pkt.max()))
        ax.set_ylim(0, 1.35 * top if top > 0 else 1.0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="upper right", ncol=2, framealpha=0.9)
    fig.suptitle("Fig. 2: numerical results of the fluid model vs packet simulation (C = 10 Gbps)", fontsize=10)
    fig.tight_layout()
    png = save_figure(fig, out_dir, "dx_fig2.png")

    a, b = sims
    fa, fb = fl
    r0a = 20e-6
    qs_a = q_star_s(50, C_BPS, r0a)
    claims: list[Claim] = []
    dq = abs(a["q_mean_pkt"] - fa["q_mean_pkt"]) / a["q_mean_pkt"]
    claims.append(instruments(
        "Fig. 2(a), N = 50, R0 = 20 us (special stable state): the fluid model is close to the simulation",
        "close", ok(dq <= TOL_Q_SPECIAL),
        packet=f"mean queue {a['q_mean_pkt']:.2f} pkt", fluid=f"{fa['q_mean_pkt']:.2f} pkt (p = {P_FLUID})",
        theory=f"Q* C = {qs_a * C_BPS / 12000:.2f} pkt (Theorem 2)",
        detail=f"{100 * dq:.1f} % apart (tolerance {100 * TOL_Q_SPECIAL:.0f} %)"))
    claims.append(instruments(
        "Theorem 2 at N = 50, R0 = 20 us: every window stays at one segment", "W = 1 segment",
        ok(abs(a["cwnd_mean"] - 1) <= TOL_W_SPECIAL),
        packet=f"mean cwnd {a['cwnd_mean']:.4f} pkt (time average over all flows after warm-up)",
        fluid=f"W {fa['W_mean_pkt']:.3f} pkt (p = 0.95 keeps a small increase: (5)-(6) give W0 > 1)",
        theory="W* = seg", detail=f"tolerance {100 * TOL_W_SPECIAL:.0f} %; {R0_PATH}"))
    claims.append(instruments(
        "Theorem 2 at N = 50, R0 = 20 us: the link is fully utilized", ">= 99.9 % (Sect. 4.2)",
        ok(a["util"] >= UTIL_SPECIAL), packet=_pct(a["util"], 3), fluid=_pct(fa["util"], 3), theory="100 %",
        detail=R0_PATH))
    dqs = abs(a["q_mean_pkt"] / C_pps - qs_a) / qs_a
    claims.append(instruments(
        "Theorem 2 at N = 50, R0 = 20 us: queueing delay Q* = (N seg - C R0)/C", "Q* = 40 us (with R0 = 20 us)",
        ok(dqs <= TOL_Q_SPECIAL),
        packet=f"{_us(a['q_mean_pkt'] / C_pps)} (time-averaged queue / C); DX measured {_us(a['q_dx_s'])}",
        fluid=_us(fa["q_mean_pkt"] / C_pps) + f" at p = {P_FLUID}; {_us(fl_psim[0]['q_mean_pkt'] / C_pps)} at the "
              f"simulated p = {a['p']:.3f}",
        theory=_us(qs_a),
        detail=f"{100 * dqs:.1f} % from Q* (tolerance {100 * TOL_Q_SPECIAL:.0f} %); {R0_PATH}; the engine's base RTT "
               f"is {_us(a['base_rtt_s'], 3)} (propagation set to R0 - 2.464 us of serialisation)"))
    dqb = abs(b["q_mean_pkt"] - fb["q_mean_pkt"]) / b["q_mean_pkt"]  # of the simulation, as (a) (a review)
    T_rtt = b["period_s"] / (80e-6 + b["q_mean_pkt"] / C_pps)
    claims.append(instruments(
        "Fig. 2(b), N = 50, R0 = 80 us: the fluid model is close to the simulation", "close",
        ok(dqb <= TOL_Q_FIG2B),
        packet=f"mean queue {b['q_mean_pkt']:.2f} pkt (oscillating {b['q'].q_pkt.quantile(0.05):.0f}-"
               f"{b['q'].q_pkt.quantile(0.95):.0f} pkt, utilization {_pct(b['util'])})",
        fluid=f"{fb['q_mean_pkt']:.2f} pkt at p = {P_FLUID} (settles; utilization {_pct(fb['util'])}); "
              f"{fl_psim[1]['q_mean_pkt']:.2f} pkt at the simulated p = {b['p']:.3f}",
        theory=f"q0 = {th.equilibrium(50, C_BPS, 80e-6, P_FLUID).q0_pkt:.2f} pkt (eq. 7, p = 0.95)",
        detail=f"{100 * dqb:.0f} % apart (tolerance {100 * TOL_Q_FIG2B:.0f} %); {R0_PATH}. The packet system does not "
               f"settle: a limit cycle of {T_rtt:.1f} RTTs in which all 50 flows see the empty queue in the same "
               f"round and add one segment each (+50 packets at once), then decrease for the other rounds (p = "
               f"{b['p']:.3f}); the fluid model's constant p = 0.95 spreads the increase evenly and converges "
               f"(stable by Theorem 1: R0 < 105 us). Readings of DX tested for this run (p / mean queue pkt / "
               f"utilization %): {HYPOTHESES_FIG2B} - none within the criteria (dx_packet's docstring)"))
    claims.append(instruments(
        "Sect. 4.1: p is close to the constant 0.95 of the model (N = 50, R0 = 80 us)", "0.973 (Table 1), 0.95 (model)",
        ok(abs(b["p"] - P_FLUID) <= TOL_P), packet=f"p = {b['p']:.3f}", fluid=f"{P_FLUID} (input)",
        detail=f"tolerance {TOL_P}; {R0_PATH}; one increase round every {1 / max(1 - b['p'], 1e-12):.1f} rounds, "
               f"the cycle of {T_rtt:.1f} RTTs (row above); the paper's ns-3 saw Q = 0 in 2.7 % of the rounds"))
    # No row compares the packet limit cycle's period with the linearization's (9) damped mode: they
    # agreed within 20 % here by coincidence (1.24-1.27 x at dx-fig3's other points: a review); both
    # periods stay in dx_fig2_stats.csv (period_packet_s, period_linear_s).
    claims.append(Claim("(setup) no drops", "—", f"drops {a['drops'] + b['drops']}", ok(a["drops"] + b["drops"] == 0),
                        kind=CHECK))
    return ExperimentResult("dx-fig2", "DX Fig. 2: queue, fluid model vs packet simulation", claims, [png, csv, csv2])


# ---------------------------------------------------------------------------------------------
# Fig. 3: the three states (utilization against R0 and against N)
# ---------------------------------------------------------------------------------------------

FIG3_R0_US = (10, 20, 30, 40, 50, 60, 70, 80, 100, 120, 145, 160, 200, 250, 320, 400)
#: The quick grid keeps the full grid's points around Theorem 1's boundary (R0* = 144 us at N = 50):
#: 120, 145 and 160 us, the three that judge "smooth" (:func:`transition_points`; two more quick runs).
#: (Until 2026-11-30: 20, 60, 120, 320 us, whose one step 120 -> 320 us "reproduced" smoothness: an audit.)
FIG3_R0_US_QUICK = (20, 60, 120, 145, 160, 320)
FIG3_N = (10, 20, 30, 40, 50, 60, 65, 67, 70, 80, 90, 100)
FIG3_N_QUICK = (10, 50, 70)
#: Criteria fixed before the runs: "99.9 %" is the paper's number for the special state. "Smooth":
#: the paper (Sect. 4.2, on Fig. 3(a)) means the transition from the stable to the unstable state,
#: whose boundary is Theorem 1's R0* ("not absolute", it adds); so: no change steeper than twice the
#: paper's own across that boundary between the grid points around it (:func:`transition_points`).
#: The paper's own: its Sect. 4.3 numbers at N = 50 fall by 3.5 points per 100 us from R0 = 120 us
#: (stable) to 320 us (unstable), 96.11 -> 89.1 % over 200 us, so at most 0.07 points per us.
#: (Until 2026-11-29: at most 2 points per step, whatever the step's width; the paper's own numbers
#: failed that on a 200 us step: a probe. Until 2026-11-30: the steepest step anywhere outside the
#: special state, so a step inside the stable region, 100 -> 120 us, decided the transition: an audit.)
#: The direction of Theorem 1 = Spearman rank correlation of utilization with R0 <= -0.5 (with
#: N >= +0.5); with two points that is the sign of their one step, and the table says so.
SMOOTH_PTS_PER_US = 2 * 3.5 / 100
RANK = 0.5


def transition_points(r0_us, util, boundary_us: float, stable_from_us: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The grid points around Theorem 1's boundary that judge Fig. 3(a)'s smooth transition from the
    stable to the unstable state: of the points in the stable state (``stable_from_us`` < R0 <
    ``boundary_us``; at or below ``stable_from_us`` is Theorem 2's special state or its boundary) and
    in the unstable state (R0 >= ``boundary_us``), the last below the boundary, the first at or above
    it, and of the next one on either side the one nearer the boundary: the three points nearest the
    boundary with at least one on each side, i.e. the step that crosses it and the step beside it.
    Returns (R0, util) sorted by R0, or None when the grid has no point on one side or only the two
    (one step, a chord across the boundary, cannot show how the curve goes through it)."""
    r0, u = np.asarray(r0_us, float), np.asarray(util, float)
    order = np.argsort(r0)
    r0, u = r0[order], u[order]
    below = np.flatnonzero((r0 > stable_from_us) & (r0 < boundary_us))
    above = np.flatnonzero(r0 >= boundary_us)
    if len(below) == 0 or len(above) == 0 or len(below) + len(above) < 3:
        return None
    pick = [below[-1], above[0]]
    nxt = [i for i in (below[-2] if len(below) > 1 else None, above[1] if len(above) > 1 else None) if i is not None]
    pick.append(min(nxt, key=lambda i: abs(r0[i] - boundary_us)))
    pick.sort()
    return r0[pick], u[pick]


def smooth_transition_row(r0_us, util_packet, util_fluid, boundary_us: float, stable_from_us: float,
                          trend_rho: float = -1.0) -> Claim:
    """Fig. 3(a)'s "the transition from the stable to the unstable state is smooth", judged on the
    points of :func:`transition_points` (utilizations as fractions): a claim row, reproduced if no step
    between them is steeper than :data:`SMOOTH_PTS_PER_US` and the utilization falls with R0 outside
    the special state at all (``trend_rho``, its rank correlation, <= -:data:`RANK`: without a fall
    there is no transition whose smoothness could be judged, and "smooth" would hold vacuously, a
    review); on a grid without those points, a (dcsim) check that says the claim cannot be judged
    there (failed, never counted as reproduced)."""
    r0, up, uf = (np.asarray(x, float) for x in (r0_us, util_packet, util_fluid))
    order = np.argsort(r0)
    r0, up, uf = r0[order], up[order], uf[order]
    tp = transition_points(r0, up, boundary_us, stable_from_us)
    sides = (f"stable ({stable_from_us:g} < R0 < {boundary_us:.0f} us): "
             f"{', '.join(f'{v:g}' for v in r0[(r0 > stable_from_us) & (r0 < boundary_us)]) or 'none'}; "
             f"unstable (R0 >= {boundary_us:.0f} us): {', '.join(f'{v:g}' for v in r0[r0 >= boundary_us]) or 'none'}")
    if tp is None:
        return check(
            "(dcsim) Fig. 3(a): the grid has the points around Theorem 1's boundary that judge the smooth transition",
            f"grid points {sides}", False,
            detail=f"needs 3 points around R0* = {boundary_us:.0f} us, at least one on each side (one step is a chord "
                   "across the boundary, not the curve through it); the paper's claim is not judged on this grid")
    pts, us_ = tp[0], 100 * tp[1]
    slopes = np.abs(np.diff(us_)) / np.diff(pts)
    worst = int(np.argmax(slopes))
    uf_pts = 100 * uf[np.searchsorted(r0, pts)]
    out = r0 > stable_from_us  # every step outside the special state, for the reader
    ro, uo = r0[out], 100 * up[out]
    elsewhere = ""
    if len(ro) > 1:
        so = np.abs(np.diff(uo)) / np.diff(ro)
        inside = [k for k in range(len(so)) if not (ro[k] in pts and ro[k + 1] in pts)]
        if inside:
            k = max(inside, key=lambda k: so[k])
            # the crossing step is always one of the judged ones, so any other lies inside one state
            where = "stable" if ro[k + 1] < boundary_us else "unstable"
            elsewhere = (f"; steepest step elsewhere outside the special state: {ro[k]:g} -> {ro[k + 1]:g} us, "
                         f"{uo[k]:.2f} -> {uo[k + 1]:.2f} %, {so[k]:.4f} points/us (inside the {where} state, not "
                         "the transition; the trend with R0 is the next row's)")
    seen = not trend_rho > -RANK  # a NaN correlation (one point) is judged on the steps alone
    vacuous = "" if seen else (
        f"; no transition to judge: the utilization does not fall with R0 outside the special state (rank correlation "
        f"{trend_rho:+.2f}, the next row), so the flat steps say nothing about how a transition goes")
    return instruments(
        "Fig. 3(a): the transition from the stable to the unstable state is smooth", "smooth",
        ok(float(slopes.max()) <= SMOOTH_PTS_PER_US and seen),
        packet=(f"around the boundary: " + " -> ".join(f"{r:g} us: {u:.2f} %" for r, u in zip(pts, us_))
                + f"; steps {', '.join(f'{v:.4f}' for v in slopes)} points/us, steepest "
                f"{pts[worst]:g} -> {pts[worst + 1]:g} us"),
        fluid=" -> ".join(f"{u:.2f}" for u in uf_pts) + " %",
        theory=f"Theorem 1 boundary R0* = {boundary_us:.0f} us",
        detail=f"criterion: no step steeper than {SMOOTH_PTS_PER_US:g} points/us between the three grid points nearest "
               f"R0* with one on each side at least ({sides}), twice the paper's own change across that boundary "
               f"(Sect. 4.3: 96.11 -> 89.1 % from 120 to 320 us, 3.5 points per 100 us), and a fall of the "
               f"utilization with R0 to judge (rank correlation <= {-RANK}); {R0_PATH}" + elsewhere + vacuous)


def _state_spans(ax, edges: list[tuple[float, float, str]]) -> None:
    colors = {"special": "tab:orange", "stable": "tab:green", "unstable": "tab:red"}
    for lo, hi, st in edges:
        ax.axvspan(lo, hi, color=colors[st], alpha=0.10, lw=0)
        ax.text((lo + hi) / 2, 0.95, st, transform=ax.get_xaxis_transform(), ha="center", va="top", fontsize=8,
                color=colors[st])


def _spearman(x, y) -> float:
    return float(pd.Series(np.asarray(x, float)).corr(pd.Series(np.asarray(y, float)), method="spearman"))


def run_cycles(sres, table: pd.DataFrame, warmup_s: float) -> pd.DataFrame:
    """Per run of a sweep kept with ``tables=True``: the period of the queue's oscillation after warm-up
    (cycle_stats; NaN when it settles), in s and in RTTs (R0 + mean queueing delay), and the +N step of
    a synchronized increase round relative to the pipe, N / (C R0/seg). Runs with R0 = "path" (R0 is
    the flows' base RTT, N the number of flows)."""
    C = table["network.bottleneck_bps"].to_numpy(float) if "network.bottleneck_bps" in table else np.full(len(table), C_BPS)
    rows = []
    for rid, c, qm in zip(table.run_id, C, table[f"{PORT}.q_mean_pkt"]):
        res = sres.result(rid)
        n, r0 = len(res.flows), float(res.flows.base_rtt_s.mean())
        q = res.queue[res.queue.t_s >= warmup_s]
        T = cycle_stats(q.t_s.to_numpy(), q.q_pkt.to_numpy().astype(float))["period_s"]
        rtt = r0 + float(qm) * SEG_BYTES * 8 / c
        rows.append(dict(period_s=T, period_rtt=T / rtt, step_over_pipe=float(n) / (c * r0 / (SEG_BYTES * 8))))
    return pd.DataFrame(rows, index=table.index)


def cycle_reason(d: pd.DataFrame, x: str, label: str, unit: str = "") -> str:
    """The measured limit cycle along a sweep (``d`` has x, period_rtt, p_packet, util_packet,
    step_over_pipe): the most likely reason why the packet system's utilization does not follow the
    paper's ns-3 numbers or Theorem 1's direction, with the numbers of these runs."""
    pts = "; ".join(f"{label} = {v:g}{unit}: " + (f"T = {t:.1f} RTTs" if math.isfinite(t) else "no cycle")
                    + f", p = {p:.3f}, idle {100 * (1 - u):.2f} %, +N/pipe "
                    f"{sp:.2f}" for v, t, p, u, sp in zip(d[x], d.period_rtt, d.p_packet, d.util_packet,
                                                           d.step_over_pipe))
    fluid = ""
    if "util_fluid" in d and len(d):
        lo, hi = 100 * float(d.util_fluid.min()), 100 * float(d.util_fluid.max())
        fluid = (f"; the paper's fluid model (3)-(4) at p = 0.95 keeps {lo:.2f}-{hi:.2f} % along this sweep"
                 + (", so Theorem 1's instability does not lower its utilization either" if lo >= 99 else ""))
    return ("our packet DX keeps a limit cycle in which all N flows see the empty queue in the same round and add a "
            "segment each (+N packets at once); the link idles in that round, so the loss follows the size of the "
            "+N step against the pipe C R0/seg and the cycle length, not Theorem 1's delay margin: " + pts + fluid)


@experiment("dx-fig3", "DX Fig. 3: the three states, utilization vs R0 and vs N", PAPER)
def run_fig3(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    duration, warmup = durations(quick)
    R0s = FIG3_R0_US_QUICK if quick else FIG3_R0_US
    Ns = FIG3_N_QUICK if quick else FIG3_N
    base = scenario(50, 80e-6, duration_s=duration, warmup_s=warmup, queue_interval_s=5e-6, cwnd_interval_s=1e-3)
    ta, sa = run_sweep(out_dir, "fig3a", base, {"network.rtt": [rtt_str(r) for r in R0s]}, tables=True)
    tb, sb = run_sweep(out_dir, "fig3b", base, {"network.senders, flows[0].count": [[n, n] for n in Ns]}, tables=True)
    ca, cb = run_cycles(sa, ta, warmup), run_cycles(sb, tb, warmup)
    fa = fluid_points([(50, C_BPS, r * 1e-6) for r in R0s], duration, warmup)
    fb = fluid_points([(n, C_BPS, 80e-6) for n in Ns], duration, warmup)
    da = pd.DataFrame(dict(panel="a", N=50, R0_us=list(R0s), util_packet=ta[f"{PORT}.utilization"].to_numpy(),
                           util_fluid=[f["util"] for f in fa], p_packet=flow_stat(ta, "p_decrease"),
                           q_mean_pkt=ta[f"{PORT}.q_mean_pkt"].to_numpy(),
                           state=[theory_state(50, C_BPS, r * 1e-6) for r in R0s], period_rtt=ca.period_rtt.to_numpy(),
                           step_over_pipe=ca.step_over_pipe.to_numpy()))
    db = pd.DataFrame(dict(panel="b", N=list(Ns), R0_us=80, util_packet=tb[f"{PORT}.utilization"].to_numpy(),
                           util_fluid=[f["util"] for f in fb], p_packet=flow_stat(tb, "p_decrease"),
                           q_mean_pkt=tb[f"{PORT}.q_mean_pkt"].to_numpy(),
                           state=[theory_state(n, C_BPS, 80e-6) for n in Ns], period_rtt=cb.period_rtt.to_numpy(),
                           step_over_pipe=cb.step_over_pipe.to_numpy()))
    df = pd.concat([da, db], ignore_index=True)
    csv = out_dir / "dx_fig3.csv"
    df.to_csv(csv, index=False)

    r0_special = th.special_state_max_R0(50, C_BPS, SEG_BYTES) * 1e6
    r0_stable = th.stability_threshold_R0(50, C_BPS, P_FLUID, SEG_BYTES) * 1e6
    n_special = th.special_state_threshold_N(C_BPS, 80e-6, SEG_BYTES)
    n_stable = th.stability_threshold_N(C_BPS, 80e-6, P_FLUID, SEG_BYTES)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.2))
    _state_spans(ax1, [(0, r0_special, "special"), (r0_special, r0_stable, "stable"), (r0_stable, 420, "unstable")])
    ax1.plot(da.R0_us, 100 * da.util_packet, "o-", color="tab:blue", label="dcsim packet simulation")
    ax1.plot(da.R0_us, 100 * da.util_fluid, "k--", lw=1.2, label="fluid model (p = 0.95, τ = R0)")
    ax1.axvline(r0_special, color="tab:orange", lw=1, label=f"Theorem 2: R0 ≤ {r0_special:.0f} µs")
    ax1.axvline(r0_stable, color="tab:green", lw=1, label=f"Theorem 1 (corrected): R0 < {r0_stable:.0f} µs")
    ax1.set_xlim(0, 420)
    ax1.set_xlabel("base RTT R0 [µs]")
    ax1.set_title("(a) N = 50, C = 10 Gbps", fontsize=10)
    _state_spans(ax2, [(0, n_stable, "unstable"), (n_stable, n_special, "stable"), (n_special, 105, "special")])
    ax2.plot(db.N, 100 * db.util_packet, "o-", color="tab:blue", label="dcsim packet simulation")
    ax2.plot(db.N, 100 * db.util_fluid, "k--", lw=1.2, label="fluid model (p = 0.95, τ = R0)")
    ax2.axvline(n_special, color="tab:orange", lw=1, label=f"Theorem 2: N ≥ {n_special:.1f}")
    ax2.axvline(n_stable, color="tab:green", lw=1, label=f"Theorem 1 (corrected): N > {n_stable:.1f}")
    ax2.set_xlim(0, 105)
    ax2.set_xlabel("number of flows N")
    ax2.set_title("(b) R0 = 80 µs, C = 10 Gbps", fontsize=10)
    lo = min(90.0, 100 * float(df[["util_packet", "util_fluid"]].min().min()) - 1)
    for ax in (ax1, ax2):
        ax.set_ylabel("link utilization [%]")
        ax.set_ylim(lo, 101.0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right" if ax is ax1 else "lower left")
    fig.suptitle("Fig. 3: the three states of DX", fontsize=10)
    fig.tight_layout()
    png = save_figure(fig, out_dir, "dx_fig3.png")

    claims: list[Claim] = []
    # The engine's base RTT is R0 exactly, so points are classified with the paper's R0. R0 = 60 us at
    # N = 50 is Theorem 2's boundary N = C R0/seg (Q* = 0: the queue is empty at the fixed point and
    # eq. (1) increases), counted with neither state.
    sp = df[df.state == "special"]
    claims.append(instruments(
        "Sect. 4.2/Fig. 3: in the special stable state the link utilization is 99.9 %", "99.9 %",
        ok(bool((sp.util_packet >= 0.999).all())),
        packet=f"min {_pct(sp.util_packet.min(), 3)} over the {len(sp)} special-state points",
        fluid=f"min {_pct(sp.util_fluid.min(), 3)}",
        theory=f"Theorem 2: R0 <= {r0_special:.0f} us (N = 50), N >= {n_special:.1f} (R0 = 80 us)",
        detail=f"{R0_PATH}; R0 = {r0_special:.0f} us at N = 50 is the boundary N = C R0/seg (Q* = 0), not counted"))
    outside = da[da.R0_us > r0_special].sort_values("R0_us")
    rho_a = _spearman(outside.R0_us, outside.util_packet)
    claims.append(smooth_transition_row(da.R0_us, da.util_packet, da.util_fluid, r0_stable, r0_special, rho_a))
    n_a = "" if len(outside) > 2 else f" (n = {len(outside)}: the sign of one step)"
    claims.append(instruments(
        "Theorem 1 / Fig. 3(a): the larger R0, the lower the utilization (N = 50)", "decreasing",
        ok(rho_a <= -RANK),
        packet=f"Spearman rank correlation with R0 (R0 > {r0_special:.0f} us): {rho_a:+.2f}{n_a}; "
               + ", ".join(f"{int(r)} us: {100 * u:.2f} %" for r, u in zip(outside.R0_us, outside.util_packet)),
        fluid=", ".join(f"{100 * u:.2f}" for u in outside.util_fluid) + " %",
        detail=f"criterion: <= {-RANK}; {R0_PATH}" + ("" if rho_a <= -RANK else "; " + cycle_reason(outside, "R0_us", "R0", " us"))))
    above = db[db.state == "special"]
    below = db[db.N < n_special]
    claims.append(instruments(
        "Fig. 3(b): when N exceeds the threshold (67) the system enters the special stable state (R0 = 80 us)",
        "N >= 67", ok(len(above) > 0 and bool((above.util_packet >= 0.999).all())),
        packet=f"utilization {', '.join(f'{100 * u:.3f}' for u in above.util_packet)} % at N = "
               f"{', '.join(str(int(n)) for n in above.N)}; below N = 67: max "
               f"{_pct(below.util_packet.max()) if len(below) else '—'}",
        fluid=f"{_pct(above.util_fluid.min(), 3)} min above", theory=f"N >= C R0/seg = {n_special:.2f}",
        detail=f"utilization >= 99.9 % above the threshold; the windows at one segment are checked in dx-fig4 and "
               f"dx-fig5; {R0_PATH}"))
    rho_b = _spearman(below.N, below.util_packet) if len(below) > 1 else math.nan
    claims.append(instruments(
        "Theorem 1 / Fig. 3(b): the larger N, the more stable (higher utilization)", "increasing",
        ok(rho_b >= RANK),
        packet=f"Spearman rank correlation with N (N < 67): {rho_b:+.2f}"
               + ("" if len(below) > 2 else f" (n = {len(below)}: the sign of one step)") + "; "
               + ", ".join(f"N={int(n)}: {100 * u:.2f} %" for n, u in zip(below.N, below.util_packet)),
        fluid=", ".join(f"{100 * u:.2f}" for u in below.util_fluid) + " %",
        theory=f"stable for N > {n_stable:.1f} (Theorem 1, corrected)",
        detail=f"criterion: >= {RANK}; {R0_PATH}" + ("" if rho_b >= RANK else "; " + cycle_reason(below, "N", "N"))))
    claims.append(Claim(
        "(setup) no drops", "—", f"drops {int(ta[f'{PORT}.drops'].sum() + tb[f'{PORT}.drops'].sum())}",
        ok(int(ta[f"{PORT}.drops"].sum() + tb[f"{PORT}.drops"].sum()) == 0), kind=CHECK))
    return ExperimentResult("dx-fig3", "DX Fig. 3: the three states", claims, [png, csv])


# ---------------------------------------------------------------------------------------------
# Fig. 4: mean cwnd against N (R0 = 120 us) and against R0 (N = 50)
# ---------------------------------------------------------------------------------------------

FIG4_N = (10, 20, 40, 60, 80, 90, 100, 105, 110, 120)
#: The quick grids keep Theorem 2's boundary (N = 100 at 120 us, R0 = 60 us at N = 50): the paper's
#: "N >= 100" / "R0 <= 60 us" includes it, and without it the claim passed on N = 110 alone (a probe).
FIG4_N_QUICK = (20, 100, 110)
FIG4_R0_US = (10, 20, 30, 40, 50, 60, 70, 80, 100, 120)
FIG4_R0_US_QUICK = (20, 60, 100)
#: "indeed 1" = within 2 % of one segment (the project's acceptance criterion for DX, see FIG2).
#: The fluid model vs the packet mean window outside the special state, a check of ours, from the
#: model: the fluid model uses a constant p = 0.95, while the packet system's p is whatever its
#: dynamics give, and the paper's Table 1 measures 0.78 .. 1.0 at R0 = 80 and 200 us. Over that
#: range of p the equilibrium window W0 of eqs. (5)-(7) moves by 2.4 % (N = 10, R0 = 120 us) to
#: 24.1 % (N = 90, R0 = 120 us) of its p = 0.95 value on the Fig. 4 grid outside the special state
#: and its boundary (W0 at p = 0.78 against p = 0.95, base RTT R0 exactly; 24.5 % with the former
#: R0 + 2.464 us), so a packet window that differs from the fluid's by up to that much is explained
#: by p alone: 25 % (rounded up), computed before the runs.
TOL_W_FLUID = 0.25


@experiment("dx-fig4", "DX Fig. 4: mean cwnd vs N (R0 = 120 us) and vs R0 (N = 50)", PAPER)
def run_fig4(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    duration, warmup = durations(quick)
    Ns = FIG4_N_QUICK if quick else FIG4_N
    R0s = FIG4_R0_US_QUICK if quick else FIG4_R0_US
    base = scenario(50, 120e-6, duration_s=duration, warmup_s=warmup, queue_interval_s=1e-3, cwnd_interval_s=20e-6)
    ta, _ = run_sweep(out_dir, "fig4a", base, {**MODES_AXIS, "network.senders, flows[0].count": [[n, n] for n in Ns]})
    tb, _ = run_sweep(out_dir, "fig4b", base, {**MODES_AXIS, "network.rtt": [rtt_str(r) for r in R0s]})
    fa = fluid_points([(n, C_BPS, 120e-6) for n in Ns], duration, warmup)
    fb = fluid_points([(50, C_BPS, r * 1e-6) for r in R0s], duration, warmup)
    rows = []
    for panel, t, pts, fl in (("a", ta, [(n, 120.0) for n in Ns], fa), ("b", tb, [(50, float(r)) for r in R0s], fb)):
        w, wmax, pd_ = flow_stat(t, "cwnd_mean_pkt"), flow_stat(t, "cwnd_mean_pkt", "max"), flow_stat(t, "p_decrease")
        x = t["network.senders"] if panel == "a" else pd.Series(r0_us_of(t), index=t.index)
        for i, mode in enumerate(t["flows[0].R0"]):
            k = [n if panel == "a" else r for n, r in pts].index(float(x.iloc[i]) if panel == "b" else int(x.iloc[i]))
            N, R0_us = pts[k]
            R0 = R0_us * 1e-6
            eq = th.equilibrium(N, C_BPS, R0, P_FLUID, SEG_BYTES)
            rows.append(dict(panel=panel, R0_mode=mode, N=N, R0_us=R0_us, cwnd_mean_pkt=w[i], cwnd_max_flow_pkt=wmax[i],
                             p_packet=pd_[i],
                             utilization=float(t[f"{PORT}.utilization"].iloc[i]), W_fluid_pkt=fl[k]["W_mean_pkt"],
                             W0_eq7_pkt=eq.W0_pkt, pipe_per_flow_pkt=capacity_pps(C_BPS, SEG_BYTES) * R0 / N,
                             state=theory_state(N, C_BPS, R0), special=theory_state(N, C_BPS, R0) == "special"))
    df = pd.DataFrame(rows)
    csv = out_dir / "dx_fig4.csv"
    df.to_csv(csv, index=False)

    n_thr = th.special_state_threshold_N(C_BPS, 120e-6, SEG_BYTES)
    r0_thr = th.special_state_max_R0(50, C_BPS, SEG_BYTES) * 1e6
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.2))
    for ax, panel, x, thr, xlabel, title in ((ax1, "a", "N", n_thr, "number of flows N", "(a) R0 = 120 µs"),
                                             (ax2, "b", "R0_us", r0_thr, "base RTT R0 [µs]", "(b) N = 50")):
        d = df[df.panel == panel]
        p_, m_ = d[d.R0_mode == "path"], d[d.R0_mode == "min"]
        ax.plot(p_[x], p_.cwnd_mean_pkt, "o-", color="tab:blue", label="packet sim, R0 known (path)")
        ax.plot(m_[x], m_.cwnd_mean_pkt, "s--", color="tab:purple", ms=4, mfc="white",
                label="packet sim, R0 = min RTT seen")
        ax.plot(p_[x], p_.W_fluid_pkt, "k:", lw=1.2, label="fluid model (p = 0.95)")
        ax.axvline(thr, color="tab:orange", lw=1, label=f"Theorem 2: {'N ≥ %.0f' % thr if panel == 'a' else 'R0 ≤ %.0f µs' % thr}")
        ax.axhline(1, color="gray", lw=0.6)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("average cwnd [segments]")
        ax.set_title(title, fontsize=10)
        ax.set_ylim(0, max(4.0, 1.1 * float(d.cwnd_mean_pkt.max())))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("Fig. 4: the average congestion window (C = 10 Gbps)", fontsize=10)
    fig.tight_layout()
    png = save_figure(fig, out_dir, "dx_fig4.png")

    claims: list[Claim] = []
    path = df[df.R0_mode == "path"]
    sp = path[path.special]
    bd = path[path.state == "boundary"]
    dev = float((sp.cwnd_mean_pkt - 1).abs().max()) if len(sp) else math.nan
    claims.append(instruments(
        "Fig. 4: the average window size is indeed 1 when N >= 100 (R0 = 120 us) / R0 <= 60 us (N = 50)",
        "1 segment", ok(len(sp) > 0 and dev <= TOL_W_SPECIAL),
        packet=f"max |mean cwnd - 1| = {dev:.4f} over {len(sp)} special-state points (largest flow mean "
               f"{float(sp.cwnd_max_flow_pkt.max()):.3f})",
        fluid=f"W in [{sp.W_fluid_pkt.min():.3f}, {sp.W_fluid_pkt.max():.3f}] (p = 0.95)",
        theory=f"W* = seg for N >= {n_thr:.0f} at 120 us, R0 <= {r0_thr:.0f} us at N = 50",
        detail=f"tolerance {100 * TOL_W_SPECIAL:.0f} %; {R0_PATH}; points with Q* > 0 (N > C R0/seg); the boundary "
               "itself is the next row"))
    if len(bd):
        dev_b = float((bd.cwnd_mean_pkt - 1).abs().max())
        claims.append(instruments(
            "Theorem 2 at its boundary N = C R0/seg (N = 100 at 120 us, R0 = 60 us at N = 50): windows at one segment",
            "1 segment (N >= C R0/seg)", ok(dev_b <= TOL_W_SPECIAL),
            packet=", ".join(f"N = {int(r.N)}, R0 = {r.R0_us:g} us: mean cwnd {r.cwnd_mean_pkt:.3f}, utilization "
                             f"{_pct(r.utilization)}" for r in bd.itertuples()),
            fluid=", ".join(f"W {w:.3f}" for w in bd.W_fluid_pkt) + " (p = 0.95)", theory="W* = seg, Q* = 0",
            detail=f"{R0_PATH}. At N = C R0/seg the fixed point has Q* = 0: N one-segment windows exactly fill the "
                   "pipe, the queue is empty, every flow sees Q = 0 and eq. (1) adds a segment, so the packet system "
                   "cycles above the floor (the link stays busy). Any Q* > 0 freezes it (N = 67 at 80 us: Q* = "
                   "0.4 us, dx-fig3): the special state needs N > C R0/seg"))
    ns = path[~path.special & (path.state != "boundary")]
    claims.append(Claim(
        "(check) outside the special state the windows are larger than one segment", "—",
        f"mean cwnd in [{ns.cwnd_mean_pkt.min():.3f}, {ns.cwnd_mean_pkt.max():.3f}] over {len(ns)} points",
        ok(len(ns) > 0 and bool((ns.cwnd_mean_pkt > 1 + TOL_W_SPECIAL).all())), kind=CHECK))
    mn = df[(df.R0_mode == "min") & df.special]
    dev_min = float((mn.cwnd_mean_pkt - 1).abs().max()) if len(mn) else math.nan
    claims.append(Claim(
        "(dcsim) with DX's own estimator (R0 = min RTT seen) in the special state", "—",
        f"max |mean cwnd - 1| = {dev_min:.4f} (largest flow mean {float(mn.cwnd_max_flow_pkt.max()):.3f} segments)",
        ok(dev_min <= TOL_W_SPECIAL),
        f"R0 = \"min\" with flows started {stagger_for('min')} apart (one packet's service time), so every flow's "
        "first packet sees the empty network until the aggregate exceeds the pipe and later flows see less than the "
        "final standing queue: Q > 0 stays visible to all. With the 100 us stagger flows that start into the "
        "standing queue take R0 + (queue at their start) for the base RTT (latecomers; mean cwnd 1.02 at N = 80, "
        "R0 = 80 us, one flow at 2.67)", kind=CHECK))
    err = ((ns.cwnd_mean_pkt - ns.W_fluid_pkt).abs() / ns.W_fluid_pkt)
    wst = ns.loc[err.idxmax()]
    claims.append(Claim(
        "(check) fluid model's window vs the packet simulation's outside the special state", "—",
        f"relative difference up to {100 * float(err.max()):.0f} % (median {100 * float(err.median()):.0f} %); "
        f"largest at N = {int(wst.N)}, R0 = {wst.R0_us:g} us: packet {wst.cwnd_mean_pkt:.3f}, fluid {wst.W_fluid_pkt:.3f} "
        f"segments", ok(float(err.max()) <= TOL_W_FLUID),
        f"tolerance {100 * TOL_W_FLUID:.0f} % (W0's sensitivity to p over 0.78 .. 0.95); {R0_PATH}; the packet "
        f"windows carry the queue of the +N increase cycles: measured p {ns.p_packet.min():.3f} .. "
        f"{ns.p_packet.max():.3f} ({wst.p_packet:.3f} at the largest difference), not 0.95 (dx-fig2)", kind=CHECK))
    return ExperimentResult("dx-fig4", "DX Fig. 4: average congestion window", claims, [png, csv])


# ---------------------------------------------------------------------------------------------
# Fig. 5: queueing delay against N in the special stable state
# ---------------------------------------------------------------------------------------------

FIG5_N = (70, 75, 80, 85, 90, 95, 100)
FIG5_N_QUICK = (70, 80, 100)
#: Within 10 % of Q* (the issue's tolerance), or one packet's service time (1.2 us) where that is
#: larger: the queue holds a whole number of packets (Q* = 4.0 us at N = 70, 3.3 packets).
TOL_PKT_S = SEG_BYTES * 8 / C_BPS


@experiment("dx-fig5", "DX Fig. 5: queueing delay vs N in the special stable state (R0 = 80 us)", PAPER)
def run_fig5(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    duration, warmup = durations(quick)
    Ns = FIG5_N_QUICK if quick else FIG5_N
    base = scenario(70, 80e-6, duration_s=duration, warmup_s=warmup, queue_interval_s=1e-3, cwnd_interval_s=100e-6)
    tt, _ = run_sweep(out_dir, "fig5", base, {**MODES_AXIS, "network.senders, flows[0].count": [[n, n] for n in Ns]})
    t = tt[tt["flows[0].R0"] == "path"].sort_values("network.senders")
    tm = tt[tt["flows[0].R0"] == "min"].sort_values("network.senders")
    C_pps = capacity_pps(C_BPS, SEG_BYTES)
    p_sim = flow_stat(t, "p_decrease")
    fl = fluid_points([(n, C_BPS, 80e-6) for n in Ns], duration, warmup)
    fl_psim = fluid_points([(n, C_BPS, 80e-6) for n in Ns], duration, warmup, p=list(p_sim))
    df = pd.DataFrame(dict(
        N=list(Ns), q_delay_packet_s=t[f"{PORT}.q_mean_pkt"].to_numpy() / C_pps,
        q_delay_dx_measured_s=flow_stat(t, "q_delay_mean_s"), q_delay_fluid_s=[f["q_mean_pkt"] / C_pps for f in fl],
        q_delay_fluid_p_sim_s=[f["q_mean_pkt"] / C_pps for f in fl_psim], W_fluid_pkt=[f["W_mean_pkt"] for f in fl],
        q_delay_eq7_s=[th.equilibrium(n, C_BPS, 80e-6, P_FLUID, SEG_BYTES).Q0_s for n in Ns],
        q_star_s=[q_star_s(n, C_BPS, 80e-6) for n in Ns],
        utilization=t[f"{PORT}.utilization"].to_numpy(), cwnd_mean_pkt=flow_stat(t, "cwnd_mean_pkt"), p=p_sim,
        base_rtt_engine_s=flow_stat(t, "base_rtt_s"),
        q_delay_packet_min_s=tm[f"{PORT}.q_mean_pkt"].to_numpy() / C_pps,
        cwnd_mean_min_pkt=flow_stat(tm, "cwnd_mean_pkt"), cwnd_max_flow_min_pkt=flow_stat(tm, "cwnd_mean_pkt", "max"),
        utilization_min=tm[f"{PORT}.utilization"].to_numpy()))
    csv = out_dir / "dx_fig5.csv"
    df.to_csv(csv, index=False)

    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    ax.plot(df.N, 1e6 * df.q_delay_packet_s, "o-", color="tab:blue", label="dcsim packet simulation (queue / C)")
    ax.plot(df.N, 1e6 * df.q_delay_packet_min_s, "s", color="tab:purple", ms=4, mfc="white",
            label="packet sim, R0 = min RTT seen (1.2 µs start)")
    ax.plot(df.N, 1e6 * df.q_delay_dx_measured_s, "x", color="tab:cyan", label="measured by DX (mean Q per round)")
    ax.plot(df.N, 1e6 * df.q_delay_fluid_s, "k:", lw=1.2, label="fluid model (p = 0.95)")
    ax.plot(df.N, 1e6 * df.q_delay_fluid_p_sim_s, "k-", lw=0.8, alpha=0.6, label="fluid model at the simulated p")
    ax.plot(df.N, 1e6 * df.q_star_s, "r--", lw=1, label="Q* = (N seg - C R0)/C, Theorem 2")
    ax.set_xlabel("number of flows N")
    ax.set_ylabel("queueing delay [µs]")
    ax.set_title("Fig. 5: queueing delay in the special stable state (R0 = 80 µs, C = 10 Gbps)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    png = save_figure(fig, out_dir, "dx_fig5.png")

    allowed = np.maximum(TOL_Q_SPECIAL * df.q_star_s, TOL_PKT_S)
    err = (df.q_delay_packet_s - df.q_star_s).abs()
    worst = int(np.argmax(err / allowed))
    err_f = (df.q_delay_fluid_p_sim_s - df.q_delay_packet_s).abs()
    claims = [
        instruments(
            "Fig. 5 / Theorem 2: in the special stable state the queueing delay is Q* = (N seg - C R0)/C",
            "Q* (Theorem 2)", ok(bool((err <= allowed).all())),
            packet=", ".join(f"N={n}: {1e6 * q:.2f}" for n, q in zip(df.N, df.q_delay_packet_s)) + " us",
            fluid=", ".join(f"{1e6 * q:.2f}" for q in df.q_delay_fluid_s) + f" us at p = {P_FLUID} (next row)",
            theory="Q* = " + ", ".join(f"{1e6 * q:.2f}" for q in df.q_star_s) + " us",
            detail=f"largest miss at N = {int(df.N.iloc[worst])}: {1e6 * err.iloc[worst]:.2f} us (allowed "
                   f"{1e6 * allowed.iloc[worst]:.2f} us = max(10 % of Q*, one packet 1.2 us)); {R0_PATH}; the "
                   f"engine's base RTT is {_us(float(np.nanmax(df.base_rtt_engine_s)), 3)}"),
        instruments(
            "(dcsim) Fig. 5: the fluid model's queueing delay in the special stable state", "— (the paper plots "
            "ns-3 only)", ok(bool((err_f <= allowed).all())),
            packet=", ".join(f"{1e6 * q:.2f}" for q in df.q_delay_packet_s) + f" us (p = "
                   f"{float(df.p.min()):.4f}-{float(df.p.max()):.4f})",
            fluid=", ".join(f"{1e6 * q:.2f}" for q in df.q_delay_fluid_p_sim_s) + " us at the simulated p; "
                  + ", ".join(f"{1e6 * q:.2f}" for q in df.q_delay_fluid_s) + f" us at p = {P_FLUID} (W "
                  + ", ".join(f"{w:.3f}" for w in df.W_fluid_pkt) + ")",
            theory="eq. (7) at p = 0.95: " + ", ".join(f"{1e6 * q:.2f}" for q in df.q_delay_eq7_s) + " us; Q* at p = 1",
            detail=_p_one_note(df.p, "the row above") + "verdict: the fluid model at the simulated p against the "
                   "packet queue, same tolerance as the row above. At the paper's constant p = 0.95 the fluid model cannot reach Q*: its increase term "
                   "seg (1 - p)/RTT of eq. (3) never vanishes, so (5) holds W0 above one segment and Q0 = eq. (7) "
                   "above Q*; in the special state every round sees Q > 0 (p = 1), and with p = 1 the fluid model "
                   "gives Q* exactly", kind=CHECK),
        instruments(
            "Fig. 5: the queueing delay increases with the number of flows", "increasing",
            ok(bool(np.all(np.diff(df.q_delay_packet_s) > 0))),
            packet=f"{1e6 * df.q_delay_packet_s.iloc[0]:.2f} us at N = {Ns[0]} -> {1e6 * df.q_delay_packet_s.iloc[-1]:.2f} "
                   f"us at N = {Ns[-1]}", theory=f"slope seg/C = {1e6 * TOL_PKT_S:.2f} us per flow", detail=R0_PATH),
    ]
    if 80 in Ns:
        r = df[df.N == 80].iloc[0]
        dq = abs(r.q_delay_packet_s - r.q_star_s) / r.q_star_s
        claims.append(instruments(
            "Theorem 2 at N = 80, R0 = 80 us: windows at one segment, link fully utilized, queueing delay Q*",
            "W = 1, >= 99.9 %, Q* = 16 us", ok(abs(r.cwnd_mean_pkt - 1) <= TOL_W_SPECIAL and r.utilization >= UTIL_SPECIAL
                                              and dq <= TOL_Q_SPECIAL),
            packet=f"mean cwnd {r.cwnd_mean_pkt:.4f}, utilization {_pct(r.utilization, 3)}, queueing delay "
                   f"{_us(r.q_delay_packet_s)} ({100 * dq:.1f} % from Q*)",
            fluid=f"{_us(r.q_delay_fluid_s)} at p = 0.95, {_us(r.q_delay_fluid_p_sim_s)} at the simulated p",
            theory=f"W* = seg, Q* = {_us(r.q_star_s)}",
            detail=f"criteria: mean cwnd within {100 * TOL_W_SPECIAL:.0f} % of 1, utilization >= "
                   f"{100 * UTIL_SPECIAL:.1f} %, queueing delay within {100 * TOL_Q_SPECIAL:.0f} % of Q*; {R0_PATH}"))
    claims.append(Claim(
        "(check) the special stable state holds at every point: windows at one segment, link busy", "—",
        f"mean cwnd {df.cwnd_mean_pkt.min():.4f}-{df.cwnd_mean_pkt.max():.4f}; utilization >= "
        f"{_pct(df.utilization.min(), 3)}",
        ok(bool(((df.cwnd_mean_pkt - 1).abs() <= TOL_W_SPECIAL).all() and (df.utilization >= UTIL_SPECIAL).all())),
        R0_PATH, kind=CHECK))
    err_m = (df.q_delay_packet_min_s - df.q_star_s).abs()
    claims.append(Claim(
        "(dcsim) Theorem 2 with DX's own estimator (R0 = min RTT seen), flows started one packet time apart", "—",
        f"mean cwnd {df.cwnd_mean_min_pkt.min():.4f}-{df.cwnd_mean_min_pkt.max():.4f} (largest flow mean "
        f"{df.cwnd_max_flow_min_pkt.max():.3f}); utilization >= {_pct(df.utilization_min.min(), 3)}; queueing delay "
        + ", ".join(f"{1e6 * q:.2f}" for q in df.q_delay_packet_min_s) + " us",
        ok(bool(((df.cwnd_mean_min_pkt - 1).abs() <= TOL_W_SPECIAL).all() and (df.utilization_min >= UTIL_SPECIAL).all()
                and (err_m <= allowed).all())),
        f"R0 = \"min\", stagger {stagger_for('min')}: every flow's first packet sees the empty network until the "
        "aggregate exceeds the pipe (module docstring); same criteria as with R0 known", kind=CHECK))
    return ExperimentResult("dx-fig5", "DX Fig. 5: queueing delay in the special stable state", claims, [png, csv])


# ---------------------------------------------------------------------------------------------
# Fig. 6: CDF of the queue size for several base RTTs
# ---------------------------------------------------------------------------------------------

FIG6_R0_US = (20, 40, 60, 80, 120, 200)
FIG6_R0_US_QUICK = (20, 80)


@experiment("dx-fig6", "DX Fig. 6: CDF of the queue size for several base RTTs (N = 50)", PAPER)
def run_fig6(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    duration, warmup = durations(quick)
    R0s = FIG6_R0_US_QUICK if quick else FIG6_R0_US
    base = scenario(50, 80e-6, duration_s=duration, warmup_s=warmup, queue_interval_s=1e-3, cwnd_interval_s=1e-3)
    t, sres = run_sweep(out_dir, "fig6", base, {"network.rtt": [rtt_str(r) for r in R0s]}, tables=True)
    t = t.assign(R0_us=r0_us_of(t)).sort_values("R0_us")
    p_sim = flow_stat(t, "p_decrease")
    pts = [(50, C_BPS, r * 1e-6) for r in R0s]
    fl = fluid_points(pts, duration, warmup, series=True)
    fl_psim = fluid_points(pts, duration, warmup, p=list(p_sim), series=True)
    cdfs, rows, fcdfs = [], [], []
    for R0, rid, f, fp, p in zip(R0s, t.run_id, fl, fl_psim, p_sim):
        res = sres.result(rid)
        mon = res.monitored_ports().iloc[0]
        h = res.queue_hist[res.queue_hist.port == mon.port].sort_values("q_pkt")
        c = h.assign(R0_us=R0, cdf=h.frac.cumsum())[["R0_us", "q_pkt", "frac", "cdf"]]
        cdfs.append(c)
        qs = q_star_s(50, C_BPS, R0 * 1e-6) * capacity_pps(C_BPS, SEG_BYTES)
        # the fluid model's queue distribution over time (uniform samples after warm-up)
        fq = {k: np.sort(x["series"].q_pkt.to_numpy()) for k, x in (("f", f), ("fp", fp))}
        for src, q in fq.items():
            fcdfs.append(pd.DataFrame(dict(R0_us=R0, p=P_FLUID if src == "f" else p, q_pkt=q,
                                           cdf=np.arange(1, len(q) + 1) / len(q))))
        rows.append(dict(R0_us=R0, q_min_pkt=float(mon.q_min_pkt), q_p50_pkt=float(mon.q_p50_pkt),
                         q_p99_pkt=float(mon.q_p99_pkt), q_mean_pkt=float(mon.q_mean_pkt),
                         frac_le_30=float(h[h.q_pkt <= 30].frac.sum()), frac_empty=float(h[h.q_pkt == 0].frac.sum()),
                         p_packet=p, q_star_pkt=qs, state=theory_state(50, C_BPS, R0 * 1e-6),
                         fluid_q_min_pkt=float(fq["f"][0]), fluid_q_p50_pkt=float(np.median(fq["f"])),
                         fluid_q_p99_pkt=float(np.quantile(fq["f"], 0.99)), fluid_q_mean_pkt=f["q_mean_pkt"],
                         fluid_frac_empty=float(np.mean(fq["f"] <= 1e-9)),
                         fluid_frac_le_30=float(np.mean(fq["f"] <= 30)),
                         fluid_p_sim_q_p50_pkt=float(np.median(fq["fp"])),
                         fluid_p_sim_q_p99_pkt=float(np.quantile(fq["fp"], 0.99)),
                         fluid_p_sim_frac_empty=float(np.mean(fq["fp"] <= 1e-9))))
    cd = pd.concat(cdfs, ignore_index=True)
    fcd = pd.concat(fcdfs, ignore_index=True)
    csv3 = out_dir / "dx_fig6_fluid_cdf.csv"
    # thinned to every 10th sample: the fluid series is sampled every R0/40
    fcd[fcd.groupby(["R0_us", "p"]).cumcount() % 10 == 0].to_csv(csv3, index=False)
    st = pd.DataFrame(rows)
    csv = out_dir / "dx_fig6_cdf.csv"
    cd.to_csv(csv, index=False)
    csv2 = out_dir / "dx_fig6_stats.csv"
    st.to_csv(csv2, index=False)

    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for i, (R0, c) in enumerate(cd.groupby("R0_us")):
        color = f"C{i}"
        ax.step(np.r_[0, c.q_pkt], np.r_[0, c.cdf], where="post", color=color, label=f"R0 = {R0} µs")
        fc = fcd[(fcd.R0_us == R0) & (fcd.p == P_FLUID)]
        ax.plot(np.r_[0, fc.q_pkt], np.r_[0, fc.cdf], ":", color=color, lw=1.2)
    ax.plot([], [], "k:", lw=1.2, label="fluid model (p = 0.95), same colours")
    ax.axvline(30, color="gray", ls=":", lw=0.8, label="30 pkt (paper: q > 30 always at R0 = 20 µs)")
    ax.set_xlabel("queue size [packets]")
    ax.set_ylabel("CDF (fraction of time)")
    ax.set_title("Fig. 6: CDF of the queue size, N = 50, C = 10 Gbps (packet simulation, fluid dotted)", fontsize=10)
    ax.set_xlim(0, max(45.0, float(cd.q_pkt.max()) + 2))
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    png = save_figure(fig, out_dir, "dx_fig6.png")

    a = st[st.R0_us == 20].iloc[0]
    # "the larger queue for small R0": medians ordered (non-increasing in R0) over the special-state
    # points and from the special state to the others
    sp, other = st[st.state == "special"], st[st.state != "special"]
    ordered = bool(np.all(np.diff(sp.q_p50_pkt) <= 0)) and (len(other) == 0 or float(sp.q_p50_pkt.min()) >
                                                             float(other.q_p50_pkt.max()))
    claims = [
        instruments("Fig. 6: the queue size is constantly larger than 30 packets when R0 = 20 us", "q > 30 pkt always",
                    ok(a.frac_le_30 == 0.0),
                    packet=f"time fraction with q <= 30 pkt: {a.frac_le_30:.4f}; minimum {a.q_min_pkt:.0f} pkt",
                    fluid=f"time fraction with q <= 30 pkt: {a.fluid_frac_le_30:.4f} (from the empty start's transient "
                          f"only if before warm-up); minimum {a.fluid_q_min_pkt:.2f} pkt (p = 0.95)",
                    theory=f"Q* C/seg = {a.q_star_pkt:.2f} pkt", detail=R0_PATH),
        instruments("Fig. 6: for smaller R0 (special stable state) DX has the larger queue size", "larger for small R0",
                    ok(ordered),
                    packet="median queue " + ", ".join(f"{int(r)} us: {q:.0f}" for r, q in zip(st.R0_us, st.q_p50_pkt))
                           + " pkt",
                    fluid="median queue " + ", ".join(f"{q:.1f}" for q in st.fluid_q_p50_pkt) + " pkt (p = 0.95)",
                    theory="Q* C/seg = " + ", ".join(f"{max(q, 0):.1f}" for q in st.q_star_pkt) + " pkt (0 = not special)",
                    detail=R0_PATH),
    ]
    # The fluid model's distribution beside the packet CDF. Judged where the model has a definite
    # prediction for the packet system, the special state: the fluid model at the simulated p (= 1
    # there) against the packet median, within max(10 % of Q*, one packet) as in dx-fig5.
    if len(sp):
        tol = np.maximum(TOL_Q_SPECIAL * sp.q_star_pkt, 1.0)
        d = (sp.fluid_p_sim_q_p50_pkt - sp.q_p50_pkt).abs()
        claims.append(instruments(
            "(dcsim) Fig. 6: the fluid model's queue distribution in the special stable state", "— (ns-3 only)",
            ok(bool((d <= tol).all())),
            packet="; ".join(f"{int(r.R0_us)} us: median {r.q_p50_pkt:.0f}, p99 {r.q_p99_pkt:.0f} pkt, empty "
                             f"{100 * r.frac_empty:.2f} % of the time" for r in sp.itertuples()),
            fluid="; ".join(f"{int(r.R0_us)} us: median {r.fluid_p_sim_q_p50_pkt:.1f}, p99 {r.fluid_p_sim_q_p99_pkt:.1f} "
                            f"pkt at the simulated p = {r.p_packet:.3f}; {r.fluid_q_p50_pkt:.1f} / "
                            f"{r.fluid_q_p99_pkt:.1f} pkt at p = 0.95" for r in sp.itertuples()),
            theory="; ".join(f"Q* C/seg = {q:.1f} pkt" for q in sp.q_star_pkt),
            detail=_p_one_note(sp.p_packet, "the packet median against Q*") + "medians within max(10 % of Q*, one "
                   "packet); both are point masses at Q* (the packet queue moves by whole packets); at p = 0.95 the "
                   "fluid sits at eq. (7) instead (dx-fig5)", kind=CHECK))
    if len(other):
        tol_o = np.maximum(TOL_Q_SPECIAL * other.fluid_q_p50_pkt, 1.0)
        claims.append(Claim(
            "(dcsim) Fig. 6: the fluid model's queue distribution outside the special state", "—",
            "; ".join(f"{r.R0_us:g} us: packet median {r.q_p50_pkt:.0f}, p99 {r.q_p99_pkt:.0f} pkt, empty "
                      f"{100 * r.frac_empty:.1f} % of the time; fluid (p = 0.95) median {r.fluid_q_p50_pkt:.1f}, "
                      f"p99 {r.fluid_q_p99_pkt:.1f} pkt, empty {100 * r.fluid_frac_empty:.1f} %"
                      for r in other.itertuples()),
            ok(bool(((other.fluid_q_p50_pkt - other.q_p50_pkt).abs() <= tol_o).all())),
            "verdict: medians within max(10 %, one packet) of the fluid's (p = 0.95). The fluid model settles to a point mass at its fixed point q0 (eq. 7; stable by Theorem 1 below 105 us), "
            "the packet queue keeps the limit cycle of the synchronized +N increase (dx-fig2) and is empty for the "
            "part of the time the link idles; a spread distribution cannot match a point mass beyond its median",
            kind=CHECK))
    return ExperimentResult("dx-fig6", "DX Fig. 6: CDF of the queue size", claims, [png, csv, csv2, csv3])


# ---------------------------------------------------------------------------------------------
# Section 4.3: the quoted utilizations, each one measured
# ---------------------------------------------------------------------------------------------

#: (case, N, R0 us, C bit/s, the paper's utilization as printed)
SEC43 = (
    ("vary R0", 50, 20, 10e9, "99.91"), ("vary R0", 50, 120, 10e9, "96.11"), ("vary R0", 50, 320, 10e9, "89.1"),
    ("vary N", 10, 120, 10e9, "94.81"), ("vary N", 50, 120, 10e9, "96.11"), ("vary N", 100, 120, 10e9, "98.53"),
    ("vary C", 50, 120, 1e9, "99.86"), ("vary C", 50, 120, 10e9, "96.11"), ("vary C", 50, 120, 40e9, "86.44"),
)
#: Section 4.3's start patterns (:data:`START_PATTERNS_US`).
SEC43_STAGGERS_US = START_PATTERNS_US
#: Tolerance fixed before the runs: max(1 percentage point, half the range over the start
#: patterns). One point is the smallest difference the paper orders its cases by (94.81 vs 96.11).
TOL_UTIL_PTS = 1.0


def sec43_claims(rows=SEC43) -> list[tuple[tuple[str, ...], int, float, float, str]]:
    """The claims among Section 4.3's quoted utilizations, in the paper's order: (cases, N, R0 us,
    C bit/s, printed), one per point and printed number. The three sweeps share the point N = 50,
    R0 = 120 us, 10 Gbps and print 96.11 % for it in each: one statement, measured by one run, so one
    claim (its cases joined), not three. A point printed with different numbers would stay one claim
    per number."""
    out: dict[tuple, list] = {}
    for case, N, R0, C, printed in rows:
        out.setdefault((N, R0, C, printed), []).append(case)
    return [(tuple(cases), N, R0, C, printed) for (N, R0, C, printed), cases in out.items()]


def sec43_reason(r, d_pts: float) -> str:
    """The most likely reason why a Section 4.3 utilization differs from the paper's, with this run's
    measured limit cycle (period in RTTs, p, idle share, +N step against the pipe)."""
    idle = 100 * (1 - r.util_packet)
    cyc = (f"our run: limit cycle of {r.period_rtt:.1f} RTTs, p = {r.p_packet:.3f} (one increase round in "
           f"{1 / max(1 - r.p_packet, 1e-12):.1f}), link idle {idle:.2f} % of the time, +N step / pipe "
           f"N seg/(C R0) = {r.step_over_pipe:.2f}")
    if r.state in ("special", "boundary") and r.util_packet >= UTIL_SPECIAL:
        return (f"most likely reason: here N seg >= C R0 (Theorem 2, {r.state}): one-segment windows fill the pipe, so "
                f"our link never idles even in the rounds that see the queue drained (Q = 0); the paper's ns-3 run idled {100 - 100 * r.util_paper:.2f} "
                f"% of the time, possibly because its base RTT exceeded R0 (serialisation; then N < C R0/seg); {cyc}")
    if d_pts > 0:
        fluid = ("" if r.util_fluid <= r.util_paper + TOL_UTIL_PTS / 100 else
                 f"; the paper's own fluid model (3)-(4) at p = 0.95 keeps {100 * r.util_fluid:.2f} % here, so Theorem "
                 "1's instability does not by itself explain the paper's loss either")
        return (f"most likely reason: the paper's ns-3 DX loses {d_pts:.1f} points more. Our packet DX oscillates "
                "only by the synchronized increase (all N flows see the empty queue in the same round and add a "
                "segment each); the link idles in that one round per cycle, a loss that does not grow with the "
                "delay, so the packet system does not show Theorem 1's instability "
                f"({r.state} here) as throughput loss{fluid}; {cyc}")
    return (f"most likely reason: our packet DX loses {-d_pts:.1f} points more than the paper's ns-3: the "
            "synchronized increase (+N packets in one round) empties the queue once per cycle, more often than in "
            "the paper's ns-3 DX, whose p was higher (Table 1: 0.91-0.97 at N = 50, R0 = 80-200 us); " + cyc)


@experiment("dx-sec4.3", "DX Section 4.3: utilization vs R0, N and C, measured", PAPER)
def run_sec43(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    duration, warmup = durations(quick)
    points = sorted({(N, R0, C) for _, N, R0, C, _ in SEC43})
    staggers = SEC43_STAGGERS_US[1:2] if quick else SEC43_STAGGERS_US
    base = scenario(50, 120e-6, duration_s=duration, warmup_s=warmup, queue_interval_s=5e-6, cwnd_interval_s=1e-3)
    axes = {"network.rtt, network.senders, flows[0].count, network.bottleneck":
            [[rtt_str(R0, C), N, N, rate_str(C)] for N, R0, C in points],
            "flows[0].stagger": [f"{s}us" for s in staggers]}
    t, sres = run_sweep(out_dir, "sec43", base, axes, tables=True)
    t = t.assign(util=t[f"{PORT}.utilization"], p=flow_stat(t, "p_decrease"), R0_us=r0_us_of(t))
    t = t.join(run_cycles(sres, t, warmup))
    fl = dict(zip(points, fluid_points(list((N, C, R0 * 1e-6) for N, R0, C in points), duration, warmup)))
    meas = {}
    for N, R0, C in points:
        m = t[(t["network.senders"] == N) & (t.R0_us.round() == R0) & (t["network.bottleneck_bps"] == C)]
        meas[(N, R0, C)] = (float(m.util.mean()), float(m.util.max() - m.util.min()), float(m.p.mean()),
                            float(m.period_rtt.mean()), float(m.step_over_pipe.mean()))
    rows = []
    for case, N, R0, C, printed in SEC43:
        u, spread, p, T, step = meas[(N, R0, C)]
        rows.append(dict(case=case, N=N, R0_us=R0, C_Gbps=C / 1e9, util_paper=float(printed) / 100, util_packet=u,
                         util_spread=spread, util_fluid=fl[(N, R0, C)]["util"], p_packet=p, period_rtt=T,
                         step_over_pipe=step, state=theory_state(N, C, R0 * 1e-6)))
    df = pd.DataFrame(rows)
    csv = out_dir / "dx_sec43.csv"
    df.to_csv(csv, index=False)

    fig, axes_ = plt.subplots(1, 3, figsize=(13, 3.8))
    spread = len(staggers) > 1  # bars only where several start patterns ran
    for ax, case, x, xl in zip(axes_, ("vary R0", "vary N", "vary C"), ("R0_us", "N", "C_Gbps"),
                               ("base RTT R0 [µs] (N = 50, 10 Gbps)", "number of flows N (R0 = 120 µs, 10 Gbps)",
                                "bottleneck C [Gbps] (N = 50, R0 = 120 µs)")):
        d = df[df.case == case]
        ax.errorbar(d[x], 100 * d.util_packet, yerr=50 * d.util_spread if spread else None, fmt="o-", color="tab:blue",
                    capsize=3, label="dcsim packet sim" + (f" (bar: {len(staggers)} start patterns)" if spread else ""))
        ax.plot(d[x], 100 * d.util_paper, "s--", color="tab:red", mfc="white", label="paper (ns-3)")
        ax.plot(d[x], 100 * d.util_fluid, "k:", label="fluid model (p = 0.95)")
        ax.set_xlabel(xl)
        ax.set_ylabel("link utilization [%]")
        ax.set_xticks(list(d[x]))
        ax.grid(alpha=0.3)
    handles, labels = axes_[0].get_legend_handles_labels()  # one legend, under the panels (not over points)
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, bbox_to_anchor=(0.5, -0.04))
    fig.suptitle("Section 4.3: utilization against R0, N and C", fontsize=10)
    fig.tight_layout()
    png = save_figure(fig, out_dir, "dx_sec43.png")

    claims: list[Claim] = []
    for cases, N, R0, C, printed in sec43_claims():
        r = next(df[(df.case == cases[0]) & (df.N == N) & (df.R0_us == R0) & (df.C_Gbps == C / 1e9)].itertuples())
        tol = max(TOL_UTIL_PTS, 50 * r.util_spread)
        d_pts = 100 * (r.util_packet - r.util_paper)
        label = {"vary R0": f"R0 = {r.R0_us} us", "vary N": f"N = {r.N}", "vary C": f"C = {r.C_Gbps:g} Gbps"}[r.case]
        where = (f"utilization at {label}" if len(cases) == 1 else
                 f"utilization at the point the {len(cases)} sweeps share, one run")
        claims.append(instruments(
            f"Sect. 4.3 {' / '.join(cases)}: {where} (N = {r.N}, R0 = {r.R0_us} us, C = {r.C_Gbps:g} Gbps)",
            f"{printed} %" + ("" if len(cases) == 1 else f" (printed in each of the {len(cases)})"),
            ok(abs(d_pts) <= tol),
            packet=(f"{100 * r.util_packet:.2f} % (range over {len(staggers)} start patterns "
                    f"{100 * r.util_spread:.2f} points; p = {r.p_packet:.3f})" if len(staggers) > 1 else
                    f"{100 * r.util_packet:.2f} % (one start pattern in --quick: the range over start patterns, "
                    f"half of which may widen the tolerance, is not measured; p = {r.p_packet:.3f})"),
            fluid=_pct(r.util_fluid), theory=r.state,
            detail=f"{d_pts:+.2f} points (tolerance {tol:.2f}); {R0_PATH}"
                   + ("" if abs(d_pts) <= tol else "; " + sec43_reason(r, d_pts))))
    orders = (("vary R0", "R0_us", -1, "the larger R0, the lower the utilization"),
              ("vary N", "N", +1, "the larger N, the higher the utilization"),
              ("vary C", "C_Gbps", -1, "the larger C, the lower the utilization"))
    for case, x, sign, words in orders:
        d = df[df.case == case].sort_values(x)
        u = d.util_packet.to_numpy()
        good = bool(np.all(sign * np.diff(u) > 0))
        claims.append(instruments(
            f"Sect. 4.3 {case}: {words} (Theorem 1)",
            (" < " if sign > 0 else " > ").join(f"{100 * v:.4g}" for v in d.util_paper) + f" % (increasing {x})",
            ok(good), packet=", ".join(f"{100 * v:.2f}" for v in u) + " %",
            fluid=", ".join(f"{100 * v:.2f}" for v in d.util_fluid) + " %",
            theory=", ".join(d.state),
            detail="ordering of the measured means, in the paper's direction; compare the differences with the "
                   f"ranges over start patterns in the rows above; {R0_PATH}"
                   + ("" if good else "; " + cycle_reason(d, x, {"R0_us": "R0", "N": "N", "C_Gbps": "C"}[x],
                                                          {"R0_us": " us", "N": "", "C_Gbps": " Gbps"}[x]))))
    return ExperimentResult("dx-sec4.3", "DX Section 4.3: utilization vs R0, N, C", claims, [png, csv])
