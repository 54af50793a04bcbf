//! DCTCP (Alizadeh et al., SIGCOMM 2010; RFC 8257; analysis paper §2.1).
//!
//! alpha <- (1 - g) alpha + g F once per window of data, F the fraction of acknowledged
//! segments that carried ECN-Echo (eq. 3); on ECN-Echo, W <- W (1 - alpha/2) (eq. 4), at most
//! once per window (enforced by the transport).
//!
//! Two arithmetics:
//! * **exact** (ns-2 profile, the analysis paper's equations): real alpha and window; the window
//!   ends at the first ACK beyond `snd_nxt` of the previous update (ns-2 `ack > recover`), the first
//!   window is fixed at the first ACK.
//! * **Linux** (`dctcp_fixed_point`, the Linux profile's default), the semantics of Linux's
//!   `tcp_dctcp.c` as publicly documented (source comments and the RFC 8257 text it implements):
//!   - alpha is an integer in [0, 1024] (`DCTCP_MAX_ALPHA`), g = 2^-k a shift (`dctcp_shift_g`,
//!     default 4, our g = 1/16);
//!   - the update runs when snd_una reaches the window end (`!before(snd_una, next_seq)`, i.e.
//!     ack >= end), and the first window end is `snd_nxt` at connection start (segment 0), so the
//!     first ACK already updates alpha;
//!   - `alpha -= min_not_zero(alpha, alpha >> k)`: an alpha below 2^k decays to 0 in one step;
//!     then `alpha += (marked << (10 - k)) / max(1, acked)`, capped at 1024;
//!   - the reduction is the ssthresh of `dctcp_ssthresh`: `max(cwnd - ((cwnd * alpha) >> 11), 2)` on
//!     whole segments, applied through CWR / PRR by the transport (`ecn_response = "prr"`). Small
//!     windows with small alpha are not reduced at all (the product rounds down to 0): the
//!     "no 2-packet floor" of Linux is in fact a floor of 2 on ssthresh and no reduction below it;
//!     the transport's general floor is 1 segment (`min_cwnd`), reached only transiently in PRR
//!     and after an RTO.
//!   - On losses Linux DCTCP halves (`dctcp_react_to_loss`: max(cwnd >> 1, 2), also on entering
//!     Recovery from CWR), as Reno does: the transport applies that under the Linux profile
//!     (`Sender::loss_ssthresh`), and FlightSize / 2 (RFC 5681/6675) under ns-2's.
//!   - The ACK's own segments count in the window it closes (alpha updated after them), the
//!     order of Linux >= 6.14 (`tcp_in_ack_event` after `tcp_clean_rtx_queue`); older kernels
//!     updated alpha first, so those segments fell into the next window (alpha lags by at most
//!     2^-k x the segments of one ACK; means within 0.1 %: a probe's 160 random ACK streams).

use serde::{Deserialize, Serialize};

use super::{Controller, EcnResponse, Param, Protocol, ProtocolSpec, Unit};
use crate::error::Result;
use crate::scenario::check_unit_interval;

/// DCTCP in scenarios: `protocol = "dctcp"` with the EWMA gain `g` of eq. (3) and alpha's
/// initial value `alpha_init`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// EWMA gain g of eq. (3), in (0, 1]; the analysis paper's 1/16.
    pub g: f64,
    /// alpha before the first window's update, in [0, 1]; 1 as RFC 8257 (and Linux) start it.
    pub alpha_init: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params { g: 1.0 / 16.0, alpha_init: 1.0 }
    }
}

impl Protocol for Params {
    const NAME: &'static str = "dctcp";
    const PARAMS: &'static [Param] = &[
        Param { name: "g", field: "g", unit: Unit::Gain },
        Param { name: "alpha_init", field: "alpha_init", unit: Unit::Fraction },
    ];
    type Controller = Dctcp;

    fn controller(&self) -> Dctcp {
        Dctcp::new(self.g, self.alpha_init)
    }
    /// g in (0, 1], alpha_init in [0, 1].
    fn check(&self, field: &dyn Fn(&str) -> String) -> Result<()> {
        check_unit_interval(&field("g"), self.g, true)?;
        check_unit_interval(&field("alpha_init"), self.alpha_init, false)
    }
    fn dctcp_g(&self) -> Option<f64> {
        Some(self.g)
    }
}

impl ProtocolSpec {
    /// DCTCP with gain `g` and initial alpha `alpha_init`.
    pub fn dctcp(g: f64, alpha_init: f64) -> Self {
        ProtocolSpec::Dctcp(Params { g, alpha_init })
    }
}

pub struct Dctcp {
    /// EWMA gain g.
    pub g: f64,
    /// Estimated fraction of marked packets.
    pub alpha: f64,
    /// End of the current observation window (a segment number); None before the first ACK.
    window_end: Option<u64>,
    acked: u64,
    marked: u64,
    /// Linux's fixed-point arithmetic: (shift k with g = 2^-k, alpha in 1/1024).
    linux: Option<(u32, u32)>,
}

/// Linux's `DCTCP_MAX_ALPHA`: alpha = 1 in fixed point.
pub const LINUX_MAX_ALPHA: u32 = 1024;

impl Dctcp {
    pub fn new(g: f64, alpha_init: f64) -> Self {
        Dctcp { g, alpha: alpha_init, window_end: None, acked: 0, marked: 0, linux: None }
    }

    /// Switch to Linux's fixed-point arithmetic (g must be 2^-k, k <= 10: checked by the spec).
    pub fn use_linux_arithmetic(&mut self) {
        let k = crate::scenario::dctcp_shift_g(self.g).expect("g = 2^-k, validated");
        let a = (self.alpha * LINUX_MAX_ALPHA as f64).round() as u32;
        self.linux = Some((k, a.min(LINUX_MAX_ALPHA)));
        self.window_end = Some(0);
    }

    /// Count acknowledged / marked segments; once the ACK passes the window end, update alpha (eq. 3).
    #[inline]
    pub fn on_ack(&mut self, acked: u64, ece: bool, ack_no: u64, snd_nxt: u64) {
        let end = *self.window_end.get_or_insert(snd_nxt);
        self.acked += acked;
        if ece {
            self.marked += acked;
        }
        if let Some((k, a)) = &mut self.linux {
            if ack_no >= end {
                *a -= if *a >> *k == 0 { *a } else { *a >> *k };
                if self.marked > 0 {
                    let add = (self.marked << (10 - *k)) / self.acked.max(1);
                    *a = (*a as u64 + add).min(LINUX_MAX_ALPHA as u64) as u32;
                }
                self.alpha = *a as f64 / LINUX_MAX_ALPHA as f64;
                self.window_end = Some(snd_nxt);
                self.acked = 0;
                self.marked = 0;
            }
            return;
        }
        if ack_no > end && self.acked > 0 {
            let f = self.marked as f64 / self.acked as f64;
            self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
            self.window_end = Some(snd_nxt);
            self.acked = 0;
            self.marked = 0;
        }
    }

    /// eq. (4): W <- W (1 - alpha/2); in Linux arithmetic `dctcp_ssthresh`,
    /// max(W - ((W alpha) >> 11), 2) on whole segments.
    #[inline]
    pub fn ecn_cut(&self, cwnd: f64) -> f64 {
        match self.linux {
            Some((_, a)) => {
                let w = cwnd.floor().max(0.0) as u64;
                (w - ((w * a as u64) >> 11)).max(2) as f64
            }
            None => cwnd * (1.0 - self.alpha / 2.0),
        }
    }
}

/// ECN-capable; eq. (3) on every ACK, eq. (4) once per window; halves on a loss found in CWR
/// under the Linux profile (`dctcp_state`).
impl Controller for Dctcp {
    fn ect(&self) -> bool {
        true
    }

    #[inline]
    fn on_ack(&mut self, acked: u64, ece: bool, ack_no: u64, snd_nxt: u64) {
        Dctcp::on_ack(self, acked, ece, ack_no, snd_nxt);
    }

    fn ecn_response(&self) -> EcnResponse {
        EcnResponse::OncePerWindow
    }

    #[inline]
    fn ecn_cut(&self, cwnd: f64) -> f64 {
        Dctcp::ecn_cut(self, cwnd)
    }

    fn halves_on_loss_in_cwr(&self) -> bool {
        true
    }

    fn alpha(&self) -> f64 {
        self.alpha
    }

    fn use_linux_dctcp(&mut self) {
        self.use_linux_arithmetic();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn alpha_follows_eq3() {
        let mut d = Dctcp::new(1.0 / 16.0, 0.0);
        // Window 0..10: first ACK fixes the window end at snd_nxt = 10.
        for ack in 1..=10u64 {
            d.on_ack(1, ack % 2 == 0, ack, 10);
        }
        // ack 11 passes the end: F = 5 marked of 11 acked... the 11th ACK is counted in this window.
        d.on_ack(1, false, 11, 20);
        let f = 5.0 / 11.0;
        assert!((d.alpha - f / 16.0).abs() < 1e-12);
        assert!((d.ecn_cut(10.0) - 10.0 * (1.0 - d.alpha / 2.0)).abs() < 1e-12);
    }

    #[test]
    fn linux_fixed_point_follows_tcp_dctcp() {
        let mut d = Dctcp::new(1.0 / 16.0, 1.0);
        d.use_linux_arithmetic();
        // The first window ends at segment 0 (snd_nxt at connection start): the first ACK updates.
        // 1024 - (1024 >> 4) = 960, one marked of one acked: + (1 << 6) / 1 = 64 -> 1024.
        d.on_ack(1, true, 1, 10);
        assert_eq!(d.linux, Some((4, 1024)));
        // Next window ends at 10: ACKs 2..=9 count; ACK 10 reaches it (ack >= end) and updates:
        // 9 acked, 3 marked: 1024 - 64 + (3 << 6) / 9 = 960 + 21 = 981.
        for a in 2..=10u64 {
            d.on_ack(1, a <= 4, a, 20);
        }
        assert_eq!(d.linux, Some((4, 981)));
        assert!((d.alpha - 981.0 / 1024.0).abs() < 1e-12);
        // ssthresh = max(W - ((W alpha) >> 11), 2): 20 -> 20 - (20 * 981 >> 11) = 20 - 9 = 11.
        assert_eq!(d.ecn_cut(20.7), 11.0);
        // Small alpha, small window: no reduction at all (10 * 96 >> 11 = 0), where eq. (4) cuts.
        d.linux = Some((4, 96));
        assert_eq!(d.ecn_cut(10.0), 10.0);
        d.alpha = 96.0 / 1024.0;
        d.linux = None;
        assert!(d.ecn_cut(10.0) < 9.6);
        // min_not_zero: alpha < 16 decays to 0 in one unmarked window.
        d.linux = Some((4, 15));
        d.window_end = Some(0);
        d.on_ack(1, false, 1, 5);
        assert_eq!(d.linux, Some((4, 0)));
        // The floor of 2 on ssthresh.
        d.linux = Some((4, 1024));
        assert_eq!(d.ecn_cut(3.0), 2.0);
    }
}
