"""DCTCP theory: Alizadeh, Javanmard, Prabhakar, "Analysis of DCTCP: Stability, Convergence, and
Fairness", SIGMETRICS 2011 (papers/dctcp-analysis-stability-convergence-fairness.md).

Everything here is either a closed form of the paper (with its equation number) or a numerical
evaluation of one of its analyses on top of the Rust fluid integrator (:mod:`dcsim.fluid`).

Units and names follow the paper:

* ``C_pps``  bottleneck capacity in packets/s (the paper's C); ``C_bps`` the same in bit/s.
* ``d_s``    propagation round-trip delay, seconds (d).
* ``K_pkt``  marking threshold, packets (K).
* ``R_star`` feedback delay R* = d + K/C, seconds (Section 2.2).
* ``wbar``   average per-flow window (Cd + K)/N, packets (Section 3.1).
* ``psi``    K/(Cd), dimensionless (Section 3.3.2).
* normalized model (10)-(14): time in units of R*, W in packets, q~ = (q - K)/(C R*).
* hybrid model (19)-(21): time in units of RTT, W in packets; ``W_star`` = W_max/N.

Where the paper is wrong or only approximately right we say so next to the function:

* Section 3.1 prints the wbar <= 2 fixed point of (5)-(8) as (W, alpha, q) = (2/wbar, 1, 2N - Cd);
  W = 2 packets is right (W~ = W by (10); "each source transmits two packets per RTT").
* Theorem 1 writes the transition matrices as exp(integral of J_F); that is the state-transition
  matrix only if the J_F(s) commute. We integrate the variational equation (the exact
  transition matrix) and also report the printed exp(integral) form.
* (26) 1/W* < gamma holds only for the approximation gamma ~ -2 log(1 - alpha*/2)/(W* alpha*);
  the exact gamma of (25) is slightly below 1/W*, so beta_TCP/beta_DCTCP is ~1.5 at W* = 100,
  not < 1.4; the 1.4 bound (2 log 2) is reached only as W* -> infinity.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field, replace
from typing import Optional, Sequence

import numpy as np
import pandas as pd
from scipy.integrate import trapezoid
from scipy.optimize import brentq

from dcsim.units import DEFAULT_PACKET_BYTES, capacity_pps

__all__ = [
    "capacity_pps",
    "K_guideline",
    "K_from_Q_min",
    "g_range",
    "Guidelines",
    "guidelines",
    "wbar_of",
    "Regime",
    "regime",
    "fixed_point",
    "F",
    "J_F",
    "Sawtooth",
    "sawtooth",
    "sawtooth_period_rtt",
    "sawtooth_alpha_exact",
    "sawtooth_queue",
    "hybrid_step",
    "HybridRun",
    "hybrid_model",
    "alpha_star",
    "gamma_rate",
    "beta_dctcp",
    "beta_tcp",
    "alpha_star_bounds",
    "hybrid_assumptions",
    "measured_rate",
    "LimitCycle",
    "limit_cycle",
    "limit_cycles",
    "limit_cycle_from_trajectory",
    "Poincare",
    "poincare_jacobian",
    "worst_case_throughput",
    "analyze",
]

#: Coefficient of the K guideline (1)/(17): K ~ 0.17 C d.
K_COEFF = 0.17
#: Queue undershoot of the limit cycle for small g that (17) is derived from (Section 3.3.1).
Q_MIN_PAPER = -0.15


# ---------------------------------------------------------------------------------------------
# input checks: every error names the field and the allowed range
# ---------------------------------------------------------------------------------------------


def _real(name: str, x) -> float:
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {x!r}")
    return float(x)


def _positive(name: str, x: float) -> float:
    x = _real(name, x)
    if not (math.isfinite(x) and x > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {_plain(x)}")
    return x


def _nonneg(name: str, x: float) -> float:
    x = _real(name, x)
    if not (math.isfinite(x) and x >= 0):
        raise ValueError(f"{name} must be a finite number >= 0, got {_plain(x)}")
    return x


def _g(g: float) -> float:
    g = _real("g", g)
    if not (math.isfinite(g) and 0 < g <= 1):
        raise ValueError(f"g must be in (0, 1] (EWMA weight of eq. 3), got {_plain(g)}")
    return g


def _N(N: float) -> float:
    """Number of flows: a real number >= 1 (the fluid model and the closed forms treat N as a parameter)."""
    if isinstance(N, bool) or not isinstance(N, numbers.Real) or not (math.isfinite(N) and N >= 1):
        raise ValueError(f"N must be a real number >= 1 (number of flows), got {_plain(N)}")
    return int(N) if float(N).is_integer() else float(N)


def _plain(x) -> str:
    try:
        return f"{float(x):g}"
    except (TypeError, ValueError):
        return str(x)


def _wbar(wbar: float, lo: float = 0.0) -> float:
    wbar = _real("wbar", wbar)
    if not (math.isfinite(wbar) and wbar > lo):
        raise ValueError(f"wbar must be a finite number > {lo:g} packets, got {_plain(wbar)}")
    return wbar


# ---------------------------------------------------------------------------------------------
# parameter guidelines (eqs. 1, 2, 17, 18, 27)
# ---------------------------------------------------------------------------------------------


def K_guideline(C_pps: float, d_s: float) -> float:
    """Marking threshold for 100% throughput, eq. (1)/(17): K ~ 0.17 C d, packets."""
    return K_COEFF * _positive("C_pps", C_pps) * _positive("d_s", d_s)


def K_from_Q_min(Q_min: float, Cd_pkt: float) -> float:
    """The derivation of (17) in Section 3.3.1, for any undershoot Q_min < 0 of the normalized queue.

    No underflow needs K > |Q_min| C R* = |Q_min| (Cd + K), i.e. K > |Q_min| / (1 - |Q_min|) Cd.
    With the paper's Q_min = -0.15 this gives 0.176 Cd, printed as 0.17 Cd.
    """
    a = abs(_real("Q_min", Q_min))
    if not a < 1:
        raise ValueError(f"Q_min must be in (-1, 0], got {_plain(Q_min)}")
    return a / (1.0 - a) * _positive("Cd_pkt", Cd_pkt)


def g_range(C_pps: float, d_s: float, K_pkt: float) -> tuple[float, float]:
    """Range of the EWMA weight g, eq. (2) = (27): 5/(Cd + K) <~ g <~ 1/sqrt(Cd + K) (18).

    Returns (g_min, g_max); W_max = Cd + K in packets.
    """
    W_max = _positive("C_pps", C_pps) * _positive("d_s", d_s) + _nonneg("K_pkt", K_pkt)
    return 5.0 / W_max, 1.0 / math.sqrt(W_max)


@dataclass(frozen=True)
class Guidelines:
    """Eqs. (1)-(2) evaluated: all sizes in packets, times in seconds."""

    C_bps: float
    C_pps: float
    d_s: float
    packet_bytes: int
    Cd_pkt: float  # bandwidth-delay product
    K_guideline_pkt: float  # eq. (1)
    K_pkt: float  # the K used for the g range: given, else the guideline
    K_given: bool
    W_max_pkt: float  # Cd + K
    g_min: float  # eq. (2) lower
    g_max: float  # eq. (2) upper


def guidelines(C_bps: float, d_s: float, K_pkt: Optional[float] = None,
               packet_bytes: int = DEFAULT_PACKET_BYTES) -> Guidelines:
    """Eqs. (1) and (2) for a link of C_bps and propagation delay d_s.

    The paper's example (Section 1.2): 10 Gbps, 300 us, 1500 B -> K ~ 42 pkt, 0.02 <~ g <~ 0.06.
    If K_pkt is None the g range uses the guideline K.
    """
    C_pps = capacity_pps(_positive("C_bps", C_bps), _positive("packet_bytes", packet_bytes))
    d_s = _positive("d_s", d_s)
    K_g = K_guideline(C_pps, d_s)
    K = K_g if K_pkt is None else _nonneg("K_pkt", K_pkt)
    g_min, g_max = g_range(C_pps, d_s, K)
    return Guidelines(float(C_bps), C_pps, d_s, int(packet_bytes), C_pps * d_s, K_g, K, K_pkt is not None,
                      C_pps * d_s + K, g_min, g_max)


# ---------------------------------------------------------------------------------------------
# regime and the wbar <= 2 fixed point (Section 3.1, eq. 15)
# ---------------------------------------------------------------------------------------------


def wbar_of(C_pps: float, d_s: float, K_pkt: float, N: int) -> float:
    """Average per-flow window wbar = (C d + K)/N, packets (Section 3.1)."""
    return (_positive("C_pps", C_pps) * _positive("d_s", d_s) + _nonneg("K_pkt", K_pkt)) / _N(N)


#: wbar within this relative distance of 2 is the boundary wbar = 2 (the fixed-point regime): (Cd +
#: K)/N rounds both ways (N = 48.75 at 10 Gbps, 100 us, K = Cd/6 gives 2.0000000000000004, which had
#: read as a limit cycle that cannot be computed: a review).
WBAR_BOUNDARY_RTOL = 1e-12


def at_boundary(wbar: float) -> bool:
    """wbar = 2 packets within rounding (:data:`WBAR_BOUNDARY_RTOL`): the fixed point's boundary,
    where (22)'s W_max >= 2N and (46)'s W* >= 2 hold with equality."""
    return abs(wbar - 2.0) <= 2.0 * WBAR_BOUNDARY_RTOL


def is_fixed_point_regime(wbar: float) -> bool:
    """The fixed-point regime of Section 3.1: wbar <= 2 packets (the boundary included, within rounding)."""
    return wbar <= 2.0 or at_boundary(wbar)


def fixed_point(wbar: float) -> tuple[float, float, float]:
    """Fixed point (W~, alpha~, q~) = (2, 1, 2/wbar - 1) of the normalized model, eq. (15), wbar <= 2.

    Eq. (15) needs p~ = 1, i.e. q~ > 0, i.e. wbar < 2; at wbar = 2 the point lies on the switching
    plane q~ = 0 (q = K) and is a fixed point only in the sliding (Filippov) sense. For wbar > 2
    there is no fixed point (a limit cycle instead, Section 3.2) and this raises ValueError.
    """
    wbar = _wbar(wbar)
    if not is_fixed_point_regime(wbar):
        raise ValueError(f"wbar must be <= 2 packets for the fixed point of eq. (15), got {_plain(wbar)}: "
                         "for wbar > 2 the model has a limit cycle (use limit_cycle)")
    return 2.0, 1.0, 2.0 / wbar - 1.0


@dataclass(frozen=True)
class Regime:
    """Operating regime of N DCTCP flows on one bottleneck (Section 3.1)."""

    C_pps: float
    d_s: float
    K_pkt: float
    N: int
    Cd_pkt: float
    R_star_s: float  # d + K/C
    wbar: float  # (Cd + K)/N, packets
    psi: float  # K/(Cd)
    kind: str  # "fixed point" (wbar <= 2) or "limit cycle" (wbar > 2)
    W_pkt: Optional[float] = None  # fixed point of (5)-(8) when wbar <= 2
    alpha: Optional[float] = None
    q_pkt: Optional[float] = None
    rtt_s: Optional[float] = None  # d + q/C at the fixed point


def regime(C_pps: float, d_s: float, K_pkt: float, N: int) -> Regime:
    """Classify (C, d, K, N) by wbar = (Cd + K)/N: fixed point if wbar <= 2, else limit cycle.

    Fixed point of (5)-(8) (Section 3.1): W = 2 packets, alpha = 1, q = 2N - Cd packets.
    The paper prints W = 2/wbar; that is a typo (W~ = W under (10), and the text says each source
    sends two packets per RTT). Check: at the Fig. 2 setting N = 100, q = 200 - 83.3 = 116.7 pkt
    ("the queue climbs to about 120 packets") and RTT = d + q/C = 240 us (footnote 2).
    """
    wbar = wbar_of(C_pps, d_s, K_pkt, N)
    Cd = C_pps * d_s
    R_star = d_s + K_pkt / C_pps
    psi = K_pkt / Cd
    if is_fixed_point_regime(wbar):
        W, alpha, q_norm = fixed_point(wbar)
        q_pkt = K_pkt + q_norm * C_pps * R_star  # invert (10)
        return Regime(C_pps, d_s, K_pkt, N, Cd, R_star, wbar, psi, "fixed point", W, alpha, q_pkt,
                      d_s + q_pkt / C_pps)
    return Regime(C_pps, d_s, K_pkt, N, Cd, R_star, wbar, psi, "limit cycle")


# ---------------------------------------------------------------------------------------------
# normalized model as x' = F(x, u(t-1)) and its Jacobian (eqs. 11-13, 16)
# ---------------------------------------------------------------------------------------------


def F(x: np.ndarray, u: float, wbar: float, g: float) -> np.ndarray:
    """Right-hand side F(x, u) of (16), x = (W~, alpha~, q~), u = p~(t - 1): eqs. (11)-(13)."""
    W, a, q = x
    r = 1.0 / (1.0 + q)
    return np.array([r * (1.0 - 0.5 * W * a * u), g * r * (u - a), W * r / wbar - 1.0])


def J_F(x: np.ndarray, u: float, wbar: float, g: float) -> np.ndarray:
    """Jacobian of F with respect to x (Theorem 1), for eqs. (11)-(13)."""
    W, a, q = x
    r = 1.0 / (1.0 + q)
    return np.array([
        [-0.5 * a * u * r, -0.5 * W * u * r, -(1.0 - 0.5 * W * a * u) * r * r],
        [0.0, -g * r, -g * (u - a) * r * r],
        [r / wbar, 0.0, -W * r * r / wbar],
    ])


def _J_F_batch(W: np.ndarray, a: np.ndarray, q: np.ndarray, u: float, wbar: np.ndarray,
               g: np.ndarray) -> np.ndarray:
    """J_F for arrays of states (shape (B,)): returns (B, 3, 3)."""
    r = 1.0 / (1.0 + q)
    J = np.zeros(W.shape + (3, 3))
    J[..., 0, 0] = -0.5 * a * u * r
    J[..., 0, 1] = -0.5 * W * u * r
    J[..., 0, 2] = -(1.0 - 0.5 * W * a * u) * r * r
    J[..., 1, 1] = -g * r
    J[..., 1, 2] = -g * (u - a) * r * r
    J[..., 2, 0] = r / wbar
    J[..., 2, 2] = -W * r * r / wbar
    return J


# ---------------------------------------------------------------------------------------------
# the Sawtooth model of the original DCTCP paper (used in Fig. 3)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sawtooth:
    """Sawtooth model of DCTCP (Alizadeh et al., SIGCOMM 2010, Section 3.3), packets and RTTs."""

    N: int
    W_star: float  # (C RTT + K)/N: window at which the queue reaches K
    alpha: float  # sqrt(2/W*)
    D_pkt: float  # window amplitude (W* + 1) alpha/2
    A_pkt: float  # queue amplitude N D
    T_C_rtt: float  # period, RTTs (= D: windows grow 1 pkt/RTT)
    Q_max_pkt: float  # K + N
    Q_min_pkt: float  # Q_max - A


def sawtooth_alpha_exact(W_star: float) -> float:
    """The Sawtooth model's marked fraction before its approximation: alpha^2 (1 - alpha/4) = (2W*+1)/(W*+1)^2."""
    W_star = _positive("W_star", W_star)
    rhs = (2 * W_star + 1) / (W_star + 1) ** 2
    return brentq(lambda a: a * a * (1 - a / 4) - rhs, 0.0, 2.0, xtol=1e-15)


def sawtooth_period_rtt(W_star: float) -> float:
    """Sawtooth model's period in RTTs, T_C = D = (W* + 1) alpha / 2 with alpha = sqrt(2/W*)."""
    W_star = _positive("W_star", W_star)
    return (W_star + 1.0) * math.sqrt(2.0 / W_star) / 2.0


def sawtooth(C_pps: float, d_s: float, K_pkt: float, N: int) -> Sawtooth:
    """Sawtooth model, the "simple model presented in [1]" that Section 2.2 / Fig. 3 compare against.

    Reconstructed from DCTCP (SIGCOMM 2010) Section 3.3 (the paper here only describes it): N
    synchronized flows with identical sawtooth windows; the queue reaches K when the windows reach
    W* = (C RTT + K)/N (C RTT = C d packets of the pipe); the marks of one more RTT bring the queue to
    Q_max = K + N; each source knows the exact marked fraction alpha = sqrt(2/W*) (the approximation of
    alpha^2 (1 - alpha/4) = (2W* + 1)/(W* + 1)^2) and cuts its window by D = (W* + 1) alpha/2; the queue
    drops by A = N D ~ (1/2) sqrt(2 N (Cd + K)) and the period is T_C = D RTTs. Q_min = Q_max - A.
    In normalized units Q_max/(C R*) = 1/wbar and A/(C R*) ~ 1/sqrt(2 wbar); the worst case wbar = 8
    gives Q_min = -1/8, i.e. K > Cd/7, the guideline of [1] that Section 3.3.1 compares with 0.17 Cd.
    The Sawtooth model has no g: alpha is constant (the reason Fig. 3 shows it failing at g = 0.4).
    """
    N = _N(N)
    W_star = (_positive("C_pps", C_pps) * _positive("d_s", d_s) + _nonneg("K_pkt", K_pkt)) / N
    if not W_star >= 2.0:  # alpha = sqrt(2/W*) would be a marked fraction above 1 (W* = 1 gave 1.41: a review)
        raise ValueError(f"sawtooth: W* = (C d + K)/N = {W_star:.4g} packets; the model needs W* >= 2 (its marked "
                         "fraction alpha = sqrt(2/W*) <= 1): raise C d + K or lower N")
    alpha = math.sqrt(2.0 / W_star)
    D = sawtooth_period_rtt(W_star)  # window cut, packets = period, RTTs (1 pkt/RTT growth)
    A = N * D
    Q_max = K_pkt + N
    return Sawtooth(N, W_star, alpha, D, A, D, Q_max, Q_max - A)


def sawtooth_queue(t_s: np.ndarray, C_pps: float, d_s: float, K_pkt: float, N: int) -> np.ndarray:
    """Queue q(t) of the Sawtooth model, packets: linear rise N pkt/RTT from Q_min to Q_max, then drop.

    RTT = R* = d + K/C (the queue stays near K), so the period is T_C R* seconds; phase 0 at Q_min.
    The model lets Q_min go negative (it has no floor); we clip at 0 as a real queue would.
    """
    s = sawtooth(C_pps, d_s, K_pkt, N)
    R_star = d_s + K_pkt / C_pps
    phase = np.mod(np.asarray(t_s, dtype=float) / R_star, s.T_C_rtt)
    return np.maximum(s.Q_min_pkt + N * phase, 0.0)


# ---------------------------------------------------------------------------------------------
# the Hybrid model (19)-(21), alpha* (23), convergence rates (25), bounds (26), (46)
# ---------------------------------------------------------------------------------------------


def hybrid_step(W: np.ndarray, alpha: np.ndarray, g: float) -> tuple[np.ndarray, np.ndarray, float]:
    """One congestion epoch of the Hybrid model: eqs. (19), (20), (21).

    At T_k (sum W_i = W_max): Delta T_k = 1 + sum W_i alpha_i/(2N) (19);
    W_i(T_k+1) = (1 - alpha_i/2) W_i + Delta T_k - 1 (20);
    alpha_i(T_k+1) = exp(-g Delta T_k) (exp(g) - 1 + alpha_i) (21). Time in RTTs.
    """
    N = W.shape[0]
    dT = 1.0 + float(np.dot(W, alpha)) / (2.0 * N)
    W_next = (1.0 - alpha / 2.0) * W + (dT - 1.0)
    a_next = math.exp(-g * dT) * (math.expm1(g) + alpha)
    return W_next, a_next, dT


@dataclass
class HybridRun:
    """A run of the Hybrid model: arrays indexed by congestion event k = 0..n."""

    T: np.ndarray  # T_k, RTTs
    W: np.ndarray  # (n+1, N) W_i(T_k), packets
    alpha: np.ndarray  # (n+1, N)
    W_max: float
    g: float

    @property
    def W_star(self) -> float:
        return self.W_max / self.W.shape[1]

    def frame(self) -> pd.DataFrame:
        cols = {"k": np.arange(len(self.T)), "T_rtt": self.T}
        for i in range(self.W.shape[1]):
            cols[f"W{i + 1}_pkt"] = self.W[:, i]
        for i in range(self.W.shape[1]):
            cols[f"alpha{i + 1}"] = self.alpha[:, i]
        return pd.DataFrame(cols)


#: The Hybrid model keeps every event's windows and alphas: at most this many of each (160 MB).
MAX_HYBRID_VALUES = 10_000_000


def hybrid_model(W0: Sequence[float], alpha0: Sequence[float], g: float, W_max: float,
                 n_events: int) -> HybridRun:
    """Iterate the Hybrid model (Section 4.1, eqs. 19-21) for n_events congestion epochs.

    W0 are the windows at t = 0 (packets, sum <= W_max); windows first grow at 1 pkt/RTT each until
    sum W = W_max, which is T_0. Then each event applies :func:`hybrid_step`.
    """
    W = np.asarray(W0, dtype=float).copy()
    a = np.asarray(alpha0, dtype=float).copy()
    g = _g(g)
    W_max = _positive("W_max", W_max)
    if W.ndim != 1 or W.shape != a.shape or W.size < 1:
        raise ValueError("W0 and alpha0 must be 1-D sequences of the same length N >= 1")
    # Written so that NaN fails too (a review: NaN windows or alphas had run to NaN results).
    if not (np.all(W >= 0) and W.sum() <= W_max * (1 + 1e-12)):
        raise ValueError(f"W0 must be finite numbers >= 0 with sum(W0) <= W_max = {W_max:g} packets, got sum {W.sum():g}")
    if not np.all((a >= 0) & (a <= 1)):
        raise ValueError(f"alpha0 must be in [0, 1], got {_plain(a[~((a >= 0) & (a <= 1))][0])}")
    if int(n_events) != n_events or n_events < 0:
        raise ValueError(f"n_events must be an integer >= 0, got {_plain(n_events)}")
    N = W.size
    if (int(n_events) + 1) * N > MAX_HYBRID_VALUES:  # every event's windows and alphas are kept
        raise ValueError(f"n_events: {int(n_events)} events of {N} flows keep {(int(n_events) + 1) * N:.3g} windows; "
                         f"allowed (n_events + 1) x N <= {MAX_HYBRID_VALUES:g}, i.e. n_events <= "
                         f"{MAX_HYBRID_VALUES // N - 1:g}")
    n_events = int(n_events)
    t0 = (W_max - W.sum()) / N
    W = W + t0
    # alpha between t = 0 and T_0: no marks (p = 0), d alpha/dt = -g alpha
    a = a * math.exp(-g * t0)
    Ts = np.empty(n_events + 1)
    Ws = np.empty((n_events + 1, N))
    As = np.empty((n_events + 1, N))
    Ts[0], Ws[0], As[0] = t0, W, a
    for k in range(n_events):
        W, a, dT = hybrid_step(W, a, g)
        Ts[k + 1] = Ts[k] + dT
        Ws[k + 1], As[k + 1] = W, a
    return HybridRun(Ts, Ws, As, W_max, g)


def alpha_star(W_star: float, g: float) -> float:
    """Unique root in (0, 1] of eq. (23): alpha* = exp(-g (1 + W* alpha*/2)) (exp(g) - 1 + alpha*)."""
    W_star = _positive("W_star", W_star)
    g = _g(g)

    def rel(x: float) -> float:  # expm1(x) / x, -> 1 as x -> 0
        return math.expm1(x) / x if x != 0.0 else 1.0

    def h(a: float) -> float:
        # eq. (23)'s difference divided by g, with u = g (1 + W* a/2): e^-u (e^g - 1) + a (e^-u - 1)
        # over g. Written as e^(-g(..))(e^g - 1 + a) - a it lost every digit for g below ~1e-13
        # (alpha* 0.1378 at g = 1e-17 against the limit 0.1831, and 1.0 at g = 1e-300).
        k = 1.0 + W_star * a / 2.0
        u = g * k
        return math.exp(-u) * rel(g) - a * k * rel(-u)

    # h(0) = e^-g (e^g - 1)/g > 0, h(1) = (e^(-g W*/2) - 1)/g < 0: one root in (0, 1]; as g -> 0 it
    # tends to the root of 1 - a - W* a^2/2 (eq. 23 to first order in g)
    if h(1.0) >= 0:
        return 1.0
    return brentq(h, 0.0, 1.0, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=200)


def gamma_rate(W_star: float, alpha_s: float) -> float:
    """Window convergence rate gamma = -log(1 - alpha*/2)/(1 + W* alpha*/2), per RTT (Section 4.2).
    W* > 0 packets and alpha* in (0, 1] (eq. 23's root), else ValueError naming the argument."""
    W_star = _positive("W_star", W_star)
    alpha_s = _real("alpha_s", alpha_s)
    if not (math.isfinite(alpha_s) and 0 < alpha_s <= 1):
        raise ValueError(f"alpha_s must be in (0, 1] (alpha*, the root of eq. 23), got {_plain(alpha_s)}")
    return -math.log1p(-alpha_s / 2.0) / (1.0 + W_star * alpha_s / 2.0)


def beta_dctcp(W_star: float, g: float) -> float:
    """DCTCP convergence rate, eq. (25): beta = min(g, gamma), per RTT."""
    return min(_g(g), gamma_rate(W_star, alpha_star(W_star, g)))


def beta_tcp(W_star: float) -> float:
    """TCP convergence rate (Section 4.2): beta_TCP = log 2 / (1 + W*/2), per RTT."""
    return math.log(2.0) / (1.0 + _positive("W_star", W_star) / 2.0)


def alpha_star_bounds(W_star: float, g: float) -> tuple[float, float]:
    """Bounds (46) (Theorem 3, needs W* >= 2): (1/2) sqrt(2/W*) - g < alpha* < sqrt(2/W*) + g."""
    s = math.sqrt(2.0 / _positive("W_star", W_star))
    g = _g(g)
    return 0.5 * s - g, s + g


def hybrid_assumptions(N: float, W_max: float, g: float) -> list[str]:
    """Assumptions (22) of Theorem 2: N >= 2, W_max >= 2N, g <= 1/sqrt(W_max). Returns the violated ones.
    N and W_max must be finite numbers > 0 and g in (0, 1], else ValueError naming the argument (a
    NaN had made every comparison false: "no assumption violated")."""
    N, W_max, g = _positive("N", N), _positive("W_max", W_max), _g(g)
    bad = []
    if N < 2:
        bad.append(f"N = {N:g} < 2")
    if W_max < 2 * N:
        bad.append(f"W_max = {W_max:g} pkt < 2N = {2 * N:g}")
    if g > 1 / math.sqrt(W_max):
        bad.append(f"g = {g:g} > 1/sqrt(W_max) = {1 / math.sqrt(W_max):.4g}")
    return bad


def measured_rate(T: np.ndarray, err: np.ndarray, lo: float, hi: float) -> float:
    """Exponential decay rate of err(T) (least squares on log err) over the points with lo <= err <= hi."""
    T = np.asarray(T, dtype=float)
    err = np.asarray(err, dtype=float)
    m = (err >= lo) & (err <= hi)
    if m.sum() < 5:
        raise ValueError(f"too few points ({int(m.sum())}) with {lo:g} <= err <= {hi:g} to fit a rate")
    slope = np.polyfit(T[m], np.log(err[m]), 1)[0]
    return -float(slope)


# ---------------------------------------------------------------------------------------------
# limit cycle of the normalized model (Section 3.2-3.3): period, Q_min, Q_max, throughput
# ---------------------------------------------------------------------------------------------


@dataclass
class LimitCycle:
    """One period of the limit cycle of (11)-(14), time in units of R*, q~ normalized as in (10).

    The period starts at x_alpha (q~ crosses 0 downward, S+ -> S-) at s = 0, reaches x_beta (q~
    crosses 0 upward) at s = 1 + h_alpha and returns to x_alpha at s = T = 2 + h_alpha + h_beta.
    """

    wbar: float
    g: float
    psi: Optional[float]
    T: float  # period
    h_alpha: float
    h_beta: float
    Q_min: float  # min q~ over the period (Section 3.3.1)
    Q_max: float  # max q~
    throughput: float  # (1/T) int W~/(wbar (1 + q~)) dt, fraction of C (Section 3.3.2)
    x_alpha: np.ndarray  # (W~, alpha~, q~ = 0) at the down-crossing
    x_beta: np.ndarray  # at the up-crossing
    drift: float  # relative change of (T, x_alpha) over the last two periods: convergence check
    s: np.ndarray = field(repr=False)  # orbit samples, s in [0, T]
    X: np.ndarray = field(repr=False)  # (len(s), 3): W~, alpha~, q~
    drift_resolution: float = 0.0  # the smallest drift the crossing times can resolve (see converged)
    # g times the integrated time (units of R*): alpha's slow mode contracts like exp(-2 g t)
    alpha_relaxation: float = math.inf

    @property
    def converged(self) -> bool:
        """The last two periods differ by < 0.1 % in T and x_alpha (below the 3-4 significant digits the
        claims and the CLI print), beyond what the sampling resolves: at psi = 0 the section q~ = 0 is the
        floor itself, so a crossing is located only to one sample step plus the integrator's step (its
        floor contacts fall on step boundaries) and drift_resolution = 2 (step + dt) / T;
        and the run was long enough for alpha to settle (g t >= ALPHA_SETTLED_GT): alpha moves at rate
        g, so at small g two periods differ little long before the orbit is the cycle's."""
        return bool(self.drift < 1e-3 + self.drift_resolution and self.alpha_relaxation >= ALPHA_SETTLED_GT)

    def summary(self) -> dict:
        d = {k: getattr(self, k) for k in ("wbar", "g", "psi", "T", "h_alpha", "h_beta", "Q_min", "Q_max",
                                            "throughput", "drift")}
        d["x_alpha"] = self.x_alpha.tolist()
        d["x_beta"] = self.x_beta.tolist()
        return d


def _crossings(t: np.ndarray, q: np.ndarray, down: bool) -> np.ndarray:
    """Times where q crosses 0 (downward: q > 0 then q <= 0), linearly interpolated between samples."""
    if down:
        k = _downs_at(q)
    else:
        k = np.nonzero((q[:-1] <= 0) & (q[1:] > 0))[0]
    return t[k] + (t[k + 1] - t[k]) * q[k] / (q[k] - q[k + 1])


def _downs_at(q: np.ndarray) -> np.ndarray:
    """Sample indices k of the downward crossings of q~ = 0 (q[k] > 0 >= q[k + 1])."""
    return np.nonzero((q[:-1] > 0) & (q[1:] <= 0))[0]


def _floored_crossing(q: np.ndarray, psi: float) -> bool:
    """Whether the sample after any of the last three downward crossings is on the floor
    q~ = -psi/(1+psi) (eq. 13 with the floor of Section 3.3.2): the crossing is then not interpolated
    between two points of the falling queue, so it is known to a sample step (and to the integrator's
    step, on whose grid the floor contact lies) only."""
    floor = -psi / (1.0 + psi)
    after = q[_downs_at(q)[-3:] + 1]
    return bool(np.any(after <= floor + 1e-12 * max(1.0, abs(floor))))


def _extremum(t: np.ndarray, y: np.ndarray, i: int) -> float:
    """Value of the extremum near sample i, refined by the parabola through samples i-1, i, i+1."""
    if 0 < i < len(y) - 1:
        y0, y1, y2 = y[i - 1], y[i], y[i + 1]
        den = y0 - 2 * y1 + y2
        if den != 0:
            return float(y1 - 0.125 * (y2 - y0) ** 2 / den)
    return float(y[i])


def limit_cycle_from_trajectory(t: np.ndarray, W: np.ndarray, alpha: np.ndarray, q: np.ndarray,
                                wbar: float, g: float, psi: Optional[float] = None,
                                dt: Optional[float] = None) -> LimitCycle:
    """Extract the limit cycle from the tail of a trajectory of (11)-(14) (Sections 3.2-3.3).

    Uses the last two down-crossings of q~ = 0 (the Poincare section S of Section 3.2): period T,
    x_alpha, x_beta, h_alpha, h_beta; Q_min, Q_max over that period; throughput of Section 3.3.2
    (the trapezoid rule on the samples). ``drift`` compares with the period before (max relative
    change of T and x_alpha): small drift means the trajectory has converged to the cycle. ``dt``
    is the integration step the trajectory was computed with (None: taken as the sample step, its
    largest value, since samples lie on the integration grid); it enters ``drift_resolution``.
    Raises ValueError if the tail has fewer than three down-crossings (no cycle yet, or wbar <= 2).
    """
    t, W, alpha, q = (np.asarray(v, dtype=float) for v in (t, W, alpha, q))
    downs = _crossings(t, q, down=True)
    ups = _crossings(t, q, down=False)
    if len(downs) < 3:
        raise ValueError(f"no limit cycle found at wbar={wbar:g}, g={g:g}: only {len(downs)} down-crossings of "
                         f"q~ = 0 in t in [{t[0]:g}, {t[-1]:g}]; integrate longer (wbar must be > 2)")
    t0, t1 = downs[-2], downs[-1]
    tb = ups[(ups > t0) & (ups < t1)]
    if len(tb) != 1:
        raise ValueError(f"limit cycle at wbar={wbar:g}, g={g:g} crosses q~ = 0 upward {len(tb)} times in a "
                         "period; expected once")
    tb = float(tb[0])
    T = t1 - t0

    def at(tt: float) -> np.ndarray:
        return np.array([np.interp(tt, t, W), np.interp(tt, t, alpha), 0.0])

    x_alpha, x_alpha_prev, x_beta = at(t1), at(t0), at(tb)
    T_prev = t0 - downs[-3]
    drift = max(abs(T - T_prev) / T, abs(x_alpha[0] - x_alpha_prev[0]) / max(x_alpha[0], 1e-12),
                abs(x_alpha[1] - x_alpha_prev[1]) / max(x_alpha[1], 1e-12))
    m = (t > t0) & (t < t1)
    s = np.concatenate([[0.0], t[m] - t0, [T]])
    X = np.column_stack([np.concatenate([[x_alpha_prev[0]], W[m], [x_alpha[0]]]),
                         np.concatenate([[x_alpha_prev[1]], alpha[m], [x_alpha[1]]]),
                         np.concatenate([[0.0], q[m], [0.0]])])
    i_min, i_max = int(np.argmin(X[:, 2])), int(np.argmax(X[:, 2]))
    Q_min = _extremum(s, X[:, 2], i_min)
    if psi is not None:
        Q_min = max(Q_min, -psi / (1 + psi))  # the parabola must not undercut the floor
    Q_max = _extremum(s, X[:, 2], i_max)
    thr = float(trapezoid(X[:, 0] / (wbar * (1.0 + X[:, 2])), s) / T)  # scipy's: numpy's is np.trapz before 2.0
    # A cycle that never empties the queue has throughput 1 exactly ((13) integrated over a
    # period); the quadrature leaves up to ~1e-7 above it (g = 1e-320: 1.00000007, a probe), and a
    # fraction of C cannot exceed 1. A larger excess is an error of the integration: kept, to be seen.
    if 1.0 < thr <= 1.0 + THROUGHPUT_QUADRATURE_TOL:
        thr = 1.0
    step = float(np.median(np.diff(t)))
    # A crossing whose next sample already sits on the floor (psi = 0, or a floor shallower than one
    # step's fall, e.g. K = 1e-6 pkt) is the floor contact itself. The samples locate it to a step,
    # and the integrator locates neither contacts nor lift-offs (dde.rs: both fall on step
    # boundaries, order 1), so the orbit's own contact times jitter by up to one integration step dt
    # from period to period. Each of the three crossings behind T and T_prev is then off by up to
    # step + dt, and T - T_prev (t1 - 2 t0 + t_-1) by up to 2 (step + dt). The sample step alone had been
    # allowed: with dt = step = 0.01 R* the full Fig. 9 grid's cycle at wbar = 34.4, g = 0.01 drifted
    # by 3 steps of 7.04 R* (0.0043) with its periods at 7.04-7.07 R*, and by 0.002 R* at dt = 1e-3.
    if psi is not None and _floored_crossing(q, psi):
        res = 2.0 * (step + (step if dt is None else min(float(dt), step))) / T
    else:
        res = 0.0
    return LimitCycle(float(wbar), float(g), psi, T, tb - t0 - 1.0, t1 - tb - 1.0, Q_min, Q_max, thr,
                      x_alpha, x_beta, float(drift), s, X, res)


#: How far above 1 the trapezoidal throughput of a limit cycle that never empties the queue comes
#: out (1e-9 .. 1e-7 measured at g = 1e-6 .. 1e-320); within it, the throughput is 1.
THROUGHPUT_QUADRATURE_TOL = 1e-6

#: Most samples one run of :func:`_limit_cycle_long` keeps (t, W, alpha, q: 320 MB, ~3 copies at the peak).
MAX_CYCLE_ROWS = 1e7

#: g t (t in R*) after which alpha's slow mode has contracted by exp(-2 g t) = exp(-12): the horizon
#: of :func:`_t_end_for`, reached for g >= 0.001 (its cap of 6000 R*).
ALPHA_SETTLED_GT = 6.0


def _period_guess(wbar: float, g: float) -> float:
    """A rough limit-cycle period (units of R*) for sizing runs, checked afterwards by the crossings:
    ~sqrt(wbar) for small g (Fig. 8), ~g wbar / 4 once g >> 1/sqrt(wbar) (each marked R* moves alpha
    by ~g, so a cut of ~g W/2 takes ~g wbar/2 R* to regain: measured wbar/52 .. wbar/61 at g = 1/16,
    wbar 1e5 .. 2.4e6, a probe)."""
    return max(2.0 + 2.0 * math.sqrt(wbar), g * wbar / 4.0)


#: The limit cycle's period is at least this fraction of :func:`_period_guess` (the lowest measured:
#: 0.45, T ~ 0.9 sqrt(wbar) at small g and large wbar; with a margin).
PERIOD_GUESS_LOW = 0.25


def _t_end_for(wbar: float, g: float) -> float:
    """Integration horizon (units of R*) long enough for the slow modes to die out.

    alpha relaxes at rate ~g (eq. 12) and the cycle period is :func:`_period_guess`; we
    integrate for max(6/g, 60 periods), at most 6000 (enough for g >= 0.001: the alpha mode of
    the Poincare map contracts like exp(-2 g t) (rho = 0.986 per period of 7 R* at g = 0.001),
    so ~exp(-12) of the initial error is left), then check ``drift``; a longer period is found by
    :func:`_limit_cycle_long`.
    """
    if g < 6.0 / 6000.0:  # 6 / g beyond the cap (and no overflow: g = 1e-320 warned "overflow in divide")
        return 6000.0
    return float(min(max(6.0 / g, 60.0 * _period_guess(wbar, g)), 6000.0))


def _fluid():
    try:
        from dcsim import fluid
    except ImportError as e:  # pragma: no cover - the fluid module is part of the package
        raise RuntimeError("dcsim.fluid (the Rust fluid integrator) is not available: " + str(e)) from e
    return fluid


def limit_cycle(wbar: float, g: float, *, psi: Optional[float] = None, t_end: Optional[float] = None,
                dt: float = 1e-2, sample_dt: float = 1e-2) -> LimitCycle:
    """Integrate (11)-(14) with the Rust DDE integrator and extract the limit cycle (Section 3.3).

    psi = None: eq. (13) without floor; a number >= 0: the floor q~ >= -psi/(1+psi) of Section 3.3.2
    (psi = 0, i.e. K = 0: the queue never goes below the threshold, q~ >= 0).
    """
    return limit_cycles([wbar], [g], psi=psi, t_end=t_end, dt=dt, sample_dt=sample_dt)[0]


#: Largest psi = K/(Cd) the normalized integrator accepts (the floor -psi/(1+psi) is then within
#: 1e-6 of -1, i.e. the floor no longer matters).
PSI_MAX = 1e6


def _check_psi(p: Optional[float]) -> Optional[float]:
    if p is None:
        return None
    v = float(p)
    if not (math.isfinite(v) and 0 <= v <= PSI_MAX):
        raise ValueError(f"psi must be a number in [0, {PSI_MAX:g}] (psi = K/(Cd), Section 3.3.2), got {_plain(p)}")
    return v


def limit_cycles(wbar: Sequence[float], g: Sequence[float], *, psi=None, t_end: Optional[float] = None,
                 dt: float = 1e-2, sample_dt: float = 1e-2) -> list[LimitCycle]:
    """Limit cycles for paired sequences wbar[i], g[i] (and psi[i] if a sequence), integrated in parallel.

    dt = 0.01 R* (RK4 with exact switching times) reproduces the period, Q_min, Q_max and throughput
    of dt = 0.001 to ~1e-6 with and without the floor for psi > 0; the tests check against scipy.
    At psi = 0 (K = 0: the floor on the marking threshold) it does to ~0.5 % only (a probe, C = 10
    Gbps, d = 240 us, N = 10, g = 0.05: Q_max 4.417 against 4.435 pkt, period 6.150 against 6.161
    R*): give dt = 1e-3 there for more digits.

    Points with the same horizon are integrated in one :func:`dcsim.fluid.dctcp_normalized_batch` call;
    only the last part of each trajectory (enough for three periods) is sampled. psi = 0 (K = 0, the
    left end of Fig. 9) is integrated as the physical model (5)-(8) with K = 0, which is the same
    system (see :func:`_normalized_run`).
    """
    wbar = np.atleast_1d(np.asarray(wbar, dtype=float))
    g = np.atleast_1d(np.asarray(g, dtype=float))
    if wbar.shape != g.shape:
        raise ValueError(f"wbar and g must have the same length, got {wbar.size} and {g.size}")
    for w in wbar:
        _wbar(w, lo=2.0)
    for gg in g:
        _g(gg)
    psis = [psi] * wbar.size if (psi is None or np.isscalar(psi)) else list(psi)
    if len(psis) != wbar.size:
        raise ValueError(f"psi must be None, a number or one value per point, got {len(psis)} values")
    psis = [_check_psi(p) for p in psis]
    fluid = _fluid()
    ends = [float(t_end) if t_end is not None else _t_end_for(w, gg) for w, gg in zip(wbar, g)]
    out: list[Optional[LimitCycle]] = [None] * wbar.size
    groups: dict[tuple, list[int]] = {}
    for i, (e, p) in enumerate(zip(ends, psis)):
        groups.setdefault((e, p), []).append(i)
    for (e, p), idx in groups.items():
        # keep enough of the tail for three periods (period < ~ 4 sqrt(wbar) + 30 even at g = 1)
        tail = max(4.0 * max(_period_guess(wbar[i], g[i]) for i in idx), 60.0)
        t_from = max(0.0, e - 3.0 * tail)
        if p == 0:
            trajs = [_normalized_run(float(wbar[i]), float(g[i]), p, e, dt, sample_dt, t_from) for i in idx]
        else:
            trajs = fluid.dctcp_normalized_batch([float(wbar[i]) for i in idx], [float(g[i]) for i in idx],
                                                 psi=None if p is None else [p] * len(idx),
                                                 t_end=e, dt=dt, sample_dt=sample_dt, t_from=t_from)
        for i, tr in zip(idx, trajs):
            try:
                c, ran = limit_cycle_from_trajectory(tr["t"], tr["W"], tr["alpha"], tr["q"], wbar[i], g[i], p, dt), e
            except ValueError:
                c, ran = _limit_cycle_long(wbar[i], g[i], p, e, dt, sample_dt)
            out[i] = replace(c, alpha_relaxation=float(g[i]) * ran)
    return out  # type: ignore[return-value]


def _normalized_run(wbar: float, g: float, psi: Optional[float], t_end: float, dt: float, sample_dt: float,
                    t_from: float) -> dict[str, np.ndarray]:
    """One run of the normalized model (11)-(14) from the default history; arrays t, W, alpha, q.

    psi = 0 is run as the physical model (5)-(8) with K = 0, N = 1, d = 1 ms and C d = wbar packets
    (the normalized integrator takes psi > 0 only): with K = 0, R* = d, q~ = q/(C d), wbar = C d/N,
    and the physical queue floor q >= 0 is the floor q~ >= -psi/(1+psi) = 0, so the two systems are
    the same equations in other units (tests compare with psi -> 0).
    """
    if psi == 0:
        from dcsim import _core

        d_s = 1e-3
        C_pps = wbar / d_s
        r = _core.fluid_dctcp(C_pps, d_s, 0.0, g, 1.0, True, None, t_end * d_s, dt * d_s, sample_dt * d_s,
                              t_from * d_s)
        return {"t": np.asarray(r["t"]) / d_s, "W": np.asarray(r["W"]), "alpha": np.asarray(r["alpha"]),
                "q": np.asarray(r["q"]) / (C_pps * d_s)}
    tr = _fluid().dctcp_normalized(wbar, g, psi=psi, t_end=t_end, dt=dt, sample_dt=sample_dt, t_from=t_from)
    return {k: tr[k].to_numpy() for k in ("t", "W", "alpha", "q")}


def _limit_cycle_long(wbar: float, g: float, psi: Optional[float], t_end: float, dt: float,
                      sample_dt: float) -> tuple[LimitCycle, float]:
    """Retry one point whose period is longer than guessed: integrate 1, 4, 16, 64 times longer
    (within the step budget, limits.MAX_STEPS) until the second half of the run holds three
    periods. Near wbar = 2 the period grows without bound; at large wbar and g it is ~g wbar/4 R*
    (:func:`_period_guess`). That half is sampled at ``sample_dt``, or as much coarser as keeps it
    within MAX_CYCLE_ROWS samples (bounded memory: 2e7 samples had peaked at 1.5 GB, a probe); coarser
    samples locate the crossings worse, so the drift then reads higher (a cycle of 16 490 R*: 0.0074
    at 0.03 R* against 0.0011 at 0.01 R*). Returns the cycle and the time integrated (units of R*)."""
    from dcsim.theory.limits import MAX_STEPS

    err: Optional[ValueError] = None
    factors = [f for f in (1.0, 4.0, 16.0, 64.0) if f == 1.0 or t_end * f / dt <= MAX_STEPS]
    # A run shows a cycle only if its second half holds three periods (period <= run / 6). The period
    # is at least PERIOD_GUESS_LOW of the guess (measured down to 0.45 of it: T = 0.9 sqrt(wbar) at
    # small g, large wbar, against 2 sqrt(wbar)); runs too short for that cannot succeed and are
    # skipped: at wbar ~ 1e8 (10 Tbps x 1 s) the four runs had taken minutes to find nothing (a probe).
    low = PERIOD_GUESS_LOW * _period_guess(wbar, g)
    if t_end * factors[-1] / 6.0 < low:
        raise ValueError(f"no limit cycle found at wbar = {_plain(wbar)}, g = {_plain(g)}: its period, ~{low:.3g} R* "
                         f"or more, exceeds what a run within the budget of {MAX_STEPS:g} steps of {dt:g} R* can show "
                         f"(three periods in the second half of {t_end * factors[-1]:.3g} R*); not integrated")
    factors = [f for f in factors if t_end * f / 6.0 >= low]
    for factor in factors:
        run = t_end * factor
        sample = sample_dt * max(1, math.ceil(run / 2 / sample_dt / MAX_CYCLE_ROWS))
        tr = _normalized_run(float(wbar), float(g), psi, run, dt, sample, run / 2)
        try:
            return limit_cycle_from_trajectory(tr["t"], tr["W"], tr["alpha"], tr["q"], wbar, g, psi, dt), run
        except ValueError as e:
            err = e
    longest = t_end * factors[-1]
    raise ValueError(f"no limit cycle found at wbar = {_plain(wbar)}, g = {_plain(g)}: fewer than three periods in the "
                     f"second half of a run of {longest:.3g} R* (the budget of {MAX_STEPS:g} steps of {dt:g} R*), so "
                     f"its period exceeds ~{longest / 6:.3g} R* ({err})")


# ---------------------------------------------------------------------------------------------
# Poincare map Jacobian Z1 Z2 and Theorem 1
# ---------------------------------------------------------------------------------------------


@dataclass
class Poincare:
    """Jacobian of the Poincare map at x_alpha (Theorem 1, Appendix A)."""

    Z1: np.ndarray
    Z2: np.ndarray
    rho: float  # spectral radius of Z1 Z2 with exact transition matrices (variational equation)
    eig: np.ndarray  # eigenvalues of Z1 Z2 (one is 0: the map lives on the plane S)
    rho_paper: float  # with the printed exp(int J_F ds) in place of the transition matrices


def _expm_small(A: np.ndarray) -> np.ndarray:
    """exp(A) for a stack of small 3x3 matrices: Taylor to 6th order (||A|| < 0.1 -> error < 1e-12)."""
    E = np.broadcast_to(np.eye(3), A.shape).copy()
    term = E.copy()
    for k in range(1, 7):
        term = term @ A / k
        E += term
    big = np.abs(A).sum(axis=-2).max(axis=-1) > 0.1
    if np.any(big):
        from scipy.linalg import expm

        E[big] = expm(A[big])
    return E


def _ordered_product(E: np.ndarray) -> np.ndarray:
    """E[n-1] @ ... @ E[1] @ E[0] by pairwise (tree) reduction, vectorized."""
    while E.shape[0] > 1:
        if E.shape[0] % 2:
            E = np.concatenate([E, np.eye(3)[None]], axis=0)
        E = E[1::2] @ E[0::2]
    return E[0]


def _transition(s: np.ndarray, X: np.ndarray, u: float, wbar: float, g: float, s0: float, s1: float):
    """State-transition matrix Phi(s1, s0) of d(dx)/ds = J_F(x*(s), u) dx along the sampled orbit,
    and int_{s0}^{s1} J_F ds.

    Exponential midpoint rule (second-order Magnus) on the sample grid of the orbit, in the scaled
    coordinates (W~/wbar, alpha~, q~) where every entry of J_F h is O(h); then scaled back.
    """
    inside = (s > s0) & (s < s1)
    ns = np.concatenate([[s0], s[inside], [s1]])
    nX = np.vstack([[np.interp(s0, s, X[:, j]) for j in range(3)], X[inside],
                    [np.interp(s1, s, X[:, j]) for j in range(3)]])
    h = np.diff(ns)
    keep = h > 0
    mid = 0.5 * (nX[:-1] + nX[1:])[keep]
    h = h[keep]
    J = _J_F_batch(mid[:, 0], mid[:, 1], mid[:, 2], u, wbar, g)
    D = np.array([wbar, 1.0, 1.0])
    A = J * h[:, None, None]
    A_hat = A * D[None, None, :] / D[None, :, None]  # D^-1 A D
    Phi_hat = _ordered_product(_expm_small(A_hat)) if len(h) else np.eye(3)
    Phi = Phi_hat * D[:, None] / D[None, :]  # D Phi_hat D^-1
    return Phi, A.sum(axis=0)


def poincare_jacobian(cycle: LimitCycle) -> Poincare:
    """Z1, Z2 and rho(Z1 Z2) of Theorem 1 for a limit cycle without queue floor (psi = None).

    Z2 = (I - F(x_beta, u_alpha) c / c F(x_beta, u_alpha)) Phi(1 + h_alpha, 0),
    Z1 = (I - F(x_alpha, u_beta) c / c F(x_alpha, u_beta)) Phi(T, 1 + h_alpha), c = [0, 0, 1],
    with u(s - 1) = 1 on [0, 1), 0 on [1, 2 + h_alpha), 1 on [2 + h_alpha, T). The paper writes
    Phi = exp(int J_F ds), exact only if the J_F(s) commute; we use the transition matrix of the
    variational equation (what the proof's eq. (39) integrates to) and report the printed form too.
    """
    if cycle.psi is not None:
        raise ValueError("poincare_jacobian needs a cycle without queue floor (psi=None), as in Theorem 1")
    s, X, wbar, g, T = cycle.s, cycle.X, cycle.wbar, cycle.g, cycle.T
    sb = 1.0 + cycle.h_alpha
    if cycle.h_alpha <= 0 or cycle.h_beta <= 0:
        raise ValueError(f"Theorem 1 needs h_alpha > 0 and h_beta > 0; got {cycle.h_alpha:g}, {cycle.h_beta:g}")
    c = np.array([0.0, 0.0, 1.0])
    pieces = [(0.0, 1.0, 1.0), (1.0, sb, 0.0), (sb, sb + 1.0, 0.0), (sb + 1.0, T, 1.0)]
    Phis, ints = [], []
    for s0, s1, u in pieces:
        P, I = _transition(s, X, u, wbar, g, s0, s1)
        Phis.append(P)
        ints.append(I)

    def salt(x: np.ndarray, u: float) -> np.ndarray:
        f = F(x, u, wbar, g)
        return np.eye(3) - np.outer(f, c) / (c @ f)

    from scipy.linalg import expm

    S_beta, S_alpha = salt(cycle.x_beta, 0.0), salt(cycle.x_alpha, 1.0)
    Z2 = S_beta @ Phis[1] @ Phis[0]
    Z1 = S_alpha @ Phis[3] @ Phis[2]
    eig = np.linalg.eigvals(Z1 @ Z2)
    Z2p = S_beta @ expm(ints[0] + ints[1])
    Z1p = S_alpha @ expm(ints[2] + ints[3])
    rho_p = float(np.max(np.abs(np.linalg.eigvals(Z1p @ Z2p))))
    return Poincare(Z1, Z2, float(np.max(np.abs(eig))), eig, rho_p)


# ---------------------------------------------------------------------------------------------
# worst-case throughput against psi (Fig. 9)
# ---------------------------------------------------------------------------------------------


def worst_case_throughput(psi: Sequence[float], g: float, wbar_grid: Sequence[float], *, dt: float = 1e-2,
                          sample_dt: float = 1e-2) -> pd.DataFrame:
    """Fig. 9: at each psi, the lowest limit-cycle throughput over wbar_grid (Section 3.3.2).

    Returns one row per psi: psi, g, throughput (fraction of C), wbar_worst, drift (max over the
    grid), floor_gap = min over the grid of Q_min + psi/(1+psi): > 0 means no cycle touches the
    floor q = 0, and then the throughput is exactly 1 (integrate (13) over a period); converged:
    every cycle of the grid is (:attr:`LimitCycle.converged`, which allows for the floor's sampling
    resolution at psi = 0).
    """
    psi = [float(p) for p in psi]
    wb = [float(w) for w in wbar_grid]
    for name, values in (("psi", psi), ("wbar_grid", wb)):  # numpy's "argmin of an empty sequence", or no rows
        if not values:
            raise ValueError(f"{name}: give at least one value")
    rows = []
    W_all = [w for _ in psi for w in wb]
    P_all = [p for p in psi for _ in wb]
    cycles = limit_cycles(W_all, [g] * len(W_all), psi=P_all, dt=dt, sample_dt=sample_dt)
    for i, p in enumerate(psi):
        cs = cycles[i * len(wb):(i + 1) * len(wb)]
        k = int(np.argmin([c.throughput for c in cs]))
        rows.append(dict(psi=p, g=g, throughput=cs[k].throughput, wbar_worst=cs[k].wbar,
                         drift=max(c.drift for c in cs), floor_gap=min(c.Q_min + p / (1 + p) for c in cs),
                         converged=all(c.converged for c in cs)))
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# everything for one link: what `dcsim theory dctcp` prints
# ---------------------------------------------------------------------------------------------

#: DCTCP's default EWMA weight g = 1/16 (Alizadeh et al. 2010; Fig. 2 of the analysis paper).
G_DEFAULT = 1.0 / 16.0


def analyze(C_bps: float, d_s: float, K_pkt: Optional[float] = None, N: float = 2, g: Optional[float] = None,
            packet_bytes: float = DEFAULT_PACKET_BYTES, cycle: bool = True) -> dict:
    """Guidelines (1)-(2), regime (Section 3.1), hybrid-model alpha* (23), rates (25), bounds (46),
    and (if ``cycle`` and wbar > 2) the limit cycle with the psi = K/(Cd) queue floor, for one link.

    Inputs must lie in the ranges of :mod:`dcsim.theory.limits` (CAPACITY, DELAY, MARKING_K,
    N_FLOWS, EWMA_G, PACKET); a value outside raises ValueError naming the argument and the range.
    Keys carry their units (``_pkt``, ``_s``, ``_per_rtt``, ``_per_s``). Hybrid-model time is in RTTs
    of R* = d + K/C (the queue stays near K), converted to seconds with R*. What could not be
    computed is None, with the reason under ``notes``:

    * the limit cycle, if the integrator finds no converged cycle (e.g. the period near wbar = 2
      grows without bound, or psi > PSI_MAX);
    * the hybrid model of Section 4 (alpha*, rates, bounds (46)) in the fixed-point regime
      wbar < 2: there the windows do not saw-tooth (W = 2, alpha = 1, eq. (15)), assumption (22)
      W_max >= 2N fails and Theorem 3's bounds (46) need W* >= 2. At wbar = 2 (within rounding,
      :func:`at_boundary`) both hold with equality and the hybrid model is given, the limit cycle
      not (it needs wbar > 2).
    """
    from dcsim.theory import limits as L

    C_bps = L.CAPACITY.check(C_bps, "C_bps")
    d_s = L.DELAY.check(d_s, "d_s")
    if K_pkt is not None:
        K_pkt = L.MARKING_K.check(K_pkt, "K_pkt")
    N = _N(L.N_FLOWS.check(N, "N"))
    if g is not None:
        g = L.EWMA_G.check(g, "g")
    packet_bytes = L.whole_bytes(packet_bytes, "packet_bytes")
    cycle = L.flag(cycle, "cycle")
    gl = guidelines(C_bps, d_s, K_pkt, packet_bytes)
    K = gl.K_pkt
    g_used = G_DEFAULT if g is None else _g(g)
    rg = regime(gl.C_pps, d_s, K, N)
    notes: dict[str, str] = {}
    out: dict = {
        "C_bps": gl.C_bps, "C_pps": gl.C_pps, "d_s": d_s, "packet_bytes": gl.packet_bytes, "Cd_pkt": gl.Cd_pkt,
        "K_guideline_pkt": gl.K_guideline_pkt, "K_pkt": K, "K_given": gl.K_given, "W_max_pkt": gl.W_max_pkt,
        "g_min": gl.g_min, "g_max": gl.g_max, "g": g_used, "g_given": g is not None, "N": N,
        "R_star_s": rg.R_star_s, "psi": rg.psi, "wbar_pkt": rg.wbar, "regime": rg.kind,
        "g_in_range": gl.g_min <= g_used <= gl.g_max, "notes": notes,
    }
    if rg.kind == "fixed point":
        out["fixed_point"] = {"W_pkt": rg.W_pkt, "alpha": rg.alpha, "q_pkt": rg.q_pkt, "rtt_s": rg.rtt_s}
        if not at_boundary(rg.wbar):
            notes["hybrid"] = ("not applicable: wbar = (Cd + K)/N < 2 pkt is the fixed-point regime (W = 2 pkt, "
                               "alpha = 1, eq. (15)); the hybrid model of Section 4 needs W_max >= 2N (22) and the "
                               "alpha* bounds (46) need W* >= 2")
            return out
        # wbar = 2: (22) and (46) hold with equality, so the hybrid model applies (a review: it had been
        # refused there); no limit cycle (wbar must exceed 2)
        notes["hybrid"] = "wbar = 2 pkt, the fixed point's boundary: (22) W_max >= 2N and (46) W* >= 2 hold with equality"
        if cycle:
            notes["limit_cycle"] = "not computed: wbar = 2 pkt is the fixed point's boundary (a cycle needs wbar > 2)"
    elif cycle:
        try:
            # K = 0 puts the floor on the marking threshold: dt = 0.01 R* is good to ~0.5 % only there
            # (limit_cycles), so that case takes 0.001 R* (the probe's case: 1.4 -> 1.7 s).
            step = 1e-3 if rg.psi == 0 else 1e-2
            c = limit_cycle(rg.wbar, g_used, psi=rg.psi, dt=step, sample_dt=step)
        except ValueError as e:
            notes["limit_cycle"] = f"not computed: {e}"
        else:
            scale = gl.C_pps * rg.R_star_s  # q = K + q~ C R*   (10)
            out["limit_cycle"] = {
                "period_s": c.T * rg.R_star_s, "period_rtt": c.T,
                "q_min_pkt": K + c.Q_min * scale, "q_max_pkt": K + c.Q_max * scale,
                "Q_min": c.Q_min, "Q_max": c.Q_max, "throughput": c.throughput, "drift": c.drift,
                "alpha_relaxation_gt": c.alpha_relaxation,
                "converged": c.converged,
            }
    W_star = rg.wbar
    a = alpha_star(W_star, g_used)
    gam = gamma_rate(W_star, a)
    beta = min(g_used, gam)
    bt = beta_tcp(W_star)
    lo, hi = alpha_star_bounds(W_star, g_used)
    out["hybrid"] = {
        "W_star_pkt": W_star, "alpha_star": a, "alpha_star_lower": lo, "alpha_star_upper": hi,
        "gamma_per_rtt": gam, "beta_dctcp_per_rtt": beta, "beta_tcp_per_rtt": bt,
        "beta_dctcp_per_s": beta / rg.R_star_s, "beta_tcp_per_s": bt / rg.R_star_s,
        "limited_by": "g (alpha convergence)" if g_used < gam else "gamma (window convergence)",
        "beta_ratio_tcp_over_dctcp": bt / beta,
        "assumptions_violated": hybrid_assumptions(N, gl.W_max_pkt, g_used),
    }
    return out
