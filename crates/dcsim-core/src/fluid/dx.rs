//! The DX fluid model of Jiang, Peng, Ruan, Wu & Wang, "Modeling and Analysis of the
//! Latency-Based Congestion Control Algorithm DX", eqs. (3)-(4), with the one-segment window
//! floor of its Section 3.3.
//!
//! Units. The paper writes W in bytes with seg = 1500 and C in bytes/s (its thresholds
//! N >= C R0 / seg, e.g. N >= 67 at 10 Gbps and R0 = 80 µs, only come out with C in bytes/s).
//! Dividing (3) and (4) by seg gives the same equations with W in packets, seg = 1 and C in
//! packets/s, which is what we integrate:
//!
//! ```text
//! dW/dt = (1 - p) / (R0 + Q(t-τ)) - Q(t-τ) (W(t) - 1) p / (R0 (R0 + Q(t-τ)))      (3)
//! dQ/dt = N W(t) / (C (R0 + Q(t-τ))) - 1,   with max(·, 0) while Q(t) = 0          (4)
//! ```
//!
//! W is the per-flow window (packets), Q the queueing delay (seconds), p the constant
//! probability that Q > 0 (the paper uses 0.95), τ the fixed feedback delay (seconds).
//! The paper says only "the RTT equals τ"; which RTT (R0, or R0 + Q0 at equilibrium) is
//! ambiguous, so τ is a parameter here (the Python face defaults it to R0).
//!
//! Window floor (Section 3.3): W >= 1 segment, with dW/dt = max(·, 0) on the floor. Note that
//! (3) already keeps W >= 1 when it starts there (at W = 1 the decrease term vanishes and
//! dW/dt = (1-p)/(R0+Q) > 0), so the floor acts only on initial windows below one segment and on
//! numerical overshoot; the paper's "special stable state" with W frozen at 1 segment is not an
//! equilibrium of (3) for p < 1 (the equilibrium (5)-(8) has W0 slightly above 1 there).

use super::dde::DdeSystem;
use super::{check, FluidError};

/// DX fluid model; state [W (packets), Q (seconds)], time in seconds.
#[derive(Debug, Clone, PartialEq)]
#[allow(non_snake_case)]
pub struct Dx {
    /// Number of flows N.
    pub N: f64,
    /// Bottleneck capacity, packets/s.
    pub C_pps: f64,
    /// Base RTT R0, seconds.
    pub R0_s: f64,
    /// Feedback delay τ, seconds.
    pub tau_s: f64,
    /// Constant probability p that Q > 0 (Section 3.1).
    pub p: f64,
    /// One-segment window floor W >= 1 (Section 3.3).
    pub window_floor: bool,
    /// History for t <= 0: [W0 (packets), Q0 (seconds)].
    pub init: [f64; 2],
    delays: [f64; 1],
}

#[allow(non_snake_case)]
impl Dx {
    /// Validate and build; `init` is the constant history [W0 (packets), Q0 (s)].
    pub fn new(
        N: f64,
        C_pps: f64,
        R0_s: f64,
        tau_s: f64,
        p: f64,
        window_floor: bool,
        init: [f64; 2],
    ) -> Result<Self, FluidError> {
        check("N", N, N >= 1.0, ">= 1 flow")?;
        check("C", C_pps, C_pps > 0.0, "> 0 packets/s")?;
        check("R0", R0_s, R0_s > 0.0 && R0_s <= 100.0, "in (0, 100] s")?;
        check("tau", tau_s, tau_s > 0.0 && tau_s <= 100.0, "in (0, 100] s")?;
        check("p", p, (0.0..=1.0).contains(&p), "in [0, 1]")?;
        if window_floor {
            check("init.W", init[0], init[0] >= 1.0, ">= 1 packet (one segment: window_floor is on)")?;
        } else {
            check("init.W", init[0], init[0] >= 0.0, ">= 0 packets")?;
        }
        check("init.Q", init[1], init[1] >= 0.0, ">= 0 s")?;
        Ok(Self { N, C_pps, R0_s, tau_s, p, window_floor, init, delays: [tau_s] })
    }
}

impl DdeSystem<2> for Dx {
    fn names(&self) -> [&'static str; 2] {
        ["W", "Q"]
    }
    fn delays(&self) -> &[f64] {
        &self.delays
    }
    fn floors(&self) -> [f64; 2] {
        [if self.window_floor { 1.0 } else { f64::NEG_INFINITY }, 0.0]
    }
    /// The indicator 1{Q(t) > 0}: the link surely busy (the probability p of Section 3.1, measured).
    fn observables(&self) -> &[&'static str] {
        &["busy"]
    }
    fn observe(&self, y: &[f64; 2], out: &mut [f64]) {
        out[0] = if y[1] > 0.0 { 1.0 } else { 0.0 };
    }
    fn history(&self, _t: f64) -> [f64; 2] {
        self.init
    }
    /// Eqs. (3)-(4) with seg = 1 packet; `delayed[0][1]` is Q(t - τ).
    #[inline]
    fn rhs(&self, _t: f64, y: &[f64; 2], delayed: &[[f64; 2]], _modes: &[bool]) -> [f64; 2] {
        let [w, _q] = *y;
        let q_tau = delayed[0][1];
        let r = self.R0_s + q_tau;
        [(1.0 - self.p) / r - q_tau * (w - 1.0) * self.p / (self.R0_s * r), self.N * w / (self.C_pps * r) - 1.0]
    }
}
