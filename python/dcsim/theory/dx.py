"""DX fluid-model theory: equilibrium, linearization, Theorem 1 delay bound, Theorem 2 special state.

Paper: W. Jiang, L. Peng, C. Ruan, J. Wu, J. Wang, "Modeling and Analysis of the Latency-Based
Congestion Control Algorithm DX" (../shared/papers/dx-fluid-model-analysis.md).

The fluid model, eqs. (3)-(4), with W(t) the window, Q(t) the queueing *delay* (seconds), R0 the
base RTT, tau the feedback delay, p the (constant) probability that Q > 0, C the link capacity,
N the number of flows and seg one segment::

    dW/dt = seg(1-p) / (R0 + Q(t-tau)) - p Q(t-tau) (W - seg) / (R0 (R0 + Q(t-tau)))      (3)
    dQ/dt = N W / (C (R0 + Q(t-tau))) - 1        (floored at Q = 0)                         (4)

Units.  In (4) ``N W / C`` is a time, so W and seg are in the unit of C times seconds.  We keep
C in bit/s and W, seg in **bits** (seg = 8 * seg_bytes = 12000 bit for the paper's "seg = 1500").
The paper's "1500" is bytes: only with seg = 1500 B = 12000 bit does Theorem 2 give its quoted
N >= 67 at R0 = 80 us (C R0 / seg = 8e5 bit / 12000 bit = 66.7); reading "1500" as bits against
C in bit/s would give N >= 533.  Windows are reported in packets (W / seg) as well.

Corrections to the printed formulas (each checked numerically; see ``critical_delay_numerical``):

* Eq. (15) and hence Theorem 1, eq. (17), have the wrong sign on the phase of the zero
  ``(a1 b2 - a2 b1) - b2 s`` of the open-loop transfer function (12).  Because b2 < 0 and
  k = a1 b2 - a2 b1 > 0 at every equilibrium, that zero lies in the left half plane and gives phase
  *lead* +arctan(omega |b2| / k); the paper's ``arctan(omega b2 / k)`` is a lag.  As printed, (17)
  is negative at the paper's default point (N = 50, C = 10 Gbps, R0 = 80 us, p = 0.95:
  -89.2 us), i.e. it would certify no delay at all; the corrected bound is 105.05 us and coincides
  with the delay at which the rightmost root of the characteristic equation
  ``s^2 - a1 s - e^{-s tau} (b2 s - k) = 0`` crosses the imaginary axis.
* "Which delay": Theorem 1 bounds the feedback delay tau of the model.  The paper's numerical
  thresholds (N > 42 at R0 = 120 us, R0 < 145 us at N = 50, N > 140 at R0 = 400 us) are matched
  within 1.5 % by the corrected bound with tau = R0 (the base RTT: 41.55, 144.4 us, 138.5), not by
  the equilibrium RTT R0 + Q0 (46.8, 128 us, 156).  How close is close enough is the claims
  table's rule, stated in each row of `dcsim reproduce dx-thresholds` (p read to its printed digits,
  round numbers read to tens), which decides the verdicts.  We use tau = R0 by default and offer ``tau="R0+Q0"``.
* Scale invariance: with tau = R0 the stability margin depends on N, C, R0 and seg only through
  x = N seg / (C R0), so every stability threshold has the form N* = x*(p) C R0 / seg, linear in R0.
  The paper's quoted "N > 30 at R0 = 80 us" and "N > 50 at R0 = 200 us" fit that line loosely (its
  own 42 at 120 us and 140 at 400 us fit it closely); we get N > 27.7 and N > 69.3, and the claims
  table judges each quoted number by the rule its row states.
* p = 0.95 is the paper's average of Table 1; the special stable state of Theorem 2 is the p -> 1
  limit of the equilibrium (7) (with p = 1, (7) gives exactly Q* = (N seg - C R0)/C), whereas with
  p = 0.95 the model keeps a small additive increase and (7) gives a larger Q0.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Callable, Optional

import numpy as np
from scipy.linalg import eigvals
from scipy.optimize import brentq

from dcsim.units import capacity_pps, fmt_rate, fmt_time

__all__ = [
    "DXEquilibrium",
    "DXLinearization",
    "Theorem1",
    "SpecialState",
    "equilibrium",
    "linearization",
    "crossover_frequency",
    "phase",
    "phase_paper",
    "tau_bound",
    "tau_bound_paper",
    "characteristic",
    "rightmost_root",
    "rightmost_root_dde",
    "critical_delay_numerical",
    "theorem1",
    "stability_threshold_N",
    "stability_threshold_R0",
    "special_state",
    "special_state_threshold_N",
    "special_state_max_R0",
    "analyze",
    "DEFAULT_P",
    "DEFAULT_SEG_BYTES",
]

#: The paper's constant probability of Q > 0 (Section 4.1: "the average value 0.95").
DEFAULT_P = 0.95
#: The paper's segment size "seg = 1500" (bytes; see the module docstring).
DEFAULT_SEG_BYTES = 1500.0

_TAU_MODES = ("R0", "R0+Q0")


# ----------------------------------------------------------------------------------- validation


def _check_positive(name: str, value: float, unit: str) -> float:
    if isinstance(value, (str, bytes, bool)):  # "100" was read as 100 (an API audit)
        raise ValueError(f"{name}: expected a number in {unit}, got {value!r}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected a number in {unit}, got {value!r}") from None
    if not math.isfinite(v) or v <= 0:
        raise ValueError(f"{name}: must be finite and > 0 ({unit}), got {v:g}")
    return v


def _check_p(p: float, *, allow_one: bool) -> float:
    try:
        v = float(p)
    except (TypeError, ValueError):
        raise ValueError(f"p: expected a probability, got {p!r}") from None
    hi_ok = v <= 1 if allow_one else v < 1
    if not (math.isfinite(v) and v > 0 and hi_ok):
        rng = "0 < p <= 1" if allow_one else "0 < p < 1"
        raise ValueError(f"p: probability of Q > 0 must satisfy {rng}, got {v:g}")
    return v


def _flows(N: float) -> float:
    """N of a public function: a number of flows, 1 <= N <= 1e6 (real: the model treats it as a
    parameter; ``limits.N_FLOWS``, as :func:`special_state` and :func:`analyze`). Only the search for
    the threshold N* (:func:`stability_threshold_N`) evaluates the model below one flow."""
    from dcsim.theory import limits as L

    return L.N_FLOWS.check(N, "N")


def _check_tau_mode(tau: str) -> str:
    if tau not in _TAU_MODES:
        raise ValueError(f"tau: which delay Theorem 1 bounds; allowed {_TAU_MODES}, got {tau!r}")
    return tau


def _inputs(eq: "DXEquilibrium") -> str:
    return (f"N = {eq.N:g} flows, C = {fmt_rate(eq.C_bps)}, R0 = {fmt_time(eq.R0_s)}, p = {eq.p:g}, "
            f"seg = {eq.seg_bits / 8:g} B")


def _representable(what: str, eq: "DXEquilibrium", **values: float) -> None:
    """Raise ValueError (naming the inputs) if a derived quantity overflowed or is NaN."""
    for k, v in values.items():
        if not math.isfinite(v):
            raise ValueError(f"{what}: {k} = {v:g} is not representable in double precision at {_inputs(eq)}; "
                             "use inputs within the documented ranges (dcsim.theory.limits)")


def _domain_errors(fn):
    """Public functions: an overflow or a division by zero in double precision (inputs far outside the
    ranges of dcsim.theory.limits, e.g. C = 1e300 bit/s) becomes a ValueError naming the inputs."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (OverflowError, ZeroDivisionError) as e:
            shown = ", ".join([_show(a) for a in args] + [f"{k}={_show(v)}" for k, v in kwargs.items()])
            raise ValueError(f"{fn.__name__}({shown}): not representable in double precision ({e}); use inputs "
                             "within the documented ranges (dcsim.theory.limits)") from None

    return wrapper


def _show(x) -> str:
    return f"{x:g}" if isinstance(x, (int, float)) and not isinstance(x, bool) else type(x).__name__


# ---------------------------------------------------------------------------- equilibrium (5)-(8)


@dataclass(frozen=True)
class DXEquilibrium:
    """Equilibrium (W0, Q0) of eqs. (5)-(8). SI units: seconds, bit/s, bits."""

    N: float
    C_bps: float
    R0_s: float
    p: float
    seg_bits: float
    Delta: float  # eq. (8), bit^2
    Q0_s: float  # eq. (7): equilibrium queueing delay
    W0_bits: float  # eq. (6): W0 = C (R0 + Q0) / N

    @property
    def W0_pkt(self) -> float:
        """Equilibrium window in segments."""
        return self.W0_bits / self.seg_bits

    @property
    def q0_pkt(self) -> float:
        """Equilibrium queue length in segments: Q0 C / seg."""
        return self.Q0_s * self.C_bps / self.seg_bits

    @property
    def rtt_s(self) -> float:
        """Equilibrium RTT R0 + Q0 (s)."""
        return self.R0_s + self.Q0_s

    @property
    def x(self) -> float:
        """Load ratio x = N seg / (C R0): aggregate one-segment rate over C; x >= 1 is Theorem 2."""
        return self.N * self.seg_bits / (self.C_bps * self.R0_s)


@_domain_errors
def equilibrium(N: float, C_bps: float, R0_s: float, p: float = DEFAULT_P,
                seg_bytes: float = DEFAULT_SEG_BYTES) -> DXEquilibrium:
    """Equilibrium of the DX fluid model: Q0 by eq. (7) with Delta by eq. (8), W0 by eq. (6).

    (5): seg R0 (1-p) = p Q0 (W0 - seg);  (6): N W0 = C (R0 + Q0). N >= 1 flows (:func:`_flows`);
    C_bps and R0_s within :mod:`dcsim.theory.limits`' CAPACITY and DELAY, as :func:`analyze` takes
    them (R0_s = 80 was taken as 80 s: a review).
    """
    from dcsim.theory import limits as L

    return _equilibrium(_flows(N), L.CAPACITY.check(C_bps, "C_bps"), L.DELAY.check(R0_s, "R0_s"), p, seg_bytes)


def _equilibrium(N: float, C_bps: float, R0_s: float, p: float, seg_bytes: float) -> DXEquilibrium:
    """:func:`equilibrium` at any real N > 0."""
    N = _check_positive("N", N, "flows")
    C = _check_positive("C_bps", C_bps, "bit/s")
    R0 = _check_positive("R0_s", R0_s, "seconds")
    p = _check_p(p, allow_one=True)
    seg = 8.0 * _check_positive("seg_bytes", seg_bytes, "bytes")
    Delta = (C * p * R0 - p * N * seg) ** 2 + 4.0 * C * p * N * R0 * seg * (1.0 - p)  # (8)
    # (7) is the positive root of p C Q^2 + p (C R0 - N seg) Q - N seg R0 (1 - p) = 0. Where
    # C R0 > N seg the printed form subtracts two nearly equal numbers (all digits lost for few
    # flows on a fast link), so we use the equivalent 2c / (-b + sqrt(Delta)) there.
    b = p * (N * seg - C * R0)
    if b >= 0:
        Q0 = (b + math.sqrt(Delta)) / (2.0 * C * p)  # (7) as printed
    else:
        Q0 = 2.0 * N * seg * R0 * (1.0 - p) / (math.sqrt(Delta) - b)  # (7), rationalized
    W0 = C * (R0 + Q0) / N  # (6)
    eq = DXEquilibrium(N, C, R0, p, seg, Delta, Q0, W0)
    _representable("equilibrium (7)", eq, Q0=Q0, W0=W0, Delta=Delta)
    if not Q0 > 0 and p < 1:
        raise ValueError(f"equilibrium (7): Q0 = {Q0:g} s underflows to 0 at {_inputs(eq)}; "
                         "use inputs within the documented ranges (dcsim.theory.limits)")
    return eq


# ------------------------------------------------------------------------ linearization (9)-(11)


@dataclass(frozen=True)
class DXLinearization:
    """Coefficients of the linearized model (9), eq. (11), with W in bits and Q in seconds.

    dW' = a1 dW + a2 dQ(t - tau);  dQ' = b1 dW + b2 dQ(t - tau).
    a1 [1/s], a2 [bit/s^2], b1 [1/bit], b2 [1/s].
    """

    a1: float
    a2: float
    b1: float
    b2: float

    @property
    def k(self) -> float:
        """k = a1 b2 - a2 b1 [1/s^2]: the constant of the zero of G(s), eq. (12)."""
        return self.a1 * self.b2 - self.a2 * self.b1


@_domain_errors
def linearization(eq: DXEquilibrium) -> DXLinearization:
    """Eq. (11): partial derivatives of (3)-(4) at (W0, Q0)."""
    R0, Q0, W0, p, seg = eq.R0_s, eq.Q0_s, eq.W0_bits, eq.p, eq.seg_bits
    a1 = -Q0 * p / (R0 * (R0 + Q0))
    a2 = (2.0 * p * seg - p * W0 - seg) / (Q0 + R0) ** 2
    b1 = eq.N / (eq.C_bps * (R0 + Q0))
    b2 = -eq.N * W0 / (eq.C_bps * (R0 + Q0) ** 2)
    lin = DXLinearization(a1, a2, b1, b2)
    _representable("linearization (11)", eq, a1=a1, a2=a2, b1=b1, b2=b2, k=lin.k)
    # Theorem 1's phase argument needs a1 < 0, b2 < 0 and k = a1 b2 - a2 b1 > 0 (true at every
    # equilibrium with 0 < p < 1); an underflow to 0 would divide by zero in (17).
    if p == 1 and Q0 == 0:  # N seg <= C R0: (7) gives no queue at p = 1, and a1 = 0 exactly (a review)
        raise ValueError(f"linearization (11): at p = 1 with N seg <= C R0 the equilibrium has no queue (Q0 = 0: windows "
                         f"of W0 = {W0 / seg:.4g} segments fill the pipe exactly) and (11) is degenerate (a1 = 0); Theorem 1 "
                         f"needs p < 1, or N > C R0 / seg = {eq.C_bps * R0 / seg:.4g} at {_inputs(eq)}")
    if not (a1 < 0 and b2 < 0 and lin.k > 0):
        raise ValueError(f"linearization (11): a1 = {a1:g} 1/s, b2 = {b2:g} 1/s, k = {lin.k:g} 1/s^2 at {_inputs(eq)}; "
                         "Theorem 1 needs a1 < 0, b2 < 0, k > 0 (lost to underflow?); use inputs within the "
                         "documented ranges (dcsim.theory.limits)")
    return lin


@_domain_errors
def crossover_frequency(lin: DXLinearization) -> float:
    """Eq. (16): omega_c (rad/s), the unique omega > 0 with |G(j omega)| = 1, |G|^2 from (14)."""
    a1, b2, k = lin.a1, lin.b2, lin.k
    B = b2**2 - a1**2
    root = math.hypot(B, 2.0 * k)
    # (16) as printed where B >= 0; where B < 0 the same root as 2 k^2 / (root - B), which does not
    # cancel when |a1| >> |b2|, k (many flows: x = N seg/(C R0) >> 1)
    wc2 = (B + root) / 2.0 if B >= 0 else 2.0 * k**2 / (root - B)
    return math.sqrt(wc2)


def phase(lin: DXLinearization, omega: float, tau_s: float) -> float:
    """Phase of G(j omega), eq. (12), computed correctly (rad, continuous, not wrapped).

    arg G = -pi/2 - omega tau + arctan(omega / a1) + arctan(-omega b2 / k)    (a1 < 0, b2 < 0, k > 0).
    Eq. (15) prints +arctan(omega b2 / k): wrong sign for the left-half-plane zero s = k / b2.
    """
    return -math.pi / 2 - omega * tau_s + math.atan(omega / lin.a1) + math.atan(-omega * lin.b2 / lin.k)


def phase_paper(lin: DXLinearization, omega: float, tau_s: float) -> float:
    """Eq. (15) exactly as printed (wrong sign on the last arctan; kept to quantify the error)."""
    return -math.pi / 2 - omega * tau_s + math.atan(omega / lin.a1) + math.atan(omega * lin.b2 / lin.k)


@_domain_errors
def tau_bound(lin: DXLinearization) -> float:
    """Theorem 1, eq. (17), corrected: tau < (pi/2 + arctan(wc/a1) + arctan(-wc b2/k)) / wc (seconds).

    This is the exact delay margin of (9): the smallest tau at which phase(wc, tau) = -pi, i.e. at
    which a pair of roots of the characteristic equation reaches the imaginary axis at +-j wc.
    """
    wc = crossover_frequency(lin)
    return (math.atan(wc / lin.a1) + math.atan(-wc * lin.b2 / lin.k) + math.pi / 2) / wc


@_domain_errors
def tau_bound_paper(lin: DXLinearization) -> float:
    """Theorem 1, eq. (17) exactly as printed (seconds); negative over most of the paper's range."""
    wc = crossover_frequency(lin)
    return (math.atan(wc / lin.a1) + math.atan(wc * lin.b2 / lin.k) + math.pi / 2) / wc


# ------------------------------------------------- independent check: roots of the characteristic eq.


def characteristic(s: complex, lin: DXLinearization, tau_s: float) -> complex:
    """det(sI - A0 - A1 e^{-s tau}) of (9) = s^2 - a1 s - e^{-s tau} (b2 s - k) (1 + G(s) = 0, (12))."""
    e = np.exp(-s * tau_s)
    return s * s - lin.a1 * s - e * (lin.b2 * s - lin.k)


def _cheb(M: int) -> tuple[np.ndarray, np.ndarray]:
    """Chebyshev points x_j = cos(j pi / M) and differentiation matrix (Trefethen, Spectral Methods in MATLAB)."""
    x = np.cos(np.pi * np.arange(M + 1) / M)
    c = np.ones(M + 1)
    c[0] = c[-1] = 2.0
    c *= (-1.0) ** np.arange(M + 1)
    X = np.tile(x, (M + 1, 1)).T
    dX = X - X.T
    D = np.outer(c, 1.0 / c) / (dX + np.eye(M + 1))
    D -= np.diag(D.sum(axis=1))
    return x, D


def rightmost_root_dde(A0: np.ndarray, A1: np.ndarray, tau_s: float, M: int = 40,
                       newton: Optional[Callable[[complex], tuple[complex, complex]]] = None) -> complex:
    """Rightmost characteristic root of x'(t) = A0 x(t) + A1 x(t - tau).

    Method: Chebyshev collocation of the infinitesimal generator of the solution semigroup
    (Breda, Maset, Vermiglio, SIAM J. Sci. Comput. 27 (2005)) on M+1 nodes of [-tau, 0]; its
    eigenvalues converge spectrally to the characteristic roots.  The rightmost one is then polished
    by Newton's method on det(sI - A0 - A1 e^{-s tau}) (``newton(s) -> (h, h')`` if given).
    Independent of the Bode/phase argument of Theorem 1.
    """
    A0 = np.atleast_2d(np.asarray(A0, float))
    A1 = np.atleast_2d(np.asarray(A1, float))
    d = A0.shape[0]
    x, D = _cheb(M)  # theta_j = tau (x_j - 1) / 2: theta_0 = 0, theta_M = -tau
    G = np.kron((2.0 / tau_s) * D, np.eye(d))
    G[:d, :] = 0.0
    G[:d, :d] = A0
    G[:d, M * d:] = A1
    lam = eigvals(G)
    # Only eigenvalues with |lambda| tau < M are resolved by M+1 nodes; the rest are collocation
    # artefacts (large modulus), never the rightmost characteristic root of a stable-at-zero system.
    lam = lam[np.abs(lam) * tau_s < M]
    s0 = complex(lam[np.argmax(lam.real)])
    if newton is None:
        return s0
    s = s0
    for _ in range(50):
        h, dh = newton(s)
        if dh == 0:
            break
        step = h / dh
        s -= step
        if abs(step) <= 1e-14 * max(1.0, abs(s)):
            break
    # Keep the polished root only if Newton stayed on the same root.
    return s if abs(s - s0) <= 1e-3 * max(abs(s0), 1.0 / tau_s) else s0


@_domain_errors
def rightmost_root(lin: DXLinearization, tau_s: float, M: int = 40) -> complex:
    """Rightmost root (1/s) of the characteristic equation of (9) at feedback delay tau_s."""
    tau_s = _check_positive("tau_s", tau_s, "seconds")
    A0 = np.array([[lin.a1, 0.0], [lin.b1, 0.0]])
    A1 = np.array([[0.0, lin.a2], [0.0, lin.b2]])

    def newton(s: complex) -> tuple[complex, complex]:
        e = np.exp(-s * tau_s)
        h = s * s - lin.a1 * s - e * (lin.b2 * s - lin.k)
        dh = 2 * s - lin.a1 + tau_s * e * (lin.b2 * s - lin.k) - e * lin.b2
        return h, dh

    return rightmost_root_dde(A0, A1, tau_s, M=M, newton=newton)


@_domain_errors
def critical_delay_numerical(lin: DXLinearization, tau_scale_s: float, M: int = 40) -> float:
    """Smallest tau (s) at which the rightmost root of (9) reaches Re s = 0; independent of (16)-(17).

    At tau = 0 the characteristic polynomial s^2 - (a1 + b2) s + k is Hurwitz (a1, b2 < 0 < k), and
    |G(j omega)| of (12) falls from infinity to 0, so a finite critical delay always exists. We step
    from ``tau_scale_s`` (e.g. R0; it only sets where the search starts) by factors of 2, down while
    the system is unstable and up while it is stable (at most 2^60 either way), then bisect (brentq)
    on Re s_max(tau) between the last stable and the first unstable delay.
    """
    tau_scale_s = _check_positive("tau_scale_s", tau_scale_s, "seconds")

    def re(tau: float) -> float:
        return rightmost_root(lin, tau, M=M).real

    tau = tau_scale_s
    unstable = re(tau) > 0
    for _ in range(60):
        nxt = tau / 2.0 if unstable else tau * 2.0
        if (re(nxt) > 0) != unstable:
            lo, hi = (nxt, tau) if unstable else (tau, nxt)
            return brentq(re, lo, hi, xtol=1e-15 * lo, rtol=1e-12)
        tau = nxt
    raise ValueError(f"critical delay of (9): Re s_max keeps one sign for tau from {tau_scale_s:g} s "
                     f"{'down' if unstable else 'up'} to {tau:g} s; the characteristic-root search failed "
                     f"(a1 = {lin.a1:g} 1/s, b2 = {lin.b2:g} 1/s, k = {lin.k:g} 1/s^2)")


# ------------------------------------------------------------------------------------- Theorem 1


@dataclass(frozen=True)
class Theorem1:
    """Theorem 1 evaluated at one operating point (seconds, rad/s)."""

    omega_c_rad_s: float  # eq. (16)
    tau_bound_s: float  # eq. (17), corrected phase sign
    tau_bound_paper_s: float  # eq. (17) as printed
    tau_s: float  # the delay that is bounded (R0 or R0 + Q0)
    tau_mode: str
    stable: bool  # tau < tau_bound_s

    def as_dict(self) -> dict:
        return asdict(self)


@_domain_errors
def theorem1(N: float, C_bps: float, R0_s: float, p: float = DEFAULT_P, seg_bytes: float = DEFAULT_SEG_BYTES,
             tau: str = "R0") -> Theorem1:
    """Theorem 1 (eq. 17, corrected) at (N, C, R0, p, seg) with tau = R0 (default) or R0 + Q0.
    N >= 1 flows (:func:`_flows`)."""
    return _theorem1(_flows(N), C_bps, R0_s, p, seg_bytes, tau)


def _theorem1(N: float, C_bps: float, R0_s: float, p: float, seg_bytes: float, tau: str) -> Theorem1:
    """:func:`theorem1` at any real N > 0."""
    _check_tau_mode(tau)
    _check_p(p, allow_one=False)
    eq = _equilibrium(N, C_bps, R0_s, p, seg_bytes)
    lin = linearization(eq)
    wc = crossover_frequency(lin)
    tb = tau_bound(lin)
    tau_s = eq.R0_s if tau == "R0" else eq.rtt_s
    return Theorem1(wc, tb, tau_bound_paper(lin), tau_s, tau, tau_s < tb)


def _margin(N: float, C_bps: float, R0_s: float, p: float, seg_bytes: float, tau: str) -> float:
    t = _theorem1(N, C_bps, R0_s, p, seg_bytes, tau)  # the N* search evaluates N < 1 too
    return t.tau_bound_s - t.tau_s


@_domain_errors
def stability_threshold_N(C_bps: float, R0_s: float, p: float = DEFAULT_P, seg_bytes: float = DEFAULT_SEG_BYTES,
                          tau: str = "R0") -> float:
    """Smallest N (real) above which Theorem 1 (corrected) certifies stability at this C, R0.

    Solves tau_bound(N) = tau(N) by brentq on N in [1e-3, 1] x C R0 / seg (the special state
    of Theorem 2 begins at x = N seg / (C R0) = 1).
    """
    C = _check_positive("C_bps", C_bps, "bit/s")
    R0 = _check_positive("R0_s", R0_s, "seconds")
    n1 = capacity_pps(C, _check_positive("seg_bytes", seg_bytes, "bytes")) * R0
    f = lambda N: _margin(N, C, R0, p, seg_bytes, tau)  # noqa: E731
    lo, hi = 1e-3 * n1, n1
    flo, fhi = f(lo), f(hi)
    if flo >= 0 or fhi <= 0:
        what = "certified stable at both ends" if flo >= 0 and fhi > 0 else "not certified stable at N = C R0/seg"
        raise ValueError(f"no stability threshold for N in [{lo:g}, {hi:g}] flows (p={p}, tau={tau}): {what}")
    return brentq(f, lo, hi, xtol=1e-10 * n1, rtol=1e-12)


@_domain_errors
def stability_threshold_R0(N: float, C_bps: float, p: float = DEFAULT_P, seg_bytes: float = DEFAULT_SEG_BYTES,
                           tau: str = "R0") -> float:
    """Largest base RTT R0 (s) below which Theorem 1 (corrected) certifies stability at this N, C.

    Solves tau_bound(R0) = tau(R0) by brentq on R0 in [1, 1e3] x N seg / C. N >= 1 flows.
    """
    N = _flows(N)
    C = _check_positive("C_bps", C_bps, "bit/s")
    r1 = N * 8.0 * _check_positive("seg_bytes", seg_bytes, "bytes") / C
    f = lambda R0: _margin(N, C, R0, p, seg_bytes, tau)  # noqa: E731
    lo, hi = r1, 1e3 * r1
    flo, fhi = f(lo), f(hi)
    if flo <= 0 or fhi >= 0:
        what = "not certified stable at R0 = N seg/C" if flo <= 0 else "certified stable up to 1000 N seg/C"
        raise ValueError(f"no stability threshold for R0 in [{lo:g}, {hi:g}] s (p={p}, tau={tau}): {what}")
    return brentq(f, lo, hi, xtol=1e-12 * r1, rtol=1e-12)


# ------------------------------------------------------------------------------------- Theorem 2


@_domain_errors
def special_state_threshold_N(C_bps: float, R0_s: float, seg_bytes: float = DEFAULT_SEG_BYTES) -> float:
    """Theorem 2: the special stable state holds for N >= C R0 / seg (real number; flows)."""
    C = _check_positive("C_bps", C_bps, "bit/s")
    R0 = _check_positive("R0_s", R0_s, "seconds")
    return capacity_pps(C, _check_positive("seg_bytes", seg_bytes, "bytes")) * R0


@_domain_errors
def special_state_max_R0(N: float, C_bps: float, seg_bytes: float = DEFAULT_SEG_BYTES) -> float:
    """Theorem 2 solved for R0: the special stable state holds for R0 <= N seg / C (seconds). N >= 1 flows."""
    N = _flows(N)
    C = _check_positive("C_bps", C_bps, "bit/s")
    return N * 8.0 * _check_positive("seg_bytes", seg_bytes, "bytes") / C


@dataclass(frozen=True)
class SpecialState:
    """Theorem 2 at one operating point: threshold and fixed point (W*, Q*)."""

    N_threshold: float  # C R0 / seg (flows)
    R0_max_s: float  # N seg / C
    active: bool  # N >= C R0 / seg
    W_star_pkt: float  # W* = seg = 1 segment
    # Q* = (N seg - C R0) / C; negative when not active: no such state, and by how much the flows
    # fall short of it (the experiments tabulate it signed).
    Q_star_s: float
    q_star_pkt: float  # Q* C / seg = N - C R0 / seg  (segments queued; negative when not active)

    def as_dict(self) -> dict:
        return asdict(self)


@_domain_errors
def special_state(N: float, C_bps: float, R0_s: float, seg_bytes: float = DEFAULT_SEG_BYTES) -> SpecialState:
    """Theorem 2: threshold N >= C R0/seg and fixed point W* = seg, Q* = (N seg - C R0)/C (Sect. 3.3).

    Q* is negative when the state does not hold (``active`` False): no such state, and by how much
    the flows fall short of it. Inputs in the ranges of :func:`analyze` (an R0 given in
    microseconds, 80 for 80e-6, is refused: 80 s is out of range)."""
    from dcsim.theory import limits as L

    N = L.N_FLOWS.check(N, "N")
    C_bps = L.CAPACITY.check(C_bps, "C_bps")
    R0_s = L.DELAY.check(R0_s, "R0_s")
    seg_bytes = L.PACKET.check(seg_bytes, "seg_bytes")
    n_thr = special_state_threshold_N(C_bps, R0_s, seg_bytes)
    seg = 8.0 * float(seg_bytes)
    Q_star = (N * seg - C_bps * R0_s) / C_bps
    active = N >= n_thr * (1.0 - 1e-12)  # N = C R0/seg exactly (e.g. 100 at 120 us) must not fail on rounding
    if active and Q_star < 0:  # at the threshold, up to rounding: no queue (a probe saw Q* = -1.2e-20 s)
        Q_star = 0.0
    return SpecialState(n_thr, special_state_max_R0(N, C_bps, seg_bytes), active, 1.0, Q_star,
                        Q_star * C_bps / seg)


# ------------------------------------------------------------------------------------ one report


def analyze(N: float, C_bps: float, R0_s: float, p: float = DEFAULT_P, seg_bytes: float = DEFAULT_SEG_BYTES) -> dict:
    """Everything ``dcsim theory dx`` prints: equilibrium (5)-(8), linearization (11), omega_c (16),
    Theorem 1 (17) printed / corrected / numerical, stability thresholds, Theorem 2. Keys carry units.

    Inputs must lie in the ranges of :mod:`dcsim.theory.limits` (N_FLOWS, CAPACITY, DELAY, PROB_P,
    PACKET); a value outside raises ValueError naming the argument and the range. A threshold or
    the numerical check that cannot be found is reported as None with the reason under ``notes``.
    """
    from dcsim.theory import limits as L

    N = L.N_FLOWS.check(N, "N")
    C_bps = L.CAPACITY.check(C_bps, "C_bps")
    R0_s = L.DELAY.check(R0_s, "R0_s")
    p = L.PROB_P.check(p, "p")
    seg_bytes = L.whole_bytes(seg_bytes, "seg_bytes")
    eq = equilibrium(N, C_bps, R0_s, p, seg_bytes)
    lin = linearization(eq)
    t1 = theorem1(N, C_bps, R0_s, p, seg_bytes, tau="R0")
    ss = special_state(N, C_bps, R0_s, seg_bytes)
    notes: dict[str, str] = {}

    def attempt(key, fn, *args):
        try:
            return fn(*args)
        except ValueError as e:  # no sign change in the bracket, or no root found: say why
            notes[key] = str(e)
            return None

    tn = attempt("tau_critical_numerical_s", critical_delay_numerical, lin, R0_s)
    if ss.active:
        notes["theorem2"] = (f"W* = 1 segment and Q* are the p -> 1 limit of the equilibrium (7); with p = {p:g} the "
                             f"fluid model (3)-(4) settles at (7) instead (Q0, W0 above: (5) puts W0 above one "
                             "segment whenever p < 1, so the window floor does not hold the window)")
    return {
        "inputs": dict(N=eq.N, C_bps=eq.C_bps, R0_s=eq.R0_s, p=p, seg_bytes=float(seg_bytes)),
        "equilibrium": dict(Q0_s=eq.Q0_s, q0_pkt=eq.q0_pkt, W0_pkt=eq.W0_pkt, W0_bytes=eq.W0_bits / 8,
                            rtt_s=eq.rtt_s, x_load=eq.x, Delta_bit2=eq.Delta),
        "linearization": dict(a1_per_s=lin.a1, a2_bit_per_s2=lin.a2, b1_per_bit=lin.b1, b2_per_s=lin.b2,
                              k_per_s2=lin.k),
        "theorem1": dict(omega_c_rad_s=t1.omega_c_rad_s, tau_bound_s=t1.tau_bound_s,
                         tau_bound_paper_s=t1.tau_bound_paper_s, tau_critical_numerical_s=tn,
                         rel_diff_bound_vs_numerical=None if tn is None else abs(t1.tau_bound_s - tn) / tn,
                         stable_tau_R0=R0_s < t1.tau_bound_s, stable_tau_R0_plus_Q0=eq.rtt_s < t1.tau_bound_s,
                         N_min_stable=attempt("N_min_stable", stability_threshold_N, C_bps, R0_s, p, seg_bytes),
                         R0_max_stable_s=attempt("R0_max_stable_s", stability_threshold_R0, N, C_bps, p, seg_bytes)),
        "theorem2": dict(N_min_special=ss.N_threshold, R0_max_special_s=ss.R0_max_s, special_state=ss.active,
                         W_star_pkt=ss.W_star_pkt if ss.active else None,
                         Q_star_s=ss.Q_star_s if ss.active else None,
                         q_star_pkt=ss.q_star_pkt if ss.active else None),
        "notes": notes,
    }
