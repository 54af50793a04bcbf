//! Drop-tail: admit everything that fits; the buffer limit (checked by the port) drops the rest.

use super::Verdict;

pub struct DropTail;

impl DropTail {
    #[inline]
    pub fn admit(&self) -> Verdict {
        Verdict::Enqueue
    }
}
