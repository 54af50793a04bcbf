"""AIMD throughput ratio of DCTCP vs TCP: eq. (3)-(4) and Fig. 1 of the coexistence paper.

Paper: Irteza et al., "On the Coexistence of Transport Protocols in Data Centers", Section III
(../shared/papers/dctcp-tcp-coexistence-aqm.md).

N synchronized AIMD flows with equal RTTs, flow i with additive increase alpha_i and
multiplicative decrease beta_i (window W -> beta_i W on congestion), converge to the stationary
point W_ss = theta x_p with x_p,i = alpha_i / (1 - beta_i), eq. (3) (Shorten, Wirth, Leith 2006).
With equal RTTs throughput is proportional to window, so the DCTCP/TCP throughput ratio is::

    T_r = alpha_dctcp (1 - beta_tcp) / (alpha_tcp (1 - beta_dctcp))                        (4)

with alpha_dctcp = alpha_tcp = 1 (segment per RTT), beta_tcp = 0.5 and beta_dctcp in [0.5, 1) in
Fig. 1 (the functions take any beta in [0, 1)).

Notes (ambiguities of the paper):

* beta is the factor the window is *multiplied* by (beta = 0.5 is TCP halving).  DCTCP's back-off
  W -> W (1 - a/2), with a its marked-fraction estimate (the paper calls the AIMD increase alpha,
  clashing with DCTCP's alpha), gives beta_dctcp = 1 - a/2 and therefore T_r = 1 / a.
* "Ratio of throughput" is, strictly, the ratio of the windows *at the congestion event*: x_p of
  (3) is the stationary point of the window vector sampled just before each back-off.  For the same
  synchronized AIMD the window of flow i falls from W_i to beta_i W_i and climbs back linearly, so
  its time-averaged window is W_i (1 + beta_i) / 2 and the time-averaged throughput ratio is
  T_r (1 + beta_dctcp) / (1 + beta_tcp) -- e.g. 6.33 rather than 5 at beta_dctcp = 0.9
  (``throughput_ratio_time_average``).  Both are 1 at beta_dctcp = 0.5 and increase monotonically.
* T_r has a pole at beta_dctcp = 1 (DCTCP never backs off), so Fig. 1's range [0.5, 1] is open at 1:
  we evaluate it on [0.5, 0.99] and say so.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["stationary_point", "throughput_ratio", "throughput_ratio_time_average", "BETA_TCP", "ALPHA_TCP", "ALPHA_DCTCP"]

#: AIMD parameters of Section III: TCP halves; both increase by one segment per RTT.
BETA_TCP = 0.5
ALPHA_TCP = 1.0
ALPHA_DCTCP = 1.0


def _show(x) -> str:
    """Plain numbers for messages: 0.5 or [0.5, 1.2] (never np.float64(...) or array(...))."""
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        return str(x)
    return f"{float(a):g}" if a.ndim == 0 else "[" + ", ".join(f"{v:g}" for v in a.ravel()) + "]"


def _not_text(name: str, x, what: str) -> None:
    """Numbers only: "0.5" was read as 0.5 here and refused elsewhere (an API audit)."""
    if isinstance(x, (str, bytes, bool)) or any(isinstance(v, (str, bytes)) for v in np.asarray(x, dtype=object).flat):
        raise ValueError(f"{name}: expected {what}, got {x!r}")


def _check_beta(name: str, beta, *, allow_zero: bool = True) -> np.ndarray:
    _not_text(name, beta, "a number or an array of numbers")
    try:
        b = np.asarray(beta, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected a number or an array of numbers, got {beta!r}") from None
    lo_ok = b >= 0 if allow_zero else b > 0
    if not np.all(np.isfinite(b) & lo_ok & (b < 1)):
        raise ValueError(f"{name}: multiplicative-decrease factor must satisfy 0 <= {name} < 1, got {_show(beta)}")
    return b


def _check_alpha(name: str, alpha) -> float:
    _not_text(name, alpha, "a number (segments/RTT)")
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected a number (segments/RTT), got {alpha!r}") from None
    if not (math.isfinite(a) and a > 0):
        raise ValueError(f"{name}: additive increase must be > 0 (segments/RTT), got {_show(alpha)}")
    return a


def stationary_point(alpha, beta) -> np.ndarray:
    """Eq. (3): direction x_p of the AIMD stationary point, x_p,i = alpha_i / (1 - beta_i) (segments)."""
    _not_text("alpha", alpha, "a number or an array of numbers (segments/RTT)")
    try:
        a = np.asarray(alpha, dtype=float)
    except (TypeError, ValueError):  # [1, "x"] had said only "could not convert string to float" (a review)
        raise ValueError(f"alpha: expected a number or an array of numbers (segments/RTT), got {alpha!r}") from None
    if not np.all(np.isfinite(a) & (a > 0)):
        raise ValueError(f"alpha: additive increases must all be > 0 (segments/RTT), got {_show(alpha)}")
    b = _check_beta("beta", beta)
    if a.shape != b.shape:
        raise ValueError(f"alpha and beta: need one value per flow, got shapes {a.shape} and {b.shape}")
    return a / (1.0 - b)


def throughput_ratio(beta_dctcp, *, alpha_dctcp: float = ALPHA_DCTCP, alpha_tcp: float = ALPHA_TCP,
                     beta_tcp: float = BETA_TCP):
    """Eq. (4): T_r = alpha_dctcp (1 - beta_tcp) / (alpha_tcp (1 - beta_dctcp)); scalar or array.

    Raises ValueError for beta_dctcp outside [0, 1) (T_r diverges at beta_dctcp = 1).
    """
    b = _check_beta("beta_dctcp", beta_dctcp)
    a_d = _check_alpha("alpha_dctcp", alpha_dctcp)
    a_t = _check_alpha("alpha_tcp", alpha_tcp)
    b_t = float(_check_beta("beta_tcp", beta_tcp))
    tr = a_d * (1.0 - b_t) / (a_t * (1.0 - b))
    return float(tr) if tr.ndim == 0 else tr


def throughput_ratio_time_average(beta_dctcp, *, alpha_dctcp: float = ALPHA_DCTCP, alpha_tcp: float = ALPHA_TCP,
                                  beta_tcp: float = BETA_TCP):
    """Time-averaged DCTCP/TCP throughput ratio of the synchronized AIMD behind (3)-(4).

    = T_r (1 + beta_dctcp) / (1 + beta_tcp): each sawtooth averages (1 + beta_i)/2 of its peak x_p,i.
    """
    tr = throughput_ratio(beta_dctcp, alpha_dctcp=alpha_dctcp, alpha_tcp=alpha_tcp, beta_tcp=beta_tcp)
    b = np.asarray(beta_dctcp, dtype=float)
    out = tr * (1.0 + b) / (1.0 + float(beta_tcp))
    return float(out) if np.ndim(out) == 0 else out
