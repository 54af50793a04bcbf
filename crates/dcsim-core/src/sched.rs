//! Deterministic event queue: events leave in (time, insertion sequence) order, so two events
//! at the same picosecond are handled in the order they were scheduled, on every run.

use crate::units::Time;

/// A min-priority queue of events keyed by (time, sequence number): a 4-ary heap on one packed
/// 128-bit key (time in the high half, the sequence in the low half), so one comparison orders two
/// entries and a pop touches about half the levels of a binary heap.
pub struct EventQueue<E> {
    heap: Vec<(u128, E)>,
    next_seq: u64,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

const ARITY: usize = 4;

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue { heap: Vec::with_capacity(1024), next_seq: 0, popped: 0 }
    }

    #[inline]
    pub fn push(&mut self, t: Time, event: E) {
        let key = ((t.0 as u128) << 64) | self.next_seq as u128;
        self.next_seq += 1;
        // Sift up with a hole: parents move down until the key fits.
        let mut i = self.heap.len();
        self.heap.push((key, event));
        if i == 0 {
            return;
        }
        let h = self.heap.as_mut_ptr();
        // SAFETY: every index used is < len; the element at the hole is moved out once and
        // written back once (no drop or copy of E in between).
        unsafe {
            let item = std::ptr::read(h.add(i));
            while i > 0 {
                let parent = (i - 1) / ARITY;
                if (*h.add(parent)).0 <= key {
                    break;
                }
                std::ptr::copy_nonoverlapping(h.add(parent), h.add(i), 1);
                i = parent;
            }
            std::ptr::write(h.add(i), item);
        }
    }

    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.first().map(|e| Time((e.0 >> 64) as u64))
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let last = self.heap.pop()?;
        self.popped += 1;
        let n = self.heap.len();
        if n == 0 {
            return Some((Time((last.0 >> 64) as u64), last.1));
        }
        // The root leaves; the last entry sifts down from the root with a hole.
        let h = self.heap.as_mut_ptr();
        // SAFETY: indices < n; the root is moved out once, `last` is written once.
        unsafe {
            let top = std::ptr::read(h);
            let key = last.0;
            let mut i = 0;
            loop {
                let first = ARITY * i + 1;
                if first >= n {
                    break;
                }
                let end = (first + ARITY).min(n);
                let mut best = first;
                let mut best_key = (*h.add(first)).0;
                for c in first + 1..end {
                    let k = (*h.add(c)).0;
                    if k < best_key {
                        best = c;
                        best_key = k;
                    }
                }
                if key <= best_key {
                    break;
                }
                std::ptr::copy_nonoverlapping(h.add(best), h.add(i), 1);
                i = best;
            }
            std::ptr::write(h.add(i), last);
            Some((Time((top.0 >> 64) as u64), top.1))
        }
    }

    /// Number of events handled so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }

    /// Pending events, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &E> {
        self.heap.iter().map(|e| &e.1)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn ties_leave_in_insertion_order() {
        let mut q = EventQueue::new();
        q.push(Time(5), 'a');
        q.push(Time(3), 'b');
        q.push(Time(5), 'c');
        q.push(Time(3), 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
    }

    #[test]
    fn pops_in_time_then_insertion_order_like_a_sort() {
        // Against a stable sort of (time, insertion order), with pops interleaved with pushes.
        let mut q = EventQueue::new();
        let mut reference: Vec<(u64, u64)> = Vec::new();
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let (mut seq, mut now) = (0u64, 0u64);
        for round in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if !x.is_multiple_of(3) || reference.is_empty() {
                let t = now + x % 50; // many ties
                q.push(Time(t), seq);
                reference.push((t, seq));
                seq += 1;
            } else {
                reference.sort();
                let want = reference.remove(0);
                let (t, e) = q.pop().unwrap();
                assert_eq!((t.0, e), want, "round {round}");
                now = t.0;
            }
            assert_eq!(q.len(), reference.len());
        }
        reference.sort();
        for want in reference {
            let (t, e) = q.pop().unwrap();
            assert_eq!((t.0, e), want);
        }
        assert!(q.pop().is_none() && q.peek_time().is_none());
    }
}
