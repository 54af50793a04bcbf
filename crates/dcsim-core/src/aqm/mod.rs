//! Queue disciplines, one file each. A discipline decides, for an arriving packet, whether to
//! enqueue it, enqueue it CE-marked, or drop it: drop-tail and threshold marking see only the
//! packets that fit in the buffer, RED and CHOKe every arrival (their average and count follow
//! ns-2's `red.cc`; the buffer limit applies after their decision, see `Port::enqueue`).
//!
//! Adding a discipline: a file with a struct that has `admit` (and `on_idle` if it keeps an
//! average), a variant of [`Aqm`], and an arm in each match below.
//!
//! CHOKe (`choke.rs`) also looks into the queue and may mark or drop packets already in it; the
//! port calls it with access to its waiting packets (see `net/port.rs`).

pub mod choke;
pub mod droptail;
pub mod red;
pub mod threshold;

use crate::error::Result;
use crate::rng::Rng;
use crate::scenario::AqmSpec;
use crate::units::{Rate, Time};

pub use choke::{Choke, MatchRule};
pub use droptail::DropTail;
pub use red::Red;
pub use threshold::Threshold;

/// What the discipline does with an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueue,
    Mark,
    Drop,
}

/// The queue as an arriving packet finds it (not counting the arriving packet, nor the packet
/// being serialised on the link).
#[derive(Clone, Copy, Debug)]
pub struct QueueView {
    pub packets: u64,
    pub bytes: u64,
    /// The link is idle and the queue empty since this time (None if busy).
    pub idle_since: Option<Time>,
}

pub enum Aqm {
    DropTail(DropTail),
    Threshold(Threshold),
    Red(Red),
    Choke(Choke),
}

impl Aqm {
    pub fn new(spec: &AqmSpec, packet_bytes: u32, rate: Rate) -> Result<Aqm> {
        Ok(match spec {
            AqmSpec::DropTail => Aqm::DropTail(DropTail),
            AqmSpec::Threshold { k } => Aqm::Threshold(Threshold::new(*k)),
            AqmSpec::Red { min_th_pkt, max_th_pkt, max_p, w_q, gentle, ecn, wait } => Aqm::Red(Red::new(
                red::Params {
                    min_th: *min_th_pkt,
                    max_th: *max_th_pkt,
                    max_p: *max_p,
                    w_q: *w_q,
                    gentle: *gentle,
                    ecn: *ecn,
                    wait: *wait,
                },
                packet_bytes,
                rate,
            )),
            AqmSpec::Choke { min_th_pkt, max_th_pkt, max_p, w_q, gentle, ecn, wait, m, rule } => {
                let p = red::Params {
                    min_th: *min_th_pkt,
                    max_th: *max_th_pkt,
                    max_p: *max_p,
                    w_q: *w_q,
                    gentle: *gentle,
                    ecn: *ecn,
                    wait: *wait,
                };
                Aqm::Choke(Choke::new(p, *m, *rule, packet_bytes, rate))
            }
        })
    }

    /// Does the discipline keep RED's average queue (RED, CHOKe)? Such a discipline sees every
    /// arrival, one the buffer then drops too (see `Port::enqueue`).
    #[inline]
    pub fn keeps_average(&self) -> bool {
        matches!(self, Aqm::Red(_) | Aqm::Choke(_))
    }

    /// The buffer dropped the arrival the discipline had let in: RED's count starts again (ns-2
    /// `red.cc`: a forced drop sets `count = 0`).
    #[inline]
    pub fn on_tail_drop(&mut self) {
        match self {
            Aqm::Red(a) => a.restart_count(),
            Aqm::Choke(a) => a.red.restart_count(),
            Aqm::DropTail(_) | Aqm::Threshold(_) => {}
        }
    }

    /// Decide on an arriving packet (`ect`: it is ECN-capable) at time `now`.
    #[inline]
    pub fn admit(&mut self, q: QueueView, ect: bool, now: Time, rng: &mut Rng) -> Verdict {
        match self {
            Aqm::DropTail(a) => a.admit(),
            Aqm::Threshold(a) => a.admit(q, ect),
            Aqm::Red(a) => a.admit(q, ect, now, rng),
            // Seen through a view only, CHOKe finds no packet to compare with: RED's decision. The
            // port never takes this path; it calls `Choke::admit` with its waiting packets.
            Aqm::Choke(a) => a.admit(q, u64::MAX, ect, now, rng, |_| u64::MAX - 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Stream};

    #[test]
    fn a_tail_drop_restarts_reds_count_in_red_and_in_choke() {
        // Average above min_th (w_q = 1, queue 10 > 5), max_p small with `wait`: no mark for the
        // first ~1/p_b arrivals, so three arrivals leave count = 3 (the first one above min_th
        // sets it to 1). A tail drop then restarts it at 0 (ns-2 red.cc's forced drop), in RED
        // and in CHOKe, which keeps RED's state.
        let p = red::Params { min_th: 5.0, max_th: 15.0, max_p: 0.01, w_q: 1.0, gentle: false, ecn: true, wait: true };
        let rate = Rate(1_000_000_000);
        let count = |a: &Aqm| match a {
            Aqm::Red(r) => r.count(),
            Aqm::Choke(c) => c.red.count(),
            _ => unreachable!(),
        };
        for mut aqm in [Aqm::Red(Red::new(p, 1500, rate)), Aqm::Choke(Choke::new(p, 1, MatchRule::All, 1500, rate))] {
            let mut rng = stream(1, Stream::Port, 0);
            let q = QueueView { packets: 10, bytes: 15_000, idle_since: None };
            for _ in 0..3 {
                assert_eq!(aqm.admit(q, true, Time(0), &mut rng), Verdict::Enqueue);
            }
            assert_eq!(count(&aqm), 3);
            aqm.on_tail_drop();
            assert_eq!(count(&aqm), 0);
        }
    }
}
