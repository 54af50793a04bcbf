"""Matplotlib figures of a packet-level run, in the style of the papers (Agg, no display needed).

* :func:`plot_queue`: queue (packets) vs time at each monitored port, with K (or RED's
  min_th/max_th) drawn, like the queue panels of the DCTCP analysis paper's Fig. 2.
* :func:`plot_cwnd_alpha`: window size (packets), and α when the flows have one, vs time of each
  source, like the DCTCP analysis paper's Fig. 2; with many flows a subset is drawn, plus the mean.
* :func:`plot_throughput`: per-flow goodput (Gbps) vs time, like the coexistence paper's Figs. 2-4.
* :func:`plot_queue_cdf`, :func:`plot_flows`, :func:`plot_ports`: the queue-length distribution,
  per-flow goodput and mean window, per-port utilization and mean queue.
* :func:`plot_rates`, :func:`plot_sources`, :func:`plot_cps`: L2 sources' rates vs time, their
  goodput and feedback loop delay, the congestion points' samples and feedback frames.
* :func:`plot_counters`, :func:`plot_workloads`, :func:`plot_rounds`: packet conservation, target
  vs realised load of each workload, incast round completion times.
* :func:`compare`: several runs on one figure (``compare([a, b], "queue", labels=[...])``).
* :func:`plot_sweep`: a sweep's headline results against one of its axes, one line for each
  combination of the others, the spread over its seeds as bars (``dcsim sweep`` writes it).

Every figure names its scenario and the dcsim version in a small footer, so that a figure found
in a slide deck can be traced. The zoom panels show the last few periods of the oscillation
they plot (found from the signal's autocorrelation, flow by flow for windows; in :func:`compare`, of
the slowest run), or the last 50 RTTs when there is no oscillation.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Callable, Optional, Sequence, Union

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter

from dcsim._plot_worker import has_alpha, plot_names
from dcsim.result import Result, link_sharing
from dcsim.units import fmt_time

__all__ = [
    "plot_queue",
    "plot_cwnd_alpha",
    "plot_throughput",
    "plot_queue_cdf",
    "plot_flows",
    "plot_ports",
    "plot_rates",
    "plot_counters",
    "plot_workloads",
    "plot_rounds",
    "plot_sources",
    "plot_cps",
    "plots_for",
    "has_alpha",
    "compare",
    "plot_sweep",
    "oscillation_period",
    "PLOTS",
    "KINDS",
    "MAX_FLOWS_DRAWN",
]

#: With more flows than this, plots draw an evenly spaced subset plus the mean over all traced flows.
MAX_FLOWS_DRAWN = 8
#: Most flows drawn as bars in the per-flow figures; more are drawn as points (a bar is a patch of
#: its own: 6 195 flows' bars took 28 s to draw, an API probe; their points take a fraction of a second).
MAX_FLOW_BARS = 200
#: The zoom panel shows this many periods of the oscillation it plots.
ZOOM_PERIODS = 4

PathLike = Optional[Union[str, Path]]


def _figure(rows: int = 1, height: float = 3.0, zoom: bool = True) -> tuple[Figure, list, list]:
    """rows x (full run | zoom) axes; each column shares its time axis."""
    fig = Figure(figsize=(10.0 if zoom else 7.5, height * rows + 1.0), layout="constrained")
    FigureCanvasAgg(fig)
    grid = fig.add_gridspec(rows, 2 if zoom else 1, width_ratios=[2, 1] if zoom else [1])
    full = [fig.add_subplot(grid[i, 0]) for i in range(rows)]
    for ax in full[1:]:
        ax.sharex(full[0])
    zoomed = []
    if zoom:
        zoomed = [fig.add_subplot(grid[i, 1]) for i in range(rows)]
        for ax in zoomed[1:]:
            ax.sharex(zoomed[0])
        # at most 4 ticks: the zoom of a run seconds long labels ms like "5585.5" (they overlapped)
        zoomed[0].xaxis.set_major_locator(MaxNLocator(4))
    return fig, full, zoomed


#: A peak of the autocorrelation at least this share of its highest is taken for the period, the
#: first such (see :func:`oscillation_period`).
PEAK_NEAR_HIGHEST = 0.8


def oscillation_period(t: np.ndarray, y: np.ndarray, min_periods: float = 2.0) -> Optional[float]:
    """The period of a sustained oscillation of y(t), s (None if y does not oscillate).

    From the autocorrelation of y (resampled on a uniform grid, mean removed): the first peak after
    its first zero crossing that reaches PEAK_NEAR_HIGHEST of the highest one there, at a lag of at
    most 1/``min_periods`` of the record, refined
    between samples by a parabola; None if that peak's correlation is below 0.2 (noise or a
    trend, not an oscillation). Short excursions (a window inflated during fast recovery, noise)
    barely move the autocorrelation, so they do not halve the period as counting crossings of the
    mean does; a sum of sawtooths in antiphase has, correctly, half their period.
    """
    t, y = np.asarray(t, dtype=float), np.asarray(y, dtype=float)
    ok = np.isfinite(y) & np.isfinite(t)
    t, y = t[ok], y[ok]
    if len(y) < 8 or np.std(y) == 0:
        return None
    order = np.argsort(t, kind="stable")
    t, y = t[order], y[order]
    span = t[-1] - t[0]
    steps = np.diff(t)
    steps = steps[steps > 0]
    if span <= 0 or not steps.size:
        return None
    dt = max(float(np.median(steps)), span / 200_000)  # at most 200 000 grid points
    n = int(span / dt) + 1
    g = t[0] + dt * np.arange(n)
    yy = np.interp(g, t, y)
    yy = yy - yy.mean()
    if not np.any(yy):
        return None
    f = np.fft.rfft(yy, 2 * n)
    acf = np.fft.irfft(f * np.conj(f))[:n]
    acf = acf / acf[0]
    top = int(n / min_periods)
    neg = np.nonzero(acf[:top] < 0)[0]
    if not neg.size:
        return None
    k0 = int(neg[0])
    if top - k0 < 2:
        return None
    k = k0 + int(np.argmax(acf[k0:top]))
    if acf[k] < 0.2 or (k >= top - 1 and (k + 1 >= n or acf[k + 1] > acf[k])):
        return None  # weak, or still rising at the last lag searched: the peak lies beyond the record
    # The first peak that comes close to the highest: a record with a disturbance in it (an incast
    # burst) can make the peak at twice the period the highest (39.9 ms quoted for a 23 ms sawtooth:
    # an audit of the figures).
    seg = acf[k0:k + 1]
    peaks = [i for i in range(1, len(seg) - 1) if seg[i] >= seg[i - 1] and seg[i] >= seg[i + 1]
             and seg[i] >= PEAK_NEAR_HIGHEST * acf[k]]
    if peaks:
        k = k0 + peaks[0]
    shift = 0.0
    if 0 < k < n - 1:
        a, b, c = acf[k - 1], acf[k], acf[k + 1]
        den = a - 2 * b + c
        if den < 0:
            shift = 0.5 * (a - c) / den
    return float((k + shift) * dt)


def _rtt(result: Result) -> float:
    net = result.scenario.network
    if net.topology == "dumbbell":
        return max(net.rtt_list)
    if net.topology == "tree":
        return net.rtt
    if net.links is None:  # parking lot, fabrics: the smallest base RTT of the network
        return result.scenario.base_rtt_min_s()
    return 2 * max((link.delay for link in net.links), default=0.0) or 1e-4


def _after_warmup(result: Result, t: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t, y = np.asarray(t, dtype=float), np.asarray(y, dtype=float)
    after = t >= result.warmup_s
    return t[after], y[after]


def _zoom_period(result: Result, t: np.ndarray, y: np.ndarray) -> Optional[float]:
    """The period a zoom at the run's end shows: measured on the second half of the time after
    warm-up, next to the zoom (an incast burst earlier had set the period quoted: 39.9 ms for a
    23 ms sawtooth, an audit of the figures), or on all of it when that half holds too few periods."""
    t, y = _after_warmup(result, t, y)
    late = t >= result.warmup_s + 0.5 * (result.duration_s - result.warmup_s)
    p = oscillation_period(t[late], y[late])
    return p if p is not None else oscillation_period(t, y)


def _zoom_width(result: Result, period: Optional[float]) -> tuple[float, int]:
    """(width s, whole periods shown) of a zoom on an oscillation of ``period`` (None: no
    oscillation: the last 50 RTTs, at least 1 ms, and 0 periods); never longer than the time after
    warm-up. Up to ZOOM_PERIODS periods, fewer (at least 2) when the run holds fewer."""
    room = result.duration_s - result.warmup_s
    if period is not None and period > 0:
        k = min(ZOOM_PERIODS, int(room / period + 1e-9))
        if k >= 2:
            return k * period, k
    return min(max(50 * _rtt(result), 1e-3), room), 0


def _zoom_title(result: Result, width: float, period: Optional[float], k: int) -> str:
    if k:
        return f"last {k} periods (period ≈ {_fmt_ms(period)})"
    return "last 50 RTTs" if width == 50 * _rtt(result) else f"last {_fmt_ms(width)}"


def _zoom_window(result: Result, t: np.ndarray, y: np.ndarray) -> tuple[float, float, str]:
    """(start, end, title) of the zoom: the last ZOOM_PERIODS periods of y's oscillation after
    warm-up (at least 2, fewer than 4 when the run is short), else the last 50 RTTs (at least 1 ms)."""
    period = _zoom_period(result, t, y) if len(t) else None
    w, k = _zoom_width(result, period)
    T = result.duration_s
    title = _zoom_title(result, w, period, k)
    if not k and len(t):
        t_, y_ = _after_warmup(result, t, y)
        busy = np.isfinite(y_) & (y_ > 0)
        if busy.any() and not busy[t_ >= T - w].any():
            # nothing in the last stretch (a queue that emptied before the end): the same width
            # around the last time the series was above zero (empty panels: an audit of the figures)
            last = float(t_[busy][-1])
            z0 = min(max(last - w / 2, result.warmup_s), T - w)
            return z0, z0 + w, title.replace("last ", "") + f" around the last non-zero value ({_fmt_ms(last)})"
    return T - w, T, title


def _fmt_ms(s: float) -> str:
    return f"{s * 1e3:.3g} ms" if s < 1 else f"{s:.3g} s"


def _version() -> str:
    import dcsim

    return dcsim.__version__


def _title(fig: Figure, what: str) -> None:
    fig.suptitle(what, fontsize=10)


def _finish(fig: Figure, axes: Sequence, results: Sequence[Result], labels: Optional[Sequence[str]] = None,
            notes: Sequence[str] = ()) -> None:
    """The legend and the footer, in a band below the plots that the layout keeps free.

    The legend lists each label once, outside the axes (never over the data). The footer names
    each scenario (wrapped, never cut), then ``notes``, and the dcsim version, so a figure can be
    traced."""
    width = int(fig.get_figwidth() * 17)  # characters of 6-pt text per line
    lines = []
    for i, r in enumerate(results):
        head = f"{labels[i]}: " if labels else ""
        stop = (f"; stopped by {r.stopped.get('field', 'run.max_wall')} at {fmt_time(r.stopped['simulated_s'])} "
                "(this figure's end)" if r.stopped else "")
        lines += textwrap.wrap(head + r.scenario.describe() + stop, width)
    for note in notes:
        lines += textwrap.wrap(note, width)
    lines.append(f"dcsim {_version()}")
    handles, names = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in names and not lab.startswith("_"):
                handles.append(h)
                names.append(lab)
    # as many columns as the longest label lets fit across the figure (7-pt text: ~16 characters per
    # inch, a handle ~6 more): five columns of long labels ran off both sides (an audit)
    fit = int(fig.get_figwidth() * 16 // (max((len(n) for n in names), default=1) + 6))
    ncol = max(1, min(len(names), 5, fit)) if names else 1
    legend_rows = -(-len(names) // ncol) if names else 0
    h_in = fig.get_figheight()
    footer_in = 0.11 * len(lines) + 0.05
    legend_in = 0.2 * legend_rows + (0.05 if names else 0)
    band = (footer_in + legend_in) / h_in
    fig.get_layout_engine().set(rect=(0, band, 1, 1 - band))
    fig.text(0.01, 0.004, "\n".join(lines), fontsize=6, color="0.35", ha="left", va="bottom")
    if names:
        fig.legend(handles, names, loc="lower center", bbox_to_anchor=(0.5, footer_in / h_in), ncol=ncol,
                   fontsize=7, frameon=False)


def _time_axis(result: Result) -> tuple[float, str]:
    """Scale and label of the time axis: ms for runs up to 2 s, s beyond."""
    return (1e3, "time (ms)") if result.duration_s <= 2.0 else (1.0, "time (s)")


def _subset(flows: np.ndarray, k: int = MAX_FLOWS_DRAWN) -> np.ndarray:
    flows = np.unique(flows)
    if len(flows) <= k:
        return flows
    return flows[np.linspace(0, len(flows) - 1, k).round().astype(int)]


def _drawn_text(drawn: int, traced: int) -> str:
    """What a per-flow figure's title says of its lines: all of them, or which subset (:func:`_subset`)
    (at most MAX_FLOWS_DRAWN lines, to keep them apart; "8 of 10 traced flows drawn" had not said which:
    a README walkthrough). Short: the title is one line."""
    if drawn >= traced:
        return f"{traced} flows"
    return f"{drawn} of {traced} traced flows, evenly spaced by id"


#: A panel draws at most twice this many points per series: the minimum and the maximum in each
#: of 800 equal time bins, at least the pixel columns of the widest panel (two thirds of 10 in
#: at the 120 dpi the files are written at), so the line covers the same pixels as the full
#: series: every spike and every dip stays visible, and drawing costs the same for 10^3 or 10^8
#: samples.
ENVELOPE_BINS = 800


def _needs(result: Result, table: str, who: str) -> None:
    """Raise ValueError if ``result``'s ``table`` is empty: nothing to draw. (An API probe got
    empty figures, or matplotlib's "Axis limits cannot be NaN or Inf", from a run without the
    table: a workload-only run's windows, a run without L2's sources.)"""
    if not result._rows(table):
        from dcsim import schema

        raise ValueError(f"{who}: the {table} table of this run is empty, nothing to draw "
                         f"({schema.TABLE_DOCS.get(table, '')})")


def envelope(t: np.ndarray, y: np.ndarray, bins: int = ENVELOPE_BINS) -> tuple[np.ndarray, np.ndarray]:
    """(t, y) of a series sampled in time order, reduced to its min/max envelope: for each of
    ``bins`` equal time bins that holds samples, the bin's first time with its minimum and its
    last time with its maximum (NaN samples are skipped; a bin of NaN only stays NaN, a gap).
    A series of at most 2 x bins samples is returned as it is."""
    t, y = np.asarray(t, dtype=float), np.asarray(y, dtype=float)
    if len(t) <= 2 * bins:
        return t, y
    edges = np.linspace(t[0], t[-1], bins + 1)[1:-1]
    starts = np.unique(np.concatenate(([0], np.searchsorted(t, edges, side="left"))))
    starts = starts[starts < len(t)]
    ends = np.append(starts[1:], len(t)) - 1
    with np.errstate(all="ignore"):
        lo, hi = np.fmin.reduceat(y, starts), np.fmax.reduceat(y, starts)
    tt = np.empty(2 * len(starts))
    yy = np.empty(2 * len(starts))
    tt[0::2], tt[1::2] = t[starts], t[ends]
    yy[0::2], yy[1::2] = lo, hi
    return tt, yy


def _by_time(t: np.ndarray, y: np.ndarray, how: str) -> tuple[np.ndarray, np.ndarray]:
    """The mean (NaN skipped; NaN where none) or the sum of y over the rows of each distinct time."""
    times, inv = np.unique(t, return_inverse=True)
    y = np.asarray(y, dtype=float)
    ok = np.isfinite(y)
    sums = np.bincount(inv[ok], weights=y[ok], minlength=len(times))
    if how == "sum":
        return times, sums
    counts = np.bincount(inv[ok], minlength=len(times))
    with np.errstate(invalid="ignore", divide="ignore"):
        return times, np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def _aggregate(result: Result, table: str, t: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The traced flows' aggregate over time on the table's whole sampling grid: the goodput
    series' sum (0 at an instant without rows: no traced flow ran, e.g. between a workload's
    short flows), the window series' mean (NaN there: a gap in the line, not a line drawn across
    it). Without the grid a line joined the samples of flows milliseconds apart."""
    if table == "throughput":
        iv_ps = result.engine_spec["metrics"]["throughput_interval_ps"]
        first, how, fill = 1, "sum", 0.0  # goodput samples at iv, 2 iv, ... up to the end
    else:
        iv_ps = result.engine_spec["metrics"]["cwnd_interval_ps"]
        first, how, fill = None, "mean", np.nan  # window samples from the first one on
    times, vals = _by_time(t, y, how)
    if not len(times):
        return times, vals
    k = np.rint(times * 1e12 / iv_ps).astype(np.int64)
    k0 = int(k[0]) if first is None else first
    k1 = int(k[-1]) if first is None else int(round(result.duration_s * 1e12)) // iv_ps
    grid = np.full(k1 - k0 + 1, fill)
    grid[k - k0] = vals
    return np.arange(k0, k1 + 1) * (iv_ps / 1e12), grid


def _dots_if_short(result: Result, t: np.ndarray) -> dict:
    """Markers for a flow's series that spans under 1 % of the run (a workload's traced short
    flow: a few samples, a line too short to see on the run's axis)."""
    return {"marker": ".", "ms": 3} if len(t) and t[-1] - t[0] < 0.01 * result.duration_s else {}


def _protocols(result: Result) -> dict:
    """{flow: protocol} from the flows table ({} without one)."""
    if "flows" not in result.tables or not result._rows("flows"):
        return {}
    return dict(zip(result._col("flows", "flow").tolist(), result._col("flows", "protocol").tolist()))


def _plot(ax, t: np.ndarray, y: np.ndarray, **kw):
    """ax.plot of a series' envelope (see :func:`envelope`)."""
    return ax.plot(*envelope(t, y), **kw)


def _mark_warmup(ax, result: Result, scale: float) -> None:
    if result.warmup_s > 0:
        ax.axvspan(0, result.warmup_s * scale, color="0.92", zorder=0, label="warm-up")


#: Resolution of the files the plots are written to.
DPI = 120


def _save(fig: Figure, path: PathLike) -> Figure:
    """Write ``fig`` at :data:`DPI`. A PNG is drawn once and its pixels encoded as they are
    (savefig would lay the figure out twice: a pass without rendering, then the drawing)."""
    if path is None:
        return fig
    import io

    from dcsim._files import atomic_write_bytes, file_path, given_path

    path = given_path(path, "path")
    if path.is_dir():
        raise ValueError(f"path: {str(path)!r} is a folder; give a file name, e.g. {str(path / 'figure.png')!r}")
    # /dev/null or a pipe: a PNG, as matplotlib writes one; "pgf" needs a LaTeX installation
    special = path.exists() and not path.is_file()
    suffix = path.suffix.lower().lstrip(".") or ("png" if special else "")
    kinds = [k for k in fig.canvas.get_supported_filetypes() if k != "pgf"]
    if suffix not in kinds:  # matplotlib had written "OUT/api1" as "OUT/api1.png", not what was asked (a review)
        raise ValueError(f"path: {str(path)!r} names no figure format; give a name ending in one of "
                         f"{', '.join('.' + k for k in sorted(kinds))}")
    path = file_path(path, "path")  # its folder made once the name is known to be good
    buf = io.BytesIO()
    if suffix != "png":
        fig.savefig(buf, dpi=DPI, format=suffix)
    else:
        from PIL import Image  # matplotlib's own PNG writer

        fig.set_dpi(DPI)
        fig.canvas.draw()
        Image.fromarray(np.asarray(fig.canvas.buffer_rgba())).save(buf, format="png")
    # whole or not at all: a figure cut short by a full disk or a kill does not replace an earlier one
    atomic_write_bytes(path, buf.getvalue(), fsync=False)
    return fig


def _port_queues(result: Result) -> dict:
    """{port id: (buffer Size, Aqm)} of the ports whose queue the scenario configures: every port of
    a dumbbell or tree (the network's buffer and AQM), a fabric's ports by tier (its overrides), a
    graph's by link. Other topologies (the L2 parking lot): {}."""
    net = result.scenario.network
    ids, src, dst = (result._col("ports", c).tolist() for c in ("port", "src", "dst"))
    if net.topology in ("dumbbell", "tree"):
        return {i: (net.buffer, net.aqm) for i in ids} if net.aqm is not None else {}
    tiers = result.port_tiers()
    if tiers is not None:
        return {i: net.tier_queue(t.rsplit(" ", 1)[0]) for i, t in zip(ids, tiers) if t}
    if net.topology == "graph":
        by_pair = {frozenset((ln.a, ln.b)): ln for ln in net.links}
        out = {}
        for i, a, b in zip(ids, src, dst):
            ln = by_pair.get(frozenset((a, b)))
            if ln is not None and ln.aqm is not None and ln.buffer is not None:
                out[i] = (ln.buffer, ln.aqm)
        return out
    return {}


def _aqm_lines(result: Result, aqm) -> tuple[tuple[float, str, str], ...]:
    """(y, style, label) of a queue's K / RED (CHOKe) thresholds, in packets."""
    pb = result.scenario.network.packet_bytes
    if aqm.K is not None:  # a marking threshold (threshold marking, or a discipline with a K)
        return ((aqm.K.packets(pb), "--", f"K = {aqm.K.packets(pb):g} pkt"),)
    if aqm.keeps_average and aqm.min_th is not None:  # RED's thresholds, against its averaged queue
        return tuple((th.packets(pb), ":", f"{name} = {th.packets(pb):g} pkt (on the average)")
                     for name, th in (("min_th", aqm.min_th), ("max_th", aqm.max_th)))
    return ()


def plot_queue(result: Result, path: PathLike = None) -> Figure:
    """Queue length (packets) vs time at each monitored port; K drawn dashed (threshold AQM),
    RED thresholds dotted. Left: the whole run (warm-up shaded); right: the last few periods."""
    _needs(result, "queue", "plot('queue')")
    scale, xlabel = _time_axis(result)
    qt, qport, qpkt = (result._col("queue", c) for c in ("t_s", "port", "q_pkt"))
    qpkt = qpkt.astype(float)
    labels = result.port_labels()
    fig, (ax,), (zx,) = _figure()
    first = qport == qport[0] if len(qport) else np.zeros(0, dtype=bool)
    z0, z1, ztitle = _zoom_window(result, qt[first], qpkt[first])
    _mark_warmup(ax, result, scale)
    colors = {}
    for port in np.unique(qport):
        mine = qport == port
        t, y = qt[mine], qpkt[mine]
        line, = _plot(ax, t * scale, y, lw=0.7, label=f"queue {labels.get(port, port)}")
        colors[port] = line.get_color()
        z = (t >= z0) & (t <= z1)
        _plot(zx, t[z] * 1e3, y[z], lw=0.9, color=line.get_color())
    top = float(qpkt.max()) if len(qpkt) else 1.0
    # K, RED's thresholds and the buffer of each drawn port (its buffer only when its own queue gets
    # near it): each setting once, in black (the buffer red) when every drawn port has it, else in
    # its port's colour, or grey with a count (a fabric's or a graph's had none drawn: an audit)
    queues = _port_queues(result)
    settings: dict[tuple, list] = {}
    for port in colors:
        if port in queues:
            buffer, aqm = queues[port]
            settings.setdefault((_aqm_lines(result, aqm), "k"), []).append(port)
            B = buffer.packets(result.scenario.network.packet_bytes)
            if float(np.nanmax(qpkt[qport == port])) >= 0.5 * B:
                settings.setdefault((((B, "-.", f"buffer = {B:g} pkt"),), "r"), []).append(port)
    for (lines, base), ports in settings.items():
        for y, ls, label in lines:
            if len(ports) == len(colors):
                color = base
            else:
                color = colors[ports[0]] if len(ports) == 1 else "0.45"
                label += f" ({labels.get(ports[0], ports[0])})" if len(ports) == 1 else f" ({len(ports)} ports)"
            ax.axhline(y, color=color, ls=ls, lw=1, label=label)
            zx.axhline(y, color=color, ls=ls, lw=1)
            top = max(top, y)
    for a in (ax, zx):
        a.set_ylim(0, 1.15 * top + 1)
        a.set_ylabel("queue length (packets)")
    ax.set_xlabel(xlabel)
    ax.set_xlim(0, result.duration_s * scale)
    zx.set_xlabel("time (ms)")
    zx.set_xlim(z0 * 1e3, z1 * 1e3)
    zx.set_title(ztitle, fontsize=8)
    ports = len(np.unique(qport))
    what = "Queue length at the monitored port" if ports == 1 else f"Queue length at the {ports} monitored ports"
    if len(qpkt) and float(np.nanmax(qpkt)) == 0:
        # Every sample 0. "All empty" only if the monitored ports' exact maxima (after warm-up) say
        # so: samples can miss every burst (a fat-tree's 1-packet queues; a queue_interval longer
        # than the run: its one sample at t = 0), and the title had said "all empty" over a
        # queue of 75 packets (a review).
        pid, pmax = result._col("ports", "port"), result._col("ports", "q_max_pkt").astype(float)
        drawn = np.isin(pid, np.unique(qport))
        exact = float(np.nanmax(pmax[drawn])) if drawn.any() else 0.0
        if exact > 0:
            iv_s = result.engine_spec["metrics"]["queue_interval_ps"] / 1e12
            what += (f": no queue in the {len(qpkt)} sample{'s' if len(qpkt) > 1 else ''}, but up to {exact:g} pkt between them after warm-up "
                     f"(samples every {fmt_time(iv_s)}, metrics.queue_interval)")
        elif result._rows("ports") > ports:
            # every monitored port idle while others may queue (a fat-tree's default ports: an audit)
            what += (f": all empty; the run has {result._rows('ports')} ports (metrics.monitor chooses them"
                     + ("; the tiers figure shows all" if result.port_tiers() is not None else "") + ")")
    _title(fig, what)
    _finish(fig, [ax], [result])
    return _save(fig, path)


def plot_cwnd_alpha(result: Result, path: PathLike = None) -> Figure:
    """Window size W (packets), and α when the flows have one, vs time per source (DCTCP analysis
    paper, Fig. 2). Left: the whole run, a subset of the flows plus the mean over the traced flows;
    right: the last few periods of the mean window's oscillation."""
    _needs(result, "cwnd", "plot('cwnd')")
    scale, xlabel = _time_axis(result)
    ct, cflow = result._col("cwnd", "t_s"), result._col("cwnd", "flow")
    values = {k: result._col("cwnd", k).astype(float) for k in ("cwnd_pkt", "alpha")}
    alpha = has_alpha(result)
    rows = 2 if alpha else 1
    fig, axes, zooms = _figure(rows=rows, height=2.6)
    shown = _subset(cflow)
    n = len(np.unique(cflow))
    protocols = _protocols(result)
    # The zoom follows the sources' own windows, flow by flow (two flows in antiphase make a mean
    # with half their period), and shows whole periods of the slowest one drawn.
    periods = []
    for flow in shown:
        mine = cflow == flow
        # each window on all its time after warm-up: a window's slow wander must not pass for its rhythm
        p = oscillation_period(*_after_warmup(result, ct[mine], values["cwnd_pkt"][mine]))
        if p is not None:
            periods.append(p)
    period = max(periods) if periods else None
    of_queue = False
    if 2 * len(periods) < len(shown) and "queue" in result.tables and result._rows("queue"):
        # Most windows show no rhythm of their own: a flow's share wanders over tens of ms with the
        # AIMD sawtooth a ripple on it (the demo's 10 DCTCP flows: 3 of 10 gave 33-55 ms, the
        # wander, against cuts every 0.69 ms). The zoom then follows the first monitored queue's
        # oscillation, the flows' common rhythm, as the queue figure's zoom does.
        qt, qport, qpkt = (result._col("queue", c) for c in ("t_s", "port", "q_pkt"))
        first = qport == qport[0]
        q_period = _zoom_period(result, qt[first], qpkt[first].astype(float))
        if q_period is not None:  # else the windows' own periods, if any, as before
            period, of_queue = q_period, True
    zw, zk = _zoom_width(result, period)
    z0, z1, ztitle = result.duration_s - zw, result.duration_s, _zoom_title(result, zw, period, zk)
    last = float(ct.max()) if len(ct) else result.duration_s
    if last < z0:
        # The traced windows end before the last stretch (a workload's traced flows finished; the
        # panel was empty: a probe): the life of the flow sampled last, if shorter than the zoom,
        # else the zoom's width up to its last sample.
        f_last = cflow[np.argmax(ct)]
        t_f = ct[cflow == f_last]
        span = max(float(t_f.max() - t_f.min()), result.engine_spec["metrics"]["cwnd_interval_ps"] / 1e12)
        if span < zw:
            z0, z1 = float(t_f.min()) - 0.05 * span, float(t_f.max()) + 0.05 * span
            ztitle = f"flow {f_last}, the last traced, {_fmt_ms(float(t_f.min()))} .. {_fmt_ms(float(t_f.max()))}"
        else:
            z0, z1 = last - zw, last
            ztitle = ztitle.replace("last ", "") + f" up to the last window sample ({_fmt_ms(last)})"
    if zk and of_queue:
        ztitle += "\nof the first monitored queue"
    elif zk and len(periods) > 1 and min(periods) < 0.8 * period:
        ztitle += f"\nof the slowest window; others down to {_fmt_ms(min(periods))}"
    cols = [("cwnd_pkt", "window size (packets)"), ("alpha", "α")][:rows]
    for (col, ylabel), ax, zx in zip(cols, axes, zooms):
        _mark_warmup(ax, result, scale)
        for flow in shown:
            mine = cflow == flow
            t, y = ct[mine], values[col][mine]
            line, = _plot(ax, t * scale, y, lw=0.5, alpha=0.7, **_dots_if_short(result, t),
                          label=f"flow {flow} ({protocols.get(flow, '?')})" if len(shown) <= 4 else None)
            z = (t >= z0) & (t <= z1)
            _plot(zx, t[z] * 1e3, y[z], lw=0.9, color=line.get_color())
        # the mean over the flows that have the quantity (a NewReno flow has no alpha: the "mean of
        # 2 traced flows" of a DCTCP/NewReno pair was the DCTCP flow's own alpha, an audit), when
        # two of them have it at one instant at least (a workload's traced flows that never ran
        # together made a "mean" of single points, invisible: a probe)
        finite = np.isfinite(values[col])
        having = len(np.unique(cflow[finite]))
        together = bool(len(ct)) and np.bincount(np.unique(ct, return_inverse=True)[1][finite]).max(initial=0) > 1
        if having > 1 and together:
            mt, my = _aggregate(result, "cwnd", ct, values[col])
            what = "traced flows" if having == n else f"traced flows with {'α' if col == 'alpha' else 'a window'}"
            _plot(ax, mt * scale, my, color="k", lw=0.8, label=f"mean of {having} {what}")
            z = (mt >= z0) & (mt <= z1)
            _plot(zx, mt[z] * 1e3, my[z], color="k", lw=1.4)
        for a in (ax, zx):
            a.set_ylabel(ylabel)
            if col == "alpha":
                a.set_ylim(0, 1.05)
            else:
                a.set_ylim(bottom=0)
        if col == "cwnd_pkt" and result.warmup_s > 0:
            # A slow-start peak in the warm-up set the scale and flattened what is measured (0-950
            # packets for windows of 20-70: an audit of the figures): the full run's axis follows
            # the windows after warm-up, and says what it cuts.
            drawn = np.isin(cflow, shown)
            after = values[col][drawn & (ct >= result.warmup_s)]
            after = after[np.isfinite(after)]
            before = values[col][drawn & (ct < result.warmup_s)]
            before = before[np.isfinite(before)]
            if after.size and before.size and before.max() > 2 * after.max() > 0:
                ax.set_ylim(0, 1.3 * after.max())
                ax.set_title(f"warm-up peaks up to {before.max():.0f} packets cut off", fontsize=8)
    axes[-1].set_xlabel(xlabel)
    axes[0].set_xlim(0, result.duration_s * scale)
    zooms[-1].set_xlabel("time (ms)")
    zooms[0].set_xlim(z0 * 1e3, z1 * 1e3)
    zooms[0].set_title(ztitle, fontsize=8)
    drawn = _drawn_text(len(shown), n)
    _title(fig, f"Window size{' and α' if alpha else ''} of each source ({drawn})")
    _finish(fig, axes, [result])
    return _save(fig, path)


def plot_throughput(result: Result, path: PathLike = None) -> Figure:
    """Per-flow goodput (Gbps) vs time, with the aggregate of the traced flows."""
    _needs(result, "throughput", "plot('throughput')")
    scale, xlabel = _time_axis(result)
    tt, tflow, tg = (result._col("throughput", c) for c in ("t_s", "flow", "goodput_bps"))
    tg = tg.astype(float)
    fig, (ax,), _ = _figure(zoom=False)
    _mark_warmup(ax, result, scale)
    shown = _subset(tflow)
    protocols = _protocols(result)
    for flow in shown:
        mine = tflow == flow
        _plot(ax, tt[mine] * scale, tg[mine] / 1e9, lw=0.8, **_dots_if_short(result, tt[mine]),
              label=f"flow {flow} ({protocols.get(flow, '?')})" if len(shown) <= 6 else None)
    total_t, total = _aggregate(result, "throughput", tt, tg)
    traced, flows = len(np.unique(tflow)), result._rows("flows")
    _plot(ax, total_t * scale, total / 1e9, color="k", lw=1.4,
          label="aggregate" if traced == flows else f"aggregate of the {traced} traced flows (of {flows})")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("in-order goodput (Gbps)")
    ax.set_xlim(0, result.duration_s * scale)
    ax.set_ylim(bottom=0)
    iv = result.engine_spec["metrics"]["throughput_interval_ps"] / 1e12
    drawn = _drawn_text(len(shown), traced)
    # in-order delivery: the interval in which a retransmission fills a hole delivers what waited
    # behind it, and can exceed the link's rate (1.57 Gbps on a 1 Gbps link: an audit of the figures)
    repaired = bool(protocols) and bool(np.nansum(result._col("flows", "retransmits_whole_run")) > 0)
    note = ("\nin-order goodput: an interval after a repaired loss delivers what waited and can exceed the link rate"
            if repaired else "")
    _title(fig, f"Goodput of each flow over {_fmt_ms(iv)} intervals ({drawn}){note}")
    _finish(fig, [ax], [result])
    return _save(fig, path)


def plot_queue_cdf(result: Result, path: PathLike = None) -> Figure:
    """CDF of the time-weighted queue length of each monitored port after warm-up."""
    _needs(result, "queue_hist", "plot('queue_hist')")
    fig, (ax,), _ = _figure(zoom=False)
    _queue_cdf(ax, result, "")
    ax.set_xlabel("queue length (packets)")
    ax.set_ylabel("fraction of time (CDF)")
    ax.set_ylim(0, 1.01)
    _title(fig, "Queue-length distribution after warm-up")
    _finish(fig, [ax], [result])
    return _save(fig, path)


def _queue_cdf(ax, result: Result, prefix: str) -> None:
    h = result.queue_hist
    labels = result.port_labels()
    for port in np.unique(h["port"]):
        s = h[h["port"] == port].sort_values("q_pkt")
        ax.step(s["q_pkt"], s["frac"].cumsum(), where="post", label=f"{prefix}{labels.get(port, port)}")


def plot_flows(result: Result, path: PathLike = None) -> Figure:
    """Goodput and mean window of every flow after warm-up (bars colored by protocol). The goodput
    is each flow's rate while it ran after warm-up (:func:`~dcsim.result.active_goodput_bps`): the
    flows table's goodput_bps divides by the whole time after warm-up, which put every short
    generated flow at ~0 (an audit of the figures)."""
    from dcsim.result import active_goodput_bps

    _needs(result, "flows", "plot('flows')")
    f = result.flows
    rate = active_goodput_bps(f["delivered_bytes"], f["start_s"], f["fct_s"], result.warmup_s, result.duration_s)
    fig = Figure(figsize=(7.5, 5.0), layout="constrained")
    FigureCanvasAgg(fig)
    ax1, ax2 = fig.subplots(2, 1, sharex=True)
    protos = list(dict.fromkeys(f["protocol"]))
    colors = {p: f"C{i}" for i, p in enumerate(protos)}
    for p in protos:
        mine = (f["protocol"] == p).to_numpy()
        s = f[mine]
        _per_flow(ax1, s["flow"], rate[mine] / 1e9, len(f), color=colors[p], label=p)
        _per_flow(ax2, s["flow"], s["cwnd_mean_pkt"], len(f), color=colors[p])
    ax1.set_ylabel("goodput while it ran (Gbps)")
    ax2.set_ylabel("mean window (packets)")
    ax2.set_xlabel("flow")
    _title(fig, "Per flow, after warm-up")
    _finish(fig, [ax1], [result])
    return _save(fig, path)


def _per_flow(ax, flow, value, flows: int, width: float = 0.8, **kw) -> None:
    """One value per flow: bars, or points when the figure has more than MAX_FLOW_BARS flows."""
    if flows <= MAX_FLOW_BARS:
        ax.bar(flow, value, width=width, **kw)
    else:
        ax.plot(flow, value, ".", ms=2, **kw)


def plot_ports(result: Result, path: PathLike = None) -> Figure:
    """Utilization and time-weighted mean queue of every monitored port after warm-up."""
    p = result.monitored_ports()
    if p.empty:
        raise ValueError("plot('ports'): this run monitored no port (metrics.monitor), nothing to draw")
    fig = Figure(figsize=(7.5, 5.0), layout="constrained")
    FigureCanvasAgg(fig)
    ax1, ax2 = fig.subplots(2, 1, sharex=True)
    names = [f"{s}->{d}" for s, d in zip(p["src"], p["dst"])]
    ax1.bar(names, 100 * p["utilization"], width=0.6)
    ax2.bar(names, p["q_mean_pkt"], width=0.6)
    ax1.set_xlim(-0.5 - max(0.0, (4 - len(names)) / 2), len(names) - 0.5 + max(0.0, (4 - len(names)) / 2))
    ax1.set_ylabel("utilization (%)")
    ax1.set_ylim(0, 105)
    ax2.set_ylabel("mean queue (packets)")
    for label in ax2.get_xticklabels():
        label.set_rotation(30)
    _title(fig, "Monitored ports, after warm-up")
    _finish(fig, [], [result])
    return _save(fig, path)


def plot_rates(result: Result, path: PathLike = None) -> Figure:
    """Each L2 source's rate (its reaction point's current rate, Gbps) vs time, and below it their
    sum. Up to six sources get a panel each (five sources stepping between MinRate and line rate
    on one axis made a barcode no source could be followed in); more are drawn together, a subset.
    The sum's panel draws the parking lot's link rate."""
    _needs(result, "rates", "plot('rates')")
    scale, xlabel = _time_axis(result)
    r = result.rates
    labels = dict(zip(result.sources["source"], result.sources["label"])) if len(result.sources) else {}
    shown = _subset(r["source"].to_numpy()) if len(r) else []
    own = 0 < len(shown) <= 6  # a panel per source
    fig, axes, _ = _figure(rows=(len(shown) if own else 1) + 1, height=1.3 if own else 2.2, zoom=False)
    ax_sum = axes[-1]
    for a in axes:
        _mark_warmup(a, result, scale)
    for i, src in enumerate(shown):
        s = r[r["source"] == src]
        a = axes[i] if own else axes[0]
        a.step(s["t_s"] * scale, s["rate_bps"] / 1e9, where="post", lw=0.8, color=f"C{i % 10}",
               label=f"{labels.get(src, src)} #{src}" if len(shown) <= 6 else None)
        if own:
            a.set_ylabel(f"#{src} (Gbps)", fontsize=8)
    if len(r):
        total = r.groupby("t_s")["rate_bps"].sum()
        ax_sum.step(total.index * scale, total / 1e9, where="post", color="k", lw=1.2,
                    label=f"sum of the {r['source'].nunique()} sources")
    net = result.scenario.network
    if net.topology == "parking_lot" and net.link:
        ax_sum.axhline(net.link / 1e9, color="r", ls="--", lw=0.9, label=f"link rate {net.link / 1e9:g} Gbps")
    ax_sum.set_xlabel(xlabel)
    if not own:
        axes[0].set_ylabel("rate of each (Gbps)")
    ax_sum.set_ylabel("sum (Gbps)")
    axes[0].set_xlim(0, result.duration_s * scale)
    for a in axes:
        a.set_ylim(bottom=0)
    scheme = ", ".join(sorted(set(result.sources["scheme"]))) if len(result.sources) else "L2"
    drawn = f" ({len(shown)} of {r['source'].nunique()} drawn)" if len(r) and len(shown) < r["source"].nunique() else ""
    _title(fig, f"Sending rate of each {scheme} source{drawn}, and their sum")
    _finish(fig, list(axes), [result])
    return _save(fig, path)


def _bars(fig_h: float = 4.0, rows: int = 1) -> tuple[Figure, list]:
    fig = Figure(figsize=(7.5, fig_h), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, 1, sharex=True, squeeze=False)[:, 0]
    return fig, list(axes)


def _label_bars(ax, rects, fmt: str = "{:,.0f}") -> None:
    ax.bar_label(rects, labels=[fmt.format(r.get_height()) for r in rects], fontsize=7, padding=2)


def plot_counters(result: Result, path: PathLike = None) -> Figure:
    """Packet conservation over the whole run: packets sent, delivered, dropped and in flight at the
    end (data and ACKs; sent = delivered + dropped + in flight)."""
    _needs(result, "counters", "plot('counters')")
    c = result.counters.iloc[0]
    fig, (ax,) = _bars()
    names = ["sent", "delivered", "dropped", "in flight"]
    values = [float(c[k]) for k in ("sent_pkts", "delivered_pkts", "dropped_pkts", "in_flight_pkts")]
    rects = ax.bar(names, values, color=["C0", "C2", "C3", "C7"])
    _label_bars(ax, rects)
    ax.set_ylabel("packets (whole run)")
    ax.set_ylim(0, 1.12 * max(values + [1.0]))
    ok = values[0] == values[1] + values[2] + values[3]
    _title(fig, "Packet conservation: sent = delivered + dropped + in flight" + ("" if ok else " (does NOT hold)"))
    _finish(fig, [], [result])
    return _save(fig, path)


def plot_workloads(result: Result, path: PathLike = None) -> Figure:
    """Offered (target) and realised load of each [[workloads]] entry (Poisson: % of its link's
    capacity; an incast or a trace has no offered load), and the flows each generated."""
    _needs(result, "workloads", "plot('workloads')")
    w = result.workloads
    fig, (ax1, ax2) = _bars(5.0, rows=2)
    x = np.arange(len(w))
    names = [f"{int(i)}: {k}" + (f" on {lk}" if isinstance(lk, str) and lk else "")
             for i, k, lk in zip(w["workload"], w["kind"], w["link"])]
    target = 100 * w["target_load"].to_numpy(dtype=float)
    real = 100 * w["realised_load"].to_numpy(dtype=float)
    offered = bool(np.isfinite(target).any() or np.isfinite(real).any())  # an incast alone offers none
    ax1.bar(x - 0.2, np.nan_to_num(target), width=0.4, label="target (offered) load" if offered else None)
    ax1.bar(x + 0.2, np.nan_to_num(real), width=0.4, label="realised load" if offered else None)
    for xi, t, r, k in zip(x, target, real, w["kind"]):
        if not np.isfinite(t) and not np.isfinite(r):
            ax1.text(xi, 0, f"no offered load\n({k})", ha="center", va="bottom", fontsize=7, color="0.4")
    ax1.set_ylabel("load (% of link capacity)")
    ax1.set_ylim(0, max(5.0, 1.15 * np.nanmax(np.r_[target, real, 0.0])))
    rects = ax2.bar(x, w["flows"].to_numpy(dtype=float), color="C2")
    _label_bars(ax2, rects)
    ax2.set_ylabel("flows generated (count)")
    ax2.set_ylim(0, 1.15 * max(float(w["flows"].max()), 1.0))
    ax2.set_xticks(x, names)
    ax2.set_xlabel("workload")
    _title(fig, "Workloads: target vs realised load")
    _finish(fig, [ax1], [result])
    return _save(fig, path)


def plot_rounds(result: Result, path: PathLike = None) -> Figure:
    """Completion time (ms) of each incast round (start -> its last response completed); a round
    that did not complete by the end is drawn at the time it had run, a lower bound (an up
    triangle: an ✗ at 1.1 x the maximum read as a completion time, an audit of the figures)."""
    from matplotlib.ticker import MaxNLocator

    _needs(result, "rounds", "plot('rounds')")
    rd = result.rounds
    fig, (ax,) = _bars()
    asked, started = 0, 0
    for w in np.unique(rd["workload"]):
        s = rd[rd["workload"] == w]
        comp = s["completion_s"].to_numpy(dtype=float) * 1e3
        done = np.isfinite(comp)
        ax.plot(s["round"].to_numpy()[done], comp[done], "o-", ms=4, lw=1, label=f"workload {int(w)}")
        if (~done).any():
            so_far = (result.duration_s - s["start_s"].to_numpy(dtype=float)[~done]) * 1e3
            ax.plot(s["round"].to_numpy()[~done], so_far, "^", color="C3", ms=7,
                    label="not completed by the end: time it had run (a lower bound)")
        started += len(s)
        asked += int(getattr(result.scenario.workloads[int(w)], "rounds", None) or len(s))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("round")
    ax.set_ylabel("round completion time (ms)")
    ax.set_ylim(0, 1.15 * ax.get_ylim()[1])
    _title(fig, "Incast rounds: completion time of each round"
           + (f" ({started} of {asked} rounds started by the end)" if started < asked else ""))
    _finish(fig, [ax], [result])
    return _save(fig, path)


def plot_sources(result: Result, path: PathLike = None) -> Figure:
    """Each L2 source's goodput after warm-up (Gbps) and its realised feedback loop delay (mean,
    with min..max, us)."""
    _needs(result, "sources", "plot('sources')")
    src = result.sources
    src = src[~np.isfinite(src["poisson"].to_numpy(dtype=float))] if "poisson" in src else src
    if src.empty:
        raise ValueError("plot('sources'): no listed L2 sources (only Poisson short flows)")
    shown = src.iloc[np.unique(np.linspace(0, len(src) - 1, min(len(src), 24)).round().astype(int))]
    fig, (ax1, ax2) = _bars(5.0, rows=2)
    x = np.arange(len(shown))
    ax1.bar(x, shown["goodput_bps"].to_numpy(dtype=float) / 1e9, color="C0")
    ax1.set_ylabel("goodput (Gbps)")
    mean = shown["loop_delay_mean_s"].to_numpy(dtype=float) * 1e6
    lo = shown["loop_delay_min_s"].to_numpy(dtype=float) * 1e6
    hi = shown["loop_delay_max_s"].to_numpy(dtype=float) * 1e6
    ok = np.isfinite(mean)
    ax2.errorbar(x[ok], mean[ok], yerr=[(mean - lo)[ok], (hi - mean)[ok]], fmt="o", ms=4, capsize=3, color="C1",
                 label="mean (bars: min..max)")
    if not ok.any():
        ax2.text(0.5, 0.5, "no feedback received", transform=ax2.transAxes, ha="center", color="0.4")
    ax2.set_ylabel("feedback loop delay (us)")
    ax2.set_ylim(bottom=0)
    ax2.set_xticks(x, [f"{lab} #{i}" for lab, i in zip(shown["label"], shown["source"])])
    for label in ax2.get_xticklabels():
        label.set_rotation(30)
        label.set_ha("right")
    ax2.set_xlabel("source")
    drawn = f" ({len(shown)} of {len(src)} drawn)" if len(shown) < len(src) else ""
    _title(fig, f"L2 sources: goodput after warm-up and realised feedback loop delay{drawn}")
    _finish(fig, [ax2], [result])
    return _save(fig, path)


def plot_cps(result: Result, path: PathLike = None) -> Figure:
    """Frames sampled and feedback frames sent by each L2 congestion point after warm-up."""
    _needs(result, "cps", "plot('cps')")
    cps = result.cps
    fig, (ax,) = _bars()
    x = np.arange(len(cps))
    r1 = ax.bar(x - 0.2, cps["samples"].to_numpy(dtype=float), width=0.4, label="frames sampled")
    r2 = ax.bar(x + 0.2, cps["feedback_frames"].to_numpy(dtype=float), width=0.4, label="feedback frames sent")
    _label_bars(ax, r1)
    _label_bars(ax, r2)
    ax.set_xticks(x, list(cps["label"]))
    ax.set_xlabel("congestion point (port)")
    ax.set_ylabel("frames (after warm-up)")
    ax.set_ylim(0, 1.15 * max(float(cps["samples"].max()), 1.0))
    _title(fig, "L2 congestion points: samples and feedback")
    _finish(fig, [ax], [result])
    return _save(fig, path)


def plot_fct(result: Result, path: PathLike = None) -> Figure:
    """Slowdown (FCT / FCT on an empty network) of the finished finite flows that started after
    warm-up: its CDF per flow-size bucket (metrics.fct_buckets; per protocol and per traffic source
    too, dashed and dotted, when there are several), and its p50 / p99 / p99.9 per bucket."""
    from dcsim.result import bucket_labels, timed_flows, traffic_of, traffic_sources

    edges = [b.value for b in result.scenario.metrics.fct_buckets]
    started = timed_flows(result.flows, edges, result.warmup_s)
    f = started[np.isfinite(started["fct_s"].to_numpy(dtype=float))
                & np.isfinite(started["slowdown"].to_numpy(dtype=float))]
    if f.empty:
        if started.empty:  # (a probe: "no finite flow ... finished" said of a run that has none)
            raise ValueError("plot('fct'): this run has no finite flow that started after warm-up (its flows are "
                             "long-lived, or started before it): no completion times to draw")
        raise ValueError(f"plot('fct'): none of the {len(started)} finite flows that started after warm-up finished")
    fig = Figure(figsize=(10.0, 4.2), layout="constrained")
    FigureCanvasAgg(fig)
    ax1, ax2 = fig.subplots(1, 2)
    # Unfinished flows have no FCT: said per bucket, since leaving them out favours the fast ones
    # (a bucket of 3 flows, none finished, had vanished: an audit of the figures).
    unfinished = {b: int((started["bucket"] == b).sum() - (f["bucket"] == b).sum()) for b in bucket_labels(edges)}
    groups = [(b, f.loc[f["bucket"] == b, "slowdown"].to_numpy(dtype=float)) for b in bucket_labels(edges)]
    groups = [(b, s) for b, s in groups if s.size]
    if len(groups) > 1:  # with one bucket "all" is the same curve, drawn over it
        groups.append(("all", f["slowdown"].to_numpy(dtype=float)))

    def cdf(ax, s: np.ndarray, **kw) -> None:
        s = np.sort(s)
        if s.size == 1:  # one flow: a step of nothing; a marker at its value
            ax.plot(s, [1.0], "o", ms=4, **{k: v for k, v in kw.items() if k in ("color", "label")})
            return
        ax.step(s, np.arange(1, s.size + 1) / s.size, where="post", **kw)

    def count(b: str, n: int) -> str:
        left = sum(unfinished.values()) if b == "all" else unfinished.get(b, 0)
        return said(n, left)

    def said(n: int, left: int) -> str:
        """A legend's count, the same words for every entry (a probe: "workload 0 (poisson), all sizes
        (652 flows)" counted the finished of 751 beside "(116 finished, 4 unfinished)")."""
        return f"{n} finished, {left} unfinished" if left else f"{n} flows"

    for i, (b, s) in enumerate(groups):
        last = b == "all"
        cdf(ax1, s, color="k" if last else f"C{i}", lw=1.6 if last else 1.0, label=f"{b} ({count(b, s.size)})")
    protos = sorted(f["protocol"].unique())
    if len(protos) > 1:
        for j, p in enumerate(protos):
            s = f.loc[f["protocol"] == p, "slowdown"].to_numpy(dtype=float)
            left = int((started["protocol"] == p).sum()) - s.size
            cdf(ax1, s, color="0.45", lw=1.0, ls=("--", ":", "-.")[j % 3], label=f"{p}, all sizes ({said(s.size, left)})")
    kinds = result._workload_kinds()
    traffic = traffic_of(f, kinds)
    traffic_started = traffic_of(started, kinds)
    sources = traffic_sources(traffic)
    if len(sources) > 1:  # an incast beside background traffic: each source's own CDF
        for j, t in enumerate(sources):
            s = f.loc[traffic == t, "slowdown"].to_numpy(dtype=float)
            left = int((traffic_started == t).sum()) - s.size
            cdf(ax1, s, color="0.2", lw=1.0, ls=((0, (1, 1)), (0, (5, 2)), (0, (3, 1, 1, 1)))[j % 3],
                label=f"{t}, all sizes ({said(s.size, left)})")
    ax1.set_xscale("log")
    ax1.set_xlabel("slowdown (FCT / FCT on an empty network; log scale)")
    ax1.set_ylabel("CDF (fraction of finished flows)")
    ax1.set_ylim(0, 1.02)
    x = np.arange(len(groups))
    # markers, not bars: on a log axis a bar's length is not its value (p99.9 = 2 looked 5x p99 = 1.25)
    for j, (q, lab, m) in enumerate(((50, "p50", "o"), (99, "p99", "s"), (99.9, "p99.9", "^"))):
        ys = [np.percentile(s, q) for _, s in groups]
        ax2.plot(x + (j - 1) * 0.2, ys, m, ls="none", ms=6, color=f"C{j + 6}", label=lab)
        for xi, yi in zip(x + (j - 1) * 0.2, ys):  # the value, readable between log ticks
            ax2.annotate(f"{yi:.3g}", (xi, yi), textcoords="offset points", xytext=(0, 5), ha="center", fontsize=6)
    ax2.set_xlim(-0.6, len(groups) - 0.4)
    ax2.axhline(1.0, color="0.5", lw=0.8, ls=":")
    ax2.set_yscale("log")
    top = max(float(np.percentile(s, 99.9)) for _, s in groups)
    ax2.set_ylim(top=1.8 * max(top, 1.0))  # room for the top value's label
    for axis in (ax1.xaxis, ax2.yaxis):  # plain numbers at 1, 2, 5 x 10^k, not "2 x 10^0"
        axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        axis.set_minor_formatter(NullFormatter())
    ax2.set_xticks(x, [b for b, _ in groups])
    for label in ax2.get_xticklabels():
        label.set_rotation(20)
        label.set_ha("right")
    ax2.set_xlabel("flow size" + (f" ({', '.join(sources)} pooled)" if len(sources) > 1 else ""))
    ax2.set_ylabel("slowdown percentiles\n(log scale)")  # on two lines: one ran into the title
    gone = [b for b, n in unfinished.items() if n and not (f["bucket"] == b).any()]
    left = sum(unfinished.values())
    _title(fig, "Flow completion: slowdown of the finished finite flows, after warm-up"
           + (f"\n{left} unfinished flows (counted in the legend) have no FCT" if left else "")
           + (f"; none of {', '.join(gone)} finished" if gone else ""))
    _finish(fig, [ax1, ax2], [result])
    return _save(fig, path)


def plot_tiers(result: Result, path: PathLike = None) -> Figure:
    """A leaf-spine's or fat-tree's ports by tier and direction, after warm-up: the CDF of their
    utilization per tier (path order: host up, ..., host down; a tier whose CDF has a long tail
    has hot ports, e.g. ECMP collisions), and the packets each tier dropped and CE-marked (the
    summary's "Fabric tiers" table, drawn)."""
    tiers = result.port_tiers()
    if tiers is None:
        raise ValueError(f"plot('tiers'): a {result.scenario.network.topology} has no tiers "
                         "(leaf_spine and fat_tree have)")
    rows = result.tier_stats()
    util = result._col("ports", "utilization").astype(float)
    fig = Figure(figsize=(10.0, 4.2), layout="constrained")
    FigureCanvasAgg(fig)
    ax1, ax2 = fig.subplots(1, 2)
    for i, name in enumerate(rows["tier"]):
        u = np.sort(100 * util[tiers == name])
        ax1.step(u, np.arange(1, u.size + 1) / u.size, where="post", color=f"C{i}", lw=1.2,
                 label=f"{name} ({u.size} ports)")
    ax1.set_xlabel("utilization after warm-up (%)")
    ax1.set_ylabel("CDF (fraction of the tier's ports)")
    ax1.set_xlim(0, 100)
    ax1.set_ylim(0, 1.02)
    x = np.arange(len(rows))
    for j, (col, lab) in enumerate((("drops", "drops"), ("marks", "CE marks"))):
        rects = ax2.bar(x + (j - 0.5) * 0.4, rows[col].to_numpy(), width=0.4, color=f"C{j + 6}", label=lab)
        _label_bars(ax2, rects)
    ax2.set_xticks(x, list(rows["tier"]))
    for label in ax2.get_xticklabels():
        label.set_rotation(20)
        label.set_ha("right")
    ax2.set_ylabel("packets (after warm-up)")
    _title(fig, "Fabric tiers: port utilization, drops and CE marks, after warm-up")
    _finish(fig, [ax1, ax2], [result])
    return _save(fig, path)


def plot_permutation(result: Result, path: PathLike = None) -> Figure:
    """A permutation workload's flows after warm-up: each flow's goodput while it ran
    (:meth:`Result.active_goodput`, sorted; flows that ran none of their time after warm-up left out), colored by how many of the permutation's flows share
    its busiest link (ECMP collisions), against the host link's payload rate and that rate / k for
    k flows sharing a link."""
    perm = [i for i, w in enumerate(result.scenario.workloads) if w.kind == "permutation"]
    if not perm:
        raise ValueError("plot('permutation'): the scenario has no permutation workload")
    paths = np.concatenate([result.flow_paths(w) for w in perm])
    g = np.concatenate([result.active_goodput(w) for w in perm]) / 1e9
    share = link_sharing(paths.tolist())
    ran = np.isfinite(g)  # a flow that ran none of its time after warm-up has no goodput to show
    if not ran.any():
        raise ValueError("plot('permutation'): no flow of the permutation ran after warm-up")
    g, share, paths = g[ran], share[ran], paths[ran]
    order = np.argsort(-g, kind="stable")
    g, share = g[order], share[order]
    net = result.scenario.network
    # The senders' host links (each flow's first hop, from the ports table): their payload rate.
    rate = dict(zip(zip(result.ports["src"].astype(str), result.ports["dst"].astype(str)),
                    result.ports["rate_bps"].astype(float)))
    line = max(rate.get(tuple(p.split("->")[:2]), np.nan) for p in paths)
    payload = line * (net.packet_bytes - net.header_bytes) / net.packet_bytes / 1e9
    fig = Figure(figsize=(9.0, 4.2), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots(1, 1)
    x = np.arange(g.size)
    for k in sorted(set(share.tolist())):
        m = share == k
        ax.bar(x[m], g[m], width=0.9, color=f"C{min(k - 1, 9)}",
               label=f"{'alone on its links' if k == 1 else f'{k} flows share its busiest link'} ({int(m.sum())})")
        ax.axhline(payload / k, color=f"C{min(k - 1, 9)}", ls=":", lw=1)
    ax.set_xlabel(f"flow, by goodput ({g.size} flows)")
    ax.set_ylabel("goodput after warm-up (Gbps)")
    ax.set_xlim(-0.6, max(g.size, 1) - 0.4)
    ax.set_ylim(0, 1.08 * payload)
    ax.legend(loc="upper right", fontsize=8, title=f"dotted: {payload:.3g} Gbps / the flows sharing the link",
              title_fontsize=8)  # (not "/ k": the footer's k is the fat-tree's)
    total = float(np.sum(g))
    _title(fig, f"Permutation: goodput per flow, {total:.4g} of {g.size * payload:.4g} Gbps (host links' payload rate)")
    _finish(fig, [], [result])
    return _save(fig, path)


def plots_for(result: Result) -> dict[str, Callable[[Result, PathLike], Figure]]:
    """The figures ``dcsim run`` draws for this result (:func:`dcsim._plot_worker.plot_names`)."""
    return {n: PLOTS[n] for n in plot_names(result)}


#: Result.plot(kind) -> the function that draws it.
KINDS: dict[str, Callable[[Result, PathLike], Figure]] = {
    "queue": plot_queue,
    "cwnd": plot_cwnd_alpha,
    "throughput": plot_throughput,
    "queue_hist": plot_queue_cdf,
    "flows": plot_flows,
    "ports": plot_ports,
    "rates": plot_rates,
    "counters": plot_counters,
    "workloads": plot_workloads,
    "rounds": plot_rounds,
    "sources": plot_sources,
    "cps": plot_cps,
    "fct": plot_fct,
    "tiers": plot_tiers,
    "permutation": plot_permutation,
}

#: File name -> plot function; ``dcsim run`` writes each into the output directory.
PLOTS: dict[str, Callable[[Result, PathLike], Figure]] = {
    "queue.png": plot_queue,
    "cwnd_alpha.png": plot_cwnd_alpha,
    "cwnd.png": plot_cwnd_alpha,
    "throughput.png": plot_throughput,
    "fct.png": plot_fct,
    "tiers.png": plot_tiers,
    "rates.png": plot_rates,
    "permutation.png": plot_permutation,
}

#: compare(): what each kind overlays, per run.
COMPARE_KINDS = ("queue", "cwnd", "throughput", "queue_hist", "flows")


#: Line styles of :func:`compare`'s runs, in turn (with matplotlib's colours), so that runs whose
#: curves overlap stay apart.
COMPARE_STYLES = ("-", "--", "-.", ":")


def compare(results: Union[Sequence[Result], Mapping[str, Result]], kind: str = "queue", labels: Optional[Sequence[str]] = None,
            path: PathLike = None) -> Figure:
    """Several runs on one figure, e.g. ``compare([dctcp, reno], "queue", labels=["DCTCP", "NewReno"])``.

    * ``queue``: the first monitored queue of each run vs time (and its last few periods);
    * ``cwnd``: the mean window over each run's traced flows vs time;
    * ``throughput``: each run's aggregate goodput of its traced flows vs time;
    * ``queue_hist``: each run's queue-length CDF;
    * ``flows``: each run's per-flow goodput after warm-up.

    ``results`` may be a mapping ``{label: Result}`` (its keys are the labels). Raises
    ValueError naming the run whose table for ``kind`` is empty, or an item that is not a Result.
    """
    if isinstance(results, Mapping):
        if labels is not None:
            raise ValueError("compare: labels given twice (as the keys of results and as labels); give one")
        labels, results = [str(k) for k in results], list(results.values())
    if isinstance(results, (str, bytes, Result)) or not isinstance(results, Iterable):
        raise ValueError(f"compare: results must be a sequence of Result (or {{label: Result}}), got {type(results).__name__}")
    results = list(results)
    if not results:
        raise ValueError("compare: no results given")
    for i, r in enumerate(results):
        if not isinstance(r, Result):
            raise ValueError(f"compare: results[{i}] is a {type(r).__name__}, not a Result (dcsim.simulate(...) or "
                             "Result.from_dir(...) gives one)")
    if kind not in COMPARE_KINDS:
        raise ValueError(f"compare: kind {kind!r} is not one of {', '.join(COMPARE_KINDS)}")
    if labels is None:
        labels = [f"run {i}" for i in range(len(results))]
    labels = [str(x) for x in labels]
    if len(labels) != len(results):
        raise ValueError(f"compare: {len(labels)} labels for {len(results)} results")
    for r, lab in zip(results, labels):  # an empty table drew an empty curve, silently (an API probe)
        _needs(r, kind, f"compare({kind!r}): {lab}")
    scale, xlabel = _time_axis(max(results, key=lambda r: r.duration_s))
    if kind == "queue_hist":
        fig, (ax,), _ = _figure(zoom=False)
        for r, lab in zip(results, labels):
            _queue_cdf(ax, r, f"{lab}: ")
        ax.set_xlabel("queue length (packets)")
        ax.set_ylabel("fraction of time (CDF)")
        ax.set_ylim(0, 1.01)
        _title(fig, "Queue-length distribution after warm-up")
        _finish(fig, [ax], results, labels)
        return _save(fig, path)
    if kind == "flows":
        fig, (ax,), _ = _figure(zoom=False)
        width = 0.8 / len(results)
        most = max(r._rows("flows") for r in results)
        for i, (r, lab) in enumerate(zip(results, labels)):
            f = r.flows
            _per_flow(ax, f["flow"] + i * width, f["goodput_bps"] / 1e9, most, width=width, label=lab)
        ax.set_xlabel("flow")
        ax.set_ylabel("goodput after warm-up (Gbps)")
        _title(fig, "Goodput of each flow")
        _finish(fig, [ax], results, labels)
        return _save(fig, path)
    zoom = kind in ("queue", "cwnd")
    fig, (ax,), zs = _figure(zoom=zoom)
    series = []
    for r in results:
        if kind == "queue":
            q = r.queue
            s = q[q["port"] == q["port"].iloc[0]] if len(q) else q
            series.append((s["t_s"].to_numpy(), s["q_pkt"].to_numpy(dtype=float)))
        elif kind == "cwnd":
            series.append(_aggregate(r, "cwnd", r._col("cwnd", "t_s"), r._col("cwnd", "cwnd_pkt").astype(float)))
        else:
            t, g = _aggregate(r, "throughput", r._col("throughput", "t_s"), r._col("throughput", "goodput_bps").astype(float))
            series.append((t, g / 1e9))
    # a line style per run as well as a colour: two runs at the same level (DCTCP and NewReno-ECN both
    # around K) had the first drawn hidden under the second (a new user's walk through the README)
    styles = [COMPARE_STYLES[i % len(COMPARE_STYLES)] for i in range(len(series))]
    for (t, y), lab, ls in zip(series, labels, styles):
        ax.plot(t * scale, y, lw=0.8, ls=ls, label=lab)
    ylabel = {"queue": "queue length (packets)", "cwnd": "mean window of the traced flows (packets)",
              "throughput": "aggregate goodput of\nthe traced flows (Gbps)"}[kind]
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    warm = {r.warmup_s for r in results}
    if len(warm) == 1 and next(iter(warm)) > 0:  # one warm-up for all: shaded as in a run's own figures
        _mark_warmup(ax, results[0], scale)
    if zoom:
        (zx,) = zs
        # One window for all runs, scaled to the slowest oscillation shown: whole periods of the run
        # that needs the widest window; the title names that run and gives every run's own period.
        periods = [_zoom_period(r, t, y) if len(t) else None for r, (t, y) in zip(results, series)]
        widths = [_zoom_width(r, p) for r, p in zip(results, periods)]
        i = max(range(len(results)), key=lambda j: widths[j][0])
        # ending where the shortest run ends, so that every run is in it (a 200 ms run was absent
        # from a zoom on the last 695 ms of a 1 s one, yet its period was quoted: an audit)
        (zw, zk), z1 = widths[i], min(r.duration_s for r in results)
        wanted = zw
        zw = min(zw, min(r.duration_s - r.warmup_s for r in results))
        z0 = z1 - zw
        ends = "" if len({r.duration_s for r in results}) == 1 else f" to {_fmt_ms(z1)}, the shortest run's end"
        if zk and zw < wanted and periods[i]:  # cut to the shortest run's span: fewer periods than zk (a probe:
            n = zw / periods[i]                 # "4 periods of NewReno" over 150 ms of its 174 ms period)
            head = (f"last {_fmt_ms(zw)}{ends} (cut to the shortest run's span after warm-up): "
                    + (f"{n:.2g} periods of {labels[i]}" if n >= 1 else f"less than one period of {labels[i]}"))
        else:
            head = (f"last {_fmt_ms(zw)}{ends}: {zk} periods of {labels[i]}" if zk
                    else _zoom_title(results[i], zw, None, 0) + ends)
        own = [f"{lab} ≈ {_fmt_ms(p)}" for lab, p in zip(labels, periods) if p is not None]
        # wrapped, so that the panel's title stays inside the figure (it ran off its right edge)
        ztitle = "\n".join(textwrap.wrap(head, 52) + (textwrap.wrap("periods: " + ", ".join(own), 52) if own else []))
        for (t, y), ls in zip(series, styles):
            sel = (t >= z0) & (t <= z1)
            zx.plot(t[sel] * 1e3, y[sel], lw=0.9, ls=ls)
        zx.set_xlim(z0 * 1e3, z1 * 1e3)
        zx.set_xlabel("time (ms)")
        zx.set_ylabel(ylabel)
        zx.set_ylim(bottom=0)
        zx.set_title(ztitle, fontsize=8)
    _title(fig, {"queue": "Queue length", "cwnd": "Mean window", "throughput": "Aggregate goodput"}[kind])
    _finish(fig, [ax], results, labels)
    return _save(fig, path)


# --------------------------------------------------------------------------------------------
# A sweep's results against its axes

#: Most ticks of a sweep figure's x axis that are labelled (every step up to this many).
MAX_SWEEP_TICKS = 48
#: Most lines a sweep figure draws in a panel: one for each combination of the axes other than
#: its x axis (the first ones, in the sweep's order).
MAX_SWEEP_LINES = 8
#: Numeric columns a sweep table adds beside an axis of values with units (``network.aqm.K`` ->
#: ``network.aqm.K_pkt``; :func:`dcsim.sweep._unit_column`), and how they are shown: SI number ->
#: (scale, unit) candidates, the largest unit the values reach first.
_SWEEP_UNITS = {
    "_s": ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")),
    "_bps": ((1e12, "Tbps"), (1e9, "Gbps"), (1e6, "Mbps"), (1e3, "Kbps")),
    "_bytes": ((1e9, "GB"), (1e6, "MB"), (1e3, "KB"), (1.0, "B")),
    "_pkt": ((1.0, "pkt"),),
}


def _sweep_numeric(table, path: str) -> Optional[tuple[str, float, str]]:
    """(column, divisor, unit) of the numbers of axis path ``path``, or None if its values are not
    numbers (strings without one unit, lists, booleans: drawn as categories)."""
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    for suffix, units in _SWEEP_UNITS.items():
        col = path + suffix
        if col in table.columns:
            top = float(np.nanmax(np.abs(table[col].to_numpy(dtype=float)))) if len(table) else 0.0
            div, unit = next(((d, u) for d, u in units if top >= d), units[-1])
            return col, div, unit
    if path in table.columns and is_numeric_dtype(table[path]) and not is_bool_dtype(table[path]):
        return path, 1.0, ""
    return None


def _plain(text: str) -> str:
    """Text matplotlib draws as written: a "$" would start its math mode (an output folder named
    "cost_$5_$10" had no figure, a review)."""
    return text.replace("$", r"\$")


def _value_text(v) -> str:
    """An axis value as the sweep file writes it: booleans as true / false."""
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    return str(v)


#: Characters of an axis value shown in a tick or legend label, at most.
SWEEP_LABEL_CHARS = 28


def _told_apart(texts: Sequence[str], width: int = SWEEP_LABEL_CHARS) -> list[str]:
    """Short labels that tell an axis's values apart: tables (JSON text) by the keys whose values
    differ between them ("K=20pkt" for {"kind": "threshold", "K": "20pkt"}), other values as they
    are; each cut to ``width`` characters, or longer where that would make two of them alike."""
    try:
        parsed = [json.loads(t) for t in texts]
    except ValueError:
        parsed = []
    if parsed and all(isinstance(d, dict) for d in parsed):
        every = list(dict.fromkeys(k for d in parsed for k in d))
        # the keys that differ; all of them where none does (one table: "{}" had said nothing, a review)
        keys = [k for k in every if len({json.dumps(d.get(k), sort_keys=True) for d in parsed}) > 1] or every
        texts = [", ".join(f"{k}={d[k] if isinstance(d[k], str) else json.dumps(d[k])}" for k in keys if k in d)
                 or "{}" for d in parsed]
    distinct = len(set(texts))
    while True:
        cut = [t if len(t) <= width else t[:width - 1] + "…" for t in texts]
        if len(set(cut)) == distinct or width >= max(map(len, texts), default=0):
            return cut
        width += 4


def _number_text(v: float) -> str:
    """A tick's number: whole numbers in full (1000000, not 1e+06), others to 6 digits."""
    return str(int(v)) if np.isfinite(v) and float(v).is_integer() and abs(v) < 1e15 else f"{v:.6g}"


def _axis_groups(axes, combine: str) -> list[tuple[str, ...]]:
    """The sweep's axes as groups of paths that move together: each axis's linked paths ("a, b"
    as a sweep file writes them, or a sequence); in a zip sweep every path moves with every other."""
    if isinstance(axes, str):
        axes = [axes]
    groups = []
    for a in axes:
        g = tuple(q.strip() for q in a.split(",")) if isinstance(a, str) else tuple(a)
        if not g or not all(isinstance(q, str) and q for q in g):
            raise ValueError(f"axes: {a!r} is not an axis: give its path, e.g. \"network.aqm.K\", or its linked paths")
        groups.append(g)
    if combine not in ("grid", "zip"):
        raise ValueError(f"combine: {combine!r}; allowed \"grid\" or \"zip\" (as the sweep file's combine)")
    return [tuple(q for g in groups for q in g)] if combine == "zip" and groups else groups


def plot_sweep(table, axes: Union[str, Sequence[Union[str, Sequence[str]]]], path: PathLike = None,
               x: Optional[str] = None, title: str = "sweep", combine: str = "grid",
               notes: Sequence[str] = ()) -> Figure:
    """A sweep's headline results (:func:`dcsim.sweep.summary.headline_columns`: goodput, Jain's
    index, drops, flows done and slowdowns, the busiest monitored ports' utilization and queue)
    against one of its axes: a panel for each column, a line for each combination of the other
    axes (at most :data:`MAX_SWEEP_LINES`), each point the mean over the seeds of the combination
    that ran to their end and its bar their least .. largest value.

    ``table``: a sweep table (``SweepResult.table``, ``pandas.read_parquet("OUT/sweep.parquet")``);
    ``axes``: the sweep's axes in order, each a path or its linked paths (``"a, b"`` as in the
    sweep file and ``sweep.json``, or a sequence; ``SweepResult.axes``), every one of them: rows
    that share axis values and a seed are refused (an axis left out would be averaged as seeds);
    ``combine``: the sweep's ("zip": its axes move together, one line); ``x``: the path drawn
    along x (default: the first axis with numbers of two or more values, else the first axis).
    Values with units are drawn as numbers in that unit (on a log scale over 20 x or more), other
    values as categories in the sweep's order, points without lines between them; the paths
    linked to x are named under the axis and their values under its ticks. Columns that are 0 in
    every run are not drawn, and a slowdown p99 over fewer than 100 finished flows in some seed is
    an open marker (rough); the footer says so, with ``notes``."""
    import pandas as pd

    from dcsim.result import ROUGH_BELOW
    from dcsim.sweep.summary import finished_runs, headline_columns

    if not isinstance(table, pd.DataFrame):
        raise ValueError(f"table: a sweep table (a pandas DataFrame) is needed, got {type(table).__name__}")
    table = table.reset_index(drop=True)  # rows by position (a table filtered or joined by the caller)
    groups = _axis_groups(axes, combine)
    known = [q for g in groups for q in g]
    if not known:
        raise ValueError("axes: no axis paths; give the sweep's axes, e.g. SweepResult.axes")
    if "status" not in table.columns:
        raise ValueError("table: no status column: not a sweep table (OUT/sweep.parquet)")
    missing = [q for q in known if q not in table.columns]
    if missing:
        raise ValueError(f"axes: {missing[0]!r} is not a column of the sweep table; its axis columns come first "
                         f"({', '.join(map(str, list(table.columns)[1:4]))}, ...)")
    texts = table[known].apply(lambda column: column.map(_value_text))  # DataFrame.map needs pandas 2.1
    if "seed" in table.columns:
        same = texts.assign(seed=table["seed"].astype(str)).duplicated()
        if same.any():  # an axis left out: its values would be averaged as if they were seeds (a review)
            raise ValueError(f"axes: {int(same.sum())} rows share their values of {', '.join(known)} and their seed "
                             "with another row: give every axis of the sweep (OUT/sweep.json lists them)")
    per_axis = [len(texts[list(g)].drop_duplicates()) for g in groups]  # each axis's steps
    if len(groups) > 1:
        # a grid's rows are every combination of its axes' steps; a zip sweep's, or linked paths given
        # as axes of their own, are not, and would be drawn as lines of one point each (a review)
        combos = len(texts.drop_duplicates())
        if combos < int(np.prod(per_axis, dtype=float)):
            raise ValueError(f"axes: the table's rows are {combos} of the {int(np.prod(per_axis, dtype=float))} "
                             f"combinations of {' x '.join(map(str, per_axis))} axis values: a zip sweep (give "
                             "combine=\"zip\", as its sweep.json says) or linked paths given as separate axes (give "
                             "them as one, \"a, b\")")
    ok = finished_runs(table)
    if ok.empty:
        raise ValueError("table: no run of this sweep ran to its end (status 'ok'): nothing to draw")

    def numbers_of(i: int) -> Optional[str]:
        """The first path of axis i whose numbers tell its steps apart (None: its steps are categories)."""
        for q in groups[i]:
            found = _sweep_numeric(table, q)
            if found and table[found[0]].nunique() == per_axis[i]:
                return q
        return None

    if x is None:  # the first axis with numbers of two or more steps, else the first of two or more steps
        ranked = [((numbers_of(i) is None or per_axis[i] < 2, per_axis[i] < 2, i), numbers_of(i) or groups[i][0])
                  for i in range(len(groups))]
        (*_, xi), x = min(ranked)
    elif x not in known:
        raise ValueError(f"x: {x!r} is not an axis path of this sweep; its axis paths: {', '.join(known)}")
    else:
        xi = next(i for i, g in enumerate(groups) if x in g)
    xg = groups[xi]
    linked = [q for q in xg if q != x]
    others = [q for i, g in enumerate(groups) if i != xi for q in g]

    # the steps of x's axis, in the sweep's order: their positions and tick labels
    step_of = list(map(tuple, texts[list(xg)].to_numpy()))
    steps = list(dict.fromkeys(step_of))
    numeric = _sweep_numeric(table, x)
    if numeric:
        col, div, unit = numeric
        num_of = dict(zip(step_of, table[col].astype(float) / div))
        if len({num_of[st] for st in steps}) < len(steps):  # linked values that share a number: categories
            numeric = None
    if numeric:
        steps.sort(key=num_of.__getitem__)
        pos = {st: num_of[st] for st in steps}
        xlabel = f"{x} ({unit})" if unit else x
        tick = [_number_text(pos[st]) for st in steps]
    else:
        pos = {st: float(i) for i, st in enumerate(steps)}
        xlabel = x
        tick = _told_apart([st[xg.index(x)] for st in steps])
    if linked:
        xlabel += ", with " + ", ".join(linked)
        for q in linked:
            below = _told_apart([st[xg.index(q)] for st in steps])
            tick = [f"{t}\n{b}" for t, b in zip(tick, below)]
    step_idx = {st: i for i, st in enumerate(steps)}
    line_of = list(map(tuple, texts.loc[ok.index, others].to_numpy())) if others else [()] * len(ok)
    lines = list(dict.fromkeys(line_of))  # the combinations with a finished run, in the sweep's order
    shown = lines[:MAX_SWEEP_LINES]
    if others:
        width = max(12, 64 // len(others))  # a legend entry of ~70 characters in all, each path its share
        parts = [_told_apart([ln[j] for ln in shown], width) for j in range(len(others))]
        names = [", ".join(f"{q} = {parts[j][i]}" for j, q in enumerate(others)) for i in range(len(shown))]
    else:
        names = ["_"]
    cols = headline_columns(ok)
    zero = [h for c, h, _, _ in cols if not ok[c].fillna(0).any()]
    cols = [(c, h, k, f) for c, h, k, f in cols if ok[c].fillna(0).any()]
    if not cols:
        raise ValueError("table: every headline column is 0 or missing in every finished run: nothing to draw")
    # each finished run's line and step, and the panels' values: one group-by for every point
    line_idx = {ln: i for i, ln in enumerate(lines)}
    frame = pd.DataFrame({"line": [line_idx[ln] for ln in line_of],
                          "step": [step_idx[st] for st in map(tuple, texts.loc[ok.index, list(xg)].to_numpy())]})
    for c, _, scale, _ in cols:
        frame[c] = ok[c].to_numpy(dtype=float) * scale
    rough_col = "fct_group[all].finished"
    if rough_col in ok.columns and rough_col not in frame.columns:
        frame[rough_col] = ok[rough_col].to_numpy(dtype=float)
    grouped = frame.groupby(["line", "step"])
    stats = {how: grouped.agg(how) for how in ("mean", "min", "max")}
    many = int(grouped.size().max())

    n = len(cols)
    ncol = min(3, n)
    nrow = -(-n // ncol)
    fig = Figure(figsize=(10.0, 2.6 * nrow + 1.6), layout="constrained")
    FigureCanvasAgg(fig)
    panels = [fig.add_subplot(nrow, ncol, i + 1) for i in range(n)]
    xs = np.array([pos[st] for st in steps], dtype=float)
    logx = bool(numeric) and xs.min() > 0 and xs.max() / xs.min() >= 20
    dodge = 0.0 if numeric or len(shown) < 2 else min(0.3, 0.6 / len(shown))  # categories: side by side
    rough_any = False
    every_step = range(len(steps))
    # every step labelled up to MAX_SWEEP_TICKS (numbers alone: matplotlib's own ticks beyond 10)
    thinned = max(1, -(-len(steps) // MAX_SWEEP_TICKS))
    for ax, (c, head, _, _) in zip(panels, cols):
        for li, label in enumerate(names):
            at = [(li, j) for j in every_step]
            # a step without a finished run is NaN: a gap in the line, not a line across it
            mean = stats["mean"][c].reindex(at).to_numpy(dtype=float)
            lo = np.nan_to_num(np.maximum(0.0, mean - stats["min"][c].reindex(at).to_numpy(dtype=float)))
            hi = np.nan_to_num(np.maximum(0.0, stats["max"][c].reindex(at).to_numpy(dtype=float) - mean))
            px = xs + (li - (len(shown) - 1) / 2) * dodge
            bars = np.array([lo, hi])  # a mean of equal values may round past them: clipped at 0
            color = f"C{li % 10}"  # the same line the same colour in every panel, whatever else a panel draws
            ax.errorbar(px, mean, yerr=bars if bars.any() else None, marker="o", ms=3.5, lw=1.1, color=color,
                        ls="-" if numeric else "none", capsize=2.5, label=_plain(label))
            if c == "fct_group[all].slowdown_p99" and rough_col in frame.columns:
                fewest = stats["min"][rough_col].reindex(at).to_numpy(dtype=float)
                r = (fewest < ROUGH_BELOW[0]) & ~np.isnan(mean)
                if r.any():
                    rough_any = True
                    ax.plot(px[r], mean[r], ls="none", marker="o", ms=5, mfc="white", mec=color, zorder=3)
        ax.set_title(_plain(head), fontsize=9)
        ax.grid(True, lw=0.3, alpha=0.5)
        if logx:
            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(NullFormatter())
        if not numeric or len(steps) <= 10 or linked:  # linked values are read only under the ticks
            # slanted where the labels would not fit side by side (~40 characters of 7-pt text a panel)
            wide = sum(max(map(len, t.split("\n"))) + 2 for t in tick[::thinned]) > 40
            slant = wide or (not numeric and len(steps) > 4)
            ax.set_xticks(xs[::thinned])
            # a slanted label on one line ("10 / 0.01"): two slanted lines read as two ticks
            ax.set_xticklabels([_plain(t.replace("\n", " / ") if slant else t) for t in tick[::thinned]],
                               fontsize=7 if len(steps) <= 6 else 6, rotation=45 if slant else 0,
                               ha="right" if slant else "center", rotation_mode="anchor" if slant else "default")
        if not numeric:
            ax.set_xlim(-0.5, len(steps) - 0.5)
        ax.tick_params(labelsize=7)
    # wrapped to its panel's width (an axis with linked paths had run into the next panel's label: a review)
    panel_pt = panels[0].get_position().width * fig.get_figwidth() * 72
    per_line = max(16, int(panel_pt / (0.6 * 8)))  # ~0.6 em a character of 8-pt text
    for ax in panels[-ncol:]:
        ax.set_xlabel(textwrap.fill(_plain(xlabel), per_line, break_long_words=False), fontsize=8)
    what = f"{title or 'sweep'}: results after warm-up against {x}"
    if many > 1:
        what += f"\npoints: mean over the finished seeds (up to {many}); bars: their least .. largest"
    _title(fig, _plain(what))
    notes = list(notes)
    if len(lines) > len(shown):
        notes.append(f"lines: the first {len(shown)} of {len(lines)} combinations of {', '.join(others)} "
                     "(all in the sweep table)")
    if thinned > 1 and (not numeric or linked):
        notes.append(f"ticks: one in {thinned} of the {len(steps)} steps of {x} labelled")
    if rough_any:
        notes.append(f"open markers: a slowdown p99 over fewer than {ROUGH_BELOW[0]} finished flows in some seed, "
                     "interpolated between the few largest: rough")
    if zero:
        notes.append(f"not drawn, 0 in every finished run: {', '.join(zero)}")
    if len(ok) < len(table):
        notes.append(f"{len(table) - len(ok)} of {len(table)} runs did not run to their end and are not drawn "
                     "(status column of the sweep table); a value without a finished run is a gap")
    _finish(fig, panels, [], notes=[_plain(t) for t in notes])
    return _save(fig, path)
