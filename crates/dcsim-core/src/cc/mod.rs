//! Window congestion controllers, one file each.
//!
//! The reliable transport (`transport/tcp.rs`) owns slow start, congestion avoidance, loss
//! recovery and timers, which NewReno and DCTCP share ("This is the only difference between a
//! DCTCP source and a TCP source", DCTCP analysis paper §2.1). A controller decides only what
//! differs: how it estimates congestion from ECN echoes and how far it cuts on an ECN signal.
//!
//! Controllers that set the window themselves (delay-based ones such as DX; TIMELY or Swift would
//! fit the same shape) use four small hooks: [`Cc::on_rtt_sample`] sees every RTT sample,
//! [`Cc::window_round`] makes the window decision once per RTT, [`Cc::owns_window`] keeps the
//! transport's own increase (slow start, congestion avoidance) away from the window, and
//! [`Cc::reacts_to_loss`] / [`Cc::reacts_to_ecn`] say whether losses and ECN-Echo change it.
//! [`Cc::nic_tx_timestamps`] asks for data packets to be stamped when their transmission starts
//! on the NIC (hardware timestamps) instead of when the transport hands them over.
//!
//! Adding a controller: a file with a struct implementing these methods, a variant of [`Cc`],
//! an arm in each match below, and a `ProtocolSpec` variant in `scenario.rs`.

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

pub enum Cc {
    NewReno(NewReno),
    Dctcp(Dctcp),
    DctcpImprovedFairness(DctcpImprovedFairness),
    Dx(Dx),
}

/// How a controller responds to an ACK carrying ECN-Echo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnResponse {
    /// Cut with [`Cc::ecn_cut`] at most once per window (RFC 3168; NewReno, DCTCP).
    OncePerWindow,
    /// Subtract [`Cc::per_ack_ecn_decrease`] on every marked ACK (DCTCP–Improved Fairness, eq. 36).
    PerAck,
    /// Ignore ECN-Echo (the controller does not use ECN).
    None,
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

    /// Use Linux's fixed-point DCTCP arithmetic (`dctcp_fixed_point`; see `cc/dctcp.rs`).
    pub fn use_linux_dctcp(&mut self) {
        match self {
            Cc::Dctcp(c) => c.use_linux_arithmetic(),
            Cc::DctcpImprovedFairness(c) => c.dctcp.use_linux_arithmetic(),
            _ => {}
        }
    }

    /// Use Linux's whole-segment Reno halving (`tcp_reno_ssthresh`; the linux profile).
    pub fn use_linux_reno(&mut self) {
        if let Cc::NewReno(c) = self {
            c.whole_segments = true;
        }
    }

    /// Does this sender mark its data packets ECN-capable (ECT)?
    #[inline]
    pub fn ect(&self) -> bool {
        match self {
            Cc::NewReno(c) => c.ecn,
            Cc::Dctcp(_) | Cc::DctcpImprovedFairness(_) => true,
            Cc::Dx(_) => false,
        }
    }

    /// Per-ACK congestion estimate update: `acked` segments newly acknowledged, `ece` the ACK's
    /// ECN-Echo, `ack_no` its cumulative ack, `snd_nxt` the next segment to send.
    #[inline]
    pub fn on_ack(&mut self, acked: u64, ece: bool, ack_no: u64, snd_nxt: u64) {
        match self {
            Cc::NewReno(_) | Cc::Dx(_) => {}
            Cc::Dctcp(c) => c.on_ack(acked, ece, ack_no, snd_nxt),
            Cc::DctcpImprovedFairness(c) => c.dctcp.on_ack(acked, ece, ack_no, snd_nxt),
        }
    }

    /// How ECN-Echo changes the window.
    #[inline]
    pub fn ecn_response(&self) -> EcnResponse {
        match self {
            Cc::NewReno(_) | Cc::Dctcp(_) => EcnResponse::OncePerWindow,
            Cc::DctcpImprovedFairness(_) => EcnResponse::PerAck,
            Cc::Dx(_) => EcnResponse::None,
        }
    }

    /// Does ECN-Echo change the window at all?
    #[inline]
    pub fn reacts_to_ecn(&self) -> bool {
        self.ecn_response() != EcnResponse::None
    }

    /// Window after an ECN congestion signal (applied at most once per window of data).
    #[inline]
    pub fn ecn_cut(&self, cwnd: f64) -> f64 {
        match self {
            Cc::NewReno(c) => c.ecn_cut(cwnd),
            Cc::Dctcp(c) => c.ecn_cut(cwnd),
            Cc::DctcpImprovedFairness(c) => c.dctcp.ecn_cut(cwnd),
            Cc::Dx(_) => cwnd,
        }
    }

    /// Window after a marked ACK covering `acked` segments, for [`EcnResponse::PerAck`].
    #[inline]
    pub fn per_ack_ecn_decrease(&self, cwnd: f64, acked: u64) -> f64 {
        match self {
            Cc::DctcpImprovedFairness(c) => c.per_ack_decrease(cwnd, acked),
            _ => cwnd,
        }
    }

    /// Do losses (fast retransmit, recovery) change the window (ssthresh, halving, inflation)?
    #[inline]
    pub fn reacts_to_loss(&self) -> bool {
        !matches!(self, Cc::Dx(_))
    }

    /// Under the Linux profile, does a loss found during an ECN reduction (CWR -> Recovery) set
    /// ssthresh again? DCTCP's does (`dctcp_state` halves the window on entering Recovery); Reno's
    /// keeps the CWR's ssthresh (`tcp_enter_recovery` starts no new reduction inside one).
    #[inline]
    pub fn halves_on_loss_in_cwr(&self) -> bool {
        matches!(self, Cc::Dctcp(_) | Cc::DctcpImprovedFairness(_))
    }

    /// Does the controller set the window itself ([`Cc::window_round`]) instead of the
    /// transport's slow start and congestion avoidance?
    #[inline]
    pub fn owns_window(&self) -> bool {
        matches!(self, Cc::Dx(_))
    }

    /// Stamp data packets when their transmission starts on the NIC (hardware timestamps)?
    #[inline]
    pub fn nic_tx_timestamps(&self) -> bool {
        match self {
            Cc::Dx(_) => Dx::NIC_TX_TIMESTAMPS,
            _ => false,
        }
    }

    /// Every RTT sample (one per ACK, from the echoed timestamp). A controller with a base RTT
    /// returns whether the sample exceeds it (shows queueing); the others None.
    #[inline]
    pub fn on_rtt_sample(&mut self, rtt: Time) -> Option<bool> {
        match self {
            Cc::Dx(c) => Some(c.on_rtt_sample(rtt)),
            _ => None,
        }
    }

    /// Once-per-RTT window decision of a controller that owns its window: called for every ACK
    /// of new data; returns the round's outcome when a round ends.
    #[inline]
    pub fn window_round(&mut self, cwnd: f64, ack_no: u64, snd_nxt: u64, cwnd_limited: bool) -> Option<Round> {
        match self {
            Cc::Dx(c) => c.on_ack(cwnd, ack_no, snd_nxt, cwnd_limited),
            _ => None,
        }
    }

    /// DCTCP's alpha; NaN for controllers without one.
    #[inline]
    pub fn alpha(&self) -> f64 {
        match self {
            Cc::NewReno(_) | Cc::Dx(_) => f64::NAN,
            Cc::Dctcp(c) => c.alpha,
            Cc::DctcpImprovedFairness(c) => c.dctcp.alpha,
        }
    }

    /// The base RTT a delay-based controller uses now, s; NaN for the others (or before a sample).
    #[inline]
    pub fn base_rtt_s(&self) -> f64 {
        match self {
            Cc::Dx(c) => c.r0().map_or(f64::NAN, |t| t.secs_f64()),
            _ => f64::NAN,
        }
    }
}
