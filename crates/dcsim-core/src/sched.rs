//! Deterministic event queue: events leave in (time, insertion sequence) order, so two events
//! at the same picosecond are handled in the order they were scheduled, on every run.
//!
//! Two structures give that same order: a 4-ary heap ([`Heap`], every world's default), and for
//! large worlds a time wheel in front of it ([`Wheel`]), whose pushes and pops touch one or two
//! cache lines instead of a path through a heap of thousands of entries. Which one a world uses
//! changes its speed only, never a result: both release events by the same unique
//! (time, sequence) key. Without a wheel, timers (retransmission and delayed-ACK timeouts and the
//! series' sampling, pushed with [`EventQueue::push_timer`]) wait in a heap of their own whose
//! smallest key is kept at hand: a 5 000-flow dumbbell keeps 5 000 of them pending against a few
//! dozen packet arrivals, and in the one heap they made every packet's sift-downs some three levels
//! deeper.

use crate::units::Time;

/// Events after which a wheel is kept only if it proved dense (see below).
pub const WHEEL_TRIAL_EVENTS: u64 = 1 << 20;
/// A first look at the wheel's density, over the events from `WHEEL_EARLY_EVENTS` to twice as
/// many (past the start-up burst: a dumbbell's flows all start at once and crowd a few buckets
/// with its first ~10^5 events). A wheel with fewer than [`WHEEL_EARLY_MIN_EVENTS_PER_BUCKET`]
/// events per bucket there goes at once instead of after the trial (5 000-flow dumbbell: 1.1,
/// 10 % of its run saved). A fabric's load builds up as its flows arrive, so the bar is lower
/// than the trial's: a k = 16 fat-tree's two partitions have 3.6 there (6.6 over one world's
/// whole trial), and their wheel saves 10 % of the run.
pub const WHEEL_EARLY_EVENTS: u64 = 1 << 17;
/// See [`WHEEL_EARLY_EVENTS`].
pub const WHEEL_EARLY_MIN_EVENTS_PER_BUCKET: u64 = 2;
/// Fewest events per opened bucket, on average over the trial, for a wheel to stay: a sparse
/// wheel opens a bucket for nearly every event, which costs about what the heap costs (a
/// 5 000-sender dumbbell at 10 Gbps: 0.5 events per bucket, 1.4 % slower than the heap).
pub const WHEEL_MIN_EVENTS_PER_BUCKET: u64 = 4;

/// An event queue: a heap, or a time wheel with the heap holding the events beyond its horizon.
pub struct EventQueue<E: Copy> {
    /// Every event but the timers (no wheel), or those beyond the wheel's horizon when they were
    /// pushed.
    heap: Heap<E>,
    /// Without a wheel: the timers ([`EventQueue::push_timer`]), in a heap of their own, so that
    /// the thousands a large world keeps pending (one retransmission timer per flow) do not
    /// deepen the heap every packet's events go through. Its smallest key is `timer_min`.
    timers: Heap<E>,
    /// The timers' smallest key; `u128::MAX` when there are none.
    timer_min: u128,
    /// Which events are timers, for a wheel that goes: its pending timers then move into `timers`
    /// (None: they move into `heap`, as every event of a queue built without a wheel would).
    is_timer: Option<fn(&E) -> bool>,
    wheel: Option<Box<Wheel<E>>>,
    next_seq: u64,
    popped: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    /// A queue on a heap alone.
    pub fn new() -> Self {
        EventQueue {
            heap: Heap::new(),
            timers: Heap::new(),
            timer_min: u128::MAX,
            is_timer: None,
            wheel: None,
            next_seq: 0,
            popped: 0,
        }
    }

    /// A queue with a time wheel of `buckets` buckets (a power of two) of 2^`shift` ps each in
    /// front of the heap: events due within its span of the current bucket go to a bucket,
    /// later ones to the heap. Should the wheel go, the pending events `is_timer` picks wait
    /// with the timers (see [`EventQueue::push_timer`]).
    pub fn with_wheel(buckets: usize, shift: u32, is_timer: fn(&E) -> bool) -> Self {
        EventQueue { wheel: Some(Box::new(Wheel::new(buckets, shift))), is_timer: Some(is_timer), ..Self::new() }
    }

    /// Whether this queue has a time wheel.
    pub fn has_wheel(&self) -> bool {
        self.wheel.is_some()
    }

    /// The `i`-th next event of the wheel's current bucket (0 = the next to leave, unless an event
    /// pushed meanwhile comes first), for prefetching what it will touch; None without a wheel.
    #[inline]
    pub fn upcoming(&self, i: usize) -> Option<&E> {
        let w = self.wheel.as_deref()?;
        w.cur.get(w.head + i).map(|e| &e.1)
    }

    /// Drop the time wheel: its events move into the heap with their keys, so the order in which
    /// events leave does not change.
    /// The timers among them (those the wheel's `is_timer` picks, also those that waited in the
    /// heap beyond its span) move into the timers' heap.
    pub fn remove_wheel(&mut self) {
        let Some(w) = self.wheel.take() else { return };
        let is_timer = self.is_timer.unwrap_or(|_| false);
        let far = self.heap.take_all();
        for (key, event) in w.cur.into_iter().skip(w.head).chain(w.buckets.into_iter().flatten()).chain(far) {
            if is_timer(&event) {
                self.timers.push(key, event);
                self.timer_min = self.timer_min.min(key);
            } else {
                self.heap.push(key, event);
            }
        }
    }

    /// An event popped and not handled (a workload's, at a stop's instant), back in the queue and
    /// no longer counted as popped: [`Self::popped`] is the run's handled events, which a run's
    /// result tables report.
    pub fn put_back(&mut self, t: Time, event: E) {
        self.popped -= 1;
        self.push(t, event);
    }

    /// Always inlined into the handlers (out of line it was a call per event: N = 10 3.5 % slower).
    #[inline(always)]
    pub fn push(&mut self, t: Time, event: E) {
        let key = ((t.0 as u128) << 64) | self.next_seq as u128;
        self.next_seq += 1;
        if let Some(w) = &mut self.wheel {
            if w.try_push(key, event) {
                return;
            }
        }
        self.heap.push(key, event);
    }

    /// Push a timer: an event due far ahead that is mostly re-armed or left to fire late (a
    /// retransmission or delayed-ACK timeout, a sampling of the series). It leaves in the same
    /// (time, sequence) order as any other event; only where it waits differs (see `timers`). With
    /// a wheel it is pushed as usual (beyond the wheel's span it waits in the heap already).
    #[inline(always)]
    pub fn push_timer(&mut self, t: Time, event: E) {
        if self.wheel.is_some() {
            return self.push(t, event);
        }
        let key = ((t.0 as u128) << 64) | self.next_seq as u128;
        self.next_seq += 1;
        self.timers.push(key, event);
        self.timer_min = self.timer_min.min(key);
    }

    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time(&mut self) -> Option<Time> {
        match &mut self.wheel {
            None => {
                let k = self.heap.peek_key().unwrap_or(u128::MAX).min(self.timer_min);
                (k != u128::MAX).then(|| time_of(k))
            }
            Some(w) => w.peek_key(&mut self.heap).map(time_of),
        }
    }

    /// Pop the next event if it is due at or before `target` (one look at the queue's head
    /// instead of a peek and a pop); None if there is none.
    #[inline]
    pub fn pop_due(&mut self, target: Time) -> Option<(Time, E)> {
        // Every key whose time is <= target.
        let limit = ((target.0 as u128) << 64) | u64::MAX as u128;
        let (key, event) = match &mut self.wheel {
            None => {
                let near = self.heap.peek_key().unwrap_or(u128::MAX);
                if self.timer_min < near {
                    if self.timer_min > limit {
                        return None;
                    }
                    let e = self.timers.pop().expect("timer_min is a pending timer's key");
                    self.timer_min = self.timers.peek_key().unwrap_or(u128::MAX);
                    e
                } else {
                    if near > limit {
                        return None;
                    }
                    self.heap.pop()?
                }
            }
            Some(w) => {
                if w.peek_key(&mut self.heap)? > limit {
                    return None;
                }
                w.pop(&mut self.heap)?
            }
        };
        self.popped += 1;
        if self.popped & (WHEEL_EARLY_EVENTS - 1) == 0 {
            self.keep_wheel_if_dense();
        }
        Some((time_of(key), event))
    }

    /// Pop the next event, if any.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.pop_due(Time(u64::MAX))
    }

    /// During the trial: a wheel whose buckets held fewer than [`WHEEL_EARLY_MIN_EVENTS_PER_BUCKET`]
    /// events each on average over events 2^17 .. 2^18 (see [`WHEEL_EARLY_EVENTS`]), or fewer than
    /// [`WHEEL_MIN_EVENTS_PER_BUCKET`] over the whole trial, goes (its events into the heap).
    #[cold]
    fn keep_wheel_if_dense(&mut self) {
        let Some(w) = &mut self.wheel else { return };
        let sparse = match self.popped {
            WHEEL_EARLY_EVENTS => {
                w.opened_early = w.opened;
                false
            }
            p if p == 2 * WHEEL_EARLY_EVENTS => {
                (w.opened - w.opened_early) * WHEEL_EARLY_MIN_EVENTS_PER_BUCKET > WHEEL_EARLY_EVENTS
            }
            WHEEL_TRIAL_EVENTS => w.opened * WHEEL_MIN_EVENTS_PER_BUCKET > self.popped,
            _ => false,
        };
        if sparse {
            self.remove_wheel();
        }
    }

    /// Number of events handled so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }

    /// Pending events, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &E> {
        self.heap.iter().chain(self.timers.iter()).chain(self.wheel.iter().flat_map(|w| w.iter()))
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.timers.len() + self.wheel.as_ref().map_or(0, |w| w.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

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
pub struct Heap<E: Copy> {
    heap: Vec<(u128, E)>,
    /// heap[0] was popped and is stale: the entries in heap[1..] still form a heap below it.
    hole: bool,
}

const ARITY: usize = 4;

#[inline]
fn time_of(key: u128) -> Time {
    Time((key >> 64) as u64)
}

impl<E: Copy> Default for Heap<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> Heap<E> {
    pub fn new() -> Self {
        Heap { heap: Vec::with_capacity(1024), hole: false }
    }

    /// Push an entry with its (unique) key.
    #[inline]
    pub fn push(&mut self, key: u128, event: E) {
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

    /// Key of the smallest entry, if any.
    #[inline]
    pub fn peek_key(&mut self) -> Option<u128> {
        self.fill_hole();
        self.heap.first().map(|e| e.0)
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(u128, E)> {
        self.fill_hole();
        let &entry = self.heap.first()?;
        self.hole = true;
        Some(entry)
    }

    /// Take every pending entry out (the heap is left empty), in no particular order.
    fn take_all(&mut self) -> Vec<(u128, E)> {
        let mut v = std::mem::take(&mut self.heap);
        if std::mem::take(&mut self.hole) {
            v.swap_remove(0);
        }
        v
    }

    /// Pending entries, in no particular order.
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

/// A time wheel: `buckets` buckets of 2^`shift` ps, bucket b holding (unsorted) the events due
/// in absolute bucket n = time >> shift with n = b (mod buckets), for the n within `buckets` of the
/// current bucket. The current bucket's events are sorted by key when it becomes current and leave
/// from the front. Events beyond the span stay in the caller's heap, which is merged in bucket by
/// bucket: the next bucket opened is the smaller of the wheel's next non-empty bucket and the
/// heap's smallest key's bucket, and it takes the heap's events of that bucket too. So events
/// leave in key order, exactly as from a heap.
///
/// Suited to worlds whose pending events are mostly near (each port's next arrival is within a
/// serialisation time and a propagation delay): a push writes the end of one bucket, a pop reads
/// the next entry of a small sorted vector.
pub struct Wheel<E: Copy> {
    shift: u32,
    mask: u64,
    buckets: Vec<Vec<(u128, E)>>,
    /// Non-empty buckets, one bit each.
    occupied: Vec<u64>,
    /// The current bucket's events, sorted by key; those before `head` have left.
    cur: Vec<(u128, E)>,
    head: usize,
    /// Absolute number of the current bucket.
    cur_n: u64,
    /// Events in `buckets` (not counting `cur`).
    in_buckets: usize,
    /// Buckets made current so far.
    opened: u64,
    /// `opened` after [`WHEEL_EARLY_EVENTS`] events.
    opened_early: u64,
}

impl<E: Copy> Wheel<E> {
    pub fn new(buckets: usize, shift: u32) -> Self {
        assert!(buckets.is_power_of_two() && buckets >= 64, "wheel buckets: a power of two >= 64");
        Wheel {
            shift,
            mask: buckets as u64 - 1,
            buckets: (0..buckets).map(|_| Vec::new()).collect(),
            occupied: vec![0; buckets / 64],
            cur: Vec::new(),
            head: 0,
            cur_n: 0,
            in_buckets: 0,
            opened: 0,
            opened_early: 0,
        }
    }

    #[inline]
    fn bucket_of(&self, key: u128) -> u64 {
        ((key >> 64) as u64) >> self.shift
    }

    /// Take an event due within the span (else false: it goes to the heap).
    #[inline]
    fn try_push(&mut self, key: u128, event: E) -> bool {
        let n = self.bucket_of(key);
        if n <= self.cur_n {
            // Due in the current bucket (an event for "now"): into its sorted place.
            let i = self.head + self.cur[self.head..].partition_point(|e| e.0 < key);
            self.cur.insert(i, (key, event));
            return true;
        }
        if n - self.cur_n > self.mask {
            return false;
        }
        let b = (n & self.mask) as usize;
        self.buckets[b].push((key, event));
        self.occupied[b / 64] |= 1 << (b % 64);
        self.in_buckets += 1;
        true
    }

    /// The next non-empty bucket after the current one (absolute number), if any.
    fn next_occupied(&self) -> Option<u64> {
        if self.in_buckets == 0 {
            return None;
        }
        let nb = self.mask + 1;
        let start = (self.cur_n + 1) & self.mask;
        // Scan the bitmap from `start`, wrapping once.
        let words = self.occupied.len();
        let (w0, bit0) = ((start / 64) as usize, start % 64);
        for k in 0..=words {
            let w = (w0 + k) % words;
            let mut bits = self.occupied[w];
            if k == 0 {
                bits &= !0u64 << bit0;
            } else if k == words {
                bits &= (1u64 << bit0).wrapping_sub(1);
            }
            if bits != 0 {
                let b = w as u64 * 64 + bits.trailing_zeros() as u64;
                // Its absolute number: the first n > cur_n with n = b (mod nb).
                let delta = (b + nb - start) & self.mask;
                return Some(self.cur_n + 1 + delta);
            }
        }
        unreachable!("in_buckets > 0 but no occupied bucket")
    }

    /// Make the next bucket current (wheel or heap, whichever comes first); false if none.
    #[inline(never)]
    fn advance(&mut self, heap: &mut Heap<E>) -> bool {
        debug_assert!(self.head == self.cur.len());
        self.cur.clear();
        self.head = 0;
        let from_heap = heap.peek_key().map(|k| self.bucket_of(k));
        let n = match (self.next_occupied(), from_heap) {
            (Some(a), Some(h)) => a.min(h),
            (Some(a), None) => a,
            (None, Some(h)) => h,
            (None, None) => return false,
        };
        if n - self.cur_n <= self.mask {
            let b = (n & self.mask) as usize;
            if self.occupied[b / 64] & (1 << (b % 64)) != 0 {
                std::mem::swap(&mut self.cur, &mut self.buckets[b]);
                self.occupied[b / 64] &= !(1 << (b % 64));
                self.in_buckets -= self.cur.len();
            }
        }
        while let Some(k) = heap.peek_key() {
            if self.bucket_of(k) != n {
                break;
            }
            self.cur.push(heap.pop().expect("peeked"));
        }
        self.cur_n = n;
        self.opened += 1;
        self.cur.sort_unstable_by_key(|e| e.0);
        // The next bucket's events were written microseconds ago and have left the cache: bring
        // them back while this bucket's events are handled (its sort stalled on them).
        let next = &self.buckets[((n + 1) & self.mask) as usize];
        if !next.is_empty() {
            crate::prefetch::bytes(next.as_ptr(), next.len() * std::mem::size_of::<(u128, E)>());
        }
        true
    }

    #[inline]
    fn peek_key(&mut self, heap: &mut Heap<E>) -> Option<u128> {
        if self.head == self.cur.len() && !self.advance(heap) {
            return None;
        }
        self.cur.get(self.head).map(|e| e.0)
    }

    #[inline]
    fn pop(&mut self, heap: &mut Heap<E>) -> Option<(u128, E)> {
        if self.head == self.cur.len() && !self.advance(heap) {
            return None;
        }
        let e = self.cur.get(self.head).copied();
        self.head += 1;
        e
    }

    fn iter(&self) -> impl Iterator<Item = &E> {
        self.cur[self.head..].iter().chain(self.buckets.iter().flatten()).map(|e| &e.1)
    }

    fn len(&self) -> usize {
        self.cur.len() - self.head + self.in_buckets
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tests' pseudo-random stream (xorshift64).
    fn xorshift(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }
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

    /// The wheel releases events in exactly the heap's order: pushes near and far (beyond the
    /// span, into the heap), at the current instant and in the current bucket, many ties, pops
    /// interleaved, and long idle gaps the wheel must jump.
    #[test]
    fn wheel_pops_in_the_heaps_order() {
        for (buckets, shift) in [(64usize, 0u32), (64, 3), (256, 6), (1024, 10)] {
            let mut w: EventQueue<u64> = EventQueue::with_wheel(buckets, shift, |e| e % 2 == 1);
            let mut h: EventQueue<u64> = EventQueue::new();
            let mut x: u64 = 0x2545_F491_4F6C_DD1D ^ shift as u64;
            let mut now = 0u64;
            let span = (buckets as u64) << shift;
            for i in 0..60_000u64 {
                xorshift(&mut x);
                if x % 7 < 4 || h.is_empty() {
                    let dt = match x % 11 {
                        0 => 0,                              // now
                        1 => (x >> 8) % (1 << shift).max(1), // the current bucket
                        2 => span + (x >> 8) % (4 * span),   // beyond the span
                        3 => 50 * span + (x >> 8) % 7,       // far away (a gap to jump)
                        _ => (x >> 8) % span,
                    };
                    w.push(Time(now + dt), i);
                    h.push(Time(now + dt), i);
                } else {
                    assert_eq!(w.peek_time(), h.peek_time());
                    let (a, b) = (w.pop(), h.pop());
                    assert_eq!(a.map(|(t, e)| (t.0, e)), b.map(|(t, e)| (t.0, e)), "{buckets} {shift} {i}");
                    now = a.unwrap().0 .0;
                }
                assert_eq!(w.len(), h.len());
            }
            while let Some(b) = h.pop() {
                assert_eq!(w.pop().map(|(t, e)| (t.0, e)), Some((b.0 .0, b.1)));
            }
            assert!(w.pop().is_none() && w.is_empty());
            assert_eq!(w.popped(), h.popped());
        }
    }

    /// A sparse wheel (about one event per bucket) goes at the first look and a dense one stays
    /// after the trial; either way the order in which events leave is the heap's, before and
    /// after.
    #[test]
    fn sparse_wheel_goes_after_the_trial_dense_stays_same_order() {
        for (gap, keeps) in [(1u64 << 10, false), (1 << 4, true)] {
            // 64 buckets of 2^8 ps; a steady stream of 100 pending events `gap` ps apart.
            // Every third event is a timer (pushed as one): after the wheel goes they wait apart.
            let mut w: EventQueue<u64> = EventQueue::with_wheel(64, 8, |e| e % 3 == 0);
            let mut h: EventQueue<u64> = EventQueue::new();
            for i in 0..100u64 {
                w.push(Time(i * gap), i);
                h.push(Time(i * gap), i);
            }
            let mut next = 100u64;
            let mut split_checked = false;
            while w.popped() < WHEEL_TRIAL_EVENTS + 1000 {
                let (a, b) = (w.pop().unwrap(), h.pop().unwrap());
                assert_eq!((a.0, a.1), (b.0, b.1));
                if w.popped() == 2 * WHEEL_EARLY_EVENTS {
                    // A steady sparse stream is judged at the first look, past the start.
                    assert_eq!(w.has_wheel(), keeps, "gap {gap} at the first look");
                }
                if !w.has_wheel() && !split_checked {
                    // The wheel just went: its pending timers wait with the timers, the rest in
                    // the heap.
                    split_checked = true;
                    assert!(!w.timers.is_empty() && w.timers.iter().all(|e| e % 3 == 0));
                    assert!(w.heap.iter().all(|e| e % 3 != 0));
                }
                if next.is_multiple_of(3) {
                    w.push_timer(Time(next * gap), next);
                } else {
                    w.push(Time(next * gap), next);
                }
                h.push(Time(next * gap), next);
                next += 1;
            }
            assert_eq!(split_checked, !keeps);
            assert_eq!(w.has_wheel(), keeps, "gap {gap}");
            assert_eq!(w.len(), h.len());
            while let Some(b) = h.pop() {
                let a = w.pop().unwrap();
                assert_eq!((a.0, a.1), (b.0, b.1));
            }
        }
    }

    /// Events leave in (time, insertion) order, by `pop` and by `pop_due` alike: against a stable
    /// sort, with many ties and pops interleaved with pushes; then with every fourth event a timer
    /// (waiting in a heap of its own; mostly far, ties across the two heaps included), with and
    /// without a wheel that goes at once.
    #[test]
    fn pops_in_time_then_insertion_order_like_a_sort() {
        for (timers, wheel) in [(false, false), (true, false), (true, true)] {
            let mut q: EventQueue<u64> =
                if wheel { EventQueue::with_wheel(64, 4, |e| e % 4 == 0) } else { EventQueue::new() };
            let mut reference: Vec<(u64, u64)> = Vec::new();
            let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
            let (mut seq, mut now) = (0u64, 0u64);
            for round in 0..30_000u64 {
                let r = xorshift(&mut x);
                if round == 5_000 {
                    q.remove_wheel(); // the pending timers move to the timers' heap
                }
                if !r.is_multiple_of(3) || reference.is_empty() {
                    let timer = timers && seq.is_multiple_of(4);
                    let t = now + r % if timer { 5_000 } else { 50 };
                    if timer {
                        q.push_timer(Time(t), seq);
                    } else {
                        q.push(Time(t), seq);
                    }
                    reference.push((t, seq));
                    seq += 1;
                } else {
                    reference.sort();
                    let want = reference.remove(0);
                    assert_eq!(q.peek_time(), Some(Time(want.0)));
                    // Not due before its time; due at it (odd rounds), or popped plainly.
                    if want.0 > 0 {
                        assert!(q.pop_due(Time(want.0 - 1)).is_none());
                    }
                    let (t, e) = if round % 2 == 1 { q.pop_due(Time(want.0)).unwrap() } else { q.pop().unwrap() };
                    assert_eq!((t.0, e), want, "round {round} timers {timers} wheel {wheel}");
                    now = t.0;
                }
                assert_eq!(q.len(), reference.len());
            }
            reference.sort();
            for want in reference {
                assert_eq!(q.pop().map(|(t, e)| (t.0, e)), Some(want));
            }
            assert!(q.pop().is_none() && q.peek_time().is_none());
        }
    }
}
