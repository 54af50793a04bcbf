"""Allowed ranges of the numeric inputs of the theory and fluid commands, in one place.

Every user-facing entry point (``dcsim theory dctcp | dx | dsm``, ``dcsim fluid dctcp | dx``, and the
Python functions they call: :func:`dcsim.theory.dx.analyze`, :func:`dcsim.theory.dctcp.analyze`,
:func:`dcsim.theory.dsm.analyze`)
checks its inputs against these ranges *before* anything is computed, and a value outside names
the field and the range, e.g. ``--C: 1e+27 Tbps is out of range; allowed 1 Mbps <= C <= 10 Tbps``.

Why these ranges: they contain every setting of the four reference papers with a wide margin
(1 Gbps .. 40 Gbps links, 20 us .. 480 us delays, 2 .. 100 flows, K = 4 .. 100 packets), and inside
them every computation is checked to stay finite (tests/test_cli_theory_inputs.py sweeps the corners).
Outside them the closed forms overflow or divide by zero in double precision (``--N 1e-300``,
``--seg 1e300B``, ``--C 1e30Gbps``) or a fluid run would take hours.

* N, the number of flows, is a real number >= 1 in every command: the fluid models and closed forms
  treat N as a parameter (the DX thresholds are real numbers such as N* = 41.55).
* p, DX's probability that Q > 0, excludes both ends: p = 0 leaves eq. (3) without decrease
  (the window grows without bound), p = 1 without increase (the special state of Theorem 2); we
  allow 1e-6 <= p <= 1 - 1e-6 (below 1e-6 the coefficients (11) underflow).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Callable, Optional

from dcsim.units import fmt_rate, fmt_time

__all__ = [
    "Limit",
    "N_FLOWS",
    "CAPACITY",
    "DELAY",
    "MARKING_K",
    "EWMA_G",
    "PROB_P",
    "FLUID_P",
    "PACKET",
    "T_END",
    "MAX_STEPS",
    "MAX_DELAY_STEPS",
    "DSM_P",
    "DSM_DELAY",
    "DSM_QUEUE",
    "DSM_QV_MAX",
    "DSM_OMEGA",
    "DSM_H",
    "DSM_SAMPLES",
    "plain",
    "check_steps",
    "check_delay_steps",
]


def plain(x: float) -> str:
    """A number as a person writes it: 0.5, 1e-300, nan (never ``np.float64(...)``), with every
    digit it needs: "--g: 1 is out of range; allowed 0 < g <= 1" was said of 1.0000001 (a probe)."""
    try:
        v = float(x)
    except OverflowError:  # an integer beyond a double
        return f"an integer of {len(str(abs(int(x))))} digits"
    except (TypeError, ValueError):
        return str(x)
    short = f"{v:g}"
    if float(short) == v or not math.isfinite(v):
        return short
    if v.is_integer() and abs(v) < 1e16:  # 1000001, not 1000001.0
        return str(int(v))
    return repr(v)


@dataclass(frozen=True)
class Limit:
    """A closed or half-open interval [lo, hi] for one input, with its unit and a formatter."""

    symbol: str  # the paper's symbol, used in "allowed 1 <= N <= 1e6 flows"
    lo: float
    hi: float
    unit: str = ""  # appended by ``fmt`` = plain (e.g. "flows"); rate/time formatters carry their own
    lo_open: bool = False
    hi_open: bool = False
    fmt: Optional[Callable[[float], str]] = None
    #: The unit of the raw value (``fmt``'s input: "s", "bit/s"), to show a value within 0.1 % of a
    #: bound, which ``fmt`` would round onto it, with every digit ("1.0000001 s", not "1 s is out of
    #: range ... <= 1 s").
    base: str = ""

    def show(self, x: float) -> str:
        if self.fmt is not None and isinstance(x, numbers.Real) and math.isfinite(x):
            return self.fmt(float(x))
        return plain(x) + (f" {self.unit}" if self.unit else "")

    def text(self, symbol: Optional[str] = None) -> str:
        """The range as printed in messages and help: ``1 Mbps <= C <= 10 Tbps``."""
        lo = "<" if self.lo_open else "<="
        hi = "<" if self.hi_open else "<="
        sym = symbol or self.symbol
        if self.fmt is not None:
            show = lambda v: "0" if v == 0 else self.fmt(v)  # noqa: E731 - "0 < dt", not "0 ps < dt"
            return f"{show(self.lo)} {lo} {sym} {hi} {show(self.hi)}"
        return f"{plain(self.lo)} {lo} {sym} {hi} {plain(self.hi)}" + (f" {self.unit}" if self.unit else "")

    def contains(self, x: float) -> bool:
        lo_ok = x > self.lo if self.lo_open else x >= self.lo
        hi_ok = x < self.hi if self.hi_open else x <= self.hi
        return math.isfinite(x) and lo_ok and hi_ok

    def check(self, x, field: Optional[str] = None, given: Optional[str] = None) -> float:
        """Return ``float(x)`` if it lies in the range, else raise ValueError naming ``field``.

        ``given`` is the user's own text (e.g. "1e30Gbps"), quoted in the message if present.
        """
        name = field or self.symbol
        sym = name.lstrip("-") if field else self.symbol  # "--R0" -> "1 us <= R0 <= 1 s"
        if isinstance(x, bool) or not isinstance(x, numbers.Real):
            raise ValueError(f"{name}: expected a number, got {given if given is not None else repr(x)}; "
                             f"allowed {self.text(sym)}")
        try:
            v = float(x)
        except OverflowError:  # an integer beyond a double is beyond every range here
            raise ValueError(f"{name}: {plain(x)} is out of range; allowed {self.text(sym)}") from None
        if not self.contains(v):
            what = self.show(v)
            near = min((abs(v - b) / abs(b) for b in (self.lo, self.hi) if b), default=math.inf)
            if self.base and math.isfinite(v) and near < 1e-3:
                # the formatter's few digits would round it onto the bound it is beyond
                what = f"{plain(v)} {self.base}"
            if given is not None and (v == 0 or "".join(str(given).split()) in ("".join(what.split()), plain(v))):
                what = str(given).strip()
            elif given is not None:
                what = f"{given} = {what}"
            raise ValueError(f"{name}: {what} is out of range; allowed {self.text(sym)}")
        return v


#: Number of long-lived flows (real: the models treat N as a parameter).
N_FLOWS = Limit("N", 1.0, 1e6, "flows")
#: Bottleneck capacity, bit/s.
CAPACITY = Limit("C", 1e6, 1e13, fmt=fmt_rate, base="bit/s")
#: Delays: DCTCP's round-trip propagation delay d, DX's base RTT R0 and feedback delay tau, seconds.
DELAY = Limit("delay", 1e-6, 1.0, fmt=fmt_time, base="s")
#: DCTCP marking threshold K, packets (K = 0 marks every queued packet; psi = K/(Cd) = 0).
MARKING_K = Limit("K", 0.0, 1e6, "pkt")
#: DCTCP's EWMA weight g of eq. (3).
EWMA_G = Limit("g", 0.0, 1.0, lo_open=True)
#: DX's constant probability that Q > 0 (Section 3.1; the paper uses 0.95): 0 < p < 1, kept 1e-6 away
#: from both ends, where the equilibrium (7) and the coefficients (11) under- or overflow.
PROB_P = Limit("p", 1e-6, 1.0 - 1e-6)
#: The same p in the DX fluid model (3)-(4), which takes both ends (p = 1: Q > 0 always, the
#: special stable state's Q* exactly); the closed forms' 1e-6 margins do not apply to it.
FLUID_P = Limit("p", 0.0, 1.0)
#: Packet (segment) size, bytes: at most an IPv4 datagram, as in scenario files.
PACKET = Limit("packet size", 1.0, 65535.0, fmt=lambda b: f"{plain(b)} B", base="B")  # every digit: 65535.01 B
#: Length of a fluid run, seconds.
T_END = Limit("t_end", 0.0, 1e4, lo_open=True, fmt=fmt_time, base="s")
#: `dcsim theory dsm` (Cheng et al., DSM; §V uses C = 10 Gbps, 1 KB frames, p = 0.01, q0 = 64 KB,
#: loop delays up to 800 us, omega = 5, H = 20 kHz). C is :data:`CAPACITY` and the frame size
#: :data:`PACKET`. Inside these ranges the sampling period T = 8 frame / (p C) lies in
#: [8e-13 s, 5.3e5 s] (C = 10 Tbps, 1 B, p = 1 .. C = 1 Mbps, 65535 B, p = 1e-6), so T, 2/T, the
#: gains a, b, c = H / (m^2+4m+2), H / (2m+3), H / 2 and the bounds of eqs. (23), (27)-(31) are
#: finite (products such as a |Q_f|max stay below 1e15 Hz x 1e13 bit); the command also refuses
#: any non-finite result except eq. (31)'s unbounded b (m = 0 and max Q_v = 0).
#: QCN's sampling probability p of §III.A (0 < p <= 1; the paper 0.01): below 1e-6, T exceeds days.
DSM_P = Limit("p", 1e-6, 1.0)
#: Largest feedback-loop delay tau (0: no delay), seconds; further bounded by m = tau/T <= MAX_M.
DSM_DELAY = Limit("tau", 0.0, 1.0, fmt=fmt_time, base="s")
#: Target queue q0 and max |Q_f|, bytes: at least one byte, at most 1 TB (any switch buffer).
DSM_QUEUE = Limit("queue", 1.0, 1e12, fmt=lambda b: f"{plain(b)} B", base="B")
#: max |Q_v| of eqs. (29)-(31), bytes (0 allowed: a queue that never moves).
DSM_QV_MAX = Limit("Q_v max", 0.0, 1e12, fmt=lambda b: f"{plain(b)} B", base="B")
#: The switching line's weight omega (> 0; the paper 5); eq. (31) needs omega > about 1.
DSM_OMEGA = Limit("omega", 0.0, 1e6, lo_open=True)
#: §V's H_a, H_b, H_c, Hz (the paper 20 kHz; 2/T is 25 kHz at 10 Gbps and up to 2.5e12 Hz at
#: 10 Tbps with 1 B frames and p = 1, hence the upper end).
DSM_H = Limit("H", 1.0, 1e15, "Hz")
#: Sampling periods the discrete model (eq. 9) is iterated (one Python step each, O(1) in m: 1e6 took 2.9 s, 2026-11-29).
DSM_SAMPLES = Limit("samples", 1.0, 1e6)

#: At most this many integration steps per fluid run (about a minute of RK4 on one core).
MAX_STEPS = 1e8


#: At most this many integration steps per feedback delay: the integrator keeps the delayed history
#: in memory (crates/dcsim-core/src/fluid/dde.rs, MAX_DELAY_STEPS).
MAX_DELAY_STEPS = 5e7


def check_delay_steps(delay_s: float, dt_s: float, field: str, dt_given: bool = False) -> None:
    """The feedback delay must span at most MAX_DELAY_STEPS steps of dt_s. ``field`` names the delay's
    option, or the step's if ``dt_given`` (then the allowed range is a lower bound on the step)."""
    steps = delay_s / dt_s
    if steps <= MAX_DELAY_STEPS:
        return
    # As many digits as it takes to tell the value from its bound (a probe: "20 ns ... i.e. --dt >=
    # 20 ns" for a step 1e-8 short of it, the bound rounded onto the value it refuses).
    k = _digits_apart(steps, MAX_DELAY_STEPS, 3)
    steps_shown = f"{steps:.{k}g}"
    if dt_given:
        bound = delay_s / MAX_DELAY_STEPS
        k = _digits_apart(dt_s, bound)
        raise ValueError(f"{field}: {fmt_time(dt_s, k)} makes the delay {fmt_time(delay_s, k)} span {steps_shown} steps; "
                         f"a delay may span at most {MAX_DELAY_STEPS:g} (the history is kept in memory), i.e. "
                         f"{field} >= {fmt_time(bound, k)}")
    bound = MAX_DELAY_STEPS * dt_s
    k = _digits_apart(delay_s, bound)
    raise ValueError(f"{field}: {fmt_time(delay_s, k)} is {steps_shown} integration steps of {fmt_time(dt_s, k)}; a "
                     f"delay may span at most {MAX_DELAY_STEPS:g} steps (the history is kept in memory), i.e. "
                     f"{field} <= {fmt_time(bound, k)} at this step")


def _digits_apart(a: float, b: float, least: int = 4) -> int:
    """The significant digits (at least ``least``, at most 17) at which a and b are written apart."""
    return next((k for k in range(least, 18) if f"{a:.{k}g}" != f"{b:.{k}g}"), 17)


def check_steps(t_end_s: float, dt_s: float, field: str = "t_end", fmt: Callable[[float], str] = fmt_time) -> None:
    """A fluid run of t_end_s with step dt_s must take at most MAX_STEPS steps (``fmt``: how a
    time is written, e.g. in units of R*)."""
    steps = t_end_s / dt_s
    if not steps <= MAX_STEPS:
        raise ValueError(f"{field}: {fmt(t_end_s)} is {steps:.3g} integration steps of {fmt(dt_s)}; "
                         f"allowed at most {MAX_STEPS:g} steps, i.e. {field} <= {fmt(MAX_STEPS * dt_s)}")


def whole_bytes(x, field: str) -> int:
    """A packet, segment or frame size: in :data:`PACKET`'s range and in whole bytes, else a
    ValueError naming ``field`` (the API had computed with 1.5 B and reported 1 B: a review)."""
    v = PACKET.check(x, field)
    if not v.is_integer():
        raise ValueError(f"{field}: {plain(v)} B is not a whole number of bytes; allowed {PACKET.text(field)} "
                         "in whole bytes")
    return int(v)


def flag(x, field: str) -> bool:
    """A yes/no input: True or False only ("no" had been read as yes: a review)."""
    if not isinstance(x, bool) and type(x).__name__ != "bool_":  # numpy's bool too
        raise ValueError(f"{field} must be True or False, got {x!r}")
    return bool(x)
