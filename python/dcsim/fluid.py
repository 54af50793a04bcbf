"""Fluid models of the reference papers, integrated by the Rust DDE integrator (``dcsim._core``).

Models
------
* :func:`dctcp_normalized` / :func:`dctcp_normalized_batch` — the normalized DCTCP fluid model,
  eqs. (11)-(14) of Alizadeh, Javanmard & Prabhakar, "Analysis of DCTCP" (SIGMETRICS 2011),
  optionally with the ψ queue floor of its Section 3.3.2. Time in units of R* = d + K/C.
* :func:`dctcp` — the same model in physical units, eqs. (5)-(8), R(t) = d + q/C, feedback delay R*.
* :func:`dx` / :func:`dx_batch` — the DX fluid model, eqs. (3)-(4) of Jiang et al., "Modeling and
  Analysis of the Latency-Based Congestion Control Algorithm DX", with the one-segment window
  floor of its Section 3.3.

Numerics (see ``crates/dcsim-core/src/fluid/dde.rs``): classical RK4 on a fixed step; delayed
states read from the step grid (exactly when the delay is a whole number of steps, as the defaults
here arrange, by cubic Hermite interpolation otherwise); the switching times of the delayed marking
indicator are located exactly and the step is split there, as it is where the history's joint at
t = 0 reaches the delayed states (tau and 2 tau); floors obey the max(·, 0) rule. Global order 4 on
smooth problems and with the default dt (tested); order 3 with a ``dt_s`` that does not divide the
delay (the constant histories here join the solution with a kink); order 1 near floor contacts.
Same inputs give bit-identical outputs.

Statistics. :func:`dctcp` and :func:`dx` also summarize their run at every integration step from
``stats_from_s`` on (default: the second half of the run) in ``df.attrs["stats"]``: min, mean and
max of each state and of the papers' indicators (eq. (8)'s marking 1{q > K}, the link's
utilization; DX's 1{Q > 0}). They do not depend on the output's decimation, which a long run needs
(an 89 s DCTCP run at 4 000 rows put the time marked at 41.3 % against 39.7 % on the grid).
"""

from __future__ import annotations

import math
from typing import Optional

import numpy as np
import pandas as pd

from dcsim import _core
from dcsim.theory import limits
from dcsim.units import DEFAULT_PACKET_BYTES, capacity_pps, exact_num

__all__ = [
    "dctcp_normalized",
    "dctcp_normalized_batch",
    "dctcp",
    "dx",
    "dx_batch",
    "default_normalized_init",
    "capacity_pps",
]

#: Default steps per feedback delay (R* for DCTCP): the delay is then exactly 200 grid steps.
STEPS_PER_DELAY = 200
#: Default number of output rows for the physical-unit models (decimation of the step grid).
DEFAULT_ROWS = 4000
#: Most output rows of one run (the integrator's memory guard, dde::MAX_SAMPLES).
MAX_ROWS = _core.FLUID_MAX_SAMPLES


# ---------------------------------------------------------------------------------------------
# validation helpers: every message names the argument and its allowed range
# ---------------------------------------------------------------------------------------------

def _real(name: str, x, lo: float = -math.inf, hi: float = math.inf, *, lo_open=False, hi_open=False,
          unit: str = "") -> float:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a real number{' in ' + unit if unit else ''}, got {x!r}")
    v = float(x)
    if not math.isfinite(v):
        raise ValueError(f"{name} = {v:g} is not a finite number{' of ' + unit if unit else ''}")
    lo_ok = v > lo if lo_open else v >= lo
    hi_ok = v < hi if hi_open else v <= hi
    if not (lo_ok and hi_ok):
        rng = f"{'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"
        raise ValueError(f"{name} = {exact_num(v)} is out of range: must be in {rng}{' ' + unit if unit else ''}")
    return v


def _packet_bytes(x) -> int:
    """A packet size in whole bytes, in the CLI's range (dcsim.theory.limits.PACKET)."""
    return limits.whole_bytes(x, "packet_bytes")


def _stride(name_sample: str, sample_dt: float, name_dt: str, dt: float) -> int:
    """The integration steps between two output rows: ``sample_dt`` must be a whole number of
    ``dt`` (rows lie on the steps). The refusal names the nearest intervals that are, and the step
    that would make ``sample_dt`` itself whole (a review: with the default step, R*/200, almost no
    round interval was, and the docs did not say so)."""
    k = sample_dt / dt
    if abs(k - round(k)) > 1e-9 * k or round(k) < 1:
        from dcsim.units import exact_num  # values that can be pasted back as they are

        lo, hi = max(1, math.floor(k)), max(1, math.ceil(k))
        near = " or ".join(dict.fromkeys(f"{exact_num(n * dt)} ({n} step{'s' * (n != 1)})" for n in (lo, hi)))
        raise ValueError(f"{name_sample} = {sample_dt:g} must be a positive integer multiple of {name_dt} = {dt:g}; "
                         f"allowed e.g. {name_sample} = {near}, or {name_dt} = {exact_num(sample_dt / hi)} with this "
                         f"{name_sample} ({hi} steps a row)")
    return int(round(k))


def _flag(name: str, x) -> bool:
    """A yes/no option: True or False only ("no" was read as yes: a probe)."""
    return limits.flag(x, name)


def _pairs(name: str, x, n: int) -> None:
    """``x`` is a sequence of ``n`` entries (a number there raised TypeError: a probe)."""
    if isinstance(x, (str, bytes)) or not hasattr(x, "__len__") or len(x) != n:
        raise ValueError(f"{name} must be a sequence of {n}, got {x!r}")


#: The largest initial window or queue, packets (and the normalized model's |q~|): a start no
#: network holds (1.5 TB of 1500 B packets). Above it nothing is physical and the integrator's sums
#: overflow: q0 = 1e308 had returned statistics of NaN, and DX's Q0 = 1e308 s a queue of inf (a review).
INIT_MAX = 1e9


def _init3(init, names=("W0", "alpha0", "q0")) -> Optional[list]:
    if init is None:
        return None
    _pairs(f"init ({', '.join(names)})", init, 3)
    if len(init) != 3:
        raise ValueError(f"init must be a triple ({', '.join(names)}), got {init!r}")
    W, alpha, q = (_real(f"init.{n}", v, *rng) for n, v, rng in
                   zip(names, init, ((0, INIT_MAX), (0, 1), (-INIT_MAX, INIT_MAX))))
    return [W, alpha, q]  # the queue's lower end depends on the model: the integrator checks it


def _stats_from(stats_from_s, t_end_s: float, name: str = "stats_from_s") -> float:
    """Start of the full-resolution statistics: default the second half of the run (of ``t_end_s``
    as asked for; the statistics end there, not at the whole output row the run extends to)."""
    if stats_from_s is None:
        return 0.5 * t_end_s
    return _real(name, stats_from_s, 0.0, t_end_s, unit="s (within the run)")


#: Suffixes of the envelope columns (``envelope=True``): a row's minimum and maximum since the row before.
ENVELOPE_SUFFIXES = ("_lo", "_hi")


def _envelope(raw: dict, names: dict, scale: float = 1.0) -> dict:
    """The integrator's envelope arrays under the columns' names (none if not asked for)."""
    return {f"{col}{sfx}": raw[f"{key}{sfx}"] * scale for key, col in names.items() for sfx in ENVELOPE_SUFFIXES
            if f"{key}{sfx}" in raw}


def envelope_columns(df: pd.DataFrame) -> list[str]:
    """The envelope columns of a frame of :func:`dctcp` or :func:`dx` (empty without ``envelope``)."""
    return [c for c in df.columns if c.endswith(ENVELOPE_SUFFIXES)]


#: dx's default statistics window, passed to dx_batch: the second half of each run.
_HALF = object()


def _named_stats(raw: dict, names: dict) -> dict:
    """The integrator's statistics under the columns' names: {"from_s", "to_s", "steps", column: {min, mean, max}}."""
    out = {"from_s": raw["from"], "to_s": raw["to"], "steps": raw["points"]}
    out.update({col: dict(raw[key]) for key, col in names.items()})
    return out


def default_normalized_init(wbar: float) -> tuple[float, float, float]:
    """Default history of the normalized model: W~ = w̄, α~ = min(1, sqrt(2/w̄)), q~ = 0 (q = K).

    α = sqrt(2/W*) is the Sawtooth-model value of the DCTCP paper [1]; the state starts near
    the limit cycle so transients are short. (Same rule as the Rust core.)
    """
    wbar = _real("wbar", wbar, 0, lo_open=True, unit="packets")  # 0 had divided by zero (an API audit)
    return (wbar, min(1.0, math.sqrt(2.0 / wbar)), 0.0)


# ---------------------------------------------------------------------------------------------
# DCTCP
# ---------------------------------------------------------------------------------------------

def dctcp_normalized(wbar: float, g: float, *, psi: Optional[float] = None, t_end: float = 200.0,
                     dt: float = 1e-3, sample_dt: Optional[float] = None, init=None, t_from: float = 0.0) -> pd.DataFrame:
    """Normalized DCTCP fluid model, eqs. (11)-(14) (optionally with the ψ floor of Sec. 3.3.2).

    Parameters: ``wbar`` = w̄ = (Cd + K)/N, packets, in (0, 1e9]; ``g`` in (0, 1]; ``psi`` = K/(Cd) > 0
    enables the floor q~ >= -ψ/(1+ψ) (None: eq. (13) as printed, no floor). ``t_end``, ``dt``,
    ``sample_dt``, ``t_from`` in units of R*; ``dt`` <= 1/2 and ``sample_dt`` a multiple of ``dt``
    (default: the multiple of ``dt`` nearest 0.01, at least ``dt``).
    ``init`` = (W~0 packets, α~0 in [0,1], q~0), held constant for t <= 0; default
    :func:`default_normalized_init`.

    Returns a DataFrame with columns ``t`` (units of R*), ``W`` (packets), ``alpha``, ``q``
    (normalized queue q~ = (q - K)/(C R*) of eq. (10)).
    """
    wbar = _real("wbar", wbar, 0, 1e9, lo_open=True, unit="packets")
    g = _real("g", g, 0, 1, lo_open=True)
    if psi is not None:
        psi = _real("psi", psi, 0, 1e6, lo_open=True)
    t_end, dt, sample_dt, t_from = _normalized_grid(t_end, dt, sample_dt, t_from)
    r = _core.fluid_dctcp_normalized(wbar, g, psi, _init3(init, ("W0", "alpha0", "q0")), t_end, dt, sample_dt, t_from)
    df = pd.DataFrame({"t": r["t"], "W": r["W"], "alpha": r["alpha"], "q": r["q"]})
    df.attrs.update(model="dctcp_normalized", wbar=wbar, g=g, psi=psi)
    return df


def _normalized_grid(t_end, dt, sample_dt, t_from):
    t_end = _real("t_end", t_end, 0, 1e9, lo_open=True, unit="units of R*")
    dt = _real("dt", dt, 0, 0.5, lo_open=True, unit="units of R* (the delay is 1)")
    if sample_dt is None:  # a default that fits any dt (a probe: dt = 0.3 was refused for the default's 0.01)
        sample_dt = min(dt * max(1, round(1e-2 / dt)), max(t_end, dt))
    sample_dt = _real("sample_dt", sample_dt, dt, t_end, unit="units of R*")
    _stride("sample_dt", sample_dt, "dt", dt)
    t_from = _real("t_from", t_from, 0, t_end, unit="units of R*")
    limits.check_steps(t_end, dt, "t_end", fmt=lambda x: f"{x:g} R*")  # the CLI's bound (1e8 steps)
    return t_end, dt, sample_dt, t_from


def dctcp_normalized_batch(wbar, g, *, psi=None, t_end: float = 200.0, dt: float = 1e-3,
                           sample_dt: Optional[float] = None, t_from: float = 0.0) -> list[dict[str, np.ndarray]]:
    """Many runs of :func:`dctcp_normalized`, integrated in parallel in Rust (GIL released).

    ``wbar``, ``g`` and ``psi`` are equal-length 1-D arrays (``psi=None``: no floor for any run).
    Each run starts from :func:`default_normalized_init`. Returns, in input order, dicts with keys
    ``t``, ``W``, ``alpha``, ``q`` (numpy arrays) sampled every ``sample_dt`` from ``t_from``.
    """
    wbar = _vec("wbar", wbar)
    g = _vec("g", g)
    if g.shape != wbar.shape:
        raise ValueError(f"g has {g.size} entries but wbar has {wbar.size}; they must have equal length")
    for i, (w, gg) in enumerate(zip(wbar, g)):
        _real(f"wbar[{i}]", w, 0, 1e9, lo_open=True, unit="packets")
        _real(f"g[{i}]", gg, 0, 1, lo_open=True)
    psi_list = None
    if psi is not None:
        psi_arr = _vec("psi", psi)
        if psi_arr.shape != wbar.shape:
            raise ValueError(f"psi has {psi_arr.size} entries but wbar has {wbar.size}; they must have equal length")
        psi_list = [_real(f"psi[{i}]", p, 0, 1e6, lo_open=True) for i, p in enumerate(psi_arr)]
    t_end, dt, sample_dt, t_from = _normalized_grid(t_end, dt, sample_dt, t_from)
    return _core.fluid_dctcp_normalized_batch(wbar.tolist(), g.tolist(), psi_list, t_end, dt, sample_dt, t_from)


def _vec(name: str, x) -> np.ndarray:
    for i, v in enumerate(np.asarray(x, dtype=object).reshape(-1)):  # None read as NaN, "0.5" as 0.5 (an API audit)
        if v is None or isinstance(v, (str, bytes, bool, np.bool_)):
            raise ValueError(f"{name}[{i}] must be a real number, got {v!r}")
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a 1-D array of real numbers, got {x!r}") from None
    if a.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {a.shape}")
    return a


def _physical_grid(delay_s: float, t_end_s, dt_s, sample_dt_s):
    """Defaults: dt = delay/200 (delay exactly on the grid), about DEFAULT_ROWS output rows."""
    t_end_s = _real("t_end_s", t_end_s, 0, 1e4, lo_open=True, unit="s")
    if dt_s is None:
        dt_s = delay_s / STEPS_PER_DELAY
    dt_s = _real("dt_s", dt_s, 0, delay_s / 2, lo_open=True, unit=f"s (at most half the delay {delay_s:.6g} s)")
    if sample_dt_s is None:
        sample_dt_s = dt_s * max(1, math.ceil(t_end_s / dt_s / DEFAULT_ROWS))
    # at most the run (or one step): the run ends at the first sample >= t_end_s, so a longer sample
    # interval would stretch it, unbounded, past what was asked (a probe: 100 s of 1 us steps for 5 ms)
    sample_dt_s = _real("sample_dt_s", sample_dt_s, dt_s, max(t_end_s, dt_s),
                        unit=f"s (from dt_s to t_end_s = {t_end_s:.6g} s)")
    _stride("sample_dt_s", sample_dt_s, "dt_s", dt_s)
    limits.check_steps(t_end_s, dt_s, "t_end_s")  # the CLI's bounds (1e8 steps; the delay's history)
    limits.check_delay_steps(delay_s, dt_s, "dt_s", dt_given=True)
    return _cover(t_end_s, sample_dt_s), dt_s, sample_dt_s


def _cover(t_end: float, sample_dt: float) -> float:
    """Run to the first sample time >= t_end, so the last output row is at or after t_end."""
    return math.ceil(t_end / sample_dt * (1 - 1e-12)) * sample_dt


def dctcp(C_bps: float, d_s: float, K_pkt: float, g: float, N: float, *, t_end_s: float,
          dt_s: Optional[float] = None, sample_dt_s: Optional[float] = None,
          packet_bytes: int = DEFAULT_PACKET_BYTES, init=None, queue_floor: bool = True,
          stats_from_s: Optional[float] = None, envelope: bool = False) -> pd.DataFrame:
    """DCTCP fluid model in physical units, eqs. (5)-(8) of the DCTCP analysis paper.

    ``C_bps`` link rate (bit/s), ``d_s`` propagation delay (s), ``K_pkt`` marking threshold
    (packets), ``g`` in (0, 1], ``N`` >= 1 flows; packets of ``packet_bytes`` bytes, so
    C = C_bps / (8 packet_bytes) packets/s. R(t) = d + q(t)/C, feedback delay R* = d + K/C.
    ``queue_floor`` keeps q >= 0 with the max(·, 0) rule (the physical queue; eq. (7) as printed
    has no floor). Defaults: ``dt_s`` = R*/200, ``sample_dt_s`` for about 4000 rows; a
    ``sample_dt_s`` given must be a whole number of steps (the rows lie on them; the error names
    the nearest that are, and the ``dt_s`` that makes it one: `dcsim fluid dctcp --sample-dt`
    rounds instead); the run ends at the first sample time >= ``t_end_s``;
    ``init`` = (W0 packets, α0, q0 packets) held for t <= 0, default W0 = w̄ = (Cd + K)/N,
    α0 = min(1, sqrt(2/w̄)), q0 = K (the normalized default).

    Returns columns ``t_s``, ``W_pkt`` (per-flow window), ``alpha``, ``q_pkt``, ``p`` (marking
    indicator 1{q > K}, eq. (8)), ``R_s`` (RTT d + q/C). ``df.attrs`` holds C_pps, R_star_s, wbar,
    t_end_asked_s (``t_end_s`` as given),
    and ``stats``: {"from_s", "to_s", "steps", and for ``W_pkt``, ``alpha``, ``q_pkt``, ``p`` and
    ``utilization`` (1 while q > 0, else min(1, N W/(R C))) their "min", "mean", "max"} over every
    integration step from ``stats_from_s`` (default half of ``t_end_s``) to ``t_end_s`` as given
    (not the whole sample the run extends to). With ``envelope``
    also ``W_pkt_lo``, ``W_pkt_hi``, ``alpha_lo``, ... ``q_pkt_hi``: each row's extremes over the
    steps since the row before (:data:`ENVELOPE_SUFFIXES`; for plots of decimated runs).
    """
    # The ranges of `dcsim fluid dctcp` (dcsim.theory.limits): one set of bounds for both.
    C_bps = limits.CAPACITY.check(C_bps, "C_bps")
    d_s = limits.DELAY.check(d_s, "d_s")
    K_pkt = limits.MARKING_K.check(K_pkt, "K_pkt")
    g = limits.EWMA_G.check(g, "g")
    N = limits.N_FLOWS.check(N, "N")
    packet_bytes = _packet_bytes(packet_bytes)
    C_pps = capacity_pps(C_bps, packet_bytes)
    R_star_s = d_s + K_pkt / C_pps
    asked = t_end_s
    t_end_s, dt_s, sample_dt_s = _physical_grid(R_star_s, t_end_s, dt_s, sample_dt_s)  # to a whole sample
    asked = float(asked)  # checked by _physical_grid: the statistics end there, not at the whole sample
    init = _init3(init, ("W0_pkt", "alpha0", "q0_pkt"))
    queue_floor = _flag("queue_floor", queue_floor)
    stats_from_s = _stats_from(stats_from_s, asked)
    r = _core.fluid_dctcp(C_pps, d_s, K_pkt, g, N, queue_floor, init, t_end_s, dt_s, sample_dt_s, 0.0,
                          stats_from_s, _flag("envelope", envelope), asked)
    q = r["q"]
    df = pd.DataFrame({
        "t_s": r["t"], "W_pkt": r["W"], "alpha": r["alpha"], "q_pkt": q,
        "p": (q > K_pkt).astype(float), "R_s": d_s + q / C_pps,
        **_envelope(r, {"W": "W_pkt", "alpha": "alpha", "q": "q_pkt"}),
    })
    df.attrs.update(model="dctcp", C_bps=C_bps, C_pps=C_pps, d_s=d_s, K_pkt=K_pkt, g=g, N=N,
                    packet_bytes=packet_bytes, R_star_s=R_star_s, wbar=(C_pps * d_s + K_pkt) / N,
                    queue_floor=bool(queue_floor), t_end_asked_s=asked,
                    stats=_named_stats(r["stats"], {"W": "W_pkt", "alpha": "alpha", "q": "q_pkt", "p": "p",
                                                    "utilization": "utilization"}))
    return df


# ---------------------------------------------------------------------------------------------
# DX
# ---------------------------------------------------------------------------------------------

def _dx_dt(R0_s: float, tau_s: float) -> float:
    """Default step: at most R0/100 and exactly tau/m with m a multiple of 10 (delay on the grid)."""
    m = 10 * math.ceil(max(STEPS_PER_DELAY, 100.0 * tau_s / R0_s) / 10)
    return tau_s / m


def dx(N: float, C_bps: float, R0_s: float, *, t_end_s: float, dt_s: Optional[float] = None,
       sample_dt_s: Optional[float] = None, packet_bytes: int = DEFAULT_PACKET_BYTES, init=None,
       window_floor: bool = True, tau_s: Optional[float] = None, p: float = 0.95,
       stats_from_s: Optional[float] = None, envelope: bool = False) -> pd.DataFrame:
    """DX fluid model, eqs. (3)-(4) of the DX paper, with the one-segment window floor (Sec. 3.3).

    Units. The paper's W is in bytes (seg = 1500) and its C must be in bytes/s (only then do its
    thresholds N >= C R0/seg come out as quoted: 67 at 10 Gbps, 80 µs). We integrate the
    equivalent equations in packets: W in packets (seg = 1), C = C_bps/(8 packet_bytes) packets/s,
    Q = queueing delay in seconds.

    Delay. The paper only says "the RTT equals τ"; whether τ is R0 or R0 + Q0 is not stated (its
    Sec. 4.3 quotes an upper bound on R0 from Theorem 1, which suggests τ = R0 there). We take
    ``tau_s`` as a parameter, default R0 (the base RTT). ``p`` is the constant probability that
    Q > 0 (Sec. 3.1; the paper uses 0.95).

    ``init`` = (W0 packets, Q0 seconds) held constant for t <= 0; default (1, 0): every flow at one
    segment, empty queue. With ``window_floor`` W >= 1 packet (max(·, 0) rule); note eq. (3) keeps
    W >= 1 by itself when it starts there. Q >= 0 always (eq. 4). Defaults: ``dt_s`` = τ/m with m a
    multiple of 10 and dt <= R0/100, ``sample_dt_s`` for about 4000 rows (given: a whole number of
    steps, as in :func:`dctcp`); the run ends at the first sample time >= ``t_end_s``.

    Returns columns ``t_s``, ``W_pkt``, ``Q_s`` (queueing delay), ``q_pkt`` (= Q C, the queue),
    ``R_s`` (= R0 + Q, the RTT). ``df.attrs`` holds C_pps, tau_s, p, and ``stats``: {"from_s",
    "to_s", "steps", and for ``W_pkt``, ``Q_s``, ``q_pkt`` and ``busy`` (1{Q > 0}) their "min",
    "mean", "max"} over every integration step from ``stats_from_s`` (default half of ``t_end_s``)
    to ``t_end_s`` as given.
    With ``envelope`` also ``W_pkt_lo``, ``W_pkt_hi``, ``Q_s_lo``, ... ``q_pkt_hi``: each row's
    extremes over the steps since the row before.
    """
    # One run: numbers, not arrays (dx_batch takes arrays; a list here had been reported with the
    # batch's nesting, "shape (1, 2)": a review)
    for name, v in (("N", N), ("C_bps", C_bps), ("R0_s", R0_s), ("p", p), ("t_end_s", t_end_s), ("tau_s", tau_s),
                    ("dt_s", dt_s), ("sample_dt_s", sample_dt_s), ("stats_from_s", stats_from_s)):
        if v is not None and np.ndim(v) != 0:
            raise ValueError(f"{name} must be a real number (one run), got {v!r}; for several runs use dx_batch")
    if stats_from_s is not None:  # within the run: [0, t_end_s] (said as such, not [0, inf]: a review)
        t_end = _real("t_end_s", t_end_s, 0, 1e4, lo_open=True, unit="s")
        stats_from_s = _real("stats_from_s", stats_from_s, 0.0, t_end, unit="s (within the run, up to t_end_s)")
    out = dx_batch([N], [C_bps], [R0_s], t_end_s=t_end_s, tau_s=None if tau_s is None else [tau_s], p=[p],
                   dt_s=None if dt_s is None else [dt_s], sample_dt_s=None if sample_dt_s is None else [sample_dt_s],
                   packet_bytes=packet_bytes, init=None if init is None else [init], window_floor=window_floor,
                   stats_from_s=_HALF if stats_from_s is None else stats_from_s, envelope=envelope,
                   _scalar=True)[0]
    stats = out.pop("stats")
    df = pd.DataFrame(out)
    C_pps = capacity_pps(float(C_bps), packet_bytes)
    df.attrs.update(model="dx", N=float(N), C_bps=float(C_bps), C_pps=C_pps, R0_s=float(R0_s),
                    tau_s=float(R0_s if tau_s is None else tau_s), p=float(p), packet_bytes=packet_bytes,
                    window_floor=bool(window_floor), stats=stats, t_end_asked_s=float(t_end_s))
    return df


def dx_batch(N, C_bps, R0_s, *, t_end_s, tau_s=None, p=0.95, dt_s=None, sample_dt_s=None,
             t_from_s=0.0, packet_bytes: int = DEFAULT_PACKET_BYTES, init=None, window_floor: bool = True,
             stats_from_s=None, envelope: bool = False, _scalar: bool = False) -> list[dict[str, np.ndarray]]:
    """Many runs of :func:`dx` in parallel (Rust, GIL released), e.g. a grid of (N, C, R0).

    ``N``, ``C_bps``, ``R0_s``, ``t_end_s``, ``tau_s`` (default R0_s), ``p``, ``dt_s``,
    ``sample_dt_s`` (a whole number of each run's steps) and ``t_from_s`` are scalars or 1-D
    arrays, broadcast to a common length.
    ``init`` is None (every run starts at W = 1 packet, Q = 0) or a sequence of (W0_pkt, Q0_s) pairs,
    one per run. Returns, in input order, dicts of numpy arrays with keys ``t_s``, ``W_pkt``,
    ``Q_s``, ``q_pkt``, ``R_s`` (see :func:`dx`); with ``stats_from_s`` (a scalar or an array, in
    each run's [0, t_end_s]) also ``stats``, the statistics at every step of :func:`dx`; with
    ``envelope`` the envelope columns of :func:`dx`.
    """
    def arr(name, x):
        raw = np.asarray(x, dtype=object)
        if isinstance(x, (bool, np.bool_)) or np.asarray(x).dtype == bool or any(
                v is None or isinstance(v, (str, bytes)) for v in raw.flat):
            # True read as 1, None as NaN (probes), "100" as 100 (an API audit: dctcp refused it)
            raise ValueError(f"{name} must be a real number or a 1-D array of them, got {x!r}")
        try:
            a = np.atleast_1d(np.asarray(x, dtype=float))
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a real number or a 1-D array of them, got {x!r}") from None
        if a.ndim != 1:
            raise ValueError(f"{name} must be a scalar or a 1-D array, got shape {a.shape}")
        return a

    named = {"N": N, "C_bps": C_bps, "R0_s": R0_s, "t_end_s": t_end_s, "p": p, "t_from_s": t_from_s}
    if tau_s is not None:
        named["tau_s"] = tau_s
    if dt_s is not None:
        named["dt_s"] = dt_s
    if sample_dt_s is not None:
        named["sample_dt_s"] = sample_dt_s
    if stats_from_s is not None and stats_from_s is not _HALF:
        named["stats_from_s"] = stats_from_s
    arrays = {k: arr(k, v) for k, v in named.items()}
    try:
        b = dict(zip(arrays, np.broadcast_arrays(*arrays.values())))
    except ValueError:
        shapes = {k: v.shape[0] for k, v in arrays.items()}
        raise ValueError(f"dx_batch: parameter arrays cannot be broadcast to one length: {shapes}") from None
    n = len(b["N"])
    packet_bytes = _packet_bytes(packet_bytes)
    sfx = (lambda name, i: name) if _scalar else (lambda name, i: f"{name}[{i}]")
    window_floor = _flag("window_floor", window_floor)
    if init is not None:
        _pairs("init (one (W0_pkt, Q0_s) pair per run)", init, n)
    if init is not None and len(init) != n:
        raise ValueError(f"init has {len(init)} entries; expected one (W0_pkt, Q0_s) pair per run ({n})")
    cols = {k: [] for k in ("N", "C", "R0", "tau", "p", "W0", "Q0", "t_end", "dt", "sample_dt", "t_from", "stats_from")}
    stats_to = []  # each run's t_end as asked for: the statistics end there
    for i in range(n):
        # The ranges of `dcsim fluid dx` (dcsim.theory.limits).
        Ni = limits.N_FLOWS.check(b["N"][i], sfx("N", i))
        Ci = limits.CAPACITY.check(b["C_bps"][i], sfx("C_bps", i))
        R0i = limits.DELAY.check(b["R0_s"][i], sfx("R0_s", i))
        taui = limits.DELAY.check(b["tau_s"][i], sfx("tau_s", i)) if "tau_s" in b else R0i
        pi = limits.FLUID_P.check(b["p"][i], sfx("p", i))  # p = 1 too (the CLI's range as well)
        t_end_i = _real(sfx("t_end_s", i), b["t_end_s"][i], 0, 1e4, lo_open=True, unit="s")
        dti = b["dt_s"][i] if "dt_s" in b else _dx_dt(R0i, taui)
        dti = _real(sfx("dt_s", i), dti, 0, taui / 2, lo_open=True, unit=f"s (at most tau/2 = {taui / 2:.6g} s)")
        si = b["sample_dt_s"][i] if "sample_dt_s" in b else dti * max(1, math.ceil(t_end_i / dti / DEFAULT_ROWS))
        si = _real(sfx("sample_dt_s", i), si, dti, max(t_end_i, dti), unit=f"s (from dt_s to t_end_s = {t_end_i:.6g} s)")
        _stride(sfx("sample_dt_s", i), si, sfx("dt_s", i), dti)
        tfi = _real(sfx("t_from_s", i), b["t_from_s"][i], 0, t_end_i, unit="s")
        limits.check_steps(t_end_i, dti, sfx("t_end_s", i))  # the CLI's bounds (1e8 steps; the delay's history)
        limits.check_delay_steps(taui, dti, sfx("dt_s", i), dt_given=True)
        sfi = None  # the statistics' window: none, the second half of the run, or the given start
        if stats_from_s is _HALF:
            sfi = _stats_from(None, t_end_i)
        elif "stats_from_s" in b:
            sfi = _stats_from(b["stats_from_s"][i], t_end_i, sfx("stats_from_s", i))
        stats_to.append(t_end_i)  # the run goes on to the first whole sample at or after it
        t_end_i = _cover(t_end_i, si)
        if init is None:
            W0, Q0 = 1.0, 0.0
        else:
            _pairs(sfx("init", i) + " (W0_pkt, Q0_s)", init[i], 2)
            if len(init[i]) != 2:
                raise ValueError(f"{sfx('init', i)} must be a pair (W0_pkt, Q0_s), got {init[i]!r}")
            W0 = _real(sfx("init", i) + ".W0_pkt", init[i][0], 1.0 if window_floor else 0.0, INIT_MAX, unit="packets")
            # a queueing delay of at most INIT_MAX packets at this link's rate
            Q0 = _real(sfx("init", i) + ".Q0_s", init[i][1], 0.0, INIT_MAX / capacity_pps(Ci, packet_bytes), unit="s")
        for k, v in zip(cols, (Ni, capacity_pps(Ci, packet_bytes), R0i, taui, pi, W0, Q0, t_end_i, dti, si, tfi, sfi)):
            cols[k].append(v)
    raw = _core.fluid_dx_batch(cols["N"], cols["C"], cols["R0"], cols["tau"], cols["p"], bool(window_floor),
                               cols["W0"], cols["Q0"], cols["t_end"], cols["dt"], cols["sample_dt"], cols["t_from"],
                               None if stats_from_s is None else cols["stats_from"], _flag("envelope", envelope),
                               None if stats_from_s is None else stats_to)
    out = []
    for i, r in enumerate(raw):
        C_pps, R0 = cols["C"][i], cols["R0"][i]
        out.append({"t_s": r["t"], "W_pkt": r["W"], "Q_s": r["Q"], "q_pkt": r["Q"] * C_pps, "R_s": R0 + r["Q"],
                    **_envelope(r, {"W": "W_pkt", "Q": "Q_s"}), **_envelope(r, {"Q": "q_pkt"}, C_pps)})
        if "stats" in r:
            st = out[-1]["stats"] = _named_stats(r["stats"], {"W": "W_pkt", "Q": "Q_s", "busy": "busy"})
            st["q_pkt"] = {k: v * C_pps for k, v in st["Q_s"].items()}  # q = Q C, C > 0: the same extremes
    return out
