"""Independent scipy reference solutions used to validate the Rust DDE integrator.

Slow, for tests and benchmarks, not for production use: every solution here is computed by scipy's
``solve_ivp`` (method of steps, exact event location) and shares no code with ``dcsim.fluid`` or the
Rust core, so agreement between the two is evidence that both solve the papers' equations.

* Normalized DCTCP fluid model, eqs. (11)-(14) of the DCTCP analysis paper (Alizadeh, Javanmard,
  Prabhakar, "Analysis of DCTCP: Stability, Convergence, and Fairness"), with the optional psi floor
  of its Section 3.3.2: :func:`dctcp_normalized`.
* DX fluid model, eqs. (3)-(4) of the DX fluid-model analysis paper (window in segments, queueing
  delay in seconds): :func:`dx_rhs`, :func:`dx`; and the generic constant-delay solver both use,
  :func:`method_of_steps`.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
from scipy.integrate import solve_ivp

__all__ = ["NormalizedDctcpSolution", "dctcp_normalized", "method_of_steps", "dx_rhs", "dx"]


# ---------------------------------------------------------------------------------------------
# normalized DCTCP, eqs. (11)-(14) (+ psi floor, Section 3.3.2)
# ---------------------------------------------------------------------------------------------


@dataclass
class NormalizedDctcpSolution:
    """Dense solution of the normalized DCTCP model on [0, t_end].

    Calling it, ``sol(t)``, evaluates x(t) = (W~, alpha~, q~): shape (3,) for a scalar t, (3, n) for
    an array of n times (the convention of scipy's ``OdeSolution``). At a switching time the value of
    the piece that ends there is used (the state is continuous, so this only matters to round-off).
    """

    t_end: float
    segments: list  # [(t_start, t_stop, OdeSolution)], in time order, covering [0, t_end]
    downs: list = field(default_factory=list)  # down-crossings of q~ = 0: [(t, x)], x[2] == 0

    def __call__(self, t):
        t_arr = np.asarray(t, dtype=float)
        ts = np.atleast_1d(t_arr)
        if ts.size and (ts.min() < -1e-12 or ts.max() > self.t_end + 1e-9 * max(1.0, self.t_end)):
            raise ValueError(f"t outside the solved interval [0, {self.t_end:g}]")
        ends = np.array([b for _, b, _ in self.segments])
        # first piece whose end is >= t (clipped to the last piece for round-off at t_end)
        idx = np.minimum(np.searchsorted(ends, ts, side="left"), len(self.segments) - 1)
        out = np.empty((3, ts.size))
        for i in np.unique(idx):
            m = idx == i
            out[:, m] = self.segments[i][2](ts[m])
        return out[:, 0] if t_arr.ndim == 0 else out

    def sample(self, sample_dt: float = 1e-2):
        """(t, W, alpha, q) on the grid 0, sample_dt, ..., t_end."""
        ts = np.arange(0.0, self.t_end + 1e-12, sample_dt)
        ys = self(ts)
        return ts, ys[0], ys[1], ys[2]


def dctcp_normalized(wbar: float, g: float, x0: Sequence[float], t_end: float, *, psi: float | None = None,
                     rtol: float = 1e-10, atol: float = 1e-12,
                     at_down_crossing: bool = False) -> NormalizedDctcpSolution:
    """Independent solution of the normalized model (11)-(14) by scipy solve_ivp, method of steps.

    The delayed input u(t) = p~(t - 1) is piecewise constant: it flips exactly 1 time unit after each
    crossing of q~ = 0. Between flips and crossings the model is an ODE (DOP853); crossings (and the
    psi floor q~ = -psi/(1+psi) of Section 3.3.2, when ``psi`` is given) are located as solve_ivp
    events. History: x(t) = x0 for t <= 0.
    at_down_crossing=True starts on S just after a down-crossing (q~ > 0 on [-1, 0), so u = 1 until
    t = 1): the start of the Poincare map of Section 3.2.
    Returns a dense :class:`NormalizedDctcpSolution` (call it at any t in [0, t_end], or ``.sample``)
    holding the list of down-crossings ``downs`` = [(t, x)].
    """
    floor = -psi / (1 + psi) if psi is not None else -math.inf
    x = np.array(x0, dtype=float)
    t = 0.0
    u = 1.0 if x[2] > 0 else 0.0
    above = x[2] > 0
    pending = deque()
    if at_down_crossing:
        u, above = 1.0, False
        pending.append(1.0)
    on_floor = False
    segs = []
    downs = []

    def rhs(_t, y):
        W, a, q = y
        r = 1.0 / (1.0 + q)
        dq = 0.0 if on_floor else W * r / wbar - 1.0
        return [r * (1 - 0.5 * W * a * u), g * r * (u - a), dq]

    def ev_cross(_t, y):
        return y[2]
    ev_cross.terminal = True

    def ev_floor(_t, y):
        return y[2] - floor
    ev_floor.terminal = True
    ev_floor.direction = -1

    def ev_leave(_t, y):
        return y[0] / (wbar * (1 + y[2])) - 1.0
    ev_leave.terminal = True
    ev_leave.direction = 1

    while t < t_end:
        t_stop = min(pending[0], t_end) if pending else t_end
        if on_floor:
            events = [ev_leave]
        else:
            ev_cross.direction = -1 if above else 1
            events = [ev_cross] + ([ev_floor] if psi is not None else [])
        sol = solve_ivp(rhs, (t, t_stop), x, method="DOP853", rtol=rtol, atol=atol, events=events,
                        dense_output=True)
        if sol.status == 1:  # a terminal event
            i = min((i for i, te in enumerate(sol.t_events) if len(te)), key=lambda i: sol.t_events[i][0])
            t_new = sol.t_events[i][0]
            x = sol.y_events[i][0].copy()
            segs.append((t, t_new, sol.sol))
            t = t_new
            if on_floor:
                on_floor = False
            elif events[i] is ev_cross:
                x[2] = 0.0
                if above:
                    downs.append((t, x.copy()))
                above = not above
                pending.append(t + 1.0)
            else:
                x[2] = floor
                on_floor = True
        else:
            segs.append((t, t_stop, sol.sol))
            x = sol.y[:, -1].copy()
            t = t_stop
            if pending and t >= pending[0]:
                pending.popleft()
                u = 1.0 - u
    return NormalizedDctcpSolution(t_end=float(t_end), segments=segs, downs=downs)


# ---------------------------------------------------------------------------------------------
# constant-delay DDEs and the DX model, eqs. (3)-(4)
# ---------------------------------------------------------------------------------------------


def method_of_steps(f: Callable[[np.ndarray, np.ndarray], np.ndarray], y_hist: Sequence[float], tau: float,
                    t_end: float, *, method: str = "RK45", rtol: float = 1e-8,
                    atol: float = 1e-13) -> Callable[[np.ndarray], np.ndarray]:
    """y'(t) = f(y(t), y(t - tau)) with constant history y_hist, by scipy solve_ivp per delay interval.

    Returns y(t) -> array of shape (len(t), dim) (a scalar t counts as one time).
    """
    segs = []

    def delayed(t):
        # t > 0 before the first segment exists: the solver probing past the first interval's end
        # (scipy < 1.14 picks its first step without regard to the interval), answered with the
        # history it would have extended; the step taken never reaches there.
        if t <= 0 or not segs:
            return y_hist
        k = min(int(t / tau), len(segs) - 1)
        return segs[k](t)

    y0, t0 = np.asarray(y_hist, float), 0.0
    while t0 < t_end * (1 - 1e-12):
        t1 = min(t0 + tau, t_end)
        sol = solve_ivp(lambda t, y: f(y, delayed(t - tau)), (t0, t1), y0, method=method,
                        dense_output=True, rtol=rtol, atol=atol)
        segs.append(sol.sol)
        y0, t0 = sol.y[:, -1], t1

    def y(t):
        return np.array([segs[min(int(ti / tau), len(segs) - 1)](ti) for ti in np.atleast_1d(t)])

    return y


def dx_rhs(w_pkt: float, Qd_s: float, N: float, C_pps: float, R0: float, p: float) -> tuple[float, float]:
    """Right-hand side of DX eqs. (3)-(4), no floors: W in segments (seg = 1), Qd_s = Q(t - tau) in
    seconds, C in packets/s. Returns (dW/dt [pkt/s], dQ/dt [s/s])."""
    r = R0 + Qd_s
    dw = (1 - p) / r - p * Qd_s * (w_pkt - 1) / (R0 * r)
    dQ = N * w_pkt / (C_pps * r) - 1
    return dw, dQ


def dx(N: float, C_pps: float, R0: float, tau: float, p: float, init: Sequence[float], t_end: float, *,
       method: str = "DOP853", rtol: float = 1e-12, atol: float = 1e-15) -> Callable[[np.ndarray], np.ndarray]:
    """DX eqs. (3)-(4) (no floors: valid while Q stays > 0) by :func:`method_of_steps`.

    init = (W [pkt], Q [s]) is also the constant history. Returns y(t) -> array (len(t), 2) of (W, Q).
    """
    def f(y, yd):
        return np.array(dx_rhs(y[0], yd[1], N, C_pps, R0, p))

    return method_of_steps(f, init, tau, t_end, method=method, rtol=rtol, atol=atol)
