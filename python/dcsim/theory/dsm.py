"""DSM theory: Cheng, Jiang, Zhang, Wang, Qian, Ren, "Congestion Control in Converged Ethernet with
Heterogeneous and Time-Varying Delays" (papers/dsm-converged-ethernet-delays.md).

Closed forms of the paper with their equation numbers, and the paper's discrete-time model of the
queue (eq. 9) closed by the DSM rule (eqs. 19, 22, 25) for a numerical check of convergence.

Units (one per quantity, in the names):

* ``C_bps`` link capacity, bit/s; ``frame_bytes`` the frame size that turns it into the paper's
  C in frames/s;
* ``T_s`` sampling period, s; queues and queue changes (Q_f, Q_v, q0) in bytes;
* gains ``a``, ``b``, ``c`` in 1/s (the paper quotes them and H_a, H_b, H_c as frequencies);
* rate adjustments u in bit/s (the engine's unit; the model divides by 8 to get bytes).

Where the paper's printed formulas need a reading, we say so next to the function:

* Eq. (30) as printed, a < 1/(p max(Q_f + m Q_v) + m(m+1)/2 T), adds a dimensionless term to a
  time. From (28)-(29) with C T = 1/p frames it is a < 1/(T (p max(Q_f + m Q_v) + m(m+1)/2)), with
  the queues counted in frames; likewise b < 1/(T (p max Q_v + m)). This corrected form is the
  one consistent with the paper's own c < 1/(p max(Q_f) T), with ω > m + p max(Q_v) - 1, and with
  §V: it gives §V's a -> [2/((m²+4m+2) T)]^-, b -> [2/((2m+3) T)]^-, c -> [1/T]^- exactly when
  p max(Q_f) = 1 and p max(Q_v) = 3/2, i.e. max Q_f = C T and max Q_v = 1.5 C T (100 KB and
  150 KB at 10 Gbps, 1 KB frames, p = 0.01). The paper never states these maxima; they are what its
  §V numbers imply, and they are our defaults.
* The §IV.D recurrence S2(k+1) = S2(k) + S1(k) - m Fb(k-m) is off by one sample; the direct sum
  of (25) gives S2(k+1) = S2(k) + S1(k+1) - m Fb(k-m) (the Rust CP uses that, see l2/dsm.rs).
* §V's own choice b = H_b/(2m+3) = 1818 1/s (H_b = 20 kHz, m = 4) is *below* the lower bound of
  eq. (23) even without disturbance, 1/((ω+1) T) = 2083 1/s (ω = 5, T = 80 us): the sliding-mode
  condition (20) fails in StateB (δ grows there instead of shrinking). :func:`check_parameters`
  reports it; we do not adjust the paper's numbers.
"""

from __future__ import annotations

import json
import math
import numbers
from dataclasses import asdict, dataclass
from typing import Optional

import numpy as np

from dcsim._core import engine_defaults
from dcsim.units import capacity_pps

__all__ = [
    "PAPER_FRAME_BYTES",
    "PAPER_DEFAULTS",
    "MAX_M",
    "sampling_period_s",
    "delay_bound_m",
    "h_factors",
    "gains_from_h",
    "section_v_maxima",
    "Ranges",
    "admissible_ranges",
    "u_max_bps",
    "check_parameters",
    "sliding_rule",
    "DiscreteRun",
    "simulate_discrete",
    "analyze",
]

#: The paper's frame size: §V's "1KB" packets; T = 80 us at 10 Gbps and p = 0.01 means 1000 B.
PAPER_FRAME_BYTES = 1000.0

#: §V defaults: C = 10 Gbps, q0 = 64 KB, p = 0.01, T = 80 us, loop delay 300 us, m = 4,
#: H_a = H_b = H_c = 20 kHz, omega = 5 (buffer 128 KB).
PAPER_DEFAULTS = dict(C_bps=10e9, q0_bytes=64e3, p=0.01, delay_s=300e-6, m=4, H_a_hz=20e3, H_b_hz=20e3, H_c_hz=20e3,
                      omega=5.0, frame_bytes=PAPER_FRAME_BYTES, buffer_bytes=128e3)

#: Largest delay bound m we accept, sampling periods: the Rust CP's limit (l2::dsm::MAX_M), read
#: from the engine so that the model, `dcsim theory dsm` and a scenario's l2.m state one range.
MAX_M: int = json.loads(engine_defaults())["limits"]["max_dsm_m"]


def _pos(name: str, x: float, allow_zero: bool = False) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float, np.floating, np.integer)):
        raise ValueError(f"{name} = {x!r} must be a number")
    x = float(x)
    if not math.isfinite(x) or x < 0 or (x == 0 and not allow_zero):
        raise ValueError(f"{name} = {x!r} is out of range: must be {'>= 0' if allow_zero else '> 0'} and finite")
    return x


def _p(p: float) -> float:
    p = _pos("p", p)
    if p > 1:
        raise ValueError(f"p = {p!r} is out of range: the sampling probability must satisfy 0 < p <= 1")
    return p


def _m(m: int, name: str = "m") -> int:
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or not 0 <= m <= MAX_M:
        raise ValueError(f"{name} = {m!r} is out of range: must be an integer with 0 <= {name} <= {MAX_M}")
    return int(m)


def sampling_period_s(C_bps: float, p: float, frame_bytes: float = PAPER_FRAME_BYTES) -> float:
    """Sampling period T = 1/(p C), C in frames/s (§III.A: the switch sends 1/p frames per T; §V)."""
    return 1.0 / (_p(p) * capacity_pps(C_bps, frame_bytes))


def delay_bound_m(delay_s: float, T_s: float) -> int:
    """Eq. (6): m = inf{m in N+ : m_i(k) <= m}, the smallest positive integer >= tau / T.

    A relative tolerance of 1e-9 keeps exact multiples (320 us / 80 us = 4) from rounding up.
    """
    delay_s = _pos("delay_s", delay_s, allow_zero=True)
    T_s = _pos("T_s", T_s)
    return max(1, math.ceil(delay_s / T_s * (1 - 1e-9)))


def h_factors(m: int) -> tuple[float, float, float]:
    """§V: H_a = (m² + 4m + 2) a, H_b = (2m + 3) b, H_c = 2 c; returns the three factors."""
    m = _m(m)
    return float(m * m + 4 * m + 2), float(2 * m + 3), 2.0


def gains_from_h(m: int, H_a_hz: float, H_b_hz: float, H_c_hz: float) -> tuple[float, float, float]:
    """(a, b, c) in 1/s from §V's H_a, H_b, H_c (Hz): a = H_a/(m²+4m+2), b = H_b/(2m+3), c = H_c/2."""
    fa, fb, fc = h_factors(m)
    return _pos("H_a_hz", H_a_hz) / fa, _pos("H_b_hz", H_b_hz) / fb, _pos("H_c_hz", H_c_hz) / fc


def section_v_maxima(C_bps: float, p: float, frame_bytes: float = PAPER_FRAME_BYTES) -> tuple[float, float]:
    """(max Q_f, max Q_v) in bytes implied by §V: p max Q_f = 1 and p max Q_v = 3/2 frames, i.e.
    C T and 1.5 C T (our reading: these make the corrected eq. 30/31 give §V's a, b, c bounds)."""
    T_s = sampling_period_s(C_bps, p, frame_bytes)
    CT_bytes = C_bps * T_s / 8.0
    return CT_bytes, 1.5 * CT_bytes


@dataclass(frozen=True)
class Ranges:
    """Admissible gains: lower < x < upper, in 1/s (omega dimensionless).

    ``*_max_eq23``: the sliding-mode bounds of eq. (23) (a, c < 2/T; b < 1/T).
    ``b_min_eq23``: eq. (23)'s lower bound on b without disturbance (xi = 0, constant delays):
    1/((omega+1) T); with time-varying delays the paper adds (1 + m/(omega+1)) |xi/Q̂_v|.
    ``*_max_eq31``: eq. (30)/(31) (corrected, see the module doc), from |u|max <= C (eq. 27).
    ``omega_min_eq31``: omega > m + p max(Q_v) - 1 (frames).
    ``H_*_max_hz``: the same upper bounds in §V's H form (H_a = (m²+4m+2) a, ...).
    """

    T_s: float
    m: int
    omega: float
    p_qf_max: float  # p max(Q_f), max Q_f in frames
    p_qv_max: float  # p max(Q_v)
    a_min: float
    a_max_eq23: float
    a_max_eq31: float
    b_min_eq23: float
    b_max_eq23: float
    b_max_eq31: float
    c_min: float
    c_max_eq23: float
    c_max_eq31: float
    omega_min_eq31: float
    H_a_max_hz: float
    H_b_max_hz: float
    H_c_max_hz: float

    @property
    def a_max(self) -> float:
        return min(self.a_max_eq23, self.a_max_eq31)

    @property
    def b_max(self) -> float:
        return min(self.b_max_eq23, self.b_max_eq31)

    @property
    def c_max(self) -> float:
        return min(self.c_max_eq23, self.c_max_eq31)


def admissible_ranges(C_bps: float, p: float, m: int, omega: float, qf_max_bytes: Optional[float] = None,
                      qv_max_bytes: Optional[float] = None, frame_bytes: float = PAPER_FRAME_BYTES) -> Ranges:
    """The admissible a, b, c, omega of eq. (23) (xi = 0) and eq. (30)/(31) (corrected).

    Eq. (23):  0 < a < 2/T;  1/((omega+1)T) < b < 1/T;  0 < c < 2/T.
    Eq. (31):  a < 1/(T (p max(Q_f) + m p max(Q_v) + m(m+1)/2)),  b < 1/(T (p max(Q_v) + m)),
               c < min(1/(p max(Q_f) T), 2/T),  omega > m + p max(Q_v) - 1,
    with max Q_f, max Q_v in frames (default: §V's reading, :func:`section_v_maxima`); we bound
    max(Q_f + m Q_v) by max Q_f + m max Q_v, as §V's numbers do.
    """
    m = _m(m)
    omega = _pos("omega", omega)
    T_s = sampling_period_s(C_bps, p, frame_bytes)
    d_qf, d_qv = section_v_maxima(C_bps, p, frame_bytes)
    qf = d_qf if qf_max_bytes is None else _pos("qf_max_bytes", qf_max_bytes)
    qv = d_qv if qv_max_bytes is None else _pos("qv_max_bytes", qv_max_bytes, allow_zero=True)
    pqf, pqv = p * qf / frame_bytes, p * qv / frame_bytes
    a31 = 1.0 / (T_s * (pqf + m * pqv + m * (m + 1) / 2.0))
    b31 = math.inf if pqv + m == 0 else 1.0 / (T_s * (pqv + m))
    c31 = min(1.0 / (pqf * T_s), 2.0 / T_s)
    fa, fb, fc = h_factors(m)
    a_max, b_max, c_max = min(2.0 / T_s, a31), min(1.0 / T_s, b31), min(2.0 / T_s, c31)
    return Ranges(T_s=T_s, m=m, omega=omega, p_qf_max=pqf, p_qv_max=pqv,
                  a_min=0.0, a_max_eq23=2.0 / T_s, a_max_eq31=a31,
                  b_min_eq23=1.0 / ((omega + 1.0) * T_s), b_max_eq23=1.0 / T_s, b_max_eq31=b31,
                  c_min=0.0, c_max_eq23=2.0 / T_s, c_max_eq31=c31,
                  omega_min_eq31=m + pqv - 1.0,
                  H_a_max_hz=fa * a_max, H_b_max_hz=fb * b_max, H_c_max_hz=fc * c_max)


def ranges_with_units(r: "Ranges") -> dict:
    """:class:`Ranges` as ``analyze`` reports them: each key with its unit (gains' bounds in 1/s,
    ``_per_s``; p max(Q) in frames, ``_frames``); T, H in their own units already; m, omega
    dimensionless."""
    def key(k: str) -> str:
        if k[:2] in ("a_", "b_", "c_"):
            return f"{k}_per_s"
        if k.startswith("p_q"):
            return f"{k}_frames"
        return k
    return {key(k): v for k, v in asdict(r).items()}


def u_max_bps(a: float, b: float, c: float, C_bps: float, p: float, m: int, qf_max_bytes: float, qv_max_bytes: float,
              frame_bytes: float = PAPER_FRAME_BYTES) -> dict:
    """Eq. (27)-(29): the largest one-step rate adjustment |u| (bit/s) the rule (22) can produce.

    |Q̂_f| <= max Q_f + m max Q_v + m(m+1)/2 C T and |Q̂_v| <= max Q_v + m C T (29); then
    |u| <= a |Q̂_f|max (StateA), b |Q̂_v|max (StateB), c max Q_f (StateC, the paper drops the m terms
    for c). Returns each and whether it is <= C (27).
    """
    m = _m(m)
    T_s = sampling_period_s(C_bps, p, frame_bytes)
    CT = C_bps * T_s / 8.0
    qf_hat = qf_max_bytes + m * qv_max_bytes + m * (m + 1) / 2.0 * CT
    qv_hat = qv_max_bytes + m * CT
    u = {"A": 8.0 * a * qf_hat, "B": 8.0 * b * qv_hat, "C": 8.0 * c * qf_max_bytes}
    # StateC with eq. (29)'s |Q̂_f|max, the m terms the paper drops for c kept (an audit: 136 Gbps
    # at the paper's defaults, where the paper's form gives 8 Gbps)
    u_c_m = 8.0 * c * qf_hat
    return {"qf_hat_max_bytes": qf_hat, "qv_hat_max_bytes": qv_hat, "u_max_A_bps": u["A"], "u_max_B_bps": u["B"],
            "u_max_C_bps": u["C"], "u_max_bps": max(u.values()), "ok": max(u.values()) <= C_bps * (1 + 1e-12),
            "u_max_C_with_m_terms_bps": u_c_m, "ok_with_m_terms": max(u["A"], u["B"], u_c_m) <= C_bps * (1 + 1e-12)}


def check_parameters(r: Ranges, a: float, b: float, c: float) -> dict[str, bool]:
    """Which conditions of eq. (23) (xi = 0) and eq. (31) the gains (1/s) and r.omega satisfy."""
    return {
        "a_eq23": r.a_min < a < r.a_max_eq23,
        "a_eq31": a < r.a_max_eq31,
        "b_eq23_lower": b > r.b_min_eq23,
        "b_eq23_upper": b < r.b_max_eq23,
        "b_eq31": b < r.b_max_eq31,
        "c_eq23": r.c_min < c < r.c_max_eq23,
        "c_eq31": c < r.c_max_eq31,
        "omega_eq31": r.omega > r.omega_min_eq31,
    }


def sliding_rule(qf_hat: float, qv_hat: float, a: float, b: float, c: float, omega: float) -> tuple[str, float]:
    """Eq. (22) with delta = Q̂_f + omega Q̂_v (19): (region, u) with u in the unit of Q per second.

    A: Q̂_v delta < 0 -> -a Q̂_f; B: Q̂_f delta < 0 -> -b Q̂_v; C: Q̂_f Q̂_v > 0 -> -c Q̂_f.
    Ties (the engine's reading, l2/dsm.rs): the axes belong to C, the line delta = 0 to B.
    """
    if qf_hat * qv_hat >= 0:
        return "C", -c * qf_hat
    delta = qf_hat + omega * qv_hat
    if qv_hat * delta < 0:
        return "A", -a * qf_hat
    return "B", -b * qv_hat


@dataclass
class DiscreteRun:
    """A run of the discrete-time model: one row per sampling instant k (t = k T)."""

    t_s: np.ndarray
    q_bytes: np.ndarray          # q(k)
    rate_bps: np.ndarray         # aggregate arrival rate during ((k-1)T, kT]
    qf_hat_bytes: np.ndarray     # Q̂_f(k), eq. (25)
    qv_hat_bytes: np.ndarray     # Q̂_v(k)
    u_bps: np.ndarray            # u(k) = Fb(k), eq. (24), clipped to |u| <= C (27)
    region: np.ndarray           # "A", "B" or "C"
    q0_bytes: float

    def settling_time_s(self, tol_bytes: float) -> Optional[float]:
        """First time after which |q - q0| stays <= tol_bytes to the end of the run (None if never)."""
        bad = np.nonzero(np.abs(self.q_bytes - self.q0_bytes) > tol_bytes)[0]
        if len(bad) == 0:
            return float(self.t_s[0])
        if bad[-1] == len(self.q_bytes) - 1:
            return None
        return float(self.t_s[bad[-1] + 1])


def simulate_discrete(*, C_bps: float, q0_bytes: float, p: float, m: int, a: float, b: float, c: float, omega: float,
                      delay_samples: Optional[int] = None, n_samples: int = 2000, q_init_bytes: float = 0.0,
                      rate_init_bps: Optional[float] = None, queue_floor: bool = False,
                      frame_bytes: float = PAPER_FRAME_BYTES) -> DiscreteRun:
    """Iterate the paper's model, eq. (9), closed by DSM (eqs. 19, 22, 25), for constant delays.

    Every feedback loop has the same delay of ``delay_samples`` periods (default m), so xi = 0 in
    (17) and the detector (25) predicts Q_f(k+m), Q_v(k+m) exactly when delay_samples = m. With R(k)
    the aggregate rate during ((k-1)T, kT]:

        R(k+1) = R(k) + u(k - d)        (eq. 5: one source adjusts by u, d = delay_samples)
        q(k+1) = q(k) + T (R(k+1) - C)  (eq. 7), optionally floored at 0 (``queue_floor``)
        Q_f(k) = q(k) - q0,  Q_v(k) = q(k) - q(k-1),

    so Q_v(k+d+1) - Q_v(k+d) = T u(k), eq. (9) with m = d. The controller uses its own ``m`` in
    (25) and clips |u| <= C (27), as the engine's CP does. Starts from q(0) = ``q_init_bytes`` and
    R = ``rate_init_bps`` (default C: no rate mismatch), as if that rate had been in effect before
    (Q_v(0) = T (R - C)), with no feedback in flight.
    """
    C_bps = _pos("C_bps", C_bps)
    q0_bytes = _pos("q0_bytes", q0_bytes)
    m = _m(m)
    d = m if delay_samples is None else _m(delay_samples, "delay_samples")
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or not 1 <= n_samples <= 10_000_000:
        raise ValueError(f"n_samples = {n_samples!r} is out of range: must be an integer in [1, 1e7]")
    for name, x in (("a", a), ("b", b), ("c", c), ("omega", omega)):
        _pos(name, x)
    T_s = sampling_period_s(C_bps, p, frame_bytes)
    C_Bps = C_bps / 8.0
    R = C_Bps if rate_init_bps is None else _pos("rate_init_bps", rate_init_bps, allow_zero=True) / 8.0
    q = _pos("q_init_bytes", q_init_bytes, allow_zero=True)
    q_prev = q - T_s * (R - C_Bps)  # the initial rate has been in effect: Q_v(0) = T (R(0) - C), eq. (7)
    # The controls sent, u(j) in bytes/s, in a ring: u(k - i) is at (k - i) % L. Eq. (25) needs
    # sum_{i=1..m} u(k-i) and sum_{i=1..m} i u(k-i): kept as running sums, O(1) a period, and
    # summed again exactly every m periods (rounding does not build up). With a dot product and a
    # shift of the whole history every period, 1e6 periods took 23 s and m = 1e5 was O(m) a
    # period (a probe: --delay 1s --m 100000 --samples 100000 took 16 s).
    from dcsim.theory.limits import flag

    floor = flag(queue_floor, "queue_floor")
    L = max(m, d) + 1
    ring = [0.0] * L
    s1 = sw = 0.0  # sum u(k-i), sum i u(k-i), i = 1..m (no control before k = 0)
    qs, Rs, qfs, qvs, us = ([0.0] * n_samples for _ in range(5))
    regions = [""] * n_samples
    for k in range(n_samples):
        qf, qv = q - q0_bytes, q - q_prev
        qf_hat = qf + m * qv + T_s * sw                          # eq. (25), u in bytes/s
        qv_hat = qv + T_s * s1
        region, u = sliding_rule(qf_hat, qv_hat, a, b, c, omega)
        u = min(max(u, -C_Bps), C_Bps)                           # eq. (27)
        qs[k], Rs[k], qfs[k], qvs[k], us[k], regions[k] = q, R, qf_hat, qv_hat, u, region
        if m:
            leaving = ring[(k - m) % L] if k >= m else 0.0       # u(k-m) leaves the window
            sw += s1 - (m + 1) * leaving + u                     # every i grows by 1; u(k) enters at i = 1
            s1 += u - leaving
        ring[k % L] = u
        if m and (k + 1) % m == 0:                               # exactly again: u(k+1-i), i = 1..m
            window = [ring[(k + 1 - i) % L] if k + 1 - i >= 0 else 0.0 for i in range(1, m + 1)]
            s1 = math.fsum(window)
            sw = math.fsum(i * x for i, x in enumerate(window, start=1))
        R = R + (ring[(k - d) % L] if k >= d else 0.0)           # u(k - d) arrives: R(k+1)
        q_prev, q = q, q + T_s * (R - C_Bps)
        if floor:
            q = max(q, 0.0)
    t = np.arange(n_samples) * T_s
    return DiscreteRun(t_s=t, q_bytes=np.array(qs), rate_bps=8.0 * np.array(Rs), qf_hat_bytes=np.array(qfs),
                       qv_hat_bytes=np.array(qvs), u_bps=8.0 * np.array(us), region=np.array(regions, dtype="<U1"),
                       q0_bytes=q0_bytes)


def analyze(C_bps: float, q0_bytes: float, p: float, delay_s: float, m: Optional[int] = None, *,
            omega: float = 5.0, H_a_hz: float = 20e3, H_b_hz: float = 20e3, H_c_hz: float = 20e3,
            frame_bytes: float = PAPER_FRAME_BYTES, qf_max_bytes: Optional[float] = None,
            qv_max_bytes: Optional[float] = None, simulate: bool = True, n_samples: int = 2000) -> dict:
    """Everything `dcsim theory dsm` prints: T, m (eq. 6), the ranges, the §V gains and their check,
    eq. (27), and (optionally) the discrete model's convergence to q0. Keys carry SI units.

    Inputs must lie in the ranges of :mod:`dcsim.theory.limits` that `dcsim theory dsm` checks
    (CAPACITY, DSM_QUEUE, DSM_P, DSM_DELAY, PACKET, DSM_OMEGA, DSM_H, DSM_QV_MAX, DSM_SAMPLES);
    a value outside raises ValueError naming the argument and the range."""
    from dcsim.theory import limits as L

    C_bps = L.CAPACITY.check(C_bps, "C_bps")
    q0_bytes = L.DSM_QUEUE.check(q0_bytes, "q0_bytes")
    p = L.DSM_P.check(p, "p")
    delay_s = L.DSM_DELAY.check(delay_s, "delay_s")
    frame_bytes = L.whole_bytes(frame_bytes, "frame_bytes")
    simulate = L.flag(simulate, "simulate")
    omega = L.DSM_OMEGA.check(omega, "omega")
    H_a_hz, H_b_hz, H_c_hz = (L.DSM_H.check(h, name) for h, name in ((H_a_hz, "H_a_hz"), (H_b_hz, "H_b_hz"),
                                                                     (H_c_hz, "H_c_hz")))
    qf_max_bytes = None if qf_max_bytes is None else L.DSM_QUEUE.check(qf_max_bytes, "qf_max_bytes")
    qv_max_bytes = None if qv_max_bytes is None else L.DSM_QV_MAX.check(qv_max_bytes, "qv_max_bytes")
    if isinstance(n_samples, bool) or not isinstance(n_samples, numbers.Integral):  # 2.7 is no count (a review)
        raise ValueError(f"n_samples: {n_samples!r} is not an integer; allowed an integer "
                         f"{L.DSM_SAMPLES.lo:.0f} <= n_samples <= {L.DSM_SAMPLES.hi:.0f}")
    n_samples = int(L.DSM_SAMPLES.check(n_samples, "n_samples"))
    T_s = sampling_period_s(C_bps, p, frame_bytes)
    m_delay = delay_bound_m(delay_s, T_s)
    if m_delay > MAX_M:
        raise ValueError(f"delay_s = {delay_s!r} is {delay_s / T_s:.4g} sampling periods; allowed at most m = {MAX_M}")
    m_used = m_delay if m is None else _m(m)
    d_qf, d_qv = section_v_maxima(C_bps, p, frame_bytes)
    qf = d_qf if qf_max_bytes is None else qf_max_bytes
    qv = d_qv if qv_max_bytes is None else qv_max_bytes
    r = admissible_ranges(C_bps, p, m_used, omega, qf, qv, frame_bytes)
    a, b, c = gains_from_h(m_used, H_a_hz, H_b_hz, H_c_hz)
    checks = check_parameters(r, a, b, c)
    res = {
        "C_bps": C_bps, "q0_bytes": q0_bytes, "p": p, "frame_bytes": frame_bytes, "delay_s": delay_s,
        "T_s": T_s, "two_over_T_hz": 2.0 / T_s, "m_from_delay": m_delay, "m": m_used, "m_given": m is not None,
        "m_below_delay_bound": m_used < m_delay, "qf_max_bytes": qf, "qv_max_bytes": qv,
        "qf_qv_max_source": "given" if (qf_max_bytes is not None or qv_max_bytes is not None) else "section V reading",
        "ranges": ranges_with_units(r), "H_a_hz": H_a_hz, "H_b_hz": H_b_hz, "H_c_hz": H_c_hz,
        "a_per_s": a, "b_per_s": b, "c_per_s": c, "omega": omega, "checks": checks,
        # every condition, and m covering the loop delay (it had said true with m below the bound)
        "all_ok": all(checks.values()) and m_used >= m_delay,
        "eq27": u_max_bps(a, b, c, C_bps, p, m_used, qf, qv, frame_bytes),
    }
    if simulate:
        run = simulate_discrete(C_bps=C_bps, q0_bytes=q0_bytes, p=p, m=m_used, a=a, b=b, c=c, omega=omega,
                                delay_samples=m_delay, n_samples=n_samples, frame_bytes=frame_bytes)
        tail = run.q_bytes[-max(1, n_samples // 10):]
        res["simulation"] = {
            "n_samples": n_samples, "duration_s": n_samples * T_s, "delay_samples": m_delay,
            "q_final_bytes": float(run.q_bytes[-1]),
            "tail_max_abs_error_bytes": float(np.max(np.abs(tail - q0_bytes))),
            "settling_time_1pct_s": run.settling_time_s(0.01 * q0_bytes),
            "q_max_bytes": float(np.max(run.q_bytes)), "q_min_bytes": float(np.min(run.q_bytes)),
            # Eq. (7) as the paper writes it, not floored at 0: below 0 the model has left what a
            # queue can do (an empty queue drains no further), so its settling is not the network's.
            "queue_floor": False, "q_below_zero": bool(np.min(run.q_bytes) < 0),
        }
    return res
