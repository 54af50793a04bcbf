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
//!   frame's source. A scheme whose CP also samples the arriving frames its queue drops
//!   ([`Scheme::SAMPLES_DROPPED_ARRIVALS`]: DSM and SMCC, whose paper's CP "samples the incoming
//!   packets with a probability p", §II.A) gets the same call for those, with the queue as the
//!   drop left it; 802.1Qau's CP (QCN) samples on enqueue only. (Until 2026-12-02 no scheme
//!   sampled drops: a review found a 1 Gbps dumbbell of 10 Gbps DSM sources that dropped 97.5 %
//!   of arrivals sampling 0.026 % of them, not p = 1 %, and leaving overload ~40 x slower.)
//! * RP: call [`Rp::on_feedback`] when a feedback frame arrives, [`Rp::on_tx`] for each data
//!   frame the source transmits. After any of the three calls, read [`Rp::next_timer`]: if it
//!   changed, schedule an event at that time. [`Rp::on_timer`] acts only if called at exactly the
//!   armed time and ignores stale events (it returns whether it fired), so the loop never has to
//!   cancel events.
//! * Randomness comes only from the `&mut Rng` arguments: pass the component's own stream
//!   (crate::rng::stream) and runs stay bit-identical.
//!
//! # Adding a scheme
//!
//! One file plus one line, as for `cc/` and `aqm/`:
//!
//! 1. `l2/<name>.rs` with its `Params` (serde, with defaults, `deny_unknown_fields`), a CP type
//!    implementing [`CongestionPoint`], an RP type implementing [`ReactionPoint`] (the CP and RP
//!    may be another scheme's, as SMCC reuses DSM's), and `impl Scheme for Params`: the name,
//!    the parameter table for front ends ([`Param`]: name, engine field, unit), the range checks,
//!    the target queue checked against each CP's buffer, and the feedback payload's encoding
//!    (reuse a [`Signal`] variant, or carry a 64-bit word in [`Signal::Word`]);
//! 2. `pub mod <name>;` and one line `Variant => <name>` in the `l2_schemes!` invocation below,
//!    which generates [`L2Spec`], [`Cp`], [`Rp`], their dispatch and [`schemes_table`].
//!
//! The event loop (`world.rs`) and the Python front end (which reads [`schemes_table`] through
//! `engine_defaults()`: names, parameters, units, defaults) need no change. Parameters share one
//! namespace in `[l2]` across the schemes: a name another scheme uses (`p`, `timer`, `r_ai`, ...)
//! must keep that scheme's unit (Python refuses two units for one name when it loads), and a
//! scheme's rate floor is its `min_rate` parameter ([`Scheme::min_rate_bps`]; Python checks a
//! source's `initial_rate` against it). The tests and fuzz strategies that draw schemes list the
//! papers' three (`tests/test_fuzz.py`, `tests/fuzz_l2.rs`): add the new one there to fuzz it.

pub mod dsm;
pub mod qcn;
pub mod smcc;
pub mod world;

pub use crate::params::{Param, Unit};
use serde::de::DeserializeOwned;
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
    /// Any other scheme's 64-bit payload, read by its own RP.
    Word(u64),
}

/// The switch side of a scheme, called by the event loop (see the contract above).
pub trait CongestionPoint: Clone + std::fmt::Debug {
    /// A frame of `frame_bytes` arrived at `now` and was enqueued; `q_bytes` is the queue length
    /// including it. Returns the feedback to send to the frame's source, if any.
    fn on_arrival(&mut self, now: Time, q_bytes: u64, frame_bytes: u32, rng: &mut Rng) -> Option<Feedback>;
    /// Frames sampled so far.
    fn samples_taken(&self) -> u64;
    fn cpid(&self) -> CpId;
}

/// The source side of a scheme: one rate limiter per source.
pub trait ReactionPoint: Clone + std::fmt::Debug {
    /// Current sending rate, bit/s (exact value; QCN's averaging makes it fractional).
    fn rate_bps(&self) -> f64;
    /// A feedback frame arrived at `now`. Errors if it carries another scheme's signal (which an
    /// engine that builds both halves from one [`L2Spec`] never produces).
    fn on_feedback(&mut self, now: Time, fb: &Feedback, rng: &mut Rng) -> Result<()>;
    /// The source transmitted a data frame of `frame_bytes` at `now`.
    #[inline]
    fn on_tx(&mut self, _now: Time, _frame_bytes: u32, _rng: &mut Rng) {}
    /// Time of the armed rate-increase timer, if any.
    #[inline]
    fn next_timer(&self) -> Option<Time> {
        None
    }
    /// Timer event at `now`; acts (and returns true) only if `now` is the armed time.
    #[inline]
    fn on_timer(&mut self, _now: Time, _rng: &mut Rng) -> bool {
        false
    }
}

/// A scheme: its parameters (this trait is implemented by the scheme's `Params`).
pub trait Scheme: Clone + std::fmt::Debug + PartialEq + Default + Serialize + DeserializeOwned {
    /// The scheme's name in scenarios (`[l2] scheme = "..."`), also the serde tag.
    const NAME: &'static str;
    /// The user-facing parameters, in the order front ends list them.
    const PARAMS: &'static [Param];
    type Cp: CongestionPoint;
    type Rp: ReactionPoint;
    /// Range checks of every field; errors name `{prefix}.{field}` and the allowed range.
    fn check(&self, prefix: &str) -> Result<()>;
    /// The RP's rate floor, bit/s (must not exceed a source's line rate).
    fn min_rate_bps(&self) -> u64;
    /// The queue the CP aims at, (parameter name, bytes): it must fit in each CP's buffer.
    fn target_queue(&self) -> (&'static str, u64);
    /// Does the CP sample the arriving frames its queue drops too? 802.1Qau's CP samples on
    /// enqueue (protocols.md §1 pitfalls): false, the default; the DSM paper's CP "samples the
    /// incoming packets with a probability p" (§II.A), dropped ones included.
    const SAMPLES_DROPPED_ARRIVALS: bool = false;
    /// The congestion point of a queue drained at `link_rate`.
    fn cp(&self, cpid: CpId, link_rate: Rate) -> Self::Cp;
    /// The reaction point of a source with line rate `line_rate`, starting at `initial_rate`.
    fn rp(&self, line_rate: Rate, initial_rate: Rate) -> Self::Rp;
    /// The feedback frame's 64-bit payload (the CPID travels beside it) ...
    fn encode(signal: &Signal) -> u64;
    /// ... and the signal the RP gets back from it.
    fn decode(payload: u64) -> Signal;
}

/// The schemes for front ends: for each, its name, the parameter naming its target queue, and
/// its parameters (name, engine field, unit, default).
fn describe<S: Scheme>() -> serde_json::Value {
    let defaults = serde_json::to_value(S::default()).unwrap_or_default();
    let params = crate::params::describe(S::PARAMS, &defaults);
    serde_json::json!({"name": S::NAME, "target": S::default().target_queue().0, "params": params})
}

/// Generates the scheme enums and their dispatch, one match arm per scheme and method.
macro_rules! l2_schemes {
    ($($(#[$doc:meta])* $Variant:ident => $module:ident),+ $(,)?) => {
        /// Which L2 scheme runs, with its parameters. Both halves of a scenario's CPs and RPs are
        /// built from the same spec, so a CP and an RP never disagree about the feedback format.
        #[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        pub enum L2Spec {
            $($(#[$doc])* $Variant($module::Params),)+
        }

        /// A congestion point (switch side).
        #[derive(Clone, Debug)]
        pub enum Cp {
            $($Variant(<$module::Params as Scheme>::Cp),)+
        }

        /// A reaction point: one rate limiter per source (flow).
        #[derive(Clone, Debug)]
        pub enum Rp {
            $($Variant(<$module::Params as Scheme>::Rp),)+
        }

        impl L2Spec {
            pub fn name(&self) -> &'static str {
                match self { $(L2Spec::$Variant(_) => <$module::Params as Scheme>::NAME,)+ }
            }
            /// Range checks of every field; errors name `{prefix}.{field}` and the allowed range.
            pub fn validate(&self, prefix: &str) -> Result<()> {
                match self { $(L2Spec::$Variant(p) => Scheme::check(p, prefix),)+ }
            }
            fn min_rate_bps(&self) -> u64 {
                match self { $(L2Spec::$Variant(p) => Scheme::min_rate_bps(p),)+ }
            }
            /// Whether the CPs sample arriving frames that their queue drops.
            pub fn samples_dropped_arrivals(&self) -> bool {
                match self { $(L2Spec::$Variant(_) => <$module::Params as Scheme>::SAMPLES_DROPPED_ARRIVALS,)+ }
            }
            /// The queue the CPs aim at, (parameter name, bytes).
            pub fn target_queue(&self) -> (&'static str, u64) {
                match self { $(L2Spec::$Variant(p) => Scheme::target_queue(p),)+ }
            }
            /// The congestion point of a queue drained at `link_rate`.
            pub fn cp(&self, cpid: CpId, link_rate: Rate) -> Cp {
                match self { $(L2Spec::$Variant(p) => Cp::$Variant(Scheme::cp(p, cpid, link_rate)),)+ }
            }
            /// The reaction point of a source with line rate `line_rate`, starting at `initial_rate`
            /// (clamped to [min rate, line rate]; the DSM paper starts every flow at line rate).
            pub fn rp(&self, line_rate: Rate, initial_rate: Rate) -> Rp {
                match self { $(L2Spec::$Variant(p) => Rp::$Variant(Scheme::rp(p, line_rate, initial_rate)),)+ }
            }
            /// A feedback signal as the frame's payload.
            #[inline]
            pub fn encode(&self, signal: &Signal) -> u64 {
                match self { $(L2Spec::$Variant(_) => <$module::Params as Scheme>::encode(signal),)+ }
            }
            /// The signal in a feedback frame's payload.
            #[inline]
            pub fn decode(&self, payload: u64) -> Signal {
                match self { $(L2Spec::$Variant(_) => <$module::Params as Scheme>::decode(payload),)+ }
            }
        }

        impl Cp {
            /// A frame of `frame_bytes` arrived at `now` and was enqueued; `q_bytes` is the queue
            /// length including it. Returns the feedback to send to the frame's source, if any.
            #[inline]
            pub fn on_arrival(&mut self, now: Time, q_bytes: u64, frame_bytes: u32, rng: &mut Rng) -> Option<Feedback> {
                match self { $(Cp::$Variant(c) => CongestionPoint::on_arrival(c, now, q_bytes, frame_bytes, rng),)+ }
            }
            /// Frames sampled so far.
            pub fn samples_taken(&self) -> u64 {
                match self { $(Cp::$Variant(c) => CongestionPoint::samples_taken(c),)+ }
            }
            pub fn cpid(&self) -> CpId {
                match self { $(Cp::$Variant(c) => CongestionPoint::cpid(c),)+ }
            }
        }

        impl Rp {
            /// Current sending rate, bit/s (exact value; QCN's averaging makes it fractional).
            #[inline]
            pub fn rate_bps(&self) -> f64 {
                match self { $(Rp::$Variant(r) => ReactionPoint::rate_bps(r),)+ }
            }
            /// A feedback frame arrived at `now`. Errors only if the frame belongs to another
            /// scheme, which an engine that builds both halves from one [`L2Spec`] never produces.
            #[inline]
            pub fn on_feedback(&mut self, now: Time, fb: &Feedback, rng: &mut Rng) -> Result<()> {
                match self { $(Rp::$Variant(r) => ReactionPoint::on_feedback(r, now, fb, rng),)+ }
            }
            /// The source transmitted a data frame of `frame_bytes` at `now`.
            #[inline]
            pub fn on_tx(&mut self, now: Time, frame_bytes: u32, rng: &mut Rng) {
                match self { $(Rp::$Variant(r) => ReactionPoint::on_tx(r, now, frame_bytes, rng),)+ }
            }
            /// Time of the armed rate-increase timer, if any.
            #[inline]
            pub fn next_timer(&self) -> Option<Time> {
                match self { $(Rp::$Variant(r) => ReactionPoint::next_timer(r),)+ }
            }
            /// Timer event at `now`; acts (and returns true) only if `now` is the armed time.
            #[inline]
            pub fn on_timer(&mut self, now: Time, rng: &mut Rng) -> bool {
                match self { $(Rp::$Variant(r) => ReactionPoint::on_timer(r, now, rng),)+ }
            }
            pub fn name(&self) -> &'static str {
                match self { $(Rp::$Variant(_) => <$module::Params as Scheme>::NAME,)+ }
            }
        }

        /// Every scheme for front ends (see [`describe`]), in registration order.
        pub fn schemes_table() -> serde_json::Value {
            serde_json::Value::Array(vec![$(describe::<$module::Params>(),)+])
        }
    };
}

l2_schemes! {
    /// QCN, IEEE 802.1Qau ([`qcn`]).
    Qcn => qcn,
    /// DSM, the DSM paper's delay-tolerant sliding mode ([`dsm`]).
    Dsm => dsm,
    /// SMCC, reconstructed as DSM with m = 0 ([`smcc`]).
    Smcc => smcc,
}

impl L2Spec {
    /// Checks that need a source's line rate (MinRate must be below it).
    pub fn validate_line_rate(&self, prefix: &str, line_rate: Rate) -> Result<()> {
        let min = self.min_rate_bps();
        if line_rate.bps() == 0 || min > line_rate.bps() {
            return Err(invalid(
                format!("{prefix}.min_rate_bps"),
                format!(
                    "minimum rate {} (given, or the scheme's default) is above the line rate of the source's host \
                     link, {}; allowed 0 < min_rate <= line rate",
                    crate::units::show_bps(min),
                    crate::units::show_bps(line_rate.bps())
                ),
            ));
        }
        Ok(())
    }
}

impl Rp {
    /// Current sending rate for pacing, rounded to whole bit/s (always >= 1).
    #[inline]
    pub fn rate(&self) -> Rate {
        Rate((self.rate_bps().round() as u64).max(1))
    }
}

/// The payload of a signal as the schemes here write it: QCN's 6-bit quantized Fb, the sliding-mode
/// schemes' signed Fb (two's complement), or the word itself.
#[inline]
pub(crate) fn payload(s: &Signal) -> u64 {
    match *s {
        Signal::Qcn { qntz, .. } => qntz as u64,
        Signal::Rate { fb_bps } => fb_bps as u64,
        Signal::Word(w) => w,
    }
}

/// The error of a reaction point handed another scheme's feedback.
pub(crate) fn foreign_feedback(fb: &Feedback, rp: &'static str) -> Error {
    Error::Run(format!("feedback {:?} delivered to a reaction point of another scheme ({rp})", fb.signal))
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
        let range = if hi.is_infinite() { format!("> {}", num(lo)) } else { format!("in ({}, {})", num(lo), num(hi)) };
        Err(invalid(format!("{prefix}.{field}"), format!("{what} = {} is out of range; allowed {range}", num(x))))
    }
}

pub(crate) use crate::units::short_num as num;

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
    fn schemes_table_agrees_with_the_serde_tags_and_the_params() {
        let t = schemes_table();
        let names: Vec<&str> = t.as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
        assert_eq!(names[..3], ["qcn", "dsm", "smcc"]); // the papers' schemes, in registration order
        for s in t.as_array().unwrap() {
            let name = s["name"].as_str().unwrap();
            // NAME is the serde tag, and every listed field is a field of Params with a default.
            let spec: L2Spec = serde_json::from_value(serde_json::json!({"kind": name})).unwrap();
            assert_eq!(spec.name(), name);
            let target = s["target"].as_str().unwrap();
            assert_eq!(spec.target_queue().0, target);
            for p in s["params"].as_array().unwrap() {
                assert!(!p["default"].is_null(), "{name}.{p}: no default");
                let mut j = serde_json::json!({"kind": name});
                j[p["field"].as_str().unwrap()] = p["default"].clone();
                assert_eq!(serde_json::from_value::<L2Spec>(j).unwrap(), spec, "{name}.{p}");
            }
            assert!(s["params"].as_array().unwrap().iter().any(|p| p["name"] == target), "{name}: target not a param");
        }
        // The papers' defaults (DSM paper §V, 802.1Qau) as the table gives them.
        let dsm = &t[1]["params"];
        assert_eq!(dsm[0], serde_json::json!({"name": "q0", "field": "q0_bytes", "unit": "bytes", "default": 64_000}));
        assert_eq!(t[0]["params"][0]["default"], 33_000);
    }

    #[test]
    fn range_errors_print_numbers_short() {
        assert_eq!(
            (num(1e300), num(1e15), num(2.0), num(0.5), num(0.0), num(1e-9)),
            ("1e300".into(), "1e15".into(), "2".into(), "0.5".into(), "0".into(), "1e-9".into())
        );
        let e = check_open("l2", "h_a_hz", 1e300, 0.0, 1e15, "H_a").unwrap_err().to_string();
        assert!(e.contains("H_a = 1e300 is out of range; allowed in (0, 1e15)"), "{e}");
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
