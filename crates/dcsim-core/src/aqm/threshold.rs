//! DCTCP threshold marking (Alizadeh et al. 2010; analysis paper Section 2.1): an arriving packet
//! is CE-marked iff it finds the instantaneous queue at least K (packets or bytes). A packet that
//! is not ECN-capable is dropped instead (as ns-2's RED emulation of this AQM does).

use super::{Discipline, QueueView, Verdict};
use crate::rng::Rng;
use crate::scenario::Amount;
use crate::units::Time;

pub struct Threshold {
    pub k: Amount,
}

impl Threshold {
    pub fn new(k: Amount) -> Self {
        Threshold { k }
    }

    #[inline]
    pub fn admit(&self, q: QueueView, ect: bool) -> Verdict {
        let over = match self.k {
            Amount::Packets(k) => q.packets >= k,
            Amount::Bytes(k) => q.bytes >= k,
        };
        match (over, ect) {
            (false, _) => Verdict::Enqueue,
            (true, true) => Verdict::Mark,
            (true, false) => Verdict::Drop,
        }
    }
}

impl Discipline for Threshold {
    #[inline]
    fn admit(&mut self, q: QueueView, ect: bool, _now: Time, _rng: &mut Rng) -> Verdict {
        Threshold::admit(self, q, ect)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    fn view(p: u64) -> QueueView {
        QueueView { packets: p, bytes: p * 1500, idle_since: None }
    }
    #[test]
    fn marks_at_and_above_k() {
        let t = Threshold::new(Amount::Packets(65));
        assert_eq!(t.admit(view(64), true), Verdict::Enqueue);
        assert_eq!(t.admit(view(65), true), Verdict::Mark);
        assert_eq!(t.admit(view(65), false), Verdict::Drop);
        let tb = Threshold::new(Amount::Bytes(3000));
        assert_eq!(tb.admit(view(1), true), Verdict::Enqueue);
        assert_eq!(tb.admit(view(2), true), Verdict::Mark);
    }
}
