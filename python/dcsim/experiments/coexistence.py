"""Experiments of Irteza et al., "On the Coexistence of Transport Protocols in Data Centers" (Section III, eq. (4), Fig. 1).

* ``coexist-fig1``  T_r = alpha_dctcp (1 - beta_tcp) / (alpha_tcp (1 - beta_dctcp)) vs beta_dctcp in
                    [0.5, 1) (Fig. 1), checked against a direct simulation of two synchronized AIMD flows.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from dcsim.experiments.registry import (DIFFERS, REPRODUCED, Claim, ExperimentResult, experiment, quoted_tolerance,
                                        save_figure, verdict, verdict_quoted, verdict_quoted_range)
from dcsim.theory import aimd

#: The paper (Irteza, Ahmed, Farrukh, Memon, Qazi, LUMS), as the experiments list it.
PAPER_TITLE = "Irteza et al.: On the Coexistence of Transport Protocols in Data Centers"
PAPER = f"{PAPER_TITLE} (Section III)"
TITLE = "AIMD throughput ratio T_r (DCTCP/TCP) vs beta_dctcp (Fig. 1)"


#: RTTs the synchronized AIMD runs (its second half measured); --quick: AIMD_RTTS_QUICK.
AIMD_RTTS = 100_000
AIMD_RTTS_QUICK = 40_000


def synchronized_aimd(beta_dctcp: float, beta_tcp: float = aimd.BETA_TCP, pipe_pkt: float = 2000.0,
                      rtts: int = AIMD_RTTS) -> tuple[float, float]:
    """Two AIMD flows (+1 segment/RTT each) sharing a pipe; both back off whenever the sum exceeds it.

    Returns (ratio of windows at the congestion events, ratio of time-averaged windows), measured over
    the second half of the run.  The model behind eqs. (3)-(4): equal RTTs, synchronized back-off.
    """
    w = np.array([1.0, 1.0])
    betas = np.array([beta_dctcp, beta_tcp])
    peaks, sums = np.zeros(2), np.zeros(2)
    for step in range(rtts):
        w += 1.0
        if w.sum() > pipe_pkt:
            if step >= rtts // 2:
                peaks += w
            w *= betas
        if step >= rtts // 2:
            sums += w
    return float(peaks[0] / peaks[1]), float(sums[0] / sums[1])


@experiment("coexist-fig1", TITLE, PAPER)
def run_fig1(out_dir: Path, quick: bool) -> ExperimentResult:
    """Fig. 1 of the coexistence paper: T_r of eq. (4) over beta_dctcp in [0.5, 0.99]."""
    out_dir = Path(out_dir)
    beta = np.round(np.linspace(0.5, 0.99, 50 if quick else 99), 10)
    tr = aimd.throughput_ratio(beta)
    tr_avg = aimd.throughput_ratio_time_average(beta)
    sim_betas = [0.5, 0.7, 0.9] if quick else [0.5, 0.6, 0.7, 0.8, 0.9, 0.95]
    # (parameters.json lists AIMD_RTTS and AIMD_RTTS_QUICK: a literal 40 000 here had it say 100 000 of a
    # --quick run, a review)
    sim = {b: synchronized_aimd(b, rtts=AIMD_RTTS_QUICK if quick else AIMD_RTTS) for b in sim_betas}
    df = pd.DataFrame({"beta_dctcp": beta, "T_r_eq4": tr, "T_r_time_average": tr_avg})
    df["sim_peak_ratio"] = [sim[b][0] if b in sim else np.nan for b in df.beta_dctcp]
    df["sim_time_average_ratio"] = [sim[b][1] if b in sim else np.nan for b in df.beta_dctcp]
    csv = out_dir / "coexist_fig1.csv"
    df.to_csv(csv, index=False)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.6, 4.2))
    ax.plot(beta, tr, "b-", label="T_r, eq. (4)")
    ax.plot(beta, tr_avg, "g--", lw=1, label="time-averaged ratio, same AIMD")
    sb = np.array(sim_betas)
    ax.plot(sb, [sim[b][0] for b in sim_betas], "ko", mfc="none", label="simulated AIMD, windows at back-off")
    ax.plot(sb, [sim[b][1] for b in sim_betas], "gs", mfc="none", label="simulated AIMD, time average")
    ax.set_xlim(0.5, 1.0)
    ax.set_yscale("log")
    ax.set_xlabel("β_dctcp (DCTCP back-off factor)")
    ax.set_ylabel("throughput ratio T_r (DCTCP/TCP)")
    ax.set_title("α_dctcp = α_tcp = 1, β_tcp = 0.5 (T_r → ∞ as β → 1)", fontsize=9)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    fig.tight_layout()
    png = save_figure(fig, out_dir, "coexist_fig1.png")

    claims = []
    # The simulated AIMD moves in whole segments per RTT: a back-off happens when the sum first exceeds
    # the pipe, i.e. up to 2 segments (one per flow) past it, so the windows at back-off carry an error of
    # up to 2 / pipe_pkt = 1e-3 relative against the continuous model behind (3)-(4).
    # The paper's two statements about T_r are judged on the simulated AIMD (the model behind eqs. (3)-(4),
    # its own instrument); eq. (4) stands beside it. (Until 2026-12-02 both rows evaluated (4) and compared
    # it with its own closed form 0.5/(1 - beta), which cannot fail: a review.)
    AIMD_RESOLUTION = 2.0 / 2000.0
    t05 = aimd.throughput_ratio(0.5)
    v, _ = verdict(1.0, sim[0.5][0], AIMD_RESOLUTION)
    claims.append(Claim("when beta_dctcp = 0.5, T_r is 1 and flows achieve the same throughput", "T_r = 1",
                        f"simulated AIMD at beta_dctcp = 0.5: ratio of windows at back-off {sim[0.5][0]:.5g}, "
                        f"of time-averaged windows {sim[0.5][1]:.5g}; eq. (4): {t05:g}", v,
                        f"reproduced if the simulated ratio is within {AIMD_RESOLUTION:g} (relative) of 1: two flows "
                        "+1 pkt/RTT, both cut when the 2000-pkt pipe overflows, whole segments (alpha_dctcp = "
                        "alpha_tcp = 1, beta_tcp = 0.5)"))
    peaks = [sim[b][0] for b in sim_betas]
    rises = [b2 / b1 - 1 for b1, b2 in zip(peaks, peaks[1:])]
    mono = all(r > 2 * AIMD_RESOLUTION for r in rises)
    claims.append(Claim("as beta_dctcp increases, T_r also increases", "monotone increasing on [0.5, 1)",
                        "simulated AIMD at beta_dctcp = " + ", ".join(f"{b:g}" for b in sim_betas) + ": "
                        + ", ".join(f"{p:.4g}" for p in peaks), REPRODUCED if mono else DIFFERS,
                        f"reproduced if every step up in beta raises the simulated ratio by more than the two points' "
                        f"resolution (2 x {AIMD_RESOLUTION:g} relative; smallest rise {min(rises):.3g}); eq. (4) "
                        f"T_r = 0.5/(1 - beta) goes from {tr[0]:g} (beta = 0.5) to {tr[-1]:g} (beta = 0.99), a pole at "
                        "beta = 1; beta_dctcp = 1 - a/2 (DCTCP marked fraction a) gives T_r = 1/a"))
    worst_peak = max(abs(sim[b][0] - aimd.throughput_ratio(b)) / aimd.throughput_ratio(b) for b in sim_betas)
    v, _ = verdict(1.0, 1.0 + worst_peak, AIMD_RESOLUTION)
    claims.append(Claim("eq. (3)-(4): synchronized AIMD converges to W_ss proportional to alpha_i/(1 - beta_i)",
                        "T_r = alpha_d (1 - beta_t) / (alpha_t (1 - beta_d))",
                        f"simulated ratio of windows at back-off within {worst_peak:.1e} (relative) of (4) at beta = "
                        + ", ".join(f"{b:g}" for b in sim_betas), v,
                        "two flows, +1 pkt/RTT, both multiply by beta_i when the 2000-pkt pipe overflows"))
    b9 = 0.9
    sim_avg = sim[b9][1]  # (a default for .get ran a 100 000-RTT simulation every time, its result unused)
    v, diff = verdict(aimd.throughput_ratio(b9), sim_avg, AIMD_RESOLUTION)  # same resolution as above
    claims.append(Claim("T_r of (4) is 'the ratio of throughput' of the two flows",
                        f"T_r(0.9) = {aimd.throughput_ratio(b9):g}",
                        f"time-averaged throughput ratio {sim_avg:.3g} (simulated), "
                        f"{aimd.throughput_ratio_time_average(b9):.3g} (closed form)", v,
                        f"{diff:.1%} higher: (4) is the ratio of the windows at congestion events; each sawtooth "
                        "averages (1 + beta_i)/2 of its peak, so throughput ratio = T_r (1 + beta_d)/(1 + beta_t)"))
    # Section IV-E: "when the back-off factor is 0.215 (min_th = 40), T_r should be equal to 4.6".
    # Read as DCTCP's alpha = 0.215, i.e. W <- W (1 - 0.215/2), beta_dctcp = 0.8925: T_r = 0.5/0.1075
    # = 4.651. Read as the fraction removed (alpha/2 = 0.215, beta = 0.785), eq. (4) gives 2.33.
    # Judged by the printed digits of both numbers: 0.215 stands for [0.2145, 0.2155], which gives
    # T_r = 1/alpha in [4.640, 4.662]; the printed 4.6 stands for [4.55, 4.65] (verdict_quoted). The
    # claim holds if the two intervals meet.
    backoff = 0.215
    t_alpha = float(aimd.throughput_ratio(1 - backoff / 2))
    t_frac = float(aimd.throughput_ratio(1 - backoff))
    da = quoted_tolerance("0.215")
    lo, hi = (float(aimd.throughput_ratio(1 - a / 2)) for a in (backoff + da, backoff - da))
    v_exact, diff = verdict_quoted("4.6", t_alpha)
    v = verdict_quoted_range("4.6", lo, hi)
    claims.append(Claim("eq. (4): when the back-off factor is 0.215 (min_th = 40), T_r should be equal to 4.6",
                        "T_r = 4.6", f"T_r = {t_alpha:.3f} at alpha = 0.215 ({lo:.3f} .. {hi:.3f} for alpha in "
                        f"[{backoff - da:g}, {backoff + da:g}])", v,
                        f"at alpha = 0.215 exactly T_r = {t_alpha:.4f} rounds to 4.7 ({v_exact}); the printed alpha "
                        f"allows T_r down to {lo:.3f}, which rounds to 4.6. The paper's 'back-off factor' here is "
                        f"DCTCP's alpha (the window is cut by alpha/2, beta_dctcp = {1 - backoff / 2:g}); read as the "
                        f"fraction removed (beta_dctcp = {1 - backoff:g}) eq. (4) gives {t_frac:.2f}, not 4.6"))
    return ExperimentResult("coexist-fig1", TITLE, claims, [png, csv])
