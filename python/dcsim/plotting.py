"""Matplotlib figures of a packet-level run, in the style of the papers (Agg, no display needed).

* :func:`plot_queue`: queue (packets) vs time at each monitored port, with K (or RED's
  min_th/max_th) drawn, like the queue panels of the DCTCP analysis paper's Fig. 2.
* :func:`plot_cwnd_alpha`: window size (packets) and alpha vs time of each source, like the
  DCTCP analysis paper's Fig. 2; with many flows a subset is drawn, plus the mean over all flows.
* :func:`plot_throughput`: per-flow throughput (Gbps) vs time, like the coexistence paper's Figs. 2-4.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional, Union

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from dcsim.result import Result

__all__ = ["plot_queue", "plot_cwnd_alpha", "plot_throughput", "PLOTS", "MAX_FLOWS_DRAWN"]

#: With more flows than this, plots draw an evenly spaced subset plus the mean over all flows.
MAX_FLOWS_DRAWN = 8


def _figure(rows: int = 1, height: float = 3.0, zoom: bool = True) -> tuple[Figure, list, list]:
    """rows x (full run | zoom on the last RTTs) axes; each column shares its time axis."""
    fig = Figure(figsize=(10.0 if zoom else 7.0, height * rows + 0.4), layout="constrained")
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
    return fig, full, zoomed


def _zoom_window(result: Result) -> tuple[float, float]:
    """The last 50 base RTTs of the run (at least 1 ms, at most the time after warm-up), s."""
    net = result.scenario.network
    if net.topology == "dumbbell":
        rtt = max(net.rtt_list)
    else:  # twice the longest one-way link delay, a rough RTT
        rtt = 2 * max(link.delay for link in net.links) or 1e-4
    T = result.duration_s
    w = min(max(50 * rtt, 1e-3), T - result.warmup_s)
    return T - w, T


def _title(fig: Figure, what: str, result: Result) -> None:
    fig.suptitle(f"{what}\n{result.scenario.describe()}", fontsize=8)


def _time_axis(result: Result) -> tuple[float, str]:
    """Scale and label of the time axis: ms for runs up to 2 s, s beyond."""
    return (1e3, "time (ms)") if result.duration_s <= 2.0 else (1.0, "time (s)")


def _subset(flows: np.ndarray, k: int = MAX_FLOWS_DRAWN) -> np.ndarray:
    flows = np.unique(flows)
    if len(flows) <= k:
        return flows
    return flows[np.linspace(0, len(flows) - 1, k).round().astype(int)]


def _mark_warmup(ax, result: Result, scale: float) -> None:
    if result.warmup_s > 0:
        ax.axvspan(0, result.warmup_s * scale, color="0.92", zorder=0, label="warm-up")


def _save(fig: Figure, path: Optional[Union[str, Path]]) -> Figure:
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig


def plot_queue(result: Result, path: Optional[Union[str, Path]] = None) -> Figure:
    """Queue length (packets) vs time at each monitored port; K drawn dashed (threshold AQM), RED thresholds dotted.

    Left: the whole run (warm-up shaded); right: the last 50 RTTs.
    """
    scale, xlabel = _time_axis(result)
    q = result.queue
    labels = result.port_labels()
    fig, (ax,), (zx,) = _figure()
    z0, z1 = _zoom_window(result)
    _mark_warmup(ax, result, scale)
    for port in np.unique(q["port"]):
        s = q[q["port"] == port]
        line, = ax.plot(s["t_s"] * scale, s["q_pkt"], lw=0.7, label=f"queue {labels.get(port, port)}")
        z = s[(s["t_s"] >= z0) & (s["t_s"] <= z1)]
        zx.plot(z["t_s"] * 1e3, z["q_pkt"], lw=0.9, color=line.get_color())
    top = float(q["q_pkt"].max()) if len(q) else 1.0
    net = result.scenario.network
    if net.topology == "dumbbell" and net.aqm is not None:
        pb = net.packet_bytes
        lines = []
        if net.aqm.kind == "threshold":
            lines.append((net.aqm.K.packets(pb), "k", "--", f"K = {net.aqm.K.packets(pb):g} pkt"))
        elif net.aqm.kind == "red":
            for name, th in (("min_th", net.aqm.min_th), ("max_th", net.aqm.max_th)):
                lines.append((th.packets(pb), "k", ":", f"{name} = {th.packets(pb):g} pkt"))
        B = net.buffer.packets(pb)
        if top >= 0.5 * B:  # draw the buffer only when the queue gets near it
            lines.append((B, "r", "-.", f"buffer = {B:g} pkt"))
        for y, color, ls, label in lines:
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
    zx.set_title("last 50 RTTs", fontsize=8)
    ax.legend(fontsize=7, loc="upper right")
    _title(fig, "Queue length", result)
    return _save(fig, path)


def plot_cwnd_alpha(result: Result, path: Optional[Union[str, Path]] = None) -> Figure:
    """Window size W (packets) and alpha vs time per source (DCTCP analysis paper, Fig. 2).

    Left: the whole run, a subset of the flows plus the mean over all flows; right: the last 50 RTTs.
    """
    scale, xlabel = _time_axis(result)
    c = result.cwnd
    has_alpha = bool(np.isfinite(c["alpha"].to_numpy(dtype=float)).any()) if len(c) else False
    rows = 2 if has_alpha else 1
    fig, axes, zooms = _figure(rows=rows, height=2.6)
    z0, z1 = _zoom_window(result)
    shown = _subset(c["flow"].to_numpy())
    n = len(np.unique(c["flow"]))
    mean = c.groupby("t_s")[["cwnd_pkt", "alpha"]].mean()
    cols = [("cwnd_pkt", "window size (packets)"), ("alpha", "alpha")][:rows]
    for (col, ylabel), ax, zx in zip(cols, axes, zooms):
        _mark_warmup(ax, result, scale)
        for flow in shown:
            s = c[c["flow"] == flow]
            line, = ax.plot(s["t_s"] * scale, s[col], lw=0.5, alpha=0.7, label=f"flow {flow}" if len(shown) <= 4 else None)
            z = s[(s["t_s"] >= z0) & (s["t_s"] <= z1)]
            zx.plot(z["t_s"] * 1e3, z[col], lw=0.9, color=line.get_color())
        if n > 1:
            ax.plot(mean.index * scale, mean[col], color="k", lw=0.8, label=f"mean of {n} flows")
            zm = mean[(mean.index >= z0) & (mean.index <= z1)]
            zx.plot(zm.index * 1e3, zm[col], color="k", lw=1.4)
        for a in (ax, zx):
            a.set_ylabel(ylabel)
            if col == "alpha":
                a.set_ylim(0, 1.05)
            else:
                a.set_ylim(bottom=0)
        ax.legend(fontsize=7, loc="upper right")
    axes[-1].set_xlabel(xlabel)
    axes[0].set_xlim(0, result.duration_s * scale)
    zooms[-1].set_xlabel("time (ms)")
    zooms[0].set_xlim(z0 * 1e3, z1 * 1e3)
    zooms[0].set_title("last 50 RTTs", fontsize=8)
    drawn = f"{len(shown)} of {n} flows drawn" if len(shown) < n else f"{n} flows"
    _title(fig, f"Window size and alpha of each source ({drawn})", result)
    return _save(fig, path)


def plot_throughput(result: Result, path: Optional[Union[str, Path]] = None) -> Figure:
    """Per-flow receiver throughput (Gbps) vs time, with the aggregate."""
    scale, xlabel = _time_axis(result)
    tp = result.throughput
    fig, (ax,), _ = _figure(zoom=False)
    _mark_warmup(ax, result, scale)
    shown = _subset(tp["flow"].to_numpy())
    protocols = dict(zip(result.flows["flow"], result.flows["protocol"]))
    for flow in shown:
        s = tp[tp["flow"] == flow]
        ax.plot(s["t_s"] * scale, s["goodput_bps"] / 1e9, lw=0.8, label=f"flow {flow} ({protocols.get(flow, '?')})" if len(shown) <= 6 else None)
    total = tp.groupby("t_s")["goodput_bps"].sum()
    ax.plot(total.index * scale, total / 1e9, color="k", lw=1.4, label="aggregate")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("throughput (Gbps)")
    ax.set_xlim(0, result.duration_s * scale)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7, loc="lower right")
    _title(fig, f"Throughput of each flow over {result.engine_spec['metrics']['throughput_interval_ps'] / 1e9:g} ms intervals", result)
    return _save(fig, path)


#: File name -> plot function; ``dcsim run`` writes each into the output directory.
PLOTS: dict[str, Callable[[Result, Optional[Union[str, Path]]], Figure]] = {
    "queue.png": plot_queue,
    "cwnd_alpha.png": plot_cwnd_alpha,
    "throughput.png": plot_throughput,
}
