//! Window congestion controllers, one file each.
//!
//! The reliable transport (`transport/tcp.rs`) owns slow start, congestion avoidance, loss
//! recovery and timers, which NewReno and DCTCP share ("This is the only difference between a
//! DCTCP source and a TCP source", DCTCP analysis paper §2.1). A controller decides only what
//! differs: how it estimates congestion from ECN echoes and how far it cuts on an ECN signal.
//!
//! Controllers that set the window themselves (delay-based ones such as DX; TIMELY or Swift would
//! fit the same shape) use four small hooks: [`Controller::on_rtt_sample`] sees every RTT sample,
//! [`Controller::window_round`] makes the window decision once per RTT,
//! [`Controller::owns_window`] keeps the transport's own increase (slow start, congestion
//! avoidance) away from the window, and [`Controller::reacts_to_loss`] /
//! [`Controller::ecn_response`] say whether losses and ECN-Echo change it.
//! [`Controller::nic_tx_timestamps`] asks for data packets to be stamped when their transmission
//! starts on the NIC (hardware timestamps) instead of when the transport hands them over.
//!
//! Adding a controller: a file with a struct implementing [`Controller`] (only the hooks where it
//! differs from the defaults, which are those of a controller that ignores ECN and leaves the
//! window to the transport), its `pub mod`, one line in the `controllers!` list below, an arm in
//! [`Cc::new`], and a `ProtocolSpec` variant in `scenario.rs` with its parameters (and its
//! `name()`, range checks and defaults); the Python side is listed in the README ("Adding a
//! congestion controller").

pub mod dctcp;
pub mod dctcp_improved_fairness;
pub mod dx;
pub mod newreno;

use crate::scenario::{BaseRttSpec, ProtocolSpec};
use crate::units::Time;

pub use dctcp::Dctcp;
pub use dctcp_improved_fairness::DctcpImprovedFairness;
pub use dx::{BaseRtt, Dx, Round};
pub use newreno::NewReno;

/// How a controller responds to an ACK carrying ECN-Echo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnResponse {
    /// Cut with [`Controller::ecn_cut`] at most once per window (RFC 3168; NewReno, DCTCP).
    OncePerWindow,
    /// Subtract [`Controller::per_ack_ecn_decrease`] on every marked ACK (DCTCP–Improved
    /// Fairness, eq. 36).
    PerAck,
    /// Ignore ECN-Echo (the controller does not use ECN).
    None,
}

/// What a window congestion controller decides; each hook's default is that of a controller
/// that ignores ECN, reacts to losses as the transport does, and leaves the window to the
/// transport's slow start and congestion avoidance.
pub trait Controller {
    /// Does this sender mark its data packets ECN-capable (ECT)?
    fn ect(&self) -> bool {
        false
    }

    /// Per-ACK congestion estimate update: `acked` segments newly acknowledged, `ece` the ACK's
    /// ECN-Echo, `ack_no` its cumulative ack, `snd_nxt` the next segment to send.
    fn on_ack(&mut self, _acked: u64, _ece: bool, _ack_no: u64, _snd_nxt: u64) {}

    /// How ECN-Echo changes the window.
    fn ecn_response(&self) -> EcnResponse {
        EcnResponse::None
    }

    /// Window after an ECN congestion signal (applied at most once per window of data).
    fn ecn_cut(&self, cwnd: f64) -> f64 {
        cwnd
    }

    /// Window after a marked ACK covering `acked` segments, for [`EcnResponse::PerAck`].
    fn per_ack_ecn_decrease(&self, cwnd: f64, _acked: u64) -> f64 {
        cwnd
    }

    /// Do losses (fast retransmit, recovery) change the window (ssthresh, halving, inflation)?
    fn reacts_to_loss(&self) -> bool {
        true
    }

    /// Under the Linux profile, does a loss found during an ECN reduction (CWR -> Recovery) set
    /// ssthresh again? DCTCP's does (`dctcp_state` halves the window on entering Recovery); Reno's
    /// keeps the CWR's ssthresh (`tcp_enter_recovery` starts no new reduction inside one).
    fn halves_on_loss_in_cwr(&self) -> bool {
        false
    }

    /// Does the controller set the window itself ([`Controller::window_round`]) instead of the
    /// transport's slow start and congestion avoidance?
    fn owns_window(&self) -> bool {
        false
    }

    /// Stamp data packets when their transmission starts on the NIC (hardware timestamps)?
    fn nic_tx_timestamps(&self) -> bool {
        false
    }

    /// Every RTT sample (one per ACK, from the echoed timestamp). A controller with a base RTT
    /// returns whether the sample exceeds it (shows queueing); the others None.
    fn on_rtt_sample(&mut self, _rtt: Time) -> Option<bool> {
        None
    }

    /// Once-per-RTT window decision of a controller that owns its window: called for every ACK
    /// of new data; returns the round's outcome when a round ends.
    fn window_round(&mut self, _cwnd: f64, _ack_no: u64, _snd_nxt: u64, _cwnd_limited: bool) -> Option<Round> {
        None
    }

    /// DCTCP's alpha; NaN for controllers without one.
    fn alpha(&self) -> f64 {
        f64::NAN
    }

    /// The base RTT a delay-based controller uses now, s; NaN for the others (or before a sample).
    fn base_rtt_s(&self) -> f64 {
        f64::NAN
    }

    /// Use Linux's fixed-point DCTCP arithmetic (`dctcp_fixed_point`; see `cc/dctcp.rs`).
    fn use_linux_dctcp(&mut self) {}

    /// Use Linux's whole-segment Reno halving (`tcp_reno_ssthresh`; the linux profile).
    fn use_linux_reno(&mut self) {}
}

/// The controllers, one `Variant(Type)` each: the enum [`Cc`] the transport holds, with every
/// [`Controller`] hook dispatched by a match (no virtual call on the per-ACK path).
macro_rules! controllers {
    ($($variant:ident($ty:ty)),+ $(,)?) => {
        /// The controller of one flow.
        pub enum Cc {
            $($variant($ty)),+
        }

        impl Controller for Cc {
            #[inline]
            fn ect(&self) -> bool {
                match self { $(Cc::$variant(c) => Controller::ect(c)),+ }
            }
            #[inline]
            fn on_ack(&mut self, acked: u64, ece: bool, ack_no: u64, snd_nxt: u64) {
                match self { $(Cc::$variant(c) => Controller::on_ack(c, acked, ece, ack_no, snd_nxt)),+ }
            }
            #[inline]
            fn ecn_response(&self) -> EcnResponse {
                match self { $(Cc::$variant(c) => Controller::ecn_response(c)),+ }
            }
            #[inline]
            fn ecn_cut(&self, cwnd: f64) -> f64 {
                match self { $(Cc::$variant(c) => Controller::ecn_cut(c, cwnd)),+ }
            }
            #[inline]
            fn per_ack_ecn_decrease(&self, cwnd: f64, acked: u64) -> f64 {
                match self { $(Cc::$variant(c) => Controller::per_ack_ecn_decrease(c, cwnd, acked)),+ }
            }
            #[inline]
            fn reacts_to_loss(&self) -> bool {
                match self { $(Cc::$variant(c) => Controller::reacts_to_loss(c)),+ }
            }
            #[inline]
            fn halves_on_loss_in_cwr(&self) -> bool {
                match self { $(Cc::$variant(c) => Controller::halves_on_loss_in_cwr(c)),+ }
            }
            #[inline]
            fn owns_window(&self) -> bool {
                match self { $(Cc::$variant(c) => Controller::owns_window(c)),+ }
            }
            #[inline]
            fn nic_tx_timestamps(&self) -> bool {
                match self { $(Cc::$variant(c) => Controller::nic_tx_timestamps(c)),+ }
            }
            #[inline]
            fn on_rtt_sample(&mut self, rtt: Time) -> Option<bool> {
                match self { $(Cc::$variant(c) => Controller::on_rtt_sample(c, rtt)),+ }
            }
            #[inline]
            fn window_round(&mut self, cwnd: f64, ack_no: u64, snd_nxt: u64, cwnd_limited: bool) -> Option<Round> {
                match self { $(Cc::$variant(c) => Controller::window_round(c, cwnd, ack_no, snd_nxt, cwnd_limited)),+ }
            }
            #[inline]
            fn alpha(&self) -> f64 {
                match self { $(Cc::$variant(c) => Controller::alpha(c)),+ }
            }
            #[inline]
            fn base_rtt_s(&self) -> f64 {
                match self { $(Cc::$variant(c) => Controller::base_rtt_s(c)),+ }
            }
            #[inline]
            fn use_linux_dctcp(&mut self) {
                match self { $(Cc::$variant(c) => Controller::use_linux_dctcp(c)),+ }
            }
            #[inline]
            fn use_linux_reno(&mut self) {
                match self { $(Cc::$variant(c) => Controller::use_linux_reno(c)),+ }
            }
        }
    };
}

controllers! {
    NewReno(NewReno),
    Dctcp(Dctcp),
    DctcpImprovedFairness(DctcpImprovedFairness),
    Dx(Dx),
}

impl Cc {
    /// The controller of `spec`. The world builder resolves DX's `r0 = "path"` to the path's exact
    /// base RTT (`FixedPs`) before this; a spec built by hand with `Path` gets the minimum RTT.
    pub fn new(spec: &ProtocolSpec) -> Cc {
        match spec {
            ProtocolSpec::Newreno { ecn } => Cc::NewReno(NewReno { ecn: *ecn, whole_segments: false }),
            ProtocolSpec::Dctcp { g, alpha_init } => Cc::Dctcp(Dctcp::new(*g, *alpha_init)),
            ProtocolSpec::DctcpImprovedFairness { g, alpha_init } => {
                Cc::DctcpImprovedFairness(DctcpImprovedFairness::new(*g, *alpha_init))
            }
            ProtocolSpec::Dx { r0 } => Cc::Dx(Dx::new(match r0 {
                BaseRttSpec::Min | BaseRttSpec::Path => BaseRtt::Min,
                BaseRttSpec::FixedPs(ps) => BaseRtt::Fixed(Time(*ps)),
            })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each protocol's facts as its definition states them: RFC 3168 NewReno (ECT only with
    /// `ecn`, half the window once per window), DCTCP (RFC 8257: ECT, once per window, alpha),
    /// DCTCP–Improved Fairness (eq. 36: per marked ACK), DX (no ECN, no loss response, its own
    /// window from NIC timestamps); and the spec-level questions asked of the controller.
    #[test]
    fn each_protocol_states_its_facts() {
        use EcnResponse::*;
        let dctcp = ProtocolSpec::Dctcp { g: 1.0 / 16.0, alpha_init: 1.0 };
        let dcif = ProtocolSpec::DctcpImprovedFairness { g: 1.0 / 16.0, alpha_init: 1.0 };
        let dx = ProtocolSpec::Dx { r0: BaseRttSpec::Min };
        // (spec, ect, response, reacts to loss, owns window, NIC stamps, halves in CWR, has alpha, cuts on ECN)
        let cases = [
            (ProtocolSpec::Newreno { ecn: false }, false, OncePerWindow, true, false, false, false, false, false),
            (ProtocolSpec::Newreno { ecn: true }, true, OncePerWindow, true, false, false, false, false, true),
            (dctcp, true, OncePerWindow, true, false, false, true, true, true),
            (dcif, true, PerAck, true, false, false, true, true, false),
            (dx, false, None, false, true, true, false, false, false),
        ];
        for (spec, ect, resp, loss, owns, nic, halves, alpha, cuts) in cases {
            let cc = Cc::new(&spec);
            let name = spec.name();
            assert_eq!(cc.ect(), ect, "{name}");
            assert_eq!(spec.ecn_capable(), ect, "{name}");
            assert_eq!(cc.ecn_response(), resp, "{name}");
            assert_eq!(spec.cuts_on_ecn(), cuts, "{name}");
            assert_eq!(cc.reacts_to_loss(), loss, "{name}");
            assert_eq!(cc.owns_window(), owns, "{name}");
            assert_eq!(cc.nic_tx_timestamps(), nic, "{name}");
            assert_eq!(cc.halves_on_loss_in_cwr(), halves, "{name}");
            assert_eq!(!cc.alpha().is_nan(), alpha, "{name}");
        }
    }

    /// The defaults of [`Controller`] are a controller that ignores ECN and leaves the window to
    /// the transport: a new controller states only where it differs.
    #[test]
    fn a_controller_without_hooks_ignores_ecn_and_leaves_the_window_to_the_transport() {
        struct Plain;
        impl Controller for Plain {}
        let mut c = Plain;
        c.on_ack(3, true, 10, 20);
        assert!(!c.ect() && c.ecn_response() == EcnResponse::None);
        assert_eq!(c.ecn_cut(10.0), 10.0);
        assert_eq!(c.per_ack_ecn_decrease(10.0, 2), 10.0);
        assert!(c.reacts_to_loss() && !c.owns_window() && !c.nic_tx_timestamps() && !c.halves_on_loss_in_cwr());
        assert_eq!(c.on_rtt_sample(Time(5)), Option::None);
        assert!(c.window_round(10.0, 5, 9, true).is_none());
        assert!(c.alpha().is_nan() && c.base_rtt_s().is_nan());
    }
}
