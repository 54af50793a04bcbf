//! Window congestion controllers, one file each.
//!
//! The reliable transport (`transport/tcp.rs`) owns slow start, congestion avoidance, loss
//! recovery and timers, which NewReno and DCTCP share ("This is the only difference between a
//! DCTCP source and a TCP source", DCTCP analysis paper §2.1). A controller decides only what
//! differs: how it estimates congestion from ECN echoes and how far it cuts on an ECN signal.
//!
//! Adding a controller: a file with a struct implementing these methods, a variant of [`Cc`],
//! an arm in each match below, and a `ProtocolSpec` variant in `scenario.rs`.

pub mod dctcp;
pub mod newreno;

use crate::scenario::ProtocolSpec;

pub use dctcp::Dctcp;
pub use newreno::NewReno;

pub enum Cc {
    NewReno(NewReno),
    Dctcp(Dctcp),
}

impl Cc {
    pub fn new(spec: &ProtocolSpec) -> Cc {
        match spec {
            ProtocolSpec::Newreno { ecn } => Cc::NewReno(NewReno { ecn: *ecn }),
            ProtocolSpec::Dctcp { g, alpha_init } => Cc::Dctcp(Dctcp::new(*g, *alpha_init)),
        }
    }

    /// Does this sender mark its data packets ECN-capable (ECT)?
    #[inline]
    pub fn ect(&self) -> bool {
        match self {
            Cc::NewReno(c) => c.ecn,
            Cc::Dctcp(_) => true,
        }
    }

    /// Per-ACK congestion estimate update: `acked` segments newly acknowledged, `ece` the ACK's
    /// ECN-Echo, `ack_no` its cumulative ack, `snd_nxt` the next segment to send.
    #[inline]
    pub fn on_ack(&mut self, acked: u64, ece: bool, ack_no: u64, snd_nxt: u64) {
        match self {
            Cc::NewReno(_) => {}
            Cc::Dctcp(c) => c.on_ack(acked, ece, ack_no, snd_nxt),
        }
    }

    /// Window after an ECN congestion signal (applied at most once per window of data).
    #[inline]
    pub fn ecn_cut(&self, cwnd: f64) -> f64 {
        match self {
            Cc::NewReno(c) => c.ecn_cut(cwnd),
            Cc::Dctcp(c) => c.ecn_cut(cwnd),
        }
    }

    /// DCTCP's alpha; NaN for controllers without one.
    #[inline]
    pub fn alpha(&self) -> f64 {
        match self {
            Cc::NewReno(_) => f64::NAN,
            Cc::Dctcp(c) => c.alpha,
        }
    }
}
