//! SMCC, Sliding Mode Congestion Control (Jiang, Ren, Shu, Lin; INFOCOM 2012) — a
//! **reconstruction in the spirit of the DSM paper, not a transcription of the SMCC paper**.
//!
//! What is known for sure (protocols.md §2): SMCC keeps the 802.1Qau CP/RP framework and drives
//! the state (queue offset Q_f, queue variation Q_v) onto a switching line by sliding-mode
//! control. Its exact per-event rules and defaults were not found in public material. The DSM
//! paper is the delay-tolerant extension of exactly this design: with m = 0 its detector
//! (eq. 25) reduces to the plain (Q_f, Q_v) and its rule (eq. 22) to a sliding-mode rule without
//! delay compensation. So SMCC here is the DSM controller ([`super::dsm`]) with m = 0 and its own
//! gains a, b, c and ω, given directly (in 1/s) rather than through DSM's H_a, H_b, H_c.
//!
//! Default gains: the DSM paper's §V guideline at m = 0 with the same H_a = H_b = H_c = 20 kHz,
//! i.e. a = H_a / 2 = 10^4 1/s, b = H_b / 3 = 6667 1/s, c = H_c / 2 = 10^4 1/s, ω = 5. These lie
//! inside the ranges of DSM's eq. (23) and (31) at m = 0 with the §V settings (a, c < 1/T =
//! 12.5 kHz; 1/((ω+1)T) = 2083 < b < 1/(1.5 T) = 8333 1/s; ω > 0.5). The DSM paper says only
//! that its SMCC "follows the parameter settings in \[21\]", which we do not have.

use serde::{Deserialize, Serialize};

use super::dsm::{self, default_min_rate_bps, validate_common, Controller};
use super::{check_open, payload, CpId, Param, Scheme, Signal, Unit};
use crate::error::Result;
use crate::units::Rate;

fn default_q0_bytes() -> u64 {
    64_000 // as DSM (DSM paper §V)
}
fn default_p() -> f64 {
    0.01
}
fn default_t_ps() -> u64 {
    80_000_000 // 80 us
}
fn default_a_per_s() -> f64 {
    10_000.0 // H_a / (m² + 4m + 2) at m = 0, H_a = 20 kHz
}
fn default_b_per_s() -> f64 {
    20_000.0 / 3.0 // H_b / (2m + 3) at m = 0
}
fn default_c_per_s() -> f64 {
    10_000.0 // H_c / 2
}
fn default_omega() -> f64 {
    5.0
}

/// SMCC parameters: the sliding-mode controller without delay compensation (m = 0).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Target queue q0, bytes.
    #[serde(default = "default_q0_bytes")]
    pub q0_bytes: u64,
    /// Sampling probability p per arriving frame.
    #[serde(default = "default_p")]
    pub p: f64,
    /// Sampling period T, ps (unused by the control law: the gains are in 1/s and at m = 0 eq. 25
    /// has no T term; kept for the spec's shape).
    #[serde(default = "default_t_ps")]
    pub t_ps: u64,
    /// Gain a (StateA, Fb = -a Q_f), 1/s.
    #[serde(default = "default_a_per_s")]
    pub a_per_s: f64,
    /// Gain b (StateB, Fb = -b Q_v), 1/s.
    #[serde(default = "default_b_per_s")]
    pub b_per_s: f64,
    /// Gain c (StateC, reaching law Fb = -c Q_f), 1/s.
    #[serde(default = "default_c_per_s")]
    pub c_per_s: f64,
    /// Slope weight ω of the switching line δ = Q_f + ω Q_v.
    #[serde(default = "default_omega")]
    pub omega: f64,
    /// Rate floor of the RP, bit/s.
    #[serde(default = "default_min_rate_bps")]
    pub min_rate_bps: u64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            q0_bytes: default_q0_bytes(),
            p: default_p(),
            t_ps: default_t_ps(),
            a_per_s: default_a_per_s(),
            b_per_s: default_b_per_s(),
            c_per_s: default_c_per_s(),
            omega: default_omega(),
            min_rate_bps: default_min_rate_bps(),
        }
    }
}

impl Params {
    pub fn validate(&self, prefix: &str) -> Result<()> {
        validate_common(prefix, self.q0_bytes, self.p, self.t_ps, self.omega, self.min_rate_bps)?;
        check_open(prefix, "a_per_s", self.a_per_s, 0.0, 1e15, "gain a")?;
        check_open(prefix, "b_per_s", self.b_per_s, 0.0, 1e15, "gain b")?;
        check_open(prefix, "c_per_s", self.c_per_s, 0.0, 1e15, "gain c")
    }

    /// The DSM controller with m = 0 and these gains.
    pub fn controller(&self) -> Controller {
        Controller {
            q0_bytes: self.q0_bytes,
            p: self.p,
            t_ps: self.t_ps,
            m: 0,
            a_per_s: self.a_per_s,
            b_per_s: self.b_per_s,
            c_per_s: self.c_per_s,
            omega: self.omega,
            periodic: false,
        }
    }
}

/// SMCC runs DSM's CP (with m = 0 and these gains) and DSM's RP.
impl Scheme for Params {
    const NAME: &'static str = "smcc";
    const PARAMS: &'static [Param] = &[
        Param { name: "q0", field: "q0_bytes", unit: Unit::Bytes },
        Param { name: "p", field: "p", unit: Unit::Probability },
        Param { name: "T", field: "t_ps", unit: Unit::Ps },
        Param { name: "a", field: "a_per_s", unit: Unit::PerSecond },
        Param { name: "b", field: "b_per_s", unit: Unit::PerSecond },
        Param { name: "c", field: "c_per_s", unit: Unit::PerSecond },
        Param { name: "omega", field: "omega", unit: Unit::Number },
        Param { name: "min_rate", field: "min_rate_bps", unit: Unit::Bps },
    ];
    type Cp = dsm::Cp;
    type Rp = dsm::Rp;

    fn check(&self, prefix: &str) -> Result<()> {
        self.validate(prefix)
    }
    fn min_rate_bps(&self) -> u64 {
        self.min_rate_bps
    }
    fn target_queue(&self) -> (&'static str, u64) {
        ("q0", self.q0_bytes)
    }
    /// DSM's CP, as DSM samples (the DSM paper's framework, §II.A).
    const SAMPLES_DROPPED_ARRIVALS: bool = true;
    fn cp(&self, cpid: CpId, link_rate: Rate) -> dsm::Cp {
        dsm::Cp::new(&self.controller(), cpid, link_rate)
    }
    fn rp(&self, line_rate: Rate, initial_rate: Rate) -> dsm::Rp {
        dsm::Rp::new(self.min_rate_bps, line_rate, initial_rate)
    }
    #[inline]
    fn encode(signal: &Signal) -> u64 {
        payload(signal)
    }
    #[inline]
    fn decode(payload: u64) -> Signal {
        Signal::Rate { fb_bps: payload as i64 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::l2::dsm::{sliding_rule, Cp, Region};
    use crate::l2::{Feedback, L2Spec, Signal};

    #[test]
    fn smcc_is_the_plain_sliding_rule_on_qf_qv() {
        let p = Params::default();
        let spec = L2Spec::Smcc(p.clone());
        let mut cp = match spec.cp(9, Rate(10_000_000_000)) {
            crate::l2::Cp::Smcc(c) => c,
            other => panic!("{other:?}"),
        };
        // Without history the detector is (Q_f, Q_v) = (q - q0, q - q_prev) whatever was sent.
        let mut q_prev = 0u64;
        for q in [0u64, 20_000, 90_000, 70_000, 64_000, 30_000, 31_000] {
            let (qf, qv) = (q as f64 - 64_000.0, q as f64 - q_prev as f64);
            let (region, u) = sliding_rule(qf, qv, p.a_per_s, p.b_per_s, p.c_per_s, p.omega);
            let expect = (8.0 * u).round().clamp(-1e10, 1e10) as i64;
            let got = cp.sample(q);
            let s = cp.last.unwrap();
            assert_eq!((s.qf_hat_bytes, s.qv_hat_bytes, s.region, s.fb_bps), (qf, qv, region, expect), "q = {q}");
            if expect != 0 {
                assert_eq!(got, Some(Feedback { cpid: 9, signal: Signal::Rate { fb_bps: expect } }));
            }
            q_prev = q;
        }
        // q = 90000 after 20000: Q_f = 26000, Q_v = 70000 -> StateC, Fb = -8 c Q_f.
        let mut cp = Cp::new(&p.controller(), 0, Rate(10_000_000_000));
        cp.sample(20_000);
        cp.sample(90_000);
        assert_eq!(cp.last.unwrap().region, Region::C);
        assert_eq!(cp.last.unwrap().fb_bps, -2_080_000_000); // 8 * 1e4 * 26000
    }

    #[test]
    fn validate_names_fields() {
        for (p, field) in [
            (Params { a_per_s: 0.0, ..Params::default() }, "x.a_per_s"),
            (Params { b_per_s: f64::NAN, ..Params::default() }, "x.b_per_s"),
            (Params { c_per_s: -3.0, ..Params::default() }, "x.c_per_s"),
            (Params { p: 2.0, ..Params::default() }, "x.p"),
            (Params { q0_bytes: 0, ..Params::default() }, "x.q0_bytes"),
        ] {
            let e = p.validate("x").unwrap_err().to_string();
            assert!(e.starts_with(&format!("{field}:")), "{e}");
        }
        Params::default().validate("x").unwrap();
    }
}
