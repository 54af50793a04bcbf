//! "DCTCP–Improved Fairness", Section 5.2 of the DCTCP analysis paper (Alizadeh, Javanmard,
//! Prabhakar 2011), eq. (36):
//!
//! ```text
//! for each received ACK:  W <- W + 1/W            if ECN = 0
//!                         W <- W + 1/W - alpha/2  if ECN = 1                          (36)
//! ```
//!
//! alpha is DCTCP's estimate (eq. 3, once per window of data, shared with [`Dctcp`]). A full window
//! of marked ACKs subtracts about W alpha/2, DCTCP's cut (eq. 4), but spread over the window as the
//! fluid model's continuous decrease (37), and with no once-per-window rule. An ACK that covers
//! several segments (delayed ACKs) counts as that many ACKs for the decrease (n alpha/2), while the
//! increase 1/W is the transport's congestion avoidance, which without ABC adds one 1/W per ACK
//! whatever it covers: with delayed ACKs the two terms of (36) are not counted alike (the paper's
//! ns-2 runs, and our experiments, ACK every segment, where they are). Slow start runs before the
//! first mark (the first mark ends it); the window floor `min_cwnd` holds as for DCTCP.

use serde::{Deserialize, Serialize};

use super::{Controller, Dctcp, EcnResponse, Param, Protocol, ProtocolSpec};
use crate::error::Result;

/// DCTCP–Improved Fairness in scenarios: `protocol = "dctcp-improved-fairness"` with DCTCP's
/// parameters, defaults and checks (its alpha is DCTCP's).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Params(pub super::dctcp::Params);

impl Protocol for Params {
    const NAME: &'static str = "dctcp-improved-fairness";
    const PARAMS: &'static [Param] = <super::dctcp::Params as Protocol>::PARAMS;
    type Controller = DctcpImprovedFairness;

    fn controller(&self) -> DctcpImprovedFairness {
        DctcpImprovedFairness { dctcp: self.0.controller() }
    }
    fn check(&self, field: &dyn Fn(&str) -> String) -> Result<()> {
        self.0.check(field)
    }
    fn dctcp_g(&self) -> Option<f64> {
        self.0.dctcp_g()
    }
    fn why_no_window_cut(&self) -> Option<&'static str> {
        Some("dctcp-improved-fairness decreases its window on every marked ACK (eq. 36), not once per window")
    }
}

impl ProtocolSpec {
    /// DCTCP–Improved Fairness with DCTCP's gain `g` and initial alpha `alpha_init`.
    pub fn dctcp_improved_fairness(g: f64, alpha_init: f64) -> Self {
        ProtocolSpec::DctcpImprovedFairness(Params(super::dctcp::Params { g, alpha_init }))
    }
}

pub struct DctcpImprovedFairness {
    pub dctcp: Dctcp,
}

impl DctcpImprovedFairness {
    pub fn new(g: f64, alpha_init: f64) -> Self {
        DctcpImprovedFairness { dctcp: Dctcp::new(g, alpha_init) }
    }
}

/// DCTCP's alpha, ECT and loss behaviour; the per-ACK decrease of eq. (36) instead of the cut.
impl Controller for DctcpImprovedFairness {
    fn ect(&self) -> bool {
        true
    }

    #[inline]
    fn on_ack(&mut self, acked: u64, ece: bool, ack_no: u64, snd_nxt: u64) {
        self.dctcp.on_ack(acked, ece, ack_no, snd_nxt);
    }

    fn ecn_response(&self) -> EcnResponse {
        EcnResponse::PerAck
    }

    fn ecn_cut(&self, cwnd: f64) -> f64 {
        self.dctcp.ecn_cut(cwnd)
    }

    /// Eq. (36), decrease part: W - (alpha/2) per acknowledged segment of a marked ACK.
    #[inline]
    fn per_ack_ecn_decrease(&self, cwnd: f64, acked: u64) -> f64 {
        cwnd - acked as f64 * self.dctcp.alpha / 2.0
    }

    fn halves_on_loss_in_cwr(&self) -> bool {
        true
    }

    fn alpha(&self) -> f64 {
        self.dctcp.alpha
    }

    fn use_linux_dctcp(&mut self) {
        self.dctcp.use_linux_arithmetic();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_of_marks_removes_about_w_alpha_over_2() {
        let mut c = DctcpImprovedFairness::new(1.0 / 16.0, 0.5);
        c.dctcp.alpha = 0.5;
        // 20 marked ACKs on W = 20: sum of alpha/2 = 5 = W alpha/2 (eq. 4's cut), increase aside.
        let mut w = 20.0;
        for _ in 0..20 {
            w = c.per_ack_ecn_decrease(w, 1);
        }
        assert!((w - (20.0 - 20.0 * 0.5 / 2.0)).abs() < 1e-12);
    }
}
