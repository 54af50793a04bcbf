"""`dcsim theory dctcp`: DCTCP guidelines, regime, alpha*, convergence rates (Alizadeh et al. 2011)."""

from __future__ import annotations

from typing import Optional

import typer
from rich.markup import escape

from dcsim._console import print_table, titled_table
from dcsim._json import dumps

PAPER = "Alizadeh, Javanmard, Prabhakar, Analysis of DCTCP (SIGMETRICS 2011)"


#: Queue lengths below this many packets are shown as 0: the integrator's rounding (an emptied
#: queue's minimum came out as 1.8e-15 pkt), not a queue.
_PKT_NOISE = 1e-9


def _num_pkt(x: float) -> str:
    return f"{0.0 if abs(x) < _PKT_NOISE else x:.4g}"


def _fmt_pkt(x: float) -> str:
    return f"{_num_pkt(x)} pkt"


def dctcp(
    C: str = typer.Option(..., "--C", "--c", "--capacity", help='Bottleneck capacity, e.g. "10Gbps"; 1 Mbps .. 10 Tbps.'),
    d: str = typer.Option(..., "--d", "--rtt", help='Propagation round-trip delay d, e.g. "300us"; 1 us .. 1 s.'),
    K: Optional[str] = typer.Option(None, "--K", "--k", "--threshold", help='Marking threshold, e.g. "65pkt" or "97.5KB"; 0 .. 1e6 pkt '
                                    "(default: guideline 0.17 C d)."),
    N: float = typer.Option(2, "--N", "--n", "--flows", help="Number of long-lived flows, a real number in [1, 1e6] (default 2: the small-N case the paper's guideline (27) is for, where convergence is slowest; Fig. 12's two flows)."),
    g: Optional[float] = typer.Option(None, "--g", "--gain", help="EWMA weight g in (0, 1] (default 1/16)."),
    packet_size: str = typer.Option("1500B", "--packet-size", help="Packet size for C in packets/s, 1 B .. 65535 B "
                                    "(default 1500B)."),
    cycle: bool = typer.Option(True, "--cycle/--no-cycle", help="Compute the limit cycle (fluid model) when wbar > 2."),
    as_json: bool = typer.Option(False, "--json", help="Print machine-readable JSON."),
) -> None:
    """Guidelines K ~ 0.17 C d and 5/(Cd+K) <~ g <~ 1/sqrt(Cd+K), regime, alpha*, convergence rates."""
    from dcsim.cli import console
    from dcsim.commands.inputs import fail, number, quantity, whole_bytes
    from dcsim.theory import dctcp as th
    from dcsim.theory import limits as L
    from dcsim.units import fmt_rate, fmt_time, parse_rate, parse_size, parse_time

    C_bps = quantity(C, "--C", parse_rate, L.CAPACITY)
    d_s = quantity(d, "--d", parse_time, L.DELAY)
    packet_bytes = whole_bytes(packet_size, "--packet-size")
    K_pkt = None if K is None else quantity(K, "--K", lambda t, o: parse_size(t, o).packets(packet_bytes), L.MARKING_K)
    N = number(N, "--N", L.N_FLOWS)
    g = None if g is None else number(g, "--g", L.EWMA_G)
    try:
        r = th.analyze(C_bps, d_s, K_pkt, N, g, packet_bytes, cycle=cycle)
    except ValueError as e:
        fail(str(e))
    if as_json:
        typer.echo(dumps(r, indent=2))
        return

    t = titled_table(f"DCTCP theory — {PAPER}", show_lines=False)
    t.add_column("quantity")
    t.add_column("value", justify="right")
    t.add_column("source")
    t.add_row("capacity C", f"{fmt_rate(r['C_bps'])} = {r['C_pps']:.6g} pkt/s", f"{r['packet_bytes']:g} B packets")
    t.add_row("propagation delay d", fmt_time(r["d_s"]), "")
    t.add_row("bandwidth-delay product C d", _fmt_pkt(r["Cd_pkt"]), "")
    t.add_row("[bold]K guideline[/] 0.17 C d", _fmt_pkt(r["K_guideline_pkt"]), "eq. (1)/(17)")
    t.add_row("K used", _fmt_pkt(r["K_pkt"]), "--K" if r["K_given"] else "guideline")
    empty = r["g_min"] > r["g_max"]  # Cd + K < 25 packets: no g satisfies eq. (2)
    t.add_row("[bold]g range[/] 5/(Cd+K) .. 1/sqrt(Cd+K)", f"{r['g_min']:.4g} .. {r['g_max']:.4g} (dimensionless)"
              + (" [yellow](empty: Cd + K < 25 pkt, no g satisfies eq. (2))[/]" if empty else ""), "eq. (2)/(27)")
    t.add_row("g used", f"{r['g']:.4g} (dimensionless)" + ("" if r["g_in_range"] else " [yellow](outside the range)[/]"),
              "--g" if r["g_given"] else "default 1/16")
    t.add_row("N flows", f"{r['N']:g} flows", "--N")
    t.add_row("R* = d + K/C", fmt_time(r["R_star_s"]), "Section 2.2")
    t.add_row("psi = K/(C d)", f"{r['psi']:.4g} (dimensionless)", "Section 3.3.2")
    t.add_row("wbar = (C d + K)/N", _fmt_pkt(r["wbar_pkt"]), "Section 3.1")
    t.add_row("[bold]regime[/]", r["regime"] + (" (wbar <= 2 pkt)" if r["regime"] == "fixed point" else " (wbar > 2 pkt)"),
              "Section 3.1")
    if "fixed_point" in r:
        fp = r["fixed_point"]
        t.add_row("fixed point W, alpha", f"{fp['W_pkt']:.4g} pkt, {fp['alpha']:.4g}", "eq. (15)")
        t.add_row("fixed point q = 2N - C d", _fmt_pkt(fp["q_pkt"]), "Section 3.1")
        t.add_row("RTT at the fixed point", fmt_time(fp["rtt_s"]), "d + q/C")
    if "limit_cycle" in r["notes"]:
        t.add_row("limit cycle", "[yellow]not computed[/]", escape(r["notes"]["limit_cycle"]))
    if "limit_cycle" in r:
        lc = r["limit_cycle"]
        # 3 digits: the step of 0.01 R* gives the period to ~0.5 % near K = 0 (limit_cycles' docstring;
        # a probe: 7.869 R* at K = 0, 7.880 at K = 1e-300 pkt, 7.872 at a step of R*/1000)
        t.add_row("limit cycle period", f"{fmt_time(lc['period_s'], 3)} = {lc['period_rtt']:.3g} R*",
                  "fluid (11)-(14), RK4 at 0.01 R*")
        t.add_row("queue min .. max", f"{_num_pkt(lc['q_min_pkt'])} .. {_num_pkt(lc['q_max_pkt'])} pkt",
                  f"Q~ {lc['Q_min']:.3f} .. {lc['Q_max']:.3f}")
        t.add_row("throughput (psi floor)", f"{100 * lc['throughput']:.2f} % of C", "Section 3.3.2")
        if not lc["converged"]:
            from dcsim.theory.dctcp import ALPHA_SETTLED_GT

            if lc["alpha_relaxation_gt"] < ALPHA_SETTLED_GT:
                t.add_row("[yellow]cycle not converged[/]", f"g t = {lc['alpha_relaxation_gt']:.2g} (t in R*)",
                          f"alpha moves at rate g: the run needs g t >= {ALPHA_SETTLED_GT:g} (g >= 0.001)")
            else:
                t.add_row("[yellow]cycle not converged[/]", f"drift {lc['drift']:.2g} per period",
                          "relative change of T, x_alpha")
    if "hybrid" in r["notes"]:
        t.add_row("hybrid model: alpha*, rates, bounds", "applies" if "hybrid" in r else "not applicable",
                  escape(r["notes"]["hybrid"]))
    if "hybrid" in r:
        h = r["hybrid"]
        t.add_row("alpha* (W* = wbar)", f"{h['alpha_star']:.4g} (dimensionless)", "eq. (23)")
        lo, hi = h["alpha_star_lower"], h["alpha_star_upper"]
        trivial = [w for w, bad in (("lower < 0", lo < 0), ("upper > 1", hi > 1)) if bad]
        t.add_row("alpha* bounds", f"{lo:.4g} .. {hi:.4g} (dimensionless)"
                  + (f" [yellow]({', '.join(trivial)}: no bound there, alpha lies in [0, 1])[/]" if trivial else ""),
                  "eq. (46)")
        t.add_row("gamma (window rate)", f"{h['gamma_per_rtt']:.4g} /RTT", "Section 4.2")
        t.add_row("[bold]beta_DCTCP[/] = min(g, gamma)",
                  f"{h['beta_dctcp_per_rtt']:.4g} /RTT = {h['beta_dctcp_per_s']:.4g} /s (1/beta = {fmt_time(1 / h['beta_dctcp_per_s'])})",
                  f"eq. (25); limited by {h['limited_by']}")
        t.add_row("beta_TCP = log 2/(1 + W*/2)",
                  f"{h['beta_tcp_per_rtt']:.4g} /RTT = {h['beta_tcp_per_s']:.4g} /s (1/beta = {fmt_time(1 / h['beta_tcp_per_s'])})",
                  "Section 4.2")
        ratio = h["beta_ratio_tcp_over_dctcp"]
        # "g large enough" = the rate limited by gamma, not by g: there the paper's < 1.4 is its claim
        fails = h["limited_by"].startswith("gamma") and ratio >= 1.4
        t.add_row("beta_TCP / beta_DCTCP", f"{ratio:.4g} (paper: < 1.4 for g large enough)"
                  + (" [yellow](g is large enough here, and it is not below 1.4: eq. (26) holds only as W* grows)[/]"
                     if fails else ""), "Section 4.2")
        if h["assumptions_violated"]:
            t.add_row("[yellow]assumptions (22) violated[/]", "; ".join(h["assumptions_violated"]), "Theorem 2")
    print_table(console, t)

