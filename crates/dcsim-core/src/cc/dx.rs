//! DX, the latency-based window controller of Lee et al. (IEEE/ACM ToN 2017), in the form the DX
//! analysis paper gives it (Jiang et al., "Modeling and Analysis of the Latency-Based Congestion
//! Control Algorithm DX", eqs. 1-2):
//!
//! ```text
//! once per RTT:  W <- W + 1            if Q = 0                                   (1)
//!                W <- W (1 - Q / U)    if Q > 0,   U = R0 W / (W - 1)             (2)
//! ```
//!
//! i.e. W <- W - Q (W - 1) / R0 when Q > 0: at W = 1 segment the decrease vanishes, and with the
//! transport's floor of one segment this creates the "special stable state" of Theorem 2.
//!
//! What the paper leaves open, and what we chose:
//! * **Q**: the mean, over the ACKs of the last RTT, of (RTT sample - base RTT). Each ACK echoes
//!   the timestamp of the data packet that triggered it, so every ACK (duplicates included) gives
//!   one sample. "Q = 0" means every sample of the round equalled the base RTT exactly.
//! * **Timestamps**: exact, as DX's NIC hardware timestamps: a data packet is stamped when its
//!   transmission starts on the sender's NIC ([`Dx::NIC_TX_TIMESTAMPS`]), and the ACK when it
//!   arrives, so an RTT sample minus the base RTT is exactly the time the packet waited in
//!   switch queues (the receiver acknowledges at once and holds no packet).
//! * **Base RTT R0**: by default the minimum RTT sample seen so far ([`BaseRtt::Min`]), which
//!   includes the samples of the current round. A flow that starts while a standing queue exists
//!   never sees the true base RTT and overestimates it (the classic latecomer problem of
//!   delay-based control). The scenario's `R0 = "path"`
//!   ([`BaseRttSpec::Path`]) gives the flow the exact base RTT
//!   of its path (what a host that knows its topology, or measured it idle, would use): the world
//!   builder computes it (propagation plus a data packet and its ACK serialised on every hop) and
//!   hands it to DX as [`BaseRtt::Fixed`], which also takes any given value. U of eq. (2) uses the
//!   same R0. Flows started one packet's service time apart see the empty network with `Min`
//!   (the DX experiments' start-up for `"min"`).
//! * **Readings we tested and did not adopt** (the paper says "once per RTT" and leaves the
//!   implementation open): sending round(W) or ceil(W) packets instead of floor(W), +1/W per ACK
//!   instead of +1 at the round's end, a round of floor(W) ACK samples, a threshold on Q = 0,
//!   and ns-3 semantics: a byte window (ns-3 sends no short segment to a bulk sender: SWS
//!   avoidance; emulated by pacing), pacing at cwnd/srtt, Q from ns-3's smoothed RTT (what
//!   ns-3 hands its congestion controls), socket instead of NIC timestamps, ns-3's delayed ACK.
//!   None brings the packet system at N = 50, R0 = 80 us to the fluid model's p = 0.95 and mean
//!   queue (pacing and the smoothed RTT give p = 0.97-1 but a queue of 0.5-3 pkt against 7.3);
//!   the numbers are in `python/dcsim/experiments/dx_packet.py`'s docstring.
//! * **Once per RTT**: a round ends at the first ACK that acknowledges data sent after the
//!   previous decision (the ACK passes `snd_nxt` of that moment, as DCTCP's alpha window). The
//!   first round starts at the first ACK, so the first decision comes about two RTTs after the
//!   start; before it the window is the initial window. There is no slow start.
//! * **Increase only when the window limited the sender** (RFC 7661, as the transport does for
//!   NewReno and DCTCP): a sender held back by its NIC does not grow W while Q = 0.
//! * **No ECN, no loss signal**: DX packets are not ECN-capable and DX never cuts its window on a
//!   loss. Loss recovery stays the transport's (3-dupACK fast retransmit, NewReno partial ACKs,
//!   RTO) without its window changes; an RTO restarts the ACK clock from one segment (RFC 5681
//!   §3.1; a transport rule, not a window decision of DX), after which (1)-(2) resume.
//! * **Window floor**: 1 segment by default for DX (`min_cwnd`), the paper's floor.
//!
//! Per-flow statistics (flows table): `rtt_rounds` decisions, `rtt_decreases` of them with Q > 0
//! (the paper's "probability of decreasing windows" p of Table 1 is their ratio), the sum of the
//! rounds' Q for its mean, and per ACK: `rtt_samples`, `rtt_samples_queued` (sample > R0).

use serde::{Deserialize, Serialize};

use super::{Controller, Param, Protocol, ProtocolSpec, Unit};
use crate::error::Result;
use crate::scenario::{check_time, BaseRttSpec};
use crate::units::Time;

/// DX in scenarios: `protocol = "dx"` with its base RTT `R0` ("min", "path" or a time).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Base RTT R0 of eq. (2): the minimum RTT seen (default), the path's exact base RTT, or a value.
    pub r0: BaseRttSpec,
}

impl Protocol for Params {
    const NAME: &'static str = "dx";
    const PARAMS: &'static [Param] = &[Param { name: "R0", field: "r0", unit: Unit::BaseRtt }];
    /// One segment: the DX analysis paper's floor (Section 3.3), which creates the special
    /// stable state of its Theorem 2.
    const MIN_CWND_PKT: f64 = 1.0;
    type Controller = Dx;

    fn controller(&self) -> Dx {
        Dx::new(match self.r0 {
            BaseRttSpec::Min | BaseRttSpec::Path => BaseRtt::Min,
            BaseRttSpec::FixedPs(ps) => BaseRtt::Fixed(Time(ps)),
        })
    }
    fn check(&self, field: &dyn Fn(&str) -> String) -> Result<()> {
        match self.r0 {
            BaseRttSpec::FixedPs(ps) => check_time(&field("R0"), ps, true),
            BaseRttSpec::Min | BaseRttSpec::Path => Ok(()),
        }
    }
    fn wants_path_rtt(&self) -> bool {
        self.r0 == BaseRttSpec::Path
    }
    fn set_base_rtt(&mut self, rtt: Time) {
        self.r0 = BaseRttSpec::FixedPs(rtt.0);
    }
}

impl ProtocolSpec {
    /// DX with base RTT `r0`.
    pub fn dx(r0: BaseRttSpec) -> Self {
        ProtocolSpec::Dx(Params { r0 })
    }
}

/// Where the base RTT R0 comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaseRtt {
    /// The minimum RTT sample seen so far.
    Min,
    /// A fixed value known in advance, ps (the engine's exact path RTT for "path").
    Fixed(Time),
}

/// The outcome of one once-per-RTT decision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Round {
    /// New window, segments (before the transport's floor).
    pub cwnd: f64,
    /// Q > 0: the decrease branch of eq. (1) was taken.
    pub decrease: bool,
    /// Mean queueing delay of the round, ps (rounded down).
    pub q_ps: u64,
}

pub struct Dx {
    base: BaseRtt,
    /// Minimum RTT sample so far.
    min_rtt: Option<Time>,
    /// End of the current round (a segment number); None before the first ACK.
    round_end: Option<u64>,
    /// Sum and number of the RTT samples of the current round, ps.
    sum_ps: u128,
    samples: u64,
}

impl Dx {
    /// DX stamps data packets when their transmission starts on the NIC (hardware timestamps).
    pub const NIC_TX_TIMESTAMPS: bool = true;

    pub fn new(base: BaseRtt) -> Self {
        Dx { base, min_rtt: None, round_end: None, sum_ps: 0, samples: 0 }
    }

    /// The base RTT R0 in use (None before the first sample when it is the minimum).
    pub fn r0(&self) -> Option<Time> {
        match self.base {
            BaseRtt::Min => self.min_rtt,
            BaseRtt::Fixed(t) => Some(t),
        }
    }

    /// One RTT sample (exact timestamps), for the current round's mean and the minimum. Returns
    /// whether the sample shows queueing (it exceeds the base RTT in use).
    #[inline]
    pub fn on_rtt_sample(&mut self, rtt: Time) -> bool {
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        self.sum_ps += rtt.0 as u128;
        self.samples += 1;
        self.r0().is_some_and(|r0| rtt > r0)
    }

    /// Called for every ACK that acknowledges new data, after its sample; at the end of a round,
    /// returns the decision of eqs. (1)-(2) for window `cwnd` and starts the next round.
    /// `cwnd_limited`: the window limited the sender (the increase needs it).
    #[inline]
    pub fn on_ack(&mut self, cwnd: f64, ack_no: u64, snd_nxt: u64, cwnd_limited: bool) -> Option<Round> {
        let end = *self.round_end.get_or_insert(snd_nxt);
        if ack_no <= end || self.samples == 0 {
            return None;
        }
        let r0 = self.r0()?;
        // Q = max(mean(sample) - R0, 0) = (sum - n R0)^+ / n. With R0 "path" or "min" no sample is
        // below R0, so Q = 0 iff every sample equals R0; with a fixed R0 above the true base RTT a
        // sample below R0 offsets one above it (the mean is floored, not each sample).
        let excess = self.sum_ps.saturating_sub(self.samples as u128 * r0.0 as u128);
        let q_ps = (excess / self.samples as u128) as u64;
        let round = if excess == 0 {
            Round { cwnd: if cwnd_limited { cwnd + 1.0 } else { cwnd }, decrease: false, q_ps: 0 }
        } else {
            let q_s = excess as f64 / self.samples as f64 / Time::PS_PER_S as f64;
            Round { cwnd: window_decrease(cwnd, q_s, r0.secs_f64()), decrease: true, q_ps }
        };
        self.round_end = Some(snd_nxt);
        self.sum_ps = 0;
        self.samples = 0;
        Some(round)
    }
}

/// No ECN, no loss response: the window is eqs. (1)-(2)'s, once per round, from exact
/// (NIC) timestamps.
impl Controller for Dx {
    fn reacts_to_loss(&self) -> bool {
        false
    }

    fn owns_window(&self) -> bool {
        true
    }

    fn nic_tx_timestamps(&self) -> bool {
        Dx::NIC_TX_TIMESTAMPS
    }

    #[inline]
    fn on_rtt_sample(&mut self, rtt: Time) -> Option<bool> {
        Some(Dx::on_rtt_sample(self, rtt))
    }

    #[inline]
    fn window_round(&mut self, cwnd: f64, ack_no: u64, snd_nxt: u64, cwnd_limited: bool) -> Option<Round> {
        Dx::on_ack(self, cwnd, ack_no, snd_nxt, cwnd_limited)
    }

    fn base_rtt_s(&self) -> f64 {
        self.r0().map_or(f64::NAN, |t| t.secs_f64())
    }
}

/// Eqs. (1)-(2), decrease branch: W (1 - Q/U) with U = R0 W/(W - 1), i.e. W - Q (W - 1)/R0
/// (written without U so that W = 1 needs no division by zero). Q and R0 in seconds.
#[inline]
pub fn window_decrease(w: f64, q_s: f64, r0_s: f64) -> f64 {
    w - q_s * (w - 1.0) / r0_s
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: u64 = 1_000_000;

    #[test]
    fn eq2_and_the_one_segment_fixed_point() {
        // U = R0 W/(W-1): W(1 - Q/U) equals W - Q(W-1)/R0.
        let (w, q, r0) = (10.0, 8e-6, 80e-6);
        let u = r0 * w / (w - 1.0);
        assert!((window_decrease(w, q, r0) - w * (1.0 - q / u)).abs() < 1e-12);
        // W = 1 segment is unchanged by any Q (U is infinite): Theorem 2's frozen window.
        assert_eq!(window_decrease(1.0, 1e-3, r0), 1.0);
    }

    #[test]
    fn once_per_rtt_with_the_mean_queueing_delay() {
        let mut d = Dx::new(BaseRtt::Min);
        // First ACK fixes the round end at snd_nxt = 10; samples 100, 100 us.
        d.on_rtt_sample(Time(100 * US));
        assert_eq!(d.on_ack(10.0, 1, 10, true), None);
        d.on_rtt_sample(Time(100 * US));
        assert_eq!(d.on_ack(10.0, 2, 10, true), None);
        // ACK 11 passes the end: all samples equal the base -> Q = 0, W + 1.
        d.on_rtt_sample(Time(100 * US));
        let r = d.on_ack(10.0, 11, 20, true).expect("round ends");
        assert_eq!(r, Round { cwnd: 11.0, decrease: false, q_ps: 0 });
        // Next round: samples 104 and 108 us -> Q = 6 us -> W - 6 (W-1)/100.
        d.on_rtt_sample(Time(104 * US));
        assert_eq!(d.on_ack(11.0, 15, 20, true), None);
        d.on_rtt_sample(Time(108 * US));
        let r = d.on_ack(11.0, 21, 30, true).expect("round ends");
        assert!(r.decrease && r.q_ps == 6 * US);
        assert!((r.cwnd - (11.0 - 6e-6 * 10.0 / 100e-6)).abs() < 1e-12);
        // Not window-limited: no increase at Q = 0.
        d.on_rtt_sample(Time(100 * US));
        let r = d.on_ack(5.0, 31, 40, false).expect("round ends");
        assert_eq!(r.cwnd, 5.0);
    }

    #[test]
    fn fixed_base_rtt_floors_q_at_zero() {
        let mut d = Dx::new(BaseRtt::Fixed(Time(100 * US)));
        assert!(!d.on_rtt_sample(Time(90 * US))); // below R0: counts as Q = 0
        d.on_ack(3.0, 1, 3, true);
        assert!(!d.on_rtt_sample(Time(95 * US)));
        let r = d.on_ack(3.0, 4, 6, true).unwrap();
        assert!(d.on_rtt_sample(Time(101 * US)));
        assert_eq!((r.cwnd, r.decrease), (4.0, false));
        assert_eq!(d.r0(), Some(Time(100 * US)));
    }
}
