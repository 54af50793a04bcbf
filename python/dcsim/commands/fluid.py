"""`dcsim fluid dctcp | dx | dctcp-fig2`: integrate the papers' fluid models, summarize, export, plot.

* ``dctcp`` — eqs. (5)-(8) of Alizadeh, Javanmard & Prabhakar, "Analysis of DCTCP" (2011).
* ``dx`` — eqs. (3)-(4) of Jiang et al., "Modeling and Analysis of ... DX".
* ``dctcp-fig2`` — the Fig. 2 setting (10 Gbps, 100 us, K = 65, g = 1/16, N = 2, 10, 100):
  fig2_N{N}.csv (its parameters in fig2_N{N}.params.json) + .png, ready to be laid beside the packet simulation.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

import typer

from rich.markup import escape

from dcsim._console import print_table, say, titled_table
from dcsim._json import dumps

if TYPE_CHECKING:  # numpy and pandas load only when a command computes (fast --help)
    import pandas as pd

DCTCP_PAPER = "Alizadeh, Javanmard, Prabhakar, Analysis of DCTCP (SIGMETRICS 2011), eqs. (5)-(8)"
DX_PAPER = "Jiang et al., Modeling and Analysis of the Latency-Based Congestion Control Algorithm DX, eqs. (3)-(4)"
FIG2_N = (2, 10, 100)


# ------------------------------------------------------------------------------------------------
# summaries (pure functions of a trajectory; used by the CLI and the tests)
# ------------------------------------------------------------------------------------------------

def _grid_stats(df: pd.DataFrame, model: str) -> dict:
    """The run's statistics at every integration step (``df.attrs["stats"]`` of dcsim.fluid)."""
    st = df.attrs.get("stats")
    if df.attrs.get("model") != model or not isinstance(st, dict):
        raise ValueError(f"the {model} summary needs a run of dcsim.fluid.{model} (its df.attrs['stats']: "
                         "statistics at every integration step); this frame has none")
    return st


def _window(df: pd.DataFrame, st: dict) -> dict:
    """A summary's window of statistics (every step) and its output rows: where they start and end,
    the steps counted, the rows written and their spacing (s; the run's length for one row)."""
    t = df.t_s
    return {"window_from_s": st["from_s"], "window_to_s": st["to_s"], "t_end_s": float(t.iloc[-1]),
            "window_steps": st["steps"], "rows": len(df),
            "sample_dt_s": float(t.iloc[1] - t.iloc[0]) if len(t) > 1 else float(t.iloc[-1])}


#: Feedback delays the window of statistics must span for its figures to describe more than the
#: run's start, and each half of it for :func:`_notes` to judge whether the run settled. A window of
#: n + f periods (whole n, fraction f) of a settled cycle has its mean off the cycle's by at most
#: range x f(1 - f)/(n + f) <= range / (4 (n + f)), so two halves of >= 2.1 periods each (25 delays:
#: DCTCP's limit cycle takes 8-12 R*, DX's about 7 tau) differ by < 0.24 of the range, under the bar
#: SETTLE_FRAC = 0.25; a drift across the window moves the half means by about half its range.
#: A run near its fixed point still relaxes towards it (N = 100 at 10 Gbps: the half means 117.3 and 116.8
#: pkt, its whole range): a move below SETTLE_REL of the mean is settled for a summary's digits.
MIN_WINDOW_DELAYS, SETTLE_HALF_DELAYS, SETTLE_FRAC, SETTLE_REL = 10, 25, 0.25, 0.01


def _notes(df: pd.DataFrame, st: dict, delay_s: float, delay: str, col: str, unit: str) -> list[str]:
    """What a reader of a summary must know that its numbers do not say (a probe: a 20 ms run with a
    1 s feedback delay printed 'time marked 100 %' of its first 3 steps without a word):

    * the window of statistics spans fewer than MIN_WINDOW_DELAYS feedback delays: its figures
      describe the run's start (the initial condition), not a steady state;
    * the run has not settled: the means of ``col`` over the two halves of the window differ by
      more than SETTLE_FRAC of its range over the window and SETTLE_REL of the means (judged where
      each half spans at least SETTLE_HALF_DELAYS delays, from the output rows);
    * the run went more than 1 % past --t-end (it ends at the first whole output row at or after it)."""
    from dcsim.units import fmt_time

    out = []
    lo, hi = float(st["from_s"]), float(st["to_s"])
    span = (hi - lo) / delay_s
    if span < MIN_WINDOW_DELAYS:
        out.append(f"the window of statistics spans {span:.3g} feedback delays ({delay} = {fmt_time(delay_s)}): its "
                   f"figures describe the run's start, not a steady state; give --t-end >= "
                   f"{fmt_time(2 * MIN_WINDOW_DELAYS * delay_s)} (or more, to let it settle)")
    elif span < 2 * SETTLE_HALF_DELAYS:
        # too short to tell a steady state from a transient: halves shorter than SETTLE_HALF_DELAYS
        # would judge a limit cycle's phase as a drift (a review: N = 1000, 8 ms, a window of 22
        # R* with the queue still rising 1482 -> 1780 pkt of its 1917 said nothing)
        out.append(f"the window of statistics spans {span:.3g} feedback delays ({delay} = {fmt_time(delay_s)}): too "
                   f"short to tell whether the run settled; give --t-end >= "
                   f"{fmt_time(4 * SETTLE_HALF_DELAYS * delay_s)} to have it judged")
    else:
        t, v = df.t_s.to_numpy(), df[col].to_numpy()
        mid = (lo + hi) / 2
        a, b = v[(t >= lo) & (t < mid)], v[(t >= mid) & (t <= hi)]
        if len(a) and len(b):
            ma, mb, rng = float(a.mean()), float(b.mean()), float(max(a.max(), b.max()) - min(a.min(), b.min()))
            if abs(mb - ma) > max(SETTLE_FRAC * rng, SETTLE_REL * max(abs(ma), abs(mb))):
                out.append(f"not settled: the mean {col} moved from {ma:.4g}{unit} to {mb:.4g}{unit} between the halves of "
                           f"the window of statistics (more than {SETTLE_FRAC:g} of its range there, {rng:.4g}{unit}); the "
                           "figures describe a transient: give a longer --t-end")
    t_last, asked = float(df.t_s.iloc[-1]), float(df.attrs.get("t_end_asked_s", hi))
    if t_last > asked * 1.01:
        out.append(f"the run went to {fmt_time(t_last)}, {100 * (t_last / asked - 1):.0f} % past --t-end = "
                   f"{fmt_time(asked)}: it ends at the first whole output row (of whole integration steps) at or after "
                   "it")
    return out


def dctcp_summary(df: pd.DataFrame) -> dict:
    """Statistics of a :func:`dcsim.fluid.dctcp` run over every integration step of its window
    (default the second half of the run), not over its decimated rows.

    utilization = time average of min(1, N W / (R C)) where q = 0, 1 where q > 0 (the link is busy
    whenever the queue is not empty); marking_fraction = time average of p = 1{q > K} (eq. (8)).
    """
    from dcsim.theory.dctcp import is_fixed_point_regime

    a = df.attrs
    st = _grid_stats(df, "dctcp")
    return {
        "model": "dctcp", "paper": DCTCP_PAPER,
        "C_bps": a["C_bps"], "d_s": a["d_s"], "K_pkt": a["K_pkt"], "g": a["g"], "N": a["N"],
        "packet_bytes": a["packet_bytes"], "R_star_s": a["R_star_s"], "wbar_pkt": a["wbar"],
        "queue_floor": a["queue_floor"],
        "regime": "fixed point (wbar <= 2)" if is_fixed_point_regime(a["wbar"]) else "limit cycle (wbar > 2)",
        **_window(df, st),
        "q_pkt": st["q_pkt"], "W_pkt": st["W_pkt"], "alpha": st["alpha"],
        "utilization": st["utilization"]["mean"], "marking_fraction": st["p"]["mean"],
        "notes": _notes(df, st, a["R_star_s"], "R* = d + K/C", "q_pkt", " pkt"),
    }


def dx_summary(df: pd.DataFrame) -> dict:
    """Statistics of a :func:`dcsim.fluid.dx` run over every integration step of its window
    (default the second half of the run).

    busy_fraction = fraction of time Q > 0 (the link is surely busy then; when Q = 0 the input rate
    N W/(R0 + Q(t - tau)) may still be below C).
    """
    a = df.attrs
    st = _grid_stats(df, "dx")
    return {
        "model": "dx", "paper": DX_PAPER,
        "N": a["N"], "C_bps": a["C_bps"], "R0_s": a["R0_s"], "tau_s": a["tau_s"], "p": a["p"],
        "packet_bytes": a["packet_bytes"], "window_floor": a["window_floor"],
        **_window(df, st),
        "Q_s": st["Q_s"], "q_pkt": st["q_pkt"], "W_pkt": st["W_pkt"],
        "busy_fraction": st["busy"]["mean"],
        "notes": _notes(df, st, a["tau_s"], "tau", "q_pkt", " pkt"),
    }


# ------------------------------------------------------------------------------------------------
# plots (matplotlib, Agg)
# ------------------------------------------------------------------------------------------------

def _trace(ax, t_ms, df: pd.DataFrame, col: str, **line) -> None:
    """Column ``col`` against time, over the band its envelope columns (``envelope=True`` of
    dcsim.fluid) give when the rows skip steps: what the state swept between two rows, which a
    line through rows sampled slower than the cycle would alias."""
    lo, hi = df.get(col + "_lo"), df.get(col + "_hi")
    if lo is not None and hi is not None and bool((hi > lo).any()):
        # Rows a quarter of the whole range apart (median) are slower than the dynamics: a line
        # through them is an alias, so the band alone is drawn.
        coarse = float((hi - lo).median()) > 0.25 * float(hi.max() - lo.min())
        ax.fill_between(t_ms, lo, hi, color="0.35" if coarse else "0.75", lw=0, step="pre",
                        label=line.pop("label", None) if coarse else "range between rows")
        if coarse:
            return
        line = {**line, "lw": 0.6}
    ax.plot(t_ms, df[col], "k-", **{"lw": 1.2, **line})


def plot_dctcp(df: pd.DataFrame, path: Path, title: Optional[str] = None) -> Path:
    """Like Fig. 2 of the DCTCP analysis paper: window, alpha and queue against time."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    a = df.attrs
    t_ms = df.t_s * 1e3
    fig, ax = plt.subplots(3, 1, figsize=(6.4, 6.4), sharex=True)
    _trace(ax[0], t_ms, df, "W_pkt")
    ax[0].set_ylabel("Window W (packets)")
    _trace(ax[1], t_ms, df, "alpha")
    ax[1].set_ylabel("alpha")
    ax[1].set_ylim(0, 1.05)
    _trace(ax[2], t_ms, df, "q_pkt", label="queue q(t)")
    ax[2].axhline(a["K_pkt"], color="gray", ls="--", lw=1, label=f"K = {a['K_pkt']:g} pkt")
    ax[2].set_ylabel("Queue (packets)")
    ax[2].set_xlabel("Time (ms)")
    ax[2].legend(loc="upper right", fontsize=8)
    for x in ax:
        x.grid(alpha=0.3)
    fig.suptitle(title or (f"DCTCP fluid model: C = {a['C_bps'] / 1e9:g} Gbps, d = {a['d_s'] * 1e6:g} us, "
                           f"K = {a['K_pkt']:g} pkt, g = {a['g']:g}, N = {a['N']:g}"
                           + ("" if a.get("queue_floor", True) else "\nno queue floor (--no-floor): q may go below "
                              "0, as eq. (7) is printed")), fontsize=10)
    fig.tight_layout()
    _save(fig, path)
    return path


def plot_dx(df: pd.DataFrame, path: Path) -> Path:
    """Window and queue against time (the quantities of Fig. 2 of the DX paper)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    a = df.attrs
    t_ms = df.t_s * 1e3
    fig, ax = plt.subplots(2, 1, figsize=(6.4, 5.0), sharex=True)
    _trace(ax[0], t_ms, df, "W_pkt")
    ax[0].set_ylabel("Window W (packets)")
    _trace(ax[1], t_ms, df, "q_pkt")
    ax[1].set_ylabel("Queue length (packets)")
    ax[1].set_xlabel("Time (ms)")
    sec = ax[1].secondary_yaxis("right", functions=(lambda q: q / a["C_pps"] * 1e6, lambda us: us * 1e-6 * a["C_pps"]))
    sec.set_ylabel("Queueing delay Q (us)")
    for x in ax:
        x.grid(alpha=0.3)
    fig.suptitle(f"DX fluid model: N = {a['N']:g}, C = {a['C_bps'] / 1e9:g} Gbps, R0 = {a['R0_s'] * 1e6:g} us, "
                 f"tau = {a['tau_s'] * 1e6:g} us, p = {a['p']:g}", fontsize=10)
    fig.tight_layout()
    _save(fig, path)
    return path


# ------------------------------------------------------------------------------------------------
# export
# ------------------------------------------------------------------------------------------------

def _save(fig, path: Path) -> None:
    """Write a figure renamed into place (a failure leaves the earlier file) and close it."""
    import matplotlib.pyplot as plt

    from dcsim._files import atomic_write_with

    try:
        atomic_write_with(Path(path), lambda tmp: fig.savefig(tmp, dpi=120))
    finally:
        plt.close(fig)


def write_csv(df: pd.DataFrame, path: Path) -> Path:
    """A plain CSV (one header row, units in the column names; ``pd.read_csv(path)`` reads it) and
    the model's parameters beside it in ``<name>.params.json``, each renamed into place: a failure
    leaves the earlier files, and a CSV that could not be written gets no parameters beside it (a
    full disk had left a truncated CSV beside the parameters of the run before: a review)."""
    from dcsim._files import atomic_write_bytes, atomic_write_with

    path = Path(path)
    atomic_write_with(path, lambda tmp: df.to_csv(tmp, index=False, float_format="%.10g"))
    if df.attrs:
        params = {str(k): (v if isinstance(v, (int, float, str, bool, dict)) or v is None else str(v))
                  for k, v in df.attrs.items()}  # dict: the statistics at every step
        atomic_write_bytes(params_file(path), (dumps(params, indent=2) + "\n").encode("utf-8"), fsync=False)
    return path


def params_file(csv: Path) -> Path:
    """Where :func:`write_csv` puts the parameters of the model run in ``csv``."""
    return Path(csv).with_suffix(".params.json")


def fig2_files(out_dir: Path, N: int) -> tuple[Path, Path, Path]:
    """The files :func:`fig2` writes for one N: its CSV, the CSV's parameters and its PNG."""
    csv = Path(out_dir) / f"fig2_N{N}.csv"
    return csv, params_file(csv), Path(out_dir) / f"fig2_N{N}.png"


def fig2(out_dir: Path, t_end_s: float = 0.03, N_values=FIG2_N, errors: Optional[list] = None) -> dict[int, dict]:
    """Acceptance point 4: the fluid model at the Fig. 2 setting, one CSV + PNG per N.

    Returns {N: {"df": DataFrame, "files": [the paths written]}}. With ``errors`` (a list), a
    file that cannot be written adds a line to it and the other files and N still come; without,
    the OSError is raised.
    """
    from dcsim import fluid

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    res = {}
    for N in N_values:
        df = fluid.dctcp(10e9, 100e-6, 65.0, 1 / 16, N, t_end_s=t_end_s, sample_dt_s=None, envelope=True)
        csv, params, png = fig2_files(out_dir, N)
        title = f"Fig. 2 setting (fluid): 10 Gbps, d = 100 us, K = 65 pkt, g = 1/16, N = {N}"
        files = []
        for write, shown in ((lambda: write_csv(df.drop(columns=fluid.envelope_columns(df)), csv), [csv, params]),
                             (lambda: plot_dctcp(df, png, title=title), [png])):
            try:
                write()
                files += [str(f) for f in shown if f.exists()]
            except OSError as e:
                if errors is None:
                    raise
                errors.append(f"--out: cannot write {e.filename or shown[0]}: {e.strerror or e}")
        res[N] = {"df": df, "files": files}
    return res


# ------------------------------------------------------------------------------------------------
# CLI
# ------------------------------------------------------------------------------------------------

def _print_dctcp(s: dict) -> None:
    from dcsim.cli import console
    from dcsim.units import fmt_rate, fmt_time

    t = titled_table(f"DCTCP fluid model, N = {s['N']:g} ({s['regime']})")
    t.add_column("quantity")
    t.add_column("value")
    t.add_row("C, d, K, g", f"{fmt_rate(s['C_bps'])}, {fmt_time(s['d_s'])}, {s['K_pkt']:g} pkt, {s['g']:g}")
    t.add_row("feedback delay R* = d + K/C", fmt_time(s["R_star_s"]))
    t.add_row("wbar = (Cd + K)/N", f"{s['wbar_pkt']:.4g} pkt")
    t.add_row("window of statistics", f"{fmt_time(s['window_from_s'])} .. {fmt_time(s['window_to_s'])}, "
                                      f"every step ({s['window_steps']:,})")
    t.add_row("output rows", f"{s['rows']:,}, every {fmt_time(s['sample_dt_s'])}")
    for k, lab, u in (("q_pkt", "queue q", " pkt"), ("W_pkt", "window W", " pkt"), ("alpha", "alpha (dimensionless)", "")):
        st = s[k]
        t.add_row(f"{lab} min / mean / max", f"{st['min']:.4g}{u} / {st['mean']:.4g}{u} / {st['max']:.4g}{u}")
    t.add_row("link utilization", f"{100 * s['utilization']:.2f} %")
    t.add_row("time marked (q > K)", f"{100 * s['marking_fraction']:.1f} %")
    print_table(console, t)
    _print_notes(s)
    if not s["queue_floor"] and s["q_pkt"]["min"] < 0:
        console.print(f"note: --no-floor: the queue went below 0 (to {s['q_pkt']['min']:.4g} pkt), eq. (7) as printed; "
                      "a real queue empties and drains no further, so the utilization and RTT there are outside the "
                      "physical model", markup=False)


def _print_dx(s: dict) -> None:
    from dcsim.cli import console
    from dcsim.units import fmt_rate, fmt_time

    t = titled_table(f"DX fluid model, N = {s['N']:g}")
    t.add_column("quantity")
    t.add_column("value")
    t.add_row("C, R0, tau, p", f"{fmt_rate(s['C_bps'])}, {fmt_time(s['R0_s'])}, {fmt_time(s['tau_s'])}, {s['p']:g}")
    t.add_row("window of statistics", f"{fmt_time(s['window_from_s'])} .. {fmt_time(s['window_to_s'])}, "
                                      f"every step ({s['window_steps']:,})")
    t.add_row("output rows", f"{s['rows']:,}, every {fmt_time(s['sample_dt_s'])}")
    st = s["Q_s"]
    t.add_row("queueing delay Q min / mean / max", f"{fmt_time(st['min'])} / {fmt_time(st['mean'])} / {fmt_time(st['max'])}")
    for k, lab in (("q_pkt", "queue"), ("W_pkt", "window W")):
        st = s[k]
        t.add_row(f"{lab} min / mean / max", f"{st['min']:.4g} pkt / {st['mean']:.4g} pkt / {st['max']:.4g} pkt")
    t.add_row("time with Q > 0", f"{100 * s['busy_fraction']:.1f} % (the paper's p measured; not the utilization: "
                                 "the link can be full at Q = 0)")
    print_table(console, t)
    _print_notes(s)


def _print_notes(s: dict) -> None:
    """A summary's notes (:func:`_notes`), one line each, under its table."""
    from dcsim.cli import console

    for n in s.get("notes", []):
        console.print(f"[yellow]note:[/] {escape(n)}")


def _check_outputs(csv: Optional[Path], plot: Optional[Path]) -> None:
    """Fail (exit 2) on an output path that cannot be written, before anything is integrated."""
    from dcsim.commands.inputs import CSV_SUFFIXES, output_file, plot_suffixes

    output_file(csv, "--csv", CSV_SUFFIXES)
    if plot is not None:
        output_file(plot, "--plot", plot_suffixes())


def _grid(t_end: str, dt: Optional[str], dt_max_s: float, default_dt_s: float,
          delay: Optional[tuple[float, str]] = None, has_dt: bool = True) -> tuple[float, Optional[float]]:
    """--t-end and --dt: their ranges and the step budget (dcsim.theory.limits.MAX_STEPS).

    ``dt_max_s`` is half the delay (the integrator needs dt <= delay/2); ``default_dt_s`` the step
    dcsim.fluid takes when --dt is not given; ``has_dt``: whether the command has a --dt to suggest.
    """
    from dcsim.commands.inputs import fail, quantity
    from dcsim.theory import limits as L
    from dcsim.units import fmt_time, parse_time

    t_end_s = quantity(t_end, "--t-end", parse_time, L.T_END)
    dt_s = None if dt is None else quantity(dt, "--dt", parse_time, L.Limit("dt", 0.0, dt_max_s, lo_open=True,
                                                                              fmt=fmt_time))
    step = default_dt_s if dt_s is None else dt_s
    if delay is not None:  # (delay in s, the option that sets it when --dt is not given)
        try:
            L.check_delay_steps(delay[0], step, "--dt" if dt_s is not None else delay[1], dt_given=dt_s is not None)
        except ValueError as e:
            fail(str(e))
    try:
        L.check_steps(t_end_s, step, "--t-end")
    except ValueError as e:
        fail(str(e) + ("" if dt_s is None else " (or a larger --dt)"))
    if t_end_s < step:  # the run would end at its first step, past --t-end, with one sample
        fail(f"--t-end: {fmt_time(t_end_s)} is shorter than one integration step of {fmt_time(step)}"
             + (" (--dt)" if dt_s is not None else " (the default step: a fraction of the feedback delay)")
             + f"; allowed --t-end >= {fmt_time(step)}" + ("" if dt_s is not None or not has_dt else ", or give a smaller --dt"))
    return t_end_s, dt_s


def _sample_dt(sample_dt: Optional[str], t_end_s: float, step_s: float) -> Optional[float]:
    """--sample-dt: the output's spacing, rounded to whole integration steps (None: about
    dcsim.fluid.DEFAULT_ROWS rows). The summary sees every step whatever it is."""
    from dcsim.commands.inputs import fail, quantity
    from dcsim.fluid import MAX_ROWS
    from dcsim.theory import limits as L
    from dcsim.units import fmt_time, parse_time

    if sample_dt is None:
        return None
    v = quantity(sample_dt, "--sample-dt", parse_time, L.Limit("sample_dt", 0.0, t_end_s, lo_open=True, fmt=fmt_time))
    k = max(1, round(v / step_s))  # steps per row
    # rows: one every k steps over the run's steps, which end at the first whole row at or after --t-end
    n_steps = math.ceil(t_end_s / step_s * (1 - 1e-12))
    k_min = math.ceil(n_steps / (MAX_ROWS - 1))
    if k < k_min:
        fail(f"--sample-dt: {fmt_time(k * step_s)} ({k} integration step{'s' * (k != 1)} of {fmt_time(step_s)}) gives "
             f"{math.ceil(n_steps / k) + 1:,} rows over --t-end {fmt_time(t_end_s)}; allowed --sample-dt >= "
             f"{fmt_time(k_min * step_s)} ({k_min} steps; at most {MAX_ROWS:,} rows)")
    return k * step_s


SAMPLE_DT_HELP = ("Spacing of the output rows (--csv, --plot), e.g. 20us, at most --t-end, rounded to whole "
                  "integration steps; default about 4000 rows. The summary sees every step whatever it is.")


def dctcp(
    C: str = typer.Option("10Gbps", "--C", "--c", "--capacity", help='Bottleneck capacity, e.g. "10Gbps"; 1 Mbps .. 10 Tbps.'),
    d: str = typer.Option("100us", "--d", "--rtt", help='Propagation delay d, e.g. "100us"; 1 us .. 1 s.'),
    K: str = typer.Option("65pkt", "--K", "--k", "--threshold", help='Marking threshold, e.g. "65pkt" or "97.5KB"; 0 .. 1e6 pkt.'),
    g: float = typer.Option(1 / 16, "--g", "--gain", help="EWMA weight g in (0, 1]."),
    N: float = typer.Option(10, "--N", "--n", "--flows", help="Number of long-lived flows, a real number in [1, 1e6] (default 10: Fig. 2's setting)."),
    t_end: str = typer.Option("20ms", "--t-end", help='Simulated time, e.g. "20ms"; at most 1e4 s and 1e8 steps.'),
    dt: Optional[str] = typer.Option(None, "--dt", help="Integration step, e.g. 0.5us: at most R*/2 (default R*/200), R* = d + K/C the round trip at the queue K."),
    sample_dt: Optional[str] = typer.Option(None, "--sample-dt", help=SAMPLE_DT_HELP),
    packet_size: str = typer.Option("1500B", "--packet-size", help="Packet size (C in packets/s); 1 B .. 65535 B."),
    no_floor: bool = typer.Option(False, "--no-floor", help="Let q go negative (eq. (7) as printed)."),
    csv: Optional[Path] = typer.Option(None, "--csv", help="Write the trajectory as CSV (.csv): t_s, W_pkt (window), alpha, q_pkt (queue), p (marking, 1 while q > K: eq. (8)), R_s (RTT d + q/C, s); and the model's parameters beside it (NAME.params.json)."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Write a Fig. 2 style figure (W, alpha, queue vs time): PNG, or the format its extension names (.pdf, .svg, .jpg, ...)."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> None:
    """Integrate the DCTCP fluid model (5)-(8); summary over the second half of the run."""
    from dcsim import fluid
    from dcsim.commands.inputs import fail, number, quantity, whole_bytes
    from dcsim.theory import limits as L
    from dcsim.units import capacity_pps, parse_rate, parse_size, parse_time

    C_bps = quantity(C, "--C", parse_rate, L.CAPACITY)
    d_s = quantity(d, "--d", parse_time, L.DELAY)
    pb = whole_bytes(packet_size, "--packet-size")
    K_pkt = quantity(K, "--K", lambda t, o: parse_size(t, o).packets(pb), L.MARKING_K)
    g = number(g, "--g", L.EWMA_G)
    N = number(N, "--N", L.N_FLOWS)
    R_star_s = d_s + K_pkt / capacity_pps(C_bps, pb)
    t_end_s, dt_s = _grid(t_end, dt, R_star_s / 2, R_star_s / fluid.STEPS_PER_DELAY, delay=(R_star_s, "--d"))
    sample_dt_s = _sample_dt(sample_dt, t_end_s, dt_s or R_star_s / fluid.STEPS_PER_DELAY)
    _check_outputs(csv, plot)
    try:
        df = fluid.dctcp(C_bps, d_s, K_pkt, g, N, t_end_s=t_end_s, dt_s=dt_s, packet_bytes=pb,
                         queue_floor=not no_floor, sample_dt_s=sample_dt_s, envelope=plot is not None)
    except ValueError as e:
        fail(str(e))
    _report(dctcp_summary(df), *_outputs(df, csv, plot, plot_dctcp), as_json, _print_dctcp)


def dx(
    N: float = typer.Option(50, "--N", "--n", "--flows", help="Number of flows, a real number in [1, 1e6]."),
    C: str = typer.Option("10Gbps", "--C", "--c", "--capacity", help='Bottleneck capacity, e.g. "10Gbps"; 1 Mbps .. 10 Tbps.'),
    R0: str = typer.Option("80us", "--R0", "--r0", "--base-rtt", help='Base RTT R0, e.g. "80us"; 1 us .. 1 s.'),
    tau: Optional[str] = typer.Option(None, "--tau", "--feedback-delay", help="Feedback delay tau, 1 us .. 1 s (default R0; the paper is "
                                      "ambiguous)."),
    p: float = typer.Option(0.95, "--p", help="Constant probability that Q > 0, 0 <= p <= 1 (paper: 0.95; 1: Q > 0 always)."),
    t_end: str = typer.Option("20ms", "--t-end", help='Simulated time, e.g. "20ms"; at most 1e4 s and 1e8 steps.'),
    dt: Optional[str] = typer.Option(None, "--dt", help="Integration step, e.g. 0.5us: at most tau/2 (default tau/m with m a multiple of 10, so that it is <= R0/100)."),
    sample_dt: Optional[str] = typer.Option(None, "--sample-dt", help=SAMPLE_DT_HELP),
    packet_size: str = typer.Option("1500B", "--packet-size", "--seg",
                                    help="Segment size seg; 1 B .. 65535 B (also --seg, as in theory dx)."),
    no_window_floor: bool = typer.Option(False, "--no-window-floor", help="Drop the one-segment window floor."),
    csv: Optional[Path] = typer.Option(None, "--csv", help="Write the trajectory as CSV (.csv): t_s, W_pkt (window), Q_s (queueing delay, s), q_pkt (queue, Q C), R_s (RTT R0 + Q, s); and the model's parameters beside it (NAME.params.json)."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Write a figure (window and queue vs time): PNG, or the format its extension names (.pdf, .svg, .jpg, ...)."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> None:
    """Integrate the DX fluid model (3)-(4) from W = 1 segment, Q = 0; summary over the second half."""
    from dcsim import fluid
    from dcsim.commands.inputs import fail, number, quantity, whole_bytes
    from dcsim.theory import limits as L
    from dcsim.units import parse_rate, parse_time

    N = number(N, "--N", L.N_FLOWS)
    C_bps = quantity(C, "--C", parse_rate, L.CAPACITY)
    R0_s = quantity(R0, "--R0", parse_time, L.DELAY)
    tau_s = None if tau is None else quantity(tau, "--tau", parse_time, L.DELAY)
    p = number(p, "--p", L.FLUID_P)
    pb = whole_bytes(packet_size, "--packet-size")
    tau_used = R0_s if tau_s is None else tau_s
    t_end_s, dt_s = _grid(t_end, dt, tau_used / 2, fluid._dx_dt(R0_s, tau_used),
                          delay=(tau_used, "--tau" if tau_s is not None else "--R0"))
    sample_dt_s = _sample_dt(sample_dt, t_end_s, dt_s or fluid._dx_dt(R0_s, tau_used))
    _check_outputs(csv, plot)
    try:
        df = fluid.dx(N, C_bps, R0_s, t_end_s=t_end_s, dt_s=dt_s, packet_bytes=pb,
                      window_floor=not no_window_floor, tau_s=tau_s, p=p, sample_dt_s=sample_dt_s,
                      envelope=plot is not None)
    except ValueError as e:
        fail(str(e))
    _report(dx_summary(df), *_outputs(df, csv, plot, plot_dx), as_json, _print_dx)


def dctcp_fig2(
    out: Path = typer.Option(Path("dcsim-out/fluid-fig2"), "--out", "-o", help="Output directory (created if missing)."),
    t_end: str = typer.Option("30ms", "--t-end", help='Simulated time per run, e.g. "30ms"; at most 1e4 s and 1e8 '
                              "steps."),
    as_json: bool = typer.Option(False, "--json", help="Print the summaries as JSON."),
) -> None:
    """The DCTCP fluid model in the setting of Figure 2 of the analysis paper (10 Gbps, 100 us, K = 65, g = 1/16; N = 2, 10, 100): fig2_N{N}.csv (+ .params.json) + .png."""
    from dcsim.cli import console
    from dcsim.commands.inputs import fail, output_dir

    from dcsim import fluid

    R_star_s = 100e-6 + 65 / (10e9 / 12000)  # the Fig. 2 setting of fig()
    t_end_s, _ = _grid(t_end, None, R_star_s / 2, R_star_s / fluid.STEPS_PER_DELAY, has_dt=False)
    output_dir(out, "--out")
    for N in FIG2_N:  # before the runs: a directory in the way of a file had stopped them part-way
        for f in fig2_files(out, N):
            if f.is_dir():
                fail(f"--out: {f} is a directory, in the way of a file this command writes; remove it or give "
                     f"another --out")
    errors: list[str] = []
    try:
        res = fig2(out, t_end_s=t_end_s, errors=errors)
    except ValueError as e:
        fail(str(e))
    summaries = {N: {**dctcp_summary(r["df"]), "files": r["files"]} for N, r in res.items()}
    if as_json:
        print(dumps(summaries, indent=2))
    else:
        for s in summaries.values():
            _print_dctcp(s)
        console.print("files: " + ", ".join(f for s in summaries.values() for f in s["files"]), markup=False)
    _exit_on(errors)


def _outputs(df, csv, plot, plotter) -> tuple[list[str], list[str]]:
    """Write what was asked, each file apart: (the files written, one error line per file that
    could not be). Checked before the run, the disk can still fill up or a path be taken since:
    that costs only that file, not the summary or the other file (a full disk under --csv had
    lost the run's summary and its plot: a probe)."""
    from dcsim.fluid import envelope_columns

    files, errors = [], []
    if csv is not None:  # the rows; the envelope (asked for by the plot) is the plot's
        try:
            written = write_csv(df.drop(columns=envelope_columns(df)), csv)
            files += [str(written)] + [str(params_file(written))] * params_file(written).exists()
        except OSError as e:
            errors.append(f"--csv: cannot write {e.filename or csv}: {e.strerror or e}")
    if plot is not None:
        try:
            files.append(str(plotter(df, plot)))
        except OSError as e:
            errors.append(f"--plot: cannot write {e.filename or plot}: {e.strerror or e}")
        except Exception as e:  # noqa: BLE001 - a backend's own failure costs the plot, not the summary
            errors.append(f"--plot: cannot draw {plot}: {type(e).__name__}: {e}")
    return files, errors


def _report(s: dict, files: list[str], errors: list[str], as_json: bool, show: Callable[[dict], None]) -> None:
    """The summary (JSON or tables) and the files written, then each file that could not be
    written, one line each, with status 1: what was computed is shown either way."""
    from dcsim.cli import console

    s["files"] = files
    if as_json:
        print(dumps(s, indent=2))
    else:
        show(s)
        if files:
            console.print("files: " + ", ".join(files), markup=False)
    _exit_on(errors)


def _exit_on(errors: list[str]) -> None:
    """Each file that could not be written, one line each, then status 1 (after the summary)."""
    if errors:
        from rich.markup import escape

        from dcsim.cli import err_console

        for e in errors:
            say(err_console, f"[bold red]error:[/] {escape(e)}")
        raise typer.Exit(code=1)
