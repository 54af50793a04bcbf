"""Experiments of "Analysis of DCTCP: Stability, Convergence, and Fairness" (Alizadeh, Javanmard,
Prabhakar, SIGMETRICS 2011): Figs. 6-9 (limit cycle of the normalized fluid model) and the
convergence analysis of Section 4 (Hybrid model).

Each experiment writes PNG (axis for axis like the paper's figure) + CSV into ``out_dir`` and
returns the paper's claims with our numbers. All numerics live in :mod:`dcsim.theory.dctcp`.
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from dcsim.experiments.registry import (  # noqa: E402
    CHECK,
    INCONCLUSIVE,
    Claim,
    ExperimentResult,
    check,
    experiment,
    ok,
    quoted_tolerance,
    save_figure,
    verdict,
    verdict_quoted,
)
from dcsim.theory import dctcp as th  # noqa: E402

PAPER = "Alizadeh, Javanmard, Prabhakar: Analysis of DCTCP (SIGMETRICS 2011)"
WBAR_LO, WBAR_HI = 2.01, 1000.0  # Fig. 6 range
G_LO, G_HI = 0.001, 1.0
#: g values of the Fig. 7 / Fig. 8 curves (the paper does not list its values; all g <= 0.01 give
#: one curve, footnote 4), and of Fig. 9.
G_CURVES = (0.01, 0.05, 0.1)
#: Tolerance of the "cycle is reached" checks: the last two periods differ by < 0.1 % in T and x_alpha
#: (LimitCycle.converged). The claims read rho, Q_min, Q_max and throughputs to 3 significant digits
#: (rho's margin below 1 is 0.012 at worst), so a transient of 0.1 % cannot change a verdict.
DRIFT_TOL = 1e-3


def _wbar_grid(n: int, lo: float = WBAR_LO, hi: float = WBAR_HI) -> np.ndarray:
    return np.logspace(math.log10(lo), math.log10(hi), n)


# ---------------------------------------------------------------------------------------------
# Fig. 6: rho(Z1 Z2) over (g, wbar)
# ---------------------------------------------------------------------------------------------


def fig6_grid(n_g: int, n_w: int) -> pd.DataFrame:
    """rho(Z1 Z2) (Theorem 1) on a log grid g in [0.001, 1] x wbar in [2.01, 1000]."""
    gs = np.logspace(math.log10(G_LO), math.log10(G_HI), n_g)
    ws = _wbar_grid(n_w)
    G, Wb = np.meshgrid(gs, ws, indexing="ij")
    cycles = th.limit_cycles(Wb.ravel(), G.ravel())
    rows = []
    for c in cycles:
        P = th.poincare_jacobian(c)
        rows.append(dict(g=c.g, wbar=c.wbar, rho=P.rho, rho_paper_formula=P.rho_paper, T=c.T, drift=c.drift))
    return pd.DataFrame(rows)


#: Agreement asked of a spectral radius computed another way: the exact rho matches the
#: finite-difference Poincare map's to 1e-3 relative (tests/test_theory_dctcp.py), so a printed
#: formula that differs from it by more than this is not the same quantity.
RHO_TOL = 1e-3


@experiment("dctcp-fig6", "Limit cycle stability: rho(Z1 Z2) over g and wbar (Theorem 1, Fig. 6)", PAPER)
def run_fig6(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    n = 6 if quick else 30
    df = fig6_grid(n, n)
    csv = out_dir / "fig6_rho.csv"
    df.to_csv(csv, index=False)

    from mpl_toolkits.mplot3d import Axes3D  # noqa: F401

    fig = plt.figure(figsize=(6.5, 5))
    ax = fig.add_subplot(projection="3d")
    G = np.log10(df["g"].to_numpy().reshape(n, n))
    Wb = np.log10(df["wbar"].to_numpy().reshape(n, n))
    R = df["rho"].to_numpy().reshape(n, n)
    ax.plot_surface(G, Wb, R, cmap="viridis", edgecolor="k", linewidth=0.2)
    from matplotlib.ticker import FixedLocator, FuncFormatter

    decade = FuncFormatter(lambda v, _: f"$10^{{{v:g}}}$")  # the axes are log10: label them as values
    ax.xaxis.set_major_locator(FixedLocator([-3, -2, -1, 0]))
    ax.yaxis.set_major_locator(FixedLocator([0.5, 1, 2, 3]))
    ax.xaxis.set_major_formatter(decade)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{round(10 ** v, 2):g}"))
    ax.set_xlabel("g (log scale)")
    ax.set_ylabel("w̄ = (Cd+K)/N [packets] (log scale)")
    ax.set_zlabel("ρ(Z1 Z2)")
    ax.set_zlim(0, 1)
    ax.set_title(f"Fig. 6: limit cycle stability (Theorem 1), {n} x {n} grid")
    png = save_figure(fig, out_dir, "fig6_rho.png")

    rmax = float(df["rho"].max())
    i = int(df["rho"].idxmax())
    pmax = float(df["rho_paper_formula"].max())
    gap = float((df["rho_paper_formula"] - df["rho"]).abs().max())
    claims = [
        Claim("rho(Z1 Z2) < 1 for g in [0.001, 1], wbar in [2.01, 1000] (limit cycle locally stable)",
              "rho < 1 everywhere", f"max rho = {rmax:.4f} at g = {df.g[i]:.3g}, wbar = {df.wbar[i]:.3g} pkt "
              f"({n}x{n} log grid)", ok(rmax < 1),
              "Z1, Z2 from the variational equation along the cycle; checked against a finite-difference "
              "Poincare map in tests"),
        Claim("Theorem 1's Z1, Z2 as printed, exp(int J_F ds), give the Poincare map's Jacobian",
              "Z = exp(int J_F ds) (Theorem 1)",
              f"max |rho(printed Z1 Z2) - rho(exact)| = {gap:.3g} over the grid", ok(gap <= RHO_TOL),
              "exp(int J) equals the transition matrix only if the J_F(s) commute; they do not, so the printed "
              f"Z1 Z2 is not the Poincare Jacobian. Allowed: {RHO_TOL:g} (RHO_TOL: how closely the exact rho "
              "matches a finite-difference Poincare map in tests/test_theory_dctcp.py)"),
        check("(dcsim) with the printed Z1 Z2, rho < 1 still holds everywhere (Fig. 6's conclusion)",
              f"max rho with the printed form = {pmax:.4f}", pmax < 1,
              "the theorem's conclusion does not depend on the printed form's error on this grid"),
        check("the cycle is reached (numerics)", f"max drift over the last period = {df.drift.max():.2g}",
              float(df.drift.max()) < DRIFT_TOL,
              f"relative change of T and x_alpha between the last two periods; tolerance {DRIFT_TOL:g} (DRIFT_TOL)"),
    ]
    return ExperimentResult("dctcp-fig6", "Limit cycle stability (Fig. 6)", claims, [png, csv])


# ---------------------------------------------------------------------------------------------
# Fig. 7 and Fig. 8: Q_min, Q_max and period vs wbar
# ---------------------------------------------------------------------------------------------


def fig7_curves(gs=G_CURVES, n_w: int = 40, wbar_hi: float = WBAR_HI) -> pd.DataFrame:
    """Limit cycle Q_min, Q_max, period T for each g over a log grid of wbar (Figs. 7, 8)."""
    ws = _wbar_grid(n_w, WBAR_LO, wbar_hi)
    W_all = np.tile(ws, len(gs))
    g_all = np.repeat(np.asarray(gs, dtype=float), len(ws))
    cycles = th.limit_cycles(W_all, g_all)
    return pd.DataFrame([dict(g=c.g, wbar=c.wbar, Q_min=c.Q_min, Q_max=c.Q_max, T=c.T, throughput=c.throughput,
                              drift=c.drift) for c in cycles])


def _worst_wbar(g: float, lo: float = 8.0, hi: float = 20.0, n: int = 49) -> tuple[float, float]:
    """The wbar of the largest undershoot (lowest Q_min) and that Q_min, for one g.

    Q_min(wbar) is flat near its minimum (it varies by < 0.004 over 8-20 pkt), so a coarse grid cannot
    place it: we evaluate 49 log-spaced points on [8, 20] pkt (2 % apart) and refine the minimum by
    the parabola through the lowest sample and its neighbours (in log wbar).
    """
    ws = _wbar_grid(n, lo, hi)
    q = np.array([c.Q_min for c in th.limit_cycles(ws, [g] * len(ws))])
    k = int(np.argmin(q))
    if not 0 < k < n - 1:
        return float(ws[k]), float(q[k])  # minimum at an end of the interval: report the end
    x = np.log(ws[k - 1:k + 2])
    a, b, c = np.polyfit(x, q[k - 1:k + 2], 2)
    x0 = -b / (2 * a)
    return float(np.exp(x0)), float(c - b * b / (4 * a))


def _where_K_falls_short(gs, qmins) -> str:
    """Where 0.17 C d stops sufficing as g grows: the g at which the worst undershoot needs K =
    0.17 C d, by root-finding on :func:`_worst_wbar` between the curves' g values that bracket it
    (to 0.002 in g), or what the curves show if none does. (The text had said "~0.06", computed
    nowhere: the crossing is at g ~ 0.073, an independent recomputation.)"""
    from scipy.optimize import brentq

    need = [th.K_from_Q_min(q, 1.0) - th.K_COEFF for q in qmins]
    for (g0, n0), (g1, n1) in zip(zip(gs, need), zip(gs[1:], need[1:])):
        if n0 <= 0 < n1:
            g_star = brentq(lambda g: th.K_from_Q_min(_worst_wbar(g)[1], 1.0) - th.K_COEFF, g0, g1, xtol=2e-3)
            return f"0.17 C d falls short from g ~ {g_star:.3f} (the worst undershoot then needs more)"
    return ("0.17 C d suffices at every g shown" if all(n <= 0 for n in need) else
            "0.17 C d falls short at every g shown")


#: Fig. 7 observation (ii): the worst-case wbar "about 12-16 packets" (Section 3.3.1).
WORST_WBAR_PAPER = ("12", "16")


@experiment("dctcp-fig7", "Queue undershoot and overshoot Q_min, Q_max vs wbar (Fig. 7)", PAPER)
def run_fig7(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    df = fig7_curves(n_w=12 if quick else 40)
    csv = out_dir / "fig7_queue.csv"
    df.to_csv(csv, index=False)

    gs = sorted(df.g.unique())
    worst = {g: _worst_wbar(g) for g in gs}

    fig, ax = plt.subplots(figsize=(6, 4.2))
    for g, d in df.groupby("g"):
        (line,) = ax.semilogx(d.wbar, d.Q_max, "-", label=f"g = {g:g}")
        ax.semilogx(d.wbar, d.Q_min, "--", color=line.get_color())
        ax.plot(*worst[g], "v", color=line.get_color(), ms=5)
    ax.axvspan(12, 16, color="gray", alpha=0.15, label="paper: worst w̄ 12-16")
    ax.axhline(th.Q_MIN_PAPER, color="gray", lw=0.8, ls=":", label=f"paper: worst undershoot {th.Q_MIN_PAPER:g}")
    ax.axhline(0, color="k", lw=0.5)
    ax.set_xlabel("w̄ = (Cd+K)/N [packets]")
    ax.set_ylabel("normalized queue q̃ = (q−K)/(C R*)")
    ax.set_title("Fig. 7: queue undershoot (Q_min, dashed; ▼ worst w̄) and overshoot (Q_max, solid)", fontsize=10)
    ax.legend()
    png = save_figure(fig, out_dir, "fig7_queue.png")

    def rel_spread(col: str) -> float:
        piv = df[df.wbar >= 3].pivot(index="wbar", columns="g", values=col)
        return float(((piv.max(axis=1) - piv.min(axis=1)) / piv.abs().max(axis=1)).max())

    spread, spread_min = rel_spread("Q_max"), rel_spread("Q_min")
    mono = all(bool(np.all(np.diff(df[(df.g == g) & (df.wbar >= 3)].sort_values("wbar").Q_max.to_numpy()) < 0))
               for g in gs)
    w_peak = {g: float(df[df.g == g].sort_values("Q_max").wbar.iloc[-1]) for g in gs}
    worst_w = [w for w, _ in worst.values()]
    # (ii): the paper prints whole packets, "12-16": our wbar must round into that range (+-0.5 pkt)
    lo_tol, hi_tol = (float(x) for x in WORST_WBAR_PAPER)
    w_lo, w_hi = lo_tol - 0.5, hi_tol + 0.5
    q_at_12 = {g: float(th.limit_cycle(12.0, g).Q_min) for g in gs}
    g_small = gs[0]
    qmin_small = min(float(df[df.g == g_small].Q_min.min()), worst[g_small][1])
    K_needed = th.K_from_Q_min(qmin_small, 1.0)  # as a fraction of Cd
    qmins = [min(float(df[df.g == g].Q_min.min()), worst[g][1]) for g in gs]
    claims = [
        # (i) "not sensitive to g" is the paper's contrast with (iii) "undershoot increases with g": no
        # number is given, so the criterion is that contrast: a 10x change of g moves Q_max (relatively)
        # less than it moves Q_min.
        Claim("(i) queue overshoot is not sensitive to g", "Q_max curves coincide",
              f"g = {', '.join(f'{g:g}' for g in gs)} changes Q_max by at most {100 * spread:.1f} % "
              f"(Q_min by up to {100 * spread_min:.0f} %), wbar >= 3 pkt",
              ok(spread < spread_min),
              "reproduced if Q_max changes less than Q_min across the g curves (the paper's contrast of (i) "
              "with (iii))"),
        # wbar in (2, 3) is the edge where the fixed point at wbar = 2 is approached: the undershoot
        # Q_min -> 0 and the period grows without bound while Q_max stays near 0.3 C R* (a review:
        # 0.305 at 2.01, 0.298 at 2.0001, periods 54 and 144 R*); the paper's trend is tested above it,
        # the edge is a separate check below.
        Claim("(i) overshoot increases as wbar decreases", "Q_max decreasing in wbar",
              ("monotone decreasing for wbar >= 3 pkt" if mono else "not monotone for wbar >= 3 pkt"), ok(mono),
              "on the figure's grid, wbar >= 3 pkt"),
        check("(edge) overshoot as wbar -> 2", "Q_max peaks at wbar = " + ", ".join(f"{w:.2f} pkt (g = {g:g})"
                                                                              for g, w in w_peak.items())
              + " and falls towards wbar = 2", all(w < 3 for w in w_peak.values()),
              "as wbar -> 2 the undershoot Q_min -> 0 and the cycle's period grows without bound, while Q_max "
              "stays near 0.3 C R*, a few per cent below its peak (the overshoot falls only slightly; the grid's "
              "lowest wbar may hold the peak itself); the paper does not mention this edge; passes if the peak lies "
              "below 3 pkt, outside the claim's range"),
        Claim("(ii) worst-case wbar (largest undershoot) about 12-16 packets", "12-16 pkt",
              ", ".join(f"g={g:g}: {w:.2f} pkt (Q_min {q:.4f} x C R*)" for g, (w, q) in worst.items()),
              ok(all(w_lo <= w <= w_hi for w in worst_w)),
              f"argmin of Q_min on 49 points in [8, 20] pkt refined by a parabola; reproduced if it rounds into "
              f"the paper's 12-16 (whole packets: {w_lo:g}-{w_hi:g}). The minimum is flat: Q_min at 12 pkt is "
              + ", ".join(f"{q_at_12[g] - q:.4f}" for g, (_, q) in worst.items()) + " above it"),
        Claim("(iii) undershoot grows with g", "|Q_min| increasing in g",
              ", ".join(f"g={g:g}: {q:.3f}" for g, q in zip(gs, qmins)),
              ok(bool(np.all(np.diff(qmins) < 0)))),
        # a bound, not a printed value: checked as stated
        Claim("Q_min >~ -0.15 for small g", ">= -0.15", f"min Q_min at g = {g_small:g}: {qmin_small:.4f}",
              ok(qmin_small >= th.Q_MIN_PAPER)),
        # (17) is derived from the bound Q_min >~ -0.15: the guideline is reproduced if it suffices, i.e. our
        # K needed for no underflow at small g is at most 0.17 C d
        Claim("K ~ 0.17 C d avoids underflow for small g (eq. 17)", "0.17 C d",
              f"K > |Q_min|/(1-|Q_min|) C d = {K_needed:.3f} C d needed at g = {g_small:g}; "
              + ", ".join(f"g={g:g}: {th.K_from_Q_min(q, 1.0):.3f}" for g, q in zip(gs, qmins)),
              ok(K_needed <= th.K_COEFF),
              f"reproduced if 0.17 C d suffices at g = {g_small:g} (i.e. |Q_min| <= 0.17/1.17 = 0.145: nearly the "
              f"test of the row above, from which the paper derives (17)); the exact need is "
              f"{100 * (th.K_COEFF - K_needed) / th.K_COEFF:.0f} % below 0.17 (the paper rounds Q_min to -0.15: "
              f"0.176 C d); {_where_K_falls_short(gs, qmins)}"),
        _worked_example(),
        check("the cycle is reached (numerics)", f"max drift = {df.drift.max():.2g}", float(df.drift.max()) < DRIFT_TOL,
              f"tolerance {DRIFT_TOL:g} (DRIFT_TOL)"),
    ]
    return ExperimentResult("dctcp-fig7", "Queue undershoot and overshoot (Fig. 7)", claims, [png, csv])


def _worked_example() -> Claim:
    """Sect. 1.2's example of the guidelines (1)-(2): "when C = 10Gbps and d = 300us, assuming 1500Byte
    packets, K needs to be about 42 packets and 0.02 <~ g <~ 0.06" (an audit: no row had it). Each number
    evaluated from (1) and (2) (= (17), (27)) and judged to the precision the paper prints it: half a unit of
    its last digit (registry.quoted_tolerance); 0.17 C d = 42.5 packets lies on the edge of "42", a paper that
    truncates to whole packets."""
    gl = th.guidelines(10e9, 300e-6)
    nums = (("K", "42", gl.K_guideline_pkt, " pkt"), ("g_min = 5/(Cd + K)", "0.02", gl.g_min, ""),
            ("g_max = 1/sqrt(Cd + K)", "0.06", gl.g_max, ""))
    good = all(abs(x - float(p)) <= quoted_tolerance(p) * (1 + 1e-9) for _, p, x, _ in nums)
    return Claim("Sect. 1.2: C = 10 Gbps, d = 300 us, 1500 B: K about 42 packets and 0.02 <~ g <~ 0.06 (eqs. 1-2)",
                 "K ~ 42 pkt, 0.02 <~ g <~ 0.06",
                 "; ".join(f"{name} = {x:.4g}{u}" for name, _, x, u in nums) + f" (C d = {gl.Cd_pkt:.4g} pkt)",
                 ok(good), "each evaluated from (1) and (2) and judged to half a unit of its last printed digit "
                           "(42 +- 0.5 pkt, 0.02 +- 0.005, 0.06 +- 0.005)")


@experiment("dctcp-fig8", "Limit cycle period vs wbar (Fig. 8)", PAPER)
def run_fig8(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    df = fig7_curves(n_w=12 if quick else 40)
    csv = out_dir / "fig8_period.csv"
    df[["g", "wbar", "T", "drift"]].to_csv(csv, index=False)

    fig, ax = plt.subplots(figsize=(6.5, 4.4))
    colors = {}
    for g, d in df.groupby("g"):
        line, = ax.loglog(d.wbar, d["T"], "-o", ms=3, label=f"g = {g:g}")
        colors[g] = line.get_color()
    ws = np.sort(df.wbar.unique())
    saw = np.array([th.sawtooth_period_rtt(w) for w in ws])
    ax.loglog(ws, saw, "k:", label="Sawtooth [1]: (w̄+1)√(2/w̄)/2")
    ax.set_xlabel("w̄ = (Cd+K)/N [packets]")
    ax.set_ylabel("period T [units of R* = d + K/C]")
    ax.set_title("Fig. 8: limit cycle period of oscillations", fontsize=10)

    claims = []
    gs = sorted(df.g.unique())
    # "The figure suggests that the period grows as sqrt(wbar) (for small g)": a statement of growth
    # read off the figure, so it is judged inside the figure's range, where it is steepest: the local
    # exponent d ln T / d ln wbar over the figure's top octave [WBAR_HI/2, WBAR_HI] at the smallest g.
    # The exponent is printed to one decimal, 0.5: reproduced if it rounds to it (+-0.05). (Until
    # 2026-11-30 it was judged over the octave ending at wbar = 1/g^2 = 10^4, beyond the figure, where
    # it is 0.49: that is now an (edge) check. Over the figure's range the exponent rises with wbar,
    # 0.14 near 10 to 0.43 near 1000, as T = 2 + h_alpha + h_beta carries the two fixed delays; a pure
    # power law over [10, 1000] fits ~0.33.)
    fig_top = th.limit_cycles([WBAR_HI / 2, WBAR_HI], [min(G_CURVES)] * 2)
    k_fig_top = math.log(fig_top[1].T / fig_top[0].T) / math.log(2.0)
    tops = [1.0 / g ** 2 for g in gs]
    top_cycles = th.limit_cycles([w for t in tops for w in (t / 2, t)], [g for g in gs for _ in (0, 1)])
    for i, g in enumerate(gs):
        lo_c, hi_c = top_cycles[2 * i], top_cycles[2 * i + 1]
        k_top = math.log(hi_c.T / lo_c.T) / math.log(2.0)
        # the octave ending at 1/g^2 (beyond the figure's w̄ for small g), hollow diamonds
        ax.loglog([tops[i] / 2, tops[i]], [lo_c.T, hi_c.T], "--D", color=colors[g], mfc="none", ms=5, lw=0.8,
                  label="octave ending at w̄ = 1/g² (edge check)" if i == 0 else None)
        if g == min(gs):
            ref = np.array([10.0, tops[i]])
            ax.loglog(ref, hi_c.T * np.sqrt(ref / tops[i]), color="0.6", lw=0.8, ls="-.", label="slope √w̄")
        d = df[(df.g == g) & (df.wbar >= 10) & (df.wbar <= min(WBAR_HI, tops[i]) * 1.0001)]
        k_fig = float(np.polyfit(np.log(d.wbar), np.log(d["T"]), 1)[0]) if len(d) >= 2 else float("nan")
        v, _ = verdict_quoted("0.5", k_top)
        ours = (f"local exponent {k_top:.3f} over wbar {tops[i] / 2:.0f} -> {tops[i]:.0f} pkt (T = {lo_c.T:.1f} -> "
                f"{hi_c.T:.1f} R*, T/sqrt(wbar) = {hi_c.T / math.sqrt(tops[i]):.3f}); over [10, {min(WBAR_HI, tops[i]):.0f}] "
                f"pkt a power law fits wbar^{k_fig:.3f}")
        detail = ("exponent of growth at the top of the small-g range (wbar = 1/g^2, eq. (18)); reproduced if it "
                  "rounds to 0.5 (+-0.05); Sawtooth [1]: T ~ 0.71 sqrt(wbar)"
                  + ("" if hi_c.converged and lo_c.converged else "; a cycle there did not converge"))
        if g == min(G_CURVES):  # the paper's "small g" (footnote 4: all g <= 0.01 give one curve)
            vf, _ = verdict_quoted("0.5", k_fig_top)
            claims.append(Claim(
                f"period grows as sqrt(wbar) for small g; g = {g:g}", "T ~ sqrt(wbar) (in the figure)",
                f"local exponent {k_fig_top:.3f} over the figure's top octave, wbar {WBAR_HI / 2:.0f} -> "
                f"{WBAR_HI:.0f} pkt (T = {fig_top[0].T:.1f} -> {fig_top[1].T:.1f} R*); a power law over "
                f"[10, {WBAR_HI:.0f}] fits wbar^{k_fig:.3f}", vf,
                "judged inside the figure, where its slope is steepest; reproduced if the exponent rounds to 0.5 "
                "(+-0.05). The growth approaches sqrt(wbar) only beyond the figure: see the (edge) row at 1/g^2"
                + ("" if fig_top[0].converged and fig_top[1].converged else "; a cycle there did not converge")))
            claims.append(check(f"(edge) period vs wbar beyond the figure, up to wbar = 1/g^2; g = {g:g}", ours,
                                v == "reproduced", detail, paper="T ~ sqrt(wbar)"))
        else:
            claims.append(check(f"(edge) period vs wbar at larger g = {g:g}", ours, v == "reproduced",
                                detail + f"; g = {g:g} is 'small' only up to wbar = {tops[i]:.0f}", paper="T ~ sqrt(wbar)"))
    ax.legend(fontsize=8)
    png = save_figure(fig, out_dir, "fig8_period.png")
    return ExperimentResult("dctcp-fig8", "Limit cycle period (Fig. 8)", claims, [png, csv])


# ---------------------------------------------------------------------------------------------
# Fig. 9: worst-case throughput vs psi
# ---------------------------------------------------------------------------------------------


#: Points of the refinement of Fig. 9's worst wbar at psi = 0, between the coarse minimum's neighbours.
WORST_REFINE = 13


def _refined_worst_wbar(wb: np.ndarray, w_coarse: float, g: float) -> float:
    """The wbar of the lowest throughput at psi = 0 (K = 0), refined: the coarse grid's minimum
    ``w_coarse`` and its neighbours span WORST_REFINE log-spaced points, and the lowest of those
    is taken (the coarse grid of --quick is 65 % apart)."""
    k = int(np.argmin(np.abs(np.asarray(wb) - w_coarse)))
    lo, hi = float(wb[max(k - 1, 0)]), float(wb[min(k + 1, len(wb) - 1)])
    fine = th.worst_case_throughput([0.0], g, _wbar_grid(WORST_REFINE, lo, hi))
    return float(fine.wbar_worst.iloc[0])


@experiment("dctcp-fig9", "Worst-case throughput vs psi = K/(Cd) (Fig. 9)", PAPER)
def run_fig9(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    # Fig. 9's axis starts at psi = 0 (K = 0: the queue's floor is the marking threshold)
    psis = np.array([0.0, 0.01, 0.05, 0.1, 0.17, 0.25]) if quick else np.concatenate(
        [[0.0, 0.001, 0.003], np.linspace(0.01, 0.3, 30)])
    wb = _wbar_grid(8 if quick else 24, 3.0, 100.0)
    frames = [th.worst_case_throughput(psis, g, wb) for g in G_CURVES]
    df = pd.concat(frames, ignore_index=True)
    csv = out_dir / "fig9_throughput.csv"
    df.to_csv(csv, index=False)

    fig, ax = plt.subplots(figsize=(6, 4.2))
    for g, d in df.groupby("g"):
        ax.plot(d.psi, 100 * d.throughput, "-o", ms=3, label=f"g = {g:g}")
    ax.axhline(94, color="gray", ls=":", lw=0.8, label="94 % (the paper's reading)")
    ax.set_xlim(left=0)
    ax.set_xlabel("ψ = K/(C d)  (≈ average queueing delay / d)")
    ax.set_ylabel("worst-case throughput [% of C]")
    ax.set_title("Fig. 9: worst case throughput vs delay", fontsize=10)
    ax.legend()
    png = save_figure(fig, out_dir, "fig9_throughput.png")

    g_small = G_CURVES[0]
    d_small = df[df.g == g_small]
    full = d_small[d_small.psi >= 0.17]
    thr_full = float(full.throughput.min())
    touching = d_small[d_small.floor_gap <= 0]
    psi_full = float(touching.psi.max()) if len(touching) else float("nan")
    # "for g < 0.1" reaches up to 0.1, and the worst case falls as g grows (93.85 % at 0.1 against
    # 94.08 % at 0.05; an independent recomputation found it below 94 % unrounded from g ~ 0.073; with
    # only 0.01 and 0.05 the claim was judged on its easy part). The bound is judged inside the range:
    # on the curves with g < 0.1 and at G_INSIDE, the largest g below 0.1 on a 0.01 grid, at psi = 0
    # (the worst psi: the throughput rises with psi); the g = 0.1 curve is shown beside it (until
    # 2026-12-02 it was judged on g = 0.1, which "g < 0.1" excludes: a review).
    G_INSIDE = 0.09
    inside = th.worst_case_throughput([0.0], G_INSIDE, wb)
    below_g = pd.concat([df[df.g < 0.1], inside], ignore_index=True)
    thr_min = float(below_g.throughput.min())
    j = int(below_g.throughput.idxmin())
    thr_01 = float(df[df.g == 0.1].throughput.min()) if (df.g == 0.1).any() else float("nan")
    w_small = {g: _refined_worst_wbar(wb, float(df[df.g == g].sort_values("psi").wbar_worst.iloc[0]), g)
               for g in G_CURVES}
    # "at least 94 %" is a bound the paper states over g < 0.1: checked as stated, as Fig. 10's
    # "> 94 %" is (it had passed by rounding, ">= 93.5 %", at 93.83-93.85 %: an audit, against the
    # rule of registry.quoted_tolerance, rounding for printed values, never for bounds). "10-20
    # packets" is a printed reading: reproduced if ours rounds into it (9.5-20.5 pkt); 100 %
    # throughput is exact (see below)
    v94 = "reproduced" if 100 * thr_min >= 94 else "differs"
    step = float(wb[1] / wb[0])
    claims = [
        # Exact criterion: a cycle that never reaches the floor q = 0 has throughput exactly 1 (integrate
        # (13) over a period); floor_gap = min over wbar of Q_min + psi/(1+psi) > 0 says it never does.
        Claim("100 % throughput for psi >~ 0.17 (small g)", ">= 100 % at psi >= 0.17",
              f"g = {g_small:g}: min over psi >= 0.17 = {100 * thr_full:.3f} %; no cycle reaches the floor q = 0 for "
              f"psi >= {float(d_small[d_small.psi > (psi_full if math.isfinite(psi_full) else -1)].psi.min()):.3g}",
              ok(bool((full.floor_gap > 0).all())),
              "reproduced if no limit cycle (wbar in [3, 100] pkt) touches the floor at psi >= 0.17: then the "
              "throughput is exactly 100 % by (13); largest psi with floor contact: "
              + (f"{psi_full:.3g}" if math.isfinite(psi_full) else "none")),
        Claim("throughput always >= 94 % for g < 0.1", ">= 94 %",
              f"min over psi in [{psis.min():g}, {psis.max():g}], wbar in [3, 100] pkt, g in "
              f"{{{', '.join(f'{g:g}' for g in G_CURVES if g < 0.1)}}}: {100 * df[df.g < 0.1].throughput.min():.2f} %; "
              f"g = {G_INSIDE:g} at psi = 0: {100 * float(inside.throughput.min()):.2f} %; worst {100 * thr_min:.2f} % "
              f"(g = {below_g.g[j]:g}, psi = {below_g.psi[j]:g}, wbar = {below_g.wbar_worst[j]:.1f} pkt); the g = 0.1 "
              f"curve: {100 * thr_01:.2f} %", v94,
              f"reproduced if it is >= 94 % (a bound, checked as stated); g = {G_INSIDE:g} stands for the upper end "
              "of g < 0.1, where the worst case is lowest"
              + ("" if 100 * thr_min >= 94 else f"; {100 * thr_min:.2f} % rounds to 94 % (the paper prints whole "
                                                "percent) but is below the bound")),
        Claim("worst case wbar is around 10-20 packets", "10-20 pkt (Section 3.3.3)",
              "wbar_worst at psi = 0: " + ", ".join(f"g={g:g}: {w:.1f}" for g, w in w_small.items()) + " pkt",
              ok(all(9.5 <= w <= 20.5 for w in w_small.values())),
              f"reproduced if it rounds into 10-20 (whole packets: 9.5-20.5); the minimum of a grid of {len(wb)} "
              f"points in [3, 100] pkt (neighbours {100 * (step - 1):.0f} % apart) refined on {WORST_REFINE} points "
              "between its two neighbours (the coarse grid alone had one point inside 9.5-20.5: a probe)"),
        # as Figs. 6-8 have: every cycle the curves rest on converged (at psi = 0 a crossing sits on
        # the floor and is located to a sample step plus the integrator's step, which its drift may
        # reach: LimitCycle.converged)
        check("the cycle is reached (numerics)", f"max drift = {df.drift.max():.2g} (psi > 0: "
              f"{df[df.psi > 0].drift.max():.2g})", bool(df.converged.all()),
              f"tolerance {DRIFT_TOL:g} (DRIFT_TOL), plus at psi = 0 the floor's resolution, "
              "2 (sample step + integration step) / T"),
    ]
    return ExperimentResult("dctcp-fig9", "Worst-case throughput vs psi (Fig. 9)", claims, [png, csv])


# ---------------------------------------------------------------------------------------------
# Section 4: convergence of the Hybrid model
# ---------------------------------------------------------------------------------------------

#: Fig. 12 setting: C = 10 Gbps, d = 200 us, K = 35 pkt, 2 flows, W_max ~ 200 pkt.
FIG12 = dict(C_bps=10e9, d_s=200e-6, K_pkt=35.0, N=2)


def _wall_time_lower_s(run: th.HybridRun, d_s: float, K_pkt: float, C_pps: float) -> np.ndarray:
    """A lower bound on the wall time (s) of each event T_k of the Hybrid model: epoch j lasts
    dT_j RTTs, each at least d + max(0, K - D_j)/C, since sum W >= W_max - D_j = Cd + K - D_j after
    the cut D_j = sum W_i alpha_i / 2 at T_j (eqs. 19-20); the queue is never below K - D_j."""
    D = (run.W * run.alpha).sum(axis=1) / 2
    rtt_lo = d_s + np.maximum(0.0, K_pkt - D[:-1]) / C_pps
    return np.concatenate([[run.T[0] * d_s], run.T[0] * d_s + np.cumsum(np.diff(run.T) * rtt_lo)])


def _conv_time(run: th.HybridRun, tol: float = 0.1) -> tuple[float, float]:
    """First T_k at which every window is within tol of the fair share W* (RTTs), and T_{k-1}.

    The hybrid model is evaluated only at congestion events, so the first time within 10 % lies in
    (T_{k-1}, T_k]: that interval is the model's resolution of a convergence time.
    """
    ok = np.all(np.abs(run.W - run.W_star) <= tol * run.W_star, axis=1)
    if not ok.any():
        return math.inf, math.inf
    k = int(np.argmax(ok))
    return float(run.T[k]), float(run.T[k - 1]) if k > 0 else 0.0


#: Window of max|W_i - W*|/W* over which the decay rate is fitted: from 1e-5 (well past the
#: transient) down to 1e-11 (1e-11 W* = 1e-9 pkt, still 1e5 times the rounding of W ~ 100 pkt).
RATE_FIT = (1e-11, 1e-5)


def _rate_resolution(run: th.HybridRun, err: np.ndarray, beta: float, beta2: float) -> float:
    """How well the fitted decay rate can match beta (relative), from the model and the arithmetic.

    * rounding: each event rounds W_i to ~eps W_max; over the n events in the window this random walk
      puts sqrt(n) eps W_max / (err W*) of noise on ln err at the window's bottom, spread over
      ln(hi/lo) e-folds of the fit;
    * the neglected mode: the slower of g and gamma sets beta, the faster (beta2) decays
      e^{-(beta2 - beta) T} relative to it; from the window's first point on it bends the fitted
      slope by at most (beta2 - beta)/beta e^{-(beta2 - beta) T_in} (amplitudes taken equal).
    """
    lo, hi = RATE_FIT
    m = (err >= lo) & (err <= hi)
    eps = np.finfo(float).eps
    rounding = math.sqrt(int(m.sum())) * eps * run.W_max / (lo * run.W_star) / math.log(hi / lo)
    T_in = float(run.T[m][0] - run.T[0])
    gap = abs(beta2 - beta)
    mode = gap / beta * math.exp(-gap * T_in)
    return rounding + mode


@experiment("dctcp-hybrid", "Hybrid model convergence: alpha*, beta_DCTCP vs beta_TCP, bounds (Section 4)", PAPER)
def run_hybrid(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    C_pps = th.capacity_pps(FIG12["C_bps"])
    W_max = C_pps * FIG12["d_s"] + FIG12["K_pkt"]
    N = FIG12["N"]
    W_star = W_max / N
    R_s = FIG12["d_s"] + FIG12["K_pkt"] / C_pps
    g_cases = {"1/sqrt(W_max)": 1 / math.sqrt(W_max), "5/W_max": 5 / W_max, "1/W_max": 1 / W_max}
    n_events = 2000 if quick else 6000
    claims: list[Claim] = []
    rows = []
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    err_end = 0.0  # RTTs: where the slowest error curve stops (below 1e-10, unresolved)
    curves = []  # what the figure draws, per g: W_2(t), the error and bound (24), both relative to W*
    for name, g in g_cases.items():
        # Fig. 12: flow 1 owns the link (alpha = 0), flow 2 starts with W = 1 pkt and alpha = 1
        run = th.hybrid_model([W_max - 1, 1.0], [0.0, 1.0], g, W_max, n_events)
        a_s = th.alpha_star(W_star, g)
        gam = th.gamma_rate(W_star, a_s)
        beta = min(g, gam)
        err = np.max(np.abs(run.W - W_star), axis=1) / W_star
        rate = th.measured_rate(run.T, err, *RATE_FIT)
        tol = _rate_resolution(run, err, beta, max(g, gam))
        v, diff = verdict(beta, rate, tol)
        claims.append(Claim(f"convergence rate beta = min(g, gamma) (25); g = {name} = {g:.4g}",
                            f"eq. (25) evaluated: beta = {beta:.5g}/RTT ({'g' if g < gam else 'gamma'})",
                            f"measured decay rate of max|W_i - W*|: {rate:.7g}/RTT", v,
                            f"{diff:.1e} apart (relative); resolution of the fit {tol:.1e}: rounding of W_i over "
                            f"the fit window {RATE_FIT[1]:g}..{RATE_FIT[0]:g} plus the bend from the faster mode "
                            f"(rate {max(g, gam):.4g}/RTT)"))
        # (21) contracts alpha errors by e^{-g dT*} per event (dT* = 1 + W* alpha*/2); the transient has
        # decayed like e^{-beta T_n} (alpha is coupled to the windows through dT_k); each event adds ~4
        # roundings of alpha, which the contraction keeps below 4 eps / (1 - e^{-g dT*})
        dT_star = 1 + W_star * a_s / 2
        a_tol = math.exp(-beta * (run.T[-1] - run.T[0])) + 4 * np.finfo(float).eps / -math.expm1(-g * dT_star)
        a_err = float(np.max(np.abs(run.alpha[-1] - a_s)))
        claims.append(Claim(f"alpha_i -> alpha* of (23); g = {name}", f"eq. (23) solved: alpha* = {a_s:.6g}",
                            f"alpha_i(T_n) = {run.alpha[-1, 0]:.6g} after {n_events} events", ok(a_err <= a_tol),
                            f"|difference| = {a_err:.2g}; allowed {a_tol:.1g} (transient e^(-beta T_n) + rounding "
                            "4 eps/(1 - e^(-g dT*)))"))
        # Theorem 2 bound (24) along the whole run
        T_P2 = math.log(2 * W_star / g ** 6) / g + 2 * (1 + W_star / 2)
        n = np.arange(len(run.T))
        bound = 2 * W_max * (1 + g ** 6 * n ** 2) * np.exp(-beta * (run.T - T_P2))
        e_abs = np.abs(run.W - W_star).max(axis=1)
        # below 1e-10 W* the error is not resolved: rounding of W_i (~eps W_max per event, a random walk
        # over <= 6000 events: ~2e-12 pkt = 2e-14 W*) is then within 4 orders of magnitude
        resolved = e_abs > 1e-10 * W_star
        viol = int(np.sum((e_abs >= bound) & resolved))
        # Before T_P2 the bound exceeds 2 W_max, more than any |W_i - W*| (<= W_max): it can fail only
        # where it lies below 2 W_max and above the resolution 1e-10 W* (an error beyond it there would be
        # resolved and counted in viol), so those events are the test (none: the check is empty). (A first
        # version counted the events whose *error* was resolved: g = 1/W_max's 651 events after T_P2, with
        # errors ~5e-15 W* under bounds >= 1e-10 W*, tested nothing by that count: a review.)
        binding = int(np.sum((bound < 2 * W_max) & (bound > 1e-10 * W_star)))
        claims.append(Claim(f"bound (24) |W_i(T_n) - W*| < 2 W_max (1 + g^6 n^2) exp(-beta (T_n - T_P2)); g = {name}",
                            "holds for all n", f"violated at {viol} of {int(resolved.sum())} events "
                            f"(T_P2 = {T_P2:.0f} RTT)",
                            # an empty test (every resolved error before T_P2) neither shows nor
                            # contradicts (24): inconclusive, not "reproduced" (an audit)
                            ok(viol == 0) if binding else INCONCLUSIVE,
                            "checked while |W_i - W*| > 1e-10 W* (above double rounding); "
                            + (f"{binding} events where the bound lies between 1e-10 W* and 2 W_max, where it can fail"
                               if binding else "the bound exceeds 2 W_max >= any error until it falls below the "
                               "resolution 1e-10 W*: it cannot fail anywhere, so this row tests nothing of (24)")))
        curves.append(pd.DataFrame({"g_name": name, "t_rtt": run.T - run.T[0],
                                    "t_ms": (run.T - run.T[0]) * R_s * 1e3, "W2_pkt": run.W[:, 1],
                                    "err_rel": err, "bound_rel": bound / W_star}))
        t10, t10_prev = _conv_time(run)
        wall_lo = _wall_time_lower_s(run, FIG12["d_s"], FIG12["K_pkt"], C_pps)
        k10 = int(np.argmax(run.T >= t10)) if math.isfinite(t10) else len(run.T) - 1
        rows.append(dict(g_name=name, g=g, alpha_star=a_s, gamma=gam, beta=beta, measured_rate=rate,
                         rate_resolution=tol, beta_tcp=th.beta_tcp(W_star), conv_time_rtt=t10,
                         conv_time_prev_event_rtt=t10_prev, conv_time_s_rtt_d=t10 * FIG12["d_s"],
                         conv_time_s_rtt_Rstar=t10 * R_s,
                         conv_time_lo_s=float(wall_lo[max(k10 - 1, 0)]), conv_time_hi_s=t10 * R_s))
        line, = ax1.plot((run.T - run.T[0]) * R_s * 1e3, run.W[:, 1], label=f"g = {name}")
        # the error only where double rounding resolves it (below 1e-10 W* it is noise, see above),
        # with bound (24) relative to W* dashed in the same colour
        shown = err > 1e-10
        err_end = max(err_end, float((run.T - run.T[0])[shown].max()) if shown.any() else 0.0)
        ax2.semilogy((run.T - run.T[0])[shown], err[shown], color=line.get_color(), label=f"g = {name}: β = {beta:.4f}/RTT")
        ax2.semilogy(run.T - run.T[0], bound / W_star, color=line.get_color(), ls="--", lw=0.8)
    ax1.set_xlabel("time since flow 2 starts [ms]")
    ax1.set_ylabel("W₂ [packets]")
    ax1.axhline(W_star, color="gray", ls=":", lw=0.8)
    ax1.set_xlim(0, 300)
    ax1.set_title(f"Hybrid model, Fig. 12 setting (W_max = Cd + K = {W_max:.0f} pkt, N = 2)", fontsize=10)
    ax1.legend()
    ax2.set_xlabel("time [RTT]")
    ax2.set_ylabel("max |W_i − W*| / W*")
    ax2.set_ylim(1e-11, 1e3)
    if err_end > 0:  # the errors' span (the bound's lines run on to the end of the run)
        ax2.set_xlim(-0.03 * err_end, 1.5 * err_end)
    from matplotlib.ticker import MaxNLocator

    ax2.xaxis.set_major_locator(MaxNLocator(5))
    ax2.set_title("Convergence rate (25); dashed: bound (24) / W*", fontsize=10)
    ax2.legend(fontsize=8)
    png = save_figure(fig, out_dir, "hybrid_convergence.png")

    # beta_DCTCP < beta_TCP < 1.4 beta_DCTCP, (26), (46) over a grid satisfying (22) with g >= gamma
    grid = []
    for Wst in np.logspace(math.log10(2.0), 4, 25 if quick else 60):
        Wm = 2 * Wst  # N = 2
        for g in np.logspace(math.log10(1 / Wm), math.log10(min(1.0, 1 / math.sqrt(Wm))), 8 if quick else 20):
            a = th.alpha_star(Wst, g)
            gam = th.gamma_rate(Wst, a)
            lo, hi = th.alpha_star_bounds(Wst, g)
            grid.append(dict(W_star=Wst, g=g, alpha_star=a, gamma=gam, beta=min(g, gam), beta_tcp=th.beta_tcp(Wst),
                             lo46=lo, hi46=hi))
    gd = pd.DataFrame(grid)
    gd["ratio"] = gd.beta_tcp / gd.beta
    big = gd[gd.g >= gd.gamma]
    r_min, r_max = float(gd.ratio.min()), float(big.ratio.max())
    r100 = big[(big.W_star > 90) & (big.W_star < 110)].ratio
    above = big[big.ratio >= 1.4]
    w14 = float(above.W_star.max()) if len(above) else float("nan")
    claims.append(Claim("beta_DCTCP < beta_TCP", "always", f"min beta_TCP/beta_DCTCP = {r_min:.3f} over W* in [2, 1e4], "
                        "g in [1/W_max, 1/sqrt(W_max)]", ok(r_min > 1)))
    claims.append(Claim("beta_TCP < 1.4 beta_DCTCP for g large enough (g >= gamma)", "< 1.4 (= 2 log 2)",
                        f"max ratio {r_max:.3f}; at W* ~ 100 (Fig. 12): {float(r100.max()) if len(r100) else float('nan'):.3f}; "
                        f">= 1.4 for W* up to {w14:.0f} pkt", ok(r_max < 1.4),
                        "the 1.4 uses gamma ~ -2 log(1-a/2)/(W* a) > 1/W* (26); the exact gamma is below 1/W*, so "
                        "the ratio approaches 2 log 2 = 1.386 only as W* -> infinity"))
    g26 = float((gd.gamma * gd.W_star).min()), float((gd.gamma * gd.W_star).max())
    claims.append(Claim("(26) 1/W* < gamma < 2 log 2 / W*", "1 < gamma W* < 1.386",
                        f"gamma W* in [{g26[0]:.4f}, {g26[1]:.4f}]", ok(g26[0] > 1 and g26[1] < 2 * math.log(2)),
                        "upper bound holds; lower bound holds only for the approximation of gamma (drops the 1 in "
                        "1 + W* alpha*/2)"))
    viol46 = int(((gd.alpha_star <= gd.lo46) | (gd.alpha_star >= gd.hi46)).sum())
    claims.append(Claim("alpha* bounds (46): sqrt(2/W*)/2 - g < alpha* < sqrt(2/W*) + g (W* >= 2)", "holds",
                        f"violated at {viol46} of {len(gd)} grid points; alpha* sqrt(W*/2) in "
                        f"[{float((gd.alpha_star * np.sqrt(gd.W_star / 2)).min()):.3f}, "
                        f"{float((gd.alpha_star * np.sqrt(gd.W_star / 2)).max()):.3f}]", ok(viol46 == 0)))
    # The ns2 convergence times of Section 4.3 (a different instrument: one packet simulation, read from the
    # text to whole ms). The hybrid model counts time in RTTs; how long an RTT is follows from its own state:
    # sum W lies in [W_max - D_k, W_max] in epoch k (D_k = sum W_i alpha_i / 2, the cut at T_k; W_max = Cd + K),
    # so the queue in [max(0, K - D_k), K] and the RTT in [d + max(0, K - D_k)/C, R*]. The prediction is the
    # band [lower wall time of T_{k-1}, T_k R*] (event resolution x that RTT range); reproduced if the ns2 time
    # lies in it, widened by the paper's rounding (+-0.5 ms). (Until 2026-11-29 the band's lower end took
    # RTT = d, an empty queue the model's own windows never allow here (D_k < K): a probe found 55 ms
    # "inside" only at that edge, while dctcp-fig12 judged the same 55 ms against the packet simulation.)
    ns2 = {"1/sqrt(W_max)": "55", "5/W_max": "67", "1/W_max": "185"}
    for r in rows:
        t_ns2 = float(ns2[r["g_name"]]) * 1e-3
        lo_s, hi_s = r["conv_time_lo_s"], r["conv_time_hi_s"]
        inside = lo_s - 0.5e-3 <= t_ns2 <= hi_s + 0.5e-3
        off = 0.0 if inside else (t_ns2 - hi_s if t_ns2 > hi_s else t_ns2 - lo_s) / t_ns2
        # Our cross-check of two instruments, not a claim: the paper never says its hybrid model predicts
        # these ns2 times (Section 4.3 reports them from ns2; dctcp-fig12 judges them against dcsim's packet
        # simulation). Until 2026-12-02 these rows counted as claims of the paper (a review).
        claims.append(Claim(f"(dcsim) time to within 10 % of fair share, g = {r['g_name']}: hybrid model vs ns2 (Fig. 12)",
                            f"{ns2[r['g_name']]} ms (ns2)",
                            f"{1e3 * lo_s:.1f}-{1e3 * hi_s:.1f} ms (hybrid model: {r['conv_time_rtt']:.0f} RTT; "
                            f"{1e3 * r['conv_time_s_rtt_Rstar']:.1f} ms at RTT = R* = {1e6 * R_s:.0f} us)", ok(inside),
                            "reproduced if the ns2 time lies in the hybrid model's band: the RTT its own windows imply "
                            "(queue between K - D_k and K), first event within 10 % (the model resolves events only), "
                            f"+-0.5 ms (the paper's rounding); ns2 {'inside' if inside else f'outside, {100 * off:+.1f} % from the band'}"
                            ". The hybrid model is synchronized and fluid, ns2 is packets (dcsim's packet simulation: "
                            "dctcp-fig12); g = 5/W_max per the caption (the text's 5/sqrt(W_max) is a typo: it is "
                            "larger than 1/sqrt(W_max), not a reduction)", kind=CHECK))
    csv = out_dir / "hybrid_rates.csv"
    # rates per RTT; the convergence time in RTTs, then in s at RTT = d and at RTT = R*
    pd.DataFrame(rows).rename(columns={
        "beta": "beta_per_rtt", "gamma": "gamma_per_rtt", "measured_rate": "measured_rate_per_rtt",
        "beta_tcp": "beta_tcp_per_rtt", "conv_time_s_rtt_d": "conv_time_s_at_rtt_d",
        "conv_time_s_rtt_Rstar": "conv_time_s_at_rtt_Rstar"}).to_csv(csv, index=False)
    csv2 = out_dir / "hybrid_beta_grid.csv"
    gd.rename(columns={"W_star": "W_star_pkt", "gamma": "gamma_per_rtt", "beta": "beta_per_rtt",
                       "beta_tcp": "beta_tcp_per_rtt"}).to_csv(csv2, index=False)
    csv3 = out_dir / "hybrid_convergence.csv"
    pd.concat(curves).to_csv(csv3, index=False, float_format="%.10g")
    return ExperimentResult("dctcp-hybrid", "Hybrid model convergence (Section 4)", claims, [png, csv, csv2, csv3])


# ---------------------------------------------------------------------------------------------
# Fig. 4: phase diagram of the normalized fluid model, orbits attracted to the limit cycle
# ---------------------------------------------------------------------------------------------

#: Fig. 4 setting (Section 3.1): wbar = 10, g = 1/16.
WBAR_FIG4, G_FIG4 = 10.0, 1.0 / 16.0
#: Initial points (W~, alpha~, q~), held for t <= 0: inside and outside the cycle, near and far.
FIG4_INITS = ((10.0, 0.45, 0.0), (4.0, 0.1, -0.6), (20.0, 1.0, 0.8), (14.0, 0.05, 0.3), (7.0, 0.8, -0.2))
#: "attracted" = the orbit ends within 1 % of the cycle (distance in units of the cycle's extent per
#: coordinate, decided before the runs: the width of a plotted line at the figure's scale).
TOL_ORBIT = 0.01


def _orbit_distance(P: np.ndarray, X: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Distance of each point of P (n, 3) to the sampled orbit X (m, 3), coordinates divided by scale."""
    A, B = P / scale, X / scale
    d2 = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2 * A @ B.T
    return np.sqrt(np.maximum(d2.min(axis=1), 0.0))


@experiment("dctcp-fig4", "Phase diagram: orbits attracted to the limit cycle, wbar = 10, g = 1/16 (Fig. 4)", PAPER)
def run_fig4(out_dir: Path, quick: bool) -> ExperimentResult:
    from dcsim import fluid

    out_dir = Path(out_dir)
    cycle = th.limit_cycle(WBAR_FIG4, G_FIG4)
    rho = th.poincare_jacobian(cycle).rho
    X = cycle.X
    scale = X.max(axis=0) - X.min(axis=0)
    t_end = 100.0 if quick else 200.0  # alpha relaxes at rate g: 6/g ~ 100 R*
    inits = FIG4_INITS[:3] if quick else FIG4_INITS
    rows, orbits = [], []
    for i, x0 in enumerate(inits):
        df = fluid.dctcp_normalized(WBAR_FIG4, G_FIG4, t_end=t_end, init=x0)
        P = df[["W", "alpha", "q"]].to_numpy()
        dist = _orbit_distance(P[::5], X, scale)
        last = df.t.to_numpy()[::5] >= t_end - cycle.T
        rows.append(dict(orbit=i, W0_pkt=x0[0], alpha0=x0[1], q0_norm=x0[2], dist_start=float(dist[0]),
                         dist_end=float(dist[last].max())))
        # every 5th sample (0.05 R* apart, ~240 a period): what the figure draws and the CSV holds
        orbits.append(df.iloc[::5].assign(orbit=i))
    stats = pd.DataFrame(rows)
    csv = out_dir / "fig4_orbits.csv"
    stats.to_csv(csv, index=False)
    csv2 = out_dir / "fig4_limit_cycle.csv"
    pd.DataFrame({"t_Rstar": cycle.s, "W_pkt": X[:, 0], "alpha": X[:, 1], "q_norm": X[:, 2]}).to_csv(csv2, index=False)
    csv3 = out_dir / "fig4_orbit_paths.csv"
    pd.concat(orbits)[["orbit", "t", "W", "alpha", "q"]].rename(
        columns={"t": "t_Rstar", "W": "W_pkt", "q": "q_norm"}).to_csv(csv3, index=False, float_format="%.8g")

    fig, ax = plt.subplots(figsize=(6, 4.8))
    for i, df in enumerate(orbits):
        x0 = df.iloc[0]
        ax.plot(df.q, df.W, lw=0.6, alpha=0.8,
                label=f"orbit from W̃ = {x0.W:g}, α = {x0.alpha:g}, q̃ = {x0.q:g} (dot)")
        ax.plot(x0.q, x0.W, "o", ms=4, color=ax.lines[-1].get_color())
    ax.plot(np.r_[X[:, 2], X[0, 2]], np.r_[X[:, 0], X[0, 0]], "k", lw=2.2, label="limit cycle")
    ax.axvline(0, color="gray", ls=":", lw=0.8, label="q̃ = 0 (queue at K)")
    ax.set_xlabel("q̃  (normalized queue, (q − K)/(C R*))")
    ax.set_ylabel("W̃  [packets]")
    ax.set_title(f"Fig. 4: phase diagram, w̄ = {WBAR_FIG4:g}, g = 1/16 (projection on the W̃–q̃ plane)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    png = save_figure(fig, out_dir, "fig4_phase_diagram.png")

    attracted = bool((stats.dist_end <= TOL_ORBIT).all())
    claims = [
        Claim("Sect. 3.1: for wbar > 2 the model has no fixed point but a limit cycle (wbar = 10, g = 1/16)",
              "limit cycle", f"period T = {cycle.T:.3f} R*, q~ in [{cycle.Q_min:.4f}, {cycle.Q_max:.4f}], W~ in "
              f"[{X[:, 0].min():.2f}, {X[:, 0].max():.2f}]", ok(cycle.Q_max - cycle.Q_min > 0.01 and cycle.converged),
              f"the fixed-point equations (15) need wbar <= 2; the cycle's last two periods agree to {cycle.drift:.1e}"),
        Claim("Fig. 4: all trajectories evolve toward the orbit of the limit cycle", "attracted",
              f"{len(stats)} orbits: distance to the cycle {stats.dist_start.min():.2f}-{stats.dist_start.max():.2f} at "
              f"the start, at most {stats.dist_end.max():.1e} over the last period (t = {t_end:g} R*)", ok(attracted),
              f"distance in units of the cycle's extent in W~, alpha~, q~; tolerance {TOL_ORBIT}"),
        Claim("Theorem 1: the limit cycle is locally asymptotically stable, rho(Z1 Z2) < 1", "rho < 1",
              f"rho = {rho:.4f}", ok(rho < 1), "dcsim.theory.dctcp.poincare_jacobian (variational equation)"),
    ]
    return ExperimentResult("dctcp-fig4", "Phase diagram of the normalized fluid model (Fig. 4)", claims,
                            [png, csv, csv2, csv3])
