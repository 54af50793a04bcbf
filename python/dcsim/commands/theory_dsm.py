"""`dcsim theory dsm`: DSM admissible parameters (eqs. 6, 23, 27-31, §V) and the discrete model's check."""

from __future__ import annotations

import json
import math
from typing import Optional

import typer
from rich.table import Table

PAPER = "Cheng et al., Congestion Control in Converged Ethernet with Heterogeneous and Time-Varying Delays (DSM)"

#: Limits that keep every quantity finite and meaningful (beyond them: exit 2 naming the option).
MAX_C_BPS = 1e15        # 1 Pbit/s
MAX_BYTES = 1e12        # 1 TB
MAX_DELAY_S = 1e3
MAX_H_HZ = 1e15
MAX_SAMPLES = 1_000_000


def _json_safe(x):
    """Non-finite floats (an unbounded eq. 31 bound) become null: strict JSON has no Infinity."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_json_safe(v) for v in x]
    return x


def _hz(x: float) -> str:
    return f"{x / 1e3:.4g} kHz" if abs(x) >= 1e3 else f"{x:.4g} Hz"


def _per_s(x: float) -> str:
    return "∞ 1/s (no bound)" if math.isinf(x) else f"{x:.5g} 1/s"


def _kb(x: float) -> str:
    return f"{x / 1e3:.5g} KB"


def dsm(
    C: str = typer.Option(..., "--C", "--c", "--capacity", help='Bottleneck capacity C, e.g. "10Gbps".'),
    q0: str = typer.Option("64KB", "--q0", help='Target queue q0 (> 0), e.g. "64KB" (paper §V: 64KB).'),
    p: float = typer.Option(0.01, "--p", help="Sampling probability p, 0 < p <= 1 (paper: 0.01)."),
    m: Optional[int] = typer.Option(None, "--m", help="Delay bound m used by the controller, integer >= 0 (default: eq. 6 from --delay)."),
    delay: str = typer.Option(..., "--delay", help='Largest feedback-loop delay tau (>= 0), e.g. "300us".'),
    frame: str = typer.Option("1000B", "--frame", help='Frame size that makes C a frame rate (paper: 1KB = 1000B).'),
    omega: float = typer.Option(5.0, "--omega", help="Switching-line weight omega > 0 (paper: 5)."),
    Ha: float = typer.Option(20e3, "--Ha", "--ha", help="H_a = (m²+4m+2) a in Hz (paper: 20000)."),
    Hb: float = typer.Option(20e3, "--Hb", "--hb", help="H_b = (2m+3) b in Hz (paper: 20000)."),
    Hc: float = typer.Option(20e3, "--Hc", "--hc", help="H_c = 2c in Hz (paper: 20000)."),
    qf_max: Optional[str] = typer.Option(None, "--qf-max", help="max |Q_f| for eq. (29)-(31), e.g. \"100KB\" (default: C T, our reading of §V)."),
    qv_max: Optional[str] = typer.Option(None, "--qv-max", help="max |Q_v| for eq. (29)-(31) (default: 1.5 C T, our reading of §V)."),
    simulate: bool = typer.Option(True, "--simulate/--no-simulate", help="Iterate the discrete model (eq. 9) and report convergence to q0."),
    samples: int = typer.Option(2000, "--samples", help="Sampling periods to iterate the model (1..1000000)."),
    as_json: bool = typer.Option(False, "--json", help="Print machine-readable JSON (SI units in the keys)."),
) -> None:
    """Admissible a, b, c, omega (eq. 23, 31), H form (§V), |u|max <= C (27), delay bound m (6)."""
    from dcsim.cli import console, fail
    from dcsim.theory import dsm as th
    from dcsim.units import UnitError, fmt_rate, fmt_time, parse_rate, parse_size, parse_time

    def size_bytes(value: str, opt: str, allow_zero: bool = False) -> float:
        s = parse_size(value, opt)
        if s.unit != "B":
            raise UnitError(f"{opt} must be a size in bytes such as 64KB or 1000B, got {value!r}")
        ok = (s.value >= 0 if allow_zero else s.value > 0) and s.value <= MAX_BYTES
        if not ok:
            raise UnitError(f"{opt} must be {'>= 0' if allow_zero else '> 0'} B and at most {MAX_BYTES:g} B, got {value!r}")
        return s.value

    try:
        C_bps = parse_rate(C, "--C")
        if not 0 < C_bps <= MAX_C_BPS:
            raise UnitError(f"--C must be > 0 bit/s and at most {MAX_C_BPS:g} bit/s, got {C!r}")
        q0_bytes = size_bytes(q0, "--q0")
        frame_bytes = size_bytes(frame, "--frame")
        delay_s = parse_time(delay, "--delay")
        if not 0 <= delay_s <= MAX_DELAY_S:
            raise UnitError(f"--delay must be >= 0 s and at most {MAX_DELAY_S:g} s, got {delay!r}")
        qf_bytes = size_bytes(qf_max, "--qf-max") if qf_max is not None else None
        qv_bytes = size_bytes(qv_max, "--qv-max", allow_zero=True) if qv_max is not None else None
    except UnitError as e:
        fail(str(e))
    checks = [
        (math.isfinite(p) and 0 < p <= 1, f"--p must satisfy 0 < p <= 1, got {p}"),
        (m is None or 0 <= m <= th.MAX_M, f"--m must be an integer with 0 <= m <= {th.MAX_M}, got {m}"),
        (math.isfinite(omega) and 0 < omega <= 1e12, f"--omega must be > 0 and finite, got {omega}"),
        (math.isfinite(Ha) and 0 < Ha <= MAX_H_HZ, f"--Ha must be > 0 Hz and at most {MAX_H_HZ:g} Hz, got {Ha}"),
        (math.isfinite(Hb) and 0 < Hb <= MAX_H_HZ, f"--Hb must be > 0 Hz and at most {MAX_H_HZ:g} Hz, got {Hb}"),
        (math.isfinite(Hc) and 0 < Hc <= MAX_H_HZ, f"--Hc must be > 0 Hz and at most {MAX_H_HZ:g} Hz, got {Hc}"),
        (1 <= samples <= MAX_SAMPLES, f"--samples must be an integer in [1, {MAX_SAMPLES}], got {samples}"),
    ]
    for ok, msg in checks:
        if not ok:
            fail(msg)
    T_s = th.sampling_period_s(C_bps, p, frame_bytes)
    if delay_s / T_s > th.MAX_M:
        fail(f"--delay {delay!r} is {delay_s / T_s:.4g} sampling periods T = {fmt_time(T_s)}; allowed at most m = {th.MAX_M}")
    try:
        r = th.analyze(C_bps, q0_bytes, p, delay_s, m, omega=omega, H_a_hz=Ha, H_b_hz=Hb, H_c_hz=Hc,
                       frame_bytes=frame_bytes, qf_max_bytes=qf_bytes, qv_max_bytes=qv_bytes,
                       simulate=simulate, n_samples=samples)
    except ValueError as e:
        fail(str(e))
    if as_json:
        typer.echo(json.dumps(_json_safe(r), indent=2, allow_nan=False))
        return

    rg, ck = r["ranges"], r["checks"]
    mark = lambda ok: "[green]yes[/]" if ok else "[bold red]no[/]"  # noqa: E731
    t = Table(title=f"DSM setting — {PAPER}")
    t.add_column("quantity")
    t.add_column("value", justify="right")
    t.add_column("source")
    t.add_row("capacity C", f"{fmt_rate(C_bps)} = {C_bps / (8 * frame_bytes):.6g} frames/s", f"{frame_bytes:g} B frames (--frame)")
    t.add_row("sampling period T = 1/(p C)", f"{fmt_time(r['T_s'])}  (2/T = {_hz(r['two_over_T_hz'])})", "§III.A, §V")
    t.add_row("loop delay tau", fmt_time(delay_s), "--delay")
    t.add_row("m from the delay, ceil(tau/T)", f"{r['m_from_delay']} periods", "eq. (6)")
    m_note = "--m" if r["m_given"] else "eq. (6)"
    if r["m_below_delay_bound"]:
        m_note += " [bold red](below the delay bound: stability not guaranteed, §IV.C)[/]"
    t.add_row("m used", f"{r['m']} periods", m_note)
    t.add_row("target queue q0", _kb(q0_bytes), "--q0")
    t.add_row("max |Q_f|, max |Q_v|", f"{_kb(r['qf_max_bytes'])}, {_kb(r['qv_max_bytes'])}  (p·max = {rg['p_qf_max']:.4g}, {rg['p_qv_max']:.4g} frames)",
              "given" if r["qf_qv_max_source"] == "given" else "§V reading: C T and 1.5 C T")
    console.print(t)

    t = Table(title=f"Admissible gains (ξ = 0, constant delays), m = {r['m']}, ω = {omega:g}")
    t.add_column("gain")
    t.add_column("lower bound")
    t.add_column("upper, eq. (23)")
    t.add_column("upper, eq. (31)")
    t.add_column("§V H form")
    t.add_column("chosen")
    t.add_column("inside")
    t.add_row("a", f"> {_per_s(rg['a_min'])}", f"< {_per_s(rg['a_max_eq23'])}", f"< {_per_s(rg['a_max_eq31'])}",
              f"H_a < {_hz(rg['H_a_max_hz'])}", f"{_per_s(r['a_per_s'])} (H_a = {_hz(Ha)})", mark(ck["a_eq23"] and ck["a_eq31"]))
    t.add_row("b", f"> {_per_s(rg['b_min_eq23'])} (eq. 23)", f"< {_per_s(rg['b_max_eq23'])}", f"< {_per_s(rg['b_max_eq31'])}",
              f"H_b < {_hz(rg['H_b_max_hz'])}", f"{_per_s(r['b_per_s'])} (H_b = {_hz(Hb)})",
              mark(ck["b_eq23_lower"] and ck["b_eq23_upper"] and ck["b_eq31"]))
    t.add_row("c", f"> {_per_s(rg['c_min'])}", f"< {_per_s(rg['c_max_eq23'])}", f"< {_per_s(rg['c_max_eq31'])}",
              f"H_c < {_hz(rg['H_c_max_hz'])}", f"{_per_s(r['c_per_s'])} (H_c = {_hz(Hc)})", mark(ck["c_eq23"] and ck["c_eq31"]))
    t.add_row("ω", f"> {rg['omega_min_eq31']:.4g} (eq. 31)", "", "", "", f"{omega:g} (dimensionless)", mark(ck["omega_eq31"]))
    console.print(t)
    if not ck["b_eq23_lower"]:
        console.print(f"[yellow]b = {_per_s(r['b_per_s'])} is below eq. (23)'s 1/((ω+1)T) = {_per_s(rg['b_min_eq23'])}: "
                      "the sliding condition (20) fails in StateB. (The paper's own §V choice, H_b = 20 kHz at m = 4, ω = 5, "
                      f"does this; b inside needs H_b in ({_hz(rg['b_min_eq23'] * (2 * r['m'] + 3))}, {_hz(rg['H_b_max_hz'])}).)[/]")

    e = r["eq27"]
    t = Table(title="Eq. (27): one adjustment |u| must not exceed C (bounds of eq. 29)")
    t.add_column("region")
    t.add_column("|u| max", justify="right")
    t.add_column("from")
    t.add_row("StateA", fmt_rate(e["u_max_A_bps"]), f"a · |Q̂_f|max, |Q̂_f|max = {_kb(e['qf_hat_max_bytes'])}")
    t.add_row("StateB", fmt_rate(e["u_max_B_bps"]), f"b · |Q̂_v|max, |Q̂_v|max = {_kb(e['qv_hat_max_bytes'])}")
    t.add_row("StateC", fmt_rate(e["u_max_C_bps"]), "c · max Q_f (the paper drops the m terms for c)")
    t.add_row("[bold]max vs C[/]", f"{fmt_rate(e['u_max_bps'])} vs {fmt_rate(C_bps)}", mark(e["ok"]))
    console.print(t)

    if simulate:
        s = r["simulation"]
        t = Table(title=f"Discrete model, eq. (9), closed by DSM: constant loop delay {s['delay_samples']} T, "
                        "start with an empty queue and aggregate rate C")
        t.add_column("quantity")
        t.add_column("value", justify="right")
        t.add_row("iterated", f"{s['n_samples']} periods = {fmt_time(s['duration_s'])}")
        settle = s["settling_time_1pct_s"]
        t.add_row("settles within 1 % of q0 after", fmt_time(settle) if settle is not None else "[bold red]never[/]")
        t.add_row("final queue", f"{_kb(s['q_final_bytes'])} (q0 = {_kb(q0_bytes)})")
        t.add_row("largest |q - q0| over the last 10 %", f"{s['tail_max_abs_error_bytes']:.3g} B")
        t.add_row("queue range", f"{_kb(s['q_min_bytes'])} .. {_kb(s['q_max_bytes'])}")
        console.print(t)
