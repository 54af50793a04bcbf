//! Queue disciplines, one file each. A discipline decides, for an arriving packet, whether to
//! enqueue it, enqueue it CE-marked, or drop it: drop-tail and threshold marking see only the
//! packets that fit in the buffer, RED and CHOKe every arrival (their average and count follow
//! ns-2's `red.cc`; the buffer limit applies after their decision, see `Port::enqueue`).
//!
//! Adding a discipline: a file with a struct implementing [`Discipline`] (`admit`; RED's family
//! also `keeps_average` and `on_tail_drop`), its `pub mod`, one line in the `disciplines!` list
//! below, an arm in [`Aqm::new`], and an `AqmSpec` variant in `scenario.rs` with its range checks
//! (`QueueSpec::validate`); the Python side is listed in the README ("Adding a queue
//! discipline"). A random decision draws from the `rng` that `admit` is given (the port's own
//! stream: runs stay reproducible whatever the other ports do).
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

/// What a queue discipline decides for an arriving packet.
pub trait Discipline {
    /// Decide on an arriving packet (`ect`: it is ECN-capable) at time `now`.
    fn admit(&mut self, q: QueueView, ect: bool, now: Time, rng: &mut Rng) -> Verdict;

    /// Does the discipline keep RED's average queue (RED, CHOKe)? Such a discipline sees every
    /// arrival, one the buffer then drops too (see `Port::enqueue`); the others only those that fit.
    fn keeps_average(&self) -> bool {
        false
    }

    /// The buffer dropped the arrival the discipline had let in (RED: its count starts again).
    fn on_tail_drop(&mut self) {}
}

/// The disciplines, one `Variant(Type)` each: the enum [`Aqm`] a port holds, with every
/// [`Discipline`] hook dispatched by a match (no virtual call on the per-packet path).
macro_rules! disciplines {
    ($($variant:ident($ty:ty)),+ $(,)?) => {
        /// The discipline of one port.
        pub enum Aqm {
            $($variant($ty)),+
        }

        impl Discipline for Aqm {
            #[inline]
            fn admit(&mut self, q: QueueView, ect: bool, now: Time, rng: &mut Rng) -> Verdict {
                match self { $(Aqm::$variant(a) => Discipline::admit(a, q, ect, now, rng)),+ }
            }
            #[inline]
            fn keeps_average(&self) -> bool {
                match self { $(Aqm::$variant(a) => Discipline::keeps_average(a)),+ }
            }
            #[inline]
            fn on_tail_drop(&mut self) {
                match self { $(Aqm::$variant(a) => Discipline::on_tail_drop(a)),+ }
            }
        }
    };
}

disciplines! {
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

    /// RED and CHOKe decide before the buffer limit (they see every arrival: protocols.md §5,
    /// ns-2 `red.cc`); drop-tail and threshold marking see only the packets that fit. A discipline
    /// that states nothing else keeps no average and ignores a tail drop.
    #[test]
    fn only_reds_family_sees_every_arrival() {
        let p = red::Params { min_th: 5.0, max_th: 15.0, max_p: 0.1, w_q: 0.002, gentle: false, ecn: true, wait: true };
        let rate = Rate(1_000_000_000);
        for (name, aqm, sees_every_arrival) in [
            ("droptail", Aqm::DropTail(DropTail), false),
            ("threshold", Aqm::Threshold(Threshold::new(crate::scenario::Amount::Packets(65))), false),
            ("red", Aqm::Red(Red::new(p, 1500, rate)), true),
            ("choke", Aqm::Choke(Choke::new(p, 1, MatchRule::All, 1500, rate)), true),
        ] {
            assert_eq!(aqm.keeps_average(), sees_every_arrival, "{name}");
        }
        struct EnqueueAll;
        impl Discipline for EnqueueAll {
            fn admit(&mut self, _q: QueueView, _ect: bool, _now: Time, _rng: &mut Rng) -> Verdict {
                Verdict::Enqueue
            }
        }
        let mut d = EnqueueAll;
        d.on_tail_drop();
        assert!(!d.keeps_average());
    }
}
