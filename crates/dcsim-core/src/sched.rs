//! Deterministic event queue: events leave in (time, insertion sequence) order, so two events
//! at the same picosecond are handled in the order they were scheduled, on every run.

use crate::units::Time;

/// A min-priority queue of events keyed by (time, sequence number): a 4-ary heap on one packed
/// 128-bit key (time in the high half, the sequence in the low half), so one comparison orders two
/// entries and a pop touches about half the levels of a binary heap.
///
/// A pop leaves a *hole* at the root instead of sifting the last entry down at once: a discrete-
/// event loop nearly always pushes right after it pops (the handled event schedules its
/// successor), and that push then fills the hole with one sift-down from the root ("replace-top")
/// instead of a sift-down of the last entry followed by a sift-up of the new one. Keys are unique
/// (the sequence number breaks every tie), so the order in which events leave does not depend on
/// the heap's shape: it is the (time, insertion) order either way.
pub struct EventQueue<E: Copy> {
    heap: Vec<(u128, E)>,
    /// heap[0] was popped and is stale: the entries in heap[1..] still form a heap below it.
    hole: bool,
    next_seq: u64,
    popped: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

const ARITY: usize = 4;

#[inline]
fn time_of(key: u128) -> Time {
    Time((key >> 64) as u64)
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue { heap: Vec::with_capacity(1024), hole: false, next_seq: 0, popped: 0 }
    }

    #[inline]
    pub fn push(&mut self, t: Time, event: E) {
        let key = ((t.0 as u128) << 64) | self.next_seq as u128;
        self.next_seq += 1;
        if self.hole {
            // Replace-top: the new entry goes where the popped root was.
            self.hole = false;
            self.sift_down_from_root((key, event));
            return;
        }
        // Sift up with a hole: parents move down until the key fits.
        let mut i = self.heap.len();
        self.heap.push((key, event));
        let h = self.heap.as_mut_ptr();
        // SAFETY: every index used is < len (i starts at len - 1 after the push); E is Copy, so
        // the bitwise moves below neither drop nor duplicate anything that owns resources.
        unsafe {
            while i > 0 {
                let parent = (i - 1) / ARITY;
                if (*h.add(parent)).0 <= key {
                    break;
                }
                *h.add(i) = *h.add(parent);
                i = parent;
            }
            *h.add(i) = (key, event);
        }
    }

    /// Put `item` at the root (whose old entry is gone) and sift it down to its place.
    #[inline]
    fn sift_down_from_root(&mut self, item: (u128, E)) {
        let n = self.heap.len();
        debug_assert!(n > 0);
        let h = self.heap.as_mut_ptr();
        let key = item.0;
        let mut i = 0;
        // SAFETY: every index used is < n = len.
        unsafe {
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
                *h.add(i) = *h.add(best);
                i = best;
            }
            *h.add(i) = item;
        }
    }

    /// Close a pending hole: the last entry takes the root's place and sifts down.
    #[inline]
    fn fill_hole(&mut self) {
        if self.hole {
            self.hole = false;
            let last = self.heap.pop().expect("a hole is an entry");
            if !self.heap.is_empty() {
                self.sift_down_from_root(last);
            }
        }
    }

    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time(&mut self) -> Option<Time> {
        self.fill_hole();
        self.heap.first().map(|e| time_of(e.0))
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.fill_hole();
        let &(key, event) = self.heap.first()?;
        self.hole = true;
        self.popped += 1;
        Some((time_of(key), event))
    }

    /// Number of events handled so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }

    /// Pending events, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &E> {
        self.heap[self.hole as usize..].iter().map(|e| &e.1)
    }

    pub fn len(&self) -> usize {
        self.heap.len() - self.hole as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
