//! Drop-tail: admit everything that fits; the buffer limit (checked by the port) drops the rest.

use super::{Discipline, QueueView, Verdict};
use crate::rng::Rng;
use crate::units::Time;

pub struct DropTail;

impl Discipline for DropTail {
    #[inline]
    fn admit(&mut self, _q: QueueView, _ect: bool, _now: Time, _rng: &mut Rng) -> Verdict {
        Verdict::Enqueue
    }
}
