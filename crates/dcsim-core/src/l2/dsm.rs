//! DSM, the Delay-tolerant Sliding Mode scheme (Cheng, Jiang, Zhang, Wang, Qian, Ren,
//! "Congestion Control in Converged Ethernet with Heterogeneous and Time-Varying Delays";
//! papers/dsm-converged-ethernet-delays.md).
//!
//! CP, at each sample k (an arriving frame, sampled with probability p):
//! * Q_f(k) = q(k) - q0 and Q_v(k) = q(k) - q(k-1), bytes (§III.B);
//! * the delay-compensating detector, eq. (25) with the O(1) running sums of §IV.D:
//!   Q̂_f = Q_f + m Q_v + T S2,  Q̂_v = Q_v + T S1,  S1 = Σ_{i=1..m} Fb(k-i),  S2 = Σ i Fb(k-i);
//! * the sliding-mode rule, eq. (22)/(24), with the switching line δ = Q̂_f + ω Q̂_v (eq. 19):
//!   Fb = -a Q̂_f if Q̂_v δ < 0 (StateA), -b Q̂_v if Q̂_f δ < 0 (StateB), -c Q̂_f if Q̂_f Q̂_v > 0
//!   (StateC);
//! * a feedback frame with Fb and the CPID goes to the sampled frame's source.
//!
//! RP: r <- r + Fb (eq. 26), within [MinRate, line rate], with the CPID rule of §IV.D.
//!
//! # Our reading of what the paper leaves open
//!
//! * **Q_v.** The paper defines Q_v(k) = q(k) - q(k-1), the change of the queue between two
//!   consecutive samples, and models it (eq. 7) as T (Σ r_j - C) because it takes the sampling
//!   interval to be T = 1/(pC) when the switch is congested. We measure exactly the paper's
//!   q(k) - q(k-1) (like QCN's Qδ) and use the configured T in eq. (25). We considered
//!   rescaling by T / (t_k - t_{k-1}) to turn it into T times the measured rate mismatch, and
//!   rejected it: with random (Bernoulli) sampling, intervals of one or two frames are common and
//!   the rescaling would multiply the one-frame granularity of the queue by up to 1/p.
//! * **Units.** Queues in bytes, Fb and rates in bit/s, T in seconds, so T·S/8 is bytes and the
//!   gains a, b, c are in 1/s (the paper quotes them as frequencies, "H_a = 20 KHz").
//! * **Gains from H (§V).** The paper sets H_a = (m² + 4m + 2) a, H_b = (2m + 3) b, H_c = 2c and
//!   chooses H_a = H_b = H_c = 20 kHz < 2/T = 25 kHz; so a = H_a / (m² + 4m + 2),
//!   b = H_b / (2m + 3), c = H_c / 2 (588.2, 1818.2 and 10000 1/s at m = 4).
//! * **S2 recurrence.** §IV.D prints S2(k+1) = S2(k) + S1(k) - m Fb(k-m); the direct sum of
//!   eq. (25) gives S2(k+1) = S2(k) + S1(k+1) - m Fb(k-m) = S2(k) + S1(k) + Fb(k) - (m+1) Fb(k-m)
//!   (check m = 1: S2(k+1) must be Fb(k); the printed form gives Fb(k-1)). We use the latter; a
//!   unit test checks both against the direct sums.
//! * **Ties of eq. (22).** Its three conditions are exclusive but leave the axes and the switching
//!   line uncovered. We take Q̂_f Q̂_v >= 0 as StateC (so an empty, steady queue, Q̂_v = 0 and
//!   Q̂_f = -q0, gets the reaching law Fb = c q0) and δ = 0 as StateB.
//! * **Eq. (27), |u| <= C.** The paper asks the gains to keep one adjustment below the link
//!   capacity; the CP enforces it by clipping Fb to [-C, C], C its own link rate.
//! * **Fb = 0.** Nothing is sent (it would change nothing), but Fb = 0 enters the history.
//! * **CPID (multiple bottlenecks, §IV.D "Adaptability").** "The sources will store the CPID when
//!   receiving a rate-decreased feedback, and only react to the rate-increase feedbacks which
//!   match the stored CPID." We keep one rate per source, store the CPID of the latest decrease,
//!   ignore increases from other CPs, accept increases while no CPID is stored (the source never
//!   slowed down, or came back to line rate), and forget the CPID when the rate reaches the line
//!   rate (the rate limiter is released, as in QCN).
//! * **MinRate.** Not in the paper. A source whose rate went to 0 would never be sampled again and
//!   never recover, so the rate floor is a parameter (default 100 Mb/s, QCN's MinRate of S1).
//! * **Precision.** Fb is rounded to whole bit/s and the running sums are exact integers (i128),
//!   so the O(1) recurrence never drifts from the direct sums.

use rand::Rng as _;
use serde::{Deserialize, Serialize};

use super::{
    check_open, check_pos_u64, foreign_feedback, payload, CongestionPoint, CpId, Feedback, Param, ReactionPoint,
    Scheme, Signal, Unit,
};
use crate::error::{invalid, Result};
use crate::rng::Rng;
use crate::units::{Rate, Time};

fn default_q0_bytes() -> u64 {
    64_000 // §V: "q0 = 64KB" (1 KB = 1000 B: §V's T = 80 us is 100 frames of 1000 B at 10 Gbps)
}
fn default_p() -> f64 {
    0.01 // §V
}
fn default_t_ps() -> u64 {
    80_000_000 // §V: T = 80 us (10 Gbps, 1 KB frames, p = 0.01)
}
fn default_m() -> u32 {
    4 // §V: m = max m_i(k) = 4 (300 us loop delay / 80 us, rounded up, eq. 6)
}
fn default_h_hz() -> f64 {
    20_000.0 // §V: H_a = H_b = H_c = 20 kHz
}
fn default_omega() -> f64 {
    5.0 // §V
}
pub(crate) fn default_min_rate_bps() -> u64 {
    100_000_000 // not in the paper; QCN's MinRate (protocols.md §1, S1)
}

/// Largest m (history length): 10^5 samples is 0.8 s of delay at 100 Gbps.
pub const MAX_M: u32 = 100_000;
/// Largest q0 (1 TB): keeps byte arithmetic far from overflow.
const MAX_BYTES: u64 = 1 << 40;

/// DSM parameters with the paper's names and §V defaults.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Target queue q0, bytes.
    #[serde(default = "default_q0_bytes")]
    pub q0_bytes: u64,
    /// Sampling probability p per arriving frame.
    #[serde(default = "default_p")]
    pub p: f64,
    /// Sampling period T used by the detector, eq. (25), ps (nominally 8 frame / (p C)).
    #[serde(default = "default_t_ps")]
    pub t_ps: u64,
    /// Delay bound m in sampling periods, eq. (6).
    #[serde(default = "default_m")]
    pub m: u32,
    /// H_a = (m² + 4m + 2) a, Hz (§V).
    #[serde(default = "default_h_hz")]
    pub h_a_hz: f64,
    /// H_b = (2m + 3) b, Hz (§V).
    #[serde(default = "default_h_hz")]
    pub h_b_hz: f64,
    /// H_c = 2 c, Hz (§V).
    #[serde(default = "default_h_hz")]
    pub h_c_hz: f64,
    /// Slope weight ω of the switching line δ = Q̂_f + ω Q̂_v, eq. (19).
    #[serde(default = "default_omega")]
    pub omega: f64,
    /// Rate floor of the RP, bit/s (not in the paper; see the module doc).
    #[serde(default = "default_min_rate_bps")]
    pub min_rate_bps: u64,
    /// Sample every round(1/p)-th arriving frame instead of each frame with probability p
    /// (802.1Qau's random sampling, the default). This is the deterministic period T of §III.A
    /// ("the switch transmit 1/p packets during the sampling interval") while frames arrive at C;
    /// in overload samples come R_in/C times as often (the paper counts transmitted frames).
    #[serde(default)]
    pub periodic: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            q0_bytes: default_q0_bytes(),
            p: default_p(),
            t_ps: default_t_ps(),
            m: default_m(),
            h_a_hz: default_h_hz(),
            h_b_hz: default_h_hz(),
            h_c_hz: default_h_hz(),
            omega: default_omega(),
            min_rate_bps: default_min_rate_bps(),
            periodic: false,
        }
    }
}

/// a, b, c (1/s) from H_a, H_b, H_c (Hz) and m, as §V defines them:
/// H_a = (m² + 4m + 2) a, H_b = (2m + 3) b, H_c = 2c.
pub fn gains_from_h(m: u32, h_a_hz: f64, h_b_hz: f64, h_c_hz: f64) -> (f64, f64, f64) {
    let m = m as f64;
    (h_a_hz / (m * m + 4.0 * m + 2.0), h_b_hz / (2.0 * m + 3.0), h_c_hz / 2.0)
}

/// Range checks shared by DSM and SMCC.
pub(crate) fn validate_common(
    prefix: &str,
    q0_bytes: u64,
    p: f64,
    t_ps: u64,
    omega: f64,
    min_rate_bps: u64,
) -> Result<()> {
    check_pos_u64(prefix, "q0_bytes", q0_bytes, "target queue q0")?;
    if q0_bytes > MAX_BYTES {
        return Err(invalid(
            format!("{prefix}.q0_bytes"),
            format!("q0 = {q0_bytes} B is too large; allowed 0 < q0_bytes <= {MAX_BYTES}"),
        ));
    }
    if !(p.is_finite() && p > 0.0 && p <= 1.0) {
        return Err(invalid(
            format!("{prefix}.p"),
            format!("sampling probability p = {p} is out of range; allowed 0 < p <= 1"),
        ));
    }
    if !(1..=Time::PS_PER_S * 3600).contains(&t_ps) {
        return Err(invalid(
            format!("{prefix}.t_ps"),
            format!("sampling period T = {} is out of range; allowed 0 < T <= 3600s", crate::units::show_ps(t_ps)),
        ));
    }
    check_open(prefix, "omega", omega, 0.0, 1e12, "omega")?;
    check_pos_u64(prefix, "min_rate_bps", min_rate_bps, "minimum rate")
}

impl Params {
    pub fn validate(&self, prefix: &str) -> Result<()> {
        validate_common(prefix, self.q0_bytes, self.p, self.t_ps, self.omega, self.min_rate_bps)?;
        if self.m > MAX_M {
            return Err(invalid(
                format!("{prefix}.m"),
                format!("m = {} is out of range; allowed 0 <= m <= {MAX_M} sampling periods", self.m),
            ));
        }
        check_open(prefix, "h_a_hz", self.h_a_hz, 0.0, 1e15, "H_a")?;
        check_open(prefix, "h_b_hz", self.h_b_hz, 0.0, 1e15, "H_b")?;
        check_open(prefix, "h_c_hz", self.h_c_hz, 0.0, 1e15, "H_c")
    }

    /// The controller these parameters define (a, b, c from H per §V).
    pub fn controller(&self) -> Controller {
        let (a, b, c) = gains_from_h(self.m, self.h_a_hz, self.h_b_hz, self.h_c_hz);
        Controller {
            q0_bytes: self.q0_bytes,
            p: self.p,
            t_ps: self.t_ps,
            m: self.m.min(MAX_M),
            a_per_s: a,
            b_per_s: b,
            c_per_s: c,
            omega: self.omega,
            periodic: self.periodic,
        }
    }
}

/// The resolved sliding-mode controller (shared by DSM and SMCC).
#[derive(Clone, Debug, PartialEq)]
pub struct Controller {
    pub q0_bytes: u64,
    pub p: f64,
    pub t_ps: u64,
    pub m: u32,
    pub a_per_s: f64,
    pub b_per_s: f64,
    pub c_per_s: f64,
    pub omega: f64,
    /// Sample every round(1/p)-th frame instead of each with probability p.
    pub periodic: bool,
}

/// The region of the (Q̂_f, Q̂_v) plane that selected the rule (Fig. 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// Q̂_v δ < 0: Fb = -a Q̂_f.
    A,
    /// Q̂_f δ < 0, and the switching line δ = 0 itself: Fb = -b Q̂_v.
    B,
    /// Q̂_f Q̂_v >= 0 (quadrants I and III and the axes): Fb = -c Q̂_f (reaching law).
    C,
}

/// Eq. (22)/(24): the rate adjustment u (bytes/s) for the detector state (bytes), and its region.
#[inline]
pub fn sliding_rule(qf_hat: f64, qv_hat: f64, a: f64, b: f64, c: f64, omega: f64) -> (Region, f64) {
    if qf_hat * qv_hat >= 0.0 {
        return (Region::C, -c * qf_hat);
    }
    let delta = qf_hat + omega * qv_hat; // eq. (19)
    if qv_hat * delta < 0.0 {
        (Region::A, -a * qf_hat)
    } else {
        (Region::B, -b * qv_hat)
    }
}

/// The last m feedback values and their running sums S1 = Σ Fb(k-i), S2 = Σ i Fb(k-i), i = 1..m
/// (§IV.D), in bit/s, exact.
#[derive(Clone, Debug)]
pub struct Predictor {
    m: usize,
    /// Ring of Fb(k-1) .. Fb(k-m); `head` is the oldest, Fb(k-m).
    ring: Vec<i64>,
    head: usize,
    s1: i128,
    s2: i128,
}

impl Predictor {
    pub fn new(m: u32) -> Predictor {
        let m = m.min(MAX_M) as usize;
        Predictor { m, ring: vec![0; m], head: 0, s1: 0, s2: 0 }
    }

    pub fn s1(&self) -> i128 {
        self.s1
    }
    pub fn s2(&self) -> i128 {
        self.s2
    }

    /// Eq. (25) with the running sums: (Q̂_f, Q̂_v) in bytes from Q_f, Q_v (bytes) and T (s).
    #[inline]
    pub fn estimate(&self, qf_bytes: f64, qv_bytes: f64, t_s: f64) -> (f64, f64) {
        let m = self.m as f64;
        (qf_bytes + m * qv_bytes + t_s * self.s2 as f64 / 8.0, qv_bytes + t_s * self.s1 as f64 / 8.0)
    }

    /// Enter Fb(k): S1(k+1) = S1(k) + Fb(k) - Fb(k-m); S2(k+1) = S2(k) + S1(k+1) - m Fb(k-m).
    #[inline]
    pub fn push(&mut self, fb_bps: i64) {
        if self.m == 0 {
            return;
        }
        let old = self.ring[self.head] as i128;
        self.s1 += fb_bps as i128 - old;
        self.s2 += self.s1 - self.m as i128 * old;
        self.ring[self.head] = fb_bps;
        self.head = (self.head + 1) % self.m;
    }

    /// The direct sums of eq. (25), O(m): for tests and checks.
    pub fn direct_sums(&self) -> (i128, i128) {
        let (mut s1, mut s2) = (0i128, 0i128);
        for i in 1..=self.m {
            // Fb(k-i) sits i places before the slot the next value goes to.
            let fb = self.ring[(self.head + self.m - i) % self.m] as i128;
            s1 += fb;
            s2 += i as i128 * fb;
        }
        (s1, s2)
    }
}

impl Scheme for Params {
    const NAME: &'static str = "dsm";
    const PARAMS: &'static [Param] = &[
        Param { name: "q0", field: "q0_bytes", unit: Unit::Bytes },
        Param { name: "p", field: "p", unit: Unit::Probability },
        Param { name: "T", field: "t_ps", unit: Unit::Ps },
        Param { name: "m", field: "m", unit: Unit::Count },
        Param { name: "Ha", field: "h_a_hz", unit: Unit::Hz },
        Param { name: "Hb", field: "h_b_hz", unit: Unit::Hz },
        Param { name: "Hc", field: "h_c_hz", unit: Unit::Hz },
        Param { name: "omega", field: "omega", unit: Unit::Number },
        Param { name: "min_rate", field: "min_rate_bps", unit: Unit::Bps },
        Param { name: "periodic", field: "periodic", unit: Unit::Flag },
    ];
    type Cp = Cp;
    type Rp = Rp;

    fn check(&self, prefix: &str) -> Result<()> {
        self.validate(prefix)
    }
    fn min_rate_bps(&self) -> u64 {
        self.min_rate_bps
    }
    fn target_queue(&self) -> (&'static str, u64) {
        ("q0", self.q0_bytes)
    }
    /// §II.A: the CP "samples the incoming packets with a probability p".
    const SAMPLES_DROPPED_ARRIVALS: bool = true;
    fn cp(&self, cpid: CpId, link_rate: Rate) -> Cp {
        Cp::new(&self.controller(), cpid, link_rate)
    }
    fn rp(&self, line_rate: Rate, initial_rate: Rate) -> Rp {
        Rp::new(self.min_rate_bps, line_rate, initial_rate)
    }
    /// The signed rate adjustment Fb, bit/s (two's complement).
    #[inline]
    fn encode(signal: &Signal) -> u64 {
        payload(signal)
    }
    #[inline]
    fn decode(payload: u64) -> Signal {
        Signal::Rate { fb_bps: payload as i64 }
    }
}

impl CongestionPoint for Cp {
    #[inline]
    fn on_arrival(&mut self, now: Time, q_bytes: u64, _frame_bytes: u32, rng: &mut Rng) -> Option<Feedback> {
        Cp::on_arrival(self, now, q_bytes, rng)
    }
    fn samples_taken(&self) -> u64 {
        self.samples
    }
    fn cpid(&self) -> CpId {
        self.cpid
    }
}

impl ReactionPoint for Rp {
    #[inline]
    fn rate_bps(&self) -> f64 {
        self.rate_bps as f64
    }
    #[inline]
    fn on_feedback(&mut self, _now: Time, fb: &Feedback, _rng: &mut Rng) -> Result<()> {
        match fb.signal {
            Signal::Rate { fb_bps } => {
                Rp::on_feedback(self, fb.cpid, fb_bps);
                Ok(())
            }
            _ => Err(foreign_feedback(fb, "dsm/smcc")),
        }
    }
}

/// What the CP computed at its last sample (for traces and tests).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub qf_bytes: f64,
    pub qv_bytes: f64,
    pub qf_hat_bytes: f64,
    pub qv_hat_bytes: f64,
    pub region: Region,
    pub fb_bps: i64,
}

/// DSM (or SMCC) congestion point of one egress queue.
#[derive(Clone, Debug)]
pub struct Cp {
    pub cpid: CpId,
    ctl: Controller,
    t_s: f64,
    /// Eq. (27): |Fb| <= C, the link rate of this queue, bit/s.
    fb_max_bps: i64,
    /// q(k-1), bytes; the queue is empty when the CP starts.
    q_prev_bytes: u64,
    predictor: Predictor,
    /// Samples taken so far.
    pub samples: u64,
    pub last: Option<Sample>,
    /// Periodic sampling: frames between samples (round(1/p)), and frames since the last one.
    every: u64,
    since: u64,
}

impl Cp {
    pub fn new(ctl: &Controller, cpid: CpId, link_rate: Rate) -> Cp {
        Cp {
            cpid,
            ctl: ctl.clone(),
            t_s: Time(ctl.t_ps).secs_f64(),
            fb_max_bps: link_rate.bps().min(i64::MAX as u64) as i64,
            q_prev_bytes: 0,
            predictor: Predictor::new(ctl.m),
            samples: 0,
            last: None,
            every: (1.0 / ctl.p).round().max(1.0) as u64,
            since: 0,
        }
    }

    pub fn controller(&self) -> &Controller {
        &self.ctl
    }

    pub fn predictor(&self) -> &Predictor {
        &self.predictor
    }

    /// A frame arrived and was enqueued; `q_bytes` is the queue including it.
    pub fn on_arrival(&mut self, _now: Time, q_bytes: u64, rng: &mut Rng) -> Option<Feedback> {
        if self.ctl.periodic {
            self.since += 1;
            if self.since < self.every {
                return None;
            }
            self.since = 0;
        } else if self.ctl.p < 1.0 && rng.random::<f64>() >= self.ctl.p {
            return None;
        }
        self.sample(q_bytes)
    }

    /// One sample k at queue length `q_bytes` (eqs. 19, 24, 25 and the S1/S2 update).
    pub fn sample(&mut self, q_bytes: u64) -> Option<Feedback> {
        let q = q_bytes.min(MAX_BYTES);
        let qf = q as f64 - self.ctl.q0_bytes as f64;
        let qv = q as f64 - self.q_prev_bytes as f64;
        let (qf_hat, qv_hat) = self.predictor.estimate(qf, qv, self.t_s);
        let (region, u_bytes_per_s) =
            sliding_rule(qf_hat, qv_hat, self.ctl.a_per_s, self.ctl.b_per_s, self.ctl.c_per_s, self.ctl.omega);
        let fb_bps = (8.0 * u_bytes_per_s).round().clamp(-(self.fb_max_bps as f64), self.fb_max_bps as f64) as i64;
        self.predictor.push(fb_bps);
        self.q_prev_bytes = q;
        self.samples += 1;
        self.last =
            Some(Sample { qf_bytes: qf, qv_bytes: qv, qf_hat_bytes: qf_hat, qv_hat_bytes: qv_hat, region, fb_bps });
        (fb_bps != 0).then_some(Feedback { cpid: self.cpid, signal: Signal::Rate { fb_bps } })
    }
}

/// DSM (or SMCC) reaction point: the source's rate r, eq. (26), and the stored CPID.
#[derive(Clone, Debug)]
pub struct Rp {
    min_bps: u64,
    line_bps: u64,
    rate_bps: u64,
    /// CPID of the latest rate-decreasing feedback; None while at line rate.
    pub cpid: Option<CpId>,
    /// Rate-increase feedback ignored because it came from another CP than the stored one.
    pub ignored_increases: u64,
}

impl Rp {
    pub fn new(min_rate_bps: u64, line_rate: Rate, initial_rate: Rate) -> Rp {
        let line = line_rate.bps();
        let min = min_rate_bps.min(line);
        Rp {
            min_bps: min,
            line_bps: line,
            rate_bps: initial_rate.bps().clamp(min, line),
            cpid: None,
            ignored_increases: 0,
        }
    }

    #[inline]
    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }

    /// Eq. (26), r <- r + Fb, clamped to [MinRate, line rate], with the CPID rule.
    pub fn on_feedback(&mut self, cpid: CpId, fb_bps: i64) {
        if fb_bps < 0 {
            self.cpid = Some(cpid);
            self.rate_bps = self.rate_bps.saturating_sub(fb_bps.unsigned_abs()).max(self.min_bps);
        } else if fb_bps > 0 {
            if self.cpid.is_some_and(|c| c != cpid) {
                self.ignored_increases += 1;
                return;
            }
            self.rate_bps = self.rate_bps.saturating_add(fb_bps as u64).min(self.line_bps);
            if self.rate_bps == self.line_bps {
                self.cpid = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Stream};
    use proptest::prelude::*;

    proptest! {
        /// The O(1) recurrences of §IV.D (S2 as corrected) equal the direct sums of eq. (25).
        #[test]
        fn running_sums_equal_direct_sums(m in 0u32..24, fbs in proptest::collection::vec(-100_000_000_000i64..100_000_000_000, 0..200)) {
            let mut p = Predictor::new(m);
            prop_assert_eq!((p.s1(), p.s2()), (0, 0));
            for fb in fbs {
                p.push(fb);
                prop_assert_eq!((p.s1(), p.s2()), p.direct_sums());
            }
        }
    }

    #[test]
    fn printed_s2_recurrence_is_off_by_one_sample() {
        // m = 1: S1(k) = S2(k) = Fb(k-1). Feed Fb(0) = 5, Fb(1) = 7.
        let mut p = Predictor::new(1);
        p.push(5);
        assert_eq!((p.s1(), p.s2()), (5, 5));
        let (s1_k, s2_k) = (p.s1(), p.s2());
        p.push(7);
        // Direct: S2(2) = 1 * Fb(1) = 7.
        assert_eq!(p.direct_sums(), (7, 7));
        assert_eq!(p.s2(), 7);
        // As printed in §IV.D: S2(k+1) = S2(k) + S1(k) - m Fb(k-m) = 5 + 5 - 5 = 5.
        let printed = s2_k + s1_k - 5;
        assert_eq!(printed, 5);
        assert_ne!(printed, p.direct_sums().1);
    }

    #[test]
    fn gains_from_h_section_v() {
        let (a, b, c) = gains_from_h(4, 20e3, 20e3, 20e3);
        assert_eq!(a, 20e3 / 34.0); // m² + 4m + 2 = 34
        assert_eq!(b, 20e3 / 11.0); // 2m + 3 = 11
        assert_eq!(c, 10e3);
        let ctl = Params::default().controller();
        assert_eq!((ctl.a_per_s, ctl.b_per_s, ctl.c_per_s, ctl.m), (a, b, c, 4));
        // m = 0 (SMCC): H_a = 2a, H_b = 3b.
        assert_eq!(gains_from_h(0, 20e3, 30e3, 20e3), (10e3, 10e3, 10e3));
    }

    #[test]
    fn sliding_rule_regions_by_hand() {
        // a = 1, b = 2, c = 3 (1/s), ω = 5; (Q̂_f, Q̂_v) in bytes.
        let r = |qf, qv| sliding_rule(qf, qv, 1.0, 2.0, 3.0, 5.0);
        // Quadrant II below the line: δ = -10000 + 5*1000 = -5000 < 0, Q̂_v δ < 0 -> A: -a Q̂_f.
        assert_eq!(r(-10_000.0, 1_000.0), (Region::A, 10_000.0));
        // Quadrant II above the line: δ = -10000 + 15000 > 0, Q̂_f δ < 0 -> B: -b Q̂_v.
        assert_eq!(r(-10_000.0, 3_000.0), (Region::B, -6_000.0));
        // Quadrant I and III -> C: -c Q̂_f.
        assert_eq!(r(10_000.0, 1_000.0), (Region::C, -30_000.0));
        assert_eq!(r(-10_000.0, -1_000.0), (Region::C, 30_000.0));
        // Quadrant IV: δ = 10000 - 5000 > 0, Q̂_v δ < 0 -> A; δ = 10000 - 15000 < 0 -> B.
        assert_eq!(r(10_000.0, -1_000.0), (Region::A, -10_000.0));
        assert_eq!(r(10_000.0, -3_000.0), (Region::B, 6_000.0));
        // Ties: the axes are StateC, the switching line is StateB.
        assert_eq!(r(-64_000.0, 0.0), (Region::C, 192_000.0));
        assert_eq!(r(0.0, 5_000.0), (Region::C, 0.0));
        assert_eq!(r(-5_000.0, 1_000.0), (Region::B, -2_000.0));
    }

    /// A CP with m = 2 through four samples that visit StateC, StateB and StateA; every number
    /// by hand from eqs. (19), (24), (25).
    #[test]
    fn cp_switches_regions_with_delay_compensation() {
        let ctl = Controller {
            q0_bytes: 10_000,
            p: 1.0,
            t_ps: 100_000_000,
            m: 2,
            a_per_s: 1000.0,
            b_per_s: 2000.0,
            c_per_s: 5000.0,
            omega: 5.0,
            periodic: false,
        };
        let mut cp = Cp::new(&ctl, 3, Rate(10_000_000_000));
        let fb = |f: Option<Feedback>| match f {
            Some(Feedback { cpid: 3, signal: Signal::Rate { fb_bps } }) => fb_bps,
            None => 0,
            other => panic!("{other:?}"),
        };
        // k=1: q = 0: Q_f = -10000, Q_v = 0, no history -> (Q̂_f, Q̂_v) = (-10000, 0), StateC:
        // u = -5000 * -10000 = 5e7 B/s -> Fb = 4e8 bit/s.
        assert_eq!(fb(cp.sample(0)), 400_000_000);
        assert_eq!(cp.last.unwrap().region, Region::C);
        // k=2: q = 2000: Q_f = -8000, Q_v = 2000; S1 = 4e8, S2 = 4e8 -> T S/8 = 5000 B each.
        // Q̂_f = -8000 + 2*2000 + 5000 = 1000, Q̂_v = 2000 + 5000 = 7000: quadrant I, StateC:
        // u = -5000 * 1000 = -5e6 B/s -> Fb = -4e7.
        assert_eq!(fb(cp.sample(2_000)), -40_000_000);
        let s = cp.last.unwrap();
        assert!(
            (s.qf_hat_bytes - 1000.0).abs() < 1e-6 && (s.qv_hat_bytes - 7000.0).abs() < 1e-6 && s.region == Region::C
        );
        // k=3: q = 0: Q_f = -10000, Q_v = -2000; S1 = -4e7 + 4e8 = 3.6e8, S2 = -4e7 + 2*4e8 =
        // 7.6e8 -> T S1/8 = 4500, T S2/8 = 9500. Q̂_f = -10000 - 4000 + 9500 = -4500,
        // Q̂_v = -2000 + 4500 = 2500, δ = -4500 + 12500 > 0 -> StateB: the queue is empty but the
        // rate increase already sent will overfill it: u = -2000 * 2500 -> Fb = -4e7.
        assert_eq!(fb(cp.sample(0)), -40_000_000);
        assert_eq!(cp.last.unwrap().region, Region::B);
        // k=4: q = 1500: Q_f = -8500, Q_v = 1500; history Fb(3) = Fb(2) = -4e7: S1 = -8e7,
        // S2 = -4e7 - 8e7 = -1.2e8 -> T S1/8 = -1000, T S2/8 = -1500. Q̂_f = -8500 + 3000 - 1500
        // = -7000, Q̂_v = 1500 - 1000 = 500, δ = -7000 + 2500 < 0 -> StateA: u = 1000 * 7000 B/s
        // -> Fb = 5.6e7.
        assert_eq!(fb(cp.sample(1_500)), 56_000_000);
        assert_eq!(cp.last.unwrap().region, Region::A);
        assert_eq!(cp.samples, 4);
    }

    /// The CP closing the paper's discrete model, eq. (9): one sample per period T, every loop
    /// delay m periods (ξ = 0), aggregate rate R(k+1) = R(k) + Fb(k-m), q(k+1) = q(k) + T (R - C).
    /// With gains inside eq. (23) the ideal model slides to q = q0 (python tests: < 1e-6 B); here
    /// the queue is rounded to whole bytes and Fb to whole bit/s, a perturbation of ~1 B per period
    /// that the loop gain (8 c T / 8 = 0.8 B/B) keeps at the byte scale: accept |q - q0| <= 100 B.
    #[test]
    fn closed_loop_model_converges_to_q0() {
        let (ha, hb, hc) = (20e3, 24e3, 20e3); // b = 2181.8 1/s inside (2083.3, 2272.7)
        let p = Params { h_a_hz: ha, h_b_hz: hb, h_c_hz: hc, p: 1.0, ..Params::default() };
        let c_bps = 10e9;
        let mut cp = Cp::new(&p.controller(), 0, Rate(10_000_000_000));
        let t_s = 80e-6;
        let m = 4usize;
        let mut fbs: Vec<i64> = Vec::new();
        let (mut rate, mut q) = (c_bps, 0.0f64);
        let mut tail_err = 0.0f64;
        for k in 0..2000usize {
            let fb = cp.sample(q.round() as u64).map_or(0, |f| match f.signal {
                Signal::Rate { fb_bps } => fb_bps,
                _ => unreachable!(),
            });
            fbs.push(fb);
            if k >= m {
                rate += fbs[k - m] as f64;
            }
            q = (q + t_s * (rate - c_bps) / 8.0).max(0.0);
            if k >= 1900 {
                tail_err = tail_err.max((q - 64_000.0).abs());
            }
        }
        assert!(tail_err <= 100.0, "|q - q0| = {tail_err} B over the last 100 periods");
        // and the sliding regions were used, not only the reaching law
        assert!(fbs.iter().any(|&f| f < 0) && fbs.iter().any(|&f| f > 0));
    }

    #[test]
    fn feedback_is_clipped_to_link_rate_eq27() {
        let ctl = Params { m: 0, ..Params::default() }.controller();
        let mut cp = Cp::new(&ctl, 0, Rate(1_000_000_000));
        // Empty queue, q0 = 64 KB: u = c q0 = 10^4 * 64000 B/s = 5.12 Gbit/s > 1 Gbit/s.
        assert_eq!(cp.sample(0).unwrap().signal, Signal::Rate { fb_bps: 1_000_000_000 });
        // Queue at q0, steady: (0, 0) -> StateC with Fb = 0: nothing sent.
        let mut cp = Cp::new(&ctl, 0, Rate(1_000_000_000));
        cp.q_prev_bytes = 64_000;
        assert_eq!(cp.sample(64_000), None);
        assert_eq!(cp.last.unwrap().fb_bps, 0);
    }

    #[test]
    fn sampling_probability() {
        // p = 0.01 over 10^6 arrivals: 10^4 samples expected, sd = sqrt(10^6 * 0.01 * 0.99) = 99.5;
        // accept 5 sd.
        let ctl = Params::default().controller();
        let mut cp = Cp::new(&ctl, 0, Rate(10_000_000_000));
        let mut rng = stream(11, Stream::Port, 4);
        for _ in 0..1_000_000 {
            cp.on_arrival(Time(0), 70_000, &mut rng);
        }
        assert!((cp.samples as f64 - 10_000.0).abs() < 5.0 * 99.5, "{}", cp.samples);
        // Same seed, same samples (determinism).
        let mut cp2 = Cp::new(&ctl, 0, Rate(10_000_000_000));
        let mut rng = stream(11, Stream::Port, 4);
        let n = (0..1_000_000).filter(|_| cp2.on_arrival(Time(0), 70_000, &mut rng).is_some()).count();
        assert_eq!(cp2.samples, cp.samples);
        assert!(n as u64 <= cp2.samples);
    }

    #[test]
    fn periodic_sampling_takes_every_hundredth_frame_and_no_random_number() {
        // p = 0.01, periodic: the 100th, 200th, ... arriving frame (§III.A: "the switch transmit
        // 1/p packets during the sampling interval"), exactly 10^4 of 10^6, and the RNG untouched.
        let ctl = Params { periodic: true, ..Params::default() }.controller();
        let mut cp = Cp::new(&ctl, 0, Rate(10_000_000_000));
        let mut rng = stream(11, Stream::Port, 4);
        let sampled: Vec<u64> = (1..=1_000_000u64)
            .filter(|_| {
                let before = cp.samples;
                cp.on_arrival(Time(0), 70_000, &mut rng);
                cp.samples > before
            })
            .collect();
        assert_eq!(sampled.len(), 10_000);
        assert!(sampled.iter().enumerate().all(|(i, &f)| f == 100 * (i as u64 + 1)), "{:?}", &sampled[..3]);
        let mut fresh = stream(11, Stream::Port, 4);
        assert_eq!(rng.random::<u64>(), fresh.random::<u64>(), "no random number drawn");
    }

    #[test]
    fn rp_eq26_clamps_and_cpid_rule() {
        let line = Rate(10_000_000_000);
        let mut rp = Rp::new(100_000_000, line, line);
        // Increases at line rate change nothing; no CPID stored.
        rp.on_feedback(1, 5_000);
        assert_eq!((rp.rate_bps(), rp.cpid), (10_000_000_000, None));
        // CP 1 decreases: r = 10 G - 3 G, CPID 1 stored.
        rp.on_feedback(1, -3_000_000_000);
        assert_eq!((rp.rate_bps(), rp.cpid), (7_000_000_000, Some(1)));
        // Increase from CP 2 ignored; from CP 1 applied.
        rp.on_feedback(2, 1_000_000_000);
        assert_eq!((rp.rate_bps(), rp.ignored_increases), (7_000_000_000, 1));
        rp.on_feedback(1, 1_000_000_000);
        assert_eq!(rp.rate_bps(), 8_000_000_000);
        // A decrease from CP 2 moves the CPID to 2.
        rp.on_feedback(2, -500_000_000);
        assert_eq!((rp.rate_bps(), rp.cpid), (7_500_000_000, Some(2)));
        rp.on_feedback(1, 1_000_000_000);
        assert_eq!(rp.rate_bps(), 7_500_000_000);
        // Floor at MinRate, cap at line rate (which forgets the CPID).
        rp.on_feedback(2, -100_000_000_000);
        assert_eq!(rp.rate_bps(), 100_000_000);
        rp.on_feedback(2, i64::MAX);
        assert_eq!((rp.rate_bps(), rp.cpid), (10_000_000_000, None));
        rp.on_feedback(1, i64::MIN);
        assert_eq!(rp.rate_bps(), 100_000_000);
    }

    #[test]
    fn validate_names_fields() {
        let bad = [
            (Params { q0_bytes: 0, ..Params::default() }, "l2.q0_bytes"),
            (Params { p: 0.0, ..Params::default() }, "l2.p"),
            (Params { p: 1.5, ..Params::default() }, "l2.p"),
            (Params { p: f64::NAN, ..Params::default() }, "l2.p"),
            (Params { t_ps: 0, ..Params::default() }, "l2.t_ps"),
            (Params { m: MAX_M + 1, ..Params::default() }, "l2.m"),
            (Params { h_a_hz: -1.0, ..Params::default() }, "l2.h_a_hz"),
            (Params { h_b_hz: f64::INFINITY, ..Params::default() }, "l2.h_b_hz"),
            (Params { h_c_hz: 0.0, ..Params::default() }, "l2.h_c_hz"),
            (Params { omega: 0.0, ..Params::default() }, "l2.omega"),
            (Params { min_rate_bps: 0, ..Params::default() }, "l2.min_rate_bps"),
        ];
        for (p, field) in bad {
            let e = p.validate("l2").unwrap_err().to_string();
            assert!(e.starts_with(&format!("{field}:")), "{e}");
        }
        Params::default().validate("l2").unwrap();
        Params { m: 0, p: 1.0, ..Params::default() }.validate("l2").unwrap();
    }
}
