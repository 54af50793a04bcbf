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
    Claim,
    ExperimentResult,
    experiment,
    ok,
    save_figure,
    verdict,
)
from dcsim.theory import dctcp as th  # noqa: E402

PAPER = "Alizadeh, Javanmard, Prabhakar: Analysis of DCTCP (SIGMETRICS 2011)"
WBAR_LO, WBAR_HI = 2.01, 1000.0  # Fig. 6 range
G_LO, G_HI = 0.001, 1.0
#: g values of the Fig. 7 / Fig. 8 curves (the paper does not list its values; all g <= 0.01 give
#: one curve, footnote 4), and of Fig. 9.
G_CURVES = (0.01, 0.05, 0.1)


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
    ax.set_xlabel("g (log10)")
    ax.set_ylabel("w̄ = (Cd+K)/N [packets] (log10)")
    ax.set_zlabel("ρ(Z1 Z2)")
    ax.set_zlim(0, 1)
    ax.set_title("Limit cycle stability (Theorem 1)")
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
        Claim("Z1, Z2 as printed use exp(int J_F ds)", "exp(int J_F ds) (Theorem 1)",
              f"max rho with the printed form = {pmax:.4f}; max |difference| to exact = {gap:.3g}",
              ok(pmax < 1),
              "exp(int J) equals the transition matrix only if the J_F(s) commute; they do not, so the printed "
              "Z1 Z2 is not the Poincare Jacobian (conclusion rho < 1 still holds)"),
        Claim("the cycle is reached (numerics)", "—", f"max drift over the last period = {df.drift.max():.2g}",
              ok(float(df.drift.max()) < 1e-3), "relative change of T and x_alpha between the last two periods"),
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


def _worst_wbar(g: float, lo: float = 5.0, hi: float = 40.0, n: int = 36) -> tuple[float, float]:
    """wbar in [lo, hi] with the lowest Q_min (finer grid than the figure), and that Q_min."""
    ws = _wbar_grid(n, lo, hi)
    cs = th.limit_cycles(ws, [g] * len(ws))
    q = np.array([c.Q_min for c in cs])
    k = int(np.argmin(q))
    return float(ws[k]), float(q[k])


@experiment("dctcp-fig7", "Queue undershoot and overshoot Q_min, Q_max vs wbar (Fig. 7)", PAPER)
def run_fig7(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    df = fig7_curves(n_w=12 if quick else 40)
    csv = out_dir / "fig7_queue.csv"
    df.to_csv(csv, index=False)

    fig, ax = plt.subplots(figsize=(6, 4.2))
    for g, d in df.groupby("g"):
        (line,) = ax.semilogx(d.wbar, d.Q_max, "-", label=f"g = {g:g}")
        ax.semilogx(d.wbar, d.Q_min, "--", color=line.get_color())
    ax.axhline(th.Q_MIN_PAPER, color="gray", lw=0.8, ls=":")
    ax.axhline(0, color="k", lw=0.5)
    ax.set_xlabel("w̄ = (Cd+K)/N [packets]")
    ax.set_ylabel("normalized queue q̃ = (q−K)/(C R*)")
    ax.set_title("Queue undershoot (Q_min, dashed) and overshoot (Q_max, solid)")
    ax.legend()
    png = save_figure(fig, out_dir, "fig7_queue.png")

    gs = sorted(df.g.unique())
    def rel_spread(col: str) -> float:
        piv = df[df.wbar >= 3].pivot(index="wbar", columns="g", values=col)
        return float(((piv.max(axis=1) - piv.min(axis=1)) / piv.abs().max(axis=1)).max())

    spread, spread_min = rel_spread("Q_max"), rel_spread("Q_min")
    mono = all(bool(np.all(np.diff(df[(df.g == g) & (df.wbar >= 3)].sort_values("wbar").Q_max.to_numpy()) < 0))
               for g in gs)
    w_peak = {g: float(df[df.g == g].sort_values("Q_max").wbar.iloc[-1]) for g in gs}
    worst = {g: _worst_wbar(g, n=12 if quick else 36) for g in gs}
    worst_w = [w for w, _ in worst.values()]
    g_small = gs[0]
    qmin_small = float(df[df.g == g_small].Q_min.min())
    qmin_small = min(qmin_small, worst[g_small][1])
    K_needed = th.K_from_Q_min(qmin_small, 1.0)  # as a fraction of Cd
    qmins = [min(float(df[df.g == g].Q_min.min()), worst[g][1]) for g in gs]
    v_K, dK = verdict(th.K_COEFF, K_needed, 0.15)
    claims = [
        Claim("(i) queue overshoot is not sensitive to g", "Q_max curves coincide",
              f"g = {', '.join(f'{g:g}' for g in gs)} changes Q_max by at most {100 * spread:.1f} % "
              f"(Q_min by up to {100 * spread_min:.0f} %), wbar >= 3 pkt",
              ok(spread < 0.15 and spread < spread_min / 3),
              "reproduced if a 10x change of g moves Q_max by < 15 % and by < 1/3 of the change of Q_min"),
        Claim("(i) overshoot increases as wbar decreases", "Q_max decreasing in wbar",
              ("monotone decreasing for wbar >= 3 pkt" if mono else "not monotone for wbar >= 3 pkt")
              + "; peak at wbar = " + ", ".join(f"{w:.2f}" for w in w_peak.values()) + " pkt", ok(mono),
              "as wbar -> 2 the cycle shrinks onto the fixed point (q~ = 2/wbar - 1 -> 0), so Q_max falls again "
              "just above wbar = 2; the paper does not mention this edge"),
        Claim("(ii) worst-case wbar (largest undershoot) about 12-16 packets", "12-16 pkt",
              ", ".join(f"g={g:g}: {w:.1f} pkt (Q_min {q:.3f})" for g, (w, q) in worst.items()),
              ok(all(0.9 * 12 <= w <= 1.1 * 16 for w in worst_w)),
              "argmin of Q_min on a fine grid in [5, 40] pkt; tolerance 10 % around 12-16 (ours sits at the low end; "
              "the minimum is flat: Q_min varies < 0.01 over 8-20 pkt)"),
        Claim("(iii) undershoot grows with g", "|Q_min| increasing in g",
              ", ".join(f"g={g:g}: {q:.3f}" for g, q in zip(gs, qmins)),
              ok(bool(np.all(np.diff(qmins) < 0)))),
        Claim("Q_min >~ -0.15 for small g", ">= -0.15", f"min Q_min at g = {g_small:g}: {qmin_small:.4f}",
              ok(qmin_small >= -0.15)),
        Claim("K ~ 0.17 C d avoids underflow (eq. 17)", "0.17 C d",
              f"K > |Q_min|/(1-|Q_min|) C d = {K_needed:.3f} C d at g = {g_small:g}; "
              + ", ".join(f"g={g:g}: {th.K_from_Q_min(q, 1.0):.3f}" for g, q in zip(gs, qmins)),
              v_K, f"{100 * dK:.0f} % from 0.17; the paper rounds Q_min up to -0.15 (-> 0.176 C d), a safe margin "
                   "for g up to ~0.06"),
        Claim("the cycle is reached (numerics)", "—", f"max drift = {df.drift.max():.2g}", ok(df.drift.max() < 1e-3)),
    ]
    return ExperimentResult("dctcp-fig7", "Queue undershoot and overshoot (Fig. 7)", claims, [png, csv])


@experiment("dctcp-fig8", "Limit cycle period vs wbar (Fig. 8)", PAPER)
def run_fig8(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    df = fig7_curves(n_w=12 if quick else 40)
    csv = out_dir / "fig8_period.csv"
    df[["g", "wbar", "T", "drift"]].to_csv(csv, index=False)

    fig, ax = plt.subplots(figsize=(6, 4.2))
    for g, d in df.groupby("g"):
        ax.loglog(d.wbar, d["T"], "-o", ms=3, label=f"g = {g:g}")
    ws = np.sort(df.wbar.unique())
    saw = np.array([th.sawtooth_period_rtt(w) for w in ws])
    ax.loglog(ws, saw, "k:", label="Sawtooth [1]: (w̄+1)√(2/w̄)/2")
    ax.set_xlabel("w̄ = (Cd+K)/N [packets]")
    ax.set_ylabel("period T [units of R* = d + K/C]")
    ax.set_title("Limit cycle period of oscillations")
    ax.legend()
    png = save_figure(fig, out_dir, "fig8_period.png")

    claims = []
    for g in sorted(df.g.unique()):
        # "small g" in the sense of (18): g <~ 1/sqrt(wbar), i.e. wbar <~ 1/g^2
        w_hi = min(WBAR_HI, 1.0 / g ** 2)
        d = df[(df.g == g) & (df.wbar >= 10) & (df.wbar <= w_hi * 1.0001)]
        slope = float(np.polyfit(np.log(d.wbar), np.log(d["T"]), 1)[0])
        b, a = np.polyfit(np.sqrt(d.wbar), d["T"], 1)
        resid = float(np.max(np.abs(a + b * np.sqrt(d.wbar) - d["T"]) / d["T"]))
        claims.append(Claim(f"period grows as sqrt(wbar) for small g; g = {g:g}", "T ~ sqrt(wbar)",
                            f"T = {a:.2f} + {b:.3f} sqrt(wbar) R* fits wbar in [10, {w_hi:.0f}] pkt within "
                            f"{100 * resid:.1f} %; pure power-law slope {slope:.3f}",
                            ok(resid < 0.05),
                            "fit where g <= 1/sqrt(wbar) (eq. 18's 'small g'); the offset (feedback delays) makes the "
                            "log-log slope < 0.5, tending to 0.5 as wbar grows; Sawtooth [1]: T ~ 0.71 sqrt(wbar)"))
    return ExperimentResult("dctcp-fig8", "Limit cycle period (Fig. 8)", claims, [png, csv])


# ---------------------------------------------------------------------------------------------
# Fig. 9: worst-case throughput vs psi
# ---------------------------------------------------------------------------------------------


@experiment("dctcp-fig9", "Worst-case throughput vs psi = K/(Cd) (Fig. 9)", PAPER)
def run_fig9(out_dir: Path, quick: bool) -> ExperimentResult:
    out_dir = Path(out_dir)
    psis = np.array([0.001, 0.01, 0.05, 0.1, 0.17, 0.25]) if quick else np.concatenate(
        [[0.001, 0.003], np.linspace(0.01, 0.3, 30)])
    wb = _wbar_grid(8 if quick else 24, 3.0, 100.0)
    frames = [th.worst_case_throughput(psis, g, wb) for g in G_CURVES]
    df = pd.concat(frames, ignore_index=True)
    csv = out_dir / "fig9_throughput.csv"
    df.to_csv(csv, index=False)

    fig, ax = plt.subplots(figsize=(6, 4.2))
    for g, d in df.groupby("g"):
        ax.plot(d.psi, 100 * d.throughput, "-o", ms=3, label=f"g = {g:g}")
    ax.axhline(94, color="gray", ls=":", lw=0.8)
    ax.set_xlabel("ψ = K/(C d)  (≈ average queueing delay / d)")
    ax.set_ylabel("worst-case throughput [% of C]")
    ax.set_title("Worst case throughput vs delay")
    ax.legend()
    png = save_figure(fig, out_dir, "fig9_throughput.png")

    g_small = G_CURVES[0]
    d_small = df[df.g == g_small]
    full = d_small[d_small.psi >= 0.17]
    thr_full = float(full.throughput.min())
    below = d_small[d_small.throughput < 0.9999]
    psi_full = float(below.psi.max()) if len(below) else 0.0
    below_g = df[df.g < 0.1]
    thr_min = float(below_g.throughput.min())
    j = int(below_g.throughput.idxmin())
    d01 = df[df.g == 0.1]
    w_small = {g: float(df[df.g == g].sort_values("psi").wbar_worst.iloc[0]) for g in G_CURVES}
    claims = [
        Claim("100 % throughput for psi >~ 0.17 (small g)", ">= 100 % at psi >= 0.17",
              f"g = {g_small:g}: min over psi >= 0.17 = {100 * thr_full:.3f} %; largest psi below 99.99 %: {psi_full:.3g}",
              ok(thr_full >= 0.9999)),
        Claim("throughput always >= 94 % for g < 0.1", ">= 94 %",
              f"min over psi in [{psis.min():g}, {psis.max():g}], wbar in [3, 100] pkt, g in "
              f"{{{', '.join(f'{g:g}' for g in G_CURVES if g < 0.1)}}}: {100 * thr_min:.2f} % "
              f"(g = {df.g[j]:g}, psi = {df.psi[j]:g}, wbar = {df.wbar_worst[j]:.1f} pkt)", ok(thr_min >= 0.94)),
        Claim("(edge) g = 0.1", "—", f"min throughput = {100 * float(d01.throughput.min()):.2f} %",
              ok(float(d01.throughput.min()) >= 0.93), "the bound is stated for g < 0.1 only"),
        Claim("worst case wbar is around 10-20 packets", "10-20 pkt (Section 3.3.3)",
              "wbar_worst at the smallest psi: " + ", ".join(f"g={g:g}: {w:.1f}" for g, w in w_small.items()) + " pkt",
              ok(all(8 <= w <= 22 for w in w_small.values()))),
    ]
    return ExperimentResult("dctcp-fig9", "Worst-case throughput vs psi (Fig. 9)", claims, [png, csv])


# ---------------------------------------------------------------------------------------------
# Section 4: convergence of the Hybrid model
# ---------------------------------------------------------------------------------------------

#: Fig. 12 setting: C = 10 Gbps, d = 200 us, K = 35 pkt, 2 flows, W_max ~ 200 pkt.
FIG12 = dict(C_bps=10e9, d_s=200e-6, K_pkt=35.0, N=2)


def _conv_time(run: th.HybridRun, tol: float = 0.1) -> float:
    """First T_k at which every window is within tol of the fair share W* (RTTs)."""
    ok = np.all(np.abs(run.W - run.W_star) <= tol * run.W_star, axis=1)
    k = int(np.argmax(ok)) if ok.any() else -1
    return float(run.T[k]) if k >= 0 else math.inf


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
    for name, g in g_cases.items():
        # Fig. 12: flow 1 owns the link (alpha = 0), flow 2 starts with W = 1 pkt and alpha = 1
        run = th.hybrid_model([W_max - 1, 1.0], [0.0, 1.0], g, W_max, n_events)
        a_s = th.alpha_star(W_star, g)
        gam = th.gamma_rate(W_star, a_s)
        beta = min(g, gam)
        err = np.max(np.abs(run.W - W_star), axis=1) / W_star
        rate = th.measured_rate(run.T, err, 1e-11, 1e-5)
        v, diff = verdict(beta, rate, 0.02)
        claims.append(Claim(f"convergence rate beta = min(g, gamma) (25); g = {name} = {g:.4g}",
                            f"beta = {beta:.5g}/RTT ({'g' if g < gam else 'gamma'})",
                            f"measured decay rate of max|W_i - W*|: {rate:.5g}/RTT", v, f"{100 * diff:.2f} % apart"))
        a_err = float(np.max(np.abs(run.alpha[-1] - a_s)))
        claims.append(Claim(f"alpha_i -> alpha* of (23); g = {name}", f"alpha* = {a_s:.6g}",
                            f"alpha_i(T_n) = {run.alpha[-1, 0]:.6g} after {n_events} events", ok(a_err < 1e-8),
                            f"|difference| = {a_err:.2g}"))
        # Theorem 2 bound (24) along the whole run
        T_P2 = math.log(2 * W_star / g ** 6) / g + 2 * (1 + W_star / 2)
        n = np.arange(len(run.T))
        bound = 2 * W_max * (1 + g ** 6 * n ** 2) * np.exp(-beta * (run.T - T_P2))
        e_abs = np.abs(run.W - W_star).max(axis=1)
        resolved = e_abs > 1e-10 * W_star  # below this the error is floating-point rounding of W_i
        viol = int(np.sum((e_abs >= bound) & resolved))
        claims.append(Claim(f"bound (24) |W_i(T_n) - W*| < 2 W_max (1 + g^6 n^2) exp(-beta (T_n - T_P2)); g = {name}",
                            "holds for all n", f"violated at {viol} of {int(resolved.sum())} events "
                            f"(T_P2 = {T_P2:.0f} RTT)", ok(viol == 0),
                            "checked while |W_i - W*| > 1e-10 W* (above double rounding)"))
        t10 = _conv_time(run)
        rows.append(dict(g_name=name, g=g, alpha_star=a_s, gamma=gam, beta=beta, measured_rate=rate,
                         beta_tcp=th.beta_tcp(W_star), conv_time_rtt=t10, conv_time_s=t10 * R_s))
        ax1.plot((run.T - run.T[0]) * R_s * 1e3, run.W[:, 1], label=f"g = {name}")
        ax2.semilogy(run.T - run.T[0], np.maximum(err, 1e-16), label=f"g = {name}: β = {beta:.4f}/RTT")
    ax1.set_xlabel("time since flow 2 starts [ms]")
    ax1.set_ylabel("W₂ [packets]")
    ax1.axhline(W_star, color="gray", ls=":", lw=0.8)
    ax1.set_xlim(0, 300)
    ax1.set_title(f"Hybrid model, Fig. 12 setting (W_max = {W_max:.0f} pkt, N = 2)")
    ax1.legend()
    ax2.set_xlabel("time [RTT]")
    ax2.set_ylabel("max |W_i − W*| / W*")
    ax2.set_title("Convergence rate (25)")
    ax2.legend()
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
    # the ns2 convergence times of Section 4.3 (different instrument: packet simulation)
    ns2 = {"1/sqrt(W_max)": 55e-3, "5/W_max": 67e-3, "1/W_max": 185e-3}
    for r in rows:
        v, diff = verdict(ns2[r["g_name"]], r["conv_time_s"], 0.25)
        claims.append(Claim(f"time to within 10 % of fair share, g = {r['g_name']}: hybrid model vs ns2 (Fig. 12)",
                            f"{1e3 * ns2[r['g_name']]:.0f} ms (ns2)", f"{1e3 * r['conv_time_s']:.1f} ms (hybrid model, "
                            f"RTT = R* = {1e6 * R_s:.0f} us)", v,
                            f"{100 * diff:.0f} % apart (tolerance 25 %); the hybrid model is synchronized and fluid, "
                            "ns2 is packets; g = 5/W_max per the caption (the text's 5/sqrt(W_max) is a typo: it is "
                            "larger than 1/sqrt(W_max), not a reduction)"))
    csv = out_dir / "hybrid_rates.csv"
    pd.DataFrame(rows).to_csv(csv, index=False)
    csv2 = out_dir / "hybrid_beta_grid.csv"
    gd.to_csv(csv2, index=False)
    return ExperimentResult("dctcp-hybrid", "Hybrid model convergence (Section 4)", claims, [png, csv, csv2])
