//! Layer-2 (Converged Ethernet, IEEE 802.1Qau framework) congestion control: a congestion point
//! (CP) at a switch egress queue and a reaction point (RP), a rate limiter, at each source.
//! One file per scheme:
//!
//! * [`qcn`]: QCN, the 802.1Qau scheme (protocols.md §1);
//! * [`dsm`]: DSM, the Delay-tolerant Sliding Mode scheme (DSM paper, eqs. 19-26);
//! * [`smcc`]: SMCC, reconstructed as the m = 0 case of DSM (protocols.md §2).
//!
//! The framework (DSM paper §II.A, Fig. 1): the CP samples arriving frames, computes a
//! congestion measure Fb and sends a feedback frame to the source of the sampled frame; after the
//! backward delay the RP adjusts its rate; the change reaches the queue after the forward delay.
//! These cores hold only the protocol state machines. The event loop owns the queues, routes the
//! feedback frame back to `source of the sampled frame` (so the loop delay is real) and paces
//! frames at [`Rp::rate`].
//!
//! # Contract with the event loop
//!
//! * CP: on every frame that arrives at a CP-enabled queue and is enqueued, call
//!   [`Cp::on_arrival`] with the queue length *including* the arriving frame (the standard
//!   samples arriving frames; protocols.md §1 pitfalls). A `Some(feedback)` is sent to the
//!   frame's source.
//! * RP: call [`Rp::on_feedback`] when a feedback frame arrives, [`Rp::on_tx`] for each data
//!   frame the source transmits. After any of the three calls, read [`Rp::next_timer`]: if it
//!   changed, schedule an event at that time. [`Rp::on_timer`] acts only if called at exactly the
//!   armed time and ignores stale events (it returns whether it fired), so the loop never has to
//!   cancel events.
//! * Randomness comes only from the `&mut Rng` arguments: pass the component's own stream
//!   (crate::rng::stream) and runs stay bit-identical.
//!
//! Adding a scheme: a file with its `Params` (serde + `validate`), a CP and an RP struct with the
//! methods dispatched below, a variant of [`L2Spec`], [`Cp`], [`Rp`] (and of [`Signal`] if its
//! feedback carries something new), and one arm in each match.

pub mod dsm;
pub mod qcn;
pub mod smcc;
pub mod world;

use serde::{Deserialize, Serialize};

use crate::error::{invalid, Error, Result};
use crate::rng::Rng;
use crate::units::{Rate, Time};

/// Identifier of a congestion point (the CPID of BCN/QCN/DSM feedback frames); the engine picks
/// it, e.g. the port index.
pub type CpId = u32;

/// A feedback frame's content: which CP sent it and the scheme's congestion measure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Feedback {
    pub cpid: CpId,
    pub signal: Signal,
}

/// The congestion measure carried by a feedback frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// QCN congestion notification message (CNM): `qntz` = |Fb| quantized to 6 bits (1..=63;
    /// never 0, a CP sends nothing then), and the queue offset and change it was computed from.
    Qcn { qntz: u8, q_off_bytes: i64, q_delta_bytes: i64 },
    /// Sliding-mode schemes (DSM, SMCC): the rate adjustment u = Fb, bit/s, signed (eq. 24, 26).
    Rate { fb_bps: i64 },
}

/// Which L2 scheme runs, with its parameters. Both halves of a scenario's CPs and RPs are built
/// from the same spec, so a CP and an RP never disagree about the feedback format.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum L2Spec {
    Qcn(qcn::Params),
    Dsm(dsm::Params),
    Smcc(smcc::Params),
}

impl L2Spec {
    /// Range checks of every field; errors name `{prefix}.{field}` and the allowed range.
    pub fn validate(&self, prefix: &str) -> Result<()> {
        match self {
            L2Spec::Qcn(p) => p.validate(prefix),
            L2Spec::Dsm(p) => p.validate(prefix),
            L2Spec::Smcc(p) => p.validate(prefix),
        }
    }

    /// Checks that need a source's line rate (MinRate must be below it).
    pub fn validate_line_rate(&self, prefix: &str, line_rate: Rate) -> Result<()> {
        let min = match self {
            L2Spec::Qcn(p) => p.min_rate_bps,
            L2Spec::Dsm(p) => p.min_rate_bps,
            L2Spec::Smcc(p) => p.min_rate_bps,
        };
        if line_rate.bps() == 0 || min > line_rate.bps() {
            return Err(invalid(
                format!("{prefix}.min_rate_bps"),
                format!(
                    "minimum rate {min} bit/s is above the source's line rate {} bit/s; allowed 0 < min_rate_bps <= line rate",
                    line_rate.bps()
                ),
            ));
        }
        Ok(())
    }

    /// The congestion point of a queue drained at `link_rate`.
    pub fn cp(&self, cpid: CpId, link_rate: Rate) -> Cp {
        match self {
            L2Spec::Qcn(p) => Cp::Qcn(qcn::Cp::new(p, cpid)),
            L2Spec::Dsm(p) => Cp::Dsm(dsm::Cp::new(&p.controller(), cpid, link_rate)),
            L2Spec::Smcc(p) => Cp::Smcc(dsm::Cp::new(&p.controller(), cpid, link_rate)),
        }
    }

    /// The reaction point of a source with line rate `line_rate`, starting at `initial_rate`
    /// (clamped to [min rate, line rate]; the DSM paper starts every flow at line rate).
    pub fn rp(&self, line_rate: Rate, initial_rate: Rate) -> Rp {
        match self {
            L2Spec::Qcn(p) => Rp::Qcn(qcn::Rp::new(p, line_rate, initial_rate)),
            L2Spec::Dsm(p) => Rp::Dsm(dsm::Rp::new(p.min_rate_bps, line_rate, initial_rate)),
            L2Spec::Smcc(p) => Rp::Smcc(dsm::Rp::new(p.min_rate_bps, line_rate, initial_rate)),
        }
    }
}

/// A congestion point (switch side).
#[derive(Clone, Debug)]
pub enum Cp {
    Qcn(qcn::Cp),
    Dsm(dsm::Cp),
    /// SMCC is the DSM controller with m = 0 (see [`smcc`]).
    Smcc(dsm::Cp),
}

impl Cp {
    /// A frame of `frame_bytes` arrived at `now` and was enqueued; `q_bytes` is the queue length
    /// including it. Returns the feedback to send to the frame's source, if any.
    #[inline]
    pub fn on_arrival(&mut self, now: Time, q_bytes: u64, frame_bytes: u32, rng: &mut Rng) -> Option<Feedback> {
        match self {
            Cp::Qcn(c) => c.on_arrival(q_bytes, frame_bytes, rng),
            Cp::Dsm(c) | Cp::Smcc(c) => c.on_arrival(now, q_bytes, rng),
        }
    }

    /// Frames sampled so far.
    pub fn samples_taken(&self) -> u64 {
        match self {
            Cp::Qcn(c) => c.samples,
            Cp::Dsm(c) | Cp::Smcc(c) => c.samples,
        }
    }

    pub fn cpid(&self) -> CpId {
        match self {
            Cp::Qcn(c) => c.cpid,
            Cp::Dsm(c) | Cp::Smcc(c) => c.cpid,
        }
    }
}

/// A reaction point: one rate limiter per source (flow).
#[derive(Clone, Debug)]
pub enum Rp {
    Qcn(qcn::Rp),
    Dsm(dsm::Rp),
    Smcc(dsm::Rp),
}

impl Rp {
    /// Current sending rate, bit/s (exact value; QCN's averaging makes it fractional).
    #[inline]
    pub fn rate_bps(&self) -> f64 {
        match self {
            Rp::Qcn(r) => r.rate_bps(),
            Rp::Dsm(r) | Rp::Smcc(r) => r.rate_bps() as f64,
        }
    }

    /// Current sending rate for pacing, rounded to whole bit/s (always >= 1).
    #[inline]
    pub fn rate(&self) -> Rate {
        Rate((self.rate_bps().round() as u64).max(1))
    }

    /// A feedback frame arrived at `now`. Errors only if the frame belongs to another scheme,
    /// which an engine that builds both halves from one [`L2Spec`] never produces.
    #[inline]
    pub fn on_feedback(&mut self, now: Time, fb: &Feedback, rng: &mut Rng) -> Result<()> {
        match (self, fb.signal) {
            (Rp::Qcn(r), Signal::Qcn { qntz, .. }) => {
                r.on_cnm(now, qntz, rng);
                Ok(())
            }
            (Rp::Dsm(r) | Rp::Smcc(r), Signal::Rate { fb_bps }) => {
                r.on_feedback(fb.cpid, fb_bps);
                Ok(())
            }
            (rp, s) => Err(Error::Run(format!(
                "feedback {s:?} delivered to a reaction point of another scheme ({})",
                rp.name()
            ))),
        }
    }

    /// The source transmitted a data frame of `frame_bytes` at `now`.
    #[inline]
    pub fn on_tx(&mut self, now: Time, frame_bytes: u32, rng: &mut Rng) {
        match self {
            Rp::Qcn(r) => r.on_tx(now, frame_bytes, rng),
            Rp::Dsm(_) | Rp::Smcc(_) => {}
        }
    }

    /// Time of the armed rate-increase timer, if any.
    #[inline]
    pub fn next_timer(&self) -> Option<Time> {
        match self {
            Rp::Qcn(r) => r.next_timer(),
            Rp::Dsm(_) | Rp::Smcc(_) => None,
        }
    }

    /// Timer event at `now`; acts (and returns true) only if `now` is the armed time.
    #[inline]
    pub fn on_timer(&mut self, now: Time, rng: &mut Rng) -> bool {
        match self {
            Rp::Qcn(r) => r.on_timer(now, rng),
            Rp::Dsm(_) | Rp::Smcc(_) => false,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Rp::Qcn(_) => "qcn",
            Rp::Dsm(_) => "dsm",
            Rp::Smcc(_) => "smcc",
        }
    }
}

// ------------------------------------------------------------------------- shared helpers

/// The 802.1Qau timer / counter jitter factor U(0.85, 1.15) (protocols.md §1, S1).
#[inline]
pub(crate) fn jitter(rng: &mut Rng) -> f64 {
    use rand::Rng as _;
    0.85 + 0.3 * rng.random::<f64>()
}

/// `field` must be a finite number in the open interval (lo, hi) (hi may be infinite).
pub(crate) fn check_open(prefix: &str, field: &str, x: f64, lo: f64, hi: f64, what: &str) -> Result<()> {
    if x.is_finite() && x > lo && x < hi {
        Ok(())
    } else {
        let range = if hi.is_infinite() { format!("> {lo}") } else { format!("in ({lo}, {hi})") };
        Err(invalid(format!("{prefix}.{field}"), format!("{what} = {x} is out of range; allowed {range}")))
    }
}

/// `field` must be a positive integer (> 0).
pub(crate) fn check_pos_u64(prefix: &str, field: &str, x: u64, what: &str) -> Result<()> {
    if x > 0 {
        Ok(())
    } else {
        Err(invalid(format!("{prefix}.{field}"), format!("{what} must be > 0, got {x}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Stream};

    #[test]
    fn spec_parses_with_defaults_and_rejects_unknown_fields() {
        let s: L2Spec = serde_json::from_str(r#"{"kind": "dsm"}"#).unwrap();
        assert_eq!(s, L2Spec::Dsm(dsm::Params::default()));
        let s: L2Spec = serde_json::from_str(r#"{"kind": "qcn", "w": 2.0}"#).unwrap();
        assert_eq!(s, L2Spec::Qcn(qcn::Params::default()));
        let s: L2Spec = serde_json::from_str(r#"{"kind": "smcc"}"#).unwrap();
        assert_eq!(s, L2Spec::Smcc(smcc::Params::default()));
        for bad in [r#"{"kind": "dsm", "q_0": 5}"#, r#"{"kind": "qcn", "Gd": 0.1}"#, r#"{"kind": "dcqcn"}"#] {
            assert!(serde_json::from_str::<L2Spec>(bad).is_err(), "{bad} accepted");
        }
        for s in [L2Spec::Qcn(Default::default()), L2Spec::Dsm(Default::default()), L2Spec::Smcc(Default::default())] {
            s.validate("l2").unwrap();
            s.validate_line_rate("l2", Rate(10_000_000_000)).unwrap();
            let e = s.validate_line_rate("l2", Rate(1_000_000)).unwrap_err();
            assert!(e.to_string().starts_with("l2.min_rate_bps:"), "{e}");
            // serde round trip
            let j = serde_json::to_string(&s).unwrap();
            assert_eq!(serde_json::from_str::<L2Spec>(&j).unwrap(), s);
        }
    }

    #[test]
    fn mismatched_feedback_is_an_error_not_a_panic() {
        let line = Rate(10_000_000_000);
        let mut rng = stream(1, Stream::Flow, 0);
        let mut rp = L2Spec::Dsm(Default::default()).rp(line, line);
        let fb = Feedback { cpid: 0, signal: Signal::Qcn { qntz: 5, q_off_bytes: 0, q_delta_bytes: 0 } };
        assert!(rp.on_feedback(Time(0), &fb, &mut rng).is_err());
        let mut rp = L2Spec::Qcn(Default::default()).rp(line, line);
        let fb = Feedback { cpid: 0, signal: Signal::Rate { fb_bps: -5 } };
        assert!(rp.on_feedback(Time(0), &fb, &mut rng).is_err());
        assert_eq!(rp.rate(), line);
    }
}
