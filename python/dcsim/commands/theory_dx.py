"""`dcsim theory dx`: DX equilibrium, Theorem 1 delay bound (with a numerical check), Theorem 2 state."""

from __future__ import annotations

import math

import typer
from rich.markup import escape

from dcsim._console import print_table, titled_table
from dcsim._json import dumps

PAPER = "Jiang et al., Modeling and Analysis of the Latency-Based Congestion Control Algorithm DX"


def dx(
    N: float = typer.Option(..., "--N", "--n", "--flows", help="Number of long-lived flows N, a real number in [1, 1e6]."),
    C: str = typer.Option(..., "--C", "--c", "--capacity", help='Bottleneck capacity, e.g. "10Gbps"; 1 Mbps .. 10 Tbps.'),
    R0: str = typer.Option(..., "--R0", "--r0", "--base-rtt", help='Base RTT R0, e.g. "80us"; 1 us .. 1 s.'),
    p: float = typer.Option(0.95, "--p", help="Constant probability that Q > 0, 1e-6 <= p <= 1 - 1e-6 (paper: 0.95)."),
    seg: str = typer.Option("1500B", "--seg", "--packet-size",
                            help='Segment size seg in bytes, e.g. "1500B"; 1 B .. 65535 B (also --packet-size, as in fluid dx).'),
    as_json: bool = typer.Option(False, "--json", help="Print machine-readable JSON (SI units in the keys)."),
) -> None:
    """Equilibrium (5)-(8), omega_c (16), Theorem 1 bound (17) as printed / corrected / numerical, thresholds."""
    from dcsim.cli import console
    from dcsim.commands.inputs import fail, number, quantity, whole_bytes
    from dcsim.theory import dx as th
    from dcsim.theory import limits as L
    from dcsim.units import fmt_rate, fmt_time, parse_rate, parse_time

    N = number(N, "--N", L.N_FLOWS)
    C_bps = quantity(C, "--C", parse_rate, L.CAPACITY)
    R0_s = quantity(R0, "--R0", parse_time, L.DELAY)
    p = number(p, "--p", L.PROB_P)
    seg_bytes = whole_bytes(seg, "--seg")
    try:
        r = th.analyze(N, C_bps, R0_s, p, seg_bytes)
    except ValueError as e:
        fail(str(e))
    if as_json:
        typer.echo(dumps(r, indent=2))
        return

    us = lambda s: fmt_time(s) if s is not None else "none"  # noqa: E731
    e, lin, t1, t2 = r["equilibrium"], r["linearization"], r["theorem1"], r["theorem2"]
    head = f"N = {N:g} flows, C = {fmt_rate(C_bps)}, R0 = {fmt_time(R0_s)}, p = {p:g}, seg = {seg_bytes:g} B"

    special = r["theorem2"]["special_state"]
    t = titled_table(f"DX equilibrium, eqs. (5)-(8) — {head}"
                     + (" [yellow](x >= 1: Theorem 2's special state, below, is this equilibrium's p -> 1 limit)[/]"
                        if special else ""))
    t.add_column("quantity")
    t.add_column("value", justify="right")
    t.add_row("queueing delay Q0 (7)", f"{fmt_time(e['Q0_s'])} = {e['q0_pkt']:.4g} pkt")
    t.add_row("window W0 (6)", f"{e['W0_pkt']:.4g} pkt = {e['W0_bytes']:.6g} B")
    t.add_row("RTT R0 + Q0", fmt_time(e["rtt_s"]))
    t.add_row("load x = N seg / (C R0)", f"{e['x_load']:.4g} (x >= 1: Theorem 2)")
    t.add_row("a1, b2 (11)", f"{lin['a1_per_s']:.5g} 1/s, {lin['b2_per_s']:.5g} 1/s")
    t.add_row("a2, b1 (11)", f"{lin['a2_bit_per_s2']:.5g} bit/s², {lin['b1_per_bit']:.5g} 1/bit")
    print_table(console, t)

    t = titled_table("Theorem 1: the DX system is stable if tau < bound (17)")
    t.add_column("quantity")
    t.add_column("value", justify="right")
    t.add_column("note")
    t.add_row("crossover omega_c (16)", f"{t1['omega_c_rad_s']:.6g} rad/s", "|G(j omega_c)| = 1")
    t.add_row("bound (17), corrected", fmt_time(t1["tau_bound_s"]), "phase of the zero taken with its true sign")
    t.add_row("bound (17), as printed", fmt_time(t1["tau_bound_paper_s"]), "sign error in (15); not a valid bound")
    if t1["tau_critical_numerical_s"] is not None:
        t.add_row("critical delay, numerical", fmt_time(t1["tau_critical_numerical_s"]),
                  "rightmost characteristic root on Re s = 0; differs from corrected by "
                  f"{t1['rel_diff_bound_vs_numerical']:.1e}")
    else:
        t.add_row("critical delay, numerical", "not found", escape(r["notes"].get("tau_critical_numerical_s", "")))
    t.add_row("tau = R0", f"{fmt_time(R0_s)}: {'stable' if t1['stable_tau_R0'] else 'not certified stable'}",
              "the reading nearest the paper's Sect. 4.3 numbers; not all of its thresholds "
              "(`dcsim reproduce dx-thresholds` compares each)")
    t.add_row("tau = R0 + Q0", f"{fmt_time(e['rtt_s'])}: {'stable' if t1['stable_tau_R0_plus_Q0'] else 'not certified stable'}", "")
    n_min = t1["N_min_stable"]
    n_text = ("no bound found" if n_min is None else f"every N >= 1 (the bound is {n_min:.4g} flows)" if n_min < 1
              else f"{n_min:.4g} flows")
    t.add_row(f"stable for N > (at R0 = {fmt_time(R0_s)})", n_text,
              "tau = R0" + ("" if n_min is not None else "; " + escape(r["notes"].get("N_min_stable", ""))))
    r0_max = t1["R0_max_stable_s"]
    t.add_row(f"stable for R0 < (at N = {N:g})", us(r0_max) if r0_max is not None else "no bound found",
              "tau = R0" + ("" if r0_max is not None else "; " + escape(r["notes"].get("R0_max_stable_s", ""))))
    print_table(console, t)

    t = titled_table("Theorem 2: special stable state (window floor one segment)")
    t.add_column("quantity")
    t.add_column("value", justify="right")
    t.add_column("note")
    t.add_row(f"N >= C R0 / seg (at R0 = {fmt_time(R0_s)})",
              f"{t2['N_min_special']:.4g} flows (integer {math.ceil(t2['N_min_special'] - 1e-9)})", "")
    t.add_row(f"R0 <= N seg / C (at N = {N:g})", fmt_time(t2["R0_max_special_s"]), "")
    t.add_row("in the special state", "yes" if t2["special_state"] else "no", "")
    if t2["special_state"]:
        t.add_row("fixed point W*, Q*", f"{t2['W_star_pkt']:g} pkt, {fmt_time(t2['Q_star_s'])} = {t2['q_star_pkt']:.4g} pkt",
                  "the window frozen at one segment (Sect. 3.3): (7) at p -> 1, where DX's p is in this state "
                  "(Table 1: p > 0.999 at N >= 80, R0 = 80 us)")
        t.add_row(f"the fluid model (3)-(4) at p = {p:g}", f"{fmt_time(e['Q0_s'])}, W0 = {e['W0_pkt']:.4g} pkt",
                  "settles at (7) above: with p < 1, (5) puts W0 above one segment, so the floor does not hold "
                  "the window (`dcsim fluid dx`)")
    print_table(console, t)

