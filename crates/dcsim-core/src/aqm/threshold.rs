//! DCTCP threshold marking (Alizadeh et al. 2010; analysis paper Section 2.1): an arriving packet
//! is CE-marked iff it finds the instantaneous queue at least K (packets or bytes). A packet that
//! is not ECN-capable is dropped instead (as ns-2's RED emulation of this AQM does).

use serde::{Deserialize, Serialize};

use super::{Discipline, QueueKind, QueueView, Verdict};
use crate::error::{invalid, Result};
use crate::params::{Param, Unit};
use crate::rng::Rng;
use crate::scenario::{amount_bytes, check_amount, Amount};
use crate::units::{Rate, Time};

/// Threshold marking in scenarios: `kind = "threshold"`, `K` required.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// The marking threshold K on the instantaneous queue (packets or bytes).
    pub k: Amount,
}

impl QueueKind for Params {
    const NAME: &'static str = "threshold";
    const PARAMS: &'static [Param] = &[Param { name: "K", field: "k", unit: Unit::Amount }];
    const REQUIRED: &'static [&'static str] = &["K"];
    type Discipline = Threshold;

    /// K = 65 packets, the DCTCP papers' K at 10 Gbps.
    fn example() -> Self {
        Params { k: Amount::Packets(65) }
    }
    fn discipline(&self, _packet_bytes: u32, _rate: Rate) -> Threshold {
        Threshold::new(self.k)
    }
    /// 0 < K < buffer: an admitted arrival finds less than the buffer waiting, so K at the buffer
    /// never marks.
    fn check(&self, field: &dyn Fn(&str) -> String, capacity: Amount, packet_bytes: u32) -> Result<()> {
        check_amount(&field("K"), self.k)?;
        if amount_bytes(self.k, packet_bytes) >= amount_bytes(capacity, packet_bytes) {
            return Err(invalid(
                field("K"),
                format!(
                    "marking threshold {} is not below the buffer {capacity} (an arrival that fits finds less \
                     than the buffer waiting, so K would never mark); allowed 0 < K < buffer",
                    self.k
                ),
            ));
        }
        Ok(())
    }
    fn marks_ect(&self) -> bool {
        true
    }
    fn not_ect_fate(&self) -> &'static str {
        "drops them at K: it acts as a drop-tail queue of K packets"
    }
}

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
